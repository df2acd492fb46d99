/*
 * Gets written by the target (GETW; rma_proto.h): many small blocks of a
 * derived target datatype read from a rank of this node whose window memory
 * is not mapped here (MPI_Win_create), that the channel reaches by single
 * copy.
 *
 * The origin registers its result buffer with its channel and sends the
 * blocks' description with the buffer's address and key.
 *
 * Where the channel has put_fill (shared memory) and RDMACH_RMA_GETW_FILL
 * is on, the target answers the whole GETW with one put_fill: the channel's
 * pipeline (shm_pipe.c) asks for the packed bytes a chunk at a time
 * (getw_fill, from the target's progress) into its buffers in the origin's
 * segment, and the origin's progress copies each into the result buffer
 * while the target packs the next: two user-space copies on two cores, no
 * single copy (which pins every page: a contiguous 4 MiB get by single copy
 * costs what the pack and the copy out cost together). The pack's state
 * (struct rch_dev_rma_blocks) is freed with the answer, after the channel's
 * rma_done, after which it calls no fill. The target's progress alone moves
 * nothing here: an origin that does not progress holds the answer after
 * the pipeline's few chunks.
 *
 * Otherwise (RMA_GETW_FILL=off, or put_fill refused at the call) the target packs
 * the blocks a chunk at a time (rch_base_copy2d) and writes each chunk into
 * the origin's buffer by the channel's put, then answers with an RSP
 * without data. The first chunk (GETW_CHUNK, in L2) the channel writes
 * alone (one process_vm_writev); the later ones are 2 SHM_CMA_SPLIT, which
 * the channel shares with the origin (shm_coop.c): the origin, waiting for
 * the RSP, copies part of chunk k by process_vm_readv while the target packs
 * chunk k + 1 into another buffer, so pack and copy overlap on two cores
 * (vector get, 256 K-1 M ints: 10-16% faster than 64 KiB chunks alone). The data
 * crosses twice, once each way, as much as the datatype engine alone plus a
 * contiguous transfer; reading the whole span from the origin (span_get_now
 * in src/mpi/win_ops.c) reads twice the data for a map that covers half its
 * span, and GETV's packets copy it into the ring and out again.
 *
 * Completion: the request counts in pend_local and pend_remote until the
 * RSP, when the data is in place; it holds the registration (RMA_RQ_MR),
 * undone when it ends. A target that dies fails it (the peer's pending
 * list). An origin that dies makes the target's write fail with PEER_DEAD:
 * the target stops and answers nobody.
 *
 * A chunk's buffer is the channel's until the write's completion, also when
 * the origin dies with writes in flight (the shared copy's descriptor, the
 * pipeline's queues point into it): the shared-memory channel alone judges
 * a local peer dead (caps.watches_peers; the device's live.c and heartbeats
 * leave its peers alone), and it fails every transfer it holds for that peer
 * (rch_shm_pipe_fail_peer: shared copies, pipeline queues) before the device
 * hears peer_failed, so write_done, which returns the buffer to the spares,
 * runs after the channel let go of it. MPI_T `rma_getw_writes_lost` counts
 * those writes (tests/mpi/test_rma_getw_death.c).
 *
 * Single copy refused one way: the kernel may let the origin read the
 * target (its 1-byte probe, rch_dev_rma_single_copy) but not the target
 * write the origin (Yama ptrace_scope, PR_SET_PTRACER name one direction).
 * The channel then writes the chunk by its two-copy pipeline (INPROGRESS),
 * which the origin's progress drains while it waits for the RSP; every
 * chunk is a request of the target's, and the RSP leaves when the last
 * write has ended, so the data is in place when the get completes. The RSP
 * then carries F_NOWRITE and the origin sends GETV to that target from
 * then on (its window target's getw).
 */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "device/rma_impl.h"
#include "device/stats.h"

/* The first chunk's bytes: in L2, and below SHM_CMA_SPLIT so the channel
 * copies it alone, at once (an INPROGRESS then means the kernel refused). */
#define GETW_CHUNK (64u << 10)
/* The later chunks: 2 SHM_CMA_SPLIT, which the channel shares with the
 * origin (shm_coop.c), at most this. */
#define GETW_SHARED_MAX (1u << 20)
/* Fewer bytes than this: GETV packets cost less than the registration. */
#define GETW_MIN (16u << 10)

