# The _c forms no other test called (issue 24's audit), results checked
# against the MPI-4.1 definitions (counts within an int: the conversion of
# the generated wrappers' counts beyond it is bigcount's and large_nb's).
foreach(np 1 2 3 4)
  rdmach_mpi_test(test_mpi_large_forms NP ${np} TEST test_mpi_large_forms_np${np} TIMEOUT 60)
endforeach()
rdmach_mpi_test(test_mpi_large_forms NP 3 TEST test_mpi_large_forms_net_np3 TIMEOUT 60)
set_tests_properties(test_mpi_large_forms_net_np3 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
