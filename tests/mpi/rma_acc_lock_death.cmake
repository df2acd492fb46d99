# An origin that dies inside its single-copy read-modify-write, holding the
# target's accumulate lock (test_rma_acc_lock_death.c, src/device/rma_acclock.c):
# the target and a third rank take the lock over and their accumulates apply;
# with `packet` the third rank's accumulate is an ACCV packet, and the waiter
# on the dead holder the target's packet handler.
rdmach_mpi_test(test_rma_acc_lock_death NP 3 TIMEOUT 60)
rdmach_mpi_test(test_rma_acc_lock_death NP 3 TEST test_rma_acc_lock_death_packet TIMEOUT 60 ARGS packet)
# Under Hydra, which would otherwise end the job when rank 1 exits without
# MPI_Finalize (auto-cleanup): the live ranks must still report PASS.
find_program(ACCLOCK_MPIEXEC_MPICH mpiexec.mpich)
if(ACCLOCK_MPIEXEC_MPICH)
  add_test(NAME test_rma_acc_lock_death_hydra
           COMMAND ${ACCLOCK_MPIEXEC_MPICH} -n 3 -disable-auto-cleanup $<TARGET_FILE:test_rma_acc_lock_death>)
  set_tests_properties(test_rma_acc_lock_death_hydra PROPERTIES TIMEOUT 60 LABELS "mp"
                       PASS_REGULAR_EXPRESSION "acc_lock_death rmw: .*PASS")
endif()