static size_t chunk_alone(void)
{
    size_t split = rch_tun.shm_cma_split;
    return split == 0 || split > 2 * GETW_CHUNK ? GETW_CHUNK : split / 2;
}

static size_t chunk_shared(void)
{
    size_t split = rch_tun.shm_cma_split;
    return split > 0 && split <= GETW_SHARED_MAX / 2 && 2 * split > chunk_alone() ? 2 * split : chunk_alone();
}

int rch_dev_rma_getw_ok(struct rch_dev_win *w, int target)
{
    struct rch_dev_win_target *t = &w->t[target];
    struct rch_dev_peer *p = &rch_dev.peers[t->world];
    return w->flavor != RCH_DEV_WIN_DYNAMIC && t->path == RCH_DEV_WIN_RDMA && t->ctrl && !p->dead && t->getw >= 0 &&
           p->ops->mem_reg && p->ops->mem_rkey && chunk_alone() >= 4096 && rch_dev_rma_single_copy(w, target);
}

/* ---- origin (GETW, and PUTW's: rma_putw.c) ---- */

/* One GETW or PUTW (rop): `bytes` at buf (the result, or the packed data),
 * the blocks described by desc (segments, or with F_PAT a pattern), the
 * first at addr. buf is registered (access) until the RSP. */
static rdmach_status_t w_send(struct rch_dev_win *w, int target, unsigned rop, unsigned char *buf, size_t bytes,
                              const void *desc, size_t dlen, int flags, uint64_t addr, struct rch_dev_rma_cmpl *c)
{
    struct rch_dev_peer *p = &rch_dev.peers[w->t[target].world];
    const char *what = rop == RCH_RMA_GETW ? "one-sided get" : "one-sided put";
    unsigned access = rop == RCH_RMA_GETW ? RCH_RDMA_ACCESS_REMOTE_WRITE : RCH_RDMA_ACCESS_REMOTE_READ;
    struct rch_rdma_mr *mr = NULL;
    struct rch_rdma_rkey key;
    memset(&key, 0, sizeof(key));
    if (p->ops->mem_reg(p->chan, buf, bytes, access, &mr) != RDMACH_OK)
        return RDMACH_ERR_NO_MEMORY;
    if (p->ops->mem_rkey(p->chan, mr, &key) != RDMACH_OK || key.len > RCH_RMA_KEY_MAX) {
        p->ops->mem_dereg(p->chan, mr);
        return rch_base_err(RDMACH_ERR_OTHER, "%s: the channel's key does not fit a %s", what, rch_rma_op_name[rop]);
    }
    size_t plen = sizeof(struct rch_rma_where) + dlen;
    unsigned char *pl = malloc(plen);
    if (pl == NULL) {
        p->ops->mem_dereg(p->chan, mr);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no memory for a %zu-byte description", what, plen);
    }
    struct rch_rma_where wh = { .raddr = (uint64_t)(uintptr_t)buf, .keylen = key.len };
    memcpy(wh.key, key.bytes, key.len);
    memcpy(pl, &wh, sizeof(wh));
    memcpy(pl + sizeof(wh), desc, dlen);
    struct rch_dev_ireq *r = rch_dev_rma_req(w, target, RMA_RQ_LOCAL | RMA_RQ_REMOTE | RMA_RQ_RSP | RMA_RQ_MR, c);
    if (r == NULL) {
        free(pl);
        p->ops->mem_dereg(p->chan, mr);
        return RDMACH_ERR_NO_MEMORY;
    }
    r->rq_result = (uint64_t)(uintptr_t)mr;      /* no data comes back: the field holds the registration */
    r->rq_rlen = 0;
    struct rch_rma_hdr h;
    rch_dev_rma_hdr(w, &h, rop, plen, addr);
    h.flags = (uint8_t)flags;
    h.elem = (uint32_t)bytes;
    rdmach_status_t st = rch_dev_rma_rsp_send(w, target, &h, pl, plen, 1, r);
    free(pl);
    if (st == RDMACH_OK && rop == RCH_RMA_GETW)
        rch_dev_stat.rma_getw++;
    else if (st == RDMACH_OK)
        rch_dev_stat.rma_putw++;
    return st;
}

