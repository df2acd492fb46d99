/*
 * Bringing the device up and down, and what happens when a peer fails.
 *
 * Init, as a straight line:
 *   1. a peer record for every world rank; self gets the loopback, every other
 *      rank the channel select.c names (or none: unreachable);
 *   2. open each selected channel once, with its peers (ascending);
 *   3. publish every channel's address, rch_boot_fence(), connect each peer;
 *   4. per peer, from the channel's caps: eager limits, RMA, credits.
 * Every rank calls the fence, whether or not it opened a channel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/dev_impl.h"
#include "device/stats.h"

struct rch_dev_state_s rch_dev = { .failed_peer = -1 };
static struct rch_dev_chan loop_dchan;

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static int online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* The largest payload that goes eagerly behind a header of `hdr` bytes. */
static size_t eager_limit(const struct rch_rdma_caps *c, size_t hdr)
{
    size_t thr = rch_tun.rndv_threshold ? rch_tun.rndv_threshold - 1 : SIZE_MAX;
    return min_size(c->max_msg - hdr, thr);
}

size_t rch_dev_eager_max(const struct rch_rdma_caps *c)
{
    return eager_limit(c, sizeof(struct rch_pkt_eager));
}

/* Per-peer limits from the channel's capabilities and the tunables. */
rdmach_status_t rch_dev_peer_setup(struct rch_dev_peer *p, struct rch_dev_chan *dc)
{
    const struct rch_rdma_caps *c = dc->caps;
    if (c->max_msg < RCH_PKT_CTL_MAX + 64)
        return rch_base_err(RDMACH_ERR_CONFIG, "channel %s: max_msg %zu is below the %d bytes the device needs",
                            dc->ops->name, c->max_msg, RCH_PKT_CTL_MAX + 64);
    p->ops = dc->ops;
    p->chan = dc->chan;
    p->dchan = dc;
    p->eager_max = rch_dev_eager_max(c);
    p->eager_max_sync = eager_limit(c, sizeof(struct rch_pkt_eager_sync));
    p->zc_min = c->zc_min && c->zc_min <= p->eager_max ? c->zc_min : SIZE_MAX;
    p->data_max = c->max_msg - sizeof(struct rch_pkt_rndv_data);
    p->rma = c->rma;
    p->flow = c->needs_credits;
    p->credits = rch_tun.eager_credits;
    p->owed = 0;
    p->crdt_thresh = (rch_tun.eager_credits + 1) / 2;
    p->dead = 0;
    p->left = 0;
    p->dead_status = RDMACH_OK;
    return RDMACH_OK;
}

rdmach_status_t rch_dev_open_chan(struct rch_dev_chan *dc, const struct rch_rdma_ops *ops, int *peers,
                                 int npeers)
{
    dc->ops = ops;
    dc->peers = peers;
    dc->npeers = npeers;
    dc->chan = NULL;
    rdmach_status_t st = ops->query();
    if (st != RDMACH_OK)
        return rch_base_err(st, "channel %s cannot run here: %s", ops->name, rdmach_last_error());
    struct rch_rdma_open_args args = {
        .boot = &rch_boot, .peers = peers, .npeers = npeers,
        .up = { .ctx = dc, .recv = rch_dev_up_recv, .rma_done = rch_dev_up_rma_done,
                .peer_failed = rch_dev_up_peer_failed, .peer_left = rch_dev_up_peer_left },
    };
    st = ops->open(&args, &dc->chan);
    if (st != RDMACH_OK)
        return st;
    dc->caps = ops->caps(dc->chan);
    return RDMACH_OK;
}

static void close_chans(void)
{
    for (int i = 0; i < rch_dev.nchans; i++) {
        struct rch_dev_chan *dc = &rch_dev.chans[i];
        if (dc->chan)
            dc->ops->close(dc->chan);
        free(dc->peers);
        memset(dc, 0, sizeof(*dc));
    }
    rch_dev.nchans = 0;
    if (loop_dchan.chan)
        loop_dchan.ops->close(loop_dchan.chan);
    free(loop_dchan.peers);
    memset(&loop_dchan, 0, sizeof(loop_dchan));
}

