/*
 * Intercommunicators (MPI-4.1 7.6, 6.2.2): Intercomm_create between the even
 * (group A) and the odd (group B) world ranks, the remote-group queries,
 * point-to-point and probes (Probe, Mprobe + Mrecv) naming remote ranks, every blocking collective
 * with the rooted semantics, Intercomm_merge's rank order, dup / split /
 * create of an intercommunicator, compare, attributes and names, and the
 * argument errors. Every expected value is computed from the layout: remote
 * rank i of group A is world rank 2i + 1, of group B world rank 2i.
 * With one process only the errors on intracommunicators are checked.
 */
#include "mpi_test.h"

static int wrank, wsize, color, nA, nB, lsize, rsize, lrank;

/* World rank of rank i of group g (0: A, the evens; 1: B, the odds). */
static int world_of(int g, int i)
{
    return 2 * i + g;
}

static void check_group(MPI_Group g, int n, int grp, int reversed, const char *what)
{
    int sz;
    MPI_OK(MPI_Group_size(g, &sz));
    CHECK(sz == n, "%s: group size %d, expected %d", what, sz, n);
    MPI_Group wg;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < n; i++) {
        int w;
        MPI_OK(MPI_Group_translate_ranks(g, 1, &i, wg, &w));
        int exp = world_of(grp, reversed ? n - 1 - i : i);
        CHECK(w == exp, "%s: member %d is world rank %d, expected %d", what, i, w, exp);
    }
    MPI_OK(MPI_Group_free(&wg));
}

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(mt_class(rc) == cls, "%s: error class %d, expected %d", what, mt_class(rc), cls);
}

static void test_queries(MPI_Comm ic)
{
    int flag, n, r;
    MPI_OK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag == 1, "test_inter %d", flag);
    MPI_OK(MPI_Comm_size(ic, &n));
    CHECK(n == lsize, "size %d, expected the local group's %d", n, lsize);
    MPI_OK(MPI_Comm_rank(ic, &r));
    CHECK(r == lrank, "rank %d, expected %d", r, lrank);
    MPI_OK(MPI_Comm_remote_size(ic, &n));
    CHECK(n == rsize, "remote size %d, expected %d", n, rsize);
    MPI_Group g;
    MPI_OK(MPI_Comm_remote_group(ic, &g));
    check_group(g, rsize, 1 - color, 0, "remote group");
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Comm_group(ic, &g));
    check_group(g, lsize, color, 0, "local group");
    MPI_OK(MPI_Group_free(&g));
}

/* Local rank r sends its world rank to remote rank r % rsize; each process
 * receives from every remote rank j with j % lsize == lrank, with
 * MPI_ANY_SOURCE, through Probe, Mprobe and Recv in turn. */
static void test_p2p(MPI_Comm ic)
{
    int val = wrank, dest = lrank % rsize;
    MPI_Request req;
    MPI_OK(MPI_Isend(&val, 1, MPI_INT, dest, 7, ic, &req));
    int expected = 0;
    for (int j = 0; j < rsize; j++)
        expected += j % lsize == lrank;
    for (int k = 0; k < expected; k++) {
        MPI_Status st;
        int got = -1;
        if (k % 3 == 0) {
            MPI_OK(MPI_Probe(MPI_ANY_SOURCE, 7, ic, &st));
            MPI_OK(MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 7, ic, &st));
        } else if (k % 3 == 1) {
            MPI_Message m;
            MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, 7, ic, &m, &st));
            MPI_OK(MPI_Mrecv(&got, 1, MPI_INT, &m, &st));
        } else {
            MPI_OK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 7, ic, &st));
        }
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize && st.MPI_SOURCE % lsize == lrank,
              "message from remote rank %d, not one that sends to me", st.MPI_SOURCE);
        CHECK(got == world_of(1 - color, st.MPI_SOURCE), "remote rank %d sent %d, expected its world rank %d",
              st.MPI_SOURCE, got, world_of(1 - color, st.MPI_SOURCE));
    }
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    /* Sendrecv between partners of the same rank when both groups have it. */
    if (lrank < rsize) {
        int out = wrank * 3, in = -1;
        MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, lrank, 8, &in, 1, MPI_INT, lrank, 8, ic, MPI_STATUS_IGNORE));
        CHECK(in == world_of(1 - color, lrank) * 3, "sendrecv got %d", in);
    }
    MPI_Status st;
    int x = 5;
    MPI_OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, ic, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && x == 5, "receive from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
    MPI_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, ic));
    expect_class(MPI_Send(&x, 1, MPI_INT, rsize, 0, ic), MPI_ERR_RANK, "send to rank remote_size");
    expect_class(MPI_Recv(&x, 1, MPI_INT, rsize, 0, ic, &st), MPI_ERR_RANK, "receive from rank remote_size");
}

