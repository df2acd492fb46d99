/*
 * Decoding the types the large-count constructors make (MPI-4.1 5.1.13):
 * for each _c constructor, with small values and with values beyond
 * INT_MAX,
 *   - MPI_Type_get_envelope_c gives the constructor's own combiner and the
 *     numbers of ints, addresses, large counts and types its row of the
 *     decoding table says, and MPI_Type_get_contents_c the arguments passed
 *     (counts and displacements as large counts, the rest as ints);
 *   - the int MPI_Type_get_envelope / get_contents are MPI_ERR_TYPE (their
 *     arrays cannot hold the large counts), and get_contents_c with too
 *     small an array_of_large_counts MPI_ERR_ARG;
 *   - the type rebuilt from what was decoded has the same size, bounds and
 *     true bounds, and the same type map: a packed stream unpacked through
 *     the original into a sparse (mmap'ed, untouched but for the map's
 *     pages) buffer packs back identically through the rebuilt type, and
 *     the external32 forms agree.
 * Also a _c type inside a struct_c (the inner handle returned, freed), a
 * dup of a _c type (MPI_COMBINER_DUP, no large counts: the int forms work),
 * and an external32 file view whose filetype is a vector_c of
 * MPI_SHORT_INT (6 bytes in external32, 8 natively: the view's layout is
 * rebuilt from the record, src/io/io_ftype.c), checked byte by byte.
 *
 * Usage: test_mpi_decode_c <dir for the file>
 */
#include <limits.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#include "mpi_test.h"

#define BIG ((MPI_Count)1 << 31)
#define SPAN ((size_t)1 << 34)      /* the sparse buffer: every case's map fits */
#define ORIGIN ((size_t)1 << 20)    /* where the buffer argument points: lb may be negative */
#define MAXN 16

struct want {
    const char *what;
    int combiner;
    int ni, nc, nd;
    int ints[MAXN];
    MPI_Count large[MAXN];
    MPI_Datatype types[2];
};

static void expect_error(int rc, int cls, const char *what)
{
    CHECK(mt_class(rc) == cls, "%s: error class %d, expected %d", what, mt_class(rc), cls);
}

/* t's record against w, and the int forms' errors. */
static void expect_record(MPI_Datatype t, const struct want *w)
{
    MPI_Count ni = -1, na = -1, nc = -1, nd = -1, large[MAXN];
    int comb = -1, ints[MAXN], ii, ia, id;
    MPI_Aint addrs[1];
    MPI_Datatype types[2];
    MPI_OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == w->combiner && ni == w->ni && na == 0 && nc == w->nc && nd == w->nd,
          "%s: envelope_c combiner %d ni %lld na %lld nc %lld nd %lld, expected %d %d 0 %d %d", w->what, comb,
          (long long)ni, (long long)na, (long long)nc, (long long)nd, w->combiner, w->ni, w->nc, w->nd);
    MPI_OK(MPI_Type_get_contents_c(t, MAXN, 1, MAXN, 2, ints, addrs, large, types));
    for (int i = 0; i < w->ni; i++)
        CHECK(ints[i] == w->ints[i], "%s: array_of_integers[%d] %d, expected %d", w->what, i, ints[i], w->ints[i]);
    for (int i = 0; i < w->nc; i++)
        CHECK(large[i] == w->large[i], "%s: array_of_large_counts[%d] %lld, expected %lld", w->what, i,
              (long long)large[i], (long long)w->large[i]);
    for (int i = 0; i < w->nd; i++)
        CHECK(types[i] == w->types[i], "%s: array_of_datatypes[%d] 0x%x, expected 0x%x", w->what, i,
              (unsigned)types[i], (unsigned)w->types[i]);
    expect_error(MPI_Type_get_envelope(t, &ii, &ia, &id, &comb), MPI_ERR_TYPE, "int MPI_Type_get_envelope");
    expect_error(MPI_Type_get_contents(t, MAXN, 1, 2, ints, addrs, types), MPI_ERR_TYPE,
                 "int MPI_Type_get_contents");
    expect_error(MPI_Type_get_contents_c(t, MAXN, 1, w->nc - 1, 2, ints, addrs, large, types), MPI_ERR_ARG,
                 "MPI_Type_get_contents_c with max_large_counts one short");
}

