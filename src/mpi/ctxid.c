/*
 * Context ids and the small all-to-all exchange that communicator creation
 * needs (Comm_dup, Comm_split), independent of src/coll.
 *
 * A context id pair (ctx, ctx + 1) is free here if its bit is set in `freemask`.
 * Creating a communicator from a parent: every parent member sends its mask
 * (and, for split, its color and key) to parent rank 0, which ANDs the masks,
 * and sends the result and the table of contributions back to everyone; each
 * member then takes the lowest pair free everywhere. Cost: 2 (p - 1) messages
 * through rank 0, 2 message latencies; fine for the sizes this is for.
 *
 *      r1 ──up──┐               ┌──down──> r1
 *      r2 ──up──┼──> r0 (AND) ──┼──down──> r2
 *      r3 ──up──┘               └──down──> r3
 *
 * The messages travel on the parent's collective context with tags no
 * collective algorithm uses, so they never match user or collective traffic.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"

static struct rch_mpi_ctxmask freemask;

void rch_mpi_ctx_init(void)
{
    memset(&freemask, 0xff, sizeof(freemask));
    freemask.w[0] &= ~(uint64_t)3;     /* pair 0: world (ctx 0/1), pair 1: self (ctx 2/3) */
}

void rch_mpi_ctx_mine(struct rch_mpi_ctxmask *m)
{
    *m = freemask;
}

uint32_t rch_mpi_ctx_pick(const struct rch_mpi_ctxmask *m)
{
    for (unsigned i = 0; i < RCH_MPI_CTX_NB_FIRST / 64; i++)
        if (m->w[i])
            return 2u * (i * 64u + (unsigned)__builtin_ctzll(m->w[i]));
    return UINT32_MAX;
}

uint32_t rch_mpi_ctx_pick_nb(const struct rch_mpi_ctxmask *m, unsigned start)
{
    unsigned n = RCH_MPI_CTX_PAIRS - RCH_MPI_CTX_NB_FIRST;
    for (unsigned k = 0; k < n; k++) {
        unsigned pair = RCH_MPI_CTX_NB_FIRST + (start + k) % n;
        if (m->w[pair / 64] & ((uint64_t)1 << (pair % 64)))
            return 2u * pair;
    }
    return UINT32_MAX;
}

int rch_mpi_ctx_try_take(uint32_t ctx)
{
    uint32_t pair = ctx / 2;
    if (!(freemask.w[pair / 64] & ((uint64_t)1 << (pair % 64))))
        return 0;
    rch_mpi_ctx_take(ctx);
    return 1;
}

void rch_mpi_ctx_take(uint32_t ctx)
{
    uint32_t pair = ctx / 2;
    freemask.w[pair / 64] &= ~((uint64_t)1 << (pair % 64));
}

void rch_mpi_ctx_release(uint32_t ctx)
{
    uint32_t pair = ctx / 2;
    if (pair >= 2 && pair < RCH_MPI_CTX_PAIRS)
        freemask.w[pair / 64] |= (uint64_t)1 << (pair % 64);
}

rdmach_status_t rch_mpi_wait_free(struct rch_dev_req *r)
{
    if (!r)
        return RDMACH_OK;
    rdmach_status_t st = rch_dev_wait(r);
    if (st == RDMACH_OK)
        st = r->err;
    rch_dev_req_free(r);
    return st;
}

rdmach_status_t rch_mpi_exchange(struct rch_mpi_comm *c, const void *mine, size_t bytes, void *all,
                                 struct rch_mpi_ctxmask *m)
{
    size_t mbytes = m ? sizeof(*m) : 0;
    size_t up = bytes + mbytes, down = (size_t)c->size * bytes + mbytes;
    uint32_t ctx = c->ctx + 1;
    rdmach_status_t st = RDMACH_OK;

    if (c->size == 1) {
        if (bytes)
            memcpy(all, mine, bytes);
        return RDMACH_OK;
    }
    if (c->rank != 0) {
        char *buf = malloc(up > down ? up : down);
        if (!buf)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "communicator creation: out of memory");
        if (bytes)
            memcpy(buf, mine, bytes);
        if (m)
            memcpy(buf + bytes, m, mbytes);
        struct rch_dev_req *s = NULL, *r = NULL;
        st = rch_dev_isend(buf, up, c->world_of[0], c->rank, RCH_MPI_TAG_EXCH_UP, ctx,
                           RCH_DEV_SEND_STD, &s);
        if (st == RDMACH_OK)
            st = rch_mpi_wait_free(s);
        if (st == RDMACH_OK)
            st = rch_dev_irecv(buf, down, 0, RCH_MPI_TAG_EXCH_DOWN, ctx, &r);
        if (st == RDMACH_OK)
            st = rch_mpi_wait_free(r);
        if (st == RDMACH_OK) {
            if (bytes)
                memcpy(all, buf, (size_t)c->size * bytes);
            if (m)
                memcpy(m, buf + (size_t)c->size * bytes, mbytes);
        }
        free(buf);
        return st;
    }

    /* Rank 0: gather, AND, broadcast. */
    int n = c->size - 1;
    char *in = malloc((size_t)n * up + down);
    struct rch_dev_req **reqs = calloc((size_t)n, sizeof(*reqs));
    if (!in || !reqs) {
        free(in);
        free(reqs);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "communicator creation: out of memory");
    }
    char *out = in + (size_t)n * up;
    for (int i = 0; i < n && st == RDMACH_OK; i++)
        st = rch_dev_irecv(in + (size_t)i * up, up, i + 1, RCH_MPI_TAG_EXCH_UP, ctx, &reqs[i]);
    for (int i = 0; i < n; i++) {
        rdmach_status_t s2 = rch_mpi_wait_free(reqs[i]);   /* NULL (not posted) is fine */
        if (st == RDMACH_OK)
            st = s2;
        reqs[i] = NULL;
    }
    if (st == RDMACH_OK) {
        if (bytes)
            memcpy(out, mine, bytes);
        struct rch_mpi_ctxmask acc;
        if (m)
            acc = *m;
        for (int i = 0; i < n; i++) {
            const char *p = in + (size_t)i * up;
            if (bytes)
                memcpy(out + (size_t)(i + 1) * bytes, p, bytes);
            if (m) {
                struct rch_mpi_ctxmask o;
                memcpy(&o, p + bytes, sizeof(o));
                for (unsigned w = 0; w < RCH_ARRAY_SIZE(acc.w); w++)
                    acc.w[w] &= o.w[w];
            }
        }
        if (m) {
            memcpy(out + (size_t)c->size * bytes, &acc, sizeof(acc));
            *m = acc;
        }
        for (int i = 0; i < n && st == RDMACH_OK; i++)
            st = rch_dev_isend(out, down, c->world_of[i + 1], 0, RCH_MPI_TAG_EXCH_DOWN, ctx,
                               RCH_DEV_SEND_STD, &reqs[i]);
        for (int i = 0; i < n; i++) {
            rdmach_status_t s2 = rch_mpi_wait_free(reqs[i]);
            if (st == RDMACH_OK)
                st = s2;
        }
        if (st == RDMACH_OK && bytes)
            memcpy(all, out, (size_t)c->size * bytes);
    }
    free(reqs);
    free(in);
    return st;
}
