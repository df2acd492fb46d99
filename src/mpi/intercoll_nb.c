/*
 * The non-blocking and persistent collectives on intercommunicators
 * (MPI-4.1 6.12, 6.13): MPI_Ibarrier ... MPI_Ireduce_scatter_block and their
 * MPI_<collective>_init forms, with the rooted semantics of the blocking
 * ones (intercoll.c: MPI_ROOT / MPI_PROC_NULL in the root's group, the
 * root's rank in the other).
 *
 * A call is one list of transfers (intercoll_impl.h), all posted at once on
 * the intercommunicator's ctx + 1 and completed by a progress hook that
 * completes the call's generalized device request (the MPI_Request) once
 * every transfer is done. No step waits for another, so the calls are flat
 * where the blocking ones go through the local group:
 *
 *   Barrier:            a message each way between every pair (p * q)
 *   Bcast:              the root sends to every remote rank (q)
 *   Gather(v)/Scatter(v), the all-to-all family: as the blocking plans
 *   Reduce:             every member of the non-root group sends its vector
 *                       to the root, which reduces the q operands
 *   Allreduce:          every pair exchanges vectors; each rank reduces the
 *                       q operands it received
 *   Reduce_scatter_block: remote rank r sends to local rank j its block j
 *                       (1/q of its packed vector: the groups' vectors have
 *                       one signature); j reduces the q blocks
 *   Reduce_scatter:     the remote group does not know this group's
 *                       recvcounts, so every pair exchanges whole vectors and
 *                       each rank reduces its own slice of them
 *                       (a vector beyond INT_MAX basic elements, this or
 *                       Reduce_scatter_block: an exchange that agrees on
 *                       the cut, then one such call per chunk of it, each
 *                       started by the last one's completion,
 *                       intercoll_big.c)
 *
 * The operands of a reduction arrive packed (raw transfers) and are reduced
 * in the remote group's rank order, v0 op (v1 op (... op v(q-1))), the order
 * the standard asks of a non-commutative operation; the result is unpacked
 * into recvbuf.
 *
 * A persistent request keeps its list: every MPI_Start posts it again (a
 * send packs the user's data at that moment). The calls and starts of one
 * intercommunicator come in the same order on every member and each pair
 * exchanges at most one message per direction per call, so matching in
 * order pairs them up, with the blocking calls' messages too (a blocking and
 * a non-blocking collective never match each other: MPI-4.1 6.12).
 *
 * Datatypes are retained until the request is freed (the user may free
 * them meanwhile).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "mpi/coll_nb.h"
#include "mpi/intercoll.h"
#include "mpi/intercoll_impl.h"

struct iop {
    struct rch_mpi_comm *c;
    struct rch_mpi_xfer *x;
    int n;
    struct rch_mpi_nb *nb;             /* retained datatypes */
    /* a reduction's last step (reduces == 0: none): the operands are
     * vec + r * vbytes, r < nops; this rank's result is the elements
     * [off, off + len) of their reduction, unpacked into rbuf as len
     * elements of rt */
    int reduces;
    struct rch_mpi_red red;            /* red.cop.arg may point here */
    unsigned char *vec;
    int nops;
    size_t vbytes, off, len;
    void *rbuf;
    const struct rch_mpi_type *rt;
    struct rch_dev_req *greq;          /* the running call's; NULL when idle */
    int persistent, orphan;            /* orphan (the head's): freed by the user while running */
    struct iop *next;                  /* in `running` */
    /* a chunk of a Reduce_scatter beyond INT_MAX elements (intercoll_big.c):
     * `then` starts when it completed, under the same request; the chain's
     * head is the request's. lazy: vec is vecs's (the first chunk's, the
     * largest), which exists only while the chain runs. */
    struct iop *then, *head, *vecs;
    int lazy;
    struct cut *cut;                   /* the head of a chain that opens with the cut's exchange */
};

/* The opening exchange of a chain (intercoll_big.c, "Where to cut"): my
 * datatype's basic elements per element and the vector's basic length,
 * and the other group's; what the chunks are built from once it is done. */
struct cut {
    uint64_t mine[2], theirs[2];
    const char *fn;
    const void *sbuf;
    void *rbuf;
    MPI_Count *rcounts;                /* a copy */
    MPI_Datatype dt;
    MPI_Op op;                         /* retained */
    struct rch_mpi_chunks k;
};

