/*
 * src/rdma: channels. One ops table, several transports: shared memory
 * within a node (shm/), libibverbs + librdmacm (verbs/), libfabric MSG
 * endpoints (ofi/). This layer knows nothing of src/device: it moves opaque
 * packets and bytes between world ranks and calls up through the upcalls the
 * device hands it at open.
 *
 * Ownership and threading: a channel is used by one thread (the progress
 * engine's caller). Packets handed to upcalls.recv are owned by the channel
 * and valid only during the call.
 *
 * Completion model:
 *   send()      copies the packet out (or queues it inside the channel) before
 *               returning OK; RDMACH_AGAIN means "no room now" (ring full, no
 *               credits): call progress and try again. Nothing is lost.
 *   put()/get() return OK if the transfer is already complete (shared memory
 *               with single copy), INPROGRESS if upcalls.rma_done(op_ctx) will
 *               report it from a later progress() call, or an error.
 *   progress()  never blocks, does at most `max` completions, returns how many.
 */
#ifndef RCH_RDMA_CHANNEL_H
#define RCH_RDMA_CHANNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "rdmach.h"
#include "boot/boot.h"

struct rch_rdma_chan;              /* one open channel instance, private to the transport */

/* A local memory registration. */
struct rch_rdma_mr {
    void  *addr;
    size_t len;
    unsigned access;               /* RCH_RDMA_ACCESS_* */
    void  *priv;                   /* transport's handle (ibv_mr, fid_mr, ...) */
};

enum {
    RCH_RDMA_ACCESS_LOCAL        = 1 << 0,
    RCH_RDMA_ACCESS_REMOTE_READ  = 1 << 1,
    RCH_RDMA_ACCESS_REMOTE_WRITE = 1 << 2,
};

/* What a peer needs to reach registered memory: opaque, transport-defined bytes
 * (shm: pid; verbs: rkey; ofi: key), carried in rendezvous packets. */
#define RCH_RDMA_RKEY_MAX 40
struct rch_rdma_rkey {
    uint32_t len;
    uint8_t  bytes[RCH_RDMA_RKEY_MAX];
};

/* How the layer above hears about arrivals, completions and failures. */
struct rch_rdma_upcalls {
    void *ctx;
    void (*recv)(void *ctx, int peer, const void *pkt, size_t len);
    void (*rma_done)(void *ctx, void *op_ctx, rdmach_status_t status);
    /* The peer died or disconnected: every operation to it has failed or will. */
    void (*peer_failed)(void *ctx, int peer, rdmach_status_t status);
    /* Optional. The peer closed its channel and exited: a normal end (it had
     * finished; nothing legitimate is waiting on it), not a failure. */
    void (*peer_left)(void *ctx, int peer);
};

struct rch_rdma_caps {
    size_t max_msg;          /* largest packet send() accepts (all iov together) */
    size_t inline_size;      /* largest packet sent without an extra copy/registration */
    int in_order;            /* bytes of a write are placed in order (memory polling is safe) */
    int write_with_data;     /* remote write with immediate data */
    int rma;                 /* put/get supported */
    int needs_credits;       /* the device must bound eager packets in flight (CRDT) */
    int onload;              /* protocol processing on the host CPU (collective tuning) */
    /* How rendezvous data should move on this transport
     * when RDMACH_RNDV_MODE=auto (its measured profile, docs/NETWORK.md):
     * 0 receiver-driven GET (the default: shared memory, hardware RDMA),
     * 1 sender-driven PUT. The device resolves the mode (rch_dev_rndv_uses_get). */
    int rndv_put;
    /* A packet send() to a peer after put() to the same
     * peer returned INPROGRESS is placed there only after the put's bytes
     * (one connection whose writes are placed in order, and send() never
     * overtakes a put still queued in the channel). The device then sends
     * the rendezvous FIN right behind the data instead of after the put's
     * local completion (src/device/rndv.c). */
    int put_then_send;
    /* send_zc() takes packets whose payload is at least
     * this many bytes (and fits max_msg); 0: no send_zc on this channel. */
    size_t zc_min;
    /* The channel itself notices a peer process of this
     * host that died or stays stopped (RDMACH_PEER_STOP_TIMEOUT) and reports
     * it through peer_failed even while the rank sleeps in wait_arm's
     * primitive (shared memory: pidfds and /proc, shm_live.c). For the other
     * channels' peers on this host the device watches (src/device/live.c). */
    int watches_peers;
};

/* The blocking primitive a channel offers: a fd to poll for POLLIN, or a futex
 * word to FUTEX_WAIT on while it still holds `futex_val`. */
struct rch_rdma_wait {
    int fd;                        /* -1: none */
    volatile uint32_t *futex;      /* NULL: none */
    uint32_t futex_val;
    /* In, set by the caller before wait_arm: it also sleeps on another
     * channel's fd, and a futex cannot join that poll(); a channel that can
     * offer an fd instead of its futex does (shared memory: an eventfd its
     * wakers write, shm_wakefd.c). */
    int want_fd;
};

