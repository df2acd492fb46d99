/*
 * Establishing an intercommunicator between two groups of different jobs
 * (the protocol is in dyn.h).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include "base/log.h"
#include "mpi/dyn.h"
#include "rdma/net/net_dyn.h"

/* What the roots send each other over their link; the contacts follow. */
struct root_rec {
    uint32_t magic;
    int32_t size;
    uint64_t op_id;                   /* the acceptor's; 0 from the connector */
    struct rch_mpi_ctxmask mask;
};
/* What a root broadcasts to its group; the remote contacts follow. */
struct outcome {
    int errclass;
    uint32_t ctx;
    int rsize;
    uint64_t op_id;
};
/* The first bytes of a member-to-member connection. */
struct pair_hello {
    uint32_t magic;
    int32_t rank;                     /* the connector's rank in its group */
    uint64_t secret;                  /* the acceptor member's */
    uint64_t op_id;
};

/* After the hello, each side of a pair offers its network channel: both
 * have the same one, and the pair attaches over it (the socket then closes);
 * else over the sock channel, on this socket. `next` is the index the
 * sender gives the other (its device's next). */
struct pair_offer {
    uint32_t magic;
    uint32_t has;                     /* 1: chan and rec are this process's */
    int32_t next;
    uint32_t pad;
    char chan[16];
    uint8_t rec[RCH_NET_DYN_REC_LEN];
};

#define RSIZE_MAX (1 << 20)

/* The root's step 2: swap records and contacts; the outcome, the remote contacts. */
static int root_swap(int link, int acceptor, const struct rch_mpi_ctxmask *mask, int size,
                     const struct rch_dyn_contact *mine, struct outcome *o, struct rch_dyn_contact **remote)
{
    struct root_rec out = { .magic = RCH_DYN_MAGIC, .size = size, .mask = *mask }, in;
    if (acceptor)
        while (out.op_id == 0)
            if (getrandom(&out.op_id, sizeof(out.op_id), 0) != (ssize_t)sizeof(out.op_id))
                return MPI_ERR_INTERN;
    rdmach_status_t st = rch_dyn_write(link, &out, sizeof(out));
    if (st == RDMACH_OK)
        st = rch_dyn_write(link, mine, (size_t)size * sizeof(*mine));
    if (st == RDMACH_OK)
        st = rch_dyn_read(link, &in, sizeof(in), RCH_DYN_TIMEOUT_MS);
    if (st != RDMACH_OK)
        return rch_mpi_class_of(st);
    if (in.magic != RCH_DYN_MAGIC || in.size < 1 || in.size > RSIZE_MAX) {
        rch_base_err(RDMACH_ERR_INVALID_ARG, "the other side's root sent a malformed group");
        return MPI_ERR_INTERN;
    }
    *remote = malloc((size_t)in.size * sizeof(**remote));
    if (!*remote)
        return MPI_ERR_NO_MEM;
    st = rch_dyn_read(link, *remote, (size_t)in.size * sizeof(**remote), RCH_DYN_TIMEOUT_MS);
    if (st != RDMACH_OK)
        return rch_mpi_class_of(st);
    struct rch_mpi_ctxmask all = *mask;
    for (unsigned w = 0; w < RCH_ARRAY_SIZE(all.w); w++)
        all.w[w] &= in.mask.w[w];
    o->ctx = rch_mpi_ctx_pick(&all);
    if (o->ctx == UINT32_MAX) {
        rch_base_err(RDMACH_ERR_BUSY, "no context id is free at every member of both groups");
        return MPI_ERR_INTERN;
    }
    o->rsize = in.size;
    o->op_id = acceptor ? out.op_id : in.op_id;
    return MPI_SUCCESS;
}

/* Attach the member at the other end of fd (authenticated): offers swapped,
 * over the network channel if both have the same, else over fd. A process
 * without one opens it for a member on another host (both ends judge the
 * same socket alike); on one host the sock channel is as good, and opening
 * the network channel would cost each spawned process its libraries. */
