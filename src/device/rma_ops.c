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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/rma_impl.h"
#include "device/stats.h"

static rdmach_status_t unreachable(struct rch_dev_win *w, int target, const char *op)
{
    return rch_base_err(RDMACH_ERR_UNREACHABLE, "one-sided %s to rank %d (world rank %d): no channel reaches it",
                        op, target, w->t[target].world);
}

/* DIRECT to my own dynamic window: the address must be in an attached region. */
static rdmach_status_t dyn_check(struct rch_dev_win *w, uint64_t addr, size_t len, const char *op)
{
    if (rch_dev_win_region_ok(w, addr, len))
        return RDMACH_OK;
    return rch_base_err(RDMACH_ERR_INVALID_ARG, "one-sided %s of %zu bytes at address 0x%llx of rank %d: outside "
                        "its window (no attached region holds it)", op, len, (unsigned long long)addr, w->rank);
}

/* ---- RDMA ---- */

/* Where [toff, toff + len) is at an RDMA target: 1 (raddr, *key set), 0
 * outside its window (message set), -1 not reachable this way (packets). */
static int rdma_where(struct rch_dev_win *w, int target, uint64_t toff, size_t len, uint64_t *raddr,
                      struct rch_rdma_rkey *kbuf, const struct rch_rdma_rkey **key, const char *op)
{
    struct rch_dev_win_target *t = &w->t[target];
    if (t->dyn == NULL) {
        *raddr = t->base + toff;
        *key = &t->rkey;
        return 1;
    }
    int f = rch_dev_rma_dyn_lookup(t->dyn, toff, len, kbuf);
    if (f > 0) {
        *raddr = toff;
        *key = kbuf;
        return 1;
    }
    if (f < 0)
        return -1;
    rch_base_err(RDMACH_ERR_INVALID_ARG, "one-sided %s of %zu bytes at address 0x%llx of rank %d: outside its window "
                 "(no attached region holds it)", op, len, (unsigned long long)toff, target);
    return 0;
}

/* One channel put/get. OK: complete. INPROGRESS: in flight, counted until
 * rma_done (flush waits for it; c, if given, learns when). An error: nothing
 * is in flight (the message names the target). `owned`: laddr is memory the
 * request frees when it ends. */
static rdmach_status_t chan_rw(struct rch_dev_win *w, int target, void *laddr, size_t len, uint64_t raddr,
                               const struct rch_rdma_rkey *key, int is_put, struct rch_dev_rma_cmpl *c, void *owned)
{
    struct rch_dev_win_target *t = &w->t[target];
    struct rch_dev_peer *p = &rch_dev.peers[t->world];
    if (p->dead) {
        free(owned);
        return rch_base_err(RDMACH_ERR_PEER_DEAD, "one-sided %s to rank %d (world rank %d): it has failed",
                            is_put ? "put" : "get", target, t->world);
    }
    struct rch_dev_ireq *r = rch_dev_rma_req(w, target, RMA_RQ_LOCAL | RMA_RQ_REMOTE | (owned ? RMA_RQ_OWNED : 0), c);
    if (r == NULL) {
        free(owned);
        return RDMACH_ERR_NO_MEMORY;
    }
    r->buf = owned;
    rch_dev_pending_add(p, r);
    void *op_ctx = (void *)(uintptr_t)rch_dev_ireq_id(r);
    rdmach_status_t st = is_put ? p->ops->put(p->chan, p->rank, laddr, NULL, len, key, raddr, op_ctx)
                                : p->ops->get(p->chan, p->rank, laddr, NULL, len, key, raddr, op_ctx);
    if (st == RDMACH_INPROGRESS)
        return st;
    if (st == RDMACH_OK) {
        rch_dev_ireq_finish(r, RDMACH_OK);
        return RDMACH_OK;
    }
    /* Failed at once: the call reports it, the window keeps no error. */
    char msg[256];
    snprintf(msg, sizeof(msg), "%s", rdmach_last_error());
    r->rq_flags &= ~RMA_RQ_CMPL;
    rch_dev_ireq_finish(r, RDMACH_OK);
    if (c)
        rch_dev_rma_cmpl_release(c, st);
    return rch_base_err(st, "one-sided %s of %zu bytes to rank %d: %s", is_put ? "put" : "get", len, target, msg);
}