struct rch_rdma_open_args {
    const struct rch_boot_info *boot;
    const int *peers;              /* world ranks this channel must reach, ascending */
    int npeers;
    struct rch_rdma_upcalls up;
};

/* put_fill's producer of the data: bytes [off, off + n) into buf. */
typedef void (*rch_rdma_fill_fn)(void *fill_ctx, unsigned char *buf, size_t off, size_t n);
/* get_drain's consumer of the data: bytes [off, off + n) of the remote range
 * are at buf, the channel's memory, valid during the call only. */
typedef void (*rch_rdma_drain_fn)(void *drain_ctx, size_t off, const unsigned char *buf, size_t n);

struct rch_rdma_ops {
    const char *name;
    /* Can this transport run here at all (device present, permissions)? OK or a
     * status whose message says why not. */
    rdmach_status_t (*query)(void);
    rdmach_status_t (*open)(const struct rch_rdma_open_args *args, struct rch_rdma_chan **out);
    void (*close)(struct rch_rdma_chan *ch);
    /* Put this rank's channel address into the bootstrap KVS (before the fence). */
    rdmach_status_t (*publish)(struct rch_rdma_chan *ch);
    /* After the fence: look the peer's address up and connect (or map). May
     * return INPROGRESS; send() then returns AGAIN until the connection is ready. */
    rdmach_status_t (*connect)(struct rch_rdma_chan *ch, int peer);
    rdmach_status_t (*mem_reg)(struct rch_rdma_chan *ch, void *addr, size_t len, unsigned access,
                               struct rch_rdma_mr **mr);
    void (*mem_dereg)(struct rch_rdma_chan *ch, struct rch_rdma_mr *mr);
    rdmach_status_t (*mem_rkey)(struct rch_rdma_chan *ch, const struct rch_rdma_mr *mr,
                                struct rch_rdma_rkey *rkey);
    /* A control/eager packet: iov[0] is usually the device header, iov[1] the payload. */
    rdmach_status_t (*send)(struct rch_rdma_chan *ch, int peer, const struct iovec *iov, int iovcnt);
    /* An eager packet whose payload is not copied (caps.zc_min):
     * the packet is hdr (copied at the call) followed by the len bytes at buf,
     * which the transport reads from the registered lmr; buf must not change
     * until upcalls.rma_done(op_ctx) says the send completed or failed (exactly
     * once). The peer receives it as send()'s packets. AGAIN: nothing was sent
     * (no credit or room now); a transport without it has rch_rdma_no_send_zc. */
    rdmach_status_t (*send_zc)(struct rch_rdma_chan *ch, int peer, const void *hdr, size_t hdrlen,
                               const void *buf, size_t len, struct rch_rdma_mr *lmr, void *op_ctx);
    /* Remote write: local [laddr, laddr+len) into the peer's registered memory at raddr. */
    rdmach_status_t (*put)(struct rch_rdma_chan *ch, int peer, const void *laddr,
                           struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                           uint64_t raddr, void *op_ctx);
    /* Remote read: the peer's registered memory at raddr into local laddr. */
    rdmach_status_t (*get)(struct rch_rdma_chan *ch, int peer, void *laddr,
                           struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                           uint64_t raddr, void *op_ctx);
    unsigned (*progress)(struct rch_rdma_chan *ch, unsigned max);
    /* Prepare to sleep: OK with *w filled if it is safe to block on w, AGAIN if
     * something arrived meanwhile (progress instead). wait_disarm() after waking. */
    rdmach_status_t (*wait_arm)(struct rch_rdma_chan *ch, struct rch_rdma_wait *w);
    void (*wait_disarm)(struct rch_rdma_chan *ch);
    const struct rch_rdma_caps *(*caps)(const struct rch_rdma_chan *ch);
    /* For waits on memory another process writes (the
     * shared-memory barriers, device rch_dev_wake): if `peer` sleeps on this
     * channel's wait primitive (it armed its wait), wake it; it then returns
     * from its sleep. OK whether it slept or not; never blocks, and no system
     * call when it does not sleep. A transport whose peers cannot end each
     * other's sleeps has rch_rdma_no_wake (ERR_UNSUPPORTED). */
    rdmach_status_t (*wake)(struct rch_rdma_chan *ch, int peer);
    /* Direct receive, for a blocking receive that waits on
     * one peer (device rch_dev_recv_direct). recv_peek: the next packet from
     * `peer`, in order, if it has arrived: OK with *pkt and *len naming it in the
     * channel's memory (nothing is taken: unless recv_done follows, it is
     * delivered later through upcalls.recv like any other); AGAIN if nothing
     * has arrived; an error status (no message) when the direct path cannot
     * take this peer's next packet now (not connected, not a packet, a slot
     * that fails validation): progress() then deals with it. Costs a few loads
     * (the waiting rank spins on it) and never calls an upcall other than
     * rma_done. recv_done(peer): the packet recv_peek returned is consumed;
     * nothing else may run between the two. A transport without it has
     * rch_rdma_no_recv_peek (ERR_UNSUPPORTED). */
    rdmach_status_t (*recv_peek)(struct rch_rdma_chan *ch, int peer, const void **pkt, size_t *len);
    void (*recv_done)(struct rch_rdma_chan *ch, int peer);
    /* Optional (NULL: not known): 1 if `peer`'s process is gone, asked now
     * rather than at the channel's next liveness round. Callable from inside
     * a packet handler (no upcall: a death found is reported by the next
     * progress call). For a waiter that cannot run progress (a device spin
     * lock held by that peer, rma_acclock.c). */
    int (*peer_gone)(struct rch_rdma_chan *ch, int peer);
    /* Optional (NULL: not had): a remote write of len bytes into the peer's
     * registered memory at raddr whose data is made as it goes: the
     * transport calls fill(fill_ctx, buf, off, n) to write bytes
     * [off, off + n) of it into its own buffer, in increasing off with no
     * gap, from its progress, and never after upcalls.rma_done(op_ctx)
     * (exactly once). For data that would otherwise be assembled into a
     * buffer first only to be copied (a one-sided get's pack of a derived
     * datatype, device/rma_getw.c). INPROGRESS or an error (then no fill
     * call and no rma_done). */
    rdmach_status_t (*put_fill)(struct rch_rdma_chan *ch, int peer, size_t len, const struct rch_rdma_rkey *rkey,
                                uint64_t raddr, rch_rdma_fill_fn fill, void *fill_ctx, void *op_ctx);
    /* Optional (NULL: not had): the reverse of put_fill, a remote read of
     * len bytes of the peer's registered memory at raddr that is not copied
     * into local memory: the transport calls drain(drain_ctx, off, buf, n)
     * with bytes [off, off + n) of it in its own buffer, in increasing off
     * with no gap, from its progress, and never after upcalls.rma_done(op_ctx)
     * (exactly once: after the last drain call, or with an error). For data
     * that would otherwise land in a buffer only to be copied out of it (a
     * one-sided put's scatter into a derived target datatype,
     * device/rma_putw.c). INPROGRESS or an error (then no drain call and no
     * rma_done); OK when the peer is this rank (drained at the call). */
    rdmach_status_t (*get_drain)(struct rch_rdma_chan *ch, int peer, size_t len, const struct rch_rdma_rkey *rkey,
                                 uint64_t raddr, rch_rdma_drain_fn drain, void *drain_ctx, void *op_ctx);
    /* Optional (NULL: always): can the peer's get_drain of our registered
     * memory be served now, whatever the transport needs for it in place
     * (reserved here if it was not)? OK, or why not (NO_MEMORY: no room
     * for what this rank would copy into, and no other way for the peer to
     * read it); such a get_drain would fail. Asked before a protocol that
     * has the peer read us is chosen over one that does not
     * (device/rma_putw.c), as once the peer reads, nothing is taken back. */
    rdmach_status_t (*drain_ready)(struct rch_rdma_chan *ch, int peer);
};

