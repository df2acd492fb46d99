/* The receiver's choice between the pipeline and single copy (shm_adapt.h). */
#include <time.h>
#include "shm_adapt.h"

static unsigned class_of(size_t len)
{
    unsigned c = 0;
    while (c + 1 < RCH_SHM_ADAPT_CLASSES && len >> (RCH_SHM_ADAPT_MIN_LOG + c + 1))
        c++;
    return c;
}

static double figure(const struct rch_shm_adapt_way *w)
{
    unsigned n = w->nsamples < RCH_SHM_ADAPT_KEEP ? w->nsamples : RCH_SHM_ADAPT_KEEP;
    double lo = 0;
    for (unsigned i = 0; i < n; i++)
        if (i == 0 || w->ns_per_byte[i] < lo)
            lo = w->ns_per_byte[i];
    return lo;
}

double rch_shm_adapt_figure(const struct rch_shm_adapt *a, size_t len, int way)
{
    return figure(&a->cls[class_of(len)].way[way]);
}

int rch_shm_adapt_choose(struct rch_shm_adapt *a, size_t len)
{
    struct rch_shm_adapt_class *c = &a->cls[class_of(len)];
    const struct rch_shm_adapt_way *p = &c->way[RCH_SHM_WAY_PIPE], *s = &c->way[RCH_SHM_WAY_CMA];
    int way;
    if (p->nsamples < RCH_SHM_ADAPT_FIRST || s->nsamples < RCH_SHM_ADAPT_FIRST) {
        way = s->nsamples < p->nsamples ? RCH_SHM_WAY_CMA : RCH_SHM_WAY_PIPE;
    } else {
        way = figure(s) < figure(p) ? RCH_SHM_WAY_CMA : RCH_SHM_WAY_PIPE;
        if (++c->choices % RCH_SHM_ADAPT_RECHECK == 0)
            way = !way;
    }
    return way;
}

void rch_shm_adapt_sample(struct rch_shm_adapt *a, size_t len, int way, uint64_t t0, uint64_t t1)
{
    uint64_t from = t0 > a->last_done ? t0 : a->last_done;
    if (t1 > a->last_done)
        a->last_done = t1;
    if (len == 0 || t1 <= from)
        return;
    struct rch_shm_adapt_way *w = &a->cls[class_of(len)].way[way];
    w->ns_per_byte[w->nsamples % RCH_SHM_ADAPT_KEEP] = (double)(t1 - from) / (double)len;
    w->nsamples++;
}

void rch_shm_adapt_start(struct rch_shm_adapt *a, void *op_ctx, size_t len, int way, uint64_t t0)
{
    for (unsigned i = 0; i < RCH_SHM_ADAPT_PENDING; i++)
        if (a->pend[i].op_ctx == NULL) {
            a->pend[i] = (struct rch_shm_adapt_pending){ op_ctx, t0, len, way };
            a->npend++;
            return;
        }
}

void rch_shm_adapt_done(struct rch_shm_adapt *a, void *op_ctx, int ok, uint64_t now)
{
    for (unsigned i = 0; i < RCH_SHM_ADAPT_PENDING; i++)
        if (a->pend[i].op_ctx == op_ctx) {
            struct rch_shm_adapt_pending x = a->pend[i];
            a->pend[i].op_ctx = NULL;
            a->npend--;
            if (ok)
                rch_shm_adapt_sample(a, x.len, x.way, x.t0, now);
            return;
        }
}

uint64_t rch_shm_adapt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
