/*
 * rdmach-info: what this rdmach was built with and what it finds here —
 * version, build options (with the registration cache's memory monitor,
 * RDMACH_NET_MEM_MONITOR), RDMA devices, libfabric providers, topology, the
 * barrier backends and which apply, and every tunable with its current value (from RDMACH_* in the environment),
 * its default, what it accepts and its help. A malformed RDMACH_* value is
 * reported and the exit status is 1, as rdmach_init would fail.
 *
 * Channel selection: the singleton output says what a peer on the same node
 * and one on another node would use from here. `rdmach-info --pairs` under a
 * launcher (rdmachrun -n 4, mpiexec.mpich -n 4) makes every rank decide for
 * every peer with the device's own code (src/rdma/select.c) and open the
 * channels it would use (no connections); rank 0 prints the table:
 *   pair, channel (shm / verbs <device> / ofi <provider>), rendezvous mode, why.
 * Exit status 1 if the two ranks of a pair chose different channels.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "boot/pmi_select.h"
#include "boot/topo.h"
#include "coll/barrier.h"
#include "device/dev_impl.h"
#include "rdma/net/net_rcache.h"
#include "rdma/select.h"
#include "info_mpit.h"
#if RDMACH_HAVE_VERBS
#include <infiniband/verbs.h>
#endif
#if RDMACH_HAVE_OFI
#include <rdma/fabric.h>
#endif

/* The prefix this copy is installed in: RDMACH_PREFIX if set, else the one
 * its own path implies (the tree may have been moved since it was installed),
 * else — in the build tree, with no mpi.h there — the configured one. */
static void print_prefix(void)
{
    const char *env = getenv("RDMACH_PREFIX");
    char exe[PATH_MAX], up[PATH_MAX + 8], prefix[PATH_MAX], mpi_h[PATH_MAX + 32];
    ssize_t n;

    if (env != NULL && env[0] != '\0') {
        printf("  install prefix    %s (RDMACH_PREFIX)\n", env);
        return;
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        *strrchr(exe, '/') = '\0';
        snprintf(up, sizeof(up), "%s/%s", exe, RDMACH_BIN_TO_PREFIX);
        if (realpath(up, prefix) != NULL) {
            snprintf(mpi_h, sizeof(mpi_h), "%s/%s/mpi.h", prefix, RDMACH_REL_INCLUDEDIR);
            if (access(mpi_h, R_OK) == 0) {
                printf("  install prefix    %s\n", prefix);
                return;
            }
        }
    }
    printf("  install prefix    %s (configured; this copy is not installed)\n", RDMACH_INSTALL_PREFIX);
}

static void print_build(void)
{
    printf("rdmach %s\n\n", RDMACH_VERSION_STRING);
    printf("Build options:\n");
    printf("  build type        %s\n", RDMACH_BUILD_TYPE);
    print_prefix();
    printf("  verbs channel     %s\n", RDMACH_HAVE_VERBS ? "yes (libibverbs, librdmacm)" : "no");
    printf("  libfabric channel %s\n", RDMACH_HAVE_OFI ? "yes" : "no");
    printf("  memory monitor    %s\n", rch_net_memhook_describe());
#if defined(__SANITIZE_ADDRESS__)
    printf("  sanitizers        address, undefined\n");
#elif defined(__SANITIZE_THREAD__)
    printf("  sanitizers        thread\n");
#else
    printf("  sanitizers        none\n");
#endif
    printf("  compiler          gcc %s\n", __VERSION__);
}

/* Which process-manager interface rch_boot_init would use here, and why. */
static void print_pmi(void)
{
    static const char *const vars[] = { "PMIX_NAMESPACE", "PMIX_RANK", "PMI_FD", "PMI_RANK", "PMI_SIZE",
                                        "PMI_JOBID", "SLURM_JOB_ID" };
    const struct rch_boot_pmi_ops *ops;
    char why[200];
    printf("\nProcess manager interface (RDMACH_PMI=auto|pmix|pmi2|pmi1|singleton):\n");
    rdmach_status_t st = rch_boot_pmi_choose(rch_tun.pmi, &ops, why, sizeof(why));
    if (st == RDMACH_OK)
        printf("  would use         %s: %s\n", ops ? ops->name : "singleton", why);
    else
        printf("  would use         none: %s\n", rdmach_last_error());
    printf("  PMIx client       %s\n", rch_boot_pmix_built() ? "built (OpenPMIx)" : "not built (no libpmix-dev)");
    printf("  environment      ");
    int any = 0;
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v) {
            printf(" %s=%.40s", vars[i], v);
            any = 1;
        }
    }
    printf("%s\n", any ? "" : " (no launcher variables)");
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

