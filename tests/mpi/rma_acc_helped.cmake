# A large accumulate to a same-node MPI_Win_create window whose single copy
# the target helped with keeps later accumulates on single copy (rma_ops.c
# rw_now); values checked on every path (shared memory, packets, tcp).
rdmach_mpi_test(test_rma_acc_helped NP 2 TIMEOUT 60)
rdmach_mpi_test(test_rma_acc_helped NP 2 TEST test_rma_acc_helped_am TIMEOUT 60)
set_tests_properties(test_rma_acc_helped_am PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=am")
rdmach_mpi_test(test_rma_acc_helped NP 2 TEST test_rma_acc_helped_tcp TIMEOUT 60)
set_tests_properties(test_rma_acc_helped_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
