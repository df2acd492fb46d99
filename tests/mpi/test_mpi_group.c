/*
 * Groups and communicators made from groups, on 4+ ranks: Comm_group,
 * Group_size/rank, incl/excl (orders kept), range_incl/excl (strides of both
 * signs), translate_ranks (MPI_PROC_NULL, MPI_UNDEFINED), compare, union /
 * intersection / difference (MPI's orders), MPI_GROUP_EMPTY, argument errors
 * (MPI_ERRORS_RETURN), Comm_create (members only, reversed order) and
 * Comm_create_group (called by the members only; repeated, so context ids
 * are released and reused).
 */
#include "mpi_test.h"

static int size;

static MPI_Group world_group(void)
{
    MPI_Group g;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
    return g;
}

/* The world ranks of g's members, in g's order. */
static void members(MPI_Group g, int *out, int *n)
{
    MPI_Group w = world_group();
    MPI_OK(MPI_Group_size(g, n));
    int *idx = malloc(((size_t)*n + 1) * sizeof(int));
    for (int i = 0; i < *n; i++)
        idx[i] = i;
    MPI_OK(MPI_Group_translate_ranks(g, *n, idx, w, out));
    free(idx);
    MPI_OK(MPI_Group_free(&w));
}

static void expect_members(MPI_Group g, const int *want, int nwant, const char *what)
{
    int got[64], n;
    members(g, got, &n);
    CHECK(n == nwant, "%s: %d members, expected %d", what, n, nwant);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: member %d is world rank %d, expected %d", what, i, got[i], want[i]);
}

static void test_local_ops(void)
{
    MPI_Group w = world_group(), g, h, u;
    int n, r, res;
    MPI_OK(MPI_Group_size(w, &n));
    MPI_OK(MPI_Group_rank(w, &r));
    CHECK(n == size && r == mt_rank, "world group size %d rank %d", n, r);

    /* incl in reverse order: ranks reverse. */
    int rev[64], want[64];
    for (int i = 0; i < size; i++)
        rev[i] = size - 1 - i;
    MPI_OK(MPI_Group_incl(w, size, rev, &g));
    expect_members(g, rev, size, "incl reversed");
    MPI_OK(MPI_Group_rank(g, &r));
    CHECK(r == size - 1 - mt_rank, "rank in reversed group %d", r);
    MPI_OK(MPI_Group_compare(w, g, &res));
    CHECK(res == MPI_SIMILAR, "compare(world, reversed) = %d", res);
    MPI_OK(MPI_Group_compare(w, w, &res));
    CHECK(res == MPI_IDENT, "compare(world, world) = %d", res);

    /* excl of {0, size-1}: the middle, in order; rank 0 is not a member. */
    int ex[2] = { size - 1, 0 };
    MPI_OK(MPI_Group_excl(w, 2, ex, &h));
    for (int i = 1; i < size - 1; i++)
        want[i - 1] = i;
    expect_members(h, want, size - 2, "excl");
    MPI_OK(MPI_Group_rank(h, &r));
    CHECK(r == (mt_rank == 0 || mt_rank == size - 1 ? MPI_UNDEFINED : mt_rank - 1), "rank in excl group %d", r);
    MPI_OK(MPI_Group_compare(w, h, &res));
    CHECK(res == MPI_UNEQUAL, "compare(world, excl) = %d", res);

    /* translate: MPI_PROC_NULL stays, non-members are MPI_UNDEFINED. */
    int in[3] = { 0, MPI_PROC_NULL, size - 1 }, out[3];
    MPI_OK(MPI_Group_translate_ranks(w, 3, in, h, out));
    CHECK(out[0] == MPI_UNDEFINED && out[1] == MPI_PROC_NULL && out[2] == MPI_UNDEFINED,
          "translate gave %d %d %d", out[0], out[1], out[2]);

    /* union(h, reversed) = h's members, then the rest in reversed order. */
    MPI_OK(MPI_Group_union(h, g, &u));
    int k = 0;
    for (int i = 1; i < size - 1; i++)
        want[k++] = i;
    want[k++] = size - 1;
    want[k++] = 0;
    expect_members(u, want, size, "union");
    MPI_OK(MPI_Group_free(&u));
    /* intersection(reversed, h): reversed's order. */
    MPI_OK(MPI_Group_intersection(g, h, &u));
    k = 0;
    for (int i = size - 2; i >= 1; i--)
        want[k++] = i;
    expect_members(u, want, size - 2, "intersection");
    MPI_OK(MPI_Group_free(&u));
    /* difference(world, h) = {0, size-1}. */
    MPI_OK(MPI_Group_difference(w, h, &u));
    want[0] = 0;
    want[1] = size - 1;
    expect_members(u, want, 2, "difference");
    MPI_OK(MPI_Group_free(&u));
    /* difference(h, world) is empty: MPI_GROUP_EMPTY. */
    MPI_OK(MPI_Group_difference(h, w, &u));
    MPI_OK(MPI_Group_size(u, &n));
    CHECK(n == 0, "empty difference has %d members", n);
    MPI_OK(MPI_Group_compare(u, MPI_GROUP_EMPTY, &res));
    CHECK(res == MPI_IDENT, "empty vs MPI_GROUP_EMPTY: %d", res);
    MPI_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &r));
    CHECK(r == MPI_UNDEFINED, "rank in MPI_GROUP_EMPTY %d", r);
    MPI_OK(MPI_Group_free(&u));
    CHECK(u == MPI_GROUP_NULL, "Group_free did not set MPI_GROUP_NULL");

    /* range_incl: (size-1 .. 0 step -2) then nothing from an empty range. */
    int ranges[2][3] = { { size - 1, 0, -2 }, { 1, 0, 1 } };
    MPI_OK(MPI_Group_range_incl(w, 2, ranges, &u));
    k = 0;
    for (int i = size - 1; i >= 0; i -= 2)
        want[k++] = i;
    expect_members(u, want, k, "range_incl");
    MPI_OK(MPI_Group_free(&u));
    /* range_excl of the even ranks: the odd ones. */
    int evens[1][3] = { { 0, size - 1, 2 } };
    MPI_OK(MPI_Group_range_excl(w, 1, evens, &u));
    k = 0;
    for (int i = 1; i < size; i += 2)
        want[k++] = i;
    expect_members(u, want, k, "range_excl");
    MPI_OK(MPI_Group_free(&u));

    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Group_free(&h));
    MPI_OK(MPI_Group_free(&w));
}

