/*
 * Data access: argument checks, the memory side (packing a non-contiguous
 * or external32 buffer), where the access starts (explicit offset,
 * individual or shared pointer, ordered), and independent accesses with
 * atomic-mode locks. The entry points are in io_entry.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_impl.h"

int rch_io_check(struct rch_io_op *op)
{
    struct ADIOI_FileD *f = op->f;
    const char *fn = op->fn;
    if (op->count < 0)
        return rch_io_err(f, MPI_ERR_COUNT, "%s: negative count %lld", fn, (long long)op->count);
    struct rch_mpi_type *t = rch_mpi_type_get(op->dt);
    if (!t)
        return rch_io_err(f, MPI_ERR_TYPE, "%s: invalid datatype 0x%x in argument datatype", fn, (unsigned)op->dt);
    /* the bytes and the buffer's span must be file offsets and addresses */
    MPI_Offset ext = t->extent < 0 ? -(MPI_Offset)t->extent : (MPI_Offset)t->extent;
    MPI_Offset span = (MPI_Offset)t->size > ext ? (MPI_Offset)t->size : ext;
    if (span > 0 && op->count > (MPI_Count)(PTRDIFF_MAX / span))
        return rch_io_err(f, MPI_ERR_COUNT, "%s: count %lld of a %lld-byte datatype is beyond the address space",
                          fn, (long long)op->count, (long long)span);
    if (!t->committed && !t->predefined)
        return rch_io_err(f, MPI_ERR_TYPE, "%s: datatype in argument datatype is not committed", fn);
    if (!op->buf && op->count > 0 && t->size > 0 && !rch_mpi_type_bottom_ok(t, op->count))
        return rch_io_err(f, MPI_ERR_BUFFER, "%s: argument buf is NULL (MPI_BOTTOM needs a datatype of absolute "
                          "addresses)", fn);
    if (!op->is_write && (f->amode & MPI_MODE_WRONLY))
        return rch_io_err(f, MPI_ERR_ACCESS, "%s: file '%s' is open write-only", fn, f->name);
    if (op->is_write && (f->amode & MPI_MODE_RDONLY))
        return rch_io_err(f, MPI_ERR_READ_ONLY, "%s: file '%s' is open read-only", fn, f->name);
    if (op->where != RCH_IO_SHARED && (f->amode & MPI_MODE_SEQUENTIAL))
        return rch_io_err(f, MPI_ERR_UNSUPPORTED_OPERATION,
                          "%s: file '%s' is open with MPI_MODE_SEQUENTIAL: only shared-pointer access", fn, f->name);
    if (op->where == RCH_IO_AT && op->offset < 0)
        return rch_io_err(f, MPI_ERR_ARG, "%s: negative offset %lld in argument offset", fn, (long long)op->offset);
    /* the data's size in the file: in external32 or a user representation
     * each item has its size there (MPI-4.1 14.5) */
    op->xsize = rch_io_file_size(f->external32, f->urep, op->dt);
    if (op->xsize < 0)
        return rch_io_err(f, MPI_ERR_UNSUPPORTED_DATAREP,
                          "%s: file '%s': the datatype has a type with no size in data representation '%s'", fn,
                          f->name, f->datarep);
    if (f->urep && !rch_io_datarep_converts(f->urep, op->is_write) && op->xsize != (MPI_Offset)t->size)
        return rch_io_err(f, MPI_ERR_UNSUPPORTED_DATAREP,
                          "%s: file '%s': data representation '%s' has no conversion function for this direction "
                          "and file sizes that differ from native ones", fn, f->name, f->datarep);
    if ((op->xsize * op->count) % (MPI_Offset)f->et->size)
        return rch_io_err(f, MPI_ERR_TYPE, "%s: file '%s': %lld bytes is not a whole number of etypes of %zu bytes",
                          fn, f->name, (long long)(op->xsize * op->count), f->et->size);
    return MPI_SUCCESS;
}

