! f08_missing: a program built with MPICH's own mpi_f08 that calls a
! procedure rdmach's libmpichfort.so.12 lacks (MPI_Session_get_nth_pset,
! MPI-4.0, whose Fortran binding is not written: mpi_api.txt's
! fortran=unbound) must stop
! at MPI_Init naming it, not at the call (src/mpi/abi_check.c).
program f08_missing
  use mpi_f08
  implicit none
  type(MPI_Session) :: session
  integer :: n
  character(len=64) :: pset
  call MPI_Init()
  session%MPI_VAL = 0   ! never called: MPI_Init stops first
  n = len(pset)
  call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, n, pset)
  call MPI_Finalize()
end program
