# A chained intercommunicator reduce_scatter whose chunks cannot be built
# (RLIMIT_AS, src/mpi/intercoll_nb.c cut_chain): MPI_ERR_NO_MEM with a
# message naming the chunks, raised once by the completing call. Not in
# sanitizer builds: their allocators serve malloc from address space
# reserved at start-up, so a cap on it makes no allocation fail there.
if(NOT RDMACH_SANITIZER)
  rdmach_mpi_test(test_mpi_inter_rs_nomem NP 2 TIMEOUT 60)
  set_tests_properties(test_mpi_inter_rs_nomem PROPERTIES ENVIRONMENT "RDMACH_INTER_RS_CHUNK=1")
endif()
