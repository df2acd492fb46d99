/*
 * The node segment of the "shmseg" collectives (alltoall_shmseg.c,
 * allreduce_shmseg.c): a segment shared by the ranks of a one-node
 * communicator, made at the first shmseg call on it and kept until the
 * communicator is freed (coll_nodeseg.c).
 *
 * A call runs in phases. In a phase every rank writes its header and its
 * row of the data area of parity (phase mod 2), arrives at the one
 * node-wide synchronisation of the phase, then reads what it needs of the
 * other rows of that parity:
 *
 *   phase k:   write hdr/row[k%2][me]  ─ sync k ─  read row[k%2][*]
 *   phase k+1: write hdr/row[(k+1)%2][me]  ─ sync k+1 ─  read ...
 *   phase k+2: write hdr/row[k%2][me]   (safe: every rank has passed sync
 *              k+1, so every rank has finished reading phase k)
 *
 * So one synchronisation per phase suffices; a call is one phase unless
 * its data exceeds a row (then it is cut in chunks, one phase each).
 *
 * Segment layout (every part on its own cache lines):
 *   hdr   [2][p]                            one line per parity and rank
 *                                           (with an inline row of <= 32 B)
 *   data  [2][p] rows of `row` bytes        row = p slots of `slot` bytes
 *
 * Synchronisation, two ways chosen at set-up as the shm barrier chooses
 * (the same answer on every rank of the node):
 * - a core per rank: flags. A rank stores k + 1 in the epoch of its header
 *   line (after its row and header) and waits until every other rank's
 *   header of that parity holds k + 1 or more: the line it waits on is the
 *   one it checks next, so two ranks need a single line transfer each way
 *   before reading the rows.
 * - more ranks than cores: the same epochs, but every rank waits for all
 *   of them at once (rch_coll_bar_wait_all, barrier.h): it polls while
 *   only ranks bound to other cores are missing and yields its core only
 *   to a missing rank bound to it (the header line also holds its owner's
 *   core), then sleeps; the arrival that completes the phase wakes the
 *   node. One hand-off per core and phase where a counter needs two.
 * Both wait with barrier_seg.c's policy (poll, yield while yields are cheap,
 * then sleep in the device).
 *
 * Set-up failure (no room in /dev/shm on one node) is agreed on by every
 * rank of the communicator; the communicator then never uses shmseg again
 * (applies says no), and the call that found out runs the fallback.
 */
#ifndef RCH_COLL_NODESEG_H
#define RCH_COLL_NODESEG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "base/base.h"
#include "coll/barrier.h"
#include "coll/coll_impl.h"

/* Bytes of the data area (both parities) a segment aims at; the slot per
 * rank pair is what fits, a multiple of the cache line within
 * [RCH_NODESEG_SLOT_MIN, RCH_NODESEG_SLOT_MAX]. */
#define RCH_NODESEG_BUDGET   (256u * 1024u)
#define RCH_NODESEG_SLOT_MIN 64u
#define RCH_NODESEG_SLOT_MAX (16u * 1024u)

/* The large area (allreduce_shmrsag.c), a second segment made at the first
 * call that needs it: [2][p + 1] rows of `arow` bytes (p deposit rows and
 * one result row per parity), about this many bytes in all. */
#define RCH_NODESEG_BIG_BUDGET (2u * 1024u * 1024u)
#define RCH_NODESEG_AROW_MAX   (256u * 1024u)
/* The rows lie `astride` bytes apart, sized from this budget: alltoall's
 * rows (p sub-slots each) are the whole stride, so a large block takes
 * fewer phases, each a synchronisation of the node (an 8-rank alltoall of
 * 64 KiB blocks on 2 cores, Zen 4: after its first phase of 2 KiB, 2 of
 * 32 KiB instead of 5 of 14.5 KiB, 189 -> 145 us); the others keep their
 * `arow`, whose working set per phase is what stays in L2 (allgather and
 * reduce_scatter with the larger rows: 7-45% slower on Zen 4). */