static void free_state(void)
{
    close_chans();
    rch_dev_hb_fini();
    rch_dev_live_fini();
    rch_dev_slice_fini();
    for (int i = 0; rch_dev.peers && i < rch_dev.size; i++)
        free(rch_dev.peers[i].why);
    free(rch_dev.peers);
    rch_dev.peers = NULL;
    for (uint32_t i = 0; i < rch_dev.nctxmaps; i++)
        free(rch_dev.ctxmaps[i].world_of);
    free(rch_dev.ctxmaps);
    rch_dev.ctxmaps = NULL;
    rch_dev.nctxmaps = 0;
    rch_dev_pools_fini();
    rch_dev.active = NULL;
    rch_dev.size = 0;   /* isend/irecv test this instead of `initialized` */
}

/* Step 2: open each distinct channel once, with the peers it serves. */
static rdmach_status_t open_selected(const struct rch_rdma_ops **sel)
{
    int size = rch_dev.size;
    for (int r = 0; r < size; r++) {
        if (sel[r] == NULL)
            continue;
        const struct rch_rdma_ops *ops = sel[r];
        if (rch_dev.nchans == RCH_DEV_MAX_CHANS)
            return rch_base_err(RDMACH_ERR_UNSUPPORTED, "device: more than %d channel kinds selected",
                                RCH_DEV_MAX_CHANS);
        int *peers = malloc(sizeof(int) * (size_t)size);
        if (peers == NULL)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "device: no memory for the peers of %s", ops->name);
        int n = 0;
        for (int q = r; q < size; q++) {
            if (sel[q] == ops) {
                peers[n++] = q;
                sel[q] = NULL;
            }
        }
        struct rch_dev_chan *dc = &rch_dev.chans[rch_dev.nchans++];
        rdmach_status_t st = rch_dev_open_chan(dc, ops, peers, n);
        if (st != RDMACH_OK)
            return st;
        dc->can_wait = 1;
        for (int i = 0; i < n; i++) {
            st = rch_dev_peer_setup(&rch_dev.peers[peers[i]], dc);
            if (st != RDMACH_OK)
                return st;
        }
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dev_init_with(rch_dev_select_fn select)
{
    rdmach_status_t st;
    if (rch_dev.initialized)
        return RDMACH_OK;
    if (rch_boot.size < 1 || rch_boot.rank < 0 || rch_boot.rank >= rch_boot.size)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "device: the bootstrap layout is not set (rank %d of %d)",
                            rch_boot.rank, rch_boot.size);
    rch_dev.rank = rch_boot.rank;
    rch_dev.size = rch_boot.size;
    rch_dev.failed_peer = -1;
    rch_dev.nleft = 0;
    rch_base_alert_install();   /* survive the launcher's "a process failed" (RDMACH_SIGUSR1) */
    rch_dev.dropped = 0;
    memset(&rch_dev_stat, 0, sizeof(rch_dev_stat));
    rch_dev.active = NULL;
    rch_match_posted_init(&rch_dev.posted);
    rch_match_unexp_init(&rch_dev.unexp);
    /* room for the processes of other jobs dyn.c may add: a peer's address
     * never changes (its pending list is linked through it) */
    rch_dev.peers = calloc((size_t)rch_dev.size + rch_tun.dyn_max, sizeof(*rch_dev.peers));
    const struct rch_rdma_ops **sel = calloc((size_t)rch_dev.size, sizeof(*sel));
    if (rch_dev.peers == NULL || sel == NULL) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "device: no memory for %d peers", rch_dev.size);
        goto out_free;
    }
    st = rch_dev_pools_init();
    if (st != RDMACH_OK)
        goto out_free;

    /* 1. who reaches whom */
    for (int r = 0; r < rch_dev.size; r++) {
        struct rch_dev_peer *p = &rch_dev.peers[r];
        p->rank = r;
        rch_dlist_init(&p->pending);
        p->ops = &rch_dev_nochan_ops;
        p->dead = 1;
        p->dead_status = RDMACH_ERR_UNREACHABLE;
        if (r != rch_dev.rank)
            sel[r] = select(&rch_boot, r);
    }
    int *self = malloc(sizeof(int));
    if (self == NULL) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "device: no memory");
        goto out_free;
    }
    *self = rch_dev.rank;
    st = rch_dev_open_chan(&loop_dchan, &rch_dev_loop_ops, self, 1);
    if (st == RDMACH_OK)
        st = rch_dev_peer_setup(&rch_dev.peers[rch_dev.rank], &loop_dchan);
    if (st != RDMACH_OK)
        goto out_free;

    /* 2. open: the channels' first /dev/shm files, so first the reaper
     * that removes them if the job dies */
    rch_dev_reaper_start();
    st = open_selected(sel);
    if (st != RDMACH_OK)
        goto out_free;

    /* 3. publish, fence, connect */
    for (int i = 0; i < rch_dev.nchans; i++) {
        struct rch_dev_chan *dc = &rch_dev.chans[i];
        st = dc->ops->publish(dc->chan);
        if (st != RDMACH_OK)
            goto out_free;
    }
    st = rch_dev_live_publish();
    if (st == RDMACH_OK)
        st = rch_dev_hb_publish();
    if (st != RDMACH_OK)
        goto out_free;
    st = rch_boot_fence();
    if (st != RDMACH_OK)
        goto out_free;
    rch_dev_live_resolve();
    rch_dev_hb_resolve();
    for (int i = 0; i < rch_dev.nchans; i++) {
        struct rch_dev_chan *dc = &rch_dev.chans[i];
        for (int k = 0; k < dc->npeers; k++) {
            st = dc->ops->connect(dc->chan, dc->peers[k]);
            if (st != RDMACH_OK && st != RDMACH_INPROGRESS) {
                st = rch_base_err(st, "channel %s: connecting to rank %d: %s", dc->ops->name, dc->peers[k],
                                  rdmach_last_error());
                goto out_free;
            }
        }
    }

    /* The wait policy (progress.c): with more ranks than cores on this node a
     * waiting rank yields at once by default (RDMACH_SPIN_COUNT_OVERSUB=0),
     * since spinning only delays the rank it waits for, and blocks after
     * RDMACH_YIELD_COUNT_OVERSUB yields; otherwise it spins RDMACH_SPIN_COUNT
     * polls first and yields RDMACH_YIELD_COUNT times. */
    int on_host = rch_boot.host_size > rch_boot.local_size ? rch_boot.host_size : rch_boot.local_size;
    rch_dev.oversubscribed = on_host > online_cores();   /* pretend nodes (RDMACH_VNODE_SIZE) share the cores */
    rch_dev.spin_count = rch_dev.oversubscribed ? rch_tun.spin_count_oversub : rch_tun.spin_count;
    rch_dev.yield_count = rch_dev.oversubscribed ? rch_tun.yield_count_oversub : rch_tun.yield_count;
    rch_dev.yield_long = rch_tun.yield_long_us * 1e-6;
    rch_dev.host_ranks = on_host;
    /* A spin for a partner on another core pays while at most one other rank
     * shares our core (progress.c, wait_oversub). */
    rch_dev.cores = online_cores();
    rch_dev.oversub_peer_spin = on_host <= 2 * rch_dev.cores ? rch_tun.spin_count_oversub_peer : 0;
    free(sel);
    rch_dev.initialized = 1;
    RCH_DEBUG("dev", "up: %d ranks, %d channel(s), %s", rch_dev.size, rch_dev.nchans,
              rch_dev.oversubscribed ? "oversubscribed (yield when idle)" : "spin when idle");
    return RDMACH_OK;

