/*
 * Point-to-point: Send, Ssend, Rsend, Recv, Isend, Issend, Irsend, Irecv,
 * Sendrecv, Sendrecv_replace.
 *
 * The fast path (MPI_Send of a contiguous type to a valid rank) is one
 * combined test of every argument, then rch_dev_isend; when the device
 * completes a small send at once it returns no request, so such a send
 * allocates nothing. Anything unusual (an error, MPI_PROC_NULL,
 * MPI_ANY_SOURCE, a NULL buffer that may be MPI_BOTTOM) takes the slow
 * checks, which name the argument that is wrong.
 *
 * Non-contiguous datatypes: a send packs into a temporary buffer the request
 * frees when it completes; a receive lands in a temporary buffer that the
 * request's on_complete unpacks into the user's buffer and frees.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"


/*
 * A buffer of count 0. MPICH's generated bindings validate the datatype of
 * a point-to-point or collective buffer only when its count is positive
 * (maint/local_python/binding_c.py, dump_validate_userbuffer_simple:
 * "if (count > 0) { validate datatype; validate buffer }"), and programs
 * rely on it: MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, ...). Such a datatype,
 * MPI_DATATYPE_NULL, an uncommitted type or any other value, is only
 * looked up (rch_mpi_type_get follows no handle it does not own), and an
 * invalid one is replaced by MPI_BYTE: zero elements of any type are an
 * empty message, which matches a receive of zero elements of any type.
 */
const struct rch_mpi_type *rch_mpi_type_of_empty(MPI_Datatype dt)
{
    const struct rch_mpi_type *t = rch_mpi_type_get(dt);
    return t && t->committed ? t : rch_mpi_type_get(MPI_BYTE);
}

const struct rch_mpi_type *rch_mpi_check_buf(MPI_Comm comm, const char *fn, const void *buf, int count,
                                             MPI_Datatype dt, int *err)
{
    if (count == 0) {
        *err = MPI_SUCCESS;
        return rch_mpi_type_of_empty(dt);
    }
    *err = rch_mpi_type_check_buf(comm, fn, buf, count, dt);
    if (*err != MPI_SUCCESS)
        return NULL;
    return rch_mpi_type_get(dt);
}

int rch_mpi_check_peer(const char *fn, MPI_Comm comm, int rank, int tag, int is_recv,
                       struct rch_mpi_comm **cp)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad(fn, comm);
    *cp = c;
    const char *rarg = is_recv ? "source" : "dest";
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= c->peer_size) && !(is_recv && rank == MPI_ANY_SOURCE))
        return rch_mpi_err(comm, MPI_ERR_RANK, "%s: invalid rank %d in argument %s (%s size %d)", fn,
                           rank, rarg, c->is_inter ? "remote group" : "communicator", c->peer_size);
    if ((tag < 0 || tag > RCH_MPI_TAG_UB) && !(is_recv && tag == MPI_ANY_TAG))
        return rch_mpi_err(comm, MPI_ERR_TAG, "%s: invalid tag %d in argument tag (0 .. MPI_TAG_UB = %d%s)", fn,
                           tag, RCH_MPI_TAG_UB, is_recv ? ", or MPI_ANY_TAG" : "");
    return MPI_SUCCESS;
}

void rch_mpi_send_free_tmp_cb(struct rch_dev_req *req)
{
    free(req->user);
    req->user = NULL;
}

void rch_mpi_recv_unpack_cb(struct rch_dev_req *req)
{
    struct rch_mpi_unpack *u = req->user;
    if (!u)
        return;
    if (!req->cancelled && req->bytes > 0)
        rch_mpi_type_unpack(u->tmp, req->bytes, u->buf, u->count, u->type);
    rch_mpi_type_release((struct rch_mpi_type *)u->type);
    free(u->tmp);
    free(u);
    req->user = NULL;
}

