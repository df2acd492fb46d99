/*
 * Moving typed data: rch_mpi_type_pack/unpack (used by point-to-point and the
 * collectives for non-contiguous buffers), element counting for
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
 * list, with fixed-size moves for the common block lengths. Anything else
 * is one copy per block per element, blocks having been merged when the
 * type was built.
 *
 * Addresses are computed as integers: with MPI_BOTTOM (NULL) the "offsets"
 * are absolute addresses, and NULL + offset would be undefined behaviour.
 */
#include <string.h>
#include "mpi/type_impl.h"

static inline const char *at(const void *base, MPI_Aint off)
{
    return (const char *)((uintptr_t)base + (uintptr_t)off);
}

static inline void copy(void *dst, const void *src, size_t n)
{
    switch (n) {
    case 1: memcpy(dst, src, 1); break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, n); break;
    }
}

/* n blocks of len bytes, stride apart, to (gather) or from (scatter) a dense
 * buffer. Always inlined, so the calls below with a constant len become
 * loops of plain moves. */
static inline __attribute__((always_inline)) void gather_len(char *dst, const char *src, int n, MPI_Aint stride,
                                                             size_t len)
{
    for (int k = 0; k < n; k++)
        memcpy(dst + len * (size_t)k, src + k * stride, len);
}

static inline __attribute__((always_inline)) void scatter_len(char *dst, const char *src, int n, MPI_Aint stride,
                                                              size_t len)
{
    for (int k = 0; k < n; k++)
        memcpy(dst + k * stride, src + len * (size_t)k, len);
}

static void gather(char *dst, const char *src, int n, MPI_Aint stride, size_t len)
{
    switch (len) {
    case 4: gather_len(dst, src, n, stride, 4); break;
    case 8: gather_len(dst, src, n, stride, 8); break;
    case 16: gather_len(dst, src, n, stride, 16); break;
    case 32: gather_len(dst, src, n, stride, 32); break;
    case 64: gather_len(dst, src, n, stride, 64); break;
    default: gather_len(dst, src, n, stride, len); break;
    }
}

static void scatter(char *dst, const char *src, int n, MPI_Aint stride, size_t len)
{
    switch (len) {
    case 4: scatter_len(dst, src, n, stride, 4); break;
    case 8: scatter_len(dst, src, n, stride, 8); break;
    case 16: scatter_len(dst, src, n, stride, 16); break;
    case 32: scatter_len(dst, src, n, stride, 32); break;
    case 64: scatter_len(dst, src, n, stride, 64); break;
    default: scatter_len(dst, src, n, stride, len); break;
    }
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
            gather(dst, at(in, (MPI_Aint)i * t->extent + t->blocks[0].off), t->nblocks, o->rstride,
                   t->blocks[0].len);
        return;
    }
    for (int i = 0; i < count; i++) {
        MPI_Aint base = (MPI_Aint)i * t->extent;
        for (int k = 0; k < t->nblocks; k++) {
            copy(dst, at(in, base + t->blocks[k].off), t->blocks[k].len);
            dst += t->blocks[k].len;
        }
    }
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
        const struct rch_mpi_type_obj *o = rch_mpi_type_obj_of(t);
        int whole = (int)(bytes / t->size);
        for (int i = 0; i < whole; i++, src += t->size)
            scatter((char *)at(out, (MPI_Aint)i * t->extent + t->blocks[0].off), src, t->nblocks, o->rstride,
                    t->blocks[0].len);
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

static int bottom_ok(const struct rch_mpi_type *t, int count)
{
    MPI_Aint span, lowest;

    if (t->extent >= 0) {
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
    if (!buf && count > 0 && t->size > 0 && !bottom_ok(t, count))
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

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Pack_size";
    const struct rch_mpi_type *t;
    char d[96];
    size_t need;
    int rc;

    if ((rc = rch_mpi_check_init(fn)) || (rc = check_comm(fn, comm)))
        return rc;
    if (incount < 0)
        return rch_mpi_err(comm, MPI_ERR_COUNT, "%s: negative count %d in argument incount", fn, incount);
    if (!(t = rch_mpi_type_get(datatype)))
        return rch_mpi_err(comm, MPI_ERR_TYPE, "%s: invalid datatype %s in argument datatype", fn,
                           rch_mpi_type_describe(datatype, d, sizeof(d)));
    if (!size)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: NULL pointer in argument size", fn);
    need = (size_t)incount * t->size;
    if (need > INT32_MAX)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: %d elements of %s pack to %zu bytes, more than an int holds",
                           fn, incount, rch_mpi_type_describe(datatype, d, sizeof(d)), need);
    *size = (int)need;
    return MPI_SUCCESS;
}
#pragma weak MPI_Pack_size = PMPI_Pack_size
