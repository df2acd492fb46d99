/*
 * Core-parallel alltoall(v): every core of a node talks to the network, each
 * to its own peers.
 *
 * Idea: first an exchange within each node (shared memory) so that local
 * rank i holds everything its node sends to local rank i of every other
 * node; then every core sends one message to its peer core on each other
 * node. Each network message carries n blocks (from all ranks of the node to
 * one rank), and all n cores of a node inject at once: best on onload NICs,
 * where the host CPU does the protocol work and more cores push more
 * messages. Nothing needs a third phase: the receiver of a network message
 * is the final owner of its blocks.
 *
 * Data flow (N nodes, node k has n_k ranks, (k, j) is local rank j of node
 * k, b bytes per block). Proxy rule: the blocks of node k for rank (m, i)
 * travel through (k, i mod n_k), so with equal nodes rank (k, i) serves
 * exactly rank (m, i), and with uneven nodes every destination still has one
 * proxy per source node. D(k, l) = {(k, l)} + {(m, i) : m != k, i mod n_k = l},
 * node-major: the destinations (k, l) serves.
 *   1. shuffle  (k, j) -> (k, l), every l != j of its node: its blocks for
 *               D(k, l), in D's order (alltoallv: preceded by a message of
 *               their sizes). The block for (k, l) itself is delivered.
 *   2. network  (k, l) -> (m, i), every (m, i) in D(k, l) with m != k: the n_k
 *               blocks of node k for (m, i), in local rank order (alltoallv:
 *               preceded by their sizes, checked by the receiver). Every rank
 *               receives one such message from each other node, from
 *               (m, l mod n_m), and places the blocks in its receive buffer
 *               (directly when the sender node's ranks are consecutive).
 *
 *      node 0 (r0 r1)        node 1 (r2 r3)
 *   1. r0 <-> r1             r2 <-> r3          shared memory: r0 now holds
 *                                               r0→r2, r1→r2; r1: r0→r3, r1→r3
 *   2. r0 <==============> r2                   network, 2 blocks each way
 *      r1 <==============> r3                   ... at the same time
 *
 * Restrictions: none: any layout, uneven nodes (proxy rule above: when n_k <
 * n_m the low local ranks of k serve several ranks of m; when n_k > n_m the
 * high ones serve none of m), a single node (then only phase 1 runs, which is
 * a linear alltoall), one rank per node (then only phase 2: a linear
 * alltoall). In place: the send blocks are copied out first, because network
 * messages may arrive before the shuffle has read them.
 * Cost (n ranks per node): (n - 1)(alpha_s + N b beta_s) + (N - 1)(alpha_n +
 * n b beta_n) per core, all cores at once, + about 2 p b of copies. The NIC
 * sees n (N - 1) messages of n b from n cores (leader: N - 1 of n² b from
 * one core; pairwise: n (p - n) of b).
 */
#include "base/base.h"
#include "coll/alltoall_impl.h"

struct cp {
    struct rch_coll_a2a *x;
    const struct rch_coll_a2a_nodes *nm;
    int p, n, N, k, l;         /* size, ranks on my node, nodes, my node, my local index */
    int *d;                    /* D(k, l): the destinations I serve */
    int nd, self_idx;          /* |D|, position of me in D */
    int *dfirst, *dcount;      /* [N] my destinations on node m: d[dfirst[m] ..] */
    size_t *boff;              /* [n][nd + 1] offset of block idx in local rank j's shuffle data */
    uint64_t *blen;            /* v: [n][nd] sizes of local rank j's blocks for D */
    unsigned char *shuf;       /* shuffle data received from each local rank j */
    size_t *shuf_off;          /* [n] start of j's data in shuf */
};

/* D(k, l') into out (room for p); returns |D|. */
static int dests(const struct cp *s, int lp, int *out)
{
    const struct rch_coll_a2a_nodes *nm = s->nm;
    int nd = 0;
    for (int m = 0; m < s->N; m++) {
        if (m == s->k) {
            out[nd++] = rch_coll_a2a_rank_at(nm, m, lp);
            continue;
        }
        for (int i = lp; i < nm->count[m]; i += s->n)
            out[nd++] = rch_coll_a2a_rank_at(nm, m, i);
    }
    return nd;
}

static size_t bsize(const struct cp *s, int j, int idx)
{
    return s->x->v ? (size_t)s->blen[(size_t)j * s->nd + idx] : s->x->send.bytes;
}

/* Block that local rank j sends to my destination d[idx]. */
static const unsigned char *bptr(const struct cp *s, int j, int idx)
{
    if (j == s->l)
        return rch_coll_a2a_ptr(&s->x->send, s->d[idx]);
    return s->shuf + s->shuf_off[j] + s->boff[(size_t)j * (s->nd + 1) + idx];
}

