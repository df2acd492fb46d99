/*
 * The datatype engine's column moves (src/mpi/type_pack.c) against a naive
 * reference written here: one memcpy per block per element, in type-map
 * order. Maps chosen to take each shortcut, which the test checks through
 * the type object (a map that silently fell back to the per-block walk would
 * not test the shortcut): an indexed pattern with a column period whose last
 * period is cut short, with count > 1, negative displacements, blocks that
 * cross a multiple of the period's stride, a period longer than the strict
 * one (whole periods only), and structs whose blocks repeat with the extent.
 * Overlapping blocks must not take the column path (an unpack writes the
 * blocks column by column, not in type-map order). Every case packs with
 * MPI_Pack and unpacks with MPI_Unpack and, for partial data, with the
 * engine's rch_mpi_type_unpack.
 */
#include <stdint.h>
#include "mpi/type_impl.h"
#include "test_type_util.h"

TestSuite(type_period, .init = type_setup, .fini = type_teardown);

/* A map of nb (byte offset, byte length) blocks per element, ext apart. */
struct desc {
    int nb;
    long *off, *len;
    long ext;
};

static long desc_size(const struct desc *d)
{
    long s = 0;
    for (int k = 0; k < d->nb; k++)
        s += d->len[k];
    return s;
}

static void ref_pack(const unsigned char *base, int count, const struct desc *d, unsigned char *out)
{
    for (int i = 0; i < count; i++)
        for (int k = 0; k < d->nb; k++) {
            memcpy(out, base + i * d->ext + d->off[k], (size_t)d->len[k]);
            out += d->len[k];
        }
}

/* The first `bytes` of in, unpacked in type-map order. */
static void ref_unpack(const unsigned char *in, long bytes, unsigned char *base, int count, const struct desc *d)
{
    for (int i = 0; i < count; i++)
        for (int k = 0; k < d->nb && bytes > 0; k++) {
            long n = d->len[k] < bytes ? d->len[k] : bytes;
            memcpy(base + i * d->ext + d->off[k], in, (size_t)n);
            in += n;
            bytes -= n;
        }
}

/* Span of count elements of d in bytes: [*lo, *hi) relative to the base. */
static void desc_span(const struct desc *d, int count, long *lo, long *hi)
{
    *lo = 0;
    *hi = 0;
    for (int k = 0; k < d->nb; k++) {
        if (d->off[k] < *lo)
            *lo = d->off[k];
        if (d->off[k] + d->len[k] > *hi)
            *hi = d->off[k] + d->len[k];
    }
    *hi += (count - 1) * d->ext;
}

/* Pack and unpack count elements of t (described by d) both ways against
 * the reference; partial unpacks at a few cut points. */
static void check_moves(MPI_Datatype t, const struct desc *d, int count, const char *what)
{
    long lo, hi, size = desc_size(d) * count;
    desc_span(d, count, &lo, &hi);
    long span = hi - lo + 64;
    unsigned char *user = malloc((size_t)span), *user2 = malloc((size_t)span), *ref = malloc((size_t)span);
    unsigned char *packed = malloc((size_t)size), *rpacked = malloc((size_t)size);
    unsigned char *base = user - lo + 32, *base2 = user2 - lo + 32, *rbase = ref - lo + 32;
    cr_assert(user && user2 && ref && packed && rpacked);

    fill_pattern(user, span, 3);
    int pos = 0;
    cr_assert_eq(MPI_Pack(base, count, t, packed, (int)size, &pos, MPI_COMM_WORLD), MPI_SUCCESS, "%s", what);
    cr_assert_eq(pos, size, "%s: packed %d bytes, expected %ld", what, pos, size);
    ref_pack(base, count, d, rpacked);
    for (long i = 0; i < size; i++)
        cr_assert_eq(packed[i], rpacked[i], "%s count %d: packed byte %ld is %u, expected %u", what, count, i,
                     packed[i], rpacked[i]);

    fill_pattern(rpacked, size, 11);
    long cuts[] = { size, size - 1, size / 2 + 3, size / 3, 5 };
    for (int c = 0; c < 5; c++) {
        long bytes = cuts[c];
        if (bytes <= 0 || bytes > size)
            continue;
        fill_pattern(user2, span, 7);
        memcpy(ref, user2, (size_t)span);
        if (bytes == size) {
            pos = 0;
            cr_assert_eq(MPI_Unpack(rpacked, (int)size, &pos, base2, count, t, MPI_COMM_WORLD), MPI_SUCCESS);
        } else {
            rch_mpi_type_unpack(rpacked, (size_t)bytes, base2, count, rch_mpi_type_get(t));
        }
        ref_unpack(rpacked, bytes, rbase, count, d);
        for (long i = 0; i < span; i++)
            cr_assert_eq(user2[i], ref[i], "%s count %d, %ld of %ld bytes unpacked: byte %ld is %u, expected %u",
                         what, count, bytes, size, i + lo - 32, user2[i], ref[i]);
    }
    free(user);
    free(user2);
    free(ref);
    free(packed);
    free(rpacked);
}