static void test_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Group w = world_group(), g = MPI_GROUP_NULL;
    int bad[2] = { 0, size }, dup[2] = { 1, 1 }, n;
    CHECK(mt_class(MPI_Group_incl(w, 2, bad, &g)) == MPI_ERR_RANK, "incl of rank %d", size);
    CHECK(mt_class(MPI_Group_incl(w, 2, dup, &g)) == MPI_ERR_RANK, "incl of a repeated rank");
    CHECK(mt_class(MPI_Group_excl(w, 2, bad, &g)) == MPI_ERR_RANK, "excl of rank %d", size);
    CHECK(mt_class(MPI_Group_incl(w, -1, dup, &g)) == MPI_ERR_ARG, "incl of -1 ranks");
    CHECK(mt_class(MPI_Group_size(MPI_GROUP_NULL, &n)) == MPI_ERR_GROUP, "size of MPI_GROUP_NULL");
    CHECK(mt_class(MPI_Group_size((MPI_Group)0x88001234, &n)) == MPI_ERR_GROUP, "size of a bogus group");
    int zero[1][3] = { { 0, 1, 0 } };
    CHECK(mt_class(MPI_Group_range_incl(w, 1, zero, &g)) == MPI_ERR_ARG, "range with stride 0");
    int out[1][3] = { { 0, size, 1 } };
    CHECK(mt_class(MPI_Group_range_excl(w, 1, out, &g)) == MPI_ERR_RANK, "range past the end");
    int twice[2][3] = { { 0, 1, 1 }, { 1, 1, 1 } };
    CHECK(mt_class(MPI_Group_range_incl(w, 2, twice, &g)) == MPI_ERR_RANK, "ranges naming a rank twice");
    int r1 = size;
    CHECK(mt_class(MPI_Group_translate_ranks(w, 1, &r1, w, &n)) == MPI_ERR_RANK, "translate of rank %d", size);
    CHECK(g == MPI_GROUP_NULL, "a failed call set the output");
    MPI_Comm c;
    CHECK(mt_class(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c)) == MPI_ERR_GROUP, "Comm_create(NULL group)");
    CHECK(mt_class(MPI_Comm_create_group(MPI_COMM_WORLD, w, -5, &c)) == MPI_ERR_TAG, "Comm_create_group tag -5");
    MPI_OK(MPI_Group_free(&w));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Comm_create over world from the odd ranks, in reverse order. */
