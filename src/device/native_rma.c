/*
 * Native PUT/GET (rdmach.h): user memory registration, exported keys, and
 * polled one-sided operations issued straight to the channel that the
 * device chose for the target rank (select.c). No packets of our own, no
 * call at the target: the channel's put/get does the transfer.
 *
 *   rdmach_mem_reg   registers the range with every open channel that has
 *                    RMA (shared memory records it; the network channel
 *                    registers it with the NIC / provider through its cache)
 *   rdmach_mem_key   owner, range, access, and each channel's remote key
 *                    (native_rma.h), so one key reaches node-local and
 *                    remote ranks alike
 *   rdmach_put/get   validate everything, pick the key entry of the channel
 *                    that reaches `rank`, and call its put/get with no local
 *                    registration (the network channel takes one from its
 *                    registration cache per operation; shared memory needs
 *                    none). Self: memmove.
 *   rdmach_test/wait poll the device (rch_dev_progress / rch_dev_wait_until)
 *
 * Completion path: an operation is a pooled device request (no malloc) in
 * state RCH_DEV_S_NATIVE, on its peer's pending list, whose id is the
 * channel's op_ctx. The channel completes it at once (put/get returned OK:
 * shared-memory single copy), or later through upcalls.rma_done, which
 * recv.c (rch_dev_up_rma_done) hands to rch_dev_native_rma_done; a peer
 * failure finishes every request on the pending list with PEER_DEAD
 * (init.c). Either way rch_dev_ireq_complete runs on_done, which writes the
 * outcome into the caller's rdmach_op_t, and the request (marked freed)
 * returns to the pool. A late rma_done for a request already failed finds
 * no live request with its id and is dropped.
 *
 * Cost per operation above the channel: the checks, a copy of the key, one
 * request from the free list; no lock, no system call, no allocation.
 * Threading: as the device (one thread at a time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/log.h"
#include "device/dev_impl.h"
#include "device/native_rma.h"

/* A registration: the user's range and each channel's handle. */
struct rch_native_mem {
    unsigned access;                 /* RDMACH_MEM_REMOTE_* */
    void *addr;
    size_t len;
    int nregs;
    struct {
        const struct rch_rdma_ops *ops;
        struct rch_rdma_chan *chan;
        struct rch_rdma_mr *mr;
    } regs[RCH_DEV_MAX_CHANS];
};

/*
 * Registrations are named by handles, not by their addresses: a handle is
 * (generation << 32 | slot + 1) dressed as an rdmach_mem_t (the user never
 * dereferences it). A slot's generation moves on when its registration is
 * released, so a handle released twice, or kept after its slot was reused,
 * is told from a live one by reading only the table, never freed memory.
 * The table is never shrunk nor freed (handles outlive rdmach_finalize:
 * releasing after it is allowed). A handle repeats only after 2^32 reuses
 * of one slot. Threading: as the device.
 */
struct mem_slot {
    uint32_t gen;
    int next_free;                   /* -1: end of the free list */
    struct rch_native_mem *m;        /* NULL: free */
};
_Static_assert(sizeof(uintptr_t) >= 8, "a registration handle holds a 32-bit slot and generation");
static struct mem_slot *mem_slots;
static int mem_nslots, mem_free = -1;

static rdmach_mem_t mem_handle(int slot)
{
    return (rdmach_mem_t)(uintptr_t)(((uint64_t)mem_slots[slot].gen << 32) | (uint32_t)(slot + 1));
}

/* The slot a handle names while it is live, or -1. */
static int mem_slot_of(rdmach_mem_t mem)
{
    uint64_t h = (uint64_t)(uintptr_t)mem;
    int64_t slot = (int64_t)(uint32_t)h - 1;
    if (slot < 0 || slot >= mem_nslots || mem_slots[slot].m == NULL || mem_slots[slot].gen != (uint32_t)(h >> 32))
        return -1;
    return (int)slot;
}

