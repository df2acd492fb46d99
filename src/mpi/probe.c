/*
 * Probe and Iprobe: is a matching message waiting in the device's
 * unexpected queue? The status gives its source, tag and size; a receive
 * with the same source, tag and communicator then gets this message
 * (non-overtaking).
 */
#include "mpi/mpi_impl.h"

struct probe_arg {
    int source, tag;
    uint32_t ctx;
    int found, out_source, out_tag;
    size_t out_bytes;
    rdmach_status_t st;
};

static int probe_once(void *arg)
{
    struct probe_arg *a = arg;
    a->st = rch_dev_iprobe(a->source, a->tag, a->ctx, &a->found, &a->out_source, &a->out_tag, &a->out_bytes);
    return a->found || a->st != RDMACH_OK;
}

static void probe_status(const struct probe_arg *a, MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE)
        rch_mpi_status_set(status, a->out_source, a->out_tag, a->out_bytes, 0);
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *c;
    int err = rch_mpi_check_peer("MPI_Iprobe", comm, source, tag, 1, &c);
    if (err)
        return err;
    if (!flag)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Iprobe: argument flag is NULL");
    if (!status)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Iprobe: argument status is NULL");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        rch_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    struct probe_arg a = { .source = source, .tag = tag, .ctx = c->ctx };
    if (!probe_once(&a)) {
        rch_dev_progress();
        probe_once(&a);
    }
    if (a.st != RDMACH_OK)
        return rch_mpi_dev_error("MPI_Iprobe", comm, a.st);
    *flag = a.found;
    if (a.found)
        probe_status(&a, status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Iprobe = PMPI_Iprobe

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *c;
    int err = rch_mpi_check_peer("MPI_Probe", comm, source, tag, 1, &c);
    if (err)
        return err;
    if (!status)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Probe: argument status is NULL");
    if (source == MPI_PROC_NULL) {
        rch_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    struct probe_arg a = { .source = source, .tag = tag, .ctx = c->ctx };
    if (!probe_once(&a)) {
        rdmach_status_t st = rch_dev_wait_until(probe_once, &a);
        if (st != RDMACH_OK)
            return rch_mpi_dev_error("MPI_Probe", comm, st);
    }
    if (a.st != RDMACH_OK)
        return rch_mpi_dev_error("MPI_Probe", comm, a.st);
    probe_status(&a, status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Probe = PMPI_Probe
