/*
 * Peers of other jobs (dev.h, rch_dev_dyn_attach): over the network channel
 * (opened at init, or here for a peer on another host), when the layer above
 * found that both sides have the same one (rch_dev_dyn_attach_net,
 * rdma/net/net_dyn.h); else the
 * sock channel, opened on the first such peer, takes the connection. The
 * peer record is a slot after the job's ranks in the table init allocated
 * with room for RDMACH_DYN_MAX of them. A connection closes when the layer
 * above detaches its peer (MPI_Comm_disconnect) and no communicator map
 * names it any more (the peer's count of maps, rch_dev_ctx_map), or with
 * the channel at finalize; either way with a BYE behind the last packet, so
 * the other side sees no failure.
 *
 * A detached peer's slot takes the next process connected (the lowest such
 * slot first, so an accept/disconnect loop runs for ever in a small table)
 * once nothing refers to its number: no communicator map (a window keeps
 * its communicator's), no queued send or request in an exchange with it
 * (the detach failed those, and posted receives naming it), and its
 * channel has nothing of the old connection still to deliver (the sock
 * channel closed the socket; net_dyn.c drains the completions). Unexpected
 * messages it sent that no receive took are dropped at the detach: no
 * communicator can receive them any more, and a new communicator in the
 * same slot with the old one's context id must not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "device/dev_impl.h"
#include "rdma/net/net_dyn.h"
#include "rdma/select.h"
#include "rdma/sock/sock.h"

static struct rch_dev_chan *sock_dchan(rdmach_status_t *st)
{
    for (int i = 0; i < rch_dev.nchans; i++)
        if (rch_dev.chans[i].ops == &rch_rdma_sock_ops)
            return &rch_dev.chans[i];
    if (rch_dev.nchans == RCH_DEV_MAX_CHANS) {
        *st = rch_base_err(RDMACH_ERR_UNSUPPORTED, "device: no room for the sock channel (%d channels open)",
                           RCH_DEV_MAX_CHANS);
        return NULL;
    }
    struct rch_dev_chan *dc = &rch_dev.chans[rch_dev.nchans];
    *st = rch_dev_open_chan(dc, &rch_rdma_sock_ops, NULL, 0);
    if (*st != RDMACH_OK)
        return NULL;
    dc->can_wait = 1;
    rch_dev.nchans++;
    return dc;
}

static struct rch_dev_chan *net_dchan(int open);

static int slot_free(int w)
{
    struct rch_dev_peer *p = &rch_dev.peers[w];
    if (!p->detached || p->maps > 0 || p->sq_head || !rch_dlist_empty(&p->pending))
        return 0;
    /* the network channel's record of w, whichever channel the last
     * process in the slot used (one used before may be released there) */
    struct rch_dev_chan *net = net_dchan(0);
    return !net || rch_net_dyn_reusable(net->chan, w);
}

/* Slots offered to a process of another job and not attached yet (the
 * offer told the other side the number; rch_dev_dyn_reserve). Several may
 * be out at once: at MPI_THREAD_MULTIPLE each thread establishing an
 * intercommunicator offers its own, and lets the others run while it waits
 * for the other side's answer. A reserved slot is never chosen again, and
 * choosing (which drains the network channel's events, rch_net_dyn_reusable)
 * may run while others are out: the layer above makes sure no request for
 * a reserved slot can arrive before its attach (src/mpi/dyn_connect.c). */
static int *reserved, nreserved, capreserved;

static int is_reserved(int w)
{
    for (int i = 0; i < nreserved; i++)
        if (reserved[i] == w)
            return 1;
    return 0;
}

/* Take w off the reserved list: 1 if it was on it. */
static int unreserve(int w)
{
    for (int i = 0; i < nreserved; i++)
        if (reserved[i] == w) {
            reserved[i] = reserved[--nreserved];
            return 1;
        }
    return 0;
}

/* The slot the next process of another job takes: a detached one free
 * again, else the next never used; none reserved; or why there is none. */
static rdmach_status_t next_slot(int *w)
{
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "device: not initialized");
    for (*w = rch_boot.size; *w < rch_dev.size; ++*w)
        if (!is_reserved(*w) && slot_free(*w))
            return RDMACH_OK;
    for (; *w < rch_boot.size + rch_tun.dyn_max; ++*w)
        if (!is_reserved(*w))
            return RDMACH_OK;
    return rch_base_err(RDMACH_ERR_UNSUPPORTED, "device: more than %d processes of other jobs connected at once "
                        "(RDMACH_DYN_MAX)", rch_tun.dyn_max);
}

