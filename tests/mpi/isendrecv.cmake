# MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0), over shared memory and
# over the network channel (every pair of ranks a tcp pair).
foreach(np 1 2 3 5)
  rdmach_mpi_test(test_mpi_isendrecv NP ${np} TEST test_mpi_isendrecv_np${np} TIMEOUT 60)
endforeach()
rdmach_mpi_test(test_mpi_isendrecv NP 3 TEST test_mpi_isendrecv_net_np3 TIMEOUT 60)
set_tests_properties(test_mpi_isendrecv_net_np3 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
