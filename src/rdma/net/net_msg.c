/*
 * Messages over the network channel: send() as one RDMA write into the
 * peer's ring, arrivals taken from our rings, credits, control messages.
 *
 * send() fast path (connection ready, a credit, staging slot free): copy the
 * device's packet into the staging slot between header and tail (our consumed
 * count piggybacked in the header), one write (injected when small, so no
 * completion is needed) to the same slot of the peer's ring. No system call
 * of ours, no lock, no allocation; the provider may make one (tcp: send()).
 *
 * Arrival, by notify mode (net.h): POLL reads the slot markers; DATA and SEND
 * count announcements (immediate data / DOORBELL messages) and read only
 * announced slots. Each slot taken is handed up, zeroed and counted.
 *
 * Credits: a slot's header carries the sender's consumed count for the
 * other direction. When half a ring has been consumed since the count last
 * left and nothing carried it, an explicit credit message goes out: an RDMA
 * write of the count into the control block at the start of the peer's ring
 * (it needs no receive and no credit, so it can always go: two ranks with
 * full rings unblock each other).
 */
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "rdma/net/net.h"

/* The server must never post before the client's NOOP (net_conn.c). */
static inline int may_post(const struct rch_net_conn *c)
{
    return c->state == RCH_NET_C_READY || (!c->server && c->state == RCH_NET_C_CONNECTING);
}

static void note_first_post(struct rch_net_conn *c, const char *what)
{
    if (c->posts++ == 0)
        RCH_DEBUG("net", "%s: first post to rank %d (%s) in state %s", c->server ? "server" : "client", c->rank,
                  what, rch_net_state_name[c->state]);
}

void rch_net_set_pending(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    if (c->pending_index < 0) {
        c->pending_index = ch->npending;
        ch->pending[ch->npending++] = c;
    }
}

/* ---- control messages ---- */

rdmach_status_t rch_net_post_ctl(struct rch_rdma_chan *ch, struct rch_net_conn *c, unsigned op, uint32_t count)
{
    if (c->ctl_op.busy)
        return RDMACH_AGAIN;
    if (!may_post(c))
        return rch_base_err(RDMACH_ERR_PROTOCOL, "rank %d: control message in state %s", c->rank,
                            rch_net_state_name[c->state]);
    struct rch_net_ctl m = {
        .magic = RCH_NET_MAGIC, .version = RCH_NET_VERSION, .op = (uint8_t)op, .rsvd = 0,
        .rank = c->my_id, .count = count, .key = c->rec.secret,
    };
    memcpy(c->ctl_buf, &m, sizeof(m));
    void *ctx = ch->pcaps->inject_size >= sizeof(m) ? NULL : &c->ctl_op;
    rdmach_status_t st = ch->pops->post_send(ch->prov, c->ep, c->ctl_buf, sizeof(m), &c->local_mr, ctx);
    if (st != RDMACH_OK)
        return st;
    note_first_post(c, op == RCH_NET_CTL_NOOP ? "NOOP send" : op == RCH_NET_CTL_NOOP_ACK ? "NOOP_ACK send"
                                                                                         : "DOORBELL send");
    if (ctx)
        c->ctl_op.busy = 1;
    return RDMACH_OK;
}

