/*
 * Requests and unexpected-message descriptors: pooled, never malloc'd on the
 * fast path. Both pools grow by slabs (off the fast path) and never shrink
 * until finalize, so an object's address is stable for its whole life.
 *
 * Request ids. A request is named on the wire by (generation << 32 | index):
 * the index finds its slot through the slab table, the generation (bumped on
 * every release, never 0) rejects an id that outlived its request. A peer can
 * therefore never make us touch memory that is not a live request.
 */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "device/dev_impl.h"

#define REQ_SLAB 64u
#define UNEXP_SLAB 32u

static rdmach_status_t grow_reqs(void)
{
    if (rch_dev.nslabs == rch_dev.slabs_cap) {
        uint32_t cap = rch_dev.slabs_cap ? rch_dev.slabs_cap * 2 : 16;
        struct rch_dev_ireq **s = realloc(rch_dev.slabs, cap * sizeof(*s));
        if (s == NULL)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "device: no memory for the request table");
        rch_dev.slabs = s;
        rch_dev.slabs_cap = cap;
    }
    struct rch_dev_ireq *slab = aligned_alloc(RCH_CACHELINE, REQ_SLAB * sizeof(*slab));
    if (slab == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "device: no memory for %u more requests", REQ_SLAB);
    memset(slab, 0, REQ_SLAB * sizeof(*slab));
    uint32_t base = rch_dev.nslabs * REQ_SLAB;
    rch_dev.slabs[rch_dev.nslabs++] = slab;
    /* Push in reverse so the lowest index is handed out first. */
    for (uint32_t i = REQ_SLAB; i-- > 0;) {
        slab[i].index = base + i;
        slab[i].gen = 1;
        slab[i].state = RCH_DEV_S_FREE;
        slab[i].next = rch_dev.free_reqs;
        rch_dev.free_reqs = &slab[i];
    }
    return RDMACH_OK;
}

