! f08_fast: the C fast path of `use mpi_f08` (src/binding/fort_gfc.h), which
! reads gfortran's array descriptor to tell a contiguous buffer (handed to C
! at once) from a section (handed to the Fortran path that copies it or
! describes it by a datatype). Each shape that test must get right, sent
! along a ring and compared with the elements Fortran itself picks out:
! rank-2 sections with a gap between columns, one row of a matrix (extent 1
! then a stride), one column as a rank-2 section (contiguous: an extent-1
! dimension's stride does not count), whole columns, a reversed section, a
! scalar, an empty section, a section of an assumed-size array; non-
! blocking sends of sections completed by MPI_Wait with a status; IERROR
! present and absent, with the error class of a bad rank on both paths;
! MPI_IN_PLACE (a scalar sentinel) and PMPI_ called directly (MPICH's
! module calls pmpir_sendrecv_f08ts_ for it). Any number of ranks.
program f08_fast
  use mpi_f08
  implicit none
  integer, parameter :: rows = 4, cols = 6
  integer :: rank, nproc, right, left, ierr, i, j, cnt, x, y, total
  integer :: m(rows, cols), mr(rows, cols), got(rows * cols), half(rows * cols / 2), z(20), w(20)
  type(MPI_Status) :: status
  type(MPI_Request) :: req

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)
  ! m(i, j) of rank r is 1000 r + 10 i + j: the received values name the
  ! sender and the element
  m = reshape([((1000 * rank + 10 * i + j, i = 1, rows), j = 1, cols)], [rows, cols])

  ! a gap after every column: rows 2 and 3 of each column
  got = -1
  call MPI_Sendrecv(m(2:3, :), 2 * cols, MPI_INTEGER, right, 1, got, 2 * cols, MPI_INTEGER, left, 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call expect_got(left_m(2, 3, 1, cols), 'rows 2:3 of every column')
  ! one row: extent 1, then a stride of a whole column
  got = -1
  call MPI_Sendrecv(m(2:2, :), cols, MPI_INTEGER, right, 2, got, cols, MPI_INTEGER, left, 2, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call expect_got(left_m(2, 2, 1, cols), 'row 2 as a 1 x 6 section')
  got = -1
  call MPI_Sendrecv(m(3, :), cols, MPI_INTEGER, right, 3, got, cols, MPI_INTEGER, left, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call expect_got(left_m(3, 3, 1, cols), 'row 3 as a rank-1 section')
  ! one column as a rank-2 section: contiguous (the fast path)
  got = -1
  call MPI_Sendrecv(m(:, 4:4), rows, MPI_INTEGER, right, 4, got, rows, MPI_INTEGER, left, 4, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call expect_got(left_m(1, rows, 4, 4), 'column 4 as a 4 x 1 section')
  got = -1
  call MPI_Sendrecv(m(:, 2:4), 3 * rows, MPI_INTEGER, right, 5, got, 3 * rows, MPI_INTEGER, left, 5, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call expect_got(left_m(1, rows, 2, 4), 'columns 2:4')
  ! received into a section with a gap: the elements land in place, the
  ! others stay
  mr = -1
  call MPI_Sendrecv(m, rows * cols / 2, MPI_INTEGER, right, 6, mr(2:3, :), rows * cols / 2, &
                    MPI_INTEGER, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  half = left_m(1, rows, 1, cols / 2)
  call check(all(mr(2, :) == half(1::2)), 'receive into rows 2:3: row 2')
  call check(all(mr(3, :) == half(2::2)), 'receive into rows 2:3: row 3')
  call check(all(mr(1, :) == -1) .and. all(mr(4, :) == -1), 'receive into rows 2:3: rows 1 and 4 stay')

  ! a reversed section
  z = [(100 * rank + i, i = 1, 20)]
  w = -1
  call MPI_Sendrecv(z(20:1:-1), 20, MPI_INTEGER, right, 7, w, 20, MPI_INTEGER, left, 7, &
                    MPI_COMM_WORLD, status, ierr)
  call check(ierr == MPI_SUCCESS, 'Sendrecv of a reversed section: ierror')
  call check(all(w == [(100 * left + i, i = 20, 1, -1)]), 'Sendrecv of a reversed section: data')
  call check(status%MPI_SOURCE == left .and. status%MPI_TAG == 7, 'Sendrecv status')

  ! a scalar, both ways
  x = 77 + rank
  y = -1
  call MPI_Sendrecv(x, 1, MPI_INTEGER, right, 8, y, 1, MPI_INTEGER, left, 8, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
  call check(y == 77 + left, 'scalar buffers')

  ! an empty section, count 0: the status says 0 elements
  call MPI_Sendrecv(z(5:4), 0, MPI_INTEGER, right, 9, w(3:2), 0, MPI_INTEGER, left, 9, &
                    MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call check(cnt == 0 .and. status%MPI_SOURCE == left, 'empty sections')

  ! a section of an assumed-size array
  w = -1
  call assumed_size(z, w, 10)
  call check(all(w(1:10) == [(100 * left + i, i = 1, 10)]) .and. all(w(11:) == -1), &
             'assumed-size array')

  ! nonblocking: a strided receive and a row sent, MPI_Wait's status
  got = -1
  call MPI_Irecv(got(1:2 * cols:2), cols, MPI_INTEGER, left, 10, MPI_COMM_WORLD, req)
  call MPI_Send(m(1, :), cols, MPI_INTEGER, right, 10, MPI_COMM_WORLD)
  call MPI_Wait(req, status, ierr)
  call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'MPI_Wait ierror and request')
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call check(cnt == cols .and. status%MPI_SOURCE == left .and. status%MPI_TAG == 10, &
             'MPI_Wait status')
  call check(all(got(1:2 * cols:2) == left_m(1, 1, 1, cols)) .and. all(got(2:2 * cols:2) == -1), &
             'Irecv into a strided section')

  ! errors: a bad rank, with a contiguous buffer (C at once) and with a
  ! section (the Fortran path)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)
  ierr = MPI_SUCCESS
  call MPI_Send(z, 1, MPI_INTEGER, nproc, 1, MPI_COMM_WORLD, ierr)
  call check(error_class(ierr) == MPI_ERR_RANK, 'bad rank, contiguous buffer: MPI_ERR_RANK')
  ierr = MPI_SUCCESS
  call MPI_Send(z(1:20:2), 10, MPI_INTEGER, -5, 1, MPI_COMM_WORLD, ierr)
  call check(error_class(ierr) == MPI_ERR_RANK, 'bad rank, strided section: MPI_ERR_RANK')
  ierr = MPI_SUCCESS
  call MPI_Comm_rank(MPI_COMM_NULL, cnt, ierr)
  call check(error_class(ierr) == MPI_ERR_COMM, 'MPI_Comm_rank(MPI_COMM_NULL): MPI_ERR_COMM')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL)

  ! MPI_IN_PLACE, a scalar sentinel; PMPI_ (the weak MPI_'s target) itself
  total = rank
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(total == nproc * (nproc - 1) / 2, 'Allreduce in place')
  y = -1
  call PMPI_Sendrecv(x, 1, MPI_INTEGER, right, 11, y, 1, MPI_INTEGER, left, 11, MPI_COMM_WORLD, &
                     MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. y == 77 + left, 'PMPI_Sendrecv')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'f08_fast: ok on ', nproc, ' ranks'
  call MPI_Finalize()

contains
#include "check.inc"

  ! The left neighbour's m(r1:r2, c1:c2) in array element order.
  function left_m(r1, r2, c1, c2) result(v)
    integer, intent(in) :: r1, r2, c1, c2
    integer :: v((r2 - r1 + 1) * (c2 - c1 + 1))
    v = [((1000 * left + 10 * i + j, i = r1, r2), j = c1, c2)]
  end function

  ! got's first size(expect) elements (received with ierr) are expect; the
  ! rest is untouched.
  subroutine expect_got(expect, what)
    integer, intent(in) :: expect(:)
    character(len=*), intent(in) :: what
    call check(ierr == MPI_SUCCESS, what // ': ierror')
    call check(all(got(1:size(expect)) == expect), what // ': data')
    call check(all(got(size(expect) + 1:) == -1), what // ': nothing beyond')
  end subroutine

  ! a(1:n) of an assumed-size array sent right; b's first n from the left
  subroutine assumed_size(a, b, n)
    integer :: a(*), b(*), n
    call MPI_Sendrecv(a(1:n), n, MPI_INTEGER, right, 12, b(1:n), n, MPI_INTEGER, left, 12, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  end subroutine

  integer function error_class(code)
    integer, intent(in) :: code
    call MPI_Error_class(code, error_class)
  end function
end program
