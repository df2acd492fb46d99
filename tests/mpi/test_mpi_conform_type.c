/*
 * Datatypes by the letter of the MPI standard (MPI 4.1 §5.1), values
 * computed here from the C types they describe:
 *   - every predefined datatype: MPI_Type_size, _get_extent(_x), lower bound
 *     0, true extent, MPI_Type_get_envelope gives MPI_COMBINER_NAMED with no
 *     arguments and MPI_Type_get_contents is refused (MPI_ERR_TYPE);
 *   - MPI_Type_create_f90_integer/_real/_complex: the kind for (p, r),
 *     envelope MPI_COMBINER_F90_*, one handle per (p, r), not freeable,
 *     reductions of its group;
 *   - MPI_Type_create_resized: bounds, true bounds, envelope and contents,
 *     and elements laid out by the new extent in a send and a broadcast;
 *   - envelopes and contents of the constructors that take arguments;
 *   - attributes: set/get/delete, copy callbacks on MPI_Type_dup, delete
 *     callbacks on replacement, delete_attr and MPI_Type_free, predefined
 *     types, keyval errors;
 *   - MPI_Status_set_elements(_x): MPI_Get_elements returns the count set,
 *     MPI_Get_count whole elements (pair types and a vector);
 *   - zero counts and empty types;
 *   - packing of {int; double} structs (count n, a contiguous type of n, a
 *     vector of n) against the bytes the C layout gives, and unpacking that
 *     leaves the gaps alone, with a truncated message;
 *   - MPI_Pack_external / _Unpack_external / _Pack_external_size: bytes
 *     of the standard's external32 for integers (MPI_LONG in 4), IEEE
 *     doubles, binary128 long doubles, a pair, a complex and a struct;
 *   - MPI_Bcast and a send of 262,144 such structs: correct, and timed (the
 *     figures are printed; the test fails past 10 s).
 */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include "mpi_test.h"

static int size;

struct fi { float v; int i; };
struct di { double v; int i; };
struct li { long v; int i; };
struct si { short v; int i; };
struct ii { int v, i; };
struct ldi { long double v; int i; };

