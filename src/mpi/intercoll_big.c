/*
 * MPI_Reduce_scatter and MPI_Reduce_scatter_block on an intercommunicator
 * whose vector (the sum of the recvcounts, or recvcount times the group
 * size, equal in both groups) is beyond INT_MAX elements: the int forms
 * with such a total and the _c forms with counts beyond INT_MAX. A
 * Reduce_scatter_block runs as the Reduce_scatter of its recvcounts: the
 * decision and the cut depend on the total alone, so a group that called
 * one meets a group that called the other.
 *
 * The forms on an intercommunicator reduce with int counts (the blocking
 * one through the local group's int collectives, intercoll.c) and a
 * reduction acts on elements of the predefined type, so no datatype
 * carries the vector as fewer elements. Instead the vector is cut into
 * chunks of RCH_MPI_INTER_CHUNK elements, each a non-blocking
 * Reduce_scatter of its own with int counts (each rank's share of the
 * chunk, mostly 0), chained in intercoll_nb.c: a chunk starts when the one
 * before completed, under the one request (the blocking form waits for
 * it; a persistent one keeps the chain). The cut depends only on the
 * total, which both groups share whichever form each process called, so
 * the two groups run the same chunks; a total within an int is one call as
 * before. The chain's operands take the room of one chunk from every
 * remote rank (the first chunk's, reused by the others, freed at the end),
 * not copies of the whole vector, and no fresh pages per chunk.
 */
#include <limits.h>
#include <stdlib.h>
#include "base/tunables.h"
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"
#include "mpi/intercoll_impl.h"

static size_t chunk(void)
{
    return rch_tun.inter_rs_chunk ? rch_tun.inter_rs_chunk : RCH_MPI_INTER_CHUNK;
}

int rch_mpi_inter_chained(size_t total)
{
    return total > (rch_tun.inter_rs_chunk ? rch_tun.inter_rs_chunk : (size_t)INT32_MAX);
}

int rch_mpi_inter_chunks(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf,
                         const MPI_Count *rcounts, MPI_Datatype dt, struct rch_mpi_chunks *k)
{
    const struct rch_mpi_type *t;
    int err;
    *k = (struct rch_mpi_chunks){ 0 };
    if (!rcounts)
        return rch_mpi_err(c->handle, MPI_ERR_ARG, "%s: argument recvcounts is NULL", fn);
    for (int i = 0; i < c->size; i++) {
        if (rcounts[i] < 0)
            return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: count %lld in argument recvcounts[%d] is negative",
                               fn, (long long)rcounts[i], i);
        if (i == c->rank)
            k->off = k->total, k->mine = (size_t)rcounts[i];
        k->total += (size_t)rcounts[i];
    }
    /* the chunks' buffers are offsets into these: check them whole here */
    if ((err = rch_mpi_coll_check_type(fn, c, dt, "datatype", &t)) ||
        (err = rch_mpi_coll_check_buf(fn, c, sbuf, k->total > 0, dt, "sendbuf", "recvcounts", "datatype", NULL)) ||
        (err = rch_mpi_coll_check_buf(fn, c, rbuf, k->mine > 0, dt, "recvbuf", "recvcounts", "datatype", NULL)))
        return err;
    k->ext = t->extent;
    k->n = (int)((k->total + chunk() - 1) / chunk());
    return MPI_SUCCESS;
}

void rch_mpi_inter_chunk(const struct rch_mpi_chunks *k, const MPI_Count *rcounts, int n, int j, int *counts,
                         const void *sbuf, void *rbuf, const void **s, void **r)
{
    size_t a = (size_t)j * chunk(), b = a + chunk(), at = 0;
    for (int i = 0; i < n; i++) {
        size_t lo = at > a ? at : a, hi = at + (size_t)rcounts[i] < b ? at + (size_t)rcounts[i] : b;
        counts[i] = hi > lo ? (int)(hi - lo) : 0;
        at += (size_t)rcounts[i];
    }
    size_t into = a > k->off ? a - k->off : 0;   /* where my share of the chunk goes in rbuf */
    *s = (const char *)sbuf + (MPI_Aint)a * k->ext;
    *r = (char *)rbuf + (MPI_Aint)into * k->ext;
}

int rch_mpi_inter_reduce_scatter_c(const char *fn, struct rch_mpi_comm *c, const void *sbuf, void *rbuf,
                                   const MPI_Count *rcounts, MPI_Datatype dt, MPI_Op op)
{
    MPI_Request req;
    int err = rch_mpi_inter_ireduce_scatter_c(fn, c, sbuf, rbuf, rcounts, dt, op, &req);
    return err ? err : PMPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* The int forms' recvcounts (Reduce_scatter_block: rcounts NULL, every
 * one rcount) as MPI_Counts for the chunked form. */
MPI_Count *rch_mpi_inter_widen(const char *fn, struct rch_mpi_comm *c, const int *rcounts, int rcount, int *err)
{
    MPI_Count *w = malloc((size_t)(c->size > 0 ? c->size : 1) * sizeof(*w));
    *err = w ? MPI_SUCCESS : rch_mpi_coll_nomem(fn, c, (size_t)c->size * sizeof(*w));
    for (int i = 0; w && i < c->size; i++)
        w[i] = rcounts ? rcounts[i] : rcount;
    return w;
}
