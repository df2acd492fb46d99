/*
 * Synchronisation: passive-target locks, flush, and the notifications of
 * post/start/complete/wait.
 *
 * Lock word (struct rch_dev_win_ctrl.lock): EXCL bit, or the number of shared
 * holders. A holder that can reach the word (the owner; a rank of the node
 * when the word is in the node segment) takes it with a compare-and-swap; a
 * rank that cannot sends LOCK and the owner takes it on its behalf:
 *
 *   origin                    owner
 *   LOCK(excl?)  ---------->  trylock: GRANT now, or queue (FIFO) and
 *                             waiters++ so that releasers KICK it
 *   <----------  GRANT        (when the word is taken for it)
 *   ... operations; flush ...
 *   UNLOCK(excl?) --------->  release, grant what the queue now allows
 *   <----------  UNLOCK_ACK   (the origin waits for it: a stale UNLOCK can
 *                              never reach a later window with the same id)
 *
 * Waiting on a lock word that another process releases with a store is not
 * something any channel signals, so those waits spin (progressing the device,
 * yielding the core when the node is oversubscribed) instead of sleeping.
 * Waits for packets (GRANT, ACK, RSP, POST, COMPLETE) use the device's
 * adaptive wait.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/base.h"
#include "base/log.h"
#include "device/rma_impl.h"

struct rch_dev_win_lockreq {
    struct rch_dev_win_lockreq *next;
    int origin;
    int excl;
};


void rch_dev_rma_spin_until(int (*done)(void *), void *arg)
{
    unsigned spins = 0;
    while (!done(arg)) {
        rch_dev_progress();
        if (!rch_dev.oversubscribed && spins < 1024) {
            spins++;
            rch_cpu_relax();
        } else {
            sched_yield();
        }
    }
}

/* ---- lock words ---- */

int rch_dev_rma_trylock(struct rch_dev_win_ctrl *c, int exclusive)
{
    uint64_t v = atomic_load_explicit(&c->lock, memory_order_relaxed);
    if (exclusive)
        return v == 0 && atomic_compare_exchange_strong_explicit(&c->lock, &v, RCH_DEV_WIN_WORD_EXCL,
                                                                 memory_order_acquire, memory_order_relaxed);
    while (!(v & RCH_DEV_WIN_WORD_EXCL)) {
        if (atomic_compare_exchange_weak_explicit(&c->lock, &v, v + 1, memory_order_acquire, memory_order_relaxed))
            return 1;
    }
    return 0;
}

void rch_dev_rma_unlock_word(struct rch_dev_win *w, int owner, struct rch_dev_win_ctrl *c, int exclusive)
{
    if (exclusive)
        atomic_store_explicit(&c->lock, 0, memory_order_seq_cst);
    else
        atomic_fetch_sub_explicit(&c->lock, 1, memory_order_seq_cst);
    if (owner == w->rank) {
        if (w->lq_head)
            rch_dev_rma_grant_waiting(w);
    } else if (atomic_load_explicit(&c->waiters, memory_order_seq_cst) != 0) {
        struct rch_rma_hdr h;
        rch_dev_rma_hdr(w, &h, RCH_RMA_KICK, 0, 0);
        rch_dev_rma_send(w, owner, &h, NULL, 0, 0, NULL);
    }
}

/* ---- the owner's queue of LOCK requests ---- */

static void grant(struct rch_dev_win *w, int origin)
{
    struct rch_rma_hdr h;
    rch_dev_rma_hdr(w, &h, RCH_RMA_GRANT, 0, 0);
    rch_dev_rma_send(w, origin, &h, NULL, 0, 0, NULL);
}

void rch_dev_rma_grant_waiting(struct rch_dev_win *w)
{
    while (w->lq_head && rch_dev_rma_trylock(w->my_ctrl, w->lq_head->excl)) {
        struct rch_dev_win_lockreq *q = w->lq_head;
        w->lq_head = q->next;
        if (!w->lq_head)
            w->lq_tail = NULL;
        atomic_fetch_sub_explicit(&w->my_ctrl->waiters, 1, memory_order_seq_cst);
        grant(w, q->origin);
        free(q);
    }
}

