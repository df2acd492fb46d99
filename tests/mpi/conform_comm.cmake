# Conformance of groups, communicators, topologies and attributes to the
# text of the MPI standard (included by tests/mpi/CMakeLists.txt): each
# program computes what the standard says the result is, independently of
# the library, and compares. Shared memory at several rank counts, tcp
# between pretend nodes of one rank, and Hydra.

set(CONF_TESTS test_conf_group test_conf_comm test_conf_topo test_conf_attr)
foreach(np 1 2 3 4 5 8)
  foreach(t ${CONF_TESTS})
    rdmach_mpi_test(${t} NP ${np} TEST ${t}_np${np} TIMEOUT 60)
  endforeach()
endforeach()

# A delete callback on MPI_COMM_SELF that fails: MPI_Finalize returns its code.
foreach(np 1 3)
  rdmach_mpi_test(test_conf_attr NP ${np} TEST test_conf_attr_finalize_error_np${np} TIMEOUT 60 ARGS finalize_error)
endforeach()

# Dims_create is local: one rank checks it against the exhaustive search.
rdmach_mpi_test(test_conf_dims NP 1 TIMEOUT 60)

# tcp: every pair of ranks a network pair.
foreach(np 2 4)
  foreach(t ${CONF_TESTS})
    rdmach_mpi_test(${t} NP ${np} TEST ${t}_tcp_np${np} TIMEOUT 60)
    set_tests_properties(${t}_tcp_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
  endforeach()
endforeach()

# Hydra (mpiexec.mpich) as the process manager.
find_program(CONF_MPIEXEC_MPICH mpiexec.mpich)
if(CONF_MPIEXEC_MPICH)
  foreach(t ${CONF_TESTS})
    add_test(NAME ${t}_hydra_np4 COMMAND ${CONF_MPIEXEC_MPICH} -n 4 $<TARGET_FILE:${t}>)
    set_tests_properties(${t}_hydra_np4 PROPERTIES TIMEOUT 60 LABELS "mp")
  endforeach()
endif()
