/*
 * The MPI-4 large-count (_c) functions (src/mpi/large.c, the wrappers
 * src/binding/gen_large.py generates). Modes:
 *   p2p   2 ranks: one message of 2^31 + 4096 bytes through MPI_Send_c /
 *         MPI_Recv_c, every byte checked, MPI_Get_count_c/_elements_c of it;
 *   coll  2 ranks: MPI_Bcast_c of 2^31 + 8 bytes and MPI_Allreduce_c of
 *         2^31 + 8 MPI_UINT8_T elements (counts over INT_MAX);
 *   userop  the same MPI_Allreduce_c with an MPI_Op_create_c operation;
 *   api   any ranks: small counts through the _c forms (point-to-point,
 *         v-collectives with MPI_Aint displacements, one-sided, type
 *         constructors, Op_create_c), types over 2^31 bytes, statuses holding
 *         counts over 2^31, and the error classes of counts that are wrong.
 * Expected values come from the standard's definitions, not from the int forms.
 */
#include <limits.h>
#include <sys/mman.h>
#include "mpi_test.h"

#define BIG ((MPI_Count)1 << 31)
/* MPI 4.1's MPI_Status_set_elements_c is not in MPICH 4.0.2's mpi.h, which
 * tests/abi compiles this with. */
#ifdef RDMACH_MPI
#define STATUS_SET_ELEMENTS MPI_Status_set_elements_c
#else
#define STATUS_SET_ELEMENTS MPI_Status_set_elements_x
#endif

/* Word w of a large message: distinct everywhere (its index, scrambled). */
static inline uint64_t word(uint64_t w)
{
    return (w + 1) * 0x9e3779b97f4a7c15ull;
}

/* Huge pages where the kernel has them: touching 2 GiB page by page is most
 * of these tests' time. */
static unsigned char *big_buffer(MPI_Count n)
{
    void *p = mmap(NULL, (size_t)n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED, "no memory for %lld bytes", (long long)n);
    madvise(p, (size_t)n, MADV_HUGEPAGE);
    return p;
}

static void fill_words(unsigned char *p, MPI_Count n)
{
    for (MPI_Count i = 0; i + 8 <= n; i += 8) {
        uint64_t v = word((uint64_t)i / 8);
        memcpy(p + i, &v, 8);
    }
    for (MPI_Count i = n & ~(MPI_Count)7; i < n; i++)
        p[i] = (unsigned char)i;
}

static void check_words(const unsigned char *p, MPI_Count n)
{
    for (MPI_Count i = 0; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        CHECK(v == word((uint64_t)i / 8), "bytes %lld..%lld are wrong", (long long)i, (long long)i + 7);
    }
    for (MPI_Count i = n & ~(MPI_Count)7; i < n; i++)
        CHECK(p[i] == (unsigned char)i, "byte %lld is wrong", (long long)i);
}

static void p2p(int rank)
{
    const MPI_Count n = BIG + 4096;
    unsigned char *buf = big_buffer(n);
    if (rank == 0) {
        fill_words(buf, n);
        MPI_OK(MPI_Send_c(buf, n, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
    } else if (rank == 1) {
        MPI_Status st;
        MPI_Count count = -1, elems = -1, ints = -1;
        int icount = 0;
        /* zeros, which the pattern has none of; touched now, while rank 0
         * fills, since faulting pages in during the copy takes far longer */
        memset(buf, 0, (size_t)n);
        MPI_OK(MPI_Recv_c(buf, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count_c(&st, MPI_BYTE, &count));
        MPI_OK(MPI_Get_elements_c(&st, MPI_BYTE, &elems));
        MPI_OK(MPI_Get_count_c(&st, MPI_INT, &ints));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &icount));
        CHECK(count == n, "MPI_Get_count_c gave %lld, not %lld", (long long)count, (long long)n);
        CHECK(elems == n, "MPI_Get_elements_c gave %lld, not %lld", (long long)elems, (long long)n);
        CHECK(ints == n / 4, "MPI_Get_count_c(MPI_INT) gave %lld, not %lld", (long long)ints, (long long)n / 4);
        CHECK(icount == MPI_UNDEFINED, "MPI_Get_count of %lld bytes gave %d, not MPI_UNDEFINED",
              (long long)n, icount);
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 7, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        check_words(buf, n);
        printf("p2p: %lld bytes received intact, MPI_Get_count_c %lld\n", (long long)n, (long long)count);
    }
    munmap(buf, (size_t)n);
}

static MPI_Count u8_len;
static int u8_wrong_type;

static void add_u8_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    u8_wrong_type |= *dt != MPI_UINT8_T;
    u8_len += *len;
    for (MPI_Count i = 0; i < *len; i++)
        ((unsigned char *)inout)[i] += ((unsigned char *)in)[i];
}

/* A 256-byte period: byte i is (a i + b) mod 256, whatever n is. */
static void period(unsigned char pat[256], unsigned a, unsigned b)
{
    for (unsigned i = 0; i < 256; i++)
        pat[i] = (unsigned char)(a * i + b);
}

