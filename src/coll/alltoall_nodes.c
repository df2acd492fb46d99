/*
 * Helpers of the alltoall algorithms (alltoall_impl.h): the call's two sides,
 * its temporaries, the in-place copy, the self block, the node map and
 * mismatch reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include "base/base.h"
#include "coll/alltoall_impl.h"

/*
 * The scratch cache: one block per process that a call's temporaries are
 * carved from. What does not fit is malloc'ed for the call (a spill) and the
 * cache is then regrown to the call's total, up to SCRATCH_MAX, so that the
 * next call of that size allocates nothing (STYLE: no allocation on the
 * fast path; fresh pages would also cost page faults on every call, here
 * and in the peer that reads them by single-copy).
 *
 * Ownership: the call that sets `cache_busy` (atomically) owns `cache` and
 * `cache_cap` until its fini clears it; any call meanwhile (a nested one, or
 * another thread: the tests run ranks as threads of one process) spills.
 */
#define SCRATCH_MAX ((size_t)64 << 20)
#define SCRATCH_ALIGN ((size_t)64)

struct rch_coll_a2a_spill {
    struct rch_coll_a2a_spill *next;
    unsigned char pad[SCRATCH_ALIGN - sizeof(void *)];   /* keeps the payload aligned */
};
_Static_assert(sizeof(struct rch_coll_a2a_spill) == SCRATCH_ALIGN, "spill header size");

static unsigned char *cache;
static size_t cache_cap;
static int cache_busy;

void rch_coll_a2a_init(struct rch_coll_a2a *x, const struct rch_coll_comm *c,
                       const struct rch_coll_args *a, int v)
{
    x->c = c;
    x->v = v;
    x->tag = v ? RCH_COLL_TAG_ALLTOALLV : RCH_COLL_TAG_ALLTOALL;
    x->in_place = a->sbuf == RCH_COLL_IN_PLACE;
    x->recv = (struct rch_coll_a2a_side){ a->rbuf, v ? a->rcounts : NULL, v ? a->rdispls : NULL,
                                          v ? 0 : a->bytes };
    if (x->in_place)
        x->send = x->recv;
    else
        x->send = (struct rch_coll_a2a_side){ (unsigned char *)a->sbuf, v ? a->scounts : NULL,
                                              v ? a->sdispls : NULL, v ? 0 : a->bytes };
    x->owns_cache = __atomic_exchange_n(&cache_busy, 1, __ATOMIC_ACQUIRE) == 0;
    x->used = x->want = 0;
    x->spill = NULL;
}

rdmach_status_t rch_coll_a2a_tmp(struct rch_coll_a2a *x, void *out, size_t bytes)
{
    void **res = out;
    size_t len = (bytes + SCRATCH_ALIGN - 1) & ~(SCRATCH_ALIGN - 1);
    *res = NULL;
    if (bytes == 0)
        return RDMACH_OK;
    if (len < bytes || x->want + len < x->want)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: a %zu-byte temporary is too large",
                            rch_coll_tag_name(x->tag), bytes);
    x->want += len;
    if (x->owns_cache && x->used + len <= cache_cap) {
        *res = cache + x->used;
        x->used += len;
        return RDMACH_OK;
    }
    struct rch_coll_a2a_spill *s = NULL;
    if (len + sizeof(*s) > len)
        s = aligned_alloc(SCRATCH_ALIGN, len + sizeof(*s));
    if (!s)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no memory for a %zu-byte temporary",
                            rch_coll_tag_name(x->tag), bytes);
    s->next = x->spill;
    x->spill = s;
    *res = s + 1;
    return RDMACH_OK;
}

void rch_coll_a2a_fini(struct rch_coll_a2a *x)
{
    while (x->spill) {
        struct rch_coll_a2a_spill *s = x->spill;
        x->spill = s->next;
        free(s);
    }
    if (!x->owns_cache)
        return;
    if (x->want > cache_cap && x->want <= SCRATCH_MAX) {
        unsigned char *bigger = aligned_alloc(SCRATCH_ALIGN, x->want);
        if (bigger) {          /* otherwise keep the old one: next time spills again */
            free(cache);
            cache = bigger;
            cache_cap = x->want;
        }
    }
    x->owns_cache = 0;
    __atomic_store_n(&cache_busy, 0, __ATOMIC_RELEASE);
}

