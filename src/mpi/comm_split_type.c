/*
 * MPI_Comm_split_type: the split types and how each picks a color.
 *
 *  - MPI_COMM_TYPE_SHARED: the ranks of one node (rdmach's node, so pretend
 *    nodes of RDMACH_VNODE_SIZE count as nodes).
 *  - MPI_COMM_TYPE_HW_GUIDED (MPI 4.0 7.4.2): info "mpi_hw_resource_type"
 *    names the resource: "mpi_shared_memory" (as SHARED) or an hwloc type
 *    ("Package", "NUMANode", "L3Cache", "Core", "PU", ...). The ranks whose
 *    binding lies inside the same instance of it, on the same node, go
 *    together; a rank for which the value is not recognised, or that is not
 *    inside one instance (an unbound rank is on no single core), gets
 *    MPI_COMM_NULL, as does every rank without the key.
 *    Ranks that named different resources never share a communicator.
 *  - MPI_COMM_TYPE_RESOURCE_GUIDED (MPI 4.1 7.4.2): "mpi_hw_resource_type"
 *    as HW_GUIDED; without it, "mpi_pset_name" names a process set (those
 *    of MPI_Session_get_nth_pset, session.c): the ranks of comm in the set,
 *    as each sees it (mpi://SELF: itself alone), go together, the others
 *    get MPI_COMM_NULL, as does an unknown name or a rank with neither key.
 *  - MPI_COMM_TYPE_HW_UNGUIDED: the outermost level of (node, hw_levels[])
 *    that every rank lies inside and that cuts the communicator into more
 *    than one part; MPI_COMM_NULL everywhere if none does. The new
 *    communicator's info names the level ("mpi_hw_resource_type"), and so
 *    does the caller's info object, if it gave one.
 *  - MPIX_COMM_TYPE_NEIGHBORHOOD (MPICH): info "nbhd_common_dirname" names
 *    a directory; ranks that see the same file system there go together.
 *    Each rank creates a marker file in it, then looks for the others'
 *    markers: its color is the lowest rank whose marker it sees. Without the
 *    key, or if the directory cannot be written: MPI_COMM_NULL.
 *    Its value is MPICH 4.2's, 5. MPICH up to 4.1 numbered it 4, which MPI
 *    4.1 gave MPI_COMM_TYPE_RESOURCE_GUIDED; a program built with such a
 *    header passes 4 with "nbhd_common_dirname". So split_type 4 where some
 *    rank has that key and neither RESOURCE_GUIDED key is NEIGHBORHOOD at
 *    every rank (decided on the exchanged data, so all ranks agree).
 *
 * Every kind takes part in the same exchanges at every rank, whatever its
 * own answer, so the collective never stalls; a type that does not apply
 * gives MPI_COMM_NULL, never an abort.
 */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "boot/boot.h"
#include "boot/topo.h"
#include "mpi/mpi_impl.h"

/* The levels HW_UNGUIDED tries below the node, outermost first. */
static const char *const hw_levels[] = { "Package", "NUMANode", "L3Cache", "L2Cache", "L1Cache", "Core", "PU" };
#define NLEVELS ((int)RCH_ARRAY_SIZE(hw_levels))

/* Per rank: its node and where it lies at each level (-1: not inside one object). */
struct hw_where {
    int node;
    uint32_t what;                /* GUIDED: hash of the resource named (0: unguided) */
    int old_nbhd;                 /* split_type 4 meant MPICH < 4.2's NEIGHBORHOOD here */
    int index[NLEVELS + 1];       /* [0]: the node's "Machine"; [1..]: hw_levels */
};

/* The color of parent rank r for level l: the lowest parent rank with the
 * same node and object, MPI_UNDEFINED if r is not inside one. */
static int level_color(const struct hw_where *all, int r, int l)
{
    if (all[r].index[l] < 0)
        return MPI_UNDEFINED;
    for (int q = 0; q < r; q++)
        if (all[q].node == all[r].node && all[q].what == all[r].what && all[q].index[l] == all[r].index[l])
            return q;
    return r;
}

/* Exchanges every rank's hw_where; level[] holds the names of index[1..].
 * mine: what and old_nbhd set by the caller. */
