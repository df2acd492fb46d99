/*
 * The library's path per collective call, one figure per collective.
 *
 * `call` (an MPI_Allreduce on MPI_COMM_SELF) is allreduce's path: binding,
 * argument checks, the copy of the send buffer, dispatch. A barrier or a
 * bcast takes another (no buffer, no operation), and on MPI_COMM_SELF they
 * return before the path a 2-rank call runs, so they cannot be timed there.
 * rdmach-sim-probe times instead 1000 back-to-back calls of each on its 2
 * ranks with the smallest message (`callc COLL ALGO BYTES NS`, the
 * algorithm the library ran), and the fit subtracts what the engine
 * predicts for that same loop with no call cost: what is left is the
 * library's own CPU per call (messages, receives and copies are the
 * engine's already). A figure below the prediction gives 0.
 */
#include <stdio.h>
#include <string.h>
#include "coll/coll.h"
#include "sim.h"

const char *const sim_callc_names[SIM_CALLC] = { "barrier", "bcast", "allreduce", "alltoall" };

int sim_callc_index(int coll_id)
{
    switch (coll_id) {
    case RCH_COLL_BARRIER: return 0;
    case RCH_COLL_BCAST: return 1;
    case RCH_COLL_ALLREDUCE: return 2;
    case RCH_COLL_ALLTOALL: return 3;
    default: return -1;
    }
}

int sim_callc_fit(struct sim_params *p, const char *const algo[SIM_CALLC], const double bytes[SIM_CALLC],
                  const double ns[SIM_CALLC], char *err, size_t len)
{
    enum { LOOP = 100 };   /* the probe's loop in steady state; its barrier before it spread over the calls */
    struct sim_params q = *p;
    q.call = q.icall = 0;
    for (int i = 0; i < SIM_CALLC; i++)
        q.callc[i] = 0;
    for (int i = 0; i < SIM_CALLC; i++) {
        if (ns[i] < 0)
            continue;
        double pred;
        if (sim_predict(sim_callc_names[i], algo[i], 2, 2, 2, (long)bytes[i], LOOP, &q, &pred, err, len) != 0)
            return -1;
        p->callc[i] = ns[i] > pred ? ns[i] - pred : 0;
    }
    return 0;
}
