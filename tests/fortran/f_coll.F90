! f_coll: collectives (MPI_IN_PLACE and MPI_BOTTOM from Fortran), a derived
! datatype over a Fortran array, MPI_Comm_split, strings both ways, and an
! invalid communicator handle returning MPI_ERR_COMM. Any number of ranks.
#include "mpi_test.h"
program f_coll
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, size, i, j, sub, subrank, subsize, color, cls, rlen, coltype
  integer :: status(MPI_STATUS_SIZE)
  integer, allocatable :: got(:), each(:)
  integer :: v(3), m(4, 5), col(5)
  integer(kind=MPI_ADDRESS_KIND) :: addr
  double precision :: x(2)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=4) :: short
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_ERROR_STRING) :: msg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  allocate(got(size), each(size))

  ! Bcast from the last rank; Allreduce in place; Reduce in place at the root
  v = 0
  if (rank == size - 1) v = [7, 8, 9]
  call MPI_Bcast(v, 3, MPI_INTEGER, size - 1, MPI_COMM_WORLD, ierr)
  call check(all(v == [7, 8, 9]), 'MPI_Bcast')
  x = [dble(rank), 1d0]
  call MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(x(1) == size * (size - 1) / 2d0 .and. x(2) == size, 'MPI_Allreduce MPI_IN_PLACE')
  v = [rank, -rank, 1]
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
    call check(all(v == [size - 1, 0, 1]), 'MPI_Reduce MPI_IN_PLACE at the root')
  else
    call MPI_Reduce(v, v, 3, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  end if

  ! Gather / Allgather / Alltoall / Scan
  call MPI_Gather(rank * 2, 1, MPI_INTEGER, got, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(all(got == [(2 * i, i = 0, size - 1)]), 'MPI_Gather')
  got = -1
  got(rank + 1) = rank + 100
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(got == [(i + 100, i = 0, size - 1)]), 'MPI_Allgather MPI_IN_PLACE')
  each = [(rank * 10 + i, i = 0, size - 1)]
  call MPI_Alltoall(each, 1, MPI_INTEGER, got, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(got == [(i * 10 + rank, i = 0, size - 1)]), 'MPI_Alltoall')
  call MPI_Scan(rank + 1, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(i == (rank + 1) * (rank + 2) / 2, 'MPI_Scan')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! a derived datatype: row 2 of m(4,5) (stride 4 in memory) to the right,
  ! received as 5 contiguous integers; and the same through MPI_BOTTOM
  m = reshape([(rank * 100 + i, i = 1, 20)], [4, 5])
  call MPI_Type_vector(5, 1, 4, MPI_INTEGER, coltype, ierr)
  call MPI_Type_commit(coltype, ierr)
  call MPI_Sendrecv(m(2, 1), 1, coltype, mod(rank + 1, size), 1, col, 5, MPI_INTEGER, &
                    MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, status, ierr)
  j = mod(rank + size - 1, size)
  call check(all(col == [(j * 100 + 2 + 4 * i, i = 0, 4)]), 'MPI_Type_vector row')
  call MPI_Get_count(status, MPI_INTEGER, i, ierr)
  call check(i == 5, 'count of a vector received as integers')
  call MPI_Type_free(coltype, ierr)
  call check(coltype == MPI_DATATYPE_NULL, 'MPI_Type_free sets MPI_DATATYPE_NULL')
  ! m(3, 4) by its absolute address, sent from MPI_BOTTOM to this rank
  call MPI_Get_address(m(3, 4), addr, ierr)
  call MPI_Type_create_hindexed(1, [1], [addr], MPI_INTEGER, coltype, ierr)
  call MPI_Type_commit(coltype, ierr)
  col = 0
  call MPI_Sendrecv(MPI_BOTTOM, 1, coltype, rank, 2, col, 5, MPI_INTEGER, rank, 2, &
                    MPI_COMM_WORLD, status, ierr)
  call check(ierr == MPI_SUCCESS .and. col(1) == rank * 100 + 15, 'MPI_BOTTOM with an absolute address')
  call MPI_Type_free(coltype, ierr)

  ! Comm_split by parity, ordered by descending world rank
  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, -rank, sub, ierr)
  call MPI_Comm_size(sub, subsize, ierr)
  call MPI_Comm_rank(sub, subrank, ierr)
  call check(subsize == (size - color + 1) / 2, 'MPI_Comm_split size')
  call check(subrank == (size - 1 - rank) / 2, 'MPI_Comm_split rank order (key -rank)')
  call MPI_Allreduce(1, i, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
  call check(i == subsize, 'MPI_Allreduce over the split communicator')

  ! strings: names are blank-padded, and truncated to a shorter variable
  call MPI_Comm_set_name(sub, 'parity  ', ierr)
  call MPI_Comm_get_name(sub, name, rlen, ierr)
  call check(rlen == 6 .and. name == 'parity', 'MPI_Comm_get_name (trailing blanks dropped)')
  call check(name(7:) == ' ', 'MPI_Comm_get_name blank padding')
  call MPI_Comm_get_name(MPI_COMM_WORLD, short, rlen, ierr)
  call check(short == 'MPI_' .and. rlen == 14, 'MPI_Comm_get_name truncated to CHARACTER(4)')
  call MPI_Get_processor_name(host, rlen, ierr)
  call check(rlen > 0 .and. rlen == len_trim(host), 'MPI_Get_processor_name length')
  call MPI_Comm_free(sub, ierr)
  call check(sub == MPI_COMM_NULL, 'MPI_Comm_free sets MPI_COMM_NULL')

  ! bad input: an invalid communicator handle under MPI_ERRORS_RETURN
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  ierr = -1
  call MPI_Send(v, 1, MPI_INTEGER, 0, 0, 12345, ierr)
  call MPI_Error_class(ierr, cls, i)
  call check(cls == MPI_ERR_COMM, 'an invalid communicator gives MPI_ERR_COMM')
  call MPI_Error_string(ierr, msg, rlen, i)
  call check(rlen > 0 .and. index(msg, 'comm') > 0, 'the error string names the argument')

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_coll: ok on ', size, ' ranks'
contains
#include "check.inc"
end program
