/*
 * Intercommunicator reduce_scatter whose groups describe the vector with
 * different datatypes of one type signature (MPI-4.1 3.3.1, 6.2.2: the
 * signatures must match, not the datatypes), with vectors short enough
 * to go in one piece (no chain, src/mpi/intercoll_big.c).
 *
 * In MPI_Reduce_scatter_block remote rank j gets block j of this group's
 * vector, which need not end on an element of this group's datatype: with
 * 3 + 1 ranks, the single rank of B passing 2 elements of a 3-double type
 * (6 doubles) owes each rank of A 2 doubles. The non-blocking form sent
 * whole elements and refused such a vector with MPI_ERR_COUNT.
 *
 * World ranks are split twice, 2 + 2 (0, 2 | 1, 3) and 3 + 1 (0, 1, 2 |
 * 3); the datatypes are contiguous runs of k doubles or vectors of k
 * doubles at stride 2 (resized to extent 2k: packed and unpacked, not
 * sent in place). Every form runs: blocking, non-blocking and persistent,
 * _block and vector, int and MPI_Count. Each group gets the sum of the other group's vectors
 * (MPI-4.1 6.10.1); every double is checked against val() below.
 */
#include <string.h>
#include "mpi_test.h"

#define MAXD 64   /* doubles in a vector, at most */

struct ty {
    int vec, k;   /* vec: k doubles at stride 2, else k contiguous doubles */
};

static int me, wsize;

static double val(int run, int from, int d)
{
    return (double)(run * 100000 + (from + 1) * 1000 + d);
}

/* Where basic element d of a buffer of elements of y lives, in doubles. */
static int at(struct ty y, int d)
{
    return y.vec ? d / y.k * 2 * y.k + d % y.k * 2 : d;
}

