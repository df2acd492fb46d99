! f_info_mem: MPI-3 and MPI-4 Fortran forms with semantics of their own:
!   MPI_INFO_GET_STRING   BUFLEN in is how many characters VALUE may take
!                         (0: only the length is asked for, VALUE stays);
!                         out, the value's length, with no terminator;
!                         VALUE gets at most BUFLEN characters, blank-padded,
!                         and stays as it was when the key is absent;
!   MPI_INFO_CREATE_ENV(INFO, IERROR)  no argc/argv in Fortran: the same
!                         keys and values as MPI_INFO_ENV, before MPI_INIT
!                         as after it;
!   PMPI_WTIME, PMPI_WTICK  DOUBLE PRECISION functions, as MPI_WTIME;
! and, with `use mpi` and `use mpi_f08`:
!   TYPE(C_PTR) BASEPTR   MPI_ALLOC_MEM, MPI_WIN_ALLOCATE,
!                         MPI_WIN_ALLOCATE_SHARED, MPI_WIN_SHARED_QUERY
!                         (module mpi: the _CPTR forms under the generic
!                         names, beside the INTEGER(KIND=MPI_ADDRESS_KIND)
!                         ones);
!   MPI_SIZEOF of a CHARACTER  the size MPI_TYPE_SIZE gives MPI_CHARACTER.
! Built with mpif.h, `use mpi` (mpi_test.h) and `use mpi_f08`
! (-DRDMACH_USE_F08). Any number of ranks.
#ifdef RDMACH_USE_F08
#define MPI_USE use mpi_f08
#define MPI_INCLUDE
#define INFO_T type(MPI_Info)
#define WIN_T type(MPI_Win)
#define COMM_T type(MPI_Comm)
#define HAS_MODULE
#else
#include "mpi_test.h"
#define INFO_T integer
#define WIN_T integer
#define COMM_T integer
#ifdef RDMACH_USE_MODULE
#define HAS_MODULE
#endif
#endif
program f_info_mem
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, size, buflen
  INFO_T :: info, env_early, env_late
  logical :: flag
  character(len=16) :: value
  double precision :: t

  ! MPI-4.1 allows MPI_INFO_CREATE_ENV before MPI_INIT
  call MPI_Info_create_env(env_early, ierr)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')

  ! ---- MPI_INFO_GET_STRING ----
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'color', 'deep blue', ierr)
  buflen = 0
  value = 'canary'
  call MPI_Info_get_string(info, 'color', buflen, value, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Info_get_string with BUFLEN 0: found')
  call check(buflen == 9, 'MPI_Info_get_string with BUFLEN 0: the length, no terminator')
  call check(value == 'canary', 'MPI_Info_get_string with BUFLEN 0 leaves VALUE')
  buflen = 4
  value = 'canary'
  call MPI_Info_get_string(info, 'color', buflen, value, flag, ierr)
  call check(flag .and. buflen == 9, 'MPI_Info_get_string with BUFLEN 4: the whole length')
  call check(value == 'deep', 'MPI_Info_get_string with BUFLEN 4: 4 characters, blank-padded')
  buflen = len(value)
  call MPI_Info_get_string(info, 'color', buflen, value, flag, ierr)
  call check(flag .and. buflen == 9 .and. value == 'deep blue', 'MPI_Info_get_string')
  buflen = 9
  value = 'canary'
  call MPI_Info_get_string(info, '  color', buflen, value, flag, ierr)
  call check(flag .and. buflen == 9 .and. value == 'deep blue', &
             'MPI_Info_get_string: BUFLEN the exact length, a key with leading blanks')
  buflen = len(value)
  value = 'canary'
  call MPI_Info_get_string(info, 'shape', buflen, value, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Info_get_string of an absent key')
  call check(value == 'canary', 'MPI_Info_get_string of an absent key leaves VALUE')
  call MPI_Info_free(info, ierr)

  ! ---- MPI_INFO_CREATE_ENV ----
  call MPI_Info_create_env(env_late, ierr)
  call check(ierr == MPI_SUCCESS .and. env_late /= MPI_INFO_NULL .and. env_late /= MPI_INFO_ENV, &
             'MPI_Info_create_env: a new info object')
  call same_as_env(env_early, 'MPI_Info_create_env before MPI_Init')
  call same_as_env(env_late, 'MPI_Info_create_env')
  call MPI_Info_free(env_early, ierr)
  call MPI_Info_free(env_late, ierr)
  call check(ierr == MPI_SUCCESS .and. env_late == MPI_INFO_NULL, 'MPI_Info_free of its result')

  ! ---- the profiling timers ----
  t = PMPI_Wtime()
  call check(PMPI_Wtime() >= t .and. PMPI_Wtick() > 0d0 .and. PMPI_Wtick() < 1d0, &
             'PMPI_Wtime and PMPI_Wtick')

#ifdef HAS_MODULE
  call c_ptr_forms()
  call character_sizeof()
#endif

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_info_mem: ok on ', size, ' ranks'

contains

  ! Every key of MPI_INFO_ENV is in env with the same value, and no other.
  subroutine same_as_env(env, what)
    INFO_T, intent(in) :: env
    character(len=*), intent(in) :: what
    integer :: n, n_env, i, l1, l2
    character(len=MPI_MAX_INFO_KEY) :: key
    character(len=MPI_MAX_INFO_VAL) :: v1, v2
    logical :: f1, f2
    call MPI_Info_get_nkeys(env, n, ierr)
    call MPI_Info_get_nkeys(MPI_INFO_ENV, n_env, ierr)
    call check(ierr == MPI_SUCCESS .and. n == n_env, what // ': as many keys as MPI_INFO_ENV')
    do i = 0, n_env - 1
      call MPI_Info_get_nthkey(MPI_INFO_ENV, i, key, ierr)
      l1 = len(v1)
      l2 = len(v2)
      call MPI_Info_get_string(MPI_INFO_ENV, key, l1, v1, f1, ierr)
      call MPI_Info_get_string(env, key, l2, v2, f2, ierr)
      call check(f1 .and. f2 .and. l1 == l2 .and. v1 == v2, what // ': a key of MPI_INFO_ENV')
    end do
  end subroutine

#ifdef HAS_MODULE
  subroutine c_ptr_forms()
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated
    type(c_ptr) :: p, q
    integer, pointer :: a(:), mine(:), theirs(:)
    integer(kind=MPI_ADDRESS_KIND) :: sz, qsize
    integer :: qdisp, shm_rank, shm_size, right
    WIN_T :: win
    COMM_T :: shm

    sz = 4 * 100
    call MPI_Alloc_mem(sz, MPI_INFO_NULL, p, ierr)
    call check(ierr == MPI_SUCCESS .and. c_associated(p), 'MPI_Alloc_mem into a TYPE(C_PTR)')
    call c_f_pointer(p, a, [100])
    a = rank
    a(100) = -1
    call check(a(1) == rank .and. a(100) == -1, 'memory from MPI_Alloc_mem')
    call MPI_Free_mem(a, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Free_mem of it')

    ! each rank's window holds (rank, 10 * rank); the right neighbour reads it
    right = mod(rank + 1, size)
    sz = 2 * 4
    call MPI_Win_allocate(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win, ierr)
    call check(ierr == MPI_SUCCESS .and. c_associated(p), 'MPI_Win_allocate into a TYPE(C_PTR)')
    call c_f_pointer(p, mine, [2])
    mine = [rank, 10 * rank]
    allocate(a(2))
    a = -1
    call MPI_Win_fence(0, win, ierr)
    call MPI_Get(a, 2, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, 2, MPI_INTEGER, win, ierr)
    call MPI_Win_fence(0, win, ierr)
    call check(all(a == [right, 10 * right]), 'MPI_Get from MPI_Win_allocate''s memory')
    deallocate(a)
    call MPI_Win_free(win, ierr)

    ! shared memory: one INTEGER per rank, read by the next rank of the node
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, shm, ierr)
    call MPI_Comm_rank(shm, shm_rank, ierr)
    call MPI_Comm_size(shm, shm_size, ierr)
    sz = 4
    call MPI_Win_allocate_shared(sz, 4, MPI_INFO_NULL, shm, p, win, ierr)
    call check(ierr == MPI_SUCCESS .and. c_associated(p), &
               'MPI_Win_allocate_shared into a TYPE(C_PTR)')
    call c_f_pointer(p, mine, [1])
    right = mod(shm_rank + 1, shm_size)
    call MPI_Win_shared_query(win, right, qsize, qdisp, q, ierr)
    call check(ierr == MPI_SUCCESS .and. qsize == 4 .and. qdisp == 4 .and. c_associated(q), &
               'MPI_Win_shared_query into a TYPE(C_PTR)')
    call c_f_pointer(q, theirs, [1])
    call MPI_Win_fence(0, win, ierr)
    mine(1) = 1000 + shm_rank
    call MPI_Win_fence(0, win, ierr)
    call check(theirs(1) == 1000 + right, 'a neighbour''s value through MPI_Win_shared_query')
    call MPI_Win_fence(0, win, ierr)
    call MPI_Win_free(win, ierr)
    call MPI_Comm_free(shm, ierr)
#ifndef RDMACH_USE_F08
    call address_forms()
#endif
  end subroutine

#ifndef RDMACH_USE_F08
  ! module mpi keeps the INTEGER(KIND=MPI_ADDRESS_KIND) forms too
  subroutine address_forms()
    integer(kind=MPI_ADDRESS_KIND) :: sz, addr, qsize
    integer :: qdisp, win
    sz = 64
    addr = 0
    call MPI_Alloc_mem(sz, MPI_INFO_NULL, addr, ierr)
    call check(ierr == MPI_SUCCESS .and. addr /= 0, 'MPI_Alloc_mem into an address integer')
    call MPI_Free_mem_addr(addr)
    sz = 4
    addr = 0
    call MPI_Win_allocate_shared(sz, 4, MPI_INFO_NULL, MPI_COMM_SELF, addr, win, ierr)
    call check(ierr == MPI_SUCCESS .and. addr /= 0, &
               'MPI_Win_allocate_shared into an address integer')
    qsize = 0
    call MPI_Win_shared_query(win, 0, qsize, qdisp, sz, ierr)
    call check(ierr == MPI_SUCCESS .and. sz == addr .and. qsize == 4, &
               'MPI_Win_shared_query into an address integer')
    call MPI_Win_free(win, ierr)
  end subroutine

  ! MPI_FREE_MEM takes the memory itself: here the memory at an address
  subroutine MPI_Free_mem_addr(addr)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: addr
    integer, pointer :: m(:)
    call c_f_pointer(transfer(addr, c_null()), m, [16])
    call MPI_Free_mem(m, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Free_mem of memory given as an address')
  end subroutine

  function c_null()
    use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr
    type(c_ptr) :: c_null
    c_null = c_null_ptr
  end function
#endif

  subroutine character_sizeof()
    character :: c1, cv(7)
    integer :: n, tsize
    call MPI_Type_size(MPI_CHARACTER, tsize, ierr)
    call MPI_Sizeof(c1, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == tsize, 'MPI_Sizeof of a CHARACTER')
    call MPI_Sizeof(cv, n, ierr)
    call check(n == tsize, 'MPI_Sizeof of a CHARACTER array')
  end subroutine
#endif

#include "check.inc"
end program
