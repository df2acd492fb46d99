/*
 * The progress engine.
 *
 * rch_dev_progress(): one bounded, non-blocking pass — poll every open
 * channel (arrivals run the packet handlers through the recv upcall), then
 * drain the peers' send queues. Returns the events handled.
 *
 * rch_dev_wait_until(): the adaptive wait, as phases:
 *   1. spin:  progress up to RDMACH_SPIN_COUNT times in a row with nothing
 *             happening (an rch_cpu_relax between polls) — the cheapest way to
 *             catch a reply that is a few hundred ns away;
 *   2. yield: then sched_yield() up to RDMACH_YIELD_COUNT times, polling
 *             between — another rank on this core may be the one we wait for;
 *   3. block: arm every channel's wait primitive (a channel answering AGAIN
 *             has work: back to polling), sleep on it (FUTEX_WAIT on the
 *             shared futex word, or poll() on fds), disarm, progress. With
 *             several channels the device asks each for an fd (want_fd:
 *             shared memory then sleeps on an eventfd its senders write,
 *             rdma/shm/shm_wakefd.c), so that one poll() covers them all.
 *   Any event resets the phases. A yield that kept the rank off its core
 *   longer than RDMACH_YIELD_LONG_US (500 us) asks whether processes other
 *   than the job's compete for the cores, and if so the rank takes a short
 *   scheduler slice for a while (slice.c): a CPU-bound neighbour otherwise
 *   costs every hop of a message its slice.
 * With more ranks than cores on the node (rch_dev.oversubscribed, decided at
 * init) phase 1 lasts RDMACH_SPIN_COUNT_OVERSUB polls, 0 by default: spinning
 * there only steals the core from the rank whose message we wait for; and a
 * rank blocks after RDMACH_YIELD_COUNT_OVERSUB yields (20, against 200 with a
 * core per rank): one that waits longer than a few hand-offs stops competing
 * for its core. rch_dev_wait (one request, the common case) does better when
 * it knows whom it waits for (wait_oversub):
 *   0. hand-off: a receive that nothing has matched yet yields once before
 *      anything else. The rank just sent (or computed) and now waits, so the
 *      rank that shares its core gets the core while the message travels: in
 *      a ring the next hop's receiver is on-core before its message arrives,
 *      and the context switch leaves the critical path;
 *   1. spin RDMACH_SPIN_COUNT_OVERSUB_PEER polls if the rank we wait for runs
 *      on another core (ranks are bound round-robin to cores by local rank)
 *      and at most two ranks share a core: the message comes from a running
 *      process, and being on-core when it lands saves a context switch. This
 *      is safe because the channel gives the core up as soon as a rank that
 *      shares it has work (shared memory: its `pending` flag, shm_msg.c).
 *      A partner on our own core, an unknown one (ANY_SOURCE, no binding) or
 *      more ranks per core: no spin;
 *   2. yield, 3. block, as for every wait.
 * Measured on the reference VM (2 vCPUs, other work on it): 4 ranks pass a
 * token round a ring in 1.6-5 us per hop so, 4.6-8 us without the spin (a
 * yield after every empty poll), Open MPI 3-16 us. A yield hand-off between
 * two processes of one core costs 2-3 us, a futex hand-off 4 us on one core
 * and 75-105 us across cores (hence the short yield phase before blocking:
 * 20 against 200 yields, 8-14 us per hop against 10-47 us when loaded).
 *
 * Blocking is bounded by a timeout (BLOCK_MS with one primitive, SHORT_MS when
 * several channels' primitives cannot be waited on together, or none exists,
 * or a channel that has one could not arm it) so a generalized request
 * completed by another thread is still seen, and so a sleeper wakes to check
 * that the peers it may wait for still live: each block() first runs the
 * device's check of the peers no channel watches (live.c), and arming the
 * shared-memory channel checks its own (rdma/shm/shm_live.c), both at most
 * every few tens of ms and at once after the launcher's SIGUSR1; a failure
 * found completes what waits on the peer, which ends the wait.
 *
 * rch_dev_wait_until_with() (dev.h) is the same wait with the caller's
 * phases. Every wait tests its condition once more after the channels are
 * armed, just before sleeping, so a condition another process sets in
 * shared memory before calling rch_dev_wake(us) (wake.c) is never slept
 * through: either the waker sees the `sleeping` flag our channel raised in
 * wait_arm and bumps the futex we are about to wait on, or we see its store.
 * Whichever test finds the condition true ends the wait there: a condition
 * is never tested again once it held (dev.h), since testing may consume
 * what it found (MPI_Mprobe's test takes the message it matches).
 *
 * MPI_THREAD_MULTIPLE (cs.h, rch_dev_cs_on): callers hold the global
 * critical section. Every wait then runs wait_mt — poll, hand the lock to a
 * thread that waits for it (rch_dev_cs_yield), spin, then sched_yield
 * between polls — and never blocks on a channel; rch_dev_progress yields the
 * lock after its pass too. Below MULTIPLE this costs one load and a branch
 * that is not taken, in rch_dev_wait folded into the oversubscribed test.
 */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "base/log.h"
