# Requests, statuses, cancel and matched probe by the letter of the MPI
# standard (included by tests/mpi/CMakeLists.txt). Each program checks the
# standard's text (quoted in its header) against values it computes itself;
# over shared memory at 1-8 ranks, over the network channel with every rank
# its own pretend node (tcp: 2-4 ranks), and under Hydra (3 ranks; 2 over tcp).
set(CONF_REQ_TESTS test_conf_cancel test_conf_status test_conf_mprobe)
foreach(prog ${CONF_REQ_TESTS})
  foreach(np 1 2 3 4 5 8)
    if(np EQUAL 1 AND prog STREQUAL "test_conf_cancel")
      continue()   # pairs of ranks
    endif()
    rdmach_mpi_test(${prog} NP ${np} TEST ${prog}_np${np} TIMEOUT 60)
  endforeach()
  foreach(np 2 3 4)
    add_test(NAME ${prog}_tcp_np${np} COMMAND ${RDMACH_RUN} -n ${np} $<TARGET_FILE:${prog}>)
    set_tests_properties(${prog}_tcp_np${np} PROPERTIES TIMEOUT 60 LABELS "net;mp"
                         ENVIRONMENT "RDMACH_VNODE_SIZE=1")
  endforeach()
endforeach()

# Eager zero-copy over tcp: a send cancelled while its packet is written
# from the user's buffer asks once the write is done.
add_test(NAME test_conf_cancel_tcp_zcopy_np2 COMMAND ${RDMACH_RUN} -n 2 $<TARGET_FILE:test_conf_cancel>)
set_tests_properties(test_conf_cancel_tcp_zcopy_np2 PROPERTIES TIMEOUT 60 LABELS "net;mp"
                     ENVIRONMENT "RDMACH_VNODE_SIZE=1;RDMACH_NET_ZCOPY=on;RDMACH_NET_ZCOPY_MIN=1k")

find_program(CONF_REQ_MPIEXEC mpiexec.mpich)
if(CONF_REQ_MPIEXEC)
  foreach(prog ${CONF_REQ_TESTS})
    add_test(NAME ${prog}_hydra_np3 COMMAND ${CONF_REQ_MPIEXEC} -n 3 $<TARGET_FILE:${prog}>)
    set_tests_properties(${prog}_hydra_np3 PROPERTIES TIMEOUT 60 LABELS "mp")
    add_test(NAME ${prog}_hydra_tcp_np2 COMMAND ${CONF_REQ_MPIEXEC} -n 2 $<TARGET_FILE:${prog}>)
    set_tests_properties(${prog}_hydra_tcp_np2 PROPERTIES TIMEOUT 60 LABELS "net;mp"
                         ENVIRONMENT "RDMACH_VNODE_SIZE=1")
  endforeach()
endif()
