/*
 * Non-blocking collective I/O through collective buffering: MPI_File_iwrite_all,
 * iread_all, iwrite_at_all, iread_at_all and the split collectives on a view
 * whose pieces interleave at byte granularity (file byte i * P + r is rank
 * r's byte i), read back and compared, and the file's bytes checked with
 * POSIX against the pattern each rank wrote.
 *
 * Between the post and the wait each rank talks to a peer that has not yet
 * posted: the ranks post in a ring, rank r only after a message from rank
 * r - 1 (sent after that rank posted), and rank 0 waits for the ring to
 * close before its wait; a post that waited for the other ranks would
 * deadlock. Two requests are outstanding at once with a blocking collective
 * write of the same file between their posts.
 *
 * Failures (the request fails on every rank, with the class of the failure,
 * and no rank hangs; the file stays usable):
 *  - RDMACH_IO_FAIL_ALLOC=r:n: the n-th allocation step of collective
 *    buffering on rank r fails (the first collective-buffering access of the
 *    process is a non-blocking write: the step is one of its rounds);
 *  - a file system that fills up part-way (RLIMIT_FSIZE, as test_io_nospace);
 *  - one rank's arguments are wrong (a negative count): MPI_ERR_COUNT there
 *    at the call, and from the wait on every other rank.
 *
 * Usage: test_io_nbcoll <dir>
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include "../mpi/mpi_test.h"

enum { PER_RANK = 65536, LIMIT = 8192 };

static int rank, nprocs;
static char path[4096];
static unsigned char wbuf[PER_RANK], rbuf[PER_RANK];

static MPI_File open_interleaved(const char *cb_buffer_size)
{
    MPI_File fh;
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", "enable"));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", "enable"));
    if (cb_buffer_size)
        MPI_OK(MPI_Info_set(info, "cb_buffer_size", cb_buffer_size));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_OK(MPI_File_set_size(fh, 0));
    MPI_Info_free(&info);
    return fh;
}

/* The view: my bytes are file bytes disp + i * P + from (from: a rank's bytes). */
static void view(MPI_File fh, MPI_Offset disp, int from)
{
    MPI_Datatype v, ft;
    MPI_OK(MPI_Type_vector(PER_RANK, 1, nprocs, MPI_BYTE, &v));
    /* tiled every P * PER_RANK bytes: view byte PER_RANK starts the next region */
    MPI_OK(MPI_Type_create_resized(v, 0, (MPI_Aint)PER_RANK * nprocs, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_File_set_view(fh, disp + from, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_free(&ft));
}

/* The ring between the post and the wait (see the top). */
static void talk_around(void)
{
    if (nprocs == 1)
        return;
    int token = 0, from = (rank + nprocs - 1) % nprocs, to = (rank + 1) % nprocs;
    MPI_OK(MPI_Send(&token, 1, MPI_INT, to, 7, MPI_COMM_WORLD));
    if (rank == 0)
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void wait_turn(void)
{
    int token;
    if (rank > 0)
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void expect_count(MPI_Status *st, int n, const char *what)
{
    int cnt = -1;
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &cnt));
    CHECK(cnt == n, "%s: count %d, expected %d", what, cnt, n);
}

/* The file's bytes [base, base + P * PER_RANK): rank r's byte i is
 * mt_byte(seed + r, i), at base + i * P + r (checked by rank 0 with POSIX). */
static void check_file(MPI_File fh, MPI_Offset base, unsigned seed, const char *what)
{
    MPI_OK(MPI_File_sync(fh));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        size_t n = (size_t)PER_RANK * (size_t)nprocs;
        unsigned char *all = malloc(n);
        CHECK(all != NULL, "malloc");
        int fd = open(path, O_RDONLY);
        CHECK(fd >= 0, "open %s", path);
        CHECK(pread(fd, all, n, base) == (ssize_t)n, "%s: short file", what);
        close(fd);
        for (size_t k = 0; k < n; k++)
            CHECK(all[k] == mt_byte(seed + k % nprocs, k / nprocs), "%s: file byte %lld is %u, rank %d's byte %zu",
                  what, (long long)(base + (MPI_Offset)k), all[k], (int)(k % nprocs), k / nprocs);
        free(all);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void write_read(const char *cb, unsigned seed)
{
    MPI_File fh = open_interleaved(cb);
    MPI_Request rq;
    MPI_Status st;
    view(fh, 0, rank);
    mt_fill(wbuf, PER_RANK, seed + rank);
    wait_turn();
    MPI_OK(MPI_File_iwrite_all(fh, wbuf, PER_RANK, MPI_BYTE, &rq));
    talk_around();
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, PER_RANK, "iwrite_all");
    check_file(fh, 0, seed, "iwrite_all");

    memset(rbuf, 0, sizeof(rbuf));
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    wait_turn();
    MPI_OK(MPI_File_iread_all(fh, rbuf, PER_RANK, MPI_BYTE, &rq));
    talk_around();
    MPI_OK(MPI_Wait(&rq, &st));
    expect_count(&st, PER_RANK, "iread_all");
    CHECK(mt_verify(rbuf, PER_RANK, seed + rank) < 0, "iread_all (cb_buffer_size %s): byte %ld differs",
          cb ? cb : "default", mt_verify(rbuf, PER_RANK, seed + rank));

    /* the split forms, on my neighbour's bytes and at explicit offsets */
    int nb = (rank + 1) % nprocs;
    view(fh, 0, nb);
    memset(rbuf, 0, sizeof(rbuf));
    wait_turn();
    MPI_OK(MPI_File_read_at_all_begin(fh, 0, rbuf, PER_RANK, MPI_BYTE));
    talk_around();
    MPI_OK(MPI_File_read_at_all_end(fh, rbuf, &st));
    expect_count(&st, PER_RANK, "read_at_all_end");
    CHECK(mt_verify(rbuf, PER_RANK, seed + nb) < 0, "read_at_all_begin: rank %d's byte %ld differs", nb,
          mt_verify(rbuf, PER_RANK, seed + nb));
    view(fh, 0, rank);
    mt_fill(wbuf, PER_RANK, seed + 50 + rank);
    MPI_OK(MPI_File_write_all_begin(fh, wbuf, PER_RANK, MPI_BYTE));
    MPI_OK(MPI_File_write_all_end(fh, wbuf, &st));
    expect_count(&st, PER_RANK, "write_all_end");
    memset(rbuf, 0, sizeof(rbuf));
    MPI_OK(MPI_File_iread_at_all(fh, 0, rbuf, PER_RANK, MPI_BYTE, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    CHECK(mt_verify(rbuf, PER_RANK, seed + 50 + rank) < 0, "iread_at_all after write_all_begin: byte %ld differs",
          mt_verify(rbuf, PER_RANK, seed + 50 + rank));
    check_file(fh, 0, seed + 50, "write_all_begin");
    MPI_OK(MPI_File_close(&fh));
}

/* Two requests at once, a blocking collective write between their posts:
 * three regions of the file, each interleaved. */
static void outstanding(void)
{
    static unsigned char a[PER_RANK], b[PER_RANK], c[PER_RANK];
    MPI_File fh = open_interleaved("8192");
    view(fh, 0, rank);
    mt_fill(a, PER_RANK, 300 + rank);
    mt_fill(b, PER_RANK, 400 + rank);
    mt_fill(c, PER_RANK, 500 + rank);
    MPI_Request rq[2];
    MPI_Status st[2];
    MPI_OK(MPI_File_iwrite_at_all(fh, 0, a, PER_RANK, MPI_BYTE, &rq[0]));
    MPI_OK(MPI_File_iwrite_at_all(fh, PER_RANK, b, PER_RANK, MPI_BYTE, &rq[1]));
    MPI_OK(MPI_File_write_at_all(fh, 2 * PER_RANK, c, PER_RANK, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Waitall(2, rq, st));
    expect_count(&st[0], PER_RANK, "first iwrite_at_all");
    expect_count(&st[1], PER_RANK, "second iwrite_at_all");
    MPI_Offset region = (MPI_Offset)PER_RANK * nprocs;
    check_file(fh, 0, 300, "first of two outstanding");
    check_file(fh, region, 400, "second of two outstanding");
    check_file(fh, 2 * region, 500, "blocking write between them");
    MPI_OK(MPI_File_close(&fh));
}

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(rc != MPI_SUCCESS && mt_class(rc) == cls, "%s: class %d, expected %d", what, mt_class(rc), cls);
}

/* RDMACH_IO_FAIL_ALLOC: the first collective buffering of this process is
 * this request's, 4 KiB rounds. */
static void injected(void)
{
    if (!getenv("RDMACH_IO_FAIL_ALLOC"))
        return;
    MPI_File fh = open_interleaved("4096");
    view(fh, 0, rank);
    mt_fill(wbuf, PER_RANK, 600 + rank);
    MPI_Request rq;
    wait_turn();
    MPI_OK(MPI_File_iwrite_all(fh, wbuf, PER_RANK, MPI_BYTE, &rq));
    talk_around();
    expect_class(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_ERR_NO_MEM, "iwrite_all with an allocation failing");
    MPI_OK(MPI_File_close(&fh));
}

/* The file system fills up after LIMIT bytes (every process's limit). */
static void nospace(void)
{
    MPI_File fh = open_interleaved("4096");
    view(fh, 0, rank);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim, old;
    getrlimit(RLIMIT_FSIZE, &old);
    lim.rlim_cur = LIMIT;
    lim.rlim_max = old.rlim_max;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
    MPI_Request rq;
    mt_fill(wbuf, PER_RANK, 700 + rank);
    MPI_OK(MPI_File_iwrite_all(fh, wbuf, PER_RANK, MPI_BYTE, &rq));
    int rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
    setrlimit(RLIMIT_FSIZE, &old);
    expect_class(rc, MPI_ERR_NO_SPACE, "iwrite_all on a full file system");
    MPI_OK(MPI_File_close(&fh));
}

/* The last rank's count is negative: its call fails, every other wait too. */
static void bad_argument(void)
{
    MPI_File fh = open_interleaved("4096");
    view(fh, 0, rank);
    MPI_Request rq = MPI_REQUEST_NULL;
    int bad = rank == nprocs - 1;
    int rc = MPI_File_iwrite_all(fh, wbuf, bad ? -1 : PER_RANK, MPI_BYTE, &rq);
    if (bad)
        expect_class(rc, MPI_ERR_COUNT, "iwrite_all with count -1");
    else {
        MPI_OK(rc);
        expect_class(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_ERR_COUNT, "iwrite_all, another rank's count -1");
    }
    MPI_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &rank, &nprocs);
    CHECK(argc > 1, "usage: test_io_nbcoll <dir>");
    snprintf(path, sizeof(path), "%s/nbcoll_np%d.dat", argv[1], nprocs);
    injected();
    write_read("4096", 100);
    write_read(NULL, 200);
    outstanding();
    bad_argument();
    if (nprocs > 1 && !getenv("RDMACH_IO_FAIL_ALLOC"))
        nospace();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
        printf("test_io_nbcoll: %d ranks: byte-interleaved non-blocking and split collectives read back equal%s\n",
               nprocs, getenv("RDMACH_IO_FAIL_ALLOC") ? ", injected allocation failure on every rank" : "");
    }
    MPI_Finalize();
    return 0;
}
