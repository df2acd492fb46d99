/*
 * Intercommunicators (MPI-4.1 7.6): Intercomm_create, Intercomm_merge, and
 * the split/dup/create of an intercommunicator (rch_mpi_inter_split, which
 * rch_mpi_comm_split_common hands intercommunicators to).
 *
 * Representation (mpi_impl.h, struct rch_mpi_comm): rank, size and world_of
 * are the local group, as MPI_Comm_rank/size/group report them; peer_size
 * and peer_world_of are the remote group, which point-to-point ranks name.
 * Messages carry the sender's local rank, so a receive's source is a remote
 * rank with no translation, and the device needs nothing new: ctx and
 * ctx + 1 are mapped to the remote group. `local` is a hidden duplicate of
 * the local group (its own context pair), on which the collectives run
 * their local phases.
 *
 * Agreement (inter_allgather): every member contributes a small fixed-size
 * record; the local group gathers them with its free context-id masks
 * (rch_mpi_exchange on `local`), the two local rank 0s swap tables and
 * masks on ctx + 1, and each broadcasts the remote table and the AND of
 * both masks to its group. So every member of both groups sees both tables
 * and can pick the same lowest context pair free everywhere.
 *
 *    group A: gather ──> A0 <══ swap on ctx + 1 ══> B0 <── gather :group B
 *             bcast  <── A0                         B0 ──> bcast
 */
#include <stdlib.h>
#include <string.h>
#include "boot/boot.h"
#include "mpi/dyn.h"
#include "mpi/mpi_impl.h"

/* Tags on an intercommunicator's ctx + 1 (the collectives use small ones). */
#define TAG_SWAP 0x7ffffff4

int rch_mpi_intra_only(const char *fn, struct rch_mpi_comm *c, const char *arg)
{
    if (!c->is_inter)
        return MPI_SUCCESS;
    return rch_mpi_err(c->handle, MPI_ERR_COMM,
                       "%s: argument %s is an intercommunicator (an intracommunicator is required)", fn, arg);
}

struct rch_mpi_comm *rch_mpi_inter_create(int rank, int size, int *world_of, int rsize, int *rworld_of,
                                          uint32_t ctx, struct rch_mpi_comm *local)
{
    struct rch_mpi_comm *c = rch_mpi_comm_create(rank, size, world_of, ctx);
    if (!c)
        return NULL;
    c->is_inter = 1;
    c->peer_size = rsize;
    c->peer_world_of = rworld_of;
    c->local = local;
    /* Receives name remote ranks on both contexts: a dead remote peer fails them. */
    if (rch_dev_ctx_map(ctx, rsize, rworld_of) != RDMACH_OK ||
        rch_dev_ctx_map(ctx + 1, rsize, rworld_of) != RDMACH_OK) {
        c->is_inter = 0;   /* the caller still owns rworld_of and local */
        c->peer_world_of = c->world_of;
        c->local = NULL;
        c->world_of = NULL;
        rch_mpi_comm_destroy(c);
        return NULL;
    }
    return c;
}

/* Send out (outlen bytes) to rank remote_leader of c's remote group and
 * receive in (inlen) from it, on (tag, ctx). */
static rdmach_status_t leaders_swap(struct rch_mpi_comm *c, int remote_leader, int tag, uint32_t ctx,
                                    const void *out, size_t outlen, void *in, size_t inlen)
{
    struct rch_dev_req *s = NULL, *r = NULL;
    rdmach_status_t st = rch_dev_irecv(in, inlen, remote_leader, tag, ctx, &r);
    if (st == RDMACH_OK)
        st = rch_dev_isend(out, outlen, c->peer_world_of[remote_leader], c->rank, tag, ctx, RCH_DEV_SEND_STD, &s);
    rdmach_status_t s1 = rch_mpi_wait_free(s), s2 = rch_mpi_wait_free(r);
    return st != RDMACH_OK ? st : s1 != RDMACH_OK ? s1 : s2;
}

/* Every member of both groups contributes `bytes` of `mine`: on return mine_all
 * (size * bytes, may be NULL when bytes is 0) holds the local group's records
 * and remote_all (peer_size * bytes) the remote group's, in rank order; with a
 * mask, every member's offer (rch_mpi_ctx_round_begin) in *m, ANDed there. */
