# The non-blocking and persistent v-collectives' _c forms with arrays
# beyond INT_MAX (src/mpi/large_nbv.c): world, a ring, an intercommunicator.
foreach(np 1 2 3 4 5 8)
  rdmach_mpi_test(test_mpi_large_nbv NP ${np} TEST test_mpi_large_nbv_np${np} TIMEOUT 60)
endforeach()
# Every pair of ranks over the network channel (a tcp pair each).
foreach(np 3 4)
  rdmach_mpi_test(test_mpi_large_nbv NP ${np} TEST test_mpi_large_nbv_net_np${np} TIMEOUT 60)
  set_tests_properties(test_mpi_large_nbv_net_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
