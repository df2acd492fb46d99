/*
 * The send side: rch_dev_isend, the per-peer send queues and credits.
 *
 * Fast path (isend): a standard-mode message that fits the peer's eager limit,
 * with nothing queued before it and a credit available, is one channel send()
 * of {24-byte header, payload}; on OK the buffer is reusable and no request
 * exists (*req = NULL). Everything else gets a request.
 *
 * Eager zero-copy: such a message of at least the peer's zc_min (the
 * channel's caps.zc_min) gets a request, and send_one sends it with one
 * channel send_zc() instead of send(): the payload is registered and the
 * transport writes it from the user's buffer; the request completes when the
 * channel reports the write done (rma_done). Sent at once or from the queue
 * alike; a buffer that cannot be registered is sent by send() (copied).
 *
 * Send queue (per peer, FIFO). Non-overtaking: once anything is queued for a
 * peer (the channel said AGAIN, or no credit), every later EAGER/RNDV_REQ to
 * that peer queues behind it. A queued message keeps pointing at the user's
 * buffer (MPI forbids touching it until the request completes), so nothing
 * is copied, except an eager payload of at most RCH_PKT_CTL_MAX bytes that
 * does not go zero-copy, which the request holds (isend_slow). Control
 * packets (RSP, FIN, SYNC_ACK) carry no matching order and go out at once
 * when they can, else queue; CRDT never queues (see below).
 *
 * Credits (only if the channel's caps.needs_credits): `credits` is how many
 * credited packets we may still send to the peer, `owed` how many we received
 * and have not returned. Every packet we send returns min(owed, 65535) in its
 * header; if owed reaches half the window and nothing carried it, an explicit
 * CRDT (which needs no credit) goes out, bypassing the queue — so two peers
 * both out of credits with full queues still unblock each other.
 */
#include <string.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/dev_impl.h"
#include "device/stats.h"

static inline uint16_t owed_now(const struct rch_dev_peer *p)
{
    return (uint16_t)(p->owed > 0xffff ? 0xffff : p->owed);
}

static void activate(struct rch_dev_peer *p)
{
    if (!p->active) {
        p->active = 1;
        p->next_active = rch_dev.active;
        rch_dev.active = p;
    }
}

void rch_dev_enqueue(struct rch_dev_peer *p, struct rch_dev_ireq *r)
{
    r->next = NULL;
    if (p->sq_tail)
        p->sq_tail->next = r;
    else
        p->sq_head = r;
    p->sq_tail = r;
    activate(p);
}

static void dequeue_head(struct rch_dev_peer *p)
{
    struct rch_dev_ireq *r = p->sq_head;
    p->sq_head = r->next;
    if (p->sq_head == NULL)
        p->sq_tail = NULL;
    r->next = NULL;
}

static void fail_queued(struct rch_dev_ireq *r, rdmach_status_t st)
{
    if (r->qop == RCH_DEV_Q_CTL)
        rch_dev_ireq_release(r);
    else
        rch_dev_ireq_finish(r, st);
}

void rch_dev_send_crdt(struct rch_dev_peer *p)
{
    struct rch_pkt_base b = rch_pkt_base_make(RCH_PKT_CRDT, 0);
    b.credits = owed_now(p);
    if (b.credits == 0) {
        p->crdt_pending = 0;
        return;
    }
    struct iovec iov = { &b, sizeof(b) };
    rdmach_status_t st = p->ops->send(p->chan, p->rank, &iov, 1);
    if (st == RDMACH_OK) {
        p->owed -= b.credits;
        p->crdt_sent++;
        p->crdt_pending = 0;
    } else if (st == RDMACH_AGAIN) {
        p->crdt_pending = 1;
        activate(p);
    } else {
        p->crdt_pending = 0;   /* the peer is failing; peer_failed will follow */
    }
}

/* One packet of what r carries. OK: it left; AGAIN or an error: nothing left
 * and r is unchanged. Before the send, r is put in the state that its answer
 * expects, because the loopback delivers (and may answer) inside send(). */
