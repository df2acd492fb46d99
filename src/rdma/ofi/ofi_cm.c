/*
 * libfabric provider: endpoints and connection management.
 *
 * An active endpoint is made from the listener's fi_info with the peer's
 * address as destination; a passive-side endpoint from the FI_CONNREQ
 * event's fi_info. Both are bound to the one EQ and CQ and enabled before
 * anything is posted, so the channel can post receives before it connects
 * or accepts.
 *
 * Events (fi_eq_read, which also drives the tcp provider's connection
 * progress): FI_CONNREQ -> CONNREQ with the request's private data;
 * FI_CONNECTED -> ESTABLISHED (the client gets the accept's private data);
 * FI_SHUTDOWN -> DISCONNECTED. Errors (fi_eq_readerr): FI_ECONNREFUSED with
 * private data is a reject by the peer's application -> REJECTED; anything
 * else (nobody listening, reset) -> UNREACHABLE.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/log.h"
#include "rdma/ofi/ofi.h"

#if RDMACH_HAVE_OFI

#define OFI_ACCEPTS_PER_POLL 64u

static rdmach_status_t ep_setup(struct rch_net_prov *p, struct fi_info *info, void *conn_ctx,
                                struct rch_net_ep **out)
{
    struct rch_net_ep *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "ofi: no memory for an endpoint");
    e->conn_ctx = conn_ctx;
    int ret;
    /* Out of descriptors (strangers' connections, or ours): the guard's
     * reserve gives them back one at a time. */
    while ((ret = fi_endpoint(p->domain, info, &e->ep, conn_ctx)) == -EMFILE || ret == -ENFILE)
        if (!rch_ofi_guard_release(p))
            break;
    if (ret) {
        free(e);
        return rch_ofi_err(ret, "fi_endpoint");
    }
    if ((ret = fi_ep_bind(e->ep, &p->eq->fid, 0)) != 0 ||
        (ret = fi_ep_bind(e->ep, &p->cq->fid, FI_TRANSMIT | FI_RECV)) != 0 || (ret = fi_enable(e->ep)) != 0) {
        fi_close(&e->ep->fid);
        free(e);
        return rch_ofi_err(ret, "binding or enabling an endpoint");
    }
    *out = e;
    return RDMACH_OK;
}

rdmach_status_t rch_ofi_ep_open(struct rch_net_prov *p, const void *addr, size_t addrlen, void *conn_ctx,
                                struct rch_net_ep **ep)
{
    if (addrlen > RCH_NET_ADDR_MAX)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "ofi: a %zu-byte address is too long", addrlen);
    struct fi_info *info = fi_dupinfo(p->info);
    if (info == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "ofi: fi_dupinfo failed");
    free(info->dest_addr);
    info->dest_addr = malloc(addrlen);
    if (info->dest_addr == NULL) {
        fi_freeinfo(info);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "ofi: no memory");
    }
    memcpy(info->dest_addr, addr, addrlen);
    info->dest_addrlen = addrlen;
    rdmach_status_t st = ep_setup(p, info, conn_ctx, ep);
    fi_freeinfo(info);
    if (st == RDMACH_OK) {
        memcpy((*ep)->addr, addr, addrlen);
        (*ep)->addrlen = addrlen;
    }
    return st;
}

rdmach_status_t rch_ofi_ep_open_req(struct rch_net_prov *p, struct rch_net_conn_req *req, void *conn_ctx,
                                    struct rch_net_ep **ep)
{
    rdmach_status_t st = ep_setup(p, req->info, conn_ctx, ep);
    if (st != RDMACH_OK)
        fi_reject(p->pep, req->info->handle, NULL, 0);
    fi_freeinfo(req->info);
    free(req);
    return st;
}

rdmach_status_t rch_ofi_connect(struct rch_net_prov *p, struct rch_net_ep *ep, const void *priv, size_t len)
{
    int ret = fi_connect(ep->ep, ep->addr, priv, len);
    return ret ? rch_ofi_err(ret, "fi_connect") : RDMACH_OK;
}

rdmach_status_t rch_ofi_accept(struct rch_net_prov *p, struct rch_net_ep *ep, const void *priv, size_t len)
{
    int ret = fi_accept(ep->ep, priv, len);
    return ret ? rch_ofi_err(ret, "fi_accept") : RDMACH_OK;
}

void rch_ofi_reject(struct rch_net_prov *p, struct rch_net_conn_req *req, const void *priv, size_t len)
{
    int ret = fi_reject(p->pep, req->info->handle, priv, len);
    if (ret)
        RCH_DEBUG("net", "ofi: fi_reject: %s", fi_strerror(-ret));
    fi_freeinfo(req->info);
    free(req);
}

void rch_ofi_ep_close(struct rch_net_prov *p, struct rch_net_ep *ep)
{
    if (ep == NULL)
        return;
    fi_shutdown(ep->ep, 0);
    fi_close(&ep->ep->fid);
    free(ep);
}

