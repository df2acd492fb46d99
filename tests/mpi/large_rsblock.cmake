# MPI_Reduce_scatter_block_c, its I and _init forms with recvcount x group
# size beyond INT_MAX elements, on an intracommunicator (src/coll's size_t
# counts) and an intercommunicator (src/mpi/intercoll_big.c: chunks). A rank
# holds up to 3 GiB of vector and 2 GiB of result: RESOURCE_LOCK keeps
# ctest -j from running them beside the other bigcount tests.
foreach(kind intra inter)
  rdmach_mpi_test(test_mpi_large_rsblock NP 3 TEST test_mpi_large_rsblock_${kind} TIMEOUT 120 ARGS ${kind})
  set_tests_properties(test_mpi_large_rsblock_${kind} PROPERTIES RESOURCE_LOCK bigcount_memory)
  # Every pair of ranks over the network channel (a tcp pair each).
  rdmach_mpi_test(test_mpi_large_rsblock NP 3 TEST test_mpi_large_rsblock_${kind}_net TIMEOUT 120 ARGS ${kind})
  set_tests_properties(test_mpi_large_rsblock_${kind}_net PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1"
                       RESOURCE_LOCK bigcount_memory)
endforeach()
