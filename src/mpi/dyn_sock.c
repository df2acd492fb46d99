/*
 * The TCP side of dynamic processes (dyn.h): listeners, port names, dialing
 * and accepting, and reads/writes bounded in time. Blocking calls: the
 * establishment of an intercommunicator waits for the other side anyway.
 * At MPI_THREAD_MULTIPLE the caller holds the global critical section
 * (device/cs.h) and the other side may take seconds (a spawned job
 * starting, a member busy with another establishment, an accept waiting for
 * its client for ever): the waits poll in slices of RCH_DYN_SLICE_MS and let
 * a thread that waits for the lock have it between them (rch_dev_cs_yield),
 * so other threads communicate and establish meanwhile, in this process
 * too (a thread may connect to a port another thread accepts on).
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>
#include "base/base.h"
#include "device/cs.h"
#include "mpi/dyn.h"

static struct rch_dyn_listener self_l = { .fd = -1 };

/* This host's IPv4 address as others reach it: its name's, else loopback. */
static uint32_t host_ip(void)
{
    char name[256];
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res = NULL;
    uint32_t ip = htonl(INADDR_LOOPBACK);
    if (gethostname(name, sizeof(name)) == 0 && getaddrinfo(name, NULL, &hints, &res) == 0 && res) {
        ip = ((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr;
        freeaddrinfo(res);
    }
    return ip;
}

rdmach_status_t rch_dyn_listen(struct rch_dyn_listener *l)
{
    l->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l->fd < 0)
        return rch_base_errno(errno, "dynamic processes: socket");
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t alen = sizeof(a);
    if (bind(l->fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l->fd, 128) != 0 ||
        getsockname(l->fd, (struct sockaddr *)&a, &alen) != 0) {
        int e = errno;
        close(l->fd);
        l->fd = -1;
        return rch_base_errno(e, "dynamic processes: listening socket");
    }
    l->c.ip = host_ip();
    l->c.port = a.sin_port;
    l->c.pad = 0;
    if (getrandom(&l->c.secret, sizeof(l->c.secret), 0) != (ssize_t)sizeof(l->c.secret)) {
        close(l->fd);
        l->fd = -1;
        return rch_base_errno(errno, "dynamic processes: getrandom");
    }
    return RDMACH_OK;
}

void rch_dyn_unlisten(struct rch_dyn_listener *l)
{
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
}

rdmach_status_t rch_dyn_self(const struct rch_dyn_contact **c)
{
    if (self_l.fd < 0) {
        rdmach_status_t st = rch_dyn_listen(&self_l);
        if (st != RDMACH_OK)
            return st;
    }
    *c = &self_l.c;
    return RDMACH_OK;
}

int rch_dyn_self_fd(void)
{
    return self_l.fd;
}

void rch_dyn_fini(void)
{
    rch_dyn_parked_fini();
    rch_dyn_unlisten(&self_l);
}

#define PORT_PREFIX "rdmach-port:"

void rch_dyn_port_name(const struct rch_dyn_contact *c, char *name, size_t len)
{
    char ip[INET_ADDRSTRLEN];
    struct in_addr a = { .s_addr = c->ip };
    inet_ntop(AF_INET, &a, ip, sizeof(ip));
    snprintf(name, len, PORT_PREFIX "%s:%u:%016llx", ip, (unsigned)ntohs(c->port),
             (unsigned long long)c->secret);
}

rdmach_status_t rch_dyn_port_parse(const char *name, struct rch_dyn_contact *c)
{
    char ip[INET_ADDRSTRLEN + 1];
    unsigned port;
    unsigned long long secret;
    int end = 0;
    size_t pl = strlen(PORT_PREFIX);
    if (strncmp(name, PORT_PREFIX, pl) != 0 ||
        sscanf(name + pl, "%16[0-9.]:%u:%16llx%n", ip, &port, &secret, &end) != 3 || name[pl + end] != '\0' ||
        port == 0 || port > 65535)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "'%.80s' is not a port name of rdmach (%s<address>:<port>:"
                            "<key>, from MPI_Open_port)", name, PORT_PREFIX);
    struct in_addr a;
    if (inet_pton(AF_INET, ip, &a) != 1)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "port name '%.80s': bad address %s", name, ip);
    c->ip = a.s_addr;
    c->port = htons((uint16_t)port);
    c->pad = 0;
    c->secret = secret;
    return RDMACH_OK;
}

