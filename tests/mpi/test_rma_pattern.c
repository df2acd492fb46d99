/*
 * Puts and accumulates to a derived target datatype whose blocks repeat, in
 * MPI_Win_create memory of another rank: the blocks travel as PUTP/ACCP
 * packets that carry the data in the origin's packed order
 * (src/device/rma_pat.c), many packets each, and a pattern's cut-short end
 * follows as V packets.
 *
 * Target maps (offsets in elements of the window):
 *   S  struct {int at 0; int[2] at 3}, extent 6 ints: N_S of them
 *   P  indexed, blocks of 1, 2, 3 ints with gaps of 1, 2 (a period of 6
 *      blocks, 18 ints), cut short after N_P ints (not whole periods)
 *   D  struct {double at 0; double[2] at 3}, extent 5 doubles: N_D of them
 * Every rank r > 0 is an origin of rank 0 (np >= 2), in lock_all epochs:
 *   1. rank 1 puts S (values 1000 + i), accumulates S with MPI_SUM
 *      (values i % 7), then adds 5 to the first element's 3 ints by two
 *      contiguous MPI_Accumulate calls, which accumulate_ordering (MPI-4.1
 *      12.7.2: same origin, target and locations) orders after the
 *      pattern's, though they may take the single-copy path (rma_ops.c);
 *   2. every origin r accumulates P with MPI_SUM (values r * (i % 11)):
 *      element-wise atomicity (12.7.1) makes the sum of all contributions
 *      whatever the interleaving; then, in a second epoch, with MPI_MAX
 *      (values 3 * i);
 *   3. rank 1 accumulates D with MPI_PROD (values 2.0) and reads it back
 *      with a get.
 * Holes of every map keep their initial value (window[i] = -i - 1). The
 * MPI_T counter rma_pattern_packets must grow at the origin (by more than
 * one: a pattern longer than a packet).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"

enum { N_S = 4099, N_P = 30001, N_D = 2003 };

/* The indexed map P: block lengths and displacements (ints), *nb blocks. */
static void p_map(int *len, int *disp, int *nb, int *span)
{
    int total = 0, pos = 0, b = 0;
    for (; total < N_P; b++) {
        len[b] = b % 3 + 1;
        if (total + len[b] > N_P)
            len[b] = N_P - total;
        disp[b] = pos;
        pos += len[b] + b % 2 + 1;
        total += len[b];
    }
    *nb = b;
    *span = pos;
}

