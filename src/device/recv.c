/*
 * The receive side: irecv, iprobe, matched probe, and the packets' way in.
 *
 * Every packet arrives through rch_dev_up_recv (the channel's recv upcall, or
 * the loopback): the sending rank is checked against the channel it came on,
 * the packet is validated (pkt.c) and dispatched through a table indexed by
 * opcode. Credits piggybacked in the header are taken first, the credit owed
 * for the packet counted after, and an explicit CRDT sent once half the window
 * is owed.
 *
 * EAGER: the earliest posted receive that matches gets the data copied in
 * (the part that fits; TRUNCATE beyond); with no match the data is copied
 * into an unexpected descriptor. A SYNC eager is acknowledged (SYNC_ACK) when
 * it matches, whenever that is.
 */
#include <string.h>
#include "base/log.h"
#include "device/cs.h"
#include "device/dev_impl.h"
#include "device/stats.h"

#define DROP_WARN_MAX 10   /* warnings per peer; then counted silently */

static void drop(struct rch_dev_peer *p, int peer, size_t len, unsigned op, const char *why)
{
    rch_dev.dropped++;
    uint64_t n = p ? ++p->dropped : rch_dev.dropped;
    if (n <= DROP_WARN_MAX)
        RCH_WARN("dev", "dropped a bad packet from rank %d (%zu bytes, opcode %u): %s%s", peer, len, op, why,
                 n == DROP_WARN_MAX ? " (further drops from this rank are not reported)" : "");
}

/* A matched receive gets eager data. */
static __attribute__((noinline)) void deliver(struct rch_dev_ireq *r, int peer, int32_t src, int32_t tag,
                                              const void *data, size_t len)
{
    size_t n = len <= r->len ? len : r->len;
    if (n)
        memcpy(r->buf, data, n);
    r->peer = peer;
    r->pub.source = src;
    r->pub.tag = tag;
    r->pub.bytes = n;
    r->pub.msg_bytes = len;
    if (RCH_UNLIKELY(n < len)) {
        rch_base_err(RDMACH_ERR_TRUNCATE, "a message of %zu bytes from rank %d (tag %d) was truncated to the "
                     "%zu-byte receive buffer", len, src, tag, r->len);
        rch_dev_ireq_complete(r, RDMACH_ERR_TRUNCATE);
    } else {
        rch_dev_ireq_complete(r, RDMACH_OK);
    }
}

static __attribute__((noinline)) void send_sync_ack(struct rch_dev_peer *p, uint64_t sreq)
{
    struct rch_pkt_sync_ack a = { .b = rch_pkt_base_make(RCH_PKT_SYNC_ACK, 0), .sreq = sreq };
    rch_dev_send_ctl(p, &a, sizeof(a));
}

/* Copy a payload; short ones (the latency case) without a libc call, longer
 * ones with vector moves (from a shared-memory ring, `rep movsb` is slower:
 * base/copy.c). */
static inline void copy_payload(void *dst, const void *src, size_t n)
{
    if (n <= 16) {
        if (n >= 8) {
            uint64_t a, b;
            memcpy(&a, src, 8);
            memcpy(&b, (const char *)src + n - 8, 8);
            memcpy(dst, &a, 8);
            memcpy((char *)dst + n - 8, &b, 8);
        } else if (n >= 4) {
            uint32_t a, b;
            memcpy(&a, src, 4);
            memcpy(&b, (const char *)src + n - 4, 4);
            memcpy(dst, &a, 4);
            memcpy((char *)dst + n - 4, &b, 4);
        } else {
            for (size_t i = 0; i < n; i++)
                ((char *)dst)[i] = ((const char *)src)[i];
        }
        return;
    }
    rch_base_copy_lines(dst, src, n);
}

/* rch_dev_ireq_complete(r, RDMACH_OK) with its common case inline: no
 * callback, not detached. */
static inline void complete_ok(struct rch_dev_ireq *r)
{
    if (RCH_LIKELY(r->pub.on_complete == NULL && !r->freed)) {
        r->pub.err = RDMACH_OK;
        r->state = RCH_DEV_S_DONE;
        __atomic_store_n(&r->pub.done, 1, __ATOMIC_RELEASE);
    } else {
        rch_dev_ireq_complete(r, RDMACH_OK);
    }
}

/* An unexpected EAGER message: copied into a descriptor. */
static __attribute__((noinline)) void eager_unexpected(struct rch_dev_peer *p, const struct rch_pkt_eager *e,
                                                       const char *data, uint16_t flags, uint64_t sreq);

