# MPI_Allreduce_init built before the first blocking collective: its starts
# go through the node segment once a blocking allreduce has made it (the first
# after the young ones, RDMACH_COLL_SEG_AFTER); over
# shared memory and over the network channel (every pair a tcp pair).
foreach(np 1 2 3 4 8)
  rdmach_mpi_test(test_mpi_persist_early NP ${np} TEST test_mpi_persist_early_np${np} TIMEOUT 60)
endforeach()
foreach(np 2 4)
  rdmach_mpi_test(test_mpi_persist_early NP ${np} TEST test_mpi_persist_early_net_np${np} TIMEOUT 60)
  set_tests_properties(test_mpi_persist_early_net_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
