! f08_missing: a program built with MPICH's own mpi_f08 that calls a
! procedure rdmach's libmpichfort.so.12 lacks (MPI_Info_create_env, MPI-4.0,
! whose f08 binding is not written: mpi_api.txt's fortran=unbound) must stop
! at MPI_Init naming it, not at the call (src/mpi/abi_check.c).
program f08_missing
  use mpi_f08
  implicit none
  type(MPI_Info) :: info
  call MPI_Init()
  call MPI_Info_create_env(info)
  call MPI_Finalize()
end program
