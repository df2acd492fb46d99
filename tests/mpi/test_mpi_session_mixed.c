/*
 * Sessions beside the world model (MPI-4.1 11.2, 11.3): MPI_Init then a
 * session; the session's mpi://WORLD group is MPI_COMM_WORLD's group;
 * Comm_create_from_group works on a group of either model; MPI_Finalize
 * with a session open ends the world model only (MPI_Finalized true, the
 * session's communicator still works); a session after MPI_Finalize.
 */
#include "mpi_test.h"

#undef MT_FAIL
#define MT_FAIL() MPI_Abort(MPI_COMM_SELF, 1)

static void comm_handler(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
}

static void never_called(MPI_Session *s, int *code, ...)
{
    (void)s;
    (void)code;
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    int rank, np, flag = 0;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    mt_rank = rank;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag, "MPI_Initialized false after MPI_Init");

    MPI_Group sg, wg;
    int cmp = -1;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &sg));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_compare(sg, wg, &cmp));
    CHECK(cmp == MPI_IDENT, "mpi://WORLD vs MPI_COMM_WORLD's group: %d, expected MPI_IDENT", cmp);
    MPI_Group self_g;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://SELF", &self_g));
    MPI_Group cself;
    MPI_OK(MPI_Comm_group(MPI_COMM_SELF, &cself));
    MPI_OK(MPI_Group_compare(self_g, cself, &cmp));
    CHECK(cmp == MPI_IDENT, "mpi://SELF vs MPI_COMM_SELF's group: %d", cmp);
    MPI_OK(MPI_Group_free(&self_g));
    MPI_OK(MPI_Group_free(&cself));

    /* A group of the world model: the even ranks. */
    int neven = (np + 1) / 2, range[1][3] = { { 0, np - 1, 2 } };
    MPI_Group even;
    MPI_Comm ce = MPI_COMM_NULL, cs;
    MPI_OK(MPI_Group_range_incl(wg, 1, range, &even));
    MPI_OK(MPI_Comm_create_from_group(even, "org.rdmach.test.even", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ce));
    if (rank % 2 == 0) {
        int sz = 0, sum = 0;
        CHECK(ce != MPI_COMM_NULL, "an even rank got MPI_COMM_NULL");
        MPI_OK(MPI_Comm_size(ce, &sz));
        CHECK(sz == neven, "even comm size %d, expected %d", sz, neven);
        MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ce));
        CHECK(sum == 2 * (neven * (neven - 1) / 2), "even comm sum of ranks %d", sum);
        MPI_OK(MPI_Comm_free(&ce));
    } else {
        CHECK(ce == MPI_COMM_NULL, "an odd rank got a communicator");
    }
    MPI_OK(MPI_Group_free(&even));
    MPI_OK(MPI_Comm_create_from_group(sg, "org.rdmach.test.mixed", MPI_INFO_NULL, MPI_ERRORS_RETURN, &cs));

    /* Argument errors name their class. */
    MPI_Group g;
    MPI_Comm c;
    int rc = MPI_Group_from_session_pset((MPI_Session)0x12345, "mpi://WORLD", &g);
    CHECK(mt_class(rc) == MPI_ERR_SESSION, "invalid session: class %d, expected MPI_ERR_SESSION", mt_class(rc));
    rc = MPI_Comm_create_from_group(sg, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "NULL stringtag: class %d", mt_class(rc));
    rc = MPI_Comm_create_from_group(MPI_GROUP_NULL, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    CHECK(mt_class(rc) == MPI_ERR_GROUP, "MPI_GROUP_NULL: class %d", mt_class(rc));
    rc = MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &flag);
    CHECK(mt_class(rc) == MPI_ERR_SESSION, "MPI_SESSION_NULL: class %d", mt_class(rc));
    MPI_Errhandler seh;
    MPI_OK(MPI_Session_create_errhandler(never_called, &seh));
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, seh);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "a session's error handler on a communicator: class %d", mt_class(rc));
    MPI_OK(MPI_Errhandler_free(&seh));
    MPI_Errhandler ceh;
    MPI_Session bad;
    MPI_OK(MPI_Comm_create_errhandler(comm_handler, &ceh));
    rc = MPI_Session_init(MPI_INFO_NULL, ceh, &bad);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "a communicator's error handler for a session: class %d", mt_class(rc));
    MPI_OK(MPI_Errhandler_free(&ceh));

    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&sg));
    MPI_OK(MPI_Finalize());
    MPI_OK(MPI_Finalized(&flag));
    CHECK(flag, "MPI_Finalized false after MPI_Finalize");

    /* The world model is over; the session's communicator is not. */
    int right = (rank + 1) % np, left = (rank + np - 1) % np, got = -1;
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, cs, MPI_STATUS_IGNORE));
    CHECK(got == left, "after MPI_Finalize: received %d, expected %d", got, left);
    MPI_OK(MPI_Comm_free(&cs));
    MPI_Session old = s;
    MPI_OK(MPI_Session_finalize(&s));

    /* A session after MPI_Finalize (the device stayed up for the first). */
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    CHECK(s != old, "a new session has the finalized one's handle 0x%x", (unsigned)old);
    rc = MPI_Session_get_num_psets(old, MPI_INFO_NULL, &flag);
    CHECK(mt_class(rc) == MPI_ERR_SESSION, "a finalized session's handle: class %d", mt_class(rc));
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &sg));
    MPI_OK(MPI_Comm_create_from_group(sg, "org.rdmach.test.after", MPI_INFO_NULL, MPI_ERRORS_RETURN, &cs));
    long one = 1, n = 0;
    MPI_OK(MPI_Allreduce(&one, &n, 1, MPI_LONG, MPI_SUM, cs));
    CHECK(n == np, "allreduce after MPI_Finalize: %ld, expected %d", n, np);
    MPI_OK(MPI_Comm_free(&cs));
    MPI_OK(MPI_Group_free(&sg));
    MPI_OK(MPI_Session_finalize(&s));
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag, "MPI_Initialized false after MPI_Finalize (it stays true)");
    if (rank == 0)
        printf("session mixed np %d: world group ident, create_from_group, session after Finalize ok\n", np);
    return 0;
}
