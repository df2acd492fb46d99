/*
 * The libfabric provider of the network channel (net_prov.h), over FI_EP_MSG
 * endpoints of any provider with FI_MSG | FI_RMA (tcp here):
 *   ofi_prov.c  fi_getinfo, fabric/domain/EQ/CQ/passive endpoint, caps, wait
 *   ofi_cm.c    endpoints, fi_connect/fi_accept/fi_reject, EQ events
 *   ofi_data.c  registration, fi_send/fi_recv/fi_write/fi_writedata/fi_read,
 *               CQ reaping
 *   ofi_guard.c the listener's guard (silent connections reset, bounded)
 *               and the descriptor reserve
 *   ofi_chan.c  the channel table rch_rdma_ofi_ops
 *
 * Progress: libfabric 1.17's tcp provider has no progress thread; it moves
 * bytes only inside fi_cq_read (data) and fi_eq_read (connections), which
 * the channel's progress calls.
 */
#ifndef RCH_RDMA_OFI_H
#define RCH_RDMA_OFI_H

#include "rdmach_config.h"
#if RDMACH_HAVE_OFI
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include "rdma/net/net_prov.h"

#define RCH_OFI_WRITEV_MAX 3    /* buffers one post_writev gathers (fi_writemsg) */

struct rch_net_prov {
    struct fi_info *info;          /* the provider and interface chosen */
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_eq *eq;
    struct fid_cq *cq;
    struct fid_pep *pep;
    int epfd;                      /* epoll over the CQ's and EQ's wait fds (-1: none) */
    int cq_fd;                     /* the CQ's wait fd (readable: a socket has work), -1: none */
    int eq_waitable;               /* fi_trywait accepts the EQ */
    uint64_t mr_mode;
    uint64_t next_key;             /* requested MR keys when the provider does not pick them */
    struct rch_net_prov_caps caps;
    struct rch_ofi_guard *guard;   /* ofi_guard.c */
};

struct rch_net_ep {
    struct fid_ep *ep;
    void *conn_ctx;
    size_t addrlen;                /* active side: the peer's address, for fi_connect */
    uint8_t addr[RCH_NET_ADDR_MAX];
};

struct rch_net_conn_req {
    struct fi_info *info;          /* from the FI_CONNREQ event: info->handle is the request */
};

/* A libfabric error code as a status, with a message naming the call. */
rdmach_status_t rch_ofi_err(int ret, const char *what);

/* ofi_cm.c */
rdmach_status_t rch_ofi_ep_open(struct rch_net_prov *p, const void *addr, size_t addrlen, void *conn_ctx,
                                struct rch_net_ep **ep);
rdmach_status_t rch_ofi_ep_open_req(struct rch_net_prov *p, struct rch_net_conn_req *req, void *conn_ctx,
                                    struct rch_net_ep **ep);
rdmach_status_t rch_ofi_connect(struct rch_net_prov *p, struct rch_net_ep *ep, const void *priv, size_t len);
rdmach_status_t rch_ofi_accept(struct rch_net_prov *p, struct rch_net_ep *ep, const void *priv, size_t len);
void rch_ofi_reject(struct rch_net_prov *p, struct rch_net_conn_req *req, const void *priv, size_t len);
void rch_ofi_ep_close(struct rch_net_prov *p, struct rch_net_ep *ep);
unsigned rch_ofi_poll_cm(struct rch_net_prov *p, struct rch_net_cm_event *ev, unsigned max);

/* ofi_guard.c: cm_epfd is the EQ's wait fd (-1: none, the guard is off). */
rdmach_status_t rch_ofi_guard_open(struct rch_net_prov *p, int cm_epfd);
void rch_ofi_guard_close(struct rch_net_prov *p);
/* Before each fi_eq_read: count the accept it may make, scan when due.
 * 1 if the listener is readable (the call will accept a connection). */
int rch_ofi_guard_before_read(struct rch_net_prov *p);
/* Give up one reserved descriptor (fi_endpoint found none): 1 if one was. */
int rch_ofi_guard_release(struct rch_net_prov *p);

/* ofi_data.c */
rdmach_status_t rch_ofi_mr_reg(struct rch_net_prov *p, void *addr, size_t len, struct rch_net_mr *mr);
void rch_ofi_mr_dereg(struct rch_net_prov *p, struct rch_net_mr *mr);
rdmach_status_t rch_ofi_post_recv(struct rch_net_prov *p, struct rch_net_ep *ep, void *buf, size_t len,
                                  const struct rch_net_mr *mr, void *ctx);
rdmach_status_t rch_ofi_post_send(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf, size_t len,
                                  const struct rch_net_mr *mr, void *ctx);
rdmach_status_t rch_ofi_post_write(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf, size_t len,
                                   const struct rch_net_mr *mr, uint64_t raddr, const struct rch_net_rkey *rk,
                                   void *ctx);
rdmach_status_t rch_ofi_post_write_data(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf,
                                        size_t len, const struct rch_net_mr *mr, uint64_t raddr,
                                        const struct rch_net_rkey *rk, uint32_t imm, void *ctx);
rdmach_status_t rch_ofi_post_writev(struct rch_net_prov *p, struct rch_net_ep *ep, const struct iovec *iov,
                                    const struct rch_net_mr *const *mr, int n, uint64_t raddr,
                                    const struct rch_net_rkey *rk, void *ctx);
rdmach_status_t rch_ofi_post_read(struct rch_net_prov *p, struct rch_net_ep *ep, void *buf, size_t len,
                                  const struct rch_net_mr *mr, uint64_t raddr, const struct rch_net_rkey *rk,
                                  void *ctx);
unsigned rch_ofi_poll_cq(struct rch_net_prov *p, struct rch_net_cqe *c, unsigned max);

#endif /* RDMACH_HAVE_OFI */
#endif
