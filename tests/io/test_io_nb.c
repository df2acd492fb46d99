/*
 * Non-blocking MPI-IO that proceeds in the background (MPI-4.1 14.4.3): an
 * MPI_File_i* call or a split collective's _begin returns before its
 * transfer is done (the file, read with POSIX right after the call, does
 * not have the bytes yet; a read's buffer is untouched), MPI_Wait finishes
 * it, and a non-blocking collective never waits at the call for the other
 * ranks: each even rank posts MPI_File_iwrite_all and then exchanges
 * messages with its odd peer, which posts its iwrite_all only after that
 * exchange (a deadlock if the call blocked). An argument error on one rank
 * of a non-blocking collective fails every rank's request, without a hang.
 *
 * Usage: test_io_nb <dir>
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../mpi/mpi_test.h"

static int rank, nprocs;
static char dir[2048];

static void name(char *buf, const char *what)
{
    snprintf(buf, 4096, "%s/%s_np%d.dat", dir, what, nprocs);
}

/* POSIX: n bytes at off (zeros past the end of the file); returns bytes read. */
static long posix_read(const char *p, void *buf, long n, long off)
{
    memset(buf, 0, (size_t)n);
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0, "open %s", p);
    long got = pread(fd, buf, (size_t)n, off);
    close(fd);
    return got;
}

static long posix_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

#define N 4096   /* bytes per rank */

/* Independent forms, each rank its own file (MPI_COMM_SELF): nothing moves
 * at the call, everything by the wait. */
static void test_deferred(void)
{
    char p[4096], tag[64];
    snprintf(tag, sizeof(tag), "deferred_r%d", rank);
    name(p, tag);
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_SELF, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_size(fh, 0));
    unsigned char a[N], b[N], f[N];
    mt_fill(a, N, 100 + rank);
    MPI_Request rq;
    MPI_Status st;
    int cnt;
    MPI_OK(MPI_File_iwrite_at(fh, 10, a, N, MPI_BYTE, &rq));
    CHECK(posix_size(p) == 0, "iwrite_at wrote at the call: the file has %ld bytes", posix_size(p));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == N, "iwrite_at count %d", cnt);
    CHECK(posix_read(p, f, N, 10) == N && !memcmp(f, a, N), "iwrite_at: the file lacks the data after the wait");
    /* the individual pointer moves at the call (MPI-4.1 14.4.3) */
    MPI_Offset pos;
    MPI_OK(MPI_File_seek(fh, 2 * N, MPI_SEEK_SET));
    MPI_OK(MPI_File_iwrite(fh, a, 100, MPI_BYTE, &rq));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 2 * N + 100, "position after iwrite is %lld, not %d", (long long)pos, 2 * N + 100);
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    /* a read leaves the buffer alone until it progresses */
    memset(b, 0xee, N);
    MPI_OK(MPI_File_iread_at(fh, 10, b, N, MPI_BYTE, &rq));
    CHECK(b[0] == 0xee && b[N - 1] == 0xee, "iread_at read at the call");
    int flag = 0;
    while (!flag)
        MPI_OK(MPI_Test(&rq, &flag, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == N && !memcmp(a, b, N), "iread_at: count %d, data %s", cnt, memcmp(a, b, N) ? "differs" : "ok");
    /* past the end of the file: the count says how much there was */
    MPI_OK(MPI_File_iread_at(fh, 2 * N + 100 - 5, b, 100, MPI_BYTE, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == 5, "iread_at across the end of the file: count %d, not 5", cnt);
    /* a transfer larger than one progress slice, through a strided view */
    long big = 6L << 20;
    unsigned char *w = malloc((size_t)big), *r = malloc((size_t)big);
    mt_fill(w, (size_t)big, 7 + rank);
    MPI_Datatype ft;
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &ft));   /* ints 0 and 3 of every 4 */
    MPI_Datatype ftr;
    MPI_OK(MPI_Type_create_resized(ft, 0, 16, &ftr));
    MPI_OK(MPI_Type_commit(&ftr));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, ftr, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_set_size(fh, 0));
    MPI_OK(MPI_File_iwrite_at(fh, 0, w, (int)(big / 4), MPI_INT, &rq));
    MPI_OK(MPI_Type_free(&ftr));   /* allowed while the access is pending */
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_OK(MPI_File_iread_at(fh, 0, r, (int)(big / 4), MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == big / 4 && !memcmp(w, r, (size_t)big), "strided %ld bytes: count %d", big, cnt);
    /* the file: data ints at bytes 0 and 12 of every 16 */
    unsigned char *raw = malloc((size_t)big * 2);
    CHECK(posix_read(p, raw, big * 2, 0) == big * 2, "strided file size");
    for (long k = 0; k < big / 8; k++)
        CHECK(!memcmp(raw + 16 * k, w + 8 * k, 4) && !memcmp(raw + 16 * k + 12, w + 8 * k + 4, 4),
              "strided file: block %ld differs", k);
    free(raw);
    free(w);
    free(r);
    MPI_OK(MPI_File_close(&fh));
}

