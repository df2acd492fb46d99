/*
 * One-sided packets (rma_proto.h): how they leave, and what the target does
 * with them.
 *
 * Leaving. rch_dev_rma_send() sends at once when the peer's send queue is
 * empty and a credit is there (the payload is copied out by the channel);
 * otherwise the packet joins the peer's send queue behind everything sent
 * before it (so a LOCK, the operations and the UNLOCK of one epoch stay in
 * order, and credits are respected), in a device request of qop
 * RCH_DEV_Q_RMA. A queued payload either fits the request's ctl buffer, is
 * copied (responses of the target, whose data is a scratch copy), or stays
 * where the origin has it: MPI forbids touching an origin buffer before the
 * operation completes locally, and the request counts in pend_local until
 * the packet has left. A description after the header (V and P packets)
 * goes into ctl with it, or, longer, into memory of the request's own that
 * leaves as a piece between ctl and the payload (rch_dev_rma_iov).
 *
 * Arriving. rch_dev_rma_on_pkt() (recv.c's handler for RCH_PKT_RMA)
 * validates the packet, finds the window by id and checks that the sender is
 * the member it claims to be, then runs the operation on this rank's memory
 * — accumulates under this rank's accumulate lock, as an origin on the same
 * node would — and answers: ACK for PUT/ACC, RSP with data for GET/GACC/CAS.
 * A request outside the window is answered with INVALID_ARG and touches
 * nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "device/rma_impl.h"

rch_dev_rma_resolve_fn rch_dev_rma_resolver;

void rch_dev_rma_set_resolver(rch_dev_rma_resolve_fn fn)
{
    rch_dev_rma_resolver = fn;
}

rdmach_status_t rch_dev_rma_kernel_of(const struct rch_rma_hdr *h, struct rch_dev_rma_op *k)
{
    *k = (struct rch_dev_rma_op){ .fn = NULL };
    if (rch_dev_rma_resolver == NULL || rch_dev_rma_resolver(h->aop, h->kind, k) != 0 || k->fn == NULL ||
        k->elem == 0 || k->elem != h->elem)
        return rch_base_err(RDMACH_ERR_PROTOCOL, "accumulate from rank %d: operation %u on kind %u of %u bytes is "
                            "not one this rank knows", h->src, h->aop, h->kind, h->elem);
    return RDMACH_OK;
}

/* ---- local completion groups ---- */

void rch_dev_rma_cmpl_release(struct rch_dev_rma_cmpl *c, rdmach_status_t st)
{
    if (st != RDMACH_OK && c->err == RDMACH_OK)
        c->err = st;
    if (--c->pending == 0 && c->done)
        c->done(c);
}

void rch_dev_rma_note_error(struct rch_dev_win *w, int target, rdmach_status_t st, const char *what)
{
    if (w->err != RDMACH_OK)
        return;
    w->err = st;
    w->err_target = target;
    snprintf(w->errmsg, sizeof(w->errmsg), "%s", what && what[0] ? what : rdmach_strerror(st));
}

/* ---- requests ---- */

static void counts_down(struct rch_dev_win *w, int target, int flags)
{
    struct rch_dev_win_target *t = &w->t[target];
    if ((flags & RMA_RQ_LOCAL) && t->pend_local) {
        t->pend_local--;
        w->npend_local--;
    }
    if ((flags & RMA_RQ_REMOTE) && t->pend_remote) {
        t->pend_remote--;
        w->npend_remote--;
    }
}

/* GETW's result buffer is registered until the target has written it (RSP) or failed. */
static void mr_drop(struct rch_dev_ireq *r)
{
    if (!(r->rq_flags & RMA_RQ_MR) || r->rq_result == 0)
        return;
    struct rch_dev_peer *p = &rch_dev.peers[r->peer];
    p->ops->mem_dereg(p->chan, (struct rch_rdma_mr *)(uintptr_t)r->rq_result);
    r->rq_result = 0;
}

/* A queued packet's long description (rch_dev_rma_send_qv), once it is not needed. */
static void desc_drop(struct rch_dev_ireq *r)
{
    if (r->rq_flags & RMA_RQ_DESC) {
        free((void *)(uintptr_t)r->rq_result);
        r->rq_result = 0;
        r->rq_rlen = 0;
        r->rq_flags &= ~RMA_RQ_DESC;
    }
}

