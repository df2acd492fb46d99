/*
 * The two-copy pipeline, used when single copy (process_vm_readv/writev) is
 * not permitted: for each ordered pair source -> sink, RCH_SHM_PIPE_NBUF
 * buffers of shm_pipe_chunk bytes in the sink's segment (slot of the source).
 *
 *   source                              sink
 *   copy chunk s into buf[s % NBUF]
 *   desc[s % NBUF] = {dst, len, ...}
 *   desc.seq = s + 1       (release) -->  sees seq == s + 1 (acquire)
 *                                        copy buf out to dst (validated)
 *   reuse buf when drained > s - NBUF <-- drained = s + 1  (release)
 *
 * Both copies run concurrently on different buffers (NBUF >= 2), driven by
 * each side's progress(). Chunks of successive transfers follow each other
 * in one sequence, so the sink never has to guess where a transfer starts:
 * each descriptor names its destination.
 *
 * GET (we read the peer's memory): we send a GETREQ record through the ring;
 * the peer (source) checks the range against its registrations and streams
 * GET_DATA chunks (or one GET_ERR); our op completes at the LAST chunk.
 * A GET may instead hand each chunk to a drain function of ours (the
 * channel op get_drain: a one-sided put's scatter, device/rma_putw.c):
 * laddr is NULL, the chunks' destinations are their offsets in the range,
 * validated as any GET_DATA, and the drain runs where the copy out would,
 * before the buffer's lines are claimed back. Such a get is never stolen
 * (stealing reads into laddr); a source out of room in /dev/shm has it
 * read by single copy a chunk at a time into a buffer of ours and drained
 * from there (get_refused).
 * PUT (we write the peer's memory): we are the source; a PUTNOTE record tells
 * the sink to watch the pipe; the put completes when the sink has drained its
 * last chunk (a rejected chunk is reported through nak_seq).
 *
 * Stealing (a GET whose caller allows it, with single copy permitted): the
 * GETREQ names a claim word (shm_proto.h) that splits the chunks between the
 * source, which takes them from the front, and the sink, which takes them
 * from the back with process_vm_readv once the source has served nothing for
 * RCH_SHM_STEAL_AFTER seconds (it is computing, descheduled, or asleep
 * elsewhere): a get never waits for a peer that does not progress, and a
 * peer that does keeps the faster pipeline. The op completes when every byte
 * is in place, whoever copied it.
 *
 * A source reserves its pipe buffers in the sink's segment at first use
 * (rch_shm_seg_reserve_pipe). When /dev/shm has no room for them it answers
 * a GET with GET_ERR(NO_MEMORY) and the sink copies the whole get by single
 * copy if permitted, else fails naming the cause (get_refused).
 *
 * Chunks: a quarter of the transfer, 16 KiB to pipe_chunk
 * (rch_shm_pipe_chunk_for), the same at both ends.
 * Cost: two memcpy of n bytes, overlapped chunk by chunk: about
 * n / memcpy_bw + chunk / memcpy_bw. The copies are chunk-sized and the
 * buffers stay in cache, so on this kind of machine the pipeline outruns a
 * single process_vm_readv (which also pins every page) by about 2x for
 * messages that are hot in cache.
 */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/shm/shm.h"

#define RCH_SHM_STEAL_AFTER 50e-6     /* seconds without a chunk before the sink steals */
#define STEAL_MAX 8u                  /* chunks the sink takes at once */

/* The claim word: gen (16) | head (24) | tail (24). */
#define CLAIM(gen, head, tail) (((uint64_t)((gen) & 0xffffu) << 48) | ((uint64_t)(head) << 24) | (uint64_t)(tail))
#define CLAIM_GEN(v)  ((uint32_t)((v) >> 48))
#define CLAIM_HEAD(v) ((uint32_t)((v) >> 24) & 0xffffffu)
#define CLAIM_TAIL(v) ((uint32_t)(v) & 0xffffffu)

/* ---- GET ops of ours (sink side) ---- */

static int getop_alloc(struct rch_rdma_chan *ch)
{
    if (ch->getop_free < 0) {
        int n = ch->ngetops ? ch->ngetops * 2 : 16;
        struct rch_shm_getop *t = realloc(ch->getops, sizeof(*t) * (size_t)n);
        if (!t)
            return -1;
        for (int i = ch->ngetops; i < n; i++) {
            memset(&t[i], 0, sizeof(t[i]));
            t[i].next_free = i + 1 < n ? i + 1 : -1;
        }
        ch->getops = t;
        ch->getop_free = ch->ngetops;
        ch->ngetops = n;
    }
    int i = ch->getop_free;
    ch->getop_free = ch->getops[i].next_free;
    ch->getops[i].in_use = 1;
    ch->getops[i].steal = RCH_SHM_STEAL_NONE;
    return i;
}

