/*
 * MPI-4.1 3.6.1: buffers attached to a communicator and to a session, and
 * which one a buffered send uses (the communicator's, else its session's,
 * else the process's); MPI_BUFFER_AUTOMATIC; Buffer_flush/iflush and the
 * communicator/session variants; argument errors. Rank 0 sends to rank 1.
 */
#include "mpi_test.h"

#define BIG 4096                  /* ints: does not fit the process's small buffer */

static void send_or_check(MPI_Comm c, int rank, int tag, int expect_rc_class)
{
    static int data[BIG];
    if (rank == 0) {
        for (int i = 0; i < BIG; i++)
            data[i] = i * 3 + tag;
        int rc = MPI_Bsend(data, BIG, MPI_INT, 1, tag, c);
        CHECK(mt_class(rc) == expect_rc_class, "Bsend (tag %d): class %d, expected %d", tag, mt_class(rc),
              expect_rc_class);
    } else if (rank == 1 && expect_rc_class == MPI_SUCCESS) {
        MPI_OK(MPI_Recv(data, BIG, MPI_INT, 0, tag, c, MPI_STATUS_IGNORE));
        for (int i = 0; i < BIG; i++)
            CHECK(data[i] == i * 3 + tag, "tag %d: data[%d] = %d", tag, i, data[i]);
    }
}

int main(int argc, char **argv)
{
    int rank, np, size, rc;
    void *addr;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    mt_rank = rank;
    CHECK(np >= 2, "needs 2 ranks");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    static char small[256], cbuf[BIG * sizeof(int) + MPI_BSEND_OVERHEAD], sbuf[BIG * sizeof(int) + MPI_BSEND_OVERHEAD];
    MPI_OK(MPI_Buffer_attach(small, sizeof(small)));
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_attach_buffer(dup, cbuf, sizeof(cbuf)));
    rc = MPI_Comm_attach_buffer(dup, cbuf, sizeof(cbuf));
    CHECK(mt_class(rc) == MPI_ERR_BUFFER, "attaching twice: class %d", mt_class(rc));
    send_or_check(MPI_COMM_WORLD, rank, 1, MPI_ERR_BUFFER);   /* the process's 256 bytes */
    send_or_check(dup, rank, 2, MPI_SUCCESS);                  /* the communicator's */
    MPI_OK(MPI_Comm_flush_buffer(dup));
    MPI_OK(MPI_Comm_detach_buffer(dup, &addr, &size));
    CHECK(addr == cbuf && size == (int)sizeof(cbuf), "Comm_detach_buffer gave %p %d", addr, size);
    send_or_check(dup, rank, 3, MPI_ERR_BUFFER);               /* back to the process's */

    /* A session's buffer serves the communicators made from its groups. */
    MPI_Session s;
    MPI_Group g;
    MPI_Comm sc;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_OK(MPI_Comm_create_from_group(g, "org.rdmach.test.bsend", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
    MPI_OK(MPI_Group_free(&g));
    send_or_check(sc, rank, 4, MPI_ERR_BUFFER);
    MPI_OK(MPI_Session_attach_buffer(s, sbuf, sizeof(sbuf)));
    send_or_check(sc, rank, 5, MPI_SUCCESS);
    MPI_Request r;
    MPI_OK(MPI_Session_iflush_buffer(s, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Session_detach_buffer(s, &addr, &size));
    CHECK(addr == sbuf && size == (int)sizeof(sbuf), "Session_detach_buffer gave %p %d", addr, size);
    MPI_OK(MPI_Comm_free(&sc));
    MPI_OK(MPI_Session_finalize(&s));

    /* MPI_BUFFER_AUTOMATIC: any size, many at once. */
    MPI_OK(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == small && size == (int)sizeof(small), "Buffer_detach gave %p %d", addr, size);
    MPI_OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    for (int t = 10; t < 14; t++)
        send_or_check(MPI_COMM_WORLD, rank, t, MPI_SUCCESS);
    MPI_OK(MPI_Buffer_iflush(&r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Buffer_flush());
    MPI_OK(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == MPI_BUFFER_AUTOMATIC, "Buffer_detach of MPI_BUFFER_AUTOMATIC gave %p", addr);

    /* Argument errors. */
    rc = MPI_Comm_attach_buffer(MPI_COMM_NULL, cbuf, 16);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "MPI_COMM_NULL: class %d", mt_class(rc));
    rc = MPI_Comm_attach_buffer(dup, cbuf, -1);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "negative size: class %d", mt_class(rc));
    rc = MPI_Session_flush_buffer(MPI_SESSION_NULL);
    CHECK(mt_class(rc) == MPI_ERR_SESSION, "MPI_SESSION_NULL: class %d", mt_class(rc));
    rc = MPI_Comm_iflush_buffer(dup, NULL);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "NULL request: class %d", mt_class(rc));
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Finalize());
    if (rank == 0)
        printf("bsend attach np %d: comm, session, process and automatic buffers ok\n", np);
    return 0;
}