static rdmach_status_t grow_unexp(void)
{
    if (rch_dev.n_unexp_slabs == rch_dev.unexp_slabs_cap) {
        uint32_t cap = rch_dev.unexp_slabs_cap ? rch_dev.unexp_slabs_cap * 2 : 16;
        void **s = realloc(rch_dev.unexp_slabs, cap * sizeof(*s));
        if (s == NULL)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "device: no memory for the unexpected table");
        rch_dev.unexp_slabs = s;
        rch_dev.unexp_slabs_cap = cap;
    }
    struct rch_dev_unexp *slab = calloc(UNEXP_SLAB, sizeof(*slab));
    if (slab == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "device: no memory for unexpected messages");
    rch_dev.unexp_slabs[rch_dev.n_unexp_slabs++] = slab;
    for (uint32_t i = UNEXP_SLAB; i-- > 0;) {
        slab[i].next = rch_dev.free_unexp;
        rch_dev.free_unexp = &slab[i];
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dev_pools_init(void)
{
    rdmach_status_t st = grow_reqs();
    if (st != RDMACH_OK)
        return st;
    return grow_unexp();
}

void rch_dev_pools_fini(void)
{
    for (uint32_t i = 0; i < rch_dev.nslabs; i++)
        free(rch_dev.slabs[i]);
    free(rch_dev.slabs);
    rch_dev.slabs = NULL;
    rch_dev.nslabs = rch_dev.slabs_cap = 0;
    rch_dev.free_reqs = NULL;
    for (uint32_t i = 0; i < rch_dev.n_unexp_slabs; i++) {
        struct rch_dev_unexp *slab = rch_dev.unexp_slabs[i];
        for (uint32_t j = 0; j < UNEXP_SLAB; j++)
            if (slab[j].data != NULL && slab[j].data != slab[j].inl)
                free(slab[j].data);
        free(slab);
    }
    free(rch_dev.unexp_slabs);
    rch_dev.unexp_slabs = NULL;
    rch_dev.n_unexp_slabs = rch_dev.unexp_slabs_cap = 0;
    rch_dev.free_unexp = NULL;
}

struct rch_dev_ireq *rch_dev_ireq_grow(void)
{
    if (grow_reqs() != RDMACH_OK)
        return NULL;
    return rch_dev.free_reqs;
}

void rch_dev_ireq_release(struct rch_dev_ireq *r)
{
    r->state = RCH_DEV_S_FREE;
    if (++r->gen == 0)
        r->gen = 1;
    r->next = rch_dev.free_reqs;
    rch_dev.free_reqs = r;
}

struct rch_dev_ireq *rch_dev_ireq_lookup(uint64_t id)
{
    uint32_t index = (uint32_t)id, gen = (uint32_t)(id >> 32);
    if (index / REQ_SLAB >= rch_dev.nslabs)
        return NULL;
    struct rch_dev_ireq *r = &rch_dev.slabs[index / REQ_SLAB][index % REQ_SLAB];
    if (r->gen != gen || r->state == RCH_DEV_S_FREE)
        return NULL;
    return r;
}

void rch_dev_ireq_complete(struct rch_dev_ireq *r, rdmach_status_t err)
{
    if (RCH_UNLIKELY(r->cxl != RCH_DEV_CXL_NONE) && err == RDMACH_OK) {
        rch_dev_cancel_hold(r);   /* the answer to the cancel decides */
        return;
    }
    r->cxl = RCH_DEV_CXL_NONE;
    r->pub.err = err;
    r->state = RCH_DEV_S_DONE;
    if (r->pub.on_complete)
        r->pub.on_complete(&r->pub);
    __atomic_store_n(&r->pub.done, 1, __ATOMIC_RELEASE);
    if (r->freed)
        rch_dev_ireq_release(r);
}

void rch_dev_ireq_finish(struct rch_dev_ireq *r, rdmach_status_t err)
{
    rch_dev_pending_del(r);
    rch_dev_rndv_dereg(r);
    rch_dev_ireq_complete(r, err);
}

struct rch_dev_unexp *rch_dev_unexp_alloc(size_t data_bytes)
{
    struct rch_dev_unexp *u = rch_dev.free_unexp;
    if (u == NULL) {
        if (grow_unexp() != RDMACH_OK)
            return NULL;
        u = rch_dev.free_unexp;
    }
    if (data_bytes <= RCH_DEV_UNEXP_INLINE) {
        u->data = u->inl;
    } else {
        u->data = malloc(data_bytes);
        if (u->data == NULL) {
            rch_base_err(RDMACH_ERR_NO_MEMORY, "device: no memory to hold an unexpected message of %zu bytes",
                         data_bytes);
            return NULL;
        }
    }
    rch_dev.free_unexp = u->next;
    u->next = NULL;
    u->me.queued = 0;
    u->flags = 0;
    u->sreq = 0;
    return u;
}

void rch_dev_unexp_release(struct rch_dev_unexp *u)
{
    if (u->data != NULL && u->data != u->inl)
        free(u->data);
    u->data = NULL;
    u->next = rch_dev.free_unexp;
    rch_dev.free_unexp = u;
}

/* ---- the public request calls (dev.h) ---- */

struct rch_dev_req *rch_dev_req_alloc(int kind)
{
    struct rch_dev_ireq *r = rch_dev_ireq_alloc(kind);
    if (r == NULL)
        return NULL;
    r->state = RCH_DEV_S_GREQ;
    return &r->pub;
}

void rch_dev_req_complete(struct rch_dev_req *req)
{
    struct rch_dev_ireq *r = (struct rch_dev_ireq *)req;
    if (req == NULL || req->done)
        return;
    rch_dev_ireq_complete(r, req->err);
}

void rch_dev_req_free(struct rch_dev_req *req)
{
    struct rch_dev_ireq *r = (struct rch_dev_ireq *)req;
    if (req == NULL || r->state == RCH_DEV_S_FREE)
        return;
    if (__atomic_load_n(&req->done, __ATOMIC_ACQUIRE))
        rch_dev_ireq_release(r);
    else
        r->freed = 1;   /* detached: reclaimed when it completes */
}

const char *rch_dev_req_why(const struct rch_dev_req *req)
{
    const struct rch_dev_ireq *r = (const struct rch_dev_ireq *)req;
    if (req->err == RDMACH_ERR_PEER_DEAD && r->peer >= 0 && r->peer < rch_dev.size && rch_dev.peers &&
        rch_dev.peers[r->peer].why)
        return rch_dev.peers[r->peer].why;
    return rdmach_last_error();
}

uint64_t rch_dev_req_id(const struct rch_dev_req *req)
{
    return rch_dev_ireq_id((const struct rch_dev_ireq *)req);
}

int rch_dev_req_id_busy(uint64_t id)
{
    struct rch_dev_ireq *r = rch_dev_ireq_lookup(id);
    return r != NULL && !__atomic_load_n(&r->pub.done, __ATOMIC_ACQUIRE);
}
