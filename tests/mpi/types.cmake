# Datatype engine tests (included by tests/mpi/CMakeLists.txt).
#
# Unit tests (Criterion, MPI as a singleton: no launcher): constructors against
# a reference model of type maps, predefined types, pack/unpack, errors.
foreach(t create predef pack errors array)
  rdmach_unit_test(test_type_${t}
    LAYERS ${RDMACH_LAYERS}
    SOURCES test_type_${t}.c test_type_model.c
    LABELS mpi)
endforeach()

# Derived-datatype round trips between processes (ring): 2 and 4 ranks under
# rdmachrun (4 oversubscribes this 2-core machine), and as a singleton (the
# ring closes on itself).
rdmach_mpi_test(test_type_roundtrip NP 2 TIMEOUT 60)
rdmach_mpi_test(test_type_roundtrip NP 4 TEST test_type_roundtrip_np4 TIMEOUT 90)
add_test(NAME test_type_roundtrip_singleton COMMAND test_type_roundtrip)
set_tests_properties(test_type_roundtrip_singleton PROPERTIES TIMEOUT 30 LABELS "mp")
