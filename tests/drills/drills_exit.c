/*
 * drills_exit MODE: how a program's exit code reaches the launcher.
 *
 *   ret=R:C        rank R returns C from main after MPI_Finalize (-1: every rank)
 *   exit=R:C       rank R calls exit(C) after MPI_Finalize (-1: every rank)
 *   early=R:C      rank R calls exit(C) before MPI_Finalize, after a message
 *                  round with every rank; the others call MPI_Finalize, which
 *                  must not wait for it (the job ends with code C)
 *   kill=R:0       rank R raises SIGKILL after the ring; the others wait in
 *                  MPI_Barrier, see it fail and abort: the launcher's verdict
 *                  must name rank R, not a survivor
 *   initkill=R:0   rank R raises SIGKILL as soon as MPI_Init returns, while
 *                  others may still be in theirs; the same verdict is due
 *   timedkill=R:U  rank R (by the launcher's rank variable) gets SIGKILL
 *                  from a timer U microseconds after it starts, before
 *                  MPI_Init: at that moment, wherever it is (most often
 *                  inside MPI_Init when U is below its duration)
 *   abort=R:C      rank R calls MPI_Abort(MPI_COMM_WORLD, C) after the ring;
 *                  the others wait in MPI_Barrier: the job ends, with code C
 *                  (0 too, as Hydra and Open MPI's mpirun exit)
 *   ok             every rank returns 0
 *
 * Every rank first checks a ring exchange (so the channels are up), and
 * prints "drills_exit: rank N leaves with C" just before it leaves.
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static int rank, size;

static void ring(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (got != left) {
        fprintf(stderr, "drills_exit: rank %d got %d from its left neighbour, expected %d\n", rank, got, left);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
}

/* This process's rank as its launcher told it, before MPI_Init: Hydra and
 * rdmachrun set PMI_RANK, srun SLURM_PROCID, PMIx launchers PMIX_RANK. */
static int launcher_rank(void)
{
    const char *vars[] = { "PMI_RANK", "SLURM_PROCID", "PMIX_RANK" };
    for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++)
        if (getenv(vars[i]))
            return atoi(getenv(vars[i]));
    return -1;
}

/* SIGKILL from the kernel us microseconds from now, whatever we do then. */
static void arm_kill(long us)
{
    struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGKILL };
    struct itimerspec at = { .it_value = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 + 1 } };
    timer_t t;
    if (timer_create(CLOCK_MONOTONIC, &sev, &t) != 0 || timer_settime(t, 0, &at, NULL) != 0) {
        perror("drills_exit: timer for SIGKILL");
        exit(2);
    }
}

static void leave(int code, int by_exit)
{
    printf("drills_exit: rank %d leaves with %d\n", rank, code);
    fflush(stdout);
    if (by_exit)
        exit(code);
}

int main(int argc, char **argv)
{
    int who = 0, code = 0;
    char mode[16] = "ok";
    if (argc > 1 && sscanf(argv[1], "%15[a-z]=%d:%d", mode, &who, &code) != 3 && strcmp(argv[1], "ok") != 0) {
        fprintf(stderr, "usage: drills_exit ret=R:C | exit=R:C | early=R:C | kill=R:0 | initkill=R:0 | "
                        "timedkill=R:U | abort=R:C | ok\n");
        return 2;
    }
    if (strcmp(mode, "timedkill") == 0 && launcher_rank() == who)
        arm_kill(code);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "initkill") == 0) {
        if (who == rank)
            raise(SIGKILL);
        MPI_Barrier(MPI_COMM_WORLD);
        fprintf(stderr, "drills_exit: rank %d: MPI_Barrier returned with rank %d dead\n", rank, who);
        return 98;
    }
    ring();
    int mine = who == -1 || who == rank;
    if (strcmp(mode, "early") == 0 && mine)
        leave(code, 1);
    if (strcmp(mode, "abort") == 0) {
        if (mine) {
            printf("drills_exit: rank %d aborts with %d\n", rank, code);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, code);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        fprintf(stderr, "drills_exit: rank %d: MPI_Barrier returned after rank %d's MPI_Abort\n", rank, who);
        return 98;
    }
    if (strcmp(mode, "kill") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);    /* every rank is past MPI_Init */
        if (mine)
            raise(SIGKILL);
        MPI_Barrier(MPI_COMM_WORLD);
        fprintf(stderr, "drills_exit: rank %d: MPI_Barrier returned with rank %d dead\n", rank, who);
        return 98;
    }
    MPI_Finalize();
    if (!mine || strcmp(mode, "ok") == 0 || strcmp(mode, "timedkill") == 0) {
        leave(0, 0);
        return 0;
    }
    leave(code, strcmp(mode, "exit") == 0);
    return code;
}
