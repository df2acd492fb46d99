/*
 * src/device: the ADI. Requests, matching, the eager and rendezvous protocols,
 * and the progress engine over all channels. The MPI layer (src/mpi) and the
 * collectives (src/coll) use only this header.
 *
 * Addressing: a message is sent to a world rank and carries the sender's rank
 * *in the communicator* (`src`), the tag and the communicator's context id.
 * Receives match on (ctx, src, tag) with RCH_DEV_ANY_SOURCE / RCH_DEV_ANY_TAG
 * wildcards; matching is non-overtaking per (sender, ctx).
 *
 * Buffers are contiguous bytes: the MPI layer packs/unpacks derived datatypes.
 */
#ifndef RCH_DEVICE_DEV_H
#define RCH_DEVICE_DEV_H

#include <stddef.h>
#include <stdint.h>
#include "rdmach.h"

#define RCH_DEV_ANY_SOURCE (-2)   /* MPICH's MPI_ANY_SOURCE */
#define RCH_DEV_ANY_TAG    (-1)   /* MPICH's MPI_ANY_TAG */
#define RCH_DEV_PROC_NULL  (-1)   /* MPICH's MPI_PROC_NULL: handled by the MPI layer */

enum rch_dev_req_kind { RCH_DEV_REQ_SEND = 1, RCH_DEV_REQ_RECV, RCH_DEV_REQ_GREQ };

enum rch_dev_send_mode {
    RCH_DEV_SEND_STD = 0,   /* eager below the threshold, rendezvous above */
    RCH_DEV_SEND_SYNC,      /* completes only once the receive has matched */
    RCH_DEV_SEND_READY,     /* the receive is known to be posted: same as STD */
};

/*
 * A request. The first block is read by the layers above; the device writes
 * it. `done` is written last, with release ordering, so a reader that sees
 * done != 0 (acquire) sees the rest. The device owns the memory: allocate with
 * rch_dev_req_alloc (or get one from isend/irecv), release with rch_dev_req_free
 * once done (freeing an unfinished request detaches it: it completes and is
 * reclaimed by the device).
 */
struct rch_dev_req {
    volatile int done;
    int kind;                       /* enum rch_dev_req_kind */
    rdmach_status_t err;            /* OK, TRUNCATE, PEER_DEAD, CANCELED, ... */
    int source, tag;                /* receive: the matched sender (comm rank) and tag */
    size_t bytes;                   /* bytes delivered (receive) or sent (send) */
    size_t msg_bytes;               /* receive: full size of the message (> bytes if truncated) */
    int cancelled;
    /* Called once by the device when the request completes, before `done` is
     * set (the MPI layer unpacks here). May be NULL. */
    void (*on_complete)(struct rch_dev_req *req);
    void *user;                     /* for the layer above */
    uint64_t user_word[2];          /* for the layer above */
    /* device-private state follows in the device's own struct */
};

rdmach_status_t rch_dev_init(void);      /* after rch_boot_init: opens and connects channels */
rdmach_status_t rch_dev_finalize(void);

struct rch_dev_req *rch_dev_req_alloc(int kind);   /* a generalized request (kind GREQ) */
void rch_dev_req_complete(struct rch_dev_req *req); /* complete a GREQ */
void rch_dev_req_free(struct rch_dev_req *req);
/* A request's id, and whether the request it names is still unfinished (0
 * once it is done or released): for a holder that does not own the request
 * (the MPI layer's buffered sends watch an Ibsend's request this way). */
uint64_t rch_dev_req_id(const struct rch_dev_req *req);
/* Why a finished request failed: for PEER_DEAD, the failure of the rank it
 * ended for (its message names that rank), kept by the device so that later
 * errors (a channel flushing the dead peer's other operations) do not take
 * its place; otherwise the calling thread's last error. */
const char *rch_dev_req_why(const struct rch_dev_req *req);
int rch_dev_req_id_busy(uint64_t id);

/* Non-blocking send of `len` bytes to world rank `dest`. On RDMACH_OK *req may
 * be NULL: the send is already complete and the buffer reusable (eager fast
 * path; no request is allocated). */
rdmach_status_t rch_dev_isend(const void *buf, size_t len, int dest, int src, int tag,
                              uint32_t ctx, int mode, struct rch_dev_req **req);
/* Non-blocking receive: `src` is a comm rank or RCH_DEV_ANY_SOURCE. */
rdmach_status_t rch_dev_irecv(void *buf, size_t len, int src, int tag, uint32_t ctx,
                              struct rch_dev_req **req);
/* A blocking receive's direct path, tried before rch_dev_irecv + wait:
 * `src` is a comm rank (not ANY_SOURCE) and `world` its world rank. While
 * no posted receive or unexpected message could claim it first, the wait
 * spins on the peer's channel alone (recv_peek; a full progress pass every
 * few polls) and, if the next packet from that peer is a plain eager message
 * this receive matches and that fits, copies it straight into buf: OK with
 * *out_source, *out_tag, *out_bytes set. RDMACH_AGAIN: nothing was taken
 * (not applicable, a packet the general path must handle, or nothing within
 * the spin): post the receive and wait as usual. It never fails: errors are
 * left for the general path to report. */
