/*
 * Point-to-point by the letter of MPI-4.0 chapter 3, on a ring (each rank
 * sends to the next, receives from the previous; 1 rank: to itself):
 *   - every send mode in its blocking, I* and persistent (_init + Start,
 *     started three times) forms, Recv_init;
 *   - buffered sends (§3.6): n messages of s bytes fit in a buffer of
 *     n (s + MPI_BSEND_OVERHEAD) bytes; one larger than the buffer is
 *     MPI_ERR_BUFFER; Buffer_detach hands back the buffer and size and
 *     returns only once the buffered messages are out (the buffer is
 *     overwritten right after and the receiver still gets the data);
 *   - the non-overtaking rule (§3.5): messages from one sender, eager and
 *     rendezvous sizes mixed and modes mixed, arrive in order through
 *     MPI_ANY_TAG and MPI_ANY_SOURCE, and by tag in order within a tag;
 *   - Sendrecv_replace with a derived (strided) type;
 *   - MPI_PROC_NULL in every send, receive and probe: immediate, status
 *     source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0 (§3.11);
 *   - MPI_ERR_TAG (negative, above MPI_TAG_UB, MPI_ANY_TAG on a send),
 *     MPI_ERR_RANK (out of range, MPI_ANY_SOURCE on a send);
 *   - MPI_Get_count / MPI_Get_elements of a message that fills part of a
 *     derived datatype: MPI_UNDEFINED and the basic elements (§3.2.5, §5.1.11);
 *   - a buffer of count 0 whose datatype is MPI_DATATYPE_NULL, uncommitted
 *     or not a datatype at all, as MPICH takes it (its bindings check a
 *     datatype only with a count > 0): every send and receive form, to a
 *     real peer and to MPI_PROC_NULL, the _c forms, matched probes and
 *     partitioned requests; an empty message, whatever the receiver's type.
 *     With a count > 0 the same datatypes are still MPI_ERR_TYPE.
 */
#include "mpi_test.h"

#define BIG 300000   /* past the eager limit of every channel */

static int me, np, next, prev;

static void check_null_status(const MPI_Status *st, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && n == 0,
          "%s: status source %d tag %d count %d, expected MPI_PROC_NULL, MPI_ANY_TAG, 0", what, st->MPI_SOURCE,
          st->MPI_TAG, n);
}

static void modes(void)
{
    int out[4], in[4];
    MPI_Status st;
    MPI_Request r[2];
    typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
    typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    static const struct { send_fn b; isend_fn i, init; const char *name; } m[] = {
        { MPI_Send, MPI_Isend, MPI_Send_init, "standard" }, { MPI_Ssend, MPI_Issend, MPI_Ssend_init, "synchronous" },
        { MPI_Rsend, MPI_Irsend, MPI_Rsend_init, "ready" },   { MPI_Bsend, MPI_Ibsend, MPI_Bsend_init, "buffered" },
    };
    int bsize = 8 * (int)(sizeof(out) + MPI_BSEND_OVERHEAD);
    void *buf = malloc((size_t)bsize);
    MPI_OK(MPI_Buffer_attach(buf, bsize));
    for (int k = 0; k < 4; k++) {
        for (int form = 0; form < 3; form++) {
            for (int i = 0; i < 4; i++)
                out[i] = 1000 * k + 100 * form + i + me;
            memset(in, 0, sizeof(in));
            /* the receive is posted before anyone sends (MPI_Rsend needs it) */
            MPI_OK(MPI_Irecv(in, 4, MPI_INT, prev, k, MPI_COMM_WORLD, &r[1]));
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            if (form == 0) {
                MPI_OK(m[k].b(out, 4, MPI_INT, next, k, MPI_COMM_WORLD));
            } else if (form == 1) {
                MPI_OK(m[k].i(out, 4, MPI_INT, next, k, MPI_COMM_WORLD, &r[0]));
                MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
            } else {
                MPI_OK(m[k].init(out, 4, MPI_INT, next, k, MPI_COMM_WORLD, &r[0]));
                MPI_OK(MPI_Start(&r[0]));
                MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
                CHECK(r[0] != MPI_REQUEST_NULL, "a persistent request was freed by its completion");
                MPI_OK(MPI_Request_free(&r[0]));
            }
            MPI_OK(MPI_Wait(&r[1], &st));
            int p = (me - 1 + np) % np;
            for (int i = 0; i < 4; i++)
                CHECK(in[i] == 1000 * k + 100 * form + i + p, "%s send, form %d: [%d] = %d", m[k].name, form, i,
                      in[i]);
            CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == k, "%s: status source %d tag %d", m[k].name, st.MPI_SOURCE,
                  st.MPI_TAG);
        }
    }
    /* persistent pairs started three times, the receive persistent too */
    MPI_Request pr[2];
    MPI_OK(MPI_Recv_init(in, 4, MPI_INT, prev, 77, MPI_COMM_WORLD, &pr[1]));
    MPI_OK(MPI_Bsend_init(out, 4, MPI_INT, next, 77, MPI_COMM_WORLD, &pr[0]));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 4; i++)
            out[i] = 50 * round + i + me;
        MPI_OK(MPI_Startall(2, pr));
        MPI_OK(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
        int p = (me - 1 + np) % np;
        for (int i = 0; i < 4; i++)
            CHECK(in[i] == 50 * round + i + p, "Bsend_init/Recv_init round %d: [%d] = %d", round, i, in[i]);
    }
    MPI_OK(MPI_Request_free(&pr[0]));
    MPI_OK(MPI_Request_free(&pr[1]));
    void *back;
    int bsz;
    MPI_OK(MPI_Buffer_detach(&back, &bsz));
    CHECK(back == buf && bsz == bsize, "Buffer_detach gave %p/%d, attached %p/%d", back, bsz, buf, bsize);
    free(buf);
}

