/*
 * Rendezvous: messages above the eager limit (or RDMACH_RNDV_THRESHOLD).
 *
 *   sender                                   receiver
 *   RNDV_REQ(size, sreq, [saddr, rkey]) ---> match (now or when posted)
 *     GET  (REQ had an rkey, channel has RMA, rch_dev_rndv_uses_get: RDMACH_RNDV_MODE=get,
 *           or auto and the channel's profile does not prefer PUT):
 *                                  <-------  get(saddr) ... done
 *                                  <-------  RNDV_FIN(sreq, bytes)     both complete
 *     PUT  (otherwise, channel has RMA):
 *                                  <-------  RNDV_RSP(rreq, rlen, raddr, rkey)
 *          put(raddr) ... done
 *          RNDV_FIN(rreq, bytes) ------->                              both complete
 *          Where the channel places a packet sent after a put behind the
 *          put's bytes (caps.put_then_send: one in-order connection), the
 *          FIN goes right after put() returns, without waiting for its local
 *          completion (RDMACH_RNDV_FIN=after turns this off): the receiver
 *          does not wait for the sender to poll the put's completion. The
 *          sender still completes on rma_done. A put that fails
 *          fails its connection, and the FIN behind it on that connection is
 *          never delivered, so the receiver sees the peer fail, not a
 *          successful FIN over missing data.
 *     DATA (channel without RMA):
 *                                  <-------  RNDV_RSP(rreq, rlen), no rkey
 *          RNDV_DATA chunks through the send queue ------->            complete on the last byte
 *     nothing to move (receive buffer of 0 bytes):
 *                                  <-------  RNDV_FIN(sreq, 0)
 *
 * put()/get() return OK when the data has already moved (shared memory with
 * single copy) or INPROGRESS, and rma_done() reports it later (the shared
 * memory pipeline, network channels); both go through the same *_done().
 * The receiver moves min(size, its buffer) bytes: a shorter buffer completes
 * with TRUNCATE, msg_bytes the full size. Rendezvous is synchronous by nature.
 *
 * Requests name each other by id (req.c), checked on every packet: the state
 * must be the one the packet answers and the sender the request's peer.
 */
#include <string.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/dev_impl.h"
#include "device/stats.h"

static inline void *id_ctx(const struct rch_dev_ireq *r)
{
    return (void *)(uintptr_t)rch_dev_ireq_id(r);
}

void rch_dev_rndv_dereg(struct rch_dev_ireq *r)
{
    if (r->mr == NULL)
        return;
    /* Through the channel that registered it, even if the peer has failed
     * since and its ops were switched to the failing ones. */
    struct rch_dev_chan *dc = rch_dev.peers[r->peer].dchan;
    if (dc)
        dc->ops->mem_dereg(dc->chan, r->mr);
    r->mr = NULL;
}

static rdmach_status_t reg(struct rch_dev_peer *p, struct rch_dev_ireq *r, size_t len, unsigned access)
{
    rdmach_status_t st = p->ops->mem_reg(p->chan, r->buf, len, access, &r->mr);
    if (st != RDMACH_OK) {
        r->mr = NULL;
        return st;
    }
    st = p->ops->mem_rkey(p->chan, r->mr, &r->rkey);
    if (st != RDMACH_OK) {
        rch_dev_rndv_dereg(r);
        return st;
    }
    return RDMACH_OK;
}

/* RDMACH_RNDV_MODE resolved for a channel: put and get are forced; auto
 * takes the transport's measured profile (caps.rndv_put, set by the channel
 * from data: shm and hardware RDMA prefer GET, the emulated transports'
 * figures are in docs/NETWORK.md). rdmach-info prints the same answer. */
int rch_dev_rndv_uses_get(const struct rch_rdma_caps *c, const char **why)
{
    static const char *const whys[2][2] = {
        { "auto: receiver GET (the transport's profile)", "auto: sender PUT (the transport's profile)" },
        { "RDMACH_RNDV_MODE=get", "RDMACH_RNDV_MODE=put" },
    };
    int forced = rch_tun.rndv_mode != RCH_RNDV_AUTO;
    int put = forced ? rch_tun.rndv_mode == RCH_RNDV_PUT : c != NULL && c->rndv_put;
    if (why)
        *why = whys[forced][put];
    return !put;
}

int rch_dev_rndv_fin_early(const struct rch_rdma_caps *c)
{
    return c != NULL && c->put_then_send && rch_tun.rndv_fin == RCH_RNDV_FIN_AUTO;
}

