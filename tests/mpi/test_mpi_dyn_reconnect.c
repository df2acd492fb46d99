/*
 * Connect, traffic, disconnect, again: the network channel's connections
 * to the processes of another job close on MPI_Comm_disconnect once no
 * communicator names them (src/device/dyn.c counts the communicators'
 * maps, rdma/net/net_dyn.c ends the one connection with a BYE and releases
 * its ring and registrations), and only then. Two jobs started separately
 * (tests/mpi/dyn_pair.sh): "server" opens a port and prints "PORT <name>",
 * "client <port>" connects. Each of ROUNDS rounds, on both sides:
 *   - two intercommunicators a and b to the other job (two accepts), and
 *     traffic on each: every rank to every remote rank a small value and
 *     BIG bytes (rendezvous), both checked against what the sender's
 *     (job, rank, round, stage) gives;
 *   - the MPI_T level net_connections (this process's established network
 *     connections) is then base + 2 x the remote size: each intercommunicator
 *     has peers of its own;
 *   - d = dup(a), disconnect(a): d still names those peers, the count stays;
 *     traffic on d; disconnect(d): the count falls by the remote size;
 *   - traffic on b, whose peers are the same processes: the other side's
 *     release of a's connections was no failure of theirs; disconnect(b):
 *     the count is back to base.
 * and the MPI_T counter peers_failed stays 0 throughout: the other side's
 * goodbye is no failure. A connection left open keeps the count up; one
 * closed with d still naming it fails d's traffic; a BYE taken as a
 * failure counts one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dyn_pair.h"

#define ROUNDS 3
#define BIG (256 << 10)   /* above every eager limit: rendezvous, registrations */

static int rank, np;

/* Every rank sends every remote rank a value and BIG bytes and checks
 * what every remote rank sent it (the other job's number is 1 - job). */
static void traffic(MPI_Comm ic, int job, int stage)
{
    int rsize;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    size_t n = BIG / sizeof(uint32_t);
    uint32_t *out = malloc((size_t)rsize * BIG), *in = malloc((size_t)rsize * BIG);
    int *vin = calloc((size_t)rsize, sizeof(int)), *vout = calloc((size_t)rsize, sizeof(int));
    MPI_Request *rq = malloc(4 * (size_t)rsize * sizeof(*rq));
    CHECK(out && in && vin && vout && rq, "out of memory");
    for (int j = 0; j < rsize; j++) {
        for (size_t i = 0; i < n; i++)
            out[(size_t)j * n + i] = dyn_pair_word(job, rank, j, stage, i);
        vout[j] = 1000 * stage + 100 * job + 10 * rank + j;
        MPI_OK(MPI_Irecv(&vin[j], 1, MPI_INT, j, 1, ic, &rq[4 * j]));
        MPI_OK(MPI_Irecv(in + (size_t)j * n, (int)n, MPI_UINT32_T, j, 2, ic, &rq[4 * j + 1]));
        MPI_OK(MPI_Isend(&vout[j], 1, MPI_INT, j, 1, ic, &rq[4 * j + 2]));
        MPI_OK(MPI_Isend(out + (size_t)j * n, (int)n, MPI_UINT32_T, j, 2, ic, &rq[4 * j + 3]));
    }
    MPI_OK(MPI_Waitall(4 * rsize, rq, MPI_STATUSES_IGNORE));
    for (int j = 0; j < rsize; j++) {
        int want = 1000 * stage + 100 * (1 - job) + 10 * j + rank;
        CHECK(vin[j] == want, "stage %d: remote rank %d sent %d, expected %d", stage, j, vin[j], want);
        for (size_t i = 0; i < n; i++)
            CHECK(in[(size_t)j * n + i] == dyn_pair_word(1 - job, j, rank, stage, i),
                  "stage %d: word %zu of remote rank %d's bytes is %08x, expected %08x", stage, i, j,
                  in[(size_t)j * n + i], dyn_pair_word(1 - job, j, rank, stage, i));
    }
    free(out);
    free(in);
    free(vin);
    free(vout);
    free(rq);
}

static struct mt_counter conns, failed;

static void expect_conns(unsigned long long want, int round, const char *when)
{
    unsigned long long got = mt_counter_read(&conns), nfailed = mt_counter_read(&failed);
    CHECK(got == want, "round %d, %s: %llu network connections, expected %llu", round, when, got, want);
    CHECK(nfailed == 0, "round %d, %s: %llu peers found failed", round, when, nfailed);
}

static void rounds(int job, const char *port)
{
    mt_pvar_open(&conns, "net_connections", MPI_T_PVAR_CLASS_LEVEL);
    mt_counter_open(&failed, "peers_failed");
    /* the job's own connections (none between the ranks of one host) */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    unsigned long long base = mt_counter_read(&conns);
    for (int round = 1; round <= ROUNDS; round++) {
        MPI_Comm a, b, d;
        int rsize;
        dyn_pair_connect(&a, job, port);
        dyn_pair_connect(&b, job, port);
        MPI_OK(MPI_Comm_remote_size(a, &rsize));
        traffic(a, job, 10 * round + 1);
        traffic(b, job, 10 * round + 2);
        expect_conns(base + 2 * (unsigned)rsize, round, "two intercommunicators in use");
        MPI_OK(MPI_Comm_dup(a, &d));
        MPI_OK(MPI_Comm_disconnect(&a));
        expect_conns(base + 2 * (unsigned)rsize, round, "one disconnected, its duplicate in use");
        traffic(d, job, 10 * round + 3);
        MPI_OK(MPI_Comm_disconnect(&d));
        expect_conns(base + (unsigned)rsize, round, "the first and its duplicate disconnected");
        traffic(b, job, 10 * round + 4);
        MPI_OK(MPI_Comm_disconnect(&b));
        expect_conns(base, round, "all disconnected");
    }
    mt_counter_close(&failed);
    mt_counter_close(&conns);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &rank, &np);
    char port[MPI_MAX_PORT_NAME];
    int job = dyn_pair_start(argc, argv, rank, port);
    rounds(job, port);
    dyn_pair_finish(job, rank, port, "dyn reconnect", ROUNDS);
    MPI_Finalize();
    return 0;
}
