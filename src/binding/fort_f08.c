/*
 * fort_f08.c — the choice buffers of module mpi_f08 (gen_f08.py).
 *
 * A TYPE(*), DIMENSION(..) dummy reaches C as a descriptor (TS 29113,
 * ISO_Fortran_binding.h). A contiguous one is its base address: the mpif.h
 * binding then recognises MPI_BOTTOM and MPI_IN_PLACE (common-block members
 * in mpi_f08 as in mpif.h, or MPICH's MPIR_F08_*) by it. A non-contiguous
 * array section (MPI_SUBARRAYS_SUPPORTED = .TRUE.) is the buffer "as if
 * contiguous": a call done with its buffers when it returns works on a
 * contiguous copy (rch_f08_copy_in/out); a call that keeps them
 * (nonblocking, persistent, one-sided) uses the section in place, through
 * a datatype that picks the section's elements out of memory by the
 * descriptor's strides in place of (count, datatype), so no copy has to
 * outlive the call. That datatype's extent must be the array element's
 * (MPI_INTEGER for INTEGER, a derived datatype describing one element of a
 * derived-type array, ...). Part of librdmachfort.so and of the ABI's
 * libmpichfort.so.12 (MPICH's mpi_f08 calls the same procedures).
 */
#include <ISO_Fortran_binding.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "binding/fort_gfc.h"
#include "binding/fort_runtime.h"

/* Why a section could not be given to C: printed (the C library's own
 * messages are not reachable from here); the code goes to the call's
 * error handler (rch_f08_raise) and IERROR. */
static int f08_refuse(int err, const char *why)
{
    fprintf(stderr, "rdmach: mpi_f08: %s\n", why);
    return err;
}

/* Whether the elements lie one after the other in array element order (as
 * CFI_is_contiguous, on a C descriptor). */
static int f08_contiguous(const CFI_cdesc_t *d)
{
    MPI_Aint next = (MPI_Aint)d->elem_len;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent <= 0)
            return 1;   /* no elements */
        if (d->dim[i].extent > 1 && (MPI_Aint)d->dim[i].sm != next)
            return 0;
        next *= (MPI_Aint)d->dim[i].extent;
    }
    return 1;
}

static MPI_Aint f08_elements(const CFI_cdesc_t *d)
{
    MPI_Aint n = 1;
    for (int i = 0; i < d->rank; i++)
        n *= (MPI_Aint)d->dim[i].extent;
    return n;
}

/* Byte offset of element k (array element order) from base_addr. */
static MPI_Aint f08_offset(const CFI_cdesc_t *d, MPI_Aint k)
{
    MPI_Aint off = 0;
    for (int i = 0; i < d->rank; i++) {
        off += (k % d->dim[i].extent) * (MPI_Aint)d->dim[i].sm;
        k /= d->dim[i].extent;
    }
    return off;
}

/* The stride between consecutive elements when the section is one regular
 * progression (a(1:n:2), m(1, :), ...), else 0. */
static MPI_Aint f08_uniform_stride(const CFI_cdesc_t *d)
{
    MPI_Aint stride = 0, next = 0;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent == 1)
            continue;
        if (stride == 0)
            stride = (MPI_Aint)d->dim[i].sm;
        else if ((MPI_Aint)d->dim[i].sm != next)
            return 0;
        next = (MPI_Aint)d->dim[i].sm * (MPI_Aint)d->dim[i].extent;
    }
    return stride;
}

/* The section as (count_c, datatype_c). A regular progression with a
 * positive stride keeps the count: each element of dt stretched to the
 * stride, so that a collective's blocks (block i at i * count elements)
 * land right too. Any other section becomes one element of a type that
 * picks its first count elements, which only a count covering the whole
 * buffer allows (whole: not a gather's or scatter's per-rank count). */
