/*
 * The environment on any number of ranks (also as a singleton, and compiled
 * by the mpicc wrapper): Initialized/Finalized around Init_thread, the thread
 * level, versions (callable before Init), Wtime/Wtick, the processor name,
 * predefined attributes, MPI_COMM_SELF, and the ABI facts programs built for
 * MPICH rely on (status layout, handle values, sentinels).
 */
#include <stddef.h>
#include "mpi_test.h"

_Static_assert(sizeof(MPI_Status) == 5 * sizeof(int), "MPI_Status is five ints");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 8 && offsetof(MPI_Status, MPI_TAG) == 12 &&
               offsetof(MPI_Status, MPI_ERROR) == 16, "MPI_Status field offsets");
_Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8, "address sizes");
_Static_assert(MPI_COMM_WORLD == 0x44000000 && MPI_INT == 0x4c000405 && MPI_REQUEST_NULL == 0x2c000000,
               "MPICH handle values");

int main(int argc, char **argv)
{
    int flag = -1, prov = -1, size, v, sv, len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag == 0, "Initialized before Init");
    MPI_OK(MPI_Get_version(&v, &sv));
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION && v == 4 && sv == 1, "version %d.%d", v, sv);
    MPI_OK(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len == (int)strlen(lib) && strstr(lib, "rdmach"), "library version '%s'", lib);

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(prov == MPI_THREAD_MULTIPLE, "provided %d for MULTIPLE", prov);
    MPI_OK(MPI_Query_thread(&v));
    CHECK(v == prov, "Query_thread %d", v);
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK(flag, "Is_thread_main");
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag, "Initialized after Init");
    MPI_OK(MPI_Finalized(&flag));
    CHECK(!flag, "Finalized before Finalize");

    double t0 = MPI_Wtime(), tick = MPI_Wtick(), t1 = MPI_Wtime();
    CHECK(tick > 0 && tick < 1e-3 && t1 >= t0, "Wtime %f %f tick %g", t0, t1, tick);
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_OK(MPI_Get_processor_name(host, &len));
    CHECK(len > 0 && len == (int)strlen(host), "processor name '%s'", host);

    int *val;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag));
    CHECK(flag && *val >= 32767, "MPI_TAG_UB");
    int tag_ub = *val;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &val, &flag));
    CHECK(flag && (*val == MPI_PROC_NULL || (*val >= 0 && *val < size)), "MPI_HOST");
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &val, &flag));
    CHECK(flag && (*val == MPI_ANY_SOURCE || *val == mt_rank), "MPI_IO %d", *val);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag));
    CHECK(flag && (*val == 0 || *val == 1), "MPI_WTIME_IS_GLOBAL");
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag));
    CHECK(!flag || *val >= size, "MPI_UNIVERSE_SIZE");
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag));
    CHECK(!flag || *val == 0, "MPI_APPNUM");
    MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag));
    CHECK(flag && *val == tag_ub, "Attr_get(MPI_TAG_UB)");

    /* The largest tag works, on MPI_COMM_SELF. */
    int x = 7, y = 0;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, 0, tag_ub, &y, 1, MPI_INT, 0, tag_ub, MPI_COMM_SELF, &st));
    CHECK(y == 7 && st.MPI_TAG == tag_ub && st.MPI_SOURCE == 0, "self message");
    MPI_OK(MPI_Comm_size(MPI_COMM_SELF, &v));
    CHECK(v == 1, "size of MPI_COMM_SELF %d", v);

    MPI_OK(MPI_Finalize());
    MPI_OK(MPI_Finalized(&flag));
    CHECK(flag, "Finalized after Finalize");
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag, "Initialized after Finalize");
    if (mt_rank == 0)
        printf("env: %s on %s, %d ranks, MPI_TAG_UB %d\n", lib, host, size, tag_ub);
    return 0;
}
