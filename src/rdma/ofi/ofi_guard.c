/*
 * libfabric provider: the listener's guard and the descriptor reserve.
 *
 * Why. libfabric 1.17's tcp provider accepts every TCP connection made to
 * the passive endpoint (inside fi_eq_read, one per call) and keeps its
 * socket until a connection request arrives on it, with no deadline and no
 * bound. A stranger holding ~1,000 silent connections took every
 * descriptor of a rank under `ulimit -n 1024`: its next fi_endpoint failed
 * ("Too many open files") and the job ended.
 *
 * What the guard sees of the provider, through the kernel:
 *   - the listening socket: the descriptor of the connection manager's
 *     epoll set that listens at the passive endpoint's address (found at
 *     open);
 *   - the connection manager's epoll set itself, the EQ's wait fd
 *     (FI_GETWAIT); /proc/self/fdinfo/<it> lists every descriptor the
 *     connection manager waits on, with the events it asks for. A socket
 *     accepted from the listener and waiting for its request asks POLLIN
 *     and is bound to the listener's address; an endpoint we accepted asks
 *     POLLOUT (its accept going out) and our own connects are bound to other
 *     ports, so neither is taken for a stranger.
 *
 * What it does. A silent socket (nothing to read) older than
 * RDMACH_NET_HANDSHAKE_TIMEOUT_MS, and the oldest silent ones beyond
 * RDMACH_NET_PENDING_MAX, are reset with connect(AF_UNSPEC): the stranger
 * gets a RST, the socket an error that the provider's next fi_eq_read reads
 * (ECONNRESET, errno set) before it closes the socket and frees its request
 * through its own error path. The guard never closes a descriptor the
 * provider owns. A socket with bytes waiting is left to the provider, which
 * reads it in its next fi_eq_read (a member's request, or junk it closes).
 *
 * Bound. Accepts happen only inside fi_eq_read, at most one per call, when
 * the listener is readable: rch_ofi_guard_before_read polls the listener
 * before each call, counts the accept it will make, and scans (reads the
 * fdinfo) before the call that could pass the bound, trimming to half of
 * it. So strangers never hold more than RDMACH_NET_PENDING_MAX descriptors
 * through a listener, whatever their number, and a scan costs one read of
 * a list that short per half-bound of accepts. A member's request is on its
 * socket one round trip after the TCP handshake, so it is read by the
 * provider before its socket can become the oldest; if it is reset anyway,
 * the client connects again (net_conn.c).
 *
 * Reserve. RDMACH_NET_FD_RESERVE descriptors (/dev/null) are held back:
 * when fi_endpoint fails for want of descriptors, one is given up for it
 * (rch_ofi_guard_release); when the process has none left while the
 * listener is readable, one is given up before fi_eq_read so the provider's
 * accept succeeds (its EMFILE would leave the listener readable, the wait
 * fd with it, and the connection unaccepted) and the silent sockets are
 * trimmed to a quarter of the bound. The reserve is refilled when
 * descriptors are free again. One more spare is the guard's own: reading
 * the fdinfo needs a descriptor, and it is needed most when none is free.
 *
 * If the listening socket or the epoll set cannot be found (a provider that
 * works otherwise), the guard is off, and says so at RDMACH_LOG=debug.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/ofi/ofi.h"

#if RDMACH_HAVE_OFI

/* A socket the connection manager waits on for a request: `fd` as long as
 * its inode is `ino`. Kept in the order first seen, oldest first. */
struct guard_sock {
    int fd;
    unsigned long ino;
    double since;
    int reset;                   /* reset by us, not yet closed by the provider */
    int seen;                    /* in the last scan */
};

struct rch_ofi_guard {
    int listen_fd;
    int cm_epfd;                 /* the connection manager's epoll set (the EQ's wait fd) */
    struct sockaddr_storage addr;
    socklen_t addrlen;
    double timeout;              /* seconds a socket may stay silent */
    int max;                     /* silent sockets held at most */
    struct guard_sock *socks;
    int nsocks, cap;
    int live;                    /* of them, not reset */
    unsigned accepts;            /* calls that found the listener readable since the last scan */
    double last_scan;
    int spare[64];               /* the reserve for endpoints and accepts */
    int nspare, want_spare;
    int own_spare;               /* the guard's own, for reading the fdinfo (-1: none) */
    int starved;                 /* the last refill found no descriptor free */
    char *buf;                   /* fdinfo text */
    size_t buflen;
    uint64_t reset_silent, reset_over;
    struct rch_log_limit log;
};

