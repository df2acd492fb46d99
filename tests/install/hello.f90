! The Fortran twin of hello.c: the last rank prints the sum of all ranks.
program hello
  use mpi
  implicit none
  integer :: rank, size, total, ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == size - 1) print '(a,i0,a,i0,a,i0)', 'hello: rank ', rank, ' of ', size, ', sum ', total
  call MPI_Finalize(ierr)
end program hello
