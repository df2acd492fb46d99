/*
 * Groups and communicators made from groups, by the letter of MPI 4.0
 * chapter 7.3-7.4: the order of the set operations (7.3.2: "all elements of
 * the first group, followed by all elements of the second group not in the
 * first"), Group_incl/excl and their range forms, Group_translate_ranks
 * (MPI_PROC_NULL maps to MPI_PROC_NULL, absent ranks to MPI_UNDEFINED),
 * Group_compare, MPI_GROUP_EMPTY, and Comm_create with one group or with
 * several disjoint groups passed by different processes (MPI-2.2: one
 * communicator per group). Every expected member list is computed here from
 * world ranks, independently of the library. Any number of ranks.
 */
#include "mpi_test.h"

static int size, rank;

/* The world ranks of group g's members, in group order. */
static void members(MPI_Group g, int *n, int *w)
{
    MPI_Group world;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_OK(MPI_Group_size(g, n));
    int *idx = malloc(sizeof(int) * (size_t)(*n + 1));
    for (int i = 0; i < *n; i++)
        idx[i] = i;
    MPI_OK(MPI_Group_translate_ranks(g, *n, idx, world, w));
    free(idx);
    MPI_OK(MPI_Group_free(&world));
}

static void expect_members(MPI_Group g, int n, const int *want, const char *what)
{
    int m, w[64];
    members(g, &m, w);
    CHECK(m == n, "%s: %d members, expected %d", what, m, n);
    for (int i = 0; i < n; i++)
        CHECK(w[i] == want[i], "%s: member %d is world rank %d, expected %d", what, i, w[i], want[i]);
    int r;
    MPI_OK(MPI_Group_rank(g, &r));
    int mine = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (want[i] == rank)
            mine = i;
    CHECK(r == mine, "%s: my group rank %d, expected %d", what, r, mine);
}

