# The death matrix: the last of 2 ranks (3 in the _np3 cells) dies (SIGKILL, _exit without
# MPI_Finalize, SIGSTOP: a hang) while rank 0 is blocked waiting for it in
# each way a program waits (drills_death.c: blocking, polling with MPI_Test,
# at MPI_THREAD_MULTIPLE), over shared memory and over tcp
# (RDMACH_VNODE_SIZE=1). Rank 0 must get MPI_ERR_PROC_ABORTED naming rank 1
# within 10 s (the target is 2 s: the test prints the time it measured).
#
# Under Hydra with -disable-auto-cleanup: its proxy sends the other ranks
# SIGUSR1 when a rank's PMI socket closes before finalize, which kills a
# process that has no handler for it (src/base/proc.c). Hydra still SIGKILLs
# them when the rank it started dies by a signal, so each rank runs under
# drills_keep, which outlives it (see there).
find_program(DRILLS_MPIEXEC_MPICH mpiexec.mpich REQUIRED)
rdmach_program(drills_death drills_death.c)
add_executable(drills_keep drills_keep.c)

foreach(chan shm tcp)
  if(chan STREQUAL "tcp")
    set(env "RDMACH_VNODE_SIZE=1")
  else()
    set(env "RDMACH_VNODE_SIZE=0")
  endif()
  foreach(die kill exit stop)
    foreach(wait recv any wait waitany barrier bcast fence getw test mt probe mprobe anylate)
      set(t drills_death_${chan}_${die}_${wait})
      add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_death.sh --
                                 ${DRILLS_MPIEXEC_MPICH} -disable-auto-cleanup -n 2
                                 $<TARGET_FILE:drills_keep> $<TARGET_FILE:drills_death> ${wait} ${die})
      set_tests_properties(${t} PROPERTIES TIMEOUT 60 LABELS "mp;drills" ENVIRONMENT "${env}")
    endforeach()
  endforeach()
endforeach()

# The program has its own SIGUSR1 handler. RDMACH_SIGUSR1=auto leaves it in
# place: the library hears nothing from the launcher and its own liveness
# checks must find the death of a rank blocked on its futex (issue 21, 1);
# =on chains to it. The program checks that its handler ran.
foreach(mode auto on)
  foreach(die kill exit)
    foreach(chan shm tcp)
      set(t drills_death_${chan}_${die}_recv_usr1_${mode})
      if(chan STREQUAL "tcp")
        set(vnode 1)
      else()
        set(vnode 0)
      endif()
      add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_death.sh --
                                 ${DRILLS_MPIEXEC_MPICH} -disable-auto-cleanup -n 2
                                 $<TARGET_FILE:drills_keep> $<TARGET_FILE:drills_death> recv ${die} usr1)
      set_tests_properties(${t} PROPERTIES TIMEOUT 60 LABELS "mp;drills"
                           ENVIRONMENT "RDMACH_VNODE_SIZE=${vnode};RDMACH_SIGUSR1=${mode}")
    endforeach()
  endforeach()
endforeach()

# MPI_Barrier through the shared-memory barrier backend (flags in a node
# segment, not messages): the survivor waits for the dead rank's flag.
foreach(die kill exit stop)
  set(t drills_death_shm_${die}_barrier_shmflags)
  add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_death.sh --
                             ${DRILLS_MPIEXEC_MPICH} -disable-auto-cleanup -n 2
                             $<TARGET_FILE:drills_keep> $<TARGET_FILE:drills_death> barrier ${die})
  set_tests_properties(${t} PROPERTIES TIMEOUT 60 LABELS "mp;drills" ENVIRONMENT "RDMACH_BARRIER=shm")
endforeach()

# Three ranks on this 2-core machine: oversubscribed, so the device waits
# with its oversubscribed policy (yield, then sleep); both survivors wait.
foreach(die kill stop)
  foreach(wait recv any barrier anylate)
    set(t drills_death_shm_${die}_${wait}_np3)
    add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_death.sh --
                               ${DRILLS_MPIEXEC_MPICH} -disable-auto-cleanup -n 3
                               $<TARGET_FILE:drills_keep> $<TARGET_FILE:drills_death> ${wait} ${die})
    set_tests_properties(${t} PROPERTIES TIMEOUT 60 LABELS "mp;drills")
  endforeach()
endforeach()