rdmach_status_t rch_dev_recv_direct(void *buf, size_t len, int world, int src, int tag, uint32_t ctx,
                                    int *out_source, int *out_tag, size_t *out_bytes);
/* Receives rch_dev_recv_direct has taken so far (tests, debugging). */
uint64_t rch_dev_stat_direct_recvs(void);
/* Is a matching message waiting (unexpected)? *found = 0/1; the others as for a receive. */
rdmach_status_t rch_dev_iprobe(int src, int tag, uint32_t ctx, int *found,
                               int *out_source, int *out_tag, size_t *out_bytes);
/* Cancel a request (cancel.c). A receive that has not matched completes
 * with cancelled = 1 (err CANCELED); one that matched goes on. A send is
 * withdrawn if the receiver has not matched it: then it completes with
 * cancelled = 1 and the message is never delivered; else it completes
 * normally. Either way the request is not done before that is known (for a
 * send already done, done turns 0 again until the receiver answers); a
 * failure of the peer meanwhile completes it with PEER_DEAD. OK always
 * (a request already cancelled, matched or failed: nothing changes). */
rdmach_status_t rch_dev_cancel(struct rch_dev_req *req);
/* The number of the last message (EAGER or RNDV_REQ packet) that left for
 * world rank dest: right after an isend that returned no request, the
 * number of that send's message. */
uint64_t rch_dev_send_seq(int dest);
/* Cancel the message number seq sent to dest without a request (isend's
 * fast path): *req is a send request that completes as rch_dev_cancel's. */
rdmach_status_t rch_dev_cancel_sent(int dest, uint64_t seq, struct rch_dev_req **req);

/* One non-blocking pass over every channel; returns the events handled. */
unsigned rch_dev_progress(void);
/* Progress until done(arg) returns non-zero, with the adaptive wait policy:
 * spin RDMACH_SPIN_COUNT empty polls, then yield RDMACH_YIELD_COUNT times,
 * then block on the channels' wait primitives. Errors only if the job fails.
 * The wait returns as soon as done(arg) returns non-zero and never calls it
 * again: a done-function may take what it found (MPI_Mprobe's takes the
 * message off the unexpected queue; asked again, it would lose it). */
typedef int (*rch_dev_done_fn)(void *arg);
rdmach_status_t rch_dev_wait_until(rch_dev_done_fn done, void *arg);
/* Shorthand: wait for one request. */
rdmach_status_t rch_dev_wait(struct rch_dev_req *req);

/* The world rank of the channel peer that failed most recently (for messages). */
int rch_dev_failed_peer(void);
/* Peers failed so far (one load: a done-function may test it on every
 * pass), and whether world rank w is one of them. A wait on memory another
 * rank writes (a barrier's flag) ends when the writer failed this way. */
unsigned rch_dev_failures(void);
int rch_dev_peer_is_dead(int world);

/*
 * Added by the device (additive, optional). Errors that concern the message or
 * its peer (UNREACHABLE: no channel reaches dest; PEER_DEAD; TRUNCATE; CANCELED)
 * come back through the request's `err` (isend/irecv return OK with a request,
 * possibly already done); the return value of a call is for errors of the call
 * itself (invalid argument, not initialized, no memory).
 *
 * rch_dev_ctx_map: the world rank of each rank of a context's group, so that a
 * receive naming a specific source completes with PEER_DEAD when that peer
 * fails (without a map only ANY_SOURCE receives and receives already matched
 * with the dead peer do). The device copies the array. Call it for each
 * context id in use (ctx and ctx + 1), rch_dev_ctx_unmap when it is freed.
 */
rdmach_status_t rch_dev_ctx_map(uint32_t ctx, int size, const int *world_of);
void rch_dev_ctx_unmap(uint32_t ctx);

/*
 * Added for the collectives (additive; net_profile.c): how the channel that
 * reaches ranks on other nodes processes its protocol, from that channel's
 * caps.onload: 1 onload (the host CPU does it, so more cores push more
 * traffic), 0 offload (the NIC does it), -1 when no open channel reaches
 * another node (a one-node job, or no network channel). The collectives key
 * their algorithm choice on it (RDMACH_NIC_PROFILE overrides it).
 */
int rch_dev_net_onload(void);

/*
 * Added for the non-blocking collectives (additive; progress.c): functions
 * rch_dev_progress calls on every pass after polling the channels, so
 * schedules advance whenever anything progresses the device (a wait, a test,
 * a blocking call). A hook returns the events it handled (0 when idle), never
 * blocks and never calls rch_dev_progress or a wait. At most 8 hooks;
 * RDMACH_ERR_BUSY when they are taken.
 */
typedef unsigned (*rch_dev_progress_fn)(void *arg);
rdmach_status_t rch_dev_progress_hook_add(rch_dev_progress_fn fn, void *arg);
void rch_dev_progress_hook_remove(rch_dev_progress_fn fn, void *arg);

