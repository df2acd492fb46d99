/*
 * Error reporting: error codes, the error handlers and their functions
 * (Comm_set/get_errhandler, Comm_create_errhandler, Errhandler_free,
 * Comm_call_errhandler, Error_string, Error_class, Add_error_class/code/
 * string, Remove_error_class/code/string).
 *
 * An error code is class | (slot << 7): slot 0 is the bare class; slots
 * 1..RING name a detailed message kept in a ring of recent errors, tagged
 * with a sequence number so a reused slot is never mistaken for an old code
 * (the code then keeps only its class's text). The user's classes and
 * codes have a layout of their own (below, MPI_Add_error_class).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

#define RING 63                      /* detailed messages kept (slot+1 fits 6 bits) */
#define SEQ_SHIFT 13                 /* code bits: class 0-6, slot 7-12, seq 13-29 */
#define SEQ_MASK 0x1ffffu

struct err_entry {
    int code;
    char msg[MPI_MAX_ERROR_STRING];
};
static struct err_entry err_ring[RING];
static unsigned err_next;            /* next slot to use, 0..RING-1 */
static unsigned err_seq;
static int err_held;                 /* > 0: rch_mpi_err makes codes without raising them */

/* User-defined error handlers; handle = direct errhandler | index. */
struct user_eh {
    MPI_Comm_errhandler_function *fn;
    int in_use;
    int for_win;              /* made by MPI_Win_create_errhandler: not for communicators */
    int for_session;          /* made by MPI_Session_create_errhandler: for sessions only */
};
static struct user_eh *ueh;
static int ueh_count;

static const char *const class_text[] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimension argument",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code is in status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_AMODE] = "invalid file access mode",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_CONVERSION] = "data conversion error",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_INFO_KEY] = "info key too long",
    [MPI_ERR_INFO_VALUE] = "info value too long",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_NAME] = "service name not published",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_NOT_SAME] = "arguments differ between processes",
    [MPI_ERR_NO_SPACE] = "not enough space",
    [MPI_ERR_NO_SUCH_FILE] = "file does not exist",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file or file system",
    [MPI_ERR_SERVICE] = "service not published",
    [MPI_ERR_SPAWN] = "could not spawn processes",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "unsupported operation",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
    [MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC] = "wrong synchronization of RMA calls",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_ASSERT] = "invalid assertion",
    [54] = "unknown error class",
    [MPI_ERR_RMA_RANGE] = "target memory outside the window",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
    [MPI_T_ERR_MEMORY] = "MPI_T: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T: not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T: cannot initialize",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T: invalid index",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T: invalid item",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T: out of handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T: out of sessions",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T: variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T: variable cannot be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T: variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T: variable cannot be written",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T: variable cannot be accessed atomically",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T: invalid name",
    [MPI_T_ERR_INVALID] = "MPI_T: invalid use",
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_PROC_ABORTED] = "process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large",
    [MPI_T_ERR_NOT_SUPPORTED] = "MPI_T: not supported",
};
#define LAST_CLASS MPI_T_ERR_NOT_SUPPORTED

/* User error classes and codes (MPI_Add_error_*), MPICH's way: every one
 * has the RCH_MPI_ERR_USER bit (MPICH's ERROR_DYN_MASK, 0x40000000), so it
 * is above MPI_ERR_LASTCODE (0x3fffffff) and never equal to a predefined
 * class or a code made by rch_mpi_err (those lack the bit). Within them:
 *   class number k:  bit | k << 7 | 0x7f
 *   code number j:   bit | j << 7 | its class if predefined (< 0x7e),
 *                                  or 0x7e if its class is a user class,
 * the class of the latter found in the code's table entry
 * (rch_mpi_err_user_class). k and j run to 2^23 - 1, one table each that
 * grows as needed. A number freed by MPI_Remove_error_class/_code is given
 * out again, the longest freed first, so that a stale value names nothing
 * for as long as can be, while a program that keeps adding and removing
 * never runs out of numbers. Each has an optional string
 * (MPI_Add_error_string), "" until one is set. MPI_LASTUSEDCODE is the
 * largest class or code in use, at least MPI_ERR_LASTCODE (MPI 4.1 §9.5:
 * "the current maximum error class including the user-defined ones"). */
