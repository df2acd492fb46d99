! f_grequest: generalized requests with Fortran callbacks (MPI-3.1 13.2)
! through mpif.h / `use mpi`. Each rank starts its own requests: MPI_Test
! leaves one incomplete until MPI_Grequest_complete; MPI_Wait then calls
! QUERY_FN (which fills the status: count, source, tag) and FREE_FN, each
! once with the request's EXTRA_STATE; MPI_Cancel before completion calls
! CANCEL_FN with COMPLETE = .FALSE.; MPI_Request_free of an incomplete
! request leaves FREE_FN to MPI_Grequest_complete. Any number of ranks.
#include "mpi_test.h"
module f_grequest_state
  implicit none
  integer :: queries = 0, frees = 0, cancels = 0
  integer(kind=8) :: seen_extra = -1
  logical :: seen_complete = .true.
end module

subroutine query_fn(extra_state, status, ierror)
  use f_grequest_state
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: status(MPI_STATUS_SIZE), ierror
  queries = queries + 1
  seen_extra = extra_state
  call MPI_Status_set_elements(status, MPI_INTEGER, int(extra_state) + 1, ierror)
  call MPI_Status_set_cancelled(status, .false., ierror)
  status(MPI_SOURCE) = int(extra_state)
  status(MPI_TAG) = 77
  ierror = MPI_SUCCESS
end subroutine

subroutine free_fn(extra_state, ierror)
  use f_grequest_state
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: ierror
  frees = frees + 1
  seen_extra = extra_state
  ierror = MPI_SUCCESS
end subroutine

subroutine cancel_fn(extra_state, complete, ierror)
  use f_grequest_state
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  logical :: complete
  integer :: ierror
  cancels = cancels + 1
  seen_extra = extra_state
  seen_complete = complete
  ierror = MPI_SUCCESS
end subroutine

program f_grequest
  use f_grequest_state
  MPI_USE
  implicit none
  MPI_INCLUDE
  external :: query_fn, free_fn, cancel_fn
  integer :: ierr, rank, nproc, req, count, status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)

  extra = 40 + rank
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call check(ierr == MPI_SUCCESS .and. req /= MPI_REQUEST_NULL, 'MPI_Grequest_start')
  call MPI_Test(req, flag, status, ierr)
  call check(.not. flag .and. queries == 0 .and. frees == 0, 'incomplete before Grequest_complete')
  call MPI_Grequest_complete(req, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Grequest_complete')
  call MPI_Wait(req, status, ierr)
  call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'MPI_Wait frees the request')
  call check(queries == 1 .and. frees == 1 .and. seen_extra == 40 + rank, &
             'QUERY_FN and FREE_FN once each, with EXTRA_STATE')
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  call check(count == 41 + rank, 'the status QUERY_FN filled: count')
  call check(status(MPI_SOURCE) == 40 + rank .and. status(MPI_TAG) == 77, &
             'the status QUERY_FN filled: source and tag')

  ! MPI_Cancel before completion: CANCEL_FN with COMPLETE = .FALSE.
  extra = 50 + rank
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call MPI_Cancel(req, ierr)
  call check(ierr == MPI_SUCCESS .and. cancels == 1 .and. .not. seen_complete .and. &
             seen_extra == 50 + rank, 'CANCEL_FN with COMPLETE = .FALSE. and EXTRA_STATE')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check(queries == 2 .and. frees == 2, 'the cancelled request queried and freed')

  ! MPI_Request_free before completion: FREE_FN waits for Grequest_complete
  extra = 60 + rank
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  count = req
  call MPI_Request_free(req, ierr)
  call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL .and. frees == 2, &
             'MPI_Request_free of an incomplete request')
  call MPI_Grequest_complete(count, ierr)
  call check(ierr == MPI_SUCCESS .and. frees == 3 .and. seen_extra == 60 + rank, &
             'FREE_FN at MPI_Grequest_complete of a freed request')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'f_grequest: ok on ', nproc, ' ranks'
  call MPI_Finalize(ierr)

contains
#include "check.inc"
end program