static const struct pdesc {
    MPI_Datatype t;
    const char *name;
    size_t size;       /* bytes of data */
    size_t extent;     /* the C type's sizeof */
} predefs[] = {
#define T(t, c) { t, #t, sizeof(c), sizeof(c) }
    T(MPI_CHAR, char), T(MPI_SIGNED_CHAR, signed char), T(MPI_UNSIGNED_CHAR, unsigned char),
    T(MPI_BYTE, unsigned char), T(MPI_WCHAR, wchar_t), T(MPI_SHORT, short), T(MPI_UNSIGNED_SHORT, unsigned short),
    T(MPI_INT, int), T(MPI_UNSIGNED, unsigned), T(MPI_LONG, long), T(MPI_UNSIGNED_LONG, unsigned long),
    T(MPI_LONG_LONG_INT, long long), T(MPI_LONG_LONG, long long), T(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    T(MPI_FLOAT, float), T(MPI_DOUBLE, double), T(MPI_LONG_DOUBLE, long double),
    T(MPI_INT8_T, int8_t), T(MPI_INT16_T, int16_t), T(MPI_INT32_T, int32_t), T(MPI_INT64_T, int64_t),
    T(MPI_UINT8_T, uint8_t), T(MPI_UINT16_T, uint16_t), T(MPI_UINT32_T, uint32_t), T(MPI_UINT64_T, uint64_t),
    T(MPI_C_BOOL, bool), T(MPI_C_COMPLEX, float _Complex), T(MPI_C_FLOAT_COMPLEX, float _Complex),
    T(MPI_C_DOUBLE_COMPLEX, double _Complex), T(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    T(MPI_CXX_BOOL, bool), T(MPI_CXX_FLOAT_COMPLEX, float _Complex), T(MPI_CXX_DOUBLE_COMPLEX, double _Complex),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex),
    T(MPI_AINT, MPI_Aint), T(MPI_OFFSET, MPI_Offset), T(MPI_COUNT, MPI_Count), T(MPI_PACKED, char),
    /* Fortran types as gfortran lays them out (default INTEGER/REAL/LOGICAL 4 bytes) */
    T(MPI_INTEGER, int32_t), T(MPI_REAL, float), T(MPI_DOUBLE_PRECISION, double), T(MPI_COMPLEX, float _Complex),
    T(MPI_DOUBLE_COMPLEX, double _Complex), T(MPI_LOGICAL, int32_t), T(MPI_CHARACTER, char),
    T(MPI_INTEGER1, int8_t), T(MPI_INTEGER2, int16_t), T(MPI_INTEGER4, int32_t), T(MPI_INTEGER8, int64_t),
    T(MPI_REAL4, float), T(MPI_REAL8, double), T(MPI_REAL16, long double),
    T(MPI_COMPLEX8, float _Complex), T(MPI_COMPLEX16, double _Complex), T(MPI_COMPLEX32, long double _Complex),
    T(MPI_2INTEGER, struct ii), T(MPI_2INT, struct ii), T(MPI_2REAL, float[2]), T(MPI_2DOUBLE_PRECISION, double[2]),
#undef T
    /* the pair types: data without the struct's padding */
    { MPI_FLOAT_INT, "MPI_FLOAT_INT", sizeof(float) + sizeof(int), sizeof(struct fi) },
    { MPI_DOUBLE_INT, "MPI_DOUBLE_INT", sizeof(double) + sizeof(int), sizeof(struct di) },
    { MPI_LONG_INT, "MPI_LONG_INT", sizeof(long) + sizeof(int), sizeof(struct li) },
    { MPI_SHORT_INT, "MPI_SHORT_INT", sizeof(short) + sizeof(int), sizeof(struct si) },
    { MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(long double) + sizeof(int), sizeof(struct ldi) },
};

static void predefined(void)
{
    for (size_t k = 0; k < sizeof(predefs) / sizeof(predefs[0]); k++) {
        const struct pdesc *d = &predefs[k];
        int sz, ni = -1, na = -1, nd = -1, comb = -1, ints[1];
        MPI_Aint lb, ext, tlb, text, addrs[1];
        MPI_Count szx, lbx, extx;
        MPI_Datatype dts[1];
        MPI_OK(MPI_Type_size(d->t, &sz));
        CHECK((size_t)sz == d->size, "%s: MPI_Type_size %d, expected %zu", d->name, sz, d->size);
        MPI_OK(MPI_Type_size_x(d->t, &szx));
        CHECK(szx == sz, "%s: MPI_Type_size_x %lld", d->name, (long long)szx);
        MPI_OK(MPI_Type_get_extent(d->t, &lb, &ext));
        CHECK(lb == 0 && (size_t)ext == d->extent, "%s: lb %ld extent %ld, expected 0 and %zu", d->name, (long)lb,
              (long)ext, d->extent);
        MPI_OK(MPI_Type_get_extent_x(d->t, &lbx, &extx));
        CHECK(lbx == lb && extx == ext, "%s: MPI_Type_get_extent_x", d->name);
        MPI_OK(MPI_Type_get_true_extent(d->t, &tlb, &text));
        /* the data runs from the first byte to the end of the last field */
        CHECK(tlb == 0 && (size_t)text <= d->extent && (size_t)text >= d->size, "%s: true lb %ld extent %ld",
              d->name, (long)tlb, (long)text);
        MPI_OK(MPI_Type_get_envelope(d->t, &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0, "%s: envelope %d %d %d combiner %d",
              d->name, ni, na, nd, comb);
        CHECK(mt_class(MPI_Type_get_contents(d->t, 1, 1, 1, ints, addrs, dts)) == MPI_ERR_TYPE,
              "%s: MPI_Type_get_contents of a named type accepted", d->name);
    }
}

/* ---- MPI_Type_create_f90_integer / _real / _complex ---- */

static int make_f90(int comb, int p, int r, MPI_Datatype *t)
{
    if (comb == MPI_COMBINER_F90_INTEGER)
        return MPI_Type_create_f90_integer(r, t);
    if (comb == MPI_COMBINER_F90_REAL)
        return MPI_Type_create_f90_real(p, r, t);
    return MPI_Type_create_f90_complex(p, r, t);
}

static void f90(void)
{
    static const struct {
        int comb, p, r;
        size_t size;
        MPI_Datatype like;
    } cases[] = {
        { MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, 2, 1, MPI_INTEGER1 },
        { MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, 3, 2, MPI_INTEGER2 },
        { MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, 9, 4, MPI_INTEGER4 },
        { MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, 10, 8, MPI_INTEGER8 },
        { MPI_COMBINER_F90_REAL, 6, MPI_UNDEFINED, 4, MPI_REAL4 },
        { MPI_COMBINER_F90_REAL, 7, 30, 8, MPI_REAL8 },
        { MPI_COMBINER_F90_REAL, MPI_UNDEFINED, 300, 8, MPI_REAL8 },
        { MPI_COMBINER_F90_COMPLEX, 15, 307, 16, MPI_COMPLEX16 },
        { MPI_COMBINER_F90_COMPLEX, 3, 3, 8, MPI_COMPLEX8 },
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        MPI_Datatype t, again, back;
        int sz, ni, na, nd, comb, ints[2];
        MPI_Aint a[1];
        MPI_OK(make_f90(cases[k].comb, cases[k].p, cases[k].r, &t));
        MPI_OK(MPI_Type_size(t, &sz));
        CHECK((size_t)sz == cases[k].size, "f90 case %zu: size %d, expected %zu", k, sz, cases[k].size);
        MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
        int want_ni = cases[k].comb == MPI_COMBINER_F90_INTEGER ? 1 : 2;
        CHECK(comb == cases[k].comb && ni == want_ni && na == 0 && nd == 0, "f90 case %zu: envelope %d %d %d %d", k,
              ni, na, nd, comb);
        MPI_OK(MPI_Type_get_contents(t, 2, 0, 0, ints, a, &back));
        if (want_ni == 1)
            CHECK(ints[0] == cases[k].r, "f90 case %zu: contents r %d", k, ints[0]);
        else
            CHECK(ints[0] == cases[k].p && ints[1] == cases[k].r, "f90 case %zu: contents %d %d", k, ints[0],
                  ints[1]);
        /* the same (p, r) gives the same handle; it cannot be freed */
        MPI_OK(make_f90(cases[k].comb, cases[k].p, cases[k].r, &again));
        CHECK(again == t, "f90 case %zu: a second call gave another handle", k);
        again = t;
        CHECK(mt_class(MPI_Type_free(&again)) == MPI_ERR_TYPE && again == t, "f90 case %zu: freed", k);
        /* usable without commit, in a reduction of its group */
        if (cases[k].comb == MPI_COMBINER_F90_INTEGER) {
            int64_t x = 3, y = 0;
            MPI_OK(MPI_Allreduce(&x, &y, 1, t, MPI_SUM, MPI_COMM_WORLD));
            int64_t got = 0;
            memcpy(&got, &y, cases[k].size);
            CHECK(got == 3 * size, "f90 integer SUM: %lld", (long long)got);
            CHECK(mt_class(MPI_Allreduce(&x, &y, 1, t, MPI_LAND, MPI_COMM_WORLD)) == MPI_ERR_OP,
                  "LAND on a Fortran integer accepted");
        } else if (cases[k].comb == MPI_COMBINER_F90_COMPLEX) {
            CHECK(mt_class(MPI_Allreduce(ints, a, 1, t, MPI_MAX, MPI_COMM_WORLD)) == MPI_ERR_OP,
                  "MAX on a Fortran complex accepted");
        }
    }
    MPI_Datatype t;
    CHECK(mt_class(MPI_Type_create_f90_integer(19, &t)) == MPI_ERR_ARG, "integer range 19 accepted");
    CHECK(mt_class(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t)) == MPI_ERR_ARG,
          "real with neither precision nor range accepted");
    CHECK(mt_class(MPI_Type_create_f90_real(40, 10, &t)) == MPI_ERR_ARG, "precision 40 accepted");
    CHECK(mt_class(MPI_Type_create_f90_integer(4, NULL)) == MPI_ERR_ARG, "NULL newtype accepted");
}

/* ---- MPI_Type_create_resized ---- */

static void resized(void)
{
    MPI_Datatype r, r2, got;
    MPI_Aint lb, ext, a[2];
    int sz, ni, na, nd, comb, ints[1];
    MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 12, &r));
    MPI_OK(MPI_Type_commit(&r));
    MPI_OK(MPI_Type_size(r, &sz));
    MPI_OK(MPI_Type_get_extent(r, &lb, &ext));
    CHECK(sz == 4 && lb == -4 && ext == 12, "resized(int, -4, 12): size %d lb %ld extent %ld", sz, (long)lb,
          (long)ext);
    MPI_OK(MPI_Type_get_true_extent(r, &lb, &ext));
    CHECK(lb == 0 && ext == 4, "resized true bounds %ld %ld", (long)lb, (long)ext);
    MPI_OK(MPI_Type_get_envelope(r, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nd == 1, "resized envelope %d %d %d %d", ni, na,
          nd, comb);
    MPI_OK(MPI_Type_get_contents(r, 0, 2, 1, ints, a, &got));
    CHECK(a[0] == -4 && a[1] == 12 && got == MPI_INT, "resized contents %ld %ld 0x%x", (long)a[0], (long)a[1],
          (unsigned)got);

    /* count 3 of resized(int, 0, 12): ints 3 apart, the others untouched */
    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &r2));
    MPI_OK(MPI_Type_commit(&r2));
    int v[9], w[3];
    for (int i = 0; i < 9; i++)
        v[i] = mt_rank == 0 ? 100 + i : -1;
    MPI_OK(MPI_Bcast(v, 3, r2, 0, MPI_COMM_WORLD));
    for (int i = 0; i < 9; i++)
        CHECK(v[i] == (i % 3 == 0 || mt_rank == 0 ? 100 + i : -1), "Bcast of resized: v[%d] = %d", i, v[i]);
    if (size > 1 && mt_rank < 2) {
        MPI_Status st;
        int n = -1;
        if (mt_rank == 0) {
            MPI_OK(MPI_Send(v, 3, r2, 1, 5, MPI_COMM_WORLD));
        } else {
            MPI_OK(MPI_Recv(w, 3, MPI_INT, 0, 5, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
            CHECK(n == 3 && w[0] == 100 && w[1] == 103 && w[2] == 106, "send of resized: %d: %d %d %d", n, w[0],
                  w[1], w[2]);
        }
    }
    MPI_OK(MPI_Type_free(&r));
    MPI_OK(MPI_Type_free(&r2));
}

/* ---- envelopes and contents of constructors ---- */

static void contents(void)
{
    MPI_Datatype v, s, c, back[2];
    int ni, na, nd, comb, ints[8];
    MPI_Aint a[4];
    MPI_OK(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &v));
    MPI_OK(MPI_Type_get_envelope(v, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector envelope");
    MPI_OK(MPI_Type_get_contents(v, 3, 0, 1, ints, a, back));
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && back[0] == MPI_DOUBLE, "vector contents");

    int bl[2] = { 1, 2 };
    MPI_Aint dp[2] = { 0, 16 };
    MPI_Datatype tt[2] = { MPI_INT, v };
    MPI_OK(MPI_Type_create_struct(2, bl, dp, tt, &s));
    MPI_OK(MPI_Type_get_envelope(s, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2, "struct envelope %d %d %d", ni, na, nd);
    MPI_OK(MPI_Type_get_contents(s, 3, 2, 2, ints, a, back));
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && a[0] == 0 && a[1] == 16 && back[0] == MPI_INT,
          "struct contents");
    /* a derived type returned by get_contents is a new reference: freeing
     * it leaves v usable */
    MPI_OK(MPI_Type_free(&back[1]));
    MPI_OK(MPI_Type_contiguous(4, v, &c));
    MPI_OK(MPI_Type_commit(&c));
    int sz;
    MPI_OK(MPI_Type_size(c, &sz));
    CHECK(sz == 4 * 6 * (int)sizeof(double), "contiguous of vector: size %d", sz);
    MPI_OK(MPI_Type_get_envelope(c, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_CONTIGUOUS && ni == 1 && na == 0 && nd == 1, "contiguous envelope");
    MPI_OK(MPI_Type_free(&c));
    MPI_OK(MPI_Type_free(&s));
    MPI_OK(MPI_Type_free(&v));
}

/* ---- attributes (MPI 4.1 §7.7.4) ---- */

static int n_copy, n_delete;
static int copy_plus_one(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (void)t;
    (void)key;
    CHECK(extra == &n_copy, "copy callback got extra_state %p", extra);
    n_copy++;
    *(intptr_t *)out = (intptr_t)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}
static int count_delete(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t;
    (void)key;
    (void)val;
    (void)extra;
    n_delete++;
    return MPI_SUCCESS;
}

static void attributes(void)
{
    int key, nocopy, flag = -1;
    void *val;
    MPI_Datatype v, d;
    MPI_OK(MPI_Type_create_keyval(copy_plus_one, count_delete, &key, &n_copy));
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &nocopy, NULL));
    MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &v));
    MPI_OK(MPI_Type_get_attr(v, key, &val, &flag));
    CHECK(flag == 0, "an attribute before any was set");
    MPI_OK(MPI_Type_set_attr(v, key, (void *)(intptr_t)41));
    MPI_OK(MPI_Type_set_attr(v, nocopy, (void *)(intptr_t)7));
    MPI_OK(MPI_Type_get_attr(v, key, &val, &flag));
    CHECK(flag == 1 && (intptr_t)val == 41, "get_attr: flag %d value %ld", flag, (long)(intptr_t)val);
    /* replacing a value deletes the old one */
    MPI_OK(MPI_Type_set_attr(v, key, (void *)(intptr_t)42));
    CHECK(n_delete == 1, "replacing a value ran %d delete callbacks", n_delete);
    /* dup runs the copy callback; MPI_TYPE_NULL_COPY_FN does not copy */
    MPI_OK(MPI_Type_dup(v, &d));
    CHECK(n_copy == 1, "Type_dup ran %d copy callbacks", n_copy);
    MPI_OK(MPI_Type_get_attr(d, key, &val, &flag));
    CHECK(flag == 1 && (intptr_t)val == 43, "dup's attribute: flag %d value %ld", flag, (long)(intptr_t)val);
    MPI_OK(MPI_Type_get_attr(d, nocopy, &val, &flag));
    CHECK(flag == 0, "an attribute of MPI_TYPE_NULL_COPY_FN was copied");
    /* delete_attr and free run the delete callback */
    MPI_OK(MPI_Type_delete_attr(d, key));
    CHECK(n_delete == 2, "delete_attr ran %d delete callbacks in all", n_delete);
    CHECK(mt_class(MPI_Type_delete_attr(d, key)) == MPI_ERR_KEYVAL, "deleting a missing attribute accepted");
    MPI_OK(MPI_Type_free(&d));
    MPI_OK(MPI_Type_free(&v));
    CHECK(n_delete == 3, "Type_free ran %d delete callbacks in all", n_delete);
    /* predefined types take attributes */
    MPI_OK(MPI_Type_set_attr(MPI_DOUBLE, nocopy, (void *)(intptr_t)5));
    MPI_OK(MPI_Type_get_attr(MPI_DOUBLE, nocopy, &val, &flag));
    CHECK(flag == 1 && (intptr_t)val == 5, "attribute on MPI_DOUBLE");
    MPI_OK(MPI_Type_delete_attr(MPI_DOUBLE, nocopy));
    /* keyval errors */
    int comm_key;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_key, NULL));
    CHECK(mt_class(MPI_Type_set_attr(MPI_INT, comm_key, NULL)) == MPI_ERR_KEYVAL, "a communicator keyval on a type");
    MPI_OK(MPI_Comm_free_keyval(&comm_key));
    MPI_OK(MPI_Type_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval left %d", key);
    CHECK(mt_class(MPI_Type_free_keyval(&nocopy)) == MPI_SUCCESS && mt_class(MPI_Type_free_keyval(&nocopy)) ==
          MPI_ERR_KEYVAL, "freeing a keyval twice accepted");
}

