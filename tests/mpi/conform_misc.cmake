# Environment, info, error handlers and error codes by the letter of the MPI
# standard (issue 20): every predefined error class, MPI_Add_error_*, error
# handlers on communicators and windows, MPI_INFO_ENV and info edge cases,
# version/processor name/clock/thread/memory inquiries, addresses. 1-8 ranks
# on shared memory, 2-4 over tcp (RDMACH_VNODE_SIZE=1), under Hydra; and
# MPI_Abort's errorcode as the launcher's exit status under both launchers.
include(${CMAKE_CURRENT_LIST_DIR}/conform_launch.cmake.inc)

foreach(np 1 2 3 4 8)
  conf_test(test_conf_misc ${np} "" ARGS first "second arg")
endforeach()
foreach(np 2 4)
  conf_test(test_conf_misc ${np} _tcp ENV RDMACH_VNODE_SIZE=1)
endforeach()
conf_test(test_conf_misc 3 _hydra HYDRA ARGS one two)
# As a singleton (no launcher).
add_test(NAME test_conf_misc_singleton COMMAND test_conf_misc)
set_tests_properties(test_conf_misc_singleton PROPERTIES TIMEOUT 60 LABELS "mp")

# MPI_Abort(MPI_COMM_WORLD, 7) on the last rank while the others wait: the
# job ends with exit status 7.
add_test(NAME test_conf_misc_abort_code
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh 7
                 ${RDMACH_RUN} -n 3 $<TARGET_FILE:test_conf_misc> abort 7)
set_tests_properties(test_conf_misc_abort_code PROPERTIES TIMEOUT 60 LABELS "mp")
if(RDMACH_CONF_HYDRA)
  add_test(NAME test_conf_misc_abort_code_hydra
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_exit.sh 7
                   ${RDMACH_CONF_HYDRA} -n 3 $<TARGET_FILE:test_conf_misc> abort 7)
  set_tests_properties(test_conf_misc_abort_code_hydra PROPERTIES TIMEOUT 60 LABELS "mp")
endif()
