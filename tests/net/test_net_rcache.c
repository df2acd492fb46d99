/*
 * The network registration cache with a counting fake provider: hits, LRU
 * bounds, the locked-memory retry, and invalidation by free()/munmap()
 * of this program, whose calls the memory monitor (net_memhook.c) redirects
 * by rewriting its relocations; without a monitor, no cache.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "base/tunables.h"
#include "rdma/net/net_rcache.h"

struct fake {
    int regs, deregs;
    size_t pinned, limit;          /* limit 0: none */
};

static rdmach_status_t fake_reg(void *arg, void *addr, size_t len, struct rch_net_mr *mr)
{
    struct fake *f = arg;
    if (f->limit && f->pinned + len > f->limit)
        return RDMACH_ERR_REG_LIMIT;
    f->regs++;
    f->pinned += len;
    mr->addr = addr;
    mr->len = len;
    mr->rkey = (uint64_t)f->regs;
    mr->desc = NULL;
    mr->priv = f;
    return RDMACH_OK;
}

static void fake_dereg(void *arg, struct rch_net_mr *mr)
{
    struct fake *f = arg;
    f->deregs++;
    f->pinned -= mr->len;
}

static struct rch_net_rcache rc;
static struct fake fk;

static void setup_n(unsigned entries, size_t bytes)
{
    memset(&fk, 0, sizeof(fk));
    cr_assert_eq(rch_net_rcache_init(&rc, 1, entries, bytes, fake_reg, fake_dereg, &fk), RDMACH_OK);
    rch_net_memhook_add(&rc);
}

static void teardown(void)
{
    rch_net_memhook_remove(&rc);
    rch_net_rcache_fini(&rc);
    cr_assert_eq(fk.regs, fk.deregs, "every registration is released at the end");
}

Test(net_rcache, a_buffer_used_again_is_a_hit)
{
    setup_n(16, 1 << 30);
    char *buf = malloc(100000);
    struct rch_net_rcache_entry *a, *b, *c;
    cr_assert_eq(rch_net_rcache_get(&rc, buf, 100000, &a), RDMACH_OK);
    rch_net_rcache_put(&rc, a);
    cr_assert_eq(rch_net_rcache_get(&rc, buf + 10, 5000, &b), RDMACH_OK, "a part of a cached range");
    cr_assert_eq(a, b);
    cr_assert_eq(rch_net_rcache_get(&rc, buf, 100000, &c), RDMACH_OK);
    cr_assert_eq(a, c);
    cr_assert_eq(b->refs, 2);
    rch_net_rcache_put(&rc, b);
    rch_net_rcache_put(&rc, c);
    struct rch_net_rcache_stats st;
    rch_net_rcache_stats(&rc, &st);
    cr_assert_eq(st.hits, 2);
    cr_assert_eq(st.misses, 1);
    cr_assert_eq(fk.regs, 1);
    free(buf);   /* invalidates (and the entry goes) */
    teardown();
}

Test(net_rcache, the_least_recently_used_idle_entry_goes_first)
{
    setup_n(3, 1 << 30);
    char *bufs[5];
    struct rch_net_rcache_entry *e[5];
    for (int i = 0; i < 5; i++)
        bufs[i] = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(rch_net_rcache_get(&rc, bufs[i], 8192, &e[i]), RDMACH_OK);
        rch_net_rcache_put(&rc, e[i]);
    }
    /* touch 0 so that 1 is the oldest */
    cr_assert_eq(rch_net_rcache_get(&rc, bufs[0], 100, &e[0]), RDMACH_OK);
    rch_net_rcache_put(&rc, e[0]);
    cr_assert_eq(rch_net_rcache_get(&rc, bufs[3], 8192, &e[3]), RDMACH_OK);   /* evicts 1 */
    struct rch_net_rcache_stats st;
    rch_net_rcache_stats(&rc, &st);
    cr_assert_eq(st.evictions, 1);
    cr_assert_eq(st.entries, 3);
    struct rch_net_rcache_entry *x;
    cr_assert_eq(rch_net_rcache_get(&rc, bufs[0], 8192, &x), RDMACH_OK);
    rch_net_rcache_stats(&rc, &st);
    cr_assert_eq(st.hits, 2, "0 stayed");
    rch_net_rcache_put(&rc, x);
    /* held entries are never evicted: 3 is held; with 4 more the cache goes over its bound */
    cr_assert_eq(rch_net_rcache_get(&rc, bufs[4], 8192, &e[4]), RDMACH_OK);
    cr_assert_eq(e[3]->valid, 1);
    rch_net_rcache_put(&rc, e[3]);
    rch_net_rcache_put(&rc, e[4]);
    rch_net_rcache_stats(&rc, &st);
    cr_assert_leq(st.entries, 3);
    for (int i = 0; i < 5; i++)
        munmap(bufs[i], 8192);
    teardown();
}

