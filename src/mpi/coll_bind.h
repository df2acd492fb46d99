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
 * committed; at count 0 not checked: rch_mpi_coll_check_type_if), MPI_ERR_BUFFER
 * (NULL with data, unless MPI_BOTTOM with absolute addresses; MPI_IN_PLACE
 * where the caller does not allow it). *t is set. */
int rch_mpi_coll_check_buf(const char *fn, struct rch_mpi_comm *c, const void *buf, int count,
                           MPI_Datatype dt, const char *bufarg, const char *countarg,
                           const char *typearg, const struct rch_mpi_type **t);
/* A datatype alone (the buffer is checked per block by the caller). */
int rch_mpi_coll_check_type(const char *fn, struct rch_mpi_comm *c, MPI_Datatype dt,
                            const char *typearg, const struct rch_mpi_type **t);
/* The datatype of a buffer: checked as above if has_data (a count > 0 of
 * it), else not examined, *t = rch_mpi_type_of_empty(dt): MPICH checks a
 * buffer's datatype only when it carries data. A reduction checks its
 * datatype whatever the count (the operation is bound to it, as MPICH
 * does): rch_mpi_coll_check_type first. */
int rch_mpi_coll_check_type_if(const char *fn, struct rch_mpi_comm *c, MPI_Datatype dt, int has_data,
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
/* count >= 0: MPI_ERR_COUNT naming countarg. */
int rch_mpi_coll_check_count(const char *fn, struct rch_mpi_comm *c, int count, const char *countarg);
/* The count and displacement arrays of a v/w side: n counts >= 0, n displacements. */
int rch_mpi_coll_check_counts(const char *fn, struct rch_mpi_comm *c, int n, const int *counts,
                              const char *countarg, const int *displs, const char *displsarg);
/* The datatype(s) and the buffer of each of n blocks (block i: counts[i]
 * elements of types ? types[i] : dt); the buffer and types[i] are checked
 * for the blocks that carry data, dt if any block does. *t (single type) or
 * tv[i] (types) is set. */
int rch_mpi_coll_check_blocks(const char *fn, struct rch_mpi_comm *c, const void *buf, int n,
                              const int *counts, MPI_Datatype dt, const MPI_Datatype *types,
                              const char *bufarg, const char *countarg, const char *typearg,
                              const struct rch_mpi_type **t, const struct rch_mpi_type **tv);
/* Report a failure of src/coll (the status and rdmach_last_error()). */
int rch_mpi_coll_fail(const char *fn, struct rch_mpi_comm *c, rdmach_status_t st);
/* Report an allocation failure. */
int rch_mpi_coll_nomem(const char *fn, struct rch_mpi_comm *c, size_t bytes);

/* Room for the c->size per-peer types the checks of a v variant resolve
 * (the caller frees it); NULL with *err reported. */
const struct rch_mpi_type **rch_mpi_coll_tv(const char *fn, struct rch_mpi_comm *c, int *err);

/* ---- checks of a whole call, one per shape (coll_shape.c) ----
 *
 * Each serves a blocking binding and its non-blocking form alike. Called
 * after rch_mpi_coll_begin (and the request check of the non-blocking form)
 * and, for a rooted call, after rch_mpi_coll_check_root; the arguments are
 * checked in the order they matter and reported as above. */

struct rch_mpi_red;    /* below */

/* What the checks of a call found. */
struct rch_mpi_coll_args {
    const struct rch_mpi_type *st, *rt;   /* send / receive datatype; NULL where not significant */
    int in_place;       /* MPI_IN_PLACE given where this rank may give it */
    int is_root;        /* this rank holds the whole vector (the root; every rank of an all- shape) */
    size_t block;       /* bytes of this rank's own block (one-block shapes, gatherv, scatterv) */
};

/* One block per rank, gathered: Gather at `root`; Allgather and Alltoall
 * everywhere (the alltoall send buffer holds p blocks of sendcount). */
int rch_mpi_coll_check_gather(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                              int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                              int recvcount, MPI_Datatype recvtype, int root,
                              struct rch_mpi_coll_args *a);
int rch_mpi_coll_check_allgather(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                 int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, struct rch_mpi_coll_args *a);
int rch_mpi_coll_check_alltoall(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, struct rch_mpi_coll_args *a);
/* One block per rank, scattered from `root`. */
int rch_mpi_coll_check_scatter(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                               int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, int root,
                               struct rch_mpi_coll_args *a);
/* The v variants: Gatherv at `root`, Allgatherv everywhere, Scatterv. With
 * per-peer types (recvtypes, sendtypes; NULL: the one datatype), as the
 * large-count forms give them (large_nbv.c), block i is counts[i]
 * elements of types[i] and rtv[i] / stv[i] (n entries) are set. */
int rch_mpi_coll_check_gatherv(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                               int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                               const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                               const MPI_Datatype *recvtypes, int root, const struct rch_mpi_type **rtv,
                               struct rch_mpi_coll_args *a);
int rch_mpi_coll_check_allgatherv(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                  int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                                  const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                                  const MPI_Datatype *recvtypes, const struct rch_mpi_type **rtv,
                                  struct rch_mpi_coll_args *a);
int rch_mpi_coll_check_scatterv(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                const int *sendcounts, const int *displs, MPI_Datatype sendtype,
                                const MPI_Datatype *sendtypes, const void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root, const struct rch_mpi_type **stv,
                                struct rch_mpi_coll_args *a);
/* Alltoallv (sendtypes, recvtypes NULL) and alltoallw (per-block types:
 * stv[i], rtv[i] are set; the caller has checked that the arrays it needs
 * are not NULL). */
int rch_mpi_coll_check_alltoallv(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                 const int *sendcounts, const int *sdispls, MPI_Datatype sendtype,
                                 const MPI_Datatype *sendtypes, const void *recvbuf,
                                 const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                                 const MPI_Datatype *recvtypes, const struct rch_mpi_type **stv,
                                 const struct rch_mpi_type **rtv, struct rch_mpi_coll_args *a);
/* Reductions over one vector of count elements: Reduce at `root`;
 * Allreduce, Scan, Exscan everywhere. op is bound to the datatype into
 * *red (st = rt = the datatype). */
int rch_mpi_coll_check_reduce(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                              const void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              int root, struct rch_mpi_red *red, struct rch_mpi_coll_args *a);
int rch_mpi_coll_check_allreduce(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                 const void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                 struct rch_mpi_red *red, struct rch_mpi_coll_args *a);
/* Reduce_scatter (recvcounts, or wide: MPI_Reduce_scatter_c's) and
 * Reduce_scatter_block (both NULL, every block `block` elements): *total
 * elements in, *mine out. */
int rch_mpi_coll_check_reduce_scatter(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                      const void *recvbuf, const int *recvcounts, const MPI_Count *wide,
                                      int block, MPI_Datatype datatype, MPI_Op op, struct rch_mpi_red *red,
                                      struct rch_mpi_coll_args *a, size_t *total, size_t *mine);

/* ---- staging (coll_stage.c) ---- */

/* `count` elements of t at buf as contiguous bytes: `ptr` is what src/coll
 * uses; `tmp` (owned, may be NULL) is the packed copy when t is not
 * contiguous. */
struct rch_mpi_stage {
    void *ptr;
    void *tmp;
    /* staged in with tmp: what was packed (a persistent collective packs it
     * again at every start) */
    const void *src;
    size_t count;
    const struct rch_mpi_type *t;
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
 * packed temporary otherwise. Up to RCH_MPI_VSTAGE_INLINE blocks the arrays
 * are the struct's own (no allocation per call of a small communicator), so
 * a vstage is initialised where it stays and never copied. */
#define RCH_MPI_VSTAGE_INLINE 8
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
    MPI_Aint disp_inl[RCH_MPI_VSTAGE_INLINE];
    size_t counts_inl[2 * RCH_MPI_VSTAGE_INLINE];
};
int rch_mpi_vstage_init(const char *fn, struct rch_mpi_comm *c, void *buf, int n, const int *cnt,
                        const int *displs, int unit_is_extent, const struct rch_mpi_type *t,
                        const struct rch_mpi_type *const *types, struct rch_mpi_vstage *v);
void rch_mpi_vstage_pack(struct rch_mpi_vstage *v, int i);      /* no-op when direct */
void rch_mpi_vstage_pack_all(struct rch_mpi_vstage *v);
void rch_mpi_vstage_unpack_all(struct rch_mpi_vstage *v);
void rch_mpi_vstage_free(struct rch_mpi_vstage *v);

/* ---- staging by shape (coll_shape.c), after the shape's checks ----
 * Each stages into the caller's structures (on the stack for a blocking
 * call, in struct rch_mpi_nb for a non-blocking one); on failure nothing
 * stays staged. */

/* Gather, Allgather: s = this rank's block unless in place; where the rank
 * holds the vector, r = room for its p blocks, its own block copied in
 * when in place (src/coll leaves that block where it is). */
int rch_mpi_stage_gather(const char *fn, struct rch_mpi_comm *c, const struct rch_mpi_coll_args *a,
                         const void *sendbuf, int sendcount, void *recvbuf, int recvcount,
                         struct rch_mpi_stage *s, struct rch_mpi_stage *r);
/* Scatter: at the root s = the p blocks; r = room for this rank's block
 * unless in place. */
int rch_mpi_stage_scatter(const char *fn, struct rch_mpi_comm *c, const struct rch_mpi_coll_args *a,
                          const void *sendbuf, int sendcount, void *recvbuf, int recvcount,
                          struct rch_mpi_stage *s, struct rch_mpi_stage *r);
/* Gatherv, Allgatherv: s as for gather; where the rank holds the vector,
 * rv = its p blocks (counts: the user's array, or a copy that lives as
 * long as rv; tv: the per-peer types, NULL for a->rt, living as long too),
 * its own block packed in when in place. */
int rch_mpi_stage_gatherv(const char *fn, struct rch_mpi_comm *c, const struct rch_mpi_coll_args *a,
                          const void *sendbuf, int sendcount, void *recvbuf, const int *counts,
                          const int *displs, const struct rch_mpi_type *const *tv, struct rch_mpi_stage *s,
                          struct rch_mpi_vstage *rv);
/* Scatterv: at the root sv = the p blocks (of tv[i], or a->st), packed; r
 * as for scatter. */
int rch_mpi_stage_scatterv(const char *fn, struct rch_mpi_comm *c, const struct rch_mpi_coll_args *a,
                           const void *sendbuf, const int *counts, const int *displs,
                           const struct rch_mpi_type *const *tv, void *recvbuf, int recvcount,
                           struct rch_mpi_vstage *sv, struct rch_mpi_stage *r);
/* A send vector and a receive vector where MPI_IN_PLACE means the operand
 * is in recvbuf (reductions, alltoall, reduce_scatter): s = scount
 * elements of st from sendbuf unless in place; if the rank receives, r =
 * rcount elements of rt at recvbuf, packed from it when in place. */
int rch_mpi_stage_sendrecv(const char *fn, struct rch_mpi_comm *c, int in_place, int receives,
                           const void *sendbuf, size_t scount, const struct rch_mpi_type *st,
                           void *recvbuf, size_t rcount, const struct rch_mpi_type *rt,
                           struct rch_mpi_stage *s, struct rch_mpi_stage *r);
/* The end of a blocking call that src/coll finished with status st: s (may
 * be NULL) is freed; r is unpacked into buf (count elements of t) if st is
 * OK and unpack is set, else freed. Returns the MPI error code. */
int rch_mpi_stage_end(const char *fn, struct rch_mpi_comm *c, rdmach_status_t st,
                      struct rch_mpi_stage *s, struct rch_mpi_stage *r, void *buf, size_t count,
                      const struct rch_mpi_type *t, int unpack);
/* The same for a v receive: v is unpacked (if st is OK and unpack) and freed. */
int rch_mpi_vstage_end(const char *fn, struct rch_mpi_comm *c, rdmach_status_t st,
                       struct rch_mpi_vstage *v, int unpack);

/* pack/unpack of any size_t count (the datatype engine takes int counts). */
void rch_mpi_pack_n(const void *in, size_t count, const struct rch_mpi_type *t, void *out);
void rch_mpi_unpack_n(const void *in, void *out, size_t count, const struct rch_mpi_type *t);

/* ---- the blocking v variants (coll_gather.c, coll_allgather.c, coll_scatter.c) ----
 * MPI_Gatherv, MPI_Allgatherv and MPI_Scatterv with fn in their errors and
 * per-peer types on the vector side where types is not NULL: the
 * large-count forms whose counts no one int datatype describes give each
 * peer's block as one element of its own type (large_nbv.c). The
 * protocol is the int form's (src/coll moves bytes), so other processes
 * may call either form. The non-blocking ones: coll_nb.h. */
int rch_mpi_gatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    const MPI_Datatype recvtypes[], int root, MPI_Comm comm);
int rch_mpi_allgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                       const MPI_Datatype recvtypes[], MPI_Comm comm);
int rch_mpi_scatterv(const char *fn, const void *sendbuf, const int sendcounts[], const int displs[],
                     MPI_Datatype sendtype, const MPI_Datatype sendtypes[], void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm);

