/*
 * src/coll: collective operations over the device's point-to-point API.
 *
 * This layer knows nothing of MPI. The MPI binding (src/mpi/coll_*.c) turns
 * a communicator into a `struct rch_coll_comm` view, datatypes into packed
 * bytes (or elements of a basic kind) and an MPI_Op into a
 * `struct rch_coll_op`, and calls the entry points below.
 *
 * Shape (what the algorithm work of the collectives issue grows into):
 *   - one file per algorithm (bcast_binomial.c, allreduce_recdbl.c, ...),
 *     each opening with its idea, restrictions, cost and a diagram;
 *   - one ops table per collective listing its algorithms (coll_algos.c),
 *     each algorithm saying whether it applies to a call;
 *   - selection from a tuning table keyed by communicator shape and message
 *     size (coll_tuning.c), with RDMACH_<COLL>=<algorithm> forcing one, and
 *     a fallback that always applies.
 *
 * Conventions of every entry point:
 *   - Blocking; all ranks of the communicator call the same collective in
 *     the same order (MPI's rule). Messages travel on the collective context
 *     id `ctx` of the view, so they never match user point-to-point traffic.
 *   - Buffers are contiguous. Sizes of data blocks are in bytes; reductions
 *     count elements of `op->elem_size` bytes. Displacements are byte offsets
 *     from the buffer.
 *   - RCH_COLL_IN_PLACE as the send buffer where MPI allows MPI_IN_PLACE
 *     (the binding translates one into the other).
 *   - A mismatch between ranks (a message longer or shorter than the
 *     receiver expects) is an error, never a silent truncation.
 *   - Returns RDMACH_OK or an error status with rdmach_last_error() naming
 *     the collective, the peer and the cause.
 */
#ifndef RCH_COLL_COLL_H
#define RCH_COLL_COLL_H

#include <stddef.h>
#include <stdint.h>
#include "rdmach.h"

/* "The data is already in the receive buffer" (MPI_IN_PLACE at the binding). */
#define RCH_COLL_IN_PLACE ((void *)-1)

/*
 * A communicator as the collectives see it. Owned by the caller; the
 * collectives only read it during the call.
 */
struct rch_coll_comm {
    int rank, size;
    const int *world_of;       /* [size]: world rank of each rank of the communicator */
    uint32_t ctx;              /* the collective context id: the communicator's ctx + 1 */
    /* Node layout, for the node-aware algorithms. nnodes == 0: unknown (then
     * the communicator is treated as one node of `size` ranks). */
    int nnodes;
    int max_ppn;               /* most ranks of the communicator on one node */
    const int *node_of;        /* [size]: node index 0..nnodes-1 of each rank, or NULL */
    /* The communicator's collective state (barrier backend, sequence number
     * of its non-blocking collectives): rch_coll_comm_init, or NULL for a
     * view without one (it then runs the dissemination barrier and no
     * non-blocking collective). A view made for a subset or a reordering of
     * the ranks must set it to NULL: the state belongs to this group.
     * Added by the barrier framework / NBC. */
    struct rch_coll_cstate *state;
};

/*
 * A reduction: inout[i] = in[i] op inout[i] for i < count, `in` being the
 * operand that comes first in rank order (MPI's convention for user
 * functions). Elements are `elem_size` bytes, packed.
 */
typedef void (*rch_coll_op_fn)(const void *in, void *inout, size_t count, void *arg);

struct rch_coll_op {
    rch_coll_op_fn fn;
    void *arg;                 /* passed to fn (the binding's user function and datatype) */
    size_t elem_size;          /* bytes of one element; count is in elements */
    int commutative;           /* 0: the result follows rank order strictly */
};

/* ---- built-in reduction kernels (coll/op_kernels*.c) ----
 * The machine representations of basic elements the predefined operations
 * act on. Pair kinds are the packed (value, index) of MINLOC/MAXLOC. */
