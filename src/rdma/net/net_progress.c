/*
 * The network channel's progress and wait.
 *
 * rch_net_progress(), as phases (bounded, never blocks):
 *   1. completions: reap up to RCH_NET_CQ_BATCH from the provider's CQ (this
 *      also drives providers without a progress thread, e.g. libfabric tcp,
 *      which moves bytes only inside fi_cq_read) and dispatch them by kind;
 *   2. rings: take what arrived in each ready connection's ring;
 *   3. pending work: RMAs waiting for a connection or send-queue room,
 *      credit returns and doorbells that found the queue full;
 *   4. connection events and timers: on every call while a connection is
 *      being made, else every RCH_NET_CM_EVERY calls (a request from a peer
 *      that has nothing to say to us yet is answered within that);
 *   5. failures: each failed connection's RMAs complete with an error, then
 *      upcalls.peer_failed(rank).
 * A pass whose CQ read found nothing, with no pending work, failure or
 * connection event due, is the common one (a waiting rank's spin): it tests
 * each ring's next slot with one compare and takes only rings that have
 * something, so an empty poll costs the provider's CQ read and a few loads.
 *
 * Wait: the provider's fd (libfabric: an epoll set of the CQ's and EQ's
 * wait objects) becomes readable when any socket or device event is
 * pending; AGAIN when work is already queued here, or when the rings hold
 * something once the provider is armed (arming may itself move bytes).
 */
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "rdma/net/net.h"

void rch_net_ready_add(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    if (c->ready_index < 0) {
        c->ready_index = ch->nready;
        ch->ready[ch->nready++] = c;
    }
}

void rch_net_ready_del(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    int i = c->ready_index;
    if (i < 0)
        return;
    struct rch_net_conn *last = ch->ready[--ch->nready];
    ch->ready[i] = last;
    last->ready_index = i;
    c->ready_index = -1;
}

void rch_net_pending_del(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    int i = c->pending_index;
    if (i < 0)
        return;
    struct rch_net_conn *last = ch->pending[--ch->npending];
    ch->pending[i] = last;
    last->pending_index = i;
    c->pending_index = -1;
}

/* A completion with an error: the connection it belongs to is broken. */
static void op_failed(struct rch_rdma_chan *ch, struct rch_net_conn *c, const char *what, rdmach_status_t st)
{
    if (c->state == RCH_NET_C_FAILED || c->state == RCH_NET_C_CLOSED || ch->closing)
        return;
    /* A client's receives flushed by a connect that failed: its connection
     * event says whether it connects again (net_conn.c), the deadline
     * bounds it. */
    if (c->state == RCH_NET_C_CONNECTING)
        return;
    /* A peer that closed its channel wrote BYE as its last slot before its
     * connection went down: take what is in the ring first (the flushed
     * operations may be reported before we polled it). */
    if (c->state == RCH_NET_C_READY) {
        rch_net_ring_progress(ch, c, UINT32_MAX);
        if (c->state == RCH_NET_C_CLOSED)
            return;
    }
    char why[224];
    snprintf(why, sizeof(why), "%s failed: %s", what, rdmach_last_error());
    rch_net_conn_fail(ch, c, st, why);
}

static void remote_data(struct rch_rdma_chan *ch, const struct rch_net_cqe *e)
{
    struct rch_net_op *op = e->ctx;
    if (e->imm >= (uint32_t)ch->size || !ch->conns[e->imm].is_peer) {
        RCH_WARN("net", "immediate data %u names no peer; ignored", e->imm);
        return;
    }
    struct rch_net_conn *c = &ch->conns[e->imm];
    if ((uint32_t)(c->rx.notified + 1 - c->rx.seq) > ch->nslots) {
        rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, "more slots announced than a ring has");
        return;
    }
    c->rx.notified++;
    if (op != NULL && op->kind == RCH_NET_OP_RECV && op->conn->ep && op->conn->state == RCH_NET_C_READY) {
        struct rch_net_conn *oc = op->conn;
        rdmach_status_t st = ch->pops->post_recv(ch->prov, oc->ep, oc->recv_bufs + (size_t)op->index * RCH_NET_CTL_BUF,
                                                 RCH_NET_CTL_BUF, &oc->local_mr, op);
        if (st != RDMACH_OK)
            rch_net_conn_fail(ch, oc, st, rdmach_last_error());
    }
}

