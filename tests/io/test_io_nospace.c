/*
 * A file system that fills up during a write: every rank of a collective
 * write gets MPI_ERR_NO_SPACE (MPI-4.1 14.7: the error classes of I/O) and
 * none hangs, whichever rank's write failed. The full file system is made
 * per process with RLIMIT_FSIZE (writes past the limit fail with EFBIG,
 * which is "no space" for that process), so the test needs no mount: the
 * limit is set after MPI_Init, when the shared-memory segments exist.
 *
 * Usage: test_io_nospace <dir>
 */
#include <signal.h>
#include <sys/resource.h>
#include "../mpi/mpi_test.h"

enum { LIMIT = 4096, PER_RANK = 8192 };

static int rank, nprocs;

static void expect_nospace(int rc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int l = 0;
    CHECK(rc != MPI_SUCCESS && mt_class(rc) == MPI_ERR_NO_SPACE, "%s: class %d, expected MPI_ERR_NO_SPACE (%d)",
          what, mt_class(rc), MPI_ERR_NO_SPACE);
    MPI_Error_string(rc, s, &l);
    CHECK(strstr(s, "MPI_File_write") != NULL && strstr(s, "nospace") != NULL,
          "%s: message '%s' names neither the call nor the file", what, s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mt_rank = rank;
    CHECK(argc > 1, "usage: test_io_nospace <dir>");
    char path[4096];
    snprintf(path, sizeof(path), "%s/nospace_np%d.dat", argv[1], nprocs);
    MPI_File fh;
    mt_open_empty(path, &fh);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = { LIMIT, LIMIT }, old;
    getrlimit(RLIMIT_FSIZE, &old);
    lim.rlim_max = old.rlim_max;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");

    /* 1. collective, bytes interleaved: the aggregators fail part-way */
    MPI_Datatype ft;
    MPI_OK(MPI_Type_vector(PER_RANK, 1, nprocs, MPI_BYTE, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_File_set_view(fh, rank, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    static char buf[PER_RANK];
    memset(buf, 'a' + rank, sizeof(buf));
    expect_nospace(MPI_File_write_all(fh, buf, PER_RANK, MPI_BYTE, MPI_STATUS_IGNORE), "write_all");
    /* 2. collective without collective buffering: each rank's own write fails */
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", "disable"));
    MPI_OK(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
    expect_nospace(MPI_File_write_at_all(fh, 0, buf, PER_RANK, MPI_BYTE, MPI_STATUS_IGNORE), "write_at_all");
    /* 3. independent, only on the last rank; the others go on */
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    if (rank == nprocs - 1)
        expect_nospace(MPI_File_write_at(fh, LIMIT - 10, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE), "write_at");
    else
        MPI_OK(MPI_File_write_at(fh, rank, buf, 1, MPI_BYTE, MPI_STATUS_IGNORE));
    setrlimit(RLIMIT_FSIZE, &old);
    /* after the failure the file is still usable */
    MPI_OK(MPI_File_write_at_all(fh, (MPI_Offset)LIMIT + rank * 16, buf, 16, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_Offset size;
    MPI_OK(MPI_File_get_size(fh, &size));
    CHECK(size == LIMIT + nprocs * 16, "size %lld after the limit was lifted", (long long)size);
    MPI_OK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
        printf("test_io_nospace: %d ranks: MPI_ERR_NO_SPACE on every rank of collective writes, no hang\n", nprocs);
    }
    MPI_Finalize();
    return 0;
}
