# Start-up and exit drills (included by tests/drills/CMakeLists.txt): exit
# codes through both launchers, rdmachrun as pid 1.
find_program(MPIEXEC_MPICH mpiexec.mpich REQUIRED)
rdmach_program(drills_exit ${CMAKE_CURRENT_LIST_DIR}/drills_exit.c)
set(DRILLS_RUN $<TARGET_FILE:rdmachrun>)
set(DRILLS_EXIT $<TARGET_FILE:drills_exit>)
set(DRILLS_EXPECT bash ${CMAKE_SOURCE_DIR}/tests/tools/expect.sh)

# drills_test(<name> [ENV var=value...] COMMAND ...)
function(drills_test name)
  cmake_parse_arguments(T "" "" "ENV;COMMAND" ${ARGN})
  add_test(NAME ${name} COMMAND ${T_COMMAND})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS "drills" SKIP_RETURN_CODE 77)
  if(T_ENV)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${T_ENV}")
  endif()
endfunction()

drills_test(drills_pid1 COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/drills_pid1.sh ${DRILLS_RUN} ${DRILLS_EXIT})

# Exit codes (drills_exit.c), under both launchers, over shared memory and
# over the network channel (RDMACH_VNODE_SIZE=1: every pair a tcp pair):
#  ret   rank 1 returns 5 from main after MPI_Finalize: the job's code is 5,
#        the other ranks finish (rank 0 prints that it leaves with 0)
#  exit  rank 2 calls exit(4) after MPI_Finalize: 4
#  all   every rank returns 3 after MPI_Finalize: 3
#  early rank 1 calls exit(3) before MPI_Finalize while the others are in
#        theirs: 3, within 10 s (`timeout 10` would make it 124). Without
#        the exit hook (src/boot/boot.c) Hydra exits with 9 (it kills the
#        others and ORs every rank's wait status).
#  abort rank 1 calls MPI_Abort(MPI_COMM_WORLD, 6), or 0, while the others
#        wait in MPI_Barrier: the job ends with 6, or 0 (as Hydra and Open
#        MPI's mpirun: 0 is what the program asked for), within 10 s.
set(DRILLS_HYDRA ${MPIEXEC_MPICH})
foreach(net shm vnode1)
  if(net STREQUAL "vnode1")
    set(env RDMACH_VNODE_SIZE=1)
  else()
    set(env RDMACH_VNODE_SIZE=0)
  endif()
  foreach(launcher rdmachrun hydra)
    if(launcher STREQUAL "hydra")
      set(L ${DRILLS_HYDRA})
    else()
      set(L ${DRILLS_RUN})
    endif()
    set(t drills_exit_${launcher}_${net})
    drills_test(${t}_ret ENV ${env} COMMAND ${DRILLS_EXPECT} 5
      "^drills_exit: rank 1 leaves with 5$" "^drills_exit: rank 0 leaves with 0$"
      -- timeout 30 ${L} -n 4 ${DRILLS_EXIT} ret=1:5)
    drills_test(${t}_exit ENV ${env} COMMAND ${DRILLS_EXPECT} 4
      "^drills_exit: rank 2 leaves with 4$" "^drills_exit: rank 3 leaves with 0$"
      -- timeout 30 ${L} -n 4 ${DRILLS_EXIT} exit=2:4)
    drills_test(${t}_all ENV ${env} COMMAND ${DRILLS_EXPECT} 3
      "^drills_exit: rank 3 leaves with 3$" -- timeout 30 ${L} -n 4 ${DRILLS_EXIT} ret=-1:3)
    # (Hydra may end the job before it forwards the rank's message: only
    # rdmachrun's output is certain)
    if(launcher STREQUAL "hydra")
      set(said)
    else()
      set(said "^rdmachrun: rank 1 \\(pid [0-9]+\\) exited with code 3 before MPI_Finalize$"
               "rank 1 of 4 exits with code 3 before MPI_Finalize: ending the job")
    endif()
    drills_test(${t}_early ENV ${env} COMMAND ${DRILLS_EXPECT} 3 ${said}
      -- timeout 10 ${L} -n 4 ${DRILLS_EXIT} early=1:3)
    foreach(code 6 0)
      if(launcher STREQUAL "hydra")
        set(said)
      else()
        set(said "^rdmachrun: rank 1 \\(pid [0-9]+\\) called abort with exit code ${code}$")
      endif()
      drills_test(${t}_abort${code} ENV ${env} COMMAND ${DRILLS_EXPECT} ${code}
        "^drills_exit: rank 1 aborts with ${code}$" ${said}
        -- timeout 10 ${L} -n 4 ${DRILLS_EXIT} abort=1:${code})
    endforeach()
  endforeach()
endforeach()

# Ranks killed during MPI_Init: the jobs end, and none leaves a /dev/shm
# file once it has been cleaned up (drills_init_kill.sh; 10 runs of 8 ranks per
# launcher here, `drills_init_kill.sh <kind> <launcher> 50 8 drills_exit` by
# hand for the 50-run figure).
drills_test(drills_init_kill_rdmachrun COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/drills_init_kill.sh
  rdmachrun ${DRILLS_RUN} 10 8 ${DRILLS_EXIT})
drills_test(drills_init_kill_hydra COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/drills_init_kill.sh
  hydra ${DRILLS_HYDRA} 10 8 ${DRILLS_EXIT})

# rdmachrun's verdict names the rank that was killed, not the survivor that
# aborted first (20 jobs each): killed in MPI_Barrier, or right after its
# MPI_Init while others may still be in theirs.
drills_test(drills_exit_verdict COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/drills_exit_verdict.sh
  ${DRILLS_RUN} ${DRILLS_EXIT} 20 kill)
drills_test(drills_exit_verdict_init COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/drills_exit_verdict.sh
  ${DRILLS_RUN} ${DRILLS_EXIT} 20 initkill)