/* Even ranks post iwrite_all first; odd ones after a message exchange with
 * them. Bytes interleave round robin between the ranks (a vector view):
 * every file byte i is rank i % P's byte i / P. */
static void test_no_wait_at_call(void)
{
    char p[4096];
    name(p, "nowait");
    MPI_File fh;
    mt_open_empty(p, &fh);
    MPI_Datatype ft, ftr;
    MPI_OK(MPI_Type_vector(1, 1, 1, MPI_BYTE, &ft));
    MPI_OK(MPI_Type_create_resized(ft, 0, nprocs, &ftr));
    MPI_OK(MPI_Type_commit(&ftr));
    MPI_OK(MPI_File_set_view(fh, rank, MPI_BYTE, ftr, "native", MPI_INFO_NULL));
    unsigned char a[N];
    mt_fill(a, N, 200 + rank);
    int peer = rank ^ 1, token = rank, got = -1;
    MPI_Request rq;
    MPI_Status st;
    if (peer >= nprocs) {
        MPI_OK(MPI_File_iwrite_all(fh, a, N, MPI_BYTE, &rq));
    } else if (rank % 2 == 0) {
        MPI_OK(MPI_File_iwrite_all(fh, a, N, MPI_BYTE, &rq));
        MPI_OK(MPI_Sendrecv(&token, 1, MPI_INT, peer, 5, &got, 1, MPI_INT, peer, 5, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Sendrecv(&token, 1, MPI_INT, peer, 5, &got, 1, MPI_INT, peer, 5, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        MPI_OK(MPI_File_iwrite_all(fh, a, N, MPI_BYTE, &rq));
    }
    CHECK(peer >= nprocs || got == peer, "exchange got %d", got);
    MPI_OK(MPI_Wait(&rq, &st));
    int cnt;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == N, "iwrite_all count %d", cnt);
    /* a split collective: _begin does not do the transfer either */
    unsigned char b[N];
    memset(b, 0xee, N);
    MPI_OK(MPI_File_read_at_all_begin(fh, 0, b, N, MPI_BYTE));
    CHECK(b[0] == 0xee && b[N - 1] == 0xee, "read_at_all_begin read at the call");
    MPI_OK(MPI_File_read_at_all_end(fh, b, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == N && !memcmp(a, b, N), "read_at_all_begin/end: count %d", cnt);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&ftr));
    MPI_OK(MPI_Type_free(&ft));
    if (rank == 0) {
        unsigned char *all = malloc((size_t)N * nprocs), *mine = malloc(N);
        CHECK(posix_read(p, all, (long)N * nprocs, 0) == (long)N * nprocs, "file size");
        for (int r = 0; r < nprocs; r++) {
            mt_fill(mine, N, 200 + r);
            for (int i = 0; i < N; i++)
                CHECK(all[(long)i * nprocs + r] == mine[i], "byte %ld: rank %d's byte %d differs",
                      (long)i * nprocs + r, r, i);
        }
        free(all);
        free(mine);
        unlink(p);
    }
}

/* Two collective accesses in flight, waited for in reverse order; a split
 * write whose bytes are not in the file before _end's progress. */
static void test_two_in_flight(void)
{
    char p[4096];
    name(p, "two");
    MPI_File fh;
    mt_open_empty(p, &fh);
    unsigned char a[N], c[N];
    mt_fill(a, N, 300 + rank);
    mt_fill(c, N, 400 + rank);
    MPI_Request rq[2];
    MPI_OK(MPI_File_iwrite_at_all(fh, (MPI_Offset)rank * N, a, N, MPI_BYTE, &rq[0]));
    MPI_OK(MPI_File_iwrite_at_all(fh, (MPI_Offset)(nprocs + rank) * N, c, N, MPI_BYTE, &rq[1]));
    MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_write_at_all_begin(fh, (MPI_Offset)(2 * nprocs + rank) * N, a, N, MPI_BYTE));
    unsigned char f[N];
    posix_read(p, f, N, (long)(2 * nprocs + rank) * N);   /* a hole or nothing: other ranks may be further */
    CHECK(memcmp(f, a, N) != 0, "write_at_all_begin wrote at the call");
    MPI_OK(MPI_File_write_at_all_end(fh, a, MPI_STATUS_IGNORE));
    CHECK(posix_read(p, f, N, (long)(2 * nprocs + rank) * N) == N && !memcmp(f, a, N), "split write's data");
    CHECK(posix_read(p, f, N, (long)rank * N) == N && !memcmp(f, a, N), "first iwrite_at_all's data");
    CHECK(posix_read(p, f, N, (long)(nprocs + rank) * N) == N && !memcmp(f, c, N), "second iwrite_at_all's data");
    /* shared pointer: each rank's block somewhere, none overlapping */
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_iwrite_shared(fh, &rank, 1, MPI_INT, &rq[0]));
    MPI_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_close(&fh));
    if (rank == 0) {
        int *v = malloc(sizeof(int) * nprocs), seen = 0;
        posix_read(p, v, (long)sizeof(int) * nprocs, 0);
        for (int r = 0; r < nprocs; r++)
            seen |= 1 << v[r];
        CHECK(seen == (1 << nprocs) - 1, "iwrite_shared: ranks seen 0x%x", seen);
        free(v);
        unlink(p);
    }
}

