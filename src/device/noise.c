/* The noise injector (see noise.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "base/base.h"
#include "base/duration.h"
#include "base/log.h"
#include "base/tunables.h"
#include "device/noise.h"

/* One injector per process: the handler reads it, so it is written only while
 * the timer is disarmed. */
static struct {
    struct rch_dev_noise_cfg cfg;
    int armed;                 /* timer created */
    int rank;
    int64_t phase;             /* of the expiries on CLOCK_REALTIME, in [0, period) */
    timer_t timer;
    struct sigaction old;
    volatile uint64_t count;   /* written by the handler only */
} noise;

static rdmach_status_t bad(const char *text, const char *why)
{
    return rch_base_err(RDMACH_ERR_CONFIG,
                        "RDMACH_NOISE: '%s' is not valid (%s); expected period,duration[,sync|unsync][,ranks], "
                        "e.g. 1ms,50us or 10ms,200us,unsync,0-3,8", text, why);
}

/* Is `rank` in "a-b,c,..."? -1 if the list is malformed or names a rank >= size. */
static int in_list(const char *list, int rank, int size)
{
    int hit = 0;
    const char *p = list;
    while (*p) {
        char *e;
        long lo = strtol(p, &e, 10), hi;
        if (e == p || lo < 0)
            return -1;
        hi = lo;
        if (*e == '-') {
            p = e + 1;
            hi = strtol(p, &e, 10);
            if (e == p || hi < lo)
                return -1;
        }
        if (hi >= size)
            return -1;
        hit |= rank >= lo && rank <= hi;
        if (*e == ',')
            e++;
        else if (*e)
            return -1;
        p = e;
    }
    return hit;
}

rdmach_status_t rch_dev_noise_parse(const char *text, int rank, int size, struct rch_dev_noise_cfg *cfg)
{
    const char *p;
    memset(cfg, 0, sizeof(*cfg));
    cfg->period = rch_base_parse_ns(text, &p);
    if (cfg->period < 0)
        return bad(text, "the period must be a duration with a unit: ns, us, ms or s");
    if (*p != ',')
        return bad(text, "a duration must follow the period after a comma");
    cfg->duration = rch_base_parse_ns(p + 1, &p);
    if (cfg->duration < 0 || (*p && *p != ','))
        return bad(text, "the duration must be a duration with a unit: ns, us, ms or s");
    if (cfg->period < 10000)
        return bad(text, "the period must be at least 10us");
    if (cfg->duration <= 0 || cfg->duration >= cfg->period)
        return bad(text, "the duration must be above 0 and below the period");
    cfg->sync = 1;
    if (*p == ',') {
        p++;
        if (!strncmp(p, "sync", 4) && (p[4] == ',' || !p[4]))
            p += 4;
        else if (!strncmp(p, "unsync", 6) && (p[6] == ',' || !p[6]))
            p += 6, cfg->sync = 0;
        else if (*p < '0' || *p > '9')
            return bad(text, "the third field must be sync, unsync or a list of ranks");
        if (*p == ',')
            p++;
    }
    if (strlen(p) >= sizeof(cfg->ranks))
        return bad(text, "the list of ranks is too long");
    strcpy(cfg->ranks, p);
    if (!*p || !strcmp(p, "all")) {
        cfg->on_me = 1;
        return RDMACH_OK;
    }
    cfg->on_me = in_list(p, rank, size);
    if (cfg->on_me < 0)
        return bad(text, "the ranks must be a list like 0-3,7 of ranks below the job's size");
    return RDMACH_OK;
}

static int64_t now_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The detour: busy on the rank's own thread until `duration` after the
 * expiry, so that the kernel's share (the timer interrupt, the signal's
 * delivery) is part of the detour rather than added to it; a handler that
 * runs later than that (the rank was preempted) returns at once. Both clocks
 * are vDSO reads and async-signal-safe. */
