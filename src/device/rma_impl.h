/*
 * Internals shared by the one-sided engine's files (rma_*.c); see rma.h.
 *
 * Device requests do three jobs for one-sided operations, all in state
 * RCH_DEV_S_RMA (dev_impl.h):
 *   - a packet queued in its peer's send queue (qop RCH_DEV_Q_RMA): header
 *     in ctl, payload at buf/len; send.c calls rch_dev_rma_sent() when it
 *     leaves;
 *   - an RDMA put/get in flight: its id is the channel's op_ctx, rndv.c hands
 *     its rma_done to rch_dev_rma_rdma_done();
 *   - an operation waiting for its RSP: the RSP names the request by id.
 * The fields of the request they use are renamed below.
 */
#ifndef RCH_DEVICE_RMA_IMPL_H
#define RCH_DEVICE_RMA_IMPL_H

#include <sched.h>
#include "device/cs.h"
#include "device/dev_impl.h"
#include "device/rma.h"
#include "device/rma_proto.h"

_Static_assert(RCH_RMA_ELEM_MAX == RCH_DEV_RMA_ELEM_MAX, "one element limit on the wire and in the API");

/* What an RMA request counts and waits for (rq_flags). */
enum {
    RMA_RQ_LOCAL  = 1 << 0,      /* counted in pend_local until it completes */
    RMA_RQ_REMOTE = 1 << 1,      /* counted in pend_remote until it completes */
    RMA_RQ_RSP    = 1 << 2,      /* completes when its RSP arrives (not when sent) */
    RMA_RQ_OWNED  = 1 << 3,      /* buf is a copy owned by the request: freed at the end */
    RMA_RQ_CMPL   = 1 << 4,      /* releases the rch_dev_rma_cmpl in rq_cmpl */
    RMA_RQ_DESC   = 1 << 5,      /* queued with a description too long for ctl: rq_result/rq_rlen hold a copy */
    RMA_RQ_MR     = 1 << 6,      /* GETW: rq_result is the registration of its buffer, undone at the end */
};

/* The longest description after a header (rch_dev_rma_send_qv): PUTP/ACCP's
 * with RCH_RMA_PAT_BLK_MAX blocks. */
#define RMA_DESC_MAX 320
_Static_assert(sizeof(struct rch_rma_pat) + RCH_RMA_PAT_BLK_MAX * sizeof(struct rch_rma_pblk) <= RMA_DESC_MAX,
               "a pattern's description fits");

/* The request fields, as the one-sided engine uses them. */
#define rq_target  hsrc          /* the target's (or origin's) rank in the window */
#define rq_flags   htag          /* RMA_RQ_* */
#define rq_result  raddr         /* RSP: where its payload goes */
#define rq_rlen    xfer          /* RSP: how many bytes it must carry */
static inline struct rch_dev_win *rq_win(const struct rch_dev_ireq *r)
{
    return (struct rch_dev_win *)r->pub.user;
}
static inline struct rch_dev_rma_cmpl *rq_cmpl(const struct rch_dev_ireq *r)
{
    return (struct rch_dev_rma_cmpl *)(uintptr_t)r->pub.user_word[1];
}

/* The accumulate lock: held only while an operation is applied (no
 * progress inside, except the single-copy read-modify-write of rma_ops.c).
 * The word is 0 when free, else its holder's world rank + 1: a waiter
 * (rma_acclock.c) spins, yields, and takes the lock over from a holder that
 * died holding it. One compare-and-swap when free, like a bare spin lock. */
void rch_dev_rma_acc_contended(struct rch_dev_win_ctrl *c);
static inline void rch_dev_rma_acc_lock(struct rch_dev_win_ctrl *c)
{
    uint32_t free_word = 0;
    if (RCH_UNLIKELY(!atomic_compare_exchange_strong_explicit(&c->acc, &free_word, (uint32_t)rch_dev.rank + 1,
                                                              memory_order_acquire, memory_order_relaxed)))
        rch_dev_rma_acc_contended(c);
}

static inline void rch_dev_rma_acc_unlock(struct rch_dev_win_ctrl *c)
{
    atomic_store_explicit(&c->acc, 0, memory_order_release);
}

