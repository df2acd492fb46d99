/*
 * The origin side of the operations: put, get, accumulate (and
 * get-accumulate, fetch-and-op), compare-and-swap, each by the target's path
 * (rma.h):
 *
 *   DIRECT  memcpy to/from the mapped memory; atomics under the target's
 *           accumulate lock, applied here. Complete on return.
 *   RDMA    put/get: the channel's put/get with the target's rkey; complete
 *           on return when the channel says OK (shared-memory single copy),
 *           else a request in flight until rma_done. Atomics: packets.
 *   AM      packets: PUT and ACC carry the data and are answered with an
 *           ACK; GET, GACC and CAS name a request that their RSP completes.
 *           Operations larger than a packet go as several, split on element
 *           boundaries (element-wise atomicity is all MPI promises).
 *
 * Cost of the DIRECT path (the passive-target latency case): the call, one
 * table lookup and the copy; no lock (put/get), no system call, no allocation.
 */
#include <string.h>
#include "base/log.h"
#include "device/rma_impl.h"

static rdmach_status_t unreachable(struct rch_dev_win *w, int target, const char *op)
{
    return rch_base_err(RDMACH_ERR_UNREACHABLE, "one-sided %s to rank %d (world rank %d): no channel reaches it",
                        op, target, w->t[target].world);
}

/* ---- RDMA ---- */

static rdmach_status_t rdma_op(struct rch_dev_win *w, int target, void *laddr, size_t len, uint64_t toff,
                               struct rch_dev_rma_cmpl *c, int is_put)
{
    struct rch_dev_win_target *t = &w->t[target];
    struct rch_dev_peer *p = &rch_dev.peers[t->world];
    if (p->dead)
        return rch_base_err(RDMACH_ERR_PEER_DEAD, "one-sided %s to rank %d (world rank %d): it has failed",
                            is_put ? "put" : "get", target, t->world);
    struct rch_dev_ireq *r = rch_dev_rma_req(w, target, RMA_RQ_LOCAL | RMA_RQ_REMOTE, c);
    if (r == NULL)
        return RDMACH_ERR_NO_MEMORY;
    rch_dev_pending_add(p, r);
    void *op_ctx = (void *)(uintptr_t)rch_dev_ireq_id(r);
    uint64_t raddr = t->base + toff;
    rdmach_status_t st = is_put ? p->ops->put(p->chan, p->rank, laddr, NULL, len, &t->rkey, raddr, op_ctx)
                                : p->ops->get(p->chan, p->rank, laddr, NULL, len, &t->rkey, raddr, op_ctx);
    if (st == RDMACH_INPROGRESS)
        return RDMACH_OK;
    if (st == RDMACH_OK) {
        rch_dev_ireq_finish(r, RDMACH_OK);
        return RDMACH_OK;
    }
    /* Failed at once: nothing is in flight; the call reports it. */
    rch_base_err(st, "one-sided %s of %zu bytes to rank %d: %s", is_put ? "put" : "get", len, target,
                 rdmach_last_error());
    r->rq_flags &= ~RMA_RQ_CMPL;
    rch_dev_ireq_finish(r, RDMACH_OK);    /* counters down, no error noted: the call reports it */
    if (c)
        rch_dev_rma_cmpl_release(c, st);  /* the request's hold (the caller still has its own) */
    return st;
}

/* ---- AM ---- */

static rdmach_status_t am_put(struct rch_dev_win *w, int target, const unsigned char *src, size_t len,
                              uint64_t toff, struct rch_dev_rma_cmpl *c)
{
    size_t maxp = rch_dev_rma_max_payload(w, target);
    if (maxp == 0)
        return unreachable(w, target, "put");
    struct rch_dev_win_target *t = &w->t[target];
    for (size_t off = 0; off < len; off += maxp) {
        size_t n = len - off < maxp ? len - off : maxp;
        struct rch_rma_hdr h;
        rch_dev_rma_hdr(w, &h, RCH_RMA_PUT, n, toff + off);
        t->pend_remote++;
        w->npend_remote++;
        rdmach_status_t st = rch_dev_rma_send_q(w, target, &h, src + off, n, 0, NULL, RMA_RQ_LOCAL, c);
        if (st != RDMACH_OK) {
            t->pend_remote--;
            w->npend_remote--;
            return st;
        }
    }
    return RDMACH_OK;
}

/* One request-response operation (GET, GACC, CAS): rlen bytes come back into result. */
static rdmach_status_t am_rsp_op(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                 size_t plen, int copy, void *result, size_t rlen, struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_peer *p = &rch_dev.peers[w->t[target].world];
    struct rch_dev_ireq *r = rch_dev_rma_req(w, target, RMA_RQ_LOCAL | RMA_RQ_REMOTE | RMA_RQ_RSP, c);
    if (r == NULL)
        return RDMACH_ERR_NO_MEMORY;
    r->rq_result = (uint64_t)(uintptr_t)result;
    r->rq_rlen = rlen;
    h->req = rch_dev_ireq_id(r);
    rch_dev_pending_add(p, r);
    return rch_dev_rma_send(w, target, h, payload, plen, copy, r);
}