/* One GETW/PUTW for segs[0, n) (whole), their `bytes` packed at buf. */
static rdmach_status_t w_one(struct rch_dev_win *w, int target, unsigned rop, unsigned char *buf, size_t bytes,
                             const struct rch_dev_rma_seg *segs, size_t n, struct rch_dev_rma_cmpl *c)
{
    size_t dlen = sizeof(struct rch_rma_vec) + n * sizeof(struct rch_rma_seg);
    unsigned char *d = malloc(dlen);
    if (d == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "one-sided: no memory for a %zu-byte description", dlen);
    struct rch_rma_vec v = { .nseg = (uint32_t)n };
    memcpy(d, &v, sizeof(v));
    for (size_t i = 0; i < n; i++) {
        struct rch_rma_seg s = { .addr = segs[i].off, .stride = segs[i].count > 1 ? segs[i].stride : 0,
                                 .blen = (uint32_t)segs[i].blen, .count = (uint32_t)segs[i].count };
        memcpy(d + sizeof(v) + i * sizeof(s), &s, sizeof(s));
    }
    rdmach_status_t st = w_send(w, target, rop, buf, bytes, d, dlen, 0, segs[0].off, c);
    free(d);
    return st;
}

rdmach_status_t rch_dev_rma_w_pattern(struct rch_dev_win *w, int target, unsigned rop, void *buf,
                                      const struct rch_dev_rma_pblock *blk, size_t nblk, uint64_t reps,
                                      int64_t stride, size_t min, size_t period_max, rch_dev_rma_w_ok_fn ok,
                                      struct rch_dev_rma_cmpl *c)
{
    size_t period = 0;
    for (size_t i = 0; i < nblk; i++)
        period += blk[i].blen;
    if (nblk == 0 || nblk > RCH_RMA_PAT_BLK_MAX || reps == 0 || period == 0 || period > period_max ||
        reps > UINT32_MAX / period || reps * period < min || !ok(w, target))
        return RDMACH_AGAIN;
    unsigned char d[sizeof(struct rch_rma_pat) + RCH_RMA_PAT_BLK_MAX * sizeof(struct rch_rma_pblk)];
    struct rch_rma_pat q = { .reps = reps, .stride = stride, .period = (uint32_t)period, .nblk = (uint32_t)nblk };
    memcpy(d, &q, sizeof(q));
    for (size_t i = 0; i < nblk; i++) {
        struct rch_rma_pblk b = { .addr = blk[i].off, .blen = (uint32_t)blk[i].blen };
        memcpy(d + sizeof(q) + i * sizeof(b), &b, sizeof(b));
    }
    return w_send(w, target, rop, buf, (size_t)(reps * period), d, sizeof(q) + nblk * sizeof(struct rch_rma_pblk),
                  RCH_RMA_F_PAT, blk[0].off, c);
}

