/*
 * Scatter(v) linearly: the root sends every rank its block directly.
 *
 * Idea: the root posts one send per rank from the block's place in its send
 * buffer, copies its own block, and waits for all. No data is forwarded, so
 * this is the choice for large blocks and the only algorithm for scatterv.
 *
 * Restrictions: none.
 * Cost: (p - 1) · alpha + (p - 1) · n · beta at the root.
 *
 *        ┌─→ 1
 *   0 ───┼─→ 2
 *        └─→ 3
 */
#include "base/base.h"
#include "coll/coll_impl.h"

/* scounts/sdispls NULL: equal blocks of `bytes` in rank order (scatter). */
static rdmach_status_t linear(const struct rch_coll_comm *c, const void *sbuf, size_t bytes,
                              const size_t *scounts, const size_t *sdispls, void *rbuf,
                              size_t rbytes, int root, int tag)
{
    int p = c->size, rank = c->rank;
    struct rch_coll_batch b;
    rdmach_status_t st;

    if (rank != root)
        return rch_coll_recv(c, rbuf, rbytes, root, tag);

    st = rch_coll_batch_init(&b, c, tag, p - 1);
    if (st != RDMACH_OK)
        return st;
    for (int i = 0; i < p && st == RDMACH_OK; i++) {
        size_t len = scounts ? scounts[i] : bytes;
        const unsigned char *src =
            (const unsigned char *)sbuf + (sdispls ? sdispls[i] : (size_t)i * bytes);
        if (i != root) {
            st = rch_coll_batch_send(&b, src, len, i);
        } else if (rbuf != RCH_COLL_IN_PLACE) {
            if (len != rbytes)
                st = rch_base_err(len > rbytes ? RDMACH_ERR_TRUNCATE : RDMACH_ERR_INVALID_ARG,
                                  "%s: the root sends %zu bytes to itself but expects %zu",
                                  rch_coll_tag_name(tag), len, rbytes);
            else if (len)
                memcpy(rbuf, src, len);
        }
    }
    if (st == RDMACH_OK)
        st = rch_coll_batch_wait(&b);
    rch_coll_batch_free(&b);
    return st;
}

static rdmach_status_t scatter_linear(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return linear(c, a->sbuf, a->bytes, NULL, NULL, a->rbuf, a->bytes, a->root, RCH_COLL_TAG_SCATTER);
}

static rdmach_status_t scatterv_linear(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return linear(c, a->sbuf, 0, a->scounts, a->sdispls, a->rbuf, a->bytes, a->root,
                  RCH_COLL_TAG_SCATTERV);
}

const struct rch_coll_algo rch_coll_scatter_linear = {
    .name = "linear",
    .applies = rch_coll_always,
    .run = scatter_linear,
};

const struct rch_coll_algo rch_coll_scatterv_linear = {
    .name = "linear",
    .applies = rch_coll_always,
    .run = scatterv_linear,
};
