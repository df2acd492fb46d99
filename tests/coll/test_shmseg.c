/*
 * The shmseg collectives (alltoall_shmseg.c, allreduce_shmseg.c over
 * coll_nodeseg.c) on the thread-based fake device: every rank is a thread
 * with a communicator view that has collective state, so the node segment
 * is a real /dev/shm segment mapped once per thread.
 *
 * Checked against a naive reference: communicator sizes 1..9 (2 ranks sync
 * one by one, more than the machine's cores all at once), block sizes
 * from 0 bytes to several segment slots (chunked phases), in place; many
 * consecutive calls with data that changes every call and ranks that stop
 * at random points (a broken double buffer lets a fast rank overwrite a
 * row a slow one has not read yet); allreduce in rank order (a
 * non-commutative op) and bit-identical floating point on every rank;
 * calls that differ between ranks reported on every rank, after which the
 * communicator still works; and layouts shmseg must refuse (several nodes,
 * a view without state) falling back to another algorithm.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/tunables.h"
#include "coll/coll.h"
#include "coll/nodeseg.h"
#include "fake_dev.h"

#define MAXP 9

static const int worlds[MAXP] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };

struct run {
    int p;
    size_t bytes[MAXP];        /* alltoall block bytes per rank (differ: mismatch test) */
    size_t count;              /* allreduce elements */
    int in_place;
    int calls;                 /* consecutive calls */
    int alt;                   /* allreduce: every other call of 3 elements */
    int jitter;                /* ranks stop at random points */
    int nnodes;                /* 0: one node; else node_of = rank % nnodes */
    int no_state;              /* a view without collective state */
    char err[MAXP][320];
    const char *ran[MAXP];     /* algorithm of the last call */
    rdmach_status_t st[MAXP];  /* status of the first call (mismatch test) */
    rdmach_status_t after[MAXP];   /* status of a correct call after it */
    double fsum[MAXP];         /* allreduce of doubles: each rank's first element */
};

static void setup(void)
{
    memset(&rch_tun, 0, sizeof(rch_tun));
    rch_tun.spin_count = 200;
    rch_tun.yield_count = 20;
    rch_tun.barrier_yield = 4;
}

static void teardown(void)
{
    rch_coll_force(RCH_COLL_ALLTOALL, "auto");
    rch_coll_force(RCH_COLL_ALLREDUCE, "auto");
}

TestSuite(shmseg, .init = setup, .fini = teardown);

static unsigned char pat(int from, int to, size_t i, int call)
{
    uint32_t x = (uint32_t)from * 2654435761u + (uint32_t)to * 40503u + (uint32_t)i * 977u +
                 (uint32_t)call * 7919u + 7;
    x ^= x >> 15;
    return (unsigned char)(x * 2246822519u >> 24);
}

/* A pause of 0..~50 us at random points of some calls. */
static void jitter(unsigned *seed)
{
    unsigned r = rand_r(seed) % 16;
    if (r == 0) {
        struct timespec ts = { 0, (long)(rand_r(seed) % 50) * 1000 };
        nanosleep(&ts, NULL);
    } else if (r == 1) {
        sched_yield();
    }
}

static void make_view(struct run *t, int world, struct rch_coll_comm *c, int *node_of)
{
    *c = (struct rch_coll_comm){ .rank = world, .size = t->p, .world_of = worlds, .ctx = 51 };
    if (t->nnodes) {
        for (int r = 0; r < t->p; r++)
            node_of[r] = r % t->nnodes;
        c->nnodes = t->nnodes;
        c->max_ppn = (t->p + t->nnodes - 1) / t->nnodes;
        c->node_of = node_of;
    }
}

/* ---- alltoall ---- */

static void a2a_body(int me, void *arg)
{
    struct run *t = arg;
    struct rch_coll_comm c;
    int node_of[MAXP], p = t->p;
    unsigned seed = 1234u + (unsigned)me;
    make_view(t, me, &c, node_of);
    if (!t->no_state && rch_coll_comm_init(&c) != RDMACH_OK) {
        snprintf(t->err[me], sizeof(t->err[me]), "comm init: %s", rdmach_last_error());
        return;
    }
    size_t n = t->bytes[me];
    unsigned char *s = malloc(p * n + 1), *r = malloc(p * n + 1);
    for (int call = 0; call < t->calls && !t->err[me][0]; call++) {
        unsigned char *src = t->in_place ? r : s;
        for (int q = 0; q < p; q++)
            for (size_t i = 0; i < n; i++)
                src[q * n + i] = pat(me, q, i, call);
        if (!t->in_place)
            memset(r, 0xee, p * n);
        if (t->jitter)
            jitter(&seed);
        rdmach_status_t st = rch_coll_alltoall(&c, t->in_place ? RCH_COLL_IN_PLACE : s, r, n);
        t->ran[me] = rch_coll_last_algo(RCH_COLL_ALLTOALL);
        if (call == 0)
            t->st[me] = st;
        if (st != RDMACH_OK) {
            snprintf(t->err[me], sizeof(t->err[me]), "call %d: %s", call, rdmach_last_error());
            break;
        }
        if (t->jitter)
            jitter(&seed);
        for (int q = 0; q < p && !t->err[me][0]; q++)
            for (size_t i = 0; i < n; i++)
                if (r[q * n + i] != pat(q, me, i, call)) {
                    snprintf(t->err[me], sizeof(t->err[me]), "call %d: byte %zu from rank %d is "
                             "%02x, expected %02x", call, i, q, r[q * n + i], pat(q, me, i, call));
                    break;
                }
    }
    free(s);
    free(r);
    if (!t->no_state)
        rch_coll_comm_free(&c);
}

static void run_a2a(struct run *t)
{
    int rc = fake_dev_run(t->p, 4096, a2a_body, t);
    cr_assert_eq(rc, 0, "alltoall p=%d: deadlock", t->p);
    for (int r = 0; r < t->p; r++)
        cr_assert_eq(t->err[r][0], 0, "alltoall p=%d bytes=%zu in_place=%d rank %d: %s", t->p,
                     t->bytes[r], t->in_place, r, t->err[r]);
    cr_assert_eq(fake_dev_leftovers(), 0, "alltoall p=%d left messages queued", t->p);
}

