/*
 * Datatype constructors: MPI_Type_contiguous, _vector, _create_hvector,
 * _indexed, _create_hindexed, _create_indexed_block, _create_hindexed_block,
 * _create_struct, _create_resized, and the deprecated MPI-1 spellings
 * (Type_hvector, Type_hindexed, Type_struct) that MPICH still exports.
 *
 * Each checks its arguments (error classes as MPICH reports them: negative
 * counts and block lengths MPI_ERR_COUNT, bad handles MPI_ERR_TYPE, missing
 * arrays or output MPI_ERR_ARG), feeds the entries of its type map to the
 * builder (type_build.c) in order, and publishes the result with its
 * construction record for MPI_Type_get_contents.
 */
#include <stdlib.h>
#include "mpi/type_impl.h"

/* ---- argument checks ---- */

static int check_count(const char *fn, const char *arg, int count)
{
    if (count < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: negative value %d in argument %s", fn,
                           count, arg);
    return MPI_SUCCESS;
}

static int check_array(const char *fn, const char *arg, int count, const void *array)
{
    if (count > 0 && !array)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL array in argument %s (count %d)", fn,
                           arg, count);
    return MPI_SUCCESS;
}

static int check_out(const char *fn, const void *newtype)
{
    if (!newtype)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument newtype", fn);
    return MPI_SUCCESS;
}

static int check_blocklens(const char *fn, int count, const int *bl)
{
    for (int i = 0; i < count; i++) {
        if (bl[i] < 0)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT,
                               "%s: negative block length %d in array_of_blocklengths[%d]", fn, bl[i], i);
    }
    return MPI_SUCCESS;
}

static int built(const char *fn, struct rch_mpi_type_builder *b, int pad, struct rch_mpi_type_obj **out)
{
    *out = rch_mpi_type_build_end(b, pad);
    if (!*out)
        return rch_mpi_err(MPI_COMM_NULL, b->err, "%s: %s", fn, b->why);
    return MPI_SUCCESS;
}

/* disp * unit with overflow detection (displacements counted in extents). */
static int scaled(const char *fn, const char *arg, int i, MPI_Aint disp, MPI_Aint unit, MPI_Aint *out)
{
    if (__builtin_mul_overflow(disp, unit, out))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
                           "%s: displacement %ld in %s[%d] times the extent %ld overflows", fn, (long)disp,
                           arg, i, (long)unit);
    return MPI_SUCCESS;
}

/* ints[] of the construction record: count, then up to two arrays. */
static int *record_ints(int count, const int *a, int na, const int *b, int nb)
{
    int *ints = malloc((size_t)(1 + na + nb) * sizeof(int));
    if (!ints)
        return NULL;
    ints[0] = count;
    for (int i = 0; i < na; i++)
        ints[1 + i] = a[i];
    for (int i = 0; i < nb; i++)
        ints[1 + na + i] = b[i];
    return ints;
}

/* ---- contiguous, vector ---- */

static int make_vector(const char *fn, int count, int blocklength, MPI_Aint stride_bytes,
                       struct rch_mpi_type_obj *old, struct rch_mpi_type_obj **out)
{
    struct rch_mpi_type_builder b;
    MPI_Aint last;

    if (count > 0 && __builtin_mul_overflow((MPI_Aint)(count - 1), stride_bytes, &last))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: stride %ld bytes times count %d overflows",
                           fn, (long)stride_bytes, count);
    rch_mpi_type_build_begin(&b);
    rch_mpi_type_build_add_vector(&b, count, blocklength, stride_bytes, old);
    return built(fn, &b, 0, out);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_contiguous";
    struct rch_mpi_type_obj *old, *o;
    struct rch_mpi_type_builder b;
    int rc;

    if ((rc = rch_mpi_check_init(fn)) || (rc = check_count(fn, "count", count)) ||
        (rc = check_out(fn, newtype)))
        return rc;
    if (!(old = rch_mpi_type_arg(fn, "oldtype", oldtype, &rc)))
        return rc;
    rch_mpi_type_build_begin(&b);
    rch_mpi_type_build_add(&b, 0, count, old);
    if ((rc = built(fn, &b, 0, &o)))
        return rc;
    return rch_mpi_type_publish(fn, o, newtype, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &oldtype);
}
#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_vector";
    struct rch_mpi_type_obj *old, *o;
    MPI_Aint stride_bytes;
    int rc;

    if ((rc = rch_mpi_check_init(fn)) || (rc = check_count(fn, "count", count)) ||
        (rc = check_count(fn, "blocklength", blocklength)) || (rc = check_out(fn, newtype)))
        return rc;
    if (!(old = rch_mpi_type_arg(fn, "oldtype", oldtype, &rc)))
        return rc;
    if ((rc = scaled(fn, "stride", 0, stride, old->t.extent, &stride_bytes)) ||
        (rc = make_vector(fn, count, blocklength, stride_bytes, old, &o)))
        return rc;
    {
        int ints[3] = { count, blocklength, stride };
        return rch_mpi_type_publish(fn, o, newtype, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &oldtype);
    }
}
#pragma weak MPI_Type_vector = PMPI_Type_vector

