/*
 * rdmach-info: what this rdmach was built with and what it finds here —
 * version, build options, RDMA devices, libfabric providers, topology, the
 * barrier backends and which apply, and every tunable with its current value (from RDMACH_* in the environment),
 * its default, what it accepts and its help. A malformed RDMACH_* value is
 * reported and the exit status is 1, as rdmach_init would fail.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/tunables.h"
#include "boot/topo.h"
#include "coll/barrier.h"
#if RDMACH_HAVE_VERBS
#include <infiniband/verbs.h>
#endif
#if RDMACH_HAVE_OFI
#include <rdma/fabric.h>
#endif

static void print_build(void)
{
    printf("rdmach %s\n\n", RDMACH_VERSION_STRING);
    printf("Build options:\n");
    printf("  build type        %s\n", RDMACH_BUILD_TYPE);
    printf("  install prefix    %s\n", RDMACH_INSTALL_PREFIX);
    printf("  verbs channel     %s\n", RDMACH_HAVE_VERBS ? "yes (libibverbs, librdmacm)" : "no");
    printf("  libfabric channel %s\n", RDMACH_HAVE_OFI ? "yes" : "no");
#if defined(__SANITIZE_ADDRESS__)
    printf("  sanitizers        address, undefined\n");
#else
    printf("  sanitizers        none\n");
#endif
    printf("  compiler          gcc %s\n", __VERSION__);
}

static void print_verbs(void)
{
    printf("\nRDMA devices (verbs):\n");
#if RDMACH_HAVE_VERBS
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (list == NULL) {
        printf("  none found (ibv_get_device_list: %s)\n", strerror(errno));
        return;
    }
    if (n == 0)
        printf("  none found\n");
    for (int i = 0; i < n; i++)
        printf("  %-16s %s, guid %016llx\n", ibv_get_device_name(list[i]),
               ibv_node_type_str(list[i]->node_type),
               (unsigned long long)be64toh(ibv_get_device_guid(list[i])));
    ibv_free_device_list(list);
#else
    printf("  not built with verbs\n");
#endif
}

static void print_ofi(void)
{
    printf("\nlibfabric providers:\n");
#if RDMACH_HAVE_OFI
    struct fi_info *info = NULL;
    int rc = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, NULL, &info);
    printf("  libfabric %u.%u\n", FI_MAJOR(fi_version()), FI_MINOR(fi_version()));
    if (rc != 0 || info == NULL) {
        printf("  none found (%s)\n", rc ? fi_strerror(-rc) : "no providers");
        return;
    }
    /* one line per provider and endpoint type, in the order fi_getinfo ranks them */
    for (struct fi_info *i = info; i; i = i->next) {
        int seen = 0;
        for (struct fi_info *j = info; j != i; j = j->next)
            if (strcmp(j->fabric_attr->prov_name, i->fabric_attr->prov_name) == 0 &&
                j->ep_attr->type == i->ep_attr->type)
                seen = 1;
        if (seen)
            continue;
        const char *type = i->ep_attr->type == FI_EP_MSG ? "FI_EP_MSG"
                         : i->ep_attr->type == FI_EP_RDM ? "FI_EP_RDM"
                         : i->ep_attr->type == FI_EP_DGRAM ? "FI_EP_DGRAM" : "other";
        printf("  %-20s %-11s %s%s\n", i->fabric_attr->prov_name, type,
               (i->caps & FI_RMA) ? "rma " : "", (i->caps & FI_MSG) ? "msg" : "");
    }
    fi_freeinfo(info);
#else
    printf("  not built with libfabric\n");
#endif
}

static void print_topology(void)
{
    struct rch_topo_summary t;
    printf("\nTopology (hwloc):\n");
    rdmach_status_t st = rch_boot_topo_summary(&t);
    if (st != RDMACH_OK) {
        printf("  unavailable: %s\n", rdmach_last_error());
        return;
    }
    printf("  cores             %d\n", t.cores);
    printf("  hardware threads  %d\n", t.pus);
    printf("  NUMA nodes        %d\n", t.numa_nodes);
    printf("  cores available   %d (in this process's CPU binding)\n", t.cores_avail);
}

