! f_topo_group: the process topologies, groups and communicator
! constructors from Fortran, every result checked against MPI 4.1, through
! mpif.h, `use mpi` (mpi_test.h) and `use mpi_f08` (-DRDMACH_USE_F08):
!   MPI_DIMS_CREATE (§8.5.2)  the free entries as close to each other as
!       possible, in non-increasing order; positive entries kept (12 in 2-D:
!       4 x 3; 72: 9 x 8; 6 with (0, 3, 0): (2, 3, 1); 24 with (0, 3, 0):
!       (4, 3, 2); ...); NDIMS 0 with NNODES 1: MPI_SUCCESS.
!   Cartesian topologies (§8.5.1, 8.5.5-8.5.8)  MPI_CART_CREATE with and
!       without reorder, periodic and not, a grid smaller than the group
!       (MPI_COMM_NULL outside it) and a zero-dimensional one (MPI_CART_GET
!       and MPI_CART_COORDS leave their outputs, MPI_CART_RANK gives 0);
!       MPI_CARTDIM_GET, MPI_CART_GET (LOGICAL periods), MPI_CART_RANK (a
!       periodic coordinate out of range is shifted back), MPI_CART_COORDS
!       (row-major), MPI_CART_SHIFT (MPI_PROC_NULL past a non-periodic
!       edge), MPI_CART_SUB (LOGICAL remain_dims; none kept: a
!       zero-dimensional topology), MPI_CART_MAP (MPI_UNDEFINED outside the
!       grid); the topology kept by MPI_COMM_DUP; MPI_NEIGHBOR_ALLGATHER's
!       order (§8.6: per dimension the negative, then the positive
!       neighbour; an MPI_PROC_NULL neighbour's block untouched).
!   graph topologies (§8.5.3, 8.5.5, 8.5.8)  MPI_GRAPH_CREATE (self-loop,
!       nnodes below the group size; 0: MPI_COMM_NULL everywhere),
!       MPI_GRAPHDIMS_GET, MPI_GRAPH_GET,
!       MPI_GRAPH_NEIGHBORS_COUNT, MPI_GRAPH_NEIGHBORS, MPI_GRAPH_MAP.
!   distributed graphs (§8.5.4, 8.5.5)  MPI_DIST_GRAPH_CREATE_ADJACENT and
!       MPI_DIST_GRAPH_CREATE with weights, with MPI_UNWEIGHTED and with
!       MPI_WEIGHTS_EMPTY at ranks without edges (the sentinels recognised
!       by address in every build: mpif.h's and module mpi's common block
!       scalars, mpi_f08's arrays); MPI_DIST_GRAPH_NEIGHBORS_COUNT's
!       WEIGHTED (.FALSE. only for MPI_UNWEIGHTED); MPI_DIST_GRAPH_NEIGHBORS
!       (the adjacent lists in their order, only the first MAXINDEGREE /
!       MAXOUTDEGREE returned when those are smaller than the degrees; the
!       other's as a multiset, the same twice; no weights written for an
!       unweighted graph); the lists of node q at rank q when reordered.
!   groups (§7.3)  MPI_GROUP_SIZE/RANK (MPI_UNDEFINED outside), _INCL,
!       _EXCL, _RANGE_INCL/EXCL (INTEGER RANGES(3, N), negative stride),
!       _UNION (group1's, then group2's others in group2's order),
!       _INTERSECTION and _DIFFERENCE (in group1's order, MPI_GROUP_EMPTY
!       when empty), _COMPARE (MPI_IDENT, MPI_SIMILAR, MPI_UNEQUAL),
!       _TRANSLATE_RANKS (MPI_PROC_NULL kept, MPI_UNDEFINED where none),
!       _FREE (MPI_GROUP_NULL).
!   communicators (§7.4, 7.8)  MPI_COMM_DUP, _DUP_WITH_INFO, _IDUP,
!       _IDUP_WITH_INFO (two outstanding at once, then used: NEWCOMM is the
!       program's variable, which MPI may write when the request
!       completes, ASYNCHRONOUS in mpi_f08), _CREATE (one
!       group, and disjoint groups), _CREATE_GROUP, _SPLIT (key order,
!       MPI_UNDEFINED), _SPLIT_TYPE (MPI_COMM_TYPE_SHARED, key order, a
!       partition of the ranks; MPI_UNDEFINED), _COMPARE (MPI_IDENT,
!       MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL; MPI_COMM_WORLD and
!       MPI_COMM_SELF congruent on one rank), _TEST_INTER, _SET_INFO /
!       _GET_INFO (MPI_INFO_GET with Fortran strings; a hint read back is
!       the one set: an implementation may ignore hints), _SET_NAME /
!       _GET_NAME (blank-padded; the predefined names; no name: blanks),
!       _FREE (MPI_COMM_NULL).
!   intercommunicators (§7.6, 2 ranks or more)  MPI_INTERCOMM_CREATE from
!       two halves of MPI_COMM_WORLD, MPI_COMM_TEST_INTER, _REMOTE_SIZE,
!       _REMOTE_GROUP, point-to-point across it (MPI_SOURCE a remote rank),
!       its duplicate, MPI_INTERCOMM_MERGE (the HIGH = .FALSE. group first).
!   sessions (§11.3)  MPI_SESSION_INIT (thread_level), _GET_INFO,
!       _GET_NUM_PSETS, _GET_PSET_INFO (mpi_size; an info key's blanks are
!       not part of it, §10), MPI_GROUP_FROM_SESSION_PSET
!       (mpi://WORLD, mpi://SELF), MPI_COMM_CREATE_FROM_GROUP and
!       MPI_INTERCOMM_CREATE_FROM_GROUPS (string tags), _FINALIZE.
!   attributes (§7.7, 9.1.2, 11.10)  MPI_COMM_CREATE_KEYVAL with Fortran
!       callbacks and MPI_COMM_NULL_COPY_FN / MPI_COMM_DUP_FN /
!       MPI_COMM_NULL_DELETE_FN; copies by MPI_COMM_DUP, _IDUP and
!       _DUP_WITH_INFO; MPI_COMM_SET_ATTR over a value deletes it first;
!       MPI_COMM_FREE_KEYVAL (COMM_KEYVAL is INOUT: a keyval copied into a
!       variable just before the call; MPI_KEYVAL_INVALID after; the
!       attribute stays until its communicator goes); MPI_TAG_UB, MPI_IO,
!       MPI_HOST,
!       MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE as
!       INTEGER(KIND=MPI_ADDRESS_KIND); MPI_COMM_SELF's attributes deleted
!       by MPI_FINALIZE in the reverse order of setting (§11.2); and with
!       mpif.h and `use mpi` only, the deprecated MPI_ATTR_GET, _PUT and
!       _DELETE (MPI-2.0 deprecated, not in mpi_f08).
! Layout: MPI_DIMS_CREATE's cases are a table; a query-and-check repeated
! for several objects is one helper subroutine (topo_is, compare_is,
! cart_is, cart_get_is, cart_sub_line, zero_dim, gathered_perm,
! dist_graph_is, unweighted_nbrs, hint_read_back, name_is);
! one delete callback serves both the attributes of §7.7 and MPI_COMM_SELF's.
! Any number of ranks: what needs 2 is skipped on 1. Built with MPICH's
! mpif90 (its mpif.h or module mpi, 4.0.2), define RDMACH_MPICH_BUILD:
! neither has MPI_SESSION_NULL, so MPI_SESSION_FINALIZE's result is not
! compared with it there.
#ifdef RDMACH_USE_F08
#define MPI_USE use mpi_f08
#define MPI_INCLUDE
#define COMM_T type(MPI_Comm)
#define GROUP_T type(MPI_Group)
#define INFO_T type(MPI_Info)
#define REQ_T type(MPI_Request)
#define SESSION_T type(MPI_Session)
#define STATUS_DECL(s) type(MPI_Status) :: s
#define SOURCE_OF(s) s%MPI_SOURCE
#else
#include "mpi_test.h"
#define COMM_T integer
#define GROUP_T integer
#define INFO_T integer
#define REQ_T integer
#define SESSION_T integer
#define STATUS_DECL(s) integer :: s(MPI_STATUS_SIZE)
#define SOURCE_OF(s) s(MPI_SOURCE)
#endif

! The attribute callbacks and what they saw (MPI private to the module: the
! program has its own).
module f_topo_group_cb
  MPI_USE
  implicit none
  MPI_INCLUDE
  private
  public :: copy_plus_one, record_delete
  integer, public :: copies = 0, deletes = 0, self_deletes = 0
  integer, public :: self_order(4) = -1
  integer(kind=8), public :: deleted_value = -1, seen_extra = -1
contains
  ! copies value + 1
  subroutine copy_plus_one(oldcomm, keyval, extra_state, value_in, value_out, flag, ierror)
    COMM_T :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
    logical :: flag
    copies = copies + 1
    seen_extra = extra_state
    value_out = value_in + 1
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine

  ! records the value deleted; MPI_COMM_SELF's (at MPI_FINALIZE) in order
  subroutine record_delete(comm, keyval, value, extra_state, ierror)
    COMM_T :: comm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
    if (comm == MPI_COMM_SELF) then
      self_deletes = self_deletes + 1
      if (self_deletes <= 4) self_order(self_deletes) = int(value)
    else
      deletes = deletes + 1
      deleted_value = value
    end if
    ierror = MPI_SUCCESS
  end subroutine
end module

program f_topo_group
  use f_topo_group_cb
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, size

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')

  call dims_create()
  call cartesian()
  call graph()
  call dist_graph_adjacent()
  call dist_graph_general()
  call groups()
  call comm_construct()
  call comm_info_name()
  if (size >= 2) call intercomms()
  call sessions()
  call attributes()
  call self_attributes()

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  ! MPI_FINALIZE deleted MPI_COMM_SELF's attributes, the last set first
  if (self_deletes /= 2 .or. self_order(1) /= 2 .or. self_order(2) /= 1) then
    print '(a, i0, a, 3(1x, i0))', 'rank ', rank, &
      ': FAILED: MPI_Finalize deletes MPI_COMM_SELF''s attributes in reverse order: calls, order', &
      self_deletes, self_order(1:2)
    flush(6)
    error stop 1
  end if
  if (rank == 0) print '(a, i0, a)', 'f_topo_group: ok on ', size, ' ranks'

contains

  ! ---------------------------------------------------------------- helpers

  ! the world rank of rank r of comm (its local group)
  integer function world_rank(comm, r)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: r
    GROUP_T :: g, gw
    integer :: in(1), out(1)
    call MPI_Comm_group(comm, g, ierr)
    call MPI_Comm_group(MPI_COMM_WORLD, gw, ierr)
    in(1) = r
    call MPI_Group_translate_ranks(g, 1, in, gw, out, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Group_translate_ranks (world_rank)')
    call MPI_Group_free(g, ierr)
    call MPI_Group_free(gw, ierr)
    world_rank = out(1)
  end function

  ! the world ranks of g's members, in g's order (n of them)
  subroutine members(g, n, w)
    GROUP_T, intent(in) :: g
    integer, intent(in) :: n
    integer, intent(out) :: w(*)
    GROUP_T :: gw
    integer :: i, in(max(n, 1))
    call MPI_Comm_group(MPI_COMM_WORLD, gw, ierr)
    in(1:n) = [(i, i = 0, n - 1)]
    call MPI_Group_translate_ranks(g, n, in, gw, w, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Group_translate_ranks (members)')
    call MPI_Group_free(gw, ierr)
  end subroutine

  ! a group's members (world ranks) are want(1:n), in that order
  logical function group_is(g, n, want)
    GROUP_T, intent(in) :: g
    integer, intent(in) :: n, want(*)
    integer :: gs, w(max(n, 1))
    call MPI_Group_size(g, gs, ierr)
    group_is = gs == n
    if (.not. group_is) return
    call members(g, n, w)
    group_is = all(w(1:n) == want(1:n))
  end function

  ! a(1:n) and b(1:n) hold the same values, each as often (as multisets)
  pure logical function same_multiset(a, b, n)
    integer, intent(in) :: a(*), b(*), n
    integer :: i
    same_multiset = all([(count(a(1:n) == a(i)) == count(b(1:n) == a(i)), i = 1, n)])
  end function

  ! MPI_Topo_test(comm): want
  subroutine topo_is(comm, want, what)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: want
    character(len=*), intent(in) :: what
    integer :: k
    call MPI_Topo_test(comm, k, ierr)
    call check(ierr == MPI_SUCCESS .and. k == want, what)
  end subroutine

  ! MPI_Comm_compare(c1, c2) or MPI_Group_compare(g1, g2), whichever pair is
  ! given: want (or also)
  subroutine compare_is(want, what, c1, c2, g1, g2, also)
    integer, intent(in) :: want
    character(len=*), intent(in) :: what
    COMM_T, intent(in), optional :: c1, c2
    GROUP_T, intent(in), optional :: g1, g2
    integer, intent(in), optional :: also
    integer :: res
    logical :: ok
    if (present(c1)) then
      call MPI_Comm_compare(c1, c2, res, ierr)
    else
      call MPI_Group_compare(g1, g2, res, ierr)
    end if
    ok = res == want
    if (present(also)) ok = ok .or. res == also
    call check(ierr == MPI_SUCCESS .and. ok, what)
  end subroutine

  ! --------------------------------------------------------- MPI_Dims_create

  ! Each case: NNODES, NDIMS, DIMS given and DIMS wanted (the first
  ! max(NDIMS, 1) entries; NDIMS 0 leaves DIMS as it is).
  subroutine dims_create()
    type dims_case
      integer :: nnodes, ndims, given(4), want(4)
      character(len=40) :: what
    end type
    type(dims_case), parameter :: cases(17) = [ &
      dims_case(12, 2, [0, 0, 0, 0], [4, 3, 0, 0], '(12, 2): 4 x 3'), &
      dims_case(72, 2, [0, 0, 0, 0], [9, 8, 0, 0], '(72, 2): 9 x 8'), &
      dims_case(7, 2, [0, 0, 0, 0], [7, 1, 0, 0], '(7, 2): 7 x 1'), &
      dims_case(6, 2, [0, 2, 0, 0], [3, 2, 0, 0], '(6, (0, 2)): 3 x 2'), &
      dims_case(6, 2, [2, 0, 0, 0], [2, 3, 0, 0], '(6, (2, 0)): 2 x 3 (fixed kept)'), &
      dims_case(6, 2, [2, 3, 0, 0], [2, 3, 0, 0], '(6, (2, 3)): unchanged'), &
      dims_case(1, 3, [0, 0, 0, 0], [1, 1, 1, 0], '(1, 3): 1 x 1 x 1'), &
      dims_case(30, 3, [0, 0, 0, 0], [5, 3, 2, 0], '(30, 3): 5 x 3 x 2'), &
      dims_case(36, 3, [0, 0, 0, 0], [4, 3, 3, 0], '(36, 3): 4 x 3 x 3'), &
      dims_case(100, 3, [0, 0, 0, 0], [5, 5, 4, 0], '(100, 3): 5 x 5 x 4'), &
      dims_case(13, 3, [0, 0, 0, 0], [13, 1, 1, 0], '(13, 3): 13 x 1 x 1'), &
      dims_case(6, 3, [0, 3, 0, 0], [2, 3, 1, 0], '(6, (0, 3, 0)): 2 x 3 x 1'), &
      dims_case(24, 3, [0, 3, 0, 0], [4, 3, 2, 0], '(24, (0, 3, 0)): 4 x 3 x 2'), &
      dims_case(20, 3, [0, 0, 5, 0], [2, 2, 5, 0], '(20, (0, 0, 5)): 2 x 2 x 5'), &
      dims_case(16, 4, [0, 0, 0, 0], [2, 2, 2, 2], '(16, 4): 2 x 2 x 2 x 2'), &
      dims_case(27, 4, [0, 1, 0, 0], [3, 1, 3, 3], '(27, (0, 1, 0, 0)): 3 x 1 x 3 x 3'), &
      dims_case(1, 0, [-5, 0, 0, 0], [-5, 0, 0, 0], '(1, 0): MPI_SUCCESS')]
    integer :: b, i, n

    do i = 1, ubound(cases, 1)
      n = max(cases(i)%ndims, 1)
      call dims_is(cases(i)%nnodes, cases(i)%ndims, cases(i)%given(1:n), cases(i)%want(1:n), trim(cases(i)%what))
    end do
    call dims_is(size, 1, [0], [size], '(size, 1)')
    ! the closest pair: b the largest divisor of size not above its square root
    b = 1
    do i = 1, size
      if (i * i > size) exit
      if (mod(size, i) == 0) b = i
    end do
    call dims_is(size, 2, [0, 0], [size / b, b], '(size, 2)')
  end subroutine

  ! MPI_Dims_create(nnodes, ndims, dims) with dims = given: want
  subroutine dims_is(nnodes, ndims, given, want, what)
    integer, intent(in) :: nnodes, ndims, given(max(ndims, 1)), want(max(ndims, 1))
    character(len=*), intent(in) :: what
    integer :: dims(max(ndims, 1))
    dims = given
    call MPI_Dims_create(nnodes, ndims, dims, ierr)
    call check(ierr == MPI_SUCCESS .and. all(dims == want), 'MPI_Dims_create' // what)
  end subroutine

  ! ------------------------------------------------------ Cartesian topologies

  subroutine cartesian()
    COMM_T :: cart, dup, sub, line, zero, cart3
    integer :: dims(2), coords(2), c(2), d1(1), c1(1), d3(3), c3(3), cc(3)
    integer :: r, i, j, src, dst, m, newrank, s, got, inside, nbr(4), expect(4)
    logical :: periods(2), remain(2), p1(1), p3(3)
    STATUS_DECL(st)

    dims = 0
    call MPI_Dims_create(size, 2, dims, ierr)
    periods = [.true., .false.]
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
    call check(ierr == MPI_SUCCESS .and. cart /= MPI_COMM_NULL, 'MPI_Cart_create')
    call MPI_Comm_rank(cart, r, ierr)
    call check(r == rank, 'MPI_Cart_create without reorder: the ranks unchanged')
    call cart_is(cart, size, 2, 'MPI_Cart_create')
    call compare_is(MPI_CONGRUENT, &
                    'MPI_Comm_compare(Cartesian without reorder, world): MPI_CONGRUENT', c1=cart, c2=MPI_COMM_WORLD)
    call topo_is(MPI_COMM_WORLD, MPI_UNDEFINED, 'MPI_Topo_test(MPI_COMM_WORLD): MPI_UNDEFINED')
    call topo_is(MPI_COMM_SELF, MPI_UNDEFINED, 'MPI_Topo_test(MPI_COMM_SELF): MPI_UNDEFINED')
    call cart_get_is(cart, 2, dims, periods, coords, 'MPI_Cart_get')
    call check(all(coords == [rank / dims(2), mod(rank, dims(2))]), 'MPI_Cart_get: coords (row-major)')

    ! every rank's coordinates and back
    do i = 0, size - 1
      c = -1
      call MPI_Cart_coords(cart, i, 2, c, ierr)
      call check(ierr == MPI_SUCCESS .and. all(c == [i / dims(2), mod(i, dims(2))]), 'MPI_Cart_coords')
      call MPI_Cart_rank(cart, c, j, ierr)
      call check(ierr == MPI_SUCCESS .and. j == i, 'MPI_Cart_rank of MPI_Cart_coords')
    end do
    ! a periodic dimension's coordinate out of range is shifted back
    c = [coords(1) + dims(1), coords(2)]
    call MPI_Cart_rank(cart, c, j, ierr)
    call check(ierr == MPI_SUCCESS .and. j == rank, 'MPI_Cart_rank: periodic coordinate + dims')
    c = [coords(1) - 2 * dims(1), coords(2)]
    call MPI_Cart_rank(cart, c, j, ierr)
    call check(ierr == MPI_SUCCESS .and. j == rank, 'MPI_Cart_rank: periodic coordinate - 2 dims')

    ! MPI_Cart_shift: direction 0 periodic, 1 not
    call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
    call check(ierr == MPI_SUCCESS .and. &
               src == mod(coords(1) - 1 + dims(1), dims(1)) * dims(2) + coords(2) .and. &
               dst == mod(coords(1) + 1, dims(1)) * dims(2) + coords(2), 'MPI_Cart_shift(0, 1), periodic')
    call MPI_Cart_shift(cart, 0, 2, src, dst, ierr)
    call check(src == mod(coords(1) - 2 + 2 * dims(1), dims(1)) * dims(2) + coords(2) .and. &
               dst == mod(coords(1) + 2, dims(1)) * dims(2) + coords(2), 'MPI_Cart_shift(0, 2), periodic')
    call MPI_Cart_shift(cart, 1, 1, src, dst, ierr)
    call check(ierr == MPI_SUCCESS .and. &
               src == merge(rank - 1, MPI_PROC_NULL, coords(2) > 0) .and. &
               dst == merge(rank + 1, MPI_PROC_NULL, coords(2) < dims(2) - 1), &
               'MPI_Cart_shift(1, 1), not periodic: MPI_PROC_NULL past the edges')
    call MPI_Cart_shift(cart, 1, -1, src, dst, ierr)
    call check(dst == merge(rank - 1, MPI_PROC_NULL, coords(2) > 0) .and. &
               src == merge(rank + 1, MPI_PROC_NULL, coords(2) < dims(2) - 1), 'MPI_Cart_shift(1, -1)')
    call MPI_Cart_shift(cart, 1, dims(2), src, dst, ierr)
    call check(src == MPI_PROC_NULL .and. dst == MPI_PROC_NULL, 'MPI_Cart_shift(1, dims(2)): MPI_PROC_NULL')
    ! the shifts used: along 0 each gets its source's rank; along 1 a
    ! receive from MPI_PROC_NULL leaves the buffer
    call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, dst, 11, got, 1, MPI_INTEGER, src, 11, cart, st, ierr)
    call check(ierr == MPI_SUCCESS .and. got == src .and. SOURCE_OF(st) == src, 'MPI_Sendrecv along MPI_Cart_shift(0)')
    call MPI_Cart_shift(cart, 1, 1, src, dst, ierr)
    got = -7
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, dst, 12, got, 1, MPI_INTEGER, src, 12, cart, st, ierr)
    call check(ierr == MPI_SUCCESS .and. got == merge(src, -7, src /= MPI_PROC_NULL) .and. &
               SOURCE_OF(st) == src, 'MPI_Sendrecv along MPI_Cart_shift(1)')
    ! MPI_Neighbor_allgather: (-0, +0, -1, +1); MPI_PROC_NULL's block untouched
    nbr = -7
    call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, nbr, 1, MPI_INTEGER, cart, ierr)
    do i = 0, 1
      call MPI_Cart_shift(cart, i, 1, src, dst, ierr)
      expect(2 * i + 1) = merge(src, -7, src /= MPI_PROC_NULL)
      expect(2 * i + 2) = merge(dst, -7, dst /= MPI_PROC_NULL)
    end do
    call check(ierr == MPI_SUCCESS .and. all(nbr == expect), 'MPI_Neighbor_allgather on a Cartesian topology')

    ! MPI_Comm_dup keeps the topology
    call MPI_Comm_dup(cart, dup, ierr)
    call topo_is(dup, MPI_CART, 'MPI_Comm_dup of a Cartesian communicator: MPI_CART')
    call cart_get_is(dup, 2, dims, periods, c, 'MPI_Cart_get of the duplicate')
    call check(all(c == coords), 'MPI_Cart_get of the duplicate: coords')
    call MPI_Comm_free(dup, ierr)

    ! MPI_Cart_sub: a row (dimension 1 kept), a column (0 kept), nothing kept
    call cart_sub_line(cart, 2, dims, periods, coords, sub, 'MPI_Cart_sub((F, T)), a row')
    call MPI_Allreduce(rank, got, 1, MPI_INTEGER, MPI_SUM, sub, ierr)
    call check(got == coords(1) * dims(2) * dims(2) + dims(2) * (dims(2) - 1) / 2, 'MPI_Allreduce over a row')
    call MPI_Comm_free(sub, ierr)
    call check(sub == MPI_COMM_NULL, 'MPI_Comm_free: MPI_COMM_NULL')
    call cart_sub_line(cart, 1, dims, periods, coords, sub, 'MPI_Cart_sub((T, F)), a column')
    call MPI_Comm_free(sub, ierr)
    remain = .false.
    call MPI_Cart_sub(cart, remain, sub, ierr)
    call check(ierr == MPI_SUCCESS .and. sub /= MPI_COMM_NULL, 'MPI_Cart_sub((F, F))')
    call zero_dim(sub, 'MPI_Cart_sub((F, F))')

    ! MPI_Cart_map: a permutation of the ranks; outside a smaller grid MPI_UNDEFINED
    call MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, newrank, ierr)
    call check(ierr == MPI_SUCCESS .and. newrank >= 0 .and. newrank < size, 'MPI_Cart_map')
    call gathered_perm(newrank, size, 'MPI_Cart_map')
    m = max(1, size - 1)
    p1 = .false.
    call MPI_Cart_map(MPI_COMM_WORLD, 1, [m], p1, newrank, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Cart_map of a smaller grid')
    call gathered_perm(newrank, m, 'MPI_Cart_map of a smaller grid')

    ! a smaller 1-D grid, reordered: m processes get it, the others MPI_COMM_NULL
    call MPI_Cart_create(MPI_COMM_WORLD, 1, [m], p1, .true., line, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Cart_create of a smaller grid')
    inside = merge(1, 0, line /= MPI_COMM_NULL)
    call MPI_Allreduce(MPI_IN_PLACE, inside, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(inside == m, 'MPI_Cart_create of a smaller grid: MPI_COMM_NULL outside it')
    if (line /= MPI_COMM_NULL) then
      call MPI_Comm_size(line, s, ierr)
      call MPI_Comm_rank(line, r, ierr)
      call MPI_Cart_coords(line, r, 1, c1, ierr)
      call check(s == m .and. c1(1) == r, 'a 1-D grid: its coordinate is its rank')
      call MPI_Cart_shift(line, 0, 1, src, dst, ierr)
      call check(src == merge(r - 1, MPI_PROC_NULL, r > 0) .and. dst == merge(r + 1, MPI_PROC_NULL, r < m - 1), &
                 'MPI_Cart_shift of a non-periodic line')
      call MPI_Comm_free(line, ierr)
    end if

    ! zero-dimensional, not reordered: rank 0 alone
    call MPI_Cart_create(MPI_COMM_WORLD, 0, d1, p1, .false., zero, ierr)
    call check(ierr == MPI_SUCCESS .and. (zero /= MPI_COMM_NULL .eqv. rank == 0), &
               'MPI_Cart_create with ndims 0: rank 0 alone')
    if (zero /= MPI_COMM_NULL) call zero_dim(zero, 'MPI_Cart_create(ndims 0)')

    ! 3-D, all periodic, reordered: consistent coordinates and shifts
    d3 = 0
    call MPI_Dims_create(size, 3, d3, ierr)
    p3 = .true.
    call MPI_Cart_create(MPI_COMM_WORLD, 3, d3, p3, .true., cart3, ierr)
    call check(ierr == MPI_SUCCESS .and. cart3 /= MPI_COMM_NULL, 'MPI_Cart_create 3-D reordered')
    call MPI_Comm_rank(cart3, r, ierr)
    call cart_is(cart3, size, 3, 'MPI_Cart_create 3-D reordered')
    call compare_is(MPI_CONGRUENT, &
                    'MPI_Cart_create reordered: the same processes', c1=cart3, c2=MPI_COMM_WORLD, also=MPI_SIMILAR)
    call gathered_perm(r, size, 'MPI_Cart_create reordered')
    call cart_get_is(cart3, 3, d3, p3, c3, 'MPI_Cart_get 3-D')
    call MPI_Cart_coords(cart3, r, 3, cc, ierr)
    call check(all(cc == c3) .and. c3(1) * d3(2) * d3(3) + c3(2) * d3(3) + c3(3) == r, &
               'MPI_Cart_coords 3-D: row-major')
    do i = 1, 3
      call MPI_Cart_shift(cart3, i - 1, 1, src, dst, ierr)
      cc = c3
      cc(i) = mod(c3(i) + 1, d3(i))
      call MPI_Cart_rank(cart3, cc, j, ierr)
      call check(dst == j, 'MPI_Cart_shift 3-D: destination')
      cc(i) = c3(i) - 1
      call MPI_Cart_rank(cart3, cc, j, ierr)
      call check(src == j, 'MPI_Cart_shift 3-D: source (coordinate -1 shifted back)')
      call MPI_Sendrecv(r, 1, MPI_INTEGER, dst, 13, got, 1, MPI_INTEGER, src, 13, cart3, MPI_STATUS_IGNORE, ierr)
      call check(got == src, 'MPI_Sendrecv along a 3-D shift')
    end do
    call MPI_Comm_free(cart3, ierr)
    call MPI_Comm_free(cart, ierr)
  end subroutine

  ! A zero-dimensional Cartesian topology (§8.5.5), freed at the end: one
  ! process; MPI_CART_GET keeps every output argument, MPI_CART_RANK gives 0,
  ! MPI_CART_COORDS keeps COORDS.
  subroutine zero_dim(comm, what)
    COMM_T, intent(inout) :: comm
    character(len=*), intent(in) :: what
    integer :: d(1), c(1), r
    logical :: p(1)
    call cart_is(comm, 1, 0, what // ': zero-dimensional, one process')
    d = -3
    p = .true.
    c = -4
    call MPI_Cart_get(comm, 1, d, p, c, ierr)
    call check(ierr == MPI_SUCCESS .and. d(1) == -3 .and. p(1) .and. c(1) == -4, &
               what // ': MPI_Cart_get keeps its output arguments')
    r = -1
    c = 5
    call MPI_Cart_rank(comm, c, r, ierr)
    call check(ierr == MPI_SUCCESS .and. r == 0, what // ': MPI_Cart_rank gives 0')
    c = -4
    call MPI_Cart_coords(comm, 0, 1, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c(1) == -4, what // ': MPI_Cart_coords keeps COORDS')
    call MPI_Comm_free(comm, ierr)
  end subroutine

  ! comm is Cartesian, with nd dimensions and n processes
  subroutine cart_is(comm, n, nd, what)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: n, nd
    character(len=*), intent(in) :: what
    integer :: s, ndims
    call topo_is(comm, MPI_CART, what // ': MPI_Topo_test MPI_CART')
    call MPI_Comm_size(comm, s, ierr)
    call MPI_Cartdim_get(comm, ndims, ierr)
    call check(ierr == MPI_SUCCESS .and. s == n .and. ndims == nd, what // ': the size, MPI_Cartdim_get')
  end subroutine

  ! MPI_Cart_get(comm, nd): dims want_dims, LOGICAL periods want_per (both
  ! preset to something else); the coordinates returned
  subroutine cart_get_is(comm, nd, want_dims, want_per, coords, what)
    COMM_T, intent(in) :: comm
    integer, intent(in) :: nd, want_dims(nd)
    logical, intent(in) :: want_per(nd)
    integer, intent(out) :: coords(nd)
    character(len=*), intent(in) :: what
    integer :: d(nd)
    logical :: p(nd)
    d = -1
    p = .not. want_per
    coords = -1
    call MPI_Cart_get(comm, nd, d, p, coords, ierr)
    call check(ierr == MPI_SUCCESS .and. all(d == want_dims) .and. all(p .eqv. want_per), &
               what // ': dims, LOGICAL periods')
  end subroutine

  ! MPI_Cart_sub of cart (dims, periods, coords) keeping only dimension keep:
  ! a 1-D Cartesian communicator along it
  subroutine cart_sub_line(cart, keep, dims, periods, coords, sub, what)
    COMM_T, intent(in) :: cart
    integer, intent(in) :: keep, dims(2), coords(2)
    logical, intent(in) :: periods(2)
    COMM_T, intent(out) :: sub
    character(len=*), intent(in) :: what
    logical :: remain(2)
    integer :: r, c1(1)
    remain = [keep == 1, keep == 2]
    call MPI_Cart_sub(cart, remain, sub, ierr)
    call check(ierr == MPI_SUCCESS .and. sub /= MPI_COMM_NULL, what)
    call cart_is(sub, dims(keep), 1, what)
    call MPI_Comm_rank(sub, r, ierr)
    call check(r == coords(keep), what // ': the rank its coordinate')
    call cart_get_is(sub, 1, dims(keep:keep), periods(keep:keep), c1, what // ': MPI_Cart_get')
    call check(c1(1) == coords(keep), what // ': MPI_Cart_get coords')
  end subroutine

  ! v from every rank: MPI_UNDEFINED at size - m of them, the others a
  ! permutation of 0 .. m-1
  subroutine gathered_perm(v, m, what)
    integer, intent(in) :: v, m
    character(len=*), intent(in) :: what
    integer :: every(0:size - 1), i
    call MPI_Allgather(v, 1, MPI_INTEGER, every, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call check(count(every == MPI_UNDEFINED) == size - m, what // ': MPI_UNDEFINED outside')
    call check(all([(count(every == i) == 1, i = 0, m - 1)]), what // ': a permutation')
  end subroutine

  ! ---------------------------------------------------------- graph topologies

  ! A star with a self-loop: node 0's neighbours 0, 1, ..., n-1; node i's 0.
  subroutine graph()
    COMM_T :: g, g2
    integer :: idx(size), edges(2 * size), gi(size), ge(2 * size), nb(size), nn, ne, i, k, r, cnt, got, m, newrank
    integer :: idx2(size), e2(2 * size)

    idx = [(size + i, i = 0, size - 1)]
    edges(1:size) = [(i, i = 0, size - 1)]
    edges(size + 1:) = 0
    call MPI_Graph_create(MPI_COMM_WORLD, size, idx, edges, .false., g, ierr)
    call check(ierr == MPI_SUCCESS .and. g /= MPI_COMM_NULL, 'MPI_Graph_create')
    call MPI_Comm_rank(g, r, ierr)
    call check(r == rank, 'MPI_Graph_create without reorder: the ranks unchanged')
    call topo_is(g, MPI_GRAPH, 'MPI_Topo_test: MPI_GRAPH')
    call MPI_Graphdims_get(g, nn, ne, ierr)
    call check(ierr == MPI_SUCCESS .and. nn == size .and. ne == 2 * size - 1, 'MPI_Graphdims_get')
    gi = -1
    ge = -1
    call MPI_Graph_get(g, size, 2 * size - 1, gi, ge, ierr)
    call check(ierr == MPI_SUCCESS .and. all(gi == idx) .and. all(ge(1:2 * size - 1) == edges(1:2 * size - 1)), &
               'MPI_Graph_get')
    do i = 0, size - 1
      call MPI_Graph_neighbors_count(g, i, cnt, ierr)
      call check(ierr == MPI_SUCCESS .and. cnt == merge(size, 1, i == 0), 'MPI_Graph_neighbors_count')
      nb = -1
      call MPI_Graph_neighbors(g, i, size, nb, ierr)
      if (i == 0) then
        call check(ierr == MPI_SUCCESS .and. all(nb == [(k, k = 0, size - 1)]), &
                   'MPI_Graph_neighbors of node 0 (with its self-loop), in order')
      else
        call check(ierr == MPI_SUCCESS .and. nb(1) == 0, 'MPI_Graph_neighbors of node i')
      end if
    end do
    ! node 0 exchanges with each neighbour in turn
    if (rank == 0) then
      do i = 0, size - 1
        call MPI_Sendrecv(100 + rank, 1, MPI_INTEGER, i, 14, got, 1, MPI_INTEGER, i, 14, g, MPI_STATUS_IGNORE, ierr)
        call check(got == 100 + i, 'MPI_Sendrecv along the graph (node 0)')
      end do
    else
      call MPI_Sendrecv(100 + rank, 1, MPI_INTEGER, 0, 14, got, 1, MPI_INTEGER, 0, 14, g, MPI_STATUS_IGNORE, ierr)
      call check(got == 100, 'MPI_Sendrecv along the graph')
    end if
    call MPI_Comm_free(g, ierr)

    ! a chain of m = max(1, n - 1) nodes: MPI_Graph_map and a graph smaller than the group
    m = max(1, size - 1)
    ne = 0
    do i = 0, m - 1
      if (i > 0) then
        ne = ne + 1
        e2(ne) = i - 1
      end if
      if (i < m - 1) then
        ne = ne + 1
        e2(ne) = i + 1
      end if
      idx2(i + 1) = ne
    end do
    call MPI_Graph_map(MPI_COMM_WORLD, m, idx2, e2, newrank, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Graph_map')
    call gathered_perm(newrank, m, 'MPI_Graph_map')
    call MPI_Graph_create(MPI_COMM_WORLD, m, idx2, e2, .false., g2, ierr)
    call check(ierr == MPI_SUCCESS .and. (g2 /= MPI_COMM_NULL .eqv. rank < m), &
               'MPI_Graph_create of fewer nodes: MPI_COMM_NULL outside')
    if (g2 /= MPI_COMM_NULL) then
      call MPI_Comm_rank(g2, r, ierr)
      call MPI_Graphdims_get(g2, nn, ne, ierr)
      call check(r == rank .and. nn == m .and. ne == 2 * (m - 1), 'MPI_Graphdims_get of the chain')
      call MPI_Graph_neighbors_count(g2, r, cnt, ierr)
      call check(cnt == merge(1, 0, r > 0) + merge(1, 0, r < m - 1), 'MPI_Graph_neighbors_count of the chain')
      call MPI_Comm_free(g2, ierr)
    end if
    ! an empty graph: MPI_COMM_NULL everywhere
    call MPI_Graph_create(MPI_COMM_WORLD, 0, idx2, e2, .false., g2, ierr)
    call check(ierr == MPI_SUCCESS .and. g2 == MPI_COMM_NULL, 'MPI_Graph_create with nnodes 0: MPI_COMM_NULL')
  end subroutine

  ! --------------------------------------------------- distributed graphs (1)

  ! The weight of edge j -> i.
  integer function w(j, i)
    integer, intent(in) :: j, i
    w = 100 + 10 * j + i
  end function

  ! MPI_Dist_graph_create_adjacent: a ring, each rank with sources (left,
  ! right) and destinations (right, left) (on 1 or 2 ranks, multiple edges
  ! and self-loops)
  subroutine dist_graph_adjacent()
    COMM_T :: dg
    integer :: left, right, srcs(2), sw(2), dsts(2), dw(2), s(2), sws(2), d(2), dws(2)
    integer :: indeg, outdeg, r, nbr(2), dummy(1)

    left = mod(rank - 1 + size, size)
    right = mod(rank + 1, size)
    srcs = [left, right]
    sw = [w(left, rank), w(right, rank)]
    dsts = [right, left]
    dw = [w(rank, right), w(rank, left)]

    ! weighted
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, sw, 2, dsts, dw, MPI_INFO_NULL, .false., dg, ierr)
    call dist_graph_is(dg, 2, 2, .true., r, 'MPI_Dist_graph_create_adjacent, weighted')
    call check(r == rank, 'MPI_Dist_graph_create_adjacent without reorder: the ranks unchanged')
    s = -1
    sws = -1
    d = -1
    dws = -1
    call MPI_Dist_graph_neighbors(dg, 2, s, sws, 2, d, dws, ierr)
    call check(ierr == MPI_SUCCESS .and. all(s == srcs) .and. all(d == dsts), &
               'MPI_Dist_graph_neighbors (adjacent): the lists as given')
    call check(all(sws == sw) .and. all(dws == dw), 'MPI_Dist_graph_neighbors (adjacent): the weights as given')
    s = -1
    sws = -1
    d = -1
    dws = -1
    call MPI_Dist_graph_neighbors(dg, 1, s, sws, 1, d, dws, ierr)
    call check(ierr == MPI_SUCCESS .and. s(1) == srcs(1) .and. sws(1) == sw(1) .and. d(1) == dsts(1) .and. &
               dws(1) == dw(1), 'MPI_Dist_graph_neighbors with MAXINDEGREE 1: the first')
    call check(s(2) == -1 .and. sws(2) == -1 .and. d(2) == -1 .and. dws(2) == -1, &
               'MPI_Dist_graph_neighbors with MAXINDEGREE 1: no more')
    nbr = -1
    call MPI_Neighbor_allgather(rank, 1, MPI_INTEGER, nbr, 1, MPI_INTEGER, dg, ierr)
    call check(ierr == MPI_SUCCESS .and. all(nbr == srcs), 'MPI_Neighbor_allgather: from the sources in order')
    call MPI_Comm_free(dg, ierr)

    ! MPI_UNWEIGHTED, reordered: node q's lists at rank q
    call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, MPI_UNWEIGHTED, 2, dsts, MPI_UNWEIGHTED, &
                                        MPI_INFO_NULL, .true., dg, ierr)
    call dist_graph_is(dg, 2, 2, .false., r, 'MPI_Dist_graph_create_adjacent, MPI_UNWEIGHTED')
    call unweighted_nbrs(dg, 2, s, d)
    call check(ierr == MPI_SUCCESS .and. all(s == [mod(r - 1 + size, size), mod(r + 1, size)]) .and. &
               all(d == [mod(r + 1, size), mod(r - 1 + size, size)]), &
               'MPI_Dist_graph_neighbors (MPI_UNWEIGHTED, reordered): node r''s lists')
    sws = -1
    dws = -1
    call MPI_Dist_graph_neighbors(dg, 2, s, sws, 2, d, dws, ierr)
    call check(ierr == MPI_SUCCESS .and. all(sws == -1) .and. all(dws == -1), &
               'MPI_Dist_graph_neighbors of an MPI_UNWEIGHTED graph: no weights returned')
    nbr = -1
    call MPI_Neighbor_allgather(r, 1, MPI_INTEGER, nbr, 1, MPI_INTEGER, dg, ierr)
    call check(all(nbr == s), 'MPI_Neighbor_allgather (MPI_UNWEIGHTED)')
    call MPI_Comm_free(dg, ierr)

    ! weighted, rank 0 without edges (MPI_WEIGHTS_EMPTY), the others a chain 1 -> 2 -> ... -> n-1
    indeg = 0
    outdeg = 0
    if (rank >= 2) then
      indeg = 1
      s(1) = rank - 1
      sws(1) = w(rank - 1, rank)
    end if
    if (rank >= 1 .and. rank < size - 1) then
      outdeg = 1
      d(1) = rank + 1
      dws(1) = w(rank, rank + 1)
    end if
    if (indeg == 0 .and. outdeg == 0) then
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, dummy, MPI_WEIGHTS_EMPTY, 0, dummy, &
                                          MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, .false., dg, ierr)
    else if (indeg == 0) then
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, dummy, MPI_WEIGHTS_EMPTY, 1, d, dws, &
                                          MPI_INFO_NULL, .false., dg, ierr)
    else if (outdeg == 0) then
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, s, sws, 0, dummy, MPI_WEIGHTS_EMPTY, &
                                          MPI_INFO_NULL, .false., dg, ierr)
    else
      call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, s, sws, 1, d, dws, MPI_INFO_NULL, .false., dg, ierr)
    end if
    call dist_graph_is(dg, indeg, outdeg, .true., r, 'MPI_Dist_graph_create_adjacent with MPI_WEIGHTS_EMPTY')
    srcs = -1
    sw = -1
    dsts = -1
    dw = -1
    call MPI_Dist_graph_neighbors(dg, 2, srcs, sw, 2, dsts, dw, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Dist_graph_neighbors with MPI_WEIGHTS_EMPTY')
    if (indeg == 1) call check(srcs(1) == s(1) .and. sw(1) == sws(1), 'MPI_Dist_graph_neighbors: the chain''s source')
    if (outdeg == 1) call check(dsts(1) == d(1) .and. dw(1) == dws(1), &
                                'MPI_Dist_graph_neighbors: the chain''s destination')
    call MPI_Comm_free(dg, ierr)
  end subroutine

  ! A distributed graph just created (ierr the creation's): MPI_DIST_GRAPH,
  ! degrees nin and nout, WEIGHTED wtd (preset to the opposite); its rank r
  subroutine dist_graph_is(dg, nin, nout, wtd, r, what)
    COMM_T, intent(in) :: dg
    integer, intent(in) :: nin, nout
    logical, intent(in) :: wtd
    integer, intent(out) :: r
    character(len=*), intent(in) :: what
    integer :: indeg, outdeg
    logical :: weighted
    call check(ierr == MPI_SUCCESS .and. dg /= MPI_COMM_NULL, what)
    call topo_is(dg, MPI_DIST_GRAPH, what // ': MPI_Topo_test MPI_DIST_GRAPH')
    call MPI_Comm_rank(dg, r, ierr)
    weighted = .not. wtd
    call MPI_Dist_graph_neighbors_count(dg, indeg, outdeg, weighted, ierr)
    call check(ierr == MPI_SUCCESS .and. indeg == nin .and. outdeg == nout .and. (weighted .eqv. wtd), &
               what // ': MPI_Dist_graph_neighbors_count, the degrees and WEIGHTED')
  end subroutine

  ! MPI_Dist_graph_neighbors of an MPI_UNWEIGHTED graph, at most n each way
  ! (s and d preset to -1)
  subroutine unweighted_nbrs(dg, n, s, d)
    COMM_T, intent(in) :: dg
    integer, intent(in) :: n
    integer, intent(out) :: s(n), d(n)
    s = -1
    d = -1
    call MPI_Dist_graph_neighbors(dg, n, s, MPI_UNWEIGHTED, n, d, MPI_UNWEIGHTED, ierr)
  end subroutine

  ! --------------------------------------------------- distributed graphs (2)

  ! MPI_Dist_graph_create: edges given by any rank. Weighted: rank r gives
  ! r -> r+1 (weight 100 + r), and rank n-1 also 0 -> j for every j (200 +
  ! j). Unweighted: rank 0 gives every j -> j-1, the others nothing.
  ! Weighted again: rank 0 gives every j -> j+1 (300 + j), the others none
  ! with MPI_WEIGHTS_EMPTY.
  subroutine dist_graph_general()
    COMM_T :: dg
    integer :: srcs(size + 1), degs(size + 1), dsts(2 * size + 1), ws(2 * size + 1), nsrc, ne, j, r
    integer :: indeg, outdeg, left, right, dummy(1)
    integer :: s(size + 2), sws(size + 2), d(size + 2), dws(size + 2), s2(size + 2), d2(size + 2)
    integer :: gin(size + 2), gout(size + 2), win(size + 2), wout(size + 2)

    left = mod(rank - 1 + size, size)
    right = mod(rank + 1, size)
    nsrc = 1
    srcs(1) = rank
    degs(1) = 1
    dsts(1) = right
    ws(1) = 100 + rank
    ne = 1
    if (rank == size - 1) then
      nsrc = 2
      srcs(2) = 0
      degs(2) = size
      dsts(2:size + 1) = [(j, j = 0, size - 1)]
      ws(2:size + 1) = [(200 + j, j = 0, size - 1)]
      ne = size + 1
    end if
    call MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, srcs, degs, dsts, ws, MPI_INFO_NULL, .false., dg, ierr)
    indeg = 2
    outdeg = 1 + merge(size, 0, rank == 0)
    call dist_graph_is(dg, indeg, outdeg, .true., r, 'MPI_Dist_graph_create, weighted')
    call check(r == rank, 'MPI_Dist_graph_create: the ranks unchanged')
    call MPI_Dist_graph_neighbors(dg, indeg, s, sws, outdeg, d, dws, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Dist_graph_neighbors after MPI_Dist_graph_create')
    ! as multisets of (neighbour, weight)
    gin(1:2) = [1000 * left + 100 + left, 200 + rank]
    win(1:indeg) = 1000 * s(1:indeg) + sws(1:indeg)
    call check(same_multiset(win, gin, 2), 'MPI_Dist_graph_create: the sources and their weights')
    gout(1) = 1000 * right + 100 + rank
    if (rank == 0) gout(2:size + 1) = [(1000 * j + 200 + j, j = 0, size - 1)]
    wout(1:outdeg) = 1000 * d(1:outdeg) + dws(1:outdeg)
    call check(same_multiset(wout, gout, outdeg), 'MPI_Dist_graph_create: the destinations and their weights')
    s2 = -1
    d2 = -1
    call MPI_Dist_graph_neighbors(dg, indeg, s2, sws, outdeg, d2, dws, ierr)
    call check(all(s2(1:indeg) == s(1:indeg)) .and. all(d2(1:outdeg) == d(1:outdeg)), &
               'MPI_Dist_graph_neighbors twice: the same sequence')
    call MPI_Comm_free(dg, ierr)

    ! unweighted, reordered, all edges from rank 0: node q's at rank q
    if (rank == 0) then
      nsrc = size
      srcs(1:size) = [(j, j = 0, size - 1)]
      degs(1:size) = 1
      dsts(1:size) = [(mod(j - 1 + size, size), j = 0, size - 1)]
      call MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, srcs, degs, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, .true., &
                                 dg, ierr)
    else
      call MPI_Dist_graph_create(MPI_COMM_WORLD, 0, dummy, dummy, dummy, MPI_UNWEIGHTED, MPI_INFO_NULL, .true., &
                                 dg, ierr)
    end if
    call dist_graph_is(dg, 1, 1, .false., r, 'MPI_Dist_graph_create, MPI_UNWEIGHTED')
    call unweighted_nbrs(dg, 1, s, d)
    call check(ierr == MPI_SUCCESS .and. s(1) == mod(r + 1, size) .and. d(1) == mod(r - 1 + size, size), &
               'MPI_Dist_graph_neighbors after MPI_Dist_graph_create, MPI_UNWEIGHTED')
    call MPI_Comm_free(dg, ierr)

    ! weighted, every edge from rank 0; the others none, with MPI_WEIGHTS_EMPTY
    if (rank == 0) then
      srcs(1:size) = [(j, j = 0, size - 1)]
      degs(1:size) = 1
      dsts(1:size) = [(mod(j + 1, size), j = 0, size - 1)]
      ws(1:size) = [(300 + j, j = 0, size - 1)]
      call MPI_Dist_graph_create(MPI_COMM_WORLD, size, srcs, degs, dsts, ws, MPI_INFO_NULL, .false., dg, ierr)
    else
      call MPI_Dist_graph_create(MPI_COMM_WORLD, 0, dummy, dummy, dummy, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, &
                                 .false., dg, ierr)
    end if
    call dist_graph_is(dg, 1, 1, .true., r, 'MPI_Dist_graph_create with MPI_WEIGHTS_EMPTY')
    call MPI_Dist_graph_neighbors(dg, 1, s, sws, 1, d, dws, ierr)
    call check(s(1) == left .and. sws(1) == 300 + left .and. d(1) == right .and. dws(1) == 300 + rank, &
               'MPI_Dist_graph_neighbors after MPI_Dist_graph_create with MPI_WEIGHTS_EMPTY')
    call MPI_Comm_free(dg, ierr)
  end subroutine

  ! ------------------------------------------------------------------ groups

  subroutine groups()
    GROUP_T :: gw, gw2, ev, od, rev, x, y, ge
    integer :: ne, no, i, gs, gr
    integer :: evens(size), odds(size), revs(size), want(size), out(size), in3(3), out3(3), rr(3, 2)

    ne = (size + 1) / 2
    no = size / 2
    evens(1:ne) = [(2 * i, i = 0, ne - 1)]
    odds(1:max(no, 1)) = -1
    if (no > 0) odds(1:no) = [(2 * i + 1, i = 0, no - 1)]
    revs = [(size - 1 - i, i = 0, size - 1)]

    call MPI_Comm_group(MPI_COMM_WORLD, gw, ierr)
    call check(ierr == MPI_SUCCESS .and. gw /= MPI_GROUP_NULL, 'MPI_Comm_group')
    call MPI_Group_size(gw, gs, ierr)
    call MPI_Group_rank(gw, gr, ierr)
    call check(gs == size .and. gr == rank, 'MPI_Group_size, MPI_Group_rank')
    call MPI_Comm_group(MPI_COMM_WORLD, gw2, ierr)
    call compare_is(MPI_IDENT, 'MPI_Group_compare: MPI_IDENT', g1=gw, g2=gw2)
    call MPI_Group_free(gw2, ierr)
    call check(ierr == MPI_SUCCESS .and. gw2 == MPI_GROUP_NULL, 'MPI_Group_free: MPI_GROUP_NULL')
    call MPI_Group_size(MPI_GROUP_EMPTY, gs, ierr)
    call MPI_Group_rank(MPI_GROUP_EMPTY, gr, ierr)
    call check(gs == 0 .and. gr == MPI_UNDEFINED, 'MPI_GROUP_EMPTY: size 0, rank MPI_UNDEFINED')

    ! MPI_Group_incl
    call MPI_Group_incl(gw, ne, evens, ev, ierr)
    call check(ierr == MPI_SUCCESS .and. group_is(ev, ne, evens), 'MPI_Group_incl of the even ranks')
    call MPI_Group_rank(ev, gr, ierr)
    call check(gr == merge(rank / 2, MPI_UNDEFINED, mod(rank, 2) == 0), &
               'MPI_Group_rank: MPI_UNDEFINED outside the group')
    call MPI_Group_incl(gw, no, odds, od, ierr)
    call check(ierr == MPI_SUCCESS .and. group_is(od, no, odds), 'MPI_Group_incl of the odd ranks')
    if (no == 0) call check(od == MPI_GROUP_EMPTY, 'MPI_Group_incl with n = 0: MPI_GROUP_EMPTY')
    call MPI_Group_incl(gw, size, revs, rev, ierr)
    call check(group_is(rev, size, revs), 'MPI_Group_incl in reverse order')
    call MPI_Group_rank(rev, gr, ierr)
    call check(gr == size - 1 - rank, 'MPI_Group_rank in the reversed group')
    call compare_is(merge(MPI_IDENT, MPI_SIMILAR, size == 1), &
                    'MPI_Group_compare: MPI_SIMILAR (reversed)', g1=gw, g2=rev)
    if (size >= 2) then
      call compare_is(MPI_UNEQUAL, 'MPI_Group_compare: MPI_UNEQUAL', g1=gw, g2=ev)
      call compare_is(MPI_UNEQUAL, 'MPI_Group_compare of disjoint groups: MPI_UNEQUAL', g1=ev, g2=od)
    end if

    ! MPI_Group_excl
    call MPI_Group_excl(gw, ne, evens, x, ierr)
    call check(ierr == MPI_SUCCESS .and. group_is(x, no, odds), 'MPI_Group_excl of the even ranks')
    call compare_is(MPI_IDENT, 'MPI_Group_excl of the even ranks: the odd ones', g1=x, g2=od)
    if (x /= MPI_GROUP_EMPTY) call MPI_Group_free(x, ierr)
    call MPI_Group_excl(gw, 0, evens, x, ierr)
    call compare_is(MPI_IDENT, 'MPI_Group_excl of none: the group', g1=x, g2=gw)
    call MPI_Group_free(x, ierr)

    ! MPI_Group_range_incl / _excl: INTEGER RANGES(3, N)
    rr(:, 1) = [0, size - 1, 2]
    call MPI_Group_range_incl(gw, 1, rr, x, ierr)
    call compare_is(MPI_IDENT, 'MPI_Group_range_incl (0, n-1, 2): the even ranks', g1=x, g2=ev)
    call MPI_Group_free(x, ierr)
    rr(:, 1) = [size - 1, 0, -1]
    call MPI_Group_range_incl(gw, 1, rr, x, ierr)
    call check(ierr == MPI_SUCCESS .and. group_is(x, size, revs), 'MPI_Group_range_incl (n-1, 0, -1): reversed')
    call MPI_Group_free(x, ierr)
    if (size >= 2) then
      rr(:, 1) = [size - 1, size - 1, 1]
      rr(:, 2) = [0, size - 2, 1]
      call MPI_Group_range_incl(gw, 2, rr, x, ierr)
      want = [size - 1, (i, i = 0, size - 2)]
      call check(ierr == MPI_SUCCESS .and. group_is(x, size, want), 'MPI_Group_range_incl of two ranges, in order')
      call MPI_Group_free(x, ierr)
      rr(:, 1) = [1, size - 1, 2]
      call MPI_Group_range_excl(gw, 1, rr, x, ierr)
      call compare_is(MPI_IDENT, 'MPI_Group_range_excl (1, n-1, 2): the even ranks', g1=x, g2=ev)
      call MPI_Group_free(x, ierr)
      rr(:, 1) = [size - 1, size - 1, 1]
      rr(:, 2) = [0, 0, 5]
      call MPI_Group_range_excl(gw, 2, rr, x, ierr)
      call check(ierr == MPI_SUCCESS .and. group_is(x, size - 2, [(i, i = 1, size - 2)]), &
                 'MPI_Group_range_excl of two ranges')
      if (x /= MPI_GROUP_EMPTY) call MPI_Group_free(x, ierr)
    end if
    rr(:, 1) = [0, size - 1, 1]
    call MPI_Group_range_excl(gw, 1, rr, x, ierr)
    call MPI_Group_size(x, gs, ierr)
    call check(ierr == MPI_SUCCESS .and. gs == 0, 'MPI_Group_range_excl of every rank: empty')
    if (x /= MPI_GROUP_EMPTY) call MPI_Group_free(x, ierr)

    ! MPI_Group_union: group1's members, then group2's others in group2's order
    call MPI_Group_union(od, rev, x, ierr)
    want(1:no) = odds(1:no)
    want(no + 1:size) = pack(revs, mod(revs, 2) == 0)
    call check(ierr == MPI_SUCCESS .and. group_is(x, size, want), &
               'MPI_Group_union(odd, reversed): the odd ones, then the even ones from the top')
    call MPI_Group_free(x, ierr)
    call MPI_Group_union(ev, od, x, ierr)
    want(1:ne) = evens(1:ne)
    want(ne + 1:size) = odds(1:no)
    call check(group_is(x, size, want), 'MPI_Group_union(even, odd)')
    call compare_is(merge(MPI_IDENT, MPI_SIMILAR, size <= 2), &
                    'MPI_Group_union(even, odd) against the world', g1=x, g2=gw)
    call MPI_Group_free(x, ierr)
    call MPI_Group_union(MPI_GROUP_EMPTY, rev, x, ierr)
    call compare_is(MPI_IDENT, 'MPI_Group_union(MPI_GROUP_EMPTY, g): g', g1=x, g2=rev)
    call MPI_Group_free(x, ierr)

    ! MPI_Group_intersection, in group1's order; empty: MPI_GROUP_EMPTY
    call MPI_Group_intersection(rev, od, x, ierr)
    want(1:no) = pack(revs, mod(revs, 2) == 1)
    call check(ierr == MPI_SUCCESS .and. group_is(x, no, want), &
               'MPI_Group_intersection(reversed, odd): the odd ones from the top')
    if (x /= MPI_GROUP_EMPTY) call MPI_Group_free(x, ierr)
    call MPI_Group_intersection(ev, od, x, ierr)
    call MPI_Group_size(x, gs, ierr)
    call check(ierr == MPI_SUCCESS .and. gs == 0, 'MPI_Group_intersection of disjoint groups: empty')
    call check(x == MPI_GROUP_EMPTY, 'MPI_Group_intersection of disjoint groups: MPI_GROUP_EMPTY')
    if (x /= MPI_GROUP_EMPTY) call MPI_Group_free(x, ierr)

    ! MPI_Group_difference, in group1's order; empty: MPI_GROUP_EMPTY
    call MPI_Group_difference(gw, ev, x, ierr)
    call check(ierr == MPI_SUCCESS .and. group_is(x, no, odds), 'MPI_Group_difference(world, even): the odd ones')
    if (x /= MPI_GROUP_EMPTY) call MPI_Group_free(x, ierr)
    call MPI_Group_difference(rev, ev, x, ierr)
    call check(group_is(x, no, want), 'MPI_Group_difference(reversed, even): the odd ones from the top')
    if (x /= MPI_GROUP_EMPTY) call MPI_Group_free(x, ierr)
    call MPI_Group_difference(ev, gw, x, ierr)
    call MPI_Group_size(x, gs, ierr)
    call check(ierr == MPI_SUCCESS .and. gs == 0 .and. x == MPI_GROUP_EMPTY, &
               'MPI_Group_difference(even, world): MPI_GROUP_EMPTY')
    if (x /= MPI_GROUP_EMPTY) call MPI_Group_free(x, ierr)

    ! MPI_Group_translate_ranks: MPI_PROC_NULL stays, MPI_UNDEFINED where none
    in3 = [0, MPI_PROC_NULL, size - 1]
    out3 = -1
    call MPI_Group_translate_ranks(gw, 3, in3, ev, out3, ierr)
    call check(ierr == MPI_SUCCESS .and. out3(1) == 0 .and. out3(2) == MPI_PROC_NULL .and. &
               out3(3) == merge((size - 1) / 2, MPI_UNDEFINED, mod(size - 1, 2) == 0), &
               'MPI_Group_translate_ranks(world -> even): 0, MPI_PROC_NULL, MPI_UNDEFINED if odd')
    out = -1
    call MPI_Group_translate_ranks(rev, size, [(i, i = 0, size - 1)], gw, out, ierr)
    call check(ierr == MPI_SUCCESS .and. all(out == revs), 'MPI_Group_translate_ranks(reversed -> world)')
    out3 = -1
    call MPI_Group_translate_ranks(gw, 2, in3, MPI_GROUP_EMPTY, out3, ierr)
    call check(ierr == MPI_SUCCESS .and. out3(1) == MPI_UNDEFINED .and. out3(2) == MPI_PROC_NULL .and. &
               out3(3) == -1, 'MPI_Group_translate_ranks to MPI_GROUP_EMPTY: MPI_UNDEFINED')
    call MPI_Group_translate_ranks(gw, 0, in3, ev, out3, ierr)
    call check(ierr == MPI_SUCCESS .and. out3(3) == -1, 'MPI_Group_translate_ranks of no rank')

    ! a group of a subcommunicator against the world's
    call MPI_Group_incl(gw, 1, [rank], y, ierr)
    call MPI_Comm_group(MPI_COMM_SELF, ge, ierr)
    call compare_is(MPI_IDENT, 'MPI_Group_incl of the caller: MPI_COMM_SELF''s group', g1=y, g2=ge)
    call MPI_Group_free(y, ierr)
    call MPI_Group_free(ge, ierr)

    call MPI_Group_free(ev, ierr)
    call check(ev == MPI_GROUP_NULL, 'MPI_Group_free: MPI_GROUP_NULL')
    if (od /= MPI_GROUP_EMPTY) call MPI_Group_free(od, ierr)
    call MPI_Group_free(rev, ierr)
    call MPI_Group_free(gw, ierr)
    call check(ierr == MPI_SUCCESS .and. gw == MPI_GROUP_NULL, 'MPI_Group_free of the world''s group')
  end subroutine

  ! ------------------------------------------------ communicator construction

  subroutine comm_construct()
    COMM_T :: d, a, b, c, s, sh
    REQ_T :: reqs(2)
    GROUP_T :: gw, ev, mine, g
    integer :: n, r, i, k, ne, no, got, lead, want(size), wr(size)
    integer, allocatable :: leads(:)
    logical :: flag

    allocate(leads(0:size - 1))
    ne = (size + 1) / 2
    no = size / 2

    ! MPI_Comm_dup, MPI_Comm_compare
    call MPI_Comm_dup(MPI_COMM_WORLD, d, ierr)
    call check(ierr == MPI_SUCCESS .and. d /= MPI_COMM_NULL, 'MPI_Comm_dup')
    call compare_is(MPI_IDENT, 'MPI_Comm_compare: MPI_IDENT', c1=MPI_COMM_WORLD, c2=MPI_COMM_WORLD)
    call compare_is(MPI_CONGRUENT, 'MPI_Comm_compare(world, its duplicate): MPI_CONGRUENT', c1=MPI_COMM_WORLD, c2=d)
    call compare_is(merge(MPI_CONGRUENT, MPI_UNEQUAL, size == 1), &
                    'MPI_Comm_compare(world, self): MPI_UNEQUAL (MPI_CONGRUENT on 1 rank)', &
                    c1=MPI_COMM_WORLD, c2=MPI_COMM_SELF)
    call MPI_Comm_test_inter(d, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Comm_test_inter of an intracommunicator: .FALSE.')
    call MPI_Allreduce(rank, got, 1, MPI_INTEGER, MPI_SUM, d, ierr)
    call check(got == size * (size - 1) / 2, 'MPI_Allreduce over a duplicate')
    call MPI_Comm_free(d, ierr)
    call check(ierr == MPI_SUCCESS .and. d == MPI_COMM_NULL, 'MPI_Comm_free: MPI_COMM_NULL')

    ! two MPI_Comm_idup at once
    call MPI_Comm_idup(MPI_COMM_WORLD, a, reqs(1), ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_idup')
    call MPI_Comm_idup(MPI_COMM_WORLD, b, reqs(2), ierr)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, &
               'MPI_Waitall of two MPI_Comm_idup')
    call compare_is(MPI_CONGRUENT, 'MPI_Comm_idup: MPI_CONGRUENT', c1=a, c2=MPI_COMM_WORLD)
    call compare_is(MPI_CONGRUENT, 'two MPI_Comm_idup: MPI_CONGRUENT', c1=a, c2=b)
    call MPI_Allreduce(rank, got, 1, MPI_INTEGER, MPI_SUM, b, ierr)
    call MPI_Allreduce(rank + 1, i, 1, MPI_INTEGER, MPI_SUM, a, ierr)
    call check(got == size * (size - 1) / 2 .and. i == size * (size + 1) / 2, 'MPI_Allreduce over MPI_Comm_idup''s')
    call MPI_Comm_free(a, ierr)
    call MPI_Comm_free(b, ierr)

    ! MPI_Comm_create: the even ranks; then disjoint groups (each its parity)
    call MPI_Comm_group(MPI_COMM_WORLD, gw, ierr)
    call MPI_Group_incl(gw, ne, [(2 * i, i = 0, ne - 1)], ev, ierr)
    call MPI_Comm_create(MPI_COMM_WORLD, ev, c, ierr)
    call check(ierr == MPI_SUCCESS .and. (c /= MPI_COMM_NULL .eqv. mod(rank, 2) == 0), &
               'MPI_Comm_create: MPI_COMM_NULL outside the group')
    if (c /= MPI_COMM_NULL) then
      call MPI_Comm_size(c, n, ierr)
      call MPI_Comm_rank(c, r, ierr)
      call check(n == ne .and. r == rank / 2, 'MPI_Comm_create: size, rank')
      call MPI_Comm_group(c, g, ierr)
      call compare_is(MPI_IDENT, 'MPI_Comm_create: its group', g1=g, g2=ev)
      call MPI_Group_free(g, ierr)
      call MPI_Comm_free(c, ierr)
    end if
    if (mod(rank, 2) == 0) then
      call MPI_Group_incl(gw, ne, [(2 * i, i = 0, ne - 1)], mine, ierr)
    else
      call MPI_Group_incl(gw, no, [(2 * i + 1, i = 0, no - 1)], mine, ierr)
    end if
    call MPI_Comm_create(MPI_COMM_WORLD, mine, c, ierr)
    call check(ierr == MPI_SUCCESS .and. c /= MPI_COMM_NULL, 'MPI_Comm_create of disjoint groups')
    call MPI_Comm_size(c, n, ierr)
    call MPI_Comm_rank(c, r, ierr)
    call check(n == merge(ne, no, mod(rank, 2) == 0) .and. r == rank / 2, 'MPI_Comm_create of disjoint groups: its own')
    call MPI_Allreduce(rank, got, 1, MPI_INTEGER, MPI_SUM, c, ierr)
    call check(got == merge(ne * (ne - 1), no * no, mod(rank, 2) == 0), 'MPI_Allreduce over MPI_Comm_create''s')
    call MPI_Comm_free(c, ierr)

    ! MPI_Comm_create_group: called by the even ranks only
    if (mod(rank, 2) == 0) then
      call MPI_Comm_create_group(MPI_COMM_WORLD, ev, 77, c, ierr)
      call check(ierr == MPI_SUCCESS .and. c /= MPI_COMM_NULL, 'MPI_Comm_create_group')
      call MPI_Comm_size(c, n, ierr)
      call MPI_Comm_rank(c, r, ierr)
      call check(n == ne .and. r == rank / 2, 'MPI_Comm_create_group: size, rank')
      call MPI_Allreduce(rank, got, 1, MPI_INTEGER, MPI_SUM, c, ierr)
      call check(got == ne * (ne - 1), 'MPI_Allreduce over MPI_Comm_create_group''s')
      call MPI_Comm_free(c, ierr)
    end if
    call MPI_Group_free(mine, ierr)
    call MPI_Group_free(ev, ierr)

    ! MPI_Comm_split: by parity, the key reversing the order
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, s, ierr)
    call MPI_Comm_size(s, n, ierr)
    call MPI_Comm_rank(s, r, ierr)
    k = merge(ne, no, mod(rank, 2) == 0)
    call check(ierr == MPI_SUCCESS .and. n == k .and. r == k - 1 - rank / 2, &
               'MPI_Comm_split: ordered by key')
    call MPI_Comm_free(s, ierr)
    ! one color, key reversing: MPI_SIMILAR
    call MPI_Comm_split(MPI_COMM_WORLD, 5, -rank, s, ierr)
    call compare_is(merge(MPI_CONGRUENT, MPI_SIMILAR, size == 1), &
                    'MPI_Comm_compare: MPI_SIMILAR (reversed)', c1=MPI_COMM_WORLD, c2=s)
    call MPI_Comm_free(s, ierr)
    ! MPI_UNDEFINED at rank 0; equal keys: the old order
    call MPI_Comm_split(MPI_COMM_WORLD, merge(MPI_UNDEFINED, 3, rank == 0), 0, s, ierr)
    call check(ierr == MPI_SUCCESS .and. (s == MPI_COMM_NULL .eqv. rank == 0), &
               'MPI_Comm_split with MPI_UNDEFINED: MPI_COMM_NULL')
    if (s /= MPI_COMM_NULL) then
      call MPI_Comm_size(s, n, ierr)
      call MPI_Comm_rank(s, r, ierr)
      call check(n == size - 1 .and. r == rank - 1, 'MPI_Comm_split, equal keys: the old order')
      call MPI_Comm_free(s, ierr)
    end if

    ! MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): a partition, ordered by key
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, sh, ierr)
    call check(ierr == MPI_SUCCESS .and. sh /= MPI_COMM_NULL, 'MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)')
    call MPI_Comm_size(sh, n, ierr)
    call MPI_Comm_rank(sh, r, ierr)
    lead = world_rank(sh, 0)
    call MPI_Allgather(lead, 1, MPI_INTEGER, leads, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    ! those with the same leader, the key (-rank) ordering them
    k = count(leads == lead)
    want(1:k) = pack([(i, i = size - 1, 0, -1)], leads(size - 1:0:-1) == lead)
    call check(n == k .and. lead == want(1), 'MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): a partition')
    call MPI_Comm_group(sh, g, ierr)
    call check(group_is(g, k, want), 'MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): ordered by key')
    call MPI_Group_free(g, ierr)
    call check(want(r + 1) == rank, 'MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): the rank')
    call MPI_Comm_free(sh, ierr)
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, sh, ierr)
    call check(ierr == MPI_SUCCESS .and. sh == MPI_COMM_NULL, 'MPI_Comm_split_type(MPI_UNDEFINED): MPI_COMM_NULL')
    ! the odd ranks MPI_UNDEFINED, the even ones MPI_COMM_TYPE_SHARED
    call MPI_Comm_split_type(MPI_COMM_WORLD, merge(MPI_COMM_TYPE_SHARED, MPI_UNDEFINED, mod(rank, 2) == 0), 0, &
                             MPI_INFO_NULL, sh, ierr)
    call check(ierr == MPI_SUCCESS .and. (sh /= MPI_COMM_NULL .eqv. mod(rank, 2) == 0), &
               'MPI_Comm_split_type, MPI_UNDEFINED at odd ranks')
    if (sh /= MPI_COMM_NULL) then
      call MPI_Comm_size(sh, n, ierr)
      call MPI_Comm_group(sh, g, ierr)
      k = count(leads(0::2) == lead)
      wr(1:k) = pack([(i, i = 0, size - 1, 2)], leads(0::2) == lead)
      call check(n == k .and. group_is(g, k, wr), 'MPI_Comm_split_type, MPI_UNDEFINED at odd ranks: the even ones')
      call MPI_Group_free(g, ierr)
      call MPI_Comm_free(sh, ierr)
    end if
    call MPI_Group_free(gw, ierr)
  end subroutine

  ! -------------------------------------------------- info hints and names

  subroutine comm_info_name()
    COMM_T :: d, c, s
    INFO_T :: info, used
    REQ_T :: req
    integer :: rlen, nkeys

    call MPI_Info_create(info, ierr)
    call MPI_Info_set(info, 'mpi_assert_no_any_tag', 'true', ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Info_set')

    call MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, d, ierr)
    call check(ierr == MPI_SUCCESS .and. d /= MPI_COMM_NULL, 'MPI_Comm_dup_with_info')
    call hint_read_back(d, 'MPI_Comm_dup_with_info')
    call MPI_Allreduce(1, rlen, 1, MPI_INTEGER, MPI_SUM, d, ierr)
    call check(rlen == size, 'MPI_Allreduce over MPI_Comm_dup_with_info''s')

    call MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, c, req, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_idup_with_info')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL .and. c /= MPI_COMM_NULL, &
               'MPI_Wait of MPI_Comm_idup_with_info')
    call hint_read_back(c, 'MPI_Comm_idup_with_info')
    call MPI_Bcast(rlen, 1, MPI_INTEGER, 0, c, ierr)
    call check(rlen == size, 'MPI_Bcast over MPI_Comm_idup_with_info''s')
    call MPI_Comm_free(c, ierr)

    call MPI_Comm_dup(MPI_COMM_WORLD, c, ierr)
    call MPI_Comm_set_info(c, info, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_set_info')
    call hint_read_back(c, 'MPI_Comm_set_info')
    call MPI_Comm_free(c, ierr)
    call MPI_Comm_get_info(MPI_COMM_WORLD, used, ierr)
    call check(ierr == MPI_SUCCESS .and. used /= MPI_INFO_NULL, 'MPI_Comm_get_info(MPI_COMM_WORLD)')
    call MPI_Info_get_nkeys(used, nkeys, ierr)
    call check(ierr == MPI_SUCCESS .and. nkeys >= 0, 'MPI_Info_get_nkeys of MPI_Comm_get_info''s')
    call MPI_Info_free(used, ierr)
    call MPI_Info_free(info, ierr)

    ! names: the predefined ones; set and read back, blank-padded
    call name_is(MPI_COMM_WORLD, 'MPI_COMM_WORLD', 'MPI_Comm_get_name(MPI_COMM_WORLD)')
    call name_is(MPI_COMM_SELF, 'MPI_COMM_SELF', 'MPI_Comm_get_name(MPI_COMM_SELF)')
    call MPI_Comm_set_name(d, 'f_topo_group dup', ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_set_name')
    call name_is(d, 'f_topo_group dup', 'MPI_Comm_get_name: the name set, blank-padded')
    call MPI_Comm_set_name(d, 'renamed', ierr)
    call name_is(d, 'renamed', 'MPI_Comm_get_name after a second MPI_Comm_set_name')
    call MPI_Comm_split(MPI_COMM_WORLD, 0, rank, s, ierr)
    call name_is(s, '', 'MPI_Comm_get_name without a name: blanks')
    call MPI_Comm_free(s, ierr)
    call MPI_Comm_free(d, ierr)
  end subroutine

  ! comm's info (MPI_Comm_get_info) after what: the hint set, or none (an
  ! implementation may ignore hints)
  subroutine hint_read_back(comm, what)
    COMM_T, intent(in) :: comm
    character(len=*), intent(in) :: what
    INFO_T :: used
    character(len=MPI_MAX_INFO_VAL) :: value
    logical :: flag
    call MPI_Comm_get_info(comm, used, ierr)
    call check(ierr == MPI_SUCCESS .and. used /= MPI_INFO_NULL, 'MPI_Comm_get_info after ' // what)
    value = 'sentinel'
    call MPI_Info_get(used, 'mpi_assert_no_any_tag', len(value), value, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. (flag .and. value == 'true' .or. .not. flag .and. value == 'sentinel'), &
               'MPI_Comm_get_info after ' // what // ': the hint set, or none')
    call MPI_Info_free(used, ierr)
    call check(ierr == MPI_SUCCESS .and. used == MPI_INFO_NULL, 'MPI_Info_free: MPI_INFO_NULL')
  end subroutine

  ! MPI_Comm_get_name(comm): want, blank-padded, and its length
  subroutine name_is(comm, want, what)
    COMM_T, intent(in) :: comm
    character(len=*), intent(in) :: want, what
    character(len=MPI_MAX_OBJECT_NAME) :: name
    integer :: rlen
    name = repeat('x', len(name))
    call MPI_Comm_get_name(comm, name, rlen, ierr)
    call check(ierr == MPI_SUCCESS .and. name == want .and. rlen == len(want), what)
  end subroutine

  ! ------------------------------------------------------ intercommunicators

  ! The world in halves: lo = 0 .. h-1, hi = h .. n-1 (h = n / 2).
  subroutine intercomms()
    COMM_T :: local, inter, idup, merged
    GROUP_T :: rg, lg
    integer :: h, lsize, rsize, lrank, n, r, i, got, val, want(size)
    logical :: lo, flag
    STATUS_DECL(st)

    h = size / 2
    lo = rank < h
    call MPI_Comm_split(MPI_COMM_WORLD, merge(0, 1, lo), rank, local, ierr)
    call MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, merge(h, 0, lo), 21, inter, ierr)
    call check(ierr == MPI_SUCCESS .and. inter /= MPI_COMM_NULL, 'MPI_Intercomm_create')
    call MPI_Comm_test_inter(inter, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag, 'MPI_Comm_test_inter: .TRUE.')
    call topo_is(inter, MPI_UNDEFINED, 'MPI_Topo_test of an intercommunicator: MPI_UNDEFINED')
    lsize = merge(h, size - h, lo)
    rsize = size - lsize
    lrank = merge(rank, rank - h, lo)
    call MPI_Comm_size(inter, n, ierr)
    call MPI_Comm_rank(inter, r, ierr)
    call check(n == lsize .and. r == lrank, 'MPI_Comm_size, MPI_Comm_rank of an intercommunicator: the local group')
    call MPI_Comm_remote_size(inter, n, ierr)
    call check(ierr == MPI_SUCCESS .and. n == rsize, 'MPI_Comm_remote_size')
    call MPI_Comm_remote_group(inter, rg, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_remote_group')
    want(1:rsize) = [(merge(h + i, i, lo), i = 0, rsize - 1)]
    call check(group_is(rg, rsize, want), 'MPI_Comm_remote_group: the other half')
    call MPI_Comm_group(inter, lg, ierr)
    want(1:lsize) = [(merge(i, h + i, lo), i = 0, lsize - 1)]
    call check(group_is(lg, lsize, want), 'MPI_Comm_group of an intercommunicator: the local half')
    call MPI_Group_free(lg, ierr)

    ! everyone sends its world rank to remote rank 0
    call MPI_Send(rank, 1, MPI_INTEGER, 0, 22, inter, ierr)
    if (lrank == 0) then
      do i = 1, rsize
        call MPI_Recv(val, 1, MPI_INTEGER, MPI_ANY_SOURCE, 22, inter, st, ierr)
        call check(ierr == MPI_SUCCESS .and. SOURCE_OF(st) >= 0 .and. SOURCE_OF(st) < rsize .and. &
                   val == merge(h, 0, lo) + SOURCE_OF(st), 'MPI_Recv across: MPI_SOURCE is the remote rank')
      end do
    end if
    ! pairs: local rank i with remote rank i
    if (lrank < min(lsize, rsize)) then
      call MPI_Sendrecv(rank, 1, MPI_INTEGER, lrank, 23, got, 1, MPI_INTEGER, lrank, 23, inter, st, ierr)
      call check(ierr == MPI_SUCCESS .and. got == merge(rank + h, rank - h, lo) .and. SOURCE_OF(st) == lrank, &
                 'MPI_Sendrecv across an intercommunicator')
    end if
    call MPI_Group_free(rg, ierr)

    call MPI_Comm_dup(inter, idup, ierr)
    call MPI_Comm_test_inter(idup, flag, ierr)
    call MPI_Comm_remote_size(idup, n, ierr)
    call check(flag .and. n == rsize, 'MPI_Comm_dup of an intercommunicator')
    call compare_is(MPI_CONGRUENT, 'MPI_Comm_compare(intercommunicator, duplicate): MPI_CONGRUENT', c1=inter, c2=idup)
    call MPI_Comm_free(idup, ierr)

    ! MPI_Intercomm_merge: the HIGH = .FALSE. group first
    call MPI_Intercomm_merge(inter, .not. lo, merged, ierr)
    call check(ierr == MPI_SUCCESS .and. merged /= MPI_COMM_NULL, 'MPI_Intercomm_merge')
    call MPI_Comm_size(merged, n, ierr)
    call MPI_Comm_rank(merged, r, ierr)
    call MPI_Comm_test_inter(merged, flag, ierr)
    call check(n == size .and. r == rank .and. .not. flag, 'MPI_Intercomm_merge(lo .FALSE., hi .TRUE.): lo first')
    call compare_is(MPI_CONGRUENT, &
                    'MPI_Intercomm_merge(lo .FALSE., hi .TRUE.): MPI_CONGRUENT with the world', &
                    c1=merged, c2=MPI_COMM_WORLD)
    call MPI_Comm_free(merged, ierr)
    call MPI_Intercomm_merge(inter, lo, merged, ierr)
    call MPI_Comm_rank(merged, r, ierr)
    call check(r == merge(size - h + rank, rank - h, lo), 'MPI_Intercomm_merge(lo .TRUE., hi .FALSE.): hi first')
    call MPI_Allreduce(rank, got, 1, MPI_INTEGER, MPI_SUM, merged, ierr)
    call check(got == size * (size - 1) / 2, 'MPI_Allreduce over the merged communicator')
    call MPI_Comm_free(merged, ierr)
    call MPI_Comm_free(inter, ierr)
    call check(inter == MPI_COMM_NULL, 'MPI_Comm_free of an intercommunicator')
    call MPI_Comm_free(local, ierr)
  end subroutine

  ! ---------------------------------------------------------------- sessions

  subroutine sessions()
    SESSION_T :: ses
    INFO_T :: sinfo, info
    GROUP_T :: sg, self, gw, lg, rgp, g
    COMM_T :: sc, inter
    character(len=MPI_MAX_INFO_VAL) :: value
    integer :: np, k, n, r, got, h
    logical :: flag

    call MPI_Info_create(sinfo, ierr)
    call MPI_Info_set(sinfo, 'thread_level', 'MPI_THREAD_SINGLE', ierr)
    call MPI_Session_init(sinfo, MPI_ERRORS_RETURN, ses, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Session_init')
    call MPI_Info_free(sinfo, ierr)
    call MPI_Session_get_info(ses, info, ierr)
    call check(ierr == MPI_SUCCESS .and. info /= MPI_INFO_NULL, 'MPI_Session_get_info')
    value = 'sentinel'
    call MPI_Info_get(info, 'thread_level', len(value), value, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. (value == 'MPI_THREAD_SINGLE' .or. &
               value == 'MPI_THREAD_FUNNELED' .or. value == 'MPI_THREAD_SERIALIZED' .or. &
               value == 'MPI_THREAD_MULTIPLE'), 'MPI_Session_get_info: thread_level')
    call MPI_Info_free(info, ierr)

    call MPI_Session_get_num_psets(ses, MPI_INFO_NULL, np, ierr)
    call check(ierr == MPI_SUCCESS .and. np >= 2, 'MPI_Session_get_num_psets: mpi://WORLD and mpi://SELF at least')
    call MPI_Session_get_pset_info(ses, 'mpi://WORLD', info, ierr)
    call check(ierr == MPI_SUCCESS .and. info /= MPI_INFO_NULL, 'MPI_Session_get_pset_info(mpi://WORLD)')
    value = 'sentinel'
    call MPI_Info_get(info, 'mpi_size', len(value), value, flag, ierr)
    k = -1
    if (flag) read (value, *) k
    call check(ierr == MPI_SUCCESS .and. flag .and. k == size, 'MPI_Session_get_pset_info(mpi://WORLD): mpi_size')
    ! a Fortran key's leading and trailing blanks are not part of it (§10)
    value = 'sentinel'
    call MPI_Info_get(info, '  mpi_size  ', len(value), value, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. value == adjustl(value) .and. len_trim(value) >= 1, &
               'MPI_Info_get of '' mpi_size '': the blanks stripped')
    call MPI_Info_free(info, ierr)
    call MPI_Session_get_pset_info(ses, 'mpi://SELF', info, ierr)
    value = 'sentinel'
    call MPI_Info_get(info, 'mpi_size', len(value), value, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. value == '1', 'MPI_Session_get_pset_info(mpi://SELF): mpi_size 1')
    call MPI_Info_free(info, ierr)

    call MPI_Group_from_session_pset(ses, 'mpi://WORLD', sg, ierr)
    call check(ierr == MPI_SUCCESS .and. sg /= MPI_GROUP_NULL, 'MPI_Group_from_session_pset(mpi://WORLD)')
    call MPI_Group_size(sg, n, ierr)
    call check(n == size, 'MPI_Group_from_session_pset(mpi://WORLD): the size of MPI_COMM_WORLD')
    call MPI_Comm_group(MPI_COMM_WORLD, gw, ierr)
    call compare_is(MPI_IDENT, &
                    'MPI_Group_from_session_pset(mpi://WORLD): the processes of MPI_COMM_WORLD', &
                    g1=sg, g2=gw, also=MPI_SIMILAR)
    call MPI_Group_from_session_pset(ses, 'mpi://SELF', self, ierr)
    call MPI_Group_size(self, n, ierr)
    call MPI_Group_rank(self, r, ierr)
    call check(ierr == MPI_SUCCESS .and. n == 1 .and. r == 0, 'MPI_Group_from_session_pset(mpi://SELF)')
    call MPI_Comm_group(MPI_COMM_SELF, g, ierr)
    call compare_is(MPI_IDENT, 'MPI_Group_from_session_pset(mpi://SELF): MPI_COMM_SELF''s group', g1=self, g2=g)
    call MPI_Group_free(g, ierr)
    call MPI_Group_free(self, ierr)

    call MPI_Comm_create_from_group(sg, 'org.rdmach.f_topo_group', MPI_INFO_NULL, MPI_ERRORS_RETURN, sc, ierr)
    call check(ierr == MPI_SUCCESS .and. sc /= MPI_COMM_NULL, 'MPI_Comm_create_from_group')
    call MPI_Comm_size(sc, n, ierr)
    call MPI_Comm_rank(sc, r, ierr)
    call MPI_Group_rank(sg, k, ierr)
    call check(n == size .and. r == k, 'MPI_Comm_create_from_group: size, rank as in the group')
    call compare_is(MPI_CONGRUENT, &
                    'MPI_Comm_compare(MPI_Comm_create_from_group''s, world)', &
                    c1=sc, c2=MPI_COMM_WORLD, also=MPI_SIMILAR)
    call MPI_Allreduce(rank, got, 1, MPI_INTEGER, MPI_SUM, sc, ierr)
    call check(got == size * (size - 1) / 2, 'MPI_Allreduce over MPI_Comm_create_from_group''s')
    call MPI_Comm_free(sc, ierr)

    if (size >= 2) then
      h = size / 2
      call MPI_Group_rank(sg, k, ierr)
      if (k < h) then
        call MPI_Group_range_incl(sg, 1, reshape([0, h - 1, 1], [3, 1]), lg, ierr)
        call MPI_Group_range_incl(sg, 1, reshape([h, size - 1, 1], [3, 1]), rgp, ierr)
      else
        call MPI_Group_range_incl(sg, 1, reshape([h, size - 1, 1], [3, 1]), lg, ierr)
        call MPI_Group_range_incl(sg, 1, reshape([0, h - 1, 1], [3, 1]), rgp, ierr)
      end if
      call MPI_Intercomm_create_from_groups(lg, 0, rgp, 0, 'org.rdmach.f_topo_group.inter', MPI_INFO_NULL, &
                                            MPI_ERRORS_RETURN, inter, ierr)
      call check(ierr == MPI_SUCCESS .and. inter /= MPI_COMM_NULL, 'MPI_Intercomm_create_from_groups')
      call MPI_Comm_test_inter(inter, flag, ierr)
      call MPI_Comm_size(inter, n, ierr)
      call MPI_Comm_remote_size(inter, r, ierr)
      call check(flag .and. n == merge(h, size - h, k < h) .and. r == size - n, &
                 'MPI_Intercomm_create_from_groups: local and remote sizes')
      call MPI_Comm_rank(inter, r, ierr)
      call check(r == merge(k, k - h, k < h), 'MPI_Intercomm_create_from_groups: the rank in the local group')
      if (r == 0) then
        call MPI_Sendrecv(k, 1, MPI_INTEGER, 0, 24, got, 1, MPI_INTEGER, 0, 24, inter, MPI_STATUS_IGNORE, ierr)
        call check(got == merge(h, 0, k < h), 'MPI_Sendrecv between the leaders of MPI_Intercomm_create_from_groups''s')
      end if
      call MPI_Comm_free(inter, ierr)
      call MPI_Group_free(lg, ierr)
      call MPI_Group_free(rgp, ierr)
    end if

    call MPI_Group_free(sg, ierr)
    call MPI_Group_free(gw, ierr)
    call MPI_Session_finalize(ses, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Session_finalize')
#ifndef RDMACH_MPICH_BUILD
    call check(ses == MPI_SESSION_NULL, 'MPI_Session_finalize: MPI_SESSION_NULL')
#endif
  end subroutine

  ! -------------------------------------------------------------- attributes

  subroutine attributes()
    COMM_T :: comm, dup
    REQ_T :: req
    INFO_T :: info
    integer :: kuser, knull, kdup, kv, i1, nd
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    logical :: flag

    ! predefined attributes of MPI_COMM_WORLD, INTEGER(KIND=MPI_ADDRESS_KIND)
    val = -1
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. val >= 32767, 'MPI_TAG_UB: at least 32767')
    val = -1
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. (val == 0 .or. val == 1), 'MPI_WTIME_IS_GLOBAL: 0 or 1')
    val = -1
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. (val == MPI_ANY_SOURCE .or. val == MPI_PROC_NULL .or. &
               val >= 0 .and. val < size), 'MPI_IO: a rank, MPI_ANY_SOURCE or MPI_PROC_NULL')
    val = -1
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. (val == MPI_PROC_NULL .or. val >= 0 .and. val < size), &
               'MPI_HOST: a rank or MPI_PROC_NULL')
    val = -1
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. (.not. flag .or. val == 0), 'MPI_APPNUM: 0 (one command) or not set')
    val = -1
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. (.not. flag .or. val >= 1), 'MPI_UNIVERSE_SIZE: positive or not set')

    ! keyvals: Fortran callbacks and the predefined ones
    call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
    extra = 2_MPI_ADDRESS_KIND**33 + 5
    call MPI_Comm_create_keyval(copy_plus_one, record_delete, kuser, extra, ierr)
    call check(ierr == MPI_SUCCESS .and. kuser /= MPI_KEYVAL_INVALID, 'MPI_Comm_create_keyval, Fortran callbacks')
    call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, knull, extra, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN)')
    call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kdup, extra, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN)')
    val = 41
    call MPI_Comm_set_attr(comm, kuser, val, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_set_attr')
    val = 9
    call MPI_Comm_set_attr(comm, knull, val, ierr)
    val = -(2_MPI_ADDRESS_KIND**40)
    call MPI_Comm_set_attr(comm, kdup, val, ierr)
    val = 0
    call MPI_Comm_get_attr(comm, kuser, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. val == 41, 'MPI_Comm_get_attr')
    ! a value over another: the old one deleted first
    val = 40
    call MPI_Comm_set_attr(comm, kuser, val, ierr)
    call check(deletes == 1 .and. deleted_value == 41, 'MPI_Comm_set_attr over a value: the delete callback first')
    call MPI_Comm_get_attr(comm, kuser, val, flag, ierr)
    call check(flag .and. val == 40, 'MPI_Comm_get_attr of the new value')

    ! MPI_Comm_dup copies: user +1, NULL_COPY none, DUP_FN the value
    call MPI_Comm_dup(comm, dup, ierr)
    call check(copies == 1 .and. seen_extra == extra, 'MPI_Comm_dup: the copy callback once, with EXTRA_STATE')
    call MPI_Comm_get_attr(dup, kuser, val, flag, ierr)
    call check(flag .and. val == 41, 'MPI_Comm_dup: the copy callback''s value')
    call MPI_Comm_get_attr(dup, knull, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_COMM_NULL_COPY_FN: not copied')
    call MPI_Comm_get_attr(dup, kdup, val, flag, ierr)
    call check(flag .and. val == -(2_MPI_ADDRESS_KIND**40), 'MPI_COMM_DUP_FN: the value copied')
    call MPI_Comm_free(dup, ierr)
    call check(deletes == 2 .and. deleted_value == 41, 'MPI_Comm_free: the delete callback')
    ! MPI_Comm_idup and MPI_Comm_dup_with_info copy too
    call MPI_Comm_idup(comm, dup, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_Comm_get_attr(dup, kuser, val, flag, ierr)
    call check(copies == 2 .and. flag .and. val == 41, 'MPI_Comm_idup: the copy callback')
    call MPI_Comm_get_attr(dup, kdup, val, flag, ierr)
    call check(flag .and. val == -(2_MPI_ADDRESS_KIND**40), 'MPI_Comm_idup: MPI_COMM_DUP_FN')
    call MPI_Comm_free(dup, ierr)
    call check(deletes == 3, 'MPI_Comm_free of MPI_Comm_idup''s: the delete callback')
    call MPI_Info_create(info, ierr)
    call MPI_Comm_dup_with_info(comm, info, dup, ierr)
    call MPI_Info_free(info, ierr)
    call MPI_Comm_get_attr(dup, kuser, val, flag, ierr)
    call check(copies == 3 .and. flag .and. val == 41, 'MPI_Comm_dup_with_info: the copy callback')
    ! MPI_Comm_delete_attr
    call MPI_Comm_delete_attr(dup, kuser, ierr)
    call check(ierr == MPI_SUCCESS .and. deletes == 4 .and. deleted_value == 41, &
               'MPI_Comm_delete_attr: the delete callback')
    call MPI_Comm_get_attr(dup, kuser, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Comm_get_attr after MPI_Comm_delete_attr: none')
    call MPI_Comm_free(dup, ierr)
    call check(deletes == 4, 'MPI_Comm_free after MPI_Comm_delete_attr: no delete callback')

    ! MPI_Comm_free_keyval: MPI_KEYVAL_INVALID; the attribute stays until its communicator goes
    kv = kuser
    call MPI_Comm_free_keyval(kv, ierr)
    call check(ierr == MPI_SUCCESS .and. kv == MPI_KEYVAL_INVALID, 'MPI_Comm_free_keyval: MPI_KEYVAL_INVALID')
#ifndef RDMACH_USE_F08
    ! the deprecated MPI-1 forms (not in mpi_f08): INTEGER values
    call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, i1, flag, ierr)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. i1 == val, 'MPI_Attr_get(MPI_TAG_UB)')
    call MPI_Comm_create_keyval(copy_plus_one, record_delete, kv, extra, ierr)
    call MPI_Attr_put(comm, kv, 1234, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Attr_put')
    i1 = 0
    call MPI_Attr_get(comm, kv, i1, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. i1 == 1234, 'MPI_Attr_get of MPI_Attr_put''s')
    call MPI_Comm_get_attr(comm, kv, val, flag, ierr)
    call check(flag .and. val == 1234, 'MPI_Comm_get_attr of MPI_Attr_put''s')
    call MPI_Attr_delete(comm, kv, ierr)
    call check(ierr == MPI_SUCCESS .and. deletes == 5 .and. deleted_value == 1234, 'MPI_Attr_delete: the callback')
    call MPI_Attr_get(comm, kv, i1, flag, ierr)
    call check(ierr == MPI_SUCCESS .and. .not. flag, 'MPI_Attr_get after MPI_Attr_delete: none')
    call MPI_Comm_free_keyval(kv, ierr)
#endif
    nd = deletes
    call MPI_Comm_free(comm, ierr)
    call check(deletes == nd + 1 .and. deleted_value == 40, 'MPI_Comm_free: the delete callback of a freed keyval')
    call MPI_Comm_free_keyval(knull, ierr)
    call MPI_Comm_free_keyval(kdup, ierr)
    call check(ierr == MPI_SUCCESS .and. knull == MPI_KEYVAL_INVALID .and. kdup == MPI_KEYVAL_INVALID, &
               'MPI_Comm_free_keyval of the predefined callbacks''')
  end subroutine

  ! MPI_COMM_SELF's attributes: MPI_Finalize deletes them, the last set first
  ! (checked after MPI_Finalize)
  subroutine self_attributes()
    integer :: ka, kb
    integer(kind=MPI_ADDRESS_KIND) :: val, extra

    extra = 0
    call MPI_Comm_create_keyval(copy_plus_one, record_delete, ka, extra, ierr)
    call MPI_Comm_create_keyval(copy_plus_one, record_delete, kb, extra, ierr)
    val = 1
    call MPI_Comm_set_attr(MPI_COMM_SELF, ka, val, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_set_attr(MPI_COMM_SELF)')
    val = 2
    call MPI_Comm_set_attr(MPI_COMM_SELF, kb, val, ierr)
    call MPI_Comm_free_keyval(ka, ierr)
    call MPI_Comm_free_keyval(kb, ierr)
    call check(self_deletes == 0, 'MPI_COMM_SELF''s attributes stay until MPI_Finalize')
  end subroutine

#include "check.inc"
end program
