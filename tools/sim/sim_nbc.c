/*
 * rdmach-sim's "nbc" algorithm: the library's non-blocking collectives
 * (src/coll/nbc_*.c) recorded as programs. For one rank the library's own
 * i-call builds its schedule; the recording device's progress then waits
 * for each round's sends and receives (WAIT ops) and lets the schedule's
 * progress hook post the next round, until the request completes. The
 * program is thus the schedule's rounds, as the library runs them when the
 * caller waits at once.
 *
 * One communicator state (rch_coll_comm_init copies the rank maps) serves
 * every rank of a job, its view's rank set per rank: a state per rank would
 * make recording p ranks cost p^2.
 */
#include "coll/coll_impl.h"
#include "coll/nbc.h"
#include "coll/nbc_impl.h"
#include "sim.h"

static struct rch_coll_comm shared;    /* its state's view is the running rank's */

int sim_nbc_has(int id)
{
    return id == RCH_COLL_BARRIER || id == RCH_COLL_BCAST || id == RCH_COLL_ALLREDUCE || id == RCH_COLL_ALLTOALL ||
           id == RCH_COLL_ALLGATHER || id == RCH_COLL_REDUCE_SCATTER;
}

static rdmach_status_t start(int id, const struct rch_coll_comm *c, const struct rch_coll_args *a,
                             struct rch_dev_req *req)
{
    switch (id) {
    case RCH_COLL_BARRIER: return rch_coll_ibarrier(c, req);
    case RCH_COLL_BCAST: return rch_coll_ibcast(c, a->rbuf, a->bytes, a->root, req);
    case RCH_COLL_ALLREDUCE: return rch_coll_iallreduce(c, a->sbuf, a->rbuf, a->count, a->op, req);
    case RCH_COLL_ALLTOALL: return rch_coll_ialltoall(c, a->sbuf, a->rbuf, a->bytes, req);
    case RCH_COLL_ALLGATHER: return rch_coll_iallgather(c, a->sbuf, a->rbuf, a->bytes, req);
    case RCH_COLL_REDUCE_SCATTER: return rch_coll_ireduce_scatter(c, a->sbuf, a->rbuf, a->counts, a->op, req);
    default: return rch_base_err(RDMACH_ERR_UNSUPPORTED, "rdmach-sim: no non-blocking %s", rch_coll_name((enum rch_coll_id)id));
    }
}

int sim_nbc_run(int id, const struct rch_coll_comm *view, const struct rch_coll_args *a)
{
    if (view->rank == 0 || !shared.state) {    /* a new job starts at its rank 0 */
        rch_coll_comm_free(&shared);
        shared = *view;
        shared.state = NULL;
        rdmach_status_t st = rch_coll_comm_init(&shared);
        if (st != RDMACH_OK)
            return st;
    }
    shared.rank = view->rank;
    shared.state->view.rank = view->rank;
    struct rch_dev_req *req = rch_dev_req_alloc(RCH_DEV_REQ_GREQ);
    if (!req)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "rdmach-sim: no request");
    sim_copy_watch(1);         /* the call's own copies, not the state made above */
    rdmach_status_t st = start(id, &shared, a, req);
    if (st == RDMACH_OK && (st = rch_dev_wait(req)) == RDMACH_OK)
        st = req->err;
    sim_copy_watch(0);
    rch_dev_req_free(req);
    return st;
}