rdmach_status_t rch_coll_a2a_copy_send(struct rch_coll_a2a *x)
{
    size_t span = 0;
    unsigned char *copy;
    if (!x->in_place)
        return RDMACH_OK;
    for (int q = 0; q < x->c->size; q++) {
        size_t len = rch_coll_a2a_len(&x->send, q);
        size_t end = (size_t)(rch_coll_a2a_ptr(&x->send, q) - x->send.base) + len;
        if (len && end > span)
            span = end;
    }
    rdmach_status_t st = rch_coll_a2a_tmp(x, &copy, span);
    if (st != RDMACH_OK)
        return st;
    if (span)
        memcpy(copy, x->send.base, span);
    x->send.base = copy;
    x->in_place = 0;           /* the send blocks no longer live in the receive buffer */
    return RDMACH_OK;
}

rdmach_status_t rch_coll_a2a_mismatch(const struct rch_coll_a2a *x, int src, int dst, size_t sent,
                                      size_t expected)
{
    return rch_base_err(sent > expected ? RDMACH_ERR_TRUNCATE : RDMACH_ERR_INVALID_ARG,
                        "%s: rank %d sends %zu bytes to rank %d, which expects %zu "
                        "(counts or datatypes differ between ranks)",
                        rch_coll_tag_name(x->tag), src, sent, dst, expected);
}

rdmach_status_t rch_coll_a2a_copy_self(const struct rch_coll_a2a *x)
{
    int me = x->c->rank;
    size_t s = rch_coll_a2a_len(&x->send, me), r = rch_coll_a2a_len(&x->recv, me);
    if (s != r)
        return rch_coll_a2a_mismatch(x, me, me, s, r);
    if (s && rch_coll_a2a_ptr(&x->send, me) != rch_coll_a2a_ptr(&x->recv, me))
        memmove(rch_coll_a2a_ptr(&x->recv, me), rch_coll_a2a_ptr(&x->send, me), s);
    return RDMACH_OK;
}

/* ---- node map ---- */

rdmach_status_t rch_coll_a2a_nodes_init(struct rch_coll_a2a_nodes *n, struct rch_coll_a2a *x)
{
    const struct rch_coll_comm *c = x->c;
    int p = c->size, raw_max = c->node_of && c->nnodes > 0 ? c->nnodes : 1;
    /* count, first, consecutive, dense [raw_max each]; ranks, node_of, local_of [p each] */
    int *mem;
    rdmach_status_t st = rch_coll_a2a_tmp(x, &mem, (4 * (size_t)raw_max + 3 * (size_t)p) *
                                                   sizeof(int));
    if (st != RDMACH_OK)
        return st;
    n->count = mem;
    n->first = mem + raw_max;
    n->consecutive = mem + 2 * raw_max;
    int *dense = mem + 3 * raw_max;
    n->ranks = mem + 4 * raw_max;
    n->node_of = n->ranks + p;
    n->local_of = n->node_of + p;
    for (int i = 0; i < raw_max; i++) {
        dense[i] = -1;
        n->count[i] = n->first[i] = 0;
    }

    /* dense node numbers in order of each node's lowest rank */
    int nn = 0;
    for (int r = 0; r < p; r++) {
        int raw = c->node_of && c->nnodes > 0 ? c->node_of[r] : 0;
        if (raw < 0 || raw >= raw_max)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: invalid communicator view: rank %d "
                                "is on node %d of %d", rch_coll_tag_name(x->tag), r, raw, raw_max);
        if (dense[raw] < 0)
            dense[raw] = nn++;
        n->node_of[r] = dense[raw];
        n->local_of[r] = n->count[dense[raw]]++;
    }
    n->nnodes = nn;
    for (int k = 1; k < nn; k++)
        n->first[k] = n->first[k - 1] + n->count[k - 1];
    for (int r = 0; r < p; r++)
        n->ranks[n->first[n->node_of[r]] + n->local_of[r]] = r;
    for (int k = 0; k < nn; k++) {
        int r0 = n->ranks[n->first[k]];
        n->consecutive[k] = 1;
        for (int l = 1; l < n->count[k]; l++)
            if (n->ranks[n->first[k] + l] != r0 + l)
                n->consecutive[k] = 0;
    }
    n->node = n->node_of[c->rank];
    n->local = n->local_of[c->rank];
    return RDMACH_OK;
}
