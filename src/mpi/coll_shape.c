/*
 * Checks and staging of the collective bindings by shape (coll_bind.h):
 * the blocking binding (coll_*.c) and its non-blocking form (coll_nb*.c)
 * check the same arguments in the same order and stage the same buffers,
 * so both call the one function of their shape here.
 *
 *   shape                     calls
 *   one block per rank        Gather, Allgather, Alltoall (gathered)
 *                             Scatter (scattered)
 *   v: counts + displs        Gatherv, Allgatherv, Scatterv, Alltoallv/w
 *   one vector, reduced       Reduce, Allreduce, Scan, Exscan
 *   vector reduced, split     Reduce_scatter, Reduce_scatter_block
 *
 * MPI_IN_PLACE is taken only where the call allows it (a root's sendbuf of
 * gather, its recvbuf of scatter, any rank's sendbuf of an all- shape);
 * elsewhere the buffer checks refuse it by name.
 */
#include <limits.h>
#include "mpi/coll_bind.h"

/* ---- one block per rank ---- */

/* Gathered: `whole` ranks receive the p blocks (the root; every rank of an
 * all- shape); `what` names the own block in a size-mismatch message. */
static int check_gathered(const char *fn, struct rch_mpi_comm *c, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int whole, const char *what,
                          struct rch_mpi_coll_args *a)
{
    int err;
    *a = (struct rch_mpi_coll_args){ .is_root = whole,
                                     .in_place = whole && sendbuf == MPI_IN_PLACE };
    if (!a->in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcount, sendtype, "sendbuf",
                                                      "sendcount", "sendtype", &a->st)))
        return err;
    if (!whole) {
        a->block = (size_t)sendcount * a->st->size;
        return MPI_SUCCESS;
    }
    if ((err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcount, recvtype, "recvbuf", "recvcount",
                                      "recvtype", &a->rt)) ||
        (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, recvcount > 0 && a->rt->size > 0)))
        return err;
    a->block = (size_t)recvcount * a->rt->size;
    if (!a->in_place)
        return rch_mpi_coll_check_self(fn, c, (size_t)sendcount * a->st->size, a->block, what);
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_gather(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                              int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                              int recvcount, MPI_Datatype recvtype, int root,
                              struct rch_mpi_coll_args *a)
{
    return check_gathered(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                          c->rank == root, "root block", a);
}

int rch_mpi_coll_check_allgather(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                 int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, struct rch_mpi_coll_args *a)
{
    return check_gathered(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 1,
                          "own block", a);
}

int rch_mpi_coll_check_alltoall(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, struct rch_mpi_coll_args *a)
{
    return check_gathered(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 1,
                          "block size", a);
}

int rch_mpi_coll_check_scatter(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                               int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, int root,
                               struct rch_mpi_coll_args *a)
{
    int err, whole = c->rank == root;
    *a = (struct rch_mpi_coll_args){ .is_root = whole,
                                     .in_place = whole && recvbuf == MPI_IN_PLACE };
    if (!a->in_place && (err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcount, recvtype, "recvbuf",
                                                      "recvcount", "recvtype", &a->rt)))
        return err;
    if (!whole) {
        a->block = (size_t)recvcount * a->rt->size;
        return MPI_SUCCESS;
    }
    if ((err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcount, sendtype, "sendbuf", "sendcount",
                                      "sendtype", &a->st)) ||
        (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, sendcount > 0 && a->st->size > 0)))
        return err;
    a->block = (size_t)sendcount * a->st->size;
    if (!a->in_place)
        return rch_mpi_coll_check_self(fn, c, a->block, (size_t)recvcount * a->rt->size,
                                       "root block");
    return MPI_SUCCESS;
}

/* ---- v variants ---- */

/* The size of block i of a vector side: counts[i] elements of its type. */
static size_t vbytes(const int *counts, int i, const struct rch_mpi_type *t, const struct rch_mpi_type *const *tv)
{
    return (size_t)counts[i] * (tv ? tv[i] : t)->size;
}

