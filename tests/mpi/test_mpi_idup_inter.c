/*
 * MPI_Comm_idup and MPI_Comm_idup_with_info of an intercommunicator (the even
 * against the odd world ranks) complete in progress, not at the call
 * (src/mpi/comm_idup.c): the even group's leader starts its idup and then
 * sends to the odd leader, which receives it before starting its own: a
 * deadlock if the call waits for the other group. Then the
 * duplicates: an intercommunicator of the same groups (sizes, congruent to
 * the parent), their own contexts (two idups in flight, messages on each
 * received in the opposite order), point-to-point and an allreduce across
 * them (each group gets the sum of the other's values), the parent's
 * attribute copied by both calls.
 */
#include <signal.h>
#include <unistd.h>
#include "mpi_test.h"

static int me, p;

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_mpi_idup_inter: stuck (an idup of an intercommunicator blocked)\n";
    if (write(2, msg, sizeof(msg) - 1) < 0)
        _exit(2);
    _exit(1);
}

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    *(void **)out = (char *)in + 1;   /* the copy is the parent's value + 1 */
    *flag = 1;
    return MPI_SUCCESS;
}

/* The world ranks of the group of color c: c, c + 2, ... */
static int group_size(int c)
{
    return c ? p / 2 : (p + 1) / 2;
}

static void check_dup(MPI_Comm parent, MPI_Comm d, int color, const char *what)
{
    int lsize, rsize, inter, cmp, rank;
    MPI_OK(MPI_Comm_test_inter(d, &inter));
    MPI_OK(MPI_Comm_size(d, &lsize));
    MPI_OK(MPI_Comm_remote_size(d, &rsize));
    MPI_OK(MPI_Comm_rank(d, &rank));
    MPI_OK(MPI_Comm_compare(parent, d, &cmp));
    CHECK(inter && lsize == group_size(color) && rsize == group_size(1 - color) && rank == me / 2 &&
          cmp == MPI_CONGRUENT, "%s: inter %d, sizes %d/%d, rank %d, compare %d", what, inter, lsize, rsize, rank,
          cmp);
    /* each group gets the sum of the other's (world rank + 1) */
    int v = me + 1, sum = -1, want = 0;
    for (int r = 1 - color; r < p; r += 2)
        want += r + 1;
    MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, d));
    CHECK(sum == want, "%s: allreduce %d, expected %d", what, sum, want);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &p);
    if (p < 2) {
        MPI_Finalize();
        printf("idup_inter: needs 2 ranks, nothing to do\n");
        return 0;
    }
    signal(SIGALRM, on_alarm);
    alarm(30);
    int color = me % 2;
    MPI_Comm local, ic, d1, d2, d3;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 82, &ic));
    int key;
    MPI_OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    static char base[4];
    MPI_OK(MPI_Comm_set_attr(ic, key, base));

    /* world rank 0 (the even leader) sends to world rank 1 (the odd leader)
     * after starting its idup; rank 1 receives it before starting its own */
    MPI_Request r[3];
    int token = -1;
    if (me == 0) {
        MPI_OK(MPI_Comm_idup(ic, &d1, &r[0]));
        token = 1234;
        MPI_OK(MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
    } else if (me == 1) {
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(token == 1234, "token %d", token);
        MPI_OK(MPI_Comm_idup(ic, &d1, &r[0]));
    } else {
        MPI_OK(MPI_Comm_idup(ic, &d1, &r[0]));
    }
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MPI_OK(MPI_Comm_idup(ic, &d2, &r[1]));
    MPI_OK(MPI_Comm_idup_with_info(ic, info, &d3, &r[2]));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    check_dup(ic, d1, color, "Comm_idup");
    check_dup(ic, d2, color, "second Comm_idup");
    check_dup(ic, d3, color, "Comm_idup_with_info");

    /* one message on each duplicate to remote rank (local rank mod remote
     * size), received in the opposite order: the contexts differ */
    int rsize = group_size(1 - color), lrank = me / 2, to = lrank % rsize;
    int v1 = 100 * me + 1, v2 = 100 * me + 2;
    MPI_Request s[2];
    MPI_OK(MPI_Isend(&v1, 1, MPI_INT, to, 9, d1, &s[0]));
    MPI_OK(MPI_Isend(&v2, 1, MPI_INT, to, 9, d2, &s[1]));
    for (int from = 0; from < group_size(1 - color); from++) {
        if (from % group_size(color) != lrank)
            continue;
        int g2 = -1, g1 = -1, w = 2 * from + 1 - color;   /* remote rank from is world rank w */
        MPI_OK(MPI_Recv(&g2, 1, MPI_INT, from, 9, d2, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Recv(&g1, 1, MPI_INT, from, 9, d1, MPI_STATUS_IGNORE));
        CHECK(g1 == 100 * w + 1 && g2 == 100 * w + 2, "from remote %d: %d on d1, %d on d2", from, g1, g2);
    }
    MPI_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));

    void *val = NULL;
    int flag = 0;
    MPI_OK(MPI_Comm_get_attr(d1, key, &val, &flag));
    CHECK(flag && val == base + 1, "the attribute copied to the duplicate: flag %d", flag);
    MPI_OK(MPI_Comm_get_attr(d3, key, &val, &flag));
    CHECK(flag && val == base + 1, "the attribute copied to the _with_info duplicate: flag %d", flag);
    MPI_OK(MPI_Comm_free(&d1));
    MPI_OK(MPI_Comm_free(&d2));
    MPI_OK(MPI_Comm_free(&d3));
    MPI_OK(MPI_Comm_free_keyval(&key));
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    alarm(0);
    MPI_Finalize();
    if (me == 0)
        printf("idup_inter: %d ranks ok\n", p);
    return 0;
}
