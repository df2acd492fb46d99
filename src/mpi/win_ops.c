/*
 * The one-sided operations: MPI_Put, MPI_Get, MPI_Accumulate,
 * MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap, and the
 * request-based MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate.
 *
 * Each call checks its arguments and epoch, then hands contiguous bytes to
 * the device (device/rma.h):
 *   - fast path: origin and target datatypes contiguous, no request: one
 *     device call on the user's buffer (Put/Get of the passive-target
 *     latency benchmarks: a memcpy into a mapped window);
 *   - otherwise a "call" object: the origin data packed into a temporary if
 *     its type is not contiguous, the target datatype walked as runs of
 *     contiguous bytes (adjacent blocks merged) handed to the device in
 *     batches (rch_dev_rma_vec: many runs to a packet), results gathered in a temporary and unpacked into the user's
 *     buffer when the device says every run is locally complete; a request
 *     (R* forms) completes then.
 *
 * Accumulates bind (op, datatype) with the collectives' reduction binding
 * (op_bind.c, MPI_REPLACE and MPI_NO_OP allowed, user operations not — MPI
 * allows only predefined operations here) and travel as (operation kind,
 * element kind) so that the target applies the same kernel. The kernel acts
 * on the target's memory in place, so elements travel as they lie there:
 * for every type but MPI_SHORT_INT that is the packed form (the fields are
 * adjacent); an MPI_SHORT_INT has 2 bytes of padding before its int, so its
 * accumulates carry whole 8-byte elements ("spread") and the target
 * datatype is walked one element at a time.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/coll_bind.h"
#include "mpi/type_impl.h"
#include "mpi/win_impl.h"

/* ---- the target's kernel lookup ---- */

/* The repetition kernels take what rch_base_elems_of lists (type_pack.c,
 * the device's rma_pat.c). */
_Static_assert(RCH_COLL_ROWS_MAX == RCH_BASE_ELEMS_MAX, "a period's elements fit the repetition kernels");

static int resolve(unsigned op, unsigned kind, struct rch_dev_rma_op *out)
{
    if (op >= RCH_COLL_OPKIND_MAX || kind >= RCH_COLL_K_MAX)
        return -1;
    *out = (struct rch_dev_rma_op){
        .fn = rch_coll_kernel((enum rch_coll_opkind)op, (enum rch_coll_kind)kind),
        .fn2d = rch_coll_kernel2d((enum rch_coll_opkind)op, (enum rch_coll_kind)kind),
        .rows = rch_coll_kernel_rows((enum rch_coll_opkind)op, (enum rch_coll_kind)kind),
        .op = (uint8_t)op, .kind = (uint8_t)kind,
        .elem = (uint32_t)rch_coll_kind_size((enum rch_coll_kind)kind),
    };
    return out->fn ? 0 : -1;
}

void rch_mpi_win_install_resolver(void)
{
    rch_dev_rma_set_resolver(resolve);
}

/* ---- argument checks ---- */

static int check_type(struct rch_mpi_win *w, const char *fn, MPI_Datatype dt, const char *arg,
                      const struct rch_mpi_type **t)
{
    *t = rch_mpi_type_get(dt);
    if (RCH_UNLIKELY(!*t))
        return rch_mpi_win_err(w, MPI_ERR_TYPE, "%s: invalid datatype 0x%x in argument %s", fn, (unsigned)dt, arg);
    if (RCH_UNLIKELY(!(*t)->committed))
        return rch_mpi_win_err(w, MPI_ERR_TYPE, "%s: datatype in argument %s is not committed", fn, arg);
    return MPI_SUCCESS;
}

static int check_buf(struct rch_mpi_win *w, const char *fn, const void *buf, int count, MPI_Datatype dt,
                     const char *bufarg, const char *countarg, const char *typearg, const struct rch_mpi_type **t)
{
    if (RCH_UNLIKELY(count < 0))
        return rch_mpi_win_err(w, MPI_ERR_COUNT, "%s: negative count %d in argument %s", fn, count, countarg);
    int err = check_type(w, fn, dt, typearg, t);
    if (err)
        return err;
    if (RCH_UNLIKELY(!buf && count > 0 && (*t)->size > 0 && !rch_mpi_type_bottom_ok(*t, count)))
        return rch_mpi_win_err(w, MPI_ERR_BUFFER, "%s: argument %s is NULL with %d elements", fn, bufarg, count);
    return MPI_SUCCESS;
}

/* target rank, epoch; MPI_PROC_NULL is the caller's. */
static int check_target(struct rch_mpi_win *w, const char *fn, int target)
{
    if (RCH_UNLIKELY(target < 0 || target >= w->size))
        return rch_mpi_win_err(w, MPI_ERR_RANK, "%s: invalid rank %d in argument target_rank (window of %d)", fn,
                               target, w->size);
    return rch_mpi_win_check_access(w, fn, target);
}

/* The target bytes of (disp, count, tt) must lie in the target's window.
 * *base: the byte offset (dynamic: address) that the type's offsets add to. */
static int check_range(struct rch_mpi_win *w, const char *fn, int target, MPI_Aint disp, int count,
                       const struct rch_mpi_type *tt, int64_t *base)
{
    const struct rch_dev_win_target *t = &w->dw->t[target];
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        *base = disp;                /* an address at the target, checked there */
        return MPI_SUCCESS;
    }
    __int128 b = (__int128)disp * t->disp_unit;
    *base = (int64_t)b;
    if (count == 0 || tt->size == 0)
        return MPI_SUCCESS;
    __int128 step = (__int128)(count - 1) * tt->extent;
    __int128 lo = b + tt->true_lb + (step < 0 ? step : 0);
    __int128 hi = b + tt->true_ub + (step > 0 ? step : 0);
    if (RCH_LIKELY(lo >= 0 && hi <= (__int128)t->size && b == (__int128)*base))
        return MPI_SUCCESS;
    return rch_mpi_win_err(w, MPI_ERR_RMA_RANGE,
                           "%s: target rank %d: bytes [%lld, %lld) (target_disp %ld x disp_unit %u) are outside its "
                           "window of %llu bytes", fn, target, (long long)lo, (long long)hi, (long)disp,
                           t->disp_unit, (unsigned long long)t->size);
}

static int check_sizes(struct rch_mpi_win *w, const char *fn, size_t a, size_t b, const char *what)
{
    if (RCH_LIKELY(a == b))
        return MPI_SUCCESS;
    return rch_mpi_win_err(w, MPI_ERR_TYPE, "%s: the %s carry %zu bytes of data, the target %zu", fn, what, a, b);
}

/* ---- accumulate bindings ---- */

static struct { MPI_Op op; MPI_Datatype basic; struct rch_dev_rma_op d; } last_bind;