/* The type the decoded record describes, made again by its _c constructor. */
static MPI_Datatype rebuild(MPI_Datatype t)
{
    MPI_Count ni, na, nc, nd, c[MAXN];
    int comb, iv[MAXN];
    MPI_Aint av[1];
    MPI_Datatype tv[2], r = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(ni <= MAXN && nc <= MAXN && nd <= 2, "record too big for the test");
    MPI_OK(MPI_Type_get_contents_c(t, ni, na, nc, nd, iv, av, c, tv));
    MPI_Count n = c[0];
    switch (comb) {
    case MPI_COMBINER_CONTIGUOUS: MPI_OK(MPI_Type_contiguous_c(n, tv[0], &r)); break;
    case MPI_COMBINER_VECTOR: MPI_OK(MPI_Type_vector_c(n, c[1], c[2], tv[0], &r)); break;
    case MPI_COMBINER_HVECTOR: MPI_OK(MPI_Type_create_hvector_c(n, c[1], c[2], tv[0], &r)); break;
    case MPI_COMBINER_INDEXED: MPI_OK(MPI_Type_indexed_c(n, c + 1, c + 1 + n, tv[0], &r)); break;
    case MPI_COMBINER_HINDEXED: MPI_OK(MPI_Type_create_hindexed_c(n, c + 1, c + 1 + n, tv[0], &r)); break;
    case MPI_COMBINER_INDEXED_BLOCK: MPI_OK(MPI_Type_create_indexed_block_c(n, c[1], c + 2, tv[0], &r)); break;
    case MPI_COMBINER_HINDEXED_BLOCK: MPI_OK(MPI_Type_create_hindexed_block_c(n, c[1], c + 2, tv[0], &r)); break;
    case MPI_COMBINER_STRUCT: MPI_OK(MPI_Type_create_struct_c(n, c + 1, c + 1 + n, tv, &r)); break;
    case MPI_COMBINER_SUBARRAY:
        MPI_OK(MPI_Type_create_subarray_c(iv[0], c, c + iv[0], c + 2 * iv[0], iv[1], tv[0], &r));
        break;
    case MPI_COMBINER_DARRAY:
        MPI_OK(MPI_Type_create_darray_c(iv[0], iv[1], iv[2], c, iv + 3, iv + 3 + iv[2], iv + 3 + 2 * iv[2],
                                        iv[3 + 3 * iv[2]], tv[0], &r));
        break;
    case MPI_COMBINER_RESIZED: MPI_OK(MPI_Type_create_resized_c(tv[0], c[0], c[1], &r)); break;
    default: CHECK(0, "combiner %d", comb);
    }
    for (MPI_Count i = 0; i < nd; i++) {
        MPI_Count ci, ca, cl, cd;
        int cc;
        MPI_OK(MPI_Type_get_envelope_c(tv[i], &ci, &ca, &cl, &cd, &cc));
        if (cc != MPI_COMBINER_NAMED)
            MPI_OK(MPI_Type_free(&tv[i]));
    }
    return r;
}