/*
 * Added for waits on memory that other processes write (additive;
 * progress.c, wake.c). A rank waiting for a flag another rank of its node
 * sets in shared memory (the shared-memory barriers) must keep the device
 * progressing on every channel and sleep where channel traffic wakes it too,
 * so it waits through the device, and the rank that sets the flag wakes it:
 *
 *   waiter                                   setter
 *   rch_dev_wait_until_with(flag_set, ...)   store the flag
 *                                            rch_dev_wake(waiter's world rank)
 *
 * rch_dev_wait_until_with: rch_dev_wait_until with the caller's phases:
 * `spin` empty polls, then `yield` sched_yields, before blocking (-1: the
 * device's RDMACH_SPIN_COUNT(_OVERSUB) / RDMACH_YIELD_COUNT), and
 * `block_ms`, the longest sleep before polling again (0: the device's).
 * Every device wait tests done(arg) once more after arming the channels,
 * just before it sleeps: a store followed by rch_dev_wake is never slept
 * through.
 * rch_dev_wake: end the device sleep of world rank `rank` if it sleeps on a
 * channel whose peers can wake it (shared memory). A load and no system call
 * when it does not sleep; nothing for myself or a rank no such channel
 * reaches.
 * rch_dev_can_wake: 1 if rch_dev_wake reaches `rank` (then `rank` reaches
 * me as well: the channel choice is symmetric); 0 if not (another node,
 * RDMACH_SHM=off): a waiter for its stores needs a short block_ms.
 */
struct rch_dev_wait_policy {
    int spin, yield;
    int block_ms;
};
rdmach_status_t rch_dev_wait_until_with(rch_dev_done_fn done, void *arg,
                                        const struct rch_dev_wait_policy *pol);
void rch_dev_wake(int rank);
int rch_dev_can_wake(int rank);

/*
 * Added for MPI's matched probe (additive; recv.c). rch_dev_improbe: as
 * iprobe, but a message found is taken off the unexpected queue and
 * returned as *msg (NULL if none), so no other receive or probe can match
 * it; rch_dev_imrecv then receives it exactly as an irecv that matched it
 * would (eager copy, rendezvous), and consumes msg. Every msg must be
 * received once.
 */
struct rch_dev_msg;
rdmach_status_t rch_dev_improbe(int src, int tag, uint32_t ctx, struct rch_dev_msg **msg, int *out_source,
                                int *out_tag, size_t *out_bytes);
rdmach_status_t rch_dev_imrecv(void *buf, size_t len, struct rch_dev_msg *msg, struct rch_dev_req **req);

/*
 * Added for MPI's dynamic processes (additive; dyn.c). A process of another
 * job becomes a peer with a free index after the job's ranks (the
 * indices of the layers above: rch_boot.size, +1, ...; each process numbers
 * the peers it adds in its own order). rch_dev_dyn_reserve chooses the
 * index the next such process will have and keeps it for it (the layer
 * above tells the other side before attaching; several may be reserved at
 * once, one per attach in the making); rch_dev_dyn_unreserve gives it back
 * unused. rch_dev_dyn_attach takes a connected
 * stream socket to it, already authenticated by the caller (the device owns
 * fd from then on, on success and on failure), and the reserved index w
 * (its reservation ends, on success and on failure); from then on it is a peer
 * like any other, over the sock channel. rch_dev_nprocs: the job's ranks
 * plus the peers added so far. rch_dev_dyn_detach closes the connection to
 * such a peer once no communicator map names it (rch_dev_ctx_map counts
 * them; with one left it does nothing): what is queued for it goes first,
 * then an orderly end the other side does not report as a failure; sends
 * to it fail from then on; its index goes to a later peer once nothing
 * refers to it any more (dyn.c). A rank of the job is never detached.
 * rch_dev_dyn_count: the peers of other jobs attached and not detached.
 */
rdmach_status_t rch_dev_dyn_reserve(int *w);
void rch_dev_dyn_unreserve(int w);
rdmach_status_t rch_dev_dyn_attach(int fd, int w, int *world);
/* The same over the network channel: rch_dev_dyn_net_record gives the
 * name (chan[16]) of the one this process has open (with `open`, if none,
 * the one it would use between nodes, opened now: for a peer on another
 * host) and this process's record (RCH_NET_DYN_REC_LEN bytes,
 * rdma/net/net_dyn.h) with a key of its own, or RDMACH_ERR_NOT_FOUND if it
 * has none; rch_dev_dyn_attach_net takes the other's record, this
 * process's record handed to it (mine: the key it must quote), the index
 * the other gave this process (my_id), whether this side accepts the pair's
 * connection (server) and the reserved index w. rch_dev_dyn_detach ends
 * such a peer's connection alone (rch_net_dyn_detach: BYE, then its
 * endpoints, ring and registrations released). */
rdmach_status_t rch_dev_dyn_net_record(int open, char *chan, size_t chanlen, void *rec, size_t len);
rdmach_status_t rch_dev_dyn_attach_net(const void *rec, size_t len, const void *mine, int my_id, int server, int w,
                                       int *world);
void rch_dev_dyn_detach(int world);
int rch_dev_dyn_count(void);
int rch_dev_nprocs(void);

#endif
