/*
 * flood: a stranger on the same machine that tries to stop a job through
 * its listeners (docs/NETWORK.md, "Listeners under a flood").
 *
 *   flood -p <program> -n <ranks> -d <dir> [-i idle] [-g garbage] [-t seconds]
 *
 * Finding the listeners, as any local user could (netstat -p does the same):
 * the processes of this user whose executable is <program> (the job's ranks),
 * their socket inodes (/proc/<pid>/fd), and the TCP sockets in LISTEN state
 * with those inodes (/proc/<pid>/net/tcp, tcp6). A listener bound to the
 * wildcard address is reached at the loopback address: every address used
 * is one of this machine's (a listening socket's own address).
 *
 * Per listener a worker process (its own descriptor limit):
 *   idle     holds `idle` connections that never say a word; one the rank
 *            closes is opened again at once (a persistent stranger);
 *   garbage  makes `garbage` connection attempts, at most GARBAGE_FLIGHT at
 *            a time, each sending one kind of junk (random bytes, half a
 *            libfabric header, a header promising more than comes, a valid
 *            header with foreign, empty, oversized or forged rdmach private
 *            data: CONNECT, REVERSE, RAIL with guessed keys), then waiting up
 *            to GARBAGE_WAIT s for the rank to close it, then resetting it.
 * The parent writes <dir>/flooding once every worker holds its idle
 * connections, <dir>/done once every worker made its garbage attempts, keeps
 * the idle connections until SIGTERM, and then prints one line per listener:
 *   flood: <addr>: idle held N (of M), opened K, closed by the rank C; garbage A (connected B, closed by the rank R)
 * Exit status 0 when every listener was found and flooded, 2 otherwise.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "rdma/net/net_proto.h"

#define MAX_LISTENERS 16
#define GARBAGE_FLIGHT 1024
#define GARBAGE_WAIT 2.5

struct listener {
    struct sockaddr_storage addr;
    socklen_t len;
    char name[64];
    pid_t pid;
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rnd(void)
{
    return (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^ (uint64_t)random();
}

/* ---- finding the listeners ---- */