int rch_dev_rma_iov(const struct rch_dev_ireq *r, struct iovec *iov)
{
    int n = 0;
    iov[n++] = (struct iovec){ (void *)r->ctl, r->ctl_len };
    if (r->rq_flags & RMA_RQ_DESC)
        iov[n++] = (struct iovec){ (void *)(uintptr_t)r->rq_result, (size_t)r->rq_rlen };
    if (r->len)
        iov[n++] = (struct iovec){ r->buf, r->len };
    return n;
}

/* on_complete of every RMA request: the counters, the group, owned memory. */
static void req_done(struct rch_dev_req *pub)
{
    struct rch_dev_ireq *r = (struct rch_dev_ireq *)pub;
    int flags = r->rq_flags;
    if (flags & RMA_RQ_OWNED) {
        free(r->buf);
        r->buf = NULL;
    }
    desc_drop(r);
    mr_drop(r);
    struct rch_dev_win *w = rq_win(r);
    if (w) {
        counts_down(w, r->rq_target, flags);
        if (pub->err != RDMACH_OK) {
            char msg[200];
            snprintf(msg, sizeof(msg), "one-sided operation on rank %d failed: %s", r->rq_target,
                     rdmach_last_error());
            rch_dev_rma_note_error(w, r->rq_target, pub->err, msg);
        }
    }
    if (flags & RMA_RQ_CMPL)
        rch_dev_rma_cmpl_release(rq_cmpl(r), pub->err);
}

struct rch_dev_ireq *rch_dev_rma_req(struct rch_dev_win *w, int target, int flags, struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_ireq *r = rch_dev_ireq_alloc(0);
    if (r == NULL) {
        rch_base_err(RDMACH_ERR_NO_MEMORY, "one-sided: no memory for a request");
        return NULL;
    }
    r->state = RCH_DEV_S_RMA;
    r->freed = 1;                       /* nobody waits on it: reclaimed when it completes */
    r->peer = w ? w->t[target].world : -1;
    r->buf = NULL;
    r->len = 0;
    r->ctl_len = 0;
    r->rq_target = target;
    r->rq_result = 0;
    r->rq_rlen = 0;
    r->pub.on_complete = req_done;
    r->pub.user = w;
    r->pub.user_word[1] = (uint64_t)(uintptr_t)c;
    if (c) {
        flags |= RMA_RQ_CMPL;
        c->pending++;
    }
    r->rq_flags = flags;
    if (w) {
        struct rch_dev_win_target *t = &w->t[target];
        if (flags & RMA_RQ_LOCAL) {
            t->pend_local++;
            w->npend_local++;
        }
        if (flags & RMA_RQ_REMOTE) {
            t->pend_remote++;
            w->npend_remote++;
        }
    }
    return r;
}

/* Undo a request whose operation never started (the call fails with st). */
static void req_drop(struct rch_dev_ireq *r, rdmach_status_t st)
{
    struct rch_dev_win *w = rq_win(r);
    if (w)
        counts_down(w, r->rq_target, r->rq_flags);
    if (r->rq_flags & RMA_RQ_OWNED)
        free(r->buf);
    desc_drop(r);
    mr_drop(r);
    if (r->rq_flags & RMA_RQ_CMPL)
        rch_dev_rma_cmpl_release(rq_cmpl(r), st);
    rch_dev_pending_del(r);
    rch_dev_ireq_release(r);
}

/* send.c: a queued RMA packet has left. */
void rch_dev_rma_sent(struct rch_dev_ireq *r)
{
    r->qop = 0;
    desc_drop(r);
    if (r->rq_flags & RMA_RQ_OWNED) {
        free(r->buf);
        r->buf = NULL;
        r->rq_flags &= ~RMA_RQ_OWNED;
    }
    if (r->rq_flags & RMA_RQ_RSP)
        return;                          /* completes when its RSP arrives */
    rch_dev_ireq_complete(r, RDMACH_OK);
}

/* rndv.c: the channel finished an RDMA put/get of ours. */
void rch_dev_rma_rdma_done(struct rch_dev_ireq *r, rdmach_status_t st)
{
    rch_dev_ireq_finish(r, st);
}

/* ---- sending ---- */