/* ---- MPI_Status_set_elements / MPI_Get_elements / MPI_Get_count ---- */

/* "a call to MPI_GET_ELEMENTS or MPI_GET_ELEMENTS_X will return count"
 * (MPI 4.1 §13.3); MPI_Get_count returns the whole elements, or
 * MPI_UNDEFINED. A pair type has two basic elements. */
static void status_elements(void)
{
    static const struct {
        int set, get_count;
    } cases[] = { { 0, 0 }, { 1, MPI_UNDEFINED }, { 6, 3 }, { 7, MPI_UNDEFINED } };
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(2, 3, 4, MPI_DOUBLE, &v));   /* 6 doubles an element */
    MPI_OK(MPI_Type_commit(&v));
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        MPI_Status st;
        MPI_Count x = -1;
        int n = -1, c = -1;
        MPI_OK(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, cases[k].set));
        MPI_OK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n));
        MPI_OK(MPI_Get_elements_x(&st, MPI_DOUBLE_INT, &x));
        MPI_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &c));
        CHECK(n == cases[k].set && x == n, "set_elements(MPI_DOUBLE_INT, %d): get_elements %d / %lld", cases[k].set,
              n, (long long)x);
        CHECK(c == cases[k].get_count, "set_elements(MPI_DOUBLE_INT, %d): get_count %d", cases[k].set, c);
        MPI_OK(MPI_Status_set_elements_x(&st, v, (MPI_Count)cases[k].set * 2));
        MPI_OK(MPI_Get_elements(&st, v, &n));
        MPI_OK(MPI_Get_count(&st, v, &c));
        int whole = cases[k].set * 2 % 6 ? MPI_UNDEFINED : cases[k].set * 2 / 6;
        CHECK(n == cases[k].set * 2 && c == whole, "set_elements_x(vector, %d): elements %d count %d",
              cases[k].set * 2, n, c);
    }
    MPI_OK(MPI_Type_free(&v));
}