rdmach_status_t rch_dyn_dial(const struct rch_dyn_contact *c, int *fd)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return rch_base_errno(errno, "dynamic processes: socket");
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = c->port, .sin_addr.s_addr = c->ip };
    if (connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
        int e = errno;
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &a.sin_addr, ip, sizeof(ip));
        close(s);
        return rch_base_err(RDMACH_ERR_UNREACHABLE, "connecting to %s:%u: %s", ip, (unsigned)ntohs(c->port),
                            strerror(e));
    }
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    *fd = s;
    return RDMACH_OK;
}

/* Wait for ev on fd up to timeout_ms (< 0: for ever); at MULTIPLE in
 * slices, letting other threads in between. The deadline holds across
 * slices and EINTR. */
static rdmach_status_t wait_fd(int fd, short ev, int timeout_ms, const char *what)
{
    struct pollfd p = { .fd = fd, .events = ev };
    double until = rch_base_wtime() + timeout_ms / 1e3;
    for (;;) {
        int ms = -1;
        if (timeout_ms >= 0) {
            double left = (until - rch_base_wtime()) * 1e3;
            ms = left > 0 ? (int)left + 1 : 0;
        }
        if (rch_dev_cs_on && (ms < 0 || ms > RCH_DYN_SLICE_MS))
            ms = RCH_DYN_SLICE_MS;
        int n = poll(&p, 1, ms);
        if (n > 0)
            return RDMACH_OK;
        if (n < 0 && errno != EINTR)
            return rch_base_errno(errno, "dynamic processes: poll (%s)", what);
        if (timeout_ms >= 0 && rch_base_wtime() >= until)
            return rch_base_err(RDMACH_ERR_TIMEOUT, "dynamic processes: %s: no answer within %d ms", what,
                                timeout_ms);
        rch_dev_cs_yield();
    }
}

rdmach_status_t rch_dyn_accept_fd(int lfd, int timeout_ms, int *fd)
{
    rdmach_status_t st = wait_fd(lfd, POLLIN, timeout_ms, "waiting for a connection");
    if (st != RDMACH_OK)
        return st;
    int s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (s < 0)
        return rch_base_errno(errno, "dynamic processes: accept");
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    *fd = s;
    return RDMACH_OK;
}

rdmach_status_t rch_dyn_write(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return rch_base_err(RDMACH_ERR_PEER_DEAD, "dynamic processes: write: %s", strerror(errno));
        p += n;
        len -= (size_t)n;
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dyn_read(int fd, void *buf, size_t len, int timeout_ms)
{
    char *p = buf;
    while (len > 0) {
        rdmach_status_t st = wait_fd(fd, POLLIN, timeout_ms, "reading");
        if (st != RDMACH_OK)
            return st;
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return rch_base_err(RDMACH_ERR_PEER_DEAD, "dynamic processes: the other side closed the connection%s%s",
                                n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
        p += n;
        len -= (size_t)n;
    }
    return RDMACH_OK;
}

int rch_dyn_other_host(int fd)
{
    struct sockaddr_in a, b;
    socklen_t la = sizeof(a), lb = sizeof(b);
    if (getsockname(fd, (struct sockaddr *)&a, &la) != 0 || getpeername(fd, (struct sockaddr *)&b, &lb) != 0 ||
        a.sin_family != AF_INET || b.sin_family != AF_INET)
        return 0;
    return a.sin_addr.s_addr != b.sin_addr.s_addr;
}
