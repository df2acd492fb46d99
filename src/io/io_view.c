/*
 * File views (MPI-4.1 14.3): the displacement, etype and filetype that map
 * a process's stream of data onto file bytes, and the calls that translate
 * positions (seek, get_position, get_byte_offset, get_type_extent).
 *
 * The filetype tiles the file from the displacement, tile i at
 * disp + i * extent; its flattened map (type-map order, which MPI requires
 * to be monotonically non-decreasing for a filetype) gives the file bytes
 * of each tile's data. ft_prefix[k] counts the data bytes before block k, so
 * the piece holding data byte w of a tile is found by binary search.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_impl.h"

/* The view: the user's types uet, uft (retained here) and their layouts
 * et, ft (already retained: the view takes them). */
static void view_set(struct ADIOI_FileD *f, MPI_Offset disp, struct rch_mpi_type *uet, struct rch_mpi_type *uft,
                     struct rch_mpi_type *et, struct rch_mpi_type *ft, MPI_Offset *prefix, const char *datarep)
{
    rch_mpi_type_retain(uet);
    rch_mpi_type_retain(uft);
    rch_io_view_release(f);
    f->disp = disp;
    f->uet = uet;
    f->uft = uft;
    f->et = et;
    f->ft = ft;
    f->etype = uet->handle;
    f->filetype = uft->handle;
    f->ft_prefix = prefix;
    snprintf(f->datarep, sizeof(f->datarep), "%s", datarep);
    f->external32 = !strcmp(datarep, "external32");
    f->urep = rch_io_datarep_find(datarep);
    f->fp = 0;
}

static MPI_Offset *prefix_of(const struct rch_mpi_type *ft)
{
    MPI_Offset *p = malloc((size_t)(ft->nblocks + 1) * sizeof(*p));
    if (!p)
        return NULL;
    p[0] = 0;
    for (int k = 0; k < ft->nblocks; k++)
        p[k + 1] = p[k] + (MPI_Offset)ft->blocks[k].len;
    return p;
}

void rch_io_view_default(struct ADIOI_FileD *f)
{
    struct rch_mpi_type *b = rch_mpi_type_get(MPI_BYTE);
    f->et = f->ft = f->uet = f->uft = NULL;
    f->ft_prefix = NULL;
    view_set(f, 0, b, b, b, b, prefix_of(b), "native");
}

void rch_io_view_release(struct ADIOI_FileD *f)
{
    free(f->ft_prefix);
    f->ft_prefix = NULL;
    if (f->et)
        rch_mpi_type_release(f->et);
    if (f->ft)
        rch_mpi_type_release(f->ft);
    if (f->uet)
        rch_mpi_type_release(f->uet);
    if (f->uft)
        rch_mpi_type_release(f->uft);
    f->et = f->ft = f->uet = f->uft = NULL;
}

struct piece_list {
    struct rch_io_piece *p;
    int n, cap;
};

static int piece_add(struct piece_list *l, MPI_Offset off, MPI_Offset len)
{
    if (l->n && l->p[l->n - 1].off + l->p[l->n - 1].len == off) {
        l->p[l->n - 1].len += len;
        return 0;
    }
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        struct rch_io_piece *q = realloc(l->p, (size_t)cap * sizeof(*q));
        if (!q)
            return ENOMEM;
        l->p = q;
        l->cap = cap;
    }
    l->p[l->n++] = (struct rch_io_piece){ off, len };
    return 0;
}

int rch_io_view_pieces(const struct ADIOI_FileD *f, MPI_Offset pos, MPI_Offset n, struct rch_io_piece **out,
                       int *npieces)
{
    struct piece_list l = { 0 };
    const struct rch_mpi_type *ft = f->ft;
    *out = NULL;
    *npieces = 0;
    if (n <= 0)
        return MPI_SUCCESS;
    MPI_Offset S = (MPI_Offset)ft->size, E = ft->extent;
    if (ft->contig || ft->nblocks == 1) {
        /* one block per tile: contiguous when the block fills the extent */
        if ((MPI_Offset)ft->blocks[0].len == E) {
            if (piece_add(&l, f->disp + ft->blocks[0].off + pos, n))
                return MPI_ERR_NO_MEM;
            *out = l.p;
            *npieces = l.n;
            return MPI_SUCCESS;
        }
    }
    MPI_Offset tile = pos / S, w = pos % S;
    int lo = 0, hi = ft->nblocks - 1;       /* the last block with prefix <= w */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (f->ft_prefix[mid] <= w)
            lo = mid;
        else
            hi = mid - 1;
    }
    int k = lo;
    MPI_Offset in = w - f->ft_prefix[k];
    while (n > 0) {
        MPI_Offset avail = (MPI_Offset)ft->blocks[k].len - in;
        MPI_Offset len = avail < n ? avail : n;
        if (len > 0 && piece_add(&l, f->disp + tile * E + ft->blocks[k].off + in, len)) {
            free(l.p);
            return MPI_ERR_NO_MEM;
        }
        n -= len;
        in = 0;
        if (++k == ft->nblocks) {
            k = 0;
            tile++;
        }
    }
    *out = l.p;
    *npieces = l.n;
    return MPI_SUCCESS;
}

