/*
 * The bootstrap over PMIx, through OpenPMIx's client library (built only
 * when CMake finds libpmix; pmi_select.h). A PMIx server is the launcher:
 * Open MPI's mpirun (which links the same libpmix), srun --mpi=pmix.
 *
 * Keys are per process in PMIx already: put() is PMIx_Put(GLOBAL), fence()
 * is PMIx_Commit + PMIx_Fence with PMIX_COLLECT_DATA (every rank then holds
 * every value: a get is local), get(rank) is PMIx_Get of (nspace, rank) with
 * PMIX_OPTIONAL, so a key never put is RDMACH_ERR_NOT_FOUND at once rather
 * than a request to the server that waits for it. The layout is each rank's
 * PMIX_NODEID (or PMIX_HOSTNAME), job data the server gives every client,
 * checked against PMIX_LOCAL_PEERS.
 */
#include "rdmach_config.h"
#if RDMACH_HAVE_PMIX
#include <pmix.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "boot/layout.h"
#include "boot/pmi_select.h"

static pmix_proc_t me;

static rdmach_status_t pmix_err(rdmach_status_t st, pmix_status_t rc, const char *what)
{
    return rch_base_err(st, "PMIx: %s failed: %s (%d)", what, PMIx_Error_string(rc), (int)rc);
}

/* A value of the job (rank PMIX_RANK_WILDCARD) or of one rank, optional:
 * PMIX_ERR_NOT_FOUND when the server did not give it. */
static pmix_status_t get_value(pmix_rank_t rank, const char *key, pmix_value_t **val)
{
    pmix_proc_t p;
    pmix_info_t info;
    bool yes = true;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Get(&p, key, &info, 1, val);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static rdmach_status_t get_uint32(pmix_rank_t rank, const char *key, uint32_t *out)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = get_value(rank, key, &v);
    if (rc == PMIX_ERR_NOT_FOUND)
        return rch_base_err(RDMACH_ERR_NOT_FOUND, "PMIx: the server gives no %s", key);
    if (rc != PMIX_SUCCESS)
        return pmix_err(RDMACH_ERR_BOOT, rc, key);
    rdmach_status_t st = RDMACH_OK;
    if (v->type == PMIX_UINT32)
        *out = v->data.uint32;
    else
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMIx: %s has type %s, expected uint32", key,
                          PMIx_Data_type_string(v->type));
    PMIX_VALUE_RELEASE(v);
    return st;
}

static rdmach_status_t get_string(pmix_rank_t rank, const char *key, char *out, size_t len)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = get_value(rank, key, &v);
    if (rc == PMIX_ERR_NOT_FOUND)
        return rch_base_err(RDMACH_ERR_NOT_FOUND, "PMIx: rank %u has no key '%s'", (unsigned)rank, key);
    if (rc != PMIX_SUCCESS)
        return pmix_err(RDMACH_ERR_BOOT, rc, key);
    rdmach_status_t st = RDMACH_OK;
    if (v->type != PMIX_STRING || v->data.string == NULL)
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMIx: %s of rank %u has type %s, expected a string", key,
                          (unsigned)rank, PMIx_Data_type_string(v->type));
    else if (strlen(v->data.string) >= len)
        st = rch_base_err(RDMACH_ERR_TRUNCATE, "PMIx: value of %s (%zu bytes) does not fit in %zu", key,
                          strlen(v->data.string), len);
    else
        strcpy(out, v->data.string);
    PMIX_VALUE_RELEASE(v);
    return st;
}

static rdmach_status_t px_init(int *rank, int *size, int *appnum, char *jobid, size_t len)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return pmix_err(RDMACH_ERR_BOOT, rc, "PMIx_Init (is the launcher's PMIx server reachable?)");
    uint32_t n = 0, univ = 0;
    rdmach_status_t st = get_uint32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &n);
    if (st == RDMACH_OK && (n == 0 || n > (1u << 24) || me.rank >= n))
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMIx: rank %u of job size %u", (unsigned)me.rank, n);
    if (st == RDMACH_OK && strlen(me.nspace) >= len)
        st = rch_base_err(RDMACH_ERR_BOOT, "PMIx: namespace '%.60s' is too long", me.nspace);
    if (st != RDMACH_OK) {
        PMIx_Finalize(NULL, 0);
        return st;
    }
    if (get_uint32(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, &univ) == RDMACH_OK)
        RCH_DEBUG("pmi", "PMIx namespace %s: rank %u of %u, universe size %u", me.nspace, (unsigned)me.rank, n,
                  univ);
    uint32_t app = 0;   /* a server that does not say has one application */
    get_uint32(me.rank, PMIX_APPNUM, &app);
    *appnum = (int)app;
    *rank = (int)me.rank;
    *size = (int)n;
    strcpy(jobid, me.nspace);
    return RDMACH_OK;
}

