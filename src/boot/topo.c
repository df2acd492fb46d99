/* Topology and binding with hwloc (see topo.h). */
#include <errno.h>
#include <hwloc.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/topo.h"

/* Cores if the topology has them, else PUs (some virtual machines expose
 * only hardware threads). */
static hwloc_obj_type_t core_type(hwloc_topology_t t)
{
    return hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

static rdmach_status_t load(hwloc_topology_t *t, hwloc_bitmap_t *cur)
{
    if (hwloc_topology_init(t) < 0)
        return rch_base_errno(errno, "hwloc_topology_init");
    if (hwloc_topology_load(*t) < 0) {
        rdmach_status_t st = rch_base_errno(errno, "hwloc_topology_load");
        hwloc_topology_destroy(*t);
        return st;
    }
    *cur = hwloc_bitmap_alloc();
    if (*cur == NULL) {
        hwloc_topology_destroy(*t);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "hwloc_bitmap_alloc");
    }
    /* the binding we were started with (the whole machine unless a launcher
     * or taskset restricted it) */
    if (hwloc_get_cpubind(*t, *cur, HWLOC_CPUBIND_PROCESS) < 0)
        hwloc_bitmap_copy(*cur, hwloc_topology_get_allowed_cpuset(*t));
    return RDMACH_OK;
}

/* The i-th object of `type` whose cpuset intersects `set`, and how many there are. */
static hwloc_obj_t nth_inside(hwloc_topology_t t, hwloc_obj_type_t type, hwloc_const_bitmap_t set,
                              int i, int *count)
{
    hwloc_obj_t found = NULL, o = NULL;
    int n = 0;
    while ((o = hwloc_get_next_obj_by_type(t, type, o)) != NULL) {
        if (o->cpuset == NULL || !hwloc_bitmap_intersects(o->cpuset, set))
            continue;
        if (n == i)
            found = o;
        n++;
    }
    *count = n;
    return found;
}

rdmach_status_t rch_boot_topo_summary(struct rch_topo_summary *s)
{
    hwloc_topology_t t;
    hwloc_bitmap_t cur;
    rdmach_status_t st = load(&t, &cur);
    if (st != RDMACH_OK)
        return st;
    s->cores = hwloc_get_nbobjs_by_type(t, core_type(t));
    s->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    s->numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    nth_inside(t, core_type(t), cur, -1, &s->cores_avail);
    hwloc_bitmap_free(cur);
    hwloc_topology_destroy(t);
    return RDMACH_OK;
}

rdmach_status_t rch_boot_topo_bind(int mode, int local_rank, int *bound_core, int *bound_numa)
{
    hwloc_topology_t t;
    hwloc_bitmap_t cur, set;
    hwloc_obj_type_t type;
    rdmach_status_t st;
    int n;

    *bound_core = -1;
    *bound_numa = -1;
    if (mode == RCH_BIND_NONE)
        return RDMACH_OK;
    if ((st = load(&t, &cur)) != RDMACH_OK)
        return st;
    type = mode == RCH_BIND_NUMA ? HWLOC_OBJ_NUMANODE : core_type(t);
    nth_inside(t, type, cur, -1, &n);
    hwloc_obj_t obj = nth_inside(t, type, cur, rch_boot_topo_pick(local_rank, n), &n);
    if (obj == NULL) {
        st = rch_base_err(RDMACH_ERR_NOT_FOUND, "bind: no %s inside this process's CPU set",
                          hwloc_obj_type_string(type));
        goto out_free;
    }
    set = hwloc_bitmap_dup(obj->cpuset);
    if (set == NULL) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "hwloc_bitmap_dup");
        goto out_free;
    }
    hwloc_bitmap_and(set, set, cur);
    if (hwloc_set_cpubind(t, set, HWLOC_CPUBIND_PROCESS) < 0) {
        st = rch_base_errno(errno, "bind local rank %d to %s L#%u", local_rank,
                            hwloc_obj_type_string(type), obj->logical_index);
        goto out_free_set;
    }
    if (mode == RCH_BIND_NUMA) {
        *bound_numa = (int)obj->logical_index;
    } else {
        *bound_core = (int)obj->logical_index;
        hwloc_obj_t numa = NULL;
        while ((numa = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, numa)) != NULL)
            if (numa->cpuset && hwloc_bitmap_isincluded(set, numa->cpuset))
                *bound_numa = (int)numa->logical_index;
    }
    RCH_DEBUG("topo", "local rank %d bound to %s L#%u of %d", local_rank, hwloc_obj_type_string(type),
              obj->logical_index, n);
    st = RDMACH_OK;
out_free_set:
    hwloc_bitmap_free(set);
out_free:
    hwloc_bitmap_free(cur);
    hwloc_topology_destroy(t);
    return st;
}

rdmach_status_t rch_boot_topo_locate(int n, const char *const names[], int index[])
{
    hwloc_topology_t t;
    hwloc_bitmap_t cur;
    rdmach_status_t st = load(&t, &cur);
    if (st != RDMACH_OK)
        return st;
    for (int i = 0; i < n; i++) {
        hwloc_obj_type_t type;
        index[i] = -1;
        if (hwloc_type_sscanf(names[i], &type, NULL, 0) < 0)
            continue;
        hwloc_obj_t o = NULL;
        while ((o = hwloc_get_next_obj_by_type(t, type, o)) != NULL)
            if (o->cpuset && hwloc_bitmap_isincluded(cur, o->cpuset)) {
                index[i] = (int)o->logical_index;
                break;
            }
    }
    hwloc_bitmap_free(cur);
    hwloc_topology_destroy(t);
    return RDMACH_OK;
}
