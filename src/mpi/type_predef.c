/*
 * Predefined datatypes: every datatype handle MPICH 4.0.2's mpi.h defines,
 * with MPICH's values (a binary built against MPICH carries them).
 *
 * Built-in handles (0x4c0000xx) are looked up by their low byte in a
 * 256-entry table and checked against the whole handle, so a value with the
 * right index but a wrong size byte is rejected. The pair types for
 * MINLOC/MAXLOC (0x8c00000x, MPICH's "direct" slots 0-4) are built at init
 * from their C structs, so their padding and extents are the compiler's.
 *
 * Element counting (MPI_Get_elements) follows MPICH 4: the pair types,
 * including the built-in MPI_2INT family, count as two basic elements each;
 * complex types count as one. For reductions, `basic` is the predefined type
 * itself (MPI_FLOAT_INT, MPI_2INT, ...), with basic_count 1 per element.
 */
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "mpi/type_impl.h"

struct predef_desc {
    MPI_Datatype handle;
    const char *name;
    MPI_Aint align;
    MPI_Datatype elem;        /* type of each basic element (itself, or the pair's part) */
    int nelem;                /* basic elements per element: 1, or 2 for MPI_2INT and friends */
};

/* MPICH's own names (MPI_Type_get_name): MPI_LONG_LONG is MPI_LONG_LONG_INT
 * and MPI_C_FLOAT_COMPLEX is MPI_C_COMPLEX, as MPICH reports them. */