rdmach_status_t rch_mpi_post_send(const void *buf, int count, const struct rch_mpi_type *t, int dest,
                                  int tag, struct rch_mpi_comm *c, int mode, struct rch_dev_req **dreq)
{
    size_t bytes = (size_t)count * t->size;
    if (t->contig || bytes == 0)
        return rch_dev_isend((const char *)buf + (t->contig ? t->true_lb : 0), bytes, c->peer_world_of[dest],
                             c->rank, tag, c->ctx, mode, dreq);
    void *tmp = malloc(bytes);
    if (!tmp)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "packing %zu bytes of a non-contiguous datatype", bytes);
    rch_mpi_type_pack(buf, count, t, tmp);
    rdmach_status_t st = rch_dev_isend(tmp, bytes, c->peer_world_of[dest], c->rank, tag, c->ctx, mode, dreq);
    if (st != RDMACH_OK || !*dreq || rch_mpi_dreq_done(*dreq)) {
        free(tmp);                 /* the device no longer needs it */
    } else {
        (*dreq)->user = tmp;
        (*dreq)->on_complete = rch_mpi_send_free_tmp_cb;
    }
    return st;
}

/* The device receive of a posted receive: a matched message (Mrecv) or a match on (source, tag). */
static inline rdmach_status_t dev_recv(void *buf, size_t bytes, int source, int tag, const struct rch_mpi_comm *c,
                                       struct rch_dev_msg *msg, struct rch_dev_req **dreq)
{
    return msg ? rch_dev_imrecv(buf, bytes, msg, dreq) : rch_dev_irecv(buf, bytes, source, tag, c->ctx, dreq);
}

rdmach_status_t rch_mpi_post_recv(void *buf, int count, const struct rch_mpi_type *t, int source,
                                  int tag, struct rch_mpi_comm *c, struct rch_dev_req **dreq)
{
    return rch_mpi_post_recv_msg(buf, count, t, source, tag, c, NULL, dreq);
}

rdmach_status_t rch_mpi_post_recv_msg(void *buf, int count, const struct rch_mpi_type *t, int source, int tag,
                                      struct rch_mpi_comm *c, struct rch_dev_msg *msg, struct rch_dev_req **dreq)
{
    size_t bytes = (size_t)count * t->size;
    if (t->contig || bytes == 0)
        return dev_recv((char *)buf + (t->contig ? t->true_lb : 0), bytes, source, tag, c, msg, dreq);
    struct rch_mpi_unpack *u = malloc(sizeof(*u));
    void *tmp = malloc(bytes);
    if (!u || !tmp) {
        free(u);
        free(tmp);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "receive buffer of %zu bytes for a non-contiguous datatype", bytes);
    }
    *u = (struct rch_mpi_unpack){ tmp, buf, count, t };
    rdmach_status_t st = dev_recv(tmp, bytes, source, tag, c, msg, dreq);
    if (st != RDMACH_OK) {
        free(tmp);
        free(u);
        return st;
    }
    /* MPI_Type_free before the receive completes must not free the map the unpack needs. */
    rch_mpi_type_retain((struct rch_mpi_type *)t);
    (*dreq)->user = u;
    if (rch_mpi_dreq_done(*dreq))
        rch_mpi_recv_unpack_cb(*dreq);     /* matched at once: the device saw no on_complete */
    else
        (*dreq)->on_complete = rch_mpi_recv_unpack_cb;
    return st;
}

/* Full argument check of a send or receive; *t set on success. Returns
 * MPI_SUCCESS, or -1 for MPI_PROC_NULL (nothing to do), or the error code. */
static int slow_check(const char *fn, const void *buf, int count, MPI_Datatype dt, int rank, int tag,
                      MPI_Comm comm, int is_recv, struct rch_mpi_comm **c, const struct rch_mpi_type **t)
{
    int err = rch_mpi_check_peer(fn, comm, rank, tag, is_recv, c);
    if (err)
        return err;
    *t = rch_mpi_check_buf(comm, fn, buf, count, dt, &err);
    if (!*t)
        return err;
    return rank == MPI_PROC_NULL ? -1 : MPI_SUCCESS;
}

int rch_mpi_dev_error(const char *fn, MPI_Comm comm, rdmach_status_t st)
{
    return rch_mpi_err(comm, rch_mpi_class_of(st), "%s: %s (%s)", fn, rdmach_strerror(st), rdmach_last_error());
}

