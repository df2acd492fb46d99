# Conformance of groups, communicators, topologies and attributes to the
# text of the MPI standard (included by tests/mpi/CMakeLists.txt): each
# program computes what the standard says the result is, independently of
# the library, and compares. Shared memory at several rank counts, tcp
# between pretend nodes of one rank, and Hydra.

set(CONF_TESTS test_conf_group test_conf_comm test_conf_topo test_conf_attr test_conf_split_type)
foreach(np 1 2 3 4 5 8)
  foreach(t ${CONF_TESTS})
    rdmach_mpi_test(${t} NP ${np} TEST ${t}_np${np} TIMEOUT 60)
  endforeach()
endforeach()

# test_conf_split_type finds the ranks' hardware objects with hwloc itself.
target_link_libraries(test_conf_split_type PRIVATE PkgConfig::HWLOC)
# Unbound ranks lie inside no core: HW_GUIDED "Core" gives MPI_COMM_NULL.
rdmach_mpi_test(test_conf_split_type NP 3 TEST test_conf_split_type_unbound_np3 TIMEOUT 60)
set_tests_properties(test_conf_split_type_unbound_np3 PROPERTIES ENVIRONMENT "RDMACH_BIND=none")
# Pretend nodes of two ranks: SHARED and the hardware types stay inside them.
rdmach_mpi_test(test_conf_split_type NP 4 TEST test_conf_split_type_vnode2_np4 TIMEOUT 60)
set_tests_properties(test_conf_split_type_vnode2_np4 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=2")

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
    foreach(np 2 3 4)
      add_test(NAME ${t}_hydra_np${np} COMMAND ${CONF_MPIEXEC_MPICH} -n ${np} $<TARGET_FILE:${t}>)
      set_tests_properties(${t}_hydra_np${np} PROPERTIES TIMEOUT 60 LABELS "mp")
    endforeach()
    # Hydra and tcp between pretend nodes of one rank
    foreach(np 2 4)
      add_test(NAME ${t}_hydra_tcp_np${np} COMMAND ${CONF_MPIEXEC_MPICH} -n ${np} $<TARGET_FILE:${t}>)
      set_tests_properties(${t}_hydra_tcp_np${np} PROPERTIES TIMEOUT 60 LABELS "mp"
                           ENVIRONMENT "RDMACH_VNODE_SIZE=1")
    endforeach()
  endforeach()
  # Two applications (MPMD): MPI_APPNUM is 0 for the first two ranks, 1 for the others.
  add_test(NAME test_conf_attr_hydra_mpmd
           COMMAND ${CONF_MPIEXEC_MPICH} -n 2 $<TARGET_FILE:test_conf_attr> appnum=0
                   : -n 2 $<TARGET_FILE:test_conf_attr> appnum=1)
  set_tests_properties(test_conf_attr_hydra_mpmd PROPERTIES TIMEOUT 60 LABELS "mp")
endif()