static int bind_acc(struct rch_mpi_win *w, const char *fn, MPI_Op op, MPI_Datatype dt, const struct rch_mpi_type *t,
                    struct rch_dev_rma_op *out)
{
    if (RCH_LIKELY(last_bind.d.fn && last_bind.op == op && last_bind.basic == t->basic &&
                   t->basic != MPI_DATATYPE_NULL)) {
        *out = last_bind.d;
        return MPI_SUCCESS;
    }
    const struct rch_mpi_op *o = rch_mpi_op_get(op);
    char on[48];
    if (o && o->kind < 0)
        return rch_mpi_win_err(w, MPI_ERR_OP, "%s: %s in argument op: one-sided accumulates take only predefined "
                               "operations", fn, rch_mpi_op_name(op, on, sizeof(on)));
    struct rch_mpi_red red;
    int rc = rch_mpi_red_bind(fn, w->c, op, dt, t, 1, &red);   /* the private communicator returns the code */
    if (rc)
        return rch_mpi_win_raise(w, rc);
    if (t->size == 0) {   /* no data: a valid operation is a no-op on it */
        *out = (struct rch_dev_rma_op){ .fn = red.cop.fn, .op = (uint8_t)o->kind, .kind = RCH_COLL_K_U8, .elem = 1 };
        return MPI_SUCCESS;
    }
    int kind = rch_mpi_red_kind(t->basic);
    if (kind < 0 || !red.cop.fn)
        return rch_mpi_win_err(w, MPI_ERR_INTERN, "%s: no element kind for datatype 0x%x", fn, (unsigned)t->basic);
    out->fn = red.cop.fn;
    out->fn2d = rch_coll_kernel2d((enum rch_coll_opkind)o->kind, (enum rch_coll_kind)kind);
    out->rows = rch_coll_kernel_rows((enum rch_coll_opkind)o->kind, (enum rch_coll_kind)kind);
    out->op = (uint8_t)o->kind;
    out->kind = (uint8_t)kind;
    out->elem = (uint32_t)red.cop.elem_size;
    if (kind == RCH_COLL_K_I16_I32) {   /* its packed form is not its memory's */
        out->kind = RCH_COLL_K_I16_X32;
        out->fn = rch_coll_kernel((enum rch_coll_opkind)o->kind, RCH_COLL_K_I16_X32);
        out->fn2d = NULL;
        out->rows = NULL;
        out->elem = (uint32_t)rch_coll_kind_size(RCH_COLL_K_I16_X32);
    }
    last_bind.op = op;
    last_bind.basic = t->basic;
    last_bind.d = *out;
    return MPI_SUCCESS;
}

/* Origin and target of an accumulate that moves `bytes` (> 0) are made of
 * the same predefined type. Nothing moved, the type signatures are both
 * empty and match whatever the datatypes (MPICH's rma/badrma: a count 0 of
 * MPI_INT against one of MPI_DOUBLE). */
static int check_same_basic(struct rch_mpi_win *w, const char *fn, const struct rch_mpi_type *a,
                            const struct rch_mpi_type *b, size_t bytes, const char *what)
{
    if (bytes == 0 || a->basic == b->basic)
        return MPI_SUCCESS;
    return rch_mpi_win_err(w, MPI_ERR_TYPE, "%s: the %s and the target datatype are not made of the same predefined "
                           "datatype", fn, what);
}

/* ---- the general path ---- */

struct rma_call {
    struct rch_dev_rma_cmpl cmpl;    /* first: the device hands this pointer back */
    void *tmp_in, *tmp_out;
    void *out_buf;                   /* where tmp_out is unpacked */
    size_t out_count;
    struct rch_mpi_type *out_type;   /* retained */
    const struct rch_mpi_type *spread; /* predefined: tmp_out holds its elements as in memory */
    void *tmp_packed;                /* tmp_out packed again before it is unpacked (spread) */
    struct rch_dev_req *greq;        /* R* forms */
    /* span_get: the target's span, packed into span_dest at completion as
     * span_count of span_type (retained) laid out from span - span_shift */
    unsigned char *span, *span_dest;
    struct rch_mpi_type *span_type;
    size_t span_count;
    int64_t span_shift;
};

/* span_get's buffer: kept between calls up to SPAN_KEEP bytes and used by
 * one call at a time (as the accumulate's below: a buffer malloc'd for each
 * get was mapped and faulted in again by every call). */
#define SPAN_KEEP (16u << 20)
static unsigned char *span_buf;
static size_t span_len;
static int span_busy;

static unsigned char *span_take(size_t n)
{
    if (span_busy || n > SPAN_KEEP)
        return malloc(n);
    if (n > span_len) {
        free(span_buf);
        span_len = 0;
        if (!(span_buf = malloc(n)))
            return NULL;
        span_len = n;
    }
    span_busy = 1;
    return span_buf;
}

static void span_give(unsigned char *p)
{
    if (p && p == span_buf)
        span_busy = 0;
    else
        free(p);
}

static void call_free(struct rma_call *k)
{
    if (k->out_type)
        rch_mpi_type_release(k->out_type);
    if (k->span_type)
        rch_mpi_type_release(k->span_type);
    span_give(k->span);
    free(k->tmp_in);
    free(k->tmp_out);
    free(k->tmp_packed);
    free(k);
}

static void call_done(struct rch_dev_rma_cmpl *c)
{
    struct rma_call *k = (struct rma_call *)c;
    if (k->span && c->err == RDMACH_OK)
        rch_mpi_pack_n(k->span - k->span_shift, k->span_count, k->span_type, k->span_dest);
    if (k->tmp_out && c->err == RDMACH_OK && k->spread) {
        size_t n = (k->out_count * k->out_type->size) / k->spread->size;
        rch_mpi_pack_n(k->tmp_out, n, k->spread, k->tmp_packed);
        rch_mpi_unpack_n(k->tmp_packed, k->out_buf, k->out_count, k->out_type);
    } else if (k->tmp_out && c->err == RDMACH_OK) {
        rch_mpi_unpack_n(k->tmp_out, k->out_buf, k->out_count, k->out_type);
    }
    struct rch_dev_req *greq = k->greq;
    rdmach_status_t err = c->err;   /* c is in k */
    call_free(k);
    if (greq) {
        greq->err = err;
        rch_dev_req_complete(greq);
    }
}

struct job {
    struct rch_dev_win *dw;
    int target, kind;
    const unsigned char *in;
    unsigned char *out;
    const struct rch_dev_rma_op *op;
    struct rch_dev_rma_cmpl *c;
    size_t esize, espan;         /* spread: each esize bytes of data is an espan-byte run */
    struct piece *piece;         /* span_get_now: the runs are copied out of it, not issued */
};

static rdmach_status_t run(struct job *j, uint64_t toff, size_t len, size_t doff)
{
    switch (j->kind) {
    case RCH_DEV_RMA_PUT: return rch_dev_rma_put(j->dw, j->target, j->in + doff, len, toff, j->c);
    case RCH_DEV_RMA_GET: return rch_dev_rma_get(j->dw, j->target, j->out + doff, len, toff, j->c);
    case RCH_DEV_RMA_ACC: return rch_dev_rma_acc(j->dw, j->target, j->in + doff, NULL, len, toff, j->op, j->c);
    default:    return rch_dev_rma_acc(j->dw, j->target, j->in + doff, j->out + doff, len, toff, j->op, j->c);
    }
}

