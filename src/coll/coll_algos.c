/*
 * The one place that lists every collective's algorithms. Selection
 * (coll_select.c) looks names up here; the fallback of each collective
 * applies to every call.
 */
#include "coll/coll_impl.h"

static const struct rch_coll_algo *const barrier_algos[] = {
    &rch_coll_barrier_dissemination, NULL };
static const struct rch_coll_algo *const bcast_algos[] = {
    &rch_coll_bcast_binomial, &rch_coll_bcast_shmseg, &rch_coll_bcast_adapt, NULL };
static const struct rch_coll_algo *const reduce_algos[] = {
    &rch_coll_reduce_binomial, NULL };
static const struct rch_coll_algo *const allreduce_algos[] = {
    &rch_coll_allreduce_recdbl, &rch_coll_allreduce_reduce_bcast, &rch_coll_allreduce_shmseg,
    &rch_coll_allreduce_shmrsag, NULL };
static const struct rch_coll_algo *const gather_algos[] = {
    &rch_coll_gather_binomial, &rch_coll_gather_linear, NULL };
static const struct rch_coll_algo *const gatherv_algos[] = {
    &rch_coll_gatherv_linear, NULL };
static const struct rch_coll_algo *const scatter_algos[] = {
    &rch_coll_scatter_binomial, &rch_coll_scatter_linear, NULL };
static const struct rch_coll_algo *const scatterv_algos[] = {
    &rch_coll_scatterv_linear, NULL };
static const struct rch_coll_algo *const allgather_algos[] = {
    &rch_coll_allgather_recdbl, &rch_coll_allgather_ring, &rch_coll_allgather_shmseg,
    &rch_coll_allgather_adapt, NULL };
static const struct rch_coll_algo *const allgatherv_algos[] = {
    &rch_coll_allgatherv_ring, &rch_coll_allgatherv_shmseg, &rch_coll_allgatherv_adapt, NULL };
static const struct rch_coll_algo *const alltoall_algos[] = {
    &rch_coll_alltoall_pairwise, &rch_coll_alltoall_bruck, &rch_coll_alltoall_linear,
    &rch_coll_alltoall_leader, &rch_coll_alltoall_coreparallel, &rch_coll_alltoall_shmseg,
    &rch_coll_alltoall_adapt, NULL };
static const struct rch_coll_algo *const alltoallv_algos[] = {
    &rch_coll_alltoallv_pairwise, &rch_coll_alltoallv_linear, &rch_coll_alltoallv_leader,
    &rch_coll_alltoallv_coreparallel, NULL };
static const struct rch_coll_algo *const reduce_scatter_algos[] = {
    &rch_coll_reduce_scatter_pairwise, &rch_coll_reduce_scatter_reduce_scatterv,
    &rch_coll_reduce_scatter_shmseg, &rch_coll_reduce_scatter_adapt, NULL };
static const struct rch_coll_algo *const scan_algos[] = {
    &rch_coll_scan_recdbl, NULL };
static const struct rch_coll_algo *const exscan_algos[] = {
    &rch_coll_exscan_recdbl, NULL };

static const struct rch_coll_algo_list lists[RCH_COLL_ID_MAX] = {
    [RCH_COLL_BARRIER] = { "barrier", barrier_algos, &rch_coll_barrier_dissemination },
    [RCH_COLL_BCAST] = { "bcast", bcast_algos, &rch_coll_bcast_binomial },
    [RCH_COLL_REDUCE] = { "reduce", reduce_algos, &rch_coll_reduce_binomial },
    [RCH_COLL_ALLREDUCE] = { "allreduce", allreduce_algos, &rch_coll_allreduce_recdbl },
    [RCH_COLL_GATHER] = { "gather", gather_algos, &rch_coll_gather_linear },
    [RCH_COLL_GATHERV] = { "gatherv", gatherv_algos, &rch_coll_gatherv_linear },
    [RCH_COLL_SCATTER] = { "scatter", scatter_algos, &rch_coll_scatter_linear },
    [RCH_COLL_SCATTERV] = { "scatterv", scatterv_algos, &rch_coll_scatterv_linear },
    [RCH_COLL_ALLGATHER] = { "allgather", allgather_algos, &rch_coll_allgather_ring },
    [RCH_COLL_ALLGATHERV] = { "allgatherv", allgatherv_algos, &rch_coll_allgatherv_ring },
    [RCH_COLL_ALLTOALL] = { "alltoall", alltoall_algos, &rch_coll_alltoall_pairwise },
    [RCH_COLL_ALLTOALLV] = { "alltoallv", alltoallv_algos, &rch_coll_alltoallv_pairwise },
    [RCH_COLL_REDUCE_SCATTER] = { "reduce_scatter", reduce_scatter_algos,
                                  &rch_coll_reduce_scatter_reduce_scatterv },
    [RCH_COLL_SCAN] = { "scan", scan_algos, &rch_coll_scan_recdbl },
    [RCH_COLL_EXSCAN] = { "exscan", exscan_algos, &rch_coll_exscan_recdbl },
};

const struct rch_coll_algo_list *rch_coll_algos(enum rch_coll_id id)
{
    if ((unsigned)id >= RCH_COLL_ID_MAX)
        return NULL;
    return &lists[id];
}

const char *rch_coll_name(enum rch_coll_id id)
{
    const struct rch_coll_algo_list *l = rch_coll_algos(id);
    return l ? l->coll : "unknown";
}

int rch_coll_algo_count(enum rch_coll_id id)
{
    const struct rch_coll_algo_list *l = rch_coll_algos(id);
    int n = 0;
    if (l)
        while (l->algos[n])
            n++;
    return n;
}

const char *rch_coll_algo_name(enum rch_coll_id id, int i)
{
    if (i < 0 || i >= rch_coll_algo_count(id))
        return NULL;
    return rch_coll_algos(id)->algos[i]->name;
}