out_free:
    free(sel);
    free_state();
    rch_base_alert_uninstall();
    return st;
}

rdmach_status_t rch_dev_init(void)
{
    return rch_dev_init_with(rch_dev_select_default);
}

static int queues_empty(void *arg)
{
    return rch_dev.active == NULL;
}

rdmach_status_t rch_dev_finalize(void)
{
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "device finalize: not initialized");
    /* Control packets (FIN, SYNC_ACK, CRDT) may still be queued: let them go,
     * but do not wait forever for a peer that stopped reading. */
    double until = rch_base_wtime() + 10.0;
    while (!queues_empty(NULL) && rch_base_wtime() < until)
        rch_dev_progress();
    if (!queues_empty(NULL))
        RCH_WARN("dev", "finalize: packets still queued after 10 s; closing anyway");
    if (rch_dev.posted.count)
        RCH_DEBUG("dev", "finalize: %zu receives never matched", rch_dev.posted.count);
    if (rch_dev.unexp.count)
        RCH_DEBUG("dev", "finalize: %zu messages never received", rch_dev.unexp.count);
    rch_dev_live_depart();
    rch_dev.initialized = 0;
    free_state();
    rch_base_alert_uninstall();
    return RDMACH_OK;
}

/* ---- failures ---- */

struct fail_posted_arg {
    int peer;
    int any_source;      /* fail ANY_SOURCE receives too */
};

