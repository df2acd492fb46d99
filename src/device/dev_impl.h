/*
 * Device internals shared by the files of src/device (not used above it).
 *
 *   pkt.h/.c     the wire format and its validation
 *   match.h/.c   posted and unexpected queues (no channel, unit-testable)
 *   req.c        request and unexpected-message pools, completion
 *   select.c     which channel reaches which peer (the network issue extends it)
 *   loop.c       the device-internal loopback used for sends to self
 *   init.c       open/publish/fence/connect, finalize, peer failure, ctx maps
 *   send.c       isend, per-peer send queues, credits (CRDT)
 *   recv.c       irecv/iprobe/cancel, packet dispatch, EAGER/SYNC_ACK/CRDT
 *   rndv.c       rendezvous: REQ, RSP, GET/PUT or DATA, FIN
 *   cancel.c     cancel of sends and receives: CANCEL_REQ, CANCEL_RSP
 *   progress.c   rch_dev_progress and the adaptive wait
 *
 * Threading: one thread at a time; nothing here is locked. At
 * MPI_THREAD_MULTIPLE the MPI layer's callers hold the global critical
 * section (cs.h), which the waits in progress.c hand over between polls.
 */
#ifndef RCH_DEVICE_DEV_IMPL_H
#define RCH_DEVICE_DEV_IMPL_H

#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include "base/base.h"
#include "boot/boot.h"
#include "device/dev.h"
#include "device/match.h"
#include "device/pkt.h"
#include "rdma/channel.h"

/* Protocol states of a request (one enum for both directions). */
enum rch_dev_state {
    RCH_DEV_S_FREE = 0,
    RCH_DEV_S_DONE,
    RCH_DEV_S_GREQ,            /* generalized request, completed by its owner */
    RCH_DEV_S_SEND_QUEUED,     /* in its peer's send queue, nothing sent yet */
    RCH_DEV_S_SEND_WAIT_ACK,   /* sync eager sent: waiting for SYNC_ACK */
    RCH_DEV_S_SEND_WAIT_RSP,   /* RNDV_REQ sent: waiting for RSP (PUT/DATA) or FIN (GET) */
    RCH_DEV_S_SEND_PUT,        /* PUT in flight: waiting for rma_done, then FIN */
    RCH_DEV_S_SEND_PUT_FINNED, /* PUT in flight with the FIN already behind it (caps.put_then_send):
                                  waiting for rma_done to release the buffer */
    RCH_DEV_S_SEND_DATA,       /* streaming RNDV_DATA through the send queue */
    RCH_DEV_S_RECV_POSTED,     /* on the posted queue */
    RCH_DEV_S_RECV_GET,        /* GET in flight: waiting for rma_done */
    RCH_DEV_S_RECV_WAIT_FIN,   /* RSP sent: waiting for FIN (PUT) or the DATA chunks */
    RCH_DEV_S_CTL,             /* a queued control packet (internal) */
    RCH_DEV_S_RMA,             /* one-sided: a queued packet, RDMA in flight or waiting for RSP (rma_impl.h) */
    RCH_DEV_S_SEND_ZC,         /* eager zero-copy (send_zc) in flight: waiting for rma_done */
    RCH_DEV_S_NATIVE,          /* native rdmach_put/get: channel put/get in flight, waiting for rma_done (native_rma.c) */
    RCH_DEV_S_SEND_CANCEL,     /* a send whose protocol is over, waiting for CANCEL_RSP (cancel.c) */
};

/*
 * Cancel of a send, beside the protocol state (cancel.c). The protocol's
 * own answers (SYNC_ACK, RSP, FIN) may still arrive while a cancel is
 * asked: the receiver sends them before it sees the CANCEL_REQ.
 *   NONE    no cancel asked (or the answer was "matched": the send goes on)
 *   WANTED  asked while the packet is being written (eager zero-copy): the
 *           CANCEL_REQ goes out once the write is done
 *   ASKED   CANCEL_REQ sent: the request does not complete (OK) before the
 *           answer; an error (the peer failed) completes it at once
 */
