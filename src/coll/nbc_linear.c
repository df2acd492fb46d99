/*
 * Igather(v), Iscatter(v), Iallgather(v), Ialltoall(v) as one-round
 * schedules: every message of the collective is posted at once and the
 * progress engine completes them in whatever order they arrive.
 *
 * Idea: for a non-blocking collective the number of rounds, not of
 * messages, decides how often the caller must progress it; one round with
 * every receive posted first (so rendezvous data lands directly) and every
 * send after. The rank's own block is copied locally.
 *
 *   igather (root 0)     iallgather            ialltoall
 *   1 ─┐                 0 ⇄ 1                 every i ⇄ j, block (i, j)
 *   2 ─┼─► 0             ⇅ ╳ ⇅
 *   3 ─┘                 3 ⇄ 2
 *
 * Restrictions: none; in-place variants as in coll.h (alltoall in place
 * copies the send blocks to scratch first).
 * Cost: one round; gather/scatter: the root handles p - 1 messages
 * ((p - 1)(alpha + n beta)); allgather and alltoall: p - 1 messages in and
 * out at every rank.
 */
#include "coll/nbc_impl.h"

static rdmach_status_t finish(struct rch_nbc_sched *s, rdmach_status_t st, struct rch_dev_req *req)
{
    if (st != RDMACH_OK) {
        rch_nbc_free(s);
        return st;
    }
    return rch_nbc_start(s, req);
}

/* Gather and gatherv: block i is counts[i] bytes at rbuf + displs[i] (NULL
 * counts: `bytes` at i * bytes). */
static rdmach_status_t gatherv(const struct rch_coll_comm *c, const char *name, const void *sbuf,
                               size_t sbytes, void *rbuf, size_t bytes, const size_t *counts,
                               const size_t *displs, int root, struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, name, NULL, &s);
    if (st != RDMACH_OK)
        return st;
    unsigned char *r = rbuf;
    if (c->rank != root) {
        st = rch_nbc_send(s, sbuf, sbytes, root, 0);
        return finish(s, st, req);
    }
    for (int i = 0; i < c->size && st == RDMACH_OK; i++) {
        size_t len = counts ? counts[i] : bytes, off = displs ? displs[i] : (size_t)i * bytes;
        if (i != root)
            st = rch_nbc_recv(s, r + off, len, i, 0);
        else if (sbuf != RCH_COLL_IN_PLACE)
            st = rch_nbc_copy(s, r + off, sbuf, len);
    }
    return finish(s, st, req);
}

rdmach_status_t rch_coll_igather(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                 size_t bytes, int root, struct rch_dev_req *req)
{
    return gatherv(c, "igather", sbuf, bytes, rbuf, bytes, NULL, NULL, root, req);
}

rdmach_status_t rch_coll_igatherv(const struct rch_coll_comm *c, const void *sbuf, size_t sbytes,
                                  void *rbuf, const size_t *rcounts, const size_t *rdispls, int root,
                                  struct rch_dev_req *req)
{
    return gatherv(c, "igatherv", sbuf, sbytes, rbuf, 0, rcounts, rdispls, root, req);
}

static rdmach_status_t scatterv(const struct rch_coll_comm *c, const char *name, const void *sbuf,
                                size_t bytes, const size_t *counts, const size_t *displs, void *rbuf,
                                size_t rbytes, int root, struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, name, NULL, &s);
    if (st != RDMACH_OK)
        return st;
    const unsigned char *b = sbuf;
    if (c->rank != root) {
        st = rch_nbc_recv(s, rbuf, rbytes, root, 0);
        return finish(s, st, req);
    }
    for (int i = 0; i < c->size && st == RDMACH_OK; i++) {
        size_t len = counts ? counts[i] : bytes, off = displs ? displs[i] : (size_t)i * bytes;
        if (i != root)
            st = rch_nbc_send(s, b + off, len, i, 0);
        else if (rbuf != RCH_COLL_IN_PLACE)
            st = rch_nbc_copy(s, rbuf, b + off, len);
    }
    return finish(s, st, req);
}

rdmach_status_t rch_coll_iscatter(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                  size_t bytes, int root, struct rch_dev_req *req)
{
    return scatterv(c, "iscatter", sbuf, bytes, NULL, NULL, rbuf, bytes, root, req);
}

rdmach_status_t rch_coll_iscatterv(const struct rch_coll_comm *c, const void *sbuf,
                                   const size_t *scounts, const size_t *sdispls, void *rbuf,
                                   size_t rbytes, int root, struct rch_dev_req *req)
{
    return scatterv(c, "iscatterv", sbuf, 0, scounts, sdispls, rbuf, rbytes, root, req);
}

