/*
 * Puts of derived target datatypes to MPI_Win_create memory of a rank of
 * this node, which the target reads through the shared-memory pipeline and
 * scatters into its window itself (PUTW, src/device/rma_putw.c), from
 * RDMACH_RMA_PUTW_FROM bytes (64 KiB): every rank puts to (r + 1) % np at
 * once, so each is origin and target together.
 *
 * Target types (MPI-4.1 12.3.2: the target buffer is the type's map at the
 * displacement), offsets computed here from their definition:
 *   vector     blocks of 1 int, stride 2
 *   vector64   blocks of 64 ints, stride 128
 *   indexed    blocks of 1, 2, 3 ints with gaps of 1, 2 ints (periodic: the
 *              device's repeating blocks)
 *   aperiodic  blocks of 16..127 ints, gaps 1..5, from a generator (segments,
 *              handed to the device 1024 at a time: each batch well above
 *              the threshold)
 *   struct     {int at 0; int[2] at 12}, extent 24, count n / 3
 *   vector/o   the vector from a non-contiguous origin (every third int)
 * each of SMALL ints (3.8 KB: below the threshold, V/P packets) and LARGE ints
 * (1.2 MB: PUTW), in fence, PSCW and lock_all epochs. In lock_all the origin
 * buffer is overwritten right after MPI_Win_flush_local (MPI-4.1 12.5.4: it
 * is the origin's again), so a PUTW whose local completion came before the
 * target had read the data shows as wrong ints. Every int of the window is
 * checked (the ints of the map and the ones around them, untouched).
 *
 * On plain shared memory (no RDMACH_RMA_PATH, RDMACH_VNODE_SIZE or
 * RDMACH_RMA_PUTW_FROM in the environment) the MPI_T counter
 * rma_putw_packets must grow by at least one for every LARGE put and not at
 * all for the SMALL ones: the test fails if PUTW is not taken where it
 * should be (or taken below its threshold). With no room in /dev/shm for
 * the pipeline's buffers and single copy not permitted
 * (RDMACH_SHM_PIPE_FULL=on, RDMACH_CMA=off) the target could not read a
 * PUTW's data: no PUTW may be sent, every put goes as packets and arrives,
 * and rma_putw_unready counts the target once per window.
 *
 * Last, a put of the LARGE vector that would cross the end of the target's
 * window fails with MPI_ERR_RMA_RANGE, sends no PUTW and changes nothing.
 */
#include <string.h>
#include "mpi_test.h"

enum { T_VEC, T_VEC64, T_INDEXED, T_APERIODIC, T_STRUCT, T_VEC_ORIGIN, NTYPE };
enum { E_FENCE, E_PSCW, E_LOCKALL, NEPOCH };
enum { SMALL = 960, LARGE = 300096 };       /* multiples of 192: whole vector64 blocks and structs */
static const char *tname[NTYPE] = { "vector", "vector64", "indexed", "aperiodic", "struct", "vector/o" };
static const char *ename[NEPOCH] = { "fence", "pscw", "lock_all" };

static int me, np, to, from;
static MPI_Group gto, gfrom;

/* The indexed maps' blocks: 1, 2, 3 ints with gaps of 1, 2 (a period of
 * 6 blocks), or 16-127 ints with gaps of 1-5 drawn from the seed. */
static int periodic_block(int nb, uint64_t *seed, int *gap)
{
    (void)seed;
    *gap = nb % 2 + 1;
    return nb % 3 + 1;
}

static int aperiodic_block(int nb, uint64_t *seed, int *gap)
{
    (void)nb;
    int len = (int)(mt_next(seed) % 112) + 16;
    *gap = (int)(mt_next(seed) % 5) + 1;
    return len;
}

/* Type t for n ints (n a multiple of 192): the MPI type, *count of it, and
 * off[i], the window int that origin int i lands on; returns the window's
 * ints the map reaches in *span. */
