/*
 * Communicator calls by the letter of MPI 4.0 chapter 7.4 and 9.3: Comm_split
 * (MPI_UNDEFINED colors give MPI_COMM_NULL, ties of key keep the parent's
 * order, negative keys order first), Comm_compare's four results, names
 * (world's and self's are predefined, a duplicate's name is not copied,
 * MPI_MAX_OBJECT_NAME truncation; the null handles' names as MPICH gives
 * them, any other invalid handle still an error), Comm_dup keeping the
 * topology, Comm_idup, Comm_test_inter, Comm_disconnect (collective free),
 * Comm_get_parent (not spawned: MPI_COMM_NULL), Comm_remote_size/group of
 * an intracommunicator (MPI_ERR_COMM), error handlers on communicators
 * (set, get, Comm_call_errhandler invoking a user handler with the code,
 * the handler inherited by new communicators) and the error classes of bad
 * arguments. Any number of ranks.
 */
#include "mpi_test.h"

static int size, rank;

static void split(void)
{
    /* color: rank % 3, but rank 1 undefined; key: reversed for color 0,
     * all equal for color 2 (parent order), negative for color 1 */
    int color = rank == 1 ? MPI_UNDEFINED : rank % 3;
    int key = color == 0 ? -rank : color == 2 ? 5 : -100 + rank;
    MPI_Comm c;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, key, &c));
    if (color == MPI_UNDEFINED) {
        CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED color gave a communicator");
        return;
    }
    int want[64], n = 0;
    for (int r = 0; r < size; r++)
        if (r != 1 && r % 3 == color)
            want[n++] = r;
    if (color == 0)          /* key -r: descending world rank */
        for (int i = 0; i < n / 2; i++) {
            int t = want[i];
            want[i] = want[n - 1 - i];
            want[n - 1 - i] = t;
        }
    int cs, got[64];
    MPI_OK(MPI_Comm_size(c, &cs));
    CHECK(cs == n, "split color %d: size %d, expected %d", color, cs, n);
    MPI_OK(MPI_Allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, c));
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "split color %d: rank %d is world %d, expected %d", color, i, got[i], want[i]);
    int res;
    MPI_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    CHECK(res == (n == size ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(split, world) = %d", res);
    MPI_OK(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "Comm_free left the handle");
}

static void compare_and_names(void)
{
    MPI_Comm dup, rev, sub;
    int res;
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_IDENT, "compare(world, world) = %d", res);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    CHECK(res == MPI_CONGRUENT, "compare(world, dup) = %d", res);
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, rev, &res));
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare(world, reversed) = %d", res);
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &sub));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, sub, &res));
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(world, part) = %d", res);
    MPI_OK(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_SELF, &res));
    CHECK(res == MPI_IDENT, "compare(self, self) = %d", res);
    MPI_OK(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &res));
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(self, world) = %d", res);

    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name '%s' (%d)", name, len);
    MPI_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13, "self's name '%s' (%d)", name, len);
    MPI_OK(MPI_Comm_get_name(dup, name, &len));
    CHECK(len == 0 && name[0] == '\0', "a new communicator's name is '%s'", name);
    MPI_OK(MPI_Comm_set_name(dup, "conformance"));
    MPI_OK(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "conformance") == 0 && len == 11, "name '%s' (%d) after set", name, len);
    MPI_Comm dup2;
    MPI_OK(MPI_Comm_dup(dup, &dup2));
    MPI_OK(MPI_Comm_get_name(dup2, name, &len));
    CHECK(len == 0, "Comm_dup copied the name '%s' (MPI: names are not propagated)", name);
    char longname[2 * MPI_MAX_OBJECT_NAME];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    MPI_OK(MPI_Comm_set_name(dup2, longname));
    MPI_OK(MPI_Comm_get_name(dup2, name, &len));
    CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len, "a long name came back as %d chars", len);
    MPI_OK(MPI_Comm_set_name(MPI_COMM_WORLD, "renamed"));
    MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "renamed") == 0, "world renamed is '%s'", name);
    MPI_OK(MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD"));

    int flag = -1;
    MPI_OK(MPI_Comm_test_inter(dup, &flag));
    CHECK(flag == 0, "an intracommunicator tests inter %d", flag);

    MPI_OK(MPI_Comm_free(&dup2));
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Comm_free(&rev));
    MPI_OK(MPI_Comm_free(&sub));
}

