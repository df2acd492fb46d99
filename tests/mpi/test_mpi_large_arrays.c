/*
 * MPI_Type_create_subarray_c and MPI_Type_create_darray_c with sizes,
 * starts and global sizes beyond INT_MAX (a byte array of 2^32 x 4, both
 * orders; darray's BLOCK, CYCLIC and NONE over a grid of 2^30 processes),
 * checked against the type map MPI-4.1 5.1.3 defines, computed here from
 * the standard's text: the elements of the (sub)array that the call selects
 * (for darray: BLOCK(b) owns [c*b, (c+1)*b), b = ceil(gsize/p) by default;
 * CYCLIC(k) owns the k-blocks j with j mod p = c, k = 1 by default; NONE
 * all), in the array's storage order, at their offsets in that order; the
 * lb 0 and the extent the whole array's. Checked: size, lb, extent, true
 * extent, the bytes MPI_Unpack puts at each offset of a sparse buffer, and
 * MPI_Type_get_envelope_c/get_contents_c (the combiner, the large counts).
 * Selections of more than INT_MAX elements (2^31 + 3 columns; 2^31 whole
 * rows, one block however many rows): size, bounds and true extent.
 * A whole array whose bytes do not fit an MPI_Count is MPI_ERR_COUNT naming
 * the argument (of elements of extent 0, the same sizes are an empty type).
 */
#include <sys/mman.h>
#include "mpi_test.h"

#define G ((MPI_Count)1 << 32)    /* the long dimension */
#define MAXN 64                   /* elements a case selects, at most */

static unsigned char *buf;        /* sparse: the whole 2^34-byte array */
static const size_t buflen = (size_t)4 * G + 4096;

/* One dimension's selected indices as up to 8 ranges [lo, hi). */
struct sel {
    int n;
    MPI_Count lo[8], hi[8];
};

/* Offsets of the elements every dimension selects, in storage order
 * (C: the last index fastest; Fortran: the first). */
static int offsets(int nd, const MPI_Count *sizes, const struct sel *s, int order, MPI_Count *offs)
{
    int n = 0;
    MPI_Count idx[2], stride[2];
    for (int d = 0; d < nd; d++) {
        stride[d] = 1;
        for (int e = 0; e < nd; e++)
            if (order == MPI_ORDER_C ? e > d : e < d)
                stride[d] *= sizes[e];
    }
    int slow = order == MPI_ORDER_C ? 0 : nd - 1, fast = nd - 1 - slow;
    for (int r = 0; r < s[slow].n; r++)
        for (idx[slow] = s[slow].lo[r]; idx[slow] < s[slow].hi[r]; idx[slow]++)
            for (int q = 0; q < s[fast].n; q++)
                for (idx[fast] = s[fast].lo[q]; idx[fast] < s[fast].hi[q]; idx[fast]++) {
                    CHECK(n < MAXN, "more than %d elements selected", MAXN);
                    offs[n++] = idx[0] * stride[0] + idx[1] * stride[1];
                }
    return n;
}

/* t (of MPI_BYTE) has the map offs[0..n-1] and bounds [0, extent). */
static void expect_map(const char *what, MPI_Datatype t, int n, const MPI_Count *offs, MPI_Count extent)
{
    MPI_Count s, lb, ext, tlb, text, min = offs[0], max = offs[0];
    unsigned char packed[MAXN];
    int pos = 0;
    for (int i = 1; i < n; i++) {
        min = offs[i] < min ? offs[i] : min;
        max = offs[i] > max ? offs[i] : max;
    }
    MPI_OK(MPI_Type_size_c(t, &s));
    MPI_OK(MPI_Type_get_extent_c(t, &lb, &ext));
    MPI_OK(MPI_Type_get_true_extent_c(t, &tlb, &text));
    CHECK(s == n && lb == 0 && ext == extent && tlb == min && text == max - min + 1,
          "%s: size %lld lb %lld extent %lld true lb %lld true extent %lld, expected %d 0 %lld %lld %lld", what,
          (long long)s, (long long)lb, (long long)ext, (long long)tlb, (long long)text, n, (long long)extent,
          (long long)min, (long long)(max - min + 1));
    for (int i = 0; i < n; i++)
        packed[i] = (unsigned char)(1 + i);
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Unpack(packed, n, &pos, buf, 1, t, MPI_COMM_SELF));
    CHECK(pos == n, "%s: unpack consumed %d bytes, expected %d", what, pos, n);
    for (int i = 0; i < n; i++)
        CHECK(buf[offs[i]] == 1 + i, "%s: element %d at %lld is %u, expected %d", what, i, (long long)offs[i],
              buf[offs[i]], 1 + i);
    /* nothing beside them: every neighbour written is a selected element */
    for (int i = 0; i < n; i++)
        for (int side = -1; side <= 1; side += 2) {
            MPI_Count at = offs[i] + side;
            int sel = 0;
            for (int j = 0; j < n; j++)
                sel |= offs[j] == at;
            CHECK(sel || at < 0 || buf[at] == 0, "%s: wrote byte %lld beside element %d", what, (long long)at, i);
        }
    for (int i = 0; i < n; i++)
        buf[offs[i]] = 0;
}