void rch_dev_rma_hdr(struct rch_dev_win *w, struct rch_rma_hdr *h, unsigned rop, size_t len, uint64_t addr)
{
    memset(h, 0, sizeof(*h));
    h->b = rch_pkt_base_make(RCH_PKT_RMA, 0);
    h->rop = (uint8_t)rop;
    h->win = w->id;
    h->src = w->rank;
    h->len = (uint32_t)len;
    h->addr = addr;
}

static inline uint16_t owed_now(const struct rch_dev_peer *p)
{
    return (uint16_t)(p->owed > 0xffff ? 0xffff : p->owed);
}

rdmach_status_t rch_dev_rma_send_q(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                   size_t plen, int copy, struct rch_dev_ireq *r, int qflags,
                                   struct rch_dev_rma_cmpl *c)
{
    return rch_dev_rma_send_qv(w, target, h, NULL, 0, payload, plen, copy, r, qflags, c);
}

rdmach_status_t rch_dev_rma_send_qv(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *desc,
                                    size_t dlen, const void *payload, size_t plen, int copy,
                                    struct rch_dev_ireq *r, int qflags, struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_peer *p = &rch_dev.peers[w->t[target].world];
    rdmach_status_t st;
    _Alignas(8) unsigned char head[sizeof(struct rch_rma_hdr) + RMA_DESC_MAX];
    int long_desc = sizeof(*h) + dlen > RCH_PKT_CTL_MAX;
    if (RCH_UNLIKELY(dlen > RMA_DESC_MAX || (long_desc && r && (r->rq_flags & RMA_RQ_RSP))))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "one-sided: a %zu-byte description does not fit a packet head",
                            dlen);
    if (RCH_UNLIKELY(p->dead)) {
        st = rch_base_err(p->dead_status == RDMACH_ERR_UNREACHABLE ? RDMACH_ERR_UNREACHABLE : RDMACH_ERR_PEER_DEAD,
                          "one-sided %s to rank %d (world rank %d): %s", rch_rma_op_name[h->rop], target, p->rank,
                          p->dead_status == RDMACH_ERR_UNREACHABLE ? "no channel reaches it" : "it has failed");
        if (r)
            req_drop(r, st);
        return st;
    }
    if (p->sq_head == NULL && !(p->flow && p->credits <= 0)) {
        uint16_t give = 0;
        if (p->flow) {
            give = owed_now(p);
            h->b.credits = give;
        }
        struct iovec iov[2] = { { h, sizeof(*h) }, { (void *)payload, plen } };
        if (dlen) {
            memcpy(head, h, sizeof(*h));
            memcpy(head + sizeof(*h), desc, dlen);
            iov[0] = (struct iovec){ head, sizeof(*h) + dlen };
        }
        st = p->ops->send(p->chan, p->rank, iov, plen ? 2 : 1);
        if (RCH_LIKELY(st == RDMACH_OK)) {
            if (p->flow) {
                p->credits--;
                p->owed -= give;
            }
            if (r && !(r->rq_flags & RMA_RQ_RSP))
                rch_dev_ireq_complete(r, RDMACH_OK);
            return RDMACH_OK;
        }
        if (st != RDMACH_AGAIN) {
            if (r)
                req_drop(r, st);
            return st;
        }
    }
    /* queue it */
    if (r == NULL) {
        r = rch_dev_rma_req(qflags ? w : NULL, target, qflags, c);
        if (r == NULL)
            return RDMACH_ERR_NO_MEMORY;
        r->peer = p->rank;
    }
    h->b.credits = 0;
    memcpy(r->ctl, h, sizeof(*h));
    r->ctl_len = (uint16_t)sizeof(*h);
    if (long_desc) {
        /* the description waits in memory of its own, between ctl and the payload */
        void *d = malloc(dlen);
        if (d == NULL) {
            st = rch_base_err(RDMACH_ERR_NO_MEMORY, "one-sided: no memory to queue a %zu-byte description", dlen);
            req_drop(r, st);
            return st;
        }
        memcpy(d, desc, dlen);
        r->rq_result = (uint64_t)(uintptr_t)d;
        r->rq_rlen = dlen;
        r->rq_flags |= RMA_RQ_DESC;
    } else if (dlen) {
        memcpy(r->ctl + sizeof(*h), desc, dlen);
        r->ctl_len = (uint16_t)(sizeof(*h) + dlen);
    }
    if (!long_desc && plen <= (size_t)(RCH_PKT_CTL_MAX - r->ctl_len)) {
        if (plen)
            memcpy(r->ctl + r->ctl_len, payload, plen);
        r->ctl_len = (uint16_t)(r->ctl_len + plen);
    } else if (copy) {
        r->buf = malloc(plen);
        if (r->buf == NULL) {
            st = rch_base_err(RDMACH_ERR_NO_MEMORY, "one-sided: no memory to queue a %zu-byte packet", plen);
            req_drop(r, st);
            return st;
        }
        memcpy(r->buf, payload, plen);
        r->len = plen;
        r->rq_flags |= RMA_RQ_OWNED;
    } else {
        r->buf = (void *)payload;
        r->len = plen;
    }
    r->qop = RCH_DEV_Q_RMA;
    rch_dev_enqueue(p, r);
    return RDMACH_OK;
}

