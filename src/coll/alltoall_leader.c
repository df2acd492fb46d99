/*
 * Leader-based hierarchical alltoall(v): one core per node talks to the
 * network.
 *
 * Idea: the lowest rank of each node (its leader) gathers the whole send
 * buffer of every rank of its node (within the node the device moves
 * messages through shared memory), exchanges with every other leader one
 * message per node pair holding all blocks between the two nodes, and
 * scatters to each rank of its node its complete receive buffer. The network
 * sees N (N - 1) messages of n² blocks instead of p (p - n) messages of one
 * block, all injected by one core: best on offload NICs, which do the
 * protocol work themselves and congest when many cores inject at once.
 *
 * Data flow (N nodes, node k has n_k ranks, b bytes per block, leader L_k):
 *   1. gather   rank (k, j) -> L_k: its p send blocks in destination order
 *               (alltoallv: first its 2p counts, send and receive, as uint64)
 *   2. exchange L_k -> L_m, every m != k: blocks (k, j) -> (m, i) for all
 *               j < n_k, i < n_m, j-major (alltoallv: preceded by the n_k·n_m
 *               sizes, which L_m checks against the receivers' counts)
 *   3. scatter  L_k -> (k, i): the p blocks destined to (k, i), in source
 *               rank order (its receive buffer, packed)
 *   Blocks within node k never leave it: L_k moves them from the gathered
 *   buffers straight into the scatter buffers.
 *
 *      node 0            node 1
 *   r0 (L0) <- r1     r2 (L1) <- r3        1. gather (shared memory)
 *   L0 <=========================> L1     2. one message each way, 4 blocks
 *   r0 (L0) -> r1     r2 (L1) -> r3        3. scatter (shared memory)
 *
 * Restrictions: none: any layout, uneven nodes (every node's leader is its
 * lowest rank), a single node (then it is a gather and a scatter), in place
 * (members send before they can receive anything: the leader answers only
 * after their data has arrived). Leaders hold about 3 · n_k · p · b bytes.
 * Cost (n ranks per node): 2 (n - 1) (alpha_s + p b beta_s) at the leader
 * + (N - 1) (alpha_n + n² b beta_n) + about 3 n p b of copies at the leader.
 */
#include "base/base.h"
#include "coll/alltoall_impl.h"

/* ---- a member (not the leader) of a node ---- */

static rdmach_status_t member(struct rch_coll_a2a *x, const struct rch_coll_a2a_nodes *nm)
{
    const struct rch_coll_comm *c = x->c;
    int p = c->size, leader = rch_coll_a2a_rank_at(nm, nm->node, 0);
    size_t sbytes = 0, rbytes = 0;
    uint64_t *cnt = NULL;
    unsigned char *out = x->send.base, *in = x->recv.base;
    struct rch_coll_batch b;
    rdmach_status_t st;

    for (int q = 0; q < p; q++) {
        sbytes += rch_coll_a2a_len(&x->send, q);
        rbytes += rch_coll_a2a_len(&x->recv, q);
    }
    if (x->v) {
        /* counts first, then the send blocks packed in rank order */
        st = rch_coll_a2a_tmp(x, &cnt, RCH_COLL_A2A_HDR(2 * p));
        if (st == RDMACH_OK)
            st = rch_coll_a2a_tmp(x, &out, sbytes);
        if (st == RDMACH_OK)
            st = rch_coll_a2a_tmp(x, &in, rbytes);
        if (st != RDMACH_OK)
            return st;
        for (int q = 0; q < p; q++) {
            cnt[q] = rch_coll_a2a_len(&x->send, q);
            cnt[p + q] = rch_coll_a2a_len(&x->recv, q);
        }
        st = rch_coll_send(c, cnt, RCH_COLL_A2A_HDR(2 * p), leader, x->tag);
        if (st != RDMACH_OK)
            return st;
        size_t off = 0;
        for (int q = 0; q < p; q++) {
            rch_coll_a2a_copy(out + off, rch_coll_a2a_ptr(&x->send, q),
                              rch_coll_a2a_len(&x->send, q));
            off += rch_coll_a2a_len(&x->send, q);
        }
    }
    /* Receiving into the receive buffer while its send blocks (in place) are
     * still being read is safe: the leader answers only after all of them
     * have arrived. */
    st = rch_coll_batch_init(&b, c, x->tag, 2);
    if (st == RDMACH_OK)
        st = rch_coll_batch_recv(&b, in, rbytes, leader);
    if (st == RDMACH_OK)
        st = rch_coll_batch_send(&b, out, sbytes, leader);
    if (st == RDMACH_OK)
        st = rch_coll_batch_wait(&b);
    rch_coll_batch_free(&b);
    if (st == RDMACH_OK && x->v) {
        size_t off = 0;
        for (int q = 0; q < p; q++) {
            rch_coll_a2a_copy(rch_coll_a2a_ptr(&x->recv, q), in + off,
                              rch_coll_a2a_len(&x->recv, q));
            off += rch_coll_a2a_len(&x->recv, q);
        }
    }
    return st;
}