static int sum_world(int g, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += world_of(g, i);
    return s;
}

static void test_rooted(MPI_Comm ic)
{
    int rgrp = 1 - color;
    /* Bcast from A's rank 0, then from B's last rank, of a strided vector. */
    for (int from = 0; from < 2; from++) {
        int rootrank = from == 0 ? 0 : nB - 1;
        int root = color == from ? (lrank == rootrank ? MPI_ROOT : MPI_PROC_NULL) : rootrank;
        MPI_Datatype vec;
        MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
        MPI_OK(MPI_Type_commit(&vec));
        int b[6] = { -1, -1, -1, -1, -1, -1 };
        if (root == MPI_ROOT)
            for (int i = 0; i < 6; i++)
                b[i] = 100 * from + i;
        MPI_OK(MPI_Bcast(b, 1, vec, root, ic));
        if (color != from)
            for (int i = 0; i < 6; i++)
                CHECK(b[i] == (i % 2 ? -1 : 100 * from + i), "bcast from group %d: b[%d] = %d", from, i, b[i]);
        if (root == MPI_PROC_NULL)
            CHECK(b[0] == -1, "bcast touched a MPI_PROC_NULL buffer");
        MPI_OK(MPI_Type_free(&vec));
    }
    /* Reduce to A's rank 0: the sum of B's world ranks. */
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int v = wrank, r = -1;
    MPI_OK(MPI_Reduce(&v, &r, 1, MPI_INT, MPI_SUM, root, ic));
    if (root == MPI_ROOT)
        CHECK(r == sum_world(1, nB), "reduce: %d, expected %d", r, sum_world(1, nB));
    /* Gather and Gatherv (reversed displacements) to B's rank 0. */
    root = color == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int *g = malloc((size_t)(2 * wsize + 2) * sizeof(int)), *cnt = g + wsize + 1, *dsp = malloc(sizeof(int) * (size_t)(wsize + 1));
    for (int i = 0; i < rsize; i++) {
        g[i] = -1;
        cnt[i] = 1;
        dsp[i] = rsize - 1 - i;
    }
    MPI_OK(MPI_Gather(&v, 1, MPI_INT, g, 1, MPI_INT, root, ic));
    for (int i = 0; root == MPI_ROOT && i < rsize; i++)
        CHECK(g[i] == world_of(rgrp, i), "gather: g[%d] = %d", i, g[i]);
    MPI_OK(MPI_Gatherv(&v, 1, MPI_INT, g, cnt, dsp, MPI_INT, root, ic));
    for (int i = 0; root == MPI_ROOT && i < rsize; i++)
        CHECK(g[rsize - 1 - i] == world_of(rgrp, i), "gatherv: g[%d] = %d", rsize - 1 - i, g[rsize - 1 - i]);
    /* Scatter and Scatterv from B's rank 0 to A. */
    for (int i = 0; root == MPI_ROOT && i < rsize; i++)
        g[i] = 1000 + i;
    r = -1;
    MPI_OK(MPI_Scatter(g, 1, MPI_INT, &r, 1, MPI_INT, root, ic));
    if (color == 0)
        CHECK(r == 1000 + lrank, "scatter: %d", r);
    MPI_OK(MPI_Scatterv(g, cnt, dsp, MPI_INT, &r, 1, MPI_INT, root, ic));
    if (color == 0)
        CHECK(r == 1000 + (nA - 1 - lrank), "scatterv: %d", r);
    free(g);
    free(dsp);
    /* A bad root is MPI_ERR_ROOT on either side. */
    expect_class(MPI_Bcast(&v, 1, MPI_INT, rsize, ic), MPI_ERR_ROOT, "bcast root = remote size");
    expect_class(MPI_Reduce(&v, &r, 1, MPI_INT, MPI_SUM, -7, ic), MPI_ERR_ROOT, "reduce root = -7");
    expect_class(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, MPI_ROOT, ic), MPI_ERR_BUFFER, "bcast of MPI_IN_PLACE");
}

