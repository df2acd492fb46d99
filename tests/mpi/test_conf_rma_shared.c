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

    unsigned char *first = NULL;
    MPI_Aint expect_off = 0;
    for (int r = 0; r < np; r++) {
        MPI_Aint sz = -1;
        int du = -1;
        unsigned char *p = NULL;
        MPI_OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
        CHECK(sz == size_of(r), "rank %d: size %ld, it asked for %ld", r, (long)sz, (long)size_of(r));
        CHECK(du == r + 1, "rank %d: disp_unit %d, it gave %d", r, du, r + 1);
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
        printf("conf_rma_shared: %d ranks (%d on my node), contiguous and alloc_shared_noncontig: ok\n", np, nnode);
    MPI_Finalize();
    return 0;
}
