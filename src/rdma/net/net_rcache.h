/*
 * The registration cache of the network channel: rendezvous buffers stay
 * registered after use, so a buffer sent again costs no registration.
 *
 * Bounded: at most `max_entries` registrations and `max_bytes` bytes; beyond
 * that, the least recently used registration nobody holds is released. A
 * failed registration (the locked-memory limit) releases every idle one and
 * tries once more.
 *
 * Invalidation: a cached registration must never outlive the memory it
 * describes. When memory is freed or unmapped — free(), realloc(), munmap(),
 * mremap(), madvise(DONTNEED/FREE/REMOVE), brk/sbrk, shmdt calls are
 * redirected to the memory monitor by relocation patching (net_memhook.c) —
 * every cached registration overlapping the range is invalidated: never found
 * again; deregistered at once if idle (later, outside the hook, from the
 * channel's own thread), or when its last holder lets go. A buffer freed and
 * reallocated at the same address therefore gets a fresh registration.
 * See docs/NETWORK.md for what is not caught (raw system calls).
 *
 * Locking: free() runs in any thread, so the cache has a mutex. Nothing is
 * called out (provider, malloc, free) while it is held, so a hook that runs
 * inside the provider's own free() never deadlocks.
 *
 * Entries are found by a linear scan (a few hundred entries at most, once per
 * rendezvous); an address-range filter lets frees of unrelated memory skip
 * the lock.
 */
#ifndef RCH_RDMA_NET_RCACHE_H
#define RCH_RDMA_NET_RCACHE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "rdma/channel.h"
#include "rdma/net/net_prov.h"

struct rch_net_rcache_entry {
    struct rch_rdma_mr pub;            /* handed to the layer above; pub.priv = this entry */
    struct rch_net_mr mr;              /* the provider's registration */
    uintptr_t start, end;              /* registered range, page aligned */
    int refs;
    int valid;                         /* 0: invalidated, never found again */
    struct rch_net_rcache_entry *prev, *next;   /* on `live` (valid) or `dead` list */
    struct rch_net_rcache_entry *lru_prev, *lru_next;  /* idle valid entries, oldest first */
    int on_lru;
    struct rch_net_rcache_entry *reap_next;   /* detached for destruction (reap) */
};

typedef rdmach_status_t (*rch_net_reg_fn)(void *arg, void *addr, size_t len, struct rch_net_mr *mr);
typedef void (*rch_net_dereg_fn)(void *arg, struct rch_net_mr *mr);

struct rch_net_rcache_stats {
    uint64_t hits, misses, evictions, invalidations, registered_bytes;
    unsigned entries;
};

struct rch_net_rcache {
    pthread_mutex_t lock;
    int enabled;                       /* 0: every get registers, every put deregisters */
    unsigned max_entries;
    size_t max_bytes;
    rch_net_reg_fn reg;
    rch_net_dereg_fn dereg;
    void *arg;
    struct rch_net_rcache_entry live, dead;     /* list heads */
    struct rch_net_rcache_entry lru;            /* LRU head: lru_next = oldest */
    unsigned nlive;
    size_t live_bytes;
    volatile uintptr_t lo, hi;         /* bounds of the live entries (hook filter) */
    struct rch_net_rcache_stats st;
};

rdmach_status_t rch_net_rcache_init(struct rch_net_rcache *rc, int enabled, unsigned max_entries,
                                    size_t max_bytes, rch_net_reg_fn reg, rch_net_dereg_fn dereg, void *arg);
/* Deregister everything (entries still held are released too). */
void rch_net_rcache_fini(struct rch_net_rcache *rc);
/* A registration covering [addr, addr+len): found or made. */
rdmach_status_t rch_net_rcache_get(struct rch_net_rcache *rc, void *addr, size_t len,
                                   struct rch_net_rcache_entry **out);
void rch_net_rcache_put(struct rch_net_rcache *rc, struct rch_net_rcache_entry *e);
/* Memory [addr, addr+len) is going away. Safe in any thread, inside free(). */
void rch_net_rcache_invalidate(struct rch_net_rcache *rc, uintptr_t addr, size_t len);
/* Deregister invalidated idle entries (the channel's thread). */
void rch_net_rcache_reap(struct rch_net_rcache *rc);
void rch_net_rcache_stats(struct rch_net_rcache *rc, struct rch_net_rcache_stats *st);

/* net_memhook.c: the memory monitor that tells caches of freed memory.
 * add fails (the cache must then not be used) when the monitor is off or
 * cannot be installed; mode is RCH_MEM_MONITOR_RELOC or _OFF; describe says
 * which and why (rdmach-info). */
rdmach_status_t rch_net_memhook_add(struct rch_net_rcache *rc);
void rch_net_memhook_remove(struct rch_net_rcache *rc);
int rch_net_memhook_mode(void);
const char *rch_net_memhook_describe(void);

#endif
