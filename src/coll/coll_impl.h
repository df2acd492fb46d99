/*
 * Internals shared by the files of src/coll: the algorithm ops table, the
 * arguments every algorithm receives, the message tags and the
 * point-to-point and reduction helpers the algorithms are written with.
 */
#ifndef RCH_COLL_IMPL_H
#define RCH_COLL_IMPL_H

#include <limits.h>
#include <stddef.h>
#include <string.h>
#include "coll/coll.h"
#include "device/dev.h"

/* The arguments of one call, whatever the collective; each entry point
 * fills the fields its collective has (see coll.h for their meaning). */
struct rch_coll_args {
    const void *sbuf;          /* may be RCH_COLL_IN_PLACE */
    void *rbuf;                /* bcast: the buffer */
    size_t bytes;              /* block bytes (bcast, gather, scatter, allgather, alltoall);
                                  gatherv: my send bytes; scatterv: my receive bytes */
    const size_t *scounts, *sdispls;   /* bytes (scatterv, alltoallv) */
    const size_t *rcounts, *rdispls;   /* bytes (gatherv, allgatherv, alltoallv) */
    size_t count;              /* elements (reduce, allreduce, scan, exscan) */
    const size_t *counts;      /* elements per rank (reduce_scatter) */
    const struct rch_coll_op *op;
    int root;
};

/*
 * One algorithm of one collective. Every slot is filled: `applies` of an
 * algorithm without restrictions is rch_coll_always.
 */
struct rch_coll_algo {
    const char *name;
    /* Can this algorithm run this call (communicator shape, op properties)? */
    int (*applies)(const struct rch_coll_comm *c, const struct rch_coll_args *a);
    rdmach_status_t (*run)(const struct rch_coll_comm *c, const struct rch_coll_args *a);
    /* 1: runs in the communicator's node segment (coll_nodeseg.c), which its
     * first such call sets up; the selection defers that (COLL_SEG_AFTER). */
    int nodeseg;
};

int rch_coll_always(const struct rch_coll_comm *c, const struct rch_coll_args *a);

/* The algorithms, one per file (coll_algos.c lists them per collective). */
extern const struct rch_coll_algo rch_coll_barrier_dissemination;
extern const struct rch_coll_algo rch_coll_bcast_binomial;
extern const struct rch_coll_algo rch_coll_bcast_shmseg;
extern const struct rch_coll_algo rch_coll_reduce_binomial;
extern const struct rch_coll_algo rch_coll_allreduce_recdbl;
extern const struct rch_coll_algo rch_coll_allreduce_reduce_bcast;
extern const struct rch_coll_algo rch_coll_allreduce_shmseg;
extern const struct rch_coll_algo rch_coll_allreduce_shmrsag;
extern const struct rch_coll_algo rch_coll_gather_binomial;
extern const struct rch_coll_algo rch_coll_gather_linear;
extern const struct rch_coll_algo rch_coll_gatherv_linear;
extern const struct rch_coll_algo rch_coll_scatter_binomial;
extern const struct rch_coll_algo rch_coll_scatter_linear;
extern const struct rch_coll_algo rch_coll_scatterv_linear;
extern const struct rch_coll_algo rch_coll_allgather_recdbl;
extern const struct rch_coll_algo rch_coll_allgather_ring;
extern const struct rch_coll_algo rch_coll_allgather_shmseg;
extern const struct rch_coll_algo rch_coll_allgatherv_ring;
extern const struct rch_coll_algo rch_coll_allgatherv_shmseg;
extern const struct rch_coll_algo rch_coll_alltoall_pairwise;
extern const struct rch_coll_algo rch_coll_alltoallv_pairwise;
extern const struct rch_coll_algo rch_coll_alltoall_bruck;
extern const struct rch_coll_algo rch_coll_alltoall_linear;
extern const struct rch_coll_algo rch_coll_alltoallv_linear;
extern const struct rch_coll_algo rch_coll_alltoall_leader;
extern const struct rch_coll_algo rch_coll_alltoallv_leader;
extern const struct rch_coll_algo rch_coll_alltoall_coreparallel;
extern const struct rch_coll_algo rch_coll_alltoallv_coreparallel;
extern const struct rch_coll_algo rch_coll_alltoall_shmseg;
extern const struct rch_coll_algo rch_coll_alltoall_adapt;
extern const struct rch_coll_algo rch_coll_allgather_adapt;
extern const struct rch_coll_algo rch_coll_reduce_scatter_adapt;
extern const struct rch_coll_algo rch_coll_bcast_adapt;
extern const struct rch_coll_algo rch_coll_allgatherv_adapt;
/* the node segment's restriction (shmseg and adaptive, except where an
 * operation's element must also fit): one node, a communicator with state */
