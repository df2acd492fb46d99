/*
 * Moving typed data: rch_mpi_type_pack/unpack (used by point-to-point and the
 * collectives for non-contiguous buffers), rch_mpi_type_combine (an
 * accumulate into mapped memory, in place, by the same moves), element counting for
 * MPI_Get_elements, the (buf, count, datatype) argument check every
 * communication call makes, and MPI_Pack / MPI_Unpack / MPI_Pack_size.
 *
 * Packed format: the bytes of the type map in type-map order, nothing else
 * (all ranks share one representation on a homogeneous cluster), so
 * Pack_size is count * size and a packed buffer can be sent as MPI_PACKED
 * and received with any type of the same signature.
 *
 * Cost: a contiguous type is one memcpy. A regular map (equal blocks at a
 * constant stride: most vectors) is a strided loop that reads no block
 * list, with fixed-size moves for the common block lengths (rch_base_copy2d).
 * A map of two blocks of 4 or 8 bytes (a struct such as {int; double}) is
 * moved an element at a time, both moves of a constant size. Another map of
 * a few blocks, or a map repeating a few blocks
 * at a constant stride (a contiguous or vector type of such a struct), is
 * moved a column at a time (rch_base_copy_cols): for each block, one
 * strided loop over the elements of a span of the user's buffer that stays
 * in L1, its length a constant in the loop (a 4-byte or 8-byte move, not a
 * call); per-element copies through a length switch ran 3-4 times slower.
 * So is a map with a column period (type_period.c: an indexed type built
 * from a pattern of up to RCH_MPI_TYPE_COLP_MAX blocks), its whole periods
 * by columns and the blocks of its cut-short last period one by one: 1 M
 * ints of bench/rma_dtype's indexed type (period 6, blocks of 4-12 bytes)
 * unpack in 281 us over 4 KiB spans, in 586-601 over 32 KiB ones (AMD
 * EPYC, Zen 4, L1d 32 KiB). Anything else is one copy per block per element
 * (4 to 16 bytes as two fixed-size moves), blocks having been merged when
 * the type was built.
 *
 * Addresses are computed as integers: with MPI_BOTTOM (NULL) the "offsets"
 * are absolute addresses, and NULL + offset would be undefined behaviour.
 */
#include <string.h>
#include "base/base.h"
#include "mpi/type_impl.h"

static inline const char *at(const void *base, MPI_Aint off)
{
    return (const char *)((uintptr_t)base + (uintptr_t)off);
}

/* One block of an irregular map. 4 to 16 bytes (most blocks of an indexed
 * type of ints or doubles) as two fixed-size moves that may overlap in the
 * middle, whatever the length: no call, and one branch the lengths of
 * neighbouring blocks rarely change. */
static inline void copy(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else {
        memcpy(d, s, n);
    }
}

/* One element of a regular map (see struct rch_mpi_type_obj) at `user`,
 * to or from `packed`. */
static void regular_elem(char *packed, char *user, const struct rch_mpi_type *t, int to_packed)
{
    const struct rch_mpi_type_obj *o = rch_mpi_type_obj_of(t);
    const struct rch_mpi_type_block *b = &t->blocks[o->rhead], *last = &t->blocks[t->nblocks - 1];
    size_t n = (size_t)(t->nblocks - o->rhead - o->rtail);
    if (o->rhead) {
        if (to_packed)
            copy(packed, at(user, t->blocks[0].off), t->blocks[0].len);
        else
            copy((char *)at(user, t->blocks[0].off), packed, t->blocks[0].len);
        packed += t->blocks[0].len;
    }
    if (to_packed)
        rch_base_copy2d(packed, (MPI_Aint)b->len, at(user, b->off), o->rstride, n, b->len);
    else
        rch_base_copy2d((char *)at(user, b->off), o->rstride, packed, (MPI_Aint)b->len, n, b->len);
    packed += n * b->len;
    if (o->rtail) {
        if (to_packed)
            copy(packed, at(user, last->off), last->len);
        else
            copy((char *)at(user, last->off), packed, last->len);
    }
}

