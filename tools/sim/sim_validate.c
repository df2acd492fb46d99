/*
 * rdmach-sim validate: predicted against measured.
 *
 * rdmach-sim-probe --coll on 2, 4, ... ranks, all on one node (shm) and on
 * one node each (RDMACH_VNODE_SIZE=1, net), every algorithm of barrier,
 * allreduce, bcast, alltoall, allgather and reduce_scatter (--colls: of
 * those listed) at 8 B, 1 KiB and 64 KiB; each measured
 * median beside the prediction with the same parameters, and per algorithm
 * the median over sizes of |predicted / measured - 1| (the issue's
 * benchmark target: within 20%).
 *
 * --from FILE reads the measured rows of a saved validate output instead of
 * measuring (its min and median columns; the rest of the line is ignored)
 * and predicts them again with --params: a model or a parameter file is
 * judged on the same measurements, whatever the machine's load is now.
 *
 * The machine's state: this machine moves between two states (a cross-core
 * cache line in 40 or 190 ns, by where the hypervisor puts the 2 vCPUs), so
 * parameters calibrated in one mispredict shm in the other. Before each
 * rank count's shm block, validate times the empty shm round trip of 2
 * ranks (rdmach-sim-probe --handoff, unbound) and prints it as a line
 * "state shm pingpong 0 NS"; the rows after it are predicted with the shm
 * L that makes the engine's own ping-pong, 2(o + L + orecv), that round
 * trip. --from applies such lines as it meets them; an older output has
 * none and is predicted with the parameters as given.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim.h"

enum { MAXR = 16, MAXE = 16, PROBE_CALLS = 20 };

/* The groups of one rank count and channel: how many are within 20%, and
 * the range of their median errors. */
struct tally {
    int groups, good;
    double lo, hi;
};

struct vstate {
    struct sim_params base;        /* as --params gave them */
    struct sim_params prm, flat;   /* in force: base in the machine's state; flat: with a core per rank */
    int host;                      /* the parameters have a host line */
    int ranks[MAXR], nranks;       /* the rank counts, in the order met */
    /* tl: against the median block (the figure); tm: against the
     * fastest block, the machine's quietest moment (others' load only
     * adds); tf: the median block, a core per rank */
    struct tally tl[MAXR][2], tf[MAXR][2], tm[MAXR][2];
    char group[160];
    int gri, gnet, nerr;
    double errs[MAXE], errf[MAXE], errm[MAXE];
};

/* The rows of one (ranks, channel, collective, algorithm) group so far
 * (what: NULL, not printed). */
static void group_summary(const char *what, double *err, int n, struct tally *t)
{
    if (n == 0)
        return;
    qsort(err, (size_t)n, sizeof(double), sim_cmp_double);
    double med = err[(n - 1) / 2];
    if (what)
        printf("%-44s median |error| over sizes %6.1f%% %s\n", what, med * 100, med <= 0.2 ? "(within 20%)" : "");
    t->lo = t->groups == 0 || med < t->lo ? med : t->lo;
    t->hi = t->groups == 0 || med > t->hi ? med : t->hi;
    t->groups++;
    t->good += med <= 0.2;
}

static void flush_group(struct vstate *v)
{
    group_summary(v->group, v->errs, v->nerr, &v->tl[v->gri][v->gnet]);
    group_summary(NULL, v->errf, v->nerr, &v->tf[v->gri][v->gnet]);
    group_summary(NULL, v->errm, v->nerr, &v->tm[v->gri][v->gnet]);
    v->nerr = 0;
    v->group[0] = '\0';
}

/* The index of rank count p, added if new; -1 when the table is full. */
static int rank_index(struct vstate *v, int p)
{
    for (int i = 0; i < v->nranks; i++)
        if (v->ranks[i] == p)
            return i;
    if (v->nranks == MAXR)
        return -1;
    v->ranks[v->nranks] = p;
    return v->nranks++;
}

/* One measured row (ns): its prediction printed beside it, its error added
 * to its group's. */
