! f_callbacks: the bindings written by hand (src/binding/fort_special.c) —
! a user reduction, an error handler, attribute keyvals with Fortran copy and
! delete callbacks and the predefined ones, predefined attributes read from
! Fortran, MPI_Pcontrol. Any number of ranks.
#include "mpi_test.h"
module f_callbacks_state
  implicit none
  integer :: handler_calls = 0, handler_comm = 0, handler_code = 0
  integer :: copies = 0, deletes = 0
  integer(kind=8) :: deleted_value = 0, seen_extra = 0
end module

! keeps the larger magnitude, whatever the sign (commutative, associative)
subroutine absmax(invec, inoutvec, len, datatype)
  implicit none
  integer :: len, datatype, i
  integer :: invec(len), inoutvec(len)
  do i = 1, len
    if (abs(invec(i)) > abs(inoutvec(i))) inoutvec(i) = invec(i)
  end do
end subroutine

subroutine handler(comm, code)
  use f_callbacks_state
  implicit none
  integer :: comm, code
  handler_calls = handler_calls + 1
  handler_comm = comm
  handler_code = code
end subroutine

subroutine copy_plus_one(oldcomm, keyval, extra_state, value_in, value_out, flag, ierror)
  use f_callbacks_state
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: oldcomm, keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
  logical :: flag
  copies = copies + 1
  seen_extra = extra_state
  value_out = value_in + 1
  flag = .true.
  ierror = MPI_SUCCESS
end subroutine

subroutine record_delete(comm, keyval, value, extra_state, ierror)
  use f_callbacks_state
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: comm, keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
  deletes = deletes + 1
  deleted_value = value
  ierror = MPI_SUCCESS
end subroutine

program f_callbacks
  use f_callbacks_state
  MPI_USE
  implicit none
  MPI_INCLUDE
  external :: absmax, handler, copy_plus_one, record_delete
  integer :: ierr, rank, size, op, eh, comm, dup, key_user, key_null, key_dup, r, i, v1
  integer :: v(3), got(3), expect(3)
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Pcontrol(1)

  ! a user reduction: rank r contributes (r+1)*(-1)**r, -r, 5
  call MPI_Op_create(absmax, .true., op, ierr)
  call check(ierr == MPI_SUCCESS .and. op /= MPI_OP_NULL, 'MPI_Op_create')
  v = [(rank + 1) * (-1)**rank, -rank, 5]
  expect = [size * (-1)**(size - 1), -(size - 1), 5]
  call MPI_Allreduce(v, got, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(all(got == expect), 'MPI_Allreduce with a Fortran MPI_Op')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'MPI_Op_free')

  ! an error handler: called with the communicator and the code
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  call MPI_Comm_create_errhandler(handler, eh, ierr)
  call MPI_Comm_set_errhandler(comm, eh, ierr)
  call MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER, ierr)
  call check(handler_calls == 1 .and. handler_comm == comm .and. handler_code == MPI_ERR_OTHER, &
             'a Fortran error handler called by MPI_Comm_call_errhandler')
  call MPI_Send(v, 1, MPI_INTEGER, size + 5, 0, comm, ierr)
  call MPI_Error_class(handler_code, r, i)
  call check(handler_calls == 2 .and. r == MPI_ERR_RANK .and. ierr /= MPI_SUCCESS, &
             'a Fortran error handler called for an invalid rank')
  call MPI_Errhandler_free(eh, ierr)

  ! predefined attributes, with Fortran's key values
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag .and. val >= 32767, 'MPI_TAG_UB from Fortran')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, v1, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. flag .and. v1 == val, 'MPI_Attr_get MPI_TAG_UB')

  ! keyvals: a Fortran copy callback (value + 1) and delete callback; the
  ! predefined null and dup callbacks
  extra = 7
  call MPI_Comm_create_keyval(copy_plus_one, record_delete, key_user, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key_null, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key_dup, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_create_keyval')
  val = 41
  call MPI_Comm_set_attr(comm, key_user, val, ierr)
  val = 9
  call MPI_Comm_set_attr(comm, key_null, val, ierr)
  val = 2_MPI_ADDRESS_KIND**40
  call MPI_Comm_set_attr(comm, key_dup, val, ierr)
  call MPI_Comm_get_attr(comm, key_user, val, flag, ierr)
  call check(flag .and. val == 41, 'MPI_Comm_get_attr of a Fortran value')
  call MPI_Comm_dup(comm, dup, ierr)
  call check(copies == 1 .and. seen_extra == 7, 'the copy callback ran once with EXTRA_STATE')
  call MPI_Comm_get_attr(dup, key_user, val, flag, ierr)
  call check(flag .and. val == 42, 'the copy callback set the copy')
  call MPI_Comm_get_attr(dup, key_null, val, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN copies nothing')
  call MPI_Comm_get_attr(dup, key_dup, val, flag, ierr)
  call check(flag .and. val == 2_MPI_ADDRESS_KIND**40, 'MPI_COMM_DUP_FN copies the value')
  call MPI_Comm_free(dup, ierr)
  call check(deletes == 1 .and. deleted_value == 42, 'the delete callback ran on MPI_Comm_free')
  call MPI_Comm_delete_attr(comm, key_user, ierr)
  call check(deletes == 2 .and. deleted_value == 41, 'the delete callback ran on MPI_Comm_delete_attr')
  call MPI_Comm_free_keyval(key_user, ierr)
  call MPI_Comm_free_keyval(key_null, ierr)
  call MPI_Comm_free_keyval(key_dup, ierr)
  call MPI_Comm_free(comm, ierr)

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_callbacks: ok on ', size, ' ranks'
contains
#include "check.inc"
end program
