# MPI_THREAD_MULTIPLE and the matched probe (included by tests/mpi/CMakeLists.txt).
# test_mpi_threads: 4 threads per rank on 2 and 4 ranks (4 ranks on this
# 2-core machine is oversubscribed: 16 threads); test_mpi_mprobe: 2 ranks,
# two threads of rank 0 racing to Mprobe the same source. Each runs over
# shared memory and over the libfabric tcp channel between pretend nodes
# (RDMACH_VNODE_SIZE=1 RDMACH_NET=ofi). Label "threads": what scripts/test
# runs under ThreadSanitizer (build-tsan/), with the in-process multi-thread
# unit tests (tests/coll's fake device, the shm ring, the PMI client).
rdmach_mpi_test(test_mpi_threads NP 2 TIMEOUT 90)
rdmach_mpi_test(test_mpi_threads NP 4 TEST test_mpi_threads_np4 TIMEOUT 120)
rdmach_mpi_test(test_mpi_mprobe NP 2 TIMEOUT 60)
# test_mpi_comm_threads: communicators made by 4 threads per rank at once
rdmach_mpi_test(test_mpi_comm_threads NP 4 TIMEOUT 90)
rdmach_mpi_test(test_mpi_comm_threads NP 3 TEST test_mpi_comm_threads_vnode1 TIMEOUT 120)
set_tests_properties(test_mpi_comm_threads_vnode1 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
set_property(TEST test_mpi_threads test_mpi_threads_np4 test_mpi_mprobe test_mpi_comm_threads
             test_mpi_comm_threads_vnode1 APPEND PROPERTY LABELS threads)
target_link_libraries(test_mpi_comm_threads PRIVATE Threads::Threads)
target_link_libraries(test_mpi_threads PRIVATE Threads::Threads)
target_link_libraries(test_mpi_mprobe PRIVATE Threads::Threads)
if(RDMACH_HAVE_OFI)
  rdmach_mpi_test(test_mpi_threads NP 2 TEST test_mpi_threads_ofi TIMEOUT 120)
  rdmach_mpi_test(test_mpi_threads NP 4 TEST test_mpi_threads_np4_ofi TIMEOUT 180)
  rdmach_mpi_test(test_mpi_mprobe NP 2 TEST test_mpi_mprobe_ofi TIMEOUT 90)
  set_tests_properties(test_mpi_threads_ofi test_mpi_threads_np4_ofi test_mpi_mprobe_ofi PROPERTIES
                       ENVIRONMENT "RDMACH_VNODE_SIZE=1;RDMACH_NET=ofi")
  set_property(TEST test_mpi_threads_ofi test_mpi_threads_np4_ofi test_mpi_mprobe_ofi APPEND PROPERTY LABELS threads)
endif()