static void test_all(MPI_Comm ic)
{
    int rgrp = 1 - color, v = wrank, r = -1;
    MPI_OK(MPI_Barrier(ic));
    /* Allreduce: each group gets the remote group's sum. */
    MPI_OK(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, ic));
    CHECK(r == sum_world(rgrp, rsize), "allreduce: %d, expected the remote sum %d", r, sum_world(rgrp, rsize));
    int n = rsize > lsize ? rsize : lsize;
    int *a = calloc((size_t)(8 * n * n + 8), sizeof(int)), *b = a + 4 * n * n + 4;
    /* Allgather(v): the remote group's values in its rank order. */
    MPI_OK(MPI_Allgather(&v, 1, MPI_INT, a, 1, MPI_INT, ic));
    for (int i = 0; i < rsize; i++)
        CHECK(a[i] == world_of(rgrp, i), "allgather: a[%d] = %d", i, a[i]);
    int two[2] = { wrank, -wrank }, cnt[64], dsp[64], sdsp[64];
    CHECK(n <= 64, "too many ranks");
    for (int i = 0; i < rsize; i++) {
        cnt[i] = 2;
        dsp[i] = 2 * (rsize - 1 - i);
    }
    MPI_OK(MPI_Allgatherv(two, 2, MPI_INT, a, cnt, dsp, MPI_INT, ic));
    for (int i = 0; i < rsize; i++)
        CHECK(a[dsp[i]] == world_of(rgrp, i) && a[dsp[i] + 1] == -world_of(rgrp, i), "allgatherv: block %d", i);
    /* Alltoall: block j to remote j is 1000 * me + j. */
    for (int j = 0; j < rsize; j++)
        b[j] = 1000 * wrank + j;
    MPI_OK(MPI_Alltoall(b, 1, MPI_INT, a, 1, MPI_INT, ic));
    for (int j = 0; j < rsize; j++)
        CHECK(a[j] == 1000 * world_of(rgrp, j) + lrank, "alltoall: from %d got %d", j, a[j]);
    /* Alltoallv with reversed receive displacements; Alltoallw in bytes. */
    for (int j = 0; j < rsize; j++) {
        cnt[j] = 1;
        sdsp[j] = j;
        dsp[j] = rsize - 1 - j;
    }
    MPI_OK(MPI_Alltoallv(b, cnt, sdsp, MPI_INT, a, cnt, dsp, MPI_INT, ic));
    for (int j = 0; j < rsize; j++)
        CHECK(a[rsize - 1 - j] == 1000 * world_of(rgrp, j) + lrank, "alltoallv: from %d", j);
    MPI_Datatype ty[64];
    for (int j = 0; j < rsize; j++) {
        ty[j] = MPI_INT;
        sdsp[j] = j * (int)sizeof(int);
        dsp[j] = (rsize - 1 - j) * (int)sizeof(int);
    }
    memset(a, 0, (size_t)rsize * sizeof(int));
    MPI_OK(MPI_Alltoallw(b, cnt, sdsp, ty, a, cnt, dsp, ty, ic));
    for (int j = 0; j < rsize; j++)
        CHECK(a[rsize - 1 - j] == 1000 * world_of(rgrp, j) + lrank, "alltoallw: from %d", j);
    /* Reduce_scatter_block: both groups reduce nA * nB elements (element k of
     * world rank w is w + k); my group's rank i gets block i of the remote
     * sum, sum(remote world ranks) + rsize * k. */
    int total = nA * nB, rc = total / lsize;
    for (int k = 0; k < total; k++)
        b[k] = wrank + k;
    MPI_OK(MPI_Reduce_scatter_block(b, a, rc, MPI_INT, MPI_SUM, ic));
    for (int k = 0; k < rc; k++) {
        int e = lrank * rc + k;
        CHECK(a[k] == sum_world(rgrp, rsize) + rsize * e, "reduce_scatter_block: a[%d] = %d", k, a[k]);
    }
    /* Reduce_scatter, uneven: rank 0 takes two blocks of rc and the last
     * rank none (with two or more), the others one each. */
    for (int i = 0; i < lsize; i++)
        cnt[i] = rc;
    if (lsize > 1) {
        cnt[0] += rc;
        cnt[lsize - 1] = 0;
    }
    MPI_OK(MPI_Reduce_scatter(b, a, cnt, MPI_INT, MPI_SUM, ic));
    int first = lrank == 0 ? 0 : lrank * rc + rc;
    for (int k = 0; k < cnt[lrank]; k++)
        CHECK(a[k] == sum_world(rgrp, rsize) + rsize * (first + k), "reduce_scatter: a[%d] = %d", k, a[k]);
    free(a);
    int x;
    expect_class(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_BUFFER, "allreduce in place");
    expect_class(MPI_Scan(&v, &x, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM, "scan on an intercommunicator");
}

