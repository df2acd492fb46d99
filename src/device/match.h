/*
 * The matching engine: posted receives and unexpected messages, matched on
 * (context id, source rank in the communicator, tag) with MPI's rules.
 * Knows nothing of requests, channels or packets: entries are embedded in the
 * device's own objects (container_of), so this file is unit-testable alone.
 *
 * Structure. Each queue hashes entries by (ctx, src) into buckets of
 * doubly-linked lists kept in insertion order, so the common case — a
 * receive for a specific source, one message at a time — looks at one short
 * list, and many outstanding receives from many peers do not slow each other
 * down. Wildcards:
 *   posted:     receives with ANY_SOURCE live in one extra list (`wild`);
 *               every posted entry gets a sequence number, and an arriving
 *               message takes the earliest of (first match in its bucket,
 *               first match in `wild`): the order the receives were posted.
 *   unexpected: messages are also threaded on one arrival-order list (`all`)
 *               that an ANY_SOURCE receive scans; a specific source scans its
 *               bucket. Both give the earliest matching arrival.
 * ANY_TAG matches any tag. Non-overtaking per (sender, ctx) follows from the
 * insertion order of each list, given that channels deliver in order.
 *
 * Cost: O(1) insert and remove; a search walks one list from its head. The
 * most common state — exactly one posted receive (a blocking receive) — is
 * recognised without hashing: `only` names that entry. Measured (random
 * source order, steady state; a plain single list for comparison):
 *   posted   1: 12-16 ns hashed, ~4 ns plain  -> hence `only` (now 6-11 ns,
 *                 most of it the re-post the benchmark does each time)
 *   posted   8: 13-15 ns hashed, 21-35 ns plain
 *   posted  64: 9-25 ns hashed, 80-100 ns plain
 *   posted 512: 13-16 ns hashed, 560-760 ns plain
 */
#ifndef RCH_DEVICE_MATCH_H
#define RCH_DEVICE_MATCH_H

#include <stddef.h>
#include <stdint.h>
#include "device/dev.h"

struct rch_dlist {
    struct rch_dlist *next, *prev;
};

static inline void rch_dlist_init(struct rch_dlist *h)
{
    h->next = h->prev = h;
}
static inline int rch_dlist_empty(const struct rch_dlist *h)
{
    return h->next == h;
}
static inline void rch_dlist_push_tail(struct rch_dlist *h, struct rch_dlist *e)
{
    e->prev = h->prev;
    e->next = h;
    h->prev->next = e;
    h->prev = e;
}
static inline void rch_dlist_remove(struct rch_dlist *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->next = e->prev = e;
}

#define rch_container_of(ptr, type, member) \
    ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#define RCH_MATCH_BUCKETS 256u   /* power of two */

/* Embedded in a posted receive or an unexpected message. */
struct rch_match_entry {
    struct rch_dlist link;       /* bucket (or posted `wild`) list */
    struct rch_dlist all;        /* unexpected: arrival-order list */
    uint64_t seq;                /* posted: order of posting */
    uint32_t ctx;
    int32_t  src;                /* posted: may be RCH_DEV_ANY_SOURCE */
    int32_t  tag;                /* posted: may be RCH_DEV_ANY_TAG */
    int      queued;             /* on a queue now */
};

struct rch_match_posted {
    size_t count;                /* entries in all lists */
    struct rch_match_entry *only;/* the entry, when count == 1 and it is known (else NULL) */
    size_t nwild;
    uint64_t next_seq;
    struct rch_dlist wild;
    struct rch_dlist bucket[RCH_MATCH_BUCKETS];
};

struct rch_match_unexp {
    size_t count;
    struct rch_dlist all;
    struct rch_dlist bucket[RCH_MATCH_BUCKETS];
};

void rch_match_posted_init(struct rch_match_posted *q);
void rch_match_unexp_init(struct rch_match_unexp *q);

/* Post a receive (e->ctx/src/tag set by the caller, wildcards allowed). */
void rch_match_post(struct rch_match_posted *q, struct rch_match_entry *e);
/* The general case of rch_match_take_posted (two or more entries). */
struct rch_match_entry *rch_match_take_posted_list(struct rch_match_posted *q, uint32_t ctx,
                                                   int32_t src, int32_t tag);
/* A message (ctx, src, tag) arrived: the earliest posted receive it matches,
 * removed from the queue, or NULL. Inline: an empty queue and the single
 * posted receive of a blocking MPI_Recv are decided here. */
static inline struct rch_match_entry *rch_match_take_posted(struct rch_match_posted *q, uint32_t ctx,
                                                            int32_t src, int32_t tag)
{
    struct rch_match_entry *e = q->only;
    if (e) {
        if (e->ctx != ctx || (e->src != src && e->src != RCH_DEV_ANY_SOURCE) ||
            (e->tag != tag && e->tag != RCH_DEV_ANY_TAG))
            return NULL;
        rch_dlist_remove(&e->link);
        e->queued = 0;
        q->count = 0;
        q->only = NULL;
        if (e->src == RCH_DEV_ANY_SOURCE)
            q->nwild--;
        return e;
    }
    if (q->count == 0)
        return NULL;
    return rch_match_take_posted_list(q, ctx, src, tag);
}
/* Remove a posted receive (cancel). Returns 1 if it was queued. */
int rch_match_unpost(struct rch_match_posted *q, struct rch_match_entry *e);

/* Queue an unexpected message (concrete ctx/src/tag). */
void rch_match_add_unexp(struct rch_match_unexp *q, struct rch_match_entry *e);
/* The earliest unexpected message a receive (ctx, src, tag; wildcards
 * allowed) matches, or NULL; removed from the queue if `take`. */
struct rch_match_entry *rch_match_find_unexp(struct rch_match_unexp *q, uint32_t ctx,
                                             int32_t src, int32_t tag, int take);
void rch_match_remove_unexp(struct rch_match_unexp *q, struct rch_match_entry *e);

/* Iterate every entry of a queue (failure handling, finalize). The callback
 * may remove the entry it is given. */
void rch_match_posted_foreach(struct rch_match_posted *q,
                              void (*fn)(struct rch_match_entry *e, void *arg), void *arg);
void rch_match_unexp_foreach(struct rch_match_unexp *q,
                             void (*fn)(struct rch_match_entry *e, void *arg), void *arg);

#endif
