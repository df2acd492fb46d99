/*
 * Requests and statuses by the letter of MPI-4.1 (sections named below), on
 * any number of ranks >= 2 (pairs 2k <-> 2k+1; an odd last rank talks to
 * itself).
 *
 * 3.7.3 "An empty status is a status which is set to return tag =
 *   MPI_ANY_TAG, source = MPI_ANY_SOURCE, error = MPI_SUCCESS, and is also
 *   internally configured so that calls to MPI_GET_COUNT, MPI_GET_ELEMENTS,
 *   and MPI_GET_ELEMENTS_X return count = 0 and MPI_TEST_CANCELLED returns
 *   false." Wait, Test and Request_get_status of MPI_REQUEST_NULL or of an
 *   inactive persistent request return it (and flag = true).
 * 3.7.5 Waitany/Testany with no active request: index MPI_UNDEFINED, empty
 *   status (Testany: flag true); Waitsome/Testsome: outcount MPI_UNDEFINED;
 *   "the array_of_statuses ... [of] length 0" may be NULL (count 0); null
 *   entries among active ones: Waitall gives them the empty status.
 * 3.2.5 / 3.7.5 MPI_ERROR: single completion (Recv, Wait, Test, Probe,
 *   Sendrecv, Request_get_status) leaves it as it was; Waitall with a
 *   failure returns MPI_ERR_IN_STATUS and sets it in every status.
 * 3.7.3 "MPI_REQUEST_NULL ... a call to MPI_WAIT with a request that is
 *   not active"; a handle freed by completion or Request_free is no longer a
 *   request: a stale copy of it is MPI_ERR_REQUEST (3.7.3 "request handle
 *   ... set to MPI_REQUEST_NULL"; using the old value is erroneous and an
 *   implementation that checks reports MPI_ERR_REQUEST).
 * 3.10 "A receive from MPI_PROC_NULL ... source = MPI_PROC_NULL, tag =
 *   MPI_ANY_TAG and count = 0"; Probe/Iprobe of MPI_PROC_NULL likewise
 *   (flag true).
 * 3.2.5 / 5.1.11 MPI_Get_count: MPI_UNDEFINED when the bytes are not a
 *   whole number of the datatype; Get_elements counts basic elements of a
 *   partial derived type; zero-size messages count 0.
 * 13.3 (generalized requests) Status_set_elements(_x) and
 *   Status_set_cancelled write what Get_count/Get_elements/Test_cancelled
 *   read back.
 * 3.9 Start/Startall; Request_free of an active request: "the operation
 *   will complete" and the message is still delivered.
 */
#include "mpi_test.h"

#define GUARD 0x3c3c

static void check_empty(const MPI_Status *st, const char *what)
{
    int count = -1, elems = -1, flag = -1;
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && st->MPI_ERROR == MPI_SUCCESS,
          "%s: not the empty status (source %d, tag %d, error %d)", what, st->MPI_SOURCE, st->MPI_TAG,
          st->MPI_ERROR);
    MPI_OK(MPI_Get_count(st, MPI_INT, &count));
    MPI_OK(MPI_Get_elements(st, MPI_DOUBLE, &elems));
    MPI_Count ex = -1;
    MPI_OK(MPI_Get_elements_x(st, MPI_BYTE, &ex));
    MPI_OK(MPI_Test_cancelled(st, &flag));
    CHECK(count == 0 && elems == 0 && ex == 0 && flag == 0, "%s: count %d elements %d/%lld cancelled %d", what,
          count, elems, (long long)ex, flag);
}

static void check_proc_null(const MPI_Status *st, int error_before, const char *what)
{
    int count = -1;
    MPI_OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && count == 0,
          "%s: status (%d, %d, count %d)", what, st->MPI_SOURCE, st->MPI_TAG, count);
    CHECK(st->MPI_ERROR == error_before, "%s: MPI_ERROR written (%d)", what, st->MPI_ERROR);
}

static void dirty(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++) {
        st[i].MPI_SOURCE = 77;
        st[i].MPI_TAG = 78;
        st[i].MPI_ERROR = GUARD;
        st[i].count_lo = 123;
        st[i].count_hi_and_cancelled = 1;
    }
}

