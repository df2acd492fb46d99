/*
 * The connection protocol (the MVAPICH2 iWARP design), the same for every
 * provider.
 *
 * Roles: for each pair the lower rank is the SERVER (it accepts), the higher
 * the CLIENT (it connects). Every rank listens from open() on and publishes
 * its address and a random 64-bit secret in the KVS (net_chan.c).
 *
 *   client                                        server
 *   ring + receives ready, ep_open
 *   CONNECT{rank, server's secret, ring} ------>  check magic, version, key,
 *                                                 rank, geometry; ring + receives
 *                                                 posted BEFORE accepting
 *               <------  ACCEPT{rank, client's secret, ring}   (state ACCEPTED:
 *   ESTABLISHED: check the accept                  the server posts nothing)
 *   NOOP{rank, server's secret} (send) -------->  NOOP arrives: READY
 *   READY: ring writes may follow the NOOP
 *               <------  NOOP_ACK{rank, client's secret}   (first post of the server)
 *
 * The client speaks first (MPA requires the initiator to send the first
 * message); the server marks the connection ready only when the NOOP has
 * arrived and never posts a send or write before that. RDMACH_LOG=debug
 * prints one line per step; tests/net checks the order from that trace.
 *
 * The NOOP_ACK, and the repeated NOOP: Soft-iWARP (Linux siw, 6.1) sends its
 * MPA reply and only then gives the socket to the server's QP; a NOOP that
 * lands in between stays unread in the socket until more bytes arrive (the
 * data-ready upcall of that moment ignores it). A client with nothing more to
 * say would wait for the server, and the server for the NOOP, until the
 * connect timeout (seen in a measurement boot). So the server
 * answers the NOOP, and a client without an answer after
 * RCH_NET_NOOP_REPEAT_AFTER sends the NOOP again (at most RCH_NET_NOOP_REPEATS
 * times, within the receives the server posted): its arrival makes siw read
 * both. The server ignores a NOOP on a ready connection. The ACK gates
 * nothing: the client writes into the ring right after its first NOOP.
 *
 * Who starts: lazily the first send() (or put/get) to the peer, eagerly
 * (RDMACH_CONNECT=eager) the client at connect() time. A SERVER that needs
 * the connection first cannot connect (that would make two connections, or
 * need a tie-break): it sends a REVERSE request, a connection request that
 * the client always rejects, answering REVERSE_ACK in the reject's private
 * data, and then connects as usual. So:
 *   - exactly one connection per pair, always client -> server;
 *   - crossing requests are harmless: a client that gets REVERSE while it is
 *     already connecting just acknowledges it; a server in REVERSE that gets
 *     the client's CONNECT accepts it and ignores its REVERSE's answer;
 *   - while waiting (REVERSE_WAIT) the server asks again every second, so a
 *     client that died after acknowledging is noticed in about a second
 *     (nobody listens: UNREACHABLE);
 *   - everything is bounded by RDMACH_NET_CONNECT_TIMEOUT.
 *
 * Data rails (RDMACH_NET_RAILS, 2 over tcp): once READY the client opens
 * rails 1 .. n-1, more connections of the pair that carry only RMA chunks
 * (net_rma.c stripes a large put/get over the connection and its rails):
 *
 *   RAIL{rank, server's secret, rail k} -------->  the pair's connection is
 *                                                   ACCEPTED or READY: accept
 *            <------  RAIL_ACCEPT{rank, client's secret, rail k}
 *   ESTABLISHED: rail k up                          ESTABLISHED: rail k up
 *
 * No ring and no receives on a rail; each side posts on it once its own
 * side is established. A rail that cannot be made is left out (the pair
 * works over fewer); a rail that disconnects while puts/gets are unfinished
 * on the pair fails the connection, as its chunks in flight are lost.
 *
 * Membership: a request is accepted only if it quotes this rank's secret
 * (which only members can read from the KVS) and names a rank that is a
 * peer of this channel, on the right side of the pair, not yet connected.
 * Anything else is refused (reject with REFUSE), counted and logged; the job
 * goes on. The accept, the REVERSE_ACK and the NOOP quote the other side's
 * secret in turn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "rdma/net/net.h"

static int transitional(int state)
{
    return state == RCH_NET_C_REVERSE || state == RCH_NET_C_REVERSE_WAIT || state == RCH_NET_C_CONNECTING ||
           state == RCH_NET_C_ACCEPTED;
}

static void set_state(struct rch_rdma_chan *ch, struct rch_net_conn *c, int state)
{
    ch->cm_busy += transitional(state) - transitional(c->state);
    c->state = state;
}

/* ---- memory of a connection ---- */

static size_t page_round(size_t n)
{
    return (n + 4095) & ~(size_t)4095;
}