static int same_addr(const struct sockaddr_storage *a, socklen_t alen, const struct sockaddr_storage *b,
                     socklen_t blen)
{
    if (a->ss_family != b->ss_family)
        return 0;
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
        return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
    }
    if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
        return x->sin6_port == y->sin6_port && memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0;
    }
    return alen == blen && memcmp(a, b, alen) == 0;
}

static int bound_to_listener(const struct rch_ofi_guard *g, int fd)
{
    struct sockaddr_storage sa;
    socklen_t len = sizeof(sa);
    if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0)
        return 0;
    return same_addr(&sa, len, &g->addr, g->addrlen);
}

static int is_listening(int fd)
{
    int on = 0;
    socklen_t len = sizeof(on);
    return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == 0 && on;
}

static int silent(int fd)
{
    int n = 0;
    return ioctl(fd, FIONREAD, &n) == 0 && n == 0;
}

/* The whole fdinfo of the epoll set into g->buf; its length, or -1. With no
 * descriptor free (when trimming matters most) the guard's own spare is
 * closed for it and taken again after. */
static ssize_t read_fdinfo(struct rch_ofi_guard *g)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g->cm_epfd);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && (errno == EMFILE || errno == ENFILE) && g->own_spare >= 0) {
        close(g->own_spare);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        g->own_spare = -1;
    }
    if (fd < 0)
        return -1;
    size_t n = 0;
    for (;;) {
        if (g->buflen - n < 4096) {
            char *b = realloc(g->buf, g->buflen * 2 + 8192);
            if (b == NULL)
                break;
            g->buf = b;
            g->buflen = g->buflen * 2 + 8192;
        }
        ssize_t r = read(fd, g->buf + n, g->buflen - n - 1);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (g->own_spare < 0)
        g->own_spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    g->buf[n] = '\0';
    return (ssize_t)n;
}

/* Call fn(g, fd, events, ino) for each descriptor of the epoll set. */
static int for_each_watched(struct rch_ofi_guard *g, void (*fn)(struct rch_ofi_guard *, int, unsigned, unsigned long))
{
    if (read_fdinfo(g) < 0)
        return -1;
    for (const char *p = strstr(g->buf, "tfd:"); p; p = strstr(p + 4, "tfd:")) {
        int fd;
        unsigned events;
        unsigned long long data;
        long long pos;
        unsigned long ino;
        if (sscanf(p, "tfd: %d events: %x data: %llx pos:%lli ino:%lx", &fd, &events, &data, &pos, &ino) == 5)
            fn(g, fd, events, ino);
    }
    return 0;
}

static void find_listener(struct rch_ofi_guard *g, int fd, unsigned events, unsigned long ino)
{
    (void)events;
    (void)ino;
    if (g->listen_fd < 0 && is_listening(fd) && bound_to_listener(g, fd))
        g->listen_fd = fd;
}

static struct guard_sock *sock_find(struct rch_ofi_guard *g, int fd)
{
    for (int i = 0; i < g->nsocks; i++)
        if (g->socks[i].fd == fd)
            return &g->socks[i];
    return NULL;
}

/* One descriptor of the set, in a scan: note a socket waiting for its request. */
static void note(struct rch_ofi_guard *g, int fd, unsigned events, unsigned long ino)
{
    if (fd == g->listen_fd || !(events & EPOLLIN) || (events & EPOLLOUT))
        return;
    struct guard_sock *s = sock_find(g, fd);
    if (s && s->ino == ino) {
        s->seen = 1;
        return;
    }
    if (s)   /* the number was closed and given to another socket */
        s->fd = -1;
    if (!bound_to_listener(g, fd))
        return;
    if (g->nsocks == g->cap) {
        int cap = g->cap ? 2 * g->cap : 64;
        struct guard_sock *n = realloc(g->socks, (size_t)cap * sizeof(*n));
        if (n == NULL)
            return;
        g->socks = n;
        g->cap = cap;
    }
    g->socks[g->nsocks++] = (struct guard_sock){ .fd = fd, .ino = ino, .since = rch_base_wtime(), .seen = 1 };
}

static void reset(struct guard_sock *s)
{
    struct sockaddr un = { .sa_family = AF_UNSPEC };
    if (connect(s->fd, &un, sizeof(un)) != 0)
        RCH_DEBUG("net", "ofi: guard: resetting descriptor %d: %s", s->fd, strerror(errno));
    s->reset = 1;
}

/* Read the set: forget sockets gone, note new ones, reset the silent ones
 * too old, then the oldest silent ones until at most `keep` are held. */
