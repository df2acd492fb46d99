/*
 * rdmach-sim calibrate and validate.
 *
 * calibrate: measure this machine with rdmach-sim-probe on 2
 * ranks, once over shared memory and once over the network channel
 * (RDMACH_VNODE_SIZE=1), and fit each channel's LogGOPS parameters:
 *   o = the cost of posting a send;  g = the per-message time of a stream
 *   of empty messages (at least o);  L = half the empty round trip less 2o;
 *   G = the per-byte time of a stream of 1 MiB messages;  O = the per-byte
 *   growth of half the round trip over eager sizes, less G (at least 0);
 *   S = the library's eager limit;  gamma = MPI_Reduce_local of doubles.
 * The programs are looked for beside rdmach-sim (build tree or install).
 *
 * validate: rdmach-sim-probe --coll on 2, 4, ... ranks, all on one node
 * (shm) and on one node each (RDMACH_VNODE_SIZE=1, net), every algorithm of
 * barrier, allreduce, bcast and alltoall at 8 B, 1 KiB and 64 KiB; each
 * measured median beside the prediction with the same parameters, and per
 * algorithm the median over sizes of |predicted / measured - 1| (the
 * issue's benchmark target: within 20%).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim.h"

struct probe {
    double post, s0, s1m, pp[2][2], reduce_b, reduce_ns, eager;   /* pp: {bytes, ns} at 0 and ~eager */
    int have;
};

static int dir_of_exe(char *dir, size_t len)
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
    double pp_eager_b = -1;
    while (fgets(line, sizeof(line), f)) {
        double a, b;
        fputs("    ", stdout);
        fputs(line, stdout);
        if (sscanf(line, "post %lf", &a) == 1) pr->post = a, pr->have |= 1;
        else if (sscanf(line, "stream %lf %lf", &a, &b) == 2) {
            if (a == 0) pr->s0 = b, pr->have |= 2;
            if (a == 1048576) pr->s1m = b, pr->have |= 4;
        } else if (sscanf(line, "pingpong %lf %lf", &a, &b) == 2) {
            if (a == 0) pr->pp[0][0] = 0, pr->pp[0][1] = b, pr->have |= 8;
            else if (a <= 4096 && a > pp_eager_b) pp_eager_b = a, pr->pp[1][0] = a, pr->pp[1][1] = b, pr->have |= 16;
        } else if (sscanf(line, "reduce %lf %lf", &a, &b) == 2) pr->reduce_b = a, pr->reduce_ns = b, pr->have |= 32;
        else if (sscanf(line, "eager %lf", &a) == 1) pr->eager = a, pr->have |= 64;
    }
    int st = pclose(f);
    if (st != 0 || pr->have != 127) {
        snprintf(err, len, "%s did not finish with every figure (status %d)", cmd, st);
        return -1;
    }
    return 0;
}

static void fit(const struct probe *pr, struct sim_loggops *c)
{
    c->o = pr->post;
    c->g = pr->s0 > c->o ? pr->s0 : c->o;
    double half0 = pr->pp[0][1] / 2;
    c->L = half0 - 2 * c->o > 0 ? half0 - 2 * c->o : 0;
    c->G = pr->s1m / 1048576.0;
    double slope = (pr->pp[1][1] - pr->pp[0][1]) / 2 / pr->pp[1][0];
    c->O = slope - c->G > 0 ? slope - c->G : 0;
    c->S = pr->eager;
}

int sim_calibrate(int argc, char **argv)
{
    const char *out = "rdmach-sim.params";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else {
            fprintf(stderr, "rdmach-sim calibrate: unknown argument '%s' (usage: rdmach-sim calibrate [-o FILE])\n", argv[i]);
            return 2;
        }
    }
    char dir[PATH_MAX], err[PATH_MAX * 4];
    if (dir_of_exe(dir, sizeof(dir)) != 0) {
        fprintf(stderr, "rdmach-sim calibrate: cannot find the program's directory\n");
        return 1;
    }
    struct sim_params p;
    sim_params_default(&p);
    struct probe pr[SIM_CHAN_MAX];
    for (int c = 0; c < SIM_CHAN_MAX; c++) {
        printf("measuring %s (rdmach-sim-probe on 2 ranks%s):\n", c == SIM_SHM ? "shm" : "net",
               c == SIM_NET ? ", RDMACH_VNODE_SIZE=1" : "");
        fflush(stdout);
        if (run_probe(dir, c == SIM_NET, &pr[c], err, sizeof(err)) != 0) {
            fprintf(stderr, "rdmach-sim calibrate: %s\n", err);
            return 1;
        }
        fit(&pr[c], &p.ch[c]);
    }
    p.gamma = pr[SIM_SHM].reduce_ns / pr[SIM_SHM].reduce_b;
    p.onload = 1;   /* the software network channels here (tcp) run on the host CPU */
    char comment[256];
    snprintf(comment, sizeof(comment), "# measured by rdmach-sim calibrate (rdmach-sim-probe, minimum of %d repetitions)\n", 15);
    if (sim_params_save(out, &p, comment) != 0) {
        fprintf(stderr, "rdmach-sim calibrate: cannot write %s\n", out);
        return 1;
    }
    for (int c = 0; c < SIM_CHAN_MAX; c++)
        printf("%s: L %.0f ns, o %.0f ns, g %.0f ns, G %.4f ns/B, O %.4f ns/B, S %.0f B\n", c == SIM_SHM ? "shm" : "net",
               p.ch[c].L, p.ch[c].o, p.ch[c].g, p.ch[c].G, p.ch[c].O, p.ch[c].S);
    printf("gamma %.3f ns/B; written to %s\n", p.gamma, out);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The rows of one (ranks, channel, collective, algorithm) group so far. */
