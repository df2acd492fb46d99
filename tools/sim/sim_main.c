/*
 * rdmach-sim: predict rdmach's collectives at scale (see sim.h).
 *
 *   rdmach-sim barrier --ranks 1048576                    # dissemination, hier, hw
 *   rdmach-sim allreduce --ranks 2..65536 --size 8,4096 --algos all
 *   rdmach-sim alltoall --nodes 2..64 --ppn 8 --algos all --size 8,1024
 *   rdmach-sim allreduce --nodes 4096 --ppn 4 --compute 1ms --iters 20 --noise 1ms,100us,unsync
 *   rdmach-sim allreduce --ranks 64 --noise-trace out/detours_rank0.csv   # noise rdmach-noise recorded
 *   rdmach-sim pingpong --size 0,1024,65536 --params machine.txt
 *   rdmach-sim calibrate -o machine.txt                   # measure this machine (sim_calib.c)
 *   rdmach-sim validate --params machine.txt --ranks 2,4  # predicted against measured (sim_validate.c)
 *   rdmach-sim validate --from saved.txt --params other.txt  # the same measurements predicted again
 *   rdmach-sim callalgo --from probe.txt --params machine.txt --ref alltoall:shmseg -o out.txt  # each algorithm's call (sim_callalgo.c)
 *   rdmach-sim turns --trace perf.txt --run collsw.txt   # which rank of a shared core runs next (sim_turns.c)
 *
 * For each size, algorithm and rank count: every rank's program is recorded
 * by running the library's algorithm (src/coll, by name from its lists, or
 * "auto": the library's own selection, or "nbc": its non-blocking collective's
 * schedule, sim_nbc.c; the node segment's shmseg and shmrsag on one node,
 * sim_seg.c) against the recording device, then
 * simulated; the table gives the time of the slowest rank, the events and
 * their rate, the distinct programs and the memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "base/duration.h"
#include "base/tunables.h"
#include "coll/barrier.h"
#include "coll/coll_impl.h"
#include "sim.h"
#include "tool_plot.h"

#define MAX_LIST 64

struct opts {
    const char *coll, *params, *csv, *trace, *algos, *noise_text;
    long ranks[MAX_LIST], sizes[MAX_LIST];
    int nranks, nsizes, ppn, by_nodes, iters, noise_nodes;
    int switches;                      /* --switches on: the engine's hand-offs and switches a call */
    double cores;                      /* --cores: of a node (-1: not given, a core per rank) */
    double compute;                    /* ns of work before each collective (0: none) */
};