/* The server's PMIX_LOCAL_PEERS ("0,1,4": the ranks on my node) must be
 * exactly the ranks that node_of puts on my node; a server without it is
 * not checked. */
static rdmach_status_t check_local_peers(const int *node_of, int size)
{
    char peers[4096], *p = peers, *end;
    rdmach_status_t st = get_string(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, peers, sizeof(peers));
    if (st == RDMACH_ERR_NOT_FOUND || st == RDMACH_ERR_TRUNCATE)
        return RDMACH_OK;
    if (st != RDMACH_OK)
        return st;
    int mine = node_of[me.rank], listed = 0, local = 0;
    for (int r = 0; r < size; r++)
        local += node_of[r] == mine;
    while (*p) {
        long r = strtol(p, &end, 10);
        if (end == p || r < 0 || r >= size || node_of[r] != mine || (*end && *end != ','))
            return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMIx: PMIX_LOCAL_PEERS '%.80s' disagrees with the "
                                "node map at '%.20s' (rank %u is on node %d)", peers, p, (unsigned)me.rank, mine);
        listed++;
        p = *end ? end + 1 : end;
    }
    if (listed != local)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMIx: PMIX_LOCAL_PEERS '%.80s' lists %d ranks, the node map "
                            "puts %d on this node", peers, listed, local);
    RCH_DEBUG("pmi", "PMIx: local peers %s agree with the node map", peers);
    return RDMACH_OK;
}

static rdmach_status_t px_node_ids(int *node_of, int size)
{
    uint32_t id;
    rdmach_status_t st = RDMACH_OK;
    for (int r = 0; r < size && st == RDMACH_OK; r++)
        if ((st = get_uint32((pmix_rank_t)r, PMIX_NODEID, &id)) == RDMACH_OK)
            node_of[r] = (int)id;
    if (st == RDMACH_OK)
        RCH_DEBUG("pmi", "PMIx: the layout from PMIX_NODEID");
    if (st == RDMACH_OK)
        return check_local_peers(node_of, size);
    if (st != RDMACH_ERR_NOT_FOUND)
        return st;
    /* no node ids: group the ranks by the host name the server gives */
    char **names = calloc((size_t)size, sizeof(char *));
    if (names == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "PMIx: out of memory for %d host names", size);
    st = RDMACH_OK;
    for (int r = 0; r < size && st == RDMACH_OK; r++) {
        names[r] = malloc(256);
        st = names[r] ? get_string((pmix_rank_t)r, PMIX_HOSTNAME, names[r], 256)
                      : rch_base_err(RDMACH_ERR_NO_MEMORY, "PMIx: out of memory for host names");
    }
    if (st == RDMACH_OK)
        rch_boot_group_ids((const char *const *)names, size, node_of);
    for (int r = 0; r < size; r++)
        free(names[r]);
    free(names);
    if (st == RDMACH_OK)
        RCH_DEBUG("pmi", "PMIx: the layout from PMIX_HOSTNAME");
    return st == RDMACH_OK ? check_local_peers(node_of, size) : st;
}

static rdmach_status_t px_put(const char *key, const char *value)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, value, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    return rc == PMIX_SUCCESS ? RDMACH_OK : pmix_err(RDMACH_ERR_BOOT, rc, "PMIx_Put");
}

static rdmach_status_t px_get(int rank, const char *key, char *value, size_t len)
{
    return get_string((pmix_rank_t)rank, key, value, len);
}

static rdmach_status_t px_fence(void)
{
    pmix_info_t info;
    bool yes = true;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return pmix_err(RDMACH_ERR_BOOT, rc, "PMIx_Commit");
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);   /* NULL: every process of my namespace */
    PMIX_INFO_DESTRUCT(&info);
    return rc == PMIX_SUCCESS ? RDMACH_OK : pmix_err(RDMACH_ERR_BOOT, rc, "PMIx_Fence");
}

static rdmach_status_t px_abort(int code, const char *why)
{
    pmix_status_t rc = PMIx_Abort(code, why ? why : "rdmach: the job is aborted", NULL, 0);
    return rc == PMIX_SUCCESS ? RDMACH_OK : pmix_err(RDMACH_ERR_BOOT, rc, "PMIx_Abort");
}

/* The ranks listed ("2,3") of this namespace, as PMIx_Abort's procs: the
 * server may end only them (the PMIx standard leaves it to the host:
 * Open MPI's and Slurm's end the whole job, docs/ARCHITECTURE.md,
 * "MPI_ERRORS_ABORT"); the caller _exits after either way. */
