/*
 * Views whose data representation changes sizes (MPI-4.1 14.5).
 *
 * 1. external32's table: MPI_Pack_external_size of every predefined type
 *    rdmach has against the standard's sizes (MPI_LONG and
 *    MPI_UNSIGNED_LONG 4, MPI_WCHAR 2, MPI_LONG_DOUBLE 16, ...; a pair type
 *    the sum of its two), and MPI_LONG_INT's bytes.
 * 2. external32 views of MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_INT and of a
 *    struct {MPI_LONG at 0, MPI_DOUBLE at 4} resized to 12 (file
 *    displacements, as 14.5.1 says they are given): the file's bytes
 *    big-endian at the external32 sizes, MPI_File_get_type_extent and
 *    get_byte_offset in file bytes, values read back (sign-extended).
 * 3. A user representation ("widen": MPI_SHORT is 4 bytes in the file,
 *    everything big-endian) with a filetype that is a struct {short, int,
 *    double}: the conversion functions get the user's datatype, count =
 *    the data items (3 per element) and position 0 (14.5.3), and the file
 *    holds the items at their file sizes where the filetype puts them.
 *
 * Usage: test_io_filerep <dir>
 */
#include <fcntl.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <wchar.h>
#include <unistd.h>
#include "../mpi/mpi_test.h"

static int rank, nprocs;
static char dir[2048];

static void file_bytes(const char *p, unsigned char *b, int n, long off)
{
    memset(b, 0, (size_t)n);
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0, "open %s", p);
    CHECK(pread(fd, b, (size_t)n, off) == n, "%s: short file at %ld", p, off);
    close(fd);
}

