# Put, get and accumulate of a contiguous origin buffer to derived target
# datatypes (vectors of 1, 1021 and 5001 ints, a struct, an aperiodic indexed
# map; odd sizes) in MPI_Win_create memory, in fence, PSCW and lock_all
# epochs with MPI_Win_flush_local (included by tests/mpi/CMakeLists.txt):
# over shared memory (V packets, channel put/get), the AM path, and tcp
# between pretend nodes.
rdmach_mpi_test(test_rma_dtype_epochs NP 2 TIMEOUT 60 ARGS 100003)
rdmach_mpi_test(test_rma_dtype_epochs NP 3 TEST test_rma_dtype_epochs_np3_am TIMEOUT 60 ARGS 60001)
set_tests_properties(test_rma_dtype_epochs_np3_am PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=am")
rdmach_mpi_test(test_rma_dtype_epochs NP 2 TEST test_rma_dtype_epochs_np2_tcp TIMEOUT 60 ARGS 100003)
set_tests_properties(test_rma_dtype_epochs_np2_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
rdmach_mpi_test(test_rma_dtype_epochs NP 3 TEST test_rma_dtype_epochs_np3_tcp TIMEOUT 60 ARGS 60001)
set_tests_properties(test_rma_dtype_epochs_np3_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
