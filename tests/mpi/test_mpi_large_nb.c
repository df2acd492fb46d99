/*
 * The large-count forms of MPI_Isendrecv(_replace) and of the persistent
 * collectives (MPI_<collective>_init_c, generated from mpi_api.txt by
 * src/binding/gen_large.py), on MPI_COMM_WORLD and, for the v-collectives,
 * on an intercommunicator, whose per-peer arrays have the remote group's
 * length and are read at MPI_ROOT only (MPI-4.1 6.2.2). Values are computed
 * from the definitions; each persistent request is started twice. Then the
 * errors: a negative count, an array entry an int cannot hold. Last the
 * non-blocking and persistent alltoallv/w _c forms with displacements beyond
 * INT_MAX (a sparse buffer: only the blocks' pages are touched), on world
 * and on the intercommunicator, with the blocking Gatherv_c there; and the
 * _c forms of the communicator's and session's attached buffers (MPI 4.1).
 */
#include <sys/mman.h>
#include "mpi_test.h"

#define MAXP 16
#define BIG ((MPI_Count)1 << 31)

static int me, p;

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(mt_class(rc) == cls, "%s: error class %d, expected %d", what, mt_class(rc), cls);
}

static void twice(MPI_Request *r)
{
    for (int i = 0; i < 2; i++) {
        MPI_OK(MPI_Start(r));
        MPI_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
    }
    MPI_OK(MPI_Request_free(r));
}

