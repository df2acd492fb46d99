/*
 * Processes of other jobs over the network channel (dynamic processes: the
 * device's rch_dev_dyn_attach_net). Such a process is not in the job's KVS:
 * the layer above swaps the two processes' records over a connection it has
 * authenticated (src/mpi/dyn_connect.c), then each side attaches the other
 * under its own number for it, telling the channel the number the other
 * gave it. From then on the pair connects as two ranks of one job do
 * (net_conn.c), with the same checks: a request must quote the key of the
 * record this process gave the peer, which only the authenticated peer
 * was given, and name a peer it serves; the acceptor's side is the pair's
 * server. Every record carries a key of its own, bound to the attach that
 * follows it: a number released and given to another process (the
 * device's slot reuse) is quoted with a new key, so a request of its
 * previous process that arrives late (one still in the provider when its
 * connection was released, a retransmission) is refused instead of being
 * taken as the new process's connection. Such a connection
 * ends alone (rch_net_dyn_detach) when the layer above no longer names the
 * process: a BYE behind its last message, then its endpoints, ring and
 * registrations released; a rank of the job is never detached.
 */
#ifndef RCH_RDMA_NET_DYN_H
#define RCH_RDMA_NET_DYN_H

#include <stddef.h>
#include "rdma/channel.h"

/* A record's size (struct rch_net_kvs_rec: secret, provider, address). */
#define RCH_NET_DYN_REC_LEN 128

/* Is ops a network channel (ofi, verbs)? */
int rch_net_is_net(const struct rch_rdma_ops *ops);
/* This process's record: what the other needs to connect and prove it may,
 * with a fresh key, which the next rch_net_dyn_attach binds to its peer. */
rdmach_status_t rch_net_dyn_record(struct rch_rdma_chan *ch, void *rec, size_t len);
/* Take `peer` (the next after the connections in use, up to the job's size
 * plus RDMACH_DYN_MAX, or a released one that rch_net_dyn_reusable admitted)
 * as a process of another job: its record (checked), my_id (this process's
 * number at the peer), server (this side accepts); the key of the record
 * handed out last is what the peer must quote (INVALID_ARG if none was). */
rdmach_status_t rch_net_dyn_attach(struct rch_rdma_chan *ch, int peer, const void *rec, size_t len, int my_id,
                                   int server);
/* The same binding the key of `mine`, a record this channel handed out
 * (rch_net_dyn_record) for this attach: several records may be out at once,
 * one per attach (threads establishing intercommunicators concurrently). */
rdmach_status_t rch_net_dyn_attach_mine(struct rch_rdma_chan *ch, int peer, const void *rec, size_t len,
                                        const void *mine, int my_id, int server);

/* Release the connection to `peer`, a process of another job: RDMACH_AGAIN
 * while its BYE (or a write before it) is on its way, to be called again
 * after progress; with `force`, released now. INVALID_ARG for a rank of the
 * job or a peer never attached. */
rdmach_status_t rch_net_dyn_detach(struct rch_rdma_chan *ch, int peer, int force);
/* May record `peer` (beyond the job's ranks) serve a new process of another
 * job: never used, or released and nothing of the old connection can still
 * arrive? Takes what the provider holds (progress). */
int rch_net_dyn_reusable(struct rch_rdma_chan *ch, int peer);

#endif
