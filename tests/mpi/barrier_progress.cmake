# A rank waiting in MPI_Barrier serves one-sided accumulates that need its
# progress, arriving over the network channel from another pretend node
# (included by tests/mpi/CMakeLists.txt). Without progress driven from the
# barrier's wait (and a wake-up on channel traffic) each of the 3 x 3000
# flushes waits for one of the barrier's timed sleeps: with the 20 ms sleeps
# the barrier had, at least 180 s, past the TIMEOUT; served from the device's
# wait they take 10-40 s here (loaded 2-core machine, -j2). Each phase's
# barrier is its communicator's first: RDMACH_COLL_SEG_AFTER=0 makes it run
# the backend under test rather than a young communicator's dissemination.
set(RDMACH_BP_DEV_SELECT ${CMAKE_SOURCE_DIR}/src/device/select.c)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${RDMACH_BP_DEV_SELECT})
file(READ ${RDMACH_BP_DEV_SELECT} rdmach_bp_select_text)
string(FIND "${rdmach_bp_select_text}" "rch_rdma_select" rdmach_bp_net)
if(rdmach_bp_net GREATER -1 AND RDMACH_HAVE_OFI)
  foreach(path am auto)
    rdmach_mpi_test(test_mpi_barrier_progress NP 4 TEST test_mpi_barrier_progress_vnode2_${path}
                    TIMEOUT 150 ARGS 3000)
    set_tests_properties(test_mpi_barrier_progress_vnode2_${path} PROPERTIES
                         ENVIRONMENT "RDMACH_VNODE_SIZE=2;RDMACH_RMA_PATH=${path};RDMACH_COLL_SEG_AFTER=0")
  endforeach()
else()
  message(STATUS "tests/mpi/barrier_progress.cmake: no network channel: "
                 "test_mpi_barrier_progress (RDMACH_VNODE_SIZE) is not registered")
endif()
