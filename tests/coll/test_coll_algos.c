/*
 * Every algorithm of every collective in src/coll against a naive reference,
 * on the thread-based fake device (fake_dev.h): communicator sizes 1..9 and
 * a few larger, random roots and counts, in-place variants, a communicator
 * whose ranks are a permutation of the world's, a commutative and a
 * non-commutative reduction, and both all-eager and all-rendezvous
 * delivery (the latter catches algorithms that deadlock without buffering).
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "fake_dev.h"

#define MAXP 16

/* ---- reductions used by the tests ---- */

static struct rch_coll_op op_sum, op_affine;

static void init_ops(void)
{
    op_sum = (struct rch_coll_op){ rch_coll_kernel(RCH_COLL_OP_SUM, RCH_COLL_K_I32), NULL, 4, 1 };
    op_affine = (struct rch_coll_op){ fake_affine_op, NULL, 8, 0 };
}

/* ---- one test run: parameters, shared by all rank threads ---- */

struct tc {
    enum rch_coll_id coll;
    int p, root, in_place;
    size_t count;                  /* elements (int32 for data movement) */
    const struct rch_coll_op *op;
    int perm[MAXP];                /* comm rank -> world rank */
    size_t vcounts[MAXP];          /* per-rank counts (v variants, reduce_scatter) */
    size_t vdispls[MAXP];          /* element displacements (v variants) */
    size_t a2a[MAXP][MAXP];        /* alltoallv: a2a[i][j] elements from i to j */
    atomic_int arrived[8];         /* barrier generations */
    char err[MAXP][256];
};

/* Deterministic data: element i of rank r's contribution (salted per use). */
static uint32_t val(int r, size_t i, int salt)
{
    uint32_t x = (uint32_t)r * 2654435761u + (uint32_t)i * 40503u + (uint32_t)salt * 977u + 1;
    x ^= x >> 13;
    return x * 2246822519u;
}

/* Operand of rank r for reductions: `count` elements of op->elem_size. */
static void operand(const struct tc *t, int r, uint32_t *out)
{
    size_t words = t->count * t->op->elem_size / 4;
    for (size_t i = 0; i < words; i++)
        out[i] = val(r, i, 7) | 1;   /* odd multipliers keep affine maps invertible */
}

/* ref = x_lo op ... op x_hi (ranks in order); count elements. */
static void fold(const struct tc *t, int lo, int hi, uint32_t *ref, size_t count)
{
    size_t words = count * t->op->elem_size / 4;
    uint32_t *x = malloc(t->count * t->op->elem_size + 8);
    uint32_t *full = malloc(t->count * t->op->elem_size + 8);
    (void)words;
    for (int r = lo; r <= hi; r++) {
        operand(t, r, full);
        memcpy(x, full, count * t->op->elem_size);
        if (r == lo) {
            memcpy(ref, x, count * t->op->elem_size);
        } else {
            t->op->fn(ref, x, count, NULL);
            memcpy(ref, x, count * t->op->elem_size);
        }
    }
    free(x);
    free(full);
}

#define FAIL(t, rank, ...) snprintf((t)->err[rank], sizeof((t)->err[rank]), __VA_ARGS__)

static int check_words(struct tc *t, int rank, const char *what, const uint32_t *got,
                       const uint32_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            FAIL(t, rank, "%s: word %zu is %08x, expected %08x", what, i, got[i], want[i]);
            return 0;
        }
    return 1;
}

static int check_status(struct tc *t, int rank, rdmach_status_t st)
{
    if (st != RDMACH_OK) {
        FAIL(t, rank, "status %d: %s", st, rdmach_last_error());
        return 0;
    }
    return 1;
}

/* ---- the per-rank bodies ---- */