static rdmach_status_t allgatherv(const struct rch_coll_comm *c, const char *name, const void *sbuf,
                                  void *rbuf, size_t bytes, const size_t *counts,
                                  const size_t *displs, struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, name, NULL, &s);
    if (st != RDMACH_OK)
        return st;
    unsigned char *r = rbuf;
    int me = c->rank, p = c->size;
    size_t mylen = counts ? counts[me] : bytes, myoff = displs ? displs[me] : (size_t)me * bytes;
    const void *mine = sbuf == RCH_COLL_IN_PLACE ? r + myoff : sbuf;
    for (int i = 0; i < p && st == RDMACH_OK; i++) {
        size_t len = counts ? counts[i] : bytes, off = displs ? displs[i] : (size_t)i * bytes;
        if (i != me)
            st = rch_nbc_recv(s, r + off, len, i, 0);
    }
    for (int k = 1; k < p && st == RDMACH_OK; k++)
        st = rch_nbc_send(s, mine, mylen, (me + k) % p, 0);
    if (st == RDMACH_OK)
        st = rch_nbc_copy(s, r + myoff, mine, mylen);
    return finish(s, st, req);
}

rdmach_status_t rch_coll_iallgather(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                    size_t bytes, struct rch_dev_req *req)
{
    return allgatherv(c, "iallgather", sbuf, rbuf, bytes, NULL, NULL, req);
}

rdmach_status_t rch_coll_iallgatherv(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                     const size_t *rcounts, const size_t *rdispls,
                                     struct rch_dev_req *req)
{
    return allgatherv(c, "iallgatherv", sbuf, rbuf, 0, rcounts, rdispls, req);
}

/* Alltoall (counts NULL: blocks of `bytes`) and alltoallv. */
static rdmach_status_t alltoallv(const struct rch_coll_comm *c, const char *name, const void *sbuf,
                                 size_t bytes, const size_t *scounts, const size_t *sdispls,
                                 void *rbuf, const size_t *rcounts, const size_t *rdispls,
                                 struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, name, NULL, &s);
    if (st != RDMACH_OK)
        return st;
    int me = c->rank, p = c->size;
    unsigned char *r = rbuf;
    const unsigned char *src = sbuf;
    if (sbuf == RCH_COLL_IN_PLACE) {
        /* the send layout is the receive layout: copy it out first */
        size_t end = 0;
        for (int i = 0; i < p; i++) {
            size_t e = rcounts ? rdispls[i] + rcounts[i] : (size_t)(i + 1) * bytes;
            if (e > end)
                end = e;
        }
        unsigned char *tmp = rch_nbc_tmp(s, end, &st);
        if (st == RDMACH_OK)
            st = rch_nbc_copy(s, tmp, r, end);
        if (st == RDMACH_OK)
            st = rch_nbc_round(s);
        src = tmp;
        scounts = rcounts;
        sdispls = rdispls;
    }
    for (int k = 1; k < p && st == RDMACH_OK; k++) {
        int i = (me - k + p) % p;
        st = rch_nbc_recv(s, r + (rcounts ? rdispls[i] : (size_t)i * bytes),
                          rcounts ? rcounts[i] : bytes, i, 0);
    }
    for (int k = 1; k < p && st == RDMACH_OK; k++) {
        int j = (me + k) % p;
        st = rch_nbc_send(s, src + (scounts ? sdispls[j] : (size_t)j * bytes),
                          scounts ? scounts[j] : bytes, j, 0);
    }
    if (st == RDMACH_OK)
        st = rch_nbc_copy(s, r + (rcounts ? rdispls[me] : (size_t)me * bytes),
                          src + (scounts ? sdispls[me] : (size_t)me * bytes),
                          rcounts ? rcounts[me] : bytes);
    return finish(s, st, req);
}

rdmach_status_t rch_coll_ialltoall(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                   size_t bytes, struct rch_dev_req *req)
{
    return alltoallv(c, "ialltoall", sbuf, bytes, NULL, NULL, rbuf, NULL, NULL, req);
}

rdmach_status_t rch_coll_ialltoallv(const struct rch_coll_comm *c, const void *sbuf,
                                    const size_t *scounts, const size_t *sdispls, void *rbuf,
                                    const size_t *rcounts, const size_t *rdispls,
                                    struct rch_dev_req *req)
{
    return alltoallv(c, "ialltoallv", sbuf, 0, scounts, sdispls, rbuf, rcounts, rdispls, req);
}
