! f08_large: the MPI-4 large-count procedures of `use mpi_f08` (a count of
! KIND=MPI_COUNT_KIND selects MPI_<Name>_f08ts_large, MPICH's link name
! mpi_send_f08ts_large_): blocking and nonblocking point-to-point with
! contiguous buffers and with sections (their counts fit a default INTEGER:
! the section path), a collective, MPI_Type_size/contiguous/vector/indexed
! (MPI_Count and MPI_Aint arrays) and
! MPI_Pack_size of MPI_Count, MPI_Get_count of what arrived, and
! MPI_ERR_COUNT for a section with a count beyond a default INTEGER. A ring:
! any number of ranks.
program f08_large
  use mpi_f08
  implicit none
  integer, parameter :: n = 40
  integer(kind=MPI_COUNT_KIND) :: cnt, sz, half
  integer :: rank, nproc, right, left, ierr, i, got_n
  integer :: a(n), b(n), c(2 * n)
  type(MPI_Status) :: status
  type(MPI_Request) :: req
  type(MPI_Datatype) :: contig, vec, idx

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)
  a = [(100 * rank + i, i = 1, n)]
  cnt = n
  half = n / 2

  ! contiguous, blocking (Sendrecv) and nonblocking (Irecv + Send + Wait)
  b = -1
  call MPI_Sendrecv(a, cnt, MPI_INTEGER, right, 1, b, cnt, MPI_INTEGER, left, 1, MPI_COMM_WORLD, &
                    status, ierr)
  call check(ierr == MPI_SUCCESS .and. all(b == [(100 * left + i, i = 1, n)]), 'Sendrecv large')
  call MPI_Get_count(status, MPI_INTEGER, got_n)
  call check(got_n == n, 'Sendrecv large: count')
  b = -1
  call MPI_Irecv(b, cnt, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req)
  call MPI_Send(a, cnt, MPI_INTEGER, right, 2, MPI_COMM_WORLD)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(all(b == [(100 * left + i, i = 1, n)]), 'Irecv/Send large')

  ! sections: every other element out, into every other element of c
  c = -1
  call MPI_Sendrecv(a(1:n:2), half, MPI_INTEGER, right, 3, c(2:2 * n:4), half, MPI_INTEGER, left, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'Sendrecv large of sections: ierror')
  call check(all(c(2:2 * n:4) == [(100 * left + i, i = 1, n, 2)]), 'Sendrecv large of sections: data')
  call check(count(c == -1) == 2 * n - n / 2, 'Sendrecv large of sections: nothing else written')
  c = -1
  call MPI_Irecv(c(1:n:2), half, MPI_INTEGER, left, 4, MPI_COMM_WORLD, req)
  call MPI_Send(a(n:1:-2), half, MPI_INTEGER, right, 4, MPI_COMM_WORLD)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(all(c(1:n:2) == [(100 * left + i, i = n, 1, -2)]), 'Irecv large into a section')

  ! a collective
  b = a
  call MPI_Bcast(b, cnt, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(all(b == [(i, i = 1, n)]), 'Bcast large')

  ! datatypes and sizes as MPI_Count
  call MPI_Type_contiguous(cnt, MPI_INTEGER, contig)
  call MPI_Type_size(contig, sz)
  call check(sz == 4 * n, 'Type_contiguous and Type_size large')
  call MPI_Type_vector(half, 1_MPI_COUNT_KIND, 2_MPI_COUNT_KIND, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  call MPI_Type_size(vec, sz)
  call check(sz == 4 * (n / 2), 'Type_vector large')
  c = -1
  call MPI_Sendrecv(a, 1_MPI_COUNT_KIND, vec, right, 5, c, half, MPI_INTEGER, left, 5, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(all(c(1:n / 2) == [(100 * left + i, i = 1, n, 2)]), 'Type_vector large: data')
  call MPI_Type_indexed(2_MPI_COUNT_KIND, [1_MPI_COUNT_KIND, 2_MPI_COUNT_KIND], &
                        [0_MPI_ADDRESS_KIND, 3_MPI_ADDRESS_KIND], MPI_INTEGER, idx)
  call MPI_Type_commit(idx)
  call MPI_Type_size(idx, sz)
  call check(sz == 12, 'Type_indexed large: size')
  c = -1
  call MPI_Sendrecv(a, 1, idx, right, 7, c, 3, MPI_INTEGER, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(all(c(1:3) == 100 * left + [1, 4, 5]) .and. all(c(4:) == -1), 'Type_indexed large: data')
  call MPI_Type_free(idx)
  call MPI_Pack_size(cnt, MPI_INTEGER, MPI_COMM_WORLD, sz)
  call check(sz >= 4 * n, 'Pack_size large')
  call MPI_Type_free(vec)
  call MPI_Type_free(contig)

  ! a section with a count beyond a default INTEGER: MPI_ERR_COUNT, on the
  ! communicator's error handler
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  ierr = MPI_SUCCESS
  call MPI_Send(a(1:n:2), 2_MPI_COUNT_KIND**31, MPI_INTEGER, right, 6, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, i)
  call check(i == MPI_ERR_COUNT, 'a section with a count above 2**31-1: MPI_ERR_COUNT')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'f08_large: ok on ', nproc, ' ranks'
  call MPI_Finalize()

contains
#include "check.inc"
end program
