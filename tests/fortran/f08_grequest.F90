! f08_grequest: generalized requests with Fortran callbacks through `use
! mpi_f08` (MPI_Grequest_query_function & co., TYPE(MPI_Status)): MPI_Wait
! calls the query function, which fills the status, then the free
! function, each once with EXTRA_STATE; MPI_Cancel before completion calls
! the cancel function with COMPLETE = .FALSE.; an error the query function
! returns is MPI_Wait's. Any number of ranks.
module f08_grequest_cb
  use mpi_f08
  implicit none
  integer :: queries = 0, frees = 0, cancels = 0
  integer(kind=MPI_ADDRESS_KIND) :: seen_extra = -1
  logical :: seen_complete = .true.
contains
  subroutine query_fn(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    queries = queries + 1
    seen_extra = extra_state
    call MPI_Status_set_elements(status, MPI_DOUBLE_PRECISION, int(extra_state) * 2)
    call MPI_Status_set_cancelled(status, .false.)
    status%MPI_SOURCE = int(extra_state)
    status%MPI_TAG = 88
    ierror = MPI_SUCCESS
    if (extra_state == 999) ierror = MPI_ERR_OTHER
  end subroutine

  subroutine free_fn(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    frees = frees + 1
    seen_extra = extra_state
    ierror = MPI_SUCCESS
  end subroutine

  subroutine cancel_fn(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    cancels = cancels + 1
    seen_extra = extra_state
    seen_complete = complete
    ierror = MPI_SUCCESS
  end subroutine
end module

program f08_grequest
  use mpi_f08
  use f08_grequest_cb
  implicit none
  integer :: ierr, rank, nproc, count, cls
  type(MPI_Request) :: req
  type(MPI_Status) :: status
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)

  extra = 10 + rank
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call check(ierr == MPI_SUCCESS .and. req /= MPI_REQUEST_NULL, 'MPI_Grequest_start')
  call MPI_Test(req, flag, status)
  call check(.not. flag .and. queries == 0, 'incomplete before MPI_Grequest_complete')
  call MPI_Grequest_complete(req)
  call MPI_Wait(req, status, ierr)
  call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'MPI_Wait frees the request')
  call check(queries == 1 .and. frees == 1 .and. seen_extra == 10 + rank, &
             'query and free functions once each, with EXTRA_STATE')
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count)
  call check(count == 2 * (10 + rank), 'the status the query function filled: count')
  call check(status%MPI_SOURCE == 10 + rank .and. status%MPI_TAG == 88, &
             'the status the query function filled: source and tag')

  extra = 20 + rank
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req)
  call MPI_Cancel(req)
  call check(cancels == 1 .and. .not. seen_complete .and. seen_extra == 20 + rank, &
             'cancel function with COMPLETE = .FALSE. and EXTRA_STATE')
  call MPI_Grequest_complete(req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(queries == 2 .and. frees == 2, 'the cancelled request queried and freed')

  ! the query function's error is MPI_Wait's (MPI_ERRORS_RETURN on
  ! MPI_COMM_SELF, whose handler a request of no communicator raises)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)
  extra = 999
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req)
  call MPI_Grequest_complete(req)
  call MPI_Wait(req, status, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_OTHER .and. queries == 3 .and. frees == 3, &
             "the query function's error returned by MPI_Wait")

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'f08_grequest: ok on ', nproc, ' ranks'
  call MPI_Finalize()

contains
#include "check.inc"
end program
