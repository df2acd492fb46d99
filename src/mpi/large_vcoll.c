/*
 * The v-collectives' large-count forms: MPI_Alltoallv_c, MPI_Alltoallw_c,
 * MPI_Allgatherv_c, MPI_Gatherv_c, MPI_Scatterv_c (large=defined).
 *
 * While every count and displacement of their arrays fits an int they call
 * the int form. Otherwise the arrays cannot be passed to it, and the call
 * becomes an MPI_Alltoallw in which each peer's block is one element of a
 * type that holds the displacement (a one-block struct at displs[i] bytes,
 * or extents) and the count (a contiguous type of more than INT_MAX elements
 * where needed, large.c): every int it takes is then 0 or 1. The two forms
 * are different protocols, and a process's arrays say nothing about the
 * others', so the choice is collective: one MPI_Allreduce of "my arguments
 * need the large form" per call, which is what these _c calls cost over the
 * int ones.
 *
 * MPI_Ialltoallv_c, MPI_Ialltoallw_c and their _init_c forms need no such
 * choice: the non-blocking and persistent alltoallv and alltoallw are one
 * protocol (blocks of bytes between every pair, coll_nb_alltoall.c and
 * intercoll_nb.c), so a process whose arrays do not fit an int runs its side
 * as an alltoallw of such types while the others run theirs as they came.
 */
#include <limits.h>
#include <stdlib.h>
#include "mpi/large.h"

/* One side (send or receive) of a v-collective as the caller gave it: peer
 * i's block is counts[i] (or count) elements of types[i] (or type) at
 * displs[i] (or displ), in bytes or in extents of the type. */
