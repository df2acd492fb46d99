/*
 * MPI_Op_free and MPI_Type_free right after a call starts an operation
 * that uses the op or the datatype, the operation completed later: the
 * free only marks the object for deallocation and pending operations
 * complete normally (MPI-4.1 6.9.5 for ops, 5.1.9 for datatypes).
 *
 * The non-blocking collectives on an intracommunicator (world, 4 ranks:
 * the reductions and scans, bcast, the gather/scatter and all-to-all
 * families with their v and w forms, neighbourhood allgather/alltoall on a
 * ring) and on an intercommunicator (2 + 2: the reductions, bcast, the
 * all-to-all family), persistent collectives (freed before their first
 * start, started twice), non-blocking, persistent (standard, synchronous,
 * buffered) and partitioned point-to-point. Reductions use a user op (a sum) on a contiguous type
 * of 2 doubles, both freed; data movement a type of 2 doubles at stride 2
 * (packed and unpacked: the receive side needs it at completion). Run
 * with RDMACH_INTER_RS_CHUNK=7: the intercommunicator reduce_scatter of
 * more than 7 doubles goes in a chain whose chunks bind the op and type
 * once the groups have agreed on the cut (src/mpi/intercoll_nb.c); group
 * A frees both before group B has started, so A's chunks are built after
 * the free. Every double of every result is checked against val().
 */
#include <string.h>
#include "mpi_test.h"

#define K 2          /* doubles per element of both types */
#define NE 8         /* elements per rank's vector, at most */
#define ND (NE * K)  /* doubles */

static int me, np, run;

static double val(int from, int d)
{
    return (double)(run * 10000 + (from + 1) * 100 + d);
}

static void usum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int size;
    MPI_Type_size(*dt, &size);   /* the freed type's handle still names it */
    size_t n = (size_t)*len * (size_t)size / sizeof(double);
    for (size_t i = 0; i < n; i++)
        ((double *)inout)[i] += ((const double *)in)[i];
}

/* Position of double d in a buffer of the stride-2 type (extent 2K). */
static int vat(int d)
{
    return d / K * 2 * K + d % K * 2;
}

