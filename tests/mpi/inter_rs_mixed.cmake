# Intercommunicator reduce_scatter (every form) in one piece, the groups
# passing different datatypes of one type signature, at 2 + 2 and 3 + 1
# ranks (src/mpi/intercoll_nb.c: a block that ends inside an element of
# the sender's datatype). Over shm and tcp.
rdmach_mpi_test(test_mpi_inter_rs_mixed NP 4 TEST test_mpi_inter_rs_mixed TIMEOUT 60)
rdmach_mpi_test(test_mpi_inter_rs_mixed NP 4 TEST test_mpi_inter_rs_mixed_net TIMEOUT 60)
set_tests_properties(test_mpi_inter_rs_mixed_net PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
# The same calls with RDMACH_INTER_RS_CHUNK=7: the vectors beyond 7 doubles
# go in chains cut where both groups' datatypes end (intercoll_big.c).
rdmach_mpi_test(test_mpi_inter_rs_mixed NP 4 TEST test_mpi_inter_rs_mixed_chained TIMEOUT 60)
set_tests_properties(test_mpi_inter_rs_mixed_chained PROPERTIES ENVIRONMENT "RDMACH_INTER_RS_CHUNK=7")