/* ---- the leader ---- */

struct lead {
    struct rch_coll_a2a *x;
    const struct rch_coll_a2a_nodes *nm;
    int p, n;                  /* communicator size, ranks on my node */
    uint64_t *cnt;             /* v: [n][2p] send and receive counts of each local rank */
    size_t *sp;                /* [n][p + 1]: offset of block q in local rank j's gathered blocks */
    unsigned char *g;          /* gathered send blocks of every local rank, j after j */
    size_t *goff;              /* [n + 1] start of local rank j's blocks in g */
    unsigned char **in_at;     /* [p][n]: where block q -> (my node, i) arrived (q remote) */
};

static size_t slen(const struct lead *L, int j, int q)
{
    return L->x->v ? (size_t)L->cnt[(size_t)j * 2 * L->p + q] : L->x->send.bytes;
}

static size_t rlen(const struct lead *L, int i, int q)
{
    return L->x->v ? (size_t)L->cnt[(size_t)i * 2 * L->p + L->p + q] : L->x->recv.bytes;
}

/* Where the block local rank j sends to rank q is: in the gathered buffer,
 * or for the leader's own blocks (when not in place) in its send buffer. */
static const unsigned char *gblk(const struct lead *L, int j, int q)
{
    if (j == 0 && !L->x->in_place)
        return rch_coll_a2a_ptr(&L->x->send, q);
    return L->g + L->goff[j] + L->sp[(size_t)j * (L->p + 1) + q];
}

static int local_rank(const struct lead *L, int j)
{
    return rch_coll_a2a_rank_at(L->nm, L->nm->node, j);
}

/* Phase 1: counts (v) and send blocks of every local rank. */
static rdmach_status_t gather(struct lead *L)
{
    struct rch_coll_a2a *x = L->x;
    int p = L->p, n = L->n;
    struct rch_coll_batch b;
    rdmach_status_t st;

    if (x->v) {
        for (int q = 0; q < p; q++) {
            L->cnt[q] = rch_coll_a2a_len(&x->send, q);
            L->cnt[p + q] = rch_coll_a2a_len(&x->recv, q);
        }
        st = rch_coll_batch_init(&b, x->c, x->tag, n - 1);
        for (int j = 1; j < n && st == RDMACH_OK; j++)
            st = rch_coll_batch_recv(&b, L->cnt + (size_t)j * 2 * p, RCH_COLL_A2A_HDR(2 * p),
                                     local_rank(L, j));
        if (st == RDMACH_OK)
            st = rch_coll_batch_wait(&b);
        rch_coll_batch_free(&b);
        if (st != RDMACH_OK)
            return st;
    }
    /* my own blocks are copied only in place: the scatter overwrites them */
    L->goff[0] = 0;
    for (int j = 0; j < n; j++) {
        size_t *sp = L->sp + (size_t)j * (p + 1);
        sp[0] = 0;
        for (int q = 0; q < p; q++)
            sp[q + 1] = sp[q] + slen(L, j, q);
        L->goff[j + 1] = L->goff[j] + (j == 0 && !x->in_place ? 0 : sp[p]);
    }
    st = rch_coll_a2a_tmp(x, &L->g, L->goff[n]);
    if (st != RDMACH_OK)
        return st;
    for (int q = 0; x->in_place && q < p; q++)
        rch_coll_a2a_copy(L->g + L->sp[q], rch_coll_a2a_ptr(&x->send, q), slen(L, 0, q));
    st = rch_coll_batch_init(&b, x->c, x->tag, n - 1);
    for (int j = 1; j < n && st == RDMACH_OK; j++)
        st = rch_coll_batch_recv(&b, L->g + L->goff[j], L->goff[j + 1] - L->goff[j],
                                 local_rank(L, j));
    if (st == RDMACH_OK)
        st = rch_coll_batch_wait(&b);
    rch_coll_batch_free(&b);
    return st;
}