rdmach_status_t rch_dev_rma_send(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                 size_t plen, int copy, struct rch_dev_ireq *r)
{
    return rch_dev_rma_send_q(w, target, h, payload, plen, copy, r, 0, NULL);
}

/* ---- applying operations to my memory ---- */

void rch_dev_rma_apply_acc(struct rch_dev_win_ctrl *ctrl, void *dst, const void *src, void *result, size_t len,
                           rch_dev_rma_kernel_fn fn, size_t elem)
{
    rch_dev_rma_acc_lock(ctrl);
    if (result)
        memcpy(result, dst, len);
    fn(src, dst, len / elem, NULL);
    rch_dev_rma_acc_unlock(ctrl);
}

void rch_dev_rma_apply_cas(struct rch_dev_win_ctrl *ctrl, void *dst, const void *cmp, const void *src,
                           void *result, size_t elem)
{
    unsigned char old[RCH_RMA_ELEM_MAX];
    rch_dev_rma_acc_lock(ctrl);
    memcpy(old, dst, elem);
    if (memcmp(old, cmp, elem) == 0)
        memcpy(dst, src, elem);
    rch_dev_rma_acc_unlock(ctrl);
    memcpy(result, old, elem);
}

/* ---- the target side ---- */

static void *scratch;
static size_t scratch_len;

void *rch_dev_rma_scratch(size_t n)
{
    if (n > scratch_len) {
        void *p = realloc(scratch, n);
        if (!p)
            return NULL;
        scratch = p;
        scratch_len = n;
    }
    return scratch;
}

void rch_dev_rma_answer_ack(struct rch_dev_win *w, const struct rch_rma_hdr *q, rdmach_status_t st)
{
    struct rch_rma_hdr a;
    rch_dev_rma_hdr(w, &a, RCH_RMA_ACK, 0, q->addr);
    a.status = st;
    a.elem = q->len;
    a.req = 1;
    a.aop = q->rop;
    rch_dev_rma_send(w, q->src, &a, NULL, 0, 0, NULL);
}

void rch_dev_rma_answer_rsp(struct rch_dev_win *w, const struct rch_rma_hdr *q, rdmach_status_t st, const void *data,
                       size_t n, int copy)
{
    rch_dev_rma_answer_rsp_flags(w, q, st, data, n, copy, 0);
}

void rch_dev_rma_answer_rsp_flags(struct rch_dev_win *w, const struct rch_rma_hdr *q, rdmach_status_t st,
                                  const void *data, size_t n, int copy, int flags)
{
    struct rch_rma_hdr a;
    rch_dev_rma_hdr(w, &a, RCH_RMA_RSP, st == RDMACH_OK ? n : 0, q->addr);
    a.flags = (uint8_t)flags;
    a.status = st;
    a.req = q->req;
    a.aop = q->rop;
    rch_dev_rma_send(w, q->src, &a, st == RDMACH_OK ? data : NULL, st == RDMACH_OK ? n : 0, copy, NULL);
}

static void on_put(struct rch_dev_win *w, const struct rch_rma_hdr *h, const unsigned char *data)
{
    void *dst = rch_dev_rma_local_addr(w, h->addr, h->len);
    if (dst == NULL) {
        rch_dev_rma_answer_ack(w, h, RDMACH_ERR_INVALID_ARG);
        return;
    }
    memcpy(dst, data, h->len);
    rch_dev_rma_answer_ack(w, h, RDMACH_OK);
}

