/*
 * Every MPI collective against a naive reference computed locally from
 * deterministic per-rank data, on MPI_COMM_WORLD and on a split
 * sub-communicator whose ranks are a permutation of the world's (both halves
 * run at once), with random roots and counts (zero included), in-place
 * variants, and send/receive datatypes drawn from MPI_INT and a derived type
 * with holes (two ints at byte 0 and 8 of a 16-byte extent) — mixed, so a
 * send of 2k MPI_INT matches a receive of k holey elements. Holes and
 * bytes outside the result must keep their sentinel.
 *
 * Reductions: MPI_SUM on MPI_INT, MPI_SUM on the holey type (predefined op
 * on a derived type), a non-commutative user operation (composition of
 * affine maps x -> a·x + b) on a contiguous and on a holey pair type, and
 * MPI_MAXLOC on MPI_DOUBLE_INT (a padded pair).
 *
 * Every algorithm of every collective is run: the program forces each
 * algorithm in turn (rch_coll_force; the same order on every rank) and then
 * lets the tuning table choose.
 *
 * Usage: test_mpi_coll [rounds]   (default 3)
 */
#include <stdint.h>
#include "coll/coll.h"
#include "mpi_test.h"

#define SENT ((int)0x5a5a5a5a)
#define MAXP 64

static MPI_Datatype gap_t;      /* ints at bytes 0 and 8, extent 16 */
static MPI_Datatype pair_t;     /* 2 contiguous MPI_UNSIGNED: an affine map (a, b) */
static MPI_Op affine_op;
static long checks;

/* ---- deterministic data and shared randomness ---- */

static int val(int who, size_t j, int salt)
{
    uint64_t s = ((uint64_t)(unsigned)who << 32) ^ ((uint64_t)j << 8) ^ (uint64_t)salt;
    return (int)(uint32_t)mt_next(&s);
}

/* Every rank draws the same sequence (same seed, same number of draws). */
static uint64_t seed;
static unsigned rnd(unsigned n)
{
    return n ? (unsigned)(mt_next(&seed) % n) : 0;
}

/* ---- layouts of data ints in memory ---- */

enum lay { L_INT, L_GAP };
static MPI_Datatype lt(enum lay l) { return l == L_INT ? MPI_INT : gap_t; }
static int ipe(enum lay l) { return l == L_INT ? 1 : 2; }           /* data ints per element */
static size_t pos(enum lay l, size_t j) { return l == L_INT ? j : (j / 2) * 4 + (j % 2) * 2; }
static size_t span(enum lay l, size_t m) { return l == L_INT ? m : (m / 2) * 4; }   /* m even */

static int *image(size_t ints)
{
    int *b = malloc((ints + 4) * sizeof(int));
    CHECK(b, "out of memory");
    for (size_t i = 0; i < ints + 4; i++)
        b[i] = SENT;
    return b;
}

static void same(const void *got, const void *want, size_t bytes, const char *what, MPI_Comm comm)
{
    int r;
    MPI_Comm_rank(comm, &r);
    checks++;
    if (memcmp(got, want, bytes) == 0)
        return;
    const unsigned char *g = got, *w = want;
    size_t i = 0;
    while (g[i] == w[i])
        i++;
    CHECK(0, "%s (comm rank %d): byte %zu is %02x, expected %02x (int %zu: %08x vs %08x)", what, r, i,
          g[i], w[i], i / 4, ((const unsigned *)got)[i / 4], ((const unsigned *)want)[i / 4]);
}

static enum lay rlay(void) { return rnd(2) ? L_GAP : L_INT; }
static size_t rcount(unsigned max) { return rnd(6) == 0 ? 0 : 2 * (1 + rnd(max)); }  /* even */

/* ---- data movement ---- */

static void t_bcast(MPI_Comm comm, int me, int p)
{
    int root = (int)rnd((unsigned)p);
    size_t m = rcount(20);
    enum lay l = rlay();
    int *b = image(span(l, m)), *e = image(span(l, m));
    for (size_t j = 0; j < m; j++) {
        e[pos(l, j)] = val(root, j, 1);
        if (me == root)
            b[pos(l, j)] = val(root, j, 1);
    }
    MPI_OK(MPI_Bcast(b, (int)m / ipe(l), lt(l), root, comm));
    same(b, e, span(l, m) * 4 + 16, "bcast", comm);
    free(b);
    free(e);
}

