/*
 * Blocks that repeat (PUTP, ACCP; rma_proto.h): a put or accumulate of a
 * derived target datatype whose blocks come back at a constant stride — a
 * struct's few blocks element after element, the period of an indexed type
 * built from a pattern — to a target whose memory is not mapped here.
 *
 * Each packet says once which blocks make one repetition (offset of
 * repetition 0, length) and how far apart repetitions are, then carries the
 * data of as many whole repetitions as fit, in the order the origin's packed
 * buffer has it. The target scatters it a column at a time
 * (rch_base_copy_cols: fixed-length moves for the common lengths, over
 * spans of the window that stay in L1 between the columns); an accumulate
 * gathers 4 KiB of its window's blocks at a time into the packet's order,
 * combines them with the packet's data by one kernel call and scatters them
 * back, under the accumulate lock, held for one packet at a time (MPI's
 * atomicity is per element).
 *
 * What it replaces: the MPI layer rearranged the data into one column per
 * block first (a pass over all of it on the origin before the first packet
 * left), then PUTV/ACCV packets carried each column as a strided segment.
 * Here the origin copies the data once, from where it has it into the
 * packets (the description is a separate piece of the packet, and of a
 * queued request: rch_dev_rma_send_qv), which the target empties while the
 * origin fills the next: the two passes run at once on two cores.
 *
 * Ordering, completion and failures are those of every acknowledged packet
 * (rma_am.c): the target applies them in arrival order; each counts in the
 * target's pend_remote until its ACK (and in pend_local while it waits in
 * the send queue with the data still at the origin); a dead target fails
 * them at the next flush.
 */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "device/rma_impl.h"
#include "device/stats.h"

/* Blocks from this long go one by one (rma_vec.c VEC_BLOCK_MIN). */
#define PAT_BLOCK_MAX 4096

/* ---- origin ---- */


rdmach_status_t rch_dev_rma_pattern(struct rch_dev_win *w, int target, enum rch_dev_rma_kind kind, const void *src,
                                    const struct rch_dev_rma_pblock *blk, size_t nblk, uint64_t reps, int64_t stride,
                                    const struct rch_dev_rma_op *op, struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_win_target *t = &w->t[target];
    int acc = kind == RCH_DEV_RMA_ACC;
    if ((kind != RCH_DEV_RMA_PUT && !acc) || nblk == 0 || nblk > RCH_RMA_PAT_BLK_MAX || reps == 0 ||
        t->path == RCH_DEV_WIN_DIRECT || w->flavor == RCH_DEV_WIN_DYNAMIC ||
        (acc && (op == NULL || op->elem == 0 || op->fn == NULL)))
        return RDMACH_AGAIN;
    size_t period = 0;
    for (size_t i = 0; i < nblk; i++) {
        if (blk[i].blen == 0 || blk[i].blen >= PAT_BLOCK_MAX || (acc && blk[i].blen % op->elem != 0))
            return RDMACH_AGAIN;
        period += blk[i].blen;
    }
    if (!acc) {               /* from a size, scattered by the target from its pipeline */
        rdmach_status_t st = rch_dev_rma_putw_pattern(w, target, src, blk, nblk, reps, stride, c);
        if (st != RDMACH_AGAIN)
            return st;
    }
    size_t dlen = sizeof(struct rch_rma_pat) + nblk * sizeof(struct rch_rma_pblk);
    size_t maxp = rch_dev_rma_max_payload(w, target);
    if (maxp < dlen + period)
        return RDMACH_AGAIN;
    _Alignas(8) unsigned char desc[sizeof(struct rch_rma_pat) + RCH_RMA_PAT_BLK_MAX * sizeof(struct rch_rma_pblk)];
    uint64_t per = (maxp - dlen) / period;      /* repetitions a packet */
    const unsigned char *data = src;
    for (uint64_t r0 = 0; r0 < reps; r0 += per) {
        uint64_t m = reps - r0 < per ? reps - r0 : per;
        struct rch_rma_pat q = { .reps = m, .stride = stride, .period = (uint32_t)period, .nblk = (uint32_t)nblk };
        memcpy(desc, &q, sizeof(q));
        for (size_t i = 0; i < nblk; i++) {
            struct rch_rma_pblk b = { .addr = blk[i].off + (uint64_t)((int64_t)r0 * stride),
                                      .blen = (uint32_t)blk[i].blen };
            memcpy(desc + sizeof(q) + i * sizeof(b), &b, sizeof(b));
        }
        size_t n = (size_t)(m * period);
        struct rch_rma_hdr h;
        rch_dev_rma_hdr(w, &h, acc ? RCH_RMA_ACCP : RCH_RMA_PUTP, dlen + n, blk[0].off + (uint64_t)((int64_t)r0 * stride));
        if (acc) {
            h.aop = op->op;
            h.kind = op->kind;
            h.elem = op->elem;
        }
        /* the description after the header, the data from where the origin has it */
        rdmach_status_t st = rch_dev_rma_send_acked_v(w, target, &h, desc, dlen, data, n, 0, c);
        if (st != RDMACH_OK)
            return st;
        rch_dev_stat.rma_pattern++;
        data += n;
    }
    return RDMACH_OK;
}

/* ---- target ---- */

/* Accumulate the packet's repetitions, ACC_GATHER bytes of them at a time:
 * by the repetition kernel where the operation has one and the blocks are
 * a few short ones (one pass over the target's memory), by the block
 * kernel a column at a time where it has one (each target element read and
 * written once, where it lies), else the target's
 * blocks gathered into the packet's order (so the data is the kernel's
 * input as it lies), combined by one kernel call and scattered back. The
 * caller holds the accumulate lock. */