static rdmach_status_t inter_allgather(struct rch_mpi_comm *c, const void *mine, size_t bytes, void *mine_all,
                                       void *remote_all, struct rch_mpi_ctxmask *m)
{
    size_t mbytes = m ? sizeof(*m) : 0;
    size_t lsz = (size_t)c->size * bytes, rsz = (size_t)c->peer_size * bytes;
    char *out = malloc(lsz + mbytes + 1), *in = malloc(rsz + mbytes + 1);
    rdmach_status_t st = RDMACH_OK;
    if (!out || !in) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "intercommunicator exchange: out of memory");
        goto out_free;
    }
    st = rch_mpi_exchange(c->local, mine, bytes, out, m);
    if (st != RDMACH_OK)
        goto out_free;
    if (m)
        memcpy(out + lsz, m, mbytes);
    if (c->rank == 0)
        st = leaders_swap(c, 0, TAG_SWAP, c->ctx + 1, out, lsz + mbytes, in, rsz + mbytes);
    /* the leader's status travels with the data: nobody waits for a failed swap */
    char ok = st == RDMACH_OK;
    in[rsz + mbytes] = ok;
    rdmach_status_t bs = rch_coll_bcast(&c->local->coll, in, rsz + mbytes + 1, 0);
    if (st == RDMACH_OK && bs != RDMACH_OK)
        st = bs;
    if (st == RDMACH_OK && !in[rsz + mbytes])
        st = rch_base_err(RDMACH_ERR_PEER_DEAD, "intercommunicator exchange: the group's leader failed to reach "
                          "the remote group");
    if (st != RDMACH_OK)
        goto out_free;
    if (mine_all)
        memcpy(mine_all, out, lsz);
    if (remote_all)
        memcpy(remote_all, in, rsz);
    if (m) {
        struct rch_mpi_ctxmask o;
        memcpy(&o, in + rsz, sizeof(o));
        for (unsigned w = 0; w < RCH_ARRAY_SIZE(m->w); w++)
            m->w[w] &= o.w[w];
    }
out_free:
    free(out);
    free(in);
    return st;
}

/* inter_allgather in the rounds of a context agreement (ctxid.c,
 * "Threads"; the intercommunicator's context ranks it, the same at both
 * groups): *ctx is the pair agreed, taken here, or UINT32_MAX. */
static rdmach_status_t inter_agree(struct rch_mpi_comm *c, const void *mine, size_t bytes, void *mine_all,
                                   void *remote_all, uint32_t *ctx)
{
    uint64_t key = (uint64_t)c->ctx << 32 | UINT32_MAX;
    rdmach_status_t st;
    int round = 0;
    do {
        struct rch_mpi_ctxmask m;
        int holder = rch_mpi_ctx_round_begin(key, 2, round++, &m);
        st = inter_allgather(c, mine, bytes, mine_all, remote_all, &m);
        *ctx = rch_mpi_ctx_round_end(holder, key, &m, st == RDMACH_OK);
    } while (*ctx == RCH_MPI_CTX_AGAIN);
    return st;
}

rdmach_status_t rch_mpi_inter_sync(struct rch_mpi_comm *c)
{
    return inter_allgather(c, NULL, 0, NULL, NULL, NULL);
}

static int exchange_failed(const char *fn, MPI_Comm comm, rdmach_status_t st)
{
    return rch_mpi_err(comm, rch_mpi_class_of(st), "%s: exchange with the other members failed: %s", fn,
                       rdmach_last_error());
}

static int no_ctx(const char *fn, MPI_Comm comm)
{
    return rch_mpi_err(comm, MPI_ERR_INTERN, "%s: no context id is free at every member (%d communicators exist)",
                       fn, RCH_MPI_CTX_PAIRS);
}

/* A hidden duplicate of intracommunicator p (errors returned, not raised:
 * the caller reports them on the communicator the user named). */