/* Gatherv (root >= 0: the rank holding the vector) and Allgatherv (root <
 * 0: every rank). A gatherv root's recvbuf must be a buffer even when its
 * own block is empty, so it is checked against that block first (with
 * per-peer types the blocks' displacements are in their types: each is
 * checked where it has data). */
static int check_gathered_v(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                            int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                            const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                            const MPI_Datatype *recvtypes, int root, const struct rch_mpi_type **rtv,
                            struct rch_mpi_coll_args *a)
{
    int err, me = c->rank, whole = root < 0 || me == root;
    *a = (struct rch_mpi_coll_args){ .is_root = whole,
                                     .in_place = whole && sendbuf == MPI_IN_PLACE };
    if (!a->in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcount, sendtype, "sendbuf",
                                                      "sendcount", "sendtype", &a->st)))
        return err;
    if (!whole) {
        a->block = (size_t)sendcount * a->st->size;
        return MPI_SUCCESS;
    }
    if ((err = rch_mpi_coll_check_counts(fn, c, c->size, recvcounts, "recvcounts", displs, "displs")) ||
        (root >= 0 && !recvtypes &&
         (err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcounts[root], recvtype, "recvbuf",
                                       "recvcounts[root]", "recvtype", NULL))) ||
        (err = rch_mpi_coll_check_blocks(fn, c, recvbuf, c->size, recvcounts, recvtype, recvtypes, "recvbuf",
                                         "recvcounts[i]", "recvtype", &a->rt, rtv)) ||
        (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, sendcount > 0 && a->st && a->st->size > 0)))
        return err;
    size_t mine = vbytes(recvcounts, me, a->rt, recvtypes ? rtv : NULL);
    if (!a->in_place &&
        (err = rch_mpi_coll_check_self(fn, c, (size_t)sendcount * a->st->size, mine,
                                       root >= 0 ? "root block" : "own block")))
        return err;
    a->block = a->in_place ? mine : (size_t)sendcount * a->st->size;
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_gatherv(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                               int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                               const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                               const MPI_Datatype *recvtypes, int root, const struct rch_mpi_type **rtv,
                               struct rch_mpi_coll_args *a)
{
    return check_gathered_v(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                            recvtype, recvtypes, root, rtv, a);
}

int rch_mpi_coll_check_allgatherv(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                  int sendcount, MPI_Datatype sendtype, const void *recvbuf,
                                  const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                                  const MPI_Datatype *recvtypes, const struct rch_mpi_type **rtv,
                                  struct rch_mpi_coll_args *a)
{
    return check_gathered_v(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                            recvtype, recvtypes, -1, rtv, a);
}

