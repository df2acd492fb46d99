/*
 * Building type maps. Every constructor reduces to MPI_Type_create_struct's
 * general form, a list of entries (disp, blocklen, child) meaning "blocklen
 * copies of child, each child-extent after the previous, from byte disp",
 * added in type-map order. The builder appends the child's blocks and runs
 * for each copy, merging a block with the previous one when they touch and
 * a run with the previous one when the basic type is the same, so that
 * vector(n, 1, 1, MPI_INT) is one block and struct{int a[4]; int b} one run.
 *
 * Bounds follow MPI-3.1 section 4.1 (and MPICH for the corner cases):
 *   lb = min over entries of disp + child.lb (+ (blocklen-1)*extent if extent < 0),
 *   ub = max over entries of disp + child.ub (+ (blocklen-1)*extent if extent > 0),
 * unless some entry carries an explicit bound (MPI_LB/MPI_UB markers, or a
 * type made by Type_create_resized), in which case lb is the lowest explicit
 * lb and ub the highest explicit ub. true_lb/true_ub cover the data only.
 * Entries with blocklen 0 count for nothing; so do children whose type map
 * is empty (size 0, no explicit bound), except in MPI_Type_create_struct,
 * where MPICH lets them bound the type and so do we (bound_by_empty).
 * MPI_Type_create_struct then rounds the extent up to the largest alignment
 * of its parts (the C compiler's padding, "epsilon" in the standard) when no
 * bound is explicit and its blocks are not all of one type (MPICH 4 builds
 * those as hindexed, unpadded).
 *
 * Explicit bounds of Type_create_resized are sticky as the standard defines
 * them (MPI-3.1 4.1.7, markers). MPICH 4.0.2 differs here: it lets a resized
 * child's bounds mix with its siblings' in a struct. Only a struct that
 * mixes a resized type with data outside its bounds sees the difference.
 *
 * Cost: linear in the number of blocks produced (16 bytes each: the map is
 * flattened, so vector(10^6, 1, 2, MPI_DOUBLE) holds 10^6 blocks); a
 * contiguous child (one block as long as its extent) is replicated as a
 * single block, and vectors copy their first entry's map in bulk.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi/type_impl.h"

struct rch_mpi_type_obj *rch_mpi_type_obj_alloc(void)
{
    struct rch_mpi_type_obj *o = calloc(1, sizeof(*o));
    if (o) {
        o->t.handle = MPI_DATATYPE_NULL;
        o->t.basic = MPI_DATATYPE_NULL;
        o->combiner = MPI_COMBINER_NAMED;
    }
    return o;
}

void rch_mpi_type_obj_destroy(struct rch_mpi_type_obj *o)
{
    if (!o || o->t.predefined)
        return;
    rch_mpi_type_attr_drop(o);
    for (int i = 0; i < o->ntypes; i++) {
        struct rch_mpi_type_obj *c = rch_mpi_type_lookup(o->types[i]);
        if (c)
            rch_mpi_type_release(&c->t);
    }
    if (o->t.blocks != &o->one_block)
        free(o->t.blocks);
    if (o->runs != &o->one_run)
        free(o->runs);
    free(o->ints);
    free(o->aints);
    free(o->large);
    free(o->types);
    free(o);
}

struct rch_mpi_type_obj *rch_mpi_type_obj_copy(const struct rch_mpi_type_obj *src)
{
    struct rch_mpi_type_obj *o = rch_mpi_type_obj_alloc();
    if (!o)
        return NULL;
    *o = *src;
    o->t.handle = MPI_DATATYPE_NULL;
    o->t.committed = 0;
    o->t.predefined = 0;
    o->permanent = 0;
    o->attrs = NULL;
    o->t.refcount = 0;
    o->urefs = 0;
    o->t.name[0] = '\0';
    o->combiner = MPI_COMBINER_NAMED;
    o->large_n = 0;
    o->large_internal = 0;
    o->nints = o->naints = o->ntypes = 0;
    o->nlarge = 0;
    o->ints = NULL;
    o->aints = NULL;
    o->large = NULL;
    o->types = NULL;
    o->t.blocks = NULL;
    o->runs = NULL;
    if (src->t.nblocks > 0) {
        o->t.blocks = malloc((size_t)src->t.nblocks * sizeof(*o->t.blocks));
        if (!o->t.blocks)
            goto out_free;
        memcpy(o->t.blocks, src->t.blocks, (size_t)src->t.nblocks * sizeof(*o->t.blocks));
    }
    if (src->nruns > 0) {
        o->runs = malloc((size_t)src->nruns * sizeof(*o->runs));
        if (!o->runs)
            goto out_free;
        memcpy(o->runs, src->runs, (size_t)src->nruns * sizeof(*o->runs));
    }
    return o;
out_free:
    free(o->t.blocks);
    free(o);
    return NULL;
}

/* A malloc'd copy of n (> 0) elements of elem bytes, or NULL (no memory). */
static void *copy_of(const void *src, int n, size_t elem)
{
    void *p = malloc((size_t)n * elem);
    if (p)
        memcpy(p, src, (size_t)n * elem);
    return p;
}