/* ---- dynamic windows: the table of attached regions in the node segment ----
 * Its owner writes it under a sequence lock (seq odd while it changes);
 * node-local origins read it to reach attached memory by single-copy RDMA
 * without the owner's help. Full (more than RCH_DEV_WIN_DYN_MAX regions):
 * `overflow`, and origins fall back to packets. */
#define RCH_DEV_WIN_DYN_MAX 64
struct rch_dev_win_dynent {
    uint64_t base, len;
    uint32_t keylen;
    uint8_t key[RCH_RDMA_RKEY_MAX];
    uint32_t pad;
};
struct rch_dev_win_dyntab {
    _Atomic uint32_t seq;
    uint32_t n;
    uint32_t overflow;
    uint32_t pad[13];
    struct rch_dev_win_dynent e[RCH_DEV_WIN_DYN_MAX];
};
_Static_assert(sizeof(struct rch_dev_win_dyntab) % 64 == 0, "dynamic table keeps cache-line alignment");
/* Find the attached region holding [addr, addr + len) in a target's table:
 * 1 (key set), 0 (no region or run of regions attached back to back holds
 * it), -1 (use packets: the table overflowed, or it takes several regions). */
int rch_dev_rma_dyn_lookup(struct rch_dev_win_dyntab *tab, uint64_t addr, uint64_t len, struct rch_rdma_rkey *key);

/* ---- rma_win.c ---- */
struct rch_dev_win *rch_dev_rma_win_find(uint32_t id);
/* The largest payload of one packet to this target (0: unreachable). */
size_t rch_dev_rma_max_payload(const struct rch_dev_win *w, int target);
/* The memory of mine at `addr` (offset, or address for dynamic), `len`
 * bytes, or NULL if it is not inside my window. */
void *rch_dev_rma_local_addr(struct rch_dev_win *w, uint64_t addr, uint64_t len);

/* ---- rma_am.c ---- */
/* A request for an operation on `target` (flags RMA_RQ_*), counted in the
 * target's pend_* at once. NULL if out of memory (message set). */
struct rch_dev_ireq *rch_dev_rma_req(struct rch_dev_win *w, int target, int flags, struct rch_dev_rma_cmpl *c);
/* Send a packet (header filled but for the base) with `plen` payload bytes
 * to `target`. r: the operation's request, or NULL. If the channel has no
 * room the packet is queued behind the peer's other packets: the payload is
 * then copied into the request when it fits ctl, or with `copy` into memory
 * the request owns; otherwise it must stay valid until the request
 * completes. Returns OK (left, or queued) or an error (r then completed with it). */
rdmach_status_t rch_dev_rma_send(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                 size_t plen, int copy, struct rch_dev_ireq *r);
/* The same, for an origin's operation: a request made for queueing counts
 * as `qflags` (RMA_RQ_LOCAL: the payload is the origin's) in group c. */
rdmach_status_t rch_dev_rma_send_q(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                   size_t plen, int copy, struct rch_dev_ireq *r, int qflags,
                                   struct rch_dev_rma_cmpl *c);
/* The same with dlen bytes of `desc` after the header (at most
 * RMA_DESC_MAX, copied: the caller may reuse it at once; queued, in ctl
 * when it fits RCH_PKT_CTL_MAX with the header, else in memory of the
 * request's: not for RSP operations, whose rq_result holds their result)
 * and the payload after them, which is never copied when copy is 0 (a V or
 * P packet's data stays where the origin has it). */
rdmach_status_t rch_dev_rma_send_qv(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *desc,
                                    size_t dlen, const void *payload, size_t plen, int copy,
                                    struct rch_dev_ireq *r, int qflags, struct rch_dev_rma_cmpl *c);
/* A header for `target` with the fields every packet has. */
void rch_dev_rma_hdr(struct rch_dev_win *w, struct rch_rma_hdr *h, unsigned rop, size_t len, uint64_t addr);
/* Record the first error a target reported. */
void rch_dev_rma_note_error(struct rch_dev_win *w, int target, rdmach_status_t st, const char *what);
/* Apply an accumulate to my memory, under my accumulate lock. */
void rch_dev_rma_apply_acc(struct rch_dev_win_ctrl *ctrl, void *dst, const void *src, void *result, size_t len,
                           rch_dev_rma_kernel_fn fn, size_t elem);
