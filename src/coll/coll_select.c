/*
 * Algorithm selection: forced name (RDMACH_<COLL> or rch_coll_force), else
 * the tuning rows (a tuning file's, then the built-in table), else the
 * collective's fallback. Only properties that are the same on every rank
 * (communicator shape, message size as defined by msg_bytes, the operation,
 * the network profile) may steer the choice: ranks that chose differently
 * would not talk to each other. An algorithm may itself choose between
 * others by measuring (coll_adapt.c, through rch_coll_select_besides):
 * its ranks agree on each choice before they act on it. A communicator's
 * first calls do without its node segment (unless_young, COLL_SEG_AFTER).
 *
 * The key of a call (struct rch_coll_key): nodes the communicator spans,
 * most ranks on one node, its size, the message size and the network
 * profile (onload / offload, rch_coll_nic). RDMACH_COLL_VNODE_SIZE=k makes
 * the collectives see pretend nodes of k consecutive world ranks (layout and
 * key alike) while messages keep their real channels: the node-aware
 * algorithms can then be tested and studied on one machine.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "coll/coll_impl.h"
#include "coll/nbc_impl.h"

/* atomic: a failed rch_coll_init is tried again by each thread's collective */
static const struct rch_coll_algo *forced[RCH_COLL_ID_MAX];
/* the process's latest (atomic: threads may run collectives at once) and
 * this thread's (ranks that are threads, in tests, see their own) */
static const char *last_algo[RCH_COLL_ID_MAX];
static _Thread_local const char *my_last_algo[RCH_COLL_ID_MAX];
static int configured;
static enum rch_coll_nic nic_override;    /* rch_coll_set_nic; ANY: none */
/* from the tunable / device; ANY: not yet. Atomic: the first collective of
 * any thread resolves it */
static enum rch_coll_nic nic_resolved;

const struct rch_coll_algo *rch_coll_find_algo(enum rch_coll_id id, const char *name)
{
    const struct rch_coll_algo_list *l = rch_coll_algos(id);
    for (int i = 0; l && l->algos[i]; i++)   /* tuning rows hold the name pointer itself */
        if (l->algos[i]->name == name)
            return l->algos[i];
    for (int i = 0; l && l->algos[i]; i++)
        if (strcmp(l->algos[i]->name, name) == 0)
            return l->algos[i];
    return NULL;
}

enum rch_coll_id rch_coll_id_of(const char *name)
{
    for (int id = 0; id < RCH_COLL_ID_MAX; id++)
        if (strcmp(rch_coll_name((enum rch_coll_id)id), name) == 0)
            return (enum rch_coll_id)id;
    return RCH_COLL_ID_MAX;
}

static rdmach_status_t force(enum rch_coll_id id, const char *algo)
{
    const struct rch_coll_algo_list *l = rch_coll_algos(id);
    char names[256];
    size_t used = 0;
    if (!l)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rch_coll_force: no collective %d", (int)id);
    if (!algo || !algo[0] || strcmp(algo, "auto") == 0) {
        __atomic_store_n(&forced[id], NULL, __ATOMIC_RELAXED);
        return RDMACH_OK;
    }
    const struct rch_coll_algo *a = rch_coll_find_algo(id, algo);
    if (a) {
        __atomic_store_n(&forced[id], a, __ATOMIC_RELAXED);
        return RDMACH_OK;
    }
    names[0] = 0;
    for (int i = 0; l->algos[i] && used < sizeof(names); i++)
        used += (size_t)snprintf(names + used, sizeof(names) - used, "%s|", l->algos[i]->name);
    return rch_base_err(RDMACH_ERR_CONFIG, "%s: '%s' is not an algorithm of %s; accepted: %sauto",
                        l->coll, algo, l->coll, names);
}

rdmach_status_t rch_coll_force(enum rch_coll_id id, const char *algo)
{
    rdmach_status_t st = rch_coll_init();   /* the environment first, then this call */
    return st != RDMACH_OK ? st : force(id, algo);
}

