# Persistent collectives (MPI 4.0 MPI_<collective>_init), each started
# several times with new data, alone and with MPI_Startall, on 1..8 ranks;
# and over the network channel (every pair of ranks a tcp pair).
foreach(np 1 2 3 4 5 8)
  rdmach_mpi_test(test_mpi_persist_coll NP ${np} TEST test_mpi_persist_coll_np${np} TIMEOUT 60)
endforeach()
foreach(np 3 4)
  rdmach_mpi_test(test_mpi_persist_coll NP ${np} TEST test_mpi_persist_coll_net_np${np} TIMEOUT 60)
  set_tests_properties(test_mpi_persist_coll_net_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
