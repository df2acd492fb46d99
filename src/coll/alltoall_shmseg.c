/*
 * Alltoall through the node's shared segment ("shmseg").
 *
 * Idea: within a node no message is needed. Every rank copies its send
 * row (its p - 1 blocks for the others) into its row of the node segment,
 * arrives at ONE node-wide synchronisation, then copies its column (block
 * `me` of every other rank's row) out. The data area is double-buffered by
 * phase parity (nodeseg.h), so the next call needs no second
 * synchronisation to know that everybody has read this one. On a node with
 * more ranks than cores that is what counts: one wake-up per rank and call,
 * where point-to-point algorithms risk a sleep and a wake-up per message.
 * Blocks larger than a slot (the segment's bytes per rank pair) are cut in
 * chunks: the first a slot, the rest, where the node segment's large area
 * can be made, a p-th of a large row each (about 50 KiB at 4 ranks, 14 KiB
 * at 8, where a slot is at most 16 KiB), one phase per chunk; in place works because a phase reads
 * the chunk of every send block into the segment before it writes the same
 * chunk of the receive blocks.
 *
 * Restrictions: every rank of the communicator on one node, a communicator
 * with collective state (where the segment lives); alltoall only (the v
 * variants' block sizes are not known to every rank). The tuning table
 * selects it for small blocks; forced, it runs any size.
 * Cost: one synchronisation (each rank's header line read by every rank; when
 * oversubscribed a hand-off per rank sharing a core, a wake-up per sleeping
 * rank) + 2 (p - 1) · n copies per rank, per slot of n.
 *
 * A row of at most 32 bytes (8-byte blocks up to 4 ranks) travels in the
 * rank's header line, the line the others wait on, so it costs no extra
 * cache-line transfer.
 *
 *   p = 3, rank 1:   seg.row[1] = [s10 s11 s12] ─ sync ─ r10 = row[0][1]
 *                                                         r12 = row[2][1]
 *                    (r11 = s11 copied directly)
 */
#include "base/base.h"
#include "coll/coll_impl.h"
#include "coll/nodeseg.h"

static rdmach_status_t alltoall_shmseg(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    int p = c->size, me = c->rank, in_place = a->sbuf == RCH_COLL_IN_PLACE;
    size_t n = a->bytes;
    unsigned char *rbuf = a->rbuf;
    const unsigned char *sbuf = in_place ? rbuf : a->sbuf;
    struct rch_coll_nodeseg *s;

    if (!in_place && n)
        memcpy(rbuf + (size_t)me * n, sbuf + (size_t)me * n, n);
    if (p == 1)
        return RDMACH_OK;
    rdmach_status_t st = rch_coll_nodeseg_get(c, &s);
    if (st != RDMACH_OK)
        return st;
    if (!s)    /* the segment could not be made (agreed): the point-to-point way */
        return rch_coll_alltoall_linear.run(c, a);

    size_t slot = s->slot, off = 0;
    int big = 0, phases = 0;
    /* a small row travels in the header line (the same choice on every
     * rank: n is, or the first phase's check fails before anything is read) */
    int inl = n <= slot && (size_t)p * n <= RCH_NODESEG_INLINE;
    for (int first = 1; first || off < n; first = 0) {   /* a 0-byte call still checks sizes */
        size_t len = n - off < slot ? n - off : slot;
        phases++;
        int b = rch_coll_nodeseg_parity(s);
        struct rch_coll_nodeseg_hdr *h = rch_coll_nodeseg_hdr(s, b, me);
        h->coll = RCH_COLL_ALLTOALL;
        h->elem = 0;
        h->size = n;
        size_t stride = inl ? n : slot;
        unsigned char *row = inl   ? h->inl
                             : big ? rch_coll_nodeseg_arow(s, b, me)
                                   : rch_coll_nodeseg_row(s, b, me);
        for (int q = 0; q < p; q++)
            if (q != me)
                rch_coll_nodeseg_copy(s, row + (size_t)q * stride, sbuf + (size_t)q * n + off, len);
        st = rch_coll_nodeseg_sync(s);
        if (st == RDMACH_OK && first)
            st = rch_coll_nodeseg_check(s, b, "alltoall");
        if (st != RDMACH_OK)
            return st;
        for (int q = 0; q < p; q++) {
            if (q == me)
                continue;
            const unsigned char *from = inl   ? rch_coll_nodeseg_hdr(s, b, q)->inl
                                        : big ? rch_coll_nodeseg_arow(s, b, q)
                                              : rch_coll_nodeseg_row(s, b, q);
            rch_coll_nodeseg_copy(s, rbuf + (size_t)q * n + off, from + (size_t)me * stride, len);
        }
        off += len;
        /* More to go after the first phase, whose check made every rank
         * agree on n: the large area's rows (p sub-slots each, the whole
         * stride between them, nodeseg.h) take chunks
         * several times a slot, so the rest needs fewer phases. Whether the
         * area exists is agreed too (a collective call, made by every rank
         * at the same point). */
        if (first && off < n) {
            st = rch_coll_nodeseg_big(c, s, &big);
            if (st != RDMACH_OK)
                return st;
            if (big)
                slot = s->astride / (size_t)p / RCH_CACHELINE * RCH_CACHELINE;
        }
    }
    /* With an even number of phases every call of this size writes its
     * large rows in the same parity, whose lines the other ranks read in
     * the call before: the writes wait to take them back from the other
     * cores' caches. One empty phase more alternates the parity between
     * calls, which pays once the node's large rows of a call hold
     * RCH_NODESEG_FLIP_MIN bytes (AMD EPYC Zen 4, 2 cores, the larger rows
     * without and with it: 4 ranks of 64 KiB blocks 46.9 -> 35.1 us, 6
     * ranks of 32 KiB 54.7 -> 43.6, 8 ranks of 16 KiB 54.4 -> 46.4; below
     * the bound it cost more than it saved: 3 ranks of 64 KiB, 300 KiB of
     * rows, 31.0 -> 33.3; 4 ranks of 16 KiB 15.2 -> 17.1). */
    if (big && phases % 2 == 0 && (size_t)p * (size_t)(p - 1) * (n - s->slot) >= RCH_NODESEG_FLIP_MIN)
        st = rch_coll_nodeseg_sync(s);
    return st;
}

const struct rch_coll_algo rch_coll_alltoall_shmseg = {
    .name = "shmseg",
    .applies = rch_coll_shmseg_applies,
    .run = alltoall_shmseg,
    .nodeseg = 1,
};
