/*
 * Allgather within a node through the node segment's large area.
 *
 * Idea: in each phase every rank writes the next chunk of its block into
 * its row of the phase's parity, arrives at the synchronisation, and copies
 * the chunk of every row into its receive buffer; the next phase uses the
 * other parity, so one synchronisation per chunk suffices (nodeseg.h).
 *
 *   phase k:  row[k % 2][me] = chunk k of my block   ─ sync k ─
 *             for every r: rbuf[r] chunk k = row[k % 2][r]
 *
 * Restrictions: one node, collective state for the segment. Cost per chunk
 * of n bytes of a block: t_sync + n β (deposit) + p n β (copy out), against
 * lg p or p - 1 message rounds.
 */
#include <string.h>
#include "base/base.h"
#include "coll/coll_impl.h"
#include "coll/nodeseg.h"

static rdmach_status_t allgather_shmseg(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    int p = c->size, me = c->rank;
    size_t bytes = a->bytes;
    unsigned char *rbuf = a->rbuf;
    const unsigned char *mine = a->sbuf == RCH_COLL_IN_PLACE ? rbuf + (size_t)me * bytes : a->sbuf;
    struct rch_coll_nodeseg *s;
    if (p == 1) {
        if (a->sbuf != RCH_COLL_IN_PLACE && bytes)
            memcpy(rbuf, a->sbuf, bytes);
        return RDMACH_OK;
    }
    rdmach_status_t st = rch_coll_nodeseg_big_get(c, &s);
    if (st != RDMACH_OK)
        return st;
    if (!s)
        return rch_coll_allgather_ring.run(c, a);

    size_t chunk = s->arow;
    size_t chunks = bytes ? (bytes + chunk - 1) / chunk : 1;    /* a 0-byte call still checks */
    for (size_t k = 0; k < chunks; k++) {
        int b = rch_coll_nodeseg_parity(s);
        size_t first = k * chunk, n = bytes - first < chunk ? bytes - first : chunk;
        if (n)
            rch_coll_nodeseg_copy(s, rch_coll_nodeseg_arow(s, b, me), mine + first, n);
        st = rch_coll_nodeseg_phase(s, RCH_COLL_ALLGATHER, 0, bytes, k == 0, "allgather");
        if (st != RDMACH_OK)
            return st;
        for (int r = 0; r < p && n; r++)
            if (r != me || a->sbuf != RCH_COLL_IN_PLACE)
                rch_coll_nodeseg_copy(s, rbuf + (size_t)r * bytes + first, rch_coll_nodeseg_arow(s, b, r), n);
    }
    return RDMACH_OK;
}

const struct rch_coll_algo rch_coll_allgather_shmseg = {
    .name = "shmseg",
    .applies = rch_coll_shmseg_applies,
    .run = allgather_shmseg,
    .nodeseg = 1,
};
