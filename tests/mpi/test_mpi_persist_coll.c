/*
 * Persistent collectives (MPI 4.0 MPI_<collective>_init): every one built
 * once, then started again and again with new buffer contents, alone
 * (MPI_Start / MPI_Wait) and all together (MPI_Startall / MPI_Waitall, waited
 * for in a different order), between blocking collectives on the same
 * communicator. Results are checked against values computed here from the
 * definitions of the operations (MPI-4.0 chapter 6); a non-contiguous
 * datatype and MPI_IN_PLACE check that the data is taken at every start, not
 * at init. Then the rules of persistent requests (inactive after a wait, a
 * test of an inactive request, starting an active one) and argument errors.
 */
#include "mpi_test.h"

#define N 4          /* elements per block */
#define MAXP 16
#define NCOLL 22

static int p, me;

static int val(int r, int i, int it)
{
    return (r + 1) * 100 + i + it * 10000;
}

/* Buffers of every collective (sized for MAXP ranks). */
static int ar2_r[N];
static int bc[2 * N], rd_s[N], rd_r[N], ar_s[N], ar_r[N], ip[N], sc_s[N], sc_r[N], ex_s[N], ex_r[N];
static int ga_s[N], ga_r[MAXP * N], gv_s[N], gv_r[MAXP * N], st_s[MAXP * N], st_r[N];
static int sv_s[MAXP * N], sv_r[N], ag_s[N], ag_r[MAXP * N], agv_r[MAXP * N];
static int aa_s[MAXP * N], aa_r[MAXP * N], av_s[MAXP * N], av_r[MAXP * N], aw_s[MAXP * N], aw_r[MAXP * N];
static int rs_s[MAXP * 3], rs_r[3], rsb_s[MAXP * 2], rsb_r[2];
static int na_s[N], na_r[2 * N], nav_r[2 * N], nt_s[2 * N], nt_r[2 * N], ntv_r[2 * N], ntw_r[2 * N];
static int cnt[MAXP], dsp[MAXP], acnt_s[MAXP], acnt_r[MAXP], rscnt[MAXP];
static int wd_s[MAXP], wd_r[MAXP];
static MPI_Datatype wt[MAXP];
static int ncnt[2] = { N, N }, ndsp[2] = { 0, N };
static MPI_Aint nwd[2] = { 0, N * sizeof(int) };
static MPI_Datatype nwt[2] = { MPI_INT, MPI_INT };

static int gv_count(int r) { return r % N + 1; }
static int av_count(int from, int to) { return (from + 2 * to) % 3 + 1; }

/* Fill the inputs of iteration `it`, and poison the outputs. */
static void fill(int it)
{
    for (int i = 0; i < N; i++) {
        bc[2 * i] = me == 0 ? val(0, i, it) : -7;
        bc[2 * i + 1] = -7;
        rd_s[i] = ar_s[i] = sc_s[i] = ex_s[i] = ga_s[i] = gv_s[i] = ag_s[i] = na_s[i] = val(me, i, it);
        ip[i] = val(me, i, it);
        ar2_r[i] = -1;
        rd_r[i] = ar_r[i] = sc_r[i] = ex_r[i] = st_r[i] = sv_r[i] = -1;
    }
    for (int k = 0; k < MAXP * N; k++) {
        st_s[k] = sv_s[k] = val(k / N, k % N, it);
        aa_s[k] = av_s[k] = aw_s[k] = val(me, k, it);
        ga_r[k] = gv_r[k] = ag_r[k] = aa_r[k] = av_r[k] = aw_r[k] = -1;
        agv_r[k] = k / N == me && k % N < gv_count(me) ? val(me, k % N, it) : -1;   /* in place */
    }
    for (int k = 0; k < MAXP * 3; k++)
        rs_s[k] = val(me, k, it);
    for (int k = 0; k < MAXP * 2; k++)
        rsb_s[k] = val(me, k, it);
    rs_r[0] = rs_r[1] = rs_r[2] = rsb_r[0] = rsb_r[1] = -1;
    for (int k = 0; k < 2 * N; k++) {
        nt_s[k] = val(me, k, it);
        na_r[k] = nav_r[k] = nt_r[k] = ntv_r[k] = ntw_r[k] = -1;
    }
}

static int sum_upto(int lo, int hi, int i, int it)   /* sum of val(r, i, it), lo <= r < hi */
{
    int s = 0;
    for (int r = lo; r < hi; r++)
        s += val(r, i, it);
    return s;
}

