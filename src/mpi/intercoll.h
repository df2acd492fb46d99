/*
 * The blocking collectives on intercommunicators (mpi/intercoll.c), called by
 * the MPI bindings of the collectives when comm is an intercommunicator. Each
 * checks its arguments as the intracommunicator binding does, with MPI's
 * rooted semantics (MPI_ROOT / MPI_PROC_NULL in the root's group, the root's
 * rank in the other), and returns an MPI error code, already reported on c.
 * A NULL counts array selects the non-v form.
 */
#ifndef RCH_MPI_INTERCOLL_H
#define RCH_MPI_INTERCOLL_H

#include "mpi/mpi_impl.h"

/* The intercommunicator comm names, NULL if comm is not one (or is invalid:
 * the intracommunicator path reports that). */
static inline struct rch_mpi_comm *rch_mpi_inter_get(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD || !rch_mpi_running())
        return NULL;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    return c && c->is_inter ? c : NULL;
}

int rch_mpi_inter_barrier(struct rch_mpi_comm *c);
int rch_mpi_inter_bcast(struct rch_mpi_comm *c, void *buf, int count, MPI_Datatype dt, int root);
/* Gather(v), Scatter(v), Allgather(v) (counts NULL: the one-count forms);
 * the v forms' per-peer types where rtypes / stypes is not NULL
 * (rch_mpi_gatherv, coll_bind.h). */
int rch_mpi_inter_gather(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype,
                         void *rbuf, int rcount, const int *rcounts, const int *displs, MPI_Datatype rtype,
                         const MPI_Datatype *rtypes, int root);
int rch_mpi_inter_scatter(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount, const int *scounts,
                          const int *displs, MPI_Datatype stype, const MPI_Datatype *stypes, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root);
int rch_mpi_inter_allgather(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype,
                            void *rbuf, int rcount, const int *rcounts, const int *displs, MPI_Datatype rtype,
                            const MPI_Datatype *rtypes);
/* Alltoall (counts NULL), Alltoallv, Alltoallw (types non-NULL, byte displacements). */
int rch_mpi_inter_alltoallx(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount,
                            const int *scounts, const int *sdispls, MPI_Datatype stype, const MPI_Datatype *stypes,
                            void *rbuf, int rcount, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                            const MPI_Datatype *rtypes);
int rch_mpi_inter_reduce(struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root);
int rch_mpi_inter_allreduce(struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                            MPI_Op op);
/* fn NULL: MPI_Reduce_scatter or MPI_Reduce_scatter_block. */
int rch_mpi_inter_reduce_scatter(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int rcount,
                                 const int *rcounts, MPI_Datatype dt, MPI_Op op);
/* MPI_Reduce_scatter_c's recvcounts, any MPI_Count (intercoll_big.c). */
int rch_mpi_inter_reduce_scatter_c(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf,
                                   const MPI_Count *rcounts, MPI_Datatype dt, MPI_Op op);

/* The non-blocking forms (intercoll_nb.c), with the name their errors give;
 * between rch_mpi_inter_persistent = 1 and = 0 (an MPI_<collective>_init
 * call, coll_persist.c) each makes an inactive persistent request instead. */
extern int rch_mpi_inter_persistent;
int rch_mpi_inter_ibarrier(const char *fn, struct rch_mpi_comm *c, MPI_Request *request);
int rch_mpi_inter_ibcast(const char *fn, struct rch_mpi_comm *c, void *buf, int count, MPI_Datatype dt, int root,
                         MPI_Request *request);
int rch_mpi_inter_igather(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype,
                          void *rbuf, int rcount, const int *rcounts, const int *displs, MPI_Datatype rtype,
                          const MPI_Datatype *rtypes, int root, MPI_Request *request);
int rch_mpi_inter_iscatter(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount, const int *scounts,
                           const int *displs, MPI_Datatype stype, const MPI_Datatype *stypes, void *rbuf, int rcount,
                           MPI_Datatype rtype, int root, MPI_Request *request);
int rch_mpi_inter_iallgather(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount,
                             MPI_Datatype stype, void *rbuf, int rcount, const int *rcounts, const int *displs,
                             MPI_Datatype rtype, const MPI_Datatype *rtypes, MPI_Request *request);
int rch_mpi_inter_ialltoallx(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount,
                             const int *scounts, const int *sdispls, MPI_Datatype stype,
                             const MPI_Datatype *stypes, void *rbuf, int rcount, const int *rcounts,
                             const int *rdispls, MPI_Datatype rtype, const MPI_Datatype *rtypes,
                             MPI_Request *request);
int rch_mpi_inter_ireduce(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int count,
                          MPI_Datatype dt, MPI_Op op, int root, MPI_Request *request);
int rch_mpi_inter_iallreduce(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int count,
                             MPI_Datatype dt, MPI_Op op, MPI_Request *request);
/* Reduce_scatter (rcounts) and Reduce_scatter_block (rcount). */
int rch_mpi_inter_ireduce_scatter(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int rcount,
                                  const int *rcounts, MPI_Datatype dt, MPI_Op op, MPI_Request *request);
/* With MPI_Count recvcounts (a chain of chunks, intercoll_big.c). */
int rch_mpi_inter_ireduce_scatter_c(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf,
                                    const MPI_Count *rcounts, MPI_Datatype dt, MPI_Op op, MPI_Request *request);

#endif
