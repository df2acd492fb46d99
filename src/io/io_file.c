/*
 * File objects: the table of open files, file error handlers, and the
 * calls on a file as a whole (open, close, delete, sizes, group, amode,
 * info and hints, atomicity, sync, Fortran handles).
 *
 * Errors on files go to the file's handler; MPI_FILE_NULL's handler is the
 * default for new files and for calls with no valid file (MPI-4.1 9.3:
 * initially MPI_ERRORS_RETURN).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "boot/boot.h"
#include "io/io_impl.h"

static struct ADIOI_FileD **table;
static int table_len, table_cap;
static MPI_Errhandler null_errhandler = MPI_ERRORS_RETURN;

/* File error handlers made by MPI_File_create_errhandler: ordinary handler
 * objects (so MPI_Errhandler_free knows them) whose function takes a file. */
static struct fhandler {
    MPI_Errhandler handle;
    MPI_File_errhandler_function *fn;
} *fhandlers;
static int nfhandlers;

struct ADIOI_FileD *rch_io_file_get(MPI_File fh)
{
    if (fh == MPI_FILE_NULL)
        return NULL;
    for (int i = 0; i < table_len; i++)
        if (table[i] == fh)
            return fh->magic == RCH_IO_MAGIC ? fh : NULL;
    return NULL;
}

static MPI_File_errhandler_function *fhandler_fn(MPI_Errhandler eh)
{
    for (int i = 0; i < nfhandlers; i++)
        if (fhandlers[i].handle == eh)
            return fhandlers[i].fn;
    return NULL;
}

static int predefined_eh(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT ||
           eh == MPIR_ERRORS_THROW_EXCEPTIONS;
}

int rch_io_raise(struct ADIOI_FileD *f, int code)
{
    MPI_Errhandler eh = f ? f->errhandler : null_errhandler;
    if (eh == MPI_ERRORS_RETURN || eh == MPIR_ERRORS_THROW_EXCEPTIONS)
        return code;
    MPI_File_errhandler_function *fn = fhandler_fn(eh);
    if (fn) {
        MPI_File h = f ? f : MPI_FILE_NULL;
        int c2 = code;
        fn(&h, &c2);
        return code;
    }
    char text[MPI_MAX_ERROR_STRING + 64], msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (PMPI_Error_string(code, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof(msg), "error code %d", code);
    snprintf(text, sizeof(text), "MPI error (class %d) on file %s: %s", RCH_MPI_ERR_CLASS(code),
             f ? f->name : "MPI_FILE_NULL", msg);
    rch_boot_abort(1, text);
    return code;
}

int rch_io_err(struct ADIOI_FileD *f, int cls, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return rch_io_raise(f, rch_mpi_err_code(cls, "%s", msg));
}

int rch_io_class_of_errno(int e)
{
    switch (e) {
    case ENOENT: case ENOTDIR: return MPI_ERR_NO_SUCH_FILE;
    case EACCES: case EPERM: return MPI_ERR_ACCESS;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC: case EFBIG: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case ENAMETOOLONG: return MPI_ERR_BAD_FILE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    case EBUSY: case ETXTBSY: return MPI_ERR_FILE_IN_USE;
    case EILSEQ: return MPI_ERR_CONVERSION;   /* a data representation's conversion failed */
    default: return MPI_ERR_IO;
    }
}

struct ADIOI_FileD *rch_io_file_arg(const char *fn, MPI_File fh, int *err)
{
    *err = rch_mpi_check_init(fn);
    if (*err)
        return NULL;
    struct ADIOI_FileD *f = rch_io_file_get(fh);
    if (!f)
        *err = rch_io_err(NULL, MPI_ERR_FILE, "%s: invalid file handle %p in argument fh%s", fn, (void *)fh,
                          fh == MPI_FILE_NULL ? " (MPI_FILE_NULL)" : "");
    return f;
}

struct ADIOI_FileD *rch_io_file_query(const char *fn, MPI_File fh, const void *out, const char *arg, int *err)
{
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, err);
    if (f && !out) {
        *err = rch_io_err(f, MPI_ERR_ARG, "%s: argument %s is NULL", fn, arg);
        return NULL;
    }
    return f;
}

