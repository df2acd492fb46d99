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
 *   ok             every rank returns 0
 *
 * Every rank first checks a ring exchange (so the channels are up), and
 * prints "drills_exit: rank N leaves with C" just before it leaves.
 */
#include <signal.h>
#include <stdio.h>
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
        fprintf(stderr, "usage: drills_exit ret=R:C | exit=R:C | early=R:C | kill=R:0 | initkill=R:0 | ok\n");
        return 2;
    }
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
    if (strcmp(mode, "kill") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);    /* every rank is past MPI_Init */
        if (mine)
            raise(SIGKILL);
        MPI_Barrier(MPI_COMM_WORLD);
        fprintf(stderr, "drills_exit: rank %d: MPI_Barrier returned with rank %d dead\n", rank, who);
        return 98;
    }
    MPI_Finalize();
    if (!mine || strcmp(mode, "ok") == 0) {
        leave(0, 0);
        return 0;
    }
    leave(code, strcmp(mode, "exit") == 0);
    return code;
}
