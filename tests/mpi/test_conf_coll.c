/*
 * Every blocking and non-blocking collective by the letter of MPI-4.0
 * chapter 6, against results computed here from the definitions:
 *   - MPI_IN_PLACE exactly where §6 allows it and with its meaning there
 *     (Gather(v) and Reduce at the root only, Scatter(v) the root's recvbuf,
 *     Allgather(v), Alltoall(v,w), Allreduce, Reduce_scatter(_block), Scan,
 *     Exscan, whose rank-0 result is undefined and not looked at);
 *   - every root, zero counts (whole calls and per-rank counts of 0),
 *     mixed type signatures (n x MPI_INT received as n/2 x contiguous(2)),
 *     Alltoallw with a different datatype per peer;
 *   - each through its blocking and its I* form (started, then completed),
 *     and several I* collectives outstanding at once, completed by Waitall
 *     over an array in another order than they started;
 *   - buffers of count 0 whose datatype is MPI_DATATYPE_NULL, uncommitted
 *     or not a handle, which MPICH does not examine (it checks a buffer's
 *     datatype only with a count > 0): every data-moving collective in its
 *     blocking, I*, persistent and large-count forms, and on an
 *     intercommunicator; a reduction's datatype is still checked at count
 *     0 (MPICH binds the operation to it);
 *   - on MPI_COMM_WORLD and on a split communicator with reversed ranks;
 *   - error classes of the I* forms (the blocking forms: test_mpi_coll_errors).
 */
#include "mpi_test.h"

static int me, np;
static MPI_Request rq_;
static MPI_Datatype pair;        /* contiguous(2, MPI_INT) */

/* Element i of what rank r contributes. */
static int val(int r, int i)
{
    return 1000 * (r + 1) + i;
}

