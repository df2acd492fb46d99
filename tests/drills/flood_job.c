/*
 * flood_job <dir> [seconds]: the job a flood (flood.c) tries to stop.
 *
 *   1. warm-up: a token goes round the ring (only the ring's pairs connect)
 *      until the flooder reports its idle connections in place
 *      (<dir>/flooding, seen by rank 0 and carried round with the token);
 *   2. under the flood: rounds of MPI_Alltoall (every pair, so the pairs
 *      off the ring connect now, through flooded listeners), MPI_Allreduce
 *      and a 1 MiB exchange with a partner that changes every round
 *      (rendezvous: the data rails connect too), each result checked
 *      against values computed here, until the flooder has made its garbage
 *      attempts (<dir>/done) and at least 3 rounds are done;
 *   3. rank 0 prints the figures: rounds, and the most descriptors any rank
 *      had open (sampled every round) against its limit, then "OK".
 * Either marker missing after `seconds` (default 120) fails the job.
 */
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>
#include "../mpi/mpi_test.h"

#define BIG (1u << 20)

static int exists(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    int n = 0;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n - 3;   /* ".", ".." and the directory's own descriptor */
}

/* Ring pass: rank 0 starts `flag`, everyone forwards it; all return it. */
static int ring_pass(int flag, int size, long round)
{
    int left = (mt_rank + size - 1) % size, right = (mt_rank + 1) % size;
    long msg[2] = { round, flag };
    if (mt_rank == 0) {
        MPI_OK(MPI_Send(msg, 2, MPI_LONG, right, 1, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(msg, 2, MPI_LONG, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Recv(msg, 2, MPI_LONG, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(msg, 2, MPI_LONG, right, 1, MPI_COMM_WORLD));
    }
    CHECK(msg[0] == round, "ring pass %ld came back as %ld", round, msg[0]);
    return (int)msg[1];
}

static void round_under_flood(int size, long round, int *sendv, int *recvv, unsigned char *big,
                              unsigned char *bigr)
{
    for (int d = 0; d < size; d++)
        sendv[d] = (int)(round * 10000 + mt_rank * 100 + d);
    MPI_OK(MPI_Alltoall(sendv, 1, MPI_INT, recvv, 1, MPI_INT, MPI_COMM_WORLD));
    for (int s = 0; s < size; s++)
        CHECK(recvv[s] == (int)(round * 10000 + s * 100 + mt_rank), "alltoall round %ld: from %d got %d", round,
              s, recvv[s]);
    long mine = round + mt_rank, sum = 0;
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == round * size + (long)size * (size - 1) / 2, "allreduce round %ld: %ld", round, sum);
    int k = 1 + (int)(round % (size - 1));   /* partners at distance k */
    int to = (mt_rank + k) % size, from = (mt_rank + size - k) % size;
    mt_fill(big, BIG, (uint64_t)round * 64 + (uint64_t)mt_rank);
    MPI_OK(MPI_Sendrecv(big, BIG, MPI_BYTE, to, 2, bigr, BIG, MPI_BYTE, from, 2, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    long bad = mt_verify(bigr, BIG, (uint64_t)round * 64 + (uint64_t)from);
    CHECK(bad < 0, "1 MiB from rank %d, round %ld: byte %ld wrong", from, round, bad);
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(argc >= 2 && size >= 2, "usage: flood_job <dir> [seconds] on 2 or more ranks");
    const char *dir = argv[1];
    double limit = argc > 2 ? atof(argv[2]) : 120.0;
    double t0 = MPI_Wtime();
    int peak = open_fds();

    long warm = 0;
    for (int flooding = 0; !flooding; warm++) {
        int seen = mt_rank == 0 && exists(dir, "flooding");
        flooding = ring_pass(seen, size, warm);
        CHECK(flooding || MPI_Wtime() - t0 < limit, "no flood after %.0f s (%ld ring passes)", limit, warm);
    }
    double t1 = MPI_Wtime();

    int *sendv = malloc(sizeof(int) * (size_t)size), *recvv = malloc(sizeof(int) * (size_t)size);
    unsigned char *big = malloc(BIG), *bigr = malloc(BIG);
    CHECK(sendv && recvv && big && bigr, "no memory");
    long rounds = 0;
    double first = 0;   /* the first round connects the pairs off the ring */
    for (int done = 0; !done; rounds++) {
        round_under_flood(size, rounds, sendv, recvv, big, bigr);
        if (rounds == 0)
            first = MPI_Wtime() - t1;
        int fds = open_fds();
        peak = fds > peak ? fds : peak;
        int seen = mt_rank == 0 && rounds >= 2 && exists(dir, "done");
        MPI_OK(MPI_Bcast(&seen, 1, MPI_INT, 0, MPI_COMM_WORLD));
        done = seen;
        CHECK(done || MPI_Wtime() - t0 < limit, "the flood did not end within %.0f s (%ld rounds)", limit, rounds);
    }
    int most = 0;
    MPI_OK(MPI_Reduce(&peak, &most, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (mt_rank == 0)
        printf("flood_job: %d ranks: %ld ring passes before the flood, %ld rounds under it (%.1f s, the first "
               "with its new connections %.2f s); at most %d descriptors open in a rank (limit %llu); OK\n",
               size, warm, rounds, MPI_Wtime() - t1, first, most, (unsigned long long)rl.rlim_cur);
    free(sendv);
    free(recvv);
    free(big);
    free(bigr);
    MPI_OK(MPI_Finalize());
    return 0;
}