static rdmach_status_t attach_pair(int fd, int acceptor, int *world)
{
    struct pair_offer mine, theirs;
    memset(&mine, 0, sizeof(mine));
    mine.magic = RCH_DYN_MAGIC;
    mine.next = rch_dev_dyn_next();
    if (rch_tun.dyn_net && rch_dev_dyn_net_record(rch_dyn_other_host(fd), mine.chan, sizeof(mine.chan), mine.rec,
                                                  sizeof(mine.rec)) == RDMACH_OK)
        mine.has = 1;
    rdmach_status_t st = rch_dyn_write(fd, &mine, sizeof(mine));
    if (st == RDMACH_OK)
        st = rch_dyn_read(fd, &theirs, sizeof(theirs), RCH_DYN_TIMEOUT_MS);
    if (st == RDMACH_OK && (theirs.magic != RCH_DYN_MAGIC || theirs.next < 0))
        st = rch_base_err(RDMACH_ERR_PROTOCOL, "dyn: a malformed offer from the other side");
    if (st != RDMACH_OK) {
        close(fd);
        return st;
    }
    theirs.chan[sizeof(theirs.chan) - 1] = '\0';
    if (!mine.has || !theirs.has || strcmp(mine.chan, theirs.chan) != 0)
        return rch_dev_dyn_attach(fd, world);
    close(fd);
    st = rch_dev_dyn_attach_net(theirs.rec, sizeof(theirs.rec), theirs.next, acceptor, world);
    if (st == RDMACH_OK && *world != mine.next)
        st = rch_base_err(RDMACH_ERR_OTHER, "dyn: attached as %d, offered %d", *world, mine.next);
    return st;
}

