/*
 * The network profile the collectives ask for (dev.h, rch_dev_net_onload):
 * the caps.onload of the first open channel that serves a peer on another
 * node. Every rank opens the same kind of network channel, so every rank
 * gets the same answer (the collectives rely on that to pick the same
 * algorithm everywhere).
 */
#include "device/dev_impl.h"

int rch_dev_net_onload(void)
{
    if (!rch_dev.initialized || rch_boot.node_of == NULL)
        return -1;
    for (int i = 0; i < rch_dev.nchans; i++) {
        const struct rch_dev_chan *dc = &rch_dev.chans[i];
        if (!dc->chan || !dc->caps)
            continue;
        for (int k = 0; k < dc->npeers; k++)
            if (rch_boot.node_of[dc->peers[k]] != rch_boot.node)
                return dc->caps->onload ? 1 : 0;
    }
    return -1;
}
