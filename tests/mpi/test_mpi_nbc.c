/*
 * Every non-blocking collective against its blocking form: the same
 * arguments and inputs run once non-blocking and once blocking, and every
 * output buffer must come out byte for byte the same (sentinels in holes and
 * past the data included).
 *
 * All non-blocking collectives of a round are outstanding at once (in a
 * random order every rank agrees on), with blocking collectives issued on
 * the same communicator while they are pending, and completed by
 * MPI_Waitall or by polling MPI_Testall, so their messages must never match
 * each other's or the blocking ones'. Counts (zero included), roots,
 * in-place variants, a contiguous and a holey datatype, MPI_SUM and a
 * non-commutative user operation (composition of affine maps) are drawn per
 * round. The rounds run on MPI_COMM_WORLD, then on a split communicator
 * (both halves at once) and a duplicate.
 *
 * Usage: test_mpi_nbc [rounds]   (default 4)
 */
#include <stdint.h>
#include "mpi_test.h"

#define SENT ((int)0x5a5a5a5a)
#define MAXC 12                 /* largest count per block */
#define MAXP 64
#define NCASE 19

static MPI_Datatype gap_t;      /* 2 ints at int offsets 0 and 2, extent 3 ints */
static MPI_Datatype pair_t;     /* 2 contiguous unsigned: an affine map (a, b) */
static MPI_Op affine_op;
static uint64_t seed;
static long checks;

static unsigned rnd(unsigned n)
{
    return n ? (unsigned)(mt_next(&seed) % n) : 0;
}

static int val(int who, int j, int salt)
{
    uint64_t s = ((uint64_t)(unsigned)who << 32) ^ ((uint64_t)(unsigned)j << 8) ^ (uint64_t)salt;
    return (int)(uint32_t)mt_next(&s);
}

/* x op y = "apply x, then y" on affine maps (a, b): not commutative. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const unsigned *x = in;
    unsigned *y = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a = x[2 * i] * y[2 * i], b = y[2 * i] * x[2 * i + 1] + y[2 * i + 1];
        y[2 * i] = a;
        y[2 * i + 1] = b;
    }
    (void)dt;
}

enum kind {
    K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_ALLREDUCE_AFF, K_SCAN_AFF, K_EXSCAN_AFF,
    K_RSCAT, K_RSCAT_BLOCK, K_GATHER, K_GATHERV, K_SCATTER, K_SCATTERV, K_ALLGATHER,
    K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV, K_ALLTOALLW, K_REDUCE_AFF
};
static const char *const names[NCASE] = {
    "ibarrier", "ibcast", "ireduce", "iallreduce", "iallreduce(affine)", "iscan(affine)",
    "iexscan(affine)", "ireduce_scatter", "ireduce_scatter_block", "igather", "igatherv",
    "iscatter", "iscatterv", "iallgather", "iallgatherv", "ialltoall", "ialltoallv", "ialltoallw",
    "ireduce(affine)"
};

/* The parameters of one case in one round, the same on every rank. */
struct params {
    int count, root, in_place, holey;
    int counts[MAXP], displs[MAXP];     /* v variants (elements), per rank */
    int a2a[MAXP][MAXP];                /* alltoallv: counts[i][j] from i to j */
};

#define BUF_INTS (MAXP * MAXP * MAXC * 3 + 64)

struct bufs {
    int *s[2], *r[2];           /* [0] non-blocking, [1] blocking */
};

static int me, np;

static void fill(int *b, size_t n, int who, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = val(who, (int)i, salt);
}

static void fill_sent(int *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = SENT;
}

/* The affine operands: odd multipliers. */
static void fill_aff(int *b, size_t n, int who, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = val(who, (int)i, salt) | 1;
}

