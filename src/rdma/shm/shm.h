/*
 * The shared-memory channel's private state, shared by its files:
 *   shm_chan.c  open/close, publish/connect, capabilities
 *   shm_live.c  peer liveness: gone (pidfd), stopped (/proc)
 *   shm_msg.c   send, progress over the rings, wait_arm/wait_disarm
 *   shm_rma.c   registration, rkeys, get/put by process_vm_readv/writev
 *   shm_coop.c  a large single copy shared with the peer (both copy chunks)
 *   shm_pipe.c  the two-copy pipelined get/put when single copy is not permitted
 *   shm_ring.c  the SPSC ring;  shm_seg.c  segments and wake-ups
 *   shm_bell.c  the doorbell: which rings of our segment have a sender
 *   shm_wakefd.c  the eventfd a rank sleeps on beside other channels' fds
 *
 * Threading: one thread uses a channel (channel.h); nothing here is locked.
 *
 * Who writes what (per ordered pair A -> B, both in B's segment, slot of A):
 *   ring cells, ring.blocked, pipe descriptors and buffers: A
 *   ring.head, pipe.drained, pipe.nak_seq:                   B
 *   coop descriptors (A's shared single copies with B):      A fills; claim by
 *                                                            both (CAS); helped and
 *                                                            stopped by B
 *   B's wake line: B (sleeping), anyone (futex)
 *   B's doorbell: A, once (its bit, then the count); read by B
 */
#ifndef RCH_RDMA_SHM_H
#define RCH_RDMA_SHM_H

#include <sys/types.h>
#include "rdma/channel.h"
#include "rdma/shm/shm_adapt.h"
#include "rdma/shm/shm_proto.h"
#include "rdma/shm/shm_ring.h"
#include "rdma/shm/shm_seg.h"

#define RCH_SHM_KVS_KEY        "rdmach-shm"
#define RCH_SHM_DEV_HDR_ROOM   64u      /* room for the device header above shm_eager_max */
#define RCH_SHM_RX_BATCH       16u      /* records taken from one ring per pass (fairness) */
#define RCH_SHM_LIVENESS_IDLE  (1u << 12) /* empty progress calls between liveness checks */
#define RCH_SHM_LIVENESS_AGAIN 1024u    /* AGAINs of a send between liveness checks of that peer */

/* IDLE: nothing mapped. MAPPED: its segment is mapped and the peer watched
 * (start-up maps every local peer), but our ring in it is neither reserved
 * nor faulted in: that happens at the first send to it (CONNECTED), so a
 * pair that never talks costs no ring memory. */
enum rch_shm_peer_state { RCH_SHM_PEER_IDLE = 0, RCH_SHM_PEER_CONNECTED, RCH_SHM_PEER_DEAD, RCH_SHM_PEER_MAPPED };

/* An outgoing pipe transfer (we are the source): a PUT of ours, a GET we
 * serve, or the error answer to a GET. */
struct rch_shm_xfer {
    struct rch_shm_xfer *next;
    uint16_t kind;                   /* RCH_SHM_PIPE_* */
    int32_t status;                  /* GET_ERR */
    const unsigned char *src;
    rch_rdma_fill_fn fill;           /* PUT: makes the data, if src is NULL (channel.h put_fill) */
    void *fill_ctx;
    uint64_t dst;                    /* address in the sink */
    size_t len, off;
    uint64_t op_id;                  /* GET: the sink's op id */
    uint32_t steal, gen;             /* GET: the sink's claim slot (RCH_SHM_STEAL_NONE: none) */
    void *op_ctx;                    /* PUT: our completion */
    uint64_t first_seq, end_seq;     /* PUT: its chunks are [first_seq, end_seq) */
};