static void fill_period(unsigned char *p, MPI_Count n, const unsigned char pat[256])
{
    MPI_Count have = n < 256 ? n : 256;
    memcpy(p, pat, (size_t)have);
    for (; have < n; have *= 2)   /* doubling: each copy a multiple of 256 long */
        memcpy(p + have, p, (size_t)(n - have < have ? n - have : have));
}

static void check_period(const char *what, const unsigned char *p, MPI_Count n, const unsigned char pat[256])
{
    for (MPI_Count i = 0; i < n; i += 256) {
        size_t len = (size_t)(n - i < 256 ? n - i : 256);
        if (memcmp(p + i, pat, len) != 0)
            for (size_t j = 0; j < len; j++)
                CHECK(p[i + j] == pat[j], "%s: element %lld is %u, not %u", what, (long long)(i + j), p[i + j],
                      pat[j]);
    }
}

/* MPI_Bcast_c and MPI_Allreduce_c of n > INT_MAX elements (op: MPI_SUM, or
 * a user operation from MPI_Op_create_c). Element i of rank r is i + r mod
 * 256; the sum over 2 ranks is 2 i + 1 mod 256. */
static void coll(int rank, int user)
{
    const MPI_Count n = BIG + 8;
    unsigned char *buf = big_buffer(n), pat[256];
    MPI_Op op = MPI_SUM;
    if (!user) {
        if (rank == 0)
            fill_words(buf, n);   /* the others' buffers are fresh zero pages */
        MPI_OK(MPI_Bcast_c(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD));
        check_words(buf, n);
    } else {
        MPI_OK(MPI_Op_create_c(add_u8_c, 1, &op));
    }
    period(pat, 1, (unsigned)rank);
    fill_period(buf, n, pat);
    MPI_OK(MPI_Allreduce_c(MPI_IN_PLACE, buf, n, MPI_UINT8_T, op, MPI_COMM_WORLD));
    period(pat, 2, 1);
    check_period("MPI_Allreduce_c", buf, n, pat);
    if (user) {
        /* the user function sees MPI_UINT8_T and the elements counted in it,
         * whatever the library makes of 2^31 + 8 of them */
        MPI_OK(MPI_Op_free(&op));
        CHECK(u8_wrong_type == 0, "the user function got a datatype other than MPI_UINT8_T");
        /* how the elements are split among the ranks is the algorithm's (a
         * reduce-scatter gives each rank its share): over all ranks, every
         * element went through the function at least once */
        long long all = 0, mine = (long long)u8_len;
        MPI_OK(MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK(all >= n, "the user function was given %lld elements on all ranks, fewer than %lld", all,
              (long long)n);
    }
    if (rank == 0)
        printf("coll: %s of %lld elements correct\n",
               user ? "MPI_Allreduce_c with an MPI_Op_create_c operation" : "MPI_Bcast_c and MPI_Allreduce_c",
               (long long)n);
    munmap(buf, (size_t)n);
}

/* ---- api: small counts through the _c forms ---- */

static MPI_Count user_len = -1;

static void user_sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    user_len = *len;
    for (MPI_Count i = 0; i < *len; i++)
        ((long *)inout)[i] += ((long *)in)[i] * 10;
}

