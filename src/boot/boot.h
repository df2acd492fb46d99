/*
 * src/boot: how a process learns who it is and finds its peers.
 *
 * The process manager is spoken to through one of the interfaces in
 * pmi_select.h, chosen from the environment the launcher set (RDMACH_PMI
 * forces one): PMI-2 over PMI_FD (srun --mpi=pmi2), PMI-1 over PMI_FD (MPICH's
 * Hydra, rdmachrun), PMIx when built with it (Open MPI's mpirun, srun
 * --mpi=pmix). With none of them the process is a singleton (rank 0 of 1).
 *
 * After rch_boot_init() the layout below is fixed for the job: node ids come
 * from PMI_process_mapping when the launcher gives it, otherwise from a host
 * identity exchanged through the key-value store; RDMACH_VNODE_SIZE overrides
 * both with pretend nodes of k consecutive ranks.
 */
#ifndef RCH_BOOT_H
#define RCH_BOOT_H

#include "rdmach.h"

struct rch_boot_info {
    int rank, size;
    int node;              /* this rank's node id, 0 .. num_nodes-1 */
    int num_nodes;
    int local_rank;        /* index among the ranks of my node */
    int local_size;
    int host_size;         /* ranks on this rank's real host: local_size, unless RDMACH_VNODE_SIZE
                              splits the host into pretend nodes (they still share its cores) */
    int *node_of;          /* [size]: node id of every rank */
    int *local_ranks;      /* [local_size]: world ranks on my node, ascending */
    int singleton;         /* no process manager */
    int appnum;            /* the launcher's application number (MPMD: 0, 1, ...), -1 if none */
    int bound_core;        /* hwloc logical index (0..cores-1) of the core this rank is
                              bound to, -1 if not bound to one core (RDMACH_BIND) */
    int bound_numa;        /* logical index of the NUMA node it runs in, -1 if unknown */
    char hostname[256];
    /* The job's id: the PMI kvsname (rdmachrun: "run<pid>x<hex>", Hydra:
     * "kvs_<pid>_0_..._<host>"; a singleton: "single<pid>"), with any character
     * outside [A-Za-z0-9_-] replaced by '_'.
     * Shared-memory segments are named "/rdmach-<kvsname>-..." so rdmachrun
     * can remove what a killed job leaves in /dev/shm. */
    char kvsname[256];
};

/* The job's layout; valid between rch_boot_init and rch_boot_finalize. */
extern struct rch_boot_info rch_boot;

rdmach_status_t rch_boot_init(void);       /* tunables must be loaded first */

/* This machine's caches (machine.c; sizes in bytes, 0 if unknown). */
struct rch_boot_machine {
    size_t l2, llc;       /* the L2 and the last-level cache of cpu 0 */
    int llc_level;
    int cpus;             /* online */
};
void rch_boot_machine_caches(struct rch_boot_machine *m);
/* Tunables derived from the machine (rch_base_tun_machine), for a node of
 * local_size ranks; called by rch_boot_init once the layout is known. */
rdmach_status_t rch_boot_machine_tunables(int local_size);
rdmach_status_t rch_boot_finalize(void);
int rch_boot_is_up(void);                  /* between init and finalize */
void rch_boot_abort(int code, const char *msg) __attribute__((noreturn));
/* The same for a fatal error that a peer's failure caused: the message at
 * once, the abort after a grace in which the launcher may end the job with
 * the failed rank's own code (boot.c). */
void rch_boot_abort_after_peer(int code, const char *msg) __attribute__((noreturn));
/* Abort the n job ranks listed (this process among them) where the launcher
 * can end only those (rdmachrun); anywhere else, or if the list does not fit
 * one PMI line, the whole job (rch_boot_abort). */
void rch_boot_abort_ranks(int code, const char *msg, const int *ranks, int n) __attribute__((noreturn));
/* The process-manager interface in use: "pmi1", "pmi2", "pmix", "singleton". */
const char *rch_boot_pmi_name(void);

