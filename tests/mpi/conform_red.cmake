# Reductions and datatypes by the letter of the MPI standard (MPI 4.1 §6.9.2
# table, MPI_IN_PLACE, user operations in rank order, zero counts; every
# predefined datatype's size, extent and envelope, resized types, packing,
# 262,144 structs broadcast), over shared memory at several sizes, over tcp
# between pretend nodes (every pair a tcp pair), and under Hydra.
find_program(RDMACH_CONFORM_HYDRA mpiexec.mpich)

# conform_test(<program> SHM <np...> TCP <np...>)
function(conform_test prog)
  cmake_parse_arguments(C "" "" "SHM;TCP" ${ARGN})
  foreach(np ${C_SHM})
    rdmach_mpi_test(${prog} NP ${np} TEST ${prog}_np${np} TIMEOUT 60)
  endforeach()
  foreach(np ${C_TCP})
    rdmach_mpi_test(${prog} NP ${np} TEST ${prog}_tcp_np${np} TIMEOUT 60)
    set_tests_properties(${prog}_tcp_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
  endforeach()
  if(RDMACH_CONFORM_HYDRA)
    add_test(NAME ${prog}_hydra_np4 COMMAND ${RDMACH_CONFORM_HYDRA} -n 4 $<TARGET_FILE:${prog}>)
    set_tests_properties(${prog}_hydra_np4 PROPERTIES TIMEOUT 60 LABELS "mp")
  endif()
endfunction()

conform_test(test_mpi_conform_red SHM 1 2 3 4 5 6 7 8 TCP 2 3 4)
conform_test(test_mpi_conform_type SHM 1 2 3 4 7 8 TCP 2 3 4)

# The reductions again with each allreduce and reduce_scatter(_block) algorithm
# forced (one node: the node-segment allreduce applies).
foreach(algo recdbl reduce_bcast shmseg)
  rdmach_mpi_test(test_mpi_conform_red NP 5 TEST test_mpi_conform_red_allreduce_${algo} TIMEOUT 60)
  set_tests_properties(test_mpi_conform_red_allreduce_${algo} PROPERTIES
                       ENVIRONMENT "RDMACH_ALLREDUCE=${algo}")
endforeach()
foreach(algo pairwise reduce_scatterv)
  rdmach_mpi_test(test_mpi_conform_red NP 6 TEST test_mpi_conform_red_reduce_scatter_${algo} TIMEOUT 60)
  set_tests_properties(test_mpi_conform_red_reduce_scatter_${algo} PROPERTIES
                       ENVIRONMENT "RDMACH_REDUCE_SCATTER=${algo}")
endforeach()

# test_mpi_coll_ops (coll.cmake runs it at 1, 3, 4 ranks) at the counts where
# algorithms combine complex products in another order than the fold.
foreach(np 6 8)
  rdmach_mpi_test(test_mpi_coll_ops NP ${np} TEST test_mpi_coll_ops_np${np} TIMEOUT 60)
endforeach()
