/*
 * The measurement of rdmach-noise: a work loop cut into chunks of ~1 us with
 * a clock reading after each, so that every detour is seen with its start and
 * length (the "selfish detour" method) while the chunks add up to the fixed
 * work quanta (FWQ) or are counted per fixed time quantum (FTQ).
 */
#ifndef NOISE_WORK_H
#define NOISE_WORK_H

#include <stdint.h>
#include "noise_stats.h"

enum noise_mode { NOISE_FWQ, NOISE_FTQ };

struct noise_calib {
    uint64_t chunk_units;   /* work units in one chunk */
    int64_t chunk_ns;       /* noise-free time of a chunk and its clock reading */
    double units_per_us;
};

struct noise_run {
    enum noise_mode mode;
    int64_t quantum_ns, duration_ns, threshold_ns;
    struct noise_calib cal;
    uint64_t chunks_per_quantum;   /* FWQ */
    /* results */
    int64_t *q_start, *q_val;      /* per quantum: start, and FWQ time or FTQ work done (ns) */
    size_t nq, q_cap;
    struct noise_finder det;
    int64_t span;                  /* measured time */
    int64_t real_t0;               /* the start on CLOCK_REALTIME (the injector's clock) */
};

int64_t noise_now(void);
/* Find the noise-free cost of chunks of ~target_ns: the minimum over many
 * short trials, so that noise during calibration does not inflate it. */
void noise_calibrate(int64_t target_ns, struct noise_calib *c);
/* Allocate the result arrays for a run of r->duration_ns; 0 or -1. */
int noise_run_alloc(struct noise_run *r, size_t detour_cap);
void noise_run_free(struct noise_run *r);
/* Work for r->duration_ns from now. */
void noise_run_measure(struct noise_run *r);

#endif
