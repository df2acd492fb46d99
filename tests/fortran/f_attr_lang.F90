! f_attr_lang: attributes across languages (MPI 4.1 §19.3.7, with
! f_attr_lang_c.c). An attribute set from Fortran, by MPI_COMM_SET_ATTR
! (INTEGER(KIND=MPI_ADDRESS_KIND)) or MPI_ATTR_PUT (INTEGER), is read in C
! as a pointer to the value; one set in C (a pointer) is read in Fortran as
! the address, an integer (MPI_ATTR_GET: its low-order INTEGER); Fortran
! reads back Fortran's values unchanged. Also for datatypes and windows,
! through a copy by a C MPI_COMM_DUP_FN keyval, and a Fortran copy callback
! given a C attribute (it gets the address as its value). Any number of ranks.
#include "mpi_test.h"
module f_attr_lang_state
  implicit none
  integer(kind=8) :: copy_in = 0
end module

subroutine copy_same(oldcomm, keyval, extra_state, value_in, value_out, flag, ierror)
  use f_attr_lang_state
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: oldcomm, keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
  logical :: flag
  copy_in = value_in
  value_out = value_in
  flag = .true.
  ierror = MPI_SUCCESS
end subroutine

program f_attr_lang
  use f_attr_lang_state
  MPI_USE
  implicit none
  MPI_INCLUDE
  interface
    subroutine c_comm_get_aint(comm, key, expected, ok) bind(C, name='c_comm_get_aint')
      import
      integer :: comm, key, ok
      integer(kind=MPI_ADDRESS_KIND) :: expected
    end subroutine
    subroutine c_type_get_aint(type, key, expected, ok) bind(C, name='c_type_get_aint')
      import
      integer :: type, key, ok
      integer(kind=MPI_ADDRESS_KIND) :: expected
    end subroutine
    subroutine c_win_get_aint(win, key, expected, ok) bind(C, name='c_win_get_aint')
      import
      integer :: win, key, ok
      integer(kind=MPI_ADDRESS_KIND) :: expected
    end subroutine
    subroutine c_comm_get_int(comm, key, expected, ok) bind(C, name='c_comm_get_int')
      integer :: comm, key, expected, ok
    end subroutine
    subroutine c_comm_set_ptr(comm, key, addr, low, ok) bind(C, name='c_comm_set_ptr')
      import
      integer :: comm, key, low, ok
      integer(kind=MPI_ADDRESS_KIND) :: addr
    end subroutine
    subroutine c_win_set_ptr(win, key, addr, ok) bind(C, name='c_win_set_ptr')
      import
      integer :: win, key, ok
      integer(kind=MPI_ADDRESS_KIND) :: addr
    end subroutine
    subroutine c_comm_get_ptr(comm, key, ok) bind(C, name='c_comm_get_ptr')
      integer :: comm, key, ok
    end subroutine
    subroutine c_create_dup_keyval(key) bind(C, name='c_create_dup_keyval')
      integer :: key
    end subroutine
  end interface
  external :: copy_same
  integer :: ierr, rank, size, key_a, key_i, key_t, key_w, key_cdup, key_fcopy, ok, ival, low, dtype, win, dup
  integer :: iextra, buf(4)
  integer(kind=MPI_ADDRESS_KIND) :: aval, val, addr, extra
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  extra = 0
  iextra = 0
  ! wider than an INTEGER and negative: every byte of the value matters
  aval = -(2_MPI_ADDRESS_KIND**40 + 12345 + rank)

  ! Fortran MPI_COMM_SET_ATTR -> C: a pointer to the value
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key_a, extra, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key_a, aval, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_set_attr')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key_a, val, flag, ierr)
  call check(flag .and. val == aval, 'Fortran reads the address-kind value Fortran set')
  call c_comm_get_aint(MPI_COMM_WORLD, key_a, aval, ok)
  call check(ok == 1, 'C reads a pointer to the value MPI_COMM_SET_ATTR set')

  ! Fortran MPI_ATTR_PUT (INTEGER) -> C: a pointer to an int holding it
  call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, key_i, iextra, ierr)
  ival = -123456789 - rank
  call MPI_Attr_put(MPI_COMM_WORLD, key_i, ival, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Attr_put')
  call MPI_Attr_get(MPI_COMM_WORLD, key_i, low, flag, ierr)
  call check(flag .and. low == ival, 'MPI_Attr_get reads the INTEGER MPI_Attr_put set')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key_i, val, flag, ierr)
  call check(flag .and. val == ival, 'MPI_Comm_get_attr reads the INTEGER MPI_Attr_put set')
  call c_comm_get_int(MPI_COMM_WORLD, key_i, ival, ok)
  call check(ok == 1, 'C reads a pointer to the INTEGER MPI_ATTR_PUT set')

  ! C MPI_Comm_set_attr (a pointer) -> Fortran: the address as an integer
  call c_comm_set_ptr(MPI_COMM_WORLD, key_a, addr, low, ok)
  call check(ok == 1, 'C sets and reads back its pointer')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key_a, val, flag, ierr)
  call check(flag .and. val == addr, 'MPI_Comm_get_attr reads the address C set')
  call MPI_Attr_get(MPI_COMM_WORLD, key_a, ival, flag, ierr)
  call check(flag .and. ival == low, 'MPI_Attr_get reads the address C set, as an INTEGER')

  ! datatypes: Fortran -> C
  call MPI_Type_dup(MPI_INTEGER, dtype, ierr)
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, key_t, extra, ierr)
  call MPI_Type_set_attr(dtype, key_t, aval - 1, ierr)
  call MPI_Type_get_attr(dtype, key_t, val, flag, ierr)
  call check(flag .and. val == aval - 1, 'Fortran reads the datatype attribute Fortran set')
  call c_type_get_aint(dtype, key_t, aval - 1, ok)
  call check(ok == 1, 'C reads a pointer to the value MPI_TYPE_SET_ATTR set')

  ! windows: Fortran -> C, C -> Fortran
  call MPI_Win_create(buf, 0_MPI_ADDRESS_KIND, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, key_w, extra, ierr)
  call MPI_Win_set_attr(win, key_w, aval - 2, ierr)
  call c_win_get_aint(win, key_w, aval - 2, ok)
  call check(ok == 1, 'C reads a pointer to the value MPI_WIN_SET_ATTR set')
  call c_win_set_ptr(win, key_w, addr, ok)
  call MPI_Win_get_attr(win, key_w, val, flag, ierr)
  call check(ok == 1 .and. flag .and. val == addr, 'MPI_Win_get_attr reads the address C set')

  ! a C keyval with MPI_COMM_DUP_FN copies a Fortran value as a value
  call c_create_dup_keyval(key_cdup)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key_cdup, aval - 3, ierr)
  ! a Fortran copy callback gets a C attribute's address as its value
  call MPI_Comm_create_keyval(copy_same, MPI_COMM_NULL_DELETE_FN, key_fcopy, extra, ierr)
  call c_comm_set_ptr(MPI_COMM_WORLD, key_fcopy, addr, low, ok)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, key_cdup, val, flag, ierr)
  call check(flag .and. val == aval - 3, 'MPI_COMM_DUP_FN (C) copies the Fortran value')
  call c_comm_get_aint(dup, key_cdup, aval - 3, ok)
  call check(ok == 1, 'C reads a pointer to the copied Fortran value')
  call check(copy_in == addr, 'the Fortran copy callback gets the address C set')
  call MPI_Comm_get_attr(dup, key_fcopy, val, flag, ierr)
  call check(flag .and. val == addr, 'the copy of a C attribute holds its address')
  call c_comm_get_ptr(dup, key_fcopy, ok)
  call check(ok == 1, 'C reads its own pointer from the copy')
  call MPI_Comm_free(dup, ierr)

  call MPI_Win_free(win, ierr)
  call MPI_Type_free(dtype, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key_a, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key_i, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key_cdup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key_fcopy, ierr)
  call MPI_Comm_free_keyval(key_a, ierr)
  call MPI_Keyval_free(key_i, ierr)
  call MPI_Comm_free_keyval(key_cdup, ierr)
  call MPI_Comm_free_keyval(key_fcopy, ierr)
  call MPI_Type_free_keyval(key_t, ierr)
  call MPI_Win_free_keyval(key_w, ierr)
  call check(ierr == MPI_SUCCESS, 'freeing the keyvals')

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_attr_lang: ok on ', size, ' ranks'
contains
#include "check.inc"
end program
