! f_misc: more of the generated bindings' argument kinds — one-sided
! (window handles, MPI_Aint displacements, the window attributes, memory
! from MPI_Alloc_mem as an address), info keys and
! values (blank handling, MPI_Info_get's valuelen), MPI_Buffer_detach, a
! Cartesian topology (LOGICAL arrays), non-blocking collectives. Any number
! of ranks.
#include "mpi_test.h"
program f_misc
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, size, win, info, nkeys, vlen, comm_cart, i, disp_unit, right
  integer :: req(2), dims(1), coords(1), src, dst, ibuf(2), iout(2)
  ! written by other ranks during MPI_Win_fence, which does not name it
  ! (MPI-3.1 17.1.17: VOLATILE keeps the compiler from caching it)
  integer, volatile :: winbuf(4)
  integer :: got(4), guard(3)
  double precision :: bsend_buf(512)
  integer(kind=MPI_ADDRESS_KIND) :: val, winsize, mem, lb, extent
  logical :: flag, periods(1), periods_got(1)
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=8) :: short
  character(len=40) :: value
  integer, pointer :: mem_array(:)
  type(c_ptr) :: mem_ptr

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)

  ! one-sided: each rank puts (rank, rank*2) into slots 1:2 of its right
  ! neighbour's window and accumulates 1 into slot 4 of every rank
  winbuf = 0
  winsize = 4 * 4
  call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_create')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, val, flag, ierr)
  call check(flag .and. val == winsize, 'MPI_WIN_SIZE attribute')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, val, flag, ierr)
  call check(flag .and. val == 4, 'MPI_WIN_DISP_UNIT attribute')
  call MPI_Win_get_attr(win, MPI_WIN_BASE, val, flag, ierr)
  call MPI_Get_address(winbuf, mem, ierr)
  call check(flag .and. val == mem, 'MPI_WIN_BASE attribute is the address of the buffer')
  call MPI_Win_fence(0, win, ierr)
  ibuf = [rank, rank * 2]
  call MPI_Put(ibuf, 2, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 2, MPI_INTEGER, win, ierr)
  do i = 0, size - 1
    call MPI_Accumulate(1, 1, MPI_INTEGER, i, 3_MPI_ADDRESS_KIND, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  end do
  call MPI_Win_fence(0, win, ierr)
  i = mod(rank + size - 1, size)
  call check(all(winbuf == [i, 2 * i, 0, size]), 'MPI_Put and MPI_Accumulate between fences')
  call MPI_Get(got, 4, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 4, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(all(got == [rank, 2 * rank, 0, size]), 'MPI_Get')
  call MPI_Win_free(win, ierr)
  call check(win == MPI_WIN_NULL, 'MPI_Win_free sets MPI_WIN_NULL')

  ! memory handed out as an address (INTEGER(KIND=MPI_ADDRESS_KIND))
  mem = 0
  call MPI_Alloc_mem(1024_MPI_ADDRESS_KIND, MPI_INFO_NULL, mem, ierr)
  call check(ierr == MPI_SUCCESS .and. mem /= 0, 'MPI_Alloc_mem returns an address')
  mem_ptr = transfer(mem, mem_ptr)
  call c_f_pointer(mem_ptr, mem_array, [256])
  mem_array = rank
  call MPI_Free_mem(mem_array, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Free_mem of the memory at that address')
  call MPI_Type_get_extent(MPI_DOUBLE_PRECISION, lb, extent, ierr)
  call check(lb == 0 .and. extent == 8, 'MPI_Type_get_extent (MPI_Aint out)')

  ! info: blanks around values and keys, lengths, truncation
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, '  color  ', ' deep blue   ', ierr)
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  call MPI_Info_get_nthkey(info, 0, key, ierr)
  call check(nkeys == 1 .and. key == 'color', 'MPI_Info_get_nthkey (leading and trailing blanks dropped)')
  call MPI_Info_get_valuelen(info, 'color', vlen, flag, ierr)
  call check(flag .and. vlen == 9, 'MPI_Info_get_valuelen')
  call MPI_Info_get(info, 'color', len(value), value, flag, ierr)
  call check(flag .and. value == 'deep blue', 'MPI_Info_get')
  call MPI_Info_get(info, 'color', 4, short, flag, ierr)
  call check(flag .and. short == 'deep', 'MPI_Info_get with valuelen 4 (blank-padded)')
  call MPI_Info_get(info, ' color', len(value), value, flag, ierr)
  call check(flag .and. value == 'deep blue', 'MPI_Info_get of a key with a leading blank')
  call MPI_Info_get(info, 'shape', len(value), value, flag, ierr)
  call check(.not. flag, 'MPI_Info_get of an absent key')
  call MPI_Info_free(info, ierr)
  call check(info == MPI_INFO_NULL, 'MPI_Info_free sets MPI_INFO_NULL')

  ! MPI_Buffer_detach's BUFFER_ADDR is a choice buffer, not an address: a
  ! default INTEGER there must not receive the buffer's 8-byte address
  call MPI_Buffer_attach(bsend_buf, 4096, ierr)
  call MPI_Bsend(rank, 1, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, ierr)
  call MPI_Recv(i, 1, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(i == rank, 'MPI_Bsend to this rank')
  guard = [11, 22, 33]
  call MPI_Buffer_detach(guard(2), vlen, ierr)
  call check(ierr == MPI_SUCCESS .and. vlen == 4096, 'MPI_Buffer_detach size')
  call check(guard(1) == 11 .and. guard(3) == 33, 'MPI_Buffer_detach writes nothing beside BUFFER_ADDR')

  ! a periodic ring as a Cartesian topology
  dims = 0
  call MPI_Dims_create(size, 1, dims, ierr)
  call check(dims(1) == size, 'MPI_Dims_create')
  periods = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., comm_cart, ierr)
  call MPI_Cart_get(comm_cart, 1, dims, periods_got, coords, ierr)
  call check(periods_got(1) .and. coords(1) == rank, 'MPI_Cart_get (LOGICAL array)')
  call MPI_Cart_shift(comm_cart, 0, 1, src, dst, ierr)
  call check(dst == right .and. src == mod(rank + size - 1, size), 'MPI_Cart_shift')
  call MPI_Comm_free(comm_cart, ierr)

  ! non-blocking collectives completed together
  ibuf = [rank, 1]
  call MPI_Iallreduce(ibuf, iout, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(1), ierr)
  i = -1
  if (rank == 0) i = 77
  call MPI_Ibcast(i, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  call check(all(iout == [size * (size - 1) / 2, size]) .and. i == 77, 'MPI_Iallreduce and MPI_Ibcast')
  call MPI_Ibarrier(MPI_COMM_WORLD, req(1), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(req(1), flag, MPI_STATUS_IGNORE, ierr)
  end do
  call check(req(1) == MPI_REQUEST_NULL, 'MPI_Test completes MPI_Ibarrier')

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_misc: ok on ', size, ' ranks'
contains
#include "check.inc"
end program
