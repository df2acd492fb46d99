/*
 * rdmach-tune: measure every algorithm of the collectives on the current
 * allocation and write a tuning file (docs/TUNING.md) that later runs load
 * with RDMACH_TUNING_FILE=<file>.
 *
 *   rdmachrun -n 8 rdmach-tune -o tuning.txt          # all collectives with a choice
 *   RDMACH_VNODE_SIZE=4 rdmachrun -n 8 rdmach-tune --colls alltoall,alltoallv
 *   rdmach-tune --list                                # collectives and their algorithms
 *   rdmachrun -n 2 rdmach-tune --p2p -o p2p.txt       # large messages within a node (tune_p2p.c)
 *
 * For every collective that has more than one algorithm, every message size
 * and every algorithm (forced with rch_coll_force, the same order on every
 * rank): a warm-up, then `reps` timed runs of `iters` back-to-back calls
 * after a barrier; a run's figure is the slowest rank's mean time per call
 * and an algorithm's is its best run. The winner of each size is the fastest
 * algorithm; consecutive sizes with the same winner become one row whose
 * byte range runs from just above the previous measured size to this one
 * (the last row is open-ended). Alltoallv is chosen by shape only (its sizes
 * differ per rank), so it gets one row: the algorithm with the smallest sum
 * over sizes of time relative to the best.
 *
 * Rows name the allocation exactly (nodes, ranks per node, communicator size)
 * and the network profile, so another allocation falls through to the
 * built-in table. Rank 0 writes the file with the measurements as comments,
 * then loads it back with the library's own parser as a check.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "coll/coll_impl.h"
#include "mpi/mpi_impl.h"
#include "tune_p2p.h"

#define MAX_SIZES 32
#define MAX_ALGOS 16

struct opts {
    const char *out;
    long sizes[MAX_SIZES];
    int nsizes;
    int colls[RCH_COLL_ID_MAX];        /* 1: measure (only those with a choice) */
    long iters;                        /* 0: by size */
    int reps;
    int list;
    int p2p;                           /* --p2p: the shared-memory thresholds instead */
    int sizes_given;
};

/* ---- what one call of each measured collective does ---- */

struct bufs {
    char *s, *r;
    int *counts, *displs;              /* alltoallv: p entries each */
    int p, me;
};

/* `size` is the block (alltoall, allgather, gather, scatter), the vector
 * (bcast, allreduce, reduce) or the per-rank result (reduce_scatter) in bytes;
 * reductions work on MPI_INT SUM (commutative: every algorithm applies). */