static void t_gather(MPI_Comm comm, int me, int p, int all)
{
    int root = all ? -1 : (int)rnd((unsigned)p);
    size_t m = rcount(16);
    enum lay ls = rlay(), lr = rlay();
    int in_place = rnd(3) == 0;
    int recv_here = all || me == root;
    int *s = image(span(ls, m)), *r = image(span(lr, p * m)), *e = image(span(lr, p * m));
    for (size_t j = 0; j < m; j++)
        s[pos(ls, j)] = val(me, j, 2);
    for (int q = 0; q < p; q++)
        for (size_t j = 0; j < m; j++)
            e[pos(lr, q * m + j)] = val(q, j, 2);
    const void *sb = s;
    if (in_place && recv_here) {
        for (size_t j = 0; j < m; j++)
            r[pos(lr, me * m + j)] = val(me, j, 2);
        sb = MPI_IN_PLACE;
    }
    int rc = (int)m / ipe(lr);
    if (all)
        MPI_OK(MPI_Allgather(sb, (int)m / ipe(ls), lt(ls), r, rc, lt(lr), comm));
    else
        MPI_OK(MPI_Gather(sb, (int)m / ipe(ls), lt(ls), r, rc, lt(lr), root, comm));
    if (recv_here)
        same(r, e, span(lr, p * m) * 4 + 16, all ? "allgather" : "gather", comm);
    free(s);
    free(r);
    free(e);
}

/* Per-rank counts (even data ints) and element displacements: blocks in a
 * shuffled order with holes between them. Returns the total span in elements. */
static size_t v_layout(int p, enum lay l, size_t *m, int *cnt, int *dsp)
{
    int order[MAXP];
    size_t at = rnd(3);
    for (int q = 0; q < p; q++) {
        m[q] = rcount(10);
        cnt[q] = (int)m[q] / ipe(l);
        order[q] = q;
    }
    for (int q = p - 1; q > 0; q--) {
        int k = (int)rnd((unsigned)q + 1), x = order[q];
        order[q] = order[k];
        order[k] = x;
    }
    for (int i = 0; i < p; i++) {
        dsp[order[i]] = (int)at;
        at += (size_t)cnt[order[i]] + rnd(3);
    }
    return at;
}

static void t_gatherv(MPI_Comm comm, int me, int p, int all)
{
    int root = all ? -1 : (int)rnd((unsigned)p);
    enum lay ls = rlay(), lr = rlay();
    int in_place = rnd(3) == 0;
    int recv_here = all || me == root;
    size_t m[MAXP];
    int cnt[MAXP], dsp[MAXP];
    size_t elems = v_layout(p, lr, m, cnt, dsp);
    size_t rspan = elems * (lr == L_INT ? 1 : 4);
    int *s = image(span(ls, m[me])), *r = image(rspan), *e = image(rspan);
    for (size_t j = 0; j < m[me]; j++)
        s[pos(ls, j)] = val(me, j, 3);
    for (int q = 0; q < p; q++)
        for (size_t j = 0; j < m[q]; j++)
            e[pos(lr, (size_t)dsp[q] * ipe(lr) + j)] = val(q, j, 3);
    const void *sb = s;
    if (in_place && recv_here) {
        for (size_t j = 0; j < m[me]; j++)
            r[pos(lr, (size_t)dsp[me] * ipe(lr) + j)] = val(me, j, 3);
        sb = MPI_IN_PLACE;
    }
    int sc = (int)m[me] / ipe(ls);
    if (all)
        MPI_OK(MPI_Allgatherv(sb, sc, lt(ls), r, cnt, dsp, lt(lr), comm));
    else
        MPI_OK(MPI_Gatherv(sb, sc, lt(ls), r, cnt, dsp, lt(lr), root, comm));
    if (recv_here)
        same(r, e, rspan * 4 + 16, all ? "allgatherv" : "gatherv", comm);
    free(s);
    free(r);
    free(e);
}

