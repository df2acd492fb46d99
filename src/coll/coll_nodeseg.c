/*
 * The node segment of the shmseg collectives (see nodeseg.h for the phase
 * protocol): made at a communicator's first shmseg call with the life
 * cycle of the barriers' segments (barrier_seg.c: the node's leader
 * creates it, the others map it, it is unlinked once all have mapped it),
 * waited on with their policy (poll, yield, sleep in the device).
 *
 * Ownership: the communicator's collective state (struct rch_coll_cstate,
 * field nodeseg) holds it; rch_coll_comm_free releases it. Only blocking
 * collectives use it, and none runs on a communicator being freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "coll/nbc_impl.h"
#include "coll/nodeseg.h"
#include "device/cs.h"

size_t rch_coll_nodeseg_slot(int p)
{
    size_t pp = (size_t)(p > 0 ? p : 1);
    size_t s = RCH_NODESEG_BUDGET / (2 * pp * pp);
    s &= ~(size_t)(RCH_CACHELINE - 1);
    if (s < RCH_NODESEG_SLOT_MIN)
        s = RCH_NODESEG_SLOT_MIN;
    if (s > RCH_NODESEG_SLOT_MAX)
        s = RCH_NODESEG_SLOT_MAX;
    return s;
}

/* Not at MPI_THREAD_MULTIPLE: the segment's phase state is per
 * communicator, and programs do call one collective on one communicator from
 * several threads at once (OMB 7.4's osu_latency_mt validates with
 * MPI_Allreduce from every thread). MPI leaves that ordering to the program,
 * but the point-to-point algorithms tolerate it when every thread of a rank
 * passes the same kind of call, the segment would deadlock. (Every process
 * of a job is expected to ask for the same thread level.) */
int rch_coll_nodeseg_usable(const struct rch_coll_comm *c)
{
    int nodes = c->nnodes > 0 && c->node_of ? c->nnodes : 1;
    return !rch_dev_cs_on && c->state && nodes == 1 && !(c->state->nodeseg && c->state->nodeseg->failed);
}

int rch_coll_shmseg_applies(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    (void)a;
    return c->size == 1 || rch_coll_nodeseg_usable(c);
}

/* Map (or create) the segment; local status, agreed on by the caller. */
static rdmach_status_t setup(struct rch_coll_nodeseg *s, const struct rch_coll_comm *c)
{
    struct rch_coll_bar_nodes n;
    rdmach_status_t st = rch_coll_bar_nodes_init(&n, c);
    if (st != RDMACH_OK)
        return st;
    if (n.nlocal != c->size) {   /* usable() said one node: a layout we do not understand */
        rch_coll_bar_nodes_free(&n);
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shmseg: %d of the %d ranks are on my node",
                            n.nlocal, c->size);
    }
    size_t p = (size_t)c->size;
    size_t hdr = 2 * p * sizeof(struct rch_coll_nodeseg_hdr);
    size_t data = 2 * p * s->row;
    st = rch_coll_bar_waiter_init_node(&s->waiter, c, &n);
    if (st == RDMACH_OK) {
        st = rch_coll_bar_seg_setup(&s->seg, c, &n, hdr + data, "shmseg");
        if (st != RDMACH_OK)
            rch_coll_bar_waiter_free(&s->waiter);
    }
    rch_coll_bar_nodes_free(&n);
    if (st != RDMACH_OK)
        return st;
    unsigned char *base = s->seg.base;     /* zero-filled: every epoch 0, every core unknown */
    s->hdr = (struct rch_coll_nodeseg_hdr *)base;
    s->data = base + hdr;
    /* read by the others from the first phase on; the agreement after
     * set-up (messages) orders this store before it */
    for (int b = 0; b < 2; b++)
        rch_coll_nodeseg_hdr(s, b, s->me)->core1 = s->waiter.core1;
    return RDMACH_OK;
}

