/*
 * The recording device (see sim.h): src/device/dev.h implemented so that a
 * collective algorithm of src/coll, called for one rank, runs to its end at
 * once and leaves that rank's program. Sends and receives complete when
 * waited for (data is not moved: the programs of the algorithms here do not
 * depend on what they receive); every wait is an op, so the simulator knows
 * what the rank waits for and in which order.
 *
 * Progress (rch_dev_progress, and rch_dev_wait_until while its condition
 * does not hold) waits for every send and receive outstanding, then runs the
 * progress hooks: the non-blocking collectives' schedules go on round by
 * round as in the library. A wait on shared memory that no message can end
 * is not simulated (the recording fails with a message).
 *
 * Request slots: a send or receive takes the most recently freed slot (or
 * a new one), a FREE op gives it back; the engine replays the same rule, so
 * a WAIT's slot names the same request there.
 *
 * Programs are hash-consed: each is stored in three forms (peers as offsets
 * from the rank mod p, as xor with the rank, absolute) and a rank whose
 * program already exists in any form shares it.
 */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "coll/coll.h"
#include "device/dev.h"
#include "sim.h"

/* The device's MPI_THREAD_MULTIPLE flag (device/cs.h): never on here. */
int rch_dev_cs_on;

/* ---- the program table ---- */

struct entry {
    uint64_t hash;
    uint32_t prog;             /* index into progs */
    uint8_t form, used;
};

struct sim_progs {
    int nranks;
    uint32_t *rank_prog;       /* [nranks]: program index << 2 | form */
    struct sim_prog *progs;
    uint32_t nprogs, cap;
    struct entry *tab;         /* open addressing, power-of-two size */
    size_t tabsize, bytes, total_ops;
};

struct sim_progs *sim_progs_new(int nranks)
{
    struct sim_progs *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->nranks = nranks;
    t->rank_prog = malloc((size_t)nranks * sizeof(uint32_t));
    t->tabsize = 1024;
    t->tab = calloc(t->tabsize, sizeof(*t->tab));
    if (!t->rank_prog || !t->tab) {
        sim_progs_free(t);
        return NULL;
    }
    return t;
}

void sim_progs_free(struct sim_progs *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->nprogs; i++) {
        free((void *)t->progs[i].ops);
        free((void *)t->progs[i].bufs);
    }
    free(t->progs);
    free(t->tab);
    free(t->rank_prog);
    free(t);
}

void sim_progs_get(const struct sim_progs *t, int rank, struct sim_prog *p, enum sim_form *form)
{
    uint32_t v = t->rank_prog[rank];
    *p = t->progs[v >> 2];
    *form = (enum sim_form)(v & 3);
}

uint32_t sim_progs_distinct(const struct sim_progs *t)
{
    return t->nprogs;
}

size_t sim_progs_bytes(const struct sim_progs *t)
{
    return t->bytes + t->tabsize * sizeof(struct entry) + (size_t)t->nranks * sizeof(uint32_t) +
           t->cap * sizeof(struct sim_prog);
}

size_t sim_progs_total_ops(const struct sim_progs *t)
{
    return t->total_ops;
}

static uint64_t hash_ops(const sim_op *ops, const uint32_t *bufs, uint32_t n, int form)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)form;
    for (uint32_t i = 0; i < n; i++) {
        h ^= ops[i] ^ (bufs ? (uint64_t)bufs[i] << 40 : 0);
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    return h;
}

static int same_bufs(const uint32_t *a, const uint32_t *b, uint32_t n)
{
    if (!a || !b)
        return a == b;
    return n == 0 || memcmp(a, b, n * sizeof(uint32_t)) == 0;
}