static void on_tick(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (si->si_code != SI_TIMER)
        return;
    int saved = errno;
    int64_t per = noise.cfg.period, now = now_ns(CLOCK_REALTIME);
    int64_t expiry = (now - noise.phase) / per * per + noise.phase;
    int64_t end = now_ns(CLOCK_MONOTONIC) + (expiry + noise.cfg.duration - now);
    while (now_ns(CLOCK_MONOTONIC) < end)
        rch_cpu_relax();
    noise.count++;
    errno = saved;
}

/* The first expiry: the next multiple of the period on the realtime clock
 * (the same instants on every rank and, with synchronised clocks, node),
 * plus a random phase per rank if unsynchronised. */
static struct itimerspec schedule(void)
{
    int64_t per = noise.cfg.period, t = now_ns(CLOCK_REALTIME), first = (t / per + 1) * per;
    noise.phase = 0;
    if (!noise.cfg.sync) {
        uint64_t h = (uint64_t)noise.rank * 0x9E3779B97F4A7C15ULL ^ (uint64_t)t ^ ((uint64_t)getpid() << 32);
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 32;
        noise.phase = (int64_t)(h % (uint64_t)per);
        first += noise.phase;
    }
    return (struct itimerspec){
        .it_interval = { per / 1000000000, per % 1000000000 },
        .it_value = { first / 1000000000, first % 1000000000 },
    };
}

rdmach_status_t rch_dev_noise_enable(int on)
{
    if (!noise.armed)
        return RDMACH_OK;
    struct itimerspec its = { 0 };
    if (on)
        its = schedule();
    if (timer_settime(noise.timer, on ? TIMER_ABSTIME : 0, &its, NULL) != 0)
        return rch_base_errno(errno, "RDMACH_NOISE: timer_settime");
    return RDMACH_OK;
}

rdmach_status_t rch_dev_noise_start(int rank, int size)
{
    if (!rch_tun.noise[0])
        return RDMACH_OK;
    rdmach_status_t st = rch_dev_noise_parse(rch_tun.noise, rank, size, &noise.cfg);
    if (st != RDMACH_OK || !noise.cfg.on_me)
        return st;
    noise.rank = rank;
    struct sigaction sa = { .sa_sigaction = on_tick, .sa_flags = SA_SIGINFO | SA_RESTART };
    sigemptyset(&sa.sa_mask);
    if (sigaction(RCH_DEV_NOISE_SIGNAL, NULL, &noise.old) != 0)
        return rch_base_errno(errno, "RDMACH_NOISE: sigaction");
    if (noise.old.sa_handler != SIG_DFL && noise.old.sa_handler != SIG_IGN)
        return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_NOISE: signal SIGRTMIN+%d, which the injector needs, "
                            "already has a handler in this program", RCH_DEV_NOISE_SIGNAL - SIGRTMIN);
    if (sigaction(RCH_DEV_NOISE_SIGNAL, &sa, NULL) != 0)
        return rch_base_errno(errno, "RDMACH_NOISE: sigaction");
    struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = RCH_DEV_NOISE_SIGNAL };
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_REALTIME, &sev, &noise.timer) != 0) {
        int err = errno;
        sigaction(RCH_DEV_NOISE_SIGNAL, &noise.old, NULL);
        return rch_base_errno(err, "RDMACH_NOISE: timer_create");
    }
    noise.armed = 1;
    RCH_INFO("noise", "injecting %lld ns every %lld ns (%s)", (long long)noise.cfg.duration,
             (long long)noise.cfg.period, noise.cfg.sync ? "sync" : "unsync");
    return rch_dev_noise_enable(1);
}

void rch_dev_noise_stop(void)
{
    if (!noise.armed)
        return;
    timer_delete(noise.timer);
    sigaction(RCH_DEV_NOISE_SIGNAL, &noise.old, NULL);
    noise.armed = 0;
}

const struct rch_dev_noise_cfg *rch_dev_noise_config(void)
{
    return rch_tun.noise[0] && noise.cfg.period ? &noise.cfg : NULL;
}

uint64_t rch_dev_noise_count(void)
{
    return noise.count;
}

int64_t rch_dev_noise_phase(void)
{
    return noise.phase;
}
