/*
 * Window objects: handles, error handlers, attributes, names, info, group.
 *
 * Handles are direct window handles (0xa0000000 | index) into a table whose
 * slots are never reused while the job runs (programs such as OMB create a
 * window per message size): a stale handle is reported as invalid rather
 * than naming another window.
 *
 * Error handlers. A new window has MPI_ERRORS_ARE_FATAL (MPI-3.1 §8.3).
 * MPI_Win_create_errhandler makes an ordinary error handler object (through
 * MPI_Comm_create_errhandler, so MPI_Errhandler_free knows it) and remembers
 * here that it is a window handler; the window calls it with its handle.
 *
 * Attributes: the predefined MPI_WIN_BASE, _SIZE, _DISP_UNIT,
 * _CREATE_FLAVOR, _MODEL (their addresses, as the C binding returns them)
 * and user keyvals with delete callbacks (windows are never copied); the
 * lists and keyvals are attr_core.c's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi/win_impl.h"
#include "mpi/attr_lang.h"

#define WIN_HANDLE(i) RCH_MPI_HDIRECT(RCH_MPI_OBJ_WIN, i)

static struct rch_mpi_win **table;
static int table_len, table_cap;

struct rch_mpi_win *rch_mpi_win_get(MPI_Win win)
{
    if (RCH_UNLIKELY(RCH_MPI_HKIND(win) != 2 || RCH_MPI_HOBJ(win) != RCH_MPI_OBJ_WIN))
        return NULL;
    unsigned i = RCH_MPI_HINDEX(win);
    if (RCH_UNLIKELY((int)i >= table_len || !rch_mpi_running()))
        return NULL;
    return table[i];
}

int rch_mpi_win_bad(const char *fn, MPI_Win win)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (win == MPI_WIN_NULL)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_WIN, "%s: argument win is MPI_WIN_NULL", fn);
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_WIN, "%s: invalid window 0x%x in argument win", fn, (unsigned)win);
}

struct rch_mpi_win *rch_mpi_win_new(void)
{
    if (table_len == table_cap) {
        if (table_len >= (1 << 26))
            return NULL;
        int n = table_cap ? table_cap * 2 : 16;
        struct rch_mpi_win **p = realloc(table, (size_t)n * sizeof(*p));
        if (!p)
            return NULL;
        table = p;
        table_cap = n;
    }
    struct rch_mpi_win *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->handle = WIN_HANDLE(table_len);
    w->errhandler = MPI_ERRORS_ARE_FATAL;
    w->model = MPI_WIN_UNIFIED;
    table[table_len++] = w;
    return w;
}

/* ---- window error handlers ---- */

static struct whandler {
    MPI_Errhandler handle;
    MPI_Win_errhandler_function *fn;
} *whandlers;
static int nwhandlers, capwhandlers;

static MPI_Win_errhandler_function *whandler_fn(MPI_Errhandler eh)
{
    for (int i = 0; i < nwhandlers; i++)
        if (whandlers[i].handle == eh)
            return whandlers[i].fn;
    return NULL;
}

static int predefined_eh(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT ||
           eh == MPIR_ERRORS_THROW_EXCEPTIONS;
}

