/*
 * fort_runtime.h — what the generated Fortran bindings (gen_f77.py) share:
 * MPICH's Fortran common blocks that hold the sentinels, and the conversions
 * between Fortran and C arguments. Part of libmpichfort.so.12 /
 * librdmachfort.so, never of the C library.
 */
#ifndef RCH_BINDING_FORT_RUNTIME_H
#define RCH_BINDING_FORT_RUNTIME_H

#include <stddef.h>
#include <stdlib.h>

#include <mpi.h>

#define RCH_F_PUBLIC __attribute__((visibility("default")))

/* The common blocks of mpif.h (gen_mpif.py), named and laid out as MPICH's
 * so that a program compiled with mpif90.mpich and one compiled with
 * rdmach-mpif90 both find them here. A program's own copy of a common block
 * takes precedence over the library's (ELF interposition); the bindings
 * compare addresses through these symbols, so they see the program's. */
struct rch_f_priv1 {
    MPI_Fint bottom;
    MPI_Fint in_place;
    MPI_Fint status_ignore[MPI_F_STATUS_SIZE];
};
struct rch_f_priv2 {
    MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE];
    MPI_Fint errcodes_ignore[1];
};
struct rch_f_privc {
    char argvs_null[1];
    char argv_null[1];
};
extern RCH_F_PUBLIC struct rch_f_priv1 mpipriv1_;
extern RCH_F_PUBLIC struct rch_f_priv2 mpipriv2_;
extern RCH_F_PUBLIC struct rch_f_privc mpiprivc_;
extern RCH_F_PUBLIC MPI_Fint mpifcmb5_;   /* MPI_UNWEIGHTED */
extern RCH_F_PUBLIC MPI_Fint mpifcmb9_;   /* MPI_WEIGHTS_EMPTY */
extern RCH_F_PUBLIC MPI_Fint mpifcmba_;   /* MPI_BUFFER_AUTOMATIC (MPI 4.1; MPICH 4.2's /MPIFCMBa/) */
/* MPICH's mpi_f08 has sentinels of its own: MPIR_F08_MPI_BOTTOM and the
 * like (include/mpi.h, defined by the C library as MPICH's libmpich does)
 * and the variables of its module mpi_f08_link_constants, whose link
 * names these are (defined in fort_runtime.c); programs built with
 * mpif90.mpich's `use mpi_f08` pass their addresses. */
extern RCH_F_PUBLIC MPI_Fint rch_f08_unweighted __asm__("__mpi_f08_link_constants_MOD_mpi_unweighted");
extern RCH_F_PUBLIC MPI_Fint rch_f08_weights_empty __asm__("__mpi_f08_link_constants_MOD_mpi_weights_empty");

/* MPI_BOTTOM, MPI_IN_PLACE and MPI_BUFFER_AUTOMATIC passed as a choice
 * buffer become C's. */
static inline void *rch_f_buffer(void *buf)
{
    if (buf == &mpipriv1_.bottom || buf == &MPIR_F08_MPI_BOTTOM)
        return MPI_BOTTOM;
    if (buf == &mpipriv1_.in_place || buf == &MPIR_F08_MPI_IN_PLACE)
        return MPI_IN_PLACE;
    if (buf == &mpifcmba_)
        return MPI_BUFFER_AUTOMATIC;
    return buf;
}

/* A Fortran status is an INTEGER(MPI_STATUS_SIZE) array laid out as
 * MPI_Status (fort_runtime.c asserts it); the IGNORE arrays become C's. */
static inline MPI_Status *rch_f_status(MPI_Fint *status)
{
    /* |, not ||: gcc then tests mpif.h's (and rdmach's mpi_f08's) first,
     * the commonest, and jumps once at most */
    if ((status == mpipriv1_.status_ignore) | (status == (MPI_Fint *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ))
        return MPI_STATUS_IGNORE;
    return (MPI_Status *)status;
}

static inline MPI_Status *rch_f_statuses(MPI_Fint *statuses)
{
    if (statuses == mpipriv2_.statuses_ignore || statuses == mpipriv1_.status_ignore ||
        statuses == (MPI_Fint *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ ||
        statuses == (MPI_Fint *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ)
        return MPI_STATUSES_IGNORE;
    return (MPI_Status *)statuses;
}

static inline int *rch_f_weights(MPI_Fint *weights)
{
    if (weights == &mpifcmb5_ || weights == &rch_f08_unweighted)
        return MPI_UNWEIGHTED;
    if (weights == &mpifcmb9_ || weights == &rch_f08_weights_empty)
        return MPI_WEIGHTS_EMPTY;
    return weights;
}

/* Request indices C returned (from 0) as Fortran's (from 1); MPI_UNDEFINED
 * (no active request) stays. n < 0 (an MPI_UNDEFINED count): none. */
static inline void rch_f_indices_to_fortran(MPI_Fint *indices, int n)
{
    for (int i = 0; i < n; i++)
        if (indices[i] != MPI_UNDEFINED)
            indices[i]++;
}

/* A Fortran string's length without its trailing blanks. */
size_t rch_f_string_len(const char *s, size_t len);
/* A Fortran string argument (characters and hidden length) as a C string:
 * a malloc'ed copy without the trailing blanks (and the leading ones when
 * strip is set); NULL when out of memory. */
char *rch_f_string_in(const char *s, size_t len, int strip);
/* A C buffer for an output string of at most n characters (n < 0: empty). */
char *rch_f_string_buffer(long n);
/* Copies a C string into a Fortran one: truncated to len, blank-padded. */
void rch_f_string_out(char *dst, size_t len, const char *src);
/* MPI-1's default-INTEGER address arrays as MPI_Aint (n < 0: empty). */
MPI_Aint *rch_f_aint_array(const MPI_Fint *a, long n);
/* The error code of a binding that could not allocate its copies. */
int rch_f_nomem(const char *function);

#endif
