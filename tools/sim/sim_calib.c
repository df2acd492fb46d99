/*
 * rdmach-sim calibrate and validate.
 *
 * calibrate: measure this machine with rdmach-sim-probe on 2
 * ranks over shared memory and over the network channel
 * (RDMACH_VNODE_SIZE=1), --runs times each, the channels' runs interleaved,
 * each figure the median over the runs (less those the scheduler spoiled
 * whole, probe_median); then fit each channel's LogGOPS
 * parameters by inverting the engine's own ping-pong:
 *   o = the cost of posting a send;  g = the per-message time of a stream
 *   of empty messages (at least o, at most half the empty round trip);  a line through half the eager round
 *   trips (sizes to 64 KiB, the validated range): intercept 2o + L, slope
 *   G + 2O;  the rendezvous sizes' slope G + O;  S = the library's eager
 *   limit;  gamma = MPI_Reduce_local of 64 KiB of doubles;  copy = a
 *   memcpy of 64 KiB;  call = an MPI_Allreduce on MPI_COMM_SELF (the
 *   library's path of a call, no message);  the host's
 *   cores (online now) and the switch, a rank's way back to a core after a
 *   wait when ranks outnumber cores: the empty round trip of 2 ranks on one
 *   core (taskset), waiting as an oversubscribed rank does (no spin), is
 *   2(o + L + switch + o) in the engine.
 * The programs are looked for beside rdmach-sim (build tree or install).
 *
 * validate: sim_validate.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim.h"

/* The figures of one probe run (ns); sizes as rdmach-sim-probe prints them. */
enum { PMAX = 16 };
struct probe {
    double post, stream0, reduce_b, reduce_ns, eager, copy_b, copy_ns, call;
    int npp;
    double pp_b[PMAX], pp_ns[PMAX];     /* ping-pong round trips */
};

int sim_exe_dir(char *dir, size_t len)
{
    ssize_t l = readlink("/proc/self/exe", dir, len - 1);
    if (l <= 0)
        return -1;
    dir[l] = '\0';
    *strrchr(dir, '/') = '\0';
    return 0;
}

static int run_probe(const char *dir, int net, struct probe *pr, char *err, size_t len)
{
    char cmd[3 * PATH_MAX], line[256];
    snprintf(cmd, sizeof(cmd), "%sRDMACH_BIND=none '%s/rdmachrun' -n 2 '%s/rdmach-sim-probe' 2>&1",
             net ? "RDMACH_VNODE_SIZE=1 " : "", dir, dir);
    FILE *f = popen(cmd, "r");
    if (!f) {
        snprintf(err, len, "cannot run %s", cmd);
        return -1;
    }
    memset(pr, 0, sizeof(*pr));
    int have = 0;
    while (fgets(line, sizeof(line), f)) {
        double a, b;
        fputs("    ", stdout);
        fputs(line, stdout);
        if (sscanf(line, "post %lf", &a) == 1) pr->post = a, have |= 1;
        else if (sscanf(line, "stream %lf %lf", &a, &b) == 2) {
            if (a == 0) pr->stream0 = b, have |= 2;
        } else if (sscanf(line, "pingpong %lf %lf", &a, &b) == 2) {
            if (pr->npp < PMAX)
                pr->pp_b[pr->npp] = a, pr->pp_ns[pr->npp++] = b, have |= 4;
        } else if (sscanf(line, "reduce %lf %lf", &a, &b) == 2) pr->reduce_b = a, pr->reduce_ns = b, have |= 8;
        else if (sscanf(line, "eager %lf", &a) == 1) pr->eager = a, have |= 16;
        else if (sscanf(line, "copy %lf %lf", &a, &b) == 2) pr->copy_b = a, pr->copy_ns = b;
        else if (sscanf(line, "call %lf", &a) == 1) pr->call = a;
    }
    int st = pclose(f);
    if (st != 0 || have != 31) {
        snprintf(err, len, "%s did not finish with every figure (status %d)", cmd, st);
        return -1;
    }
    return 0;
}

