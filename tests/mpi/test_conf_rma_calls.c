/*
 * Every one-sided call rdmach exports, by the letter of MPI-4.0 chapter 12:
 *   attributes   MPI_WIN_BASE / SIZE / DISP_UNIT / CREATE_FLAVOR / MODEL of
 *                each flavor (§12.2.6; dynamic: MPI_BOTTOM, 0, 1), the group
 *   info         MPI_Win_get_info returns the hints in effect (§12.2.7):
 *                the defaults, the creation's, MPI_Win_set_info's
 *   MPI_PROC_NULL  every operation on it succeeds and moves nothing; the
 *                request forms return a completed request (§12.3)
 *   zero counts  move nothing, change nothing; nor do datatypes of size 0
 *                (contiguous(0, MPI_INT)): with nothing moved the origin,
 *                result and target datatypes need not be made of the same
 *                type (MPI_INT against MPI_DOUBLE; MPICH's rma/badrma) and
 *                the buffers may be NULL; with data they must
 *   requests     Rput/Rget/Raccumulate/Rget_accumulate: after MPI_Wait the
 *                origin (and result) buffers are done (§12.3.5)
 *   lock_all     + MPI_Win_sync + MPI_Win_flush_all / flush_local_all
 *   PSCW         MPI_Win_test returns false until every origin completed,
 *                then true, and closes the exposure epoch (§12.5.2)
 *   errors       MPI_ERR_RMA_SYNC for every operation and synchronisation
 *                call outside its epoch, MPI_ERR_RMA_RANGE for every
 *                operation outside the window, MPI_ERR_WIN for MPI_WIN_NULL
 *                in every call that takes a window.
 */
#include "mpi_test.h"

static int me, np, to, from;

#define WN 64                    /* ints in the test windows */

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(mt_class(rc) == cls, "%s: class %d, expected %d", what, mt_class(rc), cls);
}

/* ---- attributes ---- */

