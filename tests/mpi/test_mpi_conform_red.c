/*
 * Reductions by the letter of MPI 4.1 §6.9.2, results computed here from
 * the definitions (not by MPI_Reduce_local):
 *   - the table of which predefined operation applies to which type group
 *     (C integer, Fortran integer, multi-language, floating point, logical,
 *     complex, byte, and the MAXLOC/MINLOC pairs), with MPICH's extensions
 *     of it that programs written for MPICH use: MPI_CHAR is a C integer and
 *     MPI_CHARACTER a Fortran integer, signed as the compiler's char is;
 *     every other pair, MPI_WCHAR's included, is MPI_ERR_OP from
 *     MPI_Allreduce and MPI_Reduce_local;
 *   - every allowed pair through MPI_Allreduce, MPI_Reduce (to the last
 *     rank), MPI_Scan and MPI_Exscan, against values computed in 64-bit
 *     arithmetic truncated to the type's width (integers), exactly
 *     representable values (floating point, complex), 0/1 (logical), and
 *     "largest value, smallest index on ties" (pairs, laid out as the C
 *     structs of the standard: MPI_SHORT_INT has 6 bytes of data in 8);
 *   - derived types of MPI_SHORT_INT (contiguous, vector, resized);
 *   - MPI_IN_PLACE in Reduce, Allreduce, Scan, Exscan, Reduce_scatter and
 *     Reduce_scatter_block; MPI_IN_PLACE is not an operand of
 *     MPI_Reduce_local;
 *   - user operations: a non-commutative one (2x2 matrix product) is
 *     applied in rank order in every reduction (blocking and nonblocking),
 *     on a contiguous and a
 *     strided datatype; MPI_Op_commutative for predefined and user ops;
 *   - zero counts.
 */
#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include "mpi_test.h"

enum grp { G_CINT, G_FINT, G_MULTI, G_FLOAT, G_LOGICAL, G_COMPLEX, G_BYTE, G_PAIR, G_CHAR, G_NGRP };

/* How the test builds and checks an element: the machine representation. */
enum rep { R_INT, R_UINT, R_F32, R_F64, R_FLD, R_C32, R_C64, R_CLD, R_BOOL, R_FLOG,
           R_P_FI, R_P_DI, R_P_LI, R_P_SI, R_P_II, R_P_LDI, R_P_FF, R_P_DD };
/* a C char: signed on x86-64, unsigned on AArch64 */
#define CHAR_REP (CHAR_MIN < 0 ? R_INT : R_UINT)