int rch_mpi_type_set_contents(struct rch_mpi_type_obj *o, int combiner, int nints, const int *ints,
                              int naints, const MPI_Aint *aints, int ntypes, const MPI_Datatype *types)
{
    o->combiner = combiner;
    if (nints > 0 && !(o->ints = copy_of(ints, nints, sizeof(*ints))))
        return MPI_ERR_OTHER;
    o->nints = nints;
    if (naints > 0 && !(o->aints = copy_of(aints, naints, sizeof(*aints))))
        return MPI_ERR_OTHER;
    o->naints = naints;
    if (ntypes > 0) {
        o->types = malloc((size_t)ntypes * sizeof(*types));
        if (!o->types)
            return MPI_ERR_OTHER;
        for (int i = 0; i < ntypes; i++) {
            struct rch_mpi_type_obj *c = rch_mpi_type_lookup(types[i]);
            o->types[i] = types[i];
            if (c)
                rch_mpi_type_retain(&c->t);
        }
    }
    o->ntypes = ntypes;
    return MPI_SUCCESS;
}

void rch_mpi_type_update_contig(struct rch_mpi_type_obj *o)
{
    struct rch_mpi_type *t = &o->t;
    t->contig = t->size == 0 ||
                (t->nblocks == 1 && t->blocks[0].off == t->true_lb && t->blocks[0].len == t->size &&
                 t->extent == (MPI_Aint)t->size);
    o->regular = 0;
    for (int ends = 0; ends < 4 && !o->regular; ends++) {
        int h = ends & 1, tl = ends >> 1, last = t->nblocks - tl;   /* interior blocks [h, last) */
        if (last - h < 2)
            continue;
        o->rhead = h;
        o->rtail = tl;
        o->rstride = t->blocks[h + 1].off - t->blocks[h].off;
        o->regular = 1;
        for (int k = h + 1; k < last && o->regular; k++)
            o->regular = t->blocks[k].len == t->blocks[h].len &&
                         t->blocks[k].off - t->blocks[k - 1].off == o->rstride;
    }
    o->period = 0;
    for (int p = 2; !o->regular && o->period == 0 && p <= RCH_MPI_TYPE_PERIOD_MAX && 2 * p <= t->nblocks; p++) {
        if (t->nblocks % p)
            continue;
        MPI_Aint stride = t->blocks[p].off - t->blocks[0].off;
        int k;
        for (k = p; k < t->nblocks; k++)
            if (t->blocks[k].len != t->blocks[k - p].len || t->blocks[k].off - t->blocks[k - p].off != stride)
                break;
        if (k == t->nblocks) {
            o->period = p;
            o->pstride = stride;
        }
    }
    rch_mpi_type_find_colp(o);
}

