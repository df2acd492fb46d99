# Passive-target fetch-and-op + flush from several origins to one target
# that waits in a barrier (included by tests/mpi/CMakeLists.txt): shared
# memory, and across pretend nodes where every flush is a tcp round trip
# through the target's wait (the case whose wakeups were lost).
rdmach_mpi_test(test_rma_fop_flush NP 3 TEST test_rma_fop_flush_np3 TIMEOUT 60 ARGS 1000)
rdmach_mpi_test(test_rma_fop_flush NP 3 TEST test_rma_fop_flush_np3_tcp TIMEOUT 60 ARGS 1000)
set_tests_properties(test_rma_fop_flush_np3_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
