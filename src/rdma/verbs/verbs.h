/*
 * The verbs provider of the network channel (net_prov.h), over libibverbs
 * and librdmacm: RC queue pairs made and connected by RDMA CM, on iWARP
 * (siw, cxgb), RoCE (rxe, mlx5) and InfiniBand alike.
 *   verbs_addr.c  which device and address this rank listens on
 *                 (RDMACH_VERBS_DEVICE / RDMACH_VERBS_ADDR, or the first
 *                 active device with an IP address)
 *   verbs_prov.c  open/close: event channel, listener, PD, one CQ and its
 *                 completion channel; capabilities; wait
 *   verbs_cm.c    endpoints (cm id + QP), connect/accept/reject, CM events
 *   verbs_data.c  registration, ibv_post_send/recv, ibv_poll_cq
 *   verbs_chan.c  the channel table rch_rdma_verbs_ops
 *
 * One provider instance = one device: every QP of the channel lives on the
 * device the listener is bound to, shares the one PD and the one CQ (send
 * and receive), which progress polls from user space (ibv_poll_cq: no
 * system call on siw, rxe or mlx5). Blocking uses the CQ's completion
 * channel and the CM event channel together (an epoll set of both fds).
 *
 * Active side: the endpoint's cm id is bound to this rank's own address
 * before it resolves the peer's (so traffic leaves through this rank's
 * device: with two devices on one host, an unbound id would take the
 * destination's device), which also lets the QP be created at once and
 * receives be posted before connect(); connect() then walks
 * resolve_addr -> resolve_route -> rdma_connect, driven by poll_cm.
 */
#ifndef RCH_RDMA_VERBS_H
#define RCH_RDMA_VERBS_H

#include "rdmach_config.h"
#if RDMACH_HAVE_VERBS
#include <netinet/in.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "rdma/net/net_prov.h"

#define RCH_VERBS_RESOLVE_MS  2000    /* rdma_resolve_addr / rdma_resolve_route timeouts */
#define RCH_VERBS_SQ_DEPTH    256u    /* send queue entries per QP (capped by the device) */
#define RCH_VERBS_RQ_EXTRA    16u     /* receive queue: ring slots + this many */
#define RCH_VERBS_INLINE_WANT 256u    /* inline data asked for (the device may give less) */
#define RCH_VERBS_RD_ATOM     16      /* RDMA reads in flight per QP, at most */
#define RCH_VERBS_RXE_RMA_MAX ((size_t)64 << 10)  /* Soft-RoCE: largest single write/read (verbs_prov.c) */
#define RCH_VERBS_RXE_RD_ATOM 8       /* Soft-RoCE: reads in flight per QP */
#define RCH_VERBS_WC_BATCH    16u
#define RCH_VERBS_SIGNAL_WRID 1u      /* wr_id of the periodic signaled inline post (not a ctx) */
#define RCH_VERBS_PRIV_MAX    56      /* private data of an IB connect request through RDMA CM */
#define RCH_VERBS_WAKE_NS     1000000 /* a blocked rank looks at its rings at least this often */
#define RCH_VERBS_SEND_SGE    3       /* SGEs per send-queue entry, for post_writev (when the device has them) */
#define RCH_VERBS_CM_IDLE_NS  1000000 /* no connection being made: CM events are fetched this often */

/* This rank's choice of device and address (verbs_addr.c). */
struct rch_verbs_where {
    struct sockaddr_storage addr;     /* port 0 */
    socklen_t addrlen;
    char dev[64];                     /* device name (siw0, rxe0, mlx5_0) */
    char addr_text[64];
    char why[128];                    /* which tunable / rule picked it */
};

struct rch_net_ep;

struct rch_net_prov {
    struct rdma_event_channel *ec;
    struct rdma_cm_id *listen_id;
    struct ibv_context *verbs;        /* the device (librdmacm's context, shared by all ids) */
    struct ibv_pd *pd;
    struct ibv_comp_channel *cc;
    struct ibv_cq *cq;
    int cq_size;
    int epfd;                         /* epoll over cc->fd, ec->fd and tfd */
    int tfd;                          /* timerfd: the wake-up RDMA writes cannot give (verbs_prov.c) */
    int armed;                        /* ibv_req_notify_cq done since the last event */
    uint32_t sq_depth, rq_depth, max_inline;
    uint32_t send_sge;                /* SGEs per send-queue entry (post_writev gathers this many) */
    unsigned signal_every;            /* inline (unsignaled) posts between two signaled ones */
    uint8_t init_depth, resp_res;     /* RDMA reads in flight: ours, the peer's */
    int iwarp;
    struct rch_verbs_where where;
    /* completions reaped by wait_arm's last look, handed out by poll_cq first */
    struct ibv_wc stash[RCH_VERBS_WC_BATCH];
    unsigned nstash, stash_at;
    struct rch_net_ep *eps;           /* every open endpoint (closed by close() on error paths) */
    unsigned nsetup;                  /* endpoints whose connect/accept has not yet ended */
    uint64_t next_cm_poll;            /* ns: idle, poll_cm asks the kernel no sooner (verbs_cm.c) */
    unsigned long waits, wait_fails;  /* wait_arm calls that armed / could not (logged at close) */
    char wait_why[160];
    struct rch_net_prov_caps caps;
};

