/*
 * rdmach-sim turns: which rank of a shared core runs after which, read from
 * a scheduler trace of the library's loop (the figures `turnorder cycle`
 * rests on).
 *
 *   rdmach-sim turns --trace TRACE --run OUTPUT
 *
 * OUTPUT is what `rdmach-sim-probe --collsw COLL ALGO B` printed: its
 * collsw_pid lines (each rank's process) and its collsw_window line (the
 * CLOCK_MONOTONIC seconds of its timed blocks, 15 blocks of 20 calls).
 * TRACE is `perf script --ns -F comm,pid,cpu,time,event,trace` of
 * `perf record -k mono -a -e sched:sched_switch [-e
 * syscalls:sys_enter_sched_yield]` around that run (docs/SCALE.md has the
 * commands); only the window's events count. Per switch away from a rank:
 *   why its turn ended: sleep (prev_state S or D: a futex or poll() wait),
 *     yield (its sys_enter_sched_yield was the CPU's last event; needs that
 *     event in the trace), preempt (runnable, no yield: the slice ran out or
 *     a wake-up preempted it), or runnable (yield or preemption, the trace
 *     without the yield events cannot tell);
 *   the turn's length (from the switch to it);
 *   whether the next rank on that CPU is the one of the CPU's runnable ranks
 *     that left it longest ago (a cycle, first in first out) or not (asked
 *     of ranks whose last turn ended runnable inside the window).
 * Prints, per CPU, the order of the first rotation it ran (its ranks in the
 * order they first got it in the window), then the counts:
 *   turns cpu C order R R ...
 *   turns switches N per_call X window_ms W
 *   turns end yield N preempt N runnable N sleep N
 *   turns next cycle N other N fraction F
 *   turns turn_ns median M     (turns that ended in a yield or runnable)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

enum { MAXR = 1024, MAXCPU = 256, PROBE_CALLS = 15 * 20 };

struct tstate {
    int rank_of_pid[1 << 16];          /* pid -> rank + 1 (0: not a rank; pids below 65536) */
    int cur[MAXCPU];                   /* the pid on each CPU, -1 unknown */
    double since[MAXCPU];              /* when it got the CPU */
    int yielded[MAXCPU];               /* the pid whose sys_enter_sched_yield was the CPU's last event, or -1 */
    double left[MAXR];                 /* when each rank last left its CPU runnable (-1: not runnable) */
    int cpu_of[MAXR];
    int order[MAXCPU][64], norder[MAXCPU];
    double *turn;
    size_t nturn, capturn;
    long sw, yield, preempt, runnable, sleep, cycle, other;
};

static int rank_of(const struct tstate *s, long pid)
{
    return pid > 0 && pid < (1 << 16) ? s->rank_of_pid[pid] - 1 : -1;
}