struct vside {
    const MPI_Count *counts;
    MPI_Count count;
    const MPI_Aint *displs;
    MPI_Aint displ;
    const MPI_Datatype *types;
    MPI_Datatype type;
    int bytes;
    int only;                 /* the one peer with a block, -1: every peer */
    int skip;                 /* a peer without a block (MPI_IN_PLACE's own), -1: none */
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

static int is_inter(MPI_Comm comm)
{
    const struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    return c && c->is_inter;
}

/* Whether any process needs the large form: MPI_SUCCESS or the error. An
 * invalid communicator takes the int form, which reports it. On an
 * intercommunicator an allreduce gives each group the other's maximum: a
 * second one of (mine | the other's) gives both the maximum of all. */
static int decide(const struct rch_mpi_large_ctx *x, int local, int *large)
{
    *large = 0;
    int err = rch_mpi_check_init(x->fn);
    if (err || !rch_mpi_comm_get(x->comm))
        return err;
    *large = local;
    if (!is_inter(x->comm))
        return PMPI_Allreduce(MPI_IN_PLACE, large, 1, MPI_INT, MPI_MAX, x->comm);
    int remote = 0, both;
    if ((err = PMPI_Allreduce(&local, &remote, 1, MPI_INT, MPI_MAX, x->comm)))
        return err;
    both = local | remote;
    return PMPI_Allreduce(&both, large, 1, MPI_INT, MPI_MAX, x->comm);
}

/* Peer i's block of s as (*cnt, *type): (0, MPI_BYTE) if it has none, else
 * (1, a committed type the caller frees). */
static int block(const struct rch_mpi_large_ctx *x, const struct vside *s, int i, int *cnt, MPI_Datatype *type)
{
    MPI_Count count = s->counts ? s->counts[i] : s->count;
    *cnt = 0;
    *type = MPI_BYTE;
    if ((s->only != -1 && i != s->only) || i == s->skip || count == 0)
        return MPI_SUCCESS;
    return rch_mpi_large_block(x, s->cname, s->dname, i, count, s->displs ? s->displs[i] : s->displ, s->bytes,
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

static int comm_rank(MPI_Comm comm)
{
    const struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    return c ? c->rank : -1;
}

static int alltoallvw(const struct rch_mpi_large_ctx *x, const void *sendbuf, const struct vside *send,
                      void *recvbuf, const struct vside *recv)
{
    int n = (int)rch_mpi_large_remote_size(x->comm), large, err;
    int in_place = sendbuf == MPI_IN_PLACE;
    if ((err = decide(x, !(in_place || fits(send, n)) || !fits(recv, n), &large)))
        return err;
    if (large)
        return as_alltoallw(x, sendbuf, in_place ? NULL : send, recvbuf, recv, n, &blocking);
    int *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
    if (!(err = in_place ? MPI_SUCCESS : ints(x, send, n, &sc, &sd)) && !(err = ints(x, recv, n, &rc, &rd)))
        err = send->bytes ? PMPI_Alltoallw(sendbuf, sc, sd, send->types, recvbuf, rc, rd, recv->types, x->comm)
                          : PMPI_Alltoallv(sendbuf, sc, sd, send->type, recvbuf, rc, rd, recv->type, x->comm);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    return err;
}

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    struct rch_mpi_large_ctx x = { "MPI_Allgatherv_c", comm, MPI_WIN_NULL };
    int n = (int)rch_mpi_large_remote_size(comm), me = comm_rank(comm), large, err;
    struct vside r = { recvcounts, 0, displs, 0, NULL, recvtype, 0, -1, -1, "recvcounts", "displs" };
    if ((err = decide(&x, !fits(&r, n), &large)))
        return err;
    if (large) {
        /* in place, this process's block is already in recvbuf: sent from
         * there, by its address (Alltoallw refuses one buffer for both) */
        struct vside s = { NULL, sendcount, NULL, 0, NULL, sendtype, 0, -1, -1, "sendcount", "displs" };
        if (sendbuf == MPI_IN_PLACE) {
            MPI_Aint lb, ext, at;
            if ((err = PMPI_Type_get_extent(recvtype, &lb, &ext)))
                return err;
            if (__builtin_mul_overflow(displs[me], ext, &at) || __builtin_add_overflow(at, (MPI_Aint)recvbuf, &at))
                return rch_mpi_large_err(&x, MPI_ERR_ARG, "displacement %ld in argument displs[%d] overflows",
                                         (long)displs[me], me);
            s = (struct vside){ NULL, recvcounts[me], NULL, at, NULL, recvtype, 1, -1, me, "recvcounts",
                                "displs" };
            r.skip = me;
            sendbuf = MPI_BOTTOM;
        }
        return as_alltoallw(&x, sendbuf, &s, recvbuf, &r, n, &blocking);
    }
    int *rc = NULL, *rd = NULL, sc = 0;
    MPI_Datatype st = sendtype;
    if (!(err = ints(&x, &r, n, &rc, &rd)) &&
        !(err = rch_mpi_large_buf(&x, "sendcount", sendbuf == MPI_IN_PLACE ? 0 : sendcount, sendtype, &sc, &st)))
        err = PMPI_Allgatherv(sendbuf, sc, st, recvbuf, rc, rd, recvtype, comm);
    rch_mpi_large_buf_done(st, sendtype);
    free(rc);
    free(rd);
    return err;
}
#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c

/* Gatherv (gather 1) and Scatterv (0): the root's side v, the others' one
 * block (count, type) to or from the root. */
static int rooted(const struct rch_mpi_large_ctx *x, int gather, const void *sendbuf, void *recvbuf,
                  struct vside *v, MPI_Count count, MPI_Datatype type, int root)
{
    int n = (int)rch_mpi_large_remote_size(x->comm), large, err, inter = is_inter(x->comm);
    int at_root = rch_mpi_large_at_root(x->comm, root);
    /* on an intercommunicator MPI_ROOT and MPI_PROC_NULL exchange no block
     * with one remote rank; the other group's ranks exchange theirs with root */
    int named = !(inter && (root == MPI_ROOT || root == MPI_PROC_NULL));
    if ((err = decide(x, at_root && !fits(v, n), &large)))
        return err;
    const void *own = gather ? sendbuf : recvbuf;   /* MPI_IN_PLACE at the root */
    if (large) {
        struct vside one = { NULL, count, NULL, 0, NULL, type, 0, named ? root : -2, -1,
                             gather ? "sendcount" : "recvcount", "displs" };
        if (!at_root)
            v->only = -2;                          /* nothing but the one block */
        if (at_root && own == MPI_IN_PLACE)
            one.only = -2, v->skip = root;
        if (named && (root < 0 || root >= n))
            return rch_mpi_large_err(x, MPI_ERR_ROOT, "invalid root %d in argument root (communicator size %d)",
                                     root, n);
        /* the root's own block stays where it is: nothing sent from MPI_BOTTOM */
        return gather ? as_alltoallw(x, sendbuf == MPI_IN_PLACE ? MPI_BOTTOM : sendbuf, &one, recvbuf, v, n,
                                     &blocking)
                      : as_alltoallw(x, sendbuf, v, recvbuf == MPI_IN_PLACE ? MPI_BOTTOM : recvbuf, &one, n,
                                     &blocking);
    }
    int *c = NULL, *d = NULL, k = 0;
    MPI_Datatype t = type;
    if (!(err = ints(x, v, at_root ? n : 0, &c, &d)) &&
        !(err = rch_mpi_large_buf(x, gather ? "sendcount" : "recvcount", own == MPI_IN_PLACE ? 0 : count, type,
                                  &k, &t)))
        err = gather ? PMPI_Gatherv(sendbuf, k, t, recvbuf, c, d, v->type, root, x->comm)
                     : PMPI_Scatterv(sendbuf, c, d, v->type, recvbuf, k, t, root, x->comm);
    rch_mpi_large_buf_done(t, type);
    free(c);
    free(d);
    return err;
}

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm)
{
    struct rch_mpi_large_ctx x = { "MPI_Gatherv_c", comm, MPI_WIN_NULL };
    struct vside v = { recvcounts, 0, displs, 0, NULL, recvtype, 0, -1, -1, "recvcounts", "displs" };
    return rooted(&x, 1, sendbuf, recvbuf, &v, sendcount, sendtype, root);
}
#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm)
{
    struct rch_mpi_large_ctx x = { "MPI_Scatterv_c", comm, MPI_WIN_NULL };
    struct vside v = { sendcounts, 0, displs, 0, NULL, sendtype, 0, -1, -1, "sendcounts", "displs" };
    return rooted(&x, 0, sendbuf, recvbuf, &v, recvcount, recvtype, root);
}
#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c

/* The non-blocking (request) and persistent (info, request) alltoallv and
 * alltoallw _c forms (vform, wform: all three kinds): the int form while this process's arrays fit, else
 * its side as an alltoallw of one-block types (see the top). The arrays
 * have the remote group's length on an intercommunicator. */
static int ialltoallvw(const struct rch_mpi_large_ctx *x, const struct wcall *k, const void *sendbuf,
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
    struct vside s = { sendcounts, 0, sdispls, 0, NULL, sendtype, 0, -1, -1, "sendcounts", "sdispls" };
    struct vside r = { recvcounts, 0, rdispls, 0, NULL, recvtype, 0, -1, -1, "recvcounts", "rdispls" };
    return k->kind == W_BLOCKING ? alltoallvw(&x, sendbuf, &s, recvbuf, &r)
                                 : ialltoallvw(&x, k, sendbuf, &s, recvbuf, &r);
}

static int wform(const char *fn, const struct wcall *k, const void *sendbuf, const MPI_Count sendcounts[],
                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                 const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                 MPI_Comm comm)
{
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL };
    struct vside s = { sendcounts, 0, sdispls, 0, sendtypes, MPI_DATATYPE_NULL, 1, -1, -1, "sendcounts",
                       "sdispls" };
    struct vside r = { recvcounts, 0, rdispls, 0, recvtypes, MPI_DATATYPE_NULL, 1, -1, -1, "recvcounts",
                       "rdispls" };
    return k->kind == W_BLOCKING ? alltoallvw(&x, sendbuf, &s, recvbuf, &r)
                                 : ialltoallvw(&x, k, sendbuf, &s, recvbuf, &r);
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
