# The datatype engine's column moves (indexed patterns with a column period,
# structs) against a naive reference (included by tests/mpi/CMakeLists.txt).
rdmach_unit_test(test_type_period
  LAYERS ${RDMACH_LAYERS}
  SOURCES test_type_period.c test_type_model.c
  LABELS mpi)
