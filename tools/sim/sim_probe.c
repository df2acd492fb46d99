/*
 * rdmach-sim-probe: the measurements `rdmach-sim calibrate` fits LogGOPS
 * parameters to, run on 2 ranks of the real library (rdmachrun -n 2; with
 * RDMACH_VNODE_SIZE=1 the pair talks over the network channel). Rank 0
 * prints one line per figure, each the minimum over repetitions (the
 * machine's own noise only ever adds):
 *   post NS          one MPI_Isend of 0 bytes, posting only        -> o
 *   stream B NS      per message of B bytes in a window of 64      -> g (B = 0), G (large B)
 *   pingpong B NS    round trip of B bytes (the fastest single one) -> L, G, O
 *   exchange B NS    per MPI_Sendrecv of B bytes (to 64 KiB) both ways at once,
 *                    blocks of 20 back to back (the fastest block)
 *                    -> duplex, what the exchange costs beyond the engine's
 *   reduce B NS      MPI_Reduce_local of B bytes of doubles (SUM)  -> gamma
 *   copy B NS        memcpy of B bytes                               -> copy (beta)
 *   call NS          MPI_Allreduce of one double on MPI_COMM_SELF    -> call
 *   icall NS         MPI_Iallreduce + MPI_Wait of it on MPI_COMM_SELF -> icall
 *   unexp B NS       malloc and free of B bytes, as the device does for an
 *                    unexpected eager message above 256 B     -> unexp
 *   unexprecv B NS   one MPI_Recv of B bytes (8, 1024) that finds its message
 *                    in the unexpected queue already (rank 1 sent 64 of them,
 *                    then a message rank 0 waited for): the match, the copy
 *                    out and the entry's release (a check of orecv + obusy +
 *                    s O + unexp and the copy; calibrate fits nothing from it)
 *   copyws W NS      memcpy of 64 KiB, each from and to the next 64 KiB of
 *                    two buffers of W bytes in turn (W 64 KiB to 128 MiB:
 *                    the copy's rate as its working set leaves the caches)
 *                    -> l3 in (64 KiB), one (128 MiB)
 *   copyws2 W NS     the same on both ranks at once (the slower rank's)
 *                    -> l3 two (128 MiB)
 *   (--copyws: only these two)
 *   eager B          the largest message sent eagerly to rank 1
 *   callc COLL ALGO B NS  per call of barrier, bcast, allreduce, alltoall on
 *                    the 2 ranks with the smallest message (B bytes; the
 *                    algorithm the library ran), 1000 back to back, the
 *                    slower rank's mean, the best of REPS runs  -> callc
 *                    (shm only)
 *
 * With --algocall [B [COLL]] (2 ranks, shm; COLL alltoall, bcast, allreduce, allgather or reduce_scatter):
 *   callalgo COLL ALGO B NS  per call of every algorithm of COLL (alltoall if
 *                    not given) the library runs on the 2 ranks, forced, of B bytes
 *                    (default 0: the algorithm's own path, its tables,
 *                    batches and temporaries, its messages empty; bruck
 *                    only with B > 0), blocks of 100 back to back, the
 *                    slower rank's mean, the best of 200 blocks
 *                    -> callalgo (sim_callalgo.c)
 *
 * With --handoff (2 ranks; calibrate runs it with both on one core): only
 *   pingpong B NS    round trips of 0 B (-> switch), 16 and 64 KiB (the
 *                    slope: both sides' CPU per byte -> Gsend, net)
 *
 * With --pairs (an even number of ranks):
 *   pairs N B NS     per message of B bytes when ranks 2k stream to 2k+1,
 *                    all N/2 pairs at once (the slowest pair): what a
 *                    message costs the host's CPUs when more ranks than
 *                    cores share them (a check of the model; calibrate
 *                    fits nothing from it)
 *
 * With --ring (any number of ranks; calibrate runs 3 on one core, more ranks
 * than the machine's cores, so the library waits as an oversubscribed rank):
 *   ring N NS        per hop of an empty token ring of N ranks -> handoff
 *                    (shm, 3 ranks), netturn (net, 3 to 8 ranks)
 *   ringb N B NS     the same with a token of B bytes (--ring B)
 *
 * With --shift [B] (any number of ranks; run more ranks than cores):
 *   shift N B MIN_NS MED_NS   per step of the allgather ring's pattern alone:
 *                    every rank at once MPI_Sendrecv B bytes (default 8) to
 *                    its right from its left, N - 1 steps a lap, blocks of
 *                    20 laps after a barrier (the slowest rank's time per
 *                    step; minimum and median over 31 blocks). Against
 *                    `ring N` (one token: every hop waits for the last) it
 *                    shows what a step costs a core when all its ranks wait
 *                    for ranks of the other core that step with them (a
 *                    check of the engine's turns; calibrate fits nothing
 *                    from it); then the `ring N` line of the same ranks
 *
 * With --segsync (any number of ranks; run it with RDMACH_BARRIER=shm, which on
 * a node of more ranks than cores waits as the node segment's phases do,
 * rch_coll_bar_wait_all):
 *   segsync N MIN_NS MED_NS YIELDS SLEEPS FEW_YIELDS FEW_SLEEPS   per
 *                    barrier alone, blocks of CALLS back to back (the
 *                    slowest rank's time per call, minimum and median over
 *                    15 blocks), and per rank and barrier the median block's
 *                    context switches: YIELDS the involuntary ones (a
 *                    sched_yield that ran another rank counts so: the task
 *                    stays runnable), SLEEPS the voluntary ones (sleeps in
 *                    the device); FEW_ the fewest of any block, which is
 *                    what the synchronisation itself costs: another process
 *                    on the core only adds preemptions, and yields to it
 *                    that end in a sleep -> a check of the engine's SEGSYNC
 *                    (calibrate fits nothing from it)
 *
 * With --segrows (2 ranks, a core each): the node segment's data moves of a
 * 2-rank allreduce (allreduce_shmseg.c) alone, on rows of R bytes (1 KiB,
 * 32 KiB: the 64 KiB call's phase) in a shared window, both ranks at once
 * as in the algorithm, each the fastest of REPS x 20:
 *   segrows R DEP_X DEP_L XCOPY LCOPY LCOPY2 XRED LRED LRED2 DEP_O   ns: a deposit
 *                    into my row after the other rank read it, the same into
 *                    a private buffer; a copy out of the other's row just
 *                    written, of mine (which the other has just read), of
 *                    mine again; MPI_Reduce_local (doubles, SUM) of the
 *                    other's row just written, of mine, of mine again;
 *                    a deposit into a row only the other rank reads
 *                    -> segx (32 KiB, per byte): dep DEP_X - DEP_L, own
 *                    LCOPY - LCOPY2, red LRED - LRED2, far DEP_O - DEP_L (sim_segx.c; by
 *                    hand: calibrate does not run it). One command:
 *                    rdmachrun -n 2 rdmach-sim-probe --segrows
 *
 * With --rootsend (more ranks than cores; calibrate's figure needs two
 * runs, with the default rings and with RDMACH_SHM_RING_BUDGET=0):
 *   rootsend B MIN_NS MEDIAN_NS   the root's time per eager send of a
 *                    binomial bcast of B bytes (8, 1024) in the --coll loop
 *                    (blocks of 20 calls after a barrier, 51 blocks): it
 *                    never waits, so its time is its sends'. The 1 KiB
 *                    figure with the default rings less that with rings of
 *                    64 KiB, per byte -> ringcold (the eager record written
 *                    into ring lines the core's caches no longer hold); on
 *                    2 ranks (a core each) -> ringcold1
 *
 * With --collsw COLL ALGO B (any number of ranks; RDMACH_BARRIER=dissemination
 * as for --coll): the --coll loop of that one case (ALGO nbc: the
 * non-blocking one), and how its ranks shared their cores:
 *   collsw COLL ALGO B N MIN_NS MEDIAN_NS   as a --coll line
 *   collsw_rank R invol X vol Y sleeps Z    rank R's median over the blocks,
 *                    per call, of its involuntary context switches (a
 *                    sched_yield that ran another rank counts so: the task
 *                    stays runnable), its voluntary ones and its waits that
 *                    slept in the device (rch_dev_stat.blocks) -> a check of
 *                    the hand-offs and switches `rdmach-sim ... --switches
 *                    on` counts (calibrate fits nothing from it)
 *
 * With --waiters (3 or more ranks, all on one core: RDMACH_BIND=none taskset -c 0):
 *   waiters N FIRST NEXT LAST SLEEPS   ranks 0 and 1 ping-pong empty messages
 *                    (200 round trips after a warm-up) while the N - 2 others
 *                    wait in an MPI_Recv nothing matches till the end, as
 *                    ranks that ended a loop wait in the next call: the
 *                    median round trip of the first 5, of the next 5 and of
 *                    the last 50 (ns), and the waiters' sleeps in the device.
 *                    While they yield, every hop gives each a turn of the
 *                    core; once each has slept (after its
 *                    RDMACH_YIELD_COUNT_OVERSUB yields), none -> endturns
 *                    (the cap; the turn's cost is segswitch's)
 *
 * With --coll (any number of ranks; run it with RDMACH_BARRIER=dissemination):
 *   coll COLL ALGO B MIN_NS MEDIAN_NS CALLS   every algorithm of barrier,
 *                    allreduce, bcast, alltoall, allgather and
 *                    reduce_scatter (MPI_Reduce_scatter_block; B: each
 *                    rank's block), or of the collectives of the list
 *                    --coll COLL,... names, (forced) and the
 *                    non-blocking one (ALGO nbc, waited for at once): blocks of CALLS
 *                    calls back to back, the slowest rank's time per call,
 *                    minimum and median over 15 blocks
 * which `rdmach-sim validate` compares with its predictions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "base/tunables.h"
#include "coll/coll.h"
#include "device/stats.h"

enum { WINDOW = 64, REPS = 15 };

/* Each round trip timed alone (on a shared machine the minimum is the
 * channel's, a mean would be the scheduler's), the sizes interleaved
 * round by round so that a burst of load falls on all of them alike and the
 * fitted slopes are not bent by it; the sizes above 64 KiB in one round of 10. */