static void row(struct vstate *v, int p, int net, const char *coll, const char *algo, long bytes, double tmin,
                double tmed, int calls)
{
    char g[160], err[512];
    int ri = rank_index(v, p);
    if (ri < 0)
        return;
    snprintf(g, sizeof(g), "%d ranks %s %s %s", p, net ? "net" : "shm", coll, algo);
    if (strcmp(g, v->group) != 0) {
        flush_group(v);
        snprintf(v->group, sizeof(v->group), "%s", g);
        v->gri = ri;
        v->gnet = net;
    }
    double pred, predf;
    if (sim_predict(coll, algo, p, net ? 1 : p, p, bytes, calls, &v->prm, &pred, err, sizeof(err)) != 0) {
        printf("%5d %-4s %-10s %-14s %6ld %12.2f %12.2f  not simulated: %s\n", p, net ? "net" : "shm", coll, algo, bytes,
               tmin * 1e-3, tmed * 1e-3, err);
        return;
    }
    if (!v->host || sim_predict(coll, algo, p, net ? 1 : p, p, bytes, calls, &v->flat, &predf, err, sizeof(err)) != 0)
        predf = pred;
    printf("%5d %-4s %-10s %-14s %6ld %12.2f %12.2f %12.2f %8.2f", p, net ? "net" : "shm", coll, algo, bytes,
           tmin * 1e-3, tmed * 1e-3, pred * 1e-3, pred / tmed);
    printf(v->host ? " %18.2f\n" : "\n", predf * 1e-3);
    if (v->nerr < MAXE) {
        v->errf[v->nerr] = fabs(predf / tmed - 1);
        v->errm[v->nerr] = fabs(pred / tmin - 1);
        v->errs[v->nerr++] = fabs(pred / tmed - 1);
    }
}

/* The machine's state measured as the empty shm round trip rtt (ns): the
 * rows after it are predicted with the shm L that gives it. */
static void set_state(struct vstate *v, double rtt)
{
    const struct sim_loggops *c = &v->base.ch[SIM_SHM];
    double L = rtt / 2 - c->o - c->orecv;
    v->prm = v->base;
    v->prm.ch[SIM_SHM].L = L > 0 ? L : 0;
    v->flat = v->prm;
    v->flat.cores = 0;
    printf("state shm pingpong 0 %.1f (the rows below: shm L %.1f ns, the parameters' %.1f)\n", rtt,
           v->prm.ch[SIM_SHM].L, c->L);
}

/* The empty shm round trip of 2 ranks now (ns), or -1. */
static double measure_state(const char *dir)
{
    char cmd[2 * PATH_MAX + 64], line[256];
    double rtt = -1, v;
    snprintf(cmd, sizeof(cmd), "'%s/rdmachrun' -n 2 '%s/rdmach-sim-probe' --handoff 2>&1", dir, dir);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "pingpong 0 %lf", &v) == 1)
            rtt = v;
    return pclose(f) == 0 ? rtt : -1;
}

/* The machine the figures come from: its CPU model and load. */
static void print_machine(const char *when)
{
    /* the name, and the family and model numbers that tell processors sold
     * under one name apart (the first processor's block) */
    char line[256], model[256] = "unknown", family[16] = "", number[16] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof(line), f) && line[0] != '\n') {
        char *v = strchr(line, ':');
        if (!v)
            continue;
        v += v[1] == ' ' ? 2 : 1;
        v[strcspn(v, "\n")] = '\0';
        if (!strncmp(line, "model name", 10))
            snprintf(model, sizeof(model), "%s", v);
        else if (!strncmp(line, "cpu family", 10))
            snprintf(family, sizeof(family), "%s", v);
        else if (!strncmp(line, "model\t", 6))
            snprintf(number, sizeof(number), "%s", v);
    }
    if (f)
        fclose(f);
    if (family[0]) {
        size_t k = strlen(model);
        snprintf(model + k, sizeof(model) - k, " (family %s, model %s)", family, number[0] ? number : "?");
    }
    double la[3] = { 0, 0, 0 };
    getloadavg(la, 3);
    printf("machine %s: %s, %ld cores online, load average %.2f %.2f %.2f\n", when, model, sysconf(_SC_NPROCESSORS_ONLN),
           la[0], la[1], la[2]);
}

