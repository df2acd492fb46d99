! f08_pt2pt: point-to-point through `use mpi_f08` — TYPE(MPI_Status) (and
! MPI_Status_f082f/f2f08 to and from an INTEGER status), blocking,
! non-blocking, persistent, probe and matched probe, and non-contiguous
! array sections as buffers (MPI_SUBARRAYS_SUPPORTED): a strided section
! a(1:2n:2), a reversed one, a 2-D section, a count below the section's
! size, a section of a derived-type array (struct datatype), sent and
! received in place both ways; MPI_BOTTOM with absolute addresses. A
! ring: any number of ranks.
program f08_pt2pt
  use mpi_f08
  implicit none
  type :: point
    integer :: id
    double precision :: x
  end type
  integer, parameter :: n = 50
  integer :: ierr, rank, nproc, right, left, i, j, cnt
  integer :: a(2 * n), b(2 * n), c(n), m(4, 6), r(6), expect(2 * n)
  double precision :: d(3 * n), e(3 * n)
  type(MPI_Status) :: status, statuses(2), status2
  ! an INTEGER status: mpif.h's MPI_SOURCE, MPI_TAG, MPI_ERROR index it
  ! (MPI_Status's components in mpi_f08 have those names)
  integer, parameter :: f_source = 3, f_tag = 4, f_error = 5
  integer :: fstatus(MPI_STATUS_SIZE)
  type(MPI_Request) :: reqs(2)
  type(MPI_Message) :: msg
  logical :: flag
  type(point) :: pts(8), got(4)
  type(MPI_Datatype) :: struct_type, point_type, abs_send, abs_recv
  integer :: sent(n), recvd(n)
  integer(kind=MPI_ADDRESS_KIND) :: base, disps(2)

  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  integer :: lib_len

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init ierror')
  call check(MPI_SUBARRAYS_SUPPORTED .and. MPI_ASYNC_PROTECTS_NONBLOCKING, 'f08 feature constants')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)

  ! blocking ring, contiguous; the status names the sender
  a = [(rank * 1000 + i, i = 1, 2 * n)]
  b = -1
  call MPI_Sendrecv(a, n, MPI_INTEGER, right, 7, b, n, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, &
                    MPI_COMM_WORLD, status, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Sendrecv ierror')
  call check(all(b(1:n) == [(left * 1000 + i, i = 1, n)]) .and. all(b(n + 1:) == -1), 'ring data')
  call check(status%MPI_SOURCE == left .and. status%MPI_TAG == 7, 'status source and tag')
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call check(cnt == n, 'MPI_Get_count')
  ! the same status as an INTEGER array (MPI_Status_f082f) and back with
  ! another tag (MPI_Status_f2f08): MPI_Get_count still reads n from it
  fstatus = -1
  call MPI_Status_f082f(status, fstatus, ierr)
  call check(ierr == MPI_SUCCESS .and. fstatus(f_source) == left .and. fstatus(f_tag) == 7 .and. &
             fstatus(f_error) == status%MPI_ERROR, 'MPI_Status_f082f')
  fstatus(f_tag) = 99
  call MPI_Status_f2f08(fstatus, status2)
  call check(status2%MPI_SOURCE == left .and. status2%MPI_TAG == 99, 'MPI_Status_f2f08')
  call MPI_Get_count(status2, MPI_INTEGER, cnt)
  call check(cnt == n, 'MPI_Get_count of MPI_Status_f2f08''s status')

  ! strided: a's odd elements into b's even ones; b's odd ones untouched
  b = -1
  if (mod(rank, 2) == 0) then
    call MPI_Send(a(1:2 * n:2), n, MPI_INTEGER, right, 1, MPI_COMM_WORLD)
    call MPI_Recv(b(2:2 * n:2), n, MPI_INTEGER, left, 1, MPI_COMM_WORLD, status)
  else
    call MPI_Recv(b(2:2 * n:2), n, MPI_INTEGER, left, 1, MPI_COMM_WORLD, status)
    call MPI_Send(a(1:2 * n:2), n, MPI_INTEGER, right, 1, MPI_COMM_WORLD)
  end if
  expect = -1
  expect(2:2 * n:2) = [(left * 1000 + 2 * i - 1, i = 1, n)]
  call check(all(b == expect), 'strided Send/Recv data')
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call check(cnt == n, 'MPI_Get_count of a strided receive')

  ! non-blocking, strided doubles both ways, reversed receive; Wait each
  d = [(rank + i / 8.0d0, i = 1, 3 * n)]
  e = 0
  call MPI_Irecv(e(3 * n:1:-3), n, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(d(2:3 * n:3), n, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, reqs(2))
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE)
  call MPI_Wait(reqs(1), status, ierr)
  call check(ierr == MPI_SUCCESS .and. status%MPI_SOURCE == left, 'Irecv Wait status')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')
  do i = 1, n   ! e(3n - 3(i-1)) got the i-th sent element, d(2 + 3(i-1)) of the left rank
    call check(e(3 * n - 3 * (i - 1)) == left + (2 + 3 * (i - 1)) / 8.0d0, 'Isend/Irecv strided data')
  end do
  call check(count_nonzero(e) == n, 'Irecv touched only its section')

  ! MPI_Waitany counts from 1; MPI_Testall's flag is a LOGICAL
  call MPI_Irecv(c, 1, MPI_INTEGER, left, 8, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 8, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitany(2, reqs, i, status)
  call check(i == 1 .and. status%MPI_SOURCE == left .or. i == 2, 'MPI_Waitany index')
  call MPI_Waitany(2, reqs, j, MPI_STATUS_IGNORE)
  call check(i + j == 3 .and. c(1) == left, 'MPI_Waitany both')
  call MPI_Testall(2, reqs, flag, MPI_STATUSES_IGNORE)
  call check(flag, 'MPI_Testall of null requests: .true.')

  ! a 2-D section m(2:3, 1:6:2) (6 elements, column order) into a vector;
  ! then 3 elements of a strided section (a count below its size)
  m = reshape([(rank * 100 + i, i = 1, 24)], [4, 6])
  call MPI_Irecv(r, 6, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(m(2:3, 1:6:2), 6, MPI_INTEGER, right, 4, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, statuses)
  call check(all(r == [(( left * 100 + (j - 1) * 4 + i, i = 2, 3), j = 1, 6, 2)]), '2-D section data')
  call check(statuses(1)%MPI_SOURCE == left .and. statuses(1)%MPI_TAG == 4, 'Waitall statuses')
  r = -1
  call MPI_Sendrecv(m(2:3, 1:6:2), 4, MPI_INTEGER, right, 6, r, 4, MPI_INTEGER, left, 6, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(all(r(1:4) == [left * 100 + 2, left * 100 + 3, left * 100 + 10, left * 100 + 11]) &
             .and. all(r(5:6) == -1), '2-D section, count below its size')
  c = -1
  call MPI_Irecv(c(1:n:4), 3, MPI_INTEGER, left, 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(m(1, 2:6), 3, MPI_INTEGER, right, 5, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call check(c(1) == left * 100 + 5 .and. c(5) == left * 100 + 9 .and. c(9) == left * 100 + 13 &
             .and. count(c /= -1) == 3, 'count below the section size')

  ! persistent, with a strided buffer, started twice
  call MPI_Recv_init(b(1:2 * n:2), n, MPI_INTEGER, left, 9, MPI_COMM_WORLD, reqs(1))
  call MPI_Send_init(a(2:2 * n:2), n, MPI_INTEGER, right, 9, MPI_COMM_WORLD, reqs(2))
  do j = 1, 2
    b = -1
    a(2:2 * n:2) = [(rank * 1000 + j * 10 + i, i = 1, n)]
    call MPI_Startall(2, reqs)
    call MPI_Waitall(2, reqs, statuses, ierr)
    call check(ierr == MPI_SUCCESS, 'persistent Waitall ierror')
    call check(all(b(1:2 * n:2) == [(left * 1000 + j * 10 + i, i = 1, n)]) .and. &
               all(b(2:2 * n:2) == -1), 'persistent strided data')
  end do
  call check(reqs(1) /= MPI_REQUEST_NULL, 'a persistent request stays')
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))

  ! probe: the size of a message before receiving it (count = rank + 1)
  a = [(rank * 1000 + i, i = 1, 2 * n)]
  call MPI_Isend(a, right + 1, MPI_INTEGER, right, 11, MPI_COMM_WORLD, reqs(1))
  call MPI_Probe(left, 11, MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call check(cnt == rank + 1 .and. status%MPI_SOURCE == left, 'MPI_Probe then MPI_Get_count')
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(left, 11, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE)
  end do
  call MPI_Recv(b, cnt, MPI_INTEGER, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call check(all(b(1:cnt) == [(left * 1000 + i, i = 1, cnt)]), 'probed message data')
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)

  ! matched probe into a strided receive
  call MPI_Isend(a(1:n), n, MPI_INTEGER, right, 12, MPI_COMM_WORLD, reqs(1))
  call MPI_Mprobe(left, 12, MPI_COMM_WORLD, msg, status)
  call check(msg /= MPI_MESSAGE_NULL .and. status%MPI_TAG == 12, 'MPI_Mprobe')
  b = -1
  call MPI_Mrecv(b(2 * n:1:-2), n, MPI_INTEGER, msg, status)
  call check(msg == MPI_MESSAGE_NULL, 'MPI_Mrecv frees the message')
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call check(all(b(2 * n:1:-2) == [(left * 1000 + i, i = 1, n)]) .and. all(b(1:2 * n:2) == -1), &
             'Mrecv strided data')

  ! a section of a derived-type array: a struct datatype resized to the
  ! element (its extent must be the element's), every other point sent
  call MPI_Get_address(pts(1), base)
  call MPI_Get_address(pts(1)%id, disps(1))
  call MPI_Get_address(pts(1)%x, disps(2))
  disps = disps - base
  call MPI_Type_create_struct(2, [1, 1], disps, [MPI_INTEGER, MPI_DOUBLE_PRECISION], struct_type)
  call MPI_Type_create_resized(struct_type, 0_MPI_ADDRESS_KIND, &
                               int(storage_size(pts(1)) / 8, MPI_ADDRESS_KIND), point_type)
  call MPI_Type_commit(point_type)
  pts = [(point(rank * 10 + i, rank + i / 4d0), i = 1, 8)]
  got = point(-1, -1d0)
  call MPI_Sendrecv(pts(2:8:2), 4, point_type, right, 13, got, 4, point_type, left, 13, &
                    MPI_COMM_WORLD, status)
  call check(all(got%id == [(left * 10 + i, i = 2, 8, 2)]) .and. &
             all(got%x == [(left + i / 4d0, i = 2, 8, 2)]), 'derived-type array section')
  call MPI_Type_free(struct_type)
  call MPI_Type_free(point_type)

  ! MPI_BOTTOM with datatypes of absolute addresses, as both buffers: C
  ! must get its MPI_BOTTOM (NULL), not the sentinel's address
  sent = [(rank * 100 + i, i = 1, n)]
  recvd = -1
  call MPI_Get_address(sent, base)
  call MPI_Type_create_struct(1, [n], [base], [MPI_INTEGER], abs_send)
  call MPI_Get_address(recvd, base)
  call MPI_Type_create_struct(1, [n], [base], [MPI_INTEGER], abs_recv)
  call MPI_Type_commit(abs_send)
  call MPI_Type_commit(abs_recv)
  call MPI_Sendrecv(MPI_BOTTOM, 1, abs_send, right, 14, MPI_BOTTOM, 1, abs_recv, left, 14, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_F_sync_reg(recvd)
  call check(ierr == MPI_SUCCESS .and. all(recvd == [(left * 100 + i, i = 1, n)]), &
             'MPI_BOTTOM with absolute addresses')
  call MPI_Type_free(abs_send)
  call MPI_Type_free(abs_recv)

  call MPI_Barrier(MPI_COMM_WORLD)
  ! the library that answered (the ABI tests, built with MPICH's own
  ! mpi_f08, check it is rdmach)
  call MPI_Get_library_version(lib, lib_len)
  if (rank == 0) print '(a, i0, 2a)', 'f08_pt2pt: ok on ', nproc, ' ranks, library ', &
                       lib(1:index(lib, ' ') - 1)
  call MPI_Finalize(ierr)

contains
  integer function count_nonzero(x)
    double precision, intent(in) :: x(:)
    count_nonzero = count(x /= 0)
  end function
#include "check.inc"
end program
