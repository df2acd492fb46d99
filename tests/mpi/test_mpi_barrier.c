/*
 * MPI_Barrier through the barrier framework, as processes: no rank leaves a
 * barrier before every rank has arrived, over many consecutive barriers,
 * with ranks arriving late now and then, on MPI_COMM_WORLD, on a split
 * communicator (both halves at once), on duplicates made and freed in a
 * loop (each gets its own backend state), and mixed with MPI_Ibarrier.
 *
 * The witness is a counter in shared memory the test makes itself (a
 * /dev/shm file rank 0 creates): every rank adds one before barrier k, and
 * after leaving it every rank must see at least (k + 1) · p. It does not
 * depend on the messages or the shared memory of the barrier under test.
 *
 * Usage: test_mpi_barrier <backend> [rounds]
 *   <backend>  the backend MPI_Barrier on MPI_COMM_WORLD must report
 *              (rdmach_barrier_backend), or "any"
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdmach.h>
#include "mpi_test.h"

struct witness {
    atomic_uint world;
    atomic_uint half[2];
    atomic_uint dup;
    atomic_uint ibar;
};

static struct witness *w;
static int rank_, size_;

static void map_witness(void)
{
    char name[64];
    long id = rank_ == 0 ? (long)getpid() : 0;
    MPI_OK(MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    snprintf(name, sizeof(name), "/rdmach-test-barrier-%ld", id);
    if (rank_ == 0) {
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        CHECK(fd >= 0, "shm_open(%s)", name);
        CHECK(ftruncate(fd, sizeof(struct witness)) == 0, "ftruncate");
        close(fd);
    }
    /* everyone maps after rank 0 made it; an allreduce, not the barrier under test */
    int one = 1, all = 0;
    MPI_OK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    int fd = shm_open(name, O_RDWR, 0);
    CHECK(fd >= 0, "shm_open(%s) of rank 0's file", name);
    w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(w != MAP_FAILED, "mmap");
    close(fd);
    MPI_OK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (rank_ == 0)
        shm_unlink(name);
}

/* Work long enough to arrive last now and then (not a wait for anything). */
static void dawdle(unsigned k, int r)
{
    if ((k * 7u + (unsigned)r * 13u) % 29u == 0)
        for (volatile int i = 0; i < 200000; i++)
            ;
}

/* *tally: the arrivals counted on ctr by earlier runs (every rank of comm
 * keeps the same tally). */
static void rounds_on(MPI_Comm comm, atomic_uint *ctr, unsigned *tally, int rounds, const char *where)
{
    int r, p;
    MPI_OK(MPI_Comm_rank(comm, &r));
    MPI_OK(MPI_Comm_size(comm, &p));
    unsigned base = *tally;
    for (int k = 0; k < rounds; k++) {
        atomic_fetch_add(ctr, 1);
        dawdle((unsigned)k, r);
        MPI_OK(MPI_Barrier(comm));
        unsigned seen = atomic_load(ctr), need = base + (unsigned)(k + 1) * (unsigned)p;
        CHECK(seen >= need, "%s: rank %d left barrier %d when %u of %u arrivals had happened", where,
              r, k, seen - base, need - base);
    }
    *tally = base + (unsigned)rounds * (unsigned)p;
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
    mt_rank = rank_;
    CHECK(argc >= 2, "usage: test_mpi_barrier <backend|any> [rounds]");
    const char *expect = argv[1];
    int rounds = argc > 2 ? atoi(argv[2]) : 500;
    map_witness();

    unsigned t_world = 0, t_half = 0, t_dup = 0;
    rounds_on(MPI_COMM_WORLD, &w->world, &t_world, rounds, "world");
    const char *ran = rdmach_barrier_backend();
    CHECK(strcmp(expect, "any") == 0 || strcmp(ran, expect) == 0,
          "MPI_Barrier on world ran backend '%s', expected '%s'", ran, expect);

    /* both halves at once, each with its own counter */
    MPI_Comm half;
    int color = rank_ % 2;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, size_ - rank_, &half));
    rounds_on(half, &w->half[color], &t_half, rounds, color ? "odd half" : "even half");
    MPI_OK(MPI_Comm_free(&half));

    /* communicators made and freed: each a new backend instance */
    for (int i = 0; i < 20; i++) {
        MPI_Comm d;
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        rounds_on(d, &w->dup, &t_dup, 10, "dup");
        MPI_OK(MPI_Comm_free(&d));
    }

    /* Ibarrier interleaved with blocking barriers */
    unsigned base = 0;
    for (int k = 0; k < rounds / 10 + 1; k++) {
        MPI_Request rq;
        atomic_fetch_add(&w->ibar, 1);
        dawdle((unsigned)k, rank_);
        MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        unsigned seen = atomic_load(&w->ibar), need = base + (unsigned)(k + 1) * (unsigned)size_;
        CHECK(seen >= need, "ibarrier %d: completed when %u of %u had arrived", k, seen - base,
              need - base);
    }
    rounds_on(MPI_COMM_WORLD, &w->world, &t_world, 10, "world again");
    CHECK(strcmp(expect, "any") == 0 || strcmp(rdmach_barrier_backend(), expect) == 0,
          "MPI_Barrier on world ran backend '%s' at the end, expected '%s'", rdmach_barrier_backend(),
          expect);

    if (rank_ == 0)
        printf("test_mpi_barrier: %d ranks, backend %s, %d rounds: ok\n", size_, ran, rounds);
    munmap(w, sizeof(*w));
    MPI_OK(MPI_Finalize());
    return 0;
}