static rdmach_status_t send_one(struct rch_dev_peer *p, struct rch_dev_ireq *r, size_t *chunk_out)
{
    union {
        struct rch_pkt_eager_sync es;
        struct rch_pkt_rndv_req rq;
        struct rch_pkt_rndv_data d;
    } h;
    struct iovec iov[3];
    int iovcnt = 1, credited = 1, zc = 0;
    uint8_t wait_state = 0;
    size_t chunk = 0;

    switch (r->qop) {
    case RCH_DEV_Q_EAGER:
        h.es.e.b = rch_pkt_base_make(RCH_PKT_EAGER, r->sync ? RCH_PKT_F_SYNC : 0);
        h.es.e.ctx = r->hctx;
        h.es.e.src = r->hsrc;
        h.es.e.tag = r->htag;
        h.es.e.len = (uint32_t)r->len;
        r->pub.bytes = r->len;
        iov[0].iov_base = &h;
        iov[0].iov_len = sizeof(struct rch_pkt_eager);
        if (r->sync) {
            h.es.sreq = rch_dev_ireq_id(r);
            iov[0].iov_len = sizeof(struct rch_pkt_eager_sync);
            wait_state = RCH_DEV_S_SEND_WAIT_ACK;
        }
        if (r->len) {
            iov[1].iov_base = r->buf;
            iov[1].iov_len = r->len;
            iovcnt = 2;
        }
        /* zero-copy size: by send_zc, if the buffer can be registered (see the top) */
        if (!r->sync && r->len >= p->zc_min &&
            (r->mr != NULL || p->ops->mem_reg(p->chan, r->buf, r->len, RCH_RDMA_ACCESS_LOCAL, &r->mr) == RDMACH_OK)) {
            zc = 1;
            wait_state = RCH_DEV_S_SEND_ZC;
        }
        break;
    case RCH_DEV_Q_RNDV_REQ:
        iov[0].iov_base = &h;
        iov[0].iov_len = rch_dev_rndv_build_req(r, &h);
        wait_state = RCH_DEV_S_SEND_WAIT_RSP;
        break;
    case RCH_DEV_Q_DATA:
        chunk = r->xfer - r->offset;
        if (chunk > p->data_max)
            chunk = p->data_max;
        h.d.b = rch_pkt_base_make(RCH_PKT_RNDV_DATA, 0);
        h.d.rreq = r->remote;
        h.d.offset = r->offset;
        h.d.len = (uint32_t)chunk;
        h.d.pad = 0;
        iov[0].iov_base = &h;
        iov[0].iov_len = sizeof(h.d);
        if (chunk) {
            iov[1].iov_base = (char *)r->buf + r->offset;
            iov[1].iov_len = chunk;
            iovcnt = 2;
        }
        break;
    case RCH_DEV_Q_RMA:   /* one-sided (rma_am.c): header in ctl, a long description, payload at buf */
        iovcnt = rch_dev_rma_iov(r, iov);
        break;
    case RCH_DEV_Q_CTL:
    default:
        iov[0].iov_base = r->ctl;
        iov[0].iov_len = r->ctl_len;
        credited = rch_pkt_credited(r->ctl[offsetof(struct rch_pkt_base, op)]);
        break;
    }

    uint16_t give = 0;
    if (p->flow) {
        if (credited && p->credits <= 0) {
            rch_dev_stat.credit_stalls++;
            return RDMACH_AGAIN;
        }
        give = owed_now(p);
        memcpy((char *)iov[0].iov_base + offsetof(struct rch_pkt_base, credits), &give, sizeof(give));
    }
    /* A message (EAGER, RNDV_REQ) gets its number before it leaves: the
     * loopback delivers it inside send(). */
    int numbered = r->qop == RCH_DEV_Q_EAGER || r->qop == RCH_DEV_Q_RNDV_REQ;
    if (numbered) {
        r->seq = ++p->tx_seq;
        p->tx_bytes += r->len;
    }
    uint8_t prev = r->state;
    int was_pending = r->on_pending;
    if (wait_state) {
        r->state = wait_state;
        rch_dev_pending_add(p, r);
    }
    rdmach_status_t st = zc ? p->ops->send_zc(p->chan, p->rank, &h, sizeof(struct rch_pkt_eager), r->buf, r->len,
                                              r->mr, (void *)(uintptr_t)rch_dev_ireq_id(r))
                            : p->ops->send(p->chan, p->rank, iov, iovcnt);
    if (st != RDMACH_OK) {
        if (numbered) {
            p->tx_seq--;
            p->tx_bytes -= r->len;
            r->seq = 0;
        }
        if (wait_state && r->state == wait_state) {
            r->state = prev;
            if (!was_pending)
                rch_dev_pending_del(r);
        }
        return st;
    }
    if (p->flow) {
        p->credits -= credited;
        p->owed -= give;
    }
    *chunk_out = chunk;
    return RDMACH_OK;
}

