/*
 * The MPI tool information interface (MPI-4.1 chapter 15) on two ranks,
 * run with RDMACH_SHM_EAGER_MAX=4096 RDMACH_EAGER_CREDITS=17 RDMACH_CMA=off
 * RDMACH_LOG_INTERVAL=7 in the environment (mpit.cmake); the argument names
 * the channel between the two ranks (default shm; ofi when every rank is a
 * node of its own):
 *   - before MPI_Init: MPI_T refuses calls until MPI_T_init_thread, which
 *     nests; every cvar is enumerated (names unique, get_index inverts
 *     get_info); the environment's values are read back with the types the
 *     standard's table allows; writes are refused as SET_NEVER (read at
 *     start-up) or SET_NOT_NOW (writable, but MPI_Init would undo it);
 *     categories partition the cvars, pvars and events;
 *   - after MPI_Init: a writable cvar takes a value in its range and
 *     refuses one outside it; pvar counters grow by exactly the messages
 *     and bytes sent and received; the unexpected-queue level and
 *     high-water mark after N messages nobody waited for; one rendezvous is
 *     counted once (by its sender or its receiver); the unexpected-message
 *     event's callback sees each message's envelope and size, in order (a
 *     callback that frees its own registration runs once; one registered
 *     only for MPI_T_CB_REQUIRE_NONE never runs inside progress);
 *   - invalid indices, handles, sessions and names give the MPI_T_ERR_*
 *     classes MPI-4.1 names;
 *   - after MPI_Finalize: MPI_T still answers until its last finalize.
 * Built also with Debian's mpicc.mpich (tests/abi): only mpi.h is used.
 */
#include "mpi_test.h"

#define T_OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)
#define T_ERR(call, cls) do { int e_ = (call); CHECK(e_ == (cls), "%s gave %d, not %s (%d)", #call, e_, #cls, cls); } while (0)

static int cvar_index(const char *name)
{
    int i = -1;
    T_OK(MPI_T_cvar_get_index(name, &i));
    return i;
}

static MPI_T_cvar_handle cvar_handle(const char *name, MPI_Datatype want, int want_count)
{
    int i = cvar_index(name), count = -1;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    T_OK(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, NULL, NULL, NULL, NULL, NULL));
    CHECK(dt == want, "%s: datatype %#lx", name, (unsigned long)(uintptr_t)dt);
    MPI_T_cvar_handle h;
    T_OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK(count == want_count, "%s: count %d, expected %d", name, count, want_count);
    return h;
}