static int hvector(const char *fn, int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                   MPI_Datatype *newtype)
{
    struct rch_mpi_type_obj *old, *o;
    int rc;

    if ((rc = rch_mpi_check_init(fn)) || (rc = check_count(fn, "count", count)) ||
        (rc = check_count(fn, "blocklength", blocklength)) || (rc = check_out(fn, newtype)))
        return rc;
    if (!(old = rch_mpi_type_arg(fn, "oldtype", oldtype, &rc)))
        return rc;
    if ((rc = make_vector(fn, count, blocklength, stride, old, &o)))
        return rc;
    {
        int ints[2] = { count, blocklength };
        return rch_mpi_type_publish(fn, o, newtype, MPI_COMBINER_HVECTOR, 2, ints, 1, &stride, 1, &oldtype);
    }
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    return hvector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype);
}
#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    return hvector("MPI_Type_hvector", count, blocklength, stride, oldtype, newtype);
}
#pragma weak MPI_Type_hvector = PMPI_Type_hvector

/* ---- indexed family ----
 * One worker for the five: block lengths either per block (bls) or one for
 * all (bl); displacements either ints in extents (idisps) or bytes (adisps). */
struct indexed_args {
    const char *fn;
    int count;
    int per_block;            /* block lengths in bls[], else all bl */
    const int *bls;
    int bl;
    int in_extents;           /* displacements in idisps[] (extents), else adisps[] (bytes) */
    const int *idisps;
    const MPI_Aint *adisps;
    MPI_Datatype oldtype;
    MPI_Datatype *newtype;
};

static int indexed(const struct indexed_args *a, int combiner)
{
    const char *fn = a->fn;
    struct rch_mpi_type_obj *old, *o;
    struct rch_mpi_type_builder b;
    int rc, *ints, nints;

    if ((rc = rch_mpi_check_init(fn)) || (rc = check_count(fn, "count", a->count)) ||
        (rc = check_out(fn, a->newtype)))
        return rc;
    if (a->per_block) {
        if ((rc = check_array(fn, "array_of_blocklengths", a->count, a->bls)) ||
            (rc = check_blocklens(fn, a->count, a->bls)))
            return rc;
    } else if ((rc = check_count(fn, "blocklength", a->bl))) {
        return rc;
    }
    if ((rc = check_array(fn, "array_of_displacements", a->count,
                          a->in_extents ? (const void *)a->idisps : (const void *)a->adisps)))
        return rc;
    if (!(old = rch_mpi_type_arg(fn, "oldtype", a->oldtype, &rc)))
        return rc;

    for (int i = 0; a->in_extents && i < a->count; i++) {
        MPI_Aint disp;
        if ((rc = scaled(fn, "array_of_displacements", i, a->idisps[i], old->t.extent, &disp)))
            return rc;
    }
    rch_mpi_type_build_begin(&b);
    for (int i = 0; i < a->count; i++) {
        MPI_Aint disp = a->in_extents ? (MPI_Aint)a->idisps[i] * old->t.extent : a->adisps[i];
        rch_mpi_type_build_add(&b, disp, a->per_block ? a->bls[i] : a->bl, old);
    }
    if ((rc = built(fn, &b, 0, &o)))
        return rc;

    /* Record: count, block lengths (one or count), int displacements. */
    nints = a->per_block ? a->count : 1;
    ints = record_ints(a->count, a->per_block ? a->bls : &a->bl, nints, a->idisps,
                       a->in_extents ? a->count : 0);
    if (!ints) {
        rch_mpi_type_obj_destroy(o);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: out of memory", fn);
    }
    rc = rch_mpi_type_publish(fn, o, a->newtype, combiner, 1 + nints + (a->in_extents ? a->count : 0), ints,
                              a->in_extents ? 0 : a->count, a->adisps, 1, &a->oldtype);
    free(ints);
    return rc;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    struct indexed_args a = { "MPI_Type_indexed", count, 1, array_of_blocklengths, 0,
                              1, array_of_displacements, NULL, oldtype, newtype };
    return indexed(&a, MPI_COMBINER_INDEXED);
}
#pragma weak MPI_Type_indexed = PMPI_Type_indexed

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    struct indexed_args a = { "MPI_Type_create_hindexed", count, 1, array_of_blocklengths, 0,
                              0, NULL, array_of_displacements, oldtype, newtype };
    return indexed(&a, MPI_COMBINER_HINDEXED);
}
#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed

int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    struct indexed_args a = { "MPI_Type_hindexed", count, 1, array_of_blocklengths, 0,
                              0, NULL, array_of_displacements, oldtype, newtype };
    return indexed(&a, MPI_COMBINER_HINDEXED);
}
#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    struct indexed_args a = { "MPI_Type_create_indexed_block", count, 0, NULL, blocklength,
                              1, array_of_displacements, NULL, oldtype, newtype };
    return indexed(&a, MPI_COMBINER_INDEXED_BLOCK);
}
#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    struct indexed_args a = { "MPI_Type_create_hindexed_block", count, 0, NULL, blocklength,
                              0, NULL, array_of_displacements, oldtype, newtype };
    return indexed(&a, MPI_COMBINER_HINDEXED_BLOCK);
}
#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block

/* ---- struct ---- */

static int type_struct(const char *fn, int count, const int *bls, const MPI_Aint *disps,
                       const MPI_Datatype *types, MPI_Datatype *newtype)
{
    struct rch_mpi_type_builder b;
    struct rch_mpi_type_obj *o;
    MPI_Datatype first = MPI_DATATYPE_NULL;
    int rc, *ints, mixed = 0;

    if ((rc = rch_mpi_check_init(fn)) || (rc = check_count(fn, "count", count)) ||
        (rc = check_out(fn, newtype)) ||
        (rc = check_array(fn, "array_of_blocklengths", count, bls)) ||
        (rc = check_array(fn, "array_of_displacements", count, disps)) ||
        (rc = check_array(fn, "array_of_types", count, types)) ||
        (rc = check_blocklens(fn, count, bls)))
        return rc;
    for (int i = 0; i < count; i++) {
        if (!rch_mpi_type_lookup(types[i])) {
            char d[96];
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: invalid datatype %s in array_of_types[%d]",
                               fn, rch_mpi_type_describe(types[i], d, sizeof(d)), i);
        }
    }
    /* MPICH 4 builds a struct whose blocks all have one type as an hindexed
     * type, without padding: so do we, so that extents agree. */
    for (int i = 0; i < count; i++) {
        if (bls[i] == 0)
            continue;
        if (first == MPI_DATATYPE_NULL)
            first = types[i];
        else if (types[i] != first)
            mixed = 1;
    }
    rch_mpi_type_build_begin(&b);
    b.bound_by_empty = 1;
    for (int i = 0; i < count; i++)
        rch_mpi_type_build_add(&b, disps[i], bls[i], rch_mpi_type_lookup(types[i]));
    if ((rc = built(fn, &b, mixed, &o)))
        return rc;
    ints = record_ints(count, bls, count, NULL, 0);
    if (!ints) {
        rch_mpi_type_obj_destroy(o);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: out of memory", fn);
    }
    rc = rch_mpi_type_publish(fn, o, newtype, MPI_COMBINER_STRUCT, 1 + count, ints, count, disps, count,
                              types);
    free(ints);
    return rc;
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                            MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    return type_struct("MPI_Type_create_struct", count, array_of_blocklengths, array_of_displacements,
                       array_of_types, newtype);
}
#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct

int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    return type_struct("MPI_Type_struct", count, array_of_blocklengths, array_of_displacements,
                       array_of_types, newtype);
}
#pragma weak MPI_Type_struct = PMPI_Type_struct

/* ---- resized ----
 * The same map with explicit bounds lb and lb + extent (both "sticky", as
 * MPI-3.1 4.1.7 defines them with markers: a struct containing a resized type
 * takes its bounds and is not padded). */
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_create_resized";
    struct rch_mpi_type_obj *old, *o;
    MPI_Aint ub;
    int rc;

    if ((rc = rch_mpi_check_init(fn)) || (rc = check_out(fn, newtype)))
        return rc;
    if (!(old = rch_mpi_type_arg(fn, "oldtype", oldtype, &rc)))
        return rc;
    if (__builtin_add_overflow(lb, extent, &ub))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: lb %ld + extent %ld overflows", fn, (long)lb,
                           (long)extent);
    if (!(o = rch_mpi_type_obj_copy(old)))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: out of memory", fn);
    o->marker = 0;
    o->t.lb = lb;
    o->t.ub = ub;
    o->t.extent = extent;
    o->sticky_lb = o->sticky_ub = 1;
    rch_mpi_type_update_contig(o);
    {
        MPI_Aint aints[2] = { lb, extent };
        return rch_mpi_type_publish(fn, o, newtype, MPI_COMBINER_RESIZED, 0, NULL, 2, aints, 1, &oldtype);
    }
}
#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
