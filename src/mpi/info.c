/*
 * Info objects: Info_create, set, get, get_valuelen, get_nkeys, get_nthkey,
 * delete, dup, free; MPI_INFO_ENV; Comm_set_info / Comm_get_info.
 *
 * An info is an ordered list of (key, value) strings; Info_set of an
 * existing key replaces its value in place, so the n-th key stays the n-th.
 * Keys are 1 .. MPI_MAX_INFO_KEY - 1 characters, values 1 .. MPI_MAX_INFO_VAL - 1
 * (the C strings then fit buffers of the MAX size, as MPICH does).
 *
 * The info calls work before MPI_Init or MPI_Session_init and after
 * MPI_Finalize (MPI-4.1 11.4.1): the objects live until the process exits
 * (the library's teardown), whatever MPI_Finalize does, so a program may
 * still read and free the infos it holds then.
 *
 * Handles: MPI_INFO_ENV is MPICH's built-in 0x5c000001, read-only; user
 * infos are direct handles (0x9c000000 | index) into a table whose slots
 * are reused.
 *
 * MPI_INFO_ENV describes how the process was started (MPI gives it the
 * reserved keys of MPI_Comm_spawn's and mpiexec's hints), so its values come
 * from what the process had at its start, not from MPI_Init: it is filled
 * at its first use, before or after MPI_Init, and MPI_Info_create_env
 * returns the same keys and values before MPI_Init, after it and after
 * MPI_Finalize.
 *
 * rdmach acts on no communicator hint, so Comm_set_info only checks its
 * argument and Comm_get_info returns the hints in use: none, but for the
 * "mpi_hw_resource_type" of a MPI_COMM_TYPE_HW_UNGUIDED split.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

struct info_entry {
    char *key, *value;
};

struct rch_mpi_info {
    MPI_Info handle;
    int n, cap;
    struct info_entry *e;
    int readonly;
};

static struct rch_mpi_info env_info = { MPI_INFO_ENV, 0, 0, NULL, 1 };
static int env_filled;
static struct rch_mpi_info **table;
static int table_len, table_cap, free_head = -1;
static int *free_next;

static int env_fill(void);

struct rch_mpi_info *rch_mpi_info_get(MPI_Info info)
{
    if (info == MPI_INFO_ENV)
        return rch_mpi_state != RCH_MPI_FINALIZED && env_fill() == 0 ? &env_info : NULL;
    if (RCH_MPI_HKIND(info) != 2 || RCH_MPI_HOBJ(info) != RCH_MPI_OBJ_INFO)
        return NULL;
    unsigned i = RCH_MPI_HINDEX(info);
    return (int)i < table_len ? table[i] : NULL;
}

static int find(const struct rch_mpi_info *o, const char *key)
{
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->e[i].key, key) == 0)
            return i;
    return -1;
}

const char *rch_mpi_info_lookup(const struct rch_mpi_info *info, const char *key)
{
    if (!info)
        return NULL;
    int i = find(info, key);
    return i >= 0 ? info->e[i].value : NULL;
}

static int info_bad(MPI_Comm comm, const char *fn, const char *arg, MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return rch_mpi_err(comm, MPI_ERR_INFO, "%s: argument %s is MPI_INFO_NULL", fn, arg);
    return rch_mpi_err(comm, MPI_ERR_INFO, "%s: invalid info object 0x%x in argument %s", fn, (unsigned)info, arg);
}

int rch_mpi_info_check(MPI_Comm comm, const char *fn, MPI_Info info)
{
    if (info == MPI_INFO_NULL || rch_mpi_info_get(info))
        return MPI_SUCCESS;
    return info_bad(comm, fn, "info", info);
}

/* Sets key (replacing its value if present). 0, or -1 if out of memory. */
static int put(struct rch_mpi_info *o, const char *key, const char *value)
{
    int i = find(o, key);
    char *v = strdup(value);
    if (!v)
        return -1;
    if (i >= 0) {
        free(o->e[i].value);
        o->e[i].value = v;
        return 0;
    }
    if (o->n == o->cap) {
        int c = o->cap ? o->cap * 2 : 8;
        struct info_entry *p = realloc(o->e, (size_t)c * sizeof(*p));
        if (!p) {
            free(v);
            return -1;
        }
        o->e = p;
        o->cap = c;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return -1;
    }
    o->e[o->n++] = (struct info_entry){ k, v };
    return 0;
}

