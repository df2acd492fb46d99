/*
 * The data-access entry points (MPI-4.1 14.4): for read and write, each of
 * explicit offset, individual pointer and shared pointer, blocking,
 * non-blocking, collective and split collective, with int and large
 * (MPI_Count, "_c") counts: 62 functions made by the macros below from one
 * description of each.
 *
 * Non-blocking calls and a split collective's _begin start the access
 * (io_nb.c) and return; _end waits for the request _begin kept.
 */
#include "io/io_impl.h"

static int split_begin(struct rch_io_op *op)
{
    struct ADIOI_FileD *f = op->f;
    if (f->split_active)
        return rch_io_err(f, MPI_ERR_OTHER, "%s: file '%s' already has a split collective in progress", op->fn,
                          f->name);
    f->split_req = MPI_REQUEST_NULL;
    f->split_err = rch_io_nb_start(op, &f->split_req);
    f->split_active = 1;
    return f->split_err;
}

static int split_end(const char *fn, MPI_File fh, MPI_Status *status)
{
    int err;
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, &err);
    if (!f)
        return err;
    if (!f->split_active)
        return rch_io_err(f, MPI_ERR_OTHER, "%s: file '%s' has no split collective in progress", fn, f->name);
    if (!status)
        return rch_io_err(f, MPI_ERR_ARG, "%s: argument status is NULL (MPI_STATUS_IGNORE ignores it)", fn);
    f->split_active = 0;
    if (f->split_err)
        return f->split_err;
    return PMPI_Wait(&f->split_req, status);
}

/* The common head of an entry point: init, the file, the op. */
#define OP_BEGIN(name, wr, wh, off, coll)                                                            \
    RCH_MPI_CS();                                                                                    \
    int err_;                                                                                        \
    struct ADIOI_FileD *f_ = rch_io_file_arg("MPI_File_" name, fh, &err_);                           \
    if (!f_)                                                                                         \
        return err_;                                                                                 \
    struct rch_io_op op_ = { "MPI_File_" name, f_, wr, wh, off, (void *)buf, count, datatype, coll };

