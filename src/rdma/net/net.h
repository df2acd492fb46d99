/*
 * The network channel's private state, shared by its files:
 *   net_chan.c     query/open/close/publish/connect, caps, the channel ops
 *                  tables (one per provider: rch_rdma_ofi_ops, rch_rdma_verbs_ops)
 *   net_conn.c     the connection protocol (state machine, CM events, keys)
 *   net_msg.c      send() over the ring, slot and control-message arrival, credits
 *   net_rma.c      registration (through the cache), rkeys, put/get
 *   net_progress.c progress: completions, rings, CM events, timers; wait
 *   net_ring.c     the ring as a data structure;  net_rcache.c the registration
 *                  cache;  net_memhook.c  free/munmap interception for it
 * Below: the provider table (net_prov.h) and its implementations in
 * src/rdma/ofi and src/rdma/verbs. The wire format is net_proto.h.
 *
 * Threading: one thread uses a channel (channel.h); only the registration
 * cache is shared with other threads (free() hooks) and has its own lock.
 *
 * Ownership: a connection record lives as long as the channel (indexed by
 * world rank), and so do the operation contexts inside it, so a completion
 * that arrives late (after a failure, or flushed by ep_close) always finds
 * valid memory. RMA operations come from a pool and return to it only once
 * every posted chunk has completed.
 */
#ifndef RCH_RDMA_NET_H
#define RCH_RDMA_NET_H

#include "base/log.h"
#include "rdma/channel.h"
#include "rdma/net/net_prov.h"
#include "rdma/net/net_proto.h"
#include "rdma/net/net_rcache.h"
#include "rdma/net/net_ring.h"

#define RCH_NET_NRECV_BASE  4u      /* receives per connection for control messages */
#define RCH_NET_CQ_BATCH    16u     /* completions reaped per poll */
#define RCH_NET_RX_BATCH    16u     /* slots taken from one ring per pass (fairness) */
#define RCH_NET_CM_EVERY    64u     /* progress calls between EQ polls when no connection is pending */
#define RCH_NET_BUSY_EVERY  8u      /* idle progress calls between pops->busy probes */
#define RCH_NET_BUSY_MAX    4096u   /* busy reports in a row without a real event, then no more */
#define RCH_NET_REVERSE_RETRY 1.0   /* seconds between reverse requests while waiting for the client */
/* A client's connection reset by the server's listener before its request
 * was read (the listener's guard, under a flood: ofi_guard.c) is made
 * again after this, doubled on each retry up to 16 times this, within
 * RDMACH_NET_CONNECT_TIMEOUT. */
#define RCH_NET_RETRY_AFTER 0.05
/* A client whose NOOP the server has not answered (NOOP_ACK) this long sends
 * it again, at most RCH_NET_NOOP_REPEATS times, each interval twice the last
 * (net_conn.c: Soft-iWARP can leave a first message that lands while the
 * server's QP takes over the socket unread until more data comes). */
#define RCH_NET_NOOP_REPEAT_AFTER 0.2
#define RCH_NET_NOOP_REPEATS 2u
_Static_assert(1 + RCH_NET_NOOP_REPEATS < RCH_NET_NRECV_BASE, "a NOOP and its repeats fit the posted receives");

/* How the receiver learns that a slot has arrived (RDMACH_NET_NOTIFY). */
enum rch_net_notify {
    RCH_NET_NOTIFY_POLL = 0,      /* poll the slot's markers: needs in-order placement */
    RCH_NET_NOTIFY_DATA,          /* the slot write carries immediate data (the sender's rank) */
    RCH_NET_NOTIFY_SEND,          /* the slot write is followed by a DOORBELL send */
    RCH_NET_NOTIFY_MAX
};

/* A connection's life. Server = the lower rank of the pair (it listens and
 * accepts), client = the higher (it connects, and speaks first). */
