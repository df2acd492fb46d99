/*
 * Internals of the non-blocking collectives and of the per-communicator
 * state: the state object (nbc_comm.c) and the schedule builder and engine
 * (nbc_sched.c) the algorithms (nbc_*.c, neighbor_*.c) are written with.
 *
 * A schedule is a list of rounds. A round has communication steps (sends
 * and receives, all posted when the round starts) and local steps
 * (reductions and copies, run in order once all of the round's messages
 * have completed). Round r + 1 starts when round r's local steps are done.
 *
 *   round 0: [recv a from 1] [recv b from 2] | a' = acc op a ; acc = acc op b
 *   round 1: [send acc to 0]                 |
 *
 * Tags: schedule number n of a communicator uses tags
 *   RCH_COLL_TAG_NBC_BASE + (n mod 2^15) · 256 + sub,  sub in 0..255
 * on its collective context, well above the blocking collectives' and the
 * barrier framework's, below the MPI layer's internal 0x7ffffff0.
 */
#ifndef RCH_COLL_NBC_IMPL_H
#define RCH_COLL_NBC_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "base/base.h"
#include "coll/barrier.h"
#include "coll/coll_impl.h"
#include "coll/nbc.h"

#define RCH_COLL_TAG_NBC_BASE 0x01000000
#define RCH_COLL_NBC_SEQ_MASK 0x7fff
#define RCH_COLL_NBC_SUB_MAX  256

/*
 * The per-communicator state. Ownership: the communicator holds one
 * reference (rch_coll_comm_init .. rch_coll_comm_free), every running
 * schedule another; `view` (with its own copies of world_of and node_of)
 * stays valid while any reference lasts. The barrier backend is chosen at
 * the first barrier and released by rch_coll_comm_free.
 */
struct rch_coll_cstate {
    int refs;
    struct rch_coll_comm view;         /* view.state points back here */
    int *world_of, *node_of;           /* owned copies */
    uint32_t nbc_seq;                  /* schedules started on the communicator */
    const struct rch_coll_barrier_ops *bar;   /* NULL: not chosen yet */
    void *bar_state;
    /* The shmseg collectives' node segment (nodeseg.h), made at the first
     * shmseg call; released by rch_coll_comm_free. Added by shmseg. */
    struct rch_coll_nodeseg *nodeseg;
    /* Calls that ran without shared segments because the communicator was
     * young (COLL_SEG_AFTER: coll_select.c, barrier_select.c). */
    uint32_t seg_deferred;
};
void rch_coll_nodeseg_free(struct rch_coll_nodeseg *s);
void rch_coll_cstate_release(struct rch_coll_cstate *cs);

/* ---- the schedule builder ---- */
struct rch_nbc_sched;

/* A new, empty schedule on c (which must carry a state) with the next tag of
 * c's sequence; `name` ("ibcast") names it in messages; `op` (may be NULL) is
 * copied for the reduction steps. */
rdmach_status_t rch_nbc_create(const struct rch_coll_comm *c, const char *name,
                               const struct rch_coll_op *op, struct rch_nbc_sched **out);
/* The view the schedule runs on (the state's persistent copy). */
const struct rch_coll_comm *rch_nbc_comm(const struct rch_nbc_sched *s);
/* Bytes of one element of the schedule's reduction (0 without one). */
size_t rch_nbc_elem_size(const struct rch_nbc_sched *s);

/* Steps of the current round. Peers are ranks of the communicator;
 * RCH_DEV_PROC_NULL peers are skipped. `sub` (0..255) is added to the
 * schedule's tag. A receive expects exactly `len` bytes. */
rdmach_status_t rch_nbc_send(struct rch_nbc_sched *s, const void *buf, size_t len, int peer, int sub);
rdmach_status_t rch_nbc_recv(struct rch_nbc_sched *s, void *buf, size_t len, int peer, int sub);
/* acc = in op acc (in_first) or acc = acc op in (in comes after acc in rank
 * order; `in` may be clobbered for a non-commutative op). count elements. */
rdmach_status_t rch_nbc_reduce(struct rch_nbc_sched *s, const void *in, void *acc, size_t count,
                               int in_first);
rdmach_status_t rch_nbc_copy(struct rch_nbc_sched *s, void *dst, const void *src, size_t len);
/* End the current round: further steps go to the next one. A round with no
 * steps is not kept. */
rdmach_status_t rch_nbc_round(struct rch_nbc_sched *s);
/* Scratch memory freed with the schedule (NULL and an error if out of memory;
 * a zero-byte request gives a valid pointer). */
void *rch_nbc_tmp(struct rch_nbc_sched *s, size_t bytes, rdmach_status_t *st);

/* Start: run what can run now, then leave the rest to the progress engine.
 * req (a GREQ) is completed when the schedule ends; NULL: the caller waits
 * with rch_nbc_start_wait instead. The schedule belongs to the engine
 * afterwards. */
rdmach_status_t rch_nbc_start(struct rch_nbc_sched *s, struct rch_dev_req *req);
/* Start and wait for the end (blocking variants): the schedule's status. */
rdmach_status_t rch_nbc_start_wait(struct rch_nbc_sched *s);
/* Free a schedule that was never started (after a building error). */
void rch_nbc_free(struct rch_nbc_sched *s);

/* ---- building blocks shared by the algorithms (nbc_tree.c) ---- */
/* Binomial broadcast of `bytes` at buf from root: two rounds (receive from
 * the parent, send to the children). */
rdmach_status_t rch_nbc_add_bcast(struct rch_nbc_sched *s, void *buf, size_t bytes, int root);
/* Binomial reduction of `count` elements into acc (which holds this rank's
 * operand) toward `troot`: one round receiving every child's partial result
 * and folding them in rank order (children come after the parent in the
 * tree's rank order rotated to troot), one round sending acc to the parent.
 * At troot acc ends as the reduction of all ranks; in rank order when troot
 * is 0 or the op commutes. */
rdmach_status_t rch_nbc_add_reduce(struct rch_nbc_sched *s, void *acc, size_t count, int troot);

#endif