/* The merged communicator's order: the group with high = 0 first (MPI-4.1
 * 7.6.2); with the same high everywhere an order both groups agree on. */
static void test_merge(MPI_Comm ic)
{
    for (int lowgrp = 0; lowgrp < 2; lowgrp++) {
        MPI_Comm m;
        MPI_OK(MPI_Intercomm_merge(ic, color != lowgrp, &m));
        int r, n, flag;
        MPI_OK(MPI_Comm_rank(m, &r));
        MPI_OK(MPI_Comm_size(m, &n));
        MPI_OK(MPI_Comm_test_inter(m, &flag));
        CHECK(flag == 0 && n == wsize, "merged: inter %d size %d", flag, n);
        int lown = lowgrp == 0 ? nA : nB;
        int exp = color == lowgrp ? lrank : lown + lrank;
        CHECK(r == exp, "merge with group %d low: rank %d, expected %d", lowgrp, r, exp);
        int s = -1;
        MPI_OK(MPI_Allreduce(&wrank, &s, 1, MPI_INT, MPI_SUM, m));
        CHECK(s == wsize * (wsize - 1) / 2, "allreduce on the merged comm: %d", s);
        MPI_OK(MPI_Comm_free(&m));
    }
    MPI_Comm m;
    MPI_OK(MPI_Intercomm_merge(ic, 1, &m));
    int *all = malloc((size_t)wsize * sizeof(int)), r;
    MPI_OK(MPI_Comm_rank(m, &r));
    MPI_OK(MPI_Allgather(&wrank, 1, MPI_INT, all, 1, MPI_INT, m));
    CHECK(all[r] == wrank, "merged with equal high: rank %d holds world %d", r, all[r]);
    /* each group stays together, in its own order */
    int pos = -1;
    for (int i = 0; i < wsize; i++)
        if (all[i] == world_of(color, 0))
            pos = i;
    CHECK(pos >= 0, "group leader missing");
    for (int i = 0; i < lsize; i++)
        CHECK(all[pos + i] == world_of(color, i), "equal high: my group is not contiguous");
    free(all);
    MPI_OK(MPI_Comm_free(&m));
}