static const struct tdesc {
    MPI_Datatype t;
    const char *name;
    enum grp g;
    enum rep rep;
    size_t width;       /* bytes of an integer / logical value */
} types[] = {
    { MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", G_CINT, R_INT, 1 },
    { MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", G_CINT, R_UINT, 1 },
    { MPI_SHORT, "MPI_SHORT", G_CINT, R_INT, sizeof(short) },
    { MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", G_CINT, R_UINT, sizeof(short) },
    { MPI_INT, "MPI_INT", G_CINT, R_INT, sizeof(int) },
    { MPI_UNSIGNED, "MPI_UNSIGNED", G_CINT, R_UINT, sizeof(int) },
    { MPI_LONG, "MPI_LONG", G_CINT, R_INT, sizeof(long) },
    { MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", G_CINT, R_UINT, sizeof(long) },
    { MPI_LONG_LONG, "MPI_LONG_LONG", G_CINT, R_INT, sizeof(long long) },
    { MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", G_CINT, R_UINT, sizeof(long long) },
    { MPI_INT8_T, "MPI_INT8_T", G_CINT, R_INT, 1 },
    { MPI_INT16_T, "MPI_INT16_T", G_CINT, R_INT, 2 },
    { MPI_INT32_T, "MPI_INT32_T", G_CINT, R_INT, 4 },
    { MPI_INT64_T, "MPI_INT64_T", G_CINT, R_INT, 8 },
    { MPI_UINT8_T, "MPI_UINT8_T", G_CINT, R_UINT, 1 },
    { MPI_UINT16_T, "MPI_UINT16_T", G_CINT, R_UINT, 2 },
    { MPI_UINT32_T, "MPI_UINT32_T", G_CINT, R_UINT, 4 },
    { MPI_UINT64_T, "MPI_UINT64_T", G_CINT, R_UINT, 8 },
    { MPI_INTEGER, "MPI_INTEGER", G_FINT, R_INT, 4 },
    { MPI_INTEGER1, "MPI_INTEGER1", G_FINT, R_INT, 1 },
    { MPI_INTEGER2, "MPI_INTEGER2", G_FINT, R_INT, 2 },
    { MPI_INTEGER4, "MPI_INTEGER4", G_FINT, R_INT, 4 },
    { MPI_INTEGER8, "MPI_INTEGER8", G_FINT, R_INT, 8 },
    { MPI_AINT, "MPI_AINT", G_MULTI, R_INT, sizeof(MPI_Aint) },
    { MPI_OFFSET, "MPI_OFFSET", G_MULTI, R_INT, sizeof(MPI_Offset) },
    { MPI_COUNT, "MPI_COUNT", G_MULTI, R_INT, sizeof(MPI_Count) },
    { MPI_FLOAT, "MPI_FLOAT", G_FLOAT, R_F32, 0 },
    { MPI_DOUBLE, "MPI_DOUBLE", G_FLOAT, R_F64, 0 },
    { MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", G_FLOAT, R_FLD, 0 },
    { MPI_REAL, "MPI_REAL", G_FLOAT, R_F32, 0 },
    { MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", G_FLOAT, R_F64, 0 },
    { MPI_REAL4, "MPI_REAL4", G_FLOAT, R_F32, 0 },
    { MPI_REAL8, "MPI_REAL8", G_FLOAT, R_F64, 0 },
    { MPI_LOGICAL, "MPI_LOGICAL", G_LOGICAL, R_FLOG, 4 },
    { MPI_C_BOOL, "MPI_C_BOOL", G_LOGICAL, R_BOOL, 1 },
    { MPI_CXX_BOOL, "MPI_CXX_BOOL", G_LOGICAL, R_BOOL, 1 },
    { MPI_C_COMPLEX, "MPI_C_COMPLEX", G_COMPLEX, R_C32, 0 },
    { MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", G_COMPLEX, R_C64, 0 },
    { MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", G_COMPLEX, R_CLD, 0 },
    { MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", G_COMPLEX, R_C32, 0 },
    { MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", G_COMPLEX, R_C64, 0 },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", G_COMPLEX, R_CLD, 0 },
    { MPI_COMPLEX, "MPI_COMPLEX", G_COMPLEX, R_C32, 0 },
    { MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", G_COMPLEX, R_C64, 0 },
    { MPI_BYTE, "MPI_BYTE", G_BYTE, R_UINT, 1 },
    { MPI_FLOAT_INT, "MPI_FLOAT_INT", G_PAIR, R_P_FI, 0 },
    { MPI_DOUBLE_INT, "MPI_DOUBLE_INT", G_PAIR, R_P_DI, 0 },
    { MPI_LONG_INT, "MPI_LONG_INT", G_PAIR, R_P_LI, 0 },
    { MPI_SHORT_INT, "MPI_SHORT_INT", G_PAIR, R_P_SI, 0 },
    { MPI_2INT, "MPI_2INT", G_PAIR, R_P_II, 0 },
    { MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", G_PAIR, R_P_LDI, 0 },
    { MPI_2INTEGER, "MPI_2INTEGER", G_PAIR, R_P_II, 0 },
    { MPI_2REAL, "MPI_2REAL", G_PAIR, R_P_FF, 0 },
    { MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", G_PAIR, R_P_DD, 0 },
    /* MPICH's extensions (src/include/mpir_op_util.h, the _EXTRA groups) */
    { MPI_CHAR, "MPI_CHAR", G_CINT, CHAR_REP, 1 },
    { MPI_CHARACTER, "MPI_CHARACTER", G_FINT, CHAR_REP, 1 },
    { MPI_WCHAR, "MPI_WCHAR", G_CHAR, R_INT, 4 },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

#define B(g) (1u << (g))
enum opk { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, O_MAXLOC, O_MINLOC };
/* The table of MPI 4.1 §6.9.2, with MPICH's extension: the logical
 * operations on the multi-language types (integers). */
static const struct odesc {
    MPI_Op op;
    const char *name;
    enum opk k;
    unsigned groups;
} ops[] = {
    { MPI_MAX, "MPI_MAX", O_MAX, B(G_CINT) | B(G_FINT) | B(G_FLOAT) | B(G_MULTI) },
    { MPI_MIN, "MPI_MIN", O_MIN, B(G_CINT) | B(G_FINT) | B(G_FLOAT) | B(G_MULTI) },
    { MPI_SUM, "MPI_SUM", O_SUM, B(G_CINT) | B(G_FINT) | B(G_FLOAT) | B(G_COMPLEX) | B(G_MULTI) },
    { MPI_PROD, "MPI_PROD", O_PROD, B(G_CINT) | B(G_FINT) | B(G_FLOAT) | B(G_COMPLEX) | B(G_MULTI) },
    { MPI_LAND, "MPI_LAND", O_LAND, B(G_CINT) | B(G_LOGICAL) | B(G_MULTI) },
    { MPI_LOR, "MPI_LOR", O_LOR, B(G_CINT) | B(G_LOGICAL) | B(G_MULTI) },
    { MPI_LXOR, "MPI_LXOR", O_LXOR, B(G_CINT) | B(G_LOGICAL) | B(G_MULTI) },
    { MPI_BAND, "MPI_BAND", O_BAND, B(G_CINT) | B(G_FINT) | B(G_BYTE) | B(G_MULTI) },
    { MPI_BOR, "MPI_BOR", O_BOR, B(G_CINT) | B(G_FINT) | B(G_BYTE) | B(G_MULTI) },
    { MPI_BXOR, "MPI_BXOR", O_BXOR, B(G_CINT) | B(G_FINT) | B(G_BYTE) | B(G_MULTI) },
    { MPI_MAXLOC, "MPI_MAXLOC", O_MAXLOC, B(G_PAIR) },
    { MPI_MINLOC, "MPI_MINLOC", O_MINLOC, B(G_PAIR) },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

#define N 4          /* elements per operand */
#define MAXB 32      /* largest extent (MPI_LONG_DOUBLE_INT, long double complex) */

/* The standard's pair types as C structs (MPI 4.1 §6.9.4). */
struct p_fi { float v; int i; };
struct p_di { double v; int i; };
struct p_li { long v; int i; };
struct p_si { short v; int i; };
struct p_ii { int v; int i; };
struct p_ldi { long double v; int i; };
struct p_ff { float v, i; };
struct p_dd { double v, i; };

/* A value for rank r, element e, for operation k. Arithmetic operations
 * get small values (products of 8 ranks fit in 8 bits: at most two 2s);
 * bitwise ones random bits; logical ones zero or a non-zero that is not 1. */
static int64_t ival(enum opk k, const struct tdesc *d, int r, int e)
{
    uint64_t s = (uint64_t)r * 7919 + (uint64_t)e * 104729 + (uint64_t)k;
    switch (k) {
    case O_BAND: case O_BOR: case O_BXOR:
        return (int64_t)mt_next(&s);
    case O_LAND: case O_LOR: case O_LXOR:
        return (r + e) % 3 == 0 || (k == O_LAND && e == 1) ? 0 : (d->rep == R_INT ? -2 : 2) * (r + 1);
    default: {
        int v = (r + e) % 5 == 0 ? 2 : ((r * 3 + e) % 2 ? 1 : -1);
        if (k == O_MAX || k == O_MIN)
            v = (r * 7 + e * 5) % 11 - 5;
        if (d->rep == R_UINT && v < 0)
            v = -v;
        return v;
    }
    }
}

/* value truncated to width bytes, sign- or zero-extended back */
static int64_t trunc_w(int64_t x, size_t w, int is_signed)
{
    if (w >= 8)
        return x;
    uint64_t m = (1ull << (8 * w)) - 1, u = (uint64_t)x & m;
    if (is_signed && (u >> (8 * w - 1)))
        u |= ~m;
    return (int64_t)u;
}

static int64_t icombine(enum opk k, int64_t a, int64_t b, int is_signed)
{
    switch (k) {
    case O_MAX: return is_signed ? (a > b ? a : b) : ((uint64_t)a > (uint64_t)b ? a : b);
    case O_MIN: return is_signed ? (a < b ? a : b) : ((uint64_t)a < (uint64_t)b ? a : b);
    case O_SUM: return (int64_t)((uint64_t)a + (uint64_t)b);
    case O_PROD: return (int64_t)((uint64_t)a * (uint64_t)b);
    case O_LAND: return a && b;
    case O_LOR: return a || b;
    case O_LXOR: return !a != !b;
    case O_BAND: return a & b;
    case O_BOR: return a | b;
    default: return a ^ b;
    }
}

static void put_int(unsigned char *p, size_t w, int64_t x)
{
    switch (w) {
    case 1: { int8_t v = (int8_t)x; memcpy(p, &v, 1); break; }
    case 2: { int16_t v = (int16_t)x; memcpy(p, &v, 2); break; }
    case 4: { int32_t v = (int32_t)x; memcpy(p, &v, 4); break; }
    default: memcpy(p, &x, 8); break;
    }
}

/* Element e of rank r's operand, in the type's layout. */
static void element(const struct tdesc *d, enum opk k, int r, int e, unsigned char *p)
{
    long double v = (long double)ival(k, d, r, e);
    long double im = (long double)((r + 2 * e) % 3 - 1);
    int idx = (r * 5 + e) % 7;   /* indexes not in rank order: ties must pick the smallest */
    switch (d->rep) {
    case R_INT: case R_UINT: put_int(p, d->width, ival(k, d, r, e)); break;
    case R_F32: { float f = (float)v; memcpy(p, &f, sizeof(f)); break; }
    case R_F64: { double f = (double)v; memcpy(p, &f, sizeof(f)); break; }
    case R_FLD: memcpy(p, &v, 10); break;
    case R_C32: { float _Complex z = (float)v + (float)im * I; memcpy(p, &z, sizeof(z)); break; }
    case R_C64: { double _Complex z = (double)v + (double)im * I; memcpy(p, &z, sizeof(z)); break; }
    case R_CLD: memcpy(p, &v, 10); memcpy(p + 16, &im, 10); break;   /* real part, then imaginary */
    case R_BOOL: { bool b = ival(k, d, r, e) != 0; memcpy(p, &b, 1); break; }
    case R_FLOG: { int32_t x = ival(k, d, r, e) != 0; memcpy(p, &x, 4); break; }
    case R_P_FI: { struct p_fi x = { (float)((r + e) % 3), idx }; memcpy(p, &x.v, 4); memcpy(p + offsetof(struct p_fi, i), &x.i, 4); break; }
    case R_P_DI: { struct p_di x = { (r + e) % 3, idx }; memcpy(p, &x.v, 8); memcpy(p + offsetof(struct p_di, i), &x.i, 4); break; }
    case R_P_LI: { struct p_li x = { (r + e) % 3, idx }; memcpy(p, &x.v, 8); memcpy(p + offsetof(struct p_li, i), &x.i, 4); break; }
    case R_P_SI: { struct p_si x = { (short)((r + e) % 3), idx }; memcpy(p, &x.v, 2); memcpy(p + offsetof(struct p_si, i), &x.i, 4); break; }
    case R_P_II: { struct p_ii x = { (r + e) % 3, idx }; memcpy(p, &x, sizeof(x)); break; }
    case R_P_LDI: { long double lv = (r + e) % 3; memcpy(p, &lv, 10); memcpy(p + offsetof(struct p_ldi, i), &idx, 4); break; }
    case R_P_FF: { struct p_ff x = { (float)((r + e) % 3), (float)idx }; memcpy(p, &x, sizeof(x)); break; }
    case R_P_DD: { struct p_dd x = { (r + e) % 3, idx }; memcpy(p, &x, sizeof(x)); break; }
    }
}

/* The expected fold of ranks lo..hi (inclusive) for element e. */
static void expected(const struct tdesc *d, enum opk k, int lo, int hi, int e, unsigned char *p)
{
    int is_signed = d->rep == R_INT;
    if (d->rep == R_INT || d->rep == R_UINT || d->rep == R_BOOL || d->rep == R_FLOG) {
        size_t w = d->width;
        int64_t acc = trunc_w(ival(k, d, lo, e), w, is_signed);
        if (d->rep == R_BOOL || d->rep == R_FLOG)
            acc = acc != 0;
        for (int r = lo + 1; r <= hi; r++) {
            int64_t x = trunc_w(ival(k, d, r, e), w, is_signed);
            acc = trunc_w(icombine(k, acc, x, is_signed), w, is_signed);
        }
        if (d->rep == R_BOOL) {
            bool b = acc != 0;
            memcpy(p, &b, 1);
        } else {
            put_int(p, w, acc);
        }
        return;
    }
    if (d->g == G_FLOAT || d->g == G_COMPLEX) {
        long double _Complex acc = ival(k, d, lo, e) + (long double)((lo + 2 * e) % 3 - 1) * I;
        if (d->g == G_FLOAT)
            acc = creall(acc);
        for (int r = lo + 1; r <= hi; r++) {
            long double _Complex x = ival(k, d, r, e) + (d->g == G_COMPLEX ? (long double)((r + 2 * e) % 3 - 1) * I : 0);
            if (k == O_SUM) acc += x;
            else if (k == O_PROD) acc *= x;
            else if (k == O_MAX) acc = creall(x) > creall(acc) ? x : acc;
            else acc = creall(x) < creall(acc) ? x : acc;
        }
        long double re = creall(acc), imv = cimagl(acc);
        switch (d->rep) {
        case R_F32: { float f = (float)re; memcpy(p, &f, 4); break; }
        case R_F64: { double f = (double)re; memcpy(p, &f, 8); break; }
        case R_FLD: memcpy(p, &re, 10); break;
        case R_C32: { float f[2] = { (float)re, (float)imv }; memcpy(p, f, 8); break; }
        case R_C64: { double f[2] = { (double)re, (double)imv }; memcpy(p, f, 16); break; }
        default: memcpy(p, &re, 10); memcpy(p + 16, &imv, 10); break;
        }
        return;
    }
    /* pairs: MAXLOC keeps the largest value, MINLOC the smallest; on equal
     * values the smaller index */
    int bv = (lo + e) % 3, bi = (lo * 5 + e) % 7;
    for (int r = lo + 1; r <= hi; r++) {
        int v = (r + e) % 3, i = (r * 5 + e) % 7;
        if ((k == O_MAXLOC ? v > bv : v < bv) || (v == bv && i < bi)) {
            bv = v;
            bi = i;
        }
    }
    switch (d->rep) {
    case R_P_FI: { float f = (float)bv; memcpy(p, &f, 4); memcpy(p + offsetof(struct p_fi, i), &bi, 4); break; }
    case R_P_DI: { double f = bv; memcpy(p, &f, 8); memcpy(p + offsetof(struct p_di, i), &bi, 4); break; }
    case R_P_LI: { long f = bv; memcpy(p, &f, 8); memcpy(p + offsetof(struct p_li, i), &bi, 4); break; }
    case R_P_SI: { short f = (short)bv; memcpy(p, &f, 2); memcpy(p + offsetof(struct p_si, i), &bi, 4); break; }
    case R_P_II: { int f[2] = { bv, bi }; memcpy(p, f, 8); break; }
    case R_P_LDI: { long double f = bv; memcpy(p, &f, 10); memcpy(p + offsetof(struct p_ldi, i), &bi, 4); break; }
    case R_P_FF: { float f[2] = { (float)bv, (float)bi }; memcpy(p, f, 8); break; }
    default: { double f[2] = { bv, bi }; memcpy(p, f, 16); break; }
    }
}

/* Part i (0: real, 1: imaginary) of a floating-point or complex element. */
static long double part(enum rep rep, const unsigned char *p, int i)
{
    if (rep == R_F32 || rep == R_C32) {
        float f;
        memcpy(&f, p + 4 * i, 4);
        return f;
    }
    if (rep == R_F64 || rep == R_C64) {
        double f;
        memcpy(&f, p + 8 * i, 8);
        return f;
    }
    long double f = 0;   /* x87: 10 bytes of data in 16 */
    memcpy(&f, p + 16 * i, 10);
    return f;
}

static int same_reals(enum rep rep, const unsigned char *x, const unsigned char *y)
{
    int parts = rep == R_C32 || rep == R_C64 || rep == R_CLD ? 2 : 1;
    for (int i = 0; i < parts; i++)
        if (part(rep, x, i) != part(rep, y, i))
            return 0;
    return 1;
}

/* Compare only the data bytes of each element (padding and the 6 unused
 * bytes of an x87 long double are not data). */
static int same(const struct tdesc *d, const unsigned char *a, const unsigned char *b, MPI_Aint ext)
{
    static const struct { enum rep rep; size_t off[2], len[2]; } spans[] = {
        { R_P_FI, { 0, 4 }, { 4, 4 } },
        { R_P_DI, { 0, 8 }, { 8, 4 } },
        { R_P_LI, { 0, 8 }, { 8, 4 } },
        { R_P_SI, { 0, 4 }, { 2, 4 } },
        { R_P_LDI, { 0, 16 }, { 10, 4 } },
    };
    for (int e = 0; e < N; e++) {
        const unsigned char *x = a + e * ext, *y = b + e * ext;
        if (d->g == G_FLOAT || d->g == G_COMPLEX) {
            /* by value: a product's zero part may be +0 or -0 depending on
             * the order the ranks' operands were combined in */
            if (!same_reals(d->rep, x, y))
                return 0;
            continue;
        }
        size_t k;
        for (k = 0; k < sizeof(spans) / sizeof(spans[0]) && spans[k].rep != d->rep; k++)
            ;
        if (k == sizeof(spans) / sizeof(spans[0])) {
            if (memcmp(x, y, (size_t)ext))
                return 0;
            continue;
        }
        for (int s = 0; s < 2; s++)
            if (memcmp(x + spans[k].off[s], y + spans[k].off[s], spans[k].len[s]))
                return 0;
    }
    return 1;
}

static int size, n_ok, n_refused;

static void fill(const struct tdesc *d, enum opk k, int r, unsigned char *buf, MPI_Aint ext)
{
    memset(buf, 0, (size_t)ext * N);
    for (int e = 0; e < N; e++)
        element(d, k, r, e, buf + e * ext);
}

static void want(const struct tdesc *d, enum opk k, int lo, int hi, unsigned char *buf, MPI_Aint ext)
{
    memset(buf, 0, (size_t)ext * N);
    for (int e = 0; e < N; e++)
        expected(d, k, lo, hi, e, buf + e * ext);
}

static void check_pair(const struct odesc *o, const struct tdesc *d)
{
    static unsigned char in[MAXB * N], out[MAXB * N], ref[MAXB * N];
    MPI_Aint lb, ext;
    MPI_OK(MPI_Type_get_extent(d->t, &lb, &ext));
    CHECK(ext <= MAXB, "%s extent %ld", d->name, (long)ext);
    int allowed = (o->groups >> d->g) & 1;
    fill(d, o->k, mt_rank, in, ext);
    if (!allowed) {
        char msg[MPI_MAX_ERROR_STRING], tn[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_OK(MPI_Type_get_name(d->t, tn, &len));
        int rc = MPI_Allreduce(in, out, N, d->t, o->op, MPI_COMM_WORLD);
        CHECK(mt_class(rc) == MPI_ERR_OP, "MPI_Allreduce(%s, %s) gave %d, not MPI_ERR_OP", o->name, d->name, rc);
        MPI_Error_string(rc, msg, &len);
        CHECK(strstr(msg, o->name) && strstr(msg, tn), "message does not name %s and %s: %s", o->name, tn, msg);
        rc = MPI_Reduce_local(in, out, N, d->t, o->op);
        CHECK(mt_class(rc) == MPI_ERR_OP, "MPI_Reduce_local(%s, %s) gave %d, not MPI_ERR_OP", o->name, d->name, rc);
        n_refused++;
        return;
    }
    memset(out, 0xa5, sizeof(out));
    MPI_OK(MPI_Allreduce(in, out, N, d->t, o->op, MPI_COMM_WORLD));
    want(d, o->k, 0, size - 1, ref, ext);
    CHECK(same(d, out, ref, ext), "MPI_Allreduce(%s, %s) is not the standard's result", o->name, d->name);

    memset(out, 0xa5, sizeof(out));
    MPI_OK(MPI_Reduce(in, out, N, d->t, o->op, size - 1, MPI_COMM_WORLD));
    if (mt_rank == size - 1)
        CHECK(same(d, out, ref, ext), "MPI_Reduce(%s, %s) is not the standard's result", o->name, d->name);

    memset(out, 0xa5, sizeof(out));
    MPI_OK(MPI_Scan(in, out, N, d->t, o->op, MPI_COMM_WORLD));
    want(d, o->k, 0, mt_rank, ref, ext);
    CHECK(same(d, out, ref, ext), "MPI_Scan(%s, %s) is not the standard's result", o->name, d->name);

    memset(out, 0xa5, sizeof(out));
    MPI_OK(MPI_Exscan(in, out, N, d->t, o->op, MPI_COMM_WORLD));
    if (mt_rank > 0) {
        want(d, o->k, 0, mt_rank - 1, ref, ext);
        CHECK(same(d, out, ref, ext), "MPI_Exscan(%s, %s) is not the standard's result", o->name, d->name);
    }
    n_ok++;
}

/* ---- derived types of a pair type: MAXLOC over their elements ---- */

/* MPI_SHORT_INT elements have 6 bytes of data in 8: a contiguous type, a
 * vector skipping every other one and a type resized to two of them each
 * reduce exactly the pairs they select and leave the rest alone. */
static void pair_derived(void)
{
    struct p_si a[8], o[8];
    MPI_Datatype ts[3];
    const char *nm[3] = { "contiguous(3, MPI_SHORT_INT)", "vector(2, 1, 2, MPI_SHORT_INT)",
                          "resized(MPI_SHORT_INT, 0, 16)" };
    const int count[3] = { 2, 2, 3 };
    const int picked[3][8] = { { 1, 1, 1, 1, 1, 1, 0, 0 }, { 1, 0, 1, 1, 0, 1, 0, 0 }, { 1, 0, 1, 0, 1, 0, 0, 0 } };
    MPI_OK(MPI_Type_contiguous(3, MPI_SHORT_INT, &ts[0]));
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_SHORT_INT, &ts[1]));
    MPI_OK(MPI_Type_create_resized(MPI_SHORT_INT, 0, 2 * sizeof(struct p_si), &ts[2]));
    for (int k = 0; k < 8; k++) {
        memset(&a[k], 0, sizeof(a[k]));
        a[k].v = (short)((mt_rank + k) % 3);
        a[k].i = (mt_rank * 5 + k) % 7;
    }
    for (int j = 0; j < 3; j++) {
        MPI_OK(MPI_Type_commit(&ts[j]));
        memset(o, 0x11, sizeof(o));
        MPI_OK(MPI_Allreduce(a, o, count[j], ts[j], MPI_MAXLOC, MPI_COMM_WORLD));
        for (int k = 0; k < 8; k++) {
            if (!picked[j][k]) {
                CHECK(o[k].v == 0x1111 && o[k].i == 0x11111111, "%s: pair %d written", nm[j], k);
                continue;
            }
            int bv = -1, bi = 0;
            for (int r = 0; r < size; r++) {
                int v = (r + k) % 3, i = (r * 5 + k) % 7;
                if (v > bv || (v == bv && i < bi)) {
                    bv = v;
                    bi = i;
                }
            }
            CHECK(o[k].v == bv && o[k].i == bi, "%s: pair %d is (%d, %d), expected (%d, %d)", nm[j], k, o[k].v,
                  o[k].i, bv, bi);
        }
        MPI_OK(MPI_Type_free(&ts[j]));
    }
}

/* ---- MPI_IN_PLACE ---- */

static void in_place(void)
{
    int n = size, v[64], w[64];
    /* rank r contributes r*100 + i at element i; sums are closed forms */
#define SUM_TO(hi, i) ((hi) * ((hi) + 1) / 2 * 100 + ((hi) + 1) * (i))
    for (int i = 0; i < n; i++)
        v[i] = mt_rank * 100 + i;
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(v[i] == SUM_TO(size - 1, i), "Allreduce IN_PLACE [%d] = %d", i, v[i]);

    for (int i = 0; i < n; i++)
        v[i] = mt_rank * 100 + i;
    int root = size / 2;
    MPI_OK(MPI_Reduce(mt_rank == root ? MPI_IN_PLACE : v, mt_rank == root ? v : NULL, n, MPI_INT, MPI_SUM, root,
                      MPI_COMM_WORLD));
    if (mt_rank == root)
        for (int i = 0; i < n; i++)
            CHECK(v[i] == SUM_TO(size - 1, i), "Reduce IN_PLACE [%d] = %d", i, v[i]);

    for (int i = 0; i < n; i++)
        v[i] = mt_rank * 100 + i;
    MPI_OK(MPI_Scan(MPI_IN_PLACE, v, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(v[i] == SUM_TO(mt_rank, i), "Scan IN_PLACE [%d] = %d", i, v[i]);

    for (int i = 0; i < n; i++)
        v[i] = mt_rank * 100 + i;
    MPI_OK(MPI_Exscan(MPI_IN_PLACE, v, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; mt_rank > 0 && i < n; i++)
        CHECK(v[i] == SUM_TO(mt_rank - 1, i), "Exscan IN_PLACE [%d] = %d", i, v[i]);

    /* Reduce_scatter_block: 2 per rank; Reduce_scatter: rank r gets r+1 */
    for (int i = 0; i < 2 * n; i++)
        v[i] = mt_rank * 100 + i;
    MPI_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 2; i++)
        CHECK(v[i] == SUM_TO(size - 1, 2 * mt_rank + i), "Reduce_scatter_block IN_PLACE [%d] = %d", i, v[i]);

    int counts[64], total = 0, mine = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = r + 1;
        if (r < mt_rank)
            mine += r + 1;
        total += r + 1;
    }
    CHECK(total <= 64, "too many ranks");
    for (int i = 0; i < total; i++)
        w[i] = mt_rank * 100 + i;
    MPI_OK(MPI_Reduce_scatter(MPI_IN_PLACE, w, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i <= mt_rank; i++)
        CHECK(w[i] == SUM_TO(size - 1, mine + i), "Reduce_scatter IN_PLACE [%d] = %d", i, w[i]);

    /* MPI_IN_PLACE is no operand of MPI_Reduce_local */
    int rc = MPI_Reduce_local(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM);
    CHECK(rc != MPI_SUCCESS && (mt_class(rc) == MPI_ERR_BUFFER || mt_class(rc) == MPI_ERR_ARG),
          "MPI_Reduce_local(MPI_IN_PLACE, ...) gave %d", rc);
    rc = MPI_Reduce_local(v, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM);
    CHECK(rc != MPI_SUCCESS && (mt_class(rc) == MPI_ERR_BUFFER || mt_class(rc) == MPI_ERR_ARG),
          "MPI_Reduce_local(..., MPI_IN_PLACE) gave %d", rc);
#undef SUM_TO
}

/* ---- user operations ---- */

/* 2x2 matrices mod P: associative, not commutative. inout = in * inout. */
#define P 1000003
static int matmul_calls;
static void matmul(void *in_, void *inout_, int *len, MPI_Datatype *dt)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    matmul_calls++;
    for (int k = 0; k < *len; k++) {
        /* elements are 4 ints, `stride` ints apart inside one element (the
         * strided type puts a gap after each int) */
        int st = ext == 4 * (MPI_Aint)sizeof(int) ? 1 : 2;
        int *a = (int *)((char *)in_ + k * ext), *b = (int *)((char *)inout_ + k * ext);
        int64_t a0 = a[0], a1 = a[st], a2 = a[2 * st], a3 = a[3 * st];
        int64_t b0 = b[0], b1 = b[st], b2 = b[2 * st], b3 = b[3 * st];
        b[0] = (int)((a0 * b0 + a1 * b2) % P);
        b[st] = (int)((a0 * b1 + a1 * b3) % P);
        b[2 * st] = (int)((a2 * b0 + a3 * b2) % P);
        b[3 * st] = (int)((a2 * b1 + a3 * b3) % P);
    }
}

static void mat_of(int r, int e, int64_t m[4])
{
    m[0] = r + 1;
    m[1] = e + 2;
    m[2] = r * 3 + e;
    m[3] = 1;
}

static void mat_fold(int lo, int hi, int e, int64_t m[4])
{
    mat_of(lo, e, m);
    for (int r = lo + 1; r <= hi; r++) {
        int64_t x[4], y[4];
        mat_of(r, e, x);
        y[0] = (m[0] * x[0] + m[1] * x[2]) % P;
        y[1] = (m[0] * x[1] + m[1] * x[3]) % P;
        y[2] = (m[2] * x[0] + m[3] * x[2]) % P;
        y[3] = (m[2] * x[1] + m[3] * x[3]) % P;
        memcpy(m, y, sizeof(y));
    }
}

#define NE 3
static void mat_put(int *buf, int st, int r)
{
    for (int e = 0; e < NE; e++) {
        int64_t m[4];
        mat_of(r, e, m);
        for (int j = 0; j < 4; j++)
            buf[e * 4 * st + j * st] = (int)m[j];
    }
}

static void mat_check(const int *buf, int st, int lo, int hi, const char *what)
{
    for (int e = 0; e < NE; e++) {
        int64_t m[4];
        mat_fold(lo, hi, e, m);
        for (int j = 0; j < 4; j++)
            CHECK(buf[e * 4 * st + j * st] == m[j], "%s: element %d entry %d is %d, rank-order product %lld", what,
                  e, j, buf[e * 4 * st + j * st], (long long)m[j]);
    }
}

static void user_ops(void)
{
    MPI_Op mm, mmc;
    int commute = -1;
    MPI_OK(MPI_Op_create(matmul, 0, &mm));
    MPI_OK(MPI_Op_commutative(mm, &commute));
    CHECK(commute == 0, "MPI_Op_commutative(non-commutative op) = %d", commute);
    MPI_OK(MPI_Op_create(matmul, 1, &mmc));
    MPI_OK(MPI_Op_commutative(mmc, &commute));
    CHECK(commute == 1, "MPI_Op_commutative(commutative op) = %d", commute);
    MPI_OK(MPI_Op_free(&mmc));
    CHECK(mmc == MPI_OP_NULL, "MPI_Op_free did not set MPI_OP_NULL");
    const MPI_Op pre[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR,
                           MPI_BXOR, MPI_MAXLOC, MPI_MINLOC };
    for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
        MPI_OK(MPI_Op_commutative(pre[i], &commute));
        CHECK(commute == 1, "predefined op %zu not commutative", i);
    }
    MPI_Op cp = MPI_SUM;
    CHECK(mt_class(MPI_Op_free(&cp)) == MPI_ERR_OP, "MPI_Op_free(MPI_SUM) accepted");
    CHECK(mt_class(MPI_Op_commutative(MPI_OP_NULL, &commute)) == MPI_ERR_OP, "MPI_Op_commutative(MPI_OP_NULL)");
    CHECK(mt_class(MPI_Op_create(NULL, 1, &cp)) == MPI_ERR_ARG, "MPI_Op_create(NULL function) accepted");
    int x = 1, y = 2;
    CHECK(mt_class(MPI_Reduce_local(&x, &y, 1, MPI_INT, MPI_OP_NULL)) == MPI_ERR_OP, "Reduce_local(MPI_OP_NULL)");
    CHECK(mt_class(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD)) == MPI_ERR_OP,
          "MPI_REPLACE accepted by MPI_Allreduce");
    CHECK(mt_class(MPI_Reduce_local(&x, &y, -1, MPI_INT, MPI_SUM)) == MPI_ERR_COUNT, "negative count accepted");

    /* a contiguous matrix type and a strided one (an int, a gap, ...) */
    MPI_Datatype mat[2], v;
    MPI_OK(MPI_Type_contiguous(4, MPI_INT, &mat[0]));
    MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &v));
    MPI_OK(MPI_Type_create_resized(v, 0, 8 * sizeof(int), &mat[1]));
    MPI_OK(MPI_Type_free(&v));
    for (int s = 0; s < 2; s++) {
        int st = s + 1;
        static int in[NE * 8 * 64], out[NE * 8 * 64], gap = 0x5a5a5a5a;
        const char *nm = s ? "strided" : "contiguous";
        char what[64];
        MPI_OK(MPI_Type_commit(&mat[s]));
        for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
            out[i] = in[i] = gap;
        mat_put(in, st, mt_rank);
        MPI_OK(MPI_Allreduce(in, out, NE, mat[s], mm, MPI_COMM_WORLD));
        snprintf(what, sizeof(what), "Allreduce %s", nm);
        mat_check(out, st, 0, size - 1, what);
        if (st == 2)
            CHECK(out[1] == gap, "the strided type's gap was written");
        for (int root = 0; root < size; root++) {
            MPI_OK(MPI_Reduce(in, out, NE, mat[s], mm, root, MPI_COMM_WORLD));
            snprintf(what, sizeof(what), "Reduce %s to %d", nm, root);
            if (mt_rank == root)
                mat_check(out, st, 0, size - 1, what);
        }
        MPI_OK(MPI_Scan(in, out, NE, mat[s], mm, MPI_COMM_WORLD));
        snprintf(what, sizeof(what), "Scan %s", nm);
        mat_check(out, st, 0, mt_rank, what);
        MPI_OK(MPI_Exscan(in, out, NE, mat[s], mm, MPI_COMM_WORLD));
        snprintf(what, sizeof(what), "Exscan %s", nm);
        if (mt_rank > 0)
            mat_check(out, st, 0, mt_rank - 1, what);
        /* Reduce_scatter_block: block b of every rank holds rank's matrices */
        for (int b = 0; b < size; b++)
            mat_put(in + b * NE * 4 * st, st, mt_rank);
        MPI_OK(MPI_Reduce_scatter_block(in, out, NE, mat[s], mm, MPI_COMM_WORLD));
        snprintf(what, sizeof(what), "Reduce_scatter_block %s", nm);
        mat_check(out, st, 0, size - 1, what);
        /* the nonblocking forms, in the same order */
        MPI_Request rq;
        mat_put(in, st, mt_rank);
        MPI_OK(MPI_Iallreduce(in, out, NE, mat[s], mm, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        snprintf(what, sizeof(what), "Iallreduce %s", nm);
        mat_check(out, st, 0, size - 1, what);
        MPI_OK(MPI_Ireduce(in, out, NE, mat[s], mm, size / 2, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        snprintf(what, sizeof(what), "Ireduce %s", nm);
        if (mt_rank == size / 2)
            mat_check(out, st, 0, size - 1, what);
        MPI_OK(MPI_Iscan(in, out, NE, mat[s], mm, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        snprintf(what, sizeof(what), "Iscan %s", nm);
        mat_check(out, st, 0, mt_rank, what);
        MPI_OK(MPI_Iexscan(in, out, NE, mat[s], mm, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        snprintf(what, sizeof(what), "Iexscan %s", nm);
        if (mt_rank > 0)
            mat_check(out, st, 0, mt_rank - 1, what);
        /* in place: the result replaces the operand */
        mat_put(out, st, mt_rank);
        MPI_OK(MPI_Iallreduce(MPI_IN_PLACE, out, NE, mat[s], mm, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        snprintf(what, sizeof(what), "Iallreduce IN_PLACE %s", nm);
        mat_check(out, st, 0, size - 1, what);
        /* Reduce_scatter and its nonblocking forms: NE matrices per rank */
        int counts[64];
        for (int r = 0; r < size; r++)
            counts[r] = NE;
        for (int b = 0; b < size; b++)
            mat_put(in + b * NE * 4 * st, st, mt_rank);
        MPI_OK(MPI_Reduce_scatter(in, out, counts, mat[s], mm, MPI_COMM_WORLD));
        snprintf(what, sizeof(what), "Reduce_scatter %s", nm);
        mat_check(out, st, 0, size - 1, what);
        MPI_OK(MPI_Ireduce_scatter(in, out, counts, mat[s], mm, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        snprintf(what, sizeof(what), "Ireduce_scatter %s", nm);
        mat_check(out, st, 0, size - 1, what);
        MPI_OK(MPI_Ireduce_scatter_block(in, out, NE, mat[s], mm, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        snprintf(what, sizeof(what), "Ireduce_scatter_block %s", nm);
        mat_check(out, st, 0, size - 1, what);
        /* Reduce_local: inoutbuf = inbuf op inoutbuf */
        int x[NE * 8], y[NE * 8];
        mat_put(x, st, 0);
        mat_put(y, st, 1);
        MPI_OK(MPI_Reduce_local(x, y, NE, mat[s], mm));
        snprintf(what, sizeof(what), "Reduce_local %s", nm);
        mat_check(y, st, 0, 1, what);
        MPI_OK(MPI_Type_free(&mat[s]));
    }
    /* rank order is the communicator's: on one with the ranks reversed */
    MPI_Comm rev;
    int rr;
    static int rin[NE * 4], rout[NE * 4];
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - mt_rank, &rev));
    MPI_OK(MPI_Comm_rank(rev, &rr));
    CHECK(rr == size - 1 - mt_rank, "split by reversed key gave rank %d", rr);
    MPI_Datatype m4;
    MPI_OK(MPI_Type_contiguous(4, MPI_INT, &m4));
    MPI_OK(MPI_Type_commit(&m4));
    mat_put(rin, 1, rr);
    MPI_OK(MPI_Allreduce(rin, rout, NE, m4, mm, rev));
    mat_check(rout, 1, 0, size - 1, "Allreduce on the reversed communicator");
    MPI_OK(MPI_Scan(rin, rout, NE, m4, mm, rev));
    mat_check(rout, 1, 0, rr, "Scan on the reversed communicator");
    MPI_OK(MPI_Reduce(rin, rout, NE, m4, mm, 0, rev));
    if (rr == 0)
        mat_check(rout, 1, 0, size - 1, "Reduce on the reversed communicator");
    MPI_OK(MPI_Type_free(&m4));
    MPI_OK(MPI_Comm_free(&rev));
    CHECK(matmul_calls > 0, "the user function was never called");
    MPI_OK(MPI_Op_free(&mm));
}

/* ---- zero counts: nothing is read or written, every call succeeds ---- */

static void zero_counts(void)
{
    int a = 7, b = 9, zeros[64] = { 0 };
    MPI_OK(MPI_Allreduce(&a, &b, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_OK(MPI_Reduce(&a, &b, 0, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Scan(&a, &b, 0, MPI_SHORT_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    MPI_OK(MPI_Exscan(&a, &b, 0, MPI_INT, MPI_PROD, MPI_COMM_WORLD));
    MPI_OK(MPI_Reduce_scatter_block(&a, &b, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_OK(MPI_Reduce_scatter(&a, &b, zeros, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_OK(MPI_Reduce_local(&a, &b, 0, MPI_INT, MPI_SUM));
    MPI_OK(MPI_Bcast(&a, 0, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(a == 7 && b == 9, "a zero-count reduction wrote its buffers (%d %d)", a, b);
    /* a type without data: every predefined operation is a no-op on it */
    MPI_Datatype empty;
    int arr[4] = { 1, 2, 3, 4 }, res[4] = { 9, 9, 9, 9 };
    MPI_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
    MPI_OK(MPI_Type_commit(&empty));
    MPI_OK(MPI_Allreduce(arr, res, 4, empty, MPI_SUM, MPI_COMM_WORLD));
    MPI_OK(MPI_Reduce(arr, res, 4, empty, MPI_MAXLOC, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Reduce_local(arr, res, 4, empty, MPI_BAND));
    MPI_OK(MPI_Scan(arr, res, 4, empty, MPI_PROD, MPI_COMM_WORLD));
    CHECK(res[0] == 9 && res[3] == 9, "a reduction of a type without data wrote the result");
    MPI_OK(MPI_Type_free(&empty));
    /* an invalid pair is refused even with count 0 */
    CHECK(mt_class(MPI_Allreduce(&a, &b, 0, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD)) == MPI_ERR_OP,
          "BAND on MPI_DOUBLE with count 0 accepted");
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(size <= 10, "at most 10 ranks");

    for (size_t oi = 0; oi < NOPS; oi++)
        for (size_t ti = 0; ti < NTYPES; ti++)
            check_pair(&ops[oi], &types[ti]);
    pair_derived();
    in_place();
    user_ops();
    zero_counts();

    if (mt_rank == 0)
        printf("conform_red: %d (op, type) pairs give the standard's results, %d refused with MPI_ERR_OP; "
               "IN_PLACE, user ops in rank order, zero counts: ok; %d ranks\n", n_ok, n_refused, size);
    MPI_OK(MPI_Finalize());
    return 0;
}
