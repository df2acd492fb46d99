/*
 * The eager path: send() appends a record to our ring in the peer's segment;
 * progress() takes records from the rings in our segment and hands them up;
 * wait_arm()/wait_disarm() let the caller sleep on our futex, or on our
 * eventfd when it sleeps on other channels' fds too (shm_wakefd.c).
 *
 * Fast path of send: ring append (no system call, lock or allocation), then
 * one load of the receiver's `sleeping` flag; FUTEX_WAKE (or a write to its
 * eventfd) only if it sleeps.
 * The store of the record and that load are ordered by the receiver's heavy
 * barrier in wait_arm (membarrier), or by a full fence here when either side
 * does not use membarrier (p->fence; RDMACH_SHM_WAKE, oversubscribed nodes).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "rdma/shm/shm.h"

static __attribute__((noinline)) rdmach_status_t send_general(struct rch_rdma_chan *ch, struct rch_shm_peer *p,
                                                               int peer, const struct iovec *iov, int iovcnt);

/* The fast path: a connected peer, a packet of one cell (the device's eager
 * header and a payload up to RCH_SHM_RING_INLINE bytes) and room in the
 * cleared window. Everything else, including every error, is send_general. */
rdmach_status_t rch_shm_send(struct rch_rdma_chan *ch, int peer, const struct iovec *iov, int iovcnt)
{
    struct rch_shm_peer *p = rch_shm_peer_get(ch, peer);
    if (RCH_LIKELY(p && p->state == RCH_SHM_PEER_CONNECTED && iov && (unsigned)(iovcnt - 1) < 2u)) {
        size_t len = iov[0].iov_len + (iovcnt == 2 ? iov[1].iov_len : 0);
        if (len <= RCH_SHM_RING_INLINE && rch_shm_ring_send_small(&p->tx, RCH_SHM_REC_PKT, iov, iovcnt, len)) {
            p->tx_blocked = 0;
            rch_shm_notify_peer(p);
            return RDMACH_OK;
        }
    }
    return send_general(ch, p, peer, iov, iovcnt);
}

static __attribute__((noinline)) rdmach_status_t send_general(struct rch_rdma_chan *ch, struct rch_shm_peer *p,
                                                               int peer, const struct iovec *iov, int iovcnt)
{
    if (RCH_UNLIKELY(!p || p->state != RCH_SHM_PEER_CONNECTED)) {
        if (!p)
            return rch_base_err(RDMACH_ERR_UNREACHABLE, "shm send: rank %d is not a peer of this channel", peer);
        if (p->state == RCH_SHM_PEER_DEAD)
            return rch_base_err(p->dead_status, "shm send: rank %d has failed", peer);
        rdmach_status_t st = rch_shm_connect_peer(ch, p);
        if (st != RDMACH_OK)
            return st;
    }
    if (RCH_UNLIKELY(iovcnt < 0 || (iovcnt > 0 && !iov)))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm send: iov %p, iovcnt %d", (const void *)iov, iovcnt);
    size_t len = rch_shm_iov_len(iov, iovcnt);
    if (RCH_UNLIKELY(len > ch->caps.max_msg))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm send to rank %d: packet of %zu bytes exceeds max_msg %zu",
                            peer, len, ch->caps.max_msg);
    rdmach_status_t st = rch_shm_ring_send(&p->tx, RCH_SHM_REC_PKT, iov, iovcnt);
    if (RCH_LIKELY(st == RDMACH_OK)) {
        p->tx_blocked = 0;
        rch_shm_notify_peer(p);
        return RDMACH_OK;
    }
    if (st == RDMACH_AGAIN) {
        p->tx_blocked = 1;
        p->tx_need = len;
        if (++p->again % RCH_SHM_LIVENESS_AGAIN == 0 && rch_shm_peer_check_dead(ch, p))
            return rch_base_err(RDMACH_ERR_PEER_DEAD, "shm send: rank %d (pid %d) died", peer, (int)p->pid);
        return RDMACH_AGAIN;
    }
    return st;
}