/* The RDMACH_<COLL> row of a collective ("reduce_scatter" -> REDUCE_SCATTER). */
static const struct rch_tun_row *tunable_of(enum rch_coll_id id)
{
    char upper[64];
    const char *name = rch_coll_name(id);
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof(upper); i++)
        upper[i] = (char)toupper((unsigned char)name[i]);
    upper[i] = 0;
    const struct rch_tun_row *row = rch_base_tun_find(upper);
    return row && row->type == RCH_TUN_STRING ? row : NULL;
}

rdmach_status_t rch_coll_init(void)
{
    if (configured)
        return RDMACH_OK;
    for (int id = 0; id < RCH_COLL_ID_MAX; id++) {
        /* RDMACH_BARRIER belongs to the barrier framework (its backends) */
        const struct rch_tun_row *row = id == RCH_COLL_BARRIER ? NULL
                                        : tunable_of((enum rch_coll_id)id);
        if (!row)
            continue;
        const char *value = (const char *)&rch_tun + row->offset;
        if (force((enum rch_coll_id)id, value) != RDMACH_OK) {
            char why[384];
            snprintf(why, sizeof(why), "%s", rdmach_last_error());
            return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_%s=%s: %s", row->name, value, why);
        }
    }
    if (rch_tun.tuning_file[0]) {
        rdmach_status_t st = rch_coll_load_tuning(rch_tun.tuning_file);
        if (st != RDMACH_OK)
            return st;
    }
    configured = 1;
    return RDMACH_OK;
}

const char *rch_coll_last_algo(enum rch_coll_id id)
{
    if ((unsigned)id >= RCH_COLL_ID_MAX)
        return "";
    const char *name = my_last_algo[id];
    if (!name)
        name = __atomic_load_n(&last_algo[id], __ATOMIC_RELAXED);
    return name ? name : "";
}

/* ---- the network profile ---- */

const char *rch_coll_nic_name(enum rch_coll_nic nic)
{
    switch (nic) {
    case RCH_COLL_NIC_ONLOAD: return "onload";
    case RCH_COLL_NIC_OFFLOAD: return "offload";
    default: return "any";
    }
}

void rch_coll_set_nic(enum rch_coll_nic nic)
{
    nic_override = nic;
}

enum rch_coll_nic rch_coll_nic(void)
{
    if (nic_override != RCH_COLL_NIC_ANY)
        return nic_override;
    enum rch_coll_nic nic = __atomic_load_n(&nic_resolved, __ATOMIC_RELAXED);
    if (nic == RCH_COLL_NIC_ANY) {
        int dev = -1;
        if (rch_tun.nic_profile == RCH_NIC_ONLOAD) {
            nic = RCH_COLL_NIC_ONLOAD;
        } else if (rch_tun.nic_profile == RCH_NIC_OFFLOAD) {
            nic = RCH_COLL_NIC_OFFLOAD;
        } else {
            dev = rch_dev_net_onload();
            nic = dev == 0 ? RCH_COLL_NIC_OFFLOAD : RCH_COLL_NIC_ONLOAD;
        }
        RCH_DEBUG("coll", "network profile %s (%s)", rch_coll_nic_name(nic),
                  rch_tun.nic_profile != RCH_NIC_AUTO ? "RDMACH_NIC_PROFILE"
                  : dev < 0 ? "no channel reaches another node" : "the network channel's caps");
        __atomic_store_n(&nic_resolved, nic, __ATOMIC_RELAXED);   /* the same in every thread */
    }
    return nic;
}

/* ---- the layout the collectives see ---- */

/*
 * With RDMACH_COLL_VNODE_SIZE = k: a copy of the view whose nodes are
 * world_rank / k, numbered densely in order of first appearance. *mem (owned
 * by the caller, free()) holds its node_of; NULL when the view is used as is.
 */