/* A collective through its blocking form (nb == 0) or its I* form and a wait. */
#define COLL(nb, name, iname, ...) \
    finish(nb, (nb) ? MPI_##iname(__VA_ARGS__, &rq_) : MPI_##name(__VA_ARGS__), #name)
static void finish(int nb, int rc, const char *what)
{
    CHECK(rc == MPI_SUCCESS, "%sMPI_%s returned class %d", nb ? "I: " : "", what, mt_class(rc));
    if (nb)
        MPI_OK(MPI_Wait(&rq_, MPI_STATUS_IGNORE));
}

static void bcast(MPI_Comm comm, int nb)
{
    for (int root = 0; root < np; root++) {
        int buf[8];
        for (int i = 0; i < 8; i++)
            buf[i] = me == root ? val(root, i) : -1;
        if (me == root)
            COLL(nb, Bcast, Ibcast, buf, 8, MPI_INT, root, comm);
        else
            COLL(nb, Bcast, Ibcast, buf, 4, pair, root, comm);   /* same signature: 8 ints */
        for (int i = 0; i < 8; i++)
            CHECK(buf[i] == val(root, i), "Bcast root %d: [%d] = %d", root, i, buf[i]);
        COLL(nb, Bcast, Ibcast, NULL, 0, MPI_INT, root, comm);   /* no data: no buffer needed */
    }
}

static void gather(MPI_Comm comm, int nb)
{
    int root = np / 2, in[3], *out = malloc(sizeof(int) * 3 * (size_t)np);
    for (int i = 0; i < 3; i++)
        in[i] = val(me, i);
    for (int k = 0; k < 3 * np; k++)
        out[k] = -1;
    /* the root's own part is already in place; the others' recvbuf is not significant */
    if (me == root) {
        for (int i = 0; i < 3; i++)
            out[3 * root + i] = val(root, i);
        COLL(nb, Gather, Igather, MPI_IN_PLACE, 3, MPI_INT, out, 3, MPI_INT, root, comm);
        for (int k = 0; k < 3 * np; k++)
            CHECK(out[k] == val(k / 3, k % 3), "Gather IN_PLACE: [%d] = %d", k, out[k]);
    } else {
        COLL(nb, Gather, Igather, in, 3, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, comm);
    }
    /* Gatherv: rank r sends r % 3 ints (0 included), stored in reverse rank order */
    int *cnt = malloc(sizeof(int) * (size_t)np), *dsp = malloc(sizeof(int) * (size_t)np), at = 0;
    for (int r = np - 1; r >= 0; r--) {
        cnt[r] = r % 3;
        dsp[r] = at;
        at += cnt[r] + 1;   /* a hole after each block */
    }
    for (int k = 0; k < 3 * np; k++)
        out[k] = -1;
    if (me == root) {
        for (int i = 0; i < cnt[root]; i++)
            out[dsp[root] + i] = val(root, i);
        COLL(nb, Gatherv, Igatherv, MPI_IN_PLACE, 0, MPI_INT, out, cnt, dsp, MPI_INT, root, comm);
        for (int r = 0; r < np; r++) {
            for (int i = 0; i < cnt[r]; i++)
                CHECK(out[dsp[r] + i] == val(r, i), "Gatherv IN_PLACE: rank %d [%d] = %d", r, i,
                      out[dsp[r] + i]);
            CHECK(out[dsp[r] + cnt[r]] == -1, "Gatherv wrote into the hole after rank %d's block", r);
        }
    } else {
        COLL(nb, Gatherv, Igatherv, in, cnt[me], MPI_INT, NULL, NULL, NULL, MPI_INT, root, comm);
    }
    free(cnt);
    free(dsp);
    free(out);
}

static void scatter(MPI_Comm comm, int nb)
{
    int root = np - 1, *all = malloc(sizeof(int) * 4 * (size_t)np), mine[4];
    for (int k = 0; k < 4 * np; k++)
        all[k] = val(k / 4, k % 4);
    for (int i = 0; i < 4; i++)
        mine[i] = -1;
    if (me == root) {   /* IN_PLACE: the root's part stays in sendbuf, untouched */
        COLL(nb, Scatter, Iscatter, all, 4, MPI_INT, MPI_IN_PLACE, 4, MPI_INT, root, comm);
        for (int k = 0; k < 4 * np; k++)
            CHECK(all[k] == val(k / 4, k % 4), "Scatter IN_PLACE changed the root's sendbuf [%d]", k);
    } else {
        COLL(nb, Scatter, Iscatter, NULL, 0, MPI_DATATYPE_NULL, mine, 2, pair, root, comm);
        for (int i = 0; i < 4; i++)
            CHECK(mine[i] == val(me, i), "Scatter: [%d] = %d", i, mine[i]);
    }
    /* Scatterv with counts (r + 1) % 3 and root 0 */
    int *cnt = malloc(sizeof(int) * (size_t)np), *dsp = malloc(sizeof(int) * (size_t)np);
    for (int r = 0; r < np; r++) {
        cnt[r] = (r + 1) % 3;
        dsp[r] = 4 * r;
    }
    for (int i = 0; i < 4; i++)
        mine[i] = -1;
    if (me == 0) {
        COLL(nb, Scatterv, Iscatterv, all, cnt, dsp, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 0, comm);
    } else {
        COLL(nb, Scatterv, Iscatterv, NULL, NULL, NULL, MPI_INT, mine, cnt[me], MPI_INT, 0, comm);
        for (int i = 0; i < 4; i++)
            CHECK(mine[i] == (i < cnt[me] ? val(me, i) : -1), "Scatterv: [%d] = %d", i, mine[i]);
    }
    free(cnt);
    free(dsp);
    free(all);
}

static void allgather(MPI_Comm comm, int nb)
{
    int *out = malloc(sizeof(int) * 4 * (size_t)np);
    for (int k = 0; k < 4 * np; k++)
        out[k] = k / 4 == me ? val(me, k % 4) : -1;
    COLL(nb, Allgather, Iallgather, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, 4, MPI_INT, comm);
    for (int k = 0; k < 4 * np; k++)
        CHECK(out[k] == val(k / 4, k % 4), "Allgather IN_PLACE: [%d] = %d", k, out[k]);
    int in[4] = { val(me, 0), val(me, 1), val(me, 2), val(me, 3) };
    for (int k = 0; k < 4 * np; k++)
        out[k] = -1;
    COLL(nb, Allgather, Iallgather, in, 4, MPI_INT, out, 2, pair, comm);
    for (int k = 0; k < 4 * np; k++)
        CHECK(out[k] == val(k / 4, k % 4), "Allgather 4 ints as 2 pairs: [%d] = %d", k, out[k]);
    /* Allgatherv IN_PLACE: rank r has r % 4 ints at 4 (np - 1 - r) */
    int *cnt = malloc(sizeof(int) * (size_t)np), *dsp = malloc(sizeof(int) * (size_t)np);
    for (int r = 0; r < np; r++) {
        cnt[r] = r % 4;
        dsp[r] = 4 * (np - 1 - r);
    }
    for (int k = 0; k < 4 * np; k++)
        out[k] = -1;
    for (int i = 0; i < cnt[me]; i++)
        out[dsp[me] + i] = val(me, i);
    COLL(nb, Allgatherv, Iallgatherv, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, cnt, dsp, MPI_INT, comm);
    for (int r = 0; r < np; r++)
        for (int i = 0; i < 4; i++)
            CHECK(out[dsp[r] + i] == (i < cnt[r] ? val(r, i) : -1), "Allgatherv IN_PLACE: rank %d [%d] = %d", r,
                  i, out[dsp[r] + i]);
    free(cnt);
    free(dsp);
    free(out);
}

/* What rank `from` sends rank `to` in the all-to-all tests: element i. */
static int a2a(int from, int to, int i)
{
    return 10000 * (from + 1) + 100 * to + i;
}

static void alltoall(MPI_Comm comm, int nb)
{
    int *buf = malloc(sizeof(int) * 2 * (size_t)np), *in = malloc(sizeof(int) * 2 * (size_t)np);
    for (int j = 0; j < np; j++)
        for (int i = 0; i < 2; i++)
            buf[2 * j + i] = in[2 * j + i] = a2a(me, j, i);
    COLL(nb, Alltoall, Ialltoall, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, 2, MPI_INT, comm);
    for (int j = 0; j < np; j++)
        for (int i = 0; i < 2; i++)
            CHECK(buf[2 * j + i] == a2a(j, me, i), "Alltoall IN_PLACE: from %d [%d] = %d", j, i, buf[2 * j + i]);
    COLL(nb, Alltoall, Ialltoall, in, 2, MPI_INT, buf, 1, pair, comm);
    for (int j = 0; j < np; j++)
        CHECK(buf[2 * j] == a2a(j, me, 0) && buf[2 * j + 1] == a2a(j, me, 1), "Alltoall 2 ints as a pair: from %d",
              j);
    COLL(nb, Alltoall, Ialltoall, NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm);
    free(buf);
    free(in);

    /* Alltoallv IN_PLACE: me and j exchange (me + j) % 3 ints, block j at 3 j */
    int *cnt = malloc(sizeof(int) * (size_t)np), *dsp = malloc(sizeof(int) * (size_t)np);
    int *v = malloc(sizeof(int) * 3 * (size_t)np);
    for (int j = 0; j < np; j++) {
        cnt[j] = (me + j) % 3;
        dsp[j] = 3 * j;
        for (int i = 0; i < 3; i++)
            v[3 * j + i] = i < cnt[j] ? a2a(me, j, i) : -1;
    }
    COLL(nb, Alltoallv, Ialltoallv, MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, v, cnt, dsp, MPI_INT, comm);
    for (int j = 0; j < np; j++)
        for (int i = 0; i < 3; i++)
            CHECK(v[3 * j + i] == (i < cnt[j] ? a2a(j, me, i) : -1), "Alltoallv IN_PLACE: from %d [%d] = %d", j, i,
                  v[3 * j + i]);

    /* Alltoallw: to peer j, (me + j) % 3 + 1 ints; sent as MPI_INT, received
     * as one contiguous type of that many ints from odd peers, as ints from
     * even ones; byte displacements */
    int *sc = malloc(sizeof(int) * (size_t)np), *rc = malloc(sizeof(int) * (size_t)np);
    int *sd = malloc(sizeof(int) * (size_t)np), *rd = malloc(sizeof(int) * (size_t)np);
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * (size_t)np), *rt = malloc(sizeof(MPI_Datatype) * (size_t)np);
    int *sb = malloc(sizeof(int) * 3 * (size_t)np), *rb = malloc(sizeof(int) * 3 * (size_t)np);
    for (int j = 0; j < np; j++) {
        int n = (me + j) % 3 + 1;
        sc[j] = n;
        st[j] = MPI_INT;
        sd[j] = rd[j] = (int)sizeof(int) * 3 * j;
        for (int i = 0; i < 3; i++) {
            sb[3 * j + i] = a2a(me, j, i);
            rb[3 * j + i] = -1;
        }
        if (j % 2) {
            MPI_OK(MPI_Type_contiguous(n, MPI_INT, &rt[j]));
            MPI_OK(MPI_Type_commit(&rt[j]));
            rc[j] = 1;
        } else {
            rt[j] = MPI_INT;
            rc[j] = n;
        }
    }
    COLL(nb, Alltoallw, Ialltoallw, sb, sc, sd, st, rb, rc, rd, rt, comm);
    for (int j = 0; j < np; j++)
        for (int i = 0; i < 3; i++)
            CHECK(rb[3 * j + i] == (i < sc[j] ? a2a(j, me, i) : -1), "Alltoallw: from %d [%d] = %d", j, i,
                  rb[3 * j + i]);
    /* and in place, with the receive types */
    for (int j = 0; j < np; j++)
        for (int i = 0; i < 3; i++)
            rb[3 * j + i] = i < sc[j] ? a2a(me, j, i) : -1;
    COLL(nb, Alltoallw, Ialltoallw, MPI_IN_PLACE, NULL, NULL, NULL, rb, rc, rd, rt, comm);
    for (int j = 0; j < np; j++)
        for (int i = 0; i < 3; i++)
            CHECK(rb[3 * j + i] == (i < sc[j] ? a2a(j, me, i) : -1), "Alltoallw IN_PLACE: from %d [%d] = %d", j, i,
                  rb[3 * j + i]);
    for (int j = 0; j < np; j++)
        if (j % 2)
            MPI_Type_free(&rt[j]);
    free(sc), free(rc), free(sd), free(rd), free(st), free(rt), free(sb), free(rb);
    free(cnt), free(dsp), free(v);
}