/* Same size, bounds, true bounds and type map (data moved through both). */
static void expect_same(const char *what, MPI_Datatype t, MPI_Datatype r)
{
    MPI_Count s[2], lb[2], ext[2], tlb[2], text[2];
    MPI_Datatype x[2] = { t, r };
    for (int k = 0; k < 2; k++) {
        MPI_OK(MPI_Type_size_c(x[k], &s[k]));
        MPI_OK(MPI_Type_get_extent_c(x[k], &lb[k], &ext[k]));
        MPI_OK(MPI_Type_get_true_extent_c(x[k], &tlb[k], &text[k]));
    }
    CHECK(s[0] == s[1] && lb[0] == lb[1] && ext[0] == ext[1] && tlb[0] == tlb[1] && text[0] == text[1],
          "%s: rebuilt size %lld lb %lld extent %lld true %lld %lld, original %lld %lld %lld %lld %lld", what,
          (long long)s[1], (long long)lb[1], (long long)ext[1], (long long)tlb[1], (long long)text[1],
          (long long)s[0], (long long)lb[0], (long long)ext[0], (long long)tlb[0], (long long)text[0]);
    if (s[0] > 4096)
        return;   /* more bytes than a test should move: the bounds were compared */
    CHECK(tlb[0] >= -(MPI_Count)ORIGIN && tlb[0] + text[0] <= (MPI_Count)(SPAN - ORIGIN), "%s: map beyond the "
          "buffer", what);
    unsigned char *base = mmap(NULL, SPAN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                               -1, 0);
    CHECK(base != MAP_FAILED, "%s: mmap of the sparse buffer", what);
    unsigned char stream[4096], back[4096], e0[8192], e1[8192];
    MPI_Count pos = 0, n = s[0];
    MPI_Aint ep0 = 0, ep1 = 0;
    for (MPI_Count i = 0; i < n; i++)
        stream[i] = (unsigned char)(i * 37 + 11) | 1;   /* never 0: a byte not in the map reads 0 */
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Type_commit(&r));
    MPI_OK(MPI_Unpack_c(stream, n, &pos, base + ORIGIN, 1, t, MPI_COMM_SELF));
    pos = 0;
    MPI_OK(MPI_Pack_c(base + ORIGIN, 1, r, back, n, &pos, MPI_COMM_SELF));
    CHECK(pos == n && !memcmp(stream, back, (size_t)n), "%s: bytes unpacked through the original type pack "
          "differently through the rebuilt one", what);
    MPI_OK(MPI_Pack_external("external32", base + ORIGIN, 1, t, e0, sizeof(e0), &ep0));
    MPI_OK(MPI_Pack_external("external32", base + ORIGIN, 1, r, e1, sizeof(e1), &ep1));
    CHECK(ep0 == ep1 && !memcmp(e0, e1, (size_t)ep0), "%s: external32 packs differ", what);
    munmap(base, SPAN);
}

static void check(MPI_Datatype t, const struct want *w)
{
    expect_record(t, w);
    MPI_Datatype r = rebuild(t);
    expect_record(r, w);
    expect_same(w->what, t, r);
    MPI_OK(MPI_Type_free(&r));
    MPI_OK(MPI_Type_free(&t));
}

