/*
 * Argument checks of the collective bindings. Every message names the MPI
 * function and the argument, as the point-to-point checks do:
 *   "MPI_Gather: invalid root 7 in argument root (communicator size 4)".
 */
#include <stdio.h>
#include <stdlib.h>
#include "mpi/coll_bind.h"

static const char *type_text(MPI_Datatype dt, const struct rch_mpi_type *t, char *buf, size_t len)
{
    if (t && t->name[0])
        snprintf(buf, len, "%s", t->name);
    else if (dt == MPI_DATATYPE_NULL)
        snprintf(buf, len, "MPI_DATATYPE_NULL");
    else
        snprintf(buf, len, "0x%x", (unsigned)dt);
    return buf;
}

int rch_mpi_coll_begin(const char *fn, MPI_Comm comm, struct rch_mpi_comm **cp)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad(fn, comm);
    if (c->is_inter)
        return rch_mpi_err(comm, MPI_ERR_COMM, "%s: argument comm is an intercommunicator (this call is defined "
                           "on intracommunicators only)", fn);
    *cp = c;
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_root(const char *fn, struct rch_mpi_comm *c, int root)
{
    if (root < 0 || root >= c->size)
        return rch_mpi_err(c->handle, MPI_ERR_ROOT,
                           "%s: invalid root %d in argument root (communicator size %d)", fn, root,
                           c->size);
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_type(const char *fn, struct rch_mpi_comm *c, MPI_Datatype dt,
                            const char *typearg, const struct rch_mpi_type **tp)
{
    char d[MPI_MAX_OBJECT_NAME + 16];
    const struct rch_mpi_type *t = rch_mpi_type_get(dt);
    if (!t)
        return rch_mpi_err(c->handle, MPI_ERR_TYPE, "%s: invalid datatype %s in argument %s", fn,
                           type_text(dt, NULL, d, sizeof(d)), typearg);
    if (!t->committed)
        return rch_mpi_err(c->handle, MPI_ERR_TYPE,
                           "%s: datatype %s in argument %s is not committed (call MPI_Type_commit "
                           "first)", fn, type_text(dt, t, d, sizeof(d)), typearg);
    if (tp)
        *tp = t;
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_type_if(const char *fn, struct rch_mpi_comm *c, MPI_Datatype dt, int has_data,
                               const char *typearg, const struct rch_mpi_type **tp)
{
    if (has_data)
        return rch_mpi_coll_check_type(fn, c, dt, typearg, tp);
    if (tp)
        *tp = rch_mpi_type_of_empty(dt);   /* not examined: MPICH checks it only with data (pt2pt.c) */
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_count(const char *fn, struct rch_mpi_comm *c, int count, const char *countarg)
{
    if (count < 0)
        return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: negative count %d in argument %s", fn,
                           count, countarg);
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_buf(const char *fn, struct rch_mpi_comm *c, const void *buf, int count,
                           MPI_Datatype dt, const char *bufarg, const char *countarg,
                           const char *typearg, const struct rch_mpi_type **tp)
{
    const struct rch_mpi_type *t;
    int err;
    if ((err = rch_mpi_coll_check_count(fn, c, count, countarg)) ||
        (err = rch_mpi_coll_check_type_if(fn, c, dt, count > 0, typearg, &t)))
        return err;
    if (buf == MPI_IN_PLACE)
        return rch_mpi_err(c->handle, MPI_ERR_BUFFER,
                           "%s: MPI_IN_PLACE is not allowed in argument %s here", fn, bufarg);
    if (!buf && count > 0 && t->size > 0 && !rch_mpi_type_bottom_ok(t, count))
        return rch_mpi_err(c->handle, MPI_ERR_BUFFER,
                           "%s: NULL pointer in argument %s with %s %d", fn, bufarg, countarg, count);
    if (tp)
        *tp = t;
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_array(const char *fn, struct rch_mpi_comm *c, const int *a, int n,
                             const char *arg, int nonneg)
{
    if (!a && n > 0)
        return rch_mpi_err(c->handle, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn, arg);
    for (int i = 0; nonneg && i < n; i++)
        if (a[i] < 0)
            return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: negative value %d in %s[%d]", fn,
                               a[i], arg, i);
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_counts(const char *fn, struct rch_mpi_comm *c, int n, const int *counts,
                              const char *countarg, const int *displs, const char *displsarg)
{
    int err = rch_mpi_coll_check_array(fn, c, counts, n, countarg, 1);
    return err ? err : rch_mpi_coll_check_array(fn, c, displs, n, displsarg, 0);
}

int rch_mpi_coll_check_blocks(const char *fn, struct rch_mpi_comm *c, const void *buf, int n,
                              const int *counts, MPI_Datatype dt, const MPI_Datatype *types,
                              const char *bufarg, const char *countarg, const char *typearg,
                              const struct rch_mpi_type **t, const struct rch_mpi_type **tv)
{
    int err, data = 0;
    for (int i = 0; i < n; i++)
        data |= counts[i] > 0;
    if (types) {
        for (int i = 0; i < n; i++)
            if ((err = rch_mpi_coll_check_type_if(fn, c, types[i], counts[i] > 0, typearg, tv ? &tv[i] : NULL)))
                return err;
    } else if ((err = rch_mpi_coll_check_type_if(fn, c, dt, data, typearg, t))) {
        return err;
    }
    for (int i = 0; i < n; i++)
        if (counts[i] > 0 &&
            (err = rch_mpi_coll_check_buf(fn, c, buf, counts[i], types ? types[i] : dt, bufarg,
                                          countarg, typearg, NULL)))
            return err;
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_alias(const char *fn, struct rch_mpi_comm *c, const void *sbuf,
                             const void *rbuf, int has_data)
{
    if (has_data && sbuf && sbuf == rbuf && sbuf != MPI_IN_PLACE)
        return rch_mpi_err(c->handle, MPI_ERR_BUFFER,
                           "%s: arguments sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)",
                           fn);
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_self(const char *fn, struct rch_mpi_comm *c, size_t sent, size_t expected,
                            const char *what)
{
    if (sent == expected)
        return MPI_SUCCESS;
    return rch_mpi_err(c->handle, sent > expected ? MPI_ERR_TRUNCATE : MPI_ERR_ARG,
                       "%s: %s: rank %d sends %zu bytes to itself but receives %zu (type "
                       "signatures of the send and receive arguments differ)", fn, what, c->rank,
                       sent, expected);
}

int rch_mpi_coll_fail(const char *fn, struct rch_mpi_comm *c, rdmach_status_t st)
{
    return rch_mpi_err(c->handle, rch_mpi_class_of(st), "%s: %s", fn, rdmach_last_error());
}

int rch_mpi_coll_nomem(const char *fn, struct rch_mpi_comm *c, size_t bytes)
{
    return rch_mpi_err(c->handle, MPI_ERR_NO_MEM, "%s: no memory for a %zu-byte temporary buffer",
                       fn, bytes);
}

const struct rch_mpi_type **rch_mpi_coll_tv(const char *fn, struct rch_mpi_comm *c, int *err)
{
    const struct rch_mpi_type **tv = calloc((size_t)c->size + 1, sizeof(*tv));
    *err = tv ? MPI_SUCCESS : rch_mpi_coll_nomem(fn, c, ((size_t)c->size + 1) * sizeof(*tv));
    return tv;
}
