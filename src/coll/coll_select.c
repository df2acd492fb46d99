/*
 * Algorithm selection: forced name (RDMACH_<COLL> or rch_coll_force), else
 * the tuning table, else the collective's fallback. Only properties that are
 * the same on every rank (communicator shape, message size as defined by
 * msg_bytes, the operation) may steer the choice: ranks that chose
 * differently would not talk to each other.
 */
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "coll/coll_impl.h"

static const struct rch_coll_algo *forced[RCH_COLL_ID_MAX];
static const char *last_algo[RCH_COLL_ID_MAX];

static const struct rch_coll_algo *find(enum rch_coll_id id, const char *name)
{
    const struct rch_coll_algo_list *l = rch_coll_algos(id);
    for (int i = 0; l->algos[i]; i++)
        if (strcmp(l->algos[i]->name, name) == 0)
            return l->algos[i];
    return NULL;
}

rdmach_status_t rch_coll_force(enum rch_coll_id id, const char *algo)
{
    const struct rch_coll_algo_list *l = rch_coll_algos(id);
    char names[256];
    size_t used = 0;
    if (!l)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rch_coll_force: no collective %d", (int)id);
    if (!algo || !algo[0] || strcmp(algo, "auto") == 0) {
        forced[id] = NULL;
        return RDMACH_OK;
    }
    const struct rch_coll_algo *a = find(id, algo);
    if (a) {
        forced[id] = a;
        return RDMACH_OK;
    }
    names[0] = 0;
    for (int i = 0; l->algos[i] && used < sizeof(names); i++)
        used += (size_t)snprintf(names + used, sizeof(names) - used, "%s|", l->algos[i]->name);
    return rch_base_err(RDMACH_ERR_CONFIG, "%s: '%s' is not an algorithm of %s; accepted: %sauto",
                        l->coll, algo, l->coll, names);
}

const char *rch_coll_last_algo(enum rch_coll_id id)
{
    if ((unsigned)id >= RCH_COLL_ID_MAX || !last_algo[id])
        return "";
    return last_algo[id];
}

/* The message size that keys the tuning table: identical on every rank. */
static size_t msg_bytes(enum rch_coll_id id, const struct rch_coll_comm *c,
                        const struct rch_coll_args *a)
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

static int within(long long bound, long long v)
{
    return bound == 0 || v <= bound;
}

static const struct rch_coll_algo *select_algo(enum rch_coll_id id, const struct rch_coll_comm *c,
                                               const struct rch_coll_args *a)
{
    const struct rch_coll_algo_list *l = rch_coll_algos(id);
    const struct rch_coll_tuning_row *rows;
    size_t nrows, bytes;
    int nnodes = c->nnodes > 0 ? c->nnodes : 1;
    int ppn = c->nnodes > 0 ? c->max_ppn : c->size;

    if (forced[id]) {
        if (forced[id]->applies(c, a))
            return forced[id];
        RCH_DEBUG("coll", "%s: forced algorithm %s does not apply here; selecting", l->coll,
                  forced[id]->name);
    }
    bytes = msg_bytes(id, c, a);
    rows = rch_coll_tuning(&nrows);
    for (size_t i = 0; i < nrows; i++) {
        const struct rch_coll_tuning_row *r = &rows[i];
        if (r->coll != id || !within(r->max_nodes, nnodes) || !within(r->max_ppn, ppn) ||
            !within(r->max_size, c->size) || !within((long long)r->max_bytes, (long long)bytes))
            continue;
        const struct rch_coll_algo *algo = find(id, r->algo);
        if (algo && algo->applies(c, a))
            return algo;
    }
    return l->fallback;
}

rdmach_status_t rch_coll_run(enum rch_coll_id id, const struct rch_coll_comm *c,
                             const struct rch_coll_args *a)
{
    const struct rch_coll_algo *algo = select_algo(id, c, a);
    last_algo[id] = algo->name;
    return algo->run(c, a);
}