static rdmach_status_t conn_mem(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    if (c->mem)
        return RDMACH_OK;
    int consumes = ch->notify == RCH_NET_NOTIFY_SEND ||
                   (ch->notify == RCH_NET_NOTIFY_DATA && ch->pcaps->write_data_consumes_recv);
    c->nrecv = RCH_NET_NRECV_BASE + (consumes ? ch->nslots : 0);
    size_t ring = page_round(rch_net_ring_bytes(ch->slot_size, ch->nslots));
    size_t local = (size_t)ch->slot_size * ch->nslots + (size_t)c->nrecv * RCH_NET_CTL_BUF + RCH_NET_CTL_BUF + 64;
    c->mem_len = ring + page_round(local);
    void *mem = NULL;
    if (posix_memalign(&mem, 4096, c->mem_len) != 0)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "rank %d: no memory for a %zu-byte connection", c->rank,
                            c->mem_len);
    memset(mem, 0, c->mem_len);
    c->mem = mem;
    c->slot_ops = calloc(ch->nslots, sizeof(*c->slot_ops));
    c->recv_ops = calloc(c->nrecv, sizeof(*c->recv_ops));
    if (!c->slot_ops || !c->recv_ops)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "rank %d: no memory for connection contexts", c->rank);
    rch_net_ring_rx_init(&c->rx, c->mem, ch->slot_size, ch->nslots);
    unsigned char *l = c->mem + ring;
    c->tx.stage = l;
    c->recv_bufs = l + (size_t)ch->slot_size * ch->nslots;
    c->ctl_buf = c->recv_bufs + (size_t)c->nrecv * RCH_NET_CTL_BUF;
    c->crdt_word = (uint32_t *)(c->ctl_buf + RCH_NET_CTL_BUF);
    c->fence_buf = c->ctl_buf + RCH_NET_CTL_BUF + 8;   /* in the same 64 bytes, after the credit word */
    for (uint32_t i = 0; i < ch->nslots; i++)
        c->slot_ops[i] = (struct rch_net_op){ .kind = RCH_NET_OP_SLOT, .index = (uint16_t)i, .conn = c };
    for (unsigned i = 0; i < c->nrecv; i++)
        c->recv_ops[i] = (struct rch_net_op){ .kind = RCH_NET_OP_RECV, .index = (uint16_t)i, .conn = c };
    c->ctl_op = (struct rch_net_op){ .kind = RCH_NET_OP_CTL, .conn = c };
    c->crdt_op = (struct rch_net_op){ .kind = RCH_NET_OP_CRDT, .conn = c };

    rdmach_status_t st = rch_net_reg(ch, c->mem, ring, &c->ring_mr);
    if (st != RDMACH_OK)
        return st;
    c->have_ring_mr = 1;
    st = rch_net_reg(ch, c->mem + ring, c->mem_len - ring, &c->local_mr);
    if (st != RDMACH_OK)
        return st;
    c->have_local_mr = 1;
    return RDMACH_OK;
}

/* ---- data rails ---- */

static void rail_close(struct rch_rdma_chan *ch, struct rch_net_conn *c, int k)
{
    if (c->rail_busy[k]) {
        c->rail_busy[k] = 0;
        ch->cm_busy--;
    }
    c->rail_up[k] = 0;
    if (c->rail_ep[k]) {
        ch->pops->ep_close(ch->prov, c->rail_ep[k]);
        c->rail_ep[k] = NULL;
    }
}

static void rails_close(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    for (int k = 1; k < RCH_NET_MAX_RAILS; k++)
        rail_close(ch, c, k);
}

static void fill_priv(struct rch_rdma_chan *ch, struct rch_net_conn *c, unsigned kind, uint64_t key,
                      struct rch_net_cm_priv *p);

/* Client, once READY: ask for rails 1 .. nrails - 1. One that cannot be
 * asked for is left out. */
static void client_open_rails(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    for (int k = 1; k < ch->nrails && k < RCH_NET_MAX_RAILS; k++) {
        rdmach_status_t st = ch->pops->ep_open(ch->prov, c->rec.addr, c->rec.addrlen, &c->rail_ctx[k],
                                               &c->rail_ep[k]);
        if (st == RDMACH_OK) {
            struct rch_net_cm_priv p;
            fill_priv(ch, c, RCH_NET_CM_RAIL, c->rec.secret, &p);
            p.rail = (uint16_t)k;
            st = ch->pops->connect(ch->prov, c->rail_ep[k], &p, sizeof(p));
        }
        if (st != RDMACH_OK) {
            RCH_WARN("net", "rank %d: data rail %d not opened (%s); fewer connections carry its "
                     "rendezvous data", c->rank, k, rdmach_last_error());
            rail_close(ch, c, k);
            continue;
        }
        c->rail_busy[k] = 1;
        ch->cm_busy++;
        RCH_DEBUG("net", "client: data rail %d to rank %d requested", k, c->rank);
    }
}

static void on_rail_event(struct rch_rdma_chan *ch, struct rch_net_conn *c, int k, struct rch_net_cm_event *ev)
{
    struct rch_net_cm_priv p;
    const char *why = NULL;
    switch (ev->type) {
    case RCH_NET_EV_ESTABLISHED:
        if (!c->rail_ep[k] || c->rail_up[k])
            return;
        if (!c->server &&
            (rch_net_cm_priv_check(ev->priv, ev->priv_len, RCH_NET_CM_RAIL_ACCEPT, ch->jobsize, ch->size, ch->slot_size,
                                   ch->nslots, &p, &why) != RDMACH_OK ||
             p.rank != c->rank || p.key != rch_net_conn_key(ch, c) || p.rail != k)) {
            RCH_WARN("net", "rank %d: data rail %d: the accept is not this pair's (%s); rail closed", c->rank, k,
                     why ? why : "rank, key or rail differ");
            rail_close(ch, c, k);
            return;
        }
        if (c->rail_busy[k]) {
            c->rail_busy[k] = 0;
            ch->cm_busy--;
        }
        c->rail_up[k] = 1;
        RCH_DEBUG("net", "%s: data rail %d with rank %d established", c->server ? "server" : "client", k, c->rank);
        return;
    case RCH_NET_EV_REJECTED:
    case RCH_NET_EV_UNREACHABLE:
        RCH_DEBUG("net", "client: rank %d %s data rail %d; fewer connections carry its rendezvous data", c->rank,
                  ev->type == RCH_NET_EV_REJECTED ? "refused" : "did not answer for", k);
        rail_close(ch, c, k);
        return;
    case RCH_NET_EV_DISCONNECTED: {
        int was_up = c->rail_up[k];
        rail_close(ch, c, k);
        /* A peer that closes its channel may close a rail before its BYE
         * has come through the connection (another socket), and a peer
         * that dies is reported by the connection itself; but chunks in
         * flight on the rail are lost, so with RMAs unfinished the pair
         * cannot go on. */
        if (was_up && c->state == RCH_NET_C_READY && c->rma_list.lnext != &c->rma_list && !ch->closing) {
            char msg[96];
            snprintf(msg, sizeof(msg), "data rail %d disconnected (the peer died or closed its channel)", k);
            rch_net_conn_fail(ch, c, RDMACH_ERR_PEER_DEAD, msg);
        }
        return;
    }
    default:
        return;
    }
}

