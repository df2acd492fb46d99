/*
 * Cancel (MPI_Cancel): receives locally, sends by asking the receiver.
 *
 * A receive that has not matched leaves the posted queue and completes
 * cancelled; one that has matched goes on.
 *
 * A send, by where its message is (the wire exchange is in pkt.h, above
 * struct rch_pkt_cancel_req):
 *   still in the send queue    taken off it: nothing left, cancelled at once
 *   left, protocol going on    (sync eager waiting for SYNC_ACK, RNDV_REQ
 *                              waiting for RSP/FIN) CANCEL_REQ; cxl ASKED
 *   left, protocol over        (eager sent, the request done) the request is
 *                              reopened (done = 0, state SEND_CANCEL, on the
 *                              peer's pending list) and CANCEL_REQ sent
 *   being written (zero-copy)  cxl WANTED: the CANCEL_REQ follows the write
 *   matched (PUT, DATA)        nothing: it completes normally
 * While ASKED, a protocol end with OK does not complete the request
 * (req.c calls rch_dev_cancel_hold): it waits in SEND_CANCEL. The answer
 * then decides: withdrawn -> the request completes with cancelled = 1 and
 * RDMACH_ERR_CANCELED (no SYNC_ACK, RSP or FIN can follow: the receiver
 * dropped the message before matching it); matched -> the protocol's own
 * outcome stands. A peer that fails while the answer is outstanding
 * completes the request with PEER_DEAD (it is on the pending list).
 *
 * A send the device finished without a request (the eager fast path) is
 * cancelled through a request made for it from its number
 * (rch_dev_cancel_sent).
 */
#include <string.h>
#include "base/log.h"
#include "device/dev_impl.h"

static void ask(struct rch_dev_peer *p, struct rch_dev_ireq *r)
{
    struct rch_pkt_cancel_req c = { .b = rch_pkt_base_make(RCH_PKT_CANCEL_REQ, 0), .sreq = rch_dev_ireq_id(r),
                                    .seq = r->seq };
    r->cxl = RCH_DEV_CXL_ASKED;
    rch_dev_send_ctl(p, &c, sizeof(c));
}

/* A finished send asks after all: not done again until the answer. */
static void reopen(struct rch_dev_peer *p, struct rch_dev_ireq *r)
{
    __atomic_store_n(&r->pub.done, 0, __ATOMIC_RELEASE);
    r->pub.on_complete = NULL;   /* it ran at the first completion */
    r->state = RCH_DEV_S_SEND_CANCEL;
    rch_dev_pending_add(p, r);
    ask(p, r);
}

static void cancel_send(struct rch_dev_ireq *r)
{
    if (r->cxl != RCH_DEV_CXL_NONE || r->pub.cancelled || r->peer < 0 || r->peer >= rch_dev.size)
        return;
    struct rch_dev_peer *p = &rch_dev.peers[r->peer];
    switch (r->state) {
    case RCH_DEV_S_SEND_QUEUED:
        if (rch_dev_unqueue(p, r)) {
            r->pub.cancelled = 1;
            r->pub.bytes = 0;
            rch_dev_ireq_finish(r, RDMACH_ERR_CANCELED);
        }
        return;
    case RCH_DEV_S_SEND_WAIT_ACK:
    case RCH_DEV_S_SEND_WAIT_RSP:
        ask(p, r);
        return;
    case RCH_DEV_S_SEND_ZC:
        r->cxl = RCH_DEV_CXL_WANTED;
        return;
    case RCH_DEV_S_DONE:
        /* Failed, never left, or its peer is gone: nothing to withdraw. */
        if (r->seq != 0 && r->pub.err == RDMACH_OK && !p->dead)
            reopen(p, r);
        return;
    default:
        return;   /* matched: it completes normally */
    }
}

rdmach_status_t rch_dev_cancel(struct rch_dev_req *req)
{
    struct rch_dev_ireq *r = (struct rch_dev_ireq *)req;
    if (req == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "cancel: req is NULL");
    if (req->kind == RCH_DEV_REQ_RECV && r->state == RCH_DEV_S_RECV_POSTED) {
        rch_match_unpost(&rch_dev.posted, &r->me);
        req->cancelled = 1;
        rch_dev_ireq_complete(r, RDMACH_ERR_CANCELED);
    } else if (req->kind == RCH_DEV_REQ_SEND) {
        cancel_send(r);
    }
    return RDMACH_OK;
}