static void null_and_inactive(void)
{
    MPI_Status st[3];
    int flag, index, outcount, idx[3];
    MPI_Request nul = MPI_REQUEST_NULL;
    dirty(st, 1);
    MPI_OK(MPI_Wait(&nul, &st[0]));
    check_empty(&st[0], "Wait(MPI_REQUEST_NULL)");
    dirty(st, 1);
    flag = 0;
    MPI_OK(MPI_Test(&nul, &flag, &st[0]));
    CHECK(flag == 1, "Test(MPI_REQUEST_NULL) flag %d", flag);
    check_empty(&st[0], "Test(MPI_REQUEST_NULL)");
    dirty(st, 1);
    flag = 0;
    MPI_OK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st[0]));
    CHECK(flag == 1, "Request_get_status(MPI_REQUEST_NULL) flag");
    check_empty(&st[0], "Request_get_status(MPI_REQUEST_NULL)");

    /* An inactive persistent request: empty status, the handle stays. */
    int v = 0;
    MPI_Request p, keep;
    MPI_OK(MPI_Recv_init(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &p));
    keep = p;
    dirty(st, 1);
    MPI_OK(MPI_Wait(&p, &st[0]));
    CHECK(p == keep, "Wait changed an inactive persistent handle");
    check_empty(&st[0], "Wait(inactive persistent)");
    dirty(st, 1);
    flag = 0;
    MPI_OK(MPI_Test(&p, &flag, &st[0]));
    CHECK(flag == 1 && p == keep, "Test(inactive persistent)");
    check_empty(&st[0], "Test(inactive persistent)");
    dirty(st, 1);
    MPI_OK(MPI_Request_get_status(p, &flag, &st[0]));
    check_empty(&st[0], "Request_get_status(inactive persistent)");

    /* Arrays with no active request. */
    MPI_Request arr[3] = { MPI_REQUEST_NULL, p, MPI_REQUEST_NULL };
    dirty(st, 1);
    MPI_OK(MPI_Waitany(3, arr, &index, &st[0]));
    CHECK(index == MPI_UNDEFINED, "Waitany of no active request: index %d", index);
    check_empty(&st[0], "Waitany of no active request");
    dirty(st, 1);
    flag = 0;
    MPI_OK(MPI_Testany(3, arr, &index, &flag, &st[0]));
    CHECK(flag == 1 && index == MPI_UNDEFINED, "Testany of no active request: flag %d index %d", flag, index);
    check_empty(&st[0], "Testany of no active request");
    MPI_OK(MPI_Waitsome(3, arr, &outcount, idx, st));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome of no active request: %d", outcount);
    MPI_OK(MPI_Testsome(3, arr, &outcount, idx, st));
    CHECK(outcount == MPI_UNDEFINED, "Testsome of no active request: %d", outcount);
    dirty(st, 3);
    MPI_OK(MPI_Waitall(3, arr, st));
    for (int i = 0; i < 3; i++)
        check_empty(&st[i], "Waitall of no active request");
    dirty(st, 3);
    flag = 0;
    MPI_OK(MPI_Testall(3, arr, &flag, st));
    CHECK(flag == 1, "Testall of no active request");
    for (int i = 0; i < 3; i++)
        check_empty(&st[i], "Testall of no active request");
    CHECK(arr[1] == keep, "an inactive persistent handle in an array was changed");

    /* Count 0: the arrays may be NULL. */
    MPI_OK(MPI_Waitall(0, NULL, NULL));
    MPI_OK(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE));
    flag = 0;
    MPI_OK(MPI_Testall(0, NULL, &flag, NULL));
    CHECK(flag == 1, "Testall(0) flag");
    MPI_OK(MPI_Waitany(0, NULL, &index, MPI_STATUS_IGNORE));
    CHECK(index == MPI_UNDEFINED, "Waitany(0) index %d", index);
    flag = 0;
    MPI_OK(MPI_Testany(0, NULL, &index, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1 && index == MPI_UNDEFINED, "Testany(0)");
    MPI_OK(MPI_Waitsome(0, NULL, &outcount, NULL, NULL));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome(0) outcount %d", outcount);
    MPI_OK(MPI_Testsome(0, NULL, &outcount, NULL, NULL));
    CHECK(outcount == MPI_UNDEFINED, "Testsome(0) outcount %d", outcount);
    MPI_OK(MPI_Startall(0, NULL));
    MPI_OK(MPI_Request_free(&p));
}