Test(shmseg, alltoall_matches_reference_every_size_and_in_place)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLTOALL, "shmseg"), RDMACH_OK);
    for (int p = 1; p <= MAXP; p++) {
        size_t slot = rch_coll_nodeseg_slot(p);
        /* after the first phase (a slot) the large area's chunks */
        size_t big = rch_coll_nodeseg_astride_size(p) / (size_t)p / 64 * 64;
        size_t sizes[] = { 0, 1, 8, 13, slot - 1, slot, slot + 5, 3 * slot + 7, slot + big,
                           slot + 2 * big + 9 };
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
            for (int ip = 0; ip < 2; ip++) {
                struct run t = { .p = p, .in_place = ip, .calls = 3 };
                for (int r = 0; r < p; r++)
                    t.bytes[r] = sizes[k];
                run_a2a(&t);
                for (int r = 0; r < p; r++)
                    cr_assert_str_eq(t.ran[r], "shmseg", "p=%d: ran %s", p, t.ran[r]);
            }
    }
}

Test(shmseg, alltoall_double_buffer_holds_over_many_calls_with_late_ranks)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLTOALL, "shmseg"), RDMACH_OK);
    int ps[] = { 2, 3, 4, 7 };
    for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
        struct run t = { .p = ps[k], .calls = ps[k] <= 4 ? 3000 : 1000, .jitter = 1,
                         .in_place = (int)(k % 2) };
        for (int r = 0; r < t.p; r++)
            t.bytes[r] = 8 + k;
        run_a2a(&t);
    }
    /* blocks that go on through the large area: both areas' parities */
    for (int p = 2; p <= 3; p++) {
        struct run t = { .p = p, .calls = 200, .jitter = 1, .in_place = p == 3 };
        for (int r = 0; r < p; r++)
            t.bytes[r] = 3 * rch_coll_nodeseg_slot(p) + 7;
        run_a2a(&t);
    }
}

Test(shmseg, alltoall_selected_by_the_table_on_one_node_the_segment_first)
{
    /* adaptive (coll_adapt.c): the first call of a block size goes
     * through the segment, small blocks and large ones (the large area) */
    struct run t = { .p = 4, .calls = 1 }, big = { .p = 4, .calls = 1 }, two = { .p = 2, .calls = 1 };
    for (int r = 0; r < 4; r++) {
        t.bytes[r] = 8;
        big.bytes[r] = 64 * 1024;
        two.bytes[r] = 16 * 1024 + 1;
    }
    run_a2a(&t);
    run_a2a(&big);
    run_a2a(&two);
    cr_assert_str_eq(t.ran[0], "shmseg");
    cr_assert_str_eq(big.ran[0], "shmseg");
    cr_assert_str_eq(two.ran[0], "shmseg");
}

/* allgatherv's layout in these tests: rank r's block is n + 7r bytes
 * (rank 1's empty), the blocks in reverse rank order, 3 bytes apart. */
static void agv_layout(int p, size_t n, size_t *counts, size_t *displs)
{
    size_t at = 0;
    for (int r = p - 1; r >= 0; r--) {
        counts[r] = r == 1 ? 0 : n + (size_t)r * 7;
        displs[r] = at;
        at += counts[r] + 3;
    }
}

/* bytes from the first block to the gap after the last (rank 0's) */
static size_t agv_span(const size_t *counts, const size_t *displs)
{
    return displs[0] + counts[0] + 3;
}

/* NULL if every block of call `call` is in place and every gap still
 * 0xee; else what is wrong (a static string). */
static const char *agv_check(int p, size_t n, int call, const unsigned char *r)
{
    static _Thread_local char why[160];
    size_t counts[MAXP], displs[MAXP];
    agv_layout(p, n, counts, displs);
    for (int q = 0; q < p; q++) {
        for (size_t i = 0; i < counts[q]; i++)
            if (r[displs[q] + i] != pat(q, 0, i, call)) {
                snprintf(why, sizeof(why), "byte %zu of rank %d's block is %02x, not %02x", i, q,
                         r[displs[q] + i], pat(q, 0, i, call));
                return why;
            }
        for (size_t i = 0; i < 3; i++)
            if (r[displs[q] + counts[q] + i] != 0xee) {
                snprintf(why, sizeof(why), "gap byte %zu after rank %d's block was written", i, q);
                return why;
            }
    }
    return NULL;
}

/* adaptive (coll_adapt.c), for alltoall, allgather(v), reduce_scatter and
 * bcast: every rank records what each call ran, and the calls' data is
 * checked (alltoall as in a2a_body; allgather every rank's block;
 * reduce_scatter the sum of int32 vectors; bcast the root's buffer, the
 * root moving from rank to rank). */
#define ADAPT_CALLS 150
#define ADAPT_FLIP 60
struct adapt_run {
    enum rch_coll_id coll;
    int p;
    size_t n;                  /* alltoall, allgather: block bytes; reduce_scatter: ints per rank;
                                * bcast: bytes */
    int msg_slow_first;        /* the messages look slow until ADAPT_FLIP (else the segment does) */
    const char *ran[MAXP][ADAPT_CALLS];
    char err[MAXP][320];
};

/* One call of t->coll with the data of `call`; 0, or the first wrong byte
 * or element written to t->err[me]. */
static rdmach_status_t adapt_call(struct adapt_run *t, struct rch_coll_comm *c, int me, int call,
                                  unsigned char *s, unsigned char *r)
{
    int p = t->p;
    size_t n = t->n, counts[MAXP], displs[MAXP];
    struct rch_coll_op sum = { rch_coll_kernel(RCH_COLL_OP_SUM, RCH_COLL_K_I32), NULL, 4, 1 };
    switch (t->coll) {
    case RCH_COLL_ALLTOALL:
        for (int q = 0; q < p; q++)
            for (size_t i = 0; i < n; i++)
                s[q * n + i] = pat(me, q, i, call);
        return rch_coll_alltoall(c, s, r, n);
    case RCH_COLL_ALLGATHER:
        for (size_t i = 0; i < n; i++)
            s[i] = pat(me, 0, i, call);
        return rch_coll_allgather(c, s, r, n);
    case RCH_COLL_ALLGATHERV:  /* uneven blocks, rank 1's empty, in reverse order with gaps */
        agv_layout(p, n, counts, displs);
        memset(r, 0xee, agv_span(counts, displs));
        for (size_t i = 0; i < counts[me]; i++)
            s[i] = pat(me, 0, i, call);
        return rch_coll_allgatherv(c, s, r, counts, displs);
    case RCH_COLL_BCAST:       /* the root changes from call to call */
        for (size_t i = 0; i < n; i++)
            r[i] = me == call % p ? pat(me, 0, i, call) : 0xee;
        return rch_coll_bcast(c, r, n, call % p);
    default:
        for (int q = 0; q < p; q++)
            counts[q] = n;
        for (size_t i = 0; i < p * n; i++)
            ((int32_t *)s)[i] = (int32_t)(me * 1000 + (int)i + call);
        return rch_coll_reduce_scatter(c, s, r, counts, &sum);
    }
}

