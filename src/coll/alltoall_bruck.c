/*
 * Alltoall by Bruck's algorithm (Bruck et al., IEEE TPDS 1997), the
 * small-message half of rdmach's original alltoall.
 *
 * Idea: trade bandwidth for latency. After a local rotation, block i of rank
 * r is the one for rank r + i. In step k = 1, 2, 4, ... < p every rank sends
 * all blocks whose index has bit k set to rank + k and receives the same
 * positions from rank - k; a block with index i travels the binary
 * decomposition of i, so after ceil(lg p) steps block i of rank r holds what
 * rank r - i sent to r. An inverse rotation puts the blocks in rank order.
 *
 * Restrictions: alltoall only (equal block sizes); any p. Needs two
 * temporaries of p · n bytes. In place works as any call (the send blocks are
 * read into the rotated temporary before anything is received).
 * Cost: ceil(lg p) · (alpha + (p/2) · n · beta) + 3 · p · n copies.
 * Best for small n, where p - 1 latencies dominate (pairwise, linear).
 *
 *   p = 4, rank 0 (tmp[i] is the block for rank 0 + i):
 *     rotate:  tmp = S0[0] S0[1] S0[2] S0[3]
 *     k = 1:   send tmp[1], tmp[3] to rank 1; receive them from rank 3
 *     k = 2:   send tmp[2], tmp[3] to rank 2; receive them from rank 2
 *     now tmp[i] = S_{0-i}[0]; R[(0 - i) mod 4] = tmp[i]
 */
#include "base/base.h"
#include "coll/alltoall_impl.h"

static rdmach_status_t alltoall_bruck(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    struct rch_coll_a2a x;
    int p = c->size, me = c->rank;
    size_t n = a->bytes, half = (size_t)((p + 1) / 2) * n;
    unsigned char *tmp = NULL, *pack = NULL, *unpack = NULL;
    rdmach_status_t st;

    rch_coll_a2a_init(&x, c, a, 0);
    if (p == 1 || n == 0) {
        st = rch_coll_a2a_copy_self(&x);
        goto out;
    }
    st = rch_coll_a2a_tmp(&x, &tmp, (size_t)p * n);
    if (st == RDMACH_OK)
        st = rch_coll_a2a_tmp(&x, &pack, half);
    if (st == RDMACH_OK)
        st = rch_coll_a2a_tmp(&x, &unpack, half);
    if (st != RDMACH_OK)
        goto out;

    for (int i = 0; i < p; i++)
        rch_coll_a2a_copy(tmp + (size_t)i * n, rch_coll_a2a_ptr(&x.send, (me + i) % p), n);

    for (int k = 1; k < p; k <<= 1) {
        size_t cnt = 0;
        for (int i = k; i < p; i++)
            if (i & k)
                rch_coll_a2a_copy(pack + cnt++ * n, tmp + (size_t)i * n, n);
        st = rch_coll_sendrecv(c, pack, cnt * n, (me + k) % p, unpack, cnt * n, (me - k + p) % p,
                               RCH_COLL_TAG_ALLTOALL);
        if (st != RDMACH_OK)
            goto out;
        cnt = 0;
        for (int i = k; i < p; i++)
            if (i & k)
                rch_coll_a2a_copy(tmp + (size_t)i * n, unpack + cnt++ * n, n);
    }

    for (int i = 0; i < p; i++)
        rch_coll_a2a_copy(rch_coll_a2a_ptr(&x.recv, (me - i + p) % p), tmp + (size_t)i * n, n);
out:
    rch_coll_a2a_fini(&x);
    return st;
}

const struct rch_coll_algo rch_coll_alltoall_bruck = {
    .name = "bruck",
    .applies = rch_coll_always,
    .run = alltoall_bruck,
};