static void test_comm_create(void)
{
    MPI_Group w = world_group(), odd;
    int list[64], k = 0;
    for (int i = size - 1; i >= 0; i--)
        if (i % 2)
            list[k++] = i;
    MPI_OK(MPI_Group_incl(w, k, list, &odd));
    MPI_Comm c;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, odd, &c));
    if (mt_rank % 2 == 0) {
        CHECK(c == MPI_COMM_NULL, "an even rank got a communicator");
    } else {
        int r, n, sum = 0;
        MPI_OK(MPI_Comm_rank(c, &r));
        MPI_OK(MPI_Comm_size(c, &n));
        CHECK(n == k && list[r] == mt_rank, "rank %d of %d in the odd communicator", r, n);
        MPI_OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, c));
        int want = 0;
        for (int i = 0; i < k; i++)
            want += list[i];
        CHECK(sum == want, "sum over the odd communicator %d, expected %d", sum, want);
        /* Its traffic is its own: rank 0 of c is world rank list[0]. */
        int token = r == 0 ? 4242 : -1;
        MPI_OK(MPI_Bcast(&token, 1, MPI_INT, 0, c));
        CHECK(token == 4242, "bcast in the odd communicator gave %d", token);
        MPI_OK(MPI_Comm_free(&c));
    }
    MPI_OK(MPI_Group_free(&odd));
    MPI_OK(MPI_Group_free(&w));
}

/* Comm_create_group by the even ranks only, many times; the odd ranks
 * meanwhile talk among themselves on world. */
static void test_comm_create_group(void)
{
    MPI_Group w = world_group(), even;
    int evens[1][3] = { { 0, size - 1, 2 } };
    MPI_OK(MPI_Group_range_incl(w, 1, evens, &even));
    int neven = (size + 1) / 2;
    for (int it = 0; it < 50; it++) {
        if (mt_rank % 2 == 0) {
            MPI_Comm c;
            MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, even, 7 + it, &c));
            CHECK(c != MPI_COMM_NULL, "a member got MPI_COMM_NULL");
            int r, n, sum = 0;
            MPI_OK(MPI_Comm_rank(c, &r));
            MPI_OK(MPI_Comm_size(c, &n));
            CHECK(n == neven && r == mt_rank / 2, "rank %d of %d in the even communicator", r, n);
            MPI_OK(MPI_Allreduce(&it, &sum, 1, MPI_INT, MPI_SUM, c));
            CHECK(sum == it * neven, "iteration %d: sum %d", it, sum);
            MPI_OK(MPI_Comm_free(&c));
        } else if (size > 3) {
            int peer = mt_rank == 1 ? 3 : 1, got = -1;
            if (mt_rank <= 3)
                MPI_OK(MPI_Sendrecv(&it, 1, MPI_INT, peer, it, &got, 1, MPI_INT, peer, it, MPI_COMM_WORLD,
                                    MPI_STATUS_IGNORE));
            CHECK(mt_rank > 3 || got == it, "odd-rank exchange got %d", got);
        }
    }
    /* A non-member that calls gets MPI_COMM_NULL at once. */
    if (mt_rank % 2) {
        MPI_Comm c;
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, even, 1, &c));
        CHECK(c == MPI_COMM_NULL, "a non-member got a communicator");
    }
    MPI_OK(MPI_Group_free(&even));
    MPI_OK(MPI_Group_free(&w));
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 4 && size <= 64, "run on 4 to 64 ranks");
    test_local_ops();
    test_errors();
    test_comm_create();
    test_comm_create_group();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("test_mpi_group: OK on %d ranks\n", size);
    MPI_OK(MPI_Finalize());
    return 0;
}