int rch_mpi_win_raise(struct rch_mpi_win *w, int code)
{
    MPI_Errhandler eh = w->errhandler;
    if (eh == MPI_ERRORS_RETURN || eh == MPIR_ERRORS_THROW_EXCEPTIONS)
        return code;
    MPI_Win_errhandler_function *fn = whandler_fn(eh);
    if (fn) {
        MPI_Win h = w->handle;
        int c2 = code;
        fn(&h, &c2);
        return code;
    }
    char text[MPI_MAX_ERROR_STRING + MPI_MAX_OBJECT_NAME + 64], msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (PMPI_Error_string(code, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof(msg), "error code %d", code);
    snprintf(text, sizeof(text), "MPI error (class %d) on window %s: %s", RCH_MPI_ERR_CLASS(code),
             w->name[0] ? w->name : "(unnamed)", msg);
    if (eh == MPI_ERRORS_ABORT)
        rch_mpi_abort_scope(w->handle, 1, text);   /* the window's group only (err_abort.c) */
    rch_boot_abort(1, text);
}

int rch_mpi_win_err(struct rch_mpi_win *w, int errclass, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return rch_mpi_win_raise(w, rch_mpi_err_code(errclass, "%s", msg));
}

int rch_mpi_win_status(struct rch_mpi_win *w, const char *fn, rdmach_status_t st)
{
    if (RCH_LIKELY(st == RDMACH_OK))
        return MPI_SUCCESS;
    int cls = st == RDMACH_ERR_INVALID_ARG ? MPI_ERR_RMA_RANGE : rch_mpi_class_of(st);
    return rch_mpi_win_err(w, cls, "%s: %s", fn, rdmach_last_error());
}

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_create_errhandler";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!win_errhandler_fn)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument win_errhandler_fn is NULL", fn);
    if (!errhandler)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument errhandler is NULL", fn);
    if (nwhandlers == capwhandlers) {
        int n = capwhandlers ? 2 * capwhandlers : 8;
        struct whandler *p = realloc(whandlers, (size_t)n * sizeof(*p));
        if (!p)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        whandlers = p;
        capwhandlers = n;
    }
    /* The same function shape as a communicator handler (a handle pointer, a code pointer). */
    err = PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)win_errhandler_fn, errhandler);
    if (err)
        return err;
    rch_mpi_errhandler_mark_win(*errhandler);
    /* handle slots are reused after MPI_Errhandler_free: replace a stale entry */
    int i = 0;
    while (i < nwhandlers && whandlers[i].handle != *errhandler)
        i++;
    whandlers[i] = (struct whandler){ *errhandler, win_errhandler_fn };
    if (i == nwhandlers)
        nwhandlers++;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_set_errhandler";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (!predefined_eh(errhandler) && !rch_mpi_errhandler_is_win(errhandler))
        return rch_mpi_win_err(w, MPI_ERR_ARG,
                               "%s: 0x%x in argument errhandler is not a window error handler (predefined, or from "
                               "MPI_Win_create_errhandler)", fn, (unsigned)errhandler);
    w->errhandler = errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_get_errhandler";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (!errhandler)
        return rch_mpi_win_err(w, MPI_ERR_ARG, "%s: argument errhandler is NULL", fn);
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_call_errhandler";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    rch_mpi_win_raise(w, errorcode);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler

/* ---- attributes ---- */

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state)
{
    RCH_MPI_CS();
    return rch_mpi_keyval_create_call("MPI_Win_create_keyval", "win_keyval", RCH_MPI_OBJ_WIN,
                                      win_copy_attr_fn, win_delete_attr_fn, extra_state, win_keyval);
}
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval

int PMPI_Win_free_keyval(int *win_keyval)
{
    RCH_MPI_CS();
    return rch_mpi_keyval_free_call("MPI_Win_free_keyval", "win_keyval", RCH_MPI_OBJ_WIN, win_keyval);
}
#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval

/* Set needs a keyval not freed; get and delete also take a freed one that
 * attributes still use (MPI 4.1 §7.7.2: the program deletes those). */
static int bad_keyval(struct rch_mpi_win *w, const char *fn, int keyval, int for_set)
{
    const char *why = for_set ? "is not a live user window keyval (predefined attributes cannot be changed, a freed "
                                "keyval cannot be set)"
                              : "is not a user window keyval (or was freed and no attribute uses it any more)";
    return rch_mpi_win_err(w, MPI_ERR_KEYVAL, "%s: 0x%x in argument win_keyval %s", fn, (unsigned)keyval, why);
}

/* A code from the attribute lists: the callback's own, or a class. */
static int raise_code(struct rch_mpi_win *w, const char *fn, int rc)
{
    if (rc == MPI_ERR_NO_MEM)
        return rch_mpi_win_err(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return rch_mpi_win_raise(w, rc);
}

static int win_set_attr(MPI_Win win, int win_keyval, void *attribute_val, int type)
{
    const char *fn = "MPI_Win_set_attr";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (!rch_mpi_keyval_live(RCH_MPI_OBJ_WIN, win_keyval))
        return bad_keyval(w, fn, win_keyval, 1);
    int rc = rch_mpi_attr_set(&w->attrs, win, RCH_MPI_OBJ_WIN, win_keyval, attribute_val, type);
    return rc ? raise_code(w, fn, rc) : MPI_SUCCESS;
}

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    RCH_MPI_CS();
    return win_set_attr(win, win_keyval, attribute_val, MPIR_ATTR_PTR);
}
#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr

/* From Fortran (attr_lang.h). */
int MPII_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val, MPIR_Attr_type type)
{
    RCH_MPI_CS();
    return win_set_attr(win, win_keyval, attribute_val, type);
}