/* ---- channel selection ---- */

/* The probe of one channel kind, opened once per process (NULL: none). */
static struct rch_rdma_probe probes[4];
static int nprobes;

static const struct rch_rdma_probe *probe_of(const struct rch_rdma_ops *ops, const struct rch_boot_info *boot)
{
    if (ops == NULL)
        return NULL;
    for (int i = 0; i < nprobes; i++)
        if (probes[i].ops == ops)
            return &probes[i];
    if (nprobes == (int)(sizeof(probes) / sizeof(probes[0])))
        return NULL;
    rch_rdma_select_probe(ops, boot, &probes[nprobes]);   /* a failure is recorded in it */
    return &probes[nprobes++];
}

/* "get (auto: ...)" for a probed channel */
static void rndv_text(const struct rch_rdma_probe *pr, char *out, size_t len)
{
    const char *why;
    if (pr == NULL || pr->status != RDMACH_OK) {
        snprintf(out, len, "-");
        return;
    }
    if (!pr->caps.rma) {
        snprintf(out, len, "data (no RMA on this channel)");
        return;
    }
    int get = rch_dev_rndv_uses_get(&pr->caps, &why);
    snprintf(out, len, "%s (%s)%s", get ? "get" : "put", why,
             !get && rch_dev_rndv_fin_early(&pr->caps) ? ", FIN right behind the data (one ordered connection)" : "");
}

/* One decision, as the table shows it: channel label, rendezvous mode, why. */
struct choice {
    char label[64];
    char rndv[16];
    char why[512];
};

static void decide(const struct rch_boot_info *boot, int peer, struct choice *c)
{
    char why[sizeof(c->why)];
    /* the network channel is probed first, so the reason can name its device or provider */
    const struct rch_rdma_ops *ops = rch_rdma_select_explain(boot, peer, why, sizeof(why));
    const struct rch_rdma_probe *pr = probe_of(ops, boot);
    ops = rch_rdma_select_explain(boot, peer, c->why, sizeof(c->why));
    (void)why;
    if (ops == NULL) {
        snprintf(c->label, sizeof(c->label), "none");
        snprintf(c->rndv, sizeof(c->rndv), "-");
        return;
    }
    snprintf(c->label, sizeof(c->label), "%s", pr ? pr->label : ops->name);
    if (pr && pr->status != RDMACH_OK) {
        snprintf(c->rndv, sizeof(c->rndv), "-");
        size_t n = strlen(c->why);
        snprintf(c->why + n, sizeof(c->why) - n, "; but it cannot open here: %s", pr->detail);
        return;
    }
    const char *rwhy;
    snprintf(c->rndv, sizeof(c->rndv), "%s", !pr->caps.rma ? "data" : rch_dev_rndv_uses_get(&pr->caps, &rwhy) ? "get" : "put");
}

static void print_probes(void)
{
    for (int i = 0; i < nprobes; i++) {
        char r[128], zc[64] = "";
        rndv_text(&probes[i], r, sizeof(r));
        if (probes[i].status == RDMACH_OK && probes[i].caps.zc_min)
            snprintf(zc, sizeof(zc), "; eager zero-copy from %zu B", probes[i].caps.zc_min);
        if (probes[i].status == RDMACH_OK)
            printf("  channel %-12s %s; eager up to %zu B%s; rendezvous %s\n", probes[i].label, probes[i].detail,
                   rch_dev_eager_max(&probes[i].caps), zc, r);
        else
            printf("  channel %-12s cannot open: %s\n", probes[i].label, probes[i].detail);
    }
}

/* Singleton: what a peer on this node and one on another node would use. */
static void print_selection(void)
{
    int same_node[2] = { 0, 0 }, other_node[2] = { 0, 1 }, local[1] = { 0 };
    struct rch_boot_info same = { .rank = 0, .size = 2, .node = 0, .num_nodes = 1, .local_rank = 0,
                                  .local_size = 2, .node_of = same_node, .local_ranks = local, .singleton = 1,
                                  .bound_core = -1, .bound_numa = -1 };
    struct rch_boot_info other = same;
    other.num_nodes = 2;
    other.local_size = 1;
    other.node_of = other_node;
    snprintf(same.kvsname, sizeof(same.kvsname), "info%d", (int)getpid());
    snprintf(other.kvsname, sizeof(other.kvsname), "info%d", (int)getpid());
    struct choice c;
    printf("\nChannel selection (src/rdma/select.c with this environment; rdmach-info --pairs under a "
           "launcher shows every pair):\n");
    decide(&same, 1, &c);
    printf("  peer on the same node     %s, rendezvous %s: %s\n", c.label, c.rndv, c.why);
    decide(&other, 1, &c);
    printf("  peer on another node      %s, rendezvous %s: %s\n", c.label, c.rndv, c.why);
    print_probes();
}

