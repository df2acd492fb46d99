/*
 * Bootstrap: who am I, where are my peers, and the key-value store.
 *
 * rch_boot_init reads the PMI environment (or becomes a singleton), learns
 * the node layout (PMI_process_mapping, else host identities through the
 * KVS), applies RDMACH_VNODE_SIZE, binds the process (RDMACH_BIND) by its
 * local rank on the REAL node — pretend nodes share the real cores — and
 * fills rch_boot. The KVS maps (rank, key) to the PMI key "r<rank>.<key>";
 * the bootstrap's own keys use the prefix "b<rank>." so they cannot collide
 * with a caller's.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "boot/layout.h"
#include "boot/pmi_client.h"
#include "boot/pmi_select.h"
#include "boot/topo.h"

struct rch_boot_info rch_boot = { .bound_core = -1, .bound_numa = -1 };

static int boot_up;                 /* between rch_boot_init and rch_boot_finalize */
static const struct rch_boot_pmi_ops *pmi;   /* NULL: rch_boot.singleton */

/* A singleton's store: its own keys only, visible at once. */
struct local_kv {
    struct local_kv *next;
    char key[RDMACH_KVS_KEY_MAX];
    char value[RDMACH_KVS_VAL_MAX];
};
static struct local_kv *local_kvs;

/* The bootstrap's own key: '@' is not allowed in a caller's keys. */
#define BOOT_HOST_KEY "@host"

static void watch_exit(void);

int rch_boot_is_up(void)
{
    return boot_up;
}

const char *rch_boot_pmi_name(void)
{
    return pmi ? pmi->name : "singleton";
}

static int key_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '.' || c == ':' || c == '-';
}

static rdmach_status_t check_key(const char *key)
{
    if (key == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "kvs: key is NULL");
    size_t n = strnlen(key, RDMACH_KVS_KEY_MAX);
    if (n == 0 || n >= RDMACH_KVS_KEY_MAX)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "kvs: key '%.60s' must have 1 to %d characters",
                            key, RDMACH_KVS_KEY_MAX - 1);
    for (size_t i = 0; i < n; i++)
        if (!key_char((unsigned char)key[i]))
            return rch_base_err(RDMACH_ERR_INVALID_ARG,
                                "kvs: key '%s' has character 0x%02x; allowed are A-Z a-z 0-9 _ . : -",
                                key, (unsigned char)key[i]);
    return RDMACH_OK;
}

static rdmach_status_t check_value(const char *key, const char *value)
{
    if (value == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "kvs put %s: value is NULL", key);
    size_t n = strnlen(value, RDMACH_KVS_VAL_MAX);
    if (n >= RDMACH_KVS_VAL_MAX)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "kvs put %s: value longer than %d characters",
                            key, RDMACH_KVS_VAL_MAX - 1);
    if (!rch_pmi_valid_value(value, RDMACH_KVS_VAL_MAX))
        return rch_base_err(RDMACH_ERR_INVALID_ARG,
                            "kvs put %s: value contains a space or a non-printable character (hex-encode binary data)",
                            key);
    return RDMACH_OK;
}

/* ---- layout ---- */

/* hostname/boot_id: equal exactly for processes of one running kernel. */
static void host_identity(char *out, size_t len)
{
    char boot_id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (fgets(boot_id, sizeof(boot_id), f) == NULL)
            boot_id[0] = '\0';
        fclose(f);
        boot_id[strcspn(boot_id, "\n")] = '\0';
    }
    snprintf(out, len, "%s/%s", rch_boot.hostname, boot_id);
}

/* node_of[] by exchanging host identities through the KVS (one barrier). */
static rdmach_status_t exchange_hosts(int *node_of)
{
    char id[320], hex[2 * sizeof(id) + 1];
    int size = rch_boot.size;
    rdmach_status_t st;
    host_identity(id, sizeof(id));
    rch_boot_hex_encode(id, strlen(id), hex);
    if ((st = pmi->put(BOOT_HOST_KEY, hex)) != RDMACH_OK)
        return st;
    if ((st = pmi->fence()) != RDMACH_OK)
        return st;
    char **ids = calloc((size_t)size, sizeof(char *));
    if (ids == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "boot: out of memory for %d host ids", size);
    for (int r = 0; r < size && st == RDMACH_OK; r++) {
        ids[r] = malloc(RCH_PMI_VAL_MAX);
        if (ids[r] == NULL)
            st = rch_base_err(RDMACH_ERR_NO_MEMORY, "boot: out of memory for host ids");
        else
            st = pmi->get(r, BOOT_HOST_KEY, ids[r], RCH_PMI_VAL_MAX);
    }
    if (st == RDMACH_OK)
        rch_boot_group_ids((const char *const *)ids, size, node_of);
    for (int r = 0; r < size; r++)
        free(ids[r]);
    free(ids);
    return st;
}

