# MPI_Comm_idup(_with_info) of an intercommunicator completes in progress
# (src/mpi/comm_idup.c); 2-8 ranks on shared memory, 3-4 over tcp.
foreach(np 2 3 4 5 8)
  rdmach_mpi_test(test_mpi_idup_inter NP ${np} TEST test_mpi_idup_inter_np${np} TIMEOUT 60)
endforeach()
foreach(np 3 4)
  rdmach_mpi_test(test_mpi_idup_inter NP ${np} TEST test_mpi_idup_inter_net_np${np} TIMEOUT 60)
  set_tests_properties(test_mpi_idup_inter_net_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