static int local_rank(const struct cp *s, int j)
{
    return rch_coll_a2a_rank_at(s->nm, s->k, j);
}

/* Phase 1: send my blocks for D(k, l') to every other local rank l', receive
 * theirs for D(k, l). */
static rdmach_status_t shuffle(struct cp *s)
{
    struct rch_coll_a2a *x = s->x;
    int n = s->n, p = s->p;
    int *dl, *ndl;             /* D(k, l') of every local l' ([n][p]), and |D(k, l')| */
    size_t *soff;              /* [n + 1] my outgoing data per local rank */
    uint64_t *shdr = NULL;     /* v: sizes of my outgoing blocks, per local rank */
    unsigned char *out;
    struct rch_coll_batch b;
    size_t nhdr = 0, total = 0;
    rdmach_status_t st;

    st = rch_coll_a2a_tmp(x, &dl, (size_t)n * p * sizeof(int));
    if (st == RDMACH_OK)
        st = rch_coll_a2a_tmp(x, &ndl, (size_t)n * sizeof(int));
    if (st == RDMACH_OK)
        st = rch_coll_a2a_tmp(x, &soff, ((size_t)n + 1) * sizeof(size_t));
    if (st != RDMACH_OK)
        return st;
    soff[0] = 0;
    for (int lp = 0; lp < n; lp++) {
        size_t sum = 0;
        ndl[lp] = dests(s, lp, dl + (size_t)lp * p);
        if (lp != s->l) {
            for (int t = 0; t < ndl[lp]; t++)
                sum += rch_coll_a2a_len(&x->send, dl[(size_t)lp * p + t]);
            nhdr += (size_t)ndl[lp];
        }
        soff[lp + 1] = soff[lp] + sum;
    }

    if (x->v) {
        /* sizes first: mine out, theirs in */
        st = rch_coll_a2a_tmp(x, &shdr, RCH_COLL_A2A_HDR(nhdr));
        if (st != RDMACH_OK)
            return st;
        st = rch_coll_batch_init(&b, x->c, x->tag, 2 * (n - 1));
        for (int j = 0; j < n && st == RDMACH_OK; j++)
            if (j != s->l)
                st = rch_coll_batch_recv(&b, s->blen + (size_t)j * s->nd, RCH_COLL_A2A_HDR(s->nd),
                                         local_rank(s, j));
        uint64_t *h = shdr;
        for (int lp = 0; lp < n && st == RDMACH_OK; lp++) {
            if (lp == s->l)
                continue;
            for (int t = 0; t < ndl[lp]; t++)
                h[t] = rch_coll_a2a_len(&x->send, dl[(size_t)lp * p + t]);
            st = rch_coll_batch_send(&b, h, RCH_COLL_A2A_HDR(ndl[lp]), local_rank(s, lp));
            h += ndl[lp];
        }
        if (st == RDMACH_OK)
            st = rch_coll_batch_wait(&b);
        rch_coll_batch_free(&b);
        if (st != RDMACH_OK)
            return st;
        for (int idx = 0; idx < s->nd; idx++)
            s->blen[(size_t)s->l * s->nd + idx] = rch_coll_a2a_len(&x->send, s->d[idx]);
    }

    /* where each local rank's blocks will land */
    for (int j = 0; j < n; j++) {
        size_t *bo = s->boff + (size_t)j * (s->nd + 1);
        bo[0] = 0;
        for (int idx = 0; idx < s->nd; idx++)
            bo[idx + 1] = bo[idx] + (j == s->l ? 0 : bsize(s, j, idx));
        s->shuf_off[j] = total;
        total += bo[s->nd];
    }
    st = rch_coll_a2a_tmp(x, &s->shuf, total);
    if (st == RDMACH_OK)
        st = rch_coll_a2a_tmp(x, &out, soff[n]);
    if (st != RDMACH_OK)
        return st;
    for (int lp = 0; lp < n; lp++) {
        unsigned char *o = out + soff[lp];
        for (int t = 0; lp != s->l && t < ndl[lp]; t++) {
            int q = dl[(size_t)lp * p + t];
            rch_coll_a2a_copy(o, rch_coll_a2a_ptr(&x->send, q), rch_coll_a2a_len(&x->send, q));
            o += rch_coll_a2a_len(&x->send, q);
        }
    }
    st = rch_coll_batch_init(&b, x->c, x->tag, 2 * (n - 1));
    for (int j = 0; j < n && st == RDMACH_OK; j++)
        if (j != s->l)
            st = rch_coll_batch_recv(&b, s->shuf + s->shuf_off[j],
                                     s->boff[(size_t)j * (s->nd + 1) + s->nd], local_rank(s, j));
    for (int t = 1; t < n && st == RDMACH_OK; t++) {
        int lp = (s->l + t) % n;
        st = rch_coll_batch_send(&b, out + soff[lp], soff[lp + 1] - soff[lp], local_rank(s, lp));
    }
    if (st == RDMACH_OK)
        st = rch_coll_batch_wait(&b);
    rch_coll_batch_free(&b);
    return st;
}

