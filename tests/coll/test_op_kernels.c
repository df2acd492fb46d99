/*
 * The built-in reduction kernels (src/coll/op_kernels.c): every operation on
 * every representation it is defined on, against a naive element-by-element
 * reference written independently here, on inputs with negative values,
 * zeros, ties and wrap-around; and the matrix of what is defined.
 */
#include <complex.h>
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "base/base.h"
#include "base/tunables.h"
#include "coll/coll.h"

#define N 257   /* odd, so no kernel gets away with a vectorised multiple only */

enum cat { CAT_SINT, CAT_UINT, CAT_FLOAT, CAT_COMPLEX, CAT_BOOL, CAT_PAIR };

static enum cat cat_of(enum rch_coll_kind k)
{
    switch (k) {
    case RCH_COLL_K_I8: case RCH_COLL_K_I16: case RCH_COLL_K_I32: case RCH_COLL_K_I64:
        return CAT_SINT;
    case RCH_COLL_K_U8: case RCH_COLL_K_U16: case RCH_COLL_K_U32: case RCH_COLL_K_U64:
        return CAT_UINT;
    case RCH_COLL_K_F32: case RCH_COLL_K_F64: case RCH_COLL_K_FLD: case RCH_COLL_K_F128:
        return CAT_FLOAT;
    case RCH_COLL_K_C32: case RCH_COLL_K_C64: case RCH_COLL_K_CLD: case RCH_COLL_K_C128:
        return CAT_COMPLEX;
    case RCH_COLL_K_BOOL:
        return CAT_BOOL;
    default:
        return CAT_PAIR;
    }
}

/* Which operations must be defined on which category (MPI's rules, before
 * the MPI binding narrows them by datatype). */
static int defined(enum rch_coll_opkind op, enum cat c)
{
    switch (op) {
    case RCH_COLL_OP_MAX: case RCH_COLL_OP_MIN:
        return c == CAT_SINT || c == CAT_UINT || c == CAT_FLOAT;
    case RCH_COLL_OP_SUM: case RCH_COLL_OP_PROD:
        return c == CAT_SINT || c == CAT_UINT || c == CAT_FLOAT || c == CAT_COMPLEX;
    case RCH_COLL_OP_LAND: case RCH_COLL_OP_LOR: case RCH_COLL_OP_LXOR:
        return c == CAT_SINT || c == CAT_UINT || c == CAT_BOOL;
    case RCH_COLL_OP_BAND: case RCH_COLL_OP_BOR: case RCH_COLL_OP_BXOR:
        return c == CAT_SINT || c == CAT_UINT;
    case RCH_COLL_OP_MAXLOC: case RCH_COLL_OP_MINLOC:
        return c == CAT_PAIR;
    case RCH_COLL_OP_REPLACE: case RCH_COLL_OP_NO_OP:
        return 1;
    default:
        return 0;
    }
}

static unsigned seed = 99;
static unsigned rnd(void)
{
    seed = seed * 1664525u + 1013904223u;
    return seed >> 7;
}

