! f_reduce: every Fortran predefined datatype with every reduction the
! standard allows on it, by MPI_Allreduce; each expected value is folded
! here from the other ranks' contributions (rank r contributes a value
! computed from r), by the operation's definition in the standard.
#include "mpi_test.h"
program f_reduce
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, size, r, k, nchecked
  integer, parameter :: nint_ops = 7
  integer :: int_ops(nint_ops)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  int_ops = [MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR]
  nchecked = 0
  do k = 1, nint_ops
    call ints(k)
  end do
  do k = 1, 4
    call reals(int_ops(k))
  end do
  call complexes(MPI_SUM)
  call complexes(MPI_PROD)
  call logicals(MPI_LAND)
  call logicals(MPI_LOR)
  call logicals(MPI_LXOR)
  call pairs(MPI_MAXLOC)
  call pairs(MPI_MINLOC)
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a, i0, a)', 'f_reduce: ok on ', size, ' ranks (', nchecked, &
                                            ' datatype x operation pairs)'
contains
  integer(kind=8) function ifold(op, v)
    integer, intent(in) :: op
    integer(kind=8), intent(in) :: v(0:)
    integer :: i
    ifold = v(0)
    do i = 1, ubound(v, 1)
      select case (op)
      case (1); ifold = ifold + v(i)
      case (2); ifold = ifold * v(i)
      case (3); ifold = max(ifold, v(i))
      case (4); ifold = min(ifold, v(i))
      case (5); ifold = iand(ifold, v(i))
      case (6); ifold = ior(ifold, v(i))
      case (7); ifold = ieor(ifold, v(i))
      end select
    end do
  end function

  ! INTEGER, INTEGER1/2/4/8: rank r contributes r + 3 and -(2r + 1)
  subroutine ints(k)
    integer, intent(in) :: k
    integer(kind=8) :: a(0:size - 1), b(0:size - 1), ea, eb
    integer :: i4(2), o4(2)
    integer(kind=1) :: i1(2), o1(2)
    integer(kind=2) :: i2(2), o2(2)
    integer(kind=8) :: i8(2), o8(2), s8
    a = [(r + 3, r = 0, size - 1)]
    b = [(-(2 * r + 1), r = 0, size - 1)]
    ea = ifold(k, a)
    eb = ifold(k, b)
    i4 = int([a(rank), b(rank)], 4)
    call MPI_Allreduce(i4, o4, 2, MPI_INTEGER, int_ops(k), MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(o4 == [ea, eb]), 'MPI_INTEGER', int_ops(k))
    call MPI_Allreduce(i4, o4, 2, MPI_INTEGER4, int_ops(k), MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(o4 == [ea, eb]), 'MPI_INTEGER4', int_ops(k))
    i1 = int([a(rank), b(rank)], 1)
    call MPI_Allreduce(i1, o1, 2, MPI_INTEGER1, int_ops(k), MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(o1 == int([ea, eb], 1)), 'MPI_INTEGER1', int_ops(k))
    i2 = int([a(rank), b(rank)], 2)
    call MPI_Allreduce(i2, o2, 2, MPI_INTEGER2, int_ops(k), MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(o2 == int([ea, eb], 2)), 'MPI_INTEGER2', int_ops(k))
    ! 64-bit values: beyond 32 bits, and for MPI_PROD scaled so that the
    ! product of all ranks' values stays below 2**63 (3*4*5*6 * 2**52 at 4
    ! ranks): an overflowing product has no defined value
    s8 = 2_8**40
    if (int_ops(k) == MPI_PROD) s8 = 2_8**(52 / size)
    i8 = [a(rank), b(rank)] * s8
    call MPI_Allreduce(i8, o8, 2, MPI_INTEGER8, int_ops(k), MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(o8 == [ifold(k, a * s8), ifold(k, b * s8)]), &
               'MPI_INTEGER8', int_ops(k))
    nchecked = nchecked + 5
  end subroutine

  ! REAL, DOUBLE PRECISION, REAL4, REAL8: rank r contributes r + 0.5 and
  ! -(r + 1) / 4 (exact in binary, so every fold order gives one answer)
  subroutine reals(op)
    integer, intent(in) :: op
    double precision :: a(0:size - 1), b(0:size - 1), e(2)
    real :: s(2), so(2)
    double precision :: d(2), do(2)
    integer :: i
    a = [(r + 0.5d0, r = 0, size - 1)]
    b = [(-(r + 1) / 4d0, r = 0, size - 1)]
    e = [a(0), b(0)]
    do i = 1, size - 1
      select case (op)
      case (MPI_SUM); e = e + [a(i), b(i)]
      case (MPI_PROD); e = e * [a(i), b(i)]
      case (MPI_MAX); e = max(e, [a(i), b(i)])
      case (MPI_MIN); e = min(e, [a(i), b(i)])
      end select
    end do
    s = real([a(rank), b(rank)])
    d = [a(rank), b(rank)]
    call MPI_Allreduce(s, so, 2, MPI_REAL, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(so == real(e)), 'MPI_REAL', op)
    call MPI_Allreduce(s, so, 2, MPI_REAL4, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(so == real(e)), 'MPI_REAL4', op)
    call MPI_Allreduce(d, do, 2, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(do == e), 'MPI_DOUBLE_PRECISION', op)
    call MPI_Allreduce(d, do, 2, MPI_REAL8, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(do == e), 'MPI_REAL8', op)
    call real16s(op)
    nchecked = nchecked + 5
  end subroutine

  ! REAL(16) is IEEE binary128 (gfortran): rank r contributes r + 1.5 (1.5,
  ! 2.5, 3.5: SUM 7.5 on 3 ranks) and 1 + (r + 1) 2**-100, which only a
  ! 113-bit significand holds (the x87 long double of the same size has 64).
  subroutine real16s(op)
    integer, intent(in) :: op
    real(kind=16) :: q(2), qo(2), e(2), a(2)
    integer :: i
    do i = 0, size - 1
      a = [i + 1.5_16, 1 + (i + 1) * 2.0_16**(-100)]
      if (i == 0) then
        e = a
      else
        select case (op)
        case (MPI_SUM); e = e + a
        case (MPI_PROD); e = e * a
        case (MPI_MAX); e = max(e, a)
        case (MPI_MIN); e = min(e, a)
        end select
      end if
    end do
    q = [rank + 1.5_16, 1 + (rank + 1) * 2.0_16**(-100)]
    call MPI_Allreduce(q, qo, 2, MPI_REAL16, op, MPI_COMM_WORLD, ierr)
    ! PROD's second element rounds by the order the ranks are combined in
    if (op == MPI_PROD) then
      call checkop(ierr == MPI_SUCCESS .and. qo(1) == e(1) .and. qo(2) > 1, 'MPI_REAL16', op)
    else
      call checkop(ierr == MPI_SUCCESS .and. all(qo == e), 'MPI_REAL16', op)
    end if
  end subroutine

  ! COMPLEX, DOUBLE COMPLEX, COMPLEX8, COMPLEX16: rank r contributes (r + 1, 1)
  subroutine complexes(op)
    integer, intent(in) :: op
    complex(kind=8) :: e, a
    complex :: c, co
    complex(kind=8) :: z, zo
    complex(kind=16) :: x, xo
    e = (1d0, 1d0)
    do r = 1, size - 1
      a = cmplx(r + 1, 1, kind=8)
      if (op == MPI_SUM) e = e + a
      if (op == MPI_PROD) e = e * a
    end do
    c = cmplx(rank + 1, 1)
    z = cmplx(rank + 1, 1, kind=8)
    call MPI_Allreduce(c, co, 1, MPI_COMPLEX, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. co == cmplx(e), 'MPI_COMPLEX', op)
    call MPI_Allreduce(c, co, 1, MPI_COMPLEX8, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. co == cmplx(e), 'MPI_COMPLEX8', op)
    call MPI_Allreduce(z, zo, 1, MPI_DOUBLE_COMPLEX, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. zo == e, 'MPI_DOUBLE_COMPLEX', op)
    call MPI_Allreduce(z, zo, 1, MPI_COMPLEX16, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. zo == e, 'MPI_COMPLEX16', op)
    ! COMPLEX(16): two binary128 (small integers: exact in any order)
    x = cmplx(rank + 1, 1, kind=16)
    call MPI_Allreduce(x, xo, 1, MPI_COMPLEX32, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. xo == cmplx(e, kind=16), 'MPI_COMPLEX32', op)
    nchecked = nchecked + 5
  end subroutine

  ! LOGICAL: rank r contributes r == 0, r odd, .true.
  subroutine logicals(op)
    integer, intent(in) :: op
    logical :: l(3), lo(3), e(3), a(3)
    integer :: i
    do i = 0, size - 1
      a = [i == 0, mod(i, 2) == 1, .true.]
      if (i == 0) then
        e = a
      else if (op == MPI_LAND) then
        e = e .and. a
      else if (op == MPI_LOR) then
        e = e .or. a
      else
        e = e .neqv. a
      end if
    end do
    l = [rank == 0, mod(rank, 2) == 1, .true.]
    call MPI_Allreduce(l, lo, 3, MPI_LOGICAL, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(lo .eqv. e), 'MPI_LOGICAL', op)
    nchecked = nchecked + 1
  end subroutine

  ! 2INTEGER, 2REAL, 2DOUBLE_PRECISION: (value, rank) with value mod(3r, 4)
  ! so that values repeat: a tie goes to the lowest rank
  subroutine pairs(op)
    integer, intent(in) :: op
    integer :: v, best, at, ip(2), ipo(2)
    real :: rp(2), rpo(2)
    double precision :: dp(2), dpo(2)
    best = 0
    at = 0
    do r = 1, size - 1
      v = mod(3 * r, 4)
      if ((op == MPI_MAXLOC .and. v > best) .or. (op == MPI_MINLOC .and. v < best)) then
        best = v
        at = r
      end if
    end do
    ip = [mod(3 * rank, 4), rank]
    call MPI_Allreduce(ip, ipo, 1, MPI_2INTEGER, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(ipo == [best, at]), 'MPI_2INTEGER', op)
    rp = real(ip)
    call MPI_Allreduce(rp, rpo, 1, MPI_2REAL, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(rpo == real([best, at])), 'MPI_2REAL', op)
    dp = dble(ip)
    call MPI_Allreduce(dp, dpo, 1, MPI_2DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
    call checkop(ierr == MPI_SUCCESS .and. all(dpo == dble([best, at])), 'MPI_2DOUBLE_PRECISION', op)
    nchecked = nchecked + 3
  end subroutine

  subroutine checkop(ok, what, op)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer, intent(in) :: op
    character(len=64) :: line
    write (line, '(2a, z8)') what, ' with op ', op
    call check(ok, trim(line))
  end subroutine
#include "check.inc"
end program