void rch_dev_rma_on_lock(struct rch_dev_win *w, int origin, int exclusive)
{
    if (w->lq_head == NULL && rch_dev_rma_trylock(w->my_ctrl, exclusive)) {
        grant(w, origin);
        return;
    }
    struct rch_dev_win_lockreq *q = malloc(sizeof(*q));
    if (q == NULL) {
        RCH_ERROR("rma", "no memory to queue a lock request of rank %d", origin);
        rch_boot_abort(1, "one-sided: out of memory for lock requests");
    }
    q->next = NULL;
    q->origin = origin;
    q->excl = exclusive;
    if (w->lq_tail)
        w->lq_tail->next = q;
    else
        w->lq_head = q;
    w->lq_tail = q;
    /* Announce, then look again: a node-local release that happened before
     * the announcement is seen by this second try, one after it KICKs us. */
    atomic_fetch_add_explicit(&w->my_ctrl->waiters, 1, memory_order_seq_cst);
    rch_dev_rma_grant_waiting(w);
}

void rch_dev_rma_on_unlock(struct rch_dev_win *w, int origin, int exclusive)
{
    uint64_t v = atomic_load_explicit(&w->my_ctrl->lock, memory_order_relaxed);
    if ((exclusive && v != RCH_DEV_WIN_WORD_EXCL) || (!exclusive && (v == 0 || (v & RCH_DEV_WIN_WORD_EXCL))))
        RCH_WARN("rma", "window %u: rank %d releases a %s lock it does not hold (lock word 0x%llx)", w->id, origin,
                 exclusive ? "exclusive" : "shared", (unsigned long long)v);
    else
        rch_dev_rma_unlock_word(w, w->rank, w->my_ctrl, exclusive);
    struct rch_rma_hdr h;
    rch_dev_rma_hdr(w, &h, RCH_RMA_UNLOCK_ACK, 0, 0);
    rch_dev_rma_send(w, origin, &h, NULL, 0, 0, NULL);
}

void rch_dev_rma_lockq_free(struct rch_dev_win *w)
{
    while (w->lq_head) {
        struct rch_dev_win_lockreq *q = w->lq_head;
        w->lq_head = q->next;
        free(q);
    }
    w->lq_tail = NULL;
}

/* ---- waiting ---- */

struct wait_arg {
    struct rch_dev_win *w;
    int target;                  /* -1: all */
    int what;                    /* W_* */
    const int *ranks;
    int n;
};
enum { W_LOCAL, W_REMOTE, W_LOCKED, W_UNLOCKED, W_POSTS };

static int peer_dead(const struct rch_dev_win *w, int target)
{
    return rch_dev.peers[w->t[target].world].dead;
}

/* A dead target: forget what we wait for from it, with an error. */
static void give_up(struct rch_dev_win *w, int target)
{
    struct rch_dev_win_target *t = &w->t[target];
    char msg[160];
    snprintf(msg, sizeof(msg), "one-sided: rank %d (world rank %d) has failed; its operations and locks are lost",
             target, t->world);
    rch_dev_rma_note_error(w, target, RDMACH_ERR_PEER_DEAD, msg);
    w->npend_local -= t->pend_local;
    w->npend_remote -= t->pend_remote;
    t->pend_local = t->pend_remote = 0;
    t->lock_wait = t->unlock_wait = 0;
    t->posts = 1;
}

static int target_idle(struct rch_dev_win *w, int t, int what)
{
    const struct rch_dev_win_target *tg = &w->t[t];
    int busy;
    switch (what) {
    case W_LOCAL:    busy = tg->pend_local != 0; break;
    case W_REMOTE:   busy = tg->pend_local != 0 || tg->pend_remote != 0; break;
    case W_LOCKED:   busy = tg->lock_wait; break;
    case W_UNLOCKED: busy = tg->unlock_wait; break;
    default:         busy = tg->posts == 0; break;
    }
    if (busy && peer_dead(w, t)) {
        give_up(w, t);
        busy = 0;
    }
    return !busy;
}

