/*
 * Conversions of the large-count (_c) entry points to their int forms
 * (large.h). A buffer of more than INT_MAX elements is passed as one element
 * of a contiguous type of them (type_large.c, which records the datatype and
 * count it was made of). Its type map is that of count elements, so the
 * int function moves, packs and reduces it (a reduction's type stays
 * homogeneous) as any derived type, and MPI_Get_count_c on the status
 * counts in the user's datatype since a status holds bytes.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "mpi/large.h"
#include "mpi/type_impl.h"
#include "mpi/win_impl.h"

int rch_mpi_large_err(const struct rch_mpi_large_ctx *x, int errclass, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    struct rch_mpi_win *w = x->win != MPI_WIN_NULL ? rch_mpi_win_get(x->win) : NULL;
    if (w)
        return rch_mpi_win_err(w, errclass, "%s: %s", x->fn, msg);
    return rch_mpi_err(rch_mpi_comm_get(x->comm) ? x->comm : MPI_COMM_NULL, errclass, "%s: %s", x->fn, msg);
}

static int too_large(const struct rch_mpi_large_ctx *x, const char *arg, int disp, MPI_Count v)
{
    return rch_mpi_large_err(x, disp ? MPI_ERR_ARG : MPI_ERR_COUNT,
                             "%s %lld in argument %s does not fit an int, which this function supports",
                             disp ? "displacement" : "count", (long long)v, arg);
}

int rch_mpi_large_int(const struct rch_mpi_large_ctx *x, const char *arg, int disp, MPI_Count v, int *out)
{
    if (v < INT_MIN || v > INT_MAX)
        return too_large(x, arg, disp, v);
    *out = (int)v;
    return MPI_SUCCESS;
}

int rch_mpi_large_ints(const struct rch_mpi_large_ctx *x, const char *arg, int disp, const MPI_Count *a,
                       MPI_Count n, int **out)
{
    *out = NULL;
    if (!a)
        return MPI_SUCCESS;
    if (!(*out = malloc((size_t)(n > 0 ? n : 1) * sizeof(int))))
        return rch_mpi_large_err(x, MPI_ERR_NO_MEM, "no memory to convert argument %s (%lld values)", arg,
                                 (long long)n);
    for (MPI_Count i = 0; i < n; i++) {
        if (a[i] < INT_MIN || a[i] > INT_MAX) {
            char name[64];
            snprintf(name, sizeof(name), "%s[%lld]", arg, (long long)i);
            free(*out);
            *out = NULL;
            return too_large(x, name, disp, a[i]);
        }
        (*out)[i] = (int)a[i];
    }
    return MPI_SUCCESS;
}

int rch_mpi_large_contig(const struct rch_mpi_large_ctx *x, const char *arg, MPI_Count count, MPI_Datatype dt,
                      MPI_Datatype *out)
{
    MPI_Aint lb, ext, whole;
    char d[96];

    const struct rch_mpi_type *t = rch_mpi_type_get(dt);
    if (!t)
        return rch_mpi_large_err(x, MPI_ERR_TYPE, "invalid datatype %s for the count in argument %s",
                                 rch_mpi_type_describe(dt, d, sizeof(d)), arg);
    if (!t->committed && !x->constructor)   /* the int form sees only the library's committed type */
        return rch_mpi_large_err(x, MPI_ERR_TYPE, "datatype %s for the count in argument %s is not committed",
                                 rch_mpi_type_describe(dt, d, sizeof(d)), arg);
    PMPI_Type_get_extent(dt, &lb, &ext);
    if (__builtin_mul_overflow(count, ext, &whole))
        return rch_mpi_large_err(x, MPI_ERR_COUNT, "count %lld in argument %s: %lld extents of %ld bytes "
                                 "overflow an address", (long long)count, arg, (long long)count, (long)ext);
    int err = rch_mpi_type_contiguous_large(x->fn, count, dt, 1, out);
    if (!err && (err = PMPI_Type_commit(out)))
        PMPI_Type_free(out);
    return err;
}

int rch_mpi_large_buf(const struct rch_mpi_large_ctx *x, const char *arg, MPI_Count count, MPI_Datatype dt,
                      int *count_i, MPI_Datatype *dt_i)
{
    *dt_i = dt;
    if (count <= INT_MAX) {
        if (count < 0)
            return rch_mpi_large_err(x, MPI_ERR_COUNT, "negative count %lld in argument %s", (long long)count,
                                     arg);
        *count_i = (int)count;
        return MPI_SUCCESS;
    }
    int err = rch_mpi_check_init(x->fn);
    if (err || (err = rch_mpi_large_contig(x, arg, count, dt, dt_i)))
        return err;
    *count_i = 1;
    return MPI_SUCCESS;
}

void rch_mpi_large_buf_done(MPI_Datatype dt_i, MPI_Datatype dt)
{
    if (dt_i != dt)
        PMPI_Type_free(&dt_i);
}

int rch_mpi_large_block(const struct rch_mpi_large_ctx *x, const char *cname, const char *dname, int peer,
                        MPI_Count count, MPI_Aint displ, int in_bytes, MPI_Datatype dt, int *cnt, MPI_Datatype *type)
{
    MPI_Aint lb, ext, bytes;
    MPI_Datatype e;
    int n, err;
    char d[96];

    *cnt = 0;
    *type = MPI_BYTE;
    const struct rch_mpi_type *t = rch_mpi_type_get(dt);
    if (!t)
        return rch_mpi_large_err(x, MPI_ERR_TYPE, "invalid datatype %s for peer %d with argument %s",
                                 rch_mpi_type_describe(dt, d, sizeof(d)), peer, cname);
    if (!t->committed)
        return rch_mpi_large_err(x, MPI_ERR_TYPE, "datatype %s for peer %d with argument %s is not committed",
                                 rch_mpi_type_describe(dt, d, sizeof(d)), peer, cname);
    PMPI_Type_get_extent(dt, &lb, &ext);
    if (__builtin_mul_overflow(displ, in_bytes ? 1 : ext, &bytes))
        return rch_mpi_large_err(x, MPI_ERR_ARG, "displacement %ld of peer %d in argument %s times the "
                                 "extent %ld overflows", (long)displ, peer, dname, (long)ext);
    if ((err = rch_mpi_large_buf(x, cname, count, dt, &n, &e)))
        return err;
    err = PMPI_Type_create_struct(1, &n, &bytes, &e, type);
    rch_mpi_large_buf_done(e, dt);
    if (!err && (err = PMPI_Type_commit(type)))
        PMPI_Type_free(type);
    if (!err)
        *cnt = 1;
    return err;
}

MPI_Count rch_mpi_large_nprocs(MPI_Comm comm)
{
    const struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    return c ? c->size : 0;
}

MPI_Count rch_mpi_large_remote_size(MPI_Comm comm)
{
    const struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    return c ? c->peer_size : 0;
}

int rch_mpi_large_at_root(MPI_Comm comm, int root)
{
    const struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    return !c || (c->is_inter ? root == MPI_ROOT : c->rank == root);
}

MPI_Count rch_mpi_large_degree(MPI_Comm comm, int out)
{
    const struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c || !c->topo)
        return 0;
    return out ? c->topo->outdegree : c->topo->indegree;
}
