/*
 * Gets of a vector target datatype from MPI_Win_create memory of a rank of
 * the same node: the target packs the blocks 64 KiB at a time and writes
 * them into the origin's buffer itself (GETW, src/device/rma_getw.c).
 * Every rank r gets from rank (r + 1) % np, whose window holds
 * win[i] = 7 i + 1, by the maps
 *   A  100003 blocks of 1 int, stride 2 (chunks end between blocks)
 *   B  5003 blocks of 13 ints (52 bytes), stride 20 ints: 65536 is no
 *      multiple of 52, so chunks end inside blocks
 *   C  5 blocks of 20000 ints (80000 bytes, longer than a chunk), stride
 *      25000 ints
 *   D  3 elements of a vector of 1001 blocks of 3 ints, stride 5, extent
 *      resized to 5011 ints (count > 1)
 *   E  5000 structs {int at 0; int[2] at 3}, extent 6 ints: blocks that
 *      repeat, which GETW describes as such (flag F_PAT)
 *   F  an indexed map of blocks of 1, 2, 3 ints with gaps of 1, 2 (a period
 *      of 6 blocks) cut short after 30001 ints: the whole periods by
 *      pattern, the blocks after them by segments
 * each at a displacement of 3 ints, in a fence epoch and in a lock_all
 * epoch completed by MPI_Win_flush_local, into a contiguous buffer checked
 * against the values the map selects (MPI-4.1 12.3.2), its last int (one
 * past the data) left alone. Under shared memory with single copy (no
 * RDMACH_RMA_PATH, RDMACH_VNODE_SIZE) the MPI_T counter rma_getw_packets
 * must grow by at least one a get.
 *
 * ARGS refused (RDMACH_SHM_PIPE_FULL=on, two ranks): the channel refuses
 * every put_fill at the call, as when /dev/shm has no room for its pipe
 * buffers, and each target answers by chunks of its own written by single
 * copy instead: the MPI_T counter rma_getw_fill_refused must grow by one
 * for each get this rank served (every get of the other rank), the data
 * checked as above.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"

enum { NMAP = 6, DISP = 3, N_E = 5000, N_F = 30001 };

struct map {
    const char *name;
    int nblk, blen, stride, count, extent;   /* a vector's; extent 0: its own */
};
static const struct map maps[NMAP] = {
    { "A", 100003, 1, 2, 1, 0 },
    { "B", 5003, 13, 20, 1, 0 },
    { "C", 5, 20000, 25000, 1, 0 },
    { "D", 1001, 3, 5, 3, 5011 },
    { "E", 0, 0, 0, N_E, 6 },
    { "F", 0, 0, 0, 1, 0 },
};

/* The window ints (from the displacement) that map k selects, in order,
 * and its type: *n of them. */
static int *positions(int k, MPI_Datatype *t, int *n, int *count)
{
    const struct map *m = &maps[k];
    int *pos, x = 0;
    if (m->name[0] == 'E') {
        int bl[2] = { 1, 2 };
        MPI_Aint dp[2] = { 0, 3 * sizeof(int) };
        MPI_Datatype ty[2] = { MPI_INT, MPI_INT }, raw;
        MPI_OK(MPI_Type_create_struct(2, bl, dp, ty, &raw));
        MPI_OK(MPI_Type_create_resized(raw, 0, 6 * sizeof(int), t));
        MPI_OK(MPI_Type_free(&raw));
        pos = malloc(sizeof(int) * 3 * N_E);
        for (int e = 0; e < N_E; e++) {
            pos[x++] = 6 * e;
            pos[x++] = 6 * e + 3;
            pos[x++] = 6 * e + 4;
        }
        *count = N_E;
    } else if (m->name[0] == 'F') {
        int *len = malloc(sizeof(int) * N_F), *disp = malloc(sizeof(int) * N_F), nb = 0, at = 0;
        pos = malloc(sizeof(int) * N_F);
        for (int total = 0; total < N_F; nb++) {
            len[nb] = nb % 3 + 1 < N_F - total ? nb % 3 + 1 : N_F - total;
            disp[nb] = at;
            for (int i = 0; i < len[nb]; i++)
                pos[x++] = at + i;
            at += len[nb] + nb % 2 + 1;
            total += len[nb];
        }
        MPI_OK(MPI_Type_indexed(nb, len, disp, MPI_INT, t));
        free(len);
        free(disp);
        *count = 1;
    } else {
        MPI_Datatype v;
        MPI_OK(MPI_Type_vector(m->nblk, m->blen, m->stride, MPI_INT, &v));
        if (m->extent) {
            MPI_OK(MPI_Type_create_resized(v, 0, (MPI_Aint)m->extent * (MPI_Aint)sizeof(int), t));
            MPI_OK(MPI_Type_free(&v));
        } else {
            *t = v;
        }
        pos = malloc(sizeof(int) * (size_t)m->nblk * m->blen * m->count);
        for (int e = 0; e < m->count; e++)
            for (int b = 0; b < m->nblk; b++)
                for (int i = 0; i < m->blen; i++)
                    pos[x++] = e * m->extent + b * m->stride + i;
        *count = m->count;
    }
    MPI_OK(MPI_Type_commit(t));
    *n = x;
    return pos;
}

