/*
 * A persistent allreduce through the node segment (MPI_Allreduce_init on a
 * one-node communicator, a vector of at most RCH_NODESEG_INLINE bytes): the
 * "shmseg" algorithm of allreduce_shmseg.c split at its synchronisation, so
 * that a start never waits.
 *
 *   start:     queue the run on the communicator's segment
 *   progress:  the run at the head of the queue deposits its vector in its
 *              header line and arrives (the phase advances); once every
 *              rank's header of that parity has arrived, it reduces them in
 *              rank order into rbuf (the same bits on every rank), completes
 *              its request and leaves the queue; the next run goes on.
 *
 * Why a queue per segment: a rank may write parity b again (phase k + 2)
 * only after everyone has passed phase k + 1, and arriving at k + 1 tells
 * the others this rank is done reading phase k. So runs arrive one after
 * the other, each only after the previous one has read its phase, and a
 * blocking shmseg collective on the communicator first finishes the queued
 * runs (rch_coll_nodeseg_get drains it: every rank started them before it
 * entered that collective, so the wait needs nothing more from anyone). The
 * runs of different communicators' segments do not wait for each other.
 *
 * Making the segment is a collective set-up, which neither an init call nor
 * a start may wait for: the first blocking shmseg collective on the
 * communicator makes it. A request built before that is made all the same
 * and asks, at each start, whether the segment exists yet
 * (rch_coll_pshm_ready); until it does the caller runs its message
 * schedule. Whether it exists is the same on every rank at the same point
 * of the communicator's collective order (a start is in that order), so
 * every rank chooses alike, start by start.
 *
 * Cost per run: one node-wide synchronisation, as the blocking form.
 */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "coll/nbc_impl.h"
#include "coll/nodeseg.h"

struct rch_coll_pshm {
    struct rch_coll_cstate *cs;        /* referenced */
    const unsigned char *sbuf;
    unsigned char *rbuf;
    size_t count;
    struct rch_coll_op op;
    struct rch_dev_req *req;           /* the running start's; NULL when idle */
    int arrived;                       /* deposited and arrived at `target` */
    int parity;
    uint32_t target;
    int orphan;                        /* freed while running: freed at its end */
    struct rch_coll_pshm *next;        /* in its segment's queue */
};

/* Segments with queued runs (progress visits them). */
static struct rch_coll_nodeseg *busy_segs;
static int hooked;

static void pshm_release(struct rch_coll_pshm *q)
{
    rch_coll_cstate_release(q->cs);
    free(q);
}

static void arrive(struct rch_coll_nodeseg *s, struct rch_coll_pshm *q)
{
    int b = rch_coll_nodeseg_parity(s), me = s->me;
    struct rch_coll_nodeseg_hdr *h = rch_coll_nodeseg_hdr(s, b, me), *h0 = rch_coll_nodeseg_hdr(s, b, 0);
    size_t len = q->count * q->op.elem_size;
    h->coll = RCH_COLL_ALLREDUCE;
    h->elem = (uint32_t)q->op.elem_size;
    h->size = q->count;
    if (len)
        memcpy(h->inl, q->sbuf, len);
    q->parity = b;
    q->target = s->phase + 1;
    s->phase = q->target;
    if (s->all) {
        rch_coll_bar_arrive_all(&s->waiter, &h->epoch, &h0->epoch, sizeof(*h), s->p, q->target);
    } else {
        rch_coll_bar_post(&s->waiter, &h->epoch, q->target, -1);   /* the vector goes with it */
    }
    q->arrived = 1;
}

/* Has every rank arrived at q's phase? */
static int all_in(const struct rch_coll_nodeseg *s, const struct rch_coll_pshm *q)
{
    for (int r = 0; r < s->p; r++) {
        uint32_t e = __atomic_load_n(&rch_coll_nodeseg_hdr(s, q->parity, r)->epoch, __ATOMIC_ACQUIRE);
        if ((int32_t)(e - q->target) < 0)
            return 0;
    }
    return 1;
}

