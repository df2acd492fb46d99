/*
 * MPI_Comm_idup: the duplicate's context id agreed without blocking. The call
 * copies what the duplicate inherits (attributes through their copy
 * callbacks, topology, error handler, hints), sends its first contribution
 * and returns; the agreement advances in a progress hook, so inside any
 * MPI_Test/Wait or blocking call of this rank, and the request completes when
 * the duplicate exists (*newcomm is written then).
 *
 * The agreement runs in rounds through the parent's rank 0 (a flat gather,
 * unlike rch_mpi_exchange's tree in ctxid.c), with messages of its own: each member sends
 * { ok, mask }, rank 0 ANDs them and sends the result back. ok says "I hold
 * the candidate" (the pair the previous result named, which each member took
 * if it was still free here); mask is the pairs free here, the candidate
 * included if I hold it. If everyone held it, it is the duplicate's;
 * otherwise the holders give it back and the result's mask names the next
 * candidate. A round is needed because another idup (on any communicator)
 * can take a pair between a member's contribution and the result: holding
 * before committing makes two agreements that share a member unable to
 * commit the same pair. Blocking creations choose from other pairs
 * (RCH_MPI_CTX_NB_FIRST). Each idup starts its search at a point derived
 * from the parent's context, so concurrent idups on different parents rarely
 * name the same candidate.
 *
 * Messages travel on the parent's collective context with the tag
 * TAG_BASE + the parent's idup number (every member numbers its idups on a
 * communicator in the same order, MPI's rule for collectives), so rounds of
 * several idups in flight never match each other, the collectives, or a
 * blocking creation's exchange; the rounds of one idup are ordered between
 * two ranks by MPI's non-overtaking rule.
 *
 * Of an intercommunicator: the same rounds among all members of both
 * groups. Each group's members send to their own leader on the local
 * group's collective context; the two leaders swap their groups' ANDs on the
 * intercommunicator's (remote rank 0, the same tag), and each sends the AND
 * of both down, so both groups see the same result without a coordinator.
 * Two pairs are agreed one after the other, the intercommunicator's and its
 * hidden local group's (any pair free at every member of both groups is free
 * in each group).
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"

#define TAG_BASE 0x7ffe0000            /* + (idup number & 0xffff); below the exchange tags */

struct idup_msg {
    uint64_t ok;
    struct rch_mpi_ctxmask m;
};

struct idup {
    struct idup *next;
    int rank, size, *world_of;         /* the parent's, copied (it may be freed meanwhile) */
    uint32_t pctx;                     /* an intercommunicator's: its local group's */
    /* an intercommunicator's: the remote group (copied), the context its
     * leaders swap on, the pair agreed first, the leader's swap */
    int inter, rsize, *rworld_of;
    uint32_t ictx, first;
    int swapped;                       /* leader: this round's local AND went to the remote leader */
    struct idup_msg lres, rin;
    struct rch_dev_req *rsreq, *rrreq;
    int tag;
    unsigned start;                    /* where the candidate search starts */
    /* what the duplicate inherits, copied at the call */
    MPI_Errhandler eh;
    struct rch_mpi_topo *topo;
    const char *hw_level;
    struct rch_mpi_attr *attrs;
    MPI_Comm *newcomm;
    struct rch_dev_req *greq;
    uint32_t cand;                     /* the candidate, UINT32_MAX before the first result */
    int held;
    int finished;                      /* the request is complete; rank 0's last sends may be in flight */
    struct idup_msg mine, res;
    struct idup_msg *in;               /* rank 0: the others' contributions */
    struct rch_dev_req *rreq, **rreqs, **sreqs;   /* this round's receive(s); rank 0's sends */
};

static struct idup *pending;
static int hooked;

static void idup_free(struct idup *d)
{
    for (int i = 0; d->sreqs && i < d->size - 1; i++)
        if (d->sreqs[i])
            rch_dev_req_free(d->sreqs[i]);   /* detached: the device completes it */
    free(d->sreqs);
    free(d->rreqs);
    free(d->in);
    free(d->world_of);
    free(d->rworld_of);
    free(d);
}