static int find(const struct sim_progs *t, const sim_op *ops, const uint32_t *bufs, uint32_t n, int form, uint64_t h,
                uint32_t *prog)
{
    for (size_t i = h & (t->tabsize - 1);; i = (i + 1) & (t->tabsize - 1)) {
        const struct entry *e = &t->tab[i];
        if (!e->used)
            return 0;
        if (e->hash == h && e->form == form && t->progs[e->prog].nops == n &&
            (n == 0 || memcmp(t->progs[e->prog].ops, ops, n * sizeof(sim_op)) == 0) && same_bufs(t->progs[e->prog].bufs, bufs, n)) {
            *prog = e->prog;
            return 1;
        }
    }
}

static int grow_tab(struct sim_progs *t)
{
    size_t n = t->tabsize * 2;
    struct entry *nt = calloc(n, sizeof(*nt));
    if (!nt)
        return -1;
    for (size_t i = 0; i < t->tabsize; i++) {
        if (!t->tab[i].used)
            continue;
        size_t j = t->tab[i].hash & (n - 1);
        while (nt[j].used)
            j = (j + 1) & (n - 1);
        nt[j] = t->tab[i];
    }
    free(t->tab);
    t->tab = nt;
    t->tabsize = n;
    return 0;
}

static int insert(struct sim_progs *t, const sim_op *ops, const uint32_t *bufs, uint32_t n, uint32_t slots, int form,
                  uint64_t h, uint32_t *prog)
{
    if ((t->nprogs + 1) * 2 > t->tabsize && grow_tab(t) != 0)
        return -1;
    if (t->nprogs == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        struct sim_prog *np = realloc(t->progs, cap * sizeof(*np));
        if (!np)
            return -1;
        t->progs = np;
        t->cap = cap;
    }
    sim_op *copy = malloc((n ? n : 1) * sizeof(sim_op));
    if (!copy)
        return -1;
    uint32_t *bcopy = bufs ? malloc((n ? n : 1) * sizeof(uint32_t)) : NULL;
    if (bufs && !bcopy) {
        free(copy);
        return -1;
    }
    if (n) {                  /* an empty program (a 0-byte Bruck alltoall) may have no ops array: no
                               * memcpy or memcmp of it (undefined on a null pointer) */
        memcpy(copy, ops, n * sizeof(sim_op));
        if (bufs)
            memcpy(bcopy, bufs, n * sizeof(uint32_t));
    }
    t->progs[t->nprogs] = (struct sim_prog){ copy, n, slots, bcopy };
    t->bytes += (n ? n : 1) * (sizeof(sim_op) + (bufs ? sizeof(uint32_t) : 0));
    size_t i = h & (t->tabsize - 1);
    while (t->tab[i].used)
        i = (i + 1) & (t->tabsize - 1);
    t->tab[i] = (struct entry){ h, t->nprogs, (uint8_t)form, 1 };
    *prog = t->nprogs++;
    return 0;
}

/* ---- recording ---- */

struct rreq {
    struct rch_dev_req pub;    /* first: the device hands out &pub */
    uint32_t slot;             /* NO_SLOT: a generalized request (no op of its own) */
    struct rreq *next_free;
};
#define NO_SLOT UINT32_MAX
enum { MAX_HOOKS = 8 };

static struct {
    struct sim_progs *t;
    int rank;
    const int *world_of;       /* of the view being run (receives name its ranks) */
    sim_op *ops;               /* absolute peers while recording */
    uint32_t *bufs;            /* [cap]: the buffers of each op (sim_prog.bufs) */
    uint32_t n, cap, nbufs;    /* nbufs: ops that name a buffer */
    uint32_t *free_slots, nfree, slots, slot_cap;
    int failed;
    char why[200];
    struct rreq *pool;         /* released requests, reused */
    /* sends and receives posted and not yet waited for: what a progress
     * call waits for (the non-blocking collectives' rounds) */
    struct rreq **out;
    uint32_t nout, out_cap;
    struct { rch_dev_progress_fn fn; void *arg; } hooks[MAX_HOOKS];
    int nhooks;
} rec;