/* An EAGER message (header already validated) arrived from p. Inline in the
 * receive fast path: matching the one posted receive, the copy and the
 * completion are most of the receiver's part of a small message's latency. */
static inline __attribute__((always_inline)) void eager_arrived(struct rch_dev_peer *p,
                                                                const struct rch_pkt_eager *e,
                                                                const char *data, uint16_t flags,
                                                                uint64_t sreq)
{
    p->rx_seq++;   /* its number (pkt.h CANCEL_REQ) */
    p->rx_bytes += e->len;
    struct rch_match_entry *me = rch_match_take_posted(&rch_dev.posted, e->ctx, e->src, e->tag);
    if (RCH_LIKELY(me != NULL)) {
        struct rch_dev_ireq *r = rch_container_of(me, struct rch_dev_ireq, me);
        if (RCH_LIKELY(e->len <= r->len)) {
            copy_payload(r->buf, data, e->len);
            r->peer = p->rank;
            r->pub.source = e->src;
            r->pub.tag = e->tag;
            r->pub.bytes = e->len;
            r->pub.msg_bytes = e->len;
            complete_ok(r);
        } else {
            deliver(r, p->rank, e->src, e->tag, data, e->len);
        }
        if (RCH_UNLIKELY(sreq != 0))
            send_sync_ack(p, sreq);
        return;
    }
    eager_unexpected(p, e, data, flags, sreq);
}

static void eager_unexpected(struct rch_dev_peer *p, const struct rch_pkt_eager *e, const char *data,
                             uint16_t flags, uint64_t sreq)
{
    struct rch_dev_unexp *u = rch_dev_unexp_alloc(e->len);
    if (u == NULL) {
        RCH_ERROR("dev", "%s", rdmach_last_error());
        rch_boot_abort(1, "device: out of memory for an unexpected message");
    }
    u->me.ctx = e->ctx;
    u->me.src = e->src;
    u->me.tag = e->tag;
    u->peer = p->rank;
    u->op = RCH_PKT_EAGER;
    u->flags = flags;
    u->size = e->len;
    u->sreq = sreq;
    u->seq = p->rx_seq;
    if (e->len)
        copy_payload(u->data, data, e->len);
    rch_match_add_unexp(&rch_dev.unexp, &u->me);
    rch_dev_stats_unexp_queued(u);
}

static void on_eager(struct rch_dev_peer *p, const void *pkt, size_t len, const struct rch_pkt_base *b)
{
    struct rch_pkt_eager e;
    size_t hlen = sizeof(e);
    uint64_t sreq = 0;
    memcpy(&e, pkt, sizeof(e));
    if (b->flags & RCH_PKT_F_SYNC) {
        memcpy(&sreq, (const char *)pkt + offsetof(struct rch_pkt_eager_sync, sreq), sizeof(sreq));
        hlen = sizeof(struct rch_pkt_eager_sync);
    }
    eager_arrived(p, &e, (const char *)pkt + hlen, b->flags, sreq);
}

static void on_sync_ack(struct rch_dev_peer *p, const void *pkt, size_t len, const struct rch_pkt_base *b)
{
    struct rch_pkt_sync_ack a;
    memcpy(&a, pkt, sizeof(a));
    struct rch_dev_ireq *r = rch_dev_ireq_lookup(a.sreq);
    if (r == NULL || r->pub.kind != RCH_DEV_REQ_SEND || r->state != RCH_DEV_S_SEND_WAIT_ACK ||
        r->peer != p->rank) {
        drop(p, p->rank, len, b->op, "SYNC_ACK for no synchronous send waiting on this rank");
        return;
    }
    rch_dev_ireq_finish(r, RDMACH_OK);
}

static void on_nothing(struct rch_dev_peer *p, const void *pkt, size_t len, const struct rch_pkt_base *b)
{
    /* CRDT and NOOP: the credits in the header were taken by the dispatcher. */
}

