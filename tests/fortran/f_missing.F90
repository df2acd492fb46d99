! f_missing: calls MPI_INFO_CREATE_ENV, whose Fortran binding rdmach lacks
! (mpi_api.txt: fortran=unbound), only when asked ("call"), after a barrier.
! Built by mpif90.mpich and run on rdmach's libmpichfort.so.12, it must stop
! at MPI_INIT naming the missing symbol, not at the call (tests/abi does the
! same for C).
program f_missing
  implicit none
  include 'mpif.h'
  integer :: ierr, info
  character(len=8) :: arg
  call MPI_INIT(ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call get_command_argument(1, arg)
  if (arg == 'call') then
    call MPI_INFO_CREATE_ENV(info, ierr)
  end if
  print '(a)', 'f_missing: ran to the end'
  call MPI_FINALIZE(ierr)
end program
