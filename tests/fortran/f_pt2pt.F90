! f_pt2pt: point-to-point from Fortran — blocking ring with statuses,
! non-blocking exchange with Waitall, probe + get_count, persistent
! requests, MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE. Any number of ranks.
#include "mpi_test.h"
program f_pt2pt
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer, parameter :: n = 100
  integer :: ierr, rank, size, right, left, i, count, flag_count
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2)
  integer :: sbuf(n), rbuf(n)
  double precision :: dbuf(n), dget(n)
  logical :: flag
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  ! read and written by MPI_Startall/MPI_Waitall, which do not name them:
  ! VOLATILE keeps an optimising compiler from caching them (MPI-3.1 17.1.17)
  integer, volatile :: psend, precv
  integer :: reqs4(4), idx, outcount, indices(4), dummy(4)

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init ierror')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)

  ! blocking: to the right, from the left; the status names the sender
  sbuf = [(rank * 1000 + i, i = 1, n)]
  rbuf = -1
  if (mod(rank, 2) == 0) then
    call MPI_Send(sbuf, n, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, n, MPI_INTEGER, left, 7, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
    call MPI_Send(sbuf, n, MPI_INTEGER, right, 7, MPI_COMM_WORLD, ierr)
  end if
  call check(ierr == MPI_SUCCESS, 'MPI_Send/Recv ierror')
  call check(all(rbuf == [(left * 1000 + i, i = 1, n)]), 'ring data')
  call check(status(MPI_SOURCE) == left .and. status(MPI_TAG) == 7, 'status source and tag')
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  call check(count == n, 'MPI_Get_count after Recv')

  ! non-blocking both ways, doubles, statuses kept
  dbuf = [(rank + i / 8.0d0, i = 1, n)]
  dget = 0
  call MPI_Irecv(dget, n, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(dbuf, n, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Waitall ierror')
  call check(all(dget == [(left + i / 8.0d0, i = 1, n)]), 'Isend/Irecv data')
  call check(statuses(MPI_SOURCE, 1) == left, 'Waitall status of the receive')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')

  ! probe: the size of a message before receiving it (count = rank + 1)
  call MPI_Isend(sbuf, right + 1, MPI_INTEGER, right, 11, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Probe(left, 11, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  call check(count == rank + 1, 'MPI_Probe then MPI_Get_count')
  call MPI_Iprobe(left, 11, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
  call check(flag, 'MPI_Iprobe finds the probed message (LOGICAL flag)')
  call MPI_Recv(rbuf, count, MPI_INTEGER, left, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call check(all(rbuf(1:count) == [(left * 1000 + i, i = 1, count)]), 'probed message data')
  call MPI_Iprobe(left, 11, MPI_COMM_WORLD, flag, status, ierr)
  call check(.not. flag, 'MPI_Iprobe finds nothing more')

  ! persistent requests, started three times
  do i = 1, 3
    if (i == 1) then
      call MPI_Recv_init(precv, 1, MPI_INTEGER, left, 5, MPI_COMM_WORLD, reqs(1), ierr)
      call MPI_Send_init(psend, 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, reqs(2), ierr)
    end if
    psend = rank * 10 + i
    call MPI_Startall(2, reqs, ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call check(precv == left * 10 + i, 'persistent round data')
  end do
  call check(reqs(1) /= MPI_REQUEST_NULL, 'persistent request kept')
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  call check(reqs(1) == MPI_REQUEST_NULL, 'MPI_Request_free sets MPI_REQUEST_NULL')

  ! Waitany/Testany/Waitsome/Testsome return request indices counted from 1
  ! (receives from MPI_PROC_NULL complete at once; null requests never do)
  reqs4 = MPI_REQUEST_NULL
  call MPI_Irecv(dummy(2), 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs4(2), ierr)
  call MPI_Waitany(4, reqs4, idx, status, ierr)
  call check(ierr == MPI_SUCCESS .and. idx == 2, 'MPI_Waitany index from 1')
  call check(status(MPI_SOURCE) == MPI_PROC_NULL, 'MPI_Waitany status of a MPI_PROC_NULL receive')
  call MPI_Waitany(4, reqs4, idx, status, ierr)
  call check(idx == MPI_UNDEFINED, 'MPI_Waitany with no active request: MPI_UNDEFINED')
  call MPI_Irecv(dummy(3), 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs4(3), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testany(4, reqs4, idx, flag, MPI_STATUS_IGNORE, ierr)
  end do
  call check(idx == 3, 'MPI_Testany index from 1')
  call MPI_Irecv(dummy(1), 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs4(1), ierr)
  call MPI_Irecv(dummy(4), 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, reqs4(4), ierr)
  outcount = 0
  indices = 0
  do while (outcount < 2)
    call MPI_Waitsome(4, reqs4, i, indices(outcount + 1:), MPI_STATUSES_IGNORE, ierr)
    outcount = outcount + i
  end do
  call check(all(indices(1:2) == [1, 4]) .or. all(indices(1:2) == [4, 1]), 'MPI_Waitsome indices from 1')
  call MPI_Testsome(4, reqs4, outcount, indices, MPI_STATUSES_IGNORE, ierr)
  call check(outcount == MPI_UNDEFINED, 'MPI_Testsome with no active request: MPI_UNDEFINED')

  ! Sendrecv: the message count arrives in the status
  call MPI_Sendrecv(sbuf, rank + 2, MPI_INTEGER, right, 9, rbuf, n, MPI_INTEGER, left, 9, &
                    MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, flag_count, ierr)
  call check(flag_count == left + 2, 'MPI_Sendrecv count')

  ! the library that answered (the ABI tests check it is rdmach)
  call MPI_Get_library_version(lib, count, ierr)
  call check(count == len_trim(lib), 'MPI_Get_library_version length')
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, 2a)', 'f_pt2pt: ok on ', size, ' ranks, library ', lib(1:index(lib, ' ') - 1)
contains
#include "check.inc"
end program