int rch_mpi_comm_hidden_dup(const char *fn, struct rch_mpi_comm *p, int color, int key, struct rch_mpi_comm **out)
{
    MPI_Errhandler eh = p->errhandler;
    MPI_Comm h = MPI_COMM_NULL;
    p->errhandler = MPI_ERRORS_RETURN;
    int err = rch_mpi_comm_split_common(fn, p, color, key, &h, 0);
    p->errhandler = eh;
    *out = h == MPI_COMM_NULL ? NULL : rch_mpi_comm_get(h);
    if (*out)
        (*out)->errhandler = MPI_ERRORS_RETURN;
    return err;
}

/* ---- MPI_Intercomm_create ---- */

/* What the leaders swap first over the peer communicator. When both are of
 * one job and their groups have only its processes, each then sends its
 * group's world ranks (`size` ints); otherwise world ranks mean nothing at
 * the other side, and the groups connect as MPI_Comm_accept/connect's do
 * (dyn.h), over a port the acceptor leader opens and names in a message. */
struct leader_msg {
    struct rch_mpi_ctxmask mask;
    uint64_t job;             /* hash of the job's kvsname */
    int32_t size;
    int32_t leader;           /* the sender's rank in its job */
    int32_t foreign;          /* its group has processes of other jobs */
    int32_t pad;
};
/* How the leaders reach each other: remote_leader is a rank of peer_comm; the
 * user's tag on its point-to-point context, or (internal) an internal tag on
 * its collective context. */
struct via {
    MPI_Comm peer_comm;
    int remote_leader, tag, internal;
};
/* What a leader broadcasts to its group: status (an MPI error class, 0 if
 * fine), both groups' offers of context pairs ANDed, the key that ranks the
 * agreement's later rounds (ctxid.c, "Threads") and the remote group's size;
 * the remote group follows. dyn: the groups connect as dyn.h's do, this
 * group as the acceptor or not. */
struct leader_hdr {
    struct rch_mpi_ctxmask mask;
    uint64_t key;
    int errclass;
    int rsize;
    int dyn, acceptor;
};
/* The leader's side of the dyn way: its link to the other leader (-1 if it
 * failed, with root_err the class). */
struct dyn_way {
    int link, root_err, acceptor;
};
/* create_inter's answer when the groups connect the dyn way. */
#define GO_DYN (-1)

#define GROUP_MAX (1 << 20)

static uint64_t job_hash(void)
{
    uint64_t h = 1469598103934665603ull;      /* FNV-1a */
    for (const char *k = rch_boot.kvsname; *k; k++)
        h = (h ^ (unsigned char)*k) * 1099511628211ull;
    return h;
}