/* A GET of ours served through the pipe (we are the sink). */
struct rch_shm_getop {
    uint32_t gen;                    /* bumped when freed: stale ids do not match */
    int in_use;
    int peer;                        /* index into ch->peers */
    unsigned char *laddr;
    size_t len, got;                 /* got: bytes in place, through the pipe or stolen */
    int bad;                         /* a chunk was rejected */
    int nt;                          /* copy out with streaming stores (RDMACH_SHM_NT_FROM) */
    rch_rdma_drain_fn drain;         /* get_drain: chunks handed to it, laddr NULL (offsets travel as dst) */
    void *drain_ctx;
    void *op_ctx;
    int next_free;
    uint32_t steal;                  /* claim slot with the peer, or RCH_SHM_STEAL_NONE */
    uint32_t sgen;                   /* its generation */
    uint64_t raddr;                  /* the source's address (for stealing) */
    uint64_t chunk;                  /* claim unit: the pipe's chunk */
    uint32_t nchunks;
    struct rch_shm_getop_link { int prev, next; } link;   /* the peer's stealable gets, oldest first */
};

/* A control record that found the ring full, sent from progress. */
struct rch_shm_ctlrec {
    struct rch_shm_ctlrec *next;
    uint32_t type;                   /* RCH_SHM_REC_GETREQ / PUTNOTE */
    uint32_t len;
    union {
        struct rch_shm_getreq getreq;
        struct rch_shm_putnote putnote;
    } u;
};

/* A shared single copy we started (we are the initiator), by descriptor slot. */
struct rch_shm_coop_op {
    int busy;
    uint32_t gen;                    /* of the descriptor, bumped per transfer */
    int kind;                        /* RCH_SHM_COOP_GET / PUT */
    unsigned char *laddr;
    uint64_t raddr;
    size_t len;
    uint64_t chunk;
    uint32_t nchunks;
    uint32_t nclaimed;               /* chunks taken by both when the claims ran out */
    uint32_t nmine;                  /* ... by us: the bits of `mine` */
    uint64_t mine;
    void *op_ctx;
    rdmach_status_t status;          /* of our own part */
};

struct rch_shm_mr {
    struct rch_rdma_mr pub;
    struct rch_shm_mr *prev, *next;
};

struct rch_shm_peer {
    int rank;                        /* world rank */
    uint32_t slot;                   /* its local index: its slot in our segment */
    int state;                       /* enum rch_shm_peer_state */
    int dead_reported;
    int left;                        /* DEAD because it exited after closing its channel: a
                                      * departure, reported as peer_left, with no warning */
    int aborted;                     /* DEAD because it ended the whole job by an abort */
    rdmach_status_t dead_status;
    pid_t pid;                       /* in its pid namespace */
    int pid_local;                   /* ... which is ours: pid usable here */
    int pidfd;                       /* -1: liveness by kill(pid, 0) */
    int wake_efd;                    /* our copy of its eventfd (shm_wakefd.c); -1: not yet, -2: none */
    double stopped_since;            /* first seen stopped (rch_base_wtime), 0: running */
    int cma;                         /* single copy permitted to this peer */
    int cma_unprobed;                /* mapped, single copy not yet tried (rch_shm_peer_probe_cma) */
    int fence;                       /* rch_shm_notify flags towards it: FENCE (our fast path needs
                                      * a full fence), PENDING (raise its pending flag) */
    int tx_blocked;                  /* our last send found its ring full */
    size_t tx_need;                  /* ... with a packet of this many bytes */
    unsigned again;
    struct rch_shm_seg seg;          /* its segment (unused for ourselves) */
    struct rch_shm_seg *segp;        /* its segment: &seg, or &ch->seg for ourselves */
    struct rch_shm_ring_tx tx;       /* us -> it, in its segment */
    struct rch_shm_ring_rx rx;       /* it -> us, in our segment */

