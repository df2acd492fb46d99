# Partitioned communication (MPI 4.0): pairs of ranks (and a rank with
# itself), over shared memory and over the network channel.
foreach(np 1 2 3 4)
  rdmach_mpi_test(test_mpi_partitioned NP ${np} TEST test_mpi_partitioned_np${np} TIMEOUT 60)
endforeach()
rdmach_mpi_test(test_mpi_partitioned NP 2 TEST test_mpi_partitioned_net_np2 TIMEOUT 60)
set_tests_properties(test_mpi_partitioned_net_np2 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
target_link_libraries(test_mpi_partitioned PRIVATE Threads::Threads)