static void getop_release(struct rch_rdma_chan *ch, int i)
{
    struct rch_shm_getop *op = &ch->getops[i];
    op->in_use = 0;
    op->gen++;
    op->next_free = ch->getop_free;
    ch->getop_free = i;
}

static uint64_t getop_id(struct rch_rdma_chan *ch, int i)
{
    return ((uint64_t)ch->getops[i].gen << 32) | (uint32_t)i;
}

static int getop_lookup(struct rch_rdma_chan *ch, uint64_t id, int peer_idx)
{
    uint32_t i = (uint32_t)id;
    if (i >= (uint32_t)ch->ngetops)
        return -1;
    struct rch_shm_getop *op = &ch->getops[i];
    if (!op->in_use || op->gen != (uint32_t)(id >> 32) || op->peer != peer_idx)
        return -1;
    return (int)i;
}

static int peer_index(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    return (int)(p - ch->peers);
}

/* ---- stealing (sink side): claim slots and the list of stealable gets ---- */

static void steal_unlink(struct rch_rdma_chan *ch, struct rch_shm_peer *p, int i)
{
    struct rch_shm_getop *op = &ch->getops[i];
    if (op->link.prev >= 0)
        ch->getops[op->link.prev].link.next = op->link.next;
    else if (p->steal_head == i)
        p->steal_head = op->link.next;
    else
        return;                      /* not linked */
    if (op->link.next >= 0)
        ch->getops[op->link.next].link.prev = op->link.prev;
    else
        p->steal_tail = op->link.prev;
    op->link.prev = op->link.next = -1;
}

/* The op is finished: nobody may claim its chunks any more. */
static void steal_release(struct rch_rdma_chan *ch, struct rch_shm_peer *p, int i)
{
    struct rch_shm_getop *op = &ch->getops[i];
    if (op->steal == RCH_SHM_STEAL_NONE)
        return;
    steal_unlink(ch, p, i);
    atomic_store_explicit(&p->sink_pipe->steal[op->steal], CLAIM(op->sgen, 0, 0), memory_order_release);
    p->steal_used &= ~(UINT64_C(1) << op->steal);
    op->steal = RCH_SHM_STEAL_NONE;
}

/* Give op a claim slot if one is free (else it is a plain pipelined get). */
static void steal_setup(struct rch_rdma_chan *ch, struct rch_shm_peer *p, int i, uint64_t raddr)
{
    struct rch_shm_getop *op = &ch->getops[i];
    uint64_t chunk = rch_shm_pipe_chunk_for(op->len, ch->seg.hdr->pipe_chunk);
    uint64_t n = (op->len + chunk - 1) / chunk;
    op->link.prev = op->link.next = -1;
    (void)rch_shm_peer_probe_cma(ch, p);   /* a failure leaves cma 0: no stealing */
    if (!p->cma || !p->sink_pipe || op->len == 0 || n > RCH_SHM_STEAL_MAX_CHUNKS || p->steal_used == UINT64_MAX ||
        (!p->steal_gen && !(p->steal_gen = calloc(RCH_SHM_STEAL_SLOTS, sizeof(*p->steal_gen)))))
        return;
    uint32_t slot = (uint32_t)__builtin_ctzll(~p->steal_used);
    p->steal_used |= UINT64_C(1) << slot;
    op->steal = slot;
    op->sgen = ++p->steal_gen[slot];
    op->raddr = raddr;
    op->chunk = chunk;
    op->nchunks = (uint32_t)n;
    atomic_store_explicit(&p->sink_pipe->steal[slot], CLAIM(op->sgen, 0, n), memory_order_release);
    op->link.prev = p->steal_tail;
    if (p->steal_tail >= 0)
        ch->getops[p->steal_tail].link.next = i;
    else
        p->steal_head = i;
    p->steal_tail = i;
}

static void getop_done(struct rch_rdma_chan *ch, struct rch_shm_peer *p, int i, rdmach_status_t st)
{
    void *ctx = ch->getops[i].op_ctx;
    steal_release(ch, p, i);
    getop_release(ch, i);
    p->sink_active--;
    rch_shm_rma_done(ch, ctx, st);
}

/* Is a steal due: a stealable get, and nothing served for RCH_SHM_STEAL_AFTER? */
static int steal_due(struct rch_shm_peer *p, double *now)
{
    if (p->steal_head < 0 || !p->cma)
        return 0;
    *now = rch_base_wtime();
    if (p->sink_seen == 0)
        p->sink_seen = *now;
    return *now - p->sink_seen >= RCH_SHM_STEAL_AFTER;
}

