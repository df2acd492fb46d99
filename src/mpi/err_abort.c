/*
 * MPI_ERRORS_ABORT (MPI-4.1 9.3): an error raised on a communicator aborts
 * the processes of that communicator (both groups of an intercommunicator),
 * on a window those of its group, on a session (or MPI_SESSION_NULL) the
 * calling process only; MPI_ERRORS_ARE_FATAL ends every process of the job.
 *
 * Only the launcher can end other processes: the job ranks are handed to
 * the boot layer (rch_boot_abort_ranks), which asks the process manager to
 * end those ranks alone. rdmachrun does (tools/run_pmi.c: the others keep
 * running, the job's exit status is the abort's code); under PMIx they are
 * PMIx_Abort's proc array, which the server may honour (Open MPI 4.1's and
 * Slurm's end the whole job regardless); Hydra's PMI-1 abort ignores the
 * list and PMI-2 has none: the whole job ends (docs/ARCHITECTURE.md). A
 * process of another job (connected or spawned: a world rank beyond this
 * job's) cannot be reached through our launcher and is left running.
 */
#include <stdlib.h>
#include "boot/boot.h"
#include "mpi/mpi_impl.h"
#include "mpi/win_impl.h"

/* The members of c (and of its remote group) that are ranks of this job. */
static int job_members(const struct rch_mpi_comm *c, int *out)
{
    int n = 0, jsize = rch_mpi_comm_world.size;
    for (int i = 0; i < c->size; i++)
        if (c->world_of[i] < jsize)
            out[n++] = c->world_of[i];
    for (int i = 0; c->is_inter && i < c->peer_size; i++)
        if (c->peer_world_of[i] < jsize)
            out[n++] = c->peer_world_of[i];
    return n;
}

void rch_mpi_abort_scope(int handle, int code, const char *text)
{
    const struct rch_mpi_comm *c = NULL;
    if (RCH_MPI_HOBJ(handle) == RCH_MPI_OBJ_SESSION) {
        int me = rch_mpi_comm_world.rank;
        rch_boot_abort_ranks(code, text, &me, 1);
    }
    if (RCH_MPI_HOBJ(handle) == RCH_MPI_OBJ_COMM)
        c = rch_mpi_comm_get(handle);
    else if (RCH_MPI_HOBJ(handle) == RCH_MPI_OBJ_WIN && rch_mpi_win_get(handle))
        c = rch_mpi_win_get(handle)->c;
    int *ranks = c ? malloc(sizeof(int) * (size_t)(c->size + (c->is_inter ? c->peer_size : 0))) : NULL;
    if (!ranks)
        rch_boot_abort(code, text);
    rch_boot_abort_ranks(code, text, ranks, job_members(c, ranks));
}