static void check(int it)
{
    int left = (me - 1 + p) % p, right = (me + 1) % p;
    for (int i = 0; i < N; i++) {
        CHECK(bc[2 * i] == val(0, i, it) && bc[2 * i + 1] == -7, "bcast it %d [%d]: %d %d", it, i, bc[2 * i],
              bc[2 * i + 1]);
        if (me == p - 1)
            CHECK(rd_r[i] == sum_upto(0, p, i, it), "reduce it %d [%d] = %d", it, i, rd_r[i]);
        CHECK(ar_r[i] == val(p - 1, i, it), "allreduce(max) it %d [%d] = %d", it, i, ar_r[i]);
        CHECK(ip[i] == sum_upto(0, p, i, it), "allreduce in place it %d [%d] = %d", it, i, ip[i]);
        CHECK(ar2_r[i] == val(0, i, it), "allreduce(min), built first, it %d [%d] = %d", it, i, ar2_r[i]);
        CHECK(sc_r[i] == sum_upto(0, me + 1, i, it), "scan it %d [%d] = %d", it, i, sc_r[i]);
        if (me > 0)
            CHECK(ex_r[i] == sum_upto(0, me, i, it), "exscan it %d [%d] = %d", it, i, ex_r[i]);
        CHECK(st_r[i] == val(me, i, it), "scatter it %d [%d] = %d", it, i, st_r[i]);
        CHECK(sv_r[i] == (i < gv_count(me) ? val(me, i, it) : -1), "scatterv it %d [%d] = %d", it, i, sv_r[i]);
        CHECK(na_r[i] == val(left, i, it) && na_r[N + i] == val(right, i, it), "neighbor_allgather it %d [%d]",
              it, i);
        CHECK(nav_r[i] == val(left, i, it) && nav_r[N + i] == val(right, i, it),
              "neighbor_allgatherv it %d [%d]", it, i);
        /* block 0 comes from the left neighbour, which sent it its block 1 */
        CHECK(nt_r[i] == val(left, N + i, it) && nt_r[N + i] == val(right, i, it),
              "neighbor_alltoall it %d [%d]: %d %d", it, i, nt_r[i], nt_r[N + i]);
        CHECK(ntv_r[i] == val(left, N + i, it) && ntv_r[N + i] == val(right, i, it),
              "neighbor_alltoallv it %d [%d]", it, i);
        CHECK(ntw_r[i] == val(left, N + i, it) && ntw_r[N + i] == val(right, i, it),
              "neighbor_alltoallw it %d [%d]", it, i);
    }
    for (int r = 0; r < p; r++)
        for (int i = 0; i < N; i++) {
            int k = r * N + i;
            if (me == 0) {
                CHECK(ga_r[k] == val(r, i, it), "gather it %d [%d] = %d", it, k, ga_r[k]);
                CHECK(gv_r[k] == (i < gv_count(r) ? val(r, i, it) : -1), "gatherv it %d [%d] = %d", it, k,
                      gv_r[k]);
            }
            CHECK(ag_r[k] == val(r, i, it), "allgather it %d [%d] = %d", it, k, ag_r[k]);
            CHECK(agv_r[k] == (i < gv_count(r) ? val(r, i, it) : -1), "allgatherv in place it %d [%d] = %d",
                  it, k, agv_r[k]);
            CHECK(aa_r[k] == val(r, me * N + i, it), "alltoall it %d [%d] = %d", it, k, aa_r[k]);
            int want = i < av_count(r, me) ? val(r, me * N + i, it) : -1;
            CHECK(av_r[k] == want, "alltoallv it %d [%d] = %d, expected %d", it, k, av_r[k], want);
            CHECK(aw_r[k] == want, "alltoallw it %d [%d] = %d, expected %d", it, k, aw_r[k], want);
        }
    int off = 0;
    for (int r = 0; r < me; r++)
        off += rscnt[r];
    for (int j = 0; j < rscnt[me]; j++)
        CHECK(rs_r[j] == sum_upto(0, p, off + j, it), "reduce_scatter it %d [%d] = %d", it, j, rs_r[j]);
    for (int j = 0; j < 2; j++)
        CHECK(rsb_r[j] == sum_upto(0, p, 2 * me + j, it), "reduce_scatter_block it %d [%d] = %d", it, j,
              rsb_r[j]);
}

