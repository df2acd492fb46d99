/*
 * MPI-4.1's MPI_Request_get_status_any, _all and _some (MPI-4.1 3.7.5):
 * MPI_Testany/Testall/Testsome that leave every request as it is (nothing is
 * freed or made inactive; its error is reported again by its Wait/Test),
 * built on MPI_Request_get_status. A null or inactive request counts as not
 * active: with no active request, _any gives flag = 1 and index
 * MPI_UNDEFINED, _some outcount MPI_UNDEFINED. Every handle is checked
 * before any is queried, so an invalid one fails the call with nothing
 * reported.
 */
#include <string.h>
#include "mpi/mpi_impl.h"

static int inactive(MPI_Request h)
{
    const struct rch_mpi_req *e = rch_mpi_req_get(h);
    return e ? e->pstate == RCH_MPI_PS_INACTIVE : h == MPI_REQUEST_NULL;
}

static int check(const char *fn, int count, const MPI_Request reqs[], const void *out, const char *outname)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (count < 0)   /* the _some call, whose output is outcount, calls its count incount */
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: invalid count %d in argument %s", fn, count,
                           strcmp(outname, "outcount") ? "count" : "incount");
    if (count > 0 && !reqs)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument array_of_requests is NULL", fn);
    if (!out)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn, outname);
    for (int i = 0; i < count; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !rch_mpi_req_get(reqs[i]) && reqs[i] != RCH_MPI_REQ_DONE_SEND &&
            reqs[i] != RCH_MPI_REQ_DONE_NULL)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "%s: invalid request 0x%x in argument "
                               "array_of_requests[%d]", fn, (unsigned)reqs[i], i);
    return MPI_SUCCESS;
}

int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index, int *flag,
                                MPI_Status *status)
{
    const char *fn = "MPI_Request_get_status_any";
    int err = check(fn, count, array_of_requests, index, "index");
    if (err || (err = check(fn, 0, NULL, flag, "flag")))
        return err;
    int active = 0;
    *flag = 0;
    *index = MPI_UNDEFINED;
    for (int i = 0; i < count; i++) {
        if (inactive(array_of_requests[i]))
            continue;
        active = 1;
        int done = 0;
        if ((err = PMPI_Request_get_status(array_of_requests[i], &done, status)))
            return err;
        if (done) {
            *flag = 1;
            *index = i;
            return MPI_SUCCESS;
        }
    }
    if (!active) {
        *flag = 1;
        rch_mpi_status_empty(status);
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Request_get_status_any = PMPI_Request_get_status_any

int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status *array_of_statuses)
{
    const char *fn = "MPI_Request_get_status_all";
    int err = check(fn, count, array_of_requests, flag, "flag");
    if (err)
        return err;
    *flag = 1;
    for (int i = 0; i < count && *flag; i++) {
        MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[i];
        if ((err = PMPI_Request_get_status(array_of_requests[i], flag, st)))
            return err;
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Request_get_status_all = PMPI_Request_get_status_all

int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status *array_of_statuses)
{
    const char *fn = "MPI_Request_get_status_some";
    int err = check(fn, incount, array_of_requests, outcount, "outcount");
    if (err || (err = check(fn, 0, NULL, incount > 0 ? (void *)array_of_indices : (void *)outcount,
                            "array_of_indices")))
        return err;
    int active = 0, n = 0;
    for (int i = 0; i < incount; i++) {
        if (inactive(array_of_requests[i]))
            continue;
        active = 1;
        int done = 0;
        MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[n];
        if ((err = PMPI_Request_get_status(array_of_requests[i], &done, st)))
            return err;
        if (done)
            array_of_indices[n++] = i;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Request_get_status_some = PMPI_Request_get_status_some
