/*
 * Topology from hwloc: how many cores and NUMA nodes this process may use,
 * and binding a rank to one of them round-robin by its local rank.
 */
#ifndef RCH_BOOT_TOPO_H
#define RCH_BOOT_TOPO_H

#include "rdmach.h"

struct rch_topo_summary {
    int cores;        /* cores of the machine (allowed by the cgroup) */
    int pus;          /* hardware threads */
    int numa_nodes;
    int cores_avail;  /* cores inside this process's current CPU binding */
};

rdmach_status_t rch_boot_topo_summary(struct rch_topo_summary *t);

/* Which of n objects local rank `local_rank` gets: round-robin, wraps when
 * there are more ranks than objects. */
static inline int rch_boot_topo_pick(int local_rank, int n)
{
    return n > 0 ? local_rank % n : -1;
}

/* Bind the calling process according to mode (RCH_BIND_NONE|CORE|NUMA).
 * The candidates are the cores (or NUMA nodes) inside the process's binding
 * at the time of the call, so a launcher's or taskset's restriction is
 * honoured. *bound_core is the hwloc logical index of the core (-1 unless
 * mode is CORE), *bound_numa that of the NUMA node (-1 if mode is NONE). */
rdmach_status_t rch_boot_topo_bind(int mode, int local_rank, int *bound_core, int *bound_numa);

/* Where this process runs, at n levels of the machine named by hwloc type
 * names ("Machine", "Package", "NUMANode", "L3Cache", "Core", "PU", ...,
 * case-insensitive): index[i] is the hwloc logical index of the object of
 * type names[i] whose CPU set contains the whole of this process's binding,
 * -1 if the name is no hwloc type or no single such object contains it
 * (an unbound process is on no core). Loads the topology once per call. */
rdmach_status_t rch_boot_topo_locate(int n, const char *const names[], int index[]);

#endif