static void addr_text(const struct fi_info *info, char *buf, size_t len)
{
    buf[0] = '\0';
    if (info == NULL || info->dest_addr == NULL)
        return;
    const struct sockaddr *sa = info->dest_addr;
    char host[INET6_ADDRSTRLEN] = "?";
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *s4 = info->dest_addr;
        inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
        snprintf(buf, len, "%s:%u", host, ntohs(s4->sin_port));
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = info->dest_addr;
        inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
        snprintf(buf, len, "[%s]:%u", host, ntohs(s6->sin6_port));
    } else {
        snprintf(buf, len, "an address of family %d", sa->sa_family);
    }
}

static void *ctx_of(const struct fid *fid)
{
    return fid ? fid->context : NULL;
}

/* One error entry of the EQ as an event; 0 if it concerns nothing of ours. */
static int read_error(struct rch_net_prov *p, struct rch_net_cm_event *ev)
{
    struct fi_eq_err_entry err;
    memset(&err, 0, sizeof(err));
    ssize_t r = fi_eq_readerr(p->eq, &err, 0);
    if (r < 0)
        return 0;
    memset(ev, 0, sizeof(*ev));
    if (err.fid == NULL || err.fid == &p->pep->fid) {
        RCH_DEBUG("net", "ofi: listener error: %s", fi_strerror(err.err));
        return 0;
    }
    ev->conn_ctx = ctx_of(err.fid);
    if (err.err == FI_ECONNREFUSED && err.err_data && err.err_data_size > 0) {
        ev->type = RCH_NET_EV_REJECTED;
        ev->priv_len = err.err_data_size < sizeof(ev->priv) ? err.err_data_size : sizeof(ev->priv);
        memcpy(ev->priv, err.err_data, ev->priv_len);
        ev->status = RDMACH_ERR_CONN_REFUSED;
        return 1;
    }
    ev->type = RCH_NET_EV_UNREACHABLE;
    char what[160];
    const char *detail = err.prov_errno ? fi_eq_strerror(p->eq, err.prov_errno, err.err_data, NULL, 0) : NULL;
    snprintf(what, sizeof(what), "connection%s%s%s", detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
    ev->status = rch_ofi_err(err.err ? -err.err : -FI_EIO, what);
    return 1;
}

unsigned rch_ofi_poll_cm(struct rch_net_prov *p, struct rch_net_cm_event *ev, unsigned max)
{
    unsigned n = 0;
    union {
        struct fi_eq_cm_entry e;
        uint8_t bytes[sizeof(struct fi_eq_cm_entry) + RCH_NET_EV_PRIV_MAX];
    } buf;
    /* Each fi_eq_read accepts one connection at most: while the listener
     * has more, read on (up to OFI_ACCEPTS_PER_POLL), so that a member's
     * connection queued behind a stranger's is reached soon and the
     * listen queue does not stay full. */
    unsigned accepts = 0;
    while (n < max) {
        uint32_t event = 0;
        int accepting = rch_ofi_guard_before_read(p);
        ssize_t r = fi_eq_read(p->eq, &event, &buf, sizeof(buf), 0);
        if (r == -FI_EAGAIN && accepting && ++accepts < OFI_ACCEPTS_PER_POLL)
            continue;
        if (r == -FI_EAGAIN)
            break;
        if (r == -FI_EAVAIL) {
            n += (unsigned)read_error(p, &ev[n]);
            continue;
        }
        if (r < 0) {
            RCH_DEBUG("net", "ofi: fi_eq_read: %s", fi_strerror((int)-r));
            break;
        }
        struct rch_net_cm_event *e = &ev[n];
        memset(e, 0, sizeof(*e));
        size_t plen = (size_t)r > sizeof(buf.e) ? (size_t)r - sizeof(buf.e) : 0;
        if (plen > sizeof(e->priv))
            plen = sizeof(e->priv);
        switch (event) {
        case FI_CONNREQ: {
            struct rch_net_conn_req *req = malloc(sizeof(*req));
            if (req == NULL) {
                fi_reject(p->pep, buf.e.info->handle, NULL, 0);
                fi_freeinfo(buf.e.info);
                continue;
            }
            req->info = buf.e.info;
            e->type = RCH_NET_EV_CONNREQ;
            e->req = req;
            addr_text(buf.e.info, e->peer_name, sizeof(e->peer_name));
            break;
        }
        case FI_CONNECTED:
            e->type = RCH_NET_EV_ESTABLISHED;
            e->conn_ctx = ctx_of(buf.e.fid);
            break;
        case FI_SHUTDOWN:
            e->type = RCH_NET_EV_DISCONNECTED;
            e->conn_ctx = ctx_of(buf.e.fid);
            e->status = rch_base_err(RDMACH_ERR_PEER_DEAD, "ofi: the connection was shut down");
            break;
        default:
            RCH_DEBUG("net", "ofi: EQ event %u ignored", event);
            continue;
        }
        e->priv_len = plen;
        if (plen)
            memcpy(e->priv, buf.bytes + sizeof(buf.e), plen);
        n++;
    }
    return n;
}

#endif /* RDMACH_HAVE_OFI */