static void clear(struct rch_mpi_info *o)
{
    for (int i = 0; i < o->n; i++) {
        free(o->e[i].key);
        free(o->e[i].value);
    }
    free(o->e);
    o->e = NULL;
    o->n = o->cap = 0;
}

static struct rch_mpi_info *info_new(void)
{
    struct rch_mpi_info *o = calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    int slot = free_head;
    if (slot >= 0) {
        free_head = free_next[slot];
    } else {
        if (table_len == table_cap) {
            int n = table_cap ? table_cap * 2 : 16;
            struct rch_mpi_info **p = realloc(table, (size_t)n * sizeof(*p));
            if (p)
                table = p;
            int *q = p ? realloc(free_next, (size_t)n * sizeof(*q)) : NULL;
            if (!p || !q || table_len >= (1 << 26)) {
                free(o);
                return NULL;
            }
            free_next = q;
            table_cap = n;
        }
        slot = table_len++;
    }
    o->handle = RCH_MPI_HDIRECT(RCH_MPI_OBJ_INFO, slot);
    table[slot] = o;
    return o;
}

static void info_delete_object(struct rch_mpi_info *o)
{
    unsigned i = RCH_MPI_HINDEX(o->handle);
    if ((int)i < table_len && table[i] == o) {
        table[i] = NULL;
        free_next[i] = free_head;
        free_head = (int)i;
    }
    clear(o);
    free(o);
}

/* "command" and "argv" (its arguments, separated by spaces) from the
 * kernel's copy of the command line: MPI_Init's argc/argv may be NULL.
 * Values longer than an info value are cut to MPI_MAX_INFO_VAL - 1. */
static int put_command(struct rch_mpi_info *o)
{
    char line[4 * MPI_MAX_INFO_VAL];
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return 0;          /* not known: the keys are left out */
    size_t n = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    line[n] = '\0';
    if (n == 0)
        return 0;
    size_t cmd = strlen(line);
    char val[MPI_MAX_INFO_VAL];
    snprintf(val, sizeof(val), "%.*s", (int)sizeof(val) - 1, line);
    int fail = put(o, "command", val);
    if (cmd + 1 < n) {
        for (size_t i = cmd + 1; i + 1 < n; i++)
            if (line[i] == '\0')
                line[i] = ' ';
        snprintf(val, sizeof(val), "%.*s", (int)sizeof(val) - 1, line + cmd + 1);
        fail |= put(o, "argv", val);
    }
    return fail;
}

/* "maxprocs" as the launcher gave it: PMI_SIZE (mpiexec.mpich, rdmachrun,
 * srun --mpi=pmi2), or 1 with no launcher at all (a singleton). A PMIx
 * launcher passes no size in the environment: then it is known only once
 * the library has started (rch_mpi_info_init). */
static int put_maxprocs(struct rch_mpi_info *o)
{
    const char *size = getenv("PMI_SIZE");
    if (size && size[0] && strspn(size, "0123456789") == strlen(size))
        return put(o, "maxprocs", size);
    if (!getenv("PMI_FD") && !getenv("PMIX_NAMESPACE"))
        return put(o, "maxprocs", "1");
    return 0;
}

/* Fills MPI_INFO_ENV once, from what the process was started with: its
 * command line, the launcher's size, the host, the machine's architecture
 * and the working directory (taken at the first use: a program that
 * changes directory before its first MPI call is seen in the new one).
 * MPI's "thread_level" is the level asked for when the program was
 * started (a launcher option); rdmach has no such option, so the key is
 * left out (MPI_Query_thread tells the level provided). 0, or -1 if out of
 * memory (nothing is kept then, a later use tries again). */
