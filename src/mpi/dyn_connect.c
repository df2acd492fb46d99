/*
 * Establishing an intercommunicator between two groups of different jobs
 * (the protocol is in dyn.h).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include "base/log.h"
#include "device/cs.h"
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
 * sender gives the other (reserved for it: rch_dev_dyn_reserve). */
struct pair_offer {
    uint32_t magic;
    uint32_t has;                     /* 1: chan and rec are this process's */
    int32_t next;
    uint32_t pad;
    char chan[16];
    uint8_t rec[RCH_NET_DYN_REC_LEN];
};

#define RSIZE_MAX (1 << 20)

/*
 * The context pair. Several establishments of one process may run at once
 * (threads each spawning or accepting), and MPI_Comm_idup's rounds too: a
 * pair free at every member when the masks were gathered may be taken by
 * another of them before this one is done. So, as idup's rounds do
 * (comm_idup.c), a candidate is held at every member before it is the
 * intercommunicator's: each member takes it if it is still free here, the
 * roots swap their groups' ANDs of {held, free pairs} over the link, and
 * if every member of both groups held it, it is agreed; else those that
 * did give it back and the next candidate comes from that AND (the failed
 * one is not in it: a member that could not take it has it taken). Two
 * establishments that share a member cannot both agree on a pair. The
 * candidates come from the non-blocking range (RCH_MPI_CTX_NB_FIRST up),
 * which blocking creations, whose agreement does not hold, never use; the
 * search starts at a point of the operation id, so concurrent
 * establishments rarely name the same one.
 */
#define NB_PAIRS (RCH_MPI_CTX_PAIRS - RCH_MPI_CTX_NB_FIRST)

/* What the roots swap in a round: their group's AND. */
struct round_rec {
    uint32_t magic, pad;
    struct rch_mpi_ctxmask mask;
};
/* What a root broadcasts after a round. */
struct round_out {
    int errclass;
    int agreed;                       /* every member of both groups holds ctx */
    uint32_t ctx;                     /* else the next candidate */
};

/* The candidate free in both groups' masks a and b, from `start`. */
static int pick_candidate(const struct rch_mpi_ctxmask *a, const struct rch_mpi_ctxmask *b, unsigned start,
                          uint32_t *ctx)
{
    struct rch_mpi_ctxmask all = *a;
    for (unsigned w = 0; w < RCH_ARRAY_SIZE(all.w); w++)
        all.w[w] &= b->w[w];
    *ctx = rch_mpi_ctx_pick_nb(&all, start);
    if (*ctx == UINT32_MAX) {
        rch_base_err(RDMACH_ERR_BUSY, "no context id is free at every member of both groups (%d exist for "
                     "intercommunicators of other jobs and non-blocking duplicates)", NB_PAIRS);
        return MPI_ERR_INTERN;
    }
    return MPI_SUCCESS;
}

/* The first candidate: the search starts at a point of the operation id. */
static int first_candidate(const struct rch_mpi_ctxmask *a, const struct rch_mpi_ctxmask *b, struct outcome *o)
{
    return pick_candidate(a, b, (unsigned)(o->op_id % NB_PAIRS), &o->ctx);
}

/* The root's part of a round: swap the groups' ANDs, judge. */
static int root_round(int link, const struct rch_mpi_ctxmask *mask, uint32_t cand, struct round_out *r)
{
    struct round_rec out = { .magic = RCH_DYN_MAGIC, .mask = *mask }, in;
    rdmach_status_t st = rch_dyn_write(link, &out, sizeof(out));
    if (st == RDMACH_OK)
        st = rch_dyn_read(link, &in, sizeof(in), RCH_DYN_TIMEOUT_MS);
    if (st != RDMACH_OK)
        return rch_mpi_class_of(st);
    if (in.magic != RCH_DYN_MAGIC) {
        rch_base_err(RDMACH_ERR_PROTOCOL, "the other side's root sent a malformed round");
        return MPI_ERR_INTERN;
    }
    r->agreed = (mask->w[0] & in.mask.w[0] & RCH_MPI_CTX_HELD_BIT) != 0;
    if (r->agreed) {
        r->ctx = cand;
        return MPI_SUCCESS;
    }
    /* after the one that failed: both roots compute the same */
    return pick_candidate(mask, &in.mask, (cand / 2 - RCH_MPI_CTX_NB_FIRST + 1) % NB_PAIRS, &r->ctx);
}

