/*
 * The eager path: send() appends a record to our ring in the peer's segment;
 * progress() takes records from the rings in our segment and hands them up;
 * wait_arm()/wait_disarm() let the caller sleep on our futex.
 *
 * Fast path of send: ring append (no system call, lock or allocation), then
 * one load of the receiver's `sleeping` flag; FUTEX_WAKE only if it sleeps.
 * The store of the record and that load are ordered by the receiver's heavy
 * barrier in wait_arm (membarrier), or by a full fence here when either side
 * does not use membarrier (p->fence; RDMACH_SHM_WAKE, oversubscribed nodes).
 */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "rdma/shm/shm.h"

rdmach_status_t rch_shm_send(struct rch_rdma_chan *ch, int peer, const struct iovec *iov, int iovcnt)
{
    struct rch_shm_peer *p = rch_shm_peer_get(ch, peer);
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
        rch_shm_notify(p->segp->wake, p->fence);
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
            rch_shm_notify(p->segp->wake, p->fence);
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
            rch_shm_notify(p->segp->wake, p->fence);
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
    if (p->state != RCH_SHM_PEER_CONNECTED && rch_shm_connect_peer(ch, p) != RDMACH_OK) {
        RCH_WARN("shm", "cannot wake rank %d (blocked on a full ring): %s", p->rank, rdmach_last_error());
        return;
    }
    if (p->state == RCH_SHM_PEER_CONNECTED)
        rch_shm_wake(p->segp->wake);
}

static unsigned poll_ring(struct rch_rdma_chan *ch, struct rch_shm_peer *p, unsigned max)
{
    unsigned n = 0, lim = max < RCH_SHM_RX_BATCH ? max : RCH_SHM_RX_BATCH;
    while (n < lim) {
        const void *pkt;
        size_t len;
        uint32_t type;
        rdmach_status_t st = rch_shm_ring_peek(&p->rx, &pkt, &len, &type);
        if (st == RDMACH_AGAIN) {
            if (p->rx.pos != p->rx.published && rch_shm_ring_rx_flush(&p->rx))
                wake_producer(ch, p);
            break;
        }
        if (RCH_UNLIKELY(st != RDMACH_OK)) {
            RCH_ERROR("shm", "ring from rank %d: %s", p->rank, rdmach_last_error());
            p->rx.ncells = 0;      /* never read this ring again */
            rch_shm_peer_mark_dead(ch, p, RDMACH_ERR_PROTOCOL);
            break;
        }
        switch (type) {
        case RCH_SHM_REC_PKT:
            ch->up.recv(ch->up.ctx, p->rank, pkt, len);
            break;
        case RCH_SHM_REC_GETREQ:
            rch_shm_pipe_on_getreq(ch, p, pkt, len);
            break;
        case RCH_SHM_REC_PUTNOTE:
            rch_shm_pipe_on_putnote(ch, p, pkt, len);
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
    for (int i = 0; i < ch->npeers && n < max; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (p->state != RCH_SHM_PEER_DEAD || p->dead_reported)
            continue;
        if (p->rx.ncells && rch_shm_ring_ready(&p->rx))
            continue;
        n += rch_shm_pipe_fail_peer(ch, p, p->dead_status);
        p->dead_reported = 1;
        ch->ndead_pending--;
        rch_base_err(p->dead_status, "shm: rank %d (pid %d) %s", p->rank, (int)p->pid,
                     p->dead_status == RDMACH_ERR_PEER_DEAD ? "died" : "sent corrupt data");
        ch->up.peer_failed(ch->up.ctx, p->rank, p->dead_status);
        n++;
    }
    return n;
}

static void liveness_tick(struct rch_rdma_chan *ch)
{
    if (ch->npeers == 0)
        return;
    ch->live_rr = (ch->live_rr + 1) % (unsigned)ch->npeers;
    struct rch_shm_peer *p = &ch->peers[ch->live_rr];
    if (p->state == RCH_SHM_PEER_CONNECTED)
        rch_shm_peer_check_dead(ch, p);
}

unsigned rch_shm_progress(struct rch_rdma_chan *ch, unsigned max)
{
    if (RCH_UNLIKELY(ch->in_progress || max == 0 || !ch->published))
        return 0;
    ch->in_progress = 1;
    unsigned n = 0;
    int np = ch->npeers;
    unsigned i = ch->rr;
    for (int k = 0; k < np && n < max; k++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (++i == (unsigned)np)
            i = 0;
        if (RCH_LIKELY(p->rx.ncells))
            n += poll_ring(ch, p, max - n);
    }
    if (np > 1)
        ch->rr = ch->rr + 1 == (unsigned)np ? 0 : ch->rr + 1;
    if (RCH_UNLIKELY(ch->nbusy > 0)) {
        for (int k = 0; k < np && n < max; k++) {
            struct rch_shm_peer *p = &ch->peers[k];
            if (!p->busy)
                continue;
            if (p->cq_head && p->state == RCH_SHM_PEER_CONNECTED)
                flush_ctl(ch, p);
            n += rch_shm_pipe_progress(ch, p, max - n);
        }
    }
    if (RCH_UNLIKELY(ch->ndead_pending > 0) && n < max)
        n += report_dead(ch, max - n);
    if (n == 0 && RCH_UNLIKELY(++ch->idle >= RCH_SHM_LIVENESS_IDLE)) {
        ch->idle = 0;
        liveness_tick(ch);
    }
    ch->in_progress = 0;
    return n;
}

/* ---- blocking ---- */

static void disarm(struct rch_rdma_chan *ch)
{
    atomic_store_explicit(&ch->seg.wake->sleeping, 0, memory_order_relaxed);
    for (int i = 0; i < ch->npeers; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (p->tx.ctl && atomic_load_explicit(&p->tx.ctl->blocked, memory_order_relaxed))
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
    if (ch->ndead_pending > 0)
        return RDMACH_AGAIN;
    atomic_store_explicit(&ch->seg.wake->sleeping, 1, memory_order_relaxed);
    /* Senders we are blocked on must wake us when they free room. */
    for (int i = 0; i < ch->npeers; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (p->state == RCH_SHM_PEER_CONNECTED && p->rank != ch->rank && (p->tx_blocked || p->cq_head))
            rch_shm_ring_set_blocked(&p->tx, 1);
    }
    rch_shm_heavy_barrier(!ch->self_fence);
    uint32_t v = atomic_load_explicit(&ch->seg.wake->futex, memory_order_acquire);
    int work = 0;
    for (int i = 0; i < ch->npeers && !work; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (p->rx.ncells && rch_shm_ring_ready(&p->rx))
            work = 1;
        else if (p->state == RCH_SHM_PEER_CONNECTED && p->tx_blocked && rch_shm_ring_has_room(&p->tx, p->tx_need))
            work = 1;
        else if (p->busy && rch_shm_pipe_ready(ch, p))
            work = 1;
    }
    if (work) {
        disarm(ch);
        return RDMACH_AGAIN;
    }
    ch->armed = 1;
    w->fd = -1;
    w->futex = (volatile uint32_t *)&ch->seg.wake->futex;
    w->futex_val = v;
    return RDMACH_OK;
}

void rch_shm_wait_disarm(struct rch_rdma_chan *ch)
{
    if (ch->published)
        disarm(ch);
}
