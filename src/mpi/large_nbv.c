/*
 * The v-collectives' large-count forms whose arrays may hold values beyond
 * an int, blocking, non-blocking and persistent: MPI_Gatherv_c,
 * MPI_Scatterv_c, MPI_Allgatherv_c, MPI_Reduce_scatter_c,
 * MPI_Neighbor_allgatherv_c, MPI_Neighbor_alltoallv_c, their MPI_I..._c
 * and _init_c forms (large=defined). Alltoallv and alltoallw are in
 * large_vcoll.c.
 *
 * Some processes of a collective may call the _c form and others the int
 * form (MPI matches calls by type signature, not by binding), so a _c form
 * may not add a step the int form lacks, such as a collective choice of
 * protocol: each process decides alone and every process runs the int
 * form's protocol. Those protocols move bytes (src/coll gets each peer's
 * block as a byte count and offset, in size_t), so a process may describe
 * its own side with other arguments that give the same bytes at the same
 * addresses, while the others run theirs as they came. Only a process
 * whose arrays do not fit an int does this; where every value fits the int
 * form gets them unchanged.
 *
 * Gatherv, Scatterv and Allgatherv (every form): the vector side as one
 * datatype per peer (peers()), block i one element of a one-block
 * struct at displs[i] extents holding counts[i] elements (a contiguous type
 * of them beyond INT_MAX, rch_mpi_large_block), run by the int forms'
 * internals that take per-peer types (rch_mpi_gatherv ..., coll_bind.h,
 * coll_nb.h). So every count and displacement an MPI_Count and an MPI_Aint
 * hold works (MPI-4.1 6.2.2), e.g. counts 2^31 + 3 and 2.
 *
 * The neighbourhood forms whose arrays do not fit take
 * MPI_Neighbor_alltoallw_c's large form (rch_mpi_nbw_large, large_nbw.c):
 * one message per edge whichever form each process calls.
 *
 * Reduce_scatter's recvcounts are the same at every process (MPI-4.1
 * 6.10.1), so where they do not fit an int every process calls
 * MPI_Reduce_scatter_c alike and it runs with the counts as they are
 * (rch_mpi_reduce_scatter_c and its I and _init forms): on an
 * intracommunicator src/coll takes size_t counts; on an intercommunicator
 * the vector goes in chunks of int counts (intercoll_big.c), as the int
 * form's does when its sum is beyond INT_MAX basic elements, so no common
 * divisor is needed (the groups agree on the cut once, intercoll_big.c).
 *
 * A negative count is MPI_ERR_COUNT naming the entry on every path.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include "mpi/coll_nb.h"
#include "mpi/intercoll.h"
#include "mpi/large.h"

/* One side of a v-collective in the int form's terms. */
struct side {
    int *counts, *displs;    /* malloc'ed, NULL where the arrays are not significant */
    MPI_Datatype type;       /* the caller's, or a contiguous type of K of it (owned) */
    void *buf;
    MPI_Datatype *types;     /* per peer (owned, n of them), or NULL */
    int n;
};

static int fits(const MPI_Count *a, int n)
{
    for (int i = 0; a && i < n; i++)
        if (a[i] < INT_MIN || a[i] > INT_MAX)
            return 0;
    return 1;
}