static void init_all(MPI_Comm ring, MPI_Datatype vec, MPI_Request *rq)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info info = MPI_INFO_NULL;
    int k = 0;
    for (int r = 0; r < p; r++) {
        cnt[r] = gv_count(r);
        dsp[r] = r * N;
        acnt_s[r] = av_count(me, r);
        acnt_r[r] = av_count(r, me);
        rscnt[r] = r % 3 + 1;
        wd_s[r] = wd_r[r] = r * N * (int)sizeof(int);
        wt[r] = MPI_INT;
    }
    MPI_OK(MPI_Barrier_init(w, info, &rq[k++]));
    MPI_OK(MPI_Bcast_init(bc, 1, vec, 0, w, info, &rq[k++]));
    MPI_OK(MPI_Reduce_init(rd_s, rd_r, N, MPI_INT, MPI_SUM, p - 1, w, info, &rq[k++]));
    MPI_OK(MPI_Allreduce_init(ar_s, ar_r, N, MPI_INT, MPI_MAX, w, info, &rq[k++]));
    MPI_OK(MPI_Allreduce_init(MPI_IN_PLACE, ip, N, MPI_INT, MPI_SUM, w, info, &rq[k++]));
    MPI_OK(MPI_Scan_init(sc_s, sc_r, N, MPI_INT, MPI_SUM, w, info, &rq[k++]));
    MPI_OK(MPI_Exscan_init(ex_s, ex_r, N, MPI_INT, MPI_SUM, w, info, &rq[k++]));
    MPI_OK(MPI_Gather_init(ga_s, N, MPI_INT, ga_r, N, MPI_INT, 0, w, info, &rq[k++]));
    MPI_OK(MPI_Gatherv_init(gv_s, gv_count(me), MPI_INT, gv_r, cnt, dsp, MPI_INT, 0, w, info, &rq[k++]));
    MPI_OK(MPI_Scatter_init(st_s, N, MPI_INT, st_r, N, MPI_INT, 0, w, info, &rq[k++]));
    MPI_OK(MPI_Scatterv_init(sv_s, cnt, dsp, MPI_INT, sv_r, gv_count(me), MPI_INT, 0, w, info, &rq[k++]));
    MPI_OK(MPI_Allgather_init(ag_s, N, MPI_INT, ag_r, N, MPI_INT, w, info, &rq[k++]));
    MPI_OK(MPI_Allgatherv_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, agv_r, cnt, dsp, MPI_INT, w, info,
                               &rq[k++]));
    MPI_OK(MPI_Alltoall_init(aa_s, N, MPI_INT, aa_r, N, MPI_INT, w, info, &rq[k++]));
    MPI_OK(MPI_Alltoallv_init(av_s, acnt_s, dsp, MPI_INT, av_r, acnt_r, dsp, MPI_INT, w, info, &rq[k++]));
    MPI_OK(MPI_Alltoallw_init(aw_s, acnt_s, wd_s, wt, aw_r, acnt_r, wd_r, wt, w, info, &rq[k++]));
    MPI_OK(MPI_Reduce_scatter_init(rs_s, rs_r, rscnt, MPI_INT, MPI_SUM, w, info, &rq[k++]));
    MPI_OK(MPI_Reduce_scatter_block_init(rsb_s, rsb_r, 2, MPI_INT, MPI_SUM, w, info, &rq[k++]));
    MPI_OK(MPI_Neighbor_allgather_init(na_s, N, MPI_INT, na_r, N, MPI_INT, ring, info, &rq[k++]));
    MPI_OK(MPI_Neighbor_allgatherv_init(na_s, N, MPI_INT, nav_r, ncnt, ndsp, MPI_INT, ring, info, &rq[k++]));
    MPI_OK(MPI_Neighbor_alltoall_init(nt_s, N, MPI_INT, nt_r, N, MPI_INT, ring, info, &rq[k++]));
    MPI_OK(MPI_Neighbor_alltoallv_init(nt_s, ncnt, ndsp, MPI_INT, ntv_r, ncnt, ndsp, MPI_INT, ring, info,
                                       &rq[k++]));
    CHECK(k == NCOLL, "%d collectives", k);
}

