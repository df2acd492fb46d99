/*
 * MPI_THREAD_MULTIPLE: NTHREADS threads per rank call MPI at the same time.
 *
 *  1. Init_thread(MULTIPLE) provides MULTIPLE; Query_thread agrees;
 *     Is_thread_main is true in the main thread only.
 *  2. Per-thread tags: thread t of every rank exchanges with both ring
 *     neighbours on tag t (Sendrecv, eager and rendezvous sizes); the data
 *     names sender, thread and sequence, and arrives in order (non-overtaking
 *     per sender and tag).
 *  3. Wildcards, exact counts: every thread Isends NMSG messages to every
 *     rank (itself included), then receives n * NMSG messages with
 *     MPI_ANY_SOURCE / MPI_ANY_TAG (even threads with Recv, odd ones with
 *     Irecv + Waitall), then Waitalls its sends. Every message must be
 *     received exactly once, anywhere in the rank: a shared table counts
 *     arrivals per (source, thread, sequence).
 *  4. Progress by another thread: a thread blocked in MPI_Recv on a message
 *     that only another thread of its process sends — to itself (MPI_Send to
 *     self after the receiver announced it is about to receive) and through a
 *     peer (the peer sends only after a "go" from the other thread). If a
 *     blocked receive kept the library's lock the sender could never get in
 *     and the test would hang (ctest TIMEOUT).
 *  5. Collectives from the main thread (Comm_dup, Allreduce, Barrier on
 *     world) while the other threads run point-to-point traffic on their own
 *     communicators (duplicated beforehand by the main thread).
 * Each phase prints its time on rank 0: oversubscribed (4 ranks x 4 threads
 * on 2 cores) it must stay well under a second per phase.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include "mpi_test.h"

#define NTHREADS 4
#define NRING 40            /* phase 2: exchanges per thread */
#define NMSG 30             /* phase 3: messages per thread per destination rank */
#define NSELF 50            /* phase 4: blocked receives per thread pair */
#define NP2P 200            /* phase 5: point-to-point round trips per thread */
#define HDR 4               /* ints of header in each message: src rank, thread, seq, size */
#define MAXMSG (70000 + 64) /* the largest msg_size (seq < 64) */

static int nranks;
static pthread_barrier_t tbar;

static size_t msg_size(int seq)
{
    /* mostly eager; every 8th rendezvous-sized (above the shm and ofi eager limits) */
    return seq % 8 == 7 ? 70000 + (size_t)seq : 16 + (size_t)(seq % 5) * 100;
}

static void fill(int *buf, size_t bytes, int src, int thr, int seq)
{
    buf[0] = src;
    buf[1] = thr;
    buf[2] = seq;
    buf[3] = (int)bytes;
    unsigned char *p = (unsigned char *)(buf + HDR);
    mt_fill(p, bytes - HDR * sizeof(int), (uint64_t)(src * 1000003 + thr * 1009 + seq));
}

static void verify(const int *buf, size_t got, int src, int thr, int seq)
{
    CHECK(buf[0] == src && buf[1] == thr && buf[2] == seq, "header (%d,%d,%d), expected (%d,%d,%d)", buf[0],
          buf[1], buf[2], src, thr, seq);
    CHECK((size_t)buf[3] == got, "size %zu, header says %d", got, buf[3]);
    long bad = mt_verify((const unsigned char *)(buf + HDR), got - HDR * sizeof(int),
                         (uint64_t)(src * 1000003 + thr * 1009 + seq));
    CHECK(bad < 0, "message (%d,%d,%d): byte %ld wrong", src, thr, seq, bad);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- phase 2: per-thread tags ---- */
static void ring_tags(int t)
{
    int right = (mt_rank + 1) % nranks, left = (mt_rank + nranks - 1) % nranks;
    size_t max = MAXMSG;
    int *sb = malloc(max), *rb = malloc(max);
    for (int seq = 0; seq < NRING; seq++) {
        size_t n = msg_size(seq);
        fill(sb, n, mt_rank, t, seq);
        MPI_Status st;
        MPI_OK(MPI_Sendrecv(sb, (int)n, MPI_BYTE, right, t, rb, (int)max, MPI_BYTE, left, t, MPI_COMM_WORLD, &st));
        int got;
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == t, "status (%d,%d)", st.MPI_SOURCE, st.MPI_TAG);
        verify(rb, (size_t)got, left, t, seq);   /* seq: in order */
    }
    free(sb);
    free(rb);
}

