# Departures are no failures (included by tests/drills/CMakeLists.txt): ranks
# that finish MPI_Finalize and exit while rank 0 still polls (drills_depart.c)
# must not be reported as failed or dead by anyone. Over shared memory with 8
# ranks and 32 (more ranks than cores: exits spread out while others are
# descheduled), and over tcp (RDMACH_VNODE_SIZE=1: the device's own pid
# watch, src/device/live.c, and the network channel's goodbye).
rdmach_program(drills_depart ${CMAKE_CURRENT_LIST_DIR}/drills_depart.c)
foreach(cell shm_np8 shm_np32 tcp_np8)
  string(REGEX REPLACE ".*_np" "" np ${cell})
  if(cell MATCHES "^tcp")
    set(env RDMACH_VNODE_SIZE=1)
  else()
    set(env RDMACH_VNODE_SIZE=0)
  endif()
  add_test(NAME drills_depart_${cell}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/drills_depart.sh $<TARGET_FILE:rdmachrun>
                   $<TARGET_FILE:drills_depart> ${np})
  set_tests_properties(drills_depart_${cell} PROPERTIES TIMEOUT 60 LABELS "drills" ENVIRONMENT "${env}")
endforeach()