    /* pipe us -> it (we are the source), in its segment */
    struct rch_shm_pipe_ctl *src_pipe;
    uint64_t src_seq, src_drained;
    int src_reserved;
    struct rch_shm_xfer *xq_head, *xq_tail;   /* transfers being copied in */
    struct rch_shm_xfer *wq_head, *wq_tail;   /* PUTs waiting for the sink to drain */
    /* pipe it -> us (we are the sink), in our segment */
    struct rch_shm_pipe_ctl *sink_pipe;
    uint64_t sink_seq;
    int sink_active;                 /* GETs outstanding + PUTs announced - PUTs finished */
    uint64_t steal_used;             /* claim slots of ours in use (bit per slot) */
    uint16_t *steal_gen;             /* [RCH_SHM_STEAL_SLOTS], from our first stealable get (as coop) */
    int steal_head, steal_tail;      /* our stealable gets from it (getop indices), oldest first */
    double sink_seen;                /* when it last served us a chunk (or we asked), rch_base_wtime */
    unsigned sink_idle;              /* sink passes without a chunk since */
    /* shared single copies we started with it: [RCH_SHM_COOP_SLOTS] from
     * the first (NULL before; most pairs never share a copy, and a peer
     * record of every local rank is in every rank's memory) */
    struct rch_shm_coop_op *coop;
    int coop_pending;
    /* control records waiting for room in the ring */
    struct rch_shm_ctlrec *cq_head, *cq_tail;
    int busy;                        /* counted in ch->nbusy */
};

/* Counters for tests and tools. */
struct rch_shm_stats {
    unsigned long coop_started;      /* shared single copies we started */
    unsigned long coop_chunks_helped;/* chunks we copied for a peer's transfer */
    unsigned long pipe_chunks;       /* pipeline chunks we copied in (source side) */
    unsigned long pipe_stolen;       /* chunks of our pipelined gets we copied ourselves (single copy) */
    unsigned long adapt_gets[RCH_SHM_NWAYS]; /* rendezvous gets each way chose by timing */
};

struct rch_rdma_chan {
    struct rch_rdma_upcalls up;
    int rank, size;
    uint32_t my_slot, nslots;
    char kvsname[256];
    int cma_mode;                    /* RCH_CMA_* at open */
    int get_mode;                    /* RCH_SHM_GET_* at open */
    int get_adapt;                   /* rendezvous gets choose their way by timing (`adapt`) */
    int self_fence;                  /* this process does not sleep with membarrier (unavailable,
                                      * or RDMACH_SHM_WAKE): senders to it fence, and so do we */
    int oversub;                     /* more local ranks than cores: pending flags (shm_proto.h) */
    int *mates;                      /* peers (indices) that share our core: their pending flags */
    int nmates;
    struct rch_shm_geom geom;
    struct rch_shm_seg seg;          /* ours */
    int published;
    int in_progress;
    struct rch_shm_peer *peers;
    int npeers;
    int32_t *peer_of;                /* [size]: index into peers, -1 */
    /* The doorbell (shm_bell.c): the rings we poll are those of `active`,
     * the peers whose bits we have seen in our segment's doorbell. */
    struct rch_shm_bell *bell;       /* in our segment */
    uint64_t bell_count;             /* its count when we last took its bits */
    uint64_t *bell_seen;             /* [bell_words]: bits taken into `active` */
    uint32_t bell_words;
    int32_t *slot_peer;              /* [nslots]: index into peers, -1 */
    struct rch_shm_peer **active;    /* [npeers]: in the order they rang */
    unsigned nactive;
    unsigned rr;                     /* round-robin start of the ring scan (index into active) */
    unsigned idle;
    double live_next, stop_next;     /* next liveness checks (rch_base_wtime), shm_live.c */
    double stop_last;                /* the last check for stopped peers */
    unsigned live_alerts;            /* rch_base_alerts() at the last check */
    int nbusy;                       /* peers with pipe or control-record work */
    int ndead_pending;               /* dead peers not yet reported / ops not yet failed */
    int armed;                       /* RCH_SHM_SLEEP_* while our wait is armed, else 0 */
    int wake_efd;                    /* the eventfd we sleep on with other channels' fds, -1 */
    struct rch_rdma_caps caps;
    struct rch_shm_mr *mrs;
    struct rch_shm_getop *getops;
    int ngetops, getop_free;
    struct rch_shm_stats stats;
    struct rch_shm_adapt adapt;      /* get_adapt: the timings of both ways */
};

