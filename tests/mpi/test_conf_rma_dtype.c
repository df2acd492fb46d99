/*
 * Derived-datatype transfers in every kind of epoch (MPI-4.0 §12.3, §12.5):
 * MPI_Put, MPI_Get and MPI_Accumulate of N ints where the target datatype
 * is a vector (every other int of the window: N blocks of 1, stride 2) and
 * the origin is contiguous or a vector too, completed by a fence, by
 * post/start/complete/wait, by lock_all + flush_all, and by flush_local of
 * large contiguous accumulates. The values are checked against the
 * standard's definition (put replaces, accumulate with MPI_SUM adds
 * element-wise, get returns the target's elements in type order).
 *
 * Usage: test_conf_rma_dtype [N [reps [allocate|create|dynamic]]]: the
 * window by MPI_Win_allocate (default), MPI_Win_create on malloc'd memory
 * (reached by single-copy RDMA and packets rather than load/store) or
 * MPI_Win_create_dynamic with that memory attached (displacements are then
 * addresses). Prints one line per mode with the
 * seconds it took (the benchmark: tools/rma_dtype_bench.sh runs it at 64 K
 * .. 16 M elements against MPICH).
 *
 * Rank r targets (r + 1) % np; the window of every rank has 2 N ints.
 */
#include "mpi_test.h"

static int N = 65536;
static int me, np;
static MPI_Aint tbase;           /* dynamic windows: the target's memory; others: 0 */
static int tunit = 1;            /* dynamic windows: 4 (disp_unit 1); others: 1 (disp_unit 4) */

/* The target_disp of int i of the target's window. */
static MPI_Aint D(int i)
{
    return tbase + (MPI_Aint)i * tunit;
}

static int val(int origin, int i, int round)
{
    return origin * 1000003 + i * 7 + round;
}

/* Check the window after one round: even ints were put by `origin` (plus
 * the accumulated add), odd ints untouched (-1). */
static void check_win(const int *win, int origin, int round, int acc)
{
    for (int i = 0; i < N; i++) {
        int expect = val(origin, i, round) + (acc ? val(origin, i, round + 1) : 0);
        CHECK(win[2 * i] == expect, "round %d: window int %d is %d, expected %d", round, 2 * i, win[2 * i], expect);
        CHECK(win[2 * i + 1] == -1, "round %d: window int %d (a hole of the vector) is %d", round, 2 * i + 1,
              win[2 * i + 1]);
    }
}

/* Epoch kinds. */
enum { FENCE, PSCW, LOCKALL, NMODE };
static const char *mode_name[NMODE] = { "fence", "pscw", "lock_all" };

static void open_epoch(int mode, MPI_Win win, MPI_Group to, MPI_Group from)
{
    if (mode == FENCE)
        MPI_OK(MPI_Win_fence(0, win));
    else if (mode == PSCW) {
        MPI_OK(MPI_Win_post(from, 0, win));
        MPI_OK(MPI_Win_start(to, 0, win));
    } else
        MPI_OK(MPI_Win_lock_all(0, win));
}