static void body(int world, void *arg)
{
    struct tc *t = arg;
    int rank = 0;
    while (t->perm[rank] != world)
        rank++;
    struct rch_coll_comm c = { .rank = rank, .size = t->p, .world_of = t->perm, .ctx = 17 };
    int p = t->p, root = t->root, ip = t->in_place;
    size_t n = t->count;
    rdmach_status_t st = RDMACH_OK;
    size_t es = t->op ? t->op->elem_size : 4;
    size_t big = (size_t)p * (n + 64) * 16 + 64;
    uint32_t *s = calloc(big, 1), *r = calloc(big, 1), *ref = calloc(big, 1);
    size_t cnt[MAXP] = { 0 }, dsp[MAXP] = { 0 }, scnt[MAXP] = { 0 }, sdsp[MAXP] = { 0 };

    switch (t->coll) {
    case RCH_COLL_BARRIER:
        for (int g = 0; g < 8; g++) {
            atomic_fetch_add(&t->arrived[g], 1);
            st = rch_coll_barrier(&c);
            if (!check_status(t, rank, st))
                break;
            if (atomic_load(&t->arrived[g]) != p) {
                FAIL(t, rank, "left barrier %d when only %d of %d had arrived", g,
                     atomic_load(&t->arrived[g]), p);
                break;
            }
        }
        break;

    case RCH_COLL_BCAST:
        for (size_t i = 0; i < n; i++)
            ref[i] = val(root, i, 1);
        if (rank == root)
            memcpy(r, ref, n * 4);
        else
            memset(r, 0xee, n * 4);
        st = rch_coll_bcast(&c, r, n * 4, root);
        if (check_status(t, rank, st))
            check_words(t, rank, "bcast", r, ref, n);
        break;

    case RCH_COLL_REDUCE:
    case RCH_COLL_ALLREDUCE:
        operand(t, rank, s);
        if (ip && (t->coll == RCH_COLL_ALLREDUCE || rank == root))
            memcpy(r, s, n * es);
        if (t->coll == RCH_COLL_REDUCE)
            st = rch_coll_reduce(&c, ip && rank == root ? RCH_COLL_IN_PLACE : s,
                                 rank == root ? r : NULL, n, t->op, root);
        else
            st = rch_coll_allreduce(&c, ip ? RCH_COLL_IN_PLACE : s, r, n, t->op);
        if (check_status(t, rank, st) && (t->coll == RCH_COLL_ALLREDUCE || rank == root)) {
            fold(t, 0, p - 1, ref, n);
            check_words(t, rank, "reduce result", r, ref, n * es / 4);
        }
        break;

    case RCH_COLL_SCAN:
    case RCH_COLL_EXSCAN:
        operand(t, rank, s);
        if (ip)
            memcpy(r, s, n * es);
        else
            memset(r, 0xee, n * es);
        if (t->coll == RCH_COLL_SCAN)
            st = rch_coll_scan(&c, ip ? RCH_COLL_IN_PLACE : s, r, n, t->op);
        else
            st = rch_coll_exscan(&c, ip ? RCH_COLL_IN_PLACE : s, r, n, t->op);
        if (!check_status(t, rank, st))
            break;
        if (t->coll == RCH_COLL_SCAN) {
            fold(t, 0, rank, ref, n);
            check_words(t, rank, "scan", r, ref, n * es / 4);
        } else if (rank > 0) {
            fold(t, 0, rank - 1, ref, n);
            check_words(t, rank, "exscan", r, ref, n * es / 4);
        } else if (ip) {       /* rank 0's buffer is left alone */
            check_words(t, rank, "exscan rank 0 untouched", r, s, n * es / 4);
        }
        break;

    case RCH_COLL_GATHER:
        for (size_t i = 0; i < n; i++)
            s[i] = val(rank, i, 2);
        memset(r, 0xee, (size_t)p * n * 4);
        if (ip && rank == root)
            memcpy(r + (size_t)root * n, s, n * 4);
        st = rch_coll_gather(&c, ip && rank == root ? RCH_COLL_IN_PLACE : s, r, n * 4, root);
        if (check_status(t, rank, st) && rank == root) {
            for (int q = 0; q < p; q++)
                for (size_t i = 0; i < n; i++)
                    ref[(size_t)q * n + i] = val(q, i, 2);
            check_words(t, rank, "gather", r, ref, (size_t)p * n);
        }
        break;

    case RCH_COLL_SCATTER:
        if (rank == root)
            for (int q = 0; q < p; q++)
                for (size_t i = 0; i < n; i++)
                    s[(size_t)q * n + i] = val(q, i, 3);
        memset(r, 0xee, n * 4);
        st = rch_coll_scatter(&c, rank == root ? s : NULL,
                              ip && rank == root ? RCH_COLL_IN_PLACE : r, n * 4, root);
        if (check_status(t, rank, st) && !(ip && rank == root)) {
            for (size_t i = 0; i < n; i++)
                ref[i] = val(rank, i, 3);
            check_words(t, rank, "scatter", r, ref, n);
        }
        break;

    case RCH_COLL_GATHERV:
    case RCH_COLL_ALLGATHERV:
        for (int q = 0; q < p; q++) {
            cnt[q] = t->vcounts[q] * 4;
            dsp[q] = t->vdispls[q] * 4;
        }
        for (size_t i = 0; i < t->vcounts[rank]; i++)
            s[i] = val(rank, i, 4);
        memset(r, 0xee, big);
        if (ip && (t->coll == RCH_COLL_ALLGATHERV || rank == root))
            memcpy((char *)r + dsp[rank], s, cnt[rank]);
        if (t->coll == RCH_COLL_GATHERV)
            st = rch_coll_gatherv(&c, ip && rank == root ? RCH_COLL_IN_PLACE : s, cnt[rank], r,
                                  rank == root ? cnt : NULL, rank == root ? dsp : NULL, root);
        else
            st = rch_coll_allgatherv(&c, ip ? RCH_COLL_IN_PLACE : s, r, cnt, dsp);
        if (check_status(t, rank, st) && (t->coll == RCH_COLL_ALLGATHERV || rank == root)) {
            memset(ref, 0xee, big);
            for (int q = 0; q < p; q++)
                for (size_t i = 0; i < t->vcounts[q]; i++)
                    ref[t->vdispls[q] + i] = val(q, i, 4);
            check_words(t, rank, "gatherv", r, ref, big / 4);
        }
        break;

    case RCH_COLL_SCATTERV:
        for (int q = 0; q < p; q++) {
            cnt[q] = t->vcounts[q] * 4;
            dsp[q] = t->vdispls[q] * 4;
        }
        if (rank == root)
            for (int q = 0; q < p; q++)
                for (size_t i = 0; i < t->vcounts[q]; i++)
                    s[t->vdispls[q] + i] = val(q, i, 5);
        memset(r, 0xee, cnt[rank] + 4);
        st = rch_coll_scatterv(&c, rank == root ? s : NULL, rank == root ? cnt : NULL,
                               rank == root ? dsp : NULL,
                               ip && rank == root ? RCH_COLL_IN_PLACE : r, cnt[rank], root);
        if (check_status(t, rank, st) && !(ip && rank == root)) {
            for (size_t i = 0; i < t->vcounts[rank]; i++)
                ref[i] = val(rank, i, 5);
            ref[t->vcounts[rank]] = 0xeeeeeeee;   /* nothing written past the block */
            check_words(t, rank, "scatterv", r, ref, t->vcounts[rank] + 1);
        }
        break;

    case RCH_COLL_ALLGATHER:
        for (size_t i = 0; i < n; i++)
            s[i] = val(rank, i, 6);
        memset(r, 0xee, (size_t)p * n * 4);
        if (ip)
            memcpy(r + (size_t)rank * n, s, n * 4);
        st = rch_coll_allgather(&c, ip ? RCH_COLL_IN_PLACE : s, r, n * 4);
        if (check_status(t, rank, st)) {
            for (int q = 0; q < p; q++)
                for (size_t i = 0; i < n; i++)
                    ref[(size_t)q * n + i] = val(q, i, 6);
            check_words(t, rank, "allgather", r, ref, (size_t)p * n);
        }
        break;

    case RCH_COLL_ALLTOALL:
        /* block for q: val(rank*MAXP + q, i) */
        for (int q = 0; q < p; q++)
            for (size_t i = 0; i < n; i++)
                s[(size_t)q * n + i] = val(rank * MAXP + q, i, 8);
        if (ip)
            memcpy(r, s, (size_t)p * n * 4);
        st = rch_coll_alltoall(&c, ip ? RCH_COLL_IN_PLACE : s, r, n * 4);
        if (check_status(t, rank, st)) {
            for (int q = 0; q < p; q++)
                for (size_t i = 0; i < n; i++)
                    ref[(size_t)q * n + i] = val(q * MAXP + rank, i, 8);
            check_words(t, rank, "alltoall", r, ref, (size_t)p * n);
        }
        break;

    case RCH_COLL_ALLTOALLV: {
        /* send layout: blocks in reverse rank order with a gap word between;
         * receive layout: rank order, gap of 2 words. In place both are the
         * receive layout and counts must be symmetric (a2a[i][j] == a2a[j][i]). */
        size_t off = 0;
        for (int q = p - 1; q >= 0; q--) {
            scnt[q] = t->a2a[rank][q] * 4;
            sdsp[q] = off * 4;
            off += t->a2a[rank][q] + 1;
        }
        off = 0;
        for (int q = 0; q < p; q++) {
            cnt[q] = t->a2a[q][rank] * 4;
            dsp[q] = off * 4;
            off += t->a2a[q][rank] + 2;
        }
        memset(r, 0xee, big);
        for (int q = 0; q < p; q++)
            for (size_t i = 0; i < t->a2a[rank][q]; i++) {
                if (ip)
                    r[dsp[q] / 4 + i] = val(rank * MAXP + q, i, 9);
                else
                    s[sdsp[q] / 4 + i] = val(rank * MAXP + q, i, 9);
            }
        st = rch_coll_alltoallv(&c, ip ? RCH_COLL_IN_PLACE : s, scnt, sdsp, r, cnt, dsp);
        if (check_status(t, rank, st)) {
            memset(ref, 0xee, big);
            for (int q = 0; q < p; q++)
                for (size_t i = 0; i < t->a2a[q][rank]; i++)
                    ref[dsp[q] / 4 + i] = val(q * MAXP + rank, i, 9);
            check_words(t, rank, "alltoallv", r, ref, big / 4);
        }
        break;
    }

    case RCH_COLL_REDUCE_SCATTER: {
        size_t total = 0, before = 0;
        for (int q = 0; q < p; q++) {
            if (q < rank)
                before += t->vcounts[q];
            total += t->vcounts[q];
        }
        struct tc tt = *t;       /* operand() and fold() over the whole vector */
        tt.count = total;
        operand(&tt, rank, s);
        if (ip)
            memcpy(r, s, total * es);
        st = rch_coll_reduce_scatter(&c, ip ? RCH_COLL_IN_PLACE : s, r, t->vcounts, t->op);
        if (check_status(t, rank, st)) {
            uint32_t *full = calloc(total * es + 8, 1);
            fold(&tt, 0, p - 1, full, total);
            check_words(t, rank, "reduce_scatter", r, full + before * es / 4,
                        t->vcounts[rank] * es / 4);
            free(full);
        }
        break;
    }

    default:
        FAIL(t, rank, "no test for collective %d", t->coll);
    }
    free(s);
    free(r);
    free(ref);
}

