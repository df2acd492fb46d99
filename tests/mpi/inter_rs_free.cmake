# MPI_Request_free on an active persistent intercommunicator reduce_scatter
# running as a chain of chunks (src/mpi/intercoll_big.c): the test-only
# tunable RDMACH_INTER_RS_CHUNK cuts a 12 KiB vector into 13 chunks, as one
# beyond INT_MAX is cut in chunks of 2^26 elements. Over shm and tcp.
rdmach_mpi_test(test_mpi_inter_rs_free NP 3 TEST test_mpi_inter_rs_free TIMEOUT 60)
set_tests_properties(test_mpi_inter_rs_free PROPERTIES ENVIRONMENT "RDMACH_INTER_RS_CHUNK=1000")
rdmach_mpi_test(test_mpi_inter_rs_free NP 3 TEST test_mpi_inter_rs_free_net TIMEOUT 60)
set_tests_properties(test_mpi_inter_rs_free_net PROPERTIES
                     ENVIRONMENT "RDMACH_INTER_RS_CHUNK=1000;RDMACH_VNODE_SIZE=1")