static void print_header(const struct vstate *v)
{
    printf("%5s %-4s %-10s %-14s %6s %12s %12s %12s %8s%s\n", "ranks", "chan", "coll", "algo", "bytes", "meas_min_us",
           "meas_med_us", "predict_us", "pred/med", v->host ? "  core_per_rank_us" : "");
}

/* Measure: the probe on each rank count and channel (colls: the probe's
 * list of collectives, NULL: all). */
static int measure(struct vstate *v, const int *ranks, int nranks, const char *colls)
{
    char dir[PATH_MAX];
    if (sim_exe_dir(dir, sizeof(dir)) != 0) {
        fprintf(stderr, "rdmach-sim validate: cannot find the program's directory\n");
        return 1;
    }
    print_machine("at the start");
    print_header(v);
    for (int ri = 0; ri < nranks; ri++)
        for (int net = 0; net < 2; net++) {
            char cmd[3 * PATH_MAX], line[256];
            if (!net) {
                double rtt = measure_state(dir);
                if (rtt > 0)
                    set_state(v, rtt);
                else {
                    v->prm = v->base;
                    v->flat = v->base;
                    v->flat.cores = 0;
                    printf("state: the shm round trip could not be timed; the parameters as given\n");
                }
            }
            snprintf(cmd, sizeof(cmd), "RDMACH_BARRIER=dissemination %s'%s/rdmachrun' -n %d '%s/rdmach-sim-probe' --coll %s 2>&1",
                     net ? "RDMACH_VNODE_SIZE=1 " : "", dir, ranks[ri], dir, colls ? colls : "");
            FILE *f = popen(cmd, "r");
            if (!f) {
                fprintf(stderr, "rdmach-sim validate: cannot run %s\n", cmd);
                return 1;
            }
            rank_index(v, ranks[ri]);
            while (fgets(line, sizeof(line), f)) {
                char coll[32], algo[64];
                long bytes;
                double tmin, tmed;
                int calls = 1;
                if (sscanf(line, "coll %31s %63s %ld %lf %lf %d", coll, algo, &bytes, &tmin, &tmed, &calls) < 5)
                    fputs(line, stdout);
                else
                    row(v, ranks[ri], net, coll, algo, bytes, tmin, tmed, calls);
            }
            flush_group(v);
            print_machine(net ? "after net" : "after shm");
            if (pclose(f) != 0) {
                fprintf(stderr, "rdmach-sim validate: %s failed\n", cmd);
                return 1;
            }
        }
    return 0;
}

/* Re-predict the measured rows of a saved validate output. */
static int from_file(struct vstate *v, const char *path, int calls)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 1;
    }
    char line[512];
    int lineno = 0, rows = 0;
    printf("measured rows of %s (blocks of %d calls), predicted again\n", path, calls);
    print_header(v);
    while (fgets(line, sizeof(line), f)) {
        char chan[8], coll[32], algo[64];
        int p;
        long bytes;
        double tmin, tmed;
        lineno++;
        if (!strncmp(line, "machine ", 8)) {
            fputs(line, stdout);
            continue;
        }
        double rtt;
        if (!strncmp(line, "state:", 6)) {       /* a block without a state: the parameters as given */
            flush_group(v);
            v->prm = v->base;
            v->flat = v->base;
            v->flat.cores = 0;
            fputs(line, stdout);
            continue;
        }
        if (!strncmp(line, "state ", 6)) {
            if (sscanf(line, "state shm pingpong 0 %lf", &rtt) != 1 || rtt <= 0) {
                fprintf(stderr, "rdmach-sim validate: %s:%d: expected 'state shm pingpong 0 NS' (a positive round trip)\n",
                        path, lineno);
                fclose(f);
                return 2;
            }
            flush_group(v);
            set_state(v, rtt);
            continue;
        }
        if (sscanf(line, "%d %7s %31s %63s %ld %lf %lf", &p, chan, coll, algo, &bytes, &tmin, &tmed) != 7 ||
            (strcmp(chan, "shm") && strcmp(chan, "net")))
            continue;
        if (p < 2 || p > 64 || tmin <= 0 || tmed < tmin) {
            fprintf(stderr, "rdmach-sim validate: %s:%d: a measured row needs 2-64 ranks and 0 < min <= median\n", path,
                    lineno);
            fclose(f);
            return 2;
        }
        row(v, p, !strcmp(chan, "net"), coll, algo, bytes, tmin * 1e3, tmed * 1e3, calls);
        rows++;
    }
    flush_group(v);
    fclose(f);
    if (rows == 0) {
        fprintf(stderr, "rdmach-sim validate: %s: no measured rows (ranks chan coll algo bytes min_us median_us ...)\n",
                path);
        return 2;
    }
    return 0;
}

