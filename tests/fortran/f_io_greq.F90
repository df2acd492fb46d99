! f_io_greq: Fortran forms whose semantics the MPI standard spells out
! (MPI 4.1), through mpif.h, `use mpi` (mpi_test.h) and `use mpi_f08`
! (-DRDMACH_USE_F08):
!   MPI_DISPLACEMENT_CURRENT  an INTEGER(KIND=MPI_OFFSET_KIND) constant
!       (the constants of Annex A.1.1), the DISP of MPI_FILE_SET_VIEW on a
!       file opened with MPI_MODE_SEQUENTIAL (§14.3): the view's
!       displacement becomes the shared file pointer's position, and, as
!       MPI_FILE_SET_VIEW resets the file pointers to zero, data written
!       after it continue the file where the shared pointer was. Checked at
!       compile time (a kind that is not MPI_OFFSET_KIND makes an invalid
!       KIND=) and at run time, then by reading the file back with a normal
!       open (the positions are seen in the data: MPICH refuses
!       MPI_FILE_GET_POSITION_SHARED on a sequential file). SEQUENTIAL goes
!       with WRONLY here: with RDWR it is erroneous (§14.2.1).
!   generalized requests (§13.2)  MPI_WAIT calls QUERY_FN, which fills the
!       status (MPI_STATUS_SET_ELEMENTS, MPI_STATUS_SET_CANCELLED), then
!       FREE_FN; MPI_CANCEL calls CANCEL_FN with the LOGICAL COMPLETE
!       .FALSE. before MPI_GREQUEST_COMPLETE and .TRUE. after it. The
!       callbacks get EXTRA_STATE by reference to the variable given to
!       MPI_GREQUEST_START (as MPICH and Open MPI pass it): what a callback
!       stores in it is the program's variable's new value (declared
!       VOLATILE here, as the callbacks change it behind the compiler).
!   MPI_INFO_GET  "otherwise sets flag to false and leaves value unchanged"
!       (§10): VALUE keeps a sentinel for an absent key.
! and with `use mpi_f08` only:
!   MPI_SOURCE, MPI_TAG, MPI_ERROR  the indices of the INTEGER status
!       (§19.3.5): MPI_STATUS_F082F of a received TYPE(MPI_Status) has
!       status%MPI_SOURCE at (MPI_SOURCE), ..., and MPI_STATUS_F2F08 brings
!       back the same status.
! Any number of ranks; the file is one per run (the variants run at once).
#ifdef RDMACH_USE_F08
#define MPI_USE use mpi_f08
#define MPI_INCLUDE
#define INFO_T type(MPI_Info)
#define FILE_T type(MPI_File)
#define REQ_T type(MPI_Request)
#define DT_T type(MPI_Datatype)
#define STATUS_DECL(s) type(MPI_Status) :: s
#else
#include "mpi_test.h"
#define INFO_T integer
#define FILE_T integer
#define REQ_T integer
#define DT_T integer
#define STATUS_DECL(s) integer :: s(MPI_STATUS_SIZE)
#endif

! What the generalized request callbacks saw.
module f_io_greq_seen
  implicit none
  integer :: queries = 0, frees = 0, cancels = 0
  integer(kind=8) :: query_extra = -1, free_extra = -1
  logical :: cancel_complete(2) = [.true., .false.]
end module

module f_io_greq_cb
  implicit none
contains
  ! Fills the status: 3 INTEGERs, not cancelled; adds 1 to EXTRA_STATE.
  subroutine query_fn(extra_state, status, ierror)
    use f_io_greq_seen
    MPI_USE
    implicit none
    MPI_INCLUDE
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    STATUS_DECL(status)
    integer :: ierror
    queries = queries + 1
    query_extra = extra_state
    call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierror)
    if (ierror == MPI_SUCCESS) call MPI_Status_set_cancelled(status, .false., ierror)
    extra_state = extra_state + 1
  end subroutine

  ! Stores the marker 2**40 + 7 in EXTRA_STATE.
  subroutine free_fn(extra_state, ierror)
    use f_io_greq_seen
    MPI_USE
    implicit none
    MPI_INCLUDE
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    frees = frees + 1
    free_extra = extra_state
    extra_state = 2_MPI_ADDRESS_KIND**40 + 7
    ierror = MPI_SUCCESS
  end subroutine

  ! Records COMPLETE; adds 100 to EXTRA_STATE.
  subroutine cancel_fn(extra_state, complete, ierror)
    use f_io_greq_seen
    MPI_USE
    implicit none
    MPI_INCLUDE
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    cancels = cancels + 1
    if (cancels <= 2) cancel_complete(cancels) = complete
    extra_state = extra_state + 100
    ierror = MPI_SUCCESS
  end subroutine
