/*
 * The alltoallv and alltoallw large-count forms, blocking, non-blocking and
 * persistent: MPI_Alltoallv_c, MPI_Alltoallw_c, MPI_Ialltoallv_c,
 * MPI_Ialltoallw_c, MPI_Alltoallv_init_c, MPI_Alltoallw_init_c
 * (large=defined). The other v-collectives' are in large_nbv.c.
 *
 * Some processes of a collective may call the _c form and others the int
 * form (MPI matches calls by type signature, not by binding), so a _c form
 * may not add a step the int form lacks: each process decides alone. While
 * every count and displacement of its arrays fits an int it calls the int
 * form. Otherwise it runs its side as an alltoallw in which each peer's
 * block is one element of a type that holds the displacement (a one-block
 * struct at displs[i] bytes, or extents) and the count (a contiguous type
 * of more than INT_MAX elements where needed, large.c): every int it takes
 * is then 0 or 1. alltoallv and alltoallw are one protocol (blocks of bytes
 * between every pair: rch_coll_alltoallv from coll_alltoall.c, and
 * coll_nb_alltoall.c, intercoll_nb.c), so the others run their side as
 * they came.
 */
#include <limits.h>
#include <stdlib.h>
#include "mpi/large.h"

/* One side (send or receive) as the caller gave it: peer i's block is
 * counts[i] elements of types[i] (or type) at displs[i], in bytes or in
 * extents of the type. */
struct vside {
    const MPI_Count *counts;
    const MPI_Aint *displs;
    const MPI_Datatype *types;
    MPI_Datatype type;
    int bytes;
    const char *cname, *dname;
};

static int fits_all(const MPI_Count *a, int n)
{
    for (int i = 0; a && i < n; i++)
        if (a[i] < INT_MIN || a[i] > INT_MAX)
            return 0;
    return 1;
}

static int fits(const struct vside *s, int n)
{
    return fits_all(s->counts, n) && fits_all(s->displs, n);
}

/* Peer i's block of s as (*cnt, *type): (0, MPI_BYTE) if it has none, else
 * (1, a committed type the caller frees). */
static int block(const struct rch_mpi_large_ctx *x, const struct vside *s, int i, int *cnt, MPI_Datatype *type)
{
    MPI_Count count = s->counts ? s->counts[i] : 0;
    *cnt = 0;
    *type = MPI_BYTE;
    if (count == 0)
        return MPI_SUCCESS;
    return rch_mpi_large_block(x, s->cname, s->dname, i, count, s->displs ? s->displs[i] : 0, s->bytes,
                               s->types ? s->types[i] : s->type, cnt, type);
}

/* How an alltoallw runs: blocking, non-blocking (request) or persistent
 * (info, request). */
struct wcall {
    enum { W_BLOCKING, W_NONBLOCKING, W_PERSISTENT } kind;
    MPI_Info info;
    MPI_Request *request;
};

static const struct wcall blocking = { W_BLOCKING, MPI_INFO_NULL, NULL };

static int run_w(const struct wcall *k, const void *sendbuf, const int *sc, const int *sd, const MPI_Datatype *st,
                 void *recvbuf, const int *rc, const int *rd, const MPI_Datatype *rt, MPI_Comm comm)
{
    if (k->kind == W_NONBLOCKING)
        return PMPI_Ialltoallw(sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm, k->request);
    if (k->kind == W_PERSISTENT)
        return PMPI_Alltoallw_init(sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm, k->info, k->request);
    return PMPI_Alltoallw(sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm);
}

/* The call as an alltoallw over n peers (send NULL: MPI_IN_PLACE), run as
 * k says. */
static int as_alltoallw(const struct rch_mpi_large_ctx *x, const void *sendbuf, const struct vside *send,
                        void *recvbuf, const struct vside *recv, int n, const struct wcall *k)
{
    int *sc = calloc((size_t)n * 3, sizeof(int)), err = MPI_SUCCESS;
    MPI_Datatype *st = malloc((size_t)n * 2 * sizeof(MPI_Datatype));
    if (!sc || !st) {
        free(sc);
        free(st);
        return rch_mpi_large_err(x, MPI_ERR_NO_MEM, "no memory for the arrays of %d peers", n);
    }
    int *rc = sc + n, *zero = sc + 2 * n;
    MPI_Datatype *rt = st + n;
    for (int i = 0; i < n; i++)
        st[i] = rt[i] = MPI_BYTE;
    for (int i = 0; i < n && !err; i++)
        if (!(err = send ? block(x, send, i, &sc[i], &st[i]) : MPI_SUCCESS))
            err = block(x, recv, i, &rc[i], &rt[i]);
    if (!err)
        err = run_w(k, send ? sendbuf : MPI_IN_PLACE, sc, zero, st, recvbuf, rc, zero, rt, x->comm);
    for (int i = 0; i < n; i++) {
        if (sc[i])
            PMPI_Type_free(&st[i]);
        if (rc[i])
            PMPI_Type_free(&rt[i]);
    }
    free(sc);
    free(st);
    return err;
}

