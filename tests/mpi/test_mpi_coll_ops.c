/*
 * Predefined reduction operations × every predefined datatype, through the
 * MPI interface:
 *   - which pairs are allowed follows MPI 4.1 §6.9.2 (the multi-language
 *     types MPI_AINT, MPI_OFFSET, MPI_COUNT take the Fortran integers'
 *     operations) with MPICH's extensions: MPI_CHAR is a C integer,
 *     MPI_CHARACTER a Fortran integer, the multi-language types take the
 *     logical operations too; MPI_WCHAR takes none. A pair
 *     that is not allowed gives MPI_ERR_OP from MPI_Reduce_local and from
 *     MPI_Allreduce, with a message naming the operation and the datatype;
 *     MPI_REPLACE and MPI_NO_OP are for one-sided operations only;
 *   - for every allowed pair, MPI_Allreduce over all ranks equals the
 *     left-to-right fold of every rank's operand with MPI_Reduce_local
 *     (operands regenerated locally); MPI_Reduce to a random root and
 *     MPI_Scan agree with the same folds;
 *   - a derived datatype made of one basic type reduces as its basic
 *     elements; one mixing types is refused for predefined operations;
 *   - MPI_Op_create / MPI_Op_commutative / MPI_Op_free.
 */
#include <complex.h>
#include <stdbool.h>
#include "mpi_test.h"

enum grp { G_CINT, G_FINT, G_FLOAT, G_LOGICAL, G_COMPLEX, G_BYTE, G_PAIR, G_MULTI, G_NONE };