/* The _c decoders return the call: combiner, ni ints, nc large counts equal to c. */
static void expect_record(const char *what, MPI_Datatype t, int combiner, MPI_Count ni, MPI_Count nc,
                          const MPI_Count *c)
{
    MPI_Count gi, ga, gc, gd, large[8];
    int comb, ints[16];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    MPI_OK(MPI_Type_get_envelope_c(t, &gi, &ga, &gc, &gd, &comb));
    CHECK(comb == combiner && gi == ni && ga == 0 && gc == nc && gd == 1,
          "%s: envelope_c combiner %d ni %lld na %lld nc %lld nd %lld, expected %d %lld 0 %lld 1", what, comb,
          (long long)gi, (long long)ga, (long long)gc, (long long)gd, combiner, (long long)ni, (long long)nc);
    MPI_OK(MPI_Type_get_contents_c(t, ni, 0, nc, 1, ints, addrs, large, types));
    for (int i = 0; i < nc; i++)
        CHECK(large[i] == c[i], "%s: large count %d is %lld, expected %lld", what, i, (long long)large[i],
              (long long)c[i]);
    CHECK(types[0] == MPI_BYTE, "%s: contents_c type 0x%x, expected MPI_BYTE", what, (unsigned)types[0]);
}

static void subarray(int order)
{
    const char *what = order == MPI_ORDER_C ? "subarray_c C order" : "subarray_c Fortran order";
    int l = order == MPI_ORDER_C ? 0 : 1, s = 1 - l;      /* the long and the short dimension */
    MPI_Count sizes[2], subs[2] = { 2, 2 }, starts[2], offs[MAXN], rec[6];
    struct sel sel[2];
    MPI_Datatype t;
    sizes[l] = G;
    sizes[s] = 4;
    starts[l] = ((MPI_Count)1 << 31) + 5;
    starts[s] = 1;
    for (int d = 0; d < 2; d++)
        sel[d] = (struct sel){ 1, { starts[d] }, { starts[d] + subs[d] } };
    int n = offsets(2, sizes, sel, order, offs);
    MPI_OK(MPI_Type_create_subarray_c(2, sizes, subs, starts, order, MPI_BYTE, &t));
    for (int d = 0; d < 2; d++) {
        rec[d] = sizes[d];
        rec[2 + d] = subs[d];
        rec[4 + d] = starts[d];
    }
    expect_record(what, t, MPI_COMBINER_SUBARRAY, 2, 6, rec);
    expect_map(what, t, n, offs, 4 * G);
    MPI_OK(MPI_Type_free(&t));
}

