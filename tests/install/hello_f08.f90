! hello.f90 with `use mpi_f08`: handles are types, IERROR is optional.
program hello_f08
  use mpi_f08
  implicit none
  integer :: rank, size, total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == size - 1) print '(a,i0,a,i0,a,i0)', 'hello: rank ', rank, ' of ', size, ', sum ', total
  call MPI_Finalize()
end program hello_f08