int rch_io_errno_code(const char *fn, const struct ADIOI_FileD *f, int e)
{
    return e ? rch_mpi_err_code(rch_io_class_of_errno(e), "%s: file '%s': %s", fn, f->name, strerror(e)) : 0;
}

int rch_io_same(MPI_Comm comm, long v)
{
    long mm[2] = { v, -v }, agg[2];
    if (PMPI_Allreduce(mm, agg, 2, MPI_LONG, MPI_MAX, comm) != MPI_SUCCESS)
        return 0;
    return agg[0] == -agg[1];
}

int rch_io_agree(struct ADIOI_FileD *f, const char *fn, int local_code, int raised)
{
    int mine[2] = { local_code ? RCH_MPI_ERR_CLASS(local_code) : 0, local_code ? f->rank : -1 };
    int all[2];
    if (PMPI_Allreduce(mine, all, 1, MPI_2INT, MPI_MAXLOC, f->comm) != MPI_SUCCESS)
        return rch_io_err(f, MPI_ERR_INTERN, "%s: file '%s': agreement on the outcome failed", fn, f->name);
    if (all[0] == 0)
        return MPI_SUCCESS;
    if (local_code)
        return raised ? local_code : rch_io_raise(f, local_code);
    return rch_io_err(f, all[0], "%s: file '%s': the operation failed on rank %d (error class %d)", fn, f->name,
                      all[1], all[0]);
}

/* ---- hints ---- */

static void hints_default(struct rch_io_hints *h)
{
    h->cb_buffer_size = 16 << 20;
    h->cb_nodes = 0;
    h->cb_read = h->cb_write = RCH_IO_AUTO;
    h->ds_read = h->ds_write = RCH_IO_AUTO;
    h->ind_rd_buffer_size = 4 << 20;
    h->ind_wr_buffer_size = 512 << 10;
    h->striping_unit = 0;
    h->write_behind = 1 << 20;
}

/* A size hint of at least min (malformed values are ignored). */
static void hint_size_min(const struct rch_mpi_info *in, const char *key, MPI_Offset *v, long long min)
{
    const char *s = rch_mpi_info_lookup(in, key);
    char *end;
    if (!s)
        return;
    long long x = strtoll(s, &end, 10);
    if (end != s && *end == '\0' && x >= min)
        *v = x;
}

static void hint_size(const struct rch_mpi_info *in, const char *key, MPI_Offset *v)
{
    hint_size_min(in, key, v, 1);
}

static void hint_switch(const struct rch_mpi_info *in, const char *key, int *v)
{
    const char *s = rch_mpi_info_lookup(in, key);
    if (!s)
        return;
    if (!strcmp(s, "enable"))
        *v = RCH_IO_ENABLE;
    else if (!strcmp(s, "disable"))
        *v = RCH_IO_DISABLE;
    else if (!strcmp(s, "automatic"))
        *v = RCH_IO_AUTO;
}

void rch_io_hints_parse(struct rch_io_hints *h, MPI_Info info)
{
    const struct rch_mpi_info *in = info == MPI_INFO_NULL ? NULL : rch_mpi_info_get(info);
    if (!in)
        return;
    MPI_Offset nodes = h->cb_nodes;
    hint_size(in, "cb_buffer_size", &h->cb_buffer_size);
    if (h->cb_buffer_size > RCH_IO_CB_MAX)
        h->cb_buffer_size = RCH_IO_CB_MAX;
    hint_size(in, "cb_nodes", &nodes);
    h->cb_nodes = nodes > 0x7fffffff ? 0x7fffffff : (int)nodes;
    hint_switch(in, "romio_cb_read", &h->cb_read);
    hint_switch(in, "romio_cb_write", &h->cb_write);
    hint_switch(in, "romio_ds_read", &h->ds_read);
    hint_switch(in, "romio_ds_write", &h->ds_write);
    hint_size(in, "ind_rd_buffer_size", &h->ind_rd_buffer_size);
    hint_size(in, "ind_wr_buffer_size", &h->ind_wr_buffer_size);
    hint_size(in, "striping_unit", &h->striping_unit);
    hint_size_min(in, "rdmach_write_behind", &h->write_behind, 0);
}