int rch_io_indep(struct ADIOI_FileD *f, int is_write, MPI_Offset pos, char *data, MPI_Offset nbytes,
                 MPI_Offset *got)
{
    struct rch_io_piece *p;
    int n;
    *got = 0;
    if (rch_io_view_pieces(f, pos, nbytes, &p, &n) != MPI_SUCCESS)
        return ENOMEM;
    if (n == 0)
        return 0;
    int e = 0;
    MPI_Offset lo = p[0].off, hi = p[0].off + p[0].len;
    for (int i = 1; i < n; i++) {
        if (p[i].off < lo)
            lo = p[i].off;
        if (p[i].off + p[i].len > hi)
            hi = p[i].off + p[i].len;
    }
    /* atomic mode: the whole range under one lock, so that concurrent
     * accesses see each other entirely or not at all (MPI-4.1 14.6.1) */
    if (f->atomic)
        e = rch_io_lock(f->fd, is_write ? F_WRLCK : F_RDLCK, lo, hi - lo);
    if (!e)
        e = rch_io_access(f, is_write, p, n, data, !f->atomic, got);
    if (f->atomic)
        rch_io_lock(f->fd, F_UNLCK, lo, hi - lo);
    free(p);
    return e;
}

/* The packers take int counts: a count over INT_MAX goes in pieces of at
 * most INT_MAX items, item k at buf + k * extent and packed at k * xsize.
 * to_file: user buffer to data, else back (got: the packed bytes there are;
 * with a conversion only whole elements are converted). 0 or an errno. */
static int convert(const struct ADIOI_FileD *f, const struct rch_io_op *op, const struct rch_mpi_type *t,
                   int to_file, char *data, MPI_Offset got)
{
    MPI_Offset xs = op->xsize > 0 ? op->xsize : 1;
    if (f->urep && rch_io_datarep_converts(f->urep, to_file))
        return rch_io_datarep_convert(f->urep, to_file, op->buf, op->dt, to_file ? op->count : got / xs, data);
    for (MPI_Count done = 0; done < op->count;) {
        int n = op->count - done > INT_MAX ? INT_MAX : (int)(op->count - done);
        char *user = (char *)op->buf + done * t->extent, *packed = data + done * xs;
        MPI_Offset bytes = (MPI_Offset)n * xs, have = got - done * xs;
        MPI_Aint pos = 0;
        if (f->external32 && to_file) {
            if (PMPI_Pack_external("external32", user, n, op->dt, packed, bytes, &pos))
                return EINVAL;
        } else if (f->external32) {
            MPI_Offset m = have <= 0 ? 0 : have / xs < n ? have / xs : n;
            if (m > 0 && PMPI_Unpack_external("external32", packed, m * xs, &pos, user, (int)m, op->dt))
                return EINVAL;
        } else if (to_file)
            rch_mpi_type_pack(user, n, t, packed);
        else if (have > 0)
            rch_mpi_type_unpack(packed, (size_t)(have < bytes ? have : bytes), user, n, t);
        done += n;
    }
    return 0;
}

MPI_Offset rch_io_native_bytes(const struct rch_io_op *op, const struct rch_mpi_type *t, MPI_Offset got)
{
    if (op->xsize == (MPI_Offset)t->size || op->xsize <= 0)
        return got;
    return got / op->xsize * (MPI_Offset)t->size;
}

/* The memory side: data is op->buf itself when it is contiguous native
 * data, else a packed copy. */
static int pack_in(const struct ADIOI_FileD *f, const struct rch_io_op *op, const struct rch_mpi_type *t,
                   MPI_Offset nbytes, char **data)
{
    int conv = f->urep && rch_io_datarep_converts(f->urep, op->is_write);
    if (t->contig && !f->external32 && !conv) {
        *data = (char *)op->buf + t->true_lb;
        return 0;
    }
    if (!(*data = malloc((size_t)nbytes + 1)))
        return ENOMEM;
    if (!op->is_write)
        return 0;
    return convert(f, op, t, 1, *data, nbytes);
}