/* ---- phase 3: wildcards, exact counts ---- */
static atomic_int *seen;    /* [src][thr][seq] */

static void wild(int t)
{
    int nsend = nranks * NMSG;
    MPI_Request *rq = malloc((size_t)nsend * sizeof(*rq));
    int **bufs = malloc((size_t)nsend * sizeof(*bufs));
    for (int d = 0, k = 0; d < nranks; d++)
        for (int seq = 0; seq < NMSG; seq++, k++) {
            size_t n = msg_size(seq);
            bufs[k] = malloc(n);
            fill(bufs[k], n, mt_rank, t, seq);
            MPI_OK(MPI_Isend(bufs[k], (int)n, MPI_BYTE, d, 1000 + t * NMSG + seq, MPI_COMM_WORLD, &rq[k]));
        }
    /* even threads receive one by one (Recv), odd ones post every receive (Irecv) then Waitall */
    int nrecv = nranks * NMSG, posted = t % 2;
    int **rbs = malloc((size_t)nrecv * sizeof(*rbs));
    MPI_Request *rr = malloc((size_t)nrecv * sizeof(*rr));
    MPI_Status *rst = malloc((size_t)nrecv * sizeof(*rst));
    for (int i = 0; i < nrecv; i++) {
        rbs[i] = malloc(MAXMSG);
        if (posted)
            MPI_OK(MPI_Irecv(rbs[i], MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rr[i]));
    }
    if (posted)
        MPI_OK(MPI_Waitall(nrecv, rr, rst));
    for (int i = 0; i < nrecv; i++) {
        MPI_Status st;
        const int *rb = rbs[i];
        if (posted)
            st = rst[i];
        else
            MPI_OK(MPI_Recv(rbs[i], MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int got;
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
        int src = rb[0], thr = rb[1], seq = rb[2];
        CHECK(src == st.MPI_SOURCE && src >= 0 && src < nranks, "source %d, status says %d", src, st.MPI_SOURCE);
        CHECK(thr >= 0 && thr < NTHREADS && seq >= 0 && seq < NMSG && st.MPI_TAG == 1000 + thr * NMSG + seq,
              "thread %d seq %d tag %d", thr, seq, st.MPI_TAG);
        verify(rb, (size_t)got, src, thr, seq);
        int prev = atomic_fetch_add(&seen[(src * NTHREADS + thr) * NMSG + seq], 1);
        CHECK(prev == 0, "message (%d,%d,%d) received %d times", src, thr, seq, prev + 1);
    }
    MPI_OK(MPI_Waitall(nsend, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < nsend; k++)
        free(bufs[k]);
    for (int i = 0; i < nrecv; i++)
        free(rbs[i]);
    free(bufs);
    free(rq);
    free(rbs);
    free(rr);
    free(rst);
}

/* ---- phase 4: a blocked receive served by another thread ---- */
static atomic_int about_to_recv;

static void blocked_recv(int t)
{
    /* Threads 0 and 1: receive from / send to self. Threads 2 and 3: the
     * same through the next rank, which sends back whatever arrives on tag 3. */
    int buf = 0;
    for (int i = 0; i < NSELF; i++) {
        if (t == 0) {
            atomic_store(&about_to_recv, i + 1);
            MPI_OK(MPI_Recv(&buf, 1, MPI_INT, mt_rank, 500, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(buf == i, "self message %d carries %d", i, buf);
        } else if (t == 1) {
            while (atomic_load(&about_to_recv) != i + 1)
                sched_yield();   /* until thread 0 is (about to be) blocked in Recv; no MPI call meanwhile */
            MPI_OK(MPI_Send(&i, 1, MPI_INT, mt_rank, 500, MPI_COMM_WORLD));
        } else if (t == 2) {
            int prev = (mt_rank + nranks - 1) % nranks;
            MPI_OK(MPI_Recv(&buf, 1, MPI_INT, prev, 501, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(buf == i * 10 + prev, "relayed message %d carries %d", i, buf);
        } else {
            /* relay: take a "go" from the previous rank's thread 3, answer to the next rank's thread 2 */
            int next = (mt_rank + 1) % nranks, prev = (mt_rank + nranks - 1) % nranks, go = i * 10 + mt_rank;
            MPI_OK(MPI_Send(&go, 1, MPI_INT, next, 502, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(&buf, 1, MPI_INT, prev, 502, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(buf == i * 10 + prev, "go %d carries %d", i, buf);
            /* the previous rank's thread 2 waits in Recv for exactly this: */
            MPI_OK(MPI_Send(&go, 1, MPI_INT, next, 501, MPI_COMM_WORLD));
        }
    }
}

/* ---- phase 5: collectives in one thread, point-to-point in the others ---- */
static MPI_Comm tcomm[NTHREADS];

static void p2p_on_own_comm(int t)
{
    /* pairs (0,1), (2,3), ...; an odd last rank talks to itself */
    int peer = mt_rank ^ 1;
    if (peer >= nranks)
        peer = mt_rank;
    for (int i = 0; i < NP2P; i++) {
        int out = mt_rank * 100000 + t * 1000 + i, in = -1;
        MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, peer, i, &in, 1, MPI_INT, peer, i, tcomm[t], MPI_STATUS_IGNORE));
        CHECK(in == peer * 100000 + t * 1000 + i, "thread %d round %d: got %d", t, i, in);
    }
}

static void collectives_main(void)
{
    for (int i = 0; i < 20; i++) {
        MPI_Comm d;
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        long v = mt_rank + i, sum = 0;
        MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, d));
        CHECK(sum == (long)nranks * (nranks - 1) / 2 + (long)nranks * i, "allreduce %d: %ld", i, sum);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Comm_free(&d));
    }
}

/* ---- the threads ---- */
struct targ {
    int t;
    int is_main_flag;
};

static int phase;

static void *worker(void *p)
{
    struct targ *a = p;
    int t = a->t;
    MPI_OK(MPI_Is_thread_main(&a->is_main_flag));
    pthread_barrier_wait(&tbar);
    if (phase == 2)
        ring_tags(t);
    else if (phase == 3)
        wild(t);
    else if (phase == 4)
        blocked_recv(t);
    else if (phase == 5 && t > 0)
        p2p_on_own_comm(t);
    return NULL;
}

static void run_phase(int ph, const char *name)
{
    phase = ph;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = now();
    pthread_t th[NTHREADS];
    struct targ args[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        args[t] = (struct targ){ t, -1 };
        CHECK(pthread_create(&th[t], NULL, worker, &args[t]) == 0, "pthread_create");
    }
    if (ph == 5)
        collectives_main();   /* thread 0 of this phase is idle: its role is the main thread's */
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK(args[t].is_main_flag == 0, "Is_thread_main is true in thread %d", t);
    }
    double el = now() - t0, max = 0;
    MPI_OK(MPI_Reduce(&el, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("phase %d (%s): %.3f s\n", ph, name, max);
}

int main(int argc, char **argv)
{
    int provided = -1, q = -1, flag = 0;
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_OK(MPI_Query_thread(&q));
    CHECK(q == MPI_THREAD_MULTIPLE, "Query_thread says %d", q);
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "Is_thread_main is false in the main thread");
    CHECK(pthread_barrier_init(&tbar, NULL, NTHREADS) == 0, "pthread_barrier_init");

    seen = calloc((size_t)nranks * NTHREADS * NMSG, sizeof(*seen));
    for (int t = 0; t < NTHREADS; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));

    run_phase(2, "per-thread tags, Sendrecv");
    run_phase(3, "ANY_SOURCE/ANY_TAG, Isend/Recv/Waitall");
    for (int i = 0; i < nranks * NTHREADS * NMSG; i++)
        CHECK(atomic_load(&seen[i]) == 1, "message (%d,%d,%d) received %d times", i / (NTHREADS * NMSG),
              i / NMSG % NTHREADS, i % NMSG, atomic_load(&seen[i]));
    run_phase(4, "receives served by another thread");
    run_phase(5, "collectives in the main thread, p2p in others");

    for (int t = 0; t < NTHREADS; t++)
        MPI_OK(MPI_Comm_free(&tcomm[t]));
    free(seen);
    pthread_barrier_destroy(&tbar);
    if (mt_rank == 0)
        printf("test_mpi_threads: %d ranks x %d threads: all checks passed\n", nranks, NTHREADS);
    MPI_OK(MPI_Finalize());
    return 0;
}
