/*
 * POSIX file access: whole transfers, byte-range locks, and data sieving.
 *
 * Data sieving (ROMIO's idea): many small pieces close together cost one
 * system call each; instead read a window covering several of them, and
 * for writes copy the pieces in and write the window back. The window is
 * locked while it is read, modified and written, so that a concurrent
 * writer of the bytes in the holes is not undone by the write-back.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "io/io_impl.h"

int rch_io_pread(int fd, void *buf, size_t len, MPI_Offset off, size_t *done)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, (char *)buf + got, len - got, off + (MPI_Offset)got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            *done = got;
            return errno;
        }
        if (r == 0)
            break;   /* end of file */
        got += (size_t)r;
    }
    *done = got;
    return 0;
}

/* Whole gather write of n buffers to the consecutive file bytes from off,
 * retrying short transfers (iov is consumed). 0 or an errno. */
static int pwritev_all(int fd, struct iovec *iov, int n, MPI_Offset off)
{
    while (n > 0) {
        if (iov->iov_len == 0) {
            iov++, n--;
            continue;
        }
        ssize_t r = pwritev(fd, iov, n < IOV_MAX ? n : IOV_MAX, off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (r == 0)
            return ENOSPC;
        off += r;
        /* past the buffers written whole, into a partly written one */
        for (; n > 0 && (size_t)r >= iov->iov_len; iov++, n--)
            r -= (ssize_t)iov->iov_len;
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + r;
            iov->iov_len -= (size_t)r;
        }
    }
    return 0;
}

int rch_io_pwrite(int fd, const void *buf, size_t len, MPI_Offset off)
{
    struct iovec v = { (void *)buf, len };
    return pwritev_all(fd, &v, 1, off);
}

static void write_behind(const struct ADIOI_FileD *f, MPI_Offset off, MPI_Offset len)
{
#ifdef SYNC_FILE_RANGE_WRITE
    /* asynchronous: only queues the range's dirty pages for writing (a file
     * system without it, or a pipe, fails harmlessly) */
    if (f->hints.write_behind > 0 && len >= f->hints.write_behind)
        sync_file_range(f->fd, off, (off_t)len, SYNC_FILE_RANGE_WRITE);
#endif
}

int rch_io_write(const struct ADIOI_FileD *f, const void *buf, size_t len, MPI_Offset off)
{
    struct iovec v = { (void *)buf, len };
    return rch_io_writev(f, &v, 1, off);
}

int rch_io_writev(const struct ADIOI_FileD *f, struct iovec *iov, int n, MPI_Offset off)
{
    MPI_Offset len = 0;
    for (int i = 0; i < n; i++)
        len += (MPI_Offset)iov[i].iov_len;
    int e = pwritev_all(f->fd, iov, n, off);
    if (!e)
        write_behind(f, off, len);
    return e;
}

int rch_io_lock(int fd, int type, MPI_Offset off, MPI_Offset len)
{
    struct flock fl = { .l_type = (short)type, .l_whence = SEEK_SET, .l_start = off, .l_len = len };
    while (fcntl(fd, F_SETLKW, &fl) != 0) {
        if (errno != EINTR)
            return errno;
    }
    return 0;
}

/* Pieces [i, j) fit in one sieving window of at most `win` bytes. */
static int window_end(const struct rch_io_piece *p, int n, int i, MPI_Offset win)
{
    int j = i + 1;
    while (j < n && p[j].off >= p[j - 1].off + p[j - 1].len && p[j].off + p[j].len - p[i].off <= win)
        j++;
    return j;
}

/* Should pieces be sieved? Several of them, sorted, and (automatic) their
 * data at least a quarter of the span they cover: else the holes cost more
 * to move than the calls saved. */
static int sieve_pays(int hint, const struct rch_io_piece *p, int n)
{
    if (hint == RCH_IO_DISABLE || n < 2)
        return 0;
    MPI_Offset data = 0;
    for (int i = 0; i < n; i++) {
        if (i && p[i].off < p[i - 1].off + p[i - 1].len)
            return 0;   /* not in file order: piece by piece */
        data += p[i].len;
    }
    if (hint == RCH_IO_ENABLE)
        return 1;
    MPI_Offset span = p[n - 1].off + p[n - 1].len - p[0].off;
    return data * 4 >= span;
}