__attribute__((noinline, cold)) int rch_mpi_wait_failed(const char *fn, MPI_Comm comm, struct rch_dev_req *r,
                                                        rdmach_status_t st)
{
    rch_dev_req_free(r);
    return rch_mpi_dev_error(fn, comm, st);
}

/* The fast test of a send's arguments: everything valid and ordinary. */
#define SEND_ARGS_OK(c, t, buf, count, dest, tag) \
    ((c) && (t) && (t)->committed && (count) >= 0 && (unsigned)(dest) < (unsigned)(c)->peer_size && \
     (unsigned)(tag) <= (unsigned)RCH_MPI_TAG_UB && ((buf) || (count) == 0))

static inline int send_mode(const char *fn, const void *buf, int count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm, int mode)
{
    struct rch_mpi_comm *c = rch_mpi_comm_get_fast(comm);
    const struct rch_mpi_type *t = rch_mpi_type_get_fast(datatype);
    if (RCH_UNLIKELY(!SEND_ARGS_OK(c, t, buf, count, dest, tag))) {
        int err = slow_check(fn, buf, count, datatype, dest, tag, comm, 0, &c, &t);
        if (err)
            return err < 0 ? MPI_SUCCESS : err;
    }
    struct rch_dev_req *r;
    rdmach_status_t st;
    if (RCH_LIKELY(t->contig))
        st = rch_dev_isend((const char *)buf + t->true_lb, (size_t)count * t->size, c->peer_world_of[dest], c->rank,
                           tag, c->ctx, mode, &r);
    else
        st = rch_mpi_post_send(buf, count, t, dest, tag, c, mode, &r);
    if (RCH_LIKELY(st == RDMACH_OK && !r))
        return MPI_SUCCESS;
    if (RCH_UNLIKELY(st != RDMACH_OK))
        return rch_mpi_dev_error(fn, comm, st);
    return rch_mpi_wait_report(fn, comm, r, MPI_STATUS_IGNORE);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    RCH_MPI_CS();
    return send_mode("MPI_Send", buf, count, datatype, dest, tag, comm, RCH_DEV_SEND_STD);
}
#pragma weak MPI_Send = PMPI_Send

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    RCH_MPI_CS();
    return send_mode("MPI_Ssend", buf, count, datatype, dest, tag, comm, RCH_DEV_SEND_SYNC);
}
#pragma weak MPI_Ssend = PMPI_Ssend

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    RCH_MPI_CS();
    return send_mode("MPI_Rsend", buf, count, datatype, dest, tag, comm, RCH_DEV_SEND_READY);
}
#pragma weak MPI_Rsend = PMPI_Rsend

static int isend_mode(const char *fn, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, int mode, MPI_Request *request)
{
    struct rch_mpi_comm *c = rch_mpi_comm_get_fast(comm);
    const struct rch_mpi_type *t = rch_mpi_type_get_fast(datatype);
    if (RCH_UNLIKELY(!SEND_ARGS_OK(c, t, buf, count, dest, tag) || !request)) {
        int err = slow_check(fn, buf, count, datatype, dest, tag, comm, 0, &c, &t);
        if (err > 0)
            return err;
        if (!request)
            return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument request is NULL", fn);
        if (err < 0) {
            *request = rch_mpi_req_new_done(RCH_MPI_PS_DONE_SEND, -1, 0, comm);
            return *request != MPI_REQUEST_NULL ? MPI_SUCCESS
                                                : rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
        }
    }
    struct rch_dev_req *r;
    rdmach_status_t st = rch_mpi_post_send(buf, count, t, dest, tag, c, mode, &r);
    if (RCH_UNLIKELY(st != RDMACH_OK))
        return rch_mpi_dev_error(fn, comm, st);
    /* A send the device finished at once still gets a request: it may be
     * cancelled (its message's number names it), and a copy of its handle
     * must go stale when it completes. */
    MPI_Request h = rch_mpi_req_new_send(r, c->peer_world_of[dest], comm);
    if (RCH_UNLIKELY(h == MPI_REQUEST_NULL)) {
        if (r)
            rch_dev_req_free(r);     /* detached: the send still completes */
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    }
    *request = h;
    return MPI_SUCCESS;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    RCH_MPI_CS();
    return isend_mode("MPI_Isend", buf, count, datatype, dest, tag, comm, RCH_DEV_SEND_STD, request);
}
#pragma weak MPI_Isend = PMPI_Isend

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    RCH_MPI_CS();
    return isend_mode("MPI_Issend", buf, count, datatype, dest, tag, comm, RCH_DEV_SEND_SYNC, request);
}
#pragma weak MPI_Issend = PMPI_Issend

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    RCH_MPI_CS();
    return isend_mode("MPI_Irsend", buf, count, datatype, dest, tag, comm, RCH_DEV_SEND_READY, request);
}
#pragma weak MPI_Irsend = PMPI_Irsend

