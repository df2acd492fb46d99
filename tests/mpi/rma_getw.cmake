# Gets of vector target datatypes from MPI_Win_create memory, which a target
# on the same node packs and writes into the origin's buffer (GETW,
# src/device/rma_getw.c): chunks ending between and inside blocks, blocks
# longer than a chunk, count > 1; over shared memory, and for the values the
# AM path and tcp between pretend nodes (included by tests/mpi/CMakeLists.txt).
rdmach_mpi_test(test_rma_getw NP 2 TIMEOUT 60)
rdmach_mpi_test(test_rma_getw NP 3 TEST test_rma_getw_np3 TIMEOUT 60)
rdmach_mpi_test(test_rma_getw NP 2 TEST test_rma_getw_am TIMEOUT 60)
set_tests_properties(test_rma_getw_am PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=am")
rdmach_mpi_test(test_rma_getw NP 2 TEST test_rma_getw_tcp TIMEOUT 60)
set_tests_properties(test_rma_getw_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
# The target may not write the origin by single copy (every process_vm_writev
# refused) and writes chunks of its own (RMA_GETW_FILL=off): the chunks go by
# the channel's pipeline, later gets by GETV.
rdmach_mpi_test(test_rma_getw_refused NP 2 TIMEOUT 60)
set_tests_properties(test_rma_getw_refused PROPERTIES ENVIRONMENT "RDMACH_CMA_REFUSE_WRITE=on;RDMACH_RMA_GETW_FILL=off")
