/*
 * MPI_Reduce_scatter and MPI_Reduce_scatter_block on an intercommunicator
 * whose vector (the sum of the recvcounts, or recvcount times the group
 * size, equal in both groups) is beyond INT_MAX basic elements: the int
 * forms with such a total and the _c forms with counts beyond INT_MAX. A
 * Reduce_scatter_block runs as the Reduce_scatter of its recvcounts: the
 * decision and the cut depend on the vector alone, so a group that called
 * one meets a group that called the other.
 *
 * The forms on an intercommunicator reduce with int counts (the blocking
 * one through the local group's int collectives, intercoll.c) and a
 * reduction acts on elements of the predefined type, so no datatype
 * carries the vector as fewer elements. Instead the vector is cut into
 * chunks of about RCH_MPI_INTER_CHUNK basic elements, each a non-blocking
 * Reduce_scatter of its own with int counts (each rank's share of the
 * chunk, mostly 0), chained in intercoll_nb.c: a chunk starts when the one
 * before completed, under the one request (the blocking form waits for
 * it; a persistent one keeps the chain). The chain's operands take the
 * room of one chunk from every remote rank (the first chunk's, reused by
 * the others, freed at the end), not copies of the whole vector, and no
 * fresh pages per chunk.
 *
 * Where to cut. The groups need only matching type signatures (MPI-4.1
 * 3.3.1), so one may pass a contiguous type of 2 doubles where the other
 * passes doubles, or 3 of them: the vector's length in basic elements is
 * common, its length in elements of each datatype is not. Whether to
 * chain is decided on the basic length. A chunk must end on a whole
 * element of both datatypes (each group packs and reduces whole elements
 * of its own), i.e. at a multiple of lcm(kA, kB), k the basic elements of
 * one element of a group's datatype; a group knows its own k only, and
 * from it and the common length alone cannot tell where the other can cut
 * (2 and 3 doubles per element: 6 doubles; 2 and 1: any even count). So
 * the chain opens with an exchange (intercoll_nb.c): every rank tells one
 * remote rank its k and basic length, every rank hears one, then cuts at
 * RCH_MPI_INTER_CHUNK rounded down to a multiple of lcm(kA, kB) (at least
 * one such multiple). Within a group every rank has the same k: they
 * share recvcounts, so the same number of elements carries the same
 * signature. The exchange also catches two groups whose vectors differ in
 * length, which before showed as a truncated chunk.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include "base/tunables.h"
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"
#include "mpi/intercoll_impl.h"
#include "mpi/large.h"

static size_t chunk(void)
{
    return rch_tun.inter_rs_chunk ? rch_tun.inter_rs_chunk : RCH_MPI_INTER_CHUNK;
}

int rch_mpi_inter_chained(size_t total, MPI_Datatype dt)
{
    const struct rch_mpi_type *t = rch_mpi_type_get(dt);   /* invalid: the int form reports it */
    size_t basic = t ? total * t->basic_count : 0;
    return basic > (rch_tun.inter_rs_chunk ? rch_tun.inter_rs_chunk : (size_t)INT32_MAX);
}

rdmach_status_t rch_mpi_inter_cut(struct rch_mpi_chunks *k, uint64_t remote_kb, uint64_t remote_basic)
{
    uint64_t basic = (uint64_t)k->total * k->kb;
    if (remote_basic != basic || remote_kb == 0 || k->kb == 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "reduce_scatter: the other group's vector is %llu basic "
                            "elements (%llu per element of its datatype), ours %llu (%zu per element): the "
                            "groups' type signatures must match", (unsigned long long)remote_basic,
                            (unsigned long long)remote_kb, (unsigned long long)basic, k->kb);
    /* lcm(kA, kB): both divide basic, so it does too */
    uint64_t unit = k->kb / (uint64_t)rch_mpi_large_gcd((MPI_Count)k->kb, (MPI_Count)remote_kb) * remote_kb;
    uint64_t want = chunk(), cut = want >= unit ? want - want % unit : unit;
    k->step = (size_t)(cut / k->kb);
    k->n = (int)((k->total + k->step - 1) / k->step);
    return RDMACH_OK;
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
    k->kb = t->basic_count;
    k->step = k->total;
    k->n = k->total > 0;
    return MPI_SUCCESS;
}

void rch_mpi_inter_chunk(const struct rch_mpi_chunks *k, const MPI_Count *rcounts, int n, int j, int *counts,
                         const void *sbuf, void *rbuf, const void **s, void **r)
{
    size_t a = (size_t)j * k->step, b = a + k->step, at = 0;
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
    return err ? err : rch_mpi_wait_as(fn, &req);
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
