/*
 * Binding an (MPI_Op, MPI_Datatype) pair to the reduction src/coll runs.
 *
 * Predefined operations: the datatype must be made of one predefined basic
 * type (t->basic: a predefined type itself, or a derived type whose every
 * element is that type), and the operation must be defined on the basic
 * type's group, as the table of MPI 4.1 §6.9.2 says:
 *   C integer        MAX MIN SUM PROD LAND LOR LXOR BAND BOR BXOR
 *   Fortran integer  MAX MIN SUM PROD BAND BOR BXOR
 *   multi-language   MAX MIN SUM PROD BAND BOR BXOR (MPI_AINT, MPI_OFFSET, MPI_COUNT)
 *   floating point   MAX MIN SUM PROD
 *   logical          LAND LOR LXOR
 *   complex          SUM PROD
 *   byte             BAND BOR BXOR
 *   pair types       MAXLOC MINLOC
 * MPICH extends the table (src/include/mpir_op_util.h, the _EXTRA groups),
 * and programs written for it use that: MPI_CHAR is a C integer and
 * MPI_CHARACTER a Fortran integer there, signed or not as the compiler's
 * char is (MPI 4.1 lists MPI_SIGNED_CHAR and MPI_UNSIGNED_CHAR as the
 * one-byte C integers; MPI_CHAR's signedness is the compiler's). MPI_WCHAR
 * is in no group, as in MPICH: it takes only the one-sided MPI_REPLACE and
 * MPI_NO_OP, like every type.
 * Anything else is MPI_ERR_OP naming the operation and the datatype. The
 * kernel works on packed basic elements, so a buffer of `count` elements of
 * t is count * basic_count kernel elements.
 *
 * User operations get the datatype itself: one kernel element is one
 * element of t (t->size packed bytes). When t is not contiguous, the
 * trampoline unpacks both operands into the datatype's layout, calls the
 * user's function with the user's datatype handle, and packs the result.
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "mpi/coll_bind.h"
#include "mpi/large.h"

enum group { G_NONE, G_CINT, G_FINT, G_MULTI, G_FLOAT, G_LOGICAL, G_COMPLEX, G_BYTE, G_PAIR, G_CHAR };

/* The kernel of a C char (MPI_CHAR, MPI_CHARACTER): x86-64's is signed, AArch64's unsigned. */
#if CHAR_MIN < 0
#define CHAR_KIND RCH_COLL_K_I8
#else
#define CHAR_KIND RCH_COLL_K_U8
#endif