/* memcpy of 64 KiB blocks walking two buffers of W bytes (source and
 * destination), for W from one block to 128 MiB (the L3 here is 32 MiB):
 * ns per 64 KiB block, the minimum over REPS passes of at least 64 blocks
 * (a pass over the whole buffers first, so that W in cache is warm and W
 * beyond it is not); < 0 when there is no memory for the buffers. */
enum { WS_BLK = 65536 };
static const size_t copy_ws_sizes[] = { (size_t)WS_BLK, (size_t)1 << 20, (size_t)4 << 20, (size_t)16 << 20,
                                        (size_t)32 << 20, (size_t)64 << 20, (size_t)128 << 20 };
enum { WS_N = sizeof(copy_ws_sizes) / sizeof(copy_ws_sizes[0]) };

static double copy_ws_one(size_t w)
{
    size_t nb = w / WS_BLK, passes = nb < 64 ? 64 / nb : 1;
    char *a = malloc(w), *b = malloc(w);
    if (!a || !b) {
        free(a), free(b);
        return -1;
    }
    memset(a, 1, w), memset(b, 2, w);
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = MPI_Wtime();
        for (size_t p = 0; p < passes; p++)
            for (size_t i = 0; i < nb; i++) {
                memcpy(b + i * WS_BLK, a + i * WS_BLK, WS_BLK);
                __asm__ volatile("" : : "r"(b) : "memory");
            }
        double t = (MPI_Wtime() - t0) / (double)(passes * nb);
        best = t < best ? t : best;
    }
    free(a), free(b);
    return best * 1e9;
}

