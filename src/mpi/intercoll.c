/*
 * The blocking collectives on intercommunicators (MPI-4.1 6.2.2): correct
 * and simple rather than fast. Two building blocks:
 *
 *   - direct transfers between the groups (xfer_run): every message of the
 *     call is posted at once on the intercommunicator's ctx + 1, then all
 *     are waited for. Rooted calls move data between the root and each
 *     remote member (p messages); the all-to-all family between every pair
 *     (p * q messages, O(1) latency).
 *   - for the reductions, the local group's hidden intracommunicator
 *     (c->local): the group reduces to its rank 0, the two rank 0s swap
 *     their results, and each group spreads what it got (Bcast, Scatter(v)).
 *
 *   Reduce to A's root:         B: local Reduce ──> B0 ──> A root
 *   Allreduce / Reduce_scatter: A: Reduce -> A0 <══ swap ══> B0 <- Reduce :B
 *                               A: Bcast/Scatter <- A0       B0 -> ...   :B
 *
 * Rooted calls (MPI-4.1 6.2.2): in the root's group the root passes
 * MPI_ROOT and the others MPI_PROC_NULL; the other group passes the root's
 * rank in the root's group. MPI_IN_PLACE has no meaning on an
 * intercommunicator and is refused (MPI_ERR_BUFFER).
 *
 * Every call of one intercommunicator's collectives uses one tag on ctx + 1:
 * each pair exchanges at most one message per direction per call, and the
 * calls come in the same order everywhere, so non-overtaking matching pairs
 * them up.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"
#include "mpi/intercoll_impl.h"

#define TAG_COLL 1

rdmach_status_t rch_mpi_xfer_post(struct rch_mpi_comm *c, struct rch_mpi_xfer *x)
{
    size_t bytes = (size_t)x->count * x->t->size;
    char *p = x->raw ? x->buf : (char *)x->buf + x->t->true_lb;
    if (!x->raw && !x->t->contig && bytes > 0) {
        if (!(x->tmp = malloc(bytes)))
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "no memory for %zu bytes of a non-contiguous datatype", bytes);
        if (x->is_send)
            rch_mpi_type_pack(x->buf, x->count, x->t, x->tmp);
        p = x->tmp;
    }
    if (x->is_send && x->len)   /* a window of the packed elements */
        p += x->from, bytes = x->len;
    if (x->is_send)
        return rch_dev_isend(p, bytes, c->peer_world_of[x->peer], c->rank, TAG_COLL, c->ctx + 1, RCH_DEV_SEND_STD,
                             &x->req);
    return rch_dev_irecv(p, bytes, x->peer, TAG_COLL, c->ctx + 1, &x->req);
}

rdmach_status_t rch_mpi_xfer_end(struct rch_mpi_xfer *x, rdmach_status_t st)
{
    size_t got = 0;
    if (x->req) {
        if (st == RDMACH_OK)
            st = x->req->err;
        got = x->req->bytes;
        rch_dev_req_free(x->req);
        x->req = NULL;
    }
    if (st == RDMACH_OK && x->tmp && !x->is_send)
        rch_mpi_type_unpack(x->tmp, got, x->buf, x->count, x->t);
    free(x->tmp);
    x->tmp = NULL;
    return st;
}

/* Post every transfer, wait for all (even after a failure: no request is
 * left behind), unpack what arrived packed. */
static rdmach_status_t xfer_run(struct rch_mpi_comm *c, struct rch_mpi_xfer *x, int n)
{
    rdmach_status_t st = RDMACH_OK;
    for (int i = 0; i < n; i++) {
        x[i].tmp = NULL;
        x[i].req = NULL;
    }
    for (int i = 0; i < n && st == RDMACH_OK; i++)
        st = rch_mpi_xfer_post(c, &x[i]);
    for (int i = 0; i < n; i++) {
        if (x[i].req) {
            rdmach_status_t s = rch_dev_wait(x[i].req);
            if (st == RDMACH_OK)
                st = s;
        }
        st = rch_mpi_xfer_end(&x[i], st);
    }
    return st;
}

