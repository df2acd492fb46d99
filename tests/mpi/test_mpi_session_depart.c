/*
 * Ends of a process that are no collective of the job (src/mpi/init.c,
 * exit_teardown; MPI-4.1 11.3: sessions after MPI_Finalize, and
 * MPI_Session_finalize, which need not synchronize).
 *
 * chain fin|nofin (1-4 ranks): the world model runs and ends; then every
 *   rank makes a session, a communicator from mpi://WORLD and one from
 *   mpi://SELF, and checks an allreduce and a self exchange. Rank k waits
 *   until rank k-1 has exited (exit_watch.h: no MPI between them; k polls
 *   MPI_Iprobe meanwhile, as a receiver of k-1's last message must make
 *   progress), then receives the message k-1 sent before its end (a
 *   standard send that completed at k-1: MPI says it is delivered; k has
 *   not matched it before k-1's exit), sends k+1 its own, and
 *   finalizes its session and exits while the ranks after it still run.
 *   The last rank exits with its session finalized (fin) or not (nofin:
 *   the program's error, warned, still a normal end). Every exit must
 *   wait for no other rank: one that waited would hold rank k+1 until its
 *   alarm (8 s) ends the job.
 * code (2+ ranks): as above up to the communicator; then the last rank
 *   exits with code 3, its session open, while rank 0 waits for a message
 *   from it: the job must end with code 3 (the test's expect_exit.sh).
 * pairs (4 ranks, sessions only): ranks 0-1 and 2-3 each make a
 *   communicator of their pair (Comm_create_from_group over a group from
 *   mpi://WORLD) and talk only within it. Ranks 2 and 3 finalize and exit;
 *   rank 1 waits until both are gone, polls MPI_Iprobe(MPI_ANY_SOURCE) for
 *   a second (long enough for the device's liveness checks to look at the
 *   gone processes twice), then sends to rank 0, which waited for it in
 *   an MPI_ANY_SOURCE receive all along. A normal end of a rank is no
 *   failure: the receive must complete with rank 1's value, and an
 *   MPI_Comm_split of the pair and the probes must succeed. (A peer's
 *   MPI_Session_finalize ends what may be done with it; a communicator
 *   without it stays fully usable.)
 * crash (3 ranks, sessions only): the guard the other way: rank 2 talks
 *   with nobody and ends without closing its device (_exit(0): no
 *   departure) once ranks 0 and 1 have posted an MPI_ANY_SOURCE receive on
 *   their pair's communicator (each opens a gate, exit_watch.h, then);
 *   their receives must end with MPI_ERR_PROC_ABORTED naming rank 2 (a
 *   peer that never talked with them and failed is still a failure).
 */
#include "exit_watch.h"
#include "mpi_test.h"

#define WAIT_LIMIT_S 8

static MPI_Comm comm_of(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    MPI_OK(MPI_Group_from_session_pset(s, pset, &g));
    MPI_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_OK(MPI_Group_free(&g));
    return c;
}

/* The world model, run and ended; returns the job's size. */
static int world_round(int *argc, char ***argv, int *rank)
{
    int np, one = 1, n = 0;
    MPI_OK(MPI_Init(argc, argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    mt_rank = *rank;
    MPI_OK(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(n == np, "world allreduce %d, expected %d", n, np);
    MPI_OK(MPI_Finalize());
    return np;
}

/* A session's communicator over mpi://WORLD, checked by an allreduce of
 * rank + 1 (sum np(np+1)/2), and one over mpi://SELF by a self exchange. */
static MPI_Comm session_comms(MPI_Session s, int rank, int np)
{
    MPI_Comm w = comm_of(s, "mpi://WORLD", "org.rdmach.test.depart.world");
    int r = -1, n = -1;
    MPI_OK(MPI_Comm_rank(w, &r));
    MPI_OK(MPI_Comm_size(w, &n));
    CHECK(r == rank && n == np, "mpi://WORLD communicator: rank %d of %d, expected %d of %d", r, n, rank, np);
    long v = rank + 1, sum = 0;
    MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, w));
    CHECK(sum == (long)np * (np + 1) / 2, "allreduce %ld, expected %ld", sum, (long)np * (np + 1) / 2);
    MPI_Comm self = comm_of(s, "mpi://SELF", "org.rdmach.test.depart.self");
    int out = 500 + rank, got = -1;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, self, MPI_STATUS_IGNORE));
    CHECK(got == out, "self exchange: %d, expected %d", got, out);
    MPI_OK(MPI_Comm_free(&self));
    return w;
}

