/*
 * The shared-memory channel: open/close, publish/connect, capabilities and
 * the ops table. The data paths are in shm_msg.c (eager rings), shm_rma.c
 * (single copy) and shm_pipe.c (two-copy fallback); peer liveness in
 * shm_live.c.
 *
 * Start-up, per rank:
 *   open      validate the layout, one peer record per local peer
 *   publish   create our segment (one ring + pipe per local sender, no page
 *             of them allocated, and the doorbell) and put
 *             "<name>,<pid>,<pid namespace inode>" under RCH_SHM_KVS_KEY
 *   (fence)
 *   connect   map the peer's segment (its name follows from the job's name
 *             and its rank: no key-value lookup per peer; its header names its
 *             process) and watch the process; the last of the expected
 *             mappers removes the segment's name
 *   first send  probe single copy (process_vm_readv of the peer's segment
 *             magic; also at its first get or HELP to us), reserve and fault
 *             in our ring in the peer's segment, ring the peer's doorbell
 *             (it polls only the rings of senders that rang): only the pairs
 *             that talk cost ring memory, polling and the probe
 *             (MAPPED -> CONNECTED)
 *
 * A peer in another pid namespace (containers sharing /dev/shm) has a pid
 * that means nothing here: no single copy for it (the pipeline works), and
 * its liveness is read from its segment's life line (shm_live.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/shm/shm.h"

_Static_assert(sizeof(struct rch_shm_rkey) <= RCH_RDMA_RKEY_MAX, "shm rkey fits an rch_rdma_rkey");

void rch_shm_update_busy(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    int busy = p->xq_head || p->wq_head || p->cq_head || p->sink_active != 0 || p->coop_pending > 0;
    if (busy != p->busy) {
        ch->nbusy += busy ? 1 : -1;
        p->busy = busy;
    }
}

/* ---- open / close ---- */

static rdmach_status_t shm_query(void)
{
    if (!rch_tun.shm)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "shm: disabled by RDMACH_SHM=off");
    if (access("/dev/shm", W_OK | X_OK) != 0)
        return rch_base_errno(errno, "shm: /dev/shm is not usable");
    return RDMACH_OK;
}