/* The rank's buffers by address, numbered from 1 in the order of their
 * first use in its recording (so that ranks of one shape share a program);
 * a generation per recording instead of clearing the table. */
enum { BUF_IDS = 1 << 17, BUF_MAX = 0xffff };
static struct {
    struct { uintptr_t addr; uint32_t gen, id; } *e;
    uint32_t gen, next;
} ids;

static void buf_ids_reset(void)
{
    ids.gen++;
    ids.next = 1;
}

/* The id of the buffer at a (0: none, or more than BUF_MAX buffers). */
static uint32_t buf_id(const void *a)
{
    if (!a)
        return 0;
    if (!ids.e && !(ids.e = calloc(BUF_IDS, sizeof(*ids.e))))
        return 0;
    uintptr_t k = (uintptr_t)a;
    for (size_t i = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 40) & (BUF_IDS - 1);; i = (i + 1) & (BUF_IDS - 1)) {
        if (ids.e[i].gen != ids.gen) {
            if (ids.next > BUF_MAX)
                return 0;
            ids.e[i].addr = k, ids.e[i].gen = ids.gen, ids.e[i].id = ids.next++;
            return ids.e[i].id;
        }
        if (ids.e[i].addr == k)
            return ids.e[i].id;
    }
}

void sim_rec_begin(struct sim_progs *t, int rank)
{
    rec.t = t;
    rec.rank = rank;
    rec.world_of = NULL;
    rec.n = 0;
    rec.nbufs = 0;
    buf_ids_reset();
    rec.nfree = 0;
    rec.slots = 0;
    rec.failed = 0;
    rec.nout = 0;
}

void sim_rec_view(const int *world_of)
{
    rec.world_of = world_of;
}

void sim_rec_op_bufs(int kind, int peer, uint64_t bytes, const void *a, const void *b)
{
    if (rec.failed)
        return;
    if (rec.n == rec.cap) {
        uint32_t cap = rec.cap ? rec.cap * 2 : 1024;
        sim_op *o = realloc(rec.ops, cap * sizeof(sim_op));
        uint32_t *bf = o ? realloc(rec.bufs, cap * sizeof(uint32_t)) : NULL;
        if (o)
            rec.ops = o;
        if (!bf) {
            rec.failed = 1;
            snprintf(rec.why, sizeof(rec.why), "no memory for rank %d's program", rec.rank);
            return;
        }
        rec.bufs = bf;
        rec.cap = cap;
    }
    uint32_t ids2 = buf_id(a) | buf_id(b) << 16;
    rec.nbufs += ids2 != 0;
    rec.bufs[rec.n] = ids2;
    rec.ops[rec.n++] = SIM_OP(kind, (uint32_t)peer, bytes);
}

void sim_rec_op(int kind, int peer, uint64_t bytes)
{
    sim_rec_op_bufs(kind, peer, bytes, NULL, NULL);
}

static int new_slot(uint32_t *slot)
{
    if (rec.nfree) {
        *slot = rec.free_slots[--rec.nfree];
        return 0;
    }
    if (rec.slots == rec.slot_cap) {
        uint32_t cap = rec.slot_cap ? rec.slot_cap * 2 : 64;
        uint32_t *f = realloc(rec.free_slots, cap * sizeof(uint32_t));
        if (!f)
            return -1;
        rec.free_slots = f;
        rec.slot_cap = cap;
    }
    *slot = rec.slots++;
    return 0;
}

/* A send or receive takes a slot and is outstanding until waited for; a
 * generalized request (a non-blocking collective's) takes neither: the
 * engine sees only the messages. */
