/*
 * The ranks' standard output and error when rdmachrun's own is a regular
 * file.
 *
 * rdmachrun hands its descriptors to the ranks as they are: a terminal stays
 * a terminal (C stdio line-buffered, isatty true), a pipe stays a pipe. A
 * regular file is different because of what the runtimes do with it:
 * gfortran buffers a preconnected unit only when it is a regular file
 * (libgfortran's fd_to_stream), so a Fortran rank writing to
 * `rdmachrun ... > log` kept its output in its own buffer, and lost it when
 * another rank's MPI_Abort ended the job; under Hydra and Open MPI, which
 * give every rank pipes, it was already out. (ScaLAPACK's BLACS tester ends
 * with a deliberate BLACS_ABORT: every line rank 0 had printed was gone.)
 * So for a regular file rdmachrun puts a pipe between, as those launchers
 * do, and copies from it into the file in its event loop. When stdout and
 * stderr are one file (`> log 2>&1`) they share one pipe, which keeps the
 * order in which a rank wrote to the two.
 *
 * A write of at most PIPE_BUF bytes into a pipe is atomic, so the lines of
 * different ranks interleave as whole writes, as they did in the file. The
 * copy is bounded per event (RUN_IO_CHUNK) so PMI requests are not starved,
 * and everything left is copied before rdmachrun prints a verdict and
 * before it exits (run_io_drain): the ranks' words come first.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "run.h"

#define RUN_IO_CHUNK (64 * 1024)
#define RUN_IO_PIPE_SIZE (1024 * 1024)   /* asked for; the kernel may give less */

/* One forwarded stream: what the ranks write into (wr) and where it goes. */
struct run_io_stream {
    int target;     /* rdmachrun's fd: 1 or 2 */
    int rd, wr;     /* the pipe; -1 when not forwarded */
    int failed;     /* the target refused a write: reported once, then dropped */
};
static struct run_io_stream io[2] = { { 1, -1, -1, 0 }, { 2, -1, -1, 0 } };
static int stderr_shares_stdout;

static int is_regular(int fd, struct stat *st)
{
    return fstat(fd, st) == 0 && S_ISREG(st->st_mode);
}

static int make_pipe(struct run_io_stream *s)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    (void)fcntl(p[1], F_SETPIPE_SZ, RUN_IO_PIPE_SIZE);   /* fewer stalls for chatty ranks */
    s->rd = p[0];
    s->wr = p[1];
    return 0;
}

int run_io_setup(const char *prog)
{
    struct stat out, err;
    int out_reg = is_regular(STDOUT_FILENO, &out), err_reg = is_regular(STDERR_FILENO, &err);
    if (out_reg && make_pipe(&io[0]) < 0) {
        fprintf(stderr, "%s: a pipe for the ranks' output: %s\n", prog, strerror(errno));
        return -1;
    }
    if (err_reg) {
        if (out_reg && out.st_dev == err.st_dev && out.st_ino == err.st_ino)
            stderr_shares_stdout = 1;
        else if (make_pipe(&io[1]) < 0) {
            fprintf(stderr, "%s: a pipe for the ranks' errors: %s\n", prog, strerror(errno));
            return -1;
        }
    }
    return 0;
}

void run_io_child(void)
{
    if (io[0].wr >= 0)
        dup2(io[0].wr, STDOUT_FILENO);
    if (stderr_shares_stdout)
        dup2(io[0].wr, STDERR_FILENO);
    else if (io[1].wr >= 0)
        dup2(io[1].wr, STDERR_FILENO);
}

int run_io_poll_add(struct pollfd *pfd)
{
    int n = 0;
    for (int k = 0; k < 2; k++)
        if (io[k].rd >= 0)
            pfd[n++] = (struct pollfd){ .fd = io[k].rd, .events = POLLIN };
    return n;
}

static void put_all(struct run_io_stream *s, const char *buf, size_t len)
{
    while (len > 0 && !s->failed) {
        ssize_t w = write(s->target, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            s->failed = 1;
            if (s->target == STDOUT_FILENO)   /* say it where it can still be read */
                fprintf(stderr, "rdmachrun: writing the ranks' output: %s; the rest is dropped\n",
                        w < 0 ? strerror(errno) : "nothing written");
            return;
        }
        buf += w;
        len -= (size_t)w;
    }
}

/* Copy what the pipe holds, up to max bytes; the bytes copied. */
static size_t copy(struct run_io_stream *s, size_t max)
{
    static char buf[RUN_IO_CHUNK];
    size_t total = 0;
    while (s->rd >= 0 && total < max) {
        size_t want = max - total < sizeof(buf) ? max - total : sizeof(buf);
        ssize_t n = read(s->rd, buf, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;                      /* EAGAIN: empty for now */
        put_all(s, buf, (size_t)n);
        total += (size_t)n;
    }
    return total;
}

void run_io_input(int fd)
{
    for (int k = 0; k < 2; k++)
        if (io[k].rd == fd)
            copy(&io[k], RUN_IO_CHUNK);
}

void run_io_drain(void)
{
    /* what was written before this call, no more: a process that goes on
     * writing (a rank's daemon child) cannot keep us here */
    for (int k = 0; k < 2; k++) {
        int pending = 0;
        if (io[k].rd >= 0 && ioctl(io[k].rd, FIONREAD, &pending) == 0 && pending > 0)
            copy(&io[k], (size_t)pending);
    }
}

void run_io_close(void)
{
    run_io_drain();
    for (int k = 0; k < 2; k++) {
        if (io[k].rd >= 0)
            close(io[k].rd);
        if (io[k].wr >= 0)
            close(io[k].wr);
        io[k].rd = io[k].wr = -1;
    }
}
