# A rank that dies in the middle of a PUTW (test_rma_putw_death.c,
# src/device/rma_putw.c): _origin: the origin dies while the target drains
# its data (the target's read fails, MPI_T rma_putw_reads_lost grows, the
# window holds an in-order prefix of the put, the target reports rank 1);
# _target: the target dies while scattering (the origin's MPI_Win_unlock
# fails naming rank 0, no hang). Then the live ranks put to each other by
# PUTW, checked.
rdmach_mpi_test(test_rma_putw_death NP 3 TEST test_rma_putw_death_origin TIMEOUT 60 ARGS origin)
rdmach_mpi_test(test_rma_putw_death NP 3 TEST test_rma_putw_death_target TIMEOUT 60 ARGS target)