static int exchange_where(const char *fn, struct rch_mpi_comm *p, int n, const char *const names[],
                          struct hw_where mine, struct hw_where **out)
{
    mine.node = rch_boot.node_of[p->world_of[p->rank]];
    for (int l = 0; l <= NLEVELS; l++)
        mine.index[l] = -1;
    mine.index[0] = 0;            /* every rank lies inside its node */
    if (n > 0 && rch_boot_topo_locate(n, names, mine.index + 1) != RDMACH_OK) {
        for (int l = 1; l <= n; l++)
            mine.index[l] = -1;   /* no topology: on no object, still in the exchange */
    }
    struct hw_where *all = malloc((size_t)p->size * sizeof(*all));
    if (!all)
        return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    rdmach_status_t st = rch_mpi_exchange(p, &mine, sizeof(mine), all, NULL);
    if (st != RDMACH_OK) {
        free(all);
        return rch_mpi_err(p->handle, rch_mpi_class_of(st), "%s: exchange with the other members failed: %s", fn,
                           rdmach_last_error());
    }
    *out = all;
    return MPI_SUCCESS;
}

/* A resource name's hash, in any case (hwloc reads type names so). */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint32_t)tolower((unsigned char)*s)) * 16777619u;
    return h | 1;                 /* never 0, the unguided levels' */
}

/* HW_GUIDED: value is this rank's mpi_hw_resource_type (NULL: none).
 * *old_nbhd (may be NULL): in: this rank's vote that split_type 4 is the old
 * NEIGHBORHOOD; out: whether any rank voted so (then *color is not set). */
static int guided_color(const char *fn, struct rch_mpi_comm *p, const char *value, int *color, int *old_nbhd)
{
    int shared = value && strcasecmp(value, "mpi_shared_memory") == 0;
    const char *name = value && !shared ? value : "";
    struct hw_where mine = { .what = value ? name_hash(value) : 0, .old_nbhd = old_nbhd && *old_nbhd }, *all;
    int err = exchange_where(fn, p, 1, &name, mine, &all);
    if (err)
        return err;
    int any_nbhd = 0;
    for (int r = 0; r < p->size; r++)
        any_nbhd |= all[r].old_nbhd;
    if (old_nbhd)
        *old_nbhd = any_nbhd;
    if (!value)
        *color = MPI_UNDEFINED;
    else
        *color = level_color(all, p->rank, shared ? 0 : 1);
    free(all);
    return MPI_SUCCESS;
}

/* RESOURCE_GUIDED by "mpi_pset_name": the lowest rank of comm in the set as
 * this rank sees it, if this rank is in it; else MPI_UNDEFINED. */
static int pset_color(const char *fn, struct rch_mpi_comm *p, const char *name, int *color)
{
    int *w = NULL, n = 0;
    int found = rch_mpi_pset_world_ranks(name, &w, &n);
    *color = MPI_UNDEFINED;
    if (found < 0)
        return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (found == 0)
        return MPI_SUCCESS;       /* not a set: as an unrecognised hardware type */
    unsigned char *in = calloc((size_t)rch_boot.size, 1);
    if (!in) {
        free(w);
        return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int i = 0; i < n; i++)
        if (w[i] >= 0 && w[i] < rch_boot.size)
            in[w[i]] = 1;
    int me = p->world_of[p->rank];
    for (int r = 0; r < p->size && me < rch_boot.size && in[me] && *color == MPI_UNDEFINED; r++)
        if (p->world_of[r] < rch_boot.size && in[p->world_of[r]])
            *color = r;
    free(in);
    free(w);
    return MPI_SUCCESS;
}

/* HW_UNGUIDED: *color and the name of the level chosen (NULL if none). */
static int unguided_color(const char *fn, struct rch_mpi_comm *p, int *color, const char **level)
{
    struct hw_where mine = { .what = 0 }, *all;
    int err = exchange_where(fn, p, NLEVELS, hw_levels, mine, &all);
    if (err)
        return err;
    *color = MPI_UNDEFINED;
    *level = NULL;
    for (int l = 0; l <= NLEVELS && !*level; l++) {
        int cuts = 0, inside = 1;
        for (int r = 0; r < p->size; r++) {
            int c = level_color(all, r, l);
            inside &= c != MPI_UNDEFINED;
            cuts |= c != 0;
        }
        if (inside && cuts) {
            *color = level_color(all, p->rank, l);
            *level = l == 0 ? "Machine" : hw_levels[l - 1];
        }
    }
    free(all);
    return MPI_SUCCESS;
}

/* NEIGHBORHOOD by file system: the marker of world rank w in dir. */
static void marker_path(char *buf, size_t len, const char *dir, int w)
{
    snprintf(buf, len, "%s/.rdmach-nbhd-%s-%d", dir, rch_boot.kvsname, w);
}