/* Inputs: small ranges so ties and zeros happen often, plus extremes. */
static void fill(enum rch_coll_kind k, unsigned char *buf, size_t n)
{
    size_t es = rch_coll_kind_size(k);
    for (size_t i = 0; i < n; i++) {
        unsigned char *e = buf + i * es;
        int small = (int)(rnd() % 7) - 3;
        long long wide = (long long)rnd() * (long long)rnd() * (rnd() % 2 ? 1 : -1);
        long long v = rnd() % 4 == 0 ? wide : small;
        switch (k) {
        case RCH_COLL_K_I8: { int8_t x = (int8_t)v; memcpy(e, &x, 1); break; }
        case RCH_COLL_K_I16: { int16_t x = (int16_t)v; memcpy(e, &x, 2); break; }
        case RCH_COLL_K_I32: { int32_t x = (int32_t)v; memcpy(e, &x, 4); break; }
        case RCH_COLL_K_I64: { int64_t x = v; memcpy(e, &x, 8); break; }
        case RCH_COLL_K_U8: { uint8_t x = (uint8_t)v; memcpy(e, &x, 1); break; }
        case RCH_COLL_K_U16: { uint16_t x = (uint16_t)v; memcpy(e, &x, 2); break; }
        case RCH_COLL_K_U32: { uint32_t x = (uint32_t)v; memcpy(e, &x, 4); break; }
        case RCH_COLL_K_U64: { uint64_t x = (uint64_t)v; memcpy(e, &x, 8); break; }
        case RCH_COLL_K_F32: { float x = (float)small / 4; memcpy(e, &x, 4); break; }
        case RCH_COLL_K_F64: { double x = (double)small / 8; memcpy(e, &x, 8); break; }
        case RCH_COLL_K_FLD: { long double x = (long double)small / 16; memset(e, 0, 16); memcpy(e, &x, sizeof(x)); break; }
        case RCH_COLL_K_C32: { float _Complex x = (float)small + (float)(rnd() % 5) * I; memcpy(e, &x, 8); break; }
        case RCH_COLL_K_C64: { double _Complex x = (double)small - (double)(rnd() % 5) * I; memcpy(e, &x, 16); break; }
        case RCH_COLL_K_CLD: { long double _Complex x = (long double)small + (long double)(rnd() % 3) * I; memset(e, 0, 32); memcpy(e, &x, sizeof(x)); break; }
        case RCH_COLL_K_F128: { _Float128 x = (_Float128)small / 32; memcpy(e, &x, 16); break; }
        case RCH_COLL_K_C128: { _Float128 _Complex x = (_Float128)small + (_Float128)(rnd() % 7) * I; memcpy(e, &x, 32); break; }
        case RCH_COLL_K_BOOL: { bool x = rnd() % 2; memcpy(e, &x, 1); break; }
        default: {   /* pairs: value then index, packed */
            int idx = (int)(rnd() % 5);
            switch (k) {
            case RCH_COLL_K_F32_I32: { float x = (float)small; memcpy(e, &x, 4); memcpy(e + 4, &idx, 4); break; }
            case RCH_COLL_K_F64_I32: { double x = small; memcpy(e, &x, 8); memcpy(e + 8, &idx, 4); break; }
            case RCH_COLL_K_I64_I32: { int64_t x = small; memcpy(e, &x, 8); memcpy(e + 8, &idx, 4); break; }
            case RCH_COLL_K_I16_I32: { int16_t x = (int16_t)small; memcpy(e, &x, 2); memcpy(e + 2, &idx, 4); break; }
            case RCH_COLL_K_I16_X32: { int16_t x = (int16_t)small; memset(e, 0, 8); memcpy(e, &x, 2); memcpy(e + 4, &idx, 4); break; }
            case RCH_COLL_K_I32_I32: { int32_t x = small; memcpy(e, &x, 4); memcpy(e + 4, &idx, 4); break; }
            case RCH_COLL_K_FLD_I32: { long double x = small; memset(e, 0, 16); memcpy(e, &x, sizeof(x)); memcpy(e + 16, &idx, 4); break; }
            case RCH_COLL_K_F32_F32: { float x = (float)small, fi = (float)idx; memcpy(e, &x, 4); memcpy(e + 4, &fi, 4); break; }
            case RCH_COLL_K_F64_F64: { double x = small, di = idx; memcpy(e, &x, 8); memcpy(e + 8, &di, 8); break; }
            default: cr_assert_fail("no filler for kind %d", k);
            }
        }
        }
    }
}

/* ---- the reference, one element at a time ---- */

static int64_t load_s(const unsigned char *e, size_t sz)
{
    switch (sz) {
    case 1: { int8_t x; memcpy(&x, e, 1); return x; }
    case 2: { int16_t x; memcpy(&x, e, 2); return x; }
    case 4: { int32_t x; memcpy(&x, e, 4); return x; }
    default: { int64_t x; memcpy(&x, e, 8); return x; }
    }
}

static uint64_t load_u(const unsigned char *e, size_t sz)
{
    uint64_t x = 0;
    memcpy(&x, e, sz);   /* little-endian */
    return x;
}

