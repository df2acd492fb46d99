/*
 * MPI-4.0 sessions (MPI-4.1 chapter 11.3): Session_init/finalize, the
 * process sets, the session's info and error handler, Group_from_session_pset
 * and Comm_create_from_group.
 *
 * A session is a small object (error handler, thread level); it shares the
 * library with the world model: the first MPI_Init or MPI_Session_init
 * starts the device, and it stays up while either needs it (init.c). So a
 * program may mix both models, and may initialize sessions again after
 * finalizing them all, or after MPI_Finalize when a session was open then.
 *
 * Process sets, the same at every process of the job and in every session:
 *   mpi://WORLD    every process of the job, in world rank order
 *   mpi://SELF     the calling process
 *   mpix://SHARED  the processes of the caller's node (MPI_COMM_TYPE_SHARED's
 *                  node, so RDMACH_VNODE_SIZE's pretend nodes count), in
 *                  world rank order; the name Open MPI uses for it (names
 *                  under mpi:// are the standard's)
 * and after them the sets the launcher defines (boot.h's rch_boot_psets:
 * a PMIx server's, with their members in its order; one named like the
 * three above is not offered twice), read once, at the first query.
 * Each has the info key "mpi_size" (its number of processes, as the standard
 * requires). The built-in names match in any case ("mpi://world" is
 * mpi://WORLD): MPI-4.1 §11.3.2 spells them mpi://WORLD and mpi://SELF and
 * says nothing of case, and MPICH and Open MPI both take them case-
 * insensitively, so programs written for either (MPICH's own tests use
 * "mpi://world" and "mpi://self") run here unchanged. The launcher's names
 * are matched exactly: they are its to define.
 *
 * A session's attached buffer (Session_attach_buffer) serves the buffered
 * sends on communicators made by Comm_create_from_group from a group that
 * Group_from_session_pset returned, and on their duplicates and splits
 * (groups made from such a group by the group calls do not carry it).
 *
 * Session_finalize does not synchronize (MPI-4.1 11.3.1 allows it to, over
 * the groups of the session's communicators, windows and files not yet
 * freed; it need not): rdmach keeps no state per session that a peer could
 * still be using (the user must have completed the session's operations),
 * and a message whose send completed locally is already in the device's
 * queues, which outlive the session. So a subset of the ranks, or one, may
 * finalize its sessions and exit while the others go on: the device closes
 * at process exit as a departure, waiting for no other rank (init.c,
 * exit_teardown).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

struct session {
    int in_use;
    MPI_Errhandler errhandler;
    int thread_level;          /* the level this session was given */
    struct rch_mpi_bpool *bpool;   /* MPI_Session_attach_buffer's, NULL if none */
};
static struct session *sessions;
static int nsessions, nsessions_made;   /* slots allocated, slots used */

static const char *const pset_names[] = { "mpi://WORLD", "mpi://SELF", "mpix://SHARED" };
enum { PSET_WORLD, PSET_SELF, PSET_SHARED, PSET_COUNT };

/* Is name one of the built-in sets' (any case; see the top)? Its index, or -1. */
static int builtin_pset(const char *name)
{
    for (int b = 0; b < PSET_COUNT; b++)
        if (strcasecmp(name, pset_names[b]) == 0)
            return b;
    return -1;
}

/* The launcher's set at index n - PSET_COUNT of what is offered, skipping
 * those named like a built-in one; NULL past the end. */
static const struct rch_boot_pset *launcher_pset(int n)
{
    const struct rch_boot_pset *sets;
    int count;
    rch_boot_psets(&sets, &count);
    for (int i = 0; i < count; i++) {
        if (builtin_pset(sets[i].name) < 0 && n-- == PSET_COUNT)
            return &sets[i];
    }
    return NULL;
}

static int pset_count(void)
{
    int n = PSET_COUNT;
    while (launcher_pset(n))
        n++;
    return n;
}

static const char *pset_nth_name(int n)
{
    return n < PSET_COUNT ? pset_names[n] : launcher_pset(n)->name;
}

static struct session *session_get(MPI_Session h)
{
    if (RCH_MPI_HKIND(h) != 2 || RCH_MPI_HOBJ(h) != RCH_MPI_OBJ_SESSION)
        return NULL;
    unsigned i = RCH_MPI_HINDEX(h);
    return (int)i < nsessions && sessions[i].in_use ? &sessions[i] : NULL;
}