static void be(unsigned char *out, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static void test_table(void)
{
    static const struct {
        MPI_Datatype t;
        const char *name;
        long size;
    } table[] = {
#define E(t, s) { t, #t, s }
        E(MPI_PACKED, 1), E(MPI_BYTE, 1), E(MPI_CHAR, 1), E(MPI_UNSIGNED_CHAR, 1), E(MPI_SIGNED_CHAR, 1),
        E(MPI_WCHAR, 2), E(MPI_SHORT, 2), E(MPI_UNSIGNED_SHORT, 2), E(MPI_INT, 4), E(MPI_LONG, 4),
        E(MPI_UNSIGNED, 4), E(MPI_UNSIGNED_LONG, 4), E(MPI_LONG_LONG_INT, 8), E(MPI_UNSIGNED_LONG_LONG, 8),
        E(MPI_FLOAT, 4), E(MPI_DOUBLE, 8), E(MPI_LONG_DOUBLE, 16), E(MPI_C_BOOL, 1), E(MPI_INT8_T, 1),
        E(MPI_INT16_T, 2), E(MPI_INT32_T, 4), E(MPI_INT64_T, 8), E(MPI_UINT8_T, 1), E(MPI_UINT16_T, 2),
        E(MPI_UINT32_T, 4), E(MPI_UINT64_T, 8), E(MPI_AINT, 8), E(MPI_COUNT, 8), E(MPI_OFFSET, 8),
        E(MPI_C_COMPLEX, 8), E(MPI_C_FLOAT_COMPLEX, 8), E(MPI_C_DOUBLE_COMPLEX, 16),
        E(MPI_C_LONG_DOUBLE_COMPLEX, 32), E(MPI_CHARACTER, 1), E(MPI_LOGICAL, 4), E(MPI_INTEGER, 4),
        E(MPI_REAL, 4), E(MPI_DOUBLE_PRECISION, 8), E(MPI_COMPLEX, 8), E(MPI_DOUBLE_COMPLEX, 16),
        E(MPI_INTEGER1, 1), E(MPI_INTEGER2, 2), E(MPI_INTEGER4, 4), E(MPI_INTEGER8, 8), E(MPI_REAL4, 4),
        E(MPI_REAL8, 8), E(MPI_REAL16, 16), E(MPI_COMPLEX8, 8), E(MPI_COMPLEX16, 16), E(MPI_COMPLEX32, 32),
        E(MPI_CXX_BOOL, 1), E(MPI_CXX_FLOAT_COMPLEX, 8), E(MPI_CXX_DOUBLE_COMPLEX, 16),
        E(MPI_CXX_LONG_DOUBLE_COMPLEX, 32),
        /* pairs: the sum of their members' sizes */
        E(MPI_FLOAT_INT, 8), E(MPI_DOUBLE_INT, 12), E(MPI_LONG_INT, 8), E(MPI_2INT, 8), E(MPI_SHORT_INT, 6),
        E(MPI_LONG_DOUBLE_INT, 20), E(MPI_2REAL, 8), E(MPI_2DOUBLE_PRECISION, 16), E(MPI_2INTEGER, 8),
#undef E
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        MPI_Aint s = -1;
        int rc = MPI_Pack_external_size("external32", 1, table[i].t, &s);
        CHECK(rc == MPI_SUCCESS && s == table[i].size, "%s: external32 size %ld (rc %d), the standard says %ld",
              table[i].name, (long)s, rc, table[i].size);
    }
    /* MPI_LONG_INT: long then int, 4 bytes each; MPI_WCHAR: its low 2 bytes */
    struct {
        long l;
        int i;
    } li = { -3, 7 }, lb;
    unsigned char got[16], want[8] = { 0xff, 0xff, 0xff, 0xfd, 0, 0, 0, 7 };
    MPI_Aint pos = 0;
    MPI_OK(MPI_Pack_external("external32", &li, 1, MPI_LONG_INT, got, sizeof(got), &pos));
    CHECK(pos == 8 && !memcmp(got, want, 8), "MPI_LONG_INT external32 bytes (pos %ld)", (long)pos);
    pos = 0;
    MPI_OK(MPI_Unpack_external("external32", got, 8, &pos, &lb, 1, MPI_LONG_INT));
    CHECK(lb.l == -3 && lb.i == 7, "MPI_LONG_INT round trip %ld %d", lb.l, lb.i);
    wchar_t w[2] = { 0x263a, 0x41 }, wb[2] = { 0, 0 };
    const unsigned char ww[4] = { 0x26, 0x3a, 0, 0x41 };
    pos = 0;
    MPI_OK(MPI_Pack_external("external32", w, 2, MPI_WCHAR, got, sizeof(got), &pos));
    CHECK(pos == 4 && !memcmp(got, ww, 4), "MPI_WCHAR external32 bytes (pos %ld)", (long)pos);
    pos = 0;
    MPI_OK(MPI_Unpack_external("external32", got, 4, &pos, wb, 2, MPI_WCHAR));
    CHECK(wb[0] == w[0] && wb[1] == w[1], "MPI_WCHAR round trip %x %x", (unsigned)wb[0], (unsigned)wb[1]);
}

/* 3 values of type t per rank through an external32 view of t, at the
 * rank's offset; file bytes = want (3 * fsize per rank). */
static void view_one(const char *path, MPI_Datatype t, const char *name, const void *v, void *back, int nsize,
                     const unsigned char *want, int fsize)
{
    MPI_File fh;
    mt_open_empty(path, &fh);
    MPI_OK(MPI_File_set_view(fh, 0, t, t, "external32", MPI_INFO_NULL));
    MPI_Aint ext = 0;
    MPI_OK(MPI_File_get_type_extent(fh, t, &ext));
    CHECK(ext == fsize, "%s: file extent %ld, external32 says %d", name, (long)ext, fsize);
    MPI_Offset off = 0;
    MPI_OK(MPI_File_get_byte_offset(fh, 2, &off));
    CHECK(off == 2 * fsize, "%s: etype 2 is at byte %lld, not %d", name, (long long)off, 2 * fsize);
    MPI_Status st;
    int cnt = 0;
    MPI_OK(MPI_File_write_at_all(fh, 3 * rank, v, 3, t, &st));
    MPI_OK(MPI_Get_count(&st, t, &cnt));
    CHECK(cnt == 3, "%s: wrote %d items", name, cnt);
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char got[64];
    file_bytes(path, got, 3 * fsize, (long)3 * fsize * rank);
    for (int i = 0; i < 3 * fsize; i++)
        CHECK(got[i] == want[i], "%s: file byte %d is %02x, external32 says %02x", name, i, got[i], want[i]);
    memset(back, 0, (size_t)(3 * nsize));
    MPI_OK(MPI_File_read_at_all(fh, 3 * rank, back, 3, t, &st));
    MPI_OK(MPI_Get_count(&st, t, &cnt));
    CHECK(cnt == 3 && !memcmp(back, v, (size_t)(3 * nsize)), "%s: read back %d items, values %s", name, cnt,
          memcmp(back, v, (size_t)(3 * nsize)) ? "differ" : "equal");
    MPI_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
}

static void test_ext32_views(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/filerep_x32_np%d.dat", dir, nprocs);
    unsigned char want[64];
    long l[3] = { -2 - rank, 0x12345678, -0x7fffffff + rank }, lb[3];
    for (int k = 0; k < 3; k++)
        be(want + 4 * k, (uint64_t)l[k], 4);
    view_one(path, MPI_LONG, "MPI_LONG", l, lb, sizeof(long), want, 4);
    unsigned long u[3] = { 0x89abcdefUL + (unsigned)rank, 1, 0xffffffffUL }, ub[3];
    for (int k = 0; k < 3; k++)
        be(want + 4 * k, u[k], 4);
    view_one(path, MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", u, ub, sizeof(unsigned long), want, 4);
    struct li {
        long l;
        int i;
    } li[3], lib[3];
    memset(li, 0, sizeof(li));   /* the padding compares equal */
    for (int k = 0; k < 3; k++) {
        li[k].l = -100 * (k + 1) - rank;
        li[k].i = 1000 * k + rank;
        be(want + 8 * k, (uint64_t)li[k].l, 4);
        be(want + 8 * k + 4, (uint64_t)(int64_t)li[k].i, 4);
    }
    view_one(path, MPI_LONG_INT, "MPI_LONG_INT", li, lib, sizeof(struct li), want, 8);
    wchar_t w[3] = { 0x263a, 0x41 + rank, 0x7ff }, wb[3];
    for (int k = 0; k < 3; k++)
        be(want + 2 * k, (uint64_t)w[k], 2);
    view_one(path, MPI_WCHAR, "MPI_WCHAR", w, wb, sizeof(wchar_t), want, 2);

    /* struct {long, double}: in the file long at 0, double at 4, 12 bytes;
     * in memory long at 0, double at 8 */
    struct ld {
        long l;
        double d;
    } m[3], mb[3];
    int bl[2] = { 1, 1 };
    MPI_Aint fd[2] = { 0, 4 }, md[2] = { 0, 8 };
    MPI_Datatype ts[2] = { MPI_LONG, MPI_DOUBLE }, fs, ft, mt;
    MPI_OK(MPI_Type_create_struct(2, bl, fd, ts, &fs));
    MPI_OK(MPI_Type_create_resized(fs, 0, 12, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_Type_create_struct(2, bl, md, ts, &mt));
    MPI_OK(MPI_Type_commit(&mt));
    for (int k = 0; k < 3; k++) {
        m[k].l = -(long)k - 5 * rank;
        m[k].d = 0.5 + k + rank;
    }
    MPI_File fh;
    mt_open_empty(path, &fh);
    MPI_OK(MPI_File_set_view(fh, 36L * rank, MPI_BYTE, ft, "external32", MPI_INFO_NULL));
    MPI_Aint ext = 0;
    MPI_OK(MPI_File_get_type_extent(fh, mt, &ext));
    CHECK(ext == 16, "struct {long@0, double@8}: file extent %ld, not 16 (byte displacements are not scaled)",
          (long)ext);
    MPI_OK(MPI_File_write_all(fh, m, 3, mt, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char got[36];
    file_bytes(path, got, 36, 36L * rank);
    for (int k = 0; k < 3; k++) {
        uint64_t dbits;
        memcpy(&dbits, &m[k].d, 8);
        be(want + 12 * k, (uint64_t)m[k].l, 4);
        be(want + 12 * k + 4, dbits, 8);
    }
    CHECK(!memcmp(got, want, 36), "struct filetype: file bytes differ from long(4)+double(8) big-endian");
    memset(mb, 0, sizeof(mb));
    MPI_OK(MPI_File_read_at_all(fh, 0, mb, 3, mt, MPI_STATUS_IGNORE));
    for (int k = 0; k < 3; k++)
        CHECK(mb[k].l == m[k].l && mb[k].d == m[k].d, "struct filetype: element %d read back %ld %g", k, mb[k].l,
              mb[k].d);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&fs));
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_Type_free(&mt));
    MPI_Barrier(MPI_COMM_WORLD);

    /* a filetype with a large count (MPI_Type_contiguous_c of more than
     * INT_MAX longs): in the file 4 bytes each, its extent beyond 8 GiB */
    MPI_Datatype big;
    MPI_OK(MPI_Type_contiguous_c((MPI_Count)INT_MAX + 2, MPI_LONG, &big));
    MPI_OK(MPI_Type_commit(&big));
    mt_open_empty(path, &fh);
    MPI_OK(MPI_File_set_view(fh, 0, MPI_LONG, big, "external32", MPI_INFO_NULL));
    MPI_OK(MPI_File_get_type_extent(fh, big, &ext));
    CHECK(ext == ((MPI_Aint)INT_MAX + 2) * 4, "contiguous_c of 2^31+1 longs: file extent %ld, not %ld", (long)ext,
          ((long)INT_MAX + 2) * 4);
    MPI_OK(MPI_File_write_at_all(fh, 3 * rank, l, 3, MPI_LONG, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    file_bytes(path, got, 12, 12L * rank);
    for (int k = 0; k < 3; k++)
        be(want + 4 * k, (uint64_t)l[k], 4);
    CHECK(!memcmp(got, want, 12), "contiguous_c filetype: file bytes differ from 3 longs of 4 bytes big-endian");
    memset(lb, 0, sizeof(lb));
    MPI_OK(MPI_File_read_at_all(fh, 3 * rank, lb, 3, MPI_LONG, MPI_STATUS_IGNORE));
    CHECK(!memcmp(lb, l, sizeof(l)), "contiguous_c filetype: longs read back differ");
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&big));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
}

/* "widen": big-endian, MPI_SHORT as 4 bytes, other types their own size.
 * The functions walk the signature {short, int, double} of the test's
 * struct, the only type they are given. */
struct rec {
    short s;
    int i;
    double d;
};
static struct {
    int calls;
    MPI_Datatype dt;
    int count;
    MPI_Offset position;
} seen[2];
static MPI_Datatype rec_type;

static int widen_extent(MPI_Datatype t, MPI_Aint *extent, void *x)
{
    (void)x;
    if (t == MPI_SHORT || t == MPI_INT)
        *extent = 4;
    else if (t == MPI_BYTE)
        *extent = 1;
    else if (t == MPI_DOUBLE)
        *extent = 8;
    else
        return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

static int widen(int to_file, void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position)
{
    seen[to_file].calls++;
    seen[to_file].dt = dt;
    seen[to_file].count = count;
    seen[to_file].position = position;
    if (dt != rec_type || count % 3 || position % 3)
        return MPI_ERR_TYPE;
    struct rec *r = (struct rec *)userbuf + position / 3;
    unsigned char *f = filebuf;
    for (int k = 0; k < count / 3; k++, r++, f += 16) {
        if (to_file) {
            uint64_t dbits;
            memcpy(&dbits, &r->d, 8);
            be(f, (uint64_t)(int64_t)r->s, 4);
            be(f + 4, (uint64_t)(int64_t)r->i, 4);
            be(f + 8, dbits, 8);
        } else {
            uint64_t v[3] = { 0, 0, 0 };
            for (int b = 0; b < 4; b++)
                v[0] = v[0] << 8 | f[b], v[1] = v[1] << 8 | f[4 + b];
            for (int b = 0; b < 8; b++)
                v[2] = v[2] << 8 | f[8 + b];
            r->s = (short)(int32_t)v[0];
            r->i = (int)(int32_t)v[1];
            memcpy(&r->d, &v[2], 8);
        }
    }
    return MPI_SUCCESS;
}

static int widen_read(void *u, MPI_Datatype dt, int count, void *f, MPI_Offset pos, void *x)
{
    (void)x;
    return widen(0, u, dt, count, f, pos);
}

static int widen_write(void *u, MPI_Datatype dt, int count, void *f, MPI_Offset pos, void *x)
{
    (void)x;
    return widen(1, u, dt, count, f, pos);
}

static void test_user_rep(void)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/filerep_user_np%d.dat", dir, nprocs);
    MPI_OK(MPI_Register_datarep("widen", widen_read, widen_write, widen_extent, NULL));
    int bl[3] = { 1, 1, 1 };
    MPI_Aint md[3] = { offsetof(struct rec, s), offsetof(struct rec, i), offsetof(struct rec, d) };
    MPI_Aint fdp[3] = { 0, 4, 8 };
    MPI_Datatype ts[3] = { MPI_SHORT, MPI_INT, MPI_DOUBLE }, ft0, ft;
    MPI_OK(MPI_Type_create_struct(3, bl, md, ts, &rec_type));
    MPI_OK(MPI_Type_commit(&rec_type));
    /* the filetype: one record of this rank, then the others' (file bytes) */
    MPI_OK(MPI_Type_create_struct(3, bl, fdp, ts, &ft0));
    MPI_OK(MPI_Type_create_resized(ft0, 0, 16L * nprocs, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_File fh;
    mt_open_empty(path, &fh);
    MPI_OK(MPI_File_set_view(fh, 16L * rank, MPI_BYTE, ft, "widen", MPI_INFO_NULL));
    MPI_Aint ext = 0;
    MPI_OK(MPI_File_get_type_extent(fh, MPI_SHORT, &ext));
    CHECK(ext == 4, "MPI_SHORT's extent in 'widen' is %ld, not 4", (long)ext);
    struct rec r[4], rb[4];
    memset(r, 0, sizeof(r));
    for (int k = 0; k < 4; k++) {
        r[k].s = (short)(-1 - k - rank);
        r[k].i = 100000 * k + rank;
        r[k].d = 0.25 * k - rank;
    }
    MPI_Status st;
    int cnt = 0;
    MPI_OK(MPI_File_write_all(fh, r, 4, rec_type, &st));
    MPI_OK(MPI_Get_count(&st, rec_type, &cnt));
    CHECK(cnt == 4, "wrote %d records", cnt);
    CHECK(seen[1].calls == 1 && seen[1].dt == rec_type && seen[1].count == 12 && seen[1].position == 0,
          "write conversion: %d calls, count %d (12 items: 4 records of 3), position %lld, %s datatype",
          seen[1].calls, seen[1].count, (long long)seen[1].position, seen[1].dt == rec_type ? "the user's" : "another");
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char got[16], want[16];
    for (int k = 0; k < 4; k++) {
        uint64_t dbits;
        memcpy(&dbits, &r[k].d, 8);
        be(want, (uint64_t)(int64_t)r[k].s, 4);
        be(want + 4, (uint64_t)(int64_t)r[k].i, 4);
        be(want + 8, dbits, 8);
        file_bytes(path, got, 16, 16L * (k * nprocs + rank));
        CHECK(!memcmp(got, want, 16), "record %d in the file: bytes differ from short(4)+int(4)+double(8)", k);
    }
    memset(rb, 0, sizeof(rb));
    MPI_OK(MPI_File_read_at_all(fh, 0, rb, 4, rec_type, &st));
    MPI_OK(MPI_Get_count(&st, rec_type, &cnt));
    CHECK(cnt == 4 && seen[0].calls == 1 && seen[0].count == 12 && seen[0].position == 0,
          "read: %d records, conversion count %d position %lld", cnt, seen[0].count, (long long)seen[0].position);
    for (int k = 0; k < 4; k++)
        CHECK(rb[k].s == r[k].s && rb[k].i == r[k].i && rb[k].d == r[k].d, "record %d read back %d %d %g", k, rb[k].s,
              rb[k].i, rb[k].d);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&ft0));
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_Type_free(&rec_type));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mt_rank = rank;
    CHECK(argc > 1, "usage: test_io_filerep <dir>");
    snprintf(dir, sizeof(dir), "%s", argv[1]);
    test_table();
    test_ext32_views();
    test_user_rep();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_io_filerep: %d ranks: external32 sizes of the standard's table; external32 views of long, "
               "unsigned long, long+int, wchar, a struct, a large-count filetype; a user representation with a struct filetype\n", nprocs);
    MPI_Finalize();
    return 0;
}
