! f_types_misc: the datatype chapter and the environment and error-class
! procedures from Fortran, every result against MPI 4.1, through mpif.h,
! `use mpi` (mpi_test.h) and `use mpi_f08` (-DRDMACH_USE_F08):
!   constructors (§5.1.2-5.1.7, 5.1.10)  MPI_TYPE_CONTIGUOUS, _VECTOR,
!       _CREATE_HVECTOR (stride in bytes, INTEGER(KIND=MPI_ADDRESS_KIND)),
!       _INDEXED, _CREATE_HINDEXED, _CREATE_INDEXED_BLOCK,
!       _CREATE_HINDEXED_BLOCK, _CREATE_STRUCT (a SEQUENCE derived type,
!       displacements from MPI_GET_ADDRESS), _CREATE_SUBARRAY (ORDER_FORTRAN
!       and ORDER_C naming the same elements of a 2-d Fortran array),
!       _CREATE_DARRAY (BLOCK and CYCLIC with MPI_DISTRIBUTE_DFLT_DARG, and
!       CYCLIC(2), MPI_ORDER_C, CYCLIC(3) x MPI_DISTRIBUTE_NONE; the process
!       grid row-major, §5.1.4), _CREATE_RESIZED (a transpose, a negative
!       lower bound), _DUP (of a derived and a predefined type): each used
!       for a real transfer to the right neighbour (MPI_SENDRECV; the data
!       name the sender) and the received array checked element by
!       element, on the send side and on the receive side; the extent of a
!       subarray or darray is the whole array's (§5.1.3, 5.1.4);
!   queries  MPI_TYPE_SIZE(_X), _GET_EXTENT(_X), _GET_TRUE_EXTENT(_X),
!       _GET_ENVELOPE and _GET_CONTENTS (§5.1.13: the combiner and the
!       arguments of every constructor above; a derived type in the contents
!       is a new handle, a predefined one the same handle), MPI_GET_ELEMENTS
!       (_X) and MPI_GET_COUNT of a partial derived type (a record and a
!       half of a struct), MPI_TYPE_SET_NAME / _GET_NAME (§7.8: leading
!       blanks significant, trailing not; the result blank-padded; a long
!       name truncated to MPI_MAX_OBJECT_NAME; the
!       predefined names), MPI_TYPE_GET_VALUE_INDEX (MPI 4.1 §6.9.4: the
!       Fortran pairs MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER; no pair
!       type for DOUBLE PRECISION + INTEGER: MPI_DATATYPE_NULL; the pair used
!       in an MPI_MINLOC reduction; MPI_2INTEGER, MPI_2REAL in MPI_MAXLOC),
!       MPI_TYPE_MATCH_SIZE (§19.1.9: a named type of that size, used for a
!       transfer), MPI_REAL16 in MPI_SUM (REAL*16: gfortran's REAL(16)),
!       MPI_TYPE_CREATE_F90_REAL / _COMPLEX / _INTEGER (the kind
!       selected_real_kind(p, r) etc. names, its envelope MPI_COMBINER_F90_*,
!       a transfer; precisions 18 and 33, gfortran's REAL(10) and REAL(16),
!       with MPI_SUM of such REALs), MPI_SIZEOF (modules);
!   type attributes (§7.7.4)  MPI_TYPE_CREATE_KEYVAL with
!       MPI_TYPE_DUP_FN, MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN and
!       Fortran callbacks (EXTRA_STATE, the value, when each is called),
!       MPI_TYPE_SET_ATTR, _GET_ATTR, _DELETE_ATTR, _FREE_KEYVAL; MPI_TYPE_DUP
!       copies through the copy callback;
!   packing (§5.2, 5.2.3)  MPI_PACK / MPI_UNPACK / MPI_PACK_SIZE (also sent
!       as MPI_PACKED), MPI_PACK_EXTERNAL "external32" (the big-endian bytes
!       of INTEGER, INTEGER(2), INTEGER(8), CHARACTER, REAL, DOUBLE
!       PRECISION, COMPLEX, DOUBLE COMPLEX, a vector, and MPI_REAL16 /
!       MPI_COMPLEX32 as binary128), its MPI_UNPACK_EXTERNAL and
!       MPI_PACK_EXTERNAL_SIZE;
!   errors (§9.4, 9.5)  MPI_ADD_ERROR_CLASS / _CODE / _STRING,
!       MPI_ERROR_CLASS, MPI_ERROR_STRING (RESULTLEN, blank padding; all
!       spaces for a code without a string; a replaced string; one of
!       MPI_MAX_ERROR_STRING characters),
!       MPI_COMM_CALL_ERRHANDLER with a user code (a Fortran error handler
!       sees it; MPI_ERRORS_RETURN: IERROR MPI_SUCCESS), MPI_LASTUSEDCODE,
!       MPI_REMOVE_ERROR_STRING / _CODE / _CLASS (MPI 4.1);
!   environment (§9, 11)  MPI_GET_VERSION (before MPI_INIT, after
!       MPI_FINALIZE; the constants MPI_VERSION / MPI_SUBVERSION),
!       MPI_GET_LIBRARY_VERSION, MPI_GET_PROCESSOR_NAME (RESULTLEN, blank
!       padding), MPI_INITIALIZED / MPI_FINALIZED (before, during, after),
!       MPI_QUERY_THREAD (what MPI_INIT_THREAD provided), MPI_IS_THREAD_MAIN,
!       MPI_WTIME / MPI_WTICK, MPI_GET_HW_RESOURCE_INFO (MPI 4.1),
!       MPI_ALLOC_MEM (modules: the TYPE(C_PTR) BASEPTR) / MPI_FREE_MEM, the
!       MPI_INFO_* procedures with Fortran strings (MPI_INFO_DUP keeps the
!       order of the keys; deleting an absent key raises
!       MPI_ERR_INFO_NOKEY; a key of MPI_MAX_INFO_KEY and a value of
!       MPI_MAX_INFO_VAL characters).
! The deprecated MPI-1 procedures MPI 3.0 removed (MPI_TYPE_HVECTOR,
! _HINDEXED, _STRUCT, _EXTENT, _LB, _UB, MPI_ADDRESS: INTEGER displacements;
! the MPI_LB and MPI_UB markers) with mpif.h and `use mpi` only (MPICH keeps
! them there; mpi_f08 never had them). Built with Debian MPICH's mpif90
! (-DRDMACH_MPICH_BUILD): MPICH 4.0.2 lacks the MPI 4.1 procedures
! (MPI_REMOVE_ERROR_*, MPI_GET_HW_RESOURCE_INFO, MPI_TYPE_GET_VALUE_INDEX),
! its header says MPI 4.0, and MPI_SIZEOF is a procedure of its own
! module's (rdmach provides none of them: abi_fortran_sizeof_fails_at_start).
! Any number of ranks.
! Checks MPICH 4.0.2 itself fails (the program built by mpif90.mpich, run
! by mpiexec.mpich): leading blanks of a type's name (it strips them),
! MPI_SUM on MPI_REAL16 (NaN), precisions 18 and 33 (it has 6 and 15), the
! external32 bytes of a COMPLEX (its parts swapped), the string of a user
! code in a predefined class (an unrelated message), MPI_INFO_GET with a
! short VALUELEN (an error, not truncation).
! The shared checks: exchange (one MPI_SENDRECV of a type to the right
! neighbour, INTEGERs or DOUBLE PRECISIONs, the received array against its
! expected elements and -1 after them; the vector and the subarray also
! come back from the right neighbour into the type), committed (the
! constructor's IERROR, MPI_TYPE_COMMIT), expect_type (expect_bounds,
! expect_envelope and MPI_TYPE_GET_CONTENTS of a type), expect_string
! (MPI_TYPE_GET_NAME, MPI_ERROR_STRING), expect_class (MPI_ERROR_CLASS),
! f90_precision (MPI_TYPE_CREATE_F90_REAL / _COMPLEX of a precision
! gfortran has beyond MPI_DOUBLE_PRECISION's).
#ifdef RDMACH_USE_F08
#define MPI_USE use mpi_f08
#define MPI_INCLUDE
#define DT_T type(MPI_Datatype)
#define COMM_T type(MPI_Comm)
#define INFO_T type(MPI_Info)
#define ERRH_T type(MPI_Errhandler)
#define STATUS_DECL(s) type(MPI_Status) :: s
#define HAS_MODULE
#else
#include "mpi_test.h"
#define DT_T integer
#define COMM_T integer
#define INFO_T integer
#define ERRH_T integer
#define STATUS_DECL(s) integer :: s(MPI_STATUS_SIZE)
#define HAS_DEPRECATED
#ifdef RDMACH_USE_MODULE
#define HAS_MODULE
#endif
#endif
#ifndef RDMACH_MPICH_BUILD
#define HAS_MPI41
#endif

! Data at fixed addresses (MPI_ADDRESS's INTEGER result is a difference
! of two of them here) and what the callbacks saw.
module f_types_misc_data
  implicit none
  type rec_t
    sequence
    integer :: i
    double precision :: d
  end type
  type(rec_t), save :: srecs(4), rrecs(4)
  integer, save :: sints(20)
  integer :: copies = 0, deletes = 0, handler_calls = 0, handler_code = 0
  integer(kind=8) :: seen_extra = 0, deleted_value = 0
end module

! The callbacks (the MPI names private to this module: the program has
! its own).
module f_types_misc_cb
  use f_types_misc_data
  MPI_USE
  implicit none
  MPI_INCLUDE
  private
  public :: copy_plus_one, record_delete, handler
contains
  ! a type attribute's copy callback: the value + 1, and it is copied
  subroutine copy_plus_one(oldtype, keyval, extra_state, value_in, value_out, flag, ierror)
    DT_T :: oldtype
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
    logical :: flag
    copies = copies + 1
    seen_extra = extra_state
    value_out = value_in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine

  subroutine record_delete(datatype, keyval, value, extra_state, ierror)
    DT_T :: datatype
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
    deletes = deletes + 1
    deleted_value = value
    seen_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine

  subroutine handler(comm, code)
    COMM_T :: comm
    integer :: code
    handler_calls = handler_calls + 1
    handler_code = code
  end subroutine
end module

program f_types_misc
  use f_types_misc_data
  use f_types_misc_cb
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, nproc, right, left, provided, claimed, version, subversion
  logical :: flag

  ! ---- before MPI_INIT (MPI 4.1 §11.4.1: callable at any time) ----
  rank = 0
  call MPI_Initialized(flag, ierr)
  call early_check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Initialized before MPI_Init')
  call MPI_Finalized(flag, ierr)
  call early_check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Finalized before MPI_Init')
  call MPI_Get_version(version, subversion, ierr)
  call early_check(ierr == MPI_SUCCESS .and. version == MPI_VERSION, 'MPI_Get_version before MPI_Init')
  call library_version('before MPI_Init', .false.)

  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init_thread')
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)

  call environment()
  call simple_constructors()
  call struct_type()
  call subarray_type()
  call darray_type()
  call queries()
  call f90_types()
#ifdef HAS_DEPRECATED
  call deprecated()
#endif
  call type_attributes()
  call packing()
  call external32()
  call errors()
  call memory_and_info()
#if defined(HAS_MODULE) && !defined(RDMACH_MPICH_BUILD)
  call sizeofs()
#endif

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  call early_check(ierr == MPI_SUCCESS, 'MPI_Finalize')
  ! ---- after MPI_FINALIZE ----
  call MPI_Finalized(flag, ierr)
  call early_check(ierr == MPI_SUCCESS .and. flag, 'MPI_Finalized after MPI_Finalize')
  call MPI_Initialized(flag, ierr)
  call early_check(ierr == MPI_SUCCESS .and. flag, 'MPI_Initialized after MPI_Finalize')
  call MPI_Get_version(version, subversion, ierr)
  call early_check(ierr == MPI_SUCCESS .and. version == MPI_VERSION, 'MPI_Get_version after MPI_Finalize')
  call library_version('after MPI_Finalize', .false.)
  if (rank == 0) print '(a, i0, a)', 'f_types_misc: ok on ', nproc, ' ranks'

contains

  ! A check where MPI_ABORT is not allowed (before MPI_INIT, after
  ! MPI_FINALIZE).
  subroutine early_check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a, i0, 2a)', 'rank ', rank, ': FAILED: ', what
      flush(6)
      error stop 1
    end if
  end subroutine

  ! The value rank r's element i holds, as INTEGER and DOUBLE PRECISION.
  elemental integer function ival(r, i)
    integer, intent(in) :: r, i
    ival = 1000 * r + i
  end function

  elemental double precision function dval(r, i)
    integer, intent(in) :: r, i
    dval = r + i / 8d0
  end function

  ! got(1:n) == want(1:n) element by element, naming the first difference
  ! (INTEGERs compared as DOUBLE PRECISIONs, which hold them exactly).
  subroutine expect_i(got, want, n, what)
    integer, intent(in) :: n, got(n), want(n)
    character(len=*), intent(in) :: what
    call expect_d(dble(got), dble(want), n, what)
  end subroutine

  subroutine expect_d(got, want, n, what)
    integer, intent(in) :: n
    double precision, intent(in) :: got(n), want(n)
    character(len=*), intent(in) :: what
    character(len=200) :: msg
    integer :: i
    do i = 1, n
      if (got(i) /= want(i)) then
        write (msg, '(a, i0, 4a)') ': element ', i, ' is ', trim(num(got(i))), ', expected ', trim(num(want(i)))
        call check(.false., what // trim(msg))
      end if
    end do
  end subroutine

  ! x as text; a whole number as an INTEGER
  function num(x)
    double precision, intent(in) :: x
    character(len=40) :: num
    if (x == aint(x) .and. abs(x) < 1d18) then
      write (num, '(i0)') int(x, 8)
    else
      write (num, '(g0)') x
    end if
  end function

  ! The values of rank r's elements 1 to size(mine) that MINE selects, in
  ! order (what a type selecting them sends).
  function elements(r, mine)
    integer, intent(in) :: r
    logical, intent(in) :: mine(:)
    integer, allocatable :: elements(:)
    integer :: i
    elements = pack(ival(r, [(i, i = 1, size(mine))]), mine)
  end function

  ! The transfers of the datatype tests: one MPI_SENDRECV to the right
  ! neighbour (tag TAG) of SCOUNT STYPE from IS (INTEGERs) or DS (DOUBLE
  ! PRECISIONs), received as RCOUNT RTYPE into N elements of the same
  ! type set to -1 before; they must then hold WANT (DWANT) and -1 after
  ! it. ST: the receive's status.
  subroutine exchange(n, scount, stype, rcount, rtype, tag, st, what, is, want, ds, dwant)
    integer, intent(in) :: n, scount, rcount, tag
    DT_T, intent(in) :: stype, rtype
    STATUS_DECL(st)
    character(len=*), intent(in) :: what
    integer, intent(in), optional :: is(n), want(:)
    double precision, intent(in), optional :: ds(n), dwant(:)
    integer :: b(n), i
    double precision :: e(n), got(n), expected(n)
    b = -1
    e = -1
    if (present(is)) then
      call MPI_Sendrecv(is, scount, stype, right, tag, b, rcount, rtype, left, tag, MPI_COMM_WORLD, st, ierr)
      got = b
      expected = [dble(want), (-1d0, i = size(want) + 1, n)]
    else
      call MPI_Sendrecv(ds, scount, stype, right, tag, e, rcount, rtype, left, tag, MPI_COMM_WORLD, st, ierr)
      got = e
      expected = [dwant, (-1d0, i = size(dwant) + 1, n)]
    end if
    call check(ierr == MPI_SUCCESS, 'MPI_Sendrecv: ' // what)
    call expect_d(got, expected, n, what)
  end subroutine

  ! The check of the call that made t (OK), then MPI_TYPE_COMMIT of t.
  subroutine committed(t, ok, what)
    DT_T, intent(inout) :: t
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    call check(ok, what)
    call MPI_Type_commit(t, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_commit: ' // what)
  end subroutine

  ! What the queries say of t: expect_bounds (BOUNDS: size, lb, extent,
  ! true lb, true extent), expect_envelope (ENVELOPE: combiner, ni, na,
  ! nd) and MPI_TYPE_GET_CONTENTS: the integers INTS, the addresses ADDRS
  ! and the first datatype TYPE1 (a predefined one: the same handle), each
  ! where given.
  subroutine expect_type(t, what, bounds, envelope, ints, addrs, type1)
    DT_T, intent(in) :: t
    character(len=*), intent(in) :: what
    integer, intent(in) :: bounds(5), envelope(4)
    integer, intent(in) :: ints(:)
    integer(kind=MPI_ADDRESS_KIND), intent(in), optional :: addrs(:)
    DT_T, intent(in), optional :: type1
    integer :: gi(envelope(2))
    integer(kind=MPI_ADDRESS_KIND) :: ga(max(1, envelope(3)))
    DT_T :: gt(envelope(4))
    logical :: ok
    call expect_bounds(t, bounds(1), bounds(2), bounds(3), bounds(4), bounds(5), what)
    call expect_envelope(t, envelope(1), envelope(2), envelope(3), envelope(4), what)
    gi = -7
    call MPI_Type_get_contents(t, envelope(2), envelope(3), envelope(4), gi, ga, gt, ierr)
    ok = ierr == MPI_SUCCESS .and. all(gi == ints)
    if (present(addrs)) ok = ok .and. all(ga(1:size(addrs)) == addrs)
    if (present(type1)) ok = ok .and. gt(1) == type1
    call check(ok, 'MPI_Type_get_contents of ' // what)
  end subroutine

  ! The envelope of t: combiner and the three counts.
  subroutine expect_envelope(t, combiner, ni, na, nd, what)
    DT_T, intent(in) :: t
    integer, intent(in) :: combiner, ni, na, nd
    character(len=*), intent(in) :: what
    integer :: gi, ga, gd, gc
    character(len=200) :: msg
    call MPI_Type_get_envelope(t, gi, ga, gd, gc, ierr)
    write (msg, '(a, 4(1x, i0), a, 4(1x, i0))') ': combiner, ni, na, nd', gc, gi, ga, gd, ', expected', &
        combiner, ni, na, nd
    call check(ierr == MPI_SUCCESS .and. gc == combiner .and. gi == ni .and. ga == na .and. gd == nd, &
               'MPI_Type_get_envelope of ' // what // trim(msg))
  end subroutine

  ! The string MPI_TYPE_GET_NAME gives for t (or MPI_ERROR_STRING for
  ! CODE) in a buffer of 'x' before: WANT, RESULTLEN its length, blanks
  ! after it.
  subroutine expect_string(want, what, t, code)
    character(len=*), intent(in) :: want, what
    DT_T, intent(in), optional :: t
    integer, intent(in), optional :: code
    character(len=MPI_MAX_OBJECT_NAME) :: name
    character(len=MPI_MAX_ERROR_STRING) :: s
    character(len=max(MPI_MAX_OBJECT_NAME, MPI_MAX_ERROR_STRING)) :: got
    integer :: n
    if (present(t)) then
      name = repeat('x', len(name))
      call MPI_Type_get_name(t, name, n, ierr)
      got = name
    else
      s = repeat('x', len(s))
      call MPI_Error_string(code, s, n, ierr)
      got = s
    end if
    call check(ierr == MPI_SUCCESS .and. n == len(want) .and. got(1:len(want)) == want, what)
    call check(got(len(want) + 1:) == ' ', what // ': blank-padded')
  end subroutine

  ! MPI_ERROR_CLASS of CODE is WANT.
  subroutine expect_class(code, want, what)
    integer, intent(in) :: code, want
    character(len=*), intent(in) :: what
    integer :: cls
    call MPI_Error_class(code, cls, ierr)
    call check(ierr == MPI_SUCCESS .and. cls == want, what)
  end subroutine

  ! The error handler of MPI_COMM_WORLD and MPI_COMM_SELF: EH.
  subroutine set_errhandlers(eh)
    ERRH_T, intent(in) :: eh
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh, ierr)
    call MPI_Comm_set_errhandler(MPI_COMM_SELF, eh, ierr)
  end subroutine

  ! Size, lower bound, extent, true lower bound and true extent of t, by
  ! the MPI_Aint and the MPI_Count procedures.
  subroutine expect_bounds(t, size, lb, extent, true_lb, true_extent, what)
    DT_T, intent(in) :: t
    integer, intent(in) :: size, lb, extent, true_lb, true_extent
    character(len=*), intent(in) :: what
    integer :: n
    integer(kind=MPI_ADDRESS_KIND) :: a1, a2
    integer(kind=MPI_COUNT_KIND) :: c1, c2
    call MPI_Type_size(t, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == size, 'MPI_Type_size of ' // what)
    call MPI_Type_size_x(t, c1, ierr)
    call check(ierr == MPI_SUCCESS .and. c1 == size, 'MPI_Type_size_x of ' // what)
    call MPI_Type_get_extent(t, a1, a2, ierr)
    call check(ierr == MPI_SUCCESS .and. a1 == lb .and. a2 == extent, 'MPI_Type_get_extent of ' // what)
    call MPI_Type_get_extent_x(t, c1, c2, ierr)
    call check(ierr == MPI_SUCCESS .and. c1 == lb .and. c2 == extent, 'MPI_Type_get_extent_x of ' // what)
    call MPI_Type_get_true_extent(t, a1, a2, ierr)
    call check(ierr == MPI_SUCCESS .and. a1 == true_lb .and. a2 == true_extent, &
               'MPI_Type_get_true_extent of ' // what)
    call MPI_Type_get_true_extent_x(t, c1, c2, ierr)
    call check(ierr == MPI_SUCCESS .and. c1 == true_lb .and. c2 == true_extent, &
               'MPI_Type_get_true_extent_x of ' // what)
  end subroutine

  subroutine free_type(t, what)
    DT_T, intent(inout) :: t
    character(len=*), intent(in) :: what
    call MPI_Type_free(t, ierr)
    call check(ierr == MPI_SUCCESS .and. t == MPI_DATATYPE_NULL, 'MPI_Type_free of ' // what)
  end subroutine

  ! ======================================================================
  subroutine environment()
    integer :: v, sv, got, n, i
    character(len=MPI_MAX_PROCESSOR_NAME) :: pname
    double precision :: t0, t1, tick

    call MPI_Initialized(flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Initialized after MPI_Init')
    call MPI_Finalized(flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Finalized before MPI_Finalize')

    call MPI_Get_version(v, sv, ierr)
    call check(ierr == MPI_SUCCESS .and. v == MPI_VERSION, 'MPI_Get_version: VERSION is MPI_VERSION')
#ifdef RDMACH_MPICH_BUILD
    ! MPICH 4.0.2's header says 4.0; the library may be newer (rdmach: 4.1)
    call check(sv >= MPI_SUBVERSION, 'MPI_Get_version: SUBVERSION at least the header''s MPI_SUBVERSION')
#else
    call check(sv == MPI_SUBVERSION, 'MPI_Get_version: SUBVERSION is MPI_SUBVERSION')
    call check(MPI_VERSION == 4 .and. MPI_SUBVERSION == 1, 'MPI_VERSION, MPI_SUBVERSION: 4.1')
#endif
    call library_version('', .true.)

    pname = repeat('x', len(pname))
    call MPI_Get_processor_name(pname, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n > 0 .and. n <= MPI_MAX_PROCESSOR_NAME, &
               'MPI_Get_processor_name: 0 < RESULTLEN <= MPI_MAX_PROCESSOR_NAME')
    call check(len_trim(pname) == n, 'MPI_Get_processor_name: RESULTLEN characters, then blanks')
    if (n < len(pname)) call check(pname(n + 1:) == ' ', 'MPI_Get_processor_name: blank-padded')

    call MPI_Query_thread(got, ierr)
    call check(ierr == MPI_SUCCESS .and. got == provided, 'MPI_Query_thread: what MPI_Init_thread provided')
    call check(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED .and. MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &
               .and. MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE, 'the thread levels are monotonic')
    call check(provided >= MPI_THREAD_SINGLE .and. provided <= MPI_THREAD_MULTIPLE, &
               'MPI_Init_thread: PROVIDED a thread level')
    call MPI_Is_thread_main(flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Is_thread_main on the thread that called MPI_Init_thread')

    tick = MPI_Wtick()
    call check(tick > 0d0 .and. tick < 1d0, 'MPI_Wtick: positive, under a second')
    t0 = MPI_Wtime()
    t1 = t0
    do i = 1, 100000000
      t1 = MPI_Wtime()
      call check(t1 >= t0, 'MPI_Wtime never goes back')
      if (t1 > t0) exit
    end do
    call check(t1 > t0, 'MPI_Wtime advances')
  end subroutine

  ! MPI_GET_LIBRARY_VERSION (§9.1.1): RESULTLEN at most
  ! MPI_MAX_LIBRARY_VERSION_STRING, VERSION padded on the right with blanks.
  subroutine library_version(when, may_abort)
    character(len=*), intent(in) :: when
    logical, intent(in) :: may_abort
    character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
    integer :: n, e
    logical :: ok
    lib = repeat('x', len(lib))
    call MPI_Get_library_version(lib, n, e)
    ok = e == MPI_SUCCESS .and. n > 0 .and. n <= MPI_MAX_LIBRARY_VERSION_STRING
    if (ok .and. n < len(lib)) ok = lib(n + 1:) == ' '
    if (ok) ok = len_trim(lib(1:n)) > 0
    if (may_abort) then
      call check(ok, 'MPI_Get_library_version ' // when // ': RESULTLEN, blank padding')
    else
      call early_check(ok, 'MPI_Get_library_version ' // when // ': RESULTLEN, blank padding')
    end if
  end subroutine

  ! ======================================================================
  ! contiguous, vector, hvector, indexed, hindexed, indexed_block,
  ! hindexed_block, resized, dup: every one sent to the right neighbour.
  subroutine simple_constructors()
    integer :: a(12), m(4, 3), m2(4, 3), i, j, n, want(12), ints(8)
    double precision :: d(15), dwant(15)
    DT_T :: t, t2, t3, types(2)
    integer(kind=MPI_ADDRESS_KIND) :: disp(3), addrs(2)
    STATUS_DECL(st)

    a = ival(rank, [(i, i = 1, 12)])
    d = dval(rank, [(i, i = 1, 15)])
    m = reshape(a, [4, 3])

    ! ---- MPI_TYPE_CONTIGUOUS(5, MPI_INTEGER): 2 of them ----
    call MPI_Type_contiguous(5, MPI_INTEGER, t, ierr)
    call committed(t, ierr == MPI_SUCCESS .and. t /= MPI_DATATYPE_NULL, 'MPI_Type_contiguous')
    want = [ival(left, [(i, i = 1, 10)]), -1, -1]
    call exchange(12, 2, t, 12, MPI_INTEGER, 1, st, 'MPI_Type_contiguous(5, MPI_INTEGER) x 2', is=a, want=want)
    call MPI_Get_count(st, MPI_INTEGER, n, ierr)
    call check(n == 10, 'MPI_Type_contiguous: 10 INTEGERs arrive')
    call expect_type(t, 'a contiguous type: 5, MPI_INTEGER (the same handle)', [20, 0, 20, 0, 20], &
                     [MPI_COMBINER_CONTIGUOUS, 1, 0, 1], [5], type1=MPI_INTEGER)
    ! on the receive side: 10 INTEGERs into 2 of the type
    call exchange(12, 10, MPI_INTEGER, 2, t, 2, st, 'receiving 2 MPI_Type_contiguous(5, MPI_INTEGER)', is=a, want=want)
    call MPI_Get_count(st, t, n, ierr)
    call check(n == 2, 'MPI_Get_count in the contiguous type')
    call free_type(t, 'a contiguous type')

    ! ---- MPI_TYPE_VECTOR(3, 2, 4, MPI_INTEGER): rows 1:2 of m(4, 3) ----
    call MPI_Type_vector(3, 2, 4, MPI_INTEGER, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_vector')
    want = [ival(left, [1, 2, 5, 6, 9, 10]), (-1, i = 7, 12)]
    call exchange(12, 1, t, 12, MPI_INTEGER, 3, st, 'MPI_Type_vector(3, 2, 4, MPI_INTEGER)', is=m, want=want)
    ! what arrived (want(1:6)) back to the left neighbour; from the right
    ! one, into the type: this rank's rows 1:2, -1 in the others
    m2 = -1
    call MPI_Sendrecv(want, 6, MPI_INTEGER, left, 4, m2, 1, t, right, 4, MPI_COMM_WORLD, st, ierr)
    call expect_i(m2, merge(m, -1, reshape([(mod(i - 1, 4) < 2, i = 1, 12)], [4, 3])), 12, &
                  'receiving into MPI_Type_vector: the rows it names (-1 in the others)')
    call expect_type(t, 'a vector: 3, 2, 4, MPI_INTEGER', [24, 0, 40, 0, 40], [MPI_COMBINER_VECTOR, 3, 0, 1], &
                     [3, 2, 4], type1=MPI_INTEGER)

    ! ---- MPI_TYPE_DUP of the vector ----
    call MPI_Type_dup(t, t2, ierr)
    call check(ierr == MPI_SUCCESS .and. t2 /= t, 'MPI_Type_dup: a new handle')
    call exchange(12, 1, t2, 12, MPI_INTEGER, 5, st, 'MPI_Type_dup of a vector (committed with it)', is=m, want=want)
    call expect_bounds(t2, 24, 0, 40, 0, 40, 'the duplicate of a vector')
    call expect_envelope(t2, MPI_COMBINER_DUP, 0, 0, 1, 'a duplicate')
    call MPI_Type_get_contents(t2, 0, 0, 1, ints, addrs, types, ierr)
    call check(ierr == MPI_SUCCESS .and. types(1) /= MPI_DATATYPE_NULL, 'MPI_Type_get_contents of a duplicate')
    call expect_envelope(types(1), MPI_COMBINER_VECTOR, 3, 0, 1, 'the type MPI_Type_get_contents of a duplicate gives')
    call free_type(types(1), 'the type from MPI_Type_get_contents')
    call free_type(t2, 'a duplicate')
    ! a duplicate of a predefined type: its contents are the same handle
    call MPI_Type_dup(MPI_DOUBLE_PRECISION, t2, ierr)
    call check(ierr == MPI_SUCCESS .and. t2 /= MPI_DOUBLE_PRECISION, 'MPI_Type_dup of MPI_DOUBLE_PRECISION')
    call expect_envelope(t2, MPI_COMBINER_DUP, 0, 0, 1, 'a duplicate of MPI_DOUBLE_PRECISION')
    call MPI_Type_get_contents(t2, 0, 0, 1, ints, addrs, types, ierr)
    call check(ierr == MPI_SUCCESS .and. types(1) == MPI_DOUBLE_PRECISION, &
               'MPI_Type_get_contents of a duplicate of MPI_DOUBLE_PRECISION: the same handle')
    call exchange(15, 3, t2, 15, MPI_DOUBLE_PRECISION, 16, st, 'a duplicate of MPI_DOUBLE_PRECISION (committed) sent', &
                  ds=d, dwant=dval(left, [1, 2, 3]))
    call free_type(t2, 'a duplicate of MPI_DOUBLE_PRECISION')

    ! ---- MPI_TYPE_CREATE_RESIZED: a column of m, extent 1 INTEGER: the
    ! transpose ----
    call MPI_Type_vector(3, 1, 4, MPI_INTEGER, t2, ierr)
    call MPI_Type_create_resized(t2, 0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND, t3, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_create_resized')
    call free_type(t2, 'a vector (a resized type still uses it)')
    call MPI_Type_commit(t3, ierr)
    call exchange(12, 4, t3, 12, MPI_INTEGER, 6, st, 'a vector resized to one INTEGER: the transpose', is=m, &
                  want=ival(left, [((i + 4 * (j - 1), j = 1, 3), i = 1, 4)]))
    call expect_bounds(t3, 12, 0, 4, 0, 36, 'a resized vector')
    call expect_envelope(t3, MPI_COMBINER_RESIZED, 0, 2, 1, 'a resized type')
    call MPI_Type_get_contents(t3, 0, 2, 1, ints, addrs, types, ierr)
    call check(ierr == MPI_SUCCESS .and. addrs(1) == 0 .and. addrs(2) == 4, &
               'MPI_Type_get_contents of a resized type: lb 0, extent 4')
    call expect_envelope(types(1), MPI_COMBINER_VECTOR, 3, 0, 1, 'the old type of a resized type')
    call free_type(types(1), 'the type from MPI_Type_get_contents')
    call free_type(t3, 'a resized type')
    call free_type(t, 'a vector')

    ! a negative lower bound: MPI_INTEGER at -4 with extent 12; element k
    ! of a count starts 12 (k - 1) bytes on
    call MPI_Type_create_resized(MPI_INTEGER, -4_MPI_ADDRESS_KIND, 12_MPI_ADDRESS_KIND, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_create_resized of MPI_INTEGER')
    call exchange(12, 3, t, 12, MPI_INTEGER, 7, st, 'MPI_INTEGER resized to lb -4, extent 12', is=a, &
                  want=ival(left, [1, 4, 7]))
    call expect_bounds(t, 4, -4, 12, 0, 4, 'MPI_INTEGER resized to lb -4, extent 12')
    call free_type(t, 'a resized MPI_INTEGER')

    ! ---- MPI_TYPE_CREATE_HVECTOR(3, 2, 40 bytes, MPI_DOUBLE_PRECISION) ----
    call MPI_Type_create_hvector(3, 2, 40_MPI_ADDRESS_KIND, MPI_DOUBLE_PRECISION, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_create_hvector')
    call exchange(15, 1, t, 15, MPI_DOUBLE_PRECISION, 8, st, 'MPI_Type_create_hvector(3, 2, 40, MPI_DOUBLE_PRECISION)', &
                  ds=d, dwant=dval(left, [1, 2, 6, 7, 11, 12]))
    call expect_type(t, 'an hvector: 3, 2; 40', [48, 0, 96, 0, 96], [MPI_COMBINER_HVECTOR, 2, 1, 1], [3, 2], &
                     [40_MPI_ADDRESS_KIND], MPI_DOUBLE_PRECISION)
    call free_type(t, 'an hvector')

    ! ---- MPI_TYPE_INDEXED([2, 1, 3], [0, 4, 7], MPI_INTEGER) ----
    call MPI_Type_indexed(3, [2, 1, 3], [0, 4, 7], MPI_INTEGER, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_indexed')
    call exchange(12, 1, t, 12, MPI_INTEGER, 9, st, 'MPI_Type_indexed([2, 1, 3], [0, 4, 7])', is=a, &
                  want=ival(left, [1, 2, 5, 8, 9, 10]))
    ! the receive side: 6 INTEGERs scattered by the type
    want = -1
    want([1, 2, 5, 8, 9, 10]) = ival(left, [(i, i = 1, 6)])
    call exchange(12, 6, MPI_INTEGER, 1, t, 10, st, 'receiving into MPI_Type_indexed', is=a, want=want)
    call expect_type(t, 'an indexed type', [24, 0, 40, 0, 40], [MPI_COMBINER_INDEXED, 7, 0, 1], [3, 2, 1, 3, 0, 4, 7])
    call free_type(t, 'an indexed type')

    ! ---- MPI_TYPE_CREATE_HINDEXED([1, 2], [32, 0] bytes, MPI_DOUBLE_PRECISION) ----
    disp(1:2) = [32_MPI_ADDRESS_KIND, 0_MPI_ADDRESS_KIND]
    call MPI_Type_create_hindexed(2, [1, 2], disp, MPI_DOUBLE_PRECISION, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_create_hindexed')
    call exchange(15, 1, t, 15, MPI_DOUBLE_PRECISION, 11, st, &
                  'MPI_Type_create_hindexed([1, 2], [32, 0]): the type map''s order', ds=d, dwant=dval(left, [5, 1, 2]))
    call expect_type(t, 'an hindexed type', [24, 0, 40, 0, 40], [MPI_COMBINER_HINDEXED, 3, 2, 1], [2, 1, 2], disp(1:2))
    call free_type(t, 'an hindexed type')

    ! ---- MPI_TYPE_CREATE_INDEXED_BLOCK(3, 2, [1, 5, 9], MPI_INTEGER) ----
    call MPI_Type_create_indexed_block(3, 2, [1, 5, 9], MPI_INTEGER, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_create_indexed_block')
    call exchange(12, 1, t, 12, MPI_INTEGER, 12, st, 'MPI_Type_create_indexed_block(3, 2, [1, 5, 9])', is=a, &
                  want=ival(left, [2, 3, 6, 7, 10, 11]))
    call expect_type(t, 'an indexed_block type', [24, 4, 40, 4, 40], [MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1], &
                     [3, 2, 1, 5, 9])
    call free_type(t, 'an indexed_block type')

    ! ---- MPI_TYPE_CREATE_HINDEXED_BLOCK(3, 1, [0, 24, 8], MPI_DOUBLE_PRECISION) ----
    disp = [0_MPI_ADDRESS_KIND, 24_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND]
    call MPI_Type_create_hindexed_block(3, 1, disp, MPI_DOUBLE_PRECISION, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_create_hindexed_block')
    call exchange(15, 1, t, 15, MPI_DOUBLE_PRECISION, 13, st, 'MPI_Type_create_hindexed_block(3, 1, [0, 24, 8])', &
                  ds=d, dwant=dval(left, [1, 4, 2]))
    ! and into it: the order of the map on the receive side
    dwant = -1
    dwant([1, 4, 2]) = dval(left, [1, 2, 3])
    call exchange(15, 3, MPI_DOUBLE_PRECISION, 1, t, 14, st, 'receiving into MPI_Type_create_hindexed_block', &
                  ds=d, dwant=dwant)
    call MPI_Get_elements(st, t, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 3, 'MPI_Get_elements in an hindexed_block type')
    call expect_type(t, 'an hindexed_block type', [24, 0, 32, 0, 32], [MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1], &
                     [3, 1], disp)
    call free_type(t, 'an hindexed_block type')

    ! ---- MPI_GET_ELEMENTS(_X), MPI_GET_COUNT of a partial derived type ----
    call MPI_Type_contiguous(2, MPI_INTEGER, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_contiguous(2, MPI_INTEGER)')
    call exchange(12, 5, MPI_INTEGER, 3, t, 15, st, '5 INTEGERs into 3 of contiguous(2)', is=a, &
                  want=ival(left, [(i, i = 1, 5)]))
    call MPI_Get_count(st, t, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == MPI_UNDEFINED, &
               'MPI_Get_count of 5 INTEGERs in contiguous(2): MPI_UNDEFINED')
    call MPI_Get_elements(st, t, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 5, 'MPI_Get_elements of 5 INTEGERs in contiguous(2)')
    call get_elements_x(st, t, 5, 'MPI_Get_elements_x of 5 INTEGERs in contiguous(2)')
    call MPI_Get_elements(st, MPI_INTEGER, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 5, 'MPI_Get_elements in MPI_INTEGER')
    call free_type(t, 'contiguous(2)')
  end subroutine

  subroutine get_elements_x(st, t, n, what)
    STATUS_DECL(st)
    DT_T, intent(in) :: t
    integer, intent(in) :: n
    character(len=*), intent(in) :: what
    integer(kind=MPI_COUNT_KIND) :: c
    c = -1
    call MPI_Get_elements_x(st, t, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c == n, what)
  end subroutine

  ! ======================================================================
  ! MPI_TYPE_CREATE_STRUCT of a SEQUENCE type (INTEGER, DOUBLE PRECISION)
  ! with displacements from MPI_GET_ADDRESS, resized to the distance of two
  ! array elements; a struct holding a derived type.
  subroutine struct_type()
    type(rec_t) :: s(4), r(4)
    integer(kind=MPI_ADDRESS_KIND) :: base, ai, ad, next, disp(2), addrs(2), lb, ext
    integer :: i, n, ints(3)
    DT_T :: t, tr, tc, t2, types(2)
    STATUS_DECL(st)

    s = [(rec_t(ival(rank, i), dval(rank, i)), i = 1, 4)]
    r = rec_t(-1, -1d0)
    call MPI_Get_address(s(1), base, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Get_address')
    call MPI_Get_address(s(1)%i, ai, ierr)
    call MPI_Get_address(s(1)%d, ad, ierr)
    call MPI_Get_address(s(2), next, ierr)
    call check(ai == base .and. ad > ai .and. next > ad, 'MPI_Get_address of the components')
    disp = [ai - base, ad - base]
    call MPI_Type_create_struct(2, [1, 1], disp, [MPI_INTEGER, MPI_DOUBLE_PRECISION], t, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_create_struct')
    call MPI_Type_get_true_extent(t, lb, ext, ierr)
    call check(lb == 0 .and. ext == disp(2) + 8, 'MPI_Type_get_true_extent of a struct')
    call MPI_Type_get_extent(t, lb, ext, ierr)
    call check(lb == 0 .and. ext >= disp(2) + 8, 'MPI_Type_get_extent of a struct: lb 0, at least its data')
    call MPI_Type_create_resized(t, 0_MPI_ADDRESS_KIND, next - base, tr, ierr)
    call MPI_Type_commit(tr, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_commit of a resized struct')
    call expect_bounds(tr, 12, 0, int(next - base), 0, int(disp(2)) + 8, 'a struct resized to its stride')
    call MPI_Sendrecv(s, 3, tr, right, 20, r, 3, tr, left, 20, MPI_COMM_WORLD, st, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Sendrecv of 3 structs')
    do i = 1, 3
      call check(r(i)%i == ival(left, i) .and. r(i)%d == dval(left, i), &
                 'MPI_Type_create_struct: a record received')
    end do
    call check(r(4)%i == -1 .and. r(4)%d == -1, 'MPI_Type_create_struct: 3 records only')
    call MPI_Get_count(st, tr, n, ierr)
    call check(n == 3, 'MPI_Get_count of structs')
    call MPI_Get_elements(st, tr, n, ierr)
    call check(n == 6, 'MPI_Get_elements of 3 structs: 6 basic elements')
    call get_elements_x(st, tr, 6, 'MPI_Get_elements_x of 3 structs')
    ! 1 INTEGER, 1 DOUBLE PRECISION, 1 INTEGER into 2 records: 3 basic
    ! elements, not a whole number of records
    r%i = -1
    r%d = -1
    call MPI_Type_create_struct(3, [1, 1, 1], [disp, next - base], [MPI_INTEGER, MPI_DOUBLE_PRECISION, &
                                MPI_INTEGER], tc, ierr)
    call MPI_Type_commit(tc, ierr)
    call MPI_Sendrecv(s, 1, tc, right, 21, r, 2, tr, left, 21, MPI_COMM_WORLD, st, ierr)
    call check(ierr == MPI_SUCCESS .and. r(1)%i == ival(left, 1) .and. r(1)%d == dval(left, 1) .and. &
               r(2)%i == ival(left, 2) .and. r(2)%d == -1, 'a record and a half received')
    call MPI_Get_count(st, tr, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == MPI_UNDEFINED, 'MPI_Get_count of a record and a half: MPI_UNDEFINED')
    call MPI_Get_elements(st, tr, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 3, 'MPI_Get_elements of a record and a half: 3')
    call get_elements_x(st, tr, 3, 'MPI_Get_elements_x of a record and a half')
    call free_type(tc, 'a struct')
    call expect_envelope(t, MPI_COMBINER_STRUCT, 3, 2, 2, 'a struct')
    call MPI_Type_get_contents(t, 3, 2, 2, ints, addrs, types, ierr)
    call check(ierr == MPI_SUCCESS .and. all(ints == [2, 1, 1]) .and. all(addrs == disp), &
               'MPI_Type_get_contents of a struct: counts, displacements')
    call check(types(1) == MPI_INTEGER .and. types(2) == MPI_DOUBLE_PRECISION, &
               'MPI_Type_get_contents of a struct: the predefined types, the same handles')
    call free_type(tr, 'a resized struct')
    call free_type(t, 'a struct')

    ! a struct of a DOUBLE PRECISION and contiguous(2, MPI_INTEGER)
    call MPI_Type_contiguous(2, MPI_INTEGER, tc, ierr)
    disp = [0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND]
    call MPI_Type_create_struct(2, [1, 1], disp, [MPI_DOUBLE_PRECISION, tc], t2, ierr)
    call free_type(tc, 'contiguous(2) (the struct still uses it)')
    call MPI_Type_get_contents(t2, 3, 2, 2, ints, addrs, types, ierr)
    call check(ierr == MPI_SUCCESS .and. types(1) == MPI_DOUBLE_PRECISION, &
               'MPI_Type_get_contents of a struct of a derived type')
    call expect_envelope(types(2), MPI_COMBINER_CONTIGUOUS, 1, 0, 1, &
                         'the derived type in a struct (from MPI_Type_get_contents)')
    call free_type(types(2), 'the type from MPI_Type_get_contents')
    call expect_bounds(t2, 16, 0, 16, 0, 16, 'a struct of a DOUBLE PRECISION and 2 INTEGERs')
    call free_type(t2, 'a struct of a derived type')
  end subroutine

  ! ======================================================================
  ! MPI_TYPE_CREATE_SUBARRAY: g(2:3, 3:5) of g(6, 5), in Fortran order
  ! (sizes 6, 5) and in C order (sizes 5, 6: the same memory).
  subroutine subarray_type()
    character(len=*), parameter :: onames(2) = [character(len=24) :: 'MPI_ORDER_FORTRAN', 'MPI_ORDER_C (sizes 5, 6)']
    integer :: g(6, 5), g2(6, 5), sub(6), contents(8, 2), i, j, o
    logical :: inside(30)
    DT_T :: ts(2)
    STATUS_DECL(st)

    g = reshape(ival(rank, [(i, i = 1, 30)]), [6, 5])
    call MPI_Type_create_subarray(2, [6, 5], [2, 3], [1, 2], MPI_ORDER_FORTRAN, MPI_INTEGER, ts(1), ierr)
    call committed(ts(1), ierr == MPI_SUCCESS, 'MPI_Type_create_subarray, MPI_ORDER_FORTRAN')
    call MPI_Type_create_subarray(2, [5, 6], [3, 2], [2, 1], MPI_ORDER_C, MPI_INTEGER, ts(2), ierr)
    call committed(ts(2), ierr == MPI_SUCCESS, 'MPI_Type_create_subarray, MPI_ORDER_C')
    contents = reshape([2, 6, 5, 2, 3, 1, 2, MPI_ORDER_FORTRAN, 2, 5, 6, 3, 2, 2, 1, MPI_ORDER_C], [8, 2])
    inside = [((i >= 2 .and. i <= 3 .and. j >= 3, i = 1, 6), j = 1, 5)]
    sub = elements(left, inside)
    do o = 1, 2
      call exchange(30, 1, ts(o), 30, MPI_INTEGER, 30 + o, st, &
                    'MPI_Type_create_subarray, ' // trim(onames(o)) // ': g(2:3, 3:5)', is=g, want=sub)
      ! what arrived back to the left neighbour; from the right one, into
      ! the subarray of a second array: this rank's elements, -1 elsewhere
      g2 = -1
      call MPI_Sendrecv(sub, 6, MPI_INTEGER, left, 40 + o, g2, 1, ts(o), right, 40 + o, MPI_COMM_WORLD, st, ierr)
      call expect_i(g2, merge(g, -1, reshape(inside, [6, 5])), 30, 'receiving into a subarray: its elements only')
      ! the whole array's extent; the data's true extent
      call expect_type(ts(o), 'a subarray of a 6 x 5 INTEGER array, ' // trim(onames(o)), [24, 0, 120, 52, 56], &
                       [MPI_COMBINER_SUBARRAY, 8, 0, 1], contents(:, o), type1=MPI_INTEGER)
      call free_type(ts(o), 'a subarray')
    end do
  end subroutine

  ! ======================================================================
  ! MPI_TYPE_CREATE_DARRAY: g(8, 6), BLOCK x CYCLIC (MPI_DISTRIBUTE_DFLT_DARG)
  ! over the grid MPI_DIMS_CREATE makes, MPI_ORDER_FORTRAN and MPI_ORDER_C;
  ! a 1-d CYCLIC(2); CYCLIC(3) x MPI_DISTRIBUTE_NONE.
  ! The process grid is row-major (§5.1.4): rank r is (r / p2, mod(r, p2)).
  subroutine darray_type()
    character(len=*), parameter :: onames(2) = [character(len=17) :: 'MPI_ORDER_FORTRAN', 'MPI_ORDER_C']
    integer :: g(8, 6), v(10), dims(2), ints(12), gsizes(2), order, n, i, j, o
    integer(kind=MPI_ADDRESS_KIND) :: addrs(1), lb, ext
    DT_T :: t, types(1)
    STATUS_DECL(st)

    g = reshape(ival(rank, [(i, i = 1, 48)]), [8, 6])
    dims = 0
    call MPI_Dims_create(nproc, 2, dims, ierr)
    ! MPI_ORDER_C on the same Fortran array: sizes (6, 8), dimension 0 is
    ! g's second (darray_mask)
    do o = 1, 2
      gsizes = merge([8, 6], [6, 8], o == 1)
      order = merge(MPI_ORDER_FORTRAN, MPI_ORDER_C, o == 1)
      call MPI_Type_create_darray(nproc, rank, 2, gsizes, [MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC], &
                                  [MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG], dims, &
                                  order, MPI_INTEGER, t, ierr)
      call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_create_darray, ' // trim(onames(o)))
      call exchange(48, 1, t, 48, MPI_INTEGER, 48 + 2 * o, st, &
                    'MPI_Type_create_darray(BLOCK, CYCLIC), ' // trim(onames(o)), is=g, &
                    want=elements(left, darray_mask(left, dims, o == 2)))
      call MPI_Get_count(st, MPI_INTEGER, n, ierr)
      call check(n == count(darray_mask(left, dims, o == 2)), &
                 'MPI_Type_create_darray: as many INTEGERs as the left neighbour''s block')
      call MPI_Type_size(t, n, ierr)
      call check(n == 4 * count(darray_mask(rank, dims, o == 2)), 'MPI_Type_size of a darray')
      call MPI_Type_get_extent(t, lb, ext, ierr)
      call check(lb == 0 .and. ext == 8 * 6 * 4, 'MPI_Type_get_extent of a darray: the whole array''s')
      call expect_envelope(t, MPI_COMBINER_DARRAY, 12, 0, 1, 'a darray')
      call MPI_Type_get_contents(t, 12, 0, 1, ints, addrs, types, ierr)
      call check(ierr == MPI_SUCCESS .and. all(ints == [nproc, rank, 2, gsizes, MPI_DISTRIBUTE_BLOCK, &
                 MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, dims(1), dims(2), &
                 order]) .and. types(1) == MPI_INTEGER, 'MPI_Type_get_contents of a darray')
      call free_type(t, 'a darray')
    end do

    ! 1-d CYCLIC(2) over all ranks: blocks of 2 dealt round
    v = ival(rank, [(i, i = 1, 10)])
    call MPI_Type_create_darray(nproc, rank, 1, [10], [MPI_DISTRIBUTE_CYCLIC], [2], [nproc], &
                                MPI_ORDER_FORTRAN, MPI_INTEGER, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_create_darray, CYCLIC(2)')
    call exchange(10, 1, t, 10, MPI_INTEGER, 51, st, 'MPI_Type_create_darray, CYCLIC(2)', is=v, &
                  want=elements(left, dealt([(i, i = 1, 10)], 2, left)))
    call MPI_Type_get_extent(t, lb, ext, ierr)
    call check(lb == 0 .and. ext == 40, 'MPI_Type_get_extent of a 1-d darray')
    call free_type(t, 'a darray')

    ! CYCLIC(3) x MPI_DISTRIBUTE_NONE over (nproc, 1): rows in blocks of 3
    ! dealt round, all columns
    call MPI_Type_create_darray(nproc, rank, 2, [8, 6], [MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE], &
                                [3, MPI_DISTRIBUTE_DFLT_DARG], [nproc, 1], MPI_ORDER_FORTRAN, MPI_INTEGER, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_create_darray, CYCLIC(3) x NONE')
    call exchange(48, 1, t, 48, MPI_INTEGER, 53, st, 'MPI_Type_create_darray, CYCLIC(3) x NONE', is=g, &
                  want=elements(left, dealt([((i, i = 1, 8), j = 1, 6)], 3, left)))
    call free_type(t, 'a darray')
  end subroutine

  ! Whether index i is in a block of b indices (blocks dealt round the
  ! ranks, CYCLIC(b)) that rank r gets.
  elemental logical function dealt(i, b, r)
    integer, intent(in) :: i, b, r
    dealt = mod((i - 1) / b, nproc) == r
  end function

  ! Which elements of g(8, 6), in memory order, process r holds in the
  ! BLOCK x CYCLIC darray over the grid dims (rank r at (r / dims(2),
  ! mod(r, dims(2)))): BLOCK over dims(1) along g's i and CYCLIC over
  ! dims(2) along j for MPI_ORDER_FORTRAN (sizes (8, 6)); for MPI_ORDER_C
  ! (C_ORDER; sizes (6, 8), dimension 0 being g's j) BLOCK along j and
  ! CYCLIC along i.
  function darray_mask(r, dims, c_order) result(mine)
    integer, intent(in) :: r, dims(2)
    logical, intent(in) :: c_order
    logical :: mine(48)
    integer :: i, j, bi, bj
    bi = (8 + dims(1) - 1) / dims(1)
    bj = (6 + dims(1) - 1) / dims(1)
    if (c_order) then
      mine = [(((j - 1) / bj == r / dims(2) .and. mod(i - 1, dims(2)) == mod(r, dims(2)), i = 1, 8), j = 1, 6)]
    else
      mine = [(((i - 1) / bi == r / dims(2) .and. mod(j - 1, dims(2)) == mod(r, dims(2)), i = 1, 8), j = 1, 6)]
    end if
  end function

  ! ======================================================================
  ! names, MPI_TYPE_GET_VALUE_INDEX, MPI_TYPE_MATCH_SIZE
  subroutine queries()
    character(len=200) :: long
    integer :: i, k, sz
    DT_T :: t, pair
    real(kind=4) :: r4(3), r4b(3)
    real(kind=8) :: r8(3), r8b(3)
    real(kind=16) :: r16(3), r16b(3)
    integer(kind=1) :: i1(3), i1b(3)
    integer(kind=2) :: i2(3), i2b(3)
    integer(kind=4) :: i4(3), i4b(3)
    integer(kind=8) :: i8(3), i8b(3)
    complex(kind=4) :: c4(3), c4b(3)
    complex(kind=8) :: c8(3), c8b(3)
    complex(kind=16) :: c16(3), c16b(3)
    double precision :: pin(2), pout(2)
    integer :: ipin(2), ipout(2)
    real :: rpin(2), rpout(2)
    real(kind=16) :: q16(2), q16b(2)
    integer :: typeclass(10), size(10)

    ! ---- names ----
    call expect_string('MPI_INTEGER', 'MPI_Type_get_name of MPI_INTEGER: "MPI_INTEGER"', t=MPI_INTEGER)
    call expect_string('MPI_DOUBLE_PRECISION', 'MPI_Type_get_name of MPI_DOUBLE_PRECISION', t=MPI_DOUBLE_PRECISION)
    call MPI_Type_contiguous(3, MPI_INTEGER, t, ierr)
    call expect_string('', 'MPI_Type_get_name of an unnamed type: RESULTLEN 0, all blanks', t=t)
    call MPI_Type_set_name(t, '  my triple   ', ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_set_name')
    call expect_string('  my triple', 'MPI_Type_get_name: leading blanks kept, trailing ones not', t=t)
    do i = 1, len(long)
      long(i:i) = achar(iachar('a') + mod(i - 1, 26))
    end do
    call MPI_Type_set_name(t, long, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_set_name of a name longer than MPI_MAX_OBJECT_NAME')
    call expect_string(long(1:MPI_MAX_OBJECT_NAME), &
                       'MPI_Type_get_name: a long name truncated to MPI_MAX_OBJECT_NAME characters', t=t)
    call free_type(t, 'a named type')

#ifdef HAS_MPI41
    ! ---- MPI_TYPE_GET_VALUE_INDEX (MPI 4.1 §6.9.4) ----
    call MPI_Type_get_value_index(MPI_REAL, MPI_REAL, pair, ierr)
    call check(ierr == MPI_SUCCESS .and. pair == MPI_2REAL, 'MPI_Type_get_value_index(MPI_REAL, MPI_REAL)')
    call MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, pair, ierr)
    call check(ierr == MPI_SUCCESS .and. pair == MPI_2DOUBLE_PRECISION, &
               'MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION)')
    call MPI_Type_get_value_index(MPI_INTEGER, MPI_INTEGER, t, ierr)
    call check(ierr == MPI_SUCCESS .and. t == MPI_2INTEGER, 'MPI_Type_get_value_index(MPI_INTEGER, MPI_INTEGER)')
    call MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_INTEGER, t, ierr)
    call check(ierr == MPI_SUCCESS .and. t == MPI_DATATYPE_NULL, &
               'MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_INTEGER): no such pair, MPI_DATATYPE_NULL')
    call MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, t, ierr)
    call check(ierr == MPI_SUCCESS .and. t == MPI_DOUBLE_INT, 'MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT)')
#else
    pair = MPI_2DOUBLE_PRECISION
#endif
    ! the pair type in MPI_MINLOC: the least value (nproc - r + 0.5 is least
    ! on the last rank), its index
    pin = [nproc - rank + 0.5d0, dble(rank)]
    call MPI_Allreduce(pin, pout, 1, pair, MPI_MINLOC, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS .and. pout(1) == 1.5d0 .and. pout(2) == nproc - 1, &
               'MPI_MINLOC on MPI_2DOUBLE_PRECISION')
    ! MPI_2INTEGER, MPI_2REAL with MPI_MAXLOC: the largest on rank 0, ties
    ! to the least index
    ipin = [10 - mod(rank, 2) * 5, rank]
    call MPI_Allreduce(ipin, ipout, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS .and. all(ipout == [10, 0]), 'MPI_MAXLOC on MPI_2INTEGER')
    rpin = [real(10 - mod(rank, 2) * 5), real(rank)]
    call MPI_Allreduce(rpin, rpout, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS .and. all(rpout == [10.0, 0.0]), 'MPI_MAXLOC on MPI_2REAL')
    ! MPI_REAL16 is REAL*16 (§19.1.9): gfortran's REAL(16), binary128
    q16 = [rank + 1.5_16, 1e-30_16]
    call MPI_Allreduce(q16, q16b, 2, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS .and. q16b(1) == nproc * (nproc + 2) / 2.0_16 .and. &
               abs(q16b(2) - nproc * 1e-30_16) < 1e-40_16, 'MPI_SUM on MPI_REAL16 (REAL(16))')

    ! ---- MPI_TYPE_MATCH_SIZE: a named type of that size, used for a transfer ----
    typeclass = [MPI_TYPECLASS_REAL, MPI_TYPECLASS_REAL, MPI_TYPECLASS_REAL, MPI_TYPECLASS_INTEGER, &
                 MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_INTEGER, &
                 MPI_TYPECLASS_COMPLEX, MPI_TYPECLASS_COMPLEX, MPI_TYPECLASS_COMPLEX]
    size = [4, 8, 16, 1, 2, 4, 8, 8, 16, 32]
    r4 = [(rank + k / 4.0, k = 1, 3)]
    r8 = [(rank + k / 8d0, k = 1, 3)]
    r16 = [(rank + k / 16.0_16 + 1e-25_16, k = 1, 3)]
    i1 = [(int(rank * 10 + k, 1), k = 1, 3)]
    i2 = [(int(rank * 1000 + k, 2), k = 1, 3)]
    i4 = [(rank * 100000 + k, k = 1, 3)]
    i8 = [(rank * 10_8**12 + k, k = 1, 3)]
    c4 = [(cmplx(rank, -k, 4), k = 1, 3)]
    c8 = [(cmplx(rank + 1d-12, -k, 8), k = 1, 3)]
    c16 = [(cmplx(rank + 1e-25_16, -k, 16), k = 1, 3)]
    do k = 1, 10
      t = MPI_DATATYPE_NULL
      call MPI_Type_match_size(typeclass(k), size(k), t, ierr)
      call check(ierr == MPI_SUCCESS .and. t /= MPI_DATATYPE_NULL, 'MPI_Type_match_size')
      call MPI_Type_size(t, sz, ierr)
      call check(sz == size(k), 'MPI_Type_match_size: a type of that size')
      call expect_envelope(t, MPI_COMBINER_NAMED, 0, 0, 0, 'the type MPI_Type_match_size gives')
      select case (k)
      case (1)
        call MPI_Sendrecv(r4, 3, t, right, 60, r4b, 3, t, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(r4b == [(left + i / 4.0, i = 1, 3)]), 'MPI_Type_match_size(REAL, 4): REAL(4) sent')
      case (2)
        call MPI_Sendrecv(r8, 3, t, right, 60, r8b, 3, t, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(r8b == [(left + i / 8d0, i = 1, 3)]), 'MPI_Type_match_size(REAL, 8): REAL(8) sent')
      case (3)
        call MPI_Sendrecv(r16, 3, t, right, 60, r16b, 3, t, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(r16b == [(left + i / 16.0_16 + 1e-25_16, i = 1, 3)]), &
                   'MPI_Type_match_size(REAL, 16): REAL(16) sent')
      case (4)
        call MPI_Sendrecv(i1, 3, t, right, 60, i1b, 3, t, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(i1b == [(int(left * 10 + i, 1), i = 1, 3)]), 'MPI_Type_match_size(INTEGER, 1)')
      case (5)
        call MPI_Sendrecv(i2, 3, t, right, 60, i2b, 3, t, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(i2b == [(int(left * 1000 + i, 2), i = 1, 3)]), 'MPI_Type_match_size(INTEGER, 2)')
      case (6)
        call MPI_Sendrecv(i4, 3, t, right, 60, i4b, 3, t, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(i4b == [(left * 100000 + i, i = 1, 3)]), 'MPI_Type_match_size(INTEGER, 4)')
      case (7)
        call MPI_Sendrecv(i8, 3, t, right, 60, i8b, 3, t, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(i8b == [(left * 10_8**12 + i, i = 1, 3)]), 'MPI_Type_match_size(INTEGER, 8)')
      case (8)
        call MPI_Sendrecv(c4, 3, t, right, 60, c4b, 3, t, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(c4b == [(cmplx(left, -i, 4), i = 1, 3)]), 'MPI_Type_match_size(COMPLEX, 8)')
      case (9)
        call MPI_Sendrecv(c8, 3, t, right, 60, c8b, 3, t, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(c8b == [(cmplx(left + 1d-12, -i, 8), i = 1, 3)]), 'MPI_Type_match_size(COMPLEX, 16)')
      case (10)
        call MPI_Sendrecv(c16, 3, t, right, 60, c16b, 3, t, left, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call check(all(c16b == [(cmplx(left + 1e-25_16, -i, 16), i = 1, 3)]), &
                   'MPI_Type_match_size(COMPLEX, 32)')
      end select
      call check(ierr == MPI_SUCCESS, 'MPI_Sendrecv in the type MPI_Type_match_size gives')
    end do
  end subroutine

  ! ======================================================================
  ! MPI_TYPE_CREATE_F90_REAL / _COMPLEX / _INTEGER (§19.1.9): the type of
  ! the KIND selected_real_kind(p, r) (selected_int_kind(r)), its envelope,
  ! a transfer. The handles are predefined: not freed.
  subroutine f90_types()
    integer, parameter :: sp = selected_real_kind(6, 30), dp = selected_real_kind(15)
    integer, parameter :: zp = selected_real_kind(15, 300), ik9 = selected_int_kind(9)
    integer, parameter :: ik18 = selected_int_kind(18), ik2 = selected_int_kind(2)
    real(kind=sp) :: xs(2), ys(2)
    real(kind=dp) :: xd(2), yd(2)
    complex(kind=zp) :: xz(2), yz(2)
    integer(kind=ik9) :: j9(2), k9(2)
    integer(kind=ik18) :: j18(2), k18(2)
    integer(kind=ik2) :: j2(2), k2(2)
    integer :: n, ints(2)
    integer(kind=MPI_ADDRESS_KIND) :: addrs(1)
    DT_T :: t, types(1)

    call MPI_Type_create_f90_real(6, 30, t, ierr)
    call check(ierr == MPI_SUCCESS .and. t /= MPI_DATATYPE_NULL, 'MPI_Type_create_f90_real(6, 30)')
    call MPI_Type_size(t, n, ierr)
    call check(n == 4 .and. n == storage_size(xs(1)) / 8, 'MPI_Type_create_f90_real(6, 30): 4 bytes')
    call expect_envelope(t, MPI_COMBINER_F90_REAL, 2, 0, 0, 'MPI_Type_create_f90_real(6, 30)')
    call MPI_Type_get_contents(t, 2, 0, 0, ints, addrs, types, ierr)
    call check(ierr == MPI_SUCCESS .and. all(ints == [6, 30]), 'MPI_Type_get_contents of an f90 real: p, r')
    xs = [rank + 0.25_sp, -rank - 0.5_sp]
    call MPI_Sendrecv(xs, 2, t, right, 70, ys, 2, t, left, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. all(ys == [left + 0.25_sp, -left - 0.5_sp]), &
               'REAL(selected_real_kind(6, 30)) sent in MPI_Type_create_f90_real(6, 30)')

    call MPI_Type_create_f90_real(15, MPI_UNDEFINED, t, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_create_f90_real(15, MPI_UNDEFINED)')
    call MPI_Type_size(t, n, ierr)
    call check(n == 8 .and. n == storage_size(xd(1)) / 8, 'MPI_Type_create_f90_real(15, MPI_UNDEFINED): 8 bytes')
    call MPI_Type_get_contents(t, 2, 0, 0, ints, addrs, types, ierr)
    call check(ierr == MPI_SUCCESS .and. all(ints == [15, MPI_UNDEFINED]), &
               'MPI_Type_get_contents of f90 real (15, MPI_UNDEFINED)')
    xd = [rank + 1d-10, 3d0]
    call MPI_Sendrecv(xd, 2, t, right, 71, yd, 2, t, left, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. all(yd == [left + 1d-10, 3d0]), &
               'REAL(selected_real_kind(15)) sent in MPI_Type_create_f90_real(15, MPI_UNDEFINED)')

    call MPI_Type_create_f90_complex(15, 300, t, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_create_f90_complex(15, 300)')
    call MPI_Type_size(t, n, ierr)
    call check(n == 16 .and. n == storage_size(xz(1)) / 8, 'MPI_Type_create_f90_complex(15, 300): 16 bytes')
    call expect_envelope(t, MPI_COMBINER_F90_COMPLEX, 2, 0, 0, 'MPI_Type_create_f90_complex(15, 300)')
    xz = [cmplx(rank, 1d-12, zp), cmplx(-1, rank, zp)]
    call MPI_Sendrecv(xz, 2, t, right, 72, yz, 2, t, left, 72, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. all(yz == [cmplx(left, 1d-12, zp), cmplx(-1, left, zp)]), &
               'COMPLEX(selected_real_kind(15, 300)) sent in MPI_Type_create_f90_complex')

    call MPI_Type_create_f90_integer(9, t, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_create_f90_integer(9)')
    call MPI_Type_size(t, n, ierr)
    call check(n == 4 .and. n == storage_size(j9(1)) / 8, 'MPI_Type_create_f90_integer(9): 4 bytes')
    call expect_envelope(t, MPI_COMBINER_F90_INTEGER, 1, 0, 0, 'MPI_Type_create_f90_integer(9)')
    call MPI_Type_get_contents(t, 1, 0, 0, ints, addrs, types, ierr)
    call check(ierr == MPI_SUCCESS .and. ints(1) == 9, 'MPI_Type_get_contents of an f90 integer: r')
    j9 = [rank, -123456789]
    call MPI_Sendrecv(j9, 2, t, right, 73, k9, 2, t, left, 73, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. all(k9 == [left, -123456789]), 'INTEGER(selected_int_kind(9)) sent')

    call MPI_Type_create_f90_integer(18, t, ierr)
    call MPI_Type_size(t, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 8 .and. n == storage_size(j18(1)) / 8, &
               'MPI_Type_create_f90_integer(18): 8 bytes')
    j18 = [int(rank, ik18), -10_ik18**17]
    call MPI_Sendrecv(j18, 2, t, right, 74, k18, 2, t, left, 74, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. all(k18 == [int(left, ik18), -10_ik18**17]), &
               'INTEGER(selected_int_kind(18)) sent')

    call MPI_Type_create_f90_integer(2, t, ierr)
    call MPI_Type_size(t, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == storage_size(j2(1)) / 8, &
               'MPI_Type_create_f90_integer(2): the size of selected_int_kind(2)')
    j2 = [int(rank, ik2), -99_ik2]
    call MPI_Sendrecv(j2, 2, t, right, 75, k2, 2, t, left, 75, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. all(k2 == [int(left, ik2), -99_ik2]), &
               'INTEGER(selected_int_kind(2)) sent')

    ! every precision the compiler has is one MPI must have (§19.1.9: only
    ! values the compiler does not support are erroneous); the types are
    ! in the "Fortran floating point" group of MPI_SUM (§6.9.2)
    call f90_precision(18, .false.)
    call f90_precision(33, .false.)
    call f90_precision(18, .true.)
    call f90_precision(33, .true.)
  end subroutine

  ! MPI_TYPE_CREATE_F90_REAL (CPLX: _COMPLEX)(p, MPI_UNDEFINED) for
  ! REAL(selected_real_kind(p)): its size; of a COMPLEX 2 x 16 bytes, of a
  ! REAL that of the REAL and an MPI_SUM of such REALs (rank r: r + 1.5 and
  ! 1 + 10**(2-p), whose 10**(2-p) anything less precise than p digits
  ! loses).
  subroutine f90_precision(p, cplx)
    integer, intent(in) :: p
    logical, intent(in) :: cplx
    integer, parameter :: k18 = selected_real_kind(18), k33 = selected_real_kind(33)
    real(kind=k18) :: x18(2), y18(2)
    real(kind=k33) :: x33(2), y33(2)
    integer :: n, e
    logical :: sum_ok
    character(len=60) :: what, summed
    DT_T :: t
    ! the error, if any, reported here rather than by the fatal handler
    call set_errhandlers(MPI_ERRORS_RETURN)
    if (cplx) then
      write (what, '(a, i0, a)') 'MPI_Type_create_f90_complex(', p, ', MPI_UNDEFINED)'
      call MPI_Type_create_f90_complex(p, MPI_UNDEFINED, t, e)
    else
      write (what, '(a, i0, a)') 'MPI_Type_create_f90_real(', p, ', MPI_UNDEFINED)'
      call MPI_Type_create_f90_real(p, MPI_UNDEFINED, t, e)
    end if
    call set_errhandlers(MPI_ERRORS_ARE_FATAL)
    call check(e == MPI_SUCCESS, trim(what) // ': gfortran has this precision')
    if (e /= MPI_SUCCESS) return
    call MPI_Type_size(t, n, ierr)
    if (cplx) then
      call check(n == 2 * storage_size(1.0_16) / 8, trim(what) // ': 2 x 16 bytes')
      return
    end if
    call check(n == merge(storage_size(x18(1)), storage_size(x33(1)), p == 18) / 8, &
               trim(what) // ': the size of its REAL')
    if (p == 18) then
      x18 = [rank + 1.5_k18, 1 + 10.0_k18**(2 - p)]
      call MPI_Allreduce(x18, y18, 2, t, MPI_SUM, MPI_COMM_WORLD, ierr)
      sum_ok = y18(1) == nproc * (nproc + 2) / 2.0_k18 .and. &
               abs(y18(2) - nproc * (1 + 10.0_k18**(2 - p))) <= 10.0_k18**(2 - p) / 10
    else
      x33 = [rank + 1.5_k33, 1 + 10.0_k33**(2 - p)]
      call MPI_Allreduce(x33, y33, 2, t, MPI_SUM, MPI_COMM_WORLD, ierr)
      sum_ok = y33(1) == nproc * (nproc + 2) / 2.0_k33 .and. &
               abs(y33(2) - nproc * (1 + 10.0_k33**(2 - p))) <= 10.0_k33**(2 - p) / 10
    end if
    write (summed, '(a, i0, a)') ': MPI_SUM of REAL(selected_real_kind(', p, '))'
    call check(ierr == MPI_SUCCESS .and. sum_ok, trim(what) // trim(summed))
  end subroutine

#ifdef HAS_DEPRECATED
  ! ======================================================================
  ! The MPI-1 procedures with INTEGER displacements (mpif.h, module mpi):
  ! MPI_ADDRESS on data at fixed addresses (differences of its results),
  ! MPI_TYPE_HVECTOR, _HINDEXED, _STRUCT, _EXTENT, _LB, _UB.
  subroutine deprecated()
    integer :: a1, a5, ai, ad, anext, ext, lb, ub, i, gi, ga, gd, gc
    integer(kind=MPI_ADDRESS_KIND) :: aa, ae
    DT_T :: t, tr
    STATUS_DECL(st)

    sints = [(ival(rank, i), i = 1, 20)]
    ! An address that fits in an INTEGER is returned as it is; one that
    ! does not (a 64-bit address) cannot be: the standards that had
    ! MPI_ADDRESS do not say what then (MPICH returns its low 32 bits and
    ! MPI_ERR_OTHER, without calling the error handler). Its differences
    ! are what programs use: those must be right either way.
    call MPI_Get_address(sints(1), aa, ierr)
    call MPI_Address(sints(1), a1, ierr)
    if (aa == int(aa, kind(a1))) then
      call check(ierr == MPI_SUCCESS .and. a1 == aa, 'MPI_Address: the address, as MPI_Get_address''s')
    end if
    call MPI_Address(sints(5), a5, ierr)
    call check(a5 - a1 == 16, 'MPI_Address: the distance of two elements')

    ! MPI_TYPE_HVECTOR(3, 1, 8 bytes, MPI_INTEGER): sints(1), (3), (5)
    call MPI_Type_hvector(3, 1, 8, MPI_INTEGER, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_hvector')
    call exchange(20, 1, t, 20, MPI_INTEGER, 80, st, 'MPI_Type_hvector(3, 1, 8, MPI_INTEGER)', is=sints, &
                  want=ival(left, [1, 3, 5]))
    call MPI_Type_extent(t, ext, ierr)
    call check(ierr == MPI_SUCCESS .and. ext == 20, 'MPI_Type_extent of an hvector')
    call MPI_Type_get_envelope(t, gi, ga, gd, gc, ierr)
    call check(ierr == MPI_SUCCESS .and. (gc == MPI_COMBINER_HVECTOR .or. gc == MPI_COMBINER_HVECTOR_INTEGER) &
               .and. gi == 2 .and. ga == 1 .and. gd == 1, 'MPI_Type_get_envelope of MPI_Type_hvector''s type')
    call free_type(t, 'an hvector')

    ! MPI_TYPE_HINDEXED([2, 1], [12, 0] bytes, MPI_INTEGER): sints(4:5), (1)
    call MPI_Type_hindexed(2, [2, 1], [12, 0], MPI_INTEGER, t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_hindexed')
    call exchange(20, 1, t, 20, MPI_INTEGER, 81, st, 'MPI_Type_hindexed([2, 1], [12, 0], MPI_INTEGER)', is=sints, &
                  want=ival(left, [4, 5, 1]))
    call MPI_Type_lb(t, lb, ierr)
    call MPI_Type_ub(t, ub, ierr)
    call check(ierr == MPI_SUCCESS .and. lb == 0 .and. ub == 20, 'MPI_Type_lb, MPI_Type_ub of an hindexed type')
    call free_type(t, 'an hindexed type')

    ! MPI_TYPE_STRUCT of rec_t, displacements from MPI_ADDRESS
    srecs = [(rec_t(ival(rank, i), dval(rank, i)), i = 1, 4)]
    rrecs = rec_t(-1, -1d0)
    call MPI_Address(srecs(1), a1, ierr)
    call MPI_Address(srecs(1)%i, ai, ierr)
    call MPI_Address(srecs(1)%d, ad, ierr)
    call MPI_Address(srecs(2), anext, ierr)
    call MPI_Get_address(srecs(1), aa, ierr)
    call MPI_Get_address(srecs(2), ae, ierr)
    call check(anext - a1 == ae - aa .and. ai == a1, 'MPI_Address: distances as MPI_Get_address''s')
    call MPI_Type_struct(2, [1, 1], [ai - a1, ad - a1], [MPI_INTEGER, MPI_DOUBLE_PRECISION], t, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_struct')
    call MPI_Type_get_envelope(t, gi, ga, gd, gc, ierr)
    call check(ierr == MPI_SUCCESS .and. (gc == MPI_COMBINER_STRUCT .or. gc == MPI_COMBINER_STRUCT_INTEGER) &
               .and. gi == 3 .and. ga == 2 .and. gd == 2, 'MPI_Type_get_envelope of MPI_Type_struct''s type')
    call MPI_Type_create_resized(t, 0_MPI_ADDRESS_KIND, ae - aa, tr, ierr)
    call MPI_Type_commit(tr, ierr)
    call MPI_Sendrecv(srecs, 2, tr, right, 82, rrecs, 2, tr, left, 82, MPI_COMM_WORLD, st, ierr)
    do i = 1, 2
      call check(rrecs(i)%i == ival(left, i) .and. rrecs(i)%d == dval(left, i), 'MPI_Type_struct: a record')
    end do
    call check(rrecs(3)%i == -1, 'MPI_Type_struct: 2 records only')
    call MPI_Type_extent(tr, ext, ierr)
    call check(ext == ae - aa, 'MPI_Type_extent of a resized struct')
    call free_type(tr, 'a resized struct')
    call free_type(t, 'a struct')

    ! MPI_LB at -8 and MPI_UB at 16 around an INTEGER: lb -8, extent 24
    call MPI_Type_struct(3, [1, 1, 1], [-8, 0, 16], [MPI_LB, MPI_INTEGER, MPI_UB], t, ierr)
    call committed(t, ierr == MPI_SUCCESS, 'MPI_Type_struct with MPI_LB and MPI_UB')
    call MPI_Type_lb(t, lb, ierr)
    call MPI_Type_ub(t, ub, ierr)
    call MPI_Type_extent(t, ext, ierr)
    call check(ierr == MPI_SUCCESS .and. lb == -8 .and. ub == 16 .and. ext == 24, &
               'MPI_LB and MPI_UB markers: MPI_Type_lb -8, MPI_Type_ub 16, MPI_Type_extent 24')
    call MPI_Type_size(t, i, ierr)
    call check(i == 4, 'MPI_LB and MPI_UB markers: no data')
    call exchange(20, 3, t, 20, MPI_INTEGER, 83, st, 'MPI_LB and MPI_UB markers: 3 INTEGERs 24 bytes apart', &
                  is=sints, want=ival(left, [1, 7, 13]))
    call free_type(t, 'a struct with MPI_LB and MPI_UB')

    ! MPI_TYPE_LB / _UB / _EXTENT of a negative lower bound
    call MPI_Type_create_resized(MPI_INTEGER, -4_MPI_ADDRESS_KIND, 12_MPI_ADDRESS_KIND, t, ierr)
    call MPI_Type_lb(t, lb, ierr)
    call check(ierr == MPI_SUCCESS .and. lb == -4, 'MPI_Type_lb: -4')
    call MPI_Type_ub(t, ub, ierr)
    call check(ierr == MPI_SUCCESS .and. ub == 8, 'MPI_Type_ub: lb + extent')
    call MPI_Type_extent(t, ext, ierr)
    call check(ierr == MPI_SUCCESS .and. ext == 12, 'MPI_Type_extent: 12')
    call free_type(t, 'a resized MPI_INTEGER')
  end subroutine
#endif

  ! ======================================================================
  ! type attributes: MPI_TYPE_DUP_FN copies, MPI_TYPE_NULL_COPY_FN does
  ! not, Fortran callbacks see EXTRA_STATE and the value.
  subroutine type_attributes()
    integer :: kdup, knull, kuser, keys(3), k
    integer(kind=MPI_ADDRESS_KIND) :: v, extra
    DT_T :: t, t2
    logical :: f

    call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, t, ierr)
    extra = 0
    call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, kdup, extra, ierr)
    call check(ierr == MPI_SUCCESS .and. kdup /= MPI_KEYVAL_INVALID, &
               'MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN)')
    call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, knull, extra, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN)')
    extra = 2_MPI_ADDRESS_KIND**40 + rank
    call MPI_Type_create_keyval(copy_plus_one, record_delete, kuser, extra, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_create_keyval with Fortran callbacks')

    call MPI_Type_get_attr(t, kdup, v, f, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. f, 'MPI_Type_get_attr before MPI_Type_set_attr: FLAG false')
    v = 2_MPI_ADDRESS_KIND**35 + 1
    call MPI_Type_set_attr(t, kdup, v, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_set_attr')
    call MPI_Type_set_attr(t, knull, 77_MPI_ADDRESS_KIND, ierr)
    call MPI_Type_set_attr(t, kuser, 100_MPI_ADDRESS_KIND + rank, ierr)
    v = 0
    call MPI_Type_get_attr(t, kdup, v, f, ierr)
    call check(ierr == MPI_SUCCESS .and. f .and. v == 2_MPI_ADDRESS_KIND**35 + 1, &
               'MPI_Type_get_attr: the value set (over 32 bits)')

    copies = 0
    call MPI_Type_dup(t, t2, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_dup of a type with attributes')
    call check(copies == 1, 'MPI_Type_dup: the user copy callback called once')
    call MPI_Type_get_attr(t2, kdup, v, f, ierr)
    call check(f .and. v == 2_MPI_ADDRESS_KIND**35 + 1, 'MPI_Type_dup copies through MPI_TYPE_DUP_FN')
    call MPI_Type_get_attr(t2, knull, v, f, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. f, 'MPI_Type_dup: nothing through MPI_TYPE_NULL_COPY_FN')
    call MPI_Type_get_attr(t2, kuser, v, f, ierr)
    call check(f .and. v == 101 + rank, 'MPI_Type_dup: the user copy callback''s value')
    call check(seen_extra == 2_MPI_ADDRESS_KIND**40 + rank, 'the copy callback gets EXTRA_STATE')

    deletes = 0
    call MPI_Type_delete_attr(t2, kuser, ierr)
    call check(ierr == MPI_SUCCESS .and. deletes == 1 .and. deleted_value == 101 + rank, &
               'MPI_Type_delete_attr calls the delete callback with the value')
    call MPI_Type_get_attr(t2, kuser, v, f, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. f, 'MPI_Type_get_attr after MPI_Type_delete_attr: FLAG false')
    call MPI_Type_set_attr(t2, kuser, 200_MPI_ADDRESS_KIND + rank, ierr)
    call check(ierr == MPI_SUCCESS .and. deletes == 1, 'MPI_Type_set_attr of an absent attribute deletes nothing')
    call MPI_Type_set_attr(t2, kuser, 300_MPI_ADDRESS_KIND + rank, ierr)
    call check(ierr == MPI_SUCCESS .and. deletes == 2 .and. deleted_value == 200 + rank, &
               'MPI_Type_set_attr over a value: the delete callback with the old value first')
    call MPI_Type_get_attr(t2, kuser, v, f, ierr)
    call check(f .and. v == 300 + rank, 'MPI_Type_get_attr: the value set last')

    ! the keyvals freed while types hold attributes of them: their
    ! callbacks stay until those go (§7.7.4)
    keys = [kuser, knull, kdup]
    do k = 1, 3
      call MPI_Type_free_keyval(keys(k), ierr)
      call check(ierr == MPI_SUCCESS .and. keys(k) == MPI_KEYVAL_INVALID, &
                 'MPI_Type_free_keyval sets MPI_KEYVAL_INVALID')
    end do
    ! freeing a type deletes its attributes: the duplicate first (the
    ! original is not referred to by any other type then)
    deletes = 0
    seen_extra = 0
    call free_type(t2, 'a duplicate with attributes')
    call check(deletes == 1 .and. deleted_value == 300 + rank, &
               'MPI_Type_free calls the delete callback of a freed keyval with the value')
    call check(seen_extra == 2_MPI_ADDRESS_KIND**40 + rank, 'the delete callback gets EXTRA_STATE')
    deletes = 0
    call free_type(t, 'a type with attributes')
    call check(deletes == 1 .and. deleted_value == 100 + rank, &
               'MPI_Type_free of the original: the delete callback with its value')
  end subroutine

  ! ======================================================================
  ! MPI_PACK / MPI_UNPACK / MPI_PACK_SIZE: a vector of m and 2 DOUBLE
  ! PRECISIONs, unpacked here and sent as MPI_PACKED.
  subroutine packing()
    integer :: m(4, 3), got(6), want(6), sz1, sz2, pos, pos2, i, n
    double precision :: d(2), dgot(2)
    character :: buf(200), rbuf(200)
    DT_T :: t
    STATUS_DECL(st)

    m = reshape([(ival(rank, i), i = 1, 12)], [4, 3])
    d = [dval(rank, 1), dval(rank, 2)]
    call MPI_Type_vector(3, 2, 4, MPI_INTEGER, t, ierr)
    call MPI_Type_commit(t, ierr)
    call MPI_Pack_size(1, t, MPI_COMM_WORLD, sz1, ierr)
    call check(ierr == MPI_SUCCESS .and. sz1 >= 24, 'MPI_Pack_size of a vector of 6 INTEGERs')
    call MPI_Pack_size(2, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, sz2, ierr)
    call check(ierr == MPI_SUCCESS .and. sz2 >= 16, 'MPI_Pack_size of 2 DOUBLE PRECISIONs')
    pos = 0
    call MPI_Pack(m, 1, t, buf, size(buf), pos, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS .and. pos > 0 .and. pos <= sz1, 'MPI_Pack of a vector: POSITION advances')
    call MPI_Pack(d, 2, MPI_DOUBLE_PRECISION, buf, size(buf), pos, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS .and. pos <= sz1 + sz2, 'MPI_Pack: at most MPI_Pack_size''s bytes')

    pos2 = 0
    got = -1
    dgot = -1
    call MPI_Unpack(buf, pos, pos2, got, 6, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call MPI_Unpack(buf, pos, pos2, dgot, 2, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS .and. pos2 == pos, 'MPI_Unpack: POSITION to the end of the packed data')
    want = [m(1:2, 1), m(1:2, 2), m(1:2, 3)]
    call expect_i(got, want, 6, 'MPI_Unpack of a packed vector')
    call expect_d(dgot, d, 2, 'MPI_Unpack of packed DOUBLE PRECISIONs')

    ! sent as MPI_PACKED, unpacked by the right neighbour
    call MPI_Sendrecv(buf, pos, MPI_PACKED, right, 90, rbuf, size(rbuf), MPI_PACKED, left, 90, &
                      MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_PACKED, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == pos, 'MPI_PACKED: as many bytes as were packed')
    pos2 = 0
    m = -1
    call MPI_Unpack(rbuf, n, pos2, m, 1, t, MPI_COMM_WORLD, ierr)
    call MPI_Unpack(rbuf, n, pos2, dgot, 2, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS .and. pos2 == n, 'MPI_Unpack of received MPI_PACKED data')
    do i = 1, 12
      if (mod(i - 1, 4) < 2) then
        call check(m(mod(i - 1, 4) + 1, (i - 1) / 4 + 1) == ival(left, i), 'MPI_Unpack into a vector: its elements')
      else
        call check(m(mod(i - 1, 4) + 1, (i - 1) / 4 + 1) == -1, 'MPI_Unpack into a vector: nothing else')
      end if
    end do
    call check(dgot(1) == dval(left, 1) .and. dgot(2) == dval(left, 2), 'MPI_Unpack of received DOUBLE PRECISIONs')
    call free_type(t, 'a vector')
  end subroutine

  ! ======================================================================
  ! MPI_PACK_EXTERNAL "external32" (§5.2.3, 19.1.19: big-endian, IEEE):
  ! INTEGER 4 bytes, REAL 4, DOUBLE PRECISION 8, COMPLEX 2 x 4.
  subroutine external32()
    integer(kind=1) :: buf(100)
    integer :: iv(3), igot(3), m(4, 3), mgot(6), i, want(48)
    integer(kind=2) :: i2, i2b
    integer(kind=8) :: i8, i8b
    character :: ch, chb
    complex(kind=8) :: z, zb
    real(kind=16) :: q, qb
    complex(kind=16) :: qz, qzb
    real :: r, rgot
    double precision :: d, dgot
    complex :: c, cgot
    integer(kind=MPI_ADDRESS_KIND) :: pos, pos2, sz
    DT_T :: t

    iv = [1, 258, -2]
    r = -2.0
    d = 1.0d0
    c = (1.0, -2.0)
    call MPI_Pack_external_size('external32', 3, MPI_INTEGER, sz, ierr)
    call check(ierr == MPI_SUCCESS .and. sz == 12, 'MPI_Pack_external_size of 3 INTEGERs: 12')
    call MPI_Pack_external_size('external32', 1, MPI_DOUBLE_PRECISION, sz, ierr)
    call check(ierr == MPI_SUCCESS .and. sz == 8, 'MPI_Pack_external_size of DOUBLE PRECISION: 8')
    call MPI_Pack_external_size('external32', 1, MPI_REAL, sz, ierr)
    call check(ierr == MPI_SUCCESS .and. sz == 4, 'MPI_Pack_external_size of REAL: 4')
    call MPI_Pack_external_size('external32', 2, MPI_COMPLEX, sz, ierr)
    call check(ierr == MPI_SUCCESS .and. sz == 16, 'MPI_Pack_external_size of 2 COMPLEX: 16')
    buf = 0
    pos = 0
    call MPI_Pack_external('external32', iv, 3, MPI_INTEGER, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call check(ierr == MPI_SUCCESS .and. pos == 12, 'MPI_Pack_external of 3 INTEGERs: POSITION 12')
    call MPI_Pack_external('external32', r, 1, MPI_REAL, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call MPI_Pack_external('external32', d, 1, MPI_DOUBLE_PRECISION, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call MPI_Pack_external('external32', c, 1, MPI_COMPLEX, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call check(ierr == MPI_SUCCESS .and. pos == 32, 'MPI_Pack_external: POSITION 32')
    ! a vector: rows 1:2 of m(4, 3) = 1 2 5 6 9 10
    m = reshape([(i, i = 1, 12)], [4, 3])
    call MPI_Type_vector(3, 2, 4, MPI_INTEGER, t, ierr)
    call MPI_Type_commit(t, ierr)
    call MPI_Pack_external_size('external32', 1, t, sz, ierr)
    call check(ierr == MPI_SUCCESS .and. sz == 24, 'MPI_Pack_external_size of a vector of 6 INTEGERs')
    call MPI_Pack_external('external32', m, 1, t, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call check(ierr == MPI_SUCCESS .and. pos == 56, 'MPI_Pack_external of a vector: POSITION 56')
    want(1:32) = [0, 0, 0, 1, 0, 0, 1, 2, 255, 255, 255, 254, &   ! 1, 258, -2
                  192, 0, 0, 0, &                                 ! -2.0
                  63, 240, 0, 0, 0, 0, 0, 0, &                    ! 1d0
                  63, 128, 0, 0, 192, 0, 0, 0]                    ! (1.0, -2.0)
    call expect_i([(iand(int(buf(i)), 255), i = 1, 32)], want, 32, 'MPI_Pack_external: the external32 bytes')
    want(1:24) = [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 9, 0, 0, 0, 10]
    call expect_i([(iand(int(buf(i)), 255), i = 33, 56)], want, 24, &
                  'MPI_Pack_external of a vector: the external32 bytes')
    call check(all(buf(57:) == 0), 'MPI_Pack_external writes nothing past POSITION')

    pos2 = 0
    igot = -1
    call MPI_Unpack_external('external32', buf, pos, pos2, igot, 3, MPI_INTEGER, ierr)
    call check(ierr == MPI_SUCCESS .and. pos2 == 12 .and. all(igot == iv), 'MPI_Unpack_external of INTEGERs')
    call MPI_Unpack_external('external32', buf, pos, pos2, rgot, 1, MPI_REAL, ierr)
    call MPI_Unpack_external('external32', buf, pos, pos2, dgot, 1, MPI_DOUBLE_PRECISION, ierr)
    call MPI_Unpack_external('external32', buf, pos, pos2, cgot, 1, MPI_COMPLEX, ierr)
    call check(ierr == MPI_SUCCESS .and. rgot == r .and. dgot == d .and. cgot == c, &
               'MPI_Unpack_external of REAL, DOUBLE PRECISION, COMPLEX')
    mgot = -1
    call MPI_Unpack_external('external32', buf, pos, pos2, mgot, 6, MPI_INTEGER, ierr)
    call check(ierr == MPI_SUCCESS .and. pos2 == 56, 'MPI_Unpack_external: POSITION to the end')
    call expect_i(mgot, [1, 2, 5, 6, 9, 10], 6, 'MPI_Unpack_external of a packed vector')
    call free_type(t, 'a vector')

    ! INTEGER(2), INTEGER(8), CHARACTER, DOUBLE COMPLEX
    i2 = -3
    i8 = 2_8**40 + 5
    ch = 'A'
    z = (1d0, -2d0)
    buf = 0
    pos = 0
    call MPI_Pack_external('external32', i2, 1, MPI_INTEGER2, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call MPI_Pack_external('external32', i8, 1, MPI_INTEGER8, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call MPI_Pack_external('external32', ch, 1, MPI_CHARACTER, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call MPI_Pack_external('external32', z, 1, MPI_DOUBLE_COMPLEX, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call check(ierr == MPI_SUCCESS .and. pos == 2 + 8 + 1 + 16, &
               'MPI_Pack_external of INTEGER(2), INTEGER(8), CHARACTER, DOUBLE COMPLEX: 27 bytes')
    want(1:27) = [255, 253, &                                   ! -3
                  0, 0, 1, 0, 0, 0, 0, 5, &                     ! 2**40 + 5
                  65, &                                         ! 'A'
                  63, 240, 0, 0, 0, 0, 0, 0, 192, 0, 0, 0, 0, 0, 0, 0]   ! (1d0, -2d0)
    call expect_i([(iand(int(buf(i)), 255), i = 1, 27)], want, 27, &
                  'MPI_Pack_external: INTEGER(2), INTEGER(8), CHARACTER, DOUBLE COMPLEX bytes')
    pos2 = 0
    call MPI_Unpack_external('external32', buf, pos, pos2, i2b, 1, MPI_INTEGER2, ierr)
    call MPI_Unpack_external('external32', buf, pos, pos2, i8b, 1, MPI_INTEGER8, ierr)
    call MPI_Unpack_external('external32', buf, pos, pos2, chb, 1, MPI_CHARACTER, ierr)
    call MPI_Unpack_external('external32', buf, pos, pos2, zb, 1, MPI_DOUBLE_COMPLEX, ierr)
    call check(ierr == MPI_SUCCESS .and. pos2 == pos .and. i2b == i2 .and. i8b == i8 .and. chb == ch .and. &
               zb == z, 'MPI_Unpack_external of INTEGER(2), INTEGER(8), CHARACTER, DOUBLE COMPLEX')

    ! MPI_REAL16 and MPI_COMPLEX32: REAL*16 / COMPLEX*32, binary128 in
    ! external32 (gfortran's REAL(16) is binary128 too)
    q = -2.5_16
    qz = (1.0_16, -2.5_16)
    call MPI_Pack_external_size('external32', 1, MPI_REAL16, sz, ierr)
    call check(ierr == MPI_SUCCESS .and. sz == 16, 'MPI_Pack_external_size of MPI_REAL16: 16')
    buf = 0
    pos = 0
    call MPI_Pack_external('external32', q, 1, MPI_REAL16, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call MPI_Pack_external('external32', qz, 1, MPI_COMPLEX32, buf, 100_MPI_ADDRESS_KIND, pos, ierr)
    call check(ierr == MPI_SUCCESS .and. pos == 48, 'MPI_Pack_external of MPI_REAL16, MPI_COMPLEX32: 48 bytes')
    want(1:48) = 0
    want([1, 3]) = [192, 64]              ! -2.5: sign, exponent 0x4000, fraction .01
    want([17, 18]) = [63, 255]            ! 1.0: exponent 0x3fff
    want([33, 35]) = [192, 64]            ! -2.5
    call expect_i([(iand(int(buf(i)), 255), i = 1, 48)], want, 48, &
                  'MPI_Pack_external of REAL(16) -2.5 and COMPLEX(16) (1, -2.5): binary128 big-endian')
    pos2 = 0
    qb = 0
    qzb = 0
    call MPI_Unpack_external('external32', buf, pos, pos2, qb, 1, MPI_REAL16, ierr)
    call MPI_Unpack_external('external32', buf, pos, pos2, qzb, 1, MPI_COMPLEX32, ierr)
    call check(ierr == MPI_SUCCESS .and. qb == q .and. qzb == qz, &
               'MPI_Unpack_external of MPI_REAL16 and MPI_COMPLEX32: the values back')
  end subroutine

  ! ======================================================================
  ! error classes, codes, strings; MPI_COMM_CALL_ERRHANDLER; MPI_LASTUSEDCODE
  subroutine errors()
    character(len=MPI_MAX_ERROR_STRING) :: s, long
    integer :: uclass, ucode, ucode2, n
    integer(kind=MPI_ADDRESS_KIND) :: last
    logical :: f
    COMM_T :: comm
    ERRH_T :: eh

    ! a predefined class
    call expect_class(MPI_ERR_TYPE, MPI_ERR_TYPE, 'MPI_Error_class of a class is the class')
    s = repeat('x', len(s))
    call MPI_Error_string(MPI_ERR_TYPE, s, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n > 0 .and. n <= MPI_MAX_ERROR_STRING, &
               'MPI_Error_string of MPI_ERR_TYPE: RESULTLEN')
    call check(len_trim(s(1:n)) > 0 .and. s(n + 1:) == ' ', 'MPI_Error_string: blank-padded after RESULTLEN')
    call MPI_Error_string(MPI_SUCCESS, s, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n <= MPI_MAX_ERROR_STRING, 'MPI_Error_string of MPI_SUCCESS')

    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, last, f, ierr)
    call check(ierr == MPI_SUCCESS .and. f .and. last >= MPI_ERR_LASTCODE, &
               'MPI_LASTUSEDCODE: at least MPI_ERR_LASTCODE')

    ! a user class, two codes in it, strings
    call MPI_Add_error_class(uclass, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Add_error_class')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, last, f, ierr)
    call check(f .and. last >= uclass, 'MPI_LASTUSEDCODE after MPI_Add_error_class: at least the new class')
    call MPI_Add_error_code(uclass, ucode, ierr)
    call check(ierr == MPI_SUCCESS .and. ucode /= uclass, 'MPI_Add_error_code in a user class')
    call MPI_Add_error_code(MPI_ERR_OTHER, ucode2, ierr)
    call check(ierr == MPI_SUCCESS .and. ucode2 /= ucode, 'MPI_Add_error_code in a predefined class')
    call MPI_Add_error_string(uclass, 'f_types_misc class', ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Add_error_string of a class')
    call MPI_Add_error_string(ucode, 'f_types_misc: code in a user class', ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Add_error_string of a code')
    call expect_class(ucode, uclass, 'MPI_Error_class of a user code: its user class')
    call expect_class(uclass, uclass, 'MPI_Error_class of a user class: itself')
    call expect_class(ucode2, MPI_ERR_OTHER, 'MPI_Error_class of a user code in MPI_ERR_OTHER')
    call expect_string('f_types_misc: code in a user class', &
                       'MPI_Error_string of a user code: its string, RESULTLEN, blank padding', code=ucode)
    call expect_string('f_types_misc class', 'MPI_Error_string of a user class', code=uclass)
    ! no string set: "all spaces in Fortran" (§9.5)
    call expect_string('', 'MPI_Error_string of a user code without a string: all spaces, RESULTLEN 0', code=ucode2)
    ! a second MPI_ADD_ERROR_STRING replaces the first; the longest string
    ! (MPI_MAX_ERROR_STRING characters in Fortran) whole
    do n = 1, len(long)
      long(n:n) = achar(iachar('A') + mod(n - 1, 26))
    end do
    call MPI_Add_error_string(ucode2, 'first', ierr)
    call MPI_Add_error_string(ucode2, long, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Add_error_string of MPI_MAX_ERROR_STRING characters')
    call expect_string(long, 'MPI_Error_string: the replacing string of MPI_MAX_ERROR_STRING characters', code=ucode2)
    call MPI_Add_error_string(ucode2, 'second', ierr)
    call expect_string('second', 'MPI_Add_error_string replaces the string', code=ucode2)

    ! MPI_COMM_CALL_ERRHANDLER: a Fortran handler sees the code; with
    ! MPI_ERRORS_RETURN the call returns MPI_SUCCESS (§9.3.6)
    call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
    call MPI_Comm_create_errhandler(handler, eh, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_create_errhandler')
    call MPI_Comm_set_errhandler(comm, eh, ierr)
    call MPI_Errhandler_free(eh, ierr)
    call check(ierr == MPI_SUCCESS .and. eh == MPI_ERRHANDLER_NULL, 'MPI_Errhandler_free')
    handler_calls = 0
    call MPI_Comm_call_errhandler(comm, ucode, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_call_errhandler: MPI_SUCCESS once the handler returns')
    call check(handler_calls == 1 .and. handler_code == ucode, &
               'MPI_Comm_call_errhandler: the handler gets the user code')
    call expect_class(handler_code, uclass, 'the code the handler got is in the user class')
    call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN, ierr)
    call MPI_Comm_call_errhandler(comm, uclass, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_call_errhandler with MPI_ERRORS_RETURN: MPI_SUCCESS')
    call check(handler_calls == 1, 'MPI_Comm_call_errhandler: the replaced handler not called')
    call MPI_Comm_free(comm, ierr)

#ifdef HAS_MPI41
    ! MPI 4.1 §9.5: a string, then a code, then its class
    call MPI_Remove_error_string(ucode, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Remove_error_string of a code')
    call MPI_Remove_error_code(ucode, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Remove_error_code')
    call MPI_Remove_error_string(ucode2, ierr)
    call MPI_Remove_error_code(ucode2, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Remove_error_code of a code in a predefined class')
    call MPI_Remove_error_string(uclass, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Remove_error_string of a class')
    call MPI_Remove_error_class(uclass, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Remove_error_class')
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, last, f, ierr)
    call check(ierr == MPI_SUCCESS .and. f .and. last >= MPI_ERR_LASTCODE, &
               'MPI_LASTUSEDCODE after MPI_Remove_error_class')
    ! and a new class after them
    call MPI_Add_error_class(uclass, ierr)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, last, f, ierr)
    call check(ierr == MPI_SUCCESS .and. last >= uclass, 'MPI_Add_error_class after a removal')
    call expect_class(uclass, uclass, 'MPI_Error_class of the new class')
    call MPI_Remove_error_class(uclass, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Remove_error_class of a class without codes or string')
#endif
  end subroutine

  ! ======================================================================
  ! MPI_ALLOC_MEM / MPI_FREE_MEM (memory used as a buffer),
  ! MPI_GET_HW_RESOURCE_INFO, the MPI_INFO procedures.
  subroutine memory_and_info()
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated
    integer, pointer :: mem(:)
    type(c_ptr) :: p
#ifndef HAS_MODULE
    integer(kind=MPI_ADDRESS_KIND) :: addr
#endif
    INFO_T :: info, dup, hw
    integer :: n, nd, i, vlen, e, buflen
    character(len=MPI_MAX_INFO_KEY) :: key, key2
    character(len=MPI_MAX_INFO_VAL) :: value
    character(len=8) :: short
    logical :: f
    integer :: got(4)

#ifdef HAS_MODULE
    call MPI_Alloc_mem(64_MPI_ADDRESS_KIND, MPI_INFO_NULL, p, ierr)
#else
    addr = 0
    call MPI_Alloc_mem(64_MPI_ADDRESS_KIND, MPI_INFO_NULL, addr, ierr)
    p = transfer(addr, p)
#endif
    call check(ierr == MPI_SUCCESS .and. c_associated(p), 'MPI_Alloc_mem')
    call c_f_pointer(p, mem, [16])
    mem = [(ival(rank, i), i = 1, 16)]
    got = -1
    call MPI_Sendrecv(mem, 4, MPI_INTEGER, right, 95, got, 4, MPI_INTEGER, left, 95, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    call expect_i(got, [(ival(left, i), i = 1, 4)], 4, 'memory from MPI_Alloc_mem as a send buffer')
    got = [(ival(rank, i), i = 11, 14)]
    call MPI_Sendrecv(got, 4, MPI_INTEGER, right, 96, mem, 4, MPI_INTEGER, left, 96, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    call expect_i(mem, [(ival(left, i), i = 11, 14), (ival(rank, i), i = 5, 16)], 16, &
                  'memory from MPI_Alloc_mem as a receive buffer')
    call MPI_Free_mem(mem, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Free_mem')

#ifdef HAS_MPI41
    call MPI_Get_hw_resource_info(hw, ierr)
    call check(ierr == MPI_SUCCESS .and. hw /= MPI_INFO_NULL, 'MPI_Get_hw_resource_info: a new info')
    call MPI_Info_get_nkeys(hw, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n >= 0, 'MPI_Info_get_nkeys of the hardware info')
    do i = 0, n - 1
      call MPI_Info_get_nthkey(hw, i, key, ierr)
      call check(ierr == MPI_SUCCESS .and. key /= ' ', 'a key of the hardware info')
      call MPI_Info_get_valuelen(hw, key, vlen, f, ierr)
      buflen = len(value)
      call MPI_Info_get_string(hw, key, buflen, value, f, ierr)
      call check(ierr == MPI_SUCCESS .and. f .and. buflen == vlen .and. len_trim(value) <= vlen, &
                 'a value of the hardware info: MPI_Info_get_valuelen and MPI_Info_get_string agree')
    end do
    call MPI_Info_free(hw, ierr)
    call check(ierr == MPI_SUCCESS .and. hw == MPI_INFO_NULL, 'MPI_Info_free of the hardware info')
#endif

    ! ---- MPI_INFO ----
    call MPI_Info_create(info, ierr)
    call check(ierr == MPI_SUCCESS .and. info /= MPI_INFO_NULL, 'MPI_Info_create')
    call MPI_Info_get_nkeys(info, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 0, 'MPI_Info_get_nkeys of a new info: 0')
    call MPI_Info_set(info, 'alpha', 'one', ierr)
    call MPI_Info_set(info, '  beta  ', '  two words  ', ierr)
    call MPI_Info_set(info, 'gamma', '3', ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Info_set')
    call MPI_Info_get_nkeys(info, n, ierr)
    call check(n == 3, 'MPI_Info_get_nkeys: 3')
    call MPI_Info_get_valuelen(info, 'beta', vlen, f, ierr)
    call check(ierr == MPI_SUCCESS .and. f .and. vlen == 9, &
               'MPI_Info_get_valuelen: a value set with blanks around it (dropped)')
    value = repeat('x', len(value))
    call MPI_Info_get(info, 'beta', len(value), value, f, ierr)
    call check(ierr == MPI_SUCCESS .and. f .and. value == 'two words', 'MPI_Info_get: blank-padded')
    call MPI_Info_get(info, 'beta', 3, short, f, ierr)
    call check(f .and. short == 'two', 'MPI_Info_get with VALUELEN 3: 3 characters')
    buflen = len(value)
    value = repeat('x', len(value))
    call MPI_Info_get_string(info, 'alpha', buflen, value, f, ierr)
    call check(ierr == MPI_SUCCESS .and. f .and. buflen == 3 .and. value == 'one', 'MPI_Info_get_string')
    ! replacing a value keeps the number of keys
    call MPI_Info_set(info, 'alpha', 'uno', ierr)
    call MPI_Info_get_nkeys(info, n, ierr)
    call MPI_Info_get(info, 'alpha', len(value), value, f, ierr)
    call check(n == 3 .and. f .and. value == 'uno', 'MPI_Info_set of a key again: the new value')
    ! each key once among the nth keys
    do i = 0, 2
      call MPI_Info_get_nthkey(info, i, key, ierr)
      call check(ierr == MPI_SUCCESS .and. (key == 'alpha' .or. key == 'beta' .or. key == 'gamma'), &
                 'MPI_Info_get_nthkey: a key set, blank-padded')
    end do
    ! MPI_INFO_DUP: the same pairs in the same order
    call MPI_Info_dup(info, dup, ierr)
    call check(ierr == MPI_SUCCESS .and. dup /= info, 'MPI_Info_dup')
    call MPI_Info_get_nkeys(dup, nd, ierr)
    call check(nd == 3, 'MPI_Info_dup: as many keys')
    do i = 0, 2
      call MPI_Info_get_nthkey(info, i, key, ierr)
      call MPI_Info_get_nthkey(dup, i, key2, ierr)
      call check(key == key2, 'MPI_Info_dup: the keys in the same order')
    end do
    call MPI_Info_delete(info, 'gamma', ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Info_delete')
    call MPI_Info_get_nkeys(info, n, ierr)
    call MPI_Info_get_valuelen(info, 'gamma', vlen, f, ierr)
    call check(n == 2 .and. .not. f, 'MPI_Info_delete: the key is gone')
    call MPI_Info_get(dup, 'gamma', len(value), value, f, ierr)
    call check(f .and. value == '3', 'MPI_Info_delete: the duplicate keeps its key')
    ! deleting an absent key raises MPI_ERR_INFO_NOKEY (§10.1)
    call set_errhandlers(MPI_ERRORS_RETURN)
    call MPI_Info_delete(info, 'gamma', e)
    call set_errhandlers(MPI_ERRORS_ARE_FATAL)
    call check(e /= MPI_SUCCESS, 'MPI_Info_delete of an absent key: an error')
    call expect_class(e, MPI_ERR_INFO_NOKEY, 'MPI_Info_delete of an absent key: MPI_ERR_INFO_NOKEY')
    call MPI_Info_free(dup, ierr)
    ! the longest key (MPI_MAX_INFO_KEY characters in Fortran) and value
    ! (MPI_MAX_INFO_VAL)
    do i = 1, len(key)
      key(i:i) = achar(iachar('a') + mod(i - 1, 26))
    end do
    do i = 1, len(value)
      value(i:i) = achar(iachar('0') + mod(i - 1, 10))
    end do
    call MPI_Info_set(info, key, value, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Info_set of the longest key and value')
    call MPI_Info_get_valuelen(info, key, vlen, f, ierr)
    call check(ierr == MPI_SUCCESS .and. f .and. vlen == MPI_MAX_INFO_VAL, &
               'MPI_Info_get_valuelen of the longest value: MPI_MAX_INFO_VAL')
    call MPI_Info_get_nkeys(info, n, ierr)
    do i = 0, n - 1
      call MPI_Info_get_nthkey(info, i, key2, ierr)
      if (key2 == key) exit
    end do
    call check(ierr == MPI_SUCCESS .and. key2 == key, 'MPI_Info_get_nthkey: the longest key whole')
    key2 = value(1:len(key2))
    value = ' '
    call MPI_Info_get(info, key, len(value), value, f, ierr)
    call check(ierr == MPI_SUCCESS .and. f .and. value(1:len(key2)) == key2 .and. &
               value(MPI_MAX_INFO_VAL:) == achar(iachar('0') + mod(MPI_MAX_INFO_VAL - 1, 10)), &
               'MPI_Info_get of the longest value: whole')
    call MPI_Info_free(info, ierr)
    call check(ierr == MPI_SUCCESS .and. info == MPI_INFO_NULL, 'MPI_Info_free sets MPI_INFO_NULL')
  end subroutine

#if defined(HAS_MODULE) && !defined(RDMACH_MPICH_BUILD)
  ! MPI_SIZEOF (§19.1.9.2): module mpi and mpi_f08 only.
  subroutine sizeofs()
    integer :: n, m
    integer(kind=2) :: i2(3)
    real(kind=8) :: r8(2, 2)
    complex(kind=8) :: z
    logical :: l
    double precision :: d
    call MPI_Sizeof(i2, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 2, 'MPI_Sizeof of INTEGER(2)')
    call MPI_Sizeof(r8, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 8, 'MPI_Sizeof of a REAL(8) 2-d array')
    call MPI_Sizeof(z, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 16, 'MPI_Sizeof of COMPLEX(8)')
    call MPI_Sizeof(l, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 4, 'MPI_Sizeof of LOGICAL')
    call MPI_Sizeof(d, n, ierr)
    call MPI_Type_size(MPI_DOUBLE_PRECISION, m, ierr)
    call check(ierr == MPI_SUCCESS .and. n == m, 'MPI_Sizeof of DOUBLE PRECISION: MPI_DOUBLE_PRECISION''s size')
  end subroutine
#endif

#include "check.inc"
end program
