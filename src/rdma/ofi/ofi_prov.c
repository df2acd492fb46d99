/*
 * libfabric provider: choosing a provider and interface, opening the
 * fabric, domain, event queue, completion queue and the passive endpoint
 * (the listener), capabilities, and the wait object.
 *
 * Choice: fi_getinfo for FI_EP_MSG with FI_MSG | FI_RMA, the provider named
 * by RDMACH_OFI_PROVIDER if set; among the answers (libfabric's order of
 * preference) the first one, taking an IPv4 interface of that provider over
 * an IPv6 one (a link-local IPv6 address needs a scope a peer does not know).
 *
 * Placement order (caps.in_order, which lets the channel poll ring memory):
 * declared for the stream providers, tcp and sockets: the bytes of an RDMA
 * write travel in the TCP byte stream and the target's provider copies them
 * into memory front to back, in our own thread (inside fi_cq_read), so when
 * a slot's tail is visible everything before it is too. Others get 0: the
 * channel then uses write-with-data or a doorbell send.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/dl.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/ofi/ofi.h"

#if RDMACH_HAVE_OFI

#define OFI_VERSION FI_VERSION(1, 5)

rdmach_status_t rch_ofi_err(int ret, const char *what)
{
    int e = ret < 0 ? -ret : ret;
    rdmach_status_t st;
    switch (e) {
    case FI_ENOMEM:
        st = RDMACH_ERR_NO_MEMORY;
        break;
    case FI_EAGAIN:
        st = RDMACH_AGAIN;
        break;
    case FI_ENODATA:
    case FI_ENOSYS:
    case FI_EOPNOTSUPP:
        st = RDMACH_ERR_UNSUPPORTED;
        break;
    case FI_ECONNREFUSED:
        st = RDMACH_ERR_CONN_REFUSED;
        break;
    case FI_ECONNRESET:
    case FI_ECONNABORTED:
    case FI_ENOTCONN:
    case FI_ESHUTDOWN:
    case EPIPE:
        st = RDMACH_ERR_PEER_DEAD;
        break;
    case FI_ETIMEDOUT:
        st = RDMACH_ERR_TIMEOUT;
        break;
    case FI_ECANCELED:
        st = RDMACH_ERR_CANCELED;
        break;
    case FI_EINVAL:
        st = RDMACH_ERR_INVALID_ARG;
        break;
    default:
        st = RDMACH_ERR_IO;
        break;
    }
    if (st == RDMACH_AGAIN)
        return st;
    return rch_base_err(st, "ofi: %s: %s", what, fi_strerror(e));
}

static struct fi_info *make_hints(void)
{
    struct fi_info *h = fi_allocinfo();
    if (h == NULL)
        return NULL;
    h->caps = FI_MSG | FI_RMA;
    h->mode = 0;
    h->rx_attr->mode = FI_RX_CQ_DATA;
    h->ep_attr->type = FI_EP_MSG;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    if (rch_tun.ofi_provider[0])
        h->fabric_attr->prov_name = strdup(rch_tun.ofi_provider);
    return h;
}

/* The first usable answer, IPv4 preferred within its provider. */
static struct fi_info *pick(struct fi_info *list)
{
    struct fi_info *first = NULL;
    for (struct fi_info *i = list; i; i = i->next) {
        if (i->ep_attr->type != FI_EP_MSG || (i->caps & (FI_MSG | FI_RMA)) != (FI_MSG | FI_RMA))
            continue;
        if (first == NULL)
            first = i;
        if (strcmp(i->fabric_attr->prov_name, first->fabric_attr->prov_name) == 0 &&
            i->addr_format == FI_SOCKADDR_IN)
            return i;
    }
    return first;
}