/* Rounds until o->ctx is held at every member of both groups (it stays
 * taken here: the intercommunicator's, or released by the caller if the
 * establishment fails later). An MPI error class; nothing held on error. */
static int hold_ctx(struct rch_mpi_comm *local, int root, int link, struct outcome *o)
{
    for (;;) {
        int held = rch_mpi_ctx_try_take(o->ctx);
        struct rch_mpi_ctxmask m;
        rch_mpi_ctx_mine_holding(&m, o->ctx, held);
        if (held)
            m.w[0] |= RCH_MPI_CTX_HELD_BIT;
        struct round_out r = { 0 };
        rdmach_status_t xs = rch_mpi_exchange(local, NULL, 0, NULL, &m);
        if (xs == RDMACH_OK && local->rank == root)
            r.errclass = root_round(link, &m, o->ctx, &r);
        if (xs == RDMACH_OK)
            xs = rch_coll_bcast(&local->coll, &r, sizeof(r), root);
        if (xs == RDMACH_OK && !r.errclass && r.agreed)
            return MPI_SUCCESS;
        if (held)
            rch_mpi_ctx_release(o->ctx);
        if (xs != RDMACH_OK)
            return rch_mpi_class_of(xs);
        if (r.errclass)
            return o->errclass = r.errclass;   /* the root's: the others say so */
        o->ctx = r.ctx;
    }
}

static int contact_cmp(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(struct rch_dyn_contact));
}

/* Is a process in both groups (its listener in both lists)? MPI makes the
 * groups of an intercommunicator disjoint, and rdmach relies on it: both
 * groups use one context pair, which one process cannot hold for two
 * communicators (threads of one process accepting and connecting to each
 * other would agree on none and go on for ever). */
static int groups_overlap(const struct rch_dyn_contact *a, int na, const struct rch_dyn_contact *b, int nb)
{
    struct rch_dyn_contact *s = malloc((size_t)na * sizeof(*s));
    if (!s)
        return 0;
    memcpy(s, a, (size_t)na * sizeof(*s));
    qsort(s, (size_t)na, sizeof(*s), contact_cmp);
    int both = 0;
    for (int i = 0; i < nb && !both; i++)
        both = bsearch(&b[i], s, (size_t)na, sizeof(*s), contact_cmp) != NULL;
    free(s);
    return both;
}

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
    o->rsize = in.size;
    o->op_id = acceptor ? out.op_id : in.op_id;
    if (groups_overlap(mine, size, *remote, in.size)) {
        rch_base_err(RDMACH_ERR_INVALID_ARG, "a process is a member of both groups (threads of one process "
                     "accepting and connecting to each other?): the groups of an intercommunicator must be "
                     "disjoint");
        return MPI_ERR_OTHER;
    }
    return first_candidate(mask, &in.mask, o);
}

/* Over the network channel the connector's side connects to the acceptor's
 * once it has attached, and the acceptor's may ask it to (a reverse request)
 * once it has something to send: a request for an index not attached yet is
 * refused, and at MPI_THREAD_MULTIPLE another thread's progress may see it
 * before this one attaches. So the acceptor attaches first and says so on
 * fd, the connector then attaches and says so, and the acceptor's
 * establishment goes on only after that. Each says 0 instead if its attach
 * failed, and the other fails too. */
static rdmach_status_t attach_net(int fd, int acceptor, const struct pair_offer *mine,
                                  const struct pair_offer *theirs, int w, int *world)
{
    char ok = 0, their = 1;
    rdmach_status_t st = acceptor ? RDMACH_OK : rch_dyn_read(fd, &their, 1, RCH_DYN_TIMEOUT_MS);
    if (st == RDMACH_OK && their == 1) {
        st = rch_dev_dyn_attach_net(theirs->rec, sizeof(theirs->rec), mine->rec, theirs->next, acceptor, w, world);
        ok = st == RDMACH_OK;
    } else {
        rch_dev_dyn_unreserve(w);
        if (st == RDMACH_OK)
            st = rch_base_err(RDMACH_ERR_PEER_DEAD, "dyn: the other side could not attach this process");
    }
    rdmach_status_t ws = rch_dyn_write(fd, &ok, 1);
    if (ws == RDMACH_OK && ok && acceptor) {
        ws = rch_dyn_read(fd, &their, 1, RCH_DYN_TIMEOUT_MS);
        if (ws == RDMACH_OK && their != 1)
            ws = rch_base_err(RDMACH_ERR_PEER_DEAD, "dyn: the other side could not attach this process");
    }
    close(fd);
    return st != RDMACH_OK ? st : ws;
}