static int find_local(const struct rch_boot_info *b, int rank)
{
    int lo = 0, hi = b->local_size - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (b->local_ranks[mid] == rank)
            return mid;
        if (b->local_ranks[mid] < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static rdmach_status_t check_args(const struct rch_rdma_open_args *a)
{
    const struct rch_boot_info *b = a ? a->boot : NULL;
    if (!a || !b)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm open: no %s", a ? "boot info" : "arguments");
    if (b->size < 1 || b->rank < 0 || b->rank >= b->size || !b->node_of || !b->local_ranks ||
        b->local_size < 1 || b->local_size > b->size || b->local_rank < 0 ||
        b->local_rank >= b->local_size || b->local_ranks[b->local_rank] != b->rank)
        return rch_base_err(RDMACH_ERR_INVALID_ARG,
                            "shm open: inconsistent layout (rank %d of %d, local %d of %d)",
                            b->rank, b->size, b->local_rank, b->local_size);
    if (a->npeers < 0 || (a->npeers > 0 && !a->peers))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm open: peers: %d ranks, list %p", a->npeers,
                            (const void *)a->peers);
    if (!a->up.recv || !a->up.rma_done || !a->up.peer_failed)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm open: upcalls recv, rma_done and peer_failed are required");
    for (int i = 0; i < a->npeers; i++) {
        int r = a->peers[i];
        if (r < 0 || r >= b->size || (i > 0 && r <= a->peers[i - 1]))
            return rch_base_err(RDMACH_ERR_INVALID_ARG,
                                "shm open: peers[%d] = %d is out of range or not ascending", i, r);
        if (b->node_of[r] != b->node || find_local(b, r) < 0)
            return rch_base_err(RDMACH_ERR_UNREACHABLE,
                                "shm open: rank %d is on node %d, not on this rank's node %d", r,
                                b->node_of[r], b->node);
    }
    return RDMACH_OK;
}

/* Fault a ring's pages in now: a fresh 1 MiB ring otherwise takes ~256
 * page faults (tmpfs allocation, zeroing) inside the first thousands of
 * messages, making them several times slower. Best effort: an older kernel
 * without MADV_POPULATE_WRITE faults them on first use instead. */
static void prefault_ring(void *ring, uint64_t ncells)
{
#ifdef MADV_POPULATE_WRITE
    size_t len = (rch_shm_ring_bytes(ncells) + RCH_SHM_PAGE - 1) / RCH_SHM_PAGE * RCH_SHM_PAGE;
    if (madvise(ring, len, MADV_POPULATE_WRITE) != 0)
        RCH_DEBUG("shm", "prefaulting a ring of %zu bytes: errno %d", len, errno);
#endif
}

/* Bytes of each ring we receive into: RDMACH_SHM_RING_BUDGET shared among
 * the node's ranks, at most RING_AUTO_MAX, at least RDMACH_SHM_RING_SIZE. A
 * larger ring lets a window of eager messages stream without the sender
 * waiting for the receiver to publish room (bw 4 KiB..16 KiB: 64 KiB rings
 * ~5 GB/s, 1 MiB rings ~13 GB/s on the reference VM), and a ring larger than
 * a core's L2 makes each line the producer writes one that has left the
 * consumer's cache since it read it a lap ago, so the write takes it from
 * the shared L3 without a probe of the other core (4 and 8 KiB ping-pong
 * 10-20% faster with 4 MiB rings than with 1 MiB ones, streaming 15-30%;
 * 8 MiB rings lose it again: docs/PERFORMANCE.md). */
#define RING_AUTO_MAX ((size_t)4 << 20)
static size_t ring_bytes(int local_size)
{
    size_t share = rch_tun.shm_ring_budget / (size_t)(local_size > 0 ? local_size : 1);
    size_t r = 4096;
    while (r * 2 <= share && r * 2 <= RING_AUTO_MAX)
        r *= 2;
    return r > rch_tun.shm_ring_size ? r : rch_tun.shm_ring_size;
}

/* Was RDMACH_SHM_CMA_FROM given (a tuning file, the environment)? Then it
 * fixes how rendezvous gets move; otherwise the receiver times both ways. */
static int cma_from_given(void)
{
    const char *why;
    for (size_t i = 0; rch_base_tun_row(i); i++)
        if (strcmp(rch_base_tun_row(i)->name, "SHM_CMA_FROM") == 0)
            return rch_base_tun_origin(i, &why) >= RCH_TUN_FROM_FILE;
    return 0;
}

static rdmach_status_t shm_open_chan(const struct rch_rdma_open_args *a, struct rch_rdma_chan **out)
{
    rdmach_status_t st = check_args(a);
    if (st != RDMACH_OK)
        return st;
    if (!out)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm open: out is NULL");
    const struct rch_boot_info *b = a->boot;
    struct rch_rdma_chan *ch = calloc(1, sizeof(*ch));
    if (!ch)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm open: channel");
    ch->wake_efd = -1;
    ch->up = a->up;
    ch->rank = b->rank;
    ch->size = b->size;
    ch->my_slot = (uint32_t)b->local_rank;
    ch->nslots = (uint32_t)b->local_size;
    if (b->kvsname[0])
        snprintf(ch->kvsname, sizeof(ch->kvsname), "%s", b->kvsname);
    else
        snprintf(ch->kvsname, sizeof(ch->kvsname), "single%d", (int)getpid());
    ch->cma_mode = rch_tun.cma;
    ch->get_mode = rch_tun.shm_get;
    ch->get_adapt = ch->get_mode == RCH_SHM_GET_AUTO && ch->cma_mode != RCH_CMA_OFF && !cma_from_given();
    /* Sleeping is rare with a core per rank: senders skip the fence and a
     * sleeper pays a membarrier (an IPI). With more ranks than cores ranks
     * sleep all the time, and an IPI per sleep costs far more than a fence
     * per send (tens of microseconds in a VM). */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int oversub = ncpu > 0 && b->local_size > ncpu;
    int want_fence = rch_tun.shm_wake == RCH_SHM_WAKE_FENCE || (rch_tun.shm_wake == RCH_SHM_WAKE_AUTO && oversub);
    ch->self_fence = rch_shm_barrier_init() || want_fence;
    ch->oversub = oversub;
    ch->geom.nslots = ch->nslots;
    ch->geom.ring_cells = rch_shm_ring_cells_for(ring_bytes(b->local_size));
    ch->geom.pipe_chunk = (rch_tun.shm_pipe_chunk + RCH_SHM_CELL - 1) / RCH_SHM_CELL * RCH_SHM_CELL;
    ch->getop_free = -1;
    ch->seg.fd = -1;

    ch->peer_of = malloc(sizeof(*ch->peer_of) * (size_t)b->size);
    ch->peers = calloc(a->npeers ? (size_t)a->npeers : 1, sizeof(*ch->peers));
    if (!ch->peer_of || !ch->peers) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "shm open: peer tables for %d ranks", b->size);
        goto out_free;
    }
    for (int r = 0; r < b->size; r++)
        ch->peer_of[r] = -1;
    ch->npeers = a->npeers;
    for (int i = 0; i < a->npeers; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        p->rank = a->peers[i];
        p->slot = (uint32_t)find_local(b, p->rank);
        p->pidfd = -1;
        p->wake_efd = -1;
        p->seg.fd = -1;
        p->steal_head = p->steal_tail = -1;
        ch->peer_of[p->rank] = i;
    }
    /* Oversubscribed: the peers that share our core, whose pending flags say
     * when to leave it to them (shm_msg.c). Ranks are bound round-robin to
     * cores by local rank (boot/topo.c); unbound, any local rank may be
     * waiting for our core. */
    if (oversub) {
        ch->mates = calloc(a->npeers > 0 ? (size_t)a->npeers : 1, sizeof(*ch->mates));
        if (!ch->mates) {
            st = rch_base_err(RDMACH_ERR_NO_MEMORY, "shm open: core-mates of %d peers", a->npeers);
            goto out_free;
        }
        for (int i = 0; i < a->npeers; i++) {
            const struct rch_shm_peer *p = &ch->peers[i];
            if (p->rank != ch->rank && (b->bound_core < 0 || p->slot % ncpu == ch->my_slot % ncpu))
                ch->mates[ch->nmates++] = i;
        }
    }

    uint32_t ring_max = rch_shm_ring_max_payload(ch->geom.ring_cells);
    size_t want = rch_tun.shm_eager_max + RCH_SHM_DEV_HDR_ROOM;
    ch->caps.max_msg = want < ring_max ? want : ring_max;
    if (want > ring_max)
        RCH_INFO("shm", "RDMACH_SHM_EAGER_MAX=%zu does not fit a ring of %llu bytes: packets limited to %zu",
                 rch_tun.shm_eager_max, (unsigned long long)(ch->geom.ring_cells * RCH_SHM_CELL),
                 ch->caps.max_msg);
    ch->caps.inline_size = ch->caps.max_msg;
    ch->caps.in_order = 1;
    ch->caps.write_with_data = 0;
    ch->caps.rma = 1;
    ch->caps.needs_credits = 0;
    ch->caps.onload = 1;
    ch->caps.watches_peers = 1;
    *out = ch;
    return RDMACH_OK;

