/*
 * A small MPI_Allreduce_init built before the communicator's first blocking
 * collective runs through the node segment once a blocking allreduce has
 * made it (src/coll/allreduce_shmseg_persist.c; the blocking allreduces of a
 * young communicator run by messages and make none), not through its message
 * schedule for ever: on one node, its starts after that send no packets over
 * shared memory (the MPI_T counter shm_msgs_sent stays below one per start,
 * where the schedule sends at least one per start on every rank). The sums
 * are checked against p(p+1)/2 + p * iteration at every start, before and
 * after the switch, and with the request started again after it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "mpi_test.h"

enum { ITERS = 50 };

static void run(MPI_Request *rq, double *in, const double *out, int me, int p, int base)
{
    for (int it = 0; it < ITERS; it++) {
        *in = me + 1 + it + base;
        MPI_OK(MPI_Start(rq));
        MPI_OK(MPI_Wait(rq, MPI_STATUS_IGNORE));
        double want = (double)p * (p + 1) / 2 + (double)p * (it + base);
        CHECK(*out == want, "start %d: sum %g, want %g", base + it, *out, want);
    }
}

int main(int argc, char **argv)
{
    int me, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    mt_rank = me;
    struct mt_counter shm_sent;
    mt_counter_open(&shm_sent, "shm_msgs_sent");

    double in = 0.0, out = -1.0;
    MPI_Request rq;
    MPI_OK(MPI_Allreduce_init(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    run(&rq, &in, &out, me, p, 0);   /* before any blocking collective: the schedule */
    /* the segment is made by the first blocking allreduce after the
     * communicator's young ones (RDMACH_COLL_SEG_AFTER), which run by messages */
    int young = mt_cvar_int("RDMACH_COLL_SEG_AFTER");
    CHECK(young >= 0, "RDMACH_COLL_SEG_AFTER reads %d", young);
    for (int k = 0; k <= young; k++) {
        int one = 1, all = 0;
        MPI_OK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK(all == p, "blocking allreduce %d: %d, want %d", k, all, p);
    }
    unsigned long long before = mt_counter_read(&shm_sent);
    run(&rq, &in, &out, me, p, ITERS);
    unsigned long long sent = mt_counter_read(&shm_sent) - before;
    /* One node and more than one rank: the blocking allreduce made the
     * segment (RDMACH_VNODE_SIZE=1 makes every rank a node: no segment, the
     * schedule's packets go over the network channel, not shm). */
    int one_node = getenv("RDMACH_VNODE_SIZE") == NULL;
    if (p > 1 && one_node)
        CHECK(sent < ITERS, "%llu shm packets for %d starts after the segment was made: "
              "the request still runs its message schedule", sent, ITERS);
    MPI_OK(MPI_Request_free(&rq));
    mt_counter_close(&shm_sent);
    if (me == 0)
        printf("persist_early: %d ranks, %llu shm packets sent by rank 0 in %d starts after the first "
               "blocking allreduce\n", p, sent, ITERS);
    MPI_Finalize();
    return 0;
}
