# MPI_Neighbor_alltoallw's _c forms with byte displacements beyond 2^31 and
# a count beyond INT_MAX (src/mpi/large_nbw.c): even ranks the large form,
# odd ranks the int form, on a ring with a self-edge.
foreach(np 1 2 3 4)
  rdmach_mpi_test(test_mpi_large_nbw NP ${np} TEST test_mpi_large_nbw_np${np} TIMEOUT 60)
endforeach()
# Every pair of ranks over the network channel (a tcp pair each).
rdmach_mpi_test(test_mpi_large_nbw NP 3 TEST test_mpi_large_nbw_net_np3 TIMEOUT 60)
set_tests_properties(test_mpi_large_nbw_net_np3 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