static void fail_posted(struct rch_match_entry *e, void *arg)
{
    const struct fail_posted_arg *a = arg;
    int w = e->src == RCH_DEV_ANY_SOURCE ? -1 : rch_dev_ctx_world(e->ctx, e->src);
    if (e->src == RCH_DEV_ANY_SOURCE ? !a->any_source : w != a->peer)
        return;
    struct rch_dev_ireq *r = rch_container_of(e, struct rch_dev_ireq, me);
    r->peer = a->peer;   /* the rank it ends for, which its error names (rch_dev_req_why) */
    rch_match_unpost(&rch_dev.posted, e);
    rch_dev_ireq_complete(r, RDMACH_ERR_PEER_DEAD);
}

/* Nothing reaches `peer` any more: whatever waits on it ends with PEER_DEAD. */
static void peer_unusable(int peer, int any_source)
{
    struct rch_dev_peer *p = &rch_dev.peers[peer];
    p->dead = 1;
    p->dead_status = RDMACH_ERR_PEER_DEAD;
    p->ops = &rch_dev_nochan_ops;
    p->chan = NULL;
    p->flow = 0;
    rch_dev_sendq_fail(p, RDMACH_ERR_PEER_DEAD);
    while (!rch_dlist_empty(&p->pending)) {
        struct rch_dev_ireq *r = rch_container_of(p->pending.next, struct rch_dev_ireq, pending);
        rch_dev_ireq_finish(r, RDMACH_ERR_PEER_DEAD);
    }
    struct fail_posted_arg a = { .peer = peer, .any_source = any_source };
    rch_match_posted_foreach(&rch_dev.posted, fail_posted, &a);
}

/*
 * A peer failed; its reporter has recorded why (rch_base_err), which the
 * message keeps. Everything waiting on it completes with PEER_DEAD: queued
 * sends, sends and receives in a protocol exchange with it, posted receives
 * naming it (when the communicator's map is known, rch_dev_ctx_map), and —
 * to keep it simple — every posted ANY_SOURCE receive: another sender could
 * still match it, but a program waiting on a dead rank must not hang.
 * Later sends to it fail at once; unexpected eager data it sent before dying
 * stays receivable.
 */
void rch_dev_peer_failed(int peer, rdmach_status_t status)
{
    struct rch_dev_peer *p = &rch_dev.peers[peer];
    if (p->dead || peer == rch_dev.rank)
        return;
    /* a peer of this host that closed its device before it went (live.c)
     * ended normally, whatever a channel that never talked with it says */
    if (rch_dev_live_departed(peer)) {
        rch_dev_peer_left(peer);
        return;
    }
    /* the reporter (a channel's progress, live.c) has just recorded why */
    char why[200];
    snprintf(why, sizeof(why), "%s", rdmach_last_error());
    RCH_WARN("dev", "rank %d failed (%s): its requests complete with an error", peer, rdmach_strerror(status));
    p->dead = 1;     /* before the count: whoever sees it counted sees it dead */
    rch_dev.failed_peer = peer;
    __atomic_store_n(&rch_dev.failures, rch_dev.failures + 1, __ATOMIC_RELEASE);
    rch_base_err(RDMACH_ERR_PEER_DEAD, "rank %d has failed or disconnected%s%s", peer, why[0] ? ": " : "", why);
    free(p->why);
    p->why = strdup(rdmach_last_error());
    peer_unusable(peer, 1);
    if (rch_dev_fail_hook)
        rch_dev_fail_hook(peer);
}