static void on_rndv_req(struct rch_dev_peer *p, const void *pkt, size_t len, const struct rch_pkt_base *b)
{
    rch_dev_rndv_on_req(p, pkt, len);
}
static void on_rndv_rsp(struct rch_dev_peer *p, const void *pkt, size_t len, const struct rch_pkt_base *b)
{
    rch_dev_rndv_on_rsp(p, pkt, len);
}
static void on_rndv_data(struct rch_dev_peer *p, const void *pkt, size_t len, const struct rch_pkt_base *b)
{
    rch_dev_rndv_on_data(p, pkt, len);
}
static void on_rndv_fin(struct rch_dev_peer *p, const void *pkt, size_t len, const struct rch_pkt_base *b)
{
    rch_dev_rndv_on_fin(p, pkt, len);
}
static void on_rma(struct rch_dev_peer *p, const void *pkt, size_t len, const struct rch_pkt_base *b)
{
    rch_dev_rma_on_pkt(p, pkt, len);
}
static void on_cancel_req(struct rch_dev_peer *p, const void *pkt, size_t len, const struct rch_pkt_base *b)
{
    rch_dev_cancel_on_req(p, pkt, len);
}
static void on_cancel_rsp(struct rch_dev_peer *p, const void *pkt, size_t len, const struct rch_pkt_base *b)
{
    rch_dev_cancel_on_rsp(p, pkt, len);
}

typedef void (*pkt_handler_fn)(struct rch_dev_peer *p, const void *pkt, size_t len,
                               const struct rch_pkt_base *b);

static const pkt_handler_fn handlers[RCH_PKT_OP_MAX] = {
    [RCH_PKT_NOOP]      = on_nothing,
    [RCH_PKT_EAGER]     = on_eager,
    [RCH_PKT_RNDV_REQ]  = on_rndv_req,
    [RCH_PKT_RNDV_RSP]  = on_rndv_rsp,
    [RCH_PKT_RNDV_DATA] = on_rndv_data,
    [RCH_PKT_RNDV_FIN]  = on_rndv_fin,
    [RCH_PKT_SYNC_ACK]  = on_sync_ack,
    [RCH_PKT_CRDT]      = on_nothing,
    [RCH_PKT_RMA]       = on_rma,
    [RCH_PKT_CANCEL_REQ] = on_cancel_req,
    [RCH_PKT_CANCEL_RSP] = on_cancel_rsp,
};

void rch_dev_bad_packet(struct rch_dev_peer *p, size_t len, unsigned op, const char *why)
{
    drop(p, p->rank, len, op, why);
}

/* Credits (channels that need them): a packet arrived carrying `credits`
 * of ours back (and owing one if it is `credited`); then, once enough are
 * owed, return them. */
static inline void flow_arrived(struct rch_dev_peer *p, uint16_t credits, int credited)
{
    if (p->flow) {
        p->credits += credits;
        p->owed += credited;
    }
}

static inline void flow_return(struct rch_dev_peer *p)
{
    if (p->flow && p->owed >= p->crdt_thresh)
        rch_dev_send_crdt(p);
}

/* Everything but the common case: validation with reasons, all opcodes. */
static void up_recv_slow(void *ctx, int peer, const void *pkt, size_t len)
{
    struct rch_pkt_base b;
    const char *why;
    if (peer < 0 || peer >= rch_dev.size || rch_dev.peers[peer].dchan != ctx) {
        drop(NULL, peer, len, 0, "the channel does not serve that rank");
        return;
    }
    struct rch_dev_peer *p = &rch_dev.peers[peer];
    if (rch_pkt_check(pkt, len, &b, &why) != RDMACH_OK) {
        drop(p, peer, len, len >= 2 ? ((const uint8_t *)pkt)[1] : 0, why);
        return;
    }
    if (p->dead)
        return;   /* late packets of a failed peer */
    flow_arrived(p, b.credits, rch_pkt_credited(b.op) != 0);
    handlers[b.op](p, pkt, len, &b);
    flow_return(p);
}

/* The first four bytes of a plain EAGER header (version, opcode, no flags). */
static inline uint32_t eager_word0(void)
{
    struct rch_pkt_base b = rch_pkt_base_make(RCH_PKT_EAGER, 0);
    uint32_t w;
    memcpy(&w, &b, sizeof(w));
    return w;
}

/* Peeks between full progress passes in rch_dev_recv_direct: the other
 * channels, completions, queued sends and connection events are served at
 * least this often while a rank waits on one peer (a peek is a few loads;
 * 128 of them take well under a microsecond natively, 5-10 under TCG). The
 * peeks have no pause between them: the time from a message's arrival to
 * its detection is then a load, not a pause (~200 ns under TCG). */
#define DIRECT_PROGRESS_EVERY 128

