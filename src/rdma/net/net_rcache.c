/* The registration cache (net_rcache.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "rdma/net/net_rcache.h"

static uintptr_t page_size(void)
{
    static uintptr_t ps;
    if (ps == 0) {
        long v = sysconf(_SC_PAGESIZE);
        ps = v > 0 ? (uintptr_t)v : 4096;
    }
    return ps;
}

static void list_init(struct rch_net_rcache_entry *h)
{
    h->next = h->prev = h;
}

static void list_add(struct rch_net_rcache_entry *h, struct rch_net_rcache_entry *e)
{
    e->next = h->next;
    e->prev = h;
    h->next->prev = e;
    h->next = e;
}

static void list_del(struct rch_net_rcache_entry *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->next = e->prev = e;
}

static void lru_add_tail(struct rch_net_rcache *rc, struct rch_net_rcache_entry *e)
{
    struct rch_net_rcache_entry *h = &rc->lru;
    e->lru_next = h;
    e->lru_prev = h->lru_prev;
    h->lru_prev->lru_next = e;
    h->lru_prev = e;
    e->on_lru = 1;
}

static void lru_del(struct rch_net_rcache_entry *e)
{
    if (!e->on_lru)
        return;
    e->lru_prev->lru_next = e->lru_next;
    e->lru_next->lru_prev = e->lru_prev;
    e->lru_next = e->lru_prev = NULL;
    e->on_lru = 0;
}

/* Recompute the hook filter's bounds (lock held). */
static void update_bounds(struct rch_net_rcache *rc)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (struct rch_net_rcache_entry *e = rc->live.next; e != &rc->live; e = e->next) {
        if (e->start < lo)
            lo = e->start;
        if (e->end > hi)
            hi = e->end;
    }
    __atomic_store_n(&rc->lo, lo, __ATOMIC_RELAXED);
    __atomic_store_n(&rc->hi, hi, __ATOMIC_RELEASE);
}

/* Take e off the live list (lock held); it goes to `dead` if idle. */
static void unlive(struct rch_net_rcache *rc, struct rch_net_rcache_entry *e)
{
    list_del(e);
    lru_del(e);
    e->valid = 0;
    rc->nlive--;
    rc->live_bytes -= e->end - e->start;
    if (e->refs == 0)
        list_add(&rc->dead, e);
}

rdmach_status_t rch_net_rcache_init(struct rch_net_rcache *rc, int enabled, unsigned max_entries,
                                    size_t max_bytes, rch_net_reg_fn reg, rch_net_dereg_fn dereg, void *arg)
{
    memset(rc, 0, sizeof(*rc));
    if (pthread_mutex_init(&rc->lock, NULL) != 0)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "registration cache: pthread_mutex_init failed");
    rc->enabled = enabled;
    rc->max_entries = max_entries ? max_entries : 1;
    rc->max_bytes = max_bytes;
    rc->reg = reg;
    rc->dereg = dereg;
    rc->arg = arg;
    list_init(&rc->live);
    list_init(&rc->dead);
    rc->lru.lru_next = rc->lru.lru_prev = &rc->lru;
    rc->lo = UINTPTR_MAX;
    rc->hi = 0;
    return RDMACH_OK;
}

static void destroy(struct rch_net_rcache *rc, struct rch_net_rcache_entry *e)
{
    rc->dereg(rc->arg, &e->mr);
    free(e);
}

void rch_net_rcache_reap(struct rch_net_rcache *rc)
{
    /* Detach the whole dead list under the lock, destroy outside it (the
     * provider may free memory and so run our hooks, which take the lock).
     * The detached entries are walked through a separate link (reap_next):
     * reusing `next` while unlinking one entry at a time from a circular
     * list was miscompiled by gcc 12 -O3 into a loop that never re-read the
     * list head. */
    struct rch_net_rcache_entry *batch = NULL;
    pthread_mutex_lock(&rc->lock);
    for (struct rch_net_rcache_entry *e = rc->dead.next; e != &rc->dead; e = e->next) {
        e->reap_next = batch;
        batch = e;
    }
    list_init(&rc->dead);
    pthread_mutex_unlock(&rc->lock);
    while (batch) {
        struct rch_net_rcache_entry *e = batch;
        batch = e->reap_next;
        destroy(rc, e);
    }
}

void rch_net_rcache_fini(struct rch_net_rcache *rc)
{
    pthread_mutex_lock(&rc->lock);
    while (rc->live.next != &rc->live) {
        struct rch_net_rcache_entry *e = rc->live.next;
        e->refs = 0;
        unlive(rc, e);
    }
    update_bounds(rc);
    pthread_mutex_unlock(&rc->lock);
    rch_net_rcache_reap(rc);
    pthread_mutex_destroy(&rc->lock);
}

/* Evict idle entries, oldest first, until `need` more bytes and one more
 * entry fit (or everything idle if `all`). Victims go to the dead list. */
