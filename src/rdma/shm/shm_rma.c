/*
 * Large data: registration, remote keys, and get/put.
 *
 * Gets: the device's rendezvous gets take the pipeline with stealing
 * (RDMACH_SHM_GET, shm_pipe.c), one-sided gets and every put single copy.
 *
 * Single copy: process_vm_readv/writev between the two address spaces; the
 * transfer is complete when the call returns, so get/put return OK (a large
 * one may be shared with the peer, shm_coop.c, and end in rma_done). Where the
 * kernel refuses (ptrace policy, seccomp; probed at connect, or an EPERM
 * later with RDMACH_CMA=auto) the two-copy pipeline of shm_pipe.c takes over
 * and the operation completes through upcalls.rma_done (INPROGRESS).
 *
 * Registration pins nothing: it records the range, so the pipeline can check
 * that a peer only reads or writes memory we registered for it, and so the
 * rkey can carry the range (checked before any transfer).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/shm/shm.h"

#define ACCESS_ALL (RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_READ | RCH_RDMA_ACCESS_REMOTE_WRITE)
/* One process_vm_* call moves at most this much, so a huge transfer does not
 * hold the peer's page tables for long in one system call. */
#define CMA_MAX_CALL ((size_t)64 << 20)

rdmach_status_t rch_shm_mem_reg(struct rch_rdma_chan *ch, void *addr, size_t len, unsigned access,
                                struct rch_rdma_mr **mr)
{
    if (!mr || (len > 0 && !addr) || (access & ~ACCESS_ALL) ||
        (uintptr_t)addr + len < (uintptr_t)addr)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm mem_reg: addr %p len %zu access 0x%x mr %p",
                            addr, len, access, (void *)mr);
    struct rch_shm_mr *m = calloc(1, sizeof(*m));
    if (!m)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm mem_reg: %zu bytes", len);
    m->pub.addr = addr;
    m->pub.len = len;
    m->pub.access = access;
    m->pub.priv = m;
    m->next = ch->mrs;
    if (ch->mrs)
        ch->mrs->prev = m;
    ch->mrs = m;
    *mr = &m->pub;
    return RDMACH_OK;
}

void rch_shm_mem_dereg(struct rch_rdma_chan *ch, struct rch_rdma_mr *mr)
{
    if (!mr)
        return;
    struct rch_shm_mr *m = mr->priv;
    if (m->prev)
        m->prev->next = m->next;
    else
        ch->mrs = m->next;
    if (m->next)
        m->next->prev = m->prev;
    free(m);
}

rdmach_status_t rch_shm_mem_rkey(struct rch_rdma_chan *ch, const struct rch_rdma_mr *mr,
                                 struct rch_rdma_rkey *rkey)
{
    if (!mr || !rkey)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm mem_rkey: mr %p rkey %p", (const void *)mr,
                            (void *)rkey);
    struct rch_shm_rkey k = {
        .magic = RCH_SHM_RKEY_MAGIC,
        .pid = (int32_t)getpid(),
        .rank = ch->rank,
        .access = mr->access,
        .base = (uint64_t)(uintptr_t)mr->addr,
        .len = mr->len,
    };
    memset(rkey, 0, sizeof(*rkey));
    rkey->len = sizeof(k);
    memcpy(rkey->bytes, &k, sizeof(k));
    return RDMACH_OK;
}

const struct rch_shm_mr *rch_shm_mr_find(struct rch_rdma_chan *ch, uint64_t addr, uint64_t len,
                                         unsigned access)
{
    if (addr + len < addr)
        return NULL;
    for (const struct rch_shm_mr *m = ch->mrs; m; m = m->next) {
        uint64_t base = (uint64_t)(uintptr_t)m->pub.addr;
        if ((m->pub.access & access) == access && addr >= base && addr + len <= base + m->pub.len)
            return m;
    }
    return NULL;
}