out_free:
    free(ch->mates);
    free(ch->peer_of);
    free(ch->peers);
    free(ch);
    return st;
}

/* This process's segment header while the channel is open: where a
 * whole-job abort is written for the peers (rch_base_abort_announce, from
 * the boot layer's abort; shm_live.c reads it when our process is gone). */
static struct rch_shm_seg_hdr *_Atomic abort_hdr;

static void announce_abort(int code)
{
    struct rch_shm_seg_hdr *h = atomic_load_explicit(&abort_hdr, memory_order_acquire);
    if (!h)
        return;
    h->abort_code = code;
    atomic_store_explicit(&h->aborting, 1, memory_order_release);
}

static void shm_close(struct rch_rdma_chan *ch)
{
    if (!ch)
        return;
    if (ch->seg.hdr && atomic_load_explicit(&abort_hdr, memory_order_relaxed) == ch->seg.hdr) {
        rch_base_abort_hook(NULL);
        atomic_store_explicit(&abort_hdr, NULL, memory_order_release);
    }
    /* first: from here our exit is a departure to every peer that outlives us
     * (shm_live.c); a rank that dies without closing stays a failure */
    if (ch->seg.hdr)
        atomic_store_explicit(&ch->seg.hdr->departed, 1, memory_order_release);
    for (int i = 0; i < ch->npeers; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        rch_shm_pipe_free_peer(p);
        free(p->coop);
        free(p->steal_gen);
        if (p->segp == &p->seg)
            rch_shm_seg_detach(&p->seg);
        if (p->pidfd >= 0)
            close(p->pidfd);
        if (p->wake_efd >= 0)
            close(p->wake_efd);
    }
    rch_shm_wakefd_close(ch);
    rch_shm_seg_detach(&ch->seg);
    /* again at the end: ranks of a killed job may still have been exiting
     * (alive to kill(pid, 0)) when this job started */
    if (ch->published && ch->my_slot == 0)
        rch_shm_seg_sweep();
    while (ch->mrs) {
        struct rch_shm_mr *m = ch->mrs;
        ch->mrs = m->next;
        free(m);
    }
    rch_shm_bell_close(ch);
    free(ch->getops);
    free(ch->mates);
    free(ch->peers);
    free(ch->peer_of);
    free(ch);
}