void rch_net_on_ctl(struct rch_rdma_chan *ch, struct rch_net_conn *c, struct rch_net_op *op, uint32_t len)
{
    struct rch_net_ctl m;
    const char *why = NULL;
    if (rch_net_ctl_check(c->recv_bufs + (size_t)op->index * RCH_NET_CTL_BUF, len, &m, &why) != RDMACH_OK) {
        rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, why);
        return;
    }
    if (m.rank != c->rank) {
        rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, "a control message naming another rank");
        return;
    }
    if (m.op == RCH_NET_CTL_NOOP) {
        rch_net_conn_on_noop(ch, c, &m);
    } else if (m.op == RCH_NET_CTL_NOOP_ACK) {
        rch_net_conn_on_noop_ack(ch, c, &m);
    } else if (m.op == RCH_NET_CTL_DOORBELL) {
        if (ch->notify != RCH_NET_NOTIFY_SEND || (uint32_t)(c->rx.notified + m.count - c->rx.seq) > ch->nslots) {
            rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, "a DOORBELL announcing more slots than a ring has");
            return;
        }
        c->rx.notified += m.count;
    }
    if (c->ep && (c->state == RCH_NET_C_READY || c->state == RCH_NET_C_ACCEPTED)) {
        rdmach_status_t st = ch->pops->post_recv(ch->prov, c->ep, c->recv_bufs + (size_t)op->index * RCH_NET_CTL_BUF,
                                                 RCH_NET_CTL_BUF, &c->local_mr, op);
        if (st != RDMACH_OK)
            rch_net_conn_fail(ch, c, st, rdmach_last_error());
        else
            op->busy = 1;
    }
}

/* ---- credits ---- */

static void send_crdt(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    if (c->crdt_op.busy) {
        c->crdt_pending = 1;
        rch_net_set_pending(ch, c);
        return;
    }
    uint32_t v = c->rx.seq;
    *c->crdt_word = v;
    void *ctx = ch->pcaps->inject_size >= sizeof(v) ? NULL : &c->crdt_op;
    rdmach_status_t st = ch->pops->post_write(ch->prov, c->ep, c->crdt_word, sizeof(v), &c->local_mr,
                                              c->tx.rctl + offsetof(struct rch_net_ring_ctl, consumed),
                                              &c->peer_rk, ctx);
    if (st == RDMACH_OK) {
        note_first_post(c, "credit write");
        if (ctx)
            c->crdt_op.busy = 1;
        c->rx.returned = v;
        c->crdt_sent++;
        c->crdt_pending = 0;
    } else if (st == RDMACH_AGAIN) {
        c->crdt_pending = 1;
        rch_net_set_pending(ch, c);
    } else {
        rch_net_conn_fail(ch, c, st, rdmach_last_error());
    }
}

/* A control message that must go out: 1 if it did; 0 if the send is busy (the
 * pending list retries) or the connection failed. */
static int post_ctl_or_owe(struct rch_rdma_chan *ch, struct rch_net_conn *c, unsigned op, uint32_t count)
{
    rdmach_status_t st = rch_net_post_ctl(ch, c, op, count);
    if (st == RDMACH_OK)
        return 1;
    if (st == RDMACH_AGAIN)
        rch_net_set_pending(ch, c);
    else
        rch_net_conn_fail(ch, c, st, rdmach_last_error());
    return 0;
}

static void send_bells(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    if (post_ctl_or_owe(ch, c, RCH_NET_CTL_DOORBELL, c->bells_owed))
        c->bells_owed = 0;
}

void rch_net_send_ack(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    c->ack_owed = !post_ctl_or_owe(ch, c, RCH_NET_CTL_NOOP_ACK, 0);
}

int rch_net_flush_ctl(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    if (c->state != RCH_NET_C_READY)
        return 0;
    if (c->crdt_pending && (uint32_t)(c->rx.seq - c->rx.returned) != 0)
        send_crdt(ch, c);
    else
        c->crdt_pending = 0;
    if (c->bells_owed && c->state == RCH_NET_C_READY)
        send_bells(ch, c);
    if (c->ack_owed && c->state == RCH_NET_C_READY)
        rch_net_send_ack(ch, c);
    return c->crdt_pending || c->bells_owed || c->ack_owed;
}

/* ---- send ---- */

/* A slot's write was posted: count it, hold its staging slot until its
 * completion (ctx), ring the doorbell in notify "send". */
