/*
 * Liveness of the peers of this host that no channel watches: ranks of
 * other pretend nodes (RDMACH_VNODE_SIZE) or of this node with shared
 * memory off, reached through the network channel. A dead one shows up as
 * a broken connection, but a stopped one (SIGSTOP: a hang of the whole
 * process) keeps its sockets open and its kernel answers for it: only the
 * kernel's word on its state tells (base/proc.c). The shared-memory channel
 * watches its own peers (caps.watches_peers, rdma/shm/shm_live.c).
 *
 * Each rank puts "<boot id>,<pid namespace>,<pid>" under LIVE_KEY at init
 * (before the fence: one put). A waiter about to sleep (progress.c, block)
 * runs rch_dev_live_check at most every PERIOD_S, or at once after the
 * launcher's "a process failed" signal. Right after init's fence,
 * rch_dev_live_resolve reads the key of every candidate peer (those on this
 * node, and every other one when this host has pretend nodes) and keeps the
 * pids of those that share our host and pid namespace: never from progress,
 * which must make no PMI round trip (a blocking exchange with the launcher,
 * and in a forked child of a rank one whose reply the parent would read). A peer gone (at two checks in a
 * row: one that said goodbye on its channel first, having finished, has left
 * instead), or stopped for RDMACH_PEER_STOP_TIMEOUT, fails like a peer a channel reports (rch_dev_peer_failed): everything
 * waiting on it ends with PEER_DEAD; a late completion from its channel
 * finds no live request and is dropped (req.c).
 * Peers on other hosts: their channel tells of a death, their heartbeats
 * (heartbeat.c) of a hang.
 *
 * A normal end is no failure, and a peer that never talked with us sent no
 * goodbye on any channel: so a rank watched here leaves a mark of its
 * departure at its device's close (rch_dev_live_depart, after its queues
 * drained): the empty file /dev/shm/rdmach-<kvsname>-left-<rank>, which
 * outlives it on the host (its watchers share it) and goes with the job's
 * other files (rdmachrun's clean-up, the reaper's, reaper.c; with
 * RDMACH_SHM_REAPER off under another launcher it stays, empty). A gone peer
 * with that mark has left (rch_dev_peer_left: quiet); without it, it
 * failed. Made only where some peer watches us (the watch is symmetric:
 * same host, no watching channel between us), so shared-memory jobs make
 * none.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/dev_impl.h"

#define LIVE_KEY "rdmach-live"
#define PERIOD_S 0.2

struct live_peer {
    pid_t pid;                       /* 0: not watched here */
    double stopped_since;            /* 0: running */
    int gone;                        /* seen gone once: failed at the next check */
};

static struct {
    struct live_peer *peers;         /* [npeers], after the first check */
    int npeers;                      /* the job's own ranks (not dyn.c's later peers) */
    int resolved;
    int any;                         /* some peer is watched */
    double next, last;               /* next check, last check (rch_base_wtime) */
    unsigned alerts;
    char me[320];                    /* our "<boot id or host name>,<pid namespace>" */
} L;

static void host_id(char *out, size_t len)
{
    char boot[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof(boot), f))
            boot[0] = '\0';
        fclose(f);
    }
    boot[strcspn(boot, "\n")] = '\0';
    struct stat sb;
    unsigned long long ns = stat("/proc/self/ns/pid", &sb) == 0 ? (unsigned long long)sb.st_ino : 0;
    snprintf(out, len, "%s,%llu", boot[0] ? boot : rch_boot.hostname, ns);
}

rdmach_status_t rch_dev_live_publish(void)
{
    char v[sizeof(L.me) + 16];
    memset(&L, 0, sizeof(L));
    host_id(L.me, sizeof(L.me));
    snprintf(v, sizeof(v), "%s,%d", L.me, (int)getpid());
    return rch_boot_put(LIVE_KEY, v);
}

void rch_dev_live_fini(void)
{
    free(L.peers);
    memset(&L, 0, sizeof(L));
}

/* Could this peer share our host without a channel watching it? */
static int candidate(int r)
{
    const struct rch_dev_peer *p = &rch_dev.peers[r];
    if (r == rch_dev.rank || p->dead || !p->dchan || p->dchan->caps->watches_peers)
        return 0;
    return rch_boot.node_of[r] == rch_boot.node || rch_boot.host_size > rch_boot.local_size;
}