static void print_tally(const struct vstate *v)
{
    int groups = 0, good = 0, goodf = 0, goodm = 0;
    printf("%5s %-4s %14s  %-30s %s%s\n", "ranks", "chan", "within 20%", "median |error| of the groups",
           "fastest block: within 20%", v->host ? "   a core per rank: within 20%" : "");
    for (int ri = 0; ri < v->nranks; ri++)
        for (int net = 0; net < 2; net++) {
            const struct tally *t = &v->tl[ri][net];
            char range[64];
            if (t->groups == 0)
                continue;
            snprintf(range, sizeof(range), "%.1f%% - %.1f%%", t->lo * 100, t->hi * 100);
            printf("%5d %-4s %6d of %-4d  %-30s %d", v->ranks[ri], net ? "net" : "shm", t->good, t->groups, range,
                   v->tm[ri][net].good);
            printf(v->host ? "   %d\n" : "\n", v->tf[ri][net].good);
            groups += t->groups;
            good += t->good;
            goodf += v->tf[ri][net].good;
            goodm += v->tm[ri][net].good;
        }
    printf("validation: %d of %d algorithm groups within 20%% (median over sizes)\n", good, groups);
    printf("against the fastest block: %d of %d\n", goodm, groups);
    if (v->host)
        printf("with a core per rank instead of %.0f cores per host: %d of %d\n", v->prm.cores, goodf, groups);
}

int sim_validate(int argc, char **argv)
{
    static struct vstate v;
    int ranks[MAXR] = { 2, 4 }, nranks = 2, calls = PROBE_CALLS;
    const char *from = NULL, *colls = NULL;
    char err[PATH_MAX * 4];
    memset(&v, 0, sizeof(v));
    sim_params_default(&v.prm);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--params") && i + 1 < argc) {
            if (sim_params_load(argv[++i], &v.prm, err, sizeof(err)) != 0) {
                fprintf(stderr, "rdmach-sim: %s\n", err);
                return 2;
            }
        } else if (!strcmp(argv[i], "--from") && i + 1 < argc) {
            from = argv[++i];
        } else if (!strcmp(argv[i], "--colls") && i + 1 < argc) {
            colls = argv[++i];
            if (strspn(colls, "abcdefghijklmnopqrstuvwxyz_,") != strlen(colls)) {
                fprintf(stderr, "rdmach-sim validate: --colls '%s': expected collective names separated by commas\n", colls);
                return 2;
            }
        } else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
            calls = atoi(argv[++i]);
            if (calls < 1 || calls > 100000) {
                fprintf(stderr, "rdmach-sim validate: --calls '%s': expected 1 to 100000\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--ranks") && i + 1 < argc) {
            nranks = 0;
            for (char *save, *w = strtok_r(argv[++i], ",", &save); w && nranks < MAXR; w = strtok_r(NULL, ",", &save)) {
                ranks[nranks] = atoi(w);
                if (ranks[nranks] < 2 || ranks[nranks] > 64) {
                    fprintf(stderr, "rdmach-sim validate: --ranks: each from 2 to 64, got '%s'\n", w);
                    return 2;
                }
                nranks++;
            }
        } else {
            fprintf(stderr, "rdmach-sim validate: unknown argument '%s' (usage: rdmach-sim validate [--params FILE] "
                            "[--ranks 2,4,8,16] [--colls barrier,allreduce,...] [--from SAVED_OUTPUT [--calls N]])\n", argv[i]);
            return 2;
        }
    }
    v.base = v.prm;
    v.flat = v.prm;
    v.host = v.prm.cores >= 1;
    v.flat.cores = 0;
    int rc = from ? from_file(&v, from, calls) : measure(&v, ranks, nranks, colls);
    if (rc == 0)
        print_tally(&v);
    return rc;
}
