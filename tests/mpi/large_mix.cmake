# Collectives in which odd ranks call the large-count (_c) form and even
# ranks the int form (src/mpi/large_vcoll.c, large_nbv.c, large_nbw.c).
foreach(np 2 3 4)
  rdmach_mpi_test(test_mpi_large_mix NP ${np} TEST test_mpi_large_mix_np${np} TIMEOUT 60)
endforeach()
# Every pair of ranks over the network channel (a tcp pair each).
rdmach_mpi_test(test_mpi_large_mix NP 3 TEST test_mpi_large_mix_net_np3 TIMEOUT 60)
set_tests_properties(test_mpi_large_mix_net_np3 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