static int mem_slot_take(struct rch_native_mem *m)
{
    if (mem_free < 0) {
        int n = mem_nslots ? 2 * mem_nslots : 16;
        struct mem_slot *t = realloc(mem_slots, (size_t)n * sizeof(*t));
        if (t == NULL)
            return -1;
        for (int i = n - 1; i >= mem_nslots; i--)
            t[i] = (struct mem_slot){ .gen = 1, .next_free = mem_free, .m = NULL }, mem_free = i;
        mem_slots = t;
        mem_nslots = n;
    }
    int s = mem_free;
    mem_free = mem_slots[s].next_free;
    mem_slots[s].m = m;
    return s;
}

static void mem_slot_put(int s)
{
    mem_slots[s].m = NULL;
    mem_slots[s].gen++;
    mem_slots[s].next_free = mem_free;
    mem_free = s;
}

/* The message of the latest failed operation (test/wait report it). */
static char native_why[256];

static const char *kind_name(int kind)
{
    return kind == RCH_NATIVE_PUT ? "rdmach_put" : "rdmach_get";
}

/* ---- registration and keys ---- */

static void mem_release(struct rch_native_mem *m)
{
    /* After rdmach_finalize the channels are closed and took their
     * registrations with them: only the handle is left. */
    if (rch_dev.initialized)
        for (int i = 0; i < m->nregs; i++)
            m->regs[i].ops->mem_dereg(m->regs[i].chan, m->regs[i].mr);
    free(m);
}

RDMACH_API rdmach_status_t rdmach_mem_reg(void *addr, size_t len, unsigned access, rdmach_mem_t *mem)
{
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "rdmach_mem_reg: rdmach is not initialized");
    if (mem == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_mem_reg: mem is NULL");
    if (addr == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_mem_reg: addr is NULL");
    if ((uintptr_t)addr + len < (uintptr_t)addr)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_mem_reg: addr %p + len %zu wraps around", addr, len);
    if (access == 0 || (access & ~(unsigned)(RDMACH_MEM_REMOTE_READ | RDMACH_MEM_REMOTE_WRITE)))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_mem_reg: access 0x%x is not a non-empty set of "
                            "RDMACH_MEM_REMOTE_READ|RDMACH_MEM_REMOTE_WRITE", access);
    struct rch_native_mem *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "rdmach_mem_reg: no memory for a registration handle");
    m->access = access;
    m->addr = addr;
    m->len = len;
    unsigned chan_access = RCH_RDMA_ACCESS_LOCAL |
                           (access & RDMACH_MEM_REMOTE_READ ? RCH_RDMA_ACCESS_REMOTE_READ : 0) |
                           (access & RDMACH_MEM_REMOTE_WRITE ? RCH_RDMA_ACCESS_REMOTE_WRITE : 0);
    for (int i = 0; i < rch_dev.nchans && len > 0; i++) {
        struct rch_dev_chan *dc = &rch_dev.chans[i];
        if (dc->chan == NULL || dc->caps == NULL || !dc->caps->rma)
            continue;
        if (strlen(dc->ops->name) >= RCH_NATIVE_CHAN_NAME) {
            mem_release(m);
            return rch_base_err(RDMACH_ERR_UNSUPPORTED, "rdmach_mem_reg: the channel name '%s' does not fit a key",
                                dc->ops->name);
        }
        struct rch_rdma_mr *mr = NULL;
        rdmach_status_t st = dc->ops->mem_reg(dc->chan, addr, len, chan_access, &mr);
        if (st != RDMACH_OK) {
            char why[200];
            snprintf(why, sizeof(why), "%s", rdmach_last_error());
            mem_release(m);
            return rch_base_err(st, "rdmach_mem_reg: registering %zu bytes at %p with the %s channel: %s", len,
                                addr, dc->ops->name, why);
        }
        m->regs[m->nregs].ops = dc->ops;
        m->regs[m->nregs].chan = dc->chan;
        m->regs[m->nregs].mr = mr;
        m->nregs++;
    }
    int slot = mem_slot_take(m);
    if (slot < 0) {
        mem_release(m);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "rdmach_mem_reg: no memory for a registration handle");
    }
    RCH_DEBUG("native", "registered %zu bytes at %p (access 0x%x) with %d channel(s)", len, addr, access, m->nregs);
    *mem = mem_handle(slot);
    return RDMACH_OK;
}