enum rch_dev_cxl { RCH_DEV_CXL_NONE = 0, RCH_DEV_CXL_WANTED, RCH_DEV_CXL_ASKED };

/* What a queued request sends when it reaches the head of its peer's queue. */
enum rch_dev_qop { RCH_DEV_Q_EAGER = 1, RCH_DEV_Q_RNDV_REQ, RCH_DEV_Q_DATA, RCH_DEV_Q_CTL,
                   RCH_DEV_Q_RMA /* one-sided packet: header in ctl, payload at buf/len */ };

/* The device's request: the public part first (dev.h), then protocol state. */
struct rch_dev_ireq {
    struct rch_dev_req pub;
    uint32_t index, gen;            /* id = gen << 32 | index (req.c) */
    uint8_t state;                  /* enum rch_dev_state */
    uint8_t qop;                    /* enum rch_dev_qop while queued */
    uint8_t freed;                  /* released by its owner before completion */
    uint8_t sync;                   /* SEND_SYNC eager */
    uint8_t on_pending;             /* on its peer's pending list */
    uint8_t cxl;                    /* send: enum rch_dev_cxl */
    uint16_t ctl_len;
    int peer;                       /* world rank of the other side (-1 unknown) */
    rdmach_status_t result;         /* receive: TRUNCATE decided at match time */
    struct rch_dev_ireq *next;      /* free list / send queue */
    struct rch_dlist pending;       /* peer's list of requests in a protocol exchange */
    struct rch_match_entry me;      /* receive: posted queue entry */
    void *buf;                      /* user buffer (send: source, receive: destination) */
    size_t len;
    uint32_t hctx;                  /* send: header fields */
    int32_t hsrc, htag;
    uint64_t remote;                /* the other side's request id */
    uint64_t seq;                   /* send: the message's number to its peer (pkt.h CANCEL_REQ), 0 until it left */
    size_t xfer;                    /* rendezvous: bytes to move */
    size_t offset;                  /* RNDV_DATA: bytes sent / received so far */
    struct rch_rdma_mr *mr;         /* rendezvous registration of buf */
    uint64_t raddr;                 /* PUT target */
    struct rch_rdma_rkey rkey;
    uint8_t ctl[RCH_PKT_CTL_MAX];   /* CTL: the packet */
};

/* An unexpected message: eager data copied here, or a rendezvous descriptor. */
#define RCH_DEV_UNEXP_INLINE 256
struct rch_dev_unexp {
    struct rch_match_entry me;
    struct rch_dev_unexp *next;     /* free list */
    int peer;                       /* world rank of the sender */
    uint8_t op;                     /* RCH_PKT_EAGER or RCH_PKT_RNDV_REQ */
    uint16_t flags;                 /* packet flags (SYNC, RKEY) */
    size_t size;                    /* message bytes */
    uint64_t sreq;                  /* SYNC: request to ack; RNDV: sender's request */
    uint64_t seq;                   /* its number among the messages from peer (pkt.h CANCEL_REQ) */
    uint64_t saddr;
    struct rch_rdma_rkey rkey;
    void *data;                     /* eager: inl or malloc'd */
    unsigned char inl[RCH_DEV_UNEXP_INLINE];
};

struct rch_dev_chan;

/*
 * Everything the device knows about one world rank. Owned by the device;
 * `ops` is never NULL: unreachable and dead peers get rch_dev_nochan_ops,
 * whose operations fail with the reason, so the send fast path needs no test.
 */
