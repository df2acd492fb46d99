/*
 * MPI sessions without the world model (MPI-4.1 11.3): process sets and
 * their sizes, groups and communicators made from them, the session's info
 * and error handler, two sessions at once, and a second round of
 * Session_init after every session was finalized.
 * The built-in set names in other cases ("mpi://world", "mpi://self": §11.3.2
 * spells them in capitals and says nothing of case; MPICH and Open MPI take
 * any case, and programs written for them use the lower-case forms), and
 * buffered sends on a session's communicator with the process's buffer, the
 * session's and the communicator's (MPI-4.1 §3.6.1: the communicator's
 * buffer if it has one, else its session's, else the process's).
 *
 * Arguments: np (the job's size, from the launcher's -n) and the expected
 * size of mpix://SHARED (the ranks of this node: np on one machine, 1 with
 * RDMACH_VNODE_SIZE=1).
 */
#include <sys/wait.h>
#include <unistd.h>
#include "mpi_test.h"

/* MPI_Abort needs a communicator; the library is running while a session is. */
#undef MT_FAIL
#define MT_FAIL() MPI_Abort(MPI_COMM_SELF, 1)

static int np, shared_np;
static int eh_calls, eh_last_code;
static MPI_Session eh_last_session;

static void record_eh(MPI_Session *s, int *code, ...)
{
    eh_calls++;
    eh_last_session = *s;
    eh_last_code = *code;
}

static void check_psets(MPI_Session s)
{
    static const char *const names[] = { "mpi://WORLD", "mpi://SELF", "mpix://SHARED" };
    int n = -1;
    MPI_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n == 3, "%d process sets, expected 3", n);
    for (int i = 0; i < n; i++) {
        char name[MPI_MAX_PSET_NAME_LEN];
        int len = 0;
        MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        CHECK(len == (int)strlen(names[i]) + 1, "pset %d: length %d, expected %zu", i, len, strlen(names[i]) + 1);
        len = sizeof(name);
        MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK(strcmp(name, names[i]) == 0, "pset %d is \"%s\", expected \"%s\"", i, name, names[i]);
        len = 5;   /* truncated to 4 characters and the NUL */
        MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK(strncmp(name, names[i], 4) == 0 && name[4] == '\0', "pset %d truncated to \"%s\"", i, name);
    }
    const int sizes[] = { np, 1, shared_np };
    for (int i = 0; i < 3; i++) {
        MPI_Info info;
        char v[MPI_MAX_INFO_VAL];
        int flag = 0;
        MPI_OK(MPI_Session_get_pset_info(s, names[i], &info));
        MPI_OK(MPI_Info_get(info, "mpi_size", MPI_MAX_INFO_VAL - 1, v, &flag));
        CHECK(flag && atoi(v) == sizes[i], "%s: mpi_size \"%s\" (flag %d), expected %d", names[i], flag ? v : "",
              flag, sizes[i]);
        MPI_OK(MPI_Info_free(&info));
    }
}

/* A communicator from pset `name` under `tag`: its size is `size`, its rank
 * the group's, and an allreduce of the members' world ranks (the world pset's
 * rank numbering) gives the sum computed from the group. */