/* Blocks within the node: what j sends to i must be what i expects from j. */
static rdmach_status_t check_local(const struct lead *L)
{
    for (int j = 0; L->x->v && j < L->n; j++)
        for (int i = 0; i < L->n; i++) {
            int rj = local_rank(L, j), ri = local_rank(L, i);
            if (slen(L, j, ri) != rlen(L, i, rj))
                return rch_coll_a2a_mismatch(L->x, rj, ri, slen(L, j, ri), rlen(L, i, rj));
        }
    return RDMACH_OK;
}

/* Phase 2: one message to and from every other leader; L->in_at locates
 * (and for v, the headers check) every received block. */
static rdmach_status_t exchange(struct lead *L)
{
    struct rch_coll_a2a *x = L->x;
    const struct rch_coll_a2a_nodes *nm = L->nm;
    int p = L->p, n = L->n, N = nm->nnodes, k = nm->node;
    size_t *ooff, *ioff, *olen, *ilen;
    unsigned char *outbuf, *inbuf;
    struct rch_coll_batch b;
    rdmach_status_t st;

    if (N == 1)
        return RDMACH_OK;
    st = rch_coll_a2a_tmp(x, &ooff, 4 * ((size_t)N + 1) * sizeof(size_t));
    if (st != RDMACH_OK)
        return st;
    ioff = ooff + N + 1;
    olen = ioff + N + 1;
    ilen = olen + N + 1;
    /* sizes of each node's message out and in (headers first, for v); each
     * message starts 8-byte aligned in its buffer */
    ooff[0] = ioff[0] = 0;
    for (int m = 0; m < N; m++) {
        size_t o = 0, i_ = 0;
        if (m != k) {
            o = i_ = x->v ? RCH_COLL_A2A_HDR((size_t)n * nm->count[m]) : 0;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < nm->count[m]; i++)
                    o += slen(L, j, rch_coll_a2a_rank_at(nm, m, i));
            for (int jj = 0; jj < nm->count[m]; jj++)
                for (int i = 0; i < n; i++)
                    i_ += rlen(L, i, rch_coll_a2a_rank_at(nm, m, jj));
        }
        olen[m] = o;
        ilen[m] = i_;
        ooff[m + 1] = ooff[m] + RCH_COLL_A2A_ALIGN8(o);
        ioff[m + 1] = ioff[m] + RCH_COLL_A2A_ALIGN8(i_);
    }
    st = rch_coll_a2a_tmp(x, &outbuf, ooff[N]);
    if (st == RDMACH_OK)
        st = rch_coll_a2a_tmp(x, &inbuf, ioff[N]);
    if (st == RDMACH_OK)
        st = rch_coll_a2a_tmp(x, &L->in_at, (size_t)p * n * sizeof(*L->in_at));
    if (st != RDMACH_OK)
        return st;

    /* pack: for node m, header (v) then blocks j-major, i-minor */
    for (int m = 0; m < N; m++) {
        if (m == k)
            continue;
        unsigned char *o = outbuf + ooff[m];
        uint64_t *hdr = (uint64_t *)o;
        o += x->v ? RCH_COLL_A2A_HDR((size_t)n * nm->count[m]) : 0;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < nm->count[m]; i++) {
                int q = rch_coll_a2a_rank_at(nm, m, i);
                size_t len = slen(L, j, q);
                if (x->v)
                    hdr[(size_t)j * nm->count[m] + i] = len;
                rch_coll_a2a_copy(o, gblk(L, j, q), len);
                o += len;
            }
    }
    st = rch_coll_batch_init(&b, x->c, x->tag, 2 * (N - 1));
    for (int s = 1; s < N && st == RDMACH_OK; s++) {
        int m = (k - s + N) % N;
        st = rch_coll_batch_recv(&b, inbuf + ioff[m], ilen[m], rch_coll_a2a_rank_at(nm, m, 0));
    }
    for (int s = 1; s < N && st == RDMACH_OK; s++) {
        int m = (k + s) % N;
        st = rch_coll_batch_send(&b, outbuf + ooff[m], olen[m], rch_coll_a2a_rank_at(nm, m, 0));
    }
    if (st == RDMACH_OK)
        st = rch_coll_batch_wait(&b);
    rch_coll_batch_free(&b);

    for (int m = 0; m < N && st == RDMACH_OK; m++) {
        if (m == k)
            continue;
        unsigned char *in = inbuf + ioff[m];
        const uint64_t *hdr = (const uint64_t *)in;
        in += x->v ? RCH_COLL_A2A_HDR((size_t)n * nm->count[m]) : 0;
        for (int jj = 0; jj < nm->count[m] && st == RDMACH_OK; jj++)
            for (int i = 0; i < n; i++) {
                int q = rch_coll_a2a_rank_at(nm, m, jj);
                size_t len = rlen(L, i, q);
                if (x->v && hdr[(size_t)jj * n + i] != len) {
                    st = rch_coll_a2a_mismatch(x, q, local_rank(L, i),
                                               (size_t)hdr[(size_t)jj * n + i], len);
                    break;
                }
                L->in_at[(size_t)q * n + i] = in;
                in += len;
            }
    }
    return st;
}

