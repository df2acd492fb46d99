/* The device's counters for tools (stats.h). */
#include <string.h>
#include "device/dev_impl.h"
#include "device/stats.h"

struct rch_dev_stat_s rch_dev_stat;
rch_dev_unexp_hook_fn rch_dev_unexp_hook;
rch_dev_fail_hook_fn rch_dev_fail_hook;

void rch_dev_stats_chan(const char *name, struct rch_dev_chan_stat *out)
{
    memset(out, 0, sizeof(*out));
    if (!rch_dev.initialized)
        return;
    for (int i = 0; i < rch_dev.nchans; i++) {
        const struct rch_dev_chan *dc = &rch_dev.chans[i];
        if (strcmp(dc->ops->name, name) == 0) {
            out->msgs_sent += dc->gone_msgs_sent;
            out->bytes_sent += dc->gone_bytes_sent;
            out->msgs_recv += dc->gone_msgs_recv;
            out->bytes_recv += dc->gone_bytes_recv;
        }
    }
    for (int i = 0; i < rch_dev.size; i++) {
        const struct rch_dev_peer *p = &rch_dev.peers[i];
        /* by the channel it was set up with: a failed peer's ops become
         * "none", but what it sent and received stays with its channel */
        const struct rch_rdma_ops *ops = p->dchan ? p->dchan->ops : p->ops;
        if (ops == NULL || strcmp(ops->name, name) != 0)
            continue;
        out->peers++;
        out->msgs_sent += p->tx_seq;
        out->bytes_sent += p->tx_bytes;
        out->msgs_recv += p->rx_seq;
        out->bytes_recv += p->rx_bytes;
    }
}

size_t rch_dev_stats_unexp_len(void)
{
    return rch_dev.initialized ? rch_dev.unexp.count : 0;
}

struct rch_rdma_chan *rch_dev_stats_chan_open(const char *name)
{
    if (!rch_dev.initialized)
        return NULL;
    for (int i = 0; i < rch_dev.nchans; i++)
        if (strcmp(rch_dev.chans[i].ops->name, name) == 0)
            return rch_dev.chans[i].chan;
    return NULL;
}

void rch_dev_stats_unexp_queued(const struct rch_dev_unexp *u)
{
    rch_dev_stat.unexp_arrived++;
    if (rch_dev.unexp.count > rch_dev_stat.unexp_hwm)
        rch_dev_stat.unexp_hwm = rch_dev.unexp.count;
    if (rch_dev_unexp_hook)
        rch_dev_unexp_hook(u->peer, u->me.src, u->me.tag, u->me.ctx, u->size);
}