static void check_comm(MPI_Session s, const char *name, const char *tag, int size)
{
    MPI_Group g, wg;
    MPI_Comm c;
    int gsize, grank, csize, crank;
    MPI_OK(MPI_Group_from_session_pset(s, name, &g));
    MPI_OK(MPI_Group_size(g, &gsize));
    MPI_OK(MPI_Group_rank(g, &grank));
    CHECK(gsize == size, "%s: group size %d, expected %d", name, gsize, size);
    MPI_OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_OK(MPI_Comm_size(c, &csize));
    MPI_OK(MPI_Comm_rank(c, &crank));
    CHECK(csize == size && crank == grank, "%s: comm size %d rank %d, group %d %d", name, csize, crank, gsize, grank);
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_get_errhandler(c, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "the communicator's error handler is not the one given");

    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &wg));
    int *mine = malloc(sizeof(int) * (size_t)size), *world = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        mine[i] = i;
    MPI_OK(MPI_Group_translate_ranks(g, size, mine, wg, world));
    long expect = 0;
    for (int i = 0; i < size; i++)
        expect += world[i];
    long me = world[grank], sum = -1;
    MPI_OK(MPI_Allreduce(&me, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == expect, "%s: allreduce of world ranks %ld, expected %ld", name, sum, expect);
    /* point-to-point around the ring */
    int right = (crank + 1) % csize, left = (crank + csize - 1) % csize, got = -1;
    MPI_OK(MPI_Sendrecv(&crank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, c, MPI_STATUS_IGNORE));
    CHECK(got == left, "%s: ring received %d, expected %d", name, got, left);
    free(mine);
    free(world);
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Comm_free(&c));
}

/* The built-in names in other cases name the same sets. */
static void check_case(MPI_Session s)
{
    static const char *const canon[] = { "mpi://WORLD", "mpi://SELF", "mpix://SHARED" };
    static const char *const other[] = { "mpi://world", "Mpi://Self", "MPIX://shared" };
    const int sizes[] = { np, 1, shared_np };
    for (int i = 0; i < 3; i++) {
        MPI_Group a, b;
        int cmp = -1;
        MPI_OK(MPI_Group_from_session_pset(s, canon[i], &a));
        MPI_OK(MPI_Group_from_session_pset(s, other[i], &b));
        MPI_OK(MPI_Group_compare(a, b, &cmp));
        CHECK(cmp == MPI_IDENT, "%s and %s: MPI_Group_compare %d, expected MPI_IDENT", canon[i], other[i], cmp);
        MPI_OK(MPI_Group_free(&a));
        MPI_OK(MPI_Group_free(&b));
        MPI_Info info;
        char v[MPI_MAX_INFO_VAL];
        int flag = 0;
        MPI_OK(MPI_Session_get_pset_info(s, other[i], &info));
        MPI_OK(MPI_Info_get(info, "mpi_size", MPI_MAX_INFO_VAL - 1, v, &flag));
        CHECK(flag && atoi(v) == sizes[i], "%s: mpi_size \"%s\", expected %d", other[i], flag ? v : "", sizes[i]);
        MPI_OK(MPI_Info_free(&info));
    }
    check_comm(s, "mpi://world", "org.rdmach.test.world.lower", np);
    /* a communicator of itself alone: a receive posted before its send */
    MPI_Group g;
    MPI_Comm c;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://self", &g));
    MPI_OK(MPI_Comm_create_from_group(g, "org.rdmach.test.self.lower", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_OK(MPI_Group_free(&g));
    int out = 42, in = -1;
    MPI_Request r;
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, 0, 0, c, &r));
    MPI_OK(MPI_Send(&out, 1, MPI_INT, 0, 0, c));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(in == 42, "mpi://self: received %d from itself, sent 42", in);
    MPI_OK(MPI_Comm_free(&c));
}