/* copyws: rank 0 alone (the other rank waits in MPI_Barrier's yield
 * phases); copyws2: both ranks at once, each on its core, the slower
 * rank's figure (two cores copying share the memory's bandwidth beyond the
 * L3, as the ranks of an oversubscribed job do). */
static void copy_ws(int me)
{
    for (size_t k = 0; k < WS_N && me == 0; k++) {
        double ns = copy_ws_one(copy_ws_sizes[k]);
        if (ns >= 0)
            printf("copyws %zu %.1f\n", copy_ws_sizes[k], ns);
    }
    fflush(stdout);
    for (size_t k = 0; k < WS_N; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double ns = copy_ws_one(copy_ws_sizes[k]), worst;
        MPI_Reduce(&ns, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0 && ns >= 0 && worst >= 0)
            printf("copyws2 %zu %.1f\n", copy_ws_sizes[k], worst);
    }
    fflush(stdout);
}

/* Receives that find their messages queued as unexpected: rank 1 sends
 * WINDOW messages of each size then an empty one; rank 0 waits for that
 * (the earlier ones are in its unexpected queue by then: a peer's messages
 * are taken in order) and times the WINDOW receives. */
static void unexp_recv(int me, char *buf)
{
    static const int sz[] = { 8, 1024 };
    for (size_t k = 0; k < sizeof(sz) / sizeof(sz[0]); k++) {
        double best = 1e30;
        for (int r = 0; r < REPS; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 1) {
                for (int i = 0; i < WINDOW; i++)
                    MPI_Send(buf, sz[k], MPI_BYTE, 0, 3, MPI_COMM_WORLD);
                MPI_Send(buf, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
            } else if (me == 0) {
                MPI_Recv(buf, 0, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                double t0 = MPI_Wtime();
                for (int i = 0; i < WINDOW; i++)
                    MPI_Recv(buf, sz[k], MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                double t = (MPI_Wtime() - t0) / WINDOW;
                best = t < best ? t : best;
            }
        }
        if (me == 0)
            printf("unexprecv %d %.1f\n", sz[k], best * 1e9);
    }
}

static void pingpong(int me, char *buf, const int *sizes, int n, double *best)
{
    for (int i = 0; i < n; i++)
        best[i] = 1e30;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int rep = 0; rep < 20 * REPS; rep++)
        for (int i = 0; i < n; i++) {
            if (sizes[i] > 65536 && rep % 10)
                continue;
            double t0 = MPI_Wtime();
            if (me == 0) {
                MPI_Send(buf, sizes[i], MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, sizes[i], MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, sizes[i], MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, sizes[i], MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
            double t = (MPI_Wtime() - t0) * 1e9;
            best[i] = t < best[i] ? t : best[i];
        }
}

/* Blocks of XBLOCK back-to-back MPI_Sendrecv of B bytes between the two
 * ranks, the sizes up to 64 KiB (the validated range) interleaved block by
 * block: per size the time per exchange of the fastest block (the slower
 * rank's). Each block starts after a barrier; back to back, the exchanges
 * keep the ranks in step. */
static void exchange(int me, char *buf, const int *sizes, int n, double *best)
{
    enum { XBLOCK = 20 };
    char *rbuf = buf + 65536;
    for (int i = 0; i < n; i++)
        best[i] = 1e30;
    for (int rep = 0; rep < 10 * REPS; rep++)
        for (int i = 0; i < n; i++) {
            if (sizes[i] > 65536)
                continue;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int k = 0; k < XBLOCK; k++)
                MPI_Sendrecv(buf, sizes[i], MPI_BYTE, 1 - me, 5, rbuf, sizes[i], MPI_BYTE, 1 - me, 5, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
            double t = (MPI_Wtime() - t0) / XBLOCK * 1e9, slower;
            MPI_Allreduce(&t, &slower, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            best[i] = slower < best[i] ? slower : best[i];
        }
}

/* Rank `from` streams a window of messages to `to`, which acknowledges
 * the window; every other rank runs its own pair's stream at the same time
 * (--pairs) or nothing. */
static double stream(int me, int from, int to, char *buf, int bytes, double *post)
{
    MPI_Request rq[WINDOW];
    double best = 1e30, best_post = 1e30;
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (me == from) {
            for (int i = 0; i < WINDOW; i++)
                MPI_Isend(buf, bytes, MPI_BYTE, to, 2, MPI_COMM_WORLD, &rq[i]);
            double tp = (MPI_Wtime() - t0) / WINDOW;
            best_post = tp < best_post ? tp : best_post;
            MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, to, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == to) {
            for (int i = 0; i < WINDOW; i++)
                MPI_Irecv(buf + (size_t)i * (size_t)bytes, bytes, MPI_BYTE, from, 2, MPI_COMM_WORLD, &rq[i]);
            MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, from, 3, MPI_COMM_WORLD);
        }
        double t = (MPI_Wtime() - t0) / WINDOW;
        best = t < best ? t : best;
    }
    if (post)
        *post = best_post * 1e9;
    return best * 1e9;
}

/* --pairs: ranks 2k stream to 2k+1, all pairs at once (more ranks than
 * cores: the pairs share them). Per size, the slowest pair's time per
 * message (each pair's the fastest of REPS windows): what one message of
 * that size costs the host's CPUs when every core has other pairs' work. */
static void pairs(int me, int size, char *buf)
{
    static const int sizes[] = { 0, 1024, 16384, 65536 };
    int peer = me ^ 1;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        double mine = 0, worst;
        if (peer < size)
            mine = stream(me, me & 1 ? peer : me, me & 1 ? me : peer, buf, sizes[i], NULL);
        else
            stream(me, -1, -1, buf, sizes[i], NULL);
        MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0)
            printf("pairs %d %d %.1f\n", size, sizes[i], worst);
    }
    fflush(stdout);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One call; nbc: the non-blocking collective, waited for at once. */
static void one_call(enum rch_coll_id id, int nbc, char *s, char *r, int bytes)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    switch (id) {
    case RCH_COLL_BARRIER: nbc ? MPI_Ibarrier(MPI_COMM_WORLD, &rq) : MPI_Barrier(MPI_COMM_WORLD); break;
    case RCH_COLL_BCAST:
        nbc ? MPI_Ibcast(s, bytes, MPI_BYTE, 0, MPI_COMM_WORLD, &rq) : MPI_Bcast(s, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case RCH_COLL_ALLREDUCE:
        nbc ? MPI_Iallreduce(s, r, bytes / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq)
            : MPI_Allreduce(s, r, bytes / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case RCH_COLL_ALLGATHER:
        nbc ? MPI_Iallgather(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD, &rq)
            : MPI_Allgather(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case RCH_COLL_REDUCE_SCATTER:   /* bytes: each rank's block of the result */
        nbc ? MPI_Ireduce_scatter_block(s, r, bytes / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq)
            : MPI_Reduce_scatter_block(s, r, bytes / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    default:
        nbc ? MPI_Ialltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD, &rq)
            : MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD);
        break;
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

/* One case of --coll: a collective, an algorithm the library applies to
 * it here, a size; its blocks' per-call times. */
struct coll_case {
    enum rch_coll_id id;
    const char *name;          /* "nbc": the non-blocking collective */
    int nbc;
    int bytes;
    double t[32];
};

/* Force the case's algorithm (barrier: RDMACH_BARRIER chose it); 0 if the
 * selection runs it here. */
static int coll_force(struct coll_case *k)
{
    if (k->id == RCH_COLL_BARRIER || k->nbc)
        return 1;
    rch_coll_force(k->id, NULL);
    return rch_coll_force(k->id, k->name) == RDMACH_OK;
}

/* Is name one of the comma-separated list's words? */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *w = list; w; w = strchr(w, ',') ? strchr(w, ',') + 1 : NULL)
        if (!strncmp(w, name, n) && (w[n] == ',' || w[n] == '\0'))
            return 1;
    return 0;
}

/* Blocks of CALLS back-to-back calls, the cases interleaved block by block
 * so that the machine's load falls on all of them alike; a block's figure
 * is the slowest rank's time per call, so the skew of the barrier before
 * it is spread over the calls (rdmach-sim predicts the same loop). */
static int coll_mode(int me, int p, const char *only)
{
    static const enum rch_coll_id ids[] = { RCH_COLL_BARRIER, RCH_COLL_ALLREDUCE, RCH_COLL_BCAST, RCH_COLL_ALLTOALL,
                                            RCH_COLL_ALLGATHER, RCH_COLL_REDUCE_SCATTER };
    static const int sizes[] = { 8, 1024, 65536 };
    enum { CALLS = 20, BLOCKS = 15, MAXCASES = 128 };
    char *s = calloc(1, (size_t)p * 65536), *r = calloc(1, (size_t)p * 65536);
    struct coll_case *cs = calloc(MAXCASES, sizeof(*cs));
    int n = 0;
    if (!s || !r || !cs)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
        enum rch_coll_id id = ids[k];
        if (only && !listed(only, rch_coll_name(id)))
            continue;
        int nalgo = id == RCH_COLL_BARRIER ? 1 : rch_coll_algo_count(id);
        for (int a = 0; a <= nalgo; a++) {     /* the last: the non-blocking one */
            int nbc = a == nalgo;
            const char *name = nbc ? "nbc" : id == RCH_COLL_BARRIER ? "dissemination" : rch_coll_algo_name(id, a);
            for (size_t z = 0; z < (id == RCH_COLL_BARRIER ? 1 : sizeof(sizes) / sizeof(sizes[0])) && n < MAXCASES; z++) {
                struct coll_case *c = &cs[n];
                *c = (struct coll_case){ .id = id, .name = name, .nbc = nbc, .bytes = id == RCH_COLL_BARRIER ? 0 : sizes[z] };
                if (!coll_force(c))
                    break;
                for (int w = 0; w < 3; w++)
                    one_call(id, nbc, s, r, c->bytes);
                if (!nbc && id != RCH_COLL_BARRIER && strcmp(rch_coll_last_algo(id), name) != 0)
                    break;           /* it does not apply here: the selection ran another */
                n++;
            }
            if (id != RCH_COLL_BARRIER)
                rch_coll_force(id, NULL);
        }
    }
    for (int b = 0; b < BLOCKS; b++)
        for (int k = 0; k < n; k++) {
            struct coll_case *c = &cs[k];
            coll_force(c);
            one_call(c->id, c->nbc, s, r, c->bytes);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < CALLS; i++)
                one_call(c->id, c->nbc, s, r, c->bytes);
            double mine = (MPI_Wtime() - t0) / CALLS;
            MPI_Allreduce(&mine, &c->t[b], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (c->id != RCH_COLL_BARRIER)
                rch_coll_force(c->id, NULL);
        }
    for (int k = 0; k < n && me == 0; k++) {
        qsort(cs[k].t, BLOCKS, sizeof(double), cmp_d);
        printf("coll %s %s %d %.0f %.0f %d\n", rch_coll_name(cs[k].id), cs[k].name, cs[k].bytes, cs[k].t[0] * 1e9,
               cs[k].t[BLOCKS / 2] * 1e9, CALLS);
    }
    fflush(stdout);
    free(cs);
    free(s);
    free(r);
    return 0;
}

/* The 2-rank loops of the smallest message whose time, less the engine's
 * prediction of their messages, is each collective's own path (callc). */
static void callc(int me)
{
    static const enum rch_coll_id ids[] = { RCH_COLL_BARRIER, RCH_COLL_BCAST, RCH_COLL_ALLREDUCE, RCH_COLL_ALLTOALL };
    enum { N = 1000 };
    char s[16] = { 0 }, r[16];
    for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
        int bytes = ids[k] == RCH_COLL_BARRIER ? 0 : 8;
        double best = 1e30;
        for (int rep = 0; rep < REPS; rep++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < N; i++)
                one_call(ids[k], 0, s, r, bytes);
            double mine = (MPI_Wtime() - t0) / N, t;
            MPI_Allreduce(&mine, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            best = t < best ? t : best;
        }
        if (me == 0)
            printf("callc %s %s %d %.1f\n", rch_coll_name(ids[k]),
                   ids[k] == RCH_COLL_BARRIER ? "dissemination" : rch_coll_last_algo(ids[k]), bytes, best * 1e9);
    }
}

