! f08_latency: MPI_Send 8-byte ping-pong latency through `use mpi_f08`
! against C's (f08_latency_c.c) in the same job, in interleaved pairs of
! rounds (which of the two goes first alternates); prints the best round of
! each, the median of the pairs' ratios (what a loaded machine's noise
! disturbs least: both halves of a pair see the same load), the CPU model
! and the load average, and the same for an MPI_Send to MPI_PROC_NULL (the
! binding's cost alone).
! Exactly two ranks:  build/tools/rdmachrun -n 2 build/bench/f08_latency
program f08_latency
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_double, c_int
  implicit none
  interface
    real(c_double) function bench_c_pingpong(iters) bind(C)
      import :: c_double, c_int
      integer(c_int), value :: iters
    end function
    real(c_double) function bench_c_send_null(iters) bind(C)
      import :: c_double, c_int
      integer(c_int), value :: iters
    end function
    subroutine bench_print_cpu_model() bind(C)
    end subroutine
    subroutine bench_print_loadavg() bind(C)
    end subroutine
  end interface
  integer, parameter :: iters = 20000, rounds = 15
  integer :: rank, nproc, round
  double precision :: f08_us, c_us, t, f08_ns, c_ns, f, c, fn, cn
  double precision :: ratio(rounds), ratio_null(rounds)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  if (nproc /= 2) then
    if (rank == 0) print '(a)', 'f08_latency: needs exactly 2 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  t = f08_loop(1000, .false.)   ! warm-up, both
  t = bench_c_pingpong(1000)
  f08_us = huge(1d0)
  c_us = huge(1d0)
  f08_ns = huge(1d0)
  c_ns = huge(1d0)
  do round = 1, rounds   ! each goes first in every other round
    if (mod(round, 2) == 0) c = bench_c_pingpong(iters)
    f = 1d6 * f08_loop(iters, .false.)
    if (mod(round, 2) == 1) c = bench_c_pingpong(iters)
    if (mod(round, 2) == 0) cn = bench_c_send_null(10 * iters)
    fn = 1d9 * f08_loop(10 * iters, .true.)
    if (mod(round, 2) == 1) cn = bench_c_send_null(10 * iters)
    c_us = min(c_us, c)
    f08_us = min(f08_us, f)
    c_ns = min(c_ns, cn)
    f08_ns = min(f08_ns, fn)
    ratio(round) = f / c
    ratio_null(round) = fn / cn
  end do
  if (rank == 0) then
    call bench_print_cpu_model()
    print '(a, i0, a, i0, a)', '# MPI_Send 8 B one-way latency, best of ', rounds, ' rounds of ', &
          iters, ' round trips'
    print '(a, f8.3, a)', 'C        ', c_us, ' us'
    print '(a, f8.3, a)', 'mpi_f08  ', f08_us, ' us'
    print '(a, f6.3, a)', 'ratio    ', f08_us / c_us, ' (mpi_f08 / C, best rounds)'
    print '(a, f6.3, a, i0, a)', 'median   ', median(ratio), ' (mpi_f08 / C, median of ', rounds, &
          ' interleaved pairs)'
    print '(a)', '# MPI_Send to MPI_PROC_NULL, ns per call'
    print '(a, f8.1, a)', 'C        ', c_ns, ' ns'
    print '(a, f8.1, a)', 'mpi_f08  ', f08_ns, ' ns'
    print '(a, f6.3, a)', 'median   ', median(ratio_null), ' (mpi_f08 / C, median of the pairs)'
    flush(6)
    call bench_print_loadavg()
  end if
  call MPI_Finalize()

contains
  ! The median of x (an odd number of values), by insertion sort of a copy.
  double precision function median(x)
    double precision, intent(in) :: x(:)
    double precision :: y(size(x)), v
    integer :: i, j
    y = x
    do i = 2, size(y)
      v = y(i)
      j = i - 1
      do while (j >= 1)
        if (y(j) <= v) exit
        y(j + 1) = y(j)
        j = j - 1
      end do
      y(j + 1) = v
    end do
    median = y((size(y) + 1) / 2)
  end function

  ! Seconds per one-way message of n round trips, or per MPI_Send to
  ! MPI_PROC_NULL of n of them (to_null).
  double precision function f08_loop(n, to_null)
    integer, intent(in) :: n
    logical, intent(in) :: to_null
    integer(kind=1) :: buf(8)
    integer :: i
    double precision :: t0
    buf = 0
    if (.not. to_null) call MPI_Barrier(MPI_COMM_WORLD)
    t0 = MPI_Wtime()
    do i = 1, n
      if (to_null) then
        call MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD)
      else if (rank == 0) then
        call MPI_Send(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD)
        call MPI_Recv(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      else
        call MPI_Recv(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        call MPI_Send(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD)
      end if
    end do
    f08_loop = (MPI_Wtime() - t0) / merge(n, 2 * n, to_null)
  end function
end program
