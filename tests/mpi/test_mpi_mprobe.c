/*
 * Matched probe: MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv (2 ranks).
 *
 *  1. Mprobe with wildcards reports source, tag and size of eager and
 *     rendezvous messages; Mrecv with a buffer sized from the status
 *     receives exactly that message and sets the handle to MPI_MESSAGE_NULL.
 *  2. A matched message is off the queue: Iprobe and Improbe no longer see
 *     it, and a receive posted for the same (source, tag) gets the next
 *     message, not the matched one.
 *  3. Improbe polling (it progresses by itself) then Imrecv + Wait; a
 *     non-contiguous datatype; Improbe says no when nothing is there.
 *  4. MPI_PROC_NULL: Mprobe/Improbe give MPI_MESSAGE_NO_PROC, and
 *     Mrecv/Imrecv of it give the MPI_PROC_NULL status.
 *  5. Errors (MPI_ERRORS_RETURN): MPI_MESSAGE_NULL, a made-up handle, a
 *     request handle, a handle already received: MPI_ERR_REQUEST; a message
 *     larger than the buffer: MPI_ERR_TRUNCATE with the fitting part.
 *  6. Threads (MPI_THREAD_MULTIPLE): NRACE threads of rank 0 race to
 *     Mprobe/Improbe + Mrecv/Imrecv rank 1's messages (eager and rendezvous,
 *     then one STOP message per thread): every message is received exactly
 *     once, with its own size and data.
 */
#include <pthread.h>
#include <stdatomic.h>
#include "mpi_test.h"

#define TAG_A 10
#define TAG_B 11
#define NRACE 2
#define NDATA 400
#define TAG_DATA 20
#define TAG_STOP 21

#define RACE_MAX (100000 + NDATA)   /* the largest race_size */

static size_t race_size(int i)
{
    return i % 10 == 9 ? 100000 + (size_t)i : (size_t)(i % 50) * 8 + 4;
}

static void send_msg(int dest, int tag, size_t n, uint64_t id)
{
    unsigned char *p = malloc(n + 1);
    mt_fill(p, n, id);
    MPI_OK(MPI_Send(p, (int)n, MPI_BYTE, dest, tag, MPI_COMM_WORLD));
    free(p);
}

/* Mprobe (or Improbe polling), then receive (Mrecv or Imrecv) and check. */
static void probe_recv_check(int src, int tag, size_t want, uint64_t id, int nonblocking)
{
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status st;
    if (nonblocking) {
        int flag = 0;
        while (!flag)
            MPI_OK(MPI_Improbe(src, tag, MPI_COMM_WORLD, &flag, &m, &st));
    } else {
        MPI_OK(MPI_Mprobe(src, tag, MPI_COMM_WORLD, &m, &st));
    }
    CHECK(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC, "message handle 0x%x", (unsigned)m);
    int count;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK((size_t)count == want, "probe says %d bytes, expected %zu", count, want);
    CHECK(st.MPI_SOURCE == 1 && (tag == MPI_ANY_TAG || st.MPI_TAG == tag), "status (%d,%d)", st.MPI_SOURCE,
          st.MPI_TAG);
    unsigned char *p = malloc((size_t)count + 1);
    MPI_Status rs;
    if (nonblocking) {
        MPI_Request r;
        MPI_OK(MPI_Imrecv(p, count, MPI_BYTE, &m, &r));
        CHECK(m == MPI_MESSAGE_NULL, "Imrecv left the handle 0x%x", (unsigned)m);
        MPI_OK(MPI_Wait(&r, &rs));
    } else {
        MPI_OK(MPI_Mrecv(p, count, MPI_BYTE, &m, &rs));
        CHECK(m == MPI_MESSAGE_NULL, "Mrecv left the handle 0x%x", (unsigned)m);
    }
    int got;
    MPI_OK(MPI_Get_count(&rs, MPI_BYTE, &got));
    CHECK(got == count && rs.MPI_SOURCE == st.MPI_SOURCE && rs.MPI_TAG == st.MPI_TAG,
          "received %d bytes (%d,%d)", got, rs.MPI_SOURCE, rs.MPI_TAG);
    long bad = mt_verify(p, (size_t)got, id);
    CHECK(bad < 0, "message %llu: byte %ld wrong", (unsigned long long)id, bad);
    free(p);
}

