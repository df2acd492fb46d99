/*
 * The stream-socket channel: peers of another job (MPI dynamic processes:
 * MPI_Comm_connect/accept, spawn, join). The device opens it on the first
 * such peer and hands it each connection already made and authenticated
 * (src/mpi/dyn_*.c make them); no KVS, no publish, no connect step.
 *
 * Wire: frames {uint32 length (network order), bytes}. Length
 * RCH_SOCK_BYE ends the stream: the sender sends nothing more, so the
 * connection's end that follows is no failure. An end without it is
 * (peer_failed, PEER_DEAD).
 */
#ifndef RCH_RDMA_SOCK_H
#define RCH_RDMA_SOCK_H

#include "rdma/channel.h"

#define RCH_SOCK_BYE 0xffffffffu
#define RCH_SOCK_MAX_MSG (256u * 1024u)
#define RCH_SOCK_MAX_IOV 8            /* pieces of one packet (send) */

extern const struct rch_rdma_ops rch_rdma_sock_ops;

/* Take connected socket fd (the channel owns it from now) as world index
 * `peer`. */
rdmach_status_t rch_rdma_sock_attach(struct rch_rdma_chan *ch, int peer, int fd);
/* Closes the connection to peer (BYE behind what is queued): the peer sees
 * an orderly end, and sends to it fail from then on. */
void rch_rdma_sock_detach(struct rch_rdma_chan *ch, int peer);

#endif