static void dispatch(struct rch_rdma_chan *ch, struct rch_net_cqe *e)
{
    /* An operation flushed or failed by the transport: its connection broke. */
    if (e->status == RDMACH_ERR_CANCELED || e->status == RDMACH_ERR_IO)
        e->status = RDMACH_ERR_PEER_DEAD;
    if (e->op == RCH_NET_CQ_REMOTE_DATA && e->status == RDMACH_OK) {
        remote_data(ch, e);
        return;
    }
    struct rch_net_op *op = e->ctx;
    if (op == NULL)
        return;
    struct rch_net_conn *c = op->conn;
    if (RCH_UNLIKELY(c && c->detached && op->kind != RCH_NET_OP_RMA)) {
        op->busy = 0;   /* reaped after its connection was released: its buffers are gone */
        return;
    }
    switch (op->kind) {
    case RCH_NET_OP_RECV:
        op->busy = 0;
        if (e->status != RDMACH_OK)
            op_failed(ch, c, "a receive", e->status);
        else
            rch_net_on_ctl(ch, c, op, e->len);
        break;
    case RCH_NET_OP_CTL:
        op->busy = 0;
        if (e->status != RDMACH_OK)
            op_failed(ch, c, "a control message", e->status);
        else if (c->bells_owed)
            rch_net_set_pending(ch, c);
        break;
    case RCH_NET_OP_SLOT:
        op->busy = 0;
        if (e->status != RDMACH_OK)
            op_failed(ch, c, "a ring write", e->status);
        if (op->up_ctx)   /* a send_zc: its buffer is free, or it failed with its connection */
            rch_net_zc_done(ch, op, e->status == RDMACH_OK ? RDMACH_OK : c->fail_status ? c->fail_status
                                                                                          : RDMACH_ERR_PEER_DEAD);
        break;
    case RCH_NET_OP_CRDT:
        op->busy = 0;
        if (e->status != RDMACH_OK)
            op_failed(ch, c, "a credit write", e->status);
        else if (c->crdt_pending)
            rch_net_set_pending(ch, c);
        break;
    case RCH_NET_OP_RMA:
        rch_net_rma_chunk_done(ch, op->rma, e->status);
        break;
    default:
        RCH_WARN("net", "a completion with an unknown context kind %u", op->kind);
        break;
    }
}

static unsigned flush_pending(struct rch_rdma_chan *ch)
{
    unsigned n = 0;
    for (int i = 0; i < ch->npending;) {
        struct rch_net_conn *c = ch->pending[i];
        int more = 0;
        if (c->state == RCH_NET_C_READY) {
            more = rch_net_rma_flush(ch, c);
            more |= rch_net_flush_ctl(ch, c);
            n++;
        } else {
            more = c->rq_head != NULL && c->state != RCH_NET_C_FAILED && c->state != RCH_NET_C_CLOSED;
        }
        if (!more)
            rch_net_pending_del(ch, c);   /* the last entry moved into i */
        else
            i++;
    }
    return n;
}

static unsigned report_failures(struct rch_rdma_chan *ch)
{
    unsigned n = 0;
    ch->nfail_pending = 0;
    for (int r = 0; r < ch->size; r++) {
        struct rch_net_conn *c = &ch->conns[r];
        if (c->state != RCH_NET_C_FAILED || c->fail_reported)
            continue;
        c->fail_reported = 1;
        rch_net_pending_del(ch, c);
        rdmach_status_t why = c->fail_status ? c->fail_status : RDMACH_ERR_PEER_DEAD;
        n += rch_net_rma_fail_conn(ch, c, why);
        n += rch_net_zc_fail_conn(ch, c, why);
        if (!ch->closing) {
            rch_base_err(c->fail_status, "rank %d: %s", c->rank, c->fail_why);
            ch->up.peer_failed(ch->up.ctx, c->rank, c->fail_status);
        }
        n++;
    }
    return n;
}

static unsigned poll_cm(struct rch_rdma_chan *ch)
{
    struct rch_net_cm_event ev[4];
    unsigned k = ch->pops->poll_cm(ch->prov, ev, 4);
    for (unsigned i = 0; i < k; i++)
        rch_net_conn_event(ch, &ev[i]);
    double now = rch_base_wtime();
    if (now >= ch->next_timer) {
        ch->next_timer = now + 0.25;
        if (ch->cm_busy || ch->noop_unanswered)
            rch_net_conn_timers(ch, now);
    }
    return k;
}

