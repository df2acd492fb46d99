/*
 * rdmach-noise's per-rank summary, the per-node and job-wide report that
 * rank 0 prints from all of them, and the CSV files.
 */
#ifndef NOISE_REPORT_H
#define NOISE_REPORT_H

#include <stdio.h>
#include "noise_work.h"

#define NOISE_HOST_MAX 64

/* Sent between ranks as bytes: plain fields only. */
struct noise_rank_sum {
    int rank, node, core;
    char host[NOISE_HOST_MAX];
    struct noise_dist q;         /* FWQ: quantum times; FTQ: work done per quantum (ns) */
    double slowdown;             /* work time lost to noise, relative to the noise-free time */
    double detours, det_per_s, noise_frac, len_p50, len_p99, len_max, dropped;
    double dominant_hz, interval_mode_ns;
    int noisy;                   /* RDMACH_NOISE injects detours on this rank */
    double injected;             /* detours it injected during the run */
    /* --expect: the detours within 50% of the expected length alone */
    double match_n, match_len_p50, match_hz, match_interval_ns;
};

/* Fill s (but its rank, node, core and host) from a finished run; 0 or -1 (no memory). */
int noise_summarize(struct noise_run *r, struct noise_rank_sum *s);
/* The report from all ranks' summaries, in rank order. */
void noise_report_print(FILE *out, const struct noise_run *r, struct noise_rank_sum *all, int nranks,
                        int nnodes);
/* The detours of r within 50% of `len`: how many, their median length and
 * the period of their train (into s's match_* fields); 0 or -1 (no memory).
 * period > 0: only those that start within `len` of an instant of the
 * injector's train (CLOCK_REALTIME t, t % period == phase), so that other
 * noise of that length (a loaded machine's) neither pulls the median nor
 * the period away from the train's. */
int noise_summarize_matching(const struct noise_run *r, int64_t len, int64_t period, int64_t phase,
                             struct noise_rank_sum *s);
/* The injector's configuration (RDMACH_NOISE), if any. */
void noise_print_injected(FILE *out);
/* Raw data of one rank into DIR: quanta_rank<N>.csv, detours_rank<N>.csv,
 * spectrum_rank<N>.csv (up to 20 kHz). 0 or -1 (errno). */
int noise_csv_rank(const char *dir, int rank, const struct noise_run *r);
int noise_csv_summary(const char *dir, const struct noise_rank_sum *all, int nranks);

#endif
