# One-sided communication (included by tests/mpi/CMakeLists.txt): every
# operation under every synchronisation mode on every kind of window, the
# atomicity of concurrent accumulates, and the error cases.
#
# RDMACH_RMA_PATH forces how operations reach other ranks: "auto" (load/store
# into node-shared windows, shared-memory RDMA for Win_create), "rdma" (the
# channel's put/get and packets, as across a network) and "am" (packets the
# target executes) — so the network code paths run over shared memory too.

foreach(path auto rdma am)
  foreach(np 1 2 3 4)
    rdmach_mpi_test(test_mpi_win_ops NP ${np} TEST test_mpi_win_ops_np${np}_${path} TIMEOUT 240)
    set_tests_properties(test_mpi_win_ops_np${np}_${path} PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=${path}")
  endforeach()
endforeach()
rdmach_mpi_test(test_mpi_win_ops NP 8 TEST test_mpi_win_ops_np8 TIMEOUT 300)

# Concurrent accumulates, fetch-and-op, compare-and-swap and exclusive locks
# from every rank on every rank: exact counters, a permutation of fetched values.
foreach(path auto rdma am)
  foreach(flavor allocate create dynamic)
    foreach(np 2 4)
      rdmach_mpi_test(test_mpi_win_atomic NP ${np} TEST test_mpi_win_atomic_np${np}_${flavor}_${path}
                      TIMEOUT 240 ARGS ${flavor} 50)
      set_tests_properties(test_mpi_win_atomic_np${np}_${flavor}_${path} PROPERTIES
                           ENVIRONMENT "RDMACH_RMA_PATH=${path}")
    endforeach()
  endforeach()
endforeach()
rdmach_mpi_test(test_mpi_win_atomic NP 8 TEST test_mpi_win_atomic_np8 TIMEOUT 300 ARGS allocate 20)

# Error cases: classes and messages with MPI_ERRORS_RETURN, the default fatal handler.
foreach(path auto am)
  foreach(np 1 2 3)
    rdmach_mpi_test(test_mpi_win_errors NP ${np} TEST test_mpi_win_errors_np${np}_${path} TIMEOUT 60)
    set_tests_properties(test_mpi_win_errors_np${np}_${path} PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=${path}")
  endforeach()
endforeach()
add_test(NAME test_mpi_win_errors_fatal
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh "MPI_Put: target rank [0-9]+: bytes \\[64, 72\\).*outside its window"
                 ${RDMACH_RUN} -n 2 $<TARGET_FILE:test_mpi_win_errors> fatal)
set_tests_properties(test_mpi_win_errors_fatal PROPERTIES TIMEOUT 60 LABELS "mp")

# Over the network channel: RDMACH_VNODE_SIZE pretend nodes (ranks of
# different nodes share no memory: RDMA put/get through libfabric tcp,
# packets for the rest; with 2 ranks per node, both at once). Registered once
# the device selects a network channel (its select.c calls rch_rdma_select).
set(RDMACH_RMA_DEV_SELECT ${CMAKE_SOURCE_DIR}/src/device/select.c)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${RDMACH_RMA_DEV_SELECT})
file(READ ${RDMACH_RMA_DEV_SELECT} rdmach_rma_select_text)
string(FIND "${rdmach_rma_select_text}" "rch_rdma_select" rdmach_rma_net)
if(rdmach_rma_net GREATER -1)
  foreach(layout 2:1 3:1 4:2)
    string(REPLACE ":" ";" nv ${layout})
    list(GET nv 0 np)
    list(GET nv 1 vn)
    set(sfx np${np}_vnode${vn})
    rdmach_mpi_test(test_mpi_win_ops NP ${np} TEST test_mpi_win_ops_${sfx} TIMEOUT 300)
    rdmach_mpi_test(test_mpi_win_errors NP ${np} TEST test_mpi_win_errors_${sfx} TIMEOUT 120)
    set(names test_mpi_win_ops_${sfx} test_mpi_win_errors_${sfx})
    foreach(flavor allocate create dynamic)
      rdmach_mpi_test(test_mpi_win_atomic NP ${np} TEST test_mpi_win_atomic_${flavor}_${sfx} TIMEOUT 300
                      ARGS ${flavor} 30)
      list(APPEND names test_mpi_win_atomic_${flavor}_${sfx})
    endforeach()
    set_tests_properties(${names} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=${vn}")
  endforeach()
else()
  message(STATUS "tests/mpi/rma.cmake: no network channel in the device yet: "
                 "the RDMACH_VNODE_SIZE one-sided tests are not registered")
endif()

# The wire format's validation (device layer only).
rdmach_unit_test(test_rma_proto LAYERS rch_base rch_boot rch_rdma rch_device SOURCES test_rma_proto.c)
