/*
 * Matched probe by the letter of MPI-4.1 3.8.2 and 3.8.3 (Mprobe, Improbe,
 * Mrecv, Imrecv), on pairs of ranks (2k sends to 2k+1; an odd last rank
 * only does the MPI_PROC_NULL part).
 *
 *  - The status of a probe and of the receive of the message it matched
 *    names the sender, the tag and the size; the error field is not set by
 *    these single-completion calls (3.2.5): the values the program put there
 *    (here the error codes MPI_ERR_DIMS and MPI_ERR_TOPOLOGY, also sent as
 *    the message's data) are still there afterwards.
 *  - "the message is no longer matchable by any other receive or probe":
 *    after Mprobe, Iprobe and Recv on the same envelope see the next
 *    message, not the matched one; Mrecv then gets the matched one, and the
 *    message handle becomes MPI_MESSAGE_NULL.
 *  - Eager, rendezvous and non-contiguous messages alike.
 *  - "If MPI_MPROBE or MPI_IMPROBE is called with source = MPI_PROC_NULL,
 *    message is set to MPI_MESSAGE_NO_PROC" with the MPI_PROC_NULL status
 *    (source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0; Improbe: flag true);
 *    "calling MPI_MRECV or MPI_IMRECV with MPI_MESSAGE_NO_PROC as the
 *    message argument ... returns immediately" with that status, the buffer
 *    untouched and the message set to MPI_MESSAGE_NULL.
 */
#include "mpi_test.h"

#define BIG 200000   /* ints: a rendezvous message */

static int peer, sender;

static void check_status(const MPI_Status *st, int tag, int bytes, int err_kept, const char *what)
{
    int count = -1;
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK(st->MPI_SOURCE == peer && st->MPI_TAG == tag && count == bytes,
          "%s: status (source %d, tag %d, %d bytes), expected (%d, %d, %d)", what, st->MPI_SOURCE, st->MPI_TAG,
          count, peer, tag, bytes);
    CHECK(st->MPI_ERROR == err_kept, "%s: status.MPI_ERROR overwritten: %d, the program had %d", what,
          st->MPI_ERROR, err_kept);
}

static void send_all(void)
{
    int codes[2] = { MPI_ERR_TOPOLOGY, MPI_ERR_DIMS };
    int *big = malloc(BIG * sizeof(int));
    for (int i = 0; i < BIG; i++)
        big[i] = i ^ 0x5a5a;
    for (int round = 0; round < 4; round++) {
        codes[0] = MPI_ERR_TOPOLOGY + round;
        MPI_OK(MPI_Send(codes, 2, MPI_INT, peer, 5, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(codes, 1, MPI_INT, peer, 5, MPI_COMM_WORLD));   /* the next one on the envelope */
        MPI_OK(MPI_Send(big, BIG, MPI_INT, peer, 6, MPI_COMM_WORLD));
    }
    free(big);
}

/* Receive round `round`'s three messages with Mprobe+Mrecv (round 0, 2) or
 * Improbe+Imrecv (1, 3); rounds 2 and 3 into a non-contiguous type. */
static void receive_round(int round)
{
    int blocking = round % 2 == 0, vector = round >= 2;
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status s1, s2;
    s1.MPI_ERROR = MPI_ERR_DIMS;
    s2.MPI_ERROR = MPI_ERR_TOPOLOGY;
    int flag = 0;
    if (blocking) {
        MPI_OK(MPI_Mprobe(peer, 5, MPI_COMM_WORLD, &m, &s1));
    } else {
        while (!flag)
            MPI_OK(MPI_Improbe(peer, 5, MPI_COMM_WORLD, &flag, &m, &s1));
    }
    CHECK(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC, "round %d: no message handle", round);
    check_status(&s1, 5, 8, MPI_ERR_DIMS, blocking ? "Mprobe" : "Improbe");

    /* The matched message is invisible: the probe and the receive below see the next one (4 bytes). */
    MPI_Status s3;
    s3.MPI_ERROR = MPI_ERR_DIMS;
    MPI_OK(MPI_Probe(peer, 5, MPI_COMM_WORLD, &s3));
    check_status(&s3, 5, 4, MPI_ERR_DIMS, "Probe after Mprobe");
    int next = 0;
    MPI_OK(MPI_Recv(&next, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &s3));
    CHECK(next == MPI_ERR_TOPOLOGY + round, "Recv after Mprobe got %d", next);

    int got[4] = { -1, -1, -1, -1 };
    MPI_Datatype vec = MPI_INT;
    int n = 2;
    if (vector) {   /* two ints at stride 2: got[0], got[2] */
        MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
        MPI_OK(MPI_Type_commit(&vec));
        n = 1;
    }
    if (blocking) {
        MPI_OK(MPI_Mrecv(got, n, vec, &m, &s2));
    } else {
        MPI_Request r;
        MPI_OK(MPI_Imrecv(got, n, vec, &m, &r));
        MPI_OK(MPI_Wait(&r, &s2));
    }
    CHECK(m == MPI_MESSAGE_NULL, "the message handle is not MPI_MESSAGE_NULL after the receive");
    check_status(&s2, 5, 8, MPI_ERR_TOPOLOGY, blocking ? "Mrecv" : "Imrecv");
    int second = vector ? got[2] : got[1];
    CHECK(got[0] == MPI_ERR_TOPOLOGY + round && second == MPI_ERR_DIMS, "round %d: data %d %d", round, got[0],
          second);
    if (vector) {
        CHECK(got[1] == -1 && got[3] == -1, "a non-contiguous Mrecv wrote between its blocks");
        MPI_OK(MPI_Type_free(&vec));
    }

    /* The rendezvous message. */
    int *big = malloc(BIG * sizeof(int));
    s1.MPI_ERROR = MPI_ERR_DIMS;
    s2.MPI_ERROR = MPI_ERR_TOPOLOGY;
    MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &s1));
    check_status(&s1, 6, BIG * (int)sizeof(int), MPI_ERR_DIMS, "Mprobe(any, any) of a rendezvous message");
    if (blocking) {
        MPI_OK(MPI_Mrecv(big, BIG, MPI_INT, &m, &s2));
    } else {
        MPI_Request r;
        MPI_OK(MPI_Imrecv(big, BIG, MPI_INT, &m, &r));
        MPI_OK(MPI_Wait(&r, &s2));
    }
    check_status(&s2, 6, BIG * (int)sizeof(int), MPI_ERR_TOPOLOGY, "Mrecv of a rendezvous message");
    for (int i = 0; i < BIG; i++)
        CHECK(big[i] == (i ^ 0x5a5a), "rendezvous element %d", i);
    free(big);
}