enum rch_coll_kind {
    RCH_COLL_K_I8, RCH_COLL_K_I16, RCH_COLL_K_I32, RCH_COLL_K_I64,
    RCH_COLL_K_U8, RCH_COLL_K_U16, RCH_COLL_K_U32, RCH_COLL_K_U64,
    RCH_COLL_K_F32, RCH_COLL_K_F64, RCH_COLL_K_FLD,          /* float, double, long double */
    RCH_COLL_K_C32, RCH_COLL_K_C64, RCH_COLL_K_CLD,          /* float/double/long double _Complex */
    RCH_COLL_K_BOOL,                                         /* C _Bool */
    RCH_COLL_K_F32_I32, RCH_COLL_K_F64_I32, RCH_COLL_K_I64_I32, /* MPI_FLOAT_INT, DOUBLE_INT, LONG_INT */
    RCH_COLL_K_I16_I32, RCH_COLL_K_I32_I32, RCH_COLL_K_FLD_I32, /* SHORT_INT, 2INT, LONG_DOUBLE_INT */
    RCH_COLL_K_F32_F32, RCH_COLL_K_F64_F64,                  /* Fortran 2REAL, 2DOUBLE_PRECISION */
    RCH_COLL_K_I16_X32,  /* MPI_SHORT_INT as laid out in memory (int at offset 4, 8 bytes): one-sided
                          * accumulates combine in the target's memory, where its packed form is not */
    RCH_COLL_K_F128, RCH_COLL_K_C128,   /* IEEE binary128 (gcc's _Float128): REAL(16), COMPLEX(16) */
    RCH_COLL_K_MAX
};

enum rch_coll_opkind {
    RCH_COLL_OP_MAX, RCH_COLL_OP_MIN, RCH_COLL_OP_SUM, RCH_COLL_OP_PROD,
    RCH_COLL_OP_LAND, RCH_COLL_OP_BAND, RCH_COLL_OP_LOR, RCH_COLL_OP_BOR,
    RCH_COLL_OP_LXOR, RCH_COLL_OP_BXOR, RCH_COLL_OP_MINLOC, RCH_COLL_OP_MAXLOC,
    RCH_COLL_OP_REPLACE, RCH_COLL_OP_NO_OP,
    RCH_COLL_OPKIND_MAX
};

/* The kernel of (op, kind), or NULL where the operation is not defined on
 * that representation (SUM of pairs, bitwise on floating point, ...).
 * REPLACE gives inout = in; NO_OP leaves inout. Kernels ignore `arg`. */
rch_coll_op_fn rch_coll_kernel(enum rch_coll_opkind op, enum rch_coll_kind kind);
/* The same operation over blocks apart in memory: for k < nblk and i < blen
 * (elements), inout[k][i] = in[k][i] op inout[k][i], where block k of in is
 * at in + k * istride bytes and of inout at inout + k * ostride. One loop
 * over a derived datatype's blocks where they lie (a one-sided accumulate
 * into a vector: each target element read and written once) instead of
 * gathering them into a buffer, combining and scattering them back. Every
 * block address must be aligned for the element (rch_base_blocks2d_ok). NULL
 * for the pair kinds, REPLACE and NO_OP: those gather and scatter. */
typedef void (*rch_coll_op2d_fn)(const void *in, ptrdiff_t istride, void *inout, ptrdiff_t ostride, size_t nblk,
                                 size_t blen);
rch_coll_op2d_fn rch_coll_kernel2d(enum rch_coll_opkind op, enum rch_coll_kind kind);
/* SUM over the repetitions of a few elements apart, a struct's or an
 * indexed type's period: for r < reps and k < ne, the element at
 * user + r * stride + off[k] bytes += in[r * ne + k] (in packed). One pass
 * over the user's memory where the block form makes one per block. 2 <= ne
 * <= RCH_COLL_ROWS_MAX, every element address aligned for the element, no
 * two the same. NULL except for SUM on the 32- and 64-bit integer and
 * floating-point kinds (the common accumulate; the others take the block
 * form). */
#define RCH_COLL_ROWS_MAX 16
typedef void (*rch_coll_oprows_fn)(const void *in, void *user, ptrdiff_t stride, size_t reps, const ptrdiff_t *off,
                                   int ne);
rch_coll_oprows_fn rch_coll_kernel_rows(enum rch_coll_opkind op, enum rch_coll_kind kind);
/* Bytes of one packed element of a kind (DOUBLE_INT: 12). 0 if out of range. */
size_t rch_coll_kind_size(enum rch_coll_kind kind);
const char *rch_coll_kind_name(enum rch_coll_kind kind);
const char *rch_coll_opkind_name(enum rch_coll_opkind op);