/* Attach the member at the other end of fd (authenticated): offers swapped,
 * over the network channel if both have the same, else over fd. A process
 * without one opens it for a member on another host (both ends judge the
 * same socket alike); on one host the sock channel is as good, and opening
 * the network channel would cost each spawned process its libraries. The
 * index offered is reserved until the attach (rch_dev_dyn_reserve): other
 * threads attach others while this one waits for the other side's offer. */
static rdmach_status_t attach_pair(int fd, int acceptor, int *world)
{
    struct pair_offer mine, theirs;
    int w;
    memset(&mine, 0, sizeof(mine));
    mine.magic = RCH_DYN_MAGIC;
    rdmach_status_t st = rch_dev_dyn_reserve(&w);
    if (st != RDMACH_OK) {
        close(fd);
        return st;
    }
    mine.next = w;
    if (rch_tun.dyn_net && rch_dev_dyn_net_record(rch_dyn_other_host(fd), mine.chan, sizeof(mine.chan), mine.rec,
                                                  sizeof(mine.rec)) == RDMACH_OK)
        mine.has = 1;
    st = rch_dyn_write(fd, &mine, sizeof(mine));
    if (st == RDMACH_OK)
        st = rch_dyn_read(fd, &theirs, sizeof(theirs), RCH_DYN_TIMEOUT_MS);
    if (st == RDMACH_OK && (theirs.magic != RCH_DYN_MAGIC || theirs.next < 0))
        st = rch_base_err(RDMACH_ERR_PROTOCOL, "dyn: a malformed offer from the other side");
    if (st != RDMACH_OK) {
        rch_dev_dyn_unreserve(w);
        close(fd);
        return st;
    }
    theirs.chan[sizeof(theirs.chan) - 1] = '\0';
    if (!mine.has || !theirs.has || strcmp(mine.chan, theirs.chan) != 0)
        return rch_dev_dyn_attach(fd, w, world);
    return attach_net(fd, acceptor, &mine, &theirs, w, world);
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

/* Connections of step 4 that this process's listener took while accepting
 * for one establishment but that belong to another: one listener serves
 * them all, and at MPI_THREAD_MULTIPLE several threads may establish at
 * once (each spawning, say), any of them accepting any one's connections.
 * A connection that quotes this process's secret and another operation is
 * kept here, hello read, for the establishment it names; one that nobody
 * takes within the dyn timeout (its establishment failed, or never was
 * ours) is closed, as are all at finalize. Reached only under the global
 * critical section. */
struct parked {
    struct parked *next;
    int fd;
    struct pair_hello h;
    double until;
};
static struct parked *parked;

/* Close the connections kept too long (all with `all`). */
static void parked_expire(int all)
{
    double now = rch_base_wtime();
    for (struct parked **pp = &parked; *pp;) {
        struct parked *p = *pp;
        if (!all && p->until > now) {
            pp = &p->next;
            continue;
        }
        if (!all)
            RCH_DEBUG("dyn", "closed a connection of rank %d kept for operation %016llx, which never took it",
                      (int)p->h.rank, (unsigned long long)p->h.op_id);
        close(p->fd);
        *pp = p->next;
        free(p);
    }
}

static void park(int fd, const struct pair_hello *h)
{
    parked_expire(0);
    struct parked *p = malloc(sizeof(*p));
    if (!p) {   /* its establishment then times out, as if the connection was lost */
        close(fd);
        return;
    }
    *p = (struct parked){ .next = parked, .fd = fd, .h = *h, .until = rch_base_wtime() + RCH_DYN_TIMEOUT_MS / 1e3 };
    parked = p;
}

/* A connection kept for operation op_id (its hello in *h), or -1. */
static int unpark(uint64_t op_id, struct pair_hello *h)
{
    parked_expire(0);
    for (struct parked **pp = &parked; *pp; pp = &(*pp)->next) {
        struct parked *p = *pp;
        if (p->h.op_id == op_id) {
            int fd = p->fd;
            *h = p->h;
            *pp = p->next;
            free(p);
            return fd;
        }
    }
    return -1;
}

void rch_dyn_parked_fini(void)
{
    parked_expire(1);
}

/* The next connection of step 4 for operation o at an acceptor member:
 * kept for it by another establishment, or accepted here (one for another
 * operation is kept for that one, a stranger refused). Within timeout_ms;
 * RDMACH_AGAIN after a slice with none (at MULTIPLE the wait is cut in
 * slices, between which another thread may keep one for us). */
static rdmach_status_t next_member(const struct outcome *o, const struct rch_dyn_contact *self, double until,
                                   int *fd, struct pair_hello *h)
{
    if ((*fd = unpark(o->op_id, h)) >= 0)
        return RDMACH_OK;
    int left = (int)((until - rch_base_wtime()) * 1e3);
    if (left <= 0)
        return rch_base_err(RDMACH_ERR_TIMEOUT, "dynamic processes: a member of the other group did not connect "
                            "within %d ms", RCH_DYN_TIMEOUT_MS);
    rdmach_status_t st = rch_dyn_accept_fd(rch_dyn_self_fd(), rch_dev_cs_on && left > RCH_DYN_SLICE_MS
                                           ? RCH_DYN_SLICE_MS : left, fd);
    if (st == RDMACH_ERR_TIMEOUT)
        return RDMACH_AGAIN;
    if (st != RDMACH_OK)
        return st;
    st = rch_dyn_read(*fd, h, sizeof(*h), RCH_DYN_TIMEOUT_MS);
    if (st == RDMACH_OK && h->magic == RCH_DYN_MAGIC && h->secret == self->secret) {
        if (h->op_id == o->op_id)
            return RDMACH_OK;
        RCH_DEBUG("dyn", "kept a connection of rank %d for operation %016llx (this one is %016llx)", (int)h->rank,
                  (unsigned long long)h->op_id, (unsigned long long)o->op_id);
        park(*fd, h);
        return RDMACH_AGAIN;
    }
    rch_log_limited(&refused_limit, RCH_LOG_WARN, "dyn", "refused a connection that is not a member of a group "
                    "being connected (wrong key)");
    close(*fd);
    return RDMACH_AGAIN;
}

/* Step 4 at an acceptor member: a connection from every connector member.
 * One naming a rank out of range or already connected is refused (closed)
 * and the wait goes on; it lasts the dyn timeout from the last member that
 * came. */
static rdmach_status_t accept_all(const struct outcome *o, const struct rch_dyn_contact *self, int *rworld)
{
    for (int i = 0; i < o->rsize; i++)
        rworld[i] = -1;
    double until = rch_base_wtime() + RCH_DYN_TIMEOUT_MS / 1e3;
    for (int got = 0; got < o->rsize;) {
        int fd;
        struct pair_hello h;
        rdmach_status_t st = next_member(o, self, until, &fd, &h);
        if (st == RDMACH_AGAIN) {
            rch_dev_cs_yield();
            continue;
        }
        if (st != RDMACH_OK)
            return st;
        if (h.rank < 0 || h.rank >= o->rsize || rworld[h.rank] >= 0) {
            rch_log_limited(&refused_limit, RCH_LOG_WARN, "dyn", "refused a connection that names no member of "
                            "the group being connected (rank %d of %d)", (int)h.rank, o->rsize);
            close(fd);
            continue;
        }
        if ((st = attach_pair(fd, 1, &rworld[h.rank])) != RDMACH_OK)
            return st;
        got++;
        until = rch_base_wtime() + RCH_DYN_TIMEOUT_MS / 1e3;
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
    link = c->rank == root ? link : -1;
    int cls = agree(fn, local, root, acceptor, link, root_err, &o, &remote);
    if (!cls)
        cls = hold_ctx(local, root, link, &o);
    int held = !cls;
    if (link >= 0)
        close(link);
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
        if (held)
            rch_mpi_ctx_release(o.ctx);
        free(rworld);
        free(lworld);
        rch_mpi_comm_destroy(local);
        if (c->rank != root && o.errclass)
            return rch_mpi_err(c->handle, cls, "%s: the root (rank %d) failed to connect the groups", fn, root);
        return rch_mpi_err(c->handle, cls, "%s: %s", fn, rdmach_last_error());
    }
    ic->errhandler = c->errhandler;
    ic->dyn_first = acceptor ? 1 : -1;
    *newcomm = ic->handle;
    return MPI_SUCCESS;
}