static void t_scatter(MPI_Comm comm, int me, int p)
{
    int root = (int)rnd((unsigned)p);
    size_t m = rcount(16);
    enum lay ls = rlay(), lr = rlay();
    int in_place = rnd(3) == 0 && me == root;
    int *s = image(span(ls, p * m)), *r = image(span(lr, m)), *e = image(span(lr, m));
    if (me == root)
        for (int q = 0; q < p; q++)
            for (size_t j = 0; j < m; j++)
                s[pos(ls, q * m + j)] = val(q, j, 4);
    for (size_t j = 0; j < m; j++)
        e[pos(lr, j)] = val(me, j, 4);
    MPI_OK(MPI_Scatter(s, (int)m / ipe(ls), lt(ls), in_place ? MPI_IN_PLACE : (void *)r,
                       (int)m / ipe(lr), lt(lr), root, comm));
    if (!in_place)
        same(r, e, span(lr, m) * 4 + 16, "scatter", comm);
    free(s);
    free(r);
    free(e);
}

static void t_scatterv(MPI_Comm comm, int me, int p)
{
    int root = (int)rnd((unsigned)p);
    enum lay ls = rlay(), lr = rlay();
    int in_place = rnd(3) == 0 && me == root;
    size_t m[MAXP];
    int cnt[MAXP], dsp[MAXP];
    size_t elems = v_layout(p, ls, m, cnt, dsp);
    size_t sspan = elems * (ls == L_INT ? 1 : 4);
    int *s = image(sspan), *r = image(span(lr, m[me])), *e = image(span(lr, m[me]));
    if (me == root)
        for (int q = 0; q < p; q++)
            for (size_t j = 0; j < m[q]; j++)
                s[pos(ls, (size_t)dsp[q] * ipe(ls) + j)] = val(q, j, 5);
    for (size_t j = 0; j < m[me]; j++)
        e[pos(lr, j)] = val(me, j, 5);
    MPI_OK(MPI_Scatterv(s, cnt, dsp, lt(ls), in_place ? MPI_IN_PLACE : (void *)r,
                        (int)m[me] / ipe(lr), lt(lr), root, comm));
    if (!in_place)
        same(r, e, span(lr, m[me]) * 4 + 16, "scatterv", comm);
    free(s);
    free(r);
    free(e);
}

static void t_alltoall(MPI_Comm comm, int me, int p)
{
    size_t m = rcount(12);
    enum lay ls = rlay(), lr = rlay();
    int in_place = rnd(3) == 0;
    int *s = image(span(ls, p * m)), *r = image(span(lr, p * m)), *e = image(span(lr, p * m));
    for (int q = 0; q < p; q++)
        for (size_t j = 0; j < m; j++) {
            s[pos(ls, q * m + j)] = val(me * MAXP + q, j, 6);
            if (in_place)
                r[pos(lr, q * m + j)] = val(me * MAXP + q, j, 6);
            e[pos(lr, q * m + j)] = val(q * MAXP + me, j, 6);
        }
    MPI_OK(MPI_Alltoall(in_place ? MPI_IN_PLACE : (void *)s, (int)m / ipe(ls), lt(ls), r,
                        (int)m / ipe(lr), lt(lr), comm));
    same(r, e, span(lr, p * m) * 4 + 16, in_place ? "alltoall in place" : "alltoall", comm);
    free(s);
    free(r);
    free(e);
}

/* Alltoallv (w = 0) and Alltoallw (w = 1: a layout per block, byte
 * displacements). mm[i][j]: data ints from i to j, symmetric when in place. */
