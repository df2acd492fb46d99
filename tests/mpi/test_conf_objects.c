/*
 * Names, info, attributes and error handlers on every object kind
 * (windows, datatypes, sessions, files, communicators) and the MPI-4.1
 * request and buffer calls, by the letter of MPI 4.1: the error class of
 * each invalid argument (9.4) with a message naming the function and the
 * argument (by the standard's parameter name), then the success path:
 *   7.8   a window's name: empty until set, truncated to
 *         MPI_MAX_OBJECT_NAME - 1 characters, resultlen its length;
 *   12.2.7 Win_get_info: a new object each call with the hints in use;
 *   9.3   an error handler of one object kind is refused by another's
 *         set_errhandler (MPI_ERR_ARG); Win_call_errhandler passes the code;
 *   9.5   Add_error_class/code/string: the code's class and string, and
 *         MPI_LASTUSEDCODE at least the new code;
 *   3.7.3 Request_get_status_any/all/some on null requests (flag true,
 *         MPI_UNDEFINED) and on a complete one (the request stays);
 *   3.6.1 MPI_BUFFER_AUTOMATIC: Bsend needs no buffer of the user's, and
 *         Buffer_detach gives back MPI_BUFFER_AUTOMATIC and size 0;
 *         A communicator's own buffer serves its Bsends before the
 *         process's; a second attach is refused; detach gives back what
 *         was attached;
 *   3.10.2 Sendrecv_replace / Isendrecv_replace with a derived datatype
 *         around a ring.
 * Any number of ranks.
 */
#include "conf_table.h"

static int rank, size;

static int win_calls, win_code;
static MPI_Win win_seen;

static void win_handler(MPI_Win *w, int *code, ...)
{
    win_calls++;
    win_seen = *w;
    win_code = *code;
}

static void comm_handler(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
}

