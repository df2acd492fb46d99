# Departures are no failures (included by tests/drills/CMakeLists.txt): ranks
# that finish MPI_Finalize and exit while rank 0 still polls (drills_depart.c)
# must not be reported as failed or dead by anyone. 8 ranks, and 32 (more
# ranks than cores: exits spread out while others are descheduled).
rdmach_program(drills_depart ${CMAKE_CURRENT_LIST_DIR}/drills_depart.c)
foreach(np 8 32)
  add_test(NAME drills_depart_shm_np${np}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/drills_depart.sh $<TARGET_FILE:rdmachrun>
                   $<TARGET_FILE:drills_depart> ${np})
  set_tests_properties(drills_depart_shm_np${np} PROPERTIES TIMEOUT 60 LABELS "drills"
                       ENVIRONMENT "RDMACH_VNODE_SIZE=0")
endforeach()