static const char *switch_name(int v)
{
    return v == RCH_IO_ENABLE ? "enable" : v == RCH_IO_DISABLE ? "disable" : "automatic";
}

/* ---- open and close ---- */

static int check_amode(int amode)
{
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    if (rw != 1)
        return 0;
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return 0;
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        return 0;
    return (amode & ~511) == 0;
}

static int table_add(struct ADIOI_FileD *f)
{
    for (int i = 0; i < table_len; i++)
        if (!table[i]) {
            table[i] = f;
            f->index = i + 1;
            return 0;
        }
    if (table_len == table_cap) {
        int cap = table_cap ? 2 * table_cap : 16;
        struct ADIOI_FileD **t = realloc(table, (size_t)cap * sizeof(*t));
        if (!t)
            return ENOMEM;
        table = t;
        table_cap = cap;
    }
    table[table_len++] = f;
    f->index = table_len;
    return 0;
}

static void file_free(struct ADIOI_FileD *f)
{
    if (f->index > 0)
        table[f->index - 1] = NULL;
    if (f->fd >= 0)
        close(f->fd);
    rch_io_view_release(f);
    if (f->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&f->comm);
    if (f->acomm != MPI_COMM_NULL)
        PMPI_Comm_free(&f->acomm);
    f->magic = 0;
    free(f->aggr);
    free(f->cb_work);
    free(f->shname);
    free(f->name);
    free(f);
}

/* Rank 0 creates the file (honouring EXCL) before the others open it, so
 * EXCL fails on exactly one rank's attempt and then on every rank. */
