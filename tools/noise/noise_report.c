/* rdmach-noise's summaries, report and CSV files (see noise_report.h). */
#include <stdlib.h>
#include <string.h>
#include "device/noise.h"
#include "noise_report.h"

static int cmp_len(const void *a, const void *b)
{
    int64_t x = ((const struct noise_detour *)a)->len, y = ((const struct noise_detour *)b)->len;
    return (x > y) - (x < y);
}

/* Spectrum bin: fine enough for 50 kHz, at most 2^20 bins. */
static int64_t spectrum_bin(int64_t span)
{
    int64_t bin = 10000;
    while (span / bin > (1 << 20))
        bin *= 2;
    return bin;
}

int noise_summarize(struct noise_run *r, struct noise_rank_sum *s)
{
    struct noise_finder *f = &r->det;
    double secs = (double)r->span * 1e-9;
    struct noise_spectrum sp;
    if (noise_spectrum_of(f->d, f->n, r->span, spectrum_bin(r->span), &sp) != 0)
        return -1;
    s->dominant_hz = sp.dominant_hz;
    s->interval_mode_ns = sp.interval_mode_ns;
    noise_spectrum_free(&sp);

    double ideal = (double)r->chunks_per_quantum * (double)r->cal.chunk_ns;
    int64_t *q = malloc((r->nq ? r->nq : 1) * sizeof(*q));
    if (!q)
        return -1;
    memcpy(q, r->q_val, r->nq * sizeof(*q));
    noise_dist_of(q, r->nq, &s->q);
    free(q);
    if (r->mode == NOISE_FWQ)
        s->slowdown = s->q.n ? s->q.mean / ideal - 1 : 0;
    else /* work done per quantum of fixed length */
        s->slowdown = s->q.mean > 0 ? (double)r->quantum_ns / s->q.mean - 1 : 0;
    s->detours = (double)(f->n + f->dropped);
    s->dropped = (double)f->dropped;
    s->det_per_s = secs > 0 ? s->detours / secs : 0;
    s->noise_frac = r->span ? (double)f->total / (double)r->span : 0;
    s->len_p50 = s->len_p99 = s->len_max = 0;
    if (f->n) {
        struct noise_detour *c = malloc(f->n * sizeof(*c));
        if (!c)
            return -1;
        memcpy(c, f->d, f->n * sizeof(*c));
        qsort(c, f->n, sizeof(*c), cmp_len);
        s->len_p50 = (double)c[(f->n - 1) / 2].len;
        s->len_p99 = (double)c[(size_t)((double)(f->n - 1) * 0.99)].len;
        s->len_max = (double)c[f->n - 1].len;
        free(c);
    }
    return 0;
}

/* Does d start within `len` of an instant t % period == phase? */
static int on_train(const struct noise_run *r, const struct noise_detour *d, int64_t len, int64_t period,
                    int64_t phase)
{
    int64_t off = ((r->real_t0 + d->start - phase) % period + period) % period;
    return off <= len || period - off <= len;
}

int noise_summarize_matching(const struct noise_run *r, int64_t len, int64_t period, int64_t phase,
                             struct noise_rank_sum *s)
{
    const struct noise_finder *f = &r->det;
    struct noise_detour *m = malloc((f->n ? f->n : 1) * sizeof(*m));
    size_t n = 0;
    if (!m)
        return -1;
    for (size_t i = 0; i < f->n; i++)
        if (f->d[i].len >= len / 2 && f->d[i].len <= len + len / 2 &&
            (period <= 0 || on_train(r, &f->d[i], len, period, phase)))
            m[n++] = f->d[i];
    struct noise_spectrum sp;
    int rc = noise_spectrum_of(m, n, r->span, spectrum_bin(r->span), &sp);
    s->match_n = (double)n;
    s->match_hz = sp.dominant_hz;
    s->match_interval_ns = sp.interval_mode_ns;
    noise_spectrum_free(&sp);
    qsort(m, n, sizeof(*m), cmp_len);
    s->match_len_p50 = n ? (double)m[(n - 1) / 2].len : 0;
    free(m);
    return rc;
}

