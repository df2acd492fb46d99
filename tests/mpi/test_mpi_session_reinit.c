/*
 * MPI_Session_init after an MPI_Finalize that ran with no session open
 * (src/mpi/init.c: MPI_Finalize leaves the device open and idle, closed at
 * exit). The world model runs and ends; then a session, a communicator from
 * mpi://WORLD and an allreduce and a ring exchange on it, whose values are
 * computed from the ranks; the session is finalized and a second one made
 * and finalized. MPI_Finalized stays true throughout, and MPI_Init after
 * MPI_Finalize is still refused.
 */
#include "mpi_test.h"

static void round_trip(int rank, int np, const char *tag)
{
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int r = -1, n = -1;
    MPI_OK(MPI_Comm_rank(c, &r));
    MPI_OK(MPI_Comm_size(c, &n));
    CHECK(r == rank && n == np, "%s: rank %d of %d, expected %d of %d", tag, r, n, rank, np);
    long v = rank + 1, sum = 0;
    MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == (long)np * (np + 1) / 2, "%s: allreduce %ld, expected %ld", tag, sum, (long)np * (np + 1) / 2);
    int right = (rank + 1) % np, left = (rank + np - 1) % np, got = -1, out = 1000 + rank;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, c, MPI_STATUS_IGNORE));
    CHECK(got == 1000 + left, "%s: received %d from %d", tag, got, left);
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Session_finalize(&s));
}

int main(int argc, char **argv)
{
    int rank, np, flag = 0;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    mt_rank = rank;
    /* errors without an object (MPI_Init's below) go to world's handler */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int one = 1, n = 0;
    MPI_OK(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(n == np, "world allreduce %d", n);
    MPI_OK(MPI_Finalize());   /* no session open */
    round_trip(rank, np, "org.rdmach.test.reinit1");
    MPI_OK(MPI_Finalized(&flag));
    CHECK(flag, "MPI_Finalized false after a session following MPI_Finalize");
    round_trip(rank, np, "org.rdmach.test.reinit2");
    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    CHECK(MPI_Init(&argc, &argv) != MPI_SUCCESS, "MPI_Init after MPI_Finalize succeeded");
    MPI_OK(MPI_Session_finalize(&s));
    if (rank == 0)
        printf("session reinit: %d ranks ok\n", np);
    return 0;
}
