/*
 * User data representations (MPI_Register_datarep, MPI-4.1 14.5.3).
 *
 * A view in a user representation lays its etype and filetype out with
 * each predefined type at the size its extent function gives (io_ftype.c),
 * whatever the types are built of (structs of several types too). The
 * conversion functions are called once per access over the whole user
 * buffer with the user's datatype, count the number of data items (the
 * type-map entries: count elements times the entries of one) and position
 * 0 (an int-count function in pieces of whole elements, position the items
 * before each), between the memory side and the packed file data, in which
 * each item has its file size (MPI-4.1 14.5.3). MPI_CONVERSION_FN_NULL
 * moves the bytes unchanged, so it needs file sizes equal to native ones.
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

MPI_Aint rch_io_datarep_extent(const struct rch_io_datarep *d, MPI_Datatype t)
{
    MPI_Aint ext = -1;
    if (d->extent(t, &ext, d->extra) != MPI_SUCCESS || ext < 0)
        return -1;
    return ext;
}

int rch_io_datarep_convert(const struct rch_io_datarep *d, int to_file, void *userbuf, MPI_Datatype dt,
                           MPI_Count count, void *filebuf)
{
    MPI_Datarep_conversion_function *fn = to_file ? d->wr : d->rd;
    MPI_Datarep_conversion_function_c *fn_c = to_file ? d->wr_c : d->rd_c;
    /* count is of data items, the type map's entries (MPI-4.1 14.5.3) */
    const struct rch_mpi_type *t = rch_mpi_type_get(dt);
    MPI_Count per = t && t->basic_count ? (MPI_Count)t->basic_count : 1;
    if (fn_c)
        return fn_c(userbuf, dt, count * per, filebuf, 0, d->extra) == MPI_SUCCESS ? 0 : EILSEQ;
    /* an int-count function over more than INT_MAX items: in pieces of
     * whole elements, each its items' place in filebuf and position in the
     * (tiled) datatype */
    MPI_Offset fsize = rch_io_file_size(0, d, dt);
    MPI_Count step = INT_MAX / per;
    for (MPI_Count done = 0; done < count;) {
        MPI_Count n = count - done > step ? step : count - done;
        if (fn(userbuf, dt, (int)(n * per), (char *)filebuf + done * fsize, done * per, d->extra) != MPI_SUCCESS)
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
