/*
 * The accumulate family by the letter of MPI-4.0 §12.3.4 (and §6.9.2 for
 * which operation applies to which type):
 *   - MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op with every
 *     predefined operation on every predefined type it is defined for
 *     (and, as in MPICH, on MPI_CHAR as a C integer and MPI_CHARACTER as a
 *     Fortran integer), plus
 *     MPI_REPLACE and MPI_NO_OP on every type: the target ends as
 *     MPI_Reduce_local(origin, target) says (REPLACE: the origin; NO_OP:
 *     unchanged) and the fetched result is the target's value before;
 *   - a pair the standard does not define is refused with MPI_ERR_OP and
 *     changes nothing;
 *   - MPI_Compare_and_swap on every type of the groups §12.3.4 lists (C
 *     integer, Fortran integer, logical, multi-language, byte): swaps when
 *     the compare value equals the target, never otherwise, and returns the
 *     old value; other types give MPI_ERR_TYPE.
 * Rank r works on its own 64-byte slot of rank (r + 1) % np's window (so the
 * ranks' operations do not conflict), in a window made by
 * argv[1] = allocate | create | dynamic.
 */
#include <stdbool.h>
#include "mpi_test.h"

enum grp { CINT, FINT, MULTI, FLT, LOGIC, CPLX, BYTE, PAIR_I, PAIR_F };
#define B(g) (1u << (g))

static const struct {
    MPI_Datatype t;
    const char *name;
    enum grp g;
} tys[] = {
    { MPI_SIGNED_CHAR, "SIGNED_CHAR", CINT },   { MPI_UNSIGNED_CHAR, "UNSIGNED_CHAR", CINT },
    { MPI_SHORT, "SHORT", CINT },               { MPI_UNSIGNED_SHORT, "UNSIGNED_SHORT", CINT },
    { MPI_INT, "INT", CINT },                   { MPI_UNSIGNED, "UNSIGNED", CINT },
    { MPI_LONG, "LONG", CINT },                 { MPI_UNSIGNED_LONG, "UNSIGNED_LONG", CINT },
    { MPI_LONG_LONG, "LONG_LONG", CINT },       { MPI_UNSIGNED_LONG_LONG, "UNSIGNED_LONG_LONG", CINT },
    { MPI_INT8_T, "INT8_T", CINT },             { MPI_UINT8_T, "UINT8_T", CINT },
    { MPI_INT16_T, "INT16_T", CINT },           { MPI_UINT16_T, "UINT16_T", CINT },
    { MPI_INT32_T, "INT32_T", CINT },           { MPI_UINT32_T, "UINT32_T", CINT },
    { MPI_INT64_T, "INT64_T", CINT },           { MPI_UINT64_T, "UINT64_T", CINT },
    { MPI_INTEGER, "INTEGER", FINT },           { MPI_INTEGER8, "INTEGER8", FINT },
    { MPI_CHAR, "CHAR", CINT },                 { MPI_CHARACTER, "CHARACTER", FINT },   /* MPICH's extensions */
    { MPI_AINT, "AINT", MULTI },                { MPI_OFFSET, "OFFSET", MULTI },
    { MPI_COUNT, "COUNT", MULTI },
    { MPI_FLOAT, "FLOAT", FLT },                { MPI_DOUBLE, "DOUBLE", FLT },
    { MPI_LONG_DOUBLE, "LONG_DOUBLE", FLT },    { MPI_REAL, "REAL", FLT },
    { MPI_C_BOOL, "C_BOOL", LOGIC },            { MPI_LOGICAL, "LOGICAL", LOGIC },
    { MPI_C_FLOAT_COMPLEX, "C_FLOAT_COMPLEX", CPLX }, { MPI_C_DOUBLE_COMPLEX, "C_DOUBLE_COMPLEX", CPLX },
    { MPI_C_LONG_DOUBLE_COMPLEX, "C_LONG_DOUBLE_COMPLEX", CPLX },
    { MPI_BYTE, "BYTE", BYTE },
    { MPI_2INT, "2INT", PAIR_I },               { MPI_FLOAT_INT, "FLOAT_INT", PAIR_F },
};
#define NTY (int)(sizeof(tys) / sizeof(tys[0]))

/* §6.9.2: the groups each operation is defined on (multi-language types
 * count as integers, for the logical operations too as in MPICH); REPLACE
 * and NO_OP take every type. */