static void t_alltoallvw(MPI_Comm comm, int me, int p, int w)
{
    static size_t mm[MAXP][MAXP];
    int in_place = rnd(3) == 0;
    for (int i = 0; i < p; i++)
        for (int j = 0; j <= i; j++) {
            mm[i][j] = rcount(6);
            mm[j][i] = in_place ? mm[i][j] : rcount(6);
        }
    enum lay ls[MAXP], lr[MAXP], l0s = rlay(), l0r = rlay();
    for (int q = 0; q < p; q++) {
        ls[q] = w ? rlay() : l0s;
        lr[q] = w ? rlay() : l0r;
    }
    if (in_place)
        for (int q = 0; q < p; q++)
            ls[q] = lr[q];
    /* Blocks laid out in reverse rank order, two ints of hole between; the
     * displacement unit is the element (v) or the byte (w). With one layout
     * per side (v), offsets are whole elements of it. */
    int scnt[MAXP], sdsp[MAXP], rcnt[MAXP], rdsp[MAXP];
    MPI_Datatype sty[MAXP], rty[MAXP];
    size_t soff[MAXP], roff[MAXP], sat = 0, rat = 0;   /* ints */
    for (int q = p - 1; q >= 0; q--) {
        soff[q] = sat;
        sat += span(ls[q], mm[me][q]) + 4;
        roff[q] = rat;
        rat += span(lr[q], mm[q][me]) + 4;
    }
    for (int q = 0; q < p; q++) {
        scnt[q] = (int)mm[me][q] / ipe(ls[q]);
        rcnt[q] = (int)mm[q][me] / ipe(lr[q]);
        sty[q] = lt(ls[q]);
        rty[q] = lt(lr[q]);
        sdsp[q] = w ? (int)soff[q] * 4 : (int)(soff[q] / (ls[q] == L_INT ? 1 : 4));
        rdsp[q] = w ? (int)roff[q] * 4 : (int)(roff[q] / (lr[q] == L_INT ? 1 : 4));
    }
    int *s = image(sat), *r = image(rat), *e = image(rat);
    for (int q = 0; q < p; q++) {
        for (size_t j = 0; j < mm[me][q]; j++) {
            int v = val(me * MAXP + q, j, 7 + w);
            s[soff[q] + pos(ls[q], j)] = v;
            if (in_place)
                r[roff[q] + pos(lr[q], j)] = v;
        }
        for (size_t j = 0; j < mm[q][me]; j++)
            e[roff[q] + pos(lr[q], j)] = val(q * MAXP + me, j, 7 + w);
    }
    const void *sb = in_place ? MPI_IN_PLACE : (void *)s;
    if (w)
        MPI_OK(MPI_Alltoallw(sb, scnt, sdsp, sty, r, rcnt, rdsp, rty, comm));
    else
        MPI_OK(MPI_Alltoallv(sb, scnt, sdsp, lt(l0s), r, rcnt, rdsp, lt(l0r), comm));
    same(r, e, rat * 4 + 16, w ? "alltoallw" : "alltoallv", comm);
    free(s);
    free(r);
    free(e);
}

/* ---- reductions ---- */

/* x op y = "apply x, then y" (x first in rank order). */
static void affine_words(const uint32_t *x, uint32_t *y)
{
    uint32_t a = x[0] * y[0], b = y[0] * x[1] + y[1];
    y[0] = a;
    y[1] = b;
}

/* The user function: elements are (a, b) pairs of unsigned, contiguous
 * (pair_t) or at bytes 0 and 8 of 16 (gap_t). */
static void affine_user(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    size_t stride = *dt == pair_t ? 2 : 4, second = *dt == pair_t ? 1 : 2;
    CHECK(*dt == pair_t || *dt == gap_t, "user function called with datatype 0x%x", (unsigned)*dt);
    const uint32_t *x = in;
    uint32_t *y = inout;
    for (int i = 0; i < *len; i++) {
        uint32_t a[2] = { x[i * stride], x[i * stride + second] };
        uint32_t b[2] = { y[i * stride], y[i * stride + second] };
        affine_words(a, b);
        y[i * stride] = b[0];
        y[i * stride + second] = b[1];
    }
}

struct dint { double v; int i; };

enum rk { R_SUM_INT, R_SUM_GAP, R_AFFINE_PAIR, R_AFFINE_GAP, R_MAXLOC, R_KINDS };
static const char *const rk_name[R_KINDS] = { "sum/int", "sum/holey", "affine/pair", "affine/holey",
                                              "maxloc/double_int" };
static MPI_Datatype rk_type(enum rk k)
{
    switch (k) {
    case R_SUM_INT: return MPI_INT;
    case R_SUM_GAP: case R_AFFINE_GAP: return gap_t;
    case R_AFFINE_PAIR: return pair_t;
    default: return MPI_DOUBLE_INT;
    }
}
static MPI_Op rk_op(enum rk k)
{
    return k == R_SUM_INT || k == R_SUM_GAP ? MPI_SUM : k == R_MAXLOC ? MPI_MAXLOC : affine_op;
}
static size_t rk_bytes(enum rk k)   /* memory per element */
{
    return k == R_SUM_INT ? 4 : k == R_AFFINE_PAIR ? 8 : 16;
}

/* Element e of rank r's operand as two words (one for sum/int). */
static void rk_gen(enum rk k, int r, size_t e, uint32_t w[2])
{
    w[0] = (uint32_t)val(r, e, 11) | (k == R_AFFINE_PAIR || k == R_AFFINE_GAP ? 1u : 0u);
    w[1] = (uint32_t)val(r, e, 12);
    if (k == R_MAXLOC) {
        w[0] %= 5;            /* ties are common: the lowest index must win */
        w[1] = (uint32_t)r;
    }
}