/* One tunable's value in words and where it came from. */
static const char *origin_of(const char *name, char *value, size_t len)
{
    const char *why = "";
    for (size_t i = 0; i < rch_base_tun_count(); i++)
        if (strcmp(rch_base_tun_row(i)->name, name) == 0) {
            rch_base_tun_format(rch_base_tun_row(i), value, len);
            rch_base_tun_origin(i, &why);
        }
    return why;
}

static void human_bytes(size_t b, char *buf, size_t len)
{
    if (b >= (1u << 30) && b % (1u << 30) == 0)
        snprintf(buf, len, "%zu GiB", b >> 30);
    else if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, len, "%zu KiB", b >> 10);
    else
        snprintf(buf, len, "%zu B", b);
}

/* How a message between two ranks of this node moves, per size range
 * (src/rdma/shm: ring, pipeline, single copy), and where each threshold
 * comes from (default, machine, tuning file, environment). */
static void print_large(void)
{
    struct rch_boot_machine m;
    char v[64], a[32], b[32], c[72];
    const char *why;
    rch_boot_machine_caches(&m);
    human_bytes(m.l2, a, sizeof(a));
    human_bytes(m.llc, b, sizeof(b));
    printf("\nMessages within a node (shared memory; this machine: L2 %s, L%d %s, %d cpus):\n", a,
           m.llc_level, b, m.cpus);
    size_t eager = rch_tun.shm_eager_max, from = rch_tun.shm_cma_from, nt = rch_tun.shm_nt_from;
    int cma_ok = rch_tun.cma != RCH_CMA_OFF;
    human_bytes(eager, a, sizeof(a));
    why = origin_of("SHM_EAGER_MAX", v, sizeof(v));
    printf("  up to %-22s eager, through the per-pair ring  [SHM_EAGER_MAX: %s]\n", a, why);
    if (rch_tun.shm_get == RCH_SHM_GET_CMA && cma_ok) {
        printf("  above %-22s rendezvous, single copy (process_vm_readv)  [SHM_GET=cma]\n", a);
    } else if (rch_tun.shm_get == RCH_SHM_GET_PIPE || !cma_ok || from >= (size_t)1 << 30 || from <= eager) {
        const char *how = from <= eager && rch_tun.shm_get == RCH_SHM_GET_AUTO && cma_ok
                              ? "rendezvous, single copy (process_vm_readv)" : "rendezvous, two-copy pipeline";
        const char *w = !cma_ok ? "CMA=off" : rch_tun.shm_get == RCH_SHM_GET_PIPE ? "SHM_GET=pipe" : NULL;
        if (w)
            printf("  above %-22s %s  [%s]\n", a, how, w);
        else
            printf("  above %-22s %s  [SHM_CMA_FROM: %s]\n", a, how, origin_of("SHM_CMA_FROM", v, sizeof(v)));
    } else {
        human_bytes(from, b, sizeof(b));
        snprintf(c, sizeof(c), "%s .. %s", a, b);
        printf("  %-28s rendezvous, two-copy pipeline\n", c);
        why = origin_of("SHM_CMA_FROM", v, sizeof(v));
        printf("  from %-23s rendezvous, single copy (process_vm_readv)  [SHM_CMA_FROM: %s]\n", b, why);
    }
    why = origin_of("SHM_PIPE_CHUNK", v, sizeof(v));
    human_bytes(rch_tun.shm_pipe_chunk, a, sizeof(a));
    printf("  pipeline chunk %s  [SHM_PIPE_CHUNK: %s]\n", a, why);
    why = origin_of("SHM_NT_FROM", v, sizeof(v));
    if (nt) {
        human_bytes(nt, a, sizeof(a));
        printf("  pipeline copies of messages from %s with streaming stores  [SHM_NT_FROM: %s]\n", a, why);
    } else {
        printf("  no streaming stores  [SHM_NT_FROM: %s]\n", why);
    }
    if (rch_tun.shm_cma_split) {
        human_bytes(rch_tun.shm_cma_split, a, sizeof(a));
        printf("  single copies from %s shared with the peer's progress  [SHM_CMA_SPLIT: %s]\n", a,
               origin_of("SHM_CMA_SPLIT", v, sizeof(v)));
    }
}

