/*
 * MPI_Type_create_subarray_c, MPI_Type_create_darray_c and
 * MPI_Type_create_resized_c (large=defined). The array types are built by
 * the int forms' builders, which take every size as an MPI_Count
 * (type_array.c): a size or start beyond INT_MAX is one like any other, and
 * only an array whose bytes do not fit an MPI_Count is MPI_ERR_COUNT. The
 * record is then the user's call (MPI-4.1 5.1.13): the sizes, subsizes and
 * starts, or the global sizes, as large counts; the other arguments as ints.
 */
#include <stdlib.h>
#include "mpi/large.h"
#include "mpi/type_impl.h"

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_subarray_c";
    int ints[2] = { ndims, order };
    int err = rch_mpi_type_subarray(fn, ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, oldtype,
                                    newtype, 0, NULL);
    return rch_mpi_type_record_c(fn, err, newtype, &(struct rch_mpi_type_call_c){
        .combiner = MPI_COMBINER_SUBARRAY, .nints = 2, .ints = ints, .nhead = ndims, .head = array_of_sizes,
        .n = ndims, .a = array_of_subsizes, .b = array_of_starts, .ntypes = 1, .types = &oldtype });
}
#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct rch_mpi_large_ctx x = { "MPI_Type_create_darray_c", MPI_COMM_NULL, MPI_WIN_NULL, 1 };
    int *ints = NULL;
    int err = rch_mpi_type_darray(x.fn, size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                                  array_of_psizes, order, oldtype, newtype, 0, NULL);
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