static void basic(void)
{
    static const size_t sizes[] = { 0, 1, 100, 4000, 70000, 1 << 20 };
    const int ns = (int)(sizeof(sizes) / sizeof(sizes[0]));
    if (mt_rank == 1) {
        for (int i = 0; i < ns; i++)
            send_msg(0, TAG_A + i % 2, sizes[i], 100 + (uint64_t)i);
        for (int i = 0; i < ns; i++)
            send_msg(0, TAG_A, sizes[i], 200 + (uint64_t)i);
    } else if (mt_rank == 0) {
        for (int i = 0; i < ns; i++)
            probe_recv_check(MPI_ANY_SOURCE, MPI_ANY_TAG, sizes[i], 100 + (uint64_t)i, 0);
        for (int i = 0; i < ns; i++)
            probe_recv_check(1, TAG_A, sizes[i], 200 + (uint64_t)i, 1);
    }
}

/* 2: the matched message is invisible to everything else. */
static void hidden(void)
{
    if (mt_rank == 1) {
        /* non-blocking: rank 0 receives the rendezvous message 302 only after 303 */
        static const size_t n[3] = { 64, 150000, 32 };
        unsigned char *p[3];
        MPI_Request r[3];
        for (int i = 0; i < 3; i++) {
            p[i] = malloc(n[i]);
            mt_fill(p[i], n[i], 301 + (uint64_t)i);
            MPI_OK(MPI_Isend(p[i], (int)n[i], MPI_BYTE, 0, TAG_B, MPI_COMM_WORLD, &r[i]));
        }
        MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 3; i++)
            free(p[i]);
    } else if (mt_rank == 0) {
        MPI_Message m1, m2;
        MPI_Status st;
        MPI_OK(MPI_Mprobe(1, TAG_B, MPI_COMM_WORLD, &m1, &st));     /* 301 */
        MPI_OK(MPI_Mprobe(1, TAG_B, MPI_COMM_WORLD, &m2, &st));     /* 302: a different message */
        int c2;
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &c2));
        CHECK(c2 == 150000, "second Mprobe saw %d bytes, expected the 150000-byte message", c2);
        /* 303 is the only one left visible: a receive gets it, not 301 or 302. */
        unsigned char b3[64];
        int flag = 0;
        while (!flag)
            MPI_OK(MPI_Iprobe(1, TAG_B, MPI_COMM_WORLD, &flag, &st));
        int c3;
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &c3));
        CHECK(c3 == 32, "Iprobe saw %d bytes: a matched message is still visible", c3);
        MPI_OK(MPI_Recv(b3, 64, MPI_BYTE, 1, TAG_B, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &c3));
        CHECK(c3 == 32 && mt_verify(b3, 32, 303) < 0, "Recv got %d bytes, not message 303", c3);
        MPI_Message m3;
        MPI_OK(MPI_Improbe(1, TAG_B, MPI_COMM_WORLD, &flag, &m3, &st));
        CHECK(!flag, "Improbe found a message where none is left");
        /* now the matched ones, in the opposite order */
        unsigned char *b2 = malloc(150000), b1[64];
        MPI_OK(MPI_Mrecv(b2, 150000, MPI_BYTE, &m2, &st));
        CHECK(mt_verify(b2, 150000, 302) < 0, "message 302 corrupted");
        MPI_OK(MPI_Mrecv(b1, 64, MPI_BYTE, &m1, &st));
        CHECK(mt_verify(b1, 64, 301) < 0, "message 301 corrupted");
        free(b2);
    }
}

