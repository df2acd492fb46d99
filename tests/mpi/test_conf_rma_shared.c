/*
 * MPI_Win_allocate_shared by the letter of MPI-4.0 §12.2.3:
 *  - "By default, the allocated memory is contiguous across process ranks":
 *    rank i's memory starts where rank i-1's ends (sizes differ, some 0);
 *  - with info alloc_shared_noncontig=true each rank's memory may be
 *    anywhere, but MPI_Win_shared_query still gives every rank's base, size
 *    and disp_unit, and a store by one process is seen by a load of another
 *    after a MPI_Win_sync + barrier (the unified model's rule);
 *  - MPI_Win_shared_query with MPI_PROC_NULL gives the memory of the lowest
 *    rank with a size above zero;
 *  - MPI_Win_get_info reports alloc_shared_noncontig as in effect.
 *  - a rank that asked for 0 bytes: size 0; with alloc_shared_noncontig
 *    its base is NULL (there is nothing to load or store: MPICH answers so,
 *    and programs written for it test for NULL), in the contiguous layout
 *    it is where its memory would start (the previous rank's end; NULL in
 *    a window of one process).
 * MPI-4.1 §12.2.3 also lets MPI_Win_shared_query ask about windows of
 * MPI_Win_create and MPI_Win_allocate, promising shared memory for
 * MPI_Win_allocate_shared only; where a rank's memory cannot be accessed
 * directly the answer is size 0. Checked on MPI_COMM_WORLD:
 *  - every rank's own memory: its base, size and disp_unit;
 *  - MPI_Win_create: another process's memory is never accessible here
 *    (rdmach does not map other processes' heaps): size 0, base NULL,
 *    disp_unit still that rank's;
 *  - MPI_Win_allocate: a rank of another node (RDMACH_VNODE_SIZE) gives
 *    size 0 and NULL; one of this node either the same or its real memory
 *    (rdmach puts it in the node segment unless shared memory is off), and
 *    then a load sees what its owner stored;
 *  - MPI_PROC_NULL: the lowest rank with a size above 0, by the same rules;
 *  - a dynamic window has no memory of its own: MPI_ERR_RMA_FLAVOR.
 * Rank r asks for r % 3 == 0 ? 0 : 1000 + 24 r bytes with disp_unit r + 1,
 * so sizes are neither equal nor page multiples.
 * The windows are made on MPI_COMM_TYPE_SHARED's communicator (the standard
 * leaves it to the user that comm's processes can share memory); when the
 * world spans several nodes (RDMACH_VNODE_SIZE), MPI_Win_allocate_shared on
 * MPI_COMM_WORLD fails on every rank with MPI_ERR_RMA_SHARED.
 */
#include "mpi_test.h"

static MPI_Aint size_of(int r)
{
    return r % 3 == 0 ? 0 : 1000 + 24 * (MPI_Aint)r;
}