rdmach_status_t rch_coll_nodeseg_get(const struct rch_coll_comm *c, struct rch_coll_nodeseg **out)
{
    struct rch_coll_cstate *cs = c->state;
    *out = NULL;
    if (RCH_UNLIKELY(!cs))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shmseg: the communicator view has no state");
    if (RCH_LIKELY(cs->nodeseg)) {
        *out = cs->nodeseg->failed ? NULL : cs->nodeseg;
        /* queued persistent runs take their phases first */
        return *out && RCH_UNLIKELY((*out)->pq_head != NULL) ? rch_coll_pshm_drain(*out) : RDMACH_OK;
    }
    struct rch_coll_nodeseg *s = calloc(1, sizeof(*s));
    if (!s)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "shmseg: no memory for the node segment's state");
    s->p = c->size;
    s->me = c->rank;
    s->slot = rch_coll_nodeseg_slot(c->size);
    s->row = (size_t)c->size * s->slot;
    /* all at once where ranks outnumber cores (the node's, or this
     * communicator's alone): the same on every rank of the node */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    s->all = rch_coll_bar_oversubscribed() || c->size > (cores > 0 ? cores : 1);
    rdmach_status_t mine = setup(s, c);
    char cause[256];
    snprintf(cause, sizeof(cause), "%s", mine != RDMACH_OK ? rdmach_last_error() : "");
    int32_t all = RDMACH_OK;
    rdmach_status_t st = rch_coll_agree_min(c, mine, &all);
    if (st != RDMACH_OK) {
        if (mine == RDMACH_OK)
            rch_coll_nodeseg_free(s);
        else
            free(s);
        return st;
    }
    if (all != RDMACH_OK) {
        if (mine == RDMACH_OK) {
            rch_coll_bar_seg_release(&s->seg);
            rch_coll_bar_waiter_free(&s->waiter);
            RCH_DEBUG("coll", "shmseg: the node segment failed on another rank (%s); "
                      "this communicator uses the other algorithms",
                      rdmach_strerror((rdmach_status_t)all));
        } else {
            RCH_WARN("coll", "shmseg: no node segment (%s); this communicator uses the other "
                     "algorithms", cause);
        }
        memset(s, 0, sizeof(*s));
        s->failed = 1;
        cs->nodeseg = s;
        return RDMACH_OK;
    }
    RCH_DEBUG("coll", "shmseg: node segment of %d ranks (ctx %u), %zu bytes per rank pair",
              c->size, (unsigned)c->ctx, s->slot);
    cs->nodeseg = s;
    *out = s;
    return RDMACH_OK;
}

static size_t arow_for(int p, size_t budget)
{
    size_t pp = (size_t)(p > 0 ? p : 1);
    size_t a = budget / (2 * (pp + 1));
    a &= ~(size_t)(RCH_CACHELINE - 1);
    if (a > RCH_NODESEG_AROW_MAX)
        a = RCH_NODESEG_AROW_MAX;
    size_t row = pp * rch_coll_nodeseg_slot(p);
    return a < row ? row : a;
}

size_t rch_coll_nodeseg_arow_size(int p)
{
    return arow_for(p, RCH_NODESEG_BIG_BUDGET);
}

/* One line more than alltoall's rows: a stride of a large power of two (256
 * KiB, the cap) put the rows of the other collectives at the same cache
 * sets (an 8-rank allgather of 64 KiB 85 -> 99-111 us, 88-90 with the
 * line; AMD EPYC Zen 4). */
size_t rch_coll_nodeseg_astride_size(int p)
{
    size_t a = arow_for(p, RCH_NODESEG_A2A_BUDGET), r = rch_coll_nodeseg_arow_size(p);
    return a <= r ? r : a + RCH_CACHELINE;
}

/* Map (or create) the large area; local status, agreed on by the caller. */
static rdmach_status_t setup_big(struct rch_coll_nodeseg *s, const struct rch_coll_comm *c)
{
    struct rch_coll_bar_nodes n;
    rdmach_status_t st = rch_coll_bar_nodes_init(&n, c);
    if (st != RDMACH_OK)
        return st;
    st = rch_coll_bar_seg_setup(&s->bigseg, c, &n, 2 * (size_t)(s->p + 1) * s->astride, "shmseg-big");
    rch_coll_bar_nodes_free(&n);
    if (st == RDMACH_OK)
        s->big = s->bigseg.base;
    return st;
}

rdmach_status_t rch_coll_nodeseg_big(const struct rch_coll_comm *c, struct rch_coll_nodeseg *s, int *ok)
{
    *ok = s->big_state > 0;
    if (s->big_state)
        return RDMACH_OK;
    s->arow = rch_coll_nodeseg_arow_size(s->p);
    s->astride = rch_coll_nodeseg_astride_size(s->p);
    rdmach_status_t mine = setup_big(s, c);
    char cause[256];
    snprintf(cause, sizeof(cause), "%s", mine != RDMACH_OK ? rdmach_last_error() : "");
    int32_t all = RDMACH_OK;
    rdmach_status_t st = rch_coll_agree_min(c, mine, &all);
    if (st == RDMACH_OK && all == RDMACH_OK) {
        s->big_state = 1;
        *ok = 1;
        RCH_DEBUG("coll", "shmseg: large area of %d ranks (ctx %u), %zu bytes per row", c->size,
                  (unsigned)c->ctx, s->arow);
        return RDMACH_OK;
    }
    if (mine == RDMACH_OK) {
        rch_coll_bar_seg_release(&s->bigseg);
        s->big = NULL;
    }
    if (st != RDMACH_OK)
        return st;
    if (mine != RDMACH_OK)
        RCH_WARN("coll", "shmseg: no large area (%s); this communicator's large allreduces use "
                 "the message-based algorithms", cause);
    s->big_state = -1;
    return RDMACH_OK;
}

/* The segment and its large area, or NULL when they could not be made on
 * some rank (agreed: then the message-based algorithm runs). */