/* The real node of every rank: from the launcher's layout when it gives one. */
static rdmach_status_t real_layout(int *node_of)
{
    rdmach_status_t st;
    if (rch_boot.singleton) {
        node_of[0] = 0;
        return RDMACH_OK;
    }
    st = pmi->node_ids(node_of, rch_boot.size);
    if (st == RDMACH_OK)
        RCH_DEBUG("boot", "layout from the launcher (%s)", pmi->name);
    if (st == RDMACH_ERR_NOT_FOUND) {
        RCH_DEBUG("boot", "the launcher gives no layout: exchanging host identities");
        st = exchange_hosts(node_of);
    }
    if (st == RDMACH_OK && rch_boot_renumber(node_of, rch_boot.size) < 0)
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "boot: out of memory renumbering nodes");
    return st;
}

/* Job ids end up in file names: keep [A-Za-z0-9_-]. */
static void set_kvsname(const char *name)
{
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof(rch_boot.kvsname); i++) {
        unsigned char c = (unsigned char)name[i];
        rch_boot.kvsname[i] = (char)(isalnum(c) || c == '_' || c == '-' ? c : '_');
    }
    rch_boot.kvsname[i] = '\0';
}

rdmach_status_t rch_boot_init(void)
{
    int fd = -1, rank, size, appnum = 0, singleton, *node_of = NULL, *real = NULL;
    rdmach_status_t st;
    char name[64], why[160];

    if (boot_up)
        return RDMACH_OK;
    memset(&rch_boot, 0, sizeof(rch_boot));
    rch_boot.bound_core = rch_boot.bound_numa = -1;
    if (gethostname(rch_boot.hostname, sizeof(rch_boot.hostname) - 1) < 0)
        strcpy(rch_boot.hostname, "localhost");

    if ((st = rch_boot_pmi_choose(rch_tun.pmi, &pmi, why, sizeof(why))) != RDMACH_OK)
        return st;
    singleton = pmi == NULL;
    if (singleton) {
        /* an inconsistent PMI environment is an error, not a singleton */
        if (rch_tun.pmi != RCH_PMI_USE_SINGLETON && (st = rch_pmi_client_env(&fd, &rank, &size, &singleton)) != RDMACH_OK)
            return st;
        rank = 0;
        size = 1;
        singleton = 1;
        snprintf(name, sizeof(name), "single%d", (int)getpid());
        set_kvsname(name);
    } else {
        char jobid[256];
        if ((st = pmi->init(&rank, &size, &appnum, jobid, sizeof(jobid))) != RDMACH_OK)
            return st;
        set_kvsname(jobid);
    }
    rch_boot.rank = rank;
    rch_boot.size = size;
    rch_boot.singleton = singleton;
    rch_boot.appnum = appnum;
    rch_log_set_rank(rank);
    RCH_DEBUG("boot", "process manager interface %s: %s", pmi ? pmi->name : "singleton", why);

    node_of = malloc(sizeof(int) * (size_t)size);
    real = malloc(sizeof(int) * (size_t)size);
    if (node_of == NULL || real == NULL) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "boot: out of memory for the layout of %d ranks", size);
        goto out_free;
    }
    if ((st = real_layout(real)) != RDMACH_OK)
        goto out_free;
    memcpy(node_of, real, sizeof(int) * (size_t)size);
    if (rch_boot_apply_vnodes(node_of, size, rch_tun.vnode_size) < 0) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "boot: out of memory for pretend nodes");
        goto out_free;
    }
    if ((st = rch_boot_layout_fill(&rch_boot, node_of)) != RDMACH_OK)
        goto out_free_layout;
    node_of = NULL; /* owned by rch_boot now */

    /* bind by the local rank on the real node: pretend nodes share its cores */
    int real_local, real_local_size;
    rch_boot_local_index(real, size, rank, &real_local, &real_local_size);
    rch_boot.host_size = real_local_size;
    if ((st = rch_boot_machine_tunables(real_local_size)) != RDMACH_OK)
        goto out_free_layout;
    st = rch_boot_topo_bind(rch_tun.bind, real_local, &rch_boot.bound_core, &rch_boot.bound_numa);
    if (st != RDMACH_OK)
        RCH_WARN("topo", "not bound (%s): %s", rdmach_strerror(st), rdmach_last_error());
    free(real);

    boot_up = 1;
    if (!singleton)
        watch_exit();
    RCH_INFO("boot", "rank %d of %d on %s: node %d of %d, local rank %d of %d, core %d, job %s%s",
             rank, size, rch_boot.hostname, rch_boot.node, rch_boot.num_nodes, rch_boot.local_rank,
             rch_boot.local_size, rch_boot.bound_core, rch_boot.kvsname, singleton ? " (singleton)" : "");
    return RDMACH_OK;

