/*
 * verbs provider: endpoints and connection management with RDMA CM.
 *
 * An endpoint is a cm id with an RC QP on the provider's PD and CQ.
 *   active   ep_open: rdma_create_id, rdma_bind_addr(this rank's address),
 *            rdma_create_qp (possible once bound: the id has its device), so
 *            the channel can post receives; connect: rdma_resolve_addr, then
 *            from poll_cm ADDR_RESOLVED -> rdma_resolve_route, ROUTE_RESOLVED
 *            -> rdma_connect with the private data kept in the endpoint
 *   passive  CONNECT_REQUEST on the listener carries a new cm id: ep_open_req
 *            makes its QP, accept() is rdma_accept, reject() rdma_reject
 *
 * Events (rdma_get_cm_event on the non-blocking channel; each is copied and
 * acknowledged at once, so rdma_destroy_id never waits on us):
 *   CONNECT_REQUEST               -> CONNREQ with the requester's private data
 *   ESTABLISHED                   -> ESTABLISHED (active side: the accept's data)
 *   REJECTED carrying rdmach data -> REJECTED (the peer's application said no)
 *   REJECTED otherwise, ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, CONNECT_ERROR
 *                                 -> UNREACHABLE (nobody listens, no route, timeout)
 *   DISCONNECTED, DEVICE_REMOVAL  -> DISCONNECTED
 * Cost: fetching an event is a system call (rdma_get_cm_event writes to the
 * rdma_cm fd) even when there is none. The channel asks often (every 64
 * progress calls when idle); while none of our connects or accepts is under
 * way, the kernel is asked at most every RCH_VERBS_CM_IDLE_NS (a request or a
 * disconnect waits that much longer to be seen), so an idle poll costs a
 * clock read, not a system call.
 * Private data lengths differ by transport (an IB/RoCE reject always carries
 * 148 bytes, zeros where the peer put nothing), so a reject is told from a
 * refusal by the rdmach magic at its start; the channel validates the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/log.h"
#include "rdma/verbs/verbs.h"

#if RDMACH_HAVE_VERBS

static void setup_begin(struct rch_net_prov *p, struct rch_net_ep *e)
{
    if (!e->in_setup) {
        e->in_setup = 1;
        p->nsetup++;
    }
}

static void setup_end(struct rch_net_prov *p, struct rch_net_ep *e)
{
    if (e->in_setup) {
        e->in_setup = 0;
        p->nsetup--;
    }
}

static void ep_link(struct rch_net_prov *p, struct rch_net_ep *e)
{
    e->prev = NULL;
    e->next = p->eps;
    if (p->eps)
        p->eps->prev = e;
    p->eps = e;
}

static void ep_unlink(struct rch_net_prov *p, struct rch_net_ep *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        p->eps = e->next;
    if (e->next)
        e->next->prev = e->prev;
    e->next = e->prev = NULL;
}

static rdmach_status_t create_qp(struct rch_net_prov *p, struct rch_net_ep *e)
{
    struct ibv_qp_init_attr a = {
        .qp_context = e, .send_cq = p->cq, .recv_cq = p->cq, .qp_type = IBV_QPT_RC, .sq_sig_all = 0,
        .cap = { .max_send_wr = p->sq_depth, .max_recv_wr = p->rq_depth, .max_send_sge = p->send_sge, .max_recv_sge = 1,
                 .max_inline_data = p->max_inline },
    };
    if (e->id->verbs != p->verbs)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "verbs: a connection landed on device %s, not %s (the "
                            "listener's)", e->id->verbs ? ibv_get_device_name(e->id->verbs->device) : "(none)",
                            p->where.dev);
    if (rdma_create_qp(e->id, p->pd, &a) != 0) {
        char what[96];
        snprintf(what, sizeof(what), "rdma_create_qp on %s", p->where.dev);
        return rch_verbs_err(errno, what);
    }
    e->have_qp = 1;
    return RDMACH_OK;
}

rdmach_status_t rch_verbs_ep_open(struct rch_net_prov *p, const void *addr, size_t addrlen, void *conn_ctx,
                                  struct rch_net_ep **ep)
{
    const struct sockaddr *sa = addr;
    if (addrlen < sizeof(struct sockaddr_in) || addrlen > sizeof(struct sockaddr_storage) ||
        (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "verbs: a %zu-byte address of family %d is no IP address",
                            addrlen, addrlen >= sizeof(sa->sa_family) ? sa->sa_family : -1);
    struct rch_net_ep *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "verbs: no memory for an endpoint");
    e->conn_ctx = conn_ctx;
    e->active = 1;
    memcpy(&e->dst, addr, addrlen);
    e->dstlen = (socklen_t)addrlen;
    rdmach_status_t st = RDMACH_OK;
    if (rdma_create_id(p->ec, &e->id, e, RDMA_PS_TCP) != 0) {
        st = rch_verbs_err(errno, "rdma_create_id");
        free(e);
        return st;
    }
    /* Bound to our own address: the QP lives on our device, and can be made now. */
    if (rdma_bind_addr(e->id, (struct sockaddr *)&p->where.addr) != 0) {
        char what[128];
        snprintf(what, sizeof(what), "rdma_bind_addr to %s for a connection", p->where.addr_text);
        st = rch_verbs_err(errno, what);
    } else {
        st = create_qp(p, e);
    }
    if (st != RDMACH_OK) {
        rdma_destroy_id(e->id);
        free(e);
        return st;
    }
    ep_link(p, e);
    *ep = e;
    return RDMACH_OK;
}

