/*
 * MPI_Reduce_scatter_c, MPI_Ireduce_scatter_c and MPI_Reduce_scatter_init_c
 * (started twice with new data) on an intercommunicator whose vector is
 * beyond INT_MAX elements: 2^31 + 5 MPI_BYTEs reduced with MPI_BXOR
 * (MPI-4.1 6.10.1: each group gets the reduction of the other group's
 * vectors, scattered by its own recvcounts). Group A (world ranks 0 and 1)
 * has recvcounts 2^31 + 3 and 2 (no common divisor brings them under
 * INT_MAX) in the blocking call, 2^30 + 2 and 2^30 + 3 in the non-blocking
 * one (ints whose sum is not one, through the int form: MPI matches calls
 * by type signature, not binding) and 2 and 2^31 + 3 in the persistent
 * one; group B (world rank 2) has the one count 2^31 + 5. Three ranks: a
 * rank receives every remote rank's whole vector, so a third group member
 * would double the bytes moved.
 *
 * Every send vector is 0 but at marks (every 64 MiB + 4099 bytes, either
 * side of every 2^26 bytes, around the blocks' boundaries and at the end),
 * so a vector's pages are mostly never touched. The expected result of
 * every byte is computed here from the marks the remote senders put there;
 * the bytes around each result must stay 0. A negative count is
 * MPI_ERR_COUNT naming the entry.
 */
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include "mpi_test.h"

#define B ((MPI_Count)1 << 31)
#define HALF ((MPI_Count)1 << 30)
#define TOTAL (B + 5)
#define MSTEP ((MPI_Count)(64 << 20) + 4099)
#define CH ((MPI_Count)1 << 26)   /* the library's chunk (RCH_MPI_INTER_CHUNK) */
#define GAP 64
#define ROFF ((size_t)1 << 33) /* the send vector's offset in buf */
#define LEN (ROFF + ((size_t)1 << 32))

static int me, p;
static unsigned char *buf;
static int grp, lr;   /* group A (0) or B (1), rank in it */
/* group A's recvcounts in runs 1 (blocking), 2 (non-blocking), 3 and 4
 * (persistent); group B's */
static const MPI_Count acounts[3][2] = { { B + 3, 2 }, { HALF + 2, HALF + 3 }, { 2, B + 3 } };
static const MPI_Count bcounts[1] = { TOTAL };

static int near(MPI_Count g, MPI_Count at)
{
    return g >= at - 4 && g < at + 4;
}

static int marked(MPI_Count g)
{
    return g % MSTEP == 0 || g % CH == 0 || g % CH == CH - 1 || g < 8 || near(g, B + 3) || near(g, HALF + 2) ||
           g >= TOTAL - 4;
}

/* Byte g of the vector world rank `from` sends in run `tag`. */
static unsigned char val(int tag, int from, MPI_Count g)
{
    if (!marked(g))
        return 0;
    return (unsigned char)(1 + (tag * 37 + from * 11 + (g / MSTEP) * 5 + g % 7) % 250);
}

/* The first marked position at or after g. */
static MPI_Count next_mark(MPI_Count g)
{
    static const MPI_Count windows[] = { 0, B + 3 - 4, HALF + 2 - 4, TOTAL - 4 };   /* 8 marked bytes each */
    MPI_Count r = g % CH, m = (g + MSTEP - 1) / MSTEP * MSTEP;
    MPI_Count c = r == 0 || r == CH - 1 ? g : g - r + CH - 1;
    if (c < m)
        m = c;
    for (int i = 0; i < 4; i++)
        if (g < windows[i] + 8 && (g > windows[i] ? g : windows[i]) < m)
            m = g > windows[i] ? g : windows[i];
    return m;
}

/* Byte g of the other group's reduction, computed from val(). */
static unsigned char want(int tag, MPI_Count g)
{
    return (unsigned char)(grp ? val(tag, 0, g) ^ val(tag, 1, g) : val(tag, 2, g));
}