static void check_attrs(MPI_Win win, const char *name, void *base, MPI_Aint size, int du, int flavor)
{
    void *v;
    int flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    CHECK(flag && v == base, "%s: MPI_WIN_BASE %p, expected %p", name, v, base);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag));
    CHECK(flag && *(MPI_Aint *)v == size, "%s: MPI_WIN_SIZE %ld, expected %ld", name, (long)*(MPI_Aint *)v,
          (long)size);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
    CHECK(flag && *(int *)v == du, "%s: MPI_WIN_DISP_UNIT %d, expected %d", name, *(int *)v, du);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    CHECK(flag && *(int *)v == flavor, "%s: MPI_WIN_CREATE_FLAVOR %d, expected %d", name, *(int *)v, flavor);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
    CHECK(flag && (*(int *)v == MPI_WIN_UNIFIED || *(int *)v == MPI_WIN_SEPARATE), "%s: MPI_WIN_MODEL %d", name,
          *(int *)v);
    MPI_Group g, wg;
    int cmp = -1;
    MPI_OK(MPI_Win_get_group(win, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT || !strcmp(name, "allocate_shared"), "%s: the window's group is not world's (%d)", name,
          cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
}

static void attributes(void)
{
    int buf[WN];
    MPI_Win win;
    MPI_OK(MPI_Win_create(buf, sizeof(buf), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, "create", buf, sizeof(buf), 4, MPI_WIN_FLAVOR_CREATE);
    MPI_OK(MPI_Win_free(&win));
    int *p;
    MPI_OK(MPI_Win_allocate(24 * (MPI_Aint)me + 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win));
    check_attrs(win, "allocate", p, 24 * (MPI_Aint)me + 8, 8, MPI_WIN_FLAVOR_ALLOCATE);
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, "create_dynamic", MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
    MPI_OK(MPI_Win_free(&win));
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Win_allocate_shared(16, 2, MPI_INFO_NULL, node, &p, &win));
    check_attrs(win, "allocate_shared", p, 16, 2, MPI_WIN_FLAVOR_SHARED);
    MPI_OK(MPI_Win_free(&win));
    MPI_Comm_free(&node);
}

/* ---- info ---- */

static void expect_info(MPI_Win win, const char *key, const char *want)
{
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_OK(MPI_Win_get_info(win, &used));
    MPI_OK(MPI_Info_get(used, key, MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && strcmp(v, want) == 0, "info %s: '%s' (flag %d), expected '%s'", key, flag ? v : "", flag, want);
    MPI_Info_free(&used);
}

static void info(void)
{
    int buf[WN];
    MPI_Win win;
    MPI_OK(MPI_Win_create(buf, sizeof(buf), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    expect_info(win, "no_locks", "false");
    expect_info(win, "accumulate_ordering", "rar,raw,war,waw");
    expect_info(win, "accumulate_ops", "same_op_no_op");
    expect_info(win, "same_size", "false");
    expect_info(win, "same_disp_unit", "false");
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "accumulate_ordering", "waw,rar");
    MPI_Info_set(in, "same_size", "true");
    MPI_OK(MPI_Win_set_info(win, in));
    expect_info(win, "accumulate_ordering", "rar,waw");
    expect_info(win, "same_size", "true");
    MPI_Info_set(in, "accumulate_ordering", "rar,bogus");    /* not a value the standard defines: ignored */
    MPI_OK(MPI_Win_set_info(win, in));
    expect_info(win, "accumulate_ordering", "rar,waw");
    MPI_Info_free(&in);
    MPI_OK(MPI_Win_free(&win));

    MPI_Info_create(&in);
    MPI_Info_set(in, "no_locks", "true");
    MPI_Info_set(in, "accumulate_ordering", "none");
    MPI_Info_set(in, "accumulate_ops", "same_op");
    MPI_Info_set(in, "same_disp_unit", "true");
    int *p;
    MPI_OK(MPI_Win_allocate(sizeof(buf), 4, in, MPI_COMM_WORLD, &p, &win));
    MPI_Info_free(&in);
    expect_info(win, "no_locks", "true");
    expect_info(win, "accumulate_ordering", "none");
    expect_info(win, "accumulate_ops", "same_op");
    expect_info(win, "same_disp_unit", "true");
    expect_info(win, "same_size", "false");
    /* no_locks: fence still works */
    MPI_OK(MPI_Win_fence(0, win));
    int one = 1;
    MPI_OK(MPI_Put(&one, 1, MPI_INT, to, me, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(p[from] == 1, "put under a no_locks window: %d", p[from]);
    MPI_OK(MPI_Win_free(&win));
}

/* ---- MPI_PROC_NULL, zero counts, requests, lock_all ---- */

/* Operations that move no bytes, a count 0 or a datatype of size 0 on each
 * side, with datatypes that differ (empty signatures match), NULL buffers
 * where nothing is moved; then a non-empty mismatch, still MPI_ERR_TYPE.
 * In a passive epoch on `to`. */
static void zero_bytes(MPI_Win win, int *o, int *r)
{
    MPI_Datatype none, one, ty[4];
    MPI_OK(MPI_Type_contiguous(0, MPI_INT, &none));
    MPI_OK(MPI_Type_commit(&none));
    MPI_OK(MPI_Type_contiguous(1, MPI_INT, &one));
    MPI_OK(MPI_Type_commit(&one));
    ty[0] = none, ty[1] = one, ty[2] = MPI_INT, ty[3] = MPI_DOUBLE;
    /* (origin, result, target) counts: each side's count is 0 or its type is `none` */
    static const int cnt[][6] = { { 0, 2, 0, 3, 0, 1 }, { 1, 0, 0, 3, 0, 2 }, { 0, 2, 1, 0, 0, 3 },
                                  { 0, 3, 0, 2, 2, 0 }, { 2, 0, 1, 0, 1, 0 }, { 1, 0, 0, 1, 2, 0 } };
    for (size_t k = 0; k < sizeof(cnt) / sizeof(cnt[0]); k++) {
        int oc = cnt[k][0], rc_ = cnt[k][2], tc = cnt[k][4];
        MPI_Datatype ot = ty[cnt[k][1]], rt = ty[cnt[k][3]], tt = ty[cnt[k][5]];
        MPI_OK(MPI_Put(o, oc, ot, to, 0, tc, tt, win));
        MPI_OK(MPI_Get(r, oc, ot, to, 0, tc, tt, win));
        MPI_OK(MPI_Accumulate(o, oc, ot, to, 0, tc, tt, MPI_SUM, win));
        MPI_OK(MPI_Get_accumulate(o, oc, ot, r, rc_, rt, to, 0, tc, tt, MPI_SUM, win));
        MPI_OK(MPI_Put(NULL, oc, ot, to, 0, tc, tt, win));
        MPI_OK(MPI_Get(NULL, oc, ot, to, 0, tc, tt, win));
        MPI_OK(MPI_Accumulate(NULL, oc, ot, to, 0, tc, tt, MPI_SUM, win));
        MPI_OK(MPI_Get_accumulate(NULL, oc, ot, NULL, rc_, rt, to, 0, tc, tt, MPI_SUM, win));
    }
    /* with data the datatypes must agree */
    expect_class(MPI_Accumulate(o, 1, MPI_INT, to, 0, 1, MPI_FLOAT, MPI_SUM, win), MPI_ERR_TYPE,
                 "Accumulate of 1 MPI_INT to 1 MPI_FLOAT");
    expect_class(MPI_Get_accumulate(o, 1, MPI_INT, r, 1, MPI_FLOAT, to, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_TYPE,
                 "Get_accumulate with 1 MPI_FLOAT as the result of 1 MPI_INT");
    expect_class(MPI_Put(o, 1, MPI_INT, to, 0, 1, MPI_DOUBLE, win), MPI_ERR_TYPE, "Put of 4 bytes into 8");
    MPI_OK(MPI_Type_free(&none));
    MPI_OK(MPI_Type_free(&one));
}

static void proc_null_and_zero(MPI_Win win, int *wmem)
{
    int o[4] = { 1, 2, 3, 4 }, r[4] = { -1, -1, -1, -1 }, c = 0;
    MPI_Request rq[4];
    for (int i = 0; i < WN; i++)
        wmem[i] = 100 + i;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Put(o, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win));
    MPI_OK(MPI_Get(r, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win));
    MPI_OK(MPI_Accumulate(o, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Get_accumulate(o, 4, MPI_INT, r, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Fetch_and_op(o, r, MPI_INT, MPI_PROC_NULL, 0, MPI_SUM, win));
    MPI_OK(MPI_Compare_and_swap(o, &c, r, MPI_INT, MPI_PROC_NULL, 0, win));
    MPI_OK(MPI_Rput(o, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win, &rq[0]));
    MPI_OK(MPI_Rget(r, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win, &rq[1]));
    MPI_OK(MPI_Raccumulate(o, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win, &rq[2]));
    MPI_OK(MPI_Rget_accumulate(o, 4, MPI_INT, r, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, MPI_SUM, win, &rq[3]));
    int flag = 0;
    MPI_OK(MPI_Testall(4, rq, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "requests on MPI_PROC_NULL are not complete at once");
    for (int i = 0; i < 4; i++)
        CHECK(r[i] == -1, "an operation on MPI_PROC_NULL wrote result %d: %d", i, r[i]);
    /* zero counts, also with displacements past the window (nothing is accessed) */
    MPI_OK(MPI_Put(o, 0, MPI_INT, to, 0, 0, MPI_INT, win));
    MPI_OK(MPI_Get(r, 0, MPI_INT, to, 0, 0, MPI_INT, win));
    MPI_OK(MPI_Accumulate(o, 0, MPI_INT, to, 0, 0, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Get_accumulate(o, 0, MPI_INT, r, 0, MPI_INT, to, 0, 0, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Rput(o, 0, MPI_INT, to, 0, 0, MPI_INT, win, &rq[0]));
    MPI_OK(MPI_Rget(r, 0, MPI_INT, to, 0, 0, MPI_INT, win, &rq[1]));
    MPI_OK(MPI_Raccumulate(o, 0, MPI_INT, to, 0, 0, MPI_INT, MPI_SUM, win, &rq[2]));
    MPI_OK(MPI_Rget_accumulate(o, 0, MPI_INT, r, 0, MPI_INT, to, 0, 0, MPI_INT, MPI_SUM, win, &rq[3]));
    MPI_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    zero_bytes(win, o, r);
    MPI_OK(MPI_Win_flush_all(win));
    for (int i = 0; i < 4; i++)
        CHECK(r[i] == -1, "a zero-count operation wrote result %d: %d", i, r[i]);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < WN; i++)
        CHECK(wmem[i] == 100 + i, "MPI_PROC_NULL or zero-count operations changed window int %d: %d", i, wmem[i]);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void requests(MPI_Win win, int *wmem)
{
    /* ints [8, 16) of `to`'s window; only this rank accesses them */
    int base = 8, o[8], r[8];
    for (int i = 0; i < WN; i++)
        wmem[i] = 0;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win));
    for (int i = 0; i < 8; i++)
        o[i] = 10 * me + i;
    MPI_Request rq;
    MPI_OK(MPI_Rput(o, 8, MPI_INT, to, base, 8, MPI_INT, win, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rq == MPI_REQUEST_NULL, "MPI_Wait did not free the Rput request");
    for (int i = 0; i < 8; i++)
        o[i] = -7;                /* the origin buffer is ours again after the wait */
    MPI_OK(MPI_Win_flush(to, win));
    memset(r, 0, sizeof(r));
    MPI_OK(MPI_Rget(r, 8, MPI_INT, to, base, 8, MPI_INT, win, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++)
        CHECK(r[i] == 10 * me + i, "Rget after Rput: int %d is %d", i, r[i]);
    for (int i = 0; i < 8; i++)
        o[i] = i + 1;
    MPI_OK(MPI_Raccumulate(o, 8, MPI_INT, to, base, 8, MPI_INT, MPI_SUM, win, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_Datatype vec;               /* every other int of 8: a derived type in the request forms */
    MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    memset(r, 0, sizeof(r));
    int flag = 0;
    MPI_OK(MPI_Rget_accumulate(o, 4, MPI_INT, r, 4, MPI_INT, to, base, 1, vec, MPI_SUM, win, &rq));
    while (!flag)
        MPI_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
    for (int k = 0; k < 4; k++)
        CHECK(r[k] == 10 * me + 2 * k + 2 * k + 1, "Rget_accumulate result %d is %d", k, r[k]);
    MPI_OK(MPI_Win_unlock(to, win));
    MPI_Type_free(&vec);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 8; i++) {
        int expect = 10 * from + i + i + 1 + (i % 2 == 0 ? i / 2 + 1 : 0);
        CHECK(wmem[base + i] == expect, "after the request forms: int %d is %d, expected %d", i, wmem[base + i], expect);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void lock_all_sync(MPI_Win win, int *wmem)
{
    for (int i = 0; i < WN; i++)
        wmem[i] = -1;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    int v = 1000 + me;
    for (int t = 0; t < np; t++)
        MPI_OK(MPI_Put(&v, 1, MPI_INT, t, me % WN, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush_local_all(win));
    v = -5;                       /* reusable after flush_local_all */
    MPI_OK(MPI_Win_flush_all(win));
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_sync(win));
    for (int r = 0; r < np && np <= WN; r++)
        CHECK(wmem[r] == 1000 + r, "lock_all + flush_all: int %d is %d", r, wmem[r]);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Rank 0 exposes its window to every other rank; MPI_Win_test. */
static void pscw_test(MPI_Win win, int *wmem)
{
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < WN; i++)
        wmem[i] = 0;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        int zero = 0;
        if (np > 1)
            MPI_Group_excl(wg, 1, &zero, &g);
        else
            MPI_Group_incl(wg, 1, &zero, &g);
        MPI_OK(MPI_Win_post(g, 0, win));
        if (np == 1) {
            MPI_OK(MPI_Win_start(g, 0, win));
            int v = 7;
            MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
            MPI_OK(MPI_Win_complete(win));
        }
        int flag = 0, polls = 0;
        while (!flag) {
            MPI_OK(MPI_Win_test(win, &flag));
            polls++;
        }
        for (int r = 1; r < np && r < WN; r++)
            CHECK(wmem[r] == 7 * r, "after MPI_Win_test: int %d is %d", r, wmem[r]);
        if (np == 1)
            CHECK(wmem[0] == 7, "after MPI_Win_test: my own put %d", wmem[0]);
        expect_class(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC, "MPI_Win_test after the epoch ended");
        expect_class(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "MPI_Win_wait after MPI_Win_test ended the epoch");
    } else {
        int zero = 0;
        MPI_Group_incl(wg, 1, &zero, &g);
        MPI_OK(MPI_Win_start(g, 0, win));
        int v = 7 * me;
        MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, me % WN, 1, MPI_INT, win));
        expect_class(MPI_Win_start(g, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_start inside an access epoch");
        MPI_Request rq;
        expect_class(MPI_Rput(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC,
                     "MPI_Rput in a PSCW epoch");
        MPI_OK(MPI_Win_complete(win));
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* ---- errors ---- */

static void sync_errors(MPI_Win win)
{
    int o = 1, r = 0, c = 0;
    MPI_Request rq;
    expect_class(MPI_Get(&r, 1, MPI_INT, to, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC, "MPI_Get outside an epoch");
    expect_class(MPI_Accumulate(&o, 1, MPI_INT, to, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_SYNC,
                 "MPI_Accumulate outside an epoch");
    expect_class(MPI_Get_accumulate(&o, 1, MPI_INT, &r, 1, MPI_INT, to, 0, 1, MPI_INT, MPI_SUM, win),
                 MPI_ERR_RMA_SYNC, "MPI_Get_accumulate outside an epoch");
    expect_class(MPI_Fetch_and_op(&o, &r, MPI_INT, to, 0, MPI_SUM, win), MPI_ERR_RMA_SYNC,
                 "MPI_Fetch_and_op outside an epoch");
    expect_class(MPI_Compare_and_swap(&o, &c, &r, MPI_INT, to, 0, win), MPI_ERR_RMA_SYNC,
                 "MPI_Compare_and_swap outside an epoch");
    expect_class(MPI_Rput(&o, 1, MPI_INT, to, 0, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC, "MPI_Rput outside");
    expect_class(MPI_Rget(&r, 1, MPI_INT, to, 0, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC, "MPI_Rget outside");
    expect_class(MPI_Raccumulate(&o, 1, MPI_INT, to, 0, 1, MPI_INT, MPI_SUM, win, &rq), MPI_ERR_RMA_SYNC,
                 "MPI_Raccumulate outside an epoch");
    expect_class(MPI_Rget_accumulate(&o, 1, MPI_INT, &r, 1, MPI_INT, to, 0, 1, MPI_INT, MPI_SUM, win, &rq),
                 MPI_ERR_RMA_SYNC, "MPI_Rget_accumulate outside an epoch");
    expect_class(MPI_Win_flush_local(to, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_local outside");
    expect_class(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_flush_local_all outside");
    int flag;
    expect_class(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC, "MPI_Win_test without MPI_Win_post");
    /* request-based operations need a passive-target epoch: not a fence */
    MPI_OK(MPI_Win_fence(0, win));
    expect_class(MPI_Rget(&r, 1, MPI_INT, to, 0, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC, "MPI_Rget in a fence");
    MPI_OK(MPI_Win_fence(0, win));
    /* a lock on one target gives no access to another */
    if (np > 2) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
        expect_class(MPI_Fetch_and_op(&o, &r, MPI_INT, from, 0, MPI_SUM, win), MPI_ERR_RMA_SYNC,
                     "MPI_Fetch_and_op on a target not locked");
        expect_class(MPI_Win_flush(from, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush of a target not locked");
        MPI_OK(MPI_Win_unlock(to, win));
    }
    MPI_Group g;
    MPI_Win_get_group(win, &g);
    MPI_OK(MPI_Win_post(g, 0, win));
    expect_class(MPI_Win_post(g, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_post twice");
    MPI_OK(MPI_Win_start(g, 0, win));
    MPI_OK(MPI_Win_complete(win));
    MPI_OK(MPI_Win_wait(win));
    MPI_Group_free(&g);
}

static void range_errors(MPI_Win win)
{
    int o[2] = { 1, 1 }, r[2] = { 0, 0 }, c = 0;
    MPI_Request rq;
    MPI_OK(MPI_Win_lock_all(0, win));
    expect_class(MPI_Fetch_and_op(o, r, MPI_INT, to, WN, MPI_SUM, win), MPI_ERR_RMA_RANGE,
                 "MPI_Fetch_and_op just past the window");
    expect_class(MPI_Compare_and_swap(o, &c, r, MPI_INT, to, -1, win), MPI_ERR_RMA_RANGE,
                 "MPI_Compare_and_swap before the window");
    expect_class(MPI_Get_accumulate(o, 2, MPI_INT, r, 2, MPI_INT, to, WN - 1, 2, MPI_INT, MPI_SUM, win),
                 MPI_ERR_RMA_RANGE, "MPI_Get_accumulate across the end");
    expect_class(MPI_Rput(o, 2, MPI_INT, to, WN - 1, 2, MPI_INT, win, &rq), MPI_ERR_RMA_RANGE,
                 "MPI_Rput across the end");
    expect_class(MPI_Rget_accumulate(o, 1, MPI_INT, r, 1, MPI_INT, to, WN, 1, MPI_INT, MPI_NO_OP, win, &rq),
                 MPI_ERR_RMA_RANGE, "MPI_Rget_accumulate past the end");
    MPI_OK(MPI_Win_unlock_all(win));
}

/* Every call that takes a window, on MPI_WIN_NULL. */
static void win_errors(void)
{
    MPI_Win n = MPI_WIN_NULL;
    int i = 0, flag;
    void *v;
    MPI_Aint a;
    MPI_Request rq;
    MPI_Group g;
    MPI_Info inf;
    MPI_Errhandler eh;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    struct { int rc; const char *fn; } calls[] = {
        { MPI_Put(&i, 1, MPI_INT, 0, 0, 1, MPI_INT, n), "MPI_Put" },
        { MPI_Get(&i, 1, MPI_INT, 0, 0, 1, MPI_INT, n), "MPI_Get" },
        { MPI_Accumulate(&i, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, n), "MPI_Accumulate" },
        { MPI_Get_accumulate(&i, 1, MPI_INT, &i, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, n), "MPI_Get_accumulate" },
        { MPI_Fetch_and_op(&i, &i, MPI_INT, 0, 0, MPI_SUM, n), "MPI_Fetch_and_op" },
        { MPI_Compare_and_swap(&i, &i, &i, MPI_INT, 0, 0, n), "MPI_Compare_and_swap" },
        { MPI_Rput(&i, 1, MPI_INT, 0, 0, 1, MPI_INT, n, &rq), "MPI_Rput" },
        { MPI_Rget(&i, 1, MPI_INT, 0, 0, 1, MPI_INT, n, &rq), "MPI_Rget" },
        { MPI_Raccumulate(&i, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, n, &rq), "MPI_Raccumulate" },
        { MPI_Rget_accumulate(&i, 1, MPI_INT, &i, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, n, &rq),
          "MPI_Rget_accumulate" },
        { MPI_Win_fence(0, n), "MPI_Win_fence" },
        { MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, n), "MPI_Win_lock" },
        { MPI_Win_unlock(0, n), "MPI_Win_unlock" },
        { MPI_Win_lock_all(0, n), "MPI_Win_lock_all" },
        { MPI_Win_unlock_all(n), "MPI_Win_unlock_all" },
        { MPI_Win_flush(0, n), "MPI_Win_flush" },
        { MPI_Win_flush_local(0, n), "MPI_Win_flush_local" },
        { MPI_Win_flush_all(n), "MPI_Win_flush_all" },
        { MPI_Win_flush_local_all(n), "MPI_Win_flush_local_all" },
        { MPI_Win_sync(n), "MPI_Win_sync" },
        { MPI_Win_post(g, 0, n), "MPI_Win_post" },
        { MPI_Win_start(g, 0, n), "MPI_Win_start" },
        { MPI_Win_complete(n), "MPI_Win_complete" },
        { MPI_Win_wait(n), "MPI_Win_wait" },
        { MPI_Win_test(n, &flag), "MPI_Win_test" },
        { MPI_Win_free(&n), "MPI_Win_free" },
        { MPI_Win_shared_query(n, 0, &a, &i, &v), "MPI_Win_shared_query" },
        { MPI_Win_attach(n, &i, 4), "MPI_Win_attach" },
        { MPI_Win_detach(n, &i), "MPI_Win_detach" },
        { MPI_Win_get_attr(n, MPI_WIN_BASE, &v, &flag), "MPI_Win_get_attr" },
        { MPI_Win_set_attr(n, MPI_WIN_BASE, &i), "MPI_Win_set_attr" },
        { MPI_Win_delete_attr(n, MPI_WIN_BASE), "MPI_Win_delete_attr" },
        { MPI_Win_set_name(n, "x"), "MPI_Win_set_name" },
        { MPI_Win_set_info(n, MPI_INFO_NULL), "MPI_Win_set_info" },
        { MPI_Win_get_info(n, &inf), "MPI_Win_get_info" },
        { MPI_Win_get_group(n, &g), "MPI_Win_get_group" },
        { MPI_Win_set_errhandler(n, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler" },
        { MPI_Win_get_errhandler(n, &eh), "MPI_Win_get_errhandler" },
        { MPI_Win_call_errhandler(n, MPI_ERR_OTHER), "MPI_Win_call_errhandler" },
    };
    for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
        expect_class(calls[k].rc, MPI_ERR_WIN, calls[k].fn);
    MPI_Group_free(&g);
    /* MPI_WIN_NULL's name can be asked, as in MPICH (tests/mpi/test_conf_comm.c) */
    CHECK(MPI_Win_get_name(MPI_WIN_NULL, name, &i) == MPI_SUCCESS && strcmp(name, "MPI_WIN_NULL") == 0,
          "MPI_Win_get_name(MPI_WIN_NULL) gave \"%s\"", name);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = me;
    to = (me + 1) % np;
    from = (me + np - 1) % np;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    attributes();
    info();
    int *wmem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    proc_null_and_zero(win, wmem);
    requests(win, wmem);
    lock_all_sync(win, wmem);
    pscw_test(win, wmem);
    sync_errors(win);
    range_errors(win);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_free(&win));
    win_errors();
    if (me == 0)
        printf("conf_rma_calls: %d ranks: attributes, info, MPI_PROC_NULL, zero counts, requests, lock_all, "
               "PSCW test, error classes: ok\n", np);
    MPI_Finalize();
    return 0;
}