int rch_coll_shmseg_applies(const struct rch_coll_comm *c, const struct rch_coll_args *a);
/* adaptive's state of a communicator (coll_adapt.c), kept with its node
 * segment; and, for tests, nanoseconds added to every timed call of the
 * segment's way [0] and of the messages' [1] */
struct rch_coll_adapt;
void rch_coll_adapt_free(struct rch_coll_adapt *a);
extern uint64_t rch_coll_adapt_bias_ns[2];
extern const struct rch_coll_algo rch_coll_reduce_scatter_pairwise;
extern const struct rch_coll_algo rch_coll_reduce_scatter_reduce_scatterv;
extern const struct rch_coll_algo rch_coll_reduce_scatter_shmseg;
extern const struct rch_coll_algo rch_coll_scan_recdbl;
extern const struct rch_coll_algo rch_coll_exscan_recdbl;

/* The algorithms of one collective; `fallback` applies to every call. */
struct rch_coll_algo_list {
    const char *coll;                         /* "bcast" */
    const struct rch_coll_algo *const *algos; /* NULL-terminated */
    const struct rch_coll_algo *fallback;
};
const struct rch_coll_algo_list *rch_coll_algos(enum rch_coll_id id);

/*
 * The tuning table (coll_tuning.c): rows are read in order and the first row
 * of the collective whose ranges all contain the call names its algorithm
 * (a row whose algorithm does not apply to the call is passed over). Rows of
 * a tuning file (RDMACH_TUNING_FILE) come before the built-in ones.
 */
struct rch_coll_range {
    unsigned long long lo, hi;         /* lo <= value <= hi */
};
#define RCH_COLL_UNBOUNDED ULLONG_MAX

/* What selection keys on: identical on every rank of a call. */
struct rch_coll_key {
    int nodes;                 /* nodes the communicator spans */
    int ppn;                   /* most ranks of the communicator on one node */
    int size;                  /* ranks of the communicator */
    size_t bytes;              /* the call's message size (coll_select.c, msg_bytes) */
    enum rch_coll_nic nic;     /* the network's profile (never ANY here) */
};

struct rch_coll_tuning_row {
    enum rch_coll_id coll;
    enum rch_coll_nic nic;     /* ANY: every profile */
    struct rch_coll_range nodes, ppn, size, bytes;
    const char *algo;          /* an algorithm name of the collective */
};
/* The built-in rows. */
const struct rch_coll_tuning_row *rch_coll_tuning(size_t *nrows);
/* The rows of the loaded tuning file (none: *nrows = 0). */
const struct rch_coll_tuning_row *rch_coll_tuning_loaded(size_t *nrows);
int rch_coll_tuning_match(const struct rch_coll_tuning_row *r, enum rch_coll_id id,
                          const struct rch_coll_key *k);
/* A row as a line of a tuning file (docs/TUNING.md), without the newline. */
void rch_coll_tuning_format(const struct rch_coll_tuning_row *r, char *buf, size_t len);
/* An algorithm of a collective by name, or NULL. */
const struct rch_coll_algo *rch_coll_find_algo(enum rch_coll_id id, const char *name);

/* What the tuning rows (a file's, then the built-in ones) choose for this
 * call when the algorithms of `skip` (NULL-terminated) are not there: the
 * collective's fallback if none applies. For an algorithm that chooses
 * between others (coll_adapt.c). */
const struct rch_coll_algo *rch_coll_select_besides(enum rch_coll_id id, const struct rch_coll_comm *c,
                                                    const struct rch_coll_args *a,
                                                    const struct rch_coll_algo *const *skip);
/* The call's message bytes as the tuning table sees them (the same on every
 * rank): the block for bcast, gather, scatter, allgather and alltoall, the
 * vector for reductions and reduce_scatter (all ranks' parts), 0 where the
 * sizes differ per rank. */
size_t rch_coll_msg_bytes(enum rch_coll_id id, const struct rch_coll_comm *c, const struct rch_coll_args *a);
/* The algorithm a call ran, where it is not the one selected (an algorithm
 * that runs another): what rch_coll_last_algo reports. */
void rch_coll_note_ran(enum rch_coll_id id, const char *name);

