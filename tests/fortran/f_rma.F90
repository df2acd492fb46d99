! f_rma: one-sided communication from Fortran (MPI 4.1 chapter 12), through
! mpif.h, `use mpi` (mpi_test.h) and `use mpi_f08` (-DRDMACH_USE_F08),
! every result checked on every rank (the target is the right neighbour,
! (rank + 1) mod size, or every rank):
!   window creation  MPI_WIN_CREATE over a Fortran array (DISP_UNIT the
!       INTEGER's size: target displacements count elements),
!       MPI_WIN_ALLOCATE and MPI_WIN_ALLOCATE_SHARED (BASEPTR an
!       INTEGER(KIND=MPI_ADDRESS_KIND) with mpif.h, a TYPE(C_PTR) with
!       mpi_f08 and with rdmach's module mpi, which has both under the
!       generic names; the memory reached by C_F_POINTER),
!       MPI_WIN_SHARED_QUERY (the node's neighbour's segment, contiguous
!       after this rank's by default (§12.2.3); MPI_PROC_NULL: the lowest
!       rank's), MPI_WIN_CREATE_DYNAMIC with MPI_WIN_ATTACH/DETACH
!       (displacements are addresses from MPI_GET_ADDRESS, relative to
!       MPI_BOTTOM, moved with MPI_AINT_ADD and MPI_AINT_DIFF; MPI_BOTTOM
!       with an absolute datatype as an origin buffer), MPI_WIN_FREE;
!   epochs  MPI_WIN_FENCE (0, MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED),
!       post-start-complete-wait and MPI_WIN_TEST until FLAG, MPI_WIN_LOCK
!       (exclusive and shared), MPI_WIN_LOCK_ALL, the flushes, MPI_WIN_SYNC
!       (load/store on shared memory and on the local window);
!   operations  MPI_PUT, MPI_GET, MPI_ACCUMULATE (MPI_SUM, MPI_REPLACE,
!       MPI_MAX; MPI_INTEGER and MPI_DOUBLE_PRECISION), MPI_GET_ACCUMULATE
!       (MPI_SUM, MPI_NO_OP), MPI_FETCH_AND_OP (one winner order: the
!       fetched values are the counter's successive values),
!       MPI_COMPARE_AND_SWAP (exactly one rank swaps), MPI_RPUT, MPI_RGET,
!       MPI_RACCUMULATE, MPI_RGET_ACCUMULATE completed by MPI_WAIT and
!       MPI_WAITALL in a lock_all epoch (accumulates from one origin to one
!       location are ordered by default: accumulate_ordering rar,raw,war,
!       waw); a target datatype MPI_TYPE_VECTOR over every other element for
!       put, get and accumulate; array sections as origin buffers:
!       contiguous ones always, non-contiguous ones (also for the request-
!       based operations) only where MPI_SUBARRAYS_SUPPORTED is .TRUE.
!       (§19.1.12; mpif.h sets it and MPI_ASYNC_PROTECTS_NONBLOCKING to
!       .FALSE., §19.1.4); the Fortran datatypes in accumulate (MPI_INTEGER8
!       MPI_SUM and MPI_BXOR, MPI_REAL MPI_PROD and MPI_MIN, MPI_COMPLEX and
!       MPI_DOUBLE_COMPLEX MPI_SUM, MPI_LOGICAL MPI_LOR, MPI_LAND, MPI_LXOR,
!       MPI_2INTEGER MPI_MAXLOC, MPI_2DOUBLE_PRECISION MPI_MINLOC, MPI_REAL8,
!       MPI_CHARACTER MPI_REPLACE), MPI_FETCH_AND_OP of MPI_INTEGER8 and
!       MPI_COMPARE_AND_SWAP of MPI_LOGICAL; with mpi_f08, the large-count
!       forms (INTEGER(KIND=MPI_COUNT_KIND) counts, DISP_UNIT INTEGER(KIND=
!       MPI_ADDRESS_KIND)) and calls without IERROR;
!   window objects  MPI_WIN_GET_GROUP (MPI_IDENT to the communicator's),
!       MPI_WIN_SET_NAME/GET_NAME (empty before: all blanks, length 0),
!       MPI_WIN_GET_INFO (the hints given at creation that are in effect:
!       no_locks, accumulate_ordering none, same_disp_unit; a window
!       created without info reports the standard's default of a hint if
!       it reports the hint), MPI_WIN_SET_INFO; the attributes MPI_WIN_BASE,
!       MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL
!       as INTEGER(KIND=MPI_ADDRESS_KIND) values (a dynamic window: base
!       MPI_BOTTOM, size 0, §12.2.6); user keyvals with MPI_WIN_NULL_COPY_FN,
!       MPI_WIN_NULL_DELETE_FN, MPI_WIN_DUP_FN and a Fortran delete callback
!       (called with the window, the key, the value and EXTRA_STATE when the
!       value is replaced, deleted, and when the window is freed);
!   errors  a Fortran window error handler (MPI_WIN_CREATE_ERRHANDLER):
!       MPI_WIN_GET_ERRHANDLER gives it back, MPI_WIN_CALL_ERRHANDLER and an
!       MPI_PUT to rank SIZE call it with the window and the code (class
!       MPI_ERR_RANK); under MPI_ERRORS_RETURN an MPI_PUT to a rank >= SIZE
!       returns a code of class MPI_ERR_RANK, one outside any epoch and
!       MPI_WIN_UNLOCK without a lock MPI_ERR_RMA_SYNC, MPI_WIN_ATTACH to a
!       window that is not dynamic MPI_ERR_RMA_FLAVOR; a displacement
!       outside the window, if detected (it need not be), MPI_ERR_RMA_RANGE
!       (or MPI_ERR_DISP for a negative one). The base of that window is an
!       array element, not 16-byte aligned: MPI_WIN_BASE is its address.
! Window memory and RMA buffers are VOLATILE (§19.1.17: the compiler must
! not keep them in registers across the synchronization calls).
! Any number of ranks, one node or several (RDMACH_VNODE_SIZE: the shared
! window is over MPI_COMM_TYPE_SHARED's communicator).
! Built with MPICH's own module mpi (mpif90.mpich -DRDMACH_USE_MODULE), also
! give -DRDMACH_MPICH_BUILD: that module has no TYPE(C_PTR) forms of
! MPI_WIN_ALLOCATE(_SHARED) and MPI_WIN_SHARED_QUERY (no interface at all:
! without the define the TYPE(C_PTR) goes, unchecked, to the INTEGER(KIND=
! MPI_ADDRESS_KIND) BASEPTR, which works but is not what that module
! declares).
#ifdef RDMACH_USE_F08
#define MPI_USE use mpi_f08
#define MPI_INCLUDE
#define WIN_T type(MPI_Win)
#define COMM_T type(MPI_Comm)
#define GROUP_T type(MPI_Group)
#define INFO_T type(MPI_Info)
#define REQ_T type(MPI_Request)
#define DT_T type(MPI_Datatype)
#define EH_T type(MPI_Errhandler)
#define STATUS_DECL(s) type(MPI_Status) :: s
#define HANDLE_VAL(h) h%MPI_VAL
#define HAS_CPTR
#else
#include "mpi_test.h"
#define WIN_T integer
#define COMM_T integer
#define GROUP_T integer
#define INFO_T integer
#define REQ_T integer
#define DT_T integer
#define EH_T integer
#define STATUS_DECL(s) integer :: s(MPI_STATUS_SIZE)
#define HANDLE_VAL(h) h
#if defined(RDMACH_USE_MODULE) && !defined(RDMACH_MPICH_BUILD)
#define HAS_CPTR
#endif
#endif
! The BASEPTR argument of MPI_WIN_ALLOCATE(_SHARED) and MPI_WIN_SHARED_QUERY:
! the TYPE(C_PTR) C where the binding has that form, else the INTEGER(KIND=
! MPI_ADDRESS_KIND) A.
#ifdef HAS_CPTR
#define BASEPTR(c, a) c
#else
#define BASEPTR(c, a) a
#endif

! What the callbacks saw.
module f_rma_seen
  implicit none
  integer :: eh_calls = 0, eh_win = -1, eh_code = -1
  integer :: del_calls = 0, del_win = -1, del_key = -1
  integer(kind=8) :: del_value = -1, del_extra = -1
end module

module f_rma_cb
  implicit none
contains
  ! WIN_ERRHANDLER_FUNCTION(WIN, ERROR_CODE)
  subroutine win_handler(win, error_code)
    use f_rma_seen
    MPI_USE
    implicit none
    MPI_INCLUDE
    WIN_T :: win
    integer :: error_code
    eh_calls = eh_calls + 1
    eh_win = HANDLE_VAL(win)
    eh_code = error_code
  end subroutine

  ! WIN_DELETE_ATTR_FUNCTION(WIN, WIN_KEYVAL, ATTRIBUTE_VAL, EXTRA_STATE, IERROR)
  subroutine record_delete(win, keyval, attribute_val, extra_state, ierror)
    use f_rma_seen
    MPI_USE
    implicit none
    MPI_INCLUDE
    WIN_T :: win
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    del_calls = del_calls + 1
    del_win = HANDLE_VAL(win)
    del_key = keyval
    del_value = attribute_val
    del_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine
end module

program f_rma
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use f_rma_seen
  use f_rma_cb
  MPI_USE
  implicit none
  MPI_INCLUDE
#if !defined(RDMACH_USE_F08) && !defined(RDMACH_USE_MODULE)
  integer(kind=MPI_ADDRESS_KIND), external :: MPI_Aint_add, MPI_Aint_diff
#endif
  integer :: ierr, rank, size, left, right, isz, dsz
  integer, parameter :: ak = MPI_ADDRESS_KIND

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  isz = storage_size(0) / 8
  dsz = storage_size(0d0) / 8

  call constants()
  call create_fence()
  call pscw()
  call passive()
  call passive_double()
  call fortran_types()
  call shared()
  call dynamic()
  call objects()
  call keyvals()
  call errors()
#ifdef RDMACH_USE_F08
  call large_forms()
#endif

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_rma: ok on ', size, ' ranks'

contains

  subroutine constants()
    integer :: tsize
    call MPI_Type_size(MPI_INTEGER, tsize, ierr)
    call check(tsize == isz, 'MPI_Type_size(MPI_INTEGER) is the INTEGER''s storage size')
    call MPI_Type_size(MPI_DOUBLE_PRECISION, tsize, ierr)
    call check(tsize == dsz, 'MPI_Type_size(MPI_DOUBLE_PRECISION)')
#if !defined(RDMACH_USE_F08) && !defined(RDMACH_USE_MODULE)
    call check(.not. MPI_SUBARRAYS_SUPPORTED .and. .not. MPI_ASYNC_PROTECTS_NONBLOCKING, &
               'mpif.h: MPI_SUBARRAYS_SUPPORTED and MPI_ASYNC_PROTECTS_NONBLOCKING are .FALSE.')
#endif
  end subroutine

  ! The value of a window attribute; fails unless FLAG.
  function win_attr(win, key, what) result(val)
    WIN_T, intent(in) :: win
    integer, intent(in) :: key
    character(len=*), intent(in) :: what
    integer(kind=MPI_ADDRESS_KIND) :: val
    logical :: flag
    val = -12345
    flag = .false.
    call MPI_Win_get_attr(win, key, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Win_get_attr ' // what // ': FLAG')
  end function

  ! The attributes every window has (§12.2.6).
  subroutine check_attrs(win, base, wsize, disp_unit, flavor, what)
    WIN_T, intent(in) :: win
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: base, wsize
    integer, intent(in) :: disp_unit, flavor
    character(len=*), intent(in) :: what
    integer(kind=MPI_ADDRESS_KIND) :: v
    v = win_attr(win, MPI_WIN_BASE, 'MPI_WIN_BASE')
    call check(v == base, what // ': MPI_WIN_BASE')
    v = win_attr(win, MPI_WIN_SIZE, 'MPI_WIN_SIZE')
    call check(v == wsize, what // ': MPI_WIN_SIZE')
    v = win_attr(win, MPI_WIN_DISP_UNIT, 'MPI_WIN_DISP_UNIT')
    call check(v == disp_unit, what // ': MPI_WIN_DISP_UNIT')
    v = win_attr(win, MPI_WIN_CREATE_FLAVOR, 'MPI_WIN_CREATE_FLAVOR')
    call check(v == flavor, what // ': MPI_WIN_CREATE_FLAVOR')
    v = win_attr(win, MPI_WIN_MODEL, 'MPI_WIN_MODEL')
    call check(v == MPI_WIN_UNIFIED .or. v == MPI_WIN_SEPARATE, &
               what // ': MPI_WIN_MODEL is MPI_WIN_UNIFIED or MPI_WIN_SEPARATE')
  end subroutine

  ! MPI_Win_get_group of WIN is MPI_IDENT to COMM's group.
  subroutine check_win_group(win, comm, what)
    WIN_T, intent(in) :: win
    COMM_T, intent(in) :: comm
    character(len=*), intent(in) :: what
    integer :: cmp
    GROUP_T :: wgroup, cgroup
    call MPI_Win_get_group(win, wgroup, ierr)
    call MPI_Comm_group(comm, cgroup, ierr)
    call MPI_Group_compare(wgroup, cgroup, cmp, ierr)
    call check(ierr == MPI_SUCCESS .and. cmp == MPI_IDENT, what)
    call MPI_Group_free(wgroup, ierr)
    call MPI_Group_free(cgroup, ierr)
  end subroutine

  ! MPI_Win_allocate (FLAVOR MPI_WIN_FLAVOR_ALLOCATE) or
  ! MPI_Win_allocate_shared (MPI_WIN_FLAVOR_SHARED) of SZ bytes, DISP_UNIT
  ! DU, over COMM; P is the memory (BASEPTR a TYPE(C_PTR) or an address).
  subroutine alloc_win(flavor, sz, du, comm, p, win, what)
    integer, intent(in) :: flavor, du
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: sz
    COMM_T, intent(in) :: comm
    type(c_ptr), intent(out) :: p
    WIN_T, intent(out) :: win
    character(len=*), intent(in) :: what
#ifndef HAS_CPTR
    integer(kind=MPI_ADDRESS_KIND) :: baseaddr
    baseaddr = 0
#endif
    select case (flavor)
    case (MPI_WIN_FLAVOR_ALLOCATE)
      call MPI_Win_allocate(sz, du, MPI_INFO_NULL, comm, BASEPTR(p, baseaddr), win, ierr)
    case (MPI_WIN_FLAVOR_SHARED)
      call MPI_Win_allocate_shared(sz, du, MPI_INFO_NULL, comm, BASEPTR(p, baseaddr), win, ierr)
    case default
      call check(.false., what // ': alloc_win takes MPI_WIN_FLAVOR_ALLOCATE or _SHARED')
    end select
#ifndef HAS_CPTR
    p = transfer(baseaddr, p)
#endif
    call check(ierr == MPI_SUCCESS .and. win /= MPI_WIN_NULL, what)
  end subroutine

  ! After alloc_win: ADDR, MPI_Get_address of the memory's first element,
  ! is BASEPTR, and the window's attributes (§12.2.6) say so.
  subroutine check_alloc(win, p, addr, sz, du, flavor, what)
    WIN_T, intent(in) :: win
    type(c_ptr), intent(in) :: p
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: addr, sz
    integer, intent(in) :: du, flavor
    character(len=*), intent(in) :: what
    call check(addr == transfer(p, addr), what // ': BASEPTR is the memory''s address')
    call check_attrs(win, addr, sz, du, flavor, what)
  end subroutine

  ! MPI_Win_shared_query of rank R of WIN: the size is WSIZE, DISP_UNIT the
  ! INTEGER's; Q is the segment, QADDR MPI_Get_address of its first INTEGER.
  subroutine shared_query(win, r, wsize, q, qaddr, what)
    WIN_T, intent(in) :: win
    integer, intent(in) :: r
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: wsize
    type(c_ptr), intent(out) :: q
    integer(kind=MPI_ADDRESS_KIND), intent(out) :: qaddr
    character(len=*), intent(in) :: what
    integer, pointer, volatile :: seg(:)
    integer :: qdisp
    integer(kind=MPI_ADDRESS_KIND) :: qsize
#ifndef HAS_CPTR
    integer(kind=MPI_ADDRESS_KIND) :: qbase
#endif
    qsize = -1
    qdisp = -1
    call MPI_Win_shared_query(win, r, qsize, qdisp, BASEPTR(q, qbase), ierr)
#ifndef HAS_CPTR
    q = transfer(qbase, q)
#endif
    call check(ierr == MPI_SUCCESS .and. qsize == wsize .and. qdisp == isz, what // ': size, disp_unit')
    call c_f_pointer(q, seg, [1])
    call MPI_Get_address(seg(1), qaddr, ierr)
  end subroutine

  integer function err_class(code)
    integer, intent(in) :: code
    integer :: e
    err_class = -1
    call MPI_Error_class(code, err_class, e)
  end function

  ! MPI_Win_create over a Fortran array; fences; put, get, accumulate with
  ! MPI_SUM, MPI_MAX, MPI_REPLACE; a vector target datatype; array sections.
  ! The window a(0:39) of rank r starts as 1000 r + k, and:
  !   0:3   MPI_Put from the left           4     MPI_SUM of 1 from all
  !   5     MPI_MAX of the ranks            6     MPI_REPLACE from the left
  !   8:15  vector put, even offsets        16:23 vector accumulate (MPI_SUM)
  !   24:31 read (vector get, section get)  32:35 read (contiguous get)
  !   36:39 put from a contiguous section     40:43 from a non-contiguous one
  ! (a location a rank reads after a fence is not written in the epoch that
  ! fence starts: that would be a conflicting access, §12.7)
  subroutine create_fence()
    integer, parameter :: n = 44
    integer, volatile :: a(0:n - 1)
    integer, volatile :: src(8), src2(4), src3(4), g(8), h(4), gs(8)
    integer :: k, one, me
    integer(kind=MPI_ADDRESS_KIND) :: addr
    WIN_T :: win
    DT_T :: vec

    a = [(1000 * rank + k, k = 0, n - 1)]
    a(4) = 0
    a(5) = -1
    a(6) = -1
    a(8:15) = -5
    a(16:23) = 0
    a(36:43) = -7
    call MPI_Win_create(a, int(n * isz, ak), isz, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call check(ierr == MPI_SUCCESS .and. win /= MPI_WIN_NULL, 'MPI_Win_create')
    call MPI_Get_address(a(0), addr, ierr)
    call check_attrs(win, addr, int(n * isz, ak), isz, MPI_WIN_FLAVOR_CREATE, 'MPI_Win_create')

    call check_win_group(win, MPI_COMM_WORLD, 'MPI_Win_get_group: MPI_IDENT to the communicator''s group')

    ! epoch 1: put, accumulate (sum, max, replace)
    one = 1
    me = rank
    src(1:4) = [(100 * rank + k, k = 1, 4)]
    call MPI_Win_fence(MPI_MODE_NOPRECEDE, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_fence(MPI_MODE_NOPRECEDE)')
    call MPI_Put(src, 4, MPI_INTEGER, right, 0_ak, 4, MPI_INTEGER, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Put')
    do k = 0, size - 1
      call MPI_Accumulate(one, 1, MPI_INTEGER, k, 4_ak, 1, MPI_INTEGER, MPI_SUM, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_SUM')
      call MPI_Accumulate(me, 1, MPI_INTEGER, k, 5_ak, 1, MPI_INTEGER, MPI_MAX, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_MAX')
    end do
    call MPI_Accumulate(me, 1, MPI_INTEGER, right, 6_ak, 1, MPI_INTEGER, MPI_REPLACE, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_REPLACE')
    call MPI_Win_fence(0, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_fence(0)')
    call check(all(a(0:3) == [(100 * left + k, k = 1, 4)]), 'MPI_Put between fences')
    call check(a(4) == size, 'MPI_Accumulate MPI_SUM of 1 from every rank')
    call check(a(5) == size - 1, 'MPI_Accumulate MPI_MAX of the ranks')
    call check(a(6) == left, 'MPI_Accumulate MPI_REPLACE')
    call check(a(7) == 1000 * rank + 7, 'MPI_Put and MPI_Accumulate write nothing else')

    ! epoch 2: get, and a vector target datatype (every other element)
    call MPI_Type_vector(4, 1, 2, MPI_INTEGER, vec, ierr)
    call MPI_Type_commit(vec, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_vector, MPI_Type_commit')
    g = -9
    h = -9
    src2 = [(500 + 10 * rank + k, k = 1, 4)]
    src3 = [((rank + 1) * k, k = 1, 4)]
    call MPI_Get(g, 4, MPI_INTEGER, right, 32_ak, 4, MPI_INTEGER, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get')
    call MPI_Put(src2, 4, MPI_INTEGER, right, 8_ak, 1, vec, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Put with a vector target datatype')
    call MPI_Get(h, 4, MPI_INTEGER, right, 24_ak, 1, vec, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get with a vector target datatype')
    call MPI_Accumulate(src3, 4, MPI_INTEGER, right, 16_ak, 1, vec, MPI_SUM, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Accumulate with a vector target datatype')
    call MPI_Win_fence(0, win, ierr)
    call check(all(g(1:4) == [(1000 * right + k, k = 32, 35)]) .and. all(g(5:8) == -9), 'MPI_Get')
    call check(all(a(8:15:2) == [(500 + 10 * left + k, k = 1, 4)]), &
               'MPI_Put with a vector target datatype: every other element')
    call check(all(a(9:15:2) == -5), 'MPI_Put with a vector target datatype: the gaps unchanged')
    call check(all(h == [(1000 * right + k, k = 24, 30, 2)]), &
               'MPI_Get with a vector target datatype')
    call check(all(a(16:23:2) == [((left + 1) * k, k = 1, 4)]) .and. all(a(17:23:2) == 0), &
               'MPI_Accumulate with a vector target datatype')

    ! epoch 3: contiguous array sections as origin buffers (always valid)
    src = [(2000 + 10 * rank + k, k = 1, 8)]
    gs = -9
    call MPI_Put(src(3:6), 4, MPI_INTEGER, right, 36_ak, 4, MPI_INTEGER, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Put from a contiguous section')
    call MPI_Get(gs(2:5), 4, MPI_INTEGER, right, 32_ak, 4, MPI_INTEGER, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get into a contiguous section')
    call MPI_Win_fence(0, win, ierr)
    call check(all(a(36:39) == [(2000 + 10 * left + k, k = 3, 6)]), &
               'MPI_Put from a contiguous section src(3:6)')
    call check(all(gs(2:5) == [(1000 * right + k, k = 32, 35)]) .and. gs(1) == -9 .and. &
               all(gs(6:8) == -9), 'MPI_Get into a contiguous section gs(2:5)')

    ! epoch 4: non-contiguous sections, where the binding supports them
    if (MPI_SUBARRAYS_SUPPORTED) then
      gs = -9
      call MPI_Put(src(1:8:2), 4, MPI_INTEGER, right, 40_ak, 4, MPI_INTEGER, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Put from a section src(1:8:2)')
      call MPI_Get(gs(1:8:2), 4, MPI_INTEGER, right, 24_ak, 4, MPI_INTEGER, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Get into a section gs(1:8:2)')
      call MPI_Accumulate(src(2:8:2), 4, MPI_INTEGER, right, 16_ak, 1, vec, MPI_SUM, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate from a section src(2:8:2)')
      call MPI_Win_fence(0, win, ierr)
      call check(all(a(40:43) == [(2000 + 10 * left + k, k = 1, 7, 2)]), &
                 'MPI_Put from a non-contiguous section src(1:8:2)')
      call check(all(gs(1:8:2) == [(1000 * right + k, k = 24, 27)]) .and. all(gs(2:8:2) == -9), &
                 'MPI_Get into a non-contiguous section gs(1:8:2)')
      call check(all(a(16:23:2) == [((left + 1) * k + 2000 + 10 * left + 2 * k, k = 1, 4)]) .and. &
                 all(a(17:23:2) == 0), 'MPI_Accumulate from a non-contiguous section src(2:8:2)')
    end if

    ! the last epoch: ends with MPI_MODE_NOSUCCEED
    g = -9
    call MPI_Get(g, 2, MPI_INTEGER, left, 6_ak, 2, MPI_INTEGER, win, ierr)
    call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_fence(MPI_MODE_NOSUCCEED)')
    call check(g(1) == mod(left + size - 1, size) .and. g(2) == 1000 * left + 7, &
               'MPI_Get in the epoch MPI_MODE_NOSUCCEED ends')
    call MPI_Type_free(vec, ierr)
    call MPI_Win_free(win, ierr)
    call check(ierr == MPI_SUCCESS .and. win == MPI_WIN_NULL, 'MPI_Win_free sets MPI_WIN_NULL')
  end subroutine

  ! Generalized active target: each rank exposes its window to the left
  ! neighbour (MPI_Win_post) and accesses the right one's (MPI_Win_start).
  subroutine pscw()
    integer, volatile :: b(0:7), src(2), g(2)
    integer :: k, one, calls, rk(1)
    logical :: flag
    WIN_T :: win
    GROUP_T :: wgroup, from_group, to_group

    b = [(3000 + 10 * rank + k, k = 0, 7)]
    b(0:2) = -1
    call MPI_Win_create(b, int(8 * isz, ak), isz, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
    rk(1) = left
    call MPI_Group_incl(wgroup, 1, rk, from_group, ierr)
    rk(1) = right
    call MPI_Group_incl(wgroup, 1, rk, to_group, ierr)

    one = 1
    src = [rank, 7 * rank]
    g = -9
    call MPI_Win_post(from_group, 0, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_post')
    call MPI_Win_start(to_group, 0, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_start')
    call MPI_Put(src, 2, MPI_INTEGER, right, 0_ak, 2, MPI_INTEGER, win, ierr)
    call MPI_Accumulate(one, 1, MPI_INTEGER, right, 2_ak, 1, MPI_INTEGER, MPI_SUM, win, ierr)
    call MPI_Get(g, 2, MPI_INTEGER, right, 4_ak, 2, MPI_INTEGER, win, ierr)
    call MPI_Win_complete(win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_complete')
    call check(all(g == [3000 + 10 * right + 4, 3000 + 10 * right + 5]), &
               'MPI_Get is complete at the origin after MPI_Win_complete')
    call MPI_Win_wait(win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_wait')
    call check(b(0) == left .and. b(1) == 7 * left, 'MPI_Put in a post-start epoch')
    call check(b(2) == 0, 'MPI_Accumulate in a post-start epoch')

    ! again, the exposure epoch ended by MPI_Win_test
    src(1) = 50 + rank
    call MPI_Win_post(from_group, 0, win, ierr)
    call MPI_Win_start(to_group, 0, win, ierr)
    call MPI_Put(src, 1, MPI_INTEGER, right, 6_ak, 1, MPI_INTEGER, win, ierr)
    call MPI_Win_complete(win, ierr)
    flag = .false.
    calls = 0
    do while (.not. flag)
      call MPI_Win_test(win, flag, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Win_test')
      calls = calls + 1
    end do
    call check(b(6) == 50 + left .and. b(7) == 3000 + 10 * rank + 7, &
               'MPI_Put in an exposure epoch ended by MPI_Win_test')

    call MPI_Group_free(from_group, ierr)
    call MPI_Group_free(to_group, ierr)
    call MPI_Group_free(wgroup, ierr)
    call MPI_Win_free(win, ierr)
    call check(win == MPI_WIN_NULL, 'MPI_Win_free (post-start window)')
  end subroutine

  ! Passive target on MPI_Win_allocate's memory m(1:n) (displacement k is
  ! m(k + 1)), which starts as 100 r + k. Where MPI_SUBARRAYS_SUPPORTED,
  ! the request-based operations also take non-contiguous sections
  ! (displacements 20:27).
  subroutine passive()
    integer, parameter :: n = 32
    integer, pointer, volatile :: m(:)
    integer, volatile :: pb(2), g(4), rp(2), rg(2), ra(1), ra2(1), rr(1), na(1), nr(1)
    integer, volatile :: sec(8), rs(8), rs2(8)
    integer :: k, one, fetched, cas_origin, cas_compare, cas_result, winner, nwin
    integer :: all_fetched(0:size - 1), all_cas(0:size - 1)
    integer(kind=MPI_ADDRESS_KIND) :: addr, sz
    type(c_ptr) :: p
    REQ_T :: req(2)
    WIN_T :: win

    sz = n * isz
    call alloc_win(MPI_WIN_FLAVOR_ALLOCATE, sz, isz, MPI_COMM_WORLD, p, win, 'MPI_Win_allocate')
    call c_f_pointer(p, m, [n])
    call MPI_Get_address(m(1), addr, ierr)
    call check_alloc(win, p, addr, sz, isz, MPI_WIN_FLAVOR_ALLOCATE, 'MPI_Win_allocate')

    ! local stores in an exclusive epoch on this rank, before any access
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_lock(MPI_LOCK_EXCLUSIVE) on this rank')
    m = [(100 * rank + k, k = 0, n - 1)]
    call MPI_Win_unlock(rank, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_unlock')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)

    ! an exclusive lock on the right neighbour: put
    pb(1) = 1000 + rank
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_lock(MPI_LOCK_EXCLUSIVE)')
    call MPI_Put(pb, 1, MPI_INTEGER, right, 0_ak, 1, MPI_INTEGER, win, ierr)
    call MPI_Win_unlock(right, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_unlock after MPI_Put')
    ! a shared lock: get
    g = -9
    call MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_lock(MPI_LOCK_SHARED)')
    call MPI_Get(g, 4, MPI_INTEGER, right, 4_ak, 4, MPI_INTEGER, win, ierr)
    call MPI_Win_unlock(right, win, ierr)
    call check(all(g == [(100 * right + k, k = 4, 7)]), 'MPI_Get in a shared lock epoch')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win, ierr)
    call check(m(1) == 1000 + left .and. m(2) == 100 * rank + 1, &
               'MPI_Put in an exclusive lock epoch, read in a shared lock epoch')
    call MPI_Win_unlock(rank, win, ierr)

    call MPI_Win_lock_all(0, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_lock_all')
    ! MPI_Fetch_and_op: every rank adds 1 to rank 0's displacement 8
    one = 1
    fetched = -9
    call MPI_Fetch_and_op(one, fetched, MPI_INTEGER, 0, 8_ak, MPI_SUM, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Fetch_and_op')
    call MPI_Win_flush(0, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_flush')
    ! MPI_Compare_and_swap: rank 0's displacement 9 holds 9; the first
    ! swaps in 500 + its rank
    cas_compare = 9
    cas_origin = 500 + rank
    cas_result = -9
    call MPI_Compare_and_swap(cas_origin, cas_compare, cas_result, MPI_INTEGER, 0, 9_ak, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Compare_and_swap')
    call MPI_Win_flush(0, win, ierr)

    ! put, flush_local (the buffer may be reused), flush, get back
    pb(1) = 4000 + rank
    call MPI_Put(pb, 1, MPI_INTEGER, right, 10_ak, 1, MPI_INTEGER, win, ierr)
    call MPI_Win_flush_local(right, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_flush_local')
    pb(1) = -1
    call MPI_Win_flush(right, win, ierr)
    g = -9
    call MPI_Get(g, 1, MPI_INTEGER, right, 10_ak, 1, MPI_INTEGER, win, ierr)
    call MPI_Win_flush(right, win, ierr)
    call check(g(1) == 4000 + rank, 'MPI_Put completed by MPI_Win_flush_local then MPI_Win_flush')

    ! request-based operations
    rp = [5000 + rank, 5001 + rank]
    call MPI_Rput(rp, 2, MPI_INTEGER, right, 11_ak, 2, MPI_INTEGER, win, req(1), ierr)
    call check(ierr == MPI_SUCCESS .and. req(1) /= MPI_REQUEST_NULL, 'MPI_Rput')
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. req(1) == MPI_REQUEST_NULL, 'MPI_Wait on MPI_Rput''s request')
    call MPI_Win_flush(right, win, ierr)
    rg = -9
    call MPI_Rget(rg, 2, MPI_INTEGER, right, 11_ak, 2, MPI_INTEGER, win, req(2), ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Rget')
    call MPI_Wait(req(2), MPI_STATUS_IGNORE, ierr)
    call check(all(rg == [5000 + rank, 5001 + rank]), &
               'MPI_Rget after MPI_Rput, MPI_Wait and MPI_Win_flush')
    ra(1) = rank + 1
    ra2(1) = 10
    rr(1) = -9
    call MPI_Raccumulate(ra, 1, MPI_INTEGER, right, 13_ak, 1, MPI_INTEGER, MPI_SUM, win, req(1), ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Raccumulate')
    call MPI_Rget_accumulate(ra2, 1, MPI_INTEGER, rr, 1, MPI_INTEGER, right, 13_ak, 1, MPI_INTEGER, &
                             MPI_SUM, win, req(2), ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Rget_accumulate')
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. req(1) == MPI_REQUEST_NULL .and. &
               req(2) == MPI_REQUEST_NULL, 'MPI_Waitall on MPI_Raccumulate''s and MPI_Rget_accumulate''s')
    call check(rr(1) == 100 * right + 13 + rank + 1, &
               'MPI_Rget_accumulate sees the MPI_Raccumulate before it (same origin, same location)')
    call MPI_Win_flush(right, win, ierr)
    na(1) = 777
    nr(1) = -9
    call MPI_Get_accumulate(na, 1, MPI_INTEGER, nr, 1, MPI_INTEGER, right, 13_ak, 1, MPI_INTEGER, &
                            MPI_NO_OP, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get_accumulate MPI_NO_OP')
    call MPI_Win_flush(right, win, ierr)
    call check(nr(1) == 100 * right + 13 + rank + 1 + 10, 'MPI_Get_accumulate MPI_NO_OP reads')
    ! MPI_Get_accumulate MPI_SUM: 2 elements, old values back
    rp = [1, 2]
    rg = -9
    call MPI_Get_accumulate(rp, 2, MPI_INTEGER, rg, 2, MPI_INTEGER, right, 14_ak, 2, MPI_INTEGER, &
                            MPI_SUM, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get_accumulate MPI_SUM')
    call MPI_Win_flush_local(right, win, ierr)
    call check(all(rg == [100 * right + 14, 100 * right + 15]), &
               'MPI_Get_accumulate MPI_SUM: the old values after MPI_Win_flush_local')
    ! every rank adds 1 at displacement 16 of every rank
    do k = 0, size - 1
      call MPI_Accumulate(one, 1, MPI_INTEGER, k, 16_ak, 1, MPI_INTEGER, MPI_SUM, win, ierr)
    end do
    call MPI_Win_flush_local_all(win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_flush_local_all')
    call MPI_Win_flush_all(win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_flush_all')

    ! request-based operations on non-contiguous sections
    if (MPI_SUBARRAYS_SUPPORTED) then
      sec = [(6000 + 10 * rank + k, k = 1, 8)]
      rs = -9
      rs2 = -9
      call MPI_Rput(sec(1:8:2), 4, MPI_INTEGER, right, 20_ak, 4, MPI_INTEGER, win, req(1), ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Rput from a section sec(1:8:2)')
      call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
      call MPI_Win_flush(right, win, ierr)
      call MPI_Rget(rs(1:8:2), 4, MPI_INTEGER, right, 20_ak, 4, MPI_INTEGER, win, req(2), ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Rget into a section rs(1:8:2)')
      call MPI_Wait(req(2), MPI_STATUS_IGNORE, ierr)
      call check(all(rs(1:8:2) == [(6000 + 10 * rank + k, k = 1, 7, 2)]) .and. all(rs(2:8:2) == -9), &
                 'MPI_Rget into a section rs(1:8:2) of what MPI_Rput put from sec(1:8:2)')
      call MPI_Raccumulate(sec(2:8:2), 4, MPI_INTEGER, right, 24_ak, 4, MPI_INTEGER, MPI_SUM, win, &
                           req(1), ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Raccumulate from a section sec(2:8:2)')
      call MPI_Rget_accumulate(sec(1:8:2), 4, MPI_INTEGER, rs2(2:8:2), 4, MPI_INTEGER, right, 24_ak, &
                               4, MPI_INTEGER, MPI_SUM, win, req(2), ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Rget_accumulate between sections')
      call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
      call check(all(rs2(2:8:2) == [(100 * right + 24 + k + 6000 + 10 * rank + 2 * (k + 1), k = 0, 3)]) &
                 .and. all(rs2(1:8:2) == -9), &
                 'MPI_Rget_accumulate into a section rs2(2:8:2): the values after MPI_Raccumulate')
      call MPI_Win_flush(right, win, ierr)
      rs = -9
      call MPI_Get_accumulate(sec(1:8:2), 4, MPI_INTEGER, rs(1:8:2), 4, MPI_INTEGER, right, 24_ak, &
                              4, MPI_INTEGER, MPI_NO_OP, win, ierr)
      call MPI_Win_flush(right, win, ierr)
      call check(all(rs(1:8:2) == [(100 * right + 24 + k + 12000 + 20 * rank + 4 * k + 3, k = 0, 3)]) &
                 .and. all(rs(2:8:2) == -9), 'MPI_Get_accumulate MPI_NO_OP into a section rs(1:8:2)')
    end if

    ! every rank's operations are complete: read the local memory
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Win_sync(win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_sync')
    call check(m(11) == 4000 + left, 'MPI_Put in a lock_all epoch, local load after MPI_Win_sync')
    call check(m(12) == 5000 + left .and. m(13) == 5001 + left, 'MPI_Rput')
    call check(m(14) == 100 * rank + 13 + left + 1 + 10, 'MPI_Raccumulate and MPI_Rget_accumulate')
    call check(m(15) == 100 * rank + 15 .and. m(16) == 100 * rank + 17, 'MPI_Get_accumulate MPI_SUM')
    call check(m(17) == 100 * rank + 16 + size, 'MPI_Accumulate completed by MPI_Win_flush_all')
    if (MPI_SUBARRAYS_SUPPORTED) then
      call check(all(m(21:24) == [(6000 + 10 * left + k, k = 1, 7, 2)]), &
                 'MPI_Rput from a non-contiguous section')
      call check(all(m(25:28) == [(100 * rank + 24 + k + 12000 + 20 * left + 4 * k + 3, k = 0, 3)]), &
                 'MPI_Raccumulate and MPI_Rget_accumulate from non-contiguous sections')
    end if
    if (rank == 0) then
      call check(m(9) == 8 + size, 'MPI_Fetch_and_op: the counter')
      call check(m(10) >= 500 .and. m(10) < 500 + size, 'MPI_Compare_and_swap: swapped once')
    end if
    call MPI_Win_unlock_all(win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_unlock_all')

    ! the fetched values are the counter's successive values 8 .. 8 + size - 1
    call MPI_Allgather(fetched, 1, MPI_INTEGER, all_fetched, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    do k = 0, size - 1
      call check(count(all_fetched == 8 + k) == 1, 'MPI_Fetch_and_op: each old value fetched once')
    end do
    ! exactly one rank saw 9 and swapped; the others saw its 500 + rank
    call MPI_Allgather(cas_result, 1, MPI_INTEGER, all_cas, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    nwin = count(all_cas == 9)
    call check(nwin == 1, 'MPI_Compare_and_swap: exactly one rank sees the compare value')
    winner = -1
    do k = 0, size - 1
      if (all_cas(k) == 9) winner = k
    end do
    do k = 0, size - 1
      if (k /= winner) call check(all_cas(k) == 500 + winner, &
                                  'MPI_Compare_and_swap: the others see the swapped value')
    end do

    call MPI_Win_free(win, ierr)
    call check(ierr == MPI_SUCCESS .and. win == MPI_WIN_NULL, 'MPI_Win_free (MPI_Win_allocate)')
  end subroutine

  ! MPI_DOUBLE_PRECISION: accumulate MPI_SUM and MPI_MAX, get_accumulate.
  subroutine passive_double()
    double precision, pointer, volatile :: d(:)
    double precision, volatile :: v(1), w(1), res(1)
    integer :: k
    integer(kind=MPI_ADDRESS_KIND) :: sz, addr
    type(c_ptr) :: p
    WIN_T :: win

    sz = 4 * dsz
    call alloc_win(MPI_WIN_FLAVOR_ALLOCATE, sz, dsz, MPI_COMM_WORLD, p, win, 'MPI_Win_allocate (DOUBLE PRECISION)')
    call c_f_pointer(p, d, [4])
    call MPI_Get_address(d(1), addr, ierr)
    call check_alloc(win, p, addr, sz, dsz, MPI_WIN_FLAVOR_ALLOCATE, 'MPI_Win_allocate (DOUBLE PRECISION)')
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win, ierr)
    d = [0.25d0, -1d0, 0d0, 0d0]
    call MPI_Win_unlock(rank, win, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)

    call MPI_Win_lock_all(0, win, ierr)
    v(1) = (rank + 1) * 0.5d0
    w(1) = rank * 1.5d0
    do k = 0, size - 1
      call MPI_Accumulate(v, 1, MPI_DOUBLE_PRECISION, k, 0_ak, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                          win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_DOUBLE_PRECISION MPI_SUM')
      call MPI_Accumulate(w, 1, MPI_DOUBLE_PRECISION, k, 1_ak, 1, MPI_DOUBLE_PRECISION, MPI_MAX, &
                          win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_DOUBLE_PRECISION MPI_MAX')
    end do
    res(1) = -9d0
    call MPI_Get_accumulate(v, 1, MPI_DOUBLE_PRECISION, res, 1, MPI_DOUBLE_PRECISION, right, 2_ak, &
                            1, MPI_DOUBLE_PRECISION, MPI_SUM, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get_accumulate MPI_DOUBLE_PRECISION')
    call MPI_Win_flush_all(win, ierr)
    call check(res(1) == 0d0, 'MPI_Get_accumulate MPI_DOUBLE_PRECISION: the old value')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Win_sync(win, ierr)
    call check(d(1) == 0.25d0 + size * (size + 1) * 0.25d0, &
               'MPI_Accumulate MPI_DOUBLE_PRECISION MPI_SUM from every rank')
    call check(d(2) == (size - 1) * 1.5d0, 'MPI_Accumulate MPI_DOUBLE_PRECISION MPI_MAX')
    call check(d(3) == (left + 1) * 0.5d0 .and. d(4) == 0d0, &
               'MPI_Get_accumulate MPI_DOUBLE_PRECISION MPI_SUM')
    call MPI_Win_unlock_all(win, ierr)
    call MPI_Win_free(win, ierr)
  end subroutine

  ! Fortran datatypes in one-sided operations (accumulate takes the
  ! predefined operations of MPI_REDUCE for them, §12.3.4, and MPI_MAXLOC /
  ! MPI_MINLOC the pair types): a SEQUENCE type's components, in a window
  ! over the whole variable with disp_unit 1, each at its offset from the
  ! start (MPI_Aint_diff); a fence epoch, every rank to every rank.
  subroutine fortran_types()
    type mixed
      sequence
      integer(kind=8) :: i8(3)
      real :: r4(2)
      complex :: c8(1)
      double complex :: z16(1)
      logical :: l(4)
      integer :: p2(2)
      double precision :: d2(2)
      double precision :: r8(1)
      character :: ch(8)
    end type
    type(mixed), volatile :: t
    integer(kind=8), volatile :: o_i8(1), o_x8(1), o_f8(1), fetched8(1)
    integer(kind=8) :: all8(0:size - 1), xor_all
    real, volatile :: o_prod(1), o_min(1)
    complex, volatile :: o_c8(1)
    double complex, volatile :: o_z16(1)
    logical, volatile :: o_lor(1), o_land(1), o_lxor(1), cas_origin(1), cas_compare(1), cas_result(1)
    integer, volatile :: o_p2(2)
    double precision, volatile :: o_d2(2), o_r8(1), r8_result(1)
    character, volatile :: o_ch(4), o_ch2(2)
    ! d(i_X): the offset of component X from the start of t
    integer, parameter :: i_i8 = 1, i_r4 = 2, i_c8 = 3, i_z16 = 4, i_l = 5, i_p2 = 6, i_d2 = 7, &
                          i_r8 = 8, i_ch = 9, ncomp = 9
    integer(kind=MPI_ADDRESS_KIND) :: base, d(ncomp)
    integer :: k, maxv, maxi, mini
    double precision :: minv
    WIN_T :: win

    t%i8 = 0
    t%r4 = [1.0, 100.0]
    t%c8 = (0.0, 0.0)
    t%z16 = (0d0, 0d0)
    t%l = [.false., .true., .false., .false.]
    t%p2 = [-1, -1]
    t%d2 = [1d9, -1d0]
    t%r8 = 1d0
    t%ch = '-'
    ! the components' addresses, then their offsets (MPI_Aint_diff)
    call MPI_Get_address(t, base, ierr)
    call MPI_Get_address(t%i8, d(i_i8), ierr)
    call MPI_Get_address(t%r4, d(i_r4), ierr)
    call MPI_Get_address(t%c8, d(i_c8), ierr)
    call MPI_Get_address(t%z16, d(i_z16), ierr)
    call MPI_Get_address(t%l, d(i_l), ierr)
    call MPI_Get_address(t%p2, d(i_p2), ierr)
    call MPI_Get_address(t%d2, d(i_d2), ierr)
    call MPI_Get_address(t%r8, d(i_r8), ierr)
    call MPI_Get_address(t%ch, d(i_ch), ierr)
    d = [(MPI_Aint_diff(d(k), base), k = 1, ncomp)]
    call MPI_Win_create(t, int(storage_size(t) / 8, ak), 1, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_create over a SEQUENCE type, disp_unit 1')

    o_i8(1) = 2_8**33 + rank
    o_x8(1) = 2_8**(32 + rank)
    o_f8(1) = 2_8**34
    o_prod(1) = 2.0
    o_min(1) = rank - 0.5
    o_c8(1) = cmplx(rank, 1)
    o_z16(1) = cmplx(0.5d0, -rank, kind(0d0))
    o_lor(1) = rank == size - 1
    o_land(1) = rank /= 0
    o_lxor(1) = .true.
    o_p2 = [mod(3 * rank + 1, 5), rank]
    o_d2 = [abs(rank - size / 2) + 0.5d0, dble(rank)]
    o_r8(1) = rank + 0.25d0
    o_ch = ['r', achar(iachar('0') + mod(rank, 10)), 'x', 'y']
    o_ch2 = ['A', 'B']
    cas_compare(1) = .false.
    cas_origin(1) = .true.
    cas_result(1) = .true.
    fetched8(1) = -1
    r8_result(1) = -9d0

    call MPI_Win_fence(MPI_MODE_NOPRECEDE, win, ierr)
    do k = 0, size - 1
      call MPI_Accumulate(o_i8, 1, MPI_INTEGER8, k, d(i_i8), 1, MPI_INTEGER8, MPI_SUM, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_INTEGER8 MPI_SUM')
      call MPI_Accumulate(o_x8, 1, MPI_INTEGER8, k, d(i_i8) + 8, 1, MPI_INTEGER8, MPI_BXOR, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_INTEGER8 MPI_BXOR')
      call MPI_Accumulate(o_prod, 1, MPI_REAL, k, d(i_r4), 1, MPI_REAL, MPI_PROD, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_REAL MPI_PROD')
      call MPI_Accumulate(o_min, 1, MPI_REAL, k, d(i_r4) + 4, 1, MPI_REAL, MPI_MIN, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_REAL MPI_MIN')
      call MPI_Accumulate(o_c8, 1, MPI_COMPLEX, k, d(i_c8), 1, MPI_COMPLEX, MPI_SUM, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_COMPLEX MPI_SUM')
      call MPI_Accumulate(o_z16, 1, MPI_DOUBLE_COMPLEX, k, d(i_z16), 1, MPI_DOUBLE_COMPLEX, MPI_SUM, &
                          win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_DOUBLE_COMPLEX MPI_SUM')
      call MPI_Accumulate(o_lor, 1, MPI_LOGICAL, k, d(i_l), 1, MPI_LOGICAL, MPI_LOR, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_LOGICAL MPI_LOR')
      call MPI_Accumulate(o_land, 1, MPI_LOGICAL, k, d(i_l) + 4, 1, MPI_LOGICAL, MPI_LAND, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_LOGICAL MPI_LAND')
      call MPI_Accumulate(o_lxor, 1, MPI_LOGICAL, k, d(i_l) + 8, 1, MPI_LOGICAL, MPI_LXOR, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_LOGICAL MPI_LXOR')
      call MPI_Accumulate(o_p2, 1, MPI_2INTEGER, k, d(i_p2), 1, MPI_2INTEGER, MPI_MAXLOC, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_2INTEGER MPI_MAXLOC')
      call MPI_Accumulate(o_d2, 1, MPI_2DOUBLE_PRECISION, k, d(i_d2), 1, MPI_2DOUBLE_PRECISION, &
                          MPI_MINLOC, win, ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_2DOUBLE_PRECISION MPI_MINLOC')
    end do
    call MPI_Fetch_and_op(o_f8, fetched8, MPI_INTEGER8, 0, d(i_i8) + 16, MPI_SUM, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Fetch_and_op MPI_INTEGER8')
    call MPI_Compare_and_swap(cas_origin, cas_compare, cas_result, MPI_LOGICAL, right, d(i_l) + 12, &
                              win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Compare_and_swap MPI_LOGICAL')
    call MPI_Get_accumulate(o_r8, 1, MPI_REAL8, r8_result, 1, MPI_REAL8, right, d(i_r8), 1, MPI_REAL8, &
                            MPI_SUM, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get_accumulate MPI_REAL8')
    call MPI_Put(o_ch, 4, MPI_CHARACTER, right, d(i_ch), 4, MPI_CHARACTER, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Put MPI_CHARACTER')
    call MPI_Accumulate(o_ch2, 2, MPI_CHARACTER, right, d(i_ch) + 4, 2, MPI_CHARACTER, MPI_REPLACE, &
                        win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Accumulate MPI_CHARACTER MPI_REPLACE')
    call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierr)

    xor_all = 0
    maxv = -1
    maxi = -1
    minv = huge(1d0)
    mini = -1
    do k = 0, size - 1
      xor_all = ieor(xor_all, 2_8**(32 + k))
      if (mod(3 * k + 1, 5) > maxv) then
        maxv = mod(3 * k + 1, 5)
        maxi = k
      end if
      if (abs(k - size / 2) + 0.5d0 < minv) then
        minv = abs(k - size / 2) + 0.5d0
        mini = k
      end if
    end do
    call check(t%i8(1) == size * 2_8**33 + size * (size - 1) / 2, 'MPI_Accumulate MPI_INTEGER8 MPI_SUM')
    call check(t%i8(2) == xor_all, 'MPI_Accumulate MPI_INTEGER8 MPI_BXOR')
    call check(t%r4(1) == 2.0**size, 'MPI_Accumulate MPI_REAL MPI_PROD')
    call check(t%r4(2) == -0.5, 'MPI_Accumulate MPI_REAL MPI_MIN')
    call check(t%c8(1) == cmplx(size * (size - 1) / 2, size), 'MPI_Accumulate MPI_COMPLEX MPI_SUM')
    call check(t%z16(1) == cmplx(0.5d0 * size, -(size * (size - 1) / 2), kind(0d0)), &
               'MPI_Accumulate MPI_DOUBLE_COMPLEX MPI_SUM')
    call check(t%l(1), 'MPI_Accumulate MPI_LOGICAL MPI_LOR')
    call check(.not. t%l(2), 'MPI_Accumulate MPI_LOGICAL MPI_LAND')
    call check(t%l(3) .eqv. mod(size, 2) == 1, 'MPI_Accumulate MPI_LOGICAL MPI_LXOR')
    call check(t%l(4) .and. .not. cas_result(1), 'MPI_Compare_and_swap MPI_LOGICAL')
    call check(t%p2(1) == maxv .and. t%p2(2) == maxi, &
               'MPI_Accumulate MPI_2INTEGER MPI_MAXLOC (the lowest index of the maximum)')
    call check(t%d2(1) == minv .and. t%d2(2) == mini, 'MPI_Accumulate MPI_2DOUBLE_PRECISION MPI_MINLOC')
    call check(r8_result(1) == 1d0 .and. t%r8(1) == 1.25d0 + left, 'MPI_Get_accumulate MPI_REAL8')
    call check(all(t%ch == ['r', achar(iachar('0') + mod(left, 10)), 'x', 'y', 'A', 'B', '-', '-']), &
               'MPI_Put and MPI_Accumulate MPI_REPLACE of MPI_CHARACTER')
    call MPI_Allgather(fetched8, 1, MPI_INTEGER8, all8, 1, MPI_INTEGER8, MPI_COMM_WORLD, ierr)
    do k = 0, size - 1
      call check(count(all8 == k * 2_8**34) == 1, 'MPI_Fetch_and_op MPI_INTEGER8: each old value once')
    end do
    if (rank == 0) call check(t%i8(3) == size * 2_8**34, 'MPI_Fetch_and_op MPI_INTEGER8: the sum')
    call MPI_Win_free(win, ierr)
  end subroutine

  ! MPI_Win_allocate_shared over the node's communicator: rank i of the
  ! node has i + 2 INTEGERs, 10000 + 100 i + k; load/store on a neighbour's
  ! segment through MPI_Win_shared_query.
  subroutine shared()
    integer, pointer, volatile :: mine(:), theirs(:)
    integer, volatile :: pv(1)
    integer :: shm_rank, shm_size, sright, sleft, k, nme, nright, before
    integer(kind=MPI_ADDRESS_KIND) :: sz, addr, qaddr, faddr
    type(c_ptr) :: p, q
#if defined(RDMACH_USE_MODULE) && defined(HAS_CPTR)
    integer :: qdisp
    integer(kind=MPI_ADDRESS_KIND) :: qsize
#endif
    COMM_T :: shm
    WIN_T :: win

    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, shm, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)')
    call MPI_Comm_rank(shm, shm_rank, ierr)
    call MPI_Comm_size(shm, shm_size, ierr)
    sright = mod(shm_rank + 1, shm_size)
    sleft = mod(shm_rank + shm_size - 1, shm_size)
    nme = shm_rank + 2
    nright = sright + 2
    sz = nme * isz
    call alloc_win(MPI_WIN_FLAVOR_SHARED, sz, isz, shm, p, win, 'MPI_Win_allocate_shared')
    call c_f_pointer(p, mine, [nme])
    call MPI_Get_address(mine(1), addr, ierr)
    call check_alloc(win, p, addr, sz, isz, MPI_WIN_FLAVOR_SHARED, 'MPI_Win_allocate_shared')
    call check_win_group(win, shm, 'MPI_Win_get_group of a window over the node''s communicator: MPI_IDENT')

    ! this rank's segment
    call shared_query(win, shm_rank, sz, q, qaddr, 'MPI_Win_shared_query of this rank')
    call check(qaddr == addr, 'MPI_Win_shared_query of this rank: the base')
    ! the right neighbour's
    call shared_query(win, sright, int(nright * isz, ak), q, qaddr, 'MPI_Win_shared_query of the neighbour')
    call c_f_pointer(q, theirs, [nright])
    if (sright == shm_rank + 1) call check(qaddr == addr + sz, &
        'MPI_Win_allocate_shared: contiguous by default (the next rank''s follows)')
    ! MPI_PROC_NULL: the lowest rank with a non-empty segment (rank 0)
    call shared_query(win, MPI_PROC_NULL, int(2 * isz, ak), q, faddr, &
                      'MPI_Win_shared_query(MPI_PROC_NULL): the lowest rank''s')
    before = 0
    do k = 0, shm_rank - 1
      before = before + (k + 2) * isz
    end do
    call check(faddr == addr - before, 'MPI_Win_shared_query(MPI_PROC_NULL): the lowest rank''s base')
#if defined(RDMACH_USE_MODULE) && defined(HAS_CPTR)
    ! module mpi: the INTEGER(KIND=MPI_ADDRESS_KIND) form beside the C_PTR one
    qaddr = 0
    qsize = -1
    qdisp = -1
    call MPI_Win_shared_query(win, sright, qsize, qdisp, qaddr, ierr)
    call MPI_Get_address(theirs(1), faddr, ierr)
    call check(ierr == MPI_SUCCESS .and. qaddr == faddr .and. qsize == nright * isz, &
               'MPI_Win_shared_query into an address integer')
#endif

    call MPI_Win_lock_all(MPI_MODE_NOCHECK, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_lock_all(MPI_MODE_NOCHECK)')
    mine = [(10000 + 100 * shm_rank + k, k = 1, nme)]
    call MPI_Win_sync(win, ierr)
    call MPI_Barrier(shm, ierr)
    call MPI_Win_sync(win, ierr)
    call check(all(theirs == [(10000 + 100 * sright + k, k = 1, nright)]), &
               'a store seen by the neighbour''s load (MPI_Win_sync, barrier, MPI_Win_sync)')
    call MPI_Barrier(shm, ierr)
    ! an RMA put into the neighbour's segment, seen by its load
    pv(1) = 9000 + shm_rank
    call MPI_Put(pv, 1, MPI_INTEGER, sright, 1_ak, 1, MPI_INTEGER, win, ierr)
    call MPI_Win_flush(sright, win, ierr)
    call MPI_Win_sync(win, ierr)
    call MPI_Barrier(shm, ierr)
    call MPI_Win_sync(win, ierr)
    call check(mine(2) == 9000 + sleft .and. mine(1) == 10000 + 100 * shm_rank + 1, &
               'MPI_Put into a shared window, seen by a load')
    call MPI_Win_unlock_all(win, ierr)
    call MPI_Win_free(win, ierr)
    call check(ierr == MPI_SUCCESS .and. win == MPI_WIN_NULL, 'MPI_Win_free (shared)')
    call MPI_Comm_free(shm, ierr)
  end subroutine

  ! MPI_Win_create_dynamic: target displacements are addresses.
  subroutine dynamic()
    integer, allocatable, volatile :: dyn(:)
    integer, volatile :: g(2), pv(1), absbuf(2)
    integer :: k, blens(1)
    integer(kind=MPI_ADDRESS_KIND) :: addr, a4, addrs(0:size - 1), disps(1), v
    DT_T :: abstype
    WIN_T :: win

    call MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call check(ierr == MPI_SUCCESS .and. win /= MPI_WIN_NULL, 'MPI_Win_create_dynamic')
    v = win_attr(win, MPI_WIN_CREATE_FLAVOR, 'MPI_WIN_CREATE_FLAVOR')
    call check(v == MPI_WIN_FLAVOR_DYNAMIC, 'MPI_Win_create_dynamic: MPI_WIN_FLAVOR_DYNAMIC')
    v = win_attr(win, MPI_WIN_BASE, 'MPI_WIN_BASE')
    call check(v == 0, 'MPI_Win_create_dynamic: MPI_WIN_BASE is MPI_BOTTOM')
    v = win_attr(win, MPI_WIN_SIZE, 'MPI_WIN_SIZE')
    call check(v == 0, 'MPI_Win_create_dynamic: MPI_WIN_SIZE is 0')
    v = win_attr(win, MPI_WIN_DISP_UNIT, 'MPI_WIN_DISP_UNIT')
    call check(v == 1, 'MPI_Win_create_dynamic: MPI_WIN_DISP_UNIT is 1')

    allocate(dyn(8))
    dyn = [(600 + 10 * rank + k, k = 1, 8)]
    call MPI_Win_attach(win, dyn, int(8 * isz, ak), ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_attach')
    call MPI_Get_address(dyn(1), addr, ierr)
    call MPI_Get_address(dyn(4), a4, ierr)
    call check(MPI_Aint_diff(a4, addr) == 3 * isz, 'MPI_Aint_diff')
    call check(MPI_Aint_diff(addr, a4) == -3 * isz, 'MPI_Aint_diff: negative')
    call check(MPI_Aint_add(addr, int(3 * isz, ak)) == a4, 'MPI_Aint_add')
    call MPI_Allgather(addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS .and. addrs(rank) == addr, 'MPI_Allgather of MPI_AINT')

    call MPI_Win_lock_all(0, win, ierr)
    g = -9
    call MPI_Get(g, 2, MPI_INTEGER, right, MPI_Aint_add(addrs(right), int(2 * isz, ak)), 2, &
                 MPI_INTEGER, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get from a dynamic window')
    call MPI_Win_flush(right, win, ierr)
    call check(all(g == [600 + 10 * right + 3, 600 + 10 * right + 4]), &
               'MPI_Get from a dynamic window at an address')
    pv(1) = 7000 + rank
    call MPI_Put(pv, 1, MPI_INTEGER, right, MPI_Aint_add(addrs(right), int(7 * isz, ak)), 1, &
                 MPI_INTEGER, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Put to a dynamic window')
    ! MPI_BOTTOM as the origin, with a datatype at absolute addresses
    absbuf = [-9, -9]
    blens(1) = 2
    call MPI_Get_address(absbuf(1), disps(1), ierr)
    call MPI_Type_create_hindexed(1, blens, disps, MPI_INTEGER, abstype, ierr)
    call MPI_Type_commit(abstype, ierr)
    call MPI_Get(MPI_BOTTOM, 1, abstype, right, addrs(right), 2, MPI_INTEGER, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get into MPI_BOTTOM with an absolute datatype')
    call MPI_Win_flush_all(win, ierr)
    call check(all(absbuf == [600 + 10 * right + 1, 600 + 10 * right + 2]), &
               'MPI_Get into MPI_BOTTOM with an absolute datatype')
    call MPI_Type_free(abstype, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Win_sync(win, ierr)
    call check(dyn(8) == 7000 + left .and. dyn(7) == 600 + 10 * rank + 7, &
               'MPI_Put to a dynamic window at MPI_Aint_add(address, 7 elements)')
    call MPI_Win_unlock_all(win, ierr)

    ! nobody accesses it any more
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Win_detach(win, dyn, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_detach')
    deallocate(dyn)
    call MPI_Win_free(win, ierr)
    call check(ierr == MPI_SUCCESS .and. win == MPI_WIN_NULL, 'MPI_Win_free (dynamic)')
  end subroutine

#ifdef RDMACH_USE_F08
  ! mpi_f08's large-count forms under the generic names (MPI 4.1 §19.2):
  ! counts INTEGER(KIND=MPI_COUNT_KIND), DISP_UNIT INTEGER(KIND=
  ! MPI_ADDRESS_KIND) (MPI_WIN_CREATE, MPI_WIN_ALLOCATE(_SHARED), and out
  ! of MPI_WIN_SHARED_QUERY); and calls without the optional IERROR. The
  ! window a(0:11) of rank r starts as 100 r + k.
  subroutine large_forms()
    integer, volatile :: a(0:11), src(8), g(8), res(4), one(1)
    integer, pointer, volatile :: m(:), q(:)
    integer :: k
    integer(kind=MPI_COUNT_KIND) :: n1, n2, n4
    integer(kind=MPI_ADDRESS_KIND) :: du, qdu, qsize, addr
    type(c_ptr) :: p, pq
    REQ_T :: req(4)
    WIN_T :: win

    a = [(100 * rank + k, k = 0, 11)]
    src = [(700 + 10 * rank + k, k = 1, 8)]
    g = -9
    res = -9
    one(1) = 1
    n1 = 1
    n2 = 2
    n4 = 4
    du = isz
    call MPI_Win_create(a, int(12 * isz, ak), du, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_create, DISP_UNIT INTEGER(KIND=MPI_ADDRESS_KIND)')
    call MPI_Get_address(a(0), addr, ierr)
    call check_attrs(win, addr, int(12 * isz, ak), isz, MPI_WIN_FLAVOR_CREATE, &
                     'MPI_Win_create (large-count form)')
    call MPI_Win_fence(MPI_MODE_NOPRECEDE, win)
    call MPI_Put(src, n4, MPI_INTEGER, right, 0_ak, n4, MPI_INTEGER, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Put, counts INTEGER(KIND=MPI_COUNT_KIND)')
    call MPI_Get(g, n4, MPI_INTEGER, right, 8_ak, n4, MPI_INTEGER, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get, counts INTEGER(KIND=MPI_COUNT_KIND)')
    call MPI_Accumulate(one, n1, MPI_INTEGER, right, 4_ak, n1, MPI_INTEGER, MPI_SUM, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Accumulate, counts INTEGER(KIND=MPI_COUNT_KIND)')
    if (MPI_SUBARRAYS_SUPPORTED) call MPI_Put(src(2:8:2), n2, MPI_INTEGER, right, 5_ak, n2, &
                                              MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    call check(all(a(0:3) == [(700 + 10 * left + k, k = 1, 4)]), 'MPI_Put (large-count form)')
    call check(all(g(1:4) == [(100 * right + k, k = 8, 11)]) .and. all(g(5:8) == -9), &
               'MPI_Get (large-count form)')
    call check(a(4) == 100 * rank + 5, 'MPI_Accumulate (large-count form)')
    if (MPI_SUBARRAYS_SUPPORTED) call check(a(5) == 702 + 10 * left .and. a(6) == 704 + 10 * left, &
                                            'MPI_Put from a section, without IERROR (large-count form)')
    call MPI_Win_fence(MPI_MODE_NOSUCCEED, win)

    ! request-based, large-count forms, in a lock_all epoch
    call MPI_Win_lock_all(0, win)
    call MPI_Rput(src, n2, MPI_INTEGER, right, 7_ak, n2, MPI_INTEGER, win, req(1), ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Rput (large-count form)')
    call MPI_Wait(req(1), MPI_STATUS_IGNORE)
    call MPI_Win_flush(right, win)
    g = -9
    call MPI_Rget(g, n2, MPI_INTEGER, right, 7_ak, n2, MPI_INTEGER, win, req(1), ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Rget (large-count form)')
    call MPI_Raccumulate(one, n1, MPI_INTEGER, right, 9_ak, n1, MPI_INTEGER, MPI_SUM, win, req(2), ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Raccumulate (large-count form)')
    call MPI_Rget_accumulate(one, n1, MPI_INTEGER, res, n1, MPI_INTEGER, right, 9_ak, n1, MPI_INTEGER, &
                             MPI_SUM, win, req(3), ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Rget_accumulate (large-count form)')
    call MPI_Waitall(3, req, MPI_STATUSES_IGNORE)
    call check(all(g(1:2) == [701 + 10 * rank, 702 + 10 * rank]), 'MPI_Rput, MPI_Rget (large-count forms)')
    call check(res(1) == 100 * right + 9 + 1, 'MPI_Raccumulate, MPI_Rget_accumulate (large-count forms)')
    call MPI_Win_flush(right, win)
    call MPI_Get_accumulate(one, n1, MPI_INTEGER, res(2:2), n1, MPI_INTEGER, right, 9_ak, n1, &
                            MPI_INTEGER, MPI_NO_OP, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get_accumulate (large-count form)')
    call MPI_Win_flush(right, win)
    call check(res(2) == 100 * right + 9 + 2, 'MPI_Get_accumulate MPI_NO_OP (large-count form)')
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_Win_sync(win)
    call check(a(7) == 701 + 10 * left .and. a(8) == 702 + 10 * left .and. a(9) == 100 * rank + 11, &
               'the large-count forms'' results at the target')
    call MPI_Win_unlock_all(win)
    call MPI_Win_free(win)
    call check(win == MPI_WIN_NULL, 'MPI_Win_free without IERROR')

    ! MPI_Win_allocate and MPI_Win_allocate_shared, DISP_UNIT MPI_ADDRESS_KIND
    call MPI_Win_allocate(int(4 * isz, ak), du, MPI_INFO_NULL, MPI_COMM_WORLD, p, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_allocate, DISP_UNIT INTEGER(KIND=MPI_ADDRESS_KIND)')
    call c_f_pointer(p, m, [4])
    call MPI_Get_address(m(1), addr, ierr)
    call check_attrs(win, addr, int(4 * isz, ak), isz, MPI_WIN_FLAVOR_ALLOCATE, &
                     'MPI_Win_allocate (large-count form)')
    call MPI_Win_free(win)
    call MPI_Win_allocate_shared(int(4 * isz, ak), du, MPI_INFO_NULL, MPI_COMM_SELF, p, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_allocate_shared, DISP_UNIT INTEGER(KIND=MPI_ADDRESS_KIND)')
    call c_f_pointer(p, m, [4])
    qdu = -1
    qsize = -1
    call MPI_Win_shared_query(win, 0, qsize, qdu, pq, ierr)
    call check(ierr == MPI_SUCCESS .and. qsize == 4 * isz .and. qdu == isz, &
               'MPI_Win_shared_query, DISP_UNIT INTEGER(KIND=MPI_ADDRESS_KIND)')
    call c_f_pointer(pq, q, [4])
    call MPI_Win_lock_all(MPI_MODE_NOCHECK, win)
    m = [(rank * 10 + k, k = 1, 4)]
    call MPI_Win_sync(win)
    call check(all(q == [(rank * 10 + k, k = 1, 4)]), 'MPI_Win_shared_query (large-count form): the base')
    call MPI_Win_unlock_all(win)
    call MPI_Win_free(win)
  end subroutine
#endif

  ! INFO's value of KEY (flag false: absent).
  subroutine info_value(info, key, value, flag)
    INFO_T, intent(in) :: info
    character(len=*), intent(in) :: key
    character(len=*), intent(out) :: value
    logical, intent(out) :: flag
    integer :: buflen
    value = ' '
    buflen = len(value)
    call MPI_Info_get_string(info, key, buflen, value, flag, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Info_get_string of ' // key)
  end subroutine

  ! Names and info hints.
  subroutine objects()
    integer, volatile :: c(4)
    integer :: rlen, one
    character(len=MPI_MAX_OBJECT_NAME) :: name
    character(len=MPI_MAX_INFO_VAL) :: value
    logical :: flag
    INFO_T :: info, used
    WIN_T :: win, win2

    ! a window created without info: a hint it reports has the default
    c = 0
    call MPI_Win_create(c, int(4 * isz, ak), isz, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    name = 'canary'
    rlen = -1
    call MPI_Win_get_name(win, name, rlen, ierr)
    call check(ierr == MPI_SUCCESS .and. rlen == 0 .and. name == ' ', &
               'MPI_Win_get_name of an unnamed window: empty (all blanks)')
    call MPI_Win_set_name(win, 'rma window  ', ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_set_name')
    call MPI_Win_get_name(win, name, rlen, ierr)
    call check(ierr == MPI_SUCCESS .and. rlen == 10 .and. name == 'rma window', &
               'MPI_Win_get_name (trailing blanks dropped)')
    call MPI_Win_get_info(win, used, ierr)
    call check(ierr == MPI_SUCCESS .and. used /= MPI_INFO_NULL, 'MPI_Win_get_info')
    call info_value(used, 'no_locks', value, flag)
    if (flag) call check(value == 'false', 'MPI_Win_get_info: no_locks defaults to false')
    call info_value(used, 'accumulate_ordering', value, flag)
    if (flag) call check(value == 'rar,raw,war,waw', &
                         'MPI_Win_get_info: accumulate_ordering defaults to rar,raw,war,waw')
    call info_value(used, 'same_disp_unit', value, flag)
    if (flag) call check(value == 'false', 'MPI_Win_get_info: same_disp_unit defaults to false')
    call MPI_Info_free(used, ierr)

    ! MPI_Win_set_info: accumulate_ordering none, in effect or ignored
    call MPI_Info_create(info, ierr)
    call MPI_Info_set(info, 'accumulate_ordering', 'none', ierr)
    call MPI_Win_set_info(win, info, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_set_info')
    call MPI_Info_free(info, ierr)
    call MPI_Win_get_info(win, used, ierr)
    call info_value(used, 'accumulate_ordering', value, flag)
    if (flag) call check(value == 'none' .or. value == 'rar,raw,war,waw', &
                         'MPI_Win_get_info after MPI_Win_set_info: accumulate_ordering')
    call MPI_Info_free(used, ierr)
    call MPI_Win_free(win, ierr)

    ! hints at creation: no_locks, accumulate_ordering none, same_disp_unit
    call MPI_Info_create(info, ierr)
    call MPI_Info_set(info, 'no_locks', 'true', ierr)
    call MPI_Info_set(info, 'accumulate_ordering', 'none', ierr)
    call MPI_Info_set(info, 'same_disp_unit', 'true', ierr)
    c = 0
    call MPI_Win_create(c, int(4 * isz, ak), isz, info, MPI_COMM_WORLD, win2, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_create with info hints')
    call MPI_Info_free(info, ierr)
    call MPI_Win_get_info(win2, used, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_get_info')
    call info_value(used, 'no_locks', value, flag)
    call check(flag .and. value == 'true', 'MPI_Win_get_info reports the hint no_locks true')
    call info_value(used, 'accumulate_ordering', value, flag)
    call check(flag .and. value == 'none', 'MPI_Win_get_info reports the hint accumulate_ordering none')
    call info_value(used, 'same_disp_unit', value, flag)
    call check(flag .and. value == 'true', 'MPI_Win_get_info reports the hint same_disp_unit true')
    call MPI_Info_free(used, ierr)
    call check(used == MPI_INFO_NULL, 'MPI_Info_free of MPI_Win_get_info''s info')
    ! no locks: fences only
    one = 1
    call MPI_Win_fence(0, win2, ierr)
    call MPI_Accumulate(one, 1, MPI_INTEGER, right, 1_ak, 1, MPI_INTEGER, MPI_SUM, win2, ierr)
    call MPI_Accumulate(one, 1, MPI_INTEGER, left, 2_ak, 1, MPI_INTEGER, MPI_SUM, win2, ierr)
    call MPI_Win_fence(0, win2, ierr)
    call check(c(1) == 0 .and. c(2) == 1 .and. c(3) == 1 .and. c(4) == 0, &
               'MPI_Accumulate on a window with accumulate_ordering none, no_locks')
    call MPI_Win_free(win2, ierr)
  end subroutine

  ! Attribute keyvals on a window.
  subroutine keyvals()
    integer, volatile :: c(2)
    integer :: key_null, key_user, key_dup, wval, keys(3), k
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    logical :: flag
    WIN_T :: win

    c = 0
    call MPI_Win_create(c, int(2 * isz, ak), isz, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    wval = HANDLE_VAL(win)
    extra = 2_ak**35 + 3
    call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, record_delete, key_user, extra, ierr)
    call check(ierr == MPI_SUCCESS .and. key_user /= MPI_KEYVAL_INVALID, &
               'MPI_Win_create_keyval with a Fortran delete callback')
    call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, key_null, extra, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN)')
    call MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, key_dup, extra, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN)')
    val = 2_ak**40 + 1
    call MPI_Win_set_attr(win, key_null, val, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_set_attr')
    val = -5
    call MPI_Win_set_attr(win, key_dup, val, ierr)
    val = 0
    call MPI_Win_get_attr(win, key_null, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. val == 2_ak**40 + 1, &
               'MPI_Win_get_attr: an address-sized value')
    call MPI_Win_get_attr(win, key_dup, val, flag, ierr)
    call check(flag .and. val == -5, 'MPI_Win_get_attr: a negative value')
    call MPI_Win_delete_attr(win, key_null, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_delete_attr')
    call MPI_Win_get_attr(win, key_null, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Win_get_attr after MPI_Win_delete_attr')

    val = 77
    call MPI_Win_set_attr(win, key_user, val, ierr)
    call check(ierr == MPI_SUCCESS .and. del_calls == 0, 'MPI_Win_set_attr of a new value')
    val = 78
    call MPI_Win_set_attr(win, key_user, val, ierr)
    call check(del_calls == 1 .and. del_value == 77, &
               'MPI_Win_set_attr over a value calls the delete callback with the old one')
    call check(del_win == wval .and. del_key == key_user .and. del_extra == extra, &
               'the delete callback gets the window, the keyval, EXTRA_STATE')
    val = 0
    call MPI_Win_get_attr(win, key_user, val, flag, ierr)
    call check(flag .and. val == 78, 'MPI_Win_get_attr of the new value')
    call MPI_Win_delete_attr(win, key_user, ierr)
    call check(ierr == MPI_SUCCESS .and. del_calls == 2 .and. del_value == 78, &
               'MPI_Win_delete_attr calls the delete callback')
    call MPI_Win_get_attr(win, key_user, val, flag, ierr)
    call check(.not. flag, 'MPI_Win_get_attr of a deleted attribute')
    val = 79
    call MPI_Win_set_attr(win, key_user, val, ierr)
    call MPI_Win_free(win, ierr)
    call check(ierr == MPI_SUCCESS .and. del_calls == 3 .and. del_value == 79 .and. &
               del_win == wval, 'MPI_Win_free calls the delete callback')
    keys = [key_user, key_null, key_dup]
    do k = 1, 3
      call MPI_Win_free_keyval(keys(k), ierr)
      call check(ierr == MPI_SUCCESS .and. keys(k) == MPI_KEYVAL_INVALID, &
                 'MPI_Win_free_keyval sets MPI_KEYVAL_INVALID')
    end do
  end subroutine

  ! A Fortran window error handler; MPI_ERRORS_RETURN. The window is
  ! e(2:5), inside e(0:7) (its base an element, 2 INTEGERs into the array):
  ! an implementation that does not detect a displacement outside it (it
  ! need not) writes e(1) or e(6).
  subroutine errors()
    integer, volatile :: e(0:7), x(1)
    integer :: code
    integer(kind=MPI_ADDRESS_KIND) :: addr
    EH_T :: eh, eh2
    WIN_T :: win

    e = 0
    x(1) = 1
    call MPI_Win_create(e(2), int(4 * isz, ak), isz, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_create over e(2:5)')
    call MPI_Get_address(e(2), addr, ierr)
    call check_attrs(win, addr, int(4 * isz, ak), isz, MPI_WIN_FLAVOR_CREATE, &
                     'MPI_Win_create with an array element e(2) as the base')
    call MPI_Win_create_errhandler(win_handler, eh, ierr)
    call check(ierr == MPI_SUCCESS .and. eh /= MPI_ERRHANDLER_NULL, 'MPI_Win_create_errhandler')
    call MPI_Win_set_errhandler(win, eh, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_set_errhandler')
    call MPI_Win_get_errhandler(win, eh2, ierr)
    call check(ierr == MPI_SUCCESS .and. eh2 == eh, 'MPI_Win_get_errhandler gives the handler set')
    call MPI_Errhandler_free(eh2, ierr)
    call check(ierr == MPI_SUCCESS .and. eh2 == MPI_ERRHANDLER_NULL, &
               'MPI_Errhandler_free of MPI_Win_get_errhandler''s handle')

    call MPI_Win_call_errhandler(win, MPI_ERR_OTHER, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Win_call_errhandler returns MPI_SUCCESS')
    call check(eh_calls == 1 .and. eh_win == HANDLE_VAL(win) .and. eh_code == MPI_ERR_OTHER, &
               'MPI_Win_call_errhandler calls the handler with the window and the code')

    call MPI_Win_fence(0, win, ierr)
    ! the handler is called for an invalid rank, and the call returns the error
    call MPI_Put(x, 1, MPI_INTEGER, size, 0_ak, 1, MPI_INTEGER, win, ierr)
    call check(ierr /= MPI_SUCCESS .and. err_class(ierr) == MPI_ERR_RANK, &
               'MPI_Put to rank SIZE returns an error of class MPI_ERR_RANK')
    call check(eh_calls == 2 .and. eh_win == HANDLE_VAL(win) .and. &
               err_class(eh_code) == MPI_ERR_RANK, &
               'MPI_Put to rank SIZE calls the window''s handler with MPI_ERR_RANK')

    ! MPI_ERRORS_RETURN
    call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN, ierr)
    call MPI_Win_get_errhandler(win, eh2, ierr)
    call check(eh2 == MPI_ERRORS_RETURN, 'MPI_Win_get_errhandler: MPI_ERRORS_RETURN')
    call MPI_Put(x, 1, MPI_INTEGER, size + 3, 0_ak, 1, MPI_INTEGER, win, ierr)
    code = err_class(ierr)
    call check(ierr /= MPI_SUCCESS .and. code == MPI_ERR_RANK, &
               'MPI_Put to rank SIZE + 3 under MPI_ERRORS_RETURN: MPI_ERR_RANK')
    call check(eh_calls == 2, 'MPI_ERRORS_RETURN calls no handler')
    ! displacements 4 and -1 are outside the window (detecting that is not
    ! required; when detected, the class says so)
    call MPI_Put(x, 1, MPI_INTEGER, rank, 4_ak, 1, MPI_INTEGER, win, ierr)
    if (ierr /= MPI_SUCCESS) call check(err_class(ierr) == MPI_ERR_RMA_RANGE, &
                                        'MPI_Put beyond the window: MPI_ERR_RMA_RANGE')
    call MPI_Put(x, 1, MPI_INTEGER, rank, -1_ak, 1, MPI_INTEGER, win, ierr)
    if (ierr /= MPI_SUCCESS) call check(err_class(ierr) == MPI_ERR_DISP .or. &
                                        err_class(ierr) == MPI_ERR_RMA_RANGE, &
                                        'MPI_Put at displacement -1: MPI_ERR_DISP or MPI_ERR_RMA_RANGE')
    call MPI_Win_fence(MPI_MODE_NOSUCCEED, win, ierr)
    call check(ierr == MPI_SUCCESS .and. all(e(2:5) == 0), 'the erroneous puts wrote nothing')
    ! no epoch: MPI_ERR_RMA_SYNC; MPI_Win_attach needs a dynamic window
    call MPI_Put(x, 1, MPI_INTEGER, right, 0_ak, 1, MPI_INTEGER, win, ierr)
    call check(ierr /= MPI_SUCCESS .and. err_class(ierr) == MPI_ERR_RMA_SYNC, &
               'MPI_Put outside an epoch: MPI_ERR_RMA_SYNC')
    call MPI_Win_unlock(right, win, ierr)
    call check(ierr /= MPI_SUCCESS .and. err_class(ierr) == MPI_ERR_RMA_SYNC, &
               'MPI_Win_unlock without MPI_Win_lock: MPI_ERR_RMA_SYNC')
    call MPI_Win_attach(win, x, int(isz, ak), ierr)
    call check(ierr /= MPI_SUCCESS .and. err_class(ierr) == MPI_ERR_RMA_FLAVOR, &
               'MPI_Win_attach to a window of MPI_Win_create: MPI_ERR_RMA_FLAVOR')
    call check(eh_calls == 2 .and. all(e(2:5) == 0), 'MPI_ERRORS_RETURN: no handler, nothing written')
    call MPI_Errhandler_free(eh, ierr)
    call MPI_Win_free(win, ierr)
  end subroutine

#include "check.inc"
end program