/* Closes c's endpoints (rails, the connection, a REVERSE request's). */
static void close_eps(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    rails_close(ch, c);
    if (c->ep) {
        ch->pops->ep_close(ch->prov, c->ep);
        c->ep = NULL;
    }
    if (c->rev_ep) {
        ch->pops->ep_close(ch->prov, c->rev_ep);
        c->rev_ep = NULL;
    }
}

/* Closes c's endpoints, deregisters and frees its ring and buffers; its
 * operation contexts stay. */
static void release(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    close_eps(ch, c);
    if (c->have_ring_mr)
        ch->pops->mr_dereg(ch->prov, &c->ring_mr);
    if (c->have_local_mr)
        ch->pops->mr_dereg(ch->prov, &c->local_mr);
    c->have_ring_mr = c->have_local_mr = 0;
    free(c->mem);
    c->mem = NULL;
    c->recv_bufs = c->ctl_buf = NULL;
    c->crdt_word = NULL;
}

void rch_net_conn_free(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    release(ch, c);
    free(c->slot_ops);
    free(c->recv_ops);
    c->slot_ops = NULL;
    c->recv_ops = NULL;
}

void rch_net_conn_init(struct rch_net_conn *c, int r, int my_id)
{
    memset(c, 0, sizeof(*c));
    c->rank = r;
    c->my_id = my_id;
    c->ready_index = c->pending_index = -1;
    c->ctx.conn = c;
    c->rev_ctx.conn = c;
    c->rev_ctx.reverse = 1;
    for (int k = 1; k < RCH_NET_MAX_RAILS; k++) {
        c->rail_ctx[k].conn = c;
        c->rail_ctx[k].rail = k;
    }
    c->rma_list.lnext = c->rma_list.lprev = &c->rma_list;
}

static rdmach_status_t post_recvs(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    for (unsigned i = 0; i < c->nrecv; i++) {
        rdmach_status_t st = ch->pops->post_recv(ch->prov, c->ep, c->recv_bufs + (size_t)i * RCH_NET_CTL_BUF,
                                                 RCH_NET_CTL_BUF, &c->local_mr, &c->recv_ops[i]);
        if (st != RDMACH_OK)
            return st;
        c->recv_ops[i].busy = 1;
    }
    return RDMACH_OK;
}

static void fill_priv(struct rch_rdma_chan *ch, struct rch_net_conn *c, unsigned kind, uint64_t key,
                      struct rch_net_cm_priv *p)
{
    memset(p, 0, sizeof(*p));
    p->magic = RCH_NET_MAGIC;
    p->version = RCH_NET_VERSION;
    p->kind = (uint8_t)kind;
    p->rank = c ? c->my_id : ch->rank;
    p->size = (uint32_t)ch->jobsize;
    p->key = key;
    p->slot_size = ch->slot_size;
    p->nslots = (uint16_t)ch->nslots;
    p->notify = (uint8_t)ch->notify;
    if (c && c->mem && (kind == RCH_NET_CM_CONNECT || kind == RCH_NET_CM_ACCEPT)) {
        p->ring_addr = (uint64_t)(uintptr_t)c->mem;
        p->ring_key = c->ring_mr.rkey;
    }
}

/* The peer's ring, from its CONNECT or ACCEPT. */
static void set_peer_ring(struct rch_rdma_chan *ch, struct rch_net_conn *c, const struct rch_net_cm_priv *p)
{
    rch_net_ring_tx_init(&c->tx, c->tx.stage, p->ring_addr, ch->slot_size, ch->nslots);
    c->peer_rk.key = p->ring_key;
    c->peer_rk.base = p->ring_addr;
}

/* ---- starting ---- */

/* Client: an endpoint, its receives, the CONNECT. */
static rdmach_status_t client_send_connect(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    rdmach_status_t st = ch->pops->ep_open(ch->prov, c->rec.addr, c->rec.addrlen, &c->ctx, &c->ep);
    if (st == RDMACH_OK)
        st = post_recvs(ch, c);
    if (st == RDMACH_OK) {
        struct rch_net_cm_priv p;
        fill_priv(ch, c, RCH_NET_CM_CONNECT, c->rec.secret, &p);
        st = ch->pops->connect(ch->prov, c->ep, &p, sizeof(p));
    }
    if (st == RDMACH_OK)
        RCH_DEBUG("net", "client: connect request to rank %d sent (%u receives posted%s)", c->rank, c->nrecv,
                  c->retries ? ", again" : "");
    return st;
}