MPI_Offset rch_io_view_data_before(const struct ADIOI_FileD *f, MPI_Offset off)
{
    MPI_Offset rel = off - f->disp;
    if (rel <= 0)
        return 0;
    const struct rch_mpi_type *ft = f->ft;
    MPI_Offset E = ft->extent, tile = rel / E, rem = rel % E;
    MPI_Offset sum = tile * (MPI_Offset)ft->size;
    for (int k = 0; k < ft->nblocks; k++) {
        MPI_Offset d = rem - ft->blocks[k].off;
        if (d > 0)
            sum += d < (MPI_Offset)ft->blocks[k].len ? d : (MPI_Offset)ft->blocks[k].len;
    }
    return sum;
}

static int datarep_known(const char *d)
{
    return !strcmp(d, "native") || !strcmp(d, "internal") || !strcmp(d, "external32") || rch_io_datarep_find(d);
}

static struct rch_mpi_type *view_type(struct ADIOI_FileD *f, const char *fn, const char *arg, MPI_Datatype dt,
                                      int *err)
{
    struct rch_mpi_type *t = rch_mpi_type_get(dt);
    if (!t)
        *err = rch_io_err(f, MPI_ERR_TYPE, "%s: invalid datatype 0x%x in argument %s", fn, (unsigned)dt, arg);
    else if (!t->committed && !t->predefined)
        *err = rch_io_err(f, MPI_ERR_TYPE, "%s: datatype in argument %s is not committed", fn, arg);
    else if (t->size == 0 || t->extent <= 0)
        *err = rch_io_err(f, MPI_ERR_TYPE, "%s: datatype in argument %s has no data or a non-positive extent", fn,
                          arg);
    else
        return t;
    return NULL;
}

/* The layouts of the view's types in datarep (retained; the types
 * themselves in native and internal), or the reported error. */
static int view_layouts(struct ADIOI_FileD *f, const char *fn, const char *datarep, struct rch_mpi_type *et,
                        struct rch_mpi_type *ft, struct rch_mpi_type **etl, struct rch_mpi_type **ftl)
{
    int x32 = !strcmp(datarep, "external32");
    const struct rch_io_datarep *u = rch_io_datarep_find(datarep);
    if (!x32 && !u) {
        rch_mpi_type_retain(*etl = et);
        rch_mpi_type_retain(*ftl = ft);
        return MPI_SUCCESS;
    }
    *etl = rch_io_file_layout(x32, u, et->handle);
    *ftl = *etl ? rch_io_file_layout(x32, u, ft->handle) : NULL;
    if (*etl && *ftl && (*etl)->size > 0 && (*ftl)->size % (*etl)->size == 0 && (*ftl)->extent > 0)
        return MPI_SUCCESS;
    rch_mpi_type_release(*etl);
    rch_mpi_type_release(*ftl);
    *etl = *ftl = NULL;
    return rch_io_err(f, MPI_ERR_UNSUPPORTED_DATAREP,
                      "%s: file '%s': the etype or filetype has a type with no size in data representation '%s', "
                      "or a layout there that is not made of etypes", fn, f->name, datarep);
}

/* What makes type t unfit for a view (NULL: nothing), per MPI-4.1 14.3:
 * "The displacements in the typemap of the filetype are required to be
 * non-negative and monotonically non-decreasing" (tiled: t is the
 * filetype, and tile i + 1 at i's displacements plus the extent must not go
 * back either), and "If the file is opened for writing, neither the etype
 * nor the filetype is permitted to contain overlapping regions" (writable).
 * Monotonicity is judged by the blocks' starts, as MPICH (ROMIO) does, so a
 * read-only view may hold a block that starts inside the one before it;
 * *at is the offending block. */
static const char *shape_fault(const struct rch_mpi_type *t, int tiled, int writable, int *at)
{
    MPI_Aint end = 0;
    for (int k = 0; k < t->nblocks; k++) {
        const struct rch_mpi_type_block *b = &t->blocks[k];
        *at = k;
        if (tiled && b->off < 0)
            return "a negative displacement";
        if (tiled && k && b->off < t->blocks[k - 1].off)
            return "displacements that decrease";
        if (writable && k && b->off < end)
            return "overlapping regions (the file is open for writing)";
        if (!k || b->off + (MPI_Aint)b->len > end)
            end = b->off + (MPI_Aint)b->len;
    }
    if (!tiled || t->nblocks == 0)
        return NULL;
    /* the next tile starts at the first block's displacement plus the extent */
    MPI_Aint next = t->blocks[0].off + t->extent;
    *at = t->nblocks;
    if (next < t->blocks[t->nblocks - 1].off)
        return "displacements that decrease from one tile to the next (extent too small)";
    if (writable && next < end)
        return "tiles that overlap (extent too small; the file is open for writing)";
    return NULL;
}

