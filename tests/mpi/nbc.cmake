# Non-blocking collectives against their blocking forms, all outstanding at
# once among blocking ones, communicator sizes 1..9 (included by
# tests/mpi/CMakeLists.txt).
foreach(np 1 2 3 4 5 6 7 8 9)
  rdmach_mpi_test(test_mpi_nbc NP ${np} TEST test_mpi_nbc_np${np} TIMEOUT 300 ARGS 4)
endforeach()
# The same over pretend nodes, so the blocking references take the
# node-aware algorithms and the hierarchical barrier.
rdmach_mpi_test(test_mpi_nbc NP 7 TEST test_mpi_nbc_np7_cvnode3 TIMEOUT 300 ARGS 2)
set_tests_properties(test_mpi_nbc_np7_cvnode3 PROPERTIES ENVIRONMENT "RDMACH_COLL_VNODE_SIZE=3")
