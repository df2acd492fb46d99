/*
 * Communicators from groups: Comm_create (collective over the parent) and
 * Comm_create_group (collective over the group's members only).
 *
 * Comm_create is a split: members of a group take as color the parent rank
 * of the group's first member and their group rank as key, everyone else
 * MPI_UNDEFINED (so disjoint groups passed by different processes give one
 * communicator each, as MPI-2.2 allows); the split's exchange agrees on the
 * context id over the whole parent.
 *
 * Comm_create_group cannot involve the other members of the parent, so the
 * members run the same gather/AND/broadcast of context-id masks among
 * themselves, rooted at group rank 0, on the parent's collective context
 * with their own tags (RCH_MPI_TAG_GRPX_*). Messages carry parent ranks, as
 * every message on the parent's contexts does. A process runs one such
 * exchange at a time and matching is non-overtaking per sender, so
 * successive calls pair up in order; the user's tag (which MPI provides to
 * tell apart concurrent calls from several threads) is checked but not
 * needed at MPI_THREAD_SERIALIZED.
 */
#include <stdlib.h>
#include <string.h>
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

/* prank[i] = the parent rank of group member i; MPI_ERR_GROUP if one is not
 * in the parent. */
static int parent_ranks(const char *fn, struct rch_mpi_comm *p, const struct rch_mpi_group *g, int **out)
{
    int *pos = malloc((size_t)rch_dev_nprocs() * sizeof(int));
    int *prank = malloc(((size_t)g->size + 1) * sizeof(int));
    if (!pos || !prank) {
        free(pos);
        free(prank);
        return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int w = 0; w < rch_dev_nprocs(); w++)
        pos[w] = -1;
    for (int r = 0; r < p->size; r++)
        pos[p->world_of[r]] = r;
    for (int i = 0; i < g->size; i++) {
        prank[i] = pos[g->world_of[i]];
        if (prank[i] < 0) {
            int w = g->world_of[i];
            free(pos);
            free(prank);
            return rch_mpi_err(p->handle, MPI_ERR_GROUP,
                               "%s: member %d of argument group (world rank %d) is not in argument comm", fn, i, w);
        }
    }
    free(pos);
    *out = prank;
    return MPI_SUCCESS;
}

static int check_args(const char *fn, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm,
                      struct rch_mpi_comm **pp, struct rch_mpi_group **gp)
{
    struct rch_mpi_comm *p;
    int err = rch_mpi_comm_maker_check(fn, comm, newcomm, &p);
    if (err)
        return err;
    struct rch_mpi_group *g = rch_mpi_group_get(group);
    if (!g)
        return rch_mpi_err(comm, MPI_ERR_GROUP, "%s: invalid group 0x%x in argument group", fn, (unsigned)group);
    *pp = p;
    *gp = g;
    return MPI_SUCCESS;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Comm_create";
    struct rch_mpi_comm *p = NULL;
    struct rch_mpi_group *g = NULL;
    int err = check_args(fn, comm, group, newcomm, &p, &g);
    if (err)
        return err;
    int *prank;
    err = parent_ranks(fn, p, g, &prank);
    if (err)
        return err;
    /* MPI-2.2: the processes may pass different, disjoint groups and get one
     * communicator per group. The parent rank of a group's first member
     * names the group: disjoint groups have different first members. On an
     * intercommunicator each group passes one subgroup of its own, and the
     * two halves meet under one color (rch_mpi_inter_split). */
    int color = g->rank == MPI_UNDEFINED ? MPI_UNDEFINED : p->is_inter ? 0 : prank[0];
    free(prank);
    return rch_mpi_comm_split_common(fn, p, color, g->rank, newcomm, 0);
}
#pragma weak MPI_Comm_create = PMPI_Comm_create

/* The members' context-id agreement: on return *m is the AND of every
 * member's mask, at every member. me is my group rank. */
