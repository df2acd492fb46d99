! f_coll_every: every MPI collective from Fortran, every result value
! checked on every rank (MPI 4.1), through mpif.h, `use mpi` (mpi_test.h)
! and `use mpi_f08` (-DRDMACH_USE_F08). The data depend on the sending
! rank, the receiving rank (or block) and the element, and change between
! two rounds, so a block in the wrong place, from the wrong rank or left
! from the round before is seen; the places a call must not write (gaps
! between blocks, an MPI_PROC_NULL neighbour's block, the send buffer) keep
! a sentinel that is checked too.
!   blocking      MPI_BARRIER, BCAST (DOUBLE PRECISION; a row of an INTEGER
!                 matrix as an MPI_TYPE_VECTOR), GATHER, GATHERV (REAL),
!                 SCATTER (DOUBLE PRECISION), SCATTERV, ALLGATHER (received
!                 through a vector resized to one INTEGER: rank q's block
!                 is row q + 1 of a matrix), ALLGATHERV, ALLTOALL,
!                 ALLTOALLV, ALLTOALLW (displacements in bytes; per peer
!                 MPI_INTEGER, a strided vector of INTEGERs or
!                 MPI_DOUBLE_PRECISION), REDUCE (SUM of DOUBLE PRECISION,
!                 MAXLOC of MPI_2INTEGER), ALLREDUCE (SUM, PROD, MAX, MIN,
!                 BAND, BOR of INTEGERs; LAND of LOGICALs), REDUCE_SCATTER
!                 (DOUBLE PRECISION; a count of 0 for every third rank),
!                 REDUCE_SCATTER_BLOCK (MIN of REALs), SCAN (SUM, MAX),
!                 EXSCAN (SUM, PROD; rank 0's result is undefined and not
!                 checked), REDUCE_LOCAL;
!   MPI_IN_PLACE  each of them again wherever the standard allows it
!                 (GATHER(V) and REDUCE at the root, SCATTER(V) at the root
!                 as RECVBUF, ALLGATHER(V), ALLTOALL(V,W), ALLREDUCE,
!                 REDUCE_SCATTER(_BLOCK), SCAN, EXSCAN), the arguments it
!                 makes ignored given as 0 and MPI_DATATYPE_NULL;
!   nonblocking   the I- form of each of the above, in place too, completed
!                 in turn by MPI_WAIT, a loop of MPI_TEST and MPI_WAITALL,
!                 the request MPI_REQUEST_NULL after; four at once
!                 (IBARRIER, IBCAST, IALLREDUCE, IALLTOALL) completed by one
!                 MPI_WAITALL, then by a loop of MPI_TESTALL;
!   persistent    the _INIT form of each (MPI 4.0, INFO MPI_INFO_NULL), in
!                 place too, started twice (MPI_START, then MPI_STARTALL of
!                 one) with new data before each start, the request still
!                 allocated (inactive) after completion (MPI_WAIT on it
!                 returns, MPI_TEST gives FLAG true and an empty status),
!                 then MPI_REQUEST_FREE (MPI_REQUEST_NULL after); four on
!                 communicators of their own started together by
!                 MPI_STARTALL;
!   neighbourhood MPI_NEIGHBOR_ALLGATHER(V), NEIGHBOR_ALLTOALL(V,W) (W:
!                 displacements INTEGER(KIND=MPI_ADDRESS_KIND) in bytes,
!                 DOUBLE PRECISION in dimension 0, INTEGERs sent strided in
!                 dimension 1), their I- and _INIT forms, on three
!                 MPI_CART_CREATE topologies: a periodic ring, a periodic 2-D
!                 grid and a 2-D grid periodic in dimension 0 only (an
!                 MPI_PROC_NULL neighbour's block is left alone). The
!                 neighbours in order (§8.6): per dimension, the -1 then the
!                 +1 neighbour as MPI_CART_SHIFT gives them; what a rank
!                 sends to its -1 neighbour fills that neighbour's +1 block
!                 and the reverse, also when both neighbours are one rank
!                 (a periodic dimension of size 1 or 2, mpi-issues #153);
!   user ops      MPI_OP_CREATE with a Fortran subroutine: commutative (the
!                 larger magnitude of two INTEGERs) and not (composition of
!                 affine maps x -> s x + v mod 10007 on MPI_2INTEGER pairs,
!                 whose result depends on the order of the ranks) in
!                 ALLREDUCE and REDUCE_SCATTER_BLOCK, the one not
!                 commutative also in REDUCE, SCAN, EXSCAN and
!                 REDUCE_SCATTER, all in their three forms and in place,
!                 and both in REDUCE_LOCAL; the subroutine gets the DATATYPE
!                 handle the call was given.
! Any number of ranks.
! How it is built: a test t_* runs one collective (or a few alike, chosen
! by an argument) for two rounds in one of the three forms (mode), in
! place or not. The calls themselves are made by the c_* subroutines, one
! per argument list, which call the blocking, the nonblocking or the
! persistent form of the collective named (the persistent one in round 1
! only; round 2 starts that request again), so that a test passes its
! buffers, or MPI_IN_PLACE, once for all three forms. finish() starts and
! completes the request of the round, release() checks and frees a
! persistent one, and cmp_*() compare every element of a result.
#ifdef RDMACH_USE_F08
#define MPI_USE use mpi_f08
#define MPI_INCLUDE
#define COMM_T type(MPI_Comm)
#define REQ_T type(MPI_Request)
#define DT_T type(MPI_Datatype)
#define OP_T type(MPI_Op)
#define STATUS_DECL(s) type(MPI_Status) :: s
#define STATUSES_DECL(s, n) type(MPI_Status) :: s(n)
#define OPS_MODULE f_coll_every_f08_ops
#define SOURCE_OF(s) s%MPI_SOURCE
#define TAG_OF(s) s%MPI_TAG
#define CALLS_MODULE f_coll_every_f08_calls
#define CHOICE type(*), dimension(..), asynchronous
#define NO_ARG_CHECK(b)
#else
#include "mpi_test.h"
#define COMM_T integer
#define REQ_T integer
#define DT_T integer
#define OP_T integer
#define STATUS_DECL(s) integer :: s(MPI_STATUS_SIZE)
#define STATUSES_DECL(s, n) integer :: s(MPI_STATUS_SIZE, n)
#define OPS_MODULE f_coll_every_ops
#define SOURCE_OF(s) s(MPI_SOURCE)
#define TAG_OF(s) s(MPI_TAG)
! The choice buffers of the c_* subroutines: with rdmach's module mpi
! assumed-type and unchecked, as its own; mpif.h and MPICH's module mpi
! give the choice procedures no explicit interface, to which an
! assumed-type buffer may not be passed, so there the c_* subroutines are
! external ones, called without an interface as those are.
#if defined(RDMACH_USE_MODULE) && !defined(RDMACH_MPICH_BUILD)
#define CALLS_MODULE f_coll_every_calls
#define CHOICE type(*), dimension(*), asynchronous
#define NO_ARG_CHECK(b) !GCC$ ATTRIBUTES NO_ARG_CHECK :: b
#else
#define CHOICE integer, dimension(*)
#define NO_ARG_CHECK(b)
#endif
#endif

! The user reductions and what they saw, and the names shared with the
! c_* subroutines (a module of another name with mpi_f08, whose .mod a
! build of the other kind in the same directory must not stand in for).
module OPS_MODULE
#ifdef RDMACH_USE_F08
  use mpi_f08
#endif
  implicit none
  integer, parameter :: modp = 10007
  integer :: op_calls = 0, op_bad_type = 0
  ! the three forms of a collective
  integer, parameter :: BLK = 0, NBK = 1, PER = 2
  ! the collectives of the c_* subroutines, and their names
  integer, parameter :: K_GATHER = 1, K_SCATTER = 2, K_ALLGATHER = 3, K_ALLTOALL = 4, K_NB_ALLGATHER = 5, &
                        K_NB_ALLTOALL = 6, K_GATHERV = 7, K_SCATTERV = 8, K_ALLGATHERV = 9, K_ALLTOALLV = 10, &
                        K_ALLTOALLW = 11, K_NB_ALLGATHERV = 12, K_NB_ALLTOALLV = 13, K_REDUCE = 14, &
                        K_ALLREDUCE = 15, K_REDUCE_SCATTER = 16, K_REDUCE_SCATTER_BLOCK = 17, K_SCAN = 18, &
                        K_EXSCAN = 19
  character(len=20), parameter :: knames(19) = [character(len=20) :: 'Gather', 'Scatter', 'Allgather', &
      'Alltoall', 'Neighbor_allgather', 'Neighbor_alltoall', 'Gatherv', 'Scatterv', 'Allgatherv', &
      'Alltoallv', 'Alltoallw', 'Neighbor_allgatherv', 'Neighbor_alltoallv', 'Reduce', 'Allreduce', &
      'Reduce_scatter', 'Reduce_scatter_block', 'Scan', 'Exscan']
contains
  ! b(:, i) = a(:, i) o b(:, i): the pair (v, s) is the map x -> s x + v
  ! (mod modp), a o b is a then b: associative, not commutative
  subroutine compose_work(a, b, n)
    integer, intent(in) :: n
    integer, intent(in) :: a(2, n)
    integer, intent(inout) :: b(2, n)
    integer :: i
    do i = 1, n
      b(1, i) = mod(a(1, i) * b(2, i) + b(1, i), modp)
      b(2, i) = mod(a(2, i) * b(2, i), modp)
    end do
  end subroutine

  ! b(i) = whichever of a(i), b(i) has the larger magnitude
  subroutine absmax_work(a, b, n)
    integer, intent(in) :: n
    integer, intent(in) :: a(n)
    integer, intent(inout) :: b(n)
    integer :: i
    do i = 1, n
      if (abs(a(i)) > abs(b(i))) b(i) = a(i)
    end do
  end subroutine

  ! A user operation is called: counted, and whether it got the DATATYPE
  ! it works on (counted too when not, and then it does nothing)
  logical function op_called(right_type)
    logical, intent(in) :: right_type
    op_calls = op_calls + 1
    if (.not. right_type) op_bad_type = op_bad_type + 1
    op_called = right_type
  end function

#ifdef RDMACH_USE_F08
  subroutine uop_compose(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:, :), b(:, :)
    if (.not. op_called(datatype == MPI_2INTEGER)) return
    call c_f_pointer(invec, a, [2, len])
    call c_f_pointer(inoutvec, b, [2, len])
    call compose_work(a, b, len)
  end subroutine

  subroutine uop_absmax(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (.not. op_called(datatype == MPI_INTEGER)) return
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    call absmax_work(a, b, len)
  end subroutine
#endif
end module

#ifndef RDMACH_USE_F08
subroutine uop_compose(invec, inoutvec, len, datatype)
  use OPS_MODULE
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: len, datatype
  integer :: invec(2, len), inoutvec(2, len)
  if (op_called(datatype == MPI_2INTEGER)) call compose_work(invec, inoutvec, len)
end subroutine

subroutine uop_absmax(invec, inoutvec, len, datatype)
  use OPS_MODULE
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: len, datatype
  integer :: invec(len), inoutvec(len)
  if (op_called(datatype == MPI_INTEGER)) call absmax_work(invec, inoutvec, len)
end subroutine
#endif

! ------------------------------------------------------------------ calls
! c_*(coll, mode, it, the arguments of collective coll's blocking form,
! req, ierr): MPI_<coll>, MPI_I<coll> (REQ) or, in round 1 only,
! MPI_<coll>_INIT (MPI_INFO_NULL, REQ), as mode has it. IERR is left alone
! when no call is made (the round of a persistent request after the first).
#ifdef CALLS_MODULE
module CALLS_MODULE
contains
#endif
! MPI_BCAST of BUF on MPI_COMM_WORLD (no coll: the one collective)
subroutine c_bcast(mode, it, buf, n, dt, root, req, ierr)
  use OPS_MODULE
  MPI_USE
  implicit none
  MPI_INCLUDE
  NO_ARG_CHECK(buf)
  CHOICE :: buf
  integer, intent(in) :: mode, it, n, root
  DT_T, intent(in) :: dt
  REQ_T, intent(inout) :: req
  integer, intent(inout) :: ierr
  if (mode == PER .and. it > 1) return
  select case (mode)
  case (BLK)
    call MPI_Bcast(buf, n, dt, root, MPI_COMM_WORLD, ierr)
  case (NBK)
    call MPI_Ibcast(buf, n, dt, root, MPI_COMM_WORLD, req, ierr)
  case (PER)
    call MPI_Bcast_init(buf, n, dt, root, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
  end select
end subroutine

! One count and one datatype a side: GATHER and SCATTER (to or from ROOT),
! ALLGATHER, ALLTOALL, NEIGHBOR_ALLGATHER and NEIGHBOR_ALLTOALL (ROOT not
! used)
subroutine c_fixed(coll, mode, it, s, sc, st, r, rc, rt, root, comm, req, ierr)
  use OPS_MODULE
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer, intent(in) :: coll, mode, it, sc, rc, root
  NO_ARG_CHECK(s)
  NO_ARG_CHECK(r)
  CHOICE :: s, r
  DT_T, intent(in) :: st, rt
  COMM_T, intent(in) :: comm
  REQ_T, intent(inout) :: req
  integer, intent(inout) :: ierr
  if (mode == PER .and. it > 1) return
  select case (mode)
  case (BLK)
    select case (coll)
    case (K_GATHER)
      call MPI_Gather(s, sc, st, r, rc, rt, root, comm, ierr)
    case (K_SCATTER)
      call MPI_Scatter(s, sc, st, r, rc, rt, root, comm, ierr)
    case (K_ALLGATHER)
      call MPI_Allgather(s, sc, st, r, rc, rt, comm, ierr)
    case (K_ALLTOALL)
      call MPI_Alltoall(s, sc, st, r, rc, rt, comm, ierr)
    case (K_NB_ALLGATHER)
      call MPI_Neighbor_allgather(s, sc, st, r, rc, rt, comm, ierr)
    case (K_NB_ALLTOALL)
      call MPI_Neighbor_alltoall(s, sc, st, r, rc, rt, comm, ierr)
    end select
  case (NBK)
    select case (coll)
    case (K_GATHER)
      call MPI_Igather(s, sc, st, r, rc, rt, root, comm, req, ierr)
    case (K_SCATTER)
      call MPI_Iscatter(s, sc, st, r, rc, rt, root, comm, req, ierr)
    case (K_ALLGATHER)
      call MPI_Iallgather(s, sc, st, r, rc, rt, comm, req, ierr)
    case (K_ALLTOALL)
      call MPI_Ialltoall(s, sc, st, r, rc, rt, comm, req, ierr)
    case (K_NB_ALLGATHER)
      call MPI_Ineighbor_allgather(s, sc, st, r, rc, rt, comm, req, ierr)
    case (K_NB_ALLTOALL)
      call MPI_Ineighbor_alltoall(s, sc, st, r, rc, rt, comm, req, ierr)
    end select
  case (PER)
    select case (coll)
    case (K_GATHER)
      call MPI_Gather_init(s, sc, st, r, rc, rt, root, comm, MPI_INFO_NULL, req, ierr)
    case (K_SCATTER)
      call MPI_Scatter_init(s, sc, st, r, rc, rt, root, comm, MPI_INFO_NULL, req, ierr)
    case (K_ALLGATHER)
      call MPI_Allgather_init(s, sc, st, r, rc, rt, comm, MPI_INFO_NULL, req, ierr)
    case (K_ALLTOALL)
      call MPI_Alltoall_init(s, sc, st, r, rc, rt, comm, MPI_INFO_NULL, req, ierr)
    case (K_NB_ALLGATHER)
      call MPI_Neighbor_allgather_init(s, sc, st, r, rc, rt, comm, MPI_INFO_NULL, req, ierr)
    case (K_NB_ALLTOALL)
      call MPI_Neighbor_alltoall_init(s, sc, st, r, rc, rt, comm, MPI_INFO_NULL, req, ierr)
    end select
  end select
end subroutine

! Counts, displacements (elements, or bytes for ALLTOALLW) and datatypes
! as arrays: GATHERV (to ROOT), SCATTERV (from ROOT), ALLGATHERV,
! ALLTOALLV, ALLTOALLW, NEIGHBOR_ALLGATHERV and NEIGHBOR_ALLTOALLV. Where
! the collective has one count or one datatype on a side, it is element 1
! (SC(1), ST(1); RC(1), RT(1)) and that side's displacements are not used.
subroutine c_varied(coll, mode, it, s, sc, sd, st, r, rc, rd, rt, root, comm, req, ierr)
  use OPS_MODULE
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer, intent(in) :: coll, mode, it, sc(*), sd(*), rc(*), rd(*), root
  NO_ARG_CHECK(s)
  NO_ARG_CHECK(r)
  CHOICE :: s, r
  DT_T, intent(in) :: st(*), rt(*)
  COMM_T, intent(in) :: comm
  REQ_T, intent(inout) :: req
  integer, intent(inout) :: ierr
  if (mode == PER .and. it > 1) return
  select case (mode)
  case (BLK)
    select case (coll)
    case (K_GATHERV)
      call MPI_Gatherv(s, sc(1), st(1), r, rc, rd, rt(1), root, comm, ierr)
    case (K_SCATTERV)
      call MPI_Scatterv(s, sc, sd, st(1), r, rc(1), rt(1), root, comm, ierr)
    case (K_ALLGATHERV)
      call MPI_Allgatherv(s, sc(1), st(1), r, rc, rd, rt(1), comm, ierr)
    case (K_ALLTOALLV)
      call MPI_Alltoallv(s, sc, sd, st(1), r, rc, rd, rt(1), comm, ierr)
    case (K_ALLTOALLW)
      call MPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, comm, ierr)
    case (K_NB_ALLGATHERV)
      call MPI_Neighbor_allgatherv(s, sc(1), st(1), r, rc, rd, rt(1), comm, ierr)
    case (K_NB_ALLTOALLV)
      call MPI_Neighbor_alltoallv(s, sc, sd, st(1), r, rc, rd, rt(1), comm, ierr)
    end select
  case (NBK)
    select case (coll)
    case (K_GATHERV)
      call MPI_Igatherv(s, sc(1), st(1), r, rc, rd, rt(1), root, comm, req, ierr)
    case (K_SCATTERV)
      call MPI_Iscatterv(s, sc, sd, st(1), r, rc(1), rt(1), root, comm, req, ierr)
    case (K_ALLGATHERV)
      call MPI_Iallgatherv(s, sc(1), st(1), r, rc, rd, rt(1), comm, req, ierr)
    case (K_ALLTOALLV)
      call MPI_Ialltoallv(s, sc, sd, st(1), r, rc, rd, rt(1), comm, req, ierr)
    case (K_ALLTOALLW)
      call MPI_Ialltoallw(s, sc, sd, st, r, rc, rd, rt, comm, req, ierr)
    case (K_NB_ALLGATHERV)
      call MPI_Ineighbor_allgatherv(s, sc(1), st(1), r, rc, rd, rt(1), comm, req, ierr)
    case (K_NB_ALLTOALLV)
      call MPI_Ineighbor_alltoallv(s, sc, sd, st(1), r, rc, rd, rt(1), comm, req, ierr)
    end select
  case (PER)
    select case (coll)
    case (K_GATHERV)
      call MPI_Gatherv_init(s, sc(1), st(1), r, rc, rd, rt(1), root, comm, MPI_INFO_NULL, req, ierr)
    case (K_SCATTERV)
      call MPI_Scatterv_init(s, sc, sd, st(1), r, rc(1), rt(1), root, comm, MPI_INFO_NULL, req, ierr)
    case (K_ALLGATHERV)
      call MPI_Allgatherv_init(s, sc(1), st(1), r, rc, rd, rt(1), comm, MPI_INFO_NULL, req, ierr)
    case (K_ALLTOALLV)
      call MPI_Alltoallv_init(s, sc, sd, st(1), r, rc, rd, rt(1), comm, MPI_INFO_NULL, req, ierr)
    case (K_ALLTOALLW)
      call MPI_Alltoallw_init(s, sc, sd, st, r, rc, rd, rt, comm, MPI_INFO_NULL, req, ierr)
    case (K_NB_ALLGATHERV)
      call MPI_Neighbor_allgatherv_init(s, sc(1), st(1), r, rc, rd, rt(1), comm, MPI_INFO_NULL, req, ierr)
    case (K_NB_ALLTOALLV)
      call MPI_Neighbor_alltoallv_init(s, sc, sd, st(1), r, rc, rd, rt(1), comm, MPI_INFO_NULL, req, ierr)
    end select
  end select
end subroutine

! MPI_NEIGHBOR_ALLTOALLW, whose displacements are
! INTEGER(KIND=MPI_ADDRESS_KIND)
subroutine c_nb_alltoallw(mode, it, s, sc, sd, st, r, rc, rd, rt, comm, req, ierr)
  use OPS_MODULE
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer, intent(in) :: mode, it, sc(*), rc(*)
  integer(kind=MPI_ADDRESS_KIND), intent(in) :: sd(*), rd(*)
  NO_ARG_CHECK(s)
  NO_ARG_CHECK(r)
  CHOICE :: s, r
  DT_T, intent(in) :: st(*), rt(*)
  COMM_T, intent(in) :: comm
  REQ_T, intent(inout) :: req
  integer, intent(inout) :: ierr
  if (mode == PER .and. it > 1) return
  select case (mode)
  case (BLK)
    call MPI_Neighbor_alltoallw(s, sc, sd, st, r, rc, rd, rt, comm, ierr)
  case (NBK)
    call MPI_Ineighbor_alltoallw(s, sc, sd, st, r, rc, rd, rt, comm, req, ierr)
  case (PER)
    call MPI_Neighbor_alltoallw_init(s, sc, sd, st, r, rc, rd, rt, comm, MPI_INFO_NULL, req, ierr)
  end select
end subroutine

! The reductions, on MPI_COMM_WORLD: REDUCE (to ROOT), ALLREDUCE,
! REDUCE_SCATTER, REDUCE_SCATTER_BLOCK, SCAN and EXSCAN (ROOT not used).
! N: COUNT (RECVCOUNT) as N(1), or the RECVCOUNTS of REDUCE_SCATTER.
subroutine c_reduce(coll, mode, it, s, r, n, dt, op, root, req, ierr)
  use OPS_MODULE
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer, intent(in) :: coll, mode, it, n(*), root
  NO_ARG_CHECK(s)
  NO_ARG_CHECK(r)
  CHOICE :: s, r
  DT_T, intent(in) :: dt
  OP_T, intent(in) :: op
  REQ_T, intent(inout) :: req
  integer, intent(inout) :: ierr
  if (mode == PER .and. it > 1) return
  select case (mode)
  case (BLK)
    select case (coll)
    case (K_REDUCE)
      call MPI_Reduce(s, r, n(1), dt, op, root, MPI_COMM_WORLD, ierr)
    case (K_ALLREDUCE)
      call MPI_Allreduce(s, r, n(1), dt, op, MPI_COMM_WORLD, ierr)
    case (K_REDUCE_SCATTER)
      call MPI_Reduce_scatter(s, r, n, dt, op, MPI_COMM_WORLD, ierr)
    case (K_REDUCE_SCATTER_BLOCK)
      call MPI_Reduce_scatter_block(s, r, n(1), dt, op, MPI_COMM_WORLD, ierr)
    case (K_SCAN)
      call MPI_Scan(s, r, n(1), dt, op, MPI_COMM_WORLD, ierr)
    case (K_EXSCAN)
      call MPI_Exscan(s, r, n(1), dt, op, MPI_COMM_WORLD, ierr)
    end select
  case (NBK)
    select case (coll)
    case (K_REDUCE)
      call MPI_Ireduce(s, r, n(1), dt, op, root, MPI_COMM_WORLD, req, ierr)
    case (K_ALLREDUCE)
      call MPI_Iallreduce(s, r, n(1), dt, op, MPI_COMM_WORLD, req, ierr)
    case (K_REDUCE_SCATTER)
      call MPI_Ireduce_scatter(s, r, n, dt, op, MPI_COMM_WORLD, req, ierr)
    case (K_REDUCE_SCATTER_BLOCK)
      call MPI_Ireduce_scatter_block(s, r, n(1), dt, op, MPI_COMM_WORLD, req, ierr)
    case (K_SCAN)
      call MPI_Iscan(s, r, n(1), dt, op, MPI_COMM_WORLD, req, ierr)
    case (K_EXSCAN)
      call MPI_Iexscan(s, r, n(1), dt, op, MPI_COMM_WORLD, req, ierr)
    end select
  case (PER)
    select case (coll)
    case (K_REDUCE)
      call MPI_Reduce_init(s, r, n(1), dt, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    case (K_ALLREDUCE)
      call MPI_Allreduce_init(s, r, n(1), dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    case (K_REDUCE_SCATTER)
      call MPI_Reduce_scatter_init(s, r, n, dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    case (K_REDUCE_SCATTER_BLOCK)
      call MPI_Reduce_scatter_block_init(s, r, n(1), dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    case (K_SCAN)
      call MPI_Scan_init(s, r, n(1), dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    case (K_EXSCAN)
      call MPI_Exscan_init(s, r, n(1), dt, op, MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
    end select
  end select
end subroutine
#ifdef CALLS_MODULE
end module
#endif

program f_coll_every
  use OPS_MODULE
#ifdef CALLS_MODULE
  use CALLS_MODULE
#endif
  MPI_USE
  implicit none
  MPI_INCLUDE
#ifndef RDMACH_USE_F08
  external :: uop_compose, uop_absmax
#endif
#ifndef CALLS_MODULE
  external :: c_bcast, c_fixed, c_varied, c_nb_alltoallw, c_reduce
#endif
  character(len=8), parameter :: opnames(6) = ['MPI_SUM ', 'MPI_PROD', 'MPI_MAX ', 'MPI_MIN ', 'MPI_BAND', &
                                               'MPI_BOR ']
  ! t_user's collectives in turn, and whether with the commutative operation
  integer, parameter :: ucolls(8) = [K_ALLREDUCE, K_ALLREDUCE, K_REDUCE_SCATTER_BLOCK, K_REDUCE_SCATTER_BLOCK, &
                                     K_REDUCE, K_SCAN, K_EXSCAN, K_REDUCE_SCATTER]
  logical, parameter :: ucommute(8) = [.false., .true., .false., .true., .false., .false., .false., .false.]
  integer :: ierr, rank, nproc, isz, dsz, mode, ip, k, nfinish, nd
  logical :: inplace
  DT_T :: strided(3)
  OP_T :: ops6(6), op_nc, op_c
  COMM_T :: cart
  integer :: dims(2), topo
  logical :: periods(2)
  integer, allocatable :: nb(:)
  ! the test running: its name for the messages and its request
  character(len=80) :: what
  REQ_T :: req

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')
  ! DOUBLE PRECISION values travel in INTEGER buffers (ALLTOALLW) by TRANSFER
  call MPI_Type_size(MPI_INTEGER, isz, ierr)
  call MPI_Type_size(MPI_DOUBLE_PRECISION, dsz, ierr)
  call check(isz == 4 .and. dsz == 8, 'MPI_Type_size of MPI_INTEGER and MPI_DOUBLE_PRECISION')
  ! strided(c): c INTEGERs, every other one
  do k = 1, 3
    call MPI_Type_vector(k, 1, 2, MPI_INTEGER, strided(k), ierr)
    call MPI_Type_commit(strided(k), ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_vector / MPI_Type_commit')
  end do
  ops6 = [MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR]
  call MPI_Op_create(uop_compose, .false., op_nc, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Op_create (not commutative)')
  call MPI_Op_create(uop_absmax, .true., op_c, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Op_create (commutative)')
  nfinish = 0

  call t_reduce_local()
  do mode = BLK, PER
    call t_barrier(mode)
    call t_bcast(mode)
    call t_bcast_row(mode)
    do ip = 0, 1
      inplace = ip == 1
      call t_gather(mode, inplace)
      call t_gatherv(mode, inplace)
      call t_scatter(mode, inplace)
      call t_scatterv(mode, inplace)
      call t_allgather(mode, inplace)
      call t_allgatherv(mode, inplace)
      call t_alltoall(mode, inplace)
      call t_alltoallv(mode, inplace)
      call t_alltoallw(mode, inplace)
      call t_reduce(mode, inplace)
      call t_reduce_maxloc(mode, inplace)
      do k = 1, 6
        call t_int_reduce(mode, inplace, K_ALLREDUCE, k)
      end do
      call t_allreduce_land(mode, inplace)
      call t_reduce_scatter(mode, inplace)
      call t_reduce_scatter_block(mode, inplace)
      call t_int_reduce(mode, inplace, K_SCAN, 1)
      call t_int_reduce(mode, inplace, K_SCAN, 3)
      call t_int_reduce(mode, inplace, K_EXSCAN, 1)
      call t_int_reduce(mode, inplace, K_EXSCAN, 2)
      do k = 1, 8
        call t_user(mode, inplace, ucolls(k), ucommute(k))
      end do
    end do
  end do
  call t_batch_nb()
  call t_batch_persist()
  call check(op_bad_type == 0, 'a user operation got another DATATYPE than the call''s')

  ! neighbourhood collectives: 1 a periodic ring, 2 a periodic 2-D grid,
  ! 3 a 2-D grid periodic in dimension 0 only
  do topo = 1, 3
    if (topo == 1) then
      nd = 1
      dims(1) = nproc
      periods(1) = .true.
    else
      nd = 2
      dims = 0
      call MPI_Dims_create(nproc, 2, dims, ierr)
      periods = [.true., topo == 2]
    end if
    call MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, .false., cart, ierr)
    call check(ierr == MPI_SUCCESS .and. cart /= MPI_COMM_NULL, 'MPI_Cart_create')
    allocate(nb(0:2 * nd - 1))
    do k = 0, nd - 1
      call MPI_Cart_shift(cart, k, 1, nb(2 * k), nb(2 * k + 1), ierr)
      call check(ierr == MPI_SUCCESS, 'MPI_Cart_shift')
    end do
    do mode = BLK, PER
      call t_nb_fixed(cart, nb, topo, mode, K_NB_ALLGATHER)
      call t_nb_allgatherv(cart, nb, topo, mode)
      call t_nb_fixed(cart, nb, topo, mode, K_NB_ALLTOALL)
      call t_nb_alltoallv(cart, nb, topo, mode)
      call t_nb_alltoallw(cart, nb, topo, mode)
    end do
    deallocate(nb)
    call MPI_Comm_free(cart, ierr)
  end do

  call MPI_Op_free(op_nc, ierr)
  call MPI_Op_free(op_c, ierr)
  call check(op_nc == MPI_OP_NULL .and. op_c == MPI_OP_NULL, 'MPI_Op_free')
  do k = 1, 3
    call MPI_Type_free(strided(k), ierr)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_coll_every: ok on ', nproc, ' ranks'

contains

  ! ---------------------------------------------------------------- helpers

  ! The value element i of the block from rank src for dst (a rank or a
  ! block index) has in round it.
  integer function v(src, dst, i, it)
    integer, intent(in) :: src, dst, i, it
    v = 100000 * it + 1000 * src + 10 * dst + i
  end function

  ! 'MPI_Gather', 'MPI_Igather' or 'MPI_Gather_init', and in place or not
  function nm(mode, base, inplace) result(s)
    integer, intent(in) :: mode
    character(len=*), intent(in) :: base
    logical, intent(in) :: inplace
    character(len=80) :: s
    select case (mode)
    case (BLK)
      s = 'MPI_' // trim(base)
    case (NBK)
      s = 'MPI_I' // achar(iachar(base(1:1)) + 32) // trim(base(2:))
    case default
      s = 'MPI_' // trim(base) // '_init'
    end select
    if (inplace) s = trim(s) // ' (MPI_IN_PLACE)'
  end function

  ! A test starts: its name, and no request yet
  subroutine begin(name)
    character(len=*), intent(in) :: name
    what = name
    req = MPI_REQUEST_NULL
  end subroutine

  ! Blocks of c(q) elements, q = 0, ..., one element apart by gap: d(q) is
  ! block q's displacement (elements), in order of q or reversed.
  subroutine layout(c, d, gap, reverse, total)
    integer, intent(in) :: c(0:), gap
    integer, intent(out) :: d(0:)
    logical, intent(in) :: reverse
    integer, intent(out) :: total
    integer :: q, m
    m = size(c)
    total = 0
    do q = 0, m - 1
      if (reverse) then
        d(m - 1 - q) = total
        total = total + c(m - 1 - q) + gap
      else
        d(q) = total
        total = total + c(q) + gap
      end if
    end do
  end subroutine

  ! DOUBLE PRECISION x as the two INTEGERs that hold its bytes
  function dbits(x) result(b)
    double precision, intent(in) :: x
    integer :: b(2)
    b = transfer(x, b)
  end function

  ! Every element of a result against the one expected (up to the size of
  ! expect); a difference is printed and fails. One comparison for all the
  ! types: DOUBLE PRECISION holds every INTEGER and REAL value exactly, so
  ! each compares as it would in its own type. ints: the values are
  ! INTEGERs (or LOGICALs as 1 and 0) and are printed as such.
  subroutine compare(got, expect, ints, what, it)
    double precision, intent(in) :: got(:), expect(:)
    logical, intent(in) :: ints
    character(len=*), intent(in) :: what
    integer, intent(in) :: it
    integer :: i
    do i = 1, size(expect)
      if (got(i) /= expect(i)) then
        print '(a, i0, 3a, i0, a, i0, 4a)', 'rank ', rank, ': ', trim(what), ', round ', it, &
              ': element ', i, ' is ', trim(num(got(i), ints)), ', expected ', trim(num(expect(i), ints))
        call check(.false., what)
      end if
    end do
  end subroutine

  ! x as text for compare's message
  function num(x, ints) result(s)
    double precision, intent(in) :: x
    logical, intent(in) :: ints
    character(len=32) :: s
    if (ints) then
      write(s, '(i0)') nint(x, kind=8)
    else
      write(s, '(g0)') x
    end if
  end function

  subroutine cmp_i(got, expect, what, it)
    integer, intent(in) :: got(:), expect(:), it
    character(len=*), intent(in) :: what
    call compare(dble(got), dble(expect), .true., what, it)
  end subroutine

  subroutine cmp_d(got, expect, what, it)
    double precision, intent(in) :: got(:), expect(:)
    character(len=*), intent(in) :: what
    integer, intent(in) :: it
    call compare(got, expect, .false., what, it)
  end subroutine

  subroutine cmp_r(got, expect, what, it)
    real, intent(in) :: got(:), expect(:)
    character(len=*), intent(in) :: what
    integer, intent(in) :: it
    call compare(dble(got), dble(expect), .false., what, it)
  end subroutine

  subroutine cmp_l(got, expect, what, it)
    logical, intent(in) :: got(:), expect(:)
    character(len=*), intent(in) :: what
    integer, intent(in) :: it
    call compare(merge(1d0, 0d0, got), merge(1d0, 0d0, expect), .true., what, it)
  end subroutine

  ! After the call of round it: nothing more for a blocking call; a
  ! persistent request is started (MPI_START in round 1, MPI_STARTALL in
  ! round 2); then the request is completed by MPI_WAIT, a loop of
  ! MPI_TEST or MPI_WAITALL, in turn.
  subroutine finish(mode, it)
    integer, intent(in) :: mode, it
    REQ_T :: reqs(1)
    logical :: done
    STATUS_DECL(status)
    call check(ierr == MPI_SUCCESS, trim(what) // ': IERROR')
    if (mode == BLK) return
    call check(req /= MPI_REQUEST_NULL, trim(what) // ': a request')
    if (mode == PER) then
      if (it == 1) then
        call MPI_Start(req, ierr)
        call check(ierr == MPI_SUCCESS, trim(what) // ': MPI_Start')
      else
        reqs(1) = req
        call MPI_Startall(1, reqs, ierr)
        req = reqs(1)
        call check(ierr == MPI_SUCCESS, trim(what) // ': MPI_Startall')
      end if
    end if
    nfinish = nfinish + 1
    select case (mod(nfinish, 3))
    case (0)
      call MPI_Wait(req, status, ierr)
      call check(ierr == MPI_SUCCESS, trim(what) // ': MPI_Wait')
    case (1)
      done = .false.
      do while (.not. done)
        call MPI_Test(req, done, status, ierr)
        call check(ierr == MPI_SUCCESS, trim(what) // ': MPI_Test')
      end do
    case default
      reqs(1) = req
      call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)
      req = reqs(1)
      call check(ierr == MPI_SUCCESS, trim(what) // ': MPI_Waitall')
    end select
    if (mode == NBK) then
      call check(req == MPI_REQUEST_NULL, trim(what) // ': the request is MPI_REQUEST_NULL once complete')
    else
      call check(req /= MPI_REQUEST_NULL, trim(what) // ': a complete persistent request stays allocated')
    end if
  end subroutine

  ! A persistent request, inactive: MPI_WAIT returns at once, MPI_TEST with
  ! FLAG true and an empty status (§3.7.3: MPI_ANY_SOURCE, MPI_ANY_TAG, a
  ! count of 0, not cancelled; its MPI_ERROR is not looked at, which calls
  ! returning one status need not set, §3.2.5); then MPI_REQUEST_FREE.
  subroutine release(mode)
    integer, intent(in) :: mode
    logical :: flag, cancelled
    integer :: count
    STATUS_DECL(status)
    if (mode /= PER) return
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. req /= MPI_REQUEST_NULL, &
               trim(what) // ': MPI_Wait of the inactive request')
    SOURCE_OF(status) = 12345
    TAG_OF(status) = 12345
    flag = .false.
    call MPI_Test(req, flag, status, ierr)
    call check(ierr == MPI_SUCCESS .and. flag .and. req /= MPI_REQUEST_NULL, &
               trim(what) // ': MPI_Test of the inactive request: FLAG true')
    call MPI_Get_count(status, MPI_INTEGER, count, ierr)
    call MPI_Test_cancelled(status, cancelled, ierr)
    call check(SOURCE_OF(status) == MPI_ANY_SOURCE .and. TAG_OF(status) == MPI_ANY_TAG .and. &
               count == 0 .and. .not. cancelled, &
               trim(what) // ': MPI_Test of the inactive request: an empty status')
    call MPI_Request_free(req, ierr)
    call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, trim(what) // ': MPI_Request_free')
  end subroutine

  ! ------------------------------------------------------------- broadcast

  subroutine t_barrier(mode)
    integer, intent(in) :: mode
    integer :: it
    call begin(nm(mode, 'Barrier', .false.))
    do it = 1, 2
      select case (mode)
      case (BLK)
        call MPI_Barrier(MPI_COMM_WORLD, ierr)
      case (NBK)
        call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
      case (PER)
        if (it == 1) call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, req, ierr)
      end select
      call finish(mode, it)
    end do
    call release(mode)
  end subroutine

  ! 3 DOUBLE PRECISION from the last rank
  subroutine t_bcast(mode)
    integer, intent(in) :: mode
    double precision, asynchronous :: d(3)
    double precision :: e(3)
    integer :: it, root
    call begin(nm(mode, 'Bcast', .false.))
    root = nproc - 1
    do it = 1, 2
      e = [1000d0 * root + it + 0.5d0, -dble(it), 2d0**40 + it]
      d = -7
      if (rank == root) d = e
      call c_bcast(mode, it, d, 3, MPI_DOUBLE_PRECISION, root, req, ierr)
      call finish(mode, it)
      call cmp_d(d, e, what, it)
    end do
    call release(mode)
  end subroutine

  ! row 2 of m(4, 5), a vector (5 INTEGERs 4 apart), from rank 0; the other
  ! rows keep their own values
  subroutine t_bcast_row(mode)
    integer, intent(in) :: mode
    integer, asynchronous :: m(4, 5)
    integer :: e(4, 5), i, j, it
    DT_T :: rowtype
    call begin(trim(nm(mode, 'Bcast', .false.)) // ' of a vector')
    call MPI_Type_vector(5, 1, 4, MPI_INTEGER, rowtype, ierr)
    call MPI_Type_commit(rowtype, ierr)
    do it = 1, 2
      m = reshape([((v(rank, i, j, it), i = 1, 4), j = 1, 5)], [4, 5])
      e = m
      e(2, :) = [(v(0, 2, j, it), j = 1, 5)]
      call c_bcast(mode, it, m(2, 1), 1, rowtype, 0, req, ierr)
      call finish(mode, it)
      call cmp_i(reshape(m, [20]), reshape(e, [20]), what, it)
    end do
    call release(mode)
    call MPI_Type_free(rowtype, ierr)
  end subroutine

  ! ---------------------------------------------------------------- gather

  ! 2 INTEGERs from each rank to rank 1 (0 on one rank)
  subroutine t_gather(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    integer, parameter :: k = 2
    integer, asynchronous :: s(k)
    integer, allocatable, asynchronous :: g(:)
    integer :: root, it, i, q
    call begin(nm(mode, 'Gather', inplace))
    root = mod(1, nproc)
    allocate(g(k * nproc))
    do it = 1, 2
      s = [(v(rank, root, i, it), i = 1, k)]
      g = -7
      if (inplace .and. rank == root) then
        g(k * root + 1:k * root + k) = s
        call c_fixed(K_GATHER, mode, it, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, k, MPI_INTEGER, root, &
                     MPI_COMM_WORLD, req, ierr)
      else
        call c_fixed(K_GATHER, mode, it, s, k, MPI_INTEGER, g, k, MPI_INTEGER, root, MPI_COMM_WORLD, req, ierr)
      end if
      call finish(mode, it)
      call cmp_i(s, [(v(rank, root, i, it), i = 1, k)], trim(what) // ': the send buffer', it)
      if (rank == root) call cmp_i(g, [((v(q, root, i, it), i = 1, k), q = 0, nproc - 1)], what, it)
    end do
    call release(mode)
  end subroutine

  ! rank q sends q + 1 REALs to the last rank, which puts the blocks in
  ! reverse order of rank one element apart
  subroutine t_gatherv(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    real, allocatable, asynchronous :: s(:), g(:)
    real, allocatable :: e(:)
    integer, allocatable :: rc(:), dp(:)
    integer :: root, it, i, q, total
    call begin(nm(mode, 'Gatherv', inplace))
    root = nproc - 1
    call ramp(rc, dp, total)
    allocate(s(nproc), g(total), e(total))
    do it = 1, 2
      s = -7
      s(1:rank + 1) = [(v(rank, root, i, it) + 0.5, i = 1, rank + 1)]
      g = -7
      e = -7
      do q = 0, nproc - 1
        e(dp(q) + 1:dp(q) + q + 1) = [(v(q, root, i, it) + 0.5, i = 1, q + 1)]
      end do
      if (inplace .and. rank == root) then
        g(dp(root) + 1:dp(root) + root + 1) = s(1:root + 1)
        call c_varied(K_GATHERV, mode, it, MPI_IN_PLACE, [0], [0], [MPI_DATATYPE_NULL], g, rc, dp, [MPI_REAL], &
                      root, MPI_COMM_WORLD, req, ierr)
      else
        call c_varied(K_GATHERV, mode, it, s, [rank + 1], [0], [MPI_REAL], g, rc, dp, [MPI_REAL], root, &
                      MPI_COMM_WORLD, req, ierr)
      end if
      call finish(mode, it)
      call cmp_r(s(1:rank + 1), [(v(rank, root, i, it) + 0.5, i = 1, rank + 1)], &
                 trim(what) // ': the send buffer', it)
      if (rank == root) call cmp_r(g, e, what, it)
    end do
    call release(mode)
  end subroutine

  ! The layout of GATHERV and ALLGATHERV: rank q's block q + 1 elements, the
  ! blocks in reverse order of rank one element apart
  subroutine ramp(rc, dp, total)
    integer, allocatable, intent(out) :: rc(:), dp(:)
    integer, intent(out) :: total
    integer :: q
    allocate(rc(0:nproc - 1), dp(0:nproc - 1))
    rc = [(q + 1, q = 0, nproc - 1)]
    call layout(rc, dp, 1, .true., total)
  end subroutine

  ! --------------------------------------------------------------- scatter

  ! 2 DOUBLE PRECISION to each rank from rank 2 (0 or 1 on fewer ranks)
  subroutine t_scatter(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    integer, parameter :: k = 2
    double precision, allocatable, asynchronous :: sd(:)
    double precision, asynchronous :: r(k)
    double precision, allocatable :: e(:)
    integer :: root, it, i, q
    call begin(nm(mode, 'Scatter', inplace))
    root = mod(2, nproc)
    allocate(sd(k * nproc), e(k * nproc))
    do it = 1, 2
      e = [((v(root, q, i, it) + 0.25d0, i = 1, k), q = 0, nproc - 1)]
      sd = -7
      if (rank == root) sd = e
      r = -7
      if (inplace .and. rank == root) then
        call c_fixed(K_SCATTER, mode, it, sd, k, MPI_DOUBLE_PRECISION, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, &
                     root, MPI_COMM_WORLD, req, ierr)
      else
        call c_fixed(K_SCATTER, mode, it, sd, k, MPI_DOUBLE_PRECISION, r, k, MPI_DOUBLE_PRECISION, root, &
                     MPI_COMM_WORLD, req, ierr)
      end if
      call finish(mode, it)
      if (inplace .and. rank == root) then
        call cmp_d(r, [(-7d0, i = 1, k)], trim(what) // ': RECVBUF not given, not written', it)
      else
        call cmp_d(r, [(v(root, rank, i, it) + 0.25d0, i = 1, k)], what, it)
      end if
      if (rank == root) call cmp_d(sd, e, trim(what) // ': the send buffer', it)
    end do
    call release(mode)
  end subroutine

  ! mod(q, 3) + 1 INTEGERs to rank q from rank 0, the blocks in reverse
  ! order two elements apart
  subroutine t_scatterv(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    integer, allocatable, asynchronous :: sd(:)
    integer, asynchronous :: r(4)
    integer, allocatable :: e(:), sc(:), dp(:)
    integer :: root, it, i, q, total, c
    call begin(nm(mode, 'Scatterv', inplace))
    root = 0
    allocate(sc(0:nproc - 1), dp(0:nproc - 1))
    sc = [(mod(q, 3) + 1, q = 0, nproc - 1)]
    call layout(sc, dp, 2, .true., total)
    allocate(sd(total), e(total))
    c = sc(rank)
    do it = 1, 2
      e = -5
      do q = 0, nproc - 1
        e(dp(q) + 1:dp(q) + sc(q)) = [(v(root, q, i, it), i = 1, sc(q))]
      end do
      sd = -5
      if (rank == root) sd = e
      r = -7
      if (inplace .and. rank == root) then
        call c_varied(K_SCATTERV, mode, it, sd, sc, dp, [MPI_INTEGER], MPI_IN_PLACE, [0], [0], &
                      [MPI_DATATYPE_NULL], root, MPI_COMM_WORLD, req, ierr)
      else
        call c_varied(K_SCATTERV, mode, it, sd, sc, dp, [MPI_INTEGER], r, [c], [0], [MPI_INTEGER], root, &
                      MPI_COMM_WORLD, req, ierr)
      end if
      call finish(mode, it)
      if (inplace .and. rank == root) then
        call cmp_i(r, [-7, -7, -7, -7], trim(what) // ': RECVBUF not given, not written', it)
      else
        call cmp_i(r, [(v(root, rank, i, it), i = 1, c), (-7, i = c + 1, 4)], what, it)
      end if
      if (rank == root) call cmp_i(sd, e, trim(what) // ': the send buffer', it)
    end do
    call release(mode)
  end subroutine

  ! ------------------------------------------------------------- allgather

  ! 5 INTEGERs from each rank, received as one vector (5 INTEGERs nproc
  ! apart) resized to one INTEGER: rank q's block is row q + 1 of m
  subroutine t_allgather(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    integer, asynchronous :: s(5)
    integer, allocatable, asynchronous :: m(:, :)
    integer, allocatable :: e(:, :)
    integer :: it, j, q
    integer(kind=MPI_ADDRESS_KIND) :: lb, ext
    DT_T :: vec, rowr
    call begin(trim(nm(mode, 'Allgather', inplace)) // ' into a resized vector')
    call MPI_Type_vector(5, 1, nproc, MPI_INTEGER, vec, ierr)
    lb = 0
    ext = isz
    call MPI_Type_create_resized(vec, lb, ext, rowr, ierr)
    call MPI_Type_commit(rowr, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Type_create_resized')
    allocate(m(nproc, 5), e(nproc, 5))
    do it = 1, 2
      s = [(v(rank, 0, j, it), j = 1, 5)]
      do q = 0, nproc - 1
        e(q + 1, :) = [(v(q, 0, j, it), j = 1, 5)]
      end do
      m = -7
      if (inplace) then
        m(rank + 1, :) = s
        call c_fixed(K_ALLGATHER, mode, it, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m, 1, rowr, 0, MPI_COMM_WORLD, &
                     req, ierr)
      else
        call c_fixed(K_ALLGATHER, mode, it, s, 5, MPI_INTEGER, m, 1, rowr, 0, MPI_COMM_WORLD, req, ierr)
      end if
      call finish(mode, it)
      call cmp_i(reshape(m, [5 * nproc]), reshape(e, [5 * nproc]), what, it)
      call cmp_i(s, [(v(rank, 0, j, it), j = 1, 5)], trim(what) // ': the send buffer', it)
    end do
    call release(mode)
    call MPI_Type_free(rowr, ierr)
    call MPI_Type_free(vec, ierr)
  end subroutine

  ! rank q contributes q + 1 DOUBLE PRECISION, the blocks in reverse order
  ! one element apart
  subroutine t_allgatherv(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    double precision, allocatable, asynchronous :: s(:), g(:)
    double precision, allocatable :: e(:)
    integer, allocatable :: rc(:), dp(:)
    integer :: it, i, q, total
    call begin(nm(mode, 'Allgatherv', inplace))
    call ramp(rc, dp, total)
    allocate(s(nproc), g(total), e(total))
    do it = 1, 2
      s = -7
      s(1:rank + 1) = [(v(rank, 0, i, it) + 0.5d0, i = 1, rank + 1)]
      e = -7
      do q = 0, nproc - 1
        e(dp(q) + 1:dp(q) + q + 1) = [(v(q, 0, i, it) + 0.5d0, i = 1, q + 1)]
      end do
      g = -7
      if (inplace) then
        g(dp(rank) + 1:dp(rank) + rank + 1) = s(1:rank + 1)
        call c_varied(K_ALLGATHERV, mode, it, MPI_IN_PLACE, [0], [0], [MPI_DATATYPE_NULL], g, rc, dp, &
                      [MPI_DOUBLE_PRECISION], 0, MPI_COMM_WORLD, req, ierr)
      else
        call c_varied(K_ALLGATHERV, mode, it, s, [rank + 1], [0], [MPI_DOUBLE_PRECISION], g, rc, dp, &
                      [MPI_DOUBLE_PRECISION], 0, MPI_COMM_WORLD, req, ierr)
      end if
      call finish(mode, it)
      call cmp_d(g, e, what, it)
    end do
    call release(mode)
  end subroutine

  ! -------------------------------------------------------------- alltoall

  ! 2 INTEGERs from each rank to each
  subroutine t_alltoall(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    integer, parameter :: k = 2
    integer, allocatable, asynchronous :: s(:), r(:)
    integer :: it, i, q
    call begin(nm(mode, 'Alltoall', inplace))
    allocate(s(k * nproc), r(k * nproc))
    do it = 1, 2
      s = [((v(rank, q, i, it), i = 1, k), q = 0, nproc - 1)]
      r = -7
      if (inplace) then
        r = s
        call c_fixed(K_ALLTOALL, mode, it, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, k, MPI_INTEGER, 0, &
                     MPI_COMM_WORLD, req, ierr)
      else
        call c_fixed(K_ALLTOALL, mode, it, s, k, MPI_INTEGER, r, k, MPI_INTEGER, 0, MPI_COMM_WORLD, req, ierr)
      end if
      call finish(mode, it)
      call cmp_i(r, [((v(q, rank, i, it), i = 1, k), q = 0, nproc - 1)], what, it)
      if (.not. inplace) call cmp_i(s, [((v(rank, q, i, it), i = 1, k), q = 0, nproc - 1)], &
                                    trim(what) // ': the send buffer', it)
    end do
    call release(mode)
  end subroutine

  ! mod(p + q, 3) + 1 DOUBLE PRECISION between ranks p and q; sent from
  ! blocks in reverse order one apart, received in order two apart
  subroutine t_alltoallv(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    double precision, allocatable, asynchronous :: s(:), r(:)
    double precision, allocatable :: e(:), es(:)
    integer, allocatable :: sc(:), sd(:), rc(:), rd(:), zero(:)
    integer :: it, i, q, ts, tr
    call begin(nm(mode, 'Alltoallv', inplace))
    allocate(sc(0:nproc - 1), sd(0:nproc - 1), rc(0:nproc - 1), rd(0:nproc - 1), zero(0:nproc - 1))
    zero = 0
    sc = [(mod(rank + q, 3) + 1, q = 0, nproc - 1)]
    rc = sc
    call layout(sc, sd, 1, .true., ts)
    call layout(rc, rd, 2, .false., tr)
    allocate(s(ts), es(ts), r(tr), e(tr))
    do it = 1, 2
      es = -5
      e = -7
      r = -7
      do q = 0, nproc - 1
        es(sd(q) + 1:sd(q) + sc(q)) = [(v(rank, q, i, it) + 0.5d0, i = 1, sc(q))]
        e(rd(q) + 1:rd(q) + rc(q)) = [(v(q, rank, i, it) + 0.5d0, i = 1, rc(q))]
        if (inplace) r(rd(q) + 1:rd(q) + rc(q)) = [(v(rank, q, i, it) + 0.5d0, i = 1, rc(q))]
      end do
      s = es
      if (inplace) then
        call c_varied(K_ALLTOALLV, mode, it, MPI_IN_PLACE, zero, zero, [MPI_DATATYPE_NULL], r, rc, rd, &
                      [MPI_DOUBLE_PRECISION], 0, MPI_COMM_WORLD, req, ierr)
      else
        call c_varied(K_ALLTOALLV, mode, it, s, sc, sd, [MPI_DOUBLE_PRECISION], r, rc, rd, &
                      [MPI_DOUBLE_PRECISION], 0, MPI_COMM_WORLD, req, ierr)
      end if
      call finish(mode, it)
      call cmp_d(r, e, what, it)
      call cmp_d(s, es, trim(what) // ': the send buffer', it)
    end do
    call release(mode)
  end subroutine

  ! Between ranks p and q, c = mod(p + q, 3) + 1 elements: INTEGERs when
  ! p + q is even (sent as one strided(c), every other INTEGER of the send
  ! buffer, received as c MPI_INTEGER), DOUBLE PRECISION when odd (two
  ! INTEGER places each). Displacements in bytes: the send blocks in reverse
  ! order, the receive blocks in order, one INTEGER apart (so some DOUBLE
  ! PRECISION blocks sit at 4 bytes past an 8-byte boundary). In place:
  ! the receive side's types, counts and displacements both ways.
  subroutine t_alltoallw(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    integer, allocatable, asynchronous :: sb(:), rb(:)
    integer, allocatable :: e(:), es(:), sc(:), sd(:), rc(:), rd(:), span(:), rspan(:), si(:), ri(:), zero(:)
    DT_T, allocatable :: st(:), rt(:), nulls(:)
    integer :: it, i, q, c, ts, tr
    call begin(nm(mode, 'Alltoallw', inplace))
    allocate(sc(0:nproc - 1), sd(0:nproc - 1), rc(0:nproc - 1), rd(0:nproc - 1), span(0:nproc - 1), &
             rspan(0:nproc - 1), si(0:nproc - 1), ri(0:nproc - 1), zero(0:nproc - 1), st(0:nproc - 1), &
             rt(0:nproc - 1), nulls(0:nproc - 1))
    zero = 0
    nulls = MPI_DATATYPE_NULL
    do q = 0, nproc - 1
      c = mod(rank + q, 3) + 1
      rc(q) = c
      if (mod(rank + q, 2) == 0) then
        sc(q) = 1
        st(q) = strided(c)
        span(q) = 2 * c - 1
        rt(q) = MPI_INTEGER
        rspan(q) = c
      else
        sc(q) = c
        st(q) = MPI_DOUBLE_PRECISION
        span(q) = 2 * c
        rt(q) = MPI_DOUBLE_PRECISION
        rspan(q) = 2 * c
      end if
    end do
    call layout(span, si, 1, .true., ts)
    call layout(rspan, ri, 1, .false., tr)
    sd = si * isz
    rd = ri * isz
    allocate(sb(ts), es(ts), rb(tr), e(tr))
    do it = 1, 2
      es = -5
      rb = -7
      e = -7
      do q = 0, nproc - 1
        do i = 1, rc(q)
          if (mod(rank + q, 2) == 0) then
            es(si(q) + 2 * i - 1) = v(rank, q, i, it)
            if (inplace) rb(ri(q) + i) = v(rank, q, i, it)
            e(ri(q) + i) = v(q, rank, i, it)
          else
            es(si(q) + 2 * i - 1:si(q) + 2 * i) = dbits(v(rank, q, i, it) + 0.5d0)
            if (inplace) rb(ri(q) + 2 * i - 1:ri(q) + 2 * i) = dbits(v(rank, q, i, it) + 0.5d0)
            e(ri(q) + 2 * i - 1:ri(q) + 2 * i) = dbits(v(q, rank, i, it) + 0.5d0)
          end if
        end do
      end do
      sb = es
      if (inplace) then
        call c_varied(K_ALLTOALLW, mode, it, MPI_IN_PLACE, zero, zero, nulls, rb, rc, rd, rt, 0, MPI_COMM_WORLD, &
                      req, ierr)
      else
        call c_varied(K_ALLTOALLW, mode, it, sb, sc, sd, st, rb, rc, rd, rt, 0, MPI_COMM_WORLD, req, ierr)
      end if
      call finish(mode, it)
      call cmp_i(rb, e, what, it)
      call cmp_i(sb, es, trim(what) // ': the send buffer', it)
    end do
    call release(mode)
  end subroutine

  ! ------------------------------------------------------------ reductions

  ! MPI_SUM of 3 DOUBLE PRECISION to rank 1 (0 on one rank)
  subroutine t_reduce(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    double precision, asynchronous :: x(3), r(3)
    double precision :: e(3), ex(3)
    integer :: root, it, i, q
    call begin(trim(nm(mode, 'Reduce', inplace)) // ' MPI_SUM')
    root = mod(1, nproc)
    do it = 1, 2
      ex = [((rank + 1) * i * 0.5d0 + it * 0.125d0, i = 1, 3)]
      e = 0
      do q = 0, nproc - 1
        e = e + [((q + 1) * i * 0.5d0 + it * 0.125d0, i = 1, 3)]
      end do
      x = ex
      r = -7
      if (inplace .and. rank == root) then
        r = x
        call c_reduce(K_REDUCE, mode, it, MPI_IN_PLACE, r, [3], MPI_DOUBLE_PRECISION, MPI_SUM, root, req, ierr)
      else
        call c_reduce(K_REDUCE, mode, it, x, r, [3], MPI_DOUBLE_PRECISION, MPI_SUM, root, req, ierr)
      end if
      call finish(mode, it)
      if (rank == root) call cmp_d(r, e, what, it)
      call cmp_d(x, ex, trim(what) // ': the send buffer', it)
    end do
    call release(mode)
  end subroutine

  ! MPI_MAXLOC of 2 MPI_2INTEGER pairs (value, index) to the last rank;
  ! values repeat, so ties go to the lowest index
  subroutine t_reduce_maxloc(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    integer, asynchronous :: x(2, 2), r(2, 2)
    integer :: e(2, 2), c(2, 2), root, it, q, j
    call begin(trim(nm(mode, 'Reduce', inplace)) // ' MPI_MAXLOC MPI_2INTEGER')
    root = nproc - 1
    do it = 1, 2
      do q = 0, nproc - 1
        c = pairs(q, it)
        do j = 1, 2
          if (q == 0) then
            e(:, j) = c(:, j)
          else if (c(1, j) > e(1, j) .or. (c(1, j) == e(1, j) .and. c(2, j) < e(2, j))) then
            e(:, j) = c(:, j)
          end if
        end do
      end do
      x = pairs(rank, it)
      r = -7
      if (inplace .and. rank == root) then
        r = x
        call c_reduce(K_REDUCE, mode, it, MPI_IN_PLACE, r, [2], MPI_2INTEGER, MPI_MAXLOC, root, req, ierr)
      else
        call c_reduce(K_REDUCE, mode, it, x, r, [2], MPI_2INTEGER, MPI_MAXLOC, root, req, ierr)
      end if
      call finish(mode, it)
      if (rank == root) call cmp_i(reshape(r, [4]), reshape(e, [4]), what, it)
    end do
    call release(mode)
  end subroutine

  ! rank q's two (value, index) pairs in round it
  function pairs(q, it) result(p)
    integer, intent(in) :: q, it
    integer :: p(2, 2)
    p(:, 1) = [mod(3 * q + it, 4), q]
    p(:, 2) = [-mod(q + it, 3), 100 + 7 * q]
  end function

  ! rank q's contribution to element i under ops6(k)
  integer function contrib(k, q, i, it)
    integer, intent(in) :: k, q, i, it
    select case (k)
    case (1)
      contrib = 1000 * q + 10 * i + it
    case (2)
      ! 3, 2, 1, 1 in turn: the product of 47 ranks' fits an INTEGER
      contrib = max(3 - mod(q + i + it, 4), 1)
    case (3, 4)
      contrib = mod(7 * q + i + it, 11) - 5
    case (5)
      contrib = 255 - 2**mod(q + i + it, 8)
    case default
      contrib = 2**mod(q + i + it, 8) + 256 * i
    end select
  end function

  ! ops6(k) over ranks lo..hi of contrib(k, q, i, it)
  integer function fold(k, lo, hi, i, it)
    integer, intent(in) :: k, lo, hi, i, it
    integer :: q, c
    fold = contrib(k, lo, i, it)
    do q = lo + 1, hi
      c = contrib(k, q, i, it)
      select case (k)
      case (1)
        fold = fold + c
      case (2)
        fold = fold * c
      case (3)
        fold = max(fold, c)
      case (4)
        fold = min(fold, c)
      case (5)
        fold = iand(fold, c)
      case default
        fold = ior(fold, c)
      end select
    end do
  end function

  ! INTEGERs under ops6(k) = SUM, PROD, MAX, MIN, BAND, BOR: 4 in
  ! MPI_ALLREDUCE, 3 in MPI_SCAN and in MPI_EXSCAN (whose result on rank 0
  ! is undefined and not checked)
  subroutine t_int_reduce(mode, inplace, coll, k)
    integer, intent(in) :: mode, coll, k
    logical, intent(in) :: inplace
    integer, allocatable, asynchronous :: x(:), r(:)
    integer, allocatable :: ex(:)
    integer :: it, i, n, last
    call begin(trim(nm(mode, knames(coll), inplace)) // ' ' // opnames(k))
    ! the result: ops6(k) over ranks 0..last
    select case (coll)
    case (K_ALLREDUCE)
      n = 4
      last = nproc - 1
    case (K_SCAN)
      n = 3
      last = rank
    case default
      n = 3
      last = rank - 1
    end select
    allocate(x(n), r(n), ex(n))
    do it = 1, 2
      ex = [(contrib(k, rank, i, it), i = 1, n)]
      x = ex
      r = -7
      if (inplace) then
        r = x
        call c_reduce(coll, mode, it, MPI_IN_PLACE, r, [n], MPI_INTEGER, ops6(k), 0, req, ierr)
      else
        call c_reduce(coll, mode, it, x, r, [n], MPI_INTEGER, ops6(k), 0, req, ierr)
      end if
      call finish(mode, it)
      if (last >= 0) call cmp_i(r, [(fold(k, 0, last, i, it), i = 1, n)], what, it)
      call cmp_i(x, ex, trim(what) // ': the send buffer', it)
    end do
    call release(mode)
  end subroutine

  ! MPI_LAND of 3 LOGICALs: always true, false on some ranks, false on one
  function lcontrib(q, it) result(l)
    integer, intent(in) :: q, it
    logical :: l(3)
    l = [.true., mod(q + it, 3) /= 0, q /= mod(it, nproc)]
  end function

  subroutine t_allreduce_land(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    logical, asynchronous :: x(3), r(3)
    logical :: e(3), ex(3)
    integer :: it, q
    call begin(trim(nm(mode, 'Allreduce', inplace)) // ' MPI_LAND MPI_LOGICAL')
    do it = 1, 2
      e = .true.
      do q = 0, nproc - 1
        e = e .and. lcontrib(q, it)
      end do
      ex = lcontrib(rank, it)
      x = ex
      r = .not. e
      if (inplace) then
        r = x
        call c_reduce(K_ALLREDUCE, mode, it, MPI_IN_PLACE, r, [3], MPI_LOGICAL, MPI_LAND, 0, req, ierr)
      else
        call c_reduce(K_ALLREDUCE, mode, it, x, r, [3], MPI_LOGICAL, MPI_LAND, 0, req, ierr)
      end if
      call finish(mode, it)
      call cmp_l(r, e, what, it)
      call cmp_l(x, ex, trim(what) // ': the send buffer', it)
    end do
    call release(mode)
  end subroutine

  ! MPI_SUM of DOUBLE PRECISION, rank q getting mod(q + 2, 3) elements (0
  ! for ranks 1, 4, 7, ...)
  subroutine t_reduce_scatter(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    double precision, allocatable, asynchronous :: x(:), r(:)
    double precision, allocatable :: ex(:), e(:)
    integer, allocatable :: rc(:), off(:)
    integer :: it, j, q, total, c
    call begin(trim(nm(mode, 'Reduce_scatter', inplace)) // ' MPI_SUM')
    allocate(rc(0:nproc - 1), off(0:nproc - 1))
    rc = [(mod(q + 2, 3), q = 0, nproc - 1)]
    call layout(rc, off, 0, .false., total)
    c = rc(rank)
    allocate(x(total), ex(total), r(max(total, 3)), e(max(total, 3)))
    do it = 1, 2
      ex = [((rank + 1) * j + it * 0.25d0, j = 1, total)]
      e = -7
      do j = 1, c
        e(j) = sum([((q + 1) * (off(rank) + j) + it * 0.25d0, q = 0, nproc - 1)])
      end do
      x = ex
      r = -7
      if (inplace) then
        r(1:total) = x
        call c_reduce(K_REDUCE_SCATTER, mode, it, MPI_IN_PLACE, r, rc, MPI_DOUBLE_PRECISION, MPI_SUM, 0, req, ierr)
      else
        call c_reduce(K_REDUCE_SCATTER, mode, it, x, r, rc, MPI_DOUBLE_PRECISION, MPI_SUM, 0, req, ierr)
      end if
      call finish(mode, it)
      ! in place, the elements past this rank's count hold no defined value
      if (inplace) then
        call cmp_d(r(1:c), e(1:c), what, it)
      else
        call cmp_d(r, e, what, it)
        call cmp_d(x, ex, trim(what) // ': the send buffer', it)
      end if
    end do
    call release(mode)
  end subroutine

  ! MPI_MIN of REALs, 2 to each rank
  subroutine t_reduce_scatter_block(mode, inplace)
    integer, intent(in) :: mode
    logical, intent(in) :: inplace
    real, allocatable, asynchronous :: x(:), r(:)
    real, allocatable :: ex(:)
    real :: e(2)
    integer :: it, j, q
    call begin(trim(nm(mode, 'Reduce_scatter_block', inplace)) // ' MPI_MIN MPI_REAL')
    allocate(x(2 * nproc), ex(2 * nproc), r(2 * nproc))
    do it = 1, 2
      ex = [(mod(7 * rank + 3 * j + it, 11) - 5.5, j = 1, 2 * nproc)]
      do j = 1, 2
        e(j) = minval([(mod(7 * q + 3 * (2 * rank + j) + it, 11) - 5.5, q = 0, nproc - 1)])
      end do
      x = ex
      r = -7
      if (inplace) then
        r = x
        call c_reduce(K_REDUCE_SCATTER_BLOCK, mode, it, MPI_IN_PLACE, r, [2], MPI_REAL, MPI_MIN, 0, req, ierr)
      else
        call c_reduce(K_REDUCE_SCATTER_BLOCK, mode, it, x, r, [2], MPI_REAL, MPI_MIN, 0, req, ierr)
      end if
      call finish(mode, it)
      call cmp_r(r(1:2), e, what, it)
      if (.not. inplace) then
        call cmp_r(r(3:), [(-7.0, j = 3, 2 * nproc)], trim(what) // ': past RECVCOUNT', it)
        call cmp_r(x, ex, trim(what) // ': the send buffer', it)
      end if
    end do
    call release(mode)
  end subroutine

  ! -------------------------------------------------------- user operations

  ! rank q's pair i: (v, s) with s >= 2, so the order of ranks matters
  function upair(q, i, it) result(p)
    integer, intent(in) :: q, i, it
    integer :: p(2)
    p = [mod(7 * q + 3 * i + it, 97) + 1, mod(q + i + it, 5) + 2]
  end function

  ! ranks lo..hi composed in rank order
  function ufold(lo, hi, i, it) result(p)
    integer, intent(in) :: lo, hi, i, it
    integer :: p(2), c(2), q
    p = upair(lo, i, it)
    do q = lo + 1, hi
      c = upair(q, i, it)
      p = [mod(p(1) * c(2) + c(1), modp), mod(p(2) * c(2), modp)]
    end do
  end function

  ! rank q's INTEGER i for the commutative operation: magnitude q + 1 + i
  ! + it, the sign alternating
  integer function aval(q, i, it)
    integer, intent(in) :: q, i, it
    aval = (q + 1 + i + it) * (1 - 2 * mod(q + i, 2))
  end function

  ! A user operation: the commutative one on INTEGERs (units of 1 INTEGER)
  ! or the one not (units of an MPI_2INTEGER pair) in MPI_ALLREDUCE (6
  ! INTEGERs or 3 pairs) and MPI_REDUCE_SCATTER_BLOCK (2 units to each
  ! rank); the one not commutative, where only the order of the ranks gives
  ! the answer, also in MPI_REDUCE to rank 1 (0 on one rank), MPI_SCAN and
  ! MPI_EXSCAN (rank 0 not checked) of 3 pairs and MPI_REDUCE_SCATTER (rank
  ! q gets mod(q, 2) + 1 pairs); those four with the data of rounds 3 and 4.
  subroutine t_user(mode, inplace, coll, commute)
    integer, intent(in) :: mode, coll
    logical, intent(in) :: inplace, commute
    integer, allocatable, asynchronous :: x(:, :), r(:, :)
    integer, allocatable :: ex(:, :), e(:, :), rc(:), off(:), counts(:)
    ! units: nu in the send buffer, c in the result (units j0 + 1 .. j0 + c
    ! reduced over ranks 0..last), w INTEGERs each
    integer :: it, i, q, w, nu, c, j0, last, root, total, round0, p(2)
    logical :: here
    DT_T :: dt
    OP_T :: op
    if (commute) then
      call begin(trim(nm(mode, knames(coll), inplace)) // ' commutative user op')
      op = op_c
      dt = MPI_INTEGER
      w = 1
    else
      call begin(trim(nm(mode, knames(coll), inplace)) // ' non-commutative user op')
      op = op_nc
      dt = MPI_2INTEGER
      w = 2
    end if
    root = mod(1, nproc)
    allocate(rc(0:nproc - 1), off(0:nproc - 1))
    rc = [(mod(q, 2) + 1, q = 0, nproc - 1)]
    call layout(rc, off, 0, .false., total)
    round0 = 2
    j0 = 0
    last = nproc - 1
    select case (coll)
    case (K_ALLREDUCE)
      round0 = 0
      nu = 6 / w
      c = nu
    case (K_REDUCE_SCATTER_BLOCK)
      round0 = 0
      nu = 2 * nproc
      c = 2
      j0 = 2 * rank
    case (K_REDUCE_SCATTER)
      nu = total
      c = rc(rank)
      j0 = off(rank)
    case default
      nu = 3
      c = 3
      if (coll == K_SCAN) last = rank
      if (coll == K_EXSCAN) last = rank - 1
    end select
    if (coll == K_REDUCE_SCATTER) then
      counts = rc
    else
      counts = [c]
    end if
    ! in place where the standard allows it: MPI_REDUCE at the root only
    here = inplace .and. (coll /= K_REDUCE .or. rank == root)
    allocate(x(w, nu), r(w, nu), ex(w, nu), e(w, c))
    do it = 1, 2
      do i = 1, nu
        p = ured(commute, rank, rank, i, round0 + it)
        ex(:, i) = p(1:w)
      end do
      e = -7
      do i = 1, c
        p = ured(commute, 0, last, j0 + i, round0 + it)
        if (last >= 0) e(:, i) = p(1:w)
      end do
      x = ex
      r = -7
      if (here) then
        r = x
        call c_reduce(coll, mode, it, MPI_IN_PLACE, r, counts, dt, op, root, req, ierr)
      else
        call c_reduce(coll, mode, it, x, r, counts, dt, op, root, req, ierr)
      end if
      call finish(mode, it)
      if ((coll /= K_REDUCE .or. rank == root) .and. last >= 0) &
        call cmp_i(reshape(r(:, 1:c), [w * c]), reshape(e, [w * c]), what, it)
      call cmp_i(reshape(x, [w * nu]), reshape(ex, [w * nu]), trim(what) // ': the send buffer', it)
      if (coll == K_REDUCE_SCATTER .and. .not. here) &
        call cmp_i(reshape(r(:, c + 1:), [w * (nu - c)]), [(-7, i = 1, w * (nu - c))], &
                   trim(what) // ': past this rank''s count', it)
    end do
    call release(mode)
  end subroutine

  ! Unit j of ranks lo..hi reduced in round it (of rank lo alone when lo =
  ! hi): for the commutative operation the INTEGER of the largest
  ! magnitude, rank hi's (in p(1)), for the other the pairs composed in
  ! rank order
  function ured(commute, lo, hi, j, it) result(p)
    logical, intent(in) :: commute
    integer, intent(in) :: lo, hi, j, it
    integer :: p(2)
    if (commute) then
      p = [aval(hi, j, it), 0]
    else
      p = ufold(lo, hi, j, it)
    end if
  end function

  ! MPI_REDUCE_LOCAL: INOUTBUF = INBUF op INOUTBUF, in that order
  subroutine t_reduce_local()
    double precision :: a(2), b(2)
    integer :: ia(3), ib(3), pa(2, 3), pb(2, 3), e(2, 3), i, calls
    a = [1.5d0, rank + 2.25d0]
    b = [10d0, -4d0]
    call MPI_Reduce_local(a, b, 2, MPI_DOUBLE_PRECISION, MPI_SUM, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Reduce_local: IERROR')
    call cmp_d(b, [11.5d0, rank - 1.75d0], 'MPI_Reduce_local MPI_SUM', 1)
    call cmp_d(a, [1.5d0, rank + 2.25d0], 'MPI_Reduce_local MPI_SUM: INBUF', 1)
    ia = [3, -rank, 7]
    ib = [5, 1, -7]
    call MPI_Reduce_local(ia, ib, 3, MPI_INTEGER, MPI_MAX, ierr)
    call cmp_i(ib, [5, 1, 7], 'MPI_Reduce_local MPI_MAX', 1)
    ! the user operations: compose puts INBUF's map first
    calls = op_calls
    do i = 1, 3
      pa(:, i) = upair(rank, i, 1)
      pb(:, i) = upair(rank + 1, i, 2)
      e(:, i) = [mod(pa(1, i) * pb(2, i) + pb(1, i), modp), mod(pa(2, i) * pb(2, i), modp)]
    end do
    call MPI_Reduce_local(pa, pb, 3, MPI_2INTEGER, op_nc, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Reduce_local with a user op: IERROR')
    call cmp_i(reshape(pb, [6]), reshape(e, [6]), 'MPI_Reduce_local non-commutative user op', 1)
    ia = [-9, 2, 4]
    ib = [5, -3, -4]
    call MPI_Reduce_local(ia, ib, 3, MPI_INTEGER, op_c, ierr)
    call cmp_i(ib, [-9, -3, -4], 'MPI_Reduce_local commutative user op', 1)
    call check(op_calls > calls .and. op_bad_type == 0, 'MPI_Reduce_local called the user op with its DATATYPE')
  end subroutine

  ! ------------------------------------------------------------ many at once

  ! MPI_IBARRIER, MPI_IBCAST, MPI_IALLREDUCE and MPI_IALLTOALL outstanding
  ! together; round 1 completed by MPI_WAITALL, round 2 by MPI_TESTALL
  subroutine t_batch_nb()
    integer, asynchronous :: b(3)
    double precision, asynchronous :: x(2), y(2)
    integer, allocatable, asynchronous :: s(:), r(:)
    REQ_T :: reqs(4)
    STATUSES_DECL(statuses, 4)
    logical :: done
    integer :: it, q, k
    allocate(s(nproc), r(nproc))
    do it = 1, 2
      b = -7
      if (rank == 0) b = [it, 20 + it, 30 + it]
      x = [dble(rank + it), 0.5d0]
      y = -7
      s = [(v(rank, q, 1, it), q = 0, nproc - 1)]
      r = -7
      call MPI_Ibarrier(MPI_COMM_WORLD, reqs(1), ierr)
      call MPI_Ibcast(b, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(2), ierr)
      call MPI_Iallreduce(x, y, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, reqs(3), ierr)
      call MPI_Ialltoall(s, 1, MPI_INTEGER, r, 1, MPI_INTEGER, MPI_COMM_WORLD, reqs(4), ierr)
      call check(ierr == MPI_SUCCESS, 'four nonblocking collectives at once: IERROR')
      if (it == 1) then
        call MPI_Waitall(4, reqs, statuses, ierr)
        call check(ierr == MPI_SUCCESS, 'four nonblocking collectives: MPI_Waitall')
      else
        done = .false.
        do while (.not. done)
          call MPI_Testall(4, reqs, done, MPI_STATUSES_IGNORE, ierr)
          call check(ierr == MPI_SUCCESS, 'four nonblocking collectives: MPI_Testall')
        end do
      end if
      do k = 1, 4
        call check(reqs(k) == MPI_REQUEST_NULL, 'four nonblocking collectives: requests MPI_REQUEST_NULL')
      end do
      call cmp_i(b, [it, 20 + it, 30 + it], 'MPI_Ibcast beside others', it)
      call cmp_d(y, [nproc * (nproc - 1) / 2d0 + nproc * it, 0.5d0 * nproc], 'MPI_Iallreduce beside others', it)
      call cmp_i(r, [(v(q, rank, 1, it), q = 0, nproc - 1)], 'MPI_Ialltoall beside others', it)
    end do
  end subroutine

  ! MPI_BARRIER_INIT, MPI_BCAST_INIT, MPI_ALLREDUCE_INIT and
  ! MPI_ALLTOALL_INIT, each on a communicator of its own (MPI_STARTALL
  ! starts them in no set order), started together twice by MPI_STARTALL
  subroutine t_batch_persist()
    integer, asynchronous :: b(3)
    double precision, asynchronous :: x(2), y(2)
    integer, allocatable, asynchronous :: s(:), r(:)
    COMM_T :: comms(4)
    REQ_T :: reqs(4)
    integer :: it, q, k
    allocate(s(nproc), r(nproc))
    do k = 1, 4
      call MPI_Comm_dup(MPI_COMM_WORLD, comms(k), ierr)
    end do
    call MPI_Barrier_init(comms(1), MPI_INFO_NULL, reqs(1), ierr)
    call MPI_Bcast_init(b, 3, MPI_INTEGER, nproc - 1, comms(2), MPI_INFO_NULL, reqs(2), ierr)
    call MPI_Allreduce_init(x, y, 2, MPI_DOUBLE_PRECISION, MPI_MAX, comms(3), MPI_INFO_NULL, reqs(3), ierr)
    call MPI_Alltoall_init(s, 1, MPI_INTEGER, r, 1, MPI_INTEGER, comms(4), MPI_INFO_NULL, reqs(4), ierr)
    call check(ierr == MPI_SUCCESS, 'four persistent collectives: IERROR')
    do it = 1, 2
      b = -7
      if (rank == nproc - 1) b = [it, 40 + it, 50 + it]
      x = [dble(rank * it), -dble(rank)]
      y = -7
      s = [(v(rank, q, 2, it), q = 0, nproc - 1)]
      r = -7
      call MPI_Startall(4, reqs, ierr)
      call check(ierr == MPI_SUCCESS, 'four persistent collectives: MPI_Startall')
      call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE, ierr)
      call check(ierr == MPI_SUCCESS, 'four persistent collectives: MPI_Waitall')
      do k = 1, 4
        call check(reqs(k) /= MPI_REQUEST_NULL, 'four persistent collectives: the requests stay allocated')
      end do
      call cmp_i(b, [it, 40 + it, 50 + it], 'MPI_Bcast_init started by MPI_Startall', it)
      call cmp_d(y, [dble((nproc - 1) * it), 0d0], 'MPI_Allreduce_init started by MPI_Startall', it)
      call cmp_i(r, [(v(q, rank, 2, it), q = 0, nproc - 1)], 'MPI_Alltoall_init started by MPI_Startall', it)
    end do
    do k = 1, 4
      call MPI_Request_free(reqs(k), ierr)
      call check(ierr == MPI_SUCCESS .and. reqs(k) == MPI_REQUEST_NULL, &
                 'four persistent collectives: MPI_Request_free')
      call MPI_Comm_free(comms(k), ierr)
    end do
  end subroutine

  ! ------------------------------------------------------ neighbourhoods

  ! the topology, for the messages
  function tname(topo) result(s)
    integer, intent(in) :: topo
    character(len=40) :: s
    select case (topo)
    case (1)
      s = ' on a periodic ring'
    case (2)
      s = ' on a periodic 2-D grid'
    case default
      s = ' on a 2-D grid periodic in dim 0'
    end select
  end function

  ! 2 INTEGERs per neighbour. NEIGHBOR_ALLGATHER: the same block to every
  ! neighbour, block j received from neighbour nb(j). NEIGHBOR_ALLTOALL:
  ! send block j goes to nb(j), receive block j is nb(j)'s send block
  ! ieor(j, 1) (-1 and +1 swap).
  subroutine t_nb_fixed(cart, nb, topo, mode, coll)
    COMM_T, intent(in) :: cart
    integer, intent(in) :: nb(0:), topo, mode, coll
    integer, parameter :: k = 2
    integer, allocatable, asynchronous :: s(:), r(:)
    integer, allocatable :: e(:), sblk(:), rblk(:)
    integer :: it, i, j, deg
    call begin(trim(nm(mode, knames(coll), .false.)) // tname(topo))
    deg = size(nb)
    ! the block index of the values sent in block j, and of those
    ! neighbour nb(j) sent in the block received as block j
    allocate(s(k * deg), r(k * deg), e(k * deg), sblk(0:deg - 1), rblk(0:deg - 1))
    sblk = [(j, j = 0, deg - 1)]
    rblk = [(ieor(j, 1), j = 0, deg - 1)]
    if (coll == K_NB_ALLGATHER) then
      sblk = 0
      rblk = 0
    end if
    do it = 1, 2
      s = [((v(rank, sblk(j), i, it), i = 1, k), j = 0, deg - 1)]
      r = -7
      e = -7
      do j = 0, deg - 1
        if (nb(j) /= MPI_PROC_NULL) e(k * j + 1:k * j + k) = [(v(nb(j), rblk(j), i, it), i = 1, k)]
      end do
      call c_fixed(coll, mode, it, s, k, MPI_INTEGER, r, k, MPI_INTEGER, 0, cart, req, ierr)
      call finish(mode, it)
      call cmp_i(r, e, what, it)
    end do
    call release(mode)
  end subroutine

  ! rank q sends mod(q, 2) + 1 DOUBLE PRECISION to every neighbour; the
  ! blocks received in reverse order one apart
  subroutine t_nb_allgatherv(cart, nb, topo, mode)
    COMM_T, intent(in) :: cart
    integer, intent(in) :: nb(0:), topo, mode
    double precision, asynchronous :: s(2)
    double precision, allocatable, asynchronous :: r(:)
    double precision, allocatable :: e(:)
    integer, allocatable :: rc(:), dp(:)
    integer :: it, i, j, deg, total, c
    call begin(trim(nm(mode, 'Neighbor_allgatherv', .false.)) // tname(topo))
    deg = size(nb)
    allocate(rc(0:deg - 1), dp(0:deg - 1))
    do j = 0, deg - 1
      rc(j) = 1
      if (nb(j) /= MPI_PROC_NULL) rc(j) = mod(nb(j), 2) + 1
    end do
    call layout(rc, dp, 1, .true., total)
    allocate(r(total), e(total))
    c = mod(rank, 2) + 1
    do it = 1, 2
      s = -5
      s(1:c) = [(v(rank, 0, i, it) + 0.5d0, i = 1, c)]
      r = -7
      e = -7
      do j = 0, deg - 1
        if (nb(j) /= MPI_PROC_NULL) e(dp(j) + 1:dp(j) + rc(j)) = [(v(nb(j), 0, i, it) + 0.5d0, i = 1, rc(j))]
      end do
      call c_varied(K_NB_ALLGATHERV, mode, it, s, [c], [0], [MPI_DOUBLE_PRECISION], r, rc, dp, &
                    [MPI_DOUBLE_PRECISION], 0, cart, req, ierr)
      call finish(mode, it)
      call cmp_d(r, e, what, it)
    end do
    call release(mode)
  end subroutine

  ! rank q's block j: mod(q + j, 2) + 1 DOUBLE PRECISION; sent from blocks
  ! in reverse order one apart, received in order two apart
  subroutine t_nb_alltoallv(cart, nb, topo, mode)
    COMM_T, intent(in) :: cart
    integer, intent(in) :: nb(0:), topo, mode
    double precision, allocatable, asynchronous :: s(:), r(:)
    double precision, allocatable :: e(:)
    integer, allocatable :: sc(:), sd(:), rc(:), rd(:)
    integer :: it, i, j, deg, ts, tr
    call begin(trim(nm(mode, 'Neighbor_alltoallv', .false.)) // tname(topo))
    deg = size(nb)
    allocate(sc(0:deg - 1), sd(0:deg - 1), rc(0:deg - 1), rd(0:deg - 1))
    do j = 0, deg - 1
      sc(j) = mod(rank + j, 2) + 1
      rc(j) = 1
      if (nb(j) /= MPI_PROC_NULL) rc(j) = mod(nb(j) + ieor(j, 1), 2) + 1
    end do
    call layout(sc, sd, 1, .true., ts)
    call layout(rc, rd, 2, .false., tr)
    allocate(s(ts), r(tr), e(tr))
    do it = 1, 2
      s = -5
      r = -7
      e = -7
      do j = 0, deg - 1
        s(sd(j) + 1:sd(j) + sc(j)) = [(v(rank, j, i, it) + 0.5d0, i = 1, sc(j))]
        if (nb(j) /= MPI_PROC_NULL) e(rd(j) + 1:rd(j) + rc(j)) = [(v(nb(j), ieor(j, 1), i, it) + 0.5d0, &
                                                                  i = 1, rc(j))]
      end do
      call c_varied(K_NB_ALLTOALLV, mode, it, s, sc, sd, [MPI_DOUBLE_PRECISION], r, rc, rd, &
                    [MPI_DOUBLE_PRECISION], 0, cart, req, ierr)
      call finish(mode, it)
      call cmp_d(r, e, what, it)
    end do
    call release(mode)
  end subroutine

  ! Blocks of dimension 0: 2 DOUBLE PRECISION; of dimension 1: 3 INTEGERs,
  ! sent as one strided(3), received as 3 MPI_INTEGER. Displacements
  ! INTEGER(KIND=MPI_ADDRESS_KIND) in bytes: send blocks in reverse order,
  ! receive blocks in order, one INTEGER apart.
  subroutine t_nb_alltoallw(cart, nb, topo, mode)
    COMM_T, intent(in) :: cart
    integer, intent(in) :: nb(0:), topo, mode
    integer, allocatable, asynchronous :: sb(:), rb(:)
    integer, allocatable :: e(:), sc(:), rc(:), span(:), rspan(:), si(:), ri(:)
    integer(kind=MPI_ADDRESS_KIND), allocatable :: sd(:), rd(:)
    DT_T, allocatable :: st(:), rt(:)
    integer :: it, i, j, deg, ts, tr
    call begin(trim(nm(mode, 'Neighbor_alltoallw', .false.)) // tname(topo))
    deg = size(nb)
    allocate(sc(0:deg - 1), rc(0:deg - 1), span(0:deg - 1), rspan(0:deg - 1), si(0:deg - 1), &
             ri(0:deg - 1), sd(0:deg - 1), rd(0:deg - 1), st(0:deg - 1), rt(0:deg - 1))
    do j = 0, deg - 1
      if (j / 2 == 0) then
        sc(j) = 2
        st(j) = MPI_DOUBLE_PRECISION
        span(j) = 4
        rc(j) = 2
        rt(j) = MPI_DOUBLE_PRECISION
        rspan(j) = 4
      else
        sc(j) = 1
        st(j) = strided(3)
        span(j) = 5
        rc(j) = 3
        rt(j) = MPI_INTEGER
        rspan(j) = 3
      end if
    end do
    call layout(span, si, 1, .true., ts)
    call layout(rspan, ri, 1, .false., tr)
    sd = int(si, MPI_ADDRESS_KIND) * isz
    rd = int(ri, MPI_ADDRESS_KIND) * isz
    allocate(sb(ts), rb(tr), e(tr))
    do it = 1, 2
      sb = -5
      rb = -7
      e = -7
      do j = 0, deg - 1
        if (j / 2 == 0) then
          do i = 1, 2
            sb(si(j) + 2 * i - 1:si(j) + 2 * i) = dbits(v(rank, j, i, it) + 0.5d0)
            if (nb(j) /= MPI_PROC_NULL) e(ri(j) + 2 * i - 1:ri(j) + 2 * i) = &
              dbits(v(nb(j), ieor(j, 1), i, it) + 0.5d0)
          end do
        else
          do i = 1, 3
            sb(si(j) + 2 * i - 1) = v(rank, j, i, it)
            if (nb(j) /= MPI_PROC_NULL) e(ri(j) + i) = v(nb(j), ieor(j, 1), i, it)
          end do
        end if
      end do
      call c_nb_alltoallw(mode, it, sb, sc, sd, st, rb, rc, rd, rt, cart, req, ierr)
      call finish(mode, it)
      call cmp_i(rb, e, what, it)
    end do
    call release(mode)
  end subroutine

#include "check.inc"
end program