int rch_mpi_coll_check_scatterv(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                const int *sendcounts, const int *displs, MPI_Datatype sendtype,
                                const MPI_Datatype *sendtypes, const void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root, const struct rch_mpi_type **stv,
                                struct rch_mpi_coll_args *a)
{
    int err, whole = c->rank == root;
    *a = (struct rch_mpi_coll_args){ .is_root = whole,
                                     .in_place = whole && recvbuf == MPI_IN_PLACE };
    if (!a->in_place && (err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcount, recvtype, "recvbuf",
                                                      "recvcount", "recvtype", &a->rt)))
        return err;
    if (!whole) {
        a->block = (size_t)recvcount * a->rt->size;
        return MPI_SUCCESS;
    }
    if ((err = rch_mpi_coll_check_counts(fn, c, c->size, sendcounts, "sendcounts", displs, "displs")) ||
        (err = rch_mpi_coll_check_blocks(fn, c, sendbuf, c->size, sendcounts, sendtype, sendtypes, "sendbuf",
                                         "sendcounts[i]", "sendtype", &a->st, stv)) ||
        (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, recvcount > 0 && a->rt && a->rt->size > 0)))
        return err;
    size_t mine = vbytes(sendcounts, root, a->st, sendtypes ? stv : NULL);
    if (!a->in_place &&
        (err = rch_mpi_coll_check_self(fn, c, mine, (size_t)recvcount * a->rt->size, "root block")))
        return err;
    a->block = a->in_place ? mine : (size_t)recvcount * a->rt->size;
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_alltoallv(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                 const int *sendcounts, const int *sdispls, MPI_Datatype sendtype,
                                 const MPI_Datatype *sendtypes, const void *recvbuf,
                                 const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                                 const MPI_Datatype *recvtypes, const struct rch_mpi_type **stv,
                                 const struct rch_mpi_type **rtv, struct rch_mpi_coll_args *a)
{
    int err, p = c->size, me = c->rank;
    *a = (struct rch_mpi_coll_args){ .is_root = 1, .in_place = sendbuf == MPI_IN_PLACE };
    if (!a->in_place &&
        ((err = rch_mpi_coll_check_counts(fn, c, p, sendcounts, "sendcounts", sdispls, "sdispls")) ||
         (err = rch_mpi_coll_check_blocks(fn, c, sendbuf, p, sendcounts, sendtype, sendtypes,
                                          "sendbuf", "sendcounts",
                                          sendtypes ? "sendtypes" : "sendtype", &a->st, stv))))
        return err;
    if ((err = rch_mpi_coll_check_counts(fn, c, p, recvcounts, "recvcounts", rdispls, "rdispls")) ||
        (err = rch_mpi_coll_check_blocks(fn, c, recvbuf, p, recvcounts, recvtype, recvtypes,
                                         "recvbuf", "recvcounts",
                                         recvtypes ? "recvtypes" : "recvtype", &a->rt, rtv)))
        return err;
    if (a->in_place)
        return MPI_SUCCESS;
    int data = 0;
    for (int i = 0; i < p; i++)
        data |= recvcounts[i] > 0;
    if ((err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, data)))
        return err;
    size_t s_me = (size_t)sendcounts[me] * (sendtypes ? stv[me] : a->st)->size;
    size_t r_me = (size_t)recvcounts[me] * (recvtypes ? rtv[me] : a->rt)->size;
    return rch_mpi_coll_check_self(fn, c, s_me, r_me, "own block");
}

/* ---- reductions ---- */

/* One vector of count elements: `whole` ranks receive the result. */
static int check_reduced(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                         const void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int whole,
                         struct rch_mpi_red *red, struct rch_mpi_coll_args *a)
{
    const struct rch_mpi_type *t;
    int err;
    if ((err = rch_mpi_coll_check_count(fn, c, count, "count")) ||
        (err = rch_mpi_coll_check_type(fn, c, datatype, "datatype", &t)) ||
        (err = rch_mpi_red_bind(fn, c, op, datatype, t, 0, red)))
        return err;
    *a = (struct rch_mpi_coll_args){ .st = t, .rt = t, .is_root = whole,
                                     .in_place = whole && sendbuf == MPI_IN_PLACE,
                                     .block = (size_t)count * t->size };
    if (!a->in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, count, datatype, "sendbuf",
                                                      "count", "datatype", NULL)))
        return err;
    if (whole && ((err = rch_mpi_coll_check_buf(fn, c, recvbuf, count, datatype, "recvbuf", "count",
                                                "datatype", NULL)) ||
                  (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, count > 0 && t->size > 0))))
        return err;
    return MPI_SUCCESS;
}

int rch_mpi_coll_check_reduce(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                              const void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              int root, struct rch_mpi_red *red, struct rch_mpi_coll_args *a)
{
    return check_reduced(fn, c, sendbuf, recvbuf, count, datatype, op, c->rank == root, red, a);
}

int rch_mpi_coll_check_allreduce(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                 const void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                 struct rch_mpi_red *red, struct rch_mpi_coll_args *a)
{
    return check_reduced(fn, c, sendbuf, recvbuf, count, datatype, op, 1, red, a);
}

