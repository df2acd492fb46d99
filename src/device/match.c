/* The matching engine (see match.h for the structure and its invariants). */
#include "base/base.h"
#include "device/dev.h"
#include "device/match.h"

static inline unsigned bucket_of(uint32_t ctx, int32_t src)
{
    uint32_t h = (uint32_t)src * 0x9E3779B1u ^ ctx * 0x85EBCA77u;
    return (h ^ (h >> 16)) & (RCH_MATCH_BUCKETS - 1);
}

static inline int tag_ok(int32_t want, int32_t have)
{
    return want == have || want == RCH_DEV_ANY_TAG;
}

void rch_match_posted_init(struct rch_match_posted *q)
{
    q->count = 0;
    q->only = NULL;
    q->nwild = 0;
    q->next_seq = 1;
    rch_dlist_init(&q->wild);
    for (unsigned i = 0; i < RCH_MATCH_BUCKETS; i++)
        rch_dlist_init(&q->bucket[i]);
}

void rch_match_unexp_init(struct rch_match_unexp *q)
{
    q->count = 0;
    rch_dlist_init(&q->all);
    for (unsigned i = 0; i < RCH_MATCH_BUCKETS; i++)
        rch_dlist_init(&q->bucket[i]);
}

void rch_match_post(struct rch_match_posted *q, struct rch_match_entry *e)
{
    e->seq = q->next_seq++;
    e->queued = 1;
    if (e->src == RCH_DEV_ANY_SOURCE) {
        rch_dlist_push_tail(&q->wild, &e->link);
        q->nwild++;
    } else {
        rch_dlist_push_tail(&q->bucket[bucket_of(e->ctx, e->src)], &e->link);
    }
    q->only = ++q->count == 1 ? e : NULL;
}

static void posted_remove(struct rch_match_posted *q, struct rch_match_entry *e)
{
    rch_dlist_remove(&e->link);
    e->queued = 0;
    q->count--;
    q->only = NULL;   /* if one entry is left, which one is not known here */
    if (e->src == RCH_DEV_ANY_SOURCE)
        q->nwild--;
}

struct rch_match_entry *rch_match_take_posted_list(struct rch_match_posted *q, uint32_t ctx,
                                                   int32_t src, int32_t tag)
{
    struct rch_match_entry *best = NULL;
    if (q->count == 0)
        return NULL;
    if (q->only)
        return rch_match_take_posted(q, ctx, src, tag);   /* the inline case */
    struct rch_dlist *h = &q->bucket[bucket_of(ctx, src)];
    for (struct rch_dlist *l = h->next; l != h; l = l->next) {
        struct rch_match_entry *e = rch_container_of(l, struct rch_match_entry, link);
        if (e->ctx == ctx && e->src == src && tag_ok(e->tag, tag)) {
            best = e;
            break;
        }
    }
    if (q->nwild) {
        for (struct rch_dlist *l = q->wild.next; l != &q->wild; l = l->next) {
            struct rch_match_entry *e = rch_container_of(l, struct rch_match_entry, link);
            if (best && e->seq > best->seq)
                break;       /* posted later than the specific match: it wins */
            if (e->ctx == ctx && tag_ok(e->tag, tag)) {
                best = e;
                break;
            }
        }
    }
    if (best)
        posted_remove(q, best);
    return best;
}

int rch_match_unpost(struct rch_match_posted *q, struct rch_match_entry *e)
{
    if (!e->queued)
        return 0;
    posted_remove(q, e);
    return 1;
}

void rch_match_add_unexp(struct rch_match_unexp *q, struct rch_match_entry *e)
{
    e->queued = 1;
    rch_dlist_push_tail(&q->bucket[bucket_of(e->ctx, e->src)], &e->link);
    rch_dlist_push_tail(&q->all, &e->all);
    q->count++;
}

void rch_match_remove_unexp(struct rch_match_unexp *q, struct rch_match_entry *e)
{
    if (!e->queued)
        return;
    rch_dlist_remove(&e->link);
    rch_dlist_remove(&e->all);
    e->queued = 0;
    q->count--;
}

struct rch_match_entry *rch_match_find_unexp(struct rch_match_unexp *q, uint32_t ctx,
                                             int32_t src, int32_t tag, int take)
{
    struct rch_match_entry *found = NULL;
    if (q->count == 0)
        return NULL;
    if (src != RCH_DEV_ANY_SOURCE) {
        struct rch_dlist *h = &q->bucket[bucket_of(ctx, src)];
        for (struct rch_dlist *l = h->next; l != h; l = l->next) {
            struct rch_match_entry *e = rch_container_of(l, struct rch_match_entry, link);
            if (e->ctx == ctx && e->src == src && tag_ok(tag, e->tag)) {
                found = e;
                break;
            }
        }
    } else {
        for (struct rch_dlist *l = q->all.next; l != &q->all; l = l->next) {
            struct rch_match_entry *e = rch_container_of(l, struct rch_match_entry, all);
            if (e->ctx == ctx && tag_ok(tag, e->tag)) {
                found = e;
                break;
            }
        }
    }
    if (found && take)
        rch_match_remove_unexp(q, found);
    return found;
}

static void foreach_list(struct rch_dlist *h, size_t off,
                         void (*fn)(struct rch_match_entry *e, void *arg), void *arg)
{
    struct rch_dlist *l = h->next;
    while (l != h) {
        struct rch_dlist *next = l->next;   /* fn may remove l */
        fn((struct rch_match_entry *)(void *)((char *)l - off), arg);
        l = next;
    }
}

void rch_match_posted_foreach(struct rch_match_posted *q,
                              void (*fn)(struct rch_match_entry *e, void *arg), void *arg)
{
    foreach_list(&q->wild, offsetof(struct rch_match_entry, link), fn, arg);
    for (unsigned i = 0; i < RCH_MATCH_BUCKETS; i++)
        foreach_list(&q->bucket[i], offsetof(struct rch_match_entry, link), fn, arg);
}

void rch_match_unexp_foreach(struct rch_match_unexp *q,
                             void (*fn)(struct rch_match_entry *e, void *arg), void *arg)
{
    foreach_list(&q->all, offsetof(struct rch_match_entry, all), fn, arg);
}