static int is_job_process(const char *pid, const char *program)
{
    char path[300], exe[PATH_MAX];
    struct stat sb;
    snprintf(path, sizeof(path), "/proc/%s", pid);
    if (stat(path, &sb) != 0 || sb.st_uid != getuid())
        return 0;
    snprintf(path, sizeof(path), "/proc/%s/exe", pid);
    ssize_t n = readlink(path, exe, sizeof(exe) - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    return strcmp(exe, program) == 0;
}

static int has_inode(const unsigned long *inodes, int n, unsigned long ino)
{
    for (int i = 0; i < n; i++)
        if (inodes[i] == ino)
            return 1;
    return 0;
}

/* Parse the hex address of /proc/net/tcp{,6} ("0100007F:1F90") into sa. */
static int parse_addr(const char *text, int v6, struct sockaddr_storage *sa, socklen_t *len)
{
    memset(sa, 0, sizeof(*sa));
    const char *colon = strchr(text, ':');
    if (colon == NULL)
        return -1;
    unsigned port = (unsigned)strtoul(colon + 1, NULL, 16);
    if (!v6) {
        struct sockaddr_in *s = (struct sockaddr_in *)sa;
        s->sin_family = AF_INET;
        s->sin_port = htons((uint16_t)port);
        s->sin_addr.s_addr = (in_addr_t)strtoul(text, NULL, 16);   /* stored in network order */
        if (s->sin_addr.s_addr == htonl(INADDR_ANY))
            s->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        *len = sizeof(*s);
        return 0;
    }
    struct sockaddr_in6 *s = (struct sockaddr_in6 *)sa;
    s->sin6_family = AF_INET6;
    s->sin6_port = htons((uint16_t)port);
    for (int w = 0; w < 4; w++) {
        char word[9];
        memcpy(word, text + 8 * w, 8);
        word[8] = '\0';
        uint32_t v = (uint32_t)strtoul(word, NULL, 16);
        memcpy(&s->sin6_addr.s6_addr[4 * w], &v, 4);
    }
    if (IN6_IS_ADDR_UNSPECIFIED(&s->sin6_addr))
        s->sin6_addr = in6addr_loopback;
    *len = sizeof(*s);
    return 0;
}

static int find_listeners_of(const char *pid, struct listener *out, int max)
{
    unsigned long inodes[4096];
    int ninodes = 0, found = 0;
    char path[300];
    snprintf(path, sizeof(path), "/proc/%s/fd", pid);
    DIR *d = opendir(path);
    if (d == NULL)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && ninodes < 4096) {
        char link[PATH_MAX], target[128];
        snprintf(link, sizeof(link), "%s/%s", path, e->d_name);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        unsigned long ino;
        if (sscanf(target, "socket:[%lu]", &ino) == 1)
            inodes[ninodes++] = ino;
    }
    closedir(d);
    for (int v6 = 0; v6 < 2 && found < max; v6++) {
        snprintf(path, sizeof(path), "/proc/%s/net/tcp%s", pid, v6 ? "6" : "");
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        char line[512];
        while (fgets(line, sizeof(line), f) && found < max) {
            char local[64], remote[64];
            unsigned state;
            unsigned long ino;
            if (sscanf(line, " %*d: %63s %63s %x %*s %*s %*s %*s %*s %lu", local, remote, &state, &ino) != 4)
                continue;
            if (state != 0x0A || !has_inode(inodes, ninodes, ino))
                continue;
            struct listener *l = &out[found];
            if (parse_addr(local, v6, &l->addr, &l->len) != 0)
                continue;
            l->pid = (pid_t)atoi(pid);
            char host[INET6_ADDRSTRLEN];
            if (v6) {
                const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)&l->addr;
                inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof(host));
                snprintf(l->name, sizeof(l->name), "[%s]:%u", host, ntohs(s->sin6_port));
            } else {
                const struct sockaddr_in *s = (const struct sockaddr_in *)&l->addr;
                inet_ntop(AF_INET, &s->sin_addr, host, sizeof(host));
                snprintf(l->name, sizeof(l->name), "%s:%u", host, ntohs(s->sin_port));
            }
            found++;
        }
        fclose(f);
    }
    return found;
}

/* Every listener of the job's processes; waits until `ranks` processes each
 * have one, or `timeout` seconds. */
static int find_listeners(const char *program, int ranks, double timeout, struct listener *out)
{
    double until = now() + timeout;
    for (;;) {
        int n = 0, procs = 0;
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9' || !is_job_process(e->d_name, program))
                continue;
            int k = find_listeners_of(e->d_name, out + n, MAX_LISTENERS - n);
            procs += k > 0;
            n += k;
        }
        if (d)
            closedir(d);
        if (procs >= ranks || now() > until)
            return n;
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
}

/* ---- junk ---- */

/* libfabric tcp's connection header (struct ofi_ctrl_hdr, 24 bytes): version
 * 3, type 0 = connect request, seg_size = bytes of private data (big endian),
 * conn_data = 1 (its endianness probe). */
static size_t ofi_header(uint8_t *buf, unsigned version, unsigned type, unsigned seg_size)
{
    memset(buf, 0, 24);
    buf[0] = (uint8_t)version;
    buf[1] = (uint8_t)type;
    uint16_t s = htons((uint16_t)seg_size);
    memcpy(buf + 2, &s, 2);
    uint64_t one = 1;
    memcpy(buf + 16, &one, 8);
    return 24;
}

static size_t forged_priv(uint8_t *buf, unsigned kind)
{
    struct rch_net_cm_priv p;
    memset(&p, 0, sizeof(p));
    p.magic = RCH_NET_MAGIC;
    p.version = RCH_NET_VERSION;
    p.kind = (uint8_t)kind;
    p.rail = kind == RCH_NET_CM_RAIL ? 1 : 0;
    p.rank = (int32_t)(rnd() % 4);
    p.size = 4;
    p.key = rnd();
    p.ring_addr = rnd() & ~(uint64_t)4095;
    p.ring_key = rnd();
    p.slot_size = 64 * 1024 + 64;
    p.nslots = 32;
    p.notify = 1;
    memcpy(buf, &p, sizeof(p));
    return sizeof(p);
}