/* For ops a transport does not have: explicit, never NULL (as libfabric's fi_no_*).
 * Defined in rdma/registry.c; they return RDMACH_ERR_UNSUPPORTED. */
rdmach_status_t rch_rdma_no_put(struct rch_rdma_chan *ch, int peer, const void *laddr,
                                struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                                uint64_t raddr, void *op_ctx);
rdmach_status_t rch_rdma_no_send_zc(struct rch_rdma_chan *ch, int peer, const void *hdr, size_t hdrlen,
                                    const void *buf, size_t len, struct rch_rdma_mr *lmr, void *op_ctx);
rdmach_status_t rch_rdma_no_get(struct rch_rdma_chan *ch, int peer, void *laddr,
                                struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                                uint64_t raddr, void *op_ctx);
rdmach_status_t rch_rdma_no_wake(struct rch_rdma_chan *ch, int peer);
rdmach_status_t rch_rdma_no_recv_peek(struct rch_rdma_chan *ch, int peer, const void **pkt, size_t *len);
void rch_rdma_no_recv_done(struct rch_rdma_chan *ch, int peer);

/* The transports built into this library, listed in one place (rdma/registry.c). */
extern const struct rch_rdma_ops rch_rdma_shm_ops;
/* The network channels (src/rdma/net over ofi/ and verbs/), present when built
 * with libfabric / libibverbs + librdmacm (RDMACH_HAVE_OFI / RDMACH_HAVE_VERBS
 * in rdmach_config.h); rdma/select.h chooses among all of them per peer. */
extern const struct rch_rdma_ops rch_rdma_ofi_ops;
extern const struct rch_rdma_ops rch_rdma_verbs_ops;

#endif
