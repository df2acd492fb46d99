/*
 * Dynamic windows by the letter of MPI-4.0 §12.2.4: memory a target has
 * attached with MPI_Win_attach is accessible at the address MPI_Get_address
 * gives for it, "without any further synchronization" than the epoch's, in
 * whatever order regions were attached, detached and attached again, and
 * whether the attach happened before or inside the epoch (the origin learns
 * the address by a message, which the standard's example does too).
 *
 * Each rank attaches NREG regions of different sizes in an order that
 * depends on its rank (ascending, descending, interleaved with detaches),
 * then every rank puts a pattern into the middle and the last bytes of
 * every region of every target, flushes, gets it back and compares; after a
 * barrier every target checks its own memory byte by byte. Round 2 detaches
 * every other region, attaches new ones, and runs the same checks inside one
 * lock_all epoch that stays open across the attach (MPI allows attach at any
 * time); some of the new regions reuse the freed memory of the old ones
 * (same address, new contents). MPI_Win_flush between the put and the get
 * is the case issue 20 reports as refused "outside its window".
 */
#include "mpi_test.h"

/* regions per rank: more than the node table holds (64) when run with an argument */
static int NREG = 6;

static size_t reg_len(int target, int i)
{
    /* small regions (several share a page) and large ones */
    return i % 2 ? 160 + (size_t)i * 8 + (size_t)target * 8 : (size_t)(i + 1) * 4096 + (size_t)target * 8 + 24;
}

static unsigned char pat(int origin, int target, int i, size_t k)
{
    return (unsigned char)(origin * 37 + target * 11 + i * 5 + k * 3 + 1);
}

/* Put into two places of region i of target (address a, length n), flush,
 * get back, compare. The places depend on the origin so origins do not
 * overlap: origin o writes 8 bytes at n/2 + 8 o and the last 8 if o == 0. */
static void access_region(MPI_Win win, int me, int target, int i, MPI_Aint a, size_t n, int np)
{
    unsigned char out[8], in[8];
    for (int k = 0; k < 8; k++)
        out[k] = pat(me, target, i, (size_t)k);
    MPI_Aint at = a + (MPI_Aint)(n / 2 + 8 * (size_t)me);
    CHECK(n / 2 + 8 * (size_t)np <= n - 8, "region too small for %d origins", np);
    MPI_OK(MPI_Put(out, 8, MPI_BYTE, target, at, 8, MPI_BYTE, win));
    MPI_OK(MPI_Win_flush(target, win));
    memset(in, 0, sizeof(in));
    MPI_OK(MPI_Get(in, 8, MPI_BYTE, target, at, 8, MPI_BYTE, win));
    MPI_OK(MPI_Win_flush(target, win));
    CHECK(memcmp(in, out, 8) == 0, "target %d region %d: got back %02x.. expected %02x..", target, i, in[0],
          out[0]);
    /* the region's first 8 bytes count the origins: accumulate, then an atomic read */
    long one = 1, seen = -1;
    MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG, target, a, 1, MPI_LONG, MPI_SUM, win));
    MPI_OK(MPI_Win_flush(target, win));
    MPI_OK(MPI_Fetch_and_op(NULL, &seen, MPI_LONG, target, a, MPI_NO_OP, win));
    MPI_OK(MPI_Win_flush(target, win));
    CHECK(seen >= 1 && seen <= np, "target %d region %d: counter %ld after my increment", target, i, seen);
    if (me == 0) {
        MPI_Aint last = a + (MPI_Aint)n - 8;
        MPI_OK(MPI_Put(out, 8, MPI_BYTE, target, last, 8, MPI_BYTE, win));
        MPI_OK(MPI_Win_flush_local(target, win));
        MPI_OK(MPI_Win_flush(target, win));
        MPI_OK(MPI_Get(in, 8, MPI_BYTE, target, last, 8, MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(target, win));
        CHECK(memcmp(in, out, 8) == 0, "target %d region %d: last 8 bytes wrong", target, i);
    }
}

