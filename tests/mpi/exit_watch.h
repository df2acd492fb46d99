/*
 * Knowing that another rank's process has exited, without MPI (a test of
 * what happens after a peer's end must not talk to it, or it would be
 * connected or waited for): every rank holds a lock on a file of its own
 * for its whole life; the kernel drops it at exit, and a rank that takes
 * it then knows that the holder is gone. The files are named by the
 * launcher's pid (rdmachrun and Hydra's proxy start every rank of a job on
 * this host) and the rank. ew_hold must run before the PMI fence of the
 * first MPI_Init/MPI_Session_init, so that a waiter (after its own init)
 * finds the lock taken. A wait is bounded by SIGALRM: a rank that never
 * exits ends the test, named, instead of hanging it. Each file is removed
 * by its one waiter (ew_wait_exit), or by its holder when nobody waits for
 * it (ew_release).
 */
#ifndef RDMACH_TESTS_EXIT_WATCH_H
#define RDMACH_TESTS_EXIT_WATCH_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

static void ew_path(char *out, size_t len, int rank)
{
    const char *dir = getenv("TMPDIR");
    snprintf(out, len, "%s/rdmach-exit-watch-%u-%d-%d", dir && *dir ? dir : "/tmp", (unsigned)getuid(),
             (int)getppid(), rank);
}

/* Our own lock, held until exit, or until ew_drop of the descriptor
 * returned. `rank` may be any number that names a lock (a gate). */
static inline int ew_hold(int rank)
{
    char p[512];
    ew_path(p, sizeof(p), rank);
    int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        perror(p);
        exit(2);
    }
    return fd;
}

/* Opens the gate: a waiter on it goes on as if we had exited. */
static inline void ew_drop(int fd)
{
    close(fd);
}

/* Returns once `rank` has exited; after `limit_s` seconds the process dies
 * of SIGALRM, having said what it waited for. `poll`, if not NULL, runs
 * between tries (the waiter stays in MPI's progress: a peer's exit may
 * need it to take the messages it sent), else the wait blocks. */
static inline void ew_wait_exit(int rank, unsigned limit_s, int me, void (*poll)(void))
{
    char p[512];
    ew_path(p, sizeof(p), rank);
    int fd = open(p, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        perror(p);
        exit(2);
    }
    fprintf(stderr, "[rank %d] waiting up to %u s for rank %d to exit\n", me, limit_s, rank);
    alarm(limit_s);
    if (poll) {
        while (flock(fd, LOCK_EX | LOCK_NB) != 0)
            poll();
    } else if (flock(fd, LOCK_EX) != 0) {
        perror(p);
        exit(2);
    }
    alarm(0);
    unlink(p);
    close(fd);
}

/* Nobody waits for our exit: the file goes now (the lock stays held). */
static inline void ew_release(int rank)
{
    char p[512];
    ew_path(p, sizeof(p), rank);
    unlink(p);
}

#endif
