/*
 * src/boot: how a process learns who it is and finds its peers.
 *
 * One bootstrap path: a PMI-1 wire-protocol client. The process manager is
 * MPICH's Hydra (mpiexec.mpich), Slurm's PMI-1 server, or rdmach's own
 * rdmachrun — all speak the same protocol over the socket in PMI_FD. With no
 * PMI_FD in the environment the process is a singleton (rank 0 of 1).
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
    int *node_of;          /* [size]: node id of every rank */
    int *local_ranks;      /* [local_size]: world ranks on my node, ascending */
    int singleton;         /* no process manager */
    int bound_core;        /* OS index of the core this rank is bound to, -1 if none */
    char hostname[256];
};

/* The job's layout; valid between rch_boot_init and rch_boot_finalize. */
extern struct rch_boot_info rch_boot;

rdmach_status_t rch_boot_init(void);       /* tunables must be loaded first */
rdmach_status_t rch_boot_finalize(void);
void rch_boot_abort(int code, const char *msg) __attribute__((noreturn));

/* Key-value store, keys per rank (see rdmach.h). */
rdmach_status_t rch_boot_put(const char *key, const char *value);
rdmach_status_t rch_boot_get(int rank, const char *key, char *value, size_t len);
rdmach_status_t rch_boot_fence(void);

/* Binary values (channel addresses) as hex text: 2*len+1 bytes of out. */
void rch_boot_hex_encode(const void *bin, size_t len, char *out);
rdmach_status_t rch_boot_hex_decode(const char *text, void *bin, size_t len);

#endif
