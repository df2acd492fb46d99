/*
 * A spawned job that ends before its processes connect makes MPI_Comm_spawn
 * fail at once, not after the connect timeout: rdmachrun reports the job's
 * end to the root's spawn port (tools/run_spawn_exit.c, boot.h
 * RCH_BOOT_SPAWN_EXITED). The parents spawn `/bin/sh -c "exit 3"`, which
 * never calls MPI_Init; the call must return MPI_ERR_SPAWN on every parent
 * within 10 s (the timeout is 60 s), its message naming exit code 3, and
 * MPI_COMM_WORLD must still work.
 * Argument "timeout" (run with RDMACH_DYN_TIMEOUT_MS=1000): the spawned
 * `/bin/sh` stays alive without connecting (it reads a FIFO rank 0 writes
 * after the spawn returned), so the spawn fails by the tunable timeout:
 * after 1 s and well before the default 60 s.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>
#include "mpi_test.h"

static void timeout_mode(int rank)
{
    char fifo[64], script[128];
    snprintf(fifo, sizeof(fifo), "/tmp/rdmach-dyn-exit-%d", (int)getppid());
    snprintf(script, sizeof(script), "read x < %s", fifo);
    int fd = -1;
    if (rank == 0) {
        CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
        fd = open(fifo, O_RDWR);
        CHECK(fd >= 0, "opening %s", fifo);
    }
    char *args[] = { "-c", script, NULL };
    MPI_Comm ic = MPI_COMM_NULL;
    double t0 = MPI_Wtime();
    int err = MPI_Comm_spawn("/bin/sh", args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE);
    double took = MPI_Wtime() - t0;
    CHECK(err != MPI_SUCCESS && ic == MPI_COMM_NULL, "spawn of a job that never connects succeeded");
    CHECK(rank != 0 || took >= 0.9, "the spawn failed after %.2f s, before RDMACH_DYN_TIMEOUT_MS=1000", took);
    CHECK(took < 10.0, "the spawn failed after %.1f s: RDMACH_DYN_TIMEOUT_MS=1000 not honoured", took);
    if (rank == 0) {
        CHECK(write(fd, "\n", 1) == 1, "writing %s", fifo);
        close(fd);
        unlink(fifo);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("dyn timeout: ok (%.2f s)\n", took);
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = rank;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (argc > 1 && strcmp(argv[1], "timeout") == 0) {
        timeout_mode(rank);
        MPI_Finalize();
        return 0;
    }
    char *args[] = { "-c", "exit 3", NULL };
    MPI_Comm ic = MPI_COMM_NULL;
    int code = -1;
    double t0 = MPI_Wtime();
    int err = MPI_Comm_spawn("/bin/sh", args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, &code);
    double took = MPI_Wtime() - t0;
    int cls = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_class(err, &cls);
    MPI_Error_string(err, msg, &len);
    CHECK(cls == MPI_ERR_SPAWN, "spawn of a job that exits at once: class %d, expected MPI_ERR_SPAWN (%s)", cls, msg);
    CHECK(ic == MPI_COMM_NULL, "a failed spawn returned an intercommunicator");
    CHECK(took < 10.0, "the failed spawn took %.1f s", took);
    if (rank == 0) {
        CHECK(strstr(msg, "exit code 3") != NULL, "the error does not name the exit code: %s", msg);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("dyn exit: ok (%.2f s: %s)\n", took, msg);
    MPI_Finalize();
    return 0;
}