rdmach_status_t rch_dev_recv_direct(void *buf, size_t len, int world, int src, int tag, uint32_t ctx,
                                    int *out_source, int *out_tag, size_t *out_bytes)
{
    if (RCH_UNLIKELY((unsigned)world >= (unsigned)rch_dev.size || src < 0 || (buf == NULL && len != 0) ||
                     !rch_dev.initialized || (rch_dev.oversubscribed | rch_dev_cs_on)))
        return RDMACH_AGAIN;
    struct rch_dev_peer *p = &rch_dev.peers[world];
    const uint32_t w0 = eager_word0();
    /* As long as rch_dev_wait's spin phase, roughly: a peek costs a fraction
     * of a progress pass. Then the general path's wait takes over (and
     * yields, then sleeps, as its policy says). */
    const long max_spins = (long)rch_dev.spin_count * 16;
    for (long spins = 0; spins < max_spins; spins++) {
        /* An earlier receive, or a message already here, decides first. */
        if (RCH_UNLIKELY((rch_dev.unexp.count | rch_dev.posted.count) != 0 || p->dead))
            return RDMACH_AGAIN;
        const void *pkt;
        size_t plen;
        rdmach_status_t st = p->ops->recv_peek(p->chan, world, &pkt, &plen);
        if (st == RDMACH_OK) {
            struct rch_pkt_eager e;
            uint32_t hw0;
            if (plen < sizeof(e))
                return RDMACH_AGAIN;
            memcpy(&e, pkt, sizeof(e));
            memcpy(&hw0, &e.b, sizeof(hw0));
            /* Anything else (another tag or communicator, a protocol packet,
             * a synchronous send, truncation) goes the general way. */
            if (hw0 != w0 || e.len != plen - sizeof(e) || e.ctx != ctx || e.src != src ||
                (tag != RCH_DEV_ANY_TAG && e.tag != tag) || e.len > len)
                return RDMACH_AGAIN;
            copy_payload(buf, (const char *)pkt + sizeof(e), e.len);
            p->rx_seq++;
            p->rx_bytes += e.len;
            flow_arrived(p, e.b.credits, 1);
            p->ops->recv_done(p->chan, world);
            flow_return(p);
            *out_source = e.src;
            *out_tag = e.tag;
            *out_bytes = e.len;
            rch_dev.direct_recvs++;
            return RDMACH_OK;
        }
        if (st != RDMACH_AGAIN)
            return RDMACH_AGAIN;
        if (spins % DIRECT_PROGRESS_EVERY == DIRECT_PROGRESS_EVERY - 1 && rch_dev_progress())
            spins = 0;
    }
    return RDMACH_AGAIN;
}

uint64_t rch_dev_stat_direct_recvs(void)
{
    return rch_dev.direct_recvs;
}

/*
 * The channel's recv upcall. Fast path: a plain EAGER packet from a live peer
 * of this channel, validated by one compare of version+opcode+flags and the
 * length check — exactly what rch_pkt_check would accept for it. Anything
 * else takes the general path.
 */
void rch_dev_up_recv(void *ctx, int peer, const void *pkt, size_t len)
{
    if (RCH_LIKELY(len >= sizeof(struct rch_pkt_eager) && (unsigned)peer < (unsigned)rch_dev.size)) {
        struct rch_pkt_eager e;
        uint32_t w0;
        memcpy(&e, pkt, sizeof(e));
        memcpy(&w0, &e.b, sizeof(w0));
        struct rch_dev_peer *p = &rch_dev.peers[peer];
        if (RCH_LIKELY(w0 == eager_word0() && e.len == len - sizeof(e) && e.src >= 0 && p->dchan == ctx &&
                       !p->dead)) {
            flow_arrived(p, e.b.credits, 1);
            eager_arrived(p, &e, (const char *)pkt + sizeof(e), 0, 0);
            flow_return(p);
            return;
        }
    }
    up_recv_slow(ctx, peer, pkt, len);
}

void rch_dev_up_rma_done(void *ctx, void *op_ctx, rdmach_status_t status)
{
    struct rch_dev_ireq *r = rch_dev_ireq_lookup((uint64_t)(uintptr_t)op_ctx);
    if (r == NULL) {
        RCH_WARN("dev", "rma_done for a request that no longer exists (%s)", rdmach_strerror(status));
        return;
    }
    if (r->state == RCH_DEV_S_NATIVE) {
        rch_dev_native_rma_done(r, status);
        return;
    }
    rch_dev_rndv_rma_done(r, status);
}