/* ---- the builder ---- */

static void fail(struct rch_mpi_type_builder *b, int err, const char *why)
{
    if (b->err == MPI_SUCCESS) {
        b->err = err;
        b->why = why;
    }
}

void rch_mpi_type_build_begin(struct rch_mpi_type_builder *b)
{
    memset(b, 0, sizeof(*b));
    b->err = MPI_SUCCESS;
    b->o = rch_mpi_type_obj_alloc();
    if (!b->o)
        fail(b, MPI_ERR_OTHER, "out of memory");
}

/* Room for more elements (elem bytes each) in a map array arr of *cap:
 * the capacity doubles from `first`. Returns the new array, or NULL with the
 * failure noted on b (no memory; `too_many` past 2^30 elements). */
static void *grow(struct rch_mpi_type_builder *b, void *arr, int *cap, size_t elem, int first,
                  const char *too_many)
{
    void *p;
    if (*cap >= INT_MAX / 2) {
        fail(b, MPI_ERR_ARG, too_many);
        return NULL;
    }
    int n = *cap ? 2 * *cap : first;
    if (!(p = realloc(arr, (size_t)n * elem))) {
        fail(b, MPI_ERR_OTHER, "out of memory for the type map");
        return NULL;
    }
    *cap = n;
    return p;
}

static void add_block(struct rch_mpi_type_builder *b, MPI_Aint off, size_t len)
{
    struct rch_mpi_type *t = &b->o->t;

    if (len == 0)
        return;
    if (t->nblocks > 0) {
        struct rch_mpi_type_block *last = &t->blocks[t->nblocks - 1];
        if (last->off + (MPI_Aint)last->len == off) {
            last->len += len;
            return;
        }
    }
    if (t->nblocks == b->cap_blocks) {
        struct rch_mpi_type_block *nb = grow(b, t->blocks, &b->cap_blocks, sizeof(*nb), 8,
                                             "the type map has more than 2^30 separate blocks");
        if (!nb)
            return;
        t->blocks = nb;
    }
    t->blocks[t->nblocks].off = off;
    t->blocks[t->nblocks].len = len;
    t->nblocks++;
}

static void add_run(struct rch_mpi_type_builder *b, const struct rch_mpi_type_run *r, size_t times)
{
    struct rch_mpi_type_obj *o = b->o;
    size_t count = r->count * times;

    if (count == 0)
        return;
    o->nelems += count;
    if (o->nruns > 0 && o->runs[o->nruns - 1].type == r->type) {
        o->runs[o->nruns - 1].count += count;
        return;
    }
    if (o->nruns == b->cap_runs) {
        struct rch_mpi_type_run *nr = grow(b, o->runs, &b->cap_runs, sizeof(*nr), 4,
                                           "the type map has more than 2^30 runs of basic types");
        if (!nr)
            return;
        o->runs = nr;
    }
    o->runs[o->nruns] = *r;
    o->runs[o->nruns].count = count;
    o->nruns++;
}

/* Bounds, size, basic type and true bounds of an entry. Returns 1 if the
 * entry has data whose map must be appended, 0 if not (or on failure). */
