/*
 * put_get: one-sided latency and bandwidth between rank 0 (origin) and
 * rank 1 (target), OSU style (osu_put_latency, osu_get_latency, osu_put_bw,
 * osu_get_bw). The target only waits in MPI_Barrier (passive target: it
 * makes no one-sided call while it is measured), except with --sync fence.
 *
 * Latency, per size (the operation is MPI_Put or MPI_Get of `size` bytes of
 * MPI_CHAR at displacement 0):
 *   --sync flush   (default, OSU's default)  lock(shared) once; loop { op; flush(1) }
 *   --sync lock                              loop { lock(shared); op; unlock }
 *   --sync fence                             loop { op (rank 0); fence (both) }
 * Bandwidth (--bw), per size: lock(shared) once; loop { 64 ops; flush(1) };
 * MB/s with MB = 10^6 bytes, as OSU prints it.
 *
 * The window holds the largest size; --win allocate (default, OSU's
 * default: MPI_Win_allocate), create (MPI_Win_create on malloc'd memory) or
 * dynamic (MPI_Win_create_dynamic + attach). --validate checks, after each
 * size, that a put lands (or a get reads) a position-dependent pattern.
 *
 * Output: "# Size  Latency (us)" or "# Size  Bandwidth (MB/s)", one line per size.
 * Plain MPI-3 C: builds with any mpicc (rdmach, MPICH, Open MPI).
 */
#include "bench_util.h"

#define LAT_LOOP_SMALL 10000
#define LAT_LOOP_LARGE 1000
#define LAT_SKIP_SMALL 100
#define LAT_SKIP_LARGE 10
#define BW_WINDOW 64
#define BW_LOOP_SMALL 100
#define BW_LOOP_LARGE 20
#define BW_SKIP_SMALL 10
#define BW_SKIP_LARGE 2

static const char *usage =
    "[--op put|get] [--bw] [--win allocate|create|dynamic] [--sync flush|lock|fence] [--quick] "
    "[--min-size N] [--max-size N] [--sizes a,b,..] [--iters N] [--warmup N] [--validate]\n"
    "  sizes take K/M/G suffixes (binary); needs exactly 2 ranks";

enum { OP_PUT, OP_GET };
enum { W_ALLOCATE, W_CREATE, W_DYNAMIC };
enum { S_FLUSH, S_LOCK, S_FENCE };

struct pg_opts {
    int op, bw, win, sync;
};

/* Take this program's own options out of argv (bench_parse rejects them). */
static int own_options(int *argc, char **argv, int rank, struct pg_opts *p)
{
    static const char *ops[] = { "put", "get" }, *wins[] = { "allocate", "create", "dynamic" },
                      *syncs[] = { "flush", "lock", "fence" };
    int out = 1;
    p->op = OP_PUT;
    p->bw = 0;
    p->win = W_ALLOCATE;
    p->sync = S_FLUSH;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        const char **names = NULL;
        int n = 0, *dst = NULL;
        if (!strcmp(a, "--bw")) {
            p->bw = 1;
            continue;
        }
        if (!strcmp(a, "--op")) {
            names = ops, n = 2, dst = &p->op;
        } else if (!strcmp(a, "--win")) {
            names = wins, n = 3, dst = &p->win;
        } else if (!strcmp(a, "--sync")) {
            names = syncs, n = 3, dst = &p->sync;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        int k = -1;
        if (i + 1 < *argc)
            for (int j = 0; j < n; j++)
                if (!strcmp(argv[i + 1], names[j]))
                    k = j;
        if (k < 0) {
            if (rank == 0)
                fprintf(stderr, "%s: '%s' needs one of the values listed\nusage: %s %s\n", argv[0], a, argv[0],
                        usage);
            return -1;
        }
        *dst = k;
        i++;
    }
    *argc = out;
    argv[out] = NULL;
    return 0;
}