/* sum over ranks lo .. hi-1 of val(r, i) */
static int sum(int lo, int hi, int i)
{
    int s = 0;
    for (int r = lo; r < hi; r++)
        s += val(r, i);
    return s;
}

static void reductions(MPI_Comm comm, int nb)
{
    int in[6], out[6];
    for (int root = 0; root < np; root++) {
        for (int i = 0; i < 6; i++)
            in[i] = out[i] = val(me, i);
        if (me == root)
            COLL(nb, Reduce, Ireduce, MPI_IN_PLACE, out, 6, MPI_INT, MPI_SUM, root, comm);
        else
            COLL(nb, Reduce, Ireduce, in, NULL, 6, MPI_INT, MPI_SUM, root, comm);
        if (me == root)
            for (int i = 0; i < 6; i++)
                CHECK(out[i] == sum(0, np, i), "Reduce IN_PLACE root %d: [%d] = %d", root, i, out[i]);
    }
    COLL(nb, Reduce, Ireduce, NULL, NULL, 0, MPI_INT, MPI_SUM, 0, comm);
    for (int i = 0; i < 6; i++)
        out[i] = val(me, i);
    COLL(nb, Allreduce, Iallreduce, MPI_IN_PLACE, out, 6, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < 6; i++)
        CHECK(out[i] == sum(0, np, i), "Allreduce IN_PLACE: [%d] = %d", i, out[i]);
    COLL(nb, Allreduce, Iallreduce, NULL, NULL, 0, MPI_INT, MPI_MAX, comm);

    /* Reduce_scatter: rank r gets r % 2 + 1 elements of the sum */
    int *cnt = malloc(sizeof(int) * (size_t)np), tot = 0, off = 0;
    for (int r = 0; r < np; r++) {
        cnt[r] = r % 2 + 1;
        if (r < me)
            off += cnt[r];
        tot += cnt[r];
    }
    int *v = malloc(sizeof(int) * (size_t)tot), *w = malloc(sizeof(int) * (size_t)tot);
    for (int i = 0; i < tot; i++)
        v[i] = w[i] = val(me, i);
    COLL(nb, Reduce_scatter, Ireduce_scatter, MPI_IN_PLACE, v, cnt, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < cnt[me]; i++)
        CHECK(v[i] == sum(0, np, off + i), "Reduce_scatter IN_PLACE: [%d] = %d", i, v[i]);
    int got[2] = { -1, -1 };
    COLL(nb, Reduce_scatter, Ireduce_scatter, w, got, cnt, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < cnt[me]; i++)
        CHECK(got[i] == sum(0, np, off + i), "Reduce_scatter: [%d] = %d", i, got[i]);
    for (int i = 0; i < tot; i++)
        v[i] = val(me, i);
    int blk = tot / np;   /* >= 1 */
    COLL(nb, Reduce_scatter_block, Ireduce_scatter_block, MPI_IN_PLACE, v, blk, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < blk; i++)
        CHECK(v[i] == sum(0, np, me * blk + i), "Reduce_scatter_block IN_PLACE: [%d] = %d", i, v[i]);
    COLL(nb, Reduce_scatter_block, Ireduce_scatter_block, NULL, NULL, 0, MPI_INT, MPI_SUM, comm);
    free(cnt), free(v), free(w);

    /* Scan and Exscan, in place: prefix sums; Exscan's rank 0 is undefined */
    for (int i = 0; i < 6; i++)
        out[i] = val(me, i);
    COLL(nb, Scan, Iscan, MPI_IN_PLACE, out, 6, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < 6; i++)
        CHECK(out[i] == sum(0, me + 1, i), "Scan IN_PLACE: [%d] = %d", i, out[i]);
    for (int i = 0; i < 6; i++)
        out[i] = val(me, i);
    COLL(nb, Exscan, Iexscan, MPI_IN_PLACE, out, 6, MPI_INT, MPI_SUM, comm);
    for (int i = 0; me > 0 && i < 6; i++)
        CHECK(out[i] == sum(0, me, i), "Exscan IN_PLACE: [%d] = %d", i, out[i]);
    for (int i = 0; i < 6; i++)
        in[i] = val(me, i);
    COLL(nb, Exscan, Iexscan, in, out, 3, pair, MPI_SUM, comm);
    for (int i = 0; me > 0 && i < 6; i++)
        CHECK(out[i] == sum(0, me, i), "Exscan of pairs: [%d] = %d", i, out[i]);
    COLL(nb, Scan, Iscan, NULL, NULL, 0, MPI_INT, MPI_SUM, comm);
    COLL(nb, Barrier, Ibarrier, comm);
}

