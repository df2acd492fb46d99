/*
 * MPI_Dims_create by the letter of MPI 4.0 8.5.2: the dimensions set by the
 * call are "as close to each other as possible" and in non-increasing order,
 * preset (positive) entries are kept, and nnodes not a multiple of their
 * product is an error. Closeness is checked against an exhaustive search
 * here: every factorization of what is left into the free entries, and the
 * least spread (largest minus smallest) among them; the library's answer
 * must reach it. The standard leaves ties open; rdmach decides them as
 * MPICH 4 does (a drop-in must: programs size their grids by it), the
 * larger smallest dimension first, then the larger second smallest, and so
 * on, and the search checks that too. Sizes 1..NMAX in 1 to 4 dimensions,
 * with 0, 1 or 2 entries preset, and a few large sizes; then MPICH's own
 * decompositions where other rules differ (5-D among them), a prime factor
 * above the square root set apart as MPICH does, and a run of many calls
 * that must stay fast. One rank is enough; more run the same checks.
 */
#include <time.h>
#include "mpi_test.h"

#define NMAX 600

static int best;                   /* least spread found so far */
static int best_dims[8], cur[8];   /* its factors, and the ones being tried */

/* Of two non-increasing factorizations of equal spread, whether a is the
 * one to choose: compared from the smallest up, the larger value. */
static int tie_wins(const int *a, const int *b, int k)
{
    for (int d = k - 1; d >= 0; d--)
        if (a[d] != b[d])
            return a[d] > b[d];
    return 0;
}

/* Factorizations of rest into k more factors each <= cap, non-increasing,
 * after the `depth` in cur. */
static void search(int rest, int k, int cap, int depth)
{
    if (k == 0) {
        int spread = cur[0] - cur[depth - 1];
        if (rest == 1 && (spread < best || (spread == best && tie_wins(cur, best_dims, depth)))) {
            best = spread;
            memcpy(best_dims, cur, sizeof(cur));
        }
        return;
    }
    for (int f = cap < rest ? cap : rest; f >= 1; f--)
        if (rest % f == 0) {
            cur[depth] = f;
            search(rest / f, k - 1, f, depth + 1);
        }
}

static int least_spread(int n, int k)
{
    best = n;
    search(n, k, n, 0);
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
        for (int d = 0, j = 0; d < ndims; d++)
            if (!preset[d]) {
                CHECK(dims[d] == best_dims[j], "Dims_create(%d, %d): free dims[%d] = %d, the tie-break gives %d",
                      nnodes, ndims, d, dims[d], best_dims[j]);
                j++;
            }
    }
}

/* Dims_create(n, k) with no preset must give want[0..k). */
static void expect(int n, int k, const int *want)
{
    int d[8] = { 0 };
    MPI_OK(MPI_Dims_create(n, k, d));
    char got[128] = "", exp[128] = "";
    for (int i = 0; i < k; i++) {
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%d", i ? " x " : "", d[i]);
        snprintf(exp + strlen(exp), sizeof(exp) - strlen(exp), "%s%d", i ? " x " : "", want[i]);
    }
    CHECK(strcmp(got, exp) == 0, "Dims_create(%d, %d): %s, expected %s", n, k, got, exp);
}

/* MPICH 4's answers where a rule other than its own would differ (its test
 * suite's table, topo/baddims.h, has them): equal spreads that a rule
 * looking at the largest dimension first, or at the sum of squares, or at
 * the sum, would decide otherwise, in 3, 4 and 5 dimensions. */
static void mpich_table(void)
{
    static const struct { int n, k, d[5]; } t[] = {
        { 72, 2, { 9, 8 } },
        { 360, 3, { 10, 6, 6 } },
        { 5040, 3, { 21, 16, 15 } },        /* 20 x 18 x 14: the same spread 6, smaller squares */
        { 6240, 3, { 26, 16, 15 } },
        { 10800, 3, { 27, 20, 20 } },
        { 5616, 4, { 13, 9, 8, 6 } },       /* 13 x 12 x 6 x 6: the same spread, larger second */
        { 7344, 4, { 17, 9, 8, 6 } },
        { 8208, 4, { 19, 9, 8, 6 } },
        { 98784, 5, { 14, 14, 9, 8, 7 } },  /* 14 x 12 x 12 x 7 x 7: the same spread 7 */
        { 119952, 5, { 17, 14, 9, 8, 7 } },
        { 134064, 5, { 19, 14, 9, 8, 7 } },
        { 162288, 5, { 23, 14, 9, 8, 7 } },
        { 204624, 5, { 29, 14, 9, 8, 7 } },
        { 218736, 5, { 31, 14, 9, 8, 7 } },
        { 261072, 5, { 37, 14, 9, 8, 7 } },
        { 289296, 5, { 41, 14, 9, 8, 7 } },
        { 303408, 5, { 43, 14, 9, 8, 7 } },
    };
    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        expect(t[i].n, t[i].k, t[i].d);
    /* A prime factor that occurs once and exceeds the square root of the
     * number gets a dimension of its own and the rest is balanced by
     * itself, as MPICH does: 1017072 = 1009 x 1008, 1008 in 3-D is
     * 12 x 12 x 7 (spread 5; 14 x 9 x 8 has spread 6 though its smallest,
     * 8, is larger); 1800 in 4-D is 9 x 8 x 5 x 5 (spread 4, not
     * 10 x 6 x 6 x 5). */
    expect(1017072, 4, (const int[]){ 1009, 12, 12, 7 });
    expect(490685400, 5, (const int[]){ 272603, 9, 8, 5, 5 });
    /* the same with presets: the free entries are decided alone */
    int p[7] = { 0, 3, 0, 0, 0, 0, 2 };
    MPI_OK(MPI_Dims_create(98784 * 6, 7, p));
    CHECK(p[0] == 14 && p[1] == 3 && p[2] == 14 && p[3] == 9 && p[4] == 8 && p[5] == 7 && p[6] == 2,
          "Dims_create(98784 * 6, {0,3,0,0,0,0,2}): %d %d %d %d %d %d %d", p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
}

/* Many calls in 2 to 6 dimensions up to a million: MPICH's test suite
 * makes some 75,000 such calls and a job may time out. Generous bound: a
 * search gone exponential takes minutes. */
static void many_calls(void)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int calls = 0;
    for (int n = 999000; n <= 1000000; n++)
        for (int k = 2; k <= 6; k++) {
            int d[6] = { 0 };
            MPI_OK(MPI_Dims_create(n, k, d));
            long long prod = 1;
            for (int i = 0; i < k; i++)
                prod *= d[i];
            CHECK(prod == n && d[0] >= d[k - 1], "Dims_create(%d, %d): product %lld", n, k, prod);
            calls++;
        }
    for (int n = 1; n <= 20000; n++) {
        int d[5] = { 0 };
        MPI_OK(MPI_Dims_create(n, 5, d));
        calls++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    CHECK(s < 10.0, "%d Dims_create calls took %.2f s", calls, s);
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
    mpich_table();
    many_calls();
    /* the int with the most divisors (1600), in many dimensions */
    int dm[12] = { 0 };
    MPI_OK(MPI_Dims_create(2095133040, 12, dm));
    long long pm = 1;
    for (int i = 0; i < 12; i++)
        pm *= dm[i];
    CHECK(pm == 2095133040 && dm[0] >= dm[11] && dm[11] >= 1, "Dims_create(2095133040, 12): product %lld", pm);

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
