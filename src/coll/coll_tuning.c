/*
 * The built-in tuning table: which algorithm a collective uses for a
 * communicator shape (nodes × ranks per node, size) and a message size.
 * Rows are read in order; the first row of the collective whose bounds all
 * contain the call wins (0: unbounded). A row naming an algorithm that does
 * not apply to the call (allgather recdbl on a non-power of two) is passed
 * over; with no row left, the collective's fallback runs. Collectives with a
 * single algorithm have no rows.
 *
 * The message size of a call (coll_select.c, msg_bytes) is the same on
 * every rank, so every rank picks the same algorithm.
 *
 * The figures are first estimates for shared memory on one node; the
 * tuning tool of the collectives work replaces them with measurements
 * (RDMACH_TUNING_FILE).
 */
#include "coll/coll_impl.h"

#define KiB ((size_t)1024)

static const struct rch_coll_tuning_row rows[] = {
    /* coll                  nodes ppn size  bytes      algorithm */
    { RCH_COLL_ALLREDUCE,      0,   0,   0,  0,         "recdbl" },
    { RCH_COLL_GATHER,         0,   0,   0,  16 * KiB,  "binomial" },
    { RCH_COLL_GATHER,         0,   0,   0,  0,         "linear" },
    { RCH_COLL_SCATTER,        0,   0,   0,  16 * KiB,  "binomial" },
    { RCH_COLL_SCATTER,        0,   0,   0,  0,         "linear" },
    { RCH_COLL_ALLGATHER,      0,   0,   0,  64 * KiB,  "recdbl" },
    { RCH_COLL_ALLGATHER,      0,   0,   0,  0,         "ring" },
    { RCH_COLL_REDUCE_SCATTER, 0,   0,   0,  0,         "pairwise" },
};

const struct rch_coll_tuning_row *rch_coll_tuning(size_t *nrows)
{
    *nrows = sizeof(rows) / sizeof(rows[0]);
    return rows;
}
