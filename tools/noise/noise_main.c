/*
 * rdmach-noise: measure operating-system noise on every rank of a job at
 * once, and find the noisiest nodes and cores.
 *
 *   rdmachrun -n 4 rdmach-noise --time 10                 # FWQ, 1 ms quanta
 *   rdmachrun -n 4 rdmach-noise --mode ftq --quantum 100us --csv out
 *   RDMACH_NOISE=1ms,50us rdmachrun -n 2 rdmach-noise --time 2 --expect 1ms,50us
 *   RDMACH_NOISE=1ms,50us rdmachrun -n 8 rdmach-noise --coll 100   # barrier, allreduce: noise off vs injected
 *
 * Every rank works in chunks of ~1 us with a clock reading after each
 * (noise_work.h): the chunks make up fixed work quanta (FWQ: the time of
 * each is recorded) or are counted per fixed time quantum (FTQ: the work done
 * in each is recorded), and every gap between readings longer than a chunk by
 * more than --threshold is a detour (start, length). Rank 0 prints each
 * rank's distribution, slowdown, detours and their dominant period, the
 * nodes (MPI_COMM_TYPE_SHARED: real hosts or RDMACH_VNODE_SIZE pretend nodes)
 * and cores ranked by noise; the raw data go to --csv DIR (default
 * ./rdmach-noise-out; --no-csv: none) with, where python3 has matplotlib,
 * the plots (rdmach-noise-plot.py).
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <mpi.h>
#include "base/duration.h"
#include "device/noise.h"
#include "noise_coll.h"
#include "noise_report.h"
#include "tool_plot.h"

struct opts {
    enum noise_mode mode;
    int64_t quantum, duration, threshold;
    const char *csv;
    int plot, threshold_set, coll;
    int64_t expect_period, expect_len;
    double expect_tol;
};

static int usage(int rank, const char *fmt, const char *arg)
{
    if (rank == 0) {
        fprintf(stderr, "rdmach-noise: ");
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\nusage: rdmach-noise [--mode fwq|ftq] [--quantum 10us..100ms] [--time SECONDS]\n"
                        "         [--threshold DURATION] [--csv DIR | --no-csv] [--no-plot]\n"
                        "         [--coll BATCHES]\n"
                        "         [--expect PERIOD,LENGTH[,TOLERANCE%%]]\n");
    }
    return 2;
}

/* A duration with a unit, or a bare number of seconds (for --time). */
static int64_t parse_dur(const char *s, int bare_seconds)
{
    const char *end;
    int64_t ns = rch_base_parse_ns(s, &end);
    if (ns >= 0 && *end == '\0')
        return ns;
    char *e;
    double v = strtod(s, &e);
    if (bare_seconds && e != s && *e == '\0' && v > 0 && v < 1e6)
        return (int64_t)(v * 1e9);
    return -1;
}

static int parse_expect(const char *s, struct opts *o)
{
    const char *end;
    o->expect_period = rch_base_parse_ns(s, &end);
    if (o->expect_period <= 0 || *end != ',')
        return -1;
    o->expect_len = rch_base_parse_ns(end + 1, &end);
    if (o->expect_len <= 0)
        return -1;
    o->expect_tol = 0.10;
    if (*end == ',') {
        char *e;
        o->expect_tol = strtod(end + 1, &e) / 100;
        if (e == end + 1 || (*e != '%' && *e) || (*e == '%' && e[1]) || o->expect_tol <= 0 || o->expect_tol >= 1)
            return -1;
    } else if (*end) {
        return -1;
    }
    return 0;
}

