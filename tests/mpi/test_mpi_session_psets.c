/*
 * The process sets of a session with what the launcher defines (src/mpi/
 * session.c, src/boot/pmix_pset.c): MPI's own three first, then the
 * launcher's. For every set: its name from MPI_Session_get_nth_pset, its
 * group from MPI_Group_from_session_pset, whose size must be the set's
 * "mpi_size" (MPI-4.1 11.3.2); mpi://WORLD holds np processes, mpi://SELF
 * this one (its group rank in WORLD is the same process), mpix://SHARED
 * shared_np. A launcher's set: 1..np members, and the members build a
 * communicator from it in which an allreduce of ones gives its size, and
 * the sum of their WORLD ranks is the same at every member.
 *
 * Arguments: np, shared_np, the number of sets the launcher is expected to
 * define (0 under every launcher of Debian 12: see pmix_pset.c).
 */
#include "mpi_test.h"

#undef MT_FAIL
#define MT_FAIL() MPI_Abort(MPI_COMM_SELF, 1)

static int info_size(MPI_Session s, const char *name)
{
    MPI_Info info;
    char v[MPI_MAX_INFO_VAL];
    int flag = 0;
    MPI_OK(MPI_Session_get_pset_info(s, name, &info));
    MPI_OK(MPI_Info_get(info, "mpi_size", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(flag, "%s: no mpi_size", name);
    MPI_OK(MPI_Info_free(&info));
    return atoi(v);
}

int main(int argc, char **argv)
{
    CHECK(argc == 4, "usage: %s np shared_np launcher_psets", argv[0]);
    int np = atoi(argv[1]), shared_np = atoi(argv[2]), launcher = atoi(argv[3]);
    static const char *const own[] = { "mpi://WORLD", "mpi://SELF", "mpix://SHARED" };
    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Group world, g;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &world));
    MPI_OK(MPI_Group_rank(world, &mt_rank));
    int n = -1;
    MPI_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n == 3 + launcher, "%d process sets, expected %d (3 of MPI's and %d of the launcher)", n, 3 + launcher,
          launcher);
    char line[4096];
    int at = snprintf(line, sizeof(line), "session_psets: rank %d: %d process sets:", mt_rank, n);
    for (int i = 0; i < n; i++) {
        char name[MPI_MAX_PSET_NAME_LEN];
        int len = sizeof(name);
        MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK(i >= 3 || strcmp(name, own[i]) == 0, "process set %d is \"%s\", expected \"%s\"", i, name, own[i]);
        MPI_OK(MPI_Group_from_session_pset(s, name, &g));
        int size, me, expect = info_size(s, name);
        MPI_OK(MPI_Group_size(g, &size));
        MPI_OK(MPI_Group_rank(g, &me));
        CHECK(size == expect, "%s: group of %d, mpi_size %d", name, size, expect);
        if (i < 3) {
            const int sizes[] = { np, 1, shared_np };
            CHECK(size == sizes[i], "%s: %d processes, expected %d", name, size, sizes[i]);
        } else {
            CHECK(size >= 1 && size <= np, "%s: %d processes in a job of %d", name, size, np);
        }
        if (i == 1) {   /* SELF is me */
            int zero = 0, wr = -1;
            MPI_OK(MPI_Group_translate_ranks(g, 1, &zero, world, &wr));
            CHECK(wr == mt_rank, "mpi://SELF is rank %d of mpi://WORLD, expected %d", wr, mt_rank);
        }
        if (i >= 3 && me != MPI_UNDEFINED) {
            MPI_Comm c;
            MPI_OK(MPI_Comm_create_from_group(g, name, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
            int one = 1, count = 0, lo = 0, hi = 0;
            MPI_OK(MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, c));
            MPI_OK(MPI_Allreduce(&mt_rank, &lo, 1, MPI_INT, MPI_SUM, c));
            int members[np], wr[np];
            for (int k = 0; k < size; k++)
                members[k] = k;
            MPI_OK(MPI_Group_translate_ranks(g, size, members, world, wr));
            for (int k = 0; k < size; k++)
                hi += wr[k];
            CHECK(count == size && lo == hi, "%s: %d members answer (expected %d), WORLD ranks sum to %d (group: %d)",
                  name, count, size, lo, hi);
            MPI_OK(MPI_Comm_free(&c));
        }
        MPI_OK(MPI_Group_free(&g));
        if (at > 0 && (size_t)at < sizeof(line))
            at += snprintf(line + at, sizeof(line) - (size_t)at, " %s(%d)", name, size);
    }
    printf("%s\n", line);
    MPI_OK(MPI_Group_free(&world));
    MPI_OK(MPI_Session_finalize(&s));
    if (mt_rank == 0)
        printf("session_psets: ok\n");
    return 0;
}
