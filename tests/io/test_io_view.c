/*
 * File views (MPI-4.1 14.3) with vector, indexed, subarray and darray
 * filetypes, written and read independently and collectively under several
 * hint sets (collective buffering with tiny rounds, two aggregators, none;
 * data sieving on and off). The file's bytes are checked by rank 0 with
 * plain POSIX reads against values computed from the layout the standard
 * defines (the filetype tiling from the displacement), then read back
 * through the view and compared on every rank.
 *
 * Usage: test_io_view <dir>
 */
#include <fcntl.h>
#include <unistd.h>
#include "../mpi/mpi_test.h"

static int rank, nprocs;
static char path[4096];

/* The hint sets every case runs under. */
static const char *const hintsets[][2][2] = {
    { { NULL, NULL }, { NULL, NULL } },                                   /* defaults */
    { { "cb_buffer_size", "64" }, { "romio_ds_write", "enable" } },        /* many small rounds */
    { { "cb_nodes", "2" }, { "romio_ds_read", "disable" } },               /* two aggregators */
    { { "romio_cb_write", "disable" }, { "romio_cb_read", "disable" } },   /* independent path */
    { { "striping_unit", "16" }, { "romio_ds_write", "disable" } },       /* aligned domains */
};
#define NHINTS ((int)(sizeof(hintsets) / sizeof(hintsets[0])))

static MPI_Info make_info(int h)
{
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    for (int k = 0; k < 2; k++)
        if (hintsets[h][k][0])
            MPI_OK(MPI_Info_set(info, hintsets[h][k][0], hintsets[h][k][1]));
    return info;
}

/* The whole file as rank 0 sees it through POSIX. */
static unsigned char *slurp(long *len)
{
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open %s", path);
    long n = lseek(fd, 0, SEEK_END);
    unsigned char *b = malloc((size_t)n + 1);
    CHECK(pread(fd, b, (size_t)n, 0) == n, "pread %s", path);
    close(fd);
    *len = n;
    return b;
}

static MPI_File open_file(int amode, int h)
{
    MPI_File fh;
    MPI_Info info = make_info(h);
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, amode, info, &fh));
    MPI_Info_free(&info);
    return fh;
}

/* ---- A: bytes interleaved round-robin: file byte i is byte i / P of rank i % P ---- */
static unsigned char val_a(int r, long j) { return (unsigned char)(r * 37 + j * 11 + 5); }