static int neighborhood_color(const char *fn, struct rch_mpi_comm *p, const char *dir, int *color,
                              int *made)
{
    char path[PATH_MAX + 64];
    *made = 0;
    if (dir) {
        marker_path(path, sizeof(path), dir, p->world_of[p->rank]);
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
        if (fd >= 0) {
            close(fd);
            *made = 1;
        }
    }
    /* every marker exists before anyone looks */
    rdmach_status_t st = rch_mpi_exchange(p, NULL, 0, NULL, NULL);
    if (st != RDMACH_OK)
        return rch_mpi_err(p->handle, rch_mpi_class_of(st), "%s: exchange with the other members failed: %s", fn,
                           rdmach_last_error());
    *color = MPI_UNDEFINED;
    for (int r = 0; r < p->size && *made && *color == MPI_UNDEFINED; r++) {
        marker_path(path, sizeof(path), dir, p->world_of[r]);
        if (access(path, F_OK) == 0)
            *color = r;
    }
    return MPI_SUCCESS;
}

/* RESOURCE_GUIDED (or the old NEIGHBORHOOD: see the top). Every rank takes
 * part in HW_GUIDED's exchange, whichever key it has; *dir is set and
 * *old_nbhd is 1 when the split is the old NEIGHBORHOOD. */
static int resource_color(const char *fn, struct rch_mpi_comm *p, const struct rch_mpi_info *in, int *color,
                          const char **dir, int *old_nbhd)
{
    const char *hw = in ? rch_mpi_info_lookup(in, "mpi_hw_resource_type") : NULL;
    const char *pset = in ? rch_mpi_info_lookup(in, "mpi_pset_name") : NULL;
    *dir = in ? rch_mpi_info_lookup(in, "nbhd_common_dirname") : NULL;
    *old_nbhd = *dir && !hw && !pset;
    int err = guided_color(fn, p, hw, color, old_nbhd);
    if (err || *old_nbhd || hw || !pset)
        return err;
    return pset_color(fn, p, pset, color);
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Comm_split_type";
    struct rch_mpi_comm *p;
    int err = rch_mpi_comm_maker_check(fn, comm, newcomm, &p);
    if (err || (err = rch_mpi_intra_only(fn, p, "comm")))
        return err;
    err = rch_mpi_info_check(comm, fn, info);
    if (err)
        return err;
    const struct rch_mpi_info *in = info == MPI_INFO_NULL ? NULL : rch_mpi_info_get(info);
    int color = MPI_UNDEFINED, made = 0, old_nbhd = 0;
    const char *level = NULL, *dir = NULL;
    switch (split_type) {
    case MPI_UNDEFINED:
        break;
    case MPI_COMM_TYPE_SHARED:
        color = rch_boot.node_of[p->world_of[p->rank]];   /* ranks sharing memory: one node */
        break;
    case MPI_COMM_TYPE_HW_GUIDED:
        err = guided_color(fn, p, in ? rch_mpi_info_lookup(in, "mpi_hw_resource_type") : NULL, &color, NULL);
        break;
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
        err = resource_color(fn, p, in, &color, &dir, &old_nbhd);
        if (!err && old_nbhd)
            err = neighborhood_color(fn, p, dir, &color, &made);
        break;
    case MPI_COMM_TYPE_HW_UNGUIDED:
        err = unguided_color(fn, p, &color, &level);
        break;
    case MPIX_COMM_TYPE_NEIGHBORHOOD:
        dir = in ? rch_mpi_info_lookup(in, "nbhd_common_dirname") : NULL;
        err = neighborhood_color(fn, p, dir, &color, &made);
        break;
    default:
        return rch_mpi_err(comm, MPI_ERR_ARG,
                           "%s: invalid split_type %d in argument split_type (MPI_COMM_TYPE_SHARED, "
                           "MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED, MPI_COMM_TYPE_RESOURCE_GUIDED, "
                           "MPIX_COMM_TYPE_NEIGHBORHOOD or MPI_UNDEFINED)", fn, split_type);
    }
    if (err)
        return err;
    err = rch_mpi_comm_split_common(fn, p, color, key, newcomm, 0);
    if (made) {                   /* the split's exchange: everyone has looked */
        char path[PATH_MAX + 64];
        marker_path(path, sizeof(path), dir, p->world_of[p->rank]);
        unlink(path);
    }
    if (!err && level && *newcomm != MPI_COMM_NULL) {
        rch_mpi_comm_get(*newcomm)->hw_level = level;
        /* MPI 4.0 7.4.2: "If a valid info handle is provided as an argument,
         * the MPI implementation sets the info key mpi_hw_resource_type" at
         * each member of newcomm: in the caller's info object too (MPICH
         * does, and its tests read it there), not only in newcomm's hints. */
        if (info != MPI_INFO_NULL)
            err = PMPI_Info_set(info, "mpi_hw_resource_type", level);
    }
    return err;
}
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
