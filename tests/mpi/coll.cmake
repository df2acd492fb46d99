# Collectives and MPI_Op (included by tests/mpi/CMakeLists.txt).

# test_mpi_coll: every collective against a naive reference, every algorithm
# forced in turn, on world and a split sub-communicator; communicator sizes
# 1..9 (non-powers of two included; above 2 they oversubscribe this machine).
foreach(np 1 2 3 4 5 6 7 8 9)
  rdmach_mpi_test(test_mpi_coll NP ${np} TEST test_mpi_coll_np${np} TIMEOUT 300 ARGS 3)
endforeach()

# Uneven pretend nodes for the collectives (2 + 2 + 1): the node-segment
# algorithms (shmseg), forced in their turn, do not apply to communicators
# spanning nodes and fall back to the table's choice.
rdmach_mpi_test(test_mpi_coll NP 5 TEST test_mpi_coll_np5_cvnode2 TIMEOUT 300 ARGS 2)
set_tests_properties(test_mpi_coll_np5_cvnode2 PROPERTIES ENVIRONMENT "RDMACH_COLL_VNODE_SIZE=2")

# Every predefined op on every predefined type: allowed pairs reduce like a
# local fold, the others give MPI_ERR_OP.
foreach(np 1 3 4)
  rdmach_mpi_test(test_mpi_coll_ops NP ${np} TEST test_mpi_coll_ops_np${np} TIMEOUT 120)
endforeach()

# Argument errors of every kind, with MPI_ERRORS_RETURN.
foreach(np 2 3)
  rdmach_mpi_test(test_mpi_coll_errors NP ${np} TEST test_mpi_coll_errors_np${np} TIMEOUT 60)
endforeach()
# Under the default MPI_ERRORS_ARE_FATAL an invalid root ends the job.
add_test(NAME test_mpi_coll_errors_fatal
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh "MPI_Bcast: invalid root 5 in argument root"
                 ${RDMACH_RUN} -n 2 $<TARGET_FILE:test_mpi_coll_errors> fatal)
set_tests_properties(test_mpi_coll_errors_fatal PROPERTIES TIMEOUT 60 LABELS "mp")