/* One buffered send around the ring of c, checked at the receiver. */
static void bsend_ring(MPI_Comm c, const char *what)
{
    int rank, size;
    MPI_OK(MPI_Comm_rank(c, &rank));
    MPI_OK(MPI_Comm_size(c, &size));
    int out[8], in[8] = { 0 }, left = (rank + size - 1) % size;
    for (int i = 0; i < 8; i++)
        out[i] = rank * 100 + i;
    MPI_OK(MPI_Bsend(out, 8, MPI_INT, (rank + 1) % size, 3, c));
    MPI_OK(MPI_Recv(in, 8, MPI_INT, left, 3, c, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++)
        CHECK(in[i] == left * 100 + i, "%s: element %d is %d, expected %d", what, i, in[i], left * 100 + i);
    MPI_OK(MPI_Barrier(c));          /* every Bsend's data has left its buffer */
}

/* Buffered sends on a communicator of a session, through each of the three
 * buffers it may use; each detach gives back what was attached. */
static void check_bsend(MPI_Session s)
{
    MPI_Group g;
    MPI_Comm c;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://world", &g));
    MPI_OK(MPI_Comm_create_from_group(g, "org.rdmach.test.bsend", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_OK(MPI_Group_free(&g));
    static char pbuf[4096], sbuf[4096], cbuf[4096];
    void *addr = NULL;
    int len = 0;
    MPI_OK(MPI_Buffer_attach(pbuf, sizeof(pbuf)));
    bsend_ring(c, "the process's buffer");
    MPI_OK(MPI_Buffer_detach(&addr, &len));
    CHECK(addr == pbuf && len == (int)sizeof(pbuf), "Buffer_detach gave %p %d", addr, len);
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)   /* not in an MPI 4.0 header (tests/abi) */
    MPI_OK(MPI_Session_attach_buffer(s, sbuf, sizeof(sbuf)));
    bsend_ring(c, "the session's buffer");
    MPI_OK(MPI_Session_detach_buffer(s, &addr, &len));
    CHECK(addr == sbuf && len == (int)sizeof(sbuf), "Session_detach_buffer gave %p %d", addr, len);
    MPI_OK(MPI_Comm_attach_buffer(c, cbuf, sizeof(cbuf)));
    bsend_ring(c, "the communicator's buffer");
    MPI_OK(MPI_Comm_detach_buffer(c, &addr, &len));
    CHECK(addr == cbuf && len == (int)sizeof(cbuf), "Comm_detach_buffer gave %p %d", addr, len);
    MPI_OK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    bsend_ring(c, "the session's automatic buffer");
    MPI_OK(MPI_Session_detach_buffer(s, &addr, &len));
    CHECK(addr == MPI_BUFFER_AUTOMATIC && len == 0, "Session_detach_buffer (automatic) gave %p %d", addr, len);
#else
    (void)sbuf;
    (void)cbuf;
#endif
    MPI_OK(MPI_Comm_free(&c));
}

static void check_errors(MPI_Session s)
{
    MPI_Errhandler eh, got;
    MPI_OK(MPI_Session_create_errhandler(record_eh, &eh));
    MPI_OK(MPI_Session_set_errhandler(s, eh));
    MPI_OK(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh, "Session_get_errhandler gave 0x%x, set 0x%x", (unsigned)got, (unsigned)eh);
    MPI_Group g;
    int rc = MPI_Group_from_session_pset(s, "mpi://nosuchset", &g);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "an unknown pset gave class %d, expected MPI_ERR_ARG", mt_class(rc));
    CHECK(eh_calls == 1 && eh_last_session == s && eh_last_code == rc,
          "the session's handler saw %d calls (session 0x%x, code %d)", eh_calls, (unsigned)eh_last_session,
          eh_last_code);
    int n = 0;
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 3, &n, NULL);
    CHECK(mt_class(rc) == MPI_ERR_ARG && eh_calls == 2, "n 3 of 3 psets: class %d", mt_class(rc));
    MPI_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(eh_calls == 3 && eh_last_code == MPI_ERR_OTHER, "Session_call_errhandler: %d calls, code %d", eh_calls,
          eh_last_code);
    MPI_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_free(&eh));
}

