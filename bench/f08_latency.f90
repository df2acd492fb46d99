! f08_latency: MPI_Send 8-byte ping-pong latency through `use mpi_f08`
! against C's (f08_latency_c.c) in the same job, in interleaved pairs of
! rounds (which of the two goes first alternates); prints, in wall time and
! in CPU time (this rank's: the time it was not running, on a machine shared
! with other jobs, is not counted), the best round of each and the median of
! the pairs' ratios (what a loaded machine's noise disturbs least: both
! halves of a pair see the same load), the CPU model and the load average,
! and the same for an MPI_Send to MPI_PROC_NULL (the binding's cost alone).
! Exactly two ranks:  build/tools/rdmachrun -n 2 build/bench/f08_latency
program f08_latency
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_double, c_int
  implicit none
  interface
    real(c_double) function bench_c_pingpong(iters, cpu) bind(C)
      import :: c_double, c_int
      integer(c_int), value :: iters
      real(c_double) :: cpu
    end function
    real(c_double) function bench_c_send_null(iters, cpu) bind(C)
      import :: c_double, c_int
      integer(c_int), value :: iters
      real(c_double) :: cpu
    end function
    real(c_double) function bench_cpu_seconds() bind(C)
      import :: c_double
    end function
    subroutine bench_print_cpu_model() bind(C)
    end subroutine
    subroutine bench_print_loadavg() bind(C)
    end subroutine
  end interface
  integer, parameter :: iters = 20000, rounds = 31
  ! (round, measure): measure 1..4 = ping-pong wall, ping-pong CPU (us),
  ! PROC_NULL wall, PROC_NULL CPU (ns); f for mpi_f08, c for C
  double precision :: f(rounds, 4), c(rounds, 4), t, w
  integer :: rank, nproc, round, m
  character(len=*), parameter :: what(4) = [character(len=30) :: &
      'ping-pong one-way, wall (us)', 'ping-pong one-way, CPU (us)', &
      'PROC_NULL send, wall (ns)', 'PROC_NULL send, CPU (ns)']

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  if (nproc /= 2) then
    if (rank == 0) print '(a)', 'f08_latency: needs exactly 2 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  t = f08_loop(1000, .false., w)   ! warm-up, both
  t = bench_c_pingpong(1000, w)
  do round = 1, rounds   ! each goes first in every other round
    if (mod(round, 2) == 0) c(round, 1) = bench_c_pingpong(iters, c(round, 2))
    f(round, 1) = f08_loop(iters, .false., f(round, 2))
    if (mod(round, 2) == 1) c(round, 1) = bench_c_pingpong(iters, c(round, 2))
    if (mod(round, 2) == 0) c(round, 3) = bench_c_send_null(10 * iters, c(round, 4))
    f(round, 3) = f08_loop(10 * iters, .true., f(round, 4))
    if (mod(round, 2) == 1) c(round, 3) = bench_c_send_null(10 * iters, c(round, 4))
  end do
  if (rank == 0) then
    call bench_print_cpu_model()
    print '(a, i0, a, i0, a, i0, a)', '# MPI_Send 8 B: ', rounds, ' interleaved pairs of rounds of ', &
          iters, ' round trips (', 10 * iters, ' PROC_NULL sends)'
    print '(a30, 4a10)', 'measure', 'C best', 'f08 best', 'ratio', 'median'
    do m = 1, 4
      print '(a30, 2f10.3, 2f10.3)', what(m), minval(c(:, m)), minval(f(:, m)), &
            minval(f(:, m)) / minval(c(:, m)), median(f(:, m) / c(:, m))
    end do
    print '(a)', '# ratio: mpi_f08 / C of the best rounds; median: of the pairs'' ratios'
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

  ! Microseconds per one-way message of n round trips, or nanoseconds per
  ! MPI_Send to MPI_PROC_NULL of n of them (to_null); the same in CPU time
  ! in cpu.
  double precision function f08_loop(n, to_null, cpu)
    integer, intent(in) :: n
    logical, intent(in) :: to_null
    double precision, intent(out) :: cpu
    integer(kind=1) :: buf(8)
    integer :: i
    double precision :: t0, c0, scale
    buf = 0
    if (.not. to_null) call MPI_Barrier(MPI_COMM_WORLD)
    c0 = bench_cpu_seconds()
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
    f08_loop = MPI_Wtime() - t0
    cpu = bench_cpu_seconds() - c0
    scale = merge(1d9 / n, 1d6 / (2 * n), to_null)
    f08_loop = f08_loop * scale
    cpu = cpu * scale
  end function
end program