static int fail(const char *fmt, const char *a)
{
    fprintf(stderr, "rdmach-sim: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return 2;
}

/* "a..b" (powers of two from a to b), or "a,b,c". */
static int parse_list(const char *s, long *out, int *n, long min, long max)
{
    char *e;
    *n = 0;
    const char *dots = strstr(s, "..");
    if (dots) {
        long a = strtol(s, &e, 10), b;
        if (e != dots || a < min)
            return -1;
        b = strtol(dots + 2, &e, 10);
        if (*e || b < a || b > max)
            return -1;
        for (long v = a; v <= b && *n < MAX_LIST; v *= 2)
            out[(*n)++] = v;
        return 0;
    }
    for (const char *p = s; *p;) {
        long v = strtol(p, &e, 10);
        if (e == p || v < min || v > max || *n == MAX_LIST || (*e && *e != ','))
            return -1;
        out[(*n)++] = v;
        p = *e ? e + 1 : e;
    }
    return *n ? 0 : -1;
}

/* ---- recording a collective for every rank ---- */

struct job {
    enum rch_coll_id id;
    const char *algo;                  /* a library algorithm, "auto", "hier" or "hw" */
    int p, ppn;
    long size;
    int *world_of, *node_of;
    size_t *counts;                    /* reduce_scatter: elements per rank */
    void *sbuf, *rbuf;
    int probe;                         /* the calls come after the probe's barrier (sim_predict) */
    double probe_call;                 /* its call's ns */
};

/* The job's rank maps and buffers (size: bytes per rank's block; allgather
 * receives, reduce_scatter sends and alltoall both, p blocks); 0 or -1. */
static int job_alloc(struct job *j)
{
    int p = j->p;
    size_t blk = (size_t)j->size, all = (size_t)p * blk;
    int many_in = j->id == RCH_COLL_ALLTOALL || j->id == RCH_COLL_REDUCE_SCATTER;
    int many_out = j->id == RCH_COLL_ALLTOALL || j->id == RCH_COLL_ALLGATHER;
    j->world_of = malloc((size_t)p * sizeof(int));
    j->node_of = malloc((size_t)p * sizeof(int));
    j->counts = malloc((size_t)p * sizeof(size_t));
    j->sbuf = calloc(1, (many_in ? all : blk) + 64);
    j->rbuf = calloc(1, (many_out ? all : blk) + 64);
    if (!j->world_of || !j->node_of || !j->counts || !j->sbuf || !j->rbuf)
        return -1;
    for (int r = 0; r < p; r++) {
        j->world_of[r] = r;
        j->node_of[r] = r / j->ppn;
        j->counts[r] = blk / sizeof(double);
    }
    return 0;
}

static void job_free(struct job *j)
{
    free(j->world_of);
    free(j->node_of);
    free(j->counts);
    free(j->sbuf);
    free(j->rbuf);
}

static void view_of(const struct job *j, int rank, struct rch_coll_comm *c)
{
    *c = (struct rch_coll_comm){ .rank = rank, .size = j->p, .world_of = j->world_of, .ctx = 1,
                                 .nnodes = (j->p + j->ppn - 1) / j->ppn, .max_ppn = j->ppn,
                                 .node_of = j->node_of };
    /* one node: the node segment, for its algorithms and for the library's
     * selection (which picks them there); no memory: no state, they do not apply */
    if ((sim_seg_algo(j->algo) || (!strcmp(j->algo, "auto") && j->id != RCH_COLL_BARRIER)) && c->nnodes == 1)
        sim_seg_attach(c);
}

static struct rch_coll_args args_of(const struct job *j)
{
    return (struct rch_coll_args){ .sbuf = j->sbuf, .rbuf = j->rbuf, .bytes = (size_t)j->size,
                                   .count = (size_t)j->size / sizeof(double), .counts = j->counts,
                                   .op = sim_rec_reduce_op(), .root = 0 };
}

/* The hierarchical barrier as rdmach runs it (barrier_hier.c): the ranks of
 * a node arrive at its leader, the leaders run the library's dissemination
 * barrier, each leader releases its node. The node's shared-memory counter
 * and sense word are modelled as 0-byte messages over the shm channel. */
static rdmach_status_t hier_barrier(const struct job *j, int rank)
{
    static int *leaders;
    static int nleaders;
    int nnodes = (j->p + j->ppn - 1) / j->ppn, node = rank / j->ppn, leader = node * j->ppn;
    if (nleaders != nnodes) {
        free(leaders);
        leaders = malloc((size_t)nnodes * sizeof(int));
        if (!leaders)
            return RDMACH_ERR_NO_MEMORY;
        for (int i = 0; i < nnodes; i++)
            leaders[i] = i * j->ppn;
        nleaders = nnodes;
    }
    struct rch_coll_comm all;
    view_of(j, rank, &all);
    char token = 0;
    rdmach_status_t st;
    if (rank != leader) {
        sim_rec_view(j->world_of);
        st = rch_coll_send(&all, &token, 0, leader, RCH_COLL_TAG_BARRIER);
        return st != RDMACH_OK ? st : rch_coll_recv(&all, &token, 0, leader, RCH_COLL_TAG_BARRIER);
    }
    int members = (j->p - leader < j->ppn ? j->p - leader : j->ppn) - 1;
    sim_rec_view(j->world_of);
    for (int m = 1; m <= members; m++)
        if ((st = rch_coll_recv(&all, &token, 0, leader + m, RCH_COLL_TAG_BARRIER)) != RDMACH_OK)
            return st;
    struct rch_coll_comm lv = { .rank = node, .size = nnodes, .world_of = leaders, .ctx = 1 };
    sim_rec_view(leaders);
    if ((st = rch_coll_barrier_dissem_run(&lv, RCH_COLL_TAG_BARRIER)) != RDMACH_OK)
        return st;
    sim_rec_view(j->world_of);
    for (int m = 1; m <= members; m++)
        if ((st = rch_coll_send(&all, &token, 0, leader + m, RCH_COLL_TAG_BARRIER)) != RDMACH_OK)
            return st;
    return RDMACH_OK;
}

static rdmach_status_t pingpong(const struct job *j, int rank)
{
    struct rch_coll_comm c;
    view_of(j, rank, &c);
    sim_rec_view(j->world_of);
    rdmach_status_t st;
    if (rank == 0) {
        st = rch_coll_send(&c, j->sbuf, (size_t)j->size, 1, RCH_COLL_TAG_BCAST);
        return st != RDMACH_OK ? st : rch_coll_recv(&c, j->rbuf, (size_t)j->size, 1, RCH_COLL_TAG_BCAST);
    }
    st = rch_coll_recv(&c, j->rbuf, (size_t)j->size, 0, RCH_COLL_TAG_BCAST);
    return st != RDMACH_OK ? st : rch_coll_send(&c, j->sbuf, (size_t)j->size, 0, RCH_COLL_TAG_BCAST);
}

/* The 2-rank schedules that are no collective: pingpong, exchange */
static int two_rank(const char *name)
{
    return !strcmp(name, "pingpong") || !strcmp(name, "exchange");
}

/* `exchange`: ranks 0 and 1 swap size bytes (MPI_Sendrecv, as
 * rdmach-sim-probe's `exchange` times it); others take no part */
static rdmach_status_t exchange(const struct job *j, int rank)
{
    struct rch_coll_comm c;
    view_of(j, rank, &c);
    sim_rec_view(j->world_of);
    if (rank > 1)
        return RDMACH_OK;
    return rch_coll_sendrecv(&c, j->sbuf, (size_t)j->size, 1 - rank, j->rbuf, (size_t)j->size, 1 - rank,
                             RCH_COLL_TAG_BCAST);
}

static rdmach_status_t run_one(const struct job *j, int rank, const struct rch_coll_algo *algo)
{
    if (!strcmp(j->algo, "hw")) {
        sim_rec_op(SIM_HWBAR, 0, 0);
        return RDMACH_OK;
    }
    if (!strcmp(j->algo, "hier"))
        return hier_barrier(j, rank);
    if (!strcmp(j->algo, "pingpong"))
        return pingpong(j, rank);
    if (!strcmp(j->algo, "exchange"))
        return exchange(j, rank);
    if (!strcmp(j->algo, "nbc")) {
        struct rch_coll_comm c;
        view_of(j, rank, &c);
        sim_rec_view(j->world_of);
        struct rch_coll_args a = args_of(j);
        return (rdmach_status_t)sim_nbc_run(j->id, &c, &a);
    }
    struct rch_coll_comm c;
    view_of(j, rank, &c);
    sim_rec_view(j->world_of);
    struct rch_coll_args a = args_of(j);
    sim_copy_watch(1);
    rdmach_status_t st = algo ? algo->run(&c, &a) : rch_coll_run(j->id, &c, &a);
    sim_copy_watch(0);
    return st;
}

/* What rdmach-sim-probe --coll does before a timed block: an MPI_Barrier
 * (dissemination, as validate runs it: its call, then its messages), after
 * which each rank starts its clock (MARK): the ranks leave the barrier at
 * different times, and the block's slowest rank carries that skew. */
static rdmach_status_t probe_barrier(const struct job *j, int rank)
{
    struct rch_coll_comm c = { .rank = rank, .size = j->p, .world_of = j->world_of, .ctx = 1 };
    sim_rec_view(j->world_of);
    if (j->probe_call > 0)
        sim_rec_op(SIM_COMPUTE, 1, (uint64_t)j->probe_call);
    rdmach_status_t st = rch_coll_barrier_dissem_run(&c, RCH_COLL_TAG_BARRIER);
    sim_rec_op(SIM_MARK, 0, 0);
    return st;
}

/* Record every rank's program; NULL with a message in err. */
static struct sim_progs *record(const struct job *j, double compute, const char **chosen, char *err, size_t len)
{
    const struct rch_coll_algo *algo = NULL;
    if (strcmp(j->algo, "auto") && strcmp(j->algo, "hier") && strcmp(j->algo, "hw") && !two_rank(j->algo) &&
        strcmp(j->algo, "nbc")) {
        algo = rch_coll_find_algo(j->id, j->algo);
        if (!algo) {
            snprintf(err, len, "%s has no algorithm '%s'", rch_coll_name(j->id), j->algo);
            return NULL;
        }
    }
    struct sim_progs *t = sim_progs_new(j->p);
    if (!t) {
        snprintf(err, len, "no memory for %d ranks' programs", j->p);
        return NULL;
    }
    *chosen = j->algo;
    rdmach_status_t st0;
    for (int r = 0; r < j->p; r++) {
        struct rch_coll_comm c;
        view_of(j, r, &c);
        struct rch_coll_args a = args_of(j);
        if (algo && !algo->applies(&c, &a)) {
            snprintf(err, len, "%s does not apply here%s", j->algo,
                     sim_seg_algo(j->algo) && c.nnodes > 1 ? " (the node segment's: one node only)" : "");
            sim_progs_free(t);
            return NULL;
        }
        sim_rec_begin(t, r);
        if (j->probe && (st0 = probe_barrier(j, r)) != RDMACH_OK) {
            snprintf(err, len, "rank %d: the barrier before the calls: %s", r, rdmach_last_error());
            sim_progs_free(t);
            return NULL;
        }
        if (compute > 0)
            sim_rec_op(SIM_COMPUTE, 1, (uint64_t)compute);
        rdmach_status_t st = run_one(j, r, algo);
        if (!algo && r == 0 && !strcmp(j->algo, "auto"))
            *chosen = rch_coll_last_algo(j->id);
        if (st != RDMACH_OK) {
            snprintf(err, len, "rank %d: %s", r, rdmach_last_error());
            sim_progs_free(t);
            return NULL;
        }
        if (sim_rec_end(err, len) != 0) {
            sim_progs_free(t);
            return NULL;
        }
    }
    return t;
}

/* Job j (its fields set, its buffers not), its calls costing `call` each,
 * on host layout `host`, no noise, iters back to back: ns per call. */
static int predict(struct job *j, double call, int host, int iters, const struct sim_params *prm, double *t_ns,
                   char *err, size_t len)
{
    struct sim_noise quiet = { 0 };
    int rc = -1;
    if (job_alloc(j) != 0) {
        snprintf(err, len, "no memory");
        goto out;
    }
    const char *chosen;
    struct sim_progs *t = record(j, call, &chosen, err, len);
    struct sim_layout lay = { j->p, j->ppn, host };
    struct sim_result res;
    if (t && sim_run(t, &lay, prm, &quiet, iters, &res, err, len) == 0) {
        *t_ns = res.span / iters;
        rc = 0;
    }
    sim_progs_free(t);
out:
    job_free(j);
    return rc;
}

/* One collective on p ranks, no noise, iters calls back to back after a
 * barrier, timed as the probe times them: its predicted time per call (sim.h). */
int sim_predict(const char *coll, const char *algo, int p, int ppn, int host, long size, int iters,
                const struct sim_params *prm, double *t_ns, char *err, size_t len)
{
    struct job j = { .id = rch_coll_id_of(coll), .algo = algo, .p = p, .ppn = ppn, .size = size,
                     .probe = 1, .probe_call = sim_call_ns(prm, RCH_COLL_BARRIER, "dissemination") };
    return predict(&j, sim_call_ns(prm, j.id, algo), host, iters, prm, t_ns, err, len);
}

int sim_predict_pair(const char *what, int net, long size, int iters, const struct sim_params *prm, double *t_ns,
                     char *err, size_t len)
{
    struct job j = { .id = RCH_COLL_BCAST, .algo = what, .p = 2, .ppn = net ? 1 : 2, .size = size };
    struct sim_params flat = *prm;
    flat.cores = 0;
    return predict(&j, 0, 2, iters, &flat, t_ns, err, len);
}

/* ---- the study ---- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long peak_rss_mb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024;
}

/* The algorithms to run: the library's list of the collective (those that
 * work in the node segment only where the job is one node), plus
 * the barrier's hierarchical and hardware ones and the non-blocking
 * collective's schedule. */
static int algo_names(const struct opts *o, enum rch_coll_id id, int one_node, const char **names, int max)
{
    int n = 0;
    if (two_rank(o->coll)) {
        names[0] = o->coll;
        return 1;
    }
    if (strcmp(o->algos, "all") != 0) {
        static char buf[512];
        snprintf(buf, sizeof(buf), "%s", o->algos);
        for (char *save, *w = strtok_r(buf, ",", &save); w && n < max; w = strtok_r(NULL, ",", &save)) {
            int special = !strcmp(w, "auto") || (id == RCH_COLL_BARRIER && (!strcmp(w, "hier") || !strcmp(w, "hw"))) ||
                          (sim_nbc_has(id) && !strcmp(w, "nbc"));
            if (!special && !rch_coll_find_algo(id, w)) {
                fprintf(stderr, "rdmach-sim: %s has no algorithm '%s'; it has:", o->coll, w);
                for (int i = 0; i < rch_coll_algo_count(id); i++)
                    fprintf(stderr, " %s", rch_coll_algo_name(id, i));
                fprintf(stderr, "%s%s auto\n", id == RCH_COLL_BARRIER ? " hier hw" : "", sim_nbc_has(id) ? " nbc" : "");
                return -1;
            }
            names[n++] = w;
        }
        return n;
    }
    for (int i = 0; i < rch_coll_algo_count(id) && n < max; i++) {
        const char *a = rch_coll_algo_name(id, i);
        if (one_node || !sim_seg_algo(a))   /* shmseg, shmrsag: through the node segment */
            names[n++] = a;
    }
    if (id == RCH_COLL_BARRIER && n + 2 <= max) {
        names[n++] = "hier";
        names[n++] = "hw";
    }
    if (sim_nbc_has(id) && n < max)
        names[n++] = "nbc";
    if (id != RCH_COLL_BARRIER && n < max)
        names[n++] = "auto";        /* what the library's selection picks here */
    return n;
}

static void mark_noisy_nodes(uint8_t *on, int p, int ppn, int count)
{
    int nnodes = (p + ppn - 1) / ppn;
    memset(on, 0, (size_t)p);
    /* spread over the machine: every (nnodes / count)-th node */
    for (int k = 0; k < count && k < nnodes; k++) {
        int node = (int)((long long)k * nnodes / count);
        for (int r = node * ppn; r < (node + 1) * ppn && r < p; r++)
            on[r] = 1;
    }
}

static int study(const struct opts *o, const struct sim_params *prm, struct sim_noise *noise)
{
    enum rch_coll_id id = two_rank(o->coll) ? RCH_COLL_BCAST : rch_coll_id_of(o->coll);
    const char *names[32];
    int one_node = 1, rc = 0;
    for (int ri = 0; ri < o->nranks; ri++)
        one_node &= o->by_nodes ? o->ranks[ri] == 1 : o->ranks[ri] <= o->ppn;
    int nalgos = algo_names(o, id, one_node, names, 32);
    FILE *csv = NULL;
    if (nalgos < 0)
        return 2;
    if (o->csv && !(csv = fopen(o->csv, "w")))
        return fail("cannot write %s", o->csv);
    if (csv)
        fprintf(csv, "coll,algo,ranks,nodes,ppn,bytes,iters,time_us,per_iter_us,events,events_per_s,programs,program_ops,memory_mb\n");
    printf("%-10s %-14s %8s %6s %4s %8s %12s %12s %10s %9s %6s %9s\n", "coll", "algo", "ranks", "nodes", "ppn", "bytes",
           "time_us", "per_iter_us", "events", "Mev/s", "progs", "mem_MB");
    for (int si = 0; si < o->nsizes; si++)
        for (int ri = 0; ri < o->nranks; ri++) {
            /* the fastest algorithm of this size and rank count, and auto's pick */
            double best_t = 0, auto_t = 0;
            const char *best = NULL;
            char auto_pick[64] = "";
            for (int ai = 0; ai < nalgos; ai++) {
                int ppn = o->ppn, p = (int)(o->by_nodes ? o->ranks[ri] * ppn : o->ranks[ri]);
                if (two_rank(o->coll))
                    p = 2;
                if (ppn > p)
                    ppn = p;
                struct job j = { .id = id, .algo = names[ai], .p = p, .ppn = ppn, .size = o->sizes[si] };
                size_t buf = id == RCH_COLL_ALLTOALL || id == RCH_COLL_ALLGATHER || id == RCH_COLL_REDUCE_SCATTER
                                 ? (size_t)p * (size_t)j.size : (size_t)j.size;
                if (buf > ((size_t)1 << 30)) {
                    printf("%-10s %-14s %8d: %zu bytes of buffers per rank: not simulated\n", o->coll, j.algo, p, buf);
                    continue;
                }
                uint8_t *on = o->noise_nodes ? malloc((size_t)p) : NULL;
                if (job_alloc(&j) != 0 || (o->noise_nodes && !on)) {
                    fprintf(stderr, "rdmach-sim: no memory for %d ranks\n", p);
                    return 1;
                }
                if (on)
                    mark_noisy_nodes(on, p, ppn, o->noise_nodes);
                noise->on = on;
                char err[512];
                const char *chosen = j.algo;
                double t0 = now_s();
                struct sim_progs *t = record(&j, o->compute + sim_call_ns(prm, j.id, j.algo), &chosen, err, sizeof(err));
                double trec = now_s() - t0;
                struct sim_result res;
                struct sim_layout lay = { p, ppn };
                if (!t || sim_run(t, &lay, prm, noise, o->iters, &res, err, sizeof(err)) != 0) {
                    printf("%-10s %-14s %8d %6d %4d %8ld  %s\n", o->coll, j.algo, p, (p + ppn - 1) / ppn, ppn, j.size, err);
                    rc = !t ? rc : 1;
                } else {
                    char label[64];
                    snprintf(label, sizeof(label), strcmp(chosen, j.algo) ? "auto:%s" : "%s", chosen);
                    double mem = (double)(sim_progs_bytes(t) + res.engine_bytes) / (1 << 20);
                    double rate = res.seconds > 0 ? (double)res.events / res.seconds : 0;
                    printf("%-10s %-14s %8d %6d %4d %8ld %12.3f %12.3f %10llu %9.2f %6u %9.1f\n", o->coll, label, p,
                           (p + ppn - 1) / ppn, ppn, j.size, res.time * 1e-3, res.time * 1e-3 / o->iters,
                           (unsigned long long)res.events, rate * 1e-6, sim_progs_distinct(t), mem);
                    if (csv)
                        fprintf(csv, "%s,%s,%d,%d,%d,%ld,%d,%.3f,%.3f,%llu,%.0f,%u,%zu,%.1f\n", o->coll, label, p,
                                (p + ppn - 1) / ppn, ppn, j.size, o->iters, res.time * 1e-3, res.time * 1e-3 / o->iters,
                                (unsigned long long)res.events, rate, sim_progs_distinct(t), sim_progs_total_ops(t), mem);
                    if (!strcmp(j.algo, "auto")) {
                        auto_t = res.time;
                        snprintf(auto_pick, sizeof(auto_pick), "%s", chosen);
                    } else if (!best || res.time < best_t) {
                        best_t = res.time;
                        best = j.algo;
                    }
                    if (o->switches && prm->cores >= 1)
                        printf("           (per call over all ranks: %.2f waits that handed their core off, "
                               "%.2f context switches back, %.2f turns of waiting ranks)\n",
                               (double)res.handoffs / o->iters, (double)res.switches / o->iters, res.turns / o->iters);
                    if (p >= 65536)
                        printf("           (recorded in %.2f s, simulated in %.2f s: %.2f million events/s; "
                               "peak memory of the process %ld MB)\n", trec, res.seconds, rate * 1e-6, peak_rss_mb());
                }
                fflush(stdout);
                sim_progs_free(t);
                free(on);
                noise->on = NULL;
                job_free(&j);
            }
            if (best && auto_pick[0])
                printf("%-10s fastest: %s %.3f us; auto picks %s (%+.1f%%)\n", "", best, best_t * 1e-3, auto_pick,
                       (auto_t / best_t - 1) * 100);
        }
    if (csv && fclose(csv) != 0)
        rc = fail("cannot write %s", o->csv);
    else if (csv)
        rch_tool_plot("rdmach-sim-plot.py", o->csv);
    return rc;
}


static int usage(void)
{
    fprintf(stderr,
            "usage: rdmach-sim barrier|allreduce|bcast|alltoall|allgather|reduce_scatter|pingpong|exchange\n"
            "         [--ranks LIST | --nodes LIST [--ppn N]]\n"
            "         [--algos all|auto|NAME,...] [--size LIST] [--params FILE] [--iters N] [--compute DURATION]\n"
            "         [--noise PERIOD,DURATION[,sync|unsync] | --noise-trace DETOURS.csv[,sync]] [--noise-nodes N]\n"
            "         [--cores N [--switches on]] [--csv FILE]\n"
            "       rdmach-sim calibrate [-o FILE] [--runs N] [--from SAVED_CALIBRATE_OUTPUT [--params BASE]]\n"
            "       rdmach-sim callalgo --from PROBE_OUTPUT --params BASE [--ref COLL:ALGO,...] [-o FILE]\n"
            "       rdmach-sim turns --trace PERF_SCRIPT_OUTPUT --run COLLSW_OUTPUT\n"
            "       rdmach-sim validate [--params FILE] [--ranks LIST] [--colls LIST] [--from SAVED_VALIDATE_OUTPUT [--calls N]]\n"
            "  LIST: a..b (powers of two) or a,b,c\n");
    return 2;
}

static int parse_noise(const char *s, struct sim_noise *n)
{
    const char *p;
    n->period = (double)rch_base_parse_ns(s, &p);
    if (n->period < 10000 || *p != ',')
        return -1;
    n->duration = (double)rch_base_parse_ns(p + 1, &p);
    if (n->duration <= 0 || n->duration >= n->period)
        return -1;
    n->sync = 1;
    if (!strcmp(p, ",unsync"))
        n->sync = 0;
    else if (*p && strcmp(p, ",sync"))
        return -1;
    n->kind = 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    if (!strcmp(argv[1], "calibrate"))
        return sim_calibrate(argc - 1, argv + 1);
    if (!strcmp(argv[1], "validate"))
        return sim_validate(argc - 1, argv + 1);
    if (!strcmp(argv[1], "callalgo"))
        return sim_callalgo(argc - 1, argv + 1);
    if (!strcmp(argv[1], "turns"))
        return sim_turns(argc - 1, argv + 1);
    struct opts o = { .coll = argv[1], .algos = "all", .ppn = 1, .iters = 1, .cores = -1 };
    struct sim_params prm;
    struct sim_noise noise = { 0 };
    char err[512];
    sim_params_default(&prm);
    if (!two_rank(o.coll) && (rch_coll_id_of(o.coll) == RCH_COLL_ID_MAX ||
        (strcmp(o.coll, "barrier") && strcmp(o.coll, "allreduce") && strcmp(o.coll, "bcast") && strcmp(o.coll, "alltoall") &&
         strcmp(o.coll, "allgather") && strcmp(o.coll, "reduce_scatter"))))
        return fail("unknown collective '%s' (barrier, allreduce, bcast, alltoall, allgather, reduce_scatter, pingpong, "
                    "exchange, calibrate, validate)", o.coll);
    o.ranks[0] = 16;
    o.nranks = 1;
    o.sizes[0] = 8;
    o.nsizes = 1;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return fail("option %s needs a value", a);
        i++;
        if (!strcmp(a, "--ranks") || !strcmp(a, "--nodes")) {
            o.by_nodes = !strcmp(a, "--nodes");
            if (parse_list(v, o.ranks, &o.nranks, o.by_nodes ? 1 : 2, SIM_MAX_RANKS / 2) != 0)
                return fail("bad rank or node list '%s' (a..b or a,b,c; up to 8388608)", v);
        } else if (!strcmp(a, "--ppn")) {
            o.ppn = atoi(v);
            if (o.ppn < 1 || o.ppn > 1024)
                return fail("--ppn '%s': expected 1 to 1024", v);
        } else if (!strcmp(a, "--cores")) {
            o.cores = atoi(v);
            if (o.cores < 0 || o.cores > 1024)
                return fail("--cores '%s': expected 0 (a core per rank) to 1024", v);
        } else if (!strcmp(a, "--size")) {
            if (parse_list(v, o.sizes, &o.nsizes, 0, 1L << 30) != 0)
                return fail("bad size list '%s'", v);
        } else if (!strcmp(a, "--algos")) {
            o.algos = v;
        } else if (!strcmp(a, "--params")) {
            if (sim_params_load(v, &prm, err, sizeof(err)) != 0)
                return fail("%s", err);
        } else if (!strcmp(a, "--iters")) {
            o.iters = atoi(v);
            if (o.iters < 1 || o.iters > 1000000)
                return fail("--iters '%s': expected 1 to 1000000", v);
        } else if (!strcmp(a, "--compute")) {
            const char *e;
            o.compute = (double)rch_base_parse_ns(v, &e);
            if (o.compute < 0 || *e)
                return fail("--compute '%s': expected a duration like 1ms", v);
        } else if (!strcmp(a, "--noise")) {
            if (parse_noise(v, &noise) != 0)
                return fail("--noise '%s': expected PERIOD,DURATION[,sync|unsync] (period >= 10us, 0 < duration < period)", v);
            o.noise_text = v;
        } else if (!strcmp(a, "--noise-nodes")) {
            o.noise_nodes = atoi(v);
            if (o.noise_nodes < 1)
                return fail("--noise-nodes '%s': expected a number of nodes", v);
        } else if (!strcmp(a, "--noise-trace")) {
            /* FILE[,sync]: the same detours on every rank, else at a random phase per rank */
            char path[4096];
            size_t pl = strlen(v);
            int sync = pl > 5 && !strcmp(v + pl - 5, ",sync");
            snprintf(path, sizeof(path), "%.*s", (int)(sync ? pl - 5 : pl), v);
            if (sim_noise_load_trace(path, &noise, err, sizeof(err)) != 0)
                return fail("%s", err);
            noise.sync = sync;
            o.noise_text = v;
        } else if (!strcmp(a, "--csv")) {
            o.csv = v;
        } else if (!strcmp(a, "--switches")) {
            o.switches = !strcmp(v, "on");
            if (!o.switches && strcmp(v, "off"))
                return fail("--switches '%s': expected on or off", v);
        } else {
            return fail("unknown option '%s'", a);
        }
    }
    /* A study's nodes are the machine being studied: a core per rank unless
     * --cores says otherwise (the parameter file's host line is the
     * calibrated machine's, which validate uses). */
    double calibrated_cores = prm.cores;
    prm.cores = o.cores >= 0 ? o.cores : 0;
    if (rch_base_tun_load() != RDMACH_OK)
        return fail("%s", rdmach_last_error());
    rch_coll_set_nic(prm.onload ? RCH_COLL_NIC_ONLOAD : RCH_COLL_NIC_OFFLOAD);
    char hostinfo[128] = "";
    if (prm.cores >= 1)
        snprintf(hostinfo, sizeof(hostinfo), "; %.0f cores per node (more ranks: switch %.0f ns, hand-off turn %.0f ns)",
                 prm.cores, prm.sw, prm.handoff);
    else if (calibrated_cores >= 1)
        snprintf(hostinfo, sizeof(hostinfo), "; a core per rank (calibrated on %.0f cores: --cores)", calibrated_cores);
    printf("rdmach-sim %s: shm L %.0f o %.0f g %.0f G %.3f O %.3f S %.0f | net L %.0f o %.0f g %.0f G %.3f O %.3f S %.0f | "
           "nic %s, gamma %.2f ns/B, copy %.2f ns/B%s%s%s%s\n", o.coll, prm.ch[0].L, prm.ch[0].o, prm.ch[0].g, prm.ch[0].G, prm.ch[0].O,
           prm.ch[0].S, prm.ch[1].L, prm.ch[1].o, prm.ch[1].g, prm.ch[1].G, prm.ch[1].O, prm.ch[1].S,
           prm.onload ? "onload" : "offload", prm.gamma, prm.beta, hostinfo, o.noise_text ? "; noise " : "", o.noise_text ? o.noise_text : "",
           o.compute > 0 ? "; compute before each call" : "");
    int rc = study(&o, &prm, &noise);
    free(noise.tstart);
    free(noise.tlen);
    return rc;
}
