/*
 * MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw against a naive reference,
 * through every alltoall algorithm, on MPI_COMM_WORLD, on a split
 * sub-communicator whose ranks are the world's in reverse order (both halves
 * at once) and on a duplicate of world. Random counts (zeros included; the
 * v/w counts per pair from a matrix every rank draws alike), datatypes drawn
 * per side (alltoallv) or per block (alltoallw) from MPI_INT, a contiguous
 * pair of ints and a type with holes (ints at bytes 0 and 8 of 16), so a send
 * of 2k MPI_INT matches a receive of k holey elements; blocks in shuffled
 * order with gaps; in-place variants. Holes, gaps and bytes around the
 * result must keep their sentinel.
 *
 * The node layout is the job's: run it under RDMACH_VNODE_SIZE (real pretend
 * nodes) or RDMACH_COLL_VNODE_SIZE (pretend nodes for the collectives only)
 * to give the node-aware algorithms several nodes, uneven ones included.
 *
 * Usage:
 *   test_mpi_alltoall all [rounds]        every algorithm forced in turn (and
 *                                         checked to be the one that ran), then auto
 *   test_mpi_alltoall env ALGO ALGOV [rounds]
 *                                         the environment forces them
 *                                         (RDMACH_ALLTOALL=ALGO, RDMACH_ALLTOALLV=ALGOV):
 *                                         every call must have run those
 *   test_mpi_alltoall tuned BYTES=ALGO... an alltoall of BYTES per block must
 *                                         run ALGO (a tuning file's rows)
 *   test_mpi_alltoall stress CALLS [ALGO] CALLS small alltoalls and allreduces,
 *                                         data changing per call, ranks late at
 *                                         random points; alltoall must run ALGO
 */
#include <stdint.h>
#include <time.h>
#include "coll/coll.h"
#include "mpi_test.h"

#define SENT ((int)0x5a5a5a5a)
#define MAXP 64

static MPI_Datatype gap_t, pair_t;
static long checks;
static const char *want_a2a, *want_a2av;    /* NULL: anything */

static int val(int from, int to, size_t j)
{
    uint64_t s = ((uint64_t)(unsigned)from << 40) ^ ((uint64_t)(unsigned)to << 20) ^ j;
    return (int)(uint32_t)mt_next(&s);
}

static uint64_t seed = 12345;
static unsigned rnd(unsigned n)
{
    return n ? (unsigned)(mt_next(&seed) % n) : 0;
}

/* Element layouts: data ints per element, ints of extent, where int j lands. */
enum lay { L_INT, L_PAIR, L_GAP, L_MAX };
static MPI_Datatype lt(enum lay l) { return l == L_INT ? MPI_INT : l == L_PAIR ? pair_t : gap_t; }
static int ipe(enum lay l) { return l == L_INT ? 1 : 2; }
static int ext(enum lay l) { return l == L_INT ? 1 : l == L_PAIR ? 2 : 4; }
static size_t pos(enum lay l, size_t j) { return l == L_GAP ? (j / 2) * 4 + (j % 2) * 2 : j; }

/* One side of a call: block q holds ints[q] data ints as elements of lay[q]
 * starting at int index at[q] of an image of `total` ints. */
struct side {
    int p;
    size_t ints[MAXP], at[MAXP], total;
    enum lay lay[MAXP];
    int counts[MAXP], displs[MAXP];     /* in elements (v: extents; w: bytes) */
    MPI_Datatype types[MAXP];
    int *buf;
};

/* Blocks in a shuffled order with gaps of one extent (v/w), or packed in rank
 * order (alltoall). */