/* Copy unclaimed chunks from the back of our oldest stealable get ourselves.
 * Returns 1 if a chunk moved (an event: the caller's wait must not count the
 * pass as idle and yield), else 0. */
static unsigned steal_step(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    while (p->steal_head >= 0) {
        int i = p->steal_head;
        struct rch_shm_getop *op = &ch->getops[i];
        _Atomic uint64_t *w = &p->sink_pipe->steal[op->steal];
        uint64_t v = atomic_load_explicit(w, memory_order_acquire);
        uint32_t c, k;
        for (;;) {
            if (CLAIM_GEN(v) != (op->sgen & 0xffffu) || CLAIM_HEAD(v) >= CLAIM_TAIL(v)) {
                c = UINT32_MAX;      /* the source has claimed the rest: it comes through the pipe */
                break;
            }
            /* half of what is left, up to STEAL_MAX chunks: fewer system calls, and the
             * front half stays for the source if it comes back */
            k = (CLAIM_TAIL(v) - CLAIM_HEAD(v)) / 2;
            k = k < 1 ? 1 : k > STEAL_MAX ? STEAL_MAX : k;
            if (atomic_compare_exchange_weak_explicit(w, &v, v - k, memory_order_acq_rel, memory_order_acquire)) {
                c = CLAIM_TAIL(v) - k;
                break;
            }
        }
        if (c == UINT32_MAX) {
            steal_unlink(ch, p, i);
            continue;
        }
        uint64_t off = (uint64_t)c * op->chunk;
        uint64_t end = (uint64_t)(c + k) * op->chunk;
        size_t n = (size_t)((end < op->len ? end : op->len) - off);
        rdmach_status_t st = rch_shm_cma_rw(ch, p, op->laddr + off, op->raddr + off, n, 0);
        if (st != RDMACH_OK) {
            /* The chunk is ours and the source may be past it: the get fails
             * (when the rest is in), and later gets wait for the pipeline. */
            RCH_WARN("shm", "%s: gets from rank %d use its pipeline only from now on", rdmach_last_error(),
                     p->rank);
            p->cma = 0;
            op->bad = 1;
            steal_unlink(ch, p, i);
        } else {
            ch->stats.pipe_stolen += k;
        }
        op->got += n;
        if (op->got == op->len)
            getop_done(ch, p, i, op->bad ? RDMACH_ERR_PROTOCOL : RDMACH_OK);
        return 1;
    }
    return 0;
}

/* ---- queues ---- */

static void xq_push(struct rch_shm_xfer **head, struct rch_shm_xfer **tail, struct rch_shm_xfer *x)
{
    x->next = NULL;
    if (*tail)
        (*tail)->next = x;
    else
        *head = x;
    *tail = x;
}

static struct rch_shm_xfer *xq_pop(struct rch_shm_xfer **head, struct rch_shm_xfer **tail)
{
    struct rch_shm_xfer *x = *head;
    if (x) {
        *head = x->next;
        if (!*head)
            *tail = NULL;
        x->next = NULL;
    }
    return x;
}

/* We are about to write into the peer's pipe for the first time. */
rdmach_status_t rch_shm_pipe_src_ready(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    if (p->state != RCH_SHM_PEER_CONNECTED) {
        rdmach_status_t st = rch_shm_connect_peer(ch, p);
        if (st != RDMACH_OK)
            return st;
    }
    if (!p->src_reserved) {
        rdmach_status_t st = rch_shm_seg_reserve_pipe(p->segp, ch->my_slot);
        if (st != RDMACH_OK)
            return st;
        p->src_reserved = 1;
    }
    return RDMACH_OK;
}

/* ---- entry points ---- */

/* A GET of ours: into laddr, or (laddr NULL) each chunk handed to drain,
 * the chunks' offsets travelling as their destination. */
