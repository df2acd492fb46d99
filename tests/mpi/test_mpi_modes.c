/*
 * Send modes on 2 ranks: synchronous (an Issend does not complete before the
 * matching receive is posted, which the receiver provably has not done),
 * ready (Rsend/Irsend to a receive posted before), buffered (Bsend/Ibsend
 * return while the receiver is not receiving; a message that does not fit
 * fails with MPI_ERR_BUFFER; Buffer_detach waits for delivery), then
 * Sendrecv_replace (contiguous, derived, with MPI_PROC_NULL) and MPI_PROC_NULL
 * for every kind of call.
 */
#include "mpi_test.h"

#define BIG (1 << 20)

static void synchronous(int peer)
{
    char small[8] = "ssend!!";
    char got[8];
    if (mt_rank == 0) {
        MPI_Request r;
        int flag = 0;
        MPI_OK(MPI_Issend(small, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &r));
        for (int i = 0; i < 2000; i++) {
            MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "Issend completed (test %d) before the receiver posted its receive", i);
        }
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD));    /* "go" */
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(r == MPI_REQUEST_NULL, "request not freed");
        /* Blocking Ssend of a large message. */
        char *big = malloc(BIG);
        mt_fill((unsigned char *)big, BIG, 77);
        MPI_OK(MPI_Ssend(big, BIG, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
        free(big);
    } else {
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Recv(got, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(memcmp(got, small, 8) == 0, "Issend data");
        unsigned char *big = malloc(BIG);
        MPI_OK(MPI_Recv(big, BIG, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(mt_verify(big, BIG, 77) < 0, "Ssend data");
        free(big);
    }
}

static void ready(int peer)
{
    int v[100];
    if (mt_rank == 1) {
        MPI_Request r[2];
        int w[50];
        MPI_OK(MPI_Irecv(v, 100, MPI_INT, peer, 10, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Irecv(w, 50, MPI_INT, peer, 11, MPI_COMM_WORLD, &r[1]));
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 12, MPI_COMM_WORLD));    /* receives are posted */
        MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 100; i++)
            CHECK(v[i] == i * 3, "Rsend element %d", i);
        for (int i = 0; i < 50; i++)
            CHECK(w[i] == -i, "Irsend element %d", i);
    } else {
        int w[50];
        for (int i = 0; i < 100; i++)
            v[i] = i * 3;
        for (int i = 0; i < 50; i++)
            w[i] = -i;
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Rsend(v, 100, MPI_INT, peer, 10, MPI_COMM_WORLD));
        MPI_Request r;
        MPI_OK(MPI_Irsend(w, 50, MPI_INT, peer, 11, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
}

#define NB 20

static void buffered(int peer)
{
    static int small[NB][64];
    if (mt_rank == 0) {
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int rc = MPI_Bsend(small[0], 64, MPI_INT, peer, 20, MPI_COMM_WORLD);
        CHECK(mt_class(rc) == MPI_ERR_BUFFER, "Bsend without a buffer: class %d", mt_class(rc));

        int bufsize = NB * (64 * (int)sizeof(int) + MPI_BSEND_OVERHEAD) + BIG + MPI_BSEND_OVERHEAD;
        char *bbuf = malloc((size_t)bufsize);
        MPI_OK(MPI_Buffer_attach(bbuf, bufsize));
        rc = MPI_Buffer_attach(bbuf, bufsize);
        CHECK(mt_class(rc) == MPI_ERR_BUFFER, "second Buffer_attach: class %d", mt_class(rc));
        unsigned char *big = malloc(BIG);
        mt_fill(big, BIG, 99);
        MPI_OK(MPI_Bsend(big, BIG, MPI_BYTE, peer, 21, MPI_COMM_WORLD));
        mt_fill(big, BIG, 0);     /* the message was copied: the user buffer is free */
        for (int i = 0; i < NB; i++) {
            for (int j = 0; j < 64; j++)
                small[i][j] = i * 1000 + j;
            MPI_Request r;
            if (i % 2)
                MPI_OK(MPI_Bsend(small[i], 64, MPI_INT, peer, 22, MPI_COMM_WORLD));
            else {
                MPI_OK(MPI_Ibsend(small[i], 64, MPI_INT, peer, 22, MPI_COMM_WORLD, &r));
                MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            memset(small[i], 0, sizeof(small[i]));
        }
        /* The big message cannot have left (the receiver waits for "go"): no room. */
        rc = MPI_Bsend(big, BIG, MPI_BYTE, peer, 23, MPI_COMM_WORLD);
        CHECK(mt_class(rc) == MPI_ERR_BUFFER, "Bsend beyond the buffer: class %d", mt_class(rc));
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 24, MPI_COMM_WORLD));    /* go */
        void *back;
        int backsize;
        MPI_OK(MPI_Buffer_detach(&back, &backsize));
        CHECK(back == bbuf && backsize == bufsize, "Buffer_detach gave %p/%d", back, backsize);
        MPI_OK(MPI_Buffer_detach(&back, &backsize));
        CHECK(back == NULL && backsize == 0, "second detach gave %p/%d", back, backsize);
        free(bbuf);
        free(big);
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    } else {
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        unsigned char *big = malloc(BIG);
        MPI_OK(MPI_Recv(big, BIG, MPI_BYTE, peer, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(mt_verify(big, BIG, 99) < 0, "Bsend big data");
        for (int i = 0; i < NB; i++) {
            MPI_OK(MPI_Recv(small[i], 64, MPI_INT, peer, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int j = 0; j < 64; j++)
                CHECK(small[i][j] == i * 1000 + j, "Bsend message %d element %d: %d", i, j, small[i][j]);
        }
        int flag;
        MPI_OK(MPI_Iprobe(peer, 23, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "the failed Bsend sent a message");
        free(big);
    }
}

static void replace(int peer)
{
    const int n = 800000;    /* 3.2 MB */
    int *a = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        a[i] = mt_rank * n + i;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv_replace(a, n, MPI_INT, peer, 30, peer, 30, MPI_COMM_WORLD, &st));
    for (int i = 0; i < n; i++)
        CHECK(a[i] == peer * n + i, "Sendrecv_replace element %d: %d", i, a[i]);
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 30, "Sendrecv_replace status %d/%d", st.MPI_SOURCE, st.MPI_TAG);

    /* Derived: the odd elements of 10 ints swap with the peer's. */
    MPI_Datatype odd;
    MPI_OK(MPI_Type_vector(5, 1, 2, MPI_INT, &odd));
    MPI_OK(MPI_Type_commit(&odd));
    int b[10];
    for (int i = 0; i < 10; i++)
        b[i] = mt_rank * 100 + i;
    MPI_OK(MPI_Sendrecv_replace(b + 1, 1, odd, peer, 31, peer, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 10; i++)
        CHECK(b[i] == (i % 2 ? peer : mt_rank) * 100 + i, "derived Sendrecv_replace element %d: %d", i, b[i]);
    MPI_OK(MPI_Type_free(&odd));

    /* One direction only: rank 0 sends, rank 1 receives. */
    int c = mt_rank ? -1 : 4242;
    MPI_OK(MPI_Sendrecv_replace(&c, 1, MPI_INT, mt_rank ? MPI_PROC_NULL : peer, 32,
                                mt_rank ? peer : MPI_PROC_NULL, 32, MPI_COMM_WORLD, &st));
    CHECK(c == 4242, "one-way Sendrecv_replace gave %d", c);
    if (mt_rank == 0)
        CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL receive status %d/%d",
              st.MPI_SOURCE, st.MPI_TAG);
    free(a);
}

static void proc_null(void)
{
    int x = 5, count = -1, flag = 0;
    MPI_Status st;
    MPI_Request r[4];
    MPI_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Ssend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(x == 5 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "Recv from MPI_PROC_NULL: x %d source %d tag %d count %d", x, st.MPI_SOURCE, st.MPI_TAG, count);
    MPI_OK(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Issend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[2]));
    MPI_OK(MPI_Irsend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[3]));
    MPI_OK(MPI_Wait(&r[1], &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "Irecv PROC_NULL status");
    MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL, "Iprobe PROC_NULL");
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run on 2 ranks");
    int peer = 1 - mt_rank;
    synchronous(peer);
    ready(peer);
    buffered(peer);
    replace(peer);
    proc_null();
    if (mt_rank == 0)
        printf("modes: ssend, rsend, bsend, sendrecv_replace, proc_null ok\n");
    MPI_OK(MPI_Finalize());
    return 0;
}