rdmach_status_t rch_verbs_ep_open_req(struct rch_net_prov *p, struct rch_net_conn_req *req, void *conn_ctx,
                                      struct rch_net_ep **ep)
{
    struct rch_net_ep *e = calloc(1, sizeof(*e));
    rdmach_status_t st;
    if (e == NULL) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "verbs: no memory for an endpoint");
        goto out_reject;
    }
    e->conn_ctx = conn_ctx;
    e->id = req->id;
    e->id->context = e;
    e->peer_init_depth = req->initiator_depth;
    e->peer_resp_res = req->responder_resources;
    st = create_qp(p, e);
    if (st != RDMACH_OK)
        goto out_free;
    ep_link(p, e);
    free(req);
    *ep = e;
    return RDMACH_OK;

out_free:
    free(e);
out_reject:
    rdma_reject(req->id, NULL, 0);
    rdma_destroy_id(req->id);
    free(req);
    return st;
}

rdmach_status_t rch_verbs_connect(struct rch_net_prov *p, struct rch_net_ep *ep, const void *priv, size_t len)
{
    if (len > RCH_VERBS_PRIV_MAX)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "verbs: %zu bytes of connection data, at most %d fit", len,
                            RCH_VERBS_PRIV_MAX);
    if (!ep->active || ep->connecting)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "verbs: connect on an endpoint that is %s",
                            ep->active ? "already connecting" : "passive");
    memcpy(ep->priv, priv, len);
    ep->priv_len = (uint8_t)len;
    if (rdma_resolve_addr(ep->id, NULL, (struct sockaddr *)&ep->dst, RCH_VERBS_RESOLVE_MS) != 0) {
        char what[128], dst[64];
        rch_verbs_addr_text((struct sockaddr *)&ep->dst, dst, sizeof(dst));
        snprintf(what, sizeof(what), "rdma_resolve_addr of %s", dst);
        return rch_verbs_err(errno, what);
    }
    ep->connecting = 1;
    setup_begin(p, ep);
    return RDMACH_OK;
}

rdmach_status_t rch_verbs_accept(struct rch_net_prov *p, struct rch_net_ep *ep, const void *priv, size_t len)
{
    /* we serve no more reads than the requester issues, and issue no more than it serves
     * (0: the transport did not say, e.g. MPA version 1) */
    uint8_t peer_reads = ep->peer_init_depth ? ep->peer_init_depth : p->resp_res;
    uint8_t peer_serves = ep->peer_resp_res ? ep->peer_resp_res : p->init_depth;
    struct rdma_conn_param cp = {
        .private_data = priv,
        .private_data_len = (uint8_t)len,
        .responder_resources = p->resp_res < peer_reads ? p->resp_res : peer_reads,
        .initiator_depth = p->init_depth < peer_serves ? p->init_depth : peer_serves,
        .rnr_retry_count = 7,
    };
    if (rdma_accept(ep->id, &cp) != 0)
        return rch_verbs_err(errno, "rdma_accept");
    ep->connecting = 1;
    setup_begin(p, ep);
    return RDMACH_OK;
}

