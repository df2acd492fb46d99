/*
 * f08_latency_c.c: the C half of bench/f08_latency.f90 (and f08_icount.f90)
 * — the same 8-byte MPI_Send/MPI_Recv ping-pong as the Fortran one, so that
 * both run in one job on the same pair of cores, and the CPU model for the
 * report.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "bench_util.h"

/* This thread's CPU time in seconds: on a machine shared with other jobs
 * the time this rank was not running is not counted, as wall time counts it. */
double bench_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One-way latency in microseconds over iters round trips (rank 0's); the
 * same in CPU time in *cpu_us. */
double bench_c_pingpong(int iters, double *cpu_us)
{
    char buf[8] = {0};
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = bench_cpu_seconds(), t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    *cpu_us = (bench_cpu_seconds() - c0) * 1e6 / (2.0 * iters);
    return t * 1e6 / (2.0 * iters);
}

/* iters 8-byte MPI_Send + MPI_Recv to self (one rank, f08_icount.f90):
 * the ping-pong's calls without the wait for the other rank. */
void bench_c_self(int iters)
{
    char buf[8] = {0};
    for (int i = 0; i < iters; i++) {
        MPI_Send(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* Nanoseconds per MPI_Send to MPI_PROC_NULL: the binding's own cost, which
 * the noise of a shared machine hides less than it hides a round trip's;
 * the same in CPU time in *cpu_ns. */
double bench_c_send_null(int iters, double *cpu_ns)
{
    char buf[8] = {0};
    double c0 = bench_cpu_seconds(), t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    *cpu_ns = (bench_cpu_seconds() - c0) * 1e9 / iters;
    return t * 1e9 / iters;
}

/* The CPU model (bench_util.h), printed as "# cpu: ...". */
void bench_print_cpu_model(void)
{
    char cpu[224];
    bench_cpu_model(cpu, sizeof(cpu));
    printf("# cpu: %s\n", cpu);
    fflush(stdout);
}

/* /proc/loadavg's three figures, printed as "# load average: ...": the
 * figures of a shared machine are read against it. */
void bench_print_loadavg(void)
{
    double l1 = 0, l5 = 0, l15 = 0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3)
        printf("# load average: %.2f %.2f %.2f\n", l1, l5, l15);
    if (f)
        fclose(f);
    fflush(stdout);
}