/* Runs of the target datatype on their way to the device: a batch of
 * them goes in one call (rch_dev_rma_vec: many small blocks to a packet);
 * a batch of one run is a plain operation. */
#define RUN_BATCH 1024
struct runs {
    struct rch_dev_rma_seg s[RUN_BATCH];
    size_t n;
    size_t doff;                 /* the packed offset of the batch's first byte */
    size_t bytes;
};

static rdmach_status_t piece_runs(struct job *j, const struct rch_dev_rma_seg *s, size_t n, unsigned char *out);

static rdmach_status_t runs_flush(struct job *j, struct runs *r)
{
    rdmach_status_t st = RDMACH_OK;
    if (j->piece)
        st = piece_runs(j, r->s, r->n, j->out + r->doff);
    else if (r->n == 1 && r->s[0].count == 1)
        st = run(j, r->s[0].off, r->s[0].blen, r->doff);
    else if (r->n > 0)
        st = rch_dev_rma_vec(j->dw, j->target, (enum rch_dev_rma_kind)j->kind, j->in ? j->in + r->doff : NULL,
                             j->out ? j->out + r->doff : NULL, r->s, r->n, j->op, j->c);
    r->doff += r->bytes;
    r->n = 0;
    r->bytes = 0;
    return st;
}

/* The walk's state: the segment being extended (equal runs at a constant
 * stride, a vector's, become one), kept out of the batch until it ends. */
struct walker {
    struct job *j;
    struct runs *r;
    struct rch_dev_rma_seg cur;
    uint64_t next;               /* where cur's next run would start (count > 1) */
    int have;
};

static rdmach_status_t walker_push(struct walker *k)
{
    struct runs *r = k->r;
    if (r->n == RUN_BATCH) {
        rdmach_status_t st = runs_flush(k->j, r);
        if (st != RDMACH_OK)
            return st;
    }
    r->s[r->n++] = k->cur;
    r->bytes += k->cur.blen * k->cur.count;
    return RDMACH_OK;
}

static inline rdmach_status_t walker_add(struct walker *k, uint64_t off, size_t len)
{
    struct rch_dev_rma_seg *s = &k->cur;
    if (RCH_LIKELY(k->have && s->blen == len)) {
        if (s->count > 1 && off == k->next) {
            s->count++;
            k->next += (uint64_t)s->stride;
            return RDMACH_OK;
        }
        if (s->count == 1 && off != s->off) {
            s->stride = (int64_t)(off - s->off);
            s->count = 2;
            k->next = off + (uint64_t)s->stride;
            return RDMACH_OK;
        }
    }
    if (k->have) {
        rdmach_status_t st = walker_push(k);
        if (st != RDMACH_OK)
            return st;
    }
    *s = (struct rch_dev_rma_seg){ .off = off, .stride = 0, .blen = len, .count = 1 };
    k->have = 1;
    return RDMACH_OK;
}

/* n blocks of len bytes at off, off + stride, ... after the current
 * segment: it grows if they continue it. */
static rdmach_status_t walker_seg(struct walker *k, uint64_t off, int64_t stride, size_t len, uint64_t n)
{
    struct rch_dev_rma_seg *s = &k->cur;
    if (k->have && s->blen == len &&
        ((s->count > 1 && s->stride == stride && k->next == off) ||
         (s->count == 1 && s->off + (uint64_t)stride == off))) {
        s->stride = stride;
        s->count += n;
        k->next = s->off + (uint64_t)(stride * (int64_t)s->count);
        return RDMACH_OK;
    }
    if (k->have) {
        rdmach_status_t st = walker_push(k);
        if (st != RDMACH_OK)
            return st;
    }
    *s = (struct rch_dev_rma_seg){ .off = off, .stride = n > 1 ? stride : 0, .blen = len, .count = n };
    k->next = off + (uint64_t)(stride * (int64_t)n);
    k->have = 1;
    return RDMACH_OK;
}

/* Every contiguous run of count elements of tt at base, in order (adjacent
 * blocks merged), with the offset of its data in the packed stream; spread
 * (j->espan): one run per predefined element, its whole span. A regular
 * map's equal blocks after the first go as one segment, without reading
 * them (a vector of 16 M ints: one step, not 16 M). */
static rdmach_status_t walk(struct job *j, const struct rch_mpi_type *tt, int count, int64_t base)
{
    if (tt->size == 0)
        return RDMACH_OK;
    struct runs *r = malloc(sizeof(*r));
    if (!r)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "one-sided: no memory to walk a datatype");
    r->n = 0;
    r->doff = 0;
    r->bytes = 0;
    struct walker k = { .j = j, .r = r, .have = 0 };
    uint64_t run_off = 0;
    size_t run_len = 0, data = 0;
    rdmach_status_t st = RDMACH_OK;
    const struct rch_mpi_type_obj *ob = rch_mpi_type_obj_of(tt);
    int reg_first = -1, reg_end = -1;       /* blocks (reg_first, reg_end) go as one segment */
    if (ob->regular && !j->espan && tt->blocks[ob->rhead].len > 0) {
        reg_first = ob->rhead;
        reg_end = tt->nblocks - ob->rtail;
    }
    for (int i = 0; i < count && st == RDMACH_OK; i++) {
        int64_t elem = base + (int64_t)i * tt->extent;
        const struct rch_mpi_type_block *blk = tt->blocks;
        for (int b = 0; b < tt->nblocks && st == RDMACH_OK; b++) {
            uint64_t o = (uint64_t)(elem + blk[b].off);
            size_t len = blk[b].len;
            if (b == reg_first + 1 && b < reg_end) {
                if (run_len)
                    st = walker_add(&k, run_off, run_len);
                if (st == RDMACH_OK)
                    st = walker_seg(&k, o, (int64_t)ob->rstride, len, (uint64_t)(reg_end - b));
                run_len = 0;
                b = reg_end - 1;
                continue;
            }
            if (len == 0)
                continue;
            if (j->espan) {
                /* an element starts at each multiple of esize in the data */
                for (size_t p = (j->esize - data % j->esize) % j->esize; p < len && st == RDMACH_OK; p += j->esize)
                    st = walker_add(&k, o + p, j->espan);
                data += len;
                continue;
            }
            if (run_len && run_off + run_len == o) {
                run_len += len;
                continue;
            }
            if (run_len)
                st = walker_add(&k, run_off, run_len);
            run_off = o;
            run_len = len;
        }
    }
    if (st == RDMACH_OK && run_len)
        st = walker_add(&k, run_off, run_len);
    if (st == RDMACH_OK && k.have)
        st = walker_push(&k);
    if (st == RDMACH_OK)
        st = runs_flush(j, r);
    free(r);
    return st;
}