static const struct {
    MPI_Op op;
    const char *name;
    unsigned groups;
} ops[] = {
    { MPI_MAX, "MAX", B(CINT) | B(FINT) | B(MULTI) | B(FLT) },
    { MPI_MIN, "MIN", B(CINT) | B(FINT) | B(MULTI) | B(FLT) },
    { MPI_SUM, "SUM", B(CINT) | B(FINT) | B(MULTI) | B(FLT) | B(CPLX) },
    { MPI_PROD, "PROD", B(CINT) | B(FINT) | B(MULTI) | B(FLT) | B(CPLX) },
    { MPI_LAND, "LAND", B(CINT) | B(LOGIC) | B(MULTI) },
    { MPI_LOR, "LOR", B(CINT) | B(LOGIC) | B(MULTI) },
    { MPI_LXOR, "LXOR", B(CINT) | B(LOGIC) | B(MULTI) },
    { MPI_BAND, "BAND", B(CINT) | B(FINT) | B(MULTI) | B(BYTE) },
    { MPI_BOR, "BOR", B(CINT) | B(FINT) | B(MULTI) | B(BYTE) },
    { MPI_BXOR, "BXOR", B(CINT) | B(FINT) | B(MULTI) | B(BYTE) },
    { MPI_MAXLOC, "MAXLOC", B(PAIR_I) | B(PAIR_F) },
    { MPI_MINLOC, "MINLOC", B(PAIR_I) | B(PAIR_F) },
    { MPI_REPLACE, "REPLACE", ~0u },
    { MPI_NO_OP, "NO_OP", ~0u },
};
#define NOP (int)(sizeof(ops) / sizeof(ops[0]))
static const unsigned cas_groups = B(CINT) | B(FINT) | B(MULTI) | B(LOGIC) | B(BYTE);

#define SLOT 64

/* Element value v of a type (small, so sums and products stay exact; pairs
 * get the index 10 v). */
static void setv(unsigned char *p, enum grp g, int size, int v)
{
    memset(p, 0, (size_t)size);
    if (g == PAIR_I || g == PAIR_F) {
        int iv = v, idx = 10 * v;
        float fv = (float)v;
        memcpy(p, g == PAIR_I ? (void *)&iv : (void *)&fv, 4);
        memcpy(p + 4, &idx, 4);
    } else if (g == FLT || g == CPLX) {
        int parts = g == CPLX ? 2 : 1, w = size / parts;
        for (int k = 0; k < parts; k++) {
            double x = k ? 1.0 : v;
            if (w == 4) {
                float f = (float)x;
                memcpy(p + k * w, &f, 4);
            } else if (w == 8) {
                memcpy(p + k * w, &x, 8);
            } else {
                long double l = x;
                memcpy(p + k * w, &l, sizeof(l) < (size_t)w ? sizeof(l) : (size_t)w);
            }
        }
    } else {
        p[0] = (unsigned char)(g == LOGIC ? v != 0 : v);   /* little-endian integers */
    }
}

static int me, np, to;
static MPI_Aint tbase;           /* the displacement of my slot at `to` */

static void get_slot(MPI_Win win, unsigned char *out, int size)
{
    MPI_OK(MPI_Get(out, size, MPI_BYTE, to, tbase, size, MPI_BYTE, win));
    MPI_OK(MPI_Win_flush(to, win));
}

static void put_slot(MPI_Win win, const unsigned char *in, int size)
{
    MPI_OK(MPI_Put(in, size, MPI_BYTE, to, tbase, size, MPI_BYTE, win));
    MPI_OK(MPI_Win_flush(to, win));
}

/* One (type, op) pair through Fetch_and_op, Get_accumulate of 2 elements
 * and Accumulate. */
static void one_pair(MPI_Win win, int ti, int oi)
{
    MPI_Datatype t = tys[ti].t;
    enum grp g = tys[ti].g;
    int size;
    MPI_Type_size(t, &size);
    CHECK(2 * size <= SLOT, "%s: %d bytes", tys[ti].name, size);
    int allowed = (ops[oi].groups & B(g)) != 0;
    unsigned char a[SLOT], b[SLOT], res[SLOT], now[SLOT], expect[SLOT];
    setv(a, g, size, 6);
    setv(a + size, g, size, 5);
    setv(b, g, size, 3);
    setv(b + size, g, size, 7);
    memset(a + 2 * size, 0, (size_t)(SLOT - 2 * size));
    put_slot(win, a, SLOT);

    /* the expected target: origin op target, element-wise */
    memcpy(expect, a, SLOT);
    if (ops[oi].op == MPI_REPLACE)
        memcpy(expect, b, 2 * (size_t)size);
    else if (ops[oi].op != MPI_NO_OP && allowed)
        MPI_OK(MPI_Reduce_local(b, expect, 2, t, ops[oi].op));

    memset(res, 0xee, sizeof(res));
    int rc = MPI_Fetch_and_op(b, res, t, to, tbase, ops[oi].op, win);
    if (!allowed) {
        CHECK(mt_class(rc) == MPI_ERR_OP, "Fetch_and_op %s on %s: class %d, MPI_ERR_OP expected", ops[oi].name,
              tys[ti].name, mt_class(rc));
        rc = MPI_Accumulate(b, 1, t, to, tbase, 1, t, ops[oi].op, win);
        CHECK(mt_class(rc) == MPI_ERR_OP, "Accumulate %s on %s: class %d", ops[oi].name, tys[ti].name, mt_class(rc));
        get_slot(win, now, SLOT);
        CHECK(memcmp(now, a, SLOT) == 0, "a refused %s on %s changed the target", ops[oi].name, tys[ti].name);
        return;
    }
    MPI_OK(rc);
    MPI_OK(MPI_Win_flush(to, win));
    CHECK(memcmp(res, a, (size_t)size) == 0, "Fetch_and_op %s on %s: result is not the old value", ops[oi].name,
          tys[ti].name);
    get_slot(win, now, SLOT);
    CHECK(memcmp(now, expect, (size_t)size) == 0 && memcmp(now + size, a + size, (size_t)size) == 0,
          "Fetch_and_op %s on %s: target wrong (byte 0: %02x, expected %02x)", ops[oi].name, tys[ti].name, now[0],
          expect[0]);

    /* Get_accumulate of 2 elements from the old contents a */
    put_slot(win, a, SLOT);
    memset(res, 0xee, sizeof(res));
    MPI_OK(MPI_Get_accumulate(b, 2, t, res, 2, t, to, tbase, 2, t, ops[oi].op, win));
    MPI_OK(MPI_Win_flush(to, win));
    CHECK(memcmp(res, a, 2 * (size_t)size) == 0, "Get_accumulate %s on %s: result is not the old value",
          ops[oi].name, tys[ti].name);
    get_slot(win, now, SLOT);
    CHECK(memcmp(now, expect, SLOT) == 0, "Get_accumulate %s on %s: target wrong", ops[oi].name, tys[ti].name);

    /* Accumulate (MPI_NO_OP is for the fetching forms only: §12.3.4) */
    if (ops[oi].op == MPI_NO_OP)
        return;
    put_slot(win, a, SLOT);
    MPI_OK(MPI_Accumulate(b, 2, t, to, tbase, 2, t, ops[oi].op, win));
    MPI_OK(MPI_Win_flush(to, win));
    get_slot(win, now, SLOT);
    CHECK(memcmp(now, expect, SLOT) == 0, "Accumulate %s on %s: target wrong", ops[oi].name, tys[ti].name);
}