/* An error of a call on a session: the session's handler is invoked. */
static int session_err(MPI_Session h, const struct session *s, int cls, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int session_err(MPI_Session h, const struct session *s, int cls, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    int code = rch_mpi_err_code(cls, "%s", msg);
    return rch_mpi_err_raise_on(s->errhandler, h, code);
}

/* The session argument of call fn: its object, or NULL with the error
 * (MPI_ERR_SESSION, on MPI_COMM_NULL's handler: there is no session to ask)
 * in *err. */
static struct session *session_arg(const char *fn, MPI_Session h, int *err)
{
    struct session *s = session_get(h);
    if (!s)
        *err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_SESSION, "%s: invalid session 0x%x in argument session", fn,
                           (unsigned)h);
    return s;
}

/* session_arg, and the call's output argument `out` (named arg) not NULL. */
static struct session *session_out_arg(const char *fn, MPI_Session h, const void *out, const char *arg, int *err)
{
    struct session *s = session_arg(fn, h, err);
    if (s && !out) {
        *err = session_err(h, s, MPI_ERR_ARG, "%s: argument %s is NULL", fn, arg);
        return NULL;
    }
    return s;
}

static const char *thread_level_name(int level)
{
    static const char *const names[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                         "MPI_THREAD_MULTIPLE" };
    return names[level];
}

/* The "thread_level" hint of Session_init's info (MPI-4.1 11.3.1): a level's
 * name; absent: MPI_THREAD_SINGLE. -1 if the value names none. */
static int thread_level_of(const char *v)
{
    if (!v)
        return MPI_THREAD_SINGLE;
    for (int l = MPI_THREAD_SINGLE; l <= MPI_THREAD_MULTIPLE; l++)
        if (strcmp(v, thread_level_name(l)) == 0)
            return l;
    return -1;
}

/* A handler a session may take: a predefined one or one from
 * MPI_Session_create_errhandler (not a communicator's or a window's). */
static int session_handler_ok(MPI_Errhandler eh)
{
    return rch_mpi_errhandler_exists(eh) && (RCH_MPI_HKIND(eh) != 2 || rch_mpi_errhandler_is_session(eh));
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Session_init";
    if (!session_handler_ok(errhandler))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid error handler 0x%x in argument errhandler "
                           "(a predefined one or one from MPI_Session_create_errhandler)", fn, (unsigned)errhandler);
    if (!session)
        return rch_mpi_err_raise_on(errhandler, MPI_SESSION_NULL,
                                    rch_mpi_err_code(MPI_ERR_ARG, "%s: argument session is NULL", fn));
    if (rch_mpi_state == RCH_MPI_FINALIZED)
        return rch_mpi_err_raise_on(errhandler, MPI_SESSION_NULL,
                                    rch_mpi_err_code(MPI_ERR_OTHER, "%s: the process is exiting: its device is "
                                                     "closed, and the process manager allows one PMI init per "
                                                     "process", fn));
    /* The library first: info objects live in it. */
    int err = rch_mpi_lib_start(fn, NULL, NULL, MPI_THREAD_SINGLE);
    if (err)
        return err;
    if (info != MPI_INFO_NULL && !rch_mpi_info_get(info))
        return rch_mpi_err_raise_on(errhandler, MPI_SESSION_NULL,
                                    rch_mpi_err_code(MPI_ERR_INFO, "%s: invalid info 0x%x in argument info", fn,
                                                     (unsigned)info));
    const char *tl = info == MPI_INFO_NULL ? NULL : rch_mpi_info_lookup(rch_mpi_info_get(info), "thread_level");
    int level = thread_level_of(tl);
    if (level < 0)
        return rch_mpi_err_raise_on(errhandler, MPI_SESSION_NULL,
                                    rch_mpi_err_code(MPI_ERR_INFO_VALUE, "%s: info key \"thread_level\" of argument "
                                                     "info has the value \"%s\" (MPI_THREAD_SINGLE, _FUNNELED, "
                                                     "_SERIALIZED or _MULTIPLE)", fn, tl));
    /* Slots are not reused: a finalized session's handle stays invalid (a
     * communicator derived from it never finds another session's buffer). */
    int i = nsessions_made;
    if (i == (int)RCH_MPI_HINDEX(~0u))
        return rch_mpi_err_raise_on(errhandler, MPI_SESSION_NULL,
                                    rch_mpi_err_code(MPI_ERR_OTHER, "%s: %d sessions were made, no more handles", fn, i));
    if (i == nsessions) {
        int n = nsessions ? 2 * nsessions : 4;
        struct session *p = realloc(sessions, (size_t)n * sizeof(*p));
        if (!p)
            return rch_mpi_err_raise_on(errhandler, MPI_SESSION_NULL,
                                        rch_mpi_err_code(MPI_ERR_NO_MEM, "%s: out of memory", fn));
        memset(p + nsessions, 0, (size_t)(n - nsessions) * sizeof(*p));
        sessions = p;
        nsessions = n;
    }
    sessions[i] = (struct session){ .in_use = 1, .errhandler = errhandler, .thread_level = level };
    nsessions_made++;
    rch_mpi_session_opened();
    rch_mpi_thread_raise(level);
    *session = RCH_MPI_HDIRECT(RCH_MPI_OBJ_SESSION, i);
    return MPI_SUCCESS;
}
#pragma weak MPI_Session_init = PMPI_Session_init