/* Dispatch every completion the provider has now (bounded): a connection
 * event handled between passes (a disconnect) first takes the arrival
 * notices already queued, so the ring is drained up to what the peer sent. */
unsigned rch_net_reap_cq(struct rch_rdma_chan *ch)
{
    unsigned n = 0, k;
    for (int round = 0; round < 64 && (k = ch->pops->poll_cq(ch->prov, ch->cqe, RCH_NET_CQ_BATCH)) != 0; round++) {
        for (unsigned i = 0; i < k; i++)
            dispatch(ch, &ch->cqe[i]);
        n += k;
    }
    return n;
}

int rch_net_drain(struct rch_rdma_chan *ch)
{
    struct rch_net_cm_event ev[4];
    for (int round = 0; round < 64; round++) {
        unsigned k = ch->pops->poll_cq(ch->prov, ch->cqe, RCH_NET_CQ_BATCH);
        for (unsigned i = 0; i < k; i++)
            dispatch(ch, &ch->cqe[i]);
        unsigned m = ch->pops->poll_cm(ch->prov, ev, 4);
        for (unsigned i = 0; i < m; i++)
            rch_net_conn_event(ch, &ev[i]);
        if (k == 0 && m == 0)
            return 1;
    }
    return 0;
}

/* Phase 5 and the idle count, the end of every pass that did more than
 * test the rings: n events so far; probed/busy as progress_probe_busy saw. */
static unsigned pass_end(struct rch_rdma_chan *ch, unsigned n, int probed, int busy)
{
    if (ch->nfail_pending)
        n += report_failures(ch);
    if (n) {
        ch->idle = ch->busy_run = 0;
    } else if (busy) {
        ch->busy_run++;        /* bounded: a socket the provider never drains cannot keep us awake */
        ch->idle++;
        n = 1;
    } else {
        ch->idle++;
        if (probed)
            ch->busy_run = 0;      /* the socket went quiet: the bound starts again */
    }
    return n;
}

/* Phases 1 (the k completions already reaped) to 5, and the idle count. */
static unsigned progress_phases(struct rch_rdma_chan *ch, unsigned max, unsigned k, int probed, int busy)
{
    unsigned n = 0;
    for (unsigned i = 0; i < k; i++)
        dispatch(ch, &ch->cqe[i]);
    n += k;
    for (int i = 0; i < ch->nready && n < max; i++) {
        unsigned budget = max - n < RCH_NET_RX_BATCH ? max - n : RCH_NET_RX_BATCH;
        n += rch_net_ring_progress(ch, ch->ready[i], budget);
    }
    if (ch->npending)
        n += flush_pending(ch);
    if (ch->cm_busy || ++ch->tick >= RCH_NET_CM_EVERY) {
        ch->tick = 0;
        n += poll_cm(ch);
    }
    return pass_end(ch, n, probed, busy);
}

/* Has c's ring something for ring_progress (an announced slot, or a head
 * marker in place)? */
static inline int ring_arrived(const struct rch_rdma_chan *ch, const struct rch_net_conn *c)
{
    return ch->notify != RCH_NET_NOTIFY_POLL ? c->rx.seq != c->rx.notified : rch_net_ring_rx_arrived(&c->rx);
}

/* Work the provider does for the peer without a completion here (tcp
 * answering the peer's fi_read of our memory) is activity too: else a rank
 * that only serves reads (an MPI_Get target, a rendezvous sender under
 * RGET) counts nothing, leaves the device's spin phase and answers every
 * read from a sleep. Probed before poll_cq, which consumes it; every
 * RCH_NET_BUSY_EVERY idle calls. */
static __attribute__((noinline)) unsigned progress_probe_busy(struct rch_rdma_chan *ch, unsigned max)
{
    int busy = ch->pops->busy(ch->prov);
    unsigned k = ch->pops->poll_cq(ch->prov, ch->cqe, RCH_NET_CQ_BATCH);
    return progress_phases(ch, max, k, 1, busy);
}

