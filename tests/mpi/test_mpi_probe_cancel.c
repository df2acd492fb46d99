/*
 * Probe, Iprobe and Cancel on 3 ranks.
 *  - Probe with wildcards reports source, tag and size (also of a rendezvous
 *    message that has not moved yet); the receive of exactly that message
 *    follows, with a buffer sized from Get_count.
 *  - Iprobe makes progress by itself (a loop of Iprobe sees a message arrive)
 *    and says no for a message never sent.
 *  - Cancel of a receive that has not matched: Test_cancelled is true and a
 *    later message with that tag is not consumed by it; Cancel of a receive
 *    that has matched: not cancelled, the data is there.
 *  - Cancel of a send: either outcome is allowed by MPI; the receiver is told
 *    which and checks the message is there exactly when it was not cancelled.
 */
#include "mpi_test.h"

#define NPROBE 12

static size_t probe_size(int src, int i)
{
    return i % 4 == 3 ? 300000 + (size_t)src : (size_t)(i * 37 + src);
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 3, "run on 3 ranks");

    /* Probe with wildcards. */
    if (mt_rank > 0) {
        for (int i = 0; i < NPROBE; i++) {
            size_t n = probe_size(mt_rank, i);
            unsigned char *p = malloc(n + 1);
            mt_fill(p, n, (uint64_t)(mt_rank * 100 + i));
            MPI_OK(MPI_Send(p, (int)n, MPI_BYTE, 0, 40 + i, MPI_COMM_WORLD));
            free(p);
        }
        /* Nothing more until rank 0 has probed all of these with wildcards. */
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        int got[3] = { 0, 0, 0 };
        for (int k = 0; k < 2 * NPROBE; k++) {
            MPI_Status st, st2;
            int count;
            MPI_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            int src = st.MPI_SOURCE, i = st.MPI_TAG - 40;
            CHECK(src == 1 || src == 2, "probe source %d", src);
            CHECK(i == got[src], "from %d: probed message %d, expected %d", src, i, got[src]);
            CHECK((size_t)count == probe_size(src, i), "probed size %d, sent %zu", count, probe_size(src, i));
            unsigned char *p = malloc((size_t)count + 1);
            MPI_OK(MPI_Recv(p, count, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD, &st2));
            CHECK(st2.MPI_SOURCE == src && st2.MPI_TAG == st.MPI_TAG, "receive after probe");
            CHECK(mt_verify(p, (size_t)count, (uint64_t)(src * 100 + i)) < 0, "data of probed message");
            free(p);
            got[src]++;
        }
        int flag = 1;
        MPI_Status st;
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "Iprobe found a message that was never sent");
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 90, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 2, 90, MPI_COMM_WORLD));
    }

    /* Iprobe alone makes progress. */
    if (mt_rank == 1) {
        int v = 51;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 50, MPI_COMM_WORLD));
    } else if (mt_rank == 0) {
        int flag = 0, v = 0;
        MPI_Status st;
        long polls = 0;
        while (!flag) {
            MPI_OK(MPI_Iprobe(1, 50, MPI_COMM_WORLD, &flag, &st));
            polls++;
        }
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 50, "Iprobe status");
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 1, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == 51, "value after Iprobe %d", v);
    }

    /* Cancel receives. */
    if (mt_rank == 0) {
        int a = -1, b = -1, c = -1, flag = -1;
        MPI_Request r;
        MPI_Status st;
        /* (1) never matched: cancelled */
        MPI_OK(MPI_Irecv(&a, 1, MPI_INT, 1, 60, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Cancel(&r));
        MPI_OK(MPI_Wait(&r, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag == 1, "unmatched receive not cancelled");
        /* (2) matched before the cancel: not cancelled */
        MPI_OK(MPI_Irecv(&b, 1, MPI_INT, 1, 61, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 70, MPI_COMM_WORLD));   /* tell rank 1 to send 61 then 62 */
        MPI_OK(MPI_Recv(&c, 1, MPI_INT, 1, 62, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Cancel(&r));
        MPI_OK(MPI_Wait(&r, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag == 0 && b == 610 && st.MPI_SOURCE == 1 && st.MPI_TAG == 61,
              "matched receive: cancelled %d value %d status %d/%d", flag, b, st.MPI_SOURCE, st.MPI_TAG);
        /* (1 continued) the message with tag 60 came later and is still receivable */
        MPI_OK(MPI_Recv(&a, 1, MPI_INT, 1, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(a == 600, "tag 60 after the cancelled receive: %d", a);
        /* Cancel of a send by rank 2. */
        int was_cancelled = -1, v = -1;
        MPI_OK(MPI_Recv(&was_cancelled, 1, MPI_INT, 2, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Iprobe(2, 80, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        if (was_cancelled) {
            CHECK(!flag, "a cancelled send was delivered");
        } else {
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, 2, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v == 800, "send that was not cancelled: %d", v);
        }
        printf("probe/cancel: ok (send cancel %s)\n", was_cancelled ? "took effect" : "completed the send");
    } else if (mt_rank == 1) {
        int v;
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        v = 610;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 61, MPI_COMM_WORLD));
        v = 620;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 62, MPI_COMM_WORLD));
        v = 600;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 60, MPI_COMM_WORLD));
    } else {
        int v = 800, flag = -1;
        MPI_Request r;
        MPI_Status st;
        MPI_OK(MPI_Isend(&v, 1, MPI_INT, 0, 80, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Cancel(&r));
        MPI_OK(MPI_Wait(&r, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        MPI_OK(MPI_Send(&flag, 1, MPI_INT, 0, 81, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Finalize());
    return 0;
}
