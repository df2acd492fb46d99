# MPI_ERRORS_ABORT ends the processes of the object it is raised on only
# (src/mpi/err_abort.c, rdmachrun's partial abort): rdmachrun reports the
# abort of ranks 2 and 3 (a communicator, a window of it) or of rank 2
# alone (a session) and exits with its code, and rank 0 checks that rank 2
# is gone and that it and rank 1 still compute. Over shared memory and, for
# the communicator, over tcp.
if(NOT TARGET test_mpi_errors_abort)
  rdmach_program(test_mpi_errors_abort test_mpi_errors_abort.c)
endif()
foreach(v comm comm_net win session)
  string(REGEX REPLACE "_net$" "" mode ${v})
  set(ranks "2,3")
  if(mode STREQUAL "session")
    set(ranks "2")
  endif()
  add_test(NAME test_mpi_errors_abort_${v}
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/tools/expect.sh 1
                   "^rdmachrun: rank 2 \\(pid [0-9]+\\) aborted ranks ${ranks} with exit code 1"
                   "^errors_abort: ranks 0 and 1 continued after rank 2 was gone \\(sum 3\\)$"
                   -- ${RDMACH_RUN} -n 4 $<TARGET_FILE:test_mpi_errors_abort> ${mode})
  set_tests_properties(test_mpi_errors_abort_${v} PROPERTIES TIMEOUT 60 LABELS "mp")
endforeach()
set_tests_properties(test_mpi_errors_abort_comm_net PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
# Under PMIx (Open MPI's mpirun.openmpi the server) the ranks go to the
# server as PMIx_Abort's proc array; Open MPI 4.1's mpirun ends the whole
# job all the same (docs/ARCHITECTURE.md, "MPI_ERRORS_ABORT"), so only the
# request and the exit code are asserted.
find_program(ERRORS_ABORT_MPIRUN_OPENMPI mpirun.openmpi)
if(RDMACH_HAVE_PMIX AND ERRORS_ABORT_MPIRUN_OPENMPI)
  add_test(NAME test_mpi_errors_abort_openmpi_pmix
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/tools/expect.sh 1
                   "rank 2 of 4 aborts ranks 2,3 with exit code 1"
                   -- ${CMAKE_SOURCE_DIR}/tests/boot/ompi_watch.sh ${ERRORS_ABORT_MPIRUN_OPENMPI} --oversubscribe
                   -np 4 $<TARGET_FILE:test_mpi_errors_abort> comm)
  set_tests_properties(test_mpi_errors_abort_openmpi_pmix PROPERTIES TIMEOUT 60 LABELS "mp"
                       ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endif()
