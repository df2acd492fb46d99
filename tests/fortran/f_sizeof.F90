! f_sizeof: MPI_Sizeof (module mpi only) for every intrinsic type and kind
! and CHARACTER (MPI_CHARACTER's size),
! scalars and arrays, against the sizes the kinds name. Built by mpif90.mpich
! it needs MPICH's module procedures, which rdmach lacks: it must stop at
! MPI_Init naming one (abi_fortran_sizeof_fails_at_start; that build defines
! MPICH_SIZEOFS: MPICH's generic has no 2-d arrays, REAL(16) or COMPLEX(8)).
program f_sizeof
  use mpi
  implicit none
  integer :: ierr, rank, size, n
  integer(kind=1) :: i1
  integer(kind=2) :: i2(3)
  integer(kind=8) :: i8(2, 2)
  real :: r
  real(kind=8) :: d(4)
  real(kind=16) :: q
  complex :: c(2)
  complex(kind=8) :: z
  logical :: l(5)
  character :: ch, chv(3)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Sizeof(i1, n, ierr)
  call check(n == 1 .and. ierr == MPI_SUCCESS, 'INTEGER(1)')
  call MPI_Sizeof(i2, n, ierr)
  call check(n == 2, 'INTEGER(2) array')
  call MPI_Sizeof(size, n, ierr)
  call check(n == 4, 'INTEGER')
#ifndef MPICH_SIZEOFS
  call MPI_Sizeof(i8, n, ierr)
  call check(n == 8, 'INTEGER(8) 2-d array')
  call MPI_Sizeof(q, n, ierr)
  call check(n == 16, 'REAL(16)')
  call MPI_Sizeof(z, n, ierr)
  call check(n == 16, 'COMPLEX(8)')
#endif
  call MPI_Sizeof(r, n, ierr)
  call check(n == 4, 'REAL')
  call MPI_Sizeof(d(2:3), n, ierr)
  call check(n == 8, 'DOUBLE PRECISION section')
  call MPI_Sizeof(c, n, ierr)
  call check(n == 8, 'COMPLEX array')
  call MPI_Sizeof(l, n, ierr)
  call check(n == 4, 'LOGICAL array')
  call MPI_Sizeof(ch, n, ierr)
  call check(n == 1, 'CHARACTER')
  call MPI_Sizeof(chv, n, ierr)
  call check(n == 1, 'CHARACTER array')
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_sizeof: ok on ', size, ' ranks'
contains
#include "check.inc"
end program
