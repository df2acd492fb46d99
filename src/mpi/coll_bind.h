/*
 * Shared by the MPI bindings of the collectives (mpi/coll_*.c) and of
 * MPI_Op (mpi/op*.c): argument checks that name the argument, staging of
 * datatype buffers into the packed bytes src/coll works on, and the binding
 * of an (MPI_Op, MPI_Datatype) pair to a struct rch_coll_op.
 *
 * Staging. src/coll moves contiguous bytes. A buffer of a contiguous type
 * (t->contig) is used in place at buf + true_lb; any other is packed into a
 * temporary before (what is sent) and unpacked after (what is received).
 * Displacements of the v/w variants become byte offsets from the buffer;
 * when one would be negative (src/coll takes size_t offsets) the packed path
 * is used.
 *
 * Mismatched sizes between what a rank sends and what it receives itself
 * (a root's own block, an alltoall's self block) are reported here with
 * MPI_ERR_TRUNCATE when the send is larger and MPI_ERR_ARG when it is
 * smaller, the same classes src/coll reports for a mismatch with a peer.
 */
#ifndef RCH_MPI_COLL_BIND_H
#define RCH_MPI_COLL_BIND_H

#include <stddef.h>
#include "mpi/mpi_impl.h"

/* ---- checks (coll_check.c); each returns MPI_SUCCESS or the reported code ---- */

/* MPI running, comm valid (and an intracommunicator): *cp set. */
int rch_mpi_coll_begin(const char *fn, MPI_Comm comm, struct rch_mpi_comm **cp);
/* root in 0 .. size-1: MPI_ERR_ROOT. */
int rch_mpi_coll_check_root(const char *fn, struct rch_mpi_comm *c, int root);
/* (buf, count, datatype) with the caller's argument names, e.g. "sendbuf",
 * "sendcount", "sendtype": MPI_ERR_COUNT, MPI_ERR_TYPE (invalid or not
 * committed), MPI_ERR_BUFFER (NULL with data, unless MPI_BOTTOM with absolute
 * addresses; MPI_IN_PLACE where the caller does not allow it). *t is set. */
int rch_mpi_coll_check_buf(const char *fn, struct rch_mpi_comm *c, const void *buf, int count,
                           MPI_Datatype dt, const char *bufarg, const char *countarg,
                           const char *typearg, const struct rch_mpi_type **t);
/* A datatype alone (the buffer is checked per block by the caller). */
int rch_mpi_coll_check_type(const char *fn, struct rch_mpi_comm *c, MPI_Datatype dt,
                            const char *typearg, const struct rch_mpi_type **t);
/* An int array argument of `n` entries: non-NULL; with nonneg, every entry >= 0. */
int rch_mpi_coll_check_array(const char *fn, struct rch_mpi_comm *c, const int *a, int n,
                             const char *arg, int nonneg);
/* sendbuf and recvbuf must not be the same memory when both carry data
 * (MPI_IN_PLACE is the way to say that): MPI_ERR_BUFFER. */
int rch_mpi_coll_check_alias(const char *fn, struct rch_mpi_comm *c, const void *sbuf,
                             const void *rbuf, int has_data);
/* A rank's own send and receive sizes must agree. */
int rch_mpi_coll_check_self(const char *fn, struct rch_mpi_comm *c, size_t sent, size_t expected,
                            const char *what);
/* Report a failure of src/coll (the status and rdmach_last_error()). */
int rch_mpi_coll_fail(const char *fn, struct rch_mpi_comm *c, rdmach_status_t st);
/* Report an allocation failure. */
int rch_mpi_coll_nomem(const char *fn, struct rch_mpi_comm *c, size_t bytes);

/* ---- staging (coll_stage.c) ---- */

/* `count` elements of t at buf as contiguous bytes: `ptr` is what src/coll
 * uses; `tmp` (owned, may be NULL) is the packed copy when t is not
 * contiguous. */
struct rch_mpi_stage {
    void *ptr;
    void *tmp;
};
/* Data to send (and, for inout, also to receive): packed if needed. */
int rch_mpi_stage_in(const char *fn, struct rch_mpi_comm *c, const void *buf, size_t count,
                     const struct rch_mpi_type *t, struct rch_mpi_stage *s);
/* Room to receive into (nothing is copied in). */
int rch_mpi_stage_out(const char *fn, struct rch_mpi_comm *c, void *buf, size_t count,
                      const struct rch_mpi_type *t, struct rch_mpi_stage *s);
/* Unpack what was received into the user's buffer (if staged) and free. */
void rch_mpi_stage_done(struct rch_mpi_stage *s, void *buf, size_t count, const struct rch_mpi_type *t);
void rch_mpi_stage_free(struct rch_mpi_stage *s);

/* The blocks of a v/w collective: block i is cnt[i] elements of its type
 * (types ? types[i] : t) at byte displacement displs[i] * unit from buf
 * (unit: the type's extent for the v variants, 1 for alltoallw). `base`,
 * `counts` and `offs` are what src/coll gets: the user's buffer with byte
 * offsets when every block's type is contiguous and every offset >= 0, a
 * packed temporary otherwise. */
struct rch_mpi_vstage {
    int n;
    char *buf;
    const int *cnt;
    const struct rch_mpi_type *t;
    const struct rch_mpi_type *const *types;
    MPI_Aint *disp;               /* [n] user byte displacements */
    size_t *counts, *offs;        /* [n] bytes and offsets for src/coll */
    void *base;
    void *tmp;
};
int rch_mpi_vstage_init(const char *fn, struct rch_mpi_comm *c, void *buf, int n, const int *cnt,
                        const int *displs, int unit_is_extent, const struct rch_mpi_type *t,
                        const struct rch_mpi_type *const *types, struct rch_mpi_vstage *v);
void rch_mpi_vstage_pack(struct rch_mpi_vstage *v, int i);      /* no-op when direct */
void rch_mpi_vstage_pack_all(struct rch_mpi_vstage *v);
void rch_mpi_vstage_unpack_all(struct rch_mpi_vstage *v);
void rch_mpi_vstage_free(struct rch_mpi_vstage *v);

/* pack/unpack of any size_t count (the datatype engine takes int counts). */
void rch_mpi_pack_n(const void *in, size_t count, const struct rch_mpi_type *t, void *out);
void rch_mpi_unpack_n(const void *in, void *out, size_t count, const struct rch_mpi_type *t);

/* ---- reductions (op.c, op_bind.c) ---- */

/* A reduction bound for one call: cop is what src/coll runs; a buffer of
 * `count` datatype elements is count * per_elem elements of cop.elem_size. */
struct rch_mpi_red {
    struct rch_coll_op cop;
    size_t per_elem;
    /* user functions: the trampoline's state (cop.arg points here) */
    MPI_User_function *user_fn;
    MPI_Datatype dt;
    const struct rch_mpi_type *t;
};
/* Bind op to datatype t (handle dt) for a reduction: MPI_ERR_OP for an
 * invalid op, an op not defined on the type (naming both), MPI_REPLACE or
 * MPI_NO_OP outside one-sided operations (unless allow_rma_ops), or a
 * predefined op on a derived type that is not made of one basic type. */
int rch_mpi_red_bind(const char *fn, struct rch_mpi_comm *c, MPI_Op op, MPI_Datatype dt,
                     const struct rch_mpi_type *t, int allow_rma_ops, struct rch_mpi_red *r);

/* The element kind (enum rch_coll_kind) of a predefined basic datatype, or
 * -1 (added for one-sided accumulates, which send (op, kind) to the target). */
int rch_mpi_red_kind(MPI_Datatype basic);

/* The op object (op.c): predefined ops have kind >= 0, user ops fn != NULL. */
struct rch_mpi_op {
    int kind;                     /* enum rch_coll_opkind, or -1 for a user op */
    MPI_User_function *fn;
    int commute;
};
const struct rch_mpi_op *rch_mpi_op_get(MPI_Op op);   /* NULL if invalid (MPI_OP_NULL too) */
/* "MPI_SUM", "user operation 0x98000002", "0x1234": for messages. */
const char *rch_mpi_op_name(MPI_Op op, char *buf, size_t len);

#endif