#define USER_TAG_CLASS 0x7f
#define USER_TAG_CODE  0x7e
#define USER_NUM_MAX   ((1 << 23) - 1)
struct user_err {
    int value;               /* the class or code; 0: the number is free */
    int cls;                 /* a code's class */
    int ncodes;              /* a class's codes */
    int next_free;           /* when free: the next free number, 0 for none */
    char *text;              /* NULL: no string */
};
struct user_table {
    struct user_err *e;      /* by number, 1..len-1 (0 unused) */
    int len, cap;
    int free_head, free_tail;   /* freed numbers, in the order of their freeing */
    int top;                 /* the largest number in use, 0 for none */
};
static struct user_table uclasses, ucodes;

static int is_user(int v)
{
    return v > 0 && (v & RCH_MPI_ERR_USER);
}

static struct user_err *user_entry(const struct user_table *t, int v)
{
    int n = (v & ~RCH_MPI_ERR_USER) >> 7;
    return n > 0 && n < t->len && t->e[n].value == v ? &t->e[n] : NULL;
}

/* The user class or code v if it exists (MPI_Add_error_* made it, no
 * MPI_Remove_error_* removed it), else NULL. */
static struct user_err *user_err_find(int v)
{
    if (!is_user(v))
        return NULL;
    return user_entry((v & 0x7f) == USER_TAG_CLASS ? &uclasses : &ucodes, v);
}

static int is_user_class(int v)
{
    return is_user(v) && (v & 0x7f) == USER_TAG_CLASS && user_entry(&uclasses, v) != NULL;
}

int rch_mpi_err_user_class(int code)
{
    struct user_err *u = is_user(code) && (code & 0x7f) == USER_TAG_CODE ? user_entry(&ucodes, code) : NULL;
    return u ? u->cls : MPI_ERR_UNKNOWN;     /* a removed code: its class is unknown */
}

static const char *class_name(int cls)
{
    if (cls & RCH_MPI_ERR_USER) {
        const struct user_err *u = user_err_find(cls);
        return u && u->text ? u->text : "user-defined error class";
    }
    return class_text[cls];
}

/* A predefined class, or a user class until MPI_Remove_error_class. */
static int class_valid(int cls)
{
    if (cls & RCH_MPI_ERR_USER)
        return is_user_class(cls);
    return cls >= 0 && cls <= LAST_CLASS && cls != 54;
}

/* A code MPI_Error_class and MPI_Error_string take: a user class or code
 * that exists, or a predefined class with or without a detail. */
static int code_valid(int code)
{
    if (code < 0)
        return 0;
    if (code & RCH_MPI_ERR_USER)
        return user_err_find(code) != NULL;
    return class_valid(RCH_MPI_ERR_CLASS(code));
}

int rch_mpi_class_of(rdmach_status_t st)
{
    switch (st) {
    case RDMACH_OK: case RDMACH_INPROGRESS: case RDMACH_AGAIN: return MPI_SUCCESS;
    case RDMACH_ERR_INVALID_ARG:     return MPI_ERR_ARG;
    case RDMACH_ERR_NO_MEMORY:       return MPI_ERR_NO_MEM;
    case RDMACH_ERR_UNSUPPORTED:     return MPI_ERR_UNSUPPORTED_OPERATION;
    case RDMACH_ERR_TRUNCATE:        return MPI_ERR_TRUNCATE;
    case RDMACH_ERR_PEER_DEAD:       return MPI_ERR_PROC_ABORTED;
    case RDMACH_ERR_ABORTED:         return MPI_ERR_PROC_ABORTED;
    case RDMACH_ERR_NOT_INITIALIZED: return MPI_ERR_OTHER;
    case RDMACH_ERR_PROTOCOL:        return MPI_ERR_INTERN;
    case RDMACH_ERR_OTHER:           return MPI_ERR_INTERN;
    default:                         return MPI_ERR_OTHER;
    }
}

static unsigned err_last;            /* the slot of the last message made */

/* A code of class cls (or of the class of code cls) naming the message.
 * A user class does not fit the class bits of a ring code: it is returned
 * itself, its class kept and the detail left to the debug log. */
static int make_code(int cls, const char *fmt, va_list ap)
{
    unsigned slot = err_next;
    err_next = (err_next + 1) % RING;
    err_seq = (err_seq + 1) & SEQ_MASK;
    cls = RCH_MPI_ERR_CLASS(cls);
    int code = cls & RCH_MPI_ERR_USER ? cls : cls | (int)((slot + 1) << 7) | (int)(err_seq << SEQ_SHIFT);
    err_ring[slot].code = cls & RCH_MPI_ERR_USER ? 0 : code;
    vsnprintf(err_ring[slot].msg, sizeof(err_ring[slot].msg), fmt, ap);
    err_last = slot;
    return code;
}

