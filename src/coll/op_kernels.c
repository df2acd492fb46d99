/*
 * The predefined reduction operations on every machine representation they
 * are defined on (the MPI binding decides which MPI datatypes may use them;
 * this file only computes).
 *
 * Why macros here: 14 operations over 24 representations are ~150 loops that
 * differ only in the element type, each in two forms (contiguous, and over
 * blocks apart). Each macro below expands to plain static functions with
 * simple loops and no hidden control flow; writing them out by hand would be
 * thousands of lines where a typo hides. The table at the end has a row per
 * kind (the operations each family of kinds has) and one designated
 * initializer per (op, kind) for the rest, so what is defined is visible.
 *
 * Semantics: inout[i] = in[i] op inout[i]. Integer SUM and PROD wrap
 * modulo 2^bits (computed in uint64_t, so no signed overflow). MAXLOC and
 * MINLOC keep the smaller index on equal values. Logical operations give 0
 * or 1. Elements of pair kinds are packed: the value, then the index right
 * after it (MPI_DOUBLE_INT: 12 bytes), read and written with memcpy because
 * they are not aligned; the one exception, K_I16_X32, is MPI_SHORT_INT as
 * in memory (index at offset 4), for accumulates into a window.
 */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "base/base.h"
#include "coll/coll.h"

/* Each kernel in two forms: contiguous (name) and over blocks apart
 * (name##_2d, rch_coll_op2d_fn). Blocks of 1 to 4 elements, a vector's or
 * an indexed type's, are loops of their own with the block's length a
 * constant (a loop over a short block of unknown length ran 2-3 times
 * slower: its vector setup per block); longer blocks are the contiguous
 * form's loop, one call per block. */
#define KERNEL_BLOCKS(T, expr, L)                                               \
    for (size_t k = 0; k < nblk; k++, ap += is, bp += os) {                     \
        const T *a = (const T *)ap;                                             \
        T *b = (T *)bp;                                                         \
        for (size_t i = 0; i < (L); i++)                                        \
            b[i] = (expr);                                                      \
    }                                                                           \
    return;

/* The block form when its pass prefetches (rch_base_ahead): f (the plain
 * block form) a chunk of blocks at a time, each chunk's blocks `ahead`
 * further on asked for first. */
static void ahead_2d(rch_coll_op2d_fn f, const void *in, ptrdiff_t is, void *inout, ptrdiff_t os, size_t nblk,
                     size_t blen, size_t es, size_t ahead)
{
    size_t len = blen * es, ch = rch_base_ahead_chunk(len);
    for (size_t k = 0; k < nblk; k += ch) {
        size_t m = nblk - k < ch ? nblk - k : ch;
        rch_base_prefetch_blocks(inout, os, k + ahead, k + ahead + m, nblk, len, 1);
        f((const char *)in + (ptrdiff_t)k * is, is, (char *)inout + (ptrdiff_t)k * os, os, m, blen);
    }
}

/* Each kernel is compiled twice, for AVX2 and for the baseline (SSE2), and
 * the first call takes the one the processor runs (target_clones: an ifunc
 * resolved once by __builtin_cpu_supports). The AVX2 form only widens the
 * vectors: without FMA, no product and sum are fused, so every processor
 * gets bit for bit the same results. MPI_Reduce_local of 64 KiB in L2 (AMD
 * EPYC, Zen 5): float sum 1.12 us baseline, 0.90 AVX2; int max 1.31-1.36,
 * 0.88-0.93. */
#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer instruments the clones' resolver, which the dynamic
 * loader runs before the sanitizer's runtime is up: every program would
 * crash at load. The thread-checked build keeps the baseline kernels. */
#define KCLONES
#else
#define KCLONES __attribute__((target_clones("avx2", "default")))
#endif