static void check_own(int me, int np, int i, const unsigned char *p, size_t n)
{
    long cnt;
    memcpy(&cnt, p, sizeof(cnt));
    CHECK(cnt == np, "my region %d: counter %ld, expected %d", i, cnt, np);
    for (int o = 0; o < np; o++)
        for (int k = 0; k < 8; k++)
            CHECK(p[n / 2 + 8 * (size_t)o + (size_t)k] == pat(o, me, i, (size_t)k),
                  "my region %d: byte %d of origin %d is %02x", i, k, o, p[n / 2 + 8 * (size_t)o + (size_t)k]);
    for (int k = 0; k < 8; k++)
        CHECK(p[n - 8 + (size_t)k] == pat(0, me, i, (size_t)k), "my region %d: last bytes wrong", i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = me;
    if (argc > 1)
        NREG = atoi(argv[1]);
    MPI_Win win;
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    unsigned char **reg = malloc(sizeof(*reg) * (size_t)NREG), **old = malloc(sizeof(*old) * (size_t)NREG);
    MPI_Aint *addr = malloc(sizeof(MPI_Aint) * NREG * (size_t)np);
    for (int i = 0; i < NREG; i++) {
        reg[i] = calloc(1, reg_len(me, i));
        CHECK(reg[i], "no memory");
    }
    /* attach orders: ascending, descending, odd then even; a detach and re-attach in between */
    for (int j = 0; j < NREG; j++) {
        int i = me % 3 == 0 ? j : me % 3 == 1 ? NREG - 1 - j : (j < NREG / 2 ? 2 * j + 1 : 2 * (j - NREG / 2));
        MPI_OK(MPI_Win_attach(win, reg[i], (MPI_Aint)reg_len(me, i)));
        if (j == 2) {
            MPI_OK(MPI_Win_detach(win, reg[i]));
            MPI_OK(MPI_Win_attach(win, reg[i], (MPI_Aint)reg_len(me, i)));
        }
    }
    MPI_Aint *mine = malloc(sizeof(MPI_Aint) * (size_t)NREG);
    for (int i = 0; i < NREG; i++)
        MPI_Get_address(reg[i], &mine[i]);
    MPI_OK(MPI_Allgather(mine, NREG, MPI_AINT, addr, NREG, MPI_AINT, MPI_COMM_WORLD));

    /* round 1: a lock per target */
    for (int d = 0; d < np; d++) {
        int t = (me + d) % np;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        for (int i = 0; i < NREG; i++)
            access_region(win, me, t, i, addr[t * NREG + i], reg_len(t, i), np);
        MPI_OK(MPI_Win_unlock(t, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < NREG; i++)
        check_own(me, np, i, reg[i], reg_len(me, i));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* round 2: inside one lock_all epoch, every other region is replaced */
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < NREG; i++) {
        old[i] = NULL;
        if (i % 2 == 0)
            continue;
        MPI_OK(MPI_Win_detach(win, reg[i]));
        old[i] = reg[i];
        if (i % 4 == 3) {        /* freed first: the new region likely gets the same address */
            free(old[i]);
            old[i] = NULL;
        }
        reg[i] = calloc(1, reg_len(me, i));
        CHECK(reg[i], "no memory");
        MPI_OK(MPI_Win_attach(win, reg[i], (MPI_Aint)reg_len(me, i)));
        MPI_Get_address(reg[i], &mine[i]);
    }
    for (int i = 0; i < NREG; i++)
        if (i % 2 == 0)
            memset(reg[i], 0, reg_len(me, i));
    MPI_OK(MPI_Allgather(mine, NREG, MPI_AINT, addr, NREG, MPI_AINT, MPI_COMM_WORLD));
    for (int d = 0; d < np; d++) {
        int t = (me + np - d) % np;
        for (int i = NREG - 1; i >= 0; i--)
            access_region(win, me, t, i, addr[t * NREG + i], reg_len(t, i), np);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < NREG; i++)
        check_own(me, np, i, reg[i], reg_len(me, i));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* An address just past a region is outside the window: MPI_ERR_RMA_RANGE
     * (at the origin or reported by the flush, the standard leaves it open). */
    if (np > 1) {
        int t = (me + 1) % np;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        unsigned char b[8] = { 0 };
        int rc = MPI_Put(b, 8, MPI_BYTE, t, addr[t * NREG] + (MPI_Aint)reg_len(t, 0) - 4, 8, MPI_BYTE, win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_flush(t, win);
        CHECK(mt_class(rc) == MPI_ERR_RMA_RANGE, "put across the end of a region: class %d", mt_class(rc));
        MPI_Win_unlock(t, win);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < NREG; i++) {
        MPI_OK(MPI_Win_detach(win, reg[i]));
        free(reg[i]);
        free(old[i]);
    }
    MPI_OK(MPI_Win_free(&win));
    free(addr);
    free(mine);
    free(reg);
    free(old);
    if (me == 0)
        printf("conf_rma_dynamic: %d ranks, %d regions each, 2 rounds: ok\n", np, NREG);
    MPI_Finalize();
    return 0;
}