void noise_print_injected(FILE *out)
{
    const struct rch_dev_noise_cfg *c = rch_dev_noise_config();
    if (!c) {
        fprintf(out, "injected noise: none (RDMACH_NOISE is not set)\n");
        return;
    }
    fprintf(out, "injected noise: RDMACH_NOISE=%s: a %.1f us detour every %.1f us (%.2f%% of the CPU), %s, ranks %s\n",
            getenv("RDMACH_NOISE"), (double)c->duration * 1e-3, (double)c->period * 1e-3,
            100.0 * (double)c->duration / (double)c->period, c->sync ? "synchronised" : "random phase per rank",
            c->ranks[0] ? c->ranks : "all");
}

struct node_sum {
    const char *host;
    int ranks, worst_rank;
    double slowdown, noise_frac, det_per_s, worst_frac;
};

static int cmp_node(const void *a, const void *b)
{
    double x = ((const struct node_sum *)a)->noise_frac, y = ((const struct node_sum *)b)->noise_frac;
    return (x < y) - (x > y);
}

static const struct noise_rank_sum *rank_order_base;
static int cmp_rank_noise(const void *a, const void *b)
{
    double x = rank_order_base[*(const int *)a].noise_frac, y = rank_order_base[*(const int *)b].noise_frac;
    return (x < y) - (x > y);
}

void noise_report_print(FILE *out, const struct noise_run *r, struct noise_rank_sum *all, int nranks,
                        int nnodes)
{
    const char *unit = r->mode == NOISE_FWQ ? "time" : "work";
    fprintf(out, "per rank (quantum %s in us; detours longer than %.1f us; noise = detour time / run time)\n",
            unit, (double)r->threshold_ns * 1e-3);
    fprintf(out, "%5s %-16s %4s %7s %9s %9s %9s %9s %9s %8s %8s %8s %8s %8s %7s %10s %10s\n",
            "rank", "node", "core", "quanta", "min", "median", "p99", "max", "slowdown", "detours",
            "det/s", "len_p50", "len_p99", "len_max", "noise%", "period_us", "interval_us");
    for (int i = 0; i < nranks; i++) {
        const struct noise_rank_sum *s = &all[i];
        fprintf(out, "%5d %-16.16s %4d %7zu %9.2f %9.2f %9.2f %9.2f %8.2f%% %8.0f %8.1f %8.2f %8.2f %8.2f %6.2f%% %10.2f %10.2f\n",
                s->rank, s->host, s->core, s->q.n, s->q.min * 1e-3, s->q.p50 * 1e-3, s->q.p99 * 1e-3,
                s->q.max * 1e-3, s->slowdown * 100, s->detours, s->det_per_s, s->len_p50 * 1e-3,
                s->len_p99 * 1e-3, s->len_max * 1e-3, s->noise_frac * 100,
                s->dominant_hz > 0 ? 1e6 / s->dominant_hz : 0, s->interval_mode_ns * 1e-3);
        if (s->noisy)
            fprintf(out, "      (rank %d: %.0f detours injected, %.0f found)\n", s->rank, s->injected, s->detours);
        if (s->dropped > 0)
            fprintf(out, "      (rank %d: %.0f detours counted but not stored)\n", s->rank, s->dropped);
    }

    struct node_sum *nodes = calloc((size_t)nnodes, sizeof(*nodes));
    int *order = malloc((size_t)nranks * sizeof(int));
    if (!nodes || !order) {
        fprintf(out, "(no memory for the per-node report)\n");
        free(nodes);
        free(order);
        return;
    }
    for (int i = 0; i < nranks; i++) {
        struct node_sum *n = &nodes[all[i].node];
        n->host = all[i].host;
        n->ranks++;
        n->slowdown += all[i].slowdown;
        n->noise_frac += all[i].noise_frac;
        n->det_per_s += all[i].det_per_s;
        if (n->ranks == 1 || all[i].noise_frac > n->worst_frac) {
            n->worst_frac = all[i].noise_frac;
            n->worst_rank = all[i].rank;
        }
    }
    for (int k = 0; k < nnodes; k++) {
        nodes[k].slowdown /= nodes[k].ranks ? nodes[k].ranks : 1;
        nodes[k].noise_frac /= nodes[k].ranks ? nodes[k].ranks : 1;
    }
    qsort(nodes, (size_t)nnodes, sizeof(*nodes), cmp_node);
    fprintf(out, "\nnoisiest nodes (mean over the node's ranks)\n%4s %-16s %5s %9s %7s %9s %10s\n",
            "#", "node", "ranks", "slowdown", "noise%", "det/s", "worst rank");
    for (int k = 0; k < nnodes; k++)
        fprintf(out, "%4d %-16.16s %5d %8.2f%% %6.2f%% %9.1f %10d\n", k + 1, nodes[k].host, nodes[k].ranks,
                nodes[k].slowdown * 100, nodes[k].noise_frac * 100, nodes[k].det_per_s, nodes[k].worst_rank);

    for (int i = 0; i < nranks; i++)
        order[i] = i;
    rank_order_base = all;
    qsort(order, (size_t)nranks, sizeof(int), cmp_rank_noise);
    fprintf(out, "\nnoisiest cores\n%4s %5s %-16s %4s %7s %9s\n", "#", "rank", "node", "core", "noise%", "slowdown");
    for (int i = 0; i < nranks && i < 16; i++) {
        const struct noise_rank_sum *s = &all[order[i]];
        fprintf(out, "%4d %5d %-16.16s %4d %6.2f%% %8.2f%%\n", i + 1, s->rank, s->host, s->core,
                s->noise_frac * 100, s->slowdown * 100);
    }
    free(nodes);
    free(order);
}

