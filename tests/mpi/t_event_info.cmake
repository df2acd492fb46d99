# The MPI_T event calls no other test made (issue 24's audit): event copy
# against element reads, the handle's and callback's info, the dropped
# handler, and each on a freed registration.
rdmach_mpi_test(test_mpi_t_event_info NP 2 TIMEOUT 60)
rdmach_mpi_test(test_mpi_t_event_info NP 2 TEST test_mpi_t_event_info_net TIMEOUT 60)
set_tests_properties(test_mpi_t_event_info_net PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