void rch_verbs_reject(struct rch_net_prov *p, struct rch_net_conn_req *req, const void *priv, size_t len)
{
    if (rdma_reject(req->id, priv, (uint8_t)len) != 0)
        RCH_DEBUG("verbs", "rdma_reject: %s", strerror(errno));
    rdma_destroy_id(req->id);
    free(req);
}

void rch_verbs_ep_close(struct rch_net_prov *p, struct rch_net_ep *ep)
{
    if (ep == NULL)
        return;
    ep_unlink(p, ep);
    setup_end(p, ep);
    if (ep->connecting)
        rdma_disconnect(ep->id);   /* the QP goes to error: its work requests are flushed */
    if (ep->have_qp)
        rdma_destroy_qp(ep->id);
    rdma_destroy_id(ep->id);
    free(ep);
}

/* ---- events ---- */

/* What we keep of an event: it is acknowledged before we act on it. */
struct cm_copy {
    enum rdma_cm_event_type type;
    struct rdma_cm_id *id;
    int status;
    uint8_t initiator_depth, responder_resources;
    size_t priv_len;
    uint8_t priv[RCH_NET_EV_PRIV_MAX];
};

static int unreachable(struct rch_net_ep *e, struct rch_net_cm_event *ev, rdmach_status_t st)
{
    e->connecting = 0;
    ev->type = RCH_NET_EV_UNREACHABLE;
    ev->conn_ctx = e->conn_ctx;
    ev->status = st;
    return 1;
}

static int route_resolved(struct rch_net_prov *p, struct rch_net_ep *e, struct rch_net_cm_event *ev)
{
    struct rdma_conn_param cp = {
        .private_data = e->priv,
        .private_data_len = e->priv_len,
        .responder_resources = p->resp_res,
        .initiator_depth = p->init_depth,
        .retry_count = 7,
        .rnr_retry_count = 7,
    };
    if (rdma_connect(e->id, &cp) != 0)
        return unreachable(e, ev, rch_verbs_err(errno, "rdma_connect"));
    return 0;
}

static int connect_request(struct rch_net_prov *p, const struct cm_copy *c, struct rch_net_cm_event *ev)
{
    /* Requests come from anyone: a limited line, like the channel's
     * refusals (a counter only; the channels run on one thread). */
    static struct rch_log_limit nomem_log;
    struct rch_net_conn_req *req = malloc(sizeof(*req));
    if (req == NULL) {
        rdma_reject(c->id, NULL, 0);
        rdma_destroy_id(c->id);
        rch_log_limited(&nomem_log, RCH_LOG_WARN, "verbs", "no memory for a connection request: rejected");
        return 0;
    }
    c->id->context = NULL;
    req->id = c->id;
    req->initiator_depth = c->initiator_depth;
    req->responder_resources = c->responder_resources;
    ev->type = RCH_NET_EV_CONNREQ;
    ev->req = req;
    rch_verbs_addr_text(rdma_get_peer_addr(c->id), ev->peer_name, sizeof(ev->peer_name));
    return 1;
}

static int rejected(struct rch_net_ep *e, const struct cm_copy *c, struct rch_net_cm_event *ev)
{
    uint32_t magic = 0;
    if (c->priv_len >= sizeof(magic))
        memcpy(&magic, c->priv, sizeof(magic));
    if (magic == RCH_NET_MAGIC) {
        e->connecting = 0;
        ev->type = RCH_NET_EV_REJECTED;
        ev->conn_ctx = e->conn_ctx;
        ev->status = RDMACH_ERR_CONN_REFUSED;
        ev->priv_len = c->priv_len;
        memcpy(ev->priv, c->priv, c->priv_len);
        return 1;
    }
    char dst[64];
    rch_verbs_addr_text((struct sockaddr *)&e->dst, dst, sizeof(dst));
    return unreachable(e, ev, rch_base_err(RDMACH_ERR_CONN_REFUSED, "verbs: the connection to %s was refused by the "
                                           "transport (status %d: nobody listens there?)", dst, c->status));
}

