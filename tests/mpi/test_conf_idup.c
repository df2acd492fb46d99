/*
 * MPI_Comm_idup is non-blocking (MPI-4.1 §7.4.2: "a nonblocking variant of
 * MPI_COMM_DUP"; §6.12: a nonblocking collective returns at once and
 * completes through MPI_Test/Wait; the calling process may do other
 * communication meanwhile, and collectives on each communicator are started
 * in the same order by every member, in any order across communicators):
 *   1. rank 0 blocks in MPI_Recv from every other rank before it calls
 *      MPI_Comm_idup; the others call MPI_Comm_idup first, then send, then
 *      wait (with a blocking idup this deadlocks);
 *   2. every rank calls MPI_Comm_idup, then point-to-point on the parent
 *      (a ring exchange) and an MPI_Allreduce on the parent before waiting;
 *   3. two idups in flight on different communicators, started in opposite
 *      orders by even and odd ranks, completed by MPI_Waitall;
 *   4. eight idups in flight on one communicator, completed in reverse order;
 * each duplicate: the parent's group (MPI_CONGRUENT), a context of its own
 * (traffic on it never matches the parent's or another duplicate's with
 * the same tag), working collectives, attributes copied by MPI_COMM_DUP_FN;
 * and argument errors (request NULL, an invalid communicator).
 */
#include "mpi_test.h"

static int rank, size;

/* comm is a duplicate of parent: the same group, a context of its own. */
static void check_dup(MPI_Comm parent, MPI_Comm comm, const char *what)
{
    int res, r, s;
    MPI_OK(MPI_Comm_compare(parent, comm, &res));
    CHECK(res == MPI_CONGRUENT, "%s: compare with its parent is %d, not MPI_CONGRUENT", what, res);
    MPI_OK(MPI_Comm_rank(comm, &r));
    MPI_OK(MPI_Comm_size(comm, &s));
    int pr, ps;
    MPI_Comm_rank(parent, &pr);
    MPI_Comm_size(parent, &ps);
    CHECK(r == pr && s == ps, "%s: rank %d of %d, the parent's %d of %d", what, r, s, pr, ps);
    /* the same tag on both: each receive gets its own communicator's message */
    int right = (r + 1) % s, left = (r + s - 1) % s, a = -1, b = -1;
    int va = 1000 * r + 1, vb = 1000 * r + 2;
    MPI_Request q[4];
    MPI_OK(MPI_Irecv(&a, 1, MPI_INT, left, 7, parent, &q[0]));
    MPI_OK(MPI_Irecv(&b, 1, MPI_INT, left, 7, comm, &q[1]));
    MPI_OK(MPI_Isend(&vb, 1, MPI_INT, right, 7, comm, &q[2]));
    MPI_OK(MPI_Isend(&va, 1, MPI_INT, right, 7, parent, &q[3]));
    MPI_OK(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
    CHECK(a == 1000 * left + 1 && b == 1000 * left + 2, "%s: parent got %d, duplicate got %d (expected %d, %d)",
          what, a, b, 1000 * left + 1, 1000 * left + 2);
    int sum = 0, one = r + 1;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == s * (s + 1) / 2, "%s: allreduce gave %d, expected %d", what, sum, s * (s + 1) / 2);
}

/* 1: rank 0 receives before its idup; the others send after theirs. */
static void recv_before_idup(void)
{
    MPI_Comm d;
    MPI_Request req;
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            int v = -1;
            MPI_Status st;
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st));
            CHECK(v == 100 + st.MPI_SOURCE, "message %d from %d", v, st.MPI_SOURCE);
        }
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
    } else {
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
        int v = 100 + rank;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "Wait left the Comm_idup request");
    check_dup(MPI_COMM_WORLD, d, "idup after a receive");
    MPI_OK(MPI_Comm_free(&d));
}

/* 2: point-to-point and a collective on the parent while the idup is in flight. */
static void traffic_while_pending(void)
{
    MPI_Comm d;
    MPI_Request req;
    int kv, val = 42, *got, flag;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv, NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, &val));
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
    int right = (rank + 1) % size, left = (rank + size - 1) % size, in = -1, out = rank;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right, 5, &in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in == left, "ring on the parent during idup: got %d from %d", in, left);
    int sum = 0;
    MPI_OK(MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size - 1) / 2, "allreduce on the parent during idup: %d", sum);
    int done = 0;
    while (!done)
        MPI_OK(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    check_dup(MPI_COMM_WORLD, d, "idup with traffic on the parent");
    MPI_OK(MPI_Comm_get_attr(d, kv, &got, &flag));
    CHECK(flag && got == &val, "the attribute copied by MPI_COMM_DUP_FN: flag %d value %p (expected %p)", flag,
          flag ? (void *)got : NULL, (void *)&val);
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kv));
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free_keyval(&kv));
}

/* 3: idups of two communicators, in opposite orders on even and odd ranks. */
static void two_parents_crossed(void)
{
    MPI_Comm b, da, db;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    MPI_Request q[2];
    if (rank % 2 == 0) {
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &da, &q[0]));
        MPI_OK(MPI_Comm_idup(b, &db, &q[1]));
    } else {
        MPI_OK(MPI_Comm_idup(b, &db, &q[1]));
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &da, &q[0]));
    }
    MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    check_dup(MPI_COMM_WORLD, da, "crossed idup of world");
    check_dup(b, db, "crossed idup of a duplicate");
    check_dup(da, db, "the two crossed duplicates");
    MPI_OK(MPI_Comm_free(&da));
    MPI_OK(MPI_Comm_free(&db));
    MPI_OK(MPI_Comm_free(&b));
}

/* 4: eight in flight on one communicator, each a context of its own. */
static void many_pending(void)
{
    enum { N = 8 };
    MPI_Comm d[N];
    MPI_Request q[N];
    for (int i = 0; i < N; i++)
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d[i], &q[i]));
    for (int i = N - 1; i >= 0; i--)
        MPI_OK(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) {
        char what[48];
        snprintf(what, sizeof(what), "idup %d of %d in flight", i, N);
        check_dup(MPI_COMM_WORLD, d[i], what);
        if (i > 0)
            check_dup(d[i - 1], d[i], what);
    }
    for (int i = 0; i < N; i++)
        MPI_OK(MPI_Comm_free(&d[i]));
}

static void bad_arguments(void)
{
    MPI_Comm d;
    MPI_Request req;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(mt_class(MPI_Comm_idup(MPI_COMM_WORLD, &d, NULL)) == MPI_ERR_ARG, "request NULL accepted");
    CHECK(mt_class(MPI_Comm_idup(MPI_COMM_NULL, &d, &req)) == MPI_ERR_COMM, "MPI_COMM_NULL accepted");
    CHECK(mt_class(MPI_Comm_idup(MPI_COMM_WORLD, NULL, &req)) == MPI_ERR_ARG, "newcomm NULL accepted");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_rank = rank;
    recv_before_idup();
    traffic_while_pending();
    two_parents_crossed();
    many_pending();
    bad_arguments();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("conf_idup: %d ranks: idup after a receive, with parent traffic, crossed on two communicators, "
               "8 in flight: all duplicates congruent, separate and working\n", size);
    MPI_Finalize();
    return 0;
}