/* Column-wise moves: `nvirt` repetitions, `stride` bytes apart in the
 * user's buffer, of the blocks b[0..nb), whose data is `size` bytes, by
 * rch_base_copy_cols (spans of the user's buffer that stay in L1 between
 * the passes of the columns); maps of more than RCH_MPI_TYPE_COLP_MAX
 * blocks per repetition are not moved this way. */
struct cols {
    const struct rch_mpi_type_block *b;
    int nb;
    MPI_Aint stride;
    size_t size;
};

/* The columns of t and how many whole repetitions of them one element
 * has, or 0: a map of a few blocks (one repetition), a periodic one (its
 * blocks all in whole periods) or one with a column period (an indexed
 * pattern, whose blocks after the whole periods tail_of moves). */
static int columns_of(const struct rch_mpi_type *t, struct cols *c)
{
    const struct rch_mpi_type_obj *o = rch_mpi_type_obj_of(t);
    if (t->nblocks <= RCH_MPI_TYPE_PERIOD_MAX) {
        *c = (struct cols){ t->blocks, t->nblocks, t->extent, t->size };
        return 1;
    }
    if (o->period != 0) {
        int reps = t->nblocks / o->period;
        *c = (struct cols){ t->blocks, o->period, o->pstride, t->size / (size_t)reps };
        return reps;
    }
    if (o->colp == 0)
        return 0;
    size_t per = 0;
    for (int k = 0; k < o->colp; k++)
        per += t->blocks[k].len;
    *c = (struct cols){ t->blocks, o->colp, o->colp_stride, per };
    return t->nblocks / o->colp;
}

/* Blocks [from, to) of t's map of one element at `user`, one after the
 * other at `packed`, to or from it. */
static void blocks_move(char *packed, char *user, const struct rch_mpi_type *t, int from, int to, int to_packed)
{
    for (int k = from; k < to; k++) {
        char *u = (char *)at(user, t->blocks[k].off);
        if (to_packed)
            copy(packed, u, t->blocks[k].len);
        else
            copy(u, packed, t->blocks[k].len);
        packed += t->blocks[k].len;
    }
}

/* n elements of two blocks of l0 and l1 bytes at o0 and o1, ext apart in
 * the user's buffer: a struct {int; double}, {int; int[2]}, ... Both moves
 * of a constant size, one pass over the user's buffer (the columns took
 * two): 1.4 times faster for {int; int[2]} (AMD EPYC). */
static inline __attribute__((always_inline)) void pairs_len(char *packed, char *user, size_t n, MPI_Aint ext,
                                                            MPI_Aint o0, MPI_Aint o1, size_t l0, size_t l1,
                                                            int to_packed)
{
    char *u0 = (char *)at(user, o0), *u1 = (char *)at(user, o1);
    for (size_t i = 0; i < n; i++, u0 += ext, u1 += ext, packed += l0 + l1) {
        if (to_packed) {
            memcpy(packed, u0, l0);
            memcpy(packed + l0, u1, l1);
        } else {
            memcpy(u0, packed, l0);
            memcpy(u1, packed + l0, l1);
        }
    }
}

#define PAIRS(l0, l1)                                                                                  \
    (to_packed ? pairs_len(packed, user, n, c->stride, c->b[0].off, c->b[1].off, l0, l1, 1)          \
               : pairs_len(packed, user, n, c->stride, c->b[0].off, c->b[1].off, l0, l1, 0))

/* Column maps of two blocks of 4 or 8 bytes by pairs_len; 0 for others.
 * Not inlined: inlined into the unpack, its loop kept the stride on the
 * stack, reloaded per element (struct {int; int[2]} unpack 1.35 times
 * slower). */
