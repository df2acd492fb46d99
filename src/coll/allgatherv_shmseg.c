/*
 * Allgatherv within a node through the node segment's large area.
 *
 * Idea: allgather_shmseg.c's, with a length per rank. In each phase every
 * rank writes the next chunk of its block, if any is left, into its row of
 * the phase's parity, arrives at the synchronisation, and copies the chunk
 * of every row that still has one to that rank's place in its receive
 * buffer. The number of phases is the longest block's chunks (at least
 * one); every rank knows every length (MPI gives each the same counts), so
 * all take the same phases without a message.
 *
 *   phase k:  row[k % 2][me] = chunk k of my block (if any)   ─ sync k ─
 *             for every r with a chunk k: rbuf + displs[r] chunk k = row[k % 2][r]
 *
 * Why: the ring takes p - 1 message rounds, each needing the partner on a
 * core; on an oversubscribed node that is a hand-off per round (OSU at 4
 * ranks on 2 cores, 8 B: 1.85 times Open MPI). Here it is one hand-off per
 * rank and phase. Chosen by measuring against the ring (coll_adapt.c).
 *
 * Restrictions: one node, collective state for the segment. Cost per phase
 * with chunks of n bytes: t_sync + n β (deposit) + Σ n_r β (copy out).
 */
#include <string.h>
#include "base/base.h"
#include "coll/coll_impl.h"
#include "coll/nodeseg.h"

static rdmach_status_t allgatherv_shmseg(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    int p = c->size, me = c->rank;
    const size_t *len = a->rcounts, *at = a->rdispls;
    unsigned char *rbuf = a->rbuf;
    int in_place = a->sbuf == RCH_COLL_IN_PLACE;
    const unsigned char *mine = in_place ? rbuf + at[me] : a->sbuf;
    struct rch_coll_nodeseg *s;
    if (p == 1) {
        if (!in_place && len[0])
            memmove(rbuf + at[0], a->sbuf, len[0]);
        return RDMACH_OK;
    }
    rdmach_status_t st = rch_coll_nodeseg_big_get(c, &s);
    if (st != RDMACH_OK)
        return st;
    if (!s)
        return rch_coll_allgatherv_ring.run(c, a);

    size_t chunk = s->arow, longest = 0, total = 0;
    for (int r = 0; r < p; r++) {
        longest = len[r] > longest ? len[r] : longest;
        total += len[r];
    }
    size_t chunks = longest ? (longest + chunk - 1) / chunk : 1;    /* a 0-byte call still checks */
    for (size_t k = 0; k < chunks; k++) {
        int b = rch_coll_nodeseg_parity(s);
        size_t first = k * chunk;
        if (len[me] > first)
            rch_coll_nodeseg_copy(s, rch_coll_nodeseg_arow(s, b, me), mine + first,
                                  len[me] - first < chunk ? len[me] - first : chunk);
        /* the first phase compares every rank's total: counts that differ
         * between ranks are an error there, as a block size is for allgather */
        st = rch_coll_nodeseg_phase(s, RCH_COLL_ALLGATHERV, 0, total, k == 0, "allgatherv");
        if (st != RDMACH_OK)
            return st;
        for (int r = 0; r < p; r++)
            if (len[r] > first && (r != me || !in_place))
                rch_coll_nodeseg_copy(s, rbuf + at[r] + first, rch_coll_nodeseg_arow(s, b, r),
                                      len[r] - first < chunk ? len[r] - first : chunk);
    }
    return RDMACH_OK;
}

const struct rch_coll_algo rch_coll_allgatherv_shmseg = {
    .name = "shmseg",
    .applies = rch_coll_shmseg_applies,
    .run = allgatherv_shmseg,
    .nodeseg = 1,
};