MPI_Count rch_mpi_large_gcd(MPI_Count a, MPI_Count b)
{
    while (b) {
        MPI_Count t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static void side_done(struct side *s, MPI_Datatype dt)
{
    for (int i = 0; s->types && i < s->n; i++)
        if (s->types[i] != MPI_BYTE)
            PMPI_Type_free(&s->types[i]);
    free(s->types);
    s->types = NULL;
    free(s->counts);
    free(s->displs);
    s->counts = s->displs = NULL;
    rch_mpi_large_buf_done(s->type, dt);
    s->type = dt;
}

static int entry_err(const struct rch_mpi_large_ctx *x, int cls, const char *what, MPI_Count v, const char *arg,
                     int i, const char *why)
{
    return rch_mpi_large_err(x, cls, "%s %lld in argument %s[%d] %s", what, (long long)v, arg, i, why);
}

/* The offsets of s's blocks from its lowest displacement, divided by K
 * (displs NULL: none, reduce_scatter); *base is that displacement. */
static int rebase(const struct rch_mpi_large_ctx *x, const MPI_Count *counts, const MPI_Aint *displs, int n,
                  const char *dname, MPI_Aint *base, MPI_Count *k)
{
    int first = 1;
    *base = 0;
    for (int i = 0; displs && i < n; i++)
        if (counts[i] > 0 && (first || displs[i] < *base))
            *base = displs[i], first = 0;
    for (int i = 0; i < n; i++) {
        MPI_Aint off = 0;
        if (counts[i] > 0 && displs && __builtin_sub_overflow(displs[i], *base, &off))
            return entry_err(x, MPI_ERR_ARG, "displacement", displs[i], dname, i, "is too far from the others");
        *k = rch_mpi_large_gcd(*k, rch_mpi_large_gcd(counts[i], off));
    }
    if (*k == 0)
        *k = 1;
    return MPI_SUCCESS;
}

/* Block i of counts[n], displs[n] (in extents of dt) as one element of a
 * one-block type of its own (count 0: none), displacements 0. */
static int peers(const struct rch_mpi_large_ctx *x, const char *cname, const char *dname,
                 const MPI_Count *counts, const MPI_Aint *displs, int n, struct side *s, MPI_Datatype dt)
{
    if (!displs)
        return rch_mpi_large_err(x, MPI_ERR_ARG, "argument %s is NULL", dname);
    size_t m = (size_t)(n > 0 ? n : 1);
    s->counts = calloc(m, sizeof(int));
    s->displs = calloc(m, sizeof(int));
    s->types = malloc(m * sizeof(MPI_Datatype));
    s->n = 0;
    if (!s->counts || !s->displs || !s->types) {
        side_done(s, dt);
        return rch_mpi_large_err(x, MPI_ERR_NO_MEM, "no memory for the types of %d peers (argument %s)", n,
                                 cname);
    }
    int err = MPI_SUCCESS;
    for (; s->n < n && !err; s->n++) {
        int i = s->n;
        s->types[i] = MPI_BYTE;
        if (counts[i] > 0)
            err = rch_mpi_large_block(x, cname, dname, i, counts[i], displs[i], 0, dt, &s->counts[i],
                                      &s->types[i]);
    }
    if (err)
        side_done(s, dt);
    return err;
}

/* counts[n], displs[n] of dt at buf as s; per_peer: a side that does not
 * fit the int form is given per-peer types, else it is divided by K. */
static int side(const struct rch_mpi_large_ctx *x, const char *cname, const char *dname, void *buf,
                const MPI_Count *counts, const MPI_Aint *displs, int n, MPI_Datatype dt, int per_peer,
                struct side *s)
{
    *s = (struct side){ NULL, NULL, dt, buf, NULL, 0 };
    if (!counts || (fits(counts, n) && fits(displs, n))) {
        int err = rch_mpi_large_ints(x, cname, 0, counts, n, &s->counts);
        if (!err && (err = rch_mpi_large_ints(x, dname, 1, displs, n, &s->displs)))
            side_done(s, dt);
        return err;
    }
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return entry_err(x, MPI_ERR_COUNT, "count", counts[i], cname, i, "is negative");
    if (per_peer)
        return peers(x, cname, dname, counts, displs, n, s, dt);
    MPI_Aint base, lb, ext, at;
    MPI_Count k = 0;
    int err = rebase(x, counts, displs, n, dname, &base, &k);
    if (err)
        return err;
    if (!rch_mpi_type_get(dt))
        return rch_mpi_large_err(x, MPI_ERR_TYPE, "invalid datatype 0x%x for argument %s", (unsigned)dt, cname);
    PMPI_Type_get_extent(dt, &lb, &ext);
    if (__builtin_mul_overflow(base, ext, &at))
        return rch_mpi_large_err(x, MPI_ERR_ARG, "displacement %ld in argument %s times the extent %ld overflows",
                                 (long)base, dname, (long)ext);
    s->buf = (void *)((uintptr_t)buf + (uintptr_t)at);
    s->counts = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    s->displs = displs ? malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)) : NULL;
    if (!s->counts || (displs && !s->displs)) {
        side_done(s, dt);
        return rch_mpi_large_err(x, MPI_ERR_NO_MEM, "no memory to convert argument %s (%d values)", cname, n);
    }
    for (int i = 0; i < n && !err; i++) {
        MPI_Count c = counts[i] / k, d = counts[i] > 0 && displs ? (displs[i] - base) / k : 0;
        if (c > INT_MAX)
            err = entry_err(x, MPI_ERR_COUNT, "count", counts[i], cname, i,
                            "cannot be represented: the counts have no common divisor that brings it under 2^31");
        else if (d > INT_MAX)
            err = entry_err(x, MPI_ERR_ARG, "displacement", displs[i], dname, i,
                            "cannot be represented: the blocks span more than 2^31 extents");
        s->counts[i] = (int)c;
        if (s->displs)
            s->displs[i] = (int)d;
    }
    if (!err && k > 1)
        err = rch_mpi_large_contig(x, cname, k, dt, &s->type);
    if (err)
        side_done(s, dt);
    return err;
}