static rdmach_status_t check_rkey(struct rch_shm_peer *p, const struct rch_rdma_rkey *rkey,
                                  uint64_t raddr, size_t len, unsigned access, const char *op)
{
    struct rch_shm_rkey k;
    if (!rkey || rkey->len != sizeof(k))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm %s from rank %d: %s", op, p->rank,
                            rkey ? "rkey is not a shared-memory key" : "rkey is NULL");
    memcpy(&k, rkey->bytes, sizeof(k));
    if (k.magic != RCH_SHM_RKEY_MAGIC || k.rank != p->rank || (p->pid > 0 && k.pid != p->pid))
        return rch_base_err(RDMACH_ERR_INVALID_ARG,
                            "shm %s: rkey of rank %d (pid %d) used with rank %d (pid %d)", op, k.rank,
                            (int)k.pid, p->rank, (int)p->pid);
    if ((k.access & access) != access)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm %s from rank %d: memory not registered for remote %s",
                            op, p->rank, access == RCH_RDMA_ACCESS_REMOTE_READ ? "read" : "write");
    if (raddr < k.base || raddr + len < raddr || raddr + len > k.base + k.len)
        return rch_base_err(RDMACH_ERR_INVALID_ARG,
                            "shm %s from rank %d: [0x%llx, +%zu) is outside the registered [0x%llx, +%llu)",
                            op, p->rank, (unsigned long long)raddr, len, (unsigned long long)k.base,
                            (unsigned long long)k.len);
    return RDMACH_OK;
}

rdmach_status_t rch_shm_cma_rw(struct rch_rdma_chan *ch, struct rch_shm_peer *p, void *laddr,
                               uint64_t raddr, size_t len, int write)
{
    size_t done = 0;
    while (done < len) {
        size_t n = len - done < CMA_MAX_CALL ? len - done : CMA_MAX_CALL;
        struct iovec l = { .iov_base = (char *)laddr + done, .iov_len = n };
        struct iovec r = { .iov_base = (void *)(uintptr_t)(raddr + done), .iov_len = n };
        ssize_t got = write && rch_tun.cma_refuse_write ? (errno = EPERM, -1)
                      : write ? process_vm_writev(p->pid, &l, 1, &r, 1, 0)
                              : process_vm_readv(p->pid, &l, 1, &r, 1, 0);
        if (got > 0) {
            done += (size_t)got;
            continue;
        }
        int err = got < 0 ? errno : EFAULT;   /* 0 bytes: nothing more is mapped there */
        if (err == EINTR)
            continue;
        const char *fn = write ? "process_vm_writev" : "process_vm_readv";
        if (err == ESRCH) {
            rch_shm_peer_mark_dead(ch, p, RDMACH_ERR_PEER_DEAD);
            return rch_base_err(RDMACH_ERR_PEER_DEAD, "shm %s: rank %d (pid %d) is gone", fn, p->rank,
                                (int)p->pid);
        }
        if (err == EPERM || err == EACCES || err == ENOSYS)
            return rch_base_err(RDMACH_ERR_UNSUPPORTED, "shm %s with rank %d (pid %d): %s", fn, p->rank,
                                (int)p->pid, strerror(err));
        if (err == EFAULT)
            return rch_base_err(RDMACH_ERR_INVALID_ARG,
                                "shm %s with rank %d: bad address (local %p, remote 0x%llx, %zu of %zu bytes done)",
                                fn, p->rank, laddr, (unsigned long long)raddr, done, len);
        return rch_base_errno(err, "shm %s with rank %d (%zu bytes)", fn, p->rank, len);
    }
    return RDMACH_OK;
}