/* ---- drivers ---- */

static unsigned rng = 12345;
static unsigned rnd(unsigned n)
{
    rng = rng * 1103515245u + 12345u;
    return n ? (rng >> 8) % n : 0;
}

static void setup_case(struct tc *t, enum rch_coll_id coll, int p, const struct rch_coll_op *op)
{
    memset(t, 0, sizeof(*t));
    t->coll = coll;
    t->p = p;
    t->op = op;
    t->root = (int)rnd((unsigned)p);
    t->count = rnd(5) == 0 ? 0 : 1 + rnd(40);
    /* world ranks of the communicator: a random permutation */
    for (int i = 0; i < p; i++)
        t->perm[i] = i;
    for (int i = p - 1; i > 0; i--) {
        int j = (int)rnd((unsigned)i + 1), x = t->perm[i];
        t->perm[i] = t->perm[j];
        t->perm[j] = x;
    }
    /* v counts (some zero) and displacements in shuffled order with gaps */
    size_t off = 3;
    for (int i = p - 1; i >= 0; i--) {
        t->vcounts[i] = rnd(4) == 0 ? 0 : rnd(20);
        t->vdispls[i] = off;
        off += t->vcounts[i] + rnd(3);
    }
    for (int i = 0; i < p; i++)
        for (int j = 0; j <= i; j++)
            t->a2a[i][j] = t->a2a[j][i] = rnd(4) == 0 ? 0 : rnd(12);
}