static void adapt_check(struct adapt_run *t, int me, int call, const unsigned char *r)
{
    int p = t->p;
    size_t n = t->n;
    const char *ran = t->ran[me][call];
    char *err = t->err[me];
    size_t len = sizeof(t->err[me]);
    const char *bad;
    switch (t->coll) {
    case RCH_COLL_ALLGATHERV:
        if ((bad = agv_check(p, n, call, r)) != NULL)
            snprintf(err, len, "call %d (%s): %s", call, ran, bad);
        return;
    case RCH_COLL_BCAST:
        for (size_t i = 0; i < n; i++)
            if (r[i] != pat(call % p, 0, i, call)) {
                snprintf(err, len, "call %d (%s): byte %zu from root %d is wrong", call, ran, i, call % p);
                return;
            }
        return;
    case RCH_COLL_REDUCE_SCATTER:
        for (size_t i = 0; i < n; i++) {
            int32_t want = 0, got = ((const int32_t *)r)[i];
            for (int q = 0; q < p; q++)
                want += (int32_t)(q * 1000 + (int)(me * n + i) + call);
            if (got != want) {
                snprintf(err, len, "call %d (%s): element %zu is %d, not %d", call, ran, i, got, want);
                return;
            }
        }
        return;
    default:                   /* alltoall: my column of every row; allgather: every block */
        for (int q = 0; q < p; q++)
            for (size_t i = 0; i < n; i++) {
                unsigned char want = t->coll == RCH_COLL_ALLTOALL ? pat(q, me, i, call) : pat(q, 0, i, call);
                if (r[q * n + i] != want) {
                    snprintf(err, len, "call %d (%s): byte %zu from rank %d is wrong", call, ran, i, q);
                    return;
                }
            }
    }
}

static void adapt_body(int me, void *arg)
{
    struct adapt_run *t = arg;
    struct rch_coll_comm c = { .rank = me, .size = t->p, .world_of = worlds, .ctx = 53 };
    if (rch_coll_comm_init(&c) != RDMACH_OK) {
        snprintf(t->err[me], sizeof(t->err[me]), "comm init: %s", rdmach_last_error());
        return;
    }
    unsigned char *s = malloc(t->p * t->n * 4 + 1), *r = malloc(t->p * t->n * 4 + 1);
    for (int call = 0; call < ADAPT_CALLS && !t->err[me][0]; call++) {
        /* from here the other way looks slow */
        if (call == ADAPT_FLIP && me == 0) {
            __atomic_store_n(&rch_coll_adapt_bias_ns[!t->msg_slow_first], 1000000000, __ATOMIC_RELAXED);
            __atomic_store_n(&rch_coll_adapt_bias_ns[t->msg_slow_first], 0, __ATOMIC_RELAXED);
        }
        rdmach_status_t st = adapt_call(t, &c, me, call, s, r);
        t->ran[me][call] = rch_coll_last_algo(t->coll);
        if (st != RDMACH_OK) {
            snprintf(t->err[me], sizeof(t->err[me]), "call %d: %s", call, rdmach_last_error());
            break;
        }
        adapt_check(t, me, call, r);
    }
    free(s);
    free(r);
    rch_coll_comm_free(&c);
}

/* What adaptive must run at each call when the segment looks 1 s slower
 * per call (a bias added to what it measures, not a wait) until ADAPT_FLIP
 * and the messages from then on: the first trial's 6 calls through the
 * segment and 8 by messages, an agreement (call 14) choosing the messages,
 * 128 calls of them, 4 through the segment (the next trial, from call 143),
 * an agreement choosing the segment. */
static const char *adapt_expected(int call, const char *msg)
{
    if (call < 6)
        return "shmseg";
    if (call < 14 + 1 + 128)
        return msg;
    return "shmseg";
}

/* The same when the messages look slow first: the first trial's early look
 * (call 9, after 2 counted message calls) ends it choosing the segment,
 * which runs 128 calls, then the messages' trial (from call 138) and an
 * agreement (call 142) choosing them. */
static const char *adapt_expected_msg_slow(int call, const char *msg)
{
    if (call < 6)
        return "shmseg";
    if (call < 9)
        return msg;
    if (call < 9 + 1 + 128)
        return "shmseg";
    return msg;
}

/* Every rank runs what adapt_expected (or, with msg_slow_first,
 * adapt_expected_msg_slow) says, with the data right. */
static void run_adapt_from(enum rch_coll_id coll, int p, size_t n, const char *msg, int msg_slow_first)
{
    struct adapt_run *t = calloc(1, sizeof(*t));
    t->coll = coll;
    t->p = p;
    t->n = n;
    t->msg_slow_first = msg_slow_first;
    rch_coll_adapt_bias_ns[msg_slow_first] = 1000000000;     /* [0] the segment's, [1] the messages' */
    rch_coll_adapt_bias_ns[!msg_slow_first] = 0;
    int rc = fake_dev_run(p, 4096, adapt_body, t);
    rch_coll_adapt_bias_ns[0] = rch_coll_adapt_bias_ns[1] = 0;
    cr_assert_eq(rc, 0, "%s p=%d: deadlock", rch_coll_name(coll), p);
    for (int r = 0; r < p; r++) {
        cr_assert_eq(t->err[r][0], 0, "%s p=%d rank %d: %s", rch_coll_name(coll), p, r, t->err[r]);
        for (int call = 0; call < ADAPT_CALLS; call++)
            cr_assert_str_eq(t->ran[r][call],
                             msg_slow_first ? adapt_expected_msg_slow(call, msg) : adapt_expected(call, msg),
                             "%s p=%d n=%zu rank %d call %d ran %s (messages slow first: %d)",
                             rch_coll_name(coll), p, n, r, call, t->ran[r][call], msg_slow_first);
    }
    cr_assert_eq(fake_dev_leftovers(), 0, "%s p=%d left messages queued", rch_coll_name(coll), p);
    free(t);
}