/* A call's transfers, one per remote rank at most; freed by finish(). */
static struct rch_mpi_xfer *xfers(const char *fn, struct rch_mpi_comm *c, int n, int *err)
{
    struct rch_mpi_xfer *x = calloc((size_t)(n ? n : 1), sizeof(*x));
    *err = x ? MPI_SUCCESS : rch_mpi_coll_nomem(fn, c, (size_t)n * sizeof(*x));
    return x;
}

static int finish(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_xfer *x, int n)
{
    rdmach_status_t st = xfer_run(c, x, n);
    free(x);
    return st == RDMACH_OK ? MPI_SUCCESS : rch_mpi_coll_fail(fn, c, st);
}

static void *at(const void *buf, MPI_Aint off)
{
    return (char *)buf + off;
}

int rch_mpi_inter_check_root(const char *fn, struct rch_mpi_comm *c, int root, int *kind)
{
    if (root == MPI_ROOT)
        *kind = RCH_MPI_ROOT_SELF;
    else if (root == MPI_PROC_NULL)
        *kind = RCH_MPI_ROOT_NONE;
    else if (root >= 0 && root < c->peer_size)
        *kind = root;
    else
        return rch_mpi_err(c->handle, MPI_ERR_ROOT, "%s: invalid root %d in argument root (MPI_ROOT, MPI_PROC_NULL "
                           "or a rank of the remote group of size %d)", fn, root, c->peer_size);
    return MPI_SUCCESS;
}

int rch_mpi_inter_barrier(struct rch_mpi_comm *c)
{
    rdmach_status_t st = rch_mpi_inter_sync(c);
    return st == RDMACH_OK ? MPI_SUCCESS : rch_mpi_coll_fail("MPI_Barrier", c, st);
}

/* ---- rooted: one message between the root and each remote member ---- */

int rch_mpi_inter_bcast(struct rch_mpi_comm *c, void *buf, int count, MPI_Datatype dt, int root)
{
    static const char fn[] = "MPI_Bcast";
    const struct rch_mpi_type *t;
    int kind, err;
    if ((err = rch_mpi_inter_check_root(fn, c, root, &kind)) || kind == RCH_MPI_ROOT_NONE ||
        (err = rch_mpi_coll_check_buf(fn, c, buf, count, dt, "buffer", "count", "datatype", &t)))
        return err;
    /* The root sends to the remote rank 0, which broadcasts in its group. */
    if (kind == RCH_MPI_ROOT_SELF || c->rank == 0) {
        struct rch_mpi_xfer x = { buf, count, t, kind == RCH_MPI_ROOT_SELF ? 0 : kind, kind == RCH_MPI_ROOT_SELF, NULL, NULL, 0 };
        rdmach_status_t st = xfer_run(c, &x, 1);
        if (st != RDMACH_OK)
            return rch_mpi_coll_fail(fn, c, st);
    }
    if (kind == RCH_MPI_ROOT_SELF)
        return MPI_SUCCESS;
    err = PMPI_Bcast(buf, count, dt, 0, c->local->handle);
    return err ? rch_mpi_err_raise(c->handle, err) : MPI_SUCCESS;
}

/* Gather(v) (gather = 1) and Scatter(v): the root's side has counts (one per
 * remote rank) and displacements in elements of its type (or of its own
 * type per rank: roottypes); the other side one block. */
