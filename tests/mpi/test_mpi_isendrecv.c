/*
 * MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0): shifts around a ring
 * (to rank + k, from rank - k) with every distance outstanding at once,
 * small and rendezvous-sized messages, a non-contiguous datatype in place,
 * MPI_PROC_NULL on either side, the status of the receive (source, tag,
 * count), truncation reported by the completion, and argument errors that
 * name the argument.
 */
#include "mpi_test.h"

#define BIG (1 << 18)   /* ints: 1 MiB, beyond the eager limit */

static int me, p;

static int val(int from, int i, int k)
{
    return from * 1000003 + i * 7 + k * 31;
}

static void check_status(const MPI_Status *st, int src, int tag, int count, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == count, "%s: source %d tag %d count %d, expected %d %d %d",
          what, st->MPI_SOURCE, st->MPI_TAG, n, src, tag, count);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    mt_rank = me;

    /* every distance at once: to me + k, from me - k, tag k */
    int n = 5;
    int *sb = malloc(sizeof(int) * (size_t)(p * n)), *rb = malloc(sizeof(int) * (size_t)(p * n));
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)p);
    MPI_Status *sts = malloc(sizeof(MPI_Status) * (size_t)p);
    for (int k = 0; k < p; k++) {
        for (int i = 0; i < n; i++) {
            sb[k * n + i] = val(me, i, k);
            rb[k * n + i] = -1;
        }
        MPI_OK(MPI_Isendrecv(sb + k * n, n, MPI_INT, (me + k) % p, k, rb + k * n, n, MPI_INT, (me - k + p) % p, k,
                             MPI_COMM_WORLD, &rq[k]));
    }
    MPI_OK(MPI_Waitall(p, rq, sts));
    for (int k = 0; k < p; k++) {
        int from = (me - k + p) % p;
        check_status(&sts[k], from, k, n, "isendrecv");
        for (int i = 0; i < n; i++)
            CHECK(rb[k * n + i] == val(from, i, k), "isendrecv k %d [%d] = %d", k, i, rb[k * n + i]);
    }

    /* rendezvous-sized, replace with a non-contiguous type: every other int */
    int *big = malloc(sizeof(int) * 2 * BIG);
    for (int i = 0; i < 2 * BIG; i++)
        big[i] = i % 2 ? -5 : val(me, i / 2, 9);
    MPI_Datatype every2;
    MPI_OK(MPI_Type_vector(BIG, 1, 2, MPI_INT, &every2));
    MPI_OK(MPI_Type_commit(&every2));
    MPI_Request r;
    MPI_Status st;
    int right = (me + 1) % p, left = (me - 1 + p) % p;
    MPI_OK(MPI_Isendrecv_replace(big, 1, every2, right, 9, left, 9, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL, "the request is freed by MPI_Wait");
    check_status(&st, left, 9, BIG, "isendrecv_replace");
    for (int i = 0; i < 2 * BIG; i++)
        CHECK(big[i] == (i % 2 ? -5 : val(left, i / 2, 9)), "isendrecv_replace [%d] = %d", i, big[i]);
    MPI_OK(MPI_Type_free(&every2));

    /* rendezvous-sized plain exchange */
    int *big2 = malloc(sizeof(int) * BIG);
    MPI_OK(MPI_Isendrecv(big, BIG, MPI_INT, left, 3, big2, BIG, MPI_INT, right, 3, MPI_COMM_WORLD, &r));
    int flag = 0;
    while (!flag)
        MPI_OK(MPI_Test(&r, &flag, &st));
    check_status(&st, right, 3, BIG, "isendrecv big");
    /* the right neighbour's buffer after its replace: my values at the even places */
    for (int i = 0; i < BIG; i++)
        CHECK(big2[i] == (i % 2 ? -5 : val(me, i / 2, 9)), "isendrecv big [%d] = %d", i, big2[i]);

    /* MPI_PROC_NULL: the receive side gives the empty status of a null receive */
    int x = 77, y = -1;
    MPI_OK(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "proc_null");
    CHECK(y == -1, "a receive from MPI_PROC_NULL leaves the buffer: %d", y);
    MPI_OK(MPI_Isendrecv_replace(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, 0, "replace proc_null");

    /* errors */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char msg[MPI_MAX_ERROR_STRING];
    int len, rc;
    int two[2] = { 1, 2 };
    rc = MPI_Isendrecv(two, 2, MPI_INT, me, 4, &y, 1, MPI_INT, me, 4, MPI_COMM_WORLD, &r);
    CHECK(rc == MPI_SUCCESS, "posting a truncating exchange: %d", rc);
    rc = MPI_Wait(&r, &st);
    CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "truncation: class %d", mt_class(rc));
    rc = MPI_Isendrecv(&x, 1, MPI_INT, p, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_RANK && strstr(msg, "MPI_Isendrecv") && strstr(msg, "dest"),
          "bad dest: class %d '%s'", mt_class(rc), msg);
    rc = MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "negative recvcount: class %d", mt_class(rc));
    rc = MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_ARG && strstr(msg, "request"), "NULL request: class %d '%s'", mt_class(rc), msg);
    rc = MPI_Isendrecv_replace(&x, 1, MPI_INT, 0, 0, p + 1, 0, MPI_COMM_WORLD, &r);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_RANK && strstr(msg, "MPI_Isendrecv_replace") && strstr(msg, "source"),
          "bad source: class %d '%s'", mt_class(rc), msg);
    rc = MPI_Isendrecv_replace(&x, 1, MPI_DATATYPE_NULL, 0, 0, 0, 0, MPI_COMM_WORLD, &r);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL: class %d", mt_class(rc));
    rc = MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &r);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "MPI_COMM_NULL: class %d", mt_class(rc));

    free(sb);
    free(rb);
    free(rq);
    free(sts);
    free(big);
    free(big2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("isendrecv: %d ranks: ok\n", p);
    MPI_Finalize();
    return 0;
}
