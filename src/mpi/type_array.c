/*
 * Array datatypes: MPI_Type_create_subarray and MPI_Type_create_darray.
 *
 * Both are built the way MPI-3.1 4.1.3/4.1.4 define them (and MPICH/ROMIO
 * construct them): one vector per dimension, slowest dimension outermost,
 * strides in bytes of the full array; then the whole is placed at the
 * displacement of its first element and given explicit bounds
 * [0, extent(oldtype) * prod(sizes)), so that consecutive elements of the
 * new type are consecutive whole arrays.
 *
 *   subarray, C order, sizes {4, 6}, subsizes {2, 3}, starts {1, 2}:
 *
 *      . . . . . .      inner: contiguous(3, old)          (dimension 1)
 *      . . x x x .      outer: hvector(2, 1, 6*ext, inner)  (dimension 0)
 *      . . x x x .      placed at (1*6 + 2)*ext, bounds [0, 24*ext)
 *      . . . . . .
 *
 * Intermediate types are unregistered objects fed to the builder and
 * destroyed at once; only the result gets a handle.
 *
 * One builder per constructor takes every size as an MPI_Count (and works
 * in MPI_Aint bytes): the int forms call it with their values widened, the
 * large-count forms (large_array.c) with theirs, so a size or start beyond
 * INT_MAX is built like any other; only an array whose bytes do not fit an
 * MPI_Count is refused (MPI_ERR_COUNT).
 */
#include <stdlib.h>
#include "mpi/type_impl.h"

/* ---- building blocks on objects ---- */

static struct rch_mpi_type_obj *hvector(MPI_Aint count, MPI_Aint bl, MPI_Aint stride,
                                        const struct rch_mpi_type_obj *old, struct rch_mpi_type_builder *b)
{
    rch_mpi_type_build_begin(b);
    rch_mpi_type_build_add_vector(b, count, bl, stride, old);
    return rch_mpi_type_build_end(b, 0);
}

/* Give o the explicit bounds [lb, ub) (as Type_create_resized). */
static struct rch_mpi_type_obj *bound(struct rch_mpi_type_obj *o, MPI_Aint lb, MPI_Aint ub)
{
    if (o) {
        o->t.lb = lb;
        o->t.ub = ub;
        o->t.extent = ub - lb;
        o->sticky_lb = o->sticky_ub = 1;
        rch_mpi_type_update_contig(o);
    }
    return o;
}

/* `inner` at byte disp, with explicit bounds [lb, ub). */
static struct rch_mpi_type_obj *place(const struct rch_mpi_type_obj *inner, MPI_Aint disp, MPI_Aint lb,
                                      MPI_Aint ub, struct rch_mpi_type_builder *b)
{
    rch_mpi_type_build_begin(b);
    rch_mpi_type_build_add(b, disp, 1, inner);
    return bound(rch_mpi_type_build_end(b, 0), lb, ub);
}

/* Replace *cur by next (destroying *cur unless it is `keep`). */
static void step(struct rch_mpi_type_obj **cur, struct rch_mpi_type_obj *next, const struct rch_mpi_type_obj *keep)
{
    if (*cur != keep)
        rch_mpi_type_obj_destroy(*cur);
    *cur = next;
}

static int bad(const char *fn, int cls, const char *what)
{
    return rch_mpi_err(MPI_COMM_NULL, cls, "%s: %s", fn, what);
}

/* The bytes of the whole array, prod(sizes) * ext (negative if ext is), in
 * *out; MPI_ERR_COUNT naming arg if it or, for a nonzero ext, the element
 * count prod(sizes) (which places the first element) does not fit an
 * MPI_Count. Of a zero extent, every element is at 0: the callers then
 * compute no element offsets. */
static int array_bytes(const char *fn, const char *arg, const MPI_Count *sizes, int n, MPI_Aint ext,
                       MPI_Aint *out)
{
    MPI_Count elems = 1, p;
    int over = 0;
    for (int i = 0; i < n; i++)
        over |= __builtin_mul_overflow(elems, sizes[i], &elems);
    if ((over && ext) || __builtin_mul_overflow(elems, (MPI_Count)(ext < 0 ? -ext : ext), &p))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT,
                           "%s: the array of argument %s (elements of extent %lld) is larger than an MPI_Count holds",
                           fn, arg, (long long)ext);
    *out = ext < 0 ? -p : p;
    return MPI_SUCCESS;
}

/* The record a constructor publishes: the int form's call (nints > 0), or
 * none yet (the _c form then sets its own: rch_mpi_type_record_c). */