static void rk_combine(enum rk k, const uint32_t *x, uint32_t *y)   /* y = x op y */
{
    switch (k) {
    case R_SUM_INT: y[0] += x[0]; break;
    case R_SUM_GAP: y[0] += x[0]; y[1] += x[1]; break;
    case R_MAXLOC:
        if (x[0] > y[0] || (x[0] == y[0] && (int)x[1] < (int)y[1])) {
            y[0] = x[0];
            y[1] = x[1];
        }
        break;
    default: affine_words(x, y); break;
    }
}

static void rk_store(enum rk k, void *mem, size_t e, const uint32_t w[2])
{
    char *p = (char *)mem + e * rk_bytes(k);
    switch (k) {
    case R_SUM_INT: memcpy(p, &w[0], 4); break;
    case R_AFFINE_PAIR: memcpy(p, w, 8); break;
    case R_SUM_GAP: case R_AFFINE_GAP: memcpy(p, &w[0], 4); memcpy(p + 8, &w[1], 4); break;
    default: {
        struct dint d;
        memcpy(&d, p, sizeof(d));     /* keep the padding's sentinel */
        d.v = (double)w[0];
        d.i = (int)w[1];
        memcpy(p, &d.v, sizeof(d.v));
        memcpy(p + offsetof(struct dint, i), &d.i, sizeof(d.i));
    }
    }
}

/* ref = operand(lo) op ... op operand(hi), element by element. */
static void rk_fold(enum rk k, int lo, int hi, size_t first, size_t n, void *mem)
{
    for (size_t e = 0; e < n; e++) {
        uint32_t acc[2], x[2];
        rk_gen(k, lo, first + e, acc);
        for (int r = lo + 1; r <= hi; r++) {
            rk_gen(k, r, first + e, x);
            rk_combine(k, acc, x);
            acc[0] = x[0];
            acc[1] = x[1];
        }
        rk_store(k, mem, e, acc);
    }
}

static void *rk_image(enum rk k, size_t n)
{
    return image(n * rk_bytes(k) / 4);
}

static void rk_operand(enum rk k, int r, size_t first, size_t n, void *mem)
{
    uint32_t w[2];
    for (size_t e = 0; e < n; e++) {
        rk_gen(k, r, first + e, w);
        rk_store(k, mem, e, w);
    }
}

enum red_call { C_REDUCE, C_ALLREDUCE, C_SCAN, C_EXSCAN };

static void t_reduce(MPI_Comm comm, int me, int p, enum red_call call)
{
    static const char *const names[] = { "reduce", "allreduce", "scan", "exscan" };
    enum rk k = (enum rk)rnd(R_KINDS);
    size_t n = rnd(6) == 0 ? 0 : 1 + rnd(24);
    int root = call == C_REDUCE ? (int)rnd((unsigned)p) : -1;
    int in_place = rnd(3) == 0 && (call != C_REDUCE || me == root);
    int result_here = call != C_REDUCE || me == root;
    size_t bytes = n * rk_bytes(k) + 16;
    void *s = rk_image(k, n), *r = rk_image(k, n), *e = rk_image(k, n);
    char what[64];

    rk_operand(k, me, 0, n, s);
    if (in_place)
        rk_operand(k, me, 0, n, r);
    if (call == C_SCAN)
        rk_fold(k, 0, me, 0, n, e);
    else if (call == C_EXSCAN && me > 0)
        rk_fold(k, 0, me - 1, 0, n, e);
    else if (call == C_EXSCAN)
        memcpy(e, r, bytes);          /* rank 0: recvbuf left as it was */
    else
        rk_fold(k, 0, p - 1, 0, n, e);

    const void *sb = in_place ? MPI_IN_PLACE : s;
    int cnt = (int)n;
    MPI_Datatype t = rk_type(k);
    MPI_Op op = rk_op(k);
    switch (call) {
    case C_REDUCE: MPI_OK(MPI_Reduce(sb, r, cnt, t, op, root, comm)); break;
    case C_ALLREDUCE: MPI_OK(MPI_Allreduce(sb, r, cnt, t, op, comm)); break;
    case C_SCAN: MPI_OK(MPI_Scan(sb, r, cnt, t, op, comm)); break;
    case C_EXSCAN: MPI_OK(MPI_Exscan(sb, r, cnt, t, op, comm)); break;
    }
    snprintf(what, sizeof(what), "%s %s%s n=%zu", names[call], rk_name[k], in_place ? " in place" : "",
             n);
    if (result_here)
        same(r, e, bytes, what, comm);
    free(s);
    free(r);
    free(e);
}