static void ref_int(enum rch_coll_opkind op, int sgn, size_t sz, const unsigned char *a, unsigned char *b)
{
    uint64_t ua = load_u(a, sz), ub = load_u(b, sz), r = 0;
    int64_t sa = load_s(a, sz), sb = load_s(b, sz);
    switch (op) {
    case RCH_COLL_OP_MAX: r = sgn ? (uint64_t)(sa > sb ? sa : sb) : (ua > ub ? ua : ub); break;
    case RCH_COLL_OP_MIN: r = sgn ? (uint64_t)(sa < sb ? sa : sb) : (ua < ub ? ua : ub); break;
    case RCH_COLL_OP_SUM: r = ua + ub; break;
    case RCH_COLL_OP_PROD: r = ua * ub; break;
    case RCH_COLL_OP_LAND: r = (ua != 0) && (ub != 0); break;
    case RCH_COLL_OP_LOR: r = (ua != 0) || (ub != 0); break;
    case RCH_COLL_OP_LXOR: r = (ua != 0) != (ub != 0); break;
    case RCH_COLL_OP_BAND: r = ua & ub; break;
    case RCH_COLL_OP_BOR: r = ua | ub; break;
    case RCH_COLL_OP_BXOR: r = ua ^ ub; break;
    default: cr_assert_fail("int op %d", op);
    }
    memcpy(b, &r, sz);   /* the low bytes: wrap-around */
}

#define REF_ARITH(T, op, a, b)                                                  \
    do {                                                                        \
        T x, y;                                                                 \
        memcpy(&x, a, sizeof(T));                                               \
        memcpy(&y, b, sizeof(T));                                               \
        if (op == RCH_COLL_OP_SUM) y = x + y;                                   \
        else if (op == RCH_COLL_OP_PROD) y = x * y;                             \
        else if (op == RCH_COLL_OP_MAX) y = x > y ? x : y;                      \
        else if (op == RCH_COLL_OP_MIN) y = x < y ? x : y;                      \
        memcpy(b, &y, sizeof(T));                                               \
    } while (0)

static void ref_pair(enum rch_coll_opkind op, enum rch_coll_kind k, const unsigned char *a,
                     unsigned char *b)
{
    size_t vs, is;
    long double va, vb, ia, ib;
    switch (k) {
    case RCH_COLL_K_F32_I32: vs = 4; is = 4; break;
    case RCH_COLL_K_F64_I32: case RCH_COLL_K_I64_I32: vs = 8; is = 4; break;
    case RCH_COLL_K_I16_I32: vs = 2; is = 4; break;
    case RCH_COLL_K_I16_X32: vs = 4; is = 4; break;   /* the index after 2 bytes of padding */
    case RCH_COLL_K_I32_I32: vs = 4; is = 4; break;
    case RCH_COLL_K_FLD_I32: vs = 16; is = 4; break;
    case RCH_COLL_K_F32_F32: vs = 4; is = 4; break;
    default: vs = 8; is = 8; break;   /* F64_F64 */
    }
#define LD(dst, p, kind_is_float, T) do { T t_; memcpy(&t_, p, sizeof(T)); dst = (long double)t_; } while (0)
    switch (k) {
    case RCH_COLL_K_F32_I32: case RCH_COLL_K_F32_F32: LD(va, a, 1, float); LD(vb, b, 1, float); break;
    case RCH_COLL_K_F64_I32: case RCH_COLL_K_F64_F64: LD(va, a, 1, double); LD(vb, b, 1, double); break;
    case RCH_COLL_K_I64_I32: LD(va, a, 0, int64_t); LD(vb, b, 0, int64_t); break;
    case RCH_COLL_K_I16_I32: case RCH_COLL_K_I16_X32: LD(va, a, 0, int16_t); LD(vb, b, 0, int16_t); break;
    case RCH_COLL_K_I32_I32: LD(va, a, 0, int32_t); LD(vb, b, 0, int32_t); break;
    default: LD(va, a, 1, long double); LD(vb, b, 1, long double); break;
    }
    if (k == RCH_COLL_K_F32_F32) { LD(ia, a + vs, 1, float); LD(ib, b + vs, 1, float); }
    else if (k == RCH_COLL_K_F64_F64) { LD(ia, a + vs, 1, double); LD(ib, b + vs, 1, double); }
    else { LD(ia, a + vs, 0, int32_t); LD(ib, b + vs, 0, int32_t); }
#undef LD
    int take_a;
    if (va == vb)
        take_a = ia < ib;
    else
        take_a = op == RCH_COLL_OP_MAXLOC ? va > vb : va < vb;
    if (take_a)
        memcpy(b, a, vs + is);
}

