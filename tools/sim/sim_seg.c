/*
 * rdmach-sim's node segment: the shmseg and shmrsag algorithms of src/coll
 * (nodeseg.h) recorded as programs. The view gets a communicator state whose
 * segment carries a recorder, so the library's own algorithm runs for one
 * rank at a time against it: each copy into the segment becomes a COMPUTE
 * op of its bytes (beta ns each), each copy out of it one of the bytes moved
 * from the core that wrote them (SIM_COMPUTE 3), each synchronisation a SEGSYNC op,
 * and the reductions go through the recording reduction as everywhere else.
 * The segment's memory is real (the algorithms write their headers and
 * compute row addresses) but no data is moved: copies are only recorded.
 */
#include <stdlib.h>
#include "coll/coll_impl.h"
#include "coll/nbc_impl.h"
#include "coll/nodeseg.h"
#include "sim.h"

static void *mem;                      /* the segment's areas, for a node of seg.p ranks */
static size_t mem_len;

static void rec_copy(const void *dst, const void *src, size_t bytes)
{
    const unsigned char *s = src, *m = mem;
    (void)dst;
    sim_rec_op(SIM_COMPUTE, s >= m && s < m + mem_len ? 3 : 2, bytes);
}

static void rec_sync(void)
{
    sim_rec_op(SIM_SEGSYNC, 0, 0);
}

static const struct rch_coll_nodeseg_rec recorder = { rec_copy, rec_sync };
static struct rch_coll_cstate state;
static struct rch_coll_nodeseg seg;

int sim_seg_attach(struct rch_coll_comm *c)
{
    int p = c->size;
    if (!mem || seg.p != p) {
        size_t slot = rch_coll_nodeseg_slot(p), row = (size_t)p * slot, arow = rch_coll_nodeseg_arow_size(p);
        size_t hdr = 2 * (size_t)p * sizeof(struct rch_coll_nodeseg_hdr), data = 2 * (size_t)p * row;
        free(mem);
        /* calloc: pages the recording never touches (the rows) stay unmapped */
        mem_len = hdr + data + 2 * (size_t)(p + 1) * arow + RCH_CACHELINE;
        mem = calloc(1, mem_len);
        if (!mem)
            return -1;
        unsigned char *base = (unsigned char *)(((uintptr_t)mem + RCH_CACHELINE - 1) & ~(uintptr_t)(RCH_CACHELINE - 1));
        seg = (struct rch_coll_nodeseg){ .rec = &recorder, .p = p, .slot = slot, .row = row, .big_state = 1,
                                         .arow = arow, .hdr = (struct rch_coll_nodeseg_hdr *)base,
                                         .data = base + hdr, .big = base + hdr + data };
    }
    seg.me = c->rank;
    seg.phase = 0;                     /* every rank's recording starts at the same phase */
    state.nodeseg = &seg;
    c->state = &state;
    return 0;
}
