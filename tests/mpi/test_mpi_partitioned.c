/*
 * Partitioned communication (MPI 4.0, 4.2): rank r pairs with r ^ 1 (the
 * last rank of an odd count with itself). Several Start/Wait cycles of each
 * channel with new data; partitions marked ready in scrambled order with
 * MPI_Pready, MPI_Pready_range and MPI_Pready_list, and from several threads
 * when MPI_THREAD_MULTIPLE is provided; MPI_Parrived polled per partition
 * (each partition's data checked the moment it says so); sides that
 * partition the same bytes differently; a non-contiguous receive datatype;
 * two channels with the same tag between the same ranks, started and made
 * ready in the opposite order (they pair in init order); MPI_PROC_NULL; and
 * argument errors naming the argument.
 * The status of a completed partitioned receive is a receive's (it
 * completes through MPI_Wait and the rest, §4.2.2; §3.2.5): MPI_SOURCE the sender,
 * MPI_TAG the tag, and a count of the whole buffer; from MPI_PROC_NULL the
 * empty status (§3.11). Checked on every cycle, through MPI_Wait, MPI_Waitall,
 * MPI_Test and MPI_Request_get_status, with several tags between the same
 * ranks whose inits come in another order than their starts.
 */
#include <pthread.h>
#include "mpi_test.h"

#define CYCLES 4
#define NTHREADS 3

static int me, p, partner, threads_ok;

static int val(int ch, int cycle, int k)
{
    return ch * 100000 + cycle * 1000 + k;
}

struct marker {
    MPI_Request req;
    int first, nparts;
};

static void *mark(void *arg)
{
    struct marker *m = arg;
    for (int i = m->first; i < m->nparts; i += NTHREADS)
        MPI_OK(MPI_Pready(m->nparts - 1 - i, m->req));
    return NULL;
}

/* Mark every partition of an active send request ready, in a scrambled
 * order that depends on the cycle. */
static void ready_all(MPI_Request req, int nparts, int cycle)
{
    if (cycle % 4 == 0) {
        for (int i = nparts - 1; i >= 0; i--)
            MPI_OK(MPI_Pready(i, req));
    } else if (cycle % 4 == 1) {
        int list[64], n = 0;
        for (int i = 1; i < nparts; i += 2)
            list[n++] = i;
        MPI_OK(MPI_Pready_list(n, list, req));
        for (int i = 0; i < nparts; i += 2)
            MPI_OK(MPI_Pready_range(i, i, req));
    } else if (cycle % 4 == 2 && threads_ok) {
        pthread_t th[NTHREADS];
        struct marker m[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            m[t] = (struct marker){ req, t, nparts };
            CHECK(pthread_create(&th[t], NULL, mark, &m[t]) == 0, "pthread_create");
        }
        for (int t = 0; t < NTHREADS; t++)
            pthread_join(th[t], NULL);
    } else {
        MPI_OK(MPI_Pready_range(nparts / 2, nparts - 1, req));
        if (nparts / 2 > 0)
            MPI_OK(MPI_Pready_range(0, nparts / 2 - 1, req));
    }
}

/* A partitioned receive's status: from `source` with `tag`, `n` ints. */
static void check_status(const MPI_Status *st, int source, int tag, int n, const char *what)
{
    int count = -1;
    MPI_OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(st->MPI_SOURCE == source && st->MPI_TAG == tag && count == n,
          "%s: status source %d tag %d count %d, expected %d %d %d", what, st->MPI_SOURCE, st->MPI_TAG, count,
          source, tag, n);
}

/* Receive side of one cycle: poll MPI_Parrived, check each partition (of
 * rparts x rcount ints, every `stride`-th int of buf) as it arrives. */
