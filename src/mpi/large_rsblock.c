/*
 * MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c and
 * MPI_Reduce_scatter_block_init_c (large=defined).
 *
 * A recvcount that fits an int goes to the int form, which takes a vector
 * of recvcount x group size beyond INT_MAX elements as it is (src/coll's
 * size_t counts on an intracommunicator, chunks on an intercommunicator:
 * intercoll_big.c). A larger one cannot become one element of a
 * contiguous type, as the generated forms' counts do: on an
 * intercommunicator the other group, whose recvcount may fit an int, cuts
 * the vector by its total in basic elements of the signature, so this
 * group must count the same elements. It runs as MPI_Reduce_scatter_c
 * with recvcount at every rank (rch_mpi_reduce_scatter_c and its I and
 * _init forms), which on either kind of communicator moves the same bytes
 * in the same protocol as the int form of the same total.
 */
#include <limits.h>
#include <stdlib.h>
#include "mpi/coll_bind.h"
#include "mpi/coll_nb.h"
#include "mpi/large.h"

/* How the call runs, as in large_nbv.c. */
enum form { BLOCKING, NONBLOCKING, PERSISTENT };

static int rsblock(const char *fn, enum form f, const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    if (recvcount >= INT_MIN && recvcount <= INT_MAX) {   /* a negative one: the int form names it */
        int rc = (int)recvcount;
        return f == BLOCKING    ? PMPI_Reduce_scatter_block(sendbuf, recvbuf, rc, datatype, op, comm)
               : f == PERSISTENT ? PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, rc, datatype, op, comm, info,
                                                                  request)
                                 : PMPI_Ireduce_scatter_block(sendbuf, recvbuf, rc, datatype, op, comm, request);
    }
    struct rch_mpi_large_ctx x = { fn, comm, MPI_WIN_NULL };
    if (recvcount < 0)
        return rch_mpi_large_err(&x, MPI_ERR_COUNT, "negative count %lld in argument recvcount",
                                 (long long)recvcount);
    MPI_Count n = rch_mpi_large_nprocs(comm);
    MPI_Count *counts = malloc((size_t)(n > 0 ? n : 1) * sizeof(*counts));
    if (!counts)
        return rch_mpi_large_err(&x, MPI_ERR_NO_MEM, "no memory for %lld recvcounts", (long long)n);
    for (MPI_Count i = 0; i < n; i++)
        counts[i] = recvcount;
    int err = f == BLOCKING ? rch_mpi_reduce_scatter_c(fn, sendbuf, recvbuf, counts, datatype, op, comm)
              : f == PERSISTENT
                  ? rch_mpi_reduce_scatter_init_c(fn, sendbuf, recvbuf, counts, datatype, op, comm, info, request)
                  : rch_mpi_ireduce_scatter_c(fn, sendbuf, recvbuf, counts, datatype, op, comm, request);
    free(counts);
    return err;
}

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm)
{
    return rsblock("MPI_Reduce_scatter_block_c", BLOCKING, sendbuf, recvbuf, recvcount, datatype, op, comm,
                   MPI_INFO_NULL, NULL);
}
#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return rsblock("MPI_Ireduce_scatter_block_c", NONBLOCKING, sendbuf, recvbuf, recvcount, datatype, op, comm,
                   MPI_INFO_NULL, request);
}
#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request)
{
    return rsblock("MPI_Reduce_scatter_block_init_c", PERSISTENT, sendbuf, recvbuf, recvcount, datatype, op, comm,
                   info, request);
}
#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c