static rdmach_status_t get_start(struct rch_rdma_chan *ch, struct rch_shm_peer *p, void *laddr,
                                 rch_rdma_drain_fn drain, void *drain_ctx, size_t len, uint64_t raddr, void *op_ctx,
                                 int steal)
{
    int i = getop_alloc(ch);
    if (i < 0)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm get from rank %d: op table", p->rank);
    struct rch_shm_getop *op = &ch->getops[i];
    op->peer = peer_index(ch, p);
    op->laddr = laddr;
    op->drain = drain;
    op->drain_ctx = drain_ctx;
    op->len = len;
    op->got = 0;
    op->op_ctx = op_ctx;
    op->bad = 0;
    op->nt = rch_tun.shm_nt_from && len >= rch_tun.shm_nt_from;
    op->raddr = raddr;
    op->link.prev = op->link.next = -1;
    if (steal)
        steal_setup(ch, p, i, raddr);
    struct rch_shm_getreq rq = {
        .op_id = getop_id(ch, i),
        .raddr = raddr,
        .dst = (uint64_t)(uintptr_t)laddr,
        .len = len,
        .steal = op->steal,
        .gen = op->steal == RCH_SHM_STEAL_NONE ? 0 : op->sgen,
    };
    rdmach_status_t st = rch_shm_send_ctl(ch, p, RCH_SHM_REC_GETREQ, &rq, sizeof(rq));
    if (st != RDMACH_OK) {
        steal_release(ch, p, i);
        getop_release(ch, i);
        return st;
    }
    if (p->sink_active++ == 0) {
        p->sink_seen = 0;            /* the wait for the source starts now */
        p->sink_idle = 0;
    }
    rch_shm_update_busy(ch, p);
    return RDMACH_INPROGRESS;
}

rdmach_status_t rch_shm_pipe_get(struct rch_rdma_chan *ch, struct rch_shm_peer *p, void *laddr,
                                 size_t len, uint64_t raddr, void *op_ctx, int steal)
{
    return get_start(ch, p, laddr, NULL, NULL, len, raddr, op_ctx, steal);
}

rdmach_status_t rch_shm_pipe_get_drain(struct rch_rdma_chan *ch, struct rch_shm_peer *p, rch_rdma_drain_fn drain,
                                       void *drain_ctx, size_t len, uint64_t raddr, void *op_ctx)
{
    return get_start(ch, p, NULL, drain, drain_ctx, len, raddr, op_ctx, 0);
}

rdmach_status_t rch_shm_pipe_put(struct rch_rdma_chan *ch, struct rch_shm_peer *p, const void *laddr,
                                 rch_rdma_fill_fn fill, void *fill_ctx, size_t len, uint64_t raddr, void *op_ctx)
{
    rdmach_status_t st = rch_shm_pipe_src_ready(ch, p);
    if (st != RDMACH_OK)
        return st;
    struct rch_shm_xfer *x = calloc(1, sizeof(*x));
    if (!x)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm put to rank %d", p->rank);
    struct rch_shm_putnote note = { .dst = raddr, .len = len };
    st = rch_shm_send_ctl(ch, p, RCH_SHM_REC_PUTNOTE, &note, sizeof(note));
    if (st != RDMACH_OK) {
        free(x);
        return st;
    }
    x->kind = RCH_SHM_PIPE_PUT_DATA;
    x->src = laddr;
    x->fill = fill;
    x->fill_ctx = fill_ctx;
    x->dst = raddr;
    x->len = len;
    x->op_ctx = op_ctx;
    xq_push(&p->xq_head, &p->xq_tail, x);
    rch_shm_update_busy(ch, p);
    /* start the pipeline now; completions are only reported from progress */
    (void)rch_shm_pipe_progress(ch, p, 0);
    return RDMACH_INPROGRESS;
}

void rch_shm_pipe_on_getreq(struct rch_rdma_chan *ch, struct rch_shm_peer *p, const void *pkt, size_t len)
{
    struct rch_shm_getreq rq;
    if (len != sizeof(rq)) {
        RCH_ERROR("shm", "rank %d sent a GETREQ of %zu bytes: dropped", p->rank, len);
        return;
    }
    memcpy(&rq, pkt, sizeof(rq));
    struct rch_shm_xfer *x = calloc(1, sizeof(*x));
    if (!x) {
        RCH_ERROR("shm", "out of memory serving a get of rank %d: the get will hang", p->rank);
        return;
    }
    x->op_id = rq.op_id;
    x->dst = rq.dst;
    x->steal = rq.steal < RCH_SHM_STEAL_SLOTS ? rq.steal : RCH_SHM_STEAL_NONE;
    x->gen = rq.gen;
    rdmach_status_t st = rch_shm_pipe_src_ready(ch, p);
    if (st != RDMACH_OK) {
        RCH_WARN("shm", "cannot serve a get of rank %d through the pipe: %s", p->rank, rdmach_last_error());
        if (!p->segp) {
            RCH_ERROR("shm", "cannot answer a get of rank %d: %s", p->rank, rdmach_last_error());
            free(x);
            return;
        }
        x->kind = RCH_SHM_PIPE_GET_ERR;
        x->status = st;
    } else if (rq.len == 0 || !rch_shm_mr_find(ch, rq.raddr, rq.len, RCH_RDMA_ACCESS_REMOTE_READ)) {
        RCH_ERROR("shm", "rank %d asked to read [0x%llx, +%llu), which is not registered for remote read",
                  p->rank, (unsigned long long)rq.raddr, (unsigned long long)rq.len);
        x->kind = RCH_SHM_PIPE_GET_ERR;
        x->status = RDMACH_ERR_INVALID_ARG;
    } else {
        x->kind = RCH_SHM_PIPE_GET_DATA;
        x->src = (const unsigned char *)(uintptr_t)rq.raddr;
        x->len = rq.len;
    }
    xq_push(&p->xq_head, &p->xq_tail, x);
    rch_shm_update_busy(ch, p);
}

