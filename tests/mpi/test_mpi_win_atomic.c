/*
 * Atomicity of one-sided accumulates: every rank hammers a counter at every
 * rank at once (so targets are reached through every path at the same time:
 * itself, its node's segment, RDMA, packets), and the results must be exact:
 *
 *   slot 0  MPI_Accumulate(SUM, int64 1)          -> size * ITER
 *   slot 1  MPI_Fetch_and_op(SUM, int64 1)        -> the fetched values of all
 *                                                    ranks are a permutation of
 *                                                    0 .. size*ITER-1
 *   slot 2  Compare_and_swap increment loop       -> size * ITER
 *   slot 3  MPI_Accumulate(SUM, double 0.5)       -> size * ITER / 2 (exact)
 *   slot 4  exclusive lock, Get, Put(+1), unlock  -> size * ITER (mutual exclusion)
 *   slot 5  MPI_Accumulate(MAX, rank*ITER + i)    -> (size-1)*ITER + ITER-1
 *   slots 6..9  Get_accumulate(SUM) of 4 int32 {1,2,3,4}: each element sums
 *               to k * size * ITER and every fetched vector is consistent
 *               (element k = k times element 0: no torn vector element-wise)
 *
 * Usage: test_mpi_win_atomic [create|allocate|dynamic] [iterations]
 */
#include "mpi_test.h"

#define SLOTS 12