static const struct basic_desc {
    MPI_Datatype type;
    enum group group;
    enum rch_coll_kind kind;
} basics[] = {
    /* C integer */
    { MPI_SIGNED_CHAR, G_CINT, RCH_COLL_K_I8 },
    { MPI_UNSIGNED_CHAR, G_CINT, RCH_COLL_K_U8 },
    { MPI_SHORT, G_CINT, RCH_COLL_K_I16 },
    { MPI_UNSIGNED_SHORT, G_CINT, RCH_COLL_K_U16 },
    { MPI_INT, G_CINT, RCH_COLL_K_I32 },
    { MPI_UNSIGNED, G_CINT, RCH_COLL_K_U32 },
    { MPI_LONG, G_CINT, RCH_COLL_K_I64 },
    { MPI_UNSIGNED_LONG, G_CINT, RCH_COLL_K_U64 },
    { MPI_LONG_LONG_INT, G_CINT, RCH_COLL_K_I64 },
    { MPI_UNSIGNED_LONG_LONG, G_CINT, RCH_COLL_K_U64 },
    { MPI_INT8_T, G_CINT, RCH_COLL_K_I8 },
    { MPI_INT16_T, G_CINT, RCH_COLL_K_I16 },
    { MPI_INT32_T, G_CINT, RCH_COLL_K_I32 },
    { MPI_INT64_T, G_CINT, RCH_COLL_K_I64 },
    { MPI_UINT8_T, G_CINT, RCH_COLL_K_U8 },
    { MPI_UINT16_T, G_CINT, RCH_COLL_K_U16 },
    { MPI_UINT32_T, G_CINT, RCH_COLL_K_U32 },
    { MPI_UINT64_T, G_CINT, RCH_COLL_K_U64 },
    /* Fortran integer */
    { MPI_INTEGER, G_FINT, RCH_COLL_K_I32 },
    { MPI_INTEGER1, G_FINT, RCH_COLL_K_I8 },
    { MPI_INTEGER2, G_FINT, RCH_COLL_K_I16 },
    { MPI_INTEGER4, G_FINT, RCH_COLL_K_I32 },
    { MPI_INTEGER8, G_FINT, RCH_COLL_K_I64 },
    /* multi-language types: the Fortran integers' operations */
    { MPI_AINT, G_MULTI, RCH_COLL_K_I64 },
    { MPI_OFFSET, G_MULTI, RCH_COLL_K_I64 },
    { MPI_COUNT, G_MULTI, RCH_COLL_K_I64 },
    /* floating point */
    { MPI_FLOAT, G_FLOAT, RCH_COLL_K_F32 },
    { MPI_DOUBLE, G_FLOAT, RCH_COLL_K_F64 },
    { MPI_LONG_DOUBLE, G_FLOAT, RCH_COLL_K_FLD },
    { MPI_REAL, G_FLOAT, RCH_COLL_K_F32 },
    { MPI_DOUBLE_PRECISION, G_FLOAT, RCH_COLL_K_F64 },
    { MPI_REAL4, G_FLOAT, RCH_COLL_K_F32 },
    { MPI_REAL8, G_FLOAT, RCH_COLL_K_F64 },
    { MPI_REAL16, G_FLOAT, RCH_COLL_K_F128 },   /* gfortran's REAL(16): binary128 */
    /* logical: Fortran LOGICAL is a 4-byte integer, non-zero true */
    { MPI_LOGICAL, G_LOGICAL, RCH_COLL_K_I32 },
    { MPI_C_BOOL, G_LOGICAL, RCH_COLL_K_BOOL },
    { MPI_CXX_BOOL, G_LOGICAL, RCH_COLL_K_BOOL },
    /* complex */
    { MPI_C_FLOAT_COMPLEX, G_COMPLEX, RCH_COLL_K_C32 },
    { MPI_C_DOUBLE_COMPLEX, G_COMPLEX, RCH_COLL_K_C64 },
    { MPI_C_LONG_DOUBLE_COMPLEX, G_COMPLEX, RCH_COLL_K_CLD },
    { MPI_COMPLEX, G_COMPLEX, RCH_COLL_K_C32 },
    { MPI_DOUBLE_COMPLEX, G_COMPLEX, RCH_COLL_K_C64 },
    { MPI_COMPLEX8, G_COMPLEX, RCH_COLL_K_C32 },
    { MPI_COMPLEX16, G_COMPLEX, RCH_COLL_K_C64 },
    { MPI_COMPLEX32, G_COMPLEX, RCH_COLL_K_C128 },
    { MPI_CXX_FLOAT_COMPLEX, G_COMPLEX, RCH_COLL_K_C32 },
    { MPI_CXX_DOUBLE_COMPLEX, G_COMPLEX, RCH_COLL_K_C64 },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, G_COMPLEX, RCH_COLL_K_CLD },
    /* byte */
    { MPI_BYTE, G_BYTE, RCH_COLL_K_U8 },
    /* characters as MPICH takes them (above): char's signedness is the compiler's */
    { MPI_CHAR, G_CINT, CHAR_KIND },
    { MPI_CHARACTER, G_FINT, CHAR_KIND },
    /* one-sided MPI_REPLACE and MPI_NO_OP only */
    { MPI_WCHAR, G_CHAR, RCH_COLL_K_I32 },
    /* pairs for MAXLOC/MINLOC */
    { MPI_FLOAT_INT, G_PAIR, RCH_COLL_K_F32_I32 },
    { MPI_DOUBLE_INT, G_PAIR, RCH_COLL_K_F64_I32 },
    { MPI_LONG_INT, G_PAIR, RCH_COLL_K_I64_I32 },
    { MPI_SHORT_INT, G_PAIR, RCH_COLL_K_I16_I32 },
    { MPI_2INT, G_PAIR, RCH_COLL_K_I32_I32 },
    { MPI_LONG_DOUBLE_INT, G_PAIR, RCH_COLL_K_FLD_I32 },
    { MPI_2INTEGER, G_PAIR, RCH_COLL_K_I32_I32 },
    { MPI_2REAL, G_PAIR, RCH_COLL_K_F32_F32 },
    { MPI_2DOUBLE_PRECISION, G_PAIR, RCH_COLL_K_F64_F64 },
};

