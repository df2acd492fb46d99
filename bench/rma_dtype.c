/*
 * rma_dtype: one-sided transfers with a derived target datatype against the
 * contiguous transfer of the same data, in fence, PSCW and lock_all epochs
 * (issue 20: "as fast as the contiguous path").
 *
 * Every rank r moves n ints to or from rank (r + 1) % np; the origin buffer
 * is contiguous, the target's ints are laid out by --type:
 *   vector    n blocks of 1 int, stride 2 (every other int)
 *   vector64  n / 64 blocks of 64 ints, stride 128
 *   indexed   blocks of 1, 2, 3 ints with gaps of 1, 2 ints (irregular)
 *   struct    a struct of 1 + 2 ints (offsets 0 and 12), extent 24, n / 3 of them
 * and the contiguous reference moves the same n ints to displacement 0.
 * Operations: MPI_Put, MPI_Get, MPI_Accumulate (MPI_SUM). One epoch per
 * transfer, opened and closed around it (both timed); the figure is the
 * fastest of --reps epochs, on rank 0, after warm-up epochs that move 16 MiB
 * (at least one): the steady state of a repeated transfer, past the first
 * pass of a library through its buffers (the window's pages and a shared-
 * memory ring's, up to 4 MiB a pair in rdmach, are faulted in on the first
 * pass: with one warm-up epoch, a 64 K-int put measured 1.5-2 times its
 * steady state).
 *
 * Output: "# library: ..." and "# cpu: ...", then one line per size:
 *   size_ints  derived_us  contiguous_us  ratio  local_us  floor_us  floor_ratio
 *   cfloor_us  excess
 * (bench/compare reads the first two columns). local_us: MPI_Unpack of the
 * same ints into local memory laid out by the target type (the library's
 * datatype engine alone). floor_us: the physical floor no transfer of
 * scattered data can beat, the same operation done by a plain C loop
 * written for the type (no MPI call; put: the scattered stores, get: the
 * gathered loads, acc: load, add, store), run by every rank at once as the
 * transfers are; floor_ratio = derived_us / floor_us. Then, for the
 * contiguous transfer, cfloor_us: the same operation on n contiguous ints
 * by a plain C loop (memcpy, or load, add, store), every rank at once, and
 * excess = floor_ratio / (contiguous_us / cfloor_us): how far each path
 * stays above its own physical floor, the derived one against the
 * contiguous one ("as fast as the contiguous path", issue 20: at most 1,
 * within the noise, says the derived path costs no more over its data's
 * floor than the contiguous path over its data's; at 4 ranks on 2 cores
 * both pay the same epoch synchronisation). --all runs every type,
 * operation and epoch and prints "type op epoch size ..." lines instead.
 *
 *   rma_dtype [--op put|get|acc] [--type vector|vector64|indexed|struct]
 *             [--epoch fence|pscw|lockall] [--win allocate|create]
 *             [--sizes 65536,1048576,...] [--reps N] [--all]
 *
 * Plain MPI-3 C: builds with any mpicc (rdmach, MPICH, Open MPI).
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

enum { OP_PUT, OP_GET, OP_ACC, NOP };
enum { T_VECTOR, T_VECTOR64, T_INDEXED, T_STRUCT, NTYPE };
enum { E_FENCE, E_PSCW, E_LOCKALL, NEPOCH };
static const char *op_name[NOP] = { "put", "get", "acc" };
static const char *type_name[NTYPE] = { "vector", "vector64", "indexed", "struct" };
static const char *epoch_name[NEPOCH] = { "fence", "pscw", "lockall" };

static int me, np, to, from;
static MPI_Group gto, gfrom;

/* The indexed pattern's ints in one period of 21 (blocks of 1, 2, 3, 1, 2,
 * 3 at 0, 2, 6, 10, 13, 16): make_type checks its map against it, and
 * plain_loop moves whole periods by it. */
static const int ix_at[12] = { 0, 2, 3, 6, 7, 8, 10, 13, 14, 16, 17, 18 };

/* The target type's blocks, in ints: the floor's loop for the indexed type. */
static int *ix_len, *ix_off;
static long ix_n;