static void isendrecv(void)
{
    int right = (me + 1) % p, left = (me + p - 1) % p, out[3] = { me, 2 * me, 3 * me }, in[3] = { -1, -1, -1 };
    MPI_Request r;
    MPI_Status st;
    MPI_OK(MPI_Isendrecv_c(out, 3, MPI_INT, right, 5, in, 3, MPI_INT, left, 5, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_Count n = -1;
    MPI_OK(MPI_Get_count_c(&st, MPI_INT, &n));
    CHECK(in[0] == left && in[2] == 3 * left && n == 3 && st.MPI_SOURCE == left,
          "Isendrecv_c: %d %d from %d, count %lld", in[0], in[2], st.MPI_SOURCE, (long long)n);
    MPI_OK(MPI_Isendrecv_replace_c(out, 2, MPI_INT, right, 6, left, 6, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(out[0] == left && out[1] == 2 * left && out[2] == 3 * me, "Isendrecv_replace_c: %d %d %d", out[0],
          out[1], out[2]);
    expect_class(MPI_Isendrecv_c(out, -1, MPI_INT, right, 5, in, 3, MPI_INT, left, 5, MPI_COMM_WORLD, &r),
                 MPI_ERR_COUNT, "Isendrecv_c sendcount -1");
    expect_class(MPI_Isendrecv_replace_c(out, -2, MPI_INT, right, 5, left, 5, MPI_COMM_WORLD, &r), MPI_ERR_COUNT,
                 "Isendrecv_replace_c count -2");
}

static void persistent(void)
{
    MPI_Request r;
    MPI_Comm w = MPI_COMM_WORLD;
    int v[2] = { me + 1, 10 * (me + 1) }, s[2] = { 0, 0 }, b[2] = { -1, -1 }, all[2 * MAXP];
    int tri = p * (p + 1) / 2;
    MPI_OK(MPI_Allreduce_init_c(v, s, 2, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(s[0] == tri && s[1] == 10 * tri, "Allreduce_init_c: %d %d", s[0], s[1]);
    s[0] = -1;
    MPI_OK(MPI_Reduce_init_c(v, s, 2, MPI_INT, MPI_MAX, p - 1, w, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(me != p - 1 || (s[0] == p && s[1] == 10 * p), "Reduce_init_c: %d %d", s[0], s[1]);
    if (me == 0)
        b[0] = 77, b[1] = 78;
    MPI_OK(MPI_Bcast_init_c(b, 2, MPI_INT, 0, w, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(b[0] == 77 && b[1] == 78, "Bcast_init_c: %d %d", b[0], b[1]);
    MPI_OK(MPI_Scan_init_c(v, s, 1, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(s[0] == (me + 1) * (me + 2) / 2, "Scan_init_c: %d", s[0]);
    MPI_OK(MPI_Exscan_init_c(v, s, 1, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(me == 0 || s[0] == me * (me + 1) / 2, "Exscan_init_c: %d", s[0]);
    /* v-collectives: rank i's block of one int at displacement p - 1 - i */
    MPI_Count cnt[MAXP], junk[1] = { -BIG * 3 };
    MPI_Aint dsp[MAXP], sd[MAXP];
    MPI_Datatype ty[MAXP];
    int sb[MAXP];
    for (int i = 0; i < p; i++) {
        cnt[i] = 1;
        dsp[i] = p - 1 - i;
        sd[i] = i;
        sb[i] = 100 * me + i;
        ty[i] = MPI_INT;
        all[i] = -1;
    }
    MPI_OK(MPI_Allgatherv_init_c(&v[0], 1, MPI_INT, all, cnt, dsp, MPI_INT, w, MPI_INFO_NULL, &r));
    twice(&r);
    for (int i = 0; i < p; i++)
        CHECK(all[p - 1 - i] == i + 1, "Allgatherv_init_c: all[%d] = %d", p - 1 - i, all[p - 1 - i]);
    int root = p / 2;
    MPI_OK(MPI_Gatherv_init_c(&v[1], 1, MPI_INT, all, me == root ? cnt : junk, me == root ? dsp : (MPI_Aint *)junk,
                              MPI_INT, root, w, MPI_INFO_NULL, &r));
    twice(&r);
    for (int i = 0; me == root && i < p; i++)
        CHECK(all[p - 1 - i] == 10 * (i + 1), "Gatherv_init_c: all[%d] = %d", p - 1 - i, all[p - 1 - i]);
    int got = -1;
    MPI_OK(MPI_Scatterv_init_c(sb, me == root ? cnt : junk, me == root ? sd : (MPI_Aint *)junk, MPI_INT, &got, 1,
                               MPI_INT, root, w, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(got == 100 * root + me, "Scatterv_init_c: %d", got);
    MPI_OK(MPI_Alltoallv_init_c(sb, cnt, sd, MPI_INT, all, cnt, dsp, MPI_INT, w, MPI_INFO_NULL, &r));
    twice(&r);
    for (int i = 0; i < p; i++)
        CHECK(all[p - 1 - i] == 100 * i + me, "Alltoallv_init_c: from %d got %d", i, all[p - 1 - i]);
    MPI_Aint bsd[MAXP], bdsp[MAXP];
    for (int i = 0; i < p; i++) {
        bsd[i] = sd[i] * (MPI_Aint)sizeof(int);
        bdsp[i] = dsp[i] * (MPI_Aint)sizeof(int);
        all[i] = -1;
    }
    MPI_OK(MPI_Alltoallw_init_c(sb, cnt, bsd, ty, all, cnt, bdsp, ty, w, MPI_INFO_NULL, &r));
    twice(&r);
    for (int i = 0; i < p; i++)
        CHECK(all[p - 1 - i] == 100 * i + me, "Alltoallw_init_c: from %d got %d", i, all[p - 1 - i]);
    /* Reduce_scatter: rank i gets element i of the sum of sb, 100 * tri' + p * i */
    MPI_OK(MPI_Reduce_scatter_init_c(sb, &got, cnt, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(got == 100 * (p * (p - 1) / 2) + p * me, "Reduce_scatter_init_c: %d", got);
    MPI_OK(MPI_Reduce_scatter_block_init_c(sb, &got, 1, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(got == 100 * (p * (p - 1) / 2) + p * me, "Reduce_scatter_block_init_c: %d", got);
    MPI_OK(MPI_Alltoall_init_c(sb, 1, MPI_INT, all, 1, MPI_INT, w, MPI_INFO_NULL, &r));
    twice(&r);
    for (int i = 0; i < p; i++)
        CHECK(all[i] == 100 * i + me, "Alltoall_init_c: from %d got %d", i, all[i]);
    MPI_OK(MPI_Allgather_init_c(&v[0], 1, MPI_INT, all, 1, MPI_INT, w, MPI_INFO_NULL, &r));
    twice(&r);
    for (int i = 0; i < p; i++)
        CHECK(all[i] == i + 1, "Allgather_init_c: all[%d] = %d", i, all[i]);
    MPI_OK(MPI_Gather_init_c(&v[0], 1, MPI_INT, all, 1, MPI_INT, 0, w, MPI_INFO_NULL, &r));
    twice(&r);
    for (int i = 0; me == 0 && i < p; i++)
        CHECK(all[i] == i + 1, "Gather_init_c: all[%d] = %d", i, all[i]);
    MPI_OK(MPI_Scatter_init_c(sb, 1, MPI_INT, &got, 1, MPI_INT, 0, w, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(got == me, "Scatter_init_c: %d", got);
    /* neighbourhood: a periodic ring, neighbours (left, right) */
    MPI_Comm ring;
    int dims[1] = { p }, per[1] = { 1 }, nb[4] = { -1, -1, -1, -1 }, left = (me + p - 1) % p, right = (me + 1) % p;
    MPI_OK(MPI_Cart_create(w, 1, dims, per, 0, &ring));
    MPI_OK(MPI_Neighbor_allgather_init_c(&v[0], 1, MPI_INT, nb, 1, MPI_INT, ring, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(nb[0] == left + 1 && nb[1] == right + 1, "Neighbor_allgather_init_c: %d %d", nb[0], nb[1]);
    MPI_Count two[2] = { 1, 1 };
    MPI_Aint rev[2] = { 1, 0 }, fwd[2] = { 0, 1 }, brev[2] = { sizeof(int), 0 }, bfwd[2] = { 0, sizeof(int) };
    MPI_Datatype ity[2] = { MPI_INT, MPI_INT };
    MPI_OK(MPI_Neighbor_allgatherv_init_c(&v[1], 1, MPI_INT, nb, two, rev, MPI_INT, ring, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(nb[1] == 10 * (left + 1) && nb[0] == 10 * (right + 1), "Neighbor_allgatherv_init_c: %d %d", nb[0], nb[1]);
    int ns[2] = { 1000 + me, 2000 + me };   /* [0] to the left, [1] to the right */
    MPI_OK(MPI_Neighbor_alltoall_init_c(ns, 1, MPI_INT, nb, 1, MPI_INT, ring, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(nb[0] == 2000 + left && nb[1] == 1000 + right, "Neighbor_alltoall_init_c: %d %d", nb[0], nb[1]);
    MPI_OK(MPI_Neighbor_alltoallv_init_c(ns, two, fwd, MPI_INT, nb, two, rev, MPI_INT, ring, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(nb[1] == 2000 + left && nb[0] == 1000 + right, "Neighbor_alltoallv_init_c: %d %d", nb[0], nb[1]);
    MPI_OK(MPI_Neighbor_alltoallw_init_c(ns, two, bfwd, ity, nb, two, brev, ity, ring, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(nb[1] == 2000 + left && nb[0] == 1000 + right, "Neighbor_alltoallw_init_c: %d %d", nb[0], nb[1]);
    MPI_OK(MPI_Comm_free(&ring));
    /* errors */
    expect_class(MPI_Bcast_init_c(b, -1, MPI_INT, 0, w, MPI_INFO_NULL, &r), MPI_ERR_COUNT, "Bcast_init_c count -1");
    cnt[p - 1] = -1;
    expect_class(MPI_Alltoallv_init_c(sb, cnt, sd, MPI_INT, all, cnt, dsp, MPI_INT, w, MPI_INFO_NULL, &r),
                 MPI_ERR_COUNT, "Alltoallv_init_c sendcounts[p-1] = -1");
    cnt[p - 1] = -BIG - 5;
    expect_class(MPI_Ialltoallv_c(sb, cnt, sd, MPI_INT, all, cnt, dsp, MPI_INT, w, &r), MPI_ERR_COUNT,
                 "Ialltoallv_c sendcounts[p-1] = -2^31 - 5");
    cnt[p - 1] = 1;

    /* 2^62 extents of an int overflow an address (the blocks' displacements
     * beyond an int alone are taken: test_mpi_large_nbv) */
    dsp[0] = (MPI_Aint)1 << 62;
    expect_class(MPI_Allgatherv_init_c(&v[0], 1, MPI_INT, all, cnt, dsp, MPI_INT, w, MPI_INFO_NULL, &r),
                 MPI_ERR_ARG, "Allgatherv_init_c displs[0] = 2^62");
}

/* The v-collectives' _c forms on an intercommunicator of the even against
 * the odd ranks: arrays of the remote group's size, at MPI_ROOT only. */
static void inter(void)
{
    int color = me % 2, lrank = me / 2, nA = (p + 1) / 2, nB = p / 2;
    int rsize = color ? nA : nB;
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 79, &ic));
    MPI_Count cnt[MAXP], junk[1] = { -BIG * 3 };
    MPI_Aint dsp[MAXP], sd[MAXP];
    int sb[MAXP], all[MAXP];
    for (int i = 0; i < rsize; i++) {
        cnt[i] = 1;
        dsp[i] = rsize - 1 - i;
        sd[i] = i;
        sb[i] = 100 * me + i;
        all[i] = -1;
    }
    MPI_Request r;
    MPI_OK(MPI_Ialltoallv_c(sb, cnt, sd, MPI_INT, all, cnt, dsp, MPI_INT, ic, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < rsize; i++)   /* remote rank i is world rank 2i + (1 - color) */
        CHECK(all[rsize - 1 - i] == 100 * (2 * i + 1 - color) + lrank, "inter Ialltoallv_c: from %d got %d", i,
              all[rsize - 1 - i]);
    MPI_OK(MPI_Alltoallv_init_c(sb, cnt, sd, MPI_INT, all, cnt, dsp, MPI_INT, ic, MPI_INFO_NULL, &r));
    for (int i = 0; i < rsize; i++)
        all[i] = -1;
    twice(&r);
    for (int i = 0; i < rsize; i++)
        CHECK(all[rsize - 1 - i] == 100 * (2 * i + 1 - color) + lrank, "inter Alltoallv_init_c: from %d got %d", i,
              all[rsize - 1 - i]);
    MPI_OK(MPI_Iallgatherv_c(&me, 1, MPI_INT, all, cnt, dsp, MPI_INT, ic, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < rsize; i++)
        CHECK(all[rsize - 1 - i] == 2 * i + 1 - color, "inter Iallgatherv_c: all[%d] = %d", rsize - 1 - i,
              all[rsize - 1 - i]);
    /* Igatherv_c to the odd group's rank 0; the others' arrays are junk */
    int root = color == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_OK(MPI_Igatherv_c(&me, 1, MPI_INT, all, root == MPI_ROOT ? cnt : junk,
                          root == MPI_ROOT ? dsp : (MPI_Aint *)junk, MPI_INT, root, ic, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; root == MPI_ROOT && i < rsize; i++)
        CHECK(all[rsize - 1 - i] == 2 * i, "inter Igatherv_c: all[%d] = %d", rsize - 1 - i, all[rsize - 1 - i]);
    int got = -1;
    MPI_OK(MPI_Scatterv_init_c(sb, root == MPI_ROOT ? cnt : junk, root == MPI_ROOT ? sd : (MPI_Aint *)junk,
                               MPI_INT, &got, 1, MPI_INT, root, ic, MPI_INFO_NULL, &r));
    twice(&r);
    CHECK(color == 1 || got == 100 * 1 + lrank, "inter Scatterv_init_c: %d", got);
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
}

/* Peer r's 16-byte block lands 2^31 + 64 r bytes into buf. */
#define FAR(r) (BIG + 64 * (MPI_Aint)(r))

static unsigned char blockbyte(int from, int to, int j)
{
    return (unsigned char)(1 + from * 16 + to * 4 + j);
}

/* Received: the block world rank from[r] sent to `to`, at FAR(r), r < n. */
static void check_far(const char *what, unsigned char *buf, int n, const int *from, int to)
{
    for (int r = 0; r < n; r++) {
        for (int j = 0; j < 16; j++)
            CHECK(buf[FAR(r) + j] == blockbyte(from[r], to, j), "%s: byte %d of block %d is %u", what, j, r,
                  buf[FAR(r) + j]);
        CHECK(buf[FAR(r) - 1] == 0 && buf[FAR(r) + 16] == 0, "%s: wrote around block %d", what, r);
        memset(buf + FAR(r), 0, 16);
    }
}

/* The alltoall family on comm (n peers, peer r is world rank from[r], this
 * process is `to` for them): each form once, the persistent one started
 * twice. */
static void far_alltoall(MPI_Comm comm, int n, const int *from, int to, unsigned char *buf)
{
    unsigned char mine[16 * MAXP];
    MPI_Count counts[MAXP];
    MPI_Aint far[MAXP], near[MAXP];
    MPI_Datatype bytes[MAXP];
    for (int r = 0; r < n; r++) {
        counts[r] = 16;
        far[r] = FAR(r);
        near[r] = 16 * r;
        bytes[r] = MPI_BYTE;
        for (int j = 0; j < 16; j++)
            mine[16 * r + j] = blockbyte(me, r, j);   /* what this process sends to peer r */
    }
    MPI_Request rq;
    MPI_OK(MPI_Ialltoallv_c(mine, counts, near, MPI_BYTE, buf, counts, far, MPI_BYTE, comm, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    check_far("Ialltoallv_c", buf, n, from, to);
    MPI_OK(MPI_Ialltoallw_c(mine, counts, near, bytes, buf, counts, far, bytes, comm, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    check_far("Ialltoallw_c", buf, n, from, to);
    MPI_Request pr[2];
    MPI_OK(MPI_Alltoallv_init_c(mine, counts, near, MPI_BYTE, buf, counts, far, MPI_BYTE, comm, MPI_INFO_NULL,
                                &pr[0]));
    MPI_OK(MPI_Alltoallw_init_c(mine, counts, near, bytes, buf, counts, far, bytes, comm, MPI_INFO_NULL, &pr[1]));
    for (int i = 0; i < 4; i++) {   /* each started twice */
        MPI_OK(MPI_Start(&pr[i % 2]));
        MPI_OK(MPI_Wait(&pr[i % 2], MPI_STATUS_IGNORE));
        check_far(i % 2 ? "Alltoallw_init_c" : "Alltoallv_init_c", buf, n, from, to);
    }
    MPI_OK(MPI_Request_free(&pr[0]));
    MPI_OK(MPI_Request_free(&pr[1]));
    /* only this process's arrays are beyond an int when it is rank 0: the
     * others run the int form against it */
    MPI_Aint *rd = me == 0 ? far : near;
    MPI_OK(MPI_Ialltoallv_c(mine, counts, near, MPI_BYTE, buf, counts, rd, MPI_BYTE, comm, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (me == 0) {
        check_far("Ialltoallv_c, only rank 0 far", buf, n, from, to);
    } else {
        for (int r = 0; r < n; r++)
            for (int j = 0; j < 16; j++)
                CHECK(buf[16 * r + j] == blockbyte(from[r], to, j), "Ialltoallv_c near: byte %d of block %d", j, r);
        memset(buf, 0, 16 * (size_t)n);
    }
}

static void far(void)
{
    const size_t len = (size_t)FAR(MAXP) + 64;
    unsigned char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(buf != MAP_FAILED, "no address space for %zu bytes", len);
    int from[MAXP];
    for (int r = 0; r < p; r++)
        from[r] = r;
    far_alltoall(MPI_COMM_WORLD, p, from, me, buf);
    if (p > 1) {
        int color = me % 2, nA = (p + 1) / 2, nB = p / 2, rsize = color ? nA : nB;
        MPI_Comm local, ic;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));
        MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 80, &ic));
        for (int r = 0; r < rsize; r++)
            from[r] = 2 * r + 1 - color;
        far_alltoall(ic, rsize, from, me / 2, buf);
        /* blocking Gatherv_c to the even group's rank 0: arrays of the
         * remote size, read at MPI_ROOT; beyond an int, then within */
        int root = color == 0 ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_Count counts[MAXP];
        MPI_Aint displs[MAXP];
        unsigned char mine[16];
        for (int j = 0; j < 16; j++)
            mine[j] = blockbyte(me, 0, j);
        for (int near = 0; near < 2; near++) {
            for (int r = 0; r < rsize; r++) {
                counts[r] = 16;
                displs[r] = near ? 16 * r : FAR(r);
            }
            MPI_OK(MPI_Gatherv_c(mine, 16, MPI_BYTE, buf, counts, displs, MPI_BYTE, root, ic));
            for (int r = 0; root == MPI_ROOT && r < rsize; r++)
                for (int j = 0; j < 16; j++)
                    CHECK(buf[displs[r] + j] == blockbyte(from[r], 0, j), "inter Gatherv_c (%s): byte %d of "
                          "block %d", near ? "near" : "far", j, r);
        }
        MPI_OK(MPI_Comm_free(&ic));
        MPI_OK(MPI_Comm_free(&local));
    }
    munmap(buf, len);
}

/* The _c forms of MPI-4.1's attached buffers: a communicator's and a
 * session's buffer of 2^31 + 4096 bytes (sparse), which only the _c detach
 * can report. */
static void attached(void)
{
    const MPI_Count len = BIG + 4096;
    unsigned char *b = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                            -1, 0);
    CHECK(b != MAP_FAILED, "no address space for %lld bytes", (long long)len);
    void *addr = NULL;
    MPI_Count got = 0;
    int isize = 0, v = 50 + me, r = -1;
    MPI_OK(MPI_Comm_attach_buffer_c(MPI_COMM_WORLD, b, len));
    MPI_OK(MPI_Bsend(&v, 1, MPI_INT, (me + 1) % p, 4, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(&r, 1, MPI_INT, (me + p - 1) % p, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(r == 50 + (me + p - 1) % p, "Bsend through Comm_attach_buffer_c's buffer: %d", r);
    expect_class(MPI_Comm_detach_buffer(MPI_COMM_WORLD, &addr, &isize), MPI_ERR_VALUE_TOO_LARGE,
                 "Comm_detach_buffer of 2^31 + 4096 bytes");
    MPI_OK(MPI_Comm_detach_buffer_c(MPI_COMM_WORLD, &addr, &got));
    CHECK(addr == b && got == len, "Comm_detach_buffer_c: %p %lld", addr, (long long)got);
    MPI_Session ses;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses));
    MPI_OK(MPI_Session_attach_buffer_c(ses, b, len));
    addr = NULL;
    got = 0;
    MPI_OK(MPI_Session_detach_buffer_c(ses, &addr, &got));
    CHECK(addr == b && got == len, "Session_detach_buffer_c: %p %lld", addr, (long long)got);
    MPI_OK(MPI_Session_finalize(&ses));
    expect_class(MPI_Comm_attach_buffer_c(MPI_COMM_NULL, b, 64), MPI_ERR_COMM, "Comm_attach_buffer_c(COMM_NULL)");
    expect_class(MPI_Comm_detach_buffer_c(MPI_COMM_NULL, &addr, &got), MPI_ERR_COMM,
                 "Comm_detach_buffer_c(COMM_NULL)");
    expect_class(MPI_Session_attach_buffer_c(MPI_SESSION_NULL, b, 64), MPI_ERR_SESSION,
                 "Session_attach_buffer_c(SESSION_NULL)");
    expect_class(MPI_Session_detach_buffer_c(MPI_SESSION_NULL, &addr, &got), MPI_ERR_SESSION,
                 "Session_detach_buffer_c(SESSION_NULL)");
    munmap(b, (size_t)len);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &p);
    CHECK(p <= MAXP, "at most %d ranks", MAXP);
    isendrecv();
    persistent();
    if (p > 1)
        inter();
    far();
    attached();
    MPI_Finalize();
    if (me == 0)
        printf("large_nb: %d ranks ok\n", p);
    return 0;
}