/* The barrier backends, and which apply to a few communicator shapes
 * (added by the barrier framework). */
static void print_barriers(void)
{
    static const struct { const char *what; int p, per_node; } shapes[] = {
        { "1 node x 4 ranks", 4, 4 }, { "4 nodes x 2 ranks", 8, 2 }, { "4 nodes x 1 rank", 4, 1 },
    };
    int world_of[8], node_of[3][8];
    struct rch_coll_comm views[3];
    char why[256], value[64];
    rch_base_tun_format(rch_base_tun_find("BARRIER"), value, sizeof(value));
    printf("\nBarrier backends (RDMACH_BARRIER=%s; the highest priority that applies is used):\n", value);
    for (int i = 0; i < 8; i++)
        world_of[i] = i;
    for (int s = 0; s < 3; s++) {
        for (int i = 0; i < shapes[s].p; i++)
            node_of[s][i] = i / shapes[s].per_node;
        views[s] = (struct rch_coll_comm){ .rank = 0, .size = shapes[s].p, .world_of = world_of,
                                           .nnodes = shapes[s].p / shapes[s].per_node,
                                           .max_ppn = shapes[s].per_node, .node_of = node_of[s] };
    }
    const struct rch_coll_barrier_ops *const *b = rch_coll_barrier_backends();
    for (int i = 0; b[i]; i++) {
        printf("  %-14s priority %2d  %s\n", b[i]->name, b[i]->priority, b[i]->summary);
        for (int s = 0; s < 3; s++) {
            int yes = b[i]->applies(&views[s], why, sizeof(why));
            printf("      %-18s %s: %s\n", shapes[s].what, yes ? "applies" : "no", why);
        }
    }
    for (int s = 0; s < 3; s++)
        printf("  chosen for %-18s %s\n", shapes[s].what,
               rch_coll_barrier_choose(&views[s], why, sizeof(why))->name);
}

static void print_tunables(void)
{
    printf("\nTunables (environment variable = current value  [default; accepted]):\n");
    for (size_t i = 0; i < rch_base_tun_count(); i++) {
        const struct rch_tun_row *row = rch_base_tun_row(i);
        char value[128], accepts[96];
        rch_base_tun_format(row, value, sizeof(value));
        switch (row->type) {
        case RCH_TUN_ENUM:
        case RCH_TUN_BOOL:
            snprintf(accepts, sizeof(accepts), "%s", row->choices);
            break;
        case RCH_TUN_INT:
            snprintf(accepts, sizeof(accepts), "%lld..%lld", row->min, row->max);
            break;
        case RCH_TUN_SIZE:
            snprintf(accepts, sizeof(accepts), "%lld..%lld bytes, k/m/g suffix", row->min, row->max);
            break;
        case RCH_TUN_STRING:
            snprintf(accepts, sizeof(accepts), "text");
            break;
        }
        char var[96];
        snprintf(var, sizeof(var), "RDMACH_%s", row->name);
        printf("  %s=%s  [%s%s; %s]%s\n", var, value, row->def[0] ? "" : "empty", row->def, accepts,
               getenv(var) ? "  (set in the environment)" : "");
        printf("      %s\n", row->help);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        int help = strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0;
        if (!help)
            fprintf(stderr, "rdmach-info: unexpected argument '%s'\n", argv[1]);
        fprintf(help ? stdout : stderr,
                "usage: rdmach-info\n"
                "  Prints the version, build options, RDMA devices, libfabric providers,\n"
                "  topology and every RDMACH_* tunable with its current value and help.\n");
        return help ? 0 : 2;
    }
    rdmach_status_t st = rch_base_tun_load();
    if (st != RDMACH_OK) {
        fprintf(stderr, "rdmach-info: %s: %s\n", rdmach_strerror(st), rdmach_last_error());
        return 1;
    }
    print_build();
    print_verbs();
    print_ofi();
    print_topology();
    print_barriers();
    print_tunables();
    return 0;
}
