/*
 * The bootstrap's process-manager interfaces as ops tables, and the choice
 * among them (pmi_select.h). PMI-1 and PMI-2 have one key space per job:
 * the key of (rank, key) is "r<rank>.<key>", within their 64-byte keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "boot/layout.h"
#include "boot/pmi2_client.h"
#include "boot/pmi_client.h"
#include "boot/pmi_select.h"

static rdmach_status_t rank_key(char *out, size_t len, int rank, const char *key)
{
    int n = snprintf(out, len, "r%d.%s", rank, key);
    if (n < 0 || (size_t)n >= len)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "kvs: key '%.64s' of rank %d is too long for PMI", key, rank);
    return RDMACH_OK;
}

static rdmach_status_t copy_jobid(const char *id, char *out, size_t len)
{
    if (strlen(id) >= len)
        return rch_base_err(RDMACH_ERR_BOOT, "PMI: job id '%.60s' is longer than %zu bytes", id, len - 1);
    strcpy(out, id);
    return RDMACH_OK;
}

/* ---- PMI-1 ---- */

static struct rch_pmi_client pmi1;

static rdmach_status_t pmi1_init(int *rank, int *size, int *appnum, char *jobid, size_t len)
{
    int fd, singleton;
    rdmach_status_t st = rch_pmi_client_env(&fd, rank, size, &singleton);
    if (st == RDMACH_OK && singleton)
        st = rch_base_err(RDMACH_ERR_BOOT, "RDMACH_PMI=pmi1 but PMI_FD is not set: no PMI-1 launcher started this process");
    if (st == RDMACH_OK)
        st = rch_pmi_client_init(&pmi1, fd, *rank, *size);
    *appnum = pmi1.appnum;
    return st == RDMACH_OK ? copy_jobid(pmi1.kvsname, jobid, len) : st;
}

static rdmach_status_t pmi1_put(const char *key, const char *value)
{
    char k[RCH_PMI_KEY_MAX];
    rdmach_status_t st = rank_key(k, sizeof(k), pmi1.rank, key);
    return st == RDMACH_OK ? rch_pmi_client_put(&pmi1, k, value) : st;
}

static rdmach_status_t pmi1_get(int rank, const char *key, char *value, size_t len)
{
    char k[RCH_PMI_KEY_MAX];
    rdmach_status_t st = rank_key(k, sizeof(k), rank, key);
    return st == RDMACH_OK ? rch_pmi_client_get(&pmi1, k, value, len) : st;
}

/* Hydra, Slurm and rdmachrun give the layout as PMI_process_mapping: in the
 * KVS under PMI-1, as a job attribute under PMI-2. */
static rdmach_status_t node_ids_from(rdmach_status_t (*attr)(const char *, char *, size_t), int *node_of, int size)
{
    char map[RCH_PMI_VAL_MAX];
    rdmach_status_t st = attr("PMI_process_mapping", map, sizeof(map));
    if (st == RDMACH_OK)
        st = rch_boot_parse_mapping(map, size, node_of);
    return st;
}

static rdmach_status_t pmi1_mapping(const char *name, char *value, size_t len)
{
    return rch_pmi_client_get(&pmi1, name, value, len);
}

static rdmach_status_t pmi1_node_ids(int *node_of, int size)
{
    return node_ids_from(pmi1_mapping, node_of, size);
}

static rdmach_status_t pmi1_fence(void)
{
    return rch_pmi_client_barrier(&pmi1);
}

static rdmach_status_t pmi1_abort(int code, const char *why)
{
    return rch_pmi_client_abort(&pmi1, code, why);
}

/* Hydra ignores the ranks field and ends the whole job; rdmachrun ends the
 * ranks listed (tools/run_pmi.c). */
static rdmach_status_t pmi1_abort_ranks(int code, const char *why, const char *ranks)
{
    return rch_pmi_client_abort_ranks(&pmi1, code, why, ranks);
}

static rdmach_status_t pmi1_finalize(void)
{
    return rch_pmi_client_finalize(&pmi1);
}

static const struct rch_boot_pmi_ops pmi1_ops = {
    .name = "pmi1",
    .init = pmi1_init,
    .node_ids = pmi1_node_ids,
    .put = pmi1_put,
    .get = pmi1_get,
    .fence = pmi1_fence,
    .abort = pmi1_abort,
    .abort_ranks = pmi1_abort_ranks,
    .finalize = pmi1_finalize,
};

/* Dynamic processes (boot.h): PMI-1 (Hydra, rdmachrun) and PMIx (pmix.c). */
static int is_pmix(void)
{
    return strcmp(rch_boot_pmi_name(), "pmix") == 0;
}

