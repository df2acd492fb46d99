/*
 * The host's last-level cache, for the copies' working set (sim.h:
 * sim_params l3). A copy reads a source and writes a destination; where
 * the buffers a host's ranks use between two uses of one of them add up to
 * more than the L3, its lines are gone by its next use and the copy runs
 * at the memory's rate, not the cache's (measured by rdmach-sim-probe
 * copyws: a memcpy walking buffers beyond the L3 costs some 4 times one in
 * it, 8 times with the other core doing the same).
 *
 * The estimate is an LRU stack distance at the grain of buffers: every
 * buffer a copy touches (a message's user buffer at either end, a pipe
 * buffer of the shm rendezvous, a local copy's source and destination) is
 * one entry of its host's list, most recently used first; a buffer is in
 * the L3 at a use when the distinct buffers used on its host since its
 * last use, with itself, fit (each counted at its last use's size, at
 * least a cache line). A buffer's first use in a run counts as in the L3:
 * the probe writes its buffers before it times its calls, and the engine
 * knows nothing of what came before. What the engine does not see is not
 * in the footprint: the eager rings' cells, the unexpected messages'
 * buffers, the node segment, the reductions' reads.
 */
#include <stdlib.h>
#include <string.h>
#include "sim.h"

#define NIL UINT32_MAX
enum { LINE = 64 };

struct cnode {
    uint64_t key, bytes;       /* a pair's pipe cursor: bytes counts its chunks */
    uint32_t prev, next;
};

struct sim_cache {
    double size;
    uint32_t *head;            /* [hosts] most recently used */
    double *total;             /* [hosts] bytes of the buffers in the host's list */
    struct cnode *n;
    uint32_t nn, ncap;
    uint32_t *tab;             /* open addressing: node index or NIL */
    size_t tabsize;
};

struct sim_cache *sim_cache_new(double l3, int nhosts)
{
    struct sim_cache *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->size = l3;
    c->head = malloc((size_t)nhosts * sizeof(uint32_t));
    c->total = calloc((size_t)nhosts, sizeof(double));
    c->tabsize = 1024;
    c->tab = malloc(c->tabsize * sizeof(uint32_t));
    if (!c->head || !c->total || !c->tab) {
        sim_cache_free(c);
        return NULL;
    }
    memset(c->head, 0xff, (size_t)nhosts * sizeof(uint32_t));
    memset(c->tab, 0xff, c->tabsize * sizeof(uint32_t));
    return c;
}

void sim_cache_free(struct sim_cache *c)
{
    if (!c)
        return;
    free(c->head);
    free(c->total);
    free(c->n);
    free(c->tab);
    free(c);
}

static size_t slot_of(const struct sim_cache *c, uint64_t key)
{
    /* splitmix64's finaliser: the keys are bit fields (sim.h SIM_KEY_*) */
    uint64_t h = key;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
    size_t i = (size_t)h & (c->tabsize - 1);
    while (c->tab[i] != NIL && c->n[c->tab[i]].key != key)
        i = (i + 1) & (c->tabsize - 1);
    return i;
}

static int grow(struct sim_cache *c)
{
    size_t old = c->tabsize;
    uint32_t *ot = c->tab;
    c->tab = malloc(old * 2 * sizeof(uint32_t));
    if (!c->tab) {
        c->tab = ot;
        return -1;
    }
    c->tabsize = old * 2;
    memset(c->tab, 0xff, c->tabsize * sizeof(uint32_t));
    for (size_t i = 0; i < old; i++)
        if (ot[i] != NIL)
            c->tab[slot_of(c, c->n[ot[i]].key)] = ot[i];
    free(ot);
    return 0;
}

/* The node of key (created with bytes 0 and unlinked if new: *fresh 1);
 * NIL when there is no memory. */
static uint32_t node(struct sim_cache *c, uint64_t key, int *fresh)
{
    size_t i = slot_of(c, key);
    *fresh = c->tab[i] == NIL;
    if (!*fresh)
        return c->tab[i];
    if (((size_t)c->nn + 1) * 2 > c->tabsize) {
        if (grow(c) != 0)
            return NIL;
        i = slot_of(c, key);
    }
    if (c->nn == c->ncap) {
        uint32_t cap = c->ncap ? c->ncap * 2 : 256;
        struct cnode *nn = realloc(c->n, cap * sizeof(*nn));
        if (!nn)
            return NIL;
        c->n = nn;
        c->ncap = cap;
    }
    c->n[c->nn] = (struct cnode){ key, 0, NIL, NIL };
    c->tab[i] = c->nn;
    return c->nn++;
}

static void unlink_node(struct sim_cache *c, uint32_t host, uint32_t i)
{
    struct cnode *x = &c->n[i];
    if (x->prev != NIL)
        c->n[x->prev].next = x->next;
    else
        c->head[host] = x->next;
    if (x->next != NIL)
        c->n[x->next].prev = x->prev;
}

int sim_cache_touch(struct sim_cache *c, uint32_t host, uint64_t key, uint64_t bytes)
{
    int fresh, in = 1;
    uint32_t i = node(c, key, &fresh);
    if (i == NIL)
        return 1;
    uint64_t own = bytes > LINE ? bytes : LINE;
    c->total[host] += (double)own - (fresh ? 0 : (double)c->n[i].bytes);
    if (!fresh) {
        /* the walk's sum never exceeds the host's total: where all its
         * buffers fit, none is out and nothing is walked */
        double d = (double)own;
        if (c->total[host] > c->size)
            for (uint32_t j = c->head[host]; j != i && j != NIL; j = c->n[j].next)
                if ((d += (double)c->n[j].bytes) > c->size) {
                    in = 0;
                    break;
                }
        unlink_node(c, host, i);
    }
    c->n[i].bytes = own;
    c->n[i].prev = NIL;
    c->n[i].next = c->head[host];
    if (c->head[host] != NIL)
        c->n[c->head[host]].prev = i;
    c->head[host] = i;
    return in;
}

uint64_t sim_cache_next(struct sim_cache *c, uint64_t key)
{
    int fresh;
    uint32_t i = node(c, key, &fresh);
    return i == NIL ? 0 : c->n[i].bytes++;
}

/* copyws times a copy whose source and destination are both beyond the
 * L3: half its excess over the in-cache copy is each buffer's. */
double sim_cache_rate(const struct sim_params *p, int two)
{
    double m = (two ? p->l3_two : p->l3_one) - p->l3_in;
    return m > 0 ? m / 2 : 0;
}