/* One event as zero or one channel event. */
static int translate(struct rch_net_prov *p, const struct cm_copy *c, struct rch_net_cm_event *ev)
{
    memset(ev, 0, sizeof(*ev));
    if (c->type == RDMA_CM_EVENT_CONNECT_REQUEST) {
        if (!connect_request(p, c, ev))
            return 0;
        ev->priv_len = c->priv_len;
        memcpy(ev->priv, c->priv, c->priv_len);
        return 1;
    }
    struct rch_net_ep *e = c->id ? c->id->context : NULL;
    if (e == NULL || c->id == p->listen_id) {
        RCH_DEBUG("verbs", "CM event %s on the listener ignored", rdma_event_str(c->type));
        return 0;
    }
    if (c->type != RDMA_CM_EVENT_ADDR_RESOLVED && c->type != RDMA_CM_EVENT_ROUTE_RESOLVED)
        setup_end(p, e);   /* established, refused, failed or ended */
    char what[160];
    switch (c->type) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(e->id, RCH_VERBS_RESOLVE_MS) != 0)
            return unreachable(e, ev, rch_verbs_err(errno, "rdma_resolve_route"));
        return 0;
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
        return route_resolved(p, e, ev);
    case RDMA_CM_EVENT_ADDR_ERROR:
    case RDMA_CM_EVENT_ROUTE_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_CONNECT_ERROR: {
        char dst[64] = "the peer";
        if (e->active)
            rch_verbs_addr_text((struct sockaddr *)&e->dst, dst, sizeof(dst));
        snprintf(what, sizeof(what), "connection to %s: %s", dst, rdma_event_str(c->type));
        int err = c->status < 0 ? -c->status : c->status;
        return unreachable(e, ev, rch_verbs_err(err ? err : ETIMEDOUT, what));
    }
    case RDMA_CM_EVENT_REJECTED:
        return rejected(e, c, ev);
    case RDMA_CM_EVENT_ESTABLISHED:
        ev->type = RCH_NET_EV_ESTABLISHED;
        ev->conn_ctx = e->conn_ctx;
        ev->priv_len = c->priv_len;
        memcpy(ev->priv, c->priv, c->priv_len);
        return 1;
    case RDMA_CM_EVENT_DISCONNECTED:
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
        ev->type = RCH_NET_EV_DISCONNECTED;
        ev->conn_ctx = e->conn_ctx;
        ev->status = rch_base_err(RDMACH_ERR_PEER_DEAD, "verbs: %s",
                                  c->type == RDMA_CM_EVENT_DISCONNECTED ? "the peer disconnected"
                                                                        : "the RDMA device was removed");
        return 1;
    default:
        RCH_DEBUG("verbs", "CM event %s ignored", rdma_event_str(c->type));
        return 0;
    }
}

unsigned rch_verbs_poll_cm(struct rch_net_prov *p, struct rch_net_cm_event *ev, unsigned max)
{
    unsigned n = 0;
    uint64_t now = rch_base_now_ns();
    if (p->nsetup == 0 && now < p->next_cm_poll)
        return 0;
    p->next_cm_poll = now + RCH_VERBS_CM_IDLE_NS;
    while (n < max) {
        struct rdma_cm_event *e;
        if (rdma_get_cm_event(p->ec, &e) != 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                RCH_DEBUG("verbs", "rdma_get_cm_event: %s", strerror(errno));
            break;
        }
        struct cm_copy c = {
            .type = e->event, .id = e->id, .status = e->status,
            .initiator_depth = e->param.conn.initiator_depth,
            .responder_resources = e->param.conn.responder_resources,
        };
        if (e->param.conn.private_data && e->param.conn.private_data_len) {
            c.priv_len = e->param.conn.private_data_len;   /* a uint8_t: always fits c.priv */
            memcpy(c.priv, e->param.conn.private_data, c.priv_len);
        }
        rdma_ack_cm_event(e);
        RCH_DEBUG("verbs", "CM event %s (status %d, %zu bytes of data)", rdma_event_str(c.type), c.status,
                  c.priv_len);
        n += (unsigned)translate(p, &c, &ev[n]);
    }
    return n;
}

#endif /* RDMACH_HAVE_VERBS */
