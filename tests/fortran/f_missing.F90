! f_missing: calls MPI_SESSION_GET_NTH_PSET, whose Fortran binding rdmach lacks
! (mpi_api.txt: fortran=unbound), only when asked ("call"), after a barrier.
! Built by mpif90.mpich and run on rdmach's libmpichfort.so.12, it must stop
! at MPI_INIT naming the missing symbol, not at the call (tests/abi does the
! same for C).
program f_missing
  implicit none
  include 'mpif.h'
  integer :: ierr, session, n
  character(len=64) :: pset
  character(len=8) :: arg
  call MPI_INIT(ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call get_command_argument(1, arg)
  if (arg == 'call') then
    session = 0   ! never called: MPICH 4.0.2's mpif.h has no MPI_SESSION_NULL
    n = len(pset)
    call MPI_SESSION_GET_NTH_PSET(session, MPI_INFO_NULL, 0, n, pset, ierr)
  end if
  print '(a)', 'f_missing: ran to the end'
  call MPI_FINALIZE(ierr)
end program