int PMPI_Session_finalize(MPI_Session *session)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Session_finalize";
    if (!session)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument session is NULL", fn);
    int err;
    struct session *s = session_arg(fn, *session, &err);
    if (!s)
        return err;
    rch_mpi_bpool_drop(&s->bpool);     /* its buffered messages leave first */
    s->in_use = 0;
    rch_mpi_session_closed();
    *session = MPI_SESSION_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Session_finalize = PMPI_Session_finalize

/* The info argument of the pset queries: MPI_INFO_NULL or valid (its keys
 * select nothing in rdmach). */
static int pset_query_info(const char *fn, MPI_Session h, const struct session *s, MPI_Info info)
{
    if (info != MPI_INFO_NULL && !rch_mpi_info_get(info))
        return session_err(h, s, MPI_ERR_INFO, "%s: invalid info 0x%x in argument info", fn, (unsigned)info);
    return MPI_SUCCESS;
}

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Session_get_num_psets";
    int err;
    struct session *s = session_arg(fn, session, &err);
    if (!s)
        return err;
    if ((err = pset_query_info(fn, session, s, info)))
        return err;
    if (!npset_names)
        return session_err(session, s, MPI_ERR_ARG, "%s: argument npset_names is NULL", fn);
    *npset_names = pset_count();
    return MPI_SUCCESS;
}
#pragma weak MPI_Session_get_num_psets = PMPI_Session_get_num_psets

/* MPI-4.1 11.3.2: *pset_len 0 asks for the name's length (with its NUL);
 * otherwise at most *pset_len - 1 characters and a NUL are stored, and
 * *pset_len becomes the name's full length (with its NUL), as MPICH does. */
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Session_get_nth_pset";
    int err;
    struct session *s = session_arg(fn, session, &err);
    if (!s)
        return err;
    if ((err = pset_query_info(fn, session, s, info)))
        return err;
    int count = pset_count();
    if (n < 0 || n >= count)
        return session_err(session, s, MPI_ERR_ARG, "%s: invalid n %d in argument n (0 .. %d process sets - 1)", fn, n,
                           count);
    if (!pset_len)
        return session_err(session, s, MPI_ERR_ARG, "%s: argument pset_len is NULL", fn);
    if (*pset_len < 0)
        return session_err(session, s, MPI_ERR_ARG, "%s: negative length %d in argument pset_len", fn, *pset_len);
    if (*pset_len > 0 && !pset_name)
        return session_err(session, s, MPI_ERR_ARG, "%s: argument pset_name is NULL", fn);
    int len = (int)strlen(pset_nth_name(n)) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", pset_nth_name(n));
    *pset_len = len;
    return MPI_SUCCESS;
}
#pragma weak MPI_Session_get_nth_pset = PMPI_Session_get_nth_pset

/* Which set name names: its index in what is offered, or -1. */
static int pset_find(const char *name)
{
    int which = builtin_pset(name), count = pset_count();
    if (which < 0)
        for (which = PSET_COUNT; which < count && strcmp(name, pset_nth_name(which)) != 0; which++)
            ;
    return which < count ? which : -1;
}

int rch_mpi_pset_world_ranks(const char *name, int **ranks, int *n)
{
    int which = pset_find(name);
    if (which < 0)
        return 0;
    int *w = malloc(((size_t)rch_boot.size + 1) * sizeof(int));
    if (!w)
        return -1;
    int k = 0;
    if (which >= PSET_COUNT) {
        const struct rch_boot_pset *p = launcher_pset(which);
        memcpy(w, p->ranks, (size_t)p->size * sizeof(int));
        k = p->size;
    }
    for (int r = 0; r < rch_boot.size && which < PSET_COUNT; r++)
        if (which == PSET_WORLD || (which == PSET_SELF && r == rch_boot.rank) ||
            (which == PSET_SHARED && rch_boot.node_of[r] == rch_boot.node_of[rch_boot.rank]))
            w[k++] = r;
    *ranks = w;
    *n = k;
    return 1;
}