/* ---- publish / connect ---- */

rdmach_status_t rch_shm_publish_local(struct rch_rdma_chan *ch, char *addr, size_t len)
{
    rdmach_status_t st;
    if (!ch->published) {
        char name[RCH_SHM_NAME_MAX + 1];
        int mappers = 1;
        for (int i = 0; i < ch->npeers; i++)
            mappers += ch->peers[i].rank != ch->rank;
        st = rch_shm_seg_name(name, sizeof(name), ch->kvsname, ch->rank);
        if (st != RDMACH_OK)
            return st;
        /* what jobs killed before every rank mapped their segments left: the
         * node's first local rank removes it before adding ours */
        if (ch->my_slot == 0)
            rch_shm_seg_sweep();
        st = rch_shm_seg_create(&ch->seg, name, &ch->geom, ch->rank, mappers,
                                ch->self_fence ? RCH_SHM_SEG_F_FENCE : 0);
        if (st == RDMACH_OK)
            st = rch_shm_bell_open(ch);
        if (st != RDMACH_OK)
            return st;
        rch_shm_wakefd_open(ch);
        atomic_store_explicit(&abort_hdr, ch->seg.hdr, memory_order_release);
        rch_base_abort_hook(announce_abort);
        for (int i = 0; i < ch->npeers; i++) {
            struct rch_shm_peer *p = &ch->peers[i];
            st = rch_shm_ring_rx_init(&p->rx, rch_shm_seg_ring(&ch->seg, p->slot), ch->geom.ring_cells);
            if (st != RDMACH_OK)
                return st;
            rch_shm_ring_rx_set_max_record(&p->rx, ch->caps.max_msg);   /* and control records: smaller */
            p->rx.fence = 1;        /* until connect tells us the producer's barrier */
            p->sink_pipe = rch_shm_seg_pipe(&ch->seg, p->slot);
        }
        ch->published = 1;
    }
    int n = snprintf(addr, len, "%s,%d,%llu", ch->seg.name, (int)getpid(), rch_shm_pid_namespace());
    if (n < 0 || (size_t)n >= len)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm publish: address buffer of %zu bytes is too small", len);
    return RDMACH_OK;
}

static rdmach_status_t shm_publish(struct rch_rdma_chan *ch)
{
    char addr[RCH_SHM_NAME_MAX + 32];
    rdmach_status_t st = rch_shm_publish_local(ch, addr, sizeof(addr));
    if (st != RDMACH_OK)
        return st;
    return rch_boot_put(RCH_SHM_KVS_KEY, addr);
}

/* Can we read the peer's memory with process_vm_readv? Read its segment's
 * magic at the address where it mapped the segment. */
