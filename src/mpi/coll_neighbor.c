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
#include "mpi/large.h"

enum nbr_kind { NBR_ALLGATHER, NBR_ALLGATHERV, NBR_ALLTOALL, NBR_ALLTOALLV, NBR_ALLTOALLW };

/* One side (send or receive) of any form; unused fields are NULL / 0. */
struct nbr_side {
    const void *buf;
    int count;                      /* allgather, alltoall: every block */
    const int *counts, *displs;     /* v forms: per block (displacements in extents) */
    const MPI_Aint *displs_w;       /* alltoallw: byte displacements */
    MPI_Datatype type;
    const MPI_Datatype *types;      /* alltoallw */
};

struct nbr_args {
    enum nbr_kind kind;
    struct nbr_side send, recv;
};

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

/* Checks and staging of one side: n blocks, to out-neighbour j (send: into
 * nb->sv, packed now) or from in-neighbour i (receive: into nb->rv,
 * unpacked at the end; its datatypes are retained until then). The counts
 * and displacements are kept in nb: the unpacking at completion reads them. */
static int side(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                const struct nbr_args *a, int is_send, int n)
{
    const struct nbr_side *sd = is_send ? &a->send : &a->recv;
    int err, w = a->kind == NBR_ALLTOALLW;
    int v = w || a->kind == NBR_ALLTOALLV || (!is_send && a->kind == NBR_ALLGATHERV);
    /* allgather(v) sends its one block to every out-neighbour */
    int same = is_send && (a->kind == NBR_ALLGATHER || a->kind == NBR_ALLGATHERV);
    const char *bufarg = is_send ? "sendbuf" : "recvbuf";
    const char *cntarg = is_send ? (v ? "sendcounts" : "sendcount") : (v ? "recvcounts" : "recvcount");
    const char *dsparg = is_send ? "sdispls" : a->kind == NBR_ALLGATHERV ? "displs" : "rdispls";
    const char *typarg = is_send ? (w ? "sendtypes" : "sendtype") : (w ? "recvtypes" : "recvtype");
    const struct rch_mpi_type *t = NULL, **tv = NULL;
    size_t bytes = (size_t)(n > 0 ? n : 0) * sizeof(int);
    int *cnt, *dsp;

    if (is_send && sd->buf == MPI_IN_PLACE)
        return rch_mpi_err(c->handle, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed in argument "
                           "sendbuf of a neighbourhood collective", fn);
    if (v) {
        if (n > 0 && ((err = rch_mpi_coll_check_array(fn, c, sd->counts, n, cntarg, 1)) ||
                      (!w && (err = rch_mpi_coll_check_array(fn, c, sd->displs, n, dsparg, 0)))))
            return err;
        if (w && n > 0 && (!sd->displs_w || !sd->types))
            return rch_mpi_err(c->handle, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                               !sd->displs_w ? dsparg : typarg);
    } else if ((err = rch_mpi_coll_check_count(fn, c, sd->count, cntarg))) {
        return err;
    }
    /* a datatype is checked where it carries data (rch_mpi_coll_check_type_if) */
    int data = !v && sd->count > 0;
    for (int i = 0; v && i < n; i++)
        data |= sd->counts[i] > 0;
    if (w) {
        if (!(tv = rch_mpi_nb_keep(fn, c, nb, (size_t)(n > 0 ? n : 0) * sizeof(*tv), &err)))
            return err;
        for (int i = 0; i < n; i++)
            if ((err = rch_mpi_coll_check_type_if(fn, c, sd->types[i], sd->counts[i] > 0, typarg, &tv[i])) ||
                (!is_send && (err = rch_mpi_nb_hold(fn, c, nb, tv[i]))))
                return err;
    } else if ((err = rch_mpi_coll_check_type_if(fn, c, sd->type, data, typarg, &t)) ||
               (!is_send && (err = rch_mpi_nb_hold(fn, c, nb, t)))) {
        return err;
    }
    if (!(cnt = rch_mpi_nb_keep(fn, c, nb, bytes, &err)) ||
        !(dsp = rch_mpi_nb_keep(fn, c, nb, bytes, &err)))
        return err;
    if (w && !(dsp = aint_displs(fn, c, nb, sd->displs_w, n, dsparg, &err)))
        return err;
    for (int i = 0; i < n; i++) {
        cnt[i] = v ? sd->counts[i] : sd->count;
        if (!w)
            dsp[i] = v ? sd->displs[i] : same ? 0 : i * sd->count;
        if (cnt[i] > 0 &&
            (err = rch_mpi_coll_check_buf(fn, c, sd->buf, cnt[i], w ? sd->types[i] : sd->type, bufarg,
                                          cntarg, typarg, NULL)))
            return err;
    }
    struct rch_mpi_vstage *vs = is_send ? &nb->sv : &nb->rv;
    if ((err = rch_mpi_vstage_init(fn, c, (void *)sd->buf, n, cnt, dsp, !w, t,
                                   (const struct rch_mpi_type *const *)tv, vs)))
        return err;
    if (is_send)
        rch_mpi_vstage_pack_all(vs);
    else
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
        (err = rch_mpi_topo_neighbors(fn, c, &nbrs.indegree, &nbrs.in, &nbrs.outdegree, &nbrs.out)))
        return err;
    nbrs.cart = c->topo->kind == MPI_CART;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if ((err = side(fn, c, nb, a, 1, nbrs.outdegree)) || (err = side(fn, c, nb, a, 0, nbrs.indegree)) ||
        (request && !(greq = rch_mpi_nb_req(fn, c, nb, &err))))
        return rch_mpi_nb_fail(nb, err);
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
    return rch_mpi_nb_begin(fn, comm, NULL, &c);
}