/* Which operations each group allows, indexed by enum rch_coll_opkind. */
static int allowed(enum group g, int opk)
{
    switch (opk) {
    case RCH_COLL_OP_MAX: case RCH_COLL_OP_MIN:
        return g == G_CINT || g == G_FINT || g == G_MULTI || g == G_FLOAT;
    case RCH_COLL_OP_SUM: case RCH_COLL_OP_PROD:
        return g == G_CINT || g == G_FINT || g == G_MULTI || g == G_FLOAT || g == G_COMPLEX;
    case RCH_COLL_OP_LAND: case RCH_COLL_OP_LOR: case RCH_COLL_OP_LXOR:
        /* MPI 4.1's table names C integers and logicals; MPICH also takes
         * MPI_AINT, MPI_OFFSET and MPI_COUNT (integers), and so do its
         * users' programs (its own test suite's coll/allred) */
        return g == G_CINT || g == G_LOGICAL || g == G_MULTI;
    case RCH_COLL_OP_BAND: case RCH_COLL_OP_BOR: case RCH_COLL_OP_BXOR:
        return g == G_CINT || g == G_FINT || g == G_MULTI || g == G_BYTE;
    case RCH_COLL_OP_MAXLOC: case RCH_COLL_OP_MINLOC:
        return g == G_PAIR;
    case RCH_COLL_OP_REPLACE: case RCH_COLL_OP_NO_OP:
        return g != G_NONE;
    default:
        return 0;
    }
}

/* basics[] by handle without a walk of the table at every reduction call:
 * MPICH's handles of predefined types are 0x4c00SSII (SS the size) and, for
 * the pair types, 0x8c0000II, II unique among each (include/mpi.h; every
 * entry of basics[] is one of the two, which the reduction tests over every
 * predefined type rely on); a slot holds 1 + the entry's index, checked
 * against the whole handle. */
static uint8_t by_low[2][256];
static pthread_once_t by_low_once = PTHREAD_ONCE_INIT;

static int by_low_row(MPI_Datatype dt)
{
    unsigned hi = (unsigned)dt >> 24;
    return hi == 0x4c ? 0 : hi == 0x8c ? 1 : -1;
}

static void by_low_fill(void)
{
    _Static_assert(sizeof(basics) / sizeof(basics[0]) < 255, "indices fit a byte");
    for (size_t i = 0; i < sizeof(basics) / sizeof(basics[0]); i++) {
        int row = by_low_row(basics[i].type);
        uint8_t *slot = row < 0 ? NULL : &by_low[row][(unsigned)basics[i].type & 0xffu];
        if (slot && !*slot)
            *slot = (uint8_t)(i + 1);
    }
}

static const struct basic_desc *basic_of(MPI_Datatype dt)
{
    pthread_once(&by_low_once, by_low_fill);
    int row = by_low_row(dt);
    uint8_t k = row < 0 ? 0 : by_low[row][(unsigned)dt & 0xffu];
    return k && basics[k - 1].type == dt ? &basics[k - 1] : NULL;
}

