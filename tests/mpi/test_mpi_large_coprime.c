/*
 * The v-collectives' _c forms with counts beyond INT_MAX that no common
 * divisor brings under it (2^31 + 3 beside 2, 5, 7, 11) and blocks spread
 * over more than 2^31 extents: MPI_Gatherv_c (the root's own block of 2^31 +
 * 3 bytes in place; odd ranks send with the int form), MPI_Scatterv_c (2^31
 * + 3 bytes to rank 1), MPI_Allgatherv_c (MPI_SHORT blocks 2^31 + 9 extents
 * apart), MPI_Alltoallv_c and MPI_Alltoallw_c (2^31 + 3 bytes from rank 0
 * to rank 1; alltoallw's MPI_SHORT blocks at byte displacements beyond
 * 2^32), MPI_Igatherv_c, MPI_Allgatherv_init_c
 * (started twice with new data), MPI_Gatherv_c, MPI_Scatterv_init_c and
 * MPI_Iallgatherv_c on an intercommunicator,
 * MPI_Ineighbor_alltoallv_c and MPI_Neighbor_allgatherv_c on a ring,
 * MPI_Reduce_scatter_c of 2 and 2^31 + 3 elements. Every block of 2^31 + 3
 * bytes is received by rank 1, at the same place, whose pages then serve
 * them all.
 * MPI-4.1 6.2.2: any value an MPI_Count holds is a valid count. Every byte
 * of every block is checked against what its sender put there (a small
 * block: every byte set; a block of 2^31 + 3: marks every 64 MiB + 4099
 * bytes and at its end, zero between), and the bytes around each block must
 * stay 0. A negative count beside one beyond INT_MAX is MPI_ERR_COUNT
 * naming the entry.
 */
#include <limits.h>
#include <sys/mman.h>
#include "mpi_test.h"

#define B ((MPI_Count)1 << 31)
#define BIG (B + 3)
#define MSTEP ((MPI_Count)(64 << 20) + 4099)
#define GAP 64
#define SOFF ((size_t)1 << 34)          /* the send region's offset in buf */
#define LEN (SOFF + ((size_t)1 << 34))  /* 32 GiB of address space, few pages touched */

static int me, p;
static unsigned char *buf;
static const MPI_Count small[4] = { 2, 5, 7, 11 };

/* Byte j of the block `from` sends in test `tag` (n bytes; a block beyond
 * INT_MAX holds marks only). */
static unsigned char val(int tag, int from, MPI_Count n, MPI_Count j)
{
    if (n > INT_MAX && j % MSTEP != 0 && j != n - 1)
        return 0;
    return (unsigned char)(1 + (tag * 37 + from * 11 + (j / MSTEP) * 5 + j % 7) % 250);
}

static void fill(unsigned char *at, MPI_Count n, int tag, int from)
{
    if (n <= INT_MAX) {
        for (MPI_Count j = 0; j < n; j++)
            at[j] = val(tag, from, n, j);
        return;
    }
    for (MPI_Count j = 0; j < n; j += MSTEP)
        at[j] = val(tag, from, n, j);
    at[n - 1] = val(tag, from, n, n - 1);
}

static int zero(const unsigned char *at, MPI_Count n)
{
    MPI_Count j = 0;
    for (; j < n && ((uintptr_t)(at + j) & 7); j++)
        if (at[j])
            return 0;
    for (; j + 8 <= n; j += 8)
        if (*(const uint64_t *)(const void *)(at + j))
            return 0;
    for (; j < n; j++)
        if (at[j])
            return 0;
    return 1;
}

/* The block at `at` is what `from` sent in test `tag`, with GAP zero bytes
 * on either side (before only where guard_before). */
static void check(const char *what, const unsigned char *at, MPI_Count n, int tag, int from, int guard_before)
{
    CHECK(!guard_before || zero(at - GAP, GAP), "%s: bytes before the block from %d were written", what, from);
    CHECK(zero(at + n, GAP), "%s: bytes after the block from %d (%lld bytes) were written", what, from,
          (long long)n);
    if (n <= INT_MAX) {
        for (MPI_Count j = 0; j < n; j++)
            CHECK(at[j] == val(tag, from, n, j), "%s: byte %lld from %d is %d, expected %d", what, (long long)j, from,
                  at[j], val(tag, from, n, j));
        return;
    }
    for (MPI_Count j = 0; j < n; j += MSTEP) {
        MPI_Count end = j + MSTEP < n - 1 ? j + MSTEP : n - 1;
        CHECK(at[j] == val(tag, from, n, j), "%s: byte %lld from %d is %d, expected %d", what, (long long)j, from,
              at[j], val(tag, from, n, j));
        CHECK(zero(at + j + 1, end - j - 1), "%s: bytes %lld..%lld from %d are not 0", what, (long long)j + 1,
              (long long)end - 1, from);
    }
    CHECK(at[n - 1] == val(tag, from, n, n - 1), "%s: last byte from %d is %d", what, from, at[n - 1]);
}