static rdmach_status_t client_connect(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    rdmach_status_t st = conn_mem(ch, c);
    if (st == RDMACH_OK)
        st = client_send_connect(ch, c);
    if (st != RDMACH_OK)
        return st;
    set_state(ch, c, RCH_NET_C_CONNECTING);
    c->deadline = rch_base_wtime() + ch->connect_timeout;
    return RDMACH_OK;
}

/* Client: the connect reached the server's listener and was reset before an
 * answer (its guard takes a request not yet read for a silent stranger when
 * it holds too many: ofi_guard.c). Connect again later, within the
 * deadline; 0 if this is final (nobody listens: refused; a timeout; no
 * time left). */
static int client_retry_later(struct rch_rdma_chan *ch, struct rch_net_conn *c, const struct rch_net_cm_event *ev)
{
    if (c->server || c->state != RCH_NET_C_CONNECTING || c->ep == NULL || ev->status != RDMACH_ERR_PEER_DEAD)
        return 0;
    double now = rch_base_wtime();
    double delay = RCH_NET_RETRY_AFTER * (double)(1u << (c->retries < 4 ? c->retries : 4));
    if (now + delay >= c->deadline)
        return 0;
    RCH_DEBUG("net", "client: the connection to rank %d was reset before its answer (%s); connecting again in "
              "%.0f ms", c->rank, rdmach_last_error(), delay * 1e3);
    ch->pops->ep_close(ch->prov, c->ep);
    c->ep = NULL;
    c->retries++;
    c->retry_at = now + delay;
    return 1;
}

/* Client, when a retry is due: the old endpoint's flushed receives are
 * taken first (they name receive contexts that the new endpoint reuses). */
static void client_retry(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    rch_net_reap_cq(ch);
    if (c->state != RCH_NET_C_CONNECTING || c->ep != NULL)
        return;
    rdmach_status_t st = client_send_connect(ch, c);
    if (st != RDMACH_OK)
        rch_net_conn_fail(ch, c, st, rdmach_last_error());
}

static rdmach_status_t server_reverse(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    rdmach_status_t st = ch->pops->ep_open(ch->prov, c->rec.addr, c->rec.addrlen, &c->rev_ctx, &c->rev_ep);
    if (st == RDMACH_OK) {
        struct rch_net_cm_priv p;
        fill_priv(ch, c, RCH_NET_CM_REVERSE, c->rec.secret, &p);
        st = ch->pops->connect(ch->prov, c->rev_ep, &p, sizeof(p));
        if (st != RDMACH_OK) {
            ch->pops->ep_close(ch->prov, c->rev_ep);
            c->rev_ep = NULL;
        }
    }
    if (st != RDMACH_OK)
        return st;
    if (c->state == RCH_NET_C_IDLE) {
        set_state(ch, c, RCH_NET_C_REVERSE);
        c->deadline = rch_base_wtime() + ch->connect_timeout;
    }
    RCH_DEBUG("net", "server: reverse request to rank %d sent (asking it to connect)", c->rank);
    return RDMACH_OK;
}

rdmach_status_t rch_net_conn_start(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    switch (c->state) {
    case RCH_NET_C_IDLE:
        break;
    case RCH_NET_C_FAILED:
    case RCH_NET_C_CLOSED:
        return rch_base_err(c->fail_status ? c->fail_status : RDMACH_ERR_PEER_DEAD, "rank %d: the connection is %s%s%s",
                            c->rank, rch_net_state_name[c->state], c->fail_why[0] ? ": " : "", c->fail_why);
    default:
        return RDMACH_OK;   /* under way or ready */
    }
    rdmach_status_t st = rch_net_peer_record(ch, c);
    if (st == RDMACH_OK)
        st = c->server ? server_reverse(ch, c) : client_connect(ch, c);
    if (st != RDMACH_OK) {
        rch_net_conn_fail(ch, c, st, rdmach_last_error());
        return st;
    }
    return RDMACH_OK;
}

/* ---- failure ---- */

void rch_net_conn_fail(struct rch_rdma_chan *ch, struct rch_net_conn *c, rdmach_status_t st, const char *why)
{
    if (c->state == RCH_NET_C_FAILED || c->state == RCH_NET_C_CLOSED)
        return;
    if (st >= 0)
        st = RDMACH_ERR_PEER_DEAD;
    RCH_WARN("net", "rank %d: connection %s (was %s): %s", c->rank,
             st == RDMACH_ERR_PEER_DEAD ? "lost" : "failed", rch_net_state_name[c->state], why);
    rch_net_ready_del(ch, c);
    set_state(ch, c, RCH_NET_C_FAILED);
    c->fail_status = st;
    snprintf(c->fail_why, sizeof(c->fail_why), "%s", why);
    close_eps(ch, c);
    ch->nfail_pending++;   /* RMAs failed and the layer above told from progress */
}

/* ---- incoming requests ---- */

static void refuse_as(struct rch_rdma_chan *ch, struct rch_net_cm_event *ev, const char *why, int late)
{
    struct rch_net_cm_priv p;
    fill_priv(ch, NULL, RCH_NET_CM_REFUSE, 0, &p);
    ch->pops->reject(ch->prov, ev->req, &p, sizeof(p));
    ev->req = NULL;
    ch->refused++;
    if (late)
        RCH_DEBUG("net", "refused a late connection request from %s: %s", ev->peer_name[0] ? ev->peer_name : "?",
                  why);
    else
        rch_log_limited(&ch->refuse_log, RCH_LOG_WARN, "net", "refused a connection request from %s: %s",
                        ev->peer_name[0] ? ev->peer_name : "?", why);
}

