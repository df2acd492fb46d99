/*
 * The process-manager interfaces the bootstrap can speak, one ops table each
 * (pmi_select.c), and the choice among them.
 *
 * Choice (RDMACH_PMI, default auto), from what the launcher put in the
 * environment:
 *   PMIX_NAMESPACE + PMIX_RANK  -> pmix  (Open MPI's mpirun, srun --mpi=pmix)
 *   PMI_FD + PMI_JOBID          -> pmi2  (srun --mpi=pmi2 sets PMI_JOBID; its server also speaks PMI-1)
 *   PMI_FD                      -> pmi1  (Hydra, rdmachrun)
 *   none of them                -> singleton
 * A forced choice whose environment is missing is an error naming it, and so
 * is a PMIx launcher when this build has no PMIx (rather than running every
 * rank as a singleton of its own).
 */
#ifndef RCH_BOOT_PMI_SELECT_H
#define RCH_BOOT_PMI_SELECT_H

#include <stddef.h>
#include "rdmach.h"
#include "rdmach_config.h"

/* Keys are the caller's (1..63 printable bytes without '=', ';', space);
 * each rank has its own key space: get(rank, key) reads what `rank` put. */
struct rch_boot_pmi_ops {
    const char *name;                  /* "pmi1", "pmi2", "pmix" */
    /* Connect; the job's rank, size, application number (MPMD: 0, 1, ...;
     * -1 if the launcher has none) and id (jobid_len bytes with the NUL). */
    rdmach_status_t (*init)(int *rank, int *size, int *appnum, char *jobid, size_t jobid_len);
    /* The node of every rank as the launcher knows it (ids in any order:
     * the caller renumbers); RDMACH_ERR_NOT_FOUND if it does not say. */
    rdmach_status_t (*node_ids)(int *node_of, int size);
    rdmach_status_t (*put)(const char *key, const char *value);
    rdmach_status_t (*get)(int rank, const char *key, char *value, size_t len);
    rdmach_status_t (*fence)(void);        /* makes every put visible to every get */
    /* Ends the job; may return before it has. `why`: NULL or a token. */
    rdmach_status_t (*abort)(int code, const char *why);
    /* Ends only the n job ranks listed (rdmachrun; NULL where the interface
     * has no such request). `ranks` is their list as a PMI token ("1,3"). */
    rdmach_status_t (*abort_ranks)(int code, const char *why, const char *ranks);
    rdmach_status_t (*finalize)(void);
};

/* The interface to use (NULL: a singleton) and one sentence on why, for the
 * log and rdmach-info. An error names the variable that is missing or wrong. */
rdmach_status_t rch_boot_pmi_choose(int forced, const struct rch_boot_pmi_ops **ops, char *why, size_t why_len);

/* Load libpmix (pmix_dl.c; base/dl.h) before PMIx is used: UNSUPPORTED
 * with the reason if it cannot be. */
rdmach_status_t rch_boot_pmix_dl_open(void);
/* Whether this build has the PMIx client (libpmix found by CMake). */
int rch_boot_pmix_built(void);

#if RDMACH_HAVE_PMIX
extern const struct rch_boot_pmi_ops rch_boot_pmix_ops;   /* pmix.c */
/* MPI_Comm_spawn under PMIx (pmix.c; boot.h's rch_boot_spawn, job_get). */
struct rch_boot_spawn;
rdmach_status_t rch_boot_pmix_spawn(int count, const struct rch_boot_spawn *cmds, const char *key,
                                    const char *val, int *errcodes);
rdmach_status_t rch_boot_pmix_job_get(const char *key, char *value, size_t len);
/* The server's process sets (pmix_pset.c; boot.h's rch_boot_psets), read
 * on the first call; freed at finalize. */
struct rch_boot_pset;
void rch_boot_pmix_psets(const struct rch_boot_pset **sets, int *n);
void rch_boot_pmix_psets_free(void);
const char *rch_boot_pmix_nspace(void);     /* my namespace (pmix.c) */
#endif

#endif