/* Phase 3: every local rank's receive buffer; mine in place, the others'
 * packed in source rank order and sent. */
static rdmach_status_t scatter(struct lead *L)
{
    struct rch_coll_a2a *x = L->x;
    const struct rch_coll_a2a_nodes *nm = L->nm;
    int p = L->p, n = L->n, k = nm->node;
    size_t *ooff;
    unsigned char *out;
    struct rch_coll_batch b;
    rdmach_status_t st;

    st = rch_coll_a2a_tmp(x, &ooff, ((size_t)n + 1) * sizeof(size_t));
    if (st != RDMACH_OK)
        return st;
    ooff[0] = ooff[1] = 0;
    for (int i = 1; i < n; i++) {
        size_t sum = 0;
        for (int q = 0; q < p; q++)
            sum += rlen(L, i, q);
        ooff[i + 1] = ooff[i] + sum;
    }
    st = rch_coll_a2a_tmp(x, &out, ooff[n]);
    if (st != RDMACH_OK)
        return st;
    for (int i = 0; i < n; i++) {
        int ri = local_rank(L, i);
        unsigned char *o = out + ooff[i];
        for (int q = 0; q < p; q++) {
            size_t len = rlen(L, i, q);
            const unsigned char *src = nm->node_of[q] == k ? gblk(L, nm->local_of[q], ri)
                                                            : L->in_at[(size_t)q * n + i];
            if (i == 0) {
                rch_coll_a2a_copy(rch_coll_a2a_ptr(&x->recv, q), src, len);
            } else {
                rch_coll_a2a_copy(o, src, len);
                o += len;
            }
        }
    }
    st = rch_coll_batch_init(&b, x->c, x->tag, n - 1);
    for (int i = 1; i < n && st == RDMACH_OK; i++)
        st = rch_coll_batch_send(&b, out + ooff[i], ooff[i + 1] - ooff[i], local_rank(L, i));
    if (st == RDMACH_OK)
        st = rch_coll_batch_wait(&b);
    rch_coll_batch_free(&b);
    return st;
}

static rdmach_status_t lead(struct rch_coll_a2a *x, const struct rch_coll_a2a_nodes *nm)
{
    struct lead L = { .x = x, .nm = nm, .p = x->c->size, .n = nm->count[nm->node] };
    rdmach_status_t st;

    st = rch_coll_a2a_tmp(x, &L.sp, ((size_t)L.n * (L.p + 1) + L.n + 1) * sizeof(size_t));
    if (st != RDMACH_OK)
        return st;
    L.goff = L.sp + (size_t)L.n * (L.p + 1);
    st = rch_coll_a2a_tmp(x, &L.cnt, x->v ? 2 * (size_t)L.p * L.n * sizeof(uint64_t) : 0);
    if (st == RDMACH_OK)
        st = gather(&L);
    if (st == RDMACH_OK)
        st = check_local(&L);
    if (st == RDMACH_OK)
        st = exchange(&L);
    if (st == RDMACH_OK)
        st = scatter(&L);
    return st;
}

static rdmach_status_t leader(const struct rch_coll_comm *c, const struct rch_coll_args *a, int v)
{
    struct rch_coll_a2a x;
    struct rch_coll_a2a_nodes nm;
    rdmach_status_t st;

    rch_coll_a2a_init(&x, c, a, v);
    if (c->size == 1)
        st = rch_coll_a2a_copy_self(&x);
    else if ((st = rch_coll_a2a_nodes_init(&nm, &x)) == RDMACH_OK)
        st = nm.local == 0 ? lead(&x, &nm) : member(&x, &nm);
    rch_coll_a2a_fini(&x);
    return st;
}

static rdmach_status_t alltoall_leader(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return leader(c, a, 0);
}

static rdmach_status_t alltoallv_leader(const struct rch_coll_comm *c,
                                        const struct rch_coll_args *a)
{
    return leader(c, a, 1);
}

const struct rch_coll_algo rch_coll_alltoall_leader = {
    .name = "leader",
    .applies = rch_coll_always,
    .run = alltoall_leader,
};

const struct rch_coll_algo rch_coll_alltoallv_leader = {
    .name = "leader",
    .applies = rch_coll_always,
    .run = alltoallv_leader,
};