static MPI_Comm chain_comm;

static void chain_poll(void)
{
    int flag;
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, chain_comm, &flag, MPI_STATUS_IGNORE));
}

static void chain(int *argc, char ***argv, int finalize_last)
{
    int rank;
    int np = world_round(argc, argv, &rank);
    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Comm w = session_comms(s, rank, np);
    chain_comm = w;
    if (rank > 0) {
        ew_wait_exit(rank - 1, WAIT_LIMIT_S, rank, chain_poll);
        int got = -1;
        MPI_Status st;
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, rank - 1, 11, w, &st));
        CHECK(got == 7000 + rank - 1 && st.MPI_SOURCE == rank - 1,
              "from rank %d (exited): %d from %d, expected %d", rank - 1, got, st.MPI_SOURCE, 7000 + rank - 1);
    }
    if (rank + 1 < np) {
        int out = 7000 + rank;
        MPI_OK(MPI_Send(&out, 1, MPI_INT, rank + 1, 11, w));
    } else {
        ew_release(rank);
        printf("session depart chain: %d ranks ok\n", np);
        fflush(stdout);
    }
    MPI_OK(MPI_Comm_free(&w));
    if (rank + 1 < np || finalize_last)
        MPI_OK(MPI_Session_finalize(&s));
}

static void code(int *argc, char ***argv)
{
    int rank;
    int np = world_round(argc, argv, &rank);
    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Comm w = session_comms(s, rank, np);
    ew_release(rank);
    if (rank == np - 1)
        exit(3);
    int got;
    MPI_Recv(&got, 1, MPI_INT, np - 1, 12, w, MPI_STATUS_IGNORE);   /* never sent: the job ends meanwhile */
    CHECK(0, "the receive from rank %d, which exited with code 3, returned", np - 1);
}

/* A session, its group of mpi://WORLD, and the communicator of the pair
 * (rank & ~1, rank | 1), checked by an exchange; *np the job's size. */
static MPI_Comm pair_comm(MPI_Session *s, int *rank, int *np)
{
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s));
    MPI_Group wg, pg;
    MPI_OK(MPI_Group_from_session_pset(*s, "mpi://WORLD", &wg));
    MPI_OK(MPI_Group_rank(wg, rank));
    MPI_OK(MPI_Group_size(wg, np));
    mt_rank = *rank;
    int pair[2] = { *rank & ~1, *rank | 1 };
    MPI_OK(MPI_Group_incl(wg, 2, pair, &pg));
    char tag[64];
    snprintf(tag, sizeof(tag), "org.rdmach.test.depart.p%d", pair[0]);
    MPI_Comm c;
    MPI_OK(MPI_Comm_create_from_group(pg, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_OK(MPI_Group_free(&pg));
    MPI_OK(MPI_Group_free(&wg));
    int other = *rank ^ 1, out = 100 * *rank, got = -1;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, other & 1, 1, &got, 1, MPI_INT, other & 1, 1, c, MPI_STATUS_IGNORE));
    CHECK(got == 100 * other, "pair exchange: %d, expected %d", got, 100 * other);
    return c;
}

#define GATE(r) (100 + (r))

