/*
 * Heartbeats: the liveness of peers that no kernel here can vouch for (a
 * rank of another node; with pretend nodes, of another host or pid
 * namespace). A rank that dies
 * there breaks its connections, and its channel reports it; a rank that
 * hangs as a whole (SIGSTOP, a frozen node, a partition) keeps them open
 * and says nothing, so only its silence tells.
 *
 * Each rank watched this way and each watcher run a light helper thread
 * ("rdmach-hb") with a UDP socket of its own: every RDMACH_HEARTBEAT_INTERVAL
 * it sends each peer it is watched by a 16-byte datagram, and it records
 * when each peer's last came. A peer unheard of for RDMACH_HEARTBEAT_TIMEOUT
 * fails like one a channel reports (rch_dev_peer_failed), judged by a waiter
 * (rch_dev_live_check, at most every 0.2 s while a wait sleeps or polls).
 * Why a thread and its own socket, not a message over the channel:
 *   - a rank computing for minutes without calling MPI is healthy and must
 *     still answer: the thread does, whatever the application does; only a
 *     stop of the whole process (or of its host) silences it;
 *   - a channel is used by one thread (channel.h, net.h), and a helper
 *     that drove the application's progress would contend with it for
 *     every call; the datagram path shares nothing with the data path.
 * Open MPI's ULFM detector is built the same way (a heartbeat thread).
 *
 * The datagram carries the receiver's random key, published with our
 * address under HB_KEY: a stranger's datagram is dropped (counted in a
 * rate-limited line), and cannot keep a hung rank alive. At finalize a rank
 * says goodbye (three datagrams: UDP may drop one): a rank that left is not
 * a rank that hangs.
 *
 * Our own helper may be starved (a loaded host): when it has not run for
 * half the timeout, its silence records say nothing and no peer is judged.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/dev_impl.h"

#define HB_KEY "rdmach-hb"
#define HB_MAGIC 0x4842u             /* "HB" */
#define HB_BYE 1u
#define HB_BYE_COPIES 3
#define HB_MAX_ADDRS 16

struct hb_msg {
    uint16_t magic;
    uint16_t flags;                 /* HB_BYE */
    uint32_t from;                  /* the sender's world rank */
    uint64_t key;                   /* the receiver's key */
};
_Static_assert(sizeof(struct hb_msg) == 16, "one small datagram");

static struct {
    int fd, stopfd;                 /* the UDP socket; the helper's stop signal */
    int thread_up;
    pthread_t thread;
    uint64_t key;                   /* ours: peers quote it */
    int me, size;
    int64_t interval_ns, timeout_ns;
    struct sockaddr_in *to;         /* [size]: the peer's heartbeat address (port 0: not watched) */
    uint64_t *key_of;               /* [size]: its key */
    int64_t *heard;                 /* [size], atomic: ns of its last datagram (helper writes) */
    int *left;                      /* [size], atomic: it said goodbye */
    int64_t tick;                   /* atomic: ns of the helper's last pass */
    struct rch_log_limit strangers; /* helper's alone */
    uint64_t dropped;
} H = { .fd = -1, .stopfd = -1 };

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int wanted(void)
{
    return rch_tun.heartbeat != RCH_HEARTBEAT_OFF && rch_tun.heartbeat_interval > 0 &&
           rch_tun.heartbeat_timeout > 0;
}

/* "<key hex>,<port>,<addr>/<prefix>;..." : every IPv4 address of this host
 * but loopback (a peer picks the one on a network it shares with us). */