int rch_mpi_err_code(int errclass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = make_code(errclass, fmt, ap);
    va_end(ap);
    return code;
}

/* The detailed message of a code, or NULL if it is a bare class or its slot was reused. */
static const char *code_msg(int code)
{
    unsigned slot = ((unsigned)code >> 7) & 0x3f;
    if (slot == 0 || slot > RING || (code & RCH_MPI_ERR_USER))
        return NULL;
    return err_ring[slot - 1].code == code ? err_ring[slot - 1].msg : NULL;
}

static MPI_Errhandler handler_of(MPI_Comm comm)
{
    struct rch_mpi_comm *c = comm == MPI_COMM_NULL ? NULL : rch_mpi_comm_get(comm);
    if (!c)
        c = rch_mpi_comm_get(MPI_COMM_WORLD);
    /* Before MPI_Init the world object may not exist: the default applies. */
    return c ? c->errhandler : MPI_ERRORS_ARE_FATAL;
}

/* The handler's verdict on code: the whole job (MPI_ERRORS_ARE_FATAL), or
 * with abort_scope the processes of the object `handle` names
 * (MPI_ERRORS_ABORT, err_abort.c). */
static void fatal(int handle, int code, int abort_scope)
{
    const struct user_err *u = user_err_find(code);
    const char *msg = u ? u->text : code_msg(code);   /* a user code: its MPI_Add_error_string text */
    char text[MPI_MAX_ERROR_STRING + 64];
    snprintf(text, sizeof(text), "MPI error (class %d, %s): %s", RCH_MPI_ERR_CLASS(code),
             class_valid(RCH_MPI_ERR_CLASS(code)) ? class_name(RCH_MPI_ERR_CLASS(code)) : "?",
             msg ? msg : "no detail");
    if (rch_mpi_state == RCH_MPI_RUNNING && abort_scope)
        rch_mpi_abort_scope(handle, 1, text);
    if (rch_mpi_state == RCH_MPI_RUNNING) {
        int cls = RCH_MPI_ERR_CLASS(code);
        if (cls == MPI_ERR_PROC_ABORTED || cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_PROC_FAILED_PENDING)
            rch_boot_abort_after_peer(1, text);   /* the failed rank may be ending the job with its code */
        rch_boot_abort(1, text);     /* prints the message with the rank, ends the job */
    }
    fprintf(stderr, "rdmach: %s\n", text);
    fflush(stderr);
    exit(1);
}

int rch_mpi_err_raise_on(MPI_Errhandler eh, int handle, int code)
{
    if (eh == MPI_ERRORS_RETURN || eh == MPIR_ERRORS_THROW_EXCEPTIONS)
        return code;
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT)
        fatal(handle, code, eh == MPI_ERRORS_ABORT);
    unsigned i = RCH_MPI_HINDEX(eh);
    if (RCH_MPI_HKIND(eh) == 2 && (int)i < ueh_count && ueh[i].in_use && ueh[i].fn) {
        int h = handle, c2 = code;
        ueh[i].fn(&h, &c2);
        return code;
    }
    fatal(handle, code, 0);
    return code;
}

int rch_mpi_err_raise(MPI_Comm comm, int code)
{
    return rch_mpi_err_raise_on(handler_of(comm), comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, code);
}

int rch_mpi_err(MPI_Comm comm, int errclass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = make_code(errclass, fmt, ap);
    va_end(ap);
    RCH_DEBUG("mpi", "error class %d: %s", errclass, err_ring[err_last].msg);
    return err_held ? code : rch_mpi_err_raise(comm, code);
}

void rch_mpi_err_hold(int on)
{
    err_held += on ? 1 : -1;
}

