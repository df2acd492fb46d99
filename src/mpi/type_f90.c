/*
 * MPI_Type_create_f90_integer, _real and _complex (MPI 4.1 §19.1.9): the
 * datatype of a Fortran KIND chosen by decimal range r (and precision p).
 *
 * The kinds are those of gfortran on x86-64:
 *   integer  range 2, 4, 9, 18             -> MPI_INTEGER1, 2, 4, 8
 *   real     precision/range 6/37, 15/307  -> MPI_REAL4, MPI_REAL8
 *            18/4931: REAL(10), the x87 80-bit format in 16 bytes
 *                                          -> MPI_LONG_DOUBLE (the same format)
 *            33/4931: REAL(16), IEEE binary128
 *                                          -> MPI_REAL16 (binary128: op_bind.c,
 *                                             type_external.c)
 *   complex  as real                       -> MPI_COMPLEX8, MPI_COMPLEX16,
 *                                             MPI_C_LONG_DOUBLE_COMPLEX, MPI_COMPLEX32
 * A REAL(10) is not a REAL*16: its arithmetic (MPI_SUM...) and its
 * external32 conversion are the long double's, not binary128's.
 *
 * The result is a copy of that predefined type whose envelope says
 * MPI_COMBINER_F90_INTEGER/REAL/COMPLEX with the arguments (r) or (p, r),
 * as §5.1.13 requires, and which MPI_Type_free refuses: the standard makes
 * these handles predefined. One handle per (combiner, p, r), reused by
 * later calls; the types go with the others at MPI_Finalize. Reductions see
 * the basic type (Fortran integer, floating point, complex: the groups the
 * standard puts these handles in).
 */
#include <string.h>
#include "mpi/type_impl.h"

struct kind {
    int p, r;                 /* most digits of precision and of exponent range */
    MPI_Datatype type;
};

static const struct kind ints[] = {
    { 0, 2, MPI_INTEGER1 }, { 0, 4, MPI_INTEGER2 }, { 0, 9, MPI_INTEGER4 }, { 0, 18, MPI_INTEGER8 },
};
static const struct kind reals[] = {
    { 6, 37, MPI_REAL4 }, { 15, 307, MPI_REAL8 }, { 18, 4931, MPI_LONG_DOUBLE }, { 33, 4931, MPI_REAL16 },
};
static const struct kind complexes[] = {
    { 6, 37, MPI_COMPLEX8 }, { 15, 307, MPI_COMPLEX16 }, { 18, 4931, MPI_C_LONG_DOUBLE_COMPLEX },
    { 33, 4931, MPI_COMPLEX32 },
};

#define F90_CACHE 32
static struct { int combiner, p, r; MPI_Datatype handle; } cache[F90_CACHE];
static int ncache;

/* The cached handle of (combiner, p, r) if it still names that type (a
 * new MPI session starts with an empty table), else MPI_DATATYPE_NULL. */
static MPI_Datatype cached(int combiner, int p, int r)
{
    for (int i = 0; i < ncache; i++) {
        if (cache[i].combiner != combiner || cache[i].p != p || cache[i].r != r)
            continue;
        struct rch_mpi_type_obj *o = rch_mpi_type_lookup(cache[i].handle);
        if (o && o->permanent && o->combiner == combiner)
            return cache[i].handle;
    }
    return MPI_DATATYPE_NULL;
}

static int create(const char *fn, int combiner, const struct kind *k, size_t nk, int p, int r,
                  MPI_Datatype *newtype)
{
    int rc = rch_mpi_check_init(fn);
    if (rc)
        return rc;
    if (!newtype)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument newtype", fn);
    int has_p = combiner != MPI_COMBINER_F90_INTEGER;
    if ((has_p && p == MPI_UNDEFINED && r == MPI_UNDEFINED) || (has_p && p != MPI_UNDEFINED && p < 0) ||
        (r != MPI_UNDEFINED && r < 0) || (!has_p && r == MPI_UNDEFINED))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid precision %d / range %d", fn, p, r);
    size_t i;
    for (i = 0; i < nk; i++)
        if ((!has_p || p == MPI_UNDEFINED || p <= k[i].p) && (r == MPI_UNDEFINED || r <= k[i].r))
            break;
    if (i == nk)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: no Fortran kind has precision %d and range %d", fn,
                           p, r);
    if ((*newtype = cached(combiner, p, r)) != MPI_DATATYPE_NULL)
        return MPI_SUCCESS;

    struct rch_mpi_type_obj *o = rch_mpi_type_obj_copy(rch_mpi_type_lookup(k[i].type));
    if (!o)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: out of memory", fn);
    o->t.committed = 1;
    o->permanent = 1;
    int args[2] = { p, r };
    if ((rc = rch_mpi_type_publish(fn, o, newtype, combiner, has_p ? 2 : 1, has_p ? args : &args[1], 0, NULL, 0,
                                   NULL)))
        return rc;
    if (ncache == F90_CACHE)    /* forget the oldest: a later call makes a new handle, still correct */
        ncache--;
    memmove(&cache[1], &cache[0], (size_t)ncache * sizeof(cache[0]));
    cache[0].combiner = combiner;
    cache[0].p = p;
    cache[0].r = r;
    cache[0].handle = *newtype;
    ncache++;
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    return create("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, ints, sizeof(ints) / sizeof(ints[0]),
                  MPI_UNDEFINED, r, newtype);
}
#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    return create("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, reals, sizeof(reals) / sizeof(reals[0]), p, r,
                  newtype);
}
#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    return create("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, complexes,
                  sizeof(complexes) / sizeof(complexes[0]), p, r, newtype);
}
#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