static rdmach_status_t group_mask_exchange(struct rch_mpi_comm *p, int n, const int *prank, int me,
                                           struct rch_mpi_ctxmask *m, int tag_up, int tag_down)
{
    uint32_t ctx = p->ctx + 1;
    rdmach_status_t st = RDMACH_OK;
    if (n == 1)
        return RDMACH_OK;
    if (me != 0) {
        struct rch_dev_req *r = NULL;
        st = rch_dev_isend(m, sizeof(*m), p->world_of[prank[0]], p->rank, tag_up, ctx, RCH_DEV_SEND_STD, &r);
        if (st == RDMACH_OK)
            st = rch_mpi_wait_free(r);
        r = NULL;
        if (st == RDMACH_OK)
            st = rch_dev_irecv(m, sizeof(*m), prank[0], tag_down, ctx, &r);
        if (st == RDMACH_OK)
            st = rch_mpi_wait_free(r);
        return st;
    }
    struct rch_mpi_ctxmask *in = malloc((size_t)(n - 1) * sizeof(*in));
    struct rch_dev_req **reqs = calloc((size_t)(n - 1), sizeof(*reqs));
    if (!in || !reqs) {
        free(in);
        free(reqs);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "MPI_Comm_create_group: out of memory");
    }
    for (int i = 1; i < n && st == RDMACH_OK; i++)
        st = rch_dev_irecv(&in[i - 1], sizeof(*in), prank[i], tag_up, ctx, &reqs[i - 1]);
    for (int i = 0; i < n - 1; i++) {
        rdmach_status_t s2 = rch_mpi_wait_free(reqs[i]);
        if (st == RDMACH_OK)
            st = s2;
        reqs[i] = NULL;
    }
    if (st == RDMACH_OK) {
        for (int i = 0; i < n - 1; i++)
            for (unsigned w = 0; w < RCH_ARRAY_SIZE(m->w); w++)
                m->w[w] &= in[i].w[w];
        for (int i = 1; i < n && st == RDMACH_OK; i++)
            st = rch_dev_isend(m, sizeof(*m), p->world_of[prank[i]], p->rank, tag_down, ctx, RCH_DEV_SEND_STD,
                               &reqs[i - 1]);
        for (int i = 0; i < n - 1; i++) {
            rdmach_status_t s2 = rch_mpi_wait_free(reqs[i]);
            if (st == RDMACH_OK)
                st = s2;
        }
    }
    free(reqs);
    free(in);
    return st;
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Comm_create_group";
    struct rch_mpi_comm *p = NULL;
    struct rch_mpi_group *g = NULL;
    int err = check_args(fn, comm, group, newcomm, &p, &g);
    if (err || (err = rch_mpi_intra_only(fn, p, "comm")))
        return err;
    if (tag < 0 || tag > RCH_MPI_TAG_UB)
        return rch_mpi_err(comm, MPI_ERR_TAG, "%s: invalid tag %d in argument tag (0 .. MPI_TAG_UB)", fn, tag);
    if (g->rank == MPI_UNDEFINED) {   /* not a member: nothing to take part in */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    /* Calls on one parent from several threads at once are told apart by
     * their tags (MPI 4.1 7.4.2): the exchange runs on the tag's own
     * internal tag, negative so that no collective's tag is one; one tag
     * serves both ways (up to the leader, down from it). -1 is the device's
     * MPI_ANY_TAG, so MPI_TAG_UB takes a tag of its own. */
    int t = tag == RCH_MPI_TAG_UB ? RCH_MPI_TAG_GRPX_UP : (int)((int64_t)INT32_MIN + tag);
    return rch_mpi_comm_from_members(fn, p, g, t, t, p->errhandler, newcomm);
}
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group

int rch_mpi_comm_from_members(const char *fn, struct rch_mpi_comm *p, const struct rch_mpi_group *g, int tag_up,
                              int tag_down, MPI_Errhandler eh, MPI_Comm *newcomm)
{
    MPI_Comm comm = p->handle;
    int *prank;
    int err = parent_ranks(fn, p, g, &prank);
    if (err)
        return err;
    struct rch_mpi_ctxmask mask;
    rdmach_status_t st;
    uint32_t ctx;
    uint64_t key = (uint64_t)p->ctx << 32 | (uint32_t)tag_up;   /* from_group: one parent, many tags */
    int round = 0;
    do {
        int holder = rch_mpi_ctx_round_begin(key, g->size, round++, &mask);
        st = group_mask_exchange(p, g->size, prank, g->rank, &mask, tag_up, tag_down);
        ctx = rch_mpi_ctx_round_end(holder, key, &mask, st == RDMACH_OK);
    } while (ctx == RCH_MPI_CTX_AGAIN);
    free(prank);
    if (st != RDMACH_OK)
        return rch_mpi_err(comm, rch_mpi_class_of(st), "%s: exchange with the other members failed: %s", fn,
                           rdmach_last_error());
    if (ctx == UINT32_MAX)
        return rch_mpi_err(comm, MPI_ERR_INTERN, "%s: no context id is free at every member (%d communicators exist)",
                           fn, RCH_MPI_CTX_NB_FIRST);
    int *world_of = malloc((size_t)g->size * sizeof(int));
    if (!world_of) {
        rch_mpi_ctx_release(ctx);
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    memcpy(world_of, g->world_of, (size_t)g->size * sizeof(int));
    struct rch_mpi_comm *c = NULL;
    err = rch_mpi_comm_child(fn, p, g->rank, g->size, world_of, ctx, &c);
    if (err)
        return err;
    c->errhandler = eh;
    c->session = g->session ? g->session : p->session;
    *newcomm = c->handle;
    return MPI_SUCCESS;
}
