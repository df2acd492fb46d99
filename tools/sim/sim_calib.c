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
 *   of empty messages (at least o);  a line through half the eager round trips (sizes to 64 KiB,
 *   the validated range): intercept o + L + orecv, slope G + 2O, where
 *   orecv = o unless the post alone takes more than half the empty round
 *   trip (tcp: the send's system call goes on after the data is in the
 *   peer's socket; then L = 0 and orecv is the rest);  obusy = g less
 *   orecv (a stream's receiver finds each message waiting: the stream's
 *   time per message bounds both the channel's gap and a busy receiver's
 *   overhead, which the measurement cannot tell apart);  the rendezvous sizes' slope G + O;  S = the library's eager
 *   limit;  gamma = MPI_Reduce_local of 64 KiB of doubles;  copy = a
 *   memcpy of 64 KiB;  call = an MPI_Allreduce on MPI_COMM_SELF (the
 *   library's path of a call, no message);  icall = MPI_Iallreduce and
 *   MPI_Wait on MPI_COMM_SELF (the non-blocking path: schedule, request);
 *   unexp = a malloc and free of 1 KiB (an unexpected eager message's buffer
 *   above 256 B; 0 from an output without it);  the host's
 *   cores (online now) and the switch, a rank's way back to a core after a
 *   wait when ranks outnumber cores: the empty round trip of 2 ranks on one
 *   core (taskset), waiting as an oversubscribed rank does (no spin), is
 *   2(o + L + orecv + switch) in the engine; over shm (switch) and over the
 *   network channel (netswitch: a rank that waits on a socket sleeps in
 *   poll() after its yields, and is woken from there);  handoff, the turn
 *   an oversubscribed rank's wait gives up on its core (the library's
 *   hand-off yield, and whatever the scheduler runs before the rank waited
 *   for): an empty token ring of 3 ranks on one core (more ranks than the
 *   machine's 2 cores: the library waits as an oversubscribed rank) takes
 *   o + orecv + handoff + switch per hop in the engine (L passes during
 *   the hand-off). Its runs fall in two modes here (2.4 and 4.8 us per
 *   hop: the scheduler's cycle sometimes passes through the third rank
 *   each hop), so the fastest run is taken, as every figure within a run;
 *   Gsend, the network channel's sender CPU per byte: the net hand-off
 *   also times 16 and 64 KiB, and on one core both sides' CPU adds up
 *   (gsend_of);  netturn, the turn each other still waiting rank of a core takes
 *   over the network channel: empty token rings of 3 to 8 ranks on one
 *   core over tcp (netturn_of);  segswitch, a rank's way back to its core
 *   from the node segment's synchronisation: rdmach-sim-probe --segsync on
 *   N ranks of one core (RDMACH_BARRIER=shm: the same all-arrive wait), its
 *   fastest block T per synchronisation, which the engine makes N o + L +
 *   (N - 1) segswitch (segswitch_of);  duplex, per channel and size, what
 *   an exchange (MPI_Sendrecv both ways at once, the probe's `exchange`)
 *   takes beyond the engine's exchange under all the other parameters
 *   (duplex_of: on Zen 4 over tcp 1.3-1.9 times the engine's, which is a
 *   one-way transfer, up to 1.7 over shm; a ping-pong's halves never
 *   overlap and cannot show it).
 * The programs are looked for beside rdmach-sim (build tree or install).
 * --from FILE fits the figures a saved calibrate output printed instead of
 * measuring; with --params BASE it keeps BASE's figures and fits only the
 * per-collective call (callc, sim_callc.c), the duplex and segswitch of
 * FILE against them (and takes FILE's unexp).
 *
 * validate: sim_validate.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/tunables.h"
#include "sim.h"

/* The figures of one probe run (ns); sizes as rdmach-sim-probe prints them. */
enum { PMAX = 16 };
struct probe {
    double post, stream0, reduce_b, reduce_ns, eager, copy_b, copy_ns, call, icall;
    double unexp_ns;                    /* 0: not printed (an older output) */
    /* copyws at its smallest W (64 KiB: in the caches) and at its largest
     * (ws_w), alone and (copyws2) with both ranks at once; 0: not printed */
    double ws_in, ws_one, ws_two, ws_w;
    int npp;
    double pp_b[PMAX], pp_ns[PMAX];     /* ping-pong round trips */
    int nx;
    double x_b[PMAX], x_ns[PMAX];       /* exchanges (0: not printed, an older output) */
    /* the 2-rank calls of the smallest message (sim_callc.c); ns -1: not printed */
    char callc_algo[SIM_CALLC][32];
    double callc_b[SIM_CALLC], callc_ns[SIM_CALLC];
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

static void probe_clear(struct probe *pr)
{
    memset(pr, 0, sizeof(*pr));
    for (int i = 0; i < SIM_CALLC; i++)
        pr->callc_ns[i] = -1;
}

/* One line of rdmach-sim-probe's output into pr; the bit of a required
 * figure it gave (0: none, or an optional one). */
static int probe_line(const char *line, struct probe *pr)
{
    double a, b;
    if (sscanf(line, "post %lf", &a) == 1)
        return pr->post = a, 1;
    if (sscanf(line, "stream %lf %lf", &a, &b) == 2) {
        if (a == 0)
            return pr->stream0 = b, 2;
    } else if (sscanf(line, "pingpong %lf %lf", &a, &b) == 2) {
        if (pr->npp < PMAX)
            return pr->pp_b[pr->npp] = a, pr->pp_ns[pr->npp++] = b, 4;
    } else if (sscanf(line, "exchange %lf %lf", &a, &b) == 2) {
        if (pr->nx < PMAX)
            pr->x_b[pr->nx] = a, pr->x_ns[pr->nx++] = b;
    } else if (sscanf(line, "reduce %lf %lf", &a, &b) == 2) {
        return pr->reduce_b = a, pr->reduce_ns = b, 8;
    } else if (sscanf(line, "eager %lf", &a) == 1) {
        return pr->eager = a, 16;
    } else if (sscanf(line, "copy %lf %lf", &a, &b) == 2) {
        pr->copy_b = a, pr->copy_ns = b;
    } else if (sscanf(line, "call %lf", &a) == 1) {
        pr->call = a;
    } else if (sscanf(line, "icall %lf", &a) == 1) {
        pr->icall = a;
    } else if (sscanf(line, "copyws2 %lf %lf", &a, &b) == 2) {   /* before copyws, whose %lf would read its 2 */
        if (a >= pr->ws_w)
            pr->ws_two = b;
    } else if (sscanf(line, "copyws %lf %lf", &a, &b) == 2) {
        if (a == 65536)
            pr->ws_in = b;
        if (a >= pr->ws_w)
            pr->ws_w = a, pr->ws_one = b;
    } else if (sscanf(line, "unexp %lf %lf", &a, &b) == 2) {
        pr->unexp_ns = b;
    } else if (!strncmp(line, "callc ", 6)) {
        char coll[32], algo[32];
        for (int i = 0; i < SIM_CALLC; i++)
            if (sscanf(line, "callc %31s %31s %lf %lf", coll, algo, &a, &b) == 4 && !strcmp(coll, sim_callc_names[i])) {
                snprintf(pr->callc_algo[i], sizeof(pr->callc_algo[i]), "%s", algo);
                pr->callc_b[i] = a, pr->callc_ns[i] = b;
            }
    }
    return 0;
}
enum { PROBE_ALL = 31 };

static int run_probe(const char *dir, int net, struct probe *pr, char *err, size_t len)
{
    char cmd[3 * PATH_MAX], line[256];
    snprintf(cmd, sizeof(cmd), "%sRDMACH_BIND=none RDMACH_BARRIER=dissemination '%s/rdmachrun' -n 2 '%s/rdmach-sim-probe' 2>&1",
             net ? "RDMACH_VNODE_SIZE=1 " : "", dir, dir);
    FILE *f = popen(cmd, "r");
    if (!f) {
        snprintf(err, len, "cannot run %s", cmd);
        return -1;
    }
    probe_clear(pr);
    int have = 0;
    while (fgets(line, sizeof(line), f)) {
        fputs("    ", stdout);
        fputs(line, stdout);
        have |= probe_line(line, pr);
    }
    int st = pclose(f);
    if (st != 0 || have != PROBE_ALL) {
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
    MED(icall);
    MED(unexp_ns);
    MED(ws_in);
    MED(ws_one);
    MED(ws_two);
    for (int i = 0; i < m->npp; i++)
        MED(pp_ns[i]);
    for (int r = 0; r < k; r++)   /* a run without the exchanges (an older output) leaves them out */
        m->nx = runs[keep[r]].nx < m->nx ? runs[keep[r]].nx : m->nx;
    for (int i = 0; i < m->nx; i++)
        MED(x_ns[i]);
    for (int i = 0; i < SIM_CALLC; i++)
        MED(callc_ns[i]);   /* -1 in a run without it (an older output): -1 in all, as it is printed by all or none */
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
 * is o + L + orecv + s(O + G + O), a rendezvous one grows by s(G + O) (the
 * receiver's copy only); a stream of empty messages takes orecv + obusy
 * per message. */
static void fit(const struct probe *pr, struct sim_loggops *c, int serve)
{
    c->S = pr->eager;
    c->o = pr->post;
    c->g = pr->stream0 > c->o ? pr->stream0 : c->o;
    double be, ae, br, ar;
    half_rtt_line(pr, 0, c->S < 65536 ? c->S : 65536, &be, &ae);
    c->L = ae - 2 * c->o > 0 ? ae - 2 * c->o : 0;
    c->orecv = ae - c->o - c->L > 0 ? ae - c->o - c->L : 0;
    c->obusy = pr->stream0 > c->orecv ? pr->stream0 - c->orecv : 0;
    be = be > 0 ? be : 0;
    c->rndv = 0;
    if (half_rtt_line(pr, c->S + 1, 1 << 20, &br, &ar) >= 2 && br > 0) {
        double O = be - br;
        c->O = O < 0 ? 0 : O > be / 2 ? be / 2 : O;
        /* the rendezvous line's intercept beyond the engine's handshake
         * (request, ask, data: o + orecv + 3L, and o to serve it on an
         * onload channel): the receiver's fixed cost of the transfer */
        double hs = c->o + c->orecv + 3 * c->L + (serve ? c->o : 0);
        c->rndv = ar > hs ? ar - hs : 0;
    } else {
        c->O = 0;
    }
    c->G = be - 2 * c->O;
}

/* The figure `fmt` (one %lf) of rdmach-sim-probe `mode` on n ranks all on
 * core 0, its output echoed indented (ns), or -1. */
static double one_core_figure(const char *dir, const char *env, int n, const char *mode, const char *fmt,
                               struct probe *pp)
{
    char cmd[3 * PATH_MAX], line[256];
    double fig = -1, v;
    snprintf(cmd, sizeof(cmd), "%sRDMACH_BIND=none taskset -c 0 '%s/rdmachrun' -n %d '%s/rdmach-sim-probe' %s 2>&1", env,
             dir, n, dir, mode);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        fputs("    ", stdout);
        fputs(line, stdout);
        if (sscanf(line, fmt, &v) == 1)
            fig = v;
        if (pp)                /* every size's round trip */
            probe_line(line, pp);
    }
    return pclose(f) == 0 ? fig : -1;
}

/* The empty round trip of 2 ranks sharing core 0 (ns), or -1; pp (if not
 * NULL) gets every size's. */
static double handoff_rtt(const char *dir, int net, struct probe *pp)
{
    return one_core_figure(dir,
                           net ? "RDMACH_VNODE_SIZE=1 RDMACH_SPIN_COUNT=0 RDMACH_SPIN_COUNT_OVERSUB_PEER=0 "
                               : "RDMACH_SPIN_COUNT=0 RDMACH_SPIN_COUNT_OVERSUB_PEER=0 ",
                           2, "--handoff", "pingpong 0 %lf", pp);
}

/* The net rings timed on one core: 3 to NET_RING_MAX ranks (calibrate
 * runs the sizes of net_ring_ranks). */
enum { NET_RING_MAX = 8 };
static const int net_ring_ranks[] = { 3, 4, 6, 8 };

/* The figures of a calibration: per channel its probe runs and its
 * hand-off round trips. */
struct calib {
    int nruns[SIM_CHAN_MAX], nh[SIM_CHAN_MAX], nring;
    struct probe runs[SIM_CHAN_MAX][64];
    double hv[SIM_CHAN_MAX][64];
    double ring[64];           /* per hop of the oversubscribed ring (shm) */
    struct probe hnet;         /* the net hand-off's round trips of every size, all runs */
    double netring[NET_RING_MAX + 1];   /* per hop of the net ring of N ranks on one core, fastest run (0: none) */
    int nseg[SIM_SEGSW_MAX];
    double seg[SIM_SEGSW_MAX][64];      /* the segment's synchronisation of seg_ranks[i] ranks on one core, per run */
};

/* The ranks a core holds in segswitch's measurements (4 to 16 ranks on 2
 * cores hold 2 to 8; the library waits as oversubscribed from 3 ranks on
 * this machine, so 3 stands for 2). */
static const int seg_ranks[] = { 3, 4, 8, 16 };
enum { NSEG = sizeof(seg_ranks) / sizeof(seg_ranks[0]) };

static const char *chan_name(int c)
{
    return c == SIM_SHM ? "shm" : "net";
}

/* Measure: the channels' runs interleaved, so that the machine's load of
 * the moment falls on both. */
static int measure(struct calib *k, int nruns)
{
    char dir[PATH_MAX], err[PATH_MAX * 4];
    if (sim_exe_dir(dir, sizeof(dir)) != 0) {
        fprintf(stderr, "rdmach-sim calibrate: cannot find the program's directory\n");
        return 1;
    }
    for (int r = 0; r < nruns; r++)
        for (int c = 0; c < SIM_CHAN_MAX; c++) {
            printf("measuring %s, run %d of %d (rdmach-sim-probe on 2 ranks%s):\n", chan_name(c), r + 1, nruns,
                   c == SIM_NET ? ", RDMACH_VNODE_SIZE=1" : "");
            fflush(stdout);
            if (run_probe(dir, c == SIM_NET, &k->runs[c][k->nruns[c]++], err, sizeof(err)) != 0) {
                fprintf(stderr, "rdmach-sim calibrate: %s\n", err);
                return 1;
            }
        }
    for (int r = 0; r < nruns; r++)
        for (int c = 0; c < SIM_CHAN_MAX; c++) {
            printf("measuring the hand-off over %s, run %d of %d (rdmach-sim-probe --handoff on 2 ranks of one core%s):\n",
                   chan_name(c), r + 1, nruns, c == SIM_NET ? ", RDMACH_VNODE_SIZE=1" : "");
            fflush(stdout);
            double v = handoff_rtt(dir, c == SIM_NET, c == SIM_NET ? &k->hnet : NULL);
            if (v > 0)
                k->hv[c][k->nh[c]++] = v;
        }
    for (int r = 0; r < nruns; r++) {
        printf("measuring the oversubscribed hand-off, run %d of %d (rdmach-sim-probe --ring on 3 ranks of one core):\n",
               r + 1, nruns);
        fflush(stdout);
        double v = one_core_figure(dir, "", 3, "--ring", "ring 3 %lf", NULL);
        if (v > 0)
            k->ring[k->nring++] = v;
    }
    for (int r = 0; r < nruns; r++)
        for (size_t i = 0; i < sizeof(net_ring_ranks) / sizeof(net_ring_ranks[0]); i++) {
            int n = net_ring_ranks[i];
            char fmt[32];
            snprintf(fmt, sizeof(fmt), "ring %d %%lf", n);
            printf("measuring the oversubscribed hand-off over net, run %d of %d (rdmach-sim-probe --ring on %d ranks of "
                   "one core, RDMACH_VNODE_SIZE=1):\n", r + 1, nruns, n);
            fflush(stdout);
            double v = one_core_figure(dir, "RDMACH_VNODE_SIZE=1 ", n, "--ring", fmt, NULL);
            if (v > 0 && (k->netring[n] == 0 || v < k->netring[n]))
                k->netring[n] = v;
        }
    for (int r = 0; r < nruns; r++)
        for (int i = 0; i < NSEG; i++) {
            char fmt[32];
            snprintf(fmt, sizeof(fmt), "segsync %d %%lf", seg_ranks[i]);
            printf("measuring the node segment's synchronisation, run %d of %d (rdmach-sim-probe --segsync on %d ranks "
                   "of one core, RDMACH_BARRIER=shm):\n", r + 1, nruns, seg_ranks[i]);
            fflush(stdout);
            double v = one_core_figure(dir, "RDMACH_BARRIER=shm ", seg_ranks[i], "--segsync", fmt, NULL);
            if (v > 0 && k->nseg[i] < 64)
                k->seg[i][k->nseg[i]++] = v;
        }
    return 0;
}

/* A line of a saved output's segment synchronisation runs. */
static void seg_line(struct calib *k, const char *line)
{
    int n;
    double v;
    if (sscanf(line, "segsync %d %lf", &n, &v) != 2 || v <= 0)
        return;
    for (int i = 0; i < NSEG; i++)
        if (seg_ranks[i] == n && k->nseg[i] < 64)
            k->seg[i][k->nseg[i]++] = v;
}

/* The figures a saved calibrate output printed (its "measuring ..." lines
 * name the channel and whether a hand-off follows; an output older than the
 * network hand-off has "measuring the hand-off," for shm). */
static int from_file(struct calib *k, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 1;
    }
    char line[512];
    int chan = -1, handoff = 0, ring = 0, seg = 0, have = PROBE_ALL;
    while (fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "measuring ", 10)) {
            if (chan >= 0 && !handoff && have != PROBE_ALL)
                break;
            seg = !strncmp(line + 10, "the node segment's synchronisation", 34);
            if (seg)
                continue;
            ring = !strncmp(line + 10, "the oversubscribed hand-off", 27);
            handoff = ring || !strncmp(line + 10, "the hand-off", 12);
            chan = strstr(line, handoff ? "hand-off over net" : "measuring net") ? SIM_NET : SIM_SHM;
            if (!handoff && k->nruns[chan] < 64)
                probe_clear(&k->runs[chan][k->nruns[chan]++]);
            have = 0;
            continue;
        }
        double v;
        if (chan < 0 || strncmp(line, "    ", 4) != 0)
            continue;
        int n;
        if (seg)
            seg_line(k, line + 4);
        else if (ring && chan == SIM_NET && sscanf(line + 4, "ring %d %lf", &n, &v) == 2) {
            if (n >= 3 && n <= NET_RING_MAX && v > 0 && (k->netring[n] == 0 || v < k->netring[n]))
                k->netring[n] = v;
        } else if (ring && sscanf(line + 4, "ring 3 %lf", &v) == 1 && k->nring < 64)
            k->ring[k->nring++] = v;
        else if (handoff && !ring && sscanf(line + 4, "pingpong 0 %lf", &v) == 1 && k->nh[chan] < 64) {
            k->hv[chan][k->nh[chan]++] = v;
            if (chan == SIM_NET)
                probe_line(line + 4, &k->hnet);
        } else if (handoff && !ring && chan == SIM_NET)
            probe_line(line + 4, &k->hnet);   /* the sized round trips (outputs since Gsend) */
        else if (!handoff)
            have |= probe_line(line + 4, &k->runs[chan][k->nruns[chan] - 1]);
    }
    fclose(f);
    if ((chan >= 0 && !handoff && have != PROBE_ALL) || !k->nruns[SIM_SHM] || !k->nruns[SIM_NET]) {
        fprintf(stderr, "rdmach-sim calibrate: %s: a probe run of each channel, each with every figure, expected\n", path);
        return 2;
    }
    printf("the figures of %s: %d shm and %d net runs, %d and %d hand-offs, %d oversubscribed rings\n", path,
           k->nruns[SIM_SHM], k->nruns[SIM_NET], k->nh[SIM_SHM], k->nh[SIM_NET], k->nring);
    return 0;
}

/* An onload network channel's sender CPU per byte: on one core the
 * engine's ping-pong of B bytes takes, one way, o + orecv + L + netswitch +
 * B(O + Gsend + G + O) (the sender's push and the waiting receiver's copy
 * both need the core), so the slope of the hand-off's half round trips over
 * the sizes, less G + 2O, is Gsend. 0 when the output has no sized hand-off
 * (older outputs) or the slope is below G + 2O. */
static double gsend_of(const struct calib *k, const struct sim_loggops *net)
{
    double slope, icpt;
    int sized = 0;
    for (int i = 0; i < k->hnet.npp; i++)
        sized += k->hnet.pp_b[i] > 0;
    if (!sized || half_rtt_line(&k->hnet, 0, 65536, &slope, &icpt) < 2) {
        printf("no sized hand-off over net (an output older than it): Gsend 0, the sender's copy takes no core\n");
        return 0;
    }
    double g = slope - net->G - 2 * net->O;
    printf("net hand-off: %.4f ns/B one way over %d round trips: Gsend %.4f ns/B\n", slope, k->hnet.npp, g > 0 ? g : 0);
    return g > 0 ? g : 0;
}

/* netturn: an empty token ring of N ranks on one core over the network
 * channel takes per hop, in the engine, o + orecv + handoff + netswitch +
 * (N - 2) netturn (the sender's hand-off gives a turn to each other rank
 * that still waits: all but the one its token just reached; over the
 * network these are its only turns, none of switch); the
 * least-squares netturn through the rings' excess over the rest, each ring
 * its fastest run. 0 when the output has no net ring. */
static double netturn_of(const struct calib *k, const struct sim_params *p)
{
    double base = p->ch[SIM_NET].o + p->ch[SIM_NET].orecv + p->handoff + p->sw_net, sxy = 0, sxx = 0;
    for (int n = 3; n <= NET_RING_MAX; n++)
        if (k->netring[n] > 0) {
            printf("net ring of %d ranks on one core: %.0f ns per hop, %.0f over o + orecv + handoff + netswitch\n", n,
                   k->netring[n], k->netring[n] - base);
            sxy += (n - 2) * (k->netring[n] - base);
            sxx += (double)(n - 2) * (n - 2);
        }
    if (sxx == 0) {
        printf("no net ring on one core (an output older than it): netturn 0\n");
        return 0;
    }
    return sxy > 0 ? sxy / sxx : 0;
}

/* segswitch: the engine's synchronisation of N ranks on one core is N
 * arrivals (o) + L + N - 1 hand-offs, each a rank's way back to the core;
 * each N's figure the median of its runs. Returns the entries set (0: the
 * output has no such runs). */
static int segswitch_of(const struct calib *k, struct sim_params *p)
{
    const struct sim_loggops *sh = &p->ch[SIM_SHM];
    double v[64];
    int n = 0;
    for (int i = 0; i < NSEG; i++) {
        if (!k->nseg[i])
            continue;
        int r = seg_ranks[i];
        memcpy(v, k->seg[i], (size_t)k->nseg[i] * sizeof(double));
        double t = median_of(v, k->nseg[i]), h = (t - r * sh->o - sh->L) / (r - 1);
        p->segsw_n[n] = r;
        p->segsw[n++] = h > 0 ? h : 0;
        printf("the node segment's synchronisation of %d ranks on one core: %.0f ns (%d runs): segswitch %.1f ns\n", r, t,
               k->nseg[i], h > 0 ? h : 0);
    }
    if (n)
        p->nsegsw = n;
    return n;
}

/* A rank's way back to a core after a wait over channel c: the engine's
 * one-core round trip is 2(o + L + orecv + switch). */
static double switch_of(const struct calib *k, int c, const struct sim_loggops *ch, double *hv)
{
    memcpy(hv, k->hv[c], (size_t)k->nh[c] * sizeof(double));
    double sw = median_of(hv, k->nh[c]) / 2 - ch->o - ch->L - ch->orecv;
    return sw > 0 ? sw : 0;
}

/* The host's last-level cache: its size from sysfs (the cache of level 3
 * of cpu0; lscpu reads the same), 0 where there is none. */
static double l3_size(void)
{
    char path[128], buf[64];
    double size = 0;
    for (int i = 0; i < 8; i++) {
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        int level = 0;
        if (!f)
            break;
        if (fscanf(f, "%d", &level) != 1)
            level = 0;
        fclose(f);
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (level != 3 || !(f = fopen(path, "r")))
            continue;
        char unit = 0;
        if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%lf%c", &size, &unit) >= 1)
            size *= unit == 'K' ? 1024 : unit == 'M' ? 1048576 : 1;
        fclose(f);
    }
    return size;
}

/* The L3 term (sim_cache.c) from the shm run's copyws figures (ns per copy
 * of 64 KiB): in the caches at W 64 KiB, beyond the L3 at the largest W,
 * alone and with both ranks copying; only where that W's walk (two buffers
 * of W) is at least twice the L3. 0, or -1 when not measured (p unchanged). */
static int l3_of(const struct probe *sh, struct sim_params *p)
{
    double l3 = l3_size();
    if (l3 <= 0 || sh->ws_in <= 0 || sh->ws_one <= 0 || sh->ws_two <= 0 || sh->ws_w < l3) {
        printf("no copy beyond the L3 measured (%s): no L3 term%s\n",
               l3 <= 0 ? "no L3 size in sysfs" : sh->ws_in <= 0 ? "an older output" : "the probe's buffers fit it",
               p->l3 > 0 ? " but BASE's" : "");
        return -1;
    }
    p->l3 = l3;
    p->l3_in = sh->ws_in / 65536, p->l3_one = sh->ws_one / 65536, p->l3_two = sh->ws_two / 65536;
    printf("l3 %.0f B (sysfs): a copy %.5f ns/B in it, %.5f beyond it, %.5f with both cores (copyws of 64 KiB "
           "and %.0f B)\n", p->l3, p->l3_in, p->l3_one, p->l3_two, sh->ws_w);
    return 0;
}

/* duplex: what an exchange (rdmach-sim-probe's `exchange`) costs beyond
 * the engine's own exchange of the same size under the parameters fitted
 * so far, a core per rank, 20 back to back as the probe times them; at each
 * measured size, never below 0. */
static void duplex_of(const struct probe *pr, struct sim_params *p, int c)
{
    struct sim_loggops *ch = &p->ch[c];
    if (pr->nx == 0) {
        printf("%s: no exchange measured (an older output): duplex %s\n", chan_name(c), ch->ndx ? "as BASE gives" : "none");
        return;
    }
    ch->ndx = 0;
    double pred[PMAX];
    for (int i = 0; i < pr->nx; i++) {
        char err[256];
        if (sim_predict_pair("exchange", c == SIM_NET, (long)pr->x_b[i], 20, p, &pred[i], err, sizeof(err)) != 0) {
            printf("%s: the engine's exchange of %.0f B: %s: no duplex\n", chan_name(c), pr->x_b[i], err);
            return;
        }
    }
    printf("%s: exchange measured / the engine's without duplex (ns):", chan_name(c));
    for (int i = 0; i < pr->nx && ch->ndx < SIM_DUPLEX_MAX; i++) {
        if (ch->ndx && pr->x_b[i] <= ch->dx_b[ch->ndx - 1])
            continue;
        printf(" %.0f B %.0f / %.0f", pr->x_b[i], pr->x_ns[i], pred[i]);
        ch->dx_b[ch->ndx] = pr->x_b[i];
        ch->dx[ch->ndx++] = pr->x_ns[i] > pred[i] ? pr->x_ns[i] - pred[i] : 0;
    }
    printf("\n");
}

int sim_calibrate(int argc, char **argv)
{
    const char *out = "rdmach-sim.params", *from = NULL, *base = NULL;
    int nruns = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--from") && i + 1 < argc) {
            from = argv[++i];
        } else if (!strcmp(argv[i], "--params") && i + 1 < argc) {
            base = argv[++i];
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            nruns = atoi(argv[++i]);
            if (nruns < 1 || nruns > 64) {
                fprintf(stderr, "rdmach-sim calibrate: --runs '%s': expected 1 to 64\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "rdmach-sim calibrate: unknown argument '%s' (usage: rdmach-sim calibrate [-o FILE] [--runs N] "
                            "[--from SAVED_OUTPUT [--params BASE]])\n", argv[i]);
            return 2;
        }
    }
    if (base && !from) {
        fprintf(stderr, "rdmach-sim calibrate: --params BASE needs --from SAVED_OUTPUT (it fits the per-collective "
                        "call of a saved output against BASE)\n");
        return 2;
    }
    struct sim_params p;
    sim_params_default(&p);
    struct calib *k = calloc(1, sizeof(*k));
    struct probe pr[SIM_CHAN_MAX];
    if (!k) {
        fprintf(stderr, "rdmach-sim calibrate: no memory\n");
        return 1;
    }
    int rc = from ? from_file(k, from) : measure(k, nruns);
    if (rc != 0) {
        free(k);
        return rc;
    }
    for (int c = 0; c < SIM_CHAN_MAX; c++) {
        int kept = probe_median(k->runs[c], k->nruns[c], &pr[c]);
        printf("%s: the median of %d of %d runs (those with an empty round trip within twice the fastest)\n", chan_name(c),
               kept, k->nruns[c]);
        fit(&pr[c], &p.ch[c], c == SIM_NET);   /* p.onload below: tcp serves a rendezvous on the CPU */
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    p.cores = cores > 0 ? (double)cores : 1;
    double hv[64];
    if (k->nh[SIM_SHM])
        p.sw = switch_of(k, SIM_SHM, &p.ch[SIM_SHM], hv);
    else
        printf("no hand-off measured over shm (taskset missing?): switch left at %.0f ns\n", p.sw);
    if (k->nh[SIM_NET])
        p.sw_net = switch_of(k, SIM_NET, &p.ch[SIM_NET], hv);
    else
        printf("no hand-off measured over net: netswitch is switch, %.0f ns\n", p.sw_net = p.sw);
    p.ch[SIM_NET].Gsend = gsend_of(k, &p.ch[SIM_NET]);
    if (k->nring) {
        double fastest = k->ring[0];
        for (int i = 1; i < k->nring; i++)
            fastest = k->ring[i] < fastest ? k->ring[i] : fastest;
        const struct sim_loggops *sh = &p.ch[SIM_SHM];
        p.handoff = fastest - sh->o - sh->orecv - p.sw > 0 ? fastest - sh->o - sh->orecv - p.sw : 0;
    } else {
        printf("no oversubscribed ring measured: handoff 0\n");
    }
    p.netturn = netturn_of(k, &p);
    p.gamma = pr[SIM_SHM].reduce_ns / pr[SIM_SHM].reduce_b;
    if (pr[SIM_SHM].copy_b > 0)
        p.beta = pr[SIM_SHM].copy_ns / pr[SIM_SHM].copy_b;
    p.call = pr[SIM_SHM].call;
    p.icall = pr[SIM_SHM].icall > 0 ? pr[SIM_SHM].icall : p.call;   /* older outputs have no icall */
    p.onload = 1;   /* the software network channels here (tcp) run on the host CPU */
    p.unexp = pr[SIM_SHM].unexp_ns;
    /* the yields a waiter makes before it sleeps, the library's setting: the
     * turns a rank that ended gives its core (endturns, rdmach-sim-probe --waiters) */
    if (rch_base_tun_load() == RDMACH_OK && p.cores >= 1)
        p.endturns = rch_tun.yield_count_oversub;
    if (base) {
        /* every figure from BASE; only the per-collective call from the output, fitted against BASE */
        char err[512];
        if (sim_params_load(base, &p, err, sizeof(err)) != 0) {
            fprintf(stderr, "rdmach-sim calibrate: %s\n", err);
            free(k);
            return 2;
        }
        printf("the parameters of %s; callc and duplex fitted against them, unexp and segswitch from %s where it gives them\n",
               base, from);
        if (pr[SIM_SHM].unexp_ns > 0)
            p.unexp = pr[SIM_SHM].unexp_ns;   /* a measurement of its own, no fit against BASE */
    }
    if (pr[SIM_SHM].unexp_ns <= 0)
        printf("no unexpected message's buffer measured (an older output): unexp %s\n", base ? "as BASE gives" : "0");
    /* against BASE's o and L where it is given (a measurement of its own, as unexp) */
    l3_of(&pr[SIM_SHM], &p);   /* a measurement of its own, as unexp */
    if (!segswitch_of(k, &p))
        printf("no node segment's synchronisation measured (an older output): segswitch %s\n",
               base ? "as BASE gives" : "none (switch)");
    free(k);
    /* last: against every other parameter, BASE's where it is given */
    for (int c = 0; c < SIM_CHAN_MAX; c++)
        duplex_of(&pr[c], &p, c);
    {
        const struct probe *sh = &pr[SIM_SHM];
        const char *algo[SIM_CALLC];
        for (int i = 0; i < SIM_CALLC; i++)
            algo[i] = sh->callc_algo[i];
        char err[256];
        if (sim_callc_fit(&p, algo, sh->callc_b, sh->callc_ns, err, sizeof(err)) != 0) {
            fprintf(stderr, "rdmach-sim calibrate: callc: %s\n", err);
            return 1;
        }
        if (sh->callc_ns[0] < 0)
            printf("no per-collective call measured (an older output): call applies to every collective\n");
    }
    char comment[512];
    snprintf(comment, sizeof(comment),
             "# measured by rdmach-sim calibrate (rdmach-sim-probe: each figure its minimum in a run, the median over "
             "the runs kept)%s%s\n", from ? "; fitted from " : "", from ? from : "");
    if (sim_params_save(out, &p, comment) != 0) {
        fprintf(stderr, "rdmach-sim calibrate: cannot write %s\n", out);
        return 1;
    }
    for (int c = 0; c < SIM_CHAN_MAX; c++)
        printf("%s: L %.0f ns, o %.0f ns, orecv %.0f ns, obusy %.0f ns, g %.0f ns, G %.4f ns/B, O %.4f ns/B, rndv %.0f ns, "
               "S %.0f B\n", chan_name(c), p.ch[c].L, p.ch[c].o, p.ch[c].orecv, p.ch[c].obusy, p.ch[c].g, p.ch[c].G,
               p.ch[c].O, p.ch[c].rndv, p.ch[c].S);
    printf("net Gsend %.4f ns/B\n", p.ch[SIM_NET].Gsend);
    for (int c = 0; c < SIM_CHAN_MAX; c++)
        for (int i = 0; i < p.ch[c].ndx; i++)
            printf("%s%s %.0f %.0f%s", i ? "" : "duplex ", i ? "" : chan_name(c), p.ch[c].dx_b[i], p.ch[c].dx[i],
                   i + 1 == p.ch[c].ndx ? " (ns more for a message that crossed one of its receiver's: an exchange)\n" : "");
    printf("endturns %.0f (RDMACH_YIELD_COUNT_OVERSUB: a waiting rank's yields before it sleeps)\n", p.endturns);
    printf("unexp %.1f ns (malloc and free of an unexpected eager message's buffer above 256 B)\n", p.unexp);
    printf("gamma %.3f ns/B, copy %.3f ns/B, call %.0f ns, icall %.0f ns; host %.0f cores, switch %.0f ns, netswitch %.0f ns, "
           "handoff %.0f ns, netturn %.0f ns; written to %s\n",
           p.gamma, p.beta, p.call, p.icall, p.cores, p.sw, p.sw_net, p.handoff, p.netturn, out);
    for (int i = 0; i < SIM_CALLC; i++)
        if (p.callc[i] >= 0)
            printf("callc %s %.0f ns (%s of %.0f B on 2 ranks: %.0f ns a call)\n", sim_callc_names[i], p.callc[i],
                   pr[SIM_SHM].callc_algo[i], pr[SIM_SHM].callc_b[i], pr[SIM_SHM].callc_ns[i]);
    return 0;
}
