/*
 * MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c and
 * MPI_Reduce_scatter_block_init_c (started twice with new data) whose
 * vector, recvcount times the group size, is beyond INT_MAX elements:
 * MPI_BYTE reduced with MPI_BXOR (MPI-4.1 6.10.2). argv[1] "intra": on
 * MPI_COMM_WORLD of 3 ranks, recvcount (2^31 + 1) / 3 (the least whose
 * vector passes INT_MAX: the test's time is the vector's pages), rank i
 * gets block i of the XOR of the 3 vectors. "inter": group A (world ranks 0 and 1,
 * recvcount 2^30 + 3) and group B (world rank 2, recvcount 2^31 + 6, the
 * same vector of 2^31 + 6 bytes): each group gets the reduction of the
 * other group's vectors, scattered in blocks of its own recvcount.
 *
 * Every send vector is 0 but at marks (every 64 MiB + 4099 bytes, either
 * side of every 2^26 bytes, around the blocks' boundaries and at the end),
 * so most pages are never touched. Every byte of a result is checked: the
 * marks against values computed here from the senders' marks, the rest 0,
 * and the bytes around the result stay 0.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "mpi_test.h"

#define RC_INTRA ((((MPI_Count)1 << 31) + 1) / 3)
#define RC_INTER (((MPI_Count)1 << 30) + 3)
#define MSTEP ((MPI_Count)(64 << 20) + 4099)
#define CH ((MPI_Count)1 << 26)
#define GAP 64
#define MAXMARKS 4096

static int me, inter;
static MPI_Count rcount, total, marks[MAXMARKS];   /* the block of group A, the vector */
static int nmarks;

static void mark(MPI_Count g)
{
    if (g >= 0 && g < total && nmarks < MAXMARKS)
        marks[nmarks++] = g;
}

static int cmp(const void *a, const void *b)
{
    MPI_Count x = *(const MPI_Count *)a, y = *(const MPI_Count *)b;
    return (x > y) - (x < y);
}

/* The marked positions, sorted, each once. */
static void make_marks(void)
{
    for (MPI_Count g = 0; g < total; g += MSTEP)
        mark(g);
    for (MPI_Count g = 0; g < total; g += CH)
        mark(g), mark(g - 1);
    for (MPI_Count b = 0; b <= total; b += rcount)
        for (int d = -4; d < 4; d++)
            mark(b + d);
    qsort(marks, (size_t)nmarks, sizeof marks[0], cmp);
    int n = 0;
    for (int i = 0; i < nmarks; i++)
        if (!n || marks[n - 1] != marks[i])
            marks[n++] = marks[i];
    nmarks = n;
}

/* Byte g (a mark) of the vector world rank `from` sends in run `tag`. */
static unsigned char val(int tag, int from, MPI_Count g)
{
    return (unsigned char)(1 + (tag * 37 + from * 11 + (g / MSTEP) * 5 + g % 7) % 250);
}

/* Byte g of my result: the XOR of the vectors of the ranks that reduce
 * into my group (intra: all 3; inter: the other group). */
static unsigned char want(int tag, MPI_Count g)
{
    if (!inter)
        return val(tag, 0, g) ^ val(tag, 1, g) ^ val(tag, 2, g);
    return me == 2 ? val(tag, 0, g) ^ val(tag, 1, g) : val(tag, 2, g);
}

static void fill(unsigned char *sb, int tag)
{
    for (int i = 0; i < nmarks; i++)
        sb[marks[i]] = val(tag, me, marks[i]);
}

/* My block, elements [off, off + n) of the vector, at rb: every byte
 * checked, its marks zeroed again for the next run. */
static void check(const char *what, int tag, unsigned char *rb, MPI_Count off, MPI_Count n)
{
    CHECK(mt_zero(rb - GAP, GAP) && mt_zero(rb + n, GAP), "%s: bytes around the result were written", what);
    for (int i = 0; i < nmarks; i++) {
        MPI_Count g = marks[i];
        if (g < off || g >= off + n)
            continue;
        CHECK(rb[g - off] == want(tag, g), "%s: element %lld is %d, expected %d", what, (long long)(g - off),
              rb[g - off], want(tag, g));
        rb[g - off] = 0;
    }
    CHECK(mt_zero(rb, n), "%s: an element between the marks is not 0", what);
}

int main(int argc, char **argv)
{
    int p;
    mt_init(&argc, &argv, &me, &p);
    CHECK(p == 3, "3 ranks");
    CHECK(argc > 1, "usage: test_mpi_large_rsblock intra|inter");
    inter = !strcmp(argv[1], "inter");
    rcount = inter ? RC_INTER : RC_INTRA;
    total = inter ? 2 * rcount : 3 * rcount;
    make_marks();
    MPI_Comm comm = MPI_COMM_WORLD, local = MPI_COMM_NULL;
    MPI_Count rc = rcount, off = (MPI_Count)me * rcount;
    if (inter) {
        int grp = me == 2;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, grp, me, &local));
        MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, grp ? 0 : 2, 7, &comm));
        if (grp)
            rc = 2 * rcount, off = 0;
    }
    size_t rlen = (size_t)rc + 2 * GAP, len = rlen + (size_t)total;
    unsigned char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(buf != MAP_FAILED, "no address space for %zu bytes", len);
    unsigned char *rb = buf + GAP, *sb = buf + rlen;
    MPI_Request req;

    fill(sb, 1);
    MPI_OK(MPI_Reduce_scatter_block_c(sb, rb, rc, MPI_BYTE, MPI_BXOR, comm));
    check("Reduce_scatter_block_c", 1, rb, off, rc);

    fill(sb, 2);
    MPI_OK(MPI_Ireduce_scatter_block_c(sb, rb, rc, MPI_BYTE, MPI_BXOR, comm, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check("Ireduce_scatter_block_c", 2, rb, off, rc);

    MPI_OK(MPI_Reduce_scatter_block_init_c(sb, rb, rc, MPI_BYTE, MPI_BXOR, comm, MPI_INFO_NULL, &req));
    for (int tag = 3; tag <= 4; tag++) {
        fill(sb, tag);
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        check("Reduce_scatter_block_init_c", tag, rb, off, rc);
    }
    MPI_OK(MPI_Request_free(&req));

    if (inter) {
        MPI_OK(MPI_Comm_free(&comm));
        MPI_OK(MPI_Comm_free(&local));
    }
    munmap(buf, len);
    MPI_Finalize();
    if (me == 0)
        printf("large_rsblock %s: %lld-byte vectors, blocking, non-blocking and persistent ok\n", argv[1],
               (long long)total);
    return 0;
}