int main(int argc, char **argv)
{
    int me, np;
    mt_init(&argc, &argv, &me, &np);
    struct mt_counter getw, refusals;
    mt_counter_open(&getw, "rma_getw_packets");
    mt_counter_open(&refusals, "rma_getw_fill_refused");
    int refused = argc > 1 && strcmp(argv[1], "refused") == 0;
    CHECK(!refused || np == 2, "ARGS refused: 2 ranks (each serves the other's gets)");
    int to = (me + 1) % np;
    long nwin = DISP + 210000;       /* past the furthest map (A: 200005 ints) */
    int *win = malloc(sizeof(int) * (size_t)nwin);
    CHECK(win != NULL, "no memory");
    for (long i = 0; i < nwin; i++)
        win[i] = (int)(7 * i + 1);
    MPI_Win w;
    MPI_OK(MPI_Win_create(win, (MPI_Aint)sizeof(int) * nwin, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    unsigned long long before = mt_counter_read(&getw), rbefore = mt_counter_read(&refusals);
    int gets = 0;
    for (int k = 0; k < NMAP; k++) {
        const struct map *m = &maps[k];
        MPI_Datatype t;
        int n, count;
        int *pos = positions(k, &t, &n, &count);
        int *got = malloc(sizeof(int) * (size_t)(n + 1));
        CHECK(got && pos && DISP + pos[n - 1] < nwin, "no memory, or a map past the window");
        for (int epoch = 0; epoch < 2; epoch++) {
            for (int i = 0; i <= n; i++)
                got[i] = -5;
            if (epoch == 0) {
                MPI_OK(MPI_Win_fence(0, w));
                MPI_OK(MPI_Get(got, n, MPI_INT, to, DISP, count, t, w));
                MPI_OK(MPI_Win_fence(0, w));
            } else {
                MPI_OK(MPI_Win_lock_all(0, w));
                MPI_OK(MPI_Get(got, n, MPI_INT, to, DISP, count, t, w));
                MPI_OK(MPI_Win_flush_local(to, w));
                MPI_OK(MPI_Win_unlock_all(w));
            }
            gets++;
            for (int x = 0; x < n; x++) {
                long at = DISP + pos[x];
                CHECK(got[x] == (int)(7 * at + 1), "map %s, %s epoch: int %d is %d, want %d (window[%ld])", m->name,
                      epoch ? "lock_all" : "fence", x, got[x], (int)(7 * at + 1), at);
            }
            CHECK(got[n] == -5, "map %s: the int after the data changed to %d", m->name, got[n]);
        }
        free(got);
        free(pos);
        MPI_OK(MPI_Type_free(&t));
    }
    /* the other rank's last get is served by this one before it completes
     * there: after the barrier every refusal for it is counted here */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    unsigned long long sent = mt_counter_read(&getw) - before;
    int plain_shm = getenv("RDMACH_RMA_PATH") == NULL && getenv("RDMACH_VNODE_SIZE") == NULL;
    if (plain_shm && to != me)
        CHECK(sent >= (unsigned long long)gets, "%llu GETW packets for %d gets, want one a get at least", sent, gets);
    unsigned long long nref = mt_counter_read(&refusals) - rbefore;
    if (refused)
        CHECK(nref == (unsigned long long)gets, "%llu put_fill refusals served for the other rank's %d gets",
              nref, gets);
    if (me == 0)
        printf("rma_getw: %d ranks, %d gets of 6 maps checked, %llu GETW packets from rank 0, %llu put_fill "
               "refused\n", np, gets, sent, nref);
    MPI_OK(MPI_Win_free(&w));
    mt_counter_close(&getw);
    mt_counter_close(&refusals);
    free(win);
    MPI_Finalize();
    return 0;
}
