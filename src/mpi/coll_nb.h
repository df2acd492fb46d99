/*
 * Shared by the bindings of the non-blocking and neighbourhood collectives
 * (mpi/coll_nb*.c, mpi/coll_neighbor.c): the state a call keeps until its
 * schedule completes.
 *
 * A non-blocking collective is checked and staged like its blocking form
 * (coll_bind.h), then src/coll builds and starts a schedule that completes a
 * generalized device request; that request becomes the MPI_Request. The
 * staging must outlive the call: `struct rch_mpi_nb` holds it, and the
 * request's on_complete unpacks what was received into the user's buffers
 * (only if the collective succeeded) and frees it. Datatypes needed at that
 * point are retained (the user may free them meanwhile, as MPI allows) and
 * count arrays the unpacking reads are copied.
 */
#ifndef RCH_MPI_COLL_NB_H
#define RCH_MPI_COLL_NB_H

#include "coll/nbc.h"
#include "mpi/coll_bind.h"

struct rch_mpi_nb {
    struct rch_mpi_stage s, r;         /* simple send / receive staging */
    void *rbuf;                        /* unpack r here at completion ... */
    size_t rcount;
    const struct rch_mpi_type *rt;     /* ... as rcount elements of rt (held) */
    int unpack_r;
    struct rch_mpi_vstage sv, rv;      /* v/w staging; rv unpacked at completion */
    int unpack_rv;
    struct rch_mpi_red red;            /* reductions: cop.arg may point here */
    struct rch_mpi_type **held;        /* retained types, released at the end */
    int nheld, heldcap;
    void **keep;                       /* memory freed at the end */
    int nkeep, keepcap;
};

/* rch_mpi_coll_begin, then request must not be NULL (MPI_ERR_ARG). */
int rch_mpi_nb_begin(const char *fn, MPI_Comm comm, MPI_Request *request, struct rch_mpi_comm **cp);
/* A zeroed state, or NULL with *err reported (no memory). */
struct rch_mpi_nb *rch_mpi_nb_new(const char *fn, struct rch_mpi_comm *c, int *err);
/* Retain t until the end (no-op for predefined types). MPI error code. */
int rch_mpi_nb_hold(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                    const struct rch_mpi_type *t);
/* `bytes` of memory freed at the end; NULL with *err reported. */
void *rch_mpi_nb_keep(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb, size_t bytes,
                      int *err);
/* A copy of n ints kept until the end (NULL with *err reported). */
int *rch_mpi_nb_keep_ints(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb, const int *a,
                          int n, int *err);
/* Room for the c->size per-peer types of a v variant (rch_mpi_coll_tv),
 * kept until the end (NULL with *err reported). */
const struct rch_mpi_type **rch_mpi_nb_keep_tv(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                                               int *err);
/* Retain tv[0..n-1], or t where tv is NULL. MPI error code. */
int rch_mpi_nb_hold_v(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb, const struct rch_mpi_type *t,
                      const struct rch_mpi_type *const *tv, int n);
/* Release everything without unpacking (a call that fails before starting). */
void rch_mpi_nb_free(struct rch_mpi_nb *nb);
/* rch_mpi_nb_free(nb), then return err: a call failing after its state exists. */
int rch_mpi_nb_fail(struct rch_mpi_nb *nb, int err);
/* At completion unpack nb->r into buf as count elements of t (retained
 * until then). MPI error code. */
int rch_mpi_nb_unpack_r(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb, void *buf,
                        size_t count, const struct rch_mpi_type *t);

/* The generalized request the schedule will complete (on_complete: unpack
 * and free nb). NULL with *err reported. */
struct rch_dev_req *rch_mpi_nb_req(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                                   int *err);
/* After src/coll was called with greq: on success *request is the new
 * MPI_Request; on failure (st != OK: nothing started) everything is released
 * and the error reported. Returns the MPI error code. */
int rch_mpi_nb_started(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                       struct rch_dev_req *greq, rdmach_status_t st, MPI_Request *request);
/* MPI_ERR_ARG if request is NULL. */
int rch_mpi_nb_check_request(const char *fn, struct rch_mpi_comm *c, const MPI_Request *request);

/* The non-blocking collectives without the critical section, with the name
 * their errors give (MPI_I<coll>, or MPI_<coll>_init when a persistent
 * collective is built from them: coll_persist.c). */
int rch_mpi_ibarrier(const char *fn, MPI_Comm comm, MPI_Request *request);
int rch_mpi_ibcast(const char *fn, void *buffer, int count, MPI_Datatype datatype, int root,
                   MPI_Comm comm, MPI_Request *request);
int rch_mpi_ialltoall(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request);
int rch_mpi_ialltoallv(const char *fn, const void *sendbuf, const int sendcounts[],
                       const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Request *request);
int rch_mpi_ialltoallw(const char *fn, const void *sendbuf, const int sendcounts[],
                       const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                       const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                       MPI_Comm comm, MPI_Request *request);
int rch_mpi_igather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request);
/* The v variants take per-peer types as their blocking forms do
 * (rch_mpi_gatherv, coll_bind.h); NULL: the one datatype. */
int rch_mpi_igatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, const MPI_Datatype recvtypes[], int root, MPI_Comm comm,
                     MPI_Request *request);
int rch_mpi_iscatter(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request *request);
int rch_mpi_iscatterv(const char *fn, const void *sendbuf, const int sendcounts[],
                      const int displs[], MPI_Datatype sendtype, const MPI_Datatype sendtypes[],
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Request *request);
int rch_mpi_iallgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request);
int rch_mpi_iallgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Request *request);
int rch_mpi_ireduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                    MPI_Request *request);
int rch_mpi_iallreduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int rch_mpi_iscan(const char *fn, const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int rch_mpi_iexscan(const char *fn, const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int rch_mpi_ireduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                            const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            MPI_Request *request);
int rch_mpi_ireduce_scatter_block(const char *fn, const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  MPI_Request *request);
int rch_mpi_ineighbor_allgather(const char *fn, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int rch_mpi_ineighbor_allgatherv(const char *fn, const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Request *request);
int rch_mpi_ineighbor_alltoall(const char *fn, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int rch_mpi_ineighbor_alltoallv(const char *fn, const void *sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request *request);
int rch_mpi_ineighbor_alltoallw(const char *fn, const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Request *request);
/* MPI_Ireduce_scatter and MPI_Reduce_scatter_init (coll_persist.c) on an
 * intracommunicator with MPI_Count recvcounts (rch_mpi_reduce_scatter_c,
 * coll_bind.h). */
int rch_mpi_ireduce_scatter_c(const char *fn, const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int rch_mpi_reduce_scatter_init_c(const char *fn, const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request);

/* The persistent v variants (coll_persist.c): MPI_<coll>_init with fn in
 * its errors and per-peer types as above. */
int rch_mpi_gatherv_init(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         const MPI_Datatype recvtypes[], int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request);
int rch_mpi_scatterv_init(const char *fn, const void *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Datatype sendtype, const MPI_Datatype sendtypes[], void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int rch_mpi_allgatherv_init(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                            const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request);

#endif