/* Each algorithm of coll's 2-rank loop of `bytes` (callalgo): bruck
 * returns at 0 bytes before its path (src/coll/alltoall_bruck.c), so it is
 * timed only with a size. */
static void algocall(int me, enum rch_coll_id id, int bytes)
{
    enum { N = 100, BLOCKS = 200 };   /* short blocks, many: on a loaded machine some run with both ranks on cores */
    char s[64] = { 0 }, r[64];   /* 2 blocks of up to 32 bytes */
    for (int a = 0; a < rch_coll_algo_count(id); a++) {
        const char *name = rch_coll_algo_name(id, a);
        if (bytes == 0 && !strcmp(name, "bruck"))
            continue;
        rch_coll_force(id, NULL);
        if (rch_coll_force(id, name) != RDMACH_OK)
            continue;
        one_call(id, 0, s, r, bytes);
        if (strcmp(rch_coll_last_algo(id), name) != 0)
            continue;              /* it does not apply here: the selection ran another */
        double best = 1e30;
        for (int rep = 0; rep < BLOCKS; rep++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < N; i++)
                one_call(id, 0, s, r, bytes);
            double mine = (MPI_Wtime() - t0) / N, t;
            MPI_Allreduce(&mine, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            best = t < best ? t : best;
        }
        if (me == 0)
            printf("callalgo %s %s %d %.1f\n", rch_coll_name(id), name, bytes, best * 1e9);
    }
    rch_coll_force(id, NULL);
    fflush(stdout);
}