const char *rch_mpi_err_msg(int code, const char *fn)
{
    const char *msg = code_msg(code);
    int cls = RCH_MPI_ERR_CLASS(code);
    size_t n = strlen(fn);
    if (msg && strncmp(msg, fn, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
        return msg + n + 2;
    return msg ? msg : class_valid(cls) ? class_name(cls) : "unknown error";
}

int rch_mpi_check_init(const char *fn)
{
    if (RCH_LIKELY(rch_mpi_state == RCH_MPI_RUNNING))
        return MPI_SUCCESS;
    if (rch_mpi_state == RCH_MPI_NEVER)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: called before MPI_Init", fn);
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: called after MPI_Finalize", fn);
}

/* ---- error handler objects ---- */

static int eh_valid(MPI_Errhandler eh)
{
    if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT ||
        eh == MPIR_ERRORS_THROW_EXCEPTIONS)
        return 1;
    if (RCH_MPI_HKIND(eh) != 2 || RCH_MPI_HOBJ(eh) != RCH_MPI_OBJ_ERRHANDLER)
        return 0;
    unsigned i = RCH_MPI_HINDEX(eh);
    return (int)i < ueh_count && ueh[i].in_use;
}

void rch_mpi_errhandler_mark_win(MPI_Errhandler eh)
{
    unsigned i = RCH_MPI_HINDEX(eh);
    if (RCH_MPI_HKIND(eh) == 2 && (int)i < ueh_count && ueh[i].in_use)
        ueh[i].for_win = 1;
}

int rch_mpi_errhandler_is_win(MPI_Errhandler eh)
{
    unsigned i = RCH_MPI_HINDEX(eh);
    return RCH_MPI_HKIND(eh) == 2 && (int)i < ueh_count && ueh[i].in_use && ueh[i].for_win;
}

int rch_mpi_errhandler_is_session(MPI_Errhandler eh)
{
    unsigned i = RCH_MPI_HINDEX(eh);
    return RCH_MPI_HKIND(eh) == 2 && (int)i < ueh_count && ueh[i].in_use && ueh[i].for_session;
}

int rch_mpi_errhandler_exists(MPI_Errhandler eh)
{
    return eh_valid(eh);
}

int rch_mpi_errhandler_new(const char *fn_name, const char *fn_arg, MPI_Comm_errhandler_function *fn,
                           int for_session, MPI_Errhandler *errhandler)
{
    if (!fn)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn_name, fn_arg);
    if (!errhandler)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument errhandler is NULL", fn_name);
    int i;
    for (i = 0; i < ueh_count && ueh[i].in_use; i++)
        ;
    if (i == ueh_count) {
        int n = ueh_count ? ueh_count * 2 : 8;
        struct user_eh *p = realloc(ueh, (size_t)n * sizeof(*p));
        if (!p)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn_name);
        memset(p + ueh_count, 0, (size_t)(n - ueh_count) * sizeof(*p));
        ueh = p;
        ueh_count = n;
    }
    ueh[i].fn = fn;
    ueh[i].in_use = 1;
    ueh[i].for_win = 0;
    ueh[i].for_session = for_session;
    *errhandler = RCH_MPI_HDIRECT(RCH_MPI_OBJ_ERRHANDLER, i);
    return MPI_SUCCESS;
}

/* The communicator handlers' calls, under the name of the function called
 * (the deprecated MPI-1 MPI_Errhandler_create/set/get as their MPI-2
 * replacements), which the error messages give. */
static int comm_create_eh(const char *name, const char *fn_arg, MPI_Comm_errhandler_function *fn,
                          MPI_Errhandler *errhandler)
{
    int err = rch_mpi_check_init(name);
    if (err)
        return err;
    return rch_mpi_errhandler_new(name, fn_arg, fn, 0, errhandler);
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    return comm_create_eh("MPI_Comm_create_errhandler", "comm_errhandler_fn", fn, errhandler);
}
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler

int PMPI_Errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    return comm_create_eh("MPI_Errhandler_create", "function", fn, errhandler);
}
#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Errhandler_free");
    if (err)
        return err;
    if (!errhandler)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Errhandler_free: argument errhandler is NULL");
    if (!eh_valid(*errhandler))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
                           "MPI_Errhandler_free: invalid error handler 0x%x", (unsigned)*errhandler);
    /* A user handler stays usable by the communicators it is attached to
     * (MPI: freeing marks it for deallocation); its slot is not reused, so
     * those references remain valid. Predefined handlers are not freed. */
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free

int rch_mpi_errhandler_valid(MPI_Errhandler eh)
{
    return eh_valid(eh) && !rch_mpi_errhandler_is_win(eh);
}

