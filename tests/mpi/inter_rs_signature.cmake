# Intercommunicator reduce_scatter chained in chunks (src/mpi/intercoll_big.c)
# with a 2-double type in one group and a 3-double type in the other: the
# test-only RDMACH_INTER_RS_CHUNK=7 chains a 60-double vector, and the
# chunks must cut both groups' vectors at the same doubles. Over shm and tcp.
rdmach_mpi_test(test_mpi_inter_rs_signature NP 4 TEST test_mpi_inter_rs_signature TIMEOUT 60)
set_tests_properties(test_mpi_inter_rs_signature PROPERTIES ENVIRONMENT "RDMACH_INTER_RS_CHUNK=7")
rdmach_mpi_test(test_mpi_inter_rs_signature NP 4 TEST test_mpi_inter_rs_signature_net TIMEOUT 60)
set_tests_properties(test_mpi_inter_rs_signature_net PROPERTIES
                     ENVIRONMENT "RDMACH_INTER_RS_CHUNK=7;RDMACH_VNODE_SIZE=1")
