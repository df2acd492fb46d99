/*
 * src/mpi internals shared by the binding's files: error reporting, the
 * communicator object and the datatype engine. The MPI layer is a thin
 * binding over src/device (point-to-point) and src/coll (collectives).
 *
 * Handles are MPICH's ints (ABI): a handle is decoded to an object by the
 * lookup functions below, which return NULL for anything invalid.
 */
#ifndef RCH_MPI_IMPL_H
#define RCH_MPI_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "device/dev.h"

/* ---- errors (mpi/errhandler.c) ----
 * Every MPI call checks its arguments and reports through this: the error
 * class and a message naming the argument ("MPI_Send: invalid rank 9 in
 * argument dest (communicator size 4)"). Invokes the communicator's handler
 * (MPI_ERRORS_ARE_FATAL aborts with the message; MPI_ERRORS_RETURN returns the
 * code) and returns the error code to hand back to the user. comm may be
 * MPI_COMM_NULL for calls with no communicator (world's handler applies). */
int rch_mpi_err(MPI_Comm comm, int errclass, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A device status to an MPI error class. */
int rch_mpi_class_of(rdmach_status_t st);
int rch_mpi_check_init(const char *fn);       /* MPI_ERR_OTHER (via world's handler) if not initialized */

/* ---- communicators (mpi/comm.c) ---- */
struct rch_mpi_comm {
    MPI_Comm handle;
    int rank, size;
    int *world_of;            /* [size]: world rank of each comm rank */
    uint32_t ctx;             /* point-to-point context id; ctx+1 is for collectives */
    MPI_Errhandler errhandler;
    int is_inter;             /* reserved */
    void *topo;               /* Cartesian / graph topology (later issues) */
    char name[MPI_MAX_OBJECT_NAME];
};
struct rch_mpi_comm *rch_mpi_comm_get(MPI_Comm comm);   /* NULL if invalid */

/* ---- datatypes (mpi/type_*.c) ----
 * A committed type is described by its size (bytes of data), its extent and
 * bounds, and a flattened list of (offset, length) blocks; a contiguous type
 * has one block, so the fast path copies or sends in place. */
struct rch_mpi_type_block {
    MPI_Aint off;             /* from the buffer pointer */
    size_t len;
};
struct rch_mpi_type {
    MPI_Datatype handle;
    size_t size;              /* bytes of data in one element of this type */
    MPI_Aint lb, ub, extent;  /* ub - lb = extent */
    MPI_Aint true_lb, true_ub;
    int contig;               /* one block at true_lb of `size` bytes, and extent == size */
    int committed;
    int predefined;
    int nblocks;              /* flattened map of one element */
    struct rch_mpi_type_block *blocks;
    int basic;                /* the predefined type of every element if homogeneous, else MPI_DATATYPE_NULL */
    size_t basic_count;       /* predefined elements in one element of this type */
    int refcount;
    char name[MPI_MAX_OBJECT_NAME];
};
struct rch_mpi_type *rch_mpi_type_get(MPI_Datatype dt);  /* NULL if invalid (MPI_DATATYPE_NULL too) */
/* Argument check for (buf, count, datatype) as every communication call does:
 * returns MPI_SUCCESS or the error class, with a message naming fn and arg. */
int rch_mpi_type_check_buf(MPI_Comm comm, const char *fn, const void *buf, int count, MPI_Datatype dt);
/* Pack `count` elements into contiguous `out` (which holds count*size bytes). */
void rch_mpi_type_pack(const void *in, int count, const struct rch_mpi_type *t, void *out);
/* Unpack `bytes` (may be less than count*size: truncation) from `in`. */
void rch_mpi_type_unpack(const void *in, size_t bytes, void *out, int count, const struct rch_mpi_type *t);
/* MPI_Get_elements for `bytes` of data received as type t (MPI_UNDEFINED if not whole basics). */
MPI_Count rch_mpi_type_elements(const struct rch_mpi_type *t, size_t bytes);
void rch_mpi_type_init(void);
void rch_mpi_type_finalize(void);

#endif