/* ---- collectives ---- */
rdmach_status_t rch_coll_barrier(const struct rch_coll_comm *c);
/* `bytes` at every rank; the root's buffer is sent, the others' overwritten. */
rdmach_status_t rch_coll_bcast(const struct rch_coll_comm *c, void *buf, size_t bytes, int root);
/* Root: rbuf gets the reduction of every rank's sbuf (sbuf IN_PLACE: the
 * root's operand is in rbuf). Elsewhere rbuf is not used (may be NULL). */
rdmach_status_t rch_coll_reduce(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                size_t count, const struct rch_coll_op *op, int root);
/* sbuf IN_PLACE: the operand is in rbuf. */
rdmach_status_t rch_coll_allreduce(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                   size_t count, const struct rch_coll_op *op);
/* Each rank contributes `bytes`; the root's rbuf gets size blocks in rank
 * order. Root with sbuf IN_PLACE: its block is already at rbuf + root*bytes. */
rdmach_status_t rch_coll_gather(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                size_t bytes, int root);
/* Rank i contributes rcounts[i] bytes (`sbytes` at the caller) placed at
 * rbuf + rdispls[i] on the root; rcounts/rdispls are read only at the root. */
rdmach_status_t rch_coll_gatherv(const struct rch_coll_comm *c, const void *sbuf, size_t sbytes,
                                 void *rbuf, const size_t *rcounts, const size_t *rdispls, int root);
/* The root's sbuf holds size blocks of `bytes`; rank i gets block i. Root
 * with rbuf IN_PLACE: its block stays in sbuf. */
rdmach_status_t rch_coll_scatter(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                 size_t bytes, int root);
rdmach_status_t rch_coll_scatterv(const struct rch_coll_comm *c, const void *sbuf,
                                  const size_t *scounts, const size_t *sdispls,
                                  void *rbuf, size_t rbytes, int root);
/* sbuf IN_PLACE: my block is already at rbuf + rank*bytes. */
rdmach_status_t rch_coll_allgather(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                   size_t bytes);
/* My block is rcounts[rank] bytes; sbuf IN_PLACE: it is at rbuf + rdispls[rank]. */
rdmach_status_t rch_coll_allgatherv(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                    const size_t *rcounts, const size_t *rdispls);
/* sbuf IN_PLACE: the blocks to send are in rbuf (and are replaced). */
rdmach_status_t rch_coll_alltoall(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                  size_t bytes);
/* sbuf IN_PLACE: send layout = receive layout (scounts/sdispls ignored). */
rdmach_status_t rch_coll_alltoallv(const struct rch_coll_comm *c, const void *sbuf,
                                   const size_t *scounts, const size_t *sdispls, void *rbuf,
                                   const size_t *rcounts, const size_t *rdispls);
/* sbuf holds sum(counts) elements; rank i gets the reduction of block i
 * (counts[i] elements) in rbuf. sbuf IN_PLACE: the input is in rbuf and the
 * result is left at its start. */
rdmach_status_t rch_coll_reduce_scatter(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                        const size_t *counts, const struct rch_coll_op *op);
/* Inclusive prefix reduction; sbuf IN_PLACE: the operand is in rbuf. */
rdmach_status_t rch_coll_scan(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                              size_t count, const struct rch_coll_op *op);
/* Exclusive prefix reduction; rank 0's rbuf is left untouched. */
rdmach_status_t rch_coll_exscan(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                size_t count, const struct rch_coll_op *op);

/* ---- algorithm selection ---- */
enum rch_coll_id {
    RCH_COLL_BARRIER, RCH_COLL_BCAST, RCH_COLL_REDUCE, RCH_COLL_ALLREDUCE,
    RCH_COLL_GATHER, RCH_COLL_GATHERV, RCH_COLL_SCATTER, RCH_COLL_SCATTERV,
    RCH_COLL_ALLGATHER, RCH_COLL_ALLGATHERV, RCH_COLL_ALLTOALL, RCH_COLL_ALLTOALLV,
    RCH_COLL_REDUCE_SCATTER, RCH_COLL_SCAN, RCH_COLL_EXSCAN,
    RCH_COLL_ID_MAX
};