/* One access kind (name, write?, where, collective?) in its four forms. */
#define ACCESS(nm, wr, wh, coll, ctype, vtype, sfx)                                                   \
    int PMPI_File_##nm##sfx(MPI_File fh, vtype *buf, ctype count, MPI_Datatype datatype,              \
                            MPI_Status *status)                                                       \
    {                                                                                                 \
        OP_BEGIN(#nm #sfx, wr, wh, 0, coll)                                                           \
        return rch_io_blocking(&op_, status);                                                         \
    }                                                                                                 \
    _Pragma(RCH_IO_STR(weak MPI_File_##nm##sfx = PMPI_File_##nm##sfx))
#define ACCESS_AT(nm, wr, coll, ctype, vtype, sfx)                                                    \
    int PMPI_File_##nm##sfx(MPI_File fh, MPI_Offset offset, vtype *buf, ctype count,                  \
                            MPI_Datatype datatype, MPI_Status *status)                                \
    {                                                                                                 \
        OP_BEGIN(#nm #sfx, wr, RCH_IO_AT, offset, coll)                                               \
        return rch_io_blocking(&op_, status);                                                         \
    }                                                                                                 \
    _Pragma(RCH_IO_STR(weak MPI_File_##nm##sfx = PMPI_File_##nm##sfx))
#define IACCESS(nm, wr, wh, coll, ctype, vtype, sfx)                                                  \
    int PMPI_File_i##nm##sfx(MPI_File fh, vtype *buf, ctype count, MPI_Datatype datatype,             \
                             MPI_Request *request)                                                    \
    {                                                                                                 \
        OP_BEGIN("i" #nm #sfx, wr, wh, 0, coll)                                                       \
        return rch_io_nb_start(&op_, request);                                                            \
    }                                                                                                 \
    _Pragma(RCH_IO_STR(weak MPI_File_i##nm##sfx = PMPI_File_i##nm##sfx))
#define IACCESS_AT(nm, wr, coll, ctype, vtype, sfx)                                                   \
    int PMPI_File_i##nm##sfx(MPI_File fh, MPI_Offset offset, vtype *buf, ctype count,                 \
                             MPI_Datatype datatype, MPI_Request *request)                             \
    {                                                                                                 \
        OP_BEGIN("i" #nm #sfx, wr, RCH_IO_AT, offset, coll)                                           \
        return rch_io_nb_start(&op_, request);                                                            \
    }                                                                                                 \
    _Pragma(RCH_IO_STR(weak MPI_File_i##nm##sfx = PMPI_File_i##nm##sfx))
#define BEGIN(nm, wr, wh, ctype, vtype, sfx)                                                          \
    int PMPI_File_##nm##_begin##sfx(MPI_File fh, vtype *buf, ctype count, MPI_Datatype datatype)      \
    {                                                                                                 \
        OP_BEGIN(#nm "_begin" #sfx, wr, wh, 0, 1)                                                     \
        return split_begin(&op_);                                                                     \
    }                                                                                                 \
    _Pragma(RCH_IO_STR(weak MPI_File_##nm##_begin##sfx = PMPI_File_##nm##_begin##sfx))
#define BEGIN_AT(nm, wr, ctype, vtype, sfx)                                                           \
    int PMPI_File_##nm##_begin##sfx(MPI_File fh, MPI_Offset offset, vtype *buf, ctype count,          \
                                    MPI_Datatype datatype)                                            \
    {                                                                                                 \
        OP_BEGIN(#nm "_begin" #sfx, wr, RCH_IO_AT, offset, 1)                                         \
        return split_begin(&op_);                                                                     \
    }                                                                                                 \
    _Pragma(RCH_IO_STR(weak MPI_File_##nm##_begin##sfx = PMPI_File_##nm##_begin##sfx))
#define END(nm, vtype)                                                                                \
    int PMPI_File_##nm##_end(MPI_File fh, vtype *buf, MPI_Status *status)                             \
    {                                                                                                 \
        RCH_MPI_CS();                                                                                 \
        (void)buf;                                                                                    \
        return split_end("MPI_File_" #nm "_end", fh, status);                                         \
    }                                                                                                 \
    _Pragma(RCH_IO_STR(weak MPI_File_##nm##_end = PMPI_File_##nm##_end))
#define RCH_IO_STR(x) #x

/* Every form of reading (wr 0, void) or writing (wr 1, const void). */
#define FAMILY(rw, wr, ctype, vtype, sfx)                                   \
    ACCESS_AT(rw##_at, wr, 0, ctype, vtype, sfx)                            \
    ACCESS_AT(rw##_at_all, wr, 1, ctype, vtype, sfx)                        \
    ACCESS(rw, wr, RCH_IO_INDIV, 0, ctype, vtype, sfx)                      \
    ACCESS(rw##_all, wr, RCH_IO_INDIV, 1, ctype, vtype, sfx)                \
    ACCESS(rw##_shared, wr, RCH_IO_SHARED, 0, ctype, vtype, sfx)            \
    ACCESS(rw##_ordered, wr, RCH_IO_SHARED, 1, ctype, vtype, sfx)           \
    IACCESS_AT(rw##_at, wr, 0, ctype, vtype, sfx)                           \
    IACCESS_AT(rw##_at_all, wr, 1, ctype, vtype, sfx)                       \
    IACCESS(rw, wr, RCH_IO_INDIV, 0, ctype, vtype, sfx)                     \
    IACCESS(rw##_all, wr, RCH_IO_INDIV, 1, ctype, vtype, sfx)               \
    IACCESS(rw##_shared, wr, RCH_IO_SHARED, 0, ctype, vtype, sfx)           \
    BEGIN_AT(rw##_at_all, wr, ctype, vtype, sfx)                            \
    BEGIN(rw##_all, wr, RCH_IO_INDIV, ctype, vtype, sfx)                    \
    BEGIN(rw##_ordered, wr, RCH_IO_SHARED, ctype, vtype, sfx)

FAMILY(read, 0, int, void, )
FAMILY(write, 1, int, const void, )
FAMILY(read, 0, MPI_Count, void, _c)
FAMILY(write, 1, MPI_Count, const void, _c)
END(read_at_all, void)
END(read_all, void)
END(read_ordered, void)
END(write_at_all, const void)
END(write_all, const void)
END(write_ordered, const void)