static int comm_set_eh(const char *name, MPI_Comm comm, MPI_Errhandler errhandler)
{
    int err = rch_mpi_check_init(name);
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad(name, comm);
    if (!eh_valid(errhandler))
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: invalid error handler 0x%x in argument errhandler", name,
                           (unsigned)errhandler);
    if (rch_mpi_errhandler_is_win(errhandler) || rch_mpi_errhandler_is_session(errhandler))
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: error handler 0x%x in argument errhandler "
                           "was made by MPI_%s_create_errhandler", name, (unsigned)errhandler,
                           rch_mpi_errhandler_is_win(errhandler) ? "Win" : "Session");
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    RCH_MPI_CS();
    return comm_set_eh("MPI_Comm_set_errhandler", comm, errhandler);
}
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    RCH_MPI_CS();
    return comm_set_eh("MPI_Errhandler_set", comm, errhandler);
}
#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set

static int comm_get_eh(const char *name, MPI_Comm comm, MPI_Errhandler *errhandler)
{
    int err = rch_mpi_check_init(name);
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad(name, comm);
    if (!errhandler)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument errhandler is NULL", name);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    return comm_get_eh("MPI_Comm_get_errhandler", comm, errhandler);
}
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    return comm_get_eh("MPI_Errhandler_get", comm, errhandler);
}
#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_call_errhandler");
    if (err)
        return err;
    if (!rch_mpi_comm_get(comm))
        return rch_mpi_comm_bad("MPI_Comm_call_errhandler", comm);
    rch_mpi_err_raise(comm, errorcode);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler

/* ---- codes to classes and text: usable before MPI_Init and after Finalize ---- */

int PMPI_Error_class(int errorcode, int *errorclass)
{
    RCH_MPI_CS();
    if (!code_valid(errorcode))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Error_class: invalid error code %d in argument "
                           "errorcode", errorcode);
    int cls = RCH_MPI_ERR_CLASS(errorcode);
    if (!errorclass)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Error_class: argument errorclass is NULL");
    *errorclass = cls;
    return MPI_SUCCESS;
}
#pragma weak MPI_Error_class = PMPI_Error_class

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    RCH_MPI_CS();
    if (!code_valid(errorcode))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Error_string: invalid error code %d in argument "
                           "errorcode", errorcode);
    int cls = RCH_MPI_ERR_CLASS(errorcode);
    if (!string || !resultlen)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Error_string: argument %s is NULL",
                           !string ? "string" : "resultlen");
    const char *msg = code_msg(errorcode);
    const struct user_err *u = user_err_find(errorcode);
    int n;
    if (u)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", u->text ? u->text : "");
    else if (msg)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", class_name(cls), msg);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", class_name(cls));
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Error_string = PMPI_Error_string

/* ---- user error classes, codes and strings ---- */

/* MPI_LASTUSEDCODE (MPI 4.1 §9.5): the largest class or code in use. The
 * largest number of a table has its largest value (the number is above
 * the tag bits). */
static void lastusedcode_update(void)
{
    int last = MPI_ERR_LASTCODE;
    if (uclasses.top && uclasses.e[uclasses.top].value > last)
        last = uclasses.e[uclasses.top].value;
    if (ucodes.top && ucodes.e[ucodes.top].value > last)
        last = ucodes.e[ucodes.top].value;
    rch_mpi_attr_lastusedcode(last);
}

/* A free number of t (the longest freed, else a new one), its entry
 * zeroed; 0 when the numbers are used up or memory is. */
static int user_number(struct user_table *t)
{
    int n = t->free_head;
    if (n) {
        t->free_head = t->e[n].next_free;
        if (!t->free_head)
            t->free_tail = 0;
    } else {
        if (t->len == 0)
            t->len = 1;              /* number 0 stays unused: k, j >= 1 */
        if (t->len > USER_NUM_MAX)
            return 0;
        if (t->len >= t->cap) {
            int cap = t->cap ? 2 * t->cap : 64;
            struct user_err *e = realloc(t->e, (size_t)cap * sizeof(*e));
            if (!e)
                return 0;
            t->e = e;
            t->cap = cap;
        }
        n = t->len++;
    }
    t->e[n] = (struct user_err){ 0 };
    return n;
}

static void user_number_free(struct user_table *t, int n)
{
    free(t->e[n].text);
    t->e[n] = (struct user_err){ 0 };
    if (t->free_tail)
        t->e[t->free_tail].next_free = n;
    else
        t->free_head = n;
    t->free_tail = n;
    while (t->top > 0 && t->e[t->top].value == 0)
        t->top--;
}

