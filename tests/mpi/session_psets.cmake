# The process sets of a session besides MPI's own: those the launcher
# defines (src/boot/pmix_pset.c). Under rdmachrun (PMI-1) there are none;
# under PMIx servers see tests/boot (mpirun.openmpi) and tests/slurm
# (srun --mpi=pmix), which run the same program.
rdmach_mpi_test(test_mpi_session_psets NP 3 TIMEOUT 60 ARGS 3 3 0)