static void run_adapt(enum rch_coll_id coll, int p, size_t n, const char *msg)
{
    run_adapt_from(coll, p, n, msg, 0);
}

Test(shmseg, alltoall_adaptive_takes_the_measured_faster_way_on_every_rank_and_follows_a_change)
{
    run_adapt(RCH_COLL_ALLTOALL, 4, 64, "linear");            /* the tuning rows' choice without the segment */
    run_adapt(RCH_COLL_ALLTOALL, 2, 16 * 1024 + 1, "pairwise");
    run_adapt(RCH_COLL_ALLTOALL, 3, 40000, "linear");         /* several phases, the large area */
}

Test(shmseg, allgather_and_reduce_scatter_adaptive_take_the_measured_faster_way_on_every_rank)
{
    run_adapt(RCH_COLL_ALLGATHER, 4, 8, "recdbl");
    run_adapt(RCH_COLL_ALLGATHER, 3, 1000, "ring");           /* not a power of two */
    run_adapt(RCH_COLL_ALLGATHER, 2, 70000, "ring");          /* several phases, the large area */
    run_adapt(RCH_COLL_REDUCE_SCATTER, 4, 2, "pairwise");
    run_adapt(RCH_COLL_REDUCE_SCATTER, 3, 9000, "pairwise");
}

Test(shmseg, bcast_adaptive_takes_the_measured_faster_way_on_every_rank_whatever_the_root)
{
    run_adapt(RCH_COLL_BCAST, 4, 16 * 1024, "binomial");      /* the table's first adaptive size */
    run_adapt(RCH_COLL_BCAST, 3, 100000, "binomial");
    run_adapt(RCH_COLL_BCAST, 2, 3 * 1024 * 1024 + 5, "binomial");   /* several chunks of the large area */
}

Test(shmseg, allgatherv_adaptive_takes_the_measured_faster_way_on_every_rank)
{
    run_adapt(RCH_COLL_ALLGATHERV, 4, 8, "ring");
    run_adapt(RCH_COLL_ALLGATHERV, 3, 70000, "ring");         /* several phases of the large area */
    run_adapt_from(RCH_COLL_ALLGATHERV, 2, 100, "ring", 1);
}

/* allgatherv through the large area, forced: block lengths that end in
 * different phases (one empty), in place on odd calls, 1-5 ranks */
static void agv_body(int me, void *arg)
{
    struct run *t = arg;
    struct rch_coll_comm c;
    int node_of[MAXP], p = t->p;
    size_t counts[MAXP], displs[MAXP];
    make_view(t, me, &c, node_of);
    if (rch_coll_comm_init(&c) != RDMACH_OK) {
        snprintf(t->err[me], sizeof(t->err[me]), "comm init: %s", rdmach_last_error());
        return;
    }
    agv_layout(p, t->count, counts, displs);
    size_t span = agv_span(counts, displs);
    unsigned char *s = malloc(counts[me] + 1), *r = malloc(span);
    for (int call = 0; call < t->calls && !t->err[me][0]; call++) {
        int ip = t->in_place && call % 2;
        memset(r, 0xee, span);
        unsigned char *mine = ip ? r + displs[me] : s;
        for (size_t i = 0; i < counts[me]; i++)
            mine[i] = pat(me, 0, i, call);
        rdmach_status_t st = rch_coll_allgatherv(&c, ip ? RCH_COLL_IN_PLACE : s, r, counts, displs);
        t->ran[me] = rch_coll_last_algo(RCH_COLL_ALLGATHERV);
        const char *bad = st != RDMACH_OK ? rdmach_last_error() : agv_check(p, t->count, call, r);
        if (bad)
            snprintf(t->err[me], sizeof(t->err[me]), "call %d: %s", call, bad);
    }
    free(s);
    free(r);
    rch_coll_comm_free(&c);
}

Test(shmseg, allgatherv_uneven_blocks_across_phases_and_in_place)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLGATHERV, "shmseg"), RDMACH_OK);
    for (int p = 1; p <= 5; p++) {
        size_t arow = rch_coll_nodeseg_arow_size(p);
        size_t sizes[] = { 0, 1, arow - 20, arow + 3, 2 * arow };
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            struct run t = { .p = p, .count = sizes[k], .calls = 4, .in_place = 1, .jitter = 1 };
            int rc = fake_dev_run(p, 4096, agv_body, &t);
            cr_assert_eq(rc, 0, "p=%d: deadlock", p);
            for (int r = 0; r < p; r++) {
                cr_assert_eq(t.err[r][0], 0, "p=%d base %zu bytes rank %d: %s", p, sizes[k], r, t.err[r]);
                cr_assert_str_eq(t.ran[r], "shmseg", "p=%d: ran %s", p, t.ran[r]);
            }
        }
    }
    rch_coll_force(RCH_COLL_ALLGATHERV, "auto");
}

Test(shmseg, adaptive_ends_the_first_trial_early_when_the_messages_are_clearly_slower)
{
    run_adapt_from(RCH_COLL_BCAST, 4, 64 * 1024, "binomial", 1);
    run_adapt_from(RCH_COLL_ALLTOALL, 3, 64, "linear", 1);
    run_adapt_from(RCH_COLL_ALLGATHER, 2, 8, "recdbl", 1);
}

Test(shmseg, alltoall_refuses_several_nodes_and_views_without_state)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLTOALL, "shmseg"), RDMACH_OK);
    struct run two = { .p = 4, .calls = 2, .nnodes = 2 };
    struct run bare = { .p = 3, .calls = 2, .no_state = 1 };
    for (int r = 0; r < MAXP; r++)
        two.bytes[r] = bare.bytes[r] = 24;
    run_a2a(&two);
    run_a2a(&bare);
    for (int r = 0; r < 4; r++)
        cr_assert_str_neq(two.ran[r], "shmseg", "2 nodes: rank %d ran shmseg", r);
    for (int r = 0; r < 3; r++)
        cr_assert_str_neq(bare.ran[r], "shmseg", "no state: rank %d ran shmseg", r);
}

/* Rank 0 calls with other block sizes (one of them several slots long, so
 * the ranks would run different numbers of phases): every rank gets an
 * error, nobody hangs, and the next correct call on the communicator works. */