static rdmach_status_t px_abort_ranks(int code, const char *why, const char *ranks)
{
    size_t n = 1, k = 0;
    for (const char *s = ranks; *s; s++)
        n += *s == ',';
    pmix_proc_t *procs = calloc(n, sizeof(*procs));
    if (!procs)
        return px_abort(code, why);
    for (const char *s = ranks; *s && k < n;) {
        char *end;
        unsigned long r = strtoul(s, &end, 10);
        if (end == s)
            break;
        PMIX_LOAD_PROCID(&procs[k++], me.nspace, (pmix_rank_t)r);
        s = *end == ',' ? end + 1 : end;
    }
    pmix_status_t rc = PMIx_Abort(code, why ? why : "rdmach: MPI_ERRORS_ABORT ends these ranks", procs, k);
    free(procs);
    return rc == PMIX_SUCCESS ? RDMACH_OK : pmix_err(RDMACH_ERR_BOOT, rc, "PMIx_Abort");
}

const char *rch_boot_pmix_nspace(void)
{
    return me.nspace;
}

static rdmach_status_t px_finalize(void)
{
    rch_boot_pmix_psets_free();
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? RDMACH_OK : pmix_err(RDMACH_ERR_BOOT, rc, "PMIx_Finalize");
}

/* MPI_Comm_spawn (boot.h): PMIx_Spawn of one app per command, the preput
 * key in each app's environment as RCH_<key> (PMIx has no preput into the
 * new namespace's KVS that every server honours); the children read it back
 * with rch_boot_pmix_job_get. The working directory is the info's wdir,
 * else ours. */
rdmach_status_t rch_boot_pmix_spawn(int count, const struct rch_boot_spawn *cmds, const char *key,
                                    const char *val, int *errcodes)
{
    pmix_app_t *apps;
    PMIX_APP_CREATE(apps, count);
    char cwd[4096], *env = NULL;
    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), "/");
    if (key && asprintf(&env, "RCH_%s=%s", key, val) < 0)
        env = NULL;
    int total = 0;
    for (int k = 0; k < count; k++) {
        const struct rch_boot_spawn *c = &cmds[k];
        int argc = 0;
        while (c->argv && c->argv[argc])
            argc++;
        apps[k].cmd = strdup(c->exec);
        apps[k].argv = calloc((size_t)argc + 2, sizeof(char *));
        apps[k].env = calloc(3, sizeof(char *));
        if (apps[k].argv) {
            apps[k].argv[0] = strdup(c->exec);
            for (int i = 0; i < argc; i++)
                apps[k].argv[i + 1] = strdup(c->argv[i]);
        }
        if (apps[k].env) {
            apps[k].env[0] = strdup("PMI_SPAWNED=1");
            apps[k].env[1] = env ? strdup(env) : NULL;
        }
        const char *wdir = cwd;
        for (int i = 0; i < c->ninfo; i++)
            if (strcmp(c->info_key[i], "wdir") == 0)
                wdir = c->info_val[i];
        apps[k].cwd = strdup(wdir);
        apps[k].maxprocs = c->nprocs;
        total += c->nprocs;
    }
    free(env);
    char nspace[PMIX_MAX_NSLEN + 1];
    pmix_status_t rc = PMIx_Spawn(NULL, 0, apps, (size_t)count, nspace);
    PMIX_APP_FREE(apps, (size_t)count);
    for (int i = 0; i < total; i++)
        errcodes[i] = rc == PMIX_SUCCESS ? 0 : 1;
    if (rc == PMIX_ERR_NOT_SUPPORTED)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "PMIx_Spawn: the PMIx server does not spawn (Slurm's mpi/pmix "
                            "plugin has no spawn); under Slurm, start the job with srun --mpi=pmi2 (with "
                            "SLURM_OVERLAP=1), or with Hydra's mpiexec inside the allocation (with "
                            "HYDRA_LAUNCHER_EXTRA_ARGS=--overlap)");
    return rc == PMIX_SUCCESS ? RDMACH_OK : pmix_err(RDMACH_ERR_BOOT, rc, "PMIx_Spawn");
}

rdmach_status_t rch_boot_pmix_job_get(const char *key, char *value, size_t len)
{
    char name[96];
    snprintf(name, sizeof(name), "RCH_%s", key);
    const char *v = getenv(name);
    if (!v)
        return rch_base_err(RDMACH_ERR_NOT_FOUND, "PMIx: no %s in the environment (not a spawned process)", name);
    if (strlen(v) >= len)
        return rch_base_err(RDMACH_ERR_TRUNCATE, "PMIx: %s is longer than %zu bytes", name, len - 1);
    strcpy(value, v);
    return RDMACH_OK;
}

const struct rch_boot_pmi_ops rch_boot_pmix_ops = {
    .name = "pmix",
    .init = px_init,
    .node_ids = px_node_ids,
    .put = px_put,
    .get = px_get,
    .fence = px_fence,
    .abort = px_abort,
    .abort_ranks = px_abort_ranks,
    .finalize = px_finalize,
};

#endif