#include "device/cs.h"
#include "device/dev_impl.h"
#include "device/stats.h"

#define POLL_MAX 64     /* completions per channel per pass */
#define DRAIN_MAX 64    /* queued packets per pass */
#define BLOCK_MS 100
#define SHORT_MS 1


/* Progress hooks (dev.h, added for the non-blocking collectives): called
 * after the channels on every pass. A hook never blocks and never calls back
 * into progress; `running` keeps a hook that posts sends (which may deliver
 * to self at once) from being re-entered. */
#define HOOK_MAX 8
static struct { rch_dev_progress_fn fn; void *arg; } hooks[HOOK_MAX];
static int nhooks, running;

rdmach_status_t rch_dev_progress_hook_add(rch_dev_progress_fn fn, void *arg)
{
    if (nhooks == HOOK_MAX)
        return rch_base_err(RDMACH_ERR_BUSY, "device: all %d progress hooks are taken", HOOK_MAX);
    hooks[nhooks].fn = fn;
    hooks[nhooks].arg = arg;
    nhooks++;
    return RDMACH_OK;
}

void rch_dev_progress_hook_remove(rch_dev_progress_fn fn, void *arg)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i].fn == fn && hooks[i].arg == arg) {
            hooks[i] = hooks[--nhooks];
            return;
        }
}

static __attribute__((noinline)) unsigned run_hooks(void)
{
    unsigned n = 0;
    running = 1;
    for (int i = 0; i < nhooks; i++)
        n += hooks[i].fn(hooks[i].arg);
    running = 0;
    return n;
}

/* Inline in the wait loops: a waiting rank runs it back to back, so its
 * length is part of how late a message is seen. */
static inline unsigned progress_once(void)
{
    unsigned n = 0;
    const struct rch_dev_chan *c = rch_dev.chans, *end = c + rch_dev.nchans;
    for (; c < end; c++)
        n += c->ops->progress(c->chan, POLL_MAX);
    if (RCH_UNLIKELY(rch_dev.active != NULL))
        n += rch_dev_drain(DRAIN_MAX);
    if (RCH_UNLIKELY(nhooks) && !running)
        n += run_hooks();
    return n;
}

/* At MPI_THREAD_MULTIPLE every caller of rch_dev_progress is between polls
 * (a Test, an Iprobe, a loop waiting for a flag, a lock word, a barrier):
 * a thread that waits for the critical section gets it here (cs.h). */
/* Polling waits (a Test loop, MULTIPLE's wait_mt) never reach block():
 * every LIVE_IDLE empty passes they check the peers no channel watches
 * (live.c, itself rate-limited by time). */
#define LIVE_IDLE 4096u
static unsigned idle_passes;

static inline void idle_pass(unsigned n)
{
    if (n == 0 && RCH_UNLIKELY(++idle_passes % LIVE_IDLE == 0))
        rch_dev_live_check();
}