static struct rreq *new_req(int kind)
{
    int msg = kind == RCH_DEV_REQ_SEND || kind == RCH_DEV_REQ_RECV;
    if (msg && rec.nout == rec.out_cap) {
        uint32_t cap = rec.out_cap ? rec.out_cap * 2 : 64;
        struct rreq **o = realloc(rec.out, cap * sizeof(*o));
        if (!o)
            return NULL;
        rec.out = o;
        rec.out_cap = cap;
    }
    struct rreq *r = rec.pool;
    if (r)
        rec.pool = r->next_free;
    else if (!(r = malloc(sizeof(*r))))
        return NULL;
    memset(r, 0, sizeof(*r));
    r->pub.kind = kind;
    r->slot = NO_SLOT;
    if (msg && new_slot(&r->slot) != 0) {
        free(r);
        return NULL;
    }
    if (msg)
        rec.out[rec.nout++] = r;
    return r;
}

static void forget_outstanding(struct rreq *r)
{
    for (uint32_t i = rec.nout; i-- > 0;)
        if (rec.out[i] == r) {
            rec.out[i] = rec.out[--rec.nout];
            return;
        }
}

/* Three forms of the recorded program; the first found is shared. */
int sim_rec_end(char *err, size_t len)
{
    if (rec.failed) {
        snprintf(err, len, "%s", rec.why);
        return -1;
    }
    struct sim_progs *t = rec.t;
    int p = t->nranks, r = rec.rank;
    static sim_op *form_ops[SIM_FORM_MAX];
    static uint32_t form_cap;
    if (form_cap < rec.n) {
        for (int f = 0; f < SIM_FORM_MAX; f++) {
            free(form_ops[f]);
            form_ops[f] = malloc(rec.n * sizeof(sim_op));
            if (!form_ops[f]) {
                form_cap = 0;
                snprintf(err, len, "no memory for rank %d's program", r);
                return -1;
            }
        }
        form_cap = rec.n;
    }
    uint64_t h[SIM_FORM_MAX];
    int valid[SIM_FORM_MAX] = { 1, 1, 1 };
    for (uint32_t i = 0; i < rec.n; i++) {
        sim_op o = rec.ops[i];
        int k = SIM_OP_KIND(o);
        uint32_t a = SIM_OP_ARG(o);
        if (k == SIM_ISEND || k == SIM_IRECV) {
            uint32_t xr = a ^ (uint32_t)r;
            valid[SIM_FORM_XOR] &= xr < (uint32_t)p;
            form_ops[SIM_FORM_DELTA][i] = SIM_OP(k, ((uint64_t)a + (uint64_t)p - (uint64_t)r) % (uint64_t)p, SIM_OP_BYTES(o));
            form_ops[SIM_FORM_XOR][i] = SIM_OP(k, xr, SIM_OP_BYTES(o));
        } else {
            form_ops[SIM_FORM_DELTA][i] = form_ops[SIM_FORM_XOR][i] = o;
        }
        form_ops[SIM_FORM_ABS][i] = o;
    }
    const uint32_t *bufs = rec.nbufs ? rec.bufs : NULL;
    for (int f = 0; f < SIM_FORM_MAX; f++) {
        uint32_t prog;
        if (!valid[f])
            continue;
        h[f] = hash_ops(form_ops[f], bufs, rec.n, f);
        if (find(t, form_ops[f], bufs, rec.n, f, h[f], &prog)) {
            t->rank_prog[r] = prog << 2 | (uint32_t)f;
            t->total_ops += rec.n;
            return 0;
        }
    }
    int first = -1;
    for (int f = 0; f < SIM_FORM_MAX; f++) {
        uint32_t prog;
        if (!valid[f])
            continue;
        if (insert(t, form_ops[f], bufs, rec.n, rec.slots, f, h[f], &prog) != 0) {
            snprintf(err, len, "no memory for the program table (%u programs)", t->nprogs);
            return -1;
        }
        if (first < 0) {
            first = f;
            t->rank_prog[r] = prog << 2 | (uint32_t)f;
        }
    }
    t->total_ops += rec.n;
    return 0;
}

/* ---- the device API the collectives use ---- */