static void mismatch_body(int me, void *arg)
{
    struct run *t = arg;
    struct rch_coll_comm c = { .rank = me, .size = t->p, .world_of = worlds, .ctx = 52 };
    if (rch_coll_comm_init(&c) != RDMACH_OK)
        return;
    size_t n = t->bytes[me], big = 3 * rch_coll_nodeseg_slot(t->p) + 1;
    unsigned char *s = calloc(t->p, big), *r = calloc(t->p, big);
    t->st[me] = rch_coll_alltoall(&c, s, r, n);
    if (t->st[me] != RDMACH_OK)
        snprintf(t->err[me], sizeof(t->err[me]), "%s", rdmach_last_error());
    t->after[me] = rch_coll_alltoall(&c, s, r, 16);
    free(s);
    free(r);
    rch_coll_comm_free(&c);
}

Test(shmseg, alltoall_sizes_that_differ_between_ranks_fail_on_every_rank)
{
    /* forced, and chosen by the table (adaptive: a block size's first call
     * goes through the segment, which compares the sizes) */
    for (int p = 2, forced = 1; p <= 5; p += forced ? 0 : 3, forced = !forced) {
        cr_assert_eq(rch_coll_force(RCH_COLL_ALLTOALL, forced ? "shmseg" : "auto"), RDMACH_OK);
        struct run t = { .p = p };
        for (int r = 0; r < p; r++)
            t.bytes[r] = 8;
        t.bytes[0] = 3 * rch_coll_nodeseg_slot(p) + 1;
        cr_assert_eq(fake_dev_run(p, 4096, mismatch_body, &t), 0, "p=%d: deadlock", p);
        for (int r = 0; r < p; r++) {
            cr_assert(t.st[r] == RDMACH_ERR_TRUNCATE || t.st[r] == RDMACH_ERR_INVALID_ARG,
                      "p=%d rank %d: status %d", p, r, t.st[r]);
            cr_assert(strstr(t.err[r], "alltoall") && strstr(t.err[r], "differ between ranks"),
                      "p=%d rank %d: '%s'", p, r, t.err[r]);
            cr_assert_eq(t.after[r], RDMACH_OK, "p=%d rank %d: the next call failed", p, r);
        }
    }
}

/* ---- allreduce ---- */


static void elem(int rank, size_t i, int call, uint32_t *ab)
{
    ab[0] = 2u * (uint32_t)pat(rank, 1, i, call) + 1u;     /* odd: no collapse to 0 */
    ab[1] = (uint32_t)pat(rank, 2, i, call) * 65537u + (uint32_t)rank;
}

static void ar_body(int me, void *arg)
{
    struct run *t = arg;
    struct rch_coll_comm c;
    int node_of[MAXP], p = t->p;
    unsigned seed = 99u + (unsigned)me;
    make_view(t, me, &c, node_of);
    if (!t->no_state && rch_coll_comm_init(&c) != RDMACH_OK) {
        snprintf(t->err[me], sizeof(t->err[me]), "comm init: %s", rdmach_last_error());
        return;
    }
    struct rch_coll_op affine = { fake_affine_op, NULL, 8, 0 };
    struct rch_coll_op dsum = { rch_coll_kernel(RCH_COLL_OP_SUM, RCH_COLL_K_F64), NULL, 8, 1 };
    size_t n = t->count;
    uint32_t *s = malloc(2 * n * 4 + 8), *r = malloc(2 * n * 4 + 8);
    size_t count = n;
    for (int call = 0; call < t->calls && !t->err[me][0]; call++) {
        uint32_t *src = t->in_place ? r : s;
        n = t->alt && call % 2 ? 3 : count;
        for (size_t i = 0; i < n; i++)
            elem(me, i, call, src + 2 * i);
        if (t->jitter)
            jitter(&seed);
        rdmach_status_t st = rch_coll_allreduce(&c, t->in_place ? RCH_COLL_IN_PLACE : s, r, n,
                                                &affine);
        t->ran[me] = rch_coll_last_algo(RCH_COLL_ALLREDUCE);
        if (st != RDMACH_OK) {
            snprintf(t->err[me], sizeof(t->err[me]), "call %d: %s", call, rdmach_last_error());
            break;
        }
        for (size_t i = 0; i < n; i++) {
            uint32_t want[2], x[2];
            elem(p - 1, i, call, want);            /* v0 op (v1 op (... op v(p-1))) */
            for (int q = p - 2; q >= 0; q--) {
                elem(q, i, call, x);
                fake_affine_op(x, want, 1, NULL);
            }
            if (r[2 * i] != want[0] || r[2 * i + 1] != want[1]) {
                snprintf(t->err[me], sizeof(t->err[me]), "call %d: element %zu is (%u, %u), "
                         "expected (%u, %u) (rank order)", call, i, r[2 * i], r[2 * i + 1],
                         want[0], want[1]);
                break;
            }
        }
    }
    /* doubles whose sum depends on the order of additions */
    double v[3] = { me % 2 ? 1e16 : 1.0, 1.0 / (me + 3), -1e16 * (me % 2) }, out[3];
    if (!t->err[me][0] && rch_coll_allreduce(&c, v, out, 3, &dsum) == RDMACH_OK)
        t->fsum[me] = out[0] + out[1] * 3 + out[2] * 7;
    free(s);
    free(r);
    if (!t->no_state)
        rch_coll_comm_free(&c);
}

static void run_ar(struct run *t)
{
    int rc = fake_dev_run(t->p, 4096, ar_body, t);
    cr_assert_eq(rc, 0, "allreduce p=%d: deadlock", t->p);
    for (int r = 0; r < t->p; r++)
        cr_assert_eq(t->err[r][0], 0, "allreduce p=%d count=%zu in_place=%d rank %d: %s", t->p,
                     t->count, t->in_place, r, t->err[r]);
    cr_assert_eq(fake_dev_leftovers(), 0, "allreduce p=%d left messages queued", t->p);
}

Test(shmseg, allreduce_in_rank_order_identical_bits_every_size)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLREDUCE, "shmseg"), RDMACH_OK);
    for (int p = 1; p <= MAXP; p++) {
        size_t row = (size_t)p * rch_coll_nodeseg_slot(p);      /* bytes; 8 per element */
        size_t counts[] = { 0, 1, 5, row / 8, row / 8 + 1, 2 * (row / 8) + 3 };
        for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
            for (int ip = 0; ip < 2; ip++) {
                struct run t = { .p = p, .count = counts[k], .in_place = ip, .calls = 2 };
                run_ar(&t);
                for (int r = 0; r < p; r++) {
                    cr_assert_str_eq(t.ran[r], "shmseg", "p=%d: ran %s", p, t.ran[r]);
                    cr_assert(memcmp(&t.fsum[r], &t.fsum[0], sizeof(double)) == 0,
                              "p=%d: rank %d's floating-point sum differs from rank 0's", p, r);
                }
            }
    }
}