/* The blocks of node k for me (phase 1 result at d[self_idx]). */
static rdmach_status_t deliver_local(const struct cp *s)
{
    const struct rch_coll_a2a *x = s->x;
    for (int j = 0; j < s->n; j++) {
        int q = local_rank(s, j);
        size_t len = bsize(s, j, s->self_idx), want = rch_coll_a2a_len(&x->recv, q);
        if (len != want)
            return rch_coll_a2a_mismatch(x, q, x->c->rank, len, want);
        if (len)
            memmove(rch_coll_a2a_ptr(&x->recv, q), bptr(s, j, s->self_idx), len);
    }
    return RDMACH_OK;
}

/* The message from node m lands directly in the receive buffer (equal
 * blocks from consecutive ranks), or in a temporary. */
static int direct(const struct cp *s, int m)
{
    return !s->x->v && s->nm->consecutive[m];
}

static size_t in_len(const struct cp *s, int m)
{
    size_t len = s->x->v ? RCH_COLL_A2A_HDR(s->nm->count[m]) : 0;
    for (int j = 0; j < s->nm->count[m]; j++)
        len += rch_coll_a2a_len(&s->x->recv, rch_coll_a2a_rank_at(s->nm, m, j));
    return len;
}

/* My destinations and their per-node slices, and the shuffle's tables. */
static rdmach_status_t plan(struct cp *s)
{
    struct rch_coll_a2a *x = s->x;
    int p = s->p, n = s->n, N = s->N;
    rdmach_status_t st = rch_coll_a2a_tmp(x, &s->d, ((size_t)p + 2 * (size_t)N) * sizeof(int));
    if (st != RDMACH_OK)
        return st;
    s->dfirst = s->d + p;
    s->dcount = s->dfirst + N;
    s->nd = dests(s, s->l, s->d);
    for (int m = 0, idx = 0; m < N; m++) {
        s->dfirst[m] = idx;
        while (idx < s->nd && s->nm->node_of[s->d[idx]] == m)
            idx++;
        s->dcount[m] = idx - s->dfirst[m];
    }
    s->self_idx = s->dfirst[s->k];
    st = rch_coll_a2a_tmp(x, &s->boff, ((size_t)n * (s->nd + 1) + n) * sizeof(size_t));
    if (st == RDMACH_OK)
        st = rch_coll_a2a_tmp(x, &s->blen, x->v ? RCH_COLL_A2A_HDR((size_t)n * s->nd) : 0);
    s->shuf_off = s->boff + (size_t)n * (s->nd + 1);
    return st;
}

/* Phase 2 receives, posted first: one message from each other node. */
static rdmach_status_t post_net_recvs(struct cp *s, struct rch_coll_batch *net, size_t *ioff,
                                      unsigned char **inbuf)
{
    int N = s->N;
    ioff[0] = 0;
    for (int m = 0; m < N; m++)
        ioff[m + 1] = ioff[m] + (m == s->k || direct(s, m) ? 0 : RCH_COLL_A2A_ALIGN8(in_len(s, m)));
    rdmach_status_t st = rch_coll_a2a_tmp(s->x, inbuf, ioff[N]);
    for (int t = 1; t < N && st == RDMACH_OK; t++) {
        int m = (s->k - t + N) % N;
        int from = rch_coll_a2a_rank_at(s->nm, m, s->l % s->nm->count[m]);
        void *buf = direct(s, m) ? rch_coll_a2a_ptr(&s->x->recv, rch_coll_a2a_rank_at(s->nm, m, 0))
                                 : *inbuf + ioff[m];
        st = rch_coll_batch_recv(net, buf, in_len(s, m), from);
    }
    return st;
}

/* Phase 2 sends: per destination, n blocks in local rank order, nodes in
 * step order (node k + 1 first). */
