/*
 * MPI_T categories: one per layer or channel, under a root "rdmach".
 *
 * A control variable's category follows from its tunable's name (the
 * patterns below; every row of the tunables table must match one, which
 * tests/mpi's mpit test checks); performance variables and events name
 * theirs in their own tables. The set never changes while the process
 * runs: MPI_T_category_changed's number stays 0.
 */
#include <string.h>
#include "mpi/mpi_impl.h"
#include "mpi/mpit_impl.h"

static const struct {
    const char *name, *desc;
    const char *cvars;   /* tunable names, space-separated; a trailing * matches a prefix */
} cats[RCH_MPIT_CAT_MAX] = {
    [RCH_MPIT_CAT_ROOT] = { "rdmach", "Everything rdmach lets tools see, by layer", "" },
    [RCH_MPIT_CAT_BASE] = { "rdmach_base", "Logging, start-up checks, the strided copies' prefetching "
                            "(src/base), injected noise (src/device/noise.c) and injected MPI-IO failures (src/io)",
                            "LOG LOG_INTERVAL ABI_CHECK SIGUSR1 NOISE IO_* DTYPE_*" },
    [RCH_MPIT_CAT_BOOT] = { "rdmach_boot", "Bootstrap: process manager, node layout, binding (src/boot), "
                            "and the dynamic processes it spawns", "BIND PMI VNODE_SIZE DYN_TIMEOUT_MS DYN_NET DYN_MAX NAMESERV_DIR" },
    [RCH_MPIT_CAT_SHM] = { "rdmach_shm", "The shared-memory channel within a node (src/rdma/shm)",
                           "SHM SHM_* CMA CMA_* PEER_STOP_TIMEOUT" },
    [RCH_MPIT_CAT_DEVICE] = { "rdmach_device",
                              "Matching, eager and rendezvous protocols, credits, progress and waiting, "
                              "one-sided (src/device)",
                              "RNDV_* EAGER_CREDITS SPIN_COUNT* YIELD_* WAKE_SLICE_US RMA_PATH RMA_GETW_FILL RMA_PUTW_FROM "
                              "RMA_RMW_DIE HEARTBEAT*" },
    [RCH_MPIT_CAT_NET] = { "rdmach_net", "The network channel: libfabric or verbs (src/rdma/net)",
                           "NET NET_* OFI_PROVIDER VERBS_* CONNECT" },
    [RCH_MPIT_CAT_COLL] = { "rdmach_coll", "Collective algorithms, tuning, barrier backends (src/coll)",
                            "BCAST REDUCE ALLREDUCE GATHER GATHERV SCATTER SCATTERV ALLGATHER ALLGATHERV "
                            "ALLTOALL ALLTOALLV REDUCE_SCATTER SCAN EXSCAN NIC_PROFILE TUNING_FILE COLL_* "
                            "BARRIER BARRIER_* PPDEV INTER_*" },
    [RCH_MPIT_CAT_SELF] = { "rdmach_self", "Messages a rank sends to itself (the device's loopback)", "" },
};

static int name_matches(const char *patterns, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = patterns; *p;) {
        size_t l = strcspn(p, " ");
        if (l > 0 && p[l - 1] == '*' ? strncmp(p, name, l - 1) == 0 && nl >= l - 1
                                     : l == nl && strncmp(p, name, l) == 0)
            return 1;
        p += l;
        while (*p == ' ')
            p++;
    }
    return 0;
}

int rch_mpit_cat_of_cvar(int cvar)
{
    const char *name = rch_mpit_cvar_tunable(cvar);
    for (int c = 0; name && c < RCH_MPIT_CAT_MAX; c++)
        if (name_matches(cats[c].cvars, name))
            return c;
    return -1;
}

/* Members of category c: cvars (0), pvars (1), events (2), subcategories (3). */
static int members(int c, int what, int len, int *out)
{
    int n = 0, total;
    switch (what) {
    case 0: total = rch_mpit_cvar_count(); break;
    case 1: total = rch_mpit_pvar_count(); break;
    case 2: total = rch_mpit_event_count(); break;
    default: total = c == RCH_MPIT_CAT_ROOT ? RCH_MPIT_CAT_MAX : 0; break;
    }
    for (int i = 0; i < total; i++) {
        int in = what == 0 ? rch_mpit_cat_of_cvar(i) == c
               : what == 1 ? rch_mpit_pvar_cat(i) == c
               : what == 2 ? rch_mpit_event_cat(i) == c
               : i != RCH_MPIT_CAT_ROOT;
        if (!in)
            continue;
        if (out && n < len)
            out[n] = i;
        n++;
    }
    return n;
}

int PMPI_T_category_get_num(int *num_cat)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (num_cat == NULL)
        return MPI_T_ERR_INVALID;
    *num_cat = RCH_MPIT_CAT_MAX;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars,
                             int *num_pvars, int *num_categories)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (cat_index < 0 || cat_index >= RCH_MPIT_CAT_MAX)
        return MPI_T_ERR_INVALID_INDEX;
    rch_mpit_str(name, name_len, cats[cat_index].name);
    rch_mpit_str(desc, desc_len, cats[cat_index].desc);
    RCH_MPIT_SET(num_cvars, members(cat_index, 0, 0, NULL));
    RCH_MPIT_SET(num_pvars, members(cat_index, 1, 0, NULL));
    RCH_MPIT_SET(num_categories, members(cat_index, 3, 0, NULL));
    return MPI_SUCCESS;
}
#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (cat_index < 0 || cat_index >= RCH_MPIT_CAT_MAX)
        return MPI_T_ERR_INVALID_INDEX;
    if (num_events == NULL)
        return MPI_T_ERR_INVALID;
    *num_events = members(cat_index, 2, 0, NULL);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_category_get_num_events = PMPI_T_category_get_num_events

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (name == NULL || cat_index == NULL)
        return MPI_T_ERR_INVALID;
    for (int c = 0; c < RCH_MPIT_CAT_MAX; c++)
        if (strcmp(cats[c].name, name) == 0) {
            *cat_index = c;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index

static int get_members(int cat_index, int what, int len, int indices[])
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (cat_index < 0 || cat_index >= RCH_MPIT_CAT_MAX)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && indices == NULL))
        return MPI_T_ERR_INVALID;
    members(cat_index, what, len, indices);
    return MPI_SUCCESS;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return get_members(cat_index, 0, len, indices);
}
#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return get_members(cat_index, 1, len, indices);
}
#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    return get_members(cat_index, 2, len, indices);
}
#pragma weak MPI_T_category_get_events = PMPI_T_category_get_events

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return get_members(cat_index, 3, len, indices);
}
#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories

int PMPI_T_category_changed(int *update_number)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (update_number == NULL)
        return MPI_T_ERR_INVALID;
    *update_number = 0;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_category_changed = PMPI_T_category_changed