static void layout(struct side *s, int p, const size_t *ints, const enum lay *lay, int packed,
                   int bytes_displs)
{
    int order[MAXP];
    s->p = p;
    for (int q = 0; q < p; q++) {
        s->ints[q] = ints[q];
        s->lay[q] = lay[q];
        order[q] = q;
    }
    for (int i = p - 1; !packed && i > 0; i--) {
        int j = (int)rnd((unsigned)i + 1), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    size_t at = packed ? 0 : 4;
    for (int i = 0; i < p; i++) {
        int q = order[i];
        s->at[q] = at;
        s->counts[q] = (int)(ints[q] / (size_t)ipe(lay[q]));
        s->displs[q] = bytes_displs ? (int)(at * sizeof(int)) : (int)(at / (size_t)ext(lay[q]));
        s->types[q] = lt(lay[q]);
        at += (size_t)s->counts[q] * (size_t)ext(lay[q]) + (packed ? 0 : 4);
    }
    s->total = at + 8;
    s->buf = malloc(s->total * sizeof(int));
    CHECK(s->buf, "out of memory");
    for (size_t i = 0; i < s->total; i++)
        s->buf[i] = SENT;
}

/* Fill block q of a side with what `from` sends to `to`. */
static void fill(struct side *s, int q, int from, int to)
{
    for (size_t j = 0; j < s->ints[q]; j++)
        s->buf[s->at[q] + pos(s->lay[q], j)] = val(from, to, j);
}

/* The receive side must hold val(q, me, .) in every block and SENT elsewhere. */
static void verify(struct side *r, int me, const char *what, MPI_Comm comm)
{
    int *want = malloc(r->total * sizeof(int));
    CHECK(want, "out of memory");
    for (size_t i = 0; i < r->total; i++)
        want[i] = SENT;
    for (int q = 0; q < r->p; q++)
        for (size_t j = 0; j < r->ints[q]; j++)
            want[r->at[q] + pos(r->lay[q], j)] = val(q, me, j);
    checks++;
    for (size_t i = 0; i < r->total; i++) {
        if (r->buf[i] == want[i])
            continue;
        int cr;
        MPI_Comm_rank(comm, &cr);
        CHECK(0, "%s (comm rank %d of %d): int %zu is %08x, expected %08x", what, cr, r->p, i,
              (unsigned)r->buf[i], (unsigned)want[i]);
    }
    free(want);
}

/* Does comm live on one node of the job's layout (RDMACH_VNODE_SIZE or
 * RDMACH_COLL_VNODE_SIZE: nodes of k consecutive world ranks; neither: this
 * machine is one node)? shmseg applies only there. */
static int one_node(MPI_Comm comm)
{
    const char *e = getenv("RDMACH_COLL_VNODE_SIZE");
    int k = e ? atoi(e) : 0, wr, mine[2], all[2];
    if (k <= 0 && (e = getenv("RDMACH_VNODE_SIZE")) != NULL)
        k = atoi(e);
    if (k <= 0)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    mine[0] = wr / k;
    mine[1] = -(wr / k);
    MPI_OK(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, comm));
    return all[0] == -all[1];
}

static void check_algo(enum rch_coll_id id, const char *what, MPI_Comm comm)
{
    const char *want = id == RCH_COLL_ALLTOALL ? want_a2a : want_a2av;
    const char *ran = rch_coll_last_algo(id);
    int seg = want && (strcmp(want, "shmseg") == 0 || strcmp(want, "adaptive") == 0);
    if (seg && strcmp(ran, want) != 0 && !one_node(comm))
        return;   /* shmseg, adaptive do not apply across nodes: the table's choice ran */
    /* adaptive runs shmseg or what the table chooses besides (its trials
     * and choices: tests/coll/test_shmseg.c) */
    if (want && strcmp(want, "adaptive") == 0 &&
        (strcmp(ran, "shmseg") == 0 || strcmp(ran, "linear") == 0 || strcmp(ran, "pairwise") == 0 ||
         strcmp(ran, "bruck") == 0))
        return;
    CHECK(!want || strcmp(ran, want) == 0, "%s ran algorithm '%s', expected '%s'", what, ran, want);
}

/* ---- one call of each ---- */

static void one_alltoall(MPI_Comm comm, int in_place)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    size_t n = rnd(5) == 0 ? 0 : 2 * (1 + rnd(20));      /* data ints per block, even */
    enum lay sl = (enum lay)rnd(L_MAX), rl = (enum lay)rnd(L_MAX);
    size_t ints[MAXP];
    enum lay sls[MAXP], rls[MAXP];
    for (int q = 0; q < p; q++) {
        ints[q] = n;
        sls[q] = sl;
        rls[q] = rl;
    }
    struct side s, r;
    layout(&s, p, ints, sls, 1, 0);
    layout(&r, p, ints, rls, 1, 0);
    for (int q = 0; q < p; q++)
        fill(in_place ? &r : &s, q, me, q);
    MPI_OK(MPI_Alltoall(in_place ? MPI_IN_PLACE : s.buf, (int)(n / (size_t)ipe(sl)), lt(sl), r.buf,
                        (int)(n / (size_t)ipe(rl)), lt(rl), comm));
    check_algo(RCH_COLL_ALLTOALL, "MPI_Alltoall", comm);
    verify(&r, me, in_place ? "MPI_Alltoall in place" : "MPI_Alltoall", comm);
    free(s.buf);
    free(r.buf);
}