rdmach_status_t rch_shm_send_ctl(struct rch_rdma_chan *ch, struct rch_shm_peer *p, uint32_t type,
                                 const void *payload, uint32_t len)
{
    if (p->state != RCH_SHM_PEER_CONNECTED) {
        rdmach_status_t st = rch_shm_connect_peer(ch, p);
        if (st != RDMACH_OK)
            return st;
    }
    if (!p->cq_head) {
        struct iovec iov = { .iov_base = (void *)payload, .iov_len = len };
        rdmach_status_t st = rch_shm_ring_send(&p->tx, type, &iov, 1);
        if (st == RDMACH_OK) {
            rch_shm_notify_peer(p);
            return RDMACH_OK;
        }
        if (st != RDMACH_AGAIN)
            return st;
    }
    struct rch_shm_ctlrec *c = calloc(1, sizeof(*c));
    if (!c)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm: queueing a control record for rank %d", p->rank);
    if (len > sizeof(c->u)) {
        free(c);
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm: control record of %u bytes", len);
    }
    c->type = type;
    c->len = len;
    memcpy(&c->u, payload, len);
    if (p->cq_tail)
        p->cq_tail->next = c;
    else
        p->cq_head = c;
    p->cq_tail = c;
    rch_shm_update_busy(ch, p);
    return RDMACH_OK;
}

static unsigned flush_ctl(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    unsigned n = 0;
    while (p->cq_head) {
        struct rch_shm_ctlrec *c = p->cq_head;
        struct iovec iov = { .iov_base = &c->u, .iov_len = c->len };
        rdmach_status_t st = rch_shm_ring_send(&p->tx, c->type, &iov, 1);
        if (st == RDMACH_AGAIN)
            break;
        if (st != RDMACH_OK)
            RCH_ERROR("shm", "control record to rank %d dropped: %s", p->rank, rdmach_last_error());
        else
            rch_shm_notify_peer(p);
        p->cq_head = c->next;
        if (!p->cq_head)
            p->cq_tail = NULL;
        free(c);
        n++;
    }
    rch_shm_update_busy(ch, p);
    return n;
}

/* The producer of p's ring asked to be woken when we free room. */
static void wake_producer(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    if (!rch_shm_peer_mapped(p) && rch_shm_connect_peer(ch, p) != RDMACH_OK) {
        RCH_WARN("shm", "cannot wake rank %d (blocked on a full ring): %s", p->rank, rdmach_last_error());
        return;
    }
    if (rch_shm_peer_mapped(p)) {
        if (atomic_load_explicit(&p->segp->wake->sleeping, memory_order_relaxed) == RCH_SHM_SLEEP_FD)
            rch_shm_wakefd_wake(p);
        else
            rch_shm_wake(p->segp->wake);
    }
}

static unsigned poll_ring(struct rch_rdma_chan *ch, struct rch_shm_peer *p, unsigned max)
{
    unsigned n = 0, lim = max < RCH_SHM_RX_BATCH ? max : RCH_SHM_RX_BATCH;
    while (n < lim) {
        const void *pkt;
        size_t len;
        uint32_t type;
        rdmach_status_t st = rch_shm_ring_peek_fast(&p->rx, &pkt, &len, &type);
        if (st == RDMACH_AGAIN) {
            if (rch_shm_ring_rx_idle(&p->rx))
                wake_producer(ch, p);
            break;
        }
        if (RCH_UNLIKELY(st != RDMACH_OK)) {
            RCH_ERROR("shm", "ring from rank %d: %s", p->rank, rdmach_last_error());
            p->rx.ncells = 0;      /* never read this ring again */
            rch_shm_peer_mark_dead(ch, p, RDMACH_ERR_PROTOCOL);
            break;
        }
        rch_shm_ring_heard(&p->tx);
        if (RCH_LIKELY(type == RCH_SHM_REC_PKT)) {
            ch->up.recv(ch->up.ctx, p->rank, pkt, len);
            n++;
            if (rch_shm_ring_release(&p->rx))
                wake_producer(ch, p);
            continue;
        }
        switch (type) {
        case RCH_SHM_REC_GETREQ:
            rch_shm_pipe_on_getreq(ch, p, pkt, len);
            break;
        case RCH_SHM_REC_PUTNOTE:
            rch_shm_pipe_on_putnote(ch, p, pkt, len);
            break;
        case RCH_SHM_REC_HELP:
            rch_shm_coop_on_help(ch, p, pkt, len);
            break;
        default:
            RCH_ERROR("shm", "rank %d sent a record of unknown type %u (%zu bytes): dropped", p->rank, type, len);
            break;
        }
        n++;
        if (rch_shm_ring_release(&p->rx))
            wake_producer(ch, p);
    }
    return n;
}

