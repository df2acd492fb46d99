/*
 * User data representations (MPI_Register_datarep, MPI-4.1 14.5.3).
 *
 * Supported subset: the file layout of a view stays the native one, so a
 * representation may be used with types that are homogeneous (one
 * predefined type throughout) and whose file extent, as its extent
 * function reports it, is the native size; anything else is
 * MPI_ERR_UNSUPPORTED_DATAREP. The conversion functions are called once per
 * access over the whole user buffer (position 0, the user's count and
 * datatype; an int-count function in pieces of INT_MAX items), between the
 * memory side and the packed file data;
 * MPI_CONVERSION_FN_NULL means the bytes are moved unchanged.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_impl.h"

struct rch_io_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *rd, *wr;
    MPI_Datarep_conversion_function_c *rd_c, *wr_c;
    MPI_Datarep_extent_function *extent;
    void *extra;
    struct rch_io_datarep *next;
};
static struct rch_io_datarep *reps;

const struct rch_io_datarep *rch_io_datarep_find(const char *name)
{
    for (struct rch_io_datarep *d = reps; d; d = d->next)
        if (!strcmp(d->name, name))
            return d;
    return NULL;
}

int rch_io_datarep_fits(const struct rch_io_datarep *d, MPI_Datatype dt)
{
    const struct rch_mpi_type *t = rch_mpi_type_get(dt);
    if (!t || t->basic == MPI_DATATYPE_NULL)
        return 0;
    const struct rch_mpi_type *b = rch_mpi_type_get(t->basic);
    MPI_Aint ext = -1;
    if (!b || d->extent(t->basic, &ext, d->extra) != MPI_SUCCESS)
        return 0;
    return ext == (MPI_Aint)b->size;
}

int rch_io_datarep_convert(const struct rch_io_datarep *d, int to_file, void *userbuf, MPI_Datatype dt,
                           MPI_Count count, void *filebuf)
{
    MPI_Datarep_conversion_function *fn = to_file ? d->wr : d->rd;
    MPI_Datarep_conversion_function_c *fn_c = to_file ? d->wr_c : d->rd_c;
    if (fn_c)
        return fn_c(userbuf, dt, count, filebuf, 0, d->extra) == MPI_SUCCESS ? 0 : EILSEQ;
    /* an int-count function over more than INT_MAX items: in pieces, each
     * its items' place in filebuf and position in userbuf (MPI-4.1 14.5.3) */
    int size = 0;
    PMPI_Type_size(dt, &size);
    for (MPI_Count done = 0; done < count;) {
        int n = count - done > INT_MAX ? INT_MAX : (int)(count - done);
        if (fn(userbuf, dt, n, (char *)filebuf + done * size, done, d->extra) != MPI_SUCCESS)
            return EILSEQ;
        done += n;
    }
    return 0;
}

int rch_io_datarep_converts(const struct rch_io_datarep *d, int to_file)
{
    return to_file ? d->wr || d->wr_c : d->rd || d->rd_c;
}

static int reg(const char *fn, const char *datarep, MPI_Datarep_conversion_function *rd,
               MPI_Datarep_conversion_function *wr, MPI_Datarep_conversion_function_c *rd_c,
               MPI_Datarep_conversion_function_c *wr_c, MPI_Datarep_extent_function *extent, void *extra)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!datarep || !*datarep || strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return rch_io_err(NULL, MPI_ERR_ARG, "%s: argument datarep is NULL, empty or longer than %d", fn,
                          MPI_MAX_DATAREP_STRING - 1);
    if (!extent)
        return rch_io_err(NULL, MPI_ERR_ARG, "%s: argument dtype_file_extent_fn is NULL", fn);
    if (!strcmp(datarep, "native") || !strcmp(datarep, "internal") || !strcmp(datarep, "external32") ||
        rch_io_datarep_find(datarep))
        return rch_io_err(NULL, MPI_ERR_DUP_DATAREP, "%s: data representation '%s' is already defined", fn, datarep);
    struct rch_io_datarep *d = calloc(1, sizeof(*d));
    if (!d)
        return rch_io_err(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    strcpy(d->name, datarep);
    d->rd = rd, d->wr = wr, d->rd_c = rd_c, d->wr_c = wr_c, d->extent = extent, d->extra = extra;
    d->next = reps;
    reps = d;
    return MPI_SUCCESS;
}

int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    RCH_MPI_CS();
    return reg("MPI_Register_datarep", datarep, read_conversion_fn, write_conversion_fn, NULL, NULL,
               dtype_file_extent_fn, extra_state);
}
#pragma weak MPI_Register_datarep = PMPI_Register_datarep

int PMPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    RCH_MPI_CS();
    return reg("MPI_Register_datarep_c", datarep, NULL, NULL, read_conversion_fn, write_conversion_fn,
               dtype_file_extent_fn, extra_state);
}
#pragma weak MPI_Register_datarep_c = PMPI_Register_datarep_c
