/*
 * The /dev/shm reaper (RDMACH_SHM_REAPER): under a launcher that does not
 * clean up after a killed job (Hydra, Slurm's srun), a file a rank had not
 * unlinked yet when the job died (a segment not every peer had mapped:
 * channel rings, barrier and window segments during their set-up) would
 * stay until the next start-up's sweep, and the sweep knows only the
 * channel segments.
 *
 * Every rank registers with its host's reaper before it creates any file
 * (device init, before the channels open): it connects to an abstract Unix
 * socket named after the user and the job, and waits for the reaper's one
 * byte of welcome. Where nobody listens, the rank binds the name itself and
 * forks the reaper with the listening socket: a detached process (new
 * session, so the launcher's kill of the job's process group misses it)
 * that holds one connection per registered rank of the job on this host.
 * A rank's connection closes when the rank ends, however it ends; when the
 * last one has closed and none is waiting in the backlog, the reaper closes
 * its socket, removes every /dev/shm/rdmach-<kvsname>-* file and exits. A
 * job that ends normally has unlinked them all already, but for the
 * departure marks of live.c, which must outlive their ranks.
 *
 * Nothing here depends on the start-up fence or on the other ranks' pids,
 * so a job killed at any moment of MPI_Init is covered: a rank that had not
 * registered had made no file. A rank that registers after the reaper left
 * (the others all died first) finds the name free and starts a new one;
 * the welcome byte tells a rank its connection was taken by a reaper still
 * serving, not dropped from a backlog that a leaving reaper closed.
 * Abstract socket names live in the network namespace, like a host's
 * /dev/shm in the test cluster (tests/cluster); a peer of another user is
 * refused (SO_PEERCRED).
 *
 * The reaper is the child of a process that may have threads: it uses only
 * system calls (no allocation, no stdio) on memory prepared before the
 * fork. Its environment and arguments are blanked and its name is
 * "rdmach-reaper", so tools that look for the program's ranks by their
 * environment do not count it. Not used under rdmachrun (which removes the
 * job's files itself when it ends) or for a singleton.
 *
 * Under Slurm, slurmd leaves /dev/shm alone (unless a job_container plugin
 * gives each job its own). With proctrack/linuxproc or pgid the reaper, in
 * its own session and re-parented, outlives the step; with
 * proctrack/cgroup it stays in the step's cgroup, which slurmstepd kills
 * once the step's tasks have all ended: the reaper wakes on the same exits
 * and is usually done first, but may not be, and then the next start-up's
 * sweep reclaims what it can.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/dev_impl.h"

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* registrations one reaper holds: more local ranks than this are refused
 * (they go without a reaper, as before it existed) */
#define REAPER_MAX_RANKS 4096
/* how long a rank waits for the welcome of a reaper that is just starting
 * on a loaded host, before it goes on without one */
#define REAPER_WELCOME_MS 10000

extern char **environ;

static int reg_fd = -1;   /* this process's registration; closed by its end */

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

/* The backlog's connections taken into pfd[1..]: a peer of another user is
 * refused, every other one welcomed. Returns how many were taken. */
static int take(struct pollfd *pfd, int *n, uid_t uid)
{
    int took = 0, c;
    while ((c = accept4(pfd[0].fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
        struct ucred cr;
        socklen_t len = sizeof(cr);
        if (*n >= REAPER_MAX_RANKS + 1 || getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 ||
            cr.uid != uid || write(c, "R", 1) != 1) {
            close(c);
            continue;
        }
        pfd[*n].fd = c;
        pfd[*n].events = POLLIN;
        pfd[*n].revents = 0;
        (*n)++;
        took++;
    }
    return took;
}

/* The detached grandchild, holding the listening socket lfd: never returns.
 * Until a first rank has registered it waits idle_ms at most: the rank that
 * started it may have died before its own connect, and then nobody comes
 * (it leaves without unlinking: a rank makes files only once registered). */
static void reap(int lfd, struct pollfd *pfd, const char *prefix, int idle_ms)
{
    /* keep only the listening socket */
    if (lfd > 0)
        syscall(SYS_close_range, 0u, (unsigned)lfd - 1, 0u);
    syscall(SYS_close_range, (unsigned)lfd + 1, ~0u, 0u);
    uid_t uid = getuid();
    int n = 1, seen = 0;
    pfd[0].fd = lfd;
    pfd[0].events = POLLIN;
    for (;;) {
        int ready = poll(pfd, (nfds_t)n, seen ? -1 : idle_ms);
        if (ready < 0)
            continue;                 /* EINTR */
        if (ready == 0) {             /* idle since it started */
            if (take(pfd, &n, uid) == 0) {
                close(lfd);
                _exit(0);
            }
            seen = 1;
        }
        if (pfd[0].revents)
            seen |= take(pfd, &n, uid) > 0;
        for (int i = 1; i < n;) {
            char b[64];
            ssize_t r = pfd[i].revents ? read(pfd[i].fd, b, sizeof(b)) : 1;
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
                close(pfd[i].fd);
                pfd[i] = pfd[--n];    /* its revents are looked at next */
            } else {
                pfd[i++].revents = 0;
            }
        }
        /* the last rank has ended: once nobody waits in the backlog, stop
         * listening first, so that a late rank starts a reaper of its own */
        if (seen && n == 1 && take(pfd, &n, uid) == 0) {
            close(lfd);
            unlink_prefixed(prefix);
            _exit(0);
        }
    }
}

/* The reaper's abstract socket name for this user and job: a hash of the
 * kvsname where the name itself would not fit. */
static socklen_t reaper_addr(struct sockaddr_un *a, const char *kvs)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    size_t room = sizeof(a->sun_path) - 1;
    int len = snprintf(a->sun_path + 1, room, "rdmach-reaper-%u-%s", (unsigned)getuid(), kvs);
    if (len < 0 || (size_t)len >= room) {
        uint64_t h = 1469598103934665603ull;    /* FNV-1a */
        for (const char *c = kvs; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
        len = snprintf(a->sun_path + 1, room, "rdmach-reaper-%u-#%016llx", (unsigned)getuid(),
                       (unsigned long long)h);
    }
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len);
}

