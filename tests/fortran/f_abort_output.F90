! f_abort_output: rank 0 prints lines through unit 6 and waits; rank 1 then
! ends the job with MPI_ABORT(..., 3). gfortran buffers unit 6 when it is
! a regular file, so with `rdmachrun ... > file` the lines must reach the
! file through rdmachrun's pipe (tools/run_io.c) before rank 0 is killed:
! tests/tools/check_run_output.sh checks that every one of them is there.
program f_abort_output
  use mpi
  implicit none
  integer :: ierr, me, i
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  if (me == 0) then
    do i = 1, 50
      write (6, '(a,i0)') 'f_abort_output: rank 0 line ', i
    end do
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (me == 1) then
    call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
  end if
  call sleep(30)   ! ended by the abort long before
  call MPI_Finalize(ierr)
end program