static int f08_section_type(const CFI_cdesc_t *d, MPI_Fint count, MPI_Datatype dt, int whole,
                            MPI_Fint *count_c, MPI_Datatype *out)
{
    int err = MPI_SUCCESS;
    MPI_Aint lb, extent, stride = f08_uniform_stride(d);
    MPI_Datatype t = dt;
    PMPI_Type_get_extent(dt, &lb, &extent);
    if (stride > 0) {
        err = PMPI_Type_create_resized(dt, lb, stride, &t);
    } else if (!whole) {
        return f08_refuse(MPI_ERR_BUFFER, "a collective's per-rank blocks need a contiguous "
                                          "array section or one with a single positive stride");
    } else if (count > f08_elements(d)) {
        return f08_refuse(MPI_ERR_COUNT, "count is larger than the array section");
    } else if (count == f08_elements(d)) {
        for (int i = 0; i < d->rank && err == MPI_SUCCESS; i++) {
            MPI_Datatype next;
            err = PMPI_Type_create_hvector((int)d->dim[i].extent, 1, (MPI_Aint)d->dim[i].sm, t, &next);
            if (t != dt)
                PMPI_Type_free(&t);
            t = next;
        }
        count = 1;
    } else {
        MPI_Aint *displs = malloc((size_t)count * sizeof(*displs));
        if (!displs)
            return rch_f_nomem("mpi_f08 (array section)");
        for (MPI_Aint k = 0; k < count; k++)
            displs[k] = f08_offset(d, k);
        err = PMPI_Type_create_hindexed_block((int)count, 1, displs, dt, &t);
        free(displs);
        count = 1;
    }
    if (err == MPI_SUCCESS)
        err = PMPI_Type_commit(&t);
    *count_c = count;
    *out = t;
    return err;
}

/* Whether a contiguous (count, datatype) must change for this buffer: a
 * non-contiguous section, with a count and datatype the binding accepts
 * (else the binding itself reports them), whose datatype is one element. */
static int f08_needs_type(const CFI_cdesc_t *buf, MPI_Fint count, MPI_Datatype dt, int *err)
{
    MPI_Aint lb, extent;
    *err = MPI_SUCCESS;
    if (f08_contiguous(buf) || count <= 0 || PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS)
        return 0;
    if (extent != (MPI_Aint)buf->elem_len) {
        *err = f08_refuse(MPI_ERR_BUFFER, "a non-contiguous array section needs a datatype whose "
                                          "extent is the array element's size");
        return 0;
    }
    return 1;
}

RCH_F_PUBLIC int rch_f08_buffer(const CFI_cdesc_t *buf, const MPI_Fint *count,
                                const MPI_Fint *datatype, int whole, void **addr,
                                MPI_Fint *count_c, MPI_Fint *datatype_c)
{
    int err;
    MPI_Datatype dt = MPI_Type_f2c(*datatype), section = MPI_DATATYPE_NULL;
    *addr = buf->base_addr;
    if (!f08_needs_type(buf, *count, dt, &err))
        return err;
    err = f08_section_type(buf, *count, dt, whole, count_c, &section);
    if (err == MPI_SUCCESS)
        *datatype_c = MPI_Type_c2f(section);
    return err;
}

static int f08_same_layout(const CFI_cdesc_t *a, const CFI_cdesc_t *b)
{
    if (a->rank != b->rank || a->elem_len != b->elem_len)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dim[i].extent != b->dim[i].extent || a->dim[i].sm != b->dim[i].sm)
            return 0;
    return 1;
}

/* Two buffers sharing one (count, datatype) (MPI_Reduce's sendbuf and
 * recvbuf): one datatype must serve both, so either one is a scalar
 * (MPI_IN_PLACE, or a root's unused one), or both are laid out alike. */
RCH_F_PUBLIC int rch_f08_pair(const CFI_cdesc_t *a, const CFI_cdesc_t *b, const MPI_Fint *count,
                              const MPI_Fint *datatype, int whole, void **addr_a, void **addr_b,
                              MPI_Fint *count_c, MPI_Fint *datatype_c)
{
    *addr_a = a->base_addr;
    if (a->rank == 0)   /* MPI_IN_PLACE, or a scalar: one element at most */
        return rch_f08_buffer(b, count, datatype, whole, addr_b, count_c, datatype_c);
    *addr_b = b->base_addr;
    if (b->rank == 0 || f08_same_layout(a, b))
        return rch_f08_buffer(a, count, datatype, whole, addr_a, count_c, datatype_c);
    if (f08_contiguous(a) && f08_contiguous(b))
        return MPI_SUCCESS;
    return f08_refuse(MPI_ERR_BUFFER, "two buffers sharing a datatype must be laid out alike "
                                      "(or one be MPI_IN_PLACE)");
}

/* A buffer without a (count, datatype) of its own of a call that keeps it
 * (gen_f08.copied: the others are copied): its address, which must start
 * contiguous memory when the call reads or writes its contents (contents:
 * not MPI_Get_address's or MPI_Free_mem's). MPI requires a window's base
 * and an attached buffer to be simply contiguous anyway. */