int main(int argc, char **argv)
{
    CHECK(argc == 3 || argc == 4, "usage: test_mpi_session np shared_np [fork]");
    np = atoi(argv[1]);
    shared_np = atoi(argv[2]);
    int flag = 1;
    MPI_OK(MPI_Initialized(&flag));
    CHECK(!flag, "MPI_Initialized is true before anything");

    /* MPI-4.1 11.4.1: info objects before anything else, for Session_init. */
    MPI_Session s, s2;
    MPI_Info first;
    char v[MPI_MAX_INFO_VAL];
    char *args[] = { "/bin/prog", "x", NULL };
    MPI_OK(MPI_Info_create_env(2, args, &first));
    MPI_OK(MPI_Info_get(first, "command", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(flag && strcmp(v, "/bin/prog") == 0, "Info_create_env before init: command \"%s\"", flag ? v : "");
    MPI_OK(MPI_Info_free(&first));
    MPI_OK(MPI_Info_create(&first));
    MPI_OK(MPI_Info_set(first, "thread_level", "MPI_THREAD_SERIALIZED"));
    MPI_OK(MPI_Session_init(first, MPI_ERRORS_RETURN, &s));
    MPI_OK(MPI_Info_free(&first));
    MPI_OK(MPI_Session_get_info(s, &first));
    MPI_OK(MPI_Info_get(first, "thread_level", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(flag && strcmp(v, "MPI_THREAD_SERIALIZED") == 0, "first session: thread_level \"%s\", expected "
          "MPI_THREAD_SERIALIZED", flag ? v : "(none)");
    MPI_OK(MPI_Info_free(&first));
    CHECK(s != MPI_SESSION_NULL, "Session_init gave MPI_SESSION_NULL");
    CHECK(MPI_Session_f2c(MPI_Session_c2f(s)) == s, "Session_c2f/f2c do not round-trip");
    MPI_OK(MPI_Initialized(&flag));
    CHECK(!flag, "MPI_Initialized is true with only a session (it is the world model's)");
    check_psets(s);

    /* A second session at once, asking for a thread level. */
    MPI_Info want;
    MPI_OK(MPI_Info_create(&want));
    MPI_OK(MPI_Info_set(want, "thread_level", "MPI_THREAD_MUTLIPLE"));   /* misspelt */
    int rc = MPI_Session_init(want, MPI_ERRORS_RETURN, &s2);
    CHECK(mt_class(rc) == MPI_ERR_INFO_VALUE, "thread_level MPI_THREAD_MUTLIPLE: class %d", mt_class(rc));
    MPI_OK(MPI_Info_set(want, "thread_level", "MPI_THREAD_MULTIPLE"));
    MPI_OK(MPI_Session_init(want, MPI_ERRORS_RETURN, &s2));
    MPI_OK(MPI_Info_free(&want));
    MPI_Info used;
    MPI_OK(MPI_Session_get_info(s2, &used));
    MPI_OK(MPI_Info_get(used, "thread_level", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(flag && strcmp(v, "MPI_THREAD_MULTIPLE") == 0, "Session_get_info thread_level \"%s\", expected "
          "MPI_THREAD_MULTIPLE", flag ? v : "(none)");
    MPI_OK(MPI_Info_free(&used));

    check_comm(s, "mpi://WORLD", "org.rdmach.test.world", np);
    check_comm(s2, "mpi://WORLD", "org.rdmach.test.world2", np);
    check_comm(s, "mpi://SELF", "org.rdmach.test.self", 1);
    check_comm(s2, "mpix://SHARED", "org.rdmach.test.shared", shared_np);
    check_case(s);
    check_bsend(s2);
    check_errors(s);

    MPI_OK(MPI_Session_finalize(&s2));
    CHECK(s2 == MPI_SESSION_NULL, "Session_finalize did not set the handle to MPI_SESSION_NULL");
    MPI_OK(MPI_Session_finalize(&s));

    /* Every session finalized: a new one works as the first did. */
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    check_psets(s);
    check_comm(s, "mpi://WORLD", "org.rdmach.test.again", np);
    MPI_OK(MPI_Session_finalize(&s));

    MPI_OK(MPI_Finalized(&flag));
    CHECK(!flag, "MPI_Finalized is true without MPI_Init/MPI_Finalize");
    if (argc == 4) {
        /* A forked child's normal exit leaves the device to its parent: it
         * must not run the closing exchange with the other ranks. */
        fflush(stdout);
        pid_t pid = fork();
        CHECK(pid >= 0, "fork failed");
        if (pid == 0)
            exit(0);
        int st = -1;
        CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child ended with 0x%x", st);
    }
    printf("session np %d: psets, comms, errhandlers, re-init ok\n", np);
    return 0;
}