/* The KVS carries one decision per (rank, peer) as hex text. */
#define PAIR_SEP '\x1f'

static rdmach_status_t put_choice(int peer, const struct choice *c)
{
    char text[480], key[32], hex[2 * sizeof(text) + 1];
    int n = snprintf(text, sizeof(text), "%s%c%s%c%s", c->label, PAIR_SEP, c->rndv, PAIR_SEP, c->why);
    size_t len = n < 0 ? 0 : (size_t)n >= sizeof(text) ? sizeof(text) - 1 : (size_t)n;
    snprintf(key, sizeof(key), "info.pair.%d", peer);
    rch_boot_hex_encode(text, len, hex);
    return rch_boot_put(key, hex);
}

static rdmach_status_t get_choice(int rank, int peer, struct choice *c)
{
    char key[32], hex[RDMACH_KVS_VAL_MAX], text[RDMACH_KVS_VAL_MAX / 2 + 1];
    snprintf(key, sizeof(key), "info.pair.%d", peer);
    rdmach_status_t st = rch_boot_get(rank, key, hex, sizeof(hex));
    if (st != RDMACH_OK)
        return st;
    size_t len = strlen(hex) / 2;
    if (strlen(hex) % 2 || (st = rch_boot_hex_decode(hex, text, len)) != RDMACH_OK)
        return rch_base_err(RDMACH_ERR_PROTOCOL, "rank %d's record for peer %d is not hex", rank, peer);
    text[len] = '\0';
    char *a = strchr(text, PAIR_SEP), *b = a ? strchr(a + 1, PAIR_SEP) : NULL;
    if (b == NULL)
        return rch_base_err(RDMACH_ERR_PROTOCOL, "rank %d's record for peer %d is malformed", rank, peer);
    *a = *b = '\0';
    snprintf(c->label, sizeof(c->label), "%.63s", text);
    snprintf(c->rndv, sizeof(c->rndv), "%.15s", a + 1);
    snprintf(c->why, sizeof(c->why), "%.511s", b + 1);
    return RDMACH_OK;
}

