/*
 * startup: the shortest MPI job, MPI_Init + a first MPI_Barrier +
 * MPI_Finalize, for bench/compare's start-up rows. The time of the job is
 * taken by bench/compare (the launcher's start to its exit: what a user
 * waits for); this program reports the memory the library adds to each rank.
 *
 * Memory, per rank, from /proc/self/smaps_rollup at main's start and after
 * the first barrier (MPI_Init has set everything up and one collective has
 * run): the growth of Pss (proportional set size: private pages, plus each
 * shared page divided by the processes that map it, so shared memory is
 * counted once over the job), of Pss_Shmem (its shared-memory part: POSIX
 * or SysV segments, whatever the library uses) and of Rss. Each rank writes
 * "<rank> <pss KiB> <shm KiB> <rss KiB>" after MPI_Finalize, in one
 * append to --out FILE, so the measurement adds no communication to the
 * job; without --out, rank 0 prints its own line only.
 *
 * Plain MPI C: builds unchanged with rdmach's mpicc, mpicc.mpich and
 * mpicc.openmpi. Output (rank 0): "# library: ..." (bench/compare checks it).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mem {
    long pss, shm, rss; /* KiB; -1 when the kernel does not say */
};

static void read_mem(struct mem *m)
{
    char line[256];
    m->pss = m->shm = m->rss = -1;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        long v;
        if (sscanf(line, "Pss: %ld kB", &v) == 1)
            m->pss = v;
        else if (sscanf(line, "Pss_Shmem: %ld kB", &v) == 1)
            m->shm = v;
        else if (sscanf(line, "Rss: %ld kB", &v) == 1)
            m->rss = v;
    }
    fclose(f);
}

static long grown(long before, long after)
{
    return before < 0 || after < 0 ? -1 : after - before;
}

int main(int argc, char **argv)
{
    struct mem m0, m1;
    read_mem(&m0);
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--out FILE]\n", argv[0]);
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    read_mem(&m1);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Finalize();

    char text[160];
    int n = snprintf(text, sizeof(text), "%d %ld %ld %ld\n", rank, grown(m0.pss, m1.pss),
                     grown(m0.shm, m1.shm), grown(m0.rss, m1.rss));
    if (out) {
        int fd = open(out, O_WRONLY | O_APPEND | O_CREAT, 0644);
        if (fd < 0 || write(fd, text, (size_t)n) != n) {
            perror(out);
            return 1;
        }
        close(fd);
    }
    if (rank == 0) {
        char v[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(v, &len);
        v[strcspn(v, "\n")] = '\0';
        printf("# library: %s\n# startup: %d ranks\n", v, size);
        if (!out)
            printf("# rank pss_kib shm_kib rss_kib\n%s", text);
    }
    return 0;
}
