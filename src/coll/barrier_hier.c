/*
 * Hierarchical barrier: shared memory within each node, dissemination among
 * the nodes' leaders.
 *
 * Idea: the ranks of a node arrive on a counter in their node's segment; the
 * node's leader (its lowest rank) waits for the other n - 1, runs a
 * dissemination barrier with the other leaders over the network, then
 * releases its node by flipping the node's sense word. Only one core per
 * node talks to the network, and lg N network rounds replace lg p.
 *
 * Restrictions: none beyond what it is for — it applies when the
 * communicator spans several nodes and some node has several ranks (one
 * rank per node is plain dissemination). Nodes of one rank need no segment.
 * Cost: t_arrive + ceil(lg N) · alpha_net + t_release, with the shared
 * memory steps as in barrier_shm.c.
 *
 *   node 0: r1 r2 ─arrive─► L0 ═╗                ╔═ L0 ─release─► r1 r2
 *                               ╠ dissemination ═╣
 *   node 1: r4 r5 ─arrive─► L1 ═╝  (leaders)     ╚═ L1 ─release─► r4 r5
 */
#include <stdio.h>
#include <stdlib.h>
#include "base/base.h"
#include "coll/barrier.h"

struct hier_ctl {
    _Alignas(RCH_CACHELINE) uint32_t arrived;       /* members (not the leader) arrived */
    _Alignas(RCH_CACHELINE) uint32_t sense;         /* released sense */
};

struct hier_state {
    struct rch_coll_bar_seg seg;
    struct hier_ctl *ctl;
    uint32_t members;          /* ranks of my node other than the leader */
    uint32_t my_sense;
    int leader;
    struct rch_coll_comm leaders;   /* leader: the view of the nodes' leaders */
    int *leader_world;              /* its world_of */
    struct rch_coll_bar_waiter waiter;
};

static int hier_applies(const struct rch_coll_comm *c, char *why, size_t len)
{
    int nnodes, ppn;
    rch_coll_bar_shape(c, &nnodes, &ppn);
    if (nnodes < 2) {
        snprintf(why, len, "the communicator is on one node (shm covers it)");
        return 0;
    }
    if (ppn < 2) {
        snprintf(why, len, "one rank per node: nothing to share (dissemination covers it)");
        return 0;
    }
    snprintf(why, len, "%d nodes, up to %d ranks on one", nnodes, ppn);
    return 1;
}

static rdmach_status_t hier_init(const struct rch_coll_comm *c, void **out)
{
    struct rch_coll_bar_nodes n;
    rdmach_status_t st = rch_coll_bar_nodes_init(&n, c);
    if (st != RDMACH_OK)
        return st;
    struct hier_state *s = calloc(1, sizeof(*s));
    if (!s) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier hier: no memory");
        goto out_nodes;
    }
    s->leader = n.local == 0;
    s->members = (uint32_t)n.nlocal - 1;
    if (s->leader) {
        s->leader_world = malloc((size_t)n.nnodes * sizeof(int));
        if (!s->leader_world) {
            st = rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier hier: no memory for %d leaders", n.nnodes);
            goto out_free;
        }
        for (int i = 0; i < n.nnodes; i++)
            s->leader_world[i] = c->world_of[n.leaders[i]];
        /* Leaders address each other by their index among the leaders; the
         * tag keeps their messages apart from the communicator's own. */
        s->leaders = (struct rch_coll_comm){
            .rank = n.node, .size = n.nnodes, .world_of = s->leader_world, .ctx = c->ctx,
        };
    }
    /* the node's leader is its local index 0 */
    st = rch_coll_bar_waiter_init_node(&s->waiter, c, &n);
    if (st != RDMACH_OK)
        goto out_free;
    st = rch_coll_bar_seg_setup(&s->seg, c, &n, sizeof(struct hier_ctl), "hier");
    if (st != RDMACH_OK)
        goto out_waiter;
    s->ctl = s->seg.base;
    rch_coll_bar_nodes_free(&n);
    *out = s;
    return RDMACH_OK;

out_waiter:
    rch_coll_bar_waiter_free(&s->waiter);
out_free:
    free(s->leader_world);
    free(s);
out_nodes:
    rch_coll_bar_nodes_free(&n);
    return st;
}

static rdmach_status_t hier_enter(void *state)
{
    struct hier_state *s = state;
    s->my_sense ^= 1u;
    if (!s->leader && __atomic_add_fetch(&s->ctl->arrived, 1, __ATOMIC_SEQ_CST) == s->members)
        rch_coll_bar_wake_local(&s->waiter, 0);
    return RDMACH_OK;
}

static rdmach_status_t hier_wait(void *state)
{
    struct hier_state *s = state;
    if (!s->leader)
        return rch_coll_bar_wait_value(&s->waiter, &s->ctl->sense, s->my_sense);
    rdmach_status_t st = RDMACH_OK;
    if (s->members > 0) {
        st = rch_coll_bar_wait_value(&s->waiter, &s->ctl->arrived, s->members);
        __atomic_store_n(&s->ctl->arrived, 0, __ATOMIC_RELAXED);
    }
    if (st == RDMACH_OK)
        st = rch_coll_barrier_dissem_run(&s->leaders, RCH_COLL_TAG_BARRIER_LEADERS);
    /* Release the node even on error, so its members do not hang; the
     * error is reported by the leader. */
    if (s->members > 0)
        rch_coll_bar_post(&s->waiter, &s->ctl->sense, s->my_sense, -1);
    return st;
}

static void hier_finalize(void *state)
{
    struct hier_state *s = state;
    rch_coll_bar_seg_release(&s->seg);
    rch_coll_bar_waiter_free(&s->waiter);
    free(s->leader_world);
    free(s);
}

const struct rch_coll_barrier_ops rch_coll_barrier_hier_ops = {
    .name = "hier",
    .summary = "shared memory within each node, dissemination among the node leaders",
    .priority = 40,
    .applies = hier_applies,
    .init = hier_init,
    .enter = hier_enter,
    .wait = hier_wait,
    .finalize = hier_finalize,
};
