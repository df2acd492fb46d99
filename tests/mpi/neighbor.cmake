# Neighbourhood collectives on a 2D periodic Cartesian grid, a 1D open line
# and random distributed graphs (included by tests/mpi/CMakeLists.txt).
# 2 and 4 ranks give periodic dimensions of size 1 and 2.
foreach(np 1 2 3 4 6 8 9)
  rdmach_mpi_test(test_mpi_neighbor NP ${np} TEST test_mpi_neighbor_np${np} TIMEOUT 180 ARGS 4)
endforeach()