static rdmach_status_t probe_cma(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    p->cma = 0;
    if (ch->cma_mode == RCH_CMA_OFF)
        return RDMACH_OK;
    if (!p->pid_local) {
        if (ch->cma_mode == RCH_CMA_ON)
            return rch_base_err(RDMACH_ERR_UNSUPPORTED,
                                "shm: RDMACH_CMA=on but rank %d runs in another pid namespace", p->rank);
        RCH_INFO("shm", "rank %d runs in another pid namespace: using the two-copy pipeline", p->rank);
        return RDMACH_OK;
    }
    uint64_t v = 0;
    struct iovec l = { .iov_base = &v, .iov_len = sizeof(v) };
    struct iovec r = { .iov_base = (void *)(uintptr_t)(p->seg.hdr->owner_addr +
                                                       offsetof(struct rch_shm_seg_hdr, magic)),
                       .iov_len = sizeof(v) };
    ssize_t n = process_vm_readv(p->pid, &l, 1, &r, 1, 0);
    int err = n < 0 ? errno : 0;
    if (n == (ssize_t)sizeof(v) && v == RCH_SHM_SEG_MAGIC) {
        p->cma = 1;
        return RDMACH_OK;
    }
    if (err == ESRCH) {
        rch_shm_peer_mark_dead(ch, p, RDMACH_ERR_PEER_DEAD);
        return rch_base_err(RDMACH_ERR_PEER_DEAD, "shm: rank %d (pid %d) is gone", p->rank, (int)p->pid);
    }
    const char *why = n < 0 ? strerror(err) : "it read back a wrong value";
    const char *hint = (err == EPERM || err == EACCES)
        ? " (ptrace access denied: see /proc/sys/kernel/yama/ptrace_scope, the process's dumpable "
          "flag, or the container's capabilities)"
        : err == ENOSYS ? " (the kernel or a seccomp filter lacks the system call)" : "";
    if (ch->cma_mode == RCH_CMA_ON)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED,
                            "shm: RDMACH_CMA=on but process_vm_readv of rank %d (pid %d) failed: %s%s",
                            p->rank, (int)p->pid, why, hint);
    RCH_INFO("shm", "single copy with rank %d not permitted (%s%s): using the two-copy pipeline",
             p->rank, why, hint);
    return RDMACH_OK;
}

/* Single copy is tried once per peer, when it is first needed (our first
 * record to it, its first get or HELP to us), not when its segment is
 * mapped at start-up: a process_vm_readv per pair was an O(n^2) part of
 * start-up, and most pairs never talk. */
rdmach_status_t rch_shm_peer_probe_cma(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    if (!p->cma_unprobed)
        return RDMACH_OK;
    p->cma_unprobed = 0;
    rdmach_status_t st = probe_cma(ch, p);
    RCH_DEBUG("shm", "single copy with rank %d (pid %d): %s", p->rank, (int)p->pid, p->cma ? "yes" : "no, pipeline");
    return st;
}

static rdmach_status_t connect_self(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    rdmach_status_t st = rch_shm_ring_tx_init(&p->tx, rch_shm_seg_ring(&ch->seg, ch->my_slot),
                                              ch->geom.ring_cells);
    if (st != RDMACH_OK)
        return st;
    p->segp = &ch->seg;
    p->pid = getpid();
    p->pid_local = 1;
    p->cma = ch->cma_mode != RCH_CMA_OFF;
    p->fence = 0;               /* we never sleep while sending to ourselves */
    p->rx.fence = 0;
    p->src_pipe = rch_shm_seg_pipe(&ch->seg, ch->my_slot);
    rch_shm_seg_ring_bell(&ch->seg, ch->my_slot);
    p->state = RCH_SHM_PEER_CONNECTED;
    return RDMACH_OK;
}

/* Map p's segment `name` and watch its process; our ring in it stays
 * untouched until the first send (activate). pid 0: the segment's header
 * names its owner (the segment of rank r of this job has a known name). */
static rdmach_status_t map_peer(struct rch_rdma_chan *ch, struct rch_shm_peer *p, const char *name, pid_t pid,
                                unsigned long long ns)
{
    rdmach_status_t st = rch_shm_seg_attach(&p->seg, name, p->rank, pid);
    if (st != RDMACH_OK)
        return st;
    const struct rch_shm_seg_hdr *h = p->seg.hdr;
    if (pid == 0) {
        pid = (pid_t)h->owner_pid;
        ns = h->owner_pidns;
    }
    if (ch->my_slot >= h->nslots) {
        st = rch_base_err(RDMACH_ERR_PROTOCOL, "shm connect: rank %d's segment has %u slots, we are local rank %u",
                          p->rank, h->nslots, ch->my_slot);
        goto out_detach;
    }
    st = rch_shm_ring_tx_init(&p->tx, rch_shm_seg_ring(&p->seg, ch->my_slot), h->ring_cells);
    if (st != RDMACH_OK)
        goto out_detach;
    p->segp = &p->seg;
    p->pid = pid;
    unsigned long long my_ns = rch_shm_pid_namespace();
    p->pid_local = ns == 0 || my_ns == 0 || ns == my_ns;
    p->fence = (ch->self_fence || (h->flags & RCH_SHM_SEG_F_FENCE) ? RCH_SHM_NOTIFY_FENCE : 0) |
               (ch->oversub ? RCH_SHM_NOTIFY_PENDING : 0);
    p->rx.fence = (p->fence & RCH_SHM_NOTIFY_FENCE) != 0;
    p->src_pipe = rch_shm_seg_pipe(&p->seg, ch->my_slot);
    p->cma = 0;
    p->cma_unprobed = 1;
    p->pidfd = p->pid_local ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
    p->state = RCH_SHM_PEER_MAPPED;
    RCH_DEBUG("shm", "mapped rank %d's segment (pid %d)", p->rank, (int)pid);
    return RDMACH_OK;

out_detach:
    p->segp = NULL;
    p->src_pipe = NULL;
    rch_shm_seg_detach(&p->seg);
    return st;
}

