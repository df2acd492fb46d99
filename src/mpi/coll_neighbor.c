/*
 * MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v,w) and their
 * non-blocking forms: the bindings of rch_coll_neighbor_alltoallv
 * (src/coll/neighbor_alltoallv.c) over the neighbour lists of the
 * communicator's topology (mpi/topo.c: Cartesian, graph, distributed graph).
 *
 * Every form is one exchange: send block j to out-neighbour j, receive
 * block i from in-neighbour i. Allgather(v) sends the same block to every
 * out-neighbour; alltoall's send buffer holds outdegree blocks. Receive
 * blocks are staged like the v variants of the other collectives and
 * unpacked when the exchange is done (blocking: before returning;
 * non-blocking: when the request completes). MPI_IN_PLACE is not allowed.
 */
#include <stdlib.h>
#include "mpi/coll_nb.h"

enum nbr_kind { NBR_ALLGATHER, NBR_ALLGATHERV, NBR_ALLTOALL, NBR_ALLTOALLV, NBR_ALLTOALLW };

/* The arguments of any form; unused ones are NULL / 0. */
struct nbr_args {
    enum nbr_kind kind;
    const void *sendbuf;
    int sendcount;
    const int *sendcounts, *sdispls;        /* alltoallv/w */
    const MPI_Aint *sdispls_w;              /* alltoallw: byte displacements */
    MPI_Datatype sendtype;
    const MPI_Datatype *sendtypes;
    void *recvbuf;
    int recvcount;
    const int *recvcounts, *rdispls;        /* allgatherv, alltoallv/w */
    const MPI_Aint *rdispls_w;
    MPI_Datatype recvtype;
    const MPI_Datatype *recvtypes;
};

static int nb_fail(struct rch_mpi_nb *nb, int err)
{
    rch_mpi_nb_free(nb);
    return err;
}

/* int displacements for the vstage from alltoallw's MPI_Aint ones (bytes). */
static int *aint_displs(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                        const MPI_Aint *d, int n, const char *arg, int *err)
{
    int *out = rch_mpi_nb_keep(fn, c, nb, (size_t)(n > 0 ? n : 0) * sizeof(int), err);
    for (int i = 0; out && i < n; i++) {
        if (d[i] < -2147483647L - 1 || d[i] > 2147483647L) {
            *err = rch_mpi_err(c->handle, MPI_ERR_ARG, "%s: %s[%d] = %ld is beyond the displacements "
                               "this library supports (int)", fn, arg, i, (long)d[i]);
            return NULL;
        }
        out[i] = (int)d[i];
    }
    return out;
}

/* Checks and staging of the send side: nb->sv holds outdeg blocks. */
static int send_side(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                     const struct nbr_args *a, int outdeg)
{
    int err, w = a->kind == NBR_ALLTOALLW, v = a->kind == NBR_ALLTOALLV || w;
    const struct rch_mpi_type *t = NULL, **tv = NULL;
    int *cnt, *dsp;
    if (a->sendbuf == MPI_IN_PLACE)
        return rch_mpi_err(c->handle, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed in argument "
                           "sendbuf of a neighbourhood collective", fn);
    if (v) {
        if (outdeg > 0 &&
            ((err = rch_mpi_coll_check_array(fn, c, a->sendcounts, outdeg, "sendcounts", 1)) ||
             (!w && (err = rch_mpi_coll_check_array(fn, c, a->sdispls, outdeg, "sdispls", 0)))))
            return err;
        if (w && outdeg > 0 && (!a->sdispls_w || !a->sendtypes))
            return rch_mpi_err(c->handle, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                               !a->sdispls_w ? "sdispls" : "sendtypes");
    } else if (a->sendcount < 0) {
        return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: negative count %d in argument sendcount", fn,
                           a->sendcount);
    }
    if (w) {
        if (!(tv = rch_mpi_nb_keep(fn, c, nb, (size_t)(outdeg > 0 ? outdeg : 0) * sizeof(*tv), &err)))
            return err;
        for (int j = 0; j < outdeg; j++)
            if ((err = rch_mpi_coll_check_type(fn, c, a->sendtypes[j], "sendtypes", &tv[j])))
                return err;
    } else if ((err = rch_mpi_coll_check_type(fn, c, a->sendtype, "sendtype", &t))) {
        return err;
    }
    if (!(cnt = rch_mpi_nb_keep(fn, c, nb, (size_t)(outdeg > 0 ? outdeg : 0) * sizeof(int), &err)) ||
        !(dsp = rch_mpi_nb_keep(fn, c, nb, (size_t)(outdeg > 0 ? outdeg : 0) * sizeof(int), &err)))
        return err;
    if (w && !(dsp = aint_displs(fn, c, nb, a->sdispls_w, outdeg, "sdispls", &err)))
        return err;
    for (int j = 0; j < outdeg; j++) {
        cnt[j] = v ? a->sendcounts[j] : a->sendcount;
        if (!w)
            dsp[j] = a->kind == NBR_ALLTOALLV ? a->sdispls[j]
                     : a->kind == NBR_ALLTOALL ? j * a->sendcount : 0;
        if (cnt[j] > 0 &&
            (err = rch_mpi_coll_check_buf(fn, c, a->sendbuf, cnt[j], w ? a->sendtypes[j] : a->sendtype,
                                          "sendbuf", v ? "sendcounts" : "sendcount",
                                          w ? "sendtypes" : "sendtype", NULL)))
            return err;
    }
    if ((err = rch_mpi_vstage_init(fn, c, (void *)a->sendbuf, outdeg, cnt, dsp, !w, t,
                                   (const struct rch_mpi_type *const *)tv, &nb->sv)))
        return err;
    rch_mpi_vstage_pack_all(&nb->sv);
    return MPI_SUCCESS;
}

