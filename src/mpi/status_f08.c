/*
 * MPI_Status_f082c, MPI_Status_c2f08, MPI_Status_f082f, MPI_Status_f2f08
 * (MPI-4.1 19.3.5): the Fortran 2008 status seen from C (MPI_F08_status,
 * MPICH's layout) against the C status and the Fortran INTEGER array. All
 * three hold the same five integers in the same order (count_lo,
 * count_hi_and_cancelled, MPI_SOURCE, MPI_TAG, MPI_ERROR; MPI_F_SOURCE etc.
 * index the array), so each conversion copies them field by field.
 */
#include "mpi/mpi_impl.h"

static int bad(const char *fn, const char *arg)
{
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL or ignored", fn, arg);
}

static int f08_bad(const MPI_F08_status *s)
{
    return !s || s == MPI_F08_STATUS_IGNORE || s == MPI_F08_STATUSES_IGNORE;
}

static void f08_to_f(const MPI_F08_status *s, MPI_Fint *f)
{
    f[0] = s->count_lo;
    f[1] = s->count_hi_and_cancelled;
    f[MPI_F_SOURCE] = s->MPI_SOURCE;
    f[MPI_F_TAG] = s->MPI_TAG;
    f[MPI_F_ERROR] = s->MPI_ERROR;
}

static void f_to_f08(const MPI_Fint *f, MPI_F08_status *s)
{
    s->count_lo = f[0];
    s->count_hi_and_cancelled = f[1];
    s->MPI_SOURCE = f[MPI_F_SOURCE];
    s->MPI_TAG = f[MPI_F_TAG];
    s->MPI_ERROR = f[MPI_F_ERROR];
}

/* Between C and F08 through the INTEGER array (MPI_Status_c2f/f2c, which
 * cannot fail once the arguments are checked here). */
int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    RCH_MPI_CS();
    if (f08_bad(f08_status) || !c_status || c_status == MPI_STATUS_IGNORE)
        return bad("MPI_Status_f082c", f08_bad(f08_status) ? "f08_status" : "c_status");
    MPI_Fint f[MPI_F_STATUS_SIZE];
    f08_to_f(f08_status, f);
    return PMPI_Status_f2c(f, c_status);
}
#pragma weak MPI_Status_f082c = PMPI_Status_f082c

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    RCH_MPI_CS();
    if (!c_status || c_status == MPI_STATUS_IGNORE || f08_bad(f08_status))
        return bad("MPI_Status_c2f08", f08_bad(f08_status) ? "f08_status" : "c_status");
    MPI_Fint f[MPI_F_STATUS_SIZE];
    PMPI_Status_c2f(c_status, f);
    f_to_f08(f, f08_status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_c2f08 = PMPI_Status_c2f08

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    RCH_MPI_CS();
    if (f08_bad(f08_status) || !f_status)
        return bad("MPI_Status_f082f", f_status ? "f08_status" : "f_status");
    f08_to_f(f08_status, f_status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_f082f = PMPI_Status_f082f

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    RCH_MPI_CS();
    if (!f_status || f08_bad(f08_status))
        return bad("MPI_Status_f2f08", f_status ? "f08_status" : "f_status");
    f_to_f08(f_status, f08_status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_f2f08 = PMPI_Status_f2f08