static void reference(enum rch_coll_opkind op, enum rch_coll_kind k, const unsigned char *a,
                      unsigned char *b, size_t n)
{
    size_t es = rch_coll_kind_size(k);
    for (size_t i = 0; i < n; i++, a += es, b += es) {
        if (op == RCH_COLL_OP_REPLACE) { memcpy(b, a, es); continue; }
        if (op == RCH_COLL_OP_NO_OP) continue;
        switch (cat_of(k)) {
        case CAT_SINT: ref_int(op, 1, es, a, b); break;
        case CAT_UINT: ref_int(op, 0, es, a, b); break;
        case CAT_BOOL: {
            bool x, y;
            memcpy(&x, a, 1); memcpy(&y, b, 1);
            y = op == RCH_COLL_OP_LAND ? (x && y) : op == RCH_COLL_OP_LOR ? (x || y) : (x != y);
            memcpy(b, &y, 1);
            break;
        }
        case CAT_FLOAT:
            if (k == RCH_COLL_K_F32) REF_ARITH(float, op, a, b);
            else if (k == RCH_COLL_K_F64) REF_ARITH(double, op, a, b);
            else if (k == RCH_COLL_K_F128) REF_ARITH(_Float128, op, a, b);
            else REF_ARITH(long double, op, a, b);
            break;
        case CAT_COMPLEX:
            if (k == RCH_COLL_K_C32) {
                float _Complex x, y; memcpy(&x, a, 8); memcpy(&y, b, 8);
                y = op == RCH_COLL_OP_SUM ? x + y : x * y; memcpy(b, &y, 8);
            } else if (k == RCH_COLL_K_C64) {
                double _Complex x, y; memcpy(&x, a, 16); memcpy(&y, b, 16);
                y = op == RCH_COLL_OP_SUM ? x + y : x * y; memcpy(b, &y, 16);
            } else if (k == RCH_COLL_K_C128) {
                _Float128 _Complex x, y; memcpy(&x, a, 32); memcpy(&y, b, 32);
                y = op == RCH_COLL_OP_SUM ? x + y : x * y; memcpy(b, &y, 32);
            } else {
                long double _Complex x, y; memcpy(&x, a, 32); memcpy(&y, b, 32);
                y = op == RCH_COLL_OP_SUM ? x + y : x * y; memcpy(b, &y, 32);
            }
            break;
        case CAT_PAIR: ref_pair(op, k, a, b); break;
        }
    }
}

/* Compare only the significant bytes of long double elements (10 of 16). */
static int same(enum rch_coll_kind k, const unsigned char *x, const unsigned char *y, size_t n,
                size_t *at)
{
    size_t es = rch_coll_kind_size(k);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = x + i * es, *q = y + i * es;
        int diff;
        if (k == RCH_COLL_K_FLD || k == RCH_COLL_K_FLD_I32)
            diff = memcmp(p, q, 10) || (k == RCH_COLL_K_FLD_I32 && memcmp(p + 16, q + 16, 4));
        else if (k == RCH_COLL_K_CLD)
            diff = memcmp(p, q, 10) || memcmp(p + 16, q + 16, 10);
        else
            diff = memcmp(p, q, es);
        if (diff) {
            *at = i;
            return 0;
        }
    }
    return 1;
}

Test(op_kernels, defined_exactly_where_mpi_defines_them)
{
    for (int op = 0; op < RCH_COLL_OPKIND_MAX; op++)
        for (int k = 0; k < RCH_COLL_K_MAX; k++) {
            int want = defined(op, cat_of(k));
            int have = rch_coll_kernel(op, k) != NULL;
            cr_assert_eq(have, want, "%s on %s: kernel %s", rch_coll_opkind_name(op),
                         rch_coll_kind_name(k), have ? "present but not allowed" : "missing");
        }
    cr_assert_null(rch_coll_kernel(RCH_COLL_OPKIND_MAX, RCH_COLL_K_I32));
    cr_assert_null(rch_coll_kernel(RCH_COLL_OP_SUM, RCH_COLL_K_MAX));
}