static int publish(const char *fn, struct rch_mpi_type_obj *o, MPI_Datatype *newtype, int combiner, int nints,
                   const int *ints, MPI_Datatype oldtype)
{
    if (!nints)
        return rch_mpi_type_publish(fn, o, newtype, MPI_COMBINER_NAMED, 0, NULL, 0, NULL, 0, NULL);
    return rch_mpi_type_publish(fn, o, newtype, combiner, nints, ints, 0, NULL, 1, &oldtype);
}

/* a[0..n-1] as MPI_Counts in w; NULL if a is (the builder reports it). */
static const MPI_Count *widen(const int *a, int n, MPI_Count *w)
{
    if (!a)
        return NULL;
    for (int i = 0; i < n; i++)
        w[i] = a[i];
    return w;
}

/* ---- subarray ---- */

int rch_mpi_type_subarray(const char *fn, int ndims, const MPI_Count array_of_sizes[],
                          const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[], int order,
                          MPI_Datatype oldtype, MPI_Datatype *newtype, int nints, const int *ints)
{
    RCH_MPI_CS();
    struct rch_mpi_type_builder b;
    struct rch_mpi_type_obj *old, *cur, *next;
    MPI_Aint ext, stride, total, disp = 0, scale = 1;
    int rc, fast, dir;

    if ((rc = rch_mpi_check_init(fn)))
        return rc;
    if (!newtype)
        return bad(fn, MPI_ERR_ARG, "NULL pointer in argument newtype");
    if (ndims <= 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: ndims %d must be positive", fn, ndims);
    if (!array_of_sizes || !array_of_subsizes || !array_of_starts)
        return bad(fn, MPI_ERR_ARG, "NULL array in argument array_of_sizes, array_of_subsizes or array_of_starts");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid order %d (MPI_ORDER_C or MPI_ORDER_FORTRAN)",
                           fn, order);
    for (int i = 0; i < ndims; i++) {
        long long size = array_of_sizes[i], sub = array_of_subsizes[i], start = array_of_starts[i];
        if (size <= 0)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: array_of_sizes[%d] = %lld must be positive", fn, i,
                               size);
        if (sub <= 0 || sub > size)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
                               "%s: array_of_subsizes[%d] = %lld must be in 1..array_of_sizes[%d] = %lld", fn, i,
                               sub, i, size);
        if (start < 0 || start > size - sub)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
                               "%s: array_of_starts[%d] = %lld puts the subarray outside the array (size %lld, "
                               "subsize %lld)", fn, i, start, size, sub);
    }
    if (!(old = rch_mpi_type_arg(fn, "oldtype", oldtype, &rc)))
        return rc;
    ext = old->t.extent;
    if ((rc = array_bytes(fn, "array_of_sizes", array_of_sizes, ndims, ext, &total)))
        return rc;

    /* Dimensions from the fastest-varying out; every stride and the
     * displacement are within the array's bytes, which fit. */
    fast = order == MPI_ORDER_C ? ndims - 1 : 0;
    dir = order == MPI_ORDER_C ? -1 : 1;
    cur = hvector(1, array_of_subsizes[fast], 0, old, &b);
    stride = ext;
    for (int k = 1, d = fast + dir; cur && k < ndims; k++, d += dir) {
        stride *= array_of_sizes[d - dir];
        next = hvector(array_of_subsizes[d], 1, stride, cur, &b);
        step(&cur, next, old);
    }
    for (int k = 0, d = fast; ext && k < ndims; k++, d += dir) {
        disp += scale * array_of_starts[d];
        scale *= array_of_sizes[d];
    }
    if (cur) {
        next = place(cur, disp * ext, 0, total, &b);
        step(&cur, next, old);
    }
    if (!cur)
        return rch_mpi_err(MPI_COMM_NULL, b.err, "%s: %s", fn, b.why);
    return publish(fn, cur, newtype, MPI_COMBINER_SUBARRAY, nints, ints, oldtype);
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_subarray";
    int n = ndims > 0 ? ndims : 0, rc;
    MPI_Count *w = malloc((size_t)(3 * n + 1) * sizeof(MPI_Count));
    int *ints = malloc((size_t)(3 * n + 2) * sizeof(int));

    if (!w || !ints) {
        rc = bad(fn, MPI_ERR_OTHER, "out of memory");
    } else {
        /* the record: ndims, sizes, subsizes, starts, order (what is invalid in it is refused first) */
        ints[0] = ndims;
        for (int i = 0; i < n && array_of_sizes && array_of_subsizes && array_of_starts; i++) {
            ints[1 + i] = array_of_sizes[i];
            ints[1 + n + i] = array_of_subsizes[i];
            ints[1 + 2 * n + i] = array_of_starts[i];
        }
        ints[1 + 3 * n] = order;
        rc = rch_mpi_type_subarray(fn, ndims, widen(array_of_sizes, n, w), widen(array_of_subsizes, n, w + n),
                                   widen(array_of_starts, n, w + 2 * n), order, oldtype, newtype, 3 * n + 2, ints);
    }
    free(w);
    free(ints);
    return rc;
}
#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray

/* ---- darray ----
 * One dimension of the distribution (ROMIO's MPIOI_Type_block/cyclic):
 * the elements of dimension `dim` that process coordinate `coord` of `np`
 * owns, as a type over `old` with the byte stride of that dimension.
 * *start is the first owned index (in elements of the dimension) that the
 * caller still has to add to the displacement. The caller then bounds the
 * result to the whole dimension, so that the next (slower) dimension's
 * cyclic blocks of several copies step by whole dimensions. Strides and
 * bounds are within the whole array's bytes, which fit. */
struct darray_dim {
    const MPI_Count *gsizes;
    int ndims, order;
    MPI_Aint ext;
};

static MPI_Aint dim_stride(const struct darray_dim *a, int dim)
{
    MPI_Aint stride = a->ext;
    if (a->order == MPI_ORDER_FORTRAN)
        for (int i = 0; i < dim; i++)
            stride *= a->gsizes[i];
    else
        for (int i = a->ndims - 1; i > dim; i--)
            stride *= a->gsizes[i];
    return stride;
}

static struct rch_mpi_type_obj *dim_block(const struct darray_dim *a, int dim, int np, int coord, int darg,
                                          const struct rch_mpi_type_obj *old, MPI_Aint *start,
                                          struct rch_mpi_type_builder *b)
{
    MPI_Count gsize = a->gsizes[dim];
    MPI_Count blksize = darg == MPI_DISTRIBUTE_DFLT_DARG ? gsize / np + (gsize % np != 0) : darg;
    MPI_Count mysize = gsize - blksize * coord;   /* blksize * coord <= gsize + np, or int * int */

    if (mysize > blksize)
        mysize = blksize;
    if (mysize < 0)
        mysize = 0;
    *start = mysize ? blksize * coord : 0;
    return hvector(mysize, 1, dim_stride(a, dim), old, b);
}

static struct rch_mpi_type_obj *dim_cyclic(const struct darray_dim *a, int dim, int np, int coord, int darg,
                                           const struct rch_mpi_type_obj *old, MPI_Aint *start,
                                           struct rch_mpi_type_builder *b)
{
    MPI_Aint blksize = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    MPI_Aint first = (MPI_Aint)coord * blksize, last = a->gsizes[dim] - 1, local = 0;
    MPI_Aint count, rem, stride = 0;
    struct rch_mpi_type_obj *o;

    if (last >= first) {
        MPI_Aint span = last - first + 1, r = span % (np * blksize);
        local = span / (np * blksize) * blksize + (r < blksize ? r : blksize);
    }
    count = local / blksize;
    rem = local % blksize;
    if (count > 1 || (count == 1 && rem))
        stride = np * blksize * dim_stride(a, dim);   /* np * blksize <= gsize here: no overflow */
    /* count full blocks, then a last shorter block */
    rch_mpi_type_build_begin(b);
    rch_mpi_type_build_add_vector(b, count, blksize, stride, old);
    if (rem)
        rch_mpi_type_build_add(b, count * stride, rem, old);
    o = rch_mpi_type_build_end(b, 0);
    *start = local ? first : 0;
    return o;
}