/* Several I* collectives outstanding at once on one communicator, started
 * in the same order everywhere, completed by Waitall in reverse order and,
 * a second time, one by one from the last. */
static void overlapped(MPI_Comm comm)
{
    for (int round = 0; round < 2; round++) {
        MPI_Request r[6];
        int b[4], s[4], sc[4], ag[4 * 64], a2[2 * 64], a2in[2 * 64];
        CHECK(np <= 64, "np %d", np);
        for (int i = 0; i < 4; i++) {
            b[i] = me == 0 ? val(0, i) : -1;
            s[i] = val(me, i);
            sc[i] = val(me, i);
        }
        for (int j = 0; j < np; j++)
            a2in[2 * j] = a2a(me, j, 0), a2in[2 * j + 1] = a2a(me, j, 1);
        MPI_OK(MPI_Ibcast(b, 4, MPI_INT, 0, comm, &r[0]));
        MPI_OK(MPI_Iallreduce(MPI_IN_PLACE, s, 4, MPI_INT, MPI_SUM, comm, &r[1]));
        MPI_OK(MPI_Iallgather(s, 0, MPI_INT, ag, 0, MPI_INT, comm, &r[2]));   /* zero count */
        MPI_OK(MPI_Ialltoall(a2in, 2, MPI_INT, a2, 2, MPI_INT, comm, &r[3]));
        MPI_OK(MPI_Iscan(MPI_IN_PLACE, sc, 4, MPI_INT, MPI_SUM, comm, &r[4]));
        MPI_OK(MPI_Ibarrier(comm, &r[5]));
        if (round == 0) {
            MPI_Request rev[6];
            for (int k = 0; k < 6; k++)
                rev[k] = r[5 - k];
            MPI_OK(MPI_Waitall(6, rev, MPI_STATUSES_IGNORE));
        } else {
            for (int k = 5; k >= 0; k--)
                MPI_OK(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < 4; i++) {
            CHECK(b[i] == val(0, i), "overlapped Ibcast [%d] = %d", i, b[i]);
            CHECK(s[i] == sum(0, np, i), "overlapped Iallreduce [%d] = %d", i, s[i]);
            CHECK(sc[i] == sum(0, me + 1, i), "overlapped Iscan [%d] = %d", i, sc[i]);
        }
        for (int j = 0; j < np; j++)
            CHECK(a2[2 * j] == a2a(j, me, 0) && a2[2 * j + 1] == a2a(j, me, 1), "overlapped Ialltoall from %d", j);
    }
}

/* Count 0 of a datatype that is not examined then: dt is MPI_DATATYPE_NULL,
 * an uncommitted type or a value that is no handle. Every data-moving
 * collective accepts it (the other side may use another type: both
 * signatures are empty); a reduction refuses it, as MPICH does. */
static void empty_type(MPI_Comm comm, int nb, MPI_Datatype dt, const char *name)
{
    int *zc = calloc((size_t)np, sizeof(int)), x = 3;
    MPI_Datatype *tv = malloc(sizeof(MPI_Datatype) * (size_t)np);
    for (int i = 0; i < np; i++)
        tv[i] = i % 2 ? dt : MPI_INT;
    for (int root = 0; root < np; root++) {
        COLL(nb, Bcast, Ibcast, NULL, 0, me == root ? dt : MPI_INT, root, comm);
        COLL(nb, Gather, Igather, NULL, 0, dt, NULL, 0, dt, root, comm);
        COLL(nb, Scatter, Iscatter, NULL, 0, MPI_INT, NULL, 0, dt, root, comm);
        COLL(nb, Gatherv, Igatherv, NULL, 0, dt, NULL, zc, zc, dt, root, comm);
        COLL(nb, Scatterv, Iscatterv, NULL, zc, zc, dt, NULL, 0, dt, root, comm);
    }
    COLL(nb, Allgather, Iallgather, NULL, 0, dt, NULL, 0, dt, comm);
    COLL(nb, Allgatherv, Iallgatherv, NULL, 0, dt, NULL, zc, zc, dt, comm);
    COLL(nb, Alltoall, Ialltoall, NULL, 0, dt, NULL, 0, MPI_INT, comm);
    COLL(nb, Alltoallv, Ialltoallv, NULL, zc, zc, dt, NULL, zc, zc, dt, comm);
    COLL(nb, Alltoallw, Ialltoallw, NULL, zc, zc, tv, NULL, zc, zc, tv, comm);
    /* a reduction binds its operation to the datatype: checked at count 0 too */
    int rc = MPI_Allreduce(NULL, NULL, 0, dt, MPI_SUM, comm);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "Allreduce of 0 %s: class %d, expected MPI_ERR_TYPE", name, mt_class(rc));
    rc = MPI_Reduce_local(NULL, NULL, 0, dt, MPI_SUM);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "Reduce_local of 0 %s: class %d", name, mt_class(rc));
    /* with data the datatype is checked as before (every rank fails alike) */
    rc = MPI_Bcast(&x, 1, dt, 0, comm);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "Bcast of 1 %s: class %d", name, mt_class(rc));
    free(zc);
    free(tv);
}