static struct iop *running;
static int hooked;

/* Set by coll_persist.c around an MPI_<collective>_init call. */
int rch_mpi_inter_persistent;

/* o and the chunks after it. */
static void iop_free(struct iop *o)
{
    while (o) {
        struct iop *then = o->then;
        for (int i = 0; o->x && i < o->n; i++)
            rch_mpi_xfer_end(&o->x[i], RDMACH_ERR_INVALID_ARG);   /* frees, unpacks nothing */
        free(o->x);
        free(o->vec);
        rch_mpi_nb_free(o->nb);
        if (o->cut) {
            free(o->cut->rcounts);
            rch_mpi_op_release(o->cut->op);
        }
        free(o->cut);
        free(o);
        o = then;
    }
}

static int iop_done(const struct iop *o)
{
    for (int i = 0; i < o->n; i++)
        if (o->x[i].req && !rch_mpi_dreq_done(o->x[i].req))
            return 0;
    return 1;
}

/* The reduction of the operands, into the last one. */
static void reduce(struct iop *o)
{
    if (!o->len)
        return;
    size_t elems = o->len / o->rt->size * o->red.per_elem;
    unsigned char *acc = o->vec + (size_t)(o->nops - 1) * o->vbytes + o->off;
    for (int r = o->nops - 2; r >= 0; r--)
        o->red.cop.fn(o->vec + (size_t)r * o->vbytes + o->off, acc, elems, o->red.cop.arg);
    rch_mpi_unpack_n(acc, o->rbuf, o->len / o->rt->size, o->rt);
}

static rdmach_status_t iop_run(struct iop *o, struct rch_dev_req *g);
static int cut_chain(struct iop *o);

/* Every transfer is done: deliver, then start the next chunk or complete
 * the request. */
static void iop_finish(struct iop *o)
{
    rdmach_status_t st = RDMACH_OK;
    int code = MPI_SUCCESS;   /* an MPI-layer failure (building the chunks) */
    for (int i = 0; i < o->n; i++)
        st = rch_mpi_xfer_end(&o->x[i], st);
    if (st == RDMACH_OK && o->reduces)
        reduce(o);
    struct rch_dev_req *g = o->greq;
    struct iop *head = o->head ? o->head : o;
    if (o->lazy && o != o->vecs)
        o->vec = NULL;   /* borrowed */
    o->greq = NULL;
    if (st == RDMACH_OK && o->cut && !o->then)
        code = cut_chain(o);   /* a persistent request's later starts keep the chunks */
    if (st == RDMACH_OK && !code && o->then && (st = iop_run(o->then, g)) == RDMACH_OK)
        return;   /* the chain's last chunk completes g */
    if (o->lazy) {
        free(o->vecs->vec);
        o->vecs->vec = NULL;
    }
    g->err = st;
    if (code)
        rch_mpi_dreq_fail(g, code);
    if (!head->persistent || head->orphan)
        iop_free(head);
    rch_dev_req_complete(g);
}

static unsigned hook(void *arg)
{
    (void)arg;
    unsigned done = 0;
    for (struct iop **pp = &running; *pp;) {
        struct iop *o = *pp;
        if (!iop_done(o)) {
            pp = &o->next;
            continue;
        }
        *pp = o->next;
        iop_finish(o);
        done++;
    }
    if (!running && hooked) {
        rch_dev_progress_hook_remove(hook, NULL);
        hooked = 0;
    }
    return done;
}

/* Post o's transfers under the new GREQ g: RDMACH_OK (o runs, or has
 * already finished) or the failure (nothing is left posted). */
