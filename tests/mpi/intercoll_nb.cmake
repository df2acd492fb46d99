# Non-blocking and persistent collectives on intercommunicators
# (src/mpi/intercoll_nb.c): the even world ranks against the odd ones; one
# rank checks only the errors that need no intercommunicator.
foreach(np 1 2 3 4 5 6 7 8)
  rdmach_mpi_test(test_mpi_intercoll_nb NP ${np} TEST test_mpi_intercoll_nb_np${np} TIMEOUT 60)
endforeach()
# Every pair of ranks over the network channel (a tcp pair each).
foreach(np 2 3 4 8)
  rdmach_mpi_test(test_mpi_intercoll_nb NP ${np} TEST test_mpi_intercoll_nb_net_np${np} TIMEOUT 60)
  set_tests_properties(test_mpi_intercoll_nb_net_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