/* 3: a vector datatype through Mrecv. */
static void noncontig(void)
{
    enum { N = 1000 };
    if (mt_rank == 1) {
        int v[N];
        for (int i = 0; i < N; i++)
            v[i] = i * 3 + 1;
        MPI_OK(MPI_Send(v, N, MPI_INT, 0, 30, MPI_COMM_WORLD));
    } else if (mt_rank == 0) {
        MPI_Datatype vec;
        MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
        MPI_OK(MPI_Type_commit(&vec));
        int *w = calloc(2 * N, sizeof(int));
        MPI_Message m;
        MPI_Status st;
        MPI_OK(MPI_Mprobe(1, 30, MPI_COMM_WORLD, &m, &st));
        MPI_OK(MPI_Mrecv(w, 1, vec, &m, &st));
        for (int i = 0; i < N; i++)
            CHECK(w[2 * i] == i * 3 + 1 && w[2 * i + 1] == 0, "element %d: %d %d", i, w[2 * i], w[2 * i + 1]);
        MPI_OK(MPI_Type_free(&vec));
        free(w);
    }
}

static void proc_null(void)
{
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status st;
    int flag = 0, count = -1;
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &m, &st));
    CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL) gave 0x%x", (unsigned)m);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "status (%d,%d)", st.MPI_SOURCE, st.MPI_TAG);
    int buf[4];
    st.MPI_SOURCE = 77;
    MPI_OK(MPI_Mrecv(buf, 4, MPI_INT, &m, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && count == 0,
          "Mrecv(NO_PROC): handle 0x%x source %d count %d", (unsigned)m, st.MPI_SOURCE, count);
    MPI_OK(MPI_Improbe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag == 1 && m == MPI_MESSAGE_NO_PROC, "Improbe(MPI_PROC_NULL): flag %d handle 0x%x", flag, (unsigned)m);
    MPI_Request r;
    MPI_OK(MPI_Imrecv(buf, 4, MPI_INT, &m, &r));
    CHECK(m == MPI_MESSAGE_NULL, "Imrecv(NO_PROC) left 0x%x", (unsigned)m);
    st.MPI_SOURCE = 77;
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv(NO_PROC) status source %d", st.MPI_SOURCE);
}

