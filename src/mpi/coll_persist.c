/*
 * Persistent collectives (MPI 4.0): MPI_Barrier_init, MPI_Bcast_init, the
 * gather/scatter/alltoall families, the reductions and the neighbourhood
 * collectives, each MPI_<collective>_init.
 *
 * An init call is its non-blocking form (coll_nb*.c, coll_neighbor.c, with
 * this call's name in its errors) whose schedule is captured instead of
 * started (rch_coll_persist_capture_begin, src/coll/nbc.h): the arguments
 * are checked, the buffers staged and the schedule built once. The request
 * is then an inactive persistent one whose state is the call's staging
 * (struct rch_mpi_nb) and the schedule. Every MPI_Start
 *   1. packs again what the staging packed at init (the send data of a
 *      non-contiguous datatype, an in-place receive buffer): the user may
 *      change the buffers' contents between starts;
 *   2. runs the schedule once more under a new device GREQ, which becomes
 *      the request's device request;
 * and its completion unpacks the received data into the user's buffers and
 * leaves the staging and the schedule for the next start. The datatypes the
 * repacking needs are retained until the request is freed.
 *
 * Freeing the request while it is active (MPI allows it) lets the run end
 * first: the schedule frees itself at its end, and the completion frees the
 * staging.
 */
#include <stdlib.h>
#include "mpi/coll_nb.h"
#include "mpi/intercoll.h"
#include "mpi/large.h"

struct pcoll {
    struct rch_nbc_sched *sched;       /* NULL when shm runs it */
    struct rch_coll_pshm *shm;         /* an allreduce through the node segment,
                                        * once it is made (sched NULL then) */
    struct rch_mpi_nb *nb;
    int active;    /* started and not yet at its end */
    int orphan;    /* the request was freed while active */
};

static void pcoll_free(struct pcoll *pc)
{
    rch_mpi_nb_free(pc->nb);
    free(pc);
}

/* Pack again what the init call packed (rule: a staged input with a packed
 * copy; a packed receive buffer this rank reads, e.g. in place). */
static void repack(struct rch_mpi_nb *nb)
{
    if (nb->s.tmp && nb->s.src)
        rch_mpi_pack_n(nb->s.src, nb->s.count, nb->s.t, nb->s.tmp);
    if (nb->r.tmp && nb->r.src)
        rch_mpi_pack_n(nb->r.src, nb->r.count, nb->r.t, nb->r.tmp);
    else if (nb->r.tmp && nb->unpack_r)
        rch_mpi_pack_n(nb->rbuf, nb->rcount, nb->rt, nb->r.tmp);
    if (nb->sv.tmp)
        rch_mpi_vstage_pack_all(&nb->sv);
    if (nb->rv.tmp && nb->unpack_rv)
        rch_mpi_vstage_pack_all(&nb->rv);
}

/* The end of a run (from the schedule engine): deliver, keep the rest. */
static void pcoll_done(struct rch_dev_req *req)
{
    struct pcoll *pc = req->user;
    req->user = NULL;
    if (!pc)
        return;
    pc->active = 0;
    struct rch_mpi_nb *nb = pc->nb;
    if (req->err == RDMACH_OK && !pc->orphan) {
        if (nb->unpack_r && nb->r.tmp)
            rch_mpi_unpack_n(nb->r.tmp, nb->rbuf, nb->rcount, nb->rt);
        if (nb->unpack_rv)
            rch_mpi_vstage_unpack_all(&nb->rv);
    }
    if (pc->orphan)
        pcoll_free(pc);
}

static int pcoll_start(const char *fn, void *obj, MPI_Request h, struct rch_mpi_req *e)
{
    struct pcoll *pc = obj;
    struct rch_dev_req *greq = rch_dev_req_alloc(RCH_DEV_REQ_GREQ);
    if (!greq)
        return rch_mpi_err(e->comm, MPI_ERR_NO_MEM, "%s: out of memory for the run of request 0x%x", fn,
                           (unsigned)h);
    repack(pc->nb);
    greq->on_complete = pcoll_done;
    greq->user = pc;
    pc->active = 1;   /* before the start: a run may end inside it */
    e->dreq = greq;
    e->pstate = RCH_MPI_PS_ACTIVE;
    if (pc->shm && pc->sched && rch_coll_pshm_ready(pc->shm)) {
        rch_coll_persist_free(pc->sched);   /* the segment stays: never needed again */
        pc->sched = NULL;
    }
    rdmach_status_t st = pc->sched ? rch_coll_persist_start(pc->sched, greq)
                                   : rch_coll_pshm_start(pc->shm, greq);
    if (st != RDMACH_OK) {
        pc->active = 0;
        greq->on_complete = NULL;
        greq->user = NULL;
        greq->err = st;
        rch_dev_req_complete(greq);
        rch_dev_req_free(greq);
        e->dreq = NULL;
        e->pstate = RCH_MPI_PS_INACTIVE;
        return rch_mpi_coll_fail(fn, rch_mpi_comm_get(e->comm), st);
    }
    return MPI_SUCCESS;
}