static rdmach_status_t iop_run(struct iop *o, struct rch_dev_req *g)
{
    rdmach_status_t st = RDMACH_OK;
    if (!hooked) {
        st = rch_dev_progress_hook_add(hook, NULL);
        if (st != RDMACH_OK)
            return st;
        hooked = 1;
    }
    struct iop *v = o->vecs;
    if (o->lazy && !v->vec && !(v->vec = malloc(v->vbytes * (size_t)v->nops + 1)))
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "no memory for %zu bytes of reduction operands",
                            v->vbytes * (size_t)v->nops);
    if (o->lazy)
        o->vec = v->vec;
    for (int r = 0; o->lazy && r < o->nops; r++)
        o->x[r].buf = o->vec + (size_t)r * o->vbytes;
    for (int i = 0; i < o->n && st == RDMACH_OK; i++)
        st = rch_mpi_xfer_post(o->c, &o->x[i]);
    if (st != RDMACH_OK) {
        for (int i = 0; i < o->n; i++) {
            if (o->x[i].req && !o->x[i].is_send)
                rch_dev_cancel(o->x[i].req);
            if (o->x[i].req && !rch_mpi_dreq_done(o->x[i].req)) {
                rch_dev_req_free(o->x[i].req);   /* detached: the device finishes it */
                o->x[i].req = NULL;
            }
            rch_mpi_xfer_end(&o->x[i], st);
        }
        if (o->lazy) {
            free(v->vec);
            v->vec = o->vec = NULL;
        }
        return st;
    }
    o->greq = g;
    if (iop_done(o)) {
        iop_finish(o);
    } else {
        o->next = running;
        running = o;
    }
    return RDMACH_OK;
}

/* ---- persistent requests ---- */

static int pstart(const char *fn, void *obj, MPI_Request h, struct rch_mpi_req *e)
{
    struct iop *o = obj;
    struct rch_dev_req *g = rch_dev_req_alloc(RCH_DEV_REQ_GREQ);
    if (!g)
        return rch_mpi_err(e->comm, MPI_ERR_NO_MEM, "%s: out of memory for the run of request 0x%x", fn,
                           (unsigned)h);
    e->dreq = g;
    e->pstate = RCH_MPI_PS_ACTIVE;
    rdmach_status_t st = iop_run(o, g);
    if (st != RDMACH_OK) {
        g->err = st;
        rch_dev_req_complete(g);
        rch_dev_req_free(g);
        e->dreq = NULL;
        e->pstate = RCH_MPI_PS_INACTIVE;
        return rch_mpi_coll_fail(fn, o->c, st);
    }
    return MPI_SUCCESS;
}

/* Freed by the user: a running call still completes (MPI-4.1 3.7.3), its
 * remaining chunks too, since the remote group's chain waits for them and
 * the later calls' messages must not meet theirs; iop_finish frees the
 * chain after its last chunk. */
static void prelease(void *obj)
{
    struct iop *o = obj;
    for (struct iop *k = o; k; k = k->then)
        if (k->greq) {
            o->orphan = 1;
            return;
        }
    iop_free(o);
}

static const struct rch_mpi_persist_ops inter_persist_ops = {
    .name = "persistent collective on an intercommunicator",
    .start = pstart,
    .release = prelease,
};

/* ---- building a call ---- */

static struct iop *iop_new(const char *fn, struct rch_mpi_comm *c, int *err)
{
    struct iop *o = calloc(1, sizeof(*o));
    if (!o) {
        *err = rch_mpi_coll_nomem(fn, c, sizeof(*o));
        return NULL;
    }
    o->c = c;
    if (!(o->nb = rch_mpi_nb_new(fn, c, err))) {
        free(o);
        return NULL;
    }
    return o;
}

/* Retain the datatypes of o's transfers and result. */
static int hold_types(const char *fn, struct iop *o)
{
    const struct rch_mpi_type *last = NULL;
    int err = MPI_SUCCESS;
    for (int i = 0; !err && i < o->n; i++)
        if (o->x[i].t != last)
            err = rch_mpi_nb_hold(fn, o->c, o->nb, last = o->x[i].t);
    if (!err && o->reduces && o->rt != last)
        err = rch_mpi_nb_hold(fn, o->c, o->nb, o->rt);
    return err;
}

/* The call is built (err == MPI_SUCCESS) or failed: start it, or make it
 * an inactive persistent request (rch_mpi_inter_persistent), as *request. */