/* upcalls.rma_done of a put or get, through the get timings (shm_adapt.h) */
static inline void rch_shm_rma_done(struct rch_rdma_chan *ch, void *op_ctx, rdmach_status_t st)
{
    if (__builtin_expect(ch->adapt.npend != 0, 0))
        rch_shm_adapt_done(&ch->adapt, op_ctx, st == RDMACH_OK, rch_shm_adapt_now());
    ch->up.rma_done(ch->up.ctx, op_ctx, st);
}

/* The peer record of a world rank, or NULL if this channel does not serve it. */
static inline struct rch_shm_peer *rch_shm_peer_get(struct rch_rdma_chan *ch, int rank)
{
    if (__builtin_expect((unsigned)rank >= (unsigned)ch->size, 0))
        return NULL;
    int32_t i = ch->peer_of[rank];
    return __builtin_expect(i >= 0, 1) ? &ch->peers[i] : NULL;
}

/* Has a sender rung our doorbell since we last looked (a ring to poll)? */
static inline int rch_shm_bell_rung(const struct rch_rdma_chan *ch)
{
    return atomic_load_explicit(&ch->bell->count, memory_order_relaxed) != ch->bell_count;
}

/* Is p's ring in our segment polled (p rang and we saw it)? */
static inline int rch_shm_bell_seen(const struct rch_rdma_chan *ch, const struct rch_shm_peer *p)
{
    return (ch->bell_seen[p->slot / 64] >> (p->slot % 64)) & 1;
}

/* shm_bell.c */
/* At publish, once our segment exists: the doorbell's private state. */
rdmach_status_t rch_shm_bell_open(struct rch_rdma_chan *ch);
void rch_shm_bell_close(struct rch_rdma_chan *ch);
/* Add the rings of the senders that rang since we last looked to `active`. */
void rch_shm_bell_take(struct rch_rdma_chan *ch);

/* Is p's segment mapped (its wake word and header readable), whether or not
 * we have sent to it yet? */
static inline int rch_shm_peer_mapped(const struct rch_shm_peer *p)
{
    return p->state == RCH_SHM_PEER_CONNECTED || p->state == RCH_SHM_PEER_MAPPED;
}

/* shm_wakefd.c */
/* Our eventfd, made when our segment is (its number in the header). */
void rch_shm_wakefd_open(struct rch_rdma_chan *ch);
void rch_shm_wakefd_close(struct rch_rdma_chan *ch);
/* Wake p, which sleeps on its eventfd (RCH_SHM_SLEEP_FD). */
void rch_shm_wakefd_wake(struct rch_shm_peer *p);
/* Drain our eventfd after a sleep on it. */
void rch_shm_wakefd_drain(struct rch_rdma_chan *ch);

/* rch_shm_notify for peer p: also the wake-up of a peer asleep on its eventfd. */
static inline void rch_shm_notify_peer(struct rch_shm_peer *p)
{
    if (__builtin_expect(rch_shm_notify(p->segp->wake, p->fence) == RCH_SHM_SLEEP_FD, 0))
        rch_shm_wakefd_wake(p);
}

/* shm_live.c */
/* Is the peer's process gone? Marks it dead (reported from progress). */
int rch_shm_peer_check_dead(struct rch_rdma_chan *ch, struct rch_shm_peer *p);
void rch_shm_peer_mark_dead(struct rch_rdma_chan *ch, struct rch_shm_peer *p, rdmach_status_t why);
/* Check every peer (gone, stopped too long) if a period has passed or an
 * alert came; marks the failed ones dead. */
void rch_shm_live_check(struct rch_rdma_chan *ch);
/* The channel op peer_gone: rch_shm_peer_check_dead by rank. */
int rch_shm_peer_gone(struct rch_rdma_chan *ch, int peer);

/* shm_chan.c */
/* Make p ready to send to: map its segment if start-up did not, and reserve
 * and fault in our ring there (MAPPED -> CONNECTED). */