int rch_mpi_inter_plan_rooted(const char *fn, struct rch_mpi_comm *c, int gather, int root, const void *rootbuf,
                              int rootcount, const int *rootcounts, const int *displs, MPI_Datatype roottype,
                              const MPI_Datatype *roottypes, const void *buf, int count, MPI_Datatype dt,
                              struct rch_mpi_xfer **xp, int *np)
{
    const char *rb = gather ? "recvbuf" : "sendbuf", *rc = gather ? "recvcount" : "sendcount";
    const char *rt = gather ? "recvtype" : "sendtype";
    const struct rch_mpi_type *t;
    int kind, err, n = 1;
    *xp = NULL;
    *np = 0;
    if ((err = rch_mpi_inter_check_root(fn, c, root, &kind)) || kind == RCH_MPI_ROOT_NONE)
        return err;
    if (kind != RCH_MPI_ROOT_SELF) {
        if ((err = rch_mpi_coll_check_buf(fn, c, buf, count, dt, gather ? "sendbuf" : "recvbuf",
                                          gather ? "sendcount" : "recvcount", gather ? "sendtype" : "recvtype", &t)))
            return err;
        struct rch_mpi_xfer *x = xfers(fn, c, 1, &err);
        if (!x)
            return err;
        *x = (struct rch_mpi_xfer){ (void *)buf, count, t, kind, gather, NULL, NULL, 0 };
        *xp = x;
        *np = 1;
        return MPI_SUCCESS;
    }
    n = c->peer_size;
    const struct rch_mpi_type **tv = roottypes ? calloc((size_t)n + 1, sizeof(*tv)) : NULL;
    if (roottypes && !tv)
        return rch_mpi_coll_nomem(fn, c, ((size_t)n + 1) * sizeof(*tv));
    if (rootcounts) {
        err = rch_mpi_coll_check_counts(fn, c, n, rootcounts, gather ? "recvcounts" : "sendcounts", displs, "displs");
        if (!err)
            err = rch_mpi_coll_check_blocks(fn, c, rootbuf, n, rootcounts, roottype, roottypes, rb, rc, rt, &t, tv);
    } else {
        err = rch_mpi_coll_check_buf(fn, c, rootbuf, rootcount, roottype, rb, rc, rt, &t);
    }
    struct rch_mpi_xfer *x = err ? NULL : xfers(fn, c, n, &err);
    for (int i = 0; x && i < n; i++) {
        const struct rch_mpi_type *ti = tv ? tv[i] : t;
        MPI_Aint off = (MPI_Aint)(rootcounts ? displs[i] : i * rootcount) * ti->extent;
        x[i] = (struct rch_mpi_xfer){ at(rootbuf, off), rootcounts ? rootcounts[i] : rootcount, ti, i, !gather,
                                      NULL, NULL, 0 };
    }
    free(tv);
    *xp = x;
    *np = x ? n : 0;
    return err;
}

/* Run a plan: the blocking calls. */
static int run(const char *fn, struct rch_mpi_comm *c, int err, struct rch_mpi_xfer *x, int n)
{
    return err || !x ? err : finish(fn, c, x, n);
}

static int rooted(const char *fn, struct rch_mpi_comm *c, int gather, int root, const void *rootbuf, int rootcount,
                  const int *rootcounts, const int *displs, MPI_Datatype roottype, const MPI_Datatype *roottypes,
                  const void *buf, int count, MPI_Datatype dt)
{
    struct rch_mpi_xfer *x;
    int n, err = rch_mpi_inter_plan_rooted(fn, c, gather, root, rootbuf, rootcount, rootcounts, displs, roottype,
                                           roottypes, buf, count, dt, &x, &n);
    return run(fn, c, err, x, n);
}

int rch_mpi_inter_gather(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype,
                         void *rbuf, int rcount, const int *rcounts, const int *displs, MPI_Datatype rtype,
                         const MPI_Datatype *rtypes, int root)
{
    return rooted(fn, c, 1, root, rbuf, rcount, rcounts, displs, rtype, rtypes, sbuf, scount, stype);
}

int rch_mpi_inter_scatter(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount, const int *scounts,
                          const int *displs, MPI_Datatype stype, const MPI_Datatype *stypes, void *rbuf, int rcount,
                          MPI_Datatype rtype, int root)
{
    return rooted(fn, c, 0, root, sbuf, scount, scounts, displs, stype, stypes, rbuf, rcount, rtype);
}

/* ---- all-to-all family: a message each way between every pair ---- */

/* One side of an all-to-all: block j is counts[j] (or count) elements of
 * types[j] (or t) at displacement displs[j] (bytes if bytedispl, else
 * elements of the type; without displs, j * count elements). */
struct side {
    const void *buf;
    int count;
    const int *counts, *displs;
    MPI_Datatype dt;
    const MPI_Datatype *types;
    int bytedispl;
    int same;                 /* every block is the whole buffer (Allgather's send side) */
    const char *bufarg, *countarg, *displarg, *typearg;
};