static rdmach_status_t am_put(struct rch_dev_win *w, int target, const unsigned char *src, size_t len,
                              uint64_t toff, struct rch_dev_rma_cmpl *c);
static rdmach_status_t am_get(struct rch_dev_win *w, int target, unsigned char *dst, size_t len, uint64_t toff,
                              struct rch_dev_rma_cmpl *c);

static rdmach_status_t rdma_op(struct rch_dev_win *w, int target, void *laddr, size_t len, uint64_t toff,
                               struct rch_dev_rma_cmpl *c, int is_put)
{
    struct rch_rdma_rkey kbuf;
    const struct rch_rdma_rkey *key;
    uint64_t raddr;
    int where = rdma_where(w, target, toff, len, &raddr, &kbuf, &key, is_put ? "put" : "get");
    if (where == 0)
        return RDMACH_ERR_INVALID_ARG;
    if (where < 0)
        return is_put ? am_put(w, target, laddr, len, toff, c) : am_get(w, target, laddr, len, toff, c);
    rdmach_status_t st = chan_rw(w, target, laddr, len, raddr, key, is_put, c, NULL);
    return st == RDMACH_INPROGRESS ? RDMACH_OK : st;
}

struct hold_arg {
    struct rch_dev_rma_cmpl *c;
};

static int only_hold_left(void *arg)
{
    return ((struct hold_arg *)arg)->c->pending == 1;
}

/* A channel operation complete on return: wait for it if the channel did
 * not complete it at once. That is either a single copy of SHM_CMA_SPLIT
 * bytes or more the peer helps with (shm_coop.c), or the two-copy pipeline
 * (the kernel refused single copy since the first read, shm_rma.c), which
 * needs the target's progress: the target's path is learnt again by the
 * next operation's 1-byte read (single_copy_where), so a helped copy keeps
 * single copy and a pipeline turns the target to packets. */
static rdmach_status_t rw_now(struct rch_dev_win *w, int target, void *laddr, size_t len, uint64_t raddr,
                              const struct rch_rdma_rkey *key, int is_put, struct rch_dev_rma_cmpl *c)
{
    rdmach_status_t st = chan_rw(w, target, laddr, len, raddr, key, is_put, c, NULL);
    if (st != RDMACH_INPROGRESS)
        return st;
    w->t[target].cma = 0;
    struct hold_arg a = { c };
    rch_dev_rma_spin_until(only_hold_left, &a);
    return c->err;
}

/*
 * Accumulate (cmp NULL) or compare-and-swap on a node-local target whose
 * memory is not mapped here (Win_create, dynamic): read, combine, write back
 * through the channel's single copy, holding the target's accumulate lock
 * (in the node segment) — the same lock every other applier takes, so this
 * is atomic with them, and the target does nothing: passive. Only while no
 * packet of ours to that target is unanswered (pend_remote 0): an earlier
 * accumulate still in a packet (rma_vec.c's ACCV) must apply first, and
 * packets to one target apply in order (MPI's default accumulate_ordering).
 * AGAIN: the channel has no single copy to that rank (known after a first
 * 1-byte read), use packets.
 */
/* Where [toff, toff + len) of a node-local RDMA target is, if the channel
 * reaches it by single copy (learnt by a first 1-byte read): OK (raddr, *key
 * set), AGAIN (no single copy, or not this way), or an error. */
static rdmach_status_t single_copy_where(struct rch_dev_win *w, int target, uint64_t toff, size_t len,
                                         uint64_t *raddr, struct rch_rdma_rkey *kbuf,
                                         const struct rch_rdma_rkey **key, const char *op)
{
    struct rch_dev_win_target *t = &w->t[target];
    if (t->cma < 0)
        return RDMACH_AGAIN;
    int where = rdma_where(w, target, toff, len, raddr, kbuf, key, op);
    if (where == 0)
        return RDMACH_ERR_INVALID_ARG;
    if (where < 0)
        return RDMACH_AGAIN;
    if (t->cma == 0) {
        void *b = malloc(1);
        if (!b)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "one-sided: no memory");
        rdmach_status_t st = chan_rw(w, target, b, 1, *raddr, *key, 0, NULL, b);
        t->cma = st == RDMACH_OK ? 1 : -1;
        if (st != RDMACH_OK)
            return RDMACH_AGAIN;     /* in flight (counted) or refused: packets will do it, and say why */
    }
    return RDMACH_OK;
}