rdmach_status_t rch_shm_connect_peer(struct rch_rdma_chan *ch, struct rch_shm_peer *p);
/* Try single copy with a mapped peer the first time it is needed (sets
 * p->cma); errors as at connect: PEER_DEAD (marked dead), UNSUPPORTED
 * (RDMACH_CMA=on and the kernel refuses). */
rdmach_status_t rch_shm_peer_probe_cma(struct rch_rdma_chan *ch, struct rch_shm_peer *p);
void rch_shm_update_busy(struct rch_rdma_chan *ch, struct rch_shm_peer *p);
/* For tests and tools that have no KVS: this rank's address as a string
 * (what publish() puts), and connect with a peer's address. */
rdmach_status_t rch_shm_publish_local(struct rch_rdma_chan *ch, char *addr, size_t len);
rdmach_status_t rch_shm_connect_addr(struct rch_rdma_chan *ch, int peer, const char *addr);
/* Was single copy found permitted towards this peer (after connect)? */
int rch_shm_peer_cma(struct rch_rdma_chan *ch, int peer);
const struct rch_shm_stats *rch_shm_get_stats(const struct rch_rdma_chan *ch);

/* shm_msg.c */
rdmach_status_t rch_shm_send(struct rch_rdma_chan *ch, int peer, const struct iovec *iov, int iovcnt);
unsigned rch_shm_progress(struct rch_rdma_chan *ch, unsigned max);
rdmach_status_t rch_shm_wait_arm(struct rch_rdma_chan *ch, struct rch_rdma_wait *w);
void rch_shm_wait_disarm(struct rch_rdma_chan *ch);
/* ops->wake: end peer's sleep in its wait_arm primitive (see shm_msg.c). */
rdmach_status_t rch_shm_wake_peer(struct rch_rdma_chan *ch, int peer);
/* Send a control record now or queue it for progress. */
rdmach_status_t rch_shm_send_ctl(struct rch_rdma_chan *ch, struct rch_shm_peer *p, uint32_t type,
                                 const void *payload, uint32_t len);

/* shm_rma.c */
rdmach_status_t rch_shm_mem_reg(struct rch_rdma_chan *ch, void *addr, size_t len, unsigned access,
                                struct rch_rdma_mr **mr);
void rch_shm_mem_dereg(struct rch_rdma_chan *ch, struct rch_rdma_mr *mr);
rdmach_status_t rch_shm_mem_rkey(struct rch_rdma_chan *ch, const struct rch_rdma_mr *mr,
                                 struct rch_rdma_rkey *rkey);
rdmach_status_t rch_shm_put(struct rch_rdma_chan *ch, int peer, const void *laddr,
                            struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                            uint64_t raddr, void *op_ctx);
/* The channel op put_fill: always by the two-copy pipeline, whose source
 * copy is the fill (the data is made once, into the sink's segment). */
rdmach_status_t rch_shm_put_fill(struct rch_rdma_chan *ch, int peer, size_t len, const struct rch_rdma_rkey *rkey,
                                 uint64_t raddr, rch_rdma_fill_fn fill, void *fill_ctx, void *op_ctx);
/* The channel op get_drain: always by the two-copy pipeline, whose sink
 * copy is the drain (the data goes from the pipe buffer to where it is used). */
rdmach_status_t rch_shm_get_drain(struct rch_rdma_chan *ch, int peer, size_t len, const struct rch_rdma_rkey *rkey,
                                  uint64_t raddr, rch_rdma_drain_fn drain, void *drain_ctx, void *op_ctx);
/* The channel op drain_ready: our pipe buffers in the peer's segment
 * (reserved now if they were not), or else single copy, by which the peer
 * reads what we cannot copy into a pipe (shm_pipe.c get_refused). */
rdmach_status_t rch_shm_drain_ready(struct rch_rdma_chan *ch, int peer);
rdmach_status_t rch_shm_get(struct rch_rdma_chan *ch, int peer, void *laddr,
                            struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                            uint64_t raddr, void *op_ctx);