/* Block i of a reduce_scatter: wide[i], recvcounts[i] or block. */
static size_t rs_count(const int *recvcounts, const MPI_Count *wide, int block, int i)
{
    return wide ? (size_t)wide[i] : (size_t)(recvcounts ? recvcounts[i] : block);
}

int rch_mpi_coll_check_reduce_scatter(const char *fn, struct rch_mpi_comm *c, const void *sendbuf,
                                      const void *recvbuf, const int *recvcounts, const MPI_Count *wide,
                                      int block, MPI_Datatype datatype, MPI_Op op, struct rch_mpi_red *red,
                                      struct rch_mpi_coll_args *a, size_t *total, size_t *mine)
{
    const struct rch_mpi_type *t;
    int err = MPI_SUCCESS;
    for (int i = 0; wide && i < c->size; i++)
        if (wide[i] < 0)
            return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: negative count %lld in argument recvcounts[%d]", fn,
                               (long long)wide[i], i);
    if (!wide && (err = recvcounts ? rch_mpi_coll_check_array(fn, c, recvcounts, c->size, "recvcounts", 1)
                                   : rch_mpi_coll_check_count(fn, c, block, "recvcount")))
        return err;
    *total = 0;
    for (int i = 0; i < c->size; i++)
        *total += rs_count(recvcounts, wide, block, i);
    *mine = rs_count(recvcounts, wide, block, c->rank);
    int in_place = sendbuf == MPI_IN_PLACE;
    /* for the NULL checks */
    int total_int = *total > (size_t)INT_MAX ? INT_MAX : (int)*total;
    int mine_int = *mine > (size_t)INT_MAX ? INT_MAX : (int)*mine;
    const char *countarg = recvcounts ? "recvcounts" : "recvcount";

    if ((err = rch_mpi_coll_check_type(fn, c, datatype, "datatype", &t)) ||
        (err = rch_mpi_red_bind(fn, c, op, datatype, t, 0, red)) ||
        (!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, total_int, datatype, "sendbuf",
                                                    countarg, "datatype", NULL))) ||
        (err = rch_mpi_coll_check_buf(fn, c, recvbuf, in_place ? total_int : mine_int, datatype,
                                      "recvbuf", countarg, "datatype", NULL)) ||
        (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, *total > 0 && t->size > 0)))
        return err;
    *a = (struct rch_mpi_coll_args){ .st = t, .rt = t, .is_root = 1, .in_place = in_place,
                                     .block = *mine * t->size };
    return MPI_SUCCESS;
}

/* ---- staging ---- */

/* Copy block i (count elements of t) of buf into the staging copy r, which
 * holds such blocks back to back (no-op when r is the user's buffer). */
static void stage_own_block(struct rch_mpi_stage *r, const void *buf, int i, int count,
                            const struct rch_mpi_type *t)
{
    if (r->tmp)
        rch_mpi_pack_n((const char *)buf + (MPI_Aint)i * count * t->extent, (size_t)count, t,
                       (char *)r->tmp + (size_t)i * count * t->size);
}

int rch_mpi_stage_gather(const char *fn, struct rch_mpi_comm *c, const struct rch_mpi_coll_args *a,
                         const void *sendbuf, int sendcount, void *recvbuf, int recvcount,
                         struct rch_mpi_stage *s, struct rch_mpi_stage *r)
{
    int err;
    if (!a->in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)sendcount, a->st, s)))
        return err;
    if (!a->is_root)
        return MPI_SUCCESS;
    if ((err = rch_mpi_stage_out(fn, c, recvbuf, (size_t)c->size * (size_t)recvcount, a->rt, r))) {
        rch_mpi_stage_free(s);
        return err;
    }
    if (a->in_place)
        stage_own_block(r, recvbuf, c->rank, recvcount, a->rt);
    return MPI_SUCCESS;
}

