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