enum rch_net_conn_state {
    RCH_NET_C_IDLE = 0,          /* nothing yet (lazy) */
    RCH_NET_C_REVERSE,           /* server: REVERSE request out, answer pending */
    RCH_NET_C_REVERSE_WAIT,      /* server: the client said it will connect; waiting (re-asking each second) */
    RCH_NET_C_CONNECTING,        /* client: CONNECT out, waiting for the accept */
    RCH_NET_C_ACCEPTED,          /* server: accepted, receives posted; waiting for the NOOP, posting nothing */
    RCH_NET_C_READY,             /* both: the ring is usable */
    RCH_NET_C_CLOSED,            /* the peer closed its channel (BYE), or we did */
    RCH_NET_C_FAILED,            /* the peer died, disconnected or broke the protocol */
    RCH_NET_C_STATE_MAX
};
extern const char *const rch_net_state_name[RCH_NET_C_STATE_MAX];

enum rch_net_op_kind {
    RCH_NET_OP_RECV = 1,         /* a posted control-message receive */
    RCH_NET_OP_CTL,              /* a control-message send (NOOP, DOORBELL) */
    RCH_NET_OP_SLOT,             /* a slot write with a completion (not injected) */
    RCH_NET_OP_CRDT,             /* a credit-word write with a completion */
    RCH_NET_OP_RMA,              /* a chunk of a put/get */
    RCH_NET_OP_KIND_MAX
};

struct rch_net_conn;
struct rch_net_rma;

/* The context of a posted operation (the provider's ctx). */
struct rch_net_op {
    uint8_t kind;                /* enum rch_net_op_kind */
    uint8_t busy;                /* posted, completion not yet seen */
    uint16_t index;              /* RECV: buffer; SLOT: staging slot */
    struct rch_net_conn *conn;
    struct rch_net_rma *rma;
    void *up_ctx;                /* SLOT written by send_zc: rma_done(up_ctx) when it completes */
};

/* One put or get, split into chunks of at most RDMACH_NET_RMA_CHUNK. */
struct rch_net_rma {
    struct rch_net_op op;        /* the context of every chunk */
    int write;                   /* put: 1, get: 0 */
    unsigned char *laddr;
    size_t len, posted;          /* bytes; bytes posted so far */
    uint64_t raddr;
    struct rch_net_rkey rk;
    const struct rch_net_mr *lmr;
    struct rch_net_rcache_entry *own;   /* registration made for this op (no lmr given) */
    unsigned outstanding;        /* chunks (and fences) posted, completion not seen */
    size_t stripe;               /* bytes per chunk, chosen at the first post */
    int striped;                 /* chunks go round the rails (len >= RDMACH_NET_RAIL_MIN) */
    unsigned chunks;             /* chunks posted: chunk k goes on data endpoint k mod n */
    unsigned fence;              /* writes: bit k = rail k carries a chunk whose fence is not posted */
    size_t fence_off[RCH_NET_MAX_RAILS];   /* the offset of a chunk on each rail (the fence reads it) */
    rdmach_status_t status;
    int reported;                /* rma_done called */
    void *op_ctx;
    struct rch_net_rma *next;    /* connection's queue, or the free list */
    struct rch_net_rma *lnext, *lprev;  /* connection's list of unfinished RMAs */
};

/* Which endpoint of a connection an event is about. */
struct rch_net_epctx {
    struct rch_net_conn *conn;
    int reverse;
    int rail;                    /* 0: the connection itself; k >= 1: its data rail k */
};

