/*
 * rdmach-sim calibrate: measure this machine with rdmach-sim-probe on 2
 * ranks, once over shared memory and once over the network channel
 * (RDMACH_VNODE_SIZE=1), and fit each channel's LogGOPS parameters:
 *   o = the cost of posting a send;  g = the per-message time of a stream
 *   of empty messages (at least o);  L = half the empty round trip less 2o;
 *   G = the per-byte time of a stream of 1 MiB messages;  O = the per-byte
 *   growth of half the round trip over eager sizes, less G (at least 0);
 *   S = the library's eager limit;  gamma = MPI_Reduce_local of doubles.
 * The programs are looked for beside rdmach-sim (build tree or install).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sim.h"

struct probe {
    double post, s0, s1m, pp[2][2], reduce_b, reduce_ns, eager;   /* pp: {bytes, ns} at 0 and ~eager */
    int have;
};

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
    ssize_t l = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
    if (l <= 0) {
        fprintf(stderr, "rdmach-sim calibrate: cannot find the program's directory\n");
        return 1;
    }
    dir[l] = '\0';
    *strrchr(dir, '/') = '\0';
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