static int open_local(struct ADIOI_FileD *f, int create_step)
{
    int flags = (f->amode & MPI_MODE_RDONLY) ? O_RDONLY : (f->amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
    if (create_step) {
        flags |= O_CREAT;
        if (f->amode & MPI_MODE_EXCL)
            flags |= O_EXCL;
    }
    f->fd = open(f->name, flags | O_CLOEXEC, 0666);
    return f->fd < 0 ? errno : 0;
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_open";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_io_err(NULL, MPI_ERR_COMM, "%s: invalid communicator 0x%x in argument comm", fn, (unsigned)comm);
    if (c->is_inter)
        return rch_io_err(NULL, MPI_ERR_COMM, "%s: argument comm is an intercommunicator", fn);
    if (!fh)
        return rch_io_err(NULL, MPI_ERR_ARG, "%s: argument fh is NULL", fn);
    if (!filename)
        return rch_io_err(NULL, MPI_ERR_BAD_FILE, "%s: argument filename is NULL", fn);
    if (info != MPI_INFO_NULL && !rch_mpi_info_get(info))
        return rch_io_err(NULL, MPI_ERR_INFO, "%s: invalid info 0x%x in argument info", fn, (unsigned)info);
    *fh = MPI_FILE_NULL;
    /* Every rank must pass the same amode: agree before anything else. */
    if (!rch_io_same(comm, amode))
        return rch_io_err(NULL, MPI_ERR_NOT_SAME, "%s: file '%s': ranks passed different amode values", fn,
                          filename);
    if (!check_amode(amode))
        return rch_io_err(NULL, MPI_ERR_AMODE,
                          "%s: file '%s': invalid amode 0x%x (exactly one of RDONLY, WRONLY, RDWR; no CREATE or "
                          "EXCL with RDONLY; no SEQUENTIAL with RDWR)", fn, filename, (unsigned)amode);
    /* ROMIO accepts a "prefix:" naming the file system ("ufs:", "nfs:"...). */
    const char *colon = strchr(filename, ':');
    const char *path = colon && colon - filename > 1 && colon - filename < 16 ? colon + 1 : filename;
    struct ADIOI_FileD *f = calloc(1, sizeof(*f));
    if (!f)
        return rch_io_err(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    f->magic = RCH_IO_MAGIC;
    f->fd = -1;
    f->shfd = -1;
    f->amode = amode;
    f->errhandler = null_errhandler;
    f->comm = f->acomm = MPI_COMM_NULL;
    f->split_req = MPI_REQUEST_NULL;
    f->name = strdup(path);
    hints_default(&f->hints);
    rch_io_hints_parse(&f->hints, info);
    rch_io_view_default(f);
    if (!f->name || table_add(f) || PMPI_Comm_dup(comm, &f->comm) != MPI_SUCCESS ||
        PMPI_Comm_dup(f->comm, &f->acomm) != MPI_SUCCESS) {
        file_free(f);
        return rch_io_err(NULL, MPI_ERR_NO_MEM, "%s: file '%s': out of memory", fn, filename);
    }
    PMPI_Comm_rank(f->comm, &f->rank);
    PMPI_Comm_size(f->comm, &f->size);
    int e = 0;
    if (f->rank == 0)
        e = open_local(f, (amode & MPI_MODE_CREATE) != 0);
    PMPI_Bcast(&e, 1, MPI_INT, 0, f->comm);
    if (e == 0 && f->rank != 0)
        e = open_local(f, 0);
    /* collective steps every rank takes, whatever its open did */
    int ea = rch_io_coll_aggregators(f), es = rch_io_shared_open(f);
    e = e ? e : ea ? ea : es;
    int code = e ? rch_mpi_err_code(rch_io_class_of_errno(e), "%s: file '%s': %s", fn, filename, strerror(e)) : 0;
    int mine[2] = { code ? RCH_MPI_ERR_CLASS(code) : 0, code ? f->rank : -1 }, all[2];
    PMPI_Allreduce(mine, all, 1, MPI_2INT, MPI_MAXLOC, f->comm);
    if (all[0] != 0) {
        if (!code)
            code = rch_mpi_err_code(all[0], "%s: file '%s': the open failed on rank %d", fn, filename, all[1]);
        file_free(f);
        return rch_io_raise(NULL, code);
    }
    if (amode & MPI_MODE_APPEND) {
        /* MPI-4.1 14.2.1: both pointers start at the end of the file */
        struct stat st;
        if (fstat(f->fd, &st) == 0) {
            f->fp = st.st_size;
            if (f->rank == 0)
                rch_io_shared_set(f, st.st_size);
        }
        PMPI_Barrier(f->comm);
    }
    *fh = f;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_open = PMPI_File_open

int PMPI_File_close(MPI_File *fh)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_close";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!fh)
        return rch_io_err(NULL, MPI_ERR_ARG, "%s: argument fh is NULL", fn);
    struct ADIOI_FileD *f = rch_io_file_arg(fn, *fh, &err);
    if (!f)
        return err;
    rch_io_nb_drain(f);   /* accesses still in flight (MPI: erroneous) finish first */
    int e = close(f->fd) == 0 ? 0 : errno;
    f->fd = -1;
    rch_io_shared_close(f);
    PMPI_Barrier(f->comm);   /* everyone closed before the file goes */
    if (f->rank == 0 && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && unlink(f->name) != 0 && !e)
        e = errno;
    int code = rch_io_errno_code(fn, f, e);
    code = rch_io_agree(f, fn, code, 0);
    file_free(f);
    *fh = MPI_FILE_NULL;
    return code;
}
#pragma weak MPI_File_close = PMPI_File_close

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_delete";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!filename)
        return rch_io_err(NULL, MPI_ERR_BAD_FILE, "%s: argument filename is NULL", fn);
    const char *colon = strchr(filename, ':');
    const char *path = colon && colon - filename > 1 && colon - filename < 16 ? colon + 1 : filename;
    if (unlink(path) != 0) {
        int e = errno;
        return rch_io_err(NULL, rch_io_class_of_errno(e), "%s: file '%s': %s", fn, filename, strerror(e));
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_File_delete = PMPI_File_delete

/* ---- sizes ---- */

static int resize(const char *fn, MPI_File fh, MPI_Offset size, int grow_only)
{
    int err;
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, &err);
    if (!f)
        return err;
    if (f->amode & MPI_MODE_RDONLY)
        return rch_io_err(f, MPI_ERR_READ_ONLY, "%s: file '%s' is open read-only", fn, f->name);
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return rch_io_err(f, MPI_ERR_UNSUPPORTED_OPERATION, "%s: file '%s' is open with MPI_MODE_SEQUENTIAL", fn,
                          f->name);
    if (!rch_io_same(f->comm, size))
        return rch_io_err(f, MPI_ERR_NOT_SAME, "%s: file '%s': ranks passed different sizes", fn, f->name);
    if (size < 0)   /* after the agreement: every rank has the same size */
        return rch_io_err(f, MPI_ERR_ARG, "%s: file '%s': negative size %lld in argument size", fn, f->name,
                          (long long)size);
    int e = 0;
    if (f->rank == 0) {
        struct stat st;
        if (fstat(f->fd, &st) != 0)
            e = errno;
        else if (!grow_only)
            e = ftruncate(f->fd, size) == 0 ? 0 : errno;
        else if (size > st.st_size) {
            e = posix_fallocate(f->fd, 0, size);
            if (e == EOPNOTSUPP || e == EINVAL)
                e = ftruncate(f->fd, size) == 0 ? 0 : errno;
        }
    }
    int code = rch_io_errno_code(fn, f, e);
    return rch_io_agree(f, fn, code, 0);
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    RCH_MPI_CS();
    return resize("MPI_File_set_size", fh, size, 0);
}
#pragma weak MPI_File_set_size = PMPI_File_set_size

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    RCH_MPI_CS();
    return resize("MPI_File_preallocate", fh, size, 1);
}
#pragma weak MPI_File_preallocate = PMPI_File_preallocate

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_get_size";
    int err;
    struct ADIOI_FileD *f = rch_io_file_query(fn, fh, size, "size", &err);
    if (!f)
        return err;
    struct stat st;
    if (fstat(f->fd, &st) != 0) {
        int e = errno;
        return rch_io_raise(f, rch_io_errno_code(fn, f, e));
    }
    *size = st.st_size;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_size = PMPI_File_get_size

/* ---- group, amode, atomicity, sync ---- */

int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_get_group";
    int err;
    struct ADIOI_FileD *f = rch_io_file_query(fn, fh, group, "group", &err);
    if (!f)
        return err;
    return PMPI_Comm_group(f->comm, group);
}
#pragma weak MPI_File_get_group = PMPI_File_get_group