static void describe(char *out, size_t len, uint16_t port)
{
    int n = snprintf(out, len, "%016llx,%u,", (unsigned long long)H.key, (unsigned)port);
    struct ifaddrs *ifs = NULL, *i;
    int count = 0;
    if (getifaddrs(&ifs) == 0) {
        for (i = ifs; i && count < HB_MAX_ADDRS && n > 0 && (size_t)n < len - 40; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !i->ifa_netmask || (i->ifa_flags & IFF_LOOPBACK) ||
                !(i->ifa_flags & IFF_UP))
                continue;
            struct in_addr a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
            uint32_t mask = ntohl(((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr);
            char ip[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &a, ip, sizeof(ip));
            n += snprintf(out + n, len - (size_t)n, "%s%s/%d", count ? ";" : "", ip, __builtin_popcount(mask));
            count++;
        }
        freeifaddrs(ifs);
    }
    if (count == 0 && n > 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, "127.0.0.1/8");
}

rdmach_status_t rch_dev_hb_publish(void)
{
    H.fd = -1;
    H.stopfd = -1;
    /* auto with the whole job on this host: nothing to watch, nothing to pay */
    if (!wanted() || rch_dev.size < 2 ||
        (rch_tun.heartbeat == RCH_HEARTBEAT_AUTO && rch_boot.host_size >= rch_dev.size))
        return RDMACH_OK;
    while (getrandom(&H.key, sizeof(H.key), 0) != (ssize_t)sizeof(H.key) || H.key == 0)
        ;
    H.fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t sl = sizeof(sa);
    if (H.fd < 0 || bind(H.fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        getsockname(H.fd, (struct sockaddr *)&sa, &sl) != 0) {
        /* without it only the channels and this host's kernel watch the peers */
        RCH_WARN("dev", "heartbeats: no UDP socket (%s): a hang of a rank on another host goes unnoticed",
                 strerror(errno));
        if (H.fd >= 0)
            close(H.fd);
        H.fd = -1;
        return rch_boot_put(HB_KEY, "none");
    }
    char v[RDMACH_KVS_VAL_MAX];
    describe(v, sizeof(v), ntohs(sa.sin_port));
    return rch_boot_put(HB_KEY, v);
}

/* The address of the peer's entries on a network of ours, else its first. */
static int pick(const char *list, struct in_addr *out)
{
    struct ifaddrs *ifs = NULL;
    int found = 0, first = 0;
    getifaddrs(&ifs);
    char buf[RDMACH_KVS_VAL_MAX];
    snprintf(buf, sizeof(buf), "%s", list);
    char *save = NULL;
    for (char *e = strtok_r(buf, ";", &save); e && !found; e = strtok_r(NULL, ";", &save)) {
        char *slash = strchr(e, '/');
        struct in_addr a;
        if (!slash)
            continue;
        *slash = '\0';
        if (inet_pton(AF_INET, e, &a) != 1)
            continue;
        if (!first) {
            *out = a;
            first = 1;
        }
        for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !i->ifa_netmask)
                continue;
            uint32_t m = ((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr;
            if (((((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ^ a.s_addr) & m) == 0) {
                *out = a;
                found = 1;
            }
        }
    }
    if (ifs)
        freeifaddrs(ifs);
    return first;
}

static void drain(int64_t t)
{
    struct hb_msg m;
    struct sockaddr_in from;
    for (;;) {
        socklen_t fl = sizeof(from);
        ssize_t n = recvfrom(H.fd, &m, sizeof(m), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
        if (n < 0)
            return;
        if (n != (ssize_t)sizeof(m) || m.magic != HB_MAGIC || m.key != H.key || m.from >= (uint32_t)H.size ||
            (int)m.from == H.me) {
            char ip[INET_ADDRSTRLEN] = "?";
            inet_ntop(AF_INET, &from.sin_addr, ip, sizeof(ip));
            H.dropped++;
            rch_log_limited(&H.strangers, RCH_LOG_WARN, "dev",
                            "heartbeats: dropped %llu datagrams from strangers since the start (the last from %s)",
                            (unsigned long long)H.dropped, ip);
            continue;
        }
        int r = (int)m.from;
        if (m.flags & HB_BYE)
            __atomic_store_n(&H.left[r], 1, __ATOMIC_RELEASE);
        __atomic_store_n(&H.heard[r], t, __ATOMIC_RELEASE);
    }
}

static void send_all(uint16_t flags)
{
    for (int r = 0; r < H.size; r++) {
        if (H.to[r].sin_port == 0)
            continue;
        struct hb_msg m = { .magic = HB_MAGIC, .flags = flags, .from = (uint32_t)H.me, .key = H.key_of[r] };
        /* lost or refused (the peer gone): its watchers will judge */
        (void)sendto(H.fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&H.to[r], sizeof(H.to[r]));
    }
}

static void *helper(void *arg)
{
    (void)arg;
    struct pollfd pfd[2] = { { .fd = H.fd, .events = POLLIN }, { .fd = H.stopfd, .events = POLLIN } };
    int64_t next = 0;
    for (;;) {
        int64_t t = now_ns();
        drain(t);
        __atomic_store_n(&H.tick, t, __ATOMIC_RELEASE);
        if (t >= next) {
            send_all(0);
            next = t + H.interval_ns;
        }
        int ms = (int)((next - t) / 1000000) + 1;
        if (poll(pfd, 2, ms) > 0 && (pfd[1].revents & POLLIN))
            return NULL;
    }
}

static void release(void)
{
    if (H.fd >= 0)
        close(H.fd);
    if (H.stopfd >= 0)
        close(H.stopfd);
    free(H.to);
    free(H.key_of);
    free(H.heard);
    free(H.left);
    memset(&H, 0, sizeof(H));
    H.fd = H.stopfd = -1;
}

/* Which peers to watch: every other rank (RDMACH_HEARTBEAT=all), or those
 * this host's kernel cannot tell about (auto): of another node, or with
 * pretend nodes of another host or pid namespace (a PMI get each: tests). */
static int watch(int r)
{
    if (r == rch_dev.rank || rch_tun.heartbeat == RCH_HEARTBEAT_ALL)
        return r != rch_dev.rank;
    if (rch_boot.host_size == rch_boot.local_size)
        return rch_boot.node_of[r] != rch_boot.node;
    return rch_dev_live_host_pid(r) == 0;
}

void rch_dev_hb_resolve(void)
{
    if (H.fd < 0)
        return;
    H.me = rch_dev.rank;
    H.size = rch_dev.size;
    H.interval_ns = (int64_t)rch_tun.heartbeat_interval * 1000000LL;
    H.timeout_ns = (int64_t)rch_tun.heartbeat_timeout * 1000000LL;
    H.to = calloc((size_t)H.size, sizeof(*H.to));
    H.key_of = calloc((size_t)H.size, sizeof(*H.key_of));
    H.heard = calloc((size_t)H.size, sizeof(*H.heard));
    H.left = calloc((size_t)H.size, sizeof(*H.left));
    if (!H.to || !H.key_of || !H.heard || !H.left) {
        release();
        return;
    }
    int n = 0;
    int64_t t0 = now_ns();
    for (int r = 0; r < H.size; r++) {
        char v[RDMACH_KVS_VAL_MAX];
        unsigned long long key;
        unsigned port;
        int used = 0;
        if (!watch(r) || rch_boot_get(r, HB_KEY, v, sizeof(v)) != RDMACH_OK ||
            sscanf(v, "%16llx,%u,%n", &key, &port, &used) != 2 || used == 0 || port == 0 || port > 65535 ||
            !pick(v + used, &H.to[r].sin_addr))
            continue;
        H.to[r].sin_family = AF_INET;
        H.to[r].sin_port = htons((uint16_t)port);
        H.key_of[r] = key;
        H.heard[r] = t0;
        n++;
    }
    H.tick = t0;
    if (n == 0) {
        release();
        return;
    }
    H.stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    /* the helper takes no signal: they are the application's */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    H.thread_up = H.stopfd >= 0 && pthread_create(&H.thread, NULL, helper, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!H.thread_up) {
        RCH_WARN("dev", "heartbeats: no helper thread: a hang of a rank on another host goes unnoticed");
        release();
        return;
    }
    pthread_setname_np(H.thread, "rdmach-hb");
    RCH_DEBUG("dev", "heartbeats: %d peers watched, every %d ms, timeout %d ms", n, rch_tun.heartbeat_interval,
              rch_tun.heartbeat_timeout);
}

void rch_dev_hb_check(void)
{
    if (!H.thread_up)
        return;
    int64_t t = now_ns();
    /* our helper has not run for a while: the peers' silence may be its own */
    if (t - __atomic_load_n(&H.tick, __ATOMIC_ACQUIRE) > H.interval_ns + H.timeout_ns / 2)
        return;
    for (int r = 0; r < H.size; r++) {
        if (H.to[r].sin_port == 0 || rch_dev.peers[r].dead || __atomic_load_n(&H.left[r], __ATOMIC_ACQUIRE))
            continue;
        int64_t silent = t - __atomic_load_n(&H.heard[r], __ATOMIC_ACQUIRE);
        if (silent >= H.timeout_ns) {
            rch_base_err(RDMACH_ERR_PEER_DEAD, "no heartbeat for %.0f ms (RDMACH_HEARTBEAT_TIMEOUT): hung or unreachable",
                         (double)silent / 1e6);
            RCH_WARN("dev", "rank %d: %s", r, rdmach_last_error());
            rch_dev_peer_failed(r, RDMACH_ERR_PEER_DEAD);
        }
    }
}

void rch_dev_hb_fini(void)
{
    if (H.thread_up) {
        uint64_t one = 1;
        if (write(H.stopfd, &one, sizeof(one)) != (ssize_t)sizeof(one))
            pthread_cancel(H.thread);
        pthread_join(H.thread, NULL);
        for (int i = 0; i < HB_BYE_COPIES; i++)
            send_all(HB_BYE);
    }
    release();
}