static void set_operations(MPI_Group world)
{
    int ne = (size + 1) / 2, no = size / 2, even[32], odd[32], want[64], k;
    for (int i = 0; i < ne; i++)
        even[i] = 2 * i;
    for (int i = 0; i < no; i++)
        odd[i] = 2 * i + 1;
    MPI_Group ge, go, gu, gi, gd, grev;
    MPI_OK(MPI_Group_incl(world, ne, even, &ge));
    MPI_OK(MPI_Group_incl(world, no, odd, &go));
    /* union of the interleaved groups: evens, then odds */
    MPI_OK(MPI_Group_union(ge, go, &gu));
    k = 0;
    for (int i = 0; i < ne; i++)
        want[k++] = even[i];
    for (int i = 0; i < no; i++)
        want[k++] = odd[i];
    expect_members(gu, k, want, "union(even, odd)");
    /* union with an overlapping, reversed group: world's order for the first, then nothing new */
    int rev[64];
    for (int i = 0; i < size; i++)
        rev[i] = size - 1 - i;
    MPI_OK(MPI_Group_incl(world, size, rev, &grev));
    MPI_Group gu2;
    MPI_OK(MPI_Group_union(go, grev, &gu2));
    k = 0;
    for (int i = 0; i < no; i++)
        want[k++] = odd[i];
    for (int i = 0; i < size; i++)
        if (rev[i] % 2 == 0)
            want[k++] = rev[i];
    expect_members(gu2, k, want, "union(odd, reversed world)");
    /* intersection keeps group1's order */
    MPI_OK(MPI_Group_intersection(grev, ge, &gi));
    k = 0;
    for (int i = 0; i < size; i++)
        if (rev[i] % 2 == 0)
            want[k++] = rev[i];
    expect_members(gi, k, want, "intersection(reversed world, even)");
    MPI_OK(MPI_Group_difference(grev, ge, &gd));
    k = 0;
    for (int i = 0; i < size; i++)
        if (rev[i] % 2 == 1)
            want[k++] = rev[i];
    expect_members(gd, k, want, "difference(reversed world, even)");
    /* an empty result is MPI_GROUP_EMPTY */
    MPI_Group ge2;
    MPI_OK(MPI_Group_intersection(ge, go, &ge2));
    CHECK(ge2 == MPI_GROUP_EMPTY, "intersection(even, odd) is 0x%x, not MPI_GROUP_EMPTY", (unsigned)ge2);
    MPI_Group gd2;
    MPI_OK(MPI_Group_difference(ge, world, &gd2));
    CHECK(gd2 == MPI_GROUP_EMPTY, "difference(even, world) is not MPI_GROUP_EMPTY");

    /* Group_compare */
    int res;
    MPI_OK(MPI_Group_compare(gu, world, &res));
    CHECK(res == (size <= 2 ? MPI_IDENT : MPI_SIMILAR), "compare(union, world) = %d", res);
    MPI_OK(MPI_Group_compare(grev, world, &res));
    CHECK(res == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare(reversed, world) = %d", res);
    MPI_OK(MPI_Group_compare(world, world, &res));
    CHECK(res == MPI_IDENT, "compare(world, world) = %d", res);
    if (size > 1) {
        MPI_OK(MPI_Group_compare(ge, world, &res));
        CHECK(res == MPI_UNEQUAL, "compare(even, world) = %d", res);
    }
    MPI_OK(MPI_Group_compare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &res));
    CHECK(res == MPI_IDENT, "compare(empty, empty) = %d", res);

    /* translate: MPI_PROC_NULL stays, a rank not in group2 is MPI_UNDEFINED */
    int in[3] = { 0, MPI_PROC_NULL, size - 1 }, out[3];
    MPI_OK(MPI_Group_translate_ranks(grev, 3, in, ge, out));
    int w0 = size - 1, wl = 0;               /* world ranks of grev's ranks 0 and size-1 */
    CHECK(out[0] == (w0 % 2 == 0 ? w0 / 2 : MPI_UNDEFINED), "translate grev 0 -> even: %d", out[0]);
    CHECK(out[1] == MPI_PROC_NULL, "translate MPI_PROC_NULL gave %d", out[1]);
    CHECK(out[2] == wl / 2, "translate grev %d -> even: %d", size - 1, out[2]);
    MPI_OK(MPI_Group_translate_ranks(MPI_GROUP_EMPTY, 0, NULL, world, NULL));
    int pn = MPI_PROC_NULL;
    MPI_OK(MPI_Group_translate_ranks(world, 1, &pn, MPI_GROUP_EMPTY, out));
    CHECK(out[0] == MPI_PROC_NULL, "translate PROC_NULL to the empty group gave %d", out[0]);
    int r0 = 0;
    MPI_OK(MPI_Group_translate_ranks(world, 1, &r0, MPI_GROUP_EMPTY, out));
    CHECK(out[0] == MPI_UNDEFINED, "translate rank 0 to the empty group gave %d", out[0]);
    /* incl with n = 0 is the empty group */
    MPI_Group g0;
    MPI_OK(MPI_Group_incl(world, 0, NULL, &g0));
    CHECK(g0 == MPI_GROUP_EMPTY, "Group_incl of no ranks is not MPI_GROUP_EMPTY");

    MPI_Group *all[] = { &ge, &go, &gu, &gu2, &gi, &gd, &grev, &ge2, &gd2 };
    for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        MPI_OK(MPI_Group_free(all[i]));
        CHECK(*all[i] == MPI_GROUP_NULL, "Group_free left 0x%x", (unsigned)*all[i]);
    }
}