/* Step 4 at a connector member: one connection to every acceptor member. */
static rdmach_status_t dial_all(int myrank, const struct outcome *o, const struct rch_dyn_contact *remote,
                                int *rworld)
{
    for (int i = 0; i < o->rsize; i++) {
        int fd;
        rdmach_status_t st = rch_dyn_dial(&remote[i], &fd);
        if (st != RDMACH_OK)
            return st;
        struct pair_hello h = { .magic = RCH_DYN_MAGIC, .rank = myrank, .secret = remote[i].secret,
                                .op_id = o->op_id };
        st = rch_dyn_write(fd, &h, sizeof(h));
        if (st != RDMACH_OK) {
            close(fd);
            return st;
        }
        if ((st = attach_pair(fd, 0, &rworld[i])) != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

static struct rch_log_limit refused_limit;

/* Step 4 at an acceptor member: a connection from every connector member. A
 * connection that does not quote this process's secret and this operation
 * is refused (closed) and the wait goes on. */
static rdmach_status_t accept_all(const struct outcome *o, const struct rch_dyn_contact *self, int *rworld)
{
    for (int i = 0; i < o->rsize; i++)
        rworld[i] = -1;
    for (int got = 0; got < o->rsize;) {
        int fd;
        rdmach_status_t st = rch_dyn_accept_fd(rch_dyn_self_fd(), RCH_DYN_TIMEOUT_MS, &fd);
        if (st != RDMACH_OK)
            return st;
        struct pair_hello h;
        st = rch_dyn_read(fd, &h, sizeof(h), RCH_DYN_TIMEOUT_MS);
        if (st != RDMACH_OK || h.magic != RCH_DYN_MAGIC || h.secret != self->secret || h.op_id != o->op_id ||
            h.rank < 0 || h.rank >= o->rsize || rworld[h.rank] >= 0) {
            rch_log_limited(&refused_limit, RCH_LOG_WARN, "dyn", "refused a connection that is not a member of "
                            "the group being connected (wrong key, operation or rank)");
            close(fd);
            continue;
        }
        if ((st = attach_pair(fd, 1, &rworld[h.rank])) != RDMACH_OK)
            return st;
        got++;
    }
    return RDMACH_OK;
}

/* Steps 1-3: the outcome and the remote contacts at every member. */
static int agree(const char *fn, struct rch_mpi_comm *local, int root, int acceptor, int link, int root_err,
                 struct outcome *o, struct rch_dyn_contact **remote)
{
    const struct rch_dyn_contact *self = NULL;
    struct rch_dyn_contact *mine = malloc((size_t)local->size * sizeof(*mine));
    rdmach_status_t st = mine ? rch_dyn_self(&self) : RDMACH_ERR_NO_MEMORY;
    struct rch_dyn_contact me = self ? *self : (struct rch_dyn_contact){ 0 };
    struct rch_mpi_ctxmask mask;
    rch_mpi_ctx_mine(&mask);
    rdmach_status_t xs = mine ? rch_mpi_exchange(local, &me, sizeof(me), mine, &mask) : RDMACH_ERR_NO_MEMORY;
    memset(o, 0, sizeof(*o));
    if (xs != RDMACH_OK) {
        free(mine);
        return rch_mpi_class_of(xs);
    }
    if (local->rank == root) {
        o->errclass = root_err;
        for (int r = 0; r < local->size && !o->errclass; r++)
            if (mine[r].port == 0)
                o->errclass = MPI_ERR_OTHER;   /* a member has no listener */
        if (!o->errclass)
            o->errclass = root_swap(link, acceptor, &mask, local->size, mine, o, remote);
        if (o->errclass)
            RCH_DEBUG("dyn", "%s: the root failed: %s", fn, rdmach_last_error());
    }
    free(mine);
    if (link >= 0)
        close(link);
    xs = rch_coll_bcast(&local->coll, o, sizeof(*o), root);
    if (xs == RDMACH_OK && !o->errclass) {
        if (local->rank != root && !(*remote = malloc((size_t)o->rsize * sizeof(**remote))))
            return MPI_ERR_NO_MEM;   /* the bcast below would then hang others: out of memory ends the job anyway */
        xs = rch_coll_bcast(&local->coll, *remote, (size_t)o->rsize * sizeof(**remote), root);
    }
    if (xs != RDMACH_OK)
        return rch_mpi_class_of(xs);
    if (st != RDMACH_OK && !o->errclass)
        return rch_mpi_class_of(st);
    return o->errclass;
}

int rch_dyn_establish(const char *fn, struct rch_mpi_comm *c, int root, int acceptor, int link, int root_err,
                      MPI_Comm *newcomm)
{
    struct rch_mpi_comm *local = NULL;
    int err = rch_mpi_comm_hidden_dup(fn, c, 0, c->rank, &local);
    if (err) {
        if (link >= 0)
            close(link);
        return err;
    }
    struct outcome o;
    struct rch_dyn_contact *remote = NULL;
    int cls = agree(fn, local, root, acceptor, c->rank == root ? link : -1, root_err, &o, &remote);
    int *rworld = NULL, *lworld = NULL;
    if (!cls) {
        const struct rch_dyn_contact *self = NULL;
        rworld = malloc((size_t)o.rsize * sizeof(int));
        rdmach_status_t st = !rworld ? rch_base_err(RDMACH_ERR_NO_MEMORY, "out of memory")
                             : acceptor ? rch_dyn_self(&self) : dial_all(local->rank, &o, remote, rworld);
        if (st == RDMACH_OK && acceptor)
            st = accept_all(&o, self, rworld);
        /* every member learns whether all connected */
        char ok = st == RDMACH_OK, *oks = malloc((size_t)local->size);
        rdmach_status_t xs = oks ? rch_mpi_exchange(local, &ok, 1, oks, NULL) : RDMACH_ERR_NO_MEMORY;
        for (int r = 0; xs == RDMACH_OK && r < local->size; r++)
            if (!oks[r] && st == RDMACH_OK)
                st = rch_base_err(RDMACH_ERR_PEER_DEAD, "member %d of the local group could not connect", r);
        free(oks);
        cls = st != RDMACH_OK ? rch_mpi_class_of(st) : xs != RDMACH_OK ? rch_mpi_class_of(xs) : 0;
    }
    free(remote);
    if (!cls && !(lworld = malloc((size_t)local->size * sizeof(int))))
        cls = MPI_ERR_NO_MEM;
    struct rch_mpi_comm *ic = NULL;
    if (!cls) {
        memcpy(lworld, local->world_of, (size_t)local->size * sizeof(int));
        ic = rch_mpi_inter_create(local->rank, local->size, lworld, o.rsize, rworld, o.ctx, local);
        if (!ic)
            cls = MPI_ERR_NO_MEM;
    }
    if (cls) {
        free(rworld);
        free(lworld);
        rch_mpi_comm_destroy(local);
        if (c->rank != root && o.errclass)
            return rch_mpi_err(c->handle, cls, "%s: the root (rank %d) failed to connect the groups", fn, root);
        return rch_mpi_err(c->handle, cls, "%s: %s", fn, rdmach_last_error());
    }
    rch_mpi_ctx_take(o.ctx);
    ic->errhandler = c->errhandler;
    ic->dyn_first = acceptor ? 1 : -1;
    *newcomm = ic->handle;
    return MPI_SUCCESS;
}
