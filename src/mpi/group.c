/*
 * Groups: Comm_group, Group_size/rank, Group_incl/excl, the range variants,
 * Group_translate_ranks, Group_compare, union/intersection/difference and
 * Group_free. All of them are local.
 *
 * A group is its members' world ranks in group order. Membership questions
 * ("is world rank w in group b, and where?") use a scratch inverse map over
 * world ranks, O(world size) per call: these calls set things up, they are
 * not on any fast path.
 *
 * Handles: MPI_GROUP_EMPTY is MPICH's built-in 0x48000000; others are direct
 * group handles (0x88000000 | index). Slots are reused through a free list:
 * unlike communicators, groups are made and dropped in loops (one per
 * MPI_Win_post epoch in OMB's one-sided benchmarks).
 */
#include <stdlib.h>
#include <string.h>
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

static struct rch_mpi_group empty_group = { MPI_GROUP_EMPTY, 0, MPI_UNDEFINED, NULL, 1 };
static struct rch_mpi_group **table;
static int table_len, table_cap;
static int free_head = -1;            /* first free slot, -1 if none */
static int *free_next;                /* [table_cap]: next free slot, -1 at the end */

struct rch_mpi_group *rch_mpi_group_get(MPI_Group g)
{
    if (g == MPI_GROUP_EMPTY)
        return rch_mpi_state == RCH_MPI_RUNNING ? &empty_group : NULL;
    if (RCH_MPI_HKIND(g) != 2 || RCH_MPI_HOBJ(g) != RCH_MPI_OBJ_GROUP)
        return NULL;
    unsigned i = RCH_MPI_HINDEX(g);
    return (int)i < table_len ? table[i] : NULL;
}

static int my_index(int size, const int *world_of)
{
    for (int i = 0; i < size; i++)
        if (world_of[i] == rch_boot.rank)
            return i;
    return MPI_UNDEFINED;
}

struct rch_mpi_group *rch_mpi_group_new(int size, int *world_of)
{
    struct rch_mpi_group *g = calloc(1, sizeof(*g));
    if (!g) {
        free(world_of);
        return NULL;
    }
    int slot = free_head;
    if (slot >= 0) {
        free_head = free_next[slot];
    } else {
        if (table_len == table_cap) {
            int n = table_cap ? table_cap * 2 : 16;
            struct rch_mpi_group **p = realloc(table, (size_t)n * sizeof(*p));
            if (p)
                table = p;
            int *q = p ? realloc(free_next, (size_t)n * sizeof(*q)) : NULL;
            if (!p || !q || table_len >= (1 << 26)) {
                free(g);
                free(world_of);
                return NULL;
            }
            free_next = q;
            table_cap = n;
        }
        slot = table_len++;
    }
    g->handle = RCH_MPI_HDIRECT(RCH_MPI_OBJ_GROUP, slot);
    g->size = size;
    g->world_of = world_of;
    g->rank = my_index(size, world_of);
    g->refcount = 1;
    table[slot] = g;
    return g;
}

void rch_mpi_group_retain(struct rch_mpi_group *g)
{
    if (g != &empty_group)
        g->refcount++;
}

void rch_mpi_group_release(struct rch_mpi_group *g)
{
    if (g == &empty_group || --g->refcount > 0)
        return;
    unsigned i = RCH_MPI_HINDEX(g->handle);
    if ((int)i < table_len && table[i] == g) {
        table[i] = NULL;
        free_next[i] = free_head;
        free_head = (int)i;
    }
    free(g->world_of);
    free(g);
}

void rch_mpi_group_finalize(void)
{
    for (int i = 0; i < table_len; i++) {
        if (table[i]) {
            free(table[i]->world_of);
            free(table[i]);
        }
    }
    free(table);
    free(free_next);
    table = NULL;
    free_next = NULL;
    table_len = table_cap = 0;
    free_head = -1;
}

/* ---- argument checks ---- */

