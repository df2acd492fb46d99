/*
 * The schedule engine of the non-blocking collectives: building schedules
 * (nbc_impl.h), starting them, and advancing them from the device's
 * progress engine.
 *
 * States of a schedule, one round at a time:
 *
 *   POST ──(post the round's sends and receives)──► WAIT
 *   WAIT ──(all of them done: check sizes, run local steps)──► POST of the
 *          next round, or DONE after the last
 *   any error ──► DONE with the error (outstanding receives cancelled, sends
 *          detached), the request completes with it
 *
 * Running schedules are on one list; a progress hook registered with the
 * device while the list is not empty advances each of them by as many
 * rounds as have completed (a round that posts nothing, or whose messages
 * complete at once, runs straight through). The hook is bounded: it looks
 * at every schedule once per call and never waits.
 *
 * Threading: as the device, one thread at a time (MPI_THREAD_SERIALIZED).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "coll/nbc_impl.h"

enum step_kind { STEP_SEND = 1, STEP_RECV, STEP_REDUCE, STEP_COPY };

struct step {
    uint8_t kind;
    uint8_t in_first;          /* REDUCE: `src` comes before `dst` in rank order */
    uint16_t sub;              /* SEND/RECV: tag offset */
    int peer;
    const void *src;           /* SEND: data; REDUCE: operand; COPY: from */
    void *dst;                 /* RECV: buffer; REDUCE: accumulator; COPY: to */
    size_t len;                /* bytes; REDUCE: elements */
};

struct pending {
    struct rch_dev_req *req;   /* NULL: finished at posting (eager send) */
    const struct step *st;
};

struct rch_nbc_sched {
    struct rch_coll_cstate *cs;        /* referenced */
    const struct rch_coll_comm *c;     /* &cs->view */
    const char *name;
    int tag;
    struct rch_coll_op op;
    struct step *steps;
    int nsteps, cap;
    int *round_end;                    /* [nrounds]: one past each round's last step */
    int nrounds, rcap;
    int round;                         /* the round in progress */
    int posted;                        /* its messages are posted */
    struct pending *pend;
    int npend, pcap;
    void **tmps;
    int ntmps, tcap;
    struct rch_dev_req *req;           /* completed at the end (may be NULL) */
    int persistent;                    /* kept and reset at the end (rch_coll_persist_*) */
    int running;                       /* persistent: on the active list */
    int orphan;                        /* persistent: freed by its owner while running */
    int finished;
    rdmach_status_t err;
    struct rch_nbc_sched *next;
};

static struct rch_nbc_sched *active;
static int nactive, hooked;
static int busy;               /* advancing: a nested progress call leaves the list alone */
/* Between rch_coll_persist_capture_begin and _end: where rch_nbc_start puts
 * the schedule it was given instead of starting it. */
static struct rch_nbc_sched **capture;
static struct rch_nbc_sched *captured;

/* ---- building ---- */

rdmach_status_t rch_nbc_create(const struct rch_coll_comm *c, const char *name,
                               const struct rch_coll_op *op, struct rch_nbc_sched **out)
{
    struct rch_coll_cstate *cs = c->state;
    *out = NULL;
    if (!cs)
        return rch_base_err(RDMACH_ERR_INVALID_ARG,
                            "%s: the communicator has no collective state (rch_coll_comm_init)", name);
    struct rch_nbc_sched *s = calloc(1, sizeof(*s));
    if (!s)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no memory for a schedule", name);
    s->cs = cs;
    cs->refs++;
    s->c = &cs->view;
    s->name = name;
    s->tag = RCH_COLL_TAG_NBC_BASE + (int)((cs->nbc_seq++ & RCH_COLL_NBC_SEQ_MASK) * RCH_COLL_NBC_SUB_MAX);
    if (op)
        s->op = *op;
    *out = s;
    return RDMACH_OK;
}

const struct rch_coll_comm *rch_nbc_comm(const struct rch_nbc_sched *s)
{
    return s->c;
}

size_t rch_nbc_elem_size(const struct rch_nbc_sched *s)
{
    return s->op.fn ? s->op.elem_size : 0;
}

static rdmach_status_t grow(void **p, int *cap, int need, size_t elem, const char *name)
{
    if (need <= *cap)
        return RDMACH_OK;
    int n = *cap ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no memory for a schedule of %d steps", name, n);
    *p = q;
    *cap = n;
    return RDMACH_OK;
}