static MPI_Datatype make(int t, long n, int *count, long *off, long *span)
{
    MPI_Datatype d;
    *count = 1;
    if (t == T_VEC || t == T_VEC_ORIGIN || t == T_VEC64) {
        int bl = t == T_VEC64 ? 64 : 1;
        for (long i = 0; i < n; i++)
            off[i] = i / bl * 2 * bl + i % bl;
        MPI_OK(MPI_Type_vector((int)(n / bl), bl, 2 * bl, MPI_INT, &d));
        *span = 2 * n;
    } else if (t == T_STRUCT) {
        int bl[2] = { 1, 2 };
        MPI_Aint dp[2] = { 0, 12 };
        MPI_Datatype ty[2] = { MPI_INT, MPI_INT }, s;
        MPI_OK(MPI_Type_create_struct(2, bl, dp, ty, &s));
        MPI_OK(MPI_Type_create_resized(s, 0, 24, &d));
        MPI_OK(MPI_Type_free(&s));
        *count = (int)(n / 3);
        for (long i = 0; i < n; i++)
            off[i] = i / 3 * 6 + (i % 3 == 0 ? 0 : 2 + i % 3);
        *span = 2 * n;
    } else {
        d = mt_indexed_map(n, t == T_INDEXED ? periodic_block : aperiodic_block, 777, off, span);
    }
    MPI_OK(MPI_Type_commit(&d));
    return d;
}

static int val(int rank, long i, int round)
{
    return (int)(11 * i + 100000 * rank + 7 * round + 3);
}

static int plain_shm(void)
{
    return getenv("RDMACH_RMA_PATH") == NULL && getenv("RDMACH_VNODE_SIZE") == NULL &&
           getenv("RDMACH_RMA_PUTW_FROM") == NULL;
}

/* The target could not read a PUTW's data (rma_putw.c putw_ready). */
static int unreadable(void)
{
    const char *full = getenv("RDMACH_SHM_PIPE_FULL"), *cma = getenv("RDMACH_CMA");
    return full && !strcmp(full, "on") && cma && !strcmp(cma, "off");
}

