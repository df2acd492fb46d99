/*
 * Contiguous types of more than INT_MAX elements (MPI_Type_contiguous_c, and
 * the type a _c call's buffer count over INT_MAX becomes: src/mpi/large.c).
 * Built as MPI_Type_contiguous builds its types, from an MPI_Aint count, so
 * the map has no bounds of its own (a resized type's would stick in a
 * struct made of it). Its construction record is MPI_COMBINER_CONTIGUOUS
 * with the count as a large count (MPI_Type_get_envelope_c, type_api.c).
 */
#include "mpi/large.h"
#include "mpi/type_impl.h"

int rch_mpi_type_contiguous_large(const char *fn, MPI_Count count, MPI_Datatype oldtype, int internal,
                                  MPI_Datatype *newtype)
{
    struct rch_mpi_type_builder b;
    struct rch_mpi_type_obj *old, *o;
    int rc;

    if (!(old = rch_mpi_type_arg(fn, "oldtype", oldtype, &rc)))
        return rc;
    rch_mpi_type_build_begin(&b);
    rch_mpi_type_build_add(&b, 0, (MPI_Aint)count, old);
    if (!(o = rch_mpi_type_build_end(&b, 0)))
        return rch_mpi_err(MPI_COMM_NULL, b.err, "%s: %s", fn, b.why);
    o->large_base = oldtype;
    o->large_n = count;
    o->large_internal = internal;
    return rch_mpi_type_publish(fn, o, newtype, MPI_COMBINER_CONTIGUOUS, 0, NULL, 0, NULL, 1, &oldtype);
}

int rch_mpi_large_origin(const struct rch_mpi_type *t, MPI_Datatype *base, MPI_Count *n)
{
    const struct rch_mpi_type_obj *o = rch_mpi_type_obj_of(t);
    if (t->predefined || !o->large_internal)
        return 0;
    *base = o->large_base;
    *n = o->large_n;
    return 1;
}