static void errors(void)
{
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int buf[8];
    MPI_Status st;
    MPI_Request r;
    MPI_Message m = MPI_MESSAGE_NULL;
    CHECK(mt_class(MPI_Mrecv(buf, 8, MPI_INT, &m, &st)) == MPI_ERR_REQUEST, "Mrecv(MPI_MESSAGE_NULL)");
    m = (MPI_Message)0x12345;
    CHECK(mt_class(MPI_Mrecv(buf, 8, MPI_INT, &m, &st)) == MPI_ERR_REQUEST, "Mrecv(made-up handle)");
    MPI_Request real;
    MPI_OK(MPI_Irecv(buf, 8, MPI_INT, mt_rank, 99, MPI_COMM_WORLD, &real));
    m = (MPI_Message)real;
    CHECK(mt_class(MPI_Imrecv(buf, 8, MPI_INT, &m, &r)) == MPI_ERR_REQUEST, "Imrecv(a request handle)");
    MPI_OK(MPI_Cancel(&real));
    MPI_OK(MPI_Wait(&real, MPI_STATUS_IGNORE));
    CHECK(mt_class(MPI_Mrecv(buf, 8, MPI_INT, NULL, &st)) == MPI_ERR_ARG, "Mrecv(message NULL)");
    CHECK(mt_class(MPI_Mprobe(0, -5, MPI_COMM_WORLD, &m, &st)) == MPI_ERR_TAG, "Mprobe(tag -5)");
    CHECK(mt_class(MPI_Mprobe(9, 0, MPI_COMM_WORLD, &m, &st)) == MPI_ERR_RANK, "Mprobe(rank 9)");
    int flag;
    CHECK(mt_class(MPI_Improbe(0, 0, MPI_COMM_NULL, &flag, &m, &st)) == MPI_ERR_COMM, "Improbe(MPI_COMM_NULL)");

    /* a handle already received, and truncation (the fitting part is delivered) */
    int v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    MPI_OK(MPI_Send(v, 8, MPI_INT, mt_rank, 98, MPI_COMM_WORLD));
    MPI_OK(MPI_Mprobe(mt_rank, 98, MPI_COMM_WORLD, &m, &st));
    MPI_Message old = m;
    /* a bad buffer argument leaves the message matched and valid */
    CHECK(mt_class(MPI_Mrecv(buf, -1, MPI_INT, &m, &st)) == MPI_ERR_COUNT, "Mrecv(count -1)");
    CHECK(m == old, "a failed Mrecv changed the handle");
    int small[3] = { 0, 0, 0 };
    CHECK(mt_class(MPI_Mrecv(small, 3, MPI_INT, &m, &st)) == MPI_ERR_TRUNCATE, "Mrecv into 3 of 8 ints");
    CHECK(small[0] == 1 && small[2] == 3, "truncated Mrecv delivered %d..%d", small[0], small[2]);
    CHECK(mt_class(MPI_Mrecv(buf, 8, MPI_INT, &old, &st)) == MPI_ERR_REQUEST, "Mrecv of a received handle");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* ---- 6: threads racing for rank 1's messages ---- */
static atomic_int got[NDATA];
static atomic_int total;

static void *racer(void *p)
{
    int t = (int)(intptr_t)p;
    unsigned char *buf = malloc(RACE_MAX);
    for (int n = 0;; n++) {
        MPI_Message m;
        MPI_Status st;
        int nonblocking = (t + n) % 2;
        if (nonblocking) {
            int flag = 0;
            while (!flag)
                MPI_OK(MPI_Improbe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
        } else {
            MPI_OK(MPI_Mprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
        }
        int count;
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        MPI_Status rs;
        if (nonblocking) {
            MPI_Request r;
            MPI_OK(MPI_Imrecv(buf, count, MPI_BYTE, &m, &r));
            MPI_OK(MPI_Wait(&r, &rs));
        } else {
            MPI_OK(MPI_Mrecv(buf, count, MPI_BYTE, &m, &rs));
        }
        if (st.MPI_TAG == TAG_STOP)
            break;
        CHECK(st.MPI_TAG == TAG_DATA && count >= 4, "tag %d count %d", st.MPI_TAG, count);
        int i;
        memcpy(&i, buf, 4);
        CHECK(i >= 0 && i < NDATA && (size_t)count == race_size(i), "message %d of %d bytes", i, count);
        CHECK(mt_verify(buf + 4, (size_t)count - 4, 1000 + (uint64_t)i) < 0, "message %d corrupted", i);
        int prev = atomic_fetch_add(&got[i], 1);
        CHECK(prev == 0, "message %d received twice", i);
        atomic_fetch_add(&total, 1);
    }
    free(buf);
    return NULL;
}

static void race(void)
{
    if (mt_rank == 1) {
        unsigned char *p = malloc(RACE_MAX);
        for (int i = 0; i < NDATA; i++) {
            size_t n = race_size(i);
            memcpy(p, &i, 4);
            mt_fill(p + 4, n - 4, 1000 + (uint64_t)i);
            MPI_OK(MPI_Send(p, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD));
        }
        for (int t = 0; t < NRACE; t++)
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_STOP, MPI_COMM_WORLD));
        free(p);
    } else if (mt_rank == 0) {
        pthread_t th[NRACE];
        for (int t = 0; t < NRACE; t++)
            CHECK(pthread_create(&th[t], NULL, racer, (void *)(intptr_t)t) == 0, "pthread_create");
        for (int t = 0; t < NRACE; t++)
            pthread_join(th[t], NULL);
        CHECK(atomic_load(&total) == NDATA, "%d of %d messages received", atomic_load(&total), NDATA);
    }
}

int main(int argc, char **argv)
{
    int provided, size;
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run on 2 ranks");
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    basic();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    hidden();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    noncontig();
    proc_null();
    errors();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    race();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("test_mpi_mprobe: all checks passed\n");
    MPI_OK(MPI_Finalize());
    return 0;
}