/* Before the first record to p: reserve our ring in its segment (a full
 * /dev/shm is an error here, not a SIGBUS later), fault it in (a fresh
 * ring otherwise takes its page faults inside the first messages), then
 * ring p's doorbell: from now on p polls the ring, whose pages exist. */
static rdmach_status_t activate(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    rdmach_status_t st = rch_shm_peer_probe_cma(ch, p);
    if (st == RDMACH_OK)
        st = rch_shm_seg_reserve_ring(p->segp, ch->my_slot);
    if (st != RDMACH_OK)
        return st;
    prefault_ring(rch_shm_seg_ring(p->segp, ch->my_slot), p->segp->hdr->ring_cells);
    rch_shm_seg_ring_bell(p->segp, ch->my_slot);
    p->state = RCH_SHM_PEER_CONNECTED;
    RCH_DEBUG("shm", "reserved our ring in rank %d's segment (%llu bytes)", p->rank,
              (unsigned long long)(p->segp->hdr->pipe_off + RCH_SHM_PAGE));
    return RDMACH_OK;
}

static rdmach_status_t parse_addr(int peer, const char *addr, char *name, size_t len, pid_t *pid,
                                  unsigned long long *ns)
{
    /* "<name>,<pid>,<pid namespace>" */
    const char *comma = addr ? strchr(addr, ',') : NULL;
    char *end = NULL;
    long v = comma ? strtol(comma + 1, &end, 10) : 0;
    *ns = 0;
    if (end && *end == ',')
        *ns = strtoull(end + 1, &end, 10);
    else
        end = NULL;
    if (!comma || (size_t)(comma - addr) >= len || comma == addr || addr[0] != '/' || !end || *end || v <= 0)
        return rch_base_err(RDMACH_ERR_PROTOCOL, "shm connect: rank %d's address '%.80s' is malformed",
                            peer, addr ? addr : "(null)");
    memcpy(name, addr, (size_t)(comma - addr));
    name[comma - addr] = '\0';
    *pid = (pid_t)v;
    return RDMACH_OK;
}

/* Map p's segment by its name, which every rank of the job derives from the
 * job's name: no key-value lookup per peer. Not there yet: the launcher's
 * fence did not wait for every rank (Hydra's PMI-2 fence returns early, its
 * get waits for the key), so ask the KVS for the address the peer put once
 * its segment existed. */
static rdmach_status_t map_by_name(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    char name[RCH_SHM_NAME_MAX + 1], addr[RDMACH_KVS_VAL_MAX];
    rdmach_status_t st = rch_shm_seg_name(name, sizeof(name), ch->kvsname, p->rank);
    if (st == RDMACH_OK)
        st = map_peer(ch, p, name, 0, 0);
    if (st != RDMACH_ERR_CONN_REFUSED)
        return st;
    RCH_DEBUG("shm", "rank %d's segment is not there yet: asking the key-value store", p->rank);
    pid_t pid;
    unsigned long long ns;
    st = rch_boot_get(p->rank, RCH_SHM_KVS_KEY, addr, sizeof(addr));
    if (st == RDMACH_OK)
        st = parse_addr(p->rank, addr, name, sizeof(name), &pid, &ns);
    return st != RDMACH_OK ? st : map_peer(ch, p, name, pid, ns);
}

