/*
 * One-sided error cases, with MPI_ERRORS_RETURN on the window: each gives
 * its class and a message naming the call and the cause, and leaves the
 * window usable. Also the window's attributes, group, name, a user window
 * error handler, and MPI_Win_allocate_shared's direct load/store.
 *
 * "fatal": an out-of-range MPI_Put under the default MPI_ERRORS_ARE_FATAL
 * must end the job (checked by ctest through expect_fail.sh).
 */
#include "mpi_test.h"

static int rank, size;
static int handler_calls, handler_class;
static MPI_Win handler_win;

static void win_handler(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_win = *win;
    handler_class = mt_class(*code);
}

static void expect(int rc, int cls, const char *what, const char *word)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, s, &len);
    CHECK(rc != MPI_SUCCESS && mt_class(rc) == cls, "%s: got %d (class %d: %s), expected class %d", what, rc,
          mt_class(rc), s, cls);
    CHECK(!word || strstr(s, word), "%s: message '%s' does not mention '%s'", what, s, word);
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    mt_rank = rank;
    int peer = (rank + 1) % size;
    int64_t x[8] = { 0 }, *mem;
    MPI_Win win;

    MPI_OK(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        MPI_OK(MPI_Win_fence(0, win));
        MPI_Put(x, 1, MPI_INT64_T, peer, 8, 1, MPI_INT64_T, win);   /* slot 8 of 8: must not return */
        printf("[rank %d] an out-of-range MPI_Put returned under MPI_ERRORS_ARE_FATAL\n", rank);
        MPI_Finalize();
        return 0;
    }
    MPI_Errhandler eh;
    MPI_OK(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "a new window's handler is 0x%x", (unsigned)eh);
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

    /* ---- attributes, group, name ---- */
    void *base;
    MPI_Aint *wsize;
    int *unit, *flavor, *model, flag;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    CHECK(flag && base == mem, "MPI_WIN_BASE %p, memory %p", base, (void *)mem);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag));
    CHECK(flag && *wsize == 64, "MPI_WIN_SIZE %ld", (long)*wsize);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    CHECK(flag && *unit == 8, "MPI_WIN_DISP_UNIT %d", *unit);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE, "MPI_WIN_CREATE_FLAVOR %d", *flavor);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL %d", *model);
    MPI_Group wg, cg;
    int cmp;
    MPI_OK(MPI_Win_get_group(win, &wg));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &cg));
    MPI_OK(MPI_Group_compare(wg, cg, &cmp));
    CHECK(cmp == MPI_IDENT, "window group vs world: %d", cmp);
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&cg));
    char name[MPI_MAX_OBJECT_NAME];
    int nlen;
    MPI_OK(MPI_Win_set_name(win, "counters"));
    MPI_OK(MPI_Win_get_name(win, name, &nlen));
    CHECK(strcmp(name, "counters") == 0 && nlen == 8, "name '%s'", name);

    /* ---- synchronisation errors ---- */
    expect(MPI_Put(x, 1, MPI_INT64_T, peer, 0, 1, MPI_INT64_T, win), MPI_ERR_RMA_SYNC, "Put without an epoch",
           "no access epoch");
    expect(MPI_Win_unlock(peer, win), MPI_ERR_RMA_SYNC, "unlock without lock", "not locked");
    expect(MPI_Win_flush(peer, win), MPI_ERR_RMA_SYNC, "flush without lock", "passive-target");
    expect(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC, "flush_all without lock", "passive-target");
    expect(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "complete without start", "MPI_Win_start");
    expect(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "wait without post", "exposure");
    expect(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "unlock_all without lock_all", "lock_all");
    expect(MPI_Win_lock(99, peer, 0, win), MPI_ERR_LOCKTYPE, "bad lock type", "lock_type");
    expect(MPI_Win_lock(MPI_LOCK_SHARED, peer, 12345, win), MPI_ERR_ASSERT, "bad assert", "assert");
    expect(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK, "lock rank = size", "rank");

    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    expect(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win), MPI_ERR_RMA_SYNC, "lock twice", "already locked");
    expect(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "fence inside a lock", "passive-target");
    expect(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC, "lock_all inside a lock", "already has");
    if (size > 2)
        expect(MPI_Put(x, 1, MPI_INT64_T, (rank + 2) % size, 0, 1, MPI_INT64_T, win), MPI_ERR_RMA_SYNC,
               "Put to an unlocked rank", "not locked");
    /* ---- range and argument errors (inside a valid epoch) ---- */
    expect(MPI_Put(x, 1, MPI_INT64_T, peer, 8, 1, MPI_INT64_T, win), MPI_ERR_RMA_RANGE, "Put past the end",
           "outside its window");
    expect(MPI_Get(x, 2, MPI_INT64_T, peer, 7, 2, MPI_INT64_T, win), MPI_ERR_RMA_RANGE, "Get across the end",
           "outside");
    expect(MPI_Put(x, 1, MPI_INT64_T, peer, -1, 1, MPI_INT64_T, win), MPI_ERR_RMA_RANGE, "negative disp", "outside");
    expect(MPI_Accumulate(x, 1, MPI_INT64_T, peer, 100, 1, MPI_INT64_T, MPI_SUM, win), MPI_ERR_RMA_RANGE,
           "Accumulate past the end", "outside");
    expect(MPI_Put(x, 1, MPI_INT64_T, size, 0, 1, MPI_INT64_T, win), MPI_ERR_RANK, "target_rank = size",
           "target_rank");
    expect(MPI_Put(x, -1, MPI_INT64_T, peer, 0, 1, MPI_INT64_T, win), MPI_ERR_COUNT, "negative count", "origin_count");
    expect(MPI_Put(x, 1, MPI_DATATYPE_NULL, peer, 0, 1, MPI_INT64_T, win), MPI_ERR_TYPE, "null type",
           "origin_datatype");
    expect(MPI_Put(x, 2, MPI_INT64_T, peer, 0, 1, MPI_INT64_T, win), MPI_ERR_TYPE, "size mismatch", "bytes");
    expect(MPI_Accumulate(x, 1, MPI_INT64_T, peer, 0, 1, MPI_INT64_T, MPI_OP_NULL, win), MPI_ERR_OP, "null op", "op");
    expect(MPI_Accumulate(x, 1, MPI_BYTE, peer, 0, 1, MPI_BYTE, MPI_SUM, win), MPI_ERR_OP, "SUM on MPI_BYTE",
           "MPI_SUM");
    expect(MPI_Accumulate(x, 1, MPI_DOUBLE, peer, 0, 1, MPI_DOUBLE, MPI_BXOR, win), MPI_ERR_OP, "BXOR on double",
           "MPI_BXOR");
    expect(MPI_Compare_and_swap(x, x, x + 1, MPI_DOUBLE, peer, 0, win), MPI_ERR_TYPE, "CAS on double",
           "compare-and-swap");
    expect(MPI_Win_free(&win), MPI_ERR_RMA_SYNC, "free with a lock held", "lock");
    MPI_OK(MPI_Put(x, 1, MPI_INT64_T, MPI_PROC_NULL, 1000, 1, MPI_INT64_T, win));   /* PROC_NULL: no-op */
    MPI_OK(MPI_Put(x, 1, MPI_INT64_T, peer, 7, 1, MPI_INT64_T, win));               /* the last slot: fine */
    MPI_OK(MPI_Win_unlock(peer, win));

    MPI_OK(MPI_Win_fence(0, win));
    MPI_Request rq;
    expect(MPI_Rput(x, 1, MPI_INT64_T, peer, 0, 1, MPI_INT64_T, win, &rq), MPI_ERR_RMA_SYNC, "Rput in a fence epoch",
           "passive-target");
    MPI_OK(MPI_Win_fence(0, win));       /* nothing issued: a lock may follow */
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    MPI_OK(MPI_Win_unlock(rank, win));

    /* a user window error handler sees the window and the class */
    MPI_Errhandler mine;
    MPI_OK(MPI_Win_create_errhandler(win_handler, &mine));
    MPI_OK(MPI_Win_set_errhandler(win, mine));
    int rc = MPI_Win_unlock(peer, win);
    CHECK(rc != MPI_SUCCESS && handler_calls == 1 && handler_win == win && handler_class == MPI_ERR_RMA_SYNC,
          "user handler: rc %d, %d calls, class %d", rc, handler_calls, handler_class);
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_OTHER, "Win_call_errhandler: %d calls, class %d",
          handler_calls, handler_class);
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_free(&mine));
    expect(MPI_Win_set_errhandler(win, 0x12345), MPI_ERR_ARG, "bad handler", "errhandler");

    /* ---- flavors ---- */
    MPI_Aint qs;
    int qu;
    void *qb;
    MPI_OK(MPI_Win_shared_query(win, rank, &qs, &qu, &qb));   /* allocate: my own memory at least */
    CHECK(qb == mem && qs == 64 && qu == 8, "shared_query of my allocate window: %p %ld %d", qb, (long)qs, qu);
    expect(MPI_Win_attach(win, x, 8), MPI_ERR_RMA_FLAVOR, "attach to an allocate window", "create_dynamic");
    MPI_OK(MPI_Win_free(&win));

    MPI_Win cw;
    MPI_OK(MPI_Win_create(x, sizeof(x), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &cw));
    MPI_OK(MPI_Win_set_errhandler(cw, MPI_ERRORS_RETURN));
    /* MPI-4.1 §12.2.3: create windows may be queried (my own memory at least) */
    MPI_OK(MPI_Win_shared_query(cw, rank, &qs, &qu, &qb));
    CHECK(qb == x && qs == (MPI_Aint)sizeof(x) && qu == 1, "shared_query of my create window: %p %ld %d", qb,
          (long)qs, qu);
    MPI_OK(MPI_Win_free(&cw));

    /* dynamic: overlapping attach, detach of nothing, access outside the attached memory */
    MPI_Win dw;
    int64_t *dm = malloc(64);
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw));
    MPI_OK(MPI_Win_set_errhandler(dw, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Win_attach(dw, dm, 64));
    expect(MPI_Win_shared_query(dw, rank, &qs, &qu, &qb), MPI_ERR_RMA_FLAVOR, "shared_query of a dynamic window",
           "MPI_Win_create_dynamic");
    expect(MPI_Win_attach(dw, dm + 2, 8), MPI_ERR_RMA_ATTACH, "overlapping attach", "overlaps");
    expect(MPI_Win_detach(dw, dm + 1), MPI_ERR_RMA_ATTACH, "detach of no region", "not the base");
    MPI_Aint a, *all = malloc(sizeof(MPI_Aint) * (size_t)size);
    MPI_OK(MPI_Get_address(dm, &a));
    MPI_OK(MPI_Allgather(&a, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, dw));
    MPI_OK(MPI_Put(x, 1, MPI_INT64_T, peer, all[peer] + 56, 1, MPI_INT64_T, dw));   /* the last 8 bytes */
    rc = MPI_Put(x, 2, MPI_INT64_T, peer, all[peer] + 56, 2, MPI_INT64_T, dw);     /* 8 bytes past the end */
    if (rc == MPI_SUCCESS)   /* detected by the target: reported by the synchronisation */
        rc = MPI_Win_unlock(peer, dw);
    else
        MPI_OK(MPI_Win_unlock(peer, dw));
    expect(rc, MPI_ERR_RMA_RANGE, "Put past an attached region", "outside");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_detach(dw, dm));
    MPI_OK(MPI_Win_free(&dw));
    free(dm);
    free(all);

    /* creation errors: raised on the communicator; a bad argument at one
     * rank fails the call at every rank (nobody is left waiting) */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Win bad = MPI_WIN_NULL;
    expect(MPI_Win_create(x, 8, rank == 0 ? 0 : 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bad),
           rank == 0 ? MPI_ERR_DISP : MPI_ERR_DISP, "disp_unit 0 at rank 0", rank == 0 ? "disp_unit" : "rank 0");
    expect(MPI_Win_allocate(-8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &bad), MPI_ERR_SIZE, "negative size", "size");
    expect(MPI_Win_free(&bad), MPI_ERR_WIN, "free of MPI_WIN_NULL", "MPI_WIN_NULL");

    /* shared memory: neighbours' memory by load/store */
    MPI_Comm node;
    int nrank, nsize;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Comm_rank(node, &nrank));
    MPI_OK(MPI_Comm_size(node, &nsize));
    MPI_Win sw;
    int32_t *sm;
    MPI_OK(MPI_Win_allocate_shared((MPI_Aint)(4 * (nrank + 1)), 4, MPI_INFO_NULL, node, &sm, &sw));
    MPI_OK(MPI_Win_lock_all(0, sw));
    for (int i = 0; i <= nrank; i++)
        sm[i] = 1000 * nrank + i;
    MPI_OK(MPI_Win_sync(sw));
    MPI_OK(MPI_Barrier(node));
    MPI_OK(MPI_Win_sync(sw));
    for (int r = 0; r < nsize; r++) {
        int32_t *p;
        MPI_OK(MPI_Win_shared_query(sw, r, &qs, &qu, &p));
        CHECK(qs == 4 * (r + 1) && qu == 4, "shared_query(%d): size %ld unit %d", r, (long)qs, qu);
        if (r > 0) {
            int32_t *prev;
            MPI_OK(MPI_Win_shared_query(sw, r - 1, &qs, &qu, &prev));
            CHECK(p == prev + r, "rank %d's memory does not follow rank %d's (contiguous by default)", r, r - 1);
        }
        for (int i = 0; i <= r; i++)
            CHECK(p[i] == 1000 * r + i, "rank %d's shared slot %d: %d", r, i, p[i]);
    }
    MPI_OK(MPI_Win_unlock_all(sw));
    MPI_OK(MPI_Win_free(&sw));
    MPI_OK(MPI_Comm_free(&node));

    /* a communicator spanning nodes cannot have a shared window */
    int nodes = 0, me_first = nrank == 0;
    MPI_OK(MPI_Allreduce(&me_first, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (nodes > 1)
        expect(MPI_Win_allocate_shared(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &sm, &sw), MPI_ERR_RMA_SHARED,
               "allocate_shared across nodes", "spans");

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("test_mpi_win_errors: %d ranks on %d node(s): every error case reported as expected\n", size, nodes);
    MPI_OK(MPI_Finalize());
    return 0;
}