int sim_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), sim_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each figure's median over the runs whose empty round trip is within
 * twice the fastest run's: each run's figure is already its minimum over
 * repetitions, and a run in which the scheduler kept the two ranks off the
 * CPUs together (on a loaded machine, round trips of a time slice) is
 * dropped whole rather than let it shift the median. The runs kept. */
static int probe_median(const struct probe *runs, int n, struct probe *m)
{
    double v[64], best = runs[0].pp_ns[0];
    int keep[64] = { 0 }, k = 0;
    for (int r = 1; r < n; r++)
        best = runs[r].pp_ns[0] < best ? runs[r].pp_ns[0] : best;
    for (int r = 0; r < n; r++)
        if (runs[r].pp_ns[0] <= 2 * best)
            keep[k++] = r;
    *m = runs[keep[0]];
#define MED(field) do { for (int r = 0; r < k; r++) v[r] = runs[keep[r]].field; m->field = median_of(v, k); } while (0)
    MED(post);
    MED(stream0);
    MED(reduce_ns);
    MED(copy_ns);
    MED(call);
    for (int i = 0; i < m->npp; i++)
        MED(pp_ns[i]);
#undef MED
    return k;
}

/* Least-squares line through the half round trips of the sizes in [lo, hi]:
 * its slope (ns/B) and intercept; the number of points. */
static int half_rtt_line(const struct probe *pr, double lo, double hi, double *slope, double *icpt)
{
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < pr->npp; i++)
        if (pr->pp_b[i] >= lo && pr->pp_b[i] <= hi) {
            double x = pr->pp_b[i], y = pr->pp_ns[i] / 2;
            n++, sx += x, sy += y, sxx += x * x, sxy += x * y;
        }
    double d = n * sxx - sx * sx;
    *slope = n >= 2 && d > 0 ? (n * sxy - sx * sy) / d : 0;
    *icpt = n > 0 ? (sy - *slope * sx) / n : 0;
    return (int)n;
}

/* The engine's ping-pong, inverted (sim_engine.c): half an eager round trip
 * is o + L + o + s(O + G + O), a rendezvous one grows by s(G + O) (the
 * receiver's copy only). */
static void fit(const struct probe *pr, struct sim_loggops *c)
{
    c->S = pr->eager;
    c->o = pr->post;
    double be, ae, br, ar;
    half_rtt_line(pr, 0, c->S < 65536 ? c->S : 65536, &be, &ae);
    /* a stream needs both ranks on a CPU for its whole window; one longer
     * per message than half a round trip was cut by the scheduler */
    c->g = pr->stream0 < ae ? pr->stream0 : ae;
    c->g = c->g > c->o ? c->g : c->o;
    c->L = ae - 2 * c->o > 0 ? ae - 2 * c->o : 0;
    be = be > 0 ? be : 0;
    if (half_rtt_line(pr, c->S + 1, 1 << 20, &br, &ar) >= 2 && br > 0) {
        double O = be - br;
        c->O = O < 0 ? 0 : O > be / 2 ? be / 2 : O;
    } else {
        c->O = 0;
    }
    c->G = be - 2 * c->O;
}

/* The empty round trip of 2 ranks sharing core 0 (ns), or -1. */
static double handoff_rtt(const char *dir)
{
    char cmd[3 * PATH_MAX], line[256];
    double rtt = -1, v;
    snprintf(cmd, sizeof(cmd),
             "RDMACH_BIND=none RDMACH_SPIN_COUNT=0 RDMACH_SPIN_COUNT_OVERSUB_PEER=0 taskset -c 0 '%s/rdmachrun' -n 2 "
             "'%s/rdmach-sim-probe' --handoff 2>&1", dir, dir);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        fputs("    ", stdout);
        fputs(line, stdout);
        if (sscanf(line, "pingpong 0 %lf", &v) == 1)
            rtt = v;
    }
    return pclose(f) == 0 ? rtt : -1;
}