static void pcoll_release(void *obj)
{
    struct pcoll *pc = obj;
    rch_coll_persist_free(pc->sched);
    rch_coll_pshm_free(pc->shm);
    if (pc->active)
        pc->orphan = 1;   /* pcoll_done frees it */
    else
        pcoll_free(pc);
}

static const struct rch_mpi_persist_ops pcoll_ops = {
    .name = "persistent collective",
    .start = pcoll_start,
    .release = pcoll_release,
};

/* Checks of what the persistent form adds, then capture the schedule. */
static int begin(const char *fn, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct rch_mpi_comm *c;
    if (rch_mpi_inter_get(comm)) {
        /* the non-blocking form makes the persistent request itself
         * (intercoll_nb.c); end() has nothing to capture */
        int err = rch_mpi_info_check(comm, fn, info);
        rch_mpi_inter_persistent = !err;
        return err;
    }
    int err = rch_mpi_nb_begin(fn, comm, request, &c);
    if (!err)
        err = rch_mpi_info_check(comm, fn, info);
    if (!err)
        rch_coll_persist_capture_begin();
    return err;
}

/* Retain the datatypes repack() reads (the init call only kept those it
 * unpacks with). */
static int hold_inputs(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb)
{
    int err = MPI_SUCCESS;
    if (nb->s.src)
        err = rch_mpi_nb_hold(fn, c, nb, nb->s.t);
    if (!err && nb->r.src)
        err = rch_mpi_nb_hold(fn, c, nb, nb->r.t);
    if (!err && nb->sv.tmp && !nb->sv.types)
        err = rch_mpi_nb_hold(fn, c, nb, nb->sv.t);
    for (int i = 0; !err && nb->sv.tmp && nb->sv.types && i < nb->sv.n; i++)
        err = rch_mpi_nb_hold(fn, c, nb, nb->sv.types[i]);
    return err;
}

/* After the non-blocking form ran with err: turn the request it made (not
 * started) into an inactive persistent one. */
static int end(const char *fn, MPI_Comm comm, int err, MPI_Request *request)
{
    if (rch_mpi_inter_persistent) {
        rch_mpi_inter_persistent = 0;
        return err;
    }
    if (rch_mpi_inter_get(comm))
        return err;   /* begin() failed */
    struct rch_nbc_sched *sched = rch_coll_persist_capture_end();
    if (err) {
        rch_coll_persist_free(sched);
        return err;
    }
    struct rch_mpi_req *e = rch_mpi_req_get(*request);
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    struct rch_dev_req *greq = e->dreq;
    struct rch_mpi_nb *nb = greq->user;
    /* the GREQ was never started: retire it unused */
    greq->on_complete = NULL;
    greq->user = NULL;
    rch_dev_req_complete(greq);
    rch_dev_req_free(greq);
    e->dreq = NULL;
    struct pcoll *pc = sched ? calloc(1, sizeof(*pc)) : NULL;
    struct rch_mpi_persist *p = pc ? calloc(1, sizeof(*p)) : NULL;
    if (!sched)
        err = rch_mpi_err(comm, MPI_ERR_INTERN, "%s: no schedule was built", fn);
    else if (!p)
        err = rch_mpi_coll_nomem(fn, c, sizeof(*pc) + sizeof(*p));
    else
        err = hold_inputs(fn, c, nb);
    if (err) {
        free(p);
        free(pc);
        rch_coll_persist_free(sched);
        rch_mpi_nb_free(nb);
        PMPI_Request_free(request);
        return err;
    }
    *pc = (struct pcoll){ .sched = sched, .nb = nb };
    *p = (struct rch_mpi_persist){ .op = RCH_MPI_PERSIST_OBJ, .ops = &pcoll_ops, .obj = pc };
    e->persist = p;
    e->pstate = RCH_MPI_PS_INACTIVE;
    return MPI_SUCCESS;
}

/* On one node, a small allreduce runs through the node segment as the
 * blocking one does (src/coll/allreduce_shmseg_persist.c) when it can: the
 * schedule built by init is then not needed. The segment is made by the
 * communicator's first blocking shmseg collective, which may come after
 * this call: the schedule runs the starts until then (pcoll_start). */