static int allgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    struct nbr_args a = { .kind = NBR_ALLGATHER,
                          .send = { .buf = sendbuf, .count = sendcount, .type = sendtype },
                          .recv = { .buf = recvbuf, .count = recvcount, .type = recvtype } };
    return neighbor(fn, &a, comm, request);
}

static int allgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct nbr_args a = { .kind = NBR_ALLGATHERV,
                          .send = { .buf = sendbuf, .count = sendcount, .type = sendtype },
                          .recv = { .buf = recvbuf, .counts = recvcounts, .displs = displs,
                                    .type = recvtype } };
    return neighbor(fn, &a, comm, request);
}

static int alltoall(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    struct nbr_args a = { .kind = NBR_ALLTOALL,
                          .send = { .buf = sendbuf, .count = sendcount, .type = sendtype },
                          .recv = { .buf = recvbuf, .count = recvcount, .type = recvtype } };
    return neighbor(fn, &a, comm, request);
}

static int alltoallv(const char *fn, const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct nbr_args a = { .kind = NBR_ALLTOALLV,
                          .send = { .buf = sendbuf, .counts = sendcounts, .displs = sdispls,
                                    .type = sendtype },
                          .recv = { .buf = recvbuf, .counts = recvcounts, .displs = rdispls,
                                    .type = recvtype } };
    return neighbor(fn, &a, comm, request);
}

static int alltoallw(const char *fn, const void *sendbuf, const int sendcounts[],
                     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                     const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                     MPI_Comm comm, MPI_Request *request)
{
    struct nbr_args a = { .kind = NBR_ALLTOALLW,
                          .send = { .buf = sendbuf, .counts = sendcounts, .displs_w = sdispls,
                                    .types = sendtypes },
                          .recv = { .buf = recvbuf, .counts = recvcounts, .displs_w = rdispls,
                                    .types = recvtypes } };
    return neighbor(fn, &a, comm, request);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    RCH_MPI_CS();
    return allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, NULL);
}
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather

int rch_mpi_ineighbor_allgather(const char *fn, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return neighbor_null_request(fn, comm);
    return allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ineighbor_allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype,
                                       recvbuf, recvcount, recvtype, comm, request);
}
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    RCH_MPI_CS();
    return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm, NULL);
}
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv

int rch_mpi_ineighbor_allgatherv(const char *fn, const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Request *request)
{
    if (!request)
        return neighbor_null_request(fn, comm);
    return allgatherv(fn, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                      request);
}

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ineighbor_allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype,
                                        recvbuf, recvcounts, displs, recvtype, comm, request);
}
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    RCH_MPI_CS();
    return alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, NULL);
}
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall

int rch_mpi_ineighbor_alltoall(const char *fn, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return neighbor_null_request(fn, comm);
    return alltoall(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ineighbor_alltoall("MPI_Ineighbor_alltoall", sendbuf, sendcount, sendtype,
                                      recvbuf, recvcount, recvtype, comm, request);
}
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    RCH_MPI_CS();
    return alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, NULL);
}
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv

int rch_mpi_ineighbor_alltoallv(const char *fn, const void *sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return neighbor_null_request(fn, comm);
    return alltoallv(fn, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm, request);
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ineighbor_alltoallv("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, sdispls,
                                       sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                                       request);
}
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    int err;
    if (rch_mpi_nbw_far("MPI_Neighbor_alltoallw", RCH_MPI_NBW_BLOCKING, sendbuf, sendcounts, sdispls, sendtypes,
                        recvbuf, recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, NULL, &err))
        return err;
    RCH_MPI_CS();
    return alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, NULL);
}
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw

int rch_mpi_ineighbor_alltoallw(const char *fn, const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return neighbor_null_request(fn, comm);
    return alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                     recvtypes, comm, request);
}

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    int err;
    if (request && rch_mpi_nbw_far("MPI_Ineighbor_alltoallw", RCH_MPI_NBW_NONBLOCKING, sendbuf, sendcounts, sdispls,
                                   sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, MPI_INFO_NULL, request,
                                   &err))
        return err;
    RCH_MPI_CS();
    return rch_mpi_ineighbor_alltoallw("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls,
                                       sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                                       request);
}
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