static inline void slot_posted(struct rch_rdma_chan *ch, struct rch_net_conn *c, struct rch_net_op *op, void *ctx,
                               const char *what)
{
    if (RCH_UNLIKELY(c->posts == 0))
        note_first_post(c, what);
    else
        c->posts++;
    if (ctx)
        op->busy = 1;
    if (ch->notify == RCH_NET_NOTIFY_SEND) {
        c->bells_owed++;
        send_bells(ch, c);
    }
}

/* One slot to the peer: the write (with immediate data in notify "data"),
 * then a doorbell in notify "send". */
static inline rdmach_status_t post_slot(struct rch_rdma_chan *ch, struct rch_net_conn *c, uint32_t seq, size_t bytes)
{
    struct rch_net_op *op = &c->slot_ops[seq & (ch->nslots - 1)];
    void *ctx = bytes <= ch->pcaps->inject_size ? NULL : op;
    const unsigned char *slot = rch_net_ring_tx_slot(&c->tx, seq);
    uint64_t raddr = rch_net_ring_tx_raddr(&c->tx, seq);
    rdmach_status_t st;
    if (ch->notify == RCH_NET_NOTIFY_DATA)
        st = ch->pops->post_write_data(ch->prov, c->ep, slot, bytes, &c->local_mr, raddr, &c->peer_rk,
                                       (uint32_t)c->my_id, ctx);
    else
        st = ch->pops->post_write(ch->prov, c->ep, slot, bytes, &c->local_mr, raddr, &c->peer_rk, ctx);
    if (RCH_UNLIKELY(st != RDMACH_OK))
        return st;
    slot_posted(ch, c, op, ctx, "slot write");
    return RDMACH_OK;
}

static rdmach_status_t send_not_ready(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    switch (c->state) {
    case RCH_NET_C_IDLE: {
        rdmach_status_t st = rch_net_conn_start(ch, c);
        return st == RDMACH_OK ? RDMACH_AGAIN : st;
    }
    case RCH_NET_C_FAILED:
        return rch_base_err(c->fail_status ? c->fail_status : RDMACH_ERR_PEER_DEAD, "rank %d: %s", c->rank,
                            c->fail_why[0] ? c->fail_why : "the connection failed");
    case RCH_NET_C_CLOSED:
        return rch_base_err(RDMACH_ERR_PEER_DEAD, "rank %d has closed its network channel", c->rank);
    default:
        return RDMACH_AGAIN;   /* being set up */
    }
}

/* Take the explicit credit return written into our ring's control block. */
static inline int refresh_credits(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    uint32_t v = __atomic_load_n(&c->rx.ctl->consumed, __ATOMIC_ACQUIRE);
    if (rch_net_ring_tx_credit(&c->tx, v) != RDMACH_OK) {
        rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, "the peer returned more credits than it was given");
        return 0;
    }
    return rch_net_ring_tx_room(&c->tx);
}

/* The device's packets are {header, payload}: that case without a loop. */
static inline size_t iov_total(const struct iovec *iov, int iovcnt)
{
    if (RCH_LIKELY(iovcnt == 2))
        return iov[0].iov_len + iov[1].iov_len;
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    return total;
}

/* The connection to `peer` if its next slot can be written now: OK; AGAIN
 * (no credit, a queued put/get it must not overtake, or the staging slot's
 * previous write not yet complete) or an error otherwise. */
static inline rdmach_status_t slot_claim(struct rch_rdma_chan *ch, int peer, const char *what,
                                         struct rch_net_conn **cp)
{
    struct rch_net_conn *c;
    if (RCH_UNLIKELY((unsigned)peer >= (unsigned)ch->size || !(c = &ch->conns[peer])->is_peer))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s %s: rank %d is not a peer of this channel",
                            ch->ops->name, what, peer);
    if (RCH_UNLIKELY(c->state != RCH_NET_C_READY))
        return send_not_ready(ch, c);
    if (RCH_UNLIKELY(c->rq_head != NULL))
        return RDMACH_AGAIN;   /* never overtake a queued put/get (caps.put_then_send) */
    if (RCH_UNLIKELY(!rch_net_ring_tx_room(&c->tx)) && !refresh_credits(ch, c)) {
        c->tx_full++;
        return c->state == RCH_NET_C_READY ? RDMACH_AGAIN : send_not_ready(ch, c);
    }
    if (RCH_UNLIKELY(c->slot_ops[c->tx.seq & (ch->nslots - 1)].busy))
        return RDMACH_AGAIN;   /* its previous write has not completed locally */
    *cp = c;
    return RDMACH_OK;
}