static void one(int t, int e, long n, struct mt_counter *putw)
{
    long *off = malloc(sizeof(long) * (size_t)n), span;
    CHECK(off, "no memory");
    int tcount;
    MPI_Datatype tt = make(t, n, &tcount, off, &span);
    span += 17;                                   /* ints past the map: must stay */
    int *mem = malloc(sizeof(int) * (size_t)span), *expect = malloc(sizeof(int) * (size_t)span);
    int ostride = t == T_VEC_ORIGIN ? 3 : 1;      /* origin ints: every ostride-th */
    int *src = malloc(sizeof(int) * (size_t)n * (size_t)ostride);
    CHECK(mem && expect && src, "no memory");
    for (long i = 0; i < span; i++)
        mem[i] = expect[i] = -(int)(i + 1);
    for (long i = 0; i < n * ostride; i++)
        src[i] = i % ostride == 0 ? val(me, i / ostride, 0) : -77;
    for (long i = 0; i < n; i++)
        expect[off[i]] = val(from, i, 0);
    MPI_Datatype ot = MPI_INT;
    int ocount = (int)n;
    if (ostride > 1) {
        MPI_OK(MPI_Type_vector((int)n, 1, ostride, MPI_INT, &ot));
        MPI_OK(MPI_Type_commit(&ot));
        ocount = 1;
    }
    MPI_Win w;
    MPI_OK(MPI_Win_create(mem, (MPI_Aint)(sizeof(int) * (size_t)span), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &w));
    unsigned long long before = mt_counter_read(putw);
    if (e == E_FENCE) {
        MPI_OK(MPI_Win_fence(0, w));
        MPI_OK(MPI_Put(src, ocount, ot, to, 0, tcount, tt, w));
        MPI_OK(MPI_Win_fence(0, w));
    } else if (e == E_PSCW) {
        MPI_OK(MPI_Win_post(gfrom, 0, w));
        MPI_OK(MPI_Win_start(gto, 0, w));
        MPI_OK(MPI_Put(src, ocount, ot, to, 0, tcount, tt, w));
        MPI_OK(MPI_Win_complete(w));
        MPI_OK(MPI_Win_wait(w));
    } else {
        MPI_OK(MPI_Win_lock_all(0, w));
        MPI_OK(MPI_Put(src, ocount, ot, to, 0, tcount, tt, w));
        MPI_OK(MPI_Win_flush_local(to, w));
        for (long i = 0; i < n * ostride; i++)
            src[i] = -99;                         /* the buffer is mine again: must not reach the target */
        MPI_OK(MPI_Win_unlock_all(w));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    unsigned long long sent = mt_counter_read(putw) - before;
    for (long i = 0; i < span; i++)
        CHECK(mem[i] == expect[i], "put to %s, %s, %ld ints: window int %ld is %d, expected %d", tname[t], ename[e],
              n, i, mem[i], expect[i]);
    if (unreadable())
        CHECK(sent == 0, "put to %s, %s, %ld ints: %llu PUTW that the target could not read", tname[t], ename[e],
              n, sent);
    else if (plain_shm() && to != me) {
        if (n == LARGE)
            CHECK(sent >= 1, "put to %s, %s, %ld ints (%ld bytes): no PUTW sent", tname[t], ename[e], n, 4 * n);
        else
            CHECK(sent == 0, "put to %s, %s, %ld ints: %llu PUTW below the threshold", tname[t], ename[e], n, sent);
    }
    MPI_OK(MPI_Win_free(&w));
    MPI_OK(MPI_Type_free(&tt));
    if (ostride > 1)
        MPI_OK(MPI_Type_free(&ot));
    free(off);
    free(mem);
    free(expect);
    free(src);
}

/* A LARGE vector put at a displacement that crosses the window's end. */
static void out_of_range(struct mt_counter *putw)
{
    long n = LARGE, span = 2 * n;
    int *mem = malloc(sizeof(int) * (size_t)span), *src = malloc(sizeof(int) * (size_t)n);
    CHECK(mem && src, "no memory");
    for (long i = 0; i < span; i++)
        mem[i] = -(int)(i + 1);
    for (long i = 0; i < n; i++)
        src[i] = val(me, i, 1);
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector((int)n, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_Win w;
    MPI_OK(MPI_Win_create(mem, (MPI_Aint)(sizeof(int) * (size_t)span), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &w));
    MPI_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    unsigned long long before = mt_counter_read(putw);
    MPI_OK(MPI_Win_fence(0, w));
    int rc = MPI_Put(src, (int)n, MPI_INT, to, 2, 1, vec, w);
    CHECK(mt_class(rc) == MPI_ERR_RMA_RANGE, "a put crossing the window's end returned class %d", mt_class(rc));
    MPI_OK(MPI_Win_fence(0, w));
    CHECK(mt_counter_read(putw) == before, "the refused put sent a PUTW");
    for (long i = 0; i < span; i++)
        CHECK(mem[i] == -(int)(i + 1), "the refused put changed window int %ld to %d", i, mem[i]);
    MPI_OK(MPI_Win_free(&w));
    MPI_OK(MPI_Type_free(&vec));
    free(mem);
    free(src);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &np);
    to = (me + 1) % np;
    from = (me + np - 1) % np;
    MPI_Group wg;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_incl(wg, 1, &to, &gto));
    MPI_OK(MPI_Group_incl(wg, 1, &from, &gfrom));
    struct mt_counter putw, unready;
    mt_counter_open(&putw, "rma_putw_packets");
    mt_counter_open(&unready, "rma_putw_unready");
    unsigned long long first = mt_counter_read(&putw), unready0 = mt_counter_read(&unready);
    int cases = 0;
    for (int t = 0; t < NTYPE; t++)
        for (int e = 0; e < NEPOCH; e++)
            for (int s = 0; s < 2; s++, cases++)
                one(t, e, s ? LARGE : SMALL, &putw);
    out_of_range(&putw);
    unsigned long long total = mt_counter_read(&putw) - first, nunready = mt_counter_read(&unready) - unready0;
    if (unreadable())   /* one per window of a LARGE put (NTYPE x NEPOCH) */
        CHECK(nunready == NTYPE * NEPOCH, "%llu targets found unready, expected %d", nunready, NTYPE * NEPOCH);
    else
        CHECK(nunready == 0, "%llu targets found unready with room for the pipe or single copy", nunready);
    mt_counter_close(&putw);
    mt_counter_close(&unready);
    MPI_OK(MPI_Group_free(&gto));
    MPI_OK(MPI_Group_free(&gfrom));
    MPI_OK(MPI_Group_free(&wg));
    if (me == 0)
        printf("rma_putw: %d ranks, %d puts of 6 target types checked, %llu PUTW packets from rank 0; the put "
               "crossing the window's end refused\n", np, cases, total);
    MPI_Finalize();
    return 0;
}
