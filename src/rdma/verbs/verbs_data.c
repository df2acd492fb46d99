/*
 * verbs provider: memory registration, posting, completions.
 *
 * Registration: every region gets local write, remote write and remote read
 * access (on iWARP the sink of an RDMA read must allow remote writes: the
 * read response is placed like a write). Pinned pages count against the
 * memlock limit: a failure that says so (ENOMEM, EAGAIN, EPERM, EFAULT
 * from a pin that could not be taken) is RDMACH_ERR_REG_LIMIT, which the
 * channel turns into a message naming `ulimit -l` and the size asked for.
 *
 * Posts: one SGE each; remote addresses are virtual addresses (verbs
 * addresses a region by its virtual address). ctx == NULL ("inject"): inline
 * (the data is copied at post time, the buffer reusable at once) and
 * unsignaled, except one post in signal_every, signaled with the internal
 * wr_id RCH_VERBS_SIGNAL_WRID so that the send queue's entries are reclaimed
 * on every provider; such completions are not handed to the channel. A full
 * send or receive queue (ENOMEM from ibv_post_*) is RDMACH_AGAIN.
 *
 * Completions: ibv_poll_cq on the one CQ, from user space. An error
 * completion says only wr_id and status (its opcode is undefined): op = 0,
 * and the channel finds the operation from its ctx. The doorbell of a post
 * is a system call on rxe (always) and on siw (when the send queue was idle).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/log.h"
#include "rdma/verbs/verbs.h"

#if RDMACH_HAVE_VERBS

#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

rdmach_status_t rch_verbs_mr_reg(struct rch_net_prov *p, void *addr, size_t len, struct rch_net_mr *mr)
{
    memset(mr, 0, sizeof(*mr));
    mr->addr = addr;
    mr->len = len;
    if (len == 0)
        return RDMACH_OK;   /* nothing to pin; zero-length posts carry no SGE */
    struct ibv_mr *m = ibv_reg_mr(p->pd, addr, len, ACCESS);
    if (m == NULL) {
        int err = errno;
        if (err == ENOMEM || err == EAGAIN || err == EPERM || err == EFAULT)
            return rch_base_err(RDMACH_ERR_REG_LIMIT, "verbs: ibv_reg_mr of %zu bytes at %p on %s: %s (pinned "
                                "memory counts against ulimit -l)", len, addr, p->where.dev, strerror(err));
        char what[128];
        snprintf(what, sizeof(what), "ibv_reg_mr of %zu bytes at %p on %s", len, addr, p->where.dev);
        return rch_verbs_err(err, what);
    }
    mr->desc = m;
    mr->rkey = m->rkey;
    mr->priv = m;
    return RDMACH_OK;
}

void rch_verbs_mr_dereg(struct rch_net_prov *p, struct rch_net_mr *mr)
{
    if (mr->priv) {
        int err = ibv_dereg_mr(mr->priv);
        if (err)
            RCH_WARN("verbs", "ibv_dereg_mr of %zu bytes at %p: %s", mr->len, mr->addr, strerror(err));
    }
    mr->priv = mr->desc = NULL;
}

static inline uint32_t lkey_of(const struct rch_net_mr *mr)
{
    return mr && mr->priv ? ((const struct ibv_mr *)mr->priv)->lkey : 0;
}

static inline rdmach_status_t post_result(int rc, const char *what)
{
    if (RCH_LIKELY(rc == 0))
        return RDMACH_OK;
    if (rc < 0)   /* providers differ: errno values, their negatives, or -1 with errno */
        rc = rc == -1 ? (errno ? errno : EIO) : -rc;
    if (rc == ENOMEM)
        return RDMACH_AGAIN;   /* queue full: nothing was posted */
    return rch_verbs_err(rc, what);
}

/* Fill the flags and wr_id of a send-queue post, then post it. Sends and
 * writes of up to max_inline bytes go inline (an RDMA read never: its SGE is
 * where the data lands). */