static int env_fill(void)
{
    if (env_filled)
        return 0;
    struct rch_mpi_info *o = &env_info;
    int fail = put_command(o) | put_maxprocs(o);
    char host[256];
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    fail |= put(o, "host", host);
    struct utsname u;
    if (uname(&u) == 0 && u.machine[0])
        fail |= put(o, "arch", u.machine);
    char wdir[MPI_MAX_INFO_VAL];
    if (getcwd(wdir, sizeof(wdir)))
        fail |= put(o, "wdir", wdir);
    if (fail) {
        clear(o);
        return -1;
    }
    env_filled = 1;
    return 0;
}

/* At the library's start: MPI_INFO_ENV filled (if no info call did so
 * before), and "maxprocs" the job's size, which the launcher's environment
 * gives in every case but PMIx. */
void rch_mpi_info_init(void)
{
    char size[32];
    snprintf(size, sizeof(size), "%d", rch_boot.size);
    if (env_fill() != 0 || put(&env_info, "maxprocs", size) != 0)
        rch_boot_abort(1, "MPI_Init: out of memory for MPI_INFO_ENV");
}

/* The process's last use of the library (its exit): every info goes. */
void rch_mpi_info_finalize(void)
{
    clear(&env_info);
    env_filled = 0;
    for (int i = 0; i < table_len; i++) {
        if (table[i]) {
            clear(table[i]);
            free(table[i]);
        }
    }
    free(table);
    free(free_next);
    table = NULL;
    free_next = NULL;
    table_len = table_cap = 0;
    free_head = -1;
}

/* ---- argument checks ---- */

/* MPI-4.1 11.4.1: the info calls work before the library starts (an info
 * may carry the first MPI_Session_init's hints) and after MPI_Finalize;
 * not once the process's exit has closed the library. */
int rch_mpi_info_usable(const char *fn)
{
    return rch_mpi_state == RCH_MPI_FINALIZED ? rch_mpi_check_init(fn) : MPI_SUCCESS;
}

static struct rch_mpi_info *check_info(const char *fn, MPI_Info info, int *err)
{
    *err = rch_mpi_info_usable(fn);
    if (*err)
        return NULL;
    struct rch_mpi_info *o = rch_mpi_info_get(info);
    if (!o)
        *err = info == MPI_INFO_ENV ? rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory for MPI_INFO_ENV",
                                                  fn)
                                    : info_bad(MPI_COMM_NULL, fn, "info", info);
    return o;
}

static int check_key(const char *fn, const char *key)
{
    if (!key)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_KEY, "%s: argument key is NULL", fn);
    size_t n = strnlen(key, MPI_MAX_INFO_KEY);
    if (n == 0 || n >= MPI_MAX_INFO_KEY)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_KEY, "%s: key %s (a key has 1 .. %d characters)", fn,
                           n ? "is too long" : "is empty", MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

static int check_writable(const char *fn, const struct rch_mpi_info *o)
{
    if (o->readonly)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_INFO, "%s: MPI_INFO_ENV is predefined and cannot be changed", fn);
    return MPI_SUCCESS;
}

/* ---- the calls ---- */