/* Process coordinate c of p, distribution dist (darg k) of g: what it owns. */
static struct sel owned(MPI_Count g, int dist, int k, int p, int c)
{
    struct sel s = { 0, { 0 }, { 0 } };
    if (dist == MPI_DISTRIBUTE_NONE)
        return (struct sel){ 1, { 0 }, { g } };
    if (dist == MPI_DISTRIBUTE_BLOCK) {
        MPI_Count b = k == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : k;
        MPI_Count lo = c * b, hi = lo + b < g ? lo + b : g;
        return lo < hi ? (struct sel){ 1, { lo }, { hi } } : s;
    }
    MPI_Count b = k == MPI_DISTRIBUTE_DFLT_DARG ? 1 : k;
    for (MPI_Count j = c; j * b < g; j += p) {
        CHECK(s.n < 8, "more than 8 cyclic blocks");
        s.lo[s.n] = j * b;
        s.hi[s.n++] = j * b + b < g ? j * b + b : g;
    }
    return s;
}

/* darray_c of 2^30 processes over the 2^32 x 4 array (dimension l long):
 * the process at coordinates c[] (the grid row-major whatever the order). */
static void darray(const char *what, int order, const int *dist, const int *dargs, const int *psizes,
                   const int *c)
{
    int l = order == MPI_ORDER_C ? 0 : 1, size = psizes[0] * psizes[1], rank = c[0] * psizes[1] + c[1];
    MPI_Count gsizes[2], offs[MAXN];
    struct sel sel[2];
    MPI_Datatype t;
    gsizes[l] = G;
    gsizes[1 - l] = 4;
    for (int d = 0; d < 2; d++)
        sel[d] = owned(gsizes[d], dist[d], dargs[d], psizes[d], c[d]);
    int n = offsets(2, gsizes, sel, order, offs);
    MPI_OK(MPI_Type_create_darray_c(size, rank, 2, gsizes, dist, dargs, psizes, order, MPI_BYTE, &t));
    expect_record(what, t, MPI_COMBINER_DARRAY, 10, 2, gsizes);
    expect_map(what, t, n, offs, 4 * G);
    MPI_OK(MPI_Type_free(&t));
}

static void darrays(void)
{
    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE;
    const int D = MPI_DISTRIBUTE_DFLT_DARG, P = 1 << 29;
    /* cyclic(2) rows over 2^29: 4 blocks from row 2(2^28 + 3) on, each 2^30 rows apart; columns 2, 3 */
    darray("darray_c C cyclic(2) x block", MPI_ORDER_C, (int[]){ C, B }, (int[]){ 2, D }, (int[]){ P, 2 },
           (int[]){ (1 << 28) + 3, 1 });
    darray("darray_c Fortran block x cyclic(2)", MPI_ORDER_FORTRAN, (int[]){ B, C }, (int[]){ D, 2 },
           (int[]){ 2, P }, (int[]){ 1, (1 << 28) + 3 });
    /* default blocks of 4 rows over 2^30: rows 2^31 + 4 .. 2^31 + 7, whole */
    darray("darray_c C block x none", MPI_ORDER_C, (int[]){ B, N }, (int[]){ D, D }, (int[]){ 2 * P, 1 },
           (int[]){ P + 1, 0 });
    darray("darray_c Fortran none x cyclic", MPI_ORDER_FORTRAN, (int[]){ N, C }, (int[]){ D, D },
           (int[]){ 1, 2 * P }, (int[]){ 0, P + 5 });
    /* explicit blocks of 2^3 over 2^29 (covering 2^32): the last process's 8 rows */
    darray("darray_c C block(8) x block", MPI_ORDER_C, (int[]){ B, B }, (int[]){ 8, D }, (int[]){ P, 2 },
           (int[]){ P - 1, 0 });
}

/* Selections of more than INT_MAX elements (one block each; layout only:
 * their maps would touch gigabytes). */