#define ACC_GATHER 4096
static int cols_2d(const struct rch_rma_pat *q, const struct rch_rma_pblk *b, unsigned char *const *mem,
                   const unsigned char *data, size_t elem)
{
    for (uint32_t k = 0; k < q->nblk; data += b[k].blen, k++)
        if (!rch_base_blocks2d_ok(data, (ptrdiff_t)q->period, mem[k], q->stride, q->reps, b[k].blen, elem))
            return 0;
    return 1;
}

static void acc_reps(const struct rch_rma_pat *q, const struct rch_rma_pblk *b, unsigned char *const *mem,
                     const unsigned char *data, const struct rch_dev_rma_op *op)
{
    rch_dev_rma_kernel_fn fn = op->fn;
    size_t elem = op->elem;
    _Alignas(64) unsigned char tmp[ACC_GATHER];
    uint64_t per = q->period < ACC_GATHER ? ACC_GATHER / q->period : 1;
    if (op->rows && q->nblk <= RCH_BASE_ELEMS_MAX) {
        size_t len[RCH_BASE_ELEMS_MAX];
        ptrdiff_t off[RCH_BASE_ELEMS_MAX];
        for (uint32_t k = 0; k < q->nblk; k++)
            len[k] = b[k].blen;
        int ne = rch_base_elems_of(mem, len, (int)q->nblk, elem, 4 * elem, off);
        if (ne && rch_base_elems_apart(data, mem[0], q->stride, q->reps, off, ne, elem)) {
            op->rows(data, mem[0], q->stride, q->reps, off, ne);
            return;
        }
    }
    if (op->fn2d && cols_2d(q, b, mem, data, elem)) {
        for (uint64_t r0 = 0; r0 < q->reps; r0 += per) {
            uint64_t m = q->reps - r0 < per ? q->reps - r0 : per;
            size_t soff = 0;
            for (uint32_t k = 0; k < q->nblk; soff += b[k].blen, k++)
                op->fn2d(data + r0 * q->period + soff, (ptrdiff_t)q->period, mem[k] + (int64_t)r0 * q->stride,
                         q->stride, m, b[k].blen / elem);
        }
        return;
    }
    if (q->period > ACC_GATHER) {               /* long repetitions: block by block */
        for (uint32_t k = 0; k < q->nblk; data += b[k].blen, k++)
            for (uint64_t r = 0; r < q->reps; r++)
                fn(data + r * q->period, mem[k] + (int64_t)r * q->stride, b[k].blen / elem, NULL);
        return;
    }
    for (uint64_t r0 = 0; r0 < q->reps; r0 += per) {
        uint64_t m = q->reps - r0 < per ? q->reps - r0 : per;
        size_t soff = 0;
        for (uint32_t k = 0; k < q->nblk; soff += b[k].blen, k++)
            rch_base_copy2d(tmp + soff, q->period, mem[k] + (int64_t)r0 * q->stride, q->stride, m, b[k].blen);
        fn(data + r0 * q->period, tmp, (size_t)(m * q->period) / elem, NULL);
        soff = 0;
        for (uint32_t k = 0; k < q->nblk; soff += b[k].blen, k++)
            rch_base_copy2d(mem[k] + (int64_t)r0 * q->stride, q->stride, tmp + soff, q->period, m, b[k].blen);
    }
}

rdmach_status_t rch_dev_rma_pat_mem(struct rch_dev_win *w, const struct rch_rma_pat *q, const struct rch_rma_pblk *b,
                                    unsigned char **mem)
{
    int64_t span = q->stride * (int64_t)(q->reps - 1);
    for (uint32_t k = 0; k < q->nblk; k++) {
        uint64_t lo = span < 0 ? b[k].addr + (uint64_t)span : b[k].addr;
        uint64_t hi = (span < 0 ? b[k].addr : b[k].addr + (uint64_t)span) + b[k].blen;
        unsigned char *at = w->flavor == RCH_DEV_WIN_DYNAMIC ? NULL : rch_dev_rma_local_addr(w, lo, hi - lo);
        if (at == NULL)
            return RDMACH_ERR_INVALID_ARG;
        mem[k] = at + (b[k].addr - lo);
    }
    return RDMACH_OK;
}

void rch_dev_rma_on_pat(struct rch_dev_win *w, const struct rch_rma_hdr *h, const unsigned char *payload)
{
    struct rch_rma_pat q;
    struct rch_rma_pblk b[RCH_RMA_PAT_BLK_MAX];
    unsigned char *mem[RCH_RMA_PAT_BLK_MAX];
    memcpy(&q, payload, sizeof(q));
    memcpy(b, payload + sizeof(q), q.nblk * sizeof(b[0]));
    const unsigned char *data = payload + sizeof(q) + q.nblk * sizeof(b[0]);
    rdmach_status_t st = RDMACH_OK;
    struct rch_dev_rma_op kern = { .fn = NULL };
    if (h->rop == RCH_RMA_ACCP)
        st = rch_dev_rma_kernel_of(h, &kern);
    if (st == RDMACH_OK)
        st = rch_dev_rma_pat_mem(w, &q, b, mem);
    if (st == RDMACH_OK && !kern.fn) {
        size_t len[RCH_RMA_PAT_BLK_MAX];
        for (uint32_t k = 0; k < q.nblk; k++)
            len[k] = b[k].blen;
        rch_base_copy_cols((unsigned char *)data, q.period, mem, len, (int)q.nblk, q.stride, q.reps, 0);
    } else if (st == RDMACH_OK) {
        rch_dev_rma_acc_lock(w->my_ctrl);
        acc_reps(&q, b, mem, data, &kern);
        rch_dev_rma_acc_unlock(w->my_ctrl);
    }
    rch_dev_rma_answer_ack(w, h, st);
}
