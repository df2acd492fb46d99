# An origin that dies while the target's GETW answer is in flight
# (test_rma_getw_death.c, src/device/rma_getw.c): the target reports that
# origin only and serves the live ranks with the right data. _lost: the
# chunks go by the channel's pipeline, which only the origin drains, so the
# death finds chunk writes in flight (MPI_T rma_getw_writes_lost must grow);
# _shared: chunks of 2 x 64 KiB shared with the origin's progress
# (shm_coop.c), the death lands where the timing puts it. Both with the
# target's own chunks (RMA_GETW_FILL=off; rma_getw_fill.cmake: packed into
# the pipeline).
rdmach_mpi_test(test_rma_getw_death NP 3 TEST test_rma_getw_death_lost TIMEOUT 60 ARGS lost)
set_tests_properties(test_rma_getw_death_lost PROPERTIES ENVIRONMENT "RDMACH_CMA_REFUSE_WRITE=on;RDMACH_RMA_GETW_FILL=off")
rdmach_mpi_test(test_rma_getw_death NP 3 TEST test_rma_getw_death_shared TIMEOUT 60)
set_tests_properties(test_rma_getw_death_shared PROPERTIES ENVIRONMENT "RDMACH_SHM_CMA_SPLIT=64k;RDMACH_RMA_GETW_FILL=off")
