/*
 * The collectives' per-communicator state (struct rch_coll_cstate): made
 * locally when the communicator is made, released when it is freed and the
 * last schedule running on it has finished.
 */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "coll/nbc_impl.h"
#include "coll/nodeseg.h"

rdmach_status_t rch_coll_comm_init(struct rch_coll_comm *c)
{
    struct rch_coll_cstate *cs = calloc(1, sizeof(*cs));
    size_t n = (size_t)c->size;
    if (!cs)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "collectives: no memory for a communicator's state");
    cs->world_of = malloc(n * sizeof(int));
    cs->node_of = c->node_of ? malloc(n * sizeof(int)) : NULL;
    if (!cs->world_of || (c->node_of && !cs->node_of)) {
        free(cs->world_of);
        free(cs->node_of);
        free(cs);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "collectives: no memory for a communicator's state");
    }
    memcpy(cs->world_of, c->world_of, n * sizeof(int));
    if (c->node_of)
        memcpy(cs->node_of, c->node_of, n * sizeof(int));
    cs->view = *c;
    cs->view.world_of = cs->world_of;
    cs->view.node_of = cs->node_of;
    cs->view.state = cs;
    cs->refs = 1;
    c->state = cs;
    return RDMACH_OK;
}

void rch_coll_cstate_release(struct rch_coll_cstate *cs)
{
    if (--cs->refs > 0)
        return;
    free(cs->world_of);
    free(cs->node_of);
    free(cs);
}

void rch_coll_comm_free(struct rch_coll_comm *c)
{
    struct rch_coll_cstate *cs = c->state;
    if (!cs)
        return;
    if (cs->bar) {
        cs->bar->finalize(cs->bar_state);
        cs->bar = NULL;
        cs->bar_state = NULL;
    }
    if (cs->nodeseg && !cs->nodeseg->failed && cs->nodeseg->pq_head)
        rch_coll_pshm_drain(cs->nodeseg);   /* runs started before the free end first */
    rch_coll_nodeseg_free(cs->nodeseg);
    cs->nodeseg = NULL;
    c->state = NULL;
    rch_coll_cstate_release(cs);
}
