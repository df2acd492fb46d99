/*
 * MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0): a receive and a send
 * posted together, one request completing when both have.
 *
 * The MPI request's device request is a GREQ; a progress hook (registered
 * while any pair is pending) completes it once the pair's receive and send
 * are both done, copying the receive's outcome into it. The GREQ is marked
 * (RCH_MPI_DREQ_RECV_STATUS) so the completion calls report it as a
 * receive: source, tag, count, truncation. An error of the send is reported
 * only when the receive succeeded (as MPI_Sendrecv does, the receiver's
 * failure says more). The replace form sends a packed copy of the buffer,
 * taken before the receive is posted, freed when the send is done.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"

struct pair {
    struct rch_dev_req *greq, *r, *s;   /* r, s NULL: MPI_PROC_NULL or done at posting */
    void *tmp;                          /* replace: the packed send data */
    int proc_null_recv;
    struct pair *next;
};

static struct pair *pending;
static int hooked;

/* Complete the pair's GREQ with the receive's outcome, and free the rest. */
static void finish(struct pair *q)
{
    struct rch_dev_req *g = q->greq, *r = q->r, *s = q->s;
    g->user_word[0] = RCH_MPI_DREQ_RECV_STATUS;
    g->err = RDMACH_OK;
    if (r) {
        g->source = r->source;
        g->tag = r->tag;
        g->bytes = r->bytes;
        g->msg_bytes = r->msg_bytes;
        g->cancelled = r->cancelled;
        g->err = r->err;
        rch_dev_req_free(r);
    } else {
        /* an empty receive from MPI_PROC_NULL */
        g->source = MPI_PROC_NULL;
        g->tag = MPI_ANY_TAG;
        g->bytes = g->msg_bytes = 0;
        g->cancelled = 0;
    }
    if (s) {
        if (g->err == RDMACH_OK)
            g->err = s->err;
        rch_dev_req_free(s);
    }
    free(q->tmp);
    rch_dev_req_complete(g);
    free(q);
}

static int pair_done(const struct pair *q)
{
    return (!q->r || rch_mpi_dreq_done(q->r)) && (!q->s || rch_mpi_dreq_done(q->s));
}

static unsigned hook(void *arg)
{
    (void)arg;
    unsigned n = 0;
    for (struct pair **pp = &pending; *pp;) {
        struct pair *q = *pp;
        if (!pair_done(q)) {
            pp = &q->next;
            continue;
        }
        *pp = q->next;
        finish(q);
        n++;
    }
    if (!pending && hooked) {
        rch_dev_progress_hook_remove(hook, NULL);
        hooked = 0;
    }
    return n;
}

/* Post the pair and make its request. raw: the send is `rawbytes` bytes at
 * sendbuf (the replace form's packed copy, owned by the pair from here on). */
static int post(const char *fn, MPI_Comm comm, struct rch_mpi_comm *c, const void *sendbuf, int sendcount,
                const struct rch_mpi_type *st_, void *raw, size_t rawbytes, int dest, int sendtag, void *recvbuf,
                int recvcount, const struct rch_mpi_type *rt, int source, int recvtag, MPI_Request *request)
{
    struct pair *q = calloc(1, sizeof(*q));
    struct rch_dev_req *g = q ? rch_dev_req_alloc(RCH_DEV_REQ_GREQ) : NULL;
    if (!g) {
        free(q);
        free(raw);
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    }
    q->greq = g;
    q->tmp = raw;
    rdmach_status_t s = RDMACH_OK;
    if (source != MPI_PROC_NULL)
        s = rch_mpi_post_recv(recvbuf, recvcount, rt, source, recvtag, c, &q->r);
    if (s == RDMACH_OK && dest != MPI_PROC_NULL)
        s = raw || !st_ ? rch_dev_isend(raw, rawbytes, c->world_of[dest], c->rank, sendtag, c->ctx,
                                        RCH_DEV_SEND_STD, &q->s)
                        : rch_mpi_post_send(sendbuf, sendcount, st_, dest, sendtag, c, RCH_DEV_SEND_STD, &q->s);
    if (s == RDMACH_OK && !hooked) {
        s = rch_dev_progress_hook_add(hook, NULL);
        hooked = s == RDMACH_OK;
    }
    if (s != RDMACH_OK) {
        if (q->r) {
            rch_dev_cancel(q->r);
            rch_dev_req_free(q->r);
        }
        rch_dev_req_free(q->s);   /* detached: the device finishes it */
        q->s = NULL;
        free(raw);
        g->err = s;
        rch_dev_req_complete(g);
        rch_dev_req_free(g);
        free(q);
        return rch_mpi_dev_error(fn, comm, s);
    }
    MPI_Request h = rch_mpi_req_new(g, comm);
    if (h == MPI_REQUEST_NULL) {
        rch_dev_req_free(g);   /* detached: completed and reclaimed by the hook */
        q->next = pending;
        pending = q;
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    }
    if (pair_done(q)) {
        finish(q);
    } else {
        q->next = pending;
        pending = q;
    }
    *request = h;
    return MPI_SUCCESS;
}

/* (buf, count, datatype) to or from `peer` with `tag`. */
static int check_side(const char *fn, MPI_Comm comm, const void *buf, int count, MPI_Datatype dt, int peer,
                      int tag, int is_recv, struct rch_mpi_comm **c, const struct rch_mpi_type **t)
{
    int err = rch_mpi_check_peer(fn, comm, peer, tag, is_recv, c);
    if (err)
        return err;
    *t = rch_mpi_check_buf(comm, fn, buf, count, dt, &err);
    return *t ? MPI_SUCCESS : err;
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                   MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Isendrecv";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_, *rt;
    int err;
    if ((err = check_side(fn, comm, sendbuf, sendcount, sendtype, dest, sendtag, 0, &c, &st_)) ||
        (err = check_side(fn, comm, recvbuf, recvcount, recvtype, source, recvtag, 1, &c, &rt)))
        return err;
    if (!request)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument request is NULL", fn);
    return post(fn, comm, c, sendbuf, sendcount, st_, NULL, 0, dest, sendtag, recvbuf, recvcount, rt, source,
                recvtag, request);
}
#pragma weak MPI_Isendrecv = PMPI_Isendrecv

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Isendrecv_replace";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *t;
    int err;
    if ((err = check_side(fn, comm, buf, count, datatype, dest, sendtag, 0, &c, &t)) ||
        (err = rch_mpi_check_peer(fn, comm, source, recvtag, 1, &c)))
        return err;
    if (!request)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument request is NULL", fn);
    /* The outgoing data is copied first: the receive may overwrite buf. */
    size_t bytes = (size_t)count * t->size;
    void *tmp = NULL;
    if (dest != MPI_PROC_NULL) {
        tmp = malloc(bytes ? bytes : 1);
        if (!tmp)
            return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for %zu bytes", fn, bytes);
        if (bytes == 0)
            ;                             /* buf may be NULL (count 0) */
        else if (t->contig)
            memcpy(tmp, (char *)buf + t->true_lb, bytes);
        else
            rch_mpi_type_pack(buf, count, t, tmp);
    }
    return post(fn, comm, c, NULL, 0, NULL, tmp, bytes, dest, sendtag, buf, count, t, source, recvtag,
                request);
}
#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