static int wait_done(void *arg)
{
    struct wait_arg *a = arg;
    struct rch_dev_win *w = a->w;
    if (a->ranks) {
        for (int i = 0; i < a->n; i++)
            if (!target_idle(w, a->ranks[i], a->what))
                return 0;
        return 1;
    }
    if (a->target >= 0)
        return target_idle(w, a->target, a->what);
    if ((a->what == W_LOCAL && w->npend_local == 0) ||
        (a->what == W_REMOTE && w->npend_local == 0 && w->npend_remote == 0))
        return 1;
    for (int t = 0; t < w->size; t++)
        if (!target_idle(w, t, a->what))
            return 0;
    return 1;
}

static rdmach_status_t wait_for(struct rch_dev_win *w, int target, int what, const int *ranks, int n)
{
    struct wait_arg a = { .w = w, .target = target, .what = what, .ranks = ranks, .n = n };
    return rch_dev_wait_until(wait_done, &a);
}

rdmach_status_t rch_dev_rma_take_error(struct rch_dev_win *w)
{
    if (w->err == RDMACH_OK)
        return RDMACH_OK;
    rdmach_status_t st = w->err;
    w->err = RDMACH_OK;
    w->err_target = -1;
    return rch_base_err(st, "%s", w->errmsg);
}

/* ---- flush ---- */

/* A rank may wait for another by polling its own window with lock, flush
 * and sync calls that find nothing to wait for (OpenCoarrays' atomic_ref,
 * event_wait): when members reach it by packets, each such call runs one
 * progress pass, or their LOCK and atomic packets would never be read. */
static inline void serve_packets(struct rch_dev_win *w)
{
    if (w->npackets)
        rch_dev_progress();
}

void rch_dev_rma_sync(struct rch_dev_win *w)
{
    atomic_thread_fence(memory_order_seq_cst);
    serve_packets(w);
}

rdmach_status_t rch_dev_rma_flush(struct rch_dev_win *w, int target, int local)
{
    serve_packets(w);
    /* DIRECT stores: visible before anything this rank does next (the
     * notification that tells the target, an unlock). */
    atomic_thread_fence(memory_order_seq_cst);
    if (target >= 0 ? (w->t[target].pend_local | (local ? 0 : w->t[target].pend_remote)) != 0
                    : (w->npend_local | (local ? 0 : w->npend_remote)) != 0) {
        rdmach_status_t st = wait_for(w, target, local ? W_LOCAL : W_REMOTE, NULL, 0);
        if (st != RDMACH_OK)
            return st;
    }
    return rch_dev_rma_take_error(w);
}

/* ---- locks ---- */

struct try_arg {
    struct rch_dev_win *w;
    struct rch_dev_win_ctrl *c;
    int excl;
    int dead;                    /* a rank of this node failed meanwhile: window rank + 1 */
};

/* Take a mapped lock word, or give up if a member of this node has died:
 * it may be the holder, and nobody would ever release the word. */
static int try_lock(void *arg)
{
    struct try_arg *a = arg;
    if (rch_dev_rma_trylock(a->c, a->excl))
        return 1;
    for (int i = 0; i < a->w->nlocal; i++) {
        if (peer_dead(a->w, a->w->local[i])) {
            a->dead = a->w->local[i] + 1;
            return 1;
        }
    }
    return 0;
}

static rdmach_status_t lock_word(struct rch_dev_win *w, int target, int exclusive)
{
    struct try_arg a = { w, w->t[target].ctrl, exclusive, 0 };
    if (rch_dev_rma_trylock(a.c, exclusive))
        return RDMACH_OK;
    rch_dev_rma_spin_until(try_lock, &a);
    if (a.dead)
        return rch_base_err(RDMACH_ERR_PEER_DEAD, "one-sided: waiting for the lock of rank %d, rank %d of the same "
                            "node failed (it may hold the lock)", target, a.dead - 1);
    return RDMACH_OK;
}