rdmach_status_t rch_dev_rma_w_segs(struct rch_dev_win *w, int target, unsigned rop, void *buf,
                                   const struct rch_dev_rma_seg *segs, size_t nseg, size_t min,
                                   rch_dev_rma_w_ok_fn ok, struct rch_dev_rma_cmpl *c)
{
    uint64_t total = 0;
    for (size_t i = 0; i < nseg; i++) {
        if (segs[i].blen == 0 || segs[i].blen > UINT32_MAX || segs[i].count > UINT32_MAX)
            return RDMACH_AGAIN;
        total += segs[i].blen * segs[i].count;
    }
    if (total < min || !ok(w, target))
        return RDMACH_AGAIN;
    size_t maxp = rch_dev_rma_max_payload(w, target), room = sizeof(struct rch_rma_where) + sizeof(struct rch_rma_vec);
    size_t per = maxp > room ? (maxp - room) / sizeof(struct rch_rma_seg) : 0;   /* segments a packet */
    if (per == 0)
        return RDMACH_AGAIN;
    unsigned char *at = buf;
    for (size_t i = 0; i < nseg;) {
        size_t n = 0, bytes = 0;
        while (i + n < nseg && n < per && bytes + segs[i + n].blen * segs[i + n].count <= UINT32_MAX) {
            bytes += segs[i + n].blen * segs[i + n].count;
            n++;
        }
        rdmach_status_t st = w_one(w, target, rop, at, bytes, segs + i, n, c);
        if (st != RDMACH_OK)
            return st;
        at += bytes;
        i += n;
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dev_rma_getw_pattern(struct rch_dev_win *w, int target, void *dst,
                                         const struct rch_dev_rma_pblock *blk, size_t nblk, uint64_t reps,
                                         int64_t stride, struct rch_dev_rma_cmpl *c)
{
    return rch_dev_rma_w_pattern(w, target, RCH_RMA_GETW, dst, blk, nblk, reps, stride, GETW_MIN, chunk_alone(),
                                 rch_dev_rma_getw_ok, c);
}

rdmach_status_t rch_dev_rma_getw(struct rch_dev_win *w, int target, void *dst, const struct rch_dev_rma_seg *segs,
                                 size_t nseg, struct rch_dev_rma_cmpl *c)
{
    return rch_dev_rma_w_segs(w, target, RCH_RMA_GETW, dst, segs, nseg, GETW_MIN, rch_dev_rma_getw_ok, c);
}

/* ---- target ---- */

static unsigned char *chunk_buf;              /* chunk_shared() bytes, as the spares */
/* Buffers of chunks the channel wrote after its call returned, kept for the
 * next ones (a buffer this large is mapped afresh by malloc each time). */
static unsigned char *spare[2];

static unsigned char *buf_get(void)
{
    for (int i = 0; i < 2; i++)
        if (spare[i]) {
            unsigned char *b = spare[i];
            spare[i] = NULL;
            return b;
        }
    return malloc(chunk_shared());
}

static void buf_put(unsigned char *b)
{
    for (int i = 0; i < 2 && b; i++)
        if (!spare[i]) {
            spare[i] = b;
            b = NULL;
        }
    free(b);
}

/* The blocks of a GETW or PUTW, and how far their pack (GETW) or scatter
 * (PUTW, rma_putw.c) is: block k of repetition i (F_PAT), or of segment i,
 * `part` bytes of it moved. */
struct rch_dev_rma_blocks {
    int pat;
    struct rch_rma_pat q;
    struct rch_rma_pblk b[RCH_RMA_PAT_BLK_MAX];
    unsigned char *mem[RCH_RMA_PAT_BLK_MAX];   /* F_PAT: block k of repetition 0, */
    size_t len[RCH_RMA_PAT_BLK_MAX];           /* and its bytes */
    uint32_t nseg;
    struct rch_rma_seg *segs;                  /* else: the segments, */
    unsigned char **smem;                      /* and where each starts */
    uint64_t i, k;
    size_t part, at;                           /* at: bytes out so far */
};

/* One GETW being answered: its RSP leaves when every chunk is written. */
struct getw_ans {
    struct rch_rma_hdr h;        /* the GETW */
    unsigned pending;            /* chunk writes not finished */
    int packed;                  /* every chunk handed to the channel */
    rdmach_status_t st;          /* the first failure */
    struct rch_dev_rma_blocks *fill;      /* answered by put_fill: the pack's state */
};

void rch_dev_rma_blocks_free(struct rch_dev_rma_blocks *f)
{
    if (f) {
        free(f->segs);
        free(f->smem);
        free(f);
    }
}

static void answer(struct getw_ans *a)
{
    struct rch_dev_win *w = rch_dev_rma_win_find(a->h.win);
    if (w && a->st != RDMACH_ERR_PEER_DEAD)     /* a dead origin: nobody to answer */
        rch_dev_rma_answer_rsp_flags(w, &a->h, a->st, NULL, 0, 0,
                                     w->t[a->h.src].getw < 0 ? RCH_RMA_F_NOWRITE : 0);
    rch_dev_rma_blocks_free(a->fill);
    free(a);
}

/* on_complete of a chunk's write. */
static void write_done(struct rch_dev_req *pub)
{
    struct rch_dev_ireq *r = (struct rch_dev_ireq *)pub;
    struct getw_ans *a = (struct getw_ans *)(uintptr_t)pub->user_word[0];
    if ((r->buf || pub->user_word[1]) && pub->err == RDMACH_ERR_PEER_DEAD)
        rch_dev_stat.rma_getw_lost++;
    buf_put(r->buf);                         /* a chunk written after the call returned */
    r->buf = NULL;
    if (pub->err != RDMACH_OK && a->st == RDMACH_OK)
        a->st = pub->err;
    if (--a->pending == 0 && a->packed)
        answer(a);
}

/* Write the chunk's `fill` bytes at the origin's raddr + *sent. INPROGRESS:
 * the channel shares a chunk of SHM_CMA_SPLIT bytes or more with the origin,
 * whose progress copies part of it while we pack the next into another
 * buffer; or the kernel refused single copy towards that rank (a ptrace
 * policy that lets the origin read us but not us write it) and the channel
 * writes by its pipeline, which the origin's progress drains. A smaller
 * chunk is never shared: INPROGRESS there is the refusal. The chunk's buffer
 * is the write's until it ends. */
static rdmach_status_t chunk_out(struct getw_ans *a, struct rch_dev_peer *p, struct rch_dev_win *w,
                                 const struct rch_rdma_rkey *key, uint64_t raddr, size_t fill, uint64_t *sent)
{
    struct rch_dev_ireq *r = rch_dev_rma_req(w, a->h.src, 0, NULL);
    if (r == NULL)
        return RDMACH_ERR_NO_MEMORY;
    r->pub.on_complete = write_done;
    r->pub.user_word[0] = (uint64_t)(uintptr_t)a;
    rch_dev_pending_add(p, r);               /* an origin that dies fails it */
    a->pending++;
    rdmach_status_t st = p->ops->put(p->chan, p->rank, chunk_buf, NULL, fill, key, raddr + *sent,
                                     (void *)(uintptr_t)rch_dev_ireq_id(r));
    *sent += fill;
    if (st != RDMACH_INPROGRESS) {
        rch_dev_ireq_finish(r, st);
        return st;
    }
    size_t split = rch_tun.shm_cma_split;
    if (split == 0 || fill < split)
        w->t[a->h.src].getw = -1;            /* told in the RSP: the origin sends GETV from now on */
    r->buf = chunk_buf;
    chunk_buf = buf_get();
    return chunk_buf ? RDMACH_OK : rch_base_err(RDMACH_ERR_NO_MEMORY, "one-sided get: no memory for a chunk");
}

/* One block: len bytes at blk, `part` of them moved already; moves what
 * fits in n (into buf, or with scatter out of it) and says whether the
 * block is done. */
static int fill_block(struct rch_dev_rma_blocks *f, unsigned char **buf, size_t *n, unsigned char *blk, size_t len,
                      int scatter)
{
    size_t c = len - f->part < *n ? len - f->part : *n;
    if (scatter)
        memcpy(blk + f->part, *buf, c);
    else
        memcpy(*buf, blk + f->part, c);
    *buf += c;
    *n -= c;
    f->part += c;
    if (f->part < len)
        return 0;
    f->part = 0;
    return 1;
}

/* Bytes [off, off + n) of the packed blocks into buf (pack) or from buf
 * into the blocks (scatter): whole runs of repetitions a column at a time
 * (rch_base_copy_cols), a block cut by the edge by pieces. The
 * channel asks in order. */
void rch_dev_rma_blocks_move(struct rch_dev_rma_blocks *f, unsigned char *buf, size_t off, size_t n, int scatter)
{
    if (off != f->at) {
        RCH_ERROR("rma", "GETW/PUTW: the channel moved byte %zu after %zu: left unmoved", off, f->at);
        return;
    }
    f->at += n;
    while (n > 0 && f->pat) {
        const struct rch_rma_pat *q = &f->q;
        if (f->i >= q->reps)
            return;
        uint64_t m = q->reps - f->i < n / q->period ? q->reps - f->i : n / q->period;
        if (f->k == 0 && f->part == 0 && m > 0) {
            unsigned char *col[RCH_RMA_PAT_BLK_MAX];
            for (uint32_t k = 0; k < q->nblk; k++)
                col[k] = f->mem[k] + (int64_t)f->i * q->stride;
            rch_base_copy_cols(buf, q->period, col, f->len, (int)q->nblk, q->stride, m, !scatter);
            buf += m * q->period;
            n -= m * q->period;
            f->i += m;
        } else if (fill_block(f, &buf, &n, f->mem[f->k] + (int64_t)f->i * q->stride, f->b[f->k].blen, scatter) &&
                   ++f->k == q->nblk) {
            f->k = 0;
            f->i++;
        }
    }
    while (n > 0 && !f->pat && f->i < f->nseg) {
        const struct rch_rma_seg *sg = &f->segs[f->i];
        if (f->k >= sg->count) {
            f->k = 0;
            f->i++;
            continue;
        }
        unsigned char *blk = f->smem[f->i] + (int64_t)f->k * sg->stride;
        uint64_t m = sg->count - f->k < n / sg->blen ? sg->count - f->k : n / sg->blen;
        if (f->part == 0 && m > 0) {
            if (scatter)
                rch_base_copy2d(blk, sg->stride, buf, sg->blen, m, sg->blen);
            else
                rch_base_copy2d(buf, sg->blen, blk, sg->stride, m, sg->blen);
            buf += m * sg->blen;
            n -= m * sg->blen;
            f->k += m;
        } else if (fill_block(f, &buf, &n, blk, sg->blen, scatter)) {
            f->k++;
        }
    }
}

/* put_fill's fill. The blocks are packed FILL_STAGE bytes at a time into
 * a buffer in L1 and copied from there into the channel's, whose lines the
 * origin's core read last: packed straight in, their small stores waited on
 * each line's transfer (vector get of 1 M ints 0.9-1.0 ms, against 0.37-0.40
 * ms staged). */
#define FILL_STAGE 8192
static void getw_fill(void *ctx, unsigned char *buf, size_t off, size_t n)
{
    _Alignas(64) unsigned char tmp[FILL_STAGE];
    for (size_t o = 0; o < n; o += FILL_STAGE) {
        size_t c = n - o < FILL_STAGE ? n - o : FILL_STAGE;
        rch_dev_rma_blocks_move(ctx, tmp, off + o, c, 0);
        memcpy(buf + o, tmp, c);
    }
}

/* The cursor over a GETW's or PUTW's blocks (payload: its description
 * after the where), each checked against the window and their bytes against
 * the packet's: the one packer of both GETW answers (put_fill and chunked
 * writes) and PUTW's scatter. */
rdmach_status_t rch_dev_rma_blocks_init(struct rch_dev_rma_blocks **out, const struct rch_rma_hdr *h,
                                        struct rch_dev_win *w, const unsigned char *payload)
{
    struct rch_dev_rma_blocks *f = calloc(1, sizeof(*f));
    if ((*out = f) == NULL)
        return RDMACH_ERR_NO_MEMORY;
    if (h->flags & RCH_RMA_F_PAT) {
        f->pat = 1;
        memcpy(&f->q, payload, sizeof(f->q));
        if (f->q.nblk == 0 || f->q.nblk > RCH_RMA_PAT_BLK_MAX)
            return RDMACH_ERR_INVALID_ARG;
        memcpy(f->b, payload + sizeof(f->q), f->q.nblk * sizeof(f->b[0]));
        uint64_t period = 0;
        for (uint32_t k = 0; k < f->q.nblk; k++)
            period += f->len[k] = f->b[k].blen;
        if (period != f->q.period || period == 0 || f->q.reps * period != h->elem ||
            rch_dev_rma_pat_mem(w, &f->q, f->b, f->mem) != RDMACH_OK)
            return RDMACH_ERR_INVALID_ARG;
        return RDMACH_OK;
    }
    struct rch_rma_vec v;
    memcpy(&v, payload, sizeof(v));
    f->nseg = v.nseg;
    f->segs = malloc((v.nseg ? v.nseg : 1) * sizeof(f->segs[0]));
    f->smem = malloc((v.nseg ? v.nseg : 1) * sizeof(f->smem[0]));
    if (f->segs == NULL || f->smem == NULL)
        return RDMACH_ERR_NO_MEMORY;
    memcpy(f->segs, payload + sizeof(v), v.nseg * sizeof(f->segs[0]));
    uint64_t total = 0;
    for (uint32_t i = 0; i < v.nseg; i++) {
        if (w->flavor == RCH_DEV_WIN_DYNAMIC || f->segs[i].blen == 0 ||
            (f->smem[i] = rch_dev_rma_seg_mem(w, &f->segs[i])) == NULL)
            return RDMACH_ERR_INVALID_ARG;
        total += (uint64_t)f->segs[i].blen * f->segs[i].count;
    }
    return total == h->elem ? RDMACH_OK : RDMACH_ERR_INVALID_ARG;
}

/* Answer the whole GETW by one put_fill: the pack goes straight into the
 * channel's buffers (the shared-memory pipeline's, in the origin's segment),
 * which the origin's progress copies into its buffer, the two copies
 * overlapped chunk by chunk on two cores; no chunk of ours, no single copy.
 * RDMACH_AGAIN: not this way (the chunked writes then), also when the
 * channel refuses the call (nothing packed yet). */
static rdmach_status_t answer_fill(struct getw_ans *a, struct rch_dev_peer *p, struct rch_dev_win *w,
                                   const struct rch_rdma_rkey *key, uint64_t raddr)
{
    if (!rch_tun.rma_getw_fill || p->ops->put_fill == NULL)
        return RDMACH_AGAIN;
    struct rch_dev_ireq *r = rch_dev_rma_req(w, a->h.src, 0, NULL);
    if (r == NULL)
        return RDMACH_AGAIN;
    r->pub.on_complete = write_done;
    r->pub.user_word[0] = (uint64_t)(uintptr_t)a;
    r->pub.user_word[1] = 1;                  /* a write of ours: counted if the origin dies */
    rch_dev_pending_add(p, r);                /* an origin that dies fails it */
    a->pending++;
    rdmach_status_t st = p->ops->put_fill(p->chan, p->rank, a->h.elem, key, raddr, getw_fill, a->fill,
                                          (void *)(uintptr_t)rch_dev_ireq_id(r));
    if (st == RDMACH_OK || st == RDMACH_INPROGRESS || st == RDMACH_ERR_PEER_DEAD) {
        if (st != RDMACH_INPROGRESS)
            rch_dev_ireq_finish(r, st);       /* done at once (ourselves), or the origin is gone */
        return RDMACH_OK;
    }
    /* refused at the call (no room in /dev/shm for the pipeline's buffers):
     * nothing was written, the chunked writes answer instead */
    r->pub.on_complete = NULL;
    rch_dev_ireq_finish(r, st);
    a->pending--;
    rch_dev_stat.rma_getw_refused++;
    return RDMACH_AGAIN;
}

/* Answer by chunks of our own, each packed by the same cursor and written
 * into the origin's buffer by the channel's put. */
static rdmach_status_t answer_chunks(struct getw_ans *a, struct rch_dev_peer *p, struct rch_dev_win *w,
                                     const struct rch_rdma_rkey *key, uint64_t raddr)
{
    if (!chunk_buf && !(chunk_buf = buf_get()))
        return RDMACH_ERR_NO_MEMORY;
    rdmach_status_t st = RDMACH_OK;
    uint64_t sent = 0;
    for (size_t cmax = chunk_alone(); sent < a->h.elem && st == RDMACH_OK; cmax = chunk_shared()) {
        size_t fill = a->h.elem - sent < cmax ? (size_t)(a->h.elem - sent) : cmax;
        rch_dev_rma_blocks_move(a->fill, chunk_buf, (size_t)sent, fill, 0);
        st = chunk_out(a, p, w, key, raddr, fill, &sent);
    }
    return st;
}

uint64_t rch_dev_rma_where(const unsigned char *payload, struct rch_rdma_rkey *key)
{
    struct rch_rma_where wh;
    memcpy(&wh, payload, sizeof(wh));
    memset(key, 0, sizeof(*key));
    key->len = wh.keylen;                /* at most RCH_RMA_KEY_MAX (rch_rma_check) */
    memcpy(key->bytes, wh.key, wh.keylen);
    return wh.raddr;
}

void rch_dev_rma_on_getw(struct rch_dev_peer *p, struct rch_dev_win *w, const struct rch_rma_hdr *h,
                         const unsigned char *payload)
{
    struct getw_ans *a = calloc(1, sizeof(*a));
    if (a == NULL) {
        rch_dev_rma_answer_rsp(w, h, RDMACH_ERR_NO_MEMORY, NULL, 0, 0);
        return;
    }
    a->h = *h;
    struct rch_rdma_rkey key;
    uint64_t raddr = rch_dev_rma_where(payload, &key);
    rdmach_status_t st = rch_dev_rma_blocks_init(&a->fill, h, w, payload + sizeof(struct rch_rma_where));
    if (st == RDMACH_OK && (st = answer_fill(a, p, w, &key, raddr)) == RDMACH_AGAIN)
        st = answer_chunks(a, p, w, &key, raddr);
    if (st != RDMACH_OK && a->st == RDMACH_OK)
        a->st = st;
    a->packed = 1;
    if (a->pending == 0)
        answer(a);
}
