# MPI_Op_free / MPI_Type_free right after every non-blocking or persistent
# collective (intra and inter) and point-to-point call that uses them, the
# operation completed later (MPI-4.1 6.9.5, 5.1.9). RDMACH_INTER_RS_CHUNK=7
# chains the intercommunicator reduce_scatter of 8 doubles, whose chunks
# bind the op after the free. Over shm and tcp.
rdmach_mpi_test(test_mpi_free_pending NP 4 TEST test_mpi_free_pending TIMEOUT 60)
set_tests_properties(test_mpi_free_pending PROPERTIES ENVIRONMENT "RDMACH_INTER_RS_CHUNK=7")
rdmach_mpi_test(test_mpi_free_pending NP 4 TEST test_mpi_free_pending_net TIMEOUT 60)
set_tests_properties(test_mpi_free_pending_net PROPERTIES
                     ENVIRONMENT "RDMACH_INTER_RS_CHUNK=7;RDMACH_VNODE_SIZE=1")