uint64_t rch_dev_send_seq(int dest)
{
    if ((unsigned)dest >= (unsigned)rch_dev.size)
        return 0;
    return rch_dev.peers[dest].tx_seq;
}

rdmach_status_t rch_dev_cancel_sent(int dest, uint64_t seq, struct rch_dev_req **req)
{
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "cancel_sent: the device is not initialized");
    if (req == NULL || (unsigned)dest >= (unsigned)rch_dev.size)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "cancel_sent: %s", req ? "dest is not a world rank" : "req is NULL");
    if (seq == 0 || seq > rch_dev.peers[dest].tx_seq)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "cancel_sent: no message %llu was sent to rank %d",
                            (unsigned long long)seq, dest);
    struct rch_dev_ireq *r = rch_dev_ireq_alloc(RCH_DEV_REQ_SEND);
    if (r == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "cancel_sent: no memory for a request");
    r->peer = dest;
    r->seq = seq;
    r->pub.done = 1;
    *req = &r->pub;
    cancel_send(r);
    return RDMACH_OK;
}

void rch_dev_cancel_hold(struct rch_dev_ireq *r)
{
    struct rch_dev_peer *p = &rch_dev.peers[r->peer];
    r->state = RCH_DEV_S_SEND_CANCEL;
    rch_dev_pending_add(p, r);   /* a failure of the peer still completes it */
    if (r->cxl == RCH_DEV_CXL_WANTED)
        ask(p, r);
}

/* ---- the receiver ---- */

struct find_arg {
    int peer;
    uint64_t seq;
    struct rch_dev_unexp *found;
};

static void find_seq(struct rch_match_entry *e, void *arg)
{
    struct find_arg *a = arg;
    struct rch_dev_unexp *u = rch_container_of(e, struct rch_dev_unexp, me);
    if (a->found == NULL && u->peer == a->peer && u->seq == a->seq)
        a->found = u;
}

void rch_dev_cancel_on_req(struct rch_dev_peer *p, const void *pkt, size_t len)
{
    struct rch_pkt_cancel_req c;
    memcpy(&c, pkt, sizeof(c));
    if (c.seq > p->rx_seq) {
        rch_dev_bad_packet(p, len, RCH_PKT_CANCEL_REQ, "CANCEL_REQ for a message that has not arrived");
        return;
    }
    struct find_arg a = { p->rank, c.seq, NULL };
    if (rch_dev.unexp.count)
        rch_match_unexp_foreach(&rch_dev.unexp, find_seq, &a);
    if (a.found) {
        rch_match_remove_unexp(&rch_dev.unexp, &a.found->me);
        rch_dev_unexp_release(a.found);
    }
    struct rch_pkt_cancel_rsp rsp = { .b = rch_pkt_base_make(RCH_PKT_CANCEL_RSP, 0), .sreq = c.sreq, .seq = c.seq,
                                      .cancelled = a.found != NULL, .pad = 0 };
    rch_dev_send_ctl(p, &rsp, sizeof(rsp));
}

void rch_dev_cancel_on_rsp(struct rch_dev_peer *p, const void *pkt, size_t len)
{
    struct rch_pkt_cancel_rsp c;
    memcpy(&c, pkt, sizeof(c));
    struct rch_dev_ireq *r = rch_dev_ireq_lookup(c.sreq);
    if (r == NULL || r->pub.kind != RCH_DEV_REQ_SEND || r->peer != p->rank || r->cxl != RCH_DEV_CXL_ASKED ||
        r->seq != c.seq) {
        rch_dev_bad_packet(p, len, RCH_PKT_CANCEL_RSP, "CANCEL_RSP for no cancel waiting on this rank");
        return;
    }
    r->cxl = RCH_DEV_CXL_NONE;
    if (c.cancelled) {
        r->pub.cancelled = 1;
        r->pub.bytes = 0;
        rch_dev_ireq_finish(r, RDMACH_ERR_CANCELED);
    } else if (r->state == RCH_DEV_S_SEND_CANCEL) {
        rch_dev_ireq_finish(r, RDMACH_OK);   /* delivered: the send's own outcome, OK, stands */
    }
}