/* A put or accumulate of a map whose blocks repeat in columns, to memory
 * the device cannot map: count elements of a few blocks (a struct: 2..
 * RCH_MPI_TYPE_PERIOD_MAX, sorted and disjoint, elements disjoint too), or
 * one element whose blocks repeat with a period (an indexed type built from
 * a pattern: the type's column period, type_period.c). The data is rearranged a column at a time (block
 * k of every repetition, then block k + 1) into *col, so each column becomes
 * one segment, instead of one segment per block (a 1 M-int {int; int[2]}
 * struct: 2 segments, not 700 K, whose descriptions outweighed the data 4 to
 * 1). Where the blocks land does not depend on the order they are written
 * in, as no two overlap. The device takes such a map as it is where it can
 * (as_pattern: PUTP/ACCP packets carry the data in the origin's order); the
 * data is rearranged only for the other paths. RDMACH_AGAIN: not such a map. */
#define COLUMN_MIN_COUNT 64

/* Blocks [from, nb) of a map whose whole periods went as columns: one run each. */
static void tail_runs(struct runs *r, const struct rch_mpi_type_block *b, size_t from, int nb, int64_t base)
{
    for (size_t i = from; i < (size_t)nb; i++) {
        r->s[r->n++] = (struct rch_dev_rma_seg){ .off = (uint64_t)(base + b[i].off), .stride = 0, .blen = b[i].len,
                                                 .count = 1 };
        r->bytes += b[i].len;
    }
}

/* The whole periods as the device's repeating blocks (rch_dev_rma_pattern:
 * a target not mapped here), which carry the data in the order the origin
 * has it, so nothing is rearranged here; the blocks after the whole periods
 * follow as segments. RDMACH_AGAIN: not that way. */
static rdmach_status_t as_pattern(struct job *j, const struct rch_mpi_type_block *b, int nb, int p, size_t reps,
                              MPI_Aint stride, int64_t base, size_t per)
{
    struct rch_dev_rma_pblock blk[RCH_MPI_TYPE_COLP_MAX];
    for (int i = 0; i < p; i++)
        blk[i] = (struct rch_dev_rma_pblock){ .off = (uint64_t)(base + b[i].off), .blen = b[i].len };
    rdmach_status_t st = j->kind == RCH_DEV_RMA_GET
                             ? rch_dev_rma_getw_pattern(j->dw, j->target, j->out, blk, (size_t)p, reps, stride, j->c)
                             : rch_dev_rma_pattern(j->dw, j->target, (enum rch_dev_rma_kind)j->kind, j->in, blk,
                                                   (size_t)p, reps, stride, j->op, j->c);
    if (st != RDMACH_OK || reps * (size_t)p >= (size_t)nb)
        return st;
    struct runs *r = malloc(sizeof(*r));
    if (!r)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "one-sided: no memory for a datatype's segments");
    *r = (struct runs){ .n = 0, .doff = reps * per };
    tail_runs(r, b, reps * (size_t)p, nb, base);
    st = runs_flush(j, r);
    free(r);
    return st;
}

static rdmach_status_t column_walk(struct job *j, const struct rch_mpi_type *tt, int count, int64_t base, void **col)
{
    int nb = tt->nblocks, p = nb;
    const struct rch_mpi_type_block *b = tt->blocks;
    size_t reps = (size_t)count;
    MPI_Aint stride = tt->extent;
    int get = j->kind == RCH_DEV_RMA_GET;    /* only as a pattern the target packs (GETW) */
    if (nb < 2 || j->espan || (j->kind != RCH_DEV_RMA_PUT && j->kind != RCH_DEV_RMA_ACC && !get) ||
        tt->extent <= 0)
        return RDMACH_AGAIN;
    if (count >= COLUMN_MIN_COUNT && nb <= RCH_MPI_TYPE_PERIOD_MAX) {
        if (!rch_mpi_type_blocks_disjoint(b, nb) || b[nb - 1].off + (MPI_Aint)b[nb - 1].len - b[0].off > tt->extent)
            return RDMACH_AGAIN;
    } else if (count == 1 && (p = rch_mpi_type_obj_of(tt)->colp) != 0) {
        stride = rch_mpi_type_obj_of(tt)->colp_stride;
        /* (a regular map, a vector's, leaves the walk as one segment without a copy) */
        reps = (size_t)(nb / p);
    } else {
        return RDMACH_AGAIN;
    }
    size_t bytes = (size_t)count * tt->size, per = 0;   /* per: packed bytes of one repetition */
    for (int i = 0; i < p; i++)
        per += b[i].len;
    rdmach_status_t st = as_pattern(j, b, nb, p, reps, stride, base, per);
    if (st != RDMACH_AGAIN || get)
        return st;
    unsigned char *c = malloc(bytes);
    struct runs *r = malloc(sizeof(*r));
    if (!c || !r) {
        free(c);
        free(r);
        return RDMACH_AGAIN;
    }
    *r = (struct runs){ .n = 0 };
    size_t poff = 0, coff = 0;
    for (int i = 0; i < p; i++) {
        rch_base_copy2d(c + coff, (ptrdiff_t)b[i].len, j->in + poff, (ptrdiff_t)per, reps, b[i].len);
        r->s[r->n++] = (struct rch_dev_rma_seg){ .off = (uint64_t)(base + b[i].off), .stride = stride,
                                                 .blen = b[i].len, .count = (uint64_t)reps };
        r->bytes += reps * b[i].len;
        poff += b[i].len;
        coff += reps * b[i].len;
    }
    /* the blocks after the whole periods, as they are */
    memcpy(c + coff, j->in + reps * per, bytes - coff);
    tail_runs(r, b, reps * (size_t)p, nb, base);
    j->in = c;
    *col = c;
    st = runs_flush(j, r);
    free(r);
    return st;
}

/* A target whose window memory is mapped here (device DIRECT path): the
 * datatype engine moves the whole target datatype in one pass, as a local
 * MPI_Unpack into (put) or MPI_Pack out of (get) that memory, instead of one
 * device segment per block; an accumulate combines the target's elements in
 * place, a piece in cache at a time (rch_mpi_type_combine), or where the map's
 * blocks are not whole elements (a pair type's padding) packs them all,
 * applies the operation in one call and unpacks them back; all under the
 * target's accumulate lock (atomic like the other paths). RDMACH_AGAIN: the
 * target is not mapped here (or no memory for an accumulate's copy): walk. */
/* A direct accumulate's packed target elements (maps that are not whole
 * elements) come from the collectives' scratch buffers, kept between calls
 * (a buffer malloc'd and freed each time was mapped and faulted in again by
 * every call: a third of a 4 MiB accumulate's time). Above ACC_WHOLE bytes a
 * regular map takes the device's walk instead, combined 4 KiB at a time. */
#define ACC_WHOLE (16u << 20)