static void buffered(void)
{
    /* n messages of s bytes, nobody receiving yet: all fit */
    enum { NMSG = 3, S = 1000 };
    int bsize = NMSG * (S + MPI_BSEND_OVERHEAD);
    char *buf = malloc((size_t)bsize), *msg = malloc(S), *got = malloc(S);
    MPI_OK(MPI_Buffer_attach(buf, bsize));
    for (int k = 0; k < NMSG; k++) {
        memset(msg, 'a' + k, S);
        MPI_OK(MPI_Bsend(msg, S, MPI_CHAR, next, 10 + k, MPI_COMM_WORLD));
    }
    /* larger than the whole buffer */
    char *huge = malloc((size_t)bsize + 1);
    int rc = MPI_Bsend(huge, bsize + 1, MPI_CHAR, next, 99, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_BUFFER, "Bsend larger than the buffer: class %d", mt_class(rc));
    free(huge);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < NMSG; k++) {
        MPI_OK(MPI_Recv(got, S, MPI_CHAR, prev, 10 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < S; i++)
            CHECK(got[i] == 'a' + k, "buffered message %d byte %d", k, i);
    }
    void *back;
    int bsz;
    MPI_OK(MPI_Buffer_detach(&back, &bsz));
    free(buf);

    /* detach waits: a rendezvous-sized buffered message whose receive is
     * posted only after the sender's detach began; the buffer is poisoned
     * as soon as detach returns */
    bsize = BIG + MPI_BSEND_OVERHEAD;
    buf = malloc((size_t)bsize);
    unsigned char *big = malloc(BIG), *bin = malloc(BIG);
    mt_fill(big, BIG, 500 + (uint64_t)me);
    MPI_OK(MPI_Buffer_attach(buf, bsize));
    MPI_OK(MPI_Bsend(big, BIG, MPI_BYTE, next, 20, MPI_COMM_WORLD));
    memset(big, 0, BIG);   /* buffered: the user's buffer is free at once */
    MPI_Request r;
    MPI_OK(MPI_Irecv(bin, BIG, MPI_BYTE, prev, 20, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Buffer_detach(&back, &bsz));
    CHECK(back == buf && bsz == bsize, "Buffer_detach gave another buffer");
    memset(buf, 0xff, (size_t)bsize);
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    long bad = mt_verify(bin, BIG, 500 + (uint64_t)((me - 1 + np) % np));
    CHECK(bad < 0, "a buffered message changed after Buffer_detach returned (byte %ld)", bad);
    free(buf);
    free(big);
    free(bin);
    free(msg);
    free(got);
}

/* §3.5: messages from one sender arrive in order; eager and rendezvous
 * sizes and send modes mixed. */
static void order(void)
{
    enum { M = 12 };
    static const int sizes[] = { 8, BIG, 64, 4096, BIG, 8 };
    unsigned char *sb[M], *rb = malloc(BIG);
    MPI_Request r[M];
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < M; k++) {
            int n = sizes[k % 6];
            sb[k] = malloc((size_t)n);
            mt_fill(sb[k], (size_t)n, (uint64_t)(1000 * me + k));
            memcpy(sb[k], &k, sizeof(k));
            int tag = k % 3;
            if (k % 4 == 3)
                MPI_OK(MPI_Issend(sb[k], n, MPI_BYTE, next, tag, MPI_COMM_WORLD, &r[k]));
            else
                MPI_OK(MPI_Isend(sb[k], n, MPI_BYTE, next, tag, MPI_COMM_WORLD, &r[k]));
        }
        if (pass == 0) {
            /* everything through MPI_ANY_SOURCE / MPI_ANY_TAG: in sending order */
            for (int k = 0; k < M; k++) {
                MPI_Status st;
                MPI_OK(MPI_Recv(rb, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                int seq, n;
                memcpy(&seq, rb, sizeof(seq));
                MPI_Get_count(&st, MPI_BYTE, &n);
                CHECK(seq == k && st.MPI_TAG == k % 3 && n == sizes[k % 6] && st.MPI_SOURCE == prev,
                      "ANY_SOURCE/ANY_TAG receive %d got message %d (tag %d, %d bytes, from %d)", k, seq,
                      st.MPI_TAG, n, st.MPI_SOURCE);
            }
        } else {
            /* tag 2 first, in order, then the rest through MPI_ANY_TAG, in order */
            for (int k = 2; k < M; k += 3) {
                int seq;
                MPI_OK(MPI_Recv(rb, BIG, MPI_BYTE, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                memcpy(&seq, rb, sizeof(seq));
                CHECK(seq == k, "tag 2 receive got message %d, expected %d", seq, k);
            }
            for (int k = 0; k < M; k++) {
                if (k % 3 == 2)
                    continue;
                int seq;
                MPI_OK(MPI_Recv(rb, BIG, MPI_BYTE, prev, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                memcpy(&seq, rb, sizeof(seq));
                CHECK(seq == k, "ANY_TAG receive got message %d, expected %d", seq, k);
            }
        }
        MPI_OK(MPI_Waitall(M, r, MPI_STATUSES_IGNORE));
        for (int k = 0; k < M; k++)
            free(sb[k]);
    }
    free(rb);
}

static void replace(void)
{
    /* every other int of 16, exchanged around the ring in place */
    int v[16];
    MPI_Datatype every2;
    MPI_OK(MPI_Type_vector(8, 1, 2, MPI_INT, &every2));
    MPI_OK(MPI_Type_commit(&every2));
    for (int i = 0; i < 16; i++)
        v[i] = 100 * me + i;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv_replace(v, 1, every2, next, 5, prev, 5, MPI_COMM_WORLD, &st));
    int p = (me - 1 + np) % np, n = -1;
    for (int i = 0; i < 16; i++)
        CHECK(v[i] == (i % 2 ? 100 * me + i : 100 * p + i), "Sendrecv_replace derived: [%d] = %d", i, v[i]);
    MPI_Get_count(&st, every2, &n);
    CHECK(n == 1 && st.MPI_SOURCE == prev && st.MPI_TAG == 5, "Sendrecv_replace status: count %d source %d", n,
          st.MPI_SOURCE);
    /* with MPI_PROC_NULL on both sides nothing changes */
    MPI_OK(MPI_Sendrecv_replace(v, 1, every2, MPI_PROC_NULL, 5, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv_replace PROC_NULL");
    for (int i = 0; i < 16; i++)
        CHECK(v[i] == (i % 2 ? 100 * me + i : 100 * p + i), "Sendrecv_replace to MPI_PROC_NULL changed [%d]", i);
    MPI_OK(MPI_Type_free(&every2));
}

static void proc_null(void)
{
    int x = 42, y = 7, flag = 0;
    MPI_Status st;
    MPI_Request r;
    MPI_Message msg;
    char bbuf[64 + MPI_BSEND_OVERHEAD];
    MPI_OK(MPI_Buffer_attach(bbuf, (int)sizeof(bbuf)));
    MPI_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Ssend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Rsend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Bsend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    isend_fn fns[] = { MPI_Isend, MPI_Issend, MPI_Irsend, MPI_Ibsend, MPI_Send_init, MPI_Ssend_init,
                       MPI_Rsend_init, MPI_Bsend_init };
    for (int k = 0; k < 8; k++) {
        MPI_OK(fns[k](&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
        if (k >= 4)
            MPI_OK(MPI_Start(&r));
        MPI_OK(MPI_Wait(&r, &st));
        if (k >= 4)
            MPI_OK(MPI_Request_free(&r));
    }
    MPI_OK(MPI_Recv(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Recv");
    MPI_OK(MPI_Irecv(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    check_null_status(&st, "Irecv");
    MPI_OK(MPI_Recv_init(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Wait(&r, &st));
    check_null_status(&st, "Recv_init");
    MPI_OK(MPI_Request_free(&r));
    MPI_OK(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Probe");
    MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag, "Iprobe(MPI_PROC_NULL) flag 0");
    check_null_status(&st, "Iprobe");
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL): message is not MPI_MESSAGE_NO_PROC");
    check_null_status(&st, "Mprobe");
    MPI_OK(MPI_Mrecv(&y, 1, MPI_INT, &msg, &st));
    check_null_status(&st, "Mrecv of MPI_MESSAGE_NO_PROC");
    flag = 0;
    MPI_OK(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(MPI_PROC_NULL)");
    MPI_OK(MPI_Imrecv(&y, 1, MPI_INT, &msg, &r));
    MPI_OK(MPI_Wait(&r, &st));
    check_null_status(&st, "Imrecv of MPI_MESSAGE_NO_PROC");
    MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    check_null_status(&st, "Sendrecv");
    CHECK(y == 7, "a receive from MPI_PROC_NULL wrote the buffer");
    void *back;
    int bsz;
    MPI_OK(MPI_Buffer_detach(&back, &bsz));
}

static void errors(void)
{
    int x = 0, *ub, flag;
    MPI_Request r;
    MPI_Status st;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && *ub >= 32767, "MPI_TAG_UB %d (the standard's minimum is 32767)", flag ? *ub : -1);
#define EXPECT(call, cls)                                                                             \
    do {                                                                                              \
        int rc_ = (call);                                                                             \
        CHECK(mt_class(rc_) == (cls), "%s: class %d, expected %s", #call, mt_class(rc_), #cls);       \
    } while (0)
    EXPECT(MPI_Send(&x, 1, MPI_INT, next, -5, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Send(&x, 1, MPI_INT, next, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Isend(&x, 1, MPI_INT, next, -2, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
    EXPECT(MPI_Recv(&x, 1, MPI_INT, prev, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    EXPECT(MPI_Irecv(&x, 1, MPI_INT, prev, -3, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
    EXPECT(MPI_Iprobe(prev, -4, MPI_COMM_WORLD, &flag, &st), MPI_ERR_TAG);
    EXPECT(MPI_Send_init(&x, 1, MPI_INT, next, -1 - 100, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
    if (*ub < 0x7fffffff) {
        EXPECT(MPI_Send(&x, 1, MPI_INT, next, *ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG);
        EXPECT(MPI_Recv(&x, 1, MPI_INT, prev, *ub + 1, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    }
    EXPECT(MPI_Send(&x, 1, MPI_INT, np, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(&x, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Ssend(&x, 1, MPI_INT, np + 3, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Recv(&x, 1, MPI_INT, np, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Probe(np, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Bsend_init(&x, 1, MPI_INT, np, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
    EXPECT(MPI_Sendrecv_replace(&x, 1, MPI_INT, np, 0, prev, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Send(&x, -1, MPI_INT, next, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Send(&x, 1, MPI_DATATYPE_NULL, next, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Send(&x, 1, MPI_INT, next, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Bsend(&x, 1, MPI_INT, next, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);   /* no buffer attached */
#undef EXPECT
}

/* §3.2.5: a message that fills part of the receive datatype. */
static void partial_count(void)
{
    int out[5] = { 1, 2, 3, 4, 5 }, in[6] = { 0 };
    MPI_Datatype two;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &two));
    MPI_OK(MPI_Type_commit(&two));
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(out, 5, MPI_INT, next, 3, in, 3, two, prev, 3, MPI_COMM_WORLD, &st));
    int n = 0, e = 0, ni = 0;
    MPI_OK(MPI_Get_count(&st, two, &n));
    MPI_OK(MPI_Get_elements(&st, two, &e));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &ni));
    CHECK(n == MPI_UNDEFINED && e == 5 && ni == 5, "5 ints into contiguous(2) x 3: Get_count %d (MPI_UNDEFINED "
          "expected), Get_elements %d, Get_count(MPI_INT) %d", n, e, ni);
    for (int i = 0; i < 6; i++)
        CHECK(in[i] == (i < 5 ? i + 1 : 0), "partial receive [%d] = %d", i, in[i]);
    MPI_OK(MPI_Type_free(&two));
}

/* Datatypes a count of 0 does not examine (MPICH): MPI_DATATYPE_NULL, an
 * uncommitted type, a value that is no handle. */
#define NEMPTY 3
static MPI_Datatype empty_types[NEMPTY];
static const char *const empty_names[NEMPTY] = { "MPI_DATATYPE_NULL", "uncommitted", "garbage" };

/* An empty message arrived from prev with tag: 0 bytes, 0 of any type. */
static void check_empty(const MPI_Status *st, int tag, const char *what)
{
    int nb = -1, ni = -1;
    MPI_Get_count(st, MPI_BYTE, &nb);
    MPI_Get_count(st, MPI_INT, &ni);
    CHECK(st->MPI_SOURCE == prev && st->MPI_TAG == tag && nb == 0 && ni == 0,
          "%s: status source %d tag %d, %d bytes, %d ints; expected source %d tag %d, none", what, st->MPI_SOURCE,
          st->MPI_TAG, nb, ni, prev, tag);
}

/* Every send form with (NULL, 0, dt) to next, every receive form with
 * (NULL, 0, dt) from prev: each message arrives empty. */
static void empty_forms(MPI_Datatype dt, const char *name)
{
    MPI_Status st;
    MPI_Request r[2];
    MPI_Message msg;
    int flag = 0, x = 5;
    char what[96];
    typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    static const struct { isend_fn f; int persistent; const char *name; } sends[] = {
        { MPI_Isend, 0, "Isend" }, { MPI_Issend, 0, "Issend" }, { MPI_Ibsend, 0, "Ibsend" },
        { MPI_Send_init, 1, "Send_init" }, { MPI_Ssend_init, 1, "Ssend_init" }, { MPI_Bsend_init, 1, "Bsend_init" },
    };
    for (int k = 0; k < 6; k++) {
        snprintf(what, sizeof(what), "%s/Irecv, %s", sends[k].name, name);
        MPI_OK(MPI_Irecv(NULL, 0, dt, prev, 40 + k, MPI_COMM_WORLD, &r[1]));
        MPI_OK(sends[k].f(NULL, 0, dt, next, 40 + k, MPI_COMM_WORLD, &r[0]));
        if (sends[k].persistent)
            MPI_OK(MPI_Start(&r[0]));
        MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        if (sends[k].persistent)
            MPI_OK(MPI_Request_free(&r[0]));
        MPI_OK(MPI_Wait(&r[1], &st));
        check_empty(&st, 40 + k, what);
    }
    /* blocking sends, received by Recv_init, Recv (any count of MPI_INT), Mprobe + Mrecv, Improbe + Imrecv */
    snprintf(what, sizeof(what), "Send/Recv_init, %s", name);
    MPI_OK(MPI_Recv_init(NULL, 0, dt, prev, 50, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Start(&r[1]));
    MPI_OK(MPI_Send(NULL, 0, dt, next, 50, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r[1], &st));
    MPI_OK(MPI_Request_free(&r[1]));
    check_empty(&st, 50, what);
    snprintf(what, sizeof(what), "Ssend to a receive of 1 MPI_INT, %s", name);
    MPI_OK(MPI_Irecv(&x, 1, MPI_INT, prev, 51, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Ssend(NULL, 0, dt, next, 51, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r[1], &st));
    check_empty(&st, 51, what);
    CHECK(x == 5, "%s: the empty message wrote the buffer (%d)", what, x);
    snprintf(what, sizeof(what), "Bsend/Mprobe+Mrecv, %s", name);
    MPI_OK(MPI_Bsend(NULL, 0, dt, next, 52, MPI_COMM_WORLD));
    MPI_OK(MPI_Mprobe(prev, 52, MPI_COMM_WORLD, &msg, &st));
    MPI_OK(MPI_Mrecv(NULL, 0, dt, &msg, &st));
    check_empty(&st, 52, what);
    snprintf(what, sizeof(what), "Send of 0 MPI_DOUBLE/Improbe+Imrecv, %s", name);
    MPI_OK(MPI_Send(NULL, 0, MPI_DOUBLE, next, 53, MPI_COMM_WORLD));
    while (!flag)
        MPI_OK(MPI_Improbe(prev, 53, MPI_COMM_WORLD, &flag, &msg, &st));
    MPI_OK(MPI_Imrecv(NULL, 0, dt, &msg, &r[1]));
    MPI_OK(MPI_Wait(&r[1], &st));
    check_empty(&st, 53, what);
    /* the exchanges and the large-count forms */
    snprintf(what, sizeof(what), "Sendrecv, %s", name);
    MPI_OK(MPI_Sendrecv(NULL, 0, dt, next, 54, NULL, 0, dt, prev, 54, MPI_COMM_WORLD, &st));
    check_empty(&st, 54, what);
    snprintf(what, sizeof(what), "Sendrecv_replace, %s", name);
    MPI_OK(MPI_Sendrecv_replace(NULL, 0, dt, next, 55, prev, 55, MPI_COMM_WORLD, &st));
    check_empty(&st, 55, what);
    snprintf(what, sizeof(what), "Isendrecv, %s", name);
    MPI_OK(MPI_Isendrecv(NULL, 0, dt, next, 56, NULL, 0, dt, prev, 56, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Wait(&r[0], &st));
    check_empty(&st, 56, what);
    snprintf(what, sizeof(what), "Isend_c/Recv_c, %s", name);
    MPI_OK(MPI_Isend_c(NULL, 0, dt, next, 57, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Recv_c(NULL, 0, dt, prev, 57, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    check_empty(&st, 57, what);
    /* partitioned: one partition of 0 elements each way */
    snprintf(what, sizeof(what), "Psend_init/Precv_init, %s", name);
    MPI_OK(MPI_Precv_init(NULL, 1, 0, dt, prev, 58, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    MPI_OK(MPI_Psend_init(NULL, 1, 0, dt, next, 58, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Startall(2, r));
    MPI_OK(MPI_Pready(0, r[0]));
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Request_free(&r[0]));
    MPI_OK(MPI_Request_free(&r[1]));
    /* to and from MPI_PROC_NULL */
    MPI_OK(MPI_Send(NULL, 0, dt, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(NULL, 0, dt, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    check_null_status(&st, name);
    MPI_OK(MPI_Irecv(NULL, 0, dt, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Wait(&r[1], &st));
    check_null_status(&st, name);
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    MPI_OK(MPI_Mrecv(NULL, 0, dt, &msg, &st));
    check_null_status(&st, name);
}

static void empty_datatypes(void)
{
    char bbuf[6 * MPI_BSEND_OVERHEAD + 64];
    void *back;
    int bsz, x = 0;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &empty_types[1]));   /* never committed */
    empty_types[0] = MPI_DATATYPE_NULL;
    empty_types[2] = (MPI_Datatype)0x5a5a1234;
    MPI_OK(MPI_Buffer_attach(bbuf, (int)sizeof(bbuf)));
    for (int k = 0; k < NEMPTY; k++)
        empty_forms(empty_types[k], empty_names[k]);
    MPI_OK(MPI_Buffer_detach(&back, &bsz));
    /* with data the datatype is checked as before */
    for (int k = 0; k < NEMPTY; k++) {
        MPI_Request r = MPI_REQUEST_NULL;
        MPI_Status st;
        int rc = MPI_Send(&x, 1, empty_types[k], next, 0, MPI_COMM_WORLD);
        CHECK(mt_class(rc) == MPI_ERR_TYPE, "Send of 1 %s: class %d", empty_names[k], mt_class(rc));
        rc = MPI_Irecv(&x, 1, empty_types[k], prev, 0, MPI_COMM_WORLD, &r);
        CHECK(mt_class(rc) == MPI_ERR_TYPE && r == MPI_REQUEST_NULL, "Irecv of 1 %s: class %d", empty_names[k],
              mt_class(rc));
        rc = MPI_Recv(&x, 1, empty_types[k], MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
        CHECK(mt_class(rc) == MPI_ERR_TYPE, "Recv of 1 %s from MPI_PROC_NULL: class %d", empty_names[k],
              mt_class(rc));
        rc = MPI_Send_init(&x, 2, empty_types[k], next, 0, MPI_COMM_WORLD, &r);
        CHECK(mt_class(rc) == MPI_ERR_TYPE && r == MPI_REQUEST_NULL, "Send_init of 2 %s: class %d",
              empty_names[k], mt_class(rc));
    }
    MPI_OK(MPI_Type_free(&empty_types[1]));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = me;
    next = (me + 1) % np;
    prev = (me - 1 + np) % np;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    modes();
    buffered();
    order();
    replace();
    proc_null();
    errors();
    partial_count();
    empty_datatypes();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    if (me == 0)
        printf("conf_p2p: %d ranks: send modes x forms, buffer sizing and detach, ordering, Sendrecv_replace, "
               "MPI_PROC_NULL, tag/rank errors, partial counts, count 0 of any datatype: ok\n", np);
    return 0;
}