static void refuse(struct rch_rdma_chan *ch, struct rch_net_cm_event *ev, const char *why)
{
    refuse_as(ch, ev, why, 0);
}

/* A request that quotes the right key from a peer this side has closed,
 * failed or detached (a process of another job after MPI_Comm_disconnect):
 * its side had not seen the end yet when it asked, a race of every
 * teardown, not an outsider's doing: refused without a warning. */
static void refuse_late(struct rch_rdma_chan *ch, struct rch_net_cm_event *ev, const char *why)
{
    refuse_as(ch, ev, why, 1);
}

static void on_connect_req(struct rch_rdma_chan *ch, struct rch_net_cm_event *ev, const struct rch_net_cm_priv *p)
{
    struct rch_net_conn *c = &ch->conns[p->rank];
    char why[160];
    if (!c->server) {
        snprintf(why, sizeof(why), "rank %d asked to connect to a higher rank (%d); the higher rank connects",
                 p->rank, ch->rank);
        refuse(ch, ev, why);
        return;
    }
    if (c->state != RCH_NET_C_IDLE && c->state != RCH_NET_C_REVERSE && c->state != RCH_NET_C_REVERSE_WAIT) {
        snprintf(why, sizeof(why), "rank %d is already %s (a second connection)", p->rank,
                 rch_net_state_name[c->state]);
        refuse(ch, ev, why);
        return;
    }
    if (p->notify != ch->notify) {
        snprintf(why, sizeof(why), "rank %d uses RDMACH_NET_NOTIFY mode %u, this rank %d", p->rank, p->notify,
                 ch->notify);
        refuse(ch, ev, why);
        return;
    }
    rdmach_status_t st = rch_net_peer_record(ch, c);
    if (st == RDMACH_OK)
        st = conn_mem(ch, c);
    if (st != RDMACH_OK) {
        refuse(ch, ev, rdmach_last_error());
        rch_net_conn_fail(ch, c, st, rdmach_last_error());
        return;
    }
    st = ch->pops->ep_open_req(ch->prov, ev->req, &c->ctx, &c->ep);
    ev->req = NULL;   /* consumed, whatever happened */
    if (st == RDMACH_OK)
        st = post_recvs(ch, c);
    if (st == RDMACH_OK) {
        set_peer_ring(ch, c, p);
        struct rch_net_cm_priv a;
        fill_priv(ch, c, RCH_NET_CM_ACCEPT, c->rec.secret, &a);
        st = ch->pops->accept(ch->prov, c->ep, &a, sizeof(a));
    }
    if (st != RDMACH_OK) {
        rch_net_conn_fail(ch, c, st, rdmach_last_error());
        return;
    }
    set_state(ch, c, RCH_NET_C_ACCEPTED);
    c->deadline = rch_base_wtime() + ch->connect_timeout;
    RCH_DEBUG("net", "server: accepted rank %d's connect request (%u receives posted before the accept); "
              "waiting for its NOOP", c->rank, c->nrecv);
}

static void on_reverse_req(struct rch_rdma_chan *ch, struct rch_net_cm_event *ev, const struct rch_net_cm_priv *p)
{
    struct rch_net_conn *c = &ch->conns[p->rank];
    char why[160];
    if (c->server) {
        snprintf(why, sizeof(why), "rank %d sent a reverse request to a lower rank (%d)", p->rank, ch->rank);
        refuse(ch, ev, why);
        return;
    }
    if (c->state == RCH_NET_C_FAILED || c->state == RCH_NET_C_CLOSED) {
        snprintf(why, sizeof(why), "rank %d asks for a connection, but this rank's is %s", p->rank,
                 rch_net_state_name[c->state]);
        refuse(ch, ev, why);
        return;
    }
    rdmach_status_t st = rch_net_peer_record(ch, c);
    if (st != RDMACH_OK) {
        refuse(ch, ev, rdmach_last_error());
        return;
    }
    struct rch_net_cm_priv a;
    fill_priv(ch, c, RCH_NET_CM_REVERSE_ACK, c->rec.secret, &a);
    ch->pops->reject(ch->prov, ev->req, &a, sizeof(a));
    ev->req = NULL;
    RCH_DEBUG("net", "client: rank %d asks for a connection (reverse request acknowledged; connection %s)",
              c->rank, rch_net_state_name[c->state]);
    if (c->state == RCH_NET_C_IDLE)
        rch_net_conn_start(ch, c);
}

static void on_rail_req(struct rch_rdma_chan *ch, struct rch_net_cm_event *ev, const struct rch_net_cm_priv *p)
{
    struct rch_net_conn *c = &ch->conns[p->rank];
    int k = p->rail;
    char why[160];
    if (!c->server) {
        snprintf(why, sizeof(why), "rank %d asked for a data rail to a higher rank (%d)", p->rank, ch->rank);
        refuse(ch, ev, why);
        return;
    }
    if (c->state != RCH_NET_C_ACCEPTED && c->state != RCH_NET_C_READY) {
        snprintf(why, sizeof(why), "rank %d asked for data rail %d while its connection is %s", p->rank, k,
                 rch_net_state_name[c->state]);
        if (c->state == RCH_NET_C_CLOSED || c->state == RCH_NET_C_FAILED || c->detached)
            refuse_late(ch, ev, why);
        else
            refuse(ch, ev, why);
        return;
    }
    if (k >= ch->nrails || c->rail_ep[k]) {
        snprintf(why, sizeof(why), "rank %d asked for data rail %d (%s)", p->rank, k,
                 c->rail_ep[k] ? "it has it already" : "this rank uses fewer (RDMACH_NET_RAILS)");
        refuse(ch, ev, why);
        return;
    }
    rdmach_status_t st = ch->pops->ep_open_req(ch->prov, ev->req, &c->rail_ctx[k], &c->rail_ep[k]);
    ev->req = NULL;   /* consumed, whatever happened */
    if (st == RDMACH_OK) {
        struct rch_net_cm_priv a;
        fill_priv(ch, c, RCH_NET_CM_RAIL_ACCEPT, c->rec.secret, &a);
        a.rail = (uint16_t)k;
        st = ch->pops->accept(ch->prov, c->rail_ep[k], &a, sizeof(a));
    }
    if (st != RDMACH_OK) {
        RCH_WARN("net", "rank %d: data rail %d not accepted (%s); fewer connections carry its rendezvous data",
                 c->rank, k, rdmach_last_error());
        rail_close(ch, c, k);
        return;
    }
    c->rail_busy[k] = 1;
    ch->cm_busy++;
    RCH_DEBUG("net", "server: accepted data rail %d from rank %d", k, c->rank);
}