static void window(void)
{
    int mem[4] = { 0 };
    MPI_Info hints;
    MPI_OK(MPI_Info_create(&hints));
    MPI_OK(MPI_Info_set(hints, "no_locks", "true"));
    MPI_OK(MPI_Info_set(hints, "accumulate_ordering", "none"));
    MPI_OK(MPI_Info_set(hints, "rdmach_no_such_hint", "1"));
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, sizeof mem, sizeof(int), hints, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

    char name[MPI_MAX_OBJECT_NAME + 32];
    int len = -1;
    MPI_OK(MPI_Win_get_name(win, name, &len));
    CONF_TRUE(len == 0 && name[0] == '\0', "an unnamed window's name \"%s\" (%d)", name, len);
    char longname[MPI_MAX_OBJECT_NAME + 20];
    memset(longname, 'w', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    MPI_OK(MPI_Win_set_name(win, longname));
    MPI_OK(MPI_Win_get_name(win, name, &len));
    CONF_TRUE(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len && strncmp(name, longname, (size_t)len) == 0,
          "a long window name: %d characters", len);
    MPI_OK(MPI_Win_set_name(win, "halo"));
    MPI_OK(MPI_Win_get_name(win, name, &len));
    CONF_TRUE(len == 4 && strcmp(name, "halo") == 0, "window name \"%s\" (%d)", name, len);

    MPI_Info u1, u2;
    char v[MPI_MAX_INFO_VAL];
    int flag;
    MPI_OK(MPI_Win_get_info(win, &u1));
    MPI_OK(MPI_Win_get_info(win, &u2));
    CONF_TRUE(u1 != u2, "Win_get_info returned the same object twice");
    MPI_OK(MPI_Info_get(u1, "no_locks", sizeof v - 1, v, &flag));
    CONF_TRUE(flag && strcmp(v, "true") == 0, "no_locks in use: flag %d \"%s\"", flag, flag ? v : "");
    MPI_OK(MPI_Info_get(u1, "accumulate_ordering", sizeof v - 1, v, &flag));
    CONF_TRUE(flag && strcmp(v, "none") == 0, "accumulate_ordering in use: flag %d \"%s\"", flag, flag ? v : "");
    MPI_OK(MPI_Info_get_valuelen(u1, "rdmach_no_such_hint", &len, &flag));
    CONF_TRUE(!flag, "an ignored hint is reported as in use");
    MPI_OK(MPI_Info_free(&u1));
    MPI_OK(MPI_Info_get(u2, "no_locks", sizeof v - 1, v, &flag));   /* u2 unaffected */
    CONF_TRUE(flag, "freeing one info of Win_get_info emptied the other");
    MPI_OK(MPI_Info_free(&u2));

    MPI_Errhandler weh, ceh, got;
    MPI_OK(MPI_Win_create_errhandler(win_handler, &weh));
    MPI_OK(MPI_Comm_create_errhandler(comm_handler, &ceh));
    MPI_Info stale;
    MPI_OK(MPI_Info_create(&stale));
    MPI_Info tofree = stale;
    MPI_OK(MPI_Info_free(&tofree));
    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    int tkv, ckv;
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tkv, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckv, NULL));
    void *attr;
    const struct conf_bad b[] = {
        { MPI_Win_set_name(win, NULL), MPI_ERR_ARG, "MPI_Win_set_name", "win_name" },
        { MPI_Win_get_name(win, NULL, &len), MPI_ERR_ARG, "MPI_Win_get_name", "win_name" },
        { MPI_Win_get_name(win, name, NULL), MPI_ERR_ARG, "MPI_Win_get_name", "resultlen" },
        { MPI_Win_get_info(win, NULL), MPI_ERR_ARG, "MPI_Win_get_info", "info_used" },
        { MPI_Win_set_info(win, stale), MPI_ERR_INFO, "MPI_Win_set_info", "info" },
        { MPI_Win_set_errhandler(win, ceh), MPI_ERR_ARG, "MPI_Win_set_errhandler", "errhandler" },
        { MPI_Win_get_errhandler(win, NULL), MPI_ERR_ARG, "MPI_Win_get_errhandler", "errhandler" },
        { MPI_Win_create_errhandler(NULL, &got), MPI_ERR_ARG, "MPI_Win_create_errhandler", "win_errhandler_fn" },
        { MPI_Comm_create_errhandler(NULL, &got), MPI_ERR_ARG, "MPI_Comm_create_errhandler", "comm_errhandler_fn" },
        { MPI_Session_create_errhandler(NULL, &got), MPI_ERR_ARG, "MPI_Session_create_errhandler",
          "session_errhandler_fn" },
        { MPI_File_create_errhandler(NULL, &got), MPI_ERR_ARG, "MPI_File_create_errhandler", "file_errhandler_fn" },
        { MPI_Comm_set_errhandler(MPI_COMM_WORLD, weh), MPI_ERR_ARG, "MPI_Comm_set_errhandler", "errhandler" },
        { MPI_File_set_errhandler(MPI_FILE_NULL, weh), MPI_ERR_ARG, "MPI_File_set_errhandler", "errhandler" },
        { MPI_Session_set_errhandler(s, weh), MPI_ERR_ARG, "MPI_Session_set_errhandler", "errhandler" },
        { MPI_Session_set_errhandler(MPI_SESSION_NULL, MPI_ERRORS_RETURN), MPI_ERR_SESSION,
          "MPI_Session_set_errhandler", "session" },
        { MPI_Win_set_attr(win, tkv, NULL), MPI_ERR_KEYVAL, "MPI_Win_set_attr", "win_keyval" },
        { MPI_Type_set_attr(MPI_DATATYPE_NULL, tkv, NULL), MPI_ERR_TYPE, "MPI_Type_set_attr", "datatype" },
        { MPI_Type_set_attr(MPI_INT, ckv, NULL), MPI_ERR_KEYVAL, "MPI_Type_set_attr", "type_keyval" },
        { MPI_Type_get_attr(MPI_INT, tkv, NULL, &flag), MPI_ERR_ARG, "MPI_Type_get_attr", "attribute_val" },
        { MPI_Type_get_attr(MPI_INT, tkv, &attr, NULL), MPI_ERR_ARG, "MPI_Type_get_attr", "flag" },
        { MPI_Type_delete_attr(MPI_INT, MPI_KEYVAL_INVALID), MPI_ERR_KEYVAL, "MPI_Type_delete_attr",
          "type_keyval" },
        { MPI_Comm_call_errhandler(MPI_COMM_NULL, MPI_ERR_OTHER), MPI_ERR_COMM, "MPI_Comm_call_errhandler",
          "comm" },
    };
    conf_expect_all(b, CONF_N(b));
    MPI_OK(MPI_Type_free_keyval(&tkv));
    MPI_OK(MPI_Comm_free_keyval(&ckv));

    /* A class and code of the user's (MPI 4.1 9.5) through the window's
     * handler (9.3.2): the handler gets the window and the code. */
    int cls, code, c2;
    MPI_OK(MPI_Add_error_class(&cls));
    MPI_OK(MPI_Add_error_code(cls, &code));
    MPI_OK(MPI_Add_error_string(code, "conformance: window code"));
    MPI_OK(MPI_Win_set_errhandler(win, weh));
    MPI_OK(MPI_Win_get_errhandler(win, &got));
    CONF_TRUE(got == weh, "Win_get_errhandler 0x%x, set 0x%x", (unsigned)got, (unsigned)weh);
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_OK(MPI_Win_call_errhandler(win, code));
    CONF_TRUE(win_calls == 1 && win_seen == win && win_code == code, "Win_call_errhandler: calls %d code %d (%d)",
          win_calls, win_code, code);
    MPI_OK(MPI_Error_class(code, &c2));
    CONF_TRUE(c2 == cls, "the new code's class %d, expected %d", c2, cls);
    MPI_OK(MPI_Error_string(code, v, &len));
    CONF_TRUE(strcmp(v, "conformance: window code") == 0 && len == (int)strlen(v), "the new code's string \"%s\"", v);
    int *last;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CONF_TRUE(flag && *last >= code && *last >= cls, "MPI_LASTUSEDCODE %d below the new code %d", flag ? *last : -1,
          code);
    const struct conf_bad e[] = {
        { MPI_Add_error_code(MPI_ERR_LASTCODE + 12345, &c2), MPI_ERR_ARG, "MPI_Add_error_code", "errorclass" },
        { MPI_Add_error_code(cls, NULL), MPI_ERR_ARG, "MPI_Add_error_code", "errorcode" },
        { MPI_Add_error_class(NULL), MPI_ERR_ARG, "MPI_Add_error_class", "errorclass" },
        { MPI_Add_error_string(MPI_ERR_ARG, "predefined"), MPI_ERR_ARG, "MPI_Add_error_string", "errorcode" },
        { MPI_Add_error_string(code, NULL), MPI_ERR_ARG, "MPI_Add_error_string", "string" },
    };
    conf_expect_all(e, CONF_N(e));
    /* MPI 4.1 9.5: a class goes after its codes, a code after its string;
     * once removed, a code is no longer valid (Error_class refuses it). */
    const struct conf_bad r[] = {
        { MPI_Remove_error_class(cls), MPI_ERR_ARG, "MPI_Remove_error_class", "errorclass" },
        { MPI_Remove_error_code(code), MPI_ERR_ARG, "MPI_Remove_error_code", "errorcode" },
        { MPI_Remove_error_class(MPI_ERR_ARG), MPI_ERR_ARG, "MPI_Remove_error_class", "errorclass" },
        { MPI_Remove_error_code(cls), MPI_ERR_ARG, "MPI_Remove_error_code", "errorcode" },
    };
    conf_expect_all(r, CONF_N(r));
    MPI_OK(MPI_Remove_error_string(code));
    MPI_OK(MPI_Remove_error_code(code));
    MPI_OK(MPI_Remove_error_class(cls));
    CONF_TRUE(mt_class(MPI_Error_class(code, &c2)) == MPI_ERR_ARG, "Error_class of a removed code accepted");
    CONF_TRUE(mt_class(MPI_Error_class(cls, &c2)) == MPI_ERR_ARG, "Error_class of a removed class accepted");
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_free(&weh));
    MPI_OK(MPI_Errhandler_free(&ceh));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Session_finalize(&s));
    MPI_OK(MPI_Info_free(&hints));
}