static rdmach_status_t need_pmi1(const char *what)
{
    if (strcmp(rch_boot_pmi_name(), "pmi1") == 0)
        return RDMACH_OK;
    return rch_base_err(RDMACH_ERR_UNSUPPORTED, "%s needs a PMI-1 (Hydra's mpiexec, rdmachrun) or PMIx launcher; "
                        "this process runs under %s", what, rch_boot_pmi_name());
}

static int is_pmi2(void)
{
    return strcmp(rch_boot_pmi_name(), "pmi2") == 0;
}

static struct rch_pmi2_client pmi2;

rdmach_status_t rch_boot_spawn(int count, const struct rch_boot_spawn *cmds, const char *preput_key,
                               const char *preput_val, int *errcodes)
{
#if RDMACH_HAVE_PMIX
    if (is_pmix())
        return rch_boot_pmix_spawn(count, cmds, preput_key, preput_val, errcodes);
#endif
    /* Slurm's PMI-2 server (srun --mpi=pmi2) runs srun for a new step of
     * the job and answers once its tasks are started: a step Slurm holds
     * (the first step has the CPUs) never answers. */
    if (is_pmi2()) {
        rdmach_status_t st = rch_pmi2_client_spawn(&pmi2, count, cmds, preput_key, preput_val, errcodes,
                                                   rch_tun.dyn_timeout_ms);
        char why[256];
        snprintf(why, sizeof(why), "%s", rdmach_last_error());
        if (st == RDMACH_ERR_TIMEOUT && getenv("SLURM_JOB_ID"))
            st = rch_base_err(st, "%s (Slurm's step for the children may be waiting for CPUs the job's first step "
                              "holds: start the job with SLURM_OVERLAP=1 in srun's environment, which the spawn's "
                              "srun inherits)", why);
        return st;
    }
    rdmach_status_t st = need_pmi1("spawning processes");
    return st == RDMACH_OK ? rch_pmi_client_spawn(&pmi1, count, cmds, preput_key, preput_val, errcodes) : st;
}

rdmach_status_t rch_boot_job_get(const char *key, char *value, size_t len)
{
#if RDMACH_HAVE_PMIX
    if (is_pmix())
        return rch_boot_pmix_job_get(key, value, len);
#endif
    if (is_pmi2())
        return rch_pmi2_client_get(&pmi2, key, value, len);
    rdmach_status_t st = need_pmi1("a key of the job");
    return st == RDMACH_OK ? rch_pmi_client_get(&pmi1, key, value, len) : st;
}

void rch_boot_psets(const struct rch_boot_pset **sets, int *n)
{
    *sets = NULL;
    *n = 0;
#if RDMACH_HAVE_PMIX
    if (is_pmix() && rch_boot_is_up())
        rch_boot_pmix_psets(sets, n);
#endif
}

int rch_boot_spawned(void)
{
    if (is_pmi2())
        return pmi2.spawned;
    const char *s = getenv("PMI_SPAWNED");
    return s && strcmp(s, "1") == 0 && (strcmp(rch_boot_pmi_name(), "pmi1") == 0 || is_pmix());
}

int rch_boot_universe_size(void)
{
    int n;
    char v[32];
    if (is_pmi2()) {
        /* Slurm's job attribute (its step's task count) */
        if (rch_pmi2_client_job_attr(&pmi2, "universeSize", v, sizeof(v)) != RDMACH_OK)
            return -1;
        n = atoi(v);
        return n > 0 ? n : -1;
    }
    if (strcmp(rch_boot_pmi_name(), "pmi1") != 0 || rch_pmi_client_universe(&pmi1, &n) != RDMACH_OK)
        return -1;
    return n;
}

/* ---- PMI-2 ---- */

static rdmach_status_t pmi2_init(int *rank, int *size, int *appnum, char *jobid, size_t len)
{
    int fd, singleton;
    rdmach_status_t st = rch_pmi_client_env(&fd, rank, size, &singleton);
    if (st == RDMACH_OK && singleton)
        st = rch_base_err(RDMACH_ERR_BOOT, "RDMACH_PMI=pmi2 but PMI_FD is not set: no PMI-2 launcher started this process");
    if (st == RDMACH_OK)
        st = rch_pmi2_client_init(&pmi2, fd, *rank, *size, getenv("PMI_JOBID"));
    *appnum = pmi2.appnum;
    return st == RDMACH_OK ? copy_jobid(pmi2.jobid, jobid, len) : st;
}