static void ranges(MPI_Group world)
{
    /* every third rank from the top down, then rank 0..1 ascending if not taken */
    int r[2][3] = { { size - 1, 0, -3 }, { 0, size > 1 ? 1 : 0, 1 } };
    int want[64], k = 0;
    char taken[64] = { 0 };
    for (int x = size - 1; x >= 0; x -= 3) {
        want[k++] = x;
        taken[x] = 1;
    }
    int n = 1;
    int clash = 0;
    for (int x = 0; x <= r[1][1]; x++)
        clash |= taken[x];
    if (!clash) {
        for (int x = 0; x <= r[1][1]; x++)
            want[k++] = x;
        n = 2;
    }
    MPI_Group g, gx;
    MPI_OK(MPI_Group_range_incl(world, n, r, &g));
    expect_members(g, k, want, "range_incl");
    MPI_OK(MPI_Group_range_excl(world, n, r, &gx));
    int kx = 0, wx[64];
    for (int x = 0; x < size; x++) {
        int in = 0;
        for (int i = 0; i < k; i++)
            in |= want[i] == x;
        if (!in)
            wx[kx++] = x;
    }
    if (kx == 0)
        CHECK(gx == MPI_GROUP_EMPTY, "range_excl of everything is not MPI_GROUP_EMPTY");
    else
        expect_members(gx, kx, wx, "range_excl");
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Group_free(&gx));
    /* a range whose stride goes away from last is empty (7.3.2) */
    int e[1][3] = { { 0, size - 1, -1 } };
    MPI_OK(MPI_Group_range_incl(world, 1, e, &g));
    CHECK(size == 1 ? g != MPI_GROUP_EMPTY : g == MPI_GROUP_EMPTY, "range (0, %d, -1) gave a non-empty group",
          size - 1);
    MPI_OK(MPI_Group_free(&g));
    /* excl of nothing is the same group */
    MPI_OK(MPI_Group_excl(world, 0, NULL, &g));
    int res;
    MPI_OK(MPI_Group_compare(g, world, &res));
    CHECK(res == MPI_IDENT, "excl(world, none) compare = %d", res);
    MPI_OK(MPI_Group_free(&g));
}

static void group_errors(MPI_Group world)
{
    MPI_Group g = MPI_GROUP_NULL;
    int n, bad = size;
    CHECK(mt_class(MPI_Group_size(MPI_GROUP_NULL, &n)) == MPI_ERR_GROUP, "Group_size(NULL) class");
    CHECK(mt_class(MPI_Group_incl(world, 1, &bad, &g)) == MPI_ERR_RANK, "Group_incl rank %d class", bad);
    if (size > 1) {
        int twice[2] = { 0, 0 };
        CHECK(mt_class(MPI_Group_incl(world, 2, twice, &g)) == MPI_ERR_RANK, "Group_incl repeated rank class");
        CHECK(mt_class(MPI_Group_excl(world, 2, twice, &g)) == MPI_ERR_RANK, "Group_excl repeated rank class");
    }
    int r[1][3] = { { 0, size, 1 } };
    CHECK(mt_class(MPI_Group_range_incl(world, 1, r, &g)) == MPI_ERR_RANK, "range_incl past the end class");
    int z[1][3] = { { 0, 0, 0 } };
    int c = mt_class(MPI_Group_range_incl(world, 1, z, &g));
    CHECK(c == MPI_ERR_ARG || c == MPI_ERR_RANK, "range_incl stride 0 class %d", c);
    int in = size;
    int out;
    CHECK(mt_class(MPI_Group_translate_ranks(world, 1, &in, world, &out)) == MPI_ERR_RANK, "translate bad rank");
    CHECK(mt_class(MPI_Group_union(world, MPI_GROUP_NULL, &g)) == MPI_ERR_GROUP, "union with NULL class");
    MPI_Group null = MPI_GROUP_NULL;
    CHECK(mt_class(MPI_Group_free(&null)) == MPI_ERR_GROUP, "Group_free(MPI_GROUP_NULL) class");
    CHECK(g == MPI_GROUP_NULL, "a failed call wrote newgroup");
    /* MPI_GROUP_EMPTY is a valid group */
    MPI_OK(MPI_Group_size(MPI_GROUP_EMPTY, &n));
    CHECK(n == 0, "size of MPI_GROUP_EMPTY %d", n);
    MPI_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &n));
    CHECK(n == MPI_UNDEFINED, "rank in MPI_GROUP_EMPTY %d", n);
}

