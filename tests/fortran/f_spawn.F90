! f_spawn: MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE from Fortran (the
! hand-written glue of src/binding/fort_special.c). The parents (any number
! of ranks) spawn this program three times:
!   1. MPI_COMM_SPAWN, ARGV = (' one', 'x y', blank): 2 children, each must
!      see exactly the two arguments 'one' and 'x y' (the blank entry ends
!      the list, leading and trailing blanks are not part of an argument,
!      the embedded blank stays inside one), errcodes all MPI_SUCCESS;
!   2. MPI_COMM_SPAWN, MPI_ARGV_NULL, MPI_ERRCODES_IGNORE: 1 child, no
!      argument;
!   3. MPI_COMM_SPAWN_MULTIPLE with ARRAY_OF_ARGV(2, 3): row 1 ('m1', blank)
!      for 1 child, row 2 ('m2', '  zz', blank) for 2 children, so the row
!      order of the (COUNT, *) array is checked.
! Every child checks MPI_COMM_GET_PARENT and the parents' group size and
! sends rank 0 of the parents its world size, argument count and
! arguments; rank 0 compares them with what it passed.
! Built with mpif.h, `use mpi` (mpi_test.h) and `use mpi_f08`
! (-DRDMACH_USE_F08).
#ifdef RDMACH_USE_F08
#define MPI_USE use mpi_f08
#define MPI_INCLUDE
#define COMM_T type(MPI_Comm)
#define INFO_T type(MPI_Info)
#else
#include "mpi_test.h"
#define COMM_T integer
#define INFO_T integer
#endif
program f_spawn
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, size
  COMM_T :: parent

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Comm_get_parent(parent, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_get_parent')
  if (parent == MPI_COMM_NULL) then
    call parents()
    if (rank == 0) print '(a, i0, a)', 'f_spawn: ok on ', size, ' ranks'
  else
    call child(parent)
  end if
  call MPI_Finalize(ierr)

contains

  subroutine child(parent)
    COMM_T, intent(inout) :: parent
    integer :: nargs, psize, info(3)
    character(len=16) :: args(2)
    nargs = command_argument_count()
    args = ' '
    if (nargs >= 1) call get_command_argument(1, args(1))
    if (nargs >= 2) call get_command_argument(2, args(2))
    call MPI_Comm_remote_size(parent, psize, ierr)
    call check(ierr == MPI_SUCCESS, 'child: MPI_Comm_remote_size of the parent')
    info = (/ size, nargs, rank /)
    call MPI_Send(info, 3, MPI_INTEGER, 0, 1, parent, ierr)
    call check(ierr == MPI_SUCCESS, 'child: MPI_Send of its counts')
    call MPI_Send(args, 32, MPI_CHARACTER, 0, 2, parent, ierr)
    call check(ierr == MPI_SUCCESS, 'child: MPI_Send of its arguments')
    call MPI_Send(psize, 1, MPI_INTEGER, 0, 3, parent, ierr)
    call MPI_Comm_disconnect(parent, ierr)
    call check(ierr == MPI_SUCCESS, 'child: MPI_Comm_disconnect')
  end subroutine

  ! Receive from each of the n children of inter and compare with the
  ! expected world size, argument count and two arguments of child i.
  subroutine expect(inter, n, wsize, nargs, a1, a2, what)
    COMM_T, intent(inout) :: inter
    integer, intent(in) :: n, wsize(n), nargs(n)
    character(len=*), intent(in) :: a1(n), a2(n), what
    integer :: i, info(3), psize, rsize
    character(len=16) :: args(2)
    call MPI_Comm_remote_size(inter, rsize, ierr)
    call check(ierr == MPI_SUCCESS .and. rsize == n, what // ': remote size')
    if (rank == 0) then
      do i = 1, n
        call MPI_Recv(info, 3, MPI_INTEGER, i - 1, 1, inter, MPI_STATUS_IGNORE, ierr)
        call check(ierr == MPI_SUCCESS .and. info(3) == i - 1, what // ': a child''s counts')
        call check(info(1) == wsize(i), what // ': a child''s MPI_COMM_WORLD size')
        call check(info(2) == nargs(i), what // ': a child''s argument count')
        call MPI_Recv(args, 32, MPI_CHARACTER, i - 1, 2, inter, MPI_STATUS_IGNORE, ierr)
        call check(args(1) == a1(i) .and. args(2) == a2(i), what // ': a child''s arguments')
        call MPI_Recv(psize, 1, MPI_INTEGER, i - 1, 3, inter, MPI_STATUS_IGNORE, ierr)
        call check(psize == size, what // ': the parents'' group size the child sees')
      end do
    end if
    call MPI_Comm_disconnect(inter, ierr)
    call check(ierr == MPI_SUCCESS, what // ': MPI_Comm_disconnect')
  end subroutine

  subroutine parents()
    character(len=256) :: prog
    character(len=8) :: argv(3), argvs(2, 3)
    integer :: errcodes(3), maxprocs(2)
    INFO_T :: infos(2)
    COMM_T :: inter

    call get_command_argument(0, prog)
    argv = (/ ' one    ', 'x y     ', '        ' /)
    errcodes = -1
    call MPI_Comm_spawn(prog, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errcodes, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_spawn with argv')
    call check(all(errcodes(1:2) == MPI_SUCCESS), 'MPI_Comm_spawn: errcodes')
    call expect(inter, 2, (/ 2, 2 /), (/ 2, 2 /), (/ 'one', 'one' /), (/ 'x y', 'x y' /), &
                'MPI_Comm_spawn with argv')

    call MPI_Comm_spawn(prog, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                        MPI_ERRCODES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_spawn with MPI_ARGV_NULL')
    call expect(inter, 1, (/ 1 /), (/ 0 /), (/ ' ' /), (/ ' ' /), 'MPI_Comm_spawn with MPI_ARGV_NULL')

    argvs = ' '
    argvs(1, 1) = 'm1'
    argvs(2, 1) = 'm2'
    argvs(2, 2) = '  zz'
    maxprocs = (/ 1, 2 /)
    infos = MPI_INFO_NULL
    errcodes = -1
    call spawn_multiple(prog, argvs, maxprocs, infos, inter, errcodes)
    call check(all(errcodes == MPI_SUCCESS), 'MPI_Comm_spawn_multiple: errcodes')
    call expect(inter, 3, (/ 3, 3, 3 /), (/ 1, 2, 2 /), (/ 'm1', 'm2', 'm2' /), &
                (/ '  ', 'zz', 'zz' /), 'MPI_Comm_spawn_multiple')
  end subroutine

  ! The commands are the program's path, as long as prog.
  subroutine spawn_multiple(prog, argvs, maxprocs, infos, inter, errcodes)
    character(len=*), intent(in) :: prog
    character(len=*), intent(in) :: argvs(2, 3)
    integer, intent(in) :: maxprocs(2)
    INFO_T, intent(in) :: infos(2)
    COMM_T, intent(out) :: inter
    integer, intent(out) :: errcodes(3)
    character(len=len(prog)) :: cmds(2)
    cmds = prog
    call MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, inter, &
                                 errcodes, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_spawn_multiple')
  end subroutine

#include "check.inc"
end program
