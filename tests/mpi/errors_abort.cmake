# MPI_ERRORS_ABORT on a communicator ends that communicator's processes only
# (src/mpi/err_abort.c, rdmachrun's partial abort): rdmachrun reports the
# abort of ranks 2 and 3 and exits with its code, and rank 0 checks that
# rank 2 is gone and that it and rank 1 still compute. Over shared memory
# and over tcp.
if(NOT TARGET test_mpi_errors_abort)
  rdmach_program(test_mpi_errors_abort test_mpi_errors_abort.c)
endif()
foreach(v "" _net)
  add_test(NAME test_mpi_errors_abort${v}
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/tools/expect.sh 1
                   "^rdmachrun: rank 2 \\(pid [0-9]+\\) aborted ranks 2,3 with exit code 1"
                   "^errors_abort: ranks 0 and 1 continued after rank 2 was gone \\(sum 3\\)$"
                   -- ${RDMACH_RUN} -n 4 $<TARGET_FILE:test_mpi_errors_abort>)
  set_tests_properties(test_mpi_errors_abort${v} PROPERTIES TIMEOUT 60 LABELS "mp")
endforeach()
set_tests_properties(test_mpi_errors_abort_net PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