RDMACH_API rdmach_status_t rdmach_mem_dereg(rdmach_mem_t mem)
{
    if (mem == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_mem_dereg: mem is NULL");
    int slot = mem_slot_of(mem);
    if (slot < 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_mem_dereg: mem is not a live registration "
                            "(released twice?)");
    mem_release(mem_slots[slot].m);
    mem_slot_put(slot);
    return RDMACH_OK;
}

RDMACH_API rdmach_status_t rdmach_mem_key(rdmach_mem_t mem, rdmach_key_t *key)
{
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "rdmach_mem_key: rdmach is not initialized");
    if (mem == NULL || key == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_mem_key: %s is NULL", mem == NULL ? "mem" : "key");
    int slot = mem_slot_of(mem);
    if (slot < 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_mem_key: mem is not a live registration");
    const struct rch_native_mem *m = mem_slots[slot].m;
    struct rch_native_key k;
    memset(&k, 0, sizeof(k));
    k.magic = RCH_NATIVE_KEY_MAGIC;
    k.version = RCH_NATIVE_KEY_VERSION;
    k.access = (uint8_t)m->access;
    k.owner = rch_dev.rank;
    k.job_size = (uint32_t)rch_dev.size;
    k.base = (uint64_t)(uintptr_t)m->addr;
    k.len = m->len;
    for (int i = 0; i < m->nregs && k.nchans < RCH_NATIVE_KEY_CHANS; i++) {
        struct rch_rdma_rkey rk;
        rdmach_status_t st = m->regs[i].ops->mem_rkey(m->regs[i].chan, m->regs[i].mr, &rk);
        if (st != RDMACH_OK || rk.len > RCH_RDMA_RKEY_MAX)
            return rch_base_err(st != RDMACH_OK ? st : RDMACH_ERR_OTHER, "rdmach_mem_key: the %s channel gave no "
                                "remote key: %s", m->regs[i].ops->name, rdmach_last_error());
        struct rch_native_key_chan *e = &k.chans[k.nchans++];
        memcpy(e->chan, m->regs[i].ops->name, strlen(m->regs[i].ops->name));   /* < 8: checked at reg */
        e->len = rk.len;
        memcpy(e->rkey, rk.bytes, rk.len);
    }
    memcpy(key->bytes, &k, sizeof(k));
    return RDMACH_OK;
}

/* ---- operations ---- */

/* on_complete of the device request: the outcome goes to the caller's op. */
static void on_done(struct rch_dev_req *req)
{
    struct rch_dev_ireq *r = (struct rch_dev_ireq *)req;
    struct rch_native_op *o = r->buf;
    if (req->err != RDMACH_OK)
        snprintf(native_why, sizeof(native_why), "%s", rdmach_last_error());
    o->status = req->err;
    o->state = RCH_NATIVE_OP_DONE;
    o->id = 0;
    __atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
}

void rch_dev_native_rma_done(struct rch_dev_ireq *r, rdmach_status_t st)
{
    rch_dev_ireq_finish(r, st);
}

/* Complete an operation that never reached a channel (self, 0 bytes, a
 * failed peer). */
static void op_done_now(struct rch_native_op *o, rdmach_status_t st)
{
    o->status = st;
    o->state = RCH_NATIVE_OP_DONE;
    o->id = 0;
    __atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
}

/* Errors of the call itself: nothing was started, the op is untouched.
 * The rest concern the peer or the transfer: the op completes with them. */
static int is_call_error(rdmach_status_t st)
{
    return (st <= RDMACH_ERR_INVALID_ARG && st >= RDMACH_ERR_CONFIG && st != RDMACH_ERR_IO) ||
           st == RDMACH_ERR_REG_LIMIT;
}

/* Is this storage an operation still in flight? (Garbage cannot pass: the
 * live request it names must point back at it.) */
static int op_in_flight(const struct rch_native_op *o)
{
    if (o->magic != RCH_NATIVE_OP_MAGIC || o->state != RCH_NATIVE_OP_INFLIGHT)
        return 0;
    struct rch_dev_ireq *r = rch_dev_ireq_lookup(o->id);
    return r != NULL && r->state == RCH_DEV_S_NATIVE && r->buf == (const void *)o;
}

static rdmach_status_t check_key(int kind, int rank, size_t len, const rdmach_key_t *key, uint64_t raddr,
                                 struct rch_native_key *k)
{
    const char *fn = kind_name(kind);
    memcpy(k, key->bytes, sizeof(*k));
    if (k->magic != RCH_NATIVE_KEY_MAGIC)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: key is not an rdmach key (magic 0x%08x, expected 0x%08x)",
                            fn, k->magic, RCH_NATIVE_KEY_MAGIC);
    if (k->version != RCH_NATIVE_KEY_VERSION)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: key has version %u; this library reads version %u", fn,
                            k->version, RCH_NATIVE_KEY_VERSION);
    if (k->nchans > RCH_NATIVE_KEY_CHANS)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: key lists %u channels (at most %d): corrupt", fn,
                            k->nchans, RCH_NATIVE_KEY_CHANS);
    if (k->job_size != (uint32_t)rch_dev.size)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: key comes from a job of %u ranks, this one has %d", fn,
                            k->job_size, rch_dev.size);
    if (k->owner != rank)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: key belongs to rank %d, not to rank %d (argument rank)", fn,
                            k->owner, rank);
    unsigned need = kind == RCH_NATIVE_PUT ? RDMACH_MEM_REMOTE_WRITE : RDMACH_MEM_REMOTE_READ;
    if (!(k->access & need))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: key of rank %d does not allow remote %s (its memory was "
                            "registered without RDMACH_MEM_REMOTE_%s)", fn, rank,
                            kind == RCH_NATIVE_PUT ? "write" : "read", kind == RCH_NATIVE_PUT ? "WRITE" : "READ");
    if (k->base + k->len < k->base || raddr < k->base || raddr - k->base > k->len || len > k->len - (raddr - k->base))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: raddr 0x%llx + len %zu is outside the key's range "
                            "[0x%llx, 0x%llx) of rank %d", fn, (unsigned long long)raddr, len,
                            (unsigned long long)k->base, (unsigned long long)(k->base + k->len), rank);
    return RDMACH_OK;
}

