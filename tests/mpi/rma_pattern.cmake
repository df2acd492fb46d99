# Puts and accumulates to derived target datatypes whose blocks repeat (a
# struct's, an indexed type's period), in MPI_Win_create memory: the PUTP /
# ACCP packets of src/device/rma_pat.c, over shared memory, the AM path and
# tcp between pretend nodes (included by tests/mpi/CMakeLists.txt).
rdmach_mpi_test(test_rma_pattern NP 2 TIMEOUT 60)
rdmach_mpi_test(test_rma_pattern NP 3 TEST test_rma_pattern_np3 TIMEOUT 60)
rdmach_mpi_test(test_rma_pattern NP 3 TEST test_rma_pattern_np3_am TIMEOUT 60)
set_tests_properties(test_rma_pattern_np3_am PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=am")
rdmach_mpi_test(test_rma_pattern NP 3 TEST test_rma_pattern_np3_tcp TIMEOUT 60)
set_tests_properties(test_rma_pattern_np3_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
