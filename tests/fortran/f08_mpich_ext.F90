! f08_mpich_ext: MPICH's extensions in its module mpi_f08 (mpi_f08_types),
! which rdmach's module has too and rdmach's libmpichfort.so.12 exports under
! MPICH's link names (the build with mpif90.mpich calls them there): == and
! /= between a handle and an INTEGER (the mpif.h handle), either way round;
! MPI_<Handle>_f2c and _c2f (in MPICH's ABI the C handle is the INTEGER);
! MPI_Sizeof of CHARACTER. The expected values are the handles' MPI_VAL,
! which MPI_Comm_dup and MPI_Type_contiguous give fresh ones of.
program f08_mpich_ext
  use mpi_f08
  implicit none
  integer :: rank, nproc, n, ierr
  type(MPI_Comm) :: dup
  type(MPI_Datatype) :: pair
  type(MPI_Group) :: group
  type(MPI_Request) :: req
  character :: text(7)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Type_contiguous(2, MPI_INTEGER, pair)
  call MPI_Comm_group(dup, group)

  ! a handle against an INTEGER, both ways round
  call check(dup == dup%MPI_VAL .and. dup%MPI_VAL == dup, 'comm == its integer')
  call check(.not. (dup == MPI_COMM_WORLD%MPI_VAL) .and. .not. (MPI_COMM_WORLD%MPI_VAL == dup), &
             'comm == another integer')
  call check(dup /= MPI_COMM_WORLD%MPI_VAL .and. MPI_COMM_WORLD%MPI_VAL /= dup, 'comm /= another integer')
  call check(.not. (dup /= dup%MPI_VAL) .and. .not. (dup%MPI_VAL /= dup), 'comm /= its integer')
  call check(pair == pair%MPI_VAL .and. pair /= MPI_INTEGER%MPI_VAL, 'datatype against integers')
  call check(group == group%MPI_VAL .and. MPI_GROUP_EMPTY%MPI_VAL /= group, 'group against integers')
  req = MPI_REQUEST_NULL
  call check(req == MPI_REQUEST_NULL%MPI_VAL, 'request against an integer')

  ! f2c and c2f: the same integer both ways
  call check(MPI_Comm_f2c(dup%MPI_VAL) == dup%MPI_VAL, 'MPI_Comm_f2c')
  call check(MPI_Comm_c2f(dup%MPI_VAL) == dup%MPI_VAL, 'MPI_Comm_c2f')
  call check(MPI_Datatype_f2c(pair%MPI_VAL) == pair%MPI_VAL, 'MPI_Datatype_f2c')
  call check(MPI_Datatype_c2f(pair%MPI_VAL) == pair%MPI_VAL, 'MPI_Datatype_c2f')
  call check(MPI_Group_c2f(MPI_Group_f2c(group%MPI_VAL)) == group%MPI_VAL, 'MPI_Group_f2c and c2f')
  call check(MPI_Op_f2c(MPI_SUM%MPI_VAL) == MPI_SUM%MPI_VAL, 'MPI_Op_f2c')
  call check(MPI_Info_c2f(MPI_INFO_NULL%MPI_VAL) == MPI_INFO_NULL%MPI_VAL, 'MPI_Info_c2f')

  ! MPI_Sizeof of CHARACTER: one byte a character
  call MPI_Sizeof(text, n, ierr)
  call check(n == 1 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof(CHARACTER)')

  call MPI_Group_free(group)
  call MPI_Type_free(pair)
  call MPI_Comm_free(dup)
  if (rank == 0) print '(a, i0, a)', 'f08_mpich_ext: ok on ', nproc, ' ranks'
  call MPI_Finalize()

contains
#include "check.inc"
end program
