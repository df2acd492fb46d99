! f08_large_v: the MPI-4 large-count procedures of `use mpi_f08` whose
! counts or displacements are arrays, addresses or outputs (MPICH's link
! names mpi_gatherv_f08ts_large_, mpi_put_f08ts_large_, ...): v-collectives
! with contiguous buffers and with sections (C's MPI_<Name>_c on every
! rank, a section as a datatype stretched to its stride; a reversed one
! refused; MPI_Neighbor_alltoallw's (a datatype per neighbour: no stride to
! stretch one to), which the other ranks' _c calls match,
! through the int form with its per-neighbour arrays as default INTEGERs),
! MPI_Get_count and MPI_Get_elements into an MPI_Count,
! MPI_Type_get_envelope/get_contents with large counts,
! MPI_Pack_external(_size)/Unpack_external (a string), MPI_Buffer_detach,
! MPI_Type_create_hvector/hindexed/hindexed_block/struct, one-sided communication through MPI_Win_create and
! MPI_Win_allocate (a TYPE(C_PTR) base), MPI_Mrecv and MPI_Reduce_local
! (no communicator: a section's count beyond a default INTEGER is
! MPI_ERR_COUNT on MPI_COMM_SELF). Every value is what MPI-4.1 says the
! call computes. Any number of ranks up to 8.
program f08_large_v
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer, parameter :: n = 8
  integer :: rank, nproc, right, left, i, j, k, ierr, total
  integer(kind=MPI_COUNT_KIND), allocatable :: counts(:), rcounts(:)
  integer(kind=MPI_ADDRESS_KIND), allocatable :: displs(:), rdispls(:)
  integer, allocatable :: gat(:), expect(:), sbuf(:), sbig(:), rbuf(:)
  integer(kind=MPI_COUNT_KIND) :: cnt
  integer(kind=MPI_ADDRESS_KIND) :: winsize, unit
  integer :: a(2 * n), b(2 * n), nb(3), sb(6)
  integer, asynchronous :: wbuf(n)
  integer, pointer :: wmem(:)
  type(MPI_Status) :: status
  type(MPI_Message) :: msg
  type(MPI_Request) :: req
  type(MPI_Datatype) :: t, types(1)
  integer(kind=MPI_COUNT_KIND) :: ni, na, nl, nd, larges(1)
  integer(kind=MPI_ADDRESS_KIND) :: addrs(1)
  integer :: combiner, ints(1), v
  integer(kind=MPI_COUNT_KIND) :: bsize
  integer(kind=MPI_ADDRESS_KIND) :: pos, psize, addr
  integer(kind=1) :: packed(16)
  integer(kind=1) :: bsbuf(1000)
  type(c_ptr) :: bptr
  type(MPI_Comm) :: cart
  type(MPI_Win) :: win
  type(c_ptr) :: base

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call check(nproc <= n, 'at most 8 ranks')
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)
  a = [(100 * rank + j, j = 1, 2 * n)]
  allocate(counts(0:nproc - 1), displs(0:nproc - 1), rcounts(0:nproc - 1), rdispls(0:nproc - 1))

  ! Gatherv at 0: rank r's r + 1 elements at displs(r), one element apart
  k = 0
  do i = 0, nproc - 1
    counts(i) = i + 1
    displs(i) = k + i
    k = k + i + 1
  end do
  allocate(gat(0:k + nproc - 1), expect(0:k + nproc - 1))
  cnt = rank + 1
  do j = 1, 2   ! 1: contiguous (C), 2: a section sent (the section path)
    gat = -1
    if (j == 1) then
      call MPI_Gatherv(a, cnt, MPI_INTEGER, gat, counts, displs, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    else
      call MPI_Gatherv(a(1:2 * rank + 2:2), cnt, MPI_INTEGER, gat, counts, displs, MPI_INTEGER, 0, &
                       MPI_COMM_WORLD, ierr)
    end if
    call check(ierr == MPI_SUCCESS, 'Gatherv large: ierror')
    expect = -1
    do i = 0, nproc - 1
      expect(displs(i):displs(i) + i) = [(100 * i + j * k - (j - 1), k = 1, i + 1)]
    end do
    if (rank == 0) call check(all(gat == expect), 'Gatherv large: data')
  end do

  ! Alltoallv: i + 1 elements (1000 * rank + i) to rank i, at i(i+1)/2
  total = nproc * (nproc + 1) / 2
  allocate(sbuf(total), sbig(2 * total), rbuf(nproc * (rank + 1)))
  do i = 0, nproc - 1
    counts(i) = i + 1
    displs(i) = i * (i + 1) / 2
    sbuf(displs(i) + 1:displs(i) + i + 1) = 1000 * rank + i
    rcounts(i) = rank + 1
    rdispls(i) = i * (rank + 1)
  end do
  sbig = -1
  sbig(1:2 * total:2) = sbuf
  do j = 1, 2   ! 2: the send buffer a section
    rbuf = -1
    if (j == 1) then
      call MPI_Alltoallv(sbuf, counts, displs, MPI_INTEGER, rbuf, rcounts, rdispls, MPI_INTEGER, &
                         MPI_COMM_WORLD, ierr)
    else
      call MPI_Alltoallv(sbig(1:2 * total:2), counts, displs, MPI_INTEGER, rbuf, rcounts, rdispls, &
                         MPI_INTEGER, MPI_COMM_WORLD, ierr)
    end if
    call check(ierr == MPI_SUCCESS, 'Alltoallv large: ierror')
    call check(all(rbuf == [((1000 * i + rank, k = 1, rank + 1), i = 0, nproc - 1)]), 'Alltoallv large: data')
  end do

  ! Reduce_scatter, rank i getting i + 1 sums of (rank + position)
  sbuf = [(rank + k, k = 1, total)]
  deallocate(rbuf)
  allocate(rbuf(rank + 1))
  rbuf = -1
  call MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(rbuf == [(nproc * (nproc - 1) / 2 + nproc * (displs(rank) + k), k = 1, rank + 1)]), &
             'Reduce_scatter large')

  ! Neighbor_alltoallv on a periodic ring (neighbours: left, then right):
  ! 1 element to the left, 2 to the right, sent from a section
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [nproc], [.true.], .false., cart)
  sb = -1
  sb(1:6:2) = 10 * rank + [1, 2, 3]
  nb = -1
  call MPI_Neighbor_alltoallv(sb(1:6:2), [1_MPI_COUNT_KIND, 2_MPI_COUNT_KIND], [0_MPI_ADDRESS_KIND, &
                              1_MPI_ADDRESS_KIND], MPI_INTEGER, nb, [2_MPI_COUNT_KIND, 1_MPI_COUNT_KIND], &
                              [0_MPI_ADDRESS_KIND, 2_MPI_ADDRESS_KIND], MPI_INTEGER, cart, ierr)
  call check(ierr == MPI_SUCCESS .and. all(nb == [10 * left + 2, 10 * left + 3, 10 * right + 1]), &
             'Neighbor_alltoallv large of a section on a ring')
  nb = -1
  call MPI_Neighbor_alltoallw(sb(1:6:2), [1_MPI_COUNT_KIND, 2_MPI_COUNT_KIND], [0_MPI_ADDRESS_KIND, &
                              4_MPI_ADDRESS_KIND], [MPI_INTEGER, MPI_INTEGER], nb, [2_MPI_COUNT_KIND, &
                              1_MPI_COUNT_KIND], [0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND], &
                              [MPI_INTEGER, MPI_INTEGER], cart, ierr)
  call check(ierr == MPI_SUCCESS .and. all(nb == [10 * left + 2, 10 * left + 3, 10 * right + 1]), &
             'Neighbor_alltoallw large of a section on a ring (2 * ndims neighbours)')
  call MPI_Comm_free(cart)

  ! Get_count and Get_elements into an MPI_Count; datatypes of MPI_Count
  ! blocklengths and MPI_Aint displacements, each sent to this rank
  call MPI_Sendrecv(a, n, MPI_INTEGER, 0, 1, b, 2 * n, MPI_INTEGER, 0, 1, MPI_COMM_SELF, status)
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call check(cnt == n, 'Get_count large')
  call MPI_Type_create_hvector(2_MPI_COUNT_KIND, 3_MPI_COUNT_KIND, 20_MPI_ADDRESS_KIND, MPI_INTEGER, t)
  call type_sends(t, [1, 2, 3, 6, 7, 8], 'Type_create_hvector large')
  call MPI_Type_create_hindexed(2_MPI_COUNT_KIND, [2_MPI_COUNT_KIND, 1_MPI_COUNT_KIND], &
                                [0_MPI_ADDRESS_KIND, 20_MPI_ADDRESS_KIND], MPI_INTEGER, t)
  call type_sends(t, [1, 2, 6], 'Type_create_hindexed large')
  call MPI_Type_create_hindexed_block(2_MPI_COUNT_KIND, 2_MPI_COUNT_KIND, &
                                      [0_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND], MPI_INTEGER, t)
  call type_sends(t, [1, 2, 5, 6], 'Type_create_hindexed_block large')
  call MPI_Type_create_struct(2_MPI_COUNT_KIND, [1_MPI_COUNT_KIND, 2_MPI_COUNT_KIND], &
                              [0_MPI_ADDRESS_KIND, 12_MPI_ADDRESS_KIND], [MPI_INTEGER, MPI_INTEGER], t)
  call type_sends(t, [1, 4, 5], 'Type_create_struct large')

  ! the envelope and contents with MPI_Count numbers (MPI-4.0's large-count
  ! forms, which add an array of large counts) of a type made by the int
  ! form: one integer, one datatype, no large count
  call MPI_Type_contiguous(3, MPI_INTEGER, t)
  call MPI_Type_get_envelope(t, ni, na, nl, nd, combiner)
  call check(ni == 1 .and. na == 0 .and. nl == 0 .and. nd == 1 .and. combiner == MPI_COMBINER_CONTIGUOUS, &
             'Type_get_envelope large')
  ints = -1
  call MPI_Type_get_contents(t, ni, na, nl, nd, ints, addrs, larges, types)
  call check(ints(1) == 3 .and. types(1) == MPI_INTEGER, 'Type_get_contents large')
  call MPI_Type_free(t)

  ! external32 (big-endian, 4 bytes an INTEGER) with MPI_Count counts: a
  ! section packed (the int form's path, with the string), unpacked into a
  ! contiguous array (C's _c, with a C copy of the string), and back
  call MPI_Pack_external_size('external32', 3_MPI_COUNT_KIND, MPI_INTEGER, psize)
  call check(psize == 12, 'Pack_external_size large')
  pos = 0
  packed = 0
  call MPI_Pack_external('external32 ', a(1:6:2), 3_MPI_COUNT_KIND, MPI_INTEGER, packed, &
                         16_MPI_ADDRESS_KIND, pos)
  v = 100 * rank + 1
  call check(pos == 12 .and. packed(1) == 0 .and. packed(3) == v / 256 .and. &
             iand(int(packed(4)), 255) == mod(v, 256), 'Pack_external large of a section: big-endian bytes')
  b = -1
  pos = 0
  call MPI_Unpack_external('external32', packed, 16_MPI_ADDRESS_KIND, pos, b, 3_MPI_COUNT_KIND, MPI_INTEGER)
  call check(pos == 12 .and. all(b(1:3) == a(1:6:2)) .and. all(b(4:) == -1), 'Unpack_external large')
  pos = 0
  call MPI_Pack_external('external32', b, 3_MPI_COUNT_KIND, MPI_INTEGER, packed, 16_MPI_ADDRESS_KIND, pos)
  b = -1
  pos = 0
  call MPI_Unpack_external('external32', packed, 16_MPI_ADDRESS_KIND, pos, b(1:6:2), 3_MPI_COUNT_KIND, MPI_INTEGER)
  call check(all(b(1:6:2) == a(1:6:2)) .and. all(b(2:6:2) == -1), 'Pack_external, Unpack_external large into a section')

  ! the buffered-send buffer, attached and detached with an MPI_Count size
  ! (its address compared as an integer: gfortran 12 fails on C_ASSOCIATED
  ! with MPICH's module)
  call MPI_Buffer_attach(bsbuf, 1000_MPI_COUNT_KIND)
  call MPI_Buffer_detach(bptr, bsize)
  call MPI_Get_address(bsbuf, addr)
  call check(bsize == 1000 .and. transfer(bptr, addr) == addr, 'Buffer_attach and Buffer_detach large')

  ! one-sided: a window of default INTEGERs (disp_unit of MPI_ADDRESS_KIND)
  winsize = 4 * n
  unit = 4
  wbuf = 0
  call MPI_Win_create(wbuf, winsize, unit, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  call MPI_Put(a, 2_MPI_COUNT_KIND, MPI_INTEGER, right, 3_MPI_ADDRESS_KIND, 2_MPI_COUNT_KIND, MPI_INTEGER, win)
  call MPI_Put(a(1:4:2), 2_MPI_COUNT_KIND, MPI_INTEGER, right, 5_MPI_ADDRESS_KIND, 2_MPI_COUNT_KIND, &
               MPI_INTEGER, win)
  call MPI_Accumulate(a(2:2), 1_MPI_COUNT_KIND, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 1_MPI_COUNT_KIND, &
                      MPI_INTEGER, MPI_SUM, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(wbuf)
  call check(all(wbuf == [100 * left + 2, 0, 0, 100 * left + 1, 100 * left + 2, 100 * left + 1, &
                          100 * left + 3, 0]), 'Put and Accumulate large')
  b = -1
  call MPI_Get(b, 2_MPI_COUNT_KIND, MPI_INTEGER, right, 3_MPI_ADDRESS_KIND, 2_MPI_COUNT_KIND, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(b)
  call check(all(b(1:2) == 100 * rank + [1, 2]) .and. all(b(3:) == -1), 'Get large')
  call MPI_Win_free(win)
  call MPI_Win_allocate(winsize, unit, MPI_INFO_NULL, MPI_COMM_WORLD, base, win)
  call c_f_pointer(base, wmem, [n])
  wmem = 0
  call MPI_Win_fence(0, win)
  call MPI_Put(a, 3_MPI_COUNT_KIND, MPI_INTEGER, right, 1_MPI_ADDRESS_KIND, 3_MPI_COUNT_KIND, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(wmem)
  call check(all(wmem == [0, 100 * left + 1, 100 * left + 2, 100 * left + 3, 0, 0, 0, 0]), &
             'Win_allocate large: a TYPE(C_PTR) base, Put into it')
  call MPI_Win_free(win)

  ! Mrecv into a section, then Reduce_local of a section (neither has a
  ! communicator)
  call MPI_Isend(a, n, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req)
  call MPI_Mprobe(left, 2, MPI_COMM_WORLD, msg, status)
  b = -1
  cnt = n
  call MPI_Mrecv(b(1:2 * n:2), cnt, MPI_INTEGER, msg, status, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(ierr == MPI_SUCCESS .and. all(b(1:2 * n:2) == [(100 * left + k, k = 1, n)]) .and. &
             all(b(2:2 * n:2) == -1), 'Mrecv large into a section')
  call MPI_Get_elements(status, MPI_INTEGER, cnt)
  call check(cnt == n, 'Get_elements large')
  b = 1
  call MPI_Reduce_local(a(1:2 * n:2), b, cnt, MPI_INTEGER, MPI_SUM)
  call check(all(b(1:n) == [(100 * rank + 2 * k, k = 1, n)]) .and. all(b(n + 1:) == 1), &
             'Reduce_local large of a section')
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)
  call MPI_Reduce_local(a(1:2 * n:2), b, 2_MPI_COUNT_KIND**31, MPI_INTEGER, MPI_SUM, ierr)
  call MPI_Error_class(ierr, k)
  call check(k == MPI_ERR_COUNT, 'Reduce_local large of a section above 2**31-1: MPI_ERR_COUNT')

  ! a v-collective's section that is not one regular progression (a
  ! reversed one): MPI_ERR_BUFFER on the communicator, on every rank before
  ! any sends (its per-rank blocks go through C's MPI_Alltoallv_c as a
  ! datatype stretched to a positive stride)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Alltoallv(sbig(2 * total:1:-1), counts, displs, MPI_INTEGER, rbuf, rcounts, rdispls, &
                     MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, k)
  call check(k == MPI_ERR_BUFFER, 'Alltoallv large of a reversed section: MPI_ERR_BUFFER')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'f08_large_v: ok on ', nproc, ' ranks'
  call MPI_Finalize()

contains
#include "check.inc"

  ! a sent once with datatype t (committed, then freed) arrives as the
  ! elements of a at the positions at
  subroutine type_sends(t, at, what)
    type(MPI_Datatype), intent(inout) :: t
    integer, intent(in) :: at(:)
    character(len=*), intent(in) :: what
    integer(kind=MPI_COUNT_KIND) :: sz
    call MPI_Type_commit(t)
    call MPI_Type_size(t, sz)
    call check(sz == 4 * size(at), what // ': size')
    b = -1
    call MPI_Sendrecv(a, 1, t, 0, 3, b, 2 * n, MPI_INTEGER, 0, 3, MPI_COMM_SELF, status)
    call check(all(b(1:size(at)) == a(at)) .and. all(b(size(at) + 1:) == -1), what // ': data')
    call MPI_Type_free(t)
  end subroutine
end program