#define RCH_NODESEG_A2A_BUDGET (8u * 1024u * 1024u)
/* alltoall_shmseg.c: an even number of phases gets one more, empty, when
 * the large rows of a call hold at least this many bytes in all (measured
 * on one machine only: AMD EPYC Zen 4, 2 cores). */
#define RCH_NODESEG_FLIP_MIN (384u * 1024u)

/* What a rank writes in its header line each phase; every rank compares
 * all headers of the first phase of a call with its own, so a call that
 * differs between ranks is an error on every rank. */
#define RCH_NODESEG_INLINE 32
/* The `elem` of a phase that agrees on a choice (coll_adapt.c): no
 * call's data phase has it, so ranks at different calls are told apart. */
#define RCH_NODESEG_ELEM_AGREE 0xffffffffu
struct rch_coll_nodeseg_hdr {
    _Alignas(RCH_CACHELINE) uint32_t coll;     /* enum rch_coll_id */
    uint32_t elem;                             /* element size (allreduce) */
    uint64_t size;                             /* block bytes / element count */
    uint32_t epoch;                            /* phases this rank has arrived at */
    int32_t core1;                             /* 1 + the core its owner is bound to (0: unknown) */
    /* A row of at most RCH_NODESEG_INLINE bytes travels here instead of in
     * the data area: the line a reader waits on then carries the data too.
     * 32-byte aligned, as a reduction kernel may want its elements. */
    _Alignas(32) unsigned char inl[RCH_NODESEG_INLINE];
};
_Static_assert(sizeof(struct rch_coll_nodeseg_hdr) == RCH_CACHELINE,
               "a header is one cache line");

/* A recorder of a rank's work on the segment (rdmach-sim, tools/sim/
 * sim_seg.c): with one, the copies into and out of the segment and the
 * synchronisations are reported to it instead of done, and the headers are
 * not compared, so that the simulator replays these algorithms themselves
 * (one rank at a time, on memory of its own) with no copy of them. */
struct rch_coll_nodeseg_rec {
    void (*copy)(const void *dst, const void *src, size_t bytes);   /* which way: the addresses */
    void (*sync)(void);
};

struct rch_coll_nodeseg {
    const struct rch_coll_nodeseg_rec *rec;    /* NULL in the library */
    int failed;                /* set-up failed somewhere: never used again */
    int all;                   /* 1: wait for all at once (oversubscribed), 0: one by one */
    int p, me;
    size_t slot, row;          /* bytes per rank pair, per rank (p · slot) */
    uint32_t phase;            /* phases completed on this communicator */
    struct rch_coll_bar_seg seg;
    struct rch_coll_bar_waiter waiter;
    struct rch_coll_nodeseg_hdr *hdr;          /* [2][p] */
    unsigned char *data;                       /* [2][p][row] */
    /* the large area: 0 not made yet, 1 made, -1 failed somewhere (agreed) */
    int big_state;
    size_t arow;                               /* bytes a large row holds (but alltoall's) */
    size_t astride;                            /* bytes from one large row to the next, >= arow */
    struct rch_coll_bar_seg bigseg;
    unsigned char *big;                        /* [2][p + 1][astride] */
    /* Started persistent allreduce runs, in start order
     * (allreduce_shmseg_persist.c); busy: on that file's list of segments
     * with runs queued. */
    struct rch_coll_pshm *pq_head, *pq_tail;
    int busy;
    struct rch_coll_nodeseg *busy_next;
    struct rch_coll_adapt *adapt;              /* coll_adapt.c's choices, made at its first call */
};

/* Bytes of a rank pair's slot for p ranks (same on every rank). */
size_t rch_coll_nodeseg_slot(int p);

/* May the shmseg algorithms run on c: a communicator state to keep the
 * segment in, one node, and no failed set-up. Local; same on every rank. */
int rch_coll_nodeseg_usable(const struct rch_coll_comm *c);

/* The communicator's segment, made now if this is its first shmseg call
 * (collective over c: every rank makes this call). *out = NULL and
 * RDMACH_OK when the set-up failed on some rank: run another algorithm. */