/* --pairs: every rank decides for every peer; rank 0 prints the table. */
static int run_pairs(void)
{
    rdmach_status_t st = rch_boot_init();
    if (st != RDMACH_OK) {
        fprintf(stderr, "rdmach-info: bootstrap failed: %s: %s\n", rdmach_strerror(st), rdmach_last_error());
        return 1;
    }
    int rank = rch_boot.rank, size = rch_boot.size, bad = 0;
    struct choice c;
    for (int peer = 0; peer < size && st == RDMACH_OK; peer++)
        if (peer != rank) {
            decide(&rch_boot, peer, &c);
            st = put_choice(peer, &c);
        }
    if (st == RDMACH_OK)
        st = rch_boot_fence();
    if (st != RDMACH_OK) {
        fprintf(stderr, "rdmach-info: rank %d: key-value store: %s: %s\n", rank, rdmach_strerror(st),
                rdmach_last_error());
        rch_boot_finalize();
        return 1;
    }
    if (rank == 0) {
        printf("Channel per pair (%d ranks on %d node%s; each rank decides with src/rdma/select.c, as the device "
               "does; shown: the lower rank's decision):\n", size, rch_boot.num_nodes,
               rch_boot.num_nodes == 1 ? "" : "s");
        if (size == 1)
            printf("  one rank: no pairs (run it under a launcher: rdmachrun -n 4 rdmach-info --pairs)\n");
        else
            printf("  %-9s %-16s %-5s %s\n", "pair", "channel", "rndv", "why");
        for (int a = 0; a < size; a++)
            for (int b = a + 1; b < size; b++) {
                struct choice ab, ba;
                char pair[32];
                if ((a == 0 ? (decide(&rch_boot, b, &ab), RDMACH_OK) : get_choice(a, b, &ab)) != RDMACH_OK ||
                    get_choice(b, a, &ba) != RDMACH_OK) {
                    printf("  (%d,%d) unknown: %s\n", a, b, rdmach_last_error());
                    bad = 1;
                    continue;
                }
                snprintf(pair, sizeof(pair), "(%d,%d)", a, b);
                /* the same channel kind both ways; each side may use its own device ("verbs siw0/siw1") */
                size_t ka = strcspn(ab.label, " "), kb = strcspn(ba.label, " ");
                int same_kind = ka == kb && strncmp(ab.label, ba.label, ka) == 0;
                char label[sizeof(ab.label) * 2];
                if (same_kind && strcmp(ab.label, ba.label) != 0 && ba.label[kb] == ' ')
                    snprintf(label, sizeof(label), "%s/%s", ab.label, ba.label + kb + 1);
                else
                    snprintf(label, sizeof(label), "%s", ab.label);
                printf("  %-9s %-16s %-5s %s\n", pair, label, ab.rndv, ab.why);
                if (!same_kind || strcmp(ab.rndv, ba.rndv) != 0) {
                    snprintf(pair, sizeof(pair), "(%d,%d)", b, a);
                    printf("  %-9s %-16s %-5s %s\n", pair, ba.label, ba.rndv, ba.why);
                    printf("  MISMATCH: ranks %d and %d chose differently: this pair cannot communicate as "
                           "configured\n", a, b);
                    bad = 1;
                }
            }
        printf("Channels of rank 0:\n");
        print_probes();
    }
    st = rch_boot_finalize();
    if (st != RDMACH_OK) {
        fprintf(stderr, "rdmach-info: rank %d: finalize: %s\n", rank, rdmach_last_error());
        return 1;
    }
    return bad;
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
        const char *why;
        enum rch_tun_origin from = rch_base_tun_origin(i, &why);
        char whence[192] = "";
        if (from == RCH_TUN_FROM_ENV)
            snprintf(whence, sizeof(whence), "  (set in the environment)");
        else if (from != RCH_TUN_FROM_DEFAULT)
            snprintf(whence, sizeof(whence), "  (from %s)", why);
        printf("  %s=%s  [%s%s; %s]%s\n", var, value, row->def[0] ? "" : "empty", row->def, accepts,
               whence);
        printf("      %s\n", row->help);
    }
}

static int usage(FILE *f)
{
    fprintf(f, "usage: rdmach-info [--pairs | --tunables | --mpit]\n"
               "  Prints the version, build options, RDMA devices, libfabric providers,\n"
               "  topology, the channel a peer on this node and on another node would use,\n"
               "  and every RDMACH_* tunable with its current value and help.\n"
               "  --pairs  run under a launcher (rdmachrun -n 4 rdmach-info --pairs, or\n"
               "           mpiexec.mpich -n 4 ...): rank 0 prints, for every pair of ranks,\n"
               "           the channel, the rendezvous mode and why.\n"
               "  --tunables  only the tunables (the rdmach(7) man page is made from them).\n"
               "  --mpit   what tools see through MPI_T: the control variables (the tunables)\n"
               "           with their values, the performance variables, categories and events.\n");
    return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    int pairs = 0, only_tunables = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return usage(stdout);
        if (strcmp(argv[i], "--tunables") == 0 && argc == 2) {
            only_tunables = 1;
            continue;
        }
        if (strcmp(argv[i], "--mpit") == 0 && argc == 2)
            return rch_info_print_mpit();
        if (strcmp(argv[i], "--pairs") == 0 && !pairs) {
            pairs = 1;
            continue;
        }
        if (strcmp(argv[i], "--pairs") == 0)
            fprintf(stderr, "rdmach-info: --pairs given twice\n");
        else
            fprintf(stderr, "rdmach-info: unexpected argument '%s'\n", argv[i]);
        return usage(stderr);
    }
    rdmach_status_t st = rch_base_tun_load();
    if (st != RDMACH_OK) {
        fprintf(stderr, "rdmach-info: %s: %s\n", rdmach_strerror(st), rdmach_last_error());
        return 1;
    }
    if (pairs)
        return run_pairs();
    if (only_tunables) {
        print_tunables();
        return 0;
    }
    /* the values a job of two ranks on this node would derive (rch_boot_init) */
    st = rch_boot_machine_tunables(2);
    if (st != RDMACH_OK) {
        fprintf(stderr, "rdmach-info: %s: %s\n", rdmach_strerror(st), rdmach_last_error());
        return 1;
    }
    print_build();
    print_pmi();
    print_verbs();
    print_ofi();
    print_topology();
    print_selection();
    print_large();
    print_barriers();
    print_tunables();
    return 0;
}