static int group_bad(const char *fn, const char *arg, MPI_Group g)
{
    if (g == MPI_GROUP_NULL)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_GROUP, "%s: argument %s is MPI_GROUP_NULL", fn, arg);
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_GROUP, "%s: invalid group 0x%x in argument %s", fn,
                       (unsigned)g, arg);
}

/* Checks init and the group argument `arg`: the object, or NULL with *err set. */
static struct rch_mpi_group *check_group(const char *fn, const char *arg, MPI_Group g, int *err)
{
    *err = rch_mpi_check_init(fn);
    if (*err)
        return NULL;
    struct rch_mpi_group *o = rch_mpi_group_get(g);
    if (!o)
        *err = group_bad(fn, arg, g);
    return o;
}

/* Hands a new group to the user: *newgroup, or an out-of-memory error. */
static int give(const char *fn, int size, int *world_of, MPI_Group *newgroup)
{
    if (size == 0) {
        free(world_of);
        *newgroup = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    struct rch_mpi_group *g = rch_mpi_group_new(size, world_of);
    if (!g)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *newgroup = g->handle;
    return MPI_SUCCESS;
}

int rch_mpi_group_of_ranks(const char *fn, MPI_Comm comm, int n, const int *world_of, MPI_Group *group)
{
    int *w = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!w)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    memcpy(w, world_of, (size_t)n * sizeof(int));
    return give(fn, n, w, group);
}

/* pos[w] = index of world rank w in g, or -1 (an array of world size). NULL: out of memory. */
static int *inverse_map(const struct rch_mpi_group *g)
{
    /* world ranks include other jobs' processes (device/dyn.c) */
    int *pos = malloc((size_t)rch_dev_nprocs() * sizeof(int));
    if (!pos)
        return NULL;
    for (int w = 0; w < rch_dev_nprocs(); w++)
        pos[w] = -1;
    for (int i = 0; i < g->size; i++)
        pos[g->world_of[i]] = i;
    return pos;
}

/* ---- local inquiries ---- */

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_group");
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad("MPI_Comm_group", comm);
    if (!group)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_group: argument group is NULL");
    return rch_mpi_group_of_ranks("MPI_Comm_group", comm, c->size, c->world_of, group);
}
#pragma weak MPI_Comm_group = PMPI_Comm_group

int PMPI_Group_size(MPI_Group group, int *size)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_group *g = check_group("MPI_Group_size", "group", group, &err);
    if (!g)
        return err;
    if (!size)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Group_size: argument size is NULL");
    *size = g->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_size = PMPI_Group_size

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_group *g = check_group("MPI_Group_rank", "group", group, &err);
    if (!g)
        return err;
    if (!rank)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Group_rank: argument rank is NULL");
    *rank = g->rank;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_rank = PMPI_Group_rank

int PMPI_Group_free(MPI_Group *group)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Group_free");
    if (err)
        return err;
    if (!group)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Group_free: argument group is NULL");
    struct rch_mpi_group *g = rch_mpi_group_get(*group);
    if (!g)
        return group_bad("MPI_Group_free", "group", *group);
    /* Freeing MPI_GROUP_EMPTY is allowed (MPI-2.2) and does nothing. */
    rch_mpi_group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_free = PMPI_Group_free

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[])
{
    RCH_MPI_CS();
    const char *fn = "MPI_Group_translate_ranks";
    int err;
    struct rch_mpi_group *a = check_group(fn, "group1", group1, &err);
    if (!a)
        return err;
    struct rch_mpi_group *b = rch_mpi_group_get(group2);
    if (!b)
        return group_bad(fn, "group2", group2);
    if (n < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: negative count %d in argument n", fn, n);
    if (n > 0 && (!ranks1 || !ranks2))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !ranks1 ? "ranks1" : "ranks2");
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size))
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_RANK, "%s: invalid rank %d in ranks1[%d] (group1 has %d members)",
                               fn, ranks1[i], i, a->size);
    int *pos = inverse_map(b);
    if (!pos)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
        } else {
            int p = pos[a->world_of[ranks1[i]]];
            ranks2[i] = p >= 0 ? p : MPI_UNDEFINED;
        }
    }
    free(pos);
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Group_compare";
    int err;
    struct rch_mpi_group *a = check_group(fn, "group1", group1, &err);
    if (!a)
        return err;
    struct rch_mpi_group *b = rch_mpi_group_get(group2);
    if (!b)
        return group_bad(fn, "group2", group2);
    if (!result)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument result is NULL", fn);
    if (a->size != b->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (a->size == 0 || memcmp(a->world_of, b->world_of, (size_t)a->size * sizeof(int)) == 0) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    int *pos = inverse_map(b);
    if (!pos)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *result = MPI_SIMILAR;
    for (int i = 0; i < a->size; i++)
        if (pos[a->world_of[i]] < 0)
            *result = MPI_UNEQUAL;
    free(pos);
    return MPI_SUCCESS;
}
#pragma weak MPI_Group_compare = PMPI_Group_compare