static rdmach_status_t add(struct rch_nbc_sched *s, const struct step *st)
{
    rdmach_status_t r = grow((void **)&s->steps, &s->cap, s->nsteps + 1, sizeof(*s->steps), s->name);
    if (r == RDMACH_OK)
        s->steps[s->nsteps++] = *st;
    return r;
}

rdmach_status_t rch_nbc_send(struct rch_nbc_sched *s, const void *buf, size_t len, int peer, int sub)
{
    if (peer == RCH_DEV_PROC_NULL)
        return RDMACH_OK;
    struct step st = { .kind = STEP_SEND, .sub = (uint16_t)sub, .peer = peer, .src = buf, .len = len };
    return add(s, &st);
}

rdmach_status_t rch_nbc_recv(struct rch_nbc_sched *s, void *buf, size_t len, int peer, int sub)
{
    if (peer == RCH_DEV_PROC_NULL)
        return RDMACH_OK;
    struct step st = { .kind = STEP_RECV, .sub = (uint16_t)sub, .peer = peer, .dst = buf, .len = len };
    return add(s, &st);
}

rdmach_status_t rch_nbc_reduce(struct rch_nbc_sched *s, const void *in, void *acc, size_t count,
                               int in_first)
{
    if (!s->op.fn)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: a reduction step without an operation", s->name);
    struct step st = { .kind = STEP_REDUCE, .in_first = (uint8_t)!!in_first, .src = in, .dst = acc,
                       .len = count };
    return count ? add(s, &st) : RDMACH_OK;
}

rdmach_status_t rch_nbc_copy(struct rch_nbc_sched *s, void *dst, const void *src, size_t len)
{
    struct step st = { .kind = STEP_COPY, .src = src, .dst = dst, .len = len };
    return len && dst != src ? add(s, &st) : RDMACH_OK;
}

rdmach_status_t rch_nbc_round(struct rch_nbc_sched *s)
{
    int start = s->nrounds ? s->round_end[s->nrounds - 1] : 0;
    if (s->nsteps == start)
        return RDMACH_OK;
    rdmach_status_t r = grow((void **)&s->round_end, &s->rcap, s->nrounds + 1, sizeof(int), s->name);
    if (r == RDMACH_OK)
        s->round_end[s->nrounds++] = s->nsteps;
    return r;
}

void *rch_nbc_tmp(struct rch_nbc_sched *s, size_t bytes, rdmach_status_t *st)
{
    *st = grow((void **)&s->tmps, &s->tcap, s->ntmps + 1, sizeof(void *), s->name);
    if (*st != RDMACH_OK)
        return NULL;
    void *p = rch_coll_scratch(bytes);
    if (!p) {
        *st = rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no memory for %zu bytes of scratch", s->name, bytes);
        return NULL;
    }
    s->tmps[s->ntmps++] = p;
    return p;
}

void rch_nbc_free(struct rch_nbc_sched *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->ntmps; i++)
        rch_coll_scratch_free(s->tmps[i]);
    free(s->tmps);
    free(s->steps);
    free(s->round_end);
    free(s->pend);
    rch_coll_cstate_release(s->cs);
    free(s);
}

/* ---- running ---- */

static int round_start(const struct rch_nbc_sched *s, int r)
{
    return r ? s->round_end[r - 1] : 0;
}

/* Abandon the messages of the current round after an error. */
static void drop_pending(struct rch_nbc_sched *s)
{
    for (int i = 0; i < s->npend; i++) {
        struct rch_dev_req *q = s->pend[i].req;
        if (!q)
            continue;
        if (s->pend[i].st->kind == STEP_RECV)
            rch_dev_cancel(q);
        rch_dev_req_free(q);
        s->pend[i].req = NULL;
    }
    s->npend = 0;
}

static rdmach_status_t fail(struct rch_nbc_sched *s, rdmach_status_t st)
{
    if (s->err == RDMACH_OK)
        s->err = st;
    drop_pending(s);
    s->finished = 1;
    return st;
}