int rch_dev_rma_single_copy(struct rch_dev_win *w, int target)
{
    struct rch_rdma_rkey kbuf;
    const struct rch_rdma_rkey *key;
    uint64_t raddr;
    struct rch_dev_win_target *t = &w->t[target];
    return t->path == RCH_DEV_WIN_RDMA && t->ctrl && t->size > 0 &&
           single_copy_where(w, target, 0, 1, &raddr, &kbuf, &key, "get") == RDMACH_OK;
}

static rdmach_status_t rmw(struct rch_dev_win *w, int target, uint64_t toff, size_t len, const void *src,
                           void *result, const struct rch_dev_rma_op *op, const void *cmp)
{
    struct rch_dev_win_target *t = &w->t[target];
    struct rch_rdma_rkey kbuf;
    const struct rch_rdma_rkey *key;
    uint64_t raddr;
    rdmach_status_t where = single_copy_where(w, target, toff, len, &raddr, &kbuf, &key,
                                              cmp ? "compare-and-swap" : "accumulate");
    if (where != RDMACH_OK)
        return where;
    unsigned char stackbuf[4096], *tmp = stackbuf;
    if (len > sizeof(stackbuf) && (tmp = malloc(len)) == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "one-sided: no memory for %zu bytes", len);
    struct rch_dev_rma_cmpl c;
    rch_dev_rma_cmpl_init(&c, NULL);
    rch_dev_rma_acc_lock(t->ctrl);
    rdmach_status_t st = rw_now(w, target, tmp, len, raddr, key, 0, &c);
    if (RCH_UNLIKELY(rch_tun.rma_rmw_die == rch_dev.rank + 1))
        _exit(0);     /* tests: a death holding the lock (rma_acclock.c) */
    if (st == RDMACH_OK) {
        if (result)
            memcpy(result, tmp, len);
        if (cmp) {
            if (memcmp(tmp, cmp, len) == 0)
                st = rw_now(w, target, (void *)src, len, raddr, key, 1, &c);
        } else {
            op->fn(src, tmp, len / op->elem, NULL);
            st = rw_now(w, target, tmp, len, raddr, key, 1, &c);
        }
    }
    rch_dev_rma_acc_unlock(t->ctrl);
    if (st == RDMACH_OK)
        rch_dev_stat.rma_rmw++;
    if (tmp != stackbuf)
        free(tmp);
    return st;
}

/* ---- AM ---- */

rdmach_status_t rch_dev_rma_send_acked(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                       size_t plen, int copy, struct rch_dev_rma_cmpl *c)
{
    return rch_dev_rma_send_acked_v(w, target, h, NULL, 0, payload, plen, copy, c);
}

rdmach_status_t rch_dev_rma_send_acked_v(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *desc,
                                         size_t dlen, const void *payload, size_t plen, int copy,
                                         struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_win_target *t = &w->t[target];
    t->pend_remote++;
    w->npend_remote++;
    rdmach_status_t st = rch_dev_rma_send_qv(w, target, h, desc, dlen, payload, plen, copy, NULL, RMA_RQ_LOCAL, c);
    if (st != RDMACH_OK) {
        t->pend_remote--;
        w->npend_remote--;
    }
    return st;
}

