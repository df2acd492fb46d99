/*
 * dyn_link: the data path between two processes, over MPI_COMM_WORLD of one
 * job ("world", 2 ranks) or over the intercommunicator of two separately
 * launched jobs ("server" / "client <port>", 1 rank each; issue 24: the
 * cross-job peer's channel against the network channel). Rank 0 of each
 * side measures against the other side's rank 0:
 *   latency    8 B ping-pong, half the round trip (us)
 *   bandwidth  a window of 16 MPI_Isend of <size>, then a 4 B ack (MB/s,
 *              MB = 10^6 bytes), sizes 64 KiB, 1 MiB, 4 MiB
 * each the best of 5 repetitions. "server" prints "PORT <name>" first
 * (tests/mpi/dyn_pair.sh starts the client with it).
 *   mpiexec -n 2 dyn_link world
 *   dyn_pair.sh --np 1 dyn_link mpiexec ...
 * Output: "# ..." headers, then "lat 8 <us>" and "bw <size> <MB/s>".
 */
#include "bench_util.h"

#define WINDOW 16
#define REPS 5

static double pingpong(MPI_Comm c, int first, int iters)
{
    char b[8] = { 0 };
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (first) {
                MPI_Send(b, 8, MPI_BYTE, 0, 1, c);
                MPI_Recv(b, 8, MPI_BYTE, 0, 1, c, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(b, 8, MPI_BYTE, 0, 1, c, MPI_STATUS_IGNORE);
                MPI_Send(b, 8, MPI_BYTE, 0, 1, c);
            }
        }
        double t = (MPI_Wtime() - t0) / iters / 2 * 1e6;
        best = t < best ? t : best;
    }
    return best;
}

static double bandwidth(MPI_Comm c, int sender, char *buf, long size)
{
    MPI_Request rq[WINDOW];
    int ack = 0;
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < WINDOW; i++) {
            if (sender)
                MPI_Isend(buf + (size_t)i * size, (int)size, MPI_BYTE, 0, 2, c, &rq[i]);
            else
                MPI_Irecv(buf + (size_t)i * size, (int)size, MPI_BYTE, 0, 2, c, &rq[i]);
        }
        MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
        if (sender)
            MPI_Recv(&ack, 1, MPI_INT, 0, 3, c, MPI_STATUS_IGNORE);
        else
            MPI_Send(&ack, 1, MPI_INT, 0, 3, c);
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    return (double)size * WINDOW / best / 1e6;
}

/* peer is rank 0 of c's other side; first: this side starts the ping-pong and sends */
static void measure(MPI_Comm c, int first, const char *what)
{
    static const long sizes[] = { 64L << 10, 1L << 20, 4L << 20 };
    char *buf = malloc((size_t)WINDOW * (4L << 20));
    if (!buf) {
        fprintf(stderr, "dyn_link: no memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, first, (size_t)WINDOW * (4L << 20));
    pingpong(c, first, 100);                      /* warm-up: connections, caches */
    double lat = pingpong(c, first, 2000);
    double bw[3];
    for (int i = 0; i < 3; i++) {
        bandwidth(c, first, buf, sizes[i]);       /* warm-up */
        bw[i] = bandwidth(c, first, buf, sizes[i]);
    }
    if (first) {
        char cpu[128];
        bench_cpu_model(cpu, sizeof(cpu));
        printf("# cpu: %s\n# %s\nlat 8 %.2f\n", cpu, what, lat);
        for (int i = 0; i < 3; i++)
            printf("bw %ld %.1f\n", sizes[i], bw[i]);
        fflush(stdout);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "world") == 0 && np == 2) {
        /* rank 1 is "rank 0 of the other side": a communicator of each rank's own */
        MPI_Comm inter, self;
        MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &self);
        MPI_Intercomm_create(self, 0, MPI_COMM_WORLD, 1 - rank, 9, &inter);
        measure(inter, rank == 0, "one job, 2 ranks: the job's own channel");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&self);
    } else if (strcmp(mode, "server") == 0 && np == 1) {
        char port[MPI_MAX_PORT_NAME];
        MPI_Comm ic;
        MPI_Open_port(MPI_INFO_NULL, port);
        printf("PORT %s\n", port);
        fflush(stdout);
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        measure(ic, 0, "two jobs: the cross-job peer's channel");
        MPI_Comm_disconnect(&ic);
        MPI_Close_port(port);
    } else if (strcmp(mode, "client") == 0 && argc > 2 && np == 1) {
        MPI_Comm ic;
        MPI_Comm_connect(argv[2], MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        measure(ic, 1, "two jobs: the cross-job peer's channel");
        MPI_Comm_disconnect(&ic);
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: dyn_link world (2 ranks) | server | client <port> (1 rank each)\n");
        MPI_Finalize();
        return 1;
    }
    MPI_Finalize();
    return 0;
}