/* A stale copy of a handle that completion or Request_free has freed. */
static void stale_handles(int peer)
{
    int v = 1, w = 0, rc;
    MPI_Request r, copy;
    MPI_Status st;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* A small Isend the device finished at once. */
    MPI_OK(MPI_Isend(&v, 1, MPI_INT, peer, 20, MPI_COMM_WORLD, &r));
    copy = r;
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL, "Wait did not set MPI_REQUEST_NULL");
    rc = MPI_Wait(&copy, &st);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Wait on a stale Isend handle: class %d", mt_class(rc));
    MPI_OK(MPI_Recv(&w, 1, MPI_INT, peer, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    /* The entry reused by the next request: the old copy is still stale. */
    MPI_OK(MPI_Irecv(&w, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &r));
    rc = MPI_Wait(&copy, &st);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Wait on a stale handle after reuse: class %d", mt_class(rc));
    int flag;
    rc = MPI_Test(&copy, &flag, &st);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Test on a stale handle: class %d", mt_class(rc));
    rc = MPI_Request_free(&copy);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Request_free of a stale handle: class %d", mt_class(rc));
    MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, 21, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* Send and receive of MPI_PROC_NULL, and a freed persistent request. */
    MPI_OK(MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 22, MPI_COMM_WORLD, &r));
    copy = r;
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    rc = MPI_Wait(&copy, &st);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Wait on a stale MPI_PROC_NULL send handle: class %d", mt_class(rc));
    MPI_OK(MPI_Send_init(&v, 1, MPI_INT, peer, 23, MPI_COMM_WORLD, &r));
    copy = r;
    MPI_OK(MPI_Request_free(&r));
    rc = MPI_Start(&copy);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Start of a freed persistent request: class %d", mt_class(rc));
    MPI_Request arr[2] = { MPI_REQUEST_NULL, copy };
    rc = MPI_Waitall(2, arr, MPI_STATUSES_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Waitall with a stale handle: class %d", mt_class(rc));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Single completions leave MPI_ERROR alone; Waitall with a failure sets it in all. */
static void error_field(int peer)
{
    int v = 5, w[4] = { 0 };
    MPI_Status st, sts[3];
    MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, 30, MPI_COMM_WORLD));
    st.MPI_ERROR = GUARD;
    MPI_OK(MPI_Probe(peer, 30, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_ERROR == GUARD, "Probe wrote MPI_ERROR");
    int flag = 0;
    st.MPI_ERROR = GUARD;
    MPI_OK(MPI_Iprobe(peer, 30, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 1 && st.MPI_ERROR == GUARD, "Iprobe wrote MPI_ERROR");
    st.MPI_ERROR = GUARD;
    MPI_OK(MPI_Recv(&w[0], 1, MPI_INT, peer, 30, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_ERROR == GUARD && w[0] == 5 && st.MPI_SOURCE == peer && st.MPI_TAG == 30, "Recv: error %d",
          st.MPI_ERROR);
    MPI_Request r;
    MPI_OK(MPI_Irecv(&w[1], 1, MPI_INT, peer, 31, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, 31, MPI_COMM_WORLD));
    st.MPI_ERROR = GUARD;
    flag = 0;
    while (!flag)
        MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(st.MPI_ERROR == GUARD, "Request_get_status wrote MPI_ERROR");
    st.MPI_ERROR = GUARD;
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_ERROR == GUARD && w[1] == 5, "Wait wrote MPI_ERROR");
    st.MPI_ERROR = GUARD;
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, peer, 32, &w[2], 1, MPI_INT, peer, 32, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_ERROR == GUARD && w[2] == 5, "Sendrecv wrote MPI_ERROR");
    st.MPI_ERROR = GUARD;
    MPI_OK(MPI_Recv(&w[3], 1, MPI_INT, MPI_PROC_NULL, 33, MPI_COMM_WORLD, &st));
    check_proc_null(&st, GUARD, "Recv(MPI_PROC_NULL)");
    st.MPI_ERROR = GUARD;
    MPI_OK(MPI_Probe(MPI_PROC_NULL, 33, MPI_COMM_WORLD, &st));
    check_proc_null(&st, GUARD, "Probe(MPI_PROC_NULL)");
    st.MPI_ERROR = GUARD;
    flag = 0;
    MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 33, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag == 1, "Iprobe(MPI_PROC_NULL) flag %d", flag);
    check_proc_null(&st, GUARD, "Iprobe(MPI_PROC_NULL)");
    MPI_OK(MPI_Irecv(&w[3], 1, MPI_INT, MPI_PROC_NULL, 33, MPI_COMM_WORLD, &r));
    st.MPI_ERROR = GUARD;
    MPI_OK(MPI_Wait(&r, &st));
    check_proc_null(&st, GUARD, "Irecv(MPI_PROC_NULL) + Wait");
    CHECK(w[3] == 0, "a receive from MPI_PROC_NULL changed the buffer");

    /* Waitall: one truncated receive among good ones and a null one. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int big[2] = { 8, 9 };
    MPI_Request rs[3];
    MPI_OK(MPI_Irecv(&w[0], 1, MPI_INT, peer, 34, MPI_COMM_WORLD, &rs[0]));
    rs[1] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Irecv(&w[1], 1, MPI_INT, peer, 35, MPI_COMM_WORLD, &rs[2]));
    MPI_OK(MPI_Send(&v, 1, MPI_INT, peer, 34, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(big, 2, MPI_INT, peer, 35, MPI_COMM_WORLD));
    dirty(sts, 3);
    int rc = MPI_Waitall(3, rs, sts);
    CHECK(rc == MPI_ERR_IN_STATUS, "Waitall with a truncated receive returned %d", rc);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_SUCCESS &&
              mt_class(sts[2].MPI_ERROR) == MPI_ERR_TRUNCATE,
          "Waitall error fields %d %d %d", sts[0].MPI_ERROR, sts[1].MPI_ERROR, sts[2].MPI_ERROR);
    check_empty(&sts[1], "the null entry of a failed Waitall");
    /* Waitsome likewise, on the statuses it fills. */
    MPI_OK(MPI_Irecv(&w[1], 1, MPI_INT, peer, 36, MPI_COMM_WORLD, &rs[0]));
    MPI_OK(MPI_Send(big, 2, MPI_INT, peer, 36, MPI_COMM_WORLD));
    int outcount = 0, idx[3];
    dirty(sts, 1);
    rc = MPI_Waitsome(1, rs, &outcount, idx, sts);
    CHECK(rc == MPI_ERR_IN_STATUS && outcount == 1 && mt_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE,
          "Waitsome with a truncated receive: rc %d outcount %d error %d", rc, outcount, sts[0].MPI_ERROR);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Get_count / Get_elements / Status_set_* and zero counts. */
static void counts(int peer)
{
    MPI_Status st;
    int count, elems;
    char bytes[12] = { 0 };
    /* 6 bytes are not a whole number of ints: MPI_UNDEFINED. */
    MPI_OK(MPI_Send(bytes, 6, MPI_BYTE, peer, 40, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(bytes, 12, MPI_BYTE, peer, 40, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == MPI_UNDEFINED, "Get_count of 6 bytes as MPI_INT: %d", count);
    MPI_OK(MPI_Get_elements(&st, MPI_INT, &elems));
    CHECK(elems == MPI_UNDEFINED, "Get_elements of 6 bytes as MPI_INT: %d", elems);
    MPI_OK(MPI_Get_count(&st, MPI_SHORT, &count));
    CHECK(count == 3, "Get_count of 6 bytes as MPI_SHORT: %d", count);
    /* A derived type {int, double} received partly: Get_count undefined,
     * Get_elements counts the basic elements that arrived. */
    MPI_Datatype pair;
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { 0, 8 };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE };
    MPI_OK(MPI_Type_create_struct(2, bl, disp, types, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    struct { int i; double d; } two[2] = { { 1, 1.5 }, { 2, 2.5 } }, got[2];
    MPI_OK(MPI_Send(two, 1, pair, peer, 41, MPI_COMM_WORLD));    /* 12 bytes: one whole pair */
    MPI_OK(MPI_Send(&two[1].i, 1, MPI_INT, peer, 42, MPI_COMM_WORLD));   /* 4 bytes: an int alone */
    MPI_OK(MPI_Recv(got, 2, pair, peer, 41, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, pair, &count));
    MPI_OK(MPI_Get_elements(&st, pair, &elems));
    CHECK(count == 1 && elems == 2 && got[0].i == 1 && got[0].d == 1.5, "whole pair: count %d elements %d", count,
          elems);
    MPI_OK(MPI_Recv(got, 2, pair, peer, 42, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, pair, &count));
    MPI_OK(MPI_Get_elements(&st, pair, &elems));
    CHECK(count == MPI_UNDEFINED && elems == 1, "partial pair: count %d elements %d", count, elems);
    /* Zero counts. */
    MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 43, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(NULL, 0, MPI_INT, peer, 43, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, pair, &count));
    MPI_OK(MPI_Get_elements(&st, MPI_INT, &elems));
    CHECK(count == 0 && elems == 0 && st.MPI_SOURCE == peer && st.MPI_TAG == 43, "zero count: %d %d", count,
          elems);
    /* Status_set_elements / _x / set_cancelled read back. */
    /* "a call to MPI_GET_ELEMENTS will return count. MPI_GET_COUNT will
     * return a compatible value": 3 basic elements of a two-element pair
     * are no whole pair (MPI_UNDEFINED), 4 are two. */
    MPI_OK(MPI_Status_set_elements(&st, pair, 3));
    MPI_OK(MPI_Get_count(&st, pair, &count));
    MPI_OK(MPI_Get_elements(&st, pair, &elems));
    CHECK(count == MPI_UNDEFINED && elems == 3, "set_elements(pair, 3): count %d elements %d", count, elems);
    MPI_OK(MPI_Status_set_elements(&st, pair, 4));
    MPI_OK(MPI_Get_count(&st, pair, &count));
    MPI_OK(MPI_Get_elements(&st, pair, &elems));
    CHECK(count == 2 && elems == 4, "set_elements(pair, 4): count %d elements %d", count, elems);
    MPI_OK(MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count)5));
    MPI_Count ex;
    MPI_OK(MPI_Get_elements_x(&st, MPI_INT, &ex));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(ex == 5 && count == 5, "set_elements_x(MPI_INT, 5): %lld %d", (long long)ex, count);
    int flag;
    MPI_OK(MPI_Status_set_cancelled(&st, 1));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "set_cancelled(1) reads %d", flag);
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 5, "set_cancelled changed the count: %d", count);
    MPI_OK(MPI_Status_set_cancelled(&st, 0));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0, "set_cancelled(0) reads %d", flag);
    MPI_OK(MPI_Type_free(&pair));
}

