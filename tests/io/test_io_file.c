/*
 * MPI-IO calls other than views, each checked against what MPI-4.1 chapter
 * 14 says: open's access modes and their errors, close/delete,
 * DELETE_ON_CLOSE, sizes, group, amode, hints reported by get_info, file
 * error handlers (MPI_ERRORS_RETURN by default, user handlers), Fortran
 * handles, explicit offsets, the individual and shared pointers (seek,
 * position, byte offset), ordered writes (rank order), non-blocking and
 * split collective calls, atomic mode with concurrent overlapping writers,
 * external32 (big-endian in the file), every large-count (_c) form, and
 * buffers at MPI_BOTTOM with datatypes of absolute addresses. File bytes are checked with
 * POSIX reads.
 *
 * Usage: test_io_file <dir>
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../mpi/mpi_test.h"
#include <mpio.h>   /* as MPICH programs include it: must be harmless after mpi.h */

static int rank, nprocs;
static char dir[2048];

static void name(char *buf, const char *what)
{
    snprintf(buf, 4096, "%s/%s_np%d.dat", dir, what, nprocs);
}

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

/* Side files of shared file pointers in the test directory. */
static int side_files(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    CHECK(d != NULL, "opendir %s", dir);
    while ((e = readdir(d)) != NULL)
        n += strstr(e->d_name, ".shfp.") != NULL;
    closedir(d);
    return n;
}

