# MPI_Status_c2f08/f082c/f082f/f2f08 (src/mpi/status_f08.c).
foreach(np 1 2)
  rdmach_mpi_test(test_mpi_status_f08 NP ${np} TEST test_mpi_status_f08_np${np} TIMEOUT 60)
endforeach()