void rch_dev_up_peer_failed(void *ctx, int peer, rdmach_status_t status)
{
    if (peer < 0 || peer >= rch_dev.size || rch_dev.peers[peer].dchan != ctx) {
        RCH_WARN("dev", "a channel reported the failure of rank %d, which it does not serve", peer);
        return;
    }
    rch_dev_peer_failed(peer, status);
}

void rch_dev_up_peer_left(void *ctx, int peer)
{
    if (peer >= 0 && peer < rch_dev.size && rch_dev.peers[peer].dchan == ctx)
        rch_dev_peer_left(peer);
}

/* ---- the receive API ---- */

/* A receive matched an unexpected message. */
static void take_unexp(struct rch_dev_ireq *r, struct rch_dev_unexp *u)
{
    struct rch_dev_peer *p = &rch_dev.peers[u->peer];
    if (u->op == RCH_PKT_EAGER) {
        deliver(r, u->peer, u->me.src, u->me.tag, u->data, u->size);
        if (u->flags & RCH_PKT_F_SYNC)
            send_sync_ack(p, u->sreq);
    } else {
        struct rch_pkt_rndv_req q;
        memset(&q, 0, sizeof(q));
        q.b = rch_pkt_base_make(RCH_PKT_RNDV_REQ, u->flags);
        q.ctx = u->me.ctx;
        q.src = u->me.src;
        q.tag = u->me.tag;
        q.size = u->size;
        q.sreq = u->sreq;
        q.saddr = u->saddr;
        q.rkey.len = u->rkey.len;
        memcpy(q.rkey.bytes, u->rkey.bytes, sizeof(q.rkey.bytes));
        rch_dev_rndv_matched(r, p, &q);
    }
    rch_dev_unexp_release(u);
}

/*
 * Can nothing arrive from src any more? A named source that failed or left
 * (a receive from a rank that has exited is erroneous, but must not hang);
 * for MPI_ANY_SOURCE, a member of the communicator's (remote) group that
 * failed — not one that finished and left: the others may still send. This
 * is the rule a receive posted when the failure was found already follows
 * (rch_dev_peer_failed), kept for one posted or probed later. Only called
 * once some peer failed or left.
 */
static rdmach_status_t source_gone(const char *what, uint32_t ctx, int src, int *who)   /* *who: that rank */
{
    if (src != RCH_DEV_ANY_SOURCE) {
        int w = rch_dev_ctx_world(ctx, src);
        if (w < 0 || !rch_dev.peers[w].dead)
            return RDMACH_OK;
        *who = w;
        return rch_base_err(RDMACH_ERR_PEER_DEAD, "%s: source %d (world rank %d) has %s", what, src, w,
                            rch_dev.peers[w].left ? "finished and exited" : "failed");
    }
    if (rch_dev.failed_peer < 0 || ctx >= rch_dev.nctxmaps)
        return RDMACH_OK;
    const struct rch_dev_ctxmap *m = &rch_dev.ctxmaps[ctx];
    for (int i = 0; i < m->size; i++) {
        int w = m->world_of[i];
        if (w >= 0 && w < rch_dev.size && rch_dev.peers[w].dead && !rch_dev.peers[w].left) {
            *who = w;
            return rch_base_err(RDMACH_ERR_PEER_DEAD,
                                "%s: MPI_ANY_SOURCE, and rank %d of the communicator (world rank %d) has failed",
                                what, i, w);
        }
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dev_irecv(void *buf, size_t len, int src, int tag, uint32_t ctx, struct rch_dev_req **req)
{
    if (RCH_UNLIKELY(req == NULL || (buf == NULL && len != 0) || (src < 0 && src != RCH_DEV_ANY_SOURCE) ||
                     rch_dev.size == 0)) {
        if (!rch_dev.initialized)
            return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "irecv: the device is not initialized");
        if (req == NULL)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "irecv: req is NULL");
        if (buf == NULL && len != 0)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "irecv: buf is NULL with len %zu", len);
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "irecv: src %d is neither a rank nor ANY_SOURCE", src);
    }
    struct rch_dev_ireq *r = rch_dev_ireq_alloc(RCH_DEV_REQ_RECV);
    if (RCH_UNLIKELY(r == NULL))
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "irecv: no memory for a request");
    r->buf = buf;
    r->len = len;
    *req = &r->pub;
    if (rch_dev.unexp.count) {
        struct rch_match_entry *me = rch_match_find_unexp(&rch_dev.unexp, ctx, src, tag, 1);
        if (me) {
            take_unexp(r, rch_container_of(me, struct rch_dev_unexp, me));
            return RDMACH_OK;
        }
    }
    if (RCH_UNLIKELY(rch_dev.failed_peer >= 0 || rch_dev.nleft) &&
        source_gone("irecv", ctx, src, &r->peer) != RDMACH_OK) {   /* the peer: its failure names it */
        rch_dev_ireq_complete(r, RDMACH_ERR_PEER_DEAD);
        return RDMACH_OK;
    }
    r->me.ctx = ctx;
    r->me.src = src;
    r->me.tag = tag;
    r->state = RCH_DEV_S_RECV_POSTED;
    rch_match_post(&rch_dev.posted, &r->me);
    return RDMACH_OK;
}

