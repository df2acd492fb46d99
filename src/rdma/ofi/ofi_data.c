/*
 * libfabric provider: memory registration, posting, completions.
 *
 * Remote addresses: the channel passes the peer's virtual address and the
 * registration's base (struct rch_net_rkey). Providers with FI_MR_VIRT_ADDR
 * take the address as is; the others (tcp in 1.17 asks for none of the
 * mr_mode bits) address by offset into the registration: address - base.
 *
 * Keys: with FI_MR_PROV_KEY the provider picks them (fi_mr_key); otherwise
 * we request unique ones from a counter.
 */
#include <stdio.h>
#include <string.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/log.h"
#include "rdma/ofi/ofi.h"

#if RDMACH_HAVE_OFI

static inline uint64_t target(const struct rch_net_prov *p, uint64_t raddr, const struct rch_net_rkey *rk)
{
    return (p->mr_mode & FI_MR_VIRT_ADDR) ? raddr : raddr - rk->base;
}

static inline rdmach_status_t post_result(ssize_t ret, const char *what)
{
    if (RCH_LIKELY(ret == 0))
        return RDMACH_OK;
    if (ret == -FI_EAGAIN)
        return RDMACH_AGAIN;
    return rch_ofi_err((int)ret, what);
}

rdmach_status_t rch_ofi_mr_reg(struct rch_net_prov *p, void *addr, size_t len, struct rch_net_mr *mr)
{
    struct fid_mr *fmr = NULL;
    uint64_t access = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    uint64_t key = (p->mr_mode & FI_MR_PROV_KEY) ? 0 : p->next_key++;
    int ret = fi_mr_reg(p->domain, addr, len, access, 0, key, 0, &fmr, NULL);
    if (ret) {
        char what[96];
        snprintf(what, sizeof(what), "fi_mr_reg of %zu bytes", len);
        return rch_ofi_err(ret, what);
    }
    mr->addr = addr;
    mr->len = len;
    mr->desc = fi_mr_desc(fmr);
    mr->rkey = fi_mr_key(fmr);
    mr->priv = fmr;
    return RDMACH_OK;
}

void rch_ofi_mr_dereg(struct rch_net_prov *p, struct rch_net_mr *mr)
{
    if (mr->priv)
        fi_close(&((struct fid_mr *)mr->priv)->fid);
    mr->priv = NULL;
}

rdmach_status_t rch_ofi_post_recv(struct rch_net_prov *p, struct rch_net_ep *ep, void *buf, size_t len,
                                  const struct rch_net_mr *mr, void *ctx)
{
    return post_result(fi_recv(ep->ep, buf, len, mr ? mr->desc : NULL, 0, ctx), "fi_recv");
}

rdmach_status_t rch_ofi_post_send(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf, size_t len,
                                  const struct rch_net_mr *mr, void *ctx)
{
    if (ctx == NULL)
        return post_result(fi_inject(ep->ep, buf, len, 0), "fi_inject");
    return post_result(fi_send(ep->ep, buf, len, mr ? mr->desc : NULL, 0, ctx), "fi_send");
}

rdmach_status_t rch_ofi_post_write(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf, size_t len,
                                   const struct rch_net_mr *mr, uint64_t raddr, const struct rch_net_rkey *rk,
                                   void *ctx)
{
    if (ctx == NULL)
        return post_result(fi_inject_write(ep->ep, buf, len, 0, target(p, raddr, rk), rk->key), "fi_inject_write");
    return post_result(fi_write(ep->ep, buf, len, mr ? mr->desc : NULL, 0, target(p, raddr, rk), rk->key, ctx),
                       "fi_write");
}

rdmach_status_t rch_ofi_post_write_data(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf,
                                        size_t len, const struct rch_net_mr *mr, uint64_t raddr,
                                        const struct rch_net_rkey *rk, uint32_t imm, void *ctx)
{
    if (ctx == NULL)
        return post_result(fi_inject_writedata(ep->ep, buf, len, imm, 0, target(p, raddr, rk), rk->key),
                           "fi_inject_writedata");
    return post_result(fi_writedata(ep->ep, buf, len, mr ? mr->desc : NULL, imm, 0, target(p, raddr, rk), rk->key,
                                    ctx),
                       "fi_writedata");
}