int sim_calibrate(int argc, char **argv)
{
    const char *out = "rdmach-sim.params";
    int nruns = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            nruns = atoi(argv[++i]);
            if (nruns < 1 || nruns > 64) {
                fprintf(stderr, "rdmach-sim calibrate: --runs '%s': expected 1 to 64\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "rdmach-sim calibrate: unknown argument '%s' (usage: rdmach-sim calibrate [-o FILE] [--runs N])\n",
                    argv[i]);
            return 2;
        }
    }
    char dir[PATH_MAX], err[PATH_MAX * 4];
    if (sim_exe_dir(dir, sizeof(dir)) != 0) {
        fprintf(stderr, "rdmach-sim calibrate: cannot find the program's directory\n");
        return 1;
    }
    struct sim_params p;
    sim_params_default(&p);
    struct probe *runs = calloc((size_t)nruns * SIM_CHAN_MAX, sizeof(*runs)), pr[SIM_CHAN_MAX];
    if (!runs) {
        fprintf(stderr, "rdmach-sim calibrate: no memory\n");
        return 1;
    }
    /* the channels' runs interleaved, so that the machine's load of the
     * moment falls on both */
    for (int r = 0; r < nruns; r++)
        for (int c = 0; c < SIM_CHAN_MAX; c++) {
            printf("measuring %s, run %d of %d (rdmach-sim-probe on 2 ranks%s):\n", c == SIM_SHM ? "shm" : "net", r + 1,
                   nruns, c == SIM_NET ? ", RDMACH_VNODE_SIZE=1" : "");
            fflush(stdout);
            if (run_probe(dir, c == SIM_NET, &runs[c * nruns + r], err, sizeof(err)) != 0) {
                fprintf(stderr, "rdmach-sim calibrate: %s\n", err);
                free(runs);
                return 1;
            }
        }
    for (int c = 0; c < SIM_CHAN_MAX; c++) {
        int kept = probe_median(&runs[c * nruns], nruns, &pr[c]);
        printf("%s: the median of %d of %d runs (those with an empty round trip within twice the fastest)\n",
               c == SIM_SHM ? "shm" : "net", kept, nruns);
        fit(&pr[c], &p.ch[c]);
    }
    free(runs);
    double hv[64];
    int nh = 0;
    for (int r = 0; r < nruns; r++) {
        printf("measuring the hand-off, run %d of %d (rdmach-sim-probe --handoff on 2 ranks of one core):\n", r + 1, nruns);
        fflush(stdout);
        double v = handoff_rtt(dir);
        if (v > 0)
            hv[nh++] = v;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    p.cores = cores > 0 ? (double)cores : 1;
    if (nh) {
        const struct sim_loggops *s = &p.ch[SIM_SHM];
        double sw = median_of(hv, nh) / 2 - 2 * s->o - s->L;
        p.sw = sw > 0 ? sw : 0;
    } else {
        printf("no hand-off measured (taskset missing?): switch left at %.0f ns\n", p.sw);
    }
    p.gamma = pr[SIM_SHM].reduce_ns / pr[SIM_SHM].reduce_b;
    if (pr[SIM_SHM].copy_b > 0)
        p.beta = pr[SIM_SHM].copy_ns / pr[SIM_SHM].copy_b;
    p.call = pr[SIM_SHM].call;
    p.onload = 1;   /* the software network channels here (tcp) run on the host CPU */
    char comment[256];
    snprintf(comment, sizeof(comment),
             "# measured by rdmach-sim calibrate (rdmach-sim-probe: each figure its minimum in a run, the median over "
             "the runs kept of %d)\n",
             nruns);
    if (sim_params_save(out, &p, comment) != 0) {
        fprintf(stderr, "rdmach-sim calibrate: cannot write %s\n", out);
        return 1;
    }
    for (int c = 0; c < SIM_CHAN_MAX; c++)
        printf("%s: L %.0f ns, o %.0f ns, g %.0f ns, G %.4f ns/B, O %.4f ns/B, S %.0f B\n", c == SIM_SHM ? "shm" : "net",
               p.ch[c].L, p.ch[c].o, p.ch[c].g, p.ch[c].G, p.ch[c].O, p.ch[c].S);
    printf("gamma %.3f ns/B, copy %.3f ns/B, call %.0f ns; host %.0f cores, switch %.0f ns; written to %s\n", p.gamma, p.beta, p.call, p.cores, p.sw, out);
    return 0;
}
