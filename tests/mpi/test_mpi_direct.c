/*
 * The blocking receive's direct path (device rch_dev_recv_direct: MPI_Recv
 * with a named source takes a plain eager message straight from the
 * channel) and every case where it must step aside, on 2 ranks. Each case
 * is one the direct path could get wrong if it took the message:
 *   - an earlier MPI_Irecv(ANY_SOURCE) posted: it gets the first message;
 *   - the next message is for another tag, or another communicator: it
 *     becomes unexpected and the later receive finds it;
 *   - a message already unexpected when the receive starts;
 *   - synchronous sends (the sender waits for the match), rendezvous
 *     messages, truncation (MPI_ERR_TRUNCATE, the part that fits);
 *   - ANY_TAG, zero bytes, MPI_STATUS_IGNORE, the status's fields;
 *   - many more messages than a ring holds, received one by one (the
 *     credits the direct path returns keep the sender going);
 *   - a ping-pong of every size from 0 to 4 KiB, data checked.
 * Argument "expect-direct": the job runs over a channel with recv_peek (the
 * network channel), so the ping-pong must have gone the direct way at least
 * once on each rank (rch_dev_stat_direct_recvs, read through the static
 * library); without it, the same checks run on whatever path is taken.
 */
#include "mpi_test.h"

uint64_t rch_dev_stat_direct_recvs(void);   /* src/device (dev.h): the test links the static library */

#define PP_MAX 4096
#define FLOOD 1000

static void fill(unsigned char *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(seed * 31 + i * 7 + 1);
}

static void check_fill(const unsigned char *b, int n, int seed, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(b[i] == (unsigned char)(seed * 31 + i * 7 + 1), "%s: byte %d of %d is %u", what, i, n, b[i]);
}

static void check_status(const MPI_Status *st, int src, int tag, int bytes, const char *what)
{
    int count = -1;
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == bytes, "%s: status %d/%d/%d, expected %d/%d/%d",
          what, st->MPI_SOURCE, st->MPI_TAG, count, src, tag, bytes);
}

static int value_recv(int src, int tag, MPI_Comm comm)
{
    int v = -1;
    MPI_Status st;
    MPI_OK(MPI_Recv(&v, 1, MPI_INT, src, tag, comm, &st));
    check_status(&st, src, tag, (int)sizeof(int), "value");
    return v;
}