static __attribute__((noinline)) int pairs(char *packed, char *user, size_t n, const struct cols *c, int to_packed)
{
    if (c->nb != 2)
        return 0;
    size_t l0 = c->b[0].len, l1 = c->b[1].len;
    if ((l0 != 4 && l0 != 8) || (l1 != 4 && l1 != 8))
        return 0;
    switch ((l0 == 8) * 2 + (l1 == 8)) {
    case 0: PAIRS(4, 4); break;
    case 1: PAIRS(4, 8); break;
    case 2: PAIRS(8, 4); break;
    default: PAIRS(8, 8); break;
    }
    return 1;
}

static void columns(char *packed, char *user, size_t nvirt, const struct cols *c, int to_packed)
{
    if (pairs(packed, user, nvirt, c, to_packed))
        return;
    unsigned char *col[RCH_MPI_TYPE_COLP_MAX];
    size_t len[RCH_MPI_TYPE_COLP_MAX];
    for (int k = 0; k < c->nb; k++) {
        col[k] = (unsigned char *)at(user, c->b[k].off);
        len[k] = c->b[k].len;
    }
    rch_base_copy_cols((unsigned char *)packed, c->size, col, len, c->nb, c->stride, nvirt, to_packed);
}

/* count whole elements of t, column-wise; 0 if t's map is not made for it. */
static int columns_all(char *packed, char *user, int count, const struct rch_mpi_type *t, int to_packed)
{
    struct cols c;
    int reps = columns_of(t, &c);
    if (reps == 0)
        return 0;
    int from = reps * c.nb;   /* the blocks after the whole periods: a pattern cut short */
    if (from == t->nblocks && t->extent == (MPI_Aint)reps * c.stride) {   /* elements continue the period */
        columns(packed, user, (size_t)count * (size_t)reps, &c, to_packed);
        return 1;
    }
    for (int i = 0; i < count; i++) {
        char *p = packed + (size_t)i * t->size, *u = (char *)at(user, (MPI_Aint)i * t->extent);
        columns(p, u, (size_t)reps, &c, to_packed);
        blocks_move(p + (size_t)reps * c.size, u, t, from, t->nblocks, to_packed);
    }
    return 1;
}

void rch_mpi_type_pack(const void *in, int count, const struct rch_mpi_type *t, void *out)
{
    const struct rch_mpi_type_obj *o = rch_mpi_type_obj_of(t);
    char *dst = out;

    if (count <= 0 || t->size == 0)
        return;
    if (t->contig) {
        memcpy(dst, at(in, t->true_lb), (size_t)count * t->size);
        return;
    }
    if (o->regular) {
        for (int i = 0; i < count; i++, dst += t->size)
            regular_elem(dst, (char *)at(in, (MPI_Aint)i * t->extent), t, 1);
        return;
    }
    if (columns_all(dst, (char *)in, count, t, 1))
        return;
    for (int i = 0; i < count; i++, dst += t->size)   /* maps of many irregular blocks */
        blocks_move(dst, (char *)at(in, (MPI_Aint)i * t->extent), t, 0, t->nblocks, 1);
}

void rch_mpi_type_unpack(const void *in, size_t bytes, void *out, int count, const struct rch_mpi_type *t)
{
    const char *src = in;
    size_t total;

    if (count <= 0 || t->size == 0 || bytes == 0)
        return;
    total = (size_t)count * t->size;
    if (bytes > total)
        bytes = total;
    if (t->contig) {
        memcpy((char *)at(out, t->true_lb), src, bytes);
        return;
    }
    if (rch_mpi_type_obj_of(t)->regular) {
        /* whole elements by the shortcut; a truncated last one by blocks below */
        int whole = (int)(bytes / t->size);
        for (int i = 0; i < whole; i++, src += t->size)
            regular_elem((char *)src, (char *)at(out, (MPI_Aint)i * t->extent), t, 0);
        bytes -= (size_t)whole * t->size;
        out = (char *)at(out, (MPI_Aint)whole * t->extent);
        count -= whole;
    } else if (columns_all((char *)src, out, (int)(bytes / t->size), t, 0)) {
        int whole = (int)(bytes / t->size);
        src += (size_t)whole * t->size;
        bytes -= (size_t)whole * t->size;
        out = (char *)at(out, (MPI_Aint)whole * t->extent);
        count -= whole;
    }
    for (int i = 0; i < count && bytes > 0; i++) {
        MPI_Aint base = (MPI_Aint)i * t->extent;
        for (int k = 0; k < t->nblocks && bytes > 0; k++) {
            size_t len = t->blocks[k].len < bytes ? t->blocks[k].len : bytes;
            copy((char *)at(out, base + t->blocks[k].off), src, len);
            src += len;
            bytes -= len;
        }
    }
}