int PMPI_Info_create(MPI_Info *info)
{
    RCH_MPI_CS();
    int err = rch_mpi_info_usable("MPI_Info_create");
    if (err)
        return err;
    if (!info)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_create: argument info is NULL");
    struct rch_mpi_info *o = info_new();
    if (!o)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Info_create: out of memory");
    *info = o->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_create = PMPI_Info_create

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Info_set";
    int err;
    struct rch_mpi_info *o = check_info(fn, info, &err);
    if (!o)
        return err;
    if ((err = check_writable(fn, o)) || (err = check_key(fn, key)))
        return err;
    if (!value)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_VALUE, "%s: argument value is NULL", fn);
    size_t n = strnlen(value, MPI_MAX_INFO_VAL);
    if (n == 0 || n >= MPI_MAX_INFO_VAL)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_VALUE, "%s: value of key \"%s\" %s (a value has 1 .. %d characters)",
                           fn, key, n ? "is too long" : "is empty", MPI_MAX_INFO_VAL - 1);
    if (put(o, key, value) != 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_set = PMPI_Info_set

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Info_get";
    int err;
    struct rch_mpi_info *o = check_info(fn, info, &err);
    if (!o)
        return err;
    if ((err = check_key(fn, key)))
        return err;
    if (valuelen < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: negative valuelen %d", fn, valuelen);
    if (!value || !flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !value ? "value" : "flag");
    int i = find(o, key);
    *flag = i >= 0;
    if (i >= 0) {
        /* MPI: at most valuelen characters, value holds valuelen + 1 with the NUL. */
        size_t n = strlen(o->e[i].value);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, o->e[i].value, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get = PMPI_Info_get

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Info_get_valuelen";
    int err;
    struct rch_mpi_info *o = check_info(fn, info, &err);
    if (!o)
        return err;
    if ((err = check_key(fn, key)))
        return err;
    if (!valuelen || !flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !valuelen ? "valuelen" : "flag");
    int i = find(o, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(o->e[i].value);
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_info *o = check_info("MPI_Info_get_nkeys", info, &err);
    if (!o)
        return err;
    if (!nkeys)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get_nkeys: argument nkeys is NULL");
    *nkeys = o->n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Info_get_nthkey";
    int err;
    struct rch_mpi_info *o = check_info(fn, info, &err);
    if (!o)
        return err;
    if (n < 0 || n >= o->n)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: n = %d is not in 0 .. %d (the number of keys - 1)", fn, n,
                           o->n - 1);
    if (!key)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument key is NULL", fn);
    strcpy(key, o->e[n].key);          /* shorter than MPI_MAX_INFO_KEY: checked by Info_set */
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Info_delete";
    int err;
    struct rch_mpi_info *o = check_info(fn, info, &err);
    if (!o)
        return err;
    if ((err = check_writable(fn, o)) || (err = check_key(fn, key)))
        return err;
    int i = find(o, key);
    if (i < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_NOKEY, "%s: key \"%s\" is not in the info object", fn, key);
    free(o->e[i].key);
    free(o->e[i].value);
    memmove(&o->e[i], &o->e[i + 1], (size_t)(o->n - i - 1) * sizeof(o->e[0]));
    o->n--;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_delete = PMPI_Info_delete

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Info_dup";
    int err;
    struct rch_mpi_info *o = check_info(fn, info, &err);
    if (!o)
        return err;
    if (!newinfo)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument newinfo is NULL", fn);
    struct rch_mpi_info *d = info_new();
    if (!d)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < o->n; i++) {
        if (put(d, o->e[i].key, o->e[i].value) != 0) {
            info_delete_object(d);
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        }
    }
    *newinfo = d->handle;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_dup = PMPI_Info_dup

int PMPI_Info_free(MPI_Info *info)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Info_free";
    int err = rch_mpi_info_usable(fn);
    if (err)
        return err;
    if (!info)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument info is NULL", fn);
    struct rch_mpi_info *o = rch_mpi_info_get(*info);
    if (!o)
        return info_bad(MPI_COMM_NULL, fn, "info", *info);
    if ((err = check_writable(fn, o)))
        return err;
    info_delete_object(o);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_free = PMPI_Info_free

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Comm_set_info";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!rch_mpi_comm_get(comm))
        return rch_mpi_comm_bad(fn, comm);
    if (!rch_mpi_info_get(info))
        return info_bad(comm, fn, "info", info);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Comm_get_info";
    int err;
    struct rch_mpi_comm *c = rch_mpi_comm_arg(fn, comm, &err);
    if (!c)
        return err;
    if (!info_used)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument info_used is NULL", fn);
    struct rch_mpi_info *o = info_new();
    if (!o)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *info_used = o->handle;
    if (c->hw_level) {
        err = PMPI_Info_set(o->handle, "mpi_hw_resource_type", c->hw_level);
        if (err) {
            PMPI_Info_free(info_used);
            return err;
        }
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