void rch_shm_pipe_on_putnote(struct rch_rdma_chan *ch, struct rch_shm_peer *p, const void *pkt, size_t len)
{
    if (len != sizeof(struct rch_shm_putnote)) {
        RCH_ERROR("shm", "rank %d sent a PUTNOTE of %zu bytes: dropped", p->rank, len);
        return;
    }
    p->sink_active++;
    rch_shm_update_busy(ch, p);
}

/* ---- source side ---- */

/* Returns completions plus chunks copied in: both are events for the
 * caller's wait (a pass that moved data is not idle). */
static unsigned src_step(struct rch_rdma_chan *ch, struct rch_shm_peer *p, unsigned max)
{
    unsigned n = 0, moved = 0;
    struct rch_shm_pipe_ctl *pc = p->src_pipe;
    if (!pc || p->state != RCH_SHM_PEER_CONNECTED)
        return 0;
    while (p->xq_head) {
        if (p->src_seq - p->src_drained >= RCH_SHM_PIPE_NBUF) {
            p->src_drained = atomic_load_explicit(&pc->drained, memory_order_acquire);
            if (p->src_seq - p->src_drained >= RCH_SHM_PIPE_NBUF)
                break;
        }
        struct rch_shm_xfer *x = p->xq_head;
        uint64_t chunk = rch_shm_pipe_chunk_for(x->len, p->segp->hdr->pipe_chunk);
        int stolen_end = 0;
        if (x->kind == RCH_SHM_PIPE_GET_DATA && x->steal != RCH_SHM_STEAL_NONE) {
            /* claim the next chunk from the front; the sink may have taken the rest */
            _Atomic uint64_t *w = &pc->steal[x->steal];
            uint64_t v = atomic_load_explicit(w, memory_order_acquire);
            int claimed = 0;
            while (CLAIM_GEN(v) == (x->gen & 0xffffu) && CLAIM_HEAD(v) < CLAIM_TAIL(v) &&
                   (uint64_t)CLAIM_HEAD(v) * chunk == x->off) {
                if (atomic_compare_exchange_weak_explicit(w, &v, v + (UINT64_C(1) << 24), memory_order_acq_rel,
                                                          memory_order_acquire)) {
                    claimed = 1;
                    stolen_end = CLAIM_HEAD(v) + 1 == CLAIM_TAIL(v);
                    break;
                }
            }
            if (!claimed) {
                xq_pop(&p->xq_head, &p->xq_tail);
                free(x);
                continue;
            }
        }
        uint32_t b = (uint32_t)(p->src_seq % RCH_SHM_PIPE_NBUF);
        size_t nb = x->len - x->off < chunk ? x->len - x->off : chunk;
        if (x->off == 0)
            x->first_seq = p->src_seq;
        if (nb && x->src)
            memcpy(rch_shm_seg_pipe_buf(p->segp, ch->my_slot, b), x->src + x->off, nb);
        else if (nb)
            x->fill(x->fill_ctx, rch_shm_seg_pipe_buf(p->segp, ch->my_slot, b), x->off, nb);
        ch->stats.pipe_chunks++;
        moved++;
        struct rch_shm_pipe_desc *d = &pc->desc[b];
        d->dst = x->dst + x->off;
        d->op_id = x->op_id;
        d->len = (uint32_t)nb;
        d->kind = x->kind;
        d->status = x->status;
        x->off += nb;
        int last = x->off == x->len || stolen_end;
        d->flags = last ? RCH_SHM_PIPE_F_LAST : 0;
        atomic_store_explicit(&d->seq, ++p->src_seq, memory_order_release);
        rch_shm_notify_peer(p);
        if (last) {
            xq_pop(&p->xq_head, &p->xq_tail);
            if (x->kind == RCH_SHM_PIPE_PUT_DATA) {
                x->end_seq = p->src_seq;
                xq_push(&p->wq_head, &p->wq_tail, x);
            } else {
                free(x);
            }
        }
    }
    while (p->wq_head && n < max) {
        struct rch_shm_xfer *x = p->wq_head;
        if (p->src_drained < x->end_seq) {
            p->src_drained = atomic_load_explicit(&pc->drained, memory_order_acquire);
            if (p->src_drained < x->end_seq)
                break;
        }
        uint64_t nak = atomic_load_explicit(&pc->nak_seq, memory_order_relaxed);
        rdmach_status_t st = nak > x->first_seq && nak <= x->end_seq ? RDMACH_ERR_PROTOCOL : RDMACH_OK;
        if (st != RDMACH_OK)
            rch_base_err(st, "shm put to rank %d: the receiver rejected the destination 0x%llx (+%zu)",
                         p->rank, (unsigned long long)x->dst, x->len);
        xq_pop(&p->wq_head, &p->wq_tail);
        rch_shm_rma_done(ch, x->op_ctx, st);
        free(x);
        n++;
    }
    return n + moved;
}