static void group_summary(const char *what, double *err, int n, int *groups, int *good)
{
    if (n == 0)
        return;
    qsort(err, (size_t)n, sizeof(double), cmp_double);
    double med = err[(n - 1) / 2];
    printf("%-44s median |error| over sizes %6.1f%% %s\n", what, med * 100, med <= 0.2 ? "(within 20%)" : "");
    (*groups)++;
    *good += med <= 0.2;
}

int sim_validate(int argc, char **argv)
{
    struct sim_params prm;
    sim_params_default(&prm);
    int ranks[16] = { 2, 4 }, nranks = 2;
    char dir[PATH_MAX], err[PATH_MAX * 4];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--params") && i + 1 < argc) {
            if (sim_params_load(argv[++i], &prm, err, sizeof(err)) != 0) {
                fprintf(stderr, "rdmach-sim: %s\n", err);
                return 2;
            }
        } else if (!strcmp(argv[i], "--ranks") && i + 1 < argc) {
            nranks = 0;
            for (char *save, *w = strtok_r(argv[++i], ",", &save); w && nranks < 16; w = strtok_r(NULL, ",", &save)) {
                ranks[nranks] = atoi(w);
                if (ranks[nranks] < 2 || ranks[nranks] > 64) {
                    fprintf(stderr, "rdmach-sim validate: --ranks: each from 2 to 64, got '%s'\n", w);
                    return 2;
                }
                nranks++;
            }
        } else {
            fprintf(stderr, "rdmach-sim validate: unknown argument '%s' (usage: rdmach-sim validate [--params FILE] "
                            "[--ranks 2,4,8,16])\n", argv[i]);
            return 2;
        }
    }
    if (dir_of_exe(dir, sizeof(dir)) != 0) {
        fprintf(stderr, "rdmach-sim validate: cannot find the program's directory\n");
        return 1;
    }
    int groups = 0, good = 0;
    printf("%5s %-4s %-10s %-14s %6s %12s %12s %12s %8s\n", "ranks", "chan", "coll", "algo", "bytes", "meas_min_us",
           "meas_med_us", "predict_us", "pred/med");
    for (int ri = 0; ri < nranks; ri++)
        for (int net = 0; net < 2; net++) {
            char cmd[3 * PATH_MAX], line[256], group[160] = "";
            double errs[16];
            int nerr = 0;
            snprintf(cmd, sizeof(cmd), "RDMACH_BARRIER=dissemination %s'%s/rdmachrun' -n %d '%s/rdmach-sim-probe' --coll 2>&1",
                     net ? "RDMACH_VNODE_SIZE=1 " : "", dir, ranks[ri], dir);
            FILE *f = popen(cmd, "r");
            if (!f) {
                fprintf(stderr, "rdmach-sim validate: cannot run %s\n", cmd);
                return 1;
            }
            while (fgets(line, sizeof(line), f)) {
                char coll[32], algo[64];
                long bytes;
                double tmin, tmed, pred;
                if (sscanf(line, "coll %31s %63s %ld %lf %lf", coll, algo, &bytes, &tmin, &tmed) != 5) {
                    fputs(line, stdout);
                    continue;
                }
                char g[160];
                snprintf(g, sizeof(g), "%d ranks %s %s %s", ranks[ri], net ? "net" : "shm", coll, algo);
                if (strcmp(g, group) != 0) {
                    group_summary(group, errs, nerr, &groups, &good);
                    snprintf(group, sizeof(group), "%s", g);
                    nerr = 0;
                }
                if (sim_predict(coll, algo, ranks[ri], net ? 1 : ranks[ri], bytes, &prm, &pred, err, sizeof(err)) != 0) {
                    printf("%5d %-4s %-10s %-14s %6ld %12.2f %12.2f  not simulated: %s\n", ranks[ri], net ? "net" : "shm",
                           coll, algo, bytes, tmin * 1e-3, tmed * 1e-3, err);
                    continue;
                }
                printf("%5d %-4s %-10s %-14s %6ld %12.2f %12.2f %12.2f %8.2f\n", ranks[ri], net ? "net" : "shm", coll, algo,
                       bytes, tmin * 1e-3, tmed * 1e-3, pred * 1e-3, pred / tmed);
                if (nerr < 16)
                    errs[nerr++] = fabs(pred / tmed - 1);
            }
            group_summary(group, errs, nerr, &groups, &good);
            if (pclose(f) != 0) {
                fprintf(stderr, "rdmach-sim validate: %s failed\n", cmd);
                return 1;
            }
        }
    printf("validation: %d of %d algorithm groups within 20%% (median over sizes)\n", good, groups);
    return 0;
}