static int parse_opts(int argc, char **argv, int rank, struct opts *o)
{
    *o = (struct opts){ .mode = NOISE_FWQ, .quantum = 1000000, .duration = 10000000000LL,
                        .threshold = 2000, .plot = 1, .csv = "rdmach-noise-out" };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        int takes = !strcmp(a, "--mode") || !strcmp(a, "--quantum") || !strcmp(a, "--time") ||
                    !strcmp(a, "--threshold") || !strcmp(a, "--csv") || !strcmp(a, "--expect") || !strcmp(a, "--coll");
        if (takes && !v)
            return usage(rank, "option %s needs a value", a);
        if (!strcmp(a, "--mode")) {
            if (!strcmp(v, "fwq")) o->mode = NOISE_FWQ;
            else if (!strcmp(v, "ftq")) o->mode = NOISE_FTQ;
            else return usage(rank, "--mode '%s': expected fwq or ftq", v);
        } else if (!strcmp(a, "--quantum")) {
            o->quantum = parse_dur(v, 0);
            if (o->quantum < 10000 || o->quantum > 100000000)
                return usage(rank, "--quantum '%s': expected a duration from 10us to 100ms", v);
        } else if (!strcmp(a, "--time")) {
            o->duration = parse_dur(v, 1);
            if (o->duration < 10000000)
                return usage(rank, "--time '%s': expected seconds (at least 0.01) or a duration like 500ms", v);
        } else if (!strcmp(a, "--threshold")) {
            o->threshold = parse_dur(v, 0);
            o->threshold_set = 1;
            if (o->threshold < 100 || o->threshold > 1000000000)
                return usage(rank, "--threshold '%s': expected a duration from 100ns to 1s", v);
        } else if (!strcmp(a, "--csv")) {
            o->csv = v;
        } else if (!strcmp(a, "--expect")) {
            if (parse_expect(v, o) != 0)
                return usage(rank, "--expect '%s': expected PERIOD,LENGTH[,TOLERANCE%%], e.g. 1ms,50us,10%%", v);
        } else if (!strcmp(a, "--coll")) {
            o->coll = (int)strtol(v, &end, 10);
            if (end == v || *end || o->coll < 3 || o->coll > 100000)
                return usage(rank, "--coll '%s': expected a number of batches from 3 to 100000", v);
        } else if (!strcmp(a, "--no-csv")) {
            o->csv = NULL;
        } else if (!strcmp(a, "--no-plot")) {
            o->plot = 0;
        } else {
            return usage(rank, "unknown option '%s'", a);
        }
        i += takes;
    }
    if (o->duration < 4 * o->quantum)
        return usage(rank, "--time must hold at least 4 quanta%s", "");
    /* detours shorter than half the expected ones are other noise */
    if (o->expect_len && !o->threshold_set)
        o->threshold = o->expect_len / 2;
    return 0;
}

/* Which node (0..nnodes-1, in the order of their lowest rank) this rank is on. */
static void find_node(int *node, int *nnodes)
{
    MPI_Comm shm, leaders;
    int nrank, wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL, &shm);
    MPI_Comm_rank(shm, &nrank);
    MPI_Comm_split(MPI_COMM_WORLD, nrank == 0 ? 0 : MPI_UNDEFINED, wrank, &leaders);
    if (leaders != MPI_COMM_NULL) {
        MPI_Comm_rank(leaders, node);
        MPI_Comm_size(leaders, nnodes);
        MPI_Comm_free(&leaders);
    }
    MPI_Bcast(node, 1, MPI_INT, 0, shm);
    MPI_Bcast(nnodes, 1, MPI_INT, 0, shm);
    MPI_Comm_free(&shm);
}

/* --expect: every rank with injected noise (every rank if there is no
 * injector: the noise is then the machine's) must show detours of the
 * expected length, within the tolerance, in a train of the expected period
 * (by the spectrum or by the commonest interval).
 * Only detours within 50% of the expected length count, so that other noise
 * (a loaded machine preempts ranks for milliseconds) does not hide them; on
 * a rank with injected noise only those at the injector's instants, so that
 * other noise of that length does not either. */
static int check_expect(const struct opts *o, const struct noise_rank_sum *all, int n)
{
    int bad = 0, injector = rch_dev_noise_config() != NULL;
    for (int i = 0; i < n; i++) {
        const struct noise_rank_sum *s = &all[i];
        if (injector && !s->noisy) {
            printf("expect rank %d: no noise injected on it: %.0f detours of %.1f-%.1f us found\n", s->rank,
                   s->match_n, (double)o->expect_len * 0.5e-3, (double)o->expect_len * 1.5e-3);
            continue;
        }
        /* the period from the spectrum or, where background detours of a
         * similar length pull the spectrum to their own period (the
         * scheduler tick), from the commonest interval */
        double period = s->match_hz > 0 ? 1e9 / s->match_hz : 0;
        double dp = period / (double)o->expect_period - 1, dl = s->match_len_p50 / (double)o->expect_len - 1;
        double di = s->match_interval_ns / (double)o->expect_period - 1;
        int ok = (fabs(dp) <= o->expect_tol || fabs(di) <= o->expect_tol) && fabs(dl) <= o->expect_tol;
        printf("expect rank %d: %.0f detours of %.1f-%.1f us%s (%.0f injected): median %.1f us (%+.1f%%), "
               "period %.1f us (%+.1f%%), commonest interval %.1f us (%+.1f%%): %s\n",
               s->rank, s->match_n, (double)o->expect_len * 0.5e-3, (double)o->expect_len * 1.5e-3,
               injector ? " at the injector's instants" : "", s->injected,
               s->match_len_p50 * 1e-3, dl * 100, period * 1e-3, dp * 100, s->match_interval_ns * 1e-3, di * 100,
               ok ? "ok" : "NOT FOUND");
        bad += !ok;
    }
    return bad ? 1 : 0;
}