static void pt2pt_small(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[5], in[5];
    MPI_Request rq[2];
    MPI_Status st;
    MPI_Count n = 0;
    for (int i = 0; i < 5; i++)
        out[i] = rank * 100 + i;
    MPI_OK(MPI_Irecv_c(in, 5, MPI_INT, left, 1, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Isend_c(out, 5, MPI_INT, right, 1, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 5; i++)
        CHECK(in[i] == left * 100 + i, "Isend_c/Irecv_c in[%d] = %d", i, in[i]);
    MPI_OK(MPI_Sendrecv_c(out, 3, MPI_INT, right, 2, in, 5, MPI_INT, left, 2, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count_c(&st, MPI_INT, &n));
    CHECK(n == 3, "Sendrecv_c: Get_count_c %lld, not 3", (long long)n);
}

static void v_colls(int rank, int size)
{
    /* rank r contributes r + 1 ints valued 1000 r + j; they land in reverse
     * rank order, one int apart, at MPI_Aint displacements */
    MPI_Count *counts = malloc((size_t)size * sizeof(*counts));
    MPI_Aint *displs = malloc((size_t)size * sizeof(*displs));
    int total = 0, mine[64], *all;
    for (int r = size - 1; r >= 0; r--) {
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 2;
    }
    all = malloc((size_t)total * sizeof(int));
    for (int j = 0; j <= rank; j++)
        mine[j] = 1000 * rank + j;
    for (int i = 0; i < total; i++)
        all[i] = -1;
    MPI_OK(MPI_Allgatherv_c(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++) {
        for (int j = 0; j <= r; j++)
            CHECK(all[displs[r] + j] == 1000 * r + j, "Allgatherv_c: block %d[%d] = %d", r, j,
                  all[displs[r] + j]);
        CHECK(all[displs[r] + r + 1] == -1, "Allgatherv_c wrote the gap after block %d", r);
    }
    for (int i = 0; i < total; i++)
        all[i] = -1;
    MPI_OK(MPI_Gatherv_c(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1)
        for (int r = 0; r < size; r++)
            CHECK(all[displs[r]] == 1000 * r, "Gatherv_c: block %d = %d", r, all[displs[r]]);

    /* alltoallv: rank r sends 1 int valued 100 r + d to rank d */
    int *sb = malloc((size_t)size * sizeof(int)), *rb = malloc((size_t)size * 2 * sizeof(int));
    MPI_Count *one = malloc((size_t)size * sizeof(*one));
    MPI_Aint *sd = malloc((size_t)size * sizeof(*sd)), *rd = malloc((size_t)size * sizeof(*rd));
    for (int d = 0; d < size; d++) {
        sb[d] = 100 * rank + d;
        one[d] = 1;
        sd[d] = d;
        rd[d] = 2 * (size - 1 - d);
        rb[2 * d] = rb[2 * d + 1] = -1;
    }
    MPI_OK(MPI_Alltoallv_c(sb, one, sd, MPI_INT, rb, one, rd, MPI_INT, MPI_COMM_WORLD));
    for (int s = 0; s < size; s++)
        CHECK(rb[2 * (size - 1 - s)] == 100 * s + rank, "Alltoallv_c: from %d got %d", s,
              rb[2 * (size - 1 - s)]);
    /* alltoallw: the same in bytes */
    MPI_Datatype *types = malloc((size_t)size * sizeof(*types));
    for (int d = 0; d < size; d++) {
        types[d] = MPI_INT;
        sd[d] = (MPI_Aint)(d * sizeof(int));
        rd[d] = (MPI_Aint)(2 * (size - 1 - d) * sizeof(int));
        rb[2 * d] = -1;
    }
    MPI_OK(MPI_Alltoallw_c(sb, one, sd, types, rb, one, rd, types, MPI_COMM_WORLD));
    for (int s = 0; s < size; s++)
        CHECK(rb[2 * (size - 1 - s)] == 100 * s + rank, "Alltoallw_c: from %d got %d", s,
              rb[2 * (size - 1 - s)]);
    free(types);
    free(sb);
    free(rb);
    free(one);
    free(sd);
    free(rd);
    free(counts);
    free(displs);
    free(all);
}

/* Displacements beyond INT_MAX (the v-collectives' _c forms,
 * src/mpi/large_vcoll.c and large_nbv.c): peer r's 16-byte block lands 2^31 + 64 r bytes
 * into a buffer of which only those pages are ever touched. */
#define FAR(r) (BIG + 64 * (MPI_Aint)(r))

static unsigned char blockbyte(int from, int to, int j)
{
    return (unsigned char)(1 + from * 16 + to * 4 + j);
}

static void check_far(const char *what, const unsigned char *buf, int from, int to)
{
    for (int j = 0; j < 16; j++)
        CHECK(buf[FAR(from) + j] == blockbyte(from, to, j), "%s: byte %d of block from %d is %u", what, j, from,
              buf[FAR(from) + j]);
    CHECK(buf[FAR(from) - 1] == 0 && buf[FAR(from) + 16] == 0, "%s: wrote around block %d", what, from);
}

static void v_colls_far(int rank, int size)
{
    const MPI_Count len = FAR(size) + 64;
    unsigned char *buf = big_buffer(len), mine[16 * 64];
    MPI_Count *counts = malloc((size_t)size * sizeof(*counts));
    MPI_Aint *far = malloc((size_t)size * sizeof(*far)), *near = malloc((size_t)size * sizeof(*near));
    MPI_Datatype *bytes = malloc((size_t)size * sizeof(*bytes));
    for (int r = 0; r < size; r++) {
        counts[r] = 16;
        far[r] = FAR(r);
        near[r] = 16 * r;
        bytes[r] = MPI_BYTE;
        for (int j = 0; j < 16; j++)
            mine[16 * r + j] = blockbyte(rank, r, j);   /* what this rank sends to r */
    }
    MPI_OK(MPI_Allgatherv_c(mine, 16, MPI_BYTE, buf, counts, far, MPI_BYTE, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++) {
        for (int j = 0; j < 16; j++)   /* allgatherv: everyone got the block rank r sends to 0 */
            CHECK(buf[FAR(r) + j] == blockbyte(r, 0, j), "Allgatherv_c: byte %d of block %d", j, r);
        memset(buf + FAR(r), 0, 16);
    }
    MPI_OK(MPI_Alltoallv_c(mine, counts, near, MPI_BYTE, buf, counts, far, MPI_BYTE, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        check_far("Alltoallv_c", buf, r, rank);
    for (int r = 0; r < size; r++)
        memset(buf + FAR(r), 0, 16);
    MPI_OK(MPI_Alltoallw_c(mine, counts, near, bytes, buf, counts, far, bytes, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        check_far("Alltoallw_c", buf, r, rank);
    for (int r = 0; r < size; r++)
        memset(buf + FAR(r), 0, 16);
    int root = size - 1;
    MPI_OK(MPI_Gatherv_c(mine + 16 * root, 16, MPI_BYTE, buf, counts, far, MPI_BYTE, root, MPI_COMM_WORLD));
    if (rank == root)
        for (int r = 0; r < size; r++)
            check_far("Gatherv_c", buf, r, root);
    /* scatterv from those blocks back: rank r gets the block r sent */
    unsigned char got[16] = { 0 };
    MPI_OK(MPI_Scatterv_c(buf, counts, far, MPI_BYTE, got, 16, MPI_BYTE, root, MPI_COMM_WORLD));
    for (int j = 0; j < 16; j++)
        CHECK(got[j] == blockbyte(rank, root, j), "Scatterv_c: byte %d is %u", j, got[j]);
    /* in place: this rank's own block is already there */
    for (int r = 0; r < size; r++)
        memset(buf + FAR(r), 0, 16);
    memcpy(buf + FAR(rank), mine, 16);
    MPI_OK(MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts, far, MPI_BYTE, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        for (int j = 0; j < 16; j++)
            CHECK(buf[FAR(r) + j] == blockbyte(r, 0, j), "Allgatherv_c in place: byte %d of block %d", j, r);
    free(counts);
    free(far);
    free(near);
    free(bytes);
    munmap(buf, (size_t)len);
}

/* An attached buffer of 2^31 + 4096 bytes (sparse: a buffered send touches
 * only what it uses): MPI_Buffer_detach cannot say its size in an int. */
static void buffered(int rank, int size)
{
    const MPI_Count len = BIG + 4096;
    unsigned char *b = big_buffer(len);
    void *addr = NULL;
    MPI_Count got = 0;
    int isize = 0, v = 40 + rank, r = -1;
    MPI_OK(MPI_Buffer_attach_c(b, len));
    MPI_OK(MPI_Bsend_c(&v, 1, MPI_INT, (rank + 1) % size, 3, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv_c(&r, 1, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(r == 40 + (rank + size - 1) % size, "Bsend_c through a 2^31+4096-byte buffer: got %d", r);
    int rc = MPI_Buffer_detach(&addr, &isize);
    CHECK(mt_class(rc) == MPI_ERR_VALUE_TOO_LARGE, "MPI_Buffer_detach of 2^31+4096 bytes: class %d",
          mt_class(rc));
    MPI_OK(MPI_Buffer_detach_c(&addr, &got));
    CHECK(addr == b && got == len, "Buffer_detach_c: %p %lld, not %p %lld", addr, (long long)got, (void *)b,
          (long long)len);
    munmap(b, (size_t)len);
}

/* Arrays the standard gives fewer entries than the communicator's size, or
 * none away from the root: the _c forms must read no further (each is
 * followed by, or is, a value no int holds). */
static void array_lengths(int rank, int size)
{
    MPI_Comm ring;
    int dims[1] = { size }, periods[1] = { 1 }, mine[2] = { 10 * rank, 10 * rank + 1 }, got[4] = { 0 };
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int r, left, right;
    MPI_OK(MPI_Comm_rank(ring, &r));
    MPI_OK(MPI_Cart_shift(ring, 0, 1, &left, &right));
    /* indegree 2: {left, right}; then a value no int holds */
    MPI_Count counts[3] = { 2, 2, BIG };
    MPI_Aint displs[3] = { 0, 2, BIG };
    MPI_OK(MPI_Neighbor_allgatherv_c(mine, 2, MPI_INT, got, counts, displs, MPI_INT, ring));
    CHECK(got[0] == 10 * left && got[1] == 10 * left + 1 && got[2] == 10 * right && got[3] == 10 * right + 1,
          "Neighbor_allgatherv_c: %d %d %d %d", got[0], got[1], got[2], got[3]);
    MPI_OK(MPI_Comm_free(&ring));

    /* away from the root, MPI_Igatherv_c's arrays are anything */
    int root = 0, *all = malloc((size_t)size * sizeof(int));
    MPI_Count *rc = malloc((size_t)size * sizeof(*rc)), junk[1] = { -BIG * 4 };
    MPI_Aint *rd = malloc((size_t)size * sizeof(*rd));
    for (int i = 0; i < size; i++) {
        rc[i] = 1;
        rd[i] = size - 1 - i;
    }
    MPI_Request rq;
    MPI_OK(MPI_Igatherv_c(&mine[0], 1, MPI_INT, all, rank == root ? rc : junk, rank == root ? rd : junk, MPI_INT,
                          root, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (rank == root)
        for (int i = 0; i < size; i++)
            CHECK(all[size - 1 - i] == 10 * i, "Igatherv_c: from %d got %d", i, all[size - 1 - i]);
    /* in place, the send arrays are ignored: here values no int holds */
    MPI_Count *big = malloc((size_t)size * sizeof(*big));
    MPI_Aint *bigd = malloc((size_t)size * sizeof(*bigd));
    for (int i = 0; i < size; i++) {
        big[i] = BIG;
        bigd[i] = BIG;
        all[i] = 100 * rank + i;   /* block i goes to rank i, and comes back from it */
        rd[i] = i;
    }
    MPI_OK(MPI_Alltoallv_c(MPI_IN_PLACE, big, bigd, MPI_INT, all, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CHECK(all[i] == 100 * i + rank, "Alltoallv_c in place: from %d got %d", i, all[i]);
    MPI_OK(MPI_Ialltoallv_c(MPI_IN_PLACE, big, bigd, MPI_INT, all, rc, rd, MPI_INT, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < size; i++)
        CHECK(all[i] == 100 * rank + i, "Ialltoallv_c in place, back: from %d got %d", i, all[i]);
    free(big);
    free(bigd);
    free(all);
    free(rc);
    free(rd);
}

static void reductions(int rank, int size)
{
    long v[3] = { rank, 2 * rank, 3 }, r[3];
    MPI_OK(MPI_Allreduce_c(v, r, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    long s = (long)size * (size - 1) / 2;
    CHECK(r[0] == s && r[1] == 2 * s && r[2] == 3L * size, "Allreduce_c: %ld %ld %ld", r[0], r[1], r[2]);

    MPI_Op op;
    MPI_OK(MPI_Op_create_c(user_sum_c, 1, &op));
    long a[4] = { 1, 2, 3, 4 }, b[4] = { 5, 6, 7, 8 };
    MPI_OK(MPI_Reduce_local_c(a, b, 4, MPI_LONG, op));
    CHECK(user_len == 4, "MPI_User_function_c got len %lld, not 4", (long long)user_len);
    for (int i = 0; i < 4; i++)
        CHECK(b[i] == (i + 5) + 10 * (i + 1), "Reduce_local_c with Op_create_c: b[%d] = %ld", i, b[i]);
    MPI_OK(MPI_Op_free(&op));
}

static void rma(int rank, int size)
{
    long *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate_c((MPI_Aint)(size * sizeof(long)), (MPI_Aint)sizeof(long), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &base, &win));
    for (int i = 0; i < size; i++)
        base[i] = -1;
    MPI_OK(MPI_Win_fence(0, win));
    long mine = 10 * rank + 1, got = 0;
    MPI_OK(MPI_Put_c(&mine, 1, MPI_LONG, (rank + 1) % size, rank, 1, MPI_LONG, win));
    MPI_OK(MPI_Win_fence(0, win));
    int left = (rank + size - 1) % size;
    CHECK(base[left] == 10 * left + 1, "Put_c: base[%d] = %ld", left, base[left]);
    MPI_OK(MPI_Get_c(&got, 1, MPI_LONG, (rank + 1) % size, rank, 1, MPI_LONG, win));   /* what we put */
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(got == mine, "Get_c gave %ld, not %ld", got, mine);
    MPI_OK(MPI_Accumulate_c(&mine, 1, MPI_LONG, 0, size - 1, 1, MPI_LONG, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    if (rank == 0) {
        /* rank size-1's put, then every rank's 10 r + 1 */
        long want = 10L * (size - 1) + 1 + 10L * size * (size - 1) / 2 + size;
        CHECK(base[size - 1] == want, "Accumulate_c: %ld, not %ld", base[size - 1], want);
    }
    MPI_OK(MPI_Win_free(&win));

    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Win_allocate_shared_c(24, 8, MPI_INFO_NULL, node, &base, &win));
    MPI_Aint qsize = 0, unit = 0;
    long *qbase = NULL;
    MPI_OK(MPI_Win_shared_query_c(win, 0, &qsize, &unit, &qbase));
    CHECK(qsize == 24 && unit == 8 && qbase != NULL, "Win_shared_query_c: size %ld unit %ld", (long)qsize,
          (long)unit);
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Comm_free(&node));
}

static void types(void)
{
    MPI_Datatype t, u;
    MPI_Count size = 0, lb = -1, extent = 0;
    int isize = 0;

    /* more than INT_MAX elements: a type of 2^31 + 5 bytes */
    MPI_OK(MPI_Type_contiguous_c(BIG + 5, MPI_BYTE, &t));
    MPI_OK(MPI_Type_size_c(t, &size));
    MPI_OK(MPI_Type_get_extent_c(t, &lb, &extent));
    MPI_OK(MPI_Type_size(t, &isize));
    CHECK(size == BIG + 5 && lb == 0 && extent == BIG + 5, "contiguous_c(2^31+5 bytes): size %lld lb %lld "
          "extent %lld", (long long)size, (long long)lb, (long long)extent);
    CHECK(isize == MPI_UNDEFINED, "MPI_Type_size of a 2^31+5 byte type gave %d", isize);
    {   /* its record: MPI_COMBINER_CONTIGUOUS with one large count */
        MPI_Count ni = -1, na = -1, nl = -1, nd = -1, lc[1] = { 0 };
        int comb = -1, ii, ia, id, rc;
        MPI_Datatype inner = MPI_DATATYPE_NULL;
        MPI_OK(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb));
        CHECK(comb == MPI_COMBINER_CONTIGUOUS && ni == 0 && na == 0 && nl == 1 && nd == 1,
              "envelope_c of contiguous_c(2^31+5): combiner %d, %lld %lld %lld %lld", comb, (long long)ni,
              (long long)na, (long long)nl, (long long)nd);
        MPI_OK(MPI_Type_get_contents_c(t, 0, 0, 1, 1, NULL, NULL, lc, &inner));
        CHECK(lc[0] == BIG + 5 && inner == MPI_BYTE, "contents_c of contiguous_c(2^31+5): %lld",
              (long long)lc[0]);
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        rc = MPI_Type_get_envelope(t, &ii, &ia, &id, &comb);
        CHECK(mt_class(rc) == MPI_ERR_TYPE, "int MPI_Type_get_envelope of it: class %d", mt_class(rc));
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    }
    /* 2^32 ints (16 GiB, never allocated): counts multiply */
    MPI_OK(MPI_Type_contiguous_c((MPI_Count)1 << 32, MPI_INT, &u));
    MPI_OK(MPI_Type_size_c(u, &size));
    MPI_OK(MPI_Type_get_true_extent_c(u, &lb, &extent));
    CHECK(size == (MPI_Count)1 << 34 && lb == 0 && extent == (MPI_Count)1 << 34,
          "contiguous_c(2^32 MPI_INT): size %lld true extent %lld", (long long)size, (long long)extent);
    MPI_OK(MPI_Pack_size_c(3, u, MPI_COMM_WORLD, &size));
    CHECK(size == 3 * ((MPI_Count)1 << 34), "Pack_size_c of 3 such: %lld", (long long)size);
    MPI_OK(MPI_Type_free(&u));
    MPI_OK(MPI_Type_free(&t));

    /* blocklengths and strides beyond INT_MAX (never allocated): size and
     * extent from the constructors' definitions */
    struct {
        const char *what;
        MPI_Count size, lb, extent;
    } want[5] = {
        { "vector_c(2, 2^31+1, 2^31+8, MPI_BYTE)", 2 * (BIG + 1), 0, (BIG + 8) + (BIG + 1) },
        { "vector_c(3, 2, 2^31, MPI_INT)", 24, 0, (2 * BIG + 2) * 4 },
        { "hvector_c(2, 2^31, 2^34, MPI_CHAR)", 2 * BIG, 0, 8 * BIG + BIG },
        { "indexed_block_c(2, 2^31+3, {0, 2^31+10}, MPI_BYTE)", 2 * (BIG + 3), 0, (BIG + 10) + (BIG + 3) },
        { "struct_c(2, {2^31+5, 1}, {0, 3 2^31}, {MPI_BYTE, MPI_DOUBLE})", BIG + 5 + 8, 0, 3 * BIG + 8 },
    };
    MPI_Datatype big[5];
    MPI_Count ibd[2] = { 0, BIG + 10 }, sbl[2] = { BIG + 5, 1 };
    MPI_Aint sdisp[2] = { 0, 3 * BIG };
    MPI_Datatype sty[2] = { MPI_BYTE, MPI_DOUBLE };
    MPI_OK(MPI_Type_vector_c(2, BIG + 1, BIG + 8, MPI_BYTE, &big[0]));
    MPI_OK(MPI_Type_vector_c(3, 2, BIG, MPI_INT, &big[1]));
    MPI_OK(MPI_Type_create_hvector_c(2, BIG, 8 * BIG, MPI_CHAR, &big[2]));
    MPI_OK(MPI_Type_create_indexed_block_c(2, BIG + 3, ibd, MPI_BYTE, &big[3]));
    MPI_OK(MPI_Type_create_struct_c(2, sbl, sdisp, sty, &big[4]));
    for (int i = 0; i < 5; i++) {
        MPI_OK(MPI_Type_size_c(big[i], &size));
        MPI_OK(MPI_Type_get_extent_c(big[i], &lb, &extent));
        CHECK(size == want[i].size && lb == want[i].lb && extent == want[i].extent,
              "%s: size %lld lb %lld extent %lld, not %lld %lld %lld", want[i].what, (long long)size, (long long)lb,
              (long long)extent, (long long)want[i].size, (long long)want[i].lb, (long long)want[i].extent);
        MPI_OK(MPI_Type_free(&big[i]));
    }

    /* small counts through the other constructors: size and extent from
     * their definitions (MPI-4.1 5.1.2-5.1.5) */
    MPI_OK(MPI_Type_vector_c(3, 2, 5, MPI_INT, &t));
    MPI_OK(MPI_Type_size_c(t, &size));
    MPI_OK(MPI_Type_get_extent_c(t, &lb, &extent));
    CHECK(size == 24 && extent == (2 * 5 + 2) * 4, "vector_c: size %lld extent %lld", (long long)size,
          (long long)extent);
    /* a _c constructor's record holds its counts as large counts (MPI-4.1 5.1.13) */
    MPI_Count ni = -1, na = -1, nl = -1, nd = -1, lc[3] = { 0 };
    int comb = -1, ints[1] = { 0 };
    MPI_Aint ad[1];
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 0 && na == 0 && nl == 3 && nd == 1,
          "Type_get_envelope_c of a vector: combiner %d, %lld ints %lld addresses %lld large %lld types", comb,
          (long long)ni, (long long)na, (long long)nl, (long long)nd);
    MPI_OK(MPI_Type_get_contents_c(t, 0, 0, 3, 1, ints, ad, lc, &inner));
    CHECK(lc[0] == 3 && lc[1] == 2 && lc[2] == 5 && inner == MPI_INT,
          "Type_get_contents_c of a vector: %lld %lld %lld", (long long)lc[0], (long long)lc[1], (long long)lc[2]);
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_hvector_c(2, 3, 100, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_get_extent_c(t, &lb, &extent));
    CHECK(extent == 100 + 24, "hvector_c extent %lld", (long long)extent);
    MPI_OK(MPI_Type_free(&t));
    MPI_Count bl[2] = { 2, 1 };
    MPI_Count idisp[2] = { 4, 0 };
    MPI_Aint adisp[2] = { 16, 40 };
    MPI_Datatype tys[2] = { MPI_INT, MPI_DOUBLE };
    MPI_OK(MPI_Type_indexed_c(2, bl, idisp, MPI_INT, &t));
    MPI_OK(MPI_Type_size_c(t, &size));
    MPI_OK(MPI_Type_get_extent_c(t, &lb, &extent));
    CHECK(size == 12 && lb == 0 && extent == 24, "indexed_c: size %lld lb %lld extent %lld", (long long)size,
          (long long)lb, (long long)extent);
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_hindexed_c(2, bl, adisp, MPI_INT, &t));
    MPI_OK(MPI_Type_get_true_extent_c(t, &lb, &extent));
    CHECK(lb == 16 && extent == 40 + 4 - 16, "hindexed_c: true lb %lld extent %lld", (long long)lb,
          (long long)extent);
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_create_struct_c(2, bl, adisp, tys, &t));
    MPI_OK(MPI_Type_size_c(t, &size));
    MPI_OK(MPI_Type_get_extent_c(t, &lb, &extent));
    CHECK(size == 16 && lb == 16 && extent == 32, "struct_c: size %lld lb %lld extent %lld", (long long)size,
          (long long)lb, (long long)extent);
    MPI_OK(MPI_Type_create_resized_c(t, 0, 64, &u));
    MPI_OK(MPI_Type_get_extent_c(u, &lb, &extent));
    CHECK(lb == 0 && extent == 64, "resized_c: lb %lld extent %lld", (long long)lb, (long long)extent);
    MPI_OK(MPI_Type_free(&u));
    MPI_OK(MPI_Type_free(&t));

    /* pack / unpack through the _c forms */
    int in[4] = { 1, 2, 3, 4 }, back[4] = { 0 };
    char packed[64];
    MPI_Count pos = 0;
    MPI_OK(MPI_Pack_c(in, 4, MPI_INT, packed, sizeof(packed), &pos, MPI_COMM_WORLD));
    CHECK(pos == 16, "Pack_c position %lld", (long long)pos);
    pos = 0;
    MPI_OK(MPI_Unpack_c(packed, 16, &pos, back, 4, MPI_INT, MPI_COMM_WORLD));
    CHECK(pos == 16 && memcmp(in, back, sizeof(in)) == 0, "Unpack_c position %lld", (long long)pos);
    /* positions beyond INT_MAX in a (sparse) buffer of 2^31 + 64 bytes */
    unsigned char *far = big_buffer(BIG + 64);
    pos = BIG + 8;
    MPI_OK(MPI_Pack_c(in, 4, MPI_INT, far, BIG + 64, &pos, MPI_COMM_WORLD));
    CHECK(pos == BIG + 24 && memcmp(far + BIG + 8, in, sizeof(in)) == 0, "Pack_c at 2^31+8: position %lld",
          (long long)pos);
    memset(back, 0, sizeof(back));
    pos = BIG + 8;
    MPI_OK(MPI_Unpack_c(far, BIG + 64, &pos, back, 4, MPI_INT, MPI_COMM_WORLD));
    CHECK(pos == BIG + 24 && memcmp(in, back, sizeof(in)) == 0, "Unpack_c at 2^31+8: position %lld",
          (long long)pos);
    pos = BIG + 56;   /* 16 bytes do not fit in the 8 left */
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Pack_c(in, 4, MPI_INT, far, BIG + 64, &pos, MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS && pos == BIG + 56, "Pack_c past the end: rc %d position %lld", rc, (long long)pos);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    munmap(far, (size_t)BIG + 64);
}

static void statuses(void)
{
    MPI_Status st;
    MPI_Count n = 0, e = 0;
    int in = 0;
    memset(&st, 0, sizeof(st));
    /* 2^31 + 3 ints: 2^33 + 12 bytes, beyond 32 bits */
    MPI_OK(STATUS_SET_ELEMENTS(&st, MPI_INT, BIG + 3));
    MPI_OK(MPI_Get_count_c(&st, MPI_INT, &n));
    MPI_OK(MPI_Get_elements_c(&st, MPI_INT, &e));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &in));
    CHECK(n == BIG + 3 && e == BIG + 3, "status of 2^31+3 ints: count %lld elements %lld", (long long)n,
          (long long)e);
    CHECK(in == MPI_UNDEFINED, "MPI_Get_count of 2^31+3 ints gave %d", in);
    MPI_OK(MPI_Get_count_c(&st, MPI_SHORT, &n));
    CHECK(n == 2 * (BIG + 3), "the same bytes as shorts: %lld", (long long)n);
    MPI_OK(MPI_Get_count_c(&st, MPI_DOUBLE, &n));
    CHECK(n == MPI_UNDEFINED, "2^33+12 bytes as doubles: %lld, not MPI_UNDEFINED", (long long)n);
}

static void errors(int rank)
{
    int buf[4] = { 0 };
    MPI_Datatype t;
    MPI_Status st;
    MPI_Request rq;
    int rc;
    rc = MPI_Send_c(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Send_c count -1: class %d", mt_class(rc));
    rc = MPI_Recv_c(buf, (MPI_Count)INT_MIN - 5, MPI_INT, rank, 0, MPI_COMM_WORLD, &st);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Recv_c count INT_MIN-5: class %d", mt_class(rc));
    rc = MPI_Irecv_c(buf, -3, MPI_INT, rank, 0, MPI_COMM_WORLD, &rq);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Irecv_c count -3: class %d", mt_class(rc));
    rc = MPI_Bcast_c(buf, -2, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Bcast_c count -2: class %d", mt_class(rc));
    rc = MPI_Type_contiguous_c(-1, MPI_INT, &t);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Type_contiguous_c count -1: class %d", mt_class(rc));
    rc = MPI_Type_contiguous_c(BIG, MPI_DATATYPE_NULL, &t);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "Type_contiguous_c of MPI_DATATYPE_NULL: class %d", mt_class(rc));
    MPI_OK(MPI_Type_contiguous(2, MPI_BYTE, &t));   /* not committed */
    rc = MPI_Send_c(buf, BIG, t, rank, 0, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "Send_c of 2^31 uncommitted types: class %d", mt_class(rc));
    MPI_Datatype u;
    MPI_OK(MPI_Type_vector_c(2, BIG, BIG + 8, t, &u));   /* constructors take uncommitted types */
    MPI_OK(MPI_Type_free(&u));
    MPI_OK(MPI_Type_free(&t));
    rc = MPI_Type_vector_c(BIG, 1, 2, MPI_INT, &t);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Type_vector_c of 2^31 blocks: class %d", mt_class(rc));
    rc = MPI_Type_vector_c(2, (MPI_Count)INT_MIN - 1, 2, MPI_INT, &t);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Type_vector_c blocklength INT_MIN-1: class %d", mt_class(rc));
    rc = MPI_Type_contiguous_c((MPI_Count)1 << 62, MPI_DOUBLE, &t);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Type_contiguous_c 2^62 doubles (2^65 bytes): class %d", mt_class(rc));
    rc = STATUS_SET_ELEMENTS(&st, MPI_INT, -1);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Status_set_elements_c -1: class %d", mt_class(rc));
    rc = MPI_Pack_size_c(-4, MPI_INT, MPI_COMM_WORLD, &(MPI_Count){ 0 });
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Pack_size_c -4: class %d", mt_class(rc));
    MPI_Count neg[64];
    MPI_Aint d[64] = { 0 };
    for (int i = 0; i < 64; i++)
        neg[i] = -1;
    rc = MPI_Alltoallv_c(buf, neg, d, MPI_INT, buf, neg, d, MPI_INT, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "Alltoallv_c counts -1: class %d", mt_class(rc));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_rank = rank;
    const char *mode = argc > 1 ? argv[1] : "api";
    if (!strcmp(mode, "p2p")) {
        CHECK(size == 2, "p2p runs on 2 ranks");
        p2p(rank);
    } else if (!strcmp(mode, "coll") || !strcmp(mode, "userop")) {
        CHECK(size == 2, "%s runs on 2 ranks", mode);
        coll(rank, !strcmp(mode, "userop"));
    } else {
        CHECK(size <= 64, "api runs on at most 64 ranks");
        pt2pt_small(rank, size);
        v_colls(rank, size);
        v_colls_far(rank, size);
        array_lengths(rank, size);
        reductions(rank, size);
        rma(rank, size);
        types();
        statuses();
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
        errors(rank);
        buffered(rank, size);
        if (rank == 0)
            printf("api: the _c forms agree with the standard on %d ranks\n", size);
    }
    MPI_Finalize();
    return 0;
}
