# Decoding the types the large-count (_c) constructors make (MPI-4.1
# 5.1.13): envelope and contents of each, the int forms' MPI_ERR_TYPE, the
# decoded type rebuilt and compared, an external32 view of a _c filetype
# (src/mpi/type_large.c, large_type.c, large_indexed.c, large_array.c,
# src/io/io_ftype.c).
set(DECODE_C_TMP ${CMAKE_CURRENT_BINARY_DIR}/decode_c_tmp)
file(MAKE_DIRECTORY ${DECODE_C_TMP})
rdmach_mpi_test(test_mpi_decode_c NP 1 TIMEOUT 60 ARGS ${DECODE_C_TMP})
