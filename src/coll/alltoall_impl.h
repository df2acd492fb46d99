/*
 * Shared by the alltoall algorithms (alltoall_*.c; alltoallv_pairwise.c has
 * its own helpers): the two sides of a call as block layouts, the call's
 * temporaries, the node map of the node-aware algorithms, and the size
 * checks of the v variants.
 *
 * Alltoall and alltoallv are written once: a side with counts == NULL is the
 * alltoall layout (block q of `bytes` at q * bytes), otherwise block q is
 * counts[q] bytes at displs[q]. Alltoallw reaches src/coll as an alltoallv
 * of packed bytes (src/mpi/coll_alltoall.c), so it runs these algorithms too.
 */
#ifndef RCH_COLL_ALLTOALL_IMPL_H
#define RCH_COLL_ALLTOALL_IMPL_H

#include <stdint.h>
#include "coll/coll_impl.h"

/* One side (send or receive) of an alltoall(v). */
struct rch_coll_a2a_side {
    unsigned char *base;
    const size_t *counts, *displs;     /* NULL: uniform blocks of `bytes` */
    size_t bytes;
};

static inline size_t rch_coll_a2a_len(const struct rch_coll_a2a_side *s, int q)
{
    return s->counts ? s->counts[q] : s->bytes;
}

static inline unsigned char *rch_coll_a2a_ptr(const struct rch_coll_a2a_side *s, int q)
{
    return s->base + (s->displs ? s->displs[q] : (size_t)q * s->bytes);
}

/* memcpy that accepts NULL for an empty block (zero counts have no buffer). */
static inline void rch_coll_a2a_copy(void *dst, const void *src, size_t len)
{
    if (len)
        memcpy(dst, src, len);
}

/* A call as the algorithms see it. */
struct rch_coll_a2a {
    const struct rch_coll_comm *c;
    struct rch_coll_a2a_side send, recv;
    int in_place;              /* the send blocks are in the receive buffer */
    int v;                     /* alltoallv: per-block sizes (checked by headers) */
    int tag;                   /* RCH_COLL_TAG_ALLTOALL or _ALLTOALLV */
    /* this call's temporaries (rch_coll_a2a_tmp), released by rch_coll_a2a_fini */
    int owns_cache;            /* carving the process's scratch cache */
    size_t used, want;         /* bytes of the cache handed out; bytes asked in all */
    struct rch_coll_a2a_spill *spill;   /* what did not fit, malloc'ed */
};

/* Fill `x` from the arguments of an alltoall (v = 0) or alltoallv (v = 1).
 * Every rch_coll_a2a_init is paired with one rch_coll_a2a_fini. */
void rch_coll_a2a_init(struct rch_coll_a2a *x, const struct rch_coll_comm *c,
                       const struct rch_coll_args *a, int v);
void rch_coll_a2a_fini(struct rch_coll_a2a *x);
/*
 * A temporary of `bytes` (64-byte aligned) living until rch_coll_a2a_fini.
 * Temporaries are carved from one scratch block cached per process, grown
 * after a call to what that call needed (up to a limit), so repeated calls
 * of a size allocate nothing and touch no fresh pages. NULL for 0 bytes.
 */
rdmach_status_t rch_coll_a2a_tmp(struct rch_coll_a2a *x, void *out, size_t bytes);
/* In place: copy the send blocks out of the receive buffer (same layout), so
 * that receiving may overwrite it. A no-op when not in place. */
rdmach_status_t rch_coll_a2a_copy_send(struct rch_coll_a2a *x);
/* The self block: my send block for me must match my receive block. */
rdmach_status_t rch_coll_a2a_copy_self(const struct rch_coll_a2a *x);

/* A mismatch found by a size header of the v variants: what `src` sends to
 * `dst` is not what dst expects. TRUNCATE when more is sent. */
rdmach_status_t rch_coll_a2a_mismatch(const struct rch_coll_a2a *x, int src, int dst, size_t sent,
                                 size_t expected);

/*
 * The node map of a communicator for the node-aware algorithms: nodes are
 * renumbered densely in order of their lowest rank, the ranks of a node are
 * listed ascending and "local index" is the position in that list. Without a
 * node layout (node_of NULL or nnodes 0) the communicator is one node.
 */
struct rch_coll_a2a_nodes {
    int nnodes;
    int node, local;           /* mine */
    int *count;                /* [nnodes] ranks on each node */
    int *first;                /* [nnodes] start of each node in `ranks` */
    int *ranks;                /* [size] comm ranks, grouped by node */
    int *node_of;              /* [size] dense node index of each rank */
    int *local_of;             /* [size] local index of each rank */
    int *consecutive;          /* [nnodes] 1: the node's ranks are first, first+1, ... */
};
/* The map of x's communicator, in x's temporaries. */
rdmach_status_t rch_coll_a2a_nodes_init(struct rch_coll_a2a_nodes *n, struct rch_coll_a2a *x);

static inline int rch_coll_a2a_rank_at(const struct rch_coll_a2a_nodes *n, int node, int local)
{
    return n->ranks[n->first[node] + local];
}

/* Size headers of the v variants: arrays of native uint64 (both ends are the
 * same machine type). A message that starts with one starts 8-byte aligned
 * in its temporary (RCH_COLL_A2A_ALIGN8). */
#define RCH_COLL_A2A_HDR(nblocks) ((size_t)(nblocks) * sizeof(uint64_t))
#define RCH_COLL_A2A_ALIGN8(n) (((n) + 7) & ~(size_t)7)

#endif
