! f08_coll: collectives, datatypes, communicators, user operations and
! error handlers through `use mpi_f08` — MPI_IN_PLACE, strided sections in
! collectives (a gather's per-rank blocks among them), a derived datatype,
! MPI_Comm_split / groups, attribute callbacks, a user reduction taking
! TYPE(MPI_Datatype), an error handler, and IERROR present or omitted (a bad
! communicator gives MPI_ERR_COMM under MPI_ERRORS_RETURN). Any number of
! ranks.
module f08_coll_ops
  use mpi_f08
  implicit none
  integer :: handler_calls = 0, handler_code = 0
contains
  ! inoutvec(i) = max(|invec(i)|, |inoutvec(i)|): not a predefined operation
  subroutine absmax(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: x(:), y(:)
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, x, [len])
    call c_f_pointer(inoutvec, y, [len])
    y = max(abs(x), abs(y))
  end subroutine

  ! the copy is the value plus the extra state plus 1
  subroutine add_one(oldcomm, keyval, extra_state, value_in, value_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
    logical :: flag
    value_out = value_in + extra_state + 1
    flag = oldcomm /= MPI_COMM_NULL
    ierror = MPI_SUCCESS
  end subroutine

  subroutine on_error(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    if (comm == MPI_COMM_NULL) return
    handler_calls = handler_calls + 1
    handler_code = code
  end subroutine
end module

program f08_coll
  use mpi_f08
  use f08_coll_ops
  implicit none
  integer, parameter :: n = 8
  integer :: ierr, rank, nproc, i, r, cls, key, sub_rank, sub_size, ranks(1), world_rank(1)
  integer :: v(2 * n), w(3 * n), x(n), y(n)
  integer, allocatable :: all_(:), strided(:)
  type(MPI_Op) :: op
  type(MPI_Datatype) :: pair_type
  type(MPI_Comm) :: sub, dup, bad
  type(MPI_Group) :: world_group, one_group
  type(MPI_Errhandler) :: eh
  type(MPI_Status) :: status
  integer :: res, sz, counts(64), displs(64)
  integer(kind=MPI_ADDRESS_KIND) :: addr1, addr2
  character(len=MPI_MAX_OBJECT_NAME) :: name
  integer :: name_len, dims(1), coords(1)
  type(MPI_Comm) :: cart
  integer :: m2(3, 16)
  type(MPI_Request) :: req

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_rank ierror')
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  allocate(all_(n * nproc), strided(2 * n * nproc))

  ! MPI_Bcast of a strided section from the last rank
  v = -1
  if (rank == nproc - 1) v(1:2 * n:2) = [(100 + i, i = 1, n)]
  call MPI_Bcast(v(1:2 * n:2), n, MPI_INTEGER, nproc - 1, MPI_COMM_WORLD)
  call check(all(v(1:2 * n:2) == [(100 + i, i = 1, n)]) .and. all(v(2:2 * n:2) == -1), &
             'Bcast strided data')

  ! MPI_Allreduce in place: sum over ranks of (r + 1) * i = i * p(p+1)/2
  x = [((rank + 1) * i, i = 1, n)]
  call MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. all(x == [(i * nproc * (nproc + 1) / 2, i = 1, n)]), &
             'Allreduce MPI_IN_PLACE')
  ! ... and into a strided section, in place too (the datatype serves it)
  w = -1
  w(1:3 * n:3) = [((rank + 1) * i, i = 1, n)]
  call MPI_Allreduce(MPI_IN_PLACE, w(1:3 * n:3), n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(all(w(1:3 * n:3) == [(nproc * i, i = 1, n)]) .and. count(w == -1) == 2 * n, &
             'Allreduce strided MPI_IN_PLACE')
  ! MPI_Reduce to rank 0 from a strided send buffer into a strided receive one
  v = [(rank + i, i = 1, 2 * n)]
  w = 0
  call MPI_Reduce(v(2:2 * n:2), w(2:2 * n:2), n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0) call check(all(w(2:2 * n:2) == [(nproc * 2 * i + nproc * (nproc - 1) / 2, &
                                                   i = 1, n)]) .and. all(w(1:2 * n:2) == 0), &
                            'Reduce strided data')

  ! MPI_Gather into a strided receive buffer: rank r's block of n at
  ! elements r*n+1..(r+1)*n of the section
  x = [(rank * 10 + i, i = 1, n)]
  strided = -1
  call MPI_Gather(x, n, MPI_INTEGER, strided(1:2 * n * nproc:2), n, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    call check(all(strided(1:2 * n * nproc:2) == [((r * 10 + i, i = 1, n), r = 0, nproc - 1)]) &
               .and. all(strided(2:2 * n * nproc:2) == -1), 'Gather strided receive')
  end if
  ! MPI_Allgather contiguous; MPI_Scatter from a strided send buffer
  call MPI_Allgather(x, n, MPI_INTEGER, all_, n, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(all_ == [((r * 10 + i, i = 1, n), r = 0, nproc - 1)]), 'Allgather data')
  strided = 0
  strided(2:2 * n * nproc:2) = [(i, i = 1, n * nproc)]
  y = -1
  call MPI_Scatter(strided(2:2 * n * nproc:2), n, MPI_INTEGER, y, n, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call check(all(y == [(rank * n + i, i = 1, n)]), 'Scatter strided send')

  ! a derived datatype: pairs of integers 3 apart (MPI_Type_vector)
  call MPI_Type_vector(2, 1, 3, MPI_INTEGER, pair_type)
  call MPI_Type_commit(pair_type)
  v = -1
  if (rank == 0) v(1:4) = [7, -1, -1, 9]
  call MPI_Bcast(v, 1, pair_type, 0, MPI_COMM_WORLD)
  call check(v(1) == 7 .and. v(4) == 9 .and. v(2) == -1, 'Bcast derived datatype')
  call MPI_Type_size(pair_type, i)
  call check(i == 8, 'MPI_Type_size of the vector')
  call MPI_Type_free(pair_type)
  call check(pair_type == MPI_DATATYPE_NULL, 'MPI_Type_free nulls the handle')

  ! a user operation (MPI_User_function with TYPE(MPI_Datatype))
  call MPI_Op_create(absmax, .true., op)
  x = [(merge(-1, 1, mod(rank, 2) == 1) * (rank + i), i = 1, n)]
  call MPI_Allreduce(x, y, n, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(all(y == [(nproc - 1 + i, i = 1, n)]), 'user operation result')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'MPI_Op_free nulls the handle')

  ! communicators and groups: split by parity, key = -rank (reversed order)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, sub)
  call MPI_Comm_rank(sub, sub_rank)
  call MPI_Comm_size(sub, sub_size)
  call check(sub_size == (nproc + 1 - mod(rank, 2)) / 2, 'split size')
  call check(sub_rank == (nproc - 1 - rank) / 2, 'split rank (reversed)')
  call MPI_Allreduce(rank, key, 1, MPI_INTEGER, MPI_SUM, sub)
  call check(key == sum([(i, i = mod(rank, 2), nproc - 1, 2)]), 'Allreduce on the split comm')
  call MPI_Comm_dup(sub, dup)
  call MPI_Comm_compare(sub, dup, res)
  call check(res == MPI_CONGRUENT .and. dup /= sub, 'MPI_Comm_dup congruent')
  call MPI_Comm_group(MPI_COMM_WORLD, world_group)
  ranks(1) = nproc - 1
  call MPI_Group_incl(world_group, 1, ranks, one_group)
  call MPI_Group_translate_ranks(one_group, 1, [0], world_group, world_rank)
  call check(world_rank(1) == nproc - 1, 'MPI_Group_translate_ranks')
  call MPI_Group_free(one_group)
  call MPI_Group_free(world_group)
  call check(world_group == MPI_GROUP_NULL, 'MPI_Group_free nulls the handle')
  call MPI_Comm_free(dup)
  ! attributes: keyvals with an f08 copy callback (add_one: value + extra
  ! state + 1) and with the predefined MPI_COMM_DUP_FN
  call check_attr_copy(sub, add_one, 5_MPI_ADDRESS_KIND, 40_MPI_ADDRESS_KIND, 46_MPI_ADDRESS_KIND, &
                       'attribute copied by an f08 copy callback')
  call check_attr_copy(sub, MPI_COMM_DUP_FN, 0_MPI_ADDRESS_KIND, 7_MPI_ADDRESS_KIND, &
                       7_MPI_ADDRESS_KIND, 'MPI_COMM_DUP_FN')
  call MPI_Comm_free(sub)
  call check(sub == MPI_COMM_NULL, 'MPI_Comm_free nulls the handle')

  ! strings and logicals through the mpif.h glue: a communicator's name, a
  ! periodic ring (MPI_Cart_create) whose shift wraps around
  call MPI_Comm_set_name(MPI_COMM_WORLD, '  f08 world  ')
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, name_len)
  call check(name == '  f08 world' .and. name_len == 11, 'MPI_Comm_get_name')
  dims(1) = nproc
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, [.true.], .false., cart)
  call MPI_Cart_shift(cart, 0, 1, i, r)
  call check(i == mod(rank + nproc - 1, nproc) .and. r == mod(rank + 1, nproc), 'periodic Cart_shift')
  call MPI_Cart_coords(cart, rank, 1, coords)
  call check(coords(1) == rank, 'MPI_Cart_coords')
  call MPI_Comm_free(cart)

  ! errors: a bad communicator returns MPI_ERR_COMM in IERROR under
  ! MPI_ERRORS_RETURN; a user handler sees the code
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  bad%MPI_VAL = 12345
  ierr = MPI_SUCCESS
  call MPI_Send(x, 1, MPI_INTEGER, 0, 0, bad, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_COMM, 'bad communicator: MPI_ERR_COMM')
  call MPI_Send(x, 1, MPI_INTEGER, 0, 0, bad)   ! IERROR omitted: returns all the same
  call MPI_Recv(x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD, status, ierr)
  call MPI_Error_class(ierr, cls)
  call check(cls == MPI_ERR_TYPE, 'MPI_DATATYPE_NULL: MPI_ERR_TYPE')
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Send(x, 1, MPI_INTEGER, nproc + 5, 0, dup, ierr)
  call MPI_Error_class(ierr, cls)
  call check(handler_calls == 1 .and. handler_code == ierr .and. cls == MPI_ERR_RANK, &
             'user error handler called with the code')
  call MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER)
  call check(handler_calls == 2 .and. handler_code == MPI_ERR_OTHER, 'MPI_Comm_call_errhandler')
  ! a section a nonblocking v-collective cannot use in place (two
  ! dimensions, no single stride, and counts per rank: no datatype serves
  ! it): MPI_ERR_BUFFER, not data in the wrong places, through the error
  ! handler (blocking, the same section is copied: f08_sections)
  counts = n
  displs = [(i * n, i = 0, 63)]
  call MPI_Igatherv(x, n, MPI_INTEGER, m2(1:2, 1:4 * nproc), counts, displs, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, req, ierr)
  call check(ierr == MPI_ERR_BUFFER, 'Igatherv into a 2-d section: MPI_ERR_BUFFER')
  call MPI_Igatherv(x, n, MPI_INTEGER, m2(1:2, 1:4 * nproc), counts, displs, MPI_INTEGER, 0, &
                    dup, req, ierr)
  call check(ierr == MPI_ERR_BUFFER .and. handler_calls == 3 .and. handler_code == MPI_ERR_BUFFER, &
             'a refused section calls the error handler')
  call MPI_Errhandler_free(eh)
  call MPI_Comm_free(dup)

  ! Fortran-only procedures: MPI_Sizeof, MPI_F_sync_reg; MPI_Get_address of
  ! a section is its first element's
  call MPI_Sizeof(1.0d0, sz)
  call check(sz == 8, 'MPI_Sizeof(double precision)')
  call MPI_Sizeof(x, sz, ierr)
  call check(sz == 4 .and. ierr == MPI_SUCCESS, 'MPI_Sizeof(integer array)')
  call MPI_F_sync_reg(x)
  call MPI_Get_address(v(3:2 * n:2), addr1)
  call MPI_Get_address(v(3), addr2)
  call check(addr1 == addr2 .and. MPI_Aint_diff(addr1, addr2) == 0, 'MPI_Get_address of a section')

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', 'f08_coll: ok on ', nproc, ' ranks'
  call MPI_Finalize()

contains
  ! A keyval with copy_fn: value set on comm, expect read on a dup of it.
  subroutine check_attr_copy(comm, copy_fn, extra, value, expect, what)
    type(MPI_Comm), intent(in) :: comm
    procedure(MPI_Comm_copy_attr_function) :: copy_fn
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra, value, expect
    character(len=*), intent(in) :: what
    integer :: keyval
    type(MPI_Comm) :: dup
    integer(kind=MPI_ADDRESS_KIND) :: val
    logical :: found
    call MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, keyval, extra)
    call MPI_Comm_set_attr(comm, keyval, value)
    call MPI_Comm_dup(comm, dup)
    call MPI_Comm_get_attr(dup, keyval, val, found)
    call check(found .and. val == expect, what)
    call MPI_Comm_free(dup)
    call MPI_Comm_free_keyval(keyval)
  end subroutine
#include "check.inc"
end program
