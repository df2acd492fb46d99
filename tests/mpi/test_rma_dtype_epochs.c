/*
 * MPI_Put, MPI_Get and MPI_Accumulate (MPI_SUM) of argv[1] ints (odd) from a
 * contiguous origin buffer to a derived target datatype in MPI_Win_create
 * memory of rank (r + 1) % np (memory the origin cannot map: the V packets
 * and channel put/get of src/device/rma_vec.c), in fence, PSCW and lock_all
 * epochs, the accumulate of lock_all twice around MPI_Win_flush_local with
 * the origin buffer rewritten in between (MPI-4.0 §12.5.4: after
 * flush_local the origin buffer may be reused; both values must arrive).
 *
 * Target types (MPI-4.0 §12.3.2: the target buffer is the type's map at the
 * displacement):
 *   vector1     blocks of 1 int, stride 2 (one segment a packet, the data
 *               sent from the origin's buffer)
 *   vector1021  blocks of 1021 ints (4084 bytes: packets end between blocks
 *               that do not fill them), stride 1500
 *   vector5001  blocks of 5001 ints (20004 bytes: more than a shared-memory
 *               or tcp packet, cut inside the block), stride 5500
 *   struct      {int at 0; int[2] at 12}, extent 24
 *   indexed     aperiodic: block lengths and gaps from a generator (1..7
 *               ints, gaps 1..5), many segments a packet
 *   reverse     blocks of 2 ints every 3, in descending order of address
 *   scatter     blocks of 1 int at every other int, in an order that jumps
 *               between the halves of the span (even blocks in the first,
 *               odd ones in the second)
 * The offsets each type covers are computed here from the definition above
 * (not by the MPI library); every int of the window (and, for a get, of the
 * origin buffer) is checked against them.
 */
#include "mpi_test.h"

enum { T_VEC1, T_VEC1021, T_VEC5001, T_STRUCT, T_INDEXED, T_REVERSE, T_SCATTER, NTYPE };
enum { OP_PUT, OP_GET, OP_ACC, NOP };
enum { E_FENCE, E_PSCW, E_LOCKALL, NEPOCH };
static const char *tname[NTYPE] = { "vector1", "vector1021", "vector5001", "struct", "indexed", "reverse",
                                     "scatter" };
static const char *oname[NOP] = { "put", "get", "accumulate" };
static const char *ename[NEPOCH] = { "fence", "pscw", "lock_all+flush_local" };

static int me, np, to, from;
static MPI_Group gto, gfrom;

/* The irregular indexed map's blocks: 1-7 ints with gaps of 1-5, drawn
 * from the seed. */
static int random_block(int nb, uint64_t *seed, int *gap)
{
    (void)nb;
    int len = (int)(mt_next(seed) % 7) + 1;
    *gap = (int)(mt_next(seed) % 5) + 1;
    return len;
}

/* Type t covering n ints: the MPI type (count *count) and off[i], the window
 * int that origin int i lands on; *span: the window's ints. */
static MPI_Datatype make(int t, long n, int *count, long *off, long *span)
{
    MPI_Datatype d;
    *count = 1;
    if (t <= T_VEC5001) {
        int bl = t == T_VEC1 ? 1 : t == T_VEC1021 ? 1021 : 5001;
        int stride = t == T_VEC1 ? 2 : t == T_VEC1021 ? 1500 : 5500;
        long nb = n / bl;
        for (long i = 0; i < nb * bl; i++)
            off[i] = i / bl * stride + i % bl;
        MPI_OK(MPI_Type_vector((int)nb, bl, stride, MPI_INT, &d));
        *span = (nb - 1) * stride + bl + 3;
        n = nb * bl;
    } else if (t == T_STRUCT) {
        int bl[2] = { 1, 2 };
        MPI_Aint dp[2] = { 0, 12 };
        MPI_Datatype ty[2] = { MPI_INT, MPI_INT }, s;
        MPI_OK(MPI_Type_create_struct(2, bl, dp, ty, &s));
        MPI_OK(MPI_Type_create_resized(s, 0, 24, &d));
        MPI_OK(MPI_Type_free(&s));
        *count = (int)(n / 3);
        for (long i = 0; i < *count * 3L; i++)
            off[i] = i / 3 * 6 + (i % 3 == 0 ? 0 : 2 + i % 3);
        *span = 6L * *count + 1;
    } else if (t == T_REVERSE || t == T_SCATTER) {
        int bl = t == T_REVERSE ? 2 : 1;
        long nb = n / bl;
        int *dp = malloc(sizeof(int) * (size_t)nb);
        CHECK(dp, "no memory");
        for (long b = 0; b < nb; b++) {
            /* scatter: even blocks fill the first half of the slots, odd ones the second */
            long slot = b % 2 == 0 ? b / 2 : (nb + 1) / 2 + b / 2;
            dp[b] = (int)(t == T_REVERSE ? (nb - 1 - b) * 3 : 2 * slot);
            for (int e = 0; e < bl; e++)
                off[b * bl + e] = dp[b] + e;
        }
        MPI_OK(MPI_Type_create_indexed_block((int)nb, bl, dp, MPI_INT, &d));
        *span = t == T_REVERSE ? 3 * nb : 2 * nb;
        free(dp);
    } else {
        d = mt_indexed_map(n, random_block, 12345, off, span);
    }
    MPI_OK(MPI_Type_commit(&d));
    int size;
    MPI_OK(MPI_Type_size(d, &size));
    CHECK((long)size * *count <= n * (long)sizeof(int), "type %s of %d bytes x %d for %ld ints", tname[t], size,
          *count, n);
    return d;
}

