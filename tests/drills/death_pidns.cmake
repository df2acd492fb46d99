# Death across PID namespaces: the ranks of one node share /dev/shm but one
# runs in a PID namespace of its own (unshare --pid --fork --mount-proc in
# its command of an MPMD job, as a container runtime puts each rank), so the
# pid a peer published names nobody, or another process, in the other's
# namespace. The victim (rank 1) dies while rank 0 waits for it in each way
# a program waits; rank 0 must get MPI_ERR_PROC_ABORTED naming rank 1 within
# seconds (drills_death.c, check_death.sh), found by the life line of the
# victim's shm segment (src/rdma/shm/shm_proto.h, shm_live.c). victim_inside:
# the victim in the new namespace, its unshare in a session of its own (the
# survivor also hears Hydra's SIGUSR1);
# survivor_inside: the survivor, in its own session too (no SIGUSR1: its
# periodic liveness check must find the death), which cannot see the
# victim's pid at all. A stop (SIGSTOP) is not covered: no
# kernel here tells it across namespaces.
foreach(who victim survivor)
  foreach(die kill exit)
    foreach(wait recv test mt barrier wait)
      if(who STREQUAL "survivor" AND NOT wait STREQUAL "recv")
        continue()
      endif()
      set(plain $<TARGET_FILE:drills_keep> $<TARGET_FILE:drills_death> ${wait} ${die})
      set(ns unshare --pid --fork --mount-proc $<TARGET_FILE:drills_death> ${wait} ${die})
      if(who STREQUAL "victim")
        # unshare in a session of its own: Hydra's SIGUSR1 to the victim's
        # process group, sent when the victim dies, would otherwise end
        # unshare (no handler) before it reports its child's death
        set(cmds -n 1 ${plain} : -n 1 $<TARGET_FILE:drills_keep> setsid ${ns})
      else()
        # in a session of its own, as a container runtime starts it: Hydra's
        # SIGUSR1 to the rank's process group would end unshare (no handler),
        # and the survivor must find the death by itself
        set(cmds -n 1 $<TARGET_FILE:drills_keep> setsid ${ns} : -n 1 ${plain})
      endif()
      set(t drills_death_pidns_${who}_inside_${die}_${wait})
      add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_death_pidns.sh --
                                 ${DRILLS_MPIEXEC_MPICH} -disable-auto-cleanup ${cmds})
      set_tests_properties(${t} PROPERTIES TIMEOUT 60 LABELS "mp;drills" SKIP_RETURN_CODE 77
                           ENVIRONMENT "RDMACH_VNODE_SIZE=0")
    endforeach()
  endforeach()
endforeach()