/* After the post of slot `seq` (carrying `credits`): the message is sent,
 * or AGAIN, or the connection fails. */
static inline rdmach_status_t slot_sent(struct rch_rdma_chan *ch, struct rch_net_conn *c, uint32_t seq,
                                        uint32_t credits, rdmach_status_t st)
{
    if (RCH_UNLIKELY(st != RDMACH_OK)) {
        if (st == RDMACH_AGAIN)
            return st;
        rch_net_conn_fail(ch, c, st, rdmach_last_error());
        return rch_base_err(c->fail_status, "rank %d: %s", c->rank, c->fail_why);
    }
    c->tx.seq = seq + 1;
    c->rx.returned = credits;
    c->sent++;
    return RDMACH_OK;
}

rdmach_status_t rch_net_send(struct rch_rdma_chan *ch, int peer, const struct iovec *iov, int iovcnt)
{
    size_t total = iov_total(iov, iovcnt);
    if (RCH_UNLIKELY(total > ch->caps.max_msg))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s send: a %zu-byte packet exceeds max_msg %zu",
                            ch->ops->name, total, ch->caps.max_msg);
    struct rch_net_conn *c = NULL;
    rdmach_status_t st = slot_claim(ch, peer, "send", &c);
    if (RCH_UNLIKELY(st != RDMACH_OK))
        return st;
    uint32_t seq = c->tx.seq, credits = c->rx.seq;
    size_t bytes = rch_net_ring_fill(rch_net_ring_tx_slot(&c->tx, seq), seq, RCH_NET_SLOT_DATA, credits, iov,
                                     iovcnt, total);
    return slot_sent(ch, c, seq, credits, post_slot(ch, c, seq, bytes));
}

/* Eager zero-copy: the same slot as rch_net_send's, written by one write
 * that gathers {slot header + packet header, from the staging slot; the
 * payload, from the user's registration; padding + tail marker, from the
 * staging slot after the header}. Its completion (dispatch, net_progress.c)
 * frees the staging slot and hands op_ctx up through rma_done. */
rdmach_status_t rch_net_send_zc(struct rch_rdma_chan *ch, int peer, const void *hdr, size_t hdrlen, const void *buf,
                                size_t len, struct rch_rdma_mr *lmr, void *op_ctx)
{
    size_t total = hdrlen + len;
    const struct rch_net_rcache_entry *e = lmr ? lmr->priv : NULL;
    if (RCH_UNLIKELY(!ch->zcopy || len < ch->caps.zc_min || total > ch->caps.max_msg || hdrlen == 0 ||
                     hdr == NULL || buf == NULL || op_ctx == NULL || e == NULL || (uintptr_t)buf < e->start ||
                     (uintptr_t)buf + len > e->end))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s send_zc: %s", ch->ops->name,
                            !ch->zcopy ? "eager zero-copy is off on this channel"
                            : len < ch->caps.zc_min || total > ch->caps.max_msg ? "size outside caps.zc_min..max_msg"
                            : e == NULL || buf == NULL ? "no registration of the payload"
                            : hdr == NULL || hdrlen == 0 || op_ctx == NULL ? "no header or no op_ctx"
                            : "the payload is outside its registration");
    struct rch_net_conn *c = NULL;
    rdmach_status_t st = slot_claim(ch, peer, "send_zc", &c);
    if (st != RDMACH_OK)
        return st;
    uint32_t seq = c->tx.seq, credits = c->rx.seq;
    struct rch_net_op *op = &c->slot_ops[seq & (ch->nslots - 1)];
    struct iovec v[3];
    rch_net_ring_fill_gather(rch_net_ring_tx_slot(&c->tx, seq), seq, credits, hdr, hdrlen, len, v);
    v[1] = (struct iovec){ .iov_base = (void *)buf, .iov_len = len };
    const struct rch_net_mr *mr[3] = { &c->local_mr, &e->mr, &c->local_mr };
    /* notify is poll (rch_net_zcopy_on): no immediate data, no doorbell */
    st = ch->pops->post_writev(ch->prov, c->ep, v, mr, 3, rch_net_ring_tx_raddr(&c->tx, seq), &c->peer_rk, op);
    if (st == RDMACH_OK) {
        slot_posted(ch, c, op, op, "slot write (zero-copy)");
        op->up_ctx = op_ctx;
    }
    return slot_sent(ch, c, seq, credits, st);
}