static int win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag, int out_type)
{
    const char *fn = "MPI_Win_get_attr";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (!attribute_val || !flag)
        return rch_mpi_win_err(w, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !flag ? "flag" : "attribute_val");
    void **out = attribute_val;
    *flag = 1;
    switch (win_keyval) {
    case MPI_WIN_BASE:          *out = w->base; return MPI_SUCCESS;
    case MPI_WIN_SIZE:          *out = &w->size_attr; return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:     *out = &w->disp_unit; return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR: *out = &w->flavor; return MPI_SUCCESS;
    case MPI_WIN_MODEL:         *out = &w->model; return MPI_SUCCESS;
    default: break;
    }
    *flag = 0;
    if (!rch_mpi_keyval_valid(RCH_MPI_OBJ_WIN, win_keyval))
        return bad_keyval(w, fn, win_keyval, 0);
    *flag = rch_mpi_attr_get(w->attrs, RCH_MPI_OBJ_WIN, win_keyval, out, out_type);
    return MPI_SUCCESS;
}

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    RCH_MPI_CS();
    return win_get_attr(win, win_keyval, attribute_val, flag, MPIR_ATTR_PTR);
}
#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr

/* For Fortran (attr_lang.h). */
int MPII_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag, MPIR_Attr_type out_type)
{
    RCH_MPI_CS();
    return win_get_attr(win, win_keyval, attribute_val, flag, out_type);
}

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_delete_attr";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (!rch_mpi_keyval_valid(RCH_MPI_OBJ_WIN, win_keyval))
        return bad_keyval(w, fn, win_keyval, 0);
    int rc = rch_mpi_attr_delete(&w->attrs, win, RCH_MPI_OBJ_WIN, win_keyval);
    return rc ? raise_code(w, fn, rc) : MPI_SUCCESS;
}
#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr

int rch_mpi_win_destroy(struct rch_mpi_win *w)
{
    /* every delete callback runs: the window goes whatever they return */
    int rc = rch_mpi_attr_delete_all(&w->attrs, w->handle, 0);
    unsigned i = RCH_MPI_HINDEX(w->handle);
    if ((int)i < table_len && table[i] == w)
        table[i] = NULL;
    free(w->ok);
    free(w->start_ranks);
    free(w->post_ranks);
    free(w);
    return rc;
}

/* ---- names, info, group ---- */

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_set_name";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (!win_name)
        return rch_mpi_win_err(w, MPI_ERR_ARG, "%s: argument win_name is NULL", fn);
    snprintf(w->name, sizeof(w->name), "%s", win_name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_name = PMPI_Win_set_name

/* MPI_WIN_NULL is named "MPI_WIN_NULL", as MPICH does (see
 * MPI_Comm_get_name); any other invalid handle is an error. */
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_get_name";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w && win != MPI_WIN_NULL)
        return rch_mpi_win_bad(fn, win);
    int err = w ? MPI_SUCCESS : rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!win_name || !resultlen) {
        if (!w)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn,
                               !win_name ? "win_name" : "resultlen");
        return rch_mpi_win_err(w, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !win_name ? "win_name" : "resultlen");
    }
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w ? w->name : "MPI_WIN_NULL");
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_name = PMPI_Win_get_name

/* ---- hints ---- */

static const struct { const char *name; unsigned bit; } orderings[] = {
    { "rar", RCH_WIN_ORD_RAR }, { "raw", RCH_WIN_ORD_RAW }, { "war", RCH_WIN_ORD_WAR }, { "waw", RCH_WIN_ORD_WAW },
};

void rch_mpi_win_hints_init(struct rch_mpi_win_hints *h)
{
    *h = (struct rch_mpi_win_hints){
        .acc_ordering = RCH_WIN_ORD_RAR | RCH_WIN_ORD_RAW | RCH_WIN_ORD_WAR | RCH_WIN_ORD_WAW,
        .acc_ops_no_op = 1,
    };
}

/* "true"/"false" into *b; anything else leaves it. */
static void hint_bool(const struct rch_mpi_info *in, const char *key, unsigned char *b)
{
    const char *v = rch_mpi_info_lookup(in, key);
    if (v && strcmp(v, "true") == 0)
        *b = 1;
    else if (v && strcmp(v, "false") == 0)
        *b = 0;
}

/* "none" or a comma-separated list of rar, raw, war, waw: the bits, or -1. */
static int parse_ordering(const char *v)
{
    if (strcmp(v, "none") == 0)
        return 0;
    int bits = 0;
    while (*v) {
        size_t n = strcspn(v, ",");
        unsigned k = 0;
        while (k < sizeof(orderings) / sizeof(orderings[0]) &&
               !(strlen(orderings[k].name) == n && strncmp(v, orderings[k].name, n) == 0))
            k++;
        if (k == sizeof(orderings) / sizeof(orderings[0]))
            return -1;
        bits |= (int)orderings[k].bit;
        v += n;
        if (*v == ',' && *++v == '\0')
            return -1;
    }
    return bits ? bits : -1;
}