struct rch_net_ep {
    struct rdma_cm_id *id;
    void *conn_ctx;
    int active;                       /* connect side: resolve + connect driven by poll_cm */
    int connecting;                   /* resolve/connect/accept under way or done: disconnect on close */
    int have_qp;
    int in_setup;                     /* counted in nsetup */
    unsigned unsignaled;              /* inline posts since the last signaled one */
    struct sockaddr_storage dst;
    socklen_t dstlen;
    uint8_t priv[RCH_VERBS_PRIV_MAX]; /* connect(): private data kept until the route is resolved */
    uint8_t priv_len;
    uint8_t peer_init_depth;          /* passive side: the RDMA reads the requester issues at once */
    uint8_t peer_resp_res;            /* ... and serves */
    struct rch_net_ep *next, *prev;
};

struct rch_net_conn_req {
    struct rdma_cm_id *id;
    uint8_t initiator_depth, responder_resources;
};

/* An errno (from a verbs or RDMA CM call) as a status, with a message naming the call. */
rdmach_status_t rch_verbs_err(int err, const char *what);

/* verbs_addr.c */
rdmach_status_t rch_verbs_choose(struct rch_verbs_where *w);
/* Element [idx mod n] of the comma-separated list in RDMACH_<var>, trimmed, into out. */
rdmach_status_t rch_verbs_list_pick(const char *var, const char *list, int idx, char *out, size_t outlen);
/* Is some device present with an active port? OK, or why not. */
rdmach_status_t rch_verbs_any_active(void);
/* Load libibverbs and librdmacm (verbs_dl.c; base/dl.h): UNSUPPORTED with
 * the reason if either cannot be. Every entry point of the channel asks it
 * first (query: rch_verbs_any_active; open: rch_verbs_choose). */
rdmach_status_t rch_verbs_dl_open(void);
void rch_verbs_addr_text(const struct sockaddr *sa, char *buf, size_t len);

/* verbs_cm.c */
rdmach_status_t rch_verbs_ep_open(struct rch_net_prov *p, const void *addr, size_t addrlen, void *conn_ctx,
                                  struct rch_net_ep **ep);
rdmach_status_t rch_verbs_ep_open_req(struct rch_net_prov *p, struct rch_net_conn_req *req, void *conn_ctx,
                                      struct rch_net_ep **ep);
rdmach_status_t rch_verbs_connect(struct rch_net_prov *p, struct rch_net_ep *ep, const void *priv, size_t len);
rdmach_status_t rch_verbs_accept(struct rch_net_prov *p, struct rch_net_ep *ep, const void *priv, size_t len);
void rch_verbs_reject(struct rch_net_prov *p, struct rch_net_conn_req *req, const void *priv, size_t len);
void rch_verbs_ep_close(struct rch_net_prov *p, struct rch_net_ep *ep);
unsigned rch_verbs_poll_cm(struct rch_net_prov *p, struct rch_net_cm_event *ev, unsigned max);

/* verbs_data.c */
rdmach_status_t rch_verbs_mr_reg(struct rch_net_prov *p, void *addr, size_t len, struct rch_net_mr *mr);
void rch_verbs_mr_dereg(struct rch_net_prov *p, struct rch_net_mr *mr);
rdmach_status_t rch_verbs_post_recv(struct rch_net_prov *p, struct rch_net_ep *ep, void *buf, size_t len,
                                    const struct rch_net_mr *mr, void *ctx);
rdmach_status_t rch_verbs_post_send(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf, size_t len,
                                    const struct rch_net_mr *mr, void *ctx);
rdmach_status_t rch_verbs_post_write(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf, size_t len,
                                     const struct rch_net_mr *mr, uint64_t raddr, const struct rch_net_rkey *rk,
                                     void *ctx);
rdmach_status_t rch_verbs_post_write_data(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf,
                                          size_t len, const struct rch_net_mr *mr, uint64_t raddr,
                                          const struct rch_net_rkey *rk, uint32_t imm, void *ctx);
rdmach_status_t rch_verbs_post_writev(struct rch_net_prov *p, struct rch_net_ep *ep, const struct iovec *iov,
                                      const struct rch_net_mr *const *mr, int n, uint64_t raddr,
                                      const struct rch_net_rkey *rk, void *ctx);
rdmach_status_t rch_verbs_post_read(struct rch_net_prov *p, struct rch_net_ep *ep, void *buf, size_t len,
                                    const struct rch_net_mr *mr, uint64_t raddr, const struct rch_net_rkey *rk,
                                    void *ctx);
unsigned rch_verbs_poll_cq(struct rch_net_prov *p, struct rch_net_cqe *c, unsigned max);
/* Reap into the stash (wait_arm's last look); returns how many are stashed. */
unsigned rch_verbs_stash_fill(struct rch_net_prov *p);

#endif /* RDMACH_HAVE_VERBS */
#endif