/*
 * A peer closed its channel and exited: it had finished (MPI_Finalize's
 * exchange, which every rank enters before any leaves it), so this is no
 * failure: no warning, no error recorded, not counted, not among the failed
 * (rch_dev_peer_is_dead). A send to it or a receive naming it (an erroneous
 * program) still ends with an error, rather than hanging; ANY_SOURCE
 * receives stay posted.
 */
void rch_dev_peer_left(int peer)
{
    struct rch_dev_peer *p = &rch_dev.peers[peer];
    if (p->dead || peer == rch_dev.rank)
        return;
    RCH_DEBUG("dev", "rank %d has finished and left", peer);
    p->left = 1;
    rch_dev.nleft++;
    peer_unusable(peer, 0);
}

int rch_dev_failed_peer(void)
{
    return rch_dev.failed_peer;
}

unsigned rch_dev_failures(void)
{
    return __atomic_load_n(&rch_dev.failures, __ATOMIC_ACQUIRE);
}

int rch_dev_peer_is_dead(int world)
{
    if (!rch_dev.initialized || world < 0 || world >= rch_dev.size)
        return 0;
    const struct rch_dev_peer *p = &rch_dev.peers[world];
    return p->dead && !p->left && p->dead_status == RDMACH_ERR_PEER_DEAD;
}

/* ---- communicator maps ---- */

#define CTXMAP_MAX (1u << 20)

/* Counts the maps naming each peer (each names a peer at most once). */
static void count_maps(const struct rch_dev_ctxmap *m, int delta)
{
    for (int i = 0; i < m->size; i++)
        if (m->world_of[i] >= 0 && m->world_of[i] < rch_dev.size)
            rch_dev.peers[m->world_of[i]].maps += delta;
}

rdmach_status_t rch_dev_ctx_map(uint32_t ctx, int size, const int *world_of)
{
    if (ctx >= CTXMAP_MAX || size < 0 || (size > 0 && world_of == NULL))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "ctx_map: ctx %u / size %d out of range", ctx, size);
    if (ctx >= rch_dev.nctxmaps) {
        uint32_t n = rch_dev.nctxmaps ? rch_dev.nctxmaps : 64;
        while (n <= ctx)
            n *= 2;
        struct rch_dev_ctxmap *m = realloc(rch_dev.ctxmaps, n * sizeof(*m));
        if (m == NULL)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "ctx_map: no memory");
        memset(m + rch_dev.nctxmaps, 0, (n - rch_dev.nctxmaps) * sizeof(*m));
        rch_dev.ctxmaps = m;
        rch_dev.nctxmaps = n;
    }
    int *copy = malloc(sizeof(int) * (size_t)(size ? size : 1));
    if (copy == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "ctx_map: no memory");
    if (size)
        memcpy(copy, world_of, sizeof(int) * (size_t)size);
    count_maps(&rch_dev.ctxmaps[ctx], -1);
    free(rch_dev.ctxmaps[ctx].world_of);
    rch_dev.ctxmaps[ctx].world_of = copy;
    rch_dev.ctxmaps[ctx].size = size;
    count_maps(&rch_dev.ctxmaps[ctx], 1);
    return RDMACH_OK;
}

void rch_dev_ctx_unmap(uint32_t ctx)
{
    if (ctx < rch_dev.nctxmaps) {
        count_maps(&rch_dev.ctxmaps[ctx], -1);
        free(rch_dev.ctxmaps[ctx].world_of);
        rch_dev.ctxmaps[ctx].world_of = NULL;
        rch_dev.ctxmaps[ctx].size = 0;
    }
}

int rch_dev_ctx_world(uint32_t ctx, int src)
{
    if (ctx >= rch_dev.nctxmaps || src < 0 || src >= rch_dev.ctxmaps[ctx].size)
        return -1;
    return rch_dev.ctxmaps[ctx].world_of[src];
}
