/*
 * The library's path per call of one algorithm (`callalgo` lines).
 *
 * `callc` is a collective's path timed on the algorithm the library selects
 * on 2 ranks (alltoall: shmseg). The other algorithms take paths of their
 * own before and around their messages: the leader and core-parallel
 * alltoalls build a node map and their per-call tables in the call's
 * temporaries (src/coll/alltoall_nodes.c, alltoall_leader.c `gather`,
 * alltoall_coreparallel.c `plan` and `shuffle`) and calloc and free a
 * request array per batch of messages (src/coll/coll_p2p.c
 * rch_coll_batch_init, twice a call); pairwise and linear take a batch too,
 * shmseg none. rdmach-sim-probe --algocall times each alltoall algorithm on
 * its 2 ranks with blocks of 0 bytes (`callalgo alltoall ALGO 0 NS`: no
 * data to copy or move, the algorithm's own work and its empty messages),
 * and `rdmach-sim callalgo` subtracts what the engine predicts for that same
 * loop with no call cost: what is left is the algorithm's own CPU per call,
 * which then replaces callc (or call) for calls of that algorithm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "sim.h"

double sim_callalgo_ns(const struct sim_params *p, int coll_id, const char *algo)
{
    for (int i = 0; i < p->ncallalgo; i++)
        if (p->callalgo_coll[i] == coll_id && !strcmp(p->callalgo_name[i], algo))
            return p->callalgo[i];
    return -1;
}

/* Set (or replace) coll/algo's figure; -1 when the table is full. */
static int set(struct sim_params *p, int coll_id, const char *algo, double ns)
{
    int i = 0;
    while (i < p->ncallalgo && (p->callalgo_coll[i] != coll_id || strcmp(p->callalgo_name[i], algo)))
        i++;
    if (i == SIM_CALLALGO_MAX)
        return -1;
    p->callalgo_coll[i] = coll_id;
    snprintf(p->callalgo_name[i], sizeof(p->callalgo_name[i]), "%s", algo);
    p->callalgo[i] = ns;
    p->ncallalgo += i == p->ncallalgo;
    return 0;
}

int sim_callalgo_line(char *save, struct sim_params *p, const char *path, int line, char *err, size_t len)
{
    char *coll, *algo, *v, *end;
    int n = 0;
    while ((coll = strtok_r(NULL, " \t\r\n", &save))) {
        algo = strtok_r(NULL, " \t\r\n", &save);
        v = algo ? strtok_r(NULL, " \t\r\n", &save) : NULL;
        double ns = v ? strtod(v, &end) : -1;
        int id = rch_coll_id_of(coll);
        if (!v || *end || ns < 0 || id == RCH_COLL_ID_MAX || strlen(algo) >= sizeof(p->callalgo_name[0]) ||
            set(p, id, algo, ns) != 0) {
            snprintf(err, len, "%s:%d: callalgo takes up to %d triples 'collective algorithm ns' (ns >= 0)", path, line,
                     SIM_CALLALGO_MAX);
            return -1;
        }
        n++;
    }
    if (n)
        return 0;
    snprintf(err, len, "%s:%d: callalgo needs at least one triple 'collective algorithm ns'", path, line);
    return -1;
}

void sim_callalgo_save(FILE *f, const struct sim_params *p)
{
    for (int i = 0; i < p->ncallalgo; i++)
        fprintf(f, "%s %s %s %.1f%s", i ? "" : "callalgo", rch_coll_name((enum rch_coll_id)p->callalgo_coll[i]),
                p->callalgo_name[i], p->callalgo[i], i + 1 == p->ncallalgo ? "\n" : "");
}

