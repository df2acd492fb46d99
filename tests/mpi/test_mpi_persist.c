/*
 * Persistent requests on 2 ranks: Send_init/Recv_init started 200 times with
 * Startall (the buffer is read at each start, so new contents go out), Wait
 * on an inactive request returns at once with an empty status and keeps the
 * handle, Ssend_init/Rsend_init/Bsend_init, a derived receive type,
 * MPI_PROC_NULL, errors (Start of an active request or of an ordinary
 * request), and Request_free.
 */
#include "mpi_test.h"

#define ITERS 200
#define LEN 1000

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run on 2 ranks");
    int peer = 1 - mt_rank;
    static int sbuf[LEN], rbuf[LEN];
    static double big_s[100000], big_r[100000];
    MPI_Request r[4];
    MPI_Status st[4];

    /* An exchange of a small and a large message, both ways, ITERS times. */
    MPI_OK(MPI_Send_init(sbuf, LEN, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Recv_init(rbuf, LEN, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Send_init(big_s, 100000, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &r[2]));
    MPI_OK(MPI_Recv_init(big_r, 100000, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[3]));
    MPI_Request keep[4] = { r[0], r[1], r[2], r[3] };
    /* Inactive: Wait returns at once, empty status, handle unchanged. */
    MPI_OK(MPI_Wait(&r[1], &st[0]));
    CHECK(r[1] == keep[1] && st[0].MPI_SOURCE == MPI_ANY_SOURCE && st[0].MPI_TAG == MPI_ANY_TAG,
          "Wait on an inactive request");
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < LEN; i++)
            sbuf[i] = it * 100000 + mt_rank * 10000 + i;
        big_s[it] = it + 0.5 * mt_rank;
        big_s[99999] = -it;
        MPI_OK(MPI_Startall(4, r));
        MPI_OK(MPI_Waitall(4, r, st));
        for (int i = 0; i < 4; i++)
            CHECK(r[i] == keep[i], "iteration %d: Waitall changed persistent handle %d", it, i);
        for (int i = 0; i < LEN; i++)
            CHECK(rbuf[i] == it * 100000 + peer * 10000 + i, "iteration %d element %d: %d", it, i, rbuf[i]);
        CHECK(big_r[it] == it + 0.5 * peer && big_r[99999] == -it, "iteration %d: large message", it);
        CHECK(st[3].MPI_SOURCE == peer && st[3].MPI_TAG == 2, "iteration %d: status %d/%d", it, st[3].MPI_SOURCE,
              st[3].MPI_TAG);
    }

    /* Errors: starting an active request, starting an ordinary one. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Start(&r[1]));
    int rc = MPI_Start(&r[1]);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Start of an active request: class %d", mt_class(rc));
    MPI_Request plain;
    MPI_OK(MPI_Irecv(rbuf, 1, MPI_INT, peer, 77, MPI_COMM_WORLD, &plain));
    rc = MPI_Start(&plain);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "Start of a non-persistent request: class %d", mt_class(rc));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Start(&r[0]));
    int one = 1;
    MPI_OK(MPI_Send(&one, 1, MPI_INT, peer, 77, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&plain, MPI_STATUS_IGNORE));
    int idx, flag = 0;
    while (!flag)
        MPI_OK(MPI_Testany(2, r, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(r[idx] == keep[idx], "Testany changed a persistent handle");
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4; i++) {
        MPI_OK(MPI_Request_free(&r[i]));
        CHECK(r[i] == MPI_REQUEST_NULL, "Request_free");
    }

    /* Synchronous, ready and buffered persistent sends, and a vector receive. */
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(10, 1, 3, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    int bsize = 4 * (40 + MPI_BSEND_OVERHEAD);
    char *bb = malloc((size_t)bsize);
    MPI_OK(MPI_Buffer_attach(bb, bsize));
    int v10[10], w30[30];
    if (mt_rank == 0) {
        MPI_OK(MPI_Ssend_init(v10, 10, MPI_INT, peer, 3, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Bsend_init(v10, 10, MPI_INT, peer, 4, MPI_COMM_WORLD, &r[1]));
        MPI_OK(MPI_Rsend_init(v10, 10, MPI_INT, peer, 5, MPI_COMM_WORLD, &r[2]));
        MPI_OK(MPI_Send_init(v10, 10, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &r[3]));
        for (int it = 0; it < 3; it++) {
            for (int i = 0; i < 10; i++)
                v10[i] = it * 10 + i;
            MPI_OK(MPI_Start(&r[1]));    /* buffered: complete at once */
            MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* rsend receive posted */
            MPI_OK(MPI_Startall(2, &r[2]));
            MPI_OK(MPI_Start(&r[0]));
            MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        }
    } else {
        int w30b[30];
        MPI_OK(MPI_Recv_init(w30, 1, vec, peer, 3, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Recv_init(v10, 10, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &r[1]));
        MPI_OK(MPI_Recv_init(w30b, 1, vec, peer, 5, MPI_COMM_WORLD, &r[2]));
        for (int it = 0; it < 3; it++) {
            for (int i = 0; i < 30; i++)
                w30[i] = w30b[i] = -1;
            MPI_OK(MPI_Recv(w30, 1, vec, peer, 4, MPI_COMM_WORLD, &st[0]));     /* the buffered one */
            for (int i = 0; i < 30; i++)
                CHECK(w30[i] == (i % 3 ? -1 : it * 10 + i / 3), "Bsend_init iteration %d element %d", it, i);
            for (int i = 0; i < 30; i++)
                w30[i] = -1;
            MPI_OK(MPI_Startall(3, r));
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 9, MPI_COMM_WORLD));        /* the Rsend may come */
            MPI_OK(MPI_Waitall(3, r, st));
            CHECK(st[1].MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL persistent receive status");
            CHECK(st[0].MPI_TAG == 3 && st[2].MPI_TAG == 5, "tags %d %d", st[0].MPI_TAG, st[2].MPI_TAG);
            for (int i = 0; i < 30; i++)
                CHECK(w30[i] == (i % 3 ? -1 : it * 10 + i / 3) && w30b[i] == w30[i],
                      "iteration %d element %d: ssend %d rsend %d", it, i, w30[i], w30b[i]);
        }
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Request_free(&r[i]));
    }
    if (mt_rank == 0)
        for (int i = 0; i < 4; i++)
            MPI_OK(MPI_Request_free(&r[i]));
    void *back;
    MPI_OK(MPI_Buffer_detach(&back, &bsize));
    free(bb);
    MPI_OK(MPI_Type_free(&vec));
    if (mt_rank == 0)
        printf("persist: %d Startall rounds, ssend/bsend/rsend/proc_null persistent ok\n", ITERS);
    MPI_OK(MPI_Finalize());
    return 0;
}