/* Combining in place: the map's bytes go through a buffer of COMBINE_CHUNK
 * bytes that stays in L1, by the same moves as pack and unpack, and each
 * piece is combined there; a block of COMBINE_DIRECT bytes or more is
 * combined where it lies. Each byte of the user's memory is read and written
 * once while in cache, where packing it all, combining and unpacking it all
 * were three passes over memory. 4 KiB of packed bytes (the user's span of
 * them up to twice that for the usual maps): a singleton MPI_Accumulate of
 * 1 M ints (MPI_SUM) as the indexed type of bench/rma_dtype 609-622 us,
 * 692-821 with 16 KiB; as a vector of stride 2, 464-479 against 521-534
 * (AMD EPYC, Zen 4, L1d 32 KiB).
 * Where the operation has a block form (fn2d: the predefined operations on
 * the scalar kinds) a regular map or a map of columns is combined where it
 * lies, a column of COMBINE_CHUNK bytes' worth of elements at a time, the
 * values before (a get-accumulate's) copied out just before: the user's
 * memory read and written once, with no pass through the buffer. */
#define COMBINE_CHUNK 4096
#define COMBINE_DIRECT 256

struct combine {
    const char *src;              /* the operands, packed in type-map order */
    char *old;                    /* the values before, packed (or NULL) */
    rch_mpi_combine_fn fn;
    rch_mpi_combine2d_fn fn2d;    /* or NULL */
    rch_mpi_combinerows_fn rows;  /* or NULL */
    size_t elem;
    _Alignas(64) char tmp[COMBINE_CHUNK];
};

/* n bytes at p (the buffer or the user's memory): whole elements. */
static void combine_at(struct combine *c, char *p, size_t n)
{
    if (c->old) {
        memcpy(c->old, p, n);
        c->old += n;
    }
    c->fn(c->src, p, n / c->elem, NULL);
    c->src += n;
}

/* May the block kernel combine n blocks of len bytes at u, u + stride, ...
 * with operands at src, src + sstride, ...? (It has one, the blocks do not
 * overlap, the addresses suit the element; chunks further on, moved by
 * whole elements and strides, suit it as well.) */
static int can_2d(const struct combine *c, const char *src, ptrdiff_t sstride, const char *u, MPI_Aint stride,
                  size_t n, size_t len)
{
    return c->fn2d && rch_base_blocks2d_ok(src, sstride, u, stride, n, len, c->elem);
}

/* n blocks of len bytes at u, u + stride, ... combined where they lie with
 * the operands at c->src + soff + k * sstride, their values before copied
 * out first the same way; c->src and c->old are not moved. */
static void combine_2d(struct combine *c, size_t soff, ptrdiff_t sstride, char *u, MPI_Aint stride, size_t n,
                       size_t len)
{
    if (c->old)
        rch_base_copy2d(c->old + soff, sstride, u, stride, n, len);
    c->fn2d(c->src + soff, sstride, u, stride, n, len / c->elem);
}