int rch_mpi_stage_scatter(const char *fn, struct rch_mpi_comm *c, const struct rch_mpi_coll_args *a,
                          const void *sendbuf, int sendcount, void *recvbuf, int recvcount,
                          struct rch_mpi_stage *s, struct rch_mpi_stage *r)
{
    int err;
    if (a->is_root &&
        (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)c->size * (size_t)sendcount, a->st, s)))
        return err;
    if (!a->in_place && (err = rch_mpi_stage_out(fn, c, recvbuf, (size_t)recvcount, a->rt, r))) {
        rch_mpi_stage_free(s);
        return err;
    }
    return MPI_SUCCESS;
}

int rch_mpi_stage_gatherv(const char *fn, struct rch_mpi_comm *c, const struct rch_mpi_coll_args *a,
                          const void *sendbuf, int sendcount, void *recvbuf, const int *counts,
                          const int *displs, const struct rch_mpi_type *const *tv, struct rch_mpi_stage *s,
                          struct rch_mpi_vstage *rv)
{
    int err;
    if (!a->in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)sendcount, a->st, s)))
        return err;
    if (!a->is_root)
        return MPI_SUCCESS;
    if ((err = rch_mpi_vstage_init(fn, c, recvbuf, c->size, counts, displs, 1, a->rt, tv, rv))) {
        rch_mpi_stage_free(s);
        return err;
    }
    if (a->in_place)
        rch_mpi_vstage_pack(rv, c->rank);
    return MPI_SUCCESS;
}

int rch_mpi_stage_scatterv(const char *fn, struct rch_mpi_comm *c, const struct rch_mpi_coll_args *a,
                           const void *sendbuf, const int *counts, const int *displs,
                           const struct rch_mpi_type *const *tv, void *recvbuf, int recvcount,
                           struct rch_mpi_vstage *sv, struct rch_mpi_stage *r)
{
    int err;
    if (a->is_root) {
        if ((err = rch_mpi_vstage_init(fn, c, (void *)sendbuf, c->size, counts, displs, 1, a->st, tv, sv)))
            return err;
        rch_mpi_vstage_pack_all(sv);
    }
    if (!a->in_place && (err = rch_mpi_stage_out(fn, c, recvbuf, (size_t)recvcount, a->rt, r))) {
        rch_mpi_vstage_free(sv);
        return err;
    }
    return MPI_SUCCESS;
}

int rch_mpi_stage_sendrecv(const char *fn, struct rch_mpi_comm *c, int in_place, int receives,
                           const void *sendbuf, size_t scount, const struct rch_mpi_type *st,
                           void *recvbuf, size_t rcount, const struct rch_mpi_type *rt,
                           struct rch_mpi_stage *s, struct rch_mpi_stage *r)
{
    int err;
    if (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, scount, st, s)))
        return err;
    if (!receives)
        return MPI_SUCCESS;
    err = in_place ? rch_mpi_stage_in(fn, c, recvbuf, rcount, rt, r)
                   : rch_mpi_stage_out(fn, c, recvbuf, rcount, rt, r);
    if (err)
        rch_mpi_stage_free(s);
    return err;
}

int rch_mpi_stage_end(const char *fn, struct rch_mpi_comm *c, rdmach_status_t st,
                      struct rch_mpi_stage *s, struct rch_mpi_stage *r, void *buf, size_t count,
                      const struct rch_mpi_type *t, int unpack)
{
    if (s)
        rch_mpi_stage_free(s);
    if (st != RDMACH_OK) {
        rch_mpi_stage_free(r);
        return rch_mpi_coll_fail(fn, c, st);
    }
    if (unpack)
        rch_mpi_stage_done(r, buf, count, t);
    else
        rch_mpi_stage_free(r);
    return MPI_SUCCESS;
}

int rch_mpi_vstage_end(const char *fn, struct rch_mpi_comm *c, rdmach_status_t st,
                       struct rch_mpi_vstage *v, int unpack)
{
    if (st == RDMACH_OK && unpack)
        rch_mpi_vstage_unpack_all(v);
    rch_mpi_vstage_free(v);
    return st == RDMACH_OK ? MPI_SUCCESS : rch_mpi_coll_fail(fn, c, st);
}
