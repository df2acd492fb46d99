# The _c datatype constructors and queries with values beyond INT_MAX
# (src/mpi/large_indexed.c, large_type.c, large.c): layouts, envelopes,
# counts and the bytes moved through sparse buffers, one rank and two.
foreach(np 1 2)
  rdmach_mpi_test(test_mpi_large_types NP ${np} TEST test_mpi_large_types_np${np} TIMEOUT 60)
endforeach()