/* What follows a packet that left (r is no longer queued unless it is a DATA
 * stream with more to go). */
static void sent(struct rch_dev_peer *p, struct rch_dev_ireq *r, size_t chunk)
{
    switch (r->qop) {
    case RCH_DEV_Q_EAGER:
        if (!r->sync && r->state != RCH_DEV_S_SEND_ZC)
            rch_dev_ireq_complete(r, RDMACH_OK);
        return;   /* sync: waiting for SYNC_ACK (or already acked by the loopback); zero-copy: for rma_done */
    case RCH_DEV_Q_RNDV_REQ:
        return;   /* waiting for RSP / FIN */
    case RCH_DEV_Q_DATA:
        r->offset += chunk;
        if (r->offset < r->xfer)
            return;
        r->pub.bytes = r->xfer;
        rch_dev_ireq_finish(r, RDMACH_OK);
        return;
    case RCH_DEV_Q_RMA:
        rch_dev_rma_sent(r);
        return;
    case RCH_DEV_Q_CTL:
    default:
        rch_dev_ireq_release(r);
        return;
    }
}

void rch_dev_send_ctl(struct rch_dev_peer *p, void *pkt, size_t len)
{
    struct rch_pkt_base b;
    memcpy(&b, pkt, sizeof(b));
    int credited = rch_pkt_credited(b.op);
    if (p->sq_head == NULL && !(p->flow && credited && p->credits <= 0)) {
        uint16_t give = 0;
        if (p->flow) {
            give = owed_now(p);
            memcpy((char *)pkt + offsetof(struct rch_pkt_base, credits), &give, sizeof(give));
        }
        struct iovec iov = { pkt, len };
        rdmach_status_t st = p->ops->send(p->chan, p->rank, &iov, 1);
        if (st == RDMACH_OK) {
            if (p->flow) {
                p->credits -= credited;
                p->owed -= give;
            }
            return;
        }
        if (st != RDMACH_AGAIN) {
            RCH_DEBUG("dev", "%s to rank %d not sent: %s", rch_pkt_op_name[b.op], p->rank,
                      rdmach_last_error());
            return;   /* the peer is unusable; its requests fail through peer_failed */
        }
    }
    struct rch_dev_ireq *r = rch_dev_ireq_alloc(0);
    if (r == NULL) {
        RCH_ERROR("dev", "no memory to queue a %s for rank %d", rch_pkt_op_name[b.op], p->rank);
        rch_boot_abort(1, "device: out of memory for control packets");
    }
    r->state = RCH_DEV_S_CTL;
    r->qop = RCH_DEV_Q_CTL;
    r->peer = p->rank;
    memcpy(r->ctl, pkt, len);
    r->ctl_len = (uint16_t)len;
    rch_dev_enqueue(p, r);
}

int rch_dev_unqueue(struct rch_dev_peer *p, struct rch_dev_ireq *r)
{
    struct rch_dev_ireq *prev = NULL;
    for (struct rch_dev_ireq *q = p->sq_head; q; prev = q, q = q->next) {
        if (q != r)
            continue;
        if (prev)
            prev->next = r->next;
        else
            p->sq_head = r->next;
        if (p->sq_tail == r)
            p->sq_tail = prev;
        r->next = NULL;
        return 1;
    }
    return 0;
}

void rch_dev_sendq_fail(struct rch_dev_peer *p, rdmach_status_t st)
{
    while (p->sq_head) {
        struct rch_dev_ireq *r = p->sq_head;
        dequeue_head(p);
        fail_queued(r, st);
    }
    p->crdt_pending = 0;
}