/* Single copy of len bytes between our laddr and the peer's raddr (write:
 * ours into the peer's); RDMACH_ERR_UNSUPPORTED if the kernel refuses. */
rdmach_status_t rch_shm_cma_rw(struct rch_rdma_chan *ch, struct rch_shm_peer *p, void *laddr,
                               uint64_t raddr, size_t len, int write);
/* A registered region of ours containing [addr, addr+len) with `access`, or NULL. */
const struct rch_shm_mr *rch_shm_mr_find(struct rch_rdma_chan *ch, uint64_t addr, uint64_t len,
                                         unsigned access);

/* shm_coop.c */
/* Single copy, shared with the peer when it is large (RDMACH_SHM_CMA_SPLIT):
 * OK (done), INPROGRESS (rma_done(op_ctx) from a later progress) or an error. */
rdmach_status_t rch_shm_coop_rw(struct rch_rdma_chan *ch, struct rch_shm_peer *p, void *laddr, uint64_t raddr,
                                size_t len, int write, void *op_ctx);
rdmach_status_t rch_shm_coop_check(struct rch_rdma_chan *ch, struct rch_shm_peer *p, int k);
void rch_shm_coop_on_help(struct rch_rdma_chan *ch, struct rch_shm_peer *p, const void *pkt, size_t len);
unsigned rch_shm_coop_progress(struct rch_rdma_chan *ch, struct rch_shm_peer *p, unsigned max);
int rch_shm_coop_ready(struct rch_rdma_chan *ch, struct rch_shm_peer *p);
unsigned rch_shm_coop_fail_peer(struct rch_rdma_chan *ch, struct rch_shm_peer *p, rdmach_status_t st);

/* shm_pipe.c */
/* steal: the sink may copy chunks itself by single copy if the source stops serving */
rdmach_status_t rch_shm_pipe_get(struct rch_rdma_chan *ch, struct rch_shm_peer *p, void *laddr,
                                 size_t len, uint64_t raddr, void *op_ctx, int steal);
/* Our pipe buffers in p's segment, reserved at the first call that needs them
 * (and p connected): OK, or why not (NO_MEMORY: /dev/shm is full). */
rdmach_status_t rch_shm_pipe_src_ready(struct rch_rdma_chan *ch, struct rch_shm_peer *p);
/* A get whose chunks go to drain (never stolen: stealing copies into laddr). */
rdmach_status_t rch_shm_pipe_get_drain(struct rch_rdma_chan *ch, struct rch_shm_peer *p, rch_rdma_drain_fn drain,
                                       void *drain_ctx, size_t len, uint64_t raddr, void *op_ctx);
/* The data from laddr, or (laddr NULL) made by fill into each chunk's buffer. */
rdmach_status_t rch_shm_pipe_put(struct rch_rdma_chan *ch, struct rch_shm_peer *p, const void *laddr,
                                 rch_rdma_fill_fn fill, void *fill_ctx, size_t len, uint64_t raddr, void *op_ctx);
/* A GETREQ / PUTNOTE record arrived from p. */
void rch_shm_pipe_on_getreq(struct rch_rdma_chan *ch, struct rch_shm_peer *p, const void *pkt, size_t len);
void rch_shm_pipe_on_putnote(struct rch_rdma_chan *ch, struct rch_shm_peer *p, const void *pkt, size_t len);
/* Copy chunks in and out, report finished transfers; returns completions. */
unsigned rch_shm_pipe_progress(struct rch_rdma_chan *ch, struct rch_shm_peer *p, unsigned max);
/* Is there pipe work that needs no waiting? Sets nothing. */
int rch_shm_pipe_ready(struct rch_rdma_chan *ch, struct rch_shm_peer *p);
/* Fail everything in flight with p (it died). Returns completions reported. */
unsigned rch_shm_pipe_fail_peer(struct rch_rdma_chan *ch, struct rch_shm_peer *p, rdmach_status_t st);
void rch_shm_pipe_free_peer(struct rch_shm_peer *p);

#endif