static const struct predef_desc predefs[] = {
    { MPI_CHAR,               "MPI_CHAR",               alignof(char),               MPI_CHAR, 1 },
    { MPI_SIGNED_CHAR,        "MPI_SIGNED_CHAR",        alignof(signed char),        MPI_SIGNED_CHAR, 1 },
    { MPI_UNSIGNED_CHAR,      "MPI_UNSIGNED_CHAR",      alignof(unsigned char),      MPI_UNSIGNED_CHAR, 1 },
    { MPI_BYTE,               "MPI_BYTE",               1,                           MPI_BYTE, 1 },
    { MPI_WCHAR,              "MPI_WCHAR",              4,                           MPI_WCHAR, 1 },
    { MPI_SHORT,              "MPI_SHORT",              alignof(short),              MPI_SHORT, 1 },
    { MPI_UNSIGNED_SHORT,     "MPI_UNSIGNED_SHORT",     alignof(unsigned short),     MPI_UNSIGNED_SHORT, 1 },
    { MPI_INT,                "MPI_INT",                alignof(int),                MPI_INT, 1 },
    { MPI_UNSIGNED,           "MPI_UNSIGNED",           alignof(unsigned),           MPI_UNSIGNED, 1 },
    { MPI_LONG,               "MPI_LONG",               alignof(long),               MPI_LONG, 1 },
    { MPI_UNSIGNED_LONG,      "MPI_UNSIGNED_LONG",      alignof(unsigned long),      MPI_UNSIGNED_LONG, 1 },
    { MPI_FLOAT,              "MPI_FLOAT",              alignof(float),              MPI_FLOAT, 1 },
    { MPI_DOUBLE,             "MPI_DOUBLE",             alignof(double),             MPI_DOUBLE, 1 },
    { MPI_LONG_DOUBLE,        "MPI_LONG_DOUBLE",        alignof(long double),        MPI_LONG_DOUBLE, 1 },
    { MPI_LONG_LONG_INT,      "MPI_LONG_LONG_INT",      alignof(long long),          MPI_LONG_LONG_INT, 1 },
    { MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", alignof(unsigned long long), MPI_UNSIGNED_LONG_LONG, 1 },
    { MPI_PACKED,             "MPI_PACKED",             1,                           MPI_PACKED, 1 },
    { MPI_LB,                 "MPI_LB",                 0,                           MPI_LB, 0 },
    { MPI_UB,                 "MPI_UB",                 0,                           MPI_UB, 0 },
    { MPI_2INT,               "MPI_2INT",               alignof(int),                MPI_INT, 2 },
    /* Fortran */
    { MPI_COMPLEX,            "MPI_COMPLEX",            alignof(float),              MPI_COMPLEX, 1 },
    { MPI_DOUBLE_COMPLEX,     "MPI_DOUBLE_COMPLEX",     alignof(double),             MPI_DOUBLE_COMPLEX, 1 },
    { MPI_LOGICAL,            "MPI_LOGICAL",            4,                           MPI_LOGICAL, 1 },
    { MPI_REAL,               "MPI_REAL",               alignof(float),              MPI_REAL, 1 },
    { MPI_DOUBLE_PRECISION,   "MPI_DOUBLE_PRECISION",   alignof(double),             MPI_DOUBLE_PRECISION, 1 },
    { MPI_INTEGER,            "MPI_INTEGER",            4,                           MPI_INTEGER, 1 },
    { MPI_2INTEGER,           "MPI_2INTEGER",           4,                           MPI_INTEGER, 2 },
    { MPI_2REAL,              "MPI_2REAL",              alignof(float),              MPI_REAL, 2 },
    { MPI_2DOUBLE_PRECISION,  "MPI_2DOUBLE_PRECISION",  alignof(double),             MPI_DOUBLE_PRECISION, 2 },
    { MPI_CHARACTER,          "MPI_CHARACTER",          1,                           MPI_CHARACTER, 1 },
    { MPI_REAL4,              "MPI_REAL4",              4,                           MPI_REAL4, 1 },
    { MPI_REAL8,              "MPI_REAL8",              8,                           MPI_REAL8, 1 },
    { MPI_REAL16,             "MPI_REAL16",             alignof(long double),        MPI_REAL16, 1 },
    { MPI_COMPLEX8,           "MPI_COMPLEX8",           4,                           MPI_COMPLEX8, 1 },
    { MPI_COMPLEX16,          "MPI_COMPLEX16",          8,                           MPI_COMPLEX16, 1 },
    { MPI_COMPLEX32,          "MPI_COMPLEX32",          alignof(long double),        MPI_COMPLEX32, 1 },
    { MPI_INTEGER1,           "MPI_INTEGER1",           1,                           MPI_INTEGER1, 1 },
    { MPI_INTEGER2,           "MPI_INTEGER2",           2,                           MPI_INTEGER2, 1 },
    { MPI_INTEGER4,           "MPI_INTEGER4",           4,                           MPI_INTEGER4, 1 },
    { MPI_INTEGER8,           "MPI_INTEGER8",           8,                           MPI_INTEGER8, 1 },
    /* C99 */
    { MPI_INT8_T,             "MPI_INT8_T",             alignof(int8_t),             MPI_INT8_T, 1 },
    { MPI_INT16_T,            "MPI_INT16_T",            alignof(int16_t),            MPI_INT16_T, 1 },
    { MPI_INT32_T,            "MPI_INT32_T",            alignof(int32_t),            MPI_INT32_T, 1 },
    { MPI_INT64_T,            "MPI_INT64_T",            alignof(int64_t),            MPI_INT64_T, 1 },
    { MPI_UINT8_T,            "MPI_UINT8_T",            alignof(uint8_t),            MPI_UINT8_T, 1 },
    { MPI_UINT16_T,           "MPI_UINT16_T",           alignof(uint16_t),           MPI_UINT16_T, 1 },
    { MPI_UINT32_T,           "MPI_UINT32_T",           alignof(uint32_t),           MPI_UINT32_T, 1 },
    { MPI_UINT64_T,           "MPI_UINT64_T",           alignof(uint64_t),           MPI_UINT64_T, 1 },
    { MPI_C_BOOL,             "MPI_C_BOOL",             alignof(_Bool),              MPI_C_BOOL, 1 },
    { MPI_C_FLOAT_COMPLEX,    "MPI_C_COMPLEX",          alignof(float _Complex),     MPI_C_FLOAT_COMPLEX, 1 },
    { MPI_C_DOUBLE_COMPLEX,   "MPI_C_DOUBLE_COMPLEX",   alignof(double _Complex),    MPI_C_DOUBLE_COMPLEX, 1 },
    { MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", alignof(long double _Complex), MPI_C_LONG_DOUBLE_COMPLEX, 1 },
    { MPIX_C_FLOAT16,         "MPIX_C_FLOAT16",         2,                           MPIX_C_FLOAT16, 1 },
    { MPI_AINT,               "MPI_AINT",               alignof(MPI_Aint),           MPI_AINT, 1 },
    { MPI_OFFSET,             "MPI_OFFSET",             alignof(MPI_Offset),         MPI_OFFSET, 1 },
    { MPI_COUNT,              "MPI_COUNT",              alignof(MPI_Count),          MPI_COUNT, 1 },
    /* C++ */
    { MPI_CXX_BOOL,           "MPI_CXX_BOOL",           1,                           MPI_CXX_BOOL, 1 },
    { MPI_CXX_FLOAT_COMPLEX,  "MPI_CXX_FLOAT_COMPLEX",  alignof(float),              MPI_CXX_FLOAT_COMPLEX, 1 },
    { MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", alignof(double),             MPI_CXX_DOUBLE_COMPLEX, 1 },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", alignof(long double), MPI_CXX_LONG_DOUBLE_COMPLEX, 1 },
};

/* The handles encode the sizes of the C types of this ABI (x86-64 LP64). */
_Static_assert(sizeof(long double) == 16, "MPI_LONG_DOUBLE is 16 bytes in MPICH's x86-64 ABI");
_Static_assert(sizeof(long) == 8 && sizeof(MPI_Aint) == 8, "LP64 expected");
_Static_assert(sizeof(long double _Complex) == 32, "MPI_C_LONG_DOUBLE_COMPLEX is 32 bytes");

static struct rch_mpi_type_obj builtin[256];             /* by low byte of the handle */
struct rch_mpi_type *rch_mpi_type_builtin[256];          /* &builtin[i].t while types_ready (mpi_impl.h) */
_Static_assert(RCH_MPI_TYPE_BUILTIN_TOP == RCH_MPI_TYPE_KIND_BUILTIN, "mpi_impl.h's inline type lookup");
static struct rch_mpi_type_obj pair[RCH_MPI_TYPE_NPAIR];  /* by low bits of 0x8c00000x */

struct float_int       { float v; int i; };
struct double_int      { double v; int i; };
struct long_int        { long v; int i; };
struct short_int       { short v; int i; };
struct long_double_int { long double v; int i; };

static const struct pair_desc {
    MPI_Datatype handle;
    const char *name;
    MPI_Datatype value_type;
    MPI_Aint index_off, extent;
} pairs[RCH_MPI_TYPE_NPAIR] = {
    { MPI_FLOAT_INT,       "MPI_FLOAT_INT",       MPI_FLOAT,       offsetof(struct float_int, i),       sizeof(struct float_int) },
    { MPI_DOUBLE_INT,      "MPI_DOUBLE_INT",      MPI_DOUBLE,      offsetof(struct double_int, i),      sizeof(struct double_int) },
    { MPI_LONG_INT,        "MPI_LONG_INT",        MPI_LONG,        offsetof(struct long_int, i),        sizeof(struct long_int) },
    { MPI_SHORT_INT,       "MPI_SHORT_INT",       MPI_SHORT,       offsetof(struct short_int, i),       sizeof(struct short_int) },
    { MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, offsetof(struct long_double_int, i), sizeof(struct long_double_int) },
};

static void init_builtin(const struct predef_desc *d)
{
    struct rch_mpi_type_obj *o = &builtin[(uint32_t)d->handle & 0xffu];
    size_t size = ((uint32_t)d->handle >> 8) & 0xffu;

    memset(o, 0, sizeof(*o));
    o->t.handle = d->handle;
    o->t.size = size;
    o->t.lb = 0;
    o->t.ub = o->t.extent = (MPI_Aint)size;
    o->t.true_lb = 0;
    o->t.true_ub = (MPI_Aint)size;
    o->t.contig = 1;
    o->t.committed = 1;
    o->t.predefined = 1;
    o->t.refcount = 1;
    snprintf(o->t.name, sizeof(o->t.name), "%s", d->name);
    o->align = d->align;
    o->combiner = MPI_COMBINER_NAMED;
    if (d->handle == MPI_LB || d->handle == MPI_UB) {
        /* Markers: no data, only a bound. */
        o->marker = 1;
        o->sticky_lb = d->handle == MPI_LB;
        o->sticky_ub = d->handle == MPI_UB;
        o->t.basic = MPI_DATATYPE_NULL;
        return;
    }
    o->one_block.off = 0;
    o->one_block.len = size;
    o->t.nblocks = 1;
    o->t.blocks = &o->one_block;
    o->t.basic = d->handle;
    o->t.basic_count = 1;
    o->one_run.type = d->elem;
    o->one_run.esize = (uint32_t)(size / (size_t)d->nelem);
    o->one_run.count = (size_t)d->nelem;
    o->nruns = 1;
    o->runs = &o->one_run;
    o->nelems = (size_t)d->nelem;
}

/* A pair type is the struct { value; int } with the C compiler's padding:
 * built as a derived struct of two built-ins, then made predefined. The
 * maps it gets from the builder live until finalize. */
static void init_pair(int idx, const struct pair_desc *d)
{
    struct rch_mpi_type_builder b;
    struct rch_mpi_type_obj *o;

    rch_mpi_type_build_begin(&b);
    rch_mpi_type_build_add(&b, 0, 1, &builtin[(uint32_t)d->value_type & 0xffu]);
    rch_mpi_type_build_add(&b, d->index_off, 1, &builtin[(uint32_t)MPI_INT & 0xffu]);
    o = rch_mpi_type_build_end(&b, 1);
    if (!o) {
        /* Only out of memory at MPI_Init can get here: leave the slot invalid
         * (lookups fail with MPI_ERR_TYPE) rather than crash. */
        memset(&pair[idx], 0, sizeof(pair[idx]));
        return;
    }
    pair[idx] = *o;
    free(o);
    pair[idx].t.handle = d->handle;
    pair[idx].t.committed = 1;
    pair[idx].t.predefined = 1;
    pair[idx].t.refcount = 1;
    pair[idx].t.basic = d->handle;
    pair[idx].t.basic_count = 1;
    pair[idx].combiner = MPI_COMBINER_NAMED;
    snprintf(pair[idx].t.name, sizeof(pair[idx].t.name), "%s", d->name);
    /* Sanity: the builder's padding must agree with the compiler's. */
    if (pair[idx].t.extent != d->extent)
        memset(&pair[idx], 0, sizeof(pair[idx]));
}

static int types_ready;

void rch_mpi_type_init(void)
{
    if (types_ready)
        return;
    for (size_t i = 0; i < RCH_ARRAY_SIZE(predefs); i++)
        init_builtin(&predefs[i]);
    for (int i = 0; i < RCH_MPI_TYPE_NPAIR; i++)
        init_pair(i, &pairs[i]);
    rch_mpi_type_table_init();
    for (int i = 0; i < 256; i++)
        rch_mpi_type_builtin[i] = &builtin[i].t;
    types_ready = 1;
}

void rch_mpi_type_finalize(void)
{
    if (!types_ready)
        return;
    rch_mpi_type_table_finalize();
    for (int i = 0; i < RCH_MPI_TYPE_NPAIR; i++) {
        free(pair[i].t.blocks);
        free(pair[i].runs);
        memset(&pair[i], 0, sizeof(pair[i]));
    }
    memset(rch_mpi_type_builtin, 0, sizeof(rch_mpi_type_builtin));
    memset(builtin, 0, sizeof(builtin));
    types_ready = 0;
}

struct rch_mpi_type_obj *rch_mpi_type_predef(MPI_Datatype dt)
{
    uint32_t h = (uint32_t)dt;
    if ((h >> 24) == RCH_MPI_TYPE_KIND_BUILTIN) {
        struct rch_mpi_type_obj *o = &builtin[h & 0xffu];
        return o->t.predefined && o->t.handle == dt ? o : NULL;
    }
    if ((h >> 24) == RCH_MPI_TYPE_KIND_DIRECT && (h & 0xffffffu) < RCH_MPI_TYPE_NPAIR) {
        struct rch_mpi_type_obj *o = &pair[h & 0xffffffu];
        return o->t.predefined ? o : NULL;
    }
    return NULL;
}

struct rch_mpi_type *rch_mpi_type_get(MPI_Datatype dt)
{
    uint32_t h = (uint32_t)dt;
    struct rch_mpi_type_obj *o;

    if ((h >> 24) == RCH_MPI_TYPE_KIND_DIRECT && (h & 0xffffffu) >= RCH_MPI_TYPE_FIRST_DERIVED)
        o = rch_mpi_type_derived(dt);
    else
        o = rch_mpi_type_predef(dt);
    return o ? &o->t : NULL;
}

const char *rch_mpi_type_describe(MPI_Datatype dt, char *buf, size_t len)
{
    struct rch_mpi_type_obj *o;

    if (dt == MPI_DATATYPE_NULL) {
        snprintf(buf, len, "MPI_DATATYPE_NULL");
        return buf;
    }
    o = rch_mpi_type_lookup(dt);
    if (!o)
        snprintf(buf, len, "0x%x", (unsigned)dt);
    else if (o->t.predefined)
        snprintf(buf, len, "%s", o->t.name);
    else if (o->t.name[0])
        snprintf(buf, len, "derived datatype 0x%x '%s'", (unsigned)dt, o->t.name);
    else
        snprintf(buf, len, "derived datatype 0x%x", (unsigned)dt);
    return buf;
}
