! f_p2p_every: every point-to-point procedure of MPI 4.1 from Fortran,
! through mpif.h, `use mpi` (mpi_test.h) and `use mpi_f08`
! (-DRDMACH_USE_F08), each result checked against the standard — the data,
! the status's MPI_SOURCE, MPI_TAG and MPI_ERROR, MPI_GET_COUNT and
! MPI_GET_ELEMENTS, flags, indices and the request and message handles:
!   statuses (§3.2.5)  a call "does not modify" a status's MPI_ERROR unless
!       it is a multiple-completion call returning MPI_ERR_IN_STATUS (none
!       does here): every status is filled with -77 first, and a completed
!       receive's (or probe's) MPI_ERROR is still -77. An empty status (a
!       null or inactive request, §3.7.3) is MPI_ANY_SOURCE, MPI_ANY_TAG,
!       MPI_SUCCESS, count 0, not cancelled; a receive from MPI_PROC_NULL
!       (§3.11) is MPI_PROC_NULL, MPI_ANY_TAG, count 0. Of a send's status
!       only MPI_TEST_CANCELLED is defined (§3.7.3).
!   blocking  MPI_SEND, MPI_BSEND (MPI_BUFFER_ATTACH, MPI_BSEND_OVERHEAD,
!       MPI_PACK_SIZE; MPI_BUFFER_DETACH gives back the size, and in
!       mpi_f08 the buffer's address as a TYPE(C_PTR)), MPI_SSEND, MPI_RSEND
!       (the receive posted before a barrier), MPI_RECV with MPI_ANY_SOURCE
!       and MPI_ANY_TAG, MPI_SENDRECV, MPI_SENDRECV_REPLACE; all of them to
!       and from MPI_PROC_NULL; MPI_STATUS_IGNORE.
!   nonblocking (§3.7)  MPI_ISEND, MPI_IBSEND, MPI_ISSEND (not complete
!       before its receive is posted), MPI_IRSEND, MPI_IRECV, MPI_ISENDRECV,
!       MPI_ISENDRECV_REPLACE; MPI_WAIT, MPI_TEST, MPI_WAITALL, MPI_TESTALL,
!       MPI_WAITANY, MPI_TESTANY, MPI_WAITSOME, MPI_TESTSOME with indices
!       from 1 and MPI_UNDEFINED when no request is active,
!       MPI_REQUEST_GET_STATUS (and MPI 4.1's _ALL, _ANY, _SOME), which
!       leave the request; MPI_STATUSES_IGNORE; MPI_REQUEST_FREE of a
!       pending send. A receive whose sender sends only after a barrier is
!       incomplete before it: the "not yet" answers are checked too.
!   persistent (§3.9)  MPI_SEND_INIT, MPI_BSEND_INIT, MPI_SSEND_INIT,
!       MPI_RSEND_INIT, MPI_RECV_INIT started three times with new data
!       (MPI_STARTALL, MPI_START); inactive, not null, after completion;
!       MPI_WAIT and MPI_TEST of an inactive request; MPI_REQUEST_FREE.
!   probe (§3.8)  MPI_PROBE, MPI_IPROBE, MPI_MPROBE/MPI_MRECV,
!       MPI_IMPROBE/MPI_IMRECV (MPI_MESSAGE_NULL after the receive;
!       MPI_MESSAGE_NO_PROC from MPI_PROC_NULL); a derived type partially
!       received: MPI_GET_COUNT is MPI_UNDEFINED, MPI_GET_ELEMENTS and
!       MPI_GET_ELEMENTS_X count the INTEGERs.
!   cancel (§3.8.4)  an MPI_IRECV, an MPI_ISEND and an MPI_ISSEND nobody
!       matches, and a started MPI_RECV_INIT: MPI_TEST_CANCELLED is .TRUE.
!       after MPI_WAIT (or an MPI_TEST loop), and a cancelled send never
!       arrives. (Cancelling a send is deprecated in MPI 4.1, still defined.)
!   status (§3.2.5, §13.3)  MPI_STATUS_SET_ELEMENTS, _SET_ELEMENTS_X (a
!       count over 2**31: the INTEGER forms answer MPI_UNDEFINED),
!       _SET_CANCELLED, and MPI 4.1's MPI_STATUS_SET_/GET_SOURCE, _TAG,
!       _ERROR.
!   partitioned (chapter 4; 2 ranks or more)  MPI_PSEND_INIT and
!       MPI_PRECV_INIT (COUNT is INTEGER(KIND=MPI_COUNT_KIND)), MPI_START,
!       MPI_STARTALL, MPI_PREADY, MPI_PREADY_RANGE, MPI_PREADY_LIST
!       (partitions numbered from 0), MPI_PARRIVED (false before the
!       sender's MPI_PREADY), MPI_WAIT; two rounds.
!   MPI 4.1 buffers (§3.6)  MPI_BUFFER_FLUSH, MPI_BUFFER_IFLUSH,
!       MPI_COMM_ATTACH_BUFFER, MPI_COMM_DETACH_BUFFER,
!       MPI_COMM_FLUSH_BUFFER, MPI_COMM_IFLUSH_BUFFER, MPI_BUFFER_AUTOMATIC.
!   keyword arguments (`use mpi`, `use mpi_f08`)  MPI_IRECV, MPI_ISEND,
!       MPI_WAITANY, MPI_TESTANY (INDEX=), MPI_REQUEST_GET_STATUS_ANY,
!       MPI_SEND, MPI_RECV called with the standard's dummy argument names.
!   large counts (mpi_f08 only)  MPI_SEND, MPI_RECV, MPI_ISEND, MPI_IRECV,
!       MPI_SENDRECV, MPI_GET_COUNT, MPI_GET_ELEMENTS with
!       INTEGER(KIND=MPI_COUNT_KIND) counts (the _c procedures, through the
!       generic names).
! Built with MPICH's compiler wrapper and headers or modules
! (-DRDMACH_MPICH_BUILD: MPICH 4.0.2 is MPI 4.0) the MPI 4.1 procedures,
! MPI_BUFFER_AUTOMATIC and the keyword arguments are left out (MPICH's
! module mpi has no interface for choice-buffer procedures and names INDEX
! INDX), and MPI_PARRIVED's FLAG goes through an INTEGER (its module
! declares it so). Any number of ranks: a ring (at 1 rank, to
! self); partitioned communication from 2.
! The code: one subroutine per pattern, the MPI call that varies chosen in
! one place by a mode or a table: send_kind (the four send modes, blocking
! and nonblocking, and the large-count forms), transfer and sendrecv
! (blocking, MPI_PROC_NULL and large counts), poll and poll_call (the
! completion procedures, _ANY, _SOME, _ALL, and MPI 4.1's
! MPI_REQUEST_GET_STATUS_*, driven by the OP_ table), recv_typed (a derived
! type partially received), cancel_one (the cancelled operations); post,
! wait_st, got, recv_st, waitall2, attach and detach for shared steps.
#ifdef RDMACH_USE_F08
#define MPI_USE use mpi_f08
#define MPI_INCLUDE
#define COMM_T type(MPI_Comm)
#define REQ_T type(MPI_Request)
#define DT_T type(MPI_Datatype)
#define MSG_T type(MPI_Message)
#define STATUS_DECL(s) type(MPI_Status) :: s
#define STATUSES_DECL(s, k) type(MPI_Status) :: s(k)
#define ST_SOURCE(s) s%MPI_SOURCE
#define ST_TAG(s) s%MPI_TAG
#define ST_ERROR(s) s%MPI_ERROR
#define ST_OF(s, i) s(i)
#define BADDR_DECL(b) type(c_ptr) :: b
#else
#include "mpi_test.h"
#define COMM_T integer
#define REQ_T integer
#define DT_T integer
#define MSG_T integer
#define STATUS_DECL(s) integer :: s(MPI_STATUS_SIZE)
#define STATUSES_DECL(s, k) integer :: s(MPI_STATUS_SIZE, k)
#define ST_SOURCE(s) s(MPI_SOURCE)
#define ST_TAG(s) s(MPI_TAG)
#define ST_ERROR(s) s(MPI_ERROR)
#define ST_OF(s, i) s(:, i)
! MPI_BUFFER_DETACH's BUFFER_ADDR: a choice argument; big enough for an address
#define BADDR_DECL(b) integer(kind=MPI_ADDRESS_KIND) :: b
#endif
#ifndef RDMACH_MPICH_BUILD
#define TEST_BUFFER_AUTOMATIC
#endif
#if (defined(RDMACH_USE_MODULE) || defined(RDMACH_USE_F08)) && !defined(RDMACH_MPICH_BUILD)
#define TEST_KEYWORDS
#endif

! The buffers of nonblocking, persistent and partitioned operations: a
! module's variables, which an optimising compiler reloads after a call
! (MPI_WAIT, MPI_STARTALL, ... change them without naming them).
module f_p2p_every_bufs
  implicit none
  integer, parameter :: n = 8
  integer, target :: sbuf(n), sbuf2(n), rbuf(n), rbuf2(n), xbuf(n)
  integer, target :: ps(n, 4), pr(n, 4)
  integer, target :: qs(12), qr(12)
end module

program f_p2p_every
  use f_p2p_every_bufs
#ifdef RDMACH_USE_F08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_loc, c_associated
#endif
  MPI_USE
  implicit none
  MPI_INCLUDE
  ! what a status's fields are filled with before a call
  integer, parameter :: POISON = -77
  ! send_kind's modes: MPI_SEND, _BSEND, _SSEND, _RSEND, MPI_SEND with an
  ! INTEGER(KIND=MPI_COUNT_KIND) count (mpi_f08), and their nonblocking forms
  integer, parameter :: K_SEND = 1, K_BSEND = 2, K_SSEND = 3, K_RSEND = 4, K_LARGE = 5, &
                        K_ISEND = 6, K_IBSEND = 7, K_ISSEND = 8, K_IRSEND = 9, K_ILARGE = 10
  character(len=*), parameter :: SEND_NAME(10) = [character(len=10) :: 'MPI_Send', 'MPI_Bsend', &
      'MPI_Ssend', 'MPI_Rsend', 'MPI_Send', 'MPI_Isend', 'MPI_Ibsend', 'MPI_Issend', 'MPI_Irsend', &
      'MPI_Isend']
  ! poll's completion procedures and their table: how many requests, where
  ! the MPI_IRECV and the MPI_ISEND stand (0: a blocking MPI_SEND instead),
  ! the tag, the form of the answer, whether the first call comes before the
  ! message is sent (after a barrier: "not yet"), whether the requests are
  ! left (MPI_REQUEST_GET_STATUS*), MPI_STATUSES_IGNORE in the calls until
  ! complete and in the last call, of null requests
  integer, parameter :: OP_WAITANY = 1, OP_TESTANY = 2, OP_WAITSOME = 3, OP_TESTSOME = 4, &
                        OP_TESTALL = 5, OP_GET_STATUS = 6, OP_GS_ALL = 7, OP_GS_ANY = 8, OP_GS_SOME = 9
  integer, parameter :: FORM_ANY = 1, FORM_SOME = 2, FORM_ALL = 3
  character(len=*), parameter :: OP_NAME(9) = [character(len=27) :: 'MPI_Waitany', 'MPI_Testany', &
      'MPI_Waitsome', 'MPI_Testsome', 'MPI_Testall', 'MPI_Request_get_status', &
      'MPI_Request_get_status_all', 'MPI_Request_get_status_any', 'MPI_Request_get_status_some']
  integer, parameter :: OP_CNT(9) = [4, 3, 4, 3, 3, 1, 3, 2, 3]
  integer, parameter :: OP_RI(9) = [2, 3, 2, 3, 1, 1, 1, 2, 3]
  integer, parameter :: OP_SI(9) = [3, 1, 4, 1, 2, 0, 3, 0, 0]
  integer, parameter :: OP_TAG(9) = [211, 212, 213, 214, 215, 216, 221, 222, 223]
  integer, parameter :: OP_FORM(9) = [FORM_ANY, FORM_ANY, FORM_SOME, FORM_SOME, FORM_ALL, FORM_ALL, &
                                      FORM_ALL, FORM_ANY, FORM_SOME]
  logical, parameter :: YES = .true., NO = .false.
  logical, parameter :: OP_LATE(9) = [NO, YES, NO, YES, YES, YES, YES, YES, YES]
  logical, parameter :: OP_LEAVES(9) = [NO, NO, NO, NO, NO, YES, YES, YES, YES]
  logical, parameter :: OP_IGN(9) = [NO, NO, NO, YES, NO, NO, NO, NO, NO]
  logical, parameter :: OP_IGN_LAST(9) = [NO, NO, NO, YES, NO, NO, NO, NO, YES]
  ! cancel_one's operations
  integer, parameter :: C_IRECV = 1, C_IRECV_TEST = 2, C_ISEND = 3, C_ISSEND = 4, C_RECV_INIT = 5
  character(len=*), parameter :: C_NAME(5) = [character(len=24) :: 'MPI_Irecv', &
      'MPI_Irecv (MPI_Test)', 'MPI_Isend', 'MPI_Issend', 'a started MPI_Recv_init']
  integer :: ierr, rank, nproc, left, right, op

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)

  call blocking()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call proc_null()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call nonblocking()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  ! MPI_WAITANY, MPI_TESTANY, MPI_WAITSOME, MPI_TESTSOME, MPI_TESTALL,
  ! MPI_REQUEST_GET_STATUS
  do op = OP_WAITANY, OP_GET_STATUS
    call poll(op)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call null_requests()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
#ifdef TEST_KEYWORDS
  call keywords()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
#endif
#ifndef RDMACH_MPICH_BUILD
  ! MPI 4.1's MPI_REQUEST_GET_STATUS_ALL, _ANY and _SOME
  do op = OP_GS_ALL, OP_GS_SOME
    call poll(op)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
#endif
  call persistent()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call probe()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call elements()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call status_set()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call partitioned()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
#ifndef RDMACH_MPICH_BUILD
  call buffers_41()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
#endif
#ifdef RDMACH_USE_F08
  call large_counts()
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
#endif
  ! last: a send whose cancellation failed would leave a message behind
  call cancel()

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_p2p_every: ok on ', nproc, ' ranks'

contains

  ! ------------------------------------------------------------ helpers

  subroutine succ(what)
    character(len=*), intent(in) :: what
    call check(ierr == MPI_SUCCESS, what // ': IERROR is MPI_SUCCESS')
  end subroutine

  ! MPI_SOURCE, MPI_TAG, MPI_ERROR (and in an INTEGER status the rest) := POISON
  subroutine spoil(s)
    STATUS_DECL(s)
#ifdef RDMACH_USE_F08
    s%MPI_SOURCE = POISON
    s%MPI_TAG = POISON
    s%MPI_ERROR = POISON
#else
    s = POISON
#endif
  end subroutine

  ! A status: source, tag, error, MPI_GET_COUNT and MPI_GET_ELEMENTS of
  ! MPI_INTEGER (and _X), not cancelled.
  subroutine check_status(s, src, tg, cnt, err, what)
    STATUS_DECL(s)
    integer, intent(in) :: src, tg, cnt, err
    character(len=*), intent(in) :: what
    integer :: c
    integer(kind=MPI_COUNT_KIND) :: cx
    logical :: cancelled
    if (ST_SOURCE(s) /= src) print '(a, i0, 3a, i0, a, i0)', 'rank ', rank, ': ', what, &
                                   ': MPI_SOURCE ', ST_SOURCE(s), ', expected ', src
    call check(ST_SOURCE(s) == src, what // ': status MPI_SOURCE')
    if (ST_TAG(s) /= tg) print '(a, i0, 3a, i0, a, i0)', 'rank ', rank, ': ', what, &
                               ': MPI_TAG ', ST_TAG(s), ', expected ', tg
    call check(ST_TAG(s) == tg, what // ': status MPI_TAG')
    if (ST_ERROR(s) /= err) print '(a, i0, 3a, i0, a, i0)', 'rank ', rank, ': ', what, &
                                  ': MPI_ERROR ', ST_ERROR(s), ', expected ', err
    call check(ST_ERROR(s) == err, what // ': status MPI_ERROR')
    c = POISON
    call MPI_Get_count(s, MPI_INTEGER, c, ierr)
    if (c /= cnt) print '(a, i0, 3a, i0, a, i0)', 'rank ', rank, ': ', what, &
                        ': MPI_Get_count ', c, ', expected ', cnt
    call check(ierr == MPI_SUCCESS .and. c == cnt, what // ': MPI_Get_count')
    c = POISON
    call MPI_Get_elements(s, MPI_INTEGER, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == cnt, what // ': MPI_Get_elements')
    cx = POISON
    call MPI_Get_elements_x(s, MPI_INTEGER, cx, ierr)
    call check(ierr == MPI_SUCCESS .and. cx == cnt, what // ': MPI_Get_elements_x')
    cancelled = .true.
    call MPI_Test_cancelled(s, cancelled, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. cancelled, what // ': MPI_Test_cancelled is .FALSE.')
  end subroutine

  ! a completed receive's status: MPI_ERROR left as it was
  subroutine check_recv(s, src, tg, cnt, what)
    STATUS_DECL(s)
    integer, intent(in) :: src, tg, cnt
    character(len=*), intent(in) :: what
    call check_status(s, src, tg, cnt, POISON, what)
  end subroutine

  ! an empty status (§3.7.3)
  subroutine check_empty(s, what)
    STATUS_DECL(s)
    character(len=*), intent(in) :: what
    call check_status(s, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS, what // ' (empty status)')
  end subroutine

  ! a receive from MPI_PROC_NULL (§3.11)
  subroutine check_proc_null(s, what)
    STATUS_DECL(s)
    character(len=*), intent(in) :: what
    call check_status(s, MPI_PROC_NULL, MPI_ANY_TAG, 0, POISON, what // ' (MPI_PROC_NULL status)')
  end subroutine

  ! a completed send's status: its fields are undefined, but
  ! MPI_TEST_CANCELLED answers (§3.7.3)
  subroutine check_send(s, what)
    STATUS_DECL(s)
    character(len=*), intent(in) :: what
    logical :: cancelled
    cancelled = .true.
    call MPI_Test_cancelled(s, cancelled, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. cancelled, what // ': a send''s MPI_Test_cancelled')
  end subroutine

  ! the message rank r sends with tag tg: r * 1000 + tg * 10 + i (tags < 100)
  logical function from(buf, r, tg, cnt)
    integer, intent(in) :: buf(:), r, tg, cnt
    integer :: i
    from = all(buf(1:cnt) == [(r * 1000 + mod(tg, 100) * 10 + i, i = 1, cnt)])
  end function

  subroutine fill(buf, tg)
    integer, intent(out) :: buf(:)
    integer, intent(in) :: tg
    integer :: i
    buf = [(rank * 1000 + mod(tg, 100) * 10 + i, i = 1, size(buf))]
  end subroutine

  ! what the left sent with tag tg: cnt INTEGERs in buf, the status
  subroutine got(buf, tg, cnt, s, what)
    integer, intent(in) :: buf(:), tg, cnt
    STATUS_DECL(s)
    character(len=*), intent(in) :: what
    call check(from(buf, left, tg, cnt), what // ': the data')
    call check_recv(s, left, tg, cnt, what)
  end subroutine

  ! rbuf := -1 and an MPI_IRECV into it from the left (on comm, or MPI_COMM_WORLD)
  subroutine post(tg, req, comm)
    integer, intent(in) :: tg
    REQ_T, intent(out) :: req
    COMM_T, intent(in), optional :: comm
    rbuf = -1
    if (present(comm)) then
      call MPI_Irecv(rbuf, n, MPI_INTEGER, left, tg, comm, req, ierr)
    else
      call MPI_Irecv(rbuf, n, MPI_INTEGER, left, tg, MPI_COMM_WORLD, req, ierr)
    end if
    call succ('MPI_Irecv')
    call check(req /= MPI_REQUEST_NULL, 'MPI_Irecv: a request')
  end subroutine

  ! MPI_WAIT with a status (spoilt first): the request MPI_REQUEST_NULL after
  subroutine wait_st(req, s, what)
    REQ_T, intent(inout) :: req
    STATUS_DECL(s)
    character(len=*), intent(in) :: what
    call spoil(s)
    call MPI_Wait(req, s, ierr)
    call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'MPI_Wait of ' // what // &
               ': MPI_SUCCESS, the request MPI_REQUEST_NULL')
  end subroutine

  ! rbuf := -1 and an MPI_RECV into it from the left, with a status
  subroutine recv_st(tg, s)
    integer, intent(in) :: tg
    STATUS_DECL(s)
    rbuf = -1
    call spoil(s)
    call MPI_Recv(rbuf, n, MPI_INTEGER, left, tg, MPI_COMM_WORLD, s, ierr)
    call succ('MPI_Recv')
  end subroutine

  ! MPI_WAITALL of two requests with statuses: both MPI_REQUEST_NULL after
  subroutine waitall2(reqs, sts, what)
    REQ_T, intent(inout) :: reqs(2)
    STATUSES_DECL(sts, 2)
    character(len=*), intent(in) :: what
    call spoil(ST_OF(sts, 1))
    call spoil(ST_OF(sts, 2))
    call MPI_Waitall(2, reqs, sts, ierr)
    call succ(what)
    call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, &
               what // ': the requests MPI_REQUEST_NULL')
  end subroutine

  ! the buffer of buffered sends: k messages of n INTEGERs (MPI_PACK_SIZE +
  ! MPI_BSEND_OVERHEAD each), allocated and attached
  subroutine attach(k, bbuf, bsize)
    integer, intent(in) :: k
    integer, allocatable, target, intent(inout) :: bbuf(:)
    integer, intent(out) :: bsize
    integer :: psize
    call MPI_Pack_size(n, MPI_INTEGER, MPI_COMM_WORLD, psize, ierr)
    call succ('MPI_Pack_size')
    call check(psize >= 4 * n, 'MPI_Pack_size of n INTEGERs')
    call check(MPI_BSEND_OVERHEAD >= 0, 'MPI_BSEND_OVERHEAD')
    bsize = k * (psize + MPI_BSEND_OVERHEAD)
    allocate(bbuf((bsize + 3) / 4))
    call MPI_Buffer_attach(bbuf, bsize, ierr)
    call succ('MPI_Buffer_attach')
  end subroutine

  ! MPI_BUFFER_DETACH gives back the size attached (and in mpi_f08 the
  ! buffer's address as a TYPE(C_PTR)); the buffer deallocated
  subroutine detach(bbuf, bsize, what)
    integer, allocatable, target, intent(inout) :: bbuf(:)
    integer, intent(in) :: bsize
    character(len=*), intent(in) :: what
    integer :: dsize
    BADDR_DECL(baddr)
    dsize = -1
    call MPI_Buffer_detach(baddr, dsize, ierr)
    call check(ierr == MPI_SUCCESS .and. dsize == bsize, 'MPI_Buffer_detach ' // what // ': the size attached')
#ifdef RDMACH_USE_F08
    call check(c_associated(baddr, c_loc(bbuf)), 'MPI_Buffer_detach: the address attached (TYPE(C_PTR))')
#endif
    deallocate(bbuf)
  end subroutine

  ! sbuf(1:cnt) to dest with tag tg, in mode kind (K_*): MPI_SEND, _BSEND,
  ! _SSEND, _RSEND, or MPI_ISEND, _IBSEND, _ISSEND, _IRSEND (then req); the
  ! K_LARGE forms with an INTEGER(KIND=MPI_COUNT_KIND) count (mpi_f08 only)
  subroutine send_kind(kind, cnt, dest, tg, req)
    integer, intent(in) :: kind, cnt, dest, tg
    REQ_T, intent(out), optional :: req
#ifdef RDMACH_USE_F08
    integer(kind=MPI_COUNT_KIND) :: lc
    lc = cnt
#endif
    select case (kind)
    case (K_SEND)
      call MPI_Send(sbuf, cnt, MPI_INTEGER, dest, tg, MPI_COMM_WORLD, ierr)
    case (K_BSEND)
      call MPI_Bsend(sbuf, cnt, MPI_INTEGER, dest, tg, MPI_COMM_WORLD, ierr)
    case (K_SSEND)
      call MPI_Ssend(sbuf, cnt, MPI_INTEGER, dest, tg, MPI_COMM_WORLD, ierr)
    case (K_RSEND)
      call MPI_Rsend(sbuf, cnt, MPI_INTEGER, dest, tg, MPI_COMM_WORLD, ierr)
    case (K_ISEND)
      call MPI_Isend(sbuf, cnt, MPI_INTEGER, dest, tg, MPI_COMM_WORLD, req, ierr)
    case (K_IBSEND)
      call MPI_Ibsend(sbuf, cnt, MPI_INTEGER, dest, tg, MPI_COMM_WORLD, req, ierr)
    case (K_ISSEND)
      call MPI_Issend(sbuf, cnt, MPI_INTEGER, dest, tg, MPI_COMM_WORLD, req, ierr)
    case (K_IRSEND)
      call MPI_Irsend(sbuf, cnt, MPI_INTEGER, dest, tg, MPI_COMM_WORLD, req, ierr)
#ifdef RDMACH_USE_F08
    case (K_LARGE)
      call MPI_Send(sbuf, lc, MPI_INTEGER, dest, tg, MPI_COMM_WORLD, ierr)
    case (K_ILARGE)
      call MPI_Isend(sbuf, lc, MPI_INTEGER, dest, tg, MPI_COMM_WORLD, req, ierr)
#endif
    end select
    call succ(trim(SEND_NAME(kind)))
  end subroutine

  ! ------------------------------------------------------------ blocking

  ! A message of tag tg to the right, sent in mode kind (K_*, send_kind):
  ! from a blocking send n INTEGERs to an MPI_IRECV posted before it (for
  ! K_RSEND before a barrier, every send after it); from a nonblocking send
  ! n - 1 INTEGERs to an MPI_RECV of room for n from MPI_ANY_SOURCE with
  ! MPI_ANY_TAG, the rest untouched, the send's status after MPI_WAIT. The
  ! K_LARGE, K_ILARGE forms (mpi_f08): the receive's count too
  ! INTEGER(KIND=MPI_COUNT_KIND), and MPI_GET_COUNT and MPI_GET_ELEMENTS
  ! with one.
  subroutine transfer(kind, tg)
    integer, intent(in) :: kind, tg
    REQ_T :: req
    STATUS_DECL(status)
    character(len=:), allocatable :: what
    integer :: cnt
    logical :: large
#ifdef RDMACH_USE_F08
    integer(kind=MPI_COUNT_KIND) :: lc, got_c
    lc = n
#endif
    large = kind == K_LARGE .or. kind == K_ILARGE
    call fill(sbuf, tg)
    rbuf = -1
    if (kind < K_ISEND) then
      cnt = n
      what = trim(SEND_NAME(kind)) // ' to MPI_Irecv'
      if (large) then
#ifdef RDMACH_USE_F08
        call MPI_Irecv(rbuf, lc, MPI_INTEGER, left, tg, MPI_COMM_WORLD, req, ierr)
        call succ('MPI_Irecv with a large count')
#endif
      else
        call post(tg, req)
      end if
      if (kind == K_RSEND) call MPI_Barrier(MPI_COMM_WORLD, ierr)
      call send_kind(kind, cnt, right, tg)
      call wait_st(req, status, what)
    else
      cnt = n - 1
      what = trim(SEND_NAME(kind)) // ' to MPI_Recv from MPI_ANY_SOURCE, MPI_ANY_TAG'
      call send_kind(kind, cnt, right, tg, req)
      call spoil(status)
      if (large) then
#ifdef RDMACH_USE_F08
        call MPI_Recv(rbuf, lc, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
#endif
      else
        call MPI_Recv(rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
      end if
      call succ(what)
    end if
    if (large) what = what // ' with large counts'
    call check(all(rbuf(cnt + 1:) == -1), what // ': the rest untouched')
    call got(rbuf, tg, cnt, status, what)
#ifdef RDMACH_USE_F08
    if (large) then
      got_c = -1
      call MPI_Get_count(status, MPI_INTEGER, got_c, ierr)
      call check(ierr == MPI_SUCCESS .and. got_c == cnt, 'MPI_Get_count with a large count')
      got_c = -1
      call MPI_Get_elements(status, MPI_INTEGER, got_c, ierr)
      call check(ierr == MPI_SUCCESS .and. got_c == cnt, 'MPI_Get_elements with a large count')
    end if
#endif
    if (kind >= K_ISEND) then
      call wait_st(req, status, trim(SEND_NAME(kind)))
      call check_send(status, 'MPI_Wait of ' // trim(SEND_NAME(kind)))
    end if
  end subroutine

  ! MPI_SENDRECV of scnt INTEGERs (sbuf, tag tg) to dest, into rbuf (room
  ! for n) from src with tag rtag; large: both counts
  ! INTEGER(KIND=MPI_COUNT_KIND) (mpi_f08 only). From MPI_PROC_NULL: the
  ! buffer untouched; else what the left sent with tag tg, scnt INTEGERs
  subroutine sendrecv(scnt, dest, src, rtag, tg, large, what)
    integer, intent(in) :: scnt, dest, src, rtag, tg
    logical, intent(in) :: large
    character(len=*), intent(in) :: what
    STATUS_DECL(status)
#ifdef RDMACH_USE_F08
    integer(kind=MPI_COUNT_KIND) :: lc
    lc = scnt
#endif
    call fill(sbuf, tg)
    rbuf = -1
    call spoil(status)
    if (large) then
#ifdef RDMACH_USE_F08
      call MPI_Sendrecv(sbuf, lc, MPI_INTEGER, dest, tg, rbuf, lc, MPI_INTEGER, src, rtag, &
                        MPI_COMM_WORLD, status, ierr)
#endif
    else
      call MPI_Sendrecv(sbuf, scnt, MPI_INTEGER, dest, tg, rbuf, n, MPI_INTEGER, src, rtag, &
                        MPI_COMM_WORLD, status, ierr)
    end if
    call succ(what)
    if (src == MPI_PROC_NULL) then
      call check(all(rbuf == -1), what // ': the buffer untouched')
      call check_proc_null(status, what)
    else
      call check(all(rbuf(scnt + 1:) == -1), what // ': the rest untouched')
      call got(rbuf, tg, scnt, status, what)
    end if
  end subroutine

  subroutine blocking()
    integer :: bsize
    integer, allocatable, target :: bbuf(:)
    REQ_T :: req
    STATUS_DECL(status)

    ! MPI_SEND, MPI_SSEND, MPI_RSEND to the right, received by an MPI_IRECV
    ! posted before; MPI_RECV from MPI_ANY_SOURCE with MPI_ANY_TAG, of fewer
    ! than it can take
    call transfer(K_SEND, 101)
    call transfer(K_ISEND, 102)
    call transfer(K_SSEND, 103)
    call transfer(K_RSEND, 106)

    ! MPI_BSEND: two messages in a buffer of 2 (MPI_PACK_SIZE +
    ! MPI_BSEND_OVERHEAD), sent before any receive, received in the other order
    call attach(2, bbuf, bsize)
    call fill(sbuf, 104)
    call send_kind(K_BSEND, n, right, 104)
    sbuf = -5   ! MPI_BSEND copied it
    call fill(sbuf(1:n - 3), 105)
    call send_kind(K_BSEND, n - 3, right, 105)
    sbuf = -5
    call recv_st(105, status)
    call got(rbuf, 105, n - 3, status, 'MPI_Bsend (second)')
    call recv_st(104, status)
    call got(rbuf, 104, n, status, 'MPI_Bsend')
    call detach(bbuf, bsize, 'after MPI_Bsend')

    ! MPI_SENDRECV: n - 2 sent, room for n, from MPI_ANY_SOURCE, MPI_ANY_TAG
    call sendrecv(n - 2, right, MPI_ANY_SOURCE, MPI_ANY_TAG, 107, .false., 'MPI_Sendrecv')

    ! MPI_SENDRECV_REPLACE
    call fill(xbuf, 108)
    call spoil(status)
    call MPI_Sendrecv_replace(xbuf, n, MPI_INTEGER, right, 108, left, 108, MPI_COMM_WORLD, status, ierr)
    call succ('MPI_Sendrecv_replace')
    call got(xbuf, 108, n, status, 'MPI_Sendrecv_replace')

    ! MPI_STATUS_IGNORE
    call fill(sbuf, 109)
    rbuf = -1
    call MPI_Sendrecv(sbuf, n, MPI_INTEGER, right, 109, rbuf, n, MPI_INTEGER, left, 109, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call succ('MPI_Sendrecv with MPI_STATUS_IGNORE')
    call check(from(rbuf, left, 109, n), 'MPI_Sendrecv with MPI_STATUS_IGNORE: the data')
    call fill(xbuf, 110)
    call MPI_Sendrecv_replace(xbuf, n, MPI_INTEGER, right, 110, left, 110, MPI_COMM_WORLD, &
                              MPI_STATUS_IGNORE, ierr)
    call succ('MPI_Sendrecv_replace with MPI_STATUS_IGNORE')
    call check(from(xbuf, left, 110, n), 'MPI_Sendrecv_replace with MPI_STATUS_IGNORE: the data')
    call fill(sbuf, 111)
    call send_kind(K_ISEND, n, right, 111, req)
    rbuf = -1
    call MPI_Recv(rbuf, n, MPI_INTEGER, left, 111, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call succ('MPI_Recv with MPI_STATUS_IGNORE')
    call check(from(rbuf, left, 111, n), 'MPI_Recv with MPI_STATUS_IGNORE: the data')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call succ('MPI_Wait with MPI_STATUS_IGNORE')
    call check(req == MPI_REQUEST_NULL, 'MPI_Wait with MPI_STATUS_IGNORE frees the request')
  end subroutine

  ! every operation with MPI_PROC_NULL: returns at once; a receive's buffer
  ! untouched, its status MPI_PROC_NULL, MPI_ANY_TAG, count 0 (§3.11)
  subroutine proc_null()
    integer :: k
    REQ_T :: req, reqs(2)
    STATUS_DECL(status)
    STATUSES_DECL(sts, 2)
    logical :: flag

    call fill(sbuf, 121)
    ! MPI_SEND, MPI_BSEND (no buffer attached: MPI_PROC_NULL needs none),
    ! MPI_SSEND, MPI_RSEND
    do k = K_SEND, K_RSEND
      call send_kind(k, n, MPI_PROC_NULL, 121)
    end do

    rbuf = -1
    call spoil(status)
    call MPI_Recv(rbuf, n, MPI_INTEGER, MPI_PROC_NULL, 121, MPI_COMM_WORLD, status, ierr)
    call succ('MPI_Recv from MPI_PROC_NULL')
    call check(all(rbuf == -1), 'MPI_Recv from MPI_PROC_NULL: the buffer untouched')
    call check_proc_null(status, 'MPI_Recv from MPI_PROC_NULL')

    call sendrecv(n, MPI_PROC_NULL, MPI_PROC_NULL, 122, 122, .false., 'MPI_Sendrecv with MPI_PROC_NULL')

    call fill(xbuf, 123)
    call spoil(status)
    call MPI_Sendrecv_replace(xbuf, n, MPI_INTEGER, MPI_PROC_NULL, 123, MPI_PROC_NULL, 123, &
                              MPI_COMM_WORLD, status, ierr)
    call succ('MPI_Sendrecv_replace with MPI_PROC_NULL')
    call check(from(xbuf, rank, 123, n), 'MPI_Sendrecv_replace from MPI_PROC_NULL: the buffer unchanged')
    call check_proc_null(status, 'MPI_Sendrecv_replace with MPI_PROC_NULL')

    ! MPI_SENDRECV: a real message one way, MPI_PROC_NULL the other (the
    ! other way an MPI_IRECV, an MPI_ISEND of sbuf2)
    rbuf2 = -1
    call MPI_Irecv(rbuf2, n, MPI_INTEGER, left, 124, MPI_COMM_WORLD, req, ierr)
    call sendrecv(n, right, MPI_PROC_NULL, 124, 124, .false., 'MPI_Sendrecv to a rank, from MPI_PROC_NULL')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call check(from(rbuf2, left, 124, n), 'MPI_Sendrecv to a rank, from MPI_PROC_NULL: the data sent')
    call fill(sbuf2, 125)
    call MPI_Isend(sbuf2, n, MPI_INTEGER, right, 125, MPI_COMM_WORLD, req, ierr)
    call sendrecv(n, MPI_PROC_NULL, left, 125, 125, .false., 'MPI_Sendrecv to MPI_PROC_NULL, from a rank')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

    ! nonblocking: complete at once, the receive's status MPI_PROC_NULL's
    rbuf = -1
    call MPI_Irecv(rbuf, n, MPI_INTEGER, MPI_PROC_NULL, 126, MPI_COMM_WORLD, reqs(1), ierr)
    call succ('MPI_Irecv from MPI_PROC_NULL')
    call send_kind(K_ISEND, n, MPI_PROC_NULL, 126, reqs(2))
    call waitall2(reqs, sts, 'MPI_Waitall of MPI_PROC_NULL requests')
    call check(all(rbuf == -1), 'MPI_Irecv from MPI_PROC_NULL: the buffer untouched')
    call check_proc_null(ST_OF(sts, 1), 'MPI_Irecv from MPI_PROC_NULL')
    call check_send(ST_OF(sts, 2), 'MPI_Isend to MPI_PROC_NULL')
    ! MPI_IBSEND, MPI_IRSEND completed by MPI_WAIT, MPI_ISSEND by one MPI_TEST
    do k = K_IBSEND, K_IRSEND
      call send_kind(k, n, MPI_PROC_NULL, 125, req)
      if (k == K_ISSEND) then
        flag = .false.
        call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
        call check(ierr == MPI_SUCCESS .and. flag .and. req == MPI_REQUEST_NULL, &
                   'MPI_Issend to MPI_PROC_NULL: complete at once')
      else
        call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      end if
    end do
    rbuf = -1
    call MPI_Isendrecv(sbuf, n, MPI_INTEGER, MPI_PROC_NULL, 126, rbuf, n, MPI_INTEGER, MPI_PROC_NULL, &
                       126, MPI_COMM_WORLD, req, ierr)
    call succ('MPI_Isendrecv with MPI_PROC_NULL')
    call spoil(status)
    call MPI_Wait(req, status, ierr)
    call check(all(rbuf == -1), 'MPI_Isendrecv from MPI_PROC_NULL: the buffer untouched')
    call check_proc_null(status, 'MPI_Isendrecv with MPI_PROC_NULL')
    call fill(xbuf, 127)
    call MPI_Isendrecv_replace(xbuf, n, MPI_INTEGER, MPI_PROC_NULL, 127, MPI_PROC_NULL, 127, &
                               MPI_COMM_WORLD, req, ierr)
    call succ('MPI_Isendrecv_replace with MPI_PROC_NULL')
    call spoil(status)
    call MPI_Wait(req, status, ierr)
    call check(from(xbuf, rank, 127, n), 'MPI_Isendrecv_replace from MPI_PROC_NULL: the buffer unchanged')
    call check_proc_null(status, 'MPI_Isendrecv_replace with MPI_PROC_NULL')
  end subroutine

  ! ------------------------------------------------------------ nonblocking

  subroutine nonblocking()
    integer :: bsize, i
    integer, allocatable, target :: bbuf(:)
    REQ_T :: req, reqs(2)
    STATUS_DECL(status)
    STATUSES_DECL(sts, 2)
    logical :: flag

    ! MPI_ISEND / MPI_IRECV: MPI_TEST in a loop, then MPI_WAIT
    call fill(sbuf, 201)
    call post(201, reqs(1))
    call send_kind(K_ISEND, n, right, 201, reqs(2))
    flag = .false.
    i = 0
    do while (.not. flag)
      call spoil(status)
      call MPI_Test(reqs(1), flag, status, ierr)
      call succ('MPI_Test')
      i = i + 1
      if (.not. flag) call check(reqs(1) /= MPI_REQUEST_NULL, 'MPI_Test, not complete: the request stays')
    end do
    call check(reqs(1) == MPI_REQUEST_NULL, 'MPI_Test, complete: the request is MPI_REQUEST_NULL')
    call got(rbuf, 201, n, status, 'MPI_Test of MPI_Irecv')
    call wait_st(reqs(2), status, 'MPI_Isend')
    call check_send(status, 'MPI_Wait of MPI_Isend')

    ! MPI_IBSEND
    call attach(1, bbuf, bsize)
    call fill(sbuf, 202)
    call send_kind(K_IBSEND, n, right, 202, req)
    call wait_st(req, status, 'MPI_Ibsend')
    call check_send(status, 'MPI_Wait of MPI_Ibsend')
    sbuf = -5   ! in the attached buffer now
    call recv_st(202, status)
    call got(rbuf, 202, n, status, 'MPI_Ibsend')
    call detach(bbuf, bsize, 'after MPI_Ibsend')

    ! MPI_ISSEND: not complete while its receive is not posted (the
    ! receiver posts it after the barrier)
    call fill(sbuf, 203)
    call send_kind(K_ISSEND, n, right, 203, req)
    flag = .true.
    call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Issend: not complete before the receive')
    call check(req /= MPI_REQUEST_NULL, 'MPI_Test of an incomplete MPI_Issend: the request stays')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call recv_st(203, status)
    call got(rbuf, 203, n, status, 'MPI_Issend')
    call wait_st(req, status, 'MPI_Issend')
    call check_send(status, 'MPI_Wait of MPI_Issend')

    ! MPI_IRSEND: receives posted before a barrier; MPI_WAITALL with statuses
    call fill(sbuf, 204)
    call post(204, reqs(1))
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call send_kind(K_IRSEND, n, right, 204, reqs(2))
    call waitall2(reqs, sts, 'MPI_Waitall')
    call got(rbuf, 204, n, ST_OF(sts, 1), 'MPI_Waitall: the MPI_Irecv''s status')
    call check_send(ST_OF(sts, 2), 'MPI_Waitall: the MPI_Irsend''s status')

    ! MPI_ISENDRECV from MPI_ANY_SOURCE, MPI_ANY_TAG
    call fill(sbuf, 205)
    rbuf = -1
    call MPI_Isendrecv(sbuf, n - 1, MPI_INTEGER, right, 205, rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE, &
                       MPI_ANY_TAG, MPI_COMM_WORLD, req, ierr)
    call succ('MPI_Isendrecv')
    call wait_st(req, status, 'MPI_Isendrecv')
    call check(rbuf(n) == -1, 'MPI_Isendrecv: the rest untouched')
    call got(rbuf, 205, n - 1, status, 'MPI_Isendrecv')

    ! MPI_ISENDRECV_REPLACE
    call fill(xbuf, 206)
    call MPI_Isendrecv_replace(xbuf, n, MPI_INTEGER, right, 206, left, 206, MPI_COMM_WORLD, req, ierr)
    call succ('MPI_Isendrecv_replace')
    call wait_st(req, status, 'MPI_Isendrecv_replace')
    call got(xbuf, 206, n, status, 'MPI_Isendrecv_replace')

    ! MPI_REQUEST_FREE of a pending send: the message still goes
    call fill(sbuf2, 207)
    call MPI_Isend(sbuf2, n, MPI_INTEGER, right, 207, MPI_COMM_WORLD, req, ierr)
    call MPI_Request_free(req, ierr)
    call succ('MPI_Request_free of a pending MPI_Isend')
    call check(req == MPI_REQUEST_NULL, 'MPI_Request_free: MPI_REQUEST_NULL')
    call recv_st(207, status)
    call got(rbuf, 207, n, status, 'a freed MPI_Isend''s message')
    ! every freed send received: its buffer is free after this
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end subroutine

  ! One call of completion procedure op (OP_*) over reqs(1:OP_CNT(op)), its
  ! answer as: k requests complete, at ix(1:k) (from 1), their statuses at
  ! pst(ix(j)) (unless ign: MPI_STATUS(ES)_IGNORE); k is MPI_UNDEFINED when
  ! no request is active, 0 (flag .FALSE.) when none is complete yet. act:
  ! the active requests (an _ALL procedure's answer); flag: as set by the
  ! caller before the call, .TRUE. after if any or all complete (or none
  ! active); status: an _ANY procedure's (or MPI_REQUEST_GET_STATUS's) status.
  subroutine poll_call(op, reqs, ign, act, flag, k, ix, pst, status)
    integer, intent(in) :: op
    REQ_T, intent(inout) :: reqs(4)
    logical, intent(in) :: ign, act(4)
    logical, intent(inout) :: flag
    integer, intent(out) :: k, ix(4)
    STATUSES_DECL(pst, 4)
    STATUS_DECL(status)
    STATUSES_DECL(sts, 4)
    integer :: cnt, idx, j

    cnt = OP_CNT(op)
    idx = POISON
    k = POISON
    ix = POISON
    call spoil(status)
    do j = 1, 4
      call spoil(ST_OF(pst, j))
      call spoil(ST_OF(sts, j))
    end do
    if (ign) then
      select case (op)
      case (OP_TESTSOME)
        call MPI_Testsome(cnt, reqs, k, ix, MPI_STATUSES_IGNORE, ierr)
#ifndef RDMACH_MPICH_BUILD
      case (OP_GS_SOME)
        call MPI_Request_get_status_some(cnt, reqs, k, ix, MPI_STATUSES_IGNORE, ierr)
#endif
      end select
    else
      select case (op)
      case (OP_WAITANY)
        call MPI_Waitany(cnt, reqs, idx, status, ierr)
        flag = .true.
      case (OP_TESTANY)
        call MPI_Testany(cnt, reqs, idx, flag, status, ierr)
      case (OP_WAITSOME)
        call MPI_Waitsome(cnt, reqs, k, ix, sts, ierr)
      case (OP_TESTSOME)
        call MPI_Testsome(cnt, reqs, k, ix, sts, ierr)
      case (OP_TESTALL)
        call MPI_Testall(cnt, reqs, flag, pst, ierr)
      case (OP_GET_STATUS)
        call MPI_Request_get_status(reqs(1), flag, status, ierr)
#ifndef RDMACH_MPICH_BUILD
      case (OP_GS_ALL)
        call MPI_Request_get_status_all(cnt, reqs, flag, pst, ierr)
      case (OP_GS_ANY)
        call MPI_Request_get_status_any(cnt, reqs, idx, flag, status, ierr)
      case (OP_GS_SOME)
        call MPI_Request_get_status_some(cnt, reqs, k, ix, sts, ierr)
#endif
      end select
    end if
    call succ(trim(OP_NAME(op)))

    select case (OP_FORM(op))
    case (FORM_ANY)
      if (.not. flag) then
        call check(idx == MPI_UNDEFINED, trim(OP_NAME(op)) // ', none complete: MPI_UNDEFINED')
        k = 0
      else if (idx == MPI_UNDEFINED) then
        k = MPI_UNDEFINED
      else
        k = 1
        ix(1) = idx
        if (idx >= 1 .and. idx <= cnt) ST_OF(pst, idx) = status
      end if
    case (FORM_SOME)
      flag = k /= 0
      if (.not. ign .and. k >= 1 .and. k <= cnt) then
        do j = 1, k
          if (ix(j) >= 1 .and. ix(j) <= cnt) ST_OF(pst, ix(j)) = ST_OF(sts, j)
        end do
      end if
    case (FORM_ALL)
      k = 0
      if (flag) then
        k = count(act)
        ix(1:k) = pack([(j, j = 1, 4)], act)
      end if
      if (op == OP_GET_STATUS) ST_OF(pst, 1) = status
    end select
  end subroutine

  ! A completion procedure op (OP_*, poll_call) over a table's requests: null
  ! ones, an MPI_IRECV from the left and an MPI_ISEND to the right (or a
  ! blocking MPI_SEND); with OP_LATE the message sent only after a barrier,
  ! and the "not yet" answer before it checked. Indices from 1, each
  ! complete request reported once (MPI_REQUEST_NULL then, or left as it
  ! is by MPI_REQUEST_GET_STATUS*), its status; the null requests' statuses
  ! of an _ALL procedure empty; last, of null requests only: MPI_UNDEFINED
  ! (and an _ANY procedure's status empty).
  subroutine poll(op)
    integer, intent(in) :: op
    REQ_T :: reqs(4)
    STATUS_DECL(status)
    STATUSES_DECL(pst, 4)
    integer :: tg, ri, si, k, ix(4), j, idx, done, least
    logical :: flag, act(4), seen(4)
    character(len=:), allocatable :: name

    name = trim(OP_NAME(op))
    tg = OP_TAG(op)
    ri = OP_RI(op)
    si = OP_SI(op)
    reqs = MPI_REQUEST_NULL
    act = .false.
    act(ri) = .true.
    call post(tg, reqs(ri))
    if (OP_LATE(op)) then
      flag = .true.
      call poll_call(op, reqs, .false., act, flag, k, ix, pst, status)
      call check(k == 0 .and. .not. flag, name // ', none complete: .FALSE., 0 complete')
      call check(reqs(ri) /= MPI_REQUEST_NULL, name // ', none complete: the request stays')
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
    end if
    call fill(sbuf, tg)
    if (si > 0) then
      call send_kind(K_ISEND, n, right, tg, reqs(si))
      act(si) = .true.
    else
      call send_kind(K_SEND, n, right, tg)
    end if

    ! MPI_WAITANY and MPI_WAITSOME complete one at least
    least = merge(1, 0, op == OP_WAITANY .or. op == OP_WAITSOME)
    seen = .false.
    done = 0
    do while (done < count(act))
      flag = .false.
      call poll_call(op, reqs, OP_IGN(op), act, flag, k, ix, pst, status)
      call check(k >= least .and. k <= count(act) - done, name // ': outcount')
      do j = 1, k
        idx = ix(j)
        call check(idx >= 1 .and. idx <= OP_CNT(op), name // ': an index from 1')
        call check(act(idx), name // ': the index of an active request, from 1')
        call check(.not. seen(idx), name // ': each once')
        seen(idx) = .true.
        if (OP_LEAVES(op)) then
          call check(reqs(idx) /= MPI_REQUEST_NULL, name // ': the request stays')
        else
          call check(reqs(idx) == MPI_REQUEST_NULL, name // ': a completed request is MPI_REQUEST_NULL')
        end if
        if (OP_IGN(op)) cycle
        if (idx == ri) then
          call check_recv(ST_OF(pst, idx), left, tg, n, name // ' of MPI_Irecv')
        else
          call check_send(ST_OF(pst, idx), name // ' of MPI_Isend')
        end if
      end do
      done = done + k
    end do
    if (OP_FORM(op) == FORM_ALL) then
      do j = 1, OP_CNT(op)
        if (.not. act(j)) call check_empty(ST_OF(pst, j), name // ': a null request''s status')
      end do
    end if

    ! the requests left: complete them
    select case (op)
    case (OP_GET_STATUS)
      call wait_st(reqs(1), status, 'MPI_Irecv after MPI_Request_get_status')
      call check_recv(status, left, tg, n, 'MPI_Wait after MPI_Request_get_status')
#ifndef RDMACH_MPICH_BUILD
    case (OP_GS_ALL)
      flag = .false.
      call MPI_Request_get_status_all(3, reqs, flag, MPI_STATUSES_IGNORE, ierr)
      call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Request_get_status_all, MPI_STATUSES_IGNORE')
      call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
      call check(ierr == MPI_SUCCESS .and. reqs(1) == MPI_REQUEST_NULL .and. reqs(3) == MPI_REQUEST_NULL, &
                 'MPI_Waitall after MPI_Request_get_status_all')
    case (OP_GS_ANY, OP_GS_SOME)
      call MPI_Wait(reqs(ri), MPI_STATUS_IGNORE, ierr)
#endif
    end select
    call check(from(rbuf, left, tg, n), name // ': the data')

    ! of null requests only
    select case (op)
    case (OP_TESTALL, OP_GS_ALL)
      ! (null_requests)
    case (OP_GET_STATUS)
      flag = .false.
      call spoil(status)
      call MPI_Request_get_status(MPI_REQUEST_NULL, flag, status, ierr)
      call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Request_get_status of MPI_REQUEST_NULL: .TRUE.')
      call check_empty(status, 'MPI_Request_get_status of MPI_REQUEST_NULL')
    case default
      flag = .false.
      call poll_call(op, reqs, OP_IGN_LAST(op), act, flag, k, ix, pst, status)
      call check(flag .and. k == MPI_UNDEFINED, name // ' of null requests: .TRUE., MPI_UNDEFINED')
      if (OP_FORM(op) == FORM_ANY) call check_empty(status, name // ' of null requests')
    end select
  end subroutine

  ! MPI_WAIT, MPI_TEST, MPI_WAITALL, MPI_TESTALL of null requests: at once,
  ! empty statuses (§3.7.3)
  subroutine null_requests()
    REQ_T :: req, reqs(3)
    STATUS_DECL(status)
    STATUSES_DECL(sts, 3)
    logical :: flag
    integer :: j

    req = MPI_REQUEST_NULL
    call spoil(status)
    call MPI_Wait(req, status, ierr)
    call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'MPI_Wait of MPI_REQUEST_NULL')
    call check_empty(status, 'MPI_Wait of MPI_REQUEST_NULL')
    flag = .false.
    call spoil(status)
    call MPI_Test(req, flag, status, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Test of MPI_REQUEST_NULL: .TRUE.')
    call check_empty(status, 'MPI_Test of MPI_REQUEST_NULL')
    reqs = MPI_REQUEST_NULL
    do j = 1, 3
      call spoil(ST_OF(sts, j))
    end do
    call MPI_Waitall(3, reqs, sts, ierr)
    call succ('MPI_Waitall of null requests')
    do j = 1, 3
      call check_empty(ST_OF(sts, j), 'MPI_Waitall of null requests')
    end do
    do j = 1, 3
      call spoil(ST_OF(sts, j))
    end do
    flag = .false.
    call MPI_Testall(3, reqs, flag, sts, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Testall of null requests: .TRUE.')
    do j = 1, 3
      call check_empty(ST_OF(sts, j), 'MPI_Testall of null requests')
    end do
    call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
    call succ('MPI_Waitall of null requests, MPI_STATUSES_IGNORE')
    flag = .false.
    call MPI_Testall(3, reqs, flag, MPI_STATUSES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Testall of null requests, MPI_STATUSES_IGNORE')
    ! count 0
    flag = .false.
    call MPI_Testall(0, reqs, flag, MPI_STATUSES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Testall of no request: .TRUE.')
  end subroutine

#ifdef TEST_KEYWORDS
  ! keyword arguments: "the mpi and mpi_f08 modules guarantee keyword-based
  ! actual argument lists" (MPI 4.1, Annex B): the dummy arguments have the
  ! standard's names (MPI_WAITANY's and MPI_TESTANY's INDEX)
  subroutine keywords()
    REQ_T :: reqs(2)
    STATUS_DECL(status)
    integer :: idx, first
    logical :: flag

    call fill(sbuf, 231)
    rbuf = -1
    call MPI_Irecv(buf=rbuf, count=n, datatype=MPI_INTEGER, source=left, tag=231, comm=MPI_COMM_WORLD, &
                   request=reqs(1), ierror=ierr)
    call succ('MPI_Irecv with keyword arguments')
    call MPI_Isend(buf=sbuf, count=n, datatype=MPI_INTEGER, dest=right, tag=231, comm=MPI_COMM_WORLD, &
                   request=reqs(2), ierror=ierr)
    call succ('MPI_Isend with keyword arguments')
    flag = .false.
    do while (.not. flag)
      call MPI_Request_get_status_any(count=2, array_of_requests=reqs, index=idx, flag=flag, &
                                      status=MPI_STATUS_IGNORE, ierror=ierr)
      call succ('MPI_Request_get_status_any with keyword arguments')
    end do
    call check(idx == 1 .or. idx == 2, 'MPI_Request_get_status_any with keyword arguments: INDEX')
    idx = POISON
    call spoil(status)
    call MPI_Waitany(count=2, array_of_requests=reqs, index=idx, status=status, ierror=ierr)
    call succ('MPI_Waitany with keyword arguments')
    call check(idx == 1 .or. idx == 2, 'MPI_Waitany with keyword arguments: INDEX')
    if (idx == 1) call check_recv(status, left, 231, n, 'MPI_Waitany with keyword arguments')
    first = idx
    flag = .false.
    do while (.not. flag)
      idx = POISON
      call spoil(status)
      call MPI_Testany(count=2, array_of_requests=reqs, index=idx, flag=flag, status=status, ierror=ierr)
      call succ('MPI_Testany with keyword arguments')
    end do
    call check(idx == 3 - first, 'MPI_Testany with keyword arguments: INDEX')
    if (idx == 1) call check_recv(status, left, 231, n, 'MPI_Testany with keyword arguments')
    call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'keyword arguments: completed')
    call check(from(rbuf, left, 231, n), 'keyword arguments: the data')
    call MPI_Send(buf=sbuf, count=0, datatype=MPI_INTEGER, dest=MPI_PROC_NULL, tag=232, &
                  comm=MPI_COMM_WORLD, ierror=ierr)
    call succ('MPI_Send with keyword arguments')
    call spoil(status)
    call MPI_Recv(buf=rbuf, count=n, datatype=MPI_INTEGER, source=MPI_PROC_NULL, tag=232, &
                  comm=MPI_COMM_WORLD, status=status, ierror=ierr)
    call check_proc_null(status, 'MPI_Recv with keyword arguments')
  end subroutine
#endif

  ! ------------------------------------------------------------ persistent

  subroutine persistent()
    REQ_T :: rreqs(4), sreqs(4)
    STATUS_DECL(status)
    STATUSES_DECL(sts, 4)
    integer :: round, k, i, bsize
    integer, allocatable, target :: bbuf(:)
    logical :: flag

    call attach(3, bbuf, bsize)
    do k = 1, 4
      call MPI_Recv_init(pr(:, k), n, MPI_INTEGER, left, 300 + k, MPI_COMM_WORLD, rreqs(k), ierr)
      call succ('MPI_Recv_init')
    end do
    call MPI_Send_init(ps(:, 1), n, MPI_INTEGER, right, 301, MPI_COMM_WORLD, sreqs(1), ierr)
    call succ('MPI_Send_init')
    call MPI_Bsend_init(ps(:, 2), n, MPI_INTEGER, right, 302, MPI_COMM_WORLD, sreqs(2), ierr)
    call succ('MPI_Bsend_init')
    call MPI_Ssend_init(ps(:, 3), n, MPI_INTEGER, right, 303, MPI_COMM_WORLD, sreqs(3), ierr)
    call succ('MPI_Ssend_init')
    call MPI_Rsend_init(ps(:, 4), n, MPI_INTEGER, right, 304, MPI_COMM_WORLD, sreqs(4), ierr)
    call succ('MPI_Rsend_init')
    do k = 1, 4
      call check(rreqs(k) /= MPI_REQUEST_NULL .and. sreqs(k) /= MPI_REQUEST_NULL, 'persistent requests')
    end do
    ! an inactive persistent request: MPI_WAIT and MPI_TEST return at once with an empty status
    call spoil(status)
    call MPI_Wait(rreqs(1), status, ierr)
    call check(ierr == MPI_SUCCESS .and. rreqs(1) /= MPI_REQUEST_NULL, 'MPI_Wait of an inactive request')
    call check_empty(status, 'MPI_Wait of an inactive persistent request')

    do round = 1, 3
      do k = 1, 4
        ps(:, k) = [(rank * 1000 + round * 100 + k * 10 + i, i = 1, n)]
      end do
      pr = -1
      call MPI_Startall(4, rreqs, ierr)
      call succ('MPI_Startall of MPI_Recv_init requests')
      ! the receives posted before MPI_RSEND_INIT's sends start
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      if (round == 2) then
        do k = 1, 4
          call MPI_Start(sreqs(k), ierr)
          call succ('MPI_Start')
        end do
      else
        call MPI_Startall(4, sreqs, ierr)
        call succ('MPI_Startall')
      end if
      do k = 1, 4
        call spoil(ST_OF(sts, k))
      end do
      call MPI_Waitall(4, rreqs, sts, ierr)
      call succ('MPI_Waitall of persistent receives')
      call MPI_Waitall(4, sreqs, MPI_STATUSES_IGNORE, ierr)
      call succ('MPI_Waitall of persistent sends')
      do k = 1, 4
        call check(rreqs(k) /= MPI_REQUEST_NULL .and. sreqs(k) /= MPI_REQUEST_NULL, &
                   'a completed persistent request: inactive, not MPI_REQUEST_NULL')
        call check(all(pr(:, k) == [(left * 1000 + round * 100 + k * 10 + i, i = 1, n)]), &
                   'persistent requests: the data of the round')
        call check_recv(ST_OF(sts, k), left, 300 + k, n, 'MPI_Recv_init''s status')
      end do
    end do

    call spoil(status)
    flag = .false.
    call MPI_Test(sreqs(3), flag, status, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. sreqs(3) /= MPI_REQUEST_NULL, &
               'MPI_Test of an inactive persistent request: .TRUE.')
    call check_empty(status, 'MPI_Test of an inactive persistent request')
    do k = 1, 4
      call MPI_Request_free(rreqs(k), ierr)
      call check(ierr == MPI_SUCCESS .and. rreqs(k) == MPI_REQUEST_NULL, 'MPI_Request_free of MPI_Recv_init''s')
      call MPI_Request_free(sreqs(k), ierr)
      call check(ierr == MPI_SUCCESS .and. sreqs(k) == MPI_REQUEST_NULL, 'MPI_Request_free of a send''s')
    end do
    call detach(bbuf, bsize, 'after MPI_Bsend_init')
  end subroutine

  ! ------------------------------------------------------------ probe

  subroutine probe()
    REQ_T :: req, req2
    MSG_T :: msg
    STATUS_DECL(status)
    STATUS_DECL(status2)
    logical :: flag

    ! MPI_PROBE from MPI_ANY_SOURCE: rank r sends r + 1 INTEGERs
    call fill(sbuf, 401)
    call MPI_Isend(sbuf, right + 1, MPI_INTEGER, right, 401, MPI_COMM_WORLD, req, ierr)
    call spoil(status)
    call MPI_Probe(MPI_ANY_SOURCE, 401, MPI_COMM_WORLD, status, ierr)
    call succ('MPI_Probe')
    call check_recv(status, left, 401, rank + 1, 'MPI_Probe')
    rbuf = -1
    call MPI_Recv(rbuf, n, MPI_INTEGER, left, 401, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(from(rbuf, left, 401, rank + 1), 'the probed message''s data')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

    ! MPI_IPROBE: .FALSE. before the send (after a barrier), then in a loop
    flag = .true.
    call MPI_Iprobe(left, 402, MPI_COMM_WORLD, flag, status, ierr)
    call succ('MPI_Iprobe')
    call check(.not. flag, 'MPI_Iprobe before the message is sent: .FALSE.')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call fill(sbuf, 402)
    call MPI_Isend(sbuf, n - 2, MPI_INTEGER, right, 402, MPI_COMM_WORLD, req, ierr)
    flag = .false.
    do while (.not. flag)
      call spoil(status)
      call MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, status, ierr)
      call succ('MPI_Iprobe')
    end do
    call check_recv(status, left, 402, n - 2, 'MPI_Iprobe')
    flag = .false.
    call MPI_Iprobe(left, 402, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
    call check(flag, 'MPI_Iprobe again (MPI_STATUS_IGNORE): the message is still there')
    rbuf = -1
    call MPI_Recv(rbuf, n, MPI_INTEGER, left, 402, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(from(rbuf, left, 402, n - 2), 'the MPI_Iprobe''d message''s data')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Iprobe(left, 402, MPI_COMM_WORLD, flag, status, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Iprobe after the receive: .FALSE.')

    ! MPI_MPROBE / MPI_MRECV
    call fill(sbuf, 403)
    call MPI_Isend(sbuf, n - 1, MPI_INTEGER, right, 403, MPI_COMM_WORLD, req, ierr)
    msg = MPI_MESSAGE_NULL
    call spoil(status)
    call MPI_Mprobe(MPI_ANY_SOURCE, 403, MPI_COMM_WORLD, msg, status, ierr)
    call succ('MPI_Mprobe')
    call check(msg /= MPI_MESSAGE_NULL .and. msg /= MPI_MESSAGE_NO_PROC, 'MPI_Mprobe: a message')
    call check_recv(status, left, 403, n - 1, 'MPI_Mprobe')
    ! the matched message is no longer there to probe
    call MPI_Iprobe(MPI_ANY_SOURCE, 403, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
    call check(.not. flag, 'MPI_Iprobe of an MPI_Mprobe''d message: .FALSE.')
    rbuf = -1
    call spoil(status2)
    call MPI_Mrecv(rbuf, n, MPI_INTEGER, msg, status2, ierr)
    call succ('MPI_Mrecv')
    call check(msg == MPI_MESSAGE_NULL, 'MPI_Mrecv sets the message to MPI_MESSAGE_NULL')
    call check(from(rbuf, left, 403, n - 1) .and. rbuf(n) == -1, 'MPI_Mrecv: the data')
    call check_recv(status2, left, 403, n - 1, 'MPI_Mrecv')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

    ! MPI_IMPROBE / MPI_IMRECV: .FALSE. before the send, then in a loop
    flag = .true.
    call MPI_Improbe(left, 404, MPI_COMM_WORLD, flag, msg, status, ierr)
    call succ('MPI_Improbe')
    call check(.not. flag, 'MPI_Improbe before the message is sent: .FALSE.')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call fill(sbuf, 404)
    call MPI_Isend(sbuf, n, MPI_INTEGER, right, 404, MPI_COMM_WORLD, req, ierr)
    flag = .false.
    do while (.not. flag)
      call spoil(status)
      call MPI_Improbe(left, 404, MPI_COMM_WORLD, flag, msg, status, ierr)
      call succ('MPI_Improbe')
    end do
    call check(msg /= MPI_MESSAGE_NULL .and. msg /= MPI_MESSAGE_NO_PROC, 'MPI_Improbe: a message')
    call check_recv(status, left, 404, n, 'MPI_Improbe')
    rbuf = -1
    call MPI_Imrecv(rbuf, n, MPI_INTEGER, msg, req2, ierr)
    call succ('MPI_Imrecv')
    call check(msg == MPI_MESSAGE_NULL, 'MPI_Imrecv sets the message to MPI_MESSAGE_NULL')
    call spoil(status2)
    call MPI_Wait(req2, status2, ierr)
    call check(ierr == MPI_SUCCESS .and. req2 == MPI_REQUEST_NULL, 'MPI_Wait of MPI_Imrecv')
    call check(from(rbuf, left, 404, n), 'MPI_Imrecv: the data')
    call check_recv(status2, left, 404, n, 'MPI_Imrecv')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

    ! MPI_PROC_NULL: MPI_PROBE and MPI_IPROBE find it at once;
    ! MPI_MPROBE, MPI_IMPROBE give MPI_MESSAGE_NO_PROC, whose receive
    ! returns at once (§3.8.2, §3.8.3)
    call spoil(status)
    call MPI_Probe(MPI_PROC_NULL, 405, MPI_COMM_WORLD, status, ierr)
    call succ('MPI_Probe of MPI_PROC_NULL')
    call check_proc_null(status, 'MPI_Probe of MPI_PROC_NULL')
    call spoil(status)
    flag = .false.
    call MPI_Iprobe(MPI_PROC_NULL, 405, MPI_COMM_WORLD, flag, status, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Iprobe of MPI_PROC_NULL: .TRUE.')
    call check_proc_null(status, 'MPI_Iprobe of MPI_PROC_NULL')
    msg = MPI_MESSAGE_NULL
    call spoil(status)
    call MPI_Mprobe(MPI_PROC_NULL, 405, MPI_COMM_WORLD, msg, status, ierr)
    call succ('MPI_Mprobe of MPI_PROC_NULL')
    call check(msg == MPI_MESSAGE_NO_PROC, 'MPI_Mprobe of MPI_PROC_NULL: MPI_MESSAGE_NO_PROC')
    call check_proc_null(status, 'MPI_Mprobe of MPI_PROC_NULL')
    rbuf = -1
    call spoil(status)
    call MPI_Mrecv(rbuf, n, MPI_INTEGER, msg, status, ierr)
    call succ('MPI_Mrecv of MPI_MESSAGE_NO_PROC')
    call check(msg == MPI_MESSAGE_NULL, 'MPI_Mrecv of MPI_MESSAGE_NO_PROC: MPI_MESSAGE_NULL')
    call check(all(rbuf == -1), 'MPI_Mrecv of MPI_MESSAGE_NO_PROC: the buffer untouched')
    call check_proc_null(status, 'MPI_Mrecv of MPI_MESSAGE_NO_PROC')
    msg = MPI_MESSAGE_NULL
    flag = .false.
    call spoil(status)
    call MPI_Improbe(MPI_PROC_NULL, 405, MPI_COMM_WORLD, flag, msg, status, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Improbe of MPI_PROC_NULL: .TRUE.')
    call check(msg == MPI_MESSAGE_NO_PROC, 'MPI_Improbe of MPI_PROC_NULL: MPI_MESSAGE_NO_PROC')
    call check_proc_null(status, 'MPI_Improbe of MPI_PROC_NULL')
    call MPI_Imrecv(rbuf, n, MPI_INTEGER, msg, req2, ierr)
    call succ('MPI_Imrecv of MPI_MESSAGE_NO_PROC')
    call check(msg == MPI_MESSAGE_NULL, 'MPI_Imrecv of MPI_MESSAGE_NO_PROC: MPI_MESSAGE_NULL')
    call spoil(status)
    call MPI_Wait(req2, status, ierr)
    call check(all(rbuf == -1), 'MPI_Imrecv of MPI_MESSAGE_NO_PROC: the buffer untouched')
    call check_proc_null(status, 'MPI_Imrecv of MPI_MESSAGE_NO_PROC')
  end subroutine

  ! a derived type partially received: MPI_GET_COUNT is MPI_UNDEFINED,
  ! MPI_GET_ELEMENTS and MPI_GET_ELEMENTS_X count the basic elements
  ! (§3.2.5); the data where the type map puts them
  subroutine elements()
    DT_T :: t3, vec
    integer :: i

    ! 3 INTEGERs contiguous, room for 3 of them: 7 INTEGERs (2 1/3)
    ! received; then a whole number of them
    call MPI_Type_contiguous(3, MPI_INTEGER, t3, ierr)
    call MPI_Type_commit(t3, ierr)
    call succ('MPI_Type_contiguous, MPI_Type_commit')
    call recv_typed(t3, 3, 411, [(i, i = 1, 7)], MPI_UNDEFINED, 'MPI_Recv of 7 INTEGERs as 3 x (3 INTEGERs)')
    call recv_typed(t3, 3, 412, [(i, i = 1, 6)], 2, 'MPI_Recv of 6 INTEGERs as 3 x (3 INTEGERs)')
    call MPI_Type_free(t3, ierr)

    ! a vector: 2 blocks of 2 INTEGERs, stride 3 (INTEGERs 1 2 _ 4 5, extent
    ! 5); 2 of them received from 6 INTEGERs: 1 2 4 5 | 6 7 of the buffer
    call MPI_Type_vector(2, 2, 3, MPI_INTEGER, vec, ierr)
    call MPI_Type_commit(vec, ierr)
    call succ('MPI_Type_vector, MPI_Type_commit')
    call recv_typed(vec, 2, 413, [1, 2, 4, 5, 6, 7], MPI_UNDEFINED, 'MPI_Recv of a vector type')
    call MPI_Type_free(vec, ierr)
  end subroutine

  ! size(at) INTEGERs sent with tag tg, received as rcnt of type dt into a
  ! buffer of 12 INTEGERs (-1 first): the data at the places at (the rest
  ! untouched), the status, MPI_GET_COUNT is cnt, MPI_GET_ELEMENTS and
  ! MPI_GET_ELEMENTS_X size(at)
  subroutine recv_typed(dt, rcnt, tg, at, cnt, what)
    DT_T, intent(in) :: dt
    integer, intent(in) :: rcnt, tg, at(:), cnt
    character(len=*), intent(in) :: what
    STATUS_DECL(status)
    integer :: lbuf(12), c, i
    integer(kind=MPI_COUNT_KIND) :: cx
    logical :: rest(12)
    REQ_T :: req

    call fill(sbuf, tg)
    call MPI_Isend(sbuf, size(at), MPI_INTEGER, right, tg, MPI_COMM_WORLD, req, ierr)
    lbuf = -1
    call spoil(status)
    call MPI_Recv(lbuf, rcnt, dt, left, tg, MPI_COMM_WORLD, status, ierr)
    call succ(what)
    rest = .true.
    rest(at) = .false.
    call check(all(lbuf(at) == [(left * 1000 + mod(tg, 100) * 10 + i, i = 1, size(at))]) .and. &
               all(pack(lbuf, rest) == -1), what // ': the data')
    call check(ST_SOURCE(status) == left .and. ST_TAG(status) == tg .and. ST_ERROR(status) == POISON, &
               what // ': the status')
    c = POISON
    call MPI_Get_count(status, dt, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == cnt, what // ': MPI_Get_count')
    c = POISON
    call MPI_Get_elements(status, dt, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == size(at), what // ': MPI_Get_elements')
    cx = POISON
    call MPI_Get_elements_x(status, dt, cx, ierr)
    call check(ierr == MPI_SUCCESS .and. cx == size(at), what // ': MPI_Get_elements_x')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  end subroutine

  ! ------------------------------------------------------------ status

  ! MPI_STATUS_SET_ELEMENTS(_X), MPI_STATUS_SET_CANCELLED (§13.3), and
  ! MPI 4.1's MPI_STATUS_SET_/GET_SOURCE, _TAG, _ERROR. COUNT is a number
  ! of basic elements, and the status is read with a datatype of the same
  ! type signature only (§13.3).
  subroutine status_set()
    STATUS_DECL(s)
    DT_T :: t3
    integer :: c, v
    integer(kind=MPI_COUNT_KIND) :: cx, big
    logical :: flag

    call spoil(s)
    call MPI_Status_set_elements(s, MPI_INTEGER, 5, ierr)
    call succ('MPI_Status_set_elements')
    call MPI_Get_count(s, MPI_INTEGER, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == 5, 'MPI_Status_set_elements: MPI_Get_count')
    call MPI_Get_elements(s, MPI_INTEGER, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == 5, 'MPI_Status_set_elements: MPI_Get_elements')
    call MPI_Get_elements_x(s, MPI_INTEGER, cx, ierr)
    call check(ierr == MPI_SUCCESS .and. cx == 5, 'MPI_Status_set_elements: MPI_Get_elements_x')
    call check(ST_SOURCE(s) == POISON .and. ST_TAG(s) == POISON .and. ST_ERROR(s) == POISON, &
               'MPI_Status_set_elements leaves MPI_SOURCE, MPI_TAG, MPI_ERROR')
    call MPI_Status_set_cancelled(s, .true., ierr)
    call succ('MPI_Status_set_cancelled')
    call MPI_Test_cancelled(s, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Status_set_cancelled(.TRUE.)')
    call MPI_Get_count(s, MPI_INTEGER, c, ierr)
    call check(c == 5, 'MPI_Status_set_cancelled leaves the count')
    call MPI_Status_set_cancelled(s, .false., ierr)
    call MPI_Test_cancelled(s, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Status_set_cancelled(.FALSE.)')

    ! elements of a derived type: 7 INTEGERs of 3-INTEGER types
    call MPI_Type_contiguous(3, MPI_INTEGER, t3, ierr)
    call MPI_Type_commit(t3, ierr)
    call MPI_Status_set_elements(s, t3, 7, ierr)
    call succ('MPI_Status_set_elements of a derived type')
    call MPI_Get_elements(s, t3, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == 7, 'MPI_Status_set_elements(t3, 7): MPI_Get_elements')
    call MPI_Get_count(s, t3, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == MPI_UNDEFINED, 'MPI_Status_set_elements(t3, 7): MPI_Get_count')
    call MPI_Status_set_elements_x(s, t3, 4_MPI_COUNT_KIND, ierr)
    call succ('MPI_Status_set_elements_x')
    call MPI_Get_count(s, t3, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == MPI_UNDEFINED, 'MPI_Status_set_elements_x(t3, 4): MPI_Get_count')
    cx = POISON
    call MPI_Get_elements_x(s, t3, cx, ierr)
    call check(ierr == MPI_SUCCESS .and. cx == 4, 'MPI_Status_set_elements_x(t3, 4): MPI_Get_elements_x')
    call MPI_Status_set_elements_x(s, t3, 6_MPI_COUNT_KIND, ierr)
    call MPI_Get_count(s, t3, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == 2, 'MPI_Status_set_elements_x(t3, 6): MPI_Get_count 2')
    call MPI_Type_free(t3, ierr)

    ! a count over 2**31: _X holds it, the INTEGER forms cannot (MPI_UNDEFINED)
    big = 2_MPI_COUNT_KIND**32 + 3
    call MPI_Status_set_elements_x(s, MPI_INTEGER, big, ierr)
    call succ('MPI_Status_set_elements_x of 2**32 + 3')
    cx = POISON
    call MPI_Get_elements_x(s, MPI_INTEGER, cx, ierr)
    call check(ierr == MPI_SUCCESS .and. cx == big, 'MPI_Get_elements_x of 2**32 + 3')
    c = POISON
    call MPI_Get_count(s, MPI_INTEGER, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == MPI_UNDEFINED, 'MPI_Get_count of 2**32 + 3: MPI_UNDEFINED')
    c = POISON
    call MPI_Get_elements(s, MPI_INTEGER, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == MPI_UNDEFINED, 'MPI_Get_elements of 2**32 + 3: MPI_UNDEFINED')
#ifdef RDMACH_USE_F08
    cx = POISON
    call MPI_Get_count(s, MPI_INTEGER, cx)
    call check(cx == big, 'MPI_Get_count with an INTEGER(KIND=MPI_COUNT_KIND) count of 2**32 + 3')
    cx = POISON
    call MPI_Get_elements(s, MPI_INTEGER, cx)
    call check(cx == big, 'MPI_Get_elements with an INTEGER(KIND=MPI_COUNT_KIND) count of 2**32 + 3')
#ifndef RDMACH_MPICH_BUILD
    ! (MPI 4.0's MPI_Status_set_elements_c: MPICH 4.0.2's mpi_f08 lacks it)
    call MPI_Status_set_elements(s, MPI_INTEGER, big + 1)
    call MPI_Get_elements_x(s, MPI_INTEGER, cx)
    call check(cx == big + 1, 'MPI_Status_set_elements with an INTEGER(KIND=MPI_COUNT_KIND) count')
#endif
#endif

#ifndef RDMACH_MPICH_BUILD
    ! MPI 4.1: the fields by procedure, and a status of a receive
    call spoil(s)
    call MPI_Status_set_elements(s, MPI_INTEGER, 3, ierr)
    call MPI_Status_set_cancelled(s, .false., ierr)
    call MPI_Status_set_source(s, 3, ierr)
    call succ('MPI_Status_set_source')
    call check(ST_SOURCE(s) == 3, 'MPI_Status_set_source: MPI_SOURCE')
    call MPI_Status_set_tag(s, 44, ierr)
    call succ('MPI_Status_set_tag')
    call check(ST_TAG(s) == 44, 'MPI_Status_set_tag: MPI_TAG')
    call MPI_Status_set_error(s, MPI_ERR_TAG, ierr)
    call succ('MPI_Status_set_error')
    call check(ST_ERROR(s) == MPI_ERR_TAG, 'MPI_Status_set_error: MPI_ERROR')
    v = POISON
    call MPI_Status_get_source(s, v, ierr)
    call check(ierr == MPI_SUCCESS .and. v == 3, 'MPI_Status_get_source')
    v = POISON
    call MPI_Status_get_tag(s, v, ierr)
    call check(ierr == MPI_SUCCESS .and. v == 44, 'MPI_Status_get_tag')
    v = POISON
    call MPI_Status_get_error(s, v, ierr)
    call check(ierr == MPI_SUCCESS .and. v == MPI_ERR_TAG, 'MPI_Status_get_error')
    call MPI_Get_count(s, MPI_INTEGER, c, ierr)
    call MPI_Test_cancelled(s, flag, ierr)
    call check(c == 3 .and. .not. flag, 'MPI_Status_set_source/_tag/_error leave the count and cancelled')
    ! and read from a receive's status
    call fill(sbuf, 421)
    call spoil(s)
    call MPI_Sendrecv(sbuf, 2, MPI_INTEGER, right, 421, rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE, &
                      MPI_ANY_TAG, MPI_COMM_WORLD, s, ierr)
    call MPI_Status_get_source(s, v, ierr)
    call check(ierr == MPI_SUCCESS .and. v == left, 'MPI_Status_get_source of a receive''s status')
    call MPI_Status_get_tag(s, v, ierr)
    call check(ierr == MPI_SUCCESS .and. v == 421, 'MPI_Status_get_tag of a receive''s status')
    call MPI_Status_get_error(s, v, ierr)
    call check(ierr == MPI_SUCCESS .and. v == POISON, 'MPI_Status_get_error of a receive''s status')
#endif
  end subroutine

  ! ------------------------------------------------------------ partitioned

  ! 4 partitions of 3 INTEGERs to the right; marked ready out of order
  ! (3, then 0-1, then 2); two rounds with new data (MPI_START, then
  ! MPI_STARTALL). Every MPI_PARRIVED is .FALSE. before a barrier the
  ! senders' MPI_PREADY follow.
  subroutine partitioned()
    integer, parameter :: parts = 4, per = 3
    integer(kind=MPI_COUNT_KIND) :: pcount
    REQ_T :: reqs(2)
    STATUS_DECL(status)
    logical :: flag, arrived(0:parts - 1)
    integer :: round, p, i, k

    if (nproc < 2) return
    pcount = per
    ! (an initialization call may wait for its match: even ranks send first)
    do k = 0, 1
      if (mod(rank + k, 2) == 0) then
        call MPI_Psend_init(qs, parts, pcount, MPI_INTEGER, right, 601, MPI_COMM_WORLD, MPI_INFO_NULL, &
                            reqs(2), ierr)
        call succ('MPI_Psend_init')
      else
        call MPI_Precv_init(qr, parts, pcount, MPI_INTEGER, left, 601, MPI_COMM_WORLD, MPI_INFO_NULL, &
                            reqs(1), ierr)
        call succ('MPI_Precv_init')
      end if
    end do
    call check(reqs(1) /= MPI_REQUEST_NULL .and. reqs(2) /= MPI_REQUEST_NULL, 'partitioned requests')

    do round = 1, 2
      qs = [(rank * 1000 + round * 100 + i, i = 1, parts * per)]
      qr = -1
      if (round == 1) then
        call MPI_Start(reqs(1), ierr)
        call succ('MPI_Start of MPI_Precv_init''s')
        call MPI_Start(reqs(2), ierr)
        call succ('MPI_Start of MPI_Psend_init''s')
      else
        call MPI_Startall(2, reqs, ierr)
        call succ('MPI_Startall of partitioned requests')
      end if
      do p = 0, parts - 1
        flag = .true.
        call parrived(reqs(1), p, flag)
        call succ('MPI_Parrived')
        call check(.not. flag, 'MPI_Parrived before the partition is ready: .FALSE.')
      end do
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      call MPI_Pready(3, reqs(2), ierr)
      call succ('MPI_Pready')
      call MPI_Pready_range(0, 1, reqs(2), ierr)
      call succ('MPI_Pready_range')
      call MPI_Pready_list(1, [2], reqs(2), ierr)
      call succ('MPI_Pready_list')
      arrived = .false.
      do while (.not. all(arrived))
        do p = 0, parts - 1
          if (arrived(p)) cycle
          call parrived(reqs(1), p, flag)
          call succ('MPI_Parrived')
          if (flag) then
            arrived(p) = .true.
            call check(all(qr(p * per + 1:(p + 1) * per) == &
                           [(left * 1000 + round * 100 + i, i = p * per + 1, (p + 1) * per)]), &
                       'MPI_Parrived: the partition''s data')
          end if
        end do
      end do
      call MPI_Wait(reqs(1), status, ierr)
      call succ('MPI_Wait of MPI_Precv_init''s')
      call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
      call succ('MPI_Wait of MPI_Psend_init''s')
      call check(reqs(1) /= MPI_REQUEST_NULL .and. reqs(2) /= MPI_REQUEST_NULL, &
                 'completed partitioned requests: inactive, not MPI_REQUEST_NULL')
      call check(all(qr == [(left * 1000 + round * 100 + i, i = 1, parts * per)]), &
                 'partitioned: the data of the round')
      ! (the senders' buffer is rewritten in the next round)
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
    end do
    call MPI_Request_free(reqs(1), ierr)
    call MPI_Request_free(reqs(2), ierr)
    call check(ierr == MPI_SUCCESS .and. reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, &
               'MPI_Request_free of partitioned requests')
  end subroutine

  ! MPI_PARRIVED; MPICH 4.0.2's module mpi declares its FLAG INTEGER (the
  ! standard: LOGICAL), so through it the LOGICAL is read from an INTEGER
  subroutine parrived(req, p, flag)
    REQ_T, intent(in) :: req
    integer, intent(in) :: p
    logical, intent(out) :: flag
#if defined(RDMACH_MPICH_BUILD) && defined(RDMACH_USE_MODULE)
    integer :: iflag
    iflag = -1
    call MPI_Parrived(req, p, iflag, ierr)
    call check(iflag == 0 .or. iflag == 1, 'MPI_Parrived: a LOGICAL flag')
    flag = iflag /= 0
#else
    call MPI_Parrived(req, p, flag, ierr)
#endif
  end subroutine

#ifndef RDMACH_MPICH_BUILD
  ! ------------------------------------------------------------ MPI 4.1 buffers

  ! MPI_BUFFER_FLUSH and _IFLUSH of the process's buffer; a communicator's
  ! own buffer (MPI_COMM_ATTACH_BUFFER, _FLUSH_BUFFER, _IFLUSH_BUFFER,
  ! _DETACH_BUFFER), and MPI_BUFFER_AUTOMATIC (§3.6)
  subroutine buffers_41()
    integer :: bsize, dsize
    integer, allocatable, target :: bbuf(:), cbuf(:)
    BADDR_DECL(baddr)
    COMM_T :: comm
    REQ_T :: reqs(2)
    STATUS_DECL(status)
    STATUSES_DECL(sts, 2)

    call attach(2, bbuf, bsize)
    allocate(cbuf(size(bbuf)))
    ! MPI_BUFFER_FLUSH: the receive posted first (the flush waits for delivery)
    call fill(sbuf, 701)
    call post(701, reqs(1))
    call send_kind(K_BSEND, n, right, 701)
    call MPI_Buffer_flush(ierr)
    call succ('MPI_Buffer_flush')
    call wait_st(reqs(1), status, 'MPI_Irecv')
    call got(rbuf, 701, n, status, 'MPI_Bsend then MPI_Buffer_flush')
    ! MPI_BUFFER_IFLUSH
    call fill(sbuf, 702)
    call post(702, reqs(1))
    call send_kind(K_BSEND, n, right, 702)
    call MPI_Buffer_iflush(reqs(2), ierr)
    call succ('MPI_Buffer_iflush')
    call check(reqs(2) /= MPI_REQUEST_NULL, 'MPI_Buffer_iflush: a request')
    call waitall2(reqs, sts, 'MPI_Waitall of MPI_Buffer_iflush''s request')
    call got(rbuf, 702, n, ST_OF(sts, 1), 'MPI_Bsend then MPI_Buffer_iflush')
    call detach(bbuf, bsize, 'after MPI_Buffer_iflush')

    ! a communicator's buffer, no process buffer attached
    call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
    call MPI_Comm_attach_buffer(comm, cbuf, bsize, ierr)
    call succ('MPI_Comm_attach_buffer')
    call fill(sbuf, 703)
    call post(703, reqs(1), comm)
    call MPI_Bsend(sbuf, n, MPI_INTEGER, right, 703, comm, ierr)
    call succ('MPI_Bsend with the communicator''s buffer')
    call MPI_Comm_flush_buffer(comm, ierr)
    call succ('MPI_Comm_flush_buffer')
    call wait_st(reqs(1), status, 'MPI_Irecv')
    call got(rbuf, 703, n, status, 'MPI_Bsend with the communicator''s buffer')
    call fill(sbuf, 704)
    call post(704, reqs(1), comm)
    call MPI_Ibsend(sbuf, n, MPI_INTEGER, right, 704, comm, reqs(2), ierr)
    call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
    call MPI_Comm_iflush_buffer(comm, reqs(2), ierr)
    call succ('MPI_Comm_iflush_buffer')
    call check(reqs(2) /= MPI_REQUEST_NULL, 'MPI_Comm_iflush_buffer: a request')
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call succ('MPI_Waitall of MPI_Comm_iflush_buffer''s request')
    call check(from(rbuf, left, 704, n), 'MPI_Ibsend with the communicator''s buffer: the data')
    dsize = -1
    call MPI_Comm_detach_buffer(comm, baddr, dsize, ierr)
    call succ('MPI_Comm_detach_buffer')
    call check(dsize == bsize, 'MPI_Comm_detach_buffer: the size attached')
#ifdef RDMACH_USE_F08
    call check(c_associated(baddr, c_loc(cbuf)), 'MPI_Comm_detach_buffer: the address attached (TYPE(C_PTR))')
#endif

#ifdef TEST_BUFFER_AUTOMATIC
    ! MPI_BUFFER_AUTOMATIC: the library's memory, as much as needed
    call MPI_Comm_attach_buffer(comm, MPI_BUFFER_AUTOMATIC, 0, ierr)
    call succ('MPI_Comm_attach_buffer(MPI_BUFFER_AUTOMATIC)')
    call fill(sbuf, 705)
    call fill(sbuf2, 706)
    call MPI_Bsend(sbuf, n, MPI_INTEGER, right, 705, comm, ierr)
    call succ('MPI_Bsend with MPI_BUFFER_AUTOMATIC')
    call MPI_Bsend(sbuf2, n, MPI_INTEGER, right, 706, comm, ierr)
    call succ('MPI_Bsend with MPI_BUFFER_AUTOMATIC (second)')
    rbuf = -1
    rbuf2 = -1
    call MPI_Recv(rbuf2, n, MPI_INTEGER, left, 706, comm, MPI_STATUS_IGNORE, ierr)
    call MPI_Recv(rbuf, n, MPI_INTEGER, left, 705, comm, MPI_STATUS_IGNORE, ierr)
    call check(from(rbuf, left, 705, n) .and. from(rbuf2, left, 706, n), &
               'MPI_Bsend with MPI_BUFFER_AUTOMATIC: the data')
    call MPI_Comm_flush_buffer(comm, ierr)
    call MPI_Comm_detach_buffer(comm, baddr, dsize, ierr)
    call succ('MPI_Comm_detach_buffer of MPI_BUFFER_AUTOMATIC')
#endif
    call MPI_Comm_free(comm, ierr)
    deallocate(cbuf)
  end subroutine
#endif

#ifdef RDMACH_USE_F08
  ! ------------------------------------------------------------ large counts

  ! INTEGER(KIND=MPI_COUNT_KIND) counts: the generic names' _c procedures
  ! (send_kind's K_LARGE and K_ILARGE, transfer, sendrecv)
  subroutine large_counts()
    integer(kind=MPI_COUNT_KIND) :: lc
    type(MPI_Status) :: status

    call transfer(K_LARGE, 801)
    call transfer(K_ILARGE, 802)
    call sendrecv(n, right, left, 803, 803, .true., 'MPI_Sendrecv with large counts')
    ! (IERROR absent)
    lc = n
    call MPI_Send(sbuf, lc, MPI_INTEGER, MPI_PROC_NULL, 804, MPI_COMM_WORLD)
    call spoil(status)
    call MPI_Recv(rbuf, lc, MPI_INTEGER, MPI_PROC_NULL, 804, MPI_COMM_WORLD, status)
    call check_proc_null(status, 'MPI_Recv from MPI_PROC_NULL with a large count')
  end subroutine
#endif

  ! ------------------------------------------------------------ cancel

  ! §3.8.4: a cancelled operation's MPI_WAIT returns, MPI_TEST_CANCELLED is
  ! .TRUE.; a cancelled send is not received at all
  subroutine cancel()
    integer :: mode
    logical :: flag

    ! an MPI_IRECV nobody sends to (completed by MPI_WAIT, then by MPI_TEST
    ! in a loop), an MPI_ISEND and an MPI_ISSEND nobody receives
    do mode = C_IRECV, C_ISSEND
      call cancel_one(mode)
    end do
    ! the cancelled sends are gone: nothing to probe, once every rank has cancelled
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    do mode = C_ISEND, C_ISSEND
      flag = .true.
      call MPI_Iprobe(left, 500 + mode, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
      call check(ierr == MPI_SUCCESS .and. .not. flag, 'a cancelled ' // trim(C_NAME(mode)) // &
                 '''s message is not received')
    end do
    ! a started persistent receive: cancelled, then inactive
    call cancel_one(C_RECV_INIT)
  end subroutine

  ! the operation mode (C_*, tag 500 + mode) that nobody matches,
  ! MPI_CANCELled: the request left by MPI_CANCEL, completed (MPI_WAIT; an
  ! MPI_TEST loop for C_IRECV_TEST): MPI_REQUEST_NULL, or inactive for a
  ! persistent request (then freed); MPI_TEST_CANCELLED .TRUE.
  subroutine cancel_one(mode)
    integer, intent(in) :: mode
    REQ_T :: req
    STATUS_DECL(status)
    logical :: flag
    character(len=:), allocatable :: what

    what = trim(C_NAME(mode))
    select case (mode)
    case (C_IRECV)
      call MPI_Irecv(rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE, 501, MPI_COMM_WORLD, req, ierr)
    case (C_IRECV_TEST)
      call MPI_Irecv(rbuf, n, MPI_INTEGER, left, 502, MPI_COMM_WORLD, req, ierr)
    case (C_ISEND)
      call fill(sbuf, 503)
      call MPI_Isend(sbuf, n, MPI_INTEGER, right, 503, MPI_COMM_WORLD, req, ierr)
    case (C_ISSEND)
      call fill(sbuf2, 504)
      call MPI_Issend(sbuf2, n, MPI_INTEGER, right, 504, MPI_COMM_WORLD, req, ierr)
    case (C_RECV_INIT)
      call MPI_Recv_init(rbuf, n, MPI_INTEGER, MPI_ANY_SOURCE, 505, MPI_COMM_WORLD, req, ierr)
      call MPI_Start(req, ierr)
    end select
    call MPI_Cancel(req, ierr)
    call succ('MPI_Cancel of ' // what)
    call check(req /= MPI_REQUEST_NULL, 'MPI_Cancel leaves the request')
    call spoil(status)
    if (mode == C_IRECV_TEST) then
      flag = .false.
      do while (.not. flag)
        call MPI_Test(req, flag, status, ierr)
        call succ('MPI_Test of a cancelled ' // what)
      end do
    else
      call MPI_Wait(req, status, ierr)
      call succ('MPI_Wait of a cancelled ' // what)
    end if
    call check((req == MPI_REQUEST_NULL) .neqv. (mode == C_RECV_INIT), &
               'a cancelled ' // what // ' complete: MPI_REQUEST_NULL (persistent: inactive, not null)')
    flag = .false.
    call MPI_Test_cancelled(status, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Test_cancelled of a cancelled ' // what // ': .TRUE.')
    if (mode == C_RECV_INIT) then
      call MPI_Request_free(req, ierr)
      call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'MPI_Request_free after cancelling')
    end if
  end subroutine

#include "check.inc"
end program
