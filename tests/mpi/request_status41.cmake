# MPI-4.1's MPI_Request_get_status_any/_all/_some (src/mpi/request_get_status.c).
foreach(np 1 2 3 4)
  rdmach_mpi_test(test_mpi_request_status41 NP ${np} TEST test_mpi_request_status41_np${np} TIMEOUT 60)
endforeach()
foreach(np 2 3)
  rdmach_mpi_test(test_mpi_request_status41 NP ${np} TEST test_mpi_request_status41_net_np${np} TIMEOUT 60)
  set_tests_properties(test_mpi_request_status41_net_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
