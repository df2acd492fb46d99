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