static rdmach_status_t typed_direct(struct job *j, const struct rch_mpi_type *tt, int tcount, int64_t base,
                                    size_t bytes)
{
    int acc = j->kind == RCH_DEV_RMA_ACC || j->kind == RCH_DEV_RMA_GACC;
    unsigned char *tmp = NULL;
    if (acc && (!j->op || !j->op->fn || !j->op->elem))
        return RDMACH_AGAIN;     /* the device's checks report it */
    /* the map's blocks whole elements: combined in place, in cache */
    int inplace = acc && rch_mpi_type_combines(tt, j->op->elem);
    /* a large accumulate to a regular map: the walk's few segments, combined
     * by the device 4 KiB at a time in cache, instead of a buffer of it all */
    if (j->kind == RCH_DEV_RMA_ACC && !inplace && bytes > ACC_WHOLE && rch_mpi_type_obj_of(tt)->regular)
        return RDMACH_AGAIN;
    if (acc && !inplace && !(tmp = rch_coll_scratch(bytes ? bytes : 1)))
        return RDMACH_AGAIN;
    unsigned char *mem = rch_dev_rma_direct_begin(j->dw, j->target, acc);
    if (!mem) {
        if (tmp)
            rch_coll_scratch_free(tmp);
        return RDMACH_AGAIN;
    }
    mem += base;
    if (j->kind == RCH_DEV_RMA_PUT) {
        rch_mpi_unpack_n(j->in, mem, (size_t)tcount, tt);
    } else if (j->kind == RCH_DEV_RMA_GET) {
        rch_mpi_pack_n(mem, (size_t)tcount, tt, j->out);
    } else if (inplace) {
        rch_mpi_type_combine(mem, (size_t)tcount, tt, j->in, j->kind == RCH_DEV_RMA_GACC ? j->out : NULL, j->op->fn,
                             j->op->fn2d, j->op->rows, j->op->elem);
    } else {
        rch_mpi_pack_n(mem, (size_t)tcount, tt, tmp);
        if (j->kind == RCH_DEV_RMA_GACC)
            memcpy(j->out, tmp, bytes);
        j->op->fn(j->in, tmp, bytes / j->op->elem, NULL);
        rch_mpi_unpack_n(tmp, mem, (size_t)tcount, tt);
    }
    rch_dev_rma_direct_end(j->dw, j->target, acc);
    if (tmp)
        rch_coll_scratch_free(tmp);
    return RDMACH_OK;
}

/* A get of a derived target datatype whose blocks cover at least
 * 1 / SPAN_DENSITY of its span: one contiguous get of the whole span (reading
 * the holes is harmless), the type's bytes packed out of it at completion,
 * instead of one device segment per block (packets or a read per block).
 * Not for dynamic windows (the span may cross memory nobody attached).
 * RDMACH_AGAIN: not applicable (or no memory): walk. */
#define SPAN_DENSITY 4
static rdmach_status_t span_get(struct rma_call *k, struct job *j, const struct rch_mpi_type *tt, int tcount,
                                int64_t base, size_t bytes)
{
    if (tt->extent < 0 || tcount <= 0 || bytes == 0)
        return RDMACH_AGAIN;
    int64_t lo = base + tt->true_lb, hi = base + (int64_t)(tcount - 1) * tt->extent + tt->true_ub;
    size_t span = (size_t)(hi - lo);
    if (hi <= lo || span / SPAN_DENSITY > bytes || !(k->span = span_take(span)))
        return RDMACH_AGAIN;
    k->span_dest = j->out;
    k->span_type = (struct rch_mpi_type *)tt;
    rch_mpi_type_retain(k->span_type);
    k->span_count = (size_t)tcount;
    k->span_shift = lo - base;
    return rch_dev_rma_get(j->dw, j->target, k->span, span, (uint64_t)lo, j->c);
}

/* A get whose target the device reaches by single copy, complete on return
 * (rch_dev_rma_get_now: a rank of this node, Win_create memory): the span
 * is read SPAN_PIECE bytes at a time into span_take's buffer and the
 * type's runs, as the walk finds them, are copied out of each piece while
 * it is in cache, instead of the whole span read into memory and packed out
 * of it again (a 16 M-int vector: 128 MiB written and read back). A run
 * outside the piece in hand starts the next piece (ends it, going
 * backwards); one longer than a piece is read straight into its place. A
 * map whose runs jump about would read pieces again and again: past twice
 * the span read, RDMACH_AGAIN gives the get to span_get (a get changes
 * nothing at the target, so starting again is harmless). Same density rule
 * as span_get. Pieces of whole elements for count > 1 (element_pieces); one
 * element only of a regular map (a vector's: the walk's one segment), the
 * others go to span_get, whose pack of the whole span beats copying many
 * short runs one by one. */
/* below SHM_CMA_SPLIT's default: one process_vm_readv, no helper to wake */
#define SPAN_PIECE (128u << 10)
struct piece {
    unsigned char *buf;
    uint64_t lo, hi;             /* the target bytes in buf */
    uint64_t start, end;         /* the span */
    uint64_t budget;             /* bytes it may still read */
};

/* Read the piece that holds [a, a + len) (len <= SPAN_PIECE). */
static rdmach_status_t piece_fill(struct job *j, struct piece *p, uint64_t a, uint64_t len)
{
    if (a < p->lo) {
        p->hi = a + len;
        p->lo = p->hi - p->start < SPAN_PIECE ? p->start : p->hi - SPAN_PIECE;
    } else {
        p->lo = a;
        p->hi = p->end - a < SPAN_PIECE ? p->end : a + SPAN_PIECE;
    }
    if (p->hi - p->lo > p->budget)
        return RDMACH_AGAIN;
    p->budget -= p->hi - p->lo;
    return rch_dev_rma_get_now(j->dw, j->target, p->buf, p->hi - p->lo, p->lo);
}

static rdmach_status_t piece_runs(struct job *j, const struct rch_dev_rma_seg *segs, size_t n, unsigned char *out)
{
    struct piece *p = j->piece;
    for (size_t i = 0; i < n; i++) {
        const struct rch_dev_rma_seg *s = &segs[i];
        for (uint64_t k = 0; k < s->count;) {
            uint64_t a = s->off + (uint64_t)((int64_t)k * s->stride);
            rdmach_status_t st;
            if (s->blen > SPAN_PIECE) {
                if ((st = rch_dev_rma_get_now(j->dw, j->target, out, s->blen, a)) != RDMACH_OK)
                    return st;
                out += s->blen;
                k++;
                continue;
            }
            if ((a < p->lo || a + s->blen > p->hi) && (st = piece_fill(j, p, a, s->blen)) != RDMACH_OK)
                return st;
            uint64_t m = 1;     /* the blocks from k on that lie in this piece */
            if (s->stride > 0) {
                m = (p->hi - a - s->blen) / (uint64_t)s->stride + 1;
                if (m > s->count - k)
                    m = s->count - k;
            }
            rch_base_copy2d(out, (ptrdiff_t)s->blen, p->buf + (a - p->lo), s->stride, m, s->blen);
            out += m * s->blen;
            k += m;
        }
    }
    return RDMACH_OK;
}