static const struct tdesc {
    MPI_Datatype t;
    const char *name;
    enum grp g;
} types[] = {
    { MPI_CHAR, "MPI_CHAR", G_CINT }, { MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", G_CINT },
    { MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", G_CINT }, { MPI_SHORT, "MPI_SHORT", G_CINT },
    { MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", G_CINT }, { MPI_INT, "MPI_INT", G_CINT },
    { MPI_UNSIGNED, "MPI_UNSIGNED", G_CINT }, { MPI_LONG, "MPI_LONG", G_CINT },
    { MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", G_CINT }, { MPI_LONG_LONG, "MPI_LONG_LONG", G_CINT },
    { MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", G_CINT },
    { MPI_INT8_T, "MPI_INT8_T", G_CINT }, { MPI_INT16_T, "MPI_INT16_T", G_CINT },
    { MPI_INT32_T, "MPI_INT32_T", G_CINT }, { MPI_INT64_T, "MPI_INT64_T", G_CINT },
    { MPI_UINT8_T, "MPI_UINT8_T", G_CINT }, { MPI_UINT16_T, "MPI_UINT16_T", G_CINT },
    { MPI_UINT32_T, "MPI_UINT32_T", G_CINT }, { MPI_UINT64_T, "MPI_UINT64_T", G_CINT },
    { MPI_INTEGER, "MPI_INTEGER", G_FINT }, { MPI_INTEGER1, "MPI_INTEGER1", G_FINT },
    { MPI_INTEGER2, "MPI_INTEGER2", G_FINT }, { MPI_INTEGER4, "MPI_INTEGER4", G_FINT },
    { MPI_INTEGER8, "MPI_INTEGER8", G_FINT }, { MPI_AINT, "MPI_AINT", G_MULTI },
    { MPI_OFFSET, "MPI_OFFSET", G_MULTI }, { MPI_COUNT, "MPI_COUNT", G_MULTI },
    { MPI_CHARACTER, "MPI_CHARACTER", G_FINT },
    { MPI_FLOAT, "MPI_FLOAT", G_FLOAT }, { MPI_DOUBLE, "MPI_DOUBLE", G_FLOAT },
    { MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", G_FLOAT }, { MPI_REAL, "MPI_REAL", G_FLOAT },
    { MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", G_FLOAT }, { MPI_REAL4, "MPI_REAL4", G_FLOAT },
    { MPI_REAL8, "MPI_REAL8", G_FLOAT }, { MPI_REAL16, "MPI_REAL16", G_FLOAT },
    { MPI_LOGICAL, "MPI_LOGICAL", G_LOGICAL }, { MPI_C_BOOL, "MPI_C_BOOL", G_LOGICAL },
    { MPI_CXX_BOOL, "MPI_CXX_BOOL", G_LOGICAL },
    { MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", G_COMPLEX },
    { MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", G_COMPLEX },
    { MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", G_COMPLEX },
    { MPI_COMPLEX, "MPI_COMPLEX", G_COMPLEX }, { MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", G_COMPLEX },
    { MPI_COMPLEX8, "MPI_COMPLEX8", G_COMPLEX }, { MPI_COMPLEX16, "MPI_COMPLEX16", G_COMPLEX },
    { MPI_COMPLEX32, "MPI_COMPLEX32", G_COMPLEX },
    { MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", G_COMPLEX },
    { MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", G_COMPLEX },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", G_COMPLEX },
    { MPI_BYTE, "MPI_BYTE", G_BYTE },
    { MPI_FLOAT_INT, "MPI_FLOAT_INT", G_PAIR }, { MPI_DOUBLE_INT, "MPI_DOUBLE_INT", G_PAIR },
    { MPI_LONG_INT, "MPI_LONG_INT", G_PAIR }, { MPI_SHORT_INT, "MPI_SHORT_INT", G_PAIR },
    { MPI_2INT, "MPI_2INT", G_PAIR }, { MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", G_PAIR },
    { MPI_2INTEGER, "MPI_2INTEGER", G_PAIR }, { MPI_2REAL, "MPI_2REAL", G_PAIR },
    { MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", G_PAIR },
    { MPI_WCHAR, "MPI_WCHAR", G_NONE }, { MPI_PACKED, "MPI_PACKED", G_NONE },
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

static const struct odesc {
    MPI_Op op;
    const char *name;
    unsigned groups;            /* bit per enum grp */
} ops[] = {
    { MPI_MAX, "MPI_MAX", 1u << G_CINT | 1u << G_FINT | 1u << G_MULTI | 1u << G_FLOAT },
    { MPI_MIN, "MPI_MIN", 1u << G_CINT | 1u << G_FINT | 1u << G_MULTI | 1u << G_FLOAT },
    { MPI_SUM, "MPI_SUM", 1u << G_CINT | 1u << G_FINT | 1u << G_MULTI | 1u << G_FLOAT | 1u << G_COMPLEX },
    { MPI_PROD, "MPI_PROD", 1u << G_CINT | 1u << G_FINT | 1u << G_MULTI | 1u << G_FLOAT | 1u << G_COMPLEX },
    { MPI_LAND, "MPI_LAND", 1u << G_CINT | 1u << G_LOGICAL | 1u << G_MULTI },
    { MPI_LOR, "MPI_LOR", 1u << G_CINT | 1u << G_LOGICAL | 1u << G_MULTI },
    { MPI_LXOR, "MPI_LXOR", 1u << G_CINT | 1u << G_LOGICAL | 1u << G_MULTI },
    { MPI_BAND, "MPI_BAND", 1u << G_CINT | 1u << G_FINT | 1u << G_MULTI | 1u << G_BYTE },
    { MPI_BOR, "MPI_BOR", 1u << G_CINT | 1u << G_FINT | 1u << G_MULTI | 1u << G_BYTE },
    { MPI_BXOR, "MPI_BXOR", 1u << G_CINT | 1u << G_FINT | 1u << G_MULTI | 1u << G_BYTE },
    { MPI_MAXLOC, "MPI_MAXLOC", 1u << G_PAIR },
    { MPI_MINLOC, "MPI_MINLOC", 1u << G_PAIR },
    { MPI_REPLACE, "MPI_REPLACE", 0 },
    { MPI_NO_OP, "MPI_NO_OP", 0 },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

#define N 3           /* elements per operand */
#define MAXB 64       /* bytes of one element at most (extent) */

/* A valid operand for rank r: small values so products and sums stay
 * exact in floating point; pair indexes are the rank (ties on values). */
static void operand(const struct tdesc *d, int r, unsigned char *buf)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(d->t, &lb, &ext);
    memset(buf, 0, (size_t)ext * N);
    for (int e = 0; e < N; e++) {
        unsigned char *p = buf + (size_t)e * (size_t)ext;
        int v = (r * 7 + e * 3) % 5 - 1;          /* -1 .. 3 */
        uint64_t s = (uint64_t)r * 1000 + (uint64_t)e;
        switch (d->g) {
        case G_CINT: case G_FINT: case G_MULTI: case G_BYTE: {
            uint64_t x = mt_next(&s);
            if (e == 0)
                x = 0;                             /* logical ops see a false */
            memcpy(p, &x, (size_t)ext);
            break;
        }
        case G_FLOAT:
            if (ext == 4) { float f = (float)v; memcpy(p, &f, 4); }
            else if (ext == 8) { double f = v; memcpy(p, &f, 8); }
            else if (d->t == MPI_REAL16) { _Float128 f = v; memcpy(p, &f, 16); }
            else { long double f = v; memcpy(p, &f, sizeof(f)); }
            break;
        case G_COMPLEX:
            if (ext == 8) { float _Complex z = (float)v + (float)(e - 1) * I; memcpy(p, &z, 8); }
            else if (ext == 16) { double _Complex z = v + (double)(e - 1) * I; memcpy(p, &z, 16); }
            else if (d->t == MPI_COMPLEX32) { _Float128 _Complex z = v + (_Float128)(e - 1) * I; memcpy(p, &z, 32); }
            else { long double _Complex z = v + (long double)(e - 1) * I; memcpy(p, &z, sizeof(z)); }
            break;
        case G_LOGICAL:
            if (ext == 4) { int x = (r + e) % 3 == 0 ? 0 : r + 1; memcpy(p, &x, 4); }
            else { bool x = (r + e) % 2; memcpy(p, &x, 1); }
            break;
        case G_PAIR:
            /* fields written one by one: the padding stays as memset left it */
            if (d->t == MPI_FLOAT_INT) { float f = (float)v; memcpy(p, &f, 4); memcpy(p + 4, &r, 4); }
            else if (d->t == MPI_DOUBLE_INT) { double f = v; memcpy(p, &f, 8); memcpy(p + 8, &r, 4); }
            else if (d->t == MPI_LONG_INT) { long f = v; memcpy(p, &f, 8); memcpy(p + 8, &r, 4); }
            else if (d->t == MPI_SHORT_INT) { short f = (short)v; memcpy(p, &f, 2); memcpy(p + 4, &r, 4); }
            else if (d->t == MPI_LONG_DOUBLE_INT) {
                long double f = v;
                memcpy(p, &f, sizeof(f));
                memcpy(p + 16, &r, 4);
            }
            else if (d->t == MPI_2REAL) { float x[2] = { (float)v, (float)r }; memcpy(p, x, 8); }
            else if (d->t == MPI_2DOUBLE_PRECISION) { double x[2] = { v, r }; memcpy(p, x, 16); }
            else { int x[2] = { v, r }; memcpy(p, x, 8); }   /* MPI_2INT, MPI_2INTEGER */
            break;
        default:
            break;
        }
    }
}

/* x87 long doubles carry 10 bytes of data in 16: clear the other 6 (their
 * content is whatever the last store left) before comparing buffers. */
static void normalize(const struct tdesc *d, unsigned char *buf)
{
    MPI_Aint lb, ext;
    int nld = 0, stride = 16;
    MPI_Type_get_extent(d->t, &lb, &ext);
    if (d->t == MPI_LONG_DOUBLE)
        nld = 1;
    else if (d->t == MPI_C_LONG_DOUBLE_COMPLEX || d->t == MPI_CXX_LONG_DOUBLE_COMPLEX)
        nld = 2;
    else if (d->t == MPI_LONG_DOUBLE_INT) {
        nld = 1;
        for (int e = 0; e < N; e++)   /* and the struct's tail padding after the int */
            memset(buf + (size_t)e * (size_t)ext + 20, 0, (size_t)ext - 20);
    }
    for (int e = 0; e < N; e++)
        for (int k = 0; k < nld; k++)
            memset(buf + (size_t)e * (size_t)ext + (size_t)k * stride + 10, 0, 6);
    /* A product's zero part is +0 or -0 by the order the ranks' operands
     * were combined in (the algorithm's, not the fold's): make it +0. */
    if (d->g == G_FLOAT || d->g == G_COMPLEX) {
        size_t part = d->g == G_COMPLEX ? (size_t)ext / 2 : (size_t)ext;
        for (size_t off = 0; off < (size_t)ext * N; off += part) {
            unsigned char *p = buf + off;
            if (part == 4) { float f; memcpy(&f, p, 4); if (f == 0) memset(p, 0, 4); }
            else if (part == 8) { double f; memcpy(&f, p, 8); if (f == 0) memset(p, 0, 8); }
            else if (d->t == MPI_REAL16 || d->t == MPI_COMPLEX32) {
                _Float128 f; memcpy(&f, p, 16); if (f == 0) memset(p, 0, 16);
            }
            else { long double f = 0; memcpy(&f, p, 10); if (f == 0) memset(p, 0, 10); }
        }
    }
}

static void expect_op_error(int rc, const char *call, const struct odesc *o, const struct tdesc *d)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK(rc != MPI_SUCCESS && mt_class(rc) == MPI_ERR_OP, "%s(%s, %s) gave %d, expected MPI_ERR_OP",
          call, o->name, d->name, rc);
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, o->name) != NULL, "%s(%s, %s): message does not name the op: %s", call, o->name,
          d->name, msg);
    if (o->groups)   /* REPLACE / NO_OP say why instead of naming the type */
        CHECK(strstr(msg, d->name) != NULL, "%s(%s, %s): message does not name the type: %s", call,
              o->name, d->name, msg);
}

int main(int argc, char **argv)
{
    int size, allowed_pairs = 0, refused_pairs = 0;
    static unsigned char a[MAXB * N], b[MAXB * N], ref[MAXB * N], got[MAXB * N], x[MAXB * N];
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    for (size_t oi = 0; oi < NOPS; oi++) {
        const struct odesc *o = &ops[oi];
        for (size_t ti = 0; ti < NTYPES; ti++) {
            const struct tdesc *d = &types[ti];
            int ok = d->g != G_NONE && (o->groups >> d->g) & 1;
            MPI_Aint lb, ext;
            MPI_OK(MPI_Type_get_extent(d->t, &lb, &ext));
            CHECK(ext <= MAXB, "%s extent %ld", d->name, (long)ext);
            size_t bytes = (size_t)ext * N;

            operand(d, 0, a);
            operand(d, 1, b);
            int rc = MPI_Reduce_local(a, b, N, d->t, o->op);
            if (!ok) {
                expect_op_error(rc, "MPI_Reduce_local", o, d);
                rc = MPI_Allreduce(a, got, N, d->t, o->op, MPI_COMM_WORLD);
                expect_op_error(rc, "MPI_Allreduce", o, d);
                refused_pairs++;
                continue;
            }
            CHECK(rc == MPI_SUCCESS, "MPI_Reduce_local(%s, %s) failed: %d", o->name, d->name, rc);

            /* reference: fold of ranks 0 .. size-1, left to right */
            operand(d, 0, ref);
            for (int r = 1; r < size; r++) {
                operand(d, r, x);
                MPI_OK(MPI_Reduce_local(ref, x, N, d->t, o->op));   /* x = ref op x */
                memcpy(ref, x, bytes);
            }
            operand(d, mt_rank, a);
            memset(got, 0, bytes);
            MPI_OK(MPI_Allreduce(a, got, N, d->t, o->op, MPI_COMM_WORLD));
            normalize(d, got);
            normalize(d, ref);
            CHECK(memcmp(got, ref, bytes) == 0, "MPI_Allreduce(%s, %s) differs from the fold", o->name,
                  d->name);

            int root = (int)((oi * 31 + ti * 7) % (size_t)size);
            memset(got, 0, bytes);
            MPI_OK(MPI_Reduce(a, got, N, d->t, o->op, root, MPI_COMM_WORLD));
            normalize(d, got);
            if (mt_rank == root)
                CHECK(memcmp(got, ref, bytes) == 0, "MPI_Reduce(%s, %s) to %d differs", o->name, d->name,
                      root);

            /* scan: the fold of ranks 0 .. me */
            operand(d, 0, ref);
            for (int r = 1; r <= mt_rank; r++) {
                operand(d, r, x);
                MPI_OK(MPI_Reduce_local(ref, x, N, d->t, o->op));
                memcpy(ref, x, bytes);
            }
            memset(got, 0, bytes);
            MPI_OK(MPI_Scan(a, got, N, d->t, o->op, MPI_COMM_WORLD));
            normalize(d, got);
            normalize(d, ref);
            CHECK(memcmp(got, ref, bytes) == 0, "MPI_Scan(%s, %s) differs", o->name, d->name);
            allowed_pairs++;
        }
    }

    /* Derived types: a vector of MPI_DOUBLE reduces element-wise; a struct
     * mixing int and double is refused for a predefined op. */
    MPI_Datatype vec, mixed;
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    double dv[2][6], dsum[6];
    for (int i = 0; i < 6; i++) {
        dv[0][i] = mt_rank + i;
        dv[1][i] = -7;
    }
    MPI_OK(MPI_Allreduce(dv[0], dv[1], 1, vec, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 6; i++)
        dsum[i] = i % 2 ? -7 : (double)size * (size - 1) / 2 + (double)size * i;
    CHECK(memcmp(dv[1], dsum, sizeof(dsum)) == 0, "vector-of-double SUM");
    int bl[2] = { 1, 1 };
    MPI_Aint dp[2] = { 0, 8 };
    MPI_Datatype tt[2] = { MPI_INT, MPI_DOUBLE };
    MPI_OK(MPI_Type_create_struct(2, bl, dp, tt, &mixed));
    MPI_OK(MPI_Type_commit(&mixed));
    int rc = MPI_Allreduce(a, b, 1, mixed, MPI_SUM, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_OP, "SUM on a struct of int and double gave %d", rc);
    MPI_OK(MPI_Type_free(&vec));
    MPI_OK(MPI_Type_free(&mixed));

    /* MPI_REAL16 / MPI_COMPLEX32 are Fortran's REAL(16) / COMPLEX(16), IEEE
     * binary128 with gfortran, not the x87 long double of the same size:
     * 1 + 2^-100 is exact only in binary128. */
    _Float128 q[2] = { 1.5, 1 }, qs[2] = { 2.5, 0x1p-100 };
    MPI_OK(MPI_Reduce_local(q, qs, 2, MPI_REAL16, MPI_SUM));
    CHECK(qs[0] == 4 && qs[1] == 1 + (_Float128)0x1p-100 && qs[1] != 1,
          "MPI_REAL16 SUM is not binary128 arithmetic");
    _Float128 _Complex zq = 2 + 3 * I, zp = 0.5 - 1 * I;   /* (2+3i)(0.5-i) = 4-0.5i */
    MPI_OK(MPI_Reduce_local(&zq, &zp, 1, MPI_COMPLEX32, MPI_PROD));
    CHECK(__real__ zp == 4 && __imag__ zp == -0.5, "MPI_COMPLEX32 PROD is not binary128");

    if (mt_rank == 0)
        printf("coll ops: %d (op, type) pairs reduce correctly, %d refused with MPI_ERR_OP, %d ranks\n",
               allowed_pairs, refused_pairs, size);
    MPI_OK(MPI_Finalize());
    return 0;
}