static void constructors(void)
{
    MPI_Datatype t;
#define W(...) (&(struct want){ __VA_ARGS__ })
    MPI_OK(MPI_Type_contiguous_c(5, MPI_INT, &t));
    check(t, W("contiguous_c(5, int)", MPI_COMBINER_CONTIGUOUS, 0, 1, 1, { 0 }, { 5 }, { MPI_INT }));
    MPI_OK(MPI_Type_contiguous_c(BIG + 3, MPI_BYTE, &t));
    check(t, W("contiguous_c(2^31 + 3, byte)", MPI_COMBINER_CONTIGUOUS, 0, 1, 1, { 0 }, { BIG + 3 }, { MPI_BYTE }));

    MPI_OK(MPI_Type_vector_c(3, 2, 5, MPI_INT, &t));
    check(t, W("vector_c(3, 2, 5, int)", MPI_COMBINER_VECTOR, 0, 3, 1, { 0 }, { 3, 2, 5 }, { MPI_INT }));
    MPI_OK(MPI_Type_vector_c(2, 1, BIG + 1, MPI_BYTE, &t));
    check(t, W("vector_c(2, 1, 2^31 + 1, byte)", MPI_COMBINER_VECTOR, 0, 3, 1, { 0 }, { 2, 1, BIG + 1 },
               { MPI_BYTE }));

    MPI_OK(MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &t));
    check(t, W("hvector_c(3, 2, 20, int)", MPI_COMBINER_HVECTOR, 0, 3, 1, { 0 }, { 3, 2, 20 }, { MPI_INT }));
    MPI_OK(MPI_Type_create_hvector_c(2, 3, BIG + 64, MPI_INT, &t));
    check(t, W("hvector_c(2, 3, 2^31 + 64 bytes, int)", MPI_COMBINER_HVECTOR, 0, 3, 1, { 0 }, { 2, 3, BIG + 64 },
               { MPI_INT }));

    MPI_OK(MPI_Type_indexed_c(2, (MPI_Count[]){ 1, 2 }, (MPI_Count[]){ 4, 0 }, MPI_INT, &t));
    check(t, W("indexed_c(2, {1, 2}, {4, 0}, int)", MPI_COMBINER_INDEXED, 0, 5, 1, { 0 }, { 2, 1, 2, 4, 0 },
               { MPI_INT }));
    MPI_OK(MPI_Type_indexed_c(2, (MPI_Count[]){ 1, 1 }, (MPI_Count[]){ 0, BIG + 5 }, MPI_BYTE, &t));
    check(t, W("indexed_c(2, {1, 1}, {0, 2^31 + 5}, byte)", MPI_COMBINER_INDEXED, 0, 5, 1, { 0 },
               { 2, 1, 1, 0, BIG + 5 }, { MPI_BYTE }));

    MPI_OK(MPI_Type_create_hindexed_c(2, (MPI_Count[]){ 2, 1 }, (MPI_Aint[]){ 8, 0 }, MPI_INT, &t));
    check(t, W("hindexed_c(2, {2, 1}, {8, 0}, int)", MPI_COMBINER_HINDEXED, 0, 5, 1, { 0 }, { 2, 2, 1, 8, 0 },
               { MPI_INT }));
    MPI_OK(MPI_Type_create_hindexed_c(2, (MPI_Count[]){ 1, 1 }, (MPI_Aint[]){ 2 * BIG, 4 }, MPI_SHORT, &t));
    check(t, W("hindexed_c(2, {1, 1}, {2^32, 4}, short)", MPI_COMBINER_HINDEXED, 0, 5, 1, { 0 },
               { 2, 1, 1, 2 * BIG, 4 }, { MPI_SHORT }));

    MPI_OK(MPI_Type_create_indexed_block_c(3, 2, (MPI_Count[]){ 0, 5, 2 }, MPI_INT, &t));
    check(t, W("indexed_block_c(3, 2, {0, 5, 2}, int)", MPI_COMBINER_INDEXED_BLOCK, 0, 5, 1, { 0 },
               { 3, 2, 0, 5, 2 }, { MPI_INT }));
    MPI_OK(MPI_Type_create_indexed_block_c(2, 1, (MPI_Count[]){ BIG + 1, 0 }, MPI_SHORT, &t));
    check(t, W("indexed_block_c(2, 1, {2^31 + 1, 0}, short)", MPI_COMBINER_INDEXED_BLOCK, 0, 4, 1, { 0 },
               { 2, 1, BIG + 1, 0 }, { MPI_SHORT }));

    MPI_OK(MPI_Type_create_hindexed_block_c(2, 2, (MPI_Aint[]){ 16, 0 }, MPI_INT, &t));
    check(t, W("hindexed_block_c(2, 2, {16, 0}, int)", MPI_COMBINER_HINDEXED_BLOCK, 0, 4, 1, { 0 },
               { 2, 2, 16, 0 }, { MPI_INT }));
    MPI_OK(MPI_Type_create_hindexed_block_c(2, 1, (MPI_Aint[]){ 0, 3 * BIG }, MPI_INT, &t));
    check(t, W("hindexed_block_c(2, 1, {0, 3 * 2^31}, int)", MPI_COMBINER_HINDEXED_BLOCK, 0, 4, 1, { 0 },
               { 2, 1, 0, 3 * BIG }, { MPI_INT }));

    MPI_OK(MPI_Type_create_struct_c(2, (MPI_Count[]){ 1, 2 }, (MPI_Aint[]){ 0, 8 },
                                    (MPI_Datatype[]){ MPI_INT, MPI_DOUBLE }, &t));
    check(t, W("struct_c(2, {1, 2}, {0, 8}, {int, double})", MPI_COMBINER_STRUCT, 0, 5, 2, { 0 },
               { 2, 1, 2, 0, 8 }, { MPI_INT, MPI_DOUBLE }));
    MPI_OK(MPI_Type_create_struct_c(2, (MPI_Count[]){ 1, 1 }, (MPI_Aint[]){ BIG + 8, 0 },
                                    (MPI_Datatype[]){ MPI_DOUBLE, MPI_INT }, &t));
    check(t, W("struct_c(2, {1, 1}, {2^31 + 8, 0}, {double, int})", MPI_COMBINER_STRUCT, 0, 5, 2, { 0 },
               { 2, 1, 1, BIG + 8, 0 }, { MPI_DOUBLE, MPI_INT }));

    MPI_OK(MPI_Type_create_subarray_c(2, (MPI_Count[]){ 4, 6 }, (MPI_Count[]){ 2, 3 }, (MPI_Count[]){ 1, 2 },
                                      MPI_ORDER_C, MPI_INT, &t));
    check(t, W("subarray_c(2, {4, 6}, {2, 3}, {1, 2}, C, int)", MPI_COMBINER_SUBARRAY, 2, 6, 1,
               { 2, MPI_ORDER_C }, { 4, 6, 2, 3, 1, 2 }, { MPI_INT }));
    MPI_OK(MPI_Type_create_subarray_c(1, (MPI_Count[]){ 1 << 20 }, (MPI_Count[]){ 3 }, (MPI_Count[]){ 1000 },
                                      MPI_ORDER_FORTRAN, MPI_DOUBLE, &t));
    check(t, W("subarray_c(1, {2^20}, {3}, {1000}, Fortran, double)", MPI_COMBINER_SUBARRAY, 2, 3, 1,
               { 1, MPI_ORDER_FORTRAN }, { 1 << 20, 3, 1000 }, { MPI_DOUBLE }));

    MPI_OK(MPI_Type_create_darray_c(4, 1, 2, (MPI_Count[]){ 8, 6 },
                                    (int[]){ MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
                                    (int[]){ MPI_DISTRIBUTE_DFLT_DARG, 1 }, (int[]){ 2, 2 }, MPI_ORDER_C, MPI_INT,
                                    &t));
    check(t, W("darray_c(4, 1, 2, {8, 6}, {block, cyclic}, {dflt, 1}, {2, 2}, C, int)", MPI_COMBINER_DARRAY, 10,
               2, 1,
               { 4, 1, 2, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, 1, 2, 2,
                 MPI_ORDER_C },
               { 8, 6 }, { MPI_INT }));

    MPI_OK(MPI_Type_create_resized_c(MPI_INT, -4, 16, &t));
    check(t, W("resized_c(int, -4, 16)", MPI_COMBINER_RESIZED, 0, 2, 1, { 0 }, { -4, 16 }, { MPI_INT }));
    MPI_OK(MPI_Type_create_resized_c(MPI_INT, 0, BIG + 8, &t));
    check(t, W("resized_c(int, 0, 2^31 + 8)", MPI_COMBINER_RESIZED, 0, 2, 1, { 0 }, { 0, BIG + 8 }, { MPI_INT }));
}