static void finish(struct rch_coll_nodeseg *s, struct rch_coll_pshm *q)
{
    rdmach_status_t st = rch_coll_nodeseg_check(s, q->parity, "allreduce (persistent)");
    size_t len = q->count * q->op.elem_size;
    if (st == RDMACH_OK && len) {
        memcpy(q->rbuf, rch_coll_nodeseg_hdr(s, q->parity, s->p - 1)->inl, len);
        for (int r = s->p - 2; r >= 0; r--)
            q->op.fn(rch_coll_nodeseg_hdr(s, q->parity, r)->inl, q->rbuf, q->count, q->op.arg);
    }
    struct rch_dev_req *req = q->req;
    q->req = NULL;
    q->arrived = 0;
    req->err = st;
    rch_dev_req_complete(req);
    if (q->orphan)
        pshm_release(q);
}

/* Run the segment's queue as far as it goes; the number of runs finished. */
static unsigned advance(struct rch_coll_nodeseg *s)
{
    unsigned n = 0;
    struct rch_coll_pshm *q;
    while ((q = s->pq_head)) {
        if (!q->arrived)
            arrive(s, q);
        if (!all_in(s, q))
            break;
        s->pq_head = q->next;
        if (!s->pq_head)
            s->pq_tail = NULL;
        finish(s, q);
        n++;
    }
    return n;
}

static unsigned hook(void *arg);

static void unhook_idle(void)
{
    for (struct rch_coll_nodeseg **pp = &busy_segs; *pp;) {
        if ((*pp)->pq_head) {
            pp = &(*pp)->busy_next;
            continue;
        }
        (*pp)->busy = 0;
        *pp = (*pp)->busy_next;
    }
    if (!busy_segs && hooked) {
        rch_dev_progress_hook_remove(hook, NULL);
        hooked = 0;
    }
}

static unsigned hook(void *arg)
{
    (void)arg;
    unsigned n = 0;
    for (struct rch_coll_nodeseg *s = busy_segs; s; s = s->busy_next)
        n += advance(s);
    unhook_idle();
    return n;
}

static int drained(void *arg)
{
    struct rch_coll_nodeseg *s = arg;
    advance(s);
    return s->pq_head == NULL;
}

rdmach_status_t rch_coll_pshm_drain(struct rch_coll_nodeseg *s)
{
    rdmach_status_t st = drained(s) ? RDMACH_OK : rch_dev_wait_until(drained, s);
    unhook_idle();
    return st;
}

rdmach_status_t rch_coll_pshm_allreduce_init(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                             size_t count, const struct rch_coll_op *op,
                                             struct rch_coll_pshm **out)
{
    struct rch_coll_cstate *cs = c->state;
    *out = NULL;
    size_t len = count * op->elem_size;
    if (!cs || c->size < 2 || !rch_coll_nodeseg_usable(c) ||
        len > RCH_NODESEG_INLINE || op->elem_size > UINT32_MAX)
        return RDMACH_OK;   /* does not apply */
    struct rch_coll_pshm *q = calloc(1, sizeof(*q));
    if (!q)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "allreduce_init: no memory");
    q->cs = cs;
    cs->refs++;
    q->rbuf = rbuf;
    q->sbuf = sbuf == RCH_COLL_IN_PLACE ? rbuf : sbuf;
    q->count = count;
    q->op = *op;
    *out = q;
    return RDMACH_OK;
}

int rch_coll_pshm_ready(const struct rch_coll_pshm *q)
{
    return q->cs->nodeseg && !q->cs->nodeseg->failed;
}

rdmach_status_t rch_coll_pshm_start(struct rch_coll_pshm *q, struct rch_dev_req *req)
{
    struct rch_coll_nodeseg *s = q->cs->nodeseg;
    if (!s || s->failed)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "allreduce (persistent): the communicator is freed");
    if (q->req)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "allreduce (persistent): already running");
    if (!hooked) {
        rdmach_status_t st = rch_dev_progress_hook_add(hook, NULL);
        if (st != RDMACH_OK)
            return st;
        hooked = 1;
    }
    q->req = req;
    q->arrived = 0;
    q->next = NULL;
    if (s->pq_tail)
        s->pq_tail->next = q;
    else
        s->pq_head = q;
    s->pq_tail = q;
    if (!s->busy) {
        s->busy = 1;
        s->busy_next = busy_segs;
        busy_segs = s;
    }
    advance(s);   /* deposit and arrive now if it is first in line */
    unhook_idle();
    return RDMACH_OK;
}

void rch_coll_pshm_free(struct rch_coll_pshm *q)
{
    if (!q)
        return;
    if (q->req)
        q->orphan = 1;   /* finish() frees it */
    else
        pshm_release(q);
}