/* The world ranks of a process set (NULL: not a name; *err set). */
static int *pset_members(const char *fn, MPI_Session h, const struct session *s, const char *name, int *size,
                         int *err)
{
    if (!name) {
        *err = session_err(h, s, MPI_ERR_ARG, "%s: argument pset_name is NULL", fn);
        return NULL;
    }
    int *w = NULL;
    int found = rch_mpi_pset_world_ranks(name, &w, size);
    if (found == 0)
        *err = session_err(h, s, MPI_ERR_ARG, "%s: unknown process set \"%.64s\" in argument pset_name "
                           "(mpi://WORLD, mpi://SELF, mpix://SHARED in any case%s)", fn, name,
                           pset_count() > PSET_COUNT ? ", the launcher's: MPI_Session_get_nth_pset" : "");
    else if (found < 0)
        *err = session_err(h, s, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return found > 0 ? w : NULL;
}

/* A new info holding one (key, value): the queries' answers. */
static int info_of_one(MPI_Info *info, const char *key, const char *value)
{
    int err = PMPI_Info_create(info);
    if (!err && (err = PMPI_Info_set(*info, key, value)))
        PMPI_Info_free(info);
    return err;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Session_get_pset_info";
    int err, size;
    struct session *s = session_out_arg(fn, session, info, "info", &err);
    if (!s)
        return err;
    int *w = pset_members(fn, session, s, pset_name, &size, &err);
    if (!w)
        return err;
    free(w);
    char v[16];
    snprintf(v, sizeof(v), "%d", size);
    return info_of_one(info, "mpi_size", v);
}
#pragma weak MPI_Session_get_pset_info = PMPI_Session_get_pset_info

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Group_from_session_pset";
    int err, size;
    struct session *s = session_out_arg(fn, session, newgroup, "newgroup", &err);
    if (!s)
        return err;
    int *w = pset_members(fn, session, s, pset_name, &size, &err);
    if (!w)
        return err;
    struct rch_mpi_group *g = rch_mpi_group_new(size, w);
    if (!g)
        return session_err(session, s, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    g->session = session;      /* communicators made from it use the session's buffer */
    *newgroup = g->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_from_session_pset = PMPI_Group_from_session_pset

/* The hints in effect: "thread_level", the level the process provides
 * (MPI-4.1 11.3.1: it may be higher than the session asked for). */
int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Session_get_info";
    int err;
    struct session *s = session_out_arg(fn, session, info_used, "info_used", &err);
    if (!s)
        return err;
    return info_of_one(info_used, "thread_level", thread_level_name(rch_mpi_thread_level));
}
#pragma weak MPI_Session_get_info = PMPI_Session_get_info

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    /* The handler functions of all kinds take (int *handle, int *code, ...). */
    return rch_mpi_errhandler_new("MPI_Session_create_errhandler", "session_errhandler_fn",
                                  (MPI_Comm_errhandler_function *)session_errhandler_fn, 1, errhandler);
}
#pragma weak MPI_Session_create_errhandler = PMPI_Session_create_errhandler

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Session_set_errhandler";
    int err;
    struct session *s = session_arg(fn, session, &err);
    if (!s)
        return err;
    if (!session_handler_ok(errhandler))
        return session_err(session, s, MPI_ERR_ARG, "%s: invalid error handler 0x%x in argument errhandler "
                           "(a predefined one or one from MPI_Session_create_errhandler)", fn, (unsigned)errhandler);
    s->errhandler = errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_Session_set_errhandler = PMPI_Session_set_errhandler

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Session_get_errhandler";
    int err;
    struct session *s = session_out_arg(fn, session, errhandler, "errhandler", &err);
    if (!s)
        return err;
    *errhandler = s->errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_Session_get_errhandler = PMPI_Session_get_errhandler

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    RCH_MPI_CS();
    int err;
    struct session *s = session_arg("MPI_Session_call_errhandler", session, &err);
    if (!s)
        return err;
    rch_mpi_err_raise_on(s->errhandler, session, errorcode);
    return MPI_SUCCESS;
}
#pragma weak MPI_Session_call_errhandler = PMPI_Session_call_errhandler

