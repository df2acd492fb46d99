/*
 * The network channel: open/close, publish/connect, capabilities and the
 * peer records. The same code serves every provider; a provider's channel
 * table (rch_rdma_ofi_ops in ofi/ofi_chan.c, rch_rdma_verbs_ops in
 * verbs/verbs_chan.c) binds these functions to its provider table.
 *
 * Start-up, per rank:
 *   open      the provider (domain, queues, listener), a connection record
 *             per peer, the registration cache, a random 64-bit secret
 *   publish   put {provider, listener address, secret} under "rdmach-net"
 *   (fence)
 *   connect   lazy (default): nothing yet, the first send() to a peer starts
 *             it; eager: clients start connecting now, servers wait for them
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/net/net.h"

const char *const rch_net_state_name[RCH_NET_C_STATE_MAX] = {
    [RCH_NET_C_IDLE] = "idle",
    [RCH_NET_C_REVERSE] = "reverse-requested",
    [RCH_NET_C_REVERSE_WAIT] = "waiting-for-client",
    [RCH_NET_C_CONNECTING] = "connecting",
    [RCH_NET_C_ACCEPTED] = "accepted-waiting-for-noop",
    [RCH_NET_C_READY] = "ready",
    [RCH_NET_C_CLOSED] = "closed",
    [RCH_NET_C_FAILED] = "failed",
};

static rdmach_status_t check_args(const struct rch_rdma_open_args *a, const char *name)
{
    const struct rch_boot_info *b = a ? a->boot : NULL;
    if (!a || !b)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s open: no %s", name, a ? "boot info" : "arguments");
    if (b->size < 1 || b->rank < 0 || b->rank >= b->size)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s open: rank %d of %d", name, b->rank, b->size);
    if (a->npeers < 0 || (a->npeers > 0 && !a->peers))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s open: peers: %d ranks, list %p", name, a->npeers,
                            (const void *)a->peers);
    for (int i = 0; i < a->npeers; i++)
        if (a->peers[i] < 0 || a->peers[i] >= b->size)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s open: peer %d is not a rank of 0..%d", name,
                                a->peers[i], b->size - 1);
    if (!a->up.recv || !a->up.rma_done || !a->up.peer_failed)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s open: an upcall is missing", name);
    return RDMACH_OK;
}

static rdmach_status_t check_geometry(void)
{
    uint32_t s = (uint32_t)rch_tun.net_slot_size;
    int n = rch_tun.net_slots;
    if (s != 0 && (s % 64 != 0 || s < 256))
        return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_NET_SLOT_SIZE: %u is not a multiple of 64 of at least 256 "
                            "(or 0: automatic)", s);
    if (n < 2 || (n & (n - 1)) != 0 || n > 32768)
        return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_NET_SLOTS: %d is not a power of two from 2 to 32768", n);
    return RDMACH_OK;
}

/* Over tcp a rendezvous costs two or three round trips of a few
 * microseconds each and saves no copy (the provider copies through the
 * socket either way), so eager goes up to 64 KiB inclusive, as in Open MPI's
 * tcp transport; a pinning provider keeps 16 KiB slots (the rings are locked
 * memory, per peer and direction) unless eager zero-copy is on. */
uint32_t rch_net_slot_size(const struct rch_net_prov_caps *pc, int zcopy)
{
    if (rch_tun.net_slot_size)
        return (uint32_t)rch_tun.net_slot_size;
    return zcopy || !pc->pins_memory ? RCH_NET_SLOT_LARGE : RCH_NET_SLOT_PINNED;
}

/* Eager zero-copy (rch_net_send_zc) gathers {slot and packet headers,
 * the user's buffer, the tail marker} into one write: it needs a provider
 * that gathers 3 buffers, and a receiver that polls the slot's markers (the
 * tail lands after the payload of the same write). auto: the provider's
 * profile (caps.zcopy: where it was measured faster than rendezvous). */
int rch_net_zcopy_on(const struct rch_net_prov_caps *pc, int notify)
{
    if (rch_tun.net_zcopy == RCH_ZCOPY_OFF)
        return 0;
    int can = pc->writev_max >= 3 && notify == RCH_NET_NOTIFY_POLL;
    return can && (rch_tun.net_zcopy == RCH_ZCOPY_ON || pc->zcopy);
}