static int account(struct rch_mpi_type_builder *b, MPI_Aint disp, MPI_Aint blocklen,
                   const struct rch_mpi_type_obj *c)
{
    struct rch_mpi_type_obj *o = b->o;
    MPI_Aint ext = c->t.extent, span, lo, hi, size;

    if (b->err != MPI_SUCCESS || blocklen <= 0)
        return 0;
    /* span: distance from the first copy to the last. */
    if (__builtin_mul_overflow(blocklen - 1, ext, &span) ||
        __builtin_add_overflow(disp, c->t.lb, &lo) ||
        __builtin_add_overflow(lo, span < 0 ? span : 0, &lo) ||
        __builtin_add_overflow(disp, c->t.ub, &hi) ||
        __builtin_add_overflow(hi, span > 0 ? span : 0, &hi) ||
        __builtin_mul_overflow((MPI_Aint)c->t.size, blocklen, &size) ||
        __builtin_add_overflow((MPI_Aint)o->t.size, size, &size)) {
        fail(b, MPI_ERR_ARG, "displacements or sizes overflow the address range");
        return 0;
    }
    o->t.size = (size_t)size;

    if (c->t.size == 0 && !c->marker && !c->sticky_lb && !c->sticky_ub && !b->bound_by_empty)
        return 0;                 /* an empty type map adds nothing, bounds included */
    if (c->marker) {
        /* MPI_LB / MPI_UB: an explicit bound and nothing else. */
        if (c->sticky_lb && (!b->have_slb || lo < b->slb))
            b->slb = lo;
        if (c->sticky_ub && (!b->have_sub || hi > b->sub))
            b->sub = hi;
        b->have_slb |= c->sticky_lb;
        b->have_sub |= c->sticky_ub;
        return 0;
    }
    if (!b->have_bounds || lo < b->lb)
        b->lb = lo;
    if (!b->have_bounds || hi > b->ub)
        b->ub = hi;
    b->have_bounds = 1;
    if (c->sticky_lb && (!b->have_slb || lo < b->slb))
        b->slb = lo;
    if (c->sticky_ub && (!b->have_sub || hi > b->sub))
        b->sub = hi;
    b->have_slb |= c->sticky_lb;
    b->have_sub |= c->sticky_ub;
    if (c->align > o->align)
        o->align = c->align;
    if (c->t.size == 0)
        return 0;

    /* Data: true bounds and basic type. */
    {
        MPI_Aint tlo, thi;
        if (__builtin_add_overflow(disp, c->t.true_lb, &tlo) ||
            __builtin_add_overflow(tlo, span < 0 ? span : 0, &tlo) ||
            __builtin_add_overflow(disp, c->t.true_ub, &thi) ||
            __builtin_add_overflow(thi, span > 0 ? span : 0, &thi)) {
            fail(b, MPI_ERR_ARG, "displacements overflow the address range");
            return 0;
        }
        if (!b->have_data || tlo < b->true_lb)
            b->true_lb = tlo;
        if (!b->have_data || thi > b->true_ub)
            b->true_ub = thi;
        b->have_data = 1;
    }
    if (!b->have_basic) {
        o->t.basic = c->t.basic;
        b->have_basic = 1;
    } else if (o->t.basic != c->t.basic) {
        o->t.basic = MPI_DATATYPE_NULL;
    }
    o->t.basic_count += c->t.basic_count * (size_t)blocklen;
    return 1;
}

/* The blocks and runs of an entry (after account said it has data). */
static void append_map(struct rch_mpi_type_builder *b, MPI_Aint disp, MPI_Aint blocklen,
                       const struct rch_mpi_type_obj *c)
{
    MPI_Aint ext = c->t.extent;

    if (c->t.nblocks == 1 && ext > 0 && c->t.blocks[0].len == (size_t)ext) {
        /* Dense child: the copies form one block. */
        add_block(b, disp + c->t.blocks[0].off, c->t.blocks[0].len * (size_t)blocklen);
    } else {
        for (MPI_Aint j = 0; j < blocklen && b->err == MPI_SUCCESS; j++) {
            MPI_Aint base = disp + j * ext;
            for (int k = 0; k < c->t.nblocks; k++)
                add_block(b, base + c->t.blocks[k].off, c->t.blocks[k].len);
        }
    }
    if (c->nruns == 1) {
        add_run(b, &c->runs[0], (size_t)blocklen);
    } else {
        for (MPI_Aint j = 0; j < blocklen && b->err == MPI_SUCCESS; j++)
            for (int k = 0; k < c->nruns; k++)
                add_run(b, &c->runs[k], 1);
    }
}