/* Start/Startall, Request_free of active requests, mixed arrays. */
static void persistent_and_free(int peer)
{
    int sv[3] = { 10, 11, 12 }, rv[3] = { 0 };
    MPI_Request r[4];
    MPI_OK(MPI_Send_init(&sv[0], 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Recv_init(&rv[0], 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Ssend_init(&sv[1], 1, MPI_INT, peer, 51, MPI_COMM_WORLD, &r[2]));
    MPI_OK(MPI_Recv_init(&rv[1], 1, MPI_INT, peer, 51, MPI_COMM_WORLD, &r[3]));
    for (int it = 0; it < 3; it++) {
        sv[0] = 100 + it;
        sv[1] = 200 + it;
        MPI_OK(MPI_Startall(4, r));
        MPI_Status st[4];
        MPI_OK(MPI_Waitall(4, r, st));
        CHECK(rv[0] == 100 + it && rv[1] == 200 + it, "persistent round %d: %d %d", it, rv[0], rv[1]);
        CHECK(st[1].MPI_SOURCE == peer && st[1].MPI_TAG == 50 && st[3].MPI_TAG == 51, "persistent statuses");
    }
    /* Start of an active persistent request is erroneous: MPI_ERR_REQUEST. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Start(&r[1]));
    int rc = MPI_Start(&r[1]);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Start of an active request: class %d", mt_class(rc));
    rc = MPI_Startall(2, (MPI_Request[]){ r[3], r[3] });
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Startall with a request twice: class %d", mt_class(rc));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    /* Request_free of an active receive: the operation still completes
     * (3.7.3): the message lands in the buffer; and of an active send: the
     * peer still gets it. */
    MPI_OK(MPI_Request_free(&r[1]));
    CHECK(r[1] == MPI_REQUEST_NULL, "Request_free did not set MPI_REQUEST_NULL");
    MPI_Request s;
    MPI_OK(MPI_Isend(&sv[2], 1, MPI_INT, peer, 50, MPI_COMM_WORLD, &s));
    MPI_OK(MPI_Request_free(&s));
    /* Our receive (freed) and the peer's take the two messages; a barrier
     * does not order them, so wait for the freed receive's buffer. */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    while (rv[0] != 12) {
        int flag;
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < 4; i++)
        if (r[i] != MPI_REQUEST_NULL)
            MPI_OK(MPI_Request_free(&r[i]));
    /* Mixed arrays: Testsome/Waitany skip null entries. */
    MPI_Request m[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_OK(MPI_Irecv(&rv[2], 1, MPI_INT, peer, 52, MPI_COMM_WORLD, &m[1]));
    MPI_OK(MPI_Send(&sv[2], 1, MPI_INT, peer, 52, MPI_COMM_WORLD));
    int index = -1;
    MPI_Status st;
    MPI_OK(MPI_Waitany(3, m, &index, &st));
    CHECK(index == 1 && m[1] == MPI_REQUEST_NULL && st.MPI_TAG == 52 && rv[2] == 12, "Waitany index %d", index);
    MPI_OK(MPI_Waitany(3, m, &index, &st));
    CHECK(index == MPI_UNDEFINED, "Waitany after the last: %d", index);
}

/* 3.7.5 with a request still pending: Testany "returns flag = false,
 * returns a value of MPI_UNDEFINED in index"; Testsome outcount 0; Testall
 * flag false and the requests unchanged. Request_get_status "does not
 * deallocate or deactivate the request": a cancelled receive reports
 * cancelled and still needs its Wait. Waitany's failure is returned as the
 * request's own error (not MPI_ERR_IN_STATUS), with its index, and leaves
 * MPI_ERROR alone. */
static void pending_and_errors(int peer)
{
    int v = 0, flag = -1, index = -1, outcount = -1, idx[2];
    MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL }, keep;
    MPI_Status st[2];
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, &r[1]));
    keep = r[1];
    MPI_OK(MPI_Testany(2, r, &index, &flag, &st[0]));
    CHECK(flag == 0 && index == MPI_UNDEFINED, "Testany with a pending request: flag %d index %d", flag, index);
    MPI_OK(MPI_Testsome(2, r, &outcount, idx, st));
    CHECK(outcount == 0, "Testsome with a pending request: outcount %d", outcount);
    MPI_OK(MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag == 0 && r[1] == keep && r[0] == MPI_REQUEST_NULL, "Testall with a pending request: flag %d", flag);
    MPI_OK(MPI_Cancel(&r[1]));
    flag = 0;
    while (!flag)
        MPI_OK(MPI_Request_get_status(r[1], &flag, &st[0]));
    int cancelled = 0;
    MPI_OK(MPI_Test_cancelled(&st[0], &cancelled));
    CHECK(cancelled == 1 && r[1] == keep, "Request_get_status of a cancelled receive: cancelled %d", cancelled);
    MPI_OK(MPI_Waitsome(2, r, &outcount, idx, MPI_STATUSES_IGNORE));
    CHECK(outcount == 1 && idx[0] == 1 && r[1] == MPI_REQUEST_NULL, "Waitsome of the cancelled receive: %d",
          outcount);

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int two[2] = { 1, 2 };
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, peer, 61, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Send(two, 2, MPI_INT, peer, 61, MPI_COMM_WORLD));
    st[0].MPI_ERROR = GUARD;
    int rc = MPI_Waitany(2, r, &index, &st[0]);
    CHECK(mt_class(rc) == MPI_ERR_TRUNCATE && index == 0 && r[0] == MPI_REQUEST_NULL,
          "Waitany of a truncated receive: class %d index %d", mt_class(rc), index);
    CHECK(st[0].MPI_ERROR == GUARD, "Waitany wrote MPI_ERROR (%d)", st[0].MPI_ERROR);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int peer = mt_rank ^ 1;
    if (peer >= size)
        peer = mt_rank;
    null_and_inactive();
    stale_handles(peer);
    error_field(peer);
    counts(peer);
    persistent_and_free(peer);
    pending_and_errors(peer);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("conf_status: %d ranks: empty statuses, count-0 arrays, stale handles, MPI_ERROR, counts, "
               "persistent and freed requests ok\n",
               size);
    MPI_OK(MPI_Finalize());
    return 0;
}
