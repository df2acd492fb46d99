/*
 * The provider table under the network channel.
 *
 * The channel (src/rdma/net) is one piece of generic code: the connection
 * protocol, the RDMA-write ring, credits, rendezvous RMA, the registration
 * cache, failure handling. What differs between libfabric MSG endpoints
 * (src/rdma/ofi) and libibverbs + librdmacm (src/rdma/verbs) is below this
 * table: listening and connecting with private data, the connection events,
 * memory registration and remote keys, posting sends, receives, writes and
 * reads, and reaping completions.
 *
 * Model (RDMA CM / FI_EP_MSG): one provider instance per channel owns the
 * fabric/domain (or device/PD), one event queue for connection events, one
 * completion queue shared by every endpoint, and one listener. Endpoints
 * are reliable connected (RC QP / FI_EP_MSG).
 *
 * Contexts: every posted operation carries a `ctx` that comes back in its
 * completion, opaque to the provider (which must not write into it: the
 * libfabric provider asks for no FI_CONTEXT mode; one ctx may be shared by
 * several posts, e.g. the chunks of one RMA). Endpoints carry the channel's
 * `conn_ctx`, returned in their events.
 *
 * Errors are converted here, once: every op returns an rdmach status and
 * leaves a message naming the provider call and the reason (rch_base_err).
 * RDMACH_AGAIN from a post means the send queue is full: nothing was posted.
 *
 * Providers are listed in one place: rch_net_provs[] in net_chan.c.
 */
#ifndef RCH_RDMA_NET_PROV_H
#define RCH_RDMA_NET_PROV_H

#include <stddef.h>
#include <sys/uio.h>
#include <stdint.h>
#include "rdmach.h"
#include "rdma/net/net_proto.h"

struct rch_net_prov;       /* an open provider (private to it) */
struct rch_net_ep;         /* an endpoint (private to the provider) */
struct rch_net_conn_req;   /* an incoming connection request, until accepted or rejected */

/* A registration: [addr, addr+len) with local and remote read/write access. */
struct rch_net_mr {
    void *addr;
    size_t len;
    void *desc;                /* local descriptor for posts (fi_mr_desc, lkey) */
    uint64_t rkey;             /* remote key (fi_mr_key, ibv rkey) */
    void *priv;                /* provider handle */
};

/* What a peer needs to reach a registration. `base` is the registration's
 * address: providers that address remote memory by offset subtract it. */
struct rch_net_rkey {
    uint64_t key;
    uint64_t base;
};

struct rch_net_prov_caps {
    char name[64];             /* e.g. "ofi tcp on eth0 (192.0.2.0/24)" */
    size_t max_rma;            /* largest single write/read */
    size_t inject_size;        /* post_write with ctx == NULL up to this size (0: never) */
    unsigned tx_depth;         /* posts outstanding per endpoint */
    unsigned rx_depth;         /* receives postable per endpoint */
    int in_order;              /* bytes of a write are placed front to back: memory polling is safe */
    int write_data;            /* post_write_data: the target's CQ reports imm data */
    int write_data_consumes_recv; /* ... and each consumes a posted receive (verbs) */
    int onload;                /* protocol processing on the host CPU (tcp, siw, rxe) */
    int pins_memory;           /* registration pins pages (counts against ulimit -l) */
    int write_wakes;           /* a write into our memory wakes the wait fd (a socket does; an RC QP does not) */
    int places_unpolled;       /* a peer's write lands in our memory with no call here (the NIC or the kernel
                                  places it; libfabric tcp moves bytes only inside fi_cq_read): a waiting
                                  rank may test ring memory alone (rch_net_recv_peek) */
    int rndv_put;              /* rendezvous profile: sender PUT beats receiver GET here (rch_rdma_caps.rndv_put) */
    int rails;                 /* connections per peer worth striping rendezvous data over (0, 1: one);
                                  > 1 only with read-after-write order on an endpoint (the fence, net_rma.c) */
    unsigned writev_max;       /* buffers one post_writev gathers (0, 1: no post_writev) */
    int zcopy;                 /* eager zero-copy profile: RDMACH_NET_ZCOPY=auto sends large eager
                                  packets from the user's buffer here (net_chan.c) */
};