static int allreduce_shm(const char *fn, MPI_Comm comm, int in_place, int count, MPI_Request *request)
{
    struct rch_mpi_req *e = rch_mpi_req_get(*request);
    struct pcoll *pc = e->persist->obj;
    struct rch_mpi_nb *nb = pc->nb;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    rdmach_status_t st = rch_coll_pshm_allreduce_init(&c->coll, in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                                      nb->r.ptr, (size_t)count * nb->red.per_elem,
                                                      &nb->red.cop, &pc->shm);
    if (st != RDMACH_OK) {
        PMPI_Request_free(request);
        return rch_mpi_coll_fail(fn, c, st);
    }
    if (pc->shm && rch_coll_pshm_ready(pc->shm)) {
        rch_coll_persist_free(pc->sched);
        pc->sched = NULL;
    }
    return MPI_SUCCESS;
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Barrier_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ibarrier(fn, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Barrier_init = PMPI_Barrier_init

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Bcast_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ibcast(fn, buffer, count, datatype, root, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Bcast_init = PMPI_Bcast_init

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Alltoall_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ialltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Alltoallv_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ialltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Alltoallw_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ialltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                 rdispls, recvtypes, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Gather_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_igather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Gather_init = PMPI_Gather_init

int rch_mpi_gatherv_init(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         const MPI_Datatype recvtypes[], int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_igatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                               recvtype, recvtypes, root, comm, request);
    return end(fn, comm, err, request);
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_gatherv_init("MPI_Gatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                recvtype, NULL, root, comm, info, request);
}
#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Scatter_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_iscatter(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Scatter_init = PMPI_Scatter_init

int rch_mpi_scatterv_init(const char *fn, const void *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Datatype sendtype, const MPI_Datatype sendtypes[], void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_iscatterv(fn, sendbuf, sendcounts, displs, sendtype, sendtypes, recvbuf, recvcount,
                                recvtype, root, comm, request);
    return end(fn, comm, err, request);
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_scatterv_init("MPI_Scatterv_init", sendbuf, sendcounts, displs, sendtype, NULL, recvbuf,
                                 recvcount, recvtype, root, comm, info, request);
}
#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Allgather_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_iallgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Allgather_init = PMPI_Allgather_init

int rch_mpi_allgatherv_init(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                            const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_iallgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, recvtypes, comm, request);
    return end(fn, comm, err, request);
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_allgatherv_init("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                   displs, recvtype, NULL, comm, info, request);
}
#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Reduce_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ireduce(fn, sendbuf, recvbuf, count, datatype, op, root, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Reduce_init = PMPI_Reduce_init

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Allreduce_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_iallreduce(fn, sendbuf, recvbuf, count, datatype, op, comm, request);
    err = end(fn, comm, err, request);
    if (err || rch_mpi_inter_get(comm))
        return err;
    return allreduce_shm(fn, comm, sendbuf == MPI_IN_PLACE, count, request);
}
#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Scan_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_iscan(fn, sendbuf, recvbuf, count, datatype, op, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Scan_init = PMPI_Scan_init

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Exscan_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_iexscan(fn, sendbuf, recvbuf, count, datatype, op, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Exscan_init = PMPI_Exscan_init

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Reduce_scatter_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ireduce_scatter(fn, sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                      request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init

int rch_mpi_reduce_scatter_init_c(const char *fn, const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ireduce_scatter_c(fn, sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
    return end(fn, comm, err, request);
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Reduce_scatter_block_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ireduce_scatter_block(fn, sendbuf, recvbuf, recvcount, datatype, op, comm,
                                            request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Neighbor_allgather_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ineighbor_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Neighbor_allgatherv_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ineighbor_allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                           displs, recvtype, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Neighbor_alltoall_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ineighbor_alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                         recvtype, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Neighbor_alltoallv_init";
    int err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ineighbor_alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                          recvcounts, rdispls, recvtype, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    static const char fn[] = "MPI_Neighbor_alltoallw_init";
    int err;
    if (request && rch_mpi_nbw_far(fn, RCH_MPI_NBW_PERSISTENT, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                   recvcounts, rdispls, recvtypes, comm, info, request, &err))
        return err;
    RCH_MPI_CS();
    err = begin(fn, comm, info, request);
    if (!err)
        err = rch_mpi_ineighbor_alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                          recvcounts, rdispls, recvtypes, comm, request);
    return end(fn, comm, err, request);
}
#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init
