# The MPI tool information interface (src/mpi/mpit*.c, docs/MPIT.md):
# control variables read from the environment set here, performance
# variables counted exactly, the unexpected-message event, error classes,
# MPI_T before MPI_Init and after MPI_Finalize. Also built with
# mpicc.mpich (tests/abi: abi_test_mpi_mpit).
rdmach_mpi_test(test_mpi_mpit NP 2 TIMEOUT 60)
set_tests_properties(test_mpi_mpit PROPERTIES ENVIRONMENT
  "RDMACH_SHM_EAGER_MAX=4096;RDMACH_EAGER_CREDITS=17;RDMACH_CMA=off;RDMACH_LOG_INTERVAL=7"
  PASS_REGULAR_EXPRESSION "mpit: [0-9]+ cvars checked")
# The same over the network channel (every rank a node: libfabric tcp): the
# ofi_* counters and net_connections.
rdmach_mpi_test(test_mpi_mpit NP 2 TEST test_mpi_mpit_net TIMEOUT 60 ARGS ofi)
set_tests_properties(test_mpi_mpit_net PROPERTIES ENVIRONMENT
  "RDMACH_VNODE_SIZE=1;RDMACH_NET=ofi;RDMACH_RNDV_THRESHOLD=4096;RDMACH_SHM_EAGER_MAX=4096;RDMACH_EAGER_CREDITS=17;RDMACH_CMA=off;RDMACH_LOG_INTERVAL=7"
  PASS_REGULAR_EXPRESSION "mpit: [0-9]+ cvars checked")

# The peer_failed event: rank 1 stops itself, rank 0 waits for it; the job
# fails (rank 1 is killed at the end), rank 0's report is what is judged.
# Not built with mpicc.mpich: nothing in it is ABI-specific beyond
# test_mpi_mpit.
rdmach_program(test_mpi_mpit_death test_mpi_mpit_death.c)
add_test(NAME test_mpi_mpit_death
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh "mpit_death: PASS"
                 ${RDMACH_RUN} -n 2 $<TARGET_FILE:test_mpi_mpit_death>)
set_tests_properties(test_mpi_mpit_death PROPERTIES TIMEOUT 60 LABELS "mp" ENVIRONMENT "RDMACH_PEER_STOP_TIMEOUT=300")

# MPI_T_init_thread(MPI_THREAD_MULTIPLE) before MPI_Init, and 4 threads
# reading the control variables at once, before and after MPI_Init.
rdmach_mpi_test(test_mpi_mpit_threads NP 2 TIMEOUT 60)
target_link_libraries(test_mpi_mpit_threads PRIVATE Threads::Threads)
set_tests_properties(test_mpi_mpit_threads PROPERTIES PASS_REGULAR_EXPRESSION "mpit threads: [0-9]+ cvars read")