static inline rdmach_status_t post_sq(struct rch_net_prov *p, struct rch_net_ep *ep, struct ibv_send_wr *wr,
                                      struct ibv_sge *sge, const void *buf, size_t len,
                                      const struct rch_net_mr *mr, void *ctx, const char *what)
{
    unsigned unsig = ep->unsignaled;
    int can_inline = wr->opcode != IBV_WR_RDMA_READ && len && len <= p->max_inline;
    sge->addr = (uintptr_t)buf;
    sge->length = (uint32_t)len;
    sge->lkey = lkey_of(mr);
    wr->sg_list = sge;
    wr->num_sge = len ? 1 : 0;
    wr->next = NULL;
    if (ctx != NULL) {
        wr->wr_id = (uintptr_t)ctx;
        wr->send_flags = IBV_SEND_SIGNALED | (can_inline ? IBV_SEND_INLINE : 0);
        unsig = 0;   /* its completion reclaims the unsignaled entries before it */
    } else {
        if (RCH_UNLIKELY(!can_inline && len))
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "verbs: %s of %zu bytes without a context, but only "
                                "sends and writes of up to %u bytes go inline", what, len, p->max_inline);
        wr->send_flags = len ? IBV_SEND_INLINE : 0;
        wr->wr_id = 0;
        if (++unsig >= p->signal_every) {
            wr->send_flags |= IBV_SEND_SIGNALED;
            wr->wr_id = RCH_VERBS_SIGNAL_WRID;
            unsig = 0;
        }
    }
    struct ibv_send_wr *bad;
    rdmach_status_t st = post_result(ibv_post_send(ep->id->qp, wr, &bad), what);
    if (RCH_LIKELY(st == RDMACH_OK))
        ep->unsignaled = unsig;
    return st;
}

rdmach_status_t rch_verbs_post_recv(struct rch_net_prov *p, struct rch_net_ep *ep, void *buf, size_t len,
                                    const struct rch_net_mr *mr, void *ctx)
{
    struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = (uint32_t)len, .lkey = lkey_of(mr) };
    struct ibv_recv_wr wr = { .wr_id = (uintptr_t)ctx, .sg_list = &sge, .num_sge = len ? 1 : 0 };
    struct ibv_recv_wr *bad;
    return post_result(ibv_post_recv(ep->id->qp, &wr, &bad), "ibv_post_recv");
}

rdmach_status_t rch_verbs_post_send(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf, size_t len,
                                    const struct rch_net_mr *mr, void *ctx)
{
    struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };
    struct ibv_sge sge;
    return post_sq(p, ep, &wr, &sge, buf, len, mr, ctx, "ibv_post_send (send)");
}

rdmach_status_t rch_verbs_post_write(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf, size_t len,
                                     const struct rch_net_mr *mr, uint64_t raddr, const struct rch_net_rkey *rk,
                                     void *ctx)
{
    struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE };
    struct ibv_sge sge;
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = (uint32_t)rk->key;
    return post_sq(p, ep, &wr, &sge, buf, len, mr, ctx, "ibv_post_send (RDMA write)");
}

rdmach_status_t rch_verbs_post_write_data(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf,
                                          size_t len, const struct rch_net_mr *mr, uint64_t raddr,
                                          const struct rch_net_rkey *rk, uint32_t imm, void *ctx)
{
    if (RCH_UNLIKELY(!p->caps.write_data))
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "verbs: %s (iWARP) has no RDMA write with immediate data",
                            p->where.dev);
    struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .imm_data = htonl(imm) };
    struct ibv_sge sge;
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = (uint32_t)rk->key;
    return post_sq(p, ep, &wr, &sge, buf, len, mr, ctx, "ibv_post_send (RDMA write with immediate)");
}

rdmach_status_t rch_verbs_post_writev(struct rch_net_prov *p, struct rch_net_ep *ep, const struct iovec *iov,
                                      const struct rch_net_mr *const *mr, int n, uint64_t raddr,
                                      const struct rch_net_rkey *rk, void *ctx)
{
    if (RCH_UNLIKELY(n < 1 || (uint32_t)n > p->send_sge || ctx == NULL))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "verbs: a gathering write of %d buffers (at most %u, with a "
                            "context)", n, p->send_sge);
    struct ibv_sge sge[RCH_VERBS_SEND_SGE];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (iov[i].iov_len)   /* an empty one may have no base */
            sge[k++] = (struct ibv_sge){ .addr = (uintptr_t)iov[i].iov_base, .length = (uint32_t)iov[i].iov_len,
                                         .lkey = lkey_of(mr[i]) };
    struct ibv_send_wr wr = {
        .wr_id = (uintptr_t)ctx, .sg_list = sge, .num_sge = k, .opcode = IBV_WR_RDMA_WRITE,
        .send_flags = IBV_SEND_SIGNALED,
    };
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = (uint32_t)rk->key;
    struct ibv_send_wr *bad;
    rdmach_status_t st = post_result(ibv_post_send(ep->id->qp, &wr, &bad), "ibv_post_send (gathering RDMA write)");
    if (st == RDMACH_OK)
        ep->unsignaled = 0;   /* its completion reclaims the unsignaled entries before it */
    return st;
}

