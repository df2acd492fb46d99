/*
 * Puts written by the target (PUTW; rma_proto.h): a put of a derived target
 * datatype, at least RDMACH_RMA_PUTW_FROM bytes, to a rank of this node
 * whose window memory is not mapped here (MPI_Win_create), over a channel
 * with get_drain (shared memory). GETW (rma_getw.c) the other way round.
 *
 *   origin                                  target
 *   register the packed data (remote read)
 *   PUTW {where: addr, key; blocks}  ----->  check every block against the
 *                                            window (refused: RSP error,
 *                                            nothing written)
 *                                            get_drain(origin's range)
 *   progress: copy chunk k into the   <----  GETREQ (shm_pipe.c)
 *   pipeline buffer in the target's
 *   segment                           ----->  progress: scatter chunk k into
 *                                            the window (putw_drain), while
 *                                            the origin copies chunk k + 1
 *   RSP: the request ends, the data   <----  RSP (no data) after the last
 *   is unregistered                          chunk
 *
 * What it replaces: PUTV/PUTP packets, which the origin copies into its
 * eager ring (4 MiB) and the target scatters out of it. Here the pipeline's
 * 4 x 64 KiB buffers stay in cache and the two copies overlap chunk by
 * chunk on two cores, as for a get (the sink stores into each line of a
 * buffer it drained, rch_base_claim_lines in shm_pipe.c, so the source's
 * next copy does not upgrade shared lines). The origin's data is read
 * where it is: the MPI layer packs a non-contiguous origin buffer first
 * (as for the V packets).
 *
 * Completion: the origin's request counts in pend_local and pend_remote
 * until the RSP, which leaves when every byte is in the window; it holds
 * the registration (RMA_RQ_MR), undone when it ends. A target that dies
 * fails it (the peer's pending list): the epoch's call returns the error.
 * An origin that dies fails the drain with PEER_DEAD (the shared-memory
 * channel fails every pipeline op it holds for that peer before the device
 * hears peer_failed, rch_shm_pipe_fail_peer): the target frees the cursor
 * after the channel's rma_done, after which no drain call comes, and
 * answers nobody; MPI_T rma_putw_reads_lost counts such reads.
 *
 * get_drain refused at the call (an op table without room, a peer the
 * channel cannot reach): the target reads the whole range by the
 * channel's get into a buffer and scatters it when it is in (MPI_T
 * rma_putw_fetched); the origin cannot take the PUTW back into V packets
 * once it left. So before its first PUTW to a target of a window, the
 * origin asks its channel whether that read could be served (drain_ready:
 * on shared memory its pipe buffers in the target's segment, reserved then,
 * or single copy, by which the target reads what the origin cannot copy
 * into a pipe): if not (/dev/shm full and single copy not permitted), its
 * puts to that target go as V/P packets from then on (MPI_T
 * rma_putw_unready), which need only the ring. A read refused all the same
 * fails the put with its cause.
 */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "device/rma_impl.h"
#include "device/stats.h"

/* ---- origin ---- */

/* The target could read our data now (the channel's drain_ready: on shared
 * memory, our pipe buffers in its segment, or single copy): else, and from
 * then on for this window, the put goes as V/P packets, which need
 * nothing more than the ring, rather than fail at the target's read. */
static int putw_ready(struct rch_dev_win_target *t, struct rch_dev_peer *p)
{
    if (t->putw < 0)
        return 0;
    if (p->ops->drain_ready == NULL || t->putw > 0)
        return 1;
    rdmach_status_t st = p->ops->drain_ready(p->chan, p->rank);
    if (st != RDMACH_OK) {
        RCH_INFO("rma", "puts of derived datatypes to rank %d go as packets: it cannot read them (%s)", p->rank,
                 rdmach_last_error());
        rch_dev_stat.rma_putw_unready++;
    }
    t->putw = st == RDMACH_OK ? 1 : -1;
    return t->putw > 0;
}

static int putw_ok(struct rch_dev_win *w, int target)
{
    struct rch_dev_win_target *t = &w->t[target];
    struct rch_dev_peer *p = &rch_dev.peers[t->world];
    return w->flavor != RCH_DEV_WIN_DYNAMIC && t->path == RCH_DEV_WIN_RDMA && t->ctrl && !p->dead &&
           p->ops->get_drain && p->ops->mem_reg && p->ops->mem_rkey && putw_ready(t, p);
}

rdmach_status_t rch_dev_rma_putw(struct rch_dev_win *w, int target, const void *src,
                                 const struct rch_dev_rma_seg *segs, size_t nseg, struct rch_dev_rma_cmpl *c)
{
    if (rch_tun.rma_putw_from == 0)
        return RDMACH_AGAIN;
    return rch_dev_rma_w_segs(w, target, RCH_RMA_PUTW, (void *)src, segs, nseg, rch_tun.rma_putw_from, putw_ok, c);
}

rdmach_status_t rch_dev_rma_putw_pattern(struct rch_dev_win *w, int target, const void *src,
                                         const struct rch_dev_rma_pblock *blk, size_t nblk, uint64_t reps,
                                         int64_t stride, struct rch_dev_rma_cmpl *c)
{
    if (rch_tun.rma_putw_from == 0)
        return RDMACH_AGAIN;
    return rch_dev_rma_w_pattern(w, target, RCH_RMA_PUTW, (void *)src, blk, nblk, reps, stride,
                                 rch_tun.rma_putw_from, UINT32_MAX, putw_ok, c);
}