Test(op_kernels, packed_sizes_match_mpi_types)
{
    cr_assert_eq(rch_coll_kind_size(RCH_COLL_K_F64_I32), 12);   /* MPI_DOUBLE_INT size */
    cr_assert_eq(rch_coll_kind_size(RCH_COLL_K_I16_I32), 6);    /* MPI_SHORT_INT */
    cr_assert_eq(rch_coll_kind_size(RCH_COLL_K_I16_X32), 8);    /* MPI_SHORT_INT's extent */
    cr_assert_eq(rch_coll_kind_size(RCH_COLL_K_FLD_I32), 20);   /* MPI_LONG_DOUBLE_INT */
    cr_assert_eq(rch_coll_kind_size(RCH_COLL_K_CLD), 32);
    cr_assert_eq(rch_coll_kind_size(RCH_COLL_K_F128), 16);   /* MPI_REAL16 */
    cr_assert_eq(rch_coll_kind_size(RCH_COLL_K_C128), 32);   /* MPI_COMPLEX32 */
    cr_assert_eq(rch_coll_kind_size(RCH_COLL_K_MAX), 0);
}

Test(op_kernels, every_op_on_every_kind_matches_naive_loop)
{
    static unsigned char in[N * 32], inout[N * 32], want[N * 32];
    int checked = 0;
    for (int op = 0; op < RCH_COLL_OPKIND_MAX; op++)
        for (int k = 0; k < RCH_COLL_K_MAX; k++) {
            rch_coll_op_fn fn = rch_coll_kernel(op, k);
            if (!fn)
                continue;
            for (int rep = 0; rep < 4; rep++) {
                size_t n = rep == 0 ? 0 : rep == 1 ? 1 : N;
                fill(k, in, N);
                fill(k, inout, N);
                memcpy(want, inout, sizeof(want));
                reference(op, k, in, want, n);
                fn(in, inout, n, NULL);
                size_t at = 0;
                cr_assert(same(k, inout, want, N, &at), "%s on %s (n=%zu): element %zu differs",
                          rch_coll_opkind_name(op), rch_coll_kind_name(k), n, at);
            }
            checked++;
        }
    cr_assert_geq(checked, 100, "only %d (op, kind) pairs checked", checked);
}

/* The block form (rch_coll_kernel2d): blocks of 1 to 6, 9 and 40 elements
 * at strides that leave gaps (twice the block: the every-other-element
 * loop; one element more; a negative one), packed operands or operands
 * strided too, against the contiguous kernel (checked above) block by
 * block; the gaps must keep their bytes. Defined for every (op, kind) the
 * contiguous kernel is, except the pair kinds, REPLACE and NO_OP. */