/* The persistent and large-count forms, once. */
static void empty_type_forms(MPI_Comm comm, MPI_Datatype dt)
{
    MPI_Request r[3];
    MPI_Count *zcc = calloc((size_t)np, sizeof(MPI_Count));
    MPI_Aint *zd = calloc((size_t)np, sizeof(MPI_Aint));
    int *zc = calloc((size_t)np, sizeof(int));
    MPI_Datatype *tv = malloc(sizeof(MPI_Datatype) * (size_t)np);
    for (int i = 0; i < np; i++)
        tv[i] = dt;
    MPI_OK(MPI_Bcast_init(NULL, 0, dt, np - 1, comm, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Allgather_init(NULL, 0, dt, NULL, 0, MPI_INT, comm, MPI_INFO_NULL, &r[1]));
    MPI_OK(MPI_Alltoallw_init(NULL, zc, zc, tv, NULL, zc, zc, tv, comm, MPI_INFO_NULL, &r[2]));
    for (int k = 0; k < 2; k++) {
        MPI_OK(MPI_Startall(3, r));
        MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    }
    for (int k = 0; k < 3; k++)
        MPI_OK(MPI_Request_free(&r[k]));
    MPI_OK(MPI_Bcast_c(NULL, 0, dt, 0, comm));
    MPI_OK(MPI_Gatherv_c(NULL, 0, dt, NULL, zcc, zd, dt, 0, comm));
    MPI_OK(MPI_Alltoallv_c(NULL, zcc, zd, dt, NULL, zcc, zd, dt, comm));
    MPI_OK(MPI_Alltoallw_c(NULL, zcc, zd, tv, NULL, zcc, zd, tv, comm));
    free(zcc);
    free(zd);
    free(zc);
    free(tv);
}

static void empty_types(MPI_Comm comm)
{
    MPI_Datatype unc, dts[3] = { MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, (MPI_Datatype)0x5a5a1234 };
    const char *names[3] = { "MPI_DATATYPE_NULL", "uncommitted", "garbage" };
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &unc));
    dts[1] = unc;
    for (int k = 0; k < 3; k++) {
        for (int nb = 0; nb < 2; nb++)
            empty_type(comm, nb, dts[k], names[k]);
        empty_type_forms(comm, dts[k]);
    }
    MPI_OK(MPI_Type_free(&unc));
}