static void t_reduce_scatter(MPI_Comm comm, int me, int p, int block)
{
    enum rk k = (enum rk)rnd(R_KINDS);
    int in_place = rnd(3) == 0;
    int cnt[MAXP];
    size_t total = 0, before = 0;
    int b = (int)rnd(5);
    for (int q = 0; q < p; q++) {
        cnt[q] = block ? b : (rnd(4) == 0 ? 0 : (int)rnd(9));
        if (q < me)
            before += (size_t)cnt[q];
        total += (size_t)cnt[q];
    }
    void *s = rk_image(k, total), *r = rk_image(k, total), *e = rk_image(k, total);
    rk_operand(k, me, 0, total, s);
    if (in_place)
        rk_operand(k, me, 0, total, r);
    /* expected: my block reduced at the start; in place, the rest as it was */
    memcpy(e, r, total * rk_bytes(k) + 16);
    rk_fold(k, 0, p - 1, before, (size_t)cnt[me], e);
    const void *sb = in_place ? MPI_IN_PLACE : s;
    if (block)
        MPI_OK(MPI_Reduce_scatter_block(sb, r, b, rk_type(k), rk_op(k), comm));
    else
        MPI_OK(MPI_Reduce_scatter(sb, r, cnt, rk_type(k), rk_op(k), comm));
    char what[80];
    snprintf(what, sizeof(what), "%s %s%s", block ? "reduce_scatter_block" : "reduce_scatter",
             rk_name[k], in_place ? " in place" : "");
    /* in place only my block is defined afterwards (MPI leaves the rest) */
    same(r, e, in_place ? (size_t)cnt[me] * rk_bytes(k) : total * rk_bytes(k) + 16, what, comm);
    free(s);
    free(r);
    free(e);
}

static void t_barrier(MPI_Comm comm, int me, int p)
{
    /* A token passed along the ring between barriers: each rank's sends are
     * checked to have arrived before anyone leaves the next barrier. */
    int token = val(me, 0, 13), got = 0, left = (me + p - 1) % p, right = (me + 1) % p;
    MPI_Request rq;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, left, 77, comm, &rq));
    MPI_OK(MPI_Send(&token, 1, MPI_INT, right, 77, comm));
    MPI_OK(MPI_Barrier(comm));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(got == val(left, 0, 13), "ring token across a barrier");
    checks++;
}

/* Large messages (the device's rendezvous path): bcast, allreduce,
 * allgather, alltoall and reduce_scatter_block of hundreds of KiB. */
static void t_large(MPI_Comm comm, int me, int p)
{
    size_t n = 64 * 1024 + rnd(1024);        /* ints: ~256 KiB */
    size_t blk = 16 * 1024 + rnd(64);         /* ints per rank block: ~64 KiB */
    int root = (int)rnd((unsigned)p);
    int *a = malloc(n * 4), *b = malloc(n * 4);
    int *s = malloc((size_t)p * blk * 4), *r = malloc((size_t)p * blk * 4);
    CHECK(a && b && s && r, "out of memory");

    for (size_t i = 0; i < n; i++)
        a[i] = me == root ? val(root, i, 20) : 0;
    MPI_OK(MPI_Bcast(a, (int)n, MPI_INT, root, comm));
    for (size_t i = 0; i < n; i++)
        CHECK(a[i] == val(root, i, 20), "large bcast: int %zu", i);

    for (size_t i = 0; i < n; i++)
        a[i] = val(me, i, 21);
    MPI_OK(MPI_Allreduce(a, b, (int)n, MPI_INT, MPI_SUM, comm));
    for (size_t i = 0; i < n; i++) {
        uint32_t want = 0;
        for (int q = 0; q < p; q++)
            want += (uint32_t)val(q, i, 21);
        CHECK((uint32_t)b[i] == want, "large allreduce: int %zu", i);
    }

    for (size_t i = 0; i < blk; i++)
        s[i] = val(me, i, 22);
    MPI_OK(MPI_Allgather(s, (int)blk, MPI_INT, r, (int)blk, MPI_INT, comm));
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < blk; i++)
            CHECK(r[(size_t)q * blk + i] == val(q, i, 22), "large allgather: block %d int %zu", q, i);

    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < blk; i++)
            s[(size_t)q * blk + i] = val(me * MAXP + q, i, 23);
    MPI_OK(MPI_Alltoall(s, (int)blk, MPI_INT, r, (int)blk, MPI_INT, comm));
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < blk; i++)
            CHECK(r[(size_t)q * blk + i] == val(q * MAXP + me, i, 23), "large alltoall: block %d int %zu",
                  q, i);

    for (size_t i = 0; i < (size_t)p * blk; i++)
        s[i] = val(me, i, 24);
    MPI_OK(MPI_Reduce_scatter_block(s, r, (int)blk, MPI_INT, MPI_SUM, comm));
    for (size_t i = 0; i < blk; i++) {
        uint32_t want = 0;
        for (int q = 0; q < p; q++)
            want += (uint32_t)val(q, (size_t)me * blk + i, 24);
        CHECK((uint32_t)r[i] == want, "large reduce_scatter_block: int %zu", i);
    }
    checks += 5;
    free(a);
    free(b);
    free(s);
    free(r);
}

