/*
 * Fan-in: every rank but 0 sends PER_SENDER messages to rank 0, which
 * receives them all with MPI_ANY_SOURCE and MPI_ANY_TAG. Each message
 * carries (sender, sequence number); the receiver checks that every sender's
 * messages arrive in the order sent (MPI's non-overtaking rule, across the
 * eager and rendezvous protocols: every 16th message is 200 KB), that each
 * status names the true sender and tag, and that nothing is lost or
 * duplicated. Then the same with receives naming a tag and any source.
 */
#include "mpi_test.h"

#define PER_SENDER 300
#define BIG 200000

static int tag_of(int src, int seq)
{
    return (src * 7 + seq * 13) % 5;
}

static size_t bytes_of(int seq)
{
    return seq % 16 == 15 ? BIG : 16 + (size_t)(seq % 7) * 8;
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "needs at least 2 ranks");
    unsigned char *buf = malloc(BIG);
    CHECK(buf, "out of memory");

    if (mt_rank != 0) {
        for (int seq = 0; seq < PER_SENDER; seq++) {
            size_t n = bytes_of(seq);
            mt_fill(buf, n, (uint64_t)mt_rank << 20 | (uint64_t)seq);
            memcpy(buf, &seq, sizeof(int));
            MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, 0, tag_of(mt_rank, seq), MPI_COMM_WORLD));
        }
        /* Phase 2, once rank 0 has all of phase 1 (its ANY_TAG receives would
         * take these too): one message per tag 100..104, in decreasing tag order. */
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int t = 104; t >= 100; t--) {
            int v[2] = { mt_rank, t };
            MPI_OK(MPI_Send(v, 2, MPI_INT, 0, t, MPI_COMM_WORLD));
        }
    } else {
        int *next = calloc((size_t)size, sizeof(int));
        CHECK(next, "out of memory");
        int total = (size - 1) * PER_SENDER;
        for (int i = 0; i < total; i++) {
            MPI_Status st;
            MPI_OK(MPI_Recv(buf, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            int src = st.MPI_SOURCE, seq, count;
            CHECK(src > 0 && src < size, "status names source %d", src);
            memcpy(&seq, buf, sizeof(int));
            CHECK(seq == next[src], "from rank %d: got message %d, expected %d (overtaking or loss)", src, seq,
                  next[src]);
            next[src]++;
            CHECK(st.MPI_TAG == tag_of(src, seq), "message %d of rank %d: tag %d, sent with %d", seq, src, st.MPI_TAG,
                  tag_of(src, seq));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK((size_t)count == bytes_of(seq), "message %d of rank %d: %d bytes, sent %zu", seq, src, count,
                  bytes_of(seq));
            for (size_t b = sizeof(int); b < (size_t)count; b++)
                CHECK(buf[b] == mt_byte((uint64_t)src << 20 | (uint64_t)seq, b), "message %d of rank %d: byte %zu",
                      seq, src, b);
        }
        for (int r = 1; r < size; r++)
            CHECK(next[r] == PER_SENDER, "rank %d: %d of %d messages", r, next[r], PER_SENDER);
        for (int r = 1; r < size; r++)
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, r, 99, MPI_COMM_WORLD));
        /* Phase 2: by tag, any source: each tag gets exactly one message per sender. */
        for (int t = 100; t <= 104; t++) {
            int seen = 0;
            for (int r = 1; r < size; r++) {
                int v[2];
                MPI_Status st;
                MPI_OK(MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &st));
                CHECK(v[1] == t && st.MPI_TAG == t && v[0] == st.MPI_SOURCE, "tag %d: got (%d, %d) from %d", t,
                      v[0], v[1], st.MPI_SOURCE);
                CHECK(!(seen & (1 << v[0])), "tag %d: rank %d twice", t, v[0]);
                seen |= 1 << v[0];
            }
        }
        printf("fan-in: %d messages from %d senders in order\n", total, size - 1);
        free(next);
    }
    free(buf);
    MPI_OK(MPI_Finalize());
    return 0;
}
