/*
 * Gather(v) linearly: every rank sends its block straight to the root.
 *
 * Idea: the root posts one receive per rank at the block's place in the
 * receive buffer, copies its own block, and waits for all. No data is
 * forwarded, so this is the choice for large blocks and the only algorithm
 * for gatherv (blocks of different sizes at arbitrary displacements).
 *
 * Restrictions: none.
 * Cost: (p - 1) · alpha + (p - 1) · n · beta at the root.
 *
 *   1 ─┐
 *   2 ─┼─→ 0 (root)
 *   3 ─┘
 */
#include "base/base.h"
#include "coll/coll_impl.h"

/* rcounts/rdispls NULL: equal blocks of `bytes` in rank order (gather). */
static rdmach_status_t linear(const struct rch_coll_comm *c, const void *sbuf, size_t sbytes,
                              void *rbuf, size_t bytes, const size_t *rcounts,
                              const size_t *rdispls, int root, int tag)
{
    int p = c->size, rank = c->rank;
    struct rch_coll_batch b;
    rdmach_status_t st;

    if (rank != root)
        return rch_coll_send(c, sbuf, sbytes, root, tag);

    st = rch_coll_batch_init(&b, c, tag, p - 1);
    if (st != RDMACH_OK)
        return st;
    for (int i = 0; i < p && st == RDMACH_OK; i++) {
        size_t len = rcounts ? rcounts[i] : bytes;
        unsigned char *dst = (unsigned char *)rbuf + (rdispls ? rdispls[i] : (size_t)i * bytes);
        if (i != root) {
            st = rch_coll_batch_recv(&b, dst, len, i);
        } else if (sbuf != RCH_COLL_IN_PLACE) {
            if (sbytes != len)
                st = rch_base_err(sbytes > len ? RDMACH_ERR_TRUNCATE : RDMACH_ERR_INVALID_ARG,
                                  "%s: the root sends %zu bytes to itself but expects %zu",
                                  rch_coll_tag_name(tag), sbytes, len);
            else if (len)
                memcpy(dst, sbuf, len);
        }
    }
    if (st == RDMACH_OK)
        st = rch_coll_batch_wait(&b);
    rch_coll_batch_free(&b);
    return st;
}

static rdmach_status_t gather_linear(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return linear(c, a->sbuf, a->bytes, a->rbuf, a->bytes, NULL, NULL, a->root, RCH_COLL_TAG_GATHER);
}

static rdmach_status_t gatherv_linear(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return linear(c, a->sbuf, a->bytes, a->rbuf, 0, a->rcounts, a->rdispls, a->root,
                  RCH_COLL_TAG_GATHERV);
}

const struct rch_coll_algo rch_coll_gather_linear = {
    .name = "linear",
    .applies = rch_coll_always,
    .run = gather_linear,
};

const struct rch_coll_algo rch_coll_gatherv_linear = {
    .name = "linear",
    .applies = rch_coll_always,
    .run = gatherv_linear,
};