rdmach_status_t rch_coll_nodeseg_get(const struct rch_coll_comm *c, struct rch_coll_nodeseg **out);

/* Parity of the current phase (what the next writes go to). */
static inline int rch_coll_nodeseg_parity(const struct rch_coll_nodeseg *s)
{
    return (int)(s->phase & 1u);
}

static inline struct rch_coll_nodeseg_hdr *rch_coll_nodeseg_hdr(const struct rch_coll_nodeseg *s,
                                                                int parity, int rank)
{
    return &s->hdr[parity * s->p + rank];
}

static inline unsigned char *rch_coll_nodeseg_row(const struct rch_coll_nodeseg *s, int parity,
                                                  int rank)
{
    return s->data + ((size_t)parity * (size_t)s->p + (size_t)rank) * s->row;
}

/* A copy into or out of the segment (n may be 0: a 0-byte call has no
 * buffers); what the recorder sees of the data movement. */
static inline void rch_coll_nodeseg_copy(const struct rch_coll_nodeseg *s, void *dst, const void *src, size_t n)
{
    if (RCH_UNLIKELY(s->rec != NULL))
        s->rec->copy(dst, src, n);
    else if (n)
        memcpy(dst, src, n);
}

/* Bytes of a large row for p ranks, and from one to the next (same on
 * every rank). */
size_t rch_coll_nodeseg_arow_size(int p);
size_t rch_coll_nodeseg_astride_size(int p);

/* The large area, made now if this is the first call that asks (collective
 * over c, like rch_coll_nodeseg_get). 0 and RDMACH_OK when it could not be
 * made on some rank: the caller runs another algorithm. */
rdmach_status_t rch_coll_nodeseg_big(const struct rch_coll_comm *c, struct rch_coll_nodeseg *s,
                                     int *ok);

/* Both at once: the segment with its large area, or *out = NULL when
 * either could not be made on some rank (agreed: run another algorithm). */
rdmach_status_t rch_coll_nodeseg_big_get(const struct rch_coll_comm *c, struct rch_coll_nodeseg **out);

/* Row r (0..p-1 deposits, p the result row) of parity b in the large area. */
static inline unsigned char *rch_coll_nodeseg_arow(const struct rch_coll_nodeseg *s, int parity,
                                                   int r)
{
    return s->big + ((size_t)parity * (size_t)(s->p + 1) + (size_t)r) * s->astride;
}

/* acc = row[0] op (row[1] op (... op row[p-1])) over the bytes at `off` of
 * the large area's deposit rows of `parity`, n elements: the rank order
 * every shmseg reduction keeps (the same bits on every rank). */
void rch_coll_nodeseg_reduce_rows(const struct rch_coll_nodeseg *s, int parity, size_t off, size_t n,
                                  void *acc, const struct rch_coll_op *op);

/* Arrive at the current phase's synchronisation and wait for every rank
 * of the node; the phase advances. Errors only if the device fails. */
rdmach_status_t rch_coll_nodeseg_sync(struct rch_coll_nodeseg *s);

/* A phase's end for a call of collective `coll` (elem, size: what every
 * rank must agree on): write my header of the current parity, sync, and on
 * the call's first phase check every header against mine. */
rdmach_status_t rch_coll_nodeseg_phase(struct rch_coll_nodeseg *s, enum rch_coll_id coll, uint32_t elem,
                                       uint64_t size, int first, const char *what);

/* After a sync: does every rank's header of `parity` equal mine? If not, an
 * error naming the first rank that differs (`what` names the collective). */
rdmach_status_t rch_coll_nodeseg_check(const struct rch_coll_nodeseg *s, int parity,
                                       const char *what);

/* Finish the segment's queued persistent runs (waits for the other ranks'
 * arrivals): before any other use of the segment, and before it is freed. */
rdmach_status_t rch_coll_pshm_drain(struct rch_coll_nodeseg *s);

/* Release the communicator's segment (rch_coll_comm_free). */
void rch_coll_nodeseg_free(struct rch_coll_nodeseg *s);

#endif
