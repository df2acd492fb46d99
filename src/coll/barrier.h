/*
 * The barrier framework: pluggable barrier backends, one chosen per
 * communicator at its first barrier.
 *
 * A backend is an ops table (struct rch_coll_barrier_ops). Selection
 * (barrier_select.c) asks every backend listed there whether it applies to
 * the communicator, takes the one of highest priority (or the one forced
 * with RDMACH_BARRIER=<name>), runs its init on every rank, agrees on the
 * outcome (an init that failed anywhere makes every rank fall back), and
 * falls back to dissemination, which applies everywhere and needs no state.
 *
 *   backend        applies when                               priority
 *   ppdev          RDMACH_BARRIER=ppdev and RDMACH_PPDEV set      60
 *   shm            every rank on one node                         50
 *   hier           several nodes, some with several ranks         40
 *   ofi            a libfabric provider has FI_COLLECTIVE         20
 *                  (the job spans nodes, or forced)
 *   hwsim          every rank on one node                         10
 *   dissemination  always                                          0
 *
 * Contract of the slots:
 *   applies   local and cheap, identical on every rank of the communicator
 *             (it may read only the communicator's shape and the
 *             configuration); `why` gets the reason when it does not apply.
 *   init      collective: every rank of the communicator calls it in the
 *             same barrier; it may send on the collective context with the
 *             setup tag. Its status is agreed on afterwards by the framework.
 *   enter     announce arrival; never blocks.
 *   wait      return once every rank has entered; blocks (spin, yield, then
 *             sleep) and keeps the device progressing on every channel, its
 *             sleep ended by channel traffic too (barrier_seg.c).
 *   finalize  local: release what init made (the communicator is being
 *             freed; no barrier is in progress on it).
 *
 * Tags: a backend that sends messages uses the tags below on the
 * communicator's collective context; the framework's own agreement uses
 * RCH_COLL_TAG_BARRIER_SETUP.
 */
#ifndef RCH_COLL_BARRIER_H
#define RCH_COLL_BARRIER_H

#include <stddef.h>
#include <stdint.h>
#include "base/base.h"
#include "coll/coll_impl.h"

/* Tags on the collective context, above the blocking collectives' 1..15 and
 * below the non-blocking ones (RCH_COLL_TAG_NBC_BASE). */
#define RCH_COLL_TAG_BARRIER_SETUP   0x100   /* backend init and the agreement */
#define RCH_COLL_TAG_BARRIER_LEADERS 0x101   /* hier: dissemination among node leaders */

struct rch_coll_barrier_ops {
    const char *name;
    const char *summary;           /* one line for rdmach-info */
    int priority;
    int (*applies)(const struct rch_coll_comm *c, char *why, size_t len);
    rdmach_status_t (*init)(const struct rch_coll_comm *c, void **state);
    rdmach_status_t (*enter)(void *state);
    rdmach_status_t (*wait)(void *state);
    void (*finalize)(void *state);
};

extern const struct rch_coll_barrier_ops rch_coll_barrier_dissemination_ops;
extern const struct rch_coll_barrier_ops rch_coll_barrier_shm_ops;
extern const struct rch_coll_barrier_ops rch_coll_barrier_hier_ops;
extern const struct rch_coll_barrier_ops rch_coll_barrier_hwsim_ops;
extern const struct rch_coll_barrier_ops rch_coll_barrier_ppdev_ops;
extern const struct rch_coll_barrier_ops rch_coll_barrier_ofi_ops;

/* The backends in the order rdmach-info lists them (NULL-terminated). */
const struct rch_coll_barrier_ops *const *rch_coll_barrier_backends(void);
const struct rch_coll_barrier_ops *rch_coll_barrier_find(const char *name);
/* The backend the selection would choose for c (forced or by priority),
 * before init; `why` says why (for rdmach-info and the debug log). */
const struct rch_coll_barrier_ops *rch_coll_barrier_choose(const struct rch_coll_comm *c, char *why,
                                                           size_t len);
/* MPI_Barrier's path (rch_coll_barrier): the communicator's backend, chosen
 * and initialized at its first barrier; dissemination for a view without
 * state. */
rdmach_status_t rch_coll_barrier_run(const struct rch_coll_comm *c);
/* The backend the latest barrier of this process ran ("" before the first). */
const char *rch_coll_barrier_last(void);

/* Dissemination over any communicator view (rounds of zero-byte messages
 * with `tag`): the fallback, and the leaders' step of hier. */
rdmach_status_t rch_coll_barrier_dissem_run(const struct rch_coll_comm *c, int tag);

/* ---- the node view every shared-memory backend works on ----
 * The ranks of the communicator on my node: with RDMACH_COLL_VNODE_SIZE=k
 * pretend nodes of k consecutive world ranks (they still share memory, as
 * every rank of this machine does), otherwise the view's node_of. */
struct rch_coll_bar_nodes {
    int nnodes;
    int node, local;           /* mine: node index and position among its ranks */
    int nlocal;                /* ranks on my node */
    int *local_ranks;          /* [nlocal] comm ranks of my node, ascending */
    int *leaders;              /* [nnodes] lowest comm rank of each node */
    int max_ppn;
};
rdmach_status_t rch_coll_bar_nodes_init(struct rch_coll_bar_nodes *n, const struct rch_coll_comm *c);
void rch_coll_bar_nodes_free(struct rch_coll_bar_nodes *n);
/* Shape only (for applies): nodes and most ranks on one node. */
void rch_coll_bar_shape(const struct rch_coll_comm *c, int *nnodes, int *max_ppn);