static rdmach_status_t check_connectable(struct rch_rdma_chan *ch, struct rch_shm_peer *p, int peer)
{
    if (!p)
        return rch_base_err(RDMACH_ERR_UNREACHABLE, "shm connect: rank %d is not a peer of this channel", peer);
    if (p->state == RCH_SHM_PEER_DEAD)
        return rch_base_err(p->dead_status, "shm connect: rank %d has failed", peer);
    if (!ch->published)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm connect: rank %d before publish", peer);
    return RDMACH_OK;
}

rdmach_status_t rch_shm_connect_addr(struct rch_rdma_chan *ch, int peer, const char *addr)
{
    rdmach_status_t st;
    struct rch_shm_peer *p = rch_shm_peer_get(ch, peer);
    if (p && p->state == RCH_SHM_PEER_CONNECTED)
        return RDMACH_OK;
    if ((st = check_connectable(ch, p, peer)) != RDMACH_OK)
        return st;
    if (peer == ch->rank)
        return connect_self(ch, p);
    if (p->state == RCH_SHM_PEER_MAPPED)
        return activate(ch, p);

    char name[RCH_SHM_NAME_MAX + 1];
    pid_t pid;
    unsigned long long ns;
    if ((st = parse_addr(peer, addr, name, sizeof(name), &pid, &ns)) != RDMACH_OK)
        return st;
    st = map_peer(ch, p, name, pid, ns);
    return st != RDMACH_OK ? st : activate(ch, p);
}

rdmach_status_t rch_shm_connect_peer(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    if (p->state == RCH_SHM_PEER_CONNECTED)
        return RDMACH_OK;
    if (p->rank == ch->rank || p->state == RCH_SHM_PEER_DEAD)
        return rch_shm_connect_addr(ch, p->rank, "");
    rdmach_status_t st = check_connectable(ch, p, p->rank);
    if (st == RDMACH_OK && p->state == RCH_SHM_PEER_IDLE)
        st = map_by_name(ch, p);
    return st != RDMACH_OK ? st : activate(ch, p);
}

/* Start-up: map every local peer's segment (so each is watched from the
 * start), but reserve and fault in a ring only where we send. */
static rdmach_status_t shm_connect(struct rch_rdma_chan *ch, int peer)
{
    struct rch_shm_peer *p = rch_shm_peer_get(ch, peer);
    rdmach_status_t st = check_connectable(ch, p, peer);
    if (st != RDMACH_OK || p->state != RCH_SHM_PEER_IDLE)
        return st;
    if (peer == ch->rank)
        return connect_self(ch, p);
    return map_by_name(ch, p);
}

int rch_shm_peer_cma(struct rch_rdma_chan *ch, int peer)
{
    struct rch_shm_peer *p = rch_shm_peer_get(ch, peer);
    return p && p->state == RCH_SHM_PEER_CONNECTED && p->cma;
}

const struct rch_shm_stats *rch_shm_get_stats(const struct rch_rdma_chan *ch)
{
    return &ch->stats;
}

static const struct rch_rdma_caps *shm_caps(const struct rch_rdma_chan *ch)
{
    return &ch->caps;
}

const struct rch_rdma_ops rch_rdma_shm_ops = {
    .name        = "shm",
    .query       = shm_query,
    .open        = shm_open_chan,
    .close       = shm_close,
    .publish     = shm_publish,
    .connect     = shm_connect,
    .mem_reg     = rch_shm_mem_reg,
    .mem_dereg   = rch_shm_mem_dereg,
    .mem_rkey    = rch_shm_mem_rkey,
    .send        = rch_shm_send,
    .send_zc     = rch_rdma_no_send_zc,
    .put         = rch_shm_put,
    .get         = rch_shm_get,
    .progress    = rch_shm_progress,
    .wait_arm    = rch_shm_wait_arm,
    .wait_disarm = rch_shm_wait_disarm,
    .caps        = shm_caps,
    .wake        = rch_shm_wake_peer,
    .recv_peek   = rch_rdma_no_recv_peek,
    .recv_done   = rch_rdma_no_recv_done,
    .peer_gone   = rch_shm_peer_gone,
    .put_fill    = rch_shm_put_fill,
    .get_drain   = rch_shm_get_drain,
    .drain_ready = rch_shm_drain_ready,
};