rdmach_status_t rch_dev_isend(const void *buf, size_t len, int dest, int src, int tag, uint32_t ctx,
                              int mode, struct rch_dev_req **req)
{
    (void)src, (void)tag, (void)ctx, (void)mode;
    struct rreq *r = new_req(RCH_DEV_REQ_SEND);
    *req = NULL;
    if (!r)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "rdmach-sim: no memory for a request");
    r->pub.bytes = len;
    sim_rec_op_bufs(SIM_ISEND, dest, len, buf, NULL);
    *req = &r->pub;
    return RDMACH_OK;
}

rdmach_status_t rch_dev_irecv(void *buf, size_t len, int src, int tag, uint32_t ctx, struct rch_dev_req **req)
{
    (void)tag, (void)ctx;
    struct rreq *r = new_req(RCH_DEV_REQ_RECV);
    *req = NULL;
    if (!r)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "rdmach-sim: no memory for a request");
    if (src == RCH_DEV_ANY_SOURCE) {
        rec.failed = 1;
        snprintf(rec.why, sizeof(rec.why), "rank %d receives from any source: not simulated", rec.rank);
    }
    r->pub.source = src;
    r->pub.bytes = r->pub.msg_bytes = len;
    sim_rec_op_bufs(SIM_IRECV, rec.world_of ? rec.world_of[src] : src, len, buf, NULL);
    *req = &r->pub;
    return RDMACH_OK;
}

static int greq_done(void *arg)
{
    return ((struct rch_dev_req *)arg)->done;
}

rdmach_status_t rch_dev_wait(struct rch_dev_req *req)
{
    struct rreq *r = (struct rreq *)req;
    if (r->slot == NO_SLOT)
        return rch_dev_wait_until(greq_done, req);
    if (!r->pub.done) {
        sim_rec_op(SIM_WAIT, (int)r->slot, 0);
        r->pub.done = 1;
        forget_outstanding(r);
    }
    return RDMACH_OK;
}

void rch_dev_req_free(struct rch_dev_req *req)
{
    struct rreq *r = (struct rreq *)req;
    if (r->slot != NO_SLOT) {
        if (!r->pub.done)
            forget_outstanding(r);      /* a detached send */
        sim_rec_op(SIM_FREE, (int)r->slot, 0);
        rec.free_slots[rec.nfree++] = r->slot;
    }
    r->next_free = rec.pool;
    rec.pool = r;
}

rdmach_status_t rch_dev_cancel(struct rch_dev_req *req)
{
    (void)req;
    return RDMACH_OK;
}

struct rch_dev_req *rch_dev_req_alloc(int kind)
{
    struct rreq *r = new_req(kind);
    return r ? &r->pub : NULL;
}

void rch_dev_req_complete(struct rch_dev_req *req)
{
    if (req->on_complete)
        req->on_complete(req);
    req->done = 1;
}

/* The non-blocking collectives' engine (src/coll/nbc_sched.c) advances its
 * schedules from a progress hook, a round once all its requests are done. */
rdmach_status_t rch_dev_progress_hook_add(rch_dev_progress_fn fn, void *arg)
{
    if (rec.nhooks == MAX_HOOKS)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "rdmach-sim: more than %d progress hooks", MAX_HOOKS);
    rec.hooks[rec.nhooks].fn = fn;
    rec.hooks[rec.nhooks++].arg = arg;
    return RDMACH_OK;
}

void rch_dev_progress_hook_remove(rch_dev_progress_fn fn, void *arg)
{
    for (int i = 0; i < rec.nhooks; i++)
        if (rec.hooks[i].fn == fn && rec.hooks[i].arg == arg) {
            rec.hooks[i] = rec.hooks[--rec.nhooks];
            return;
        }
}

/* Progress: every send and receive outstanding is waited for (a WAIT op
 * each, in posting order: the rank's program blocks until all of them are
 * done, as a schedule's round does), then the hooks run. */