static void close_epoch(int mode, MPI_Win win)
{
    if (mode == FENCE)
        MPI_OK(MPI_Win_fence(0, win));
    else if (mode == PSCW) {
        MPI_OK(MPI_Win_complete(win));
        MPI_OK(MPI_Win_wait(win));
    } else {
        MPI_OK(MPI_Win_flush_all(win));
        MPI_OK(MPI_Win_unlock_all(win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = me;
    if (argc > 1)
        N = atoi(argv[1]);
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    int to = (me + 1) % np, from = (me + np - 1) % np;

    const char *flavor = argc > 3 ? argv[3] : "allocate";
    int create = strcmp(flavor, "create") == 0, dynamic = strcmp(flavor, "dynamic") == 0;
    int *wbuf;
    MPI_Win win;
    MPI_Aint wbytes = (MPI_Aint)N * 2 * (MPI_Aint)sizeof(int);
    if (create || dynamic) {
        wbuf = malloc((size_t)wbytes);
        CHECK(wbuf, "no memory for the window");
    }
    if (create) {
        MPI_OK(MPI_Win_create(wbuf, wbytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else if (dynamic) {
        MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_OK(MPI_Win_attach(win, wbuf, wbytes));
        MPI_Aint mine, *all = malloc(sizeof(MPI_Aint) * (size_t)np);
        MPI_Get_address(wbuf, &mine);
        MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
        tbase = all[to];
        tunit = sizeof(int);
        free(all);
    } else {
        MPI_OK(MPI_Win_allocate(wbytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &win));
    }
    int *src = malloc(sizeof(int) * 2 * (size_t)N), *dst = malloc(sizeof(int) * 2 * (size_t)N);
    CHECK(src && dst, "no memory for %d ints", N);
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_Group wg, gto, gfrom;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, 1, &to, &gto);
    MPI_Group_incl(wg, 1, &from, &gfrom);

    for (int mode = 0; mode < NMODE; mode++) {
        double t_put = 0, t_get = 0, t_acc = 0;
        for (int rep = 0; rep < reps; rep++) {
            int round = 10 * rep + mode;
            for (int i = 0; i < 2 * N; i++)
                wbuf[i] = -1;
            for (int i = 0; i < N; i++)
                src[i] = val(me, i, round);
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            /* put: contiguous origin, vector target */
            double t0 = MPI_Wtime();
            open_epoch(mode, win, gto, gfrom);
            MPI_OK(MPI_Put(src, N, MPI_INT, to, D(0), 1, vec, win));
            close_epoch(mode, win);
            t_put += MPI_Wtime() - t0;
            check_win(wbuf, from, round, 0);
            /* accumulate: vector origin (every other int of src2), vector target */
            for (int i = 0; i < N; i++) {
                dst[2 * i] = val(me, i, round + 1);
                dst[2 * i + 1] = 0x5a5a5a5a;       /* a hole: must not be added */
            }
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            t0 = MPI_Wtime();
            open_epoch(mode, win, gto, gfrom);
            MPI_OK(MPI_Accumulate(dst, 1, vec, to, D(0), 1, vec, MPI_SUM, win));
            close_epoch(mode, win);
            t_acc += MPI_Wtime() - t0;
            check_win(wbuf, from, round, 1);
            /* get: vector target into a vector origin */
            for (int i = 0; i < 2 * N; i++)
                dst[i] = -2;
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            t0 = MPI_Wtime();
            open_epoch(mode, win, gto, gfrom);
            MPI_OK(MPI_Get(dst, 1, vec, to, D(0), 1, vec, win));
            close_epoch(mode, win);
            t_get += MPI_Wtime() - t0;
            for (int i = 0; i < N; i++) {
                int expect = val(me, i, round) + val(me, i, round + 1);
                CHECK(dst[2 * i] == expect, "%s get: int %d is %d, expected %d", mode_name[mode], 2 * i, dst[2 * i],
                      expect);
                CHECK(dst[2 * i + 1] == -2, "%s get: hole %d written (%d)", mode_name[mode], 2 * i + 1,
                      dst[2 * i + 1]);
            }
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        }
        if (me == 0)
            printf("conf_rma_dtype: %s, %d ranks, %d ints, %s: put %.4f s, accumulate %.4f s, get %.4f s\n",
                   flavor, np, N, mode_name[mode], t_put / reps, t_acc / reps, t_get / reps);
    }

    /* The contiguous path with the same data (N ints), for comparison:
     * put, accumulate, get in lock_all epochs. */
    {
        double tc[3];
        for (int k = 0; k < 3; k++) {
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            double t0 = MPI_Wtime();
            MPI_OK(MPI_Win_lock_all(0, win));
            if (k == 0)
                MPI_OK(MPI_Put(src, N, MPI_INT, to, D(0), N, MPI_INT, win));
            else if (k == 1)
                MPI_OK(MPI_Accumulate(src, N, MPI_INT, to, D(0), N, MPI_INT, MPI_SUM, win));
            else
                MPI_OK(MPI_Get(dst, N, MPI_INT, to, D(0), N, MPI_INT, win));
            MPI_OK(MPI_Win_flush_all(win));
            MPI_OK(MPI_Win_unlock_all(win));
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            tc[k] = MPI_Wtime() - t0;
        }
        for (int i = 0; i < N; i++)
            CHECK(dst[i] == 2 * src[i], "contiguous put + accumulate + get: int %d is %d, expected %d", i, dst[i],
                  2 * src[i]);
        if (me == 0)
            printf("conf_rma_dtype: %s, %d ranks, %d ints, contiguous: put %.4f s, accumulate %.4f s, get %.4f s\n",
                   flavor, np, N, tc[0], tc[1], tc[2]);
    }

    /* Get_accumulate into an indexed target of irregular blocks (lengths
     * 1, 2, 3 ints, gaps 1, 2 ints): the result is the target's elements
     * before, in type order, and the target holds before + origin. Then
     * MPI_NO_OP reads them back atomically (§12.3.4). */
    {
        int nb = N / 4 > 0 ? N / 4 : 1, total = 0, span = 0;
        int *bl = malloc(sizeof(int) * (size_t)nb), *dp = malloc(sizeof(int) * (size_t)nb);
        CHECK(bl && dp, "no memory");
        for (int b = 0; b < nb; b++) {
            bl[b] = b % 3 + 1;
            dp[b] = span;
            span += bl[b] + b % 2 + 1;
            total += bl[b];
        }
        CHECK(span <= 2 * N, "indexed type spans %d ints", span);
        MPI_Datatype idx;
        MPI_OK(MPI_Type_indexed(nb, bl, dp, MPI_INT, &idx));
        MPI_OK(MPI_Type_commit(&idx));
        for (int i = 0; i < 2 * N; i++)
            wbuf[i] = 3 * i;
        for (int i = 0; i < total; i++)
            src[i] = i + 1;
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_lock_all(0, win));
        MPI_OK(MPI_Get_accumulate(src, total, MPI_INT, dst, total, MPI_INT, to, D(0), 1, idx, MPI_SUM, win));
        MPI_OK(MPI_Win_flush(to, win));
        for (int b = 0, k = 0; b < nb; b++)
            for (int e = 0; e < bl[b]; e++, k++)
                CHECK(dst[k] == 3 * (dp[b] + e), "get_accumulate result %d is %d, expected %d", k, dst[k],
                      3 * (dp[b] + e));
        MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, dst, total, MPI_INT, to, D(0), 1, idx, MPI_NO_OP, win));
        MPI_OK(MPI_Win_flush(to, win));
        for (int b = 0, k = 0; b < nb; b++)
            for (int e = 0; e < bl[b]; e++, k++)
                CHECK(dst[k] == 3 * (dp[b] + e) + k + 1, "MPI_NO_OP read %d is %d, expected %d", k, dst[k],
                      3 * (dp[b] + e) + k + 1);
        MPI_OK(MPI_Win_unlock_all(win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0, b = 0, k = 0; i < span; i++) {
            int in = b < nb && i >= dp[b] && i < dp[b] + bl[b];
            CHECK(wbuf[i] == 3 * i + (in ? k + 1 : 0), "indexed target int %d is %d", i, wbuf[i]);
            if (in && ++k && i == dp[b] + bl[b] - 1)
                b++;
        }
        MPI_Type_free(&idx);
        free(bl);
        free(dp);
    }

    /* Accumulate ordering (§12.7.1, the default accumulate_ordering
     * rar,raw,war,waw): accumulates from one origin to the same location
     * apply in program order, whatever path each takes. A vector REPLACE of
     * 1s, then a contiguous REPLACE of 2s over the same ints, then a
     * Fetch_and_op REPLACE of 3 into int 0: the target ends 3, 2, 2, ...
     * (the vector one travels as packets, the others may not). */
    for (int i = 0; i < 2 * N; i++)
        wbuf[i] = 0;
    for (int i = 0; i < 2 * N; i++) {
        src[i] = 2;
        dst[i] = 1;
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int r = 0; r < 3; r++) {
        int three = 3, old;
        MPI_OK(MPI_Accumulate(dst, 1, vec, to, D(0), 1, vec, MPI_REPLACE, win));
        MPI_OK(MPI_Accumulate(src, 2 * N, MPI_INT, to, D(0), 2 * N, MPI_INT, MPI_REPLACE, win));
        MPI_OK(MPI_Fetch_and_op(&three, &old, MPI_INT, to, D(0), MPI_REPLACE, win));
        MPI_OK(MPI_Win_flush(to, win));
        CHECK(old == 2, "round %d: Fetch_and_op saw %d before it: the contiguous REPLACE was not applied last", r, old);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 2 * N; i++)
        CHECK(wbuf[i] == (i == 0 ? 3 : 2), "accumulate ordering: int %d is %d", i, wbuf[i]);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Large contiguous accumulates completed by flush_local (the origin
     * buffer may be reused at once), then flush (the target has them):
     * reps accumulates of N ints each add up. */
    for (int i = 0; i < 2 * N; i++)
        wbuf[i] = 0;
    for (int i = 0; i < N; i++)
        src[i] = i % 1000;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
    for (int r = 0; r < 4; r++) {
        MPI_OK(MPI_Accumulate(src, N, MPI_INT, to, D(N), N, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Win_flush_local(to, win));
        for (int i = 0; i < N; i++)
            src[i] += 1;              /* allowed after flush_local */
    }
    MPI_OK(MPI_Win_unlock(to, win));
    double t_fl = MPI_Wtime() - t0;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(wbuf[N + i] == 4 * (i % 1000) + 6, "flush_local accumulates: int %d is %d, expected %d", i,
              wbuf[N + i], 4 * (i % 1000) + 6);
    if (me == 0)
        printf("conf_rma_dtype: %s, %d ranks, %d ints, 4 accumulates with flush_local: %.4f s\n",
               flavor, np, N, t_fl);

    MPI_Group_free(&gto);
    MPI_Group_free(&gfrom);
    MPI_Group_free(&wg);
    MPI_Type_free(&vec);
    if (dynamic)
        MPI_OK(MPI_Win_detach(win, wbuf));
    MPI_OK(MPI_Win_free(&win));
    if (create || dynamic)
        free(wbuf);
    free(src);
    free(dst);
    MPI_Finalize();
    return 0;
}