static rdmach_status_t post_round(struct rch_nbc_sched *s)
{
    const struct rch_coll_comm *c = s->c;
    int lo = round_start(s, s->round), hi = s->round_end[s->round];
    rdmach_status_t st = grow((void **)&s->pend, &s->pcap, hi - lo, sizeof(*s->pend), s->name);
    if (st != RDMACH_OK)
        return fail(s, st);
    s->npend = 0;
    for (int i = lo; i < hi; i++) {
        const struct step *p = &s->steps[i];
        struct rch_dev_req *q = NULL;
        if (p->kind == STEP_SEND)
            st = rch_dev_isend(p->src, p->len, c->world_of[p->peer], c->rank, s->tag + p->sub, c->ctx,
                               RCH_DEV_SEND_STD, &q);
        else if (p->kind == STEP_RECV)
            st = rch_dev_irecv(p->dst, p->len, p->peer, s->tag + p->sub, c->ctx, &q);
        else
            continue;
        if (st != RDMACH_OK) {
            char why[256];
            snprintf(why, sizeof(why), "%s", rdmach_last_error());
            return fail(s, rch_base_err(st, "%s: posting a %s of %zu bytes %s rank %d failed: %s",
                                        s->name, p->kind == STEP_SEND ? "send" : "receive", p->len,
                                        p->kind == STEP_SEND ? "to" : "from", p->peer, why));
        }
        s->pend[s->npend].req = q;
        s->pend[s->npend].st = p;
        s->npend++;
    }
    s->posted = 1;
    return RDMACH_OK;
}

/* The outcome of a finished message of the round (request released). */
static rdmach_status_t finish_one(struct rch_nbc_sched *s, struct pending *pd)
{
    struct rch_dev_req *q = pd->req;
    const struct step *p = pd->st;
    rdmach_status_t st = q->err;
    size_t got = q->bytes, full = q->msg_bytes;
    rch_dev_req_free(q);
    pd->req = NULL;
    if (p->kind == STEP_SEND) {
        if (st != RDMACH_OK)
            return rch_base_err(st, "%s: send to rank %d (world %d) failed: %s", s->name, p->peer,
                                s->c->world_of[p->peer], rdmach_strerror(st));
        return RDMACH_OK;
    }
    if (st == RDMACH_ERR_TRUNCATE || (st == RDMACH_OK && full > p->len))
        return rch_base_err(RDMACH_ERR_TRUNCATE,
                            "%s: rank %d sent %zu bytes to rank %d, which expected %zu "
                            "(counts or datatypes differ between ranks)",
                            s->name, p->peer, full, s->c->rank, p->len);
    if (st != RDMACH_OK)
        return rch_base_err(st, "%s: receive from rank %d (world %d) failed: %s", s->name, p->peer,
                            s->c->world_of[p->peer], rdmach_strerror(st));
    if (got != p->len)
        return rch_base_err(RDMACH_ERR_INVALID_ARG,
                            "%s: rank %d sent %zu bytes to rank %d, which expected %zu "
                            "(counts or datatypes differ between ranks)",
                            s->name, p->peer, got, s->c->rank, p->len);
    return RDMACH_OK;
}

static void run_local(struct rch_nbc_sched *s)
{
    int lo = round_start(s, s->round), hi = s->round_end[s->round];
    for (int i = lo; i < hi; i++) {
        const struct step *p = &s->steps[i];
        if (p->kind == STEP_COPY)
            memmove(p->dst, p->src, p->len);
        else if (p->kind == STEP_REDUCE && p->in_first)
            rch_coll_op_before(&s->op, p->src, p->dst, p->len);
        else if (p->kind == STEP_REDUCE)
            rch_coll_op_after(&s->op, p->dst, (void *)(uintptr_t)p->src, p->len);
    }
}

/* Advance as far as possible; the number of rounds completed. */
static unsigned advance(struct rch_nbc_sched *s)
{
    unsigned n = 0;
    while (!s->finished) {
        if (s->round == s->nrounds) {
            s->finished = 1;
            break;
        }
        if (!s->posted && post_round(s) != RDMACH_OK)
            break;
        for (int i = 0; i < s->npend; i++)
            if (s->pend[i].req && !__atomic_load_n(&s->pend[i].req->done, __ATOMIC_ACQUIRE))
                return n;
        rdmach_status_t first = RDMACH_OK;
        for (int i = 0; i < s->npend; i++) {
            if (!s->pend[i].req)
                continue;
            rdmach_status_t st = finish_one(s, &s->pend[i]);
            if (first == RDMACH_OK)
                first = st;
        }
        s->npend = 0;
        if (first != RDMACH_OK) {
            fail(s, first);
            break;
        }
        run_local(s);
        s->round++;
        s->posted = 0;
        n++;
    }
    return n;
}

/* The end: complete the request and let go of everything (a persistent
 * schedule is kept for its next start unless its owner let go of it). */
static void retire(struct rch_nbc_sched *s)
{
    struct rch_dev_req *req = s->req;
    if (s->err != RDMACH_OK)
        RCH_DEBUG("coll", "%s failed: %s", s->name, rdmach_last_error());
    s->req = NULL;
    s->running = 0;
    if (req) {
        req->err = s->err;
        rch_dev_req_complete(req);
    }
    if (!s->persistent || s->orphan)
        rch_nbc_free(s);
}

