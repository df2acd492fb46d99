/*
 * Registration and RMA over the network channel: mem_reg/dereg through the
 * registration cache, remote keys, put (RDMA write) and get (RDMA read) of
 * any size, split into RDMACH_NET_RMA_CHUNK pieces and queued while the
 * connection is being made or the send queue is full.
 *
 * Completion: put()/get() return INPROGRESS (OK at once for 0 bytes); the
 * channel calls upcalls.rma_done(op_ctx, status) from progress when every
 * chunk has completed, or with PEER_DEAD when the connection fails (the
 * chunks' own late completions are then only counted). Registration for an
 * operation whose caller gave no local registration (lmr == NULL) is made
 * and released here, through the cache.
 *
 * Striping (data rails, net_conn.c): a put/get of at least RDMACH_NET_RAIL_MIN
 * bytes is cut in one chunk per established rail (and the connection), each
 * posted on its own endpoint. A write on a rail is not ordered with the
 * connection's later ring write that tells the target it is done (the
 * device's RNDV FIN), so after the last write chunk on rail k the rail
 * carries a FENCE: an 8-byte read of that chunk into fence_buf. The provider
 * orders a read after the writes before it on the endpoint (FI_ORDER_RAW,
 * the condition for rails), so its completion means they are placed, and
 * the operation completes only when every chunk and fence has.
 *
 * Memory that pins (verbs): a failed registration is reported as
 * RDMACH_ERR_REG_LIMIT with the size asked for and the `ulimit -l` in force.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "base/base.h"
#include "base/log.h"
#include "rdma/net/net.h"

#define RMA_SLAB 64

/* ---- registration ---- */

rdmach_status_t rch_net_reg_limit_err(size_t len, const char *detail)
{
    struct rlimit rl;
    char lim[64] = "unknown";
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
        if (rl.rlim_cur == RLIM_INFINITY)
            snprintf(lim, sizeof(lim), "unlimited");
        else
            snprintf(lim, sizeof(lim), "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
    }
    return rch_base_err(RDMACH_ERR_REG_LIMIT,
                        "registering %zu bytes for RDMA failed: locked memory is exhausted (ulimit -l is %s); "
                        "raise it with 'ulimit -l unlimited' (or memlock in /etc/security/limits.conf), or use "
                        "smaller buffers%s%s",
                        len, lim, detail && detail[0] ? " [" : "", detail && detail[0] ? detail : "");
}

rdmach_status_t rch_net_reg(struct rch_rdma_chan *ch, void *addr, size_t len, struct rch_net_mr *mr)
{
    rdmach_status_t st = ch->pops->mr_reg(ch->prov, addr, len, mr);
    if ((st == RDMACH_ERR_NO_MEMORY || st == RDMACH_ERR_REG_LIMIT) && ch->pcaps->pins_memory) {
        char detail[256];
        snprintf(detail, sizeof(detail), "%s", rdmach_last_error());
        return rch_net_reg_limit_err(len, detail);
    }
    return st;
}

rdmach_status_t rch_net_mem_reg(struct rch_rdma_chan *ch, void *addr, size_t len, unsigned access,
                                struct rch_rdma_mr **mr)
{
    if (mr == NULL || (addr == NULL && len != 0))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s mem_reg: %s", ch->ops->name,
                            mr == NULL ? "mr is NULL" : "addr is NULL");
    struct rch_net_rcache_entry *e;
    rdmach_status_t st = rch_net_rcache_get(&ch->rcache, addr ? addr : (void *)ch, len, &e);
    if (st != RDMACH_OK)
        return st;
    *mr = &e->pub;
    return RDMACH_OK;
}

void rch_net_mem_dereg(struct rch_rdma_chan *ch, struct rch_rdma_mr *mr)
{
    if (mr != NULL)
        rch_net_rcache_put(&ch->rcache, mr->priv);
}