/* Start (req != NULL) or run blocking (req == NULL) one case on set `k`. */
static void run_case(enum kind kd, const struct params *pr, struct bufs *b, int k, MPI_Comm comm,
                     MPI_Request *req)
{
    int *s = b->s[k], *r = b->r[k];
    int cnt = pr->count, root = pr->root, ip = pr->in_place;
    MPI_Datatype t = pr->holey ? gap_t : MPI_INT;
    int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
    MPI_Datatype st[MAXP], rt[MAXP];
    MPI_Request dummy;
    MPI_Request *q = req ? req : &dummy;
    int nb = req != NULL;
#define CALL(nbcall, bcall) MPI_OK(nb ? (nbcall) : (bcall))
    switch (kd) {
    case K_BARRIER:
        CALL(MPI_Ibarrier(comm, q), MPI_Barrier(comm));
        break;
    case K_BCAST:
        CALL(MPI_Ibcast(r, cnt, t, root, comm, q), MPI_Bcast(r, cnt, t, root, comm));
        break;
    case K_REDUCE: {
        const void *sb = ip && me == root ? MPI_IN_PLACE : s;
        CALL(MPI_Ireduce(sb, r, cnt, MPI_INT, MPI_SUM, root, comm, q),
             MPI_Reduce(sb, r, cnt, MPI_INT, MPI_SUM, root, comm));
        break;
    }
    case K_REDUCE_AFF: {
        const void *sb = ip && me == root ? MPI_IN_PLACE : s;
        CALL(MPI_Ireduce(sb, r, cnt, pair_t, affine_op, root, comm, q),
             MPI_Reduce(sb, r, cnt, pair_t, affine_op, root, comm));
        break;
    }
    case K_ALLREDUCE: {
        const void *sb = ip ? MPI_IN_PLACE : s;
        CALL(MPI_Iallreduce(sb, r, cnt, MPI_INT, MPI_SUM, comm, q),
             MPI_Allreduce(sb, r, cnt, MPI_INT, MPI_SUM, comm));
        break;
    }
    case K_ALLREDUCE_AFF: {
        const void *sb = ip ? MPI_IN_PLACE : s;
        CALL(MPI_Iallreduce(sb, r, cnt, pair_t, affine_op, comm, q),
             MPI_Allreduce(sb, r, cnt, pair_t, affine_op, comm));
        break;
    }
    case K_SCAN_AFF: {
        const void *sb = ip ? MPI_IN_PLACE : s;
        CALL(MPI_Iscan(sb, r, cnt, pair_t, affine_op, comm, q),
             MPI_Scan(sb, r, cnt, pair_t, affine_op, comm));
        break;
    }
    case K_EXSCAN_AFF: {
        const void *sb = ip ? MPI_IN_PLACE : s;
        CALL(MPI_Iexscan(sb, r, cnt, pair_t, affine_op, comm, q),
             MPI_Exscan(sb, r, cnt, pair_t, affine_op, comm));
        break;
    }
    case K_RSCAT: {
        const void *sb = ip ? MPI_IN_PLACE : s;
        CALL(MPI_Ireduce_scatter(sb, r, pr->counts, MPI_INT, MPI_SUM, comm, q),
             MPI_Reduce_scatter(sb, r, pr->counts, MPI_INT, MPI_SUM, comm));
        break;
    }
    case K_RSCAT_BLOCK: {
        const void *sb = ip ? MPI_IN_PLACE : s;
        CALL(MPI_Ireduce_scatter_block(sb, r, cnt, MPI_INT, MPI_SUM, comm, q),
             MPI_Reduce_scatter_block(sb, r, cnt, MPI_INT, MPI_SUM, comm));
        break;
    }
    case K_GATHER: {
        const void *sb = ip && me == root ? MPI_IN_PLACE : s;
        CALL(MPI_Igather(sb, cnt, t, r, cnt, t, root, comm, q),
             MPI_Gather(sb, cnt, t, r, cnt, t, root, comm));
        break;
    }
    case K_GATHERV: {
        const void *sb = ip && me == root ? MPI_IN_PLACE : s;
        CALL(MPI_Igatherv(sb, pr->counts[me], t, r, pr->counts, pr->displs, t, root, comm, q),
             MPI_Gatherv(sb, pr->counts[me], t, r, pr->counts, pr->displs, t, root, comm));
        break;
    }
    case K_SCATTER: {
        void *rb = ip && me == root ? MPI_IN_PLACE : r;
        CALL(MPI_Iscatter(s, cnt, t, rb, cnt, t, root, comm, q),
             MPI_Scatter(s, cnt, t, rb, cnt, t, root, comm));
        break;
    }
    case K_SCATTERV: {
        void *rb = ip && me == root ? MPI_IN_PLACE : r;
        CALL(MPI_Iscatterv(s, pr->counts, pr->displs, t, rb, pr->counts[me], t, root, comm, q),
             MPI_Scatterv(s, pr->counts, pr->displs, t, rb, pr->counts[me], t, root, comm));
        break;
    }
    case K_ALLGATHER: {
        const void *sb = ip ? MPI_IN_PLACE : s;
        CALL(MPI_Iallgather(sb, cnt, t, r, cnt, t, comm, q), MPI_Allgather(sb, cnt, t, r, cnt, t, comm));
        break;
    }
    case K_ALLGATHERV: {
        const void *sb = ip ? MPI_IN_PLACE : s;
        CALL(MPI_Iallgatherv(sb, pr->counts[me], t, r, pr->counts, pr->displs, t, comm, q),
             MPI_Allgatherv(sb, pr->counts[me], t, r, pr->counts, pr->displs, t, comm));
        break;
    }
    case K_ALLTOALL: {
        const void *sb = ip ? MPI_IN_PLACE : s;
        CALL(MPI_Ialltoall(sb, cnt, t, r, cnt, t, comm, q), MPI_Alltoall(sb, cnt, t, r, cnt, t, comm));
        break;
    }
    case K_ALLTOALLV:
    case K_ALLTOALLW: {
        /* send a2a[me][j] to j, receive a2a[i][me] from i, blocks packed
         * in reverse rank order with a gap of one element */
        int off = 1, roff = 1;
        for (int j = np - 1; j >= 0; j--) {
            sc[j] = pr->a2a[me][j];
            sd[j] = off;
            off += sc[j] + 1;
            rc[j] = pr->a2a[j][me];
            rd[j] = roff;
            roff += rc[j] + 1;
        }
        if (ip) {   /* in place: symmetric counts (a2a is symmetric), receive layout */
            for (int j = 0; j < np; j++) {
                sc[j] = rc[j];
                sd[j] = rd[j];
            }
        }
        const void *sb = ip ? MPI_IN_PLACE : s;
        if (kd == K_ALLTOALLV) {
            CALL(MPI_Ialltoallv(sb, sc, sd, t, r, rc, rd, t, comm, q),
                 MPI_Alltoallv(sb, sc, sd, t, r, rc, rd, t, comm));
        } else {
            /* w: byte displacements, a type per pair of ranks (the same
             * at both ends): int or holey */
            int ext_gap = 3 * (int)sizeof(int);
            int sdb[MAXP], rdb[MAXP], scw[MAXP], rcw[MAXP];
            for (int j = 0; j < np; j++) {
                st[j] = rt[j] = ((me + j) % 2) ? gap_t : MPI_INT;
                scw[j] = sc[j];
                rcw[j] = rc[j];
                sdb[j] = sd[j] * ext_gap;     /* room for either type */
                rdb[j] = rd[j] * ext_gap;
            }
            CALL(MPI_Ialltoallw(sb, scw, sdb, st, r, rcw, rdb, rt, comm, q),
                 MPI_Alltoallw(sb, scw, sdb, st, r, rcw, rdb, rt, comm));
        }
        break;
    }
    }
#undef CALL
}