struct rch_net_conn {
    int rank;                    /* the peer's world rank (device numbering: a process of another
                                    job comes after the job's ranks, rdma/net/net_dyn.h) */
    int my_id;                   /* this rank as the peer numbers it: what CM data, control
                                    messages and immediate data name (the job's rank, or the
                                    number a process of another job gave it) */
    int state;                   /* enum rch_net_conn_state */
    int is_peer;                 /* the channel serves this rank */
    int server;                  /* this rank is the pair's server */
    uint64_t key;                /* what the peer must quote (rch_net_conn_key): 0, our secret
                                    (a rank of the job); for a process of another job the key
                                    handed out with the record for this attach, so that a late
                                    request of the record's previous process, which knew only
                                    the key of its own attach, is refused (net_dyn.c) */
    struct rch_net_ep *ep;
    struct rch_net_ep *rev_ep;   /* server: the REVERSE request's endpoint */
    struct rch_net_epctx ctx, rev_ctx;
    /* Data rails (net_conn.c): extra connections of the pair that carry
     * only RMA chunks, striped by net_rma.c; [0] unused (that is `ep`). */
    struct rch_net_ep *rail_ep[RCH_NET_MAX_RAILS];
    struct rch_net_epctx rail_ctx[RCH_NET_MAX_RAILS];
    uint8_t rail_up[RCH_NET_MAX_RAILS];      /* established: chunks may be posted on it */
    uint8_t rail_busy[RCH_NET_MAX_RAILS];    /* being set up (counted in ch->cm_busy) */
    unsigned char *fence_buf;                /* 8 bytes under local_mr: the fences' destination */
    double deadline;             /* REVERSE*, CONNECTING: give up after this */
    double next_reverse;         /* REVERSE_WAIT: ask again at */
    double retry_at;             /* CONNECTING without an endpoint: connect again at */
    unsigned retries;            /* client: connections made again after a reset */
    int have_rec;
    struct rch_net_kvs_rec rec;  /* the peer's published record */
    /* One allocation: [rx ring][tx staging][recv buffers][ctl send][credit word] */
    unsigned char *mem;
    size_t mem_len;
    struct rch_net_mr ring_mr;   /* the rx ring: the peer writes here */
    struct rch_net_mr local_mr;  /* the rest: sources and receive buffers */
    int have_ring_mr, have_local_mr;
    struct rch_net_ring_rx rx;
    struct rch_net_ring_tx tx;
    struct rch_net_rkey peer_rk; /* the peer's ring registration */
    unsigned char *recv_bufs;
    unsigned char *ctl_buf;
    uint32_t *crdt_word;
    unsigned nrecv;
    struct rch_net_op *slot_ops; /* [nslots] */
    struct rch_net_op *recv_ops; /* [nrecv] */
    struct rch_net_op ctl_op, crdt_op;
    int crdt_pending;            /* an explicit credit return is owed (retry in progress) */
    uint32_t bells_owed;         /* notify send: doorbells not yet sent */
    struct rch_net_rma *rq_head, *rq_tail;   /* RMAs waiting to post (not ready, queue full) */
    struct rch_net_rma rma_list;             /* head of unfinished RMAs (lnext/lprev) */
    int fail_reported;
    rdmach_status_t fail_status;
    char fail_why[160];
    int bye_received;
    /* Released alone (rch_net_conn_detach: a process of another job no
     * communicator names any more): endpoints closed, ring and buffers
     * deregistered and freed; the record and its operation contexts stay
     * (a completion reaped late finds them and is dropped) until the
     * record serves another process (net_dyn.c, drained). */
    int detached;
    int drained;                 /* ... and nothing of it can arrive any more: the record may
                                    serve another process (rch_net_dyn_reusable) */
    int noop_wait;               /* client: NOOP sent, no NOOP_ACK yet (counted in ch->noop_unanswered) */
    unsigned noop_repeats;       /* client: NOOPs sent again while unanswered */
    double noop_next;            /* client: when to send it again */
    int ack_owed;                /* server: the NOOP_ACK is still to go out (queue full) */
    int ready_index;             /* in ch->ready, or -1 */
    int pending_index;           /* in ch->pending (has queued work), or -1 */
    uint64_t posts;              /* operations posted on `ep` (the trace checks the server's) */
    uint64_t sent, received, crdt_sent, tx_full;
};

struct rch_net_stats {
    unsigned ready, connecting, refused, failed;
    unsigned noop_repeats;       /* NOOPs this rank sent again, unanswered (client side) */
    unsigned connect_retries;    /* connections made again after a reset (client side) */
    uint64_t sent, received, crdt_sent, tx_full;
    struct rch_net_rcache_stats rcache;
};

