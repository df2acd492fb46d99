! f08_profile: the profiling interface of `use mpi_f08` (MPI-3.1 14.2): a
! tool defines MPI_Send_f08ts itself (the specific name MPI-3.1 17.1.5
! gives a choice-buffer procedure when MPI_SUBARRAYS_SUPPORTED is .TRUE.),
! counts the calls and forwards them to
! PMPI_Send_f08ts; the program's MPI_Send (the generic) reaches the tool's,
! and the message its PMPI_ call sends arrives. Two ranks or more.
module f08_profile_tool
  implicit none
  integer :: sends = 0
end module

subroutine MPI_Send_f08ts(buf, count, datatype, dest, tag, comm, ierror)
  use mpi_f08, only: MPI_Datatype, MPI_Comm, PMPI_Send
  use f08_profile_tool, only: sends
  implicit none
  type(*), dimension(..), intent(in) :: buf
  integer, intent(in) :: count, dest, tag
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  sends = sends + 1
  call PMPI_Send(buf, count, datatype, dest, tag, comm, ierror)
end subroutine

program f08_profile
  use mpi_f08
  use f08_profile_tool, only: sends
  implicit none
  integer :: rank, nproc, ierr, a(4), b(8)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call check(nproc >= 2, 'needs two ranks')
  a = [(rank * 10 + ierr, ierr = 1, 4)]
  b = -1
  if (rank == 0) then
    call MPI_Send(a, 4, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS, 'profiled MPI_Send ierror')
    call MPI_Send(a(4:1:-1), 4, MPI_INTEGER, 1, 4, MPI_COMM_WORLD)
    call check(sends == 2, 'the tool saw both sends')
  else if (rank == 1) then
    call MPI_Recv(b(1:8:2), 4, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Recv(b(2:8:2), 4, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call check(all(b == [1, 4, 2, 3, 3, 2, 4, 1]), 'data through PMPI_Send')
    call check(sends == 0, 'no send counted on the receiver')
  end if
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'f08_profile: ok on ', nproc, ' ranks'
  call MPI_Finalize()

contains
#include "check.inc"
end program
