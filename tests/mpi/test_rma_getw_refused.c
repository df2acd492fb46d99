/*
 * GETW (src/device/rma_getw.c) when the kernel lets the origin read the
 * target by single copy but refuses the target writing the origin (a ptrace
 * policy naming one direction; forced by RDMACH_CMA_REFUSE_WRITE=on, which
 * fails every process_vm_writev with EPERM): the target's chunks go by the
 * channel's pipeline, MPI_Get still returns MPI_SUCCESS with the right data,
 * and later gets to that target go by GETV packets from the start.
 *
 * Rank 1 gets from rank 0, whose window holds win[i] = 7 i + 1, in two
 * windows, three times each (fence, lock_all + flush_local, fence), at a
 * displacement of 3 ints (one direction only: a refused write turns the
 * channel to its pipeline with that peer both ways, so rank 1 must never
 * write rank 0 for its reads to keep single copy):
 *   window 0: a vector of 65536 blocks of 1 int, stride 2 (segments)
 *   window 1: 20000 structs {int at 0; int[2] at 3}, extent 6 ints (blocks
 *             that repeat, flag F_PAT)
 * into a contiguous buffer checked against the ints the map selects
 * (MPI-4.1 12.3.2), the int after the data left alone. The MPI_T counter
 * rma_getw_packets must grow by exactly one a window: the first get is a
 * GETW, whose answer says the target cannot write here; the others GETV
 * (RDMACH_RMA_GETW_FILL=off: the target packs chunks of its own and writes
 * them by single copy, refused here).
 *
 * ARGS fill (RDMACH_RMA_GETW_FILL=on): the target packs into the channel's
 * pipeline (put_fill), which needs no single copy: every get is a GETW
 * (the counter grows by GETS a window), with the same data.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"

enum { DISP = 3, N_VEC = 65536, N_STRUCT = 20000, GETS = 3 };

/* Map k's type and the window ints it selects (from DISP), *n of them. */
static int *positions(int k, MPI_Datatype *t, int *n)
{
    _Static_assert(N_VEC >= 3 * N_STRUCT, "the vector selects the most ints");
    int x = 0, *pos = malloc(sizeof(int) * N_VEC);
    CHECK(pos != NULL, "no memory");
    if (k == 0) {
        MPI_OK(MPI_Type_vector(N_VEC, 1, 2, MPI_INT, t));
        for (int i = 0; i < N_VEC; i++)
            pos[x++] = 2 * i;
    } else {
        int bl[2] = { 1, 2 };
        MPI_Aint dp[2] = { 0, 3 * sizeof(int) };
        MPI_Datatype ty[2] = { MPI_INT, MPI_INT }, one, raw;
        MPI_OK(MPI_Type_create_struct(2, bl, dp, ty, &raw));
        MPI_OK(MPI_Type_create_resized(raw, 0, 6 * sizeof(int), &one));
        MPI_OK(MPI_Type_contiguous(N_STRUCT, one, t));
        MPI_OK(MPI_Type_free(&raw));
        MPI_OK(MPI_Type_free(&one));
        for (int e = 0; e < N_STRUCT; e++) {
            pos[x++] = 6 * e;
            pos[x++] = 6 * e + 3;
            pos[x++] = 6 * e + 4;
        }
    }
    MPI_OK(MPI_Type_commit(t));
    *n = x;
    return pos;
}

int main(int argc, char **argv)
{
    int me, np;
    mt_init(&argc, &argv, &me, &np);
    int fill = argc > 1 && strcmp(argv[1], "fill") == 0;
    unsigned long long want = fill ? GETS : 1;
    struct mt_counter getw;
    mt_counter_open(&getw, "rma_getw_packets");
    CHECK(np == 2, "run on 2 ranks, not %d", np);
    int to = 0, origin = me == 1;
    long nwin = DISP + 2L * N_VEC;       /* past both maps (6 N_STRUCT ints is less) */
    int *win = malloc(sizeof(int) * (size_t)nwin);
    CHECK(win != NULL, "no memory");
    for (long i = 0; i < nwin; i++)
        win[i] = (int)(7 * i + 1);
    for (int k = 0; k < 2; k++) {
        MPI_Win w;
        MPI_OK(MPI_Win_create(win, (MPI_Aint)sizeof(int) * nwin, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
        MPI_Datatype t;
        int n;
        int *pos = positions(k, &t, &n);
        int *got = malloc(sizeof(int) * (size_t)(n + 1));
        CHECK(got != NULL && DISP + pos[n - 1] < nwin, "no memory, or a map past the window");
        unsigned long long before = mt_counter_read(&getw);
        for (int g = 0; g < GETS; g++) {
            int m = origin ? n : 0;
            for (int i = 0; i <= n; i++)
                got[i] = -5;
            if (g == 1) {
                MPI_OK(MPI_Win_lock_all(0, w));
                MPI_OK(MPI_Get(got, m, MPI_INT, to, DISP, origin, t, w));
                MPI_OK(MPI_Win_flush_local(to, w));
                MPI_OK(MPI_Win_unlock_all(w));
            } else {
                MPI_OK(MPI_Win_fence(0, w));
                MPI_OK(MPI_Get(got, m, MPI_INT, to, DISP, origin, t, w));
                MPI_OK(MPI_Win_fence(0, w));
            }
            for (int x = 0; x < m; x++) {
                long at = DISP + pos[x];
                CHECK(got[x] == (int)(7 * at + 1), "window %d, get %d: int %d is %d, want %d (window[%ld])", k, g,
                      x, got[x], (int)(7 * at + 1), at);
            }
            CHECK(got[m] == -5, "window %d, get %d: the int after the data changed to %d", k, g, got[m]);
        }
        unsigned long long sent = mt_counter_read(&getw) - before;
        if (origin)
            CHECK(sent == want, "window %d: %llu GETW packets for %d gets, want %llu", k, sent, GETS, want);
        if (origin)
            printf("rma_getw_refused: window %d, %d gets of %d ints checked, %llu GETW packet(s)\n", k, GETS, n,
                   sent);
        free(got);
        free(pos);
        MPI_OK(MPI_Type_free(&t));
        MPI_OK(MPI_Win_free(&w));
    }
    mt_counter_close(&getw);
    free(win);
    MPI_Finalize();
    return 0;
}
