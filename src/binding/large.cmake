# The large-count (_c) entry points generated from mpi_api.txt (gen_large.py)
# are part of the MPI layer: included from the top-level CMakeLists.txt,
# where rch_mpi is defined, so that the generated source is rch_mpi's own.
set(large_c ${CMAKE_BINARY_DIR}/src/binding/large_bindings.c)
add_custom_command(
  OUTPUT ${large_c}
  COMMAND ${Python3_EXECUTABLE} ${RDMACH_BINDING_DIR}/gen_large.py ${RDMACH_BINDING_DIR}/mpi_api.txt ${large_c}
  DEPENDS ${RDMACH_BINDING_DIR}/mpi_api.txt ${RDMACH_BINDING_DIR}/mpi_api.py ${RDMACH_BINDING_DIR}/gen_large.py
  COMMENT "binding: large-count (_c) functions from mpi_api.txt"
  VERBATIM)
target_sources(rch_mpi PRIVATE ${large_c})