/* Run a collective: select its algorithm, run it. */
rdmach_status_t rch_coll_run(enum rch_coll_id id, const struct rch_coll_comm *c,
                             const struct rch_coll_args *a);

/* ---- message tags on the collective context: one per collective, so a
 * mismatched call sequence across ranks does not pair unrelated messages. */
enum rch_coll_tag {
    RCH_COLL_TAG_BARRIER = 1, RCH_COLL_TAG_BCAST, RCH_COLL_TAG_REDUCE, RCH_COLL_TAG_ALLREDUCE,
    RCH_COLL_TAG_GATHER, RCH_COLL_TAG_GATHERV, RCH_COLL_TAG_SCATTER, RCH_COLL_TAG_SCATTERV,
    RCH_COLL_TAG_ALLGATHER, RCH_COLL_TAG_ALLGATHERV, RCH_COLL_TAG_ALLTOALL, RCH_COLL_TAG_ALLTOALLV,
    RCH_COLL_TAG_REDUCE_SCATTER, RCH_COLL_TAG_SCAN, RCH_COLL_TAG_EXSCAN
};

/* ---- point-to-point on the collective context (coll_p2p.c) ----
 * Peers are ranks of the communicator. A receive expects exactly `len`
 * bytes: a longer or shorter message is an error naming the peer, the
 * collective (from the tag) and both sizes. */
rdmach_status_t rch_coll_send(const struct rch_coll_comm *c, const void *buf, size_t len,
                              int dst, int tag);
rdmach_status_t rch_coll_recv(const struct rch_coll_comm *c, void *buf, size_t len, int src, int tag);
/* Every rank of c ends with the minimum of all ranks' `mine` (dissemination
 * with the minimum as the combining step; barrier_select.c). Used to agree on
 * a set-up status so that all ranks take the same path. */
rdmach_status_t rch_coll_agree_min(const struct rch_coll_comm *c, int32_t mine, int32_t *all);
/* Both at once (no deadlock whatever the protocol of either message). */
rdmach_status_t rch_coll_sendrecv(const struct rch_coll_comm *c, const void *sbuf, size_t slen,
                                  int dst, void *rbuf, size_t rlen, int src, int tag);

/* A set of outstanding operations (linear algorithms post them all, then
 * wait). On error every outstanding receive is cancelled and every request
 * released, so nothing is left posted. */
struct rch_coll_batch_ent;
struct rch_coll_batch {
    const struct rch_coll_comm *c;
    int tag;
    int n, cap;
    struct rch_coll_batch_ent *ent;
};
rdmach_status_t rch_coll_batch_init(struct rch_coll_batch *b, const struct rch_coll_comm *c,
                                    int tag, int cap);
rdmach_status_t rch_coll_batch_send(struct rch_coll_batch *b, const void *buf, size_t len, int dst);
rdmach_status_t rch_coll_batch_recv(struct rch_coll_batch *b, void *buf, size_t len, int src);
/* Wait for all, check them, release them; the batch is empty afterwards
 * (and may be reused or released). */
rdmach_status_t rch_coll_batch_wait(struct rch_coll_batch *b);
/* Cancel what is outstanding and free the batch's memory. */
void rch_coll_batch_free(struct rch_coll_batch *b);

/* The collective's name for a tag ("bcast"), for messages. */
const char *rch_coll_tag_name(int tag);

/* ---- buffers and reductions (coll_util.c) ---- */
/* A scratch buffer (rch_coll_scratch) that reports RDMACH_ERR_NO_MEMORY
 * naming the collective; *out is NULL for 0 bytes. Freed by
 * rch_coll_scratch_free. */
rdmach_status_t rch_coll_alloc(void **out, size_t bytes, const char *what);
void rch_coll_allreduce_copy(const struct rch_coll_args *a);

/* acc = in op acc: `in` comes first in rank order. */
static inline void rch_coll_op_before(const struct rch_coll_op *op, const void *in, void *acc,
                                      size_t count)
{
    if (count)
        op->fn(in, acc, count, op->arg);
}

/* acc = acc op in: `in` comes after acc in rank order. Commutative ops work
 * in place; otherwise `in` is clobbered (it receives the result, copied back). */
static inline void rch_coll_op_after(const struct rch_coll_op *op, void *acc, void *in, size_t count)
{
    if (!count)
        return;
    if (op->commutative) {
        op->fn(in, acc, count, op->arg);
    } else {
        op->fn(acc, in, count, op->arg);
        memcpy(acc, in, count * op->elem_size);
    }
}

static inline int rch_coll_is_pow2(int n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

#endif
