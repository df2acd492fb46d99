/*
 * Ibarrier: dissemination as a schedule.
 *
 * Idea: as the blocking dissemination barrier (barrier_dissemination.c),
 * one round per distance 2^k: signal rank + 2^k, hear from rank - 2^k.
 * The blocking barrier's backends (shared memory, hardware) are not used:
 * a non-blocking barrier must let the caller compute while it is pending,
 * and its completion is found by the progress engine, which only sees
 * messages.
 *
 * Restrictions: none. Cost: ceil(lg p) rounds of zero-byte messages.
 *
 *   round 0: 0→1 1→2 2→0     round 1: 0→2 1→0 2→1     (p = 3)
 */
#include "coll/nbc_impl.h"

rdmach_status_t rch_coll_ibarrier(const struct rch_coll_comm *c, struct rch_dev_req *req)
{
    static char token;
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, "ibarrier", NULL, &s);
    if (st != RDMACH_OK)
        return st;
    int p = c->size;
    for (int k = 1; k < p && st == RDMACH_OK; k <<= 1) {
        /* both ends of a round may be the same rank (p = 2): one token each way */
        if ((st = rch_nbc_recv(s, &token, 0, (c->rank - k + p) % p, 0)) == RDMACH_OK &&
            (st = rch_nbc_send(s, &token, 0, (c->rank + k) % p, 0)) == RDMACH_OK)
            st = rch_nbc_round(s);
    }
    if (st != RDMACH_OK) {
        rch_nbc_free(s);
        return st;
    }
    return rch_nbc_start(s, req);
}