static rdmach_status_t start(int kind, int rank, void *laddr, size_t len, const rdmach_key_t *key, uint64_t raddr,
                             rdmach_op_t *uop)
{
    const char *fn = kind_name(kind);
    if (RCH_UNLIKELY(!rch_dev.initialized))
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "%s: rdmach is not initialized", fn);
    if (RCH_UNLIKELY(uop == NULL || key == NULL || (laddr == NULL && len != 0))) {
        if (uop == NULL)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: op is NULL", fn);
        if (key == NULL)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: key is NULL", fn);
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: laddr is NULL with len %zu", fn, len);
    }
    if (RCH_UNLIKELY(rank < 0 || rank >= rch_dev.size))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: rank %d is not in [0, %d)", fn, rank, rch_dev.size);
    if (RCH_UNLIKELY((uintptr_t)laddr + len < (uintptr_t)laddr))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: laddr %p + len %zu wraps around", fn, laddr, len);
    struct rch_native_key k;
    rdmach_status_t st = check_key(kind, rank, len, key, raddr, &k);
    if (RCH_UNLIKELY(st != RDMACH_OK))
        return st;
    struct rch_native_op *o = (struct rch_native_op *)uop;
    if (RCH_UNLIKELY(op_in_flight(o)))
        return rch_base_err(RDMACH_ERR_BUSY, "%s: op is still in flight (an earlier %s of %llu bytes to rank %d); "
                            "wait for it first", fn, kind_name(o->kind), (unsigned long long)o->len, o->rank);

    o->magic = RCH_NATIVE_OP_MAGIC;
    o->kind = (uint8_t)kind;
    o->rank = rank;
    o->len = len;
    o->id = 0;
    o->done = 0;
    o->state = RCH_NATIVE_OP_INFLIGHT;

    if (rank == rch_dev.rank) {
        /* my own memory: the key's range was checked above */
        void *r = (void *)(uintptr_t)raddr;
        if (len)
            memmove(kind == RCH_NATIVE_PUT ? r : laddr, kind == RCH_NATIVE_PUT ? laddr : r, len);
        op_done_now(o, RDMACH_OK);
        return RDMACH_OK;
    }
    struct rch_dev_peer *p = &rch_dev.peers[rank];
    if (RCH_UNLIKELY(p->dead)) {
        rdmach_status_t ps = p->dead_status ? p->dead_status : RDMACH_ERR_PEER_DEAD;
        snprintf(native_why, sizeof(native_why), "rank %d %s", rank,
                 ps == RDMACH_ERR_PEER_DEAD ? "has failed or disconnected" : "is not reachable by any channel");
        op_done_now(o, ps);
        return RDMACH_OK;
    }
    if (len == 0) {
        op_done_now(o, RDMACH_OK);
        return RDMACH_OK;
    }
    const char *cname = p->ops->name;
    struct rch_rdma_rkey rk;
    int found = 0;
    for (unsigned i = 0; i < k.nchans; i++) {
        const struct rch_native_key_chan *e = &k.chans[i];
        if (strncmp(e->chan, cname, RCH_NATIVE_CHAN_NAME) == 0) {
            if (e->len > RCH_RDMA_RKEY_MAX)
                break;
            rk.len = e->len;
            memcpy(rk.bytes, e->rkey, RCH_RDMA_RKEY_MAX);
            found = 1;
            break;
        }
    }
    if (RCH_UNLIKELY(!found || !p->rma)) {
        o->magic = 0;
        return rch_base_err(RDMACH_ERR_UNREACHABLE, "%s: rank %d is reached by the %s channel, %s", fn, rank, cname,
                            !p->rma ? "which has no put/get"
                                    : "and the key holds no valid remote key for it (registered before that channel "
                                      "was open, or with another channel selection)");
    }
    struct rch_dev_ireq *r = rch_dev_ireq_alloc(0);
    if (RCH_UNLIKELY(r == NULL)) {
        o->magic = 0;
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no memory for a request", fn);
    }
    r->state = RCH_DEV_S_NATIVE;
    r->freed = 1;                /* ours alone: back to the pool when it completes */
    r->peer = rank;
    r->buf = o;
    r->len = len;
    r->pub.on_complete = on_done;
    rch_dev_pending_add(p, r);
    o->id = rch_dev_ireq_id(r);
    void *op_ctx = (void *)(uintptr_t)o->id;
    st = kind == RCH_NATIVE_PUT ? p->ops->put(p->chan, rank, laddr, NULL, len, &rk, raddr, op_ctx)
                                : p->ops->get(p->chan, rank, laddr, NULL, len, &rk, raddr, op_ctx);
    if (st == RDMACH_INPROGRESS)
        return RDMACH_OK;
    if (rch_dev_ireq_lookup(o->id) != r || r->state != RCH_DEV_S_NATIVE)
        return RDMACH_OK;                /* already finished inside the call (the channel reported the peer's failure) */
    if (st == RDMACH_OK || !is_call_error(st)) {
        rch_dev_ireq_finish(r, st);      /* on_done fills the op (and keeps the message of a failure) */
        return RDMACH_OK;
    }
    /* refused by the channel: nothing started, the call reports it */
    char why[200];
    snprintf(why, sizeof(why), "%s", rdmach_last_error());
    r->pub.on_complete = NULL;
    rch_dev_ireq_finish(r, RDMACH_OK);
    o->magic = 0;
    return rch_base_err(st, "%s of %zu bytes to rank %d: %s", fn, len, rank, why);
}