struct rch_dev_peer {
    const struct rch_rdma_ops *ops;
    struct rch_rdma_chan *chan;
    struct rch_dev_ireq *sq_head, *sq_tail;  /* queued sends, FIFO (non-overtaking) */
    size_t eager_max;               /* largest eager payload (standard mode) */
    size_t zc_min;                  /* eager payloads from this size on go by send_zc (SIZE_MAX: never) */
    int flow;                       /* credits in force (caps.needs_credits) */
    int credits;                    /* credited packets we may still send */
    int owed;                       /* credited packets received, not yet returned */
    int rank;
    uint64_t tx_seq, rx_seq;        /* EAGER/RNDV_REQ packets sent to / received from it (pkt.h CANCEL_REQ) */
    uint64_t tx_bytes, rx_bytes;    /* their message bytes (stats.h; updated with the numbers) */
    /* --- colder --- */
    struct rch_dev_chan *dchan;     /* NULL: unreachable / self loopback has its own */
    size_t eager_max_sync;          /* largest eager payload with the SYNC header */
    size_t data_max;                /* RNDV_DATA chunk payload */
    int crdt_thresh;                /* send an explicit CRDT when owed reaches this */
    int crdt_pending;               /* a CRDT could not go out: retry in drain */
    int rma;                        /* channel has put/get */
    int dead;                       /* failed (peer_failed), left (peer_left) or unreachable */
    int left;                       /* ... because it finished and exited: no failure */
    rdmach_status_t dead_status;
    char *why;                      /* failed: its message, naming it (rch_dev_peer_failed; malloc'd) */
    int active;                     /* on rch_dev.active (queued work) */
    struct rch_dev_peer *next_active;
    struct rch_dlist pending;       /* requests waiting on this peer */
    int maps;                       /* communicator maps naming it (rch_dev_ctx_map): a process of
                                       another job is detached only when none does (dyn.c) */
    int detached;                   /* a process of another job whose connection was closed: its
                                       slot may take another (dyn.c) */
    uint64_t dropped;               /* malformed packets from this peer */
    uint64_t crdt_sent;             /* statistics for tests */
};

/* An open channel. */
struct rch_dev_chan {
    const struct rch_rdma_ops *ops;
    struct rch_rdma_chan *chan;
    const struct rch_rdma_caps *caps;
    int *peers;
    int npeers;
    int can_wait;                   /* has a wait primitive (not the loopback) */
    /* the traffic of detached peers whose slots took other processes
     * (dyn.c): the statistics stay monotonic (stats.c) */
    uint64_t gone_msgs_sent, gone_bytes_sent, gone_msgs_recv, gone_bytes_recv;
};

#define RCH_DEV_MAX_CHANS 4

struct rch_dev_ctxmap {
    int size;
    int *world_of;
};

struct rch_dev_state_s {
    int initialized;
    int rank, size;
    struct rch_dev_peer *peers;     /* [size] */
    struct rch_dev_peer *active;    /* peers with queued sends or a pending CRDT */
    struct rch_match_posted posted;
    struct rch_match_unexp unexp;
    struct rch_dev_chan chans[RCH_DEV_MAX_CHANS];
    int nchans;
    int npoll;                      /* channels polled by progress (loopback not) */
    /* wait policy (progress.c) */
    int spin_count, yield_count;
    double yield_long;              /* seconds: a yield away this long looks for other work (slice.c; 0: never) */
    int host_ranks;                 /* the job's ranks on this host */
    int oversubscribed;
    int cores;                      /* online cores (oversubscribed waits) */
    int oversub_peer_spin;          /* oversubscribed: polls while the partner runs on another core */
    /* pools (req.c) */
    struct rch_dev_ireq **slabs;
    uint32_t nslabs, slabs_cap;
    struct rch_dev_ireq *free_reqs;
    struct rch_dev_unexp *free_unexp;
    void **unexp_slabs;
    uint32_t n_unexp_slabs, unexp_slabs_cap;
    /* failures */
    int failed_peer;
    unsigned failures;              /* peers failed so far (rch_dev_failures) */
    int nleft;                      /* peers that finished and exited (rch_dev_peer_left) */
    /* communicator maps (optional, rch_dev_ctx_map) */
    struct rch_dev_ctxmap *ctxmaps;
    uint32_t nctxmaps;
    /* statistics (tests, debugging) */
    uint64_t dropped;
    uint64_t direct_recvs;          /* receives rch_dev_recv_direct took from a channel */
};