static int side_check(const char *fn, struct rch_mpi_comm *c, const struct side *s, int n,
                      const struct rch_mpi_type **t, const struct rch_mpi_type **tv)
{
    int err;
    if (!s->counts)
        return rch_mpi_coll_check_buf(fn, c, s->buf, s->count, s->dt, s->bufarg, s->countarg, s->typearg, t);
    if ((err = rch_mpi_coll_check_counts(fn, c, n, s->counts, s->countarg, s->displs, s->displarg)))
        return err;
    return rch_mpi_coll_check_blocks(fn, c, s->buf, n, s->counts, s->dt, s->types, s->bufarg, s->countarg,
                                     s->typearg, t, tv);
}

static struct rch_mpi_xfer side_block(const struct side *s, const struct rch_mpi_type *t, const struct rch_mpi_type **tv,
                              int j, int is_send)
{
    const struct rch_mpi_type *bt = s->types ? tv[j] : t;
    int count = s->counts ? s->counts[j] : s->count;
    MPI_Aint off = s->same ? 0
                   : s->displs ? (MPI_Aint)s->displs[j] * (s->bytedispl ? 1 : bt->extent)
                               : (MPI_Aint)j * count * bt->extent;
    return (struct rch_mpi_xfer){ at(s->buf, off), count, bt, j, is_send, NULL, NULL, 0 };
}

static int plan_alltoall(const char *fn, struct rch_mpi_comm *c, const struct side *snd, const struct side *rcv,
                         struct rch_mpi_xfer **xp, int *np)
{
    int n = c->peer_size, err;
    const struct rch_mpi_type *st = NULL, *rt = NULL;
    *xp = NULL;
    *np = 0;
    const struct rch_mpi_type **tv = calloc(2 * (size_t)n + 1, sizeof(*tv));
    if (!tv)
        return rch_mpi_coll_nomem(fn, c, 2 * (size_t)n * sizeof(*tv));
    if ((err = side_check(fn, c, snd, n, &st, tv)) || (err = side_check(fn, c, rcv, n, &rt, tv + n))) {
        free(tv);
        return err;
    }
    struct rch_mpi_xfer *x = xfers(fn, c, 2 * n, &err);
    if (!x) {
        free(tv);
        return err;
    }
    for (int j = 0; j < n; j++) {
        x[2 * j] = side_block(rcv, rt, tv + n, j, 0);
        x[2 * j + 1] = side_block(snd, st, tv, j, 1);
    }
    free(tv);
    *xp = x;
    *np = 2 * n;
    return MPI_SUCCESS;
}

/* With per-peer receive types (rtypes) the displacements are in extents of
 * each peer's type. */
int rch_mpi_inter_plan_allgather(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount,
                                 MPI_Datatype stype, void *rbuf, int rcount, const int *rcounts, const int *displs,
                                 MPI_Datatype rtype, const MPI_Datatype *rtypes, struct rch_mpi_xfer **x, int *n)
{
    struct side s = { sbuf, scount, NULL, NULL, stype, NULL, 0, 1, "sendbuf", "sendcount", NULL, "sendtype" };
    struct side r = { rbuf, rcount, rcounts, displs, rtype, rtypes, 0, 0, "recvbuf",
                      rcounts ? "recvcounts" : "recvcount", "displs", "recvtype" };
    return plan_alltoall(fn, c, &s, &r, x, n);
}

int rch_mpi_inter_allgather(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype,
                            void *rbuf, int rcount, const int *rcounts, const int *displs, MPI_Datatype rtype,
                            const MPI_Datatype *rtypes)
{
    struct rch_mpi_xfer *x;
    int n, err = rch_mpi_inter_plan_allgather(fn, c, sbuf, scount, stype, rbuf, rcount, rcounts, displs, rtype,
                                              rtypes, &x, &n);
    return run(fn, c, err, x, n);
}