/* ---- sink side ---- */

/* Only the errors a source sends travel; anything else is a broken peer. */
static rdmach_status_t wire_status(int32_t s)
{
    switch (s) {
    case RDMACH_ERR_INVALID_ARG:
    case RDMACH_ERR_NO_MEMORY:
    case RDMACH_ERR_IO:
    case RDMACH_ERR_PEER_DEAD:
    case RDMACH_ERR_CONN_REFUSED:
    case RDMACH_ERR_UNREACHABLE:
        return (rdmach_status_t)s;
    default:
        return RDMACH_ERR_PROTOCOL;
    }
}

/* The part of op nobody has copied: all of it, or with stealing what is
 * between the claims (the source never claims after refusing); claim it. */
static void claim_rest(struct rch_shm_peer *p, struct rch_shm_getop *op, uint64_t *lo, uint64_t *hi)
{
    *lo = 0;
    *hi = op->got == 0 ? op->len : 0;
    if (op->steal == RCH_SHM_STEAL_NONE)
        return;
    _Atomic uint64_t *w = &p->sink_pipe->steal[op->steal];
    uint64_t v = atomic_load_explicit(w, memory_order_acquire);
    *hi = 0;
    while (CLAIM_GEN(v) == (op->sgen & 0xffffu) && CLAIM_HEAD(v) < CLAIM_TAIL(v)) {
        if (atomic_compare_exchange_weak_explicit(w, &v, CLAIM(op->sgen, CLAIM_HEAD(v), CLAIM_HEAD(v)),
                                                  memory_order_acq_rel, memory_order_acquire)) {
            uint64_t end = (uint64_t)CLAIM_TAIL(v) * op->chunk;
            *lo = (uint64_t)CLAIM_HEAD(v) * op->chunk;
            *hi = end < op->len ? end : op->len;
            return;
        }
    }
}

/* Bytes [lo, hi) of a get to be drained, read by single copy a chunk at a
 * time into a buffer of ours and drained from there. */
static rdmach_status_t drain_by_cma(struct rch_rdma_chan *ch, struct rch_shm_peer *p, struct rch_shm_getop *op,
                                    uint64_t lo, uint64_t hi)
{
    size_t chunk = (size_t)ch->seg.hdr->pipe_chunk;
    unsigned char *tmp = malloc(chunk);
    if (tmp == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm get from rank %d: no memory for a %zu-byte chunk", p->rank,
                            chunk);
    rdmach_status_t st = RDMACH_OK;
    for (uint64_t off = lo; off < hi && st == RDMACH_OK; off += chunk) {
        size_t n = hi - off < chunk ? (size_t)(hi - off) : chunk;
        st = rch_shm_cma_rw(ch, p, tmp, op->raddr + off, n, 0);
        if (st == RDMACH_OK)
            op->drain(op->drain_ctx, (size_t)off, tmp, n);
    }
    free(tmp);
    return st;
}

/* The source answered our get with an error. No room for its pipe buffers
 * in /dev/shm (NO_MEMORY) is no reason to fail a get single copy can do:
 * copy (or drain) what nobody has copied ourselves. Else the error, with
 * its cause. */