rdmach_status_t rch_coll_nodeseg_big_get(const struct rch_coll_comm *c, struct rch_coll_nodeseg **out)
{
    int ok = 0;
    rdmach_status_t st = rch_coll_nodeseg_get(c, out);
    if (st == RDMACH_OK && *out)
        st = rch_coll_nodeseg_big(c, *out, &ok);
    if (st != RDMACH_OK || !ok)
        *out = NULL;
    return st;
}

void rch_coll_nodeseg_reduce_rows(const struct rch_coll_nodeseg *s, int parity, size_t off, size_t n,
                                  void *acc, const struct rch_coll_op *op)
{
    rch_coll_nodeseg_copy(s, acc, rch_coll_nodeseg_arow(s, parity, s->p - 1) + off, n * op->elem_size);
    for (int r = s->p - 2; r >= 0; r--)
        op->fn(rch_coll_nodeseg_arow(s, parity, r) + off, acc, n, op->arg);
}

rdmach_status_t rch_coll_nodeseg_sync(struct rch_coll_nodeseg *s)
{
    uint32_t next = s->phase + 1;
    int b = rch_coll_nodeseg_parity(s);
    struct rch_coll_nodeseg_hdr *h = rch_coll_nodeseg_hdr(s, b, s->me);
    struct rch_coll_nodeseg_hdr *h0 = rch_coll_nodeseg_hdr(s, b, 0);
    s->phase = next;
    if (RCH_UNLIKELY(s->rec != NULL)) {
        s->rec->sync();
        return RDMACH_OK;
    }
    if (s->all) {
        /* seq_cst: my row and header (written before) go with my arrival */
        rch_coll_bar_arrive_all(&s->waiter, &h->epoch, &h0->epoch, sizeof(*h), s->p, next);
        return rch_coll_bar_wait_all(&s->waiter, &h0->epoch, &h0->core1, sizeof(*h), s->p, next);
    }
    rch_coll_bar_post(&s->waiter, &h->epoch, next, -1);   /* row and header go with it */
    for (int i = 1; i < s->p; i++) {
        int r = (s->me + i) % s->p;
        rdmach_status_t st = rch_coll_bar_wait_epoch(&s->waiter, &rch_coll_nodeseg_hdr(s, b, r)->epoch, next);
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

rdmach_status_t rch_coll_nodeseg_phase(struct rch_coll_nodeseg *s, enum rch_coll_id coll, uint32_t elem,
                                       uint64_t size, int first, const char *what)
{
    int b = rch_coll_nodeseg_parity(s);
    struct rch_coll_nodeseg_hdr *h = rch_coll_nodeseg_hdr(s, b, s->me);
    h->coll = coll;
    h->elem = elem;
    h->size = size;
    rdmach_status_t st = rch_coll_nodeseg_sync(s);
    if (st == RDMACH_OK && first)
        st = rch_coll_nodeseg_check(s, b, what);
    return st;
}

rdmach_status_t rch_coll_nodeseg_check(const struct rch_coll_nodeseg *s, int parity, const char *what)
{
    const struct rch_coll_nodeseg_hdr *mine = rch_coll_nodeseg_hdr(s, parity, s->me);
    if (s->rec)    /* recorded one rank at a time: the others' headers are not written */
        return RDMACH_OK;
    for (int r = 0; r < s->p; r++) {
        const struct rch_coll_nodeseg_hdr *h = rch_coll_nodeseg_hdr(s, parity, r);
        if (h->coll == mine->coll && h->elem == mine->elem && h->size == mine->size)
            continue;
        if (h->coll != mine->coll)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: rank %d called %s at the same time "
                                "(collectives called in a different order on different ranks)",
                                what, r, rch_coll_name((enum rch_coll_id)h->coll));
        if ((h->elem == RCH_NODESEG_ELEM_AGREE) != (mine->elem == RCH_NODESEG_ELEM_AGREE))
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: rank %d and rank %d are at different "
                                "calls (block sizes or collectives differ between ranks)", what, r,
                                s->me);
        if (h->elem != mine->elem)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: rank %d reduces elements of %u bytes, "
                                "rank %d of %u (datatypes differ between ranks)", what, r,
                                (unsigned)h->elem, s->me, (unsigned)mine->elem);
        return rch_base_err(h->size > mine->size ? RDMACH_ERR_TRUNCATE : RDMACH_ERR_INVALID_ARG,
                            "%s: rank %d sends %llu %s, rank %d expects %llu (counts or datatypes "
                            "differ between ranks)", what, r, (unsigned long long)h->size,
                            mine->elem ? "elements" : "bytes per block", s->me,
                            (unsigned long long)mine->size);
    }
    return RDMACH_OK;
}

void rch_coll_nodeseg_free(struct rch_coll_nodeseg *s)
{
    if (!s)
        return;
    if (!s->failed) {
        if (s->big_state > 0)
            rch_coll_bar_seg_release(&s->bigseg);
        rch_coll_bar_seg_release(&s->seg);
        rch_coll_bar_waiter_free(&s->waiter);
    }
    rch_coll_adapt_free(s->adapt);
    free(s);
}