/* A token of `bytes` round the ranks (empty: the hand-off alone): per hop,
 * the fastest of REPS rounds of LAPS laps (on one core every hop hands the
 * core to the next rank). */
static void ring(int me, int size, int bytes)
{
    enum { LAPS = 50 };
    char *b = calloc(1, (size_t)bytes + 1);
    double best = 1e30;
    if (!b)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < LAPS; i++) {
            if (me != 0)
                MPI_Recv(b, bytes, MPI_CHAR, me - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, bytes, MPI_CHAR, (me + 1) % size, 0, MPI_COMM_WORLD);
            if (me == 0)
                MPI_Recv(b, bytes, MPI_CHAR, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        double t = (MPI_Wtime() - t0) / LAPS / size;
        best = t < best ? t : best;
    }
    if (me == 0 && bytes == 0)
        printf("ring %d %.1f\n", size, best * 1e9);
    else if (me == 0)
        printf("ringb %d %d %.1f\n", size, bytes, best * 1e9);
    free(b);
}

/* --shift: every rank passes B bytes right at once, lap after lap, as
 * allgatherv_ring.c's steps do (the data's place aside): per step, the
 * slowest rank's block time, minimum and median over the blocks. */
static void shift(int me, int size, int bytes)
{
    enum { LAPS = 20, BLOCKS = 31 };
    /* both buffers on cache lines of their own, as a program's are */
    size_t line = ((size_t)bytes + 63) & ~(size_t)63;
    char *sb = aligned_alloc(64, 2 * line + 64), *rb = sb ? sb + line : NULL;
    if (sb)
        memset(sb, 0, 2 * line + 64);
    double t[BLOCKS];
    int left = (me - 1 + size) % size, right = (me + 1) % size;
    if (!sb)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int k = -1; k < BLOCKS; k++) {    /* block -1 warms the rings up */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < LAPS * (size - 1); i++)
            MPI_Sendrecv(sb, bytes, MPI_CHAR, right, 0, rb, bytes, MPI_CHAR, left, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        double mine = (MPI_Wtime() - t0) / LAPS / (size - 1), all;
        MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (k >= 0)
            t[k] = all;
    }
    qsort(t, BLOCKS, sizeof(t[0]), cmp_d);
    if (me == 0)
        printf("shift %d %d %.1f %.1f\n", size, bytes, t[0] * 1e9, t[BLOCKS / 2] * 1e9);
    fflush(stdout);
    free(sb);
}

/* --segsync: the node's all-arrive synchronisation alone (RDMACH_BARRIER=shm,
 * oversubscribed: rch_coll_bar_wait_all, the node segment's wait), timed as
 * --coll times a call, with the context switches each rank's loop made
 * (getrusage: how many hand-offs and sleeps a synchronisation costs). */
