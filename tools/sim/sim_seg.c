/*
 * rdmach-sim's node segment: the shmseg and shmrsag algorithms of src/coll
 * (nodeseg.h) recorded as programs. The view gets a communicator state whose
 * segment carries a recorder, so the library's own algorithm runs for one
 * rank at a time against it: each copy into the segment becomes a COMPUTE
 * op of its bytes (beta ns each; SIM_SEG_DEP + w where it overwrites rank
 * w's data), each copy out of it one of the bytes
 * another rank wrote, naming that rank (SIM_SEG_READ + 2w; SIM_COMPUTE 3
 * where no one rank wrote them), so that the engine charges what crosses
 * cores, each synchronisation a SEGSYNC op, and the reductions go through
 * the recording reduction as everywhere else, which names the rank whose
 * row it reads the same way (SIM_SEG_READ + 2w + 1).
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

static struct rch_coll_nodeseg seg;

/* The rank that wrote the segment's bytes at a: the owner of the row, the
 * header line or the large area's deposit row it lies in; -1 outside the
 * segment, -2 in it but of no one rank (the large area's result row, which
 * each rank writes a slice of). */
static int writer_of(const void *a)
{
    const unsigned char *x = a, *m = mem;
    if (!m || x < m || x >= m + mem_len)
        return -1;
    for (int b = 0; b < 2; b++)
        for (int r = 0; r < seg.p; r++) {
            const unsigned char *row = rch_coll_nodeseg_row(&seg, b, r), *h = (const unsigned char *)rch_coll_nodeseg_hdr(&seg, b, r),
                                *ar = rch_coll_nodeseg_arow(&seg, b, r);
            if ((x >= row && x < row + seg.row) || (x >= h && x < h + sizeof(struct rch_coll_nodeseg_hdr)) ||
                (x >= ar && x < ar + seg.astride))
                return r;
        }
    return -2;
}

uint32_t sim_seg_read_kind(const void *src, int reduce)
{
    int w = writer_of(src);
    if (w >= 0)
        return (uint32_t)(SIM_SEG_READ + 2 * w + (reduce ? 1 : 0));
    return w == -2 && !reduce ? 3 : reduce ? 0 : 2;
}

static void rec_copy(const void *dst, const void *src, size_t bytes)
{
    uint32_t k = sim_seg_read_kind(src, 0);
    int w = writer_of(dst);
    /* a deposit names whose data it overwrites (sim_segx.c) */
    if (k == 2 && w >= 0)
        k = (uint32_t)(SIM_SEG_DEP + w);
    sim_rec_op(SIM_COMPUTE, (int)k, bytes);
}

static void rec_sync(void)
{
    sim_rec_op(SIM_SEGSYNC, 0, 0);
}

static const struct rch_coll_nodeseg_rec recorder = { rec_copy, rec_sync };
static struct rch_coll_cstate state;

int sim_seg_attach(struct rch_coll_comm *c)
{
    int p = c->size;
    if (!mem || seg.p != p) {
        size_t slot = rch_coll_nodeseg_slot(p), row = (size_t)p * slot, arow = rch_coll_nodeseg_arow_size(p),
               astride = rch_coll_nodeseg_astride_size(p);
        size_t hdr = 2 * (size_t)p * sizeof(struct rch_coll_nodeseg_hdr), data = 2 * (size_t)p * row;
        free(mem);
        /* calloc: pages the recording never touches (the rows) stay unmapped */
        mem_len = hdr + data + 2 * (size_t)(p + 1) * astride + RCH_CACHELINE;
        mem = calloc(1, mem_len);
        if (!mem)
            return -1;
        unsigned char *base = (unsigned char *)(((uintptr_t)mem + RCH_CACHELINE - 1) & ~(uintptr_t)(RCH_CACHELINE - 1));
        seg = (struct rch_coll_nodeseg){ .rec = &recorder, .p = p, .slot = slot, .row = row, .big_state = 1,
                                         .arow = arow, .astride = astride, .hdr = (struct rch_coll_nodeseg_hdr *)base,
                                         .data = base + hdr, .big = base + hdr + data };
    }
    seg.me = c->rank;
    seg.phase = 0;                     /* every rank's recording starts at the same phase */
    state.nodeseg = &seg;
    c->state = &state;
    return 0;
}

double sim_seg_switch(const struct sim_params *p, int n)
{
    if (p->nsegsw == 0)
        return p->sw;
    int i = 0;
    while (i + 1 < p->nsegsw && p->segsw_n[i + 1] <= n)
        i++;
    return p->segsw[i];
}
