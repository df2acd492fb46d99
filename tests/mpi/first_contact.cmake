# First contact on a node (issue 26; included by tests/mpi/CMakeLists.txt):
# every rank in turn receives every other rank's first messages with
# MPI_ANY_SOURCE (the shared-memory channel's doorbell, shm_bell.c); also
# with waits that sleep at once (no spinning or yielding first).
rdmach_mpi_test(test_mpi_first_contact NP 8 TIMEOUT 60)
rdmach_mpi_test(test_mpi_first_contact NP 8 TEST test_mpi_first_contact_sleep TIMEOUT 60)
set_tests_properties(test_mpi_first_contact_sleep PROPERTIES ENVIRONMENT
  "RDMACH_SPIN_COUNT=0;RDMACH_SPIN_COUNT_OVERSUB=0;RDMACH_SPIN_COUNT_OVERSUB_PEER=0;RDMACH_YIELD_COUNT=0")