/* w = 0: alltoallv (one type per side), 1: alltoallw (a type per block). */
static void one_alltoallvw(MPI_Comm comm, int in_place, int w)
{
    static size_t mat[MAXP][MAXP];
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    for (int i = 0; i < p; i++)      /* every rank draws the whole matrix */
        for (int j = 0; j < p; j++)
            mat[i][j] = rnd(4) == 0 ? 0 : 2 * rnd(12);
    if (in_place)                    /* MPI: the in-place counts are symmetric */
        for (int i = 0; i < p; i++)
            for (int j = 0; j < i; j++)
                mat[i][j] = mat[j][i];
    size_t sints[MAXP] = { 0 }, rints[MAXP] = { 0 };
    enum lay sl[MAXP] = { L_INT }, rl[MAXP] = { L_INT }, s1 = (enum lay)rnd(L_MAX), r1 = (enum lay)rnd(L_MAX);
    for (int q = 0; q < p; q++) {
        sints[q] = mat[me][q];
        rints[q] = mat[q][me];
        sl[q] = w ? (enum lay)rnd(L_MAX) : s1;
        rl[q] = w ? (enum lay)rnd(L_MAX) : r1;
    }
    struct side s, r;
    layout(&s, p, sints, sl, 0, w);
    layout(&r, p, rints, rl, 0, w);
    for (int q = 0; q < p; q++) {
        if (in_place)
            fill(&r, q, me, q);
        else
            fill(&s, q, me, q);
    }
    const void *sb = in_place ? MPI_IN_PLACE : s.buf;
    const char *what;
    if (w) {
        MPI_OK(MPI_Alltoallw(sb, s.counts, s.displs, s.types, r.buf, r.counts, r.displs, r.types,
                             comm));
        what = in_place ? "MPI_Alltoallw in place" : "MPI_Alltoallw";
    } else {
        MPI_OK(MPI_Alltoallv(sb, s.counts, s.displs, lt(s1), r.buf, r.counts, r.displs, lt(r1),
                             comm));
        what = in_place ? "MPI_Alltoallv in place" : "MPI_Alltoallv";
    }
    check_algo(RCH_COLL_ALLTOALLV, what, comm);
    verify(&r, me, what, comm);
    free(s.buf);
    free(r.buf);
}

static void rounds_on(MPI_Comm comm, int rounds)
{
    for (int k = 0; k < rounds; k++)
        for (int ip = 0; ip < 2; ip++) {
            one_alltoall(comm, ip);
            one_alltoallvw(comm, ip, 0);
            one_alltoallvw(comm, ip, 1);
        }
}

/* World, the two reversed halves at once, and a duplicate of world. */
static void every_comm(int rounds)
{
    int me;
    MPI_Comm half, dup;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    rounds_on(MPI_COMM_WORLD, rounds);
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half));
    uint64_t saved = seed;      /* halves of different sizes draw differently */
    rounds_on(half, rounds);
    seed = saved ^ 0x5bd1e995u;
    MPI_OK(MPI_Comm_free(&half));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    rounds_on(dup, rounds);
    MPI_OK(MPI_Comm_free(&dup));
}

/* Affine maps x -> a·x + b (mod 2^32) under composition: associative, not
 * commutative (in op inout = "apply in, then inout"). */
static void affine_user(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const unsigned *x = in;
    unsigned *y = inout;
    (void)dt;
    for (int i = 0; i < *len; i++) {
        unsigned a = x[2 * i] * y[2 * i], b = y[2 * i] * x[2 * i + 1] + y[2 * i + 1];
        y[2 * i] = a;
        y[2 * i + 1] = b;
    }
}

static unsigned stress_val(int from, int to, int call, int i)
{
    uint64_t s = ((uint64_t)(unsigned)from << 44) ^ ((uint64_t)(unsigned)to << 32) ^
                 ((uint64_t)(unsigned)call << 4) ^ (uint64_t)i;
    return (unsigned)mt_next(&s) | 1u;
}

/* Many consecutive small alltoalls and allreduces (whatever the environment
 * selects: RDMACH_ALLTOALL=shmseg, RDMACH_ALLREDUCE=shmseg) with data that
 * changes every call, every result checked, and ranks that stop for a while
 * at random points: a double buffer reused too early shows as a wrong value. */