static void combine_regular(struct combine *c, char *user, const struct rch_mpi_type *t)
{
    const struct rch_mpi_type_obj *o = rch_mpi_type_obj_of(t);
    const struct rch_mpi_type_block *b = &t->blocks[o->rhead], *last = &t->blocks[t->nblocks - 1];
    size_t n = (size_t)(t->nblocks - o->rhead - o->rtail), per = COMBINE_CHUNK / b->len;
    if (o->rhead)
        combine_at(c, (char *)at(user, t->blocks[0].off), t->blocks[0].len);
    if (can_2d(c, c->src, (ptrdiff_t)b->len, at(user, b->off), o->rstride, n, b->len)) {
        /* a chunk at a time only to copy the values before out just before
         * (in cache); else one pass, which the kernel prefetches ahead */
        per = !c->old ? n : per ? per : 1;
        for (size_t i = 0; i < n; i += per) {
            size_t k = n - i < per ? n - i : per;
            combine_2d(c, 0, (ptrdiff_t)b->len, (char *)at(user, b->off + (MPI_Aint)i * o->rstride), o->rstride, k,
                       b->len);
            c->src += k * b->len;
            c->old = c->old ? c->old + k * b->len : NULL;
        }
        n = 0;
    }
    for (size_t i = 0; i < n; i += b->len >= COMBINE_DIRECT ? 1 : per) {
        char *u = (char *)at(user, b->off + (MPI_Aint)i * o->rstride);
        if (b->len >= COMBINE_DIRECT) {
            combine_at(c, u, b->len);
            continue;
        }
        size_t k = n - i < per ? n - i : per;
        rch_base_copy2d(c->tmp, (MPI_Aint)b->len, u, o->rstride, k, b->len);
        combine_at(c, c->tmp, k * b->len);
        rch_base_copy2d(u, o->rstride, c->tmp, (MPI_Aint)b->len, k, b->len);
    }
    if (o->rtail)
        combine_at(c, (char *)at(user, last->off), last->len);
}

/* Blocks [from, to) of one element at `user`: runs of small blocks through
 * the buffer, large ones in place. */
static void combine_blocks(struct combine *c, char *user, const struct rch_mpi_type *t, int from, int to)
{
    for (int k = from; k < to;) {
        if (t->blocks[k].len >= COMBINE_DIRECT) {
            combine_at(c, (char *)at(user, t->blocks[k].off), t->blocks[k].len);
            k++;
            continue;
        }
        int e = k;
        size_t n = 0;
        while (e < to && t->blocks[e].len < COMBINE_DIRECT && n + t->blocks[e].len <= COMBINE_CHUNK)
            n += t->blocks[e++].len;
        blocks_move(c->tmp, user, t, k, e, 1);
        combine_at(c, c->tmp, n);
        blocks_move(c->tmp, user, t, k, e, 0);
        k = e;
    }
}

/* The elements of a repetition of the columns cl at `user`, their offsets
 * in off[], when the rows kernel may combine nvirt of them: 2 to
 * RCH_BASE_ELEMS_MAX (= RCH_COLL_ROWS_MAX), blocks of 1-4 elements, apart and aligned
 * (rch_base_elems_apart); else 0. */
static int rows_of(const struct combine *c, char *user, size_t nvirt, const struct cols *cl, ptrdiff_t *off)
{
    unsigned char *col[RCH_MPI_TYPE_COLP_MAX];
    size_t len[RCH_MPI_TYPE_COLP_MAX];
    if (!c->rows)
        return 0;
    for (int k = 0; k < cl->nb; k++) {
        col[k] = (unsigned char *)at(user, cl->b[k].off);
        len[k] = cl->b[k].len;
    }
    int ne = rch_base_elems_of(col, len, cl->nb, c->elem, 4 * c->elem, off);
    return ne && rch_base_elems_apart(c->src, col[0], cl->stride, nvirt, off, ne, c->elem) ? ne : 0;
}