void rch_mpi_type_build_add(struct rch_mpi_type_builder *b, MPI_Aint disp, MPI_Aint blocklen,
                            const struct rch_mpi_type_obj *c)
{
    if (account(b, disp, blocklen, c))
        append_map(b, disp, blocklen, c);
}

static void reserve_blocks(struct rch_mpi_type_builder *b, size_t n)
{
    struct rch_mpi_type *t = &b->o->t;
    struct rch_mpi_type_block *nb;

    if (n <= (size_t)b->cap_blocks)
        return;
    if (n > INT_MAX / 2) {
        fail(b, MPI_ERR_ARG, "the type map has more than 2^30 separate blocks");
        return;
    }
    nb = realloc(t->blocks, n * sizeof(*nb));
    if (!nb) {
        fail(b, MPI_ERR_OTHER, "out of memory for the type map");
        return;
    }
    t->blocks = nb;
    b->cap_blocks = (int)n;
}

/*
 * count entries (i * stride, blocklen, c), i = 0..count-1: what count calls
 * of build_add would do, in bulk. The entries are evenly spaced, so the
 * first and the last bound them all; the map of the first is copied count-1
 * times, shifted by the stride (merging at the seams, so a vector that is
 * really contiguous ends as one block). For a builder that is still empty.
 */
void rch_mpi_type_build_add_vector(struct rch_mpi_type_builder *b, MPI_Aint count, MPI_Aint blocklen,
                                   MPI_Aint stride, const struct rch_mpi_type_obj *c)
{
    struct rch_mpi_type_obj *o = b->o;
    struct rch_mpi_type_block *tb = NULL;
    struct rch_mpi_type_run *tr = NULL;
    MPI_Aint last, more;
    int nb, nr;

    if (b->err != MPI_SUCCESS || count <= 0 || blocklen <= 0)
        return;
    if (count < 3 || o->t.nblocks || o->nruns || b->have_bounds || b->have_slb || b->have_sub) {
        for (MPI_Aint i = 0; i < count; i++)
            rch_mpi_type_build_add(b, i * stride, blocklen, c);
        return;
    }
    if (__builtin_mul_overflow(count - 1, stride, &last)) {
        fail(b, MPI_ERR_ARG, "displacements overflow the address range");
        return;
    }
    if (!account(b, 0, blocklen, c)) {
        account(b, last, blocklen, c);      /* bounds of an empty or marker entry */
        return;
    }
    append_map(b, 0, blocklen, c);
    nb = o->t.nblocks;
    nr = o->nruns;
    /* the middle entries add size and basic elements, the last one its bounds too */
    if (__builtin_mul_overflow((MPI_Aint)c->t.size * blocklen, count - 2, &more) ||
        __builtin_add_overflow((MPI_Aint)o->t.size, more, &more)) {
        fail(b, MPI_ERR_ARG, "displacements or sizes overflow the address range");
        return;
    }
    o->t.size = (size_t)more;
    o->t.basic_count += c->t.basic_count * (size_t)blocklen * (size_t)(count - 2);
    if (!account(b, last, blocklen, c))
        return;

    /* copies of the first entry's map */
    tb = malloc((size_t)nb * sizeof(*tb));
    tr = malloc((size_t)nr * sizeof(*tr));
    if (!tb || !tr) {
        fail(b, MPI_ERR_OTHER, "out of memory for the type map");
        goto out_free;
    }
    memcpy(tb, o->t.blocks, (size_t)nb * sizeof(*tb));
    memcpy(tr, o->runs, (size_t)nr * sizeof(*tr));
    if (nb == 1 && stride > 0 && tb[0].len == (size_t)stride) {
        /* abutting copies of one block are one block (size checked above),
         * whatever their count: the rows of a darray beyond 2^30 */
        o->t.blocks[0].len *= (size_t)count;
    } else if ((size_t)count > (size_t)(INT_MAX / 2) / (size_t)nb) {
        fail(b, MPI_ERR_ARG, "the type map has more than 2^30 separate blocks");
    } else {
        reserve_blocks(b, (size_t)nb * (size_t)count);
        for (MPI_Aint i = 1; i < count && b->err == MPI_SUCCESS; i++) {
            MPI_Aint shift = i * stride;
            for (int k = 0; k < nb; k++)
                add_block(b, tb[k].off + shift, tb[k].len);
        }
    }
    if (nr == 1) {
        o->runs[0].count *= (size_t)count;
        o->nelems *= (size_t)count;
    } else {
        for (MPI_Aint i = 1; i < count && b->err == MPI_SUCCESS; i++)
            for (int k = 0; k < nr; k++)
                add_run(b, &tr[k], 1);
    }
out_free:
    free(tb);
    free(tr);
}