/* Post this round's messages: my contribution up (or, at rank 0, the receives). */
static rdmach_status_t round_start(struct idup *d)
{
    d->mine.ok = d->cand == UINT32_MAX ? 1 : (uint64_t)d->held;
    rch_mpi_ctx_mine_holding(&d->mine.m, d->cand, d->held);
    uint32_t ctx = d->pctx + 1;
    if (d->rank != 0) {
        struct rch_dev_req *s = NULL;
        rdmach_status_t st = rch_dev_isend(&d->mine, sizeof(d->mine), d->world_of[0], d->rank, d->tag, ctx,
                                           RCH_DEV_SEND_STD, &s);
        if (st == RDMACH_OK && s)
            rch_dev_req_free(s);      /* detached: the next round's send follows it in order */
        if (st == RDMACH_OK)
            st = rch_dev_irecv(&d->res, sizeof(d->res), 0, d->tag, ctx, &d->rreq);
        return st;
    }
    rdmach_status_t st = RDMACH_OK;
    for (int i = 1; i < d->size && st == RDMACH_OK; i++)
        st = rch_dev_irecv(&d->in[i - 1], sizeof(d->in[0]), i, d->tag, ctx, &d->rreqs[i - 1]);
    d->swapped = 0;
    if (d->inter && st == RDMACH_OK)
        st = rch_dev_irecv(&d->rin, sizeof(d->rin), 0, d->tag, d->ictx + 1, &d->rrreq);
    return st;
}

/* An intercommunicator's duplicate: the hidden local group on d->cand, the
 * intercommunicator on d->first. NULL: out of memory (nothing taken over). */
static struct rch_mpi_comm *inter_dup(struct idup *d)
{
    int *lw = malloc(sizeof(int) * (size_t)d->size);
    if (!lw)
        return NULL;
    memcpy(lw, d->world_of, sizeof(int) * (size_t)d->size);
    struct rch_mpi_comm *local = rch_mpi_comm_create(d->rank, d->size, lw, d->cand);
    if (!local)
        return NULL;
    local->errhandler = MPI_ERRORS_RETURN;
    struct rch_mpi_comm *c = rch_mpi_inter_create(d->rank, d->size, d->world_of, d->rsize, d->rworld_of, d->first,
                                                  local);
    if (!c) {
        rch_mpi_comm_destroy(local);
        return NULL;
    }
    d->rworld_of = NULL;
    return c;
}

/* The duplicate with the agreed pair; completes the request. */
static void finish(struct idup *d, rdmach_status_t st)
{
    struct rch_mpi_comm *c = NULL;
    if (st == RDMACH_OK) {
        c = d->inter ? inter_dup(d) : rch_mpi_comm_create(d->rank, d->size, d->world_of, d->cand);
        if (c)
            d->world_of = NULL;       /* the communicator's now */
        else
            st = rch_base_err(RDMACH_ERR_NO_MEMORY, "MPI_Comm_idup: out of memory");
    }
    if (c) {
        c->errhandler = d->eh;
        c->topo = d->topo;
        c->hw_level = d->hw_level;
        c->attrs = d->attrs;
        *d->newcomm = c->handle;
    } else {
        if (d->held)
            rch_mpi_ctx_release(d->cand);
        if (d->first != UINT32_MAX)
            rch_mpi_ctx_release(d->first);
        rch_mpi_attr_drop(&d->attrs);
        rch_mpi_topo_free(d->topo);
        *d->newcomm = MPI_COMM_NULL;
    }
    d->greq->err = st;
    rch_dev_req_complete(d->greq);
}

/* The round's result: commit, or the next candidate and round. */
static rdmach_status_t round_end(struct idup *d, int *done)
{
    if (d->cand != UINT32_MAX && d->res.ok && d->inter && d->first == UINT32_MAX) {
        /* the intercommunicator's pair is agreed: now the local group's */
        d->first = d->cand;
        d->cand = UINT32_MAX;
        d->held = 0;
        d->start = (d->start + 1) % (RCH_MPI_CTX_PAIRS - RCH_MPI_CTX_NB_FIRST);
        return round_start(d);
    }
    if (d->cand != UINT32_MAX && d->res.ok) {
        *done = 1;
        return RDMACH_OK;
    }
    if (d->held)
        rch_mpi_ctx_release(d->cand);
    d->cand = rch_mpi_ctx_pick_nb(&d->res.m, d->start);
    if (d->cand == UINT32_MAX) {
        d->held = 0;
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "MPI_Comm_idup: no context id for non-blocking duplicates "
                            "is free at every member (%d exist)", RCH_MPI_CTX_PAIRS - RCH_MPI_CTX_NB_FIRST);
    }
    d->held = rch_mpi_ctx_try_take(d->cand);
    return round_start(d);
}