static int rank, size;

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    mt_rank = rank;
    const char *flavor = argc > 1 ? argv[1] : "allocate";
    int iter = argc > 2 ? atoi(argv[2]) : 100;
    CHECK(iter > 0, "iterations %d", iter);

    MPI_Win win;
    int64_t *mem = NULL;
    MPI_Aint *addr = NULL;
    MPI_Aint bytes = SLOTS * 8;
    int dynamic = strcmp(flavor, "dynamic") == 0;
    if (strcmp(flavor, "allocate") == 0) {
        MPI_OK(MPI_Win_allocate(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    } else if (strcmp(flavor, "create") == 0) {
        MPI_OK(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &mem));
        MPI_OK(MPI_Win_create(mem, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        CHECK(dynamic, "unknown window flavor '%s'", flavor);
        mem = malloc((size_t)bytes);
        MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_OK(MPI_Win_attach(win, mem, bytes));
        MPI_Aint mine;
        MPI_OK(MPI_Get_address(mem, &mine));
        addr = malloc(sizeof(MPI_Aint) * (size_t)size);
        MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    memset(mem, 0, (size_t)bytes);
    MPI_OK(MPI_Win_unlock(rank, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
#define D(t, slot) (dynamic ? addr[t] + (MPI_Aint)(slot) * 8 : (MPI_Aint)(slot))

    int64_t one = 1, *fetched = malloc(sizeof(int64_t) * (size_t)size * (size_t)iter);
    double half = 0.5;
    int32_t vec[4] = { 1, 2, 3, 4 };
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < iter; i++) {
        for (int k = 0; k < size; k++) {
            int t = (rank + k) % size;
            int64_t got = -1;
            MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, D(t, 0), 1, MPI_INT64_T, MPI_SUM, win));
            MPI_OK(MPI_Fetch_and_op(&one, &got, MPI_INT64_T, t, D(t, 1), MPI_SUM, win));
            MPI_OK(MPI_Accumulate(&half, 1, MPI_DOUBLE, t, D(t, 3), 1, MPI_DOUBLE, MPI_SUM, win));
            int64_t mx = (int64_t)rank * iter + i;
            MPI_OK(MPI_Accumulate(&mx, 1, MPI_INT64_T, t, D(t, 5), 1, MPI_INT64_T, MPI_MAX, win));
            int32_t old[4] = { -1, -1, -1, -1 };
            MPI_OK(MPI_Get_accumulate(vec, 4, MPI_INT32_T, old, 4, MPI_INT32_T, t, D(t, 6), 4, MPI_INT32_T, MPI_SUM,
                                      win));
            /* compare-and-swap increment */
            int64_t cur = 0, seen = -1;
            MPI_OK(MPI_Fetch_and_op(NULL, &cur, MPI_INT64_T, t, D(t, 2), MPI_NO_OP, win));
            MPI_OK(MPI_Win_flush(t, win));
            for (;;) {
                int64_t next = cur + 1;
                MPI_OK(MPI_Compare_and_swap(&next, &cur, &seen, MPI_INT64_T, t, D(t, 2), win));
                MPI_OK(MPI_Win_flush(t, win));
                if (seen == cur)
                    break;
                cur = seen;
            }
            fetched[(size_t)t * iter + i] = got;
            for (int e = 1; e < 4; e++)
                CHECK(old[e] == (e + 1) * old[0], "torn Get_accumulate vector from rank %d: {%d,%d,%d,%d}", t, old[0],
                      old[1], old[2], old[3]);
        }
    }
    MPI_OK(MPI_Win_unlock_all(win));

    /* mutual exclusion: read-modify-write with plain Get and Put under an exclusive lock */
    for (int i = 0; i < iter; i++) {
        for (int k = 0; k < size; k++) {
            int t = (rank + k) % size;
            int64_t v = -1;
            MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
            MPI_OK(MPI_Get(&v, 1, MPI_INT64_T, t, D(t, 4), 1, MPI_INT64_T, win));
            MPI_OK(MPI_Win_flush(t, win));
            v++;
            MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, t, D(t, 4), 1, MPI_INT64_T, win));
            MPI_OK(MPI_Win_unlock(t, win));
        }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    int64_t n = (int64_t)size * iter;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    double dsum;
    memcpy(&dsum, &mem[3], sizeof(dsum));
    int32_t v32[4];
    memcpy(v32, &mem[6], sizeof(v32));
    CHECK(mem[0] == n, "accumulate SUM counter: %lld, expected %lld", (long long)mem[0], (long long)n);
    CHECK(mem[1] == n, "fetch_and_op counter: %lld, expected %lld", (long long)mem[1], (long long)n);
    CHECK(mem[2] == n, "compare_and_swap counter: %lld, expected %lld", (long long)mem[2], (long long)n);
    CHECK(dsum == 0.5 * (double)n, "double SUM: %.1f, expected %.1f", dsum, 0.5 * (double)n);
    CHECK(mem[4] == n, "exclusive-lock counter: %lld, expected %lld (mutual exclusion broken)", (long long)mem[4],
          (long long)n);
    CHECK(mem[5] == (int64_t)(size - 1) * iter + iter - 1, "MAX: %lld", (long long)mem[5]);
    for (int e = 0; e < 4; e++)
        CHECK(v32[e] == (e + 1) * n, "Get_accumulate element %d: %d, expected %lld", e, v32[e],
              (long long)((e + 1) * n));
    MPI_OK(MPI_Win_unlock(rank, win));

    /* every fetch_and_op result at each target: a permutation of 0..n-1 */
    int64_t *all = rank == 0 ? malloc(sizeof(int64_t) * (size_t)size * (size_t)size * (size_t)iter) : NULL;
    MPI_OK(MPI_Gather(fetched, size * iter, MPI_INT64_T, all, size * iter, MPI_INT64_T, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        int64_t *per = malloc(sizeof(int64_t) * (size_t)n);
        for (int t = 0; t < size; t++) {
            for (int r = 0; r < size; r++)
                memcpy(per + (size_t)r * iter, all + ((size_t)r * size + t) * iter, sizeof(int64_t) * (size_t)iter);
            qsort(per, (size_t)n, sizeof(int64_t), cmp64);
            for (int64_t i = 0; i < n; i++)
                CHECK(per[i] == i, "target %d: fetch_and_op results are not a permutation (sorted[%lld] = %lld)", t,
                      (long long)i, (long long)per[i]);
        }
        free(per);
        free(all);
        printf("test_mpi_win_atomic: %s windows, %d ranks x %d iterations at every rank: counters exact, "
               "fetch_and_op a permutation\n", flavor, size, iter);
    }
    free(fetched);
    if (dynamic)
        MPI_OK(MPI_Win_detach(win, mem));
    MPI_OK(MPI_Win_free(&win));
    if (dynamic) {
        free(mem);
        free(addr);
    } else if (strcmp(flavor, "create") == 0) {
        MPI_OK(MPI_Free_mem(mem));
    }
    MPI_OK(MPI_Finalize());
    return 0;
}
