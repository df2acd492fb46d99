/*
 * Argument checks of the collectives and of MPI_Op. With MPI_ERRORS_RETURN
 * each bad call returns its error class and a message naming the function
 * and the argument; every rank that makes a bad call detects it locally,
 * before any communication, so the others are never left waiting. After
 * the errors the communicators still work (a correct collective follows).
 * Also: counts that differ between ranks are reported (MPI_ERR_TRUNCATE at
 * the receiver), not truncated silently.
 *
 * Run on 2 or more ranks. With the argument "fatal", a collective with an
 * invalid root under the default MPI_ERRORS_ARE_FATAL ends the job.
 */
#include "mpi_test.h"

static void expect(int rc, int cls, const char *what, const char *needle)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK(rc != MPI_SUCCESS, "%s succeeded; expected error class %d", what, cls);
    CHECK(mt_class(rc) == cls, "%s gave class %d, expected %d", what, mt_class(rc), cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, needle) != NULL, "%s: message \"%s\" does not mention \"%s\"", what, msg, needle);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

int main(int argc, char **argv)
{
    int size, buf[64] = { 0 }, out[64] = { 0 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "run on 2 or more ranks");

    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        MPI_Bcast(buf, 1, MPI_INT, size + 3, MPI_COMM_WORLD);
        CHECK(0, "MPI_Bcast with an invalid root returned under MPI_ERRORS_ARE_FATAL");
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm comm = MPI_COMM_WORLD;

    /* every rank: locally detectable errors */
    expect(MPI_Bcast(buf, 1, MPI_INT, size, comm), MPI_ERR_ROOT, "Bcast root=size", "argument root");
    expect(MPI_Bcast(buf, 1, MPI_INT, -1, comm), MPI_ERR_ROOT, "Bcast root=-1", "invalid root -1");
    expect(MPI_Bcast(buf, -1, MPI_INT, 0, comm), MPI_ERR_COUNT, "Bcast count=-1", "argument count");
    expect(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, comm), MPI_ERR_TYPE, "Bcast null type",
           "argument datatype");
    expect(MPI_Bcast(NULL, 4, MPI_INT, 0, comm), MPI_ERR_BUFFER, "Bcast NULL buffer", "argument buffer");
    expect(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, "Bcast COMM_NULL", "comm");
    expect(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "Barrier COMM_NULL", "MPI_Barrier");
    MPI_Datatype unc;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &unc));
    expect(MPI_Allgather(buf, 1, unc, out, 1, MPI_INT, comm), MPI_ERR_TYPE, "Allgather uncommitted",
           "not committed");
    expect(MPI_Allgather(buf, 1, MPI_INT, out, 1, unc, comm), MPI_ERR_TYPE, "Allgather uncommitted recv",
           "argument recvtype");
    MPI_OK(MPI_Type_free(&unc));

    expect(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP, "Allreduce OP_NULL",
           "argument op");
    expect(MPI_Allreduce(buf, out, 1, MPI_BYTE, MPI_SUM, comm), MPI_ERR_OP, "SUM on MPI_BYTE",
           "MPI_SUM is not defined for MPI_BYTE");
    expect(MPI_Allreduce(buf, out, 1, MPI_DOUBLE, MPI_BAND, comm), MPI_ERR_OP, "BAND on MPI_DOUBLE",
           "MPI_DOUBLE");
    expect(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_MAXLOC, comm), MPI_ERR_OP, "MAXLOC on MPI_INT",
           "MPI_MAXLOC");
    expect(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_REPLACE, comm), MPI_ERR_OP, "Allreduce REPLACE",
           "one-sided");
    expect(MPI_Allreduce(buf, buf, 4, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER, "Allreduce aliased",
           "MPI_IN_PLACE");
    expect(MPI_Allreduce(buf, out, -2, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT, "Allreduce count",
           "negative count");
    expect(MPI_Alltoall(buf, 2, MPI_INT, out, 1, MPI_INT, comm), MPI_ERR_TRUNCATE,
           "Alltoall send 2 recv 1", "sends 8 bytes to itself but receives 4");
    expect(MPI_Alltoall(buf, 1, MPI_INT, out, 2, MPI_INT, comm), MPI_ERR_ARG,
           "Alltoall send 1 recv 2", "receives 8");
    int negc[64], zeros[64] = { 0 };
    for (int i = 0; i < size; i++)
        negc[i] = i == size - 1 ? -3 : 1;
    expect(MPI_Reduce_scatter(buf, out, negc, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT,
           "Reduce_scatter negative count", "recvcounts[");
    expect(MPI_Reduce_scatter(buf, out, NULL, MPI_INT, MPI_SUM, comm), MPI_ERR_ARG,
           "Reduce_scatter NULL counts", "recvcounts");
    expect(MPI_Alltoallv(buf, zeros, NULL, MPI_INT, out, zeros, zeros, MPI_INT, comm), MPI_ERR_ARG,
           "Alltoallv NULL sdispls", "sdispls");
    MPI_Datatype tys[64];
    for (int i = 0; i < size; i++)
        tys[i] = MPI_INT;
    expect(MPI_Alltoallw(buf, zeros, zeros, NULL, out, zeros, zeros, tys, comm), MPI_ERR_ARG,
           "Alltoallw NULL sendtypes", "sendtypes");
    /* a block's datatype is checked where the block has data (MPICH: at count 0 it is not) */
    tys[size - 1] = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Alltoallw(buf, zeros, zeros, tys, out, zeros, zeros, tys, comm));
    int last1[64];
    for (int i = 0; i < size; i++)
        last1[i] = i == size - 1;
    expect(MPI_Alltoallw(buf, last1, zeros, tys, out, zeros, zeros, tys, comm), MPI_ERR_TYPE,
           "Alltoallw a NULL type", "sendtypes");

    /* non-roots only: MPI_IN_PLACE where only the root may use it (the root
     * does not call, and nobody communicates before the check fails) */
    if (mt_rank != 0) {
        expect(MPI_Reduce(MPI_IN_PLACE, out, 1, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_BUFFER,
               "Reduce IN_PLACE at a non-root", "argument sendbuf");
        expect(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, out, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER,
               "Gather IN_PLACE at a non-root", "MPI_IN_PLACE");
        expect(MPI_Scatter(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER,
               "Scatter IN_PLACE at a non-root", "argument recvbuf");
    } else {
        /* root only: its own send and receive disagree; NULL counts */
        expect(MPI_Gather(buf, 2, MPI_INT, out, 1, MPI_INT, 0, comm), MPI_ERR_TRUNCATE,
               "Gather root sends more than it receives", "root block");
        expect(MPI_Gatherv(buf, 1, MPI_INT, out, NULL, zeros, MPI_INT, 0, comm), MPI_ERR_ARG,
               "Gatherv NULL recvcounts", "argument recvcounts");
        expect(MPI_Scatterv(buf, zeros, zeros, MPI_INT, out, 1, MPI_INT, 0, comm), MPI_ERR_ARG,
               "Scatterv root receives more than it sends", "root block");
    }

    /* ranks disagree on the count: on a 2-rank communicator, rank 0 sends 8
     * ints, rank 1 expects 4 and gets MPI_ERR_TRUNCATE naming both sizes */
    MPI_Comm pair;
    MPI_OK(MPI_Comm_split(comm, mt_rank < 2 ? 0 : MPI_UNDEFINED, mt_rank, &pair));
    if (pair != MPI_COMM_NULL) {
        MPI_OK(MPI_Comm_set_errhandler(pair, MPI_ERRORS_RETURN));
        for (int i = 0; i < 8; i++)
            buf[i] = 100 + i;
        int rc = MPI_Bcast(buf, mt_rank == 0 ? 8 : 4, MPI_INT, 0, pair);
        if (mt_rank == 0)
            MPI_OK(rc);
        else
            expect(rc, MPI_ERR_TRUNCATE, "Bcast with a smaller count than the root's",
                   "expected 16");
        /* the communicator still works */
        buf[0] = mt_rank == 0 ? 4242 : 0;
        MPI_OK(MPI_Bcast(buf, 1, MPI_INT, 0, pair));
        CHECK(buf[0] == 4242, "Bcast after a failed Bcast got %d", buf[0]);
        MPI_OK(MPI_Comm_free(&pair));
    }

    /* MPI_Op objects */
    MPI_Op mine;
    int commute = -1;
    MPI_OK(MPI_Op_create(user_sum, 0, &mine));
    MPI_OK(MPI_Op_commutative(mine, &commute));
    CHECK(commute == 0, "user op created non-commutative reports %d", commute);
    MPI_OK(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK(commute == 1, "MPI_SUM commutative %d", commute);
    int one = 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, mine, comm));
    CHECK(sum == size, "user op sum %d", sum);
    expect(MPI_Op_free(NULL), MPI_ERR_ARG, "Op_free(NULL)", "argument op");
    MPI_Op sumop = MPI_SUM;
    expect(MPI_Op_free(&sumop), MPI_ERR_OP, "Op_free(MPI_SUM)", "predefined");
    MPI_Op stale = mine;
    MPI_OK(MPI_Op_free(&mine));
    CHECK(mine == MPI_OP_NULL, "Op_free left the handle set");
    expect(MPI_Allreduce(&one, &sum, 1, MPI_INT, stale, comm), MPI_ERR_OP, "a freed op",
           "argument op");
    expect(MPI_Op_create(NULL, 1, &mine), MPI_ERR_ARG, "Op_create(NULL fn)", "user_fn");
    expect(MPI_Op_commutative((MPI_Op)0x12345, &commute), MPI_ERR_OP, "Op_commutative(garbage)",
           "argument op");

    /* still in step: a correct collective on world */
    sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == size, "final allreduce %d", sum);
    if (mt_rank == 0)
        printf("coll errors: every bad argument reported with its class and name, %d ranks\n", size);
    MPI_OK(MPI_Finalize());
    return 0;
}