static void block_form_case(int far)
{
    enum { NB = 37, SPAN = 3 * NB * (40 * 32 + 64) };
    static _Alignas(64) unsigned char in[SPAN], got[SPAN], want[SPAN];
    static const size_t blens[] = { 1, 2, 3, 4, 5, 6, 9, 40 };
    int checked = 0;
    for (int op = 0; op < RCH_COLL_OPKIND_MAX; op++)
        for (int k = 0; k < RCH_COLL_K_MAX; k++) {
            rch_coll_op_fn fn = rch_coll_kernel(op, k);
            rch_coll_op2d_fn fn2d = rch_coll_kernel2d(op, k);
            int want2d = fn && cat_of(k) != CAT_PAIR && op != RCH_COLL_OP_REPLACE && op != RCH_COLL_OP_NO_OP;
            cr_assert_eq(fn2d != NULL, want2d, "%s on %s: block kernel %s", rch_coll_opkind_name(op),
                         rch_coll_kind_name(k), fn2d ? "present" : "missing");
            if (!fn2d)
                continue;
            size_t es = rch_coll_kind_size(k);
            for (size_t b = 0; b < sizeof(blens) / sizeof(blens[0]); b++)
                for (int shape = 0; shape < 4; shape++) {
                    size_t bl = blens[b], bb = bl * es;
                    /* shape 0: stride 2 blocks; 1: one element more; 2: negative; 3: operands strided too */
                    ptrdiff_t gap = far ? 64 : (ptrdiff_t)es;
                    ptrdiff_t os = shape == 0 ? 2 * (ptrdiff_t)bb + (far ? 64 : 0)
                                 : shape == 2 ? -(ptrdiff_t)bb - gap : (ptrdiff_t)bb + gap;
                    ptrdiff_t is = shape == 3 ? (ptrdiff_t)(2 * bb) : (ptrdiff_t)bb;
                    size_t first = shape == 2 ? (NB - 1) * (size_t)(-os) : 0;
                    fill(k, in, SPAN / es);
                    fill(k, got, SPAN / es);
                    memcpy(want, got, SPAN);
                    for (size_t j = 0; j < NB; j++)
                        fn(in + j * (size_t)is, want + (ptrdiff_t)first + (ptrdiff_t)j * os, bl, NULL);
                    fn2d(in, is, got + first, os, NB, bl);
                    size_t at = 0;
                    cr_assert(same(k, got, want, SPAN / es, &at),
                              "%s on %s, blocks of %zu at stride %td (operands %td): element %zu differs",
                              rch_coll_opkind_name(op), rch_coll_kind_name(k), bl, os, is, at);
                }
            checked++;
        }
    cr_assert_geq(checked, 100, "only %d (op, kind) pairs checked", checked);
}

Test(op_kernels, block_form_matches_contiguous_kernel_block_by_block)
{
    block_form_case(0);
}

/* The same with the blocks a line or more apart and prefetching on from a
 * few blocks ahead (rch_base_ahead), which the pass then does a chunk of
 * blocks at a time: every block combined once, none past the last. */
Test(op_kernels, block_form_prefetching_matches_contiguous_kernel)
{
    size_t keep = rch_tun.dtype_prefetch, keep_from = rch_tun.dtype_prefetch_from;
    rch_tun.dtype_prefetch = 200;
    rch_tun.dtype_prefetch_from = 0;
    cr_assert_lt(rch_base_ahead(64 + 4, 4, 37), 37);
    block_form_case(1);
    rch_tun.dtype_prefetch = keep;
    rch_tun.dtype_prefetch_from = keep_from;
}

/* The repetition form (rch_coll_kernel_rows): SUM on the 32- and 64-bit
 * integer and floating kinds, nothing else. 2 to 16 elements a repetition
 * at offsets out of order with gaps between them, positive and negative
 * strides, 0, 1 and 53 repetitions, against the contiguous kernel element
 * by element; the gaps keep their bytes. */
