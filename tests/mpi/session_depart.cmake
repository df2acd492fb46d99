# Ends of a process that are no collective of the job (included by
# tests/mpi/CMakeLists.txt): src/mpi/init.c, exit_teardown; sessions after
# MPI_Finalize; a normal end of a never-connected peer over tcp
# (src/device/live.c). tests/mpi/test_mpi_session_depart.c says what each
# mode checks. Over shared memory, tcp (RDMACH_VNODE_SIZE=1: every pair a
# tcp pair), rdmachrun and Hydra.
find_program(DEPART_MPIEXEC_MPICH mpiexec.mpich)
set(depart_bad "failed or disconnected|is gone|has failed|check failed|without calling MPI_Finalize")

# depart_test(<name> <np> <vnode size, 0: one node> <args...>): under
# rdmachrun as <name>, under Hydra as <name>_hydra.
function(depart_test name np vnode)
  rdmach_mpi_test(test_mpi_session_depart NP ${np} TEST ${name} TIMEOUT 60 ARGS ${ARGN})
  set(tests ${name})
  if(DEPART_MPIEXEC_MPICH)
    add_test(NAME ${name}_hydra COMMAND ${DEPART_MPIEXEC_MPICH} -n ${np} $<TARGET_FILE:test_mpi_session_depart> ${ARGN})
    list(APPEND tests ${name}_hydra)
  endif()
  set_tests_properties(${tests} PROPERTIES TIMEOUT 60 LABELS "mp" FAIL_REGULAR_EXPRESSION "${depart_bad}"
                       ENVIRONMENT "RDMACH_VNODE_SIZE=${vnode}")
endfunction()

foreach(np 1 2 4)
  depart_test(test_mpi_session_depart_chain_np${np} ${np} 0 chain fin)
endforeach()
depart_test(test_mpi_session_depart_chain_nofin 3 0 chain nofin)
depart_test(test_mpi_session_depart_pairs 4 0 pairs)
depart_test(test_mpi_session_depart_chain_net 4 1 chain fin)
depart_test(test_mpi_session_depart_chain_nofin_net 3 1 chain nofin)
depart_test(test_mpi_session_depart_pairs_net 4 1 pairs)

# A rank that exits with code 3, its session open, ends the job promptly
# with that code (the boot layer's exit hook), while rank 0 still waits.
foreach(vnode 0 1)
  add_test(NAME test_mpi_session_depart_code_v${vnode}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh 3 ${RDMACH_RUN} -n 3
                   $<TARGET_FILE:test_mpi_session_depart> code)
  set_tests_properties(test_mpi_session_depart_code_v${vnode} PROPERTIES TIMEOUT 60 LABELS "mp"
                       ENVIRONMENT "RDMACH_VNODE_SIZE=${vnode}")
endforeach()
if(DEPART_MPIEXEC_MPICH)
  add_test(NAME test_mpi_session_depart_code_hydra
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh 3 ${DEPART_MPIEXEC_MPICH} -n 3
                   $<TARGET_FILE:test_mpi_session_depart> code)
  set_tests_properties(test_mpi_session_depart_code_hydra PROPERTIES TIMEOUT 60 LABELS "mp")
endif()

# The other way: a rank that talked with nobody and ended without closing
# its device (_exit) is a failure to the ranks that wait for any source.
# rdmachrun lets the job go on (it only warns of a rank that exits 0 without
# PMI finalize); Hydra does with -disable-auto-cleanup.
foreach(vnode 0 1)
  rdmach_mpi_test(test_mpi_session_depart NP 3 TEST test_mpi_session_depart_crash_v${vnode} TIMEOUT 60 ARGS crash)
  set(tests test_mpi_session_depart_crash_v${vnode})
  if(DEPART_MPIEXEC_MPICH)
    add_test(NAME test_mpi_session_depart_crash_v${vnode}_hydra
             COMMAND ${DEPART_MPIEXEC_MPICH} -disable-auto-cleanup -n 3 $<TARGET_FILE:test_mpi_session_depart> crash)
    list(APPEND tests test_mpi_session_depart_crash_v${vnode}_hydra)
  endif()
  set_tests_properties(${tests} PROPERTIES TIMEOUT 60 LABELS "mp" ENVIRONMENT "RDMACH_VNODE_SIZE=${vnode}"
                       FAIL_REGULAR_EXPRESSION "check failed"
                       PASS_REGULAR_EXPRESSION "session depart crash: rank 0: PASS")
endforeach()