static int lookup(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* The target type for n ints of kind t (count 1, or *count elements);
 * *span: the ints of the window it reaches. */
static MPI_Datatype make_type(int t, long n, int *count, long *span)
{
    MPI_Datatype d = MPI_DATATYPE_NULL;
    *count = 1;
    if (t == T_VECTOR) {
        MPI_Type_vector((int)n, 1, 2, MPI_INT, &d);
        *span = 2 * n;
    } else if (t == T_VECTOR64) {
        MPI_Type_vector((int)(n / 64), 64, 128, MPI_INT, &d);
        *span = 2 * n;
    } else if (t == T_INDEXED) {
        long nb = 0, total = 0, pos = 0;
        int *bl = malloc(sizeof(int) * (size_t)n), *dp = malloc(sizeof(int) * (size_t)n);
        for (long b = 0; total < n; b++, nb++) {
            bl[b] = (int)(b % 3 + 1);
            if (total + bl[b] > n)
                bl[b] = (int)(n - total);
            dp[b] = (int)pos;
            pos += bl[b] + b % 2 + 1;
            total += bl[b];
        }
        for (long b = 0, i = 0; b < 6 * ((nb - 1) / 6); b++)   /* plain_loop's whole periods */
            for (int k = 0; k < bl[b]; k++, i++)
                if (dp[b] + k != (int)(21 * (i / 12)) + ix_at[i % 12]) {
                    fprintf(stderr, "rma_dtype: indexed block %ld is not the pattern's\n", b);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
        MPI_Type_indexed((int)nb, bl, dp, MPI_INT, &d);
        *span = pos;
        free(ix_len);
        free(ix_off);
        ix_len = bl;
        ix_off = dp;
        ix_n = nb;
    } else {
        int bl[2] = { 1, 2 };
        MPI_Aint dp[2] = { 0, 12 };
        MPI_Datatype ty[2] = { MPI_INT, MPI_INT }, s;
        MPI_Type_create_struct(2, bl, dp, ty, &s);
        MPI_Type_create_resized(s, 0, 24, &d);
        MPI_Type_free(&s);
        *count = (int)(n / 3);
        *span = 6 * (n / 3);
    }
    MPI_Type_commit(&d);
    return d;
}

static void open_epoch(int e, MPI_Win w)
{
    if (e == E_FENCE)
        MPI_Win_fence(0, w);
    else if (e == E_PSCW) {
        MPI_Win_post(gfrom, 0, w);
        MPI_Win_start(gto, 0, w);
    } else
        MPI_Win_lock_all(0, w);
}

static void close_epoch(int e, MPI_Win w)
{
    if (e == E_FENCE)
        MPI_Win_fence(0, w);
    else if (e == E_PSCW) {
        MPI_Win_complete(w);
        MPI_Win_wait(w);
    } else {
        MPI_Win_unlock_all(w);
        MPI_Barrier(MPI_COMM_WORLD);   /* the target may look now, as after the others */
    }
}

/* Warm-up epochs for n ints: enough to move 16 MiB, 1 to 256. */
static int warmups(long n)
{
    long w = (16L << 20) / (4 * (n > 0 ? n : 1));
    return w < 1 ? 1 : w > 256 ? 256 : (int)w;
}

/* Seconds of the fastest of reps epochs moving (tcount, tt) at the target. */
static double timed(int op, int e, MPI_Win w, int *buf, int n, int tcount, MPI_Datatype tt, int reps)
{
    double best = 1e30;
    for (int r = -warmups(n); r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        open_epoch(e, w);
        if (op == OP_PUT)
            MPI_Put(buf, n, MPI_INT, to, 0, tcount, tt, w);
        else if (op == OP_GET)
            MPI_Get(buf, n, MPI_INT, to, 0, tcount, tt, w);
        else
            MPI_Accumulate(buf, n, MPI_INT, to, 0, tcount, tt, MPI_SUM, w);
        close_epoch(e, w);
        double t = MPI_Wtime() - t0;
        if (r >= 0 && t < best)
            best = t;
    }
    return best;
}

/* One operation by a plain C loop for type t: n ints of buf to or from
 * win laid out as the target type (put: store, get: load, acc: add). */
static void plain_loop(int t, int op, int *restrict win, int *restrict buf, long n)
{
    if (t == T_VECTOR) {
        if (op == OP_PUT)
            for (long i = 0; i < n; i++)
                win[2 * i] = buf[i];
        else if (op == OP_GET)
            for (long i = 0; i < n; i++)
                buf[i] = win[2 * i];
        else
            for (long i = 0; i < n; i++)
                win[2 * i] += buf[i];
    } else if (t == T_VECTOR64) {
        for (long b = 0; b < n / 64; b++) {
            int *w = win + 128 * b, *o = buf + 64 * b;
            if (op == OP_PUT)
                memcpy(w, o, 256);
            else if (op == OP_GET)
                memcpy(o, w, 256);
            else
                for (int k = 0; k < 64; k++)
                    w[k] += o[k];
        }
    } else if (t == T_STRUCT) {
        for (long e = 0; e < n / 3; e++) {
            int *w = win + 6 * e, *o = buf + 3 * e;
            if (op == OP_PUT) {
                w[0] = o[0];
                memcpy(w + 3, o + 1, 8);
            } else if (op == OP_GET) {
                o[0] = w[0];
                memcpy(o + 1, w + 3, 8);
            } else {
                w[0] += o[0];
                w[3] += o[1];
                w[4] += o[2];
            }
        }
    } else {
        /* The whole periods of the pattern (6 blocks, 12 ints in 21: make_type)
         * by fixed moves, as a hand-written loop for this layout would; the
         * last period and the cut-short block, block by block. A loop over
         * the block list alone is no floor: compiled -O3 it ran 3 times
         * slower than -O2 (1.9 against 0.63 ms for 1 M ints, AMD EPYC). */
        long full = ix_n > 0 ? (ix_n - 1) / 6 : 0;
        for (long p = 0; p < full; p++) {
            int *w = win + 21 * p, *o = buf + 12 * p;
            if (op == OP_PUT)
                for (int k = 0; k < 12; k++)
                    w[ix_at[k]] = o[k];
            else if (op == OP_GET)
                for (int k = 0; k < 12; k++)
                    o[k] = w[ix_at[k]];
            else
                for (int k = 0; k < 12; k++)
                    w[ix_at[k]] += o[k];
        }
        int *o = buf + 12 * full;
        for (long b = 6 * full; b < ix_n; b++) {
            int *w = win + ix_off[b];
            for (int k = 0; k < ix_len[b]; k++, o++) {
                if (op == OP_PUT)
                    w[k] = *o;
                else if (op == OP_GET)
                    *o = w[k];
                else
                    w[k] += *o;
            }
        }
    }
}

/* The contiguous transfer's floor: the operation on n contiguous ints. */
static void plain_contig(int op, int *restrict win, int *restrict buf, long n)
{
    if (op == OP_PUT)
        memcpy(win, buf, sizeof(int) * (size_t)n);
    else if (op == OP_GET)
        memcpy(buf, win, sizeof(int) * (size_t)n);
    else
        for (long i = 0; i < n; i++)
            win[i] += buf[i];
}

/* Seconds of the fastest of reps runs of a plain loop (contig: the
 * contiguous one, else type t's), every rank at once as the transfers. */
static double floor_time(int contig, int t, int op, int *local, int *buf, long n, int reps)
{
    double best = 1e30;
    for (int r = -1; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (contig)
            plain_contig(op, local, buf, n);
        else
            plain_loop(t, op, local, buf, n);
        double t = MPI_Wtime() - t0;
        if (r >= 0 && t < best)
            best = t;
    }
    return best;
}

/* One (type, op, epoch, size): the line it prints. */
static void one(int t, int op, int e, long n, int create, int reps, int all)
{
    int tcount;
    long span;
    MPI_Datatype tt = make_type(t, n, &tcount, &span);
    int tsize;
    MPI_Type_size(tt, &tsize);
    n = (long)tcount * (tsize / (int)sizeof(int));    /* struct: a multiple of 3 */
    int *wbuf, *buf = malloc(sizeof(int) * (size_t)n);
    MPI_Win w;
    MPI_Aint bytes = (MPI_Aint)span * (MPI_Aint)sizeof(int);
    if (create) {
        wbuf = malloc((size_t)bytes);
        MPI_Win_create(wbuf, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    } else
        MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &w);
    for (long i = 0; i < span; i++)
        wbuf[i] = (int)i;
    for (long i = 0; i < n; i++)
        buf[i] = (int)(i & 0xffff);
    double td = timed(op, e, w, buf, (int)n, tcount, tt, reps);
    double tc = timed(op, e, w, buf, (int)n, (int)n, MPI_INT, reps);
    double tl = 1e30;
    int *local = calloc((size_t)span, sizeof(int));
    for (int r = -1; r < reps; r++) {
        int pos = 0;
        double t0 = MPI_Wtime();
        MPI_Unpack(buf, (int)(n * (long)sizeof(int)), &pos, local, tcount, tt, MPI_COMM_SELF);
        double t = MPI_Wtime() - t0;
        if (r >= 0 && t < tl)
            tl = t;
    }
    double tf = floor_time(0, t, op, local, buf, n, reps);
    double tcf = floor_time(1, t, op, local, buf, n, reps);
    free(local);
    if (me == 0) {
        if (all)
            printf("%-9s %-4s %-8s %9ld %12.1f %12.1f %7.2f %9.1f %9.1f %7.2f %9.1f %7.2f\n", type_name[t],
                   op_name[op], epoch_name[e], n, td * 1e6, tc * 1e6, td / tc, tl * 1e6, tf * 1e6, td / tf,
                   tcf * 1e6, (td / tf) / (tc / tcf));
        else
            printf("%-10ld %12.1f %12.1f %7.2f %9.1f %9.1f %7.2f %9.1f %7.2f\n", n, td * 1e6, tc * 1e6, td / tc,
                   tl * 1e6, tf * 1e6, td / tf, tcf * 1e6, (td / tf) / (tc / tcf));
        fflush(stdout);
    }
    MPI_Win_free(&w);
    if (create)
        free(wbuf);
    free(buf);
    MPI_Type_free(&tt);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    to = (me + 1) % np;
    from = (me + np - 1) % np;
    int op = OP_PUT, t = T_VECTOR, e = E_FENCE, create = 0, reps = 3, all = 0, bad = 0;
    long sizes[16] = { 65536, 1048576, 16777216 };
    int nsizes = 3;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (strcmp(argv[i], "--op") == 0 && ++i)
            bad |= (op = lookup(v, op_name, NOP)) < 0;
        else if (strcmp(argv[i], "--type") == 0 && ++i)
            bad |= (t = lookup(v, type_name, NTYPE)) < 0;
        else if (strcmp(argv[i], "--epoch") == 0 && ++i)
            bad |= (e = lookup(v, epoch_name, NEPOCH)) < 0;
        else if (strcmp(argv[i], "--win") == 0 && ++i)
            create = strcmp(v, "create") == 0;
        else if (strcmp(argv[i], "--reps") == 0 && ++i)
            bad |= (reps = atoi(v)) < 1;
        else if (strcmp(argv[i], "--all") == 0)
            all = 1;
        else if (strcmp(argv[i], "--sizes") == 0 && ++i) {
            char *s = strdup(v), *save = NULL;
            nsizes = 0;
            for (char *p = strtok_r(s, ",", &save); p && nsizes < 16; p = strtok_r(NULL, ",", &save))
                bad |= (sizes[nsizes++] = atol(p)) < 192;
            free(s);
        } else
            bad = 1;
    }
    if (bad) {
        if (me == 0)
            fprintf(stderr, "usage: rma_dtype [--op put|get|acc] [--type vector|vector64|indexed|struct] "
                    "[--epoch fence|pscw|lockall] [--win allocate|create] [--sizes n,n,..] [--reps N] [--all]\n"
                    "  sizes in ints, at least 192\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, 1, &to, &gto);
    MPI_Group_incl(wg, 1, &from, &gfrom);
    if (me == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING], cpu[224];
        int len;
        MPI_Get_library_version(lib, &len);
        lib[strcspn(lib, "\n")] = '\0';
        bench_cpu_model(cpu, sizeof(cpu));
        printf("# library: %s\n# cpu: %s\n# %d ranks, %s windows, best of %d epochs\n", lib, cpu, np,
               create ? "MPI_Win_create" : "MPI_Win_allocate", reps);
        if (all)
            printf("# type      op   epoch         ints   derived_us contiguous_us  ratio  local_us  floor_us  /floor"
                   " cfloor_us  excess\n");
        else
            printf("# %s %s %s\n# ints      derived_us contiguous_us  ratio  local_us  floor_us  /floor cfloor_us  excess\n",
                   type_name[t], op_name[op], epoch_name[e]);
    }
    for (int s = 0; s < nsizes; s++) {
        if (!all) {
            one(t, op, e, sizes[s], create, reps, 0);
            continue;
        }
        for (int ti = 0; ti < NTYPE; ti++)
            for (int oi = 0; oi < NOP; oi++)
                for (int ei = 0; ei < NEPOCH; ei++)
                    one(ti, oi, ei, sizes[s], create, reps, 1);
    }
    MPI_Group_free(&gto);
    MPI_Group_free(&gfrom);
    MPI_Group_free(&wg);
    free(ix_len);
    free(ix_off);
    MPI_Finalize();
    return 0;
}
