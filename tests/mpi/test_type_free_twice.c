/*
 * MPI_Type_free through a copy of a handle already freed (MPI 4.1 §5.1.9:
 * the call sets the handle to MPI_DATATYPE_NULL; "any communication that is
 * currently using this datatype will complete normally"): while a receive
 * still uses the type, the second free is MPI_ERR_TYPE and the receive
 * completes with its data; a handle that MPI_Type_get_contents returned is
 * the user's again and is freed once more, not twice.
 */
#include "mpi_test.h"

#define N 1000

int main(int argc, char **argv)
{
    int me, np;
    mt_init(&argc, &argv, &me, &np);
    CHECK(np == 2, "run on 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);   /* errors of no communicator go there */
    int buf[2 * N];

    /* a receive holds its type; the copy's free must not drop that reference */
    MPI_Datatype t, copy;
    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    if (me == 1) {
        for (int i = 0; i < 2 * N; i++)
            buf[i] = -1;
        MPI_Request r;
        MPI_OK(MPI_Irecv(buf, 1, t, 0, 7, MPI_COMM_WORLD, &r));
        copy = t;
        MPI_OK(MPI_Type_free(&t));
        CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free left the handle 0x%x", (unsigned)t);
        int rc = MPI_Type_free(&copy), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TYPE, "a second MPI_Type_free through a copy returned class %d, expected "
              "MPI_ERR_TYPE", cls);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < 2 * N; i++)
            CHECK(buf[i] == (i % 2 ? -1 : 5 * (i / 2) + 3), "buf[%d] = %d after the receive", i, buf[i]);
    } else {
        MPI_OK(MPI_Type_free(&t));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i < N; i++)
            buf[i] = 5 * i + 3;
        MPI_OK(MPI_Send(buf, N, MPI_INT, 1, 7, MPI_COMM_WORLD));
    }

    /* get_contents gives the user a new reference to a constituent */
    MPI_Datatype c, v, got[1];
    int ints[3];
    MPI_Aint addrs[1];
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &c));
    MPI_OK(MPI_Type_vector(3, 1, 4, c, &v));
    MPI_OK(MPI_Type_free(&c));
    MPI_OK(MPI_Type_get_contents(v, 3, 0, 1, ints, addrs, got));
    MPI_Datatype again = got[0];
    MPI_OK(MPI_Type_free(&got[0]));
    int rc = MPI_Type_free(&again), cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "freeing get_contents' handle twice returned class %d, expected MPI_ERR_TYPE", cls);
    int size = 0;
    MPI_OK(MPI_Type_size(v, &size));
    CHECK(size == 24, "the vector's size is %d after its constituent was freed, expected 24", size);
    MPI_OK(MPI_Type_free(&v));
    if (me == 0)
        printf("second frees refused with MPI_ERR_TYPE; the pending receive and the vector unaffected\n");
    MPI_Finalize();
    return 0;
}