/* Drain one peer's queue; returns the packets sent. */
static unsigned drain_peer(struct rch_dev_peer *p, unsigned max)
{
    unsigned n = 0;
    if (p->crdt_pending)
        rch_dev_send_crdt(p);
    while (p->sq_head && n < max) {
        struct rch_dev_ireq *r = p->sq_head;
        size_t chunk = 0;
        rdmach_status_t st = send_one(p, r, &chunk);
        if (st == RDMACH_AGAIN)
            break;
        n++;
        if (st != RDMACH_OK) {
            dequeue_head(p);
            fail_queued(r, st);
            continue;
        }
        /* Off the queue before sent(): it may release r (CTL) or complete it. */
        if (!(r->qop == RCH_DEV_Q_DATA && r->offset + chunk < r->xfer))
            dequeue_head(p);
        sent(p, r, chunk);
    }
    return n;
}

unsigned rch_dev_drain(unsigned max)
{
    unsigned n = 0;
    struct rch_dev_peer *list = rch_dev.active;
    rch_dev.active = NULL;   /* re-entrant activations start a fresh list */
    while (list) {
        struct rch_dev_peer *p = list;
        list = p->next_active;
        p->active = 0;
        if (n < max)
            n += drain_peer(p, max - n);
        if (p->sq_head || p->crdt_pending)
            activate(p);
    }
    return n;
}

/* ---- isend ---- */

/* A request that completed at once with an error (bad peer, channel error). */
static rdmach_status_t send_failed(struct rch_dev_ireq *r, rdmach_status_t st, struct rch_dev_req **req)
{
    rch_dev_ireq_complete(r, st);
    *req = &r->pub;
    return RDMACH_OK;
}

static __attribute__((noinline)) rdmach_status_t isend_slow(const void *buf, size_t len, int dest, int src,
                                                             int tag, uint32_t ctx, int mode,
                                                             struct rch_dev_req **req)
{
    struct rch_dev_peer *p = &rch_dev.peers[dest];
    struct rch_dev_ireq *r = rch_dev_ireq_alloc(RCH_DEV_REQ_SEND);
    if (r == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "isend to rank %d: no memory for a request", dest);
    r->peer = dest;
    r->buf = (void *)buf;
    r->len = len;
    r->hctx = ctx;
    r->hsrc = src;
    r->htag = tag;
    r->sync = (mode == RCH_DEV_SEND_SYNC);
    r->state = RCH_DEV_S_SEND_QUEUED;
    if (p->dead) {
        struct iovec none = { NULL, 0 };
        return send_failed(r, p->ops->send(p->chan, dest, &none, 0), req);
    }
    if (len <= (r->sync ? p->eager_max_sync : p->eager_max)) {
        r->qop = RCH_DEV_Q_EAGER;
    } else {
        r->qop = RCH_DEV_Q_RNDV_REQ;
        rdmach_status_t st = rch_dev_rndv_prepare(p, r);
        if (st != RDMACH_OK)
            return send_failed(r, st, req);
    }
    *req = &r->pub;
    if (p->sq_head == NULL) {
        size_t chunk = 0;
        rdmach_status_t st = send_one(p, r, &chunk);
        if (st == RDMACH_OK) {
            sent(p, r, chunk);
            return RDMACH_OK;
        }
        if (st != RDMACH_AGAIN) {
            rch_dev_ireq_finish(r, st);
            return RDMACH_OK;
        }
    }
    /* A small eager message that has to wait (its connection not up yet, no
     * credit, others queued before it) is copied now, as MPICH's and Open
     * MPI's eager sends copy it: the one sent is the one the call saw, also
     * for programs that reuse the buffer of a send they never complete
     * (osu_bw_fan_in's set-up waits for all but the last of its sends).
     * Not one that goes zero-copy: that is sent from the user's buffer,
     * registered already. */
    if (r->qop == RCH_DEV_Q_EAGER && len > 0 && len <= sizeof(r->ctl) && len < p->zc_min) {
        memcpy(r->ctl, buf, len);
        r->buf = r->ctl;
    }
    rch_dev_enqueue(p, r);
    return RDMACH_OK;
}

static __attribute__((noinline, cold)) rdmach_status_t isend_bad_args(const void *buf, size_t len, int dest,
                                                                       struct rch_dev_req **req)
{
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "isend: the device is not initialized");
    if (req == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "isend: req is NULL");
    if (dest < 0 || dest >= rch_dev.size)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "isend: dest %d is not a world rank (size %d)", dest,
                            rch_dev.size);
    return rch_base_err(RDMACH_ERR_INVALID_ARG, "isend: buf is NULL with len %zu", len);
}