/* The fast test of a receive's arguments. */
#define RECV_ARGS_OK(c, t, buf, count, source, tag) \
    ((c) && (t) && (t)->committed && (count) >= 0 && \
     ((unsigned)(source) < (unsigned)(c)->peer_size || (source) == MPI_ANY_SOURCE) && \
     ((unsigned)(tag) <= (unsigned)RCH_MPI_TAG_UB || (tag) == MPI_ANY_TAG) && ((buf) || (count) == 0))

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *c = rch_mpi_comm_get_fast(comm);
    const struct rch_mpi_type *t = rch_mpi_type_get_fast(datatype);
    if (RCH_UNLIKELY(!RECV_ARGS_OK(c, t, buf, count, source, tag))) {
        int err = slow_check("MPI_Recv", buf, count, datatype, source, tag, comm, 1, &c, &t);
        if (err > 0)
            return err;
        if (err < 0) {
            rch_mpi_status_proc_null(status);
            return MPI_SUCCESS;
        }
    }
    struct rch_dev_req *r;
    rdmach_status_t st;
    if (RCH_LIKELY(t->contig)) {
        /* A named source: the device may take the message straight from the
         * channel (rch_dev_recv_direct), else the receive is posted. */
        if (RCH_LIKELY(source >= 0)) {
            int rs, rt;
            size_t rb;
            if (rch_dev_recv_direct((char *)buf + t->true_lb, (size_t)count * t->size, c->peer_world_of[source], source,
                                    tag, c->ctx, &rs, &rt, &rb) == RDMACH_OK) {
                if (status != MPI_STATUS_IGNORE)
                    rch_mpi_status_set(status, rs, rt, rb, 0);
                return MPI_SUCCESS;
            }
        }
        st = rch_dev_irecv((char *)buf + t->true_lb, (size_t)count * t->size, source, tag, c->ctx, &r);
    } else {
        st = rch_mpi_post_recv(buf, count, t, source, tag, c, &r);
    }
    if (RCH_UNLIKELY(st != RDMACH_OK))
        return rch_mpi_dev_error("MPI_Recv", comm, st);
    return rch_mpi_wait_report("MPI_Recv", comm, r, status);
}
#pragma weak MPI_Recv = PMPI_Recv

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *c = rch_mpi_comm_get_fast(comm);
    const struct rch_mpi_type *t = rch_mpi_type_get_fast(datatype);
    if (RCH_UNLIKELY(!RECV_ARGS_OK(c, t, buf, count, source, tag) || !request)) {
        int err = slow_check("MPI_Irecv", buf, count, datatype, source, tag, comm, 1, &c, &t);
        if (err > 0)
            return err;
        if (!request)
            return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Irecv: argument request is NULL");
        if (err < 0) {
            *request = rch_mpi_req_new_done(RCH_MPI_PS_DONE_NULL, -1, 0, comm);
            return *request != MPI_REQUEST_NULL ? MPI_SUCCESS
                                                : rch_mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Irecv: out of memory for a request");
        }
    }
    struct rch_dev_req *r;
    rdmach_status_t st = rch_mpi_post_recv(buf, count, t, source, tag, c, &r);
    if (RCH_UNLIKELY(st != RDMACH_OK))
        return rch_mpi_dev_error("MPI_Irecv", comm, st);
    MPI_Request h = rch_mpi_req_new(r, comm);
    if (RCH_UNLIKELY(h == MPI_REQUEST_NULL)) {
        /* Cannot hand the receive back: cancel it so no message is consumed. */
        rch_dev_cancel(r);
        rch_dev_req_free(r);
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Irecv: out of memory for a request");
    }
    *request = h;
    return MPI_SUCCESS;
}
#pragma weak MPI_Irecv = PMPI_Irecv