static int iop_launch(const char *fn, struct iop *o, int err, MPI_Request *request)
{
    struct rch_mpi_comm *c = o->c;
    if (!err)
        err = hold_types(fn, o);
    if (err) {
        iop_free(o);
        return err;
    }
    if (rch_mpi_inter_persistent) {
        struct rch_mpi_persist *p = calloc(1, sizeof(*p));
        MPI_Request h = p ? rch_mpi_req_new_persistent(p, c->handle) : MPI_REQUEST_NULL;
        if (h == MPI_REQUEST_NULL) {
            free(p);
            iop_free(o);
            return rch_mpi_coll_nomem(fn, c, sizeof(*p));
        }
        *p = (struct rch_mpi_persist){ .op = RCH_MPI_PERSIST_OBJ, .ops = &inter_persist_ops, .obj = o };
        o->persistent = 1;
        *request = h;
        return MPI_SUCCESS;
    }
    struct rch_dev_req *g = rch_dev_req_alloc(RCH_DEV_REQ_GREQ);
    MPI_Request h = g ? rch_mpi_req_new(g, c->handle) : MPI_REQUEST_NULL;
    if (h == MPI_REQUEST_NULL) {
        if (g) {
            rch_dev_req_complete(g);
            rch_dev_req_free(g);
        }
        iop_free(o);
        return rch_mpi_coll_nomem(fn, c, sizeof(*g));
    }
    rdmach_status_t st = iop_run(o, g);
    if (st != RDMACH_OK) {
        iop_free(o);
        g->err = st;
        rch_dev_req_complete(g);
        PMPI_Request_free(&h);
        return rch_mpi_coll_fail(fn, c, st);
    }
    *request = h;
    return MPI_SUCCESS;
}

static int begin(const char *fn, struct rch_mpi_comm *c, const MPI_Request *request, struct iop **o)
{
    int err = rch_mpi_nb_check_request(fn, c, request);
    if (!err)
        *o = iop_new(fn, c, &err);
    return err;
}

/* ---- the calls ---- */

int rch_mpi_inter_ibarrier(const char *fn, struct rch_mpi_comm *c, MPI_Request *request)
{
    struct iop *o;
    int err = begin(fn, c, request, &o), q = c->peer_size;
    if (err)
        return err;
    const struct rch_mpi_type *t = rch_mpi_type_get(MPI_BYTE);
    if ((o->x = calloc(2 * (size_t)q, sizeof(*o->x)))) {
        o->n = 2 * q;
        for (int j = 0; j < q; j++) {
            o->x[2 * j] = (struct rch_mpi_xfer){ .t = t, .peer = j };
            o->x[2 * j + 1] = (struct rch_mpi_xfer){ .t = t, .peer = j, .is_send = 1 };
        }
    } else {
        err = rch_mpi_coll_nomem(fn, c, 2 * (size_t)q * sizeof(*o->x));
    }
    return iop_launch(fn, o, err, request);
}

int rch_mpi_inter_ibcast(const char *fn, struct rch_mpi_comm *c, void *buf, int count, MPI_Datatype dt, int root,
                         MPI_Request *request)
{
    struct iop *o;
    const struct rch_mpi_type *t;
    int kind, err = begin(fn, c, request, &o);
    if (err)
        return err;
    if ((err = rch_mpi_inter_check_root(fn, c, root, &kind)) || kind == RCH_MPI_ROOT_NONE ||
        (err = rch_mpi_coll_check_buf(fn, c, buf, count, dt, "buffer", "count", "datatype", &t)))
        return iop_launch(fn, o, err, request);
    int n = kind == RCH_MPI_ROOT_SELF ? c->peer_size : 1;
    if (!(o->x = calloc((size_t)n, sizeof(*o->x))))
        return iop_launch(fn, o, rch_mpi_coll_nomem(fn, c, (size_t)n * sizeof(*o->x)), request);
    o->n = n;
    for (int j = 0; j < n; j++)
        o->x[j] = (struct rch_mpi_xfer){ .buf = buf, .count = count, .t = t,
                                         .peer = kind == RCH_MPI_ROOT_SELF ? j : kind,
                                         .is_send = kind == RCH_MPI_ROOT_SELF };
    return iop_launch(fn, o, MPI_SUCCESS, request);
}