static rdmach_status_t send_ctl(struct rch_dev_win *w, int target, unsigned rop, int excl)
{
    struct rch_rma_hdr h;
    rch_dev_rma_hdr(w, &h, rop, 0, 0);
    h.flags = excl ? RCH_RMA_F_EXCL : 0;
    return rch_dev_rma_send(w, target, &h, NULL, 0, 0, NULL);
}

/* Ask for the lock of a target without a mapped lock word. */
static rdmach_status_t lock_request(struct rch_dev_win *w, int target, int exclusive)
{
    struct rch_dev_win_target *t = &w->t[target];
    t->lock_wait = 1;
    rdmach_status_t st = send_ctl(w, target, RCH_RMA_LOCK, exclusive);
    if (st != RDMACH_OK) {
        t->lock_wait = 0;
        return st;
    }
    /* held from here on as far as releasing goes: an UNLOCK follows the GRANT */
    t->lock = exclusive ? RCH_DEV_WIN_LOCK_EXCL : RCH_DEV_WIN_LOCK_SHARED;
    return RDMACH_OK;
}

rdmach_status_t rch_dev_rma_lock(struct rch_dev_win *w, int target, int exclusive)
{
    struct rch_dev_win_target *t = &w->t[target];
    serve_packets(w);
    if (t->ctrl) {
        rdmach_status_t st = lock_word(w, target, exclusive);
        if (st != RDMACH_OK)
            return st;
    } else {
        rdmach_status_t st = lock_request(w, target, exclusive);
        if (st == RDMACH_OK)
            st = wait_for(w, target, W_LOCKED, NULL, 0);
        if (st == RDMACH_OK)
            st = rch_dev_rma_take_error(w);
        if (st != RDMACH_OK)
            return st;
    }
    t->lock = exclusive ? RCH_DEV_WIN_LOCK_EXCL : RCH_DEV_WIN_LOCK_SHARED;
    return RDMACH_OK;
}