static int cvar_int(const char *name)
{
    MPI_T_cvar_handle h = cvar_handle(name, MPI_INT, 1);
    int v = -1;
    T_OK(MPI_T_cvar_read(h, &v));
    T_OK(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle not reset by free");
    return v;
}

/* The value of enumeration item called `item` of cvar `name`. */
static int enum_value(const char *name, const char *item)
{
    MPI_T_enum e = MPI_T_ENUM_NULL;
    T_OK(MPI_T_cvar_get_info(cvar_index(name), NULL, NULL, NULL, NULL, &e, NULL, NULL, NULL, NULL));
    CHECK(e != MPI_T_ENUM_NULL, "%s has no enumeration", name);
    int num = 0;
    T_OK(MPI_T_enum_get_info(e, &num, NULL, NULL));
    for (int k = 0; k < num; k++) {
        char s[64];
        int len = sizeof(s), v;
        T_OK(MPI_T_enum_get_item(e, k, &v, s, &len));
        if (strcmp(s, item) == 0)
            return v;
    }
    T_ERR(MPI_T_enum_get_item(e, num, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK(0, "%s has no item %s", name, item);
    return -1;
}

static void cvars_before_init(void)
{
    int n = 0;
    T_OK(MPI_T_cvar_get_num(&n));
    CHECK(n > 40, "only %d cvars", n);
    char (*names)[96] = calloc((size_t)n, sizeof(*names));
    for (int i = 0; i < n; i++) {
        int len = 0;
        /* name_len 0: the length needed, the NUL included (MPI-4.1 15.3.3) */
        T_OK(MPI_T_cvar_get_info(i, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
        CHECK(len > 8 && len <= 96, "cvar %d: name length %d", i, len);
        int verbosity, bind, scope, desc_len = 0, l2 = len;
        MPI_Datatype dt;
        MPI_T_enum e;
        T_OK(MPI_T_cvar_get_info(i, names[i], &l2, &verbosity, &dt, &e, NULL, &desc_len, &bind, &scope));
        CHECK(l2 == len && (int)strlen(names[i]) == len - 1, "cvar %d: %s, length %d", i, names[i], l2);
        CHECK(strncmp(names[i], "RDMACH_", 7) == 0, "cvar %d is %s", i, names[i]);
        CHECK(desc_len > 1, "%s has no description", names[i]);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "%s: bind %d", names[i], bind);
        CHECK(scope == MPI_T_SCOPE_READONLY || scope == MPI_T_SCOPE_LOCAL, "%s: scope %d", names[i], scope);
        CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL, "%s", names[i]);
        CHECK(dt == MPI_INT || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_CHAR, "%s: type", names[i]);
        CHECK((e != MPI_T_ENUM_NULL) <= (dt == MPI_INT), "%s: an enumeration of a non-int", names[i]);
        CHECK(cvar_index(names[i]) == i, "get_index(%s) != %d", names[i], i);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(names[i], names[j]) != 0, "%s twice", names[i]);
    }
    free(names);
    /* a short buffer: truncated, NUL-terminated, length stored + 1 */
    char s[5];
    int len = sizeof(s);
    T_OK(MPI_T_cvar_get_info(cvar_index("RDMACH_SHM_EAGER_MAX"), s, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(strcmp(s, "RDMA") == 0 && len == 5, "truncated name '%s' length %d", s, len);

    /* the environment's values (mpit.cmake) */
    MPI_T_cvar_handle h = cvar_handle("RDMACH_SHM_EAGER_MAX", MPI_UNSIGNED_LONG_LONG, 1);
    unsigned long long eager = 0;
    T_OK(MPI_T_cvar_read(h, &eager));
    CHECK(eager == 4096, "RDMACH_SHM_EAGER_MAX reads %llu", eager);
    T_ERR(MPI_T_cvar_write(h, &eager), MPI_T_ERR_CVAR_SET_NEVER);
    T_OK(MPI_T_cvar_handle_free(&h));
    CHECK(cvar_int("RDMACH_EAGER_CREDITS") == 17, "RDMACH_EAGER_CREDITS");
    CHECK(cvar_int("RDMACH_CMA") == enum_value("RDMACH_CMA", "off"), "RDMACH_CMA is not off");
    CHECK(enum_value("RDMACH_CMA", "auto") == 0 && enum_value("RDMACH_CMA", "on") == 1, "RDMACH_CMA items");
    CHECK(cvar_int("RDMACH_SHM") == 1 && enum_value("RDMACH_SHM", "on") == 1 &&
          enum_value("RDMACH_SHM", "off") == 0, "RDMACH_SHM (a boolean, on by default)");
    CHECK(cvar_int("RDMACH_LOG_INTERVAL") == 7, "RDMACH_LOG_INTERVAL");
    h = cvar_handle("RDMACH_TUNING_FILE", MPI_CHAR, 1024);
    char file[1024] = "x";
    T_OK(MPI_T_cvar_read(h, file));
    CHECK(file[0] == '\0', "RDMACH_TUNING_FILE is '%s'", file);
    T_OK(MPI_T_cvar_handle_free(&h));
    /* writable, but MPI_Init would read the environment again */
    h = cvar_handle("RDMACH_LOG_INTERVAL", MPI_INT, 1);
    int v = 9;
    T_ERR(MPI_T_cvar_write(h, &v), MPI_T_ERR_CVAR_SET_NOT_NOW);
    T_OK(MPI_T_cvar_handle_free(&h));

    /* errors */
    int i;
    T_ERR(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T_ERR(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T_ERR(MPI_T_cvar_handle_alloc(n, NULL, &h, &v), MPI_T_ERR_INVALID_INDEX);
    T_ERR(MPI_T_cvar_get_index("RDMACH_NO_SUCH_THING", &i), MPI_T_ERR_INVALID_NAME);
    T_ERR(MPI_T_cvar_get_index("shm_eager_max", &i), MPI_T_ERR_INVALID_NAME);
    T_ERR(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &v, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    MPI_T_cvar_handle stale = cvar_handle("RDMACH_EAGER_CREDITS", MPI_INT, 1), copy = stale;
    T_OK(MPI_T_cvar_handle_free(&stale));
    T_ERR(MPI_T_cvar_read(copy, &v), MPI_T_ERR_INVALID_HANDLE);
    T_ERR(MPI_T_cvar_handle_free(&copy), MPI_T_ERR_INVALID_HANDLE);
}

/* Categories: every cvar, pvar and event in exactly one; the first one's
 * subcategories are all the others. */
static void categories(void)
{
    int ncat, ncvar, npvar, nev;
    T_OK(MPI_T_category_get_num(&ncat));
    T_OK(MPI_T_cvar_get_num(&ncvar));
    T_OK(MPI_T_pvar_get_num(&npvar));
    T_OK(MPI_T_event_get_num(&nev));
    int *seen = calloc((size_t)(ncvar + npvar + nev), sizeof(int));
    int sub_total = 0;
    for (int c = 0; c < ncat; c++) {
        char name[64];
        int len = sizeof(name), nc, np, ns, ne, idx = -1;
        T_OK(MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &ns));
        T_OK(MPI_T_category_get_num_events(c, &ne));
        T_OK(MPI_T_category_get_index(name, &idx));
        CHECK(idx == c, "category %s: index %d, not %d", name, idx, c);
        int *ix = malloc(sizeof(int) * (size_t)(nc + np + ne + ns + 1));
        T_OK(MPI_T_category_get_cvars(c, nc, ix));
        for (int k = 0; k < nc; k++)
            seen[ix[k]]++;
        T_OK(MPI_T_category_get_pvars(c, np, ix));
        for (int k = 0; k < np; k++)
            seen[ncvar + ix[k]]++;
        T_OK(MPI_T_category_get_events(c, ne, ix));
        for (int k = 0; k < ne; k++)
            seen[ncvar + npvar + ix[k]]++;
        T_OK(MPI_T_category_get_categories(c, ns, ix));
        for (int k = 0; k < ns; k++)
            CHECK(ix[k] > 0 && ix[k] < ncat, "category %s: subcategory %d", name, ix[k]);
        sub_total += ns;
        free(ix);
    }
    CHECK(sub_total == ncat - 1, "%d subcategory links among %d categories", sub_total, ncat);
    for (int i = 0; i < ncvar + npvar + nev; i++)
        CHECK(seen[i] == 1, "variable/event %d is in %d categories", i, seen[i]);
    free(seen);
    int u = -1, i;
    T_OK(MPI_T_category_changed(&u));
    CHECK(u == 0, "category update number %d", u);
    T_ERR(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    T_ERR(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    T_ERR(MPI_T_category_get_index("nothing", &i), MPI_T_ERR_INVALID_NAME);
}

/* ---- performance variables ---- */

static MPI_T_pvar_session ses;

static MPI_T_pvar_handle pvar(const char *name, int cls)
{
    int i = -1, count = 0;
    T_OK(MPI_T_pvar_get_index(name, cls, &i));
    MPI_T_pvar_handle h;
    T_OK(MPI_T_pvar_handle_alloc(ses, i, NULL, &h, &count));
    CHECK(count == 1, "%s: count %d", name, count);
    return h;
}

static unsigned long long rd(MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    T_OK(MPI_T_pvar_read(ses, h, &v));
    return v;
}

enum { N_MSGS = 5, N_UNEXP = 7, INTS = 25 };

/* The pvar <chan>_<what> (the channel between the two ranks). */
static MPI_T_pvar_handle chan_pvar(const char *chan, const char *what)
{
    char name[64];
    snprintf(name, sizeof(name), "%s_%s", chan, what);
    return pvar(name, MPI_T_PVAR_CLASS_COUNTER);
}

static void pvars(int rank, const char *chan)
{
    T_OK(MPI_T_pvar_session_create(&ses));
    MPI_T_pvar_handle sent = chan_pvar(chan, "msgs_sent");
    MPI_T_pvar_handle sbytes = chan_pvar(chan, "bytes_sent");
    MPI_T_pvar_handle recvd = chan_pvar(chan, "msgs_recv");
    MPI_T_pvar_handle rbytes = chan_pvar(chan, "bytes_recv");
    MPI_T_pvar_handle level = pvar("unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    MPI_T_pvar_handle hwm = pvar("unexpected_queue_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    MPI_T_pvar_handle arrived = pvar("unexpected_arrived", MPI_T_PVAR_CLASS_COUNTER);
    int buf[INTS] = { 0 }, peer = 1 - rank;

    /* exactly the messages sent: no MPI call of this rank in between */
    if (rank == 0) {
        unsigned long long s0 = rd(sent), b0 = rd(sbytes);
        for (int k = 0; k < N_MSGS; k++)
            MPI_OK(MPI_Send(buf, INTS, MPI_INT, peer, 1, MPI_COMM_WORLD));
        CHECK(rd(sent) - s0 == N_MSGS && rd(sbytes) - b0 == N_MSGS * sizeof(buf),
              "sent %llu messages, %llu bytes", rd(sent) - s0, rd(sbytes) - b0);
    } else {
        unsigned long long r0 = rd(recvd), b0 = rd(rbytes);
        for (int k = 0; k < N_MSGS; k++)
            MPI_OK(MPI_Recv(buf, INTS, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(rd(recvd) - r0 == N_MSGS && rd(rbytes) - b0 == N_MSGS * sizeof(buf),
              "received %llu messages, %llu bytes", rd(recvd) - r0, rd(rbytes) - b0);
    }

    /* N_UNEXP messages nobody waits for, then one the receiver waits for:
     * the receiver posts that receive before it lets the sender start */
    if (rank == 0) {
        MPI_OK(MPI_Recv(NULL, 0, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int k = 0; k < N_UNEXP; k++)
            MPI_OK(MPI_Send(buf, k, MPI_INT, peer, 3, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 4, MPI_COMM_WORLD));
        /* nothing more until the receiver has counted: it would be unexpected too */
        MPI_OK(MPI_Recv(NULL, 0, MPI_INT, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        unsigned long long l0 = rd(level), h0 = rd(hwm), a0 = rd(arrived);
        CHECK(l0 == 0, "unexpected queue holds %llu", l0);
        MPI_Request r;
        MPI_OK(MPI_Irecv(NULL, 0, MPI_INT, peer, 4, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 2, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        unsigned long long want_hwm = h0 > N_UNEXP ? h0 : N_UNEXP;
        CHECK(rd(level) == N_UNEXP && rd(hwm) == want_hwm && rd(arrived) - a0 == N_UNEXP,
              "after %d unexpected: level %llu, hwm %llu (was %llu), arrived %llu", N_UNEXP, rd(level), rd(hwm),
              h0, rd(arrived) - a0);
        for (int k = 0; k < N_UNEXP; k++)
            MPI_OK(MPI_Recv(buf, INTS, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(rd(level) == 0 && rd(hwm) == want_hwm, "level %llu, hwm %llu", rd(level), rd(hwm));
        MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 10, MPI_COMM_WORLD));
    }

    /* over the network: the connection to the other rank is up */
    if (strcmp(chan, "shm") != 0) {
        MPI_T_pvar_handle conns = pvar("net_connections", MPI_T_PVAR_CLASS_LEVEL);
        CHECK(rd(conns) >= 1, "%llu network connections", rd(conns));
    }

    /* one rendezvous (64 KiB, above the eager limits mpit.cmake sets), counted once in all */
    const char *rv[] = { "rndv_get", "rndv_put", "rndv_pipeline" };
    unsigned long long before = 0, after = 0;
    MPI_T_pvar_handle rh[3];
    for (int k = 0; k < 3; k++) {
        rh[k] = pvar(rv[k], MPI_T_PVAR_CLASS_COUNTER);
        before += rd(rh[k]);
    }
    int *big = calloc(16384, sizeof(int));
    if (rank == 0)
        MPI_OK(MPI_Send(big, 16384, MPI_INT, peer, 5, MPI_COMM_WORLD));
    else
        MPI_OK(MPI_Recv(big, 16384, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    free(big);
    for (int k = 0; k < 3; k++)
        after += rd(rh[k]);
    unsigned long long mine = after - before, total = 0;
    MPI_OK(MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(total == 1, "one rendezvous counted %llu times", total);

    /* a message to self */
    MPI_T_pvar_handle self = pvar("self_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    unsigned long long s0 = rd(self);
    MPI_OK(MPI_Sendrecv(buf, 1, MPI_INT, rank, 6, buf + 1, 1, MPI_INT, rank, 6, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    CHECK(rd(self) - s0 == 1, "self messages %llu", rd(self) - s0);

    /* reset, write, readreset: per handle */
    MPI_T_pvar_handle sent2 = chan_pvar(chan, "msgs_sent");
    T_OK(MPI_T_pvar_reset(ses, sent));
    CHECK(rd(sent) == 0, "reset counter reads %llu", rd(sent));
    unsigned long long w = 1000, got = 0;
    T_OK(MPI_T_pvar_write(ses, sent, &w));
    T_OK(MPI_T_pvar_readreset(ses, sent, &got));
    CHECK(got == 1000 && rd(sent) == 0, "written 1000, read %llu then %llu", got, rd(sent));
    CHECK(rd(sent2) > 0, "another handle of the same variable was reset too");
    T_OK(MPI_T_pvar_reset(ses, MPI_T_PVAR_ALL_HANDLES));
    CHECK(rd(sent2) == 0, "MPI_T_PVAR_ALL_HANDLES did not reset");
    double t = -1;
    MPI_T_pvar_handle timer = pvar("progress_blocked_time", MPI_T_PVAR_CLASS_TIMER);
    T_OK(MPI_T_pvar_read(ses, timer, &t));
    CHECK(t >= 0, "blocked time %g", t);

    /* errors */
    int i, dummy;
    T_ERR(MPI_T_pvar_write(ses, level, &w), MPI_T_ERR_PVAR_NO_WRITE);
    T_ERR(MPI_T_pvar_reset(ses, hwm), MPI_T_ERR_PVAR_NO_WRITE);
    T_ERR(MPI_T_pvar_start(ses, sent), MPI_T_ERR_PVAR_NO_STARTSTOP);
    T_ERR(MPI_T_pvar_stop(ses, sent), MPI_T_ERR_PVAR_NO_STARTSTOP);
    T_OK(MPI_T_pvar_start(ses, MPI_T_PVAR_ALL_HANDLES));
    T_ERR(MPI_T_pvar_read(ses, MPI_T_PVAR_ALL_HANDLES, &w), MPI_T_ERR_INVALID_HANDLE);
    T_ERR(MPI_T_pvar_get_index("shm_msgs_sent", MPI_T_PVAR_CLASS_LEVEL, &i), MPI_T_ERR_INVALID_NAME);
    T_ERR(MPI_T_pvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX);
    MPI_T_pvar_session other;
    T_OK(MPI_T_pvar_session_create(&other));
    T_ERR(MPI_T_pvar_read(other, sent, &w), MPI_T_ERR_INVALID_HANDLE);
    T_ERR(MPI_T_pvar_handle_alloc(other, 1 << 20, NULL, &sent2, &dummy), MPI_T_ERR_INVALID_INDEX);
    MPI_T_pvar_session gone = other;
    T_OK(MPI_T_pvar_session_free(&other));
    CHECK(other == MPI_T_PVAR_SESSION_NULL, "session not reset by free");
    T_ERR(MPI_T_pvar_session_free(&gone), MPI_T_ERR_INVALID_SESSION);
    T_ERR(MPI_T_pvar_read(gone, sent, &w), MPI_T_ERR_INVALID_SESSION);
    T_OK(MPI_T_pvar_handle_free(ses, &recvd));
    T_ERR(MPI_T_pvar_handle_free(ses, &recvd), MPI_T_ERR_INVALID_HANDLE);
    T_OK(MPI_T_pvar_session_free(&ses));   /* frees the handles left */
}

/* ---- events ---- */

/* The events of the tag-7 messages (others, such as a collective's message
 * arriving early from a rank already past this test, are not counted). */
struct seen {
    int n, peer[8], tag[8];
    unsigned ctx[8];
    long long size[8];
    MPI_Count last_ts;
    int ts_backwards, bad_calls;
    MPI_T_event_instance kept;
};

static void on_unexp(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud)
{
    struct seen *s = ud;
    (void)reg;
    if (s->n >= 8 || safety != MPI_T_CB_REQUIRE_MPI_RESTRICTED)
        return;
    int peer, tag, src;
    unsigned ctx;
    MPI_Count size, ts;
    MPI_T_event_read(ev, 2, &tag);
    if (tag != 7)
        return;
    MPI_T_event_read(ev, 0, &peer);
    MPI_T_event_read(ev, 3, &ctx);
    MPI_T_event_read(ev, 4, &size);
    MPI_T_event_get_timestamp(ev, &ts);
    if (MPI_T_event_get_source(ev, &src) != MPI_SUCCESS || src != 0 ||
        MPI_T_event_read(ev, 5, &peer) != MPI_T_ERR_INVALID_INDEX)
        s->bad_calls++;
    s->ts_backwards += ts < s->last_ts;
    s->last_ts = ts;
    s->peer[s->n] = peer;
    s->tag[s->n] = tag;
    s->ctx[s->n] = ctx;
    s->size[s->n] = size;
    s->kept = ev;
    s->n++;
}

static void on_unexp_none(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud)
{
    (void)ev, (void)reg, (void)safety;
    ++*(int *)ud;
}

/* Frees its own registration at its first event: called once. */
static int once_calls;
static void on_unexp_once(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud)
{
    (void)ev, (void)safety, (void)ud;
    once_calls++;
    MPI_T_event_handle_free(reg, NULL, NULL);
}

static int freed;
static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud)
{
    (void)reg, (void)safety;
    freed += ud == &freed;
}

static void events(int rank)
{
    int ev = -1, nel = 8, peer = 1 - rank;
    MPI_Datatype types[8];
    MPI_Aint displs[8];
    T_OK(MPI_T_event_get_index("unexpected_message", &ev));
    T_OK(MPI_T_event_get_info(ev, NULL, NULL, NULL, types, displs, &nel, NULL, NULL, NULL, NULL, NULL));
    CHECK(nel == 5 && types[0] == MPI_INT && types[2] == MPI_INT && types[4] == MPI_COUNT, "event elements");
    int nsrc = 0;
    MPI_Count tps = 0, ts0 = 0, ts1 = 0;
    T_OK(MPI_T_source_get_num(&nsrc));
    T_OK(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, &tps, NULL, NULL));
    CHECK(nsrc == 1 && tps == 1000000000, "sources %d, ticks %lld", nsrc, (long long)tps);
    T_OK(MPI_T_source_get_timestamp(0, &ts0));
    T_ERR(MPI_T_source_get_timestamp(1, &ts1), MPI_T_ERR_INVALID_INDEX);

    static struct seen s;
    int none_calls = 0;
    MPI_T_event_registration reg = NULL, reg_none = NULL;
    if (rank == 1) {
        T_OK(MPI_T_event_handle_alloc(ev, NULL, MPI_INFO_NULL, &reg));
        T_OK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &s, on_unexp));
        MPI_T_event_registration reg_once;
        T_OK(MPI_T_event_handle_alloc(ev, NULL, MPI_INFO_NULL, &reg_once));
        T_OK(MPI_T_event_register_callback(reg_once, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, NULL,
                                           on_unexp_once));
        T_OK(MPI_T_event_handle_alloc(ev, NULL, MPI_INFO_NULL, &reg_none));
        T_OK(MPI_T_event_register_callback(reg_none, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &none_calls,
                                           on_unexp_none));
        MPI_Request r;
        MPI_OK(MPI_Irecv(NULL, 0, MPI_INT, peer, 8, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 9, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        char buf[12];
        for (int k = 0; k < 3; k++)
            MPI_OK(MPI_Recv(buf, sizeof(buf), MPI_CHAR, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(s.n == 3 && s.bad_calls == 0 && s.ts_backwards == 0, "%d events, %d bad calls", s.n, s.bad_calls);
        for (int k = 0; k < 3; k++)
            CHECK(s.peer[k] == 0 && s.tag[k] == 7 && s.size[k] == 4 * (k + 1) && s.ctx[k] == s.ctx[0],
                  "event %d: peer %d tag %d size %lld context %u", k, s.peer[k], s.tag[k], s.size[k], s.ctx[k]);
        CHECK(none_calls == 0, "a callback registered only for MPI_T_CB_REQUIRE_NONE ran in progress");
        CHECK(once_calls == 1, "a callback that freed its registration ran %d times", once_calls);
        T_ERR(MPI_T_event_handle_free(reg_once, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
        int x;
        T_ERR(MPI_T_event_read(s.kept, 0, &x), MPI_T_ERR_INVALID_HANDLE);   /* outside its callback */
        T_OK(MPI_T_event_handle_free(reg, &freed, on_free));
        CHECK(freed == 1, "free callback ran %d times", freed);
        T_ERR(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &s, on_unexp),
              MPI_T_ERR_INVALID_HANDLE);
        T_OK(MPI_T_event_handle_free(reg_none, NULL, NULL));
    } else {
        char buf[12] = { 0 };
        MPI_OK(MPI_Recv(NULL, 0, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int k = 0; k < 3; k++)
            MPI_OK(MPI_Send(buf, 4 * (k + 1), MPI_CHAR, peer, 7, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(NULL, 0, MPI_INT, peer, 8, MPI_COMM_WORLD));
    }
    T_ERR(MPI_T_event_handle_alloc(99, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
}

int main(int argc, char **argv)
{
    int provided = -1, n;
    T_ERR(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    T_ERR(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));   /* nested */
    T_OK(MPI_T_finalize());
    cvars_before_init();
    categories();

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int size;
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run on 2 ranks, not %d", size);

    MPI_T_cvar_handle h = cvar_handle("RDMACH_LOG_INTERVAL", MPI_INT, 1);
    int v = 9, bad = 0;
    T_OK(MPI_T_cvar_write(h, &v));
    T_ERR(MPI_T_cvar_write(h, &bad), MPI_T_ERR_INVALID);   /* below its minimum, 1 */
    CHECK(cvar_int("RDMACH_LOG_INTERVAL") == 9, "RDMACH_LOG_INTERVAL after writes");
    T_OK(MPI_T_cvar_handle_free(&h));

    pvars(mt_rank, argc > 1 ? argv[1] : "shm");
    events(mt_rank);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Finalize());

    /* after MPI_Finalize: still answering until the last MPI_T_finalize */
    CHECK(cvar_int("RDMACH_EAGER_CREDITS") == 17, "RDMACH_EAGER_CREDITS after MPI_Finalize");
    T_OK(MPI_T_pvar_session_create(&ses));
    MPI_T_pvar_handle sent = pvar("shm_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    (void)rd(sent);
    MPI_T_cvar_handle kept = cvar_handle("RDMACH_EAGER_CREDITS", MPI_INT, 1);
    T_OK(MPI_T_cvar_get_num(&n));
    T_OK(MPI_T_finalize());
    T_ERR(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    T_ERR(MPI_T_pvar_read(ses, sent, &v), MPI_T_ERR_NOT_INITIALIZED);
    /* a tool may call MPI_T from several threads whatever MPI does */
    T_OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_T provided %d after MPI_Finalize, MULTIPLE asked", provided);
    T_ERR(MPI_T_pvar_read(ses, sent, &v), MPI_T_ERR_INVALID_SESSION);   /* the last finalize freed it */
    T_ERR(MPI_T_cvar_read(kept, &v), MPI_T_ERR_INVALID_HANDLE);
    T_OK(MPI_T_finalize());
    if (mt_rank == 0)
        printf("mpit: %d cvars checked; counters, watermark, rendezvous, events and errors as expected\n", n);
    return 0;
}
