# Collectives by the letter of MPI-4.0 chapters 6 and 8.6 (issue 20): every
# blocking and non-blocking collective against results computed from the
# definitions (MPI_IN_PLACE, zero counts, mixed signatures, every root,
# Alltoallw, overlapped I* completed out of order, error classes), and the
# neighbourhood collectives on cart, graph and dist_graph topologies with
# MPI_PROC_NULL neighbours. 1-8 ranks on shared memory, 2-4 over tcp
# (RDMACH_VNODE_SIZE=1), and under Hydra.
include(${CMAKE_CURRENT_LIST_DIR}/conform_launch.cmake.inc)

foreach(prog test_conf_coll test_conf_coll_nbr)
  foreach(np 1 2 3 4 5 8)
    conf_test(${prog} ${np} "")
  endforeach()
  foreach(np 2 3 4)
    conf_test(${prog} ${np} _tcp ENV RDMACH_VNODE_SIZE=1)
  endforeach()
  conf_test(${prog} 3 _hydra HYDRA)
endforeach()