static rdmach_status_t pmi2_put(const char *key, const char *value)
{
    char k[RCH_PMI2_KEY_MAX];
    rdmach_status_t st = rank_key(k, sizeof(k), pmi2.rank, key);
    return st == RDMACH_OK ? rch_pmi2_client_put(&pmi2, k, value) : st;
}

static rdmach_status_t pmi2_get(int rank, const char *key, char *value, size_t len)
{
    char k[RCH_PMI2_KEY_MAX];
    rdmach_status_t st = rank_key(k, sizeof(k), rank, key);
    return st == RDMACH_OK ? rch_pmi2_client_get(&pmi2, k, value, len) : st;
}

static rdmach_status_t pmi2_mapping(const char *name, char *value, size_t len)
{
    return rch_pmi2_client_job_attr(&pmi2, name, value, len);
}

static rdmach_status_t pmi2_node_ids(int *node_of, int size)
{
    return node_ids_from(pmi2_mapping, node_of, size);
}

static rdmach_status_t pmi2_fence(void)
{
    return rch_pmi2_client_fence(&pmi2);
}

/* PMI-2's abort carries no exit code: the caller's _exit(code) does. */
static rdmach_status_t pmi2_abort(int code, const char *why)
{
    (void)code;
    return rch_pmi2_client_abort(&pmi2, why);
}

static rdmach_status_t pmi2_finalize(void)
{
    return rch_pmi2_client_finalize(&pmi2);
}

static const struct rch_boot_pmi_ops pmi2_ops = {
    .name = "pmi2",
    .init = pmi2_init,
    .node_ids = pmi2_node_ids,
    .put = pmi2_put,
    .get = pmi2_get,
    .fence = pmi2_fence,
    .abort = pmi2_abort,
    .finalize = pmi2_finalize,
};

/* ---- the choice ---- */

#if RDMACH_HAVE_PMIX
int rch_boot_pmix_built(void)
{
    return 1;
}
#else
int rch_boot_pmix_built(void)
{
    return 0;
}
#endif

static rdmach_status_t use_pmix(const struct rch_boot_pmi_ops **ops, const char *why_env)
{
#if RDMACH_HAVE_PMIX
    if (rch_boot_pmix_dl_open() != RDMACH_OK)
        return rch_base_err(RDMACH_ERR_BOOT, "%s, but %s", why_env, rdmach_last_error());
    *ops = &rch_boot_pmix_ops;
    return RDMACH_OK;
#else
    (void)ops;
    return rch_base_err(RDMACH_ERR_BOOT, "%s, but this rdmach was built without PMIx "
                        "(install libpmix-dev and rebuild), or start the job with srun --mpi=pmi2, "
                        "mpiexec.mpich or rdmachrun", why_env);
#endif
}

rdmach_status_t rch_boot_pmi_choose(int forced, const struct rch_boot_pmi_ops **ops, char *why, size_t why_len)
{
    int pmix = getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL;
    int fd = getenv("PMI_FD") != NULL, jobid = getenv("PMI_JOBID") != NULL;
    *ops = NULL;
    switch (forced) {
    case RCH_PMI_USE_PMIX:
        snprintf(why, why_len, "RDMACH_PMI=pmix");
        return use_pmix(ops, "RDMACH_PMI=pmix");
    case RCH_PMI_USE_PMI2:
        *ops = &pmi2_ops;
        snprintf(why, why_len, "RDMACH_PMI=pmi2");
        return RDMACH_OK;
    case RCH_PMI_USE_PMI1:
        *ops = &pmi1_ops;
        snprintf(why, why_len, "RDMACH_PMI=pmi1");
        return RDMACH_OK;
    case RCH_PMI_USE_SINGLETON:
        snprintf(why, why_len, "RDMACH_PMI=singleton");
        return RDMACH_OK;
    default:
        break;
    }
    if (pmix) {
        snprintf(why, why_len, "PMIX_NAMESPACE and PMIX_RANK are set: a PMIx server launched this process");
        return use_pmix(ops, "PMIX_NAMESPACE and PMIX_RANK are set (a PMIx launcher)");
    }
    if (fd && jobid) {
        *ops = &pmi2_ops;
        snprintf(why, why_len, "PMI_FD and PMI_JOBID are set: a PMI-2 server (srun --mpi=pmi2)");
    } else if (fd) {
        *ops = &pmi1_ops;
        snprintf(why, why_len, "PMI_FD is set without PMI_JOBID: a PMI-1 server (mpiexec.mpich, rdmachrun)");
    } else {
        snprintf(why, why_len, "no PMIX_NAMESPACE nor PMI_FD in the environment: no launcher");
    }
    return RDMACH_OK;
}
