/* Processes of other jobs over the network channel (net_dyn.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "rdma/net/net.h"
#include "rdma/net/net_dyn.h"

_Static_assert(sizeof(struct rch_net_kvs_rec) == RCH_NET_DYN_REC_LEN, "the record is what net_dyn.h says");

int rch_net_is_net(const struct rch_rdma_ops *ops)
{
#if RDMACH_HAVE_OFI
    if (ops == &rch_rdma_ofi_ops)
        return 1;
#endif
#if RDMACH_HAVE_VERBS
    if (ops == &rch_rdma_verbs_ops)
        return 1;
#endif
    (void)ops;
    return 0;
}

rdmach_status_t rch_net_dyn_record(struct rch_rdma_chan *ch, void *rec, size_t len)
{
    if (len != sizeof(struct rch_net_kvs_rec))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "net: a record is %zu bytes, not %zu",
                            sizeof(struct rch_net_kvs_rec), len);
    struct rch_net_kvs_rec *r = rec;
    rdmach_status_t st = rch_net_self_record(ch, r);
    if (st != RDMACH_OK)
        return st;
    /* a key of its own for the attach this record is for (the next one) */
    do {
        if (getrandom(&ch->offer_key, sizeof(ch->offer_key), 0) != (ssize_t)sizeof(ch->offer_key))
            return rch_base_errno(errno, "%s: getrandom", ch->ops->name);
    } while (ch->offer_key == 0 || ch->offer_key == ch->secret);
    r->secret = ch->offer_key;
    return RDMACH_OK;
}

static rdmach_status_t attach_key(struct rch_rdma_chan *ch, int peer, const void *rec, size_t len, int my_id,
                                  int server, uint64_t key);

rdmach_status_t rch_net_dyn_attach(struct rch_rdma_chan *ch, int peer, const void *rec, size_t len, int my_id,
                                   int server)
{
    uint64_t key = ch->offer_key;
    ch->offer_key = 0;   /* one attach per record */
    return attach_key(ch, peer, rec, len, my_id, server, key);
}

rdmach_status_t rch_net_dyn_attach_mine(struct rch_rdma_chan *ch, int peer, const void *rec, size_t len,
                                        const void *mine, int my_id, int server)
{
    struct rch_net_kvs_rec m;
    memcpy(&m, mine, sizeof(m));
    if (m.secret == ch->offer_key)
        ch->offer_key = 0;
    /* a key rch_net_dyn_record handed out: never 0 nor the job's own */
    return attach_key(ch, peer, rec, len, my_id, server, m.secret == ch->secret ? 0 : m.secret);
}

static rdmach_status_t attach_key(struct rch_rdma_chan *ch, int peer, const void *rec, size_t len, int my_id,
                                  int server, uint64_t key)
{
    char who[48];
    snprintf(who, sizeof(who), "process %d of another job", peer);
    /* a number below ch->size: released, or one the sock channel served */
    int again = peer >= ch->jobsize && peer < ch->size && (ch->conns[peer].detached || !ch->conns[peer].is_peer);
    if ((peer < ch->size && !again) || peer >= ch->cap || my_id < 0 || len != sizeof(struct rch_net_kvs_rec))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s attach: peer %d (in use up to %d, room up to %d, not "
                            "released), number %d there, record of %zu bytes", ch->ops->name, peer, ch->size,
                            ch->cap, my_id, len);
    /* not drained here: a request of the new peer, which may connect as
     * soon as it knows its number, would find the record still released */
    if (again && ch->conns[peer].detached && !ch->conns[peer].drained)
        return rch_base_err(RDMACH_ERR_BUSY, "%s attach: the released connection %d may still report "
                            "(not found drained)", ch->ops->name, peer);
    if (!key)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s attach: process %d: no record of this process was handed "
                            "out for it (rch_net_dyn_record)", ch->ops->name, peer);
    struct rch_net_conn *c = &ch->conns[peer];
    if (again) {
        rch_net_conn_free(ch, c);
        rch_net_conn_init(c, peer, ch->rank);
    }
    struct rch_net_kvs_rec r;
    memcpy(&r, rec, sizeof(r));
    rdmach_status_t st = rch_net_record_check(ch, &r, who);
    if (st != RDMACH_OK)
        return st;
    c->rec = r;
    c->have_rec = 1;
    c->key = key;
    c->my_id = my_id;
    c->server = server;
    c->is_peer = 1;
    if (peer >= ch->size)
        ch->size = peer + 1;
    RCH_DEBUG("net", "%s attached as %d%s (number %d there; this side %s)", who, peer, again ? " again" : "",
              my_id, server ? "accepts" : "connects");
    return RDMACH_OK;
}

rdmach_status_t rch_net_dyn_detach(struct rch_rdma_chan *ch, int peer, int force)
{
    if (peer < ch->jobsize || peer >= ch->size || !ch->conns[peer].is_peer)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s detach: %d is no process of another job (the job's ranks "
                            "are 0..%d, others attached up to %d)", ch->ops->name, peer, ch->jobsize - 1,
                            ch->size - 1);
    return rch_net_conn_detach(ch, &ch->conns[peer], force);
}

/* A record never used serves a process of another job at once; a released
 * record serves another process once nothing of its old
 * connection can arrive: no RMA of it unfinished (a chunk's completion
 * names the record), and the provider's completions and connection events
 * drained after its endpoints closed (what a closed endpoint had produced
 * is queued by then, and it produces nothing more). The ring memory the
 * old peer wrote is freed with the endpoints, so no late write reaches the
 * new ring either. */
int rch_net_dyn_reusable(struct rch_rdma_chan *ch, int peer)
{
    if (peer < ch->jobsize || peer >= ch->cap)
        return 0;
    if (peer >= ch->size)
        return 1;
    struct rch_net_conn *c = &ch->conns[peer];
    if (!c->detached)
        return !c->is_peer;   /* never served here (the sock channel's) */
    if (!c->drained)
        c->drained = c->detached && c->rma_list.lnext == &c->rma_list && rch_net_drain(ch);
    return c->drained;
}
