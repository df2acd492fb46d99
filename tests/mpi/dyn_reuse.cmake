# An accept/disconnect loop between two jobs started one after the other
# (dyn_pair.sh) with a table of 8 processes of other jobs (RDMACH_DYN_MAX),
# 40 rounds: detached slots are used again, a stale message of an old
# connection reaches no new one (test_mpi_dyn_reuse.c). Over the network
# channel (a tcp pair for every two ranks, RDMACH_VNODE_SIZE=1) and over the
# sock channel (RDMACH_DYN_NET=0). Across two cluster hosts: tests/cluster.
rdmach_program(test_mpi_dyn_reuse test_mpi_dyn_reuse.c)
foreach(chan net sock)
  if(chan STREQUAL "net")
    set(env "RDMACH_VNODE_SIZE=1;RDMACH_DYN_MAX=8")
  else()
    set(env "RDMACH_DYN_NET=0;RDMACH_DYN_MAX=8")
  endif()
  add_test(NAME test_mpi_dyn_reuse_${chan}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/dyn_pair.sh $<TARGET_FILE:test_mpi_dyn_reuse> ${RDMACH_RUN})
  set_tests_properties(test_mpi_dyn_reuse_${chan} PROPERTIES TIMEOUT 60 LABELS "mp"
                       ENVIRONMENT "${env}"
                       PASS_REGULAR_EXPRESSION "dyn reuse client: ok"
                       FAIL_REGULAR_EXPRESSION "connection (lost|failed)|has failed|check failed")
endforeach()
