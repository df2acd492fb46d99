/*
 * The toggle-write-read protocol (barrier_twr.h), whatever the wire, and
 * the measurement of the cost model t_b = o_w + o_p(P) + o_r.
 *
 * Measuring: with measurement on, each barrier reads a cycle counter
 * (rdtscp on x86-64, CLOCK_MONOTONIC elsewhere) around the write (o_w),
 * around the settle step (o_p, counted only when that settle flipped the
 * state: the last writer's, the one on the critical path), around the read
 * that saw IN toggle (o_r), and around the whole barrier. The counter's
 * own cost (the least of a few back-to-back reads) is taken off every
 * interval, and ticks are converted to ns by a calibration against the
 * monotonic clock made when measuring starts. With measurement off no
 * counter is read.
 *
 * Besides the sums, up to SAMPLES of each interval are kept, and their
 * medians are reported too: on a loaded machine a rank is now and then
 * descheduled in the middle of a barrier, and one such barrier moves a mean
 * more than thousands of ordinary ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/base.h"
#include "coll/barrier_twr.h"
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define SAMPLES (1 << 16)

static int measuring;
static double ns_per_tick = 1.0;
static uint64_t overhead;      /* ticks of one counter read pair */
static struct rch_coll_twr_stats stats;

/* Samples of one interval (ns). */
struct samples {
    float *v;
    unsigned n;
};
static struct samples s_write, s_settle, s_read, s_barrier;

static void sample(struct samples *s, double ns)
{
    if (s->v && s->n < SAMPLES)
        s->v[s->n++] = (float)ns;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static double median(const struct samples *s)
{
    if (!s->v || s->n == 0)
        return 0.0;
    float *c = malloc(s->n * sizeof(float));
    if (!c)
        return 0.0;
    memcpy(c, s->v, s->n * sizeof(float));
    qsort(c, s->n, sizeof(float), cmp_float);
    double m = s->n % 2 ? c[s->n / 2] : 0.5 * ((double)c[s->n / 2 - 1] + c[s->n / 2]);
    free(c);
    return m;
}

static void samples_reset(struct samples *s)
{
    if (!s->v)
        s->v = malloc(SAMPLES * sizeof(float));   /* NULL: sums only */
    s->n = 0;
}

static inline uint64_t ticks(void)
{
#if defined(__x86_64__)
    unsigned aux;
    return __rdtscp(&aux);     /* waits for the instructions before it */
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

static inline double span(uint64_t t0, uint64_t t1)
{
    uint64_t d = t1 - t0;
    return (d > overhead ? (double)(d - overhead) : 0.0) * ns_per_tick;
}

static void calibrate(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 64; i++) {
        uint64_t a = ticks(), b = ticks();
        if (b - a < best)
            best = b - a;
    }
    overhead = best;
#if defined(__x86_64__)
    uint64_t n0 = rch_base_now_ns(), t0 = ticks(), n1, t1;
    do {
        n1 = rch_base_now_ns();
    } while (n1 - n0 < 5000000);   /* 5 ms */
    t1 = ticks();
    ns_per_tick = t1 > t0 ? (double)(n1 - n0) / (double)(t1 - t0) : 1.0;
#else
    ns_per_tick = 1.0;
#endif
}

void rch_coll_twr_measure(int on)
{
    if (on) {
        calibrate();
        memset(&stats, 0, sizeof(stats));
        samples_reset(&s_write);
        samples_reset(&s_settle);
        samples_reset(&s_read);
        samples_reset(&s_barrier);
    }
    measuring = on;
}

void rch_coll_twr_get_stats(struct rch_coll_twr_stats *out)
{
    *out = stats;
}

void rch_coll_twr_init(struct rch_coll_twr *t, const struct rch_coll_twr_wire_ops *ops, void *wire,
                       int ranks)
{
    t->ops = ops;
    t->wire = wire;
    t->out = 0;
    t->ranks = ranks;
}

/* The start of the barrier being measured (enter to the end of wait). */
static uint64_t t_enter;

rdmach_status_t rch_coll_twr_enter(struct rch_coll_twr *t)
{
    t->out ^= 1u;
    if (RCH_LIKELY(!measuring)) {
        rdmach_status_t st = t->ops->write(t->wire, t->out);
        if (st == RDMACH_OK)
            t->ops->settle(t->wire);
        return st;
    }
    uint64_t t0 = ticks();
    rdmach_status_t st = t->ops->write(t->wire, t->out);
    uint64_t t1 = ticks();
    if (st != RDMACH_OK)
        return st;
    int flipped = t->ops->settle(t->wire);
    uint64_t t2 = ticks();
    t_enter = t0;
    stats.write_ns += span(t0, t1);
    sample(&s_write, span(t0, t1));
    if (flipped) {
        stats.flips++;
        stats.settle_ns += span(t1, t2);
        sample(&s_settle, span(t1, t2));
    }
    return RDMACH_OK;
}

rdmach_status_t rch_coll_twr_wait(struct rch_coll_twr *t)
{
    unsigned in = 0, polls = 0;
    uint64_t r0 = 0, r1 = 0;
    for (;;) {
        if (RCH_UNLIKELY(measuring))
            r0 = ticks();
        rdmach_status_t st = t->ops->read(t->wire, &in);
        if (RCH_UNLIKELY(measuring))
            r1 = ticks();
        if (st != RDMACH_OK)
            return st;
        if (in == t->out)
            break;
        t->ops->idle(t->wire, t->out, ++polls);
    }
    if (RCH_UNLIKELY(measuring)) {
        stats.barriers++;
        stats.read_ns += span(r0, r1);
        stats.barrier_ns += span(t_enter, r1);
        sample(&s_read, span(r0, r1));
        sample(&s_barrier, span(t_enter, r1));
        stats.ranks = t->ranks;
    }
    return RDMACH_OK;
}

/* ---- the native API's view of it (rdmach.h) ---- */

RDMACH_API void rdmach_barrier_model_measure(int on)
{
    rch_coll_twr_measure(on);
}

RDMACH_API void rdmach_barrier_model_get(struct rdmach_barrier_model *out)
{
    out->barriers = stats.barriers;
    out->flips = stats.flips;
    out->write_ns = stats.write_ns;
    out->settle_ns = stats.settle_ns;
    out->read_ns = stats.read_ns;
    out->barrier_ns = stats.barrier_ns;
    out->ranks = stats.ranks;
    out->write_med_ns = median(&s_write);
    out->settle_med_ns = median(&s_settle);
    out->read_med_ns = median(&s_read);
    out->barrier_med_ns = median(&s_barrier);
}