static void sync_ranks(void)
{
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run on 2 ranks");
    int expect_direct = argc > 1 && strcmp(argv[1], "expect-direct") == 0;
    CHECK(argc == 1 || expect_direct, "usage: test_mpi_direct [expect-direct]");
    int peer = 1 - mt_rank;
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int one = 1, two = 2, three = 3;

    /* 1. an earlier Irecv(ANY_SOURCE) takes the first message */
    if (mt_rank == 0) {
        sync_ranks();   /* rank 1 has posted its Irecv */
        MPI_OK(MPI_Send(&one, 1, MPI_INT, 1, 10, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(&two, 1, MPI_INT, 1, 10, MPI_COMM_WORLD));
    } else {
        int a = -1;
        MPI_Request r;
        MPI_Status st;
        MPI_OK(MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &r));
        sync_ranks();
        int b = value_recv(0, 10, MPI_COMM_WORLD);
        MPI_OK(MPI_Wait(&r, &st));
        check_status(&st, 0, 10, (int)sizeof(int), "Irecv(ANY_SOURCE)");
        CHECK(a == 1 && b == 2, "Irecv(ANY_SOURCE) got %d, the Recv after it %d: expected 1, 2", a, b);
    }

    /* 2. the next message has another tag; 3. another communicator */
    if (mt_rank == 0) {
        MPI_OK(MPI_Send(&one, 1, MPI_INT, 1, 21, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(&two, 1, MPI_INT, 1, 22, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(&one, 1, MPI_INT, 1, 30, dup));
        MPI_OK(MPI_Send(&two, 1, MPI_INT, 1, 30, MPI_COMM_WORLD));
    } else {
        int b = value_recv(0, 22, MPI_COMM_WORLD);
        int a = value_recv(0, 21, MPI_COMM_WORLD);
        CHECK(a == 1 && b == 2, "tags 21, 22 got %d, %d", a, b);
        b = value_recv(0, 30, MPI_COMM_WORLD);
        a = value_recv(0, 30, dup);
        CHECK(a == 1 && b == 2, "dup then world: dup got %d, world %d", a, b);
    }

    /* 4. a message already unexpected, then one behind it from the ring */
    if (mt_rank == 0) {
        MPI_OK(MPI_Send(&one, 1, MPI_INT, 1, 40, MPI_COMM_WORLD));
        sync_ranks();   /* rank 1 has probed it: it is unexpected there */
        MPI_OK(MPI_Send(&two, 1, MPI_INT, 1, 40, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        MPI_OK(MPI_Probe(0, 40, MPI_COMM_WORLD, &st));
        sync_ranks();
        int a = value_recv(0, 40, MPI_COMM_WORLD);
        int b = value_recv(0, 40, MPI_COMM_WORLD);
        CHECK(a == 1 && b == 2, "unexpected then ring: %d, %d", a, b);
    }

    /* 5. synchronous sends, rendezvous, truncation, ANY_TAG, zero bytes */
    const int big = 1 << 20;
    unsigned char *buf = malloc((size_t)big), *rbuf = malloc((size_t)big);
    CHECK(buf && rbuf, "out of memory");
    if (mt_rank == 0) {
        MPI_OK(MPI_Ssend(&three, 1, MPI_INT, 1, 50, MPI_COMM_WORLD));
        fill(buf, big, 5);
        MPI_OK(MPI_Send(buf, big, MPI_BYTE, 1, 51, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(buf, 16, MPI_BYTE, 1, 52, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(buf, 100, MPI_BYTE, 1, 53, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 54, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(&two, 1, MPI_INT, 1, 55, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        CHECK(value_recv(0, 50, MPI_COMM_WORLD) == 3, "Ssend: wrong value");
        MPI_OK(MPI_Recv(rbuf, big, MPI_BYTE, 0, 51, MPI_COMM_WORLD, &st));
        check_status(&st, 0, 51, big, "rendezvous");
        check_fill(rbuf, big, 5, "rendezvous");
        MPI_OK(MPI_Recv(rbuf, 16, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        check_status(&st, 0, 52, 16, "ANY_TAG");
        check_fill(rbuf, 16, 5, "ANY_TAG");
        memset(rbuf, 0xee, 100);
        int rc = MPI_Recv(rbuf, 60, MPI_BYTE, 0, 53, MPI_COMM_WORLD, &st);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "100 bytes into 60: class %d, expected MPI_ERR_TRUNCATE", cls);
        check_status(&st, 0, 53, 60, "truncated");
        check_fill(rbuf, 60, 5, "truncated");
        CHECK(rbuf[60] == 0xee && rbuf[99] == 0xee, "truncated: bytes past the buffer written");
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 54, MPI_COMM_WORLD, &st));
        check_status(&st, 0, 54, 0, "zero bytes");
        int v = -1;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 55, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == 2, "STATUS_IGNORE: got %d", v);
    }

    /* 6. many more messages than a ring has slots, received one at a time */
    if (mt_rank == 0) {
        for (int i = 0; i < FLOOD; i++)
            MPI_OK(MPI_Send(&i, 1, MPI_INT, 1, 60, MPI_COMM_WORLD));
    } else {
        for (int i = 0; i < FLOOD; i++)
            CHECK(value_recv(0, 60, MPI_COMM_WORLD) == i, "flood: message %d out of order", i);
    }

    /* 7. ping-pong, every size from 0 to PP_MAX bytes (step 1 up to 64, then 61) */
    uint64_t before = rch_dev_stat_direct_recvs();
    for (int n = 0, k = 0; n <= PP_MAX; n += n < 64 ? 1 : 61, k++) {
        MPI_Status st;
        if (mt_rank == 0) {
            fill(buf, n, k);
            MPI_OK(MPI_Send(buf, n, MPI_BYTE, peer, 70, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(rbuf, PP_MAX, MPI_BYTE, peer, 71, MPI_COMM_WORLD, &st));
        } else {
            MPI_OK(MPI_Recv(rbuf, PP_MAX, MPI_BYTE, peer, 70, MPI_COMM_WORLD, &st));
            check_status(&st, peer, 70, n, "ping");
            check_fill(rbuf, n, k, "ping");
            fill(buf, n, k + 1000);
            MPI_OK(MPI_Send(buf, n, MPI_BYTE, peer, 71, MPI_COMM_WORLD));
            continue;
        }
        check_status(&st, peer, 71, n, "pong");
        check_fill(rbuf, n, k + 1000, "pong");
    }
    uint64_t direct = rch_dev_stat_direct_recvs() - before;
    if (expect_direct)
        CHECK(direct > 0, "expect-direct: no receive of the ping-pong went the direct way");
    printf("[rank %d] ping-pong: %llu of its receives went the direct way\n", mt_rank, (unsigned long long)direct);

    free(buf);
    free(rbuf);
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Finalize());
    return 0;
}