static int copied;
static int copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copied++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void test_derived(MPI_Comm ic)
{
    int res, key, flag;
    void *val;
    MPI_OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_OK(MPI_Comm_set_attr(ic, key, (void *)(intptr_t)42));
    MPI_OK(MPI_Comm_set_name(ic, "inter AB"));
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(ic, &d));
    CHECK(copied == 1, "dup ran the copy callback %d times", copied);
    MPI_OK(MPI_Comm_get_attr(d, key, &val, &flag));
    CHECK(flag && val == (void *)(intptr_t)42, "dup's attribute");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Comm_get_name(ic, name, &len));
    CHECK(strcmp(name, "inter AB") == 0, "name %s", name);
    MPI_OK(MPI_Comm_compare(ic, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare(inter, dup) = %d", res);
    MPI_OK(MPI_Comm_compare(ic, ic, &res));
    CHECK(res == MPI_IDENT, "compare(inter, inter) = %d", res);
    MPI_OK(MPI_Comm_compare(ic, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_UNEQUAL, "compare(inter, world) = %d", res);
    test_queries(d);
    /* The duplicate's messages do not match the original's. */
    if (lrank < rsize) {
        int o1 = 1, o2 = 2, i1 = 0, i2 = 0;
        MPI_Request q[2];
        MPI_OK(MPI_Isend(&o1, 1, MPI_INT, lrank, 3, ic, &q[0]));
        MPI_OK(MPI_Isend(&o2, 1, MPI_INT, lrank, 3, d, &q[1]));
        MPI_OK(MPI_Recv(&i2, 1, MPI_INT, lrank, 3, d, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Recv(&i1, 1, MPI_INT, lrank, 3, ic, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        CHECK(i1 == 1 && i2 == 2, "dup traffic mixed: %d %d", i1, i2);
    }
    MPI_OK(MPI_Comm_disconnect(&d));
    CHECK(d == MPI_COMM_NULL, "disconnect left the handle");
    MPI_Request q;
    MPI_OK(MPI_Comm_idup(ic, &d, &q));
    MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK(copied == 2, "idup ran the copy callback %d times in all", copied);
    test_queries(d);
    int isum = -1;
    MPI_OK(MPI_Allreduce(&wrank, &isum, 1, MPI_INT, MPI_SUM, d));
    CHECK(isum == sum_world(1 - color, rsize), "allreduce on the idup: %d", isum);
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free_keyval(&key));

    /* Split by parity of the local rank, keys reversing the order: the remote
     * group is the remote members of my parity, reversed too. */
    MPI_Comm s;
    int par = lrank % 2;
    MPI_OK(MPI_Comm_split(ic, par, -lrank, &s));
    int lpar = (lsize - par + 1) / 2, rpar = (rsize - par + 1) / 2;
    if (rpar == 0) {
        CHECK(s == MPI_COMM_NULL, "split with no remote member of my color gave a communicator");
    } else {
        int n, r;
        MPI_OK(MPI_Comm_size(s, &n));
        MPI_OK(MPI_Comm_rank(s, &r));
        CHECK(n == lpar && r == lpar - 1 - lrank / 2, "split: size %d rank %d", n, r);
        MPI_Group g, wg;
        MPI_OK(MPI_Comm_remote_group(s, &g));
        MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
        for (int i = 0; i < rpar; i++) {
            int w;
            MPI_OK(MPI_Group_translate_ranks(g, 1, &i, wg, &w));
            int exp = world_of(1 - color, par + 2 * (rpar - 1 - i));
            CHECK(w == exp, "split: remote member %d is world %d, expected %d", i, w, exp);
        }
        MPI_OK(MPI_Group_free(&g));
        MPI_OK(MPI_Group_free(&wg));
        int sum = -1;
        MPI_OK(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, s));
        int e = 0;
        for (int i = 0; i < rpar; i++)
            e += world_of(1 - color, par + 2 * i);
        CHECK(sum == e, "allreduce on the split: %d, expected %d", sum, e);
        MPI_OK(MPI_Comm_free(&s));
    }
    /* Comm_create with each group's rank 0 alone: a 1 x 1 intercommunicator. */
    MPI_Group lg, one;
    MPI_OK(MPI_Comm_group(ic, &lg));
    int zero = 0;
    MPI_OK(MPI_Group_incl(lg, 1, &zero, &one));
    MPI_Comm c1;
    MPI_OK(MPI_Comm_create(ic, one, &c1));
    if (lrank != 0) {
        CHECK(c1 == MPI_COMM_NULL, "comm_create: not a member but got a communicator");
    } else {
        int n;
        MPI_OK(MPI_Comm_remote_size(c1, &n));
        CHECK(n == 1, "comm_create: remote size %d", n);
        int in = -1;
        MPI_OK(MPI_Sendrecv(&wrank, 1, MPI_INT, 0, 0, &in, 1, MPI_INT, 0, 0, c1, MPI_STATUS_IGNORE));
        CHECK(in == world_of(1 - color, 0), "comm_create: partner is %d", in);
        MPI_OK(MPI_Comm_free(&c1));
    }
    MPI_OK(MPI_Group_free(&one));
    MPI_OK(MPI_Group_free(&lg));
}

/* MPI-4.0's Intercomm_create_from_groups between the same two groups, taken
 * from MPI_COMM_WORLD's group, with its error handler attached. */
static void test_from_groups(void)
{
    MPI_Group wg, mine, other;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int *r = malloc((size_t)wsize * sizeof(int));
    for (int i = 0; i < lsize; i++)
        r[i] = world_of(color, i);
    MPI_OK(MPI_Group_incl(wg, lsize, r, &mine));
    for (int i = 0; i < rsize; i++)
        r[i] = world_of(1 - color, i);
    MPI_OK(MPI_Group_incl(wg, rsize, r, &other));
    free(r);
    MPI_Comm ic;
    MPI_OK(MPI_Intercomm_create_from_groups(mine, lsize - 1, other, rsize - 1, "rdmach test", MPI_INFO_NULL,
                                            MPI_ERRORS_RETURN, &ic));
    test_queries(ic);
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_get_errhandler(ic, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "from_groups: error handler 0x%x", (unsigned)eh);
    int v = wrank, s = -1;
    MPI_OK(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, ic));
    CHECK(s == sum_world(1 - color, rsize), "from_groups: allreduce %d", s);
    MPI_Comm nc;
    expect_class(MPI_Intercomm_create_from_groups(mine, lsize, other, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &nc),
                 MPI_ERR_RANK, "from_groups: local_leader out of range");
    expect_class(MPI_Intercomm_create_from_groups(other, 0, mine, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &nc),
                 MPI_ERR_GROUP, "from_groups: caller not in local_group");
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Group_free(&mine));
    MPI_OK(MPI_Group_free(&other));
    MPI_OK(MPI_Group_free(&wg));
}

static void test_errors(MPI_Comm ic)
{
    int x;
    MPI_Comm nc;
    expect_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &x), MPI_ERR_COMM, "remote_size of world");
    MPI_Group g;
    expect_class(MPI_Comm_remote_group(MPI_COMM_SELF, &g), MPI_ERR_COMM, "remote_group of self");
    expect_class(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &nc), MPI_ERR_COMM, "merge of world");
    expect_class(MPI_Intercomm_create(MPI_COMM_WORLD, wsize, MPI_COMM_WORLD, 0, 0, &nc), MPI_ERR_RANK,
                 "local_leader out of range");
    expect_class(MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 0, -1, &nc), MPI_ERR_TAG, "negative tag");
    if (ic == MPI_COMM_NULL)
        return;
    int dims[1] = { lsize }, per[1] = { 0 };
    expect_class(MPI_Cart_create(ic, 1, dims, per, 0, &nc), MPI_ERR_COMM, "cart_create on an intercommunicator");
    expect_class(MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 0, &nc), MPI_ERR_COMM, "intercomm as local_comm");
    expect_class(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc), MPI_ERR_COMM,
                 "split_type of an intercommunicator");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &wrank, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (wsize < 2) {
        test_errors(MPI_COMM_NULL);
        MPI_Finalize();
        printf("intercomm: errors on intracommunicators ok\n");
        return 0;
    }
    color = wrank % 2;
    nA = (wsize + 1) / 2;
    nB = wsize / 2;
    lsize = color ? nB : nA;
    rsize = color ? nA : nB;
    lrank = wrank / 2;
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 77, &ic));
    MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    test_queries(ic);
    test_p2p(ic);
    test_rooted(ic);
    test_all(ic);
    test_merge(ic);
    test_derived(ic);
    test_errors(ic);
    test_from_groups();
    MPI_OK(MPI_Comm_free(&ic));
    CHECK(ic == MPI_COMM_NULL, "free left the handle");
    MPI_OK(MPI_Comm_free(&local));
    MPI_Finalize();
    if (wrank == 0)
        printf("intercomm: %d + %d ranks ok\n", nA, nB);
    return 0;
}