/* The buffer reads 0 again. Where a block of BIG bytes was received (at
 * GAP) the pages up to KEEP are kept for the next such block to reuse
 * (fresh pages cost the test most of its time): its marks, the only bytes
 * check() let be non-zero there, are zeroed, and so are the windows where
 * small blocks go (below 64 KiB and from B - 64 KiB). The other pages go
 * back to the system. */
static int populated;
#define KEEP ((size_t)B + (2 << 20))
#define WIN ((size_t)1 << 16)

static void received_big(void)
{
    populated = 1;
}

static void clear(void)
{
    size_t from = populated ? KEEP : 0;
    if (populated) {
        for (MPI_Count j = 0; j < BIG; j += MSTEP)
            buf[GAP + j] = 0;
        buf[GAP + BIG - 1] = 0;
        memset(buf, 0, WIN);
        memset(buf + B - WIN, 0, KEEP - (B - WIN));
    }
    CHECK(madvise(buf + from, LEN - from, MADV_DONTNEED) == 0, "madvise failed");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Root 0 keeps its own block of BIG bytes in place at 0; rank r > 0 sends
 * small[r % 4] bytes, placed at BIG + GAP * r + (r - 1) * 16 (past INT_MAX).
 * kind 0: blocking (odd ranks the int form), 1: MPI_Igatherv_c. */
static void gatherv(int kind)
{
    const int tag = 1 + kind;
    MPI_Count cnt[64];
    MPI_Aint dsp[64];
    for (int r = 0; r < p; r++) {
        cnt[r] = r ? small[r % 4] : BIG;
        dsp[r] = r ? BIG + GAP * r + (r - 1) * 16 : 0;
    }
    unsigned char *sb = buf + SOFF;
    if (me == 0)
        fill(buf, BIG, tag, 0);
    else
        fill(sb, cnt[me], tag, me);
    MPI_Request rq;
    if (kind == 1) {
        MPI_OK(MPI_Igatherv_c(me ? sb : MPI_IN_PLACE, me ? cnt[me] : 0, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, 0,
                              MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else if (me == 0) {
        MPI_OK(MPI_Gatherv_c(MPI_IN_PLACE, 0, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, 0, MPI_COMM_WORLD));
    } else if (me % 2) {
        MPI_OK(MPI_Gatherv(sb, (int)cnt[me], MPI_BYTE, NULL, NULL, NULL, MPI_BYTE, 0, MPI_COMM_WORLD));
    } else {
        MPI_OK(MPI_Gatherv_c(sb, cnt[me], MPI_BYTE, NULL, NULL, NULL, MPI_BYTE, 0, MPI_COMM_WORLD));
    }
    if (me == 0)
        for (int r = 0; r < p; r++)
            check(kind ? "Igatherv_c" : "Gatherv_c", buf + dsp[r], cnt[r], tag, r, r > 0);
    clear();
}

/* Root 0 sends rank 1 BIG bytes from offset 5, itself 2 bytes from past
 * INT_MAX, rank r > 1 small[r] bytes past that. */
static void scatterv(void)
{
    const int tag = 3;
    MPI_Count cnt[64];
    MPI_Aint dsp[64];
    for (int r = 0; r < p; r++) {
        cnt[r] = r == 1 ? BIG : small[r % 4];
        dsp[r] = r == 1 ? 5 : BIG + 5 + GAP * (r + 1);
    }
    unsigned char *sb = buf + SOFF;
    if (me == 0)
        for (int r = 0; r < p; r++)
            fill(sb + dsp[r], cnt[r], tag, r);
    MPI_OK(MPI_Scatterv_c(sb, cnt, dsp, MPI_BYTE, buf + GAP, cnt[me], MPI_BYTE, 0, MPI_COMM_WORLD));
    check("Scatterv_c", buf + GAP, cnt[me], tag, me, 1);
    if (me == 1)
        received_big();
    clear();
}

/* Rank r's block: small[r] shorts at r * (2^31 + 9) extents, past INT_MAX
 * from each other; every rank's own is in place. persistent: through
 * MPI_Allgatherv_init_c, started twice with new data. */
static void allgatherv(int persistent)
{
    MPI_Count cnt[64];
    MPI_Aint dsp[64];
    for (int r = 0; r < p; r++) {
        cnt[r] = small[r % 4];
        dsp[r] = (MPI_Aint)r * (B + 9) + GAP;
    }
    MPI_Request rq;
    const char *what = persistent ? "Allgatherv_init_c" : "Allgatherv_c";
    if (persistent)
        MPI_OK(MPI_Allgatherv_init_c(MPI_IN_PLACE, 0, MPI_SHORT, buf, cnt, dsp, MPI_SHORT, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, &rq));
    for (int round = 0; round < 1 + persistent; round++) {
        int tag = 4 + persistent + 2 * round;
        fill(buf + 2 * dsp[me], 2 * cnt[me], tag, me);
        if (persistent) {
            MPI_OK(MPI_Start(&rq));
            MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_SHORT, buf, cnt, dsp, MPI_SHORT, MPI_COMM_WORLD));
        }
        for (int r = 0; r < p; r++)
            check(what, buf + 2 * dsp[r], 2 * cnt[r], tag, r, 1);
    }
    if (persistent)
        MPI_OK(MPI_Request_free(&rq));
    clear();
}

/* Rank s's block for rank r: BIG bytes from 0 to 1 (sent from and received
 * at GAP), else small[(r + s) % 4] bytes, sent from and received at
 * B + 256 + 128 r and s, past INT_MAX. */
static MPI_Count a2a_count(int from, int to)
{
    return from == 0 && to == 1 ? BIG : small[(from + to) % 4];
}

static MPI_Aint a2a_send(int to)
{
    return me == 0 && to == 1 ? GAP : B + 256 + 128 * to;
}

static MPI_Aint a2a_recv(int from)
{
    return from == 0 && me == 1 ? GAP : B + 256 + 128 * from;
}

static void alltoallv(void)
{
    const int tag = 8;
    MPI_Count sc[64], rc[64];
    MPI_Aint sd[64], rd[64];
    unsigned char *sb = buf + SOFF;
    for (int r = 0; r < p; r++) {
        sc[r] = a2a_count(me, r);
        rc[r] = a2a_count(r, me);
        sd[r] = a2a_send(r);
        rd[r] = a2a_recv(r);
        fill(sb + sd[r], sc[r], tag, me);
    }
    MPI_OK(MPI_Alltoallv_c(sb, sc, sd, MPI_BYTE, buf, rc, rd, MPI_BYTE, MPI_COMM_WORLD));
    for (int r = 0; r < p; r++)
        check("Alltoallv_c", buf + rd[r], rc[r], tag, r, 1);
    if (me == 1)
        received_big();
    clear();
}

/* With byte displacements: small blocks of MPI_SHORT at 2^32 + 128 (s + 1)
 * bytes, BIG bytes of MPI_BYTE from 0 to 1 (as in alltoallv: rank 1's
 * pages for it are there already). */
static void alltoallw(void)
{
    const int tag = 9;
    MPI_Count sc[64], rc[64];
    MPI_Aint sd[64], rd[64];
    MPI_Datatype st[64], rt[64];
    unsigned char *sb = buf + SOFF;
    for (int r = 0; r < p; r++) {
        int sbig = me == 0 && r == 1, rbig = me == 1 && r == 0;
        sc[r] = sbig ? BIG : small[(me + r) % 4];
        rc[r] = rbig ? BIG : small[(me + r) % 4];
        st[r] = sbig ? MPI_BYTE : MPI_SHORT;
        rt[r] = rbig ? MPI_BYTE : MPI_SHORT;
        sd[r] = sbig ? GAP : 2 * B + 128 * (r + 1);
        rd[r] = rbig ? GAP : 2 * B + 128 * (r + 1);
        fill(sb + sd[r], sbig ? BIG : 2 * sc[r], tag, me);
    }
    MPI_OK(MPI_Alltoallw_c(sb, sc, sd, st, buf, rc, rd, rt, MPI_COMM_WORLD));
    for (int r = 0; r < p; r++)
        check("Alltoallw_c", buf + rd[r], rt[r] == MPI_BYTE ? rc[r] : 2 * rc[r], tag, r, 1);
    if (me == 1)
        received_big();
    clear();
}

/* Two groups (even, odd ranks); the odd group's rank 0 gathers from every
 * even rank e small[e % 4] bytes at (e / 2) * (2^31 + 7) + GAP, past
 * INT_MAX from each other, then scatters them back; then every rank
 * gathers every remote rank's. */
static void inter(void)
{
    const int tag = 10;
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 7, &ic));
    int lr, rsize;
    MPI_Comm_rank(local, &lr);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Count cnt[64];
    MPI_Aint dsp[64];
    for (int r = 0; r < rsize; r++) {
        cnt[r] = small[(2 * r) % 4];
        dsp[r] = (MPI_Aint)r * (B + 7) + GAP;
    }
    unsigned char *sb = buf + SOFF;
    if (me % 2 == 0) {
        fill(sb, small[me % 4], tag, me);
        MPI_OK(MPI_Gatherv_c(sb, small[me % 4], MPI_BYTE, NULL, NULL, NULL, MPI_BYTE, 0, ic));
    } else {
        MPI_OK(MPI_Gatherv_c(NULL, 0, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, ic));
        for (int r = 0; lr == 0 && r < rsize; r++)
            check("Gatherv_c on an intercommunicator", buf + dsp[r], cnt[r], tag, 2 * r, 1);
    }
    /* back: the same blocks from the root, by MPI_Scatterv_init_c started
     * twice with new data (from = the round's tag) */
    MPI_Request rq;
    if (me % 2 == 0)
        MPI_OK(MPI_Scatterv_init_c(NULL, NULL, NULL, MPI_BYTE, buf + GAP, small[me % 4], MPI_BYTE, 0, ic,
                                   MPI_INFO_NULL, &rq));
    else
        MPI_OK(MPI_Scatterv_init_c(sb, cnt, dsp, MPI_BYTE, NULL, 0, MPI_BYTE, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, ic,
                                   MPI_INFO_NULL, &rq));
    for (int round = 0; round < 2; round++) {
        for (int r = 0; me % 2 && lr == 0 && r < rsize; r++)
            fill(sb + dsp[r], cnt[r], tag + 1 + round, 2 * r);
        MPI_OK(MPI_Start(&rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        if (me % 2 == 0)
            check("Scatterv_init_c on an intercommunicator", buf + GAP, small[me % 4], tag + 1 + round, me, 1);
    }
    MPI_OK(MPI_Request_free(&rq));
    clear();
    /* every rank gets every remote rank's small[rank % 4] bytes, past
     * INT_MAX apart, through MPI_Iallgatherv_c */
    for (int r = 0; r < rsize; r++)
        cnt[r] = small[(2 * r + 1 - me % 2) % 4];
    fill(sb, small[me % 4], tag + 3, me);
    MPI_OK(MPI_Iallgatherv_c(sb, small[me % 4], MPI_BYTE, buf, cnt, dsp, MPI_BYTE, ic, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int r = 0; r < rsize; r++)
        check("Iallgatherv_c on an intercommunicator", buf + dsp[r], cnt[r], tag + 3, 2 * r + 1 - me % 2, 1);
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    clear();
}

/* On a periodic ring (in- and out-neighbours left, right): block j to
 * out-neighbour j is small[(me + j) % 4] + 2 bytes, sent from and received
 * at j * (2^31 + 7) + GAP, past INT_MAX from each other, through
 * MPI_Ineighbor_alltoallv_c; then MPI_Neighbor_allgatherv_c of small[me % 4]
 * bytes to both. */
static MPI_Count ring_count(int from, int j)
{
    return small[(from + j) % 4] + 2;
}

static void neighbors(void)
{
    MPI_Comm ring;
    int dims[1] = { p }, periods[1] = { 1 }, left = (me + p - 1) % p, right = (me + 1) % p;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    MPI_Count sc[2] = { ring_count(me, 0), ring_count(me, 1) }, rc[2] = { ring_count(left, 1), ring_count(right, 0) };
    MPI_Aint d[2] = { GAP, B + 7 + GAP };
    unsigned char *sb = buf + SOFF;
    for (int j = 0; j < 2; j++)
        fill(sb + d[j], sc[j], 11 + j, me);
    MPI_Request rq;
    MPI_OK(MPI_Ineighbor_alltoallv_c(sb, sc, d, MPI_BYTE, buf, rc, d, MPI_BYTE, ring, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    check("Ineighbor_alltoallv_c from the left", buf + d[0], rc[0], 12, left, 1);
    check("Ineighbor_alltoallv_c from the right", buf + d[1], rc[1], 11, right, 1);
    clear();
    MPI_Count gc[2] = { small[left % 4], small[right % 4] };
    fill(sb, small[me % 4], 13, me);
    MPI_OK(MPI_Neighbor_allgatherv_c(sb, small[me % 4], MPI_BYTE, buf, gc, d, MPI_BYTE, ring));
    check("Neighbor_allgatherv_c from the left", buf + d[0], gc[0], 13, left, 1);
    check("Neighbor_allgatherv_c from the right", buf + d[1], gc[1], 13, right, 1);
    MPI_OK(MPI_Comm_free(&ring));
    clear();
}

/* MPI_Reduce_scatter_c of MPI_UINT8_T with MPI_SUM over ranks 0 and 1:
 * rank 0 gets two elements, rank 1 BIG (no common divisor); each rank's
 * input is fill()'s values, so the result is their sum mod 256. */
static void reduce_scatter(void)
{
    const int tag = 14;
    MPI_Comm pair;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me < 2 ? 0 : MPI_UNDEFINED, me, &pair));
    if (pair != MPI_COMM_NULL) {
        MPI_Count cnt[2] = { 2, BIG };
        unsigned char *sb = buf + SOFF;
        fill(sb, 2, tag, me);
        fill(sb + 2, BIG, tag + 1, me);
        MPI_OK(MPI_Reduce_scatter_c(sb, buf + GAP, cnt, MPI_UINT8_T, MPI_SUM, pair));
        MPI_Count n = cnt[me];
        int t = me ? tag + 1 : tag;
        const unsigned char *at = buf + GAP;
        CHECK(zero(at - GAP, GAP) && zero(at + n, GAP), "Reduce_scatter_c: bytes around the result were written");
        for (MPI_Count j = 0; j < n; j++) {
            if (val(t, 0, n, j) == 0) {   /* between two marks: 0 up to the next */
                MPI_Count end = (j / MSTEP + 1) * MSTEP < n - 1 ? (j / MSTEP + 1) * MSTEP : n - 1;
                CHECK(zero(at + j, end - j), "Reduce_scatter_c: elements %lld..%lld are not 0", (long long)j,
                      (long long)end - 1);
                j = end - 1;
                continue;
            }
            unsigned char want = (unsigned char)(val(t, 0, n, j) + val(t, 1, n, j));
            CHECK(at[j] == want, "Reduce_scatter_c: element %lld is %d, expected %d", (long long)j, at[j], want);
        }
        MPI_OK(MPI_Comm_free(&pair));
        if (me == 1)
            received_big();
    }
    clear();
}

/* A negative count beside one beyond INT_MAX (on MPI_COMM_SELF: no peer
 * waits for a call that fails). */
static void negative(void)
{
    MPI_Count cnt[1] = { -B - 5 };
    MPI_Aint dsp[1] = { 0 };
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, MPI_COMM_SELF);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Allgatherv_c recvcounts[0] = -2^31 - 5: class %d", mt_class(rc));
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, "recvcounts[0]") != NULL, "the error names recvcounts[0]: %s", msg);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &p);
    CHECK(p >= 2 && p <= 64, "2 to 64 ranks");
    buf = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(buf != MAP_FAILED, "no address space for %zu bytes", LEN);
    /* 2 MiB pages where the kernel has them: a block of 2^31 bytes is then
     * 1024 page faults, not 2^19 (the test's time is mostly faults) */
    madvise(buf, LEN, MADV_HUGEPAGE);
    gatherv(0);
    gatherv(1);
    scatterv();
    allgatherv(0);
    allgatherv(1);
    alltoallv();
    alltoallw();
    inter();
    neighbors();
    reduce_scatter();
    negative();
    munmap(buf, LEN);
    MPI_Finalize();
    if (me == 0)
        printf("large_coprime: %d ranks ok\n", p);
    return 0;
}
