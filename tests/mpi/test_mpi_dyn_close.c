/*
 * MPI_Comm_disconnect closes the connections to the other job's processes
 * once no communicator names them (src/mpi/comm.c, rch_dev_dyn_detach).
 * The parents (2 ranks) spawn 2 copies of this program, twice. Each round:
 * values both ways over the intercommunicator, MPI_Comm_dup of it,
 * MPI_Comm_disconnect of the original — the sockets stay (the duplicate
 * names the children) and values still flow over the duplicate — then
 * MPI_Comm_disconnect of the duplicate, after which each parent counts the
 * sockets among its descriptors while the children still run: as many as
 * before the spawn (the first round may leave one more, the listening
 * socket that took the children's connections). Without the closing each
 * child's connection stays. The children then wait, outside MPI, for a
 * byte each on a FIFO rank 0 holds open (EOF if it dies), so that they are
 * alive while the parents count. The second spawn shows that connecting
 * again after a disconnect works.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "mpi_test.h"

#define NCHILD 2

static int rank, np;

static int sockets(void)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL, "cannot read /proc/self/fd");
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[300], target[64];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof(target) - 1);
        if (len > 0) {
            target[len] = '\0';
            n += strncmp(target, "socket:", 7) == 0;
        }
    }
    closedir(d);
    return n;
}

/* Each parent sends every child a value; the child returns it plus
 * 1000 * (its rank + 1). */
static void parent_exchange(MPI_Comm ic, int round)
{
    for (int c = 0; c < NCHILD; c++) {
        int v = round * 100 + rank * 10 + c, back = -1;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, c, 1, ic));
        MPI_OK(MPI_Recv(&back, 1, MPI_INT, c, 2, ic, MPI_STATUS_IGNORE));
        CHECK(back == v + 1000 * (c + 1), "child %d returned %d for %d", c, back, v);
    }
}

static void child_exchange(MPI_Comm ic)
{
    int nparents;
    MPI_OK(MPI_Comm_remote_size(ic, &nparents));
    for (int p = 0; p < nparents; p++) {
        int v;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, p, 1, ic, MPI_STATUS_IGNORE));
        v += 1000 * (rank + 1);
        MPI_OK(MPI_Send(&v, 1, MPI_INT, p, 2, ic));
    }
}

static void round_trip(const char *self, const char *fifo, int fifo_fd, int round)
{
    MPI_Comm ic, dup;
    int codes[NCHILD];
    char *args[] = { "child", (char *)fifo, NULL };
    int before = sockets();
    MPI_OK(MPI_Comm_spawn(self, args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes));
    parent_exchange(ic, round);
    MPI_OK(MPI_Comm_dup(ic, &dup));
    int open = sockets();
    MPI_OK(MPI_Comm_disconnect(&ic));
    CHECK(ic == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle");
    CHECK(sockets() == open, "round %d: %d sockets after disconnecting a communicator whose duplicate "
          "names the same processes, %d before", round, sockets(), open);
    parent_exchange(dup, round + 1);
    MPI_OK(MPI_Comm_disconnect(&dup));
    int after = sockets();
    CHECK(after == before || (round == 1 && after == before + 1), "round %d: %d sockets after the "
          "disconnect, %d before the spawn: the connections to the children stayed open", round, after, before);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        char go[NCHILD] = { 0 };
        CHECK(write(fifo_fd, go, sizeof(go)) == (ssize_t)sizeof(go), "writing the FIFO");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = rank;
    if (argc > 2 && strcmp(argv[1], "child") == 0) {
        MPI_Comm parent, dup;
        char go;
        int fd = open(argv[2], O_RDONLY);
        CHECK(fd >= 0, "cannot open the FIFO %s", argv[2]);
        MPI_OK(MPI_Comm_get_parent(&parent));
        CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
        child_exchange(parent);
        MPI_OK(MPI_Comm_dup(parent, &dup));
        MPI_OK(MPI_Comm_disconnect(&parent));
        child_exchange(dup);
        MPI_OK(MPI_Comm_disconnect(&dup));
        (void)!read(fd, &go, 1);
        close(fd);
        MPI_Finalize();
        return 0;
    }
    /* O_RDWR: a writer is open from the start, so the children's open
     * returns at once and their read waits for rank 0's bytes. */
    char fifo[64] = "";
    int fifo_fd = -1;
    if (rank == 0) {
        snprintf(fifo, sizeof(fifo), "/tmp/rdmach-dyn-close-%d", (int)getpid());
        CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
        fifo_fd = open(fifo, O_RDWR);
        CHECK(fifo_fd >= 0, "opening the FIFO %s", fifo);
    }
    round_trip(argv[0], fifo, fifo_fd, 1);
    round_trip(argv[0], fifo, fifo_fd, 2);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        close(fifo_fd);
        unlink(fifo);
        printf("dyn close: ok\n");
    }
    MPI_Finalize();
    return 0;
}
