/*
 * MPI_Pack_c and MPI_Unpack_c (large=defined): a packed buffer of more than
 * INT_MAX bytes. The int form is given the buffer from *position on, with
 * position 0 and at most INT_MAX bytes of room, so a position anywhere in a
 * larger buffer works; the data of one call (a large count becomes one
 * element of a contiguous type, large.c) is bounded by that room.
 */
#include <limits.h>
#include "mpi/large.h"

/* The part of a buffer of size bytes the int form sees: from *position, at
 * most INT_MAX bytes. A position outside the buffer goes to the int form as
 * it is (size and position that fit), which reports it. */
static int window(const struct rch_mpi_large_ctx *x, const char *size_arg, MPI_Count size,
                  const MPI_Count *position, MPI_Count *base, int *room)
{
    *base = 0;
    if (!position || *position < 0 || *position > size)
        return rch_mpi_large_int(x, size_arg, 0, size, room);
    MPI_Count left = size - *position;
    *base = *position;
    *room = left > INT_MAX ? INT_MAX : (int)left;
    return MPI_SUCCESS;
}

/* The int form's arguments: the window of the buffer (base, room), the
 * position in it (pos) and the data as (n, *t). */
struct packing {
    MPI_Count base;
    int room, pos, n;
};

static int prepare(const struct rch_mpi_large_ctx *x, const char *size_arg, MPI_Count size,
                   const MPI_Count *position, const char *count_arg, MPI_Count count, MPI_Datatype dt,
                   struct packing *p, MPI_Datatype *t)
{
    int err;
    p->pos = 0;
    *t = dt;
    if ((err = window(x, size_arg, size, position, &p->base, &p->room)) ||
        (position && !p->base && (err = rch_mpi_large_int(x, "position", 0, *position, &p->pos))))
        return err;
    return rch_mpi_large_buf(x, count_arg, count, dt, &p->n, t);
}

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                MPI_Count *position, MPI_Comm comm)
{
    struct rch_mpi_large_ctx x = { "MPI_Pack_c", comm, MPI_WIN_NULL };
    struct packing p;
    MPI_Datatype t;
    int err = prepare(&x, "outsize", outsize, position, "incount", incount, datatype, &p, &t);
    if (err)
        return err;
    err = PMPI_Pack(inbuf, p.n, t, outbuf ? (char *)outbuf + p.base : NULL, p.room, position ? &p.pos : NULL,
                    comm);
    rch_mpi_large_buf_done(t, datatype);
    if (!err)
        *position = p.base + p.pos;
    return err;
}
#pragma weak MPI_Pack_c = PMPI_Pack_c

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                  MPI_Datatype datatype, MPI_Comm comm)
{
    struct rch_mpi_large_ctx x = { "MPI_Unpack_c", comm, MPI_WIN_NULL };
    struct packing p;
    MPI_Datatype t;
    int err = prepare(&x, "insize", insize, position, "outcount", outcount, datatype, &p, &t);
    if (err)
        return err;
    err = PMPI_Unpack(inbuf ? (const char *)inbuf + p.base : NULL, p.room, position ? &p.pos : NULL, outbuf, p.n,
                      t, comm);
    rch_mpi_large_buf_done(t, datatype);
    if (!err)
        *position = p.base + p.pos;
    return err;
}
#pragma weak MPI_Unpack_c = PMPI_Unpack_c