static MPI_Datatype make(struct ty y)
{
    MPI_Datatype t, v;
    if (!y.vec) {
        MPI_OK(MPI_Type_contiguous(y.k, MPI_DOUBLE, &t));
    } else {
        MPI_OK(MPI_Type_vector(y.k, 1, 2, MPI_DOUBLE, &v));
        MPI_OK(MPI_Type_create_resized(v, 0, 2 * y.k * (MPI_Aint)sizeof(double), &t));
        MPI_OK(MPI_Type_free(&v));
    }
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

enum form { F_BLOCK, F_IBLOCK, F_BLOCK_INIT, F_BLOCK_C, F_IBLOCK_C,
            F_VEC, F_IVEC, F_VEC_INIT, F_VEC_C, F_IVEC_C, F_MAX };
static const char *const fname[F_MAX] = {
    "MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block", "MPI_Reduce_scatter_block_init",
    "MPI_Reduce_scatter_block_c", "MPI_Ireduce_scatter_block_c", "MPI_Reduce_scatter", "MPI_Ireduce_scatter",
    "MPI_Reduce_scatter_init", "MPI_Reduce_scatter_c", "MPI_Ireduce_scatter_c" };

/* One call on ic: my group's datatype y, counts (rcounts[lr], or rcount for
 * every rank) in elements of y; others[] the world ranks of the remote
 * group. */
static void one(MPI_Comm ic, enum form f, int run, struct ty y, const int *rcounts, int np, int lr,
                const int *others, int nq)
{
    double sb[2 * MAXD], rb[2 * MAXD];
    MPI_Datatype t = make(y);
    int total = 0, off = 0;
    for (int i = 0; i < np; i++) {
        if (i == lr)
            off = total;
        total += rcounts[i] * y.k;
    }
    CHECK(total <= MAXD, "vector of %d doubles", total);
    for (int i = 0; i < 2 * MAXD; i++)
        sb[i] = -1.0, rb[i] = -2.0;
    for (int d = 0; d < total; d++)
        sb[at(y, d)] = val(run, me, d);
    MPI_Request req;
    MPI_Count wide[3];
    int rc = rcounts[0], err;
    for (int i = 0; i < np; i++)
        wide[i] = rcounts[i];
    switch (f) {
    case F_BLOCK: err = MPI_Reduce_scatter_block(sb, rb, rc, t, MPI_SUM, ic); break;
    case F_VEC: err = MPI_Reduce_scatter(sb, rb, rcounts, t, MPI_SUM, ic); break;
    case F_IBLOCK: err = MPI_Ireduce_scatter_block(sb, rb, rc, t, MPI_SUM, ic, &req); break;
    case F_IVEC: err = MPI_Ireduce_scatter(sb, rb, rcounts, t, MPI_SUM, ic, &req); break;
    case F_BLOCK_C: err = MPI_Reduce_scatter_block_c(sb, rb, rc, t, MPI_SUM, ic); break;
    case F_IBLOCK_C: err = MPI_Ireduce_scatter_block_c(sb, rb, rc, t, MPI_SUM, ic, &req); break;
    case F_VEC_C: err = MPI_Reduce_scatter_c(sb, rb, wide, t, MPI_SUM, ic); break;
    case F_IVEC_C: err = MPI_Ireduce_scatter_c(sb, rb, wide, t, MPI_SUM, ic, &req); break;
    case F_BLOCK_INIT:
        err = MPI_Reduce_scatter_block_init(sb, rb, rc, t, MPI_SUM, ic, MPI_INFO_NULL, &req);
        break;
    default: err = MPI_Reduce_scatter_init(sb, rb, rcounts, t, MPI_SUM, ic, MPI_INFO_NULL, &req); break;
    }
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len;
    if (err)
        MPI_Error_string(err, msg, &len);
    CHECK(err == MPI_SUCCESS, "%s (%s of %d, %d ranks + %d): error %s", fname[f], y.vec ? "vector" : "contig",
          y.k, np, nq, msg);
    if (f == F_BLOCK_INIT || f == F_VEC_INIT)
        MPI_OK(MPI_Start(&req));
    if (f != F_BLOCK && f != F_VEC && f != F_BLOCK_C && f != F_VEC_C)
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (f == F_BLOCK_INIT || f == F_VEC_INIT)
        MPI_OK(MPI_Request_free(&req));
    int mine = rcounts[lr] * y.k;
    for (int d = 0; d < mine; d++) {
        double w = 0;
        for (int r = 0; r < nq; r++)
            w += val(run, others[r], off + d);
        CHECK(rb[at(y, d)] == w, "%s (%s of %d doubles, %d + %d ranks): double %d of my block is %.0f, "
              "expected %.0f", fname[f], y.vec ? "vector" : "contig", y.k, np, nq, d, rb[at(y, d)], w);
    }
    /* the gaps of a vector type stay untouched */
    for (int i = 0; y.vec && i < mine / y.k * 2 * y.k; i += 2)
        CHECK(rb[i + 1] == -2.0, "%s: the gap at double %d was written", fname[f], i + 1);
    MPI_OK(MPI_Type_free(&t));
}

/* A case: each group's datatype and counts (per local rank; the block
 * forms use counts[0] on every rank). */
struct kase {
    struct ty y[2];
    int counts[2][3];
};

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &wsize);
    CHECK(wsize == 4, "4 ranks");
    /* 2 + 2: 12 doubles; 3 + 1: 6 or 18 doubles */
    static const struct kase two[] = {
        { { { 0, 1 }, { 0, 2 } }, { { 6, 6 }, { 3, 3 } } },
        { { { 0, 3 }, { 1, 3 } }, { { 2, 2 }, { 2, 2 } } },
        { { { 1, 2 }, { 0, 3 } }, { { 3, 3 }, { 2, 2 } } },
        { { { 1, 2 }, { 1, 3 } }, { { 3, 3 }, { 2, 2 } } },
    };
    static const struct kase three[] = {
        { { { 0, 1 }, { 0, 3 } }, { { 2, 2, 2 }, { 2 } } },    /* B owes each A rank 2/3 of an element */
        { { { 0, 2 }, { 1, 3 } }, { { 1, 1, 1 }, { 2 } } },
        { { { 1, 3 }, { 0, 2 } }, { { 2, 2, 2 }, { 9 } } },
        { { { 0, 2 }, { 1, 9 } }, { { 3, 3, 3 }, { 2 } } },   /* 6 doubles to each A rank from 2 of 9 */
    };
    int run = 0;
    for (int split = 0; split < 2; split++) {
        int grp = split ? me == 3 : me % 2, np = split ? (grp ? 1 : 3) : 2, nq = wsize - np;
        int others[3], lr, n = 0;
        for (int w = 0; w < wsize; w++)
            if ((split ? w == 3 : w % 2) != grp)
                others[n++] = w;
        MPI_Comm local, ic;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, grp, me, &local));
        MPI_OK(MPI_Comm_rank(local, &lr));
        MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, others[0], 7, &ic));
        const struct kase *ks = split ? three : two;
        int nk = split ? (int)(sizeof(three) / sizeof(*three)) : (int)(sizeof(two) / sizeof(*two));
        for (int i = 0; i < nk; i++)
            for (int f = 0; f < F_MAX; f++) {
                int counts[3];
                for (int r = 0; r < np; r++)   /* the vector forms: unequal blocks of the same vector */
                    counts[r] = f < F_VEC || np == 1 ? ks[i].counts[grp][0]
                                : ks[i].counts[grp][0] + (r == 0 ? -1 : r == 1 ? 1 : 0);
                one(ic, (enum form)f, run++, ks[i].y[grp], counts, np, lr, others, nq);
            }
        MPI_OK(MPI_Comm_free(&ic));
        MPI_OK(MPI_Comm_free(&local));
    }
    if (me == 0)
        printf("inter reduce_scatter with matching signatures, distinct datatypes: %d calls ok\n", run);
    MPI_Finalize();
    return 0;
}