/* ---- target ---- */

/* One PUTW being applied: its RSP leaves when its read has ended. */
struct putw_recv {
    struct rch_rma_hdr h;             /* the PUTW */
    struct rch_dev_rma_blocks *blk;   /* where its bytes go, and how far */
    unsigned char *whole;             /* read whole (get_drain refused at the call): the data */
};

/* get_drain's drain: a chunk of the origin's data into the blocks (blocks
 * that repeat a column at a time, rch_base_copy_cols). */
static void putw_drain(void *ctx, size_t off, const unsigned char *buf, size_t n)
{
    rch_dev_rma_blocks_move(ctx, (unsigned char *)buf, off, n, 1);
}

static void putw_answer(struct putw_recv *a, rdmach_status_t st)
{
    struct rch_dev_win *w = rch_dev_rma_win_find(a->h.win);
    if (w && st != RDMACH_ERR_PEER_DEAD)      /* a dead origin: nobody to answer */
        rch_dev_rma_answer_rsp(w, &a->h, st, NULL, 0, 0);
    rch_dev_rma_blocks_free(a->blk);
    free(a->whole);
    free(a);
}

/* on_complete of the read (the channel's rma_done: no drain call after it). */
static void read_done(struct rch_dev_req *pub)
{
    struct putw_recv *a = (struct putw_recv *)(uintptr_t)pub->user_word[0];
    rdmach_status_t st = pub->err;
    if (st == RDMACH_ERR_PEER_DEAD && pub->user_word[1])
        rch_dev_stat.rma_putw_lost++;
    if (st == RDMACH_OK && a->whole)
        rch_dev_rma_blocks_move(a->blk, a->whole, 0, a->h.elem, 1);
    putw_answer(a, st);
}

/* The read of the origin's range: drained into the blocks as it comes, or
 * (whole != NULL) into that buffer. OK: started (read_done answers);
 * otherwise refused at the call, nothing read. */
static rdmach_status_t read_start(struct putw_recv *a, struct rch_dev_peer *p, struct rch_dev_win *w,
                                  const struct rch_rdma_rkey *key, uint64_t raddr)
{
    struct rch_dev_ireq *r = rch_dev_rma_req(w, a->h.src, 0, NULL);
    if (r == NULL)
        return RDMACH_ERR_NO_MEMORY;
    r->pub.on_complete = read_done;
    r->pub.user_word[0] = (uint64_t)(uintptr_t)a;
    r->pub.user_word[1] = 1;                  /* a read of ours: counted if the origin dies */
    rch_dev_pending_add(p, r);                /* an origin that dies fails it */
    void *id = (void *)(uintptr_t)rch_dev_ireq_id(r);
    rdmach_status_t st = a->whole ? p->ops->get(p->chan, p->rank, a->whole, NULL, a->h.elem, key, raddr, id)
                                  : p->ops->get_drain(p->chan, p->rank, a->h.elem, key, raddr, putw_drain, a->blk, id);
    if (st == RDMACH_INPROGRESS)
        return RDMACH_OK;
    if (st == RDMACH_OK || st == RDMACH_ERR_PEER_DEAD) {
        rch_dev_ireq_finish(r, st);           /* done at once (ourselves), or the origin is gone */
        return RDMACH_OK;
    }
    r->pub.on_complete = NULL;                /* refused at the call: nothing read */
    rch_dev_ireq_finish(r, st);
    return st;
}

void rch_dev_rma_on_putw(struct rch_dev_peer *p, struct rch_dev_win *w, const struct rch_rma_hdr *h,
                         const unsigned char *payload)
{
    struct putw_recv *a = calloc(1, sizeof(*a));
    if (a == NULL) {
        rch_dev_rma_answer_rsp(w, h, RDMACH_ERR_NO_MEMORY, NULL, 0, 0);
        return;
    }
    a->h = *h;
    struct rch_rdma_rkey key;
    uint64_t raddr = rch_dev_rma_where(payload, &key);
    rdmach_status_t st = rch_dev_rma_blocks_init(&a->blk, h, w, payload + sizeof(struct rch_rma_where));
    if (st == RDMACH_OK && p->ops->get_drain == NULL)
        st = rch_base_err(RDMACH_ERR_UNSUPPORTED, "PUTW from rank %d: this rank's channel to it has no get_drain",
                          h->src);
    if (st == RDMACH_OK && (st = read_start(a, p, w, &key, raddr)) != RDMACH_OK &&
        st != RDMACH_ERR_INVALID_ARG) {
        RCH_INFO("rma", "PUTW from rank %d: the channel refused a pipelined read (%s): read whole",
                 h->src, rdmach_last_error());
        rch_dev_stat.rma_putw_fetched++;
        a->whole = malloc(h->elem ? h->elem : 1);
        st = a->whole ? read_start(a, p, w, &key, raddr) : RDMACH_ERR_NO_MEMORY;
    }
    if (st != RDMACH_OK)
        putw_answer(a, st);
}
