/*
 * The completion calls on 3 ranks: Waitany, Testany, Waitsome, Testsome,
 * Testall (false until everything is done, then all at once),
 * Request_get_status (does not free), Request_free of an active send, arrays
 * with MPI_REQUEST_NULL, empty arrays, MPI_STATUSES_IGNORE.
 *
 * Ranks 1 and 2 send rank 0 batches of messages only when rank 0 says "go",
 * so rank 0 knows which of its receives can be complete at each point.
 */
#include "mpi_test.h"

#define N 8     /* messages per sender per batch */

static void go(int to, int batch)
{
    MPI_OK(MPI_Send(&batch, 1, MPI_INT, to, 1000, MPI_COMM_WORLD));
}

#define BATCHES 4

static void sender(void)
{
    static int vals[BATCHES][N];      /* a freed send's buffer stays untouched */
    for (int b = 0; b < BATCHES; b++) {
        int batch;
        MPI_OK(MPI_Recv(&batch, 1, MPI_INT, 0, 1000, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++) {
            int *v = &vals[b][i];
            *v = batch * 10000 + mt_rank * 100 + i;
            MPI_Request r;
            MPI_OK(MPI_Isend(v, 1, MPI_INT, 0, i, MPI_COMM_WORLD, &r));
            if (i % 2)
                MPI_OK(MPI_Request_free(&r));     /* completes on its own */
            else
                MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK(r == MPI_REQUEST_NULL, "request not reset");
        }
    }
}

/* Posts 2N receives (N from each sender) with MPI_REQUEST_NULL holes between them. */
static void post(int *val, MPI_Request *r)
{
    for (int k = 0; k < 4 * N; k++) {
        r[k] = MPI_REQUEST_NULL;
        val[k] = -1;
    }
    for (int s = 1; s <= 2; s++)
        for (int i = 0; i < N; i++) {
            int k = 2 * ((s - 1) * N + i);
            MPI_OK(MPI_Irecv(&val[k], 1, MPI_INT, s, i, MPI_COMM_WORLD, &r[k]));
        }
}

static void check_val(int k, int v, int batch)
{
    int j = k / 2, s = 1 + j / N, i = j % N;
    CHECK(k % 2 == 0, "a null request (%d) was completed", k);
    CHECK(v == batch * 10000 + s * 100 + i, "receive %d got %d", k, v);
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 3, "run on 3 ranks");
    if (mt_rank != 0) {
        sender();
        MPI_OK(MPI_Finalize());
        return 0;
    }

    int val[4 * N], idx[4 * N], outcount, index, flag;
    MPI_Request r[4 * N];
    MPI_Status st[4 * N], s1;

    /* Empty and all-null arrays. */
    MPI_OK(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
    MPI_Request nul[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_OK(MPI_Waitany(3, nul, &index, &s1));
    CHECK(index == MPI_UNDEFINED && s1.MPI_SOURCE == MPI_ANY_SOURCE, "Waitany of nulls: %d", index);
    MPI_OK(MPI_Testany(3, nul, &index, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && index == MPI_UNDEFINED, "Testany of nulls: flag %d index %d", flag, index);
    MPI_OK(MPI_Waitsome(3, nul, &outcount, idx, st));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome of nulls: %d", outcount);
    MPI_OK(MPI_Testall(3, nul, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "Testall of nulls");

    /* Batch 0: Testall false before "go", Request_get_status, then Waitany. */
    post(val, r);
    MPI_OK(MPI_Testall(4 * N, r, &flag, st));
    CHECK(!flag, "Testall true before anything was sent");
    MPI_OK(MPI_Testany(4 * N, r, &index, &flag, &s1));
    CHECK(!flag && index == MPI_UNDEFINED, "Testany true before anything was sent");
    MPI_OK(MPI_Testsome(4 * N, r, &outcount, idx, st));
    CHECK(outcount == 0, "Testsome found %d before anything was sent", outcount);
    go(1, 0);
    go(2, 0);
    flag = 0;
    while (!flag)
        MPI_OK(MPI_Request_get_status(r[0], &flag, &s1));
    CHECK(r[0] != MPI_REQUEST_NULL && s1.MPI_SOURCE == 1 && s1.MPI_TAG == 0, "Request_get_status");
    for (int n = 0; n < 2 * N; n++) {
        MPI_OK(MPI_Waitany(4 * N, r, &index, &s1));
        CHECK(index >= 0 && index < 4 * N && r[index] == MPI_REQUEST_NULL, "Waitany index %d", index);
        check_val(index, val[index], 0);
        CHECK(s1.MPI_TAG == (index / 2) % N, "Waitany status tag %d for index %d", s1.MPI_TAG, index);
    }
    MPI_OK(MPI_Waitany(4 * N, r, &index, &s1));
    CHECK(index == MPI_UNDEFINED, "Waitany after all: %d", index);

    /* Batch 1: Waitsome until done. */
    post(val, r);
    go(1, 1);
    go(2, 1);
    int done = 0;
    while (done < 2 * N) {
        MPI_OK(MPI_Waitsome(4 * N, r, &outcount, idx, st));
        CHECK(outcount >= 1 && outcount <= 2 * N - done, "Waitsome outcount %d", outcount);
        for (int j = 0; j < outcount; j++) {
            check_val(idx[j], val[idx[j]], 1);
            CHECK(st[j].MPI_SOURCE == 1 + (idx[j] / 2) / N, "Waitsome status source");
        }
        done += outcount;
    }

    /* Batch 2: Testsome and Testany polling. */
    post(val, r);
    go(1, 2);
    go(2, 2);
    done = 0;
    while (done < N) {
        MPI_OK(MPI_Testsome(4 * N, r, &outcount, idx, MPI_STATUSES_IGNORE));
        for (int j = 0; j < outcount; j++)
            check_val(idx[j], val[idx[j]], 2);
        done += outcount;
    }
    while (done < 2 * N) {
        MPI_OK(MPI_Testany(4 * N, r, &index, &flag, &s1));
        if (flag) {
            check_val(index, val[index], 2);
            done++;
        }
    }

    /* Batch 3: Testall polling, then everything at once. */
    post(val, r);
    go(1, 3);
    go(2, 3);
    flag = 0;
    while (!flag)
        MPI_OK(MPI_Testall(4 * N, r, &flag, st));
    for (int k = 0; k < 4 * N; k++) {
        CHECK(r[k] == MPI_REQUEST_NULL, "Testall left request %d", k);
        if (k % 2 == 0)
            check_val(k, val[k], 3);
        else
            CHECK(st[k].MPI_SOURCE == MPI_ANY_SOURCE, "null request %d has a non-empty status", k);
    }
    printf("completion: Waitany, Waitsome, Testany, Testsome, Testall, get_status, Request_free ok\n");
    MPI_OK(MPI_Finalize());
    return 0;
}