static rdmach_status_t choose_notify(struct rch_rdma_chan *ch)
{
    const struct rch_net_prov_caps *c = ch->pcaps;
    switch (rch_tun.net_notify) {
    case RCH_NOTIFY_AUTO:
        ch->notify = c->in_order ? RCH_NET_NOTIFY_POLL : c->write_data ? RCH_NET_NOTIFY_DATA : RCH_NET_NOTIFY_SEND;
        return RDMACH_OK;
    case RCH_NOTIFY_POLL:
        if (!c->in_order)
            return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_NET_NOTIFY=poll: %s does not place writes in order, "
                                "so polling memory could take a half-written slot (use data or send)", c->name);
        ch->notify = RCH_NET_NOTIFY_POLL;
        return RDMACH_OK;
    case RCH_NOTIFY_DATA:
        if (!c->write_data)
            return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_NET_NOTIFY=data: %s has no write with immediate "
                                "data (use poll or send)", c->name);
        ch->notify = RCH_NET_NOTIFY_DATA;
        return RDMACH_OK;
    default:
        ch->notify = RCH_NET_NOTIFY_SEND;
        return RDMACH_OK;
    }
}

static rdmach_status_t rcache_reg(void *arg, void *addr, size_t len, struct rch_net_mr *mr)
{
    return rch_net_reg(arg, addr, len, mr);
}

static void rcache_dereg(void *arg, struct rch_net_mr *mr)
{
    struct rch_rdma_chan *ch = arg;
    ch->pops->mr_dereg(ch->prov, mr);
}

static void free_chan(struct rch_rdma_chan *ch)
{
    if (ch->conns) {
        for (int r = 0; r < ch->size; r++)
            if (ch->conns[r].is_peer)
                rch_net_conn_free(ch, &ch->conns[r]);
    }
    if (ch->rcache_watched)
        rch_net_memhook_remove(&ch->rcache);
    if (ch->rcache_ready)
        rch_net_rcache_fini(&ch->rcache);
    rch_net_rma_fini(ch);
    if (ch->prov)
        ch->pops->close(ch->prov);
    free(ch->conns);
    free(ch->ready);
    free(ch->pending);
    free(ch);
}