/* A buffer's single count as the int form's (count, type). */
struct one {
    int count;
    MPI_Datatype type;
};

/* How the call runs: NULL non-blocking, BLOCKING blocking, else persistent
 * with *info. */
typedef const MPI_Info *persist_t;
static const MPI_Info blocking_mark = MPI_INFO_NULL;
#define BLOCKING (&blocking_mark)

static int gatherv(const char *fn, persist_t info, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const MPI_Count *recvcounts, const MPI_Aint *displs, MPI_Datatype recvtype,
                   int root, int all, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL };
    int n = (int)rch_mpi_large_remote_size(comm), sig = all || rch_mpi_large_at_root(comm, root);
    struct side r;
    struct one s = { 0, sendtype };
    int err = side(&x, "recvcounts", "displs", recvbuf, sig ? recvcounts : NULL, sig ? displs : NULL, n, recvtype,
                   1, &r);
    if (err)
        return err;
    if (!(err = rch_mpi_large_buf(&x, "sendcount", sendbuf == MPI_IN_PLACE ? 0 : sendcount, sendtype, &s.count,
                                  &s.type))) {
        if (info == BLOCKING)
            err = all ? rch_mpi_allgatherv(fn, sendbuf, s.count, s.type, r.buf, r.counts, r.displs, r.type, r.types,
                                           comm)
                      : rch_mpi_gatherv(fn, sendbuf, s.count, s.type, r.buf, r.counts, r.displs, r.type, r.types,
                                        root, comm);
        else if (all)
            err = info ? rch_mpi_allgatherv_init(fn, sendbuf, s.count, s.type, r.buf, r.counts, r.displs, r.type,
                                                 r.types, comm, *info, request)
                       : rch_mpi_iallgatherv(fn, sendbuf, s.count, s.type, r.buf, r.counts, r.displs, r.type,
                                             r.types, comm, request);
        else
            err = info ? rch_mpi_gatherv_init(fn, sendbuf, s.count, s.type, r.buf, r.counts, r.displs, r.type,
                                              r.types, root, comm, *info, request)
                       : rch_mpi_igatherv(fn, sendbuf, s.count, s.type, r.buf, r.counts, r.displs, r.type, r.types,
                                          root, comm, request);
    }
    rch_mpi_large_buf_done(s.type, sendtype);
    side_done(&r, recvtype);
    return err;
}

