/*
 * MPI_Neighbor_alltoallw_c, MPI_Ineighbor_alltoallw_c and
 * MPI_Neighbor_alltoallw_init_c (large=defined): counts of more than
 * INT_MAX elements per neighbour, and byte displacements beyond an int
 * (the neighbourhood staging, coll_neighbor.c, holds int ones).
 *
 * A neighbourhood exchange is one message per edge (block j to out-neighbour
 * j, block i from in-neighbour i), and a message's type signature is all its
 * receiver checks, so a process may describe its own blocks differently from
 * how its neighbours describe theirs. Where every count and displacement
 * fits an int the int form gets them as they are; otherwise every block of
 * this process becomes one element of a one-block type at its displacement
 * (rch_mpi_large_block: count elements of its datatype, a contiguous type
 * of them over INT_MAX) and the int form gets counts 0 or 1 at displacement
 * 0. The int forms take the same way when a byte displacement does not fit
 * an int (rch_mpi_nbw_far). The temporary types are freed when the call
 * returns: the non-blocking and persistent forms keep what they need of
 * them (coll_neighbor.c, coll_persist.c).
 */
#include <limits.h>
#include <stdlib.h>
#include "mpi/large.h"

struct nbw_call {
    int kind;   /* RCH_MPI_NBW_* */
    MPI_Info info;
    MPI_Request *request;
};

/* One side as the caller gave it. */
struct nbw_side {
    const MPI_Count *counts;
    const MPI_Aint *displs;
    const MPI_Datatype *types;
    const char *cname, *dname, *tname;
};

static int fits(const struct nbw_side *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s->counts[i] > INT_MAX || s->displs[i] < INT_MIN || s->displs[i] > INT_MAX)
            return 0;
    return 1;
}

static int run(const struct nbw_call *k, const void *sendbuf, const int *sc, const MPI_Aint *sd,
               const MPI_Datatype *st, void *recvbuf, const int *rc, const MPI_Aint *rd, const MPI_Datatype *rt,
               MPI_Comm comm)
{
    if (k->kind == RCH_MPI_NBW_NONBLOCKING)
        return PMPI_Ineighbor_alltoallw(sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm, k->request);
    if (k->kind == RCH_MPI_NBW_PERSISTENT)
        return PMPI_Neighbor_alltoallw_init(sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm, k->info, k->request);
    return PMPI_Neighbor_alltoallw(sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm);
}

/* s's n blocks as the int form's arguments: counts in c; with types (the
 * large form) each block a one-block type in types[i] and d zero. */
static int convert(const struct rch_mpi_large_ctx *x, const struct nbw_side *s, int n, int large, int *c,
                   MPI_Aint *d, MPI_Datatype *types)
{
    for (int i = 0; i < n; i++) {
        if (s->counts[i] < 0)
            return rch_mpi_large_err(x, MPI_ERR_COUNT, "negative count %lld in argument %s[%d]",
                                     (long long)s->counts[i], s->cname, i);
        c[i] = (int)s->counts[i];
        d[i] = s->displs[i];
        types[i] = s->types[i];
        if (!large)
            continue;
        d[i] = 0;
        types[i] = MPI_BYTE;
        if (s->counts[i] > 0) {
            int err = rch_mpi_large_block(x, s->cname, s->dname, i, s->counts[i], s->displs[i], 1, s->types[i],
                                          &c[i], &types[i]);
            if (err)
                return err;
        }
    }
    return MPI_SUCCESS;
}

static void release(int *c, MPI_Datatype *types, int n, int large)
{
    for (int i = 0; large && i < n; i++)
        if (c[i])
            PMPI_Type_free(&types[i]);
}

