/*
 * rdmach-sim: node segment data that ranks on another core have read.
 *
 * A rank deposits its data in its row of the node segment, every rank
 * reads what it needs of the rows after the phase's synchronisation, and
 * the row of that parity is written again two phases later (src/coll/
 * nodeseg.h). A line another core has read has left the writer's core
 * (rdmach-sim-probe --segrows, 2 ranks a core each: a deposit into a row the
 * other rank read costs 3 times one into a private buffer, a copy out of
 * my own row just after the other read it 2.5 times the same copy again),
 * so where the engine charges the in-cache rate (copy, gamma) that is
 * short by the cross-core transfer:
 *   - the writer's deposit into data of that parity that other cores and
 *     its own core read since its last deposit there (the lines were
 *     shared: the probe's deposit into a row both ranks read, DEP_X):
 *     the fewer of those bytes at `copy` + dep, less the
 *     deposit's first `free` bytes (at 1 KiB the probe's deposit costs
 *     what a private one does: the core's store queue takes the stores
 *     while their lines come); the bytes only other cores read (the
 *     bcast's root: the probe's DEP_O, a row only the other rank reads) at
 *     `copy` + far, within the same deposit less `free`. The two differ by
 *     machine: on the Zen 5 machine (L1d 48K) DEP_O was 451-751 ns at 32 KiB
 *     against 321-781 for DEP_X and 261-340 private, where far was left 0;
 *     on Zen 4 (AMD EPYC family 25, model 17) 3425-3465 against 3165-3234
 *     and 590-591 (tests/tools/sim/zen4/segrows.txt: far 0.0873);
 *   - a read on the writer's core (the writer's own row, or a core-mate's)
 *     of data other cores read: those bytes at `copy` + own (a copy) or
 *     gamma + red (a reduction).
 * Which bytes another core read is the algorithm's (all of a row in the
 * allreduce and the bcast, one slot per reader in the alltoall); the
 * recorder names the row's writer only, so the counts are bytes of the row
 * and a charge is at most the op's bytes and at most the bytes read from
 * other cores. Reads on the writer's core race with the other cores' reads
 * of the same phase, so they count the more of this phase's reads so far
 * and the previous data's of the parity (the loop's steady state, whatever
 * order the engine runs the ranks in).
 */
#include <stdlib.h>
#include "sim.h"

struct sim_segx {
    int n;
    uint32_t *phase;           /* [n] synchronisations each rank arrived at */
    uint64_t (*cur)[2];        /* [writer][parity] bytes other cores read since its deposit */
    uint64_t (*prev)[2];       /* the same for the parity's data before */
    uint64_t (*home)[2];       /* [writer][parity] bytes read on its own core since its deposit */
};

struct sim_segx *sim_segx_new(int nranks)
{
    struct sim_segx *x = calloc(1, sizeof(*x));
    if (!x)
        return NULL;
    x->n = nranks;
    x->phase = calloc((size_t)nranks, sizeof(*x->phase));
    x->cur = calloc((size_t)nranks, sizeof(*x->cur));
    x->prev = calloc((size_t)nranks, sizeof(*x->prev));
    x->home = calloc((size_t)nranks, sizeof(*x->home));
    if (!x->phase || !x->cur || !x->prev || !x->home) {
        sim_segx_free(x);
        return NULL;
    }
    return x;
}

void sim_segx_free(struct sim_segx *x)
{
    if (!x)
        return;
    free(x->phase);
    free(x->cur);
    free(x->prev);
    free(x->home);
    free(x);
}

void sim_segx_sync(struct sim_segx *x, uint32_t rank)
{
    x->phase[rank]++;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

double sim_segx_ns(struct sim_segx *x, const struct sim_params *p, uint32_t rank, uint32_t a, uint64_t b, int other)
{
    int w = sim_segx_writer(a);
    if (w < 0 || w >= x->n)
        return 0;
    if (a >= SIM_SEG_DEP) {
        /* before the phase's synchronisation: this phase's parity */
        int par = (int)(x->phase[rank] & 1u);
        uint64_t seen = min_u64(x->cur[w][par], x->home[w][par]), fr = (uint64_t)p->segx_free;
        uint64_t far = x->cur[w][par] - seen;   /* read by other cores only */
        x->prev[w][par] = x->cur[w][par];
        x->cur[w][par] = x->home[w][par] = 0;
        if (b <= fr)
            return 0;
        uint64_t d = min_u64(b - fr, seen);
        return (double)d * p->segx_dep + (double)min_u64(b - fr - d, far) * p->segx_far;
    }
    int par = (int)((x->phase[rank] - 1u) & 1u);   /* after it: the phase just synchronised */
    if (other) {
        x->cur[w][par] += b;
        return 0;
    }
    x->home[w][par] += b;
    uint64_t seen = x->cur[w][par] > x->prev[w][par] ? x->cur[w][par] : x->prev[w][par];
    return (double)min_u64(b, seen) * ((a - SIM_SEG_READ) & 1u ? p->segx_red : p->segx_own);
}