/* A query of one int of the file: name, argument, value. */
#define GETTER(name, arg, value)                                                   \
    int PMPI_File_##name(MPI_File fh, int *arg)                                    \
    {                                                                              \
        RCH_MPI_CS();                                                              \
        int err;                                                                   \
        struct ADIOI_FileD *f = rch_io_file_query("MPI_File_" #name, fh, arg, #arg, &err); \
        if (!f)                                                                    \
            return err;                                                            \
        *arg = value;                                                              \
        return MPI_SUCCESS;                                                        \
    }
GETTER(get_amode, amode, f->amode)
#pragma weak MPI_File_get_amode = PMPI_File_get_amode
GETTER(get_atomicity, flag, f->atomic)
#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_set_atomicity";
    int err;
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, &err);
    if (!f)
        return err;
    if (!rch_io_same(f->comm, !!flag))
        return rch_io_err(f, MPI_ERR_NOT_SAME, "%s: file '%s': ranks passed different flags", fn, f->name);
    f->atomic = !!flag;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity

int PMPI_File_sync(MPI_File fh)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_sync";
    int err;
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, &err);
    if (!f)
        return err;
    if (f->amode & MPI_MODE_RDONLY)
        return rch_io_err(f, MPI_ERR_ACCESS, "%s: file '%s' is open read-only", fn, f->name);
    int e = fsync(f->fd) == 0 || errno == EINVAL ? 0 : errno;
    int code = rch_io_errno_code(fn, f, e);
    return rch_io_agree(f, fn, code, 0);
}
#pragma weak MPI_File_sync = PMPI_File_sync

/* ---- info ---- */

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_set_info";
    int err;
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, &err);
    if (!f)
        return err;
    if (info != MPI_INFO_NULL && !rch_mpi_info_get(info))
        return rch_io_err(f, MPI_ERR_INFO, "%s: invalid info 0x%x in argument info", fn, (unsigned)info);
    rch_io_hints_parse(&f->hints, info);
    int e = rch_io_coll_aggregators(f);
    return rch_io_agree(f, fn, e ? rch_mpi_err_code(MPI_ERR_NO_MEM, "%s: out of memory", fn) : 0, 0);
}
#pragma weak MPI_File_set_info = PMPI_File_set_info

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_get_info";
    int err;
    struct ADIOI_FileD *f = rch_io_file_query(fn, fh, info_used, "info_used", &err);
    if (!f)
        return err;
    MPI_Info in;
    if ((err = PMPI_Info_create(&in)) != MPI_SUCCESS)
        return err;
    char v[64];