int rch_mpi_inter_plan_alltoallx(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount,
                                 const int *scounts, const int *sdispls, MPI_Datatype stype,
                                 const MPI_Datatype *stypes, void *rbuf, int rcount, const int *rcounts,
                                 const int *rdispls, MPI_Datatype rtype, const MPI_Datatype *rtypes,
                                 struct rch_mpi_xfer **x, int *n)
{
    int w = stypes != NULL;
    struct side s = { sbuf, scount, scounts, sdispls, stype, stypes, w, 0, "sendbuf",
                      scounts ? "sendcounts" : "sendcount", "sdispls", w ? "sendtypes" : "sendtype" };
    struct side r = { rbuf, rcount, rcounts, rdispls, rtype, rtypes, w, 0, "recvbuf",
                      rcounts ? "recvcounts" : "recvcount", "rdispls", w ? "recvtypes" : "recvtype" };
    return plan_alltoall(fn, c, &s, &r, x, n);
}

int rch_mpi_inter_alltoallx(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount,
                            const int *scounts, const int *sdispls, MPI_Datatype stype, const MPI_Datatype *stypes,
                            void *rbuf, int rcount, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                            const MPI_Datatype *rtypes)
{
    struct rch_mpi_xfer *x;
    int n, err = rch_mpi_inter_plan_alltoallx(fn, c, sbuf, scount, scounts, sdispls, stype, stypes, rbuf, rcount,
                                              rcounts, rdispls, rtype, rtypes, &x, &n);
    return run(fn, c, err, x, n);
}

/* ---- reductions: reduce in the group, swap between the rank 0s ---- */

/* Room for count elements of t, and the pointer MPI calls take for it. */
static void *scratch(const struct rch_mpi_type *t, int count, void **base)
{
    size_t span = count > 0 ? (size_t)(count - 1) * (size_t)t->extent + (size_t)(t->true_ub - t->true_lb) : 0;
    char *p = malloc(span + 1);
    *base = p ? p - t->true_lb : NULL;
    return p;
}

/* My group's reduction of sendbuf at local rank 0 (into tmp), swapped there
 * with the remote group's (into rbuf, valid at local rank 0). */
static int reduce_swap(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int count,
                       MPI_Datatype dt, MPI_Op op)
{
    const struct rch_mpi_type *t;
    int err;
    if ((err = rch_mpi_coll_check_type(fn, c, dt, "datatype", &t)) ||   /* a reduction's, whatever the count */
        (err = rch_mpi_coll_check_buf(fn, c, sbuf, count, dt, "sendbuf", "count", "datatype", &t)) ||
        (c->rank == 0 && (err = rch_mpi_coll_check_buf(fn, c, rbuf, count, dt, "recvbuf", "count", "datatype", NULL))))
        return err;
    void *tmp, *mem = scratch(t, count, &tmp);
    if (!mem)
        return rch_mpi_coll_nomem(fn, c, (size_t)count * (size_t)t->extent);
    err = PMPI_Reduce(sbuf, tmp, count, dt, op, 0, c->local->handle);
    if (err) {
        free(mem);
        return rch_mpi_err_raise(c->handle, err);
    }
    if (c->rank == 0) {
        struct rch_mpi_xfer x[2] = { { rbuf, count, t, 0, 0, NULL, NULL, 0 }, { tmp, count, t, 0, 1, NULL, NULL, 0 } };
        rdmach_status_t st = xfer_run(c, x, 2);
        if (st != RDMACH_OK)
            err = rch_mpi_coll_fail(fn, c, st);
    }
    free(mem);
    return err;
}

