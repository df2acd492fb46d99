/*
 * MPI_T (mpit_impl.h): initialization, enumerations and the control
 * variables.
 *
 * Control variables are the tunables table (src/base/tunables.c), one
 * cvar per row, in its order, named as its environment variable
 * (RDMACH_SHM_EAGER_MAX): what a tool prints can be pasted into a job's
 * environment. Their values are the ones the library runs with: MPI_T_init_thread
 * before MPI_Init parses the environment as MPI_Init will.
 *
 * A tunable is read when the layer that uses it starts, so a new value
 * would not take effect: those cvars have scope MPI_T_SCOPE_READONLY and a
 * write is MPI_T_ERR_CVAR_SET_NEVER. The few read at each use (`writable`
 * below) have scope MPI_T_SCOPE_LOCAL; they can be written once MPI is
 * initialized (before, MPI_Init would overwrite the value from the
 * environment: MPI_T_ERR_CVAR_SET_NOT_NOW). A written value is checked as
 * the environment's is (range, choices): MPI_T_ERR_INVALID if it is not one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "base/tunables.h"
#include "mpi/mpi_impl.h"
#include "mpi/mpit_impl.h"

int rch_mpit_refs;

void rch_mpit_str(char *buf, int *len, const char *src)
{
    if (len == NULL)
        return;
    int need = (int)strlen(src) + 1;
    if (buf == NULL || *len <= 0) {
        *len = need;
        return;
    }
    int n = need < *len ? need - 1 : *len - 1;
    memcpy(buf, src, (size_t)n);
    buf[n] = '\0';
    *len = n + 1;
}

int PMPI_T_init_thread(int required, int *provided)
{
    RCH_MPI_CS();
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE || provided == NULL)
        return MPI_T_ERR_INVALID;
    /* Before MPI_Init the tunables are parsed here, so that cvars show the
     * values MPI_Init will use (it parses them again: the same result). */
    if (rch_mpit_refs == 0 && rch_mpi_state == RCH_MPI_NEVER && rch_base_tun_load() != RDMACH_OK) {
        RCH_ERROR("mpit", "MPI_T_init_thread: %s", rdmach_last_error());
        return MPI_T_ERR_CANNOT_INIT;
    }
    rch_mpit_refs++;
    /* Concurrent calls are safe under the global critical section: turn it
     * on now if the tool asks for MPI_THREAD_MULTIPLE (MPI_Init_thread would
     * otherwise turn it on only later, or never). */
    if (required == MPI_THREAD_MULTIPLE && !rch_dev_cs_on)
        rch_dev_cs_enable();
    *provided = required;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_init_thread = PMPI_T_init_thread

static void cvar_handles_drop(void);