/* FNV-1a of the string tag: the pair of internal tags of its exchange. */
static int stringtag_tag(const char *t)
{
    uint32_t h = 2166136261u;
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 16777619u;
    return RCH_MPI_TAG_FROMG_BASE | (int)(h & RCH_MPI_TAG_FROMG_MASK);
}

/* Collective over the group's members only (MPI-4.1 7.4.2): they agree on a
 * context id among themselves over world's collective context (every
 * process of the job is in world, whichever model made the group). A
 * process outside the group gets MPI_COMM_NULL, as with Comm_create_group. */
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Comm_create_from_group";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_group *g = rch_mpi_group_get(group);
    if (!g)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_GROUP, "%s: invalid group 0x%x in argument group", fn,
                           (unsigned)group);
    if (!stringtag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument stringtag is NULL", fn);
    if (strnlen(stringtag, MPI_MAX_STRINGTAG_LEN) >= MPI_MAX_STRINGTAG_LEN)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument stringtag is longer than MPI_MAX_STRINGTAG_LEN - 1 "
                           "(%d) characters", fn, MPI_MAX_STRINGTAG_LEN - 1);
    if ((err = rch_mpi_info_check(MPI_COMM_NULL, fn, info)))
        return err;
    if (!rch_mpi_errhandler_valid(errhandler) || rch_mpi_errhandler_is_session(errhandler))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid error handler 0x%x in argument errhandler "
                           "(a predefined one or one from MPI_Comm_create_errhandler)", fn, (unsigned)errhandler);
    if (!newcomm)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument newcomm is NULL", fn);
    if (g->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int tag = stringtag_tag(stringtag);
    return rch_mpi_comm_from_members(fn, &rch_mpi_comm_world, g, tag, tag + 1, errhandler, newcomm);
}
#pragma weak MPI_Comm_create_from_group = PMPI_Comm_create_from_group

/* ---- the session's attached buffer (MPI-4.1 3.6.1) ---- */

struct rch_mpi_bpool *rch_mpi_session_bpool(MPI_Session h)
{
    struct session *s = session_get(h);
    return s ? s->bpool : NULL;
}

/* The buffer calls' argument errors are raised as for a call without an
 * object (world's handler), not on the session's. */
int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    RCH_MPI_CS();
    int err;
    struct session *s = session_arg("MPI_Session_attach_buffer", session, &err);
    return s ? rch_mpi_bpool_attach("MPI_Session_attach_buffer", MPI_COMM_NULL, &s->bpool, buffer, size) : err;
}
#pragma weak MPI_Session_attach_buffer = PMPI_Session_attach_buffer

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    RCH_MPI_CS();
    int err;
    struct session *s = session_arg("MPI_Session_detach_buffer", session, &err);
    return s ? rch_mpi_bpool_detach("MPI_Session_detach_buffer", MPI_COMM_NULL, &s->bpool, buffer_addr, size) : err;
}
#pragma weak MPI_Session_detach_buffer = PMPI_Session_detach_buffer

int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    RCH_MPI_CS();
    int err;
    struct session *s = session_arg("MPI_Session_attach_buffer_c", session, &err);
    return s ? rch_mpi_bpool_attach("MPI_Session_attach_buffer_c", MPI_COMM_NULL, &s->bpool, buffer, size) : err;
}
#pragma weak MPI_Session_attach_buffer_c = PMPI_Session_attach_buffer_c

int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    RCH_MPI_CS();
    int err;
    struct session *s = session_arg("MPI_Session_detach_buffer_c", session, &err);
    return s ? rch_mpi_bpool_detach_c("MPI_Session_detach_buffer_c", MPI_COMM_NULL, &s->bpool, buffer_addr, size,
                                      INT64_MAX)
             : err;
}
#pragma weak MPI_Session_detach_buffer_c = PMPI_Session_detach_buffer_c

int PMPI_Session_flush_buffer(MPI_Session session)
{
    RCH_MPI_CS();
    int err;
    struct session *s = session_arg("MPI_Session_flush_buffer", session, &err);
    return s ? rch_mpi_bpool_flush(s->bpool) : err;
}
#pragma weak MPI_Session_flush_buffer = PMPI_Session_flush_buffer

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    RCH_MPI_CS();
    int err;
    struct session *s = session_arg("MPI_Session_iflush_buffer", session, &err);
    return s ? rch_mpi_bpool_iflush("MPI_Session_iflush_buffer", MPI_COMM_NULL, s->bpool, request) : err;
}
#pragma weak MPI_Session_iflush_buffer = PMPI_Session_iflush_buffer
