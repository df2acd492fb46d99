# MPI_Reduce_scatter_c, its I and _init forms on an intercommunicator whose
# vector is beyond INT_MAX elements (src/mpi/intercoll_big.c: chunks), the
# one group's recvcounts without a divisor that brings them under INT_MAX.
# A rank holds up to 2^31 + 3 result bytes and the chunks' temporaries:
# RESOURCE_LOCK keeps ctest -j from running it beside the other bigcount
# tests (bigcount.cmake, large_coprime.cmake).
rdmach_mpi_test(test_mpi_large_interrs NP 3 TEST test_mpi_large_interrs TIMEOUT 180)
set_tests_properties(test_mpi_large_interrs PROPERTIES RESOURCE_LOCK bigcount_memory)
# Every pair of ranks over the network channel (a tcp pair each).
rdmach_mpi_test(test_mpi_large_interrs NP 3 TEST test_mpi_large_interrs_net TIMEOUT 180)
set_tests_properties(test_mpi_large_interrs_net PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1"
                     RESOURCE_LOCK bigcount_memory)