/* An indexed type of MPI_INT: nb blocks, block b of lens[b % nl] ints at
 * disp0 + the lengths and gaps[b % ng] before it; the last block cut to
 * `last` ints if last > 0. Fills d (bytes). */
static MPI_Datatype pattern(int nb, const int *lens, int nl, const int *gaps, int ng, int disp0, int last,
                            struct desc *d)
{
    int *bl = malloc(sizeof(int) * (size_t)nb), *dp = malloc(sizeof(int) * (size_t)nb);
    d->off = malloc(sizeof(long) * (size_t)nb);
    d->len = malloc(sizeof(long) * (size_t)nb);
    d->nb = nb;
    int p = disp0;
    for (int b = 0; b < nb; b++) {
        bl[b] = b == nb - 1 && last > 0 ? last : lens[b % nl];
        dp[b] = p;
        d->off[b] = 4L * dp[b];
        d->len[b] = 4L * bl[b];
        p += lens[b % nl] + gaps[b % ng];
    }
    MPI_Datatype t;
    cr_assert_eq(MPI_Type_indexed(nb, bl, dp, MPI_INT, &t), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    d->ext = (long)ext;
    free(bl);
    free(dp);
    return t;
}

static void desc_free(struct desc *d)
{
    free(d->off);
    free(d->len);
}

static int colp_of(MPI_Datatype t)
{
    return rch_mpi_type_lookup(t)->colp;
}

static void check_counts(MPI_Datatype t, const struct desc *d, const char *what)
{
    for (int count = 1; count <= 3; count++)
        check_moves(t, d, count, what);
}

Test(type_period, indexed_pattern_cut_short)
{
    /* bench/rma_dtype's indexed type: 1, 2, 3 ints, gaps 1, 2: period 6 */
    int lens[] = { 1, 2, 3 }, gaps[] = { 1, 2 };
    struct desc d;
    MPI_Datatype t = pattern(6 * 500 + 4, lens, 3, gaps, 2, 0, 1, &d);
    cr_assert_eq(colp_of(t), 6, "the pattern's column period is %d, expected 6", colp_of(t));
    check_counts(t, &d, "indexed 1,2,3 / 1,2, 3004 blocks, last cut to 1 int");
    MPI_Type_free(&t);
    desc_free(&d);
}

Test(type_period, indexed_pattern_negative_displacements)
{
    int lens[] = { 3, 1, 2, 4 }, gaps[] = { 2, 1, 3 };
    struct desc d;
    MPI_Datatype t = pattern(12 * 80 + 7, lens, 4, gaps, 3, -5000, 0, &d);
    cr_assert_eq(colp_of(t), 12, "column period %d, expected 12", colp_of(t));
    check_counts(t, &d, "indexed from -5000 ints, period 12, 7 blocks after");
    MPI_Type_free(&t);
    desc_free(&d);
}

Test(type_period, indexed_whole_periods_longer_than_strict)
{
    /* 10 blocks a period, all whole: beyond the strict period (at most 8) */
    int lens[] = { 1, 2, 3, 1, 2 }, gaps[] = { 1, 2 };
    struct desc d;
    MPI_Datatype t = pattern(10 * 100, lens, 5, gaps, 2, 3, 0, &d);
    cr_assert_eq(colp_of(t), 10, "column period %d, expected 10", colp_of(t));
    check_counts(t, &d, "indexed period 10, 100 whole periods");
    /* elements that continue the pattern: the one-sweep path */
    MPI_Datatype r;
    MPI_Aint stride = (MPI_Aint)(rch_mpi_type_lookup(t)->colp_stride * 100);
    cr_assert_eq(MPI_Type_create_resized(t, 0, stride, &r), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_commit(&r), MPI_SUCCESS);
    d.ext = (long)stride;
    check_counts(r, &d, "indexed period 10 resized to 100 periods");
    MPI_Type_free(&r);
    MPI_Type_free(&t);
    desc_free(&d);
}

Test(type_period, blocks_crossing_the_stride_boundary)
{
    /* hindexed of ints: blocks at bytes 4 (4 bytes) and 20 (12 bytes) of every
     * 24: the second ends 8 bytes into the next stride, before its first block */
    enum { NP = 300 };
    int bl[2 * NP + 1];
    MPI_Aint dp[2 * NP + 1];
    long off[2 * NP + 1], len[2 * NP + 1];
    for (int k = 0; k < NP; k++) {
        bl[2 * k] = 1;
        dp[2 * k] = 24L * k + 4;
        bl[2 * k + 1] = 3;
        dp[2 * k + 1] = 24L * k + 12;
    }
    bl[2 * NP] = 2;   /* a cut-short end */
    dp[2 * NP] = 24L * NP + 4;
    for (int k = 0; k <= 2 * NP; k++) {
        off[k] = dp[k];
        len[k] = 4L * bl[k];
    }
    MPI_Datatype t;
    cr_assert_eq(MPI_Type_create_hindexed(2 * NP + 1, bl, dp, MPI_INT, &t), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    cr_assert_eq(colp_of(t), 2, "column period %d, expected 2", colp_of(t));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    struct desc d = { 2 * NP + 1, off, len, (long)ext };
    check_counts(t, &d, "hindexed 4 + 12 bytes a 24-byte stride, crossing it");
    MPI_Type_free(&t);
}

Test(type_period, overlapping_blocks_take_no_column_period)
{
    /* every period's second block overlaps the next period's first */
    enum { NP = 200 };
    int bl[2 * NP];
    MPI_Aint dp[2 * NP];
    long off[2 * NP], len[2 * NP];
    for (int k = 0; k < NP; k++) {
        bl[2 * k] = 1;
        dp[2 * k] = 16L * k;
        bl[2 * k + 1] = 3;
        dp[2 * k + 1] = 16L * k + 8;
    }
    for (int k = 0; k < 2 * NP; k++) {
        off[k] = dp[k];
        len[k] = 4L * bl[k];
    }
    MPI_Datatype t;
    cr_assert_eq(MPI_Type_create_hindexed(2 * NP, bl, dp, MPI_INT, &t), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    cr_assert_eq(colp_of(t), 0, "overlapping blocks have column period %d, expected none", colp_of(t));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    struct desc d = { 2 * NP, off, len, (long)ext };
    /* packing overlapping blocks is legal (unpacking into them is not) */
    long size = desc_size(&d);
    unsigned char *user = malloc((size_t)(ext + 64)), *packed = malloc((size_t)size),
                  *rpacked = malloc((size_t)size);
    fill_pattern(user, ext + 64, 5);
    int pos = 0;
    cr_assert_eq(MPI_Pack(user, 1, t, packed, (int)size, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    ref_pack(user, 1, &d, rpacked);
    cr_assert_eq(memcmp(packed, rpacked, (size_t)size), 0, "overlapping blocks packed wrong");
    free(user);
    free(packed);
    free(rpacked);
    MPI_Type_free(&t);
}

/* A struct of the given blocks (MPI_INT / MPI_DOUBLE / MPI_CHAR each), resized
 * to ext; checked for counts 1, 2, 3 and 1000. */
static void check_struct(int nb, const int *bl, const MPI_Aint *dp, const MPI_Datatype *ty, long ext,
                         const char *what)
{
    MPI_Datatype s, t;
    long off[8], len[8];
    cr_assert_eq(MPI_Type_create_struct(nb, bl, dp, ty, &s), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_create_resized(s, 0, ext, &t), MPI_SUCCESS);
    cr_assert_eq(MPI_Type_commit(&t), MPI_SUCCESS);
    for (int k = 0; k < nb; k++) {
        int sz;
        MPI_Type_size(ty[k], &sz);
        off[k] = (long)dp[k];
        len[k] = (long)sz * bl[k];
    }
    struct desc d = { nb, off, len, ext };
    check_counts(t, &d, what);
    check_moves(t, &d, 1000, what);
    MPI_Type_free(&t);
    MPI_Type_free(&s);
}

Test(type_period, structs_repeating_with_the_extent)
{
    MPI_Datatype ii[2] = { MPI_INT, MPI_INT };
    int bl1[2] = { 1, 2 };
    MPI_Aint dp1[2] = { 0, 12 };
    check_struct(2, bl1, dp1, ii, 24, "struct {int; int[2] at 12}, extent 24");
    MPI_Datatype dc[3] = { MPI_DOUBLE, MPI_CHAR, MPI_INT };
    int bl2[3] = { 1, 3, 3 };
    MPI_Aint dp2[3] = { 8, 0, 20 };   /* fields listed out of address order */
    check_struct(3, bl2, dp2, dc, 40, "struct {double at 8; char[3] at 0; int[3] at 20}, extent 40");
    MPI_Datatype id[2] = { MPI_INT, MPI_DOUBLE };
    int bl3[2] = { 1, 1 };
    MPI_Aint dp3[2] = { 4, 8 };   /* adjacent: merged into one 12-byte block */
    check_struct(2, bl3, dp3, id, 16, "struct {int at 4; double at 8}, extent 16");
}