static void on_get(struct rch_dev_win *w, const struct rch_rma_hdr *h)
{
    void *src = rch_dev_rma_local_addr(w, h->addr, h->elem);
    size_t maxp = rch_dev_rma_max_payload(w, h->src);
    if (src == NULL || h->elem > maxp) {
        rch_dev_rma_answer_rsp(w, h, RDMACH_ERR_INVALID_ARG, NULL, 0, 0);
        return;
    }
    /* The window memory stays valid while the origin's epoch is open: no copy. */
    rch_dev_rma_answer_rsp(w, h, RDMACH_OK, src, h->elem, 0);
}

static void on_acc(struct rch_dev_win *w, const struct rch_rma_hdr *h, const unsigned char *data)
{
    struct rch_dev_rma_op kern;
    int fetch = h->rop == RCH_RMA_GACC;
    rdmach_status_t st = rch_dev_rma_kernel_of(h, &kern);
    void *dst = rch_dev_rma_local_addr(w, h->addr, h->len);
    void *old = NULL;
    if (st == RDMACH_OK && h->len % kern.elem != 0)
        st = rch_base_err(RDMACH_ERR_PROTOCOL, "accumulate from rank %d: %u bytes are not whole %u-byte elements",
                          h->src, (unsigned)h->len, kern.elem);
    if (st == RDMACH_OK && dst == NULL)
        st = RDMACH_ERR_INVALID_ARG;
    if (st == RDMACH_OK && fetch && (old = rch_dev_rma_scratch(h->len ? h->len : 1)) == NULL)
        st = RDMACH_ERR_NO_MEMORY;
    if (st == RDMACH_OK)
        rch_dev_rma_apply_acc(w->my_ctrl, dst, data, old, h->len, kern.fn, kern.elem);
    if (fetch)
        rch_dev_rma_answer_rsp(w, h, st, old, h->len, 1);
    else
        rch_dev_rma_answer_ack(w, h, st);
}

static void on_cas(struct rch_dev_win *w, const struct rch_rma_hdr *h, const unsigned char *data)
{
    unsigned char old[RCH_RMA_ELEM_MAX];
    void *dst = rch_dev_rma_local_addr(w, h->addr, h->elem);
    if (dst == NULL) {
        rch_dev_rma_answer_rsp(w, h, RDMACH_ERR_INVALID_ARG, NULL, 0, 0);
        return;
    }
    rch_dev_rma_apply_cas(w->my_ctrl, dst, data, data + h->elem, old, h->elem);
    rch_dev_rma_answer_rsp(w, h, RDMACH_OK, old, h->elem, 1);
}

/* ---- answers, at the origin ---- */

static void on_ack(struct rch_dev_win *w, const struct rch_rma_hdr *h)
{
    struct rch_dev_win_target *t = &w->t[h->src];
    uint64_t n = h->req;
    if (n > t->pend_remote)
        n = t->pend_remote;        /* more ACKs than operations: a confused peer; never wrap */
    t->pend_remote -= (uint32_t)n;
    w->npend_remote -= (uint32_t)n;
    if (h->status != RDMACH_OK) {
        char msg[200];
        snprintf(msg, sizeof(msg), "rank %d refused a one-sided %s of %u bytes at %s0x%llx: %s", h->src,
                 h->aop < RCH_RMA_OP_MAX ? rch_rma_op_name[h->aop] : "operation", h->elem,
                 w->flavor == RCH_DEV_WIN_DYNAMIC ? "address " : "offset ", (unsigned long long)h->addr,
                 h->status == RDMACH_ERR_INVALID_ARG ? "outside its window" : rdmach_strerror(h->status));
        rch_dev_rma_note_error(w, h->src, h->status < 0 ? h->status : RDMACH_ERR_PROTOCOL, msg);
    }
}

