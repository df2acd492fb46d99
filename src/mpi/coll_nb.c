/*
 * The state of a non-blocking collective call (coll_nb.h) and its request,
 * and the simplest two: MPI_Ibarrier and MPI_Ibcast.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/coll_nb.h"
#include "mpi/intercoll.h"

struct rch_mpi_nb *rch_mpi_nb_new(const char *fn, struct rch_mpi_comm *c, int *err)
{
    struct rch_mpi_nb *nb = calloc(1, sizeof(*nb));
    *err = nb ? MPI_SUCCESS : rch_mpi_coll_nomem(fn, c, sizeof(*nb));
    return nb;
}

static int grow(void ***a, int *cap, int need)
{
    if (need <= *cap)
        return 0;
    int n = *cap ? *cap * 2 : 4;
    while (n < need)
        n *= 2;
    void **p = realloc(*a, (size_t)n * sizeof(void *));
    if (!p)
        return -1;
    *a = p;
    *cap = n;
    return 0;
}

int rch_mpi_nb_hold(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                    const struct rch_mpi_type *t)
{
    if (!t || t->predefined)
        return MPI_SUCCESS;
    if (grow((void ***)&nb->held, &nb->heldcap, nb->nheld + 1) != 0)
        return rch_mpi_coll_nomem(fn, c, sizeof(void *) * (size_t)(nb->nheld + 1));
    struct rch_mpi_type *m = (struct rch_mpi_type *)(uintptr_t)t;
    rch_mpi_type_retain(m);
    nb->held[nb->nheld++] = m;
    return MPI_SUCCESS;
}

void *rch_mpi_nb_keep(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb, size_t bytes,
                      int *err)
{
    void *p = NULL;
    *err = MPI_SUCCESS;
    if (grow(&nb->keep, &nb->keepcap, nb->nkeep + 1) != 0 || !(p = malloc(bytes ? bytes : 1))) {
        *err = rch_mpi_coll_nomem(fn, c, bytes);
        return NULL;
    }
    nb->keep[nb->nkeep++] = p;
    return p;
}

int *rch_mpi_nb_keep_ints(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb, const int *a,
                          int n, int *err)
{
    int *p = rch_mpi_nb_keep(fn, c, nb, (size_t)(n > 0 ? n : 0) * sizeof(int), err);
    if (p && n > 0)
        memcpy(p, a, (size_t)n * sizeof(int));
    return p;
}

const struct rch_mpi_type **rch_mpi_nb_keep_tv(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                                               int *err)
{
    const struct rch_mpi_type **tv = rch_mpi_nb_keep(fn, c, nb, ((size_t)c->size + 1) * sizeof(*tv), err);
    for (int i = 0; tv && i <= c->size; i++)
        tv[i] = NULL;
    return tv;
}

int rch_mpi_nb_hold_v(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb, const struct rch_mpi_type *t,
                      const struct rch_mpi_type *const *tv, int n)
{
    int err = tv ? MPI_SUCCESS : rch_mpi_nb_hold(fn, c, nb, t);
    for (int i = 0; tv && i < n && !err; i++)
        err = rch_mpi_nb_hold(fn, c, nb, tv[i]);
    return err;
}

void rch_mpi_nb_free(struct rch_mpi_nb *nb)
{
    if (!nb)
        return;
    rch_mpi_stage_free(&nb->s);
    rch_mpi_stage_free(&nb->r);
    rch_mpi_vstage_free(&nb->sv);
    rch_mpi_vstage_free(&nb->rv);
    for (int i = 0; i < nb->nheld; i++)
        rch_mpi_type_release(nb->held[i]);
    for (int i = 0; i < nb->nkeep; i++)
        free(nb->keep[i]);
    free(nb->held);
    free(nb->keep);
    free(nb);
}

int rch_mpi_nb_fail(struct rch_mpi_nb *nb, int err)
{
    rch_mpi_nb_free(nb);
    return err;
}

int rch_mpi_nb_unpack_r(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb, void *buf,
                        size_t count, const struct rch_mpi_type *t)
{
    int err = rch_mpi_nb_hold(fn, c, nb, t);
    if (err)
        return err;
    nb->rbuf = buf;
    nb->rcount = count;
    nb->rt = t;
    nb->unpack_r = 1;
    return MPI_SUCCESS;
}

/* The schedule finished (req->err says how): deliver and let go. */
static void nb_complete(struct rch_dev_req *req)
{
    struct rch_mpi_nb *nb = req->user;
    req->user = NULL;
    if (!nb)
        return;
    if (req->err == RDMACH_OK) {
        if (nb->unpack_r)
            rch_mpi_stage_done(&nb->r, nb->rbuf, nb->rcount, nb->rt);
        if (nb->unpack_rv)
            rch_mpi_vstage_unpack_all(&nb->rv);
    }
    rch_mpi_nb_free(nb);
}

