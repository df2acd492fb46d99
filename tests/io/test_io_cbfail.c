/*
 * Collective buffering under failure and with huge buffers.
 *
 * 1. RDMACH_IO_FAIL_ALLOC=r:n makes the n-th allocation step of collective
 *    buffering on rank r fail (an aggregator's window buffer, then one step
 *    per round), in the middle of a collective write's rounds (4 KiB
 *    rounds, bytes interleaved between the ranks). MPI-4.1 14.7 and
 *    the issue: the error reaches every rank of the call, with the class of
 *    the failure (MPI_ERR_NO_MEM), and no rank hangs; the file stays usable
 *    (the next collective write and read give the right bytes).
 *    With n = 0 the arrays made at the first MPI_File_open fail: the open fails with
 *    MPI_ERR_NO_MEM on every rank, none hangs in the open's exchanges.
 * 2. A cb_buffer_size of 8 GiB and of 2^63-1 bytes: MPI_File_get_info
 *    reports the size in effect (at most 1 GiB: a window larger than that
 *    buys nothing), and collective writes and reads through it move every
 *    byte (2^63-1 used to overflow the count of rounds: nothing written).
 *
 * Usage: test_io_cbfail <dir>
 */
#include <stdlib.h>
#include "../mpi/mpi_test.h"

enum { PER_RANK = 65536, TRIES = 8 };

static int rank, nprocs;

/* File byte i * P + r is rank r's byte i: pattern id seed + r. */
static void interleave(MPI_File fh, MPI_Datatype *ft)
{
    MPI_OK(MPI_Type_vector(PER_RANK, 1, nprocs, MPI_BYTE, ft));
    MPI_OK(MPI_Type_commit(ft));
    MPI_OK(MPI_File_set_view(fh, rank, MPI_BYTE, *ft, "native", MPI_INFO_NULL));
}

static void write_read_check(MPI_File fh, unsigned seed, const char *what)
{
    static unsigned char w[PER_RANK], r[PER_RANK];
    mt_fill(w, PER_RANK, seed + rank);
    MPI_OK(MPI_File_write_at_all(fh, 0, w, PER_RANK, MPI_BYTE, MPI_STATUS_IGNORE));
    memset(r, 0, sizeof(r));
    MPI_Status st;
    int cnt;
    MPI_OK(MPI_File_read_at_all(fh, 0, r, PER_RANK, MPI_BYTE, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == PER_RANK && !memcmp(w, r, PER_RANK), "%s: read back count %d, data %s", what, cnt,
          memcmp(w, r, PER_RANK) ? "differs" : "equal");
    /* my neighbour's bytes too: the file, not just my own buffer */
    int nb = (rank + 1) % nprocs;
    MPI_Datatype ft;
    MPI_OK(MPI_Type_vector(PER_RANK, 1, nprocs, MPI_BYTE, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_File_set_view(fh, nb, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_read_at_all(fh, 0, r, PER_RANK, MPI_BYTE, MPI_STATUS_IGNORE));
    mt_fill(w, PER_RANK, seed + nb);
    CHECK(!memcmp(w, r, PER_RANK), "%s: rank %d's bytes in the file differ", what, nb);
    MPI_OK(MPI_File_set_view(fh, rank, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_Type_free(&ft));
}

static void test_failure(const char *dir)
{
    const char *inj = getenv("RDMACH_IO_FAIL_ALLOC");
    int victim = -1;
    long nth = 0;
    if (!inj || sscanf(inj, "%d:%ld", &victim, &nth) != 2)
        return;
    char path[4096];
    snprintf(path, sizeof(path), "%s/cbfail_np%d.dat", dir, nprocs);
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", "enable"));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", "enable"));
    MPI_OK(MPI_Info_set(info, "cb_buffer_size", "4096"));
    MPI_File fh;
    if (nth == 0) {
        /* the arrays made at open: the open fails on every rank */
        int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                               info, &fh);
        CHECK(rc != MPI_SUCCESS && mt_class(rc) == MPI_ERR_NO_MEM,
              "MPI_File_open with rank %d's arrays failing: class %d, expected MPI_ERR_NO_MEM (%d)", victim,
              rc == MPI_SUCCESS ? 0 : mt_class(rc), MPI_ERR_NO_MEM);
        CHECK(fh == MPI_FILE_NULL, "a failed MPI_File_open left a file handle");
        MPI_Info_free(&info);
        if (rank == 0)
            printf("test_io_cbfail: rank %d's arrays at open failed: MPI_ERR_NO_MEM on all %d ranks\n", victim,
                   nprocs);
        return;
    }
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info,
                         &fh));
    MPI_Info_free(&info);
    MPI_Datatype ft;
    interleave(fh, &ft);
    static unsigned char w[PER_RANK];
    mt_fill(w, PER_RANK, 1 + rank);
    int failed_at = -1, cls = 0;
    for (int t = 0; t < TRIES && failed_at < 0; t++) {
        int rc = MPI_File_write_all(fh, w, PER_RANK, MPI_BYTE, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            failed_at = t, cls = mt_class(rc);
    }
    CHECK(failed_at >= 0, "no collective write failed in %d tries (RDMACH_IO_FAIL_ALLOC=%s)", TRIES, inj);
    CHECK(cls == MPI_ERR_NO_MEM, "class %d, expected MPI_ERR_NO_MEM (%d)", cls, MPI_ERR_NO_MEM);
    int lo, hi;
    MPI_OK(MPI_Allreduce(&failed_at, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    MPI_OK(MPI_Allreduce(&failed_at, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(lo == hi, "the failure reached the ranks in different calls (%d..%d)", lo, hi);
    write_read_check(fh, 50, "after the failure");
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&ft));
    if (rank == 0)
        printf("test_io_cbfail: rank %d's allocation step %ld failed: MPI_ERR_NO_MEM on all %d ranks in call %d\n",
               victim, nth, nprocs, failed_at);
}

static void test_huge_buffer(const char *dir, const char *size, int k)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/cbhuge%d_np%d.dat", dir, k, nprocs);
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", "enable"));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", "enable"));
    MPI_OK(MPI_Info_set(info, "cb_buffer_size", size));
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info,
                         &fh));
    MPI_Info_free(&info);
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_OK(MPI_File_get_info(fh, &used));
    MPI_OK(MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, v, &flag));
    MPI_Info_free(&used);
    CHECK(flag && strtoll(v, NULL, 10) == 1LL << 30, "cb_buffer_size %s reported as '%s', not the 1 GiB in effect",
          size, flag ? v : "(none)");
    MPI_Datatype ft;
    interleave(fh, &ft);
    write_read_check(fh, 100 + 10 * k, size);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&ft));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mt_rank = rank;
    CHECK(argc > 1, "usage: test_io_cbfail <dir>");
    test_failure(argv[1]);
    test_huge_buffer(argv[1], "8589934592", 1);
    test_huge_buffer(argv[1], "9223372036854775807", 2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_io_cbfail: %d ranks: cb_buffer_size 8 GiB and 2^63-1 in effect as 1 GiB, every byte moved\n",
               nprocs);
    MPI_Finalize();
    return 0;
}