static FILE *open_csv(const char *dir, const char *what, int rank)
{
    char path[4096];
    if (rank >= 0)
        snprintf(path, sizeof(path), "%s/%s_rank%d.csv", dir, what, rank);
    else
        snprintf(path, sizeof(path), "%s/%s.csv", dir, what);
    return fopen(path, "w");
}

int noise_csv_rank(const char *dir, int rank, const struct noise_run *r)
{
    FILE *f = open_csv(dir, "quanta", rank);
    if (!f)
        return -1;
    fprintf(f, "index,start_ns,%s_ns\n", r->mode == NOISE_FWQ ? "time" : "work");
    for (size_t i = 0; i < r->nq; i++)
        fprintf(f, "%zu,%lld,%lld\n", i, (long long)r->q_start[i], (long long)r->q_val[i]);
    if (fclose(f) != 0 || !(f = open_csv(dir, "detours", rank)))
        return -1;
    fprintf(f, "start_ns,length_ns\n");
    for (size_t i = 0; i < r->det.n; i++)
        fprintf(f, "%lld,%lld\n", (long long)r->det.d[i].start, (long long)r->det.d[i].len);
    if (fclose(f) != 0 || !(f = open_csv(dir, "spectrum", rank)))
        return -1;
    struct noise_spectrum sp;
    fprintf(f, "freq_hz,power\n");
    if (noise_spectrum_of(r->det.d, r->det.n, r->span, spectrum_bin(r->span), &sp) == 0) {
        for (size_t k = 1; k < sp.nfreq && (double)k * sp.df <= 20000; k++)
            fprintf(f, "%.3f,%.6g\n", (double)k * sp.df, sp.power[k]);
        noise_spectrum_free(&sp);
    }
    return fclose(f);
}

int noise_csv_summary(const char *dir, const struct noise_rank_sum *all, int nranks)
{
    FILE *f = open_csv(dir, "summary", -1);
    if (!f)
        return -1;
    fprintf(f, "rank,node,host,core,quanta,q_min_ns,q_p50_ns,q_mean_ns,q_p90_ns,q_p99_ns,q_max_ns,slowdown,"
               "detours,detours_per_s,noise_frac,len_p50_ns,len_p99_ns,len_max_ns,dominant_hz,interval_mode_ns\n");
    for (int i = 0; i < nranks; i++) {
        const struct noise_rank_sum *s = &all[i];
        fprintf(f, "%d,%d,%s,%d,%zu,%.0f,%.0f,%.1f,%.0f,%.0f,%.0f,%.6f,%.0f,%.3f,%.6f,%.0f,%.0f,%.0f,%.3f,%.0f\n",
                s->rank, s->node, s->host, s->core, s->q.n, s->q.min, s->q.p50, s->q.mean, s->q.p90, s->q.p99,
                s->q.max, s->slowdown, s->detours, s->det_per_s, s->noise_frac, s->len_p50, s->len_p99,
                s->len_max, s->dominant_hz, s->interval_mode_ns);
    }
    return fclose(f);
}