rdmach_status_t rch_net_open(const struct rch_net_prov_ops *pops, const struct rch_rdma_ops *ops,
                             const struct rch_rdma_open_args *args, struct rch_rdma_chan **out)
{
    rdmach_status_t st = check_args(args, ops->name);
    if (st == RDMACH_OK)
        st = check_geometry();
    if (st != RDMACH_OK)
        return st;
    const struct rch_boot_info *b = args->boot;
    struct rch_rdma_chan *ch = calloc(1, sizeof(*ch));
    if (ch == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s open: no memory", ops->name);
    ch->ops = ops;
    ch->pops = pops;
    ch->up = args->up;
    ch->rank = b->rank;
    ch->size = ch->jobsize = b->size;
    ch->cap = b->size + rch_tun.dyn_max;
    ch->eager = rch_tun.connect == RCH_CONNECT_EAGER;
    ch->nslots = (uint32_t)rch_tun.net_slots;
    ch->rma_chunk = rch_tun.net_rma_chunk;
    ch->connect_timeout = rch_tun.net_connect_timeout;
    ch->conns = calloc((size_t)ch->cap, sizeof(*ch->conns));
    ch->ready = calloc((size_t)ch->cap, sizeof(*ch->ready));
    ch->pending = calloc((size_t)ch->cap, sizeof(*ch->pending));
    if (!ch->conns || !ch->ready || !ch->pending) {
        free_chan(ch);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s open: no memory for %d connections", ops->name, b->size);
    }
    do {
        if (getrandom(&ch->secret, sizeof(ch->secret), 0) != (ssize_t)sizeof(ch->secret))
            return free_chan(ch), rch_base_errno(errno, "%s open: getrandom", ops->name);
    } while (ch->secret == 0);

    st = pops->open(&ch->prov);
    if (st != RDMACH_OK) {
        free_chan(ch);
        return st;
    }
    ch->pcaps = pops->caps(ch->prov);
    /* Rails need the provider's read-after-write order (caps.rails > 1). */
    ch->nrails = ch->pcaps->rails > 1 ? ch->pcaps->rails : 1;
    if (rch_tun.net_rails > 0) {
        if (rch_tun.net_rails > 1 && ch->pcaps->rails <= 1)
            RCH_WARN("net", "RDMACH_NET_RAILS=%d: %s cannot stripe (no read-after-write order on an "
                     "endpoint, or not a byte stream); one connection per peer", rch_tun.net_rails,
                     ch->pcaps->name);
        else
            ch->nrails = rch_tun.net_rails;
    }
    ch->rail_min = rch_tun.net_rail_min;
    st = choose_notify(ch);
    ch->zcopy = rch_net_zcopy_on(ch->pcaps, ch->notify);
    ch->direct_rx = ch->notify == RCH_NET_NOTIFY_POLL && ch->pcaps->places_unpolled;
    if (rch_tun.net_zcopy == RCH_ZCOPY_ON && !ch->zcopy)
        RCH_WARN("net", "RDMACH_NET_ZCOPY=on: %s cannot (%s); large eager packets are copied", ch->pcaps->name,
                 ch->pcaps->writev_max < 3 ? "no write gathering 3 buffers" : "the ring is not polled");
    ch->slot_size = rch_net_slot_size(ch->pcaps, ch->zcopy);
    if (st == RDMACH_OK)
        st = rch_net_rma_init(ch);
    if (st == RDMACH_OK)
        st = rch_net_rcache_init(&ch->rcache, rch_tun.net_reg_cache, (unsigned)rch_tun.net_reg_cache_entries,
                                 rch_tun.net_reg_cache_size, rcache_reg, rcache_dereg, ch);
    if (st != RDMACH_OK) {
        free_chan(ch);
        return st;
    }
    ch->rcache_ready = 1;
    /* A cache nobody tells of freed memory could hand out a registration
     * of pages that are gone: without the monitor, no caching. */
    if (ch->rcache.enabled && rch_net_memhook_add(&ch->rcache) == RDMACH_OK)
        ch->rcache_watched = 1;
    else if (ch->rcache.enabled) {
        RCH_DEBUG("net", "%s: registrations are not cached: %s", ops->name, rdmach_last_error());
        ch->rcache.enabled = 0;
    }

    for (int r = 0; r < ch->cap; r++)
        rch_net_conn_init(&ch->conns[r], r, ch->rank);
    for (int i = 0; i < args->npeers; i++) {
        int p = args->peers[i];
        if (p == ch->rank)
            continue;
        ch->conns[p].is_peer = 1;
        ch->conns[p].server = ch->rank < p;
    }

    size_t payload = rch_net_ring_payload_max(ch->slot_size);
    ch->caps = (struct rch_rdma_caps){
        .max_msg = payload,
        .inline_size = ch->pcaps->inject_size > RCH_NET_SLOT_OVERHEAD
                           ? (ch->pcaps->inject_size - RCH_NET_SLOT_OVERHEAD < payload
                                  ? ch->pcaps->inject_size - RCH_NET_SLOT_OVERHEAD : payload)
                           : 0,
        .in_order = ch->pcaps->in_order,
        .write_with_data = ch->pcaps->write_data,
        .rma = 1,
        .needs_credits = 1,
        .onload = ch->pcaps->onload,
        .rndv_put = ch->pcaps->rndv_put,
        /* One connection placing in order (no data rails, which are not
         * ordered with the ring) and rch_net_send never overtaking a queued
         * put: a ring write after a put lands after its bytes. */
        .put_then_send = ch->pcaps->in_order && ch->nrails == 1,
        .zc_min = ch->zcopy ? (rch_tun.net_zcopy_min < payload ? rch_tun.net_zcopy_min : payload) : 0,
    };
    ch->next_timer = rch_base_wtime() + 0.25;
    RCH_DEBUG("net", "%s channel open on %s: %d peers, ring %u x %u B%s, notify %s, connect %s", ops->name,
              ch->pcaps->name, args->npeers, ch->nslots, ch->slot_size, ch->zcopy ? " (eager zero-copy)" : "",
              ch->notify == RCH_NET_NOTIFY_POLL ? "poll" : ch->notify == RCH_NET_NOTIFY_DATA ? "data" : "send",
              ch->eager ? "eager" : "lazy");
    *out = ch;
    return RDMACH_OK;
}

void rch_net_close(struct rch_rdma_chan *ch)
{
    if (ch == NULL)
        return;
    rch_net_conn_close_all(ch);
    rch_log_limit_flush(&ch->refuse_log, RCH_LOG_WARN, "net", "refused connection requests");
    free_chan(ch);
}

rdmach_status_t rch_net_self_record(struct rch_rdma_chan *ch, struct rch_net_kvs_rec *rec)
{
    memset(rec, 0, sizeof(*rec));
    rec->magic = RCH_NET_MAGIC;
    rec->version = RCH_NET_VERSION;
    rec->secret = ch->secret;
    snprintf(rec->prov, sizeof(rec->prov), "%s", ch->pops->name);
    size_t len = sizeof(rec->addr);
    rdmach_status_t st = ch->pops->listen_addr(ch->prov, rec->addr, &len);
    rec->addrlen = (uint16_t)len;
    return st;
}

rdmach_status_t rch_net_publish(struct rch_rdma_chan *ch)
{
    struct rch_net_kvs_rec rec;
    rdmach_status_t st = rch_net_self_record(ch, &rec);
    if (st != RDMACH_OK)
        return st;
    char hex[2 * sizeof(rec) + 1];
    rch_boot_hex_encode(&rec, sizeof(rec), hex);
    st = rch_boot_put(RCH_NET_KVS_KEY, hex);
    if (st != RDMACH_OK)
        return st;
    ch->published = 1;
    return RDMACH_OK;
}

rdmach_status_t rch_net_record_check(struct rch_rdma_chan *ch, struct rch_net_kvs_rec *rec, const char *who)
{
    if (rec->magic != RCH_NET_MAGIC || rec->addrlen == 0 || rec->addrlen > sizeof(rec->addr))
        return rch_base_err(RDMACH_ERR_PROTOCOL, "%s: malformed network record", who);
    if (rec->version != RCH_NET_VERSION)
        return rch_base_err(RDMACH_ERR_PROTOCOL, "%s speaks network protocol version %u, this rank %u", who,
                            rec->version, RCH_NET_VERSION);
    rec->prov[sizeof(rec->prov) - 1] = '\0';
    if (strcmp(rec->prov, ch->pops->name) != 0)
        return rch_base_err(RDMACH_ERR_UNREACHABLE, "%s uses the %s network channel, this rank %s: set "
                            "RDMACH_NET the same for every rank", who, rec->prov, ch->pops->name);
    return RDMACH_OK;
}

rdmach_status_t rch_net_peer_record(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    if (c->have_rec)
        return RDMACH_OK;
    char hex[2 * sizeof(struct rch_net_kvs_rec) + 8];
    rdmach_status_t st = rch_boot_get(c->rank, RCH_NET_KVS_KEY, hex, sizeof(hex));
    if (st == RDMACH_ERR_NOT_FOUND)
        return rch_base_err(RDMACH_ERR_UNREACHABLE, "rank %d published no network address (it opened no "
                            "network channel: its RDMACH_NET / RDMACH_VNODE_SIZE / RDMACH_SHM differ?)", c->rank);
    if (st != RDMACH_OK)
        return st;
    struct rch_net_kvs_rec rec;
    char who[32];
    snprintf(who, sizeof(who), "rank %d", c->rank);
    if (strlen(hex) != 2 * sizeof(rec) || rch_boot_hex_decode(hex, &rec, sizeof(rec)) != RDMACH_OK)
        return rch_base_err(RDMACH_ERR_PROTOCOL, "rank %d: malformed network record in the KVS", c->rank);
    if ((st = rch_net_record_check(ch, &rec, who)) != RDMACH_OK)
        return st;
    c->rec = rec;
    c->have_rec = 1;
    return RDMACH_OK;
}

static struct rch_net_conn *conn_of(struct rch_rdma_chan *ch, int peer)
{
    if (peer < 0 || peer >= ch->size || !ch->conns[peer].is_peer)
        return NULL;
    return &ch->conns[peer];
}

rdmach_status_t rch_net_connect(struct rch_rdma_chan *ch, int peer)
{
    struct rch_net_conn *c = conn_of(ch, peer);
    if (c == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s connect: rank %d is not a peer of this channel",
                            ch->ops->name, peer);
    if (!ch->eager)
        return RDMACH_OK;   /* lazy: the first send() starts it */
    if (c->server)
        return RDMACH_INPROGRESS;   /* the client connects to us */
    rdmach_status_t st = rch_net_conn_start(ch, c);
    return st == RDMACH_OK ? RDMACH_INPROGRESS : st;
}

const struct rch_rdma_caps *rch_net_caps(const struct rch_rdma_chan *ch)
{
    return &ch->caps;
}

rdmach_status_t rch_net_query(const struct rch_net_prov_ops *pops)
{
    rdmach_status_t st = check_geometry();
    if (st != RDMACH_OK)
        return st;
    return pops->query();
}

void rch_net_stats(struct rch_rdma_chan *ch, struct rch_net_stats *st)
{
    memset(st, 0, sizeof(*st));
    for (int r = 0; r < ch->size; r++) {
        struct rch_net_conn *c = &ch->conns[r];
        if (!c->is_peer)
            continue;
        st->ready += c->state == RCH_NET_C_READY;
        st->connecting += c->state != RCH_NET_C_READY && c->state != RCH_NET_C_IDLE &&
                          c->state != RCH_NET_C_CLOSED && c->state != RCH_NET_C_FAILED;
        st->failed += c->state == RCH_NET_C_FAILED;
        st->sent += c->sent;
        st->received += c->received;
        st->crdt_sent += c->crdt_sent;
        st->tx_full += c->tx_full;
        st->noop_repeats += c->noop_repeats;
        st->connect_retries += c->retries;
    }
    st->refused = ch->refused;
    rch_net_rcache_stats(&ch->rcache, &st->rcache);
}

rdmach_status_t rch_net_no_write_data(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf,
                                      size_t len, const struct rch_net_mr *mr, uint64_t raddr,
                                      const struct rch_net_rkey *rk, uint32_t imm, void *ctx)
{
    return rch_base_err(RDMACH_ERR_UNSUPPORTED, "this provider has no RDMA write with immediate data");
}

int rch_net_conn_state(struct rch_rdma_chan *ch, int peer)
{
    struct rch_net_conn *c = conn_of(ch, peer);
    return c ? c->state : -1;
}