static const struct rch_coll_op *ops_of(enum rch_coll_id coll, int k)
{
    int reduction = coll == RCH_COLL_REDUCE || coll == RCH_COLL_ALLREDUCE ||
                    coll == RCH_COLL_REDUCE_SCATTER || coll == RCH_COLL_SCAN ||
                    coll == RCH_COLL_EXSCAN;
    if (!reduction)
        return k == 0 ? &op_sum : NULL;   /* one pass; op unused */
    return k == 0 ? &op_sum : k == 1 ? &op_affine : NULL;
}

static const int sizes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16 };

/* Run every algorithm of `coll` over sizes, ops, in-place and delivery modes. */
static void run_all(enum rch_coll_id coll, int reps)
{
    init_ops();
    const char *cname = rch_coll_name(coll);
    for (int ai = 0; ai < rch_coll_algo_count(coll); ai++) {
        const char *algo = rch_coll_algo_name(coll, ai);
        cr_assert_eq(rch_coll_force(coll, algo), RDMACH_OK, "%s", rdmach_last_error());
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            int p = sizes[si];
            for (int k = 0; ops_of(coll, k); k++)
                for (int rep = 0; rep < reps; rep++)
                    for (int ip = 0; ip < 2; ip++)
                        for (int eager = 0; eager < 2; eager++) {
                            static struct tc t;
                            setup_case(&t, coll, p, ops_of(coll, k));
                            t.in_place = ip;
                            int rc = fake_dev_run(p, eager ? (size_t)-1 : 0, body, &t);
                            for (int q = 0; q < p; q++)
                                cr_assert(t.err[q][0] == 0,
                                          "%s/%s p=%d root=%d count=%zu op=%s in_place=%d %s: "
                                          "rank %d: %s", cname, algo, p, t.root, t.count,
                                          k ? "affine" : "sum", ip, eager ? "eager" : "rendezvous",
                                          q, t.err[q]);
                            cr_assert_eq(rc, 0, "%s/%s p=%d: deadlock", cname, algo, p);
                            cr_assert_eq(fake_dev_leftovers(), 0,
                                         "%s/%s p=%d: %d messages or receives left over", cname,
                                         algo, p, fake_dev_leftovers());
                        }
        }
        cr_assert_eq(rch_coll_force(coll, "auto"), RDMACH_OK);
    }
}