static void run_call(enum rch_coll_id id, struct bufs *b, long size)
{
    int n = (int)size;
    switch (id) {
    case RCH_COLL_ALLTOALL:
        MPI_Alltoall(b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case RCH_COLL_ALLTOALLV:
        for (int q = 0; q < b->p; q++) {
            b->counts[q] = n;
            b->displs[q] = q * n;
        }
        MPI_Alltoallv(b->s, b->counts, b->displs, MPI_BYTE, b->r, b->counts, b->displs, MPI_BYTE,
                      MPI_COMM_WORLD);
        break;
    case RCH_COLL_ALLGATHER:
        MPI_Allgather(b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case RCH_COLL_GATHER:
        MPI_Gather(b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case RCH_COLL_SCATTER:
        MPI_Scatter(b->s, n, MPI_BYTE, b->r, n, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case RCH_COLL_BCAST:
        MPI_Bcast(b->s, n, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case RCH_COLL_ALLREDUCE:
        MPI_Allreduce(b->s, b->r, n / 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case RCH_COLL_REDUCE:
        MPI_Reduce(b->s, b->r, n / 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        break;
    case RCH_COLL_REDUCE_SCATTER:
        MPI_Reduce_scatter_block(b->s, b->r, n / 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case RCH_COLL_SCAN:
        MPI_Scan(b->s, b->r, n / 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
    case RCH_COLL_EXSCAN:
        MPI_Exscan(b->s, b->r, n / 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        break;
    default:
        break;
    }
}

/* Which collectives the tool can drive. */
static int drivable(enum rch_coll_id id)
{
    return id != RCH_COLL_BARRIER && id != RCH_COLL_GATHERV && id != RCH_COLL_SCATTERV &&
           id != RCH_COLL_ALLGATHERV;
}

static int is_reduction(enum rch_coll_id id)
{
    return id == RCH_COLL_ALLREDUCE || id == RCH_COLL_REDUCE || id == RCH_COLL_REDUCE_SCATTER ||
           id == RCH_COLL_SCAN || id == RCH_COLL_EXSCAN;
}

/* The message size the selection keys on for this `size` (coll_select.c). */
static unsigned long long key_bytes(enum rch_coll_id id, long size, int p)
{
    if (id == RCH_COLL_REDUCE_SCATTER)
        return (unsigned long long)(size / 4 * 4) * (unsigned long long)p;
    if (is_reduction(id))
        return (unsigned long long)(size / 4 * 4);
    return (unsigned long long)size;
}

/* ---- options ---- */

static int parse_size(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    long mul = 1;
    if (errno || end == s || v < 0)
        return -1;
    if (*end == 'k' || *end == 'K') { mul = 1024; end++; }
    else if (*end == 'm' || *end == 'M') { mul = 1024 * 1024; end++; }
    if (*end || v > (1L << 30) / mul)
        return -1;
    *out = v * mul;
    return 0;
}

static const char usage[] =
    "usage: rdmachrun -n N rdmach-tune [-o FILE] [--sizes a,b,..] [--colls c1,c2,..]\n"
    "                                  [--iters N] [--reps N]\n"
    "       rdmachrun -n 2 rdmach-tune --p2p [-o FILE] [--sizes a,b,..] [--reps N]\n"
    "       rdmach-tune --list\n"
    "  Measures every algorithm of every collective that has a choice (or those of\n"
    "  --colls) at each size (default 1,8,64,256,1K,4K,16K,64K bytes; k/m suffixes)\n"
    "  on this allocation, prints the table and writes the tuning file FILE (default\n"
    "  rdmach-tuning.txt) for RDMACH_TUNING_FILE. Format: docs/TUNING.md.\n"
    "  --p2p: measures how large messages between ranks 0 and 1 of one node move\n"
    "  best (two-copy pipeline, with streaming stores, single copy) at each size\n"
    "  (default 64K,256K,1M,4M,16M,64M) and writes the thresholds as tunable lines.\n";

static int parse_args(int argc, char **argv, int rank, struct opts *o)
{
    static const long defsizes[] = { 1, 8, 64, 256, 1024, 4096, 16384, 65536 };
    memset(o, 0, sizeof(*o));
    o->out = "rdmach-tuning.txt";
    o->reps = 3;
    o->nsizes = (int)(sizeof(defsizes) / sizeof(defsizes[0]));
    memcpy(o->sizes, defsizes, sizeof(defsizes));
    int any_coll = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--list")) {
            o->list = 1;
            continue;
        }
        if (!strcmp(a, "--p2p")) {
            o->p2p = 1;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (rank == 0)
                fputs(usage, stdout);
            return 1;
        }
        if (strcmp(a, "-o") && strcmp(a, "--sizes") && strcmp(a, "--colls") &&
            strcmp(a, "--iters") && strcmp(a, "--reps")) {
            if (rank == 0)
                fprintf(stderr, "rdmach-tune: unknown argument '%s'\n%s", a, usage);
            return -1;
        }
        if (!v) {
            if (rank == 0)
                fprintf(stderr, "rdmach-tune: '%s' needs a value\n%s", a, usage);
            return -1;
        }
        i++;
        if (!strcmp(a, "-o")) {
            o->out = v;
        } else if (!strcmp(a, "--iters") || !strcmp(a, "--reps")) {
            long n = 0;
            bad = parse_size(v, &n) || n < 1 || n > 1000000;
            if (!strcmp(a, "--iters"))
                o->iters = n;
            else
                o->reps = (int)n;
        } else {
            char tmp[512];
            snprintf(tmp, sizeof(tmp), "%s", v);
            if (!strcmp(a, "--sizes")) {
                o->nsizes = 0;
                o->sizes_given = 1;
            }
            for (char *t = strtok(tmp, ","); t && !bad; t = strtok(NULL, ",")) {
                if (!strcmp(a, "--sizes")) {
                    bad = o->nsizes == MAX_SIZES || parse_size(t, &o->sizes[o->nsizes++]) ||
                          o->sizes[o->nsizes - 1] == 0;
                } else {
                    enum rch_coll_id id = rch_coll_id_of(t);
                    if (id == RCH_COLL_ID_MAX || !drivable(id)) {
                        if (rank == 0)
                            fprintf(stderr, "rdmach-tune: '%s' is not a collective it can "
                                    "measure (see --list)\n", t);
                        return -1;
                    }
                    o->colls[id] = 1;
                    any_coll = 1;
                }
            }
            for (int k = 1; !bad && !strcmp(a, "--sizes") && k < o->nsizes; k++)
                bad = o->sizes[k] <= o->sizes[k - 1];
        }
        if (bad) {
            if (rank == 0)
                fprintf(stderr, "rdmach-tune: bad value '%s' for %s (sizes: ascending, 1 B .. "
                        "1 GiB; counts: 1 .. 1000000)\n%s", v, a, usage);
            return -1;
        }
    }
    for (int id = 0; !any_coll && id < RCH_COLL_ID_MAX; id++)
        o->colls[id] = drivable((enum rch_coll_id)id) && rch_coll_algo_count((enum rch_coll_id)id) > 1;
    return 0;
}

static void list_algorithms(void)
{
    printf("Collectives and their algorithms (force one with RDMACH_<COLLECTIVE>=<name>):\n");
    for (int id = 0; id < RCH_COLL_ID_MAX; id++) {
        printf("  %-15s", rch_coll_name((enum rch_coll_id)id));
        for (int i = 0; i < rch_coll_algo_count((enum rch_coll_id)id); i++)
            printf(" %s", rch_coll_algo_name((enum rch_coll_id)id, i));
        printf("%s\n", drivable((enum rch_coll_id)id) ? "" : "   (not measured by rdmach-tune)");
    }
}

/* ---- measuring ---- */

/* Slowest rank's mean time per call (seconds), best of o->reps runs. */
static double measure(enum rch_coll_id id, struct bufs *b, long size, const struct opts *o)
{
    long iters = o->iters ? o->iters : size <= 8192 ? 200 : size <= 65536 ? 40 : 10;
    double best = 1e30;
    for (long w = 0; w < iters / 10 + 1; w++)
        run_call(id, b, size);
    for (int r = 0; r < o->reps; r++) {
        double t, worst;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters; i++)
            run_call(id, b, size);
        t = (MPI_Wtime() - t0) / (double)iters;
        MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (worst < best)
            best = worst;
    }
    return best;
}

struct result {
    enum rch_coll_id id;
    int nalgos;
    double t[MAX_SIZES][MAX_ALGOS];
    int win[MAX_SIZES];
};

static int measure_coll(enum rch_coll_id id, struct bufs *b, const struct opts *o,
                        struct result *res)
{
    res->id = id;
    res->nalgos = rch_coll_algo_count(id);
    if (res->nalgos > MAX_ALGOS)
        res->nalgos = MAX_ALGOS;
    for (int si = 0; si < o->nsizes; si++) {
        res->win[si] = 0;
        for (int a = 0; a < res->nalgos; a++) {
            const char *name = rch_coll_algo_name(id, a);
            if (rch_coll_force(id, name) != RDMACH_OK) {
                fprintf(stderr, "rdmach-tune: %s\n", rdmach_last_error());
                return -1;
            }
            res->t[si][a] = measure(id, b, o->sizes[si], o);
            if (strcmp(rch_coll_last_algo(id), name) != 0)   /* did not apply: fell back */
                res->t[si][a] = -1;
            if (res->t[si][a] >= 0 && (res->t[si][res->win[si]] < 0 ||
                                       res->t[si][a] < res->t[si][res->win[si]]))
                res->win[si] = a;
        }
        if (rch_coll_force(id, "auto") != RDMACH_OK)
            return -1;
    }
    return 0;
}

/* Alltoallv's single choice: smallest sum of time relative to the best. */
static int overall_winner(const struct result *res, int nsizes)
{
    int best = 0;
    double best_score = 1e300;
    for (int a = 0; a < res->nalgos; a++) {
        double score = 0;
        for (int si = 0; si < nsizes && score < 1e299; si++)
            score = res->t[si][a] < 0 ? 1e300 : score + res->t[si][a] / res->t[si][res->win[si]];
        if (score < best_score) {
            best_score = score;
            best = a;
        }
    }
    return best;
}

/* ---- the file ---- */

static void print_table(FILE *f, const char *prefix, const struct result *res, const struct opts *o)
{
    fprintf(f, "%s%s: mean time per call (us) of the slowest rank, best of %d runs\n", prefix,
            rch_coll_name(res->id), o->reps);
    fprintf(f, "%s  %10s", prefix, "bytes");
    for (int a = 0; a < res->nalgos; a++)
        fprintf(f, " %13s", rch_coll_algo_name(res->id, a));
    fprintf(f, "   best\n");
    for (int si = 0; si < o->nsizes; si++) {
        fprintf(f, "%s  %10ld", prefix, o->sizes[si]);
        for (int a = 0; a < res->nalgos; a++) {
            if (res->t[si][a] < 0)
                fprintf(f, " %13s", "n/a");
            else
                fprintf(f, " %13.2f", res->t[si][a] * 1e6);
        }
        fprintf(f, "   %s\n", rch_coll_algo_name(res->id, res->win[si]));
    }
}

static void write_rows(FILE *f, const struct result *res, const struct opts *o, int nodes,
                       int ppn, int p, enum rch_coll_nic nic)
{
    struct rch_coll_tuning_row row = {
        .coll = res->id, .nic = nic,
        .nodes = { (unsigned long long)nodes, (unsigned long long)nodes },
        .ppn = { (unsigned long long)ppn, (unsigned long long)ppn },
        .size = { (unsigned long long)p, (unsigned long long)p },
    };
    char line[256];
    if (res->id == RCH_COLL_ALLTOALLV) {
        row.bytes = (struct rch_coll_range){ 0, RCH_COLL_UNBOUNDED };
        row.algo = rch_coll_algo_name(res->id, overall_winner(res, o->nsizes));
        rch_coll_tuning_format(&row, line, sizeof(line));
        fprintf(f, "%s\n", line);
        return;
    }
    unsigned long long lo = 0;
    for (int si = 0; si < o->nsizes; si++) {
        int last = si + 1 == o->nsizes || res->win[si + 1] != res->win[si];
        if (!last)
            continue;
        row.bytes.lo = lo;
        row.bytes.hi = si + 1 == o->nsizes ? RCH_COLL_UNBOUNDED : key_bytes(res->id, o->sizes[si], p);
        row.algo = rch_coll_algo_name(res->id, res->win[si]);
        rch_coll_tuning_format(&row, line, sizeof(line));
        fprintf(f, "%s\n", line);
        lo = row.bytes.hi + 1;
    }
}

int main(int argc, char **argv)
{
    int rank, p, nodes, ppn, rc = 0;
    struct opts o;
    static struct result res[RCH_COLL_ID_MAX];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int pr = parse_args(argc, argv, rank, &o);
    if (pr != 0 || o.list) {
        if (pr == 0 && rank == 0)
            list_algorithms();
        MPI_Finalize();
        return pr < 0 ? 2 : 0;
    }
    if (o.p2p) {
        static const long p2p_sizes[] = { 64L << 10, 256L << 10, 1L << 20, 4L << 20, 16L << 20, 64L << 20 };
        if (!o.sizes_given) {
            o.nsizes = (int)(sizeof(p2p_sizes) / sizeof(p2p_sizes[0]));
            memcpy(o.sizes, p2p_sizes, sizeof(p2p_sizes));
        }
        rc = rch_tune_p2p(o.sizes, o.nsizes, o.reps, o.out, rank, p);
        MPI_Finalize();
        return rc;
    }
    rch_coll_shape(&rch_mpi_comm_get(MPI_COMM_WORLD)->coll, &nodes, &ppn);
    enum rch_coll_nic nic = rch_coll_nic();

    long max = 0;
    for (int i = 0; i < o.nsizes; i++)
        max = o.sizes[i] > max ? o.sizes[i] : max;
    struct bufs b = { .p = p, .me = rank };
    b.s = calloc((size_t)max * (size_t)p + 64, 1);
    b.r = calloc((size_t)max * (size_t)p + 64, 1);
    b.counts = calloc(2 * (size_t)p, sizeof(int));
    if (!b.s || !b.r || !b.counts) {
        fprintf(stderr, "rdmach-tune: rank %d: no memory for %ld-byte buffers\n", rank, max * p);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    b.displs = b.counts + p;
    if (rank == 0)
        printf("rdmach-tune: %d ranks = %d node%s x %d ranks per node (most), %s network; "
               "sizes %ld .. %ld bytes\n", p, nodes, nodes == 1 ? "" : "s", ppn,
               rch_coll_nic_name(nic), o.sizes[0], o.sizes[o.nsizes - 1]);
    for (int id = 0; id < RCH_COLL_ID_MAX && !rc; id++) {
        if (!o.colls[id])
            continue;
        if (rch_coll_algo_count((enum rch_coll_id)id) < 2) {
            if (rank == 0)
                printf("  %s has one algorithm: nothing to choose\n",
                       rch_coll_name((enum rch_coll_id)id));
            o.colls[id] = 0;
            continue;
        }
        rc = measure_coll((enum rch_coll_id)id, &b, &o, &res[id]);
        if (!rc && rank == 0) {
            print_table(stdout, "", &res[id], &o);
            fflush(stdout);
        }
    }
    if (!rc && rank == 0) {
        FILE *f = fopen(o.out, "w");
        if (!f) {
            fprintf(stderr, "rdmach-tune: cannot write %s: %s\n", o.out, strerror(errno));
            rc = 1;
        } else {
            time_t now = time(NULL);
            char when[64];
            strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
            fprintf(f, "# rdmach tuning file (docs/TUNING.md), written by rdmach-tune on %s\n", when);
            fprintf(f, "# allocation: %d ranks = %d node%s x %d ranks per node (most); network "
                    "profile %s\n", p, nodes, nodes == 1 ? "" : "s", ppn, rch_coll_nic_name(nic));
            fprintf(f, "# use: RDMACH_TUNING_FILE=%s\n#\n", o.out);
            for (int id = 0; id < RCH_COLL_ID_MAX; id++)
                if (o.colls[id]) {
                    print_table(f, "# ", &res[id], &o);
                    fprintf(f, "#\n");
                }
            fprintf(f, "rdmach-tuning 1\n");
            fprintf(f, "# collective    nic     nodes  ppn    size   bytes          algorithm\n");
            for (int id = 0; id < RCH_COLL_ID_MAX; id++)
                if (o.colls[id])
                    write_rows(f, &res[id], &o, nodes, ppn, p, nic);
            if (fclose(f) != 0) {
                fprintf(stderr, "rdmach-tune: writing %s failed: %s\n", o.out, strerror(errno));
                rc = 1;
            } else if (rch_coll_load_tuning(o.out) != RDMACH_OK) {
                fprintf(stderr, "rdmach-tune: the file written does not load back: %s\n",
                        rdmach_last_error());
                rc = 1;
            } else {
                printf("wrote %s (loads back cleanly); use it with RDMACH_TUNING_FILE=%s\n", o.out,
                       o.out);
            }
        }
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(b.s);
    free(b.r);
    free(b.counts);
    MPI_Finalize();
    return rc;
}
