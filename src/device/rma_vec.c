/*
 * Operations on many blocks: the target side of a derived datatype
 * (rch_dev_rma_vec, rma.h), and the V packets that carry them (rma_proto.h).
 *
 * By the target's path:
 *   DIRECT  every block copied (rch_base_copy2d: the common block lengths
 *           as such, not by a memcpy call) or combined under one hold of
 *           the target's accumulate lock: no device call per block.
 *   other   blocks of at least VEC_BLOCK_MIN bytes one by one through the
 *           single-block calls (RDMA, or their own packets); shorter ones
 *           many to a packet. The caller's segments (the MPI layer merges
 *           equal blocks at a constant stride into one) are cut at packet
 *           boundaries, so a vector type costs 24 bytes of description per
 *           packet, an indexed type 24 per block: a 16 M-int vector to
 *           another node is 64 MiB / max payload packets instead of 16 M
 *           operations. A PUTV/ACCV whose description fits next to the
 *           header in a queued request (one segment) leaves with its data
 *           read from where the origin has it, copied once, by the channel.
 *
 * The target checks every segment against its window before touching any
 * memory (a refused packet changes nothing), applies the blocks in order and
 * answers as for the single-block forms: ACK for PUTV/ACCV, RSP with the
 * packed data (GETV) or the old contents (GACCV).
 */
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "device/rma_impl.h"

/* Blocks at least this long go alone: one more operation costs less than
 * copying them into a packet. */
#define VEC_BLOCK_MIN 4096

static const unsigned wire_op[] = {
    [RCH_DEV_RMA_PUT] = RCH_RMA_PUTV, [RCH_DEV_RMA_GET] = RCH_RMA_GETV,
    [RCH_DEV_RMA_ACC] = RCH_RMA_ACCV, [RCH_DEV_RMA_GACC] = RCH_RMA_GACCV,
};

/* ---- origin: a packet being filled ---- */

struct vpkt {
    struct rch_dev_win *w;
    int target;
    enum rch_dev_rma_kind kind;
    const struct rch_dev_rma_op *op;
    struct rch_dev_rma_cmpl *c;
    size_t maxp;                 /* payload limit */
    unsigned char *buf;          /* rch_rma_vec | segments, then the data at flush */
    uint32_t nseg;
    size_t data;                 /* bytes of the blocks so far */
    const unsigned char *src;    /* their data: packed, contiguous from here */
    unsigned char *dst;          /* where their results go */
};

/* The origin's packet buffer (the channel copies a packet out, or the send
 * queue copies it: it is free again when the call returns). */
static unsigned char *obuf;
static size_t obuf_len;

static int has_data(enum rch_dev_rma_kind k)
{
    return k != RCH_DEV_RMA_GET;
}

static struct rch_rma_seg *seg_at(struct vpkt *v, uint32_t i)
{
    return (struct rch_rma_seg *)(v->buf + sizeof(struct rch_rma_vec) + (size_t)i * sizeof(struct rch_rma_seg));
}

static size_t desc_len(uint32_t nseg)
{
    return sizeof(struct rch_rma_vec) + (size_t)nseg * sizeof(struct rch_rma_seg);
}

static rdmach_status_t vpkt_flush(struct vpkt *v)
{
    if (v->nseg == 0)
        return RDMACH_OK;
    struct rch_rma_vec hd = { .nseg = v->nseg, .pad = 0 };
    memcpy(v->buf, &hd, sizeof(hd));
    size_t dlen = desc_len(v->nseg), plen = dlen + (has_data(v->kind) ? v->data : 0);
    struct rch_rma_hdr h;
    rch_dev_rma_hdr(v->w, &h, wire_op[v->kind], plen, seg_at(v, 0)->addr);
    h.aop = v->op ? v->op->op : 0;
    h.kind = v->op ? v->op->kind : 0;
    h.elem = v->kind == RCH_DEV_RMA_GET ? (uint32_t)v->data : v->op ? v->op->elem : 0;
    int acked = v->kind == RCH_DEV_RMA_PUT || v->kind == RCH_DEV_RMA_ACC;
    rdmach_status_t st;
    if (acked && dlen <= RCH_PKT_CTL_MAX - sizeof(h)) {
        /* a description short enough to travel with the header (a vector's
         * one segment): the data leaves from where the origin has it, not
         * copied into the packet buffer first nor, if the packet has to
         * wait, into the queued request */
        st = rch_dev_rma_send_acked_v(v->w, v->target, &h, v->buf, dlen, v->src, v->data, 0, v->c);
    } else {
        if (has_data(v->kind))
            memcpy(v->buf + dlen, v->src, v->data);
        st = acked ? rch_dev_rma_send_acked(v->w, v->target, &h, v->buf, plen, 1, v->c)
                   : rch_dev_rma_rsp_op(v->w, v->target, &h, v->buf, plen, 1, v->dst, v->data, v->c);
    }
    v->src += has_data(v->kind) ? v->data : 0;
    v->dst += v->dst ? v->data : 0;
    v->nseg = 0;
    v->data = 0;
    return st;
}

