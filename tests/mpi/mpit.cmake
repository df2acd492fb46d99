# The MPI tool information interface (src/mpi/mpit*.c, docs/MPIT.md):
# control variables read from the environment set here, performance
# variables counted exactly, the unexpected-message event, error classes,
# MPI_T before MPI_Init and after MPI_Finalize. Also built with
# mpicc.mpich (tests/abi: abi_test_mpi_mpit).
rdmach_mpi_test(test_mpi_mpit NP 2 TIMEOUT 60)
set_tests_properties(test_mpi_mpit PROPERTIES ENVIRONMENT
  "RDMACH_SHM_EAGER_MAX=4096;RDMACH_EAGER_CREDITS=17;RDMACH_CMA=off;RDMACH_LOG_INTERVAL=7"
  PASS_REGULAR_EXPRESSION "mpit: [0-9]+ cvars checked")
