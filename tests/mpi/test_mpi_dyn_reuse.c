/*
 * An accept/disconnect loop runs for ever: a detached process's slot (its
 * number in the device and the channels, src/device/dyn.c) takes a later
 * process once nothing refers to it. Two jobs started separately
 * (tests/mpi/dyn_pair.sh): "server" opens a port and prints "PORT <name>",
 * "client <port>" connects; the test runs them with RDMACH_DYN_MAX=8, so
 * ROUNDS rounds of 2 ranks (4 in every fourth round, two communicators at
 * once) go many times round the table. Each round, on both sides:
 *   - every rank sends every remote rank a value (and in every fifth round
 *     BIG bytes, rendezvous), checked against what the sender's (job, rank,
 *     round) gives;
 *   - the MPI_T levels dyn_processes (processes of other jobs connected) and
 *     net_connections are the base plus the remote processes attached, and
 *     after the disconnects back to the base; peers_failed stays 0;
 *   - a late message: every rank sends every remote rank two messages of
 *     tag LATE, this round's value then a stale one, receives only the
 *     first, and disconnects at once. The stale one may arrive after the
 *     detach (the channel drops it) or sit unexpected for the old
 *     communicator; either way the next round's receive of tag LATE, on a
 *     communicator that gets the same slot and likely the same context id,
 *     must see the next round's value, never the stale one.
 * Without the reuse the third round fails ("more than 8 processes of other
 * jobs connected"); without the unexpected messages' purge the stale
 * values are received.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dyn_pair.h"

#define ROUNDS 40
#define BIG (256 << 10)   /* above every eager limit */
#define LATE 7

static int rank, np;
static struct mt_counter procs, conns, failed;

static int value(int job, int from, int to, int round)
{
    return 100000 * round + 1000 * job + 10 * from + to;
}

static void big(MPI_Comm ic, int job, int round, int rsize)
{
    size_t n = BIG / sizeof(uint32_t);
    uint32_t *out = malloc((size_t)rsize * BIG), *in = malloc((size_t)rsize * BIG);
    MPI_Request *rq = malloc(2 * (size_t)rsize * sizeof(*rq));
    CHECK(out && in && rq, "out of memory");
    for (int j = 0; j < rsize; j++) {
        for (size_t i = 0; i < n; i++)
            out[(size_t)j * n + i] = dyn_pair_word(job, rank, j, round, i);
        MPI_OK(MPI_Irecv(in + (size_t)j * n, (int)n, MPI_UINT32_T, j, 2, ic, &rq[2 * j]));
        MPI_OK(MPI_Isend(out + (size_t)j * n, (int)n, MPI_UINT32_T, j, 2, ic, &rq[2 * j + 1]));
    }
    MPI_OK(MPI_Waitall(2 * rsize, rq, MPI_STATUSES_IGNORE));
    for (int j = 0; j < rsize; j++)
        for (size_t i = 0; i < n; i++)
            CHECK(in[(size_t)j * n + i] == dyn_pair_word(1 - job, j, rank, round, i),
                  "round %d: word %zu of remote rank %d's bytes is %08x, expected %08x", round, i, j,
                  in[(size_t)j * n + i], dyn_pair_word(1 - job, j, rank, round, i));
    free(out);
    free(in);
    free(rq);
}

/* The round's traffic on ic, then the late pair of messages (the receive
 * of the first checks that no earlier round's stale one came instead). */
static void traffic(MPI_Comm ic, int job, int round)
{
    int rsize;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    for (int j = 0; j < rsize; j++) {
        int v = value(job, rank, j, round), got = -1;
        MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, j, 1, &got, 1, MPI_INT, j, 1, ic, MPI_STATUS_IGNORE));
        CHECK(got == value(1 - job, j, rank, round), "round %d: remote rank %d sent %d, expected %d", round, j,
              got, value(1 - job, j, rank, round));
    }
    if (round % 5 == 0)
        big(ic, job, round, rsize);
    for (int j = 0; j < rsize; j++) {
        int fresh = value(job, rank, j, round), stale = -fresh;
        MPI_OK(MPI_Send(&fresh, 1, MPI_INT, j, LATE, ic));
        MPI_OK(MPI_Send(&stale, 1, MPI_INT, j, LATE, ic));
    }
    for (int j = 0; j < rsize; j++) {
        int got = 0;
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, j, LATE, ic, MPI_STATUS_IGNORE));
        CHECK(got == value(1 - job, j, rank, round), "round %d: remote rank %d's late message is %d, expected %d%s",
              round, j, got, value(1 - job, j, rank, round),
              got < 0 ? " (the stale one of an earlier connection)" : "");
    }
}

static void expect(unsigned long long nprocs, unsigned long long nconns, int round, const char *when)
{
    unsigned long long p = mt_counter_read(&procs), c = mt_counter_read(&conns), f = mt_counter_read(&failed);
    CHECK(p == nprocs, "round %d, %s: %llu processes of other jobs connected, expected %llu", round, when, p, nprocs);
    CHECK(c == nconns, "round %d, %s: %llu network connections, expected %llu", round, when, c, nconns);
    CHECK(f == 0, "round %d, %s: %llu peers found failed", round, when, f);
}

static void rounds(int job, const char *port)
{
    const char *dn = getenv("RDMACH_DYN_NET");   /* 0: the sock channel, no network connections */
    int net = !(dn && strcmp(dn, "0") == 0);
    mt_pvar_open(&procs, "dyn_processes", MPI_T_PVAR_CLASS_LEVEL);
    mt_pvar_open(&conns, "net_connections", MPI_T_PVAR_CLASS_LEVEL);
    mt_counter_open(&failed, "peers_failed");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    unsigned long long base = mt_counter_read(&conns);
    for (int round = 1; round <= ROUNDS; round++) {
        MPI_Comm ic[2];
        int n = round % 4 == 0 ? 2 : 1, rsize;
        for (int k = 0; k < n; k++)
            dyn_pair_connect(&ic[k], job, port);
        MPI_OK(MPI_Comm_remote_size(ic[0], &rsize));
        for (int k = 0; k < n; k++)
            traffic(ic[k], job, round);
        unsigned long long attached = (unsigned long long)n * (unsigned)rsize;
        expect(attached, base + (net ? attached : 0), round, "connected");
        for (int k = 0; k < n; k++)
            MPI_OK(MPI_Comm_disconnect(&ic[k]));
        expect(0, base, round, "disconnected");
    }
    mt_counter_close(&failed);
    mt_counter_close(&conns);
    mt_counter_close(&procs);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &rank, &np);
    char port[MPI_MAX_PORT_NAME];
    int job = dyn_pair_start(argc, argv, rank, port);
    rounds(job, port);
    dyn_pair_finish(job, rank, port, "dyn reuse", ROUNDS);
    MPI_Finalize();
    return 0;
}