static int scatterv(const char *fn, persist_t info, const void *sendbuf, const MPI_Count *sendcounts,
                    const MPI_Aint *displs, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL };
    int n = (int)rch_mpi_large_remote_size(comm), sig = rch_mpi_large_at_root(comm, root);
    struct side s;
    struct one r = { 0, recvtype };
    int err = side(&x, "sendcounts", "displs", (void *)sendbuf, sig ? sendcounts : NULL, sig ? displs : NULL, n,
                   sendtype, 1, &s);
    if (err)
        return err;
    if (!(err = rch_mpi_large_buf(&x, "recvcount", recvbuf == MPI_IN_PLACE ? 0 : recvcount, recvtype, &r.count,
                                  &r.type)) && info == BLOCKING)
        err = rch_mpi_scatterv(fn, s.buf, s.counts, s.displs, s.type, s.types, recvbuf, r.count, r.type, root, comm);
    else if (!err)
        err = info ? rch_mpi_scatterv_init(fn, s.buf, s.counts, s.displs, s.type, s.types, recvbuf, r.count, r.type,
                                           root, comm, *info, request)
                   : rch_mpi_iscatterv(fn, s.buf, s.counts, s.displs, s.type, s.types, recvbuf, r.count, r.type,
                                       root, comm, request);
    rch_mpi_large_buf_done(r.type, recvtype);
    side_done(&s, sendtype);
    return err;
}

/* Reduce_scatter: no displacements, the one datatype on both buffers. The
 * send buffer needs no rebasing (block i starts at the sum of the counts
 * before it, in K units too). */
static int reduce_scatter(const char *fn, persist_t info, const void *sendbuf, void *recvbuf,
                          const MPI_Count *recvcounts, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                          MPI_Request *request)
{
    RCH_MPI_CS();
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL };
    int n = (int)rch_mpi_large_nprocs(comm);
    if (recvcounts && !fits(recvcounts, n)) {
        if (info == BLOCKING)
            return rch_mpi_reduce_scatter_c(fn, sendbuf, recvbuf, recvcounts, datatype, op, comm);
        return info ? rch_mpi_reduce_scatter_init_c(fn, sendbuf, recvbuf, recvcounts, datatype, op, comm, *info,
                                                    request)
                    : rch_mpi_ireduce_scatter_c(fn, sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
    }
    struct side r;
    int err = side(&x, "recvcounts", "", recvbuf, recvcounts, NULL, n, datatype, 0, &r);
    if (err)
        return err;
    if (info == BLOCKING)
        err = PMPI_Reduce_scatter(sendbuf, recvbuf, r.counts, r.type, op, comm);
    else
        err = info ? PMPI_Reduce_scatter_init(sendbuf, recvbuf, r.counts, r.type, op, comm, *info, request)
                   : PMPI_Ireduce_scatter(sendbuf, recvbuf, r.counts, r.type, op, comm, request);
    side_done(&r, datatype);
    return err;
}

/* One side of a neighbourhood exchange in MPI_Neighbor_alltoallw_c's
 * terms: n edges of counts[i] (or count for every edge, counts NULL)
 * elements of dt at displs[i] extents (0, displs NULL) as byte
 * displacements and a type per edge. One allocation: free(w->counts). */
struct wside {
    MPI_Count *counts;
    MPI_Aint *displs;
    MPI_Datatype *types;
};

static int wside(const struct rch_mpi_large_ctx *x, const char *cname, const char *dname, const MPI_Count *counts,
                 MPI_Count count, const MPI_Aint *displs, int n, MPI_Datatype dt, struct wside *w)
{
    MPI_Aint lb, ext = 0;
    size_t m = (size_t)(n > 0 ? n : 1);
    char *mem = malloc(m * (sizeof(MPI_Count) + sizeof(MPI_Aint) + sizeof(MPI_Datatype)));
    *w = (struct wside){ (MPI_Count *)(void *)mem, NULL, NULL };
    if (!mem)
        return rch_mpi_large_err(x, MPI_ERR_NO_MEM, "no memory to convert argument %s (%d values)", cname, n);
    w->displs = (MPI_Aint *)(void *)(mem + m * sizeof(MPI_Count));
    w->types = (MPI_Datatype *)(void *)(mem + m * (sizeof(MPI_Count) + sizeof(MPI_Aint)));
    if (rch_mpi_type_get(dt))   /* else rch_mpi_nbw_large reports it */
        PMPI_Type_get_extent(dt, &lb, &ext);
    for (int i = 0; i < n; i++) {
        w->counts[i] = counts ? counts[i] : count;
        w->types[i] = dt;
        w->displs[i] = 0;
        if (displs && __builtin_mul_overflow(displs[i], ext, &w->displs[i])) {
            free(mem);
            return entry_err(x, MPI_ERR_ARG, "displacement", displs[i], dname, i, "times the extent overflows");
        }
    }
    return MPI_SUCCESS;
}