static rdmach_status_t am_put(struct rch_dev_win *w, int target, const unsigned char *src, size_t len,
                              uint64_t toff, struct rch_dev_rma_cmpl *c)
{
    size_t maxp = rch_dev_rma_max_payload(w, target);
    if (maxp == 0)
        return unreachable(w, target, "put");
    for (size_t off = 0; off < len; off += maxp) {
        size_t n = len - off < maxp ? len - off : maxp;
        struct rch_rma_hdr h;
        rch_dev_rma_hdr(w, &h, RCH_RMA_PUT, n, toff + off);
        rdmach_status_t st = rch_dev_rma_send_acked(w, target, &h, src + off, n, 0, c);
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dev_rma_rsp_op(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                 size_t plen, int copy, void *result, size_t rlen, struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_ireq *r = rch_dev_rma_req(w, target, RMA_RQ_LOCAL | RMA_RQ_REMOTE | RMA_RQ_RSP, c);
    if (r == NULL)
        return RDMACH_ERR_NO_MEMORY;
    r->rq_result = (uint64_t)(uintptr_t)result;
    r->rq_rlen = rlen;
    return rch_dev_rma_rsp_send(w, target, h, payload, plen, copy, r);
}

rdmach_status_t rch_dev_rma_rsp_send(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                     size_t plen, int copy, struct rch_dev_ireq *r)
{
    h->req = rch_dev_ireq_id(r);
    rch_dev_pending_add(&rch_dev.peers[w->t[target].world], r);
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
        rdmach_status_t st = rch_dev_rma_rsp_op(w, target, &h, NULL, 0, 0, dst + off, n, c);
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
    for (size_t off = 0; off < len; off += step) {
        size_t n = len - off < step ? len - off : step;
        struct rch_rma_hdr h;
        rch_dev_rma_hdr(w, &h, result ? RCH_RMA_GACC : RCH_RMA_ACC, n, toff + off);
        h.aop = op->op;
        h.kind = op->kind;
        h.elem = op->elem;
        rdmach_status_t st;
        if (result)
            st = rch_dev_rma_rsp_op(w, target, &h, src + off, n, 0, result + off, n, c);
        else
            st = rch_dev_rma_send_acked(w, target, &h, src + off, n, 0, c);
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
        if (RCH_UNLIKELY(t->mapped == 0) && dyn_check(w, toff, len, "put") != RDMACH_OK)
            return RDMACH_ERR_INVALID_ARG;
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
        if (RCH_UNLIKELY(t->mapped == 0) && dyn_check(w, toff, len, "get") != RDMACH_OK)
            return RDMACH_ERR_INVALID_ARG;
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

rdmach_status_t rch_dev_rma_get_now(struct rch_dev_win *w, int target, void *dst, size_t len, uint64_t toff)
{
    struct rch_dev_win_target *t = &w->t[target];
    if (t->path != RCH_DEV_WIN_RDMA || t->ctrl == NULL)
        return RDMACH_AGAIN;
    struct rch_rdma_rkey kbuf;
    const struct rch_rdma_rkey *key;
    uint64_t raddr;
    rdmach_status_t st = single_copy_where(w, target, toff, len, &raddr, &kbuf, &key, "get");
    if (st != RDMACH_OK || len == 0)
        return st;
    struct rch_dev_rma_cmpl c;
    rch_dev_rma_cmpl_init(&c, NULL);
    return rw_now(w, target, dst, len, raddr, key, 0, &c);
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
        if (t->mapped == 0 && dyn_check(w, toff, len, "accumulate") != RDMACH_OK)
            return RDMACH_ERR_INVALID_ARG;
        rch_dev_rma_apply_acc(t->ctrl, (void *)(t->mapped + (uintptr_t)toff), src, result, len, op->fn, op->elem);
        return RDMACH_OK;
    }
    if (t->path == RCH_DEV_WIN_RDMA && t->ctrl && t->pend_remote == 0) {
        rdmach_status_t st = rmw(w, target, toff, len, src, result, op, NULL);
        if (st != RDMACH_AGAIN)
            return st;
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
        if (t->mapped == 0 && dyn_check(w, toff, elem, "compare-and-swap") != RDMACH_OK)
            return RDMACH_ERR_INVALID_ARG;
        rch_dev_rma_apply_cas(t->ctrl, (void *)(t->mapped + (uintptr_t)toff), cmp, src, result, elem);
        return RDMACH_OK;
    }
    if (t->path == RCH_DEV_WIN_RDMA && t->ctrl && t->pend_remote == 0) {
        rdmach_status_t st = rmw(w, target, toff, elem, src, result, NULL, cmp);
        if (st != RDMACH_AGAIN)
            return st;
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
    return rch_dev_rma_rsp_op(w, target, &h, pl, 2 * elem, 1, result, elem, c);
}