unsigned rch_dev_progress(void)
{
    unsigned n = progress_once();
    idle_pass(n);
    if (RCH_UNLIKELY(rch_dev_cs_on))
        rch_dev_cs_yield();
    return n;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void futex_wait(volatile uint32_t *word, uint32_t val, int ms)
{
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
    /* Shared (not FUTEX_PRIVATE): the word lives in memory mapped by several processes. */
    if (syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0) != 0 && errno != EAGAIN &&
        errno != EINTR && errno != ETIMEDOUT)
        RCH_DEBUG("dev", "futex wait: errno %d", errno);
}

/* How a wait idles: its phases, and the condition block() tests after arming. */
struct idle_policy {
    int spin, yield;                /* empty polls, then yields, before blocking */
    int block_ms;                   /* longest sleep on a primitive, <= BLOCK_MS */
    rch_dev_done_fn done;
    void *arg;
};

/* Sleep on the armed primitives w[0..narmed) for at most `ms`. */
static void sleep_on(const struct rch_rdma_wait *w, int narmed, int ms)
{
    if (narmed == 0) {
        sleep_ms(SHORT_MS);
    } else if (narmed == 1 && w[0].futex != NULL && w[0].fd < 0) {
        futex_wait(w[0].futex, w[0].futex_val, ms);
    } else {
        struct pollfd pfd[RCH_DEV_MAX_CHANS];
        int nfd = 0, nfutex = 0;
        for (int k = 0; k < narmed; k++) {
            if (w[k].fd >= 0)
                pfd[nfd++] = (struct pollfd){ .fd = w[k].fd, .events = POLLIN };
            else if (w[k].futex)
                nfutex++;
        }
        if (nfutex == 0) {
            poll(pfd, (nfds_t)nfd, ms);
        } else if (nfd == 0 && nfutex == 1) {
            for (int k = 0; k < narmed; k++)
                if (w[k].futex)
                    futex_wait(w[k].futex, w[k].futex_val, ms);
        } else if (nfd > 0) {
            poll(pfd, (nfds_t)nfd, SHORT_MS);   /* futexes cannot join a poll: wake often */
        } else {
            for (int k = 0; k < narmed; k++)
                if (w[k].futex) {
                    futex_wait(w[k].futex, w[k].futex_val, SHORT_MS);
                    break;
                }
        }
    }
}

/* Phase 3: sleep until a channel signals (or a timeout). A channel that has a
 * primitive but could not arm it (an error, not AGAIN) is polled every
 * SHORT_MS instead of being left unwatched for a whole BLOCK_MS. 1 if
 * ip->done held (tested here, before and after arming): the wait is over,
 * and done must not be asked again (dev.h: it may take what it found). */
static int block(const struct idle_policy *ip)
{
    struct rch_rdma_wait w[RCH_DEV_MAX_CHANS];
    int armed[RCH_DEV_MAX_CHANS];
    int narmed = 0, unarmed = 0, done = 0;
    rch_dev_live_check();     /* peers no channel watches (live.c); a failure ends the wait below */
    if (ip->done && ip->done(ip->arg))
        return 1;
    int nwait = 0;     /* more than one: a channel that can sleep on an fd does (want_fd) */
    for (int i = 0; i < rch_dev.nchans; i++)
        nwait += rch_dev.chans[i].can_wait != 0;
    for (int i = 0; i < rch_dev.nchans; i++) {
        struct rch_dev_chan *dc = &rch_dev.chans[i];
        if (!dc->can_wait)
            continue;
        w[narmed] = (struct rch_rdma_wait){ .fd = -1, .futex = NULL, .futex_val = 0, .want_fd = nwait > 1 };
        rdmach_status_t st = dc->ops->wait_arm(dc->chan, &w[narmed]);
        if (st == RDMACH_AGAIN) {
            for (int k = 0; k < narmed; k++)
                rch_dev.chans[armed[k]].ops->wait_disarm(rch_dev.chans[armed[k]].chan);
            return 0;   /* something arrived meanwhile */
        }
        if (st == RDMACH_OK)
            armed[narmed++] = i;
        else
            unarmed++;
    }
    if (ip->done)
        done = ip->done(ip->arg);
    if (!done) {
        double t0 = rch_base_wtime();
        sleep_on(w, narmed, unarmed ? SHORT_MS : ip->block_ms);
        rch_dev_stat.blocks++;
        rch_dev_stat.blocked_seconds += rch_base_wtime() - t0;
    }
    for (int k = 0; k < narmed; k++)
        rch_dev.chans[armed[k]].ops->wait_disarm(rch_dev.chans[armed[k]].chan);
    return done;
}