void rch_net_zc_done(struct rch_rdma_chan *ch, struct rch_net_op *op, rdmach_status_t status)
{
    void *ctx = op->up_ctx;
    if (ctx == NULL)
        return;   /* already reported (its connection failed first) */
    op->up_ctx = NULL;
    ch->up.rma_done(ch->up.ctx, ctx, status);
}

unsigned rch_net_zc_fail_conn(struct rch_rdma_chan *ch, struct rch_net_conn *c, rdmach_status_t status)
{
    unsigned n = 0;
    if (c->slot_ops == NULL)
        return 0;
    for (uint32_t i = 0; i < ch->nslots; i++)
        if (c->slot_ops[i].up_ctx != NULL) {
            rch_net_zc_done(ch, &c->slot_ops[i], status);
            n++;
        }
    return n;
}

void rch_net_send_bye(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    struct rch_net_conn *cc;
    if (c->state != RCH_NET_C_READY || slot_claim(ch, c->rank, "bye", &cc) != RDMACH_OK)
        return;   /* not now (no credit, a queued put/get, the slot's write): the closer retries */
    uint32_t seq = c->tx.seq;
    size_t bytes = rch_net_ring_fill(rch_net_ring_tx_slot(&c->tx, seq), seq, RCH_NET_SLOT_BYE, c->rx.seq, NULL,
                                     0, 0);
    if (post_slot(ch, c, seq, bytes) != RDMACH_OK)
        return;
    c->tx.seq = seq + 1;
    rch_net_ready_del(ch, c);
    c->state = RCH_NET_C_CLOSED;
    RCH_DEBUG("net", "rank %d: BYE sent", c->rank);
}

/* ---- arrivals ---- */

/* ---- direct receive (channel.h recv_peek / recv_done) ---- */

/* The next slot of `peer`'s ring if it holds a DATA message. A waiting rank
 * spins on this: with direct_rx it is one compare of ring memory; otherwise
 * (tcp moves bytes inside the CQ read; notify data/send announce slots by
 * completions) the CQ is reaped first. The slot's piggybacked credits are
 * taken here (idempotent: rch_net_ring_progress takes them again if the
 * message goes that way). Anything but a well-formed DATA slot is left to
 * rch_net_ring_progress, which takes a BYE and reports a malformed slot. */