int rch_io_unpack_out(const struct ADIOI_FileD *f, const struct rch_io_op *op, const struct rch_mpi_type *t,
                      char *data, MPI_Offset nbytes, MPI_Offset got)
{
    int e = 0;
    if (data == (char *)op->buf + t->true_lb)
        return 0;
    if (!op->is_write)
        e = convert(f, op, t, 0, data, got);
    free(data);
    return e;
}

int rch_io_prepare(struct rch_io_op *op, const struct rch_mpi_type *t, char **data, MPI_Offset *pos)
{
    struct ADIOI_FileD *f = op->f;
    MPI_Offset nbytes = op->xsize * op->count, es = (MPI_Offset)f->et->size;
    *data = NULL;
    *pos = 0;
    int e = pack_in(f, op, t, nbytes, data);
    if (op->where == RCH_IO_AT)
        *pos = op->offset * es;
    else if (op->where == RCH_IO_INDIV)
        *pos = f->fp * es;
    else if (!op->collective) {
        MPI_Offset old = 0;
        if (!e)
            e = rch_io_shared_fetch_add(f, nbytes / es, &old);
        *pos = old * es;
    } else {
        /* ordered: rank order, from the shared pointer, which moves past all */
        MPI_Offset mine = nbytes / es, before = 0, total = 0, base = 0;
        PMPI_Exscan(&mine, &before, 1, MPI_LONG, MPI_SUM, f->comm);
        PMPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, f->comm);
        int se = f->rank == 0 ? rch_io_shared_fetch_add(f, total, &base) : 0;
        PMPI_Bcast(&base, 1, MPI_LONG, 0, f->comm);
        if (f->rank == 0)
            before = 0;
        if (!e)
            e = se;
        *pos = (base + before) * es;
    }
    return e;
}

int rch_io_do(struct rch_io_op *op, MPI_Status *status)
{
    struct ADIOI_FileD *f = op->f;
    const struct rch_mpi_type *t = rch_mpi_type_get(op->dt);
    MPI_Offset nbytes = op->xsize * op->count, es = (MPI_Offset)f->et->size;
    MPI_Offset pos = 0, got = 0;
    char *data = NULL;
    int e = rch_io_prepare(op, t, &data, &pos);
    if (op->collective) {
        /* a rank that could not pack still joins the exchange with nothing to move */
        if (rch_io_coll_applies(f, op->is_write)) {
            int ce = rch_io_coll(f, op->is_write, pos, e ? NULL : data, e ? 0 : nbytes, &got);
            if (!e)
                e = ce;
        } else if (!e)
            e = rch_io_indep(f, op->is_write, pos, data, nbytes, &got);
    } else if (!e)
        e = rch_io_indep(f, op->is_write, pos, data, nbytes, &got);
    if (data) {
        int ue = rch_io_unpack_out(f, op, t, data, nbytes, got);
        e = e ? e : ue;
    }
    int code = 0;
    if (e)
        code = rch_io_errno_code(op->fn, f, e);
    code = op->collective ? rch_io_agree(f, op->fn, code, 0) : code ? rch_io_raise(f, code) : 0;
    if (code == MPI_SUCCESS) {
        if (op->where == RCH_IO_INDIV)
            f->fp += nbytes / es;
        if (status != MPI_STATUS_IGNORE)
            rch_mpi_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, (size_t)rch_io_native_bytes(op, t, got), 0);
    }
    return code;
}

int rch_io_blocking(struct rch_io_op *op, MPI_Status *status)
{
    int err = status ? rch_io_check(op)
                     : rch_io_err(op->f, MPI_ERR_ARG, "%s: argument status is NULL (MPI_STATUS_IGNORE ignores it)",
                                  op->fn);
    /* a collective call goes on only if every rank's arguments passed */
    if (op->collective)
        err = rch_io_agree(op->f, op->fn, err, 1);
    if (err)
        return err;
    return rch_io_do(op, status);
}