static unsigned hook(void *arg);

static void unlink_sched(struct rch_nbc_sched *s)
{
    for (struct rch_nbc_sched **pp = &active; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            nactive--;
            break;
        }
    if (nactive == 0 && hooked) {
        rch_dev_progress_hook_remove(hook, NULL);
        hooked = 0;
    }
}

static unsigned hook(void *arg)
{
    unsigned n = 0;
    struct rch_nbc_sched *s = active, *next;
    if (busy)
        return 0;
    busy = 1;
    for (; s; s = next) {
        next = s->next;
        n += advance(s);
        if (s->finished) {
            unlink_sched(s);
            retire(s);
            n++;
        }
    }
    busy = 0;
    return n;
}

/* Put s on the active list and run what can run now. */
static rdmach_status_t launch(struct rch_nbc_sched *s, struct rch_dev_req *req);

rdmach_status_t rch_nbc_start(struct rch_nbc_sched *s, struct rch_dev_req *req)
{
    rdmach_status_t st = rch_nbc_round(s);   /* close the last round */
    if (st == RDMACH_OK && capture) {
        s->persistent = 1;
        *capture = s;
        capture = NULL;
        return RDMACH_OK;
    }
    if (st != RDMACH_OK) {
        rch_nbc_free(s);
        return st;
    }
    return launch(s, req);
}

static rdmach_status_t launch(struct rch_nbc_sched *s, struct rch_dev_req *req)
{
    rdmach_status_t st = RDMACH_OK;
    if (!hooked) {
        st = rch_dev_progress_hook_add(hook, NULL);
        hooked = st == RDMACH_OK;
    }
    if (st != RDMACH_OK) {
        if (!s->persistent)
            rch_nbc_free(s);
        return st;
    }
    /* From here on, errors are the schedule's and come back through req. */
    s->req = req;
    s->running = 1;
    s->next = active;
    active = s;
    nactive++;
    int nested = busy;
    busy = 1;
    advance(s);
    if (s->finished) {   /* everything ran at once, or the first round failed */
        unlink_sched(s);
        retire(s);
    }
    busy = nested;
    return RDMACH_OK;
}

struct waitee {
    int done;
    rdmach_status_t st;
};

static void waitee_done(struct rch_dev_req *req)
{
    struct waitee *w = req->user;
    w->done = 1;
    w->st = req->err;
}

static int waitee_check(void *arg)
{
    return ((struct waitee *)arg)->done;
}

rdmach_status_t rch_nbc_start_wait(struct rch_nbc_sched *s)
{
    struct waitee w = { 0, RDMACH_OK };
    struct rch_dev_req *req = rch_dev_req_alloc(RCH_DEV_REQ_GREQ);
    if (!req) {
        const char *name = s->name;
        rch_nbc_free(s);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no request", name);
    }
    req->on_complete = waitee_done;
    req->user = &w;
    /* a blocking schedule is never captured for a persistent request */
    struct rch_nbc_sched **cap = capture;
    capture = NULL;
    rdmach_status_t st = rch_nbc_start(s, req);
    capture = cap;
    if (st == RDMACH_OK)
        st = rch_dev_wait_until(waitee_check, &w);
    if (st != RDMACH_OK) {
        /* not started, or the wait itself failed (the job is failing) */
        if (!w.done)
            req->on_complete = NULL;
        rch_dev_req_free(req);
        return st;
    }
    rch_dev_req_free(req);
    return w.st;
}

/* ---- persistent schedules (nbc.h) ---- */

void rch_coll_persist_capture_begin(void)
{
    captured = NULL;
    capture = &captured;
}

struct rch_nbc_sched *rch_coll_persist_capture_end(void)
{
    struct rch_nbc_sched *s = captured;
    capture = NULL;
    captured = NULL;
    return s;
}

rdmach_status_t rch_coll_persist_start(struct rch_nbc_sched *s, struct rch_dev_req *req)
{
    if (s->running)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: the persistent schedule is still running", s->name);
    s->round = 0;
    s->posted = 0;
    s->npend = 0;
    s->finished = 0;
    s->err = RDMACH_OK;
    return launch(s, req);
}

void rch_coll_persist_free(struct rch_nbc_sched *s)
{
    if (!s)
        return;
    if (s->running)
        s->orphan = 1;   /* retire frees it */
    else
        rch_nbc_free(s);
}