/* The quiet pass found ring `first` with something (those before it had
 * nothing): take it and every later ring that has, then what the arrivals
 * left (a credit return that found the queue full, a connection they
 * failed) as phases 3 and 5 of the same pass. */
static __attribute__((noinline)) unsigned progress_rings(struct rch_rdma_chan *ch, unsigned max, int first)
{
    unsigned n = 0;
    for (int i = first; i < ch->nready && n < max; i++) {
        struct rch_net_conn *c = ch->ready[i];
        if (i == first || ring_arrived(ch, c)) {
            unsigned budget = max - n < RCH_NET_RX_BATCH ? max - n : RCH_NET_RX_BATCH;
            n += rch_net_ring_progress(ch, c, budget);
        }
    }
    if (ch->npending)
        n += flush_pending(ch);
    return pass_end(ch, n, 0, 0);
}

/*
 * The waiting rank's loop is this call, back to back. When the CQ had
 * nothing and no pending work, failure or connection event is due (the
 * common case), only the rings can have something: each ring is tested with
 * one compare (no call, so this pass needs almost no registers saved), and
 * the tick and the idle count move as in progress_phases. Anything else
 * runs all the phases.
 */
unsigned rch_net_progress(struct rch_rdma_chan *ch, unsigned max)
{
    if (RCH_UNLIKELY(ch->pops->busy != NULL) && ch->idle % RCH_NET_BUSY_EVERY == RCH_NET_BUSY_EVERY - 1 &&
        ch->busy_run < RCH_NET_BUSY_MAX)
        return progress_probe_busy(ch, max);
    unsigned k = ch->pops->poll_cq(ch->prov, ch->cqe, RCH_NET_CQ_BATCH);
    if (RCH_UNLIKELY(k != 0 || (ch->npending | ch->nfail_pending | ch->cm_busy) ||
                     ch->tick + 1 >= RCH_NET_CM_EVERY))
        return progress_phases(ch, max, k, 0, 0);
    ch->tick++;
    for (int i = 0; i < ch->nready; i++)
        if (ring_arrived(ch, ch->ready[i]))
            return progress_rings(ch, max, i);
    ch->idle++;
    return 0;
}

/* Anything visible in a ring already? */
static int rings_have_data(struct rch_rdma_chan *ch)
{
    for (int i = 0; i < ch->nready; i++) {
        struct rch_net_conn *c = ch->ready[i];
        if (ch->notify != RCH_NET_NOTIFY_POLL) {
            if (c->rx.seq != c->rx.notified)
                return 1;
            continue;
        }
        struct rch_net_slot_hdr h;
        const unsigned char *p;
        const char *why;
        if (rch_net_ring_rx_peek(&c->rx, &h, &p, &why) != RDMACH_AGAIN)
            return 1;
    }
    return 0;
}

rdmach_status_t rch_net_wait_arm(struct rch_rdma_chan *ch, struct rch_rdma_wait *w)
{
    w->fd = -1;
    w->futex = NULL;
    w->futex_val = 0;
    if (ch->npending || ch->nfail_pending || rings_have_data(ch))
        return RDMACH_AGAIN;
    /* Memory polling with a device whose writes wake nobody: a sleeper would
     * not see the next slot arrive. The caller then polls with short sleeps. */
    if (ch->notify == RCH_NET_NOTIFY_POLL && !ch->pcaps->write_wakes)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "%s: ring writes raise no event to wait for", ch->pcaps->name);
    int fd = -1;
    rdmach_status_t st = ch->pops->wait_arm(ch->prov, &fd);
    if (st != RDMACH_OK)
        return st;
    /* Arming may move bytes itself (libfabric tcp's fi_trywait progresses
     * the sockets, placing a ring write that is then no longer readable
     * there): look at the rings again after it, or a message that arrived
     * during the arm waits a whole sleep (BLOCK_MS per round trip). */
    if (rings_have_data(ch)) {
        ch->pops->wait_disarm(ch->prov);
        return RDMACH_AGAIN;
    }
    w->fd = fd;
    return RDMACH_OK;
}

void rch_net_wait_disarm(struct rch_rdma_chan *ch)
{
    ch->pops->wait_disarm(ch->prov);
    ch->tick = RCH_NET_CM_EVERY;   /* woken: look at connection events on the next progress */
}