void rch_dev_rma_apply_cas(struct rch_dev_win_ctrl *ctrl, void *dst, const void *cmp, const void *src,
                           void *result, size_t elem);
extern rch_dev_rma_resolve_fn rch_dev_rma_resolver;
/* The kernels of an accumulate packet's (aop, kind), its element size
 * checked against the header's; a protocol error naming the sender if this
 * rank has no such operation. */
rdmach_status_t rch_dev_rma_kernel_of(const struct rch_rma_hdr *h, struct rch_dev_rma_op *k);
/* The target's answers to an operation packet q: ACK (status), RSP (status,
 * n bytes of data; `copy`: the data is scratch, copy it if queued). */
void rch_dev_rma_answer_ack(struct rch_dev_win *w, const struct rch_rma_hdr *q, rdmach_status_t st);
void rch_dev_rma_answer_rsp(struct rch_dev_win *w, const struct rch_rma_hdr *q, rdmach_status_t st, const void *data,
                            size_t n, int copy);
/* The same with header flags (GETW's F_NOWRITE). */
void rch_dev_rma_answer_rsp_flags(struct rch_dev_win *w, const struct rch_rma_hdr *q, rdmach_status_t st,
                                  const void *data, size_t n, int copy, int flags);
/* The target side's scratch buffer (one packet is handled at a time), or NULL. */
void *rch_dev_rma_scratch(size_t n);

/* ---- rma_ops.c ---- */
/* An origin's packet answered by an ACK: counted in pend_remote until then. */
rdmach_status_t rch_dev_rma_send_acked(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                       size_t plen, int copy, struct rch_dev_rma_cmpl *c);
/* The same with a description after the header (rch_dev_rma_send_qv). */
rdmach_status_t rch_dev_rma_send_acked_v(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *desc,
                                         size_t dlen, const void *payload, size_t plen, int copy,
                                         struct rch_dev_rma_cmpl *c);
/* An origin's request-response packet (GET, GACC, CAS and V forms): rlen
 * bytes come back into result. */
rdmach_status_t rch_dev_rma_rsp_op(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                   size_t plen, int copy, void *result, size_t rlen, struct rch_dev_rma_cmpl *c);
/* The same for an operation r made already (rch_dev_rma_req with RMA_RQ_RSP). */
rdmach_status_t rch_dev_rma_rsp_send(struct rch_dev_win *w, int target, struct rch_rma_hdr *h, const void *payload,
                                     size_t plen, int copy, struct rch_dev_ireq *r);
/* Does the channel reach this node-local RDMA target by single copy (learnt
 * by a first 1-byte read)? */
int rch_dev_rma_single_copy(struct rch_dev_win *w, int target);

/* ---- rma_vec.c ---- */
/* Target side of PUTV, GETV, ACCV, GACCV (validated by rch_rma_check). */
void rch_dev_rma_on_vec(struct rch_dev_win *w, const struct rch_rma_hdr *h, const unsigned char *payload);
/* Where segment s's first block is in my memory, after checking that all
 * its blocks are in my window; NULL if one is not. */
unsigned char *rch_dev_rma_seg_mem(struct rch_dev_win *w, const struct rch_rma_seg *s);

/* ---- rma_getw.c ---- */
/* Origin: a GET of segments by GETW (node-local single copy), or AGAIN. */
rdmach_status_t rch_dev_rma_getw(struct rch_dev_win *w, int target, void *dst, const struct rch_dev_rma_seg *segs,
                                 size_t nseg, struct rch_dev_rma_cmpl *c);
/* Target side of GETW (validated by rch_rma_check). */
void rch_dev_rma_on_getw(struct rch_dev_peer *p, struct rch_dev_win *w, const struct rch_rma_hdr *h,
                         const unsigned char *payload);

/* Both directions of GETW/PUTW at the origin: `buf` (the result, or the
 * packed data) registered and the blocks' description sent to the target,
 * as segments (cut to packets) or as blocks that repeat; AGAIN when fewer
 * than min bytes, a pattern's period is over period_max, or ok(w, target)
 * says no (asked last: GETW's probes the channel). */
