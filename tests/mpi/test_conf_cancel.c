/*
 * MPI_Cancel by the letter of MPI-4.1 3.8.4 ("Cancel"), on pairs of ranks
 * (rank 2k sends, 2k+1 receives; an odd last rank only joins the barriers).
 *
 *  - "If a communication is marked for cancellation, then a MPI_WAIT call for
 *    that communication is guaranteed to return ... either the cancellation
 *    succeeds, or the communication succeeds, but not both": a send the
 *    receiver has not matched (it waits on another tag meanwhile) is
 *    cancelled, for Isend, Ibsend, Issend and a started Send_init, at the
 *    sizes 1 B .. 1 MB (eager; eager written from the user's buffer where
 *    the channel does zero-copy; rendezvous);
 *    Test_cancelled says true, and the message is never delivered: a second
 *    message on the same tag is what the receiver gets (exactly once). A
 *    cancelled buffered send frees its space in the attached buffer, and a
 *    buffered send completes locally.
 *  - A send the receiver has matched (and completed) cannot be cancelled:
 *    Wait returns, Test_cancelled says false.
 *  - "MPI_CANCEL can be used to cancel a communication that uses a persistent
 *    request ... the request becomes inactive and can be activated for a new
 *    communication": a cancelled Send_init/Recv_init is started again and
 *    that second communication is delivered.
 *  - A receive that has not matched is cancelled (Wait, Test and Waitall
 *    complete it); a later message with its tag is received by the next
 *    receive; "the cancelled receive ... does not change the receive buffer".
 *  - A receive that has matched is not cancelled: its data is there (also
 *    one matched while its rank waited in a barrier, at every size).
 *  - Wait or Test of a cancelled request returns MPI_SUCCESS (the status's
 *    error field is not an error), and Request_free may follow Cancel.
 *  - Sends to oneself are cancelled the same way.
 */
#include "mpi_test.h"