static rdmach_status_t post_net_sends(struct cp *s, struct rch_coll_batch *net)
{
    struct rch_coll_a2a *x = s->x;
    int n = s->n, N = s->N;
    size_t total = 0;
    unsigned char *o;
    for (int idx = 0; idx < s->nd; idx++) {
        if (idx == s->self_idx)
            continue;
        total += 7 + (x->v ? RCH_COLL_A2A_HDR(n) : 0);   /* each message starts 8-aligned */
        for (int j = 0; j < n; j++)
            total += bsize(s, j, idx);
    }
    rdmach_status_t st = rch_coll_a2a_tmp(x, &o, total);
    for (int t = 1; t < N && st == RDMACH_OK; t++) {
        int m = (s->k + t) % N;
        for (int idx = s->dfirst[m]; idx < s->dfirst[m] + s->dcount[m] && st == RDMACH_OK; idx++) {
            o += (8 - (uintptr_t)o % 8) % 8;
            unsigned char *start = o;
            if (x->v) {
                uint64_t *hdr = (uint64_t *)o;
                for (int j = 0; j < n; j++)
                    hdr[j] = bsize(s, j, idx);
                o += RCH_COLL_A2A_HDR(n);
            }
            for (int j = 0; j < n; j++) {
                rch_coll_a2a_copy(o, bptr(s, j, idx), bsize(s, j, idx));
                o += bsize(s, j, idx);
            }
            st = rch_coll_batch_send(net, start, (size_t)(o - start), s->d[idx]);
        }
    }
    return st;
}

/* Place (and for v, check) what came through temporaries. */
static rdmach_status_t place(const struct cp *s, const size_t *ioff, const unsigned char *inbuf)
{
    const struct rch_coll_a2a *x = s->x;
    for (int m = 0; m < s->N; m++) {
        if (m == s->k || direct(s, m))
            continue;
        const unsigned char *in = inbuf + ioff[m];
        const uint64_t *hdr = (const uint64_t *)in;
        in += x->v ? RCH_COLL_A2A_HDR(s->nm->count[m]) : 0;
        for (int j = 0; j < s->nm->count[m]; j++) {
            int q = rch_coll_a2a_rank_at(s->nm, m, j);
            size_t len = rch_coll_a2a_len(&x->recv, q);
            if (x->v && hdr[j] != len)
                return rch_coll_a2a_mismatch(x, q, x->c->rank, (size_t)hdr[j], len);
            rch_coll_a2a_copy(rch_coll_a2a_ptr(&x->recv, q), in, len);
            in += len;
        }
    }
    return RDMACH_OK;
}

static rdmach_status_t core_parallel(const struct rch_coll_comm *c, const struct rch_coll_args *a,
                                     int v)
{
    struct rch_coll_a2a x;
    struct rch_coll_a2a_nodes nm;
    struct cp s;
    struct rch_coll_batch net = { 0 };
    size_t *ioff = NULL;
    unsigned char *inbuf = NULL;
    rdmach_status_t st;

    rch_coll_a2a_init(&x, c, a, v);
    if (c->size == 1) {
        st = rch_coll_a2a_copy_self(&x);
        goto out;
    }
    /* the send blocks are read until phase 2, while phase 2 receives may
     * already land in the receive buffer: in place, copy them out first */
    st = rch_coll_a2a_copy_send(&x);
    if (st == RDMACH_OK)
        st = rch_coll_a2a_nodes_init(&nm, &x);
    if (st != RDMACH_OK)
        goto out;
    s = (struct cp){ .x = &x, .nm = &nm, .p = c->size, .n = nm.count[nm.node], .N = nm.nnodes,
                     .k = nm.node, .l = nm.local };
    st = plan(&s);
    if (st == RDMACH_OK)
        st = rch_coll_a2a_tmp(&x, &ioff, ((size_t)s.N + 1) * sizeof(size_t));
    if (st == RDMACH_OK)
        st = rch_coll_batch_init(&net, c, x.tag, (s.N - 1) + s.nd);
    if (st == RDMACH_OK)
        st = post_net_recvs(&s, &net, ioff, &inbuf);
    if (st == RDMACH_OK)
        st = shuffle(&s);
    if (st == RDMACH_OK)
        st = deliver_local(&s);
    if (st == RDMACH_OK)
        st = post_net_sends(&s, &net);
    if (st == RDMACH_OK)
        st = rch_coll_batch_wait(&net);
    if (st == RDMACH_OK)
        st = place(&s, ioff, inbuf);
    rch_coll_batch_free(&net);
out:
    rch_coll_a2a_fini(&x);
    return st;
}

static rdmach_status_t alltoall_coreparallel(const struct rch_coll_comm *c,
                                             const struct rch_coll_args *a)
{
    return core_parallel(c, a, 0);
}

static rdmach_status_t alltoallv_coreparallel(const struct rch_coll_comm *c,
                                              const struct rch_coll_args *a)
{
    return core_parallel(c, a, 1);
}

const struct rch_coll_algo rch_coll_alltoall_coreparallel = {
    .name = "coreparallel",
    .applies = rch_coll_always,
    .run = alltoall_coreparallel,
};

const struct rch_coll_algo rch_coll_alltoallv_coreparallel = {
    .name = "coreparallel",
    .applies = rch_coll_always,
    .run = alltoallv_coreparallel,
};
