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
};

/* Fill s (but its rank, node, core and host) from a finished run; 0 or -1 (no memory). */
int noise_summarize(struct noise_run *r, struct noise_rank_sum *s);
/* The report from all ranks' summaries, in rank order. */
void noise_report_print(FILE *out, const struct noise_run *r, struct noise_rank_sum *all, int nranks,
                        int nnodes);
/* Raw data of one rank into DIR: quanta_rank<N>.csv, detours_rank<N>.csv,
 * spectrum_rank<N>.csv (up to 20 kHz). 0 or -1 (errno). */
int noise_csv_rank(const char *dir, int rank, const struct noise_run *r);
int noise_csv_summary(const char *dir, const struct noise_rank_sum *all, int nranks);

#endif