/* Give value (number n of t) out: in use from now on. */
static void user_publish(struct user_table *t, int n, int value, int *out)
{
    t->e[n].value = value;
    if (n > t->top)
        t->top = n;
    lastusedcode_update();
    *out = value;
}

static int numbers_used_up(const char *fn, const char *what, const struct user_table *t)
{
    if (t->len > USER_NUM_MAX)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: no more error %s (%d exist, the most there can be)",
                           fn, what, USER_NUM_MAX);
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory for another error %s", fn,
                       strcmp(what, "classes") == 0 ? "class" : "code");
}

int PMPI_Add_error_class(int *errorclass)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Add_error_class";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!errorclass)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument errorclass is NULL", fn);
    int k = user_number(&uclasses);
    if (!k)
        return numbers_used_up(fn, "classes", &uclasses);
    user_publish(&uclasses, k, RCH_MPI_ERR_USER | (k << 7) | USER_TAG_CLASS, errorclass);
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_class = PMPI_Add_error_class

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Add_error_code";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!class_valid(errorclass) || errorclass == MPI_SUCCESS)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid error class %d in argument errorclass", fn,
                           errorclass);
    if (!errorcode)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument errorcode is NULL", fn);
    int j = user_number(&ucodes);
    if (!j)
        return numbers_used_up(fn, "codes", &ucodes);
    int user = errorclass & RCH_MPI_ERR_USER;
    ucodes.e[j].cls = errorclass;
    if (user)
        user_err_find(errorclass)->ncodes++;
    user_publish(&ucodes, j, RCH_MPI_ERR_USER | (j << 7) | (user ? USER_TAG_CODE : errorclass), errorcode);
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_code = PMPI_Add_error_code

int PMPI_Add_error_string(int errorcode, const char *string)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Add_error_string";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct user_err *u = user_err_find(errorcode);
    if (!u)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: error code %d in argument errorcode was not made by "
                           "MPI_Add_error_class or MPI_Add_error_code", fn, errorcode);
    if (!string)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument string is NULL", fn);
    size_t len = strlen(string);
    if (len >= MPI_MAX_ERROR_STRING)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument string has %zu characters (at most %d)", fn,
                           len, MPI_MAX_ERROR_STRING - 1);
    char *t = strdup(string);
    if (!t)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    free(u->text);
    u->text = t;
    return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_string = PMPI_Add_error_string

/* MPI-4.1 9.5: a class goes after its codes, a code or class after its
 * string; each must have been added by the user. Its number is free again. */
static int user_err_remove(const char *fn, const char *arg, int code, int want_class)
{
    struct user_err *u = user_err_find(code);
    int is_class = (code & 0x7f) == USER_TAG_CLASS;
    if (!u || is_class != want_class)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %d in argument %s is not an error %s made by MPI_Add_error_%s",
                           fn, code, arg, want_class ? "class" : "code", want_class ? "class" : "code");
    if (u->text)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: error %s %d in argument %s still has a string "
                           "(MPI_Remove_error_string first)", fn, want_class ? "class" : "code", code, arg);
    if (want_class && u->ncodes)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: error class %d in argument %s still has %d error "
                           "code%s (MPI_Remove_error_code first)", fn, code, arg, u->ncodes, u->ncodes > 1 ? "s" : "");
    if (!want_class && (u->cls & RCH_MPI_ERR_USER))
        user_err_find(u->cls)->ncodes--;
    struct user_table *t = want_class ? &uclasses : &ucodes;
    user_number_free(t, (int)(u - t->e));
    lastusedcode_update();
    return MPI_SUCCESS;
}

int PMPI_Remove_error_class(int errorclass)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Remove_error_class");
    return err ? err : user_err_remove("MPI_Remove_error_class", "errorclass", errorclass, 1);
}
#pragma weak MPI_Remove_error_class = PMPI_Remove_error_class

int PMPI_Remove_error_code(int errorcode)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Remove_error_code");
    return err ? err : user_err_remove("MPI_Remove_error_code", "errorcode", errorcode, 0);
}
#pragma weak MPI_Remove_error_code = PMPI_Remove_error_code

int PMPI_Remove_error_string(int errorcode)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Remove_error_string";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct user_err *u = user_err_find(errorcode);
    if (!u || !u->text)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: error code %d in argument errorcode has no string set by "
                           "MPI_Add_error_string", fn, errorcode);
    free(u->text);
    u->text = NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Remove_error_string = PMPI_Remove_error_string