static void case_interleave(int h, int collective)
{
    const long N = 1000;
    MPI_Datatype ft;
    MPI_OK(MPI_Type_vector((int)N, 1, nprocs, MPI_BYTE, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    unsigned char *mine = malloc(N), *back = malloc(N);
    for (long j = 0; j < N; j++)
        mine[j] = val_a(rank, j);
    MPI_File fh = open_file(MPI_MODE_CREATE | MPI_MODE_RDWR, h);
    MPI_OK(MPI_File_set_size(fh, 0));
    MPI_OK(MPI_File_set_view(fh, rank, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_Status st;
    if (collective)
        MPI_OK(MPI_File_write_all(fh, mine, (int)N, MPI_BYTE, &st));
    else
        MPI_OK(MPI_File_write_at(fh, 0, mine, (int)N, MPI_BYTE, &st));
    int cnt = -1;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
    CHECK(cnt == N, "write count %d, expected %ld", cnt, N);
    MPI_OK(MPI_File_sync(fh));
    if (rank == 0) {
        long len;
        unsigned char *b = slurp(&len);
        CHECK(len == N * nprocs, "hints %d: file is %ld bytes, expected %ld", h, len, N * nprocs);
        for (long i = 0; i < len; i++)
            CHECK(b[i] == val_a((int)(i % nprocs), i / nprocs), "hints %d coll %d: byte %ld is %u, expected %u", h,
                  collective, i, b[i], val_a((int)(i % nprocs), i / nprocs));
        free(b);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    memset(back, 0, N);
    if (collective)
        MPI_OK(MPI_File_read_at_all(fh, 0, back, (int)N, MPI_BYTE, &st));
    else
        MPI_OK(MPI_File_read(fh, back, (int)N, MPI_BYTE, &st));
    CHECK(memcmp(back, mine, N) == 0, "hints %d coll %d: read back through the view differs", h, collective);
    MPI_OK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
    free(mine);
    free(back);
}

/* ---- B: indexed ints; rank r owns r + 1 ints of every round of P(P+1)/2 ints;
 * the memory side is every other int of a buffer (a vector) ---- */
static int val_b(int r, long j) { return r * 100000 + (int)j * 3 + 1; }

static void case_indexed(int h)
{
    const int K = 40, T = nprocs * (nprocs + 1) / 2, base = rank * (rank + 1) / 2;
    int *lens = malloc(K * sizeof(int)), *disps = malloc(K * sizeof(int));
    for (int k = 0; k < K; k++) {
        lens[k] = rank + 1;
        disps[k] = k * T + base;
    }
    MPI_Datatype ft, mt;
    MPI_OK(MPI_Type_indexed(K, lens, disps, MPI_INT, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    long n = (long)K * (rank + 1);
    MPI_OK(MPI_Type_vector((int)n, 1, 2, MPI_INT, &mt));
    MPI_OK(MPI_Type_commit(&mt));
    int *mem = calloc(2 * n, sizeof(int)), *back = calloc(2 * n, sizeof(int));
    for (long j = 0; j < n; j++) {
        mem[2 * j] = val_b(rank, j);
        mem[2 * j + 1] = -7;   /* not part of the type: must not reach the file */
    }
    MPI_File fh = open_file(MPI_MODE_CREATE | MPI_MODE_RDWR, h);
    MPI_OK(MPI_File_set_size(fh, 0));
    MPI_OK(MPI_File_set_view(fh, 8, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_all(fh, mem, 1, mt, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    if (rank == 0) {
        long len;
        unsigned char *b = slurp(&len);
        CHECK(len == 8 + (long)K * T * 4, "hints %d: file is %ld bytes", h, len);
        for (long i = 0; i < (long)K * T; i++) {
            long k = i / T, w = i % T;
            int r = 0;
            while ((r + 1) * (r + 2) / 2 <= w)
                r++;
            long j = k * (r + 1) + (w - r * (r + 1) / 2);
            int v;
            memcpy(&v, b + 8 + i * 4, 4);
            CHECK(v == val_b(r, j), "hints %d: int %ld is %d, expected %d (rank %d item %ld)", h, i, v, val_b(r, j), r,
                  j);
        }
        free(b);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Offset pos = -1;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == n, "position after writing %ld ints is %lld", n, (long long)pos);
    MPI_OK(MPI_File_seek(fh, -n, MPI_SEEK_CUR));
    MPI_OK(MPI_File_read_all(fh, back, 1, mt, MPI_STATUS_IGNORE));
    for (long j = 0; j < n; j++)
        CHECK(back[2 * j] == mem[2 * j] && back[2 * j + 1] == 0, "hints %d: read back item %ld: %d", h, j, back[2 * j]);
    MPI_OK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    free(lens), free(disps), free(mem), free(back);
}

/* ---- C: a 2-D int array by subarray blocks: element (i, j) = i * 1000 + j ---- */
static void case_subarray(int h, int collective)
{
    int dims[2] = { 0, 0 };
    MPI_OK(MPI_Dims_create(nprocs, 2, dims));
    const int G0 = 7 * dims[0] + 1, G1 = 5 * dims[1] + 2;   /* uneven blocks */
    int cr = rank / dims[1], cc = rank % dims[1];
    int s0 = G0 / dims[0] + (cr < G0 % dims[0]), st0 = cr * (G0 / dims[0]) + (cr < G0 % dims[0] ? cr : G0 % dims[0]);
    int s1 = G1 / dims[1] + (cc < G1 % dims[1]), st1 = cc * (G1 / dims[1]) + (cc < G1 % dims[1] ? cc : G1 % dims[1]);
    int gs[2] = { G0, G1 }, ss[2] = { s0, s1 }, starts[2] = { st0, st1 };
    MPI_Datatype ft;
    MPI_OK(MPI_Type_create_subarray(2, gs, ss, starts, MPI_ORDER_C, MPI_INT, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    int *mine = malloc((size_t)s0 * s1 * sizeof(int)), *back = malloc((size_t)s0 * s1 * sizeof(int));
    for (int i = 0; i < s0; i++)
        for (int j = 0; j < s1; j++)
            mine[i * s1 + j] = (st0 + i) * 1000 + (st1 + j);
    MPI_File fh = open_file(MPI_MODE_CREATE | MPI_MODE_RDWR, h);
    MPI_OK(MPI_File_set_size(fh, 0));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    if (collective)
        MPI_OK(MPI_File_write_at_all(fh, 0, mine, s0 * s1, MPI_INT, MPI_STATUS_IGNORE));
    else
        MPI_OK(MPI_File_write(fh, mine, s0 * s1, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    if (rank == 0) {
        long len;
        unsigned char *b = slurp(&len);
        CHECK(len == (long)G0 * G1 * 4, "hints %d: file is %ld bytes", h, len);
        for (long i = 0; i < (long)G0 * G1; i++) {
            int v;
            memcpy(&v, b + i * 4, 4);
            CHECK(v == (int)(i / G1) * 1000 + (int)(i % G1), "hints %d coll %d: element %ld is %d", h, collective, i,
                  v);
        }
        free(b);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_read_at_all(fh, 0, back, s0 * s1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(memcmp(back, mine, (size_t)s0 * s1 * sizeof(int)) == 0, "hints %d: subarray read back differs", h);
    MPI_OK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
    free(mine);
    free(back);
}

/* ---- D: a darray, block-cyclic (blocks of 3) over a 1-D array of doubles,
 * element g = g * 0.5; rank r owns g with (g / 3) % P == r ---- */
static void case_darray(int h)
{
    const int N = 301;
    int gs[1] = { N }, distrib[1] = { MPI_DISTRIBUTE_CYCLIC }, dargs[1] = { 3 }, psizes[1] = { nprocs };
    MPI_Datatype ft;
    MPI_OK(MPI_Type_create_darray(nprocs, rank, 1, gs, distrib, dargs, psizes, MPI_ORDER_C, MPI_DOUBLE, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    int n = 0;
    double *mine = malloc(N * sizeof(double)), *back = calloc(N, sizeof(double));
    for (int g = 0; g < N; g++)
        if ((g / 3) % nprocs == rank)
            mine[n++] = g * 0.5;
    int tsize;
    MPI_OK(MPI_Type_size(ft, &tsize));
    CHECK(tsize == n * 8, "darray size %d, expected %d", tsize, n * 8);
    MPI_File fh = open_file(MPI_MODE_CREATE | MPI_MODE_RDWR, h);
    MPI_OK(MPI_File_set_size(fh, 0));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_all(fh, mine, n, MPI_DOUBLE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    if (rank == 0) {
        long len;
        unsigned char *b = slurp(&len);
        CHECK(len == (long)N * 8, "hints %d: file is %ld bytes", h, len);
        for (int g = 0; g < N; g++) {
            double v;
            memcpy(&v, b + g * 8, 8);
            CHECK(v == g * 0.5, "hints %d: element %d is %g", h, g, v);
        }
        free(b);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all(fh, back, n, MPI_DOUBLE, MPI_STATUS_IGNORE));
    CHECK(memcmp(back, mine, (size_t)n * 8) == 0, "hints %d: darray read back differs", h);
    MPI_OK(MPI_File_close(&fh));
    MPI_Type_free(&ft);
    free(mine);
    free(back);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mt_rank = rank;
    CHECK(argc > 1, "usage: test_io_view <dir>");
    snprintf(path, sizeof(path), "%s/view_np%d.dat", argv[1], nprocs);
    for (int h = 0; h < NHINTS; h++) {
        case_interleave(h, 1);
        case_interleave(h, 0);
        case_indexed(h);
        case_subarray(h, 1);
        case_subarray(h, 0);
        case_darray(h);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
        printf("test_io_view: %d ranks, 6 layouts x %d hint sets: file bytes and read-back match\n", nprocs, NHINTS);
    }
    MPI_Finalize();
    return 0;
}