/* ---- new groups from a list of ranks ---- */

/* Checks that ranks[0..n) are valid, distinct ranks of g. */
static int check_rank_list(const char *fn, const struct rch_mpi_group *g, int n, const int ranks[])
{
    if (n < 0 || n > g->size)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid count %d in argument n (group has %d members)",
                           fn, n, g->size);
    if (n > 0 && !ranks)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument ranks is NULL", fn);
    char *seen = calloc((size_t)g->size + 1, 1);
    if (!seen)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size) {
            free(seen);
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_RANK, "%s: invalid rank %d in ranks[%d] (group has %d members)",
                               fn, r, i, g->size);
        }
        if (seen[r]) {
            free(seen);
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_RANK, "%s: rank %d appears twice in argument ranks (ranks[%d])",
                               fn, r, i);
        }
        seen[r] = 1;
    }
    free(seen);
    return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Group_incl";
    int err;
    struct rch_mpi_group *g = check_group(fn, "group", group, &err);
    if (!g)
        return err;
    if (!newgroup)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument newgroup is NULL", fn);
    err = check_rank_list(fn, g, n, ranks);
    if (err)
        return err;
    int *w = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!w)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < n; i++)
        w[i] = g->world_of[ranks[i]];
    return give(fn, n, w, newgroup);
}
#pragma weak MPI_Group_incl = PMPI_Group_incl

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Group_excl";
    int err;
    struct rch_mpi_group *g = check_group(fn, "group", group, &err);
    if (!g)
        return err;
    if (!newgroup)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument newgroup is NULL", fn);
    err = check_rank_list(fn, g, n, ranks);
    if (err)
        return err;
    char *drop = calloc((size_t)g->size + 1, 1);
    int *w = malloc((size_t)(g->size - n + 1) * sizeof(int));
    if (!drop || !w) {
        free(drop);
        free(w);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int i = 0; i < n; i++)
        drop[ranks[i]] = 1;
    int k = 0;
    for (int r = 0; r < g->size; r++)
        if (!drop[r])
            w[k++] = g->world_of[r];
    free(drop);
    return give(fn, k, w, newgroup);
}
#pragma weak MPI_Group_excl = PMPI_Group_excl

/* Expands (first, last, stride) triplets into the rank list they name,
 * checking each rank and that none repeats. *out is malloc'd. */