RDMACH_API rdmach_status_t rdmach_put(int rank, const void *laddr, size_t len, const rdmach_key_t *key,
                                      uint64_t raddr, rdmach_op_t *op)
{
    return start(RCH_NATIVE_PUT, rank, (void *)laddr, len, key, raddr, op);
}

RDMACH_API rdmach_status_t rdmach_get(int rank, void *laddr, size_t len, const rdmach_key_t *key, uint64_t raddr,
                                      rdmach_op_t *op)
{
    return start(RCH_NATIVE_GET, rank, laddr, len, key, raddr, op);
}

/* ---- completion ---- */

static rdmach_status_t check_op(const char *fn, const rdmach_op_t *uop)
{
    if (uop == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: op is NULL", fn);
    const struct rch_native_op *o = (const struct rch_native_op *)uop;
    if (o->magic != RCH_NATIVE_OP_MAGIC ||
        (o->state != RCH_NATIVE_OP_INFLIGHT && o->state != RCH_NATIVE_OP_DONE))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: op holds no operation (never started by rdmach_put/get)",
                            fn);
    return RDMACH_OK;
}

/* The outcome of a finished operation, with a message naming it. */
static rdmach_status_t outcome(const struct rch_native_op *o)
{
    rdmach_status_t st = (rdmach_status_t)o->status;
    if (st == RDMACH_OK)
        return RDMACH_OK;
    return rch_base_err(st, "%s of %llu bytes to rank %d failed: %s: %s", kind_name(o->kind),
                        (unsigned long long)o->len, o->rank, rdmach_strerror(st), native_why);
}

