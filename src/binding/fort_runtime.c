/*
 * fort_runtime.c — the common blocks and argument conversions of the
 * Fortran bindings (fort_runtime.h; the bindings themselves are generated
 * by gen_f77.py from mpi_api.txt).
 */
#include <stdio.h>
#include <string.h>

#include "binding/fort_runtime.h"

/* Handles and statuses are passed between Fortran and C without copying. */
_Static_assert(sizeof(MPI_Comm) == sizeof(MPI_Fint) && sizeof(MPI_Datatype) == sizeof(MPI_Fint) &&
               sizeof(MPI_Request) == sizeof(MPI_Fint) && sizeof(MPI_Info) == sizeof(MPI_Fint),
               "a Fortran handle array is a C handle array");
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a Fortran status is an MPI_Status");
_Static_assert(sizeof(MPI_Aint) == 8, "INTEGER(KIND=MPI_ADDRESS_KIND) is MPI_Aint");
/* Debian MPICH 4.0.2's sizes (nm -S libmpichfort.so.12). */
_Static_assert(sizeof(struct rch_f_priv1) == 28 && sizeof(struct rch_f_priv2) == 24 &&
               sizeof(struct rch_f_privc) == 2, "MPICH's common block sizes");

/* Aligned as gfortran aligns a common block (16), so that the module's own
 * object (mpi_module.o, in librdmachfort) agrees with these definitions. */
#define RCH_F_COMMON RCH_F_PUBLIC __attribute__((aligned(16)))
RCH_F_COMMON struct rch_f_priv1 mpipriv1_;
RCH_F_COMMON struct rch_f_priv2 mpipriv2_;
RCH_F_COMMON struct rch_f_privc mpiprivc_;
RCH_F_COMMON MPI_Fint mpifcmb5_;
RCH_F_COMMON MPI_Fint mpifcmb9_;
RCH_F_COMMON MPI_Fint mpifcmba_;
/* MPICH's module mpi_f08_link_constants (fort_runtime.h); MPI_ERRCODES_IGNORE
 * and MPI_ARGV(S)_NULL only so that its programs link (spawn's glue
 * recognises them). */
MPI_Fint rch_f08_unweighted, rch_f08_weights_empty;
RCH_F_PUBLIC MPI_Fint rch_f08_errcodes_ignore __asm__("__mpi_f08_link_constants_MOD_mpi_errcodes_ignore");
RCH_F_PUBLIC char rch_f08_argv_null __asm__("__mpi_f08_link_constants_MOD_mpi_argv_null");
RCH_F_PUBLIC char rch_f08_argvs_null __asm__("__mpi_f08_link_constants_MOD_mpi_argvs_null");

size_t rch_f_string_len(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    return len;
}

char *rch_f_string_in(const char *s, size_t len, int strip)
{
    while (strip && len > 0 && s[0] == ' ') {
        s++;
        len--;
    }
    len = rch_f_string_len(s, len);
    char *c = malloc(len + 1);
    if (!c)
        return NULL;
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

char *rch_f_string_buffer(long n)
{
    char *c = malloc(n > 0 ? (size_t)n + 1 : 1);
    if (c)
        c[0] = '\0';
    return c;
}

void rch_f_string_out(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len);
    memcpy(dst, src, n);
    memset(dst + n, ' ', len - n);
}

MPI_Aint *rch_f_aint_array(const MPI_Fint *a, long n)
{
    MPI_Aint *c = malloc(n > 0 ? (size_t)n * sizeof(*c) : 1);
    for (long i = 0; c && i < n; i++)
        c[i] = a[i];
    return c;
}

int rch_f_nomem(const char *function)
{
    fprintf(stderr, "rdmach: %s (Fortran): out of memory copying a string or array argument\n",
            function);
    return MPI_ERR_NO_MEM;
}