static void run_all(MPI_Comm comm)
{
    int me, p;
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &p));
    CHECK(p <= MAXP, "communicator too large for this test");
    t_barrier(comm, me, p);
    t_bcast(comm, me, p);
    t_gather(comm, me, p, 0);
    t_gather(comm, me, p, 1);
    t_gatherv(comm, me, p, 0);
    t_gatherv(comm, me, p, 1);
    t_scatter(comm, me, p);
    t_scatterv(comm, me, p);
    t_alltoall(comm, me, p);
    t_alltoallvw(comm, me, p, 0);
    t_alltoallvw(comm, me, p, 1);
    for (int c = C_REDUCE; c <= C_EXSCAN; c++)
        t_reduce(comm, me, p, (enum red_call)c);
    t_reduce_scatter(comm, me, p, 0);
    t_reduce_scatter(comm, me, p, 1);
}

int main(int argc, char **argv)
{
    int size, rounds = argc > 1 ? atoi(argv[1]) : 3, maxalgos = 1;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    MPI_OK(MPI_Type_create_resized(v, 0, 16, &gap_t));
    MPI_OK(MPI_Type_commit(&gap_t));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &pair_t));
    MPI_OK(MPI_Type_commit(&pair_t));
    MPI_OK(MPI_Op_create(affine_user, 0, &affine_op));

    /* The sub-communicator: ranks 1, 4, 7, ... against the rest, each in
     * reverse world order. */
    MPI_Comm sub;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 3 == 1, -mt_rank, &sub));

    for (int id = 0; id < RCH_COLL_ID_MAX; id++)
        if (rch_coll_algo_count(id) > maxalgos)
            maxalgos = rch_coll_algo_count(id);
    /* variant v < maxalgos: algorithm v of each collective (its last if it
     * has fewer); v == maxalgos: the tuning table */
    for (int variant = 0; variant <= maxalgos; variant++) {
        for (int id = 0; id < RCH_COLL_ID_MAX; id++) {
            int n = rch_coll_algo_count(id);
            const char *name = variant < maxalgos ? rch_coll_algo_name(id, variant < n ? variant : n - 1)
                                                  : "auto";
            CHECK(rch_coll_force(id, name) == RDMACH_OK, "%s", rdmach_last_error());
        }
        seed = 0x1234 + (uint64_t)variant * 977;
        for (int round = 0; round < rounds; round++)
            run_all(MPI_COMM_WORLD);
        t_large(MPI_COMM_WORLD, mt_rank, size);
        seed = 0x9876 + (uint64_t)variant * 131 + (uint64_t)(mt_rank % 3 == 1);
        for (int round = 0; round < rounds; round++)
            run_all(sub);
    }

    long total = 0;
    MPI_OK(MPI_Reduce(&checks, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Comm_free(&sub));
    MPI_OK(MPI_Op_free(&affine_op));
    CHECK(affine_op == MPI_OP_NULL, "Op_free did not reset the handle");
    MPI_OK(MPI_Type_free(&gap_t));
    MPI_OK(MPI_Type_free(&pair_t));
    if (mt_rank == 0)
        printf("coll: %d ranks, %d algorithm variants x %d rounds x 2 communicators: %ld checks ok\n",
               size, maxalgos + 1, rounds, total);
    MPI_OK(MPI_Finalize());
    return 0;
}