/* Fail what was in flight with dead peers and tell the layer above, once the
 * records they sent before dying have been delivered. */
static unsigned report_dead(struct rch_rdma_chan *ch, unsigned max)
{
    unsigned n = 0;
    /* a peer that rang, sent and died before we looked: its ring is polled */
    if (rch_shm_bell_rung(ch))
        rch_shm_bell_take(ch);
    for (int i = 0; i < ch->npeers && n < max; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (p->state != RCH_SHM_PEER_DEAD || p->dead_reported)
            continue;
        if (p->rx.ncells && rch_shm_bell_seen(ch, p) && rch_shm_ring_ready(&p->rx))
            continue;
        n += rch_shm_pipe_fail_peer(ch, p, p->dead_status);
        p->dead_reported = 1;
        ch->ndead_pending--;
        n++;
        if (p->left) {
            if (ch->up.peer_left)
                ch->up.peer_left(ch->up.ctx, p->rank);
            continue;
        }
        rch_base_err(p->dead_status, "shm: rank %d (pid %d%s) %s", p->rank, (int)p->pid,
                     p->pid_local ? "" : " in another pid namespace",
                     p->dead_status != RDMACH_ERR_PEER_DEAD ? "sent corrupt data"
                     : p->aborted ? "ended the job by an abort"
                     : p->stopped_since > 0 ? "has been stopped for RDMACH_PEER_STOP_TIMEOUT or longer"
                     : "has exited");
        ch->up.peer_failed(ch->up.ctx, p->rank, p->dead_status);
    }
    return n;
}

static unsigned progress_full(struct rch_rdma_chan *ch, unsigned max);

/* The fast path's delivery: one packet record of one cell from p (active[i]). */
static __attribute__((noinline)) unsigned deliver_one(struct rch_rdma_chan *ch, struct rch_shm_peer *p, unsigned i,
                                   const struct rch_shm_rec *r)
{
    ch->in_progress = 1;
    ch->rr = i + 1 == ch->nactive ? 0 : i + 1;   /* the next pass starts after p */
    p->rx.cur_cells = 1;
    ch->up.recv(ch->up.ctx, p->rank, r + 1, r->len);
    ch->in_progress = 0;
    if (RCH_UNLIKELY(rch_shm_ring_release(&p->rx)))
        wake_producer(ch, p);
    if (RCH_UNLIKELY(rch_shm_bell_rung(ch)))
        rch_shm_bell_take(ch);         /* a new sender, not starved by a stream from p */
    return 1;
}

/*
 * The fast path: with no pipe, coop or dead-peer work pending, a pass over
 * empty rings (with no head to publish) is a load per ring of a sender that
 * rang, and of the doorbell's count (shm_bell.c), and a packet that
 * fits one cell is handed up from here, one per call (the caller's loop calls
 * again; the scan starts after the ring served last, as progress_full's
 * does). A waiting rank runs this back to back: its length is part of how
 * late a message is seen, and of what the message costs.
 */
/*
 * Oversubscribed nodes (more local ranks than cores). Whoever gives a rank
 * work raises its `pending` flag (rch_shm_notify); the rank lowers it before
 * it looks at its rings (the flag is raised after the record is visible: it
 * sees the record, or the flag stays raised). A pass that finds nothing for
 * us while a rank that shares our core (ch->mates) has its flag raised
 * yields the core to it. So a waiting rank may poll without starving the
 * rank that holds the work (device/progress.c, wait_oversub), and gives the
 * core up exactly when that helps.
 */