/* Add `count` blocks of `blen` bytes at addr, addr + stride, ...: as many
 * as fit go into this packet as one segment, the packet leaves, and so on. */
static rdmach_status_t vpkt_add(struct vpkt *v, uint64_t addr, int64_t stride, uint32_t blen, uint64_t count)
{
    while (count > 0) {
        size_t used = desc_len(v->nseg + 1) + v->data;
        uint64_t fit = used < v->maxp ? (v->maxp - used) / blen : 0;
        if (fit == 0) {
            rdmach_status_t st = vpkt_flush(v);
            if (st != RDMACH_OK)
                return st;
            continue;
        }
        uint64_t k = fit < count ? fit : count;
        *seg_at(v, v->nseg++) = (struct rch_rma_seg){ .addr = addr, .stride = k > 1 ? stride : 0, .blen = blen,
                                                      .count = (uint32_t)k };
        v->data += (size_t)k * blen;
        addr += (uint64_t)(stride * (int64_t)k);
        count -= k;
    }
    return RDMACH_OK;
}

/* One block by the single-block calls. */
static rdmach_status_t one(struct rch_dev_win *w, int target, enum rch_dev_rma_kind kind, const unsigned char *src,
                           unsigned char *dst, uint64_t off, size_t len, const struct rch_dev_rma_op *op,
                           struct rch_dev_rma_cmpl *c)
{
    switch (kind) {
    case RCH_DEV_RMA_PUT: return rch_dev_rma_put(w, target, src, len, off, c);
    case RCH_DEV_RMA_GET: return rch_dev_rma_get(w, target, dst, len, off, c);
    case RCH_DEV_RMA_ACC: return rch_dev_rma_acc(w, target, src, NULL, len, off, op, c);
    default:              return rch_dev_rma_acc(w, target, src, dst, len, off, op, c);
    }
}

/* Accumulate count blocks of blen bytes, packed at src, into p, p + stride,
 * ...: by the block kernel where the operation has one and the blocks do
 * not overlap (each target element read and written once, where it lies);
 * else short blocks are gathered ACC_GATHER bytes at a time, combined by
 * one kernel call and scattered back (a call per 4-byte block cost several
 * times the arithmetic), and others combined by a call per block. The
 * caller holds the target's accumulate lock. */
#define ACC_GATHER 4096
static void acc_blocks(const struct rch_dev_rma_op *op, unsigned char *p, int64_t stride, const unsigned char *src,
                       uint64_t blen, uint64_t count)
{
    rch_dev_rma_kernel_fn fn = op->fn;
    size_t elem = op->elem;
    if (op->fn2d && rch_base_blocks2d_ok(src, (ptrdiff_t)blen, p, stride, count, blen, elem)) {
        op->fn2d(src, (ptrdiff_t)blen, p, stride, count, blen / elem);
        return;
    }
    uint64_t per = ACC_GATHER / blen;
    if (per < 2 || count < 2 || (uint64_t)(stride < 0 ? -stride : stride) < blen) {
        for (uint64_t k = 0; k < count; k++, p += stride, src += blen)
            fn(src, p, blen / elem, NULL);
        return;
    }
    _Alignas(64) unsigned char tmp[ACC_GATHER];
    for (uint64_t k = 0; k < count; k += per) {
        uint64_t m = count - k < per ? count - k : per;
        unsigned char *pk = p + (int64_t)k * stride;
        rch_base_copy2d(tmp, (int64_t)blen, pk, stride, m, blen);
        fn(src + k * blen, tmp, m * blen / elem, NULL);
        rch_base_copy2d(pk, stride, tmp, (int64_t)blen, m, blen);
    }
}

/* ---- origin: DIRECT ---- */

