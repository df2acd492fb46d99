! f08_icount: the instructions an 8-byte MPI_Send + MPI_Recv to self and an
! MPI_Send to MPI_PROC_NULL take through `use mpi_f08` and through C
! (f08_latency_c.c), in loops of n (the argument) of each, for callgrind to
! count (f08_icount.sh): a measure of where mpi_f08's extra time goes that a
! machine shared with other jobs does not disturb, as it disturbs
! f08_latency's times. One rank; each loop is a procedure of its own (of
! module f08_icount_loops, __f08_icount_loops_MOD_f08_self ...), whose
! inclusive count, less that of a run of half as many (the one-time costs:
! the first call's symbol binding, bench_c_send_null's clocks), is its
! calls' cost.
module f08_icount_loops
  use mpi_f08
  implicit none
  integer(kind=1) :: buf(8) = 0
contains
  ! n 8-byte MPI_Send + MPI_Recv to self, as bench_c_self (the message is
  ! eager: the send completes before its receive is posted)
  subroutine f08_self(n)
    integer, intent(in) :: n
    integer :: i
    do i = 1, n
      call MPI_Send(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD)
      call MPI_Recv(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    end do
  end subroutine

  ! n MPI_Send to MPI_PROC_NULL, as bench_c_send_null
  subroutine f08_null(n)
    integer, intent(in) :: n
    integer :: i
    do i = 1, n
      call MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD)
    end do
  end subroutine

  ! f08_self with IERROR present (the binding stores C's result there)
  subroutine f08_self_ierror(n)
    integer, intent(in) :: n
    integer :: i, ierror
    do i = 1, n
      call MPI_Send(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, ierror)
      call MPI_Recv(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierror)
    end do
  end subroutine

  ! f08_null with IERROR present
  subroutine f08_null_ierror(n)
    integer, intent(in) :: n
    integer :: i, ierror
    do i = 1, n
      call MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, ierror)
    end do
  end subroutine
end module

program f08_icount
  use, intrinsic :: iso_c_binding, only: c_double, c_int
  use mpi_f08
  use f08_icount_loops
  implicit none
  interface
    subroutine bench_c_self(iters) bind(C)
      import :: c_int
      integer(c_int), value :: iters
    end subroutine
    real(c_double) function bench_c_send_null(iters, cpu) bind(C)
      import :: c_double, c_int
      integer(c_int), value :: iters
      real(c_double) :: cpu
    end function
  end interface
  character(len=16) :: arg
  integer :: n
  double precision :: t, cpu

  call MPI_Init()
  n = 1000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read(arg, *) n
  end if
  call bench_c_self(n)
  call f08_self(n)
  t = bench_c_send_null(n, cpu)
  call f08_null(n)
  call f08_self_ierror(n)
  call f08_null_ierror(n)
  call MPI_Finalize()
end program