struct rch_rdma_chan {
    const struct rch_rdma_ops *ops;        /* the channel table this instance was opened through */
    const struct rch_net_prov_ops *pops;
    struct rch_net_prov *prov;
    const struct rch_net_prov_caps *pcaps;
    struct rch_rdma_upcalls up;
    int rank, size;              /* size: connections in use, the job's ranks then those of
                                    other jobs attached (net_dyn.c), at most cap */
    int jobsize, cap;            /* the job's ranks; room for RDMACH_DYN_MAX after them */
    int notify;                  /* enum rch_net_notify */
    int eager;                   /* RDMACH_CONNECT=eager */
    int zcopy;                   /* large eager packets go by rch_net_send_zc (RDMACH_NET_ZCOPY) */
    int direct_rx;               /* rch_net_recv_peek tests ring memory alone (notify poll, places_unpolled) */
    uint32_t slot_size, nslots;
    size_t rma_chunk;
    int nrails;                  /* connections per peer for RMA data (RDMACH_NET_RAILS / provider) */
    size_t rail_min;             /* smallest put/get striped */
    double connect_timeout;
    uint64_t secret;             /* our key: peers must quote it */
    uint64_t offer_key;          /* the key of the record rch_net_dyn_record handed out last */
    int published;
    struct rch_net_conn *conns;  /* [cap] */
    struct rch_net_conn **ready; /* connections with a ring to poll */
    int nready;
    struct rch_net_conn **pending;  /* connections with queued RMAs / credits / doorbells */
    int npending;
    int cm_busy;                 /* connections being set up: poll the EQ on every progress */
    int noop_unanswered;         /* client connections with noop_wait: the timers run */
    int test_lose_noops;         /* tests only: the server takes this many NOOPs as not arrived */
    int closing;                 /* close() runs: arrivals are dropped, failures not reported */
    unsigned tick;
    unsigned idle;               /* progress calls in a row that found nothing */
    unsigned busy_run;           /* of them, reported busy by pops->busy (bounded) */
    double next_timer;
    int nfail_pending;           /* failed connections not yet reported upward */
    unsigned refused;
    struct rch_log_limit refuse_log;   /* refused requests: a line per RDMACH_LOG_INTERVAL at most */
    struct rch_net_rma *rma_free;
    void **rma_slabs;
    int nrma_slabs;
    struct rch_net_rcache rcache;
    int rcache_ready;        /* rcache initialized */
    int rcache_watched;      /* ... and listening to the memory monitor (else not caching) */
    struct rch_rdma_caps caps;
    struct rch_net_cqe cqe[RCH_NET_CQ_BATCH];
};

/* net_chan.c: the channel ops shared by every provider's table */
rdmach_status_t rch_net_query(const struct rch_net_prov_ops *pops);
/* The ring's slot size over a provider: RDMACH_NET_SLOT_SIZE, or when that is
 * 0 (auto) RCH_NET_SLOT_LARGE for providers that do not pin memory and where
 * eager zero-copy (RDMACH_NET_ZCOPY) is on, RCH_NET_SLOT_PINNED for the
 * others. RCH_NET_SLOT_LARGE takes a 64 KiB payload and the packet and slot
 * headers: up to 64 KiB (OSU's common size) stays eager. */
#define RCH_NET_SLOT_LARGE (64u * 1024u + 64u)
#define RCH_NET_SLOT_PINNED (16u * 1024u)
uint32_t rch_net_slot_size(const struct rch_net_prov_caps *pc, int zcopy);
/* Does this channel send large eager packets with send_zc (RDMACH_NET_ZCOPY)? */
int rch_net_zcopy_on(const struct rch_net_prov_caps *pc, int notify);

rdmach_status_t rch_net_open(const struct rch_net_prov_ops *pops, const struct rch_rdma_ops *ops,
                             const struct rch_rdma_open_args *args, struct rch_rdma_chan **out);
void rch_net_close(struct rch_rdma_chan *ch);
rdmach_status_t rch_net_publish(struct rch_rdma_chan *ch);
rdmach_status_t rch_net_connect(struct rch_rdma_chan *ch, int peer);
const struct rch_rdma_caps *rch_net_caps(const struct rch_rdma_chan *ch);
/* The channel ops table of one provider: the generic network channel's ops
 * bound to `pops` (one line in verbs_chan.c and ofi_chan.c). */
#define RCH_NET_CHANNEL(sym, chan_name, pops)                                                  \
    static rdmach_status_t sym##_query(void) { return rch_net_query(&(pops)); }                \
    static rdmach_status_t sym##_open(const struct rch_rdma_open_args *args,                   \
                                      struct rch_rdma_chan **out)                              \
    {                                                                                          \
        return rch_net_open(&(pops), &(sym), args, out);                                       \
    }                                                                                          \
    const struct rch_rdma_ops sym = {                                                          \
        .name = (chan_name), .query = sym##_query, .open = sym##_open,                         \
        .close = rch_net_close, .publish = rch_net_publish, .connect = rch_net_connect,       \
        .mem_reg = rch_net_mem_reg, .mem_dereg = rch_net_mem_dereg, .mem_rkey = rch_net_mem_rkey, \
        .send = rch_net_send, .send_zc = rch_net_send_zc, .put = rch_net_put, .get = rch_net_get, \
        .progress = rch_net_progress, .wait_arm = rch_net_wait_arm,                            \
        .wait_disarm = rch_net_wait_disarm, .caps = rch_net_caps, .wake = rch_rdma_no_wake,    \
        .recv_peek = rch_net_recv_peek, .recv_done = rch_net_recv_done,                        \
    }