static rdmach_status_t get_refused(struct rch_rdma_chan *ch, struct rch_shm_peer *p, struct rch_shm_getop *op,
                                   rdmach_status_t st)
{
    if (st == RDMACH_ERR_NO_MEMORY && p->cma && !op->bad) {
        uint64_t lo, hi;
        claim_rest(p, op, &lo, &hi);
        RCH_INFO("shm", "rank %d has no room in /dev/shm for its pipe buffers: %llu bytes of a get by single copy",
                 p->rank, (unsigned long long)(hi - lo));
        if (hi > lo && op->drain && drain_by_cma(ch, p, op, lo, hi) != RDMACH_OK)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm get of %zu bytes from rank %d: it has no room in "
                                "/dev/shm for its pipe buffers, and single copy failed: %s", op->len, p->rank,
                                rdmach_last_error());
        if (hi > lo && !op->drain &&
            rch_shm_cma_rw(ch, p, op->laddr + lo, op->raddr + lo, (size_t)(hi - lo), 0) != RDMACH_OK)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm get of %zu bytes from rank %d: it has no room in "
                                "/dev/shm for its pipe buffers (the file system is full), and single copy "
                                "failed: %s", op->len, p->rank, rdmach_last_error());
        op->got += hi - lo;
        if (op->got == op->len)
            return RDMACH_OK;
        return rch_base_err(RDMACH_ERR_PROTOCOL, "shm get of %zu bytes from rank %d: %zu bytes in place after "
                            "it refused", op->len, p->rank, op->got);
    }
    if (st == RDMACH_ERR_NO_MEMORY)
        return rch_base_err(st, "shm get of %zu bytes from rank %d: it has no room in /dev/shm for its pipe "
                            "buffers (%llu bytes: the file system is full) and single copy is %s", op->len, p->rank,
                            (unsigned long long)(RCH_SHM_PIPE_NBUF * ch->seg.hdr->pipe_chunk),
                            ch->cma_mode == RCH_CMA_OFF ? "off (RDMACH_CMA=off)" : "not permitted with it");
    return rch_base_err(st, "shm get of %zu bytes from rank %d: the owner refused (%s)", op->len, p->rank,
                        rdmach_strerror(st));
}

static unsigned sink_step(struct rch_rdma_chan *ch, struct rch_shm_peer *p, unsigned max)
{
    unsigned n = 0;
    struct rch_shm_pipe_ctl *pc = p->sink_pipe;
    uint64_t chunk = ch->seg.hdr->pipe_chunk;
    int pidx = peer_index(ch, p);
    for (unsigned k = 0; k < RCH_SHM_PIPE_NBUF && p->sink_active != 0 && n < max; k++) {
        uint32_t b = (uint32_t)(p->sink_seq % RCH_SHM_PIPE_NBUF);
        struct rch_shm_pipe_desc *d = &pc->desc[b];
        if (atomic_load_explicit(&d->seq, memory_order_acquire) != p->sink_seq + 1)
            break;
        uint64_t dst = d->dst, id = d->op_id;
        uint32_t len = d->len, kind = d->kind, flags = d->flags;
        int32_t status = d->status;
        const unsigned char *buf = rch_shm_seg_pipe_buf(&ch->seg, p->slot, b);
        int last = (flags & RCH_SHM_PIPE_F_LAST) != 0;
        int reject = len > chunk;

        if (kind == RCH_SHM_PIPE_GET_DATA || kind == RCH_SHM_PIPE_GET_ERR) {
            int i = getop_lookup(ch, id, pidx);
            if (i < 0) {
                RCH_ERROR("shm", "rank %d sent data for an unknown get (id 0x%llx): dropped", p->rank,
                          (unsigned long long)id);
            } else {
                struct rch_shm_getop *op = &ch->getops[i];
                uint64_t lo = (uint64_t)(uintptr_t)op->laddr;
                if (kind == RCH_SHM_PIPE_GET_DATA) {
                    if (reject || dst < lo || dst + len < dst || dst + len > lo + op->len || op->bad)
                        op->bad = 1;    /* (a drain takes no chunk after a bad one: they come in order) */
                    else if (op->drain)
                        op->drain(op->drain_ctx, (size_t)(dst - lo), buf, len);
                    else if (op->nt)
                        rch_base_copy_nt((void *)(uintptr_t)dst, buf, len);
                    else
                        memcpy((void *)(uintptr_t)dst, buf, len);
                    op->got += len;
                }
                /* a get shared with stealing ends when every byte is in place */
                int end = op->steal == RCH_SHM_STEAL_NONE ? last : op->got >= op->len;
                if (end || kind == RCH_SHM_PIPE_GET_ERR) {
                    rdmach_status_t st = RDMACH_OK;
                    if (kind == RCH_SHM_PIPE_GET_ERR)
                        st = get_refused(ch, p, op, wire_status(status));
                    else if (op->bad || op->got != op->len)
                        st = rch_base_err(RDMACH_ERR_PROTOCOL, "shm get from rank %d failed (bad data)", p->rank);
                    getop_done(ch, p, i, st);
                }
            }
        } else if (kind == RCH_SHM_PIPE_PUT_DATA) {
            if (!reject && rch_shm_mr_find(ch, dst, len, RCH_RDMA_ACCESS_REMOTE_WRITE)) {
                memcpy((void *)(uintptr_t)dst, buf, len);
            } else {
                RCH_ERROR("shm", "rank %d put %u bytes to 0x%llx, not registered for remote write: rejected",
                          p->rank, len, (unsigned long long)dst);
                atomic_store_explicit(&pc->nak_seq, p->sink_seq + 1, memory_order_relaxed);
            }
            if (last)
                p->sink_active--;
        } else {
            RCH_ERROR("shm", "rank %d sent a pipe chunk of unknown kind %u: dropped", p->rank, kind);
        }
        /* the buffer is dead until drained says so: take its lines (copy.c) */
        if (!reject && len > 0)
            rch_base_claim_lines((void *)(uintptr_t)buf, len);
        p->sink_seq++;
        n++;                         /* a chunk (with its completion, if it was the last) */
        p->sink_seen = 0;            /* the source is serving: no stealing for a while */
        atomic_store_explicit(&pc->drained, p->sink_seq, memory_order_release);
        if (rch_shm_peer_mapped(p) || rch_shm_connect_peer(ch, p) == RDMACH_OK)
            rch_shm_notify_peer(p);
    }
    return n;
}