int sim_callalgo_fit(struct sim_params *p, const char *coll, const char *algo, double bytes, double ns, char *err,
                     size_t len)
{
    enum { LOOP = 100 };   /* the probe's loop in steady state, as sim_callc_fit */
    struct sim_params q = *p;
    q.call = q.icall = 0;
    q.ncallalgo = 0;
    for (int i = 0; i < SIM_CALLC; i++)
        q.callc[i] = 0;
    double pred;
    if (sim_predict(coll, algo, 2, 2, 2, (long)bytes, LOOP, &q, &pred, err, len) != 0)
        return -1;
    if (set(p, rch_coll_id_of(coll), algo, ns > pred ? ns - pred : 0) != 0) {
        snprintf(err, len, "more than %d algorithms", SIM_CALLALGO_MAX);
        return -1;
    }
    printf("callalgo %s %s: %.1f ns a call of %.0f B on 2 ranks, %.1f predicted without a call: %.1f ns\n", coll, algo,
           ns, bytes, pred, ns > pred ? ns - pred : 0);
    return 0;
}

/* The figures of every `callalgo COLL ALGO B NS` line of the output (the
 * probe's lines, indented or not), per collective and algorithm; each is
 * a run's fastest block already. */
struct fig {
    char coll[32], algo[32];
    double bytes, ns[64];
    int n;
};

static int read_figs(const char *path, struct fig *fs, int *nf)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256], coll[32], algo[32];
    double b, ns;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, " callalgo %31s %31s %lf %lf", coll, algo, &b, &ns) != 4)
            continue;
        int i = 0;
        while (i < *nf && (strcmp(fs[i].coll, coll) || strcmp(fs[i].algo, algo)))
            i++;
        if (i == SIM_CALLALGO_MAX)
            continue;
        if (i == *nf) {
            fs[i] = (struct fig){ .bytes = b };
            snprintf(fs[i].coll, sizeof(fs[i].coll), "%s", coll);
            snprintf(fs[i].algo, sizeof(fs[i].algo), "%s", algo);
            (*nf)++;
        }
        if (fs[i].n < 64)
            fs[i].ns[fs[i].n++] = ns;
    }
    fclose(f);
    return 0;
}

/*
 * --ref COLL:ALGO,...: BASE's callc of each collective was fitted on ALGO
 * (the one the library selects on the probe's 2 ranks: alltoall shmseg,
 * allreduce shmseg, bcast binomial) in another run, maybe in another state
 * of the machine (a loaded machine's figures differ by tens of ns from a
 * quiet one's). Each other algorithm's figure is then BASE's callc plus its
 * excess over ALGO's in this run, both measured under the same load: what
 * the algorithm's own path costs beyond the reference's; ALGO keeps callc
 * (its entry is removed). 0, or -1 when a collective has no reference, or
 * its reference was not timed.
 */
static const char *ref_of(const char *refs, const char *coll, char *buf, size_t len)
{
    size_t n = strlen(coll);
    for (const char *w = refs; w; w = strchr(w, ',') ? strchr(w, ',') + 1 : NULL)
        if (!strncmp(w, coll, n) && w[n] == ':') {
            size_t l = strcspn(w + n + 1, ",");
            snprintf(buf, len, "%.*s", (int)(l < len ? l : len - 1), w + n + 1);
            return buf;
        }
    return NULL;
}

static int relative(struct sim_params *p, const char *refs, char *err, size_t len)
{
    double own[SIM_CALLALGO_MAX];
    int keep[SIM_CALLALGO_MAX];
    char ref[32];
    for (int i = 0; i < p->ncallalgo; i++) {
        int id = p->callalgo_coll[i], k = sim_callc_index(id);
        const char *coll = rch_coll_name((enum rch_coll_id)id);
        double r = ref_of(refs, coll, ref, sizeof(ref)) ? sim_callalgo_ns(p, id, ref) : -1;
        if (r < 0) {
            snprintf(err, len, "%s: %s", coll, ref_of(refs, coll, ref, sizeof(ref)) ? "its reference was not timed"
                                                                                    : "no reference (COLL:ALGO)");
            return -1;
        }
        double base = k >= 0 && p->callc[k] >= 0 ? p->callc[k] : p->call;
        double x = base + p->callalgo[i] - r;
        own[i] = x > 0 ? x : 0;
        keep[i] = strcmp(p->callalgo_name[i], ref) != 0;
        if (keep[i])
            printf("callalgo %s %s: %.1f ns (the collective's call and this algorithm's excess over %s's)\n", coll,
                   p->callalgo_name[i], own[i], ref);
    }
    int n = 0;
    for (int i = 0; i < p->ncallalgo; i++) {
        if (!keep[i])
            continue;
        p->callalgo_coll[n] = p->callalgo_coll[i];
        memmove(p->callalgo_name[n], p->callalgo_name[i], sizeof(p->callalgo_name[n]));
        p->callalgo[n++] = own[i];
    }
    p->ncallalgo = n;
    return 0;
}