/* The last rank passes a negative offset: its call fails with
 * MPI_ERR_ARG, every other rank's request fails (MPI_ERR_ARG, the class of
 * the failing rank), and nobody waits forever. */
static void test_error_everywhere(void)
{
    if (nprocs < 2)
        return;
    char p[4096];
    name(p, "err");
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
    int v = rank;
    MPI_Request rq = MPI_REQUEST_NULL;
    int err = MPI_File_iwrite_at_all(fh, rank == nprocs - 1 ? -1 : rank, &v, 1, MPI_INT, &rq);
    if (rank == nprocs - 1) {
        CHECK(mt_class(err) == MPI_ERR_ARG, "bad offset: class %d", mt_class(err));
    } else {
        MPI_OK(err);
        err = MPI_Wait(&rq, MPI_STATUS_IGNORE);
        CHECK(mt_class(err) == MPI_ERR_ARG, "the failing rank's class reaches rank %d: %d", rank, mt_class(err));
    }
    MPI_OK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mt_rank = rank;
    CHECK(argc > 1, "usage: test_io_nb <dir>");
    snprintf(dir, sizeof(dir), "%s", argv[1]);
    test_deferred();
    test_no_wait_at_call();
    test_two_in_flight();
    test_error_everywhere();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_io_nb: %d ranks: i-calls and split collectives move nothing at the call, finish by "
               "progress, never wait for other ranks at the call; errors reach every rank\n", nprocs);
    MPI_Finalize();
    return 0;
}
