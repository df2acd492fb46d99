/*
 * The shared file pointer: an 8-byte counter (etypes of the view) in a
 * small side file next to the data file, updated under an fcntl lock. A
 * side file works across nodes on any file system whose locks do (NFS with
 * lockd, Lustre, GPFS), needs no progress from a rank holding a counter,
 * and is ROMIO's approach too. Rank 0 names it at open; it is created at its
 * first use; rank 0 removes it at close.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/io_impl.h"

int rch_io_shared_open(struct ADIOI_FileD *f)
{
    char name[4096 + 64];
    if (f->rank == 0) {
        /* unique per open: the pid of rank 0 and a counter */
        static unsigned seq;
        const char *slash = strrchr(f->name, '/');
        int dirlen = slash ? (int)(slash - f->name) + 1 : 0;
        snprintf(name, sizeof(name), "%.*s.%s.shfp.%d.%u", dirlen, f->name, slash ? slash + 1 : f->name,
                 (int)getpid(), seq++);
    }
    int len = f->rank == 0 ? (int)strlen(name) + 1 : 0;
    PMPI_Bcast(&len, 1, MPI_INT, 0, f->comm);
    PMPI_Bcast(name, len, MPI_CHAR, 0, f->comm);
    return (f->shname = strdup(name)) ? 0 : ENOMEM;
}

/* The side file is made at the first use of the shared pointer, by whichever
 * rank comes first: a file only read (perhaps in a read-only directory)
 * never needs it. An empty side file holds the pointer 0. create 0: if it
 * does not exist yet, ENOENT. */
static int side_open(struct ADIOI_FileD *f, int create)
{
    if (f->shfd >= 0)
        return 0;
    f->shfd = open(f->shname, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
    return f->shfd < 0 ? errno : 0;
}

void rch_io_shared_close(struct ADIOI_FileD *f)
{
    if (f->shfd >= 0)
        close(f->shfd);
    f->shfd = -1;
    PMPI_Barrier(f->comm);
    if (f->rank == 0 && f->shname)
        unlink(f->shname);
}

int rch_io_shared_fetch_add(struct ADIOI_FileD *f, MPI_Offset delta, MPI_Offset *old)
{
    int e = side_open(f, 1);
    if (!e)
        e = rch_io_lock(f->shfd, F_WRLCK, 0, sizeof(MPI_Offset));
    if (e)
        return e;
    MPI_Offset v = 0;
    size_t have = 0;
    e = rch_io_pread(f->shfd, &v, sizeof(v), 0, &have);
    if (have < sizeof(v))
        v = 0;
    if (!e && delta) {
        MPI_Offset nv = v + delta;
        e = rch_io_pwrite(f->shfd, &nv, sizeof(nv), 0);
    }
    rch_io_lock(f->shfd, F_UNLCK, 0, sizeof(MPI_Offset));
    *old = v;
    return e;
}

int rch_io_shared_set(struct ADIOI_FileD *f, MPI_Offset value)
{
    int e = side_open(f, value != 0);
    if (e == ENOENT)
        return 0;   /* never used: it is 0 already */
    if (!e)
        e = rch_io_lock(f->shfd, F_WRLCK, 0, sizeof(MPI_Offset));
    if (e)
        return e;
    e = rch_io_pwrite(f->shfd, &value, sizeof(value), 0);
    rch_io_lock(f->shfd, F_UNLCK, 0, sizeof(MPI_Offset));
    return e;
}

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_seek_shared";
    int err;
    struct ADIOI_FileD *f = rch_io_file_arg(fn, fh, &err);
    if (!f)
        return err;
    int same_offset = rch_io_same(f->comm, offset);
    if (!rch_io_same(f->comm, whence) || !same_offset)
        return rch_io_err(f, MPI_ERR_NOT_SAME, "%s: file '%s': ranks passed different offsets or whences", fn,
                          f->name);
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return rch_io_err(f, MPI_ERR_UNSUPPORTED_OPERATION, "%s: file '%s' is open with MPI_MODE_SEQUENTIAL", fn,
                          f->name);
    if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
        return rch_io_err(f, MPI_ERR_ARG, "%s: invalid whence %d (MPI_SEEK_SET, _CUR or _END)", fn, whence);
    int e = 0;
    MPI_Offset target = 0;
    if (f->rank == 0) {
        MPI_Offset cur = 0;
        if (whence == MPI_SEEK_CUR)
            e = rch_io_shared_fetch_add(f, 0, &cur);
        else if (whence == MPI_SEEK_END) {
            MPI_Offset size = 0;
            if (PMPI_File_get_size(fh, &size) == MPI_SUCCESS) {
                MPI_Offset es = (MPI_Offset)f->et->size;
                cur = (rch_io_view_data_before(f, size) + es - 1) / es;
            }
        }
        target = cur + offset;
        if (!e && target >= 0)
            e = rch_io_shared_set(f, target);
    }
    PMPI_Bcast(&target, 1, MPI_LONG, 0, f->comm);
    if (target < 0)
        return rch_io_err(f, MPI_ERR_ARG, "%s: file '%s': seek to the negative offset %lld", fn, f->name,
                          (long long)target);
    int code = rch_io_errno_code(fn, f, e);
    return rch_io_agree(f, fn, code, 0);
}
#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    RCH_MPI_CS();
    const char *fn = "MPI_File_get_position_shared";
    int err;
    struct ADIOI_FileD *f = rch_io_file_query(fn, fh, offset, "offset", &err);
    if (!f)
        return err;
    int e = rch_io_shared_fetch_add(f, 0, offset);
    if (e)
        return rch_io_raise(f, rch_io_errno_code(fn, f, e));
    return MPI_SUCCESS;
}
#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared
