/*
 * Point-to-point on the collective context: what every algorithm is written
 * with. Sends and receives address ranks of the communicator; the device
 * gets the world rank of a destination and matches receives on
 * (ctx, source comm rank, tag).
 *
 * Collectives know every message's exact size, so a receive that gets more
 * or fewer bytes than it expects means the ranks called the collective with
 * different counts or types: that is reported, naming both sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include "base/base.h"
#include "coll/coll_impl.h"

static const char *const tag_names[] = {
    [RCH_COLL_TAG_BARRIER] = "barrier",
    [RCH_COLL_TAG_BCAST] = "bcast",
    [RCH_COLL_TAG_REDUCE] = "reduce",
    [RCH_COLL_TAG_ALLREDUCE] = "allreduce",
    [RCH_COLL_TAG_GATHER] = "gather",
    [RCH_COLL_TAG_GATHERV] = "gatherv",
    [RCH_COLL_TAG_SCATTER] = "scatter",
    [RCH_COLL_TAG_SCATTERV] = "scatterv",
    [RCH_COLL_TAG_ALLGATHER] = "allgather",
    [RCH_COLL_TAG_ALLGATHERV] = "allgatherv",
    [RCH_COLL_TAG_ALLTOALL] = "alltoall",
    [RCH_COLL_TAG_ALLTOALLV] = "alltoallv",
    [RCH_COLL_TAG_REDUCE_SCATTER] = "reduce_scatter",
    [RCH_COLL_TAG_SCAN] = "scan",
    [RCH_COLL_TAG_EXSCAN] = "exscan",
};

const char *rch_coll_tag_name(int tag)
{
    if (tag <= 0 || (size_t)tag >= RCH_ARRAY_SIZE(tag_names) || !tag_names[tag])
        return "collective";
    return tag_names[tag];
}

/* Check a finished receive and release it. */
static rdmach_status_t finish_recv(const struct rch_coll_comm *c, struct rch_dev_req *req,
                                   size_t len, int src, int tag)
{
    rdmach_status_t st = req->err;
    size_t got = req->bytes, full = req->msg_bytes;
    rch_dev_req_free(req);
    if (st == RDMACH_ERR_TRUNCATE || (st == RDMACH_OK && full > len))
        return rch_base_err(RDMACH_ERR_TRUNCATE,
                            "%s: rank %d sent %zu bytes to rank %d, which expected %zu "
                            "(counts or datatypes differ between ranks)",
                            rch_coll_tag_name(tag), src, full, c->rank, len);
    if (st != RDMACH_OK)
        return rch_base_err(st, "%s: receive from rank %d (world %d) failed: %s",
                            rch_coll_tag_name(tag), src, c->world_of[src], rdmach_strerror(st));
    if (got != len)
        return rch_base_err(RDMACH_ERR_INVALID_ARG,
                            "%s: rank %d sent %zu bytes to rank %d, which expected %zu "
                            "(counts or datatypes differ between ranks)",
                            rch_coll_tag_name(tag), src, got, c->rank, len);
    return RDMACH_OK;
}

static rdmach_status_t finish_send(const struct rch_coll_comm *c, struct rch_dev_req *req,
                                   int dst, int tag)
{
    rdmach_status_t st = req->err;
    rch_dev_req_free(req);
    if (st != RDMACH_OK)
        return rch_base_err(st, "%s: send to rank %d (world %d) failed: %s",
                            rch_coll_tag_name(tag), dst, c->world_of[dst], rdmach_strerror(st));
    return RDMACH_OK;
}

/* The device's own message for a failed call (copied: the next
 * rch_base_err overwrites the thread's message buffer). */
static void device_why(rdmach_status_t st, char *buf, size_t len)
{
    const char *detail = rdmach_last_error();
    snprintf(buf, len, "%s", detail[0] ? detail : rdmach_strerror(st));
}

static rdmach_status_t post_send(const struct rch_coll_comm *c, const void *buf, size_t len,
                                 int dst, int tag, struct rch_dev_req **req)
{
    *req = NULL;
    rdmach_status_t st = rch_dev_isend(buf, len, c->world_of[dst], c->rank, tag, c->ctx,
                                       RCH_DEV_SEND_STD, req);
    if (st != RDMACH_OK) {
        char why[256];
        device_why(st, why, sizeof(why));
        return rch_base_err(st, "%s: send of %zu bytes to rank %d (world %d) failed: %s",
                            rch_coll_tag_name(tag), len, dst, c->world_of[dst], why);
    }
    return RDMACH_OK;
}

static rdmach_status_t post_recv(const struct rch_coll_comm *c, void *buf, size_t len, int src,
                                 int tag, struct rch_dev_req **req)
{
    *req = NULL;
    rdmach_status_t st = rch_dev_irecv(buf, len, src, tag, c->ctx, req);
    if (st != RDMACH_OK) {
        char why[256];
        device_why(st, why, sizeof(why));
        return rch_base_err(st, "%s: receive of %zu bytes from rank %d failed: %s",
                            rch_coll_tag_name(tag), len, src, why);
    }
    return RDMACH_OK;
}

/* Abandon a posted receive after an error elsewhere: cancel it (if it has
 * matched already, cancelling does nothing) and let the device reclaim it. */
static void drop_recv(struct rch_dev_req *req)
{
    if (!req)
        return;
    rch_dev_cancel(req);
    rch_dev_req_free(req);
}

rdmach_status_t rch_coll_send(const struct rch_coll_comm *c, const void *buf, size_t len,
                              int dst, int tag)
{
    struct rch_dev_req *req;
    rdmach_status_t st = post_send(c, buf, len, dst, tag, &req);
    if (st != RDMACH_OK || !req)
        return st;
    st = rch_dev_wait(req);
    if (st != RDMACH_OK) {
        rch_dev_req_free(req);
        return rch_base_err(st, "%s: waiting for the send to rank %d: %s", rch_coll_tag_name(tag),
                            dst, rdmach_strerror(st));
    }
    return finish_send(c, req, dst, tag);
}

rdmach_status_t rch_coll_recv(const struct rch_coll_comm *c, void *buf, size_t len, int src, int tag)
{
    struct rch_dev_req *req;
    rdmach_status_t st = post_recv(c, buf, len, src, tag, &req);
    if (st != RDMACH_OK)
        return st;
    st = rch_dev_wait(req);
    if (st != RDMACH_OK) {
        drop_recv(req);
        return rch_base_err(st, "%s: waiting for the message from rank %d: %s",
                            rch_coll_tag_name(tag), src, rdmach_strerror(st));
    }
    return finish_recv(c, req, len, src, tag);
}

rdmach_status_t rch_coll_sendrecv(const struct rch_coll_comm *c, const void *sbuf, size_t slen,
                                  int dst, void *rbuf, size_t rlen, int src, int tag)
{
    struct rch_dev_req *rreq, *sreq;
    rdmach_status_t st = post_recv(c, rbuf, rlen, src, tag, &rreq);
    if (st != RDMACH_OK)
        return st;
    st = post_send(c, sbuf, slen, dst, tag, &sreq);
    if (st != RDMACH_OK)
        goto out_drop_recv;
    if (sreq) {
        st = rch_dev_wait(sreq);
        if (st != RDMACH_OK) {
            rch_dev_req_free(sreq);
            goto out_drop_recv;
        }
        st = finish_send(c, sreq, dst, tag);
        if (st != RDMACH_OK)
            goto out_drop_recv;
    }
    st = rch_dev_wait(rreq);
    if (st != RDMACH_OK)
        goto out_drop_recv;
    return finish_recv(c, rreq, rlen, src, tag);

out_drop_recv:
    drop_recv(rreq);
    return st;
}

/* ---- batches ---- */