/* Release a lock held on target (operations already complete). */
static rdmach_status_t release(struct rch_dev_win *w, int target)
{
    struct rch_dev_win_target *t = &w->t[target];
    int excl = t->lock == RCH_DEV_WIN_LOCK_EXCL;
    rdmach_status_t st = RDMACH_OK;
    if (t->lock == RCH_DEV_WIN_LOCK_NONE)
        return RDMACH_OK;
    t->lock = RCH_DEV_WIN_LOCK_NONE;
    if (t->ctrl) {
        rch_dev_rma_unlock_word(w, target, t->ctrl, excl);
        return RDMACH_OK;
    }
    if (peer_dead(w, target))
        return RDMACH_OK;
    t->unlock_wait = 1;
    st = send_ctl(w, target, RCH_RMA_UNLOCK, excl);
    if (st != RDMACH_OK) {
        t->unlock_wait = 0;
        return st;
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dev_rma_unlock(struct rch_dev_win *w, int target)
{
    rdmach_status_t st = rch_dev_rma_flush(w, target, 0);
    rdmach_status_t st2 = release(w, target);
    if (w->t[target].unlock_wait) {
        rdmach_status_t st3 = wait_for(w, target, W_UNLOCKED, NULL, 0);
        if (st2 == RDMACH_OK)
            st2 = st3;
    }
    if (st == RDMACH_OK)
        st = st2;
    if (st == RDMACH_OK)
        st = rch_dev_rma_take_error(w);
    return st;
}

rdmach_status_t rch_dev_rma_lock_all(struct rch_dev_win *w)
{
    rdmach_status_t st = RDMACH_OK;
    int nreq = 0;
    /* Ask everyone reached by packets first, then take the mapped words
     * while the answers travel. */
    for (int r = 0; r < w->size && st == RDMACH_OK; r++) {
        if (!w->t[r].ctrl) {
            st = lock_request(w, r, 0);
            nreq += st == RDMACH_OK;
        }
    }
    for (int r = 0; r < w->size && st == RDMACH_OK; r++) {
        struct rch_dev_win_target *t = &w->t[r];
        if (t->ctrl) {
            st = lock_word(w, r, 0);
            if (st == RDMACH_OK)
                t->lock = RCH_DEV_WIN_LOCK_SHARED;
        }
    }
    if (nreq) {
        /* whatever happened: every LOCK sent is granted (or its rank dead) before any release */
        rdmach_status_t st2 = wait_for(w, -1, W_LOCKED, NULL, 0);
        if (st == RDMACH_OK)
            st = st2;
    }
    if (st == RDMACH_OK)
        st = rch_dev_rma_take_error(w);
    if (st != RDMACH_OK)
        rch_dev_rma_unlock_all(w);
    return st;
}

rdmach_status_t rch_dev_rma_unlock_all(struct rch_dev_win *w)
{
    rdmach_status_t st = rch_dev_rma_flush(w, -1, 0);
    int waits = 0;
    for (int r = 0; r < w->size; r++) {
        rdmach_status_t st2 = release(w, r);
        if (st == RDMACH_OK)
            st = st2;
        waits |= w->t[r].unlock_wait;
    }
    if (waits) {
        rdmach_status_t st2 = wait_for(w, -1, W_UNLOCKED, NULL, 0);
        if (st == RDMACH_OK)
            st = st2;
    }
    if (st == RDMACH_OK)
        st = rch_dev_rma_take_error(w);
    return st;
}

/* ---- PSCW ---- */

rdmach_status_t rch_dev_rma_post(struct rch_dev_win *w, const int *ranks, int n)
{
    atomic_thread_fence(memory_order_seq_cst);   /* my stores to my window before the origins access it */
    for (int i = 0; i < n; i++) {
        if (ranks[i] == w->rank) {
            w->t[w->rank].posts++;
            continue;
        }
        rdmach_status_t st = send_ctl(w, ranks[i], RCH_RMA_POST, 0);
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dev_rma_start(struct rch_dev_win *w, const int *ranks, int n)
{
    rdmach_status_t st = wait_for(w, -1, W_POSTS, ranks, n);
    for (int i = 0; i < n; i++)
        if (w->t[ranks[i]].posts)
            w->t[ranks[i]].posts--;
    if (st == RDMACH_OK)
        st = rch_dev_rma_take_error(w);
    return st;
}

rdmach_status_t rch_dev_rma_complete(struct rch_dev_win *w, const int *ranks, int n)
{
    rdmach_status_t st = wait_for(w, -1, W_REMOTE, ranks, n);
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < n; i++) {
        if (ranks[i] == w->rank) {
            w->completes++;
            continue;
        }
        if (peer_dead(w, ranks[i]))
            continue;
        rdmach_status_t st2 = send_ctl(w, ranks[i], RCH_RMA_COMPLETE, 0);
        if (st == RDMACH_OK)
            st = st2;
    }
    if (st == RDMACH_OK)
        st = rch_dev_rma_take_error(w);
    return st;
}

struct complete_arg {
    struct rch_dev_win *w;
    const int *ranks;
    int n;
    int dead;                    /* a rank of the group has failed */
};

static int completes_in(void *arg)
{
    struct complete_arg *a = arg;
    if (a->w->completes >= (uint32_t)a->n)
        return 1;
    for (int i = 0; i < a->n; i++)
        if (peer_dead(a->w, a->ranks[i])) {
            a->dead = a->ranks[i] + 1;
            return 1;
        }
    return 0;
}

rdmach_status_t rch_dev_rma_wait(struct rch_dev_win *w, const int *ranks, int n, int block, int *done)
{
    struct complete_arg a = { w, ranks, n, 0 };
    rdmach_status_t st = RDMACH_OK;
    if (!completes_in(&a)) {
        if (block)
            st = rch_dev_wait_until(completes_in, &a);
        else
            rch_dev_progress();
    }
    *done = completes_in(&a);
    if (a.dead) {
        w->completes = 0;
        return rch_base_err(RDMACH_ERR_PEER_DEAD, "one-sided: rank %d of the exposure group has failed",
                            a.dead - 1);
    }
    if (*done) {
        w->completes -= (uint32_t)n;
        atomic_thread_fence(memory_order_seq_cst);   /* the origins' stores before mine */
    }
    return st;
}
