# Groups, communicators from groups, topologies, info objects and
# Alloc_mem (included by tests/mpi/CMakeLists.txt).
rdmach_mpi_test(test_mpi_group NP 4 TEST test_mpi_group_np4 TIMEOUT 120)
rdmach_mpi_test(test_mpi_group NP 5 TEST test_mpi_group_np5 TIMEOUT 120)
rdmach_mpi_test(test_mpi_topo NP 4 TEST test_mpi_topo_np4 TIMEOUT 120)
rdmach_mpi_test(test_mpi_topo NP 6 TEST test_mpi_topo_np6 TIMEOUT 120)
rdmach_mpi_test(test_mpi_info NP 2 TIMEOUT 60)
# Processor names and MPI_COMM_TYPE_SHARED agree on pretend nodes; the ranks
# of different pretend nodes talk over the network channel, so this needs
# one in the device (the same check as tests/mpi/alltoall.cmake).
file(READ ${CMAKE_SOURCE_DIR}/src/device/select.c rdmach_h10_select_text)
string(FIND "${rdmach_h10_select_text}" "rch_rdma_select" rdmach_h10_net)
if(rdmach_h10_net GREATER -1)
  rdmach_mpi_test(test_mpi_nodes NP 5 TEST test_mpi_nodes_vnode2 TIMEOUT 60)
  set_tests_properties(test_mpi_nodes_vnode2 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=2")
else()
  message(STATUS "tests/mpi/coverage.cmake: no network channel in the device yet: test_mpi_nodes is not registered")
endif()