static void issue(int op, const int *src, int *dst, int n, int tcount, MPI_Datatype tt, MPI_Win w)
{
    if (op == OP_PUT)
        MPI_OK(MPI_Put(src, n, MPI_INT, to, 0, tcount, tt, w));
    else if (op == OP_GET)
        MPI_OK(MPI_Get(dst, n, MPI_INT, to, 0, tcount, tt, w));
    else
        MPI_OK(MPI_Accumulate(src, n, MPI_INT, to, 0, tcount, tt, MPI_SUM, w));
}

static int origin_val(int rank, long i, int round)
{
    return (int)(7 * i + 1000 * rank + 13 * round + 1);
}

static void one(int t, int op, int e, long nmax)
{
    long *off = malloc(sizeof(long) * (size_t)nmax), span;
    CHECK(off, "no memory");
    int tcount;
    MPI_Datatype tt = make(t, nmax, &tcount, off, &span);
    int size;
    MPI_OK(MPI_Type_size(tt, &size));
    long n = (long)size / (long)sizeof(int) * tcount;
    int *mem = malloc(sizeof(int) * (size_t)span), *expect = malloc(sizeof(int) * (size_t)span);
    int *src = malloc(sizeof(int) * (size_t)n), *dst = malloc(sizeof(int) * (size_t)n);
    CHECK(mem && expect && src && dst, "no memory");
    for (long i = 0; i < span; i++)
        mem[i] = expect[i] = (int)(-(1000000 * me) - i);
    for (long i = 0; i < n; i++) {
        src[i] = origin_val(me, i, 0);
        dst[i] = -7;
    }
    /* what rank `from` does to my window */
    for (long i = 0; i < n; i++) {
        long o = off[i];
        if (op == OP_PUT)
            expect[o] = origin_val(from, i, 0);
        else if (op == OP_ACC)
            expect[o] += origin_val(from, i, 0) + (e == E_LOCKALL ? origin_val(from, i, 1) : 0);
    }
    MPI_Win w;
    MPI_OK(MPI_Win_create(mem, (MPI_Aint)(sizeof(int) * (size_t)span), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &w));
    if (e == E_FENCE) {
        MPI_OK(MPI_Win_fence(0, w));
        issue(op, src, dst, (int)n, tcount, tt, w);
        MPI_OK(MPI_Win_fence(0, w));
    } else if (e == E_PSCW) {
        MPI_OK(MPI_Win_post(gfrom, 0, w));
        MPI_OK(MPI_Win_start(gto, 0, w));
        issue(op, src, dst, (int)n, tcount, tt, w);
        MPI_OK(MPI_Win_complete(w));
        MPI_OK(MPI_Win_wait(w));
    } else {
        MPI_OK(MPI_Win_lock_all(0, w));
        issue(op, src, dst, (int)n, tcount, tt, w);
        MPI_OK(MPI_Win_flush_local(to, w));
        if (op == OP_ACC) {     /* the buffer is mine again: a second round from it */
            for (long i = 0; i < n; i++)
                src[i] = origin_val(me, i, 1);
            issue(op, src, dst, (int)n, tcount, tt, w);
            MPI_OK(MPI_Win_flush_local(to, w));
            for (long i = 0; i < n; i++)
                src[i] = -99;   /* must not reach the target */
        }
        MPI_OK(MPI_Win_unlock_all(w));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (long i = 0; i < span; i++)
        CHECK(mem[i] == expect[i], "%s to %s, %s, %ld ints: window int %ld is %d, expected %d", oname[op], tname[t],
              ename[e], n, i, mem[i], expect[i]);
    if (op == OP_GET) {
        /* the target's window as it was: its ints at the type's offsets */
        for (long i = 0; i < n; i++)
            CHECK(dst[i] == (int)(-(1000000 * to) - off[i]), "get from %s, %s, %ld ints: origin int %ld is %d, "
                  "expected %d", tname[t], ename[e], n, i, dst[i], (int)(-(1000000 * to) - off[i]));
    }
    MPI_OK(MPI_Win_free(&w));
    MPI_OK(MPI_Type_free(&tt));
    free(off);
    free(mem);
    free(expect);
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &np);
    long n = argc > 1 ? atol(argv[1]) : 100003;
    CHECK(n >= 10002, "at least 10002 ints (two 5001-int blocks), not %ld", n);
    to = (me + 1) % np;
    from = (me + np - 1) % np;
    MPI_Group wg;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_incl(wg, 1, &to, &gto));
    MPI_OK(MPI_Group_incl(wg, 1, &from, &gfrom));
    int cases = 0;
    for (int t = 0; t < NTYPE; t++)
        for (int op = 0; op < NOP; op++)
            for (int e = 0; e < NEPOCH; e++, cases++)
                one(t, op, e, n);
    MPI_OK(MPI_Group_free(&gto));
    MPI_OK(MPI_Group_free(&gfrom));
    MPI_OK(MPI_Group_free(&wg));
    if (me == 0)
        printf("rma_dtype_epochs: %d ranks, up to %ld ints, 7 target types x put/get/accumulate x fence/PSCW/"
               "lock_all (%d cases): ok\n", np, n, cases);
    MPI_Finalize();
    return 0;
}
