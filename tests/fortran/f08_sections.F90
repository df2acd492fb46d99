! f08_sections: non-contiguous array sections as choice buffers of `use
! mpi_f08` (MPI_SUBARRAYS_SUPPORTED = .TRUE., MPI-4.1 19.1.12): the section
! is the buffer "as if contiguous", its elements in array element order, to
! which count, datatype, counts and displacements per rank apply. Every
! expected value is computed here from that rule, and the elements between
! a section's are checked untouched. Any number of ranks (1 to 4).
!   - blocking point-to-point: MPI_Sendrecv from a stride-2 section into a
!     differently strided one (one datatype for both), a 2-d section;
!   - nonblocking: MPI_Irecv into sections posted before the data is sent
!     (the buffer is used in place until MPI_Waitall), MPI_Isend of sections;
!   - v/w collectives: MPI_Gatherv (gaps between blocks, into a 2-d
!     section), MPI_Scatterv, MPI_Allgatherv, MPI_Alltoallv, MPI_Alltoallw
!     (byte displacements), MPI_Reduce_scatter, MPI_Allreduce from and into
!     sections of different strides; MPI_Iallgatherv into a strided section;
!   - one-sided: MPI_Put from and MPI_Get into sections;
!   - refused, as the standard allows or requires: a window's base or an
!     attached buffer (MPI_Comm_attach_buffer) that is not simply contiguous, MPI_Ialltoallw and MPI_Iallreduce with sections
!     (MPI_ERR_BUFFER under MPI_ERRORS_RETURN).
program f08_sections
  use mpi_f08
  implicit none
  integer, parameter :: n = 4, big = 4 * n * 4
  integer :: rank, nproc, left, right, i, j, k, e, q, ierr
  integer :: a(2 * n), b(3 * n), c2(4, 3), d(12), b2(3 * n + 1), m3(3, 3)
  integer :: x(n), y(2 * n), g2(3, 10)
  integer :: strided(2 * big), sc(2 * big), ta(2 * big), tb(3 * big), tw(3, big)
  integer :: rs(2 * big), rr(3 * n), ar(2 * n), br(3 * n)
  integer :: counts(4), displs(4), rcounts(4), rdispls(4)
  type(MPI_Datatype) :: types(4)
  type(MPI_Request) :: reqs(4), req
  type(MPI_Status) :: st
  type(MPI_Win) :: win
  ! the window and the Get's target change behind the compiler's back
  integer, asynchronous :: winmem(n * 4), got(3 * n)
  integer(kind=MPI_ADDRESS_KIND) :: winsize, tdisp

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call check(nproc <= 4, 'at most 4 ranks')
  right = mod(rank + 1, nproc)
  left = mod(rank - 1 + nproc, nproc)

  ! ---- blocking point-to-point ----
  a = [(1000 * rank + i, i = 1, 2 * n)]
  b = -1
  call MPI_Sendrecv(a(1:2 * n:2), n, MPI_INTEGER, right, 1, b(1:3 * n:3), n, MPI_INTEGER, left, 1, &
                    MPI_COMM_WORLD, st, ierr)
  call check(ierr == MPI_SUCCESS, 'Sendrecv of sections: ierror')
  do k = 1, n
    call check(b(3 * k - 2) == 1000 * left + 2 * k - 1, 'Sendrecv stride 2 -> stride 3: data')
    call check(b(3 * k - 1) == -1 .and. b(3 * k) == -1, 'Sendrecv: elements between untouched')
  end do
  c2 = reshape([(100 * rank + i, i = 1, 12)], [4, 3])
  d = -1
  call MPI_Sendrecv(c2(1:2, 1:3), 6, MPI_INTEGER, right, 2, d(1:12:2), 6, MPI_INTEGER, left, 2, &
                    MPI_COMM_WORLD, st)
  do e = 0, 5   ! element e of c2(1:2, 1:3) is c2(mod(e, 2) + 1, e / 2 + 1)
    call check(d(2 * e + 1) == 100 * left + 4 * (e / 2) + mod(e, 2) + 1, 'Sendrecv of a 2-d section')
    call check(d(2 * e + 2) == -1, 'Sendrecv 2-d: gaps untouched')
  end do

  ! ---- nonblocking: receives posted first, data sent after a barrier ----
  b2 = -1
  m3 = -1
  call MPI_Irecv(b2(2:3 * n + 1:3), n, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(m3(1:2, 1:3), 6, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(2))
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Isend(a(2:2 * n:2), n, MPI_INTEGER, right, 3, MPI_COMM_WORLD, reqs(3))
  call MPI_Isend(c2(2:3, 1:3), 6, MPI_INTEGER, right, 4, MPI_COMM_WORLD, reqs(4))
  call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE)
  do k = 1, n
    call check(b2(3 * k - 1) == 1000 * left + 2 * k, 'Irecv into a stride-3 section')
    call check(b2(3 * k - 2) == -1 .and. b2(3 * k) == -1, 'Irecv: gaps untouched')
  end do
  do e = 0, 5   ! element e of c2(2:3, 1:3) is c2(mod(e, 2) + 2, e / 2 + 1)
    call check(m3(mod(e, 2) + 1, e / 2 + 1) == 100 * left + 4 * (e / 2) + mod(e, 2) + 2, &
               'Irecv into a 2-d section')
  end do
  call check(all(m3(3, :) == -1), 'Irecv 2-d: the row outside untouched')

  ! ---- v collectives ----
  x = [(100 * rank + j, j = 1, n)]
  counts = n
  displs = [(i * n, i = 0, 3)]
  strided = -1
  call MPI_Gatherv(x, n, MPI_INTEGER, strided(1:2 * n * nproc:2), counts, displs, MPI_INTEGER, 0, &
                   MPI_COMM_WORLD)
  if (rank == 0) then
    do k = 1, n * nproc   ! element k: rank (k-1)/n's x(mod(k-1, n)+1)
      call check(strided(2 * k - 1) == 100 * ((k - 1) / n) + mod(k - 1, n) + 1, 'Gatherv into stride 2')
      call check(strided(2 * k) == -1, 'Gatherv: gaps untouched')
    end do
  end if
  ! gaps between the blocks (displacement i*(n+1)) in a 2-d section
  g2 = -1
  displs = [(i * (n + 1), i = 0, 3)]
  call MPI_Gatherv(x, n, MPI_INTEGER, g2(1:2, 1:10), counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    do e = 0, 19   ! section element e is g2(mod(e, 2) + 1, e / 2 + 1)
      q = e / (n + 1)
      j = mod(e, n + 1)
      if (q < nproc .and. j < n) then
        call check(g2(mod(e, 2) + 1, e / 2 + 1) == 100 * q + j + 1, 'Gatherv into a 2-d section')
      else
        call check(g2(mod(e, 2) + 1, e / 2 + 1) == -1, 'Gatherv 2-d: the gaps untouched')
      end if
    end do
    call check(all(g2(3, :) == -1), 'Gatherv 2-d: the row outside untouched')
  end if
  displs = [(i * n, i = 0, 3)]
  sc = [(7 * ((i + 1) / 2), i = 1, 2 * big)]   ! sc(2k-1) = 7k
  y = -1
  call MPI_Scatterv(sc(1:2 * n * nproc:2), counts, displs, MPI_INTEGER, y(1:2 * n:2), n, MPI_INTEGER, &
                    0, MPI_COMM_WORLD)
  do j = 1, n
    call check(y(2 * j - 1) == 7 * (rank * n + j) .and. y(2 * j) == -1, 'Scatterv from stride 2')
  end do
  strided = -1
  call MPI_Allgatherv(x, n, MPI_INTEGER, strided(2:2 * n * nproc:2), counts, displs, MPI_INTEGER, &
                      MPI_COMM_WORLD)
  do k = 1, n * nproc
    call check(strided(2 * k) == 100 * ((k - 1) / n) + mod(k - 1, n) + 1 .and. strided(2 * k - 1) == -1, &
               'Allgatherv into stride 2')
  end do
  ! alltoallv: for destination q, element j: 1000*rank + 10*q + j
  do q = 0, nproc - 1
    do j = 1, n
      ta(2 * (q * n + j) - 1) = 1000 * rank + 10 * q + j
    end do
  end do
  tb = -1
  call MPI_Alltoallv(ta(1:2 * n * nproc:2), counts, displs, MPI_INTEGER, tb(1:3 * n * nproc:3), &
                     counts, displs, MPI_INTEGER, MPI_COMM_WORLD)
  do q = 0, nproc - 1
    do j = 1, n
      k = q * n + j
      call check(tb(3 * k - 2) == 1000 * q + 10 * rank + j, 'Alltoallv stride 2 -> stride 3')
      call check(tb(3 * k - 1) == -1 .and. tb(3 * k) == -1, 'Alltoallv: gaps untouched')
    end do
  end do
  ! alltoallw: displacements in bytes of the section as if contiguous
  rcounts = n
  rdispls = [(i * n * 4, i = 0, 3)]
  types = MPI_INTEGER
  tw = -1
  call MPI_Alltoallw(ta(1:2 * n * nproc:2), rcounts, rdispls, types, tw(1:2, 1:n * nproc / 2), &
                     rcounts, rdispls, types, MPI_COMM_WORLD)
  do e = 0, n * nproc - 1   ! element e of tw(1:2, :) is tw(mod(e, 2) + 1, e / 2 + 1)
    call check(tw(mod(e, 2) + 1, e / 2 + 1) == 1000 * (e / n) + 10 * rank + mod(e, n) + 1, &
               'Alltoallw into a 2-d section')
  end do
  call check(all(tw(3, :) == -1), 'Alltoallw: the row outside untouched')
  ! reduce_scatter: element k of every rank's send section is rank + k
  rs = [(0, i = 1, 2 * big)]
  do k = 1, n * nproc
    rs(2 * k - 1) = rank + k
  end do
  rr = -1
  call MPI_Reduce_scatter(rs(1:2 * n * nproc:2), rr(1:3 * n:3), counts, MPI_INTEGER, MPI_SUM, &
                          MPI_COMM_WORLD)
  do j = 1, n
    call check(rr(3 * j - 2) == nproc * (rank * n + j) + nproc * (nproc - 1) / 2, 'Reduce_scatter')
    call check(rr(3 * j - 1) == -1, 'Reduce_scatter: gaps untouched')
  end do
  ! allreduce from a stride-2 section into a stride-3 one: one datatype
  ar = [(rank * i, i = 1, 2 * n)]
  br = -1
  call MPI_Allreduce(ar(1:2 * n:2), br(1:3 * n:3), n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  do k = 1, n   ! ar(2k-1) summed over ranks: (2k-1) * nproc(nproc-1)/2
    call check(br(3 * k - 2) == (2 * k - 1) * nproc * (nproc - 1) / 2 .and. br(3 * k) == -1, &
               'Allreduce stride 2 -> stride 3')
  end do
  ! a nonblocking v-collective uses a regular section in place
  strided = -1
  call MPI_Iallgatherv(x, n, MPI_INTEGER, strided(1:2 * n * nproc:2), counts, displs, MPI_INTEGER, &
                       MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  do k = 1, n * nproc
    call check(strided(2 * k - 1) == 100 * ((k - 1) / n) + mod(k - 1, n) + 1 .and. strided(2 * k) == -1, &
               'Iallgatherv into stride 2')
  end do

  ! ---- one-sided: origin buffers are sections ----
  winmem = -1
  winsize = 4 * size(winmem)
  call MPI_Win_create(winmem, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  tdisp = rank * n
  call MPI_Put(a(1:2 * n:2), n, MPI_INTEGER, right, tdisp, n, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(winmem)
  do k = 1, n
    call check(winmem(left * n + k) == 1000 * left + 2 * k - 1, 'Put from a stride-2 section')
  end do
  got = -1
  tdisp = rank * n   ! where this rank's MPI_Put went, in right's window
  call MPI_Get(got(1:3 * n:3), n, MPI_INTEGER, right, tdisp, n, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(got)
  do k = 1, n
    call check(got(3 * k - 2) == 1000 * rank + 2 * k - 1, 'Get into a stride-3 section')
    call check(got(3 * k - 1) == -1 .and. got(3 * k) == -1, 'Get into stride 3: gaps untouched')
  end do
  call MPI_Win_free(win)

  ! ---- refused ----
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Win_create(winmem(1:n * 4:2), winsize / 2, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call check(ierr == MPI_ERR_BUFFER, 'a window must be simply contiguous: MPI_ERR_BUFFER')
#ifndef RDMACH_MPICH_MODULE
  ! an attached buffer outlives the call: not a copy, so contiguous only
  ! (MPI-4.1: not in MPICH 4.0.2's module, which the ABI build uses)
  call MPI_Comm_attach_buffer(MPI_COMM_WORLD, sc(1:2 * big:2), 4 * big, ierr)
  call check(ierr == MPI_ERR_BUFFER, 'an attached buffer must be simply contiguous: MPI_ERR_BUFFER')
#endif
  call MPI_Ialltoallw(ta(1:2 * n * nproc:2), rcounts, rdispls, types, tb(1:n * nproc), rcounts, &
                      rdispls, types, MPI_COMM_WORLD, req, ierr)
  call check(ierr == MPI_ERR_BUFFER, 'Ialltoallw with a section: MPI_ERR_BUFFER')
  call MPI_Iallreduce(ar(1:2 * n:2), br(1:3 * n:3), n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call check(ierr == MPI_ERR_BUFFER, 'Iallreduce of differently laid out sections: MPI_ERR_BUFFER')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'f08_sections: ok on ', nproc, ' ranks'
  call MPI_Finalize()

contains
#include "check.inc"
end program
