/* mp_slice MODE: the short scheduler slice (src/device/slice.c) seen from
 * the ranks. For SECONDS (1.5) the ranks pass 8 bytes round a ring; after
 * every receive a rank reads its own slice (sched_getattr's sched_runtime).
 *   short: run beside CPU-bound processes (check_slice.sh starts them): some
 *          rank must have seen RDMACH_WAKE_SLICE_US (100 us) while it waited;
 *   never: (RDMACH_WAKE_SLICE_US=0) no rank may have seen its slice change.
 * Exits 77 where the kernel reports no SCHED_OTHER slice (before Linux
 * 6.12): there is nothing to test. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t prio;
    uint64_t runtime, deadline, period;
};

static uint64_t slice_now(void)
{
    struct attr a;
    memset(&a, 0, sizeof(a));
    if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof(a), 0) != 0)
        return 0;
    return a.runtime;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int want_short = argc > 1 && strcmp(argv[1], "short") == 0;
    uint64_t own = slice_now();
    int none = own == 0, any_none;
    MPI_Allreduce(&none, &any_none, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_none) {
        if (me == 0)
            printf("mp_slice: SKIP: the kernel reports no SCHED_OTHER slice (Linux before 6.12)\n");
        MPI_Finalize();
        return 77;
    }
    long hops = 0;
    int saw = 0, stop = 0;
    double t0 = MPI_Wtime();
    char tok[8] = "token";
    while (!stop) {
        if (me == 0) {
            stop = MPI_Wtime() - t0 > 1.5;
            MPI_Send(&stop, 1, MPI_INT, 1 % np, 0, MPI_COMM_WORLD);
            MPI_Send(tok, 8, MPI_CHAR, 1 % np, 1, MPI_COMM_WORLD);
            MPI_Recv(&stop, 1, MPI_INT, np - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(tok, 8, MPI_CHAR, np - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&stop, 1, MPI_INT, me - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(tok, 8, MPI_CHAR, me - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&stop, 1, MPI_INT, (me + 1) % np, 0, MPI_COMM_WORLD);
            MPI_Send(tok, 8, MPI_CHAR, (me + 1) % np, 1, MPI_COMM_WORLD);
        }
        hops++;
        uint64_t s = slice_now();
        if (s != own)
            saw = saw ? saw : (s == 100000 ? 1 : 2);   /* 2: some other value */
    }
    int any[2] = { saw == 1, saw == 2 }, all[2];
    MPI_Allreduce(any, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = 0;
    if (me == 0) {
        printf("mp_slice: %d ranks, %ld rounds, own slice %llu ns; ranks that saw 100 us: %d, another value: %d\n",
               np, hops, (unsigned long long)own, all[0], all[1]);
        if (all[1] != 0)
            rc = 1, printf("mp_slice: FAIL: a slice neither the thread's own nor RDMACH_WAKE_SLICE_US\n");
        else if (want_short && all[0] == 0)
            rc = 1, printf("mp_slice: FAIL: beside CPU-bound processes no rank took the short slice\n");
        else if (!want_short && all[0] != 0)
            rc = 1, printf("mp_slice: FAIL: with RDMACH_WAKE_SLICE_US=0 a rank's slice changed\n");
        else
            printf("mp_slice: PASS\n");
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