/* Comm_create, one group for all, and disjoint groups per process. */
static void comm_create(MPI_Group world)
{
    int ne = (size + 1) / 2, no = size / 2, even[32], odd[32];
    for (int i = 0; i < ne; i++)
        even[i] = 2 * i;
    for (int i = 0; i < no; i++)
        odd[i] = 2 * i + 1;
    MPI_Group ge, go, gu;
    MPI_OK(MPI_Group_incl(world, ne, even, &ge));
    MPI_OK(MPI_Group_incl(world, no, odd, &go));
    MPI_OK(MPI_Group_union(go, ge, &gu));

    /* the union, given by everyone: world's members in (odds, evens) order */
    MPI_Comm c;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, gu, &c));
    int cs, cr;
    MPI_OK(MPI_Comm_size(c, &cs));
    MPI_OK(MPI_Comm_rank(c, &cr));
    int want = rank % 2 ? rank / 2 : no + rank / 2;
    CHECK(cs == size && cr == want, "Comm_create(union): size %d rank %d, expected %d %d", cs, cr, size, want);
    /* its rank order is the group's: the allgather of world ranks is the union's list */
    int got[64];
    MPI_OK(MPI_Allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, c));
    for (int i = 0; i < cs; i++) {
        int w = i < no ? odd[i] : even[i - no];
        CHECK(got[i] == w, "Comm_create(union): rank %d is world %d, expected %d", i, got[i], w);
    }
    MPI_OK(MPI_Comm_free(&c));

    /* disjoint groups: each process passes the group it belongs to */
    MPI_Group mine = rank % 2 ? go : ge;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, mine, &c));
    CHECK(c != MPI_COMM_NULL, "Comm_create(my parity's group) gave MPI_COMM_NULL");
    MPI_OK(MPI_Comm_size(c, &cs));
    MPI_OK(MPI_Comm_rank(c, &cr));
    CHECK(cs == (rank % 2 ? no : ne) && cr == rank / 2, "Comm_create(parity): size %d rank %d, expected %d %d", cs,
          cr, rank % 2 ? no : ne, rank / 2);
    MPI_OK(MPI_Allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, c));
    for (int i = 0; i < cs; i++)
        CHECK(got[i] == 2 * i + rank % 2, "Comm_create(parity): rank %d is world %d", i, got[i]);
    MPI_OK(MPI_Comm_free(&c));

    /* a group without me: MPI_COMM_NULL; the empty group too */
    MPI_Group other = rank % 2 ? ge : go;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, other, &c));
    CHECK(c == MPI_COMM_NULL, "Comm_create(group without me) gave a communicator");
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    CHECK(c == MPI_COMM_NULL, "Comm_create(MPI_GROUP_EMPTY) gave a communicator");

    /* Comm_create_group: only the members call */
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 7, &c));
    MPI_OK(MPI_Comm_rank(c, &cr));
    CHECK(cr == rank / 2, "Comm_create_group: rank %d, expected %d", cr, rank / 2);
    MPI_Group cg;
    int res;
    MPI_OK(MPI_Comm_group(c, &cg));
    MPI_OK(MPI_Group_compare(cg, mine, &res));
    CHECK(res == MPI_IDENT, "Comm_create_group's group compares %d with the group given", res);
    MPI_OK(MPI_Group_free(&cg));
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Group_free(&ge));
    MPI_OK(MPI_Group_free(&go));
    MPI_OK(MPI_Group_free(&gu));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_rank = rank;
    CHECK(size <= 32, "at most 32 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Group world;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    set_operations(world);
    ranges(world);
    group_errors(world);
    comm_create(world);
    MPI_OK(MPI_Group_free(&world));
    MPI_Finalize();
    if (rank == 0)
        printf("test_conf_group: %d ranks ok\n", size);
    return 0;
}