/* Comm_get_name, Type_get_name and Win_get_name of MPI_COMM_NULL,
 * MPI_DATATYPE_NULL and MPI_WIN_NULL: MPI 4.1 7.8 names objects, and a
 * null handle is none, but MPICH returns the handle's own name and
 * programs written for it (its test suite's comm/commname) rely on that;
 * rdmach, a drop-in, does the same. Freed or garbage handles, a NULL
 * output, and setting a null handle's name stay errors. */
static void null_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    MPI_OK(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
    CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && len == 13, "MPI_COMM_NULL's name '%s' (%d)", name, len);
    MPI_OK(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
    CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0 && len == 17, "MPI_DATATYPE_NULL's name '%s' (%d)", name, len);
    MPI_OK(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
    CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && len == 12, "MPI_WIN_NULL's name '%s' (%d)", name, len);

    CHECK(mt_class(MPI_Comm_get_name(MPI_COMM_NULL, NULL, &len)) == MPI_ERR_ARG, "Comm_get_name(NULL name)");
    CHECK(mt_class(MPI_Comm_get_name(MPI_COMM_NULL, name, NULL)) == MPI_ERR_ARG, "Comm_get_name(NULL resultlen)");
    CHECK(mt_class(MPI_Type_get_name(MPI_DATATYPE_NULL, NULL, &len)) == MPI_ERR_ARG, "Type_get_name(NULL name)");
    CHECK(mt_class(MPI_Win_get_name(MPI_WIN_NULL, name, NULL)) == MPI_ERR_ARG, "Win_get_name(NULL resultlen)");
    CHECK(mt_class(MPI_Comm_get_name((MPI_Comm)0x12345, name, &len)) == MPI_ERR_COMM, "Comm_get_name(garbage)");
    MPI_Comm c, stale;
    MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &c));
    stale = c;
    MPI_OK(MPI_Comm_free(&c));
    CHECK(mt_class(MPI_Comm_get_name(stale, name, &len)) == MPI_ERR_COMM, "Comm_get_name(freed)");
    MPI_Datatype t, tstale;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    tstale = t;
    MPI_OK(MPI_Type_free(&t));
    CHECK(mt_class(MPI_Type_get_name(tstale, name, &len)) == MPI_ERR_TYPE, "Type_get_name(freed)");
    CHECK(mt_class(MPI_Type_set_name(MPI_DATATYPE_NULL, "x")) == MPI_ERR_TYPE, "Type_set_name(NULL)");
    MPI_Win w, wstale;
    MPI_OK(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_SELF, &w));
    MPI_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    wstale = w;
    MPI_OK(MPI_Win_free(&w));
    CHECK(mt_class(MPI_Win_get_name(wstale, name, &len)) == MPI_ERR_WIN, "Win_get_name(freed)");
    CHECK(mt_class(MPI_Win_set_name(MPI_WIN_NULL, "x")) == MPI_ERR_WIN, "Win_set_name(NULL)");
}