void rch_dev_live_resolve(void)
{
    L.resolved = 1;
    L.peers = calloc((size_t)rch_dev.size, sizeof(*L.peers));
    if (!L.peers)
        return;
    L.npeers = rch_dev.size;   /* the job's own: dyn.c's later peers are watched by the channel they are attached to */
    size_t mlen = strlen(L.me);
    for (int r = 0; r < rch_dev.size; r++) {
        char v[RDMACH_KVS_VAL_MAX];
        if (!candidate(r) || rch_boot_get(r, LIVE_KEY, v, sizeof(v)) != RDMACH_OK)
            continue;
        if (strncmp(v, L.me, mlen) == 0 && v[mlen] == ',') {
            L.peers[r].pid = (pid_t)atol(v + mlen + 1);
            L.any |= L.peers[r].pid > 0;
        }
    }
    RCH_DEBUG("dev", "liveness: %s peer of this host without a watching channel", L.any ? "a" : "no");
}

pid_t rch_dev_live_host_pid(int r)
{
    char v[RDMACH_KVS_VAL_MAX];
    size_t mlen = strlen(L.me);
    if (r == rch_dev.rank)
        return getpid();
    if (!L.me[0] || rch_boot_get(r, LIVE_KEY, v, sizeof(v)) != RDMACH_OK || strncmp(v, L.me, mlen) != 0 ||
        v[mlen] != ',')
        return 0;
    return (pid_t)atol(v + mlen + 1);
}

static void left_mark(char *out, size_t len, int rank)
{
    snprintf(out, len, "/dev/shm/rdmach-%s-left-%d", rch_boot.kvsname, rank);
}

void rch_dev_live_depart(void)
{
    if (!L.any)
        return;
    char path[sizeof(rch_boot.kvsname) + 64];
    left_mark(path, sizeof(path), rch_dev.rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        RCH_WARN("dev", "cannot mark this rank's departure (%s): %s; peers of this host that never talked "
                 "with it may take its exit for a failure", path, strerror(errno));
        return;
    }
    close(fd);
}

int rch_dev_live_departed(int r)
{
    if (r < 0 || r >= L.npeers || L.peers[r].pid <= 0)
        return 0;
    char path[sizeof(rch_boot.kvsname) + 64];
    left_mark(path, sizeof(path), r);
    return access(path, F_OK) == 0;
}

static void fail(int r, const char *why)
{
    rch_base_err(RDMACH_ERR_PEER_DEAD, "its process (pid %d) %s", (int)L.peers[r].pid, why);
    RCH_WARN("dev", "rank %d: %s", r, rdmach_last_error());
    L.peers[r].pid = 0;
    rch_dev_peer_failed(r, RDMACH_ERR_PEER_DEAD);
}

void rch_dev_live_check(void)
{
    double now = rch_base_wtime();
    unsigned alerts = rch_base_alerts();
    if (now < L.next && alerts == L.alerts)
        return;
    L.next = now + PERIOD_S;
    L.alerts = alerts;
    rch_dev_hb_check();        /* the peers of other hosts (heartbeat.c) */
    if (!L.any)
        return;
    /* after a gap in our own checks a stop seen before says nothing (as in
     * shm_live.c): the count starts again */
    double limit = rch_tun.peer_stop_timeout / 1000.0;
    int gap = now - L.last > limit / 2 + 2 * PERIOD_S;
    L.last = now;
    for (int r = 0; r < L.npeers; r++) {
        struct live_peer *lp = &L.peers[r];
        if (lp->pid <= 0 || rch_dev.peers[r].dead)
            continue;
        int s = rch_base_proc_stopped(lp->pid);
        if (s < 0 && rch_dev_live_departed(r)) {
            lp->pid = 0;
            rch_dev_peer_left(r);
        } else if (s < 0 && !lp->gone) {
            /* A rank that finished sent its channel's goodbye before it
             * exited, which our progress may not have read yet (the peer
             * then leaves, rch_dev_peer_left, and is skipped above): give
             * it until the next check. */
            lp->gone = 1;
        } else if (s < 0) {
            fail(r, "is gone");
        } else if (s == 0 || limit <= 0 || gap) {
            lp->stopped_since = s == 0 || limit <= 0 ? 0 : now;
        } else if (lp->stopped_since == 0) {
            lp->stopped_since = now;
        } else if (now - lp->stopped_since >= limit) {
            fail(r, "has been stopped for RDMACH_PEER_STOP_TIMEOUT or longer");
        }
    }
}
