/*
 * PMI-2 client over the stream socket in PMI_FD (pmi2_wire.h has the
 * dialect): Slurm's `srun --mpi=pmi2`, and Hydra, which answers PMI-2 when
 * the client's init asks for pmi_version=2. Every call is a request and its
 * reply, validated against the command it answers; a dead server or a reply
 * that does not parse is an error naming PMI-2 and quoting the reply.
 */
#ifndef RCH_BOOT_PMI2_CLIENT_H
#define RCH_BOOT_PMI2_CLIENT_H

#include "boot/pmi2_wire.h"
#include "boot/pmi_wire.h"

struct rch_pmi2_client {
    int fd;
    int rank, size, appnum;
    int spawned;                  /* fullinit-response named a spawner-jobid */
    int late_spawns;              /* spawns timed out whose answer may still come: skipped */
    char jobid[RCH_PMI_KVSNAME_MAX];
    struct rch_pmi2_reader rd;
};

/* The PMI-1 init line asking for version 2, fullinit (checking rank and
 * size against the environment's), job-getid. `env_jobid`: PMI_JOBID as
 * the launcher set it, or NULL. Slurm requires it back in fullinit
 * (pmijobid) and a `threaded` field, as MPICH's client sends them. */
rdmach_status_t rch_pmi2_client_init(struct rch_pmi2_client *c, int fd, int rank, int size, const char *env_jobid);
/* A job (info-getjobattr) or node (info-getnodeattr, not waiting) attribute;
 * RDMACH_ERR_NOT_FOUND if the server has none of that name. */
rdmach_status_t rch_pmi2_client_job_attr(struct rch_pmi2_client *c, const char *key, char *value, size_t len);
rdmach_status_t rch_pmi2_client_node_attr(struct rch_pmi2_client *c, const char *key, char *value, size_t len);
/* A value must not contain ';' (Hydra would cut it there). */
rdmach_status_t rch_pmi2_client_put(struct rch_pmi2_client *c, const char *key, const char *value);
rdmach_status_t rch_pmi2_client_get(struct rch_pmi2_client *c, const char *key, char *value, size_t len);
rdmach_status_t rch_pmi2_client_fence(struct rch_pmi2_client *c);
/* The spawn of count commands as one job (boot.h's rch_boot_spawn; the
 * preput pair in the new job's KVS); errcodes[total] (0 where the server
 * gives none, as MPICH reads it). The reply comes once the children are
 * started (Slurm: its srun for them has launched every task), waited for
 * at most timeout_ms. */
struct rch_boot_spawn;
rdmach_status_t rch_pmi2_client_spawn(struct rch_pmi2_client *c, int count, const struct rch_boot_spawn *cmds,
                                      const char *preput_key, const char *preput_val, int *errcodes,
                                      int timeout_ms);
/* abort;isworld=TRUE (MPICH's ISWORLD_KEY, which Slurm reads to kill the
 * step): the server sends no reply. */
rdmach_status_t rch_pmi2_client_abort(struct rch_pmi2_client *c, const char *why);
/* finalize / finalize-response, then closes the fd. */
rdmach_status_t rch_pmi2_client_finalize(struct rch_pmi2_client *c);

#endif
