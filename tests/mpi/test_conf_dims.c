/*
 * MPI_Dims_create by the letter of MPI 4.0 8.5.2: the dimensions set by the
 * call are "as close to each other as possible" and in non-increasing order,
 * preset (positive) entries are kept, and nnodes not a multiple of their
 * product is an error. Closeness is checked against an exhaustive search
 * here: every factorization of what is left into the free entries, and the
 * least spread (largest minus smallest) among them; the library's answer
 * must reach it. Sizes 1..NMAX in 1 to 4 dimensions, with 0, 1 or 2
 * entries preset, and a few large sizes. One rank is enough; more run the
 * same checks.
 */
#include "mpi_test.h"

#define NMAX 600

static int best;      /* least spread found so far */

/* Factorizations of rest into k factors each <= cap, non-increasing. */
static void search(int rest, int k, int cap, int first, int last)
{
    if (k == 0) {
        if (rest == 1 && first - last < best)
            best = first - last;
        return;
    }
    for (int f = cap < rest ? cap : rest; f >= 1; f--)
        if (rest % f == 0)
            search(rest / f, k - 1, f, first ? first : f, f);
}

static int least_spread(int n, int k)
{
    best = n;
    search(n, k, n, 0, 0);
    return best;
}

/* Calls Dims_create on dims (with the given presets) and checks the result. */
static void check(int nnodes, int ndims, const int *preset)
{
    int dims[8], nfree = 0, fixed = 1;
    for (int d = 0; d < ndims; d++) {
        dims[d] = preset[d];
        if (preset[d])
            fixed *= preset[d];
        else
            nfree++;
    }
    int rc = MPI_Dims_create(nnodes, ndims, dims);
    if (nnodes % fixed != 0) {
        CHECK(mt_class(rc) == MPI_ERR_DIMS, "Dims_create(%d, %d) with presets of product %d: class %d, not "
              "MPI_ERR_DIMS", nnodes, ndims, fixed, mt_class(rc));
        return;
    }
    CHECK(rc == MPI_SUCCESS, "Dims_create(%d, %d) failed: class %d", nnodes, ndims, mt_class(rc));
    long long prod = 1;
    int prev = -1, lo = nnodes, hi = 0;
    for (int d = 0; d < ndims; d++) {
        prod *= dims[d];
        if (preset[d]) {
            CHECK(dims[d] == preset[d], "Dims_create(%d, %d) changed preset dims[%d] %d to %d", nnodes, ndims, d,
                  preset[d], dims[d]);
            continue;
        }
        CHECK(dims[d] >= 1, "Dims_create(%d, %d): dims[%d] = %d", nnodes, ndims, d, dims[d]);
        CHECK(prev < 0 || dims[d] <= prev, "Dims_create(%d, %d): dims[%d] = %d after %d (not non-increasing)",
              nnodes, ndims, d, dims[d], prev);
        prev = dims[d];
        lo = dims[d] < lo ? dims[d] : lo;
        hi = dims[d] > hi ? dims[d] : hi;
    }
    /* all entries fixed: nothing to set, the product may be smaller */
    CHECK(prod == nnodes || nfree == 0, "Dims_create(%d, %d): product %lld", nnodes, ndims, prod);
    if (nfree > 0) {
        int want = least_spread(nnodes / fixed, nfree);
        CHECK(hi - lo == want, "Dims_create(%d, %d): free dims spread %d (%d..%d), the least possible is %d",
              nnodes, ndims, hi - lo, hi, lo, want);
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mt_rank = rank;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* the standard's examples (8.5.2) and the issue's */
    int d2[2] = { 0, 0 };
    MPI_OK(MPI_Dims_create(6, 2, d2));
    CHECK(d2[0] == 3 && d2[1] == 2, "(0,0) for 6: (%d,%d), the standard says (3,2)", d2[0], d2[1]);
    d2[0] = d2[1] = 0;
    MPI_OK(MPI_Dims_create(7, 2, d2));
    CHECK(d2[0] == 7 && d2[1] == 1, "(0,0) for 7: (%d,%d), the standard says (7,1)", d2[0], d2[1]);
    int d3[3] = { 0, 3, 0 };
    MPI_OK(MPI_Dims_create(6, 3, d3));
    CHECK(d3[0] == 2 && d3[1] == 3 && d3[2] == 1, "(0,3,0) for 6: (%d,%d,%d), the standard says (2,3,1)", d3[0],
          d3[1], d3[2]);
    d3[0] = 0, d3[1] = 3, d3[2] = 0;
    CHECK(mt_class(MPI_Dims_create(7, 3, d3)) == MPI_ERR_DIMS, "(0,3,0) for 7 is erroneous");
    d2[0] = d2[1] = 0;
    MPI_OK(MPI_Dims_create(72, 2, d2));
    CHECK(d2[0] == 9 && d2[1] == 8, "(0,0) for 72: (%d,%d), expected (9,8)", d2[0], d2[1]);

    /* equal spreads: the larger dimensions, as MPICH 4 (a drop-in must decide alike) */
    int d3b[3] = { 0, 0, 0 };
    MPI_OK(MPI_Dims_create(360, 3, d3b));
    CHECK(d3b[0] == 10 && d3b[1] == 6 && d3b[2] == 6, "(0,0,0) for 360: (%d,%d,%d), MPICH gives (10,6,6)", d3b[0],
          d3b[1], d3b[2]);
    int presets[][4] = { { 0, 0, 0, 0 }, { 2, 0, 0, 0 }, { 0, 0, 3, 0 }, { 0, 2, 0, 2 }, { 0, 5, 0, 0 } };
    int checks = 0;
    for (int n = 1; n <= NMAX; n++)
        for (int nd = 1; nd <= 4; nd++)
            for (unsigned p = 0; p < sizeof(presets) / sizeof(presets[0]); p++) {
                check(n, nd, presets[p]);
                checks++;
            }
    /* large: a prime, a power of two, a highly composite number */
    int big[] = { 2147483647, 1 << 30, 735134400, 1000000 };
    for (unsigned i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
        int d[3] = { 0, 0, 0 };
        MPI_OK(MPI_Dims_create(big[i], 2, d));
        long long p = (long long)d[0] * d[1];
        CHECK(p == big[i] && d[0] >= d[1], "Dims_create(%d, 2) = (%d, %d)", big[i], d[0], d[1]);
        int dd[3] = { 0, 0, 0 };
        MPI_OK(MPI_Dims_create(big[i], 3, dd));
        p = (long long)dd[0] * dd[1] * dd[2];
        CHECK(p == big[i] && dd[0] >= dd[1] && dd[1] >= dd[2], "Dims_create(%d, 3) = (%d, %d, %d)", big[i], dd[0],
              dd[1], dd[2]);
    }
    int d[2] = { 0, 0 };
    MPI_OK(MPI_Dims_create(1 << 30, 2, d));
    CHECK(d[0] == 32768 && d[1] == 32768, "2^30 in 2-D: (%d, %d)", d[0], d[1]);
    MPI_OK(MPI_Dims_create(1, 0, NULL));              /* ndims 0: nothing to set */

    /* errors */
    int neg[2] = { -1, 0 };
    CHECK(mt_class(MPI_Dims_create(4, 2, neg)) == MPI_ERR_DIMS, "a negative dims entry is erroneous");
    int full[2] = { 2, 2 };
    CHECK(mt_class(MPI_Dims_create(6, 2, full)) == MPI_ERR_DIMS, "presets of product 4 for 6 nodes is erroneous");
    MPI_OK(MPI_Dims_create(4, 2, full));             /* all preset, product right: nothing to do */
    /* all preset, 8 a multiple of their product 4: not an error by the
     * standard's text (a grid over part of the processes), dims unchanged */
    MPI_OK(MPI_Dims_create(8, 2, full));
    CHECK(full[0] == 2 && full[1] == 2, "all-preset dims changed to (%d,%d)", full[0], full[1]);
    int z[2] = { 0, 0 };
    int c = mt_class(MPI_Dims_create(0, 2, z));
    CHECK(c == MPI_ERR_ARG || c == MPI_ERR_DIMS, "nnodes 0: class %d", c);
    c = mt_class(MPI_Dims_create(4, -1, z));
    CHECK(c == MPI_ERR_ARG || c == MPI_ERR_DIMS, "ndims -1: class %d", c);

    MPI_Finalize();
    if (rank == 0)
        printf("test_conf_dims: %d calls checked against the exhaustive search\n", checks);
    return 0;
}
