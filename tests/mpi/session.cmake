# MPI sessions and the small MPI-4.0/4.1 additions (included by
# tests/mpi/CMakeLists.txt). src/mpi/session.c, mpi4_misc.c.

# Sessions alone (no MPI_Init): psets and their sizes, communicators from
# them, error handlers, two sessions at once, a second Session_init after
# all were finalized. ARGS: np, the size of mpix://SHARED.
foreach(np 1 2 3 4)
  rdmach_mpi_test(test_mpi_session NP ${np} TEST test_mpi_session_np${np} TIMEOUT 60 ARGS ${np} ${np})
endforeach()
# One pretend node per rank: mpix://SHARED is the caller alone, and the
# communicators run over the network channel.
rdmach_mpi_test(test_mpi_session NP 3 TEST test_mpi_session_vnode1 TIMEOUT 60 ARGS 3 1)
set_tests_properties(test_mpi_session_vnode1 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")

# A child forked after the last Session_finalize exits normally before its
# parent: the device's closing exchange at exit is the parent's alone.
rdmach_mpi_test(test_mpi_session NP 2 TEST test_mpi_session_fork_child TIMEOUT 60 ARGS 2 2 fork)

# Sessions beside the world model, and after MPI_Finalize.
foreach(np 1 3 4)
  rdmach_mpi_test(test_mpi_session_mixed NP ${np} TEST test_mpi_session_mixed_np${np} TIMEOUT 60)
endforeach()
rdmach_mpi_test(test_mpi_session_mixed NP 3 TEST test_mpi_session_mixed_vnode1 TIMEOUT 60)
set_tests_properties(test_mpi_session_mixed_vnode1 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")

# Remove_error_*, Status_get/set_*, Info_get_string, Info_create_env,
# Type_get_value_index, Comm_idup_with_info, Get_hw_resource_info.
rdmach_mpi_test(test_mpi_mpi4_misc NP 2 TIMEOUT 60)

# The device outlives the last MPI_Session_finalize and is closed at exit
# (init.c, exit_teardown): without that close, rdmachrun warns that the
# ranks exited without PMI finalize.
set_tests_properties(test_mpi_session_np1 test_mpi_session_np2 test_mpi_session_np3 test_mpi_session_np4
                     test_mpi_session_vnode1 test_mpi_session_fork_child test_mpi_session_mixed_np1 test_mpi_session_mixed_np3
                     test_mpi_session_mixed_np4 test_mpi_session_mixed_vnode1
                     PROPERTIES FAIL_REGULAR_EXPRESSION "without calling MPI_Finalize")

# Buffers attached to communicators and sessions, MPI_BUFFER_AUTOMATIC, the flushes.
rdmach_mpi_test(test_mpi_bsend_attach NP 2 TIMEOUT 60)

# MPI_Session_init after an MPI_Finalize that ran with no session open
# (init.c: the device stays open, idle, until exit): rdmachrun, tcp, Hydra.
foreach(np 1 2 4)
  rdmach_mpi_test(test_mpi_session_reinit NP ${np} TEST test_mpi_session_reinit_np${np} TIMEOUT 60)
endforeach()
rdmach_mpi_test(test_mpi_session_reinit NP 3 TEST test_mpi_session_reinit_net TIMEOUT 60)
set_tests_properties(test_mpi_session_reinit_net PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
find_program(SESSION_MPIEXEC_MPICH mpiexec.mpich)
if(SESSION_MPIEXEC_MPICH)
  add_test(NAME test_mpi_session_reinit_hydra COMMAND ${SESSION_MPIEXEC_MPICH} -n 3 $<TARGET_FILE:test_mpi_session_reinit>)
  set_tests_properties(test_mpi_session_reinit_hydra PROPERTIES TIMEOUT 60 LABELS "mp")
endif()
set_tests_properties(test_mpi_session_reinit_np1 test_mpi_session_reinit_np2 test_mpi_session_reinit_np4
                     test_mpi_session_reinit_net PROPERTIES FAIL_REGULAR_EXPRESSION "without calling MPI_Finalize")