/* The same on an intercommunicator between the two halves of comm (2 ranks
 * or more): the rooted calls (MPI_ROOT, MPI_PROC_NULL, the remote root) and
 * the all-to-all ones; its reductions check the datatype at count 0 too. */
static void empty_types_inter(MPI_Comm comm)
{
    if (np < 2)
        return;
    MPI_Comm half, inter;
    int left = me < np / 2, hme, hnp, rnp;
    MPI_OK(MPI_Comm_split(comm, left, me, &half));
    MPI_OK(MPI_Intercomm_create(half, 0, comm, left ? np / 2 : 0, 77, &inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_rank(half, &hme);
    MPI_Comm_size(half, &hnp);
    MPI_Comm_remote_size(inter, &rnp);
    int *zc = calloc((size_t)(hnp > rnp ? hnp : rnp), sizeof(int));
    int root = left ? (hme == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;   /* the left group's rank 0 is the root */
    MPI_Request r;
    MPI_OK(MPI_Bcast(NULL, 0, MPI_DATATYPE_NULL, root, inter));
    MPI_OK(MPI_Ibcast(NULL, 0, MPI_DATATYPE_NULL, root, inter, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Gather(NULL, 0, MPI_DATATYPE_NULL, NULL, 0, MPI_DATATYPE_NULL, root, inter));
    MPI_OK(MPI_Scatterv(NULL, zc, zc, MPI_DATATYPE_NULL, NULL, 0, MPI_DATATYPE_NULL, root, inter));
    MPI_OK(MPI_Allgather(NULL, 0, MPI_DATATYPE_NULL, NULL, 0, MPI_INT, inter));
    MPI_OK(MPI_Alltoallv(NULL, zc, zc, MPI_DATATYPE_NULL, NULL, zc, zc, MPI_DATATYPE_NULL, inter));
    MPI_OK(MPI_Ialltoall(NULL, 0, MPI_DATATYPE_NULL, NULL, 0, MPI_DATATYPE_NULL, inter, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int rc = MPI_Allreduce(NULL, NULL, 0, MPI_DATATYPE_NULL, MPI_SUM, inter);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "intercomm Allreduce of 0 MPI_DATATYPE_NULL: class %d", mt_class(rc));
    rc = MPI_Ireduce(NULL, NULL, 0, MPI_DATATYPE_NULL, MPI_SUM, root, inter, &r);
    CHECK(mt_class(rc) == MPI_ERR_TYPE || (root == MPI_PROC_NULL && rc == MPI_SUCCESS),
          "intercomm Ireduce of 0 MPI_DATATYPE_NULL: class %d", mt_class(rc));
    if (rc == MPI_SUCCESS)
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    free(zc);
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&half));
}

static void expect(int rc, int cls, const char *what)
{
    CHECK(mt_class(rc) == cls, "%s: class %d, expected %d", what, mt_class(rc), cls);
}

/* The I* forms check their arguments like the blocking ones (every rank
 * makes the same bad call, so nobody is left waiting). */
static void nb_errors(MPI_Comm comm)
{
    int a[4] = { 0 }, b[4 * 64] = { 0 };
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Datatype unc;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &unc));
    expect(MPI_Ibcast(a, 1, MPI_INT, np, comm, &r), MPI_ERR_ROOT, "Ibcast root np");
    expect(MPI_Ibcast(a, 1, MPI_INT, -1, comm, &r), MPI_ERR_ROOT, "Ibcast root -1");
    expect(MPI_Ireduce(a, b, 1, MPI_INT, MPI_SUM, np + 1, comm, &r), MPI_ERR_ROOT, "Ireduce root");
    expect(MPI_Igather(a, 1, MPI_INT, b, 1, MPI_INT, -3, comm, &r), MPI_ERR_ROOT, "Igather root");
    expect(MPI_Iscatter(b, 1, MPI_INT, a, 1, MPI_INT, np, comm, &r), MPI_ERR_ROOT, "Iscatter root");
    expect(MPI_Ibcast(a, -1, MPI_INT, 0, comm, &r), MPI_ERR_COUNT, "Ibcast count -1");
    expect(MPI_Iallreduce(a, b, -2, MPI_INT, MPI_SUM, comm, &r), MPI_ERR_COUNT, "Iallreduce count -2");
    expect(MPI_Iallgather(a, -1, MPI_INT, b, 1, MPI_INT, comm, &r), MPI_ERR_COUNT, "Iallgather sendcount -1");
    expect(MPI_Ibcast(a, 1, MPI_DATATYPE_NULL, 0, comm, &r), MPI_ERR_TYPE, "Ibcast MPI_DATATYPE_NULL");
    expect(MPI_Ibcast(a, 1, unc, 0, comm, &r), MPI_ERR_TYPE, "Ibcast uncommitted type");
    expect(MPI_Ialltoall(a, 1, unc, b, 1, MPI_INT, comm, &r), MPI_ERR_TYPE, "Ialltoall uncommitted sendtype");
    expect(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_OP_NULL, comm, &r), MPI_ERR_OP, "Iallreduce MPI_OP_NULL");
    expect(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_MAXLOC, comm, &r), MPI_ERR_OP, "Iallreduce MAXLOC on MPI_INT");
    expect(MPI_Ireduce(a, b, 1, MPI_INT, MPI_REPLACE, 0, comm, &r), MPI_ERR_OP, "Ireduce MPI_REPLACE");
    expect(MPI_Iallreduce(a, a, 1, MPI_INT, MPI_SUM, comm, &r), MPI_ERR_BUFFER, "Iallreduce aliased buffers");
    expect(MPI_Ibarrier(MPI_COMM_NULL, &r), MPI_ERR_COMM, "Ibarrier MPI_COMM_NULL");
    expect(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &r), MPI_ERR_COMM, "Iallreduce MPI_COMM_NULL");
    CHECK(MPI_Ibarrier(comm, NULL) != MPI_SUCCESS, "Ibarrier with request NULL succeeded");
    CHECK(r == MPI_REQUEST_NULL, "a refused I* call left a request");
    MPI_OK(MPI_Type_free(&unc));
    /* blocking forms: the calls test_mpi_coll_errors leaves out */
    expect(MPI_Reduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT, "Reduce_scatter_block -1");
    expect(MPI_Scan(a, b, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP, "Scan MPI_OP_NULL");
    expect(MPI_Exscan(a, a, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER, "Exscan aliased");
    expect(MPI_Scatterv(b, NULL, NULL, MPI_INT, a, 1, MPI_INT, np, comm), MPI_ERR_ROOT, "Scatterv root np");
    MPI_OK(MPI_Barrier(comm));   /* still works */
}

static void suite(MPI_Comm comm)
{
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    for (int nb = 0; nb < 2; nb++) {
        bcast(comm, nb);
        gather(comm, nb);
        scatter(comm, nb);
        allgather(comm, nb);
        alltoall(comm, nb);
        reductions(comm, nb);
    }
    overlapped(comm);
    nb_errors(comm);
    empty_types(comm);
    empty_types_inter(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wme, wnp;
    MPI_Comm_rank(MPI_COMM_WORLD, &wme);
    MPI_Comm_size(MPI_COMM_WORLD, &wnp);
    mt_rank = wme;
    /* errors with no communicator (MPI_COMM_NULL) are raised on these */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    MPI_Comm dup, rev;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    suite(dup);
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, wnp - wme, &rev));   /* ranks reversed */
    suite(rev);
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Comm_free(&rev));
    MPI_OK(MPI_Type_free(&pair));
    MPI_Finalize();
    if (wme == 0)
        printf("conf_coll: %d ranks: every collective, blocking and I*, in place, zero counts, mixed "
               "signatures, Alltoallw, overlapped, I* errors, count 0 of any datatype: ok\n", wnp);
    return 0;
}