unsigned rch_shm_pipe_progress(struct rch_rdma_chan *ch, struct rch_shm_peer *p, unsigned max)
{
    unsigned n = 0;
    if (p->state == RCH_SHM_PEER_DEAD)
        return 0;
    if (p->xq_head || p->wq_head)
        n += src_step(ch, p, max);
    if (p->sink_active != 0 && n < max) {
        uint64_t seq = p->sink_seq;
        n += sink_step(ch, p, max - n);
        double now;
        if (p->sink_seq == seq && n < max && steal_due(p, &now))
            n += steal_step(ch, p);
    }
    rch_shm_update_busy(ch, p);
    return n;
}

int rch_shm_pipe_ready(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    if (p->state == RCH_SHM_PEER_DEAD)
        return 1;
    if (p->cq_head && p->state == RCH_SHM_PEER_CONNECTED &&
        rch_shm_ring_has_room(&p->tx, sizeof(struct rch_shm_getreq)))
        return 1;
    if (p->sink_active != 0 && p->sink_pipe) {
        struct rch_shm_pipe_desc *d = &p->sink_pipe->desc[p->sink_seq % RCH_SHM_PIPE_NBUF];
        if (atomic_load_explicit(&d->seq, memory_order_acquire) == p->sink_seq + 1)
            return 1;
        if (p->steal_head >= 0 && p->cma)
            return 1;                /* stealing instead of sleeping: the source may never come */
    }
    if ((p->xq_head || p->wq_head) && p->src_pipe) {
        uint64_t drained = atomic_load_explicit(&p->src_pipe->drained, memory_order_acquire);
        if (p->xq_head && p->src_seq - drained < RCH_SHM_PIPE_NBUF)
            return 1;
        if (p->wq_head && drained >= p->wq_head->end_seq)
            return 1;
    }
    return 0;
}

unsigned rch_shm_pipe_fail_peer(struct rch_rdma_chan *ch, struct rch_shm_peer *p, rdmach_status_t st)
{
    unsigned n = rch_shm_coop_fail_peer(ch, p, st);
    int pidx = peer_index(ch, p);
    for (int i = 0; i < ch->ngetops; i++) {
        struct rch_shm_getop *op = &ch->getops[i];
        if (op->in_use && op->peer == pidx) {
            void *ctx = op->op_ctx;
            steal_release(ch, p, i);
            getop_release(ch, i);
            rch_shm_rma_done(ch, ctx, st);
            n++;
        }
    }
    struct rch_shm_xfer *x;
    while ((x = xq_pop(&p->xq_head, &p->xq_tail)) != NULL) {
        if (x->kind == RCH_SHM_PIPE_PUT_DATA) {
            rch_shm_rma_done(ch, x->op_ctx, st);
            n++;
        }
        free(x);
    }
    while ((x = xq_pop(&p->wq_head, &p->wq_tail)) != NULL) {
        rch_shm_rma_done(ch, x->op_ctx, st);
        n++;
        free(x);
    }
    while (p->cq_head) {
        struct rch_shm_ctlrec *c = p->cq_head;
        p->cq_head = c->next;
        free(c);
    }
    p->cq_tail = NULL;
    p->sink_active = 0;
    rch_shm_update_busy(ch, p);
    return n;
}

void rch_shm_pipe_free_peer(struct rch_shm_peer *p)
{
    struct rch_shm_xfer *x;
    while ((x = xq_pop(&p->xq_head, &p->xq_tail)) != NULL)
        free(x);
    while ((x = xq_pop(&p->wq_head, &p->wq_tail)) != NULL)
        free(x);
    while (p->cq_head) {
        struct rch_shm_ctlrec *c = p->cq_head;
        p->cq_head = c->next;
        free(c);
    }
    p->cq_tail = NULL;
}