static void run(int noncontig, MPI_Comm comm)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    unsigned char *mine = NULL;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate_shared(size_of(me), me + 1, info, comm, &mine, &win));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    CHECK(size_of(me) == 0 || mine != NULL, "baseptr NULL for %ld bytes", (long)size_of(me));

    MPI_Info used;
    MPI_OK(MPI_Win_get_info(win, &used));
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_OK(MPI_Info_get(used, "alloc_shared_noncontig", MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag && strcmp(v, noncontig ? "true" : "false") == 0, "alloc_shared_noncontig: flag %d value '%s'", flag,
          flag ? v : "");
    MPI_Info_free(&used);

    MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (MPI_Aint i = 0; i < size_of(me); i++)
        mine[i] = (unsigned char)(me * 31 + i);
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(comm));
    MPI_OK(MPI_Win_sync(win));

    unsigned char *first = NULL, *prev_end = NULL;
    MPI_Aint expect_off = 0;
    for (int r = 0; r < np; r++) {
        MPI_Aint sz = -1;
        int du = -1;
        unsigned char *p = NULL;
        MPI_OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
        CHECK(sz == size_of(r), "rank %d: size %ld, it asked for %ld", r, (long)sz, (long)size_of(r));
        CHECK(du == r + 1, "rank %d: disp_unit %d, it gave %d", r, du, r + 1);
        if (sz == 0 && noncontig)
            CHECK(p == NULL, "rank %d asked for 0 bytes (noncontig): base %p, expected NULL", r, (void *)p);
        if (!noncontig) {      /* size 0 too: where its memory would start */
            if (prev_end)
                CHECK(p == prev_end, "rank %d (%ld bytes): base %p, the previous rank ends at %p", r, (long)sz,
                      (void *)p, (void *)prev_end);
            if (p)
                prev_end = p + sz;
        }
        if (sz > 0) {
            CHECK(p != NULL, "rank %d: NULL base for %ld bytes", r, (long)sz);
            if (!first)
                first = p;
            else if (!noncontig)
                CHECK(p == first + expect_off, "rank %d: base %p, contiguous layout puts it at %p", r, (void *)p,
                      (void *)(first + expect_off));
            for (MPI_Aint i = 0; i < sz; i++)
                CHECK(p[i] == (unsigned char)(r * 31 + i), "rank %d byte %ld: %u", r, (long)i, p[i]);
        }
        if (first)
            expect_off += sz;
        if (r == me && sz > 0)
            CHECK(p == mine, "my own base from shared_query %p, from allocate %p", (void *)p, (void *)mine);
    }
    MPI_Aint sz;
    int du;
    unsigned char *p;
    MPI_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
    int low = -1;
    for (int r = 0; r < np && low < 0; r++)
        if (size_of(r) > 0)
            low = r;
    if (low < 0)                 /* nobody has memory: size 0 (MPI leaves the rest unspecified) */
        CHECK(sz == 0, "MPI_PROC_NULL with no memory anywhere: size %ld", (long)sz);
    else
        CHECK(sz == size_of(low) && du == low + 1 && p == first,
          "MPI_PROC_NULL: size %ld disp_unit %d, lowest rank with memory is %d", (long)sz, du, low);

    /* RMA into the shared window too: rank me puts 8 bytes at the end of
     * the next rank's memory (target_disp in its disp_unit), adds 1 to its
     * first int; afterwards every rank sees them by load. */
    MPI_OK(MPI_Barrier(comm));     /* everyone has read the first pattern */
    int t = (me + 1) % np;
    MPI_Aint tsz = size_of(t);
    unsigned char pb[8];
    for (int k = 0; k < 8; k++)
        pb[k] = (unsigned char)(0xa0 + me + k);
    int one = 1;
    if (tsz > 0) {
        MPI_Aint disp = (tsz - 8) / (t + 1);
        MPI_OK(MPI_Put(pb, 8, MPI_BYTE, t, disp, 8, MPI_BYTE, win));
        MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Win_flush(t, win));
    }
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(comm));
    MPI_OK(MPI_Win_sync(win));
    int from = (me + np - 1) % np;
    if (size_of(me) > 0) {
        MPI_Aint at = (size_of(me) - 8) / (me + 1) * (me + 1);
        for (int k = 0; k < 8; k++)
            CHECK(mine[at + k] == (unsigned char)(0xa0 + from + k), "byte %d put by rank %d: %u", k, from,
                  mine[at + k]);
        int v0;
        memcpy(&v0, mine, sizeof(v0));
        int expect;
        memcpy(&expect, (unsigned char[4]){ (unsigned char)(me * 31), (unsigned char)(me * 31 + 1),
                                            (unsigned char)(me * 31 + 2), (unsigned char)(me * 31 + 3) },
               sizeof(expect));
        CHECK(v0 == expect + 1, "first int %d, expected %d + 1 from rank %d", v0, expect, from);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(comm));
    MPI_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set MPI_WIN_NULL");
}

/* What rank r's memory must look like from here (see the top). */
static void check_query(MPI_Win win, int flavor, int r, int me, int same_node, const unsigned char *mine)
{
    MPI_Aint sz = -1;
    int du = -1;
    unsigned char *p = (unsigned char *)&sz;
    MPI_OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
    const char *fl = flavor == MPI_WIN_FLAVOR_CREATE ? "Win_create" : "Win_allocate";
    CHECK(du == r + 1, "%s rank %d: disp_unit %d, it gave %d", fl, r, du, r + 1);
    if (r == me) {
        CHECK(sz == size_of(r) && (sz == 0 || p == mine), "%s, my own memory: size %ld base %p, expected %ld at %p",
              fl, (long)sz, (void *)p, (long)size_of(r), (const void *)mine);
        return;
    }
    int may_map = flavor == MPI_WIN_FLAVOR_ALLOCATE && same_node && size_of(r) > 0;
    if (!may_map || sz == 0) {
        CHECK(sz == 0 && p == NULL, "%s rank %d (%s): size %ld base %p, expected 0 and NULL", fl, r,
              same_node ? "this node" : "another node", (long)sz, (void *)p);
        return;
    }
    CHECK(sz == size_of(r) && p != NULL, "%s rank %d: size %ld base %p, it asked for %ld", fl, r, (long)sz,
          (void *)p, (long)size_of(r));
    for (MPI_Aint i = 0; i < sz; i++)
        CHECK(p[i] == (unsigned char)(r * 7 + i), "%s rank %d byte %ld by load: %u", fl, r, (long)i, p[i]);
}

