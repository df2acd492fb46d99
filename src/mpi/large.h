/*
 * The large-count (_c) entry points' conversions (large.c), used by the
 * wrappers src/binding/gen_large.py generates and by the hand-written ones
 * (large_*.c). A _c function calls its int form: counts that fit an int are
 * passed as they are; a buffer's count that does not becomes one element of
 * a contiguous type of that many; anything else that does not fit is an
 * error naming the argument.
 */
#ifndef RCH_MPI_LARGE_H
#define RCH_MPI_LARGE_H

#include "mpi/mpi_impl.h"

/* Who reports a failure: the window's error handler if win is one, else the
 * communicator's (MPI_COMM_NULL: the default handler). */
struct rch_mpi_large_ctx {
    const char *fn;
    MPI_Comm comm;
    MPI_Win win;
    int constructor;          /* a datatype constructor's: its types need not be committed */
};

int rch_mpi_large_err(const struct rch_mpi_large_ctx *x, int errclass, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* v as an int in *out; MPI_ERR_COUNT (MPI_ERR_ARG if disp) naming arg if it does not fit. */
int rch_mpi_large_int(const struct rch_mpi_large_ctx *x, const char *arg, int disp, MPI_Count v, int *out);
/* The n values of a as a malloc'ed int array (NULL if a is NULL). */
int rch_mpi_large_ints(const struct rch_mpi_large_ctx *x, const char *arg, int disp, const MPI_Count *a,
                       MPI_Count n, int **out);
/* (count, dt) as an int count of a datatype: (count, dt) itself if count
 * fits, else (1, a committed contiguous type of count dt) that the caller
 * releases with rch_mpi_large_buf_done. A negative count is MPI_ERR_COUNT. */
int rch_mpi_large_buf(const struct rch_mpi_large_ctx *x, const char *arg, MPI_Count count, MPI_Datatype dt,
                      int *count_i, MPI_Datatype *dt_i);
void rch_mpi_large_buf_done(MPI_Datatype dt_i, MPI_Datatype dt);
/* count elements of dt (valid and committed, else MPI_ERR_TYPE naming arg)
 * as one committed contiguous type that the caller frees; a reduction over
 * it is one over count dt (rch_mpi_large_origin). */
int rch_mpi_large_contig(const struct rch_mpi_large_ctx *x, const char *arg, MPI_Count count, MPI_Datatype dt,
                         MPI_Datatype *out);
/* Whether t is such a contiguous type: then *base and *n are what it holds
 * (a user reduction is given them, not the library's type: op_bind.c). */
int rch_mpi_large_origin(const struct rch_mpi_type *t, MPI_Datatype *base, MPI_Count *n);
/* A contiguous type of count (> INT_MAX) oldtype, uncommitted (type_large.c);
 * internal: for a _c call's buffer (rch_mpi_large_origin knows it). */
int rch_mpi_type_contiguous_large(const char *fn, MPI_Count count, MPI_Datatype oldtype, int internal,
                                  MPI_Datatype *newtype);
/* A large-count constructor's call, as its record holds it (MPI-4.1
 * 5.1.13): ints[], the large counts head[0..nhead-1] then a[0..n-1] then
 * b[0..n-1] (a, b skipped if NULL), and types[]. */
struct rch_mpi_type_call_c {
    int combiner;
    int nints;
    const int *ints;
    int nhead;
    const MPI_Count *head;
    MPI_Count n;
    const MPI_Count *a, *b;
    int ntypes;
    const MPI_Datatype *types;
};
/* Make *newtype's construction record the call c that made it, replacing
 * what the int constructors it was built with recorded. err: the
 * construction's result, returned as it is if not MPI_SUCCESS. Out of
 * memory: frees *newtype, MPI_ERR_NO_MEM. (type_large.c) */
int rch_mpi_type_record_c(const char *fn, int err, MPI_Datatype *newtype, const struct rch_mpi_type_call_c *c);
/* A peer's block of an alltoallw-shaped call, count dt at displ (bytes if
 * in_bytes, else extents of dt), as (*cnt = 1, *type): a committed
 * one-block struct at that many bytes (of a contiguous type where count is
 * over INT_MAX) that the caller frees, so that the int form gets counts 0 or
 * 1 and displacements 0. dt must be valid and committed (MPI_ERR_TYPE), the
 * count not negative (MPI_ERR_COUNT), each named with cname and peer. */
int rch_mpi_large_block(const struct rch_mpi_large_ctx *x, const char *cname, const char *dname, int peer,
                        MPI_Count count, MPI_Aint displ, int in_bytes, MPI_Datatype dt, int *cnt,
                        MPI_Datatype *type);
/* MPI_Neighbor_alltoallw, its I and _init forms (kind) whose byte
 * displacements do not all fit an int (the neighbourhood staging's): run
 * through large_nbw.c's large form, *err its result, and 1; 0 (nothing
 * done) when they fit or an argument is for the int form to report. */
enum { RCH_MPI_NBW_BLOCKING, RCH_MPI_NBW_NONBLOCKING, RCH_MPI_NBW_PERSISTENT };
int rch_mpi_nbw_far(const char *fn, int kind, const void *sendbuf, const int sc[], const MPI_Aint sd[],
                    const MPI_Datatype st[], void *recvbuf, const int rc[], const MPI_Aint rd[],
                    const MPI_Datatype rt[], MPI_Comm comm, MPI_Info info, MPI_Request *request, int *err);
/* A neighbourhood exchange as MPI_Neighbor_alltoallw_c's arguments (any
 * count, byte displacements, a datatype per edge), run as kind says: what
 * MPI_Neighbor_alltoallv_c and _allgatherv_c become where their arrays do
 * not fit an int (large_nbv.c), a neighbourhood exchange being one message
 * per edge whatever form each process calls. */
int rch_mpi_nbw_large(const char *fn, int kind, const void *sendbuf, const MPI_Count sc[], const MPI_Aint sd[],
                      const MPI_Datatype st[], void *recvbuf, const MPI_Count rc[], const MPI_Aint rd[],
                      const MPI_Datatype rt[], MPI_Comm comm, MPI_Info info, MPI_Request *request);
/* Lengths of the v-collectives' arrays: comm's size and its topology's
 * in (out = 0) or out-degree; 0 for an invalid communicator (the int
 * function reports it). */
MPI_Count rch_mpi_large_nprocs(MPI_Comm comm);
/* The greatest common divisor of a and b (non-negative; gcd(a, 0) = a). */
MPI_Count rch_mpi_large_gcd(MPI_Count a, MPI_Count b);
/* The remote group's size on an intercommunicator (the length of the
 * v-collectives' per-peer arrays there), comm's size otherwise. */
MPI_Count rch_mpi_large_remote_size(MPI_Comm comm);
/* Whether this process is root in comm: rank root, or on an
 * intercommunicator root == MPI_ROOT (1 too for an invalid comm: the int
 * function reports it). */
int rch_mpi_large_at_root(MPI_Comm comm, int root);
MPI_Count rch_mpi_large_degree(MPI_Comm comm, int out);

#endif