/* Inputs of a case, identical in both sets. */
static void prepare(enum kind kd, const struct params *pr, struct bufs *b)
{
    for (int k = 0; k < 2; k++) {
        int aff = kd == K_ALLREDUCE_AFF || kd == K_SCAN_AFF || kd == K_EXSCAN_AFF || kd == K_REDUCE_AFF;
        if (aff)
            fill_aff(b->s[k], BUF_INTS, me, (int)kd);
        else
            fill(b->s[k], BUF_INTS, me, (int)kd);
        fill_sent(b->r[k], BUF_INTS);
        /* in place: the operand / own block lives in the receive buffer */
        if (pr->in_place) {
            if (aff)
                fill_aff(b->r[k], BUF_INTS, me, 1000 + (int)kd);
            else
                fill(b->r[k], BUF_INTS, me, 1000 + (int)kd);
        }
        if (kd == K_BCAST && me == pr->root)
            fill(b->r[k], BUF_INTS, me, 77);
    }
}

static void compare(enum kind kd, const struct params *pr, const struct bufs *b, const char *where)
{
    /* Exscan leaves rank 0's result undefined */
    if (kd == K_EXSCAN_AFF && me == 0)
        return;
    for (size_t i = 0; i < BUF_INTS; i++)
        CHECK(b->r[0][i] == b->r[1][i], "%s: %s count=%d root=%d in_place=%d holey=%d: int %zu is "
              "%08x non-blocking, %08x blocking", where, names[kd], pr->count, pr->root,
              pr->in_place, pr->holey, i, (unsigned)b->r[0][i], (unsigned)b->r[1][i]);
    checks++;
}

