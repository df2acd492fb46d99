/*
 * The /dev/shm reaper (RDMACH_SHM_REAPER): under a launcher that does not
 * clean up after a killed job (Hydra), a file a rank had not unlinked yet
 * when the job died (a segment not every peer had mapped: channel rings,
 * barrier and window segments during their set-up) would stay until the
 * next start-up's sweep, and the sweep knows only the channel segments.
 *
 * Right after init's fence the lowest rank of each host (world rank 0 with
 * pretend nodes, whose ranks may all share it) forks a detached process
 * (new session, so the launcher's kill of the job's process group misses
 * it) that holds a pidfd of every rank of the job on this host, sleeps in
 * poll until all have ended (normally or not), removes every
 * /dev/shm/rdmach-<kvsname>-* file and exits. A job that ends normally has
 * unlinked them all already: it finds none.
 *
 * The child of a process that may have threads: it uses only system calls
 * (no allocation, no stdio), on memory prepared before the fork. Its
 * environment and arguments are blanked and its name is "rdmach-reaper", so
 * tools that look for the program's ranks by their environment do not
 * count it. Not started under rdmachrun (which removes the job's files
 * itself when it ends), for a singleton, or where pidfd_open is missing
 * (the sweep still applies).
 *
 * Under Slurm (srun with PMI-2 or PMIx) too: slurmd leaves /dev/shm alone
 * (unless a job_container plugin gives each job its own). With
 * proctrack/linuxproc or pgid the reaper, in its own session and
 * re-parented, outlives the step; with proctrack/cgroup it stays in the
 * step's cgroup, which slurmstepd kills once the step's tasks have all
 * ended: the reaper wakes on the same exits and is usually done first, but
 * may not be, and then the next start-up's sweep reclaims what it can.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/dev_impl.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

extern char **environ;

struct dirent64_hdr {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

static int has_prefix(const char *s, const char *p)
{
    while (*p)
        if (*s++ != *p++)
            return 0;
    return 1;
}

/* Every /dev/shm name that starts with prefix: unlinked. */
static void unlink_prefixed(const char *prefix)
{
    int d = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0)
        return;
    char buf[8192] __attribute__((aligned(8)));
    long n;
    while ((n = syscall(SYS_getdents64, d, buf, sizeof(buf))) > 0)
        for (long off = 0; off < n;) {
            struct dirent64_hdr *e = (struct dirent64_hdr *)(buf + off);
            if (has_prefix(e->name, prefix))
                unlinkat(d, e->name, 0);
            off += e->reclen;
        }
    close(d);
}

static void blank(char **v)
{
    for (; v && *v; v++)
        for (char *c = *v; *c; c++)
            *c = '\0';
}

/* The detached grandchild: never returns. */
static void reap(const pid_t *pids, struct pollfd *pfd, int n, const char *prefix)
{
    syscall(SYS_close_range, 0u, ~0u, 0u);
    int open_fds = 0;
    for (int i = 0; i < n; i++) {
        /* gone already (ESRCH): nothing to wait for */
        pfd[open_fds].fd = (int)syscall(SYS_pidfd_open, pids[i], 0u);
        pfd[open_fds].events = POLLIN;
        open_fds += pfd[open_fds].fd >= 0;
    }
    while (open_fds > 0) {
        if (poll(pfd, (nfds_t)open_fds, -1) < 0)
            continue;                 /* EINTR */
        for (int i = 0; i < open_fds;)
            if (pfd[i].revents) {
                close(pfd[i].fd);
                pfd[i] = pfd[--open_fds];
            } else {
                i++;
            }
    }
    unlink_prefixed(prefix);
    _exit(0);
}

void rch_dev_reaper_start(void)
{
    const struct rch_boot_info *b = &rch_boot;
    int pretend = b->host_size > b->local_size;
    if (!rch_tun.shm_reaper || b->singleton || has_prefix(b->kvsname, "run") ||
        (pretend ? b->rank != 0 : b->local_rank != 0))
        return;
    int cand = pretend ? b->size : b->local_size, n = 0;
    pid_t *pids = malloc(sizeof(*pids) * (size_t)cand);
    struct pollfd *pfd = malloc(sizeof(*pfd) * (size_t)cand);
    char prefix[sizeof(b->kvsname) + 16];
    if (!pids || !pfd) {
        free(pids);
        free(pfd);
        return;
    }
    for (int i = 0; i < cand; i++) {
        pid_t p = rch_dev_live_host_pid(pretend ? i : b->local_ranks[i]);
        if (p > 0)
            pids[n++] = p;
    }
    snprintf(prefix, sizeof(prefix), "rdmach-%s-", b->kvsname);
    int probe = (int)syscall(SYS_pidfd_open, getpid(), 0u);
    pid_t child = probe >= 0 ? fork() : -1;
    if (probe >= 0)
        close(probe);
    if (child == 0) {
        /* the intermediate child: a new session, then the reaper, then gone */
        setsid();
        signal(SIGHUP, SIG_IGN);
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGUSR1, SIG_IGN);
        /* a raw fork: no atfork handlers in a child of a threaded process */
        if (syscall(SYS_clone, (unsigned long)SIGCHLD, 0ul, 0ul, 0ul, 0ul) == 0) {
            prctl(PR_SET_NAME, "rdmach-reaper", 0, 0, 0);
            prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
            blank(environ);
            reap(pids, pfd, n, prefix);
        }
        _exit(0);
    }
    if (child > 0)
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
            ;
    RCH_DEBUG("dev", "/dev/shm reaper %s for %d rank(s) of this host", child > 0 ? "started" : "not started", n);
    free(pids);
    free(pfd);
}