int rch_mpi_inter_reduce(struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root)
{
    static const char fn[] = "MPI_Reduce";
    const struct rch_mpi_type *t;
    int kind, err;
    if ((err = rch_mpi_inter_check_root(fn, c, root, &kind)) || kind == RCH_MPI_ROOT_NONE ||
        (err = rch_mpi_coll_check_type(fn, c, dt, "datatype", &t)))   /* a reduction's, whatever the count */
        return err;
    if (kind == RCH_MPI_ROOT_SELF) {   /* the remote group's rank 0 sends its group's result */
        if ((err = rch_mpi_coll_check_buf(fn, c, rbuf, count, dt, "recvbuf", "count", "datatype", &t)))
            return err;
        struct rch_mpi_xfer x = { rbuf, count, t, 0, 0, NULL, NULL, 0 };
        rdmach_status_t st = xfer_run(c, &x, 1);
        return st == RDMACH_OK ? MPI_SUCCESS : rch_mpi_coll_fail(fn, c, st);
    }
    if ((err = rch_mpi_coll_check_buf(fn, c, sbuf, count, dt, "sendbuf", "count", "datatype", &t)))
        return err;
    void *tmp, *mem = scratch(t, count, &tmp);
    if (!mem)
        return rch_mpi_coll_nomem(fn, c, (size_t)count * (size_t)t->extent);
    err = PMPI_Reduce(sbuf, tmp, count, dt, op, 0, c->local->handle);
    if (err)
        err = rch_mpi_err_raise(c->handle, err);
    else if (c->rank == 0) {
        struct rch_mpi_xfer x = { tmp, count, t, kind, 1, NULL, NULL, 0 };
        rdmach_status_t st = xfer_run(c, &x, 1);
        if (st != RDMACH_OK)
            err = rch_mpi_coll_fail(fn, c, st);
    }
    free(mem);
    return err;
}

int rch_mpi_inter_allreduce(struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                            MPI_Op op)
{
    int err = reduce_swap("MPI_Allreduce", c, sbuf, rbuf, count, dt, op);
    if (!err && (err = PMPI_Bcast(rbuf, count, dt, 0, c->local->handle)))
        err = rch_mpi_err_raise(c->handle, err);
    return err;
}

/* Reduce_scatter (rcounts) and Reduce_scatter_block (rcount): the swapped
 * result, sum(recvcounts) elements, is scattered over my group (a sum
 * beyond INT_MAX, either form: in chunks, intercoll_big.c). */
int rch_mpi_inter_reduce_scatter(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int rcount,
                                 const int *rcounts, MPI_Datatype dt, MPI_Op op)
{
    if (!fn)
        fn = rcounts ? "MPI_Reduce_scatter" : "MPI_Reduce_scatter_block";
    const struct rch_mpi_type *t;
    int n = c->size, err;
    if ((err = rcounts ? rch_mpi_coll_check_array(fn, c, rcounts, n, "recvcounts", 1)
                       : rch_mpi_coll_check_count(fn, c, rcount, "recvcount")) ||
        (err = rch_mpi_coll_check_type(fn, c, dt, "datatype", &t)))
        return err;
    int *counts = malloc(2 * (size_t)n * sizeof(int)), *displs = counts + n;
    if (!counts)
        return rch_mpi_coll_nomem(fn, c, 2 * (size_t)n * sizeof(int));
    long total = 0;
    for (int i = 0; i < n; i++) {
        counts[i] = rcounts ? rcounts[i] : rcount;
        displs[i] = (int)total;
        total += counts[i];
    }
    if (rch_mpi_inter_chained((size_t)total, dt)) {   /* as the _c form's (both groups' totals are equal) */
        free(counts);
        MPI_Count *w = rch_mpi_inter_widen(fn, c, rcounts, rcount, &err);
        if (w)
            err = rch_mpi_inter_reduce_scatter_c(fn, c, sbuf, rbuf, w, dt, op);
        free(w);
        return err;
    }
    void *res = NULL, *mem = total > INT32_MAX ? NULL : scratch(t, (int)total, &res);
    if (!mem) {
        free(counts);
        return rch_mpi_coll_nomem(fn, c, (size_t)total * (size_t)t->extent);
    }
    err = reduce_swap(fn, c, sbuf, res, (int)total, dt, op);
    if (!err && !(err = rch_mpi_coll_check_buf(fn, c, rbuf, counts[c->rank], dt, "recvbuf", "recvcount", "datatype",
                                                NULL)) &&
        (err = PMPI_Scatterv(res, counts, displs, dt, rbuf, counts[c->rank], dt, 0, c->local->handle)))
        err = rch_mpi_err_raise(c->handle, err);
    free(mem);
    free(counts);
    return err;
}