/* Sendrecv with the send taken from `sendbuf` (already checked; st_ NULL:
 * `raw` contiguous bytes) and the receive posted first, so two ranks
 * exchanging with each other cannot deadlock whatever the protocol. */
static int sendrecv_core(const char *fn, const void *sendbuf, int sendcount, const struct rch_mpi_type *st_,
                         size_t raw, int dest, int sendtag, void *recvbuf, int recvcount,
                         const struct rch_mpi_type *rt, int source, int recvtag, struct rch_mpi_comm *c,
                         MPI_Comm comm, MPI_Status *status)
{
    struct rch_dev_req *rr = NULL, *sr = NULL;
    rdmach_status_t s;
    if (source != MPI_PROC_NULL) {
        s = rch_mpi_post_recv(recvbuf, recvcount, rt, source, recvtag, c, &rr);
        if (s != RDMACH_OK)
            return rch_mpi_dev_error(fn, comm, s);
    }
    if (dest != MPI_PROC_NULL) {
        if (st_)
            s = rch_mpi_post_send(sendbuf, sendcount, st_, dest, sendtag, c, RCH_DEV_SEND_STD, &sr);
        else
            s = rch_dev_isend(sendbuf, raw, c->peer_world_of[dest], c->rank, sendtag, c->ctx, RCH_DEV_SEND_STD, &sr);
        if (s != RDMACH_OK) {
            if (rr) {
                rch_dev_cancel(rr);
                rch_dev_req_free(rr);
            }
            return rch_mpi_dev_error(fn, comm, s);
        }
    }
    /* The receive first: when both fail (a rendezvous each way), the side
     * that receives knows why its data did not come, the sender only that
     * the receiver failed. */
    int err = MPI_SUCCESS;
    if (rr)
        err = rch_mpi_wait_report(fn, comm, rr, status);
    else
        rch_mpi_status_proc_null(status);
    if (sr) {
        int e2 = rch_mpi_wait_report(fn, comm, sr, MPI_STATUS_IGNORE);
        if (err == MPI_SUCCESS)
            err = e2;
    }
    return err;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_, *rt;
    int err = slow_check("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, comm, 0, &c, &st_);
    if (err > 0)
        return err;
    err = slow_check("MPI_Sendrecv", recvbuf, recvcount, recvtype, source, recvtag, comm, 1, &c, &rt);
    if (err > 0)
        return err;
    return sendrecv_core("MPI_Sendrecv", sendbuf, sendcount, st_, 0, dest, sendtag, recvbuf, recvcount, rt,
                         source, recvtag, c, comm, status);
}
#pragma weak MPI_Sendrecv = PMPI_Sendrecv

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Status *status)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *c = NULL;
    const struct rch_mpi_type *t;
    int err = slow_check("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, comm, 0, &c, &t);
    if (err > 0)
        return err;
    err = rch_mpi_check_peer("MPI_Sendrecv_replace", comm, source, recvtag, 1, &c);
    if (err)
        return err;
    /* The outgoing data is packed first: the receive may overwrite buf. */
    size_t bytes = (size_t)count * t->size;
    void *tmp = NULL;
    if (dest != MPI_PROC_NULL && bytes > 0) {
        tmp = malloc(bytes);
        if (!tmp)
            return rch_mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Sendrecv_replace: out of memory for %zu bytes", bytes);
        if (t->contig)
            memcpy(tmp, (char *)buf + t->true_lb, bytes);
        else
            rch_mpi_type_pack(buf, count, t, tmp);
    }
    err = sendrecv_core("MPI_Sendrecv_replace", tmp, 0, NULL, bytes, dest, sendtag, buf, count, t, source,
                        recvtag, c, comm, status);
    free(tmp);
    return err;
}
#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
