/*
 * Communicators on 5 ranks: Comm_dup (congruent, its messages never match
 * the parent's), Comm_split (colors, keys that reverse the order,
 * MPI_UNDEFINED), Comm_split_type(MPI_COMM_TYPE_SHARED), Comm_compare of
 * every kind, names, attributes (predefined and user keyvals with copy and
 * delete callbacks), and 300 dup/free cycles (context ids are reused).
 */
#include "mpi_test.h"

static int copies, deletes;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    copies++;
    *(void **)out = (char *)in + 1;     /* a visible change: the copy is value + 1 */
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int size, r, n, res;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 3, "run on 3 or more ranks");

    /* dup: congruent, isolated traffic. */
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    CHECK(res == MPI_CONGRUENT, "compare(world, dup) = %d", res);
    MPI_OK(MPI_Comm_compare(dup, dup, &res));
    CHECK(res == MPI_IDENT, "compare(dup, dup) = %d", res);
    MPI_OK(MPI_Comm_rank(dup, &r));
    MPI_OK(MPI_Comm_size(dup, &n));
    CHECK(r == mt_rank && n == size, "dup rank %d size %d", r, n);
    int right = (mt_rank + 1) % size, left = (mt_rank + size - 1) % size;
    int a = 100 + mt_rank, b = 200 + mt_rank, ga = -1, gb = -1;
    MPI_OK(MPI_Send(&a, 1, MPI_INT, right, 9, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&b, 1, MPI_INT, right, 9, dup));
    /* Receive the dup's message first: same source and tag, other communicator. */
    MPI_OK(MPI_Recv(&gb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Recv(&ga, 1, MPI_INT, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(ga == 100 + left && gb == 200 + left, "dup isolation: world got %d, dup got %d", ga, gb);

    /* split: two colors, keys reversing the order; the last rank opts out. */
    int color = mt_rank == size - 1 ? MPI_UNDEFINED : mt_rank % 2;
    MPI_Comm half;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, -mt_rank, &half));
    if (color == MPI_UNDEFINED) {
        CHECK(half == MPI_COMM_NULL, "MPI_UNDEFINED color gave a communicator");
    } else {
        int members = 0, higher = 0;
        for (int i = 0; i < size - 1; i++)
            if (i % 2 == color) {
                members++;
                higher += i > mt_rank;
            }
        MPI_OK(MPI_Comm_rank(half, &r));
        MPI_OK(MPI_Comm_size(half, &n));
        CHECK(n == members && r == higher, "split: rank %d of %d, expected %d of %d", r, n, higher, members);
        /* Everyone sends its world rank to rank 0 of the half. */
        if (r == 0) {
            for (int i = 1; i < n; i++) {
                int w;
                MPI_Status st;
                MPI_OK(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 0, half, &st));
                /* half rank j is the j-th highest world rank of the color */
                CHECK(w % 2 == color && w < mt_rank, "half rank %d says world %d", st.MPI_SOURCE, w);
            }
        } else {
            MPI_OK(MPI_Send(&mt_rank, 1, MPI_INT, 0, 0, half));
        }
        MPI_OK(MPI_Comm_compare(half, MPI_COMM_WORLD, &res));
        CHECK(res == MPI_UNEQUAL, "compare(half, world) = %d", res);
        MPI_OK(MPI_Comm_free(&half));
        CHECK(half == MPI_COMM_NULL, "Comm_free did not reset the handle");
    }

    /* Same members, other order: similar. */
    MPI_Comm rev;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - mt_rank, &rev));
    MPI_OK(MPI_Comm_rank(rev, &r));
    CHECK(r == size - 1 - mt_rank, "reversed rank %d", r);
    MPI_OK(MPI_Comm_compare(rev, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_SIMILAR, "compare(reversed, world) = %d", res);

    /* Shared-memory split: everyone is on this machine. */
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Comm_size(node, &n));
    CHECK(n >= 1 && n <= size, "node communicator size %d", n);
    MPI_OK(MPI_Comm_free(&node));

    /* Names. */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name '%s'", name);
    MPI_OK(MPI_Comm_set_name(rev, "reversed"));
    MPI_OK(MPI_Comm_get_name(rev, name, &len));
    CHECK(strcmp(name, "reversed") == 0 && len == 8, "name '%s'", name);

    /* Attributes. */
    int *tag_ub, flag;
    MPI_OK(MPI_Comm_get_attr(rev, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB on a derived communicator");
    int key;
    static char base[4];
    MPI_OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL));
    MPI_OK(MPI_Comm_set_attr(rev, key, base));
    MPI_Comm rev2;
    MPI_OK(MPI_Comm_dup(rev, &rev2));
    void *v;
    MPI_OK(MPI_Comm_get_attr(rev2, key, &v, &flag));
    CHECK(flag && v == base + 1 && copies == 1, "copied attribute: flag %d, %p vs %p", flag, v, (void *)(base + 1));
    MPI_OK(MPI_Comm_compare(rev, rev2, &res));
    CHECK(res == MPI_CONGRUENT, "compare(rev, dup of rev) = %d", res);
    MPI_OK(MPI_Comm_free(&rev2));
    CHECK(deletes == 1, "delete callback on free: %d", deletes);
    MPI_OK(MPI_Comm_delete_attr(rev, key));
    CHECK(deletes == 2, "delete callback on delete_attr: %d", deletes);
    MPI_OK(MPI_Comm_get_attr(rev, key, &v, &flag));
    CHECK(!flag, "deleted attribute still there");
    MPI_OK(MPI_Comm_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not reset the key");
    MPI_OK(MPI_Comm_free(&rev));

    /* Many short-lived communicators: context ids are released and reused. */
    for (int i = 0; i < 300; i++) {
        MPI_Comm c;
        MPI_OK(MPI_Comm_dup(dup, &c));
        int x = i, y = -1;
        MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, right, i, &y, 1, MPI_INT, left, i, c, MPI_STATUS_IGNORE));
        CHECK(y == i, "cycle %d: got %d", i, y);
        MPI_OK(MPI_Comm_free(&c));
    }
    MPI_OK(MPI_Comm_free(&dup));
    if (mt_rank == 0)
        printf("comm: dup, split, split_type, compare, names, attributes, 300 dup/free cycles ok\n");
    MPI_OK(MPI_Finalize());
    return 0;
}