int rch_mpi_type_darray(const char *fn, int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                        const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                        int order, MPI_Datatype oldtype, MPI_Datatype *newtype, int nints, const int *ints)
{
    RCH_MPI_CS();
    struct rch_mpi_type_builder b;
    struct rch_mpi_type_obj *old, *cur, *next;
    struct darray_dim a;
    MPI_Aint total, disp = 0, scale = 1;
    int rc, *coords, procs, left, fast, dir;

    if ((rc = rch_mpi_check_init(fn)))
        return rc;
    if (!newtype)
        return bad(fn, MPI_ERR_ARG, "NULL pointer in argument newtype");
    if (size <= 0 || rank < 0 || rank >= size)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid rank %d of size %d", fn, rank, size);
    if (ndims <= 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: ndims %d must be positive", fn, ndims);
    if (!array_of_gsizes || !array_of_distribs || !array_of_dargs || !array_of_psizes)
        return bad(fn, MPI_ERR_ARG, "NULL array argument");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid order %d", fn, order);
    procs = 1;
    for (int i = 0; i < ndims; i++) {
        long long g = array_of_gsizes[i];
        int p = array_of_psizes[i], d = array_of_dargs[i], dist = array_of_distribs[i];
        if (g <= 0 || p <= 0)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
                               "%s: array_of_gsizes[%d] = %lld and array_of_psizes[%d] = %d must be positive", fn,
                               i, g, i, p);
        if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC && dist != MPI_DISTRIBUTE_NONE)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid array_of_distribs[%d] = %d", fn, i, dist);
        if (d != MPI_DISTRIBUTE_DFLT_DARG && d <= 0)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid array_of_dargs[%d] = %d", fn, i, d);
        if (dist == MPI_DISTRIBUTE_NONE && p != 1)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
                               "%s: dimension %d is MPI_DISTRIBUTE_NONE but array_of_psizes[%d] = %d, not 1", fn, i,
                               i, p);
        if (dist == MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_DFLT_DARG && (long long)d * p < g)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
                               "%s: blocks of %d on %d processes do not cover array_of_gsizes[%d] = %lld", fn, d, p,
                               i, g);
        if (__builtin_mul_overflow(procs, p, &procs))
            return bad(fn, MPI_ERR_ARG, "the process grid is too large");
    }
    if (procs != size)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: the process grid has %d processes, size is %d", fn,
                           procs, size);
    if (!(old = rch_mpi_type_arg(fn, "oldtype", oldtype, &rc)))
        return rc;
    if ((rc = array_bytes(fn, "array_of_gsizes", array_of_gsizes, ndims, old->t.extent, &total)))
        return rc;

    /* This process's coordinates: the process grid is row-major (C order) whatever `order` is. */
    coords = malloc((size_t)ndims * sizeof(int));
    if (!coords)
        return bad(fn, MPI_ERR_OTHER, "out of memory");
    left = rank;
    procs = size;
    for (int i = 0; i < ndims; i++) {
        procs /= array_of_psizes[i];
        coords[i] = left / procs;
        left %= procs;
    }

    a.gsizes = array_of_gsizes;
    a.ndims = ndims;
    a.order = order;
    a.ext = old->t.extent;
    fast = order == MPI_ORDER_C ? ndims - 1 : 0;
    dir = order == MPI_ORDER_C ? -1 : 1;
    cur = (struct rch_mpi_type_obj *)old;
    for (int k = 0, d = fast; k < ndims && cur; k++, d += dir) {
        MPI_Aint start = 0;
        int dist = array_of_distribs[d];
        if (dist == MPI_DISTRIBUTE_CYCLIC)
            next = dim_cyclic(&a, d, array_of_psizes[d], coords[d], array_of_dargs[d], cur, &start, &b);
        else   /* BLOCK, or NONE: one block of the whole dimension */
            next = dim_block(&a, d, dist == MPI_DISTRIBUTE_NONE ? 1 : array_of_psizes[d],
                             dist == MPI_DISTRIBUTE_NONE ? 0 : coords[d],
                             dist == MPI_DISTRIBUTE_NONE ? MPI_DISTRIBUTE_DFLT_DARG : array_of_dargs[d], cur, &start,
                             &b);
        step(&cur, bound(next, 0, dim_stride(&a, d) * array_of_gsizes[d]), old);
        if (a.ext) {
            disp += scale * start;
            scale *= array_of_gsizes[d];
        }
    }
    free(coords);
    if (cur) {
        next = place(cur, disp * old->t.extent, 0, total, &b);
        step(&cur, next, old);
    }
    if (!cur)
        return rch_mpi_err(MPI_COMM_NULL, b.err, "%s: %s", fn, b.why);
    return publish(fn, cur, newtype, MPI_COMBINER_DARRAY, nints, ints, oldtype);
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                            int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_darray";
    int n = ndims > 0 ? ndims : 0, rc;
    MPI_Count *w = malloc((size_t)(n + 1) * sizeof(MPI_Count));
    int *ints = malloc((size_t)(4 * n + 4) * sizeof(int));

    if (!w || !ints) {
        rc = bad(fn, MPI_ERR_OTHER, "out of memory");
    } else {
        /* the record: size, rank, ndims, gsizes, distribs, dargs, psizes, order */
        ints[0] = size;
        ints[1] = rank;
        ints[2] = ndims;
        for (int i = 0; i < n && array_of_gsizes && array_of_distribs && array_of_dargs && array_of_psizes; i++) {
            ints[3 + i] = array_of_gsizes[i];
            ints[3 + n + i] = array_of_distribs[i];
            ints[3 + 2 * n + i] = array_of_dargs[i];
            ints[3 + 3 * n + i] = array_of_psizes[i];
        }
        ints[3 + 4 * n] = order;
        rc = rch_mpi_type_darray(fn, size, rank, ndims, widen(array_of_gsizes, n, w), array_of_distribs,
                                 array_of_dargs, array_of_psizes, order, oldtype, newtype, 4 * n + 4, ints);
    }
    free(w);
    free(ints);
    return rc;
}
#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