struct rch_coll_batch_ent {
    struct rch_dev_req *req;   /* NULL: already complete (eager send) */
    size_t len;
    int peer;
    int is_recv;
};

rdmach_status_t rch_coll_batch_init(struct rch_coll_batch *b, const struct rch_coll_comm *c,
                                    int tag, int cap)
{
    b->c = c;
    b->tag = tag;
    b->n = 0;
    b->cap = cap;
    b->ent = NULL;
    if (cap <= 0)
        return RDMACH_OK;
    b->ent = calloc((size_t)cap, sizeof(*b->ent));
    if (!b->ent)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no memory for %d requests",
                            rch_coll_tag_name(tag), cap);
    return RDMACH_OK;
}

static rdmach_status_t batch_slot(struct rch_coll_batch *b, struct rch_coll_batch_ent **e)
{
    if (b->n >= b->cap)
        return rch_base_err(RDMACH_ERR_OTHER, "%s: internal error: more than %d requests in a batch",
                            rch_coll_tag_name(b->tag), b->cap);
    *e = &b->ent[b->n];
    return RDMACH_OK;
}

rdmach_status_t rch_coll_batch_send(struct rch_coll_batch *b, const void *buf, size_t len, int dst)
{
    struct rch_coll_batch_ent *e = NULL;
    rdmach_status_t st = batch_slot(b, &e);
    if (st != RDMACH_OK)
        return st;
    st = post_send(b->c, buf, len, dst, b->tag, &e->req);
    if (st != RDMACH_OK)
        return st;
    e->len = len;
    e->peer = dst;
    e->is_recv = 0;
    b->n++;
    return RDMACH_OK;
}

rdmach_status_t rch_coll_batch_recv(struct rch_coll_batch *b, void *buf, size_t len, int src)
{
    struct rch_coll_batch_ent *e = NULL;
    rdmach_status_t st = batch_slot(b, &e);
    if (st != RDMACH_OK)
        return st;
    st = post_recv(b->c, buf, len, src, b->tag, &e->req);
    if (st != RDMACH_OK)
        return st;
    e->len = len;
    e->peer = src;
    e->is_recv = 1;
    b->n++;
    return RDMACH_OK;
}

rdmach_status_t rch_coll_batch_wait(struct rch_coll_batch *b)
{
    rdmach_status_t first = RDMACH_OK;
    int i;
    /* Wait for each in turn: the device progresses all of them meanwhile.
     * After the first error, the rest are cancelled (receives) or detached. */
    for (i = 0; i < b->n; i++) {
        struct rch_coll_batch_ent *e = &b->ent[i];
        rdmach_status_t st = RDMACH_OK;
        if (!e->req)
            continue;
        if (first != RDMACH_OK) {
            if (e->is_recv)
                drop_recv(e->req);
            else
                rch_dev_req_free(e->req);
            e->req = NULL;
            continue;
        }
        st = rch_dev_wait(e->req);
        if (st != RDMACH_OK) {
            if (e->is_recv)
                drop_recv(e->req);
            else
                rch_dev_req_free(e->req);
            first = rch_base_err(st, "%s: waiting for rank %d: %s", rch_coll_tag_name(b->tag),
                                 e->peer, rdmach_strerror(st));
        } else if (e->is_recv) {
            first = finish_recv(b->c, e->req, e->len, e->peer, b->tag);
        } else {
            first = finish_send(b->c, e->req, e->peer, b->tag);
        }
        e->req = NULL;
    }
    b->n = 0;
    return first;
}

void rch_coll_batch_free(struct rch_coll_batch *b)
{
    for (int i = 0; i < b->n; i++) {
        struct rch_coll_batch_ent *e = &b->ent[i];
        if (!e->req)
            continue;
        if (e->is_recv)
            drop_recv(e->req);
        else
            rch_dev_req_free(e->req);
    }
    free(b->ent);
    b->ent = NULL;
    b->n = b->cap = 0;
}