static void long_blocks(void)
{
    MPI_Count s, lb, ext, tlb, text;
    MPI_Datatype t;
    /* row 2, columns 5 .. 2^31 + 7 of a 4 x 2^32 array */
    MPI_OK(MPI_Type_create_subarray_c(2, (MPI_Count[]){ 4, G }, (MPI_Count[]){ 1, G / 2 + 3 },
                                      (MPI_Count[]){ 2, 5 }, MPI_ORDER_C, MPI_BYTE, &t));
    MPI_OK(MPI_Type_size_c(t, &s));
    MPI_OK(MPI_Type_get_extent_c(t, &lb, &ext));
    MPI_OK(MPI_Type_get_true_extent_c(t, &tlb, &text));
    CHECK(s == G / 2 + 3 && lb == 0 && ext == 4 * G && tlb == 2 * G + 5 && text == G / 2 + 3,
          "subarray_c of 2^31 + 3 columns: size %lld lb %lld extent %lld true lb %lld true extent %lld", (long long)s,
          (long long)lb, (long long)ext, (long long)tlb, (long long)text);
    MPI_OK(MPI_Type_free(&t));
    /* rank 1 of 2, default blocks of rows: rows 2^31 .. 2^32 - 1, bytes 2^33 .. 2^34 - 1 */
    MPI_OK(MPI_Type_create_darray_c(2, 1, 2, (MPI_Count[]){ G, 4 },
                                    (int[]){ MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE },
                                    (int[]){ MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, (int[]){ 2, 1 },
                                    MPI_ORDER_C, MPI_BYTE, &t));
    MPI_OK(MPI_Type_size_c(t, &s));
    MPI_OK(MPI_Type_get_extent_c(t, &lb, &ext));
    MPI_OK(MPI_Type_get_true_extent_c(t, &tlb, &text));
    CHECK(s == 2 * G && lb == 0 && ext == 4 * G && tlb == 2 * G && text == 2 * G,
          "darray_c of 2^31 rows: size %lld lb %lld extent %lld true lb %lld true extent %lld", (long long)s,
          (long long)lb, (long long)ext, (long long)tlb, (long long)text);
    MPI_OK(MPI_Type_free(&t));
}

/* Arrays whose bytes exceed an MPI_Count: MPI_ERR_COUNT naming the argument. */
static void refused(void)
{
    MPI_Datatype t;
    MPI_Count huge = (MPI_Count)1 << 40;
    MPI_Count sizes[2] = { huge, huge }, subs[2] = { 1, 1 }, starts[2] = { huge - 1, 0 };
    mt_expect_error(MPI_Type_create_subarray_c(2, sizes, subs, starts, MPI_ORDER_C, MPI_BYTE, &t), MPI_ERR_COUNT,
                    "array_of_sizes", "subarray_c of 2^80 bytes");
    int distribs[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE };
    int dargs[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, psizes[2] = { 1, 1 };
    mt_expect_error(MPI_Type_create_darray_c(1, 0, 2, sizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, MPI_BYTE,
                                             &t), MPI_ERR_COUNT, "array_of_gsizes", "darray_c of 2^80 bytes");
    /* of elements of extent 0 the same array is 0 bytes: an empty type */
    MPI_Datatype none;
    MPI_Count sz, lb, ext;
    MPI_OK(MPI_Type_contiguous(0, MPI_INT, &none));
    MPI_OK(MPI_Type_create_subarray_c(2, sizes, subs, starts, MPI_ORDER_C, none, &t));
    MPI_OK(MPI_Type_size_c(t, &sz));
    MPI_OK(MPI_Type_get_extent_c(t, &lb, &ext));
    CHECK(sz == 0 && lb == 0 && ext == 0, "subarray_c of 2^80 empty elements: size %lld lb %lld extent %lld",
          (long long)sz, (long long)lb, (long long)ext);
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&none));
    /* a start beyond the array is still the argument's error */
    MPI_Count far[2] = { huge, 0 }, small[2] = { huge, 1 };
    mt_expect_error(MPI_Type_create_subarray_c(2, small, subs, far, MPI_ORDER_C, MPI_BYTE, &t), MPI_ERR_ARG,
                    "array_of_starts", "subarray_c start 2^40 of 2^40");
}

int main(int argc, char **argv)
{
    int me, p;
    mt_init(&argc, &argv, &me, &p);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);   /* errors of no object (MPI-4.1 9.3) */
    buf = mmap(NULL, buflen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(buf != MAP_FAILED, "no address space for %zu bytes", buflen);
    subarray(MPI_ORDER_C);
    subarray(MPI_ORDER_FORTRAN);
    darrays();
    long_blocks();
    refused();
    munmap(buf, buflen);
    MPI_Finalize();
    printf("large_arrays: rank %d of %d ok\n", me, p);
    return 0;
}
