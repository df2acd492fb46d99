# Reductions and datatypes by the letter of the MPI standard (MPI 4.1 §6.9.2
# table, MPI_IN_PLACE, user operations in rank order, zero counts; every
# predefined datatype's size, extent and envelope), over shared memory at
# several sizes, over tcp between pretend nodes, and under Hydra.
foreach(np 1 2 3 5 8)
  rdmach_mpi_test(test_mpi_conform_red NP ${np} TEST test_mpi_conform_red_np${np} TIMEOUT 60)
endforeach()
foreach(np 2 4)
  rdmach_mpi_test(test_mpi_conform_red NP ${np} TEST test_mpi_conform_red_tcp_np${np} TIMEOUT 60)
  set_tests_properties(test_mpi_conform_red_tcp_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
find_program(RDMACH_CONFORM_HYDRA mpiexec.mpich)
if(RDMACH_CONFORM_HYDRA)
  add_test(NAME test_mpi_conform_red_hydra_np4 COMMAND ${RDMACH_CONFORM_HYDRA} -n 4 $<TARGET_FILE:test_mpi_conform_red>)
  set_tests_properties(test_mpi_conform_red_hydra_np4 PROPERTIES TIMEOUT 60 LABELS "mp")
endif()
