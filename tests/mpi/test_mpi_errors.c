/*
 * Argument checking. With MPI_ERRORS_RETURN every bad argument gives its
 * error class and a message naming the call and the argument, and sends
 * nothing; a user error handler is called with the code; with the default
 * MPI_ERRORS_ARE_FATAL ("fatal" argument) an invalid rank ends the job with
 * the message (checked by ctest through expect_fail.sh).
 */
#include "mpi_test.h"

static int handler_calls, handler_class;
static MPI_Comm handler_comm;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    handler_class = mt_class(*code);
}

static void expect(int rc, int cls, const char *what, const char *word)
{
    CHECK(rc != MPI_SUCCESS && mt_class(rc) == cls, "%s: got %d (class %d), expected class %d", what, rc,
          mt_class(rc), cls);
    char s[MPI_MAX_ERROR_STRING];
    int len = -1;
    MPI_OK(MPI_Error_string(rc, s, &len));
    CHECK(len == (int)strlen(s) && len > 0, "%s: Error_string length %d", what, len);
    CHECK(!word || strstr(s, word), "%s: message '%s' does not mention '%s'", what, s, word);
}

int main(int argc, char **argv)
{
    int size, x[4] = { 0 };
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        MPI_Send(x, 1, MPI_INT, 7, 0, MPI_COMM_WORLD);     /* 7 >= size: must not return */
        printf("[rank %d] MPI_Send with an invalid rank returned under MPI_ERRORS_ARE_FATAL\n", mt_rank);
        MPI_Finalize();
        return 0;
    }

    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler 0x%x", (unsigned)eh);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int peer = (mt_rank + 1) % size;
    MPI_Status st;
    MPI_Request rq;

    expect(MPI_Send(x, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "Send dest=size", "dest");
    expect(MPI_Send(x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "Send dest=-5", "dest");
    expect(MPI_Send(x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "Send dest=ANY_SOURCE", "dest");
    expect(MPI_Recv(x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK, "Recv source", "source");
    expect(MPI_Isend(x, 1, MPI_INT, peer, -1, MPI_COMM_WORLD, &rq), MPI_ERR_TAG, "Isend tag=-1", "tag");
    expect(MPI_Send(x, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG, "Send tag=ANY_TAG", "tag");
    expect(MPI_Irecv(x, 1, MPI_INT, peer, -7, MPI_COMM_WORLD, &rq), MPI_ERR_TAG, "Irecv tag=-7", "tag");
    expect(MPI_Send(x, -1, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "Send count=-1", "count");
    expect(MPI_Recv(x, -2, MPI_INT, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT, "Recv count=-2", "count");
    expect(MPI_Send(x, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "Send MPI_DATATYPE_NULL", "datatype");
    expect(MPI_Send(x, 1, (MPI_Datatype)0x1234, peer, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "Send garbage type", "datatype");
    MPI_Datatype unc;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &unc));
    expect(MPI_Send(x, 1, unc, peer, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "Send uncommitted type", "commit");
    MPI_OK(MPI_Type_free(&unc));
    expect(MPI_Send(x, 1, MPI_INT, peer, 0, MPI_COMM_NULL), MPI_ERR_COMM, "Send MPI_COMM_NULL", "comm");
    expect(MPI_Send(x, 1, MPI_INT, peer, 0, (MPI_Comm)0x12345), MPI_ERR_COMM, "Send garbage comm", "comm");
    expect(MPI_Recv(x, 1, MPI_INT, peer, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM, "Recv MPI_COMM_NULL", "comm");
    expect(MPI_Send(NULL, 4, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "Send NULL buffer", "buf");
    expect(MPI_Recv(NULL, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER, "Recv NULL buffer", "buf");
    expect(MPI_Isend(x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "Isend NULL request", "request");
    MPI_Request bad = (MPI_Request)0x2c001234;
    expect(MPI_Wait(&bad, &st), MPI_ERR_REQUEST, "Wait garbage request", "request");
    MPI_Request arr[2] = { MPI_REQUEST_NULL, (MPI_Request)0xac00ffff };
    expect(MPI_Waitall(2, arr, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, "Waitall garbage request", "array_of_requests[1]");
    expect(MPI_Waitall(-1, arr, MPI_STATUSES_IGNORE), MPI_ERR_COUNT, "Waitall count=-1", "count");
    expect(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, x), MPI_ERR_ARG, "Get_count STATUS_IGNORE", "status");
    MPI_Comm newc;
    expect(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &newc), MPI_ERR_ARG, "Comm_split color=-5", "color");
    MPI_Comm world = MPI_COMM_WORLD;
    expect(MPI_Comm_free(&world), MPI_ERR_COMM, "Comm_free(MPI_COMM_WORLD)", "MPI_COMM_WORLD");
    expect(MPI_Init(&argc, &argv), MPI_ERR_OTHER, "second MPI_Init", "already");
    expect(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)0x777), MPI_ERR_ARG, "set garbage errhandler", "errhandler");
    int cls = -1;
    MPI_OK(MPI_Error_class(MPI_ERR_TRUNCATE, &cls));
    CHECK(cls == MPI_ERR_TRUNCATE, "Error_class of a class: %d", cls);

    /* A user handler on a duplicate of world: called with the communicator and the code. */
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Errhandler mine;
    MPI_OK(MPI_Comm_create_errhandler(my_handler, &mine));
    MPI_OK(MPI_Comm_set_errhandler(dup, mine));
    MPI_OK(MPI_Errhandler_free(&mine));
    CHECK(mine == MPI_ERRHANDLER_NULL, "Errhandler_free did not reset the handle");
    int rc = MPI_Send(x, 1, MPI_INT, size + 1, 0, dup);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_RANK && handler_comm == dup,
          "user handler: %d calls, class %d", handler_calls, handler_class);
    CHECK(mt_class(rc) == MPI_ERR_RANK, "Send on dup returned class %d", mt_class(rc));
    MPI_OK(MPI_Comm_get_errhandler(dup, &eh));
    MPI_OK(MPI_Comm_free(&dup));

    /* Nothing was sent by the failed calls: the next message with tag 0 is this one. */
    int v = 1000 + mt_rank, w = -1;
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, peer, 0, &w, 1, MPI_INT, (mt_rank + size - 1) % size, 0, MPI_COMM_WORLD, &st));
    CHECK(w == 1000 + (mt_rank + size - 1) % size, "after the errors: got %d", w);
    int flag = 1;
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a failed call sent a message (tag %d from %d)", st.MPI_TAG, st.MPI_SOURCE);
    if (mt_rank == 0)
        printf("errors: every class checked\n");
    MPI_OK(MPI_Finalize());
    return 0;
}
