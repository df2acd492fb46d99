# Connect, traffic, disconnect, three times over, between two jobs started
# one after the other (dyn_pair.sh), over the network channel (a tcp pair
# for every two ranks, RDMACH_VNODE_SIZE=1): MPI_Comm_disconnect releases
# the connections no communicator names any more, and only those
# (test_mpi_dyn_reconnect.c). Across two cluster hosts: tests/cluster.
rdmach_program(test_mpi_dyn_reconnect test_mpi_dyn_reconnect.c)
add_test(NAME test_mpi_dyn_reconnect_net
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/dyn_pair.sh $<TARGET_FILE:test_mpi_dyn_reconnect> ${RDMACH_RUN})
set_tests_properties(test_mpi_dyn_reconnect_net PROPERTIES TIMEOUT 60 LABELS "mp"
                     ENVIRONMENT "RDMACH_VNODE_SIZE=1"
                     PASS_REGULAR_EXPRESSION "dyn reconnect client: ok"
                     FAIL_REGULAR_EXPRESSION "connection (lost|failed)|has failed|check failed")