extern struct rch_dev_state_s rch_dev;

/* ---- req.c ---- */
rdmach_status_t rch_dev_pools_init(void);
void rch_dev_pools_fini(void);
/* Refill the free list (a new slab); NULL on exhaustion of memory. */
struct rch_dev_ireq *rch_dev_ireq_grow(void);

/* A request from the pool, public part zeroed. Inline: it is on the fast path. */
static inline struct rch_dev_ireq *rch_dev_ireq_alloc(int kind)
{
    struct rch_dev_ireq *r = rch_dev.free_reqs;
    if (RCH_UNLIKELY(r == NULL) && (r = rch_dev_ireq_grow()) == NULL)
        return NULL;
    rch_dev.free_reqs = r->next;
    memset(&r->pub, 0, sizeof(r->pub));
    r->pub.kind = kind;
    r->pub.source = -1;
    r->pub.tag = -1;
    r->state = RCH_DEV_S_DONE;
    r->qop = 0;
    r->freed = 0;
    r->sync = 0;
    r->on_pending = 0;
    r->cxl = RCH_DEV_CXL_NONE;
    r->seq = 0;
    r->peer = -1;
    r->result = RDMACH_OK;
    r->next = NULL;
    r->me.queued = 0;
    r->mr = NULL;
    r->xfer = 0;
    r->offset = 0;
    return r;
}
void rch_dev_ireq_release(struct rch_dev_ireq *r);
static inline uint64_t rch_dev_ireq_id(const struct rch_dev_ireq *r)
{
    return (uint64_t)r->gen << 32 | r->index;
}
/* The live request with this id, or NULL. */
struct rch_dev_ireq *rch_dev_ireq_lookup(uint64_t id);
/* Complete: set err, run on_complete, publish done; reclaim if already freed. */
void rch_dev_ireq_complete(struct rch_dev_ireq *r, rdmach_status_t err);
/* End a protocol exchange: off the peer's pending list, registration
 * released, completed with err. */
void rch_dev_ireq_finish(struct rch_dev_ireq *r, rdmach_status_t err);
struct rch_dev_unexp *rch_dev_unexp_alloc(size_t data_bytes);
void rch_dev_unexp_release(struct rch_dev_unexp *u);

static inline void rch_dev_pending_add(struct rch_dev_peer *p, struct rch_dev_ireq *r)
{
    if (!r->on_pending) {
        rch_dlist_push_tail(&p->pending, &r->pending);
        r->on_pending = 1;
    }
}
static inline void rch_dev_pending_del(struct rch_dev_ireq *r)
{
    if (r->on_pending) {
        rch_dlist_remove(&r->pending);
        r->on_pending = 0;
    }
}

/* ---- cancel.c ---- */
/* A send request's protocol is over with OK while a cancel is wanted or
 * asked: the completion waits for the answer (called by rch_dev_ireq_complete). */
void rch_dev_cancel_hold(struct rch_dev_ireq *r);
void rch_dev_cancel_on_req(struct rch_dev_peer *p, const void *pkt, size_t len);
void rch_dev_cancel_on_rsp(struct rch_dev_peer *p, const void *pkt, size_t len);

/* ---- select.c ---- */
/* The channel that reaches `peer` (never this rank), or NULL if none does. */
typedef const struct rch_rdma_ops *(*rch_dev_select_fn)(const struct rch_boot_info *boot, int peer);
const struct rch_rdma_ops *rch_dev_select_default(const struct rch_boot_info *boot, int peer);

