/*
 * verbs provider: open and close (event channel, listener, PD, CQ and its
 * completion channel), capabilities, and the wait object.
 *
 * Queue sizes: each QP gets RCH_VERBS_SQ_DEPTH send entries and ring-slots +
 * RCH_VERBS_RQ_EXTRA receive entries (the channel keeps a receive posted for
 * every slot when write-with-immediate or doorbells consume receives), capped
 * by the device. The one CQ is sized for every QP of the job at once (a
 * flush after a failure can put all their entries there together), capped
 * by the device's max_cqe. Inline data: a QP asking for
 * RCH_VERBS_INLINE_WANT bytes is made and destroyed at open to learn what the
 * device grants (siw 80, rxe the 256 asked): slot writes, credit words and
 * control messages up to that size go inline and unsignaled (the
 * channel's "inject"), with one signaled post every sq_depth/4 so that
 * providers which only reclaim send entries on a completion never run dry.
 *
 * Placement order (caps.in_order, which lets the channel poll ring memory):
 * declared for the software devices, Soft-iWARP (siw) and Soft-RoCE (rxe).
 * Both place an RDMA write with the host CPU, front to back, one stream per
 * QP: siw copies DDP segments as they come off the QP's TCP socket, in
 * stream order; rxe's responder handles a QP's packets one at a time in PSN
 * order. On x86 (TSO) the stores become visible to the polling core in that
 * order, so when a slot's tail marker is seen its header and payload are
 * too. (A caveat: an x86 fast-string copy, rep movs, may make its own stores
 * visible out of order within the one instruction, and the kernels copy a
 * packet's payload with one such call, so on real CPUs a tail seen a moment
 * before the payload bytes next to it is conceivable, if unobserved; under
 * the rdma guest's TCG emulation stores are performed in order.
 * RDMACH_NET_NOTIFY=data (rxe) or send relies on no placement order.)
 * Hardware HCAs get 0
 * (PCIe writes are ordered in practice, but verbs does not promise it): the
 * channel then uses write-with-immediate, or a write and a doorbell send on
 * iWARP, which has no immediate data (siw: caps.write_data = 0).
 *
 * Soft-RoCE and bursts: rxe answers an RDMA read with all its response
 * packets at once, with no flow control of its own; a burst longer than the
 * receiving kernel's backlog (net.core.netdev_max_backlog, 1000 packets)
 * loses packets (rxe's send_err counter), and the reader recovers only after
 * its retransmission timeout (about half a second) each time: in the rdma
 * guest, 4 MiB reads moved 0.5 MB/s, 64 KiB reads 16 MB/s. On rxe a single
 * write or read is therefore at most RCH_VERBS_RXE_RMA_MAX (the channel
 * splits larger ones) and at most RCH_VERBS_RXE_RD_ATOM reads are in flight
 * per QP: bursts of at most 512 packets (MTU 1024). Writes need no such cap
 * (rxe's requester bounds its packets in flight) but share max_rma.
 *
 * Blocking: the wait fd is an epoll set of the CQ's completion channel, the
 * CM event channel and a timerfd. An RDMA write makes no completion at its
 * target, so a ring slot written while its receiver sleeps (memory polling),
 * and an explicit credit word in every notify mode, wake nobody: the timer,
 * armed by each wait_arm for RCH_VERBS_WAKE_NS, bounds how long such an
 * arrival waits for a rank that blocked (only after the device's spin and
 * yield phases found nothing). Write-with-immediate and doorbell arrivals
 * (notify data/send) wake the rank at once through the completion channel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "rdma/verbs/verbs.h"

#if RDMACH_HAVE_VERBS

#define SIW_VENDOR_ID 0x626d74u    /* linux drivers/infiniband/sw/siw/siw.h ("bmt") */
#define RXE_VENDOR_ID 0xffffffu    /* linux drivers/infiniband/sw/rxe/rxe_param.h */