int rch_mpi_red_kind(MPI_Datatype basic)
{
    const struct basic_desc *b = basic_of(basic);
    return b ? (int)b->kind : -1;
}

static const char *type_name(MPI_Datatype dt, const struct rch_mpi_type *t, char *buf, size_t len)
{
    if (t && t->name[0])
        snprintf(buf, len, "%s", t->name);
    else
        snprintf(buf, len, "datatype 0x%x", (unsigned)dt);
    return buf;
}

/* ---- the user-function trampoline ---- */

/* Call the user's function on `count` elements in the datatype's layout,
 * at most INT_MAX at a time (its length argument is an int), or at once if
 * it is an MPI_User_function_c (MPI_Count length). */
static void call_user(struct rch_mpi_red *r, void *in, void *inout, size_t count)
{
    MPI_Datatype dt = r->dt;
    if (r->user_fn_c) {
        MPI_Count n = (MPI_Count)count;
        r->user_fn_c(in, inout, &n, &dt);
        return;
    }
    while (count > 0) {
        int n = count > (size_t)INT_MAX ? INT_MAX : (int)count;
        r->user_fn(in, inout, &n, &dt);
        in = (char *)in + (MPI_Aint)n * r->t->extent;
        inout = (char *)inout + (MPI_Aint)n * r->t->extent;
        count -= (size_t)n;
    }
}

static void user_contig(const void *in, void *inout, size_t count, void *arg)
{
    struct rch_mpi_red *r = arg;
    /* packed == the datatype's layout shifted by true_lb */
    call_user(r, (char *)in - r->t->true_lb, (char *)inout - r->t->true_lb, count);
}

static void user_noncontig(const void *in, void *inout, size_t count, void *arg)
{
    struct rch_mpi_red *r = arg;
    const struct rch_mpi_type *t = r->t;
    /* The bytes count elements of t span, from the lowest true bound. */
    MPI_Aint step = count ? (MPI_Aint)(count - 1) * t->extent : 0;
    MPI_Aint lo = t->true_lb + (step < 0 ? step : 0);
    MPI_Aint hi = t->true_ub + (step > 0 ? step : 0);
    size_t span = (size_t)(hi - lo);
    char *a = malloc(span ? span : 1), *b = malloc(span ? span : 1);
    if (!a || !b) {
        /* A reduction kernel cannot fail: out of memory here ends the job
         * with a message rather than computing a wrong result. */
        free(a);
        free(b);
        rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "reduction with a user operation: no memory "
                    "for %zu bytes to unpack datatype elements", 2 * span);
        abort();
    }
    rch_mpi_unpack_n(in, a - lo, count, t);
    rch_mpi_unpack_n(inout, b - lo, count, t);
    call_user(r, a - lo, b - lo, count);
    rch_mpi_pack_n(b - lo, count, t, inout);
    free(a);
    free(b);
}