/* ---- loop.c ---- */
extern const struct rch_rdma_ops rch_dev_loop_ops;
/* For unreachable and failed peers: every operation fails naming the peer. */
extern const struct rch_rdma_ops rch_dev_nochan_ops;

/* ---- init.c ---- */
/* rch_dev_init with another channel selection (tests: mock channels). */
rdmach_status_t rch_dev_init_with(rch_dev_select_fn select);
void rch_dev_peer_failed(int peer, rdmach_status_t status);
void rch_dev_peer_left(int peer);
/* Open channel ops into dc with its peers (dc owns the array). */
rdmach_status_t rch_dev_open_chan(struct rch_dev_chan *dc, const struct rch_rdma_ops *ops, int *peers,
                                  int npeers);
/* A peer's limits from its channel's caps (the peer then uses that channel). */
rdmach_status_t rch_dev_peer_setup(struct rch_dev_peer *p, struct rch_dev_chan *dc);
/* live.c: the peers of this host that no channel watches (stopped, gone).
 * publish before the init fence; check from a wait about to sleep. */
rdmach_status_t rch_dev_live_publish(void);
void rch_dev_live_resolve(void);   /* after init's fence: the peers to watch */
void rch_dev_live_check(void);
/* A short scheduler slice while processes other than the job's compete for
 * the node's cores (slice.c): rch_dev_slice_long_yield after a yield that
 * kept the rank off its core RDMACH_YIELD_LONG_US; rch_dev_slice_end at the
 * end of every wait (one load when the slice is the thread's own). */
void rch_dev_slice_long_yield(void);
void rch_dev_slice_expire(void);
void rch_dev_slice_fini(void);      /* the thread's own slice back, /proc/loadavg closed */
extern int rch_dev_slice_now;
static inline void rch_dev_slice_end(void)
{
    if (RCH_UNLIKELY(rch_dev_slice_now))
        rch_dev_slice_expire();
}
void rch_dev_live_fini(void);
void rch_dev_live_depart(void);     /* at close, queues drained: our exit is no failure */
int rch_dev_live_departed(int r);   /* r, watched here, closed its device before it went */
/* Rank r's pid if it runs on this host in our pid namespace, else 0 (a PMI
 * get: after init's fence, never from progress). */
pid_t rch_dev_live_host_pid(int r);
/* heartbeat.c: the peers no kernel here watches (other hosts): publish
 * before init's fence, resolve after it (starts the helper thread), check
 * from live_check, fini at finalize (says goodbye, stops the helper). */
rdmach_status_t rch_dev_hb_publish(void);
void rch_dev_hb_resolve(void);
void rch_dev_hb_check(void);
void rch_dev_hb_fini(void);
/* Before the first /dev/shm file (reaper.c): register with this host's
 * process that removes the job's files once every registered rank has
 * ended, starting it if there is none. */
void rch_dev_reaper_start(void);
/* World rank of comm rank `src` in context `ctx`, or -1 if unknown. */
int rch_dev_ctx_world(uint32_t ctx, int src);

/* ---- send.c ---- */
void rch_dev_isend_zc_done(struct rch_dev_ireq *r, rdmach_status_t st);  /* rma_done of an RCH_DEV_S_SEND_ZC request */
/* Send a control packet (RSP, FIN, SYNC_ACK, CRDT) now, or queue it. */
/* The packet's credits field is filled in here. */
void rch_dev_send_ctl(struct rch_dev_peer *p, void *pkt, size_t len);
/* Put a request at the tail of its peer's send queue. */
void rch_dev_enqueue(struct rch_dev_peer *p, struct rch_dev_ireq *r);
/* Try to return credits now (explicit CRDT); keeps it pending on AGAIN. */
void rch_dev_send_crdt(struct rch_dev_peer *p);
/* Drain the queued sends of every active peer (bounded); events handled. */
unsigned rch_dev_drain(unsigned max);
/* Take a request that has not left off its peer's send queue: 1 if it was queued. */
int rch_dev_unqueue(struct rch_dev_peer *p, struct rch_dev_ireq *r);
/* Fail every queued request of a peer with st. */
void rch_dev_sendq_fail(struct rch_dev_peer *p, rdmach_status_t st);

