# A second MPI_Type_free through a copy of a freed handle (type_api.c, urefs).
rdmach_mpi_test(test_type_free_twice NP 2 TIMEOUT 60)