/* Checks and staging of the receive side: nb->rv holds indeg blocks. */
static int recv_side(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                     const struct nbr_args *a, int indeg)
{
    int err, w = a->kind == NBR_ALLTOALLW;
    int v = a->kind == NBR_ALLGATHERV || a->kind == NBR_ALLTOALLV || w;
    const struct rch_mpi_type *t = NULL, **tv = NULL;
    int *cnt, *dsp;
    if (v) {
        if (indeg > 0 &&
            ((err = rch_mpi_coll_check_array(fn, c, a->recvcounts, indeg, "recvcounts", 1)) ||
             (!w && (err = rch_mpi_coll_check_array(fn, c, a->rdispls, indeg,
                                                    a->kind == NBR_ALLGATHERV ? "displs" : "rdispls", 0)))))
            return err;
        if (w && indeg > 0 && (!a->rdispls_w || !a->recvtypes))
            return rch_mpi_err(c->handle, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                               !a->rdispls_w ? "rdispls" : "recvtypes");
    } else if (a->recvcount < 0) {
        return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: negative count %d in argument recvcount", fn,
                           a->recvcount);
    }
    if (w) {
        if (!(tv = rch_mpi_nb_keep(fn, c, nb, (size_t)(indeg > 0 ? indeg : 0) * sizeof(*tv), &err)))
            return err;
        for (int i = 0; i < indeg; i++)
            if ((err = rch_mpi_coll_check_type(fn, c, a->recvtypes[i], "recvtypes", &tv[i])) ||
                (err = rch_mpi_nb_hold(fn, c, nb, tv[i])))
                return err;
    } else if ((err = rch_mpi_coll_check_type(fn, c, a->recvtype, "recvtype", &t)) ||
               (err = rch_mpi_nb_hold(fn, c, nb, t))) {
        return err;
    }
    /* kept: the unpacking at completion reads the counts */
    if (!(cnt = rch_mpi_nb_keep(fn, c, nb, (size_t)(indeg > 0 ? indeg : 0) * sizeof(int), &err)) ||
        !(dsp = rch_mpi_nb_keep(fn, c, nb, (size_t)(indeg > 0 ? indeg : 0) * sizeof(int), &err)))
        return err;
    if (w && !(dsp = aint_displs(fn, c, nb, a->rdispls_w, indeg, "rdispls", &err)))
        return err;
    for (int i = 0; i < indeg; i++) {
        cnt[i] = v ? a->recvcounts[i] : a->recvcount;
        if (!w)
            dsp[i] = v ? a->rdispls[i] : i * a->recvcount;
        if (cnt[i] > 0 &&
            (err = rch_mpi_coll_check_buf(fn, c, a->recvbuf, cnt[i], w ? a->recvtypes[i] : a->recvtype,
                                          "recvbuf", v ? "recvcounts" : "recvcount",
                                          w ? "recvtypes" : "recvtype", NULL)))
            return err;
    }
    if ((err = rch_mpi_vstage_init(fn, c, a->recvbuf, indeg, cnt, dsp, !w, t,
                                   (const struct rch_mpi_type *const *)tv, &nb->rv)))
        return err;
    nb->unpack_rv = 1;
    return MPI_SUCCESS;
}