/* Connection-manager events. */
enum rch_net_cm_type {
    RCH_NET_EV_CONNREQ = 1,    /* a request arrived: `req`, `priv` (peer's private data) */
    RCH_NET_EV_ESTABLISHED,    /* `conn_ctx`'s endpoint is connected; client: `priv` = accept data */
    RCH_NET_EV_REJECTED,       /* `conn_ctx`'s connect was rejected by the peer: `priv` = reject data */
    RCH_NET_EV_UNREACHABLE,    /* `conn_ctx`'s connect failed (nobody listens, route, timeout) */
    RCH_NET_EV_DISCONNECTED,   /* `conn_ctx`'s connection ended (peer closed or died) */
    RCH_NET_EV_TYPE_MAX
};

#define RCH_NET_EV_PRIV_MAX 256
struct rch_net_cm_event {
    int type;                  /* enum rch_net_cm_type */
    void *conn_ctx;
    struct rch_net_conn_req *req;
    rdmach_status_t status;    /* UNREACHABLE / DISCONNECTED: why (message in rdmach_last_error) */
    size_t priv_len;
    uint8_t priv[RCH_NET_EV_PRIV_MAX];
    char peer_name[64];        /* CONNREQ: the requester's address as text, for logs */
};

enum rch_net_cq_op {
    RCH_NET_CQ_SEND = 1,
    RCH_NET_CQ_RECV,
    RCH_NET_CQ_WRITE,
    RCH_NET_CQ_READ,
    RCH_NET_CQ_REMOTE_DATA,    /* a peer's post_write_data landed: `imm` (ctx: the consumed receive, or NULL) */
    RCH_NET_CQ_OP_MAX
};

struct rch_net_cqe {
    void *ctx;
    int op;                    /* enum rch_net_cq_op (0 if an error entry does not say) */
    rdmach_status_t status;    /* OK, or the error (message in rdmach_last_error at poll time) */
    uint32_t len;              /* RECV: bytes */
    uint32_t imm;              /* REMOTE_DATA */
};

struct rch_net_prov_ops {
    const char *name;          /* "ofi", "verbs": the KVS record and RDMACH_NET name it */
    /* Can it run here (library, device, provider found)? OK or why not. */
    rdmach_status_t (*query)(void);
    /* Open the domain, event and completion queues and the listener. */
    rdmach_status_t (*open)(struct rch_net_prov **out);
    void (*close)(struct rch_net_prov *p);
    const struct rch_net_prov_caps *(*caps)(const struct rch_net_prov *p);
    /* The listener's address as bytes (what peers pass to ep_open). */
    rdmach_status_t (*listen_addr)(struct rch_net_prov *p, void *addr, size_t *len);

    /* An endpoint towards addr (active side), ready for post_recv; connect() starts it. */
    rdmach_status_t (*ep_open)(struct rch_net_prov *p, const void *addr, size_t addrlen, void *conn_ctx,
                               struct rch_net_ep **ep);
    /* An endpoint for an incoming request (consumes req), ready for post_recv; accept() answers. */
    rdmach_status_t (*ep_open_req)(struct rch_net_prov *p, struct rch_net_conn_req *req, void *conn_ctx,
                                   struct rch_net_ep **ep);
    rdmach_status_t (*connect)(struct rch_net_prov *p, struct rch_net_ep *ep, const void *priv, size_t len);
    rdmach_status_t (*accept)(struct rch_net_prov *p, struct rch_net_ep *ep, const void *priv, size_t len);
    /* Refuse a request (consumes req); priv reaches the requester's REJECTED event. */
    void (*reject)(struct rch_net_prov *p, struct rch_net_conn_req *req, const void *priv, size_t len);
    /* Disconnect and destroy; outstanding operations complete with errors or are dropped. */
    void (*ep_close)(struct rch_net_prov *p, struct rch_net_ep *ep);
    unsigned (*poll_cm)(struct rch_net_prov *p, struct rch_net_cm_event *ev, unsigned max);

