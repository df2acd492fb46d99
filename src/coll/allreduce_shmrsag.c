/*
 * Allreduce of medium and large vectors through the node segment's large
 * area: reduce-scatter then allgather, pipelined one chunk per phase.
 *
 * Every rank deposits a chunk of its vector in its deposit row; after the
 * phase's synchronisation rank i reduces slice i of the chunk over all p
 * rows (in rank order, r = v0 op (v1 op (... op v(p-1))): the same bits on
 * every rank, non-commutative operations fine) into the result row of the
 * other parity, and copies the previous chunk's result row to its receive
 * buffer. So chunk k is deposited in phase k, reduced after sync k, and
 * read by everyone after sync k + 1, while chunk k + 1 is reduced:
 *
 *   phase k (parity b = k % 2):
 *     deposit[b][me]  = chunk k of my vector
 *     ── sync k ──
 *     result[!b] slice me = reduce over r of deposit[b][r] slice me   (chunk k)
 *     rbuf chunk k-1      = result[b]                                 (all slices)
 *     deposit[!b][me] = chunk k + 1 ...
 *
 * Buffers of parity b are written after sync k and read before sync k + 1
 * is passed by everyone, so one synchronisation per phase suffices (the
 * nodeseg.h argument); a vector of c chunks costs c + 1 of them.
 * In place works: chunk k - 1 of the buffer is overwritten after chunks up
 * to k were deposited, and chunk k + 1 is a different range.
 *
 * Cost per rank and chunk of n bytes: n (deposit) + n (read p slices of
 * n/p) + n/p (result) + n (copy out), against p · n reads for shmseg, which
 * every rank reduces whole: that one wins for small vectors (one
 * synchronisation), this one from a few KiB (the tuning table's rows).
 */
#include <string.h>
#include "base/base.h"
#include "coll/coll_impl.h"
#include "coll/nodeseg.h"

static int shmrsag_applies(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    if (c->size == 1)
        return 1;
    /* an element fits a large row (at least a small row: nodeseg_big) */
    return rch_coll_nodeseg_usable(c) &&
           a->op->elem_size <= (size_t)c->size * rch_coll_nodeseg_slot(c->size);
}

/* Slice `i` of a chunk of n elements: whole elements, the first n % p
 * slices one longer. */
static void slice(size_t n, int p, int i, size_t *first, size_t *len)
{
    size_t base = n / (size_t)p, rem = n % (size_t)p, ui = (size_t)i;
    *first = ui * base + (ui < rem ? ui : rem);
    *len = base + (ui < rem);
}

static rdmach_status_t allreduce_shmrsag(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    const struct rch_coll_op *op = a->op;
    int p = c->size, me = c->rank;
    size_t es = op->elem_size, count = a->count;
    unsigned char *rbuf = a->rbuf;
    const unsigned char *sbuf = a->sbuf == RCH_COLL_IN_PLACE ? rbuf : a->sbuf;
    struct rch_coll_nodeseg *s;

    if (p == 1) {
        rch_coll_allreduce_copy(a);
        return RDMACH_OK;
    }
    rdmach_status_t st = rch_coll_nodeseg_big_get(c, &s);
    if (st != RDMACH_OK)
        return st;
    if (!s)    /* no segment (agreed): the message-based way */
        return rch_coll_allreduce_recdbl.run(c, a);

    size_t chunk = s->arow / es;                                /* elements per phase */
    size_t chunks = count ? (count + chunk - 1) / chunk : 1;   /* a 0-count call still checks */
    for (size_t k = 0; k <= chunks; k++) {
        int b = rch_coll_nodeseg_parity(s);
        if (k < chunks) {
            size_t first = k * chunk, n = count - first < chunk ? count - first : chunk;
            if (n)
                rch_coll_nodeseg_copy(s, rch_coll_nodeseg_arow(s, b, me), sbuf + first * es, n * es);
        }
        st = rch_coll_nodeseg_phase(s, RCH_COLL_ALLREDUCE, (uint32_t)es, count, k == 0, "allreduce");
        if (st != RDMACH_OK)
            return st;
        if (k < chunks) {     /* reduce my slice of chunk k into the other parity's result row */
            size_t first = k * chunk, n = count - first < chunk ? count - first : chunk;
            size_t off, len;
            slice(n, p, me, &off, &len);
            if (len) {
                rch_coll_nodeseg_reduce_rows(s, b, off * es, len, rch_coll_nodeseg_arow(s, !b, p) + off * es, op);
            }
        }
        if (k > 0) {          /* chunk k - 1 is reduced (its result row has parity b) */
            size_t first = (k - 1) * chunk, n = count - first < chunk ? count - first : chunk;
            if (n)
                rch_coll_nodeseg_copy(s, rbuf + first * es, rch_coll_nodeseg_arow(s, b, p), n * es);
        }
    }
    return RDMACH_OK;
}

const struct rch_coll_algo rch_coll_allreduce_shmrsag = {
    .name = "shmrsag",
    .applies = shmrsag_applies,
    .run = allreduce_shmrsag,
    .nodeseg = 1,
};