static rdmach_status_t am_get(struct rch_dev_win *w, int target, unsigned char *dst, size_t len, uint64_t toff,
                              struct rch_dev_rma_cmpl *c)
{
    size_t maxp = rch_dev_rma_max_payload(w, target);
    if (maxp == 0)
        return unreachable(w, target, "get");
    for (size_t off = 0; off < len; off += maxp) {
        size_t n = len - off < maxp ? len - off : maxp;
        struct rch_rma_hdr h;
        rch_dev_rma_hdr(w, &h, RCH_RMA_GET, 0, toff + off);
        h.elem = (uint32_t)n;
        rdmach_status_t st = am_rsp_op(w, target, &h, NULL, 0, 0, dst + off, n, c);
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

static rdmach_status_t am_acc(struct rch_dev_win *w, int target, const unsigned char *src, unsigned char *result,
                              size_t len, uint64_t toff, const struct rch_dev_rma_op *op, struct rch_dev_rma_cmpl *c)
{
    size_t maxp = rch_dev_rma_max_payload(w, target);
    size_t step = op->elem ? maxp / op->elem * op->elem : 0;
    if (step == 0)
        return unreachable(w, target, "accumulate");
    struct rch_dev_win_target *t = &w->t[target];
    for (size_t off = 0; off < len; off += step) {
        size_t n = len - off < step ? len - off : step;
        struct rch_rma_hdr h;
        rch_dev_rma_hdr(w, &h, result ? RCH_RMA_GACC : RCH_RMA_ACC, n, toff + off);
        h.aop = op->op;
        h.kind = op->kind;
        h.elem = op->elem;
        rdmach_status_t st;
        if (result) {
            st = am_rsp_op(w, target, &h, src + off, n, 0, result + off, n, c);
        } else {
            t->pend_remote++;
            w->npend_remote++;
            st = rch_dev_rma_send_q(w, target, &h, src + off, n, 0, NULL, RMA_RQ_LOCAL, c);
            if (st != RDMACH_OK) {
                t->pend_remote--;
                w->npend_remote--;
            }
        }
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

/* ---- the calls ---- */

rdmach_status_t rch_dev_rma_put(struct rch_dev_win *w, int target, const void *src, size_t len, uint64_t toff,
                                struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_win_target *t = &w->t[target];
    if (RCH_UNLIKELY(len == 0))
        return RDMACH_OK;
    if (RCH_LIKELY(t->path == RCH_DEV_WIN_DIRECT)) {
        void *dst = (void *)(t->mapped + (uintptr_t)toff);
        if (target == w->rank)
            memmove(dst, src, len);
        else
            memcpy(dst, src, len);
        return RDMACH_OK;
    }
    if (t->path == RCH_DEV_WIN_RDMA)
        return rdma_op(w, target, (void *)src, len, toff, c, 1);
    return am_put(w, target, src, len, toff, c);
}

rdmach_status_t rch_dev_rma_get(struct rch_dev_win *w, int target, void *dst, size_t len, uint64_t toff,
                                struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_win_target *t = &w->t[target];
    if (RCH_UNLIKELY(len == 0))
        return RDMACH_OK;
    if (RCH_LIKELY(t->path == RCH_DEV_WIN_DIRECT)) {
        const void *src = (const void *)(t->mapped + (uintptr_t)toff);
        if (target == w->rank)
            memmove(dst, src, len);
        else
            memcpy(dst, src, len);
        return RDMACH_OK;
    }
    if (t->path == RCH_DEV_WIN_RDMA)
        return rdma_op(w, target, dst, len, toff, c, 0);
    return am_get(w, target, dst, len, toff, c);
}

rdmach_status_t rch_dev_rma_acc(struct rch_dev_win *w, int target, const void *src, void *result, size_t len,
                                uint64_t toff, const struct rch_dev_rma_op *op, struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_win_target *t = &w->t[target];
    if (len == 0)
        return RDMACH_OK;
    if (op->elem == 0 || len % op->elem != 0 || op->fn == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "accumulate: %zu bytes are not whole %u-byte elements", len,
                            op->elem);
    if (t->path == RCH_DEV_WIN_DIRECT) {
        rch_dev_rma_apply_acc(t->ctrl, (void *)(t->mapped + (uintptr_t)toff), src, result, len, op->fn, op->elem);
        return RDMACH_OK;
    }
    return am_acc(w, target, src, result, len, toff, op, c);
}

rdmach_status_t rch_dev_rma_cas(struct rch_dev_win *w, int target, const void *cmp, const void *src,
                                void *result, size_t elem, uint64_t toff, struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_win_target *t = &w->t[target];
    if (elem == 0 || elem > RCH_RMA_ELEM_MAX)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "compare-and-swap of a %zu-byte element", elem);
    if (t->path == RCH_DEV_WIN_DIRECT) {
        rch_dev_rma_apply_cas(t->ctrl, (void *)(t->mapped + (uintptr_t)toff), cmp, src, result, elem);
        return RDMACH_OK;
    }
    if (rch_dev_rma_max_payload(w, target) < 2 * elem)
        return unreachable(w, target, "compare-and-swap");
    unsigned char pl[2 * RCH_RMA_ELEM_MAX];
    memcpy(pl, cmp, elem);
    memcpy(pl + elem, src, elem);
    struct rch_rma_hdr h;
    rch_dev_rma_hdr(w, &h, RCH_RMA_CAS, 2 * elem, toff);
    h.elem = (uint32_t)elem;
    /* pl is on this stack: a queued packet copies it. */
    return am_rsp_op(w, target, &h, pl, 2 * elem, 1, result, elem, c);
}