static rdmach_status_t rma_prepare(struct rch_rdma_chan *ch, int peer, int has_local, size_t len,
                                   const struct rch_rdma_rkey *rkey, uint64_t raddr, unsigned access,
                                   const char *op, struct rch_shm_peer **out)
{
    struct rch_shm_peer *p = rch_shm_peer_get(ch, peer);
    if (!p)
        return rch_base_err(RDMACH_ERR_UNREACHABLE, "shm %s: rank %d is not a peer of this channel", op, peer);
    if (p->state == RCH_SHM_PEER_DEAD)
        return rch_base_err(p->dead_status, "shm %s: rank %d has failed", op, peer);
    if (len > 0 && !has_local)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm %s: local address is NULL for %zu bytes", op, len);
    rdmach_status_t st = check_rkey(p, rkey, raddr, len, access, op);
    if (st == RDMACH_OK && p->state != RCH_SHM_PEER_CONNECTED) {
        st = rch_shm_connect_peer(ch, p);
        if (st == RDMACH_OK)
            st = check_rkey(p, rkey, raddr, len, access, op);   /* now with the peer's pid */
    }
    *out = p;
    return st;
}

/* The kernel refused single copy after connect said yes: with RDMACH_CMA=auto
 * switch this peer to the pipeline; with =on it is an error. */
static int cma_refused(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    if (ch->cma_mode == RCH_CMA_ON)
        return 0;
    RCH_WARN("shm", "%s: using the two-copy pipeline with rank %d from now on", rdmach_last_error(), p->rank);
    p->cma = 0;
    return 1;
}

/* A rendezvous get by the way its timings favour (shm_adapt.h), timed. */
static rdmach_status_t adapt_get(struct rch_rdma_chan *ch, struct rch_shm_peer *p, void *laddr, size_t len,
                                 uint64_t raddr, void *op_ctx)
{
    int way = rch_shm_adapt_choose(&ch->adapt, len);
    ch->stats.adapt_gets[way]++;
    uint64_t t0 = rch_shm_adapt_now();
    rdmach_status_t st;
    if (way == RCH_SHM_WAY_CMA) {
        st = rch_shm_coop_rw(ch, p, laddr, raddr, len, 0, op_ctx);
        if (st == RDMACH_ERR_UNSUPPORTED && cma_refused(ch, p)) {
            way = RCH_SHM_WAY_PIPE;
            st = rch_shm_pipe_get(ch, p, laddr, len, raddr, op_ctx, 1);
        }
    } else {
        st = rch_shm_pipe_get(ch, p, laddr, len, raddr, op_ctx, 1);
    }
    if (st == RDMACH_OK)
        rch_shm_adapt_sample(&ch->adapt, len, way, t0, rch_shm_adapt_now());
    else if (st == RDMACH_INPROGRESS)
        rch_shm_adapt_start(&ch->adapt, op_ctx, len, way, t0);
    return st;
}

rdmach_status_t rch_shm_get(struct rch_rdma_chan *ch, int peer, void *laddr,
                            struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                            uint64_t raddr, void *op_ctx)
{
    struct rch_shm_peer *p = NULL;
    rdmach_status_t st =
        rma_prepare(ch, peer, laddr != NULL, len, rkey, raddr, RCH_RDMA_ACCESS_REMOTE_READ, "get", &p);
    if (st != RDMACH_OK || len == 0)
        return st;
    if (peer == ch->rank) {
        memmove(laddr, (const void *)(uintptr_t)raddr, len);
        return RDMACH_OK;
    }
    /* A get with a local registration is the device's rendezvous: the owner
     * is in MPI (it sent the request and waits for it). Which of the
     * pipeline (stealing covers an owner that is not progressing) and single
     * copy is faster depends on the processor, so by default the receiver
     * times both and takes the faster per size class (shm_adapt.h);
     * RDMACH_SHM_CMA_FROM from a tuning file or the environment, or
     * RDMACH_SHM_GET=pipe|cma, fixes the way instead. One-sided gets (no
     * lmr) keep single copy. */
    int pipe = ch->get_mode == RCH_SHM_GET_PIPE ||
               (ch->get_mode == RCH_SHM_GET_AUTO && lmr != NULL && len < rch_tun.shm_cma_from);
    if (ch->get_adapt && lmr != NULL && p->cma && len >= (size_t)1 << RCH_SHM_ADAPT_MIN_LOG)
        return adapt_get(ch, p, laddr, len, raddr, op_ctx);
    if (p->cma && !pipe) {
        st = rch_shm_coop_rw(ch, p, laddr, raddr, len, 0, op_ctx);
        if (st != RDMACH_ERR_UNSUPPORTED || !cma_refused(ch, p))
            return st;
    }
    return rch_shm_pipe_get(ch, p, laddr, len, raddr, op_ctx, 1);
}

