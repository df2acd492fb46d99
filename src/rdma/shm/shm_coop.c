/*
 * Shared single copy: a large get/put by process_vm_readv/writev, cut into
 * chunks that both processes take, each copying with its own system call.
 *
 * One process_vm_* call runs on one core and moves about as fast as memcpy
 * from the other process's pages allows (13-15 GB/s on the reference VM). The
 * peer of a rendezvous is nearly always inside MPI waiting for this very
 * transfer, so its core is free: the initiator publishes the transfer in a
 * descriptor and sends a HELP record; the peer's progress takes chunks too
 * (it writes them into our memory for a GET, reads them from it for a PUT).
 *
 *   initiator                                   helper (the peer)
 *   fill desc, claim = gen:0 (release)
 *   HELP{slot, gen} ------------------------->  (in its progress)
 *   take half of what is left (one CAS),        take one chunk (CAS),
 *   copy it, repeat                             copy it, helped++, repeat
 *   claims exhausted: done when helped == what the helper took
 *
 * If the peer never comes (busy computing, oversubscribed core) the initiator
 * takes everything in log2(chunks) calls: little slower than one call, never
 * stuck. If the helper quits early (refused by the kernel, a bad range), it
 * says so in `stopped` and the initiator copies again every chunk it did not
 * copy itself (copies are idempotent). Chunks: at least RDMACH_SHM_CMA_SPLIT / 2,
 * at most RCH_SHM_COOP_MAX_CHUNKS per transfer.
 *
 * The helper checks the range against its registrations (like the pipeline);
 * the initiator's own range is its own business (as with plain single copy).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/shm/shm.h"

#define GEN(v) ((uint32_t)((v) >> 32))
#define IDX(v) ((uint32_t)(v))

/* Take `want` (>= 1) chunks from `d` if it still is generation `gen`:
 * returns the first index and sets *got, or -1 when none are left. */