static const int sizes[] = { 1, 100, 10000, 40000, 1000000 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
enum { M_ISEND, M_IBSEND, M_ISSEND, M_PSEND, M_NMODES };
static const char *const mode_name[] = { "Isend", "Ibsend", "Issend", "Send_init+Start" };

#define TAG_CTL 1000

static int peer, sender, active;

/* The sender: start the send, cancel it, complete it; its outcome. A
 * persistent request is left inactive in *preq. */
static int send_and_cancel(int mode, unsigned char *buf, int n, int tag, MPI_Request *preq)
{
    MPI_Request req = MPI_REQUEST_NULL;
    switch (mode) {
    case M_ISEND:
        MPI_OK(MPI_Isend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
        break;
    case M_IBSEND:
        MPI_OK(MPI_Ibsend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
        break;
    case M_ISSEND:
        MPI_OK(MPI_Issend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
        break;
    default:
        MPI_OK(MPI_Send_init(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Start(&req));
        break;
    }
    MPI_OK(MPI_Cancel(&req));
    MPI_Status st;
    st.MPI_ERROR = -5;
    MPI_OK(MPI_Wait(&req, &st));
    int flag = -1;
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(st.MPI_ERROR == -5, "%s: MPI_Wait wrote status.MPI_ERROR (%d)", mode_name[mode], st.MPI_ERROR);
    if (mode == M_PSEND)
        CHECK(req != MPI_REQUEST_NULL, "a persistent request stays allocated after Wait");
    else
        CHECK(req == MPI_REQUEST_NULL, "Wait did not free the request");
    *preq = req;
    return flag;
}

static void sender_side(void)
{
    int bsize = sizes[NSIZES - 1] + MPI_BSEND_OVERHEAD;
    void *battach = malloc((size_t)bsize);
    MPI_OK(MPI_Buffer_attach(battach, bsize));
    unsigned char *buf = malloc((size_t)sizes[NSIZES - 1]);
    for (int mode = 0; mode < M_NMODES; mode++) {
        for (int s = 0; s < NSIZES; s++) {
            int n = sizes[s], tag = mode * 16 + s;
            mt_fill(buf, (size_t)n, (uint64_t)(tag * 2 + 1));   /* the one to cancel */
            MPI_Request preq;
            int cancelled = send_and_cancel(mode, buf, n, tag, &preq);
            CHECK(cancelled == 1, "%s of %d bytes the receiver has not matched was not cancelled", mode_name[mode],
                  n);
            /* The receiver waits on TAG_CTL until now: tell it, then send
             * the message it must get instead. A cancelled persistent
             * request is inactive: started again it is a new
             * communication, which goes through, first. */
            if (mode == M_IBSEND) {
                /* "The successful cancellation of a buffered send frees the
                 * buffer space occupied by the pending message": the buffer
                 * holds one message of the largest size, so this one fits
                 * only if the cancelled one's space is free again; and a
                 * buffered send is local: Wait returns while the receiver
                 * is still waiting on TAG_CTL. */
                MPI_Request b;
                mt_fill(buf, (size_t)n, (uint64_t)(tag * 2 + 2));
                MPI_OK(MPI_Ibsend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &b));
                MPI_OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
                MPI_OK(MPI_Send(&cancelled, 1, MPI_INT, peer, TAG_CTL, MPI_COMM_WORLD));
                /* The receiver has it: the buffer is empty for the next round. */
                MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                continue;
            }
            MPI_OK(MPI_Send(&cancelled, 1, MPI_INT, peer, TAG_CTL, MPI_COMM_WORLD));
            unsigned char *second = buf;
            if (mode == M_PSEND) {
                MPI_OK(MPI_Start(&preq));
                second = malloc((size_t)n);
            }
            mt_fill(second, (size_t)n, (uint64_t)(tag * 2 + 2));
            MPI_OK(MPI_Send(second, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
            if (mode == M_PSEND) {
                MPI_OK(MPI_Wait(&preq, MPI_STATUS_IGNORE));
                MPI_OK(MPI_Request_free(&preq));
                free(second);
            }
        }
    }
    int size;
    void *back;
    MPI_OK(MPI_Buffer_detach(&back, &size));
    CHECK(back == battach && size == bsize, "Buffer_detach gave back another buffer");
    free(battach);
    free(buf);
}

static void receiver_side(void)
{
    unsigned char *buf = malloc((size_t)sizes[NSIZES - 1]);
    for (int mode = 0; mode < M_NMODES; mode++) {
        for (int s = 0; s < NSIZES; s++) {
            int n = sizes[s], tag = mode * 16 + s, cancelled = -1;
            MPI_OK(MPI_Recv(&cancelled, 1, MPI_INT, peer, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(cancelled == 1, "the sender says its %s was not cancelled", mode_name[mode]);
            int reps = mode == M_PSEND ? 2 : 1;   /* the restarted persistent send, then the second message */
            for (int k = 0; k < reps; k++) {
                MPI_Status st;
                MPI_OK(MPI_Recv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
                int count;
                MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
                CHECK(count == n, "%s: got %d bytes, sent %d", mode_name[mode], count, n);
                /* The restarted persistent send carries the cancelled one's
                 * content: that is a new communication, delivered. */
                uint64_t want = (uint64_t)(tag * 2 + (mode == M_PSEND && k == 0 ? 1 : 2));
                CHECK(mt_verify(buf, (size_t)n, want) < 0, "%s of %d bytes: a cancelled message was delivered",
                      mode_name[mode], n);
            }
            int flag = 1;
            MPI_OK(MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "%s of %d bytes: a message is left on the tag after the cancel", mode_name[mode], n);
            if (mode == M_IBSEND)
                MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL + 1, MPI_COMM_WORLD));
        }
    }
    free(buf);
}

/* Sends the receiver has matched: Wait returns, not cancelled. */
static void matched_sends(void)
{
    unsigned char *buf = malloc((size_t)sizes[NSIZES - 1]);
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], tag = 200 + s;
        if (sender) {
            MPI_Request req;
            mt_fill(buf, (size_t)n, (uint64_t)tag);
            MPI_OK(MPI_Isend(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
            /* The receiver has the message once it answers. */
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Cancel(&req));
            MPI_Status st;
            MPI_OK(MPI_Wait(&req, &st));
            int flag = -1;
            MPI_OK(MPI_Test_cancelled(&st, &flag));
            CHECK(flag == 0, "a send of %d bytes cancelled after it was received", n);
        } else {
            MPI_OK(MPI_Recv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(mt_verify(buf, (size_t)n, (uint64_t)tag) < 0, "matched send: wrong data");
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
        }
    }
    free(buf);
}

/* Receives: unmatched ones are cancelled, matched ones are not. */
static void receives(void)
{
    int tag = 300;
    if (!sender) {
        int guard = 0x5a5a5a5a, v = guard;
        MPI_Request r[3];
        MPI_Status st[3];
        /* Irecv, Cancel, then each completion call in turn. */
        for (int how = 0; how < 3; how++) {
            v = guard;
            MPI_OK(MPI_Irecv(&v, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &r[how]));
            MPI_OK(MPI_Cancel(&r[how]));
            st[how].MPI_ERROR = -7;
            if (how == 0) {
                MPI_OK(MPI_Wait(&r[0], &st[0]));
            } else if (how == 1) {
                int flag = 0;
                for (long spins = 0; !flag; spins++) {
                    MPI_OK(MPI_Test(&r[1], &flag, &st[1]));
                    CHECK(spins < 100000000L, "Test never completes a cancelled receive");
                }
            } else {
                MPI_OK(MPI_Waitall(1, &r[2], &st[2]));
            }
            int flag = 0;
            MPI_OK(MPI_Test_cancelled(&st[how], &flag));
            CHECK(flag == 1, "an unmatched receive was not cancelled (completion %d)", how);
            CHECK(v == guard, "a cancelled receive changed its buffer");
            CHECK(r[how] == MPI_REQUEST_NULL, "completion %d did not free the cancelled request", how);
            if (how < 2)
                CHECK(st[how].MPI_ERROR == -7, "single completion wrote MPI_ERROR");
        }
        /* Wildcards and a non-contiguous type, completed by Waitany and
         * Testsome: cancelled, the buffer untouched. */
        MPI_Datatype vec;
        MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
        MPI_OK(MPI_Type_commit(&vec));
        int wide[3] = { guard, guard, guard };
        MPI_Request wr[2];
        MPI_OK(MPI_Irecv(wide, 1, vec, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &wr[0]));
        MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &wr[1]));
        MPI_OK(MPI_Type_free(&vec));   /* the pending receive keeps what it needs */
        MPI_OK(MPI_Cancel(&wr[0]));
        MPI_OK(MPI_Cancel(&wr[1]));
        int index = -1, outcount = 0, idx[2], flag2 = 0;
        MPI_OK(MPI_Waitany(2, wr, &index, &st[0]));
        MPI_OK(MPI_Test_cancelled(&st[0], &flag2));
        CHECK(index == 0 && flag2 == 1, "Waitany of cancelled wildcard receives: index %d cancelled %d", index,
              flag2);
        for (long spins = 0; outcount != 1; spins++) {
            MPI_OK(MPI_Testsome(2, wr, &outcount, idx, st));
            CHECK(spins < 100000000L, "Testsome never completes a cancelled receive");
        }
        MPI_OK(MPI_Test_cancelled(&st[0], &flag2));
        CHECK(idx[0] == 1 && flag2 == 1, "Testsome of a cancelled receive");
        CHECK(wide[0] == guard && wide[1] == guard && wide[2] == guard && v == guard,
              "cancelled receives changed their buffers");
        /* A persistent receive: cancelled, then started again and matched. */
        MPI_Request pr;
        MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &pr));
        MPI_OK(MPI_Start(&pr));
        MPI_OK(MPI_Cancel(&pr));
        MPI_OK(MPI_Wait(&pr, &st[0]));
        int flag = 0;
        MPI_OK(MPI_Test_cancelled(&st[0], &flag));
        CHECK(flag == 1 && pr != MPI_REQUEST_NULL, "persistent receive: cancelled %d", flag);
        /* Cancel then Request_free is allowed. */
        MPI_Request fr;
        MPI_OK(MPI_Irecv(&v, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &fr));
        MPI_OK(MPI_Cancel(&fr));
        MPI_OK(MPI_Request_free(&fr));
        CHECK(fr == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
        /* Only now the message: the cancelled receives must not take it. */
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
        MPI_OK(MPI_Start(&pr));
        MPI_OK(MPI_Wait(&pr, &st[0]));
        CHECK(v == 4242, "the restarted persistent receive got %d", v);
        MPI_OK(MPI_Request_free(&pr));
        /* A matched receive is not cancelled. */
        MPI_Request mr;
        MPI_OK(MPI_Irecv(&v, 1, MPI_INT, peer, tag + 1, MPI_COMM_WORLD, &mr));
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* The sender's message has left before its answer: let it match. */
        int done = 0;
        while (!done)
            MPI_OK(MPI_Request_get_status(mr, &done, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Cancel(&mr));
        MPI_OK(MPI_Wait(&mr, &st[0]));
        MPI_OK(MPI_Test_cancelled(&st[0], &flag));
        CHECK(flag == 0 && v == 4343, "a matched receive: cancelled %d, value %d", flag, v);
    } else {
        int v = 4242;
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, tag, MPI_COMM_WORLD));
        v = 4343;
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, tag + 1, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, MPI_COMM_WORLD));
    }
}

/* A receive whose message was sent while the receiver waited in a
 * barrier, then cancelled. The barrier does not say whether the message has
 * matched yet (it may still be on its way), so either outcome is allowed,
 * but exactly one: not cancelled -> the data is there and no message is
 * left; cancelled -> the buffer is untouched and the message is still there
 * for the next receive (eager and rendezvous sizes). */
static void matched_receives(MPI_Comm pair)
{
    unsigned char *buf = malloc((size_t)sizes[NSIZES - 1]);
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s], tag = 400 + s;
        if (sender) {
            mt_fill(buf, (size_t)n, (uint64_t)tag);
            MPI_OK(MPI_Send(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
            MPI_OK(MPI_Barrier(pair));
        } else {
            MPI_Request req;
            MPI_Status st;
            memset(buf, 0, (size_t)n);
            MPI_OK(MPI_Irecv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
            MPI_OK(MPI_Barrier(pair));
            MPI_OK(MPI_Cancel(&req));
            MPI_OK(MPI_Wait(&req, &st));
            int flag = -1, count = -1;
            MPI_OK(MPI_Test_cancelled(&st, &flag));
            if (flag) {
                for (int i = 0; i < n; i++)
                    CHECK(buf[i] == 0, "a cancelled receive of %d bytes wrote its buffer", n);
                MPI_OK(MPI_Recv(buf, n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
            }
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK(count == n, "receive of %d bytes (cancel %s): count %d", n, flag ? "succeeded" : "failed", count);
            CHECK(mt_verify(buf, (size_t)n, (uint64_t)tag) < 0, "receive of %d bytes: wrong data", n);
            MPI_OK(MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "a message of %d bytes is left after it was received", n);
        }
    }
    free(buf);
}

/* Sends to myself (the device's loopback), which no receive has matched. */
static void self_sends(void)
{
    unsigned char *buf = malloc((size_t)sizes[NSIZES - 1]);
    for (int mode = 0; mode < M_NMODES; mode++) {
        if (mode == M_IBSEND)
            continue;   /* no buffer attached here */
        for (int s = 0; s < NSIZES; s++) {
            int n = sizes[s], tag = 500 + mode * 16 + s, saved = peer;
            MPI_Request preq;
            peer = mt_rank;
            int flag = send_and_cancel(mode, buf, n, tag, &preq);
            peer = saved;
            CHECK(flag == 1, "%s of %d bytes to myself was not cancelled", mode_name[mode], n);
            if (mode == M_PSEND)
                MPI_OK(MPI_Request_free(&preq));
            MPI_OK(MPI_Iprobe(mt_rank, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "a cancelled %s of %d bytes to myself is still there", mode_name[mode], n);
        }
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 2, "run on 2 ranks or more");
    sender = mt_rank % 2 == 0;
    peer = sender ? mt_rank + 1 : mt_rank - 1;
    active = peer < size;
    if (active) {
        if (sender)
            sender_side();
        else
            receiver_side();
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        matched_sends();
        receives();
        MPI_Comm pair;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank / 2, mt_rank, &pair));
        matched_receives(pair);
        MPI_OK(MPI_Comm_free(&pair));
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Comm alone;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank / 2, mt_rank, &alone));
        MPI_OK(MPI_Comm_free(&alone));
    }
    self_sends();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("conf_cancel: %d ranks: sends cancelled (4 modes x %d sizes), matched ones not, receives ok\n", size,
               NSIZES);
    MPI_OK(MPI_Finalize());
    return 0;
}
