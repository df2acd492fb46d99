/*
 * The progress engine.
 *
 * rch_dev_progress(): one bounded, non-blocking pass — poll every open
 * channel (arrivals run the packet handlers through the recv upcall), then
 * drain the peers' send queues. Returns the events handled.
 *
 * rch_dev_wait_until(): the adaptive wait, as phases:
 *   1. spin:  progress up to RDMACH_SPIN_COUNT times in a row with nothing
 *             happening (a cpu_relax between polls) — the cheapest way to
 *             catch a reply that is a few hundred ns away;
 *   2. yield: then sched_yield() up to RDMACH_YIELD_COUNT times, polling
 *             between — another rank on this core may be the one we wait for;
 *   3. block: arm every channel's wait primitive (a channel answering AGAIN
 *             has work: back to polling), sleep on it (FUTEX_WAIT on the
 *             shared futex word, or poll() on fds), disarm, progress.
 *   Any event resets the phases.
 * With more ranks than cores on the node (rch_dev.oversubscribed, decided at
 * init) phase 1 lasts RDMACH_SPIN_COUNT_OVERSUB polls, 0 by default: spinning
 * there only steals the core from the rank whose message we wait for, and a
 * yield costs about a microsecond.
 *
 * Blocking is bounded by a timeout (BLOCK_MS with one primitive, SHORT_MS when
 * several channels' primitives cannot be waited on together, or none exists)
 * so a generalized request completed by another thread is still seen.
 */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "base/log.h"
#include "device/dev_impl.h"

#define POLL_MAX 64     /* completions per channel per pass */
#define DRAIN_MAX 64    /* queued packets per pass */
#define BLOCK_MS 100
#define SHORT_MS 1

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* Progress hooks (dev.h, added for the non-blocking collectives): called
 * after the channels on every pass. A hook never blocks and never calls back
 * into progress; `running` keeps a hook that posts sends (which may deliver
 * to self at once) from being re-entered. */
#define HOOK_MAX 4
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

unsigned rch_dev_progress(void)
{
    unsigned n = 0;
    for (int i = 0; i < rch_dev.nchans; i++)
        n += rch_dev.chans[i].ops->progress(rch_dev.chans[i].chan, POLL_MAX);
    if (rch_dev.active)
        n += rch_dev_drain(DRAIN_MAX);
    if (RCH_UNLIKELY(nhooks) && !running) {
        running = 1;
        for (int i = 0; i < nhooks; i++)
            n += hooks[i].fn(hooks[i].arg);
        running = 0;
    }
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

/* Phase 3: sleep until a channel signals (or a timeout). */
static void block(void)
{
    struct rch_rdma_wait w[RCH_DEV_MAX_CHANS];
    int armed[RCH_DEV_MAX_CHANS];
    int narmed = 0;
    for (int i = 0; i < rch_dev.nchans; i++) {
        struct rch_dev_chan *dc = &rch_dev.chans[i];
        if (!dc->can_wait)
            continue;
        w[narmed] = (struct rch_rdma_wait){ .fd = -1, .futex = NULL, .futex_val = 0 };
        rdmach_status_t st = dc->ops->wait_arm(dc->chan, &w[narmed]);
        if (st == RDMACH_AGAIN) {
            for (int k = 0; k < narmed; k++)
                rch_dev.chans[armed[k]].ops->wait_disarm(rch_dev.chans[armed[k]].chan);
            return;   /* something arrived meanwhile */
        }
        if (st == RDMACH_OK)
            armed[narmed++] = i;
    }

    if (narmed == 0) {
        sleep_ms(SHORT_MS);
    } else if (narmed == 1 && w[0].futex != NULL && w[0].fd < 0) {
        futex_wait(w[0].futex, w[0].futex_val, BLOCK_MS);
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
            poll(pfd, (nfds_t)nfd, BLOCK_MS);
        } else if (nfd == 0 && nfutex == 1) {
            for (int k = 0; k < narmed; k++)
                if (w[k].futex)
                    futex_wait(w[k].futex, w[k].futex_val, BLOCK_MS);
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
    for (int k = 0; k < narmed; k++)
        rch_dev.chans[armed[k]].ops->wait_disarm(rch_dev.chans[armed[k]].chan);
}

rdmach_status_t rch_dev_wait_until(rch_dev_done_fn done, void *arg)
{
    if (done(arg))
        return RDMACH_OK;
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "wait: the device is not initialized");
    int spins = 0, yields = 0;
    const int spin_max = rch_dev.spin_count, yield_max = rch_dev.yield_count;
    for (;;) {
        unsigned n = rch_dev_progress();
        if (done(arg))
            return RDMACH_OK;
        if (n) {
            spins = yields = 0;
        } else if (spins < spin_max) {
            spins++;
            cpu_relax();
        } else if (yields < yield_max) {
            yields++;
            sched_yield();
        } else {
            block();
        }
    }
}

static int req_done(void *arg)
{
    return __atomic_load_n(&((struct rch_dev_req *)arg)->done, __ATOMIC_ACQUIRE);
}

rdmach_status_t rch_dev_wait(struct rch_dev_req *req)
{
    if (req == NULL || __atomic_load_n(&req->done, __ATOMIC_ACQUIRE))
        return RDMACH_OK;
    return rch_dev_wait_until(req_done, req);
}