static rdmach_status_t get_info(struct fi_info **out)
{
    rdmach_status_t st = rch_base_dl_open(&rch_base_dl_ofi);
    if (st != RDMACH_OK)
        return st;
    struct fi_info *hints = make_hints(), *list = NULL;
    if (hints == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "ofi: fi_allocinfo failed");
    int ret = fi_getinfo(OFI_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (ret == -FI_ENODATA || (ret == 0 && list == NULL))
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "ofi: no libfabric provider%s%s%s offers MSG endpoints with RMA",
                            rch_tun.ofi_provider[0] ? " named '" : "", rch_tun.ofi_provider,
                            rch_tun.ofi_provider[0] ? "' (RDMACH_OFI_PROVIDER)" : "");
    if (ret != 0)
        return rch_ofi_err(ret, "fi_getinfo");
    struct fi_info *i = pick(list);
    if (i == NULL) {
        fi_freeinfo(list);
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "ofi: no provider answer has FI_EP_MSG with FI_MSG and FI_RMA");
    }
    *out = fi_dupinfo(i);
    fi_freeinfo(list);
    return *out ? RDMACH_OK : rch_base_err(RDMACH_ERR_NO_MEMORY, "ofi: fi_dupinfo failed");
}

static rdmach_status_t ofi_query(void)
{
    struct fi_info *i = NULL;
    rdmach_status_t st = get_info(&i);
    if (st == RDMACH_OK)
        fi_freeinfo(i);
    return st;
}

static int is_stream(const char *prov)
{
    return strcmp(prov, "tcp") == 0 || strcmp(prov, "sockets") == 0 || strcmp(prov, "net") == 0;
}

/* Rendezvous profile per provider (caps.rndv_put: RDMACH_RNDV_MODE=auto
 * moves rendezvous data by sender PUT instead of receiver GET). tcp: its
 * fi_read is emulated, a request the target's progress must answer; with
 * bench/bw between two pretend nodes PUT moved 1.4-1.7x the bytes of GET
 * from 64 KiB to 1 MiB and the same at 4 MiB (docs/NETWORK.md). Providers
 * not listed (not measured) keep GET. */
static const struct { const char *prov; int rndv_put; } ofi_profiles[] = {
    { "tcp", 1 },
};

static int ofi_rndv_put(const char *prov)
{
    for (size_t i = 0; i < sizeof(ofi_profiles) / sizeof(ofi_profiles[0]); i++)
        if (strcmp(prov, ofi_profiles[i].prov) == 0)
            return ofi_profiles[i].rndv_put;
    return 0;
}

static void set_caps(struct rch_net_prov *p)
{
    struct fi_info *i = p->info;
    const char *prov = i->fabric_attr->prov_name;
    struct rch_net_prov_caps *c = &p->caps;
    snprintf(c->name, sizeof(c->name), "ofi %s on %s (%s)", prov, i->domain_attr->name ? i->domain_attr->name : "?",
             i->fabric_attr->name ? i->fabric_attr->name : "?");
    c->max_rma = i->ep_attr->max_msg_size ? i->ep_attr->max_msg_size : (size_t)1 << 30;
    c->inject_size = i->tx_attr->inject_size;
    c->tx_depth = (unsigned)i->tx_attr->size;
    c->rx_depth = (unsigned)i->rx_attr->size;
    c->in_order = is_stream(prov);
    c->write_data = i->domain_attr->cq_data_size >= 4;
    c->write_data_consumes_recv = (i->rx_attr->mode & FI_RX_CQ_DATA) != 0;
    c->onload = is_stream(prov) || strcmp(prov, "udp") == 0 || strcmp(prov, "shm") == 0;
    c->pins_memory = !c->onload;
    c->write_wakes = is_stream(prov);   /* the socket becomes readable */
    c->places_unpolled = 0;             /* tcp moves bytes inside fi_cq_read; others not known to */
    c->rndv_put = ofi_rndv_put(prov);
    /* A byte stream is processed one segment at a time per socket (on one
     * host, in the sender's softirq and the receiver's copy): bench/bw over
     * tcp moved ~1.5x more at 1 MiB over two connections than over one, as
     * UCX's two tcp lanes do. Striping writes needs the read fence, so
     * read-after-write order on an endpoint. */
    c->rails = is_stream(prov) && (i->tx_attr->msg_order & FI_ORDER_RAW) ? 2 : 1;
    c->writev_max = i->tx_attr->iov_limit < RCH_OFI_WRITEV_MAX ? (unsigned)i->tx_attr->iov_limit : RCH_OFI_WRITEV_MAX;
    c->zcopy = 0;   /* not measured against rendezvous here yet: RDMACH_NET_ZCOPY=on turns it on */
}