static rdmach_status_t direct(struct rch_dev_win *w, int target, enum rch_dev_rma_kind kind, const unsigned char *src,
                              unsigned char *dst, const struct rch_dev_rma_seg *segs, size_t nseg,
                              const struct rch_dev_rma_op *op)
{
    struct rch_dev_win_target *t = &w->t[target];
    if (t->mapped == 0) {
        /* my own dynamic window: every block in an attached region, before any is touched */
        for (size_t i = 0; i < nseg; i++)
            for (uint64_t k = 0; k < segs[i].count; k++) {
                uint64_t a = segs[i].off + (uint64_t)((int64_t)k * segs[i].stride);
                if (!rch_dev_win_region_ok(w, a, segs[i].blen))
                    return rch_base_err(RDMACH_ERR_INVALID_ARG, "one-sided operation of %llu bytes at address "
                                        "0x%llx of rank %d: outside its window (no attached region holds it)",
                                        (unsigned long long)segs[i].blen, (unsigned long long)a, w->rank);
            }
    }
    int acc = kind == RCH_DEV_RMA_ACC || kind == RCH_DEV_RMA_GACC;
    if (acc)
        rch_dev_rma_acc_lock(t->ctrl);
    for (size_t i = 0; i < nseg; i++) {
        const struct rch_dev_rma_seg *s = &segs[i];
        unsigned char *p = (unsigned char *)(t->mapped + (uintptr_t)s->off);
        uint64_t n = s->blen * s->count;
        if (kind == RCH_DEV_RMA_PUT) {
            rch_base_copy2d(p, s->stride, src, (int64_t)s->blen, s->count, s->blen);
            src += n;
            continue;
        }
        if (kind != RCH_DEV_RMA_ACC) {      /* get, and get-accumulate's old contents */
            rch_base_copy2d(dst, (int64_t)s->blen, p, s->stride, s->count, s->blen);
            dst += n;
        }
        if (acc) {
            acc_blocks(op, p, s->stride, src, s->blen, s->count);
            src += n;
        }
    }
    if (acc)
        rch_dev_rma_acc_unlock(t->ctrl);
    return RDMACH_OK;
}

unsigned char *rch_dev_rma_direct_begin(struct rch_dev_win *w, int target, int atomic)
{
    struct rch_dev_win_target *t = &w->t[target];
    if (t->path != RCH_DEV_WIN_DIRECT || t->mapped == 0)
        return NULL;
    if (atomic)
        rch_dev_rma_acc_lock(t->ctrl);
    return (unsigned char *)t->mapped;
}

void rch_dev_rma_direct_end(struct rch_dev_win *w, int target, int atomic)
{
    if (atomic)
        rch_dev_rma_acc_unlock(w->t[target].ctrl);
}

rdmach_status_t rch_dev_rma_vec(struct rch_dev_win *w, int target, enum rch_dev_rma_kind kind, const void *src,
                                void *dst, const struct rch_dev_rma_seg *segs, size_t nseg,
                                const struct rch_dev_rma_op *op, struct rch_dev_rma_cmpl *c)
{
    int acc = kind == RCH_DEV_RMA_ACC || kind == RCH_DEV_RMA_GACC;
    if (acc && (op == NULL || op->elem == 0 || op->fn == NULL))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "accumulate without an operation");
    for (size_t i = 0; acc && i < nseg; i++)
        if (segs[i].blen % op->elem != 0)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "accumulate: a block of %llu bytes is not whole %u-byte "
                                "elements", (unsigned long long)segs[i].blen, op->elem);
    if (w->t[target].path == RCH_DEV_WIN_DIRECT)
        return direct(w, target, kind, src, dst, segs, nseg, op);
    if (kind == RCH_DEV_RMA_GET) {
        rdmach_status_t st = rch_dev_rma_getw(w, target, dst, segs, nseg, c);
        if (st != RDMACH_AGAIN)
            return st;
    }
    /* a put of short blocks (long ones go alone below, by single copy where
     * the channel has it): scattered by the target from its pipeline */
    size_t longest = 0;
    for (size_t i = 0; kind == RCH_DEV_RMA_PUT && i < nseg; i++)
        longest = segs[i].blen > longest ? segs[i].blen : longest;
    if (kind == RCH_DEV_RMA_PUT && longest < VEC_BLOCK_MIN) {
        rdmach_status_t st = rch_dev_rma_putw(w, target, src, segs, nseg, c);
        if (st != RDMACH_AGAIN)
            return st;
    }

    size_t maxp = rch_dev_rma_max_payload(w, target);
    struct vpkt v = { .w = w, .target = target, .kind = kind, .op = op, .c = c, .maxp = maxp,
                      .src = src, .dst = dst };
    int packets = maxp >= desc_len(1) + VEC_BLOCK_MIN;
    if (packets && obuf_len < maxp) {
        unsigned char *b = realloc(obuf, maxp);
        if (b == NULL)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "one-sided: no memory for a %zu-byte packet", maxp);
        obuf = b;
        obuf_len = maxp;
    }
    v.buf = obuf;
    rdmach_status_t st = RDMACH_OK;
    for (size_t i = 0; i < nseg && st == RDMACH_OK; i++) {
        const struct rch_dev_rma_seg *s = &segs[i];
        if (packets && s->blen < VEC_BLOCK_MIN) {
            st = vpkt_add(&v, s->off, s->stride, (uint32_t)s->blen, s->count);
            continue;
        }
        /* alone, behind the blocks gathered so far */
        st = vpkt_flush(&v);
        for (uint64_t k = 0; k < s->count && st == RDMACH_OK; k++) {
            st = one(w, target, kind, v.src, v.dst, s->off + (uint64_t)((int64_t)k * s->stride), s->blen, op, c);
            v.src += has_data(kind) ? s->blen : 0;
            v.dst += v.dst ? s->blen : 0;
        }
    }
    if (st == RDMACH_OK)
        st = vpkt_flush(&v);
    return st;
}