#define KERNEL(name, T, expr)                                                   \
    KCLONES static void name(const void *in_, void *inout_, size_t n, void *arg) \
    {                                                                           \
        const T *a = in_;                                                       \
        T *b = inout_;                                                          \
        (void)arg;                                                              \
        for (size_t i = 0; i < n; i++)                                          \
            b[i] = (expr);                                                      \
    }                                                                           \
    KCLONES static void name##_2d_plain(const void *in_, ptrdiff_t is,         \
                                        void *inout_, ptrdiff_t os, size_t nblk, \
                                        size_t blen)                            \
    {                                                                           \
        const char *ap = in_;                                                   \
        char *bp = inout_;                                                      \
        if (blen == 1 && is == (ptrdiff_t)sizeof(T) &&                          \
            os == 2 * (ptrdiff_t)sizeof(T)) { /* every other element */         \
            const T *a = in_;                                                   \
            T *b2 = inout_;                                                     \
            for (size_t k = 0; k < nblk; k++) {                                 \
                T *b = b2 + k; /* b[i] is b2[2 * k] */                          \
                const size_t i = k;                                             \
                b[i] = (expr);                                                  \
            }                                                                   \
            return;                                                             \
        }                                                                       \
        switch (blen) {                                                         \
        case 1: KERNEL_BLOCKS(T, expr, 1)                                       \
        case 2: KERNEL_BLOCKS(T, expr, 2)                                       \
        case 3: KERNEL_BLOCKS(T, expr, 3)                                       \
        case 4: KERNEL_BLOCKS(T, expr, 4)                                       \
        default:                                                                \
            for (size_t k = 0; k < nblk; k++, ap += is, bp += os)               \
                name(ap, bp, blen, NULL);                                       \
        }                                                                       \
    }                                                                           \
    static void name##_2d(const void *in_, ptrdiff_t is, void *inout_,         \
                          ptrdiff_t os, size_t nblk, size_t blen)               \
    {                                                                           \
        size_t ahead = rch_base_ahead(os, blen * sizeof(T), nblk);              \
        if (ahead < nblk)                                                       \
            ahead_2d(name##_2d_plain, in_, is, inout_, os, nblk, blen,          \
                     sizeof(T), ahead);                                         \
        else                                                                    \
            name##_2d_plain(in_, is, inout_, os, nblk, blen);                   \
    }