int rch_mpi_inter_igather(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount, MPI_Datatype stype,
                          void *rbuf, int rcount, const int *rcounts, const int *displs, MPI_Datatype rtype,
                          const MPI_Datatype *rtypes, int root, MPI_Request *request)
{
    struct iop *o;
    int err = begin(fn, c, request, &o);
    if (err)
        return err;
    err = rch_mpi_inter_plan_rooted(fn, c, 1, root, rbuf, rcount, rcounts, displs, rtype, rtypes, sbuf, scount,
                                    stype, &o->x, &o->n);
    return iop_launch(fn, o, err, request);
}

int rch_mpi_inter_iscatter(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount, const int *scounts,
                           const int *displs, MPI_Datatype stype, const MPI_Datatype *stypes, void *rbuf, int rcount,
                           MPI_Datatype rtype, int root, MPI_Request *request)
{
    struct iop *o;
    int err = begin(fn, c, request, &o);
    if (err)
        return err;
    err = rch_mpi_inter_plan_rooted(fn, c, 0, root, sbuf, scount, scounts, displs, stype, stypes, rbuf, rcount,
                                    rtype, &o->x, &o->n);
    return iop_launch(fn, o, err, request);
}

int rch_mpi_inter_iallgather(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount,
                             MPI_Datatype stype, void *rbuf, int rcount, const int *rcounts, const int *displs,
                             MPI_Datatype rtype, const MPI_Datatype *rtypes, MPI_Request *request)
{
    struct iop *o;
    int err = begin(fn, c, request, &o);
    if (err)
        return err;
    err = rch_mpi_inter_plan_allgather(fn, c, sbuf, scount, stype, rbuf, rcount, rcounts, displs, rtype, rtypes,
                                       &o->x, &o->n);
    return iop_launch(fn, o, err, request);
}

int rch_mpi_inter_ialltoallx(const char *fn, struct rch_mpi_comm *c, const void *sbuf, int scount,
                             const int *scounts, const int *sdispls, MPI_Datatype stype,
                             const MPI_Datatype *stypes, void *rbuf, int rcount, const int *rcounts,
                             const int *rdispls, MPI_Datatype rtype, const MPI_Datatype *rtypes,
                             MPI_Request *request)
{
    struct iop *o;
    int err = begin(fn, c, request, &o);
    if (err)
        return err;
    err = rch_mpi_inter_plan_alltoallx(fn, c, sbuf, scount, scounts, sdispls, stype, stypes, rbuf, rcount, rcounts,
                                       rdispls, rtype, rtypes, &o->x, &o->n);
    return iop_launch(fn, o, err, request);
}

/* ---- reductions ---- */

/* Room for nops operands of vbytes, the transfers: nops raw receives of
 * `rcount` elements of t at (r * vbytes) (and, unless nsend is 0, nsend
 * sends, set by the caller at x[nops ..]). */
static int red_plan(const char *fn, struct iop *o, const struct rch_mpi_type *t, int nops, size_t rcount,
                    int nsend)
{
    struct rch_mpi_comm *c = o->c;
    o->reduces = 1;
    o->nops = nops;
    o->vbytes = rcount * t->size;
    o->rt = t;
    if (rcount > INT32_MAX)
        return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: %zu elements per operand exceed an int", fn, rcount);
    if ((!o->lazy && !(o->vec = malloc(o->vbytes * (size_t)nops + 1))) ||
        !(o->x = calloc((size_t)(nops + nsend), sizeof(*o->x))))
        return rch_mpi_coll_nomem(fn, c, o->vbytes * (size_t)nops);
    o->n = nops + nsend;
    for (int r = 0; r < nops; r++)
        o->x[r] = (struct rch_mpi_xfer){ .buf = o->vec + (size_t)r * o->vbytes, .count = (int)rcount, .t = t,
                                         .peer = r, .raw = 1 };
    return MPI_SUCCESS;
}