static void on_connreq(struct rch_rdma_chan *ch, struct rch_net_cm_event *ev)
{
    struct rch_net_cm_priv p;
    const char *why = NULL;
    unsigned kind = ev->priv_len >= 6 ? ((const uint8_t *)ev->priv)[5] : 0;
    if (kind != RCH_NET_CM_CONNECT && kind != RCH_NET_CM_REVERSE && kind != RCH_NET_CM_RAIL) {
        refuse(ch, ev, "not an rdmach connection request");
        return;
    }
    if (rch_net_cm_priv_check(ev->priv, ev->priv_len, kind, ch->jobsize, ch->size, ch->slot_size, ch->nslots, &p, &why) !=
        RDMACH_OK) {
        refuse(ch, ev, why);
        return;
    }
    if (p.key != rch_net_conn_key(ch, &ch->conns[p.rank])) {
        refuse(ch, ev, "wrong key: not a member of this job (or a late request of a process of another job that "
                       "used this number before)");
        return;
    }
    if (!ch->conns[p.rank].is_peer || ch->conns[p.rank].detached) {
        char msg[96];
        snprintf(msg, sizeof(msg), "rank %d is not served by this channel%s", p.rank,
                 ch->conns[p.rank].detached ? " (any more)" : "");
        if (ch->conns[p.rank].detached)
            refuse_late(ch, ev, msg);
        else
            refuse(ch, ev, msg);
        return;
    }
    if (kind == RCH_NET_CM_CONNECT)
        on_connect_req(ch, ev, &p);
    else if (kind == RCH_NET_CM_RAIL)
        on_rail_req(ch, ev, &p);
    else
        on_reverse_req(ch, ev, &p);
}

/* ---- events on our endpoints ---- */

static void on_established(struct rch_rdma_chan *ch, struct rch_net_conn *c, struct rch_net_cm_event *ev)
{
    if (c->server) {
        if (c->state == RCH_NET_C_ACCEPTED)
            RCH_DEBUG("net", "server: connection from rank %d established; waiting for its NOOP (nothing posted)",
                      c->rank);
        return;
    }
    if (c->state != RCH_NET_C_CONNECTING)
        return;
    struct rch_net_cm_priv p;
    const char *why = NULL;
    if (rch_net_cm_priv_check(ev->priv, ev->priv_len, RCH_NET_CM_ACCEPT, ch->jobsize, ch->size, ch->slot_size, ch->nslots, &p,
                              &why) != RDMACH_OK) {
        rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, why);
        return;
    }
    if (p.rank != c->rank || p.key != rch_net_conn_key(ch, c)) {
        rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, "the accept does not come from that rank of this job");
        return;
    }
    set_peer_ring(ch, c, &p);
    rdmach_status_t st = rch_net_post_ctl(ch, c, RCH_NET_CTL_NOOP, 0);
    if (st != RDMACH_OK) {
        rch_net_conn_fail(ch, c, st, rdmach_last_error());
        return;
    }
    c->noop_wait = 1;
    c->noop_next = rch_base_wtime() + RCH_NET_NOOP_REPEAT_AFTER;
    ch->noop_unanswered++;
    set_state(ch, c, RCH_NET_C_READY);
    rch_net_ready_add(ch, c);
    RCH_DEBUG("net", "client: connected to rank %d; NOOP sent first; ready", c->rank);
    client_open_rails(ch, c);
    if (c->rq_head)
        rch_net_set_pending(ch, c);
}

void rch_net_conn_on_noop(struct rch_rdma_chan *ch, struct rch_net_conn *c, const struct rch_net_ctl *m)
{
    if (m->rank != c->rank || m->key != rch_net_conn_key(ch, c)) {
        rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, "the NOOP does not come from that rank of this job");
        return;
    }
    if (c->server && c->state == RCH_NET_C_READY) {
        RCH_DEBUG("net", "server: rank %d sent its NOOP again (our NOOP_ACK had not reached it); ignored",
                  c->rank);
        return;
    }
    if (!c->server || c->state != RCH_NET_C_ACCEPTED) {
        rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, "a NOOP where none was expected");
        return;
    }
    if (RCH_UNLIKELY(ch->test_lose_noops > 0)) {
        ch->test_lose_noops--;
        RCH_DEBUG("net", "server: NOOP from rank %d taken as not arrived (test)", c->rank);
        return;
    }
    set_state(ch, c, RCH_NET_C_READY);
    rch_net_ready_add(ch, c);
    RCH_DEBUG("net", "server: NOOP from rank %d arrived; ready (posts allowed from now on)", c->rank);
    rch_net_send_ack(ch, c);
    if (c->rq_head && c->state == RCH_NET_C_READY)
        rch_net_set_pending(ch, c);
}

