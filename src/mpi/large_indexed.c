/*
 * MPI_Type_indexed_c and MPI_Type_create_hindexed_c (large=defined) with
 * blocklengths or displacements an int does not hold.
 *
 * What fits goes to the int constructor. Otherwise the type is the struct
 * of the same blocks (MPI-4.1 5.1.2: an hindexed type is a struct whose
 * blocks are all of oldtype; an indexed one the same with displacements
 * times oldtype's extent, here in bytes), which MPI_Type_create_struct_c
 * builds with a block beyond INT_MAX elements as one element of a
 * contiguous type of them (large_type.c): same type map, size and extent.
 * A count of more than INT_MAX blocks is MPI_ERR_COUNT there, as for every
 * constructor. Either way the record is the user's call, its counts and
 * displacements as large counts (MPI-4.1 5.1.13).
 */
#include <limits.h>
#include <stdlib.h>
#include "mpi/large.h"

static int fits(const MPI_Count *a, MPI_Count n)
{
    for (MPI_Count i = 0; a && i < n; i++)
        if (a[i] < INT_MIN || a[i] > INT_MAX)
            return 0;
    return 1;
}

/* count blocks of oldtype, displs in bytes (in_extents: in extents). */
static int as_struct(const struct rch_mpi_large_ctx *x, MPI_Count count, const MPI_Count *bl,
                     const MPI_Count *displs, int in_extents, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_Aint lb = 0, ext = 1;
    int err = rch_mpi_check_init(x->fn);
    if (err)
        return err;
    if (count < 0 || count > INT_MAX)
        return rch_mpi_large_err(x, MPI_ERR_COUNT, "count %lld in argument count: %s", (long long)count,
                                 count < 0 ? "negative" : "a type of more than INT_MAX blocks is more than this "
                                 "library holds");
    if (count > 0 && (!bl || !displs))
        return rch_mpi_large_err(x, MPI_ERR_ARG, "NULL pointer in argument %s",
                                 !bl ? "array_of_blocklengths" : "array_of_displacements");
    if (in_extents && rch_mpi_type_get(oldtype))
        PMPI_Type_get_extent(oldtype, &lb, &ext);
    MPI_Aint *bytes = malloc(sizeof(MPI_Aint) * (size_t)(count ? count : 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(count ? count : 1));
    if (!bytes || !types)
        err = rch_mpi_large_err(x, MPI_ERR_NO_MEM, "no memory for %lld blocks", (long long)count);
    for (MPI_Count i = 0; !err && i < count; i++) {
        types[i] = oldtype;
        if (__builtin_mul_overflow(displs[i], in_extents ? ext : 1, &bytes[i]))
            err = rch_mpi_large_err(x, MPI_ERR_COUNT, "displacement %lld in argument array_of_displacements[%lld] "
                                    "times the extent %ld overflows an address", (long long)displs[i],
                                    (long long)i, (long)ext);
    }
    if (!err)
        err = PMPI_Type_create_struct_c(count, bl, bytes, types, newtype);
    free(bytes);
    free(types);
    return err;
}

static int record(const char *fn, int err, MPI_Datatype *newtype, int combiner, MPI_Count count,
                  const MPI_Count *bl, const MPI_Count *displs, MPI_Datatype oldtype)
{
    return rch_mpi_type_record_c(fn, err, newtype, &(struct rch_mpi_type_call_c){
        .combiner = combiner, .nhead = 1, .head = &count, .n = count, .a = bl, .b = displs, .ntypes = 1,
        .types = &oldtype });
}

/* The int constructor's arrays, converted (they fit). */
static int ints(const struct rch_mpi_large_ctx *x, MPI_Count count, const MPI_Count *bl, const MPI_Count *d,
                int **bl_i, int **d_i)
{
    int err = rch_mpi_large_ints(x, "array_of_blocklengths", 0, bl, count, bl_i);
    if (!err && d_i && (err = rch_mpi_large_ints(x, "array_of_displacements", 1, d, count, d_i))) {
        free(*bl_i);
        *bl_i = NULL;
    }
    return err;
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct rch_mpi_large_ctx x = { "MPI_Type_indexed_c", MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    int *bl = NULL, *d = NULL, err;
    if (count > INT_MAX || !fits(array_of_blocklengths, count) || !fits(array_of_displacements, count))
        err = as_struct(&x, count, array_of_blocklengths, array_of_displacements, 1, oldtype, newtype);
    else if (!(err = ints(&x, count, array_of_blocklengths, array_of_displacements, &bl, &d)))
        err = PMPI_Type_indexed((int)count, bl, d, oldtype, newtype);
    free(bl);
    free(d);
    return record(x.fn, err, newtype, MPI_COMBINER_INDEXED, count, array_of_blocklengths, array_of_displacements,
                  oldtype);
}
#pragma weak MPI_Type_indexed_c = PMPI_Type_indexed_c

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    struct rch_mpi_large_ctx x = { "MPI_Type_create_hindexed_c", MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    int *bl = NULL, err;
    if (count > INT_MAX || !fits(array_of_blocklengths, count))
        err = as_struct(&x, count, array_of_blocklengths, array_of_displacements, 0, oldtype, newtype);
    else if (!(err = ints(&x, count, array_of_blocklengths, NULL, &bl, NULL)))
        err = PMPI_Type_create_hindexed((int)count, bl, array_of_displacements, oldtype, newtype);
    free(bl);
    return record(x.fn, err, newtype, MPI_COMBINER_HINDEXED, count, array_of_blocklengths, array_of_displacements,
                  oldtype);
}
#pragma weak MPI_Type_create_hindexed_c = PMPI_Type_create_hindexed_c