rdmach_status_t rch_verbs_err(int err, const char *what)
{
    rdmach_status_t st;
    switch (err) {
    case ENOMEM:
    case ENOBUFS:
        st = RDMACH_ERR_NO_MEMORY;
        break;
    case EAGAIN:
        st = RDMACH_AGAIN;
        break;
    case ENODEV:
    case ENOSYS:
    case EOPNOTSUPP:
    case EPROTONOSUPPORT:
        st = RDMACH_ERR_UNSUPPORTED;
        break;
    case ECONNREFUSED:
        st = RDMACH_ERR_CONN_REFUSED;
        break;
    case ECONNRESET:
    case ECONNABORTED:
    case ENOTCONN:
    case EPIPE:
    case ESHUTDOWN:
        st = RDMACH_ERR_PEER_DEAD;
        break;
    case ETIMEDOUT:
        st = RDMACH_ERR_TIMEOUT;
        break;
    case EINVAL:
        st = RDMACH_ERR_INVALID_ARG;
        break;
    default:
        st = RDMACH_ERR_IO;
        break;
    }
    if (st == RDMACH_AGAIN)
        return st;
    return rch_base_err(st, "verbs: %s: %s", what, err ? strerror(err) : "failed");
}

static rdmach_status_t verbs_query(void)
{
    rdmach_status_t st = rch_verbs_any_active();
    if (st != RDMACH_OK)
        return st;
    struct rch_verbs_where w;
    return rch_verbs_choose(&w);
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

static void verbs_close(struct rch_net_prov *p)
{
    if (p == NULL)
        return;
    if (p->wait_fails)
        RCH_WARN("verbs", "%lu of %lu waits could not arm the completion channel, first: %s", p->wait_fails,
                 p->wait_fails + p->waits, p->wait_why);
    else
        RCH_DEBUG("verbs", "%lu waits armed", p->waits);
    while (p->eps)   /* the channel closes its endpoints first; this is for error paths */
        rch_verbs_ep_close(p, p->eps);
    if (p->listen_id)
        rdma_destroy_id(p->listen_id);
    if (p->cq) {
        struct ibv_cq *cq;
        void *ctx;
        while (p->cc && ibv_get_cq_event(p->cc, &cq, &ctx) == 0)
            ibv_ack_cq_events(cq, 1);
        ibv_destroy_cq(p->cq);
    }
    if (p->cc)
        ibv_destroy_comp_channel(p->cc);
    if (p->pd)
        ibv_dealloc_pd(p->pd);
    if (p->ec)
        rdma_destroy_event_channel(p->ec);
    if (p->epfd >= 0)
        close(p->epfd);
    if (p->tfd >= 0)
        close(p->tfd);
    free(p);
}

/* Make (and destroy) one QP of the size we will use: learns the inline size granted. */
static rdmach_status_t probe_qp(struct rch_net_prov *p)
{
    static const uint32_t wants[] = { RCH_VERBS_INLINE_WANT, 128, 80, 64, 32, 0 };
    int err = 0;
    for (size_t i = 0; i < RCH_ARRAY_SIZE(wants); i++) {
        struct ibv_qp_init_attr a = {
            .send_cq = p->cq, .recv_cq = p->cq, .qp_type = IBV_QPT_RC, .sq_sig_all = 0,
            .cap = { .max_send_wr = p->sq_depth, .max_recv_wr = p->rq_depth, .max_send_sge = p->send_sge,
                     .max_recv_sge = 1, .max_inline_data = wants[i] },
        };
        struct ibv_qp *qp = ibv_create_qp(p->pd, &a);
        if (qp == NULL) {
            err = errno;
            continue;
        }
        p->max_inline = a.cap.max_inline_data < wants[i] ? a.cap.max_inline_data : wants[i];
        ibv_destroy_qp(qp);
        return RDMACH_OK;
    }
    char what[160];
    snprintf(what, sizeof(what), "ibv_create_qp (RC, %u send and %u receive entries) on %s", p->sq_depth,
             p->rq_depth, p->where.dev);
    return rch_verbs_err(err, what);
}

/* Rendezvous profile per device (caps.rndv_put: RDMACH_RNDV_MODE=auto moves
 * rendezvous data by sender PUT instead of receiver GET), measured in the
 * rdma guest with bench/bw across the veth pair (docs/NETWORK.md): on siw an
 * RDMA read is a request the peer's kernel thread answers with a write
 * stream, and PUT moved 1.3-7x the bytes of GET from 64 KiB to 4 MiB; on
 * rxe (whose read responses come in bursts, see above) PUT's median was
 * 1.5x GET's at 256 KiB and 1 MiB, even at 64 KiB, and the same job took
 * 17-20 s with PUT, 21-30 s with GET. Devices not listed (hardware; not
 * measured here) keep GET. */
static const struct { uint32_t vendor_id; int rndv_put; } verbs_profiles[] = {
    { SIW_VENDOR_ID, 1 },
    { RXE_VENDOR_ID, 1 },
};

/* Eager zero-copy profile (caps.zcopy, RDMACH_NET_ZCOPY=auto), measured in
 * the rdma guest with verbs_perf (64 x 64 KiB windows, 5 interleaved rounds,
 * one boot): on siw, 64 KiB eager without the sender's copy moved 10-21% more
 * than rendezvous in every round (best 155 against 136 MB/s; with the copy it
 * was 12-40% below: an emulated 64 KiB memcpy costs more than REQ, RSP and
 * FIN); on rxe it was level with rendezvous (48-57 against 51-57 MB/s), so
 * rxe and devices not measured keep rendezvous above 16 KiB. */
static int verbs_zcopy(uint32_t vendor_id)
{
    return vendor_id == SIW_VENDOR_ID;
}

static int verbs_rndv_put(uint32_t vendor_id)
{
    for (size_t i = 0; i < sizeof(verbs_profiles) / sizeof(verbs_profiles[0]); i++)
        if (verbs_profiles[i].vendor_id == vendor_id)
            return verbs_profiles[i].rndv_put;
    return 0;
}

static void set_caps(struct rch_net_prov *p, const struct ibv_device_attr *da, const struct ibv_port_attr *pa)
{
    struct rch_net_prov_caps *c = &p->caps;
    int soft = da->vendor_id == SIW_VENDOR_ID || da->vendor_id == RXE_VENDOR_ID;
    snprintf(c->name, sizeof(c->name), "verbs %.16s (%s) %.30s", p->where.dev, p->iwarp ? "iWARP" : "IB/RoCE",
             p->where.addr_text);
    c->max_rma = pa->max_msg_sz ? pa->max_msg_sz : (size_t)1 << 30;
    if (da->vendor_id == RXE_VENDOR_ID && c->max_rma > RCH_VERBS_RXE_RMA_MAX)
        c->max_rma = RCH_VERBS_RXE_RMA_MAX;   /* see the top of this file */
    c->inject_size = p->max_inline;
    c->tx_depth = p->sq_depth;
    c->rx_depth = p->rq_depth;
    c->in_order = soft;                     /* see the top of this file */
    c->write_data = !p->iwarp;              /* iWARP (siw, cxgb4) has no write with immediate data */
    c->write_data_consumes_recv = 1;
    c->places_unpolled = 1;                 /* the device (rxe, siw: the kernel) writes our memory */
    c->onload = soft;
    c->pins_memory = 1;
    c->rndv_put = verbs_rndv_put(da->vendor_id);
    c->writev_max = p->send_sge;
    c->zcopy = verbs_zcopy(da->vendor_id);
}

static rdmach_status_t setup_wait(struct rch_net_prov *p)
{
    p->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (p->epfd < 0)
        return rch_base_errno(errno, "verbs: epoll_create1");
    struct epoll_event e = { .events = EPOLLIN };
    e.data.fd = p->cc->fd;
    if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->cc->fd, &e) != 0)
        return rch_base_errno(errno, "verbs: epoll_ctl (completion channel)");
    e.data.fd = p->ec->fd;
    if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->ec->fd, &e) != 0)
        return rch_base_errno(errno, "verbs: epoll_ctl (CM event channel)");
    p->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (p->tfd < 0)
        return rch_base_errno(errno, "verbs: timerfd_create");
    e.data.fd = p->tfd;
    if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->tfd, &e) != 0)
        return rch_base_errno(errno, "verbs: epoll_ctl (timer)");
    return RDMACH_OK;
}