Test(coll_algos, barrier_nobody_leaves_early) { run_all(RCH_COLL_BARRIER, 1); }
Test(coll_algos, bcast_matches_root) { run_all(RCH_COLL_BCAST, 3); }
Test(coll_algos, reduce_in_rank_order) { run_all(RCH_COLL_REDUCE, 3); }
Test(coll_algos, allreduce_in_rank_order) { run_all(RCH_COLL_ALLREDUCE, 3); }
Test(coll_algos, gather_matches_reference) { run_all(RCH_COLL_GATHER, 3); }
Test(coll_algos, gatherv_matches_reference) { run_all(RCH_COLL_GATHERV, 3); }
Test(coll_algos, scatter_matches_reference) { run_all(RCH_COLL_SCATTER, 3); }
Test(coll_algos, scatterv_matches_reference) { run_all(RCH_COLL_SCATTERV, 3); }
Test(coll_algos, allgather_matches_reference) { run_all(RCH_COLL_ALLGATHER, 3); }
Test(coll_algos, allgatherv_matches_reference) { run_all(RCH_COLL_ALLGATHERV, 3); }
Test(coll_algos, alltoall_matches_reference) { run_all(RCH_COLL_ALLTOALL, 3); }
Test(coll_algos, alltoallv_matches_reference) { run_all(RCH_COLL_ALLTOALLV, 3); }
Test(coll_algos, reduce_scatter_in_rank_order) { run_all(RCH_COLL_REDUCE_SCATTER, 3); }
Test(coll_algos, scan_in_rank_order) { run_all(RCH_COLL_SCAN, 3); }
Test(coll_algos, exscan_in_rank_order) { run_all(RCH_COLL_EXSCAN, 3); }

/* ---- selection ---- */

static void selection_body(int world, void *arg)
{
    struct tc *t = arg;
    struct rch_coll_comm c = { .rank = world, .size = t->p, .world_of = t->perm, .ctx = 3 };
    uint32_t s[8 * MAXP] = { 0 }, r[8 * MAXP];
    rdmach_status_t st = rch_coll_allgather(&c, s, r, 4);
    if (st != RDMACH_OK)
        FAIL(t, world, "%s", rdmach_last_error());
    if (t->op) {
        st = rch_coll_reduce_scatter(&c, s, r, t->vcounts, t->op);
        if (st != RDMACH_OK)
            FAIL(t, world, "%s", rdmach_last_error());
    }
}