unsigned rch_dev_progress(void)
{
    unsigned n = rec.nout;
    for (uint32_t i = 0; i < rec.nout; i++) {
        sim_rec_op(SIM_WAIT, (int)rec.out[i]->slot, 0);
        rec.out[i]->pub.done = 1;
    }
    rec.nout = 0;
    for (int i = 0; i < rec.nhooks; i++)
        n += rec.hooks[i].fn(rec.hooks[i].arg);
    return n + rec.nout;         /* a round posted: more to wait for */
}

/* The simulated NIC's profile is sim_params.onload, told to the selection by
 * the caller (rch_coll_set_nic); the device has no channel of its own. */
int rch_dev_net_onload(void)
{
    return -1;
}

rdmach_status_t rch_dev_wait_until(rch_dev_done_fn done, void *arg)
{
    while (!done(arg))
        if (rch_dev_progress() == 0)
            break;              /* nothing left that messages could finish */
    if (done(arg))
        return RDMACH_OK;
    rec.failed = 1;
    snprintf(rec.why, sizeof(rec.why), "rank %d waits on shared memory: not simulated", rec.rank);
    return rch_base_err(RDMACH_ERR_UNSUPPORTED, "rdmach-sim: %s", rec.why);
}

rdmach_status_t rch_dev_wait_until_with(rch_dev_done_fn done, void *arg, const struct rch_dev_wait_policy *pol)
{
    (void)pol;
    return rch_dev_wait_until(done, arg);
}

void rch_dev_wake(int rank)
{
    (void)rank;
}

int rch_dev_can_wake(int rank)
{
    (void)rank;
    return 0;
}

/* Simulated ranks never fail: no failure is ever counted or seen. */
unsigned rch_dev_failures(void)
{
    return 0;
}

int rch_dev_peer_is_dead(int world)
{
    (void)world;
    return 0;
}

/* The simulation has no other jobs: nothing to attach. */
rdmach_status_t rch_dev_dyn_reserve(int *w)
{
    *w = rec.t ? rec.t->nranks : 0;
    return RDMACH_OK;
}

void rch_dev_dyn_unreserve(int w)
{
    (void)w;
}

rdmach_status_t rch_dev_dyn_attach(int fd, int w, int *world)
{
    (void)fd;
    (void)w;
    (void)world;
    return rch_base_err(RDMACH_ERR_UNSUPPORTED, "rdmach-sim: no processes of other jobs");
}

rdmach_status_t rch_dev_dyn_net_record(int open, char *chan, size_t chanlen, void *r, size_t len)
{
    (void)open;
    (void)chan;
    (void)chanlen;
    (void)r;
    (void)len;
    return rch_base_err(RDMACH_ERR_NOT_FOUND, "rdmach-sim: no network channel");
}

rdmach_status_t rch_dev_dyn_attach_net(const void *r, size_t len, const void *mine, int my_id, int server, int w,
                                       int *world)
{
    (void)mine;
    (void)w;
    (void)r;
    (void)len;
    (void)my_id;
    (void)server;
    (void)world;
    return rch_base_err(RDMACH_ERR_UNSUPPORTED, "rdmach-sim: no processes of other jobs");
}

void rch_dev_dyn_detach(int world)
{
    (void)world;
}

int rch_dev_dyn_count(void)
{
    return 0;
}

int rch_dev_nprocs(void)
{
    return rec.t ? rec.t->nranks : 0;
}

/* ---- reductions: recorded as work on the received bytes ---- */

static void record_reduce(const void *in, void *inout, size_t count, void *arg)
{
    (void)inout, (void)arg;
    sim_rec_op(SIM_COMPUTE, (int)sim_seg_read_kind(in, 1), count * sizeof(double));
}

static const struct rch_coll_op reduce_op = {
    .fn = record_reduce, .arg = NULL, .elem_size = sizeof(double), .commutative = 1,
};

const struct rch_coll_op *sim_rec_reduce_op(void)
{
    return &reduce_op;
}