rdmach_status_t rch_shm_put(struct rch_rdma_chan *ch, int peer, const void *laddr,
                            struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                            uint64_t raddr, void *op_ctx)
{
    struct rch_shm_peer *p = NULL;
    rdmach_status_t st =
        rma_prepare(ch, peer, laddr != NULL, len, rkey, raddr, RCH_RDMA_ACCESS_REMOTE_WRITE, "put", &p);
    if (st != RDMACH_OK || len == 0)
        return st;
    if (peer == ch->rank) {
        memmove((void *)(uintptr_t)raddr, laddr, len);
        return RDMACH_OK;
    }
    if (p->cma) {
        st = rch_shm_coop_rw(ch, p, (void *)laddr, raddr, len, 1, op_ctx);
        if (st != RDMACH_ERR_UNSUPPORTED || !cma_refused(ch, p))
            return st;
    }
    return rch_shm_pipe_put(ch, p, laddr, NULL, NULL, len, raddr, op_ctx);
}

rdmach_status_t rch_shm_put_fill(struct rch_rdma_chan *ch, int peer, size_t len, const struct rch_rdma_rkey *rkey,
                                 uint64_t raddr, rch_rdma_fill_fn fill, void *fill_ctx, void *op_ctx)
{
    struct rch_shm_peer *p = NULL;
    if (fill == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm put_fill to rank %d: no fill function", peer);
    rdmach_status_t st = rma_prepare(ch, peer, 1, len, rkey, raddr, RCH_RDMA_ACCESS_REMOTE_WRITE, "put", &p);
    if (st != RDMACH_OK)
        return st;
    if (peer == ch->rank) {
        fill(fill_ctx, (unsigned char *)(uintptr_t)raddr, 0, len);
        return RDMACH_OK;
    }
    return rch_shm_pipe_put(ch, p, NULL, fill, fill_ctx, len, raddr, op_ctx);
}

rdmach_status_t rch_shm_get_drain(struct rch_rdma_chan *ch, int peer, size_t len, const struct rch_rdma_rkey *rkey,
                                  uint64_t raddr, rch_rdma_drain_fn drain, void *drain_ctx, void *op_ctx)
{
    struct rch_shm_peer *p = NULL;
    if (drain == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm get_drain from rank %d: no drain function", peer);
    rdmach_status_t st = rma_prepare(ch, peer, 1, len, rkey, raddr, RCH_RDMA_ACCESS_REMOTE_READ, "get", &p);
    if (st != RDMACH_OK || len == 0)
        return st;
    if (peer == ch->rank) {
        drain(drain_ctx, 0, (const unsigned char *)(uintptr_t)raddr, len);
        return RDMACH_OK;
    }
    return rch_shm_pipe_get_drain(ch, p, drain, drain_ctx, len, raddr, op_ctx);
}

rdmach_status_t rch_shm_drain_ready(struct rch_rdma_chan *ch, int peer)
{
    struct rch_shm_peer *p = rch_shm_peer_get(ch, peer);
    if (p == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm: rank %d is not a peer of this channel", peer);
    if (peer == ch->rank)
        return RDMACH_OK;
    rdmach_status_t st = rch_shm_pipe_src_ready(ch, p);
    if (st == RDMACH_ERR_NO_MEMORY && p->cma)
        return RDMACH_OK;
    return st;
}