static MPI_Datatype vec_type(void)
{
    MPI_Datatype v, t;
    MPI_OK(MPI_Type_vector(K, 1, 2, MPI_DOUBLE, &v));
    MPI_OK(MPI_Type_create_resized(v, 0, 2 * K * (MPI_Aint)sizeof(double), &t));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

static MPI_Datatype red_type(MPI_Op *op)
{
    MPI_Datatype t;
    MPI_OK(MPI_Type_contiguous(K, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Op_create(usum, 1, op));
    return t;
}

/* The freed objects' handles are MPI_*_NULL: the operation alone holds them. */
static void drop(MPI_Datatype *t, MPI_Op *op)
{
    MPI_OK(MPI_Type_free(t));
    if (op)
        MPI_OK(MPI_Op_free(op));
}

static void fill(double *b, int nd, int from, int off, int vec)
{
    for (int i = 0; i < 4 * ND * 4; i++)
        b[i] = -1.0;
    for (int d = 0; d < nd; d++)
        b[vec ? vat(d) : d] = val(from, off + d);
}

/* nd doubles of rb (vec: at stride 2) against the sum over `from` ranks
 * (nf of them) of their doubles [off, off + nd). */
static void expect(const char *what, const double *rb, int nd, const int *from, int nf, int off, int vec)
{
    for (int d = 0; d < nd; d++) {
        double w = 0;
        for (int r = 0; r < nf; r++)
            w += val(from[r], off + d);
        CHECK(rb[vec ? vat(d) : d] == w, "run %d, %s: double %d is %.0f, expected %.0f", run, what, d,
              rb[vec ? vat(d) : d], w);
    }
    for (int d = 0; vec && d < nd; d++)
        CHECK(rb[vat(d) + 1] == -1.0, "run %d, %s: the gap after double %d was written", run, what, d);
}

static double sb[4 * ND * 4], rb[4 * ND * 4];

/* The all-to-all family over c with 3 elements of the stride-2 type per
 * block: block r of the result comes from world rank from[r] (nf of them,
 * the remote group on an intercommunicator); an alltoall block is the
 * sender's doubles from aoff. The v and w forms with the same layout. */
enum { M_ALLGATHER, M_ALLGATHERV, M_ALLTOALL, M_ALLTOALLV, M_ALLTOALLW, M_MAX };
static void move_all(MPI_Comm c, const int *from, int nf, int aoff, const char *sfx)
{
    static const char *const names[M_MAX] = { "MPI_Iallgather", "MPI_Iallgatherv", "MPI_Ialltoall",
                                             "MPI_Ialltoallv", "MPI_Ialltoallw" };
    int n = 3, one[1], cnt[4], dsp[4], bdsp[4];
    char what[64];
    for (int m = 0; m < M_MAX; m++, run++) {
        MPI_Datatype t = vec_type(), ts[4];
        MPI_Request req;
        for (int r = 0; r < nf; r++)
            cnt[r] = n, dsp[r] = r * n, bdsp[r] = r * n * 2 * K * (int)sizeof(double), ts[r] = t;
        int a2a = m >= M_ALLTOALL;
        fill(sb, (a2a ? nf : 1) * n * K, me, 0, 1), fill(rb, 0, 0, 0, 1);
        switch (m) {
        case M_ALLGATHER: MPI_OK(MPI_Iallgather(sb, n, t, rb, n, t, c, &req)); break;
        case M_ALLGATHERV: MPI_OK(MPI_Iallgatherv(sb, n, t, rb, cnt, dsp, t, c, &req)); break;
        case M_ALLTOALL: MPI_OK(MPI_Ialltoall(sb, n, t, rb, n, t, c, &req)); break;
        case M_ALLTOALLV: MPI_OK(MPI_Ialltoallv(sb, cnt, dsp, t, rb, cnt, dsp, t, c, &req)); break;
        default: MPI_OK(MPI_Ialltoallw(sb, cnt, bdsp, ts, rb, cnt, bdsp, ts, c, &req)); break;
        }
        drop(&t, NULL);
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        snprintf(what, sizeof(what), "%s%s", names[m], sfx);
        for (int r = 0; r < nf; r++)
            one[0] = from[r], expect(what, rb + r * n * 2 * K, n * K, one, 1, a2a ? aoff : 0, 1);
    }
}

/* Igather(v) to world rank 3, then Iscatter(v) from 0, on world. */
static void rooted(void)
{
    int n = 3, one[1], cnt[4], dsp[4];
    for (int m = 0; m < 4; m++, run++) {
        static const char *const names[4] = { "MPI_Igather", "MPI_Igatherv", "MPI_Iscatter", "MPI_Iscatterv" };
        MPI_Datatype t = vec_type();
        MPI_Request req;
        for (int r = 0; r < np; r++)
            cnt[r] = n, dsp[r] = r * n;
        int scatter = m >= 2;
        fill(sb, (scatter ? np : 1) * n * K, scatter ? 0 : me, 0, 1), fill(rb, 0, 0, 0, 1);
        switch (m) {
        case 0: MPI_OK(MPI_Igather(sb, n, t, rb, n, t, 3, MPI_COMM_WORLD, &req)); break;
        case 1: MPI_OK(MPI_Igatherv(sb, n, t, rb, cnt, dsp, t, 3, MPI_COMM_WORLD, &req)); break;
        case 2: MPI_OK(MPI_Iscatter(sb, n, t, rb, n, t, 0, MPI_COMM_WORLD, &req)); break;
        default: MPI_OK(MPI_Iscatterv(sb, cnt, dsp, t, rb, n, t, 0, MPI_COMM_WORLD, &req)); break;
        }
        drop(&t, NULL);
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int r = 0; !scatter && me == 3 && r < np; r++)
            one[0] = r, expect(names[m], rb + r * n * 2 * K, n * K, one, 1, 0, 1);
        one[0] = 0;
        if (scatter)
            expect(names[m], rb, n * K, one, 1, me * n * K, 1);
    }
}

/* Ineighbor_allgather and Ineighbor_alltoall on a periodic ring. */
static void neighbor(void)
{
    int n = 3, dims[1] = { np }, periods[1] = { 1 }, left = (me + np - 1) % np, right = (me + 1) % np;
    int nb[2] = { left, right }, one[1];
    MPI_Comm ring;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    for (int a2a = 0; a2a < 2; a2a++, run++) {
        MPI_Datatype t = vec_type();
        MPI_Request req;
        fill(sb, (a2a ? 2 : 1) * n * K, me, 0, 1), fill(rb, 0, 0, 0, 1);
        if (a2a)
            MPI_OK(MPI_Ineighbor_alltoall(sb, n, t, rb, n, t, ring, &req));
        else
            MPI_OK(MPI_Ineighbor_allgather(sb, n, t, rb, n, t, ring, &req));
        drop(&t, NULL);
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        /* from the left neighbour its block 1 (to its right), from the right its block 0 */
        for (int r = 0; r < 2; r++)
            one[0] = nb[r], expect(a2a ? "MPI_Ineighbor_alltoall" : "MPI_Ineighbor_allgather",
                                   rb + r * n * 2 * K, n * K, one, 1, a2a ? (1 - r) * n * K : 0, 1);
    }
    MPI_OK(MPI_Comm_free(&ring));
}

/* ---- intracommunicator (world) ---- */

static void intra(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request req;
    MPI_Datatype t;
    MPI_Op op;
    int all[4] = { 0, 1, 2, 3 }, n = 3;

    t = red_type(&op), fill(sb, n * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
    MPI_OK(MPI_Iallreduce(sb, rb, n, t, op, w, &req));
    drop(&t, &op);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect("MPI_Iallreduce", rb, n * K, all, np, 0, 0);
    run++;

    t = red_type(&op), fill(sb, n * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
    MPI_OK(MPI_Ireduce(sb, rb, n, t, op, 1, w, &req));
    drop(&t, &op);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (me == 1)
        expect("MPI_Ireduce", rb, n * K, all, np, 0, 0);
    run++;

    t = red_type(&op), fill(sb, np * 2 * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
    MPI_OK(MPI_Ireduce_scatter_block(sb, rb, 2, t, op, w, &req));
    drop(&t, &op);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect("MPI_Ireduce_scatter_block", rb, 2 * K, all, np, me * 2 * K, 0);
    run++;

    static const int rc[4] = { 1, 2, 1, 3 };
    int roff = 0;
    for (int i = 0; i < me; i++)
        roff += rc[i] * K;
    t = red_type(&op), fill(sb, 7 * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
    MPI_OK(MPI_Ireduce_scatter(sb, rb, rc, t, op, w, &req));
    drop(&t, &op);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect("MPI_Ireduce_scatter", rb, rc[me] * K, all, np, roff, 0);
    run++;

    t = red_type(&op), fill(sb, n * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
    MPI_OK(MPI_Iscan(sb, rb, n, t, op, w, &req));
    drop(&t, &op);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect("MPI_Iscan", rb, n * K, all, me + 1, 0, 0);
    run++;

    t = red_type(&op), fill(sb, n * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
    MPI_OK(MPI_Iexscan(sb, rb, n, t, op, w, &req));
    drop(&t, &op);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (me > 0)
        expect("MPI_Iexscan", rb, n * K, all, me, 0, 0);
    run++;

    /* persistent: freed before the first start */
    t = red_type(&op);
    MPI_OK(MPI_Allreduce_init(sb, rb, n, t, op, w, MPI_INFO_NULL, &req));
    drop(&t, &op);
    for (int s = 0; s < 2; s++, run++) {
        fill(sb, n * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        expect("MPI_Allreduce_init", rb, n * K, all, np, 0, 0);
    }
    MPI_OK(MPI_Request_free(&req));

    t = red_type(&op);
    MPI_OK(MPI_Reduce_scatter_block_init(sb, rb, 2, t, op, w, MPI_INFO_NULL, &req));
    drop(&t, &op);
    for (int s = 0; s < 2; s++, run++) {
        fill(sb, np * 2 * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        expect("MPI_Reduce_scatter_block_init", rb, 2 * K, all, np, me * 2 * K, 0);
    }
    MPI_OK(MPI_Request_free(&req));

    /* data movement with the stride-2 type */
    int one[1];
    t = vec_type(), fill(sb, n * K, 2, 0, 1);
    if (me != 2)
        fill(sb, 0, 0, 0, 1);
    MPI_OK(MPI_Ibcast(sb, n, t, 2, w, &req));
    drop(&t, NULL);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    one[0] = 2;
    expect("MPI_Ibcast", sb, n * K, one, 1, 0, 1);
    run++;

    move_all(w, all, np, me * n * K, "");

    rooted();
    neighbor();

    t = vec_type();
    MPI_OK(MPI_Allgather_init(sb, n, t, rb, n, t, w, MPI_INFO_NULL, &req));
    drop(&t, NULL);
    for (int s = 0; s < 2; s++, run++) {
        fill(sb, n * K, me, 0, 1), fill(rb, 0, 0, 0, 1);
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int r = 0; r < np; r++)
            one[0] = r, expect("MPI_Allgather_init", rb + r * n * 2 * K, n * K, one, 1, 0, 1);
    }
    MPI_OK(MPI_Request_free(&req));
}

/* ---- point-to-point: a ring; the receive is posted and its type freed
 * before the sender starts (a world barrier between) ---- */

static void p2p(void)
{
    int right = (me + 1) % np, left = (me + np - 1) % np, n = 3, one[1] = { left };
    MPI_Request r[2];
    MPI_Datatype t = vec_type(), u = vec_type();
    fill(sb, n * K, me, 0, 1), fill(rb, 0, 0, 0, 1);
    MPI_OK(MPI_Irecv(rb, n, t, left, 5, MPI_COMM_WORLD, &r[0]));
    drop(&t, NULL);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Isend(sb, n, u, right, 5, MPI_COMM_WORLD, &r[1]));
    drop(&u, NULL);
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    expect("MPI_Irecv/MPI_Isend", rb, n * K, one, 1, 0, 1);
    run++;

    t = vec_type(), u = vec_type();
    fill(sb, n * K, me, 0, 1), fill(rb, 0, 0, 0, 1);
    MPI_OK(MPI_Irecv(rb, n, t, left, 6, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Issend(sb, n, u, right, 6, MPI_COMM_WORLD, &r[1]));
    drop(&t, NULL), drop(&u, NULL);
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    expect("MPI_Irecv/MPI_Issend", rb, n * K, one, 1, 0, 1);
    run++;

    /* persistent: standard, synchronous and buffered sends */
    static char bsbuf[4096 + MPI_BSEND_OVERHEAD];
    MPI_OK(MPI_Buffer_attach(bsbuf, sizeof(bsbuf)));
    for (int mode = 0; mode < 3; mode++) {
        static const char *const names[3] = { "MPI_Recv_init/MPI_Send_init", "MPI_Recv_init/MPI_Ssend_init",
                                              "MPI_Recv_init/MPI_Bsend_init" };
        t = vec_type(), u = vec_type();
        MPI_OK(MPI_Recv_init(rb, n, t, left, 7, MPI_COMM_WORLD, &r[0]));
        if (mode == 0)
            MPI_OK(MPI_Send_init(sb, n, u, right, 7, MPI_COMM_WORLD, &r[1]));
        else if (mode == 1)
            MPI_OK(MPI_Ssend_init(sb, n, u, right, 7, MPI_COMM_WORLD, &r[1]));
        else
            MPI_OK(MPI_Bsend_init(sb, n, u, right, 7, MPI_COMM_WORLD, &r[1]));
        drop(&t, NULL), drop(&u, NULL);
        for (int s = 0; s < 2; s++, run++) {
            fill(sb, n * K, me, 0, 1), fill(rb, 0, 0, 0, 1);
            MPI_OK(MPI_Startall(2, r));
            MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
            expect(names[mode], rb, n * K, one, 1, 0, 1);
        }
        MPI_OK(MPI_Request_free(&r[0]));
        MPI_OK(MPI_Request_free(&r[1]));
    }
    void *bp;
    int bsize;
    MPI_OK(MPI_Buffer_detach(&bp, &bsize));

    /* partitioned: 3 partitions of 1 element */
    t = vec_type(), u = vec_type();
    MPI_OK(MPI_Precv_init(rb, 3, 1, t, left, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Psend_init(sb, 3, 1, u, right, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]));
    drop(&t, NULL), drop(&u, NULL);
    for (int s = 0; s < 2; s++, run++) {
        fill(sb, n * K, me, 0, 1), fill(rb, 0, 0, 0, 1);
        MPI_OK(MPI_Startall(2, r));
        MPI_OK(MPI_Pready_range(0, 2, r[1]));
        MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        expect("MPI_Precv_init/MPI_Psend_init", rb, n * K, one, 1, 0, 1);
    }
    MPI_OK(MPI_Request_free(&r[0]));
    MPI_OK(MPI_Request_free(&r[1]));
}

/* ---- intercommunicator: A = world 0, 2; B = world 1, 3 ---- */

static void inter(void)
{
    int grp = me % 2, lr = me / 2, others[2] = { !grp, !grp + 2 }, n = 3, one[1];
    MPI_Comm local, ic;
    MPI_Request req;
    MPI_Datatype t;
    MPI_Op op;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, grp, me, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, !grp, 9, &ic));

    t = red_type(&op), fill(sb, n * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
    MPI_OK(MPI_Iallreduce(sb, rb, n, t, op, ic, &req));
    drop(&t, &op);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect("MPI_Iallreduce (inter)", rb, n * K, others, 2, 0, 0);
    run++;

    t = red_type(&op), fill(sb, n * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
    MPI_OK(MPI_Ireduce(sb, rb, n, t, op, grp ? 0 : lr == 0 ? MPI_ROOT : MPI_PROC_NULL, ic, &req));
    drop(&t, &op);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (me == 0)
        expect("MPI_Ireduce (inter)", rb, n * K, others, 2, 0, 0);
    run++;

    /* 2 elements each: 8 doubles, beyond RDMACH_INTER_RS_CHUNK=7, a chain.
     * A frees op and type before B starts: A's chunks are built after. */
    for (int chained = 0; chained < 2; chained++) {
        int e = chained ? 2 : 1;
        if (grp)
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        t = red_type(&op), fill(sb, 2 * e * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
        MPI_OK(MPI_Ireduce_scatter_block(sb, rb, e, t, op, ic, &req));
        MPI_Op stale = op;
        drop(&t, &op);
        if (!grp) {   /* a second free through a copy of the handle is refused, and takes no reference */
            MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
            CHECK(mt_class(MPI_Op_free(&stale)) == MPI_ERR_OP, "a second MPI_Op_free of an op accepted");
            MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
        }
        if (!grp)
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        expect(chained ? "MPI_Ireduce_scatter_block (inter, chained)" : "MPI_Ireduce_scatter_block (inter)", rb,
               e * K, others, 2, lr * e * K, 0);
        run++;

        int rc[2] = { e, e + 1 };
        if (grp)
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        t = red_type(&op), fill(sb, (2 * e + 1) * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
        MPI_OK(MPI_Ireduce_scatter(sb, rb, rc, t, op, ic, &req));
        drop(&t, &op);
        if (!grp)
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        expect(chained ? "MPI_Ireduce_scatter (inter, chained)" : "MPI_Ireduce_scatter (inter)", rb,
               rc[lr] * K, others, 2, lr * e * K, 0);
        run++;
    }

    t = red_type(&op);
    MPI_OK(MPI_Reduce_scatter_block_init(sb, rb, 2, t, op, ic, MPI_INFO_NULL, &req));
    drop(&t, &op);
    for (int s = 0; s < 2; s++, run++) {
        fill(sb, 2 * 2 * K, me, 0, 0), fill(rb, 0, 0, 0, 0);
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        expect("MPI_Reduce_scatter_block_init (inter, chained)", rb, 2 * K, others, 2, lr * 2 * K, 0);
    }
    MPI_OK(MPI_Request_free(&req));

    t = vec_type(), fill(sb, n * K, 1, 0, 1);
    if (me != 1)
        fill(sb, 0, 0, 0, 1);
    MPI_OK(MPI_Ibcast(sb, n, t, grp ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic, &req));
    drop(&t, NULL);
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    one[0] = 1;
    if (!grp)
        expect("MPI_Ibcast (inter)", sb, n * K, one, 1, 0, 1);
    run++;

    move_all(ic, others, 2, lr * n * K, " (inter)");

    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &np);
    CHECK(np == 4, "4 ranks");
    intra();
    p2p();
    inter();
    if (me == 0)
        printf("operations outliving MPI_Op_free / MPI_Type_free: %d runs ok\n", run);
    MPI_Finalize();
    return 0;
}
