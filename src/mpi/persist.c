/*
 * Persistent requests: Send_init, Bsend_init, Ssend_init, Rsend_init,
 * Recv_init, Start, Startall.
 *
 * The arguments are checked and kept once (the datatype retained); Start
 * replays them through the same paths as Isend/Ibsend/Irecv. A persistent
 * request is INACTIVE until started; completion (Wait/Test families, in
 * request.c) makes it inactive again instead of freeing it; Request_free
 * frees it. An operation that completes at its start (an eager send the
 * device finished, a buffered send, MPI_PROC_NULL) leaves no device request:
 * the state says how it completed.
 */
#include <stdlib.h>
#include "mpi/mpi_impl.h"

static int make(const char *fn, int op, int mode, const void *buf, int count, MPI_Datatype datatype, int peer,
                int tag, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *c;
    int err = rch_mpi_check_peer(fn, comm, peer, tag, op == RCH_MPI_PERSIST_RECV, &c);
    if (err)
        return err;
    const struct rch_mpi_type *t = rch_mpi_check_buf(comm, fn, buf, count, datatype, &err);
    if (!t)
        return err;
    if (!request)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument request is NULL", fn);
    struct rch_mpi_persist *p = malloc(sizeof(*p));
    if (!p)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *p = (struct rch_mpi_persist){ .op = op, .mode = mode, .buf = (void *)buf, .count = count,
                                   .type = (struct rch_mpi_type *)t, .peer = peer, .tag = tag };
    MPI_Request h = rch_mpi_req_new_persistent(p, comm);
    if (h == MPI_REQUEST_NULL) {
        free(p);
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    }
    rch_mpi_type_retain(p->type);
    *request = h;
    return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    RCH_MPI_CS();
    return make("MPI_Send_init", RCH_MPI_PERSIST_SEND, RCH_DEV_SEND_STD, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Send_init = PMPI_Send_init

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    RCH_MPI_CS();
    return make("MPI_Ssend_init", RCH_MPI_PERSIST_SEND, RCH_DEV_SEND_SYNC, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Ssend_init = PMPI_Ssend_init

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    RCH_MPI_CS();
    return make("MPI_Rsend_init", RCH_MPI_PERSIST_SEND, RCH_DEV_SEND_READY, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Rsend_init = PMPI_Rsend_init

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    RCH_MPI_CS();
    return make("MPI_Bsend_init", RCH_MPI_PERSIST_BSEND, RCH_DEV_SEND_STD, buf, count, datatype, dest, tag, comm,
                request);
}
#pragma weak MPI_Bsend_init = PMPI_Bsend_init

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    RCH_MPI_CS();
    return make("MPI_Recv_init", RCH_MPI_PERSIST_RECV, 0, buf, count, datatype, source, tag, comm, request);
}
#pragma weak MPI_Recv_init = PMPI_Recv_init

/* Starts one checked, inactive persistent request. */
static int start_one(const char *fn, MPI_Request h, struct rch_mpi_req *e)
{
    struct rch_mpi_persist *p = e->persist;
    struct rch_mpi_comm *c = rch_mpi_comm_get(e->comm);
    if (!c)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COMM,
                           "%s: the communicator 0x%x of request 0x%x has been freed", fn, (unsigned)e->comm,
                           (unsigned)h);
    e->sent_to = -1;
    if (p->op == RCH_MPI_PERSIST_OBJ)
        return p->ops->start(fn, p->obj, h, e);
    if (p->peer == MPI_PROC_NULL) {
        e->pstate = p->op == RCH_MPI_PERSIST_RECV ? RCH_MPI_PS_DONE_NULL : RCH_MPI_PS_DONE_SEND;
        return MPI_SUCCESS;
    }
    struct rch_dev_req *r = NULL;
    if (p->op == RCH_MPI_PERSIST_BSEND) {
        int err = rch_mpi_bsend_start(fn, p->buf, p->count, p->type, p->peer, p->tag, c, &r);
        if (err != MPI_SUCCESS)
            return err;
    } else {
        rdmach_status_t st = p->op == RCH_MPI_PERSIST_RECV
                                 ? rch_mpi_post_recv(p->buf, p->count, p->type, p->peer, p->tag, c, &r)
                                 : rch_mpi_post_send(p->buf, p->count, p->type, p->peer, p->tag, c, p->mode, &r);
        if (st != RDMACH_OK)
            return rch_mpi_dev_error(fn, e->comm, st);
    }
    e->dreq = r;
    e->buffered = r && p->op == RCH_MPI_PERSIST_BSEND;
    e->pstate = r ? RCH_MPI_PS_ACTIVE : RCH_MPI_PS_DONE_SEND;
    if (!r) {
        /* Left at once: its number, so that MPI_Cancel can still withdraw it. */
        e->sent_to = c->peer_world_of[p->peer];
        e->sent_seq = rch_dev_send_seq(e->sent_to);
    }
    return MPI_SUCCESS;
}

static int check_startable(const char *fn, const char *arg, int i, MPI_Request h, struct rch_mpi_req **ep)
{
    struct rch_mpi_req *e = rch_mpi_req_get(h);
    *ep = e;
    if (!e || !e->persist)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "%s: %s[%d] = 0x%x is not a persistent request", fn, arg, i,
                           (unsigned)h);
    if (e->pstate != RCH_MPI_PS_INACTIVE)
        return rch_mpi_err(e->comm, MPI_ERR_REQUEST, "%s: request 0x%x in %s[%d] is already active", fn,
                           (unsigned)h, arg, i);
    return MPI_SUCCESS;
}

int PMPI_Start(MPI_Request *request)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Start");
    if (err)
        return err;
    if (!request)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Start: argument request is NULL");
    struct rch_mpi_req *e;
    err = check_startable("MPI_Start", "request", 0, *request, &e);
    if (err)
        return err;
    return start_one("MPI_Start", *request, e);
}
#pragma weak MPI_Start = PMPI_Start

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Startall");
    if (err)
        return err;
    if (count < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, "MPI_Startall: invalid count %d", count);
    if (count > 0 && !array_of_requests)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Startall: argument array_of_requests is NULL");
    struct rch_mpi_req *e;
    for (int i = 0; i < count; i++) {
        err = check_startable("MPI_Startall", "array_of_requests", i, array_of_requests[i], &e);
        if (err)
            return err;
        for (int j = 0; j < i; j++)
            if (array_of_requests[j] == array_of_requests[i])
                return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
                                   "MPI_Startall: request 0x%x appears twice (array_of_requests[%d] and [%d])",
                                   (unsigned)array_of_requests[i], j, i);
    }
    for (int i = 0; i < count; i++) {
        e = rch_mpi_req_get(array_of_requests[i]);
        err = start_one("MPI_Startall", array_of_requests[i], e);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Startall = PMPI_Startall