rdmach_status_t rch_dev_iprobe(int src, int tag, uint32_t ctx, int *found, int *out_source, int *out_tag,
                               size_t *out_bytes)
{
    if (found == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "iprobe: found is NULL");
    if (src < 0 && src != RCH_DEV_ANY_SOURCE)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "iprobe: src %d is neither a rank nor ANY_SOURCE", src);
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "iprobe: the device is not initialized");
    struct rch_match_entry *me = rch_match_find_unexp(&rch_dev.unexp, ctx, src, tag, 0);
    if (me == NULL) {
        rch_dev_progress();
        me = rch_match_find_unexp(&rch_dev.unexp, ctx, src, tag, 0);
    }
    *found = me != NULL;
    if (RCH_UNLIKELY(!me && (rch_dev.failed_peer >= 0 || rch_dev.nleft)))
        return source_gone("iprobe", ctx, src, &(int){ -1 });
    if (me) {
        const struct rch_dev_unexp *u = rch_container_of(me, struct rch_dev_unexp, me);
        if (out_source)
            *out_source = u->me.src;
        if (out_tag)
            *out_tag = u->me.tag;
        if (out_bytes)
            *out_bytes = u->size;
    }
    return RDMACH_OK;
}

/* ---- matched probe (dev.h: rch_dev_improbe, rch_dev_imrecv) ----
 * A matched message is its unexpected descriptor, taken off the queue, so
 * no other receive or probe can see it; imrecv runs the code of an irecv
 * that finds it (take_unexp): eager data copied, a SYNC eager acknowledged,
 * a rendezvous started. */
static struct rch_dev_unexp *unexp_of(struct rch_dev_msg *m)
{
    return (struct rch_dev_unexp *)(void *)m;
}

rdmach_status_t rch_dev_improbe(int src, int tag, uint32_t ctx, struct rch_dev_msg **msg, int *out_source,
                                int *out_tag, size_t *out_bytes)
{
    if (msg == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "improbe: msg is NULL");
    *msg = NULL;
    if (src < 0 && src != RCH_DEV_ANY_SOURCE)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "improbe: src %d is neither a rank nor ANY_SOURCE", src);
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "improbe: the device is not initialized");
    struct rch_match_entry *me = rch_match_find_unexp(&rch_dev.unexp, ctx, src, tag, 1);
    if (me == NULL) {
        rch_dev_progress();
        me = rch_match_find_unexp(&rch_dev.unexp, ctx, src, tag, 1);
    }
    if (RCH_UNLIKELY(!me && (rch_dev.failed_peer >= 0 || rch_dev.nleft)))
        return source_gone("improbe", ctx, src, &(int){ -1 });
    if (me) {
        struct rch_dev_unexp *u = rch_container_of(me, struct rch_dev_unexp, me);
        if (out_source)
            *out_source = u->me.src;
        if (out_tag)
            *out_tag = u->me.tag;
        if (out_bytes)
            *out_bytes = u->size;
        *msg = (struct rch_dev_msg *)(void *)u;
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dev_imrecv(void *buf, size_t len, struct rch_dev_msg *msg, struct rch_dev_req **req)
{
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "imrecv: the device is not initialized");
    if (msg == NULL || req == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "imrecv: %s is NULL", msg == NULL ? "msg" : "req");
    if (buf == NULL && len != 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "imrecv: buf is NULL with len %zu", len);
    struct rch_dev_ireq *r = rch_dev_ireq_alloc(RCH_DEV_REQ_RECV);
    if (r == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "imrecv: no memory for a request");
    r->buf = buf;
    r->len = len;
    *req = &r->pub;
    take_unexp(r, unexp_of(msg));
    return RDMACH_OK;
}