static void proc_null(void)
{
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status st;
    int count = -1, flag = 0, buf = 99;
    st.MPI_ERROR = MPI_ERR_DIMS;
    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &m, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL) gave message 0x%x", (unsigned)m);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0 &&
              st.MPI_ERROR == MPI_ERR_DIMS,
          "Mprobe(MPI_PROC_NULL) status (%d, %d, %d, error %d)", st.MPI_SOURCE, st.MPI_TAG, count, st.MPI_ERROR);
    st.MPI_ERROR = MPI_ERR_TOPOLOGY;
    MPI_OK(MPI_Mrecv(&buf, 1, MPI_INT, &m, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(m == MPI_MESSAGE_NULL && buf == 99, "Mrecv(MPI_MESSAGE_NO_PROC): message 0x%x buffer %d", (unsigned)m,
          buf);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0 &&
              st.MPI_ERROR == MPI_ERR_TOPOLOGY,
          "Mrecv(MPI_MESSAGE_NO_PROC) status (%d, %d, %d, error %d)", st.MPI_SOURCE, st.MPI_TAG, count,
          st.MPI_ERROR);

    st.MPI_ERROR = MPI_ERR_DIMS;
    MPI_OK(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag == 1 && m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG &&
              st.MPI_ERROR == MPI_ERR_DIMS,
          "Improbe(MPI_PROC_NULL): flag %d message 0x%x source %d error %d", flag, (unsigned)m, st.MPI_SOURCE,
          st.MPI_ERROR);
    MPI_Request r;
    MPI_OK(MPI_Imrecv(&buf, 1, MPI_INT, &m, &r));
    CHECK(m == MPI_MESSAGE_NULL, "Imrecv(MPI_MESSAGE_NO_PROC) left message 0x%x", (unsigned)m);
    flag = 0;
    st.MPI_ERROR = MPI_ERR_TOPOLOGY;
    MPI_OK(MPI_Test(&r, &flag, &st));   /* "returns immediately": complete at the first test */
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(flag == 1 && r == MPI_REQUEST_NULL, "Imrecv(MPI_MESSAGE_NO_PROC) not complete at once");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0 &&
              st.MPI_ERROR == MPI_ERR_TOPOLOGY && buf == 99,
          "Imrecv(MPI_MESSAGE_NO_PROC) status (%d, %d, %d, error %d)", st.MPI_SOURCE, st.MPI_TAG, count,
          st.MPI_ERROR);
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    proc_null();
    sender = mt_rank % 2 == 0;
    peer = sender ? mt_rank + 1 : mt_rank - 1;
    if (peer < size) {   /* an odd last rank has no partner: MPI_PROC_NULL only */
        if (sender)
            send_all();
        else
            for (int round = 0; round < 4; round++)
                receive_round(round);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("conf_mprobe: %d ranks: statuses keep MPI_ERROR, matched messages invisible, MPI_PROC_NULL ok\n",
               size);
    MPI_OK(MPI_Finalize());
    return 0;
}