Test(shmseg, allreduce_many_calls_with_late_ranks)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLREDUCE, "shmseg"), RDMACH_OK);
    int ps[] = { 2, 3, 5 };
    for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
        struct run t = { .p = ps[k], .count = 3, .calls = 2000, .jitter = 1, .in_place = (int)(k % 2) };
        run_ar(&t);
    }
}

/* shmrsag (allreduce_shmrsag.c): reduce-scatter + allgather through the
 * large area, one chunk per phase; the same rank order and identical bits.
 * Counts around the slices (fewer elements than ranks) and the chunks. */
Test(shmseg, shmrsag_in_rank_order_identical_bits_every_size)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLREDUCE, "shmrsag"), RDMACH_OK);
    for (int p = 1; p <= MAXP; p++) {
        size_t arow = rch_coll_nodeseg_arow_size(p) / 8;          /* elements of 8 bytes */
        size_t counts[] = { 0, 1, (size_t)p - 1, (size_t)p + 1, 1000, arow - 1, arow, arow + 1,
                            2 * arow + (size_t)p + 3 };
        for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
            for (int ip = 0; ip < 2; ip++) {
                struct run t = { .p = p, .count = counts[k], .in_place = ip, .calls = 2 };
                run_ar(&t);
                for (int r = 0; r < p; r++) {
                    cr_assert_str_eq(t.ran[r], "shmrsag", "p=%d: ran %s", p, t.ran[r]);
                    cr_assert(memcmp(&t.fsum[r], &t.fsum[0], sizeof(double)) == 0,
                              "p=%d: rank %d's floating-point sum differs from rank 0's", p, r);
                }
            }
    }
}

/* The table's choice alternating between shmseg (3 elements) and shmrsag
 * (two chunks) on one communicator: both follow the same phase parity, so
 * a fast rank never overwrites what a late one still reads. */
Test(shmseg, shmrsag_alternating_with_shmseg_with_late_ranks)
{
    int ps[] = { 2, 3, 5 };
    for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
        size_t arow = rch_coll_nodeseg_arow_size(ps[k]) / 8;
        struct run t = { .p = ps[k], .count = arow + 7, .calls = 300, .jitter = 1, .alt = 1,
                         .in_place = (int)(k % 2) };
        run_ar(&t);
        cr_assert_str_eq(t.ran[0], "shmseg", "the last call (3 elements) ran %s", t.ran[0]);
    }
}

Test(shmseg, allreduce_selected_on_one_node_refused_on_several)
{
    struct run one = { .p = 4, .count = 2, .calls = 1 };
    run_ar(&one);
    cr_assert_str_eq(one.ran[0], "shmseg");
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLREDUCE, "shmseg"), RDMACH_OK);
    struct run two = { .p = 4, .count = 2, .calls = 1, .nnodes = 2 };
    run_ar(&two);
    cr_assert_str_neq(two.ran[0], "shmseg");
}

/* ---- bcast and allgather through the large area (bcast_shmseg.c,
 * allgather_shmseg.c): sizes around the chunk (the whole area for bcast, a
 * row for allgather), every root, in place, late ranks ---- */

static void bg_body(int me, void *arg)
{
    struct run *t = arg;
    struct rch_coll_comm c;
    int node_of[MAXP], p = t->p;
    unsigned seed = 77u + (unsigned)me;
    make_view(t, me, &c, node_of);
    if (rch_coll_comm_init(&c) != RDMACH_OK) {
        snprintf(t->err[me], sizeof(t->err[me]), "comm init: %s", rdmach_last_error());
        return;
    }
    size_t n = t->bytes[0];
    unsigned char *s = malloc(n + 1), *r = malloc((size_t)p * n + 1);
    for (int call = 0; call < t->calls && !t->err[me][0]; call++) {
        int root = call % p;
        if (t->jitter)
            jitter(&seed);
        /* bcast from root: every byte */
        for (size_t i = 0; i < n; i++)
            s[i] = me == root ? pat(root, 0, i, call) : 0xee;
        rdmach_status_t st = rch_coll_bcast(&c, s, n, root);
        t->ran[me] = rch_coll_last_algo(RCH_COLL_BCAST);
        for (size_t i = 0; i < n && st == RDMACH_OK; i++)
            if (s[i] != pat(root, 0, i, call)) {
                snprintf(t->err[me], sizeof(t->err[me]), "call %d: bcast byte %zu is %02x, expected "
                         "%02x", call, i, s[i], pat(root, 0, i, call));
                break;
            }
        if (st != RDMACH_OK || t->err[me][0]) {
            if (!t->err[me][0])
                snprintf(t->err[me], sizeof(t->err[me]), "call %d: bcast: %s", call, rdmach_last_error());
            break;
        }
        /* allgather (in place on odd calls when asked) */
        int ip = t->in_place && call % 2;
        memset(r, 0xee, (size_t)p * n);
        unsigned char *mine = ip ? r + (size_t)me * n : s;
        for (size_t i = 0; i < n; i++)
            mine[i] = pat(me, 1, i, call);
        st = rch_coll_allgather(&c, ip ? RCH_COLL_IN_PLACE : s, r, n);
        t->ran[me] = rch_coll_last_algo(RCH_COLL_ALLGATHER);
        if (st != RDMACH_OK) {
            snprintf(t->err[me], sizeof(t->err[me]), "call %d: allgather: %s", call, rdmach_last_error());
            break;
        }
        for (int q = 0; q < p && !t->err[me][0]; q++)
            for (size_t i = 0; i < n; i++)
                if (r[(size_t)q * n + i] != pat(q, 1, i, call)) {
                    snprintf(t->err[me], sizeof(t->err[me]), "call %d: allgather byte %zu of rank %d "
                             "is %02x, expected %02x", call, i, q, r[(size_t)q * n + i], pat(q, 1, i, call));
                    break;
                }
    }
    free(s);
    free(r);
    rch_coll_comm_free(&c);
}