/* MPI_Neighbor_allgatherv_c and _alltoallv_c whose arrays do not fit an
 * int: as MPI_Neighbor_alltoallw_c's arguments (rch_mpi_nbw_large, which
 * gives every edge its own one-block type). The send side is sendcounts,
 * sdispls, or sendcount to every out-neighbour from the buffer's start. */
static int neighbor_w(const char *fn, persist_t info, const void *sendbuf, const MPI_Count *sendcounts,
                      MPI_Count sendcount, const MPI_Aint *sdispls, MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count *recvcounts, const MPI_Aint *rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL };
    struct wside s, r;
    int no = (int)rch_mpi_large_degree(comm, 1), ni = (int)rch_mpi_large_degree(comm, 0);
    if (!sendcounts && sendcount < 0)
        return rch_mpi_large_err(&x, MPI_ERR_COUNT, "negative count %lld in argument sendcount",
                                 (long long)sendcount);
    int err = wside(&x, "sendcounts", "sdispls", sendcounts, sendcount, sdispls, no, sendtype, &s);
    if (err)
        return err;
    if (!(err = wside(&x, "recvcounts", "rdispls", recvcounts, 0, rdispls, ni, recvtype, &r))) {
        int kind = info == BLOCKING ? RCH_MPI_NBW_BLOCKING : info ? RCH_MPI_NBW_PERSISTENT : RCH_MPI_NBW_NONBLOCKING;
        err = rch_mpi_nbw_large(fn, kind, sendbuf, s.counts, s.displs, s.types, recvbuf, r.counts, r.displs,
                                r.types, comm, info && info != BLOCKING ? *info : MPI_INFO_NULL, request);
        free(r.counts);
    }
    free(s.counts);
    return err;
}

static int neighbor_allgatherv(const char *fn, persist_t info, const void *sendbuf, MPI_Count sendcount,
                               MPI_Datatype sendtype, void *recvbuf, const MPI_Count *recvcounts,
                               const MPI_Aint *displs, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL };
    int ni = (int)rch_mpi_large_degree(comm, 0);
    if (recvcounts && displs && !(fits(recvcounts, ni) && fits(displs, ni)))
        return neighbor_w(fn, info, sendbuf, NULL, sendcount, NULL, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm, request);
    struct side r;
    struct one s = { 0, sendtype };
    int err = side(&x, "recvcounts", "displs", recvbuf, recvcounts, displs, ni, recvtype, 0, &r);
    if (err)
        return err;
    if (!(err = rch_mpi_large_buf(&x, "sendcount", sendcount, sendtype, &s.count, &s.type)) && info == BLOCKING)
        err = PMPI_Neighbor_allgatherv(sendbuf, s.count, s.type, r.buf, r.counts, r.displs, r.type, comm);
    else if (!err)
        err = info ? PMPI_Neighbor_allgatherv_init(sendbuf, s.count, s.type, r.buf, r.counts, r.displs, r.type,
                                                   comm, *info, request)
                   : PMPI_Ineighbor_allgatherv(sendbuf, s.count, s.type, r.buf, r.counts, r.displs, r.type, comm,
                                               request);
    rch_mpi_large_buf_done(s.type, sendtype);
    side_done(&r, recvtype);
    return err;
}