void rch_net_conn_on_noop_ack(struct rch_rdma_chan *ch, struct rch_net_conn *c, const struct rch_net_ctl *m)
{
    if (m->rank != c->rank || m->key != rch_net_conn_key(ch, c)) {
        rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, "the NOOP_ACK does not come from that rank of this job");
        return;
    }
    if (c->server || c->state != RCH_NET_C_READY || !c->noop_wait) {
        rch_net_conn_fail(ch, c, RDMACH_ERR_PROTOCOL, "a NOOP_ACK where none was expected");
        return;
    }
    c->noop_wait = 0;
    ch->noop_unanswered--;
    RCH_DEBUG("net", "client: rank %d answered the NOOP (after %u repeats)", c->rank, c->noop_repeats);
}

/* Client: the NOOP of c is unanswered at `now`: send it again when due. */
static void noop_timer(struct rch_rdma_chan *ch, struct rch_net_conn *c, double now)
{
    if (c->state != RCH_NET_C_READY) {   /* failed or closed meanwhile: nothing to wait for */
        c->noop_wait = 0;
        ch->noop_unanswered--;
        return;
    }
    if (now < c->noop_next || c->noop_repeats >= RCH_NET_NOOP_REPEATS)
        return;
    rdmach_status_t st = rch_net_post_ctl(ch, c, RCH_NET_CTL_NOOP, 0);
    if (st == RDMACH_AGAIN)
        return;   /* the control send is busy: next tick */
    if (st != RDMACH_OK) {
        rch_net_conn_fail(ch, c, st, rdmach_last_error());
        return;
    }
    c->noop_repeats++;
    c->noop_next = now + RCH_NET_NOOP_REPEAT_AFTER * (double)(1u << c->noop_repeats);
    RCH_DEBUG("net", "client: rank %d has not answered the NOOP; sent it again (%u of at most %u)", c->rank,
              c->noop_repeats, RCH_NET_NOOP_REPEATS);
}

static void on_reverse_event(struct rch_rdma_chan *ch, struct rch_net_conn *c, struct rch_net_cm_event *ev)
{
    if (c->rev_ep) {
        ch->pops->ep_close(ch->prov, c->rev_ep);
        c->rev_ep = NULL;
    }
    int waiting = c->state == RCH_NET_C_REVERSE || c->state == RCH_NET_C_REVERSE_WAIT;
    if (!waiting)
        return;   /* the client's CONNECT crossed our request: nothing more to do */
    if (ev->type == RCH_NET_EV_REJECTED) {
        struct rch_net_cm_priv p;
        const char *why = NULL;
        if (rch_net_cm_priv_check(ev->priv, ev->priv_len, RCH_NET_CM_REVERSE_ACK, ch->jobsize, ch->size, ch->slot_size,
                                  ch->nslots, &p, &why) == RDMACH_OK &&
            p.rank == c->rank && p.key == rch_net_conn_key(ch, c)) {
            if (c->state == RCH_NET_C_REVERSE)
                RCH_DEBUG("net", "server: rank %d acknowledged the reverse request; waiting for its connect",
                          c->rank);
            set_state(ch, c, RCH_NET_C_REVERSE_WAIT);
            c->next_reverse = rch_base_wtime() + RCH_NET_REVERSE_RETRY;
            return;
        }
        rch_net_conn_fail(ch, c, RDMACH_ERR_CONN_REFUSED, "the peer refused to connect to this rank");
        return;
    }
    if (ev->type == RCH_NET_EV_UNREACHABLE && ev->status == RDMACH_ERR_PEER_DEAD) {
        /* It reached the client's listener and was reset before an answer
         * (the listener's guard, under a flood): ask again in a second. */
        RCH_DEBUG("net", "server: the reverse request to rank %d was reset (%s); asking again", c->rank,
                  rdmach_last_error());
        set_state(ch, c, RCH_NET_C_REVERSE_WAIT);
        c->next_reverse = rch_base_wtime() + RCH_NET_REVERSE_RETRY;
        return;
    }
    if (ev->type == RCH_NET_EV_ESTABLISHED) {
        RCH_WARN("net", "rank %d accepted a reverse request (it should reject it); closed it, still waiting",
                 c->rank);
        return;
    }
    rch_net_conn_fail(ch, c, RDMACH_ERR_PEER_DEAD, "nobody listens at its address any more (died or closed)");
}