/* A _c type inside a struct_c, and a dup of a _c type. */
static void nested(void)
{
    MPI_Datatype v, s, d, inner[2];
    MPI_OK(MPI_Type_create_hvector_c(2, 1, BIG + 16, MPI_INT, &v));
    MPI_OK(MPI_Type_create_struct_c(2, (MPI_Count[]){ 1, 1 }, (MPI_Aint[]){ 0, 8 },
                                    (MPI_Datatype[]){ MPI_INT, v }, &s));
    MPI_OK(MPI_Type_dup(v, &d));
    MPI_OK(MPI_Type_free(&v));   /* the records still hold it */
    MPI_Count ni, na, nc, nd, large[8];
    int comb, ints[1];
    MPI_Aint addrs[1];
    MPI_OK(MPI_Type_get_envelope_c(s, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == MPI_COMBINER_STRUCT && nc == 5 && nd == 2, "struct_c of an hvector_c: combiner %d nc %lld nd %lld",
          comb, (long long)nc, (long long)nd);
    MPI_OK(MPI_Type_get_contents_c(s, 0, 0, 8, 2, ints, addrs, large, inner));
    CHECK(inner[0] == MPI_INT, "struct_c: first type 0x%x", (unsigned)inner[0]);
    expect_record(inner[1], W("the hvector_c inside a struct_c", MPI_COMBINER_HVECTOR, 0, 3, 1, { 0 },
                              { 2, 1, BIG + 16 }, { MPI_INT }));
    MPI_Datatype r = rebuild(s);
    expect_same("struct_c of an hvector_c", s, r);
    MPI_OK(MPI_Type_free(&r));
    MPI_OK(MPI_Type_free(&inner[1]));
    MPI_OK(MPI_Type_free(&s));

    /* MPI_COMBINER_DUP has one type and nothing else: the int forms decode it */
    int ii, ia, id;
    MPI_Datatype of;
    MPI_OK(MPI_Type_get_envelope(d, &ii, &ia, &id, &comb));
    CHECK(comb == MPI_COMBINER_DUP && ii == 0 && ia == 0 && id == 1, "dup of hvector_c: %d %d %d %d", comb, ii, ia,
          id);
    MPI_OK(MPI_Type_get_contents(d, 0, 0, 1, ints, addrs, &of));
    expect_record(of, W("the hvector_c a dup was made of", MPI_COMBINER_HVECTOR, 0, 3, 1, { 0 },
                        { 2, 1, BIG + 16 }, { MPI_INT }));
    MPI_OK(MPI_Type_free(&of));
    MPI_OK(MPI_Type_free(&d));
}

/* An external32 view whose filetype is vector_c(2, 1, 3, MPI_SHORT_INT):
 * each element 6 bytes in the file (a big-endian short, then int), the
 * stride 3 elements of 6 bytes (14.5.2: strides scale with the file sizes). */
static void file_view(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/decode_c_ext32.dat", dir);
    struct { short s; int i; } v[2] = { { 0x0102, 0x03040506 }, { 0x0708, 0x090a0b0c } }, back[2];
    MPI_Datatype ft;
    MPI_File fh;
    MPI_OK(MPI_Type_vector_c(2, 1, 3, MPI_SHORT_INT, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_size(fh, 0));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_SHORT_INT, ft, "external32", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_at(fh, 0, v, 2, MPI_SHORT_INT, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    static const unsigned char want[24] = { 1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0,
                                            0, 0, 0, 0, 0, 0, 7, 8, 9, 10, 11, 12 };
    unsigned char got[32];
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open %s", path);
    ssize_t n = pread(fd, got, sizeof(got), 0);
    close(fd);
    CHECK(n == 24 && !memcmp(got, want, 24), "external32 file through vector_c(2, 1, 3, short_int): %zd bytes, "
          "expected 24 with the elements at 0 and 18", n);
    memset(back, 0, sizeof(back));
    MPI_OK(MPI_File_read_at(fh, 0, back, 2, MPI_SHORT_INT, MPI_STATUS_IGNORE));
    CHECK(back[0].s == v[0].s && back[0].i == v[0].i && back[1].s == v[1].s && back[1].i == v[1].i,
          "read back through the view: %x %x %x %x", back[0].s, back[0].i, back[1].s, back[1].i);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&ft));
}

int main(int argc, char **argv)
{
    int rank, size;
    mt_init(&argc, &argv, &rank, &size);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    constructors();
    nested();
    file_view(argc > 1 ? argv[1] : ".");
    if (rank == 0)
        printf("decode_c: 21 _c types (11 constructors, small values and, but for subarray and darray, beyond INT_MAX) "
               "decoded, rebuilt and compared; "
               "struct_c of an hvector_c; dup; external32 view of a vector_c\n");
    MPI_Finalize();
    return 0;
}