static void await_all(MPI_Request req, const int *buf, int rparts, int rcount, int stride, int ch, int cycle)
{
    int seen = 0, *done = calloc((size_t)rparts, sizeof(int));
    while (seen < rparts) {
        for (int j = 0; j < rparts; j++) {
            int flag = 0;
            if (done[j])
                continue;
            MPI_OK(MPI_Parrived(req, j, &flag));
            if (!flag)
                continue;
            for (int i = 0; i < rcount; i++) {
                int k = j * rcount + i;
                CHECK(buf[k * stride] == val(ch, cycle, k), "channel %d cycle %d partition %d [%d] = %d, expected %d",
                      ch, cycle, j, i, buf[k * stride], val(ch, cycle, k));
            }
            done[j] = 1;
            seen++;
        }
    }
    MPI_Status st;
    MPI_OK(MPI_Wait(&req, &st));
    CHECK(req != MPI_REQUEST_NULL, "a partitioned request stays after MPI_Wait");
    check_status(&st, partner, 40 + ch, rparts * rcount, "MPI_Wait of a partitioned receive");
    int flag = 0;
    MPI_OK(MPI_Parrived(req, 0, &flag));
    CHECK(flag, "MPI_Parrived on an inactive request");
    free(done);
}

/* One channel: `sparts` x `scount` ints sent, `rparts` x `rcount` received
 * (every `stride`-th int when stride > 1). Both roles when partner == me. */
static void channel(int ch, int sparts, int scount, int rparts, int rcount, int stride)
{
    int total = sparts * scount;
    int *sbuf = malloc(sizeof(int) * (size_t)total), *rbuf = malloc(sizeof(int) * (size_t)total * stride);
    MPI_Request sreq = MPI_REQUEST_NULL, rreq = MPI_REQUEST_NULL;
    MPI_Datatype rt = MPI_INT, vec = MPI_DATATYPE_NULL;
    if (stride > 1) {
        /* extent rcount * stride ints: partition j starts at int j * rcount * stride */
        MPI_Datatype v0;
        MPI_OK(MPI_Type_vector(rcount, 1, stride, MPI_INT, &v0));
        MPI_OK(MPI_Type_create_resized(v0, 0, (MPI_Aint)(rcount * stride * sizeof(int)), &vec));
        MPI_OK(MPI_Type_free(&v0));
        MPI_OK(MPI_Type_commit(&vec));
        rt = vec;
    }
    int sender = me <= partner, receiver = me >= partner;
    if (sender)
        MPI_OK(MPI_Psend_init(sbuf, sparts, scount, MPI_INT, partner, 40 + ch, MPI_COMM_WORLD, MPI_INFO_NULL, &sreq));
    if (receiver)
        MPI_OK(MPI_Precv_init(rbuf, rparts, stride > 1 ? 1 : rcount, rt, partner, 40 + ch, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &rreq));
    if (vec != MPI_DATATYPE_NULL)
        MPI_OK(MPI_Type_free(&vec));   /* the request keeps it */
    for (int cycle = 0; cycle < CYCLES; cycle++) {
        for (int k = 0; k < total; k++)
            sbuf[k] = val(ch, cycle, k);
        for (int k = 0; k < total * stride; k++)
            rbuf[k] = -1;
        if (receiver)
            MPI_OK(MPI_Start(&rreq));
        if (sender) {
            MPI_OK(MPI_Start(&sreq));
            ready_all(sreq, sparts, cycle);
        }
        if (receiver)
            await_all(rreq, rbuf, rparts, rcount, stride, ch, cycle);
        if (sender)
            MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        for (int k = 0; receiver && stride > 1 && k < total * stride; k++)
            CHECK(k % stride == 0 || rbuf[k] == -1, "a gap of the receive datatype was written: [%d] = %d", k, rbuf[k]);
    }
    if (sender)
        MPI_OK(MPI_Request_free(&sreq));
    if (receiver)
        MPI_OK(MPI_Request_free(&rreq));
    free(sbuf);
    free(rbuf);
}

/* Two channels with the same tag: the first inits pair, whatever the order
 * of the starts and of the partitions. */
