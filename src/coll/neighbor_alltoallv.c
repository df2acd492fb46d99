/*
 * Neighbourhood collectives (MPI_Neighbor_allgather(v), _alltoall(v,w) and
 * their non-blocking forms): one round over the topology's neighbours.
 *
 * Idea: every rank posts a receive from each in-neighbour into that
 * neighbour's block and a send of each out-neighbour's block to it; nothing
 * else is needed, the exchange involves only neighbours. Allgather(v) is
 * the same exchange with every send block the same buffer.
 *
 * Pairing of messages. With several edges between two ranks, messages
 * pair in the order the edges are listed (MPI's rule for graphs). A
 * Cartesian topology lists, per dimension d, the -1 neighbour (block 2d)
 * then the +1 neighbour (block 2d+1); a message sent to my +1 neighbour
 * fills its block 2d (I am its -1 neighbour) and vice versa. In a periodic
 * dimension of size 1 or 2 both neighbours are the same rank, and order
 * alone would pair my block 2d+1 with its block 2d+1: so each Cartesian
 * message carries the receiver's block index in its tag (send j → sub-tag
 * j xor 1, receive i → sub-tag i).
 *
 *   2D periodic 3 × 3, rank 4:       in = out = {1, 7, 3, 5}
 *        1                           block 0 (-1 in dim 0) from 1,
 *     3  4  5                        block 1 (+1 in dim 0) from 7,
 *        7                           block 2 from 3, block 3 from 5
 *
 * Restrictions: Cartesian topologies of more than 128 dimensions pair by
 * order only (the sub-tag has 256 values). Off-edge neighbours
 * (RCH_DEV_PROC_NULL) are skipped. Cost: one round, indegree + outdegree
 * messages.
 */
#include "coll/nbc_impl.h"

rdmach_status_t rch_coll_neighbor_alltoallv(const struct rch_coll_comm *c, const struct rch_coll_nbrs *n,
                                            const void *sbuf, const size_t *scounts,
                                            const size_t *sdispls, void *rbuf,
                                            const size_t *rcounts, const size_t *rdispls,
                                            struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, req ? "ineighbor" : "neighbor", NULL, &s);
    if (st != RDMACH_OK)
        return st;
    int tagged = n->cart && n->indegree <= RCH_COLL_NBC_SUB_MAX && n->outdegree <= RCH_COLL_NBC_SUB_MAX;
    unsigned char *r = rbuf;
    const unsigned char *b = sbuf;
    for (int i = 0; i < n->indegree && st == RDMACH_OK; i++) {
        int peer = n->in[i];
        if (peer != RCH_DEV_PROC_NULL && (peer < 0 || peer >= c->size))
            st = rch_base_err(RDMACH_ERR_INVALID_ARG, "neighbor: in-neighbour %d is rank %d, not in 0..%d",
                              i, peer, c->size - 1);
        else
            st = rch_nbc_recv(s, r + rdispls[i], rcounts[i], peer, tagged ? i : 0);
    }
    for (int j = 0; j < n->outdegree && st == RDMACH_OK; j++) {
        int peer = n->out[j];
        if (peer != RCH_DEV_PROC_NULL && (peer < 0 || peer >= c->size))
            st = rch_base_err(RDMACH_ERR_INVALID_ARG, "neighbor: out-neighbour %d is rank %d, not in 0..%d",
                              j, peer, c->size - 1);
        else
            st = rch_nbc_send(s, b + sdispls[j], scounts[j], peer, tagged ? (j ^ 1) : 0);
    }
    if (st != RDMACH_OK) {
        rch_nbc_free(s);
        return st;
    }
    return req ? rch_nbc_start(s, req) : rch_nbc_start_wait(s);
}