static int reqs_done(struct rch_dev_req **r, int n, rdmach_status_t *st)
{
    for (int i = 0; i < n; i++) {
        if (r[i] && !r[i]->done)
            return 0;
    }
    for (int i = 0; i < n; i++)
        if (r[i]) {
            if (*st == RDMACH_OK && r[i]->err != RDMACH_OK)
                *st = r[i]->err;
            rch_dev_req_free(r[i]);
            r[i] = NULL;
        }
    return 1;
}

static void and_into(struct idup_msg *r, const struct idup_msg *m)
{
    r->ok &= m->ok;
    for (unsigned w = 0; w < RCH_ARRAY_SIZE(r->m.w); w++)
        r->m.w[w] &= m->m.w[w];
}

/* An intercommunicator's leader with its group's AND in d->res: send it to
 * the remote leader (once a round); 1 when the remote group's AND is in
 * too, ANDed into d->res. */
static int leaders_swap(struct idup *d, rdmach_status_t *st)
{
    if (!d->swapped) {
        d->lres = d->res;
        *st = rch_dev_isend(&d->lres, sizeof(d->lres), d->rworld_of[0], 0, d->tag, d->ictx + 1, RCH_DEV_SEND_STD,
                            &d->rsreq);
        d->swapped = 1;
        if (*st != RDMACH_OK)
            return 1;
    }
    struct rch_dev_req *both[2] = { d->rsreq, d->rrreq };
    if (!reqs_done(both, 2, st))
        return 0;
    d->rsreq = d->rrreq = NULL;
    and_into(&d->res, &d->rin);
    return 1;
}

/* Rank 0 with every contribution in: AND them (an intercommunicator's
 * leader: with the remote group's too), send the result down. 0: still
 * waiting for the remote leader. */
static int root_combine(struct idup *d, rdmach_status_t *stp)
{
    if (!d->swapped) {
        d->res = d->mine;
        for (int i = 0; i < d->size - 1; i++)
            and_into(&d->res, &d->in[i]);
    }
    if (d->inter && (!leaders_swap(d, stp) || *stp != RDMACH_OK))
        return *stp != RDMACH_OK;
    rdmach_status_t st = RDMACH_OK;
    for (int i = 1; i < d->size && st == RDMACH_OK; i++)
        st = rch_dev_isend(&d->res, sizeof(d->res), d->world_of[i], 0, d->tag, d->pctx + 1, RCH_DEV_SEND_STD,
                           &d->sreqs[i - 1]);
    *stp = st;
    return 1;
}

/* Advance d as far as it goes now: 1 once it is complete and its last
 * messages are out (it may be freed). */
static int step(struct idup *d, unsigned *events)
{
    rdmach_status_t st = RDMACH_OK;
    int done = 0;
    if (d->finished) {
        return reqs_done(d->sreqs, d->size - 1, &st);
    } else if (d->size == 1 && !d->inter) {
        d->res = d->mine;             /* alone: every round's result is my contribution */
        st = round_end(d, &done);
        ++*events;
    } else if (d->rank != 0) {
        if (!d->rreq || !d->rreq->done)
            return 0;
        st = d->rreq->err;
        rch_dev_req_free(d->rreq);
        d->rreq = NULL;
        ++*events;
        if (st == RDMACH_OK)
            st = round_end(d, &done);
    } else {
        /* the previous result's sends first: the buffer is reused */
        if (!reqs_done(d->sreqs, d->size - 1, &st) || !reqs_done(d->rreqs, d->size - 1, &st))
            return 0;
        if (st == RDMACH_OK && !root_combine(d, &st))
            return 0;                 /* the remote leader's part is still out */
        ++*events;
        if (st == RDMACH_OK)
            st = round_end(d, &done);
    }
    if (st == RDMACH_OK && !done)
        return 0;
    finish(d, st);
    d->finished = 1;
    return reqs_done(d->sreqs, d->size - 1, &st);
}