static MPI_Win make_window(const struct pg_opts *p, long max, char **base, MPI_Aint *disp0)
{
    MPI_Win win;
    MPI_Aint bytes = max > 0 ? max : 1;
    *disp0 = 0;
    if (p->win == W_ALLOCATE) {
        MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, base, &win);
        memset(*base, 0, (size_t)bytes);
    } else {
        *base = bench_alloc(bytes);
        if (!*base) {
            fprintf(stderr, "put_get: cannot allocate %ld bytes of window memory\n", (long)bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (p->win == W_CREATE) {
            MPI_Win_create(*base, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Aint addr;
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
            MPI_Win_attach(win, *base, bytes);
            MPI_Get_address(*base, &addr);
            /* the displacement is the target's (rank 1's) address */
            MPI_Bcast(&addr, 1, MPI_AINT, 1, MPI_COMM_WORLD);
            *disp0 = addr;
        }
    }
    return win;
}

static void one_op(const struct pg_opts *p, char *buf, long size, MPI_Aint disp, MPI_Win win)
{
    if (p->op == OP_PUT)
        MPI_Put(buf, (int)size, MPI_CHAR, 1, disp, (int)size, MPI_CHAR, win);
    else
        MPI_Get(buf, (int)size, MPI_CHAR, 1, disp, (int)size, MPI_CHAR, win);
}

/* One untimed, checked transfer; returns errors seen (at rank 0). */
static int validate_size(const struct pg_opts *p, int rank, char *buf, char *wbase, long size, MPI_Aint disp,
                         MPI_Win win)
{
    int bad = 0;
    if (p->op == OP_PUT) {
        if (rank == 0) {
            bench_fill(buf, size, 3);
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Put(buf, (int)size, MPI_CHAR, 1, disp, (int)size, MPI_CHAR, win);
            MPI_Win_unlock(1, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            long off = bench_check(wbase, size, 3);
            MPI_Win_unlock(1, win);
            if (off >= 0) {
                fprintf(stderr, "put_get: validation failed: size %ld, the put left a wrong byte at offset %ld\n",
                        size, off);
                bad = 1;
            }
        }
    } else {
        if (rank == 1) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            bench_fill(wbase, size, 4);
            MPI_Win_unlock(1, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Get(buf, (int)size, MPI_CHAR, 1, disp, (int)size, MPI_CHAR, win);
            MPI_Win_unlock(1, win);
            long off = bench_check(buf, size, 4);
            if (off >= 0) {
                fprintf(stderr, "put_get: validation failed: size %ld, the get read a wrong byte at offset %ld\n",
                        size, off);
                bad = 1;
            }
        }
    }
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

int main(int argc, char **argv)
{
    int rank, nranks, errors = 0;
    struct bench_opts o;
    struct pg_opts p;
    long sizes[BENCH_MAX_SIZES];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int rc = own_options(&argc, argv, rank, &p);
    if (rc == 0)
        rc = bench_parse(argc, argv, rank, usage, BENCH_OPT_RANGE | BENCH_OPT_ITERS | BENCH_OPT_VALIDATE, &o);
    if (rc == 0 && p.bw && p.sync != S_FLUSH) {
        if (rank == 0)
            fprintf(stderr, "put_get: --bw measures with --sync flush only\n");
        rc = -1;
    }
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }
    if (nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "put_get: needs exactly 2 ranks, got %d\n", nranks);
        MPI_Finalize();
        return 2;
    }
    if (o.max_size > (1L << 30) - 1)
        o.max_size = (1L << 30) - 1;

    int n = bench_sizes(&o, sizes);
    long max = 0;
    for (int i = 0; i < n; i++)
        max = sizes[i] > max ? sizes[i] : max;
    char *buf = bench_alloc(max > 0 ? max : 1), *wbase = NULL;
    if (!buf) {
        fprintf(stderr, "put_get: rank %d cannot allocate %ld bytes\n", rank, max);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Aint disp0;
    MPI_Win win = make_window(&p, max, &wbase, &disp0);

    static const char *opn[] = { "MPI_Put", "MPI_Get" }, *winn[] = { "MPI_Win_allocate", "MPI_Win_create",
                                                                      "MPI_Win_create_dynamic" },
                      *syncn[] = { "lock once, flush after each", "lock/unlock around each",
                                   "fence after each" };
    if (rank == 0) {
        char lib[256];
        bench_library(lib, sizeof(lib));
        printf("# rdmach bench put_get: %s %s, window by %s, %s; rank 1 is a passive target\n", opn[p.op],
               p.bw ? "bandwidth (64 in flight)" : "latency", winn[p.win],
               p.bw ? "lock once, flush after each 64" : syncn[p.sync]);
        bench_print_library_cpu(lib);
        printf("# %-10s%18s\n", "Size", p.bw ? "Bandwidth (MB/s)" : "Latency (us)");
        fflush(stdout);
    }

    for (int s = 0; s < n; s++) {
        long size = sizes[s];
        long iters = p.bw ? bench_iters(&o, size, BW_LOOP_SMALL, BW_LOOP_LARGE)
                          : bench_iters(&o, size, LAT_LOOP_SMALL, LAT_LOOP_LARGE);
        long skip = p.bw ? bench_warmup(&o, size, BW_SKIP_SMALL, BW_SKIP_LARGE)
                         : bench_warmup(&o, size, LAT_SKIP_SMALL, LAT_SKIP_LARGE);
        double t0 = 0.0, t = 0.0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (p.sync == S_FENCE) {
            MPI_Win_fence(0, win);
            for (long i = 0; i < iters + skip; i++) {
                if (i == skip)
                    t0 = MPI_Wtime();
                if (rank == 0)
                    one_op(&p, buf, size, disp0, win);
                MPI_Win_fence(0, win);
            }
            t = MPI_Wtime() - t0;
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        } else if (rank == 0) {
            if (p.sync == S_FLUSH)
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            for (long i = 0; i < iters + skip; i++) {
                if (i == skip)
                    t0 = MPI_Wtime();
                if (p.sync == S_LOCK)
                    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
                if (p.bw) {
                    for (int k = 0; k < BW_WINDOW; k++)
                        one_op(&p, buf, size, disp0, win);
                } else {
                    one_op(&p, buf, size, disp0, win);
                }
                if (p.sync == S_LOCK)
                    MPI_Win_unlock(1, win);
                else
                    MPI_Win_flush(1, win);
            }
            t = MPI_Wtime() - t0;
            if (p.sync == S_FLUSH)
                MPI_Win_unlock(1, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (o.validate)
            errors += validate_size(&p, rank, buf, wbase, size, disp0, win);
        if (rank == 0) {
            if (p.bw)
                printf("%-12ld%18.2f\n", size, t > 0 ? (double)size * BW_WINDOW * (double)iters / t / 1e6 : 0.0);
            else
                printf("%-12ld%18.3f\n", size, t * 1e6 / (double)iters);
            fflush(stdout);
        }
    }

    if (o.validate && rank == 0)
        printf("# validation: %s\n", errors ? "FAILED" : "passed");
    if (p.win == W_DYNAMIC)
        MPI_Win_detach(win, wbase);
    MPI_Win_free(&win);
    if (p.win != W_ALLOCATE)
        free(wbase);
    free(buf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