/* The rules of persistent requests, and argument errors naming the argument. */
static void check_rules_and_errors(MPI_Request *rq)
{
    int flag = 0;
    MPI_Status stv;
    /* inactive: a test completes at once with the empty status and leaves it */
    MPI_OK(MPI_Test(&rq[3], &flag, &stv));
    CHECK(flag && rq[3] != MPI_REQUEST_NULL && stv.MPI_SOURCE == MPI_ANY_SOURCE && stv.MPI_TAG == MPI_ANY_TAG,
          "MPI_Test of an inactive persistent collective: flag %d source %d", flag, stv.MPI_SOURCE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Start(&rq[0]));
    int rc = MPI_Start(&rq[0]);
    CHECK(mt_class(rc) == MPI_ERR_REQUEST, "starting an active request: class %d", mt_class(rc));
    MPI_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(rq[0] != MPI_REQUEST_NULL, "a persistent request stays after MPI_Wait");

    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Request r = MPI_REQUEST_NULL;
    rc = MPI_Allreduce_init(ar_s, ar_r, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_COUNT && strstr(msg, "MPI_Allreduce_init") && strstr(msg, "count"),
          "negative count: class %d, '%s'", mt_class(rc), msg);
    rc = MPI_Allreduce_init(ar_s, ar_r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, NULL);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_ARG && strstr(msg, "request"), "NULL request: class %d, '%s'", mt_class(rc),
          msg);
    rc = MPI_Bcast_init(bc, N, MPI_INT, p, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    CHECK(mt_class(rc) == MPI_ERR_ROOT, "root out of range: class %d", mt_class(rc));
    rc = MPI_Barrier_init(MPI_COMM_WORLD, (MPI_Info)0x12345, &r);
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_INFO && strstr(msg, "info"), "bad info: class %d, '%s'", mt_class(rc), msg);
    rc = MPI_Gather_init(ga_s, N, MPI_INT, ga_r, N, MPI_INT, 0, MPI_COMM_NULL, MPI_INFO_NULL, &r);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "MPI_COMM_NULL: class %d", mt_class(rc));
    CHECK(r == MPI_REQUEST_NULL, "a failed init leaves request alone");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    mt_rank = me;
    CHECK(p <= MAXP, "at most %d ranks", MAXP);
    int iters = argc > 1 ? atoi(argv[1]) : 6;
    int dims[1] = { p }, periods[1] = { 1 };
    MPI_Comm ring;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_Request rq[NCOLL + 2];
    /* built before any blocking collective, then after one: on one node
     * the blocking allreduce makes the node segment, which the later small
     * allreduce_inits run through (src/coll/allreduce_shmseg_persist.c);
     * the first one runs its message schedule */
    MPI_OK(MPI_Allreduce_init(ar_s, ar2_r, N, MPI_INT, MPI_MIN, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[NCOLL + 1]));
    int one = 1, all = 0;
    MPI_OK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    init_all(ring, vec, rq);
    /* the request holds the datatype: freeing it here is allowed */
    MPI_OK(MPI_Type_free(&vec));
    MPI_OK(MPI_Neighbor_alltoallw_init(nt_s, ncnt, nwd, nwt, ntw_r, ncnt, nwd, nwt, ring, MPI_INFO_NULL,
                                       &rq[NCOLL]));
    int nreq = NCOLL + 2;
    for (int it = 0; it < iters; it++) {
        fill(it);
        if (it % 2 == 0) {
            for (int k = 0; k < nreq; k++) {
                MPI_OK(MPI_Start(&rq[k]));
                MPI_OK(MPI_Wait(&rq[k], MPI_STATUS_IGNORE));
            }
        } else {
            MPI_OK(MPI_Startall(nreq, rq));
            /* a blocking collective while they are all active */
            int one = 1, all = 0;
            MPI_OK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            CHECK(all == p, "allreduce among active persistent collectives: %d", all);
            for (int k = nreq - 1; k >= 0; k--)
                MPI_OK(MPI_Wait(&rq[k], MPI_STATUS_IGNORE));
        }
        for (int k = 0; k < nreq; k++)
            CHECK(rq[k] != MPI_REQUEST_NULL, "request %d freed by a completion", k);
        check(it);
    }
    check_rules_and_errors(rq);
    for (int k = 0; k < nreq; k++) {
        MPI_OK(MPI_Request_free(&rq[k]));
        CHECK(rq[k] == MPI_REQUEST_NULL, "MPI_Request_free sets MPI_REQUEST_NULL");
    }
    MPI_Comm_free(&ring);
    if (me == 0)
        printf("persistent collectives: %d collectives x %d starts on %d ranks: ok\n", nreq, iters, p);
    MPI_Finalize();
    return 0;
}