/* Connection requests still queued when the channel closes (a peer that
 * connected while this rank was finishing): each event carries an fi_info
 * that is the reader's to free, and closing the EQ does not free it (LSan:
 * 120 + 192 bytes from fi_dupinfo under fi_trywait, in 1 of 3 runs of
 * test_mpi_alltoall_vnode_offload). */
static void drain_connreqs(struct rch_net_prov *p)
{
    union {
        struct fi_eq_cm_entry e;
        uint8_t bytes[sizeof(struct fi_eq_cm_entry) + RCH_NET_EV_PRIV_MAX];
    } buf;
    for (;;) {
        uint32_t event = 0;
        ssize_t r = fi_eq_read(p->eq, &event, &buf, sizeof(buf), 0);
        if (r == -FI_EAVAIL) {
            struct fi_eq_err_entry err;
            memset(&err, 0, sizeof(err));
            if (fi_eq_readerr(p->eq, &err, 0) < 0)
                return;
            continue;
        }
        if (r < 0)
            return;
        if (event == FI_CONNREQ && buf.e.info != NULL) {
            fi_reject(p->pep, buf.e.info->handle, NULL, 0);
            fi_freeinfo(buf.e.info);
        }
    }
}

static void ofi_close(struct rch_net_prov *p)
{
    if (p == NULL)
        return;
    rch_ofi_guard_close(p);
    if (p->eq && p->pep)
        drain_connreqs(p);
    if (p->pep)
        fi_close(&p->pep->fid);
    if (p->cq)
        fi_close(&p->cq->fid);
    if (p->domain)
        fi_close(&p->domain->fid);
    if (p->eq)
        fi_close(&p->eq->fid);
    if (p->fabric)
        fi_close(&p->fabric->fid);
    if (p->epfd >= 0)
        close(p->epfd);
    if (p->info)
        fi_freeinfo(p->info);
    free(p);
}

/* The wait fds of the CQ and EQ in one epoll set; failing that, no fd.
 * The EQ's (-1: none) is returned: the listener's guard reads it. */
static int setup_wait(struct rch_net_prov *p)
{
    int cq_fd = -1, eq_fd = -1;
    p->epfd = -1;
    p->cq_fd = -1;
    if (fi_control(&p->eq->fid, FI_GETWAIT, &eq_fd) != 0)
        eq_fd = -1;
    if (fi_control(&p->cq->fid, FI_GETWAIT, &cq_fd) != 0 || cq_fd < 0)
        return eq_fd;
    p->cq_fd = cq_fd;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        return eq_fd;
    struct epoll_event e = { .events = EPOLLIN };
    e.data.fd = cq_fd;
    if (epoll_ctl(ep, EPOLL_CTL_ADD, cq_fd, &e) != 0) {
        close(ep);
        return eq_fd;
    }
    if (eq_fd >= 0) {
        e.data.fd = eq_fd;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, eq_fd, &e) == 0) {
            struct fid *f = &p->eq->fid;
            p->eq_waitable = fi_trywait(p->fabric, &f, 1) != -FI_ENOSYS;
        }
    }
    p->epfd = ep;
    return eq_fd;
}