/* "bcast", "allreduce", ... (the lower-case name of RDMACH_<COLL>). */
const char *rch_coll_name(enum rch_coll_id id);
/* Number of algorithms of a collective and their names (for rdmach-info). */
int rch_coll_algo_count(enum rch_coll_id id);
const char *rch_coll_algo_name(enum rch_coll_id id, int i);
/* Force an algorithm by name (NULL or "" or "auto": back to the tuning
 * table). RDMACH_ERR_CONFIG naming the accepted names if there is no such
 * algorithm. A forced algorithm that does not apply to a call (e.g. a
 * commutative-only one with a non-commutative op) falls back, logged at debug. */
rdmach_status_t rch_coll_force(enum rch_coll_id id, const char *algo);
/* The algorithm the latest call of `id` made by this thread ran, or where
 * this thread made none, by any thread of the process ("" before the first
 * call): for tests and traces. */
const char *rch_coll_last_algo(enum rch_coll_id id);

/*
 * Configuration of the selection (coll_select.c, coll_tuning.c).
 *
 * rch_coll_init reads the collectives' tunables once: RDMACH_<COLL> (forced
 * algorithms), RDMACH_TUNING_FILE. The first collective call (and
 * rch_coll_force) runs it if nobody has; MPI_Init calls it so that a bad
 * value stops the job at start-up. RDMACH_ERR_CONFIG naming the variable (or
 * the file and line) and what it accepts; nothing of a bad value is used.
 */
rdmach_status_t rch_coll_init(void);
/* Scratch buffers kept between calls from 64 KiB up (coll_scratch.c), for
 * the collectives and the MPI layer's own temporaries: NULL if no memory;
 * rch_coll_scratch_free takes any of them (or NULL); release_all frees the
 * kept ones (MPI_Finalize). */
void *rch_coll_scratch(size_t bytes);
void rch_coll_scratch_free(void *p);
void rch_coll_scratch_release_all(void);

/* The network profile selection keys on. RDMACH_NIC_PROFILE=onload|offload,
 * or auto: the network channel's caps.onload (rch_dev_net_onload), onload
 * when no channel reaches another node (the library's own software paths).
 * Read at the first selection, then fixed. */
enum rch_coll_nic { RCH_COLL_NIC_ANY, RCH_COLL_NIC_ONLOAD, RCH_COLL_NIC_OFFLOAD };
enum rch_coll_nic rch_coll_nic(void);
/* Override the profile (tests, rdmach-tune); ANY: back to the tunable. */
void rch_coll_set_nic(enum rch_coll_nic nic);
const char *rch_coll_nic_name(enum rch_coll_nic nic);     /* "any", "onload", "offload" */

/* Load a tuning file (format: docs/TUNING.md). Its rows replace those of any
 * file loaded before and are consulted before the built-in table; NULL or
 * "": no file rows. A malformed file is RDMACH_ERR_CONFIG naming path:line
 * and what was expected there, and leaves the previous rows in force. */
rdmach_status_t rch_coll_load_tuning(const char *path);
/* The collective of a name ("alltoall"), or RCH_COLL_ID_MAX. */
enum rch_coll_id rch_coll_id_of(const char *name);

/* The shape a communicator is selected by: nodes it spans and most ranks on
 * one node, with RDMACH_COLL_VNODE_SIZE applied (coll_select.c). */
void rch_coll_shape(const struct rch_coll_comm *c, int *nodes, int *ppn);

/*
 * Per-communicator state (added by the barrier framework and the
 * non-blocking collectives; coll/nbc_comm.c). rch_coll_comm_init is local
 * (no messages): it gives the view a state object holding a copy of the
 * view, the barrier backend chosen at the communicator's first barrier and
 * the sequence number that makes the tags of its non-blocking collectives
 * unique. rch_coll_comm_free (local) releases the barrier backend and drops
 * the view's reference; non-blocking collectives still running keep the
 * state alive until they finish. Both accept a view without state.
 */
struct rch_coll_cstate;
rdmach_status_t rch_coll_comm_init(struct rch_coll_comm *c);
void rch_coll_comm_free(struct rch_coll_comm *c);

#endif