#define JUNK_KINDS 10
/* The bytes of garbage attempt kind k (0 .. JUNK_KINDS - 1) into buf. */
static size_t junk(unsigned k, uint8_t *buf)
{
    size_t n = 0;
    switch (k) {
    case 0:   /* random bytes */
        n = 1 + rnd() % 300;
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)rnd();
        return n;
    case 1:   /* half a header */
        ofi_header(buf, 3, 0, 48);
        return 1 + rnd() % 23;
    case 2:   /* a header promising 48 bytes, fewer follow */
        n = ofi_header(buf, 3, 0, 48);
        return n + rnd() % 48;
    case 3:   /* a valid header, foreign private data */
        n = ofi_header(buf, 3, 0, 48);
        for (size_t i = 0; i < 48; i++)
            buf[n + i] = (uint8_t)rnd();
        return n + 48;
    case 4:   /* a valid header, no private data */
        return ofi_header(buf, 3, 0, 0);
    case 5:   /* forged CONNECT, guessed key */
        n = ofi_header(buf, 3, 0, sizeof(struct rch_net_cm_priv));
        return n + forged_priv(buf + n, RCH_NET_CM_CONNECT);
    case 6:   /* forged REVERSE */
        n = ofi_header(buf, 3, 0, sizeof(struct rch_net_cm_priv));
        return n + forged_priv(buf + n, RCH_NET_CM_REVERSE);
    case 7:   /* forged RAIL */
        n = ofi_header(buf, 3, 0, sizeof(struct rch_net_cm_priv));
        return n + forged_priv(buf + n, RCH_NET_CM_RAIL);
    case 8:   /* another header version, another message type */
        return ofi_header(buf, rnd() % 2 ? 2 : 3, 1 + rnd() % 8, 0);
    default:  /* oversized private data (more than libfabric's 256) */
        n = ofi_header(buf, 3, 0, 1000);
        for (size_t i = 0; i < 300; i++)
            buf[n + i] = (uint8_t)rnd();
        return n + 300;
    }
}

/* ---- a worker: one listener ---- */

enum { S_FREE, S_IDLE_CONNECTING, S_IDLE, S_GARBAGE_CONNECTING, S_GARBAGE_SENT };

struct sock {
    int state;
    unsigned kind;
    double since;
};

struct worker {
    const struct listener *l;
    int ep;
    struct sock *socks;   /* by fd */
    int nsocks;
    int idle_target, idle_open, idle_held;
    long garbage_target, garbage_started, garbage_done, garbage_connected, garbage_closed_by_rank;
    long idle_opened, idle_closed_by_rank;
    int garbage_flight;
};

static volatile sig_atomic_t stop;
static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static void drop(struct worker *w, int fd, int reset)
{
    if (reset) {
        struct linger lg = { 1, 0 };   /* RST, no TIME_WAIT on either side */
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    }
    int st = w->socks[fd].state;
    if (st == S_IDLE_CONNECTING || st == S_IDLE)
        w->idle_open--;
    if (st == S_IDLE)
        w->idle_held--;
    if (st == S_GARBAGE_CONNECTING || st == S_GARBAGE_SENT) {
        w->garbage_flight--;
        w->garbage_done++;
    }
    w->socks[fd].state = S_FREE;
    close(fd);
}