/* The phases after the spin (yield, then block); `spins` counts empty polls.
 * 1 if block() found ip->done holding (the caller returns at once). */
static __attribute__((noinline)) int idle_step(int *spins, int *yields, const struct idle_policy *ip)
{
    if (*spins < ip->spin) {
        ++*spins;
        rch_cpu_relax();
    } else if (*yields < ip->yield) {
        ++*yields;
        int timed = rch_dev.yield_long > 0;   /* the clock only when RDMACH_YIELD_LONG_US is set */
        double t0 = timed ? rch_base_wtime() : 0;
        sched_yield();
        if (timed && rch_base_wtime() - t0 > rch_dev.yield_long)
            rch_dev_slice_long_yield();   /* slice.c */
    } else {
        return block(ip);
    }
    return 0;
}

/* idle_step of rch_dev_wait, whose policy is only built once it stops spinning. */
static __attribute__((noinline)) void idle_step_req(int *spins, int *yields, struct rch_dev_req *req);

/* The wait at MPI_THREAD_MULTIPLE (cs.h): poll holding the critical
 * section, hand it to any thread that waits for it between polls, spin
 * ip->spin empty polls, then sched_yield between polls; never block on the
 * channels (see the top of cs.h for why). */
static __attribute__((noinline)) rdmach_status_t wait_mt(const struct idle_policy *ip)
{
    int spins = 0;
    for (;;) {
        unsigned n = progress_once();
        if (ip->done(ip->arg))
            return RDMACH_OK;
        idle_pass(n);
        rch_dev_cs_yield();
        if (n) {
            spins = 0;
        } else if (spins < ip->spin) {
            spins++;
            rch_cpu_relax();
        } else {
            sched_yield();
        }
    }
}

static rdmach_status_t wait_with(const struct idle_policy *ip)
{
    if (ip->done(ip->arg))
        return RDMACH_OK;
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "wait: the device is not initialized");
    if (RCH_UNLIKELY(rch_dev_cs_on))
        return wait_mt(ip);
    int spins = 0, yields = 0;
    for (;;) {
        unsigned n = progress_once();
        if (ip->done(ip->arg))
            break;
        if (n)
            spins = yields = 0;
        else if (idle_step(&spins, &yields, ip))
            break;
    }
    rch_dev_slice_end();
    return RDMACH_OK;
}

rdmach_status_t rch_dev_wait_until(rch_dev_done_fn done, void *arg)
{
    const struct idle_policy ip = { rch_dev.spin_count, rch_dev.yield_count, BLOCK_MS, done, arg };
    return wait_with(&ip);
}

rdmach_status_t rch_dev_wait_until_with(rch_dev_done_fn done, void *arg, const struct rch_dev_wait_policy *pol)
{
    struct idle_policy ip = { rch_dev.spin_count, rch_dev.yield_count, BLOCK_MS, done, arg };
    if (pol) {
        if (pol->spin >= 0)
            ip.spin = pol->spin;
        if (pol->yield >= 0)
            ip.yield = pol->yield;
        if (pol->block_ms > 0 && pol->block_ms < BLOCK_MS)
            ip.block_ms = pol->block_ms;
    }
    return wait_with(&ip);
}