/* The view's types against 14.3's rules (shape_fault): MPI_SUCCESS or the
 * reported error, of class MPI_ERR_IO as MPICH reports it (the standard
 * names none: the view is erroneous). Checked on the file layouts, the
 * bytes the view addresses. */
static int view_shape(struct ADIOI_FileD *f, const char *fn, const struct rch_mpi_type *et,
                      const struct rch_mpi_type *ft)
{
    int writable = !(f->amode & MPI_MODE_RDONLY), at = 0;
    const char *why = shape_fault(et, 0, writable, &at);
    const char *arg = "etype";
    if (!why) {
        why = shape_fault(ft, 1, writable, &at);
        arg = "filetype";
    }
    if (!why)
        return MPI_SUCCESS;
    return rch_io_err(f, MPI_ERR_IO,
                      "%s: file '%s': argument %s has %s (at its block %d): MPI-4.1 14.3 requires a filetype's "
                      "displacements to be non-negative and non-decreasing, and no overlaps in the etype or "
                      "filetype of a file open for writing", fn, f->name, arg, why, at);
}

/* The checks of set_view's arguments: MPI_SUCCESS with the types and the
 * displacement to use, or the reported error. */
static int view_args(struct ADIOI_FileD *f, const char *fn, MPI_Offset *disp, MPI_Datatype etype,
                     MPI_Datatype filetype, const char *datarep, MPI_Info info, struct rch_mpi_type **etp,
                     struct rch_mpi_type **ftp)
{
    int err = MPI_SUCCESS;
    struct rch_mpi_type *et = view_type(f, fn, "etype", etype, &err);
    if (!et)
        return err;
    struct rch_mpi_type *ft = view_type(f, fn, "filetype", filetype, &err);
    if (!ft)
        return err;
    if (ft->size % et->size)
        return rch_io_err(f, MPI_ERR_TYPE, "%s: filetype (%zu bytes of data) is not made of etypes (%zu bytes)", fn,
                          ft->size, et->size);
    if (!datarep)
        return rch_io_err(f, MPI_ERR_ARG, "%s: argument datarep is NULL", fn);
    if (!datarep_known(datarep))
        return rch_io_err(f, MPI_ERR_UNSUPPORTED_DATAREP, "%s: file '%s': unsupported data representation '%s'", fn,
                          f->name, datarep);
    if (info != MPI_INFO_NULL && !rch_mpi_info_get(info))
        return rch_io_err(f, MPI_ERR_INFO, "%s: invalid info 0x%x in argument info", fn, (unsigned)info);
    if (*disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->amode & MPI_MODE_SEQUENTIAL))
            return rch_io_err(f, MPI_ERR_ARG,
                              "%s: MPI_DISPLACEMENT_CURRENT needs a file opened with MPI_MODE_SEQUENTIAL", fn);
        MPI_Offset cur = 0;
        int e = rch_io_shared_fetch_add(f, 0, &cur);
        if (e)
            return rch_io_raise(f, rch_io_errno_code(fn, f, e));
        *disp = f->disp + cur * (MPI_Offset)f->et->size;
    } else if (*disp < 0) {
        return rch_io_err(f, MPI_ERR_ARG, "%s: negative displacement %lld in argument disp", fn, (long long)*disp);
    }
    *etp = et;
    *ftp = ft;
    return MPI_SUCCESS;
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_set_view";
    int err;
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, &err);
    if (!f)
        return err;
    struct rch_mpi_type *et = NULL, *ft = NULL, *etl = NULL, *ftl = NULL;
    err = view_args(f, fn, &disp, etype, filetype, datarep, info, &et, &ft);
    if (!err)
        err = view_layouts(f, fn, datarep, et, ft, &etl, &ftl);
    if (!err)
        err = view_shape(f, fn, etl, ftl);
    MPI_Offset *prefix = err ? NULL : prefix_of(ftl);
    if (!err && !prefix)
        err = rch_io_err(f, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    /* collective: a bad argument on one rank fails the call on all */
    if ((err = rch_io_agree(f, fn, err, 1)) != MPI_SUCCESS) {
        free(prefix);
        rch_mpi_type_release(etl);
        rch_mpi_type_release(ftl);
        return err;
    }
    rch_io_hints_parse(&f->hints, info);
    /* Every pointer restarts at 0 (MPI-4.1 14.3): the view is collective. */
    PMPI_Barrier(f->comm);
    if (f->rank == 0)
        rch_io_shared_set(f, 0);
    PMPI_Barrier(f->comm);
    view_set(f, disp, et, ft, etl, ftl, prefix, datarep);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_set_view = PMPI_File_set_view

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_get_view";
    int err;
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, &err);
    if (!f)
        return err;
    if (!disp || !etype || !filetype || !datarep)
        return rch_io_err(f, MPI_ERR_ARG, "%s: argument %s is NULL", fn,
                          !disp ? "disp" : !etype ? "etype" : !filetype ? "filetype" : "datarep");
    *disp = f->disp;
    /* MPI-4.1 14.3: derived types come back as new handles the caller frees */
    if (f->uet->predefined)
        *etype = f->etype;
    else if ((err = PMPI_Type_dup(f->etype, etype)) != MPI_SUCCESS)
        return err;
    if (f->uft->predefined)
        *filetype = f->filetype;
    else if ((err = PMPI_Type_dup(f->filetype, filetype)) != MPI_SUCCESS)
        return err;
    strcpy(datarep, f->datarep);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_view = PMPI_File_get_view