static void same_tag(void)
{
    int a[4], b[4], ra[4] = { 0 }, rb[4] = { 0 };
    MPI_Request s1 = MPI_REQUEST_NULL, s2 = MPI_REQUEST_NULL, r1 = MPI_REQUEST_NULL, r2 = MPI_REQUEST_NULL;
    int sender = me <= partner, receiver = me >= partner;
    for (int i = 0; i < 4; i++) {
        a[i] = 1000 + i;
        b[i] = 2000 + i;
    }
    if (sender) {
        MPI_OK(MPI_Psend_init(a, 2, 2, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &s1));
        MPI_OK(MPI_Psend_init(b, 2, 2, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &s2));
    }
    if (receiver) {
        MPI_OK(MPI_Precv_init(ra, 4, 1, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r1));
        MPI_OK(MPI_Precv_init(rb, 1, 4, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r2));
        MPI_Request rr[2] = { r2, r1 };
        MPI_OK(MPI_Startall(2, rr));
    }
    if (sender) {
        MPI_Request ss[2] = { s2, s1 };
        MPI_OK(MPI_Startall(2, ss));
        MPI_OK(MPI_Pready(1, s2));
        MPI_OK(MPI_Pready(0, s2));
        MPI_OK(MPI_Pready_range(0, 1, s1));
        MPI_OK(MPI_Waitall(2, ss, MPI_STATUSES_IGNORE));
    }
    if (receiver) {
        MPI_OK(MPI_Wait(&r1, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&r2, MPI_STATUS_IGNORE));
        for (int i = 0; i < 4; i++)
            CHECK(ra[i] == 1000 + i && rb[i] == 2000 + i, "same tag [%d]: %d %d", i, ra[i], rb[i]);
        MPI_OK(MPI_Request_free(&r1));
        MPI_OK(MPI_Request_free(&r2));
    }
    if (sender) {
        MPI_OK(MPI_Request_free(&s1));
        MPI_OK(MPI_Request_free(&s2));
    }
}

/* Three channels between the same ranks with tags 2, 1, 0, made by the
 * sender in that order and by the receiver in the opposite one (they pair by
 * tag), on a duplicate of MPI_COMM_WORLD: every receive's status names the
 * sender and its own tag. Completed by MPI_Waitall, by MPI_Test and after
 * MPI_Request_get_status, which gives the same status. */
static void tags_and_status(void)
{
    enum { N = 3, PARTS = 4, COUNT = 16 };
    static int bufs[N][PARTS * COUNT], rbufs[N][PARTS * COUNT];
    MPI_Request s[N], r[N];
    MPI_Comm comm;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    int sender = me <= partner, receiver = me >= partner;
    for (int t = N - 1; sender && t >= 0; t--)
        MPI_OK(MPI_Psend_init(bufs[t], PARTS, COUNT, MPI_INT, partner, t, comm, MPI_INFO_NULL, &s[t]));
    for (int t = 0; receiver && t < N; t++)
        MPI_OK(MPI_Precv_init(rbufs[t], PARTS, COUNT, MPI_INT, partner, t, comm, MPI_INFO_NULL, &r[t]));
    for (int cycle = 0; cycle < 3; cycle++) {
        for (int t = 0; t < N; t++)
            for (int k = 0; k < PARTS * COUNT; k++) {
                bufs[t][k] = val(t, cycle, k);
                rbufs[t][k] = -1;
            }
        if (receiver)
            MPI_OK(MPI_Startall(N, r));
        if (sender) {
            MPI_OK(MPI_Startall(N, s));
            for (int t = 0; t < N; t++)
                MPI_OK(MPI_Pready_range(0, PARTS - 1, s[t]));
        }
        if (receiver) {
            MPI_Status st[N];
            char what[80];
            if (cycle == 0) {
                MPI_OK(MPI_Waitall(N, r, st));
            } else {
                for (int t = 0; t < N; t++) {
                    int flag = 0;
                    while (!flag) {
                        if (cycle == 1)
                            MPI_OK(MPI_Test(&r[t], &flag, &st[t]));
                        else
                            MPI_OK(MPI_Request_get_status(r[t], &flag, &st[t]));
                    }
                    if (cycle == 2) {
                        MPI_Status again;
                        MPI_OK(MPI_Wait(&r[t], &again));
                        check_status(&again, partner, t, PARTS * COUNT, "MPI_Wait after MPI_Request_get_status");
                    }
                }
            }
            for (int t = 0; t < N; t++) {
                snprintf(what, sizeof(what), "cycle %d, tag %d (%s)", cycle, t,
                         cycle == 0 ? "MPI_Waitall" : cycle == 1 ? "MPI_Test" : "MPI_Request_get_status");
                check_status(&st[t], partner, t, PARTS * COUNT, what);
                for (int k = 0; k < PARTS * COUNT; k++)
                    CHECK(rbufs[t][k] == val(t, cycle, k), "%s: [%d] = %d, expected %d", what, k, rbufs[t][k],
                          val(t, cycle, k));
            }
        }
        if (sender)
            MPI_OK(MPI_Waitall(N, s, MPI_STATUSES_IGNORE));
    }
    for (int t = 0; t < N; t++) {
        if (sender)
            MPI_OK(MPI_Request_free(&s[t]));
        if (receiver)
            MPI_OK(MPI_Request_free(&r[t]));
    }
    MPI_OK(MPI_Comm_free(&comm));
}