int rch_mpi_inter_ireduce(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int count,
                          MPI_Datatype dt, MPI_Op op, int root, MPI_Request *request)
{
    struct iop *o;
    const struct rch_mpi_type *t;
    int kind, err = begin(fn, c, request, &o);
    if (err)
        return err;
    if ((err = rch_mpi_inter_check_root(fn, c, root, &kind)) || kind == RCH_MPI_ROOT_NONE)
        return iop_launch(fn, o, err, request);
    int self = kind == RCH_MPI_ROOT_SELF;
    if ((err = rch_mpi_coll_check_type(fn, c, dt, "datatype", &t)) ||   /* a reduction's, whatever the count */
        (err = rch_mpi_coll_check_buf(fn, c, self ? rbuf : sbuf, count, dt, self ? "recvbuf" : "sendbuf", "count",
                                      "datatype", &t)) ||
        (err = rch_mpi_red_bind(fn, c, op, dt, t, 0, &o->red)))
        return iop_launch(fn, o, err, request);
    if (!self) {   /* my vector to the root */
        if (!(o->x = calloc(1, sizeof(*o->x))))
            return iop_launch(fn, o, rch_mpi_coll_nomem(fn, c, sizeof(*o->x)), request);
        o->n = 1;
        o->x[0] = (struct rch_mpi_xfer){ .buf = (void *)sbuf, .count = count, .t = t, .peer = kind, .is_send = 1 };
        return iop_launch(fn, o, MPI_SUCCESS, request);
    }
    err = red_plan(fn, o, t, c->peer_size, (size_t)count, 0);
    o->len = o->vbytes;
    o->rbuf = rbuf;
    return iop_launch(fn, o, err, request);
}

/* Reduce_scatter_block's block j, `bytes` of the packed vector, to remote
 * rank j. The groups share the type signature, not the datatype (MPI-4.1
 * 3.3.1): j receives whole elements of its datatype, which may end inside
 * one of t (3 + 1 ranks, 2 elements of 3 doubles: 2 doubles each), so the
 * send covers the elements the block touches and sends only its bytes. */
static struct rch_mpi_xfer block_send(const void *sbuf, const struct rch_mpi_type *t, int j, size_t bytes)
{
    size_t a = (size_t)j * bytes, first = t->size ? a / t->size : 0;
    size_t last = t->size ? (a + bytes + t->size - 1) / t->size : 0;
    return (struct rch_mpi_xfer){ .buf = (char *)sbuf + (MPI_Aint)first * t->extent, .count = (int)(last - first),
                                  .t = t, .peer = j, .is_send = 1, .from = a - first * t->size, .len = bytes };
}

/* Allreduce (rcounts NULL, block 0), Reduce_scatter (rcounts) and
 * Reduce_scatter_block (block) as o's plan: MPI error code. */
static int all_red_plan(const char *fn, struct iop *o, const void *sbuf, void *rbuf, int count,
                        const int *rcounts, int block, MPI_Datatype dt, MPI_Op op, int scatter)
{
    struct rch_mpi_comm *c = o->c;
    const struct rch_mpi_type *t;
    int err, q = c->peer_size, p = c->size;
    size_t total = (size_t)count, mine = total, off = 0, sblock = total, rblock = total;
    int split = scatter && !rcounts;   /* each remote rank gets its own block */
    if (scatter) {
        if ((err = rcounts ? rch_mpi_coll_check_array(fn, c, rcounts, p, "recvcounts", 1)
                           : rch_mpi_coll_check_count(fn, c, block, "recvcount")) ||
            (err = rch_mpi_coll_check_type(fn, c, dt, "datatype", &t)))
            return err;
        total = 0;
        for (int i = 0; i < p; i++) {
            size_t ci = rcounts ? (size_t)rcounts[i] : (size_t)block;
            if (i == c->rank) {
                off = total;
                mine = ci;
            }
            total += ci;
        }
        if (split) {   /* block j of the vector to remote rank j, in bytes: see the sends below */
            if (total * t->size % (size_t)q)
                return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: the send buffer's %zu bytes (%d x recvcount "
                                   "%d) are not %d equal blocks, one per remote rank (both groups' type "
                                   "signatures must match)", fn, total * t->size, p, block, q);
            sblock = total * t->size / (size_t)q;
            rblock = mine;
            off = 0;
        } else {
            sblock = rblock = total;
        }
        if (total > INT32_MAX)
            return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: %zu elements exceed an int", fn, total);
        if ((err = rch_mpi_coll_check_buf(fn, c, sbuf, (int)total, dt, "sendbuf", rcounts ? "recvcounts" :
                                          "recvcount", "datatype", NULL)) ||
            (err = rch_mpi_coll_check_buf(fn, c, rbuf, (int)mine, dt, "recvbuf", rcounts ? "recvcounts" :
                                          "recvcount", "datatype", NULL)))
            return err;
    } else if ((err = rch_mpi_coll_check_type(fn, c, dt, "datatype", &t)) ||   /* a reduction's, whatever the count */
               (err = rch_mpi_coll_check_buf(fn, c, sbuf, count, dt, "sendbuf", "count", "datatype", &t)) ||
               (err = rch_mpi_coll_check_buf(fn, c, rbuf, count, dt, "recvbuf", "count", "datatype", NULL))) {
        return err;
    }
    if ((err = rch_mpi_red_bind(fn, c, op, dt, t, 0, &o->red)) || (err = red_plan(fn, o, t, q, rblock, q)))
        return err;
    for (int j = 0; j < q; j++)
        o->x[q + j] = split ? block_send(sbuf, t, j, sblock)
                            : (struct rch_mpi_xfer){ .buf = (void *)sbuf, .count = (int)sblock, .t = t, .peer = j,
                                                     .is_send = 1 };
    o->off = off * t->size;
    o->len = mine * t->size;
    o->rbuf = rbuf;
    return MPI_SUCCESS;
}