static int read_run(const char *path, struct tstate *s, double *w0, double *w1, int *nranks)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "rdmach-sim turns: cannot open %s\n", path);
        return -1;
    }
    char line[512];
    int ln = 0;
    *w0 = *w1 = -1;
    *nranks = 0;
    while (fgets(line, sizeof(line), f)) {
        ln++;
        int r;
        long pid;
        if (!strncmp(line, "collsw_pid ", 11)) {
            if (sscanf(line + 11, "%d %ld", &r, &pid) != 2 || r < 0 || r >= MAXR || pid <= 0 || pid >= (1 << 16)) {
                fprintf(stderr, "rdmach-sim turns: %s:%d: bad collsw_pid line (rank below %d, pid below 65536)\n", path,
                        ln, MAXR);
                fclose(f);
                return -1;
            }
            s->rank_of_pid[pid] = r + 1;
            *nranks = r + 1 > *nranks ? r + 1 : *nranks;
        } else if (!strncmp(line, "collsw_window ", 14) && sscanf(line + 14, "%lf %lf", w0, w1) != 2) {
            fprintf(stderr, "rdmach-sim turns: %s:%d: bad collsw_window line\n", path, ln);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    if (*nranks == 0 || *w0 < 0 || *w1 <= *w0) {
        fprintf(stderr, "rdmach-sim turns: %s has no collsw_pid lines or no collsw_window line "
                        "(the output of rdmach-sim-probe --collsw)\n", path);
        return -1;
    }
    return 0;
}

/* A rank (pid) leaves cpu at t: why, and for how long it ran. */
static int switch_out(struct tstate *s, int cpu, long pid, const char *state, double t, int have_yield)
{
    int r = rank_of(s, pid);
    if (r < 0)
        return 0;
    s->sw++;
    int asleep = state[0] == 'S' || state[0] == 'D';
    if (asleep)
        s->sleep++;
    else if (have_yield && s->yielded[cpu] == pid)
        s->yield++;
    else if (have_yield)
        s->preempt++;
    else
        s->runnable++;
    if (!asleep && s->cur[cpu] == pid && s->since[cpu] >= 0) {
        if (s->nturn == s->capturn) {
            size_t cap = s->capturn ? 2 * s->capturn : 1024;
            double *a = realloc(s->turn, cap * sizeof(double));
            if (!a)
                return -1;
            s->turn = a;
            s->capturn = cap;
        }
        s->turn[s->nturn++] = t - s->since[cpu];
    }
    s->left[r] = asleep ? -1 : t;
    s->cpu_of[r] = cpu;
    return 0;
}

/* Rank r gets cpu: was it the CPU's runnable rank that left longest ago?
 * Asked only of a rank that left a CPU runnable inside the window (not of
 * one seen first, nor of one woken from a sleep). */
static void switch_in(struct tstate *s, int cpu, int r, int nranks)
{
    int oldest = -1;
    for (int q = 0; q < nranks && s->left[r] >= 0; q++)
        if (s->cpu_of[q] == cpu && s->left[q] >= 0 && (oldest < 0 || s->left[q] < s->left[oldest]))
            oldest = q;
    if (oldest >= 0)
        oldest == r ? s->cycle++ : s->other++;
    s->left[r] = -1;
    s->cpu_of[r] = cpu;
    int seen = 0;
    for (int k = 0; k < s->norder[cpu]; k++)
        seen |= s->order[cpu][k] == r;
    if (!seen && s->norder[cpu] < 64)
        s->order[cpu][s->norder[cpu]++] = r;
}

int sim_turns(int argc, char **argv)
{
    const char *trace = NULL, *run = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--trace"))
            trace = argv[i + 1];
        else if (!strcmp(argv[i], "--run"))
            run = argv[i + 1];
        else {
            fprintf(stderr, "rdmach-sim turns: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!trace || !run || argc % 2 == 0) {
        fprintf(stderr, "usage: rdmach-sim turns --trace PERF_SCRIPT_OUTPUT --run COLLSW_OUTPUT\n");
        return 2;
    }
    struct tstate *s = calloc(1, sizeof(*s));
    if (!s) {
        fprintf(stderr, "rdmach-sim turns: no memory\n");
        return 1;
    }
    double w0, w1;
    int nranks, rc = 1;
    if (read_run(run, s, &w0, &w1, &nranks) != 0)
        goto out_free;
    for (int c = 0; c < MAXCPU; c++) {
        s->cur[c] = s->yielded[c] = -1;
        s->since[c] = -1;
    }
    for (int r = 0; r < MAXR; r++) {
        s->left[r] = -1;
        s->cpu_of[r] = -1;
    }
    FILE *f = fopen(trace, "r");
    if (!f) {
        fprintf(stderr, "rdmach-sim turns: cannot open %s\n", trace);
        goto out_free;
    }
    /* the yield events, if the trace has them, tell a yield from a preemption */
    char line[1024];
    int have_yield = 0, ln = 0, events = 0;
    while (fgets(line, sizeof(line), f))
        have_yield |= strstr(line, "sys_enter_sched_yield") != NULL;
    rewind(f);
    while (fgets(line, sizeof(line), f)) {
        ln++;
        /* COMM PID [CPU] TIME: EVENT: ARGS (COMM may hold spaces: find the
         * CPU's bracket first) */
        char *br = strstr(line, " [");
        if (!br || !strstr(line, "sched_"))
            continue;
        char *p = br;
        while (p > line && p[-1] == ' ')
            p--;
        while (p > line && p[-1] >= '0' && p[-1] <= '9')
            p--;
        long pid = strtol(p, NULL, 10);
        int cpu;
        double t;
        char ev[64];
        if (sscanf(br, " [%d] %lf: %63s", &cpu, &t, ev) != 3 || cpu < 0 || cpu >= MAXCPU) {
            fprintf(stderr, "rdmach-sim turns: %s:%d: not a perf script line (COMM PID [CPU] TIME: EVENT: ...)\n",
                    trace, ln);
            fclose(f);
            goto out_free;
        }
        if (t < w0 || t > w1)
            continue;
        events++;
        if (strstr(ev, "sys_enter_sched_yield")) {
            s->yielded[cpu] = (int)pid;
            continue;
        }
        if (!strstr(ev, "sched_switch"))
            continue;
        const char *a = strstr(br, "prev_pid="), *st = strstr(br, "prev_state="), *b = strstr(br, "next_pid=");
        if (!a || !st || !b) {
            fprintf(stderr, "rdmach-sim turns: %s:%d: sched_switch without prev_pid, prev_state and next_pid\n",
                    trace, ln);
            fclose(f);
            goto out_free;
        }
        long prev = strtol(a + 9, NULL, 10), next = strtol(b + 9, NULL, 10);
        if (switch_out(s, cpu, prev, st + 11, t, have_yield) != 0) {
            fprintf(stderr, "rdmach-sim turns: no memory\n");
            fclose(f);
            goto out_free;
        }
        int r = rank_of(s, next);
        if (r >= 0)
            switch_in(s, cpu, r, nranks);
        s->cur[cpu] = (int)next;
        s->since[cpu] = t;
        s->yielded[cpu] = -1;
    }
    fclose(f);
    if (events == 0) {
        fprintf(stderr, "rdmach-sim turns: %s has no event inside the run's window (%.9f to %.9f): "
                        "was it recorded with perf record -k mono?\n", trace, w0, w1);
        goto out_free;
    }
    for (int c = 0; c < MAXCPU; c++) {
        if (!s->norder[c])
            continue;
        printf("turns cpu %d order", c);
        for (int k = 0; k < s->norder[c]; k++)
            printf(" %d", s->order[c][k]);
        printf("\n");
    }
    printf("turns switches %ld per_call %.2f window_ms %.3f\n", s->sw, (double)s->sw / PROBE_CALLS, (w1 - w0) * 1e3);
    printf("turns end yield %ld preempt %ld runnable %ld sleep %ld\n", s->yield, s->preempt, s->runnable, s->sleep);
    printf("turns next cycle %ld other %ld fraction %.3f\n", s->cycle, s->other,
           s->cycle + s->other ? (double)s->cycle / (double)(s->cycle + s->other) : 0.0);
    if (s->nturn) {
        qsort(s->turn, s->nturn, sizeof(double), sim_cmp_double);
        printf("turns turn_ns median %.0f\n", s->turn[(s->nturn - 1) / 2] * 1e9);
    }
    rc = 0;

out_free:
    free(s->turn);
    free(s);
    return rc;
}