/* MPI 4.1 3.7.3: Request_get_status_any/all/some do not free or
 * deactivate; with only null requests: any gives flag true and index
 * MPI_UNDEFINED, all flag true, some outcount MPI_UNDEFINED. */
static void request_status(void)
{
    MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Status st[2];
    int idx = -5, flag = 0, out = -5, ind[2];
    MPI_OK(MPI_Request_get_status_any(2, r, &idx, &flag, &st[0]));
    CONF_TRUE(flag && idx == MPI_UNDEFINED, "get_status_any of nulls: flag %d index %d", flag, idx);
    flag = 0;
    MPI_OK(MPI_Request_get_status_all(2, r, &flag, st));
    CONF_TRUE(flag, "get_status_all of nulls: flag %d", flag);
    MPI_OK(MPI_Request_get_status_some(2, r, &out, ind, st));
    CONF_TRUE(out == MPI_UNDEFINED, "get_status_some of nulls: outcount %d", out);

    int x = 0, y = rank * 3 + 1;
    MPI_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_SELF, &r[1]));
    MPI_OK(MPI_Send(&y, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
    do
        MPI_OK(MPI_Request_get_status_any(2, r, &idx, &flag, &st[0]));
    while (!flag);
    CONF_TRUE(idx == 1 && st[0].MPI_TAG == 9 && st[0].MPI_SOURCE == 0 && r[1] != MPI_REQUEST_NULL,
          "get_status_any: index %d tag %d source %d", idx, st[0].MPI_TAG, st[0].MPI_SOURCE);
    MPI_OK(MPI_Request_get_status_some(2, r, &out, ind, st));
    CONF_TRUE(out == 1 && ind[0] == 1 && r[1] != MPI_REQUEST_NULL, "get_status_some: outcount %d index %d", out, ind[0]);
    MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    CONF_TRUE(x == y, "received %d, sent %d", x, y);
    const struct conf_bad b[] = {
        { MPI_Request_get_status_any(-1, r, &idx, &flag, st), MPI_ERR_COUNT, "MPI_Request_get_status_any",
          "count" },
        { MPI_Request_get_status_any(1, NULL, &idx, &flag, st), MPI_ERR_ARG, "MPI_Request_get_status_any",
          "array_of_requests" },
        { MPI_Request_get_status_any(1, r, NULL, &flag, st), MPI_ERR_ARG, "MPI_Request_get_status_any", "index" },
        { MPI_Request_get_status_all(1, r, NULL, st), MPI_ERR_ARG, "MPI_Request_get_status_all", "flag" },
        { MPI_Request_get_status_some(1, r, NULL, ind, st), MPI_ERR_ARG, "MPI_Request_get_status_some",
          "outcount" },
        { MPI_Request_get_status_some(-2, r, &out, ind, st), MPI_ERR_COUNT, "MPI_Request_get_status_some",
          "incount" },
        { MPI_Testsome(-1, r, &out, ind, st), MPI_ERR_COUNT, "MPI_Testsome", "incount" },
        { MPI_Waitany(-1, r, &idx, st), MPI_ERR_COUNT, "MPI_Waitany", "count" },
        { MPI_Testall(-1, r, &flag, st), MPI_ERR_COUNT, "MPI_Testall", "count" },
    };
    conf_expect_all(b, CONF_N(b));
}

/* MPI 4.1 3.6.1: with MPI_BUFFER_AUTOMATIC the library finds the space;
 * detach returns MPI_BUFFER_AUTOMATIC and 0. */
static void automatic_buffer(void)
{
    enum { N_INT = 1 << 16 };
    int *out = malloc(N_INT * sizeof(int)), *in = malloc(N_INT * sizeof(int));
    CHECK(out && in, "out of memory");
    for (int i = 0; i < N_INT; i++)
        out[i] = i ^ rank, in[i] = -1;
    MPI_OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    MPI_OK(MPI_Bsend(out, N_INT, MPI_INT, 0, 5, MPI_COMM_SELF));
    MPI_OK(MPI_Recv(in, N_INT, MPI_INT, 0, 5, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    int bad = -1;
    for (int i = 0; i < N_INT && bad < 0; i++)
        if (in[i] != (i ^ rank))
            bad = i;
    CONF_TRUE(bad < 0, "Bsend through the automatic buffer: int %d wrong", bad);
    void *addr = NULL;
    int sz = -1;
    MPI_OK(MPI_Buffer_detach(&addr, &sz));
    CONF_TRUE(addr == MPI_BUFFER_AUTOMATIC && sz == 0, "Buffer_detach of the automatic buffer: %p %d", addr, sz);
    const struct conf_bad b[] = {
        { MPI_Buffer_detach(NULL, &sz), MPI_ERR_ARG, "MPI_Buffer_detach", "buffer_addr" },
        { MPI_Buffer_detach(&addr, NULL), MPI_ERR_ARG, "MPI_Buffer_detach", "size" },
    };
    conf_expect_all(b, CONF_N(b));
    free(out);
    free(in);
}

/* MPI 4.1 3.6.1: a Bsend on a communicator with a buffer of its own uses
 * that buffer, not the process's; a second attach to the same
 * communicator is refused; detach returns what was attached (the user's
 * memory and size, or MPI_BUFFER_AUTOMATIC and 0); Comm_flush_buffer
 * returns once the buffered messages are sent. */
static void comm_buffers(void)
{
    enum { BYTES = 4096, BIG = 1 << 20 };
    static char small[16], own[BYTES + MPI_BSEND_OVERHEAD], other[256];
    char *out = malloc(BIG), *in = malloc(BIG);
    CHECK(out && in, "out of memory");
    for (int i = 0; i < BIG; i++)
        out[i] = (char)(i * 7 + rank), in[i] = 0;
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Buffer_attach(small, sizeof small));
    MPI_OK(MPI_Comm_attach_buffer(c, own, sizeof own));
    MPI_OK(MPI_Bsend(out, BYTES, MPI_CHAR, rank, 1, c));
    MPI_OK(MPI_Recv(in, BYTES, MPI_CHAR, rank, 1, c, MPI_STATUS_IGNORE));
    CONF_TRUE(memcmp(in, out, BYTES) == 0, "Bsend through the communicator's buffer: data differ");
    int rc = MPI_Bsend(out, BYTES, MPI_CHAR, rank, 1, MPI_COMM_WORLD);    /* the process's: 16 bytes */
    CONF_TRUE(mt_class(rc) == MPI_ERR_BUFFER, "Bsend of %d bytes through a 16-byte buffer: class %d", BYTES,
              mt_class(rc));
    const struct conf_bad b[] = {
        { MPI_Comm_attach_buffer(c, other, sizeof other), MPI_ERR_BUFFER, "MPI_Comm_attach_buffer", "buffer" },
        { MPI_Comm_detach_buffer(c, NULL, &rc), MPI_ERR_ARG, "MPI_Comm_detach_buffer", "buffer_addr" },
        { MPI_Comm_iflush_buffer(c, NULL), MPI_ERR_ARG, "MPI_Comm_iflush_buffer", "request" },
    };
    conf_expect_all(b, CONF_N(b));
    void *addr;
    int sz;
    MPI_OK(MPI_Comm_detach_buffer(c, &addr, &sz));
    CONF_TRUE(addr == own && sz == (int)sizeof own, "Comm_detach_buffer: %p %d, attached %p %d", addr, sz,
              (void *)own, (int)sizeof own);
    MPI_OK(MPI_Buffer_detach(&addr, &sz));
    CONF_TRUE(addr == small && sz == (int)sizeof small, "Buffer_detach: %p %d", addr, sz);

    MPI_Request r;
    MPI_OK(MPI_Comm_attach_buffer(c, MPI_BUFFER_AUTOMATIC, 0));
    MPI_OK(MPI_Irecv(in, BIG, MPI_CHAR, rank, 2, c, &r));
    MPI_OK(MPI_Bsend(out, BIG, MPI_CHAR, rank, 2, c));
    MPI_OK(MPI_Comm_flush_buffer(c));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CONF_TRUE(memcmp(in, out, BIG) == 0, "Bsend of 1 MiB through the automatic communicator buffer: data differ");
    MPI_OK(MPI_Comm_detach_buffer(c, &addr, &sz));
    CONF_TRUE(addr == MPI_BUFFER_AUTOMATIC && sz == 0, "Comm_detach_buffer of the automatic buffer: %p %d", addr,
              sz);
    MPI_OK(MPI_Comm_free(&c));
    free(out);
    free(in);
}

/* MPI 4.1 3.10.2: the replace forms with a strided datatype: every second
 * int of 8 goes right around the ring and comes back in its place, the
 * others untouched. */
static void sendrecv_replace(void)
{
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int round = 0; round < 2; round++) {
        int buf[8];
        for (int i = 0; i < 8; i++)
            buf[i] = rank * 100 + i;
        if (round == 0) {
            MPI_OK(MPI_Sendrecv_replace(buf, 1, v, to, 4, from, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            MPI_Request r;
            MPI_OK(MPI_Isendrecv_replace(buf, 1, v, to, 4, from, 4, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < 8; i++) {
            int want = (i % 2 == 0 ? from : rank) * 100 + i;
            CONF_TRUE(buf[i] == want, "%s: int %d is %d, expected %d", round ? "Isendrecv_replace" : "Sendrecv_replace",
                  i, buf[i], want);
        }
    }
    int buf[8];
    MPI_OK(MPI_Sendrecv_replace(buf, 0, v, MPI_PROC_NULL, 4, MPI_PROC_NULL, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Type_free(&v));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &rank, &size);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    window();
    request_status();
    automatic_buffer();
    comm_buffers();
    sendrecv_replace();
    int total;
    MPI_OK(MPI_Reduce(&conf_checks, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Finalize());
    if (rank == 0)
        printf("test_conf_objects: OK (%d checks on rank 0, %d in all)\n", conf_checks, total);
    return 0;
}