out_free_layout:
    rch_boot_layout_free(&rch_boot);
    node_of = NULL;
out_free:
    free(node_of);
    free(real);
    if (!singleton)
        pmi->finalize();
    return st;
}

rdmach_status_t rch_boot_finalize(void)
{
    rdmach_status_t st = RDMACH_OK;
    if (!boot_up)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "boot: finalize without init");
    if (!rch_boot.singleton)
        st = pmi->finalize();
    while (local_kvs) {
        struct local_kv *n = local_kvs->next;
        free(local_kvs);
        local_kvs = n;
    }
    rch_boot_layout_free(&rch_boot);
    boot_up = 0;
    return st;
}

/* Before a job ends on an abort: if fd (stdout, stderr) is a pipe (a
 * launcher's proxy reads it), wait until the reader has taken what we wrote,
 * at most ~1 s. Hydra forwards output asynchronously and may tear the job
 * down on the abort before it has read the message that explains it; a
 * program then fails with exit code 127 and no word why. FIONREAD on either
 * end of a pipe tells the bytes still in it. */
static void drain_pipe(int fd)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISFIFO(sb.st_mode))
        return;
    const struct timespec ms = { 0, 1000000L };
    for (int i = 0; i < 1000; i++) {
        int left = 0;
        if (ioctl(fd, FIONREAD, &left) != 0 || left <= 0)
            return;
        nanosleep(&ms, NULL);
    }
}

/* exit(code) or a return from main between init and finalize, with a
 * non-zero code: end the job with that code by PMI abort, as MPI_Abort
 * would. Left to the launcher, the code is often lost: Hydra kills the
 * other ranks (still in MPI_Finalize, or waiting for this one) with SIGKILL
 * and exits with the bitwise OR of every rank's wait status, i.e. "signal
 * 9"; with the abort it exits with the code. An exit(0) without finalize is
 * left to the launcher (rdmachrun warns; the job fails if others wait for
 * the rank). A child forked by the program inherits the hook: only the
 * process that initialized speaks for the rank. Neither does an exit from
 * a handler of a termination signal (libinfinipath, loaded with libfabric's
 * psm provider, turns SIGTERM into exit(1)): the launcher or the user is
 * ending the job already. Inside such a handler its signal is blocked. */
static pid_t exit_hook_pid;
static sigset_t exit_hook_mask;   /* the mask at init */

static int in_termination_handler(void)
{
    static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
    sigset_t now;
    if (sigprocmask(SIG_BLOCK, NULL, &now) != 0)
        return 0;
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        if (sigismember(&now, sigs[i]) && !sigismember(&exit_hook_mask, sigs[i]))
            return 1;
    return 0;
}

static void exit_hook(int code, void *arg)
{
    (void)arg;
    if (!boot_up || rch_boot.singleton || code == 0 || getpid() != exit_hook_pid || in_termination_handler())
        return;
    rch_log_emit(RCH_LOG_ERROR, "exit", "rank %d of %d exits with code %d before MPI_Finalize: ending the job",
                 rch_boot.rank, rch_boot.size, code);
    fflush(NULL);
    drain_pipe(1);
    drain_pipe(2);
    rch_base_abort_announce(code);
    pmi->abort(code, RCH_PMI_ABORT_EXIT);
}

static void watch_exit(void)
{
    if (exit_hook_pid != 0 || sigprocmask(SIG_BLOCK, NULL, &exit_hook_mask) != 0)
        return;
    if (on_exit(exit_hook, NULL) == 0)
        exit_hook_pid = getpid();
}

/* The grace a fatal error that a peer's failure caused gives the launcher
 * (rch_boot_abort_after_peer). */
#define PEER_GRACE_NS 1000000000L

static void abort_job(int code, const char *msg, int peer_failed) __attribute__((noreturn));

void rch_boot_abort(int code, const char *msg)
{
    abort_job(code, msg, 0);
}

/* A rank that exits with a code before MPI_Finalize ends the job itself
 * (exit_hook's PMI abort), as MPI_Abort does. Over shared memory its
 * announcement reaches the others (rch_base_abort_seen) and abort_job
 * leaves with its code; over the network nothing tells them, so a rank
 * whose MPI call failed on that peer's departure would race its own abort
 * to the launcher, which reports the last one's code (Hydra reported 1
 * for a job whose code was 3 in one CI run of
 * drills_exit_hydra_vnode1_early). Its message goes out at once; its abort
 * waits PEER_GRACE_NS for the launcher to end the job first. */
void rch_boot_abort_after_peer(int code, const char *msg)
{
    abort_job(code, msg, 1);
}