/* span_get_now for count > 1 elements: whole elements a piece, packed by
 * the datatype engine (its loops for the type's blocks beat copying the
 * walk's runs one by one: a {int; int[2]} struct, 3x as fast). */
static rdmach_status_t element_pieces(struct job *j, const struct rch_mpi_type *tt, size_t count, int64_t base,
                                      size_t span, size_t one)
{
    size_t ext = (size_t)tt->extent, per = SPAN_PIECE / ext;     /* elements a piece */
    size_t cap = (per - 1) * ext + one;
    unsigned char *buf = span_take(cap < span ? cap : span);
    if (!buf)
        return RDMACH_AGAIN;
    rdmach_status_t st = RDMACH_OK;
    for (size_t e = 0; e < count && st == RDMACH_OK; e += per) {
        size_t m = count - e < per ? count - e : per;
        int64_t at = base + (int64_t)(e * ext) + tt->true_lb;
        st = rch_dev_rma_get_now(j->dw, j->target, buf, (m - 1) * ext + one, (uint64_t)at);
        if (st == RDMACH_OK)
            rch_mpi_pack_n(buf - tt->true_lb, m, tt, j->out + e * tt->size);
    }
    span_give(buf);
    return st;
}

static rdmach_status_t span_get_now(struct job *j, const struct rch_mpi_type *tt, int tcount, int64_t base,
                                    size_t bytes)
{
    if (tt->extent < 0 || tcount <= 0 || bytes == 0)
        return RDMACH_AGAIN;
    int64_t lo = base + tt->true_lb, hi = base + (int64_t)(tcount - 1) * tt->extent + tt->true_ub;
    size_t span = (size_t)(hi - lo);
    if (hi <= lo || span / SPAN_DENSITY > bytes)
        return RDMACH_AGAIN;
    size_t one = (size_t)(tt->true_ub - tt->true_lb);     /* an element's bytes */
    if (tcount > 1 && tt->extent > 0 && (size_t)tt->extent <= SPAN_PIECE && one <= SPAN_PIECE)
        return element_pieces(j, tt, (size_t)tcount, base, span, one);
    if (tcount > 1 || !rch_mpi_type_obj_of(tt)->regular)
        return RDMACH_AGAIN;
    struct piece p = { .lo = (uint64_t)lo, .hi = (uint64_t)lo, .start = (uint64_t)lo, .end = (uint64_t)hi,
                       .budget = 2 * (uint64_t)span + SPAN_PIECE };
    if (!(p.buf = span_take(span < SPAN_PIECE ? span : SPAN_PIECE)))
        return RDMACH_AGAIN;
    rdmach_status_t st = piece_fill(j, &p, p.lo, 0);
    if (st == RDMACH_OK) {
        j->piece = &p;
        st = walk(j, tt, tcount, base);
        j->piece = NULL;
    }
    span_give(p.buf);
    return st;
}

/* The data of count_in of t_in as `spread`'s elements lie in memory. */
static void *spread_in(const void *in, size_t count_in, const struct rch_mpi_type *t_in,
                       const struct rch_mpi_type *spread, size_t bytes)
{
    size_t n = bytes / spread->size;
    void *pk = malloc(bytes ? bytes : 1), *sp = calloc(n ? n : 1, (size_t)spread->extent);
    if (pk && sp) {
        rch_mpi_pack_n(in, count_in, t_in, pk);
        rch_mpi_unpack_n(pk, sp, n, spread);
    } else {
        free(sp);
        sp = NULL;
    }
    free(pk);
    return sp;
}

/* Issue an operation of any shape. `in` (count_in of t_in) is what goes to
 * the target; `out` (count_out of t_out) receives what comes back. `spread`
 * (an accumulate's predefined type, or NULL): the data travels as that
 * type's elements lie in memory, padding included (see the top). */