static void idup_and_topology(void)
{
    int dims[1] = { size }, periods[1] = { 1 };
    MPI_Comm cart, d, i;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    MPI_OK(MPI_Comm_dup(cart, &d));
    int status;
    MPI_OK(MPI_Topo_test(d, &status));
    CHECK(status == MPI_CART, "Comm_dup of a Cartesian communicator has topology %d", status);
    MPI_Request req;
    MPI_OK(MPI_Comm_idup(cart, &i, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "Wait left the Comm_idup request");
    int res;
    MPI_OK(MPI_Comm_compare(cart, i, &res));
    CHECK(res == MPI_CONGRUENT, "compare(comm, idup) = %d", res);
    MPI_OK(MPI_Topo_test(i, &status));
    CHECK(status == MPI_CART, "Comm_idup of a Cartesian communicator has topology %d", status);
    /* the duplicate is a separate context: traffic on it does not match the parent's */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int on_i = 10 * rank + 1, on_cart = 10 * rank + 2, b = -1, x = -1;
    MPI_Request r2[2];
    MPI_OK(MPI_Irecv(&x, 1, MPI_INT, left, 3, cart, &r2[0]));
    MPI_OK(MPI_Irecv(&b, 1, MPI_INT, left, 3, i, &r2[1]));
    MPI_OK(MPI_Send(&on_i, 1, MPI_INT, right, 3, i));
    MPI_OK(MPI_Send(&on_cart, 1, MPI_INT, right, 3, cart));
    MPI_OK(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
    CHECK(b == 10 * left + 1 && x == 10 * left + 2, "idup/parent traffic crossed: got %d on idup, %d on parent", b, x);
    MPI_OK(MPI_Comm_free(&i));
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free(&cart));
}

static int handler_calls, handler_code;
static MPI_Comm handler_comm;
static void handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
}

static void errhandlers(void)
{
    MPI_Errhandler eh, got;
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Comm_create_errhandler(handler, &eh));
    MPI_OK(MPI_Comm_set_errhandler(d, eh));
    MPI_OK(MPI_Comm_get_errhandler(d, &got));
    CHECK(got == eh, "get_errhandler 0x%x, set 0x%x", (unsigned)got, (unsigned)eh);
    MPI_OK(MPI_Errhandler_free(&got));
    /* Comm_call_errhandler invokes it with the code */
    MPI_OK(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER));
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER && handler_comm == d,
          "call_errhandler: %d calls, code %d", handler_calls, handler_code);
    /* an error in a call on d goes to the handler, and the call returns the code */
    int rc = MPI_Send(NULL, -1, MPI_INT, 0, 0, d);
    CHECK(handler_calls == 2 && mt_class(rc) == MPI_ERR_COUNT && mt_class(handler_code) == MPI_ERR_COUNT,
          "an error on d: %d calls, rc class %d", handler_calls, mt_class(rc));
    /* new communicators inherit the parent's handler (7.4 / 9.3) */
    MPI_Comm d2;
    MPI_OK(MPI_Comm_dup(d, &d2));
    MPI_OK(MPI_Comm_get_errhandler(d2, &got));
    CHECK(got == eh, "a duplicate's handler 0x%x, parent's 0x%x", (unsigned)got, (unsigned)eh);
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_Comm s;
    MPI_OK(MPI_Comm_split(d, 0, 0, &s));
    MPI_OK(MPI_Comm_get_errhandler(s, &got));
    CHECK(got == eh, "a split's handler 0x%x, parent's 0x%x", (unsigned)got, (unsigned)eh);
    MPI_OK(MPI_Errhandler_free(&got));
    /* freeing the handler while in use: the communicators keep it */
    MPI_OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free left 0x%x", (unsigned)eh);
    MPI_OK(MPI_Comm_call_errhandler(s, MPI_ERR_ARG));
    CHECK(handler_calls == 3 && handler_code == MPI_ERR_ARG, "handler after free: %d calls", handler_calls);
    MPI_OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_get_errhandler(d, &got));
    CHECK(got == MPI_ERRORS_RETURN, "get_errhandler after setting MPI_ERRORS_RETURN 0x%x", (unsigned)got);
    MPI_OK(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER));     /* returns, calls nothing */
    CHECK(handler_calls == 3, "MPI_ERRORS_RETURN called the user handler");
    /* a window's handler is not a communicator's (9.3.1) */
    MPI_Errhandler weh;
    MPI_OK(MPI_Win_create_errhandler((MPI_Win_errhandler_function *)handler, &weh));
    int cl = mt_class(MPI_Comm_set_errhandler(d, weh));
    CHECK(cl == MPI_ERR_ARG, "Comm_set_errhandler with a window handler: class %d", cl);
    MPI_OK(MPI_Errhandler_free(&weh));
    /* MPI_ERRORS_ABORT (MPI 4) is a predefined communicator handler */
    MPI_OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_ABORT));
    MPI_OK(MPI_Comm_get_errhandler(d, &got));
    CHECK(got == MPI_ERRORS_ABORT, "get_errhandler after MPI_ERRORS_ABORT 0x%x", (unsigned)got);
    MPI_OK(MPI_Comm_free(&s));
    MPI_OK(MPI_Comm_free(&d2));
    MPI_OK(MPI_Comm_free(&d));
}