/* This rank's record (what publish puts in the KVS). */
rdmach_status_t rch_net_self_record(struct rch_rdma_chan *ch, struct rch_net_kvs_rec *rec);
/* A record's checks (magic, version, provider): OK or an error naming `who`. */
rdmach_status_t rch_net_record_check(struct rch_rdma_chan *ch, struct rch_net_kvs_rec *rec, const char *who);
/* Read the peer's KVS record (once). */
rdmach_status_t rch_net_peer_record(struct rch_rdma_chan *ch, struct rch_net_conn *c);
void rch_net_stats(struct rch_rdma_chan *ch, struct rch_net_stats *st);
/* The state of the connection to a rank (enum rch_net_conn_state), -1 if not a peer. */
int rch_net_conn_state(struct rch_rdma_chan *ch, int peer);

/* net_conn.c */
/* Start the connection to c (client: CONNECT; server: REVERSE); OK if started or under way. */
rdmach_status_t rch_net_conn_start(struct rch_rdma_chan *ch, struct rch_net_conn *c);
void rch_net_conn_event(struct rch_rdma_chan *ch, struct rch_net_cm_event *ev);
void rch_net_conn_timers(struct rch_rdma_chan *ch, double now);
/* The connection failed: close it, fail its RMAs; reported upward from progress. */
void rch_net_conn_fail(struct rch_rdma_chan *ch, struct rch_net_conn *c, rdmach_status_t st, const char *why);
/* The client's NOOP arrived (server side). */
void rch_net_conn_on_noop(struct rch_rdma_chan *ch, struct rch_net_conn *c, const struct rch_net_ctl *m);
/* The server's NOOP_ACK arrived (client side). */
void rch_net_conn_on_noop_ack(struct rch_rdma_chan *ch, struct rch_net_conn *c, const struct rch_net_ctl *m);
void rch_net_conn_close_all(struct rch_rdma_chan *ch);
/* The orderly end of c alone: its BYE behind what was sent; RDMACH_AGAIN
 * while that is on its way (call again after progress), unless `force`;
 * then its endpoints and memory are released (c->detached). */
rdmach_status_t rch_net_conn_detach(struct rch_rdma_chan *ch, struct rch_net_conn *c, int force);
void rch_net_conn_free(struct rch_rdma_chan *ch, struct rch_net_conn *c);
/* A record as the channel opens it: rank r, named my_id by the peer, serving nobody. */
/* The key c's peer must quote in its requests, accept and control messages. */
static inline uint64_t rch_net_conn_key(const struct rch_rdma_chan *ch, const struct rch_net_conn *c)
{
    return c->key ? c->key : ch->secret;
}
void rch_net_conn_init(struct rch_net_conn *c, int r, int my_id);
void rch_net_set_pending(struct rch_rdma_chan *ch, struct rch_net_conn *c);

/* net_msg.c */
/* Server: answer the client's NOOP (now, or owed and sent from the pending list). */
void rch_net_send_ack(struct rch_rdma_chan *ch, struct rch_net_conn *c);
rdmach_status_t rch_net_send(struct rch_rdma_chan *ch, int peer, const struct iovec *iov, int iovcnt);
rdmach_status_t rch_net_recv_peek(struct rch_rdma_chan *ch, int peer, const void **pkt, size_t *len);
void rch_net_recv_done(struct rch_rdma_chan *ch, int peer);
rdmach_status_t rch_net_send_zc(struct rch_rdma_chan *ch, int peer, const void *hdr, size_t hdrlen, const void *buf,
                                size_t len, struct rch_rdma_mr *lmr, void *op_ctx);