int rch_mpi_red_bind(const char *fn, struct rch_mpi_comm *c, MPI_Op op, MPI_Datatype dt,
                     const struct rch_mpi_type *t, int allow_rma_ops, struct rch_mpi_red *r)
{
    char on[48], tn[MPI_MAX_OBJECT_NAME + 16];
    const struct rch_mpi_op *o = rch_mpi_op_get(op);
    MPI_Comm comm = c->handle;

    if (!o)
        return rch_mpi_err(comm, MPI_ERR_OP, "%s: invalid operation %s in argument op", fn,
                           rch_mpi_op_name(op, on, sizeof(on)));
    r->dt = dt;
    r->t = t;
    if (o->kind < 0) {
        MPI_Datatype base;
        MPI_Count n = 1;
        /* a _c call's count over INT_MAX (large.c): the function gets the
         * caller's datatype and a count of its elements, not the 1 element
         * of the library's type */
        if (rch_mpi_large_origin(t, &base, &n)) {
            r->dt = dt = base;
            r->t = t = rch_mpi_type_get(base);
        }
        r->user_fn = o->fn;
        r->user_fn_c = o->fn_c;
        r->per_elem = (size_t)n;
        r->cop = (struct rch_coll_op){
            .fn = t->contig ? user_contig : user_noncontig,
            .arg = r,
            .elem_size = t->size,
            .commutative = o->commute,
        };
        if (t->size == 0)   /* nothing to combine; any non-zero unit keeps src/coll happy */
            r->cop.elem_size = 1;
        return MPI_SUCCESS;
    }

    if (!allow_rma_ops && (o->kind == RCH_COLL_OP_REPLACE || o->kind == RCH_COLL_OP_NO_OP))
        return rch_mpi_err(comm, MPI_ERR_OP, "%s: %s is only for one-sided accumulate operations", fn,
                           rch_mpi_op_name(op, on, sizeof(on)));
    if (t->size == 0) {
        /* No data (MPI_Type_contiguous(0, ...), an empty struct): nothing to
         * combine, whatever the type was built from, so any predefined
         * operation applies, as to a zero count. */
        r->user_fn = NULL;
        r->user_fn_c = NULL;
        r->per_elem = 0;
        r->cop = (struct rch_coll_op){
            .fn = rch_coll_kernel(RCH_COLL_OP_NO_OP, RCH_COLL_K_U8),
            .arg = NULL,
            .elem_size = 1,
            .commutative = o->commute,
        };
        return MPI_SUCCESS;
    }
    const struct basic_desc *b = t->basic != MPI_DATATYPE_NULL ? basic_of(t->basic) : NULL;
    if (t->basic == MPI_DATATYPE_NULL)
        return rch_mpi_err(comm, MPI_ERR_OP,
                           "%s: %s needs a datatype made of one predefined type; %s in argument "
                           "datatype mixes several", fn, rch_mpi_op_name(op, on, sizeof(on)),
                           type_name(dt, t, tn, sizeof(tn)));
    if (!b || !allowed(b->group, o->kind)) {
        char bn[MPI_MAX_OBJECT_NAME + 16], made[MPI_MAX_OBJECT_NAME + 32] = "";
        if (t->basic != dt)
            snprintf(made, sizeof(made), " (made of %s)",
                     type_name(t->basic, rch_mpi_type_get(t->basic), bn, sizeof(bn)));
        return rch_mpi_err(comm, MPI_ERR_OP, "%s: %s is not defined for %s%s (arguments op and datatype)", fn,
                           rch_mpi_op_name(op, on, sizeof(on)), type_name(dt, t, tn, sizeof(tn)),
                           made);
    }
    size_t esize = rch_coll_kind_size(b->kind);
    const struct rch_mpi_type *bt = rch_mpi_type_get(t->basic);
    if (!bt || bt->size != esize || t->size != t->basic_count * esize)
        return rch_mpi_err(comm, MPI_ERR_INTERN,
                           "%s: internal error: %s has %zu bytes of data, the %s kernel expects %zu "
                           "per element", fn, type_name(dt, t, tn, sizeof(tn)), t->size,
                           rch_coll_kind_name(b->kind), esize);
    r->user_fn = NULL;
    r->user_fn_c = NULL;
    r->per_elem = t->basic_count;
    r->cop = (struct rch_coll_op){
        .fn = rch_coll_kernel(o->kind, b->kind),
        .arg = NULL,
        .elem_size = esize,
        .commutative = o->commute,
    };
    if (!r->cop.fn)   /* allowed() and the kernel table disagree: a bug here, not the user's */
        return rch_mpi_err(comm, MPI_ERR_INTERN, "%s: internal error: no %s kernel for %s", fn,
                           rch_mpi_op_name(op, on, sizeof(on)), rch_coll_kind_name(b->kind));
    return MPI_SUCCESS;
}
