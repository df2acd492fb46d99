/*
 * A blocking MPI_Mprobe that has to wait (np >= 2): every message it
 * matches while it waits is received, once.
 *
 * Each round, every sender sends one int (its world rank and the round) with
 * tag TAG to the receiver, which takes them with MPI_ANY_SOURCE, in turn by
 * Mprobe + Mrecv, Probe + Recv and Mprobe + Imrecv; the receiver and one
 * sender then exchange a tag OTHER message (so an unexpected message that
 * the probe must skip is often queued), and a barrier ends the round. Run
 * with the device's spin and yield phases at 0, so the probe's wait reaches
 * the blocking phase, whose condition tests (before and after arming the
 * channels) are where a message arriving during the wait is found: the
 * device must end the wait there and not test the condition again (that
 * took a second message, or none, and lost the first: the probe then waited
 * forever, which the test's TIMEOUT reports).
 *
 * argv[1] "inter": the same between the even (receiver: world rank 0) and
 * the odd world ranks (senders) of an intercommunicator, whose sources are
 * remote ranks. argv[2]: rounds (default 300).
 *
 * Checks, from MPI-4.1 3.8.2-3.8.3 and 3.5 (non-overtaking): every sender's
 * message of a round is received exactly once in that round, with its
 * value, source, tag and count.
 */
#include "mpi_test.h"

#define TAG 7
#define OTHER 8

/* The world rank of sender s (a source rank in comm). */
static int world_of(int inter, int s)
{
    return inter ? 2 * s + 1 : s;
}

static void check_msg(int inter, int round, int got, const MPI_Status *st, int *seen, int nsrc)
{
    int count = -1;
    MPI_OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(st->MPI_SOURCE >= 0 && st->MPI_SOURCE < nsrc, "round %d: source %d", round, st->MPI_SOURCE);
    CHECK(inter || st->MPI_SOURCE != 0, "round %d: a message from myself", round);
    CHECK(st->MPI_TAG == TAG && count == 1, "round %d: tag %d count %d", round, st->MPI_TAG, count);
    CHECK(!seen[st->MPI_SOURCE], "round %d: a second message from source %d", round, st->MPI_SOURCE);
    seen[st->MPI_SOURCE] = 1;
    int want = world_of(inter, st->MPI_SOURCE) * 100000 + round;
    CHECK(got == want, "round %d: source %d sent %d, expected %d", round, st->MPI_SOURCE, got, want);
}

/* One message, taken the k-th way. */
static void receive_one(MPI_Comm comm, int inter, int round, int k, int *seen, int nsrc)
{
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    int got = -1;
    if (k % 3 == 0) {
        MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, TAG, comm, &m, &st));
        MPI_OK(MPI_Mrecv(&got, 1, MPI_INT, &m, &st));
        CHECK(m == MPI_MESSAGE_NULL, "round %d: Mrecv left the handle set", round);
    } else if (k % 3 == 1) {
        MPI_OK(MPI_Probe(MPI_ANY_SOURCE, TAG, comm, &st));
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, TAG, comm, &st));
    } else {
        MPI_Request r;
        MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, TAG, comm, &m, &st));
        int probed = st.MPI_SOURCE;
        MPI_OK(MPI_Imrecv(&got, 1, MPI_INT, &m, &r));
        MPI_OK(MPI_Wait(&r, &st));
        CHECK(st.MPI_SOURCE == probed, "round %d: Mprobe matched source %d, Imrecv received from %d", round,
              probed, st.MPI_SOURCE);
    }
    check_msg(inter, round, got, &st, seen, nsrc);
}

int main(int argc, char **argv)
{
    int wrank, wsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    mt_rank = wrank;
    int inter = argc > 1 && strcmp(argv[1], "inter") == 0;
    int rounds = argc > 2 ? atoi(argv[2]) : 300;
    CHECK(wsize >= 2 && rounds > 0, "needs 2 ranks or more and rounds > 0");
    MPI_Comm comm = MPI_COMM_WORLD;
    int receiver = wrank == 0;
    int sender = inter ? wrank % 2 == 1 : wrank != 0;
    int nsrc = inter ? wsize / 2 : wsize;                 /* source ranks in comm */
    int nsend = inter ? wsize / 2 : wsize - 1;            /* messages per round */
    int partner = inter ? 0 : 1;                          /* the sender of the tag OTHER exchange */
    if (inter) {
        MPI_Comm local;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &local));
        MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - wrank % 2, 77, &comm));
        MPI_OK(MPI_Comm_free(&local));
    }
    int myrank;
    MPI_OK(MPI_Comm_rank(comm, &myrank));
    int is_partner = sender && myrank == partner;
    int *seen = calloc((size_t)nsrc, sizeof(int));
    CHECK(seen != NULL, "out of memory");
    long received = 0;
    for (int round = 0; round < rounds; round++) {
        if (sender) {
            int v = wrank * 100000 + round;
            MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, TAG, comm));
        } else if (receiver) {
            memset(seen, 0, (size_t)nsrc * sizeof(int));
            for (int k = 0; k < nsend; k++)
                receive_one(comm, inter, round, round + k, seen, nsrc);
            received += nsend;
        }
        if (receiver || is_partner) {
            int o = wrank, i = -1;
            int peer = receiver ? partner : 0;
            MPI_OK(MPI_Sendrecv(&o, 1, MPI_INT, peer, OTHER, &i, 1, MPI_INT, peer, OTHER, comm,
                                MPI_STATUS_IGNORE));
            CHECK(i == (receiver ? world_of(inter, partner) : 0), "round %d: the tag %d exchange gave %d",
                  round, OTHER, i);
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(seen);
    if (inter)
        MPI_OK(MPI_Comm_free(&comm));
    if (wrank == 0)
        printf("mprobe_wait %s: %d rounds, %ld messages from %d senders received once each\n",
               inter ? "inter" : "intra", rounds, received, nsend);
    MPI_Finalize();
    return 0;
}
