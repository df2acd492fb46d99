/*
 * Broadcast within a node through the node segment's large area.
 *
 * Idea: the root writes a chunk of the buffer into the whole large area of
 * the phase's parity ((p + 1) rows, about 1 MiB), arrives at the phase's
 * synchronisation, and every other rank copies the chunk out; the next
 * chunk goes to the other parity, so one synchronisation per chunk
 * suffices (nodeseg.h).
 *
 *   phase k:  root: area[k % 2] = chunk k   ─ sync k ─   others: copy area[k % 2] out
 *
 * Restrictions: one node (every rank of the communicator), collective
 * state for the segment. Cost per chunk of n bytes: t_sync + n β at the
 * root + n β at every other rank (in parallel), against lg p rounds of a
 * rendezvous for the binomial tree.
 */
#include <string.h>
#include "base/base.h"
#include "coll/coll_impl.h"
#include "coll/nodeseg.h"

static rdmach_status_t bcast_shmseg(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    int p = c->size, me = c->rank;
    unsigned char *buf = a->rbuf;
    struct rch_coll_nodeseg *s;
    if (p == 1)
        return RDMACH_OK;
    rdmach_status_t st = rch_coll_nodeseg_big_get(c, &s);
    if (st != RDMACH_OK)
        return st;
    if (!s)
        return rch_coll_bcast_binomial.run(c, a);

    size_t chunk = (size_t)(p + 1) * s->arow, bytes = a->bytes;
    size_t chunks = bytes ? (bytes + chunk - 1) / chunk : 1;    /* a 0-byte call still checks */
    for (size_t k = 0; k < chunks; k++) {
        int b = rch_coll_nodeseg_parity(s);
        size_t first = k * chunk, n = bytes - first < chunk ? bytes - first : chunk;
        if (me == a->root && n)
            rch_coll_nodeseg_copy(s, rch_coll_nodeseg_arow(s, b, 0), buf + first, n);
        st = rch_coll_nodeseg_phase(s, RCH_COLL_BCAST, 0, bytes, k == 0, "bcast");
        if (st != RDMACH_OK)
            return st;
        if (me != a->root && n)
            rch_coll_nodeseg_copy(s, buf + first, rch_coll_nodeseg_arow(s, b, 0), n);
    }
    return RDMACH_OK;
}

const struct rch_coll_algo rch_coll_bcast_shmseg = {
    .name = "shmseg",
    .applies = rch_coll_shmseg_applies,
    .run = bcast_shmseg,
    .nodeseg = 1,
};