/* The int form's arrays: every one of s's, converted (they fit). */
static int ints(const struct rch_mpi_large_ctx *x, const struct vside *s, int n, int **counts, int **displs)
{
    int err = rch_mpi_large_ints(x, s->cname, 0, s->counts, n, counts);
    if (!err && (err = rch_mpi_large_ints(x, s->dname, 1, s->displs, n, displs))) {
        free(*counts);
        *counts = NULL;
    }
    return err;
}

/* The alltoallv and alltoallw _c forms, run as k says: the int form while
 * this process's arrays fit, else its side as an alltoallw of one-block
 * types (see the top). The arrays have the remote group's length on an
 * intercommunicator. */
static int alltoallvw(const struct rch_mpi_large_ctx *x, const struct wcall *k, const void *sendbuf,
                      const struct vside *send, void *recvbuf, const struct vside *recv)
{
    int n = (int)rch_mpi_large_remote_size(x->comm), in_place = sendbuf == MPI_IN_PLACE, err;
    if ((err = rch_mpi_check_init(x->fn)))
        return err;
    if (!(in_place || fits(send, n)) || !fits(recv, n))
        return as_alltoallw(x, sendbuf, in_place ? NULL : send, recvbuf, recv, n, k);
    int *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
    if (!(err = in_place ? MPI_SUCCESS : ints(x, send, n, &sc, &sd)) && !(err = ints(x, recv, n, &rc, &rd))) {
        if (send->bytes)
            err = run_w(k, sendbuf, sc, sd, send->types, recvbuf, rc, rd, recv->types, x->comm);
        else if (k->kind == W_BLOCKING)
            err = PMPI_Alltoallv(sendbuf, sc, sd, send->type, recvbuf, rc, rd, recv->type, x->comm);
        else if (k->kind == W_PERSISTENT)
            err = PMPI_Alltoallv_init(sendbuf, sc, sd, send->type, recvbuf, rc, rd, recv->type, x->comm, k->info,
                                      k->request);
        else
            err = PMPI_Ialltoallv(sendbuf, sc, sd, send->type, recvbuf, rc, rd, recv->type, x->comm, k->request);
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    return err;
}

static int vform(const char *fn, const struct wcall *k, const void *sendbuf, const MPI_Count sendcounts[],
                 const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                 const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL };
    struct vside s = { sendcounts, sdispls, NULL, sendtype, 0, "sendcounts", "sdispls" };
    struct vside r = { recvcounts, rdispls, NULL, recvtype, 0, "recvcounts", "rdispls" };
    return alltoallvw(&x, k, sendbuf, &s, recvbuf, &r);
}

static int wform(const char *fn, const struct wcall *k, const void *sendbuf, const MPI_Count sendcounts[],
                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                 const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                 MPI_Comm comm)
{
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL };
    struct vside s = { sendcounts, sdispls, sendtypes, MPI_DATATYPE_NULL, 1, "sendcounts", "sdispls" };
    struct vside r = { recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL, 1, "recvcounts", "rdispls" };
    return alltoallvw(&x, k, sendbuf, &s, recvbuf, &r);
}

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm)
{
    return vform("MPI_Alltoallv_c", &blocking, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                 recvtype, comm);
}
#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return wform("MPI_Alltoallw_c", &blocking, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                 rdispls, recvtypes, comm);
}
#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct wcall k = { W_NONBLOCKING, MPI_INFO_NULL, request };
    return vform("MPI_Ialltoallv_c", &k, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                 recvtype, comm);
}
#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    struct wcall k = { W_PERSISTENT, info, request };
    return vform("MPI_Alltoallv_init_c", &k, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                 recvtype, comm);
}
#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    struct wcall k = { W_NONBLOCKING, MPI_INFO_NULL, request };
    return wform("MPI_Ialltoallw_c", &k, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                 recvtypes, comm);
}
#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    struct wcall k = { W_PERSISTENT, info, request };
    return wform("MPI_Alltoallw_init_c", &k, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                 rdispls, recvtypes, comm);
}
#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c