/* ---- zero counts and empty types ---- */

static void zeros(void)
{
    MPI_Datatype e, ev;
    MPI_Aint lb, ext;
    int sz, pos = 0, n = -1;
    char buf[8] = "abcdefg";
    MPI_OK(MPI_Type_contiguous(0, MPI_INT, &e));
    MPI_OK(MPI_Type_commit(&e));
    MPI_OK(MPI_Type_size(e, &sz));
    MPI_OK(MPI_Type_get_extent(e, &lb, &ext));
    CHECK(sz == 0 && ext == 0, "contiguous(0): size %d extent %ld", sz, (long)ext);
    MPI_OK(MPI_Type_vector(0, 3, 4, MPI_DOUBLE, &ev));
    MPI_OK(MPI_Type_commit(&ev));
    MPI_OK(MPI_Type_size(ev, &sz));
    CHECK(sz == 0, "vector(0): size %d", sz);
    MPI_OK(MPI_Pack(buf, 0, MPI_INT, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    MPI_OK(MPI_Pack(buf, 5, e, buf, sizeof(buf), &pos, MPI_COMM_WORLD));
    CHECK(pos == 0 && strcmp(buf, "abcdefg") == 0, "packing nothing moved position to %d", pos);
    MPI_OK(MPI_Bcast(buf, 7, e, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Allgather(buf, 0, MPI_INT, buf, 0, MPI_INT, MPI_COMM_WORLD));
    if (size > 1 && mt_rank < 2) {
        MPI_Status st;
        if (mt_rank == 0) {
            MPI_OK(MPI_Send(buf, 0, MPI_INT, 1, 9, MPI_COMM_WORLD));
            MPI_OK(MPI_Send(buf, 3, e, 1, 9, MPI_COMM_WORLD));
        } else {
            MPI_OK(MPI_Recv(buf, 4, MPI_INT, 0, 9, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
            CHECK(n == 0, "an empty message has count %d", n);
            MPI_OK(MPI_Recv(buf, 4, ev, 0, 9, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
            CHECK(n == 0, "a message of empty elements has %d bytes", n);
        }
    }
    CHECK(strcmp(buf, "abcdefg") == 0, "a zero-size transfer wrote the buffer");
    MPI_OK(MPI_Type_free(&e));
    MPI_OK(MPI_Type_free(&ev));
}

/* ---- packing {int; double} ---- */

struct id { int i; double d; };
#define GAP 0x5au

static MPI_Datatype id_type(void)
{
    MPI_Datatype t;
    int bl[2] = { 1, 1 };
    MPI_Aint dp[2] = { offsetof(struct id, i), offsetof(struct id, d) };
    MPI_Datatype tt[2] = { MPI_INT, MPI_DOUBLE };
    MPI_OK(MPI_Type_create_struct(2, bl, dp, tt, &t));
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

/* Elements e0, e0+step, ... (n of them) of a, packed as C would: int, double. */
static void want_packed(const struct id *a, int n, int step, unsigned char *out)
{
    for (int k = 0; k < n; k++, out += sizeof(int) + sizeof(double)) {
        memcpy(out, &a[k * step].i, sizeof(int));
        memcpy(out + sizeof(int), &a[k * step].d, sizeof(double));
    }
}

static void pack_one(const char *what, const void *src, int count, MPI_Datatype t, const struct id *a, int n,
                     int step)
{
    static unsigned char got[4096 * 12], want[4096 * 12];
    static struct id back[2 * 4096];
    int pos = 0;
    MPI_OK(MPI_Pack(src, count, t, got, sizeof(got), &pos, MPI_COMM_WORLD));
    CHECK(pos == n * 12, "%s: packed %d bytes, expected %d", what, pos, n * 12);
    want_packed(a, n, step, want);
    CHECK(memcmp(got, want, (size_t)pos) == 0, "%s: packed bytes differ from the C layout", what);
    /* unpack: fields land where C has them, padding and skipped elements untouched */
    memset(back, GAP, sizeof(back));
    pos = 0;
    MPI_OK(MPI_Unpack(got, n * 12, &pos, back, count, t, MPI_COMM_WORLD));
    for (int k = 0; k < n * step; k++) {
        const unsigned char *b = (const unsigned char *)&back[k];
        if (k % step) {
            for (size_t j = 0; j < sizeof(struct id); j++)
                CHECK(b[j] == GAP, "%s: unpack wrote skipped element %d", what, k);
            continue;
        }
        CHECK(back[k].i == a[k].i && back[k].d == a[k].d, "%s: element %d unpacked wrong", what, k);
        for (size_t j = sizeof(int); j < offsetof(struct id, d); j++)
            CHECK(b[j] == GAP, "%s: unpack wrote the padding of element %d", what, k);
    }
}

static void packing(void)
{
    enum { n = 4096 };
    static struct id a[2 * n];
    for (int k = 0; k < 2 * n; k++) {
        a[k].i = k * 3 - 7;
        a[k].d = k * 0.25 - 1;
    }
    MPI_Datatype t = id_type(), c, v;
    MPI_OK(MPI_Type_contiguous(n, t, &c));
    MPI_OK(MPI_Type_commit(&c));
    MPI_OK(MPI_Type_vector(n, 1, 2, t, &v));
    MPI_OK(MPI_Type_commit(&v));
    pack_one("struct x n", a, n, t, a, n, 1);
    pack_one("contiguous(n, struct)", a, 1, c, a, n, 1);
    pack_one("vector(n, 1, 2, struct)", a, 1, v, a, n, 2);
    pack_one("struct x 1", a, 1, t, a, 1, 1);

    /* a truncated message: 2.5 elements arrive, 2 whole and the int of the third */
    if (size > 1 && mt_rank < 2) {
        struct id r[4];
        if (mt_rank == 0) {
            unsigned char p[3 * 12];
            want_packed(a, 3, 1, p);
            MPI_OK(MPI_Send(p, 2 * 12 + 4, MPI_BYTE, 1, 11, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            int cnt = 0, el = 0;
            memset(r, GAP, sizeof(r));
            MPI_OK(MPI_Recv(r, 4, t, 0, 11, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, t, &cnt));
            MPI_OK(MPI_Get_elements(&st, t, &el));
            CHECK(cnt == MPI_UNDEFINED && el == 5, "2.5 structs: count %d elements %d", cnt, el);
            CHECK(r[0].i == a[0].i && r[1].d == a[1].d && r[2].i == a[2].i, "truncated unpack");
            const unsigned char *b = (const unsigned char *)&r[2].d;
            for (size_t j = 0; j < sizeof(double); j++)
                CHECK(b[j] == GAP, "the double that did not arrive was written");
        }
    }
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_free(&c));
    MPI_OK(MPI_Type_free(&t));
}

/* ---- external32 (MPI 4.1 §14.5.2): big-endian, the standard's sizes ---- */

static void ext32_one(const char *what, const void *in, int count, MPI_Datatype t, const unsigned char *want,
                      MPI_Aint nwant, void *back, size_t back_bytes)
{
    unsigned char got[128];
    MPI_Aint sz = -1, pos = 0;
    MPI_OK(MPI_Pack_external_size("external32", count, t, &sz));
    CHECK(sz == nwant, "%s: external32 size %ld, expected %ld", what, (long)sz, (long)nwant);
    MPI_OK(MPI_Pack_external("external32", in, count, t, got, sizeof(got), &pos));
    CHECK(pos == nwant && memcmp(got, want, (size_t)nwant) == 0, "%s: external32 bytes differ", what);
    pos = 0;
    memset(back, 0, back_bytes);
    MPI_OK(MPI_Unpack_external("external32", got, sz, &pos, back, count, t));
    CHECK(pos == nwant, "%s: unpack consumed %ld", what, (long)pos);
}

static void external32(void)
{
    int i = 0x01020304, ib;
    const unsigned char wi[] = { 1, 2, 3, 4 };
    ext32_one("MPI_INT", &i, 1, MPI_INT, wi, 4, &ib, sizeof(ib));
    CHECK(ib == i, "MPI_INT round trip %x", ib);

    long l[2] = { -2, 0x12345678 }, lb[2];
    const unsigned char wl[] = { 0xff, 0xff, 0xff, 0xfe, 0x12, 0x34, 0x56, 0x78 };   /* 4 bytes each */
    ext32_one("MPI_LONG", l, 2, MPI_LONG, wl, 8, lb, sizeof(lb));
    CHECK(lb[0] == -2 && lb[1] == 0x12345678, "MPI_LONG round trip %ld %ld", lb[0], lb[1]);

    double d = -1.5, db;
    const unsigned char wd[] = { 0xbf, 0xf8, 0, 0, 0, 0, 0, 0 };
    ext32_one("MPI_DOUBLE", &d, 1, MPI_DOUBLE, wd, 8, &db, sizeof(db));
    CHECK(db == d, "MPI_DOUBLE round trip %g", db);

    long double ld = 3.0L, ldb;   /* binary128: sign 0, exponent 0x4000, fraction .1000... */
    unsigned char wld[16] = { 0x40, 0x00, 0x80 };
    ext32_one("MPI_LONG_DOUBLE", &ld, 1, MPI_LONG_DOUBLE, wld, 16, &ldb, sizeof(ldb));
    CHECK(ldb == ld, "MPI_LONG_DOUBLE round trip %Lg", ldb);

    struct si p = { -3, 7 }, pb;
    const unsigned char wp[] = { 0xff, 0xfd, 0, 0, 0, 7 };
    ext32_one("MPI_SHORT_INT", &p, 1, MPI_SHORT_INT, wp, 6, &pb, sizeof(pb));
    CHECK(pb.v == -3 && pb.i == 7, "MPI_SHORT_INT round trip %d %d", pb.v, pb.i);

    float _Complex z = 1.0f - 2.0f * I, zb;
    const unsigned char wz[] = { 0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0 };
    ext32_one("MPI_C_FLOAT_COMPLEX", &z, 1, MPI_C_FLOAT_COMPLEX, wz, 8, &zb, sizeof(zb));
    CHECK(zb == z, "complex round trip");

    struct id s[2] = { { 1, 2.0 }, { -1, 0.5 } }, sb[2];
    const unsigned char ws[] = { 0, 0, 0, 1, 0x40, 0, 0, 0, 0, 0, 0, 0,
                                 0xff, 0xff, 0xff, 0xff, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0 };
    MPI_Datatype t = id_type();
    ext32_one("struct {int; double} x 2", s, 2, t, ws, 24, sb, sizeof(sb));
    CHECK(sb[0].i == 1 && sb[0].d == 2.0 && sb[1].i == -1 && sb[1].d == 0.5, "struct round trip");
    MPI_OK(MPI_Type_free(&t));

    unsigned char small[3];
    MPI_Aint pos = 0, sz;
    CHECK(mt_class(MPI_Pack_external("external32", &i, 1, MPI_INT, small, 3, &pos)) == MPI_ERR_TRUNCATE,
          "MPI_Pack_external into 3 bytes accepted");
    CHECK(mt_class(MPI_Pack_external_size("native", 1, MPI_INT, &sz)) == MPI_ERR_ARG, "datarep 'native' accepted");
    CHECK(mt_class(MPI_Unpack_external("external32", wi, 4, &pos, &ib, 2, MPI_INT)) == MPI_ERR_TRUNCATE,
          "unpacking 8 bytes from 4 accepted");
}

/* ---- 262,144 structs: broadcast and send ---- */

static void big_struct(void)
{
    enum { n = 262144 };
    struct id *b = malloc(sizeof(*b) * n);
    CHECK(b, "no memory");
    MPI_Datatype t = id_type();
    int root = size - 1;
    for (int k = 0; k < n; k++) {
        b[k].i = mt_rank == root ? k : -1;
        b[k].d = mt_rank == root ? k * 0.5 : -1;
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    MPI_OK(MPI_Bcast(b, n, t, root, MPI_COMM_WORLD));
    double tb = MPI_Wtime() - t0, ts = 0;
    for (int k = 0; k < n; k++)
        CHECK(b[k].i == k && b[k].d == k * 0.5, "Bcast of structs: element %d is (%d, %g)", k, b[k].i, b[k].d);
    if (size > 1 && mt_rank < 2) {
        if (mt_rank == 1)
            memset(b, 0, sizeof(*b) * n);
        t0 = MPI_Wtime();
        if (mt_rank == 0)
            MPI_OK(MPI_Send(b, n, t, 1, 3, MPI_COMM_WORLD));
        else
            MPI_OK(MPI_Recv(b, n, t, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        ts = MPI_Wtime() - t0;
        for (int k = 0; k < n; k++)
            CHECK(b[k].i == k && b[k].d == k * 0.5, "send of structs: element %d", k);
    }
    double tmax[2], tl[2] = { tb, ts };
    MPI_OK(MPI_Reduce(tl, tmax, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    if (mt_rank == 0) {
        printf("conform_type: Bcast of %d {int; double} on %d ranks: %.1f ms; send 0 -> 1: %.1f ms\n", n, size,
               tmax[0] * 1e3, tmax[1] * 1e3);
        CHECK(tmax[0] < 10 && tmax[1] < 10, "262,144 structs took %.1f s / %.1f s", tmax[0], tmax[1]);
    }
    MPI_OK(MPI_Type_free(&t));
    free(b);
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    predefined();
    f90();
    resized();
    contents();
    attributes();
    status_elements();
    zeros();
    packing();
    external32();
    big_struct();
    if (mt_rank == 0)
        printf("conform_type: %zu predefined types, f90 types, resized, contents, attributes, set_elements, zero counts, packing, external32: ok; %d ranks\n",
               sizeof(predefs) / sizeof(predefs[0]), size);
    MPI_OK(MPI_Finalize());
    return 0;
}
