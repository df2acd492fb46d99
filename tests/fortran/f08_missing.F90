! f08_missing: a program built with MPICH's own mpi_f08 that calls a module
! procedure rdmach's libmpichfort.so.12 lacks (MPI_Status_f2f08, MPI-4.0)
! must stop at MPI_Init naming it, not at the call (src/mpi/abi_check.c).
program f08_missing
  use mpi_f08
  implicit none
  integer :: fstatus(MPI_STATUS_SIZE)
  type(MPI_Status) :: status
  call MPI_Init()
  fstatus = 0
  call MPI_Status_f2f08(fstatus, status)
  call MPI_Finalize()
end program
