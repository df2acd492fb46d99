# The v-collectives' _c forms with counts beyond INT_MAX that no common
# divisor brings under it and blocks spread over more than 2^31 extents
# (src/mpi/large_nbv.c's per-peer types, large_vcoll.c): gatherv, scatterv,
# allgatherv, alltoallv, alltoallw, an Igatherv_c, an Allgatherv_init_c and
# an intercommunicator's gatherv.
foreach(np 2 3 4)
  rdmach_mpi_test(test_mpi_large_coprime NP ${np} TEST test_mpi_large_coprime_np${np} TIMEOUT 60)
endforeach()
# Every pair of ranks over the network channel (a tcp pair each).
foreach(np 2 3)
  rdmach_mpi_test(test_mpi_large_coprime NP ${np} TEST test_mpi_large_coprime_net_np${np} TIMEOUT 60)
  set_tests_properties(test_mpi_large_coprime_net_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