/* nvirt repetitions of the columns cl at `user`, a buffer's worth at a time. */
static void combine_columns(struct combine *c, char *user, size_t nvirt, const struct cols *cl)
{
    size_t per = COMBINE_CHUNK / cl->size, soff = 0;
    ptrdiff_t off[RCH_BASE_ELEMS_MAX];
    int ne = rows_of(c, user, nvirt, cl, off);
    for (size_t i = 0; i < nvirt && ne; i += per) {
        size_t k = nvirt - i < per ? nvirt - i : per;
        char *u = (char *)at(user, (MPI_Aint)i * cl->stride);
        if (c->old) {
            columns(c->old, u, k, cl, 1);
            c->old += k * cl->size;
        }
        c->rows(c->src, (char *)at(u, cl->b[0].off), cl->stride, k, off, ne);
        c->src += k * cl->size;
    }
    if (ne)
        return;
    int by2d = 1;
    for (int j = 0; j < cl->nb && by2d; soff += cl->b[j].len, j++)
        by2d = can_2d(c, c->src + soff, (ptrdiff_t)cl->size, at(user, cl->b[j].off), cl->stride, nvirt,
                      cl->b[j].len);
    for (size_t i = 0; i < nvirt && by2d; i += per) {
        size_t k = nvirt - i < per ? nvirt - i : per;
        char *u = (char *)at(user, (MPI_Aint)i * cl->stride);
        soff = 0;
        for (int j = 0; j < cl->nb; soff += cl->b[j].len, j++)
            combine_2d(c, soff, (ptrdiff_t)cl->size, (char *)at(u, cl->b[j].off), cl->stride, k, cl->b[j].len);
        c->src += k * cl->size;
        c->old = c->old ? c->old + k * cl->size : NULL;
    }
    for (size_t i = 0; i < nvirt && !by2d; i += per) {
        size_t k = nvirt - i < per ? nvirt - i : per;
        char *u = (char *)at(user, (MPI_Aint)i * cl->stride);
        columns(c->tmp, u, k, cl, 1);
        combine_at(c, c->tmp, k * cl->size);
        columns(c->tmp, u, k, cl, 0);
    }
}

int rch_mpi_type_combines(const struct rch_mpi_type *t, size_t elem)
{
    const struct rch_mpi_type *b = t->basic == (int)MPI_DATATYPE_NULL ? NULL : rch_mpi_type_get(t->basic);
    return b && b->contig && b->size == elem && elem > 0;
}

void rch_mpi_type_combine(void *user, size_t count, const struct rch_mpi_type *t, const void *src, void *old,
                          rch_mpi_combine_fn fn, rch_mpi_combine2d_fn fn2d, rch_mpi_combinerows_fn rows,
                          size_t elem)
{
    struct combine c = { .src = src, .old = old, .fn = fn, .fn2d = fn2d, .rows = rows, .elem = elem };
    struct cols cl;
    int reps;
    if (count == 0 || t->size == 0)
        return;
    if (t->contig) {
        combine_at(&c, (char *)at(user, t->true_lb), count * t->size);
        return;
    }
    if (rch_mpi_type_obj_of(t)->regular) {
        for (size_t i = 0; i < count; i++)
            combine_regular(&c, (char *)at(user, (MPI_Aint)i * t->extent), t);
        return;
    }
    if ((reps = columns_of(t, &cl)) != 0 && cl.size <= COMBINE_CHUNK) {
        int from = reps * cl.nb;   /* the blocks after the whole periods */
        if (from == t->nblocks && t->extent == (MPI_Aint)reps * cl.stride) {
            combine_columns(&c, user, count * (size_t)reps, &cl);
            return;
        }
        for (size_t i = 0; i < count; i++) {
            char *u = (char *)at(user, (MPI_Aint)i * t->extent);
            combine_columns(&c, u, (size_t)reps, &cl);
            combine_blocks(&c, u, t, from, t->nblocks);
        }
        return;
    }
    for (size_t i = 0; i < count; i++)
        combine_blocks(&c, (char *)at(user, (MPI_Aint)i * t->extent), t, 0, t->nblocks);
}

MPI_Count rch_mpi_type_elements(const struct rch_mpi_type *t, size_t bytes)
{
    const struct rch_mpi_type_obj *o = rch_mpi_type_obj_of(t);
    size_t rem;
    MPI_Count n;

    if (t->size == 0)
        return 0;
    n = (MPI_Count)(bytes / t->size * o->nelems);
    rem = bytes % t->size;
    /* A partial element: walk its basic elements in type-map order. */
    for (int k = 0; k < o->nruns && rem > 0; k++) {
        const struct rch_mpi_type_run *r = &o->runs[k];
        size_t run_bytes = (size_t)r->esize * r->count;
        if (rem >= run_bytes) {
            n += (MPI_Count)r->count;
            rem -= run_bytes;
        } else {
            n += (MPI_Count)(rem / r->esize);
            rem %= r->esize;
            break;
        }
    }
    return rem ? MPI_UNDEFINED : n;
}