#define INT_KERNELS(s, T)                                                       \
    KERNEL(max_##s, T, a[i] > b[i] ? a[i] : b[i])                               \
    KERNEL(min_##s, T, a[i] < b[i] ? a[i] : b[i])                               \
    KERNEL(sum_##s, T, (T)((uint64_t)a[i] + (uint64_t)b[i]))                    \
    KERNEL(prod_##s, T, (T)((uint64_t)a[i] * (uint64_t)b[i]))                   \
    KERNEL(land_##s, T, (T)(a[i] && b[i]))                                      \
    KERNEL(lor_##s, T, (T)(a[i] || b[i]))                                       \
    KERNEL(lxor_##s, T, (T)(!a[i] != !b[i]))                                    \
    KERNEL(band_##s, T, (T)(a[i] & b[i]))                                       \
    KERNEL(bor_##s, T, (T)(a[i] | b[i]))                                        \
    KERNEL(bxor_##s, T, (T)(a[i] ^ b[i]))

#define FLOAT_KERNELS(s, T)                                                     \
    KERNEL(max_##s, T, a[i] > b[i] ? a[i] : b[i])                               \
    KERNEL(min_##s, T, a[i] < b[i] ? a[i] : b[i])                               \
    KERNEL(sum_##s, T, a[i] + b[i])                                             \
    KERNEL(prod_##s, T, a[i] * b[i])

#define COMPLEX_KERNELS(s, T)                                                   \
    KERNEL(sum_##s, T, a[i] + b[i])                                             \
    KERNEL(prod_##s, T, a[i] * b[i])

INT_KERNELS(i8, int8_t)
INT_KERNELS(i16, int16_t)
INT_KERNELS(i32, int32_t)
INT_KERNELS(i64, int64_t)
INT_KERNELS(u8, uint8_t)
INT_KERNELS(u16, uint16_t)
INT_KERNELS(u32, uint32_t)
INT_KERNELS(u64, uint64_t)
FLOAT_KERNELS(f32, float)
FLOAT_KERNELS(f64, double)
FLOAT_KERNELS(fld, long double)
/* Fortran's REAL(16) is IEEE binary128, not x86's 80-bit long double:
 * gcc computes on _Float128 in software (libgcc). */
FLOAT_KERNELS(f128, _Float128)
COMPLEX_KERNELS(c32, float _Complex)
COMPLEX_KERNELS(c64, double _Complex)
COMPLEX_KERNELS(cld, long double _Complex)
COMPLEX_KERNELS(c128, _Float128 _Complex)
KERNEL(land_bool, bool, a[i] && b[i])
KERNEL(lor_bool, bool, a[i] || b[i])
KERNEL(lxor_bool, bool, a[i] != b[i])

/* SUM over the repetitions of a few elements apart (rch_coll_oprows_fn):
 * a repetition at a time, the element count NE a constant in each case of
 * the switch, so the loop over the elements unrolls and their offsets stay
 * in registers (copied out of off[], which the stores may alias as far as
 * the compiler knows). One pass over the target's memory where the block
 * form makes one per block of the period. */
#define ROWS_LOOP(name, T, expr, NE)                                            \
    static inline __attribute__((always_inline)) void name##_rows##NE(         \
        const T *a0, char *u, ptrdiff_t stride, size_t reps, const ptrdiff_t *off) \
    {                                                                           \
        ptrdiff_t o[NE];                                                        \
        for (int k = 0; k < (NE); k++)                                          \
            o[k] = off[k];                                                      \
        for (size_t r = 0; r < reps; r++, a0 += (NE), u += stride) {           \
            _Pragma("GCC unroll 16") for (int k = 0; k < (NE); k++)            \
            {                                                                   \
                const T *a = a0 + k;                                            \
                T *b = (T *)(void *)(u + o[k]);                                 \
                const size_t i = 0;                                             \
                b[i] = (expr);                                                  \
            }                                                                   \
        }                                                                       \
    }
#define ROWS_CASE(name, T, NE)                                                  \
    case NE:                                                                    \
        name##_rows##NE(in, user, stride, reps, off);                           \
        break;
#define ROWS_KERNEL(name, T, expr)                                              \
    ROWS_LOOP(name, T, expr, 2) ROWS_LOOP(name, T, expr, 3)                     \
    ROWS_LOOP(name, T, expr, 4) ROWS_LOOP(name, T, expr, 5)                     \
    ROWS_LOOP(name, T, expr, 6) ROWS_LOOP(name, T, expr, 7)                     \
    ROWS_LOOP(name, T, expr, 8) ROWS_LOOP(name, T, expr, 9)                     \
    ROWS_LOOP(name, T, expr, 10) ROWS_LOOP(name, T, expr, 11)                   \
    ROWS_LOOP(name, T, expr, 12) ROWS_LOOP(name, T, expr, 13)                   \
    ROWS_LOOP(name, T, expr, 14) ROWS_LOOP(name, T, expr, 15)                   \
    ROWS_LOOP(name, T, expr, 16)                                                \
    static void name##_rows(const void *in_, void *user_, ptrdiff_t stride,    \
                            size_t reps, const ptrdiff_t *off, int ne)          \
    {                                                                           \
        const T *in = in_;                                                      \
        char *user = user_;                                                     \
        switch (ne) {                                                           \
            ROWS_CASE(name, T, 2) ROWS_CASE(name, T, 3) ROWS_CASE(name, T, 4)  \
            ROWS_CASE(name, T, 5) ROWS_CASE(name, T, 6) ROWS_CASE(name, T, 7)  \
            ROWS_CASE(name, T, 8) ROWS_CASE(name, T, 9) ROWS_CASE(name, T, 10) \
            ROWS_CASE(name, T, 11) ROWS_CASE(name, T, 12)                      \
            ROWS_CASE(name, T, 13) ROWS_CASE(name, T, 14)                      \
            ROWS_CASE(name, T, 15) ROWS_CASE(name, T, 16)                      \
        }                                                                       \
    }
_Static_assert(RCH_COLL_ROWS_MAX == 16, "ROWS_KERNEL has a case for 2 .. 16 elements");

ROWS_KERNEL(sum_i32, int32_t, (int32_t)((uint64_t)a[i] + (uint64_t)b[i]))
ROWS_KERNEL(sum_i64, int64_t, (int64_t)((uint64_t)a[i] + (uint64_t)b[i]))
ROWS_KERNEL(sum_u32, uint32_t, (uint32_t)((uint64_t)a[i] + (uint64_t)b[i]))
ROWS_KERNEL(sum_u64, uint64_t, a[i] + b[i])
ROWS_KERNEL(sum_f32, float, a[i] + b[i])
ROWS_KERNEL(sum_f64, double, a[i] + b[i])

static const rch_coll_oprows_fn sum_rows[RCH_COLL_K_MAX] = {
    [RCH_COLL_K_I32] = sum_i32_rows, [RCH_COLL_K_I64] = sum_i64_rows, [RCH_COLL_K_U32] = sum_u32_rows,
    [RCH_COLL_K_U64] = sum_u64_rows, [RCH_COLL_K_F32] = sum_f32_rows, [RCH_COLL_K_F64] = sum_f64_rows,
};

/* (value V, index I) pairs: I at byte IOFF, one every STEP bytes (packed:
 * IOFF = sizeof(V), STEP = sizeof(V) + sizeof(I)). `better` is > for MAXLOC,
 * < for MINLOC. Only the two fields are written, never padding between them. */
#define LOC_KERNEL(name, V, I, IOFF, STEP, better)                              \
    static void name(const void *in_, void *inout_, size_t n, void *arg)       \
    {                                                                           \
        const unsigned char *a = in_;                                           \
        unsigned char *b = inout_;                                              \
        (void)arg;                                                              \
        for (size_t i = 0; i < n; i++, a += (STEP), b += (STEP)) {              \
            V va, vb;                                                           \
            I ia, ib;                                                           \
            memcpy(&va, a, sizeof(V));                                          \
            memcpy(&ia, a + (IOFF), sizeof(I));                                 \
            memcpy(&vb, b, sizeof(V));                                          \
            memcpy(&ib, b + (IOFF), sizeof(I));                                 \
            if (va better vb || (va == vb && ia < ib)) {                        \
                memcpy(b, a, sizeof(V));                                        \
                memcpy(b + (IOFF), a + (IOFF), sizeof(I));                      \
            }                                                                   \
        }                                                                       \
    }

#define LOC_KERNELS_AT(s, V, I, IOFF, STEP)                                     \
    LOC_KERNEL(maxloc_##s, V, I, IOFF, STEP, >)                                 \
    LOC_KERNEL(minloc_##s, V, I, IOFF, STEP, <)
#define LOC_KERNELS(s, V, I) LOC_KERNELS_AT(s, V, I, sizeof(V), sizeof(V) + sizeof(I))

LOC_KERNELS(f32_i32, float, int32_t)
LOC_KERNELS(f64_i32, double, int32_t)
LOC_KERNELS(i64_i32, int64_t, int32_t)
LOC_KERNELS(i16_i32, int16_t, int32_t)
LOC_KERNELS(i32_i32, int32_t, int32_t)
LOC_KERNELS(fld_i32, long double, int32_t)
LOC_KERNELS(f32_f32, float, float)
LOC_KERNELS(f64_f64, double, double)
LOC_KERNELS_AT(i16_x32, int16_t, int32_t, 4, 8)

/* REPLACE of MPI_SHORT_INT in memory: the fields, not the padding between
 * them (it may belong to no element of the target datatype). */
static void replace_i16_x32(const void *in_, void *inout_, size_t n, void *arg)
{
    const unsigned char *a = in_;
    unsigned char *b = inout_;
    (void)arg;
    for (size_t i = 0; i < n; i++, a += 8, b += 8) {
        memmove(b, a, 2);
        memmove(b + 4, a + 4, 4);
    }
}

/* REPLACE (one-sided accumulate): by element size. */
#define REPLACE_KERNEL(sz)                                                      \
    static void replace_##sz(const void *in, void *inout, size_t n, void *arg) \
    {                                                                           \
        (void)arg;                                                              \
        memmove(inout, in, n * (sz));                                           \
    }
REPLACE_KERNEL(1)
REPLACE_KERNEL(2)
REPLACE_KERNEL(4)
REPLACE_KERNEL(6)
REPLACE_KERNEL(8)
REPLACE_KERNEL(12)
REPLACE_KERNEL(16)
REPLACE_KERNEL(20)
REPLACE_KERNEL(32)

static void no_op(const void *in, void *inout, size_t n, void *arg)
{
    (void)in;
    (void)inout;
    (void)n;
    (void)arg;
}

static const struct {
    const char *name;
    size_t size;
    rch_coll_op_fn replace;
} kinds[RCH_COLL_K_MAX] = {
    [RCH_COLL_K_I8] = { "int8", 1, replace_1 },
    [RCH_COLL_K_I16] = { "int16", 2, replace_2 },
    [RCH_COLL_K_I32] = { "int32", 4, replace_4 },
    [RCH_COLL_K_I64] = { "int64", 8, replace_8 },
    [RCH_COLL_K_U8] = { "uint8", 1, replace_1 },
    [RCH_COLL_K_U16] = { "uint16", 2, replace_2 },
    [RCH_COLL_K_U32] = { "uint32", 4, replace_4 },
    [RCH_COLL_K_U64] = { "uint64", 8, replace_8 },
    [RCH_COLL_K_F32] = { "float", 4, replace_4 },
    [RCH_COLL_K_F64] = { "double", 8, replace_8 },
    [RCH_COLL_K_FLD] = { "long double", sizeof(long double), replace_16 },
    [RCH_COLL_K_C32] = { "float complex", 8, replace_8 },
    [RCH_COLL_K_C64] = { "double complex", 16, replace_16 },
    [RCH_COLL_K_CLD] = { "long double complex", sizeof(long double _Complex), replace_32 },
    [RCH_COLL_K_BOOL] = { "bool", sizeof(bool), replace_1 },
    [RCH_COLL_K_F32_I32] = { "float,int", 8, replace_8 },
    [RCH_COLL_K_F64_I32] = { "double,int", 12, replace_12 },
    [RCH_COLL_K_I64_I32] = { "long,int", 12, replace_12 },
    [RCH_COLL_K_I16_I32] = { "short,int", 6, replace_6 },
    [RCH_COLL_K_I32_I32] = { "int,int", 8, replace_8 },
    [RCH_COLL_K_FLD_I32] = { "long double,int", sizeof(long double) + 4, replace_20 },
    [RCH_COLL_K_F32_F32] = { "float,float", 8, replace_8 },
    [RCH_COLL_K_F64_F64] = { "double,double", 16, replace_16 },
    [RCH_COLL_K_I16_X32] = { "short,(pad),int", 8, replace_i16_x32 },
    [RCH_COLL_K_F128] = { "binary128", sizeof(_Float128), replace_16 },
    [RCH_COLL_K_C128] = { "binary128 complex", sizeof(_Float128 _Complex), replace_32 },
};
_Static_assert(sizeof(long double) == 16, "kinds[] assumes a 16-byte long double (x86-64)");
_Static_assert(sizeof(_Float128) == 16, "kinds[] assumes a 16-byte _Float128");
_Static_assert(sizeof(bool) == 1, "kinds[] assumes a 1-byte _Bool");

static const char *const op_names[RCH_COLL_OPKIND_MAX] = {
    [RCH_COLL_OP_MAX] = "MAX", [RCH_COLL_OP_MIN] = "MIN", [RCH_COLL_OP_SUM] = "SUM",
    [RCH_COLL_OP_PROD] = "PROD", [RCH_COLL_OP_LAND] = "LAND", [RCH_COLL_OP_BAND] = "BAND",
    [RCH_COLL_OP_LOR] = "LOR", [RCH_COLL_OP_BOR] = "BOR", [RCH_COLL_OP_LXOR] = "LXOR",
    [RCH_COLL_OP_BXOR] = "BXOR", [RCH_COLL_OP_MINLOC] = "MINLOC", [RCH_COLL_OP_MAXLOC] = "MAXLOC",
    [RCH_COLL_OP_REPLACE] = "REPLACE", [RCH_COLL_OP_NO_OP] = "NO_OP",
};

#define INT_ROW(K, s)                                                           \
    [RCH_COLL_OP_MAX][K] = K2(max_##s), [RCH_COLL_OP_MIN][K] = K2(min_##s),     \
    [RCH_COLL_OP_SUM][K] = K2(sum_##s), [RCH_COLL_OP_PROD][K] = K2(prod_##s),   \
    [RCH_COLL_OP_LAND][K] = K2(land_##s), [RCH_COLL_OP_LOR][K] = K2(lor_##s),   \
    [RCH_COLL_OP_LXOR][K] = K2(lxor_##s), [RCH_COLL_OP_BAND][K] = K2(band_##s), \
    [RCH_COLL_OP_BOR][K] = K2(bor_##s), [RCH_COLL_OP_BXOR][K] = K2(bxor_##s)

#define FLOAT_ROW(K, s)                                                         \
    [RCH_COLL_OP_MAX][K] = K2(max_##s), [RCH_COLL_OP_MIN][K] = K2(min_##s),     \
    [RCH_COLL_OP_SUM][K] = K2(sum_##s), [RCH_COLL_OP_PROD][K] = K2(prod_##s)

#define COMPLEX_ROW(K, s)                                                       \
    [RCH_COLL_OP_SUM][K] = K2(sum_##s), [RCH_COLL_OP_PROD][K] = K2(prod_##s)

/* Both forms of a kernel; the pair kinds' have no block form. */
#define K2(f) { f, f##_2d }
#define K1(f) { f, NULL }
static const struct {
    rch_coll_op_fn fn;
    rch_coll_op2d_fn fn2d;
} table[RCH_COLL_OPKIND_MAX][RCH_COLL_K_MAX] = {
    INT_ROW(RCH_COLL_K_I8, i8),
    INT_ROW(RCH_COLL_K_I16, i16),
    INT_ROW(RCH_COLL_K_I32, i32),
    INT_ROW(RCH_COLL_K_I64, i64),
    INT_ROW(RCH_COLL_K_U8, u8),
    INT_ROW(RCH_COLL_K_U16, u16),
    INT_ROW(RCH_COLL_K_U32, u32),
    INT_ROW(RCH_COLL_K_U64, u64),

    FLOAT_ROW(RCH_COLL_K_F32, f32),
    FLOAT_ROW(RCH_COLL_K_F64, f64),
    FLOAT_ROW(RCH_COLL_K_FLD, fld),
    FLOAT_ROW(RCH_COLL_K_F128, f128),

    COMPLEX_ROW(RCH_COLL_K_C32, c32),
    COMPLEX_ROW(RCH_COLL_K_C64, c64),
    COMPLEX_ROW(RCH_COLL_K_CLD, cld),
    COMPLEX_ROW(RCH_COLL_K_C128, c128),

    [RCH_COLL_OP_LAND][RCH_COLL_K_BOOL] = K2(land_bool),
    [RCH_COLL_OP_LOR][RCH_COLL_K_BOOL] = K2(lor_bool),
    [RCH_COLL_OP_LXOR][RCH_COLL_K_BOOL] = K2(lxor_bool),

    [RCH_COLL_OP_MAXLOC][RCH_COLL_K_F32_I32] = K1(maxloc_f32_i32),
    [RCH_COLL_OP_MINLOC][RCH_COLL_K_F32_I32] = K1(minloc_f32_i32),
    [RCH_COLL_OP_MAXLOC][RCH_COLL_K_F64_I32] = K1(maxloc_f64_i32),
    [RCH_COLL_OP_MINLOC][RCH_COLL_K_F64_I32] = K1(minloc_f64_i32),
    [RCH_COLL_OP_MAXLOC][RCH_COLL_K_I64_I32] = K1(maxloc_i64_i32),
    [RCH_COLL_OP_MINLOC][RCH_COLL_K_I64_I32] = K1(minloc_i64_i32),
    [RCH_COLL_OP_MAXLOC][RCH_COLL_K_I16_I32] = K1(maxloc_i16_i32),
    [RCH_COLL_OP_MINLOC][RCH_COLL_K_I16_I32] = K1(minloc_i16_i32),
    [RCH_COLL_OP_MAXLOC][RCH_COLL_K_I32_I32] = K1(maxloc_i32_i32),
    [RCH_COLL_OP_MINLOC][RCH_COLL_K_I32_I32] = K1(minloc_i32_i32),
    [RCH_COLL_OP_MAXLOC][RCH_COLL_K_FLD_I32] = K1(maxloc_fld_i32),
    [RCH_COLL_OP_MINLOC][RCH_COLL_K_FLD_I32] = K1(minloc_fld_i32),
    [RCH_COLL_OP_MAXLOC][RCH_COLL_K_F32_F32] = K1(maxloc_f32_f32),
    [RCH_COLL_OP_MINLOC][RCH_COLL_K_F32_F32] = K1(minloc_f32_f32),
    [RCH_COLL_OP_MAXLOC][RCH_COLL_K_F64_F64] = K1(maxloc_f64_f64),
    [RCH_COLL_OP_MINLOC][RCH_COLL_K_F64_F64] = K1(minloc_f64_f64),
    [RCH_COLL_OP_MAXLOC][RCH_COLL_K_I16_X32] = K1(maxloc_i16_x32),
    [RCH_COLL_OP_MINLOC][RCH_COLL_K_I16_X32] = K1(minloc_i16_x32),
};

rch_coll_op_fn rch_coll_kernel(enum rch_coll_opkind op, enum rch_coll_kind kind)
{
    if ((unsigned)op >= RCH_COLL_OPKIND_MAX || (unsigned)kind >= RCH_COLL_K_MAX)
        return NULL;
    if (op == RCH_COLL_OP_REPLACE)
        return kinds[kind].replace;
    if (op == RCH_COLL_OP_NO_OP)
        return no_op;
    return table[op][kind].fn;
}

rch_coll_op2d_fn rch_coll_kernel2d(enum rch_coll_opkind op, enum rch_coll_kind kind)
{
    if ((unsigned)op >= RCH_COLL_OPKIND_MAX || (unsigned)kind >= RCH_COLL_K_MAX)
        return NULL;
    if (op == RCH_COLL_OP_REPLACE || op == RCH_COLL_OP_NO_OP)
        return NULL;
    return table[op][kind].fn2d;
}

rch_coll_oprows_fn rch_coll_kernel_rows(enum rch_coll_opkind op, enum rch_coll_kind kind)
{
    if (op != RCH_COLL_OP_SUM || (unsigned)kind >= RCH_COLL_K_MAX)
        return NULL;
    return sum_rows[kind];
}

size_t rch_coll_kind_size(enum rch_coll_kind kind)
{
    return (unsigned)kind < RCH_COLL_K_MAX ? kinds[kind].size : 0;
}

const char *rch_coll_kind_name(enum rch_coll_kind kind)
{
    return (unsigned)kind < RCH_COLL_K_MAX ? kinds[kind].name : "unknown";
}

const char *rch_coll_opkind_name(enum rch_coll_opkind op)
{
    return (unsigned)op < RCH_COLL_OPKIND_MAX ? op_names[op] : "unknown";
}