static rdmach_status_t open_device(struct rch_net_prov *p)
{
    struct ibv_device_attr da;
    struct ibv_port_attr pa;
    char what[160];
    if (ibv_query_device(p->verbs, &da) != 0 || ibv_query_port(p->verbs, p->listen_id->port_num, &pa) != 0)
        return rch_verbs_err(errno, "ibv_query_device/ibv_query_port");
    p->iwarp = p->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
    uint32_t need_rq = (uint32_t)rch_tun.net_slots + RCH_VERBS_RQ_EXTRA;
    if ((uint32_t)da.max_qp_wr < need_rq)
        return rch_base_err(RDMACH_ERR_CONFIG, "verbs: %s allows %d work requests per queue, but RDMACH_NET_SLOTS=%d "
                            "needs %u receives posted: use fewer slots", p->where.dev, da.max_qp_wr,
                            rch_tun.net_slots, need_rq);
    p->sq_depth = (uint32_t)da.max_qp_wr < RCH_VERBS_SQ_DEPTH ? (uint32_t)da.max_qp_wr : RCH_VERBS_SQ_DEPTH;
    p->rq_depth = need_rq;
    p->signal_every = p->sq_depth / 4 ? p->sq_depth / 4 : 1;
    /* 3 SGEs per send for post_writev where eager zero-copy may run and the device has them */
    int zc = rch_tun.net_zcopy == RCH_ZCOPY_ON || (rch_tun.net_zcopy == RCH_ZCOPY_AUTO && verbs_zcopy(da.vendor_id));
    p->send_sge = zc && da.max_sge >= RCH_VERBS_SEND_SGE ? RCH_VERBS_SEND_SGE : 1;
    int rd = da.vendor_id == RXE_VENDOR_ID ? RCH_VERBS_RXE_RD_ATOM : RCH_VERBS_RD_ATOM;
    p->init_depth = (uint8_t)(da.max_qp_init_rd_atom < rd ? da.max_qp_init_rd_atom : rd);
    p->resp_res = (uint8_t)(da.max_qp_rd_atom < RCH_VERBS_RD_ATOM ? da.max_qp_rd_atom : RCH_VERBS_RD_ATOM);

    if ((p->pd = ibv_alloc_pd(p->verbs)) == NULL) {
        snprintf(what, sizeof(what), "ibv_alloc_pd on %s", p->where.dev);
        return rch_verbs_err(errno, what);
    }
    if ((p->cc = ibv_create_comp_channel(p->verbs)) == NULL)
        return rch_verbs_err(errno, "ibv_create_comp_channel");
    if (!set_nonblock(p->cc->fd))
        return rch_base_errno(errno, "verbs: O_NONBLOCK on the completion channel");
    long peers = rch_boot_is_up() ? rch_boot.size : 2;
    long want = (long)(p->sq_depth + p->rq_depth) * (peers + 2);
    p->cq_size = want < da.max_cqe ? (int)want : da.max_cqe;
    if ((p->cq = ibv_create_cq(p->verbs, p->cq_size, NULL, p->cc, 0)) == NULL) {
        snprintf(what, sizeof(what), "ibv_create_cq of %d entries on %s", p->cq_size, p->where.dev);
        return rch_verbs_err(errno, what);
    }
    rdmach_status_t st = probe_qp(p);
    if (st != RDMACH_OK)
        return st;
    set_caps(p, &da, &pa);
    return RDMACH_OK;
}

