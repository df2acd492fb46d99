/*
 * Truncation (2 ranks, MPI_ERRORS_RETURN): a message longer than the receive
 * buffer gives MPI_ERR_TRUNCATE, the part that fits is delivered, nothing
 * past the buffer is written, and the status names the sender and tag and
 * counts what was delivered. Eager and rendezvous sizes, blocking and
 * non-blocking receives (a single completion returns the error and leaves
 * status.MPI_ERROR alone; Waitall: MPI_ERR_IN_STATUS with the per-request
 * error in the statuses), and a non-contiguous receive type. Communication
 * goes on normally afterwards.
 */
#include "mpi_test.h"

/* What status.MPI_ERROR holds before a single completion, and still after
 * it (MPI-4.1 3.2.5: only the calls with an array of statuses set it). */
#define UNTOUCHED 0x7e57

static void check_trunc(int rc, const MPI_Status *st, int src, int tag, int expect_count, MPI_Datatype dt,
                        const char *what)
{
    int count = -1;
    CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "%s: class %d, expected MPI_ERR_TRUNCATE", what, mt_class(rc));
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag, "%s: status %d/%d", what, st->MPI_SOURCE, st->MPI_TAG);
    CHECK(st->MPI_ERROR == UNTOUCHED, "%s: a single completion wrote status.MPI_ERROR (%d)", what, st->MPI_ERROR);
    MPI_OK(MPI_Get_count(st, dt, &count));
    CHECK(count == expect_count, "%s: count %d, expected %d", what, count, expect_count);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    MPI_OK(MPI_Error_string(rc, s, &len));
    CHECK(strstr(s, "truncated") != NULL, "%s: error string '%s'", what, s);
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run on 2 ranks");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    const int big = 1 << 18;       /* ints: 1 MiB */
    int *a = malloc((size_t)big * sizeof(int));
    CHECK(a, "out of memory");

    if (mt_rank == 0) {
        for (int i = 0; i < big; i++)
            a[i] = i;
        MPI_OK(MPI_Send(a, 100, MPI_INT, 1, 1, MPI_COMM_WORLD));           /* eager */
        MPI_OK(MPI_Send(a, big, MPI_INT, 1, 2, MPI_COMM_WORLD));           /* rendezvous */
        MPI_OK(MPI_Send(a, 100, MPI_INT, 1, 3, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(a, big, MPI_INT, 1, 4, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(a, 10, MPI_INT, 1, 5, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(a, 20, MPI_INT, 1, 6, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(a, 10, MPI_INT, 1, 7, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        /* eager, blocking */
        for (int i = 0; i < big; i++)
            a[i] = -1;
        st.MPI_ERROR = UNTOUCHED;
        int rc = MPI_Recv(a, 60, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
        check_trunc(rc, &st, 0, 1, 60, MPI_INT, "eager Recv");
        for (int i = 0; i < 100; i++)
            CHECK(a[i] == (i < 60 ? i : -1), "eager Recv element %d: %d", i, a[i]);
        /* rendezvous, blocking */
        for (int i = 0; i < big; i++)
            a[i] = -1;
        st.MPI_ERROR = UNTOUCHED;
        rc = MPI_Recv(a, big / 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        check_trunc(rc, &st, 0, 2, big / 2, MPI_INT, "rendezvous Recv");
        for (int i = 0; i < big; i++)
            CHECK(a[i] == (i < big / 2 ? i : -1), "rendezvous Recv element %d: %d", i, a[i]);
        /* non-blocking: Wait, then Waitall with one truncated and one fine */
        MPI_Request r[2];
        MPI_OK(MPI_Irecv(a, 50, MPI_INT, 0, 3, MPI_COMM_WORLD, &r[0]));
        st.MPI_ERROR = UNTOUCHED;
        rc = MPI_Wait(&r[0], &st);
        check_trunc(rc, &st, 0, 3, 50, MPI_INT, "Irecv + Wait");
        CHECK(r[0] == MPI_REQUEST_NULL, "truncated request not freed");
        MPI_Status sts[2];
        MPI_OK(MPI_Irecv(a, 1000, MPI_INT, 0, 4, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Irecv(a + 1000, 10, MPI_INT, 0, 5, MPI_COMM_WORLD, &r[1]));
        rc = MPI_Waitall(2, r, sts);
        CHECK(rc == MPI_ERR_IN_STATUS, "Waitall returned %d, expected MPI_ERR_IN_STATUS", rc);
        CHECK(mt_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE && sts[1].MPI_ERROR == MPI_SUCCESS,
              "Waitall statuses: %d %d", sts[0].MPI_ERROR, sts[1].MPI_ERROR);
        for (int i = 0; i < 1000; i++)
            CHECK(a[i] == i, "Waitall truncated element %d: %d", i, a[i]);
        for (int i = 0; i < 10; i++)
            CHECK(a[1000 + i] == i, "Waitall intact element %d", i);
        /* non-contiguous receive: 20 ints into a vector of 8 (stride 2) */
        MPI_Datatype vec;
        MPI_OK(MPI_Type_vector(8, 1, 2, MPI_INT, &vec));
        MPI_OK(MPI_Type_commit(&vec));
        for (int i = 0; i < 40; i++)
            a[i] = -1;
        st.MPI_ERROR = UNTOUCHED;
        rc = MPI_Recv(a, 1, vec, 0, 6, MPI_COMM_WORLD, &st);
        check_trunc(rc, &st, 0, 6, 1, vec, "vector Recv");      /* 8 ints delivered: one whole vector */
        MPI_OK(MPI_Type_free(&vec));
        int elems = -1;
        MPI_OK(MPI_Get_elements(&st, MPI_INT, &elems));
        CHECK(elems == 8, "vector Recv: %d elements delivered", elems);
        for (int i = 0; i < 16; i++)
            CHECK(a[i] == (i % 2 ? -1 : i / 2), "vector Recv element %d: %d", i, a[i]);
        /* and life goes on */
        int b[10];
        MPI_OK(MPI_Recv(b, 10, MPI_INT, 0, 7, MPI_COMM_WORLD, &st));
        for (int i = 0; i < 10; i++)
            CHECK(b[i] == i, "message after the truncations: element %d", i);
        printf("truncate: eager, rendezvous, Wait, Waitall, derived: ok\n");
    }
    free(a);
    MPI_OK(MPI_Finalize());
    return 0;
}