/* The leader's side: swap groups and masks with the remote leader over peer. */
static int leader_part(const char *fn, struct rch_mpi_comm *lc, struct rch_mpi_comm *local, const struct via *v,
                       const struct rch_mpi_ctxmask *mask, struct leader_hdr *h, int **rworld, struct dyn_way *way)
{
    int err;
    struct rch_mpi_comm *peer = rch_mpi_comm_arg(fn, v->peer_comm, &err);
    if (!peer)
        return err;
    int remote_leader = v->remote_leader, tag = v->tag;
    uint32_t ctx = peer->ctx + (v->internal ? 1 : 0);
    if (remote_leader < 0 || remote_leader >= peer->peer_size)
        return rch_mpi_err(lc->handle, MPI_ERR_RANK, "%s: invalid rank %d in argument remote_leader (peer_comm "
                           "size %d)", fn, remote_leader, peer->peer_size);
    struct leader_msg out = { .mask = *mask, .job = job_hash(), .size = local->size, .leader = rch_boot.rank }, in;
    for (int i = 0; i < local->size; i++)
        out.foreign |= local->world_of[i] >= rch_boot.size;
    rdmach_status_t st = leaders_swap(peer, remote_leader, tag, ctx, &out, sizeof(out), &in, sizeof(in));
    if (st != RDMACH_OK)
        return exchange_failed(fn, lc->handle, st);
    if (in.size < 1 || in.size > GROUP_MAX)
        return rch_mpi_err(lc->handle, MPI_ERR_INTERN, "%s: the remote leader sent a malformed group (%d members)",
                           fn, in.size);
    h->dyn = in.job != out.job || in.foreign || out.foreign;
    if (h->dyn) {
        if (in.job == out.job && in.leader == out.leader)
            return rch_mpi_err(lc->handle, MPI_ERR_COMM, "%s: the remote leader is the local leader (the groups "
                               "must be disjoint)", fn);
        h->acceptor = in.job != out.job ? out.job < in.job : out.leader < in.leader;
        way->root_err = rch_dyn_leader_link(peer, remote_leader, tag, ctx, h->acceptor, &way->link);
        return MPI_SUCCESS;
    }
    if (in.size > rch_boot.size)
        return rch_mpi_err(lc->handle, MPI_ERR_INTERN, "%s: the remote leader sent a malformed group (%d members "
                           "of a job of %d)", fn, in.size, rch_boot.size);
    *rworld = malloc((size_t)in.size * sizeof(int));
    if (!*rworld)
        return rch_mpi_err(lc->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    st = leaders_swap(peer, remote_leader, tag, ctx, local->world_of, (size_t)local->size * sizeof(int), *rworld,
                      (size_t)in.size * sizeof(int));
    if (st != RDMACH_OK)
        return exchange_failed(fn, lc->handle, st);
    /* MPI: the two groups are disjoint. */
    for (int i = 0; i < in.size; i++) {
        int w = (*rworld)[i];
        if (w < 0 || w >= rch_boot.size)
            return rch_mpi_err(lc->handle, MPI_ERR_INTERN, "%s: the remote leader sent a malformed group (rank %d)",
                               fn, w);
        for (int j = 0; j < local->size; j++)
            if (w == local->world_of[j])
                return rch_mpi_err(lc->handle, MPI_ERR_COMM, "%s: world rank %d is in both the local and the "
                                   "remote group (they must be disjoint)", fn, w);
    }
    h->mask = *mask;
    for (unsigned w = 0; w < RCH_ARRAY_SIZE(h->mask.w); w++)
        h->mask.w[w] &= in.mask.w[w];
    /* peer_comm and tag are the same at both leaders; bit 31 ranks it among
     * the group creations (tags below it) and dups (all ones) of peer_comm */
    h->key = (uint64_t)peer->ctx << 32 | 0x80000000u | ((uint32_t)tag & 0x7fffffffu);
    h->rsize = in.size;
    return MPI_SUCCESS;
}

/* Everyone's part after the local duplicate, in the rounds of a context
 * agreement (ctxid.c, "Threads"): the local AND of the offers, the leader's
 * swap, the leader's broadcast of the outcome; then the object. */
static int create_inter(const char *fn, struct rch_mpi_comm *lc, struct rch_mpi_comm *local, int local_leader,
                        const struct via *v, struct dyn_way *way, MPI_Comm *newintercomm)
{
    struct leader_hdr h;
    int *rworld = NULL, err = MPI_SUCCESS;
    uint64_t key = UINT64_MAX;             /* the leaders' h.key from the second round on */
    uint32_t ctx;
    int round = 0;
    do {
        struct rch_mpi_ctxmask mask;
        int holder = rch_mpi_ctx_round_begin(key, 2, round++, &mask);
        rdmach_status_t st = rch_mpi_exchange(local, NULL, 0, NULL, &mask);
        memset(&h, 0, sizeof(h));
        free(rworld);
        rworld = NULL;
        if (st == RDMACH_OK && local->rank == local_leader) {
            err = leader_part(fn, lc, local, v, &mask, &h, &rworld, way);
            h.errclass = RCH_MPI_ERR_CLASS(err);
            if (err) {
                free(rworld);
                rworld = NULL;
            }
        }
        /* The leader's error reaches everyone, so no member waits for a group
         * that never comes; each reports it as its own. */
        if (st == RDMACH_OK)
            st = rch_coll_bcast(&local->coll, &h, sizeof(h), local_leader);
        int agreeing = st == RDMACH_OK && h.errclass == 0 && !h.dyn;
        ctx = rch_mpi_ctx_round_end(holder, key, &h.mask, agreeing);
        key = h.key;
        if (st != RDMACH_OK) {
            free(rworld);
            return exchange_failed(fn, lc->handle, st);
        }
        if (h.errclass != 0) {
            if (local->rank == local_leader)
                return err;
            return rch_mpi_err(lc->handle, h.errclass, "%s: the local leader (rank %d) failed to connect the groups",
                               fn, local_leader);
        }
    } while (ctx == RCH_MPI_CTX_AGAIN);
    if (h.dyn) {
        way->acceptor = h.acceptor;
        return GO_DYN;
    }
    if (ctx == UINT32_MAX) {
        free(rworld);
        return no_ctx(fn, lc->handle);
    }
    if (local->rank != local_leader && !(rworld = malloc((size_t)h.rsize * sizeof(int)))) {
        rch_mpi_ctx_release(ctx);
        return rch_mpi_err(lc->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    rdmach_status_t st = rch_coll_bcast(&local->coll, rworld, (size_t)h.rsize * sizeof(int), local_leader);
    int *lworld = malloc((size_t)local->size * sizeof(int));
    if (st != RDMACH_OK || !lworld) {
        free(rworld);
        free(lworld);
        rch_mpi_ctx_release(ctx);
        return st != RDMACH_OK ? exchange_failed(fn, lc->handle, st)
                               : rch_mpi_err(lc->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    memcpy(lworld, local->world_of, (size_t)local->size * sizeof(int));
    struct rch_mpi_comm *c = rch_mpi_inter_create(local->rank, local->size, lworld, h.rsize, rworld, ctx, local);
    if (!c) {
        free(rworld);
        free(lworld);
        rch_mpi_ctx_release(ctx);
        return rch_mpi_err(lc->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    c->errhandler = lc->errhandler;
    *newintercomm = c->handle;
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm *newintercomm)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Intercomm_create";
    struct rch_mpi_comm *lc;
    int err = rch_mpi_comm_maker_check(fn, local_comm, newintercomm, &lc);
    if (err || (err = rch_mpi_intra_only(fn, lc, "local_comm")))
        return err;
    if (local_leader < 0 || local_leader >= lc->size)
        return rch_mpi_err(local_comm, MPI_ERR_RANK, "%s: invalid rank %d in argument local_leader (local_comm "
                           "size %d)", fn, local_leader, lc->size);
    if (tag < 0 || tag > RCH_MPI_TAG_UB)
        return rch_mpi_err(local_comm, MPI_ERR_TAG, "%s: invalid tag %d in argument tag (0 .. MPI_TAG_UB)", fn, tag);
    *newintercomm = MPI_COMM_NULL;
    struct rch_mpi_comm *local;
    err = rch_mpi_comm_hidden_dup(fn, lc, 0, lc->rank, &local);
    if (err)
        return rch_mpi_err_raise(local_comm, err);
    struct via v = { peer_comm, remote_leader, tag, 0 };
    struct dyn_way way = { .link = -1, .root_err = 0, .acceptor = 0 };
    err = create_inter(fn, lc, local, local_leader, &v, &way, newintercomm);
    if (err)
        rch_mpi_comm_destroy(local);
    if (err == GO_DYN)
        err = rch_dyn_establish(fn, lc, local_leader, way.acceptor, way.link, way.root_err, newintercomm);
    return err;
}
#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create

/* ---- MPI_Intercomm_create_from_groups (MPI-4.0) ----
 * rdmach has no sessions: every group is one of MPI_COMM_WORLD's processes,
 * so the local group becomes a communicator as Comm_create_group over world
 * would make it, and the leaders meet over world's collective context, on a
 * tag hashed from stringtag into a range no collective uses (both groups
 * pass the same stringtag; MPI makes distinct concurrent calls use distinct
 * ones). Argument errors are raised on MPI_COMM_SELF (there is no
 * communicator yet), later ones with the errhandler argument. */
#define TAG_FROM_GROUPS_BASE 0x7e000000
#define TAG_FROM_GROUPS_SPAN 0x00ffffff

static int stringtag_hash(const char *s)
{
    uint32_t h = 2166136261u;              /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return TAG_FROM_GROUPS_BASE + (int)(h % TAG_FROM_GROUPS_SPAN);
}

static int check_group_arg(const char *fn, MPI_Group group, int leader, const char *garg, const char *larg,
                           struct rch_mpi_group **gp)
{
    struct rch_mpi_group *g = rch_mpi_group_get(group);
    if (!g)
        return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_GROUP, "%s: invalid group 0x%x in argument %s", fn,
                           (unsigned)group, garg);
    if (leader < 0 || leader >= g->size)
        return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_RANK, "%s: invalid rank %d in argument %s (%s size %d)", fn, leader,
                           larg, garg, g->size);
    *gp = g;
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                      int remote_leader, const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Intercomm_create_from_groups";
    struct rch_mpi_group *lg = NULL, *rg = NULL;
    int err = rch_mpi_check_init(fn);
    if (err || (err = check_group_arg(fn, local_group, local_leader, "local_group", "local_leader", &lg)) ||
        (err = check_group_arg(fn, remote_group, remote_leader, "remote_group", "remote_leader", &rg)) ||
        (err = rch_mpi_info_check(MPI_COMM_SELF, fn, info)))
        return err;
    if (!stringtag || !newintercomm)
        return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_ARG, "%s: argument %s is NULL", fn,
                           !stringtag ? "stringtag" : "newintercomm");
    if (!rch_mpi_errhandler_valid(errhandler))
        return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_ARG, "%s: invalid error handler 0x%x in argument errhandler", fn,
                           (unsigned)errhandler);
    if (lg->rank == MPI_UNDEFINED)
        return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_GROUP, "%s: the calling process is not in argument local_group",
                           fn);
    *newintercomm = MPI_COMM_NULL;
    MPI_Comm lh = MPI_COMM_NULL;
    err = PMPI_Comm_create_group(MPI_COMM_WORLD, local_group, 0, &lh);
    if (err)
        return err;
    struct rch_mpi_comm *local = rch_mpi_comm_get(lh);
    local->errhandler = errhandler;    /* errors from here on are the new communicator's */
    struct via v = { MPI_COMM_WORLD, rg->world_of[remote_leader], stringtag_hash(stringtag), 1 };
    struct dyn_way way = { .link = -1, .root_err = 0, .acceptor = 0 };
    err = create_inter(fn, local, local, local_leader, &v, &way, newintercomm);
    local->errhandler = MPI_ERRORS_RETURN;
    if (err) {
        rch_mpi_comm_destroy(local);
        return err;
    }
    rch_mpi_comm_get(*newintercomm)->errhandler = errhandler;
    return MPI_SUCCESS;
}
#pragma weak MPI_Intercomm_create_from_groups = PMPI_Intercomm_create_from_groups

/* ---- MPI_Intercomm_merge ---- */

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Intercomm_merge";
    struct rch_mpi_comm *c;
    int err = rch_mpi_comm_maker_check(fn, intercomm, newintracomm, &c);
    if (err)
        return err;
    if (!c->is_inter)
        return rch_mpi_err(intercomm, MPI_ERR_COMM, "%s: argument intercomm is an intracommunicator (an "
                           "intercommunicator is required)", fn);
    int *lhighs = malloc((size_t)c->size * sizeof(int)), *rhighs = malloc((size_t)c->peer_size * sizeof(int));
    int *world_of = malloc(((size_t)c->size + (size_t)c->peer_size) * sizeof(int));
    int mine = high != 0;
    uint32_t ctx = UINT32_MAX;
    rdmach_status_t st = !lhighs || !rhighs || !world_of
                             ? rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: out of memory", fn)
                             : inter_agree(c, &mine, sizeof(int), lhighs, rhighs, &ctx);
    /* MPI: the group that passed high = false comes first; when both passed
     * the same value the order is the implementation's: here the group whose
     * rank 0 has the lower world rank. Rank 0's value speaks for its group
     * (every member must pass the same). */
    int lhigh = st == RDMACH_OK ? lhighs[0] : 0, rhigh = st == RDMACH_OK ? rhighs[0] : 0;
    free(lhighs);
    free(rhighs);
    if (ctx == UINT32_MAX) {
        free(world_of);
        return st != RDMACH_OK ? exchange_failed(fn, intercomm, st) : no_ctx(fn, intercomm);
    }
    /* world ranks of other jobs' processes are numbered by each process
     * for itself (dyn_connect.c): there the acceptor's group is first */
    int local_first = lhigh != rhigh ? !lhigh
                      : c->dyn_first ? c->dyn_first > 0 : c->world_of[0] < c->peer_world_of[0];
    int *lo = world_of + (local_first ? 0 : c->peer_size), *ro = world_of + (local_first ? c->size : 0);
    memcpy(lo, c->world_of, (size_t)c->size * sizeof(int));
    memcpy(ro, c->peer_world_of, (size_t)c->peer_size * sizeof(int));
    int n = c->size + c->peer_size;
    struct rch_mpi_comm *m = NULL;
    err = rch_mpi_comm_child(fn, c, (int)(lo - world_of) + c->rank, n, world_of, ctx, &m);
    if (!err)
        *newintracomm = m->handle;
    return err;
}
#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge

/* ---- split, dup, create of an intercommunicator ---- */

struct split_rec {
    int color, key;
};

/* The remote members of my color ordered by (key, remote rank): their world
 * ranks in a new array (*n of them), or NULL with *n = -1 out of memory. */
static int *remote_of_color(const struct rch_mpi_comm *p, const struct split_rec *rem, int color, int *n)
{
    struct rch_mpi_member *mem = malloc((size_t)p->peer_size * sizeof(*mem));
    int *w = malloc((size_t)p->peer_size * sizeof(int));
    *n = -1;
    if (!mem || !w) {
        free(mem);
        free(w);
        return NULL;
    }
    int k = 0;
    for (int r = 0; r < p->peer_size; r++)
        if (rem[r].color == color)
            mem[k++] = (struct rch_mpi_member){ rem[r].key, r };
    qsort(mem, (size_t)k, sizeof(*mem), rch_mpi_member_cmp);
    for (int i = 0; i < k; i++)
        w[i] = p->peer_world_of[mem[i].prank];
    free(mem);
    *n = k;
    return w;
}

int rch_mpi_inter_split(const char *fn, struct rch_mpi_comm *p, int color, int key, MPI_Comm *newcomm, int is_dup)
{
    *newcomm = MPI_COMM_NULL;
    /* The new local group first: its context pair is then taken at every
     * member before the masks for the intercommunicator's pair are read. */
    struct rch_mpi_comm *local;
    int err = rch_mpi_comm_hidden_dup(fn, p->local, color, key, &local);
    if (err)
        return rch_mpi_err_raise(p->handle, err);
    struct split_rec mine = { color, key }, *rem = malloc((size_t)p->peer_size * sizeof(*rem));
    if (!rem) {
        rch_mpi_comm_destroy(local);
        return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    uint32_t ctx;
    rdmach_status_t st = inter_agree(p, &mine, sizeof(mine), NULL, rem, &ctx);
    if (st != RDMACH_OK || ctx == UINT32_MAX || !local) {
        free(rem);
        if (ctx != UINT32_MAX)
            rch_mpi_ctx_release(ctx);       /* MPI_UNDEFINED here: no intercommunicator */
        if (local)
            rch_mpi_comm_destroy(local);
        return st != RDMACH_OK ? exchange_failed(fn, p->handle, st)
                               : ctx == UINT32_MAX ? no_ctx(fn, p->handle) : MPI_SUCCESS;
    }
    int rn;
    int *rworld = remote_of_color(p, rem, color, &rn);
    free(rem);
    int *lworld = malloc((size_t)local->size * sizeof(int));
    if (!rworld || !lworld || rn == 0) {   /* MPI: no remote member of my color, no intercommunicator */
        free(rworld);
        free(lworld);
        rch_mpi_comm_destroy(local);
        rch_mpi_ctx_release(ctx);
        return rn == 0 ? MPI_SUCCESS : rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    memcpy(lworld, local->world_of, (size_t)local->size * sizeof(int));
    struct rch_mpi_comm *c = rch_mpi_inter_create(local->rank, local->size, lworld, rn, rworld, ctx, local);
    if (!c) {
        free(rworld);
        free(lworld);
        rch_mpi_comm_destroy(local);
        rch_mpi_ctx_release(ctx);
        return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    c->errhandler = p->errhandler;
    if (is_dup)
        return rch_mpi_comm_dup_extras(p, c, newcomm);
    *newcomm = c->handle;
    return MPI_SUCCESS;
}