rdmach_status_t rch_net_mem_rkey(struct rch_rdma_chan *ch, const struct rch_rdma_mr *mr,
                                 struct rch_rdma_rkey *rkey)
{
    if (mr == NULL || rkey == NULL || mr->priv == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s mem_rkey: no registration", ch->ops->name);
    const struct rch_net_rcache_entry *e = mr->priv;
    struct rch_net_wire_rkey w = { .magic = RCH_NET_RKEY_MAGIC, .rsvd = 0, .key = e->mr.rkey,
                                   .base = (uint64_t)e->start };
    memset(rkey, 0, sizeof(*rkey));
    rkey->len = sizeof(w);
    memcpy(rkey->bytes, &w, sizeof(w));
    return RDMACH_OK;
}

/* ---- the pool ---- */

rdmach_status_t rch_net_rma_init(struct rch_rdma_chan *ch)
{
    ch->rma_free = NULL;
    return RDMACH_OK;
}

void rch_net_rma_fini(struct rch_rdma_chan *ch)
{
    for (int i = 0; i < ch->nrma_slabs; i++)
        free(ch->rma_slabs[i]);
    free(ch->rma_slabs);
    ch->rma_slabs = NULL;
    ch->nrma_slabs = 0;
    ch->rma_free = NULL;
}

static struct rch_net_rma *rma_alloc(struct rch_rdma_chan *ch)
{
    if (ch->rma_free == NULL) {
        void **s = realloc(ch->rma_slabs, sizeof(void *) * (size_t)(ch->nrma_slabs + 1));
        if (s == NULL)
            return NULL;
        ch->rma_slabs = s;
        struct rch_net_rma *slab = calloc(RMA_SLAB, sizeof(*slab));
        if (slab == NULL)
            return NULL;
        ch->rma_slabs[ch->nrma_slabs++] = slab;
        for (int i = 0; i < RMA_SLAB; i++) {
            slab[i].next = ch->rma_free;
            ch->rma_free = &slab[i];
        }
    }
    struct rch_net_rma *r = ch->rma_free;
    ch->rma_free = r->next;
    memset(r, 0, sizeof(*r));
    return r;
}

static void rma_release(struct rch_rdma_chan *ch, struct rch_net_rma *r)
{
    if (r->lnext) {
        r->lnext->lprev = r->lprev;
        r->lprev->lnext = r->lnext;
        r->lnext = r->lprev = NULL;
    }
    if (r->own) {
        rch_net_rcache_put(&ch->rcache, r->own);
        r->own = NULL;
    }
    r->next = ch->rma_free;
    ch->rma_free = r;
}

/* Report (once) and, if nothing is outstanding, recycle. */
static void rma_finish(struct rch_rdma_chan *ch, struct rch_net_rma *r)
{
    if (!r->reported) {
        r->reported = 1;
        ch->up.rma_done(ch->up.ctx, r->op_ctx, r->status);
    }
    if (r->outstanding == 0)
        rma_release(ch, r);
}

/* ---- posting ---- */

/* The endpoints a chunk may go on: the connection's, then its rails that are up. */
static unsigned data_eps(const struct rch_net_conn *c, struct rch_net_ep **eps, int *rail)
{
    unsigned n = 0;
    eps[n] = c->ep;
    rail[n++] = 0;
    for (int k = 1; k < RCH_NET_MAX_RAILS; k++)
        if (c->rail_up[k]) {
            eps[n] = c->rail_ep[k];
            rail[n++] = k;
        }
    return n;
}

static rdmach_status_t rma_post(struct rch_rdma_chan *ch, struct rch_net_conn *c, struct rch_net_rma *r)
{
    struct rch_net_ep *eps[RCH_NET_MAX_RAILS];
    int rail[RCH_NET_MAX_RAILS];
    unsigned neps = data_eps(c, eps, rail);
    if (r->stripe == 0) {   /* first post: the chunk size */
        size_t max = ch->rma_chunk < ch->pcaps->max_rma ? ch->rma_chunk : ch->pcaps->max_rma;
        r->stripe = max;
        if (neps > 1 && r->len >= ch->rail_min) {
            r->striped = 1;
            size_t s = (r->len + neps - 1) / neps;
            s = (s + 4095) & ~(size_t)4095;
            if (s < r->stripe)
                r->stripe = s;
        }
    }
    while (r->posted < r->len) {
        size_t n = r->len - r->posted < r->stripe ? r->len - r->posted : r->stripe;
        unsigned e = r->striped ? r->chunks % neps : 0;
        rdmach_status_t st;
        if (r->write)
            st = ch->pops->post_write(ch->prov, eps[e], r->laddr + r->posted, n, r->lmr, r->raddr + r->posted,
                                      &r->rk, &r->op);
        else
            st = ch->pops->post_read(ch->prov, eps[e], r->laddr + r->posted, n, r->lmr, r->raddr + r->posted,
                                     &r->rk, &r->op);
        if (st != RDMACH_OK)
            return st;
        if (c->posts++ == 0)
            RCH_DEBUG("net", "%s: first post to rank %d (%s) in state %s", c->server ? "server" : "client",
                      c->rank, r->write ? "RDMA write" : "RDMA read", rch_net_state_name[c->state]);
        if (r->write && rail[e] > 0) {
            r->fence |= 1u << rail[e];
            r->fence_off[rail[e]] = r->posted;
        }
        r->posted += n;
        r->outstanding++;
        r->chunks++;
    }
    /* the fences: a rail that went down meanwhile failed the connection */
    for (int k = 1; r->fence && k < RCH_NET_MAX_RAILS; k++) {
        if (!(r->fence & (1u << k)))
            continue;
        if (!c->rail_up[k])
            return rch_base_err(RDMACH_ERR_PEER_DEAD, "rank %d: data rail %d is gone", c->rank, k);
        size_t off = r->fence_off[k], n = r->len - off < 8 ? r->len - off : 8;
        rdmach_status_t st = ch->pops->post_read(ch->prov, c->rail_ep[k], c->fence_buf, n, &c->local_mr,
                                                 r->raddr + off, &r->rk, &r->op);
        if (st != RDMACH_OK)
            return st;
        r->fence &= ~(1u << k);
        r->outstanding++;
    }
    return RDMACH_OK;
}

static void enqueue(struct rch_net_conn *c, struct rch_net_rma *r)
{
    r->next = NULL;
    if (c->rq_tail)
        c->rq_tail->next = r;
    else
        c->rq_head = r;
    c->rq_tail = r;
}

int rch_net_rma_flush(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    if (c->state != RCH_NET_C_READY)
        return c->rq_head != NULL && c->state != RCH_NET_C_FAILED && c->state != RCH_NET_C_CLOSED;
    while (c->rq_head) {
        struct rch_net_rma *r = c->rq_head;
        rdmach_status_t st = rma_post(ch, c, r);
        if (st == RDMACH_AGAIN)
            return 1;
        c->rq_head = r->next;
        if (c->rq_head == NULL)
            c->rq_tail = NULL;
        r->next = NULL;
        if (st != RDMACH_OK) {
            r->status = st;
            rch_net_conn_fail(ch, c, st, rdmach_last_error());
            return 0;
        }
    }
    return 0;
}

void rch_net_rma_chunk_done(struct rch_rdma_chan *ch, struct rch_net_rma *r, rdmach_status_t st)
{
    if (r->outstanding)
        r->outstanding--;
    if (st != RDMACH_OK && r->status == RDMACH_OK) {
        r->status = st;
        struct rch_net_conn *c = r->op.conn;
        char why[200];
        snprintf(why, sizeof(why), "an RDMA %s failed: %s", r->write ? "write" : "read", rdmach_last_error());
        rch_net_conn_fail(ch, c, st, why);
    }
    if (r->reported) {
        if (r->outstanding == 0)
            rma_release(ch, r);
        return;
    }
    if (r->outstanding == 0 && r->posted == r->len && r->fence == 0)
        rma_finish(ch, r);
}

unsigned rch_net_rma_fail_conn(struct rch_rdma_chan *ch, struct rch_net_conn *c, rdmach_status_t st)
{
    unsigned n = 0;
    c->rq_head = c->rq_tail = NULL;
    struct rch_net_rma *r = c->rma_list.lnext;
    while (r != &c->rma_list) {
        struct rch_net_rma *next = r->lnext;
        if (!r->reported) {
            if (r->status == RDMACH_OK)
                r->status = st;
            rch_base_err(st, "RDMA %s with rank %d failed: %s", r->write ? "write" : "read", c->rank,
                         c->fail_why[0] ? c->fail_why : "the connection failed");
            rma_finish(ch, r);
            n++;
        }
        r = next;
    }
    return n;
}

static rdmach_status_t rma_start(struct rch_rdma_chan *ch, int peer, int write, void *laddr,
                                 struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                                 uint64_t raddr, void *op_ctx)
{
    const char *what = write ? "put" : "get";
    struct rch_net_conn *c;
    if ((unsigned)peer >= (unsigned)ch->size || !(c = &ch->conns[peer])->is_peer)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s %s: rank %d is not a peer of this channel", ch->ops->name,
                            what, peer);
    if (len == 0)
        return RDMACH_OK;
    struct rch_net_wire_rkey w;
    if (rkey == NULL || rkey->len != sizeof(w))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s %s: the remote key is not one of this channel's",
                            ch->ops->name, what);
    memcpy(&w, rkey->bytes, sizeof(w));
    if (w.magic != RCH_NET_RKEY_MAGIC)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s %s: the remote key is not one of this channel's",
                            ch->ops->name, what);
    if (laddr == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s %s: the local address is NULL", ch->ops->name, what);
    if (lmr != NULL) {
        const struct rch_net_rcache_entry *e = lmr->priv;
        if (e == NULL || (uintptr_t)laddr < e->start || (uintptr_t)laddr + len > e->end)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s %s: [%p, +%zu) is outside the local registration",
                                ch->ops->name, what, laddr, len);
    }
    if (c->state == RCH_NET_C_FAILED || c->state == RCH_NET_C_CLOSED)
        return rch_base_err(c->state == RCH_NET_C_FAILED && c->fail_status ? c->fail_status : RDMACH_ERR_PEER_DEAD,
                            "%s %s to rank %d: %s", ch->ops->name, what, peer,
                            c->fail_why[0] ? c->fail_why : "the connection is closed");
    struct rch_net_rma *r = rma_alloc(ch);
    if (r == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s %s: no memory for an operation", ch->ops->name, what);
    r->op.kind = RCH_NET_OP_RMA;
    r->op.conn = c;
    r->op.rma = r;
    r->write = write;
    r->laddr = laddr;
    r->len = len;
    r->raddr = raddr;
    r->rk.key = w.key;
    r->rk.base = w.base;
    r->op_ctx = op_ctx;
    r->status = RDMACH_OK;
    if (lmr != NULL) {
        r->lmr = &((const struct rch_net_rcache_entry *)lmr->priv)->mr;
    } else {
        rdmach_status_t st = rch_net_rcache_get(&ch->rcache, laddr, len, &r->own);
        if (st != RDMACH_OK) {
            r->next = ch->rma_free;
            ch->rma_free = r;
            return st;
        }
        r->lmr = &r->own->mr;
    }
    r->lnext = &c->rma_list;
    r->lprev = c->rma_list.lprev;
    c->rma_list.lprev->lnext = r;
    c->rma_list.lprev = r;

    if (c->state != RCH_NET_C_READY || c->rq_head != NULL) {
        enqueue(c, r);
        rch_net_set_pending(ch, c);
        if (c->state == RCH_NET_C_IDLE)
            rch_net_conn_start(ch, c);   /* a failure is reported through rma_done from progress */
        return RDMACH_INPROGRESS;
    }
    rdmach_status_t st = rma_post(ch, c, r);
    if (st == RDMACH_OK)
        return RDMACH_INPROGRESS;
    if (st == RDMACH_AGAIN) {
        enqueue(c, r);
        rch_net_set_pending(ch, c);
        return RDMACH_INPROGRESS;
    }
    if (r->outstanding == 0) {
        r->reported = 1;     /* the error is returned now, never reported */
        rma_release(ch, r);
        rch_net_conn_fail(ch, c, st, rdmach_last_error());
        return rch_base_err(st, "%s %s to rank %d: %s", ch->ops->name, what, peer, c->fail_why);
    }
    r->status = st;
    r->posted = r->len;   /* stop posting; the outstanding chunks finish it */
    r->fence = 0;
    rch_net_conn_fail(ch, c, st, rdmach_last_error());
    return RDMACH_INPROGRESS;
}

rdmach_status_t rch_net_put(struct rch_rdma_chan *ch, int peer, const void *laddr, struct rch_rdma_mr *lmr,
                            size_t len, const struct rch_rdma_rkey *rkey, uint64_t raddr, void *op_ctx)
{
    return rma_start(ch, peer, 1, (void *)laddr, lmr, len, rkey, raddr, op_ctx);
}

rdmach_status_t rch_net_get(struct rch_rdma_chan *ch, int peer, void *laddr, struct rch_rdma_mr *lmr,
                            size_t len, const struct rch_rdma_rkey *rkey, uint64_t raddr, void *op_ctx)
{
    return rma_start(ch, peer, 0, laddr, lmr, len, rkey, raddr, op_ctx);
}