static rdmach_status_t layout(const struct rch_coll_comm *c, struct rch_coll_comm *view, int **mem)
{
    int k = rch_tun.coll_vnode_size, p = c->size, maxw = 0;
    *view = *c;
    *mem = NULL;
    if (k <= 0)
        return RDMACH_OK;
    for (int r = 0; r < p; r++)
        if (c->world_of[r] > maxw)
            maxw = c->world_of[r];
    int nraw = maxw / k + 1;
    int *m = malloc(((size_t)p + 2 * (size_t)nraw) * sizeof(int));
    if (!m)
        return rch_base_err(RDMACH_ERR_NO_MEMORY,
                            "collectives: no memory for the layout of %d ranks", p);
    int *dense = m + p, *ppn = dense + nraw;
    for (int i = 0; i < nraw; i++) {
        dense[i] = -1;
        ppn[i] = 0;
    }
    view->nnodes = 0;
    view->max_ppn = 0;
    for (int r = 0; r < p; r++) {
        int raw = c->world_of[r] / k;
        if (dense[raw] < 0)
            dense[raw] = view->nnodes++;
        m[r] = dense[raw];
        if (++ppn[raw] > view->max_ppn)
            view->max_ppn = ppn[raw];
    }
    view->node_of = m;
    *mem = m;
    return RDMACH_OK;
}

void rch_coll_shape(const struct rch_coll_comm *c, int *nodes, int *ppn)
{
    struct rch_coll_comm v;
    int *mem = NULL;
    if (layout(c, &v, &mem) != RDMACH_OK)
        v = *c;
    *nodes = v.nnodes > 0 && v.node_of ? v.nnodes : 1;
    *ppn = v.nnodes > 0 && v.node_of ? v.max_ppn : v.size;
    free(mem);
}

/* ---- selection ---- */

/* The message size that keys the tuning table: identical on every rank. */
size_t rch_coll_msg_bytes(enum rch_coll_id id, const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    size_t sum = 0;
    switch (id) {
    case RCH_COLL_BCAST:
    case RCH_COLL_GATHER:
    case RCH_COLL_SCATTER:
    case RCH_COLL_ALLGATHER:
    case RCH_COLL_ALLTOALL:
        return a->bytes;
    case RCH_COLL_REDUCE:
    case RCH_COLL_ALLREDUCE:
    case RCH_COLL_SCAN:
    case RCH_COLL_EXSCAN:
        return a->count * a->op->elem_size;
    case RCH_COLL_ALLGATHERV:
        for (int i = 0; i < c->size; i++)
            sum += a->rcounts[i];
        return sum / (size_t)c->size;
    case RCH_COLL_REDUCE_SCATTER:
        for (int i = 0; i < c->size; i++)
            sum += a->counts[i];
        return sum * a->op->elem_size;
    default:   /* barrier; gatherv, scatterv, alltoallv: sizes differ per rank */
        return 0;
    }
}

static int in_range(const struct rch_coll_range *r, unsigned long long v)
{
    return v >= r->lo && v <= r->hi;
}

int rch_coll_tuning_match(const struct rch_coll_tuning_row *r, enum rch_coll_id id,
                          const struct rch_coll_key *k)
{
    return r->coll == id && (r->nic == RCH_COLL_NIC_ANY || r->nic == k->nic) &&
           in_range(&r->nodes, (unsigned long long)k->nodes) &&
           in_range(&r->ppn, (unsigned long long)k->ppn) &&
           in_range(&r->size, (unsigned long long)k->size) &&
           in_range(&r->bytes, (unsigned long long)k->bytes);
}

static int skipped(const struct rch_coll_algo *algo, const struct rch_coll_algo *const *skip)
{
    for (int i = 0; skip && skip[i]; i++)
        if (skip[i] == algo)
            return 1;
    return 0;
}

static const struct rch_coll_algo *from_rows(const struct rch_coll_tuning_row *rows, size_t nrows,
                                             enum rch_coll_id id, const struct rch_coll_key *k,
                                             const struct rch_coll_comm *c,
                                             const struct rch_coll_args *a,
                                             const struct rch_coll_algo *const *skip, int no_seg)
{
    for (size_t i = 0; i < nrows; i++) {
        if (!rch_coll_tuning_match(&rows[i], id, k))
            continue;
        const struct rch_coll_algo *algo = rch_coll_find_algo(id, rows[i].algo);
        if (algo && !skipped(algo, skip) && !(no_seg && algo->nodeseg) && algo->applies(c, a))
            return algo;
    }
    return NULL;
}