/* ---- target ---- */

/* Where segment s's first block is in my memory, after checking that all
 * its blocks are in my window; NULL if one is not. */
unsigned char *rch_dev_rma_seg_mem(struct rch_dev_win *w, const struct rch_rma_seg *s)
{
    int64_t span = s->stride * (int64_t)(s->count - 1);
    uint64_t lo = span < 0 ? s->addr + (uint64_t)span : s->addr;
    uint64_t hi = (span < 0 ? s->addr : s->addr + (uint64_t)span) + s->blen;
    unsigned char *p = rch_dev_rma_local_addr(w, lo, hi - lo);
    if (p)
        return p + (s->addr - lo);
    if (w->flavor != RCH_DEV_WIN_DYNAMIC)
        return NULL;
    /* blocks in different attached regions */
    for (uint32_t k = 0; k < s->count; k++)
        if (!rch_dev_win_region_ok(w, s->addr + (uint64_t)(s->stride * (int64_t)k), s->blen))
            return NULL;
    return (unsigned char *)(uintptr_t)s->addr;
}

void rch_dev_rma_on_vec(struct rch_dev_win *w, const struct rch_rma_hdr *h, const unsigned char *payload)
{
    struct rch_rma_vec v;
    memcpy(&v, payload, sizeof(v));
    const unsigned char *desc = payload + sizeof(v);
    const unsigned char *data = desc + (size_t)v.nseg * sizeof(struct rch_rma_seg);
    int acc = h->rop == RCH_RMA_ACCV || h->rop == RCH_RMA_GACCV;
    int rsp = h->rop == RCH_RMA_GETV || h->rop == RCH_RMA_GACCV;
    size_t total = h->rop == RCH_RMA_GETV ? h->elem : h->len - (size_t)(data - payload);
    rdmach_status_t st = RDMACH_OK;
    struct rch_dev_rma_op kern = { .fn = NULL };
    if (acc)
        st = rch_dev_rma_kernel_of(h, &kern);
    for (uint32_t i = 0; i < v.nseg && st == RDMACH_OK; i++) {
        struct rch_rma_seg s;
        memcpy(&s, desc + (size_t)i * sizeof(s), sizeof(s));
        if (rch_dev_rma_seg_mem(w, &s) == NULL)
            st = RDMACH_ERR_INVALID_ARG;
    }
    unsigned char *out = NULL;
    if (st == RDMACH_OK && rsp && total > rch_dev_rma_max_payload(w, h->src))
        st = RDMACH_ERR_INVALID_ARG;         /* the answer would not fit a packet back */
    else if (st == RDMACH_OK && rsp && (out = rch_dev_rma_scratch(total ? total : 1)) == NULL)
        st = RDMACH_ERR_NO_MEMORY;
    if (st == RDMACH_OK) {
        unsigned char *o = out;
        if (acc)
            rch_dev_rma_acc_lock(w->my_ctrl);
        for (uint32_t i = 0; i < v.nseg; i++) {
            struct rch_rma_seg s;
            memcpy(&s, desc + (size_t)i * sizeof(s), sizeof(s));
            unsigned char *p = rch_dev_rma_seg_mem(w, &s);
            size_t n = (size_t)s.blen * s.count;
            if (rsp) {
                rch_base_copy2d(o, s.blen, p, s.stride, s.count, s.blen);
                o += n;
            }
            if (h->rop == RCH_RMA_PUTV)
                rch_base_copy2d(p, s.stride, data, s.blen, s.count, s.blen);
            if (acc)
                acc_blocks(&kern, p, s.stride, data, s.blen, s.count);
            data += h->rop == RCH_RMA_GETV ? 0 : n;
        }
        if (acc)
            rch_dev_rma_acc_unlock(w->my_ctrl);
    }
    if (rsp)
        rch_dev_rma_answer_rsp(w, h, st, out, total, 1);
    else
        rch_dev_rma_answer_ack(w, h, st);
}