static void segsync(int me, int p)
{
    enum { CALLS = 20, BLOCKS = 15 };
    double t[BLOCKS], yl[BLOCKS], sl[BLOCKS];
    for (int w = 0; w < 3; w++)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b < BLOCKS; b++) {
        struct rusage u0, u1;
        MPI_Barrier(MPI_COMM_WORLD);
        getrusage(RUSAGE_SELF, &u0);
        double t0 = MPI_Wtime();
        for (int i = 0; i < CALLS; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        double mine[3] = { (MPI_Wtime() - t0) / CALLS };
        getrusage(RUSAGE_SELF, &u1);
        mine[1] = (double)(u1.ru_nivcsw - u0.ru_nivcsw) / CALLS;
        mine[2] = (double)(u1.ru_nvcsw - u0.ru_nvcsw) / CALLS;
        double sum[3];
        MPI_Allreduce(&mine[0], &t[b], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(mine, sum, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        yl[b] = sum[1] / p;
        sl[b] = sum[2] / p;
    }
    if (me == 0) {
        /* the switches of the block whose time is the median */
        int order[BLOCKS];
        for (int b = 0; b < BLOCKS; b++)
            order[b] = b;
        for (int i = 1; i < BLOCKS; i++)
            for (int j = i; j > 0 && t[order[j - 1]] > t[order[j]]; j--) {
                int x = order[j];
                order[j] = order[j - 1];
                order[j - 1] = x;
            }
        int m = order[BLOCKS / 2];
        double fy = yl[0], fs = sl[0];
        for (int b = 1; b < BLOCKS; b++) {
            fy = yl[b] < fy ? yl[b] : fy;
            fs = sl[b] < fs ? sl[b] : fs;
        }
        printf("segsync %d %.0f %.0f %.2f %.2f %.2f %.2f\n", p, t[order[0]] * 1e9, t[m] * 1e9, yl[m], sl[m], fy, fs);
    }
    fflush(stdout);
}

/* --collsw COLL ALGO B: the --coll loop of one case, with each rank's
 * context switches and device sleeps per call (the hand-offs between the
 * ranks of a shared core, which the times alone do not show). */
static void collsw(int me, int p, const char *coll, const char *algo, int bytes)
{
    enum { CALLS = 20, BLOCKS = 15 };
    char *s = calloc(1, (size_t)p * 65536), *r = calloc(1, (size_t)p * 65536);
    struct coll_case c = { .id = rch_coll_id_of(coll), .name = algo, .nbc = !strcmp(algo, "nbc"), .bytes = bytes };
    double t[BLOCKS], sw[BLOCKS][3];
    if (!s || !r || !coll_force(&c))
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int w = 0; w < 3; w++)
        one_call(c.id, c.nbc, s, r, bytes);
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    for (int b = 0; b < BLOCKS; b++) {
        struct rusage u0, u1;
        MPI_Barrier(MPI_COMM_WORLD);
        uint64_t s0 = rch_dev_stat.blocks;
        getrusage(RUSAGE_SELF, &u0);
        double t0 = MPI_Wtime();
        for (int i = 0; i < CALLS; i++)
            one_call(c.id, c.nbc, s, r, bytes);
        double mine = (MPI_Wtime() - t0) / CALLS;
        getrusage(RUSAGE_SELF, &u1);
        sw[b][0] = (double)(u1.ru_nivcsw - u0.ru_nivcsw) / CALLS;
        sw[b][1] = (double)(u1.ru_nvcsw - u0.ru_nvcsw) / CALLS;
        sw[b][2] = (double)(rch_dev_stat.blocks - s0) / CALLS;
        MPI_Allreduce(&mine, &t[b], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double med[3];
    for (int k = 0; k < 3; k++) {
        double v[BLOCKS];
        for (int b = 0; b < BLOCKS; b++)
            v[b] = sw[b][k];
        qsort(v, BLOCKS, sizeof(double), cmp_d);
        med[k] = v[BLOCKS / 2];
    }
    double *all = me == 0 ? malloc(sizeof(double) * 3 * (size_t)p) : NULL;
    int pid = (int)getpid(), *pids = me == 0 ? malloc(sizeof(int) * (size_t)p) : NULL;
    MPI_Gather(med, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(&pid, 1, MPI_INT, pids, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0) {
        qsort(t, BLOCKS, sizeof(double), cmp_d);
        printf("collsw %s %s %d %d %.0f %.0f\n", coll, algo, bytes, p, t[0] * 1e9, t[BLOCKS / 2] * 1e9);
        for (int q = 0; q < p; q++)
            printf("collsw_rank %d invol %.2f vol %.2f sleeps %.2f\n", q, all[3 * q], all[3 * q + 1], all[3 * q + 2]);
        /* for a scheduler trace of the run (rdmach-sim turns) */
        for (int q = 0; q < p; q++)
            printf("collsw_pid %d %d\n", q, pids[q]);
        printf("collsw_window %ld.%09ld %ld.%09ld\n", (long)w0.tv_sec, w0.tv_nsec, (long)w1.tv_sec, w1.tv_nsec);
    }
    fflush(stdout);
    free(pids);
    free(all);
    free(s);
    free(r);
}

/* One round trip of an empty message between ranks 0 and 1. */
static void pingpong_empty(int me, char *b)
{
    if (me == 0) {
        MPI_Send(b, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(b, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(b, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(b, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
}

/* --waiters (run on one core: ranks 0 and 1 and N - 2 waiters): after a
 * warm-up, ranks 0 and 1 ping-pong empty messages, each round trip timed,
 * while the others wait in an MPI_Recv that nothing matches until the end
 * (as ranks that ended a loop wait in the next call). Prints the round
 * trips' median over the first 5, the 5 after them, and the last 50 of
 * 200, and the waiters' sleeps in the device: a waiter takes turns of the
 * core while it yields and none once it sleeps. */
static void waiters(int me, int p)
{
    enum { RT = 200 };
    static double t[RT];
    char b = 0;
    for (int i = 0; i < 20 && me < 2; i++)
        pingpong_empty(me, &b);
    MPI_Barrier(MPI_COMM_WORLD);
    double mine = 0, sum = 0;
    if (me >= 2) {
        uint64_t s0 = rch_dev_stat.blocks;
        MPI_Recv(&b, 1, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        mine = (double)(rch_dev_stat.blocks - s0);
    } else {
        for (int i = 0; i < RT; i++) {
            double t0 = MPI_Wtime();
            pingpong_empty(me, &b);
            t[i] = MPI_Wtime() - t0;
        }
        for (int q = 2; q < p && me == 0; q++)
            MPI_Send(&b, 1, MPI_BYTE, q, 7, MPI_COMM_WORLD);
    }
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        qsort(t, 5, sizeof(double), cmp_d);
        qsort(t + 5, 5, sizeof(double), cmp_d);
        qsort(t + RT - 50, 50, sizeof(double), cmp_d);
        printf("waiters %d %.0f %.0f %.0f %.0f\n", p, t[2] * 1e9, t[7] * 1e9, t[RT - 25] * 1e9, sum);
    }
    fflush(stdout);
}

/* The fastest of the ranks' times of one step (both ranks make it at once). */
static double timed_max(double t0, double *best)
{
    double mine = MPI_Wtime() - t0, t;
    MPI_Allreduce(&mine, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *best = t < *best ? t : *best;
    return t;
}

/* --rootsend: the root's time per send in the --coll loop of binomial
 * bcasts (it never waits at eager sizes). */
static void rootsend(int me, int size)
{
    enum { CALLS = 20, BLOCKS = 51 };
    static const int sizes[] = { 8, 1024 };
    char *b = calloc(1, 1024);
    int sends = 0;
    if (!b || rch_coll_force(RCH_COLL_BCAST, "binomial") != RDMACH_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
    while ((1 << sends) < size)
        sends++;                       /* the root sends to rel 2^k for every 2^k < size */
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        double t[BLOCKS];
        for (int w = 0; w < 3; w++)
            MPI_Bcast(b, sizes[k], MPI_BYTE, 0, MPI_COMM_WORLD);
        for (int blk = 0; blk < BLOCKS; blk++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < CALLS; i++)
                MPI_Bcast(b, sizes[k], MPI_BYTE, 0, MPI_COMM_WORLD);
            t[blk] = (MPI_Wtime() - t0) / (CALLS * sends);
        }
        if (me == 0) {
            qsort(t, BLOCKS, sizeof(double), cmp_d);
            printf("rootsend %d %.1f %.1f\n", sizes[k], t[0] * 1e9, t[BLOCKS / 2] * 1e9);
        }
    }
    rch_coll_force(RCH_COLL_BCAST, NULL);
    fflush(stdout);
    free(b);
}

/* --segrows: see the head of the file. */
static void segrows(int me)
{
    static const size_t rs[] = { 1024, 32768 };
    enum { N = 9 };            /* the figures, in the order printed */
    for (size_t k = 0; k < sizeof(rs) / sizeof(rs[0]); k++) {
        size_t R = rs[k];
        unsigned char *mine, *mine2, *src = calloc(1, R), *dst = calloc(1, R), *priv = calloc(1, R);
        double *acc = calloc(1, R), best[N];
        MPI_Win win, win2;
        MPI_Aint sz;
        int du;
        if (!src || !dst || !priv || !acc ||
            MPI_Win_allocate_shared((MPI_Aint)R, 64, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win) != MPI_SUCCESS ||
            MPI_Win_allocate_shared((MPI_Aint)R, 64, MPI_INFO_NULL, MPI_COMM_WORLD, &mine2, &win2) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        unsigned char *other, *other2;
        MPI_Win_shared_query(win, 1 - me, &sz, &du, &other);
        MPI_Win_shared_query(win2, 1 - me, &sz, &du, &other2);
        for (int i = 0; i < N; i++)
            best[i] = 1e30;
        for (int r = 0; r < 20 * REPS; r++) {
            double t0;
            MPI_Barrier(MPI_COMM_WORLD);       /* the other read my row last (the step before) */
            t0 = MPI_Wtime();
            memcpy(mine, src, R);
            timed_max(t0, &best[0]);
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            memcpy(dst, other, R);
            __asm__ volatile("" : : "r"(dst) : "memory");
            timed_max(t0, &best[2]);
            t0 = MPI_Wtime();
            memcpy(dst, mine, R);
            __asm__ volatile("" : : "r"(dst) : "memory");
            timed_max(t0, &best[3]);
            t0 = MPI_Wtime();
            memcpy(dst, mine, R);
            __asm__ volatile("" : : "r"(dst) : "memory");
            timed_max(t0, &best[4]);
            MPI_Barrier(MPI_COMM_WORLD);
            memcpy(mine, src, R);              /* written again: the other reduces it fresh */
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            MPI_Reduce_local(other, acc, (int)(R / 8), MPI_DOUBLE, MPI_SUM);
            timed_max(t0, &best[5]);
            t0 = MPI_Wtime();
            MPI_Reduce_local(mine, acc, (int)(R / 8), MPI_DOUBLE, MPI_SUM);
            timed_max(t0, &best[6]);
            t0 = MPI_Wtime();
            MPI_Reduce_local(mine, acc, (int)(R / 8), MPI_DOUBLE, MPI_SUM);
            timed_max(t0, &best[7]);
            t0 = MPI_Wtime();
            memcpy(priv, src, R);
            __asm__ volatile("" : : "r"(priv) : "memory");
            timed_max(t0, &best[1]);
            /* a row only the other rank reads (the bcast's root) */
            memcpy(dst, other2, R);
            __asm__ volatile("" : : "r"(dst) : "memory");
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            memcpy(mine2, src, R);
            timed_max(t0, &best[8]);
        }
        if (me == 0)
        {
            printf("segrows %zu", R);
            for (int i = 0; i < N; i++)
                printf(" %.1f", best[i] * 1e9);
            printf("\n");
        }
        MPI_Win_free(&win);
        MPI_Win_free(&win2);
        free(src), free(dst), free(priv), free(acc);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int me, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "--coll")) {
        int rc = coll_mode(me, size, argc > 2 ? argv[2] : NULL);
        MPI_Finalize();
        return rc;
    }
    if (argc > 1 && !strcmp(argv[1], "--waiters") && size > 2) {
        waiters(me, size);
        MPI_Finalize();
        return 0;
    }
    if (argc > 4 && !strcmp(argv[1], "--collsw")) {
        collsw(me, size, argv[2], argv[3], atoi(argv[4]));
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--rootsend") && size > 1) {
        rootsend(me, size);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--copyws")) {
        copy_ws(me);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--algocall") && size == 2) {
        int b = argc > 2 ? atoi(argv[2]) : 0;
        /* alltoall, or the collective named after the size */
        enum rch_coll_id id = argc > 3 ? rch_coll_id_of(argv[3]) : RCH_COLL_ALLTOALL;
        if (id == RCH_COLL_ALLTOALL || id == RCH_COLL_BCAST || id == RCH_COLL_ALLREDUCE || id == RCH_COLL_ALLGATHER ||
            id == RCH_COLL_REDUCE_SCATTER)
            algocall(me, id, b < 0 ? 0 : b > 32 ? 32 : b);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--segrows") && size == 2) {
        segrows(me);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--segsync")) {
        segsync(me, size);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--pairs")) {
        char *buf = calloc(WINDOW, 65536);
        if (!buf)
            MPI_Abort(MPI_COMM_WORLD, 1);
        pairs(me, size, buf);     /* the first size also makes the connections */
        free(buf);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--shift") && size > 1) {
        int b = argc > 2 ? atoi(argv[2]) : 8;
        shift(me, size, b < 0 ? 0 : b);
        ring(me, size, 0);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--ring") && size > 1) {
        ring(me, size, argc > 2 ? atoi(argv[2]) : 0);
        MPI_Finalize();
        return 0;
    }
    if (size != 2) {
        if (me == 0)
            fprintf(stderr, "rdmach-sim-probe: run it on 2 ranks (rdmachrun -n 2)\n");
        MPI_Finalize();
        return 2;
    }
    static const int sizes[] = { 0, 8, 64, 1024, 4096, 16384, 65536, 262144, 1048576 };
    enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]) };
    if (argc > 1 && !strcmp(argv[1], "--handoff")) {
        /* on one core the two ranks' CPU work adds up: the slope over the
         * sizes is both sides' CPU per byte (the onload channel's copies) */
        static const int hsizes[] = { 0, 16384, 65536 };
        enum { NH = sizeof(hsizes) / sizeof(hsizes[0]) };
        char *hb = calloc(1, 65536);
        double rtt[NH];
        if (!hb)
            MPI_Abort(MPI_COMM_WORLD, 1);
        pingpong(me, hb, hsizes, NH, rtt);
        for (int i = 0; i < NH && me == 0; i++)
            printf("pingpong %d %.1f\n", hsizes[i], rtt[i]);
        free(hb);
        MPI_Finalize();
        return 0;
    }
    size_t big = (size_t)WINDOW * 1048576;
    char *buf = calloc(1, big);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double post, best[NSIZES];
    stream(me, 0, 1, buf, 0, &post);               /* warm-up: connections */
    double s0 = stream(me, 0, 1, buf, 0, &post);
    if (me == 0)
        printf("post %.1f\nstream 0 %.1f\n", post, s0);
    for (int i = 1; i < NSIZES; i++) {
        double s = stream(me, 0, 1, buf, sizes[i], NULL);
        if (me == 0)
            printf("stream %d %.1f\n", sizes[i], s);
    }
    pingpong(me, buf, sizes, NSIZES, best);
    for (int i = 0; i < NSIZES && me == 0; i++)
        printf("pingpong %d %.1f\n", sizes[i], best[i]);
    exchange(me, buf, sizes, NSIZES, best);
    for (int i = 0; i < NSIZES && me == 0; i++)
        if (sizes[i] <= 65536)
            printf("exchange %d %.1f\n", sizes[i], best[i]);
    unexp_recv(me, buf);
    if (me == 0) {
        int n = 8192;              /* 64 KiB: the sizes validated */
        double *a = (double *)buf, *b = a + n, best = 1e30;
        for (int r = 0; r < REPS; r++) {
            double t0 = MPI_Wtime();
            MPI_Reduce_local(a, b, n, MPI_DOUBLE, MPI_SUM);
            double t = MPI_Wtime() - t0;
            best = t < best ? t : best;
        }
        printf("reduce %zu %.1f\n", (size_t)n * sizeof(double), best * 1e9);
        best = 1e30;
        for (int r = 0; r < REPS; r++) {
            double t0 = MPI_Wtime();
            memcpy(b, a, (size_t)n * sizeof(double));
            __asm__ volatile("" : : "r"(b) : "memory");     /* the copy is used */
            double t = MPI_Wtime() - t0;
            best = t < best ? t : best;
        }
        printf("copy %zu %.1f\n", (size_t)n * sizeof(double), best * 1e9);
        /* the library's path of a collective call with no message: the
         * binding, its checks and the dispatch (a mean over a run of calls,
         * the best of REPS runs) */
        best = 1e30;
        for (int r = 0; r < REPS; r++) {
            double x = 1, y, t0 = MPI_Wtime();
            for (int i = 0; i < 1000; i++)
                MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
            double t = (MPI_Wtime() - t0) / 1000;
            best = t < best ? t : best;
        }
        printf("call %.1f\n", best * 1e9);
        /* the non-blocking path: its schedule and request, and the wait */
        best = 1e30;
        for (int r = 0; r < REPS; r++) {
            double x = 1, y, t0 = MPI_Wtime();
            for (int i = 0; i < 1000; i++) {
                MPI_Request rq;
                MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            }
            double t = (MPI_Wtime() - t0) / 1000;
            best = t < best ? t : best;
        }
        printf("icall %.1f\n", best * 1e9);
        /* the device's buffer of an unexpected eager message beyond its
         * inline 256 B (src/device/req.c rch_dev_unexp_alloc/release): a
         * malloc on arrival and a free at the match, one message after the
         * other (the data's copies are `copy`'s); 1 KiB, a validated size */
        best = 1e30;
        for (int r = 0; r < REPS; r++) {
            double t0 = MPI_Wtime();
            for (int i = 0; i < 1000; i++) {
                void *volatile u = malloc(1024);
                free(u);
            }
            double t = (MPI_Wtime() - t0) / 1000;
            best = t < best ? t : best;
        }
        printf("unexp 1024 %.1f\n", best * 1e9);
        /* the library's eager limit towards rank 1 (shm: its tunable; the
         * network channel's 64 KiB slots over tcp, docs of RDMACH_NET_SLOT_SIZE) */
        printf("eager %zu\n", rch_tun.vnode_size == 1 ? (size_t)65536 : rch_tun.shm_eager_max);
        fflush(stdout);
    }
    copy_ws(me);
    if (rch_tun.vnode_size != 1)
        callc(me);
    fflush(stdout);
    free(buf);
    MPI_Finalize();
    return 0;
}