/* ---- recv.c ---- */
/* Count and report a packet that passed validation but makes no sense
 * (an id of no waiting request...). */
void rch_dev_bad_packet(struct rch_dev_peer *p, size_t len, unsigned op, const char *why);
void rch_dev_up_recv(void *ctx, int peer, const void *pkt, size_t len);
void rch_dev_up_rma_done(void *ctx, void *op_ctx, rdmach_status_t status);
void rch_dev_up_peer_failed(void *ctx, int peer, rdmach_status_t status);
void rch_dev_up_peer_left(void *ctx, int peer);

/* ---- rndv.c ---- */
/* Sender: fill the RNDV_REQ (registering buf for GET when useful). */
rdmach_status_t rch_dev_rndv_prepare(struct rch_dev_peer *p, struct rch_dev_ireq *r);
size_t rch_dev_rndv_build_req(struct rch_dev_ireq *r, void *pkt);
/* Receiver: a receive matched a rendezvous message. */
void rch_dev_rndv_matched(struct rch_dev_ireq *r, struct rch_dev_peer *p, const struct rch_pkt_rndv_req *req);
void rch_dev_rndv_on_req(struct rch_dev_peer *p, const void *pkt, size_t len);
void rch_dev_rndv_on_rsp(struct rch_dev_peer *p, const void *pkt, size_t len);
void rch_dev_rndv_on_data(struct rch_dev_peer *p, const void *pkt, size_t len);
void rch_dev_rndv_on_fin(struct rch_dev_peer *p, const void *pkt, size_t len);
void rch_dev_rndv_rma_done(struct rch_dev_ireq *r, rdmach_status_t st);
/* Release a request's registration. */
void rch_dev_rndv_dereg(struct rch_dev_ireq *r);
/* RDMACH_RNDV_MODE resolved for a channel with caps `c` (NULL: no profile):
 * 1 receiver GET, 0 sender PUT; `why` (may be NULL) says which rule decided. */
int rch_dev_rndv_uses_get(const struct rch_rdma_caps *c, const char **why);
/* The largest message (standard mode) sent eagerly over a channel with caps c:
 * its max_msg less the EAGER header, and below RDMACH_RNDV_THRESHOLD. */
size_t rch_dev_eager_max(const struct rch_rdma_caps *c);
/* PUT mode: does the FIN go right behind the data (caps.put_then_send, RDMACH_RNDV_FIN=auto)? */
int rch_dev_rndv_fin_early(const struct rch_rdma_caps *c);

/* ---- rma_am.c (one-sided; see rma.h) ---- */
void rch_dev_rma_on_pkt(struct rch_dev_peer *p, const void *pkt, size_t len);   /* RCH_PKT_RMA arrived */
void rch_dev_rma_sent(struct rch_dev_ireq *r);                      /* a queued RCH_DEV_Q_RMA packet left */
int rch_dev_rma_iov(const struct rch_dev_ireq *r, struct iovec *iov);  /* its pieces (at most 3): how many */
void rch_dev_rma_rdma_done(struct rch_dev_ireq *r, rdmach_status_t st);  /* rma_done of an RCH_DEV_S_RMA request */

/* ---- stats.c ---- */
/* A message was just queued as unexpected: high-water mark, event hook. */
void rch_dev_stats_unexp_queued(const struct rch_dev_unexp *u);

/* ---- native_rma.c (native rdmach_put/get) ---- */
void rch_dev_native_rma_done(struct rch_dev_ireq *r, rdmach_status_t st);   /* rma_done of an RCH_DEV_S_NATIVE request */

#endif