static int all_red(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int count,
                   const int *rcounts, int block, MPI_Datatype dt, MPI_Op op, int scatter, MPI_Request *request)
{
    struct iop *o;
    int err = begin(fn, c, request, &o);
    if (err)
        return err;
    if (scatter && (rcounts || block > 0)) {   /* beyond INT_MAX elements: in chunks, as the _c form's */
        size_t total = 0;
        for (int i = 0; i < c->size && (rcounts ? rcounts[i] : block) >= 0; i++)
            total += (size_t)(rcounts ? rcounts[i] : block);
        if (rch_mpi_inter_chained(total, dt)) {
            iop_free(o);
            MPI_Count *w = rch_mpi_inter_widen(fn, c, rcounts, block, &err);
            if (w)
                err = rch_mpi_inter_ireduce_scatter_c(fn, c, sbuf, rbuf, w, dt, op, request);
            free(w);
            return err;
        }
    }
    err = all_red_plan(fn, o, sbuf, rbuf, count, rcounts, block, dt, op, scatter);
    return iop_launch(fn, o, err, request);
}

int rch_mpi_inter_iallreduce(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int count,
                             MPI_Datatype dt, MPI_Op op, MPI_Request *request)
{
    return all_red(fn, c, sbuf, rbuf, count, NULL, 0, dt, op, 0, request);
}

int rch_mpi_inter_ireduce_scatter(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf, int rcount,
                                  const int *rcounts, MPI_Datatype dt, MPI_Op op, MPI_Request *request)
{
    return all_red(fn, c, sbuf, rbuf, 0, rcounts, rcount, dt, op, 1, request);
}

/* The chunks of k as iops chained after *tail, their head `head` (NULL:
 * the first chunk heads the chain). MPI error code. */
static int chunks(const char *fn, struct rch_mpi_comm *c, struct iop *head, struct iop **tail,
                  const struct rch_mpi_chunks *k, const void *sbuf, void *rbuf, const MPI_Count *rcounts,
                  MPI_Datatype dt, MPI_Op op)
{
    int err = MPI_SUCCESS, *counts = malloc((size_t)c->size * sizeof(int));
    if (!counts)
        return rch_mpi_coll_nomem(fn, c, (size_t)c->size * sizeof(int));
    struct iop *vecs = NULL;
    for (int j = 0; j < (k->n ? k->n : 1) && !err; j++) {   /* an empty vector: one empty chunk */
        const void *s;
        void *r;
        struct iop *o = iop_new(fn, c, &err);
        if (!o)
            break;
        *tail = o;
        tail = &o->then;
        o->head = head;
        o->vecs = vecs = vecs ? vecs : o;
        o->lazy = 1;
        rch_mpi_inter_chunk(k, rcounts, c->size, j, counts, sbuf, rbuf, &s, &r);
        if (!(err = all_red_plan(fn, o, s, r, 0, counts, 0, dt, op, 1)) && head)
            err = hold_types(fn, o);   /* iop_launch holds the head's */
        head = head ? head : o;
    }
    free(counts);
    return err;
}

