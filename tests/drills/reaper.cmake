# The /dev/shm reaper under Hydra (issue 21): a job's file under its
# /dev/shm prefix is removed once the job's ranks on the host have all ended,
# killed or not (drills_reaper.sh), over shared memory and with pretend
# nodes (RDMACH_VNODE_SIZE=2, 4 ranks: rank 0 watches every rank of the host).
rdmach_program(drills_reaper ${CMAKE_CURRENT_LIST_DIR}/drills_reaper.c)
foreach(mode kill exit)
  drills_test(drills_reaper_${mode} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/drills_reaper.sh
    ${MPIEXEC_MPICH} $<TARGET_FILE:drills_reaper> ${mode} 3)
  drills_test(drills_reaper_${mode}_vnode2 ENV RDMACH_VNODE_SIZE=2 COMMAND bash
    ${CMAKE_CURRENT_LIST_DIR}/drills_reaper.sh ${MPIEXEC_MPICH} $<TARGET_FILE:drills_reaper> ${mode} 4)
endforeach()
# A reaper whose starting rank died before registering leaves after
# RDMACH_SHM_REAPER_IDLE_MS instead of waiting for ever.
drills_test(drills_reaper_unregistered COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/drills_reaper_unregistered.sh
  ${MPIEXEC_MPICH} $<TARGET_FILE:drills_reaper>)