int PMPI_T_finalize(void)
{
    RCH_MPI_CS();
    if (rch_mpit_refs == 0)
        return MPI_T_ERR_NOT_INITIALIZED;
    if (--rch_mpit_refs == 0) {
        cvar_handles_drop();
        rch_mpit_pvar_fini();
        rch_mpit_event_fini();
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_T_finalize = PMPI_T_finalize

/* ---- enumerations: one per ENUM or BOOL tunable, its choices ---- */

struct MPIR_T_enum_s {
    const struct rch_tun_row *row;
};
static struct MPIR_T_enum_s *enums;   /* [tunables], made once, kept for the process */

static MPI_T_enum enum_of(const struct rch_tun_row *row, size_t i)
{
    if (row->type != RCH_TUN_ENUM && row->type != RCH_TUN_BOOL)
        return MPI_T_ENUM_NULL;
    if (enums == NULL && (enums = calloc(rch_base_tun_count(), sizeof(*enums))) == NULL)
        return MPI_T_ENUM_NULL;
    enums[i].row = row;
    return &enums[i];
}

static const struct rch_tun_row *enum_row(MPI_T_enum e)
{
    /* an address inside the array, at an element's start (compared as integers: e may be anything) */
    uintptr_t a = (uintptr_t)e, lo = (uintptr_t)enums;
    if (enums == NULL || a < lo || a >= lo + rch_base_tun_count() * sizeof(*enums) || (a - lo) % sizeof(*enums))
        return NULL;
    return e->row;
}

static int enum_check(MPI_T_enum e, const struct rch_tun_row **row)
{
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    *row = enum_row(e);
    return *row ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

static int choice_count(const char *choices)
{
    int n = 1;
    for (const char *p = choices; *p; p++)
        n += *p == '|';
    return n;
}

/* Item k of "a|b|c" into out (at most cap bytes); 0 if there is none. */
static int choice_name(const char *choices, int k, char *out, size_t cap)
{
    const char *p = choices;
    for (int i = 0; i < k; i++)
        if ((p = strchr(p, '|')) == NULL)
            return 0;
        else
            p++;
    size_t l = strcspn(p, "|");
    if (l >= cap)
        l = cap - 1;
    memcpy(out, p, l);
    out[l] = '\0';
    return 1;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    RCH_MPI_CS();
    const struct rch_tun_row *row;
    int err = enum_check(enumtype, &row);
    if (err != MPI_SUCCESS)
        return err;
    char buf[96];
    snprintf(buf, sizeof(buf), "RDMACH_%s", row->name);
    RCH_MPIT_SET(num, choice_count(row->choices));
    rch_mpit_str(name, name_len, buf);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    RCH_MPI_CS();
    const struct rch_tun_row *row;
    int err = enum_check(enumtype, &row);
    if (err != MPI_SUCCESS)
        return err;
    char item[64];
    if (indx < 0 || !choice_name(row->choices, indx, item, sizeof(item)))
        return MPI_T_ERR_INVALID_INDEX;
    /* A BOOL's choices are "on|off" and its value is 1 for on. */
    RCH_MPIT_SET(value, row->type == RCH_TUN_BOOL ? indx == 0 : indx);
    rch_mpit_str(name, name_len, item);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item

/* ---- control variables ---- */

static void apply_log(void) { rch_log_level = rch_tun.log; }
static void apply_log_interval(void) { rch_log_interval = rch_tun.log_interval; }
static void apply_nothing(void) {}

/* The tunables read at each use, and what a write must update besides rch_tun. */
static const struct {
    const char *name;
    void (*apply)(void);
} writable[] = {
    { "LOG", apply_log },
    { "LOG_INTERVAL", apply_log_interval },
    { "PEER_STOP_TIMEOUT", apply_nothing },    /* each liveness check (shm_live.c, live.c) */
    { "BARRIER_YIELD", apply_nothing },        /* each barrier wait (barrier_seg.c) */
    { "BARRIER_REMOTE_SPIN", apply_nothing },
};

static int writable_index(const struct rch_tun_row *row)
{
    for (size_t i = 0; i < RCH_ARRAY_SIZE(writable); i++)
        if (strcmp(writable[i].name, row->name) == 0)
            return (int)i;
    return -1;
}

int rch_mpit_cvar_count(void)
{
    return (int)rch_base_tun_count();
}

const char *rch_mpit_cvar_tunable(int i)
{
    const struct rch_tun_row *row = rch_base_tun_row((size_t)i);
    return row ? row->name : NULL;
}

static MPI_Datatype cvar_type(const struct rch_tun_row *row, int *count)
{
    *count = 1;
    switch (row->type) {
    case RCH_TUN_SIZE:
        return MPI_UNSIGNED_LONG_LONG;
    case RCH_TUN_STRING:
        *count = row->max > 0 ? (int)row->max : 64;
        return MPI_CHAR;
    default:
        return MPI_INT;
    }
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (num_cvar == NULL)
        return MPI_T_ERR_INVALID;
    *num_cvar = rch_mpit_cvar_count();
    return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    const struct rch_tun_row *row = cvar_index >= 0 ? rch_base_tun_row((size_t)cvar_index) : NULL;
    if (row == NULL)
        return MPI_T_ERR_INVALID_INDEX;
    char buf[96];
    int count;
    snprintf(buf, sizeof(buf), "RDMACH_%s", row->name);
    rch_mpit_str(name, name_len, buf);
    RCH_MPIT_SET(verbosity, strcmp(row->name, "LOG") == 0 ? MPI_T_VERBOSITY_USER_BASIC
                                                          : MPI_T_VERBOSITY_TUNER_BASIC);
    RCH_MPIT_SET(datatype, cvar_type(row, &count));
    RCH_MPIT_SET(enumtype, enum_of(row, (size_t)cvar_index));
    rch_mpit_str(desc, desc_len, row->help);
    RCH_MPIT_SET(bind, MPI_T_BIND_NO_OBJECT);
    RCH_MPIT_SET(scope, writable_index(row) >= 0 ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_READONLY);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (name == NULL || cvar_index == NULL)
        return MPI_T_ERR_INVALID;
    const struct rch_tun_row *row = strncmp(name, "RDMACH_", 7) == 0 ? rch_base_tun_find(name + 7) : NULL;
    if (row == NULL)
        return MPI_T_ERR_INVALID_NAME;
    for (size_t i = 0; i < rch_base_tun_count(); i++)
        if (rch_base_tun_row(i) == row)
            *cvar_index = (int)i;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index

struct MPIR_T_cvar_handle_s {
    struct MPIR_T_cvar_handle_s *next;   /* live handles */
    const struct rch_tun_row *row;
};
static struct MPIR_T_cvar_handle_s *cvar_handles;

/* The last MPI_T_finalize: every handle goes. */
static void cvar_handles_drop(void)
{
    while (cvar_handles) {
        struct MPIR_T_cvar_handle_s *h = cvar_handles;
        cvar_handles = h->next;
        free(h);
    }
}

static struct MPIR_T_cvar_handle_s **cvar_handle_find(MPI_T_cvar_handle h)
{
    for (struct MPIR_T_cvar_handle_s **p = &cvar_handles; *p; p = &(*p)->next)
        if (*p == h && h != NULL)
            return p;
    return NULL;
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    RCH_MPI_CS();
    (void)obj_handle;   /* every cvar is bound to no object (MPI_T_BIND_NO_OBJECT): ignored */
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    const struct rch_tun_row *row = cvar_index >= 0 ? rch_base_tun_row((size_t)cvar_index) : NULL;
    if (row == NULL)
        return MPI_T_ERR_INVALID_INDEX;
    if (handle == NULL || count == NULL)
        return MPI_T_ERR_INVALID;
    struct MPIR_T_cvar_handle_s *h = malloc(sizeof(*h));
    if (h == NULL)
        return MPI_T_ERR_MEMORY;
    h->row = row;
    h->next = cvar_handles;
    cvar_handles = h;
    cvar_type(row, count);
    *handle = h;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (handle == NULL)
        return MPI_T_ERR_INVALID;
    struct MPIR_T_cvar_handle_s **p = cvar_handle_find(*handle);
    if (p == NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    struct MPIR_T_cvar_handle_s *h = *p;
    *p = h->next;
    free(h);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free

/* The checks of read and write: MPI_SUCCESS or the error. */
static int cvar_access_check(MPI_T_cvar_handle handle, const void *buf)
{
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (cvar_handle_find(handle) == NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    return buf ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    RCH_MPI_CS();
    int err = cvar_access_check(handle, buf);
    if (err != MPI_SUCCESS)
        return err;
    const struct rch_tun_row *row = handle->row;
    const char *field = (const char *)&rch_tun + row->offset;
    int count;
    cvar_type(row, &count);
    switch (row->type) {
    case RCH_TUN_SIZE:
        *(unsigned long long *)buf = *(const size_t *)field;
        break;
    case RCH_TUN_STRING:
        memcpy(buf, field, (size_t)count);
        break;
    default:
        *(int *)buf = *(const int *)field;
        break;
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read

/* The value at buf as the environment would spell it (the parser checks it). */
static int cvar_text(const struct rch_tun_row *row, const void *buf, char *text, size_t cap)
{
    int v = 0;
    switch (row->type) {
    case RCH_TUN_SIZE:
        snprintf(text, cap, "%llu", *(const unsigned long long *)buf);
        return 1;
    case RCH_TUN_STRING:
        if (strnlen(buf, cap) >= cap)
            return 0;
        strcpy(text, buf);
        return 1;
    case RCH_TUN_INT:
        v = *(const int *)buf;
        if (v < 0)
            return 0;
        snprintf(text, cap, "%d", v);
        return 1;
    case RCH_TUN_BOOL:
        v = *(const int *)buf;
        snprintf(text, cap, "%s", v == 1 ? "on" : v == 0 ? "off" : "?");
        return v == 0 || v == 1;
    case RCH_TUN_ENUM:
        v = *(const int *)buf;
        return v >= 0 && choice_name(row->choices, v, text, cap);
    }
    return 0;
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    RCH_MPI_CS();
    int err = cvar_access_check(handle, buf);
    if (err != MPI_SUCCESS)
        return err;
    const struct rch_tun_row *row = handle->row;
    int w = writable_index(row);
    if (w < 0)
        return MPI_T_ERR_CVAR_SET_NEVER;
    if (rch_mpi_state == RCH_MPI_NEVER)
        return MPI_T_ERR_CVAR_SET_NOT_NOW;
    char text[1024];
    if (!cvar_text(row, buf, text, sizeof(text)) ||
        rch_base_tun_parse(row, text, (char *)&rch_tun + row->offset) != RDMACH_OK)
        return MPI_T_ERR_INVALID;
    writable[w].apply();
    return MPI_SUCCESS;
}
#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write