static unsigned evict(struct rch_net_rcache *rc, size_t need, int all)
{
    unsigned n = 0;
    while (rc->lru.lru_next != &rc->lru) {
        if (!all && rc->nlive < rc->max_entries && rc->live_bytes + need <= rc->max_bytes)
            break;
        struct rch_net_rcache_entry *e = rc->lru.lru_next;
        unlive(rc, e);
        rc->st.evictions++;
        n++;
    }
    if (n)
        update_bounds(rc);
    return n;
}

rdmach_status_t rch_net_rcache_get(struct rch_net_rcache *rc, void *addr, size_t len,
                                   struct rch_net_rcache_entry **out)
{
    uintptr_t a = (uintptr_t)addr, ps = page_size();
    if (len == 0)
        len = 1;
    uintptr_t start = a & ~(ps - 1);
    uintptr_t end = (a + len + ps - 1) & ~(ps - 1);
    if (end < a)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "register %p + %zu: the range wraps", addr, len);

    if (rc->enabled) {
        pthread_mutex_lock(&rc->lock);
        for (struct rch_net_rcache_entry *e = rc->live.next; e != &rc->live; e = e->next) {
            if (e->start <= a && a + len <= e->end) {
                e->refs++;
                lru_del(e);
                /* move to the front: recently used entries are found first */
                list_del(e);
                list_add(&rc->live, e);
                rc->st.hits++;
                pthread_mutex_unlock(&rc->lock);
                *out = e;
                return RDMACH_OK;
            }
        }
        rc->st.misses++;
        evict(rc, end - start, 0);
        pthread_mutex_unlock(&rc->lock);
        rch_net_rcache_reap(rc);
    }

    struct rch_net_rcache_entry *e = calloc(1, sizeof(*e));
    if (e == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "registration cache: no memory for an entry");
    /* Outside the lock: the provider may allocate and free (and so run our hooks). */
    rdmach_status_t st = rc->reg(rc->arg, (void *)start, end - start, &e->mr);
    if ((st == RDMACH_ERR_REG_LIMIT || st == RDMACH_ERR_NO_MEMORY) && rc->enabled) {
        pthread_mutex_lock(&rc->lock);
        unsigned n = evict(rc, 0, 1);
        pthread_mutex_unlock(&rc->lock);
        if (n) {
            RCH_DEBUG("net", "registration of %zu bytes failed; released %u cached registrations, retrying",
                      (size_t)(end - start), n);
            rch_net_rcache_reap(rc);
            st = rc->reg(rc->arg, (void *)start, end - start, &e->mr);
        }
    }
    if (st != RDMACH_OK) {
        free(e);
        return st;
    }
    e->start = start;
    e->end = end;
    e->refs = 1;
    e->valid = 1;
    e->pub.addr = (void *)start;
    e->pub.len = end - start;
    e->pub.access = RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_READ | RCH_RDMA_ACCESS_REMOTE_WRITE;
    e->pub.priv = e;
    pthread_mutex_lock(&rc->lock);
    list_add(&rc->live, e);
    rc->nlive++;
    rc->live_bytes += end - start;
    rc->st.registered_bytes += end - start;
    if (start < rc->lo)
        __atomic_store_n(&rc->lo, start, __ATOMIC_RELAXED);
    if (end > rc->hi)
        __atomic_store_n(&rc->hi, end, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rc->lock);
    *out = e;
    return RDMACH_OK;
}

void rch_net_rcache_put(struct rch_net_rcache *rc, struct rch_net_rcache_entry *e)
{
    int gone = 0;
    pthread_mutex_lock(&rc->lock);
    if (--e->refs == 0) {
        if (!e->valid)
            gone = 1;                          /* invalidated while held: now it can go */
        else if (!rc->enabled)
            unlive(rc, e), list_del(e), gone = 1;
        else
            lru_add_tail(rc, e);
    }
    if (gone && rc->enabled)
        update_bounds(rc);
    if (rc->enabled && (rc->nlive > rc->max_entries || rc->live_bytes > rc->max_bytes))
        evict(rc, 0, 0);
    pthread_mutex_unlock(&rc->lock);
    if (gone)
        destroy(rc, e);
    rch_net_rcache_reap(rc);
}

void rch_net_rcache_invalidate(struct rch_net_rcache *rc, uintptr_t addr, size_t len)
{
    if (len == 0)
        return;
    uintptr_t end = addr + len < addr ? UINTPTR_MAX : addr + len;
    /* Filter without the lock: most frees are of memory we never registered. */
    if (end <= __atomic_load_n(&rc->lo, __ATOMIC_RELAXED) || addr >= __atomic_load_n(&rc->hi, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&rc->lock);
    int n = 0;
    struct rch_net_rcache_entry *e = rc->live.next;
    while (e != &rc->live) {
        struct rch_net_rcache_entry *next = e->next;
        if (e->start < end && addr < e->end) {
            unlive(rc, e);
            rc->st.invalidations++;
            n++;
        }
        e = next;
    }
    if (n)
        update_bounds(rc);
    pthread_mutex_unlock(&rc->lock);
}

void rch_net_rcache_stats(struct rch_net_rcache *rc, struct rch_net_rcache_stats *st)
{
    pthread_mutex_lock(&rc->lock);
    *st = rc->st;
    st->entries = rc->nlive;
    pthread_mutex_unlock(&rc->lock);
}
