/*
 * First contact on a node: every rank in turn receives with MPI_ANY_SOURCE
 * while every other rank sends it its first messages, no barrier between
 * (the shared-memory channel polls only the rings of the ranks that have
 * rung its doorbell, so a sender's first message must make the receiver
 * find its ring whether it was polling or asleep). Each message carries its
 * sender and sequence number: the standard's non-overtaking rule says the
 * messages of one sender match in the order they were sent; status says
 * who sent and the tag.
 */
#include "mpi_test.h"

#define NMSG 200

int main(int argc, char **argv)
{
    int rank, size;
    mt_init(&argc, &argv, &rank, &size);
    int next[64] = { 0 };
    CHECK(size <= 64, "at most 64 ranks, not %d", size);
    for (int r = 0; r < size; r++) {
        if (rank != r) {
            for (int s = 0; s < NMSG; s++) {
                int msg[2] = { rank, s };
                MPI_OK(MPI_Send(msg, 2, MPI_INT, r, s % 7, MPI_COMM_WORLD));
            }
            continue;
        }
        memset(next, 0, sizeof(next));
        for (int i = 0; i < (size - 1) * NMSG; i++) {
            int msg[2] = { -1, -1 }, n = -1;
            MPI_Status st;
            MPI_OK(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
            int src = st.MPI_SOURCE;
            CHECK(n == 2 && src >= 0 && src < size && src != rank && msg[0] == src,
                  "round %d: message %d: %d ints from %d saying sender %d", r, i, n, src, msg[0]);
            CHECK(msg[1] == next[src] && st.MPI_TAG == msg[1] % 7,
                  "round %d: from %d: sequence %d tag %d, expected %d tag %d", r, src, msg[1], st.MPI_TAG,
                  next[src], next[src] % 7);
            next[src]++;
        }
        for (int p = 0; p < size; p++)
            CHECK(p == rank || next[p] == NMSG, "round %d: %d messages from %d", r, next[p], p);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("first contact: %d rounds of %d senders x %d messages, in order\n", size, size - 1, NMSG);
    MPI_Finalize();
    return 0;
}