static rdmach_status_t verbs_open(struct rch_net_prov **out)
{
    struct rch_net_prov *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "verbs: no memory");
    p->epfd = p->tfd = -1;
    rdmach_status_t st = rch_verbs_choose(&p->where);
    if (st != RDMACH_OK)
        goto out_close;
    if ((p->ec = rdma_create_event_channel()) == NULL) {
        st = rch_verbs_err(errno, "rdma_create_event_channel");
        goto out_close;
    }
    if (!set_nonblock(p->ec->fd)) {
        st = rch_base_errno(errno, "verbs: O_NONBLOCK on the CM event channel");
        goto out_close;
    }
    if (rdma_create_id(p->ec, &p->listen_id, NULL, RDMA_PS_TCP) != 0) {
        st = rch_verbs_err(errno, "rdma_create_id (listener)");
        goto out_close;
    }
    if (rdma_bind_addr(p->listen_id, (struct sockaddr *)&p->where.addr) != 0 || p->listen_id->verbs == NULL) {
        char what[160];
        snprintf(what, sizeof(what), "rdma_bind_addr to %s (%s)", p->where.addr_text, p->where.dev);
        st = rch_verbs_err(p->listen_id->verbs ? errno : ENODEV, what);
        goto out_close;
    }
    p->verbs = p->listen_id->verbs;
    if (rdma_listen(p->listen_id, 128) != 0) {
        st = rch_verbs_err(errno, "rdma_listen");
        goto out_close;
    }
    rch_verbs_addr_text(rdma_get_local_addr(p->listen_id), p->where.addr_text, sizeof(p->where.addr_text));
    if ((st = open_device(p)) != RDMACH_OK || (st = setup_wait(p)) != RDMACH_OK)
        goto out_close;
    RCH_INFO("verbs", "listening on %s, device %s (%s, chosen by %s); QP: %u send / %u receive entries, %u B "
             "inline, %u/%u reads in flight; CQ %d entries; memory polling %s", p->where.addr_text, p->where.dev,
             p->iwarp ? "iWARP" : "IB/RoCE", p->where.why, p->sq_depth, p->rq_depth, p->max_inline, p->init_depth,
             p->resp_res, p->cq_size, p->caps.in_order ? "safe" : "not declared");
    *out = p;
    return RDMACH_OK;