static void disconnect_and_parent(void)
{
    MPI_Comm parent = MPI_COMM_WORLD, d;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "Comm_get_parent of a process not spawned: 0x%x", (unsigned)parent);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    int x = rank, y = -1;
    MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, d));
    CHECK(y == size - 1, "allreduce on the duplicate %d", y);
    MPI_OK(MPI_Comm_disconnect(&d));
    CHECK(d == MPI_COMM_NULL, "Comm_disconnect left the handle");
    MPI_Comm w = MPI_COMM_WORLD;
    CHECK(mt_class(MPI_Comm_disconnect(&w)) == MPI_ERR_COMM, "Comm_disconnect(MPI_COMM_WORLD) class");
}

static void comm_errors(void)
{
    MPI_Comm c = MPI_COMM_NULL, world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    int x;
    CHECK(mt_class(MPI_Comm_size(MPI_COMM_NULL, &x)) == MPI_ERR_COMM, "Comm_size(NULL) class");
    CHECK(mt_class(MPI_Comm_rank((MPI_Comm)0x12345, &x)) == MPI_ERR_COMM, "Comm_rank(garbage) class");
    CHECK(mt_class(MPI_Comm_dup(MPI_COMM_NULL, &c)) == MPI_ERR_COMM, "Comm_dup(NULL) class");
    CHECK(mt_class(MPI_Comm_free(&world)) == MPI_ERR_COMM, "Comm_free(MPI_COMM_WORLD) class");
    CHECK(mt_class(MPI_Comm_free(&self)) == MPI_ERR_COMM, "Comm_free(MPI_COMM_SELF) class");
    CHECK(mt_class(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c)) == MPI_ERR_ARG, "split color -5 class");
    CHECK(mt_class(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &x)) == MPI_ERR_COMM, "compare(NULL) class");
    CHECK(mt_class(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c)) == MPI_ERR_GROUP, "create(GROUP_NULL)");
    CHECK(mt_class(MPI_Comm_set_name(MPI_COMM_NULL, "x")) == MPI_ERR_COMM, "set_name(NULL) class");
    CHECK(mt_class(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c)) == MPI_ERR_ARG,
          "split_type 12345 class");
    CHECK(mt_class(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL)) == MPI_ERR_ARG,
          "set_errhandler(NULL) class");
    CHECK(c == MPI_COMM_NULL, "a failed call wrote newcomm");
    /* the remote group of an intracommunicator: MPI_ERR_COMM (7.4.1: comm is an intercommunicator) */
    MPI_Group g = MPI_GROUP_NULL;
    CHECK(mt_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &x)) == MPI_ERR_COMM, "Comm_remote_size(world) class");
    CHECK(mt_class(MPI_Comm_remote_group(MPI_COMM_WORLD, &g)) == MPI_ERR_COMM && g == MPI_GROUP_NULL,
          "Comm_remote_group(world) class");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_rank = rank;
    CHECK(size <= 64, "at most 64 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    split();
    compare_and_names();
    null_names();
    idup_and_topology();
    errhandlers();
    disconnect_and_parent();
    comm_errors();
    MPI_Finalize();
    if (rank == 0)
        printf("test_conf_comm: %d ranks ok\n", size);
    return 0;
}