end module

program f_io_greq
  use f_io_greq_seen
  use f_io_greq_cb
  MPI_USE
  implicit none
  MPI_INCLUDE
  ! compile time: an invalid kind (-1) unless MPI_DISPLACEMENT_CURRENT's
  ! kind is MPI_OFFSET_KIND
  integer, parameter :: disp_kind = merge(MPI_OFFSET_KIND, -1, &
                                          kind(MPI_DISPLACEMENT_CURRENT) == MPI_OFFSET_KIND)
  integer(kind=disp_kind), parameter :: disp_current = MPI_DISPLACEMENT_CURRENT
  integer :: ierr, rank, size

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')
  call check(kind(MPI_DISPLACEMENT_CURRENT) == MPI_OFFSET_KIND .and. &
             disp_current == MPI_DISPLACEMENT_CURRENT, &
             'MPI_DISPLACEMENT_CURRENT is INTEGER(KIND=MPI_OFFSET_KIND)')

  call sequential_view()
  call generalized_request()
  call info_get_absent()
#ifdef RDMACH_USE_F08
  call status_conversion()
#endif

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_io_greq: ok on ', size, ' ranks'

contains

  ! A file opened with MPI_MODE_SEQUENTIAL: n(n+1)/2 INTEGERs by
  ! MPI_FILE_WRITE_ORDERED (rank r: r + 1 of them, 100 r + i) and n by
  ! MPI_FILE_WRITE_SHARED (500 + r, in any order) through the default view
  ! (etype MPI_BYTE); MPI_FILE_SET_VIEW with MPI_DISPLACEMENT_CURRENT and
  ! etype MPI_INTEGER; then 2 n by MPI_FILE_WRITE_ORDERED (rank r: 700 +
  ! 10 r + i), which follow the others in the file.
  subroutine sequential_view()
    FILE_T :: fh
    DT_T :: etype, ftype
    character(len=64) :: fname
    character(len=MPI_MAX_DATAREP_STRING) :: datarep
    integer :: pid, isize, n1, n2, ntot, i, r, k, got
    integer :: buf(16)
    integer, allocatable :: fdata(:)
    logical :: seen(0:63)
    integer(kind=MPI_OFFSET_KIND) :: disp, fsize, off
    STATUS_DECL(status)

    ! one file per run: the variants run at once in one directory
    pid = getpid()
    call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    write (fname, '(a, i0, a)') 'f_io_greq.', pid, '.dat'
    call MPI_Type_size(MPI_INTEGER, isize, ierr)
    n1 = size * (size + 1) / 2 + size   ! INTEGERs before the new view
    n2 = 2 * size                        ! after it
    ntot = n1 + n2

    call MPI_File_open(MPI_COMM_WORLD, fname, &
                       MPI_MODE_CREATE + MPI_MODE_WRONLY + MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &
                       fh, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_File_open with MPI_MODE_SEQUENTIAL')
    buf(1:rank + 1) = [(100 * rank + i, i = 1, rank + 1)]
    call MPI_File_write_ordered(fh, buf, rank + 1, MPI_INTEGER, status, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_File_write_ordered on a sequential file')
    call MPI_Get_count(status, MPI_INTEGER, got, ierr)
    call check(got == rank + 1, 'MPI_File_write_ordered: the status''s count')
    buf(1) = 500 + rank
    call MPI_File_write_shared(fh, buf, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_File_write_shared on a sequential file')
    ! every rank's MPI_FILE_WRITE_SHARED done before the pointer is read
    call MPI_Barrier(MPI_COMM_WORLD, ierr)

    call MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INTEGER, MPI_INTEGER, 'native', &
                           MPI_INFO_NULL, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_File_set_view with MPI_DISPLACEMENT_CURRENT')
    call MPI_File_get_view(fh, disp, etype, ftype, datarep, ierr)
    call check(ierr == MPI_SUCCESS .and. disp == int(n1, MPI_OFFSET_KIND) * isize, &
               'MPI_DISPLACEMENT_CURRENT: the displacement is the shared pointer''s position')
    call check(etype == MPI_INTEGER .and. datarep == 'native', 'MPI_File_get_view: etype, datarep')

    buf(1:2) = [700 + 10 * rank + 1, 700 + 10 * rank + 2]
    call MPI_File_write_ordered(fh, buf, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_File_write_ordered in the new view')
    call MPI_File_close(fh, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_File_close')

    ! read back, every rank all of it
    call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_File_open to read back')
    call MPI_File_get_size(fh, fsize, ierr)
    call check(fsize == int(ntot, MPI_OFFSET_KIND) * isize, 'the file''s size')
    allocate(fdata(ntot))
    fdata = -1
    off = 0
    call MPI_File_read_at(fh, off, fdata, ntot, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_File_read_at')
    k = 0
    do r = 0, size - 1
      do i = 1, r + 1
        k = k + 1
        call check(fdata(k) == 100 * r + i, 'the data MPI_File_write_ordered wrote')
      end do
    end do
    seen = .false.
    do i = 1, size
      k = k + 1
      r = fdata(k) - 500
      call check(r >= 0 .and. r < size, 'the data MPI_File_write_shared wrote')
      call check(.not. seen(r), 'the data MPI_File_write_shared wrote: each rank''s once')
      seen(r) = .true.
    end do
    do r = 0, size - 1
      do i = 1, 2
        k = k + 1
        call check(fdata(k) == 700 + 10 * r + i, &
                   'the data written after MPI_DISPLACEMENT_CURRENT follow the others')
      end do
    end do
    call MPI_File_close(fh, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL, ierr)
  end subroutine

  subroutine generalized_request()
    integer(kind=MPI_ADDRESS_KIND), volatile :: extra
    REQ_T :: req
    logical :: flag
    integer :: n
    STATUS_DECL(status)

    extra = 40 + rank
    call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
    call check(ierr == MPI_SUCCESS .and. req /= MPI_REQUEST_NULL, 'MPI_Grequest_start')
    call MPI_Test(req, flag, status, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag .and. queries == 0 .and. frees == 0, &
               'a generalized request is incomplete before MPI_Grequest_complete')

    call MPI_Cancel(req, ierr)
    call check(ierr == MPI_SUCCESS .and. cancels == 1, 'MPI_Cancel calls CANCEL_FN')
    call check(.not. cancel_complete(1), 'CANCEL_FN before MPI_Grequest_complete: COMPLETE false')
    call check(extra == 140 + rank, 'CANCEL_FN''s change to EXTRA_STATE is the program''s variable''s')
    call MPI_Grequest_complete(req, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Grequest_complete')
    call MPI_Cancel(req, ierr)
    call check(ierr == MPI_SUCCESS .and. cancels == 2, 'MPI_Cancel after completion calls CANCEL_FN')
    call check(cancel_complete(2), 'CANCEL_FN after MPI_Grequest_complete: COMPLETE true')
    call check(extra == 240 + rank, 'EXTRA_STATE after the second CANCEL_FN')

    call MPI_Wait(req, status, ierr)
    call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'MPI_Wait frees the request')
    call check(queries == 1 .and. frees == 1, 'MPI_Wait calls QUERY_FN and FREE_FN once each')
    call check(query_extra == 240 + rank, 'QUERY_FN gets EXTRA_STATE')
    call check(free_extra == 241 + rank, 'FREE_FN gets EXTRA_STATE as QUERY_FN left it')
    call check(extra == 2_MPI_ADDRESS_KIND**40 + 7, &
               'FREE_FN''s change to EXTRA_STATE is the program''s variable''s')
    call MPI_Get_elements(status, MPI_INTEGER, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 3, 'the status QUERY_FN filled: MPI_Get_elements')
    call MPI_Get_count(status, MPI_INTEGER, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 3, 'the status QUERY_FN filled: MPI_Get_count')
    call MPI_Test_cancelled(status, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'the status QUERY_FN filled: not cancelled')
  end subroutine

  subroutine info_get_absent()
    INFO_T :: info
    character(len=24) :: value
    logical :: flag

    call MPI_Info_create(info, ierr)
    value = 'sentinel'
    call MPI_Info_get(info, 'nothing', len(value), value, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Info_get of a key of an empty info')
    call check(value == 'sentinel', 'MPI_Info_get of an absent key leaves VALUE (empty info)')
    call MPI_Info_set(info, 'fruit', 'apple', ierr)
    call MPI_Info_get(info, 'vegetable', len(value), value, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag .and. value == 'sentinel', &
               'MPI_Info_get of an absent key leaves VALUE')
    call MPI_Info_get(info, 'fruit', len(value), value, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. value == 'apple', 'MPI_Info_get of a key')
    call MPI_Info_delete(info, 'fruit', ierr)
    value = 'sentinel too'
    call MPI_Info_get(info, 'fruit', len(value), value, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag .and. value == 'sentinel too', &
               'MPI_Info_get of a deleted key leaves VALUE')
    call MPI_Info_free(info, ierr)
  end subroutine

#ifdef RDMACH_USE_F08
  ! A status from a receive (from the left neighbour, any source and tag)
  ! to INTEGER(MPI_STATUS_SIZE) and back.
  subroutine status_conversion()
    type(MPI_Status) :: status, back
    integer :: fstatus(MPI_STATUS_SIZE), left, right, sbuf(2), rbuf(2), n, m
    logical :: c1, c2

    call check(MPI_SOURCE >= 1 .and. MPI_SOURCE <= MPI_STATUS_SIZE .and. &
               MPI_TAG >= 1 .and. MPI_TAG <= MPI_STATUS_SIZE .and. &
               MPI_ERROR >= 1 .and. MPI_ERROR <= MPI_STATUS_SIZE .and. &
               MPI_SOURCE /= MPI_TAG .and. MPI_TAG /= MPI_ERROR .and. MPI_SOURCE /= MPI_ERROR, &
               'MPI_SOURCE, MPI_TAG, MPI_ERROR: distinct indices of an INTEGER status')
    right = mod(rank + 1, size)
    left = mod(rank + size - 1, size)
    sbuf = [rank, rank]
    call MPI_Sendrecv(sbuf, 2, MPI_INTEGER, right, 30 + rank, rbuf, 2, MPI_INTEGER, &
                      MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
    call check(ierr == MPI_SUCCESS .and. status%MPI_SOURCE == left .and. &
               status%MPI_TAG == 30 + left, 'MPI_Sendrecv''s status')

    fstatus = -99
    call MPI_Status_f082f(status, fstatus, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Status_f082f')
    call check(fstatus(MPI_SOURCE) == status%MPI_SOURCE, 'MPI_Status_f082f: (MPI_SOURCE)')
    call check(fstatus(MPI_TAG) == status%MPI_TAG, 'MPI_Status_f082f: (MPI_TAG)')
    call check(fstatus(MPI_ERROR) == status%MPI_ERROR, 'MPI_Status_f082f: (MPI_ERROR)')

    call MPI_Status_f2f08(fstatus, back, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Status_f2f08')
    call check(back%MPI_SOURCE == status%MPI_SOURCE .and. back%MPI_TAG == status%MPI_TAG .and. &
               back%MPI_ERROR == status%MPI_ERROR, 'MPI_Status_f2f08 of it: source, tag, error')
    call MPI_Get_count(status, MPI_INTEGER, n, ierr)
    call MPI_Get_count(back, MPI_INTEGER, m, ierr)
    call check(n == 2 .and. m == 2, 'MPI_Status_f2f08 of it: the count')
    call MPI_Test_cancelled(status, c1, ierr)
    call MPI_Test_cancelled(back, c2, ierr)
    call check(.not. c1 .and. .not. c2, 'MPI_Status_f2f08 of it: not cancelled')
    ! and the other way: an INTEGER status made here
    fstatus(MPI_SOURCE) = 5
    fstatus(MPI_TAG) = 6
    fstatus(MPI_ERROR) = MPI_ERR_TAG
    call MPI_Status_f2f08(fstatus, back, ierr)
    call check(back%MPI_SOURCE == 5 .and. back%MPI_TAG == 6 .and. back%MPI_ERROR == MPI_ERR_TAG, &
               'MPI_Status_f2f08 reads (MPI_SOURCE), (MPI_TAG), (MPI_ERROR)')
  end subroutine
#endif

#include "check.inc"
end program