struct rch_dev_req *rch_mpi_nb_req(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                                   int *err)
{
    struct rch_dev_req *greq = rch_dev_req_alloc(RCH_DEV_REQ_GREQ);
    if (!greq) {
        *err = rch_mpi_coll_nomem(fn, c, sizeof(*greq));
        return NULL;
    }
    greq->on_complete = nb_complete;
    greq->user = nb;
    *err = MPI_SUCCESS;
    return greq;
}

int rch_mpi_nb_started(const char *fn, struct rch_mpi_comm *c, struct rch_mpi_nb *nb,
                       struct rch_dev_req *greq, rdmach_status_t st, MPI_Request *request)
{
    if (st != RDMACH_OK) {
        /* nothing started: retire the request unused */
        greq->on_complete = NULL;
        greq->user = NULL;
        greq->err = st;
        rch_dev_req_complete(greq);
        rch_dev_req_free(greq);
        rch_mpi_nb_free(nb);
        return rch_mpi_coll_fail(fn, c, st);
    }
    *request = rch_mpi_req_new(greq, c->handle);
    if (*request == MPI_REQUEST_NULL) {
        /* The schedule runs on; the detached request is reclaimed (and nb
         * freed) when it completes. */
        rch_dev_req_free(greq);
        return rch_mpi_coll_nomem(fn, c, sizeof(struct rch_mpi_req));
    }
    return MPI_SUCCESS;
}

int rch_mpi_nb_check_request(const char *fn, struct rch_mpi_comm *c, const MPI_Request *request)
{
    if (!request)
        return rch_mpi_err(c->handle, MPI_ERR_ARG, "%s: argument request is NULL", fn);
    return MPI_SUCCESS;
}

int rch_mpi_nb_begin(const char *fn, MPI_Comm comm, MPI_Request *request, struct rch_mpi_comm **cp)
{
    int err = rch_mpi_coll_begin(fn, comm, cp);
    return err ? err : rch_mpi_nb_check_request(fn, *cp, request);
}

int rch_mpi_ibarrier(const char *fn, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_ibarrier(fn, ic, request);
    struct rch_mpi_comm *c;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;
    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if (!(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    return rch_mpi_nb_started(fn, c, nb, greq, rch_coll_ibarrier(&c->coll, greq), request);
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ibarrier("MPI_Ibarrier", comm, request);
}
#pragma weak MPI_Ibarrier = PMPI_Ibarrier

int rch_mpi_ibcast(const char *fn, void *buffer, int count, MPI_Datatype datatype, int root,
                   MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_ibcast(fn, ic, buffer, count, datatype, root, request);
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *t;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;
    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)) ||
        (err = rch_mpi_coll_check_buf(fn, c, buffer, count, datatype, "buffer", "count", "datatype",
                                      &t)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    int is_root = c->rank == root;
    if ((err = is_root ? rch_mpi_stage_in(fn, c, buffer, (size_t)count, t, &nb->r)
                       : rch_mpi_stage_out(fn, c, buffer, (size_t)count, t, &nb->r)) ||
        (err = rch_mpi_nb_unpack_r(fn, c, nb, buffer, (size_t)count, t)) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    nb->unpack_r = !is_root;   /* the root's buffer is what it sent */
    rdmach_status_t st = rch_coll_ibcast(&c->coll, nb->r.ptr, (size_t)count * t->size, root, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ibcast("MPI_Ibcast", buffer, count, datatype, root, comm, request);
}
#pragma weak MPI_Ibcast = PMPI_Ibcast