/* ---- a shared segment among the ranks of my node (barrier_seg.c) ----
 * Named "/rdmach-<kvsname>-b<ctx>-<leader world rank>-<n>": the node's
 * leader (local index 0) creates it, sends the name to the others on the
 * setup tag, each maps it and answers; the leader unlinks it once all have
 * answered (so /dev/shm holds it only during setup). Zero-filled. */
struct rch_coll_bar_seg {
    void *base;
    size_t size;
};
rdmach_status_t rch_coll_bar_seg_setup(struct rch_coll_bar_seg *s, const struct rch_coll_comm *c,
                                       const struct rch_coll_bar_nodes *n, size_t size,
                                       const char *what);
void rch_coll_bar_seg_release(struct rch_coll_bar_seg *s);

/* ---- waiting (barrier_seg.c) ----
 * The policy of every shared-memory wait: poll the word (progressing the
 * device every progress_every polls), then wait through the device
 * (rch_dev_wait_until_with: every channel progressed, `yield` yields, then a
 * sleep that channel traffic ends too). The rank that changes a word wakes
 * its waiters with rch_coll_bar_wake_local/_node (rch_dev_wake: no system
 * call unless they sleep). Oversubscribed nodes (more ranks than cores) skip
 * the polling phase. */
struct rch_coll_bar_waiter {
    int spin, yield;           /* polls, then yields, before sleeping */
    int remote_spin;           /* wait_all: polls while only other cores' ranks are missing */
    int32_t core1;             /* 1 + the core this rank is bound to; 0: not bound to one */
    int progress_every;        /* polls between two device progress calls */
    int block_ms;              /* longest device sleep (0: the device's) */
    int nlocal, local;         /* _init_node: ranks of my node, my index among them */
    int *world;                /* [nlocal] their world ranks (to wake them) */
};
/* The policy only (backends that wait on something else: ofi, ppdev). */
void rch_coll_bar_waiter_init(struct rch_coll_bar_waiter *w);
/* The policy and the ranks of my node (n), to wake them; free with _free. */
rdmach_status_t rch_coll_bar_waiter_init_node(struct rch_coll_bar_waiter *w, const struct rch_coll_comm *c,
                                              const struct rch_coll_bar_nodes *n);
void rch_coll_bar_waiter_free(struct rch_coll_bar_waiter *w);
/* Wait until *word != old (acquire). Errors only if the device fails. */
rdmach_status_t rch_coll_bar_wait_change(const struct rch_coll_bar_waiter *w, const uint32_t *word,
                                         uint32_t old);
/* Wait until *word == want. */
rdmach_status_t rch_coll_bar_wait_value(const struct rch_coll_bar_waiter *w, const uint32_t *word,
                                        uint32_t want);
/* Wait until *word has reached `epoch` ((int32_t)(*word - epoch) >= 0). */
rdmach_status_t rch_coll_bar_wait_epoch(const struct rch_coll_bar_waiter *w, const uint32_t *word,
                                        uint32_t epoch);
/* ---- all-arrive waits for oversubscribed nodes (barrier_seg.c) ----
 * Every rank of the node owns one line holding its arrival epoch and its
 * core (core1: 1 + the core it is bound to, 0 if unknown, written once at
 * set-up); the lines are n records `stride` bytes apart, the epoch and core
 * words at the same place in each. A rank arrives by storing its epoch and
 * is through when every epoch has reached it.
 *
 * Why not a counter: a core that runs two ranks can only let one run at a
 * time, and a hand-off (sched_yield to the other rank) costs 1.5 us here.
 * The waiter therefore looks at WHO is missing: a missing rank bound to its
 * own core needs the core, so it yields; when every missing rank is bound to
 * another core, yielding would only hand the core to a rank of ours that
 * has arrived already, so it polls (at most remote_spin polls, then yields
 * anyway: that core may be busy with another job). With 4 ranks on 2 cores
 * a barrier then costs one hand-off per core instead of two. After `yield`
 * yields it sleeps in the device; the arrival that completes the epoch
 * wakes the node. */
void rch_coll_bar_arrive_all(const struct rch_coll_bar_waiter *w, uint32_t *mine, const uint32_t *epoch0,
                             size_t stride, int n, uint32_t epoch);
rdmach_status_t rch_coll_bar_wait_all(const struct rch_coll_bar_waiter *w, const uint32_t *epoch0,
                                      const int32_t *core0, size_t stride, int n, uint32_t epoch);

/* After a store to a word others wait on: wake the rank of index `local`
 * on my node (rch_coll_bar_nodes order), or every other rank of it. */
void rch_coll_bar_wake_local(const struct rch_coll_bar_waiter *w, int local);
void rch_coll_bar_wake_node(const struct rch_coll_bar_waiter *w);

/* Store v to *word that the ranks of my node wait on (release: what I wrote
 * before goes with it), then wake them: the rank of index `local`, or with
 * local < 0 every other one. Release is enough: the wake orders the store
 * before its load of the sleeper's flag as a message's does (its fence, or
 * the sleeper's membarrier: rch_shm_notify in src/rdma/shm), and a waiter that
 * polls only needs the acquire of its load. A seq_cst store here drained
 * the store buffer before the first poll of the other's word: a 2-rank
 * shmseg allreduce of 8 B 230 -> 166 ns (AMD EPYC family 25 model 17). */
static inline void rch_coll_bar_post(const struct rch_coll_bar_waiter *w, uint32_t *word, uint32_t v, int local)
{
    __atomic_store_n(word, v, __ATOMIC_RELEASE);
    if (local < 0)
        rch_coll_bar_wake_node(w);
    else
        rch_coll_bar_wake_local(w, local);
}

/* Does this node run more ranks than it has cores? */
int rch_coll_bar_oversubscribed(void);

#endif