/* MPI_Win_shared_query on the other flavors, over MPI_COMM_WORLD. */
static void run_other_flavors(MPI_Comm node)
{
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    /* which world ranks share my node: MPI_COMM_TYPE_SHARED's */
    MPI_Group wg, ng;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Comm_group(node, &ng));
    int *all = malloc(sizeof(int) * (size_t)np), *in_node = malloc(sizeof(int) * (size_t)np);
    for (int r = 0; r < np; r++)
        all[r] = r;
    MPI_OK(MPI_Group_translate_ranks(wg, np, all, ng, in_node));
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&ng));

    for (int k = 0; k < 2; k++) {
        int flavor = k == 0 ? MPI_WIN_FLAVOR_CREATE : MPI_WIN_FLAVOR_ALLOCATE;
        unsigned char *mine = NULL;
        MPI_Win win;
        if (flavor == MPI_WIN_FLAVOR_CREATE) {
            mine = malloc((size_t)size_of(me) + 1);
            MPI_OK(MPI_Win_create(mine, size_of(me), me + 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        } else {
            MPI_OK(MPI_Win_allocate(size_of(me), me + 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
        }
        MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
        for (MPI_Aint i = 0; i < size_of(me); i++)
            mine[i] = (unsigned char)(me * 7 + i);
        MPI_OK(MPI_Win_sync(win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_sync(win));
        for (int r = 0; r < np; r++)
            check_query(win, flavor, r, me, in_node[r] != MPI_UNDEFINED, mine);
        int low = -1;
        for (int r = 0; r < np && low < 0; r++)
            if (size_of(r) > 0)
                low = r;
        MPI_Aint sz = -1, lsz = -1;
        int du = -1, ldu = -1;
        void *p = NULL, *lp = NULL;
        MPI_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
        if (low < 0) {
            CHECK(sz == 0 && p == NULL, "MPI_PROC_NULL, nobody has memory: size %ld base %p", (long)sz, p);
        } else {
            MPI_OK(MPI_Win_shared_query(win, low, &lsz, &ldu, &lp));
            CHECK(sz == lsz && du == ldu && p == lp, "MPI_PROC_NULL: size %ld unit %d base %p; rank %d (lowest "
                  "with memory): %ld %d %p", (long)sz, du, p, low, (long)lsz, ldu, lp);
        }
        MPI_OK(MPI_Win_unlock_all(win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_free(&win));
        if (flavor == MPI_WIN_FLAVOR_CREATE)
            free(mine);
    }

    MPI_Win dw;
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw));
    MPI_OK(MPI_Win_set_errhandler(dw, MPI_ERRORS_RETURN));
    MPI_Aint sz;
    int du, cls = -1;
    void *p;
    int rc = MPI_Win_shared_query(dw, me, &sz, &du, &p);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query of a dynamic window: class %d, MPI_ERR_RMA_FLAVOR "
          "expected", cls);
    MPI_OK(MPI_Win_free(&dw));
    free(all);
    free(in_node);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = me;
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nnode;
    MPI_Comm_size(node, &nnode);
    run(0, node);
    run(1, node);
    run_other_flavors(node);
    int all_one_node = 0, one_node = nnode == np;
    MPI_OK(MPI_Allreduce(&one_node, &all_one_node, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    if (!all_one_node) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        void *base = NULL;
        MPI_Win win = MPI_WIN_NULL;
        int rc = MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_RMA_SHARED && win == MPI_WIN_NULL,
              "MPI_Win_allocate_shared over %d ranks on several nodes: class %d, MPI_ERR_RMA_SHARED expected", np,
              cls);
        if (win != MPI_WIN_NULL)
            MPI_Win_free(&win);
    }
    MPI_Comm_free(&node);
    if (me == 0)
        printf("conf_rma_shared: %d ranks (%d on my node), contiguous and alloc_shared_noncontig, shared_query "
               "of create/allocate/dynamic windows: ok\n", np, nnode);
    MPI_Finalize();
    return 0;
}