/* The fast path's packet and what it needs after the channel's call, in one
 * stack object so that nothing has to live in registers across the call. */
struct fast_send {
    struct rch_pkt_eager h;
    int dest, mode;
    struct iovec iov[2];
    struct rch_dev_req **req;
};

/* The channel refused the fast path's packet: AGAIN queues it (isend_slow
 * finds the channel full again, or sends it), an error fails a request. */
static __attribute__((noinline)) rdmach_status_t isend_refused(const struct fast_send *f, rdmach_status_t st)
{
    rch_dev.peers[f->dest].tx_seq--;   /* the message did not leave: its number is not used */
    rch_dev.peers[f->dest].tx_bytes -= f->h.len;
    if (st == RDMACH_AGAIN)
        return isend_slow(f->iov[1].iov_base, f->h.len, f->dest, f->h.src, f->h.tag, f->h.ctx, f->mode, f->req);
    struct rch_dev_ireq *r = rch_dev_ireq_alloc(RCH_DEV_REQ_SEND);
    if (r == NULL)
        return st;
    r->peer = f->dest;
    return send_failed(r, st, f->req);
}

/* Credits of a flow-controlled channel, after the fast path's packet left
 * (the peer found again from f: nothing is kept in registers across the
 * channel's call). */
static inline void isend_took_credit(const struct fast_send *f)
{
    struct rch_dev_peer *p = &rch_dev.peers[f->dest];
    p->credits--;
    p->owed -= f->h.b.credits;
}

void rch_dev_isend_zc_done(struct rch_dev_ireq *r, rdmach_status_t st)
{
    r->pub.bytes = st == RDMACH_OK ? r->len : 0;
    rch_dev_ireq_finish(r, st);
}

/*
 * The eager fast path keeps its frame small (everything unusual is a
 * noinline call, nothing lives in registers across the channel's call): it
 * is most of the sender's part of a small message's latency.
 */
rdmach_status_t rch_dev_isend(const void *buf, size_t len, int dest, int src, int tag, uint32_t ctx,
                              int mode, struct rch_dev_req **req)
{
    /* rch_dev.size is 0 until init: one unsigned compare covers that and the range. */
    if (RCH_UNLIKELY((unsigned)dest >= (unsigned)rch_dev.size || req == NULL || (buf == NULL && len != 0)))
        return isend_bad_args(buf, len, dest, req);
    struct rch_dev_peer *p = &rch_dev.peers[dest];
    if (RCH_LIKELY(len <= p->eager_max && mode != RCH_DEV_SEND_SYNC && p->sq_head == NULL &&
                   (!p->flow || p->credits > 0))) {
        if (RCH_UNLIKELY(len >= p->zc_min))   /* zero-copy: a request until rma_done (send_one) */
            return isend_slow(buf, len, dest, src, tag, ctx, mode, req);
        struct fast_send f;
        f.h.b = rch_pkt_base_make(RCH_PKT_EAGER, 0);
        f.h.ctx = ctx;
        f.h.src = src;
        f.h.tag = tag;
        f.h.len = (uint32_t)len;
        int flow = p->flow;
        if (RCH_UNLIKELY(flow))
            f.h.b.credits = owed_now(p);
        f.dest = dest;
        f.mode = mode;
        f.req = req;
        f.iov[0].iov_base = &f.h;
        f.iov[0].iov_len = sizeof(f.h);
        f.iov[1].iov_base = (void *)buf;
        f.iov[1].iov_len = len;
        *req = NULL;
        p->tx_seq++;   /* its number (pkt.h CANCEL_REQ); rch_dev_send_seq tells it */
        p->tx_bytes += len;
        rdmach_status_t st = p->ops->send(p->chan, dest, f.iov, len ? 2 : 1);
        if (RCH_UNLIKELY(st != RDMACH_OK))
            return isend_refused(&f, st);
        if (RCH_UNLIKELY(flow))
            isend_took_credit(&f);
        return RDMACH_OK;
    }
    return isend_slow(buf, len, dest, src, tag, ctx, mode, req);
}