static unsigned hook(void *arg)
{
    (void)arg;
    unsigned events = 0;
    for (struct idup **pp = &pending; *pp;) {
        struct idup *d = *pp;
        if (step(d, &events)) {
            *pp = d->next;
            idup_free(d);
        } else {
            pp = &d->next;
        }
    }
    return events;
}

int rch_mpi_comm_idup(const char *fn, MPI_Comm comm, int hints, MPI_Comm *newcomm, MPI_Request *request)
{
    struct rch_mpi_comm *p;
    int err = rch_mpi_comm_maker_check(fn, comm, newcomm, &p);
    if (err)
        return err;
    if (!request)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument request is NULL", fn);
    if (!hooked) {
        if (rch_dev_progress_hook_add(hook, NULL) != RDMACH_OK)
            return rch_mpi_err(comm, MPI_ERR_INTERN, "%s: %s", fn, rdmach_last_error());
        hooked = 1;
    }
    struct idup *d = calloc(1, sizeof(*d));
    int n = p->size - 1;
    if (d) {
        d->world_of = malloc(sizeof(int) * (size_t)p->size);
        if (p->is_inter && (d->rworld_of = malloc(sizeof(int) * (size_t)p->peer_size)))
            memcpy(d->rworld_of, p->peer_world_of, sizeof(int) * (size_t)p->peer_size);
        d->in = calloc(n ? (size_t)n : 1, sizeof(*d->in));
        d->rreqs = calloc(n ? (size_t)n : 1, sizeof(*d->rreqs));
        d->sreqs = calloc(n ? (size_t)n : 1, sizeof(*d->sreqs));
        d->greq = rch_dev_req_alloc(RCH_DEV_REQ_GREQ);
    }
    if (!d || !d->world_of || !d->in || !d->rreqs || !d->sreqs || !d->greq || (p->is_inter && !d->rworld_of) ||
        (p->topo && !(d->topo = rch_mpi_topo_dup(p->topo)))) {
        if (d && d->greq)
            rch_dev_req_free(d->greq);
        if (d) {
            rch_mpi_topo_free(d->topo);
            idup_free(d);
        }
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    memcpy(d->world_of, p->world_of, sizeof(int) * (size_t)p->size);
    d->rank = p->rank;
    d->size = p->size;
    d->pctx = p->is_inter ? p->local->ctx : p->ctx;
    d->inter = p->is_inter;
    d->rsize = p->peer_size;
    d->ictx = p->ctx;
    d->first = UINT32_MAX;
    d->tag = TAG_BASE + (int)(p->idup_seq++ & 0xffff);
    d->start = (p->ctx / 2 * 37u + p->idup_seq * 11u) % (RCH_MPI_CTX_PAIRS - RCH_MPI_CTX_NB_FIRST);
    d->eh = p->errhandler;
    d->hw_level = hints ? p->hw_level : NULL;
    d->newcomm = newcomm;
    d->cand = UINT32_MAX;
    err = rch_mpi_attr_copy(p->attrs, p->handle, &d->attrs);
    MPI_Request h = MPI_REQUEST_NULL;
    if (!err) {
        h = rch_mpi_req_new(d->greq, comm);
        if (h == MPI_REQUEST_NULL)
            err = rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    }
    rdmach_status_t st = err ? RDMACH_OK : round_start(d);
    if (err || st != RDMACH_OK) {
        /* MPI: a failing duplication returns the error and MPI_COMM_NULL */
        rch_mpi_attr_delete_all(&d->attrs, comm, 0);
        rch_mpi_topo_free(d->topo);
        *newcomm = MPI_COMM_NULL;
        if (err) {
            rch_dev_req_free(d->greq);
            idup_free(d);
            return err;
        }
        /* Receives already posted may still name d's buffers: d stays theirs. */
        err = rch_mpi_err(comm, rch_mpi_class_of(st), "%s: %s", fn, rdmach_last_error());
        d->greq->err = st;
        rch_dev_req_complete(d->greq);
        MPI_Request_free(&h);
        return err;
    }
    *request = h;
    d->next = pending;
    pending = d;
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_comm_idup("MPI_Comm_idup", comm, 1, newcomm, request);
}
#pragma weak MPI_Comm_idup = PMPI_Comm_idup