static void fill(unsigned char *sb, int tag)
{
    for (MPI_Count g = next_mark(0); g < TOTAL; g = next_mark(g + 1))
        sb[g] = val(tag, me, g);
}

/* Every byte of my block (at rbuf = buf + GAP) against want(), every other
 * byte around it 0; then its marks are zeroed for the next run (the pages
 * stay: fresh pages are most of such a test's time). */
static void check(const char *what, int tag, const MPI_Count *counts)
{
    MPI_Count off = lr ? counts[0] : 0, n = counts[lr];
    unsigned char *at = buf + GAP;
    CHECK(mt_zero(buf, GAP) && mt_zero(at + n, GAP), "%s: bytes around the result were written", what);
    for (MPI_Count g = next_mark(off); g < off + n; g = next_mark(g + 1)) {
        CHECK(marked(g), "next_mark(%lld) is not marked", (long long)g);
        CHECK(at[g - off] == want(tag, g), "%s: element %lld is %d, expected %d", what, (long long)(g - off),
              at[g - off], want(tag, g));
        at[g - off] = 0;
    }
    CHECK(mt_zero(at, n), "%s: an element between the marks is not 0", what);
}

static void negative(MPI_Comm ic)
{
    /* every rank passes a negative count, so no call waits for a peer */
    MPI_Count bad[2] = { grp ? -B - 5 : B + 3, -3 };
    const char *name = grp ? "recvcounts[0]" : "recvcounts[1]";
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Request req;
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int rc = MPI_Reduce_scatter_c(buf + ROFF, buf + GAP, bad, MPI_BYTE, MPI_BXOR, ic);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Reduce_scatter_c negative count: class %d", mt_class(rc));
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, name) != NULL, "the error names %s: %s", name, msg);
    rc = MPI_Ireduce_scatter_c(buf + ROFF, buf + GAP, bad, MPI_BYTE, MPI_BXOR, ic, &req);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Ireduce_scatter_c negative count: class %d", mt_class(rc));
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, name) != NULL, "the error names %s: %s", name, msg);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &p);
    CHECK(p == 3, "3 ranks");
    buf = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(buf != MAP_FAILED, "no address space for %zu bytes", LEN);
    madvise(buf, LEN, MADV_HUGEPAGE);
    grp = me == 2;
    lr = grp ? 0 : me;
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, grp, me, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, grp ? 0 : 2, 7, &ic));
    int ints[2] = { (int)acounts[1][0], (int)acounts[1][1] };
    unsigned char *sb = buf + ROFF, *rb = buf + GAP;
    const MPI_Count *cnt = grp ? bcounts : acounts[0];
    MPI_Request req;

    fill(sb, 1);
    MPI_OK(MPI_Reduce_scatter_c(sb, rb, cnt, MPI_BYTE, MPI_BXOR, ic));
    check("Reduce_scatter_c", 1, cnt);

    fill(sb, 2);
    if (grp)
        MPI_OK(MPI_Ireduce_scatter_c(sb, rb, bcounts, MPI_BYTE, MPI_BXOR, ic, &req));
    else
        MPI_OK(MPI_Ireduce_scatter(sb, rb, ints, MPI_BYTE, MPI_BXOR, ic, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check("Ireduce_scatter_c", 2, grp ? bcounts : acounts[1]);

    cnt = grp ? bcounts : acounts[2];
    MPI_OK(MPI_Reduce_scatter_init_c(sb, rb, cnt, MPI_BYTE, MPI_BXOR, ic, MPI_INFO_NULL, &req));
    for (int tag = 3; tag <= 4; tag++) {
        fill(sb, tag);
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        check("Reduce_scatter_init_c", tag, cnt);
    }
    MPI_OK(MPI_Request_free(&req));

    negative(ic);
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    munmap(buf, LEN);
    MPI_Finalize();
    if (me == 0)
        printf("large_interrs: %lld-byte vectors, blocking, non-blocking and persistent ok\n", (long long)TOTAL);
    return 0;
}