void rch_net_conn_event(struct rch_rdma_chan *ch, struct rch_net_cm_event *ev)
{
    if (ev->type == RCH_NET_EV_CONNREQ) {
        on_connreq(ch, ev);
        if (ev->req)   /* a path that neither accepted nor rejected */
            ch->pops->reject(ch->prov, ev->req, NULL, 0);
        return;
    }
    struct rch_net_epctx *x = ev->conn_ctx;
    if (x == NULL)
        return;
    struct rch_net_conn *c = x->conn;
    if (c->detached)   /* an event of an endpoint closed when the record was released */
        return;
    if (x->reverse) {
        on_reverse_event(ch, c, ev);
        return;
    }
    if (x->rail) {
        on_rail_event(ch, c, x->rail, ev);
        return;
    }
    char why[192];
    switch (ev->type) {
    case RCH_NET_EV_ESTABLISHED:
        on_established(ch, c, ev);
        break;
    case RCH_NET_EV_REJECTED:
        rch_net_conn_fail(ch, c, RDMACH_ERR_CONN_REFUSED, "the server refused the connection");
        break;
    case RCH_NET_EV_UNREACHABLE:
        if (client_retry_later(ch, c, ev))
            break;
        snprintf(why, sizeof(why), "cannot connect: %s", rdmach_last_error());
        rch_net_conn_fail(ch, c, RDMACH_ERR_PEER_DEAD, why);
        break;
    case RCH_NET_EV_DISCONNECTED:
        /* Its last messages and BYE may be in the ring, their arrival
         * notices (notify "send") still in the CQ: take those first. */
        rch_net_reap_cq(ch);
        if (c->state == RCH_NET_C_READY)
            rch_net_ring_progress(ch, c, UINT32_MAX);
        if (c->bye_received || c->state == RCH_NET_C_CLOSED) {
            if (c->state != RCH_NET_C_CLOSED)
                set_state(ch, c, RCH_NET_C_CLOSED);
            RCH_DEBUG("net", "rank %d: disconnected after its BYE", c->rank);
            break;
        }
        rch_net_conn_fail(ch, c, RDMACH_ERR_PEER_DEAD, "the peer disconnected (it died or closed its channel)");
        break;
    default:
        break;
    }
}

void rch_net_conn_timers(struct rch_rdma_chan *ch, double now)
{
    for (int r = 0; r < ch->size && (ch->cm_busy || ch->noop_unanswered); r++) {
        struct rch_net_conn *c = &ch->conns[r];
        if (c->noop_wait)
            noop_timer(ch, c, now);
        if (!transitional(c->state))
            continue;
        if (now >= c->deadline) {
            char why[128];
            snprintf(why, sizeof(why), "no connection after %.0f s (RDMACH_NET_CONNECT_TIMEOUT)",
                     ch->connect_timeout);
            rch_net_conn_fail(ch, c, RDMACH_ERR_TIMEOUT, why);
            continue;
        }
        if (c->state == RCH_NET_C_CONNECTING && c->ep == NULL && now >= c->retry_at) {
            client_retry(ch, c);
            continue;
        }
        if (c->state == RCH_NET_C_REVERSE_WAIT && c->rev_ep == NULL && now >= c->next_reverse) {
            c->next_reverse = now + RCH_NET_REVERSE_RETRY;
            rdmach_status_t st = server_reverse(ch, c);
            if (st != RDMACH_OK)
                rch_net_conn_fail(ch, c, st, rdmach_last_error());
        }
    }
}

/* ---- closing ---- */

/* Sends c's BYE when it is due (a full ring waits for its credits): 1
 * while it, or a write before it, is still on its way. */
static int bye_busy(struct rch_rdma_chan *ch, struct rch_net_conn *c)
{
    int busy = 0;
    if (!c->is_peer || !c->slot_ops || c->detached)   /* a detached one's flags are stale if it was forced */
        return 0;
    if (c->state == RCH_NET_C_READY) {
        rch_net_send_bye(ch, c);
        busy |= c->state == RCH_NET_C_READY;
    }
    if (c->state == RCH_NET_C_CLOSED && !c->bye_received) {
        for (uint32_t i = 0; i < ch->nslots && !busy; i++)
            busy = c->slot_ops[i].busy;
        busy |= c->ctl_op.busy || c->crdt_op.busy;
    }
    return busy;
}

void rch_net_conn_close_all(struct rch_rdma_chan *ch)
{
    ch->closing = 1;
    /* Every ready connection ends with a BYE slot, and the writes leave
     * before the endpoints close: bounded. */
    double until = rch_base_wtime() + 2.0;
    for (;;) {
        int busy = 0;
        for (int r = 0; r < ch->size; r++)
            busy |= bye_busy(ch, &ch->conns[r]);
        if (!busy || rch_base_wtime() >= until)
            break;
        rch_net_progress(ch, 64);
    }
    for (int r = 0; r < ch->size; r++) {
        struct rch_net_conn *c = &ch->conns[r];
        if (!c->is_peer)
            continue;
        rch_net_ready_del(ch, c);
        close_eps(ch, c);
    }
}

/* The peer sees a BYE behind our last message (no failure: net_msg.c
 * reports it as left), or, when it sent its own first, our endpoint's
 * close after its BYE. What is still unfinished to it (nothing, after
 * MPI_Comm_disconnect's agreement) fails as on a lost connection. The
 * record's operation contexts stay: a completion of this connection that
 * the CQ still holds is dropped by the progress engine (c->detached). */
rdmach_status_t rch_net_conn_detach(struct rch_rdma_chan *ch, struct rch_net_conn *c, int force)
{
    if (c->detached)
        return RDMACH_OK;
    if (bye_busy(ch, c) && !force)
        return RDMACH_AGAIN;
    rch_net_ready_del(ch, c);
    rch_net_pending_del(ch, c);
    if (c->state != RCH_NET_C_CLOSED && c->state != RCH_NET_C_FAILED)
        set_state(ch, c, RCH_NET_C_CLOSED);
    rch_net_rma_fail_conn(ch, c, RDMACH_ERR_PEER_DEAD);
    rch_net_zc_fail_conn(ch, c, RDMACH_ERR_PEER_DEAD);
    if (c->noop_wait) {
        c->noop_wait = 0;
        ch->noop_unanswered--;
    }
    c->fail_reported = 1;   /* a failure seen on the way is no longer anybody's to hear of */
    release(ch, c);
    c->detached = 1;
    RCH_DEBUG("net", "rank %d: connection released (detached)", c->rank);
    return RDMACH_OK;
}