int main(int argc, char **argv)
{
    int me, np;
    mt_init(&argc, &argv, &me, &np);
    CHECK(np >= 2, "needs at least 2 ranks");
    struct mt_counter pat;
    mt_counter_open(&pat, "rma_pattern_packets");

    /* the maps */
    MPI_Datatype s_type, s_raw, p_type, d_type, d_raw;
    int bl[2] = { 1, 2 };
    MPI_Aint dp[2] = { 0, 3 * sizeof(int) };
    MPI_Datatype ti[2] = { MPI_INT, MPI_INT }, td[2] = { MPI_DOUBLE, MPI_DOUBLE };
    MPI_OK(MPI_Type_create_struct(2, bl, dp, ti, &s_raw));
    MPI_OK(MPI_Type_create_resized(s_raw, 0, 6 * sizeof(int), &s_type));
    MPI_Aint dpd[2] = { 0, 3 * sizeof(double) };
    MPI_OK(MPI_Type_create_struct(2, bl, dpd, td, &d_raw));
    MPI_OK(MPI_Type_create_resized(d_raw, 0, 5 * sizeof(double), &d_type));
    int *plen = malloc(sizeof(int) * N_P), *pdisp = malloc(sizeof(int) * N_P), pnb, pspan;
    CHECK(plen && pdisp, "no memory");
    p_map(plen, pdisp, &pnb, &pspan);
    MPI_OK(MPI_Type_indexed(pnb, plen, pdisp, MPI_INT, &p_type));
    MPI_Datatype all[3] = { s_type, p_type, d_type };
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Type_commit(&all[i]));
    s_type = all[0];
    p_type = all[1];
    d_type = all[2];

    /* windows: ints for S and P, doubles for D */
    int ni = 6 * N_S + pspan, nd = 5 * N_D;
    int *wi = malloc(sizeof(int) * (size_t)ni);
    double *wd = malloc(sizeof(double) * (size_t)nd);
    CHECK(wi && wd, "no memory");
    for (int i = 0; i < ni; i++)
        wi[i] = -i - 1;
    for (int i = 0; i < nd; i++)
        wd[i] = -i - 1;
    MPI_Win w_i, w_d;
    MPI_OK(MPI_Win_create(wi, (MPI_Aint)sizeof(int) * ni, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w_i));
    MPI_OK(MPI_Win_create(wd, (MPI_Aint)sizeof(double) * nd, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w_d));

    int *vs = malloc(sizeof(int) * 3 * N_S), *as = malloc(sizeof(int) * 3 * N_S);
    int *vp = malloc(sizeof(int) * N_P), *mp = malloc(sizeof(int) * N_P);
    double *vd = malloc(sizeof(double) * 3 * N_D);
    CHECK(vs && as && vp && mp && vd, "no memory");
    for (int i = 0; i < 3 * N_S; i++) {
        vs[i] = 1000 + i;
        as[i] = i % 7;
    }
    for (int i = 0; i < N_P; i++) {
        vp[i] = me * (i % 11);
        mp[i] = 3 * i;
    }
    for (int i = 0; i < 3 * N_D; i++)
        vd[i] = 2.0;
    unsigned long long before = mt_counter_read(&pat);
    int five[2] = { 5, 5 };

    MPI_OK(MPI_Win_lock_all(0, w_i));
    if (me == 1) {
        MPI_OK(MPI_Put(vs, 3 * N_S, MPI_INT, 0, 0, N_S, s_type, w_i));
        MPI_OK(MPI_Accumulate(as, 3 * N_S, MPI_INT, 0, 0, N_S, s_type, MPI_SUM, w_i));
        /* ordered after the pattern's accumulate (same target, same locations) */
        MPI_OK(MPI_Accumulate(five, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w_i));
        MPI_OK(MPI_Accumulate(five, 2, MPI_INT, 0, 3, 2, MPI_INT, MPI_SUM, w_i));
    }
    if (me > 0) {
        MPI_OK(MPI_Accumulate(vp, N_P, MPI_INT, 0, 6 * N_S, 1, p_type, MPI_SUM, w_i));
        MPI_OK(MPI_Win_flush_local(0, w_i));
    }
    MPI_OK(MPI_Win_unlock_all(w_i));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, w_i));
    if (me > 0)
        MPI_OK(MPI_Accumulate(mp, N_P, MPI_INT, 0, 6 * N_S, 1, p_type, MPI_MAX, w_i));
    MPI_OK(MPI_Win_unlock_all(w_i));
    MPI_OK(MPI_Win_lock_all(0, w_d));
    if (me == 1) {
        MPI_OK(MPI_Accumulate(vd, 3 * N_D, MPI_DOUBLE, 0, 0, N_D, d_type, MPI_PROD, w_d));
        MPI_OK(MPI_Win_flush(0, w_d));
        double *back = malloc(sizeof(double) * 3 * N_D);
        CHECK(back != NULL, "no memory");
        MPI_OK(MPI_Get(back, 3 * N_D, MPI_DOUBLE, 0, 0, N_D, d_type, w_d));
        MPI_OK(MPI_Win_flush(0, w_d));
        for (int e = 0; e < N_D; e++)
            for (int k = 0; k < 3; k++) {
                double want = 2.0 * (-(5.0 * e + (k ? k + 2 : 0)) - 1);
                CHECK(back[3 * e + k] == want, "get after MPI_PROD: element %d part %d is %g, want %g", e, k,
                      back[3 * e + k], want);
            }
        free(back);
    }
    MPI_OK(MPI_Win_unlock_all(w_d));
    unsigned long long sent = mt_counter_read(&pat) - before;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    if (me == 0) {
        /* S: put, + i % 7, and + 5 on the first element */
        for (int e = 0; e < N_S; e++)
            for (int k = 0; k < 6; k++) {
                int i = 6 * e + k, part = k == 0 ? 0 : k - 2, in = k == 0 || k == 3 || k == 4;
                int want = -i - 1;
                if (in) {
                    int x = 3 * e + part;
                    want = 1000 + x + x % 7 + (e == 0 ? 5 : 0);
                }
                CHECK(wi[i] == want, "struct map: window[%d] = %d, want %d", i, wi[i], want);
            }
        /* P: max(initial + sum over origins r of r * (x % 11), 3x); holes untouched */
        int sum_r = 0;
        for (int r = 1; r < np; r++)
            sum_r += r;
        char *hit = calloc((size_t)pspan, 1);
        CHECK(hit != NULL, "no memory");
        for (int b = 0, x = 0; b < pnb; b++)
            for (int k = 0; k < plen[b]; k++, x++) {
                int i = pdisp[b] + k, at = 6 * N_S + i, s = -at - 1 + sum_r * (x % 11);
                int want = s > 3 * x ? s : 3 * x;
                hit[i] = 1;
                CHECK(wi[at] == want, "indexed map: int %d (window[%d]) = %d, want %d", x, at, wi[at], want);
            }
        for (int i = 0; i < pspan; i++)
            CHECK(hit[i] || wi[6 * N_S + i] == -(6 * N_S + i) - 1, "indexed map: hole window[%d] changed to %d",
                  6 * N_S + i, wi[6 * N_S + i]);
        free(hit);
        for (int i = 0; i < nd; i++) {
            int k = i % 5, in = k == 0 || k == 3 || k == 4;
            double want = in ? 2.0 * (-i - 1) : -i - 1;
            CHECK(wd[i] == want, "double struct map: window[%d] = %g, want %g", i, wd[i], want);
        }
    }
    /* MPI_Win_create memory of another rank is never mapped here: packets */
    if (me == 1) {
        CHECK(sent > 4, "the origin sent %llu pattern packets, want several for each of its 4 maps", sent);
        printf("rma_pattern: %d ranks, rank 1 sent %llu pattern packets; struct, indexed (cut short) and double "
               "maps checked at rank 0\n", np, sent);
    }

    MPI_OK(MPI_Win_free(&w_i));
    MPI_OK(MPI_Win_free(&w_d));
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Type_free(&all[i]));
    MPI_OK(MPI_Type_free(&s_raw));
    MPI_OK(MPI_Type_free(&d_raw));
    mt_counter_close(&pat);
    free(wi);
    free(wd);
    free(vs);
    free(as);
    free(vp);
    free(mp);
    free(vd);
    free(plen);
    free(pdisp);
    MPI_Finalize();
    return 0;
}