static int neighbor(const char *fn, const struct nbr_args *a, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *c;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq = NULL;
    struct rch_coll_nbrs nbrs;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) ||
        (request && (err = rch_mpi_nb_check_request(fn, c, request))) ||
        (err = rch_mpi_topo_neighbors(fn, c, &nbrs.indegree, &nbrs.in, &nbrs.outdegree, &nbrs.out)))
        return err;
    nbrs.cart = c->topo->kind == MPI_CART;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if ((err = send_side(fn, c, nb, a, nbrs.outdegree)) || (err = recv_side(fn, c, nb, a, nbrs.indegree)))
        return nb_fail(nb, err);
    if (request && !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return nb_fail(nb, err);
    rdmach_status_t st = rch_coll_neighbor_alltoallv(&c->coll, &nbrs, nb->sv.base, nb->sv.counts,
                                                     nb->sv.offs, nb->rv.base, nb->rv.counts,
                                                     nb->rv.offs, greq);
    if (request)
        return rch_mpi_nb_started(fn, c, nb, greq, st, request);
    if (st == RDMACH_OK)
        rch_mpi_vstage_unpack_all(&nb->rv);
    rch_mpi_nb_free(nb);
    return st == RDMACH_OK ? MPI_SUCCESS : rch_mpi_coll_fail(fn, c, st);
}

/* ---- the entry points ---- */

/* A non-blocking form called with request == NULL (NULL means "blocking"
 * inside this file). */
static int neighbor_null_request(const char *fn, MPI_Comm comm)
{
    struct rch_mpi_comm *c;
    int err = rch_mpi_coll_begin(fn, comm, &c);
    return err ? err : rch_mpi_nb_check_request(fn, c, NULL);
}

static int allgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    struct nbr_args a = { .kind = NBR_ALLGATHER, .sendbuf = sendbuf, .sendcount = sendcount,
                          .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,
                          .recvtype = recvtype };
    return neighbor(fn, &a, comm, request);
}

static int allgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct nbr_args a = { .kind = NBR_ALLGATHERV, .sendbuf = sendbuf, .sendcount = sendcount,
                          .sendtype = sendtype, .recvbuf = recvbuf, .recvcounts = recvcounts,
                          .rdispls = displs, .recvtype = recvtype };
    return neighbor(fn, &a, comm, request);
}

static int alltoall(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    struct nbr_args a = { .kind = NBR_ALLTOALL, .sendbuf = sendbuf, .sendcount = sendcount,
                          .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,
                          .recvtype = recvtype };
    return neighbor(fn, &a, comm, request);
}

static int alltoallv(const char *fn, const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct nbr_args a = { .kind = NBR_ALLTOALLV, .sendbuf = sendbuf, .sendcounts = sendcounts,
                          .sdispls = sdispls, .sendtype = sendtype, .recvbuf = recvbuf,
                          .recvcounts = recvcounts, .rdispls = rdispls, .recvtype = recvtype };
    return neighbor(fn, &a, comm, request);
}

static int alltoallw(const char *fn, const void *sendbuf, const int sendcounts[],
                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                     const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                     MPI_Comm comm, MPI_Request *request)
{
    struct nbr_args a = { .kind = NBR_ALLTOALLW, .sendbuf = sendbuf, .sendcounts = sendcounts,
                          .sdispls_w = sdispls, .sendtypes = sendtypes, .recvbuf = recvbuf,
                          .recvcounts = recvcounts, .rdispls_w = rdispls, .recvtypes = recvtypes };
    return neighbor(fn, &a, comm, request);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, NULL);
}
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    static const char fn[] = "MPI_Ineighbor_allgather";
    if (!request)
        return neighbor_null_request(fn, comm);
    return allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm, NULL);
}
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ineighbor_allgatherv";
    if (!request)
        return neighbor_null_request(fn, comm);
    return allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                      request);
}
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, NULL);
}
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ineighbor_alltoall";
    if (!request)
        return neighbor_null_request(fn, comm);
    return alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, NULL);
}
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    static const char fn[] = "MPI_Ineighbor_alltoallv";
    if (!request)
        return neighbor_null_request(fn, comm);
    return alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm, request);
}
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, NULL);
}
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    static const char fn[] = "MPI_Ineighbor_alltoallw";
    if (!request)
        return neighbor_null_request(fn, comm);
    return alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                     recvtypes, comm, request);
}
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