size_t rch_mpi_type_elements_bytes(const struct rch_mpi_type *t, MPI_Count n)
{
    const struct rch_mpi_type_obj *o = rch_mpi_type_obj_of(t);
    if (o->nelems == 0 || n <= 0)
        return 0;
    size_t bytes = (size_t)n / o->nelems * t->size, rem = (size_t)n % o->nelems;
    for (int k = 0; k < o->nruns && rem > 0; k++) {
        size_t take = o->runs[k].count < rem ? o->runs[k].count : rem;
        bytes += take * o->runs[k].esize;
        rem -= take;
    }
    return bytes;
}

/*
 * NULL buffers. MPI_BOTTOM is NULL, and with it the type's displacements are
 * absolute addresses (from MPI_Get_address): legal whenever the data lies at
 * real addresses. So a NULL buffer with a non-empty message is accepted only
 * if every byte the type touches is outside the first page, which Linux
 * never maps (vm.mmap_min_addr >= 4096): a predefined type, or a derived one
 * built from offsets, at NULL would certainly crash, and that is reported as
 * MPI_ERR_BUFFER instead.
 */
#define RCH_MPI_NULL_PAGE 4096

int rch_mpi_type_bottom_ok(const struct rch_mpi_type *t, MPI_Count count)
{
    MPI_Aint span, lowest;

    if (t->extent >= 0 || count <= 0) {
        lowest = t->true_lb;
    } else if (__builtin_mul_overflow((MPI_Aint)(count - 1), t->extent, &span) ||
               __builtin_add_overflow(t->true_lb, span, &lowest)) {
        return 0;
    }
    return lowest >= RCH_MPI_NULL_PAGE;
}

int rch_mpi_type_check_buf(MPI_Comm comm, const char *fn, const void *buf, int count, MPI_Datatype dt)
{
    const struct rch_mpi_type *t;
    char d[96];

    if (count < 0)
        return rch_mpi_err(comm, MPI_ERR_COUNT, "%s: negative count %d in argument count", fn, count);
    t = rch_mpi_type_get(dt);
    if (!t)
        return rch_mpi_err(comm, MPI_ERR_TYPE, "%s: invalid datatype %s in argument datatype", fn,
                           rch_mpi_type_describe(dt, d, sizeof(d)));
    if (!t->committed)
        return rch_mpi_err(comm, MPI_ERR_TYPE, "%s: datatype %s in argument datatype is not committed "
                           "(call MPI_Type_commit first)", fn, rch_mpi_type_describe(dt, d, sizeof(d)));
    if (!buf && count > 0 && t->size > 0 && !rch_mpi_type_bottom_ok(t, count))
        return rch_mpi_err(comm, MPI_ERR_BUFFER, "%s: NULL pointer in argument buf with count %d of %s", fn,
                           count, rch_mpi_type_describe(dt, d, sizeof(d)));
    return MPI_SUCCESS;
}

/* ---- MPI_Pack, MPI_Unpack, MPI_Pack_size ---- */

static int check_comm(const char *fn, MPI_Comm comm)
{
    return rch_mpi_comm_get(comm) ? MPI_SUCCESS : rch_mpi_comm_bad(fn, comm);
}

/* The position argument of MPI_Pack / MPI_Unpack within a buffer of `size`
 * bytes (named sizearg). */
