/*
 * fort_gfc.h — gfortran's own array descriptor, as a TYPE(*), DIMENSION(..)
 * dummy of a procedure without BIND(C) receives it (libgfortran.h of
 * gfortran 8 and later, libgfortran.so.5). The C fast path of module
 * mpi_f08 (gen_f08.py's f08_fast.c) reads it: a contiguous buffer is its
 * base address, with no call to libgfortran's is_contiguous and no
 * conversion to a C descriptor (ISO_Fortran_binding.h), which only a
 * procedure with BIND(C) gets. MPICH's libmpichfort.so.12 takes the same
 * descriptor at the same link names (both are compiled by gfortran).
 */
#ifndef RCH_BINDING_FORT_GFC_H
#define RCH_BINDING_FORT_GFC_H

#include <stddef.h>

#include "binding/fort_runtime.h"

struct rch_gfc_dim {
    ptrdiff_t stride;   /* in elements of span bytes */
    ptrdiff_t lbound;
    ptrdiff_t ubound;
};

struct rch_gfc_desc {
    void *base_addr;
    size_t offset;
    size_t elem_len;
    int version;
    signed char rank;
    signed char type;
    short attribute;
    ptrdiff_t span;     /* bytes from one element to the next at stride 1 */
    struct rch_gfc_dim dim[];
};

_Static_assert(offsetof(struct rch_gfc_desc, rank) == 28, "gfortran's descriptor: rank at byte 28");
_Static_assert(offsetof(struct rch_gfc_desc, dim) == 40, "gfortran's descriptor: dim at byte 40");

/* Whether the elements lie one after the other in array element order (as
 * IS_CONTIGUOUS): a scalar, or strides 1, extent, extent*extent, ... of
 * elements as long as they are (span), ignoring a dimension of extent 1;
 * an empty array is. An assumed-size array's last extent (ubound -1) is
 * unknown: its elements are contiguous, as an assumed-size array is. The
 * whole rank-1 array is tested first: it is most buffers. */
static inline int rch_gfc_contiguous(const struct rch_gfc_desc *d)
{
    if (d->rank == 0)
        return 1;
    if (d->span != (ptrdiff_t)d->elem_len)
        return 0;
    if (__builtin_expect(d->dim[0].stride == 1 && d->rank == 1, 1))
        return 1;
    ptrdiff_t next = 1;
    for (int i = 0; i < d->rank; i++) {
        ptrdiff_t extent = d->dim[i].ubound - d->dim[i].lbound + 1;
        if (extent <= 0)
            return 1;
        if (extent > 1 && d->dim[i].stride != next)
            return 0;
        next *= extent;
    }
    return 1;
}

/* Whether it is a whole rank-1 array (or a section of stride 1): the
 * commonest buffer, contiguous and never a sentinel, tested first. */
static inline int rch_gfc_whole1(const struct rch_gfc_desc *d)
{
    return d->rank == 1 && d->dim[0].stride == 1 && d->span == (ptrdiff_t)d->elem_len;
}

/* A contiguous buffer's address for C. MPI_BOTTOM and MPI_IN_PLACE are
 * scalars (mpi_f08's and MPICH's): only a scalar can be one. */
static inline void *rch_gfc_buffer(const struct rch_gfc_desc *d)
{
    return d->rank ? d->base_addr : rch_f_buffer(d->base_addr);
}

#endif