static int want_get(const struct rch_dev_peer *p)
{
    return p->rma && rch_dev_rndv_uses_get(p->dchan ? p->dchan->caps : NULL, NULL);
}

static void send_fin(struct rch_dev_peer *p, uint64_t req, size_t bytes, rdmach_status_t st)
{
    struct rch_pkt_rndv_fin f = {
        .b = rch_pkt_base_make(RCH_PKT_RNDV_FIN, 0), .req = req, .bytes = bytes, .status = st, .pad = 0,
    };
    rch_dev_send_ctl(p, &f, sizeof(f));
}

/* ---- sender ---- */

rdmach_status_t rch_dev_rndv_prepare(struct rch_dev_peer *p, struct rch_dev_ireq *r)
{
    r->xfer = r->len;
    if (want_get(p)) {
        rdmach_status_t st = reg(p, r, r->len, RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_READ);
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

size_t rch_dev_rndv_build_req(struct rch_dev_ireq *r, void *pkt)
{
    struct rch_pkt_rndv_req q;
    memset(&q, 0, sizeof(q));
    q.b = rch_pkt_base_make(RCH_PKT_RNDV_REQ, r->mr ? RCH_PKT_F_RKEY : 0);
    q.ctx = r->hctx;
    q.src = r->hsrc;
    q.tag = r->htag;
    q.size = r->len;
    q.sreq = rch_dev_ireq_id(r);
    if (r->mr) {
        q.saddr = (uint64_t)(uintptr_t)r->buf;
        q.rkey.len = r->rkey.len;
        memcpy(q.rkey.bytes, r->rkey.bytes, sizeof(q.rkey.bytes));
    }
    memcpy(pkt, &q, sizeof(q));
    return sizeof(q);
}

static void put_done(struct rch_dev_ireq *r, rdmach_status_t st)
{
    struct rch_dev_peer *p = &rch_dev.peers[r->peer];
    if (r->state != RCH_DEV_S_SEND_PUT_FINNED)
        send_fin(p, r->remote, st == RDMACH_OK ? r->xfer : 0, st);
    r->pub.bytes = st == RDMACH_OK ? r->xfer : 0;
    rch_dev_ireq_finish(r, st);
}

void rch_dev_rndv_on_rsp(struct rch_dev_peer *p, const void *pkt, size_t len)
{
    struct rch_pkt_rndv_rsp s;
    memcpy(&s, pkt, sizeof(s));
    struct rch_dev_ireq *r = rch_dev_ireq_lookup(s.sreq);
    if (r == NULL || r->pub.kind != RCH_DEV_REQ_SEND || r->state != RCH_DEV_S_SEND_WAIT_RSP ||
        r->peer != p->rank) {
        rch_dev_bad_packet(p, len, RCH_PKT_RNDV_RSP, "RNDV_RSP for no rendezvous send waiting on this rank");
        return;
    }
    if (s.rlen > r->len) {
        RCH_WARN("dev", "rank %d asked for %llu bytes of a %zu-byte message; sending %zu", p->rank,
                 (unsigned long long)s.rlen, r->len, r->len);
        s.rlen = r->len;
    }
    r->remote = s.rreq;
    r->xfer = (size_t)s.rlen;
    if ((s.b.flags & RCH_PKT_F_RKEY) && p->rma) {
        rdmach_status_t st = RDMACH_OK;
        if (r->mr == NULL)
            st = reg(p, r, r->len, RCH_RDMA_ACCESS_LOCAL);
        r->state = RCH_DEV_S_SEND_PUT;
        rch_dev_stat.rndv_put++;
        if (st == RDMACH_OK) {
            struct rch_rdma_rkey rk = { .len = s.rkey.len };
            memcpy(rk.bytes, s.rkey.bytes, sizeof(rk.bytes));
            st = p->ops->put(p->chan, p->rank, r->buf, r->mr, r->xfer, &rk, s.raddr, id_ctx(r));
            if (st == RDMACH_INPROGRESS) {
                if (rch_dev_rndv_fin_early(p->dchan ? p->dchan->caps : NULL)) {
                    r->state = RCH_DEV_S_SEND_PUT_FINNED;   /* first: put_done must not send a second FIN */
                    send_fin(p, r->remote, r->xfer, RDMACH_OK);
                }
                return;
            }
        }
        put_done(r, st);
        return;
    }
    /* No RMA: stream the data through the send queue. */
    rch_dev_stat.rndv_pipeline++;
    r->state = RCH_DEV_S_SEND_DATA;
    r->qop = RCH_DEV_Q_DATA;
    r->offset = 0;
    rch_dev_enqueue(p, r);
}

/* ---- receiver ---- */

static void get_done(struct rch_dev_ireq *r, rdmach_status_t st)
{
    struct rch_dev_peer *p = &rch_dev.peers[r->peer];
    rch_dev_rndv_dereg(r);
    send_fin(p, r->remote, st == RDMACH_OK ? r->xfer : 0, st);
    r->pub.bytes = st == RDMACH_OK ? r->xfer : 0;
    rch_dev_ireq_finish(r, st == RDMACH_OK ? r->result : st);
}

void rch_dev_rndv_matched(struct rch_dev_ireq *r, struct rch_dev_peer *p, const struct rch_pkt_rndv_req *q)
{
    r->peer = p->rank;
    r->remote = q->sreq;
    r->pub.source = q->src;
    r->pub.tag = q->tag;
    r->pub.msg_bytes = (size_t)q->size;
    r->xfer = q->size < r->len ? (size_t)q->size : r->len;
    r->result = RDMACH_OK;
    if (r->xfer < q->size) {
        r->result = RDMACH_ERR_TRUNCATE;
        rch_base_err(RDMACH_ERR_TRUNCATE, "a message of %llu bytes from rank %d (tag %d) was truncated to "
                     "the %zu-byte receive buffer", (unsigned long long)q->size, q->src, q->tag, r->len);
    }
    if (p->dead) {
        rch_base_err(RDMACH_ERR_PEER_DEAD, "the sender, rank %d, has failed", p->rank);
        rch_dev_ireq_complete(r, RDMACH_ERR_PEER_DEAD);
        return;
    }
    rch_dev_pending_add(p, r);
    if (r->xfer == 0) {
        send_fin(p, r->remote, 0, RDMACH_OK);
        r->pub.bytes = 0;
        rch_dev_ireq_finish(r, r->result);
        return;
    }
    if ((q->b.flags & RCH_PKT_F_RKEY) && want_get(p)) {
        r->state = RCH_DEV_S_RECV_GET;
        rch_dev_stat.rndv_get++;
        rdmach_status_t st = p->ops->mem_reg(p->chan, r->buf, r->xfer, RCH_RDMA_ACCESS_LOCAL, &r->mr);
        if (st != RDMACH_OK) {
            r->mr = NULL;
        } else {
            struct rch_rdma_rkey rk = { .len = q->rkey.len };
            memcpy(rk.bytes, q->rkey.bytes, sizeof(rk.bytes));
            st = p->ops->get(p->chan, p->rank, r->buf, r->mr, r->xfer, &rk, q->saddr, id_ctx(r));
            if (st == RDMACH_INPROGRESS)
                return;
        }
        get_done(r, st);
        return;
    }
    struct rch_pkt_rndv_rsp s;
    memset(&s, 0, sizeof(s));
    s.b = rch_pkt_base_make(RCH_PKT_RNDV_RSP, 0);
    if (p->rma) {
        rdmach_status_t st = reg(p, r, r->xfer, RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_WRITE);
        if (st != RDMACH_OK) {
            get_done(r, st);   /* tells the sender (FIN with the error) and completes */
            return;
        }
        s.b.flags = RCH_PKT_F_RKEY;
        s.raddr = (uint64_t)(uintptr_t)r->buf;
        s.rkey.len = r->rkey.len;
        memcpy(s.rkey.bytes, r->rkey.bytes, sizeof(s.rkey.bytes));
    }
    s.sreq = q->sreq;
    s.rreq = rch_dev_ireq_id(r);
    s.rlen = r->xfer;
    r->state = RCH_DEV_S_RECV_WAIT_FIN;
    r->offset = 0;
    rch_dev_send_ctl(p, &s, sizeof(s));
}

void rch_dev_rndv_on_req(struct rch_dev_peer *p, const void *pkt, size_t len)
{
    struct rch_pkt_rndv_req q;
    memcpy(&q, pkt, sizeof(q));
    p->rx_seq++;   /* its number (pkt.h CANCEL_REQ) */
    p->rx_bytes += q.size;
    struct rch_match_entry *me = rch_match_take_posted(&rch_dev.posted, q.ctx, q.src, q.tag);
    if (me) {
        rch_dev_rndv_matched(rch_container_of(me, struct rch_dev_ireq, me), p, &q);
        return;
    }
    struct rch_dev_unexp *u = rch_dev_unexp_alloc(0);
    if (u == NULL) {
        RCH_ERROR("dev", "%s", rdmach_last_error());
        rch_boot_abort(1, "device: out of memory for an unexpected message");
    }
    u->me.ctx = q.ctx;
    u->me.src = q.src;
    u->me.tag = q.tag;
    u->peer = p->rank;
    u->op = RCH_PKT_RNDV_REQ;
    u->flags = q.b.flags;
    u->size = (size_t)q.size;
    u->sreq = q.sreq;
    u->seq = p->rx_seq;
    u->saddr = q.saddr;
    u->rkey.len = q.rkey.len;
    memcpy(u->rkey.bytes, q.rkey.bytes, sizeof(u->rkey.bytes));
    rch_match_add_unexp(&rch_dev.unexp, &u->me);
    rch_dev_stats_unexp_queued(u);
}

void rch_dev_rndv_on_data(struct rch_dev_peer *p, const void *pkt, size_t len)
{
    struct rch_pkt_rndv_data d;
    memcpy(&d, pkt, sizeof(d));
    struct rch_dev_ireq *r = rch_dev_ireq_lookup(d.rreq);
    if (r == NULL || r->pub.kind != RCH_DEV_REQ_RECV || r->state != RCH_DEV_S_RECV_WAIT_FIN ||
        r->peer != p->rank) {
        rch_dev_bad_packet(p, len, RCH_PKT_RNDV_DATA, "RNDV_DATA for no rendezvous receive from this rank");
        return;
    }
    if (d.offset > r->xfer || d.len > r->xfer - d.offset || d.len > r->xfer - r->offset) {
        rch_dev_bad_packet(p, len, RCH_PKT_RNDV_DATA, "RNDV_DATA outside the receive buffer");
        return;
    }
    if (d.len)
        memcpy((char *)r->buf + d.offset, (const char *)pkt + sizeof(d), d.len);
    r->offset += d.len;
    if (r->offset == r->xfer) {
        r->pub.bytes = r->xfer;
        rch_dev_ireq_finish(r, r->result);
    }
}

/* ---- both ---- */

void rch_dev_rndv_on_fin(struct rch_dev_peer *p, const void *pkt, size_t len)
{
    struct rch_pkt_rndv_fin f;
    memcpy(&f, pkt, sizeof(f));
    struct rch_dev_ireq *r = rch_dev_ireq_lookup(f.req);
    rdmach_status_t st = f.status == RDMACH_OK ? RDMACH_OK
                         : f.status < 0       ? (rdmach_status_t)f.status
                                              : RDMACH_ERR_PROTOCOL;
    if (r == NULL || r->peer != p->rank) {
        rch_dev_bad_packet(p, len, RCH_PKT_RNDV_FIN, "RNDV_FIN for no rendezvous with this rank");
        return;
    }
    if (st != RDMACH_OK)
        rch_base_err(st, "rendezvous with rank %d failed on its side: %s", p->rank, rdmach_strerror(st));
    if (r->pub.kind == RCH_DEV_REQ_SEND && r->state == RCH_DEV_S_SEND_WAIT_RSP) {
        r->pub.bytes = f.bytes <= r->len ? (size_t)f.bytes : r->len;
        rch_dev_ireq_finish(r, st);
    } else if (r->pub.kind == RCH_DEV_REQ_RECV && r->state == RCH_DEV_S_RECV_WAIT_FIN) {
        r->pub.bytes = f.bytes <= r->xfer ? (size_t)f.bytes : r->xfer;
        rch_dev_ireq_finish(r, st == RDMACH_OK ? r->result : st);
    } else {
        rch_dev_bad_packet(p, len, RCH_PKT_RNDV_FIN, "RNDV_FIN for a request in no state to finish");
    }
}

void rch_dev_rndv_rma_done(struct rch_dev_ireq *r, rdmach_status_t st)
{
    if (r->state == RCH_DEV_S_RECV_GET)
        get_done(r, st);
    else if (r->state == RCH_DEV_S_SEND_PUT || r->state == RCH_DEV_S_SEND_PUT_FINNED)
        put_done(r, st);
    else if (r->state == RCH_DEV_S_RMA)
        rch_dev_rma_rdma_done(r, st);
    else if (r->state == RCH_DEV_S_SEND_ZC)
        rch_dev_isend_zc_done(r, st);
    else
        RCH_DEBUG("dev", "rma_done for a request in state %u (already failed?)", r->state);
}
