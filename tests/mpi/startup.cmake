# Start-up (issue 26; included by tests/mpi/CMakeLists.txt).

# The optional libraries (libfabric, libibverbs, librdmacm, libpmix) are
# opened only when the job uses them: not at all when every peer is on the
# node; the network channel's when every pair is a network pair.
rdmach_mpi_test(test_mpi_libs_loaded NP 3 TEST test_mpi_libs_loaded_local TIMEOUT 60 ARGS local)
rdmach_mpi_test(test_mpi_libs_loaded NP 2 TEST test_mpi_libs_loaded_net TIMEOUT 60 ARGS net)
set_tests_properties(test_mpi_libs_loaded_net PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