static int check_position(const char *fn, MPI_Comm comm, const int *position, int size,
                          const char *sizearg)
{
    if (!position)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: NULL pointer in argument position", fn);
    if (size < 0 || *position < 0 || *position > size)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: invalid position %d for %s %d", fn, *position,
                           sizearg, size);
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Pack";
    const struct rch_mpi_type *t;
    size_t need;
    int rc;

    if ((rc = rch_mpi_check_init(fn)) || (rc = check_comm(fn, comm)) ||
        (rc = rch_mpi_type_check_buf(comm, fn, inbuf, incount, datatype)) ||
        (rc = check_position(fn, comm, position, outsize, "outsize")))
        return rc;
    t = rch_mpi_type_get(datatype);
    need = (size_t)incount * t->size;
    if (need > (size_t)(outsize - *position))
        return rch_mpi_err(comm, MPI_ERR_TRUNCATE,
                           "%s: %zu bytes to pack do not fit in outbuf: outsize %d, position %d", fn, need,
                           outsize, *position);
    if (need > 0 && !outbuf)
        return rch_mpi_err(comm, MPI_ERR_BUFFER, "%s: NULL pointer in argument outbuf", fn);
    if (need > 0)
        rch_mpi_type_pack(inbuf, incount, t, (char *)outbuf + *position);
    *position += (int)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack = PMPI_Pack

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Unpack";
    const struct rch_mpi_type *t;
    size_t need;
    int rc;

    if ((rc = rch_mpi_check_init(fn)) || (rc = check_comm(fn, comm)) ||
        (rc = rch_mpi_type_check_buf(comm, fn, outbuf, outcount, datatype)) ||
        (rc = check_position(fn, comm, position, insize, "insize")))
        return rc;
    t = rch_mpi_type_get(datatype);
    need = (size_t)outcount * t->size;
    if (need > (size_t)(insize - *position))
        return rch_mpi_err(comm, MPI_ERR_TRUNCATE,
                           "%s: unpacking %d elements needs %zu bytes but inbuf has %d left "
                           "(insize %d, position %d)", fn, outcount, need, insize - *position, insize,
                           *position);
    if (need > 0 && !inbuf)
        return rch_mpi_err(comm, MPI_ERR_BUFFER, "%s: NULL pointer in argument inbuf", fn);
    if (need > 0)
        rch_mpi_type_unpack((const char *)inbuf + *position, need, outbuf, outcount, t);
    *position += (int)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpack = PMPI_Unpack

/* MPI_Pack_size(_c): *size, at most max, or an error; size_given: the
 * caller's size pointer is not NULL. */
static int pack_size(const char *fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, int size_given,
                     MPI_Count max, MPI_Count *size)
{
    const struct rch_mpi_type *t;
    char d[96];
    MPI_Count need;
    int rc;

    if ((rc = rch_mpi_check_init(fn)) || (rc = check_comm(fn, comm)))
        return rc;
    if (incount < 0)
        return rch_mpi_err(comm, MPI_ERR_COUNT, "%s: negative count %lld in argument incount", fn,
                           (long long)incount);
    if (!(t = rch_mpi_type_get(datatype)))
        return rch_mpi_err(comm, MPI_ERR_TYPE, "%s: invalid datatype %s in argument datatype", fn,
                           rch_mpi_type_describe(datatype, d, sizeof(d)));
    if (!size_given)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: NULL pointer in argument size", fn);
    if (__builtin_mul_overflow(incount, (MPI_Count)t->size, &need) || need > max)
        return rch_mpi_err(comm, max == INT32_MAX ? MPI_ERR_ARG : MPI_ERR_COUNT,
                           "%s: %lld elements of %s pack to more than %s bytes", fn, (long long)incount,
                           rch_mpi_type_describe(datatype, d, sizeof(d)),
                           max == INT32_MAX ? "an int holds" : "an MPI_Count holds");
    *size = need;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    RCH_MPI_CS();
    MPI_Count n;
    int rc = pack_size("MPI_Pack_size", incount, datatype, comm, size != NULL, INT32_MAX, &n);
    if (!rc)
        *size = (int)n;
    return rc;
}
#pragma weak MPI_Pack_size = PMPI_Pack_size

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    RCH_MPI_CS();
    return pack_size("MPI_Pack_size_c", incount, datatype, comm, size != NULL, INT64_MAX, size);
}
#pragma weak MPI_Pack_size_c = PMPI_Pack_size_c