static int nbw(const char *fn, const struct nbw_call *k, const void *sendbuf, const struct nbw_side *send,
               void *recvbuf, const struct nbw_side *recv, MPI_Comm comm)
{
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL, 0 };
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    int no = (int)rch_mpi_large_degree(comm, 1), ni = (int)rch_mpi_large_degree(comm, 0);
    const struct nbw_side *null = NULL;
    for (int s = 0; s < 2 && !null; s++) {
        const struct nbw_side *v = s ? recv : send;
        if ((s ? ni : no) > 0 && (!v->counts || !v->displs || !v->types))
            null = v;
    }
    if (null)
        return rch_mpi_large_err(&x, MPI_ERR_ARG, "NULL pointer in argument %s",
                                 !null->counts ? null->cname : !null->displs ? null->dname : null->tname);
    /* MPI_IN_PLACE and an invalid communicator are the int form's to report */
    int large = sendbuf != MPI_IN_PLACE && (!fits(send, no) || !fits(recv, ni));
    size_t n = (size_t)no + (size_t)ni;
    int *c = calloc(n ? n : 1, sizeof(int));
    MPI_Aint *d = calloc(n ? n : 1, sizeof(MPI_Aint));
    MPI_Datatype *types = calloc(n ? n : 1, sizeof(MPI_Datatype));
    if (!c || !d || !types)
        err = rch_mpi_large_err(&x, MPI_ERR_NO_MEM, "no memory for the arrays of %zu neighbours", n);
    if (!err && !(err = convert(&x, send, no, large, c, d, types)) &&
        !(err = convert(&x, recv, ni, large, c + no, d + no, types + no)))
        err = run(k, sendbuf, c, d, types, recvbuf, c + no, d + no, types + no, comm);
    if (c && types)
        release(c, types, (int)n, large);
    free(c);
    free(d);
    free(types);
    return err;
}

int rch_mpi_nbw_far(const char *fn, int kind, const void *sendbuf, const int sc[], const MPI_Aint sd[],
                    const MPI_Datatype st[], void *recvbuf, const int rc[], const MPI_Aint rd[],
                    const MPI_Datatype rt[], MPI_Comm comm, MPI_Info info, MPI_Request *request, int *err)
{
    int no = (int)rch_mpi_large_degree(comm, 1), ni = (int)rch_mpi_large_degree(comm, 0), far = 0;
    if ((no > 0 && (!sc || !sd || !st)) || (ni > 0 && (!rc || !rd || !rt)) || sendbuf == MPI_IN_PLACE)
        return 0;   /* the int form reports them */
    for (int i = 0; i < no; i++)
        far |= sd[i] < INT_MIN || sd[i] > INT_MAX;
    for (int i = 0; i < ni; i++)
        far |= rd[i] < INT_MIN || rd[i] > INT_MAX;
    if (!far)
        return 0;
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL, 0 };
    MPI_Count *c = malloc(sizeof(MPI_Count) * (size_t)(no + ni + 1));
    if (!c) {
        *err = rch_mpi_large_err(&x, MPI_ERR_NO_MEM, "no memory for the arrays of %d neighbours", no + ni);
        return 1;
    }
    for (int i = 0; i < no; i++)
        c[i] = sc[i];
    for (int i = 0; i < ni; i++)
        c[no + i] = rc[i];
    struct nbw_call k = { kind, info, request };
    struct nbw_side s = { c, sd, st, "sendcounts", "sdispls", "sendtypes" };
    struct nbw_side r = { c + no, rd, rt, "recvcounts", "rdispls", "recvtypes" };
    *err = nbw(fn, &k, sendbuf, &s, recvbuf, &r, comm);
    free(c);
    return 1;
}

int rch_mpi_nbw_large(const char *fn, int kind, const void *sendbuf, const MPI_Count sc[], const MPI_Aint sd[],
                      const MPI_Datatype st[], void *recvbuf, const MPI_Count rc[], const MPI_Aint rd[],
                      const MPI_Datatype rt[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct nbw_call k = { kind, info, request };
    struct nbw_side s = { sc, sd, st, "sendcounts", "sdispls", "sendtypes" };
    struct nbw_side r = { rc, rd, rt, "recvcounts", "rdispls", "recvtypes" };
    return nbw(fn, &k, sendbuf, &s, recvbuf, &r, comm);
}

#define NBW_SIDES                                                                                              \
    struct nbw_side s = { sendcounts, sdispls, sendtypes, "sendcounts", "sdispls", "sendtypes" };              \
    struct nbw_side r = { recvcounts, rdispls, recvtypes, "recvcounts", "rdispls", "recvtypes" }

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    struct nbw_call k = { RCH_MPI_NBW_BLOCKING, MPI_INFO_NULL, NULL };
    NBW_SIDES;
    return nbw("MPI_Neighbor_alltoallw_c", &k, sendbuf, &s, recvbuf, &r, comm);
}
#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request *request)
{
    struct nbw_call k = { RCH_MPI_NBW_NONBLOCKING, MPI_INFO_NULL, request };
    NBW_SIDES;
    return nbw("MPI_Ineighbor_alltoallw_c", &k, sendbuf, &s, recvbuf, &r, comm);
}
#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                   const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request)
{
    struct nbw_call k = { RCH_MPI_NBW_PERSISTENT, info, request };
    NBW_SIDES;
    return nbw("MPI_Neighbor_alltoallw_init_c", &k, sendbuf, &s, recvbuf, &r, comm);
}
#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c