RCH_F_PUBLIC int rch_f08_address(const CFI_cdesc_t *buf, int contents, void **addr)
{
    *addr = buf->base_addr;
    if (!contents || f08_contiguous(buf))
        return MPI_SUCCESS;
    return f08_refuse(MPI_ERR_BUFFER, "a buffer that the call keeps past its return and that has no "
                                      "datatype of its own (a window's, an attached buffer, "
                                      "MPI_Ialltoallw's) must be contiguous");
}

/* A call that is done with its buffers when it returns (gen_f08.copied)
 * works on a contiguous copy of a non-contiguous section's elements: the
 * section "as if contiguous" (MPI-4.1 19.1.12), so that any count,
 * datatype, counts and displacements per rank (in units of the datatype's
 * extent, or bytes) and two buffers laid out differently (MPI_Reduce's,
 * MPI_Sendrecv's) apply unchanged. *tmp is the copy (NULL: none needed),
 * which rch_f08_copy_out writes back (back: the call may have written to
 * the buffer) and frees. */
RCH_F_PUBLIC int rch_f08_copy_in(const CFI_cdesc_t *buf, void **addr, void **tmp)
{
    *tmp = NULL;
    *addr = buf->base_addr;
    if (f08_contiguous(buf))
        return MPI_SUCCESS;
    MPI_Aint n = f08_elements(buf), len = (MPI_Aint)buf->elem_len;
    char *copy = malloc((size_t)(n * len));
    if (!copy)
        return rch_f_nomem("mpi_f08 (array section)");
    for (MPI_Aint k = 0; k < n; k++)
        memcpy(copy + k * len, (char *)buf->base_addr + f08_offset(buf, k), (size_t)len);
    *tmp = *addr = copy;
    return MPI_SUCCESS;
}

RCH_F_PUBLIC void rch_f08_copy_out(const CFI_cdesc_t *buf, void **tmp, int back)
{
    MPI_Aint n = f08_elements(buf), len = (MPI_Aint)buf->elem_len;
    const char *copy = *tmp;
    for (MPI_Aint k = 0; back && k < n; k++)
        memcpy((char *)buf->base_addr + f08_offset(buf, k), copy + k * len, (size_t)len);
    free(*tmp);
    *tmp = NULL;
}

/* A refused buffer's error, through the error handler of the call's
 * communicator (kind 1), window (2) or file (3), as the C library raises its
 * own: MPI_ERRORS_ARE_FATAL aborts, a user handler is called. */
RCH_F_PUBLIC void rch_f08_raise(int kind, const MPI_Fint *handle, const MPI_Fint *err)
{
    if (kind == 1)
        PMPI_Comm_call_errhandler(MPI_Comm_f2c(*handle), *err);
    else if (kind == 2)
        PMPI_Win_call_errhandler(MPI_Win_f2c(*handle), *err);
    else
        PMPI_File_call_errhandler(MPI_File_f2c(*handle), *err);
}

/* The length of a per-rank array of a large-count procedure given a
 * section (gen_f08.py's section_large, as gen_large.py's len=): what 0 the
 * size of comm's group, 1 the remote group's on an intercommunicator, 2 and
 * 3 its in- and out-degree (a Cartesian topology's 2 * ndims, a graph's
 * neighbours); 0 where MPI tells none (no topology: the call reports it). */
MPI_Aint rch_f08_len(int what, const MPI_Fint *comm)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int n = 0, inter = 0, topo = MPI_UNDEFINED, in = 0, out = 0, weighted, rank;
    if (what < 2) {
        if (what == 1 && PMPI_Comm_test_inter(c, &inter) == MPI_SUCCESS && inter)
            return PMPI_Comm_remote_size(c, &n) == MPI_SUCCESS ? n : 0;
        return PMPI_Comm_size(c, &n) == MPI_SUCCESS ? n : 0;
    }
    if (PMPI_Topo_test(c, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_CART)
        return PMPI_Cartdim_get(c, &n) == MPI_SUCCESS ? 2 * (MPI_Aint)n : 0;
    if (topo == MPI_GRAPH)
        return PMPI_Comm_rank(c, &rank) == MPI_SUCCESS &&
               PMPI_Graph_neighbors_count(c, rank, &n) == MPI_SUCCESS ? n : 0;
    if (topo == MPI_DIST_GRAPH &&
        PMPI_Dist_graph_neighbors_count(c, &in, &out, &weighted) == MPI_SUCCESS)
        return what == 2 ? in : out;
    return 0;
}

