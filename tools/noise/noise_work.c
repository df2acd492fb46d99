/* The work loop of rdmach-noise (see noise_work.h). */
#include <stdlib.h>
#include <time.h>
#include "noise_work.h"

int64_t noise_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* A chain of dependent multiply-adds (an LCG): the compiler cannot shorten
 * it, and its speed does not depend on memory. */
static uint64_t sink;
static void work(uint64_t units)
{
    uint64_t x = sink;
    for (uint64_t i = 0; i < units; i++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    __atomic_store_n(&sink, x, __ATOMIC_RELAXED);
}

static int64_t min_chunk_time(uint64_t units, int trials)
{
    int64_t best = INT64_MAX;
    for (int i = 0; i < trials; i++) {
        int64_t t0 = noise_now();
        work(units);
        int64_t dt = noise_now() - t0;
        if (dt < best)
            best = dt;
    }
    return best;
}

void noise_calibrate(int64_t target_ns, struct noise_calib *c)
{
    /* the rate from a long-enough chunk, the chunk cost (with its clock
     * reading) from the minimum over many back-to-back chunks */
    uint64_t probe = 4096;
    int64_t t = min_chunk_time(probe, 200);
    double per_ns = (double)probe / (double)(t > 0 ? t : 1);
    c->chunk_units = (uint64_t)(per_ns * (double)target_ns);
    if (c->chunk_units < 16)
        c->chunk_units = 16;
    int64_t best = INT64_MAX, prev = noise_now();
    for (int i = 0; i < 2000; i++) {
        work(c->chunk_units);
        int64_t now = noise_now();
        if (now - prev < best)
            best = now - prev;
        prev = now;
    }
    c->chunk_ns = best;
    c->units_per_us = (double)c->chunk_units * 1e3 / (double)best;
}

int noise_run_alloc(struct noise_run *r, size_t detour_cap)
{
    r->q_cap = (size_t)(r->duration_ns / r->quantum_ns) + 16;
    r->q_start = malloc(r->q_cap * sizeof(int64_t));
    r->q_val = malloc(r->q_cap * sizeof(int64_t));
    struct noise_detour *d = malloc(detour_cap * sizeof(*d));
    if (!r->q_start || !r->q_val || !d) {
        free(d);
        noise_run_free(r);
        return -1;
    }
    r->chunks_per_quantum = (uint64_t)(r->quantum_ns / r->cal.chunk_ns);
    if (r->chunks_per_quantum == 0)
        r->chunks_per_quantum = 1;
    noise_finder_init(&r->det, r->cal.chunk_ns, r->threshold_ns, 0, d, detour_cap);
    return 0;
}

void noise_run_free(struct noise_run *r)
{
    free(r->q_start);
    free(r->q_val);
    free(r->det.d);
    r->q_start = r->q_val = NULL;
    r->det.d = NULL;
}

void noise_run_measure(struct noise_run *r)
{
    struct timespec rt;
    int64_t t0 = noise_now(), end = t0 + r->duration_ns, now = t0;
    clock_gettime(CLOCK_REALTIME, &rt);
    r->real_t0 = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
    uint64_t units = r->cal.chunk_units;
    r->det.t0 = r->det.prev = t0;
    r->nq = 0;
    if (r->mode == NOISE_FWQ) {
        while (now < end && r->nq < r->q_cap) {
            int64_t qs = now;
            for (uint64_t c = 0; c < r->chunks_per_quantum; c++) {
                work(units);
                now = noise_now();
                noise_finder_tick(&r->det, now);
            }
            r->q_start[r->nq] = qs - t0;
            r->q_val[r->nq++] = now - qs;
        }
    } else {
        /* FTQ: quanta on a fixed grid; a chunk counts for the quantum it ends in */
        int64_t qend = t0 + r->quantum_ns;
        uint64_t done = 0;
        while (now < end && r->nq < r->q_cap) {
            work(units);
            now = noise_now();
            noise_finder_tick(&r->det, now);
            done++;
            while (now >= qend && r->nq < r->q_cap) {
                r->q_start[r->nq] = qend - r->quantum_ns - t0;
                r->q_val[r->nq++] = (int64_t)done * r->cal.chunk_ns;
                done = 0;
                qend += r->quantum_ns;
            }
        }
    }
    r->span = now - t0;
}