rdmach_status_t rch_dev_dyn_reserve(int *w)
{
    if (nreserved == capreserved) {
        int cap = capreserved ? 2 * capreserved : 8;
        int *r = realloc(reserved, sizeof(int) * (size_t)cap);
        if (!r)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "device: out of memory");
        reserved = r;
        capreserved = cap;
    }
    rdmach_status_t st = next_slot(w);
    if (st == RDMACH_OK)
        reserved[nreserved++] = *w;
    return st;
}

void rch_dev_dyn_unreserve(int w)
{
    unreserve(w);
}

/* Slot w must be reserved (and is no more): else why not. */
static rdmach_status_t slot_number(int w)
{
    if (!unreserve(w))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "device: slot %d of a process of another job was not "
                            "reserved (rch_dev_dyn_reserve)", w);
    return RDMACH_OK;
}

static void drop_unexp(struct rch_match_entry *e, void *arg)
{
    struct rch_dev_unexp *u = rch_container_of(e, struct rch_dev_unexp, me);
    if (u->peer != *(int *)arg)
        return;
    RCH_DEBUG("dyn", "process %d of another job detached: a message it sent (context %u, tag %d, %zu bytes) that "
              "no receive took is dropped", u->peer, (unsigned)e->ctx, (int)e->tag, u->size);
    rch_match_remove_unexp(&rch_dev.unexp, e);
    rch_dev_unexp_release(u);
}

/* Slot w (next_slot's answer) about to take a new process: a detached
 * one's old state goes (the channel's record is renewed by its attach). */
static void slot_take(int w)
{
    struct rch_dev_peer *p = &rch_dev.peers[w];
    if (w < rch_dev.size) {
        if (p->left)
            rch_dev.nleft--;
        RCH_DEBUG("dyn", "slot %d of a detached process takes another", w);
    }
    struct rch_dev_chan *dc = p->dchan;
    if (dc) {
        dc->gone_msgs_sent += p->tx_seq;
        dc->gone_bytes_sent += p->tx_bytes;
        dc->gone_msgs_recv += p->rx_seq;
        dc->gone_bytes_recv += p->rx_bytes;
    }
    free(p->why);
    memset(p, 0, sizeof(*p));
    p->rank = w;
    rch_dlist_init(&p->pending);
    /* unusable until its setup (a failed attach leaves it free again) */
    p->ops = &rch_dev_nochan_ops;
    p->dchan = dc;
    p->dead = p->detached = 1;
}

/* The peer in slot w is set up: published (isend's range check admits it).
 * Slots below it never used yet (reserved by offers still out) become
 * unusable records until their own attach, as a detached one is. */
static void slot_publish(int w)
{
    for (int g = rch_dev.size; g < w; g++) {
        struct rch_dev_peer *p = &rch_dev.peers[g];
        memset(p, 0, sizeof(*p));
        p->rank = g;
        rch_dlist_init(&p->pending);
        p->ops = &rch_dev_nochan_ops;
        p->dead = p->detached = 1;
    }
    rch_dev.peers[w].detached = 0;
    if (w >= rch_dev.size)
        rch_dev.size = w + 1;
}

rdmach_status_t rch_dev_dyn_attach(int fd, int w, int *world)
{
    rdmach_status_t st = slot_number(w);
    struct rch_dev_chan *dc = st == RDMACH_OK ? sock_dchan(&st) : NULL;
    if (!dc) {
        close(fd);
        return st;
    }
    slot_take(w);
    struct rch_dev_peer *p = &rch_dev.peers[w];
    st = rch_rdma_sock_attach(dc->chan, w, fd);
    if (st != RDMACH_OK) {
        close(fd);
        return st;
    }
    st = rch_dev_peer_setup(p, dc);
    if (st != RDMACH_OK)
        return st;
    slot_publish(w);
    *world = w;
    return RDMACH_OK;
}

/* The network channel this process has open (ofi or verbs), or NULL; with
 * `open`, if it has none, the one it would use between nodes, opened now
 * with no peers of its job (a job on one host opens none at init). */
