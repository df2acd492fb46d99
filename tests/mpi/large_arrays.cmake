# MPI_Type_create_subarray_c and _darray_c with sizes beyond INT_MAX
# (src/mpi/type_array.c, large_array.c): layout, type map through a sparse
# buffer, the _c record, refusals.
rdmach_mpi_test(test_mpi_large_arrays NP 1 TIMEOUT 60)
