/*
 * What a status says: Get_count(_c), Get_elements, Get_elements_x/_c (and
 * Status_set_elements(_x, _c), Status_set_cancelled to write one). The count in
 * a status is in bytes (mpi_impl.h rch_mpi_status_set); these divide it by
 * the datatype.
 */
#include <limits.h>
#include "mpi/mpi_impl.h"

/* out: the call's output argument, "count" in all of them (a setter passes
 * status). */
static const struct rch_mpi_type *status_type(const char *fn, const MPI_Status *status, MPI_Datatype dt,
                                              const void *out, int *err)
{
    *err = rch_mpi_check_init(fn);
    if (*err)
        return NULL;
    if (!status || status == MPI_STATUS_IGNORE) {
        *err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument status is %s", fn,
                           status ? "MPI_STATUS_IGNORE" : "NULL");
        return NULL;
    }
    if (!out) {
        *err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument count is NULL", fn);
        return NULL;
    }
    const struct rch_mpi_type *t = rch_mpi_type_get(dt);
    if (!t) {
        *err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: invalid datatype 0x%x in argument datatype", fn,
                           (unsigned)dt);
        return NULL;
    }
    if (!t->committed) {
        *err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: datatype 0x%x is not committed", fn, (unsigned)dt);
        return NULL;
    }
    return t;
}

/* Whole elements of t in the status, MPI_UNDEFINED if it does not end on one. */
static MPI_Count count_of(const MPI_Status *status, const struct rch_mpi_type *t)
{
    MPI_Count bytes = rch_mpi_status_bytes(status);
    if (t->size == 0)
        return 0;              /* MPI: a zero-size type gives a count of 0 */
    return bytes % (MPI_Count)t->size != 0 ? MPI_UNDEFINED : bytes / (MPI_Count)t->size;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    RCH_MPI_CS();
    int err;
    const struct rch_mpi_type *t = status_type("MPI_Get_count", status, datatype, count, &err);
    if (!t)
        return err;
    MPI_Count n = count_of(status, t);
    *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_count = PMPI_Get_count

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    RCH_MPI_CS();
    int err;
    const struct rch_mpi_type *t = status_type("MPI_Get_count_c", status, datatype, count, &err);
    if (!t)
        return err;
    *count = count_of(status, t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_count_c = PMPI_Get_count_c

static int elements(const char *fn, const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int err;
    const struct rch_mpi_type *t = status_type(fn, status, datatype, count, &err);
    if (!t)
        return err;
    *count = rch_mpi_type_elements(t, (size_t)rch_mpi_status_bytes(status));
    return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    RCH_MPI_CS();
    return elements("MPI_Get_elements_x", status, datatype, count);
}
#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    RCH_MPI_CS();
    return elements("MPI_Get_elements_c", status, datatype, count);
}
#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    RCH_MPI_CS();
    int err;
    const struct rch_mpi_type *t = status_type("MPI_Get_elements", status, datatype, count, &err);
    if (!t)
        return err;
    MPI_Count n = rch_mpi_type_elements(t, (size_t)rch_mpi_status_bytes(status));
    *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_elements = PMPI_Get_elements

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Status_set_cancelled");
    if (err)
        return err;
    if (!status || status == MPI_STATUS_IGNORE)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled: argument status is %s",
                           status ? "MPI_STATUS_IGNORE" : "NULL");
    status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled

/* Status_set_elements(_x) (for generalized requests): the status then holds
 * the bytes of count basic elements of datatype's type map, so that
 * Get_elements with the same datatype gives count back, as the standard
 * says, and Get_count the whole elements (MPI_UNDEFINED if count does not
 * end on one). MPICH stores count * size, which makes Get_elements of a
 * pair type such as MPI_DOUBLE_INT return 2 * count. */
static int set_elements(const char *fn, MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    int err;
    const struct rch_mpi_type *t = status_type(fn, status, datatype, status, &err);
    if (!t)
        return err;
    if (count < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: negative count %ld", fn, (long)count);
    if (t->size && (uint64_t)count > (UINT64_MAX >> 1) / t->size)   /* bounds the bytes of count basic elements too */
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: count %ld of %zu-byte elements is too large", fn,
                           (long)count, t->size);
    int cancelled = status->count_hi_and_cancelled & 1;
    rch_mpi_status_set(status, status->MPI_SOURCE, status->MPI_TAG, rch_mpi_type_elements_bytes(t, count), cancelled);
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    RCH_MPI_CS();
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}
#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    RCH_MPI_CS();
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}
#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    RCH_MPI_CS();
    return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}
#pragma weak MPI_Status_set_elements_c = PMPI_Status_set_elements_c

/* The Fortran status is the same five integers in the same order (MPICH). */
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    RCH_MPI_CS();
    if (!c_status || c_status == MPI_STATUS_IGNORE || !f_status)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Status_c2f: argument %s is NULL or ignored",
                           !f_status ? "f_status" : "c_status");
    f_status[0] = c_status->count_lo;
    f_status[1] = c_status->count_hi_and_cancelled;
    f_status[MPI_F_SOURCE] = c_status->MPI_SOURCE;
    f_status[MPI_F_TAG] = c_status->MPI_TAG;
    f_status[MPI_F_ERROR] = c_status->MPI_ERROR;
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_c2f = PMPI_Status_c2f

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    RCH_MPI_CS();
    if (!f_status || !c_status || c_status == MPI_STATUS_IGNORE)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Status_f2c: argument %s is NULL or ignored",
                           !f_status ? "f_status" : "c_status");
    c_status->count_lo = f_status[0];
    c_status->count_hi_and_cancelled = f_status[1];
    c_status->MPI_SOURCE = f_status[MPI_F_SOURCE];
    c_status->MPI_TAG = f_status[MPI_F_TAG];
    c_status->MPI_ERROR = f_status[MPI_F_ERROR];
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_f2c = PMPI_Status_f2c
