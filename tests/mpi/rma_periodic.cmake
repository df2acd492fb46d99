# Put and accumulate with an indexed target type whose blocks repeat with a
# period, cut short at the end, to Win_create memory (included by
# tests/mpi/CMakeLists.txt): the origin moves such a map as one segment per
# column of the period (win_ops.c, column_walk) over shared memory and tcp.
foreach(np 2 3)
  rdmach_mpi_test(test_rma_periodic NP ${np} TEST test_rma_periodic_np${np} TIMEOUT 60 ARGS 65540)
endforeach()
rdmach_mpi_test(test_rma_periodic NP 2 TEST test_rma_periodic_np2_tcp TIMEOUT 60 ARGS 65540)
set_tests_properties(test_rma_periodic_np2_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