static int neighbor_alltoallv(const char *fn, persist_t info, const void *sendbuf, const MPI_Count *sendcounts,
                              const MPI_Aint *sdispls, MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count *recvcounts, const MPI_Aint *rdispls, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL };
    int no = (int)rch_mpi_large_degree(comm, 1), ni = (int)rch_mpi_large_degree(comm, 0);
    if (sendcounts && sdispls && recvcounts && rdispls &&
        !(fits(sendcounts, no) && fits(sdispls, no) && fits(recvcounts, ni) && fits(rdispls, ni)))
        return neighbor_w(fn, info, sendbuf, sendcounts, 0, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                          comm, request);
    struct side s, r;
    int err = side(&x, "sendcounts", "sdispls", (void *)sendbuf, sendcounts, sdispls, no, sendtype, 0, &s);
    if (err)
        return err;
    if (!(err = side(&x, "recvcounts", "rdispls", recvbuf, recvcounts, rdispls, ni, recvtype, 0, &r)) &&
        info == BLOCKING) {
        err = PMPI_Neighbor_alltoallv(s.buf, s.counts, s.displs, s.type, r.buf, r.counts, r.displs, r.type, comm);
        side_done(&r, recvtype);
    } else if (!err) {
        err = info ? PMPI_Neighbor_alltoallv_init(s.buf, s.counts, s.displs, s.type, r.buf, r.counts, r.displs,
                                                  r.type, comm, *info, request)
                   : PMPI_Ineighbor_alltoallv(s.buf, s.counts, s.displs, s.type, r.buf, r.counts, r.displs, r.type,
                                              comm, request);
        side_done(&r, recvtype);
    }
    side_done(&s, sendtype);
    return err;
}

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request *request)
{
    return gatherv("MPI_Igatherv_c", NULL, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                   root, 0, comm, request);
}
#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return gatherv("MPI_Gatherv_init_c", &info, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                   recvtype, root, 0, comm, request);
}
#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request)
{
    return gatherv("MPI_Iallgatherv_c", NULL, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                   0, 1, comm, request);
}
#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return gatherv("MPI_Allgatherv_init_c", &info, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                   recvtype, 0, 1, comm, request);
}
#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Request *request)
{
    return scatterv("MPI_Iscatterv_c", NULL, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                    root, comm, request);
}
#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return scatterv("MPI_Scatterv_init_c", &info, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                    recvtype, root, comm, request);
}
#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter("MPI_Ireduce_scatter_c", NULL, sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
}
#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return reduce_scatter("MPI_Reduce_scatter_init_c", &info, sendbuf, recvbuf, recvcounts, datatype, op, comm,
                          request);
}
#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request *request)
{
    return neighbor_allgatherv("MPI_Ineighbor_allgatherv_c", NULL, sendbuf, sendcount, sendtype, recvbuf,
                               recvcounts, displs, recvtype, comm, request);
}
#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return neighbor_allgatherv("MPI_Neighbor_allgatherv_init_c", &info, sendbuf, sendcount, sendtype, recvbuf,
                               recvcounts, displs, recvtype, comm, request);
}
#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return neighbor_alltoallv("MPI_Ineighbor_alltoallv_c", NULL, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                              recvcounts, rdispls, recvtype, comm, request);
}
#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    return neighbor_alltoallv("MPI_Neighbor_alltoallv_init_c", &info, sendbuf, sendcounts, sdispls, sendtype,
                              recvbuf, recvcounts, rdispls, recvtype, comm, request);
}
#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter("MPI_Reduce_scatter_c", BLOCKING, sendbuf, recvbuf, recvcounts, datatype, op, comm, NULL);
}
#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm)
{
    return neighbor_allgatherv("MPI_Neighbor_allgatherv_c", BLOCKING, sendbuf, sendcount, sendtype, recvbuf,
                               recvcounts, displs, recvtype, comm, NULL);
}
#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_alltoallv("MPI_Neighbor_alltoallv_c", BLOCKING, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                              recvcounts, rdispls, recvtype, comm, NULL);
}
#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm)
{
    return gatherv("MPI_Gatherv_c", BLOCKING, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                   root, 0, comm, NULL);
}
#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return gatherv("MPI_Allgatherv_c", BLOCKING, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                   recvtype, 0, 1, comm, NULL);
}
#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm)
{
    return scatterv("MPI_Scatterv_c", BLOCKING, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                    recvtype, root, comm, NULL);
}
#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c
