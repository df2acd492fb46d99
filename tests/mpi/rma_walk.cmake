# A regular target datatype with a different first and last block, and a
# struct put and accumulated, to Win_create memory, whose walk sends the
# equal blocks, and each block of the struct, as one segment
# (src/mpi/win_ops.c): over shared memory (V packets), the RMA and AM paths,
# and tcp between pretend nodes.
rdmach_mpi_test(test_rma_walk_regular NP 2 TIMEOUT 60)
rdmach_mpi_test(test_rma_walk_regular NP 3 TEST test_rma_walk_regular_np3_am TIMEOUT 60)
set_tests_properties(test_rma_walk_regular_np3_am PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=am")
rdmach_mpi_test(test_rma_walk_regular NP 3 TEST test_rma_walk_regular_np3_rdma TIMEOUT 60)
set_tests_properties(test_rma_walk_regular_np3_rdma PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=rdma")
rdmach_mpi_test(test_rma_walk_regular NP 2 TEST test_rma_walk_regular_np2_tcp TIMEOUT 60)
set_tests_properties(test_rma_walk_regular_np2_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
# An accumulate of more than 16 MiB (4.5 M ints, every other int) to a
# regular map in Win_allocate memory goes through the walk and the device's
# 4 KiB gathers rather than one buffer of it all (win_ops.c, typed_direct).
rdmach_mpi_test(test_conf_rma_dtype NP 2 TEST test_conf_rma_dtype_np2_large_acc TIMEOUT 60
                ARGS 4500000 1 allocate)