int sim_callalgo(int argc, char **argv)
{
    const char *from[4], *base = NULL, *out = "rdmach-sim.params", *ref = NULL;
    int nfrom = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--from") && i + 1 < argc && nfrom < 4)
            from[nfrom++] = argv[++i];
        else if (!strcmp(argv[i], "--params") && i + 1 < argc)
            base = argv[++i];
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--ref") && i + 1 < argc)
            ref = argv[++i];
        else
            nfrom = 0, i = argc;
    }
    if (!nfrom || !base) {
        fprintf(stderr, "rdmach-sim callalgo: usage: rdmach-sim callalgo --from PROBE_OUTPUT --params BASE [--ref COLL:ALGO,...] "
                        "[-o FILE] (PROBE_OUTPUT: rdmach-sim-probe --algocall's lines, one run or several; up to 4 "
                        "--from)\n");
        return 2;
    }
    struct sim_params p;
    struct fig fs[SIM_CALLALGO_MAX];
    int nf = 0;
    char err[512];
    if (sim_params_load(base, &p, err, sizeof(err)) != 0) {
        fprintf(stderr, "rdmach-sim callalgo: %s\n", err);
        return 2;
    }
    p.ncallalgo = 0;           /* BASE's own callalgo line, if any, is fitted again */
    for (int i = 0; i < nfrom; i++)
        if (read_figs(from[i], fs, &nf) != 0) {
            fprintf(stderr, "rdmach-sim callalgo: cannot read %s\n", from[i]);
            return 2;
        }
    if (nf == 0) {
        fprintf(stderr, "rdmach-sim callalgo: %s: no 'callalgo COLL ALGO BYTES NS' line\n", from[0]);
        return 2;
    }
    for (int i = 0; i < nf; i++) {
        /* the median of the runs within twice the fastest (as calibrate
         * keeps its runs): a run whose blocks all waited for a time slice
         * of the other rank (a loaded machine) is dropped, not averaged */
        qsort(fs[i].ns, (size_t)fs[i].n, sizeof(double), sim_cmp_double);
        int n = 0;
        while (n < fs[i].n && fs[i].ns[n] <= 2 * fs[i].ns[0])
            n++;
        double med = n % 2 ? fs[i].ns[n / 2] : (fs[i].ns[n / 2 - 1] + fs[i].ns[n / 2]) / 2;
        printf("%s %s: %d of %d runs kept\n", fs[i].coll, fs[i].algo, n, fs[i].n);
        if (rch_coll_id_of(fs[i].coll) == RCH_COLL_ID_MAX ||
            sim_callalgo_fit(&p, fs[i].coll, fs[i].algo, fs[i].bytes, med, err, sizeof(err)) != 0) {
            fprintf(stderr, "rdmach-sim callalgo: %s %s: %s\n", fs[i].coll, fs[i].algo,
                    rch_coll_id_of(fs[i].coll) == RCH_COLL_ID_MAX ? "unknown collective" : err);
            return 1;
        }
    }
    if (ref && relative(&p, ref, err, sizeof(err)) != 0) {
        fprintf(stderr, "rdmach-sim callalgo: --ref %s: %s\n", ref, err);
        return 1;
    }
    char comment[512];
    snprintf(comment, sizeof(comment), "# %s with callalgo fitted from %s%s%s (rdmach-sim callalgo%s%s)\n", base,
             from[0], nfrom > 1 ? " and " : "", nfrom > 1 ? from[nfrom - 1] : "", ref ? " --ref " : "", ref ? ref : "");
    if (sim_params_save(out, &p, comment) != 0) {
        fprintf(stderr, "rdmach-sim callalgo: cannot write %s\n", out);
        return 1;
    }
    printf("written to %s\n", out);
    return 0;
}