static int expand_ranges(const char *fn, const struct rch_mpi_group *g, int n, int ranges[][3], int **out,
                         int *count)
{
    if (n < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: negative count %d in argument n", fn, n);
    if (n > 0 && !ranges)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument ranges is NULL", fn);
    char *seen = calloc((size_t)g->size + 1, 1);
    int *list = malloc(((size_t)g->size + 1) * sizeof(int));
    if (!seen || !list) {
        free(seen);
        free(list);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    int k = 0, err = MPI_SUCCESS;
    for (int i = 0; i < n && !err; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0) {
            err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: stride 0 in ranges[%d]", fn, i);
            break;
        }
        if (first < 0 || first >= g->size || last < 0 || last >= g->size) {
            err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_RANK,
                              "%s: ranges[%d] = (%d, %d, %d) names a rank outside the group (%d members)", fn, i,
                              first, last, stride, g->size);
            break;
        }
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            continue;                    /* MPI: an empty range */
        for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (seen[r]) {
                err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_RANK, "%s: rank %ld appears twice in argument ranges (ranges[%d])",
                                  fn, r, i);
                break;
            }
            seen[r] = 1;
            list[k++] = (int)r;
        }
    }
    free(seen);
    if (err) {
        free(list);
        return err;
    }
    *out = list;
    *count = k;
    return MPI_SUCCESS;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Group_range_incl";
    int err, *list, k;
    struct rch_mpi_group *g = check_group(fn, "group", group, &err);
    if (!g)
        return err;
    if (!newgroup)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument newgroup is NULL", fn);
    err = expand_ranges(fn, g, n, ranges, &list, &k);
    if (err)
        return err;
    for (int i = 0; i < k; i++)
        list[i] = g->world_of[list[i]];
    return give(fn, k, list, newgroup);
}
#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Group_range_excl";
    int err, *list, k;
    struct rch_mpi_group *g = check_group(fn, "group", group, &err);
    if (!g)
        return err;
    if (!newgroup)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument newgroup is NULL", fn);
    err = expand_ranges(fn, g, n, ranges, &list, &k);
    if (err)
        return err;
    char *drop = calloc((size_t)g->size + 1, 1);
    int *w = malloc((size_t)(g->size - k + 1) * sizeof(int));
    if (!drop || !w) {
        free(drop);
        free(w);
        free(list);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int i = 0; i < k; i++)
        drop[list[i]] = 1;
    free(list);
    int m = 0;
    for (int r = 0; r < g->size; r++)
        if (!drop[r])
            w[m++] = g->world_of[r];
    free(drop);
    return give(fn, m, w, newgroup);
}
#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl

/* ---- set operations ---- */

enum set_op { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int set_op(const char *fn, MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, enum set_op op)
{
    int err;
    struct rch_mpi_group *a = check_group(fn, "group1", group1, &err);
    if (!a)
        return err;
    struct rch_mpi_group *b = rch_mpi_group_get(group2);
    if (!b)
        return group_bad(fn, "group2", group2);
    if (!newgroup)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument newgroup is NULL", fn);
    int *in_b = inverse_map(b);
    int *w = malloc(((size_t)a->size + (size_t)b->size + 1) * sizeof(int));
    if (!in_b || !w) {
        free(in_b);
        free(w);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    int k = 0;
    /* The order MPI defines: group1's members first, in group1's order, then
     * (union only) group2's members not in group1, in group2's order. */
    for (int i = 0; i < a->size; i++) {
        int both = in_b[a->world_of[i]] >= 0;
        if (op == SET_UNION || (op == SET_INTERSECTION && both) || (op == SET_DIFFERENCE && !both))
            w[k++] = a->world_of[i];
    }
    if (op == SET_UNION) {
        int *in_a = in_b;                 /* reuse as group1's map */
        for (int x = 0; x < rch_dev_nprocs(); x++)
            in_a[x] = -1;
        for (int i = 0; i < a->size; i++)
            in_a[a->world_of[i]] = i;
        for (int i = 0; i < b->size; i++)
            if (in_a[b->world_of[i]] < 0)
                w[k++] = b->world_of[i];
    }
    free(in_b);
    return give(fn, k, w, newgroup);
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    RCH_MPI_CS();
    return set_op("MPI_Group_union", group1, group2, newgroup, SET_UNION);
}
#pragma weak MPI_Group_union = PMPI_Group_union

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    RCH_MPI_CS();
    return set_op("MPI_Group_intersection", group1, group2, newgroup, SET_INTERSECTION);
}
#pragma weak MPI_Group_intersection = PMPI_Group_intersection

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    RCH_MPI_CS();
    return set_op("MPI_Group_difference", group1, group2, newgroup, SET_DIFFERENCE);
}
#pragma weak MPI_Group_difference = PMPI_Group_difference
