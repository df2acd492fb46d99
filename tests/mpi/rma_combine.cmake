# Accumulates into a window the origin has mapped (MPI_Win_allocate over
# shared memory): combined in place by the datatype engine, a piece in cache
# at a time (src/mpi/type_pack.c rch_mpi_type_combine); over tcp the same
# program takes the packets' path.
rdmach_mpi_test(test_rma_acc_combine NP 2 TIMEOUT 60)
rdmach_mpi_test(test_rma_acc_combine NP 2 TEST test_rma_acc_combine_tcp TIMEOUT 60)
set_tests_properties(test_rma_acc_combine_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
