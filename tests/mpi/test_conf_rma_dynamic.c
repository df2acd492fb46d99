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
 *
 * Round 3: one buffer attached as NPART regions back to back (MPICH's test
 * suite does this). The standard asks only that every byte accessed be in
 * an attached region, so an access that spans the boundaries is valid:
 * put, get, accumulate and get_accumulate, contiguous and strided, small and
 * larger than one packet, each checked at the target.
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

enum { NPART = 3, SPAN_INTS = 3 * 9216 };

/* Round 3 (see the top): every origin writes its own stripe of each
 * target's buffer (ints i with i % np == me), so origins do not overlap. */
static void spanning(MPI_Win win, int me, int np)
{
    int *buf = calloc(SPAN_INTS, sizeof(int));
    CHECK(buf, "no memory");
    size_t part = SPAN_INTS * sizeof(int) / NPART;
    for (int k = 0; k < NPART; k++)      /* attached last part first: the table's order is not the memory's */
        MPI_OK(MPI_Win_attach(win, (char *)buf + (NPART - 1 - k) * part, (MPI_Aint)part));
    MPI_Aint mine, *base = malloc(sizeof(MPI_Aint) * (size_t)np);
    MPI_Get_address(buf, &mine);
    MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, base, 1, MPI_AINT, MPI_COMM_WORLD));
    int n = SPAN_INTS / np, *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    CHECK(out && in, "no memory");
    MPI_Datatype stripe;
    MPI_OK(MPI_Type_vector(n, 1, np, MPI_INT, &stripe));
    MPI_OK(MPI_Type_commit(&stripe));
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int d = 0; d < np; d++) {
        int t = (me + d) % np;
        for (int i = 0; i < n; i++)
            out[i] = me * 1000003 + t * 7 + i;
        MPI_Aint at = base[t] + (MPI_Aint)(sizeof(int) * (size_t)me);
        /* strided put across every boundary, then a strided get back */
        MPI_OK(MPI_Put(out, n, MPI_INT, t, at, 1, stripe, win));
        MPI_OK(MPI_Win_flush(t, win));
        memset(in, 0, sizeof(int) * (size_t)n);
        MPI_OK(MPI_Get(in, n, MPI_INT, t, at, 1, stripe, win));
        MPI_OK(MPI_Win_flush(t, win));
        CHECK(memcmp(in, out, sizeof(int) * (size_t)n) == 0, "target %d: strided get across regions differs", t);
        /* accumulate and get_accumulate of the same stripe: +1 each */
        for (int i = 0; i < n; i++)
            in[i] = 1;
        MPI_OK(MPI_Accumulate(in, n, MPI_INT, t, at, 1, stripe, MPI_SUM, win));
        MPI_OK(MPI_Win_flush(t, win));
        int *old = malloc(sizeof(int) * (size_t)n);
        CHECK(old, "no memory");
        MPI_OK(MPI_Get_accumulate(in, n, MPI_INT, old, n, MPI_INT, t, at, 1, stripe, MPI_SUM, win));
        MPI_OK(MPI_Win_flush(t, win));
        for (int i = 0; i < n; i++)
            CHECK(old[i] == out[i] + 1, "target %d: get_accumulate element %d saw %d, expected %d", t, i, old[i],
                  out[i] + 1);
        free(old);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < n * np; i++) {
        int o = i % np, k = i / np;
        CHECK(buf[i] == o * 1000003 + me * 7 + k + 2, "my spanning buffer: int %d is %d, expected %d", i, buf[i],
              o * 1000003 + me * 7 + k + 2);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* contiguous: rank 0 of each pair puts a whole buffer, byte for byte, into its right neighbour */
    int t = (me + 1) % np;
    for (int i = 0; i < SPAN_INTS; i++)
        buf[i] = -1;
    int *whole = malloc(sizeof(int) * SPAN_INTS);
    CHECK(whole, "no memory");
    for (int i = 0; i < SPAN_INTS; i++)
        whole[i] = me * 31 + i;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    MPI_OK(MPI_Put(whole, SPAN_INTS, MPI_INT, t, base[t], SPAN_INTS, MPI_INT, win));
    MPI_OK(MPI_Win_flush(t, win));
    MPI_OK(MPI_Accumulate(whole, SPAN_INTS, MPI_INT, t, base[t], SPAN_INTS, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_flush(t, win));
    memset(whole, 0, sizeof(int) * SPAN_INTS);
    MPI_OK(MPI_Get(whole, SPAN_INTS, MPI_INT, t, base[t], SPAN_INTS, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(t, win));
    for (int i = 0; i < SPAN_INTS; i++)
        CHECK(whole[i] == 2 * (me * 31 + i), "target %d: int %d of a whole-buffer get is %d", t, i, whole[i]);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < NPART; k++)
        MPI_OK(MPI_Win_detach(win, (char *)buf + k * part));
    MPI_Type_free(&stripe);
    free(whole);
    free(out);
    free(in);
    free(base);
    free(buf);
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

    spanning(win, me, np);

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