static void abort_job(int code, const char *msg, int peer_failed)
{
    /* Another rank is ending the job by an abort already (a channel saw
     * it: rch_base_abort_seen), and this one most likely follows from it
     * (that rank gone): leave with its code. A second abort would race it
     * to the launcher, and Hydra reports the last one's code. */
    int first;
    if (boot_up && !rch_boot.singleton && rch_base_abort_code(&first)) {
        rch_log_emit(RCH_LOG_ERROR, "abort", "rank %d of %d: %s; the job is ending on another rank's abort (exit code %d)",
                     rch_boot.rank, rch_boot.size, msg ? msg : "", first);
        drain_pipe(2);
        _exit(first);
    }
    if (boot_up)
        rch_log_emit(RCH_LOG_ERROR, "abort", "rank %d of %d aborts the job with exit code %d: %s",
                     rch_boot.rank, rch_boot.size, code, msg ? msg : "");
    else
        rch_log_emit(RCH_LOG_ERROR, "abort", "aborting with exit code %d: %s", code, msg ? msg : "");
    /* The launcher reads the abort before it sees this process exit (one
     * ordered stream), ends the job and reports the code; the output
     * written before it is read first. */
    drain_pipe(1);
    drain_pipe(2);
    if (boot_up && !rch_boot.singleton && peer_failed) {
        struct timespec grace = { PEER_GRACE_NS / 1000000000L, PEER_GRACE_NS % 1000000000L };
        while (nanosleep(&grace, &grace) != 0 && errno == EINTR)
            ;
    }
    if (boot_up && !rch_boot.singleton) {
        rch_base_abort_announce(code);
        pmi->abort(code, NULL);
    }
    _exit(code);
}

void rch_boot_abort_ranks(int code, const char *msg, const int *ranks, int n)
{
    char list[RCH_PMI_VAL_MAX];
    size_t at = 0;
    for (int i = 0; i < n && at < sizeof(list); i++)
        at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%d", i ? "," : "", ranks[i]);
    if (!boot_up || rch_boot.singleton || n >= rch_boot.size || !pmi->abort_ranks || at >= sizeof(list))
        rch_boot_abort(code, msg);
    rch_log_emit(RCH_LOG_ERROR, "abort", "rank %d of %d aborts ranks %s with exit code %d: %s", rch_boot.rank,
                 rch_boot.size, list, code, msg ? msg : "");
    drain_pipe(2);
    if (pmi->abort_ranks(code, NULL, list) != RDMACH_OK)
        pmi->abort(code, NULL);
    _exit(code);
}

/* ---- key-value store ---- */

rdmach_status_t rch_boot_put(const char *key, const char *value)
{
    rdmach_status_t st;
    if (!boot_up)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "kvs put: the bootstrap is not initialized");
    if ((st = check_key(key)) != RDMACH_OK || (st = check_value(key, value)) != RDMACH_OK)
        return st;
    if (!rch_boot.singleton)
        return pmi->put(key, value);
    struct local_kv *kv;
    for (kv = local_kvs; kv; kv = kv->next)
        if (strcmp(kv->key, key) == 0)
            break;
    if (kv == NULL) {
        if ((kv = calloc(1, sizeof(*kv))) == NULL)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "kvs put %s: out of memory", key);
        strcpy(kv->key, key);
        kv->next = local_kvs;
        local_kvs = kv;
    }
    strcpy(kv->value, value); /* the last put wins, as under Hydra */
    return RDMACH_OK;
}

rdmach_status_t rch_boot_get(int rank, const char *key, char *value, size_t len)
{
    rdmach_status_t st;
    if (!boot_up)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "kvs get: the bootstrap is not initialized");
    if ((st = check_key(key)) != RDMACH_OK)
        return st;
    if (rank < 0 || rank >= rch_boot.size)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "kvs get %s: rank %d is not in 0..%d",
                            key, rank, rch_boot.size - 1);
    if (value == NULL || len == 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "kvs get %s: no buffer for the value", key);
    if (!rch_boot.singleton) {
        st = pmi->get(rank, key, value, len);
        if (st == RDMACH_ERR_NOT_FOUND)
            return rch_base_err(st, "kvs get: rank %d has no key '%s' (not put, or not fenced yet)", rank, key);
        return st;
    }
    for (struct local_kv *kv = local_kvs; kv; kv = kv->next) {
        if (strcmp(kv->key, key) == 0) {
            if (strlen(kv->value) >= len)
                return rch_base_err(RDMACH_ERR_TRUNCATE, "kvs get %s: value of %zu bytes does not fit in %zu",
                                    key, strlen(kv->value), len);
            strcpy(value, kv->value);
            return RDMACH_OK;
        }
    }
    return rch_base_err(RDMACH_ERR_NOT_FOUND, "kvs get: rank %d has no key '%s'", rank, key);
}

rdmach_status_t rch_boot_fence(void)
{
    if (!boot_up)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "kvs fence: the bootstrap is not initialized");
    if (rch_boot.singleton)
        return RDMACH_OK;
    return pmi->fence();
}