/* The sides disagree on the size: the receive fails with MPI_ERR_TRUNCATE
 * (more sent than it takes), every cycle. */
/* A sender's message of another size than the receive (MPI-4.1 4.2.3:
 * matching "follows the same MPI matching rules as for point-to-point
 * communication", 3.2.4): shorter, the receive succeeds, writes the first
 * bytes only and its status counts what was sent; longer, the receive fails
 * with MPI_ERR_TRUNCATE. The sender completes either way, also when its
 * partitions go by rendezvous (65536 ints and up), in every cycle. */
static void mismatch_case(int sparts, int scount, int rparts, int rcount)
{
    int sent = sparts * scount, room = rparts * rcount;
    int *sb = malloc(sizeof(int) * (size_t)sent), *rb = malloc(sizeof(int) * (size_t)room);
    CHECK(sb && rb, "out of memory");
    for (int k = 0; k < sent; k++)
        sb[k] = k + 1;
    MPI_Request s = MPI_REQUEST_NULL, r = MPI_REQUEST_NULL;
    int sender = me <= partner, receiver = me >= partner;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (sender)
        MPI_OK(MPI_Psend_init(sb, sparts, scount, MPI_INT, partner, 99, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    if (receiver)
        MPI_OK(MPI_Precv_init(rb, rparts, rcount, MPI_INT, partner, 99, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int cycle = 0; cycle < 2; cycle++) {
        for (int k = 0; k < room; k++)
            rb[k] = -1;
        if (receiver)
            MPI_OK(MPI_Start(&r));
        if (sender) {
            MPI_OK(MPI_Start(&s));
            MPI_OK(MPI_Pready_range(0, sparts - 1, s));
            MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
        }
        if (!receiver)
            continue;
        MPI_Status st;
        int rc = MPI_Wait(&r, &st), n = -1;
        if (sent > room) {
            CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "%d ints into %d, cycle %d: class %d", sent, room, cycle,
                  mt_class(rc));
            continue;
        }
        CHECK(rc == MPI_SUCCESS, "%d ints into %d, cycle %d: class %d", sent, room, cycle, mt_class(rc));
        MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(n == sent && st.MPI_SOURCE == partner && st.MPI_TAG == 99, "%d ints into %d, cycle %d: status count "
              "%d source %d tag %d", sent, room, cycle, n, st.MPI_SOURCE, st.MPI_TAG);
        for (int k = 0; k < room; k++)
            CHECK(rb[k] == (k < sent ? k + 1 : -1), "%d ints into %d, cycle %d: int %d is %d", sent, room, cycle, k,
                  rb[k]);
    }
    if (sender)
        MPI_OK(MPI_Request_free(&s));
    if (receiver)
        MPI_OK(MPI_Request_free(&r));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(sb);
    free(rb);
}

static void mismatch(void)
{
    mismatch_case(2, 3, 2, 2);              /* 6 ints into 4 */
    mismatch_case(2, 65536, 2, 32768);      /* truncated by rendezvous partitions */
    mismatch_case(2, 3, 2, 5);              /* 6 ints into 10 */
    mismatch_case(3, 17, 2, 40);            /* the second receive partition gets 11 of its 40 */
    mismatch_case(4, 65536, 2, 262144);     /* 256 K ints into 512 K */
}

static void errors(void)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, rc, x[4] = { 0 }, flag;
    MPI_Request r, s;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Precv_init(x, 2, 2, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_RANK && strstr(msg, "source"), "ANY_SOURCE: class %d '%s'", mt_class(rc), msg);
    rc = MPI_Precv_init(x, 2, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    CHECK(mt_class(rc) == MPI_ERR_TAG, "ANY_TAG: class %d", mt_class(rc));
    rc = MPI_Psend_init(x, 0, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_ARG && strstr(msg, "MPI_Psend_init") && strstr(msg, "partitions"),
          "0 partitions: class %d '%s'", mt_class(rc), msg);
    rc = MPI_Psend_init(x, 2, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "negative count: class %d", mt_class(rc));
    rc = MPI_Psend_init(x, 2, 2, MPI_INT, p, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
    CHECK(mt_class(rc) == MPI_ERR_RANK, "bad dest: class %d", mt_class(rc));
    /* a channel to MPI_PROC_NULL: nothing moves, every partition is there at once */
    MPI_OK(MPI_Psend_init(x, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
    MPI_OK(MPI_Precv_init(x, 2, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    rc = MPI_Pready(0, s);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST && strstr(msg, "not active"), "Pready before Start: class %d '%s'",
          mt_class(rc), msg);
    MPI_OK(MPI_Start(&s));
    MPI_OK(MPI_Start(&r));
    rc = MPI_Pready(2, s);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_ARG && strstr(msg, "partition"), "partition out of range: class %d '%s'",
          mt_class(rc), msg);
    MPI_OK(MPI_Pready(1, s));
    rc = MPI_Pready(1, s);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "partition ready twice: class %d", mt_class(rc));
    rc = MPI_Pready_range(1, 0, s);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "empty range: class %d", mt_class(rc));
    int bad[1] = { -1 };
    rc = MPI_Pready_list(1, bad, s);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "negative partition in a list: class %d", mt_class(rc));
    MPI_OK(MPI_Pready(0, s));
    rc = MPI_Pready(0, r);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Pready on a receive: class %d", mt_class(rc));
    rc = MPI_Parrived(s, 0, &flag);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Parrived on a send: class %d", mt_class(rc));
    rc = MPI_Parrived(r, 0, NULL);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "Parrived flag NULL: class %d", mt_class(rc));
    flag = 0;
    MPI_OK(MPI_Parrived(r, 1, &flag));
    CHECK(flag, "MPI_PROC_NULL partition arrived");
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_Status st;
    MPI_OK(MPI_Wait(&r, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "a partitioned receive from MPI_PROC_NULL");
    MPI_OK(MPI_Request_free(&s));
    MPI_OK(MPI_Request_free(&r));
    rc = MPI_Pready(0, MPI_REQUEST_NULL);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Pready on MPI_REQUEST_NULL: class %d", mt_class(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    threads_ok = provided == MPI_THREAD_MULTIPLE;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    mt_rank = me;
    partner = (me ^ 1) < p ? me ^ 1 : me;
    channel(0, 8, 5, 8, 5, 1);          /* same partitioning */
    channel(1, 4, 6, 3, 8, 1);          /* 4 send partitions, 3 receive ones */
    channel(2, 3, 8, 6, 4, 1);          /* 3 send partitions, 6 receive ones */
    channel(3, 4, 6, 4, 6, 2);          /* receive datatype: every other int */
    channel(4, 2, 40000, 4, 20000, 1);  /* partitions past the eager limit */
    same_tag();
    tags_and_status();
    mismatch();
    errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("partitioned: %d ranks, %d cycles per channel, threads %s: ok\n", p, CYCLES,
               threads_ok ? "yes" : "no");
    MPI_Finalize();
    return 0;
}