static void stress(int calls)
{
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Datatype pair;
    MPI_Op affine;
    MPI_OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    MPI_OK(MPI_Op_create(affine_user, 0, &affine));
    unsigned *s = malloc((size_t)p * 2 * sizeof(unsigned)), *r = malloc((size_t)p * 2 * sizeof(unsigned));
    CHECK(s && r, "out of memory");
    uint64_t rs = 777 + (uint64_t)me;
    for (int call = 0; call < calls; call++) {
        if (mt_next(&rs) % 64 == 0) {      /* late at a random point: not to synchronise */
            struct timespec ts = { 0, (long)(mt_next(&rs) % 200) * 1000 };
            nanosleep(&ts, NULL);
        }
        int w = 1 + call % 2;               /* 4 and 8 bytes per block */
        for (int q = 0; q < p; q++)
            for (int i = 0; i < w; i++)
                s[q * w + i] = stress_val(me, q, call, i);
        MPI_OK(MPI_Alltoall(s, w, MPI_UNSIGNED, r, w, MPI_UNSIGNED, MPI_COMM_WORLD));
        check_algo(RCH_COLL_ALLTOALL, "MPI_Alltoall (stress)", MPI_COMM_WORLD);
        for (int q = 0; q < p; q++)
            for (int i = 0; i < w; i++)
                CHECK(r[q * w + i] == stress_val(q, me, call, i), "call %d: alltoall int %d from "
                      "rank %d is %08x, expected %08x", call, i, q, r[q * w + i],
                      stress_val(q, me, call, i));
        unsigned v[2] = { stress_val(me, 0, call, 0), stress_val(me, 1, call, 1) }, out[2];
        MPI_OK(MPI_Allreduce(v, out, 1, pair, affine, MPI_COMM_WORLD));
        unsigned want[2] = { stress_val(p - 1, 0, call, 0), stress_val(p - 1, 1, call, 1) };
        for (int q = p - 2; q >= 0; q--) {
            unsigned x[2] = { stress_val(q, 0, call, 0), stress_val(q, 1, call, 1) };
            int one = 1;
            affine_user(x, want, &one, NULL);
        }
        CHECK(out[0] == want[0] && out[1] == want[1], "call %d: allreduce (%08x, %08x), expected "
              "(%08x, %08x) (rank order)", call, out[0], out[1], want[0], want[1]);
        checks += 2;
    }
    free(s);
    free(r);
    MPI_OK(MPI_Op_free(&affine));
    MPI_OK(MPI_Type_free(&pair));
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= MAXP, "at most %d ranks", MAXP);
    CHECK(argc >= 2, "usage: %s all [rounds] | env ALGO ALGOV [rounds] | tuned BYTES=ALGO...",
          argv[0]);
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair_t));
    MPI_OK(MPI_Type_commit(&pair_t));
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    MPI_OK(MPI_Type_create_resized(v, 0, 16, &gap_t));
    MPI_OK(MPI_Type_commit(&gap_t));
    MPI_OK(MPI_Type_free(&v));

    if (strcmp(argv[1], "all") == 0) {
        int rounds = argc > 2 ? atoi(argv[2]) : 2;
        for (int id = RCH_COLL_ALLTOALL; id <= RCH_COLL_ALLTOALLV; id++)
            for (int i = 0; i < rch_coll_algo_count((enum rch_coll_id)id); i++) {
                /* force one of the two at a time; the other stays automatic */
                const char *name = rch_coll_algo_name((enum rch_coll_id)id, i);
                CHECK(rch_coll_force((enum rch_coll_id)id, name) == RDMACH_OK, "%s",
                      rdmach_last_error());
                want_a2a = id == RCH_COLL_ALLTOALL ? name : NULL;
                want_a2av = id == RCH_COLL_ALLTOALLV ? name : NULL;
                every_comm(rounds);
                CHECK(rch_coll_force((enum rch_coll_id)id, "auto") == RDMACH_OK, "%s",
                      rdmach_last_error());
            }
        want_a2a = want_a2av = NULL;
        every_comm(rounds);
    } else if (strcmp(argv[1], "env") == 0 && argc >= 4) {
        want_a2a = argv[2];
        want_a2av = argv[3];
        every_comm(argc > 4 ? atoi(argv[4]) : 2);
    } else if (strcmp(argv[1], "stress") == 0 && argc >= 3) {
        want_a2a = argc > 3 ? argv[3] : NULL;
        stress(atoi(argv[2]));
    } else if (strcmp(argv[1], "tuned") == 0) {
        for (int i = 2; i < argc; i++) {
            char *eq = strchr(argv[i], '=');
            CHECK(eq, "expected BYTES=ALGO, got '%s'", argv[i]);
            int bytes = atoi(argv[i]), p = size;
            int *s = calloc((size_t)p * (size_t)bytes + 1, 1), *r = calloc((size_t)p * (size_t)bytes + 1, 1);
            CHECK(s && r, "out of memory");
            MPI_OK(MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD));
            CHECK(strcmp(rch_coll_last_algo(RCH_COLL_ALLTOALL), eq + 1) == 0,
                  "alltoall of %d bytes ran '%s', the tuning file says '%s'", bytes,
                  rch_coll_last_algo(RCH_COLL_ALLTOALL), eq + 1);
            checks++;
            free(s);
            free(r);
        }
    } else {
        CHECK(0, "unknown mode '%s'", argv[1]);
    }
    MPI_OK(MPI_Type_free(&gap_t));
    MPI_OK(MPI_Type_free(&pair_t));
    if (mt_rank == 0)
        printf("test_mpi_alltoall %s: %d ranks, %ld checks passed\n", argv[1], size, checks);
    MPI_Finalize();
    return 0;
}