/* A send_zc slot write is over (status): hand its op_ctx up, once. */
void rch_net_zc_done(struct rch_rdma_chan *ch, struct rch_net_op *op, rdmach_status_t status);
/* Fail every send_zc still in flight to c (its connection failed). */
unsigned rch_net_zc_fail_conn(struct rch_rdma_chan *ch, struct rch_net_conn *c, rdmach_status_t status);
/* Take what arrived in c's ring; returns messages handled. */
unsigned rch_net_ring_progress(struct rch_rdma_chan *ch, struct rch_net_conn *c, unsigned max);
/* Send an explicit credit return / owed doorbells if needed; returns 1 if work remains. */
int rch_net_flush_ctl(struct rch_rdma_chan *ch, struct rch_net_conn *c);
/* A control message (RECV completion) arrived on c. */
void rch_net_on_ctl(struct rch_rdma_chan *ch, struct rch_net_conn *c, struct rch_net_op *op, uint32_t len);
/* Post a control message (NOOP, DOORBELL). */
rdmach_status_t rch_net_post_ctl(struct rch_rdma_chan *ch, struct rch_net_conn *c, unsigned op, uint32_t count);
/* Best effort: tell the peer we are closing (a BYE slot). */
void rch_net_send_bye(struct rch_rdma_chan *ch, struct rch_net_conn *c);

/* net_rma.c */
rdmach_status_t rch_net_mem_reg(struct rch_rdma_chan *ch, void *addr, size_t len, unsigned access,
                                struct rch_rdma_mr **mr);
void rch_net_mem_dereg(struct rch_rdma_chan *ch, struct rch_rdma_mr *mr);
rdmach_status_t rch_net_mem_rkey(struct rch_rdma_chan *ch, const struct rch_rdma_mr *mr,
                                 struct rch_rdma_rkey *rkey);
rdmach_status_t rch_net_put(struct rch_rdma_chan *ch, int peer, const void *laddr, struct rch_rdma_mr *lmr,
                            size_t len, const struct rch_rdma_rkey *rkey, uint64_t raddr, void *op_ctx);
rdmach_status_t rch_net_get(struct rch_rdma_chan *ch, int peer, void *laddr, struct rch_rdma_mr *lmr,
                            size_t len, const struct rch_rdma_rkey *rkey, uint64_t raddr, void *op_ctx);
/* Post what the queue of c holds; returns 1 if some is still waiting. */
int rch_net_rma_flush(struct rch_rdma_chan *ch, struct rch_net_conn *c);
/* A chunk completed. */
void rch_net_rma_chunk_done(struct rch_rdma_chan *ch, struct rch_net_rma *r, rdmach_status_t st);
/* Fail every RMA of c (not yet reported) with st. Returns completions reported. */
unsigned rch_net_rma_fail_conn(struct rch_rdma_chan *ch, struct rch_net_conn *c, rdmach_status_t st);
rdmach_status_t rch_net_rma_init(struct rch_rdma_chan *ch);
void rch_net_rma_fini(struct rch_rdma_chan *ch);
/* The error for exhausted locked memory: names `ulimit -l`, its value and the size. */
rdmach_status_t rch_net_reg_limit_err(size_t len, const char *detail);
/* Registration through the provider, with the locked-memory error made explicit. */
rdmach_status_t rch_net_reg(struct rch_rdma_chan *ch, void *addr, size_t len, struct rch_net_mr *mr);

/* net_progress.c */
unsigned rch_net_progress(struct rch_rdma_chan *ch, unsigned max);
unsigned rch_net_reap_cq(struct rch_rdma_chan *ch);   /* dispatch what the CQ holds now */
rdmach_status_t rch_net_wait_arm(struct rch_rdma_chan *ch, struct rch_rdma_wait *w);
void rch_net_wait_disarm(struct rch_rdma_chan *ch);
void rch_net_ready_add(struct rch_rdma_chan *ch, struct rch_net_conn *c);
void rch_net_ready_del(struct rch_rdma_chan *ch, struct rch_net_conn *c);
void rch_net_pending_del(struct rch_rdma_chan *ch, struct rch_net_conn *c);
/* Dispatch every completion and connection event the provider holds now:
 * 1 once it had none left. Endpoints closed before the call then have
 * nothing more to report: their records may serve a new connection
 * (net_dyn.c); 0 if arrivals kept coming (try again later). */
int rch_net_drain(struct rch_rdma_chan *ch);

#endif
