/*
 * Peers of other jobs (dev.h, rch_dev_dyn_attach): over the network channel
 * (opened at init, or here for a peer on another host), when the layer above
 * found that both sides have the same one (rch_dev_dyn_attach_net,
 * rdma/net/net_dyn.h); else the
 * sock channel, opened on the first such peer, takes the connection. The
 * peer record is the
 * next slot after the job's ranks in the table init allocated with room for
 * RCH_DEV_DYN_MAX of them. A connection closes when the layer above
 * detaches its peer (MPI_Comm_disconnect) and no communicator map names it
 * any more (the peer's count of maps, rch_dev_ctx_map), or with the
 * channel at finalize; either way with a BYE behind the last packet, so
 * the other side sees no failure. A detached peer's slot is not reused
 * (requests may still name it); the process connected again is a new peer.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
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

/* Room for one more peer of another job: OK, or why not. */
static rdmach_status_t room(void)
{
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "device: not initialized");
    if (rch_dev.size >= rch_boot.size + RCH_DEV_DYN_MAX)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "device: more than %d processes of other jobs connected",
                            RCH_DEV_DYN_MAX);
    return RDMACH_OK;
}

rdmach_status_t rch_dev_dyn_attach(int fd, int *world)
{
    rdmach_status_t st = room();
    struct rch_dev_chan *dc = st == RDMACH_OK ? sock_dchan(&st) : NULL;
    if (!dc) {
        close(fd);
        return st;
    }
    int w = rch_dev.size;
    struct rch_dev_peer *p = &rch_dev.peers[w];
    p->rank = w;
    rch_dlist_init(&p->pending);
    st = rch_rdma_sock_attach(dc->chan, w, fd);
    if (st != RDMACH_OK) {
        close(fd);
        return st;
    }
    st = rch_dev_peer_setup(p, dc);
    if (st != RDMACH_OK)
        return st;
    /* published last: isend's range check admits the peer only now */
    rch_dev.size = w + 1;
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

int rch_dev_dyn_next(void)
{
    return rch_dev.size;
}

rdmach_status_t rch_dev_dyn_attach_net(const void *rec, size_t len, int my_id, int server, int *world)
{
    rdmach_status_t st = room();
    struct rch_dev_chan *dc = st == RDMACH_OK ? net_dchan(0) : NULL;
    if (st == RDMACH_OK && !dc)
        st = rch_base_err(RDMACH_ERR_NOT_FOUND, "device: no network channel open");
    if (st != RDMACH_OK)
        return st;
    int w = rch_dev.size;
    struct rch_dev_peer *p = &rch_dev.peers[w];
    p->rank = w;
    rch_dlist_init(&p->pending);
    if ((st = rch_net_dyn_attach(dc->chan, w, rec, len, my_id, server)) != RDMACH_OK ||
        (st = rch_dev_peer_setup(p, dc)) != RDMACH_OK)
        return st;
    rch_dev.size = w + 1;
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
    if (p->maps > 0 || !dc)
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
}

int rch_dev_nprocs(void)
{
    return rch_dev.size;
}