/* ---- positions ---- */

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_seek";
    int err;
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, &err);
    if (!f)
        return err;
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return rch_io_err(f, MPI_ERR_UNSUPPORTED_OPERATION, "%s: file '%s' is open with MPI_MODE_SEQUENTIAL", fn,
                          f->name);
    MPI_Offset base;
    if (whence == MPI_SEEK_SET)
        base = 0;
    else if (whence == MPI_SEEK_CUR)
        base = f->fp;
    else if (whence == MPI_SEEK_END) {
        MPI_Offset size;
        if ((err = PMPI_File_get_size(fh, &size)) != MPI_SUCCESS)
            return err;
        MPI_Offset es = (MPI_Offset)f->et->size;
        base = (rch_io_view_data_before(f, size) + es - 1) / es;
    } else
        return rch_io_err(f, MPI_ERR_ARG, "%s: invalid whence %d (MPI_SEEK_SET, _CUR or _END)", fn, whence);
    if (base + offset < 0)
        return rch_io_err(f, MPI_ERR_ARG, "%s: file '%s': seek to the negative offset %lld", fn, f->name,
                          (long long)(base + offset));
    f->fp = base + offset;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_seek = PMPI_File_seek

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_get_position";
    int err;
    struct ADIOI_FileD *f = rch_io_file_query(fn, fh, offset, "offset", &err);
    if (!f)
        return err;
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return rch_io_err(f, MPI_ERR_UNSUPPORTED_OPERATION, "%s: file '%s' is open with MPI_MODE_SEQUENTIAL", fn,
                          f->name);
    *offset = f->fp;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_position = PMPI_File_get_position

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_get_byte_offset";
    int err;
    struct ADIOI_FileD *f = rch_io_file_query(fn, fh, disp, "disp", &err);
    if (!f)
        return err;
    if (offset < 0)
        return rch_io_err(f, MPI_ERR_ARG, "%s: negative offset %lld", fn, (long long)offset);
    struct rch_io_piece *p;
    int n;
    if (rch_io_view_pieces(f, offset * (MPI_Offset)f->et->size, 1, &p, &n) != MPI_SUCCESS)
        return rch_io_err(f, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *disp = p[0].off;
    free(p);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset

static int type_extent(const char *fn, MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    int err;
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, &err);
    if (!f)
        return err;
    struct rch_mpi_type *t = rch_mpi_type_get(datatype);
    if (!t)
        return rch_io_err(f, MPI_ERR_TYPE, "%s: invalid datatype 0x%x in argument datatype", fn,
                          (unsigned)datatype);
    if (!extent)
        return rch_io_err(f, MPI_ERR_ARG, "%s: argument extent is NULL", fn);
    /* the extent in the file of the view's representation (MPI-4.1 14.5.1) */
    if (!f->external32 && !f->urep) {
        *extent = t->extent;
        return MPI_SUCCESS;
    }
    struct rch_mpi_type *l = rch_io_file_layout(f->external32, f->urep, datatype);
    if (!l)
        return rch_io_err(f, MPI_ERR_UNSUPPORTED_DATAREP, "%s: file '%s': the datatype has a type with no size in "
                          "data representation '%s'", fn, f->name, f->datarep);
    *extent = l->extent;
    rch_mpi_type_release(l);
    return MPI_SUCCESS;
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    RCH_MPI_CS();
    MPI_Count x = 0;
    int err = type_extent("MPI_File_get_type_extent", fh, datatype, &x);
    if (!err && extent)
        *extent = (MPI_Aint)x;
    return err;
}
#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    RCH_MPI_CS();
    return type_extent("MPI_File_get_type_extent_c", fh, datatype, extent);
}
#pragma weak MPI_File_get_type_extent_c = PMPI_File_get_type_extent_c