/* Key-value store, keys per rank (see rdmach.h). A key is 1..RDMACH_KVS_KEY_MAX-1
 * characters of [A-Za-z0-9_.:-]; a value at most RDMACH_KVS_VAL_MAX-1 printable
 * ASCII characters without spaces (hex-encode binary data). The PMI-1/PMI-2 key of
 * (rank, key) is "r<rank>.<key>", within Hydra's keylen_max of 64.
 * rch_boot_get of a key that was not put (or not yet fenced): RDMACH_ERR_NOT_FOUND. */
/* A key put twice: the last value wins under PMI-1 and PMIx; under PMI-2
 * which one stays is the server's (Hydra keeps the first): put a key once.
 * Under PMIx a put may be seen as soon as the putter has fenced (the local
 * server holds it), before the reader's own fence. */
rdmach_status_t rch_boot_put(const char *key, const char *value);
rdmach_status_t rch_boot_get(int rank, const char *key, char *value, size_t len);
rdmach_status_t rch_boot_fence(void);

/*
 * Dynamic processes (MPI_Comm_spawn; PMI-1: Hydra, rdmachrun; PMIx:
 * PMIx_Spawn, the preput key in the apps' environment as RCH_<key>).
 * rch_boot_spawn starts the commands as one new job whose processes find
 * preput_key = preput_val in their KVS (rch_boot_job_get); errcodes gets
 * one code per process (0: started), in command order. Errors: UNSUPPORTED
 * under another interface (PMI-2, singleton), BOOT with the launcher's reason.
 * rch_boot_spawned: this process was started by a spawn (PMI_SPAWNED=1).
 * rch_boot_universe_size: the launcher's universe size, or -1 if unknown.
 */
struct rch_boot_spawn {
    const char *exec;
    char *const *argv;            /* NULL-terminated, without argv[0]; NULL: none */
    int nprocs;
    int ninfo;
    const char *const *info_key, *const *info_val;
};
/* The launcher's word to a spawning root that the job it spawned ended
 * (rdmachrun): it connects to the port the spawn preput, if a socket of the
 * root's process listens there, and sends, in the shape of a port's hello
 * (src/mpi/dyn_port.c), {RCH_BOOT_SPAWN_EXITED, the job's exit code, the
 * port's key} (uint32, uint32, uint64, host order), so the spawn fails at
 * once instead of after the timeout. */
#define RCH_BOOT_SPAWN_EXITED 0x52445958u   /* "RDYX" */

rdmach_status_t rch_boot_spawn(int count, const struct rch_boot_spawn *cmds, const char *preput_key,
                               const char *preput_val, int *errcodes);
rdmach_status_t rch_boot_job_get(const char *key, char *value, size_t len);
int rch_boot_spawned(void);
int rch_boot_universe_size(void);

/*
 * Process sets the launcher defines, for MPI's sessions besides MPI's own
 * (src/mpi/session.c). Under PMIx: those a server answers
 * PMIX_QUERY_PSET_NAMES for, each with its PMIX_QUERY_PSET_MEMBERSHIP, or
 * else the PMIX_PSET_NAMES of every rank (boot/pmix_pset.c). Read once, on
 * the first call, and the same afterwards. A set with a member outside this
 * job is left out. *n = 0: none (PMI-1, PMI-2, a singleton, a server that
 * defines none: Debian 12's Slurm 22.05 and Open MPI 4.1.4 do not).
 */
struct rch_boot_pset {
    char *name;
    int size;
    int *ranks;       /* [size] world ranks, in the server's order */
};
void rch_boot_psets(const struct rch_boot_pset **sets, int *n);

/* Binary values (channel addresses) as hex text: 2*len+1 bytes of out. */
void rch_boot_hex_encode(const void *bin, size_t len, char *out);
rdmach_status_t rch_boot_hex_decode(const char *text, void *bin, size_t len);

#endif