static void cas(MPI_Win win, int ti)
{
    MPI_Datatype t = tys[ti].t;
    enum grp g = tys[ti].g;
    int size;
    MPI_Type_size(t, &size);
    unsigned char a[SLOT], b[SLOT], c[SLOT], res[SLOT], now[SLOT];
    memset(a, 0, SLOT);
    setv(a, g, size, 1);
    setv(b, g, size, g == LOGIC ? 0 : 9);
    setv(c, g, size, g == LOGIC ? 1 : 2);          /* differs from b */
    put_slot(win, a, SLOT);
    int rc = MPI_Compare_and_swap(b, a, res, t, to, tbase, win);
    if (!(cas_groups & B(g))) {
        CHECK(mt_class(rc) == MPI_ERR_TYPE, "Compare_and_swap on %s: class %d, MPI_ERR_TYPE expected",
              tys[ti].name, mt_class(rc));
        return;
    }
    MPI_OK(rc);
    MPI_OK(MPI_Win_flush(to, win));
    get_slot(win, now, SLOT);
    CHECK(memcmp(res, a, (size_t)size) == 0 && memcmp(now, b, (size_t)size) == 0,
          "Compare_and_swap on %s: an equal compare value did not swap", tys[ti].name);
    MPI_OK(MPI_Compare_and_swap(a, c, res, t, to, tbase, win));
    MPI_OK(MPI_Win_flush(to, win));
    get_slot(win, now, SLOT);
    CHECK(memcmp(res, b, (size_t)size) == 0 && memcmp(now, b, (size_t)size) == 0,
          "Compare_and_swap on %s: a different compare value swapped or returned the wrong old value",
          tys[ti].name);
    CHECK(memcmp(now + size, a + size, (size_t)(SLOT - size)) == 0, "Compare_and_swap on %s: wrote past one element",
          tys[ti].name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = me;
    to = (me + 1) % np;
    const char *flavor = argc > 1 ? argv[1] : "allocate";
    MPI_Aint bytes = (MPI_Aint)SLOT * np;
    unsigned char *mem = NULL;
    MPI_Win win;
    if (strcmp(flavor, "create") == 0) {
        mem = calloc(1, (size_t)bytes);
        MPI_OK(MPI_Win_create(mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        tbase = (MPI_Aint)SLOT * me;
    } else if (strcmp(flavor, "dynamic") == 0) {
        mem = calloc(1, (size_t)bytes);
        MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_OK(MPI_Win_attach(win, mem, bytes));
        MPI_Aint mine, *all = malloc(sizeof(MPI_Aint) * (size_t)np);
        MPI_Get_address(mem, &mine);
        MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
        tbase = all[to] + (MPI_Aint)SLOT * me;
        free(all);
    } else {
        unsigned char *p;
        MPI_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win));
        tbase = (MPI_Aint)SLOT * me;
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int pairs = 0;
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int ti = 0; ti < NTY; ti++) {
        for (int oi = 0; oi < NOP; oi++, pairs++)
            one_pair(win, ti, oi);
        cas(win, ti);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (strcmp(flavor, "dynamic") == 0)
        MPI_OK(MPI_Win_detach(win, mem));
    MPI_OK(MPI_Win_free(&win));
    free(mem);
    if (me == 0)
        printf("conf_rma_atomics: %s, %d ranks, %d types x %d operations (%d pairs) and compare-and-swap: ok\n",
               flavor, np, NTY, NOP, pairs);
    MPI_Finalize();
    return 0;
}