Test(net_rcache, freed_memory_is_never_served_from_the_cache)
{
    setup_n(16, 1 << 30);
    size_t len = 4 << 20;
    char *a = malloc(len);
    struct rch_net_rcache_entry *e;
    cr_assert_eq(rch_net_rcache_get(&rc, a, len, &e), RDMACH_OK);
    rch_net_rcache_put(&rc, e);
    free(a);   /* interposed: the cached registration is invalidated */
    struct rch_net_rcache_stats st;
    rch_net_rcache_stats(&rc, &st);
    cr_assert_eq(st.invalidations, 1, "free() did not reach the cache");
    rch_net_rcache_reap(&rc);
    cr_assert_eq(fk.deregs, 1, "the idle invalidated registration is released");
    char *b = malloc(len);
    struct rch_net_rcache_entry *f;
    cr_assert_eq(rch_net_rcache_get(&rc, b, len, &f), RDMACH_OK);
    rch_net_rcache_stats(&rc, &st);
    cr_assert_eq(st.hits, 0, "served a registration of freed memory (%p then %p)", (void *)a, (void *)b);
    cr_assert_eq(st.misses, 2);
    rch_net_rcache_put(&rc, f);
    free(b);
    teardown();
}

void rcache_other_lib_free(void *p);
int rcache_other_lib_munmap(void *p, size_t len);

Test(net_rcache, memory_released_by_another_library_is_seen)
{
    setup_n(16, 1 << 30);
    size_t len = 4 << 20;
    char *a = malloc(len);
    char *m = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct rch_net_rcache_entry *e;
    cr_assert_eq(rch_net_rcache_get(&rc, a, len, &e), RDMACH_OK);
    rch_net_rcache_put(&rc, e);
    cr_assert_eq(rch_net_rcache_get(&rc, m, 65536, &e), RDMACH_OK);
    rch_net_rcache_put(&rc, e);
    rcache_other_lib_free(a);
    struct rch_net_rcache_stats st;
    rch_net_rcache_stats(&rc, &st);
    cr_assert_eq(st.invalidations, 1, "free() in another library did not reach the cache");
    rcache_other_lib_munmap(m, 65536);
    rch_net_rcache_stats(&rc, &st);
    cr_assert_eq(st.invalidations, 2, "munmap() in another library did not reach the cache");
    teardown();
}

Test(net_rcache, munmap_while_held_releases_on_the_last_put)
{
    setup_n(16, 1 << 30);
    char *a = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct rch_net_rcache_entry *e;
    cr_assert_eq(rch_net_rcache_get(&rc, a + 100, 1000, &e), RDMACH_OK);
    munmap(a, 65536);
    cr_assert_eq(e->valid, 0);
    cr_assert_eq(fk.deregs, 0, "released while still held");
    rch_net_rcache_put(&rc, e);
    cr_assert_eq(fk.deregs, 1);
    teardown();
}

Test(net_rcache, a_registration_limit_releases_idle_entries_and_retries)
{
    setup_n(64, 1 << 30);
    fk.limit = 3 * 65536;
    char *bufs[4];
    for (int i = 0; i < 4; i++)
        bufs[i] = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct rch_net_rcache_entry *e;
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(rch_net_rcache_get(&rc, bufs[i], 65536, &e), RDMACH_OK);
        rch_net_rcache_put(&rc, e);
    }
    cr_assert_eq(rch_net_rcache_get(&rc, bufs[3], 65536, &e), RDMACH_OK, "no retry after releasing idle entries");
    /* held: nothing can be released, the limit error comes through */
    struct rch_net_rcache_entry *held[3];
    rch_net_rcache_put(&rc, e);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(rch_net_rcache_get(&rc, bufs[i], 65536, &held[i]), RDMACH_OK);
    cr_assert_eq(rch_net_rcache_get(&rc, bufs[3], 65536, &e), RDMACH_ERR_REG_LIMIT);
    for (int i = 0; i < 3; i++)
        rch_net_rcache_put(&rc, held[i]);
    for (int i = 0; i < 4; i++)
        munmap(bufs[i], 65536);
    teardown();
}

Test(net_rcache, disabled_registers_every_time)
{
    memset(&fk, 0, sizeof(fk));
    cr_assert_eq(rch_net_rcache_init(&rc, 0, 16, 1 << 30, fake_reg, fake_dereg, &fk), RDMACH_OK);
    char *a = malloc(5000);
    struct rch_net_rcache_entry *e;
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(rch_net_rcache_get(&rc, a, 5000, &e), RDMACH_OK);
        rch_net_rcache_put(&rc, e);
    }
    cr_assert_eq(fk.regs, 3);
    cr_assert_eq(fk.deregs, 3);
    free(a);
    rch_net_rcache_fini(&rc);
}

Test(net_rcache, without_a_memory_monitor_the_cache_is_refused)
{
    memset(&fk, 0, sizeof(fk));
    cr_assert_eq(rch_net_rcache_init(&rc, 1, 16, 1 << 30, fake_reg, fake_dereg, &fk), RDMACH_OK);
    rch_tun.net_mem_monitor = RCH_MEM_MONITOR_OFF;
    cr_assert_eq(rch_net_memhook_add(&rc), RDMACH_ERR_UNSUPPORTED, "a cache nobody tells of freed memory");
    cr_assert_str_eq(rch_net_memhook_describe(),
                     "off (RDMACH_NET_MEM_MONITOR=off: the registration cache is not used)");
    rch_tun.net_mem_monitor = RCH_MEM_MONITOR_AUTO;
    rch_net_rcache_fini(&rc);
}