rdmach_status_t rch_net_recv_peek(struct rch_rdma_chan *ch, int peer, const void **pkt, size_t *len)
{
    struct rch_net_conn *c;
    if (RCH_UNLIKELY((unsigned)peer >= (unsigned)ch->size || !(c = &ch->conns[peer])->is_peer))
        return RDMACH_ERR_INVALID_ARG;
    if (RCH_UNLIKELY(!ch->direct_rx))
        rch_net_reap_cq(ch);
    if (RCH_UNLIKELY(c->state != RCH_NET_C_READY || ch->closing))
        return RDMACH_ERR_UNSUPPORTED;
    if (ch->notify != RCH_NET_NOTIFY_POLL && c->rx.seq == c->rx.notified)
        return RDMACH_AGAIN;
    struct rch_net_slot_hdr h;
    const unsigned char *payload;
    const char *why = NULL;
    rdmach_status_t st = rch_net_ring_rx_peek(&c->rx, &h, &payload, &why);
    if (RCH_LIKELY(st == RDMACH_AGAIN))
        return st;
    if (RCH_UNLIKELY(st != RDMACH_OK || h.op != RCH_NET_SLOT_DATA ||
                     rch_net_ring_tx_credit(&c->tx, h.credits) != RDMACH_OK))
        return RDMACH_ERR_UNSUPPORTED;
    *pkt = payload;
    *len = h.len;
    return RDMACH_OK;
}

/* The slot rch_net_recv_peek returned was taken by the device: consume it
 * as rch_net_ring_progress does after its upcall. */
void rch_net_recv_done(struct rch_rdma_chan *ch, int peer)
{
    struct rch_net_conn *c = &ch->conns[peer];
    struct rch_net_slot_hdr h;
    const unsigned char *payload;
    const char *why = NULL;
    if (RCH_UNLIKELY(rch_net_ring_rx_peek(&c->rx, &h, &payload, &why) != RDMACH_OK)) {
        RCH_WARN("net", "rank %d: recv_done without a message peeked; ignored", peer);
        return;
    }
    c->received++;
    rch_net_ring_rx_consume(&c->rx, &h);
    if ((uint32_t)(c->rx.seq - c->rx.returned) >= ch->nslots / 2)
        send_crdt(ch, c);
}

unsigned rch_net_ring_progress(struct rch_rdma_chan *ch, struct rch_net_conn *c, unsigned max)
{
    unsigned n = 0;
    while (n < max && c->state == RCH_NET_C_READY) {
        if (ch->notify != RCH_NET_NOTIFY_POLL && c->rx.seq == c->rx.notified)
            break;
        struct rch_net_slot_hdr h;
        const unsigned char *payload;
        const char *why = NULL;
        rdmach_status_t st = rch_net_ring_rx_peek(&c->rx, &h, &payload, &why);
        if (st == RDMACH_AGAIN)
            break;
        if (RCH_UNLIKELY(st != RDMACH_OK)) {
            rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, why);
            break;
        }
        if (RCH_UNLIKELY(rch_net_ring_tx_credit(&c->tx, h.credits) != RDMACH_OK)) {
            rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, "the peer returned more credits than it was given");
            break;
        }
        if (RCH_LIKELY(h.op == RCH_NET_SLOT_DATA)) {
            c->received++;
            if (RCH_LIKELY(!ch->closing))
                ch->up.recv(ch->up.ctx, c->rank, payload, h.len);
        }
        rch_net_ring_rx_consume(&c->rx, &h);
        n++;
        if (h.op == RCH_NET_SLOT_BYE) {
            c->bye_received = 1;
            rch_net_ready_del(ch, c);
            c->state = RCH_NET_C_CLOSED;
            RCH_DEBUG("net", "rank %d: BYE received (it closed its channel)", c->rank);
            /* it has finished (a channel closes at the end of finalize):
             * its exit, which the device may see first, is no failure */
            if (!ch->closing && ch->up.peer_left)
                ch->up.peer_left(ch->up.ctx, c->rank);
            return n;
        }
    }
    /* Only a consumption can make half a ring owed (`returned` never goes
     * back): a pass that took nothing has no credit to return. */
    if (n && c->state == RCH_NET_C_READY && (uint32_t)(c->rx.seq - c->rx.returned) >= ch->nslots / 2)
        send_crdt(ch, c);
    return n;
}