static int claim(struct rch_shm_coop_desc *d, uint32_t gen, uint32_t nchunks, uint32_t want, uint32_t *got)
{
    uint64_t v = atomic_load_explicit(&d->claim, memory_order_acquire);
    for (;;) {
        if (GEN(v) != gen || IDX(v) >= nchunks)
            return -1;
        uint32_t n = nchunks - IDX(v) < want ? nchunks - IDX(v) : want;
        if (atomic_compare_exchange_weak_explicit(&d->claim, &v, v + n, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            *got = n;
            return (int)IDX(v);
        }
    }
}

/* Stop all further claims; returns how many chunks were claimed in all. */
static uint32_t exhaust(struct rch_shm_coop_desc *d, uint32_t gen, uint32_t nchunks)
{
    uint64_t v = atomic_load_explicit(&d->claim, memory_order_acquire);
    while (GEN(v) == gen && IDX(v) < nchunks &&
           !atomic_compare_exchange_weak_explicit(&d->claim, &v, ((uint64_t)gen << 32) | nchunks,
                                                  memory_order_acq_rel, memory_order_acquire))
        ;
    return GEN(v) == gen && IDX(v) < nchunks ? IDX(v) : nchunks;
}

static struct rch_shm_coop_desc *desc_of(const struct rch_shm_seg *seg, uint32_t slot, uint32_t k)
{
    return &rch_shm_seg_pipe(seg, slot)->coop[k];
}

/* Our part: copy chunks [first, first+n) of op k. */
static rdmach_status_t copy_mine(struct rch_rdma_chan *ch, struct rch_shm_peer *p, struct rch_shm_coop_op *op,
                                 uint32_t first, uint32_t n)
{
    uint64_t off = (uint64_t)first * op->chunk;
    uint64_t end = (uint64_t)(first + n) * op->chunk;
    if (end > op->len)
        end = op->len;
    return rch_shm_cma_rw(ch, p, op->laddr + off, op->raddr + off, end - off, op->kind == RCH_SHM_COOP_PUT);
}

rdmach_status_t rch_shm_coop_rw(struct rch_rdma_chan *ch, struct rch_shm_peer *p, void *laddr, uint64_t raddr,
                                size_t len, int write, void *op_ctx)
{
    size_t split = rch_tun.shm_cma_split;
    int k = -1;
    if (split > 0 && len >= split && p->segp && p->rank != ch->rank &&
        (p->coop || (p->coop = calloc(RCH_SHM_COOP_SLOTS, sizeof(*p->coop)))))   /* else: copy alone */
        for (int i = 0; i < (int)RCH_SHM_COOP_SLOTS && k < 0; i++)
            if (!p->coop[i].busy)
                k = i;
    if (k < 0)
        return rch_shm_cma_rw(ch, p, laddr, raddr, len, write);

    struct rch_shm_coop_op *op = &p->coop[k];
    uint64_t chunk = (len + RCH_SHM_COOP_MAX_CHUNKS - 1) / RCH_SHM_COOP_MAX_CHUNKS;
    if (chunk < split / 2)
        chunk = split / 2;
    chunk = (chunk + RCH_SHM_PAGE - 1) / RCH_SHM_PAGE * RCH_SHM_PAGE;
    op->busy = 1;
    op->gen = op->gen + 1 ? op->gen + 1 : 1;
    op->kind = write ? RCH_SHM_COOP_PUT : RCH_SHM_COOP_GET;
    op->laddr = laddr;
    op->raddr = raddr;
    op->len = len;
    op->chunk = chunk;
    op->nchunks = (uint32_t)((len + chunk - 1) / chunk);
    op->mine = 0;
    op->nmine = 0;
    op->nclaimed = 0;
    op->op_ctx = op_ctx;
    op->status = RDMACH_OK;

    struct rch_shm_coop_desc *d = desc_of(p->segp, ch->my_slot, (uint32_t)k);
    d->helper_addr = raddr;
    d->init_addr = (uint64_t)(uintptr_t)laddr;
    d->len = len;
    d->chunk = chunk;
    d->nchunks = op->nchunks;
    d->kind = (uint32_t)op->kind;
    atomic_store_explicit(&d->helped, (uint64_t)op->gen << 32, memory_order_relaxed);
    atomic_store_explicit(&d->stopped, (uint64_t)op->gen << 32, memory_order_relaxed);
    atomic_store_explicit(&d->claim, (uint64_t)op->gen << 32, memory_order_release);
    ch->stats.coop_started++;
    struct rch_shm_help help = { .slot = (uint32_t)k, .gen = op->gen };
    if (rch_shm_send_ctl(ch, p, RCH_SHM_REC_HELP, &help, sizeof(help)) != RDMACH_OK)
        RCH_DEBUG("shm", "no HELP to rank %d: copying alone", p->rank);

    /* take half of what is left each time: one call if nobody helps, a fair
     * share if the peer does */
    for (;;) {
        uint32_t left = op->nchunks - IDX(atomic_load_explicit(&d->claim, memory_order_relaxed));
        uint32_t got = 0;
        int first = claim(d, op->gen, op->nchunks, left > 1 ? left / 2 : 1, &got);
        if (first < 0)
            break;
        rdmach_status_t st = copy_mine(ch, p, op, (uint32_t)first, got);
        if (st != RDMACH_OK) {
            op->status = st;
            break;
        }
        for (uint32_t i = 0; i < got; i++)
            op->mine |= UINT64_C(1) << (first + (int)i);
        op->nmine += got;
    }
    op->nclaimed = exhaust(d, op->gen, op->nchunks);
    p->coop_pending++;
    rch_shm_update_busy(ch, p);
    rdmach_status_t st = rch_shm_coop_check(ch, p, k);
    if (st != RDMACH_INPROGRESS) {
        /* finished here: report it as the call's result, not through rma_done */
        op->busy = 0;
        p->coop_pending--;
        rch_shm_update_busy(ch, p);
    }
    return st;
}

rdmach_status_t rch_shm_coop_check(struct rch_rdma_chan *ch, struct rch_shm_peer *p, int k)
{
    struct rch_shm_coop_op *op = &p->coop[k];
    struct rch_shm_coop_desc *d = desc_of(p->segp, ch->my_slot, (uint32_t)k);
    uint64_t stopped = atomic_load_explicit(&d->stopped, memory_order_acquire);
    uint64_t helped = atomic_load_explicit(&d->helped, memory_order_acquire);
    uint32_t theirs = op->nclaimed - op->nmine;
    if (GEN(stopped) == op->gen && IDX(stopped)) {
        /* the helper quit (and copies nothing more): redo whatever we did not copy */
        for (uint32_t c = 0; c < op->nclaimed && op->status == RDMACH_OK; c++)
            if (!(op->mine & (UINT64_C(1) << c)))
                op->status = copy_mine(ch, p, op, c, 1);
        return op->status;
    }
    if (GEN(helped) == op->gen && IDX(helped) == theirs)
        return op->status;
    return RDMACH_INPROGRESS;
}

unsigned rch_shm_coop_progress(struct rch_rdma_chan *ch, struct rch_shm_peer *p, unsigned max)
{
    unsigned n = 0;
    for (int k = 0; k < (int)RCH_SHM_COOP_SLOTS && p->coop_pending > 0 && n < max; k++) {
        struct rch_shm_coop_op *op = &p->coop[k];
        if (!op->busy)
            continue;
        rdmach_status_t st = rch_shm_coop_check(ch, p, k);
        if (st == RDMACH_INPROGRESS)
            continue;
        op->busy = 0;
        p->coop_pending--;
        rch_shm_update_busy(ch, p);
        rch_shm_rma_done(ch, op->op_ctx, st);
        n++;
    }
    return n;
}

int rch_shm_coop_ready(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    for (int k = 0; p->coop && k < (int)RCH_SHM_COOP_SLOTS; k++) {
        struct rch_shm_coop_op *op = &p->coop[k];
        if (!op->busy)
            continue;
        struct rch_shm_coop_desc *d = desc_of(p->segp, ch->my_slot, (uint32_t)k);
        uint64_t stopped = atomic_load_explicit(&d->stopped, memory_order_acquire);
        uint64_t helped = atomic_load_explicit(&d->helped, memory_order_acquire);
        if ((GEN(stopped) == op->gen && IDX(stopped)) ||
            (GEN(helped) == op->gen && IDX(helped) == op->nclaimed - op->nmine))
            return 1;
    }
    return 0;
}

unsigned rch_shm_coop_fail_peer(struct rch_rdma_chan *ch, struct rch_shm_peer *p, rdmach_status_t st)
{
    unsigned n = 0;
    for (int k = 0; p->coop && k < (int)RCH_SHM_COOP_SLOTS; k++) {
        struct rch_shm_coop_op *op = &p->coop[k];
        if (!op->busy)
            continue;
        op->busy = 0;
        p->coop_pending--;
        rch_shm_rma_done(ch, op->op_ctx, st);
        n++;
    }
    rch_shm_update_busy(ch, p);
    return n;
}

/* ---- the helper's side ---- */

/* We take no more chunks of this transfer (and may not have finished the
 * last one we took): the initiator copies them again. */
static void stop(struct rch_shm_peer *p, struct rch_shm_coop_desc *d, uint32_t gen)
{
    atomic_store_explicit(&d->stopped, ((uint64_t)gen << 32) | 1, memory_order_release);
    if (p->segp)
        rch_shm_notify_peer(p);
}

void rch_shm_coop_on_help(struct rch_rdma_chan *ch, struct rch_shm_peer *p, const void *pkt, size_t len)
{
    struct rch_shm_help h;
    if (len != sizeof(h)) {
        RCH_ERROR("shm", "rank %d sent a HELP of %zu bytes: dropped", p->rank, len);
        return;
    }
    memcpy(&h, pkt, sizeof(h));
    if (h.slot >= RCH_SHM_COOP_SLOTS) {
        RCH_ERROR("shm", "rank %d sent a HELP for descriptor %u: dropped", p->rank, h.slot);
        return;
    }
    struct rch_shm_coop_desc *d = desc_of(&ch->seg, p->slot, h.slot);
    uint64_t v = atomic_load_explicit(&d->claim, memory_order_acquire);
    if (GEN(v) != h.gen || IDX(v) >= d->nchunks)
        return;                              /* already done without us */
    if (rch_shm_peer_mapped(p))
        (void)rch_shm_peer_probe_cma(ch, p);   /* a failure leaves cma 0 */
    if (!rch_shm_peer_mapped(p) || !p->cma) {
        stop(p, d, h.gen);                   /* we cannot reach its memory: it copies alone */
        return;
    }
    uint64_t addr = d->helper_addr, iaddr = d->init_addr, total = d->len, chunk = d->chunk;
    uint32_t nchunks = d->nchunks, kind = d->kind;
    unsigned access = kind == RCH_SHM_COOP_GET ? RCH_RDMA_ACCESS_REMOTE_READ : RCH_RDMA_ACCESS_REMOTE_WRITE;
    if ((kind != RCH_SHM_COOP_GET && kind != RCH_SHM_COOP_PUT) || total == 0 || chunk == 0 ||
        nchunks == 0 || nchunks > RCH_SHM_COOP_MAX_CHUNKS || nchunks != total / chunk + (total % chunk != 0) ||
        !rch_shm_mr_find(ch, addr, total, access)) {
        RCH_ERROR("shm", "rank %d asked for help with [0x%llx, +%llu), not registered for remote %s: refused",
                  p->rank, (unsigned long long)addr, (unsigned long long)total,
                  kind == RCH_SHM_COOP_GET ? "read" : "write");
        stop(p, d, h.gen);
        return;
    }
    uint32_t done = 0, got;
    int c;
    while ((c = claim(d, h.gen, nchunks, 1, &got)) >= 0) {
        uint64_t off = (uint64_t)c * chunk;
        size_t n = (size_t)(off + chunk > total ? total - off : chunk);
        struct iovec l = { .iov_base = (void *)(uintptr_t)(addr + off), .iov_len = n };
        struct iovec r = { .iov_base = (void *)(uintptr_t)(iaddr + off), .iov_len = n };
        ssize_t m = kind == RCH_SHM_COOP_GET ? process_vm_writev(p->pid, &l, 1, &r, 1, 0)
                                             : process_vm_readv(p->pid, &l, 1, &r, 1, 0);
        if (m != (ssize_t)n) {
            RCH_DEBUG("shm", "helping rank %d: %s", p->rank, m < 0 ? strerror(errno) : "short copy");
            stop(p, d, h.gen);
            break;
        }
        atomic_store_explicit(&d->helped, ((uint64_t)h.gen << 32) | ++done, memory_order_release);
        ch->stats.coop_chunks_helped++;
        rch_shm_notify_peer(p);
    }
}