static int measure(const struct opts *o, int rank, int size)
{
    const struct rch_dev_noise_cfg *cfg = rch_dev_noise_config();
    struct noise_rank_sum me = { .rank = rank, .core = sched_getcpu(), .noisy = cfg && cfg->on_me }, *all = NULL;
    int nnodes, len, rc = 0;
    char host[MPI_MAX_PROCESSOR_NAME];
    find_node(&me.node, &nnodes);
    MPI_Get_processor_name(host, &len);
    snprintf(me.host, sizeof(me.host), "%.*s", NOISE_HOST_MAX - 1, host);

    /* with the injector on and no --expect, judge against the injected
     * signature (reported only: the exit status is --expect's) */
    struct opts eo = *o;
    if (!o->expect_len && cfg)
        eo.expect_period = cfg->period, eo.expect_len = cfg->duration, eo.expect_tol = 0.10;
    struct noise_run r = { .mode = o->mode, .quantum_ns = o->quantum, .duration_ns = o->duration,
                           .threshold_ns = o->threshold };
    noise_calibrate(1000, &r.cal);
    if (noise_run_alloc(&r, 1 << 20) != 0) {
        fprintf(stderr, "rdmach-noise: rank %d: no memory for the run\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* the ranks write their files into it: it must exist before they do */
    if (rank == 0 && o->csv && mkdir(o->csv, 0777) != 0 && errno != EEXIST)
        fprintf(stderr, "rdmach-noise: cannot make %s: %s\n", o->csv, strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t injected = rch_dev_noise_count();
    noise_run_measure(&r);
    me.injected = (double)(rch_dev_noise_count() - injected);
    MPI_Barrier(MPI_COMM_WORLD);
    if (o->csv && noise_csv_rank(o->csv, rank, &r) != 0) {
        fprintf(stderr, "rdmach-noise: rank %d: cannot write CSV files into %s: %s\n", rank, o->csv, strerror(errno));
        rc = 1;
    }
    /* on a rank with injected noise, only the detours at the injector's
     * instants: a loaded machine's own detours of that length, at other
     * instants, outnumbered the train's and pulled its median and period */
    int64_t train = me.noisy ? cfg->period : 0, phase = me.noisy ? rch_dev_noise_phase() : 0;
    if (noise_summarize(&r, &me) != 0 ||
        (eo.expect_len && noise_summarize_matching(&r, eo.expect_len, train, phase, &me) != 0)) {
        fprintf(stderr, "rdmach-noise: rank %d: no memory for the analysis\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0 && !(all = malloc((size_t)size * sizeof(*all))))
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(&me, sizeof(me), MPI_BYTE, all, sizeof(me), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("rdmach-noise: %s, quantum %.1f us, %.2f s on %d ranks, %d node%s; chunks of %.3f us (%.0f work units/us)\n",
               o->mode == NOISE_FWQ ? "fixed work quanta (FWQ)" : "fixed time quanta (FTQ)", (double)o->quantum * 1e-3,
               (double)r.span * 1e-9, size, nnodes, nnodes == 1 ? "" : "s", (double)r.cal.chunk_ns * 1e-3,
               r.cal.units_per_us);
        noise_print_injected(stdout);
        noise_report_print(stdout, &r, all, size, nnodes);
        if (o->csv) {
            if (noise_csv_summary(o->csv, all, size) != 0) {
                fprintf(stderr, "rdmach-noise: cannot write %s/summary.csv: %s\n", o->csv, strerror(errno));
                rc = 1;
            } else if (o->plot) {
                rch_tool_plot("rdmach-noise-plot.py", o->csv);
            }
        }
        if (o->expect_len)
            rc |= check_expect(o, all, size);
        else if (eo.expect_len)
            (void)check_expect(&eo, all, size);
    }
    free(all);
    noise_run_free(&r);
    return rc;
}

int main(int argc, char **argv)
{
    int rank, size, rc;
    struct opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rc = parse_opts(argc, argv, rank, &o);
    if (rc == 0)
        rc = o.coll ? noise_coll_run(rank, size, o.coll) : measure(&o, rank, size);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