static rdmach_status_t ofi_open(struct rch_net_prov **out)
{
    struct rch_net_prov *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "ofi: no memory");
    p->epfd = -1;
    p->cq_fd = -1;
    p->next_key = 1;
    rdmach_status_t st = get_info(&p->info);
    if (st != RDMACH_OK)
        goto out_free;
    p->mr_mode = p->info->domain_attr->mr_mode;
    set_caps(p);
    int ret = fi_fabric(p->info->fabric_attr, &p->fabric, NULL);
    if (ret) {
        st = rch_ofi_err(ret, "fi_fabric");
        goto out_free;
    }
    struct fi_eq_attr eqa = { .size = 0, .flags = 0, .wait_obj = FI_WAIT_FD };
    if ((ret = fi_eq_open(p->fabric, &eqa, &p->eq, NULL)) != 0) {
        eqa.wait_obj = FI_WAIT_UNSPEC;
        ret = fi_eq_open(p->fabric, &eqa, &p->eq, NULL);
    }
    if (ret) {
        st = rch_ofi_err(ret, "fi_eq_open");
        goto out_free;
    }
    if ((ret = fi_domain(p->fabric, p->info, &p->domain, NULL)) != 0) {
        st = rch_ofi_err(ret, "fi_domain");
        goto out_free;
    }
    struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_FD };
    if ((ret = fi_cq_open(p->domain, &cqa, &p->cq, NULL)) != 0) {
        cqa.wait_obj = FI_WAIT_NONE;
        ret = fi_cq_open(p->domain, &cqa, &p->cq, NULL);
    }
    if (ret) {
        st = rch_ofi_err(ret, "fi_cq_open");
        goto out_free;
    }
    if ((ret = fi_passive_ep(p->fabric, p->info, &p->pep, NULL)) != 0 ||
        (ret = fi_pep_bind(p->pep, &p->eq->fid, 0)) != 0 || (ret = fi_listen(p->pep)) != 0) {
        st = rch_ofi_err(ret, "passive endpoint (fi_passive_ep/fi_pep_bind/fi_listen)");
        goto out_free;
    }
    st = rch_ofi_guard_open(p, setup_wait(p));
    if (st != RDMACH_OK)
        goto out_free;
    *out = p;
    return RDMACH_OK;

out_free:
    ofi_close(p);
    return st;
}

static const struct rch_net_prov_caps *ofi_caps(const struct rch_net_prov *p)
{
    return &p->caps;
}

static rdmach_status_t ofi_listen_addr(struct rch_net_prov *p, void *addr, size_t *len)
{
    size_t n = *len;
    int ret = fi_getname(&p->pep->fid, addr, &n);
    if (ret == -FI_ETOOSMALL)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "ofi: the listener's address needs %zu bytes, more than %zu", n,
                            *len);
    if (ret)
        return rch_ofi_err(ret, "fi_getname");
    *len = n;
    return RDMACH_OK;
}

static rdmach_status_t ofi_wait_arm(struct rch_net_prov *p, int *fd)
{
    if (p->epfd < 0)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "ofi: this provider's queues have no wait fd");
    struct fid *fids[2] = { &p->cq->fid, &p->eq->fid };
    int ret = fi_trywait(p->fabric, fids, p->eq_waitable ? 2 : 1);
    if (ret == -FI_EAGAIN)
        return RDMACH_AGAIN;
    if (ret != 0)
        return rch_ofi_err(ret, "fi_trywait");
    *fd = p->epfd;
    return RDMACH_OK;
}

static void ofi_wait_disarm(struct rch_net_prov *p)
{
}

/* The CQ's wait fd (tcp: an epoll set of the endpoints' sockets, POLLOUT
 * included while an endpoint has data queued) is readable when fi_cq_read
 * has socket work to do, such as an fi_read request from the peer that
 * produces no completion here. One poll(), no blocking. */
static int ofi_busy(struct rch_net_prov *p)
{
    if (p->cq_fd < 0)
        return 0;
    struct pollfd pfd = { .fd = p->cq_fd, .events = POLLIN };
    return poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
}

const struct rch_net_prov_ops rch_net_prov_ofi = {
    .name = "ofi",
    .query = ofi_query,
    .open = ofi_open,
    .close = ofi_close,
    .caps = ofi_caps,
    .listen_addr = ofi_listen_addr,
    .ep_open = rch_ofi_ep_open,
    .ep_open_req = rch_ofi_ep_open_req,
    .connect = rch_ofi_connect,
    .accept = rch_ofi_accept,
    .reject = rch_ofi_reject,
    .ep_close = rch_ofi_ep_close,
    .poll_cm = rch_ofi_poll_cm,
    .mr_reg = rch_ofi_mr_reg,
    .mr_dereg = rch_ofi_mr_dereg,
    .post_recv = rch_ofi_post_recv,
    .post_send = rch_ofi_post_send,
    .post_write = rch_ofi_post_write,
    .post_write_data = rch_ofi_post_write_data,
    .post_writev = rch_ofi_post_writev,
    .post_read = rch_ofi_post_read,
    .poll_cq = rch_ofi_poll_cq,
    .wait_arm = ofi_wait_arm,
    .wait_disarm = ofi_wait_disarm,
    .busy = ofi_busy,
};

#endif /* RDMACH_HAVE_OFI */