static int op_is_done(void *arg)
{
    return __atomic_load_n(&((struct rch_native_op *)arg)->done, __ATOMIC_ACQUIRE) != 0;
}

RDMACH_API rdmach_status_t rdmach_test(rdmach_op_t *op, int *done)
{
    rdmach_status_t st = check_op("rdmach_test", op);
    if (st != RDMACH_OK)
        return st;
    if (done == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_test: done is NULL");
    struct rch_native_op *o = (struct rch_native_op *)op;
    if (!op_is_done(o)) {
        if (!rch_dev.initialized)
            return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "rdmach_test: rdmach is not initialized (finalized "
                                "with the operation in flight?)");
        rch_dev_progress();
        if (!op_is_done(o)) {
            *done = 0;
            return RDMACH_OK;
        }
    }
    *done = 1;
    return outcome(o);
}

RDMACH_API rdmach_status_t rdmach_wait(rdmach_op_t *op)
{
    rdmach_status_t st = check_op("rdmach_wait", op);
    if (st != RDMACH_OK)
        return st;
    struct rch_native_op *o = (struct rch_native_op *)op;
    if (!op_is_done(o)) {
        if (!rch_dev.initialized)
            return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "rdmach_wait: rdmach is not initialized (finalized "
                                "with the operation in flight?)");
        st = rch_dev_wait_until(op_is_done, o);
        if (st != RDMACH_OK && !op_is_done(o))
            return st;
    }
    return outcome(o);
}

RDMACH_API unsigned rdmach_progress(void)
{
    return rch_dev.initialized ? rch_dev_progress() : 0;
}