void rch_mpi_win_hints_apply(struct rch_mpi_win_hints *h, MPI_Info info, int creating)
{
    const struct rch_mpi_info *in = info != MPI_INFO_NULL ? rch_mpi_info_get(info) : NULL;
    if (!in)
        return;
    hint_bool(in, "no_locks", &h->no_locks);
    hint_bool(in, "same_size", &h->same_size);
    hint_bool(in, "same_disp_unit", &h->same_disp_unit);
    if (creating)
        hint_bool(in, "alloc_shared_noncontig", &h->noncontig);
    const char *v = rch_mpi_info_lookup(in, "accumulate_ordering");
    int bits = v ? parse_ordering(v) : -1;
    if (bits >= 0)
        h->acc_ordering = (unsigned char)bits;
    v = rch_mpi_info_lookup(in, "accumulate_ops");
    if (v && strcmp(v, "same_op") == 0)
        h->acc_ops_no_op = 0;
    else if (v && strcmp(v, "same_op_no_op") == 0)
        h->acc_ops_no_op = 1;
}

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_set_info";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (info == MPI_INFO_NULL || !rch_mpi_info_get(info))
        return rch_mpi_win_err(w, MPI_ERR_INFO, "%s: invalid info 0x%x in argument info", fn, (unsigned)info);
    rch_mpi_win_hints_apply(&w->hints, info, 0);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_info = PMPI_Win_set_info

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_get_info";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (!info_used)
        return rch_mpi_win_err(w, MPI_ERR_ARG, "%s: argument info_used is NULL", fn);
    int err = PMPI_Info_create(info_used);
    if (err)
        return rch_mpi_win_raise(w, err);
    const struct rch_mpi_win_hints *h = &w->hints;
    char ord[32] = "";
    for (unsigned k = 0; k < sizeof(orderings) / sizeof(orderings[0]); k++)
        if (h->acc_ordering & orderings[k].bit)
            snprintf(ord + strlen(ord), sizeof(ord) - strlen(ord), "%s%s", ord[0] ? "," : "", orderings[k].name);
    PMPI_Info_set(*info_used, "no_locks", h->no_locks ? "true" : "false");
    PMPI_Info_set(*info_used, "accumulate_ordering", ord[0] ? ord : "none");
    PMPI_Info_set(*info_used, "accumulate_ops", h->acc_ops_no_op ? "same_op_no_op" : "same_op");
    PMPI_Info_set(*info_used, "same_size", h->same_size ? "true" : "false");
    PMPI_Info_set(*info_used, "same_disp_unit", h->same_disp_unit ? "true" : "false");
    if (w->flavor == MPI_WIN_FLAVOR_SHARED)
        PMPI_Info_set(*info_used, "alloc_shared_noncontig", h->noncontig ? "true" : "false");
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_info = PMPI_Win_get_info

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_get_group";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (!group)
        return rch_mpi_win_err(w, MPI_ERR_ARG, "%s: argument group is NULL", fn);
    int *world_of = malloc(sizeof(int) * (size_t)w->size);
    if (!world_of)
        return rch_mpi_win_err(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    memcpy(world_of, w->c->world_of, sizeof(int) * (size_t)w->size);
    struct rch_mpi_group *g = rch_mpi_group_new(w->size, world_of);
    if (!g)
        return rch_mpi_win_err(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *group = g->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_group = PMPI_Win_get_group

int rch_mpi_win_group_ranks(struct rch_mpi_win *w, const char *fn, MPI_Group group, int **ranks, int *n)
{
    struct rch_mpi_group *g = rch_mpi_group_get(group);
    *ranks = NULL;
    *n = 0;
    if (!g)
        return rch_mpi_win_err(w, MPI_ERR_GROUP, "%s: invalid group 0x%x in argument group", fn, (unsigned)group);
    if (g->size == 0)
        return MPI_SUCCESS;
    int *r = malloc(sizeof(int) * (size_t)g->size);
    if (!r)
        return rch_mpi_win_err(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < g->size; i++) {
        r[i] = -1;
        for (int k = 0; k < w->size; k++) {
            if (w->c->world_of[k] == g->world_of[i]) {
                r[i] = k;
                break;
            }
        }
        if (r[i] < 0) {
            free(r);
            return rch_mpi_win_err(w, MPI_ERR_GROUP,
                                   "%s: member %d of argument group (world rank %d) is not in the window's group",
                                   fn, i, g->world_of[i]);
        }
    }
    *ranks = r;
    *n = g->size;
    return MPI_SUCCESS;
}
