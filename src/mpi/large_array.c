/*
 * MPI_Type_create_subarray_c, MPI_Type_create_darray_c and
 * MPI_Type_create_resized_c (large=defined): the int constructors build the
 * type (an array size beyond INT_MAX is MPI_ERR_COUNT naming it: a map of
 * that many elements per row is more than the library holds), and its record
 * is then the user's call (MPI-4.1 5.1.13): the sizes, subsizes and starts,
 * the global sizes, or lb and extent as large counts; the other arguments as
 * ints.
 */
#include <stdlib.h>
#include "mpi/large.h"

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    struct rch_mpi_large_ctx x = { "MPI_Type_create_subarray_c", MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    int *sizes = NULL, *subsizes = NULL, *starts = NULL, ints[2] = { ndims, order };
    int err = rch_mpi_large_ints(&x, "array_of_sizes", 0, array_of_sizes, ndims, &sizes);
    if (!err)
        err = rch_mpi_large_ints(&x, "array_of_subsizes", 0, array_of_subsizes, ndims, &subsizes);
    if (!err)
        err = rch_mpi_large_ints(&x, "array_of_starts", 0, array_of_starts, ndims, &starts);
    if (!err)
        err = PMPI_Type_create_subarray(ndims, sizes, subsizes, starts, order, oldtype, newtype);
    free(sizes);
    free(subsizes);
    free(starts);
    return rch_mpi_type_record_c(x.fn, err, newtype, &(struct rch_mpi_type_call_c){
        .combiner = MPI_COMBINER_SUBARRAY, .nints = 2, .ints = ints, .nhead = ndims, .head = array_of_sizes,
        .n = ndims, .a = array_of_subsizes, .b = array_of_starts, .ntypes = 1, .types = &oldtype });
}
#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct rch_mpi_large_ctx x = { "MPI_Type_create_darray_c", MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    int *gsizes = NULL, *ints = NULL;
    int err = rch_mpi_large_ints(&x, "array_of_gsizes", 0, array_of_gsizes, ndims, &gsizes);
    if (!err)
        err = PMPI_Type_create_darray(size, rank, ndims, gsizes, array_of_distribs, array_of_dargs,
                                      array_of_psizes, order, oldtype, newtype);
    free(gsizes);
    /* valid now: ints are size, rank, ndims, distribs, dargs, psizes, order */
    if (!err && !(ints = malloc(sizeof(int) * (size_t)(3 * ndims + 4)))) {
        PMPI_Type_free(newtype);
        err = rch_mpi_large_err(&x, MPI_ERR_NO_MEM, "no memory for the datatype's record");
    }
    if (!err) {
        ints[0] = size;
        ints[1] = rank;
        ints[2] = ndims;
        for (int i = 0; i < ndims; i++) {
            ints[3 + i] = array_of_distribs[i];
            ints[3 + ndims + i] = array_of_dargs[i];
            ints[3 + 2 * ndims + i] = array_of_psizes[i];
        }
        ints[3 + 3 * ndims] = order;
    }
    err = rch_mpi_type_record_c(x.fn, err, newtype, &(struct rch_mpi_type_call_c){
        .combiner = MPI_COMBINER_DARRAY, .nints = 3 * ndims + 4, .ints = ints, .nhead = ndims,
        .head = array_of_gsizes, .ntypes = 1, .types = &oldtype });
    free(ints);
    return err;
}
#pragma weak MPI_Type_create_darray_c = PMPI_Type_create_darray_c

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    MPI_Count head[2] = { lb, extent };
    return rch_mpi_type_record_c("MPI_Type_create_resized_c", PMPI_Type_create_resized(oldtype, lb, extent, newtype),
                                 newtype, &(struct rch_mpi_type_call_c){ .combiner = MPI_COMBINER_RESIZED,
                                 .nhead = 2, .head = head, .ntypes = 1, .types = &oldtype });
}
#pragma weak MPI_Type_create_resized_c = PMPI_Type_create_resized_c
