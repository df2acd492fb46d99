/*
 * Every ordered pair of ranks exchanges messages of random sizes (0 B to
 * 16 MiB, log-uniform, so eager and rendezvous sizes both occur) with random
 * tags; every byte, the status (source, tag, count) and the bytes after the
 * receive buffer are checked. Phase 1 is non-blocking (all receives and
 * sends posted, one Waitall), phase 2 blocking Send/Recv in pairs, phase 3
 * non-contiguous datatypes (a vector on one side, contiguous on the other).
 *
 * Every rank replays the same generator, so the receiver knows each size
 * and tag. Usage: test_mpi_pairs [seed]
 */
#include "mpi_test.h"

#define PER_PAIR 3
#define MAX_BYTES (16u << 20)
#define GUARD 64

struct msg {
    int src, dst, tag;
    size_t bytes;
    uint64_t id;
};

static size_t random_size(uint64_t *s)
{
    unsigned bits = (unsigned)(mt_next(s) % 25);          /* 0 .. 24: up to 16 MiB */
    size_t n = bits ? (size_t)(mt_next(s) % ((uint64_t)1 << bits)) : 0;
    return n > MAX_BYTES ? MAX_BYTES : n;
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 20240611u;
    uint64_t s = seed;

    /* The schedule, identical at every rank. The first message is 0 bytes and
     * the second exactly 16 MiB, so both ends of the range always occur. */
    int nmsg = size * (size - 1) * PER_PAIR;
    struct msg *m = calloc((size_t)nmsg, sizeof(*m));
    CHECK(m, "out of memory");
    int k = 0;
    for (int src = 0; src < size; src++)
        for (int dst = 0; dst < size; dst++)
            for (int j = 0; src != dst && j < PER_PAIR; j++, k++) {
                m[k] = (struct msg){ src, dst, (int)(mt_next(&s) % 100000), random_size(&s), (uint64_t)k + 1 };
                if (k == 0)
                    m[k].bytes = 0;
                if (k == 1)
                    m[k].bytes = MAX_BYTES;
            }

    /* Phase 1: non-blocking, everything at once. */
    unsigned char **buf = calloc((size_t)nmsg, sizeof(*buf));
    MPI_Request *req = malloc((size_t)nmsg * sizeof(*req));
    MPI_Status *st = malloc((size_t)nmsg * sizeof(*st));
    int *which = malloc((size_t)nmsg * sizeof(int));
    CHECK(buf && req && st && which, "out of memory");
    int nreq = 0;
    for (int i = 0; i < nmsg; i++) {
        if (m[i].dst != mt_rank)
            continue;
        buf[i] = malloc(m[i].bytes + GUARD);
        CHECK(buf[i], "out of memory");
        memset(buf[i], 0xee, m[i].bytes + GUARD);
        MPI_OK(MPI_Irecv(buf[i], (int)m[i].bytes, MPI_BYTE, m[i].src, m[i].tag, MPI_COMM_WORLD, &req[nreq]));
        which[nreq++] = i;
    }
    for (int i = 0; i < nmsg; i++) {
        if (m[i].src != mt_rank)
            continue;
        buf[i] = malloc(m[i].bytes + 1);
        CHECK(buf[i], "out of memory");
        mt_fill(buf[i], m[i].bytes, m[i].id);
        MPI_OK(MPI_Isend(buf[i], (int)m[i].bytes, MPI_BYTE, m[i].dst, m[i].tag, MPI_COMM_WORLD, &req[nreq]));
        which[nreq++] = i;
    }
    MPI_OK(MPI_Waitall(nreq, req, st));
    size_t total = 0;
    for (int r = 0; r < nreq; r++) {
        int i = which[r];
        CHECK(req[r] == MPI_REQUEST_NULL, "request %d not freed by Waitall", r);
        if (m[i].dst == mt_rank) {
            int count = -1;
            MPI_OK(MPI_Get_count(&st[r], MPI_BYTE, &count));
            CHECK(st[r].MPI_SOURCE == m[i].src && st[r].MPI_TAG == m[i].tag && count == (int)m[i].bytes,
                  "message %d: status source %d tag %d count %d, expected %d %d %zu", i, st[r].MPI_SOURCE,
                  st[r].MPI_TAG, count, m[i].src, m[i].tag, m[i].bytes);
            long bad = mt_verify(buf[i], m[i].bytes, m[i].id);
            CHECK(bad < 0, "message %d (%zu bytes from %d): wrong byte at %ld", i, m[i].bytes, m[i].src, bad);
            for (int g = 0; g < GUARD; g++)
                CHECK(buf[i][m[i].bytes + g] == 0xee, "message %d: written past the buffer end (+%d)", i, g);
            total += m[i].bytes;
        }
        free(buf[i]);
        buf[i] = NULL;
    }

    /* Phase 2: blocking, pair by pair (lower rank sends first). */
    for (int a = 0; a < size; a++)
        for (int b = a + 1; b < size; b++) {
            if (mt_rank != a && mt_rank != b)
                continue;
            uint64_t ps = seed ^ ((uint64_t)a << 32 | (uint64_t)b);
            size_t n1 = random_size(&ps), n2 = random_size(&ps);
            int tag = (int)(mt_next(&ps) % 1000);
            size_t n = n1 > n2 ? n1 : n2;
            unsigned char *p = malloc(n + 1);
            CHECK(p, "out of memory");
            MPI_Status s1;
            int count;
            if (mt_rank == a) {
                mt_fill(p, n1, 1000 + (uint64_t)a);
                MPI_OK(MPI_Send(p, (int)n1, MPI_BYTE, b, tag, MPI_COMM_WORLD));
                MPI_OK(MPI_Recv(p, (int)n2, MPI_BYTE, b, tag + 1, MPI_COMM_WORLD, &s1));
                MPI_OK(MPI_Get_count(&s1, MPI_BYTE, &count));
                CHECK(count == (int)n2 && mt_verify(p, n2, 2000 + (uint64_t)b) < 0, "blocking %d<-%d", a, b);
            } else {
                MPI_OK(MPI_Recv(p, (int)n1, MPI_BYTE, a, tag, MPI_COMM_WORLD, &s1));
                MPI_OK(MPI_Get_count(&s1, MPI_BYTE, &count));
                CHECK(count == (int)n1 && mt_verify(p, n1, 1000 + (uint64_t)a) < 0, "blocking %d->%d", a, b);
                mt_fill(p, n2, 2000 + (uint64_t)b);
                MPI_OK(MPI_Send(p, (int)n2, MPI_BYTE, a, tag + 1, MPI_COMM_WORLD));
            }
            free(p);
        }

    /* Phase 3: a vector of every other int, sent to the right neighbour and
     * received contiguously, then sent back contiguously and received into
     * the vector's holes' complement. */
    MPI_Datatype vec;
    int nblk = 300000;                      /* 1.2 MB of data: the rendezvous path */
    MPI_OK(MPI_Type_vector(nblk, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    int *sparse = malloc(2 * (size_t)nblk * sizeof(int)), *dense = malloc((size_t)nblk * sizeof(int));
    CHECK(sparse && dense, "out of memory");
    for (int i = 0; i < 2 * nblk; i++)
        sparse[i] = i % 2 ? -1 : mt_rank * 1000000 + i / 2;
    int right = (mt_rank + 1) % size, left = (mt_rank + size - 1) % size;
    MPI_Status s3;
    MPI_OK(MPI_Sendrecv(sparse, 1, vec, right, 5, dense, nblk, MPI_INT, left, 5, MPI_COMM_WORLD, &s3));
    for (int i = 0; i < nblk; i++)
        CHECK(dense[i] == left * 1000000 + i, "vector -> contiguous: element %d is %d", i, dense[i]);
    int elems = -1;
    MPI_OK(MPI_Get_elements(&s3, MPI_INT, &elems));
    CHECK(elems == nblk, "Get_elements %d, expected %d", elems, nblk);
    for (int i = 0; i < 2 * nblk; i++)
        sparse[i] = -7;
    MPI_OK(MPI_Sendrecv(dense, nblk, MPI_INT, left, 6, sparse, 1, vec, right, 6, MPI_COMM_WORLD, &s3));
    for (int i = 0; i < 2 * nblk; i++)
        CHECK(sparse[i] == (i % 2 ? -7 : mt_rank * 1000000 + i / 2), "contiguous -> vector: element %d is %d", i,
              sparse[i]);
    MPI_OK(MPI_Type_free(&vec));
    free(sparse);
    free(dense);

    printf("[rank %d] pairs: %d messages, %zu bytes received and verified\n", mt_rank, nmsg, total);
    free(m);
    free(buf);
    free(req);
    free(st);
    free(which);
    MPI_OK(MPI_Finalize());
    return 0;
}