/* Where no reaper listens: bind its name, then fork it with the socket.
 * EADDRINUSE: another rank of this host was first; its reaper serves. */
static void reaper_spawn(const struct sockaddr_un *a, socklen_t alen, const char *prefix)
{
    int idle_ms = rch_tun.shm_reaper_idle_ms;
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct pollfd *pfd = malloc(sizeof(*pfd) * (REAPER_MAX_RANKS + 1));
    if (lfd < 0 || pfd == NULL || bind(lfd, (const struct sockaddr *)a, alen) != 0 ||
        listen(lfd, REAPER_MAX_RANKS) != 0) {
        if (lfd >= 0)
            close(lfd);
        free(pfd);
        return;
    }
    pid_t child = fork();
    if (child == 0) {
        /* the intermediate child: a new session, then the reaper, then gone */
        setsid();
        signal(SIGHUP, SIG_IGN);
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGUSR1, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);
        /* a raw fork: no atfork handlers in a child of a threaded process */
        if (syscall(SYS_clone, (unsigned long)SIGCHLD, 0ul, 0ul, 0ul, 0ul) == 0) {
            prctl(PR_SET_NAME, "rdmach-reaper", 0, 0, 0);
            prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
            blank(environ);
            reap(lfd, pfd, prefix, idle_ms);
        }
        _exit(0);
    }
    /* the reaper (if the fork worked) holds the socket now; a failed fork
     * frees the name, and the caller goes on without a reaper */
    close(lfd);
    if (child > 0)
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
            ;
    free(pfd);
}

/* 1: connected to a listening reaper and welcomed; -1: nobody listens;
 * 0: otherwise (dropped by a leaving reaper, no welcome in time). */
static int reaper_register(int fd, const struct sockaddr_un *a, socklen_t alen)
{
    if (connect(fd, (const struct sockaddr *)a, alen) != 0)
        return errno == ECONNREFUSED ? -1 : 0;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int r;
    while ((r = poll(&p, 1, REAPER_WELCOME_MS)) < 0 && errno == EINTR)
        ;
    char c = 0;
    return r == 1 && read(fd, &c, 1) == 1 && c == 'R';
}

void rch_dev_reaper_start(void)
{
    const struct rch_boot_info *b = &rch_boot;
    if (!rch_tun.shm_reaper || b->singleton || has_prefix(b->kvsname, "run") || reg_fd >= 0)
        return;
    struct sockaddr_un a;
    socklen_t alen = reaper_addr(&a, b->kvsname);
    char prefix[sizeof(b->kvsname) + 16];
    snprintf(prefix, sizeof(prefix), "rdmach-%s-", b->kvsname);
    /* a reaper met while it leaves, a lost race for the name: try again */
    for (int attempt = 0; attempt < 4 && reg_fd < 0; attempt++) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            break;
        int r = reaper_register(fd, &a, alen);
        if (r == 1) {
            reg_fd = fd;
            break;
        }
        close(fd);
        if (r < 0) {
            reaper_spawn(&a, alen, prefix);
            if (rch_tun.shm_reaper_die) {
                RCH_WARN("dev", "SHM_REAPER_DIE: exiting before registering with reaper @%s", a.sun_path + 1);
                _exit(3);
            }
        }
    }
    if (reg_fd < 0)
        RCH_WARN("dev", "no /dev/shm reaper on this host: the files of this job left by a crash will be "
                 "removed by the next job's start-up");
    else
        RCH_DEBUG("dev", "registered with this host's /dev/shm reaper");
}