Test(shmseg, bcast_and_allgather_every_root_size_and_in_place)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_BCAST, "shmseg"), RDMACH_OK);
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLGATHER, "shmseg"), RDMACH_OK);
    for (int p = 1; p <= 5; p++) {
        size_t arow = rch_coll_nodeseg_arow_size(p), area = (size_t)(p + 1) * arow;
        size_t sizes[] = { 0, 1, 4097, arow - 1, arow + 3, area + 1 };
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            struct run t = { .p = p, .bytes = { sizes[k] }, .calls = p + 1, .in_place = 1,
                             .jitter = 1 };
            int rc = fake_dev_run(p, 4096, bg_body, &t);
            cr_assert_eq(rc, 0, "p=%d: deadlock", p);
            for (int r = 0; r < p; r++) {
                cr_assert_eq(t.err[r][0], 0, "p=%d %zu bytes rank %d: %s", p, sizes[k], r, t.err[r]);
                cr_assert_str_eq(t.ran[r], "shmseg", "p=%d: ran %s", p, t.ran[r]);
            }
        }
    }
    rch_coll_force(RCH_COLL_BCAST, "auto");
    rch_coll_force(RCH_COLL_ALLGATHER, "auto");
}

/* ---- reduce_scatter through the large area (reduce_scatter_shmseg.c):
 * uneven blocks (one empty), chunks that split blocks, in place, rank order
 * (a non-commutative op) ---- */

static void rs_body(int me, void *arg)
{
    struct run *t = arg;
    struct rch_coll_comm c;
    int node_of[MAXP], p = t->p;
    size_t counts[MAXP], total = 0, lo = 0;
    make_view(t, me, &c, node_of);
    if (rch_coll_comm_init(&c) != RDMACH_OK) {
        snprintf(t->err[me], sizeof(t->err[me]), "comm init: %s", rdmach_last_error());
        return;
    }
    for (int r = 0; r < p; r++) {
        counts[r] = r == 1 ? 0 : t->count + (size_t)r * 7;     /* rank 1's block is empty */
        if (r == me)
            lo = total;
        total += counts[r];
    }
    struct rch_coll_op affine = { fake_affine_op, NULL, 8, 0 };
    uint32_t *s = malloc(total * 8 + 8), *r = malloc(total * 8 + 8);
    for (int call = 0; call < t->calls && !t->err[me][0]; call++) {
        int ip = t->in_place && call % 2;
        uint32_t *src = ip ? r : s;
        for (size_t i = 0; i < total; i++)
            elem(me, i, call, src + 2 * i);
        rdmach_status_t st = rch_coll_reduce_scatter(&c, ip ? RCH_COLL_IN_PLACE : s, r, counts, &affine);
        t->ran[me] = rch_coll_last_algo(RCH_COLL_REDUCE_SCATTER);
        if (st != RDMACH_OK) {
            snprintf(t->err[me], sizeof(t->err[me]), "call %d: %s", call, rdmach_last_error());
            break;
        }
        for (size_t i = 0; i < counts[me]; i++) {
            uint32_t want[2], x[2];
            elem(p - 1, lo + i, call, want);
            for (int q = p - 2; q >= 0; q--) {
                elem(q, lo + i, call, x);
                fake_affine_op(x, want, 1, NULL);
            }
            if (r[2 * i] != want[0] || r[2 * i + 1] != want[1]) {
                snprintf(t->err[me], sizeof(t->err[me]), "call %d: element %zu of my block is (%u, %u), "
                         "expected (%u, %u)", call, i, r[2 * i], r[2 * i + 1], want[0], want[1]);
                break;
            }
        }
    }
    free(s);
    free(r);
    rch_coll_comm_free(&c);
}

Test(shmseg, reduce_scatter_uneven_blocks_in_rank_order)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_REDUCE_SCATTER, "shmseg"), RDMACH_OK);
    for (int p = 1; p <= 5; p++) {
        size_t arow = rch_coll_nodeseg_arow_size(p) / 8;
        size_t per[] = { 0, 3, arow / 3 + 1, arow + 5 };
        for (size_t k = 0; k < sizeof(per) / sizeof(per[0]); k++) {
            struct run t = { .p = p, .count = per[k], .calls = 3, .in_place = 1 };
            int rc = fake_dev_run(p, 4096, rs_body, &t);
            cr_assert_eq(rc, 0, "p=%d: deadlock", p);
            for (int q = 0; q < p; q++) {
                cr_assert_eq(t.err[q][0], 0, "p=%d block %zu rank %d: %s", p, per[k], q, t.err[q]);
                cr_assert_str_eq(t.ran[q], "shmseg", "p=%d: ran %s", p, t.ran[q]);
            }
        }
    }
    rch_coll_force(RCH_COLL_REDUCE_SCATTER, "auto");
}

/* The other way of a reduce_scatter class is chosen again when the
 * operation's commutativity changes at the same message size: pairwise
 * reduces in no fixed order and takes commutative operations only, so a
 * non-commutative one after it (the same bytes) runs reduce + scatterv, in
 * rank order. */
struct rs_ops_run {
    int p;
    const char *ran[MAXP][24];
    char err[MAXP][320];
};

static void rs_ops_body(int me, void *arg)
{
    struct rs_ops_run *t = arg;
    struct rch_coll_comm c = { .rank = me, .size = t->p, .world_of = worlds, .ctx = 55 };
    if (rch_coll_comm_init(&c) != RDMACH_OK) {
        snprintf(t->err[me], sizeof(t->err[me]), "comm init: %s", rdmach_last_error());
        return;
    }
    int p = t->p;
    struct rch_coll_op sum = { rch_coll_kernel(RCH_COLL_OP_SUM, RCH_COLL_K_I32), NULL, 4, 1 };
    struct rch_coll_op affine = { fake_affine_op, NULL, 8, 0 };
    size_t ints[MAXP], pairs[MAXP];
    for (int q = 0; q < p; q++) {
        ints[q] = 4;                 /* 16 bytes a rank either way */
        pairs[q] = 2;
    }
    uint32_t s[4 * MAXP], r[4 * MAXP];
    for (int call = 0; call < 24 && !t->err[me][0]; call++) {
        int nc = call >= 20;
        for (size_t i = 0; i < (size_t)p * 2; i++)
            elem(me, i, call, s + 2 * i);
        rdmach_status_t st = rch_coll_reduce_scatter(&c, s, r, nc ? pairs : ints, nc ? &affine : &sum);
        t->ran[me][call] = rch_coll_last_algo(RCH_COLL_REDUCE_SCATTER);
        if (st != RDMACH_OK) {
            snprintf(t->err[me], sizeof(t->err[me]), "call %d: %s", call, rdmach_last_error());
            break;
        }
        if (!nc)
            continue;
        for (size_t i = 0; i < 2; i++) {
            uint32_t want[2], x[2];
            elem(p - 1, (size_t)me * 2 + i, call, want);
            for (int q = p - 2; q >= 0; q--) {
                elem(q, (size_t)me * 2 + i, call, x);
                fake_affine_op(x, want, 1, NULL);
            }
            if (r[2 * i] != want[0] || r[2 * i + 1] != want[1])
                snprintf(t->err[me], sizeof(t->err[me]), "call %d (%s): element %zu is (%u, %u), expected "
                         "(%u, %u)", call, t->ran[me][call], i, r[2 * i], r[2 * i + 1], want[0], want[1]);
        }
    }
    rch_coll_comm_free(&c);
}