static int open_one(struct worker *w, int state, unsigned kind)
{
    int fd = socket(w->l->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (fd >= w->nsocks) {
        close(fd);
        return -1;
    }
    int r = connect(fd, (const struct sockaddr *)&w->l->addr, w->l->len);
    if (r != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    struct epoll_event ev = { .events = EPOLLOUT | EPOLLIN | EPOLLRDHUP, .data.fd = fd };
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
        close(fd);
        return -1;
    }
    w->socks[fd] = (struct sock){ .state = state, .kind = kind, .since = now() };
    if (state == S_IDLE_CONNECTING) {
        w->idle_open++;
        w->idle_opened++;
    } else {
        w->garbage_flight++;
        w->garbage_started++;
    }
    return fd;
}

/* From now on only the rank's closing the connection matters. */
static void watch_close(struct worker *w, int fd)
{
    struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.fd = fd };
    epoll_ctl(w->ep, EPOLL_CTL_MOD, fd, &ev);
}

static void on_event(struct worker *w, int fd, uint32_t events)
{
    struct sock *s = &w->socks[fd];
    int closed = (events & (EPOLLERR | EPOLLHUP | EPOLLRDHUP)) != 0;
    if (events & EPOLLIN) {
        char buf[512];
        ssize_t r = recv(fd, buf, sizeof(buf), 0);
        closed |= r == 0 || (r < 0 && errno != EAGAIN);
    }
    switch (s->state) {
    case S_IDLE_CONNECTING:
        if (closed) {
            drop(w, fd, 0);
            return;
        }
        if (events & EPOLLOUT) {
            s->state = S_IDLE;
            w->idle_held++;
            watch_close(w, fd);
        }
        return;
    case S_IDLE:
        if (closed) {
            w->idle_closed_by_rank++;
            drop(w, fd, 0);
        }
        return;
    case S_GARBAGE_CONNECTING:
        if (closed) {
            drop(w, fd, 1);
            return;
        }
        if (events & EPOLLOUT) {
            uint8_t buf[1024];
            size_t n = junk(s->kind, buf);
            ssize_t wr = send(fd, buf, n, MSG_NOSIGNAL);
            (void)wr;
            w->garbage_connected++;
            s->state = S_GARBAGE_SENT;
            s->since = now();
            watch_close(w, fd);
        }
        return;
    case S_GARBAGE_SENT:
        if (closed) {
            w->garbage_closed_by_rank++;
            drop(w, fd, 1);
        }
        return;
    default:
        return;
    }
}

/* Garbage attempts that took longer than GARBAGE_WAIT (or could not connect
 * for 5 s: a full accept queue) are reset by us. */
static void expire(struct worker *w, double t)
{
    for (int fd = 0; fd < w->nsocks; fd++) {
        struct sock *s = &w->socks[fd];
        if ((s->state == S_GARBAGE_SENT && t - s->since > GARBAGE_WAIT) ||
            (s->state == S_GARBAGE_CONNECTING && t - s->since > 5.0))
            drop(w, fd, 1);
    }
}

/* Report to the parent through `out`: 'I' once the idle connections are
 * held (or 10 s passed), 'G' once the garbage attempts are made. */