static void on_rsp(struct rch_dev_peer *p, struct rch_dev_win *w, const struct rch_rma_hdr *h,
                   const unsigned char *data, size_t len)
{
    struct rch_dev_ireq *r = rch_dev_ireq_lookup(h->req);
    if (r == NULL || r->state != RCH_DEV_S_RMA || !(r->rq_flags & RMA_RQ_RSP) || r->peer != p->rank ||
        rq_win(r) != w || r->rq_target != h->src || r->qop != 0) {
        rch_dev_bad_packet(p, len, RCH_PKT_RMA, "RMA RSP for no operation waiting on this rank");
        return;
    }
    rdmach_status_t st = h->status == RDMACH_OK ? RDMACH_OK : h->status < 0 ? h->status : RDMACH_ERR_PROTOCOL;
    if ((r->rq_flags & RMA_RQ_MR) && (h->flags & RCH_RMA_F_NOWRITE))
        w->t[h->src].getw = -1;              /* GETW's target cannot write here by single copy */
    if (st == RDMACH_OK && h->len != r->rq_rlen) {
        rch_dev_bad_packet(p, len, RCH_PKT_RMA, "RMA RSP with the wrong amount of data");
        st = RDMACH_ERR_PROTOCOL;
    }
    if (st == RDMACH_OK) {
        if (h->len)
            memcpy((void *)(uintptr_t)r->rq_result, data, h->len);
    } else {
        rch_base_err(st, "rank %d refused a one-sided %s at %s0x%llx: %s", h->src,
                     h->aop < RCH_RMA_OP_MAX ? rch_rma_op_name[h->aop] : "operation",
                     w->flavor == RCH_DEV_WIN_DYNAMIC ? "address " : "offset ", (unsigned long long)h->addr,
                     st == RDMACH_ERR_INVALID_ARG ? "outside its window" : rdmach_strerror(st));
    }
    rch_dev_ireq_finish(r, st);
}

/* recv.c: an RCH_PKT_RMA packet from peer p. */
void rch_dev_rma_on_pkt(struct rch_dev_peer *p, const void *pkt, size_t len)
{
    struct rch_rma_hdr h;
    const char *why;
    if (rch_rma_check(pkt, len, &h, &why) != RDMACH_OK) {
        rch_dev_bad_packet(p, len, RCH_PKT_RMA, why);
        return;
    }
    struct rch_dev_win *w = rch_dev_rma_win_find(h.win);
    if (w == NULL) {
        rch_dev_bad_packet(p, len, RCH_PKT_RMA, "RMA packet for a window that does not exist here");
        return;
    }
    if (h.src < 0 || h.src >= w->size || w->world_of[h.src] != p->rank) {
        rch_dev_bad_packet(p, len, RCH_PKT_RMA, "RMA packet from a rank that is not the window member it names");
        return;
    }
    const unsigned char *data = (const unsigned char *)pkt + sizeof(h);
    switch (h.rop) {
    case RCH_RMA_PUT:        on_put(w, &h, data); break;
    case RCH_RMA_GET:        on_get(w, &h); break;
    case RCH_RMA_ACC:
    case RCH_RMA_GACC:       on_acc(w, &h, data); break;
    case RCH_RMA_CAS:        on_cas(w, &h, data); break;
    case RCH_RMA_LOCK:       rch_dev_rma_on_lock(w, h.src, h.flags & RCH_RMA_F_EXCL); break;
    case RCH_RMA_UNLOCK:     rch_dev_rma_on_unlock(w, h.src, h.flags & RCH_RMA_F_EXCL); break;
    case RCH_RMA_POST:       w->t[h.src].posts++; break;
    case RCH_RMA_COMPLETE:   w->completes++; break;
    case RCH_RMA_ACK:        on_ack(w, &h); break;
    case RCH_RMA_RSP:        on_rsp(p, w, &h, data, len); break;
    case RCH_RMA_GRANT:      w->t[h.src].lock_wait = 0; break;
    case RCH_RMA_UNLOCK_ACK: w->t[h.src].unlock_wait = 0; break;
    case RCH_RMA_KICK:       rch_dev_rma_grant_waiting(w); break;
    case RCH_RMA_PUTV:
    case RCH_RMA_GETV:
    case RCH_RMA_ACCV:
    case RCH_RMA_GACCV:      rch_dev_rma_on_vec(w, &h, data); break;
    case RCH_RMA_PUTP:
    case RCH_RMA_ACCP:       rch_dev_rma_on_pat(w, &h, data); break;
    case RCH_RMA_GETW:       rch_dev_rma_on_getw(p, w, &h, data); break;
    case RCH_RMA_PUTW:       rch_dev_rma_on_putw(p, w, &h, data); break;
    default:
        rch_dev_bad_packet(p, len, RCH_PKT_RMA, "RMA packet with an opcode that has no handler");
        break;
    }
}