/* The tuning rows' choice (a file's rows first), passing over `skip` and,
 * with no_seg, the algorithms that work in the node segment; else the
 * fallback (never one of those). */
static const struct rch_coll_algo *select_rows(enum rch_coll_id id, const struct rch_coll_comm *c,
                                               const struct rch_coll_args *a,
                                               const struct rch_coll_algo *const *skip, int no_seg)
{
    const struct rch_coll_tuning_row *rows;
    const struct rch_coll_algo *algo;
    size_t nrows;
    struct rch_coll_key k = {
        .nodes = c->nnodes > 0 && c->node_of ? c->nnodes : 1,
        .ppn = c->nnodes > 0 && c->node_of ? c->max_ppn : c->size,
        .size = c->size,
        .bytes = rch_coll_msg_bytes(id, c, a),
        .nic = rch_coll_nic(),
    };
    rows = rch_coll_tuning_loaded(&nrows);
    if ((algo = from_rows(rows, nrows, id, &k, c, a, skip, no_seg)) != NULL)
        return algo;
    rows = rch_coll_tuning(&nrows);
    if ((algo = from_rows(rows, nrows, id, &k, c, a, skip, no_seg)) != NULL)
        return algo;
    return rch_coll_algos(id)->fallback;
}

const struct rch_coll_algo *rch_coll_select_besides(enum rch_coll_id id, const struct rch_coll_comm *c,
                                                    const struct rch_coll_args *a,
                                                    const struct rch_coll_algo *const *skip)
{
    return select_rows(id, c, a, skip, 0);
}

void rch_coll_note_ran(enum rch_coll_id id, const char *name)
{
    if ((unsigned)id >= RCH_COLL_ID_MAX)
        return;
    my_last_algo[id] = name;
    __atomic_store_n(&last_algo[id], name, __ATOMIC_RELAXED);
}

/* A communicator's first COLL_SEG_AFTER calls whose choice would set up its
 * node segment take the best choice without it. The count is the same on
 * every rank: these calls are the ones whose choice (by the properties
 * above) fell on a segment algorithm, and the segment, once made, is made
 * on every rank in the same call. */
static const struct rch_coll_algo *unless_young(enum rch_coll_id id, const struct rch_coll_comm *c,
                                                const struct rch_coll_args *a, const struct rch_coll_algo *algo)
{
    struct rch_coll_cstate *cs = c->state;
    if (!cs || cs->nodeseg || c->size < 2 || cs->seg_deferred >= (uint32_t)rch_tun.coll_seg_after)
        return algo;
    cs->seg_deferred++;
    return select_rows(id, c, a, NULL, 1);
}

static const struct rch_coll_algo *select_algo(enum rch_coll_id id, const struct rch_coll_comm *c,
                                               const struct rch_coll_args *a)
{
    const struct rch_coll_algo *f = __atomic_load_n(&forced[id], __ATOMIC_RELAXED);
    if (f) {
        if (f->applies(c, a))
            return f;
        RCH_DEBUG("coll", "%s: forced algorithm %s does not apply here; selecting",
                  rch_coll_algos(id)->coll, f->name);
    }
    const struct rch_coll_algo *algo = rch_coll_select_besides(id, c, a, NULL);
    return algo->nodeseg ? unless_young(id, c, a, algo) : algo;
}

rdmach_status_t rch_coll_run(enum rch_coll_id id, const struct rch_coll_comm *c,
                             const struct rch_coll_args *a)
{
    struct rch_coll_comm view;
    int *mem;
    rdmach_status_t st = rch_coll_init();
    if (st == RDMACH_OK)
        st = layout(c, &view, &mem);
    if (st != RDMACH_OK)
        return st;
    const struct rch_coll_algo *algo = select_algo(id, &view, a);
    rch_coll_note_ran(id, algo->name);
    st = algo->run(&view, a);
    free(mem);
    return st;
}