static int req_done(void *arg)
{
    return __atomic_load_n(&((struct rch_dev_req *)arg)->done, __ATOMIC_ACQUIRE);
}

static void idle_step_req(int *spins, int *yields, struct rch_dev_req *req)
{
    const struct idle_policy ip = { rch_dev.spin_count, rch_dev.yield_count, BLOCK_MS, req_done, req };
    idle_step(spins, yields, &ip);
}

/* Oversubscribed: does the rank that r waits for run on another core? 0 if
 * it shares ours, or if we cannot tell. */
static int partner_elsewhere(const struct rch_dev_ireq *r)
{
    int w = r->pub.kind == RCH_DEV_REQ_RECV && r->state == RCH_DEV_S_RECV_POSTED
                ? (r->me.src == RCH_DEV_ANY_SOURCE ? -1 : rch_dev_ctx_world(r->me.ctx, r->me.src))
                : r->peer;
    if (w < 0 || w >= rch_dev.size || rch_dev.cores <= 0 || rch_boot.bound_core < 0)
        return 0;
    int lo = 0, hi = rch_boot.local_size - 1;        /* its local index (local_ranks ascend) */
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (rch_boot.local_ranks[mid] == w)
            return mid % rch_dev.cores != rch_boot.local_rank % rch_dev.cores;
        if (rch_boot.local_ranks[mid] < w)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;                                        /* another node: not our core's business */
}

/* rch_dev_wait on a node with more ranks than cores (see the top). */
static __attribute__((noinline)) rdmach_status_t wait_oversub(struct rch_dev_ireq *r)
{
    const struct idle_policy ip = { 0, rch_dev.yield_count, BLOCK_MS, req_done, &r->pub };
    int handoff = r->pub.kind == RCH_DEV_REQ_RECV && r->state == RCH_DEV_S_RECV_POSTED;
    int spin_max = rch_dev.oversub_peer_spin > 0 && partner_elsewhere(r) ? rch_dev.oversub_peer_spin : 0;
    int spins = 0, yields = 0;
    for (;;) {
        unsigned n = progress_once();
        if (__atomic_load_n(&r->pub.done, __ATOMIC_ACQUIRE)) {
            rch_dev_slice_end();
            return RDMACH_OK;
        }
        if (n) {
            spins = yields = 0;
        } else if (handoff) {
            handoff = 0;
            sched_yield();
        } else if (spins < spin_max) {
            spins++;
            rch_cpu_relax();
        } else {
            idle_step(&spins, &yields, &ip);
        }
    }
}

/* rch_dev_wait off the common path: MPI_THREAD_MULTIPLE, or oversubscribed. */
static __attribute__((noinline)) rdmach_status_t wait_special(struct rch_dev_ireq *r)
{
    if (rch_dev_cs_on) {
        const struct idle_policy ip = { rch_dev.spin_count, 0, 0, req_done, &r->pub };
        return wait_mt(&ip);
    }
    return wait_oversub(r);
}

/* rch_dev_wait_until for one request, without the indirect call. The spin
 * phase is inline: one pass is progress, a load of `done`, a pause. */
rdmach_status_t rch_dev_wait(struct rch_dev_req *req)
{
    if (req == NULL || __atomic_load_n(&req->done, __ATOMIC_ACQUIRE))
        return RDMACH_OK;
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "wait: the device is not initialized");
    if (RCH_UNLIKELY(rch_dev.oversubscribed | rch_dev_cs_on))
        return wait_special((struct rch_dev_ireq *)req);
    int spins = 0, yields = 0;
    for (;;) {
        unsigned n = progress_once();
        if (__atomic_load_n(&req->done, __ATOMIC_ACQUIRE)) {
            rch_dev_slice_end();
            return RDMACH_OK;
        }
        if (n) {
            spins = yields = 0;
        } else if (RCH_LIKELY(spins < rch_dev.spin_count)) {
            spins++;
            rch_cpu_relax();
        } else {
            idle_step_req(&spins, &yields, req);
        }
    }
}