/* Rank 0 empties the test directory (what a failed earlier run left). */
static void clean_dir(void)
{
    if (rank == 0) {
        DIR *d = opendir(dir);
        struct dirent *e;
        char p[4096];
        CHECK(d != NULL, "opendir %s", dir);
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void read_posix(const char *p, void *buf, long n, long off)
{
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0, "open %s", p);
    CHECK(pread(fd, buf, (size_t)n, off) == n, "pread %ld bytes of %s", n, p);
    close(fd);
}

/* The error class of rc must be cls and its message must name `call` and `file`. */
static void expect_error(int rc, int cls, const char *call, const char *file)
{
    char s[MPI_MAX_ERROR_STRING];
    int l = 0;
    CHECK(rc != MPI_SUCCESS && mt_class(rc) == cls, "%s: class %d, expected %d", call, mt_class(rc), cls);
    MPI_Error_string(rc, s, &l);
    CHECK(strstr(s, call) != NULL, "message '%s' does not name %s", s, call);
    CHECK(!file || strstr(s, file) != NULL, "message '%s' does not name %s", s, file);
}

static void test_open_errors(void)
{
    char p[4096], q[4096];
    MPI_File fh;
    name(p, "missing");
    unlink(p);
    MPI_Barrier(MPI_COMM_WORLD);
    /* the default file error handler returns (MPI_ERRORS_RETURN) */
    MPI_Errhandler eh;
    MPI_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "default file error handler is not MPI_ERRORS_RETURN");
    expect_error(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE,
                 "MPI_File_open", p);
    CHECK(fh == MPI_FILE_NULL, "failed open left a handle");
    expect_error(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE, "MPI_File_open", p);
    expect_error(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE, "MPI_File_open", p);
    expect_error(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh),
                 MPI_ERR_AMODE, "MPI_File_open", p);
    /* EXCL on an existing file: MPI_ERR_FILE_EXISTS on every rank */
    name(q, "excl");
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_close(&fh));
    expect_error(MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                               MPI_INFO_NULL, &fh), MPI_ERR_FILE_EXISTS, "MPI_File_open", q);
    /* a file in a missing directory */
    snprintf(p, sizeof(p), "%s/no/such/dir/f", dir);
    expect_error(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                 MPI_ERR_NO_SUCH_FILE, "MPI_File_open", p);
    /* permission denied (not for root, whom permissions do not stop) */
    if (geteuid() != 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            chmod(q, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        expect_error(MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_ACCESS,
                     "MPI_File_open", q);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            chmod(q, 0644);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* reading a write-only file, writing a read-only one */
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    char c = 0;
    expect_error(MPI_File_read_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_ACCESS, "MPI_File_read_at", q);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, q, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    expect_error(MPI_File_write_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_READ_ONLY,
                 "MPI_File_write_at", q);
    expect_error(MPI_File_read_at(fh, -1, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_ARG, "MPI_File_read_at",
                 NULL);
    expect_error(MPI_File_read_at(fh, 0, &c, -1, MPI_CHAR, MPI_STATUS_IGNORE), MPI_ERR_COUNT, "MPI_File_read_at",
                 NULL);
    expect_error(MPI_File_read_at(fh, 0, &c, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE), MPI_ERR_TYPE,
                 "MPI_File_read_at", NULL);
    expect_error(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG, "MPI_File_seek", NULL);
    expect_error(MPI_File_read_at(fh, 0, &c, 1, MPI_CHAR, NULL), MPI_ERR_ARG, "MPI_File_read_at", NULL);
    expect_error(MPI_File_read_at_all(fh, 0, &c, 1, MPI_CHAR, NULL), MPI_ERR_ARG, "MPI_File_read_at_all", NULL);
    expect_error(MPI_File_iread_at(fh, 0, &c, 1, MPI_CHAR, NULL), MPI_ERR_REQUEST, "MPI_File_iread_at", NULL);
    expect_error(MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_INT, "native", MPI_INFO_NULL), MPI_ERR_TYPE,
                 "MPI_File_set_view", NULL);
    /* a user error handler is called with the file and the code */
    MPI_OK(MPI_File_close(&fh));
    expect_error(MPI_File_get_size(fh, NULL), MPI_ERR_FILE, "MPI_File_get_size", NULL);
    expect_error(MPI_File_close(&fh), MPI_ERR_FILE, "MPI_File_close", NULL);
    if (rank == 0)
        unlink(q);
}

static int handler_calls, handler_class;
static MPI_File handler_file;
static void file_handler(MPI_File *fh, int *code, ...)
{
    handler_calls++;
    handler_file = *fh;
    handler_class = mt_class(*code);
}

static void test_errhandler(void)
{
    char p[4096];
    name(p, "eh");
    MPI_File fh;
    MPI_Errhandler eh, got;
    MPI_OK(MPI_File_create_errhandler(file_handler, &eh));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                         &fh));
    MPI_OK(MPI_File_get_errhandler(fh, &got));
    CHECK(got == MPI_ERRORS_RETURN, "a new file does not take MPI_FILE_NULL's handler");
    MPI_OK(MPI_File_set_errhandler(fh, eh));
    MPI_OK(MPI_File_get_errhandler(fh, &got));
    CHECK(got == eh, "get_errhandler does not return the handler set");
    int v = 0;
    int rc = MPI_File_write_at(fh, -5, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_ARG && handler_calls == 1 && handler_file == fh && handler_class == MPI_ERR_ARG,
          "user handler: rc class %d, %d calls, class %d", mt_class(rc), handler_calls, handler_class);
    MPI_OK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_IO, "call_errhandler: %d calls", handler_calls);
    /* a communicator handler is not a file handler */
    CHECK(mt_class(MPI_File_set_errhandler(fh, 0x12345)) == MPI_ERR_ARG, "set_errhandler took garbage");
    /* Fortran handles */
    MPI_Fint fi = MPI_File_c2f(fh);
    CHECK(fi != 0 && MPI_File_f2c(fi) == fh, "c2f/f2c round trip");
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0 && MPI_File_f2c(0) == MPI_FILE_NULL, "null Fortran handle");
    MPI_OK(MPI_File_close(&fh));
    MPI_Errhandler_free(&eh);
    if (rank == 0)
        MPI_OK(MPI_File_delete(p, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
    expect_error(MPI_File_delete(p, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE, "MPI_File_delete", p);
}

static void test_whole_file(void)
{
    char p[4096];
    name(p, "whole");
    MPI_File fh;
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "cb_buffer_size", "4096"));
    MPI_OK(MPI_Info_set(info, "romio_ds_write", "disable"));
    MPI_OK(MPI_Info_set(info, "no_such_hint", "whatever"));
    MPI_OK(MPI_Info_set(info, "rdmach_write_behind", "0"));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE |
                         MPI_MODE_UNIQUE_OPEN, info, &fh));
    MPI_Info_free(&info);
    int amode;
    MPI_OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN),
          "amode 0x%x", amode);
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    MPI_OK(MPI_File_get_info(fh, &used));
    MPI_OK(MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && !strcmp(v, "4096"), "cb_buffer_size in effect: %s", flag ? v : "(none)");
    MPI_OK(MPI_Info_get(used, "romio_ds_write", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && !strcmp(v, "disable"), "romio_ds_write in effect: %s", flag ? v : "(none)");
    MPI_OK(MPI_Info_get(used, "rdmach_write_behind", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && !strcmp(v, "0"), "rdmach_write_behind in effect: %s", flag ? v : "(none)");
    MPI_OK(MPI_Info_get(used, "no_such_hint", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(!flag, "an unknown hint is reported as in effect");
    MPI_OK(MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && atoi(v) >= 1 && atoi(v) <= nprocs, "cb_nodes %s", flag ? v : "(none)");
    MPI_Info_free(&used);
    MPI_Group g, wg;
    int cmp;
    MPI_OK(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "file group is not the communicator's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    /* sizes: set_size truncates and extends, preallocate only grows */
    MPI_Offset sz;
    MPI_OK(MPI_File_set_size(fh, 1000));
    MPI_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 1000 && file_size(p) == 1000, "size %lld after set_size(1000)", (long long)sz);
    MPI_OK(MPI_File_preallocate(fh, 500));
    MPI_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 1000, "preallocate(500) shrank the file to %lld", (long long)sz);
    MPI_OK(MPI_File_preallocate(fh, 3000));
    MPI_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 3000, "size %lld after preallocate(3000)", (long long)sz);
    MPI_OK(MPI_File_set_size(fh, 10));
    MPI_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 10, "size %lld after set_size(10)", (long long)sz);
    MPI_Barrier(MPI_COMM_WORLD);   /* every rank has looked before anyone writes */
    /* explicit offsets: each rank 100 ints at rank * 400 */
    int buf[100], back[100];
    for (int i = 0; i < 100; i++)
        buf[i] = rank * 1000 + i;
    MPI_Status st;
    int cnt;
    MPI_OK(MPI_File_write_at(fh, rank * 400, buf, 100, MPI_INT, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == 100, "write_at count %d", cnt);
    MPI_OK(MPI_File_sync(fh));
    if (rank == 0) {
        int *all = malloc((size_t)nprocs * 400);
        read_posix(p, all, nprocs * 400L, 0);
        for (int i = 0; i < nprocs * 100; i++)
            CHECK(all[i] == (i / 100) * 1000 + i % 100, "int %d is %d", i, all[i]);
        free(all);
    }
    /* a read past the end of the file counts only what exists */
    MPI_OK(MPI_File_read_at(fh, nprocs * 400 - 40, back, 100, MPI_INT, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK(cnt == 10 && back[9] == (nprocs - 1) * 1000 + 99, "read at the end: count %d", cnt);
    /* individual pointer, seek, get_position, get_byte_offset with a view of
     * int etypes starting at 12 */
    MPI_OK(MPI_File_set_view(fh, 12, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_Offset pos, byte;
    MPI_OK(MPI_File_seek(fh, rank * 100, MPI_SEEK_SET));
    MPI_OK(MPI_File_read(fh, back, 10, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < 10; i++) {
        long b = 12 + (rank * 100L + i) * 4;   /* byte b of the file */
        CHECK(back[i] == (int)((b / 400) * 1000 + (b % 400) / 4), "view read int %d: %d", i, back[i]);
    }
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == rank * 100 + 10, "position %lld", (long long)pos);
    MPI_OK(MPI_File_seek(fh, -4, MPI_SEEK_CUR));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == rank * 100 + 6, "position after SEEK_CUR %lld", (long long)pos);
    MPI_OK(MPI_File_get_byte_offset(fh, pos, &byte));
    CHECK(byte == 12 + pos * 4, "byte offset %lld", (long long)byte);
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_END));
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == (nprocs * 400 - 12) / 4, "SEEK_END position %lld", (long long)pos);
    MPI_Aint ext;
    MPI_OK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    CHECK(ext == 8, "type extent %ld", (long)ext);
    MPI_Offset d;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_OK(MPI_File_get_view(fh, &d, &et, &ft, rep));
    CHECK(d == 12 && et == MPI_INT && ft == MPI_INT && !strcmp(rep, "native"), "get_view");
    MPI_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(file_size(p) == -1, "DELETE_ON_CLOSE left %s", p);
}

/* An empty file p of this test's (name()), open on every rank with a
 * "native" view of ints. */
static void open_ints(const char *what, char *p, MPI_File *fh)
{
    name(p, what);
    mt_open_empty(p, fh);
    MPI_OK(MPI_File_set_view(*fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
}

/* Shared pointer: every rank appends records with write_shared; then the
 * same with write_ordered, which must be in rank order. */
static void test_shared(void)
{
    char p[4096];
    MPI_File fh;
    open_ints("shared", p, &fh);
    /* the shared pointer's side file exists from its first use only (a file
     * only read may be in a directory nobody can write) */
    CHECK(side_files() == 0, "a side file exists before the shared pointer is used");
    MPI_Barrier(MPI_COMM_WORLD);
    int rec[4];
    const int R = 5;
    for (int k = 0; k < R; k++) {
        for (int i = 0; i < 4; i++)
            rec[i] = rank * 100 + k * 4 + i;
        MPI_OK(MPI_File_write_shared(fh, rec, 4, MPI_INT, MPI_STATUS_IGNORE));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset sp;
    MPI_OK(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == 4L * R * nprocs, "shared position %lld", (long long)sp);
    CHECK(side_files() == 1, "%d side files while the shared pointer is in use", side_files());
    if (rank == 0) {
        /* every record whole, each exactly once */
        int *all = malloc(16L * R * nprocs), *seen = calloc((size_t)nprocs * R, sizeof(int));
        read_posix(p, all, 16L * R * nprocs, 0);
        for (int r = 0; r < R * nprocs; r++) {
            int who = all[4 * r] / 100, k = (all[4 * r] % 100) / 4;
            CHECK(who >= 0 && who < nprocs && k < R && all[4 * r] % 4 == 0, "record %d starts with %d", r, all[4 * r]);
            for (int i = 1; i < 4; i++)
                CHECK(all[4 * r + i] == all[4 * r] + i, "record %d is torn", r);
            seen[who * R + k]++;
        }
        for (int i = 0; i < R * nprocs; i++)
            CHECK(seen[i] == 1, "record %d of rank %d written %d times", i % R, i / R, seen[i]);
        free(all);
        free(seen);
    }
    /* ordered: rank r writes r + 1 ints after the shared records, in rank order */
    int mine[16];
    for (int i = 0; i <= rank; i++)
        mine[i] = 7000 + rank * 10 + i;
    MPI_OK(MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == 4L * R * nprocs + nprocs * (nprocs + 1) / 2, "shared position after ordered %lld", (long long)sp);
    MPI_OK(MPI_File_sync(fh));
    if (rank == 0) {
        int n = nprocs * (nprocs + 1) / 2, *o = malloc(n * sizeof(int)), at = 0;
        read_posix(p, o, n * 4L, 16L * R * nprocs);
        for (int r = 0; r < nprocs; r++)
            for (int i = 0; i <= r; i++, at++)
                CHECK(o[at] == 7000 + r * 10 + i, "ordered int %d is %d", at, o[at]);
        free(o);
    }
    /* read_ordered reads the same back, from a shared pointer sought to it */
    MPI_OK(MPI_File_seek_shared(fh, 4L * R * nprocs, MPI_SEEK_SET));
    int rb[16] = { 0 };
    MPI_OK(MPI_File_read_ordered(fh, rb, rank + 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(memcmp(rb, mine, (rank + 1) * sizeof(int)) == 0, "read_ordered differs");
    /* the split forms (MPI 4.1 14.4.5): the same again, after the ordered ints,
     * with the other ranks' calls free to run between begin and end */
    MPI_Offset after = 4L * R * nprocs + nprocs * (nprocs + 1) / 2;
    MPI_OK(MPI_File_seek_shared(fh, after, MPI_SEEK_SET));
    for (int i = 0; i <= rank; i++)
        mine[i] = 9000 + rank * 10 + i;
    MPI_Status st;
    int got = -1;
    MPI_OK(MPI_File_write_ordered_begin(fh, mine, rank + 1, MPI_INT));
    MPI_OK(MPI_File_write_ordered_end(fh, mine, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &got));
    CHECK(got == rank + 1, "write_ordered_end: count %d", got);
    MPI_OK(MPI_File_seek_shared(fh, after, MPI_SEEK_SET));
    memset(rb, 0, sizeof(rb));
    MPI_OK(MPI_File_read_ordered_begin(fh, rb, rank + 1, MPI_INT));
    MPI_OK(MPI_File_read_ordered_end(fh, rb, &st));
    CHECK(memcmp(rb, mine, (rank + 1) * sizeof(int)) == 0, "read_ordered_begin/end differs");
    MPI_OK(MPI_File_get_position_shared(fh, &sp));
    CHECK(sp == after + nprocs * (nprocs + 1) / 2, "shared position after the split ordered read %lld",
          (long long)sp);
    MPI_OK(MPI_File_close(&fh));
    CHECK(side_files() == 0, "close left a side file");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(p);
}

/* Non-blocking and split collective forms, large-count forms. */
static void test_nonblocking(void)
{
    char p[4096];
    name(p, "nb");
    MPI_File fh;
    mt_open_empty(p, &fh);
    double a[50], b[50];
    for (int i = 0; i < 50; i++)
        a[i] = rank + i / 64.0;
    MPI_Request rq[2];
    MPI_Status st[2];
    int cnt;
    MPI_OK(MPI_File_iwrite_at(fh, rank * 800L, a, 50, MPI_DOUBLE, &rq[0]));
    MPI_OK(MPI_File_iwrite_at_all(fh, rank * 800L + 400, a, 50, MPI_DOUBLE, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, st));
    MPI_OK(MPI_Get_count(&st[1], MPI_DOUBLE, &cnt));
    CHECK(cnt == 50, "iwrite_at_all count %d", cnt);
    MPI_OK(MPI_File_iread_at(fh, rank * 800L + 400, b, 50, MPI_DOUBLE, &rq[0]));
    MPI_OK(MPI_Wait(&rq[0], &st[0]));
    MPI_OK(MPI_Get_count(&st[0], MPI_DOUBLE, &cnt));
    CHECK(cnt == 50 && !memcmp(a, b, sizeof(a)), "iread_at: count %d", cnt);
    /* split collective through the individual pointer */
    MPI_OK(MPI_File_seek(fh, rank * 800L, MPI_SEEK_SET));
    memset(b, 0, sizeof(b));
    MPI_OK(MPI_File_read_all_begin(fh, b, 50, MPI_DOUBLE));
    CHECK(mt_class(MPI_File_read_all_begin(fh, b, 50, MPI_DOUBLE)) == MPI_ERR_OTHER, "two split collectives");
    MPI_OK(MPI_File_read_all_end(fh, b, &st[0]));
    MPI_OK(MPI_Get_count(&st[0], MPI_DOUBLE, &cnt));
    CHECK(cnt == 50 && !memcmp(a, b, sizeof(a)), "read_all_begin/end: count %d", cnt);
    CHECK(mt_class(MPI_File_read_all_end(fh, b, &st[0])) == MPI_ERR_OTHER, "end without begin");
    MPI_OK(MPI_File_write_at_all_begin(fh, rank * 800L, a, 25, MPI_DOUBLE));
    MPI_OK(MPI_File_write_at_all_end(fh, a, MPI_STATUS_IGNORE));
    /* large-count forms */
    memset(b, 0, sizeof(b));
    MPI_OK(MPI_File_read_at_c(fh, rank * 800L, b, (MPI_Count)50, MPI_DOUBLE, &st[0]));
    MPI_OK(MPI_Get_count(&st[0], MPI_DOUBLE, &cnt));
    CHECK(cnt == 50 && !memcmp(a, b, sizeof(a)), "read_at_c count %d", cnt);
    MPI_OK(MPI_File_iread_all_c(fh, b, (MPI_Count)50, MPI_DOUBLE, &rq[0]));
    MPI_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_close(&fh));
    if (rank == 0) {
        double *all = malloc(nprocs * 800L);
        read_posix(p, all, nprocs * 800L, 0);
        for (int i = 0; i < nprocs * 100; i++)
            CHECK(all[i] == (i / 100) + (i % 50) / 64.0, "double %d is %g", i, all[i]);
        free(all);
        unlink(p);
    }
}

/* Atomic mode: every rank writes the same 4096-byte range, filled with its
 * rank, repeatedly; in atomic mode every read sees one writer's bytes only. */
static void test_atomic(void)
{
    char p[4096];
    name(p, "atomic");
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_atomicity(fh, 1));
    int flag;
    MPI_OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "atomicity flag %d", flag);
    enum { N = 1 << 20 };
    static unsigned char w[N], r[N];
    memset(w, 'A' + rank, N);
    for (int k = 0; k < 40; k++) {
        if ((k + rank) % 2)
            MPI_OK(MPI_File_write_at(fh, 0, w, N, MPI_BYTE, MPI_STATUS_IGNORE));
        else {
            MPI_Status st;
            int cnt;
            MPI_OK(MPI_File_read_at(fh, 0, r, N, MPI_BYTE, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
            for (int i = 1; i < cnt; i++)
                CHECK(r[i] == r[0], "atomic read mixes writers: byte %d is %c, byte 0 %c", i, r[i], r[0]);
        }
    }
    MPI_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(p);
}

/* external32: ints and doubles big-endian in the file. */
static void test_external32(void)
{
    char p[4096];
    name(p, "ext32");
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    int v[3] = { 0x01020304 + rank, -2, 77 }, back[3];
    MPI_OK(MPI_File_write_at_all(fh, rank * 3, v, 3, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    if (rank == 0) {
        unsigned char b[12];
        read_posix(p, b, 12, 0);
        const unsigned char want[12] = { 1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 77 };
        CHECK(!memcmp(b, want, 12), "external32 bytes %02x %02x %02x %02x", b[0], b[1], b[2], b[3]);
    }
    MPI_OK(MPI_File_read_at(fh, rank * 3, back, 3, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(!memcmp(back, v, sizeof(v)), "external32 round trip");
    CHECK(mt_class(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL)) ==
              MPI_ERR_UNSUPPORTED_DATAREP, "unknown datarep accepted");
    MPI_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(p);
}

/* MPI_MODE_SEQUENTIAL: shared pointer only; MPI_DISPLACEMENT_CURRENT;
 * MPI_MODE_APPEND: both pointers start at the end of the file. */
static void test_sequential(void)
{
    char p[4096];
    name(p, "seq");
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                         MPI_INFO_NULL, &fh));
    int v[3] = { rank, rank, rank };
    expect_error(MPI_File_write_at(fh, 0, v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_UNSUPPORTED_OPERATION,
                 "MPI_File_write_at", p);
    expect_error(MPI_File_write(fh, v, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_UNSUPPORTED_OPERATION,
                 "MPI_File_write", p);
    MPI_OK(MPI_File_write_ordered(fh, v, 3, MPI_INT, MPI_STATUS_IGNORE));   /* 12 bytes per rank */
    /* the view starts where the shared pointer is: 12 * nprocs bytes in */
    MPI_OK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_Offset d;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_OK(MPI_File_get_view(fh, &d, &et, &ft, rep));
    CHECK(d == 12L * nprocs, "MPI_DISPLACEMENT_CURRENT gave disp %lld, expected %ld", (long long)d, 12L * nprocs);
    MPI_OK(MPI_File_write_ordered(fh, v, 1, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(file_size(p) == 16L * nprocs, "sequential file is %ld bytes", file_size(p));
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_APPEND | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
    MPI_Offset pos, spos;
    MPI_OK(MPI_File_get_position(fh, &pos));
    MPI_OK(MPI_File_get_position_shared(fh, &spos));
    CHECK(pos == 16L * nprocs && spos == 16L * nprocs, "APPEND: positions %lld and %lld, expected %ld",
          (long long)pos, (long long)spos, 16L * nprocs);
    MPI_OK(MPI_File_close(&fh));
}

/* A user data representation (MPI_Register_datarep): ints byte-swapped in
 * the file, so the file holds them big-endian on this little-endian host. */
/* Buffers at MPI_BOTTOM with datatypes of absolute addresses (MPI-4.1
 * 5.1.12; 14.4: a data access's buf is an initial address like any other):
 * each rank writes 6 ints, every other int of an array, with write_at,
 * write_at_all and iwrite_at, and reads them back the same way into
 * another array; rank 0 checks the file's bytes. A null buffer with a type
 * of offsets is still MPI_ERR_BUFFER. */
#define NB_INTS 6
static MPI_Datatype every_other_at(int *a)
{
    int bl[NB_INTS];
    MPI_Aint d[NB_INTS];
    for (int k = 0; k < NB_INTS; k++) {
        bl[k] = 1;
        MPI_OK(MPI_Get_address(&a[2 * k], &d[k]));
    }
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_hindexed(NB_INTS, bl, d, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

static void test_bottom(void)
{
    char p[4096];
    name(p, "bottom");
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
    int out[2 * NB_INTS], in[2 * NB_INTS];
    MPI_Datatype to = every_other_at(out), ti = every_other_at(in);
    MPI_Offset row = NB_INTS * (MPI_Offset)sizeof(int), base = 3 * row * rank;
    for (int form = 0; form < 3; form++) {
        for (int i = 0; i < 2 * NB_INTS; i++) {
            out[i] = 1000 * form + 100 * rank + i;
            in[i] = -1;
        }
        MPI_Offset at = base + form * row;
        MPI_Status st;
        int count = 0;
        if (form == 0) {
            MPI_OK(MPI_File_write_at(fh, at, MPI_BOTTOM, 1, to, &st));
        } else if (form == 1) {
            MPI_OK(MPI_File_write_at_all(fh, at, MPI_BOTTOM, 1, to, &st));
        } else {
            MPI_Request r;
            MPI_OK(MPI_File_iwrite_at(fh, at, MPI_BOTTOM, 1, to, &r));
            MPI_OK(MPI_Wait(&r, &st));
        }
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == NB_INTS, "write form %d from MPI_BOTTOM: %d ints written", form, count);
        MPI_OK(MPI_File_sync(fh));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_File_sync(fh));
        if (form == 1)
            MPI_OK(MPI_File_read_at_all(fh, at, MPI_BOTTOM, 1, ti, &st));
        else
            MPI_OK(MPI_File_read_at(fh, at, MPI_BOTTOM, 1, ti, &st));
        for (int i = 0; i < 2 * NB_INTS; i++)
            CHECK(in[i] == (i % 2 ? -1 : 1000 * form + 100 * rank + i),
                  "form %d, read back at MPI_BOTTOM: int %d is %d", form, i, in[i]);
        if (rank == 0)
            for (int r = 0; r < nprocs; r++) {
                int f[NB_INTS];
                read_posix(p, f, (long)row, (long)(3 * row * r + form * row));
                for (int k = 0; k < NB_INTS; k++)
                    CHECK(f[k] == 1000 * form + 100 * r + 2 * k, "form %d: rank %d's int %d in the file is %d", form,
                          r, k, f[k]);
            }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    expect_error(MPI_File_write_at(fh, base, NULL, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_BUFFER,
                 "MPI_File_write_at", NULL);
    MPI_OK(MPI_Type_free(&to));
    MPI_OK(MPI_Type_free(&ti));
    MPI_OK(MPI_File_close(&fh));
}

static unsigned swap32(unsigned v)
{
    return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}
static int swapped_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position, void *x)
{
    CHECK(dt == MPI_INT && *(int *)x == 42, "write conversion called with the wrong type or extra_state");
    for (int i = 0; i < count; i++)
        ((unsigned *)filebuf)[i] = swap32(((unsigned *)userbuf)[position + i]);
    return MPI_SUCCESS;
}
static int swapped_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position, void *x)
{
    for (int i = 0; i < count; i++)
        ((unsigned *)userbuf)[position + i] = swap32(((unsigned *)filebuf)[i]);
    return MPI_SUCCESS;
}
static int swapped_extent(MPI_Datatype dt, MPI_Aint *extent, void *x)
{
    return MPI_Type_get_extent(dt, &(MPI_Aint){ 0 }, extent);
}

static void test_datarep(void)
{
    char p[4096];
    name(p, "datarep");
    static int extra = 42;
    MPI_OK(MPI_Register_datarep("swapped", swapped_read, swapped_write, swapped_extent, &extra));
    CHECK(mt_class(MPI_Register_datarep("swapped", swapped_read, swapped_write, swapped_extent, &extra)) ==
              MPI_ERR_DUP_DATAREP, "a second registration of 'swapped'");
    CHECK(mt_class(MPI_Register_datarep("native", swapped_read, swapped_write, swapped_extent, &extra)) ==
              MPI_ERR_DUP_DATAREP, "registration of 'native'");
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "swapped", MPI_INFO_NULL));
    int v[2] = { 0x0a0b0c0d, rank }, back[2] = { 0, 0 };
    MPI_OK(MPI_File_write_at_all(fh, rank * 2, v, 2, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    if (rank == 0) {
        unsigned char b[8];
        read_posix(p, b, 8, 0);
        const unsigned char want[8] = { 0x0a, 0x0b, 0x0c, 0x0d, 0, 0, 0, 0 };
        CHECK(!memcmp(b, want, 8), "'swapped' bytes %02x %02x %02x %02x", b[0], b[1], b[2], b[3]);
    }
    MPI_OK(MPI_File_read_at(fh, rank * 2, back, 2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(back[0] == v[0] && back[1] == v[1], "'swapped' round trip: %x %d", back[0], back[1]);
    MPI_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(p);
}

/* Every large-count (_c) form of the data-access calls, MPI_File_iread and
 * MPI_File_iread_shared, MPI_File_get_type_extent_c and
 * MPI_Register_datarep_c, each checked for the bytes it moved, the count
 * its status gives (MPI_Get_count_c) and where it left the file pointers
 * (MPI 4.1 14.4, 14.5.3). Rank r owns ints [r * W, (r + 1) * W) of the
 * explicit-offset and individual-pointer part; the shared pointer's part
 * follows the whole ranks' part. */
enum { W = 64, Q = 8 };   /* ints a rank owns, ints a call moves */

static void fill(int *a, int tag)
{
    for (int i = 0; i < Q; i++)
        a[i] = tag * 1000 + rank * 100 + i;
}

static void check_moved(const MPI_Status *st, const int *got, int tag, const char *call)
{
    MPI_Count c = -1;
    int want[Q];
    fill(want, tag);
    MPI_OK(MPI_Get_count_c(st, MPI_INT, &c));
    CHECK(c == Q, "%s: status count %lld", call, (long long)c);
    CHECK(memcmp(got, want, sizeof(want)) == 0, "%s: read %d %d .. where %d %d .. was written", call, got[0],
          got[1], want[0], want[1]);
}

static void check_position(MPI_File fh, MPI_Offset want, const char *call)
{
    MPI_Offset at = -1;
    MPI_OK(MPI_File_get_position(fh, &at));
    CHECK(at == want, "%s: individual pointer at %lld, not %lld", call, (long long)at, (long long)want);
}

static int swapped_read_c(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf, MPI_Offset position, void *x)
{
    CHECK(dt == MPI_INT && *(int *)x == 43, "_c read conversion called with the wrong type or extra_state");
    for (MPI_Count i = 0; i < count; i++)
        ((unsigned *)userbuf)[position + i] = swap32(((unsigned *)filebuf)[i]);
    return MPI_SUCCESS;
}
static int swapped_write_c(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf, MPI_Offset position, void *x)
{
    CHECK(dt == MPI_INT && *(int *)x == 43, "_c write conversion called with the wrong type or extra_state");
    for (MPI_Count i = 0; i < count; i++)
        ((unsigned *)filebuf)[i] = swap32(((unsigned *)userbuf)[position + i]);
    return MPI_SUCCESS;
}
static int count_extent(MPI_Datatype dt, MPI_Count *extent, void *x)
{
    (void)x;
    MPI_Count lb;
    return MPI_Type_get_extent_x(dt, &lb, extent);
}

static void test_count_forms(void)
{
    char p[4096];
    MPI_File fh;
    open_ints("countforms", p, &fh);
    MPI_Count ext = -1;
    MPI_OK(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &ext));
    CHECK(ext == sizeof(double), "get_type_extent_c(MPI_DOUBLE) %lld", (long long)ext);
    const MPI_Offset mine = (MPI_Offset)rank * W;
    int a[Q], b[Q];
    MPI_Status st;
    MPI_Request rq;
    int tag = 1;
    /* individual pointer, blocking, independent and collective */
    MPI_OK(MPI_File_seek(fh, mine, MPI_SEEK_SET));
    fill(a, tag);
    MPI_OK(MPI_File_write_c(fh, a, (MPI_Count)Q, MPI_INT, &st));
    fill(a, tag + 1);
    MPI_OK(MPI_File_write_all_c(fh, a, (MPI_Count)Q, MPI_INT, &st));
    check_position(fh, mine + 2 * Q, "write_all_c");
    MPI_OK(MPI_File_seek(fh, mine, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_c(fh, b, (MPI_Count)Q, MPI_INT, &st));
    check_moved(&st, b, tag, "read_c");
    MPI_OK(MPI_File_read_all_c(fh, b, (MPI_Count)Q, MPI_INT, &st));
    check_moved(&st, b, tag + 1, "read_all_c");
    /* individual pointer, non-blocking (and MPI_File_iread itself) */
    tag = 3;
    fill(a, tag);
    MPI_OK(MPI_File_iwrite_c(fh, a, (MPI_Count)Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    fill(a, tag + 1);
    MPI_OK(MPI_File_iwrite_all_c(fh, a, (MPI_Count)Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    check_position(fh, mine + 4 * Q, "iwrite_all_c");
    MPI_OK(MPI_File_seek(fh, mine + 2 * Q, MPI_SEEK_SET));
    MPI_OK(MPI_File_iread_c(fh, b, (MPI_Count)Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    check_moved(&st, b, tag, "iread_c");
    MPI_OK(MPI_File_iread(fh, b, Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    check_moved(&st, b, tag + 1, "iread");
    check_position(fh, mine + 4 * Q, "iread");
    /* explicit offsets: the individual pointer stays where it is */
    tag = 5;
    fill(a, tag);
    MPI_OK(MPI_File_iwrite_at_c(fh, mine + 4 * Q, a, (MPI_Count)Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    fill(a, tag + 1);
    MPI_OK(MPI_File_iwrite_at_all_c(fh, mine + 5 * Q, a, (MPI_Count)Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    fill(a, tag + 2);
    MPI_OK(MPI_File_write_at_all_c(fh, mine + 6 * Q, a, (MPI_Count)Q, MPI_INT, &st));
    MPI_OK(MPI_File_iread_at_c(fh, mine + 4 * Q, b, (MPI_Count)Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    check_moved(&st, b, tag, "iread_at_c");
    MPI_OK(MPI_File_iread_at_all_c(fh, mine + 5 * Q, b, (MPI_Count)Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    check_moved(&st, b, tag + 1, "iread_at_all_c");
    MPI_OK(MPI_File_read_at_all_c(fh, mine + 6 * Q, b, (MPI_Count)Q, MPI_INT, &st));
    check_moved(&st, b, tag + 2, "read_at_all_c");
    check_position(fh, mine + 4 * Q, "the explicit-offset calls");
    /* split collectives */
    tag = 8;
    fill(a, tag);
    MPI_OK(MPI_File_write_at_all_begin_c(fh, mine + 7 * Q, a, (MPI_Count)Q, MPI_INT));
    MPI_OK(MPI_File_write_at_all_end(fh, a, &st));
    MPI_OK(MPI_File_read_at_all_begin_c(fh, mine + 7 * Q, b, (MPI_Count)Q, MPI_INT));
    MPI_OK(MPI_File_read_at_all_end(fh, b, &st));
    check_moved(&st, b, tag, "read_at_all_begin_c/end");
    MPI_OK(MPI_File_seek(fh, mine + 4 * Q, MPI_SEEK_SET));   /* W = 8 Q: ints 4Q..7Q are rewritten */
    fill(a, tag + 1);
    MPI_OK(MPI_File_write_all_begin_c(fh, a, (MPI_Count)Q, MPI_INT));
    MPI_OK(MPI_File_write_all_end(fh, a, &st));
    MPI_OK(MPI_File_seek(fh, mine + 4 * Q, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all_begin_c(fh, b, (MPI_Count)Q, MPI_INT));
    MPI_OK(MPI_File_read_all_end(fh, b, &st));
    check_moved(&st, b, tag + 1, "read_all_begin_c/end");
    check_position(fh, mine + 5 * Q, "read_all_begin_c/end");
    /* shared pointer: after every rank's part */
    const MPI_Offset shared0 = (MPI_Offset)nprocs * W;
    MPI_OK(MPI_File_seek_shared(fh, shared0, MPI_SEEK_SET));
    tag = 10;
    fill(a, tag);
    MPI_OK(MPI_File_write_shared_c(fh, a, (MPI_Count)Q, MPI_INT, &st));
    fill(a, tag + 1);
    MPI_OK(MPI_File_iwrite_shared_c(fh, a, (MPI_Count)Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    /* 2 nprocs records of Q ints, each whole, in some order: read back by
     * the shared pointer (read_shared_c, iread_shared_c, iread_shared), each
     * record read by exactly one rank */
    MPI_OK(MPI_File_seek_shared(fh, shared0, MPI_SEEK_SET));
    int got[3][Q], tags[3];
    MPI_OK(MPI_File_read_shared_c(fh, got[0], (MPI_Count)Q, MPI_INT, &st));
    MPI_OK(MPI_File_iread_shared_c(fh, got[1], (MPI_Count)Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_Barrier(MPI_COMM_WORLD);    /* the 2 nprocs records are taken: the next read is at their end */
    MPI_OK(MPI_File_iread_shared(fh, got[2], Q, MPI_INT, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_Count c = -1;
    MPI_OK(MPI_Get_count_c(&st, MPI_INT, &c));
    CHECK(c == 0, "iread_shared at the end of the shared records: count %lld", (long long)c);
    for (int k = 0; k < 2; k++) {
        int who = (got[k][0] % 1000) / 100;
        tags[k] = got[k][0] / 1000;
        CHECK((tags[k] == 10 || tags[k] == 11) && who >= 0 && who < nprocs, "shared record %d starts with %d", k,
              got[k][0]);
        for (int i = 1; i < Q; i++)
            CHECK(got[k][i] == got[k][0] + i, "shared record %d is torn", k);
        tags[k] = tags[k] * nprocs + who;   /* which record: (tag, writer) */
    }
    int *all = rank == 0 ? malloc(sizeof(int) * 2 * (size_t)nprocs) : NULL;
    MPI_OK(MPI_Gather(tags, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        int *seen = calloc(2 * (size_t)nprocs, sizeof(int));
        for (int i = 0; i < 2 * nprocs; i++)
            seen[all[i] - 10 * nprocs]++;
        for (int i = 0; i < 2 * nprocs; i++)
            CHECK(seen[i] == 1, "shared record (tag %d, rank %d) read %d times", 10 + i / nprocs, i % nprocs,
                  seen[i]);
        free(seen);
        free(all);
    }
    /* ordered, blocking and split, from the end of the shared records */
    const MPI_Offset ord = shared0 + 2L * nprocs * Q;
    MPI_OK(MPI_File_seek_shared(fh, ord, MPI_SEEK_SET));
    tag = 12;
    fill(a, tag);
    MPI_OK(MPI_File_write_ordered_c(fh, a, (MPI_Count)Q, MPI_INT, &st));
    fill(a, tag + 1);
    MPI_OK(MPI_File_write_ordered_begin_c(fh, a, (MPI_Count)Q, MPI_INT));
    MPI_OK(MPI_File_write_ordered_end(fh, a, &st));
    MPI_OK(MPI_File_seek_shared(fh, ord, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_ordered_c(fh, b, (MPI_Count)Q, MPI_INT, &st));
    check_moved(&st, b, tag, "read_ordered_c");
    MPI_OK(MPI_File_read_ordered_begin_c(fh, b, (MPI_Count)Q, MPI_INT));
    MPI_OK(MPI_File_read_ordered_end(fh, b, &st));
    check_moved(&st, b, tag + 1, "read_ordered_begin_c/end");
    MPI_OK(MPI_File_sync(fh));
    if (rank == 0) {
        /* the ordered records in rank order, each rank's ints where they belong */
        int *o = malloc(sizeof(int) * 2 * Q * (size_t)nprocs), want[Q];
        read_posix(p, o, 8L * Q * nprocs, ord * 4);
        for (int r = 0; r < nprocs; r++)
            for (int k = 0; k < 2; k++) {
                for (int i = 0; i < Q; i++)
                    want[i] = (12 + k) * 1000 + r * 100 + i;
                CHECK(!memcmp(o + (k * nprocs + r) * Q, want, sizeof(want)), "ordered record %d of rank %d: %d",
                      k, r, o[(k * nprocs + r) * Q]);
            }
        free(o);
    }
    MPI_OK(MPI_File_close(&fh));
    /* a data representation with large-count conversion functions */
    static int extra = 43;
    MPI_OK(MPI_Register_datarep_c("swapped_c", swapped_read_c, swapped_write_c, count_extent, &extra));
    CHECK(mt_class(MPI_Register_datarep_c("swapped_c", swapped_read_c, swapped_write_c, count_extent, &extra)) ==
              MPI_ERR_DUP_DATAREP, "a second registration of 'swapped_c'");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(p);
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "swapped_c", MPI_INFO_NULL));
    int v[2] = { 0x0a0b0c0d, rank }, back[2] = { 0, 0 };
    MPI_OK(MPI_File_write_at_all_c(fh, rank * 2, v, (MPI_Count)2, MPI_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    if (rank == 0) {
        unsigned char bytes[4];
        read_posix(p, bytes, 4, 0);
        CHECK(bytes[0] == 0x0a && bytes[3] == 0x0d, "'swapped_c' bytes %02x .. %02x", bytes[0], bytes[3]);
    }
    MPI_OK(MPI_File_read_at_c(fh, rank * 2, back, (MPI_Count)2, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(back[0] == v[0] && back[1] == v[1], "'swapped_c' round trip: %x %d", back[0], back[1]);
    MPI_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(p);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mt_rank = rank;
    CHECK(argc > 1, "usage: test_io_file <dir>");
    snprintf(dir, sizeof(dir), "%s", argv[1]);
    clean_dir();
    test_open_errors();
    test_errhandler();
    test_whole_file();
    test_shared();
    test_nonblocking();
    test_atomic();
    test_external32();
    test_datarep();
    test_count_forms();
    test_sequential();
    test_bottom();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_io_file: %d ranks: open/errors/handlers/sizes/info/pointers/shared/ordered/nonblocking/split/"
               "atomic/external32/datarep/large-count forms/sequential/append/MPI_BOTTOM as MPI-4.1 says\n", nprocs);
    MPI_Finalize();
    return 0;
}