/* The cut's exchange is done: check the other group's vector and build
 * the chunks after o. An MPI error code, unraised: it is the request's, for
 * the call that completes it (this runs in progress, maybe within another
 * call). */
static int cut_chain(struct iop *o)
{
    struct cut *x = o->cut;
    rdmach_status_t st = rch_mpi_inter_cut(&x->k, x->theirs[0], x->theirs[1]);
    if (st != RDMACH_OK)
        return rch_mpi_err_code(rch_mpi_class_of(st), "%s: %s", x->fn, rdmach_last_error());
    rch_mpi_err_hold(1);
    int err = chunks(x->fn, o->c, o, &o->then, &x->k, x->sbuf, x->rbuf, x->rcounts, x->dt, x->op);
    rch_mpi_err_hold(0);
    if (!err)
        return MPI_SUCCESS;
    iop_free(o->then);
    o->then = NULL;
    return rch_mpi_err_code(RCH_MPI_ERR_CLASS(err), "%s: building the %d chunks of the %zu-element vector failed: %s",
                            x->fn, x->k.n, x->k.total, rch_mpi_err_msg(err, x->fn));
}

/* The head of a chained vector: rank i tells remote rank j its k and basic
 * length when j % p == i, and hears remote rank i % q's (so every rank
 * hears one). The chunks follow once it is done (cut_chain). */
static int cut_plan(const char *fn, struct iop *o, const struct rch_mpi_chunks *k, const void *sbuf, void *rbuf,
                    const MPI_Count *rcounts, MPI_Datatype dt, MPI_Op op)
{
    struct rch_mpi_comm *c = o->c;
    int p = c->size, q = c->peer_size, n = 1;
    struct rch_mpi_red red;
    struct cut *x = o->cut = calloc(1, sizeof(*o->cut));
    if (!x || !(x->rcounts = malloc((size_t)p * sizeof(*x->rcounts))) ||
        !(o->x = calloc((size_t)(1 + (q + p - 1) / p), sizeof(*o->x))))
        return rch_mpi_coll_nomem(fn, c, (size_t)p * sizeof(*x->rcounts));
    /* the op is checked now; the chunks bind it again when they are built */
    int err = rch_mpi_red_bind(fn, c, op, dt, rch_mpi_type_get(dt), 0, &red);
    if (err || (err = rch_mpi_nb_hold(fn, c, o->nb, rch_mpi_type_get(dt))))
        return err;
    *x = (struct cut){ .mine = { k->kb, (uint64_t)k->total * k->kb }, .fn = fn, .sbuf = sbuf, .rbuf = rbuf,
                       .rcounts = x->rcounts, .dt = dt, .op = op, .k = *k };
    memcpy(x->rcounts, rcounts, (size_t)p * sizeof(*x->rcounts));
    rch_mpi_op_retain(op);   /* the chunks bind it; MPI_Op_free may come first (dt: held above) */
    const struct rch_mpi_type *u = rch_mpi_type_get(MPI_UINT64_T);
    o->x[0] = (struct rch_mpi_xfer){ .buf = x->theirs, .count = 2, .t = u, .peer = c->rank % q };
    for (int j = c->rank; j < q; j += p)
        o->x[n++] = (struct rch_mpi_xfer){ .buf = x->mine, .count = 2, .t = u, .peer = j, .is_send = 1 };
    o->n = n;
    return MPI_SUCCESS;
}

int rch_mpi_inter_ireduce_scatter_c(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf,
                                    const MPI_Count *rcounts, MPI_Datatype dt, MPI_Op op, MPI_Request *request)
{
    struct iop *head = NULL;
    struct rch_mpi_chunks k;
    int err = rch_mpi_nb_check_request(fn, c, request);
    if (err || (err = rch_mpi_inter_chunks(fn, c, sbuf, rbuf, rcounts, dt, &k)))
        return err;
    if (!rch_mpi_inter_chained(k.total, dt))   /* one chunk: no cut to agree on */
        err = chunks(fn, c, NULL, &head, &k, sbuf, rbuf, rcounts, dt, op);
    else if ((head = iop_new(fn, c, &err)))
        err = cut_plan(fn, head, &k, sbuf, rbuf, rcounts, dt, op);
    return head ? iop_launch(fn, head, err, request) : err;
}
