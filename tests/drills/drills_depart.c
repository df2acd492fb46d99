/*
 * drills_depart: ranks that finish MPI_Finalize and exit while another rank
 * still makes progress are departures, not failures: nobody may be warned
 * that they "failed" or "died" (tests/drills/depart.cmake greps for that).
 *
 * Every rank sends its pid to rank 0 and hears back (so rank 0 and each
 * peer have connected to one another, and each watches the other's
 * process), then MPI_Finalize. The others exit at once; rank 0 keeps
 * running the device's progress (rdmach_progress: the device stays open
 * until the process exits), as a rank still in its finalize does, until
 * each of their processes has ended (its /proc/<pid>/stat gone or a
 * zombie), then for `linger` seconds more: many times the shared-memory
 * channel's liveness period, so it has looked at every peer after its
 * exit. Then it prints "drills_depart: rank 0 saw N exits" (N = size - 1).
 * (A rank that dies before MPI_Finalize must still be reported: the
 * drills of death.cmake check that.)
 */
#include <mpi.h>
#include <rdmach.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Has the process ended (gone, or a zombie its parent has not reaped)? */
static int ended(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');
    return rp == NULL || (rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

int main(int argc, char **argv)
{
    double linger = argc > 1 ? atof(argv[1]) : 0.5;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *pids = calloc((size_t)size, sizeof(int));
    int me = (int)getpid(), ack = 0;
    if (rank == 0) {
        for (int r = 1; r < size; r++)
            MPI_Recv(&pids[r], 1, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int r = 1; r < size; r++)
            MPI_Send(&ack, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
    } else {
        MPI_Send(&me, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&ack, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int rc = MPI_Finalize();
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        printf("drills_depart: rank %d: MPI_Finalize failed: %s\n", rank, msg);
        free(pids);
        return 1;
    }
    if (rank != 0) {
        free(pids);
        return 0;
    }

    /* The device outlives MPI_Finalize (it closes at exit): its progress
     * is what a rank still in its finalize runs. */
    int seen = 0;
    double start = now(), quiet = 0;
    while (now() - start < 30) {
        rdmach_progress();
        if (quiet == 0) {
            for (seen = 0; seen < size - 1 && ended(pids[seen + 1]); seen++)
                ;
            if (seen == size - 1)
                quiet = now();
        } else if (now() - quiet >= linger) {
            break;
        }
    }
    printf("drills_depart: rank 0 saw %d exits\n", seen);
    free(pids);
    return seen == size - 1 ? 0 : 1;
}