out_close:
    verbs_close(p);
    return st;
}

static const struct rch_net_prov_caps *verbs_caps(const struct rch_net_prov *p)
{
    return &p->caps;
}

static rdmach_status_t verbs_listen_addr(struct rch_net_prov *p, void *addr, size_t *len)
{
    struct sockaddr *sa = rdma_get_local_addr(p->listen_id);
    size_t n = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (n > *len)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "verbs: the listener's address needs %zu bytes, more than %zu",
                            n, *len);
    memcpy(addr, sa, n);
    *len = n;
    return RDMACH_OK;
}

/* Arm the CQ's notification, then look once more: a completion that arrived
 * before the arm would raise no event, so it must be seen here (and kept in
 * the stash for poll_cq). The CM event channel's fd is level-triggered. */
static rdmach_status_t wait_fail(struct rch_net_prov *p, rdmach_status_t st)
{
    if (p->wait_fails++ == 0)
        snprintf(p->wait_why, sizeof(p->wait_why), "%s", rdmach_last_error());
    return st;
}

static rdmach_status_t verbs_wait_arm(struct rch_net_prov *p, int *fd)
{
    if (p->stash_at < p->nstash)
        return RDMACH_AGAIN;
    struct ibv_cq *cq;
    void *ctx;
    while (ibv_get_cq_event(p->cc, &cq, &ctx) == 0) {
        ibv_ack_cq_events(cq, 1);
        p->armed = 0;
    }
    if (!p->armed) {
        int err = ibv_req_notify_cq(p->cq, 0);
        if (err)
            return wait_fail(p, rch_verbs_err(err, "ibv_req_notify_cq"));
        p->armed = 1;
    }
    if (rch_verbs_stash_fill(p) > 0)
        return RDMACH_AGAIN;
    struct itimerspec its = { .it_value = { .tv_sec = 0, .tv_nsec = RCH_VERBS_WAKE_NS } };
    if (timerfd_settime(p->tfd, 0, &its, NULL) != 0)
        return wait_fail(p, rch_base_errno(errno, "verbs: timerfd_settime"));
    p->waits++;
    *fd = p->epfd;
    return RDMACH_OK;
}

static void verbs_wait_disarm(struct rch_net_prov *p)
{
    p->next_cm_poll = 0;   /* woken, maybe by a CM event: the next poll_cm asks the kernel */
    struct itimerspec off = { 0 };
    uint64_t expirations;
    timerfd_settime(p->tfd, 0, &off, NULL);
    if (read(p->tfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
        RCH_DEBUG("verbs", "timerfd read: %s", strerror(errno));
}

const struct rch_net_prov_ops rch_net_prov_verbs = {
    .name = "verbs",
    .query = verbs_query,
    .open = verbs_open,
    .close = verbs_close,
    .caps = verbs_caps,
    .listen_addr = verbs_listen_addr,
    .ep_open = rch_verbs_ep_open,
    .ep_open_req = rch_verbs_ep_open_req,
    .connect = rch_verbs_connect,
    .accept = rch_verbs_accept,
    .reject = rch_verbs_reject,
    .ep_close = rch_verbs_ep_close,
    .poll_cm = rch_verbs_poll_cm,
    .mr_reg = rch_verbs_mr_reg,
    .mr_dereg = rch_verbs_mr_dereg,
    .post_recv = rch_verbs_post_recv,
    .post_send = rch_verbs_post_send,
    .post_write = rch_verbs_post_write,
    .post_write_data = rch_verbs_post_write_data,
    .post_writev = rch_verbs_post_writev,
    .post_read = rch_verbs_post_read,
    .poll_cq = rch_verbs_poll_cq,
    .wait_arm = verbs_wait_arm,
    .wait_disarm = verbs_wait_disarm,
};

#endif /* RDMACH_HAVE_VERBS */
