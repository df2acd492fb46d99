/*
 * Inside the collectives on intercommunicators (intercoll.c: blocking,
 * intercoll_nb.c: non-blocking and persistent): a call is a list of
 * transfers between this rank and remote ranks (struct rch_mpi_xfer), each
 * one message on the intercommunicator's ctx + 1 with one tag; the plans
 * below check a call's arguments and build its list.
 */
#ifndef RCH_MPI_INTERCOLL_IMPL_H
#define RCH_MPI_INTERCOLL_IMPL_H

#include "mpi/mpi_impl.h"

/* One message of a call: `count` elements of t at buf, to or from remote
 * rank peer. raw: buf holds count * t->size packed bytes (no packing either
 * way: a reduction's operand). */
struct rch_mpi_xfer {
    void *buf;
    int count;
    const struct rch_mpi_type *t;
    int peer;
    int is_send;
    void *tmp;                /* packed bytes of a non-contiguous type */
    struct rch_dev_req *req;
    int raw;
    /* a send with len > 0: only the bytes [from, from + len) of the packed
     * elements, a message that may start or end inside an element (a
     * Reduce_scatter_block's block of another group's datatype) */
    size_t from, len;
};

/* Post x (tmp and req must be NULL): a send packs its data now. */
rdmach_status_t rch_mpi_xfer_post(struct rch_mpi_comm *c, struct rch_mpi_xfer *x);
/* After x's request is done (or was never posted): free it, unpack what
 * arrived packed when st (the call's status so far) is OK; the new status. */
rdmach_status_t rch_mpi_xfer_end(struct rch_mpi_xfer *x, rdmach_status_t st);

/* The root argument: RCH_MPI_ROOT_SELF (MPI_ROOT), RCH_MPI_ROOT_NONE
 * (MPI_PROC_NULL) or a remote rank; anything else is MPI_ERR_ROOT. */
enum { RCH_MPI_ROOT_SELF = -1, RCH_MPI_ROOT_NONE = -2 };
int rch_mpi_inter_check_root(const char *fn, struct rch_mpi_comm *c, int root, int *kind);

/* The plans: MPI_SUCCESS with *x (calloc'ed, *n entries; NULL and 0 when
 * this rank has nothing to move) or the reported error. The buffers are
 * the caller's; the plans of Gather(v)/Scatter(v) move data between the
 * root and every remote rank directly. */
int rch_mpi_inter_plan_rooted(const char *fn, struct rch_mpi_comm *c, int gather, int root, const void *rootbuf,
                              int rootcount, const int *rootcounts, const int *displs, MPI_Datatype roottype,
                              const MPI_Datatype *roottypes, const void *buf, int count, MPI_Datatype dt,
                              struct rch_mpi_xfer **x, int *n);
int rch_mpi_inter_plan_allgather(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount,
                                 MPI_Datatype stype, void *rbuf, int rcount, const int *rcounts, const int *displs,
                                 MPI_Datatype rtype, const MPI_Datatype *rtypes, struct rch_mpi_xfer **x, int *n);
int rch_mpi_inter_plan_alltoallx(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount,
                                 const int *scounts, const int *sdispls, MPI_Datatype stype,
                                 const MPI_Datatype *stypes, void *rbuf, int rcount, const int *rcounts,
                                 const int *rdispls, MPI_Datatype rtype, const MPI_Datatype *rtypes,
                                 struct rch_mpi_xfer **x, int *n);

/* Reduce_scatter with a vector beyond INT_MAX basic elements
 * (intercoll_big.c): RCH_MPI_INTER_CHUNK basic elements at a time, each
 * chunk a Reduce_scatter of its own with int counts. A protocol constant:
 * both groups must cut alike (the test-only tunable INTER_RS_CHUNK, the
 * same in every process, sets both the chunk and the threshold lower).
 * Counted in basic elements of the type signature, which both groups
 * share, not in elements of each group's datatype, which may differ. */
#define RCH_MPI_INTER_CHUNK ((size_t)1 << 26)
/* Whether a vector of `total` elements of dt goes in chunks. */
int rch_mpi_inter_chained(size_t total, MPI_Datatype dt);
struct rch_mpi_chunks {
    size_t total, off, mine;   /* the vector, my block's start and length */
    MPI_Aint ext;
    size_t kb;                 /* basic elements in one element of the datatype */
    size_t step;               /* elements of the datatype per chunk */
    int n;                     /* chunks */
};
/* Check the arguments (a negative entry is MPI_ERR_COUNT naming it) and
 * cut the vector as one chunk. MPI error code, reported. */
int rch_mpi_inter_chunks(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf,
                         const MPI_Count *rcounts, MPI_Datatype dt, struct rch_mpi_chunks *k);
/* Cut a chained vector, the other group's datatype holding `remote_kb`
 * basic elements and its vector `remote_basic` in all: every chunk
 * boundary falls on a whole element of both groups' datatypes. A vector
 * of another length is RDMACH_ERR_INVALID_ARG (reported). */
rdmach_status_t rch_mpi_inter_cut(struct rch_mpi_chunks *k, uint64_t remote_kb, uint64_t remote_basic);
/* Chunk j: each of the n ranks' share of it (counts), where it starts in
 * sbuf (*s) and where my share goes in rbuf (*r). */
void rch_mpi_inter_chunk(const struct rch_mpi_chunks *k, const MPI_Count *rcounts, int n, int j, int *counts,
                         const void *sbuf, void *rbuf, const void **s, void **r);
/* A malloc'ed MPI_Count copy of c->size int counts (rcounts NULL: each
 * rcount; NULL: *err reported). */
MPI_Count *rch_mpi_inter_widen(const char *fn, struct rch_mpi_comm *c, const int *rcounts, int rcount, int *err);

#endif