struct rch_mpi_type_obj *rch_mpi_type_build_end(struct rch_mpi_type_builder *b, int pad_to_align)
{
    struct rch_mpi_type_obj *o = b->o;
    struct rch_mpi_type *t;

    if (b->err != MPI_SUCCESS) {
        if (o) {
            free(o->t.blocks);
            free(o->runs);
            free(o);
        }
        b->o = NULL;
        return NULL;
    }
    t = &o->t;
    t->lb = b->have_slb ? b->slb : b->have_bounds ? b->lb : 0;
    t->ub = b->have_sub ? b->sub : b->have_bounds ? b->ub : 0;
    o->sticky_lb = b->have_slb;
    o->sticky_ub = b->have_sub;
    t->extent = t->ub - t->lb;
    if (pad_to_align && !b->have_slb && !b->have_sub && o->align > 1 && t->extent > 0) {
        MPI_Aint eps = t->extent % o->align;
        if (eps) {
            t->ub += o->align - eps;
            t->extent = t->ub - t->lb;
        }
    }
    t->true_lb = b->have_data ? b->true_lb : 0;
    t->true_ub = b->have_data ? b->true_ub : 0;
    if (!b->have_basic)
        t->basic = MPI_DATATYPE_NULL;
    /* Give back what the doubling over-allocated. */
    if (t->nblocks > 0 && t->nblocks < b->cap_blocks) {
        struct rch_mpi_type_block *nb = realloc(t->blocks, (size_t)t->nblocks * sizeof(*nb));
        if (nb)
            t->blocks = nb;
    }
    if (o->nruns > 0 && o->nruns < b->cap_runs) {
        struct rch_mpi_type_run *nr = realloc(o->runs, (size_t)o->nruns * sizeof(*nr));
        if (nr)
            o->runs = nr;
    }
    rch_mpi_type_update_contig(o);
    b->o = NULL;
    return o;
}

/* ---- shared by the MPI_Type_* entry points ---- */

struct rch_mpi_type_obj *rch_mpi_type_arg(const char *fn, const char *arg, MPI_Datatype dt, int *err)
{
    struct rch_mpi_type_obj *o = rch_mpi_type_lookup(dt);
    if (!o) {
        char d[96];
        *err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: invalid datatype %s in argument %s", fn,
                           rch_mpi_type_describe(dt, d, sizeof(d)), arg);
    }
    return o;
}

int rch_mpi_type_publish(const char *fn, struct rch_mpi_type_obj *o, MPI_Datatype *newtype,
                         int combiner, int nints, const int *ints, int naints, const MPI_Aint *aints,
                         int ntypes, const MPI_Datatype *types)
{
    if (rch_mpi_type_set_contents(o, combiner, nints, ints, naints, aints, ntypes, types) != MPI_SUCCESS) {
        rch_mpi_type_obj_destroy(o);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: out of memory", fn);
    }
    if (rch_mpi_type_register(o) != MPI_SUCCESS) {
        rch_mpi_type_obj_destroy(o);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER,
                           "%s: cannot create another datatype (out of memory or %u types alive)", fn,
                           (unsigned)RCH_MPI_TYPE_MAX_DERIVED);
    }
    *newtype = o->t.handle;
    return MPI_SUCCESS;
}
