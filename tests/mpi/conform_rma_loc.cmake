# MAXLOC/MINLOC one-sided accumulates on every C pair type (MPI_SHORT_INT's
# padding included), accumulates of empty datatypes, and the name a failing
# fence reports (issue 20).
include(${CMAKE_CURRENT_LIST_DIR}/conform_launch.cmake.inc)

foreach(np 1 2 3 4 8)
  conf_test(test_conf_rma_loc ${np} "")
endforeach()
foreach(np 2 4)
  conf_test(test_conf_rma_loc ${np} _tcp ENV RDMACH_VNODE_SIZE=1)
endforeach()
foreach(path rdma am)
  conf_test(test_conf_rma_loc 3 _${path} ENV RDMACH_RMA_PATH=${path})
endforeach()
conf_test(test_conf_rma_loc 3 _hydra HYDRA)

# A fence one of whose members has left fails, and says MPI_Win_fence (the
# barrier inside it is not the user's MPI_Barrier).
add_test(NAME test_conf_rma_loc_fence_dead
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh "MPI_Win_fence: "
                 ${RDMACH_RUN} -n 2 $<TARGET_FILE:test_conf_rma_loc> fence_dead)
set_tests_properties(test_conf_rma_loc_fence_dead PROPERTIES TIMEOUT 60 LABELS "mp")