/* MPI_Reduce_scatter on an intracommunicator with MPI_Count recvcounts
 * (coll_reduce_scatter.c): MPI_Reduce_scatter_c's whose counts no common
 * divisor brings under INT_MAX. Every process has the same recvcounts
 * (MPI-4.1 6.10.1), so every one of them calls this. */
int rch_mpi_reduce_scatter_c(const char *fn, const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/* ---- reductions (op.c, op_bind.c) ---- */

/* A reduction bound for one call: cop is what src/coll runs; a buffer of
 * `count` datatype elements is count * per_elem elements of cop.elem_size. */
struct rch_mpi_red {
    struct rch_coll_op cop;
    size_t per_elem;
    /* user functions: the trampoline's state (cop.arg points here) */
    MPI_User_function *user_fn;
    MPI_User_function_c *user_fn_c;
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
    MPI_User_function_c *fn_c;    /* made by MPI_Op_create_c (then fn is NULL) */
};
const struct rch_mpi_op *rch_mpi_op_get(MPI_Op op);   /* NULL if invalid (MPI_OP_NULL too) */
/* A reference to a user op for an operation that binds it after its call
 * returned (MPI_Op_free meanwhile leaves it usable); no-ops for predefined
 * and invalid ops. */
void rch_mpi_op_retain(MPI_Op op);
void rch_mpi_op_release(MPI_Op op);
/* "MPI_SUM", "user operation 0x98000002", "0x1234": for messages. */
const char *rch_mpi_op_name(MPI_Op op, char *buf, size_t len);

#endif