rdmach_status_t rch_verbs_post_read(struct rch_net_prov *p, struct rch_net_ep *ep, void *buf, size_t len,
                                    const struct rch_net_mr *mr, uint64_t raddr, const struct rch_net_rkey *rk,
                                    void *ctx)
{
    if (RCH_UNLIKELY(ctx == NULL))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "verbs: an RDMA read needs a context");
    struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_READ };
    struct ibv_sge sge;
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = (uint32_t)rk->key;
    return post_sq(p, ep, &wr, &sge, buf, len, mr, ctx, "ibv_post_send (RDMA read)");
}

static rdmach_status_t wc_error(const struct ibv_wc *wc)
{
    rdmach_status_t st;
    switch (wc->status) {
    case IBV_WC_WR_FLUSH_ERR:
        st = RDMACH_ERR_CANCELED;      /* the QP went to error: connection closed or broken */
        break;
    case IBV_WC_RETRY_EXC_ERR:
    case IBV_WC_RNR_RETRY_EXC_ERR:
    case IBV_WC_RESP_TIMEOUT_ERR:
        st = RDMACH_ERR_PEER_DEAD;     /* the peer stopped answering */
        break;
    default:
        st = RDMACH_ERR_IO;
        break;
    }
    return rch_base_err(st, "verbs: a work request on QP %u failed: %s (vendor error %#x)", wc->qp_num,
                        ibv_wc_status_str(wc->status), wc->vendor_err);
}

/* One work completion as 0 or 1 channel completion. */
static inline unsigned convert(const struct ibv_wc *wc, struct rch_net_cqe *c)
{
    if (RCH_UNLIKELY(wc->wr_id == RCH_VERBS_SIGNAL_WRID || wc->wr_id == 0)) {
        if (wc->status != IBV_WC_SUCCESS && wc->status != IBV_WC_WR_FLUSH_ERR)
            RCH_DEBUG("verbs", "an inline post on QP %u failed: %s", wc->qp_num, ibv_wc_status_str(wc->status));
        return 0;
    }
    c->ctx = (void *)(uintptr_t)wc->wr_id;
    c->len = wc->byte_len;
    c->imm = 0;
    if (RCH_UNLIKELY(wc->status != IBV_WC_SUCCESS)) {
        c->op = 0;
        c->status = wc_error(wc);
        return 1;
    }
    c->status = RDMACH_OK;
    switch (wc->opcode) {
    case IBV_WC_RECV:
        c->op = RCH_NET_CQ_RECV;
        break;
    case IBV_WC_RECV_RDMA_WITH_IMM:
        c->op = RCH_NET_CQ_REMOTE_DATA;
        c->imm = ntohl(wc->imm_data);
        break;
    case IBV_WC_SEND:
        c->op = RCH_NET_CQ_SEND;
        break;
    case IBV_WC_RDMA_WRITE:
        c->op = RCH_NET_CQ_WRITE;
        break;
    case IBV_WC_RDMA_READ:
        c->op = RCH_NET_CQ_READ;
        break;
    default:
        c->op = 0;
        break;
    }
    return 1;
}

unsigned rch_verbs_poll_cq(struct rch_net_prov *p, struct rch_net_cqe *c, unsigned max)
{
    unsigned n = 0;
    if (RCH_UNLIKELY(p->stash_at < p->nstash)) {
        while (n < max && p->stash_at < p->nstash)
            n += convert(&p->stash[p->stash_at++], &c[n]);
        if (p->stash_at < p->nstash)
            return n;
        p->stash_at = p->nstash = 0;
    }
    struct ibv_wc wc[RCH_VERBS_WC_BATCH];
    unsigned want = max - n < RCH_VERBS_WC_BATCH ? max - n : RCH_VERBS_WC_BATCH;
    if (want == 0)
        return n;
    int k = ibv_poll_cq(p->cq, (int)want, wc);
    if (RCH_UNLIKELY(k < 0)) {
        RCH_WARN("verbs", "ibv_poll_cq failed (%d)", k);
        return n;
    }
    for (int i = 0; i < k; i++)
        n += convert(&wc[i], &c[n]);
    return n;
}

unsigned rch_verbs_stash_fill(struct rch_net_prov *p)
{
    if (p->stash_at < p->nstash)
        return p->nstash - p->stash_at;
    p->stash_at = p->nstash = 0;
    int k = ibv_poll_cq(p->cq, RCH_VERBS_WC_BATCH, p->stash);
    if (k > 0)
        p->nstash = (unsigned)k;
    return p->nstash;
}

#endif /* RDMACH_HAVE_VERBS */