    rdmach_status_t (*mr_reg)(struct rch_net_prov *p, void *addr, size_t len, struct rch_net_mr *mr);
    void (*mr_dereg)(struct rch_net_prov *p, struct rch_net_mr *mr);

    rdmach_status_t (*post_recv)(struct rch_net_prov *p, struct rch_net_ep *ep, void *buf, size_t len,
                                 const struct rch_net_mr *mr, void *ctx);
    /* ctx == NULL: inject (len <= caps.inject_size), no completion, buf reusable at once. */
    rdmach_status_t (*post_send)(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf, size_t len,
                                 const struct rch_net_mr *mr, void *ctx);
    /* ctx == NULL: inject (len <= caps.inject_size), no completion, buf reusable at once. */
    rdmach_status_t (*post_write)(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf, size_t len,
                                  const struct rch_net_mr *mr, uint64_t raddr, const struct rch_net_rkey *rk,
                                  void *ctx);
    /* As post_write, and the target's CQ reports `imm` (caps.write_data). */
    rdmach_status_t (*post_write_data)(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf,
                                       size_t len, const struct rch_net_mr *mr, uint64_t raddr,
                                       const struct rch_net_rkey *rk, uint32_t imm, void *ctx);
    /* One write gathering n (<= caps.writev_max) local buffers, placed back to
     * back at raddr; always with a completion (ctx != NULL). */
    rdmach_status_t (*post_writev)(struct rch_net_prov *p, struct rch_net_ep *ep, const struct iovec *iov,
                                   const struct rch_net_mr *const *mr, int n, uint64_t raddr,
                                   const struct rch_net_rkey *rk, void *ctx);
    rdmach_status_t (*post_read)(struct rch_net_prov *p, struct rch_net_ep *ep, void *buf, size_t len,
                                 const struct rch_net_mr *mr, uint64_t raddr, const struct rch_net_rkey *rk,
                                 void *ctx);
    /* Reap up to max completions (and drive the provider's progress). */
    unsigned (*poll_cq)(struct rch_net_prov *p, struct rch_net_cqe *c, unsigned max);

    /* Prepare to sleep: OK and *fd (POLLIN) if safe to block, AGAIN if events are pending. */
    rdmach_status_t (*wait_arm)(struct rch_net_prov *p, int *fd);
    void (*wait_disarm)(struct rch_net_prov *p);

    /* Optional (NULL: every transfer the provider makes shows up as a
     * completion or in a ring). A provider that moves bytes for the PEER
     * inside poll_cq without telling us (libfabric tcp answering an fi_read
     * aimed at our memory, or sending a long answer piece by piece) says here,
     * without blocking, whether poll_cq has such work now (a socket readable,
     * or writable with data queued). The channel asks only every few idle
     * passes and reports a yes as activity, so the device's wait keeps
     * polling instead of going to sleep while the peer waits on us. */
    int (*busy)(struct rch_net_prov *p);
};

/* Defined when built with libfabric / with libibverbs + librdmacm (rdmach_config.h). */
extern const struct rch_net_prov_ops rch_net_prov_ofi;
extern const struct rch_net_prov_ops rch_net_prov_verbs;

/* "Not supported" fillers (never NULL slots). */
rdmach_status_t rch_net_no_write_data(struct rch_net_prov *p, struct rch_net_ep *ep, const void *buf,
                                      size_t len, const struct rch_net_mr *mr, uint64_t raddr,
                                      const struct rch_net_rkey *rk, uint32_t imm, void *ctx);

#endif
