/* Topology and binding (hwloc). The machine has at least one core. */
#include <criterion/criterion.h>
#include <sched.h>
#include "base/base.h"
#include "base/tunables.h"
#include "boot/topo.h"

Test(topo, summary_counts_cores_and_numa_nodes)
{
    struct rch_topo_summary t;
    cr_assert_eq(rch_boot_topo_summary(&t), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_geq(t.cores, 1);
    cr_assert_geq(t.pus, t.cores);
    cr_assert_geq(t.numa_nodes, 1);
    cr_assert_geq(t.cores_avail, 1);
    cr_assert_leq(t.cores_avail, t.cores);
}

Test(topo, pick_is_round_robin_and_wraps)
{
    cr_assert_eq(rch_boot_topo_pick(0, 2), 0);
    cr_assert_eq(rch_boot_topo_pick(1, 2), 1);
    cr_assert_eq(rch_boot_topo_pick(2, 2), 0);
    cr_assert_eq(rch_boot_topo_pick(7, 3), 1);
    cr_assert_eq(rch_boot_topo_pick(5, 0), -1);
}

/* Each test runs in its own process (Criterion forks), so binding here does
 * not leak into other tests. */
Test(topo, bind_core_wraps_when_ranks_outnumber_cores)
{
    struct rch_topo_summary t;
    cr_assert_eq(rch_boot_topo_summary(&t), RDMACH_OK);
    int core, numa;
    int lr = t.cores_avail + 1; /* more local ranks than cores */
    cr_assert_eq(rch_boot_topo_bind(RCH_BIND_CORE, lr, &core, &numa), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(core, lr % t.cores_avail);
    cr_assert_geq(numa, 0);
    cpu_set_t set;
    cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
    cr_assert_eq(CPU_COUNT(&set), t.pus / t.cores, "bound to %d CPUs", CPU_COUNT(&set));
    /* after binding, only that core is available */
    cr_assert_eq(rch_boot_topo_summary(&t), RDMACH_OK);
    cr_assert_eq(t.cores_avail, 1);
}

Test(topo, bind_numa_and_none)
{
    int core, numa;
    cr_assert_eq(rch_boot_topo_bind(RCH_BIND_NONE, 3, &core, &numa), RDMACH_OK);
    cr_assert_eq(core, -1);
    cr_assert_eq(numa, -1);
    cr_assert_eq(rch_boot_topo_bind(RCH_BIND_NUMA, 3, &core, &numa), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(core, -1);
    cr_assert_geq(numa, 0);
}