static void draw(enum kind kd, struct params *pr, int p)
{
    memset(pr, 0, sizeof(*pr));
    pr->count = (int)rnd(MAXC + 1);
    pr->root = (int)rnd((unsigned)p);
    pr->in_place = (int)rnd(2);
    pr->holey = (int)rnd(2);
    int off = 2;
    for (int i = p - 1; i >= 0; i--) {
        pr->counts[i] = rnd(4) == 0 ? 0 : (int)rnd(MAXC + 1);
        pr->displs[i] = off;
        off += pr->counts[i] + (int)rnd(3);
    }
    for (int i = 0; i < p; i++)
        for (int j = 0; j <= i; j++)
            pr->a2a[i][j] = pr->a2a[j][i] = rnd(4) == 0 ? 0 : (int)rnd(MAXC + 1);
    (void)kd;
}

/* One round on comm: every case started, interleaved with blocking calls,
 * completed, then rerun blocking and compared. */
static void round_on(MPI_Comm comm, int rnd_id, const char *where)
{
    static struct bufs b[NCASE];
    static struct params pr[NCASE];
    MPI_Request req[NCASE];
    int order[NCASE];
    MPI_OK(MPI_Comm_rank(comm, &me));
    MPI_OK(MPI_Comm_size(comm, &np));
    seed = 0x1234567ull + (uint64_t)rnd_id * 7919u + (uint64_t)np;
    for (int i = 0; i < NCASE; i++) {
        order[i] = i;
        if (!b[i].s[0])
            for (int k = 0; k < 2; k++) {
                b[i].s[k] = malloc(BUF_INTS * sizeof(int));
                b[i].r[k] = malloc(BUF_INTS * sizeof(int));
                CHECK(b[i].s[k] && b[i].r[k], "out of memory");
            }
        draw((enum kind)i, &pr[i], np);
        prepare((enum kind)i, &pr[i], &b[i]);
    }
    for (int i = NCASE - 1; i > 0; i--) {   /* shuffled start order, the same everywhere */
        int j = (int)rnd((unsigned)i + 1), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    int half = NCASE / 2;
    for (int i = 0; i < NCASE; i++) {
        run_case((enum kind)order[i], &pr[order[i]], &b[order[i]], 0, comm, &req[i]);
        if (i == half) {
            /* blocking collectives while non-blocking ones are pending */
            int x = me + 1, sum = 0, bc = me == 0 ? 99 : -1;
            MPI_OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm));
            CHECK(sum == np * (np + 1) / 2, "%s: allreduce among pending non-blocking ones: %d", where, sum);
            MPI_OK(MPI_Bcast(&bc, 1, MPI_INT, 0, comm));
            CHECK(bc == 99, "%s: bcast among pending non-blocking ones: %d", where, bc);
            MPI_OK(MPI_Barrier(comm));
        }
    }
    if (rnd_id % 2) {
        MPI_OK(MPI_Waitall(NCASE, req, MPI_STATUSES_IGNORE));
    } else {
        int done = 0;
        while (!done)
            MPI_OK(MPI_Testall(NCASE, req, &done, MPI_STATUSES_IGNORE));
    }
    for (int i = 0; i < NCASE; i++)
        CHECK(req[i] == MPI_REQUEST_NULL, "%s: request %d not freed by completion", where, i);
    for (int i = 0; i < NCASE; i++)
        run_case((enum kind)order[i], &pr[order[i]], &b[order[i]], 1, comm, NULL);
    for (int i = 0; i < NCASE; i++)
        compare((enum kind)i, &pr[i], &b[i], where);
}

