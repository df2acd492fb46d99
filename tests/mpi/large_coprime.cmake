# The v-collectives' _c forms with counts beyond INT_MAX that no common
# divisor brings under it and blocks spread over more than 2^31 extents
# (src/mpi/large_nbv.c's per-peer types, large_vcoll.c, large_nbw.c):
# gatherv, scatterv, allgatherv, alltoallv, alltoallw, the neighbourhood
# forms and reduce_scatter, non-blocking, persistent and on an
# intercommunicator. Rank 1 receives blocks of 2^31 + 3 bytes (a few GiB at
# once with the library's temporaries): RESOURCE_LOCK keeps ctest -j from
# running them beside each other and the bigcount tests (bigcount.cmake),
# and the timeout is theirs (a few seconds idle, much more on a loaded
# machine: fresh pages are most of the time).
foreach(np 2 3 4)
  rdmach_mpi_test(test_mpi_large_coprime NP ${np} TEST test_mpi_large_coprime_np${np} TIMEOUT 180)
  set_tests_properties(test_mpi_large_coprime_np${np} PROPERTIES RESOURCE_LOCK bigcount_memory)
endforeach()
# Every pair of ranks over the network channel (a tcp pair each).
foreach(np 2 3)
  rdmach_mpi_test(test_mpi_large_coprime NP ${np} TEST test_mpi_large_coprime_net_np${np} TIMEOUT 180)
  set_tests_properties(test_mpi_large_coprime_net_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1"
                       RESOURCE_LOCK bigcount_memory)
endforeach()