Test(coll_select, forced_algorithm_that_does_not_apply_falls_back)
{
    static struct tc t;
    init_ops();
    memset(&t, 0, sizeof(t));
    t.p = 6;
    for (int i = 0; i < t.p; i++) {
        t.perm[i] = i;
        t.vcounts[i] = 1;
    }
    t.op = &op_affine;
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLGATHER, "recdbl"), RDMACH_OK);
    cr_assert_eq(rch_coll_force(RCH_COLL_REDUCE_SCATTER, "pairwise"), RDMACH_OK);
    cr_assert_eq(fake_dev_run(t.p, 0, selection_body, &t), 0);
    for (int i = 0; i < t.p; i++)
        cr_assert(t.err[i][0] == 0, "rank %d: %s", i, t.err[i]);
    cr_assert_str_eq(rch_coll_last_algo(RCH_COLL_ALLGATHER), "ring");
    cr_assert_str_eq(rch_coll_last_algo(RCH_COLL_REDUCE_SCATTER), "reduce_scatterv");

    t.p = 8;
    for (int i = 0; i < t.p; i++) {
        t.perm[i] = i;
        t.vcounts[i] = 1;
    }
    t.op = &op_sum;
    cr_assert_eq(fake_dev_run(t.p, 0, selection_body, &t), 0);
    cr_assert_str_eq(rch_coll_last_algo(RCH_COLL_ALLGATHER), "recdbl");
    cr_assert_str_eq(rch_coll_last_algo(RCH_COLL_REDUCE_SCATTER), "pairwise");
}

Test(coll_select, tuning_table_picks_by_size_and_shape)
{
    static struct tc t;
    memset(&t, 0, sizeof(t));
    t.p = 4;
    for (int i = 0; i < t.p; i++)
        t.perm[i] = i;
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLGATHER, "auto"), RDMACH_OK);
    cr_assert_eq(fake_dev_run(t.p, 0, selection_body, &t), 0);
    cr_assert_str_eq(rch_coll_last_algo(RCH_COLL_ALLGATHER), "recdbl");   /* 4 ranks, 4 bytes */
    t.p = 5;
    for (int i = 0; i < t.p; i++)
        t.perm[i] = i;
    cr_assert_eq(fake_dev_run(t.p, 0, selection_body, &t), 0);
    cr_assert_str_eq(rch_coll_last_algo(RCH_COLL_ALLGATHER), "ring");     /* not a power of 2 */
}

Test(coll_select, unknown_algorithm_is_a_config_error_naming_the_choices)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLREDUCE, "bogus"), RDMACH_ERR_CONFIG);
    cr_assert(strstr(rdmach_last_error(), "bogus"), "%s", rdmach_last_error());
    cr_assert(strstr(rdmach_last_error(), "recdbl|reduce_bcast"), "%s", rdmach_last_error());
}

/* ---- mismatches between ranks are errors, not silent truncation ---- */

static void mismatch_body(int world, void *arg)
{
    struct tc *t = arg;
    struct rch_coll_comm c = { .rank = world, .size = t->p, .world_of = t->perm, .ctx = 5 };
    uint32_t buf[64] = { 0 };
    /* rank 0 (root) broadcasts 8 words, the others expect 4 */
    rdmach_status_t st = rch_coll_bcast(&c, buf, world == 0 ? 32 : 16, 0);
    if (world != 0 && st != RDMACH_ERR_TRUNCATE)
        FAIL(t, world, "expected a truncation error, got %d", st);
    else if (world != 0 && !strstr(rdmach_last_error(), "expected 16"))
        FAIL(t, world, "message does not name the sizes: %s", rdmach_last_error());
}

Test(coll_errors, bcast_with_mismatched_counts_is_truncation)
{
    static struct tc t;
    memset(&t, 0, sizeof(t));
    t.p = 2;
    t.perm[0] = 0;
    t.perm[1] = 1;
    cr_assert_eq(rch_coll_force(RCH_COLL_BCAST, "auto"), RDMACH_OK);
    fake_dev_run(t.p, (size_t)-1, mismatch_body, &t);
    for (int i = 0; i < t.p; i++)
        cr_assert(t.err[i][0] == 0, "rank %d: %s", i, t.err[i]);
}

Test(coll_errors, bad_root_is_invalid_arg)
{
    int w = 0;
    struct rch_coll_comm c = { .rank = 0, .size = 1, .world_of = &w, .ctx = 5 };
    char b[4];
    cr_assert_eq(rch_coll_bcast(&c, b, 4, 1), RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "root 1"), "%s", rdmach_last_error());
    cr_assert_eq(rch_coll_gather(&c, b, b, 4, -1), RDMACH_ERR_INVALID_ARG);
}