/* Argument errors come back at the call (MPI_ERRORS_RETURN), naming the
 * argument; a count mismatch between ranks comes back through the request. */
static void errors_on_dup(void)
{
    MPI_Comm d;
    MPI_Request rq = MPI_REQUEST_NULL;
    int x[8] = { 0 }, y[8] = { 0 }, rc, len;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_rank(d, &me));
    MPI_OK(MPI_Comm_size(d, &np));

    rc = MPI_Ibcast(x, 1, MPI_INT, np, d, &rq);
    CHECK(mt_class(rc) == MPI_ERR_ROOT, "ibcast with root %d: class %d", np, mt_class(rc));
    rc = MPI_Ibarrier(d, NULL);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_ARG && strstr(msg, "request"), "ibarrier(NULL): %s", msg);
    rc = MPI_Iallreduce(x, y, 1, MPI_INT, MPI_OP_NULL, d, &rq);
    CHECK(mt_class(rc) == MPI_ERR_OP, "iallreduce with MPI_OP_NULL: class %d", mt_class(rc));
    rc = MPI_Ialltoall(x, -1, MPI_INT, y, 1, MPI_INT, d, &rq);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "ialltoall with sendcount -1: class %d", mt_class(rc));
    CHECK(rq == MPI_REQUEST_NULL, "a failed call left a request");

    /* the root sends 4 ints, the others expect 2: reported at completion
     * (with up to 3 ranks every receiver is the root's direct child) */
    if (np >= 2 && np <= 3) {
        MPI_OK(MPI_Ibcast(x, me == 0 ? 4 : 2, MPI_INT, 0, d, &rq));
        rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
        if (me != 0)
            CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "ibcast with mismatched counts: class %d",
                  mt_class(rc));
    }
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    checks++;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 4, wrank, wsize;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    mt_rank = wrank;
    CHECK(wsize <= MAXP, "at most %d ranks", MAXP);
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &gap_t));   /* extent 3 ints */
    MPI_OK(MPI_Type_commit(&gap_t));
    MPI_OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &pair_t));
    MPI_OK(MPI_Type_commit(&pair_t));
    MPI_OK(MPI_Op_create(affine, 0, &affine_op));

    for (int r = 0; r < rounds; r++)
        round_on(MPI_COMM_WORLD, r, "world");

    MPI_Comm half, dup;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &half));
    for (int r = 0; r < rounds; r++)
        round_on(half, 100 + r, wrank % 2 ? "odd half" : "even half");
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    round_on(dup, 200, "dup");
    /* a communicator freed while nothing is pending, then world again */
    MPI_OK(MPI_Comm_free(&half));
    MPI_OK(MPI_Comm_free(&dup));
    round_on(MPI_COMM_WORLD, 300, "world after frees");

    errors_on_dup();

    long total = 0;
    MPI_OK(MPI_Reduce(&checks, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Op_free(&affine_op));
    MPI_OK(MPI_Type_free(&gap_t));
    MPI_OK(MPI_Type_free(&pair_t));
    if (wrank == 0)
        printf("test_mpi_nbc: %d ranks, %ld comparisons of non-blocking with blocking results: ok\n",
               wsize, total);
    MPI_OK(MPI_Finalize());
    return 0;
}