typedef int (*rch_dev_rma_w_ok_fn)(struct rch_dev_win *w, int target);
rdmach_status_t rch_dev_rma_w_segs(struct rch_dev_win *w, int target, unsigned rop, void *buf,
                                   const struct rch_dev_rma_seg *segs, size_t nseg, size_t min,
                                   rch_dev_rma_w_ok_fn ok, struct rch_dev_rma_cmpl *c);
rdmach_status_t rch_dev_rma_w_pattern(struct rch_dev_win *w, int target, unsigned rop, void *buf,
                                      const struct rch_dev_rma_pblock *blk, size_t nblk, uint64_t reps,
                                      int64_t stride, size_t min, size_t period_max, rch_dev_rma_w_ok_fn ok,
                                      struct rch_dev_rma_cmpl *c);
/* The blocks of a GETW or PUTW (its description after the where, checked
 * against my window and the packet's byte count: INVALID_ARG if a block is
 * outside it; *out set either way, for rch_dev_rma_blocks_free) and a cursor
 * over their packed bytes: rch_dev_rma_blocks_move moves bytes [off, off + n)
 * from the blocks into buf (pack) or, with scatter, from buf into them (buf
 * only read then), in increasing off with no gap. */
struct rch_dev_rma_blocks;
/* A GETW's or PUTW's where (payload's start): the origin's address, its key. */
uint64_t rch_dev_rma_where(const unsigned char *payload, struct rch_rdma_rkey *key);
rdmach_status_t rch_dev_rma_blocks_init(struct rch_dev_rma_blocks **out, const struct rch_rma_hdr *h,
                                        struct rch_dev_win *w, const unsigned char *desc);
void rch_dev_rma_blocks_move(struct rch_dev_rma_blocks *f, unsigned char *buf, size_t off, size_t n, int scatter);
void rch_dev_rma_blocks_free(struct rch_dev_rma_blocks *f);

/* ---- rma_putw.c ---- */
/* Origin: a PUT of segments, or of blocks that repeat, by PUTW (a rank of
 * this node reading the packed data at src through its channel's
 * get_drain), or AGAIN. */
rdmach_status_t rch_dev_rma_putw(struct rch_dev_win *w, int target, const void *src,
                                 const struct rch_dev_rma_seg *segs, size_t nseg, struct rch_dev_rma_cmpl *c);
rdmach_status_t rch_dev_rma_putw_pattern(struct rch_dev_win *w, int target, const void *src,
                                         const struct rch_dev_rma_pblock *blk, size_t nblk, uint64_t reps,
                                         int64_t stride, struct rch_dev_rma_cmpl *c);
/* Target side of PUTW (validated by rch_rma_check). */
void rch_dev_rma_on_putw(struct rch_dev_peer *p, struct rch_dev_win *w, const struct rch_rma_hdr *h,
                         const unsigned char *payload);

/* ---- rma_pat.c ---- */
/* Target side of PUTP, ACCP (validated by rch_rma_check). */
void rch_dev_rma_on_pat(struct rch_dev_win *w, const struct rch_rma_hdr *h, const unsigned char *payload);
/* Where each of a pattern's blocks is in my memory (mem[k]: repetition 0),
 * after checking every repetition against my window: OK or INVALID_ARG. */
rdmach_status_t rch_dev_rma_pat_mem(struct rch_dev_win *w, const struct rch_rma_pat *q, const struct rch_rma_pblk *b,
                                    unsigned char **mem);

/* ---- rma_sync.c ---- */
/* Try to take a lock word; 1 if taken. */
int rch_dev_rma_trylock(struct rch_dev_win_ctrl *c, int exclusive);
/* Release it; KICK the owner (window rank) if it has LOCK packets queued. */
void rch_dev_rma_unlock_word(struct rch_dev_win *w, int owner, struct rch_dev_win_ctrl *c, int exclusive);
/* Target side of LOCK / UNLOCK / KICK packets. */
void rch_dev_rma_on_lock(struct rch_dev_win *w, int origin, int exclusive);
void rch_dev_rma_on_unlock(struct rch_dev_win *w, int origin, int exclusive);
void rch_dev_rma_grant_waiting(struct rch_dev_win *w);
/* Spin (with progress) until done(arg): for conditions no channel signals. */
void rch_dev_rma_spin_until(int (*done)(void *), void *arg);
/* Free the LOCK requests still queued (window freed). */
void rch_dev_rma_lockq_free(struct rch_dev_win *w);

#endif