static int worker(const struct listener *l, int idle, long garbage, int out)
{
    struct worker w = { .l = l, .idle_target = idle, .garbage_target = garbage };
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rlim_t want = (rlim_t)idle + GARBAGE_FLIGHT + 64;
    if (rl.rlim_cur < want) {
        rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    w.nsocks = (int)rl.rlim_cur;
    w.socks = calloc((size_t)w.nsocks, sizeof(*w.socks));
    w.ep = epoll_create1(EPOLL_CLOEXEC);
    if (w.socks == NULL || w.ep < 0)
        return 3;
    srandom((unsigned)getpid());
    double start = now(), last_expire = start;
    int told_idle = 0, told_garbage = 0;
    unsigned next_kind = 0;
    struct epoll_event evs[256];
    while (!stop) {
        /* the idle ones, kept at the target (a few hundred new ones a round) */
        for (int k = 0; k < 256 && w.idle_open < w.idle_target; k++)
            if (open_one(&w, S_IDLE_CONNECTING, 0) < 0)
                break;
        if (told_idle)
            while (w.garbage_started < w.garbage_target && w.garbage_flight < GARBAGE_FLIGHT)
                if (open_one(&w, S_GARBAGE_CONNECTING, next_kind++ % JUNK_KINDS) < 0)
                    break;
        int n = epoll_wait(w.ep, evs, 256, 20);
        for (int i = 0; i < n; i++)
            on_event(&w, evs[i].data.fd, evs[i].events);
        double t = now();
        if (t - last_expire > 0.1) {
            expire(&w, t);
            last_expire = t;
        }
        if (!told_idle && (w.idle_held >= w.idle_target || t - start > 10.0)) {
            told_idle = 1;
            ssize_t r = write(out, "I", 1);
            (void)r;
        }
        if (told_idle && !told_garbage && w.garbage_done >= w.garbage_target) {
            told_garbage = 1;
            ssize_t r = write(out, "G", 1);
            (void)r;
        }
    }
    printf("flood: %s (pid %d): idle held %d (of %d), opened %ld, closed by the rank %ld; "
           "garbage %ld (connected %ld, closed by the rank %ld)\n",
           l->name, (int)l->pid, w.idle_held, w.idle_target, w.idle_opened, w.idle_closed_by_rank, w.garbage_done,
           w.garbage_connected, w.garbage_closed_by_rank);
    fflush(stdout);
    return 0;
}

static void touch(const char *dir, const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

/* Wait for one byte `what` from each of n pipes. */
static void await_all(const int *fds, int n, char what)
{
    for (int i = 0; i < n && !stop; i++) {
        char c = 0;
        while (!stop && c != what) {
            ssize_t r = read(fds[i], &c, 1);
            if (r == 0)
                return;   /* the worker is gone */
            if (r < 0 && errno != EINTR)
                return;
        }
    }
}

int main(int argc, char **argv)
{
    const char *program = NULL, *dir = NULL;
    int ranks = 1, idle = 1000;
    long garbage = 1000;
    double timeout = 30;
    int opt;
    while ((opt = getopt(argc, argv, "p:n:d:i:g:t:")) != -1) {
        switch (opt) {
        case 'p': program = optarg; break;
        case 'n': ranks = atoi(optarg); break;
        case 'd': dir = optarg; break;
        case 'i': idle = atoi(optarg); break;
        case 'g': garbage = atol(optarg); break;
        case 't': timeout = atof(optarg); break;
        default: break;
        }
    }
    char real[PATH_MAX];
    if (program == NULL || dir == NULL || realpath(program, real) == NULL) {
        fprintf(stderr, "usage: flood -p <program> -n <ranks> -d <dir> [-i idle] [-g garbage] [-t s]\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct listener ls[MAX_LISTENERS];
    int n = find_listeners(real, ranks, timeout, ls);
    int procs = 0;
    for (int i = 0; i < n; i++) {
        int first = 1;
        for (int j = 0; j < i; j++)
            first &= ls[j].pid != ls[i].pid;
        procs += first;
        printf("flood: listener %s of pid %d\n", ls[i].name, (int)ls[i].pid);
    }
    fflush(stdout);
    if (procs < ranks) {
        fprintf(stderr, "flood: found listeners in %d of %d processes of %s\n", procs, ranks, real);
        touch(dir, "flooding");
        touch(dir, "done");
        return 2;
    }
    pid_t kids[MAX_LISTENERS] = { 0 };
    int pipes[MAX_LISTENERS] = { 0 };
    for (int i = 0; i < n; i++) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0)
            return 2;
        kids[i] = fork();
        if (kids[i] == 0) {
            close(p[0]);
            _exit(worker(&ls[i], idle, garbage, p[1]));
        }
        close(p[1]);
        pipes[i] = p[0];
    }
    await_all(pipes, n, 'I');
    touch(dir, "flooding");
    await_all(pipes, n, 'G');
    touch(dir, "done");
    while (!stop)
        pause();
    for (int i = 0; i < n; i++)
        kill(kids[i], SIGTERM);
    for (int i = 0; i < n; i++)
        waitpid(kids[i], NULL, 0);
    return 0;
}