static void crash(void)
{
    const char *pmi_rank = getenv("PMI_RANK");
    int me = pmi_rank ? atoi(pmi_rank) : 0;
    if (me == 2) {
        MPI_Session s;
        MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
        ew_release(2);
        ew_wait_exit(GATE(0), WAIT_LIMIT_S, 2, NULL);
        ew_wait_exit(GATE(1), WAIT_LIMIT_S, 2, NULL);
        _exit(0);
    }
    int gate = ew_hold(GATE(me));    /* before the init's fence: rank 2 finds it closed */
    MPI_Session s;
    int rank, np;
    MPI_Comm c = pair_comm(&s, &rank, &np);
    CHECK(np == 3, "run with 3 ranks, not %d", np);
    ew_release(rank);
    int got, cls = -1, len = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    MPI_Request rq;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, c, &rq));
    ew_drop(gate);
    int rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, text, &len);
    }
    CHECK(cls == MPI_ERR_PROC_ABORTED && strstr(text, "rank 2"),
          "ANY_SOURCE receive while rank 2 died: class %d (MPI_ERR_PROC_ABORTED is %d): %s", cls,
          MPI_ERR_PROC_ABORTED, text);
    printf("session depart crash: rank %d: PASS: %s\n", rank, text);
    fflush(stdout);
    MPI_Comm_free(&c);
    MPI_Session_finalize(&s);
}

static void pairs(void)
{
    MPI_Session s;
    int rank, np, got = -1;
    MPI_Comm c = pair_comm(&s, &rank, &np);
    CHECK(np == 4, "run with 4 ranks, not %d", np);
    if (rank >= 2) {
        MPI_OK(MPI_Comm_free(&c));
        MPI_OK(MPI_Session_finalize(&s));
        return;
    }
    ew_release(rank);
    int flag = 1;
    MPI_Status st;
    if (rank == 0) {
        MPI_Request rq;
        MPI_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 2, c, &rq));
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK(got == 4242 && st.MPI_SOURCE == 1 && st.MPI_ERROR == MPI_SUCCESS,
              "ANY_SOURCE receive while ranks 2, 3 ended: %d from %d, expected 4242 from 1", got, st.MPI_SOURCE);
    } else {
        ew_wait_exit(2, WAIT_LIMIT_S, rank, NULL);
        ew_wait_exit(3, WAIT_LIMIT_S, rank, NULL);
        double until = MPI_Wtime() + 1.0;
        while (MPI_Wtime() < until) {
            MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, &st));
            CHECK(!flag, "a message from %d tag %d nobody sent", st.MPI_SOURCE, st.MPI_TAG);
        }
        int v = 4242;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 2, c));
    }
    MPI_Comm half;
    MPI_OK(MPI_Comm_split(c, 0, -rank, &half));
    int hr = -1, hn = -1;
    MPI_OK(MPI_Comm_rank(half, &hr));
    MPI_OK(MPI_Comm_size(half, &hn));
    CHECK(hn == 2 && hr == 1 - rank, "split by key -rank: rank %d of %d, expected %d of 2", hr, hn, 1 - rank);
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, half, &flag, &st));
    CHECK(!flag, "a message from %d nobody sent", st.MPI_SOURCE);
    MPI_OK(MPI_Barrier(half));
    MPI_OK(MPI_Comm_free(&half));
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Session_finalize(&s));
    if (rank == 0)
        printf("session depart pairs: ranks 2, 3 left, no failure seen\n");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *pmi_rank = getenv("PMI_RANK");    /* set by rdmachrun and Hydra; before any init */
    ew_hold(pmi_rank ? atoi(pmi_rank) : 0);
    if (strcmp(mode, "chain") == 0)
        chain(&argc, &argv, argc < 3 || strcmp(argv[2], "nofin") != 0);
    else if (strcmp(mode, "code") == 0)
        code(&argc, &argv);
    else if (strcmp(mode, "pairs") == 0)
        pairs();
    else if (strcmp(mode, "crash") == 0)
        crash();
    else {
        fprintf(stderr, "usage: %s chain [fin|nofin] | code | pairs | crash\n", argv[0]);
        return 2;
    }
    return 0;
}