#define SETN(key, val) snprintf(v, sizeof(v), "%lld", (long long)(val)), PMPI_Info_set(in, key, v)
    SETN("cb_buffer_size", f->hints.cb_buffer_size);
    SETN("cb_nodes", f->naggr);
    PMPI_Info_set(in, "romio_cb_read", switch_name(f->hints.cb_read));
    PMPI_Info_set(in, "romio_cb_write", switch_name(f->hints.cb_write));
    PMPI_Info_set(in, "romio_ds_read", switch_name(f->hints.ds_read));
    PMPI_Info_set(in, "romio_ds_write", switch_name(f->hints.ds_write));
    SETN("ind_rd_buffer_size", f->hints.ind_rd_buffer_size);
    SETN("ind_wr_buffer_size", f->hints.ind_wr_buffer_size);
    if (f->hints.striping_unit)
        SETN("striping_unit", f->hints.striping_unit);
    SETN("rdmach_write_behind", f->hints.write_behind);
#undef SETN
    *info_used = in;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_info = PMPI_File_get_info

/* ---- error handlers ---- */

/* The error-handler calls take MPI_FILE_NULL too (the handler of files not
 * yet opened): *f is then NULL. */
static int file_or_null(const char *fn, MPI_File fh, struct ADIOI_FileD **f)
{
    int err = rch_mpi_check_init(fn);
    *f = NULL;
    if (!err && fh != MPI_FILE_NULL)
        *f = rch_io_file_arg(fn, fh, &err);
    return err;
}

int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_create_errhandler";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!file_errhandler_fn)
        return rch_io_err(NULL, MPI_ERR_ARG, "%s: argument file_errhandler_fn is NULL", fn);
    if (!errhandler)
        return rch_io_err(NULL, MPI_ERR_ARG, "%s: argument errhandler is NULL", fn);
    struct fhandler *p = realloc(fhandlers, (size_t)(nfhandlers + 1) * sizeof(*p));
    if (!p)
        return rch_io_err(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    fhandlers = p;
    err = PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void *)file_errhandler_fn, errhandler);
    if (err)
        return err;
    fhandlers[nfhandlers++] = (struct fhandler){ *errhandler, file_errhandler_fn };
    return MPI_SUCCESS;
}
#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_set_errhandler";
    struct ADIOI_FileD *f;
    int err = file_or_null(fn, file, &f);
    if (err)
        return err;
    if (!predefined_eh(errhandler) && !fhandler_fn(errhandler))
        return rch_io_err(f, MPI_ERR_ARG,
                          "%s: 0x%x in argument errhandler is not a file error handler (predefined, or from "
                          "MPI_File_create_errhandler)", fn, (unsigned)errhandler);
    if (f)
        f->errhandler = errhandler;
    else
        null_errhandler = errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_get_errhandler";
    struct ADIOI_FileD *f;
    int err = file_or_null(fn, file, &f);
    if (err)
        return err;
    if (!errhandler)
        return rch_io_err(f, MPI_ERR_ARG, "%s: argument errhandler is NULL", fn);
    *errhandler = f ? f->errhandler : null_errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_call_errhandler";
    struct ADIOI_FileD *f;
    int err = file_or_null(fn, fh, &f);
    if (err)
        return err;
    rch_io_raise(f, errorcode);
    return MPI_SUCCESS;
}
#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler

/* ---- Fortran handles: the table index (0 is MPI_FILE_NULL) ---- */

MPI_Fint PMPI_File_c2f(MPI_File file)
{
    struct ADIOI_FileD *f = rch_io_file_get(file);
    return f ? f->index : 0;
}
#pragma weak MPI_File_c2f = PMPI_File_c2f

MPI_File PMPI_File_f2c(MPI_Fint file)
{
    if (file <= 0 || file > table_len)
        return MPI_FILE_NULL;
    return table[file - 1];
}
#pragma weak MPI_File_f2c = PMPI_File_f2c
