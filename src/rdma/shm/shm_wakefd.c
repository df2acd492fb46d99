/*
 * The eventfd a rank sleeps on when it also waits on another channel's fds.
 *
 * A rank blocks (device/progress.c, block) on every channel at once. The
 * shared-memory channel's primitive is a futex in the rank's wake line,
 * which a sender bumps; a network channel's is an fd. A futex cannot join a
 * poll(), so a rank with both used to poll the fds 1 ms at a time and look
 * at its rings in between: every message from a rank of its own node that
 * found it asleep waited up to 1 ms. On a ScaLAPACK tester (xdhseqr, 4
 * ranks on 2 cores as 2 pretend nodes: shared memory inside, tcp between)
 * that doubled the run, 3.26 s against 1.67 with every pair over tcp.
 *
 * So when the device asks for an fd (rch_rdma_wait.want_fd), the channel
 * arms its wait with `sleeping` = RCH_SHM_SLEEP_FD and hands over an
 * eventfd it made with its segment, whose number is in the segment header.
 * A sender that finds it so (rch_shm_notify_peer) writes that eventfd: the
 * first time, it takes a copy with pidfd_getfd (Linux 5.6; the permission
 * is the one process_vm_readv already needs) through the pidfd it watches
 * the peer with, checks that the copy is an eventfd, and keeps it. A sender
 * that cannot (no pidfd_getfd, a seccomp filter, another pid namespace)
 * raises `wake_fd_failed` in the owner's header, bumps its futex anyway,
 * and the owner sleeps on the futex from its next wait on (its present
 * sleep ends at the device's bound, 100 ms at most, once).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "rdma/shm/shm.h"

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

void rch_shm_wakefd_open(struct rch_rdma_chan *ch)
{
    ch->wake_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (ch->wake_efd < 0)
        RCH_DEBUG("shm", "eventfd: %s: sleeping on the futex only", strerror(errno));
    ch->seg.hdr->wake_fd = ch->wake_efd;
}

void rch_shm_wakefd_close(struct rch_rdma_chan *ch)
{
    if (ch->wake_efd >= 0)
        close(ch->wake_efd);
    ch->wake_efd = -1;
}

void rch_shm_wakefd_drain(struct rch_rdma_chan *ch)
{
    uint64_t v;
    if (ch->wake_efd >= 0 && read(ch->wake_efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
        RCH_DEBUG("shm", "reading the wake eventfd: %s", strerror(errno));
}

/* Our copy of p's eventfd, or -2 if it cannot be had. */
static int copy_of(const struct rch_shm_peer *p)
{
    int theirs = p->segp->hdr->wake_fd;
    if (p->pidfd < 0 || theirs < 0)
        return -2;
    int fd = (int)syscall(SYS_pidfd_getfd, p->pidfd, theirs, 0);
    if (fd < 0) {
        RCH_DEBUG("shm", "pidfd_getfd of rank %d's wake eventfd: %s", p->rank, strerror(errno));
        return -2;
    }
    /* the number came from shared memory: take it only if it is an eventfd */
    char path[64], what[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, what, sizeof(what) - 1);
    if (n < 0 || (what[n] = '\0', strcmp(what, "anon_inode:[eventfd]") != 0)) {
        RCH_WARN("shm", "rank %d's wake fd %d is not an eventfd: waking it on its futex", p->rank, theirs);
        close(fd);
        return -2;
    }
    return fd;
}

void rch_shm_wakefd_wake(struct rch_shm_peer *p)
{
    if (p->wake_efd == -1)
        p->wake_efd = copy_of(p);
    if (p->wake_efd >= 0) {
        uint64_t one = 1;
        if (write(p->wake_efd, &one, sizeof(one)) == (ssize_t)sizeof(one) || errno == EAGAIN)
            return;                 /* EAGAIN: the count is at its limit, it is awake anyway */
        RCH_DEBUG("shm", "writing rank %d's wake eventfd: %s", p->rank, strerror(errno));
        close(p->wake_efd);
        p->wake_efd = -2;
    }
    atomic_store_explicit(&p->segp->hdr->wake_fd_failed, 1, memory_order_relaxed);
    rch_shm_wake(p->segp->wake);
}