rdmach_status_t rch_ofi_post_writev(struct rch_net_prov *p, struct rch_net_ep *ep, const struct iovec *iov,
                                    const struct rch_net_mr *const *mr, int n, uint64_t raddr,
                                    const struct rch_net_rkey *rk, void *ctx)
{
    if (n < 1 || n > RCH_OFI_WRITEV_MAX || (unsigned)n > p->caps.writev_max || ctx == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "ofi: a gathering write of %d buffers (at most %u, with a "
                            "context)", n, p->caps.writev_max);
    struct iovec v[RCH_OFI_WRITEV_MAX];
    void *desc[RCH_OFI_WRITEV_MAX];
    size_t total = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (iov[i].iov_len) {   /* an empty one may have no base */
            v[k] = iov[i];
            desc[k++] = mr[i] ? mr[i]->desc : NULL;
            total += iov[i].iov_len;
        }
    struct fi_rma_iov rma = { .addr = target(p, raddr, rk), .len = total, .key = rk->key };
    struct fi_msg_rma msg = {
        .msg_iov = v, .desc = desc, .iov_count = (size_t)k, .addr = 0, .rma_iov = &rma, .rma_iov_count = 1,
        .context = ctx, .data = 0,
    };
    return post_result(fi_writemsg(ep->ep, &msg, FI_COMPLETION), "fi_writemsg");
}

rdmach_status_t rch_ofi_post_read(struct rch_net_prov *p, struct rch_net_ep *ep, void *buf, size_t len,
                                  const struct rch_net_mr *mr, uint64_t raddr, const struct rch_net_rkey *rk,
                                  void *ctx)
{
    return post_result(fi_read(ep->ep, buf, len, mr ? mr->desc : NULL, 0, target(p, raddr, rk), rk->key, ctx),
                       "fi_read");
}

static int op_of(uint64_t flags)
{
    if (flags & FI_REMOTE_CQ_DATA)
        return RCH_NET_CQ_REMOTE_DATA;
    if (flags & FI_RECV)
        return RCH_NET_CQ_RECV;
    if (flags & FI_READ)
        return RCH_NET_CQ_READ;
    if (flags & FI_WRITE)
        return RCH_NET_CQ_WRITE;
    if (flags & FI_SEND)
        return RCH_NET_CQ_SEND;
    return 0;
}

unsigned rch_ofi_poll_cq(struct rch_net_prov *p, struct rch_net_cqe *c, unsigned max)
{
    struct fi_cq_data_entry ent[16];
    if (max > 16)
        max = 16;
    ssize_t r = fi_cq_read(p->cq, ent, max);
    if (RCH_LIKELY(r == -FI_EAGAIN))
        return 0;
    if (r > 0) {
        for (ssize_t i = 0; i < r; i++) {
            c[i].op = op_of(ent[i].flags);
            c[i].status = RDMACH_OK;
            c[i].len = (uint32_t)ent[i].len;
            c[i].imm = (uint32_t)ent[i].data;
            /* A remote write's data consumes no receive unless FI_RX_CQ_DATA: no context then. */
            c[i].ctx = (c[i].op == RCH_NET_CQ_REMOTE_DATA && !(ent[i].flags & FI_RECV)) ? NULL : ent[i].op_context;
        }
        return (unsigned)r;
    }
    if (r == -FI_EAVAIL) {
        struct fi_cq_err_entry err;
        memset(&err, 0, sizeof(err));
        if (fi_cq_readerr(p->cq, &err, 0) < 0)
            return 0;
        /* A flushed operation (FI_ECANCELED: its endpoint was shut down, the
         * peer failed or closed) has no cause of its own: the provider's
         * prov_errno is then whatever its socket last held (ENOENT, seen with
         * tcp), so only the flush is named. Otherwise the provider's text
         * says more than err.err. */
        char what[192];
        int flushed = err.err == FI_ECANCELED;
        const char *detail = err.prov_errno && !flushed ? fi_cq_strerror(p->cq, err.prov_errno, err.err_data, NULL, 0)
                                                        : NULL;
        if (flushed)
            snprintf(what, sizeof(what), "an operation flushed as its connection was shut down");
        else
            snprintf(what, sizeof(what), "a completion%s%s%s", detail ? " (provider: " : "", detail ? detail : "",
                     detail ? ")" : "");
        c[0].op = op_of(err.flags);
        c[0].ctx = (c[0].op == RCH_NET_CQ_REMOTE_DATA && !(err.flags & FI_RECV)) ? NULL : err.op_context;
        c[0].status = rch_ofi_err(err.err ? -err.err : -FI_EIO, what);
        if (c[0].status == RDMACH_AGAIN || c[0].status == RDMACH_OK)
            c[0].status = RDMACH_ERR_IO;
        c[0].len = 0;
        c[0].imm = 0;
        return 1;
    }
    RCH_DEBUG("net", "ofi: fi_cq_read: %s", fi_strerror((int)-r));
    return 0;
}

#endif /* RDMACH_HAVE_OFI */