static struct rch_dev_chan *net_dchan(int open)
{
    for (int i = 0; i < rch_dev.nchans; i++)
        if (rch_net_is_net(rch_dev.chans[i].ops))
            return &rch_dev.chans[i];
    const char *why = NULL;
    const struct rch_rdma_ops *ops = open ? rch_rdma_select_net(&why) : NULL;
    if (!ops || rch_dev.nchans == RCH_DEV_MAX_CHANS)
        return NULL;
    struct rch_dev_chan *dc = &rch_dev.chans[rch_dev.nchans];
    if (rch_dev_open_chan(dc, ops, NULL, 0) != RDMACH_OK) {
        RCH_DEBUG("dyn", "no network channel for processes of other jobs: %s", rdmach_last_error());
        memset(dc, 0, sizeof(*dc));
        return NULL;
    }
    dc->can_wait = 1;
    rch_dev.nchans++;
    return dc;
}

rdmach_status_t rch_dev_dyn_net_record(int open, char *chan, size_t chanlen, void *rec, size_t len)
{
    struct rch_dev_chan *dc = rch_dev.initialized ? net_dchan(open) : NULL;
    if (!dc)
        return rch_base_err(RDMACH_ERR_NOT_FOUND, "device: no network channel open");
    snprintf(chan, chanlen, "%s", dc->ops->name);
    return rch_net_dyn_record(dc->chan, rec, len);
}

rdmach_status_t rch_dev_dyn_attach_net(const void *rec, size_t len, const void *mine, int my_id, int server, int w,
                                       int *world)
{
    rdmach_status_t st = slot_number(w);
    struct rch_dev_chan *dc = st == RDMACH_OK ? net_dchan(0) : NULL;
    if (st == RDMACH_OK && !dc)
        st = rch_base_err(RDMACH_ERR_NOT_FOUND, "device: no network channel open");
    if (st != RDMACH_OK)
        return st;
    slot_take(w);
    struct rch_dev_peer *p = &rch_dev.peers[w];
    if ((st = rch_net_dyn_attach_mine(dc->chan, w, rec, len, mine, my_id, server)) != RDMACH_OK ||
        (st = rch_dev_peer_setup(p, dc)) != RDMACH_OK)
        return st;
    slot_publish(w);
    *world = w;
    return RDMACH_OK;
}

/* How long a detach lets what is queued for the peer, and its channel's
 * goodbye, go out before it closes anyway (as the channels' close does). */
#define DETACH_DRAIN_SECONDS 2.0

void rch_dev_dyn_detach(int world)
{
    if (!rch_dev.initialized || world < rch_boot.size || world >= rch_dev.size)
        return;
    struct rch_dev_peer *p = &rch_dev.peers[world];
    struct rch_dev_chan *dc = p->dchan;
    if (p->maps > 0 || !dc || p->detached)   /* named still, never attached, or done */
        return;
    double start = rch_base_wtime(), until = start + DETACH_DRAIN_SECONDS;
    int forced = 0;
    while (!p->dead && (p->sq_head || !rch_dlist_empty(&p->pending)) && !(forced = rch_base_wtime() >= until))
        rch_dev_progress();
    if (dc->ops == &rch_rdma_sock_ops) {
        rch_rdma_sock_detach(dc->chan, world);
    } else if (rch_net_is_net(dc->ops)) {
        while (rch_net_dyn_detach(dc->chan, world, forced) == RDMACH_AGAIN)
            if (!(forced = rch_base_wtime() >= until))
                rch_dev_progress();
    }
    if (forced)
        RCH_WARN("dyn", "process %d of another job: what was queued for it, or the goodbye, had not gone out "
                 "after %.0f s; its connection is closed anyway", world, DETACH_DRAIN_SECONDS);
    RCH_DEBUG("dyn", "process %d of another job detached (%s, %.3f s)", world, dc->ops->name,
              rch_base_wtime() - start);
    /* Its channel no longer serves it: sends to it fail, nothing waits on it
     * (p->dchan stays: a request's registration is released through it). */
    rch_dev_peer_left(world);
    /* nothing of it arrives any more, and no communicator can receive what
     * did: a later communicator in its slot with the same context id must not */
    rch_match_unexp_foreach(&rch_dev.unexp, drop_unexp, &world);
    p->detached = 1;
}

int rch_dev_dyn_count(void)
{
    int n = 0;
    for (int w = rch_boot.size; rch_dev.initialized && w < rch_dev.size; w++)
        n += !rch_dev.peers[w].detached;
    return n;
}

int rch_dev_nprocs(void)
{
    return rch_dev.size;
}