/* Whether this process is a rooted collective's root: rank root, or on an
 * intercommunicator root == MPI_ROOT; 1 for a communicator MPI does not
 * know (the call reports it). */
int rch_f08_at_root(const MPI_Fint *comm, const MPI_Fint *root)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int inter = 0, rank = 0;
    if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS)
        return 1;
    if (inter)
        return *root == MPI_ROOT;
    return PMPI_Comm_rank(c, &rank) != MPI_SUCCESS || rank == *root;
}

/* n counts or displacements of KIND=MPI_COUNT_KIND or MPI_ADDRESS_KIND
 * (both 64 bits) as default INTEGERs, in *out (malloc'd, freed by the
 * caller even on failure): MPI_ERR_COUNT if one does not fit. */
int rch_f08_ints(const void *a, MPI_Aint n, MPI_Fint **out)
{
    const int64_t *v = a;
    _Static_assert(sizeof(MPI_Count) == 8 && sizeof(MPI_Aint) == 8, "64-bit counts and addresses");
    *out = malloc((size_t)(n > 0 ? n : 1) * sizeof(MPI_Fint));
    if (!*out)
        return MPI_ERR_NO_MEM;
    for (MPI_Aint i = 0; i < n; i++) {
        if (v[i] != (MPI_Fint)v[i])
            return MPI_ERR_COUNT;
        (*out)[i] = (MPI_Fint)v[i];
    }
    return MPI_SUCCESS;
}

/* gfortran's descriptor (fort_gfc.h) of a choice buffer as a C one, for
 * the helpers above: C's fast path (f08_fast.c) has only gfortran's. */
static void f08_from_gfc(const struct rch_gfc_desc *g, CFI_cdesc_t *c)
{
    c->base_addr = g->base_addr;
    c->elem_len = g->elem_len;
    c->version = CFI_VERSION;
    c->rank = (CFI_rank_t)g->rank;
    c->attribute = CFI_attribute_other;
    c->type = CFI_type_other;
    for (int i = 0; i < g->rank; i++) {
        c->dim[i].lower_bound = g->dim[i].lbound;
        c->dim[i].extent = g->dim[i].ubound - g->dim[i].lbound + 1;
        c->dim[i].sm = g->dim[i].stride * g->span;
    }
}

/* A buffer of a large-count v-collective (gen_f08.section_c) that C's
 * MPI_<Name>_c takes as it is: its address and datatype, and for a section
 * (one regular progression only: its counts and displacements per rank
 * stay) a datatype stretched to its stride, which *datatype_c then names
 * (freed by the caller after the call). MPI_IN_PLACE and MPI_BOTTOM
 * become C's. b, when not NULL, shares the datatype (MPI_Reduce_scatter's
 * sendbuf and recvbuf, as rch_f08_pair). */
int rch_f08_gfc_buffer(const struct rch_gfc_desc *a, const struct rch_gfc_desc *b,
                       const MPI_Fint *datatype, void **addr_a, void **addr_b, MPI_Fint *datatype_c)
{
    CFI_CDESC_T(CFI_MAX_RANK) ca, cb;
    MPI_Fint one = 1, count_c = 1;
    int err;
    *datatype_c = *datatype;
    f08_from_gfc(a, (CFI_cdesc_t *)&ca);
    if (b) {
        f08_from_gfc(b, (CFI_cdesc_t *)&cb);
        err = rch_f08_pair((CFI_cdesc_t *)&ca, (CFI_cdesc_t *)&cb, &one, datatype, 0, addr_a, addr_b,
                           &count_c, datatype_c);
        *addr_b = rch_f_buffer(*addr_b);
    } else {
        err = rch_f08_buffer((CFI_cdesc_t *)&ca, &one, datatype, 0, addr_a, &count_c, datatype_c);
    }
    *addr_a = rch_f_buffer(*addr_a);
    return err;
}

/* A datatype rch_f08_buffer made, once the call has it (a pending
 * nonblocking operation keeps its own reference). */
RCH_F_PUBLIC void rch_f08_type_free(MPI_Fint *datatype)
{
    MPI_Datatype dt = MPI_Type_f2c(*datatype);
    PMPI_Type_free(&dt);
}