static void scan(struct rch_ofi_guard *g, int keep)
{
    for (int i = 0; i < g->nsocks; i++)
        g->socks[i].seen = 0;
    if (for_each_watched(g, note) != 0)
        return;
    int n = 0;
    g->live = 0;
    for (int i = 0; i < g->nsocks; i++) {
        if (!g->socks[i].seen || g->socks[i].fd < 0)
            continue;
        g->socks[n++] = g->socks[i];
        g->live += !g->socks[i].reset;
    }
    g->nsocks = n;
    double now = rch_base_wtime();
    unsigned silent_reset = 0, over_reset = 0;
    for (int i = 0; i < g->nsocks; i++) {
        struct guard_sock *s = &g->socks[i];
        if (s->reset || !silent(s->fd))
            continue;
        if (now - s->since >= g->timeout) {
            reset(s);
            silent_reset++;
            g->live--;
        } else if (g->live > keep) {
            reset(s);
            over_reset++;
            g->live--;
        }
    }
    g->accepts = 0;
    g->last_scan = now;
    if (silent_reset + over_reset == 0)
        return;
    g->reset_silent += silent_reset;
    g->reset_over += over_reset;
    rch_log_limited(&g->log, RCH_LOG_WARN, "net",
                    "listener: reset %u connections that sent no connection request; since the start %llu silent "
                    "for %.0f ms (RDMACH_NET_HANDSHAKE_TIMEOUT_MS), %llu the oldest of more than %d waiting "
                    "(RDMACH_NET_PENDING_MAX)",
                    silent_reset + over_reset, (unsigned long long)g->reset_silent, g->timeout * 1e3,
                    (unsigned long long)g->reset_over, g->max);
}

static void refill(struct rch_ofi_guard *g)
{
    while (g->nspare < g->want_spare) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            g->starved = errno == EMFILE || errno == ENFILE;
            return;
        }
        g->spare[g->nspare++] = fd;
    }
    g->starved = 0;
}

int rch_ofi_guard_release(struct rch_net_prov *p)
{
    struct rch_ofi_guard *g = p->guard;
    if (g == NULL || g->nspare == 0)
        return 0;
    close(g->spare[--g->nspare]);
    g->starved = 1;
    return 1;
}

int rch_ofi_guard_before_read(struct rch_net_prov *p)
{
    struct rch_ofi_guard *g = p->guard;
    if (g == NULL || g->listen_fd < 0)
        return 0;
    if (g->nspare < g->want_spare)
        refill(g);
    struct pollfd pfd = { .fd = g->listen_fd, .events = POLLIN };
    int readable = poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
    double now = rch_base_wtime();
    if (readable && g->starved) {
        scan(g, g->max / 4);
        rch_ofi_guard_release(p);
    } else if (readable && g->live + (int)g->accepts >= g->max) {
        scan(g, g->max / 2);
    } else if ((g->live > 0 || g->accepts > 0) && now - g->last_scan >= g->timeout / 4) {
        scan(g, g->max);
    }
    g->accepts += readable;
    return readable;
}

rdmach_status_t rch_ofi_guard_open(struct rch_net_prov *p, int cm_epfd)
{
    struct rch_ofi_guard *g = calloc(1, sizeof(*g));
    if (g == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "ofi: no memory for the listener's guard");
    g->listen_fd = -1;
    g->cm_epfd = cm_epfd;
    g->timeout = rch_tun.net_handshake_timeout_ms / 1e3;
    g->max = rch_tun.net_pending_max;
    g->want_spare = rch_tun.net_fd_reserve < 64 ? rch_tun.net_fd_reserve : 64;
    g->own_spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    p->guard = g;
    refill(g);
    size_t len = sizeof(g->addr);
    if (cm_epfd >= 0 && fi_getname(&p->pep->fid, &g->addr, &len) == 0) {
        g->addrlen = (socklen_t)len;
        for_each_watched(g, find_listener);
    }
    if (g->listen_fd < 0)
        RCH_DEBUG("net", "ofi: no listening socket found in the connection manager's epoll set: "
                  "silent connections to the listener are not bounded (%s)", p->caps.name);
    return RDMACH_OK;
}

void rch_ofi_guard_close(struct rch_net_prov *p)
{
    struct rch_ofi_guard *g = p->guard;
    if (g == NULL)
        return;
    rch_log_limit_flush(&g->log, RCH_LOG_WARN, "net", "listener: connections reset that sent no request");
    while (g->nspare)
        close(g->spare[--g->nspare]);
    if (g->own_spare >= 0)
        close(g->own_spare);
    free(g->socks);
    free(g->buf);
    free(g);
    p->guard = NULL;
}

#endif /* RDMACH_HAVE_OFI */