static int general(struct rch_mpi_win *w, const char *fn, int kind, int target, const void *in, size_t count_in,
                   const struct rch_mpi_type *t_in, void *out, size_t count_out, const struct rch_mpi_type *t_out,
                   int64_t base, int tcount, const struct rch_mpi_type *tt, const struct rch_dev_rma_op *op,
                   int own_in, const struct rch_mpi_type *spread, MPI_Request *request)
{
    struct rma_call *k = calloc(1, sizeof(*k));
    if (!k) {
        if (own_in)
            free((void *)in);
        return rch_mpi_win_err(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    if (own_in)
        k->tmp_in = (void *)in;     /* freed when the call completes */
    rch_dev_rma_cmpl_init(&k->cmpl, call_done);
    struct job j = { .dw = w->dw, .target = target, .kind = kind, .op = op, .c = &k->cmpl };
    size_t bytes = (size_t)tcount * tt->size, tbytes = bytes;
    if (spread) {
        j.esize = spread->size;
        j.espan = (size_t)spread->extent;
        tbytes = bytes / j.esize * j.espan;
    }
    if (t_in) {        /* not `in`: a buffer may be MPI_BOTTOM, a null pointer */
        if (spread) {
            void *sp = spread_in(in, count_in, t_in, spread, bytes);
            free(k->tmp_in);
            k->tmp_in = sp;
            j.in = sp;
        } else if (t_in->contig) {
            j.in = (const unsigned char *)in + t_in->true_lb;
        } else {
            k->tmp_in = malloc(bytes ? bytes : 1);
            if (k->tmp_in)
                rch_mpi_pack_n(in, count_in, t_in, k->tmp_in);
            j.in = k->tmp_in;
        }
        if (!j.in) {
            call_free(k);
            return rch_mpi_win_err(w, MPI_ERR_NO_MEM, "%s: no memory to pack %zu bytes", fn, tbytes);
        }
    }
    if (t_out) {
        if (t_out->contig && !spread) {
            j.out = (unsigned char *)out + t_out->true_lb;
        } else {
            k->tmp_out = malloc(tbytes ? tbytes : 1);
            if (spread)
                k->tmp_packed = malloc(bytes ? bytes : 1);
            if (!k->tmp_out || (spread && !k->tmp_packed)) {
                call_free(k);
                return rch_mpi_win_err(w, MPI_ERR_NO_MEM, "%s: no memory for %zu bytes of results", fn, tbytes);
            }
            k->out_buf = out;
            k->out_count = count_out;
            k->out_type = (struct rch_mpi_type *)t_out;
            k->spread = spread;
            rch_mpi_type_retain(k->out_type);
            j.out = k->tmp_out;
        }
    }
    struct rch_dev_req *greq = NULL;
    if (request) {
        greq = rch_dev_req_alloc(RCH_DEV_REQ_GREQ);
        MPI_Request h = greq ? rch_mpi_req_new(greq, w->c->handle) : MPI_REQUEST_NULL;
        if (h == MPI_REQUEST_NULL) {
            if (greq)
                rch_dev_req_free(greq);
            call_free(k);
            return rch_mpi_win_err(w, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
        }
        k->greq = greq;
        *request = h;
    }
    rdmach_status_t st = spread ? RDMACH_AGAIN : typed_direct(&j, tt, tcount, base, bytes);
    /* a regular map's one segment, or blocks that repeat, which the target
     * packs and writes here (GETW) */
    if (st == RDMACH_AGAIN && kind == RCH_DEV_RMA_GET && w->flavor != MPI_WIN_FLAVOR_DYNAMIC &&
        rch_dev_rma_getw_ok(w->dw, target)) {
        void *none = NULL;
        st = rch_mpi_type_obj_of(tt)->regular ? walk(&j, tt, tcount, base) : column_walk(&j, tt, tcount, base, &none);
    }
    if (st == RDMACH_AGAIN && kind == RCH_DEV_RMA_GET && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        st = span_get_now(&j, tt, tcount, base, bytes);
    if (st == RDMACH_AGAIN && kind == RCH_DEV_RMA_GET && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        st = span_get(k, &j, tt, tcount, base, bytes);
    if (st == RDMACH_AGAIN) {
        void *col = NULL;
        st = column_walk(&j, tt, tcount, base, &col);
        if (col) {              /* the data in its column order, until the call completes */
            free(k->tmp_in);
            k->tmp_in = col;
        }
    }
    if (st == RDMACH_AGAIN)
        st = walk(&j, tt, tcount, base);
    rch_dev_rma_cmpl_release(&k->cmpl, st);   /* k may be gone from here on */
    return rch_mpi_win_status(w, fn, st);
}

/* ---- put / get ---- */

static int put_get(const char *fn, int kind, void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint tdisp,
                   int tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *request)
{
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (request)
        *request = MPI_REQUEST_NULL;
    const struct rch_mpi_type *ot = NULL, *tt = NULL;
    int err = check_buf(w, fn, obuf, ocount, odt, "origin_addr", "origin_count", "origin_datatype", &ot);
    if (!err && RCH_UNLIKELY(tcount < 0))
        err = rch_mpi_win_err(w, MPI_ERR_COUNT, "%s: negative count %d in argument target_count", fn, tcount);
    if (!err)
        err = check_type(w, fn, tdt, "target_datatype", &tt);
    if (err)
        return err;
    if (target == MPI_PROC_NULL) {
        if (request)
            *request = RCH_MPI_REQ_DONE_SEND;
        return MPI_SUCCESS;
    }
    err = check_target(w, fn, target);
    if (!err && request)
        err = rch_mpi_win_check_passive(w, fn, target);
    size_t bytes = (size_t)ocount * ot->size;
    if (!err)
        err = check_sizes(w, fn, bytes, (size_t)tcount * tt->size, "origin arguments");
    int64_t base;
    if (!err)
        err = check_range(w, fn, target, tdisp, tcount, tt, &base);
    if (err)
        return err;
    if (RCH_LIKELY(ot->contig && tt->contig && !request)) {
        uint64_t toff = (uint64_t)(base + tt->true_lb);
        rdmach_status_t st = kind == RCH_DEV_RMA_PUT
                                 ? rch_dev_rma_put(w->dw, target, (char *)obuf + ot->true_lb, bytes, toff, NULL)
                                 : rch_dev_rma_get(w->dw, target, (char *)obuf + ot->true_lb, bytes, toff, NULL);
        return rch_mpi_win_status(w, fn, st);
    }
    if (kind == RCH_DEV_RMA_PUT)
        return general(w, fn, RCH_DEV_RMA_PUT, target, obuf, (size_t)ocount, ot, NULL, 0, NULL, base, tcount, tt, NULL, 0, NULL, request);
    return general(w, fn, RCH_DEV_RMA_GET, target, NULL, 0, NULL, obuf, (size_t)ocount, ot, base, tcount, tt, NULL, 0, NULL, request);
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    RCH_MPI_CS();
    return put_get("MPI_Put", RCH_DEV_RMA_PUT, (void *)origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, NULL);
}
#pragma weak MPI_Put = PMPI_Put

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    RCH_MPI_CS();
    return put_get("MPI_Get", RCH_DEV_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, NULL);
}
#pragma weak MPI_Get = PMPI_Get

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    RCH_MPI_CS();
    if (!request) {
        struct rch_mpi_win *w = rch_mpi_win_get(win);
        return w ? rch_mpi_win_err(w, MPI_ERR_ARG, "MPI_Rput: argument request is NULL")
                 : rch_mpi_win_bad("MPI_Rput", win);
    }
    return put_get("MPI_Rput", RCH_DEV_RMA_PUT, (void *)origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, request);
}
#pragma weak MPI_Rput = PMPI_Rput

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    RCH_MPI_CS();
    if (!request) {
        struct rch_mpi_win *w = rch_mpi_win_get(win);
        return w ? rch_mpi_win_err(w, MPI_ERR_ARG, "MPI_Rget: argument request is NULL")
                 : rch_mpi_win_bad("MPI_Rget", win);
    }
    return put_get("MPI_Rget", RCH_DEV_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, request);
}
#pragma weak MPI_Rget = PMPI_Rget

/* ---- accumulate ---- */

static int accumulate(const char *fn, const void *obuf, int ocount, MPI_Datatype odt, void *rbuf, int rcount,
                      MPI_Datatype rdt, int fetch, int target, MPI_Aint tdisp, int tcount, MPI_Datatype tdt, MPI_Op op,
                      MPI_Win win, MPI_Request *request)
{
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (request)
        *request = MPI_REQUEST_NULL;
    const struct rch_mpi_type *ot = NULL, *rt = NULL, *tt;
    int no_op = op == MPI_NO_OP;
    int err = MPI_SUCCESS;
    if (!(fetch && no_op))         /* Get_accumulate with MPI_NO_OP ignores the origin arguments */
        err = check_buf(w, fn, obuf, ocount, odt, "origin_addr", "origin_count", "origin_datatype", &ot);
    if (!err && fetch)
        err = check_buf(w, fn, rbuf, rcount, rdt, "result_addr", "result_count", "result_datatype", &rt);
    if (!err && RCH_UNLIKELY(tcount < 0))
        err = rch_mpi_win_err(w, MPI_ERR_COUNT, "%s: negative count %d in argument target_count", fn, tcount);
    if (!err)
        err = check_type(w, fn, tdt, "target_datatype", &tt);
    if (err)
        return err;
    if (target == MPI_PROC_NULL) {
        if (request)
            *request = RCH_MPI_REQ_DONE_SEND;
        return MPI_SUCCESS;
    }
    err = check_target(w, fn, target);
    if (!err && request)
        err = rch_mpi_win_check_passive(w, fn, target);
    size_t bytes = (size_t)tcount * tt->size;
    struct rch_dev_rma_op dop;
    if (!err)
        err = bind_acc(w, fn, op, tdt, tt, &dop);
    if (!err && ot)
        err = check_sizes(w, fn, (size_t)ocount * ot->size, bytes, "origin arguments");
    if (!err && rt)
        err = check_sizes(w, fn, (size_t)rcount * rt->size, bytes, "result arguments");
    if (!err && ot)   /* after check_sizes: bytes is what each side moves */
        err = check_same_basic(w, fn, ot, tt, bytes, "origin datatype");
    if (!err && rt)
        err = check_same_basic(w, fn, rt, tt, bytes, "result datatype");
    int64_t base;
    if (!err)
        err = check_range(w, fn, target, tdisp, tcount, tt, &base);
    if (err)
        return err;
    if (bytes == 0) {
        if (request)
            *request = RCH_MPI_REQ_DONE_SEND;
        return MPI_SUCCESS;
    }
    /* the kernel's element is not the packed one: MPI_SHORT_INT (see the top) */
    const struct rch_mpi_type *spread = dop.elem != rch_mpi_type_get(tt->basic)->size ? rch_mpi_type_get(tt->basic) : NULL;
    if (!ot) {
        /* MPI_NO_OP: an atomic read; the kernel reads nothing, the packet carries zeros. */
        void *zeros = calloc(1, bytes);
        if (!zeros)
            return rch_mpi_win_err(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        struct rch_mpi_type *bt = rch_mpi_type_get(MPI_BYTE);
        /* the call owns zeros: packets may reference it until they complete */
        return general(w, fn, RCH_DEV_RMA_GACC, target, zeros, bytes, bt, rbuf, (size_t)rcount, rt, base, tcount, tt, &dop, 1,
                       spread, request);
    }
    if (RCH_LIKELY(ot->contig && tt->contig && (!rt || rt->contig) && !request && !spread)) {
        uint64_t toff = (uint64_t)(base + tt->true_lb);
        rdmach_status_t st = rch_dev_rma_acc(w->dw, target, (const char *)obuf + ot->true_lb,
                                             rt ? (char *)rbuf + rt->true_lb : NULL, bytes, toff, &dop, NULL);
        return rch_mpi_win_status(w, fn, st);
    }
    return general(w, fn, fetch ? RCH_DEV_RMA_GACC : RCH_DEV_RMA_ACC, target, obuf, (size_t)ocount, ot, rbuf, (size_t)rcount, rt, base,
                   tcount, tt, &dop, 0, spread, request);
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    RCH_MPI_CS();
    return accumulate("MPI_Accumulate", origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, 0,
                      target_rank, target_disp, target_count, target_datatype, op, win, NULL);
}
#pragma weak MPI_Accumulate = PMPI_Accumulate

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    RCH_MPI_CS();
    return accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, 1, target_rank, target_disp, target_count, target_datatype, op, win, NULL);
}
#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    RCH_MPI_CS();
    if (!request) {
        struct rch_mpi_win *w = rch_mpi_win_get(win);
        return w ? rch_mpi_win_err(w, MPI_ERR_ARG, "MPI_Raccumulate: argument request is NULL")
                 : rch_mpi_win_bad("MPI_Raccumulate", win);
    }
    return accumulate("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL, 0,
                      target_rank, target_disp, target_count, target_datatype, op, win, request);
}
#pragma weak MPI_Raccumulate = PMPI_Raccumulate

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
                         int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request)
{
    RCH_MPI_CS();
    if (!request) {
        struct rch_mpi_win *w = rch_mpi_win_get(win);
        return w ? rch_mpi_win_err(w, MPI_ERR_ARG, "MPI_Rget_accumulate: argument request is NULL")
                 : rch_mpi_win_bad("MPI_Rget_accumulate", win);
    }
    return accumulate("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      result_datatype, 1, target_rank, target_disp, target_count, target_datatype, op, win, request);
}
#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Fetch_and_op";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    const struct rch_mpi_type *t;
    int err = check_type(w, fn, datatype, "datatype", &t);
    if (err)
        return err;
    if (RCH_UNLIKELY(!t->predefined))
        return rch_mpi_win_err(w, MPI_ERR_TYPE, "%s: argument datatype must be a predefined datatype", fn);
    if (RCH_UNLIKELY(!result_addr || (!origin_addr && op != MPI_NO_OP)))
        return rch_mpi_win_err(w, MPI_ERR_BUFFER, "%s: argument %s is NULL", fn,
                               !result_addr ? "result_addr" : "origin_addr");
    if (target_rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    err = check_target(w, fn, target_rank);
    struct rch_dev_rma_op dop;
    if (!err)
        err = bind_acc(w, fn, op, datatype, t, &dop);
    int64_t base;
    if (!err)
        err = check_range(w, fn, target_rank, target_disp, 1, t, &base);
    if (err)
        return err;
    unsigned char zeros[RCH_DEV_RMA_ELEM_MAX] = { 0 };
    const void *src = op == MPI_NO_OP || !origin_addr ? (const void *)zeros : origin_addr;
    if (dop.elem > sizeof(zeros) && src == zeros)
        return rch_mpi_win_err(w, MPI_ERR_TYPE, "%s: datatype of %u bytes is too large", fn, (unsigned)dop.elem);
    /* one element as it lies in memory: dop.elem (MPI_SHORT_INT's 8, not its 6) */
    return rch_mpi_win_status(w, fn, rch_dev_rma_acc(w->dw, target_rank, src, result_addr, dop.elem,
                                                     (uint64_t)(base + t->true_lb), &dop, NULL));
}
#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Compare_and_swap";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    const struct rch_mpi_type *t;
    int err = check_type(w, fn, datatype, "datatype", &t);
    if (err)
        return err;
    if (RCH_UNLIKELY(!origin_addr || !compare_addr || !result_addr))
        return rch_mpi_win_err(w, MPI_ERR_BUFFER, "%s: argument %s is NULL", fn,
                               !origin_addr ? "origin_addr" : !compare_addr ? "compare_addr" : "result_addr");
    /* MPI: C integer, Fortran integer, logical, multi-language or byte types:
     * those a bitwise or a logical operation is defined on. */
    struct rch_mpi_red red;
    if (!t->predefined || t->size > RCH_DEV_RMA_ELEM_MAX ||
        (rch_mpi_red_bind(fn, w->c, MPI_BAND, datatype, t, 1, &red) != MPI_SUCCESS &&
         rch_mpi_red_bind(fn, w->c, MPI_LAND, datatype, t, 1, &red) != MPI_SUCCESS))
        return rch_mpi_win_err(w, MPI_ERR_TYPE, "%s: datatype 0x%x: compare-and-swap takes a predefined integer, "
                               "logical or byte datatype", fn, (unsigned)datatype);
    if (target_rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    err = check_target(w, fn, target_rank);
    int64_t base;
    if (!err)
        err = check_range(w, fn, target_rank, target_disp, 1, t, &base);
    if (err)
        return err;
    return rch_mpi_win_status(w, fn, rch_dev_rma_cas(w->dw, target_rank, compare_addr, origin_addr, result_addr,
                                                     t->size, (uint64_t)(base + t->true_lb), NULL));
}
#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