Test(op_kernels, repetition_form_matches_contiguous_kernel_element_by_element)
{
    enum { REPS = 53, MAXNE = RCH_COLL_ROWS_MAX, SPAN = (REPS + 1) * 3 * MAXNE * 8 };
    static _Alignas(64) unsigned char in[REPS * MAXNE * 8], got[SPAN], want[SPAN];
    int checked = 0;
    for (int op = 0; op < RCH_COLL_OPKIND_MAX; op++)
        for (int k = 0; k < RCH_COLL_K_MAX; k++) {
            rch_coll_oprows_fn rows = rch_coll_kernel_rows(op, k);
            int want_rows = op == RCH_COLL_OP_SUM &&
                            (k == RCH_COLL_K_I32 || k == RCH_COLL_K_I64 || k == RCH_COLL_K_U32 ||
                             k == RCH_COLL_K_U64 || k == RCH_COLL_K_F32 || k == RCH_COLL_K_F64);
            cr_assert_eq(rows != NULL, want_rows, "%s on %s: repetition kernel %s", rch_coll_opkind_name(op),
                         rch_coll_kind_name(k), rows ? "present" : "missing");
            if (!rows)
                continue;
            rch_coll_op_fn fn = rch_coll_kernel(op, k);
            size_t es = rch_coll_kind_size(k);
            for (int ne = 2; ne <= MAXNE; ne++)
                for (int shape = 0; shape < 2; shape++)
                    for (size_t reps = 0; reps <= REPS; reps += reps < 1 ? 1 : REPS - 1) {
                        /* element j at 3 * (ne - 1 - j) + j % 2 elements: reversed, gaps of 1-3 */
                        ptrdiff_t off[MAXNE], stride = (ptrdiff_t)(3 * ne * es);
                        for (int j = 0; j < ne; j++)
                            off[j] = (ptrdiff_t)((size_t)(3 * (ne - 1 - j) + j % 2) * es);
                        if (shape == 1)
                            stride = -stride;
                        size_t first = shape == 1 ? (size_t)REPS * 3 * (size_t)ne * es : 0;
                        fill(k, in, sizeof(in) / es);
                        fill(k, got, SPAN / es);
                        memcpy(want, got, SPAN);
                        for (size_t r = 0; r < reps; r++)
                            for (int j = 0; j < ne; j++)
                                fn(in + (r * (size_t)ne + (size_t)j) * es,
                                   want + (ptrdiff_t)first + (ptrdiff_t)r * stride + off[j], 1, NULL);
                        rows(in, got + first, stride, reps, off, ne);
                        size_t at = 0;
                        cr_assert(same(k, got, want, SPAN / es, &at),
                                  "%s on %s, %d elements a repetition, stride %td, %zu repetitions: element %zu "
                                  "differs", rch_coll_opkind_name(op), rch_coll_kind_name(k), ne, stride, reps, at);
                    }
            checked++;
        }
    cr_assert_eq(checked, 6, "%d (op, kind) pairs with a repetition kernel", checked);
}

Test(op_kernels, integer_sum_and_prod_wrap_without_overflow_traps)
{
    int32_t a[2] = { INT32_MAX, INT32_MIN }, b[2] = { 1, -1 };
    rch_coll_kernel(RCH_COLL_OP_SUM, RCH_COLL_K_I32)(a, b, 2, NULL);
    cr_assert_eq(b[0], INT32_MIN);
    cr_assert_eq(b[1], INT32_MAX);
    int16_t x[1] = { -32768 }, y[1] = { -1 };
    rch_coll_kernel(RCH_COLL_OP_PROD, RCH_COLL_K_I16)(x, y, 1, NULL);
    cr_assert_eq(y[0], -32768);
}

Test(op_kernels, maxloc_minloc_prefer_lower_index_on_ties)
{
    struct { double v; int i; } __attribute__((packed)) a = { 2.0, 7 }, b = { 2.0, 3 }, c = { 2.0, 9 };
    rch_coll_kernel(RCH_COLL_OP_MAXLOC, RCH_COLL_K_F64_I32)(&a, &b, 1, NULL);
    cr_assert_eq(b.i, 3);
    rch_coll_kernel(RCH_COLL_OP_MINLOC, RCH_COLL_K_F64_I32)(&a, &c, 1, NULL);
    cr_assert_eq(c.i, 7);
    cr_assert_eq(sizeof(a), 12);
}

/* binary128, not the x87 format that shares its size: 1 + 2^-100 survives a
 * sum only with a 113-bit significand (long double has 64). */
Test(op_kernels, binary128_is_ieee_quad)
{
    _Float128 a[3] = { 1.5, 1, 3 }, b[3] = { 2.5, 0x1p-100, -2 }, max[1] = { -0.5 };
    rch_coll_kernel(RCH_COLL_OP_SUM, RCH_COLL_K_F128)(a, b, 3, NULL);
    cr_assert(b[0] == 4 && b[1] == 1 + (_Float128)0x1p-100 && b[1] != 1 && b[2] == 1);
    rch_coll_kernel(RCH_COLL_OP_PROD, RCH_COLL_K_F128)(a, b, 1, NULL);
    cr_assert(b[0] == 6);
    rch_coll_kernel(RCH_COLL_OP_MAX, RCH_COLL_K_F128)(a, max, 1, NULL);
    cr_assert(max[0] == 1.5);
}