Test(shmseg, reduce_scatter_adaptive_chooses_again_for_a_non_commutative_operation)
{
    struct rs_ops_run *t = calloc(1, sizeof(*t));
    t->p = 3;
    rch_coll_adapt_bias_ns[0] = 1000000000;    /* the segment looks slow: the messages win */
    rch_coll_adapt_bias_ns[1] = 0;
    int rc = fake_dev_run(t->p, 4096, rs_ops_body, t);
    rch_coll_adapt_bias_ns[0] = 0;
    cr_assert_eq(rc, 0, "deadlock");
    for (int r = 0; r < t->p; r++) {
        cr_assert_eq(t->err[r][0], 0, "rank %d: %s", r, t->err[r]);
        for (int call = 15; call < 20; call++)
            cr_assert_str_eq(t->ran[r][call], "pairwise", "rank %d call %d ran %s", r, call, t->ran[r][call]);
        for (int call = 20; call < 24; call++)
            cr_assert_str_eq(t->ran[r][call], "reduce_scatterv", "rank %d call %d ran %s", r, call,
                             t->ran[r][call]);
    }
    free(t);
}

/* ---- a young communicator (coll_select.c unless_young, barrier_select.c young) ---- */

#define YOUNG_AFTER 5
#define YOUNG_CALLS (2 * YOUNG_AFTER + 4)

struct young_run {
    int p;
    int forced;                                /* RDMACH_ALLREDUCE=shmseg */
    char err[MAXP][320];
    const char *ran[MAXP][YOUNG_CALLS];        /* call k: allreduce if k is even, else barrier */
};

static int young_is_seg(const char *name)
{
    return strcmp(name, "shmseg") == 0 || strcmp(name, "shmrsag") == 0 || strcmp(name, "adaptive") == 0;
}

static void young_body(int me, void *arg)
{
    struct young_run *t = arg;
    struct rch_coll_comm c = { .rank = me, .size = t->p, .world_of = worlds, .ctx = 53 };
    if (rch_coll_comm_init(&c) != RDMACH_OK) {
        snprintf(t->err[me], sizeof(t->err[me]), "comm init: %s", rdmach_last_error());
        return;
    }
    struct rch_coll_op dsum = { rch_coll_kernel(RCH_COLL_OP_SUM, RCH_COLL_K_F64), NULL, 8, 1 };
    for (int call = 0; call < YOUNG_CALLS && !t->err[me][0]; call++) {
        rdmach_status_t st;
        if (call % 2 == 0) {
            double v = me + call, out = -1;
            st = rch_coll_allreduce(&c, &v, &out, 1, &dsum);
            t->ran[me][call] = rch_coll_last_algo(RCH_COLL_ALLREDUCE);
            double want = (double)t->p * (t->p - 1) / 2 + (double)t->p * call;
            if (st == RDMACH_OK && out != want)
                snprintf(t->err[me], sizeof(t->err[me]), "call %d (%s): sum %g, expected %g", call,
                         t->ran[me][call], out, want);
        } else {
            st = rch_coll_barrier(&c);
            t->ran[me][call] = rch_coll_barrier_last();
        }
        if (st != RDMACH_OK)
            snprintf(t->err[me], sizeof(t->err[me]), "call %d: %s", call, rdmach_last_error());
    }
    rch_coll_comm_free(&c);
}

/* A communicator's first COLL_SEG_AFTER calls that would set up shared
 * memory (here allreduces and barriers in turn, counted together) run by
 * messages; from the next, every rank uses the node segment and the
 * shared-memory barrier. A forced algorithm is set up at once, and its calls
 * do not count. */
Test(shmseg, a_young_communicator_runs_its_first_calls_by_messages_then_the_node_segment)
{
    for (int forced = 0; forced < 2; forced++)
        for (int p = 2; p <= 5; p += 3) {
            struct young_run *t = calloc(1, sizeof(*t));
            t->p = p;
            rch_tun.coll_seg_after = YOUNG_AFTER;
            cr_assert_eq(rch_coll_force(RCH_COLL_ALLREDUCE, forced ? "shmseg" : "auto"), RDMACH_OK);
            int rc = fake_dev_run(p, 4096, young_body, t);
            rch_tun.coll_seg_after = 0;
            cr_assert_eq(rc, 0, "p=%d: deadlock", p);
            for (int r = 0; r < p; r++) {
                cr_assert_eq(t->err[r][0], 0, "p=%d rank %d: %s", p, r, t->err[r]);
                for (int call = 0; call < YOUNG_CALLS; call++) {
                    const char *ran = t->ran[r][call];
                    /* a forced allreduce is not deferred, nor counted */
                    int young = forced ? call / 2 < YOUNG_AFTER : call < YOUNG_AFTER;
                    if (call % 2)
                        cr_assert(young ? strcmp(ran, "dissemination") == 0 : strcmp(ran, "dissemination") != 0,
                                  "p=%d forced=%d rank %d call %d: barrier ran %s", p, forced, r, call, ran);
                    else if (forced)
                        cr_assert_str_eq(ran, "shmseg", "p=%d rank %d call %d", p, r, call);
                    else
                        cr_assert(young ? !young_is_seg(ran) : young_is_seg(ran),
                                  "p=%d rank %d call %d: allreduce ran %s", p, r, call, ran);
                }
            }
            cr_assert_eq(fake_dev_leftovers(), 0, "p=%d left messages queued", p);
            free(t);
        }
}