static __attribute__((noinline)) void take_pending(struct rch_rdma_chan *ch)
{
    if (atomic_load_explicit(&ch->seg.wake->pending, memory_order_relaxed)) {
        atomic_store_explicit(&ch->seg.wake->pending, 0, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
    }
}

/* Does a rank that shares our core have work (its pending flag)? */
static int mates_pending(const struct rch_rdma_chan *ch)
{
    for (int k = 0; k < ch->nmates; k++) {
        const struct rch_shm_peer *p = &ch->peers[ch->mates[k]];
        if (rch_shm_peer_mapped(p) && atomic_load_explicit(&p->segp->wake->pending, memory_order_relaxed))
            return 1;
    }
    return 0;
}

unsigned rch_shm_progress(struct rch_rdma_chan *ch, unsigned max)
{
    if (RCH_UNLIKELY(ch->oversub) && ch->published)
        take_pending(ch);
    if (RCH_LIKELY((ch->nbusy | ch->ndead_pending | ch->in_progress) == 0 && ch->published && max)) {
        unsigned np = ch->nactive, i = ch->rr;
        for (unsigned k = 0; k < np; k++, i = i + 1 == np ? 0 : i + 1) {
            struct rch_shm_peer *p = ch->active[i];
            if (!p->rx.ncells)
                continue;
            const struct rch_shm_rec *r =
                (const struct rch_shm_rec *)(p->rx.cells + (p->rx.pos & p->rx.mask) * RCH_SHM_CELL);
            if (atomic_load_explicit(&((struct rch_shm_rec *)r)->stamp, memory_order_acquire) == p->rx.pos + 1) {
                if (RCH_LIKELY(r->type == RCH_SHM_REC_PKT && r->len <= RCH_SHM_RING_INLINE))
                    return deliver_one(ch, p, i, r);
                return progress_full(ch, max);
            }
            if (RCH_UNLIKELY(rch_shm_ring_rx_idle_due(&p->rx)))
                return progress_full(ch, max);
        }
        if (RCH_UNLIKELY(rch_shm_bell_rung(ch)))
            return progress_full(ch, max);   /* takes the new rings */
        if (RCH_UNLIKELY(ch->nmates) && mates_pending(ch))
            sched_yield();           /* hand our core to the rank that shares it and has work */
        if (RCH_LIKELY(++ch->idle < RCH_SHM_LIVENESS_IDLE))
            return 0;
    }
    return progress_full(ch, max);
}

static __attribute__((noinline)) unsigned progress_full(struct rch_rdma_chan *ch, unsigned max)
{
    if (RCH_UNLIKELY(ch->in_progress || max == 0 || !ch->published))
        return 0;
    ch->in_progress = 1;
    unsigned n = 0;
    if (rch_shm_bell_rung(ch))
        rch_shm_bell_take(ch);
    unsigned na = ch->nactive, i = ch->rr;
    for (unsigned k = 0; k < na && n < max; k++) {
        struct rch_shm_peer *p = ch->active[i];
        if (++i == na)
            i = 0;
        if (RCH_LIKELY(p->rx.ncells))
            n += poll_ring(ch, p, max - n);
    }
    if (na > 1)
        ch->rr = ch->rr + 1 >= na ? 0 : ch->rr + 1;
    int np = ch->npeers;
    if (RCH_UNLIKELY(ch->nbusy > 0)) {
        for (int k = 0; k < np && n < max; k++) {
            struct rch_shm_peer *p = &ch->peers[k];
            if (!p->busy)
                continue;
            if (p->cq_head && p->state == RCH_SHM_PEER_CONNECTED)
                flush_ctl(ch, p);
            if (p->coop_pending > 0 && p->state == RCH_SHM_PEER_CONNECTED)
                n += rch_shm_coop_progress(ch, p, max - n);
            n += rch_shm_pipe_progress(ch, p, max - n);
        }
    }
    if (RCH_UNLIKELY(ch->ndead_pending > 0) && n < max)
        n += report_dead(ch, max - n);
    if (n == 0 && RCH_UNLIKELY(++ch->idle >= RCH_SHM_LIVENESS_IDLE)) {
        ch->idle = 0;
        rch_shm_live_check(ch);
    }
    ch->in_progress = 0;
    return n;
}

/* ---- blocking ---- */

static void disarm(struct rch_rdma_chan *ch)
{
    atomic_store_explicit(&ch->seg.wake->sleeping, 0, memory_order_relaxed);
    if (ch->armed == RCH_SHM_SLEEP_FD)
        rch_shm_wakefd_drain(ch);
    for (int i = 0; i < ch->npeers; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (p->tx.ctl && rch_shm_ring_wants_wake(&p->tx))
            rch_shm_ring_set_blocked(&p->tx, 0);
    }
    ch->armed = 0;
}

rdmach_status_t rch_shm_wait_arm(struct rch_rdma_chan *ch, struct rch_rdma_wait *w)
{
    if (!w)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm wait_arm: w is NULL");
    if (!ch->published)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm wait_arm: before publish");
    rch_shm_live_check(ch);          /* a sleeper makes no progress calls to count */
    if (ch->ndead_pending > 0)
        return RDMACH_AGAIN;
    /* Publish head on every ring before sleeping: a producer short of room
     * may be about to sleep too (rch_shm_ring_rx_idle may have skipped it). */
    for (unsigned k = 0; k < ch->nactive; k++) {
        struct rch_shm_peer *p = ch->active[k];
        if (p->rx.ncells && rch_shm_ring_rx_flush(&p->rx))
            wake_producer(ch, p);
    }
    /* beside other channels' fds, on our eventfd unless a waker could not
     * reach it (shm_wakefd.c); alone, on the futex (a cheaper wake-up) */
    uint32_t how = w->want_fd && ch->wake_efd >= 0 &&
                           !atomic_load_explicit(&ch->seg.hdr->wake_fd_failed, memory_order_relaxed)
                       ? RCH_SHM_SLEEP_FD
                       : RCH_SHM_SLEEP_FUTEX;
    ch->armed = (int)how;            /* so that disarm drains the eventfd */
    atomic_store_explicit(&ch->seg.wake->sleeping, how, memory_order_relaxed);
    /* Senders we are blocked on must wake us when they free room. */
    for (int i = 0; i < ch->npeers; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (p->state == RCH_SHM_PEER_CONNECTED && p->rank != ch->rank && (p->tx_blocked || p->cq_head))
            rch_shm_ring_set_blocked(&p->tx, 1);
    }
    rch_shm_heavy_barrier(!ch->self_fence);
    uint32_t v = atomic_load_explicit(&ch->seg.wake->futex, memory_order_acquire);
    int work = rch_shm_bell_rung(ch);        /* a new sender: its ring is not in `active` yet */
    for (unsigned k = 0; k < ch->nactive && !work; k++) {
        struct rch_shm_peer *p = ch->active[k];
        work = p->rx.ncells && rch_shm_ring_ready(&p->rx);
    }
    for (int i = 0; i < ch->npeers && !work; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (p->state == RCH_SHM_PEER_CONNECTED && p->tx_blocked && rch_shm_ring_has_room(&p->tx, p->tx_need))
            work = 1;
        else if (p->busy && rch_shm_pipe_ready(ch, p))
            work = 1;
        else if (p->coop_pending > 0 && rch_shm_coop_ready(ch, p))
            work = 1;
    }
    if (work) {
        disarm(ch);
        return RDMACH_AGAIN;
    }
    if (how == RCH_SHM_SLEEP_FD) {
        w->fd = ch->wake_efd;
        w->futex = NULL;
    } else {
        w->fd = -1;
        w->futex = (volatile uint32_t *)&ch->seg.wake->futex;
        w->futex_val = v;
    }
    return RDMACH_OK;
}

void rch_shm_wait_disarm(struct rch_rdma_chan *ch)
{
    if (ch->published)
        disarm(ch);
}

/* Added for waits on memory another process writes (channel.h, ops->wake):
 * the caller has stored what `peer` waits for; wake it if it armed its wait.
 * The same handshake as a message's (rch_shm_notify: our fence, or its
 * membarrier, against its `sleeping` flag); the sleeper tests its condition
 * after wait_arm, so either it sees the store or we see it asleep. */
rdmach_status_t rch_shm_wake_peer(struct rch_rdma_chan *ch, int peer)
{
    struct rch_shm_peer *p = rch_shm_peer_get(ch, peer);
    if (!p)
        return rch_base_err(RDMACH_ERR_UNREACHABLE, "shm wake: rank %d is not a peer of this channel", peer);
    if (rch_shm_peer_mapped(p) && p->rank != ch->rank)
        rch_shm_notify_peer(p);
    return RDMACH_OK;
}