static int sieve(const struct ADIOI_FileD *f, int is_write, const struct rch_io_piece *p, int n, char *buf,
                 int lock, MPI_Offset *got, int *eof)
{
    MPI_Offset win = is_write ? f->hints.ind_wr_buffer_size : f->hints.ind_rd_buffer_size;
    char *w = NULL;
    MPI_Offset wcap = 0, data = 0;
    int e = 0;
    for (int i = 0; i < n && !e && !*eof;) {
        int j = window_end(p, n, i, win);
        MPI_Offset lo = p[i].off, span = p[j - 1].off + p[j - 1].len - lo;
        if (span > wcap) {
            free(w);
            wcap = span;
            if (!(w = malloc((size_t)span)))
                return ENOMEM;
        }
        if (is_write && lock && (e = rch_io_lock(f->fd, F_WRLCK, lo, span)) != 0)
            break;
        size_t have = 0;
        if (!is_write || (f->amode & MPI_MODE_WRONLY) == 0)
            e = rch_io_pread(f->fd, w, (size_t)span, lo, &have);
        else
            e = EBADF;   /* a write-only descriptor cannot sieve */
        if (!e) {
            if (is_write && have < (size_t)span)
                memset(w + have, 0, (size_t)span - have);   /* holes past the end become zeros */
            for (int k = i; k < j; k++) {
                if (is_write) {
                    memcpy(w + (p[k].off - lo), buf + data, (size_t)p[k].len);
                    *got += p[k].len;
                } else if (!*eof) {
                    /* only what the file holds: the user's bytes past the
                     * end of the file stay as they were (MPI-4.1 14.4.1) */
                    MPI_Offset end = lo + (MPI_Offset)have;
                    MPI_Offset in = end <= p[k].off ? 0 : end >= p[k].off + p[k].len ? p[k].len : end - p[k].off;
                    memcpy(buf + data, w + (p[k].off - lo), (size_t)in);
                    *got += in;
                    *eof = in < p[k].len;
                }
                data += p[k].len;
            }
            if (is_write)
                e = rch_io_write(f, w, (size_t)span, lo);
        }
        if (is_write && lock)
            rch_io_lock(f->fd, F_UNLCK, lo, span);
        i = j;
    }
    free(w);
    return e;
}

static int piecewise(const struct ADIOI_FileD *f, int is_write, const struct rch_io_piece *p, int n, char *buf,
                     MPI_Offset *got);

int rch_io_access(const struct ADIOI_FileD *f, int is_write, const struct rch_io_piece *p, int n, char *buf,
                  int lock, MPI_Offset *got)
{
    int eof = 0;
    *got = 0;
    int hint = is_write ? f->hints.ds_write : f->hints.ds_read;
    if (is_write && (f->amode & MPI_MODE_WRONLY))
        hint = RCH_IO_DISABLE;
    if (sieve_pays(hint, p, n)) {
        int e = sieve(f, is_write, p, n, buf, lock, got, &eof);
        if (e != EBADF)
            return e;
        *got = 0;
        eof = 0;
    }
    /* Piece by piece. A write still locks its span: another process's
     * sieving window may cover these bytes, and its write-back must not
     * undo them (MPI-4.1 14.6.1: non-conflicting accesses must all land). */
    MPI_Offset lo = p[0].off, hi = p[n - 1].off + p[n - 1].len;
    for (int i = 0; i < n; i++) {
        lo = p[i].off < lo ? p[i].off : lo;
        hi = p[i].off + p[i].len > hi ? p[i].off + p[i].len : hi;
    }
    int locked = is_write && lock && f->hints.ds_write != RCH_IO_DISABLE && rch_io_lock(f->fd, F_WRLCK, lo, hi - lo) == 0;
    int e = piecewise(f, is_write, p, n, buf, got);
    if (locked)
        rch_io_lock(f->fd, F_UNLCK, lo, hi - lo);
    return e;
}

static int piecewise(const struct ADIOI_FileD *f, int is_write, const struct rch_io_piece *p, int n, char *buf,
                     MPI_Offset *got)
{
    int eof = 0;
    MPI_Offset data = 0;
    for (int i = 0; i < n && !eof; i++) {
        int e;
        if (is_write) {
            if ((e = rch_io_write(f, buf + data, (size_t)p[i].len, p[i].off)) != 0)
                return e;
        } else {
            size_t have = 0;
            if ((e = rch_io_pread(f->fd, buf + data, (size_t)p[i].len, p[i].off, &have)) != 0)
                return e;
            /* the end of the file: the rest of buf is left as it was
             * (MPI-4.1 14.4.1: a read reads only what the file holds) */
            *got += (MPI_Offset)have;
            eof = have < (size_t)p[i].len;
        }
        data += p[i].len;
    }
    if (is_write)
        *got = data;
    return 0;
}
