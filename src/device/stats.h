/*
 * What the device counts for tools (the MPI_T performance variables,
 * src/mpi/mpit_pvar.c): read-only views over counters the device keeps as
 * plain integers where it already has the data (per peer next to its
 * message numbers, per rank in `rch_dev_stat`). Nothing here is atomic: the
 * device runs one thread at a time (dev_impl.h), and readers hold the MPI
 * layer's critical section.
 *
 * Kept out of dev.h: the collectives' interface stays what rdmach-sim's
 * recording device implements.
 */
#ifndef RCH_DEVICE_STATS_H
#define RCH_DEVICE_STATS_H

#include <stddef.h>
#include <stdint.h>

struct rch_rdma_chan;

/* Counters of this rank, since rch_dev_init (zeroed there). */
struct rch_dev_stat_s {
    uint64_t unexp_arrived;     /* messages (eager or rendezvous) queued as unexpected */
    uint64_t unexp_hwm;         /* most messages on the unexpected queue at once */
    uint64_t rndv_get;          /* rendezvous receives that pulled the data (RDMA get; receiver counts) */
    uint64_t rndv_put;          /* rendezvous sends that pushed it (RDMA put; sender counts) */
    uint64_t rndv_pipeline;     /* rendezvous sends streamed as RNDV_DATA chunks (no RMA; sender counts) */
    uint64_t credit_stalls;     /* queued sends that found no eager credit left (CRDT) */
    uint64_t rma_rmw;           /* accumulates and compare-and-swaps applied by single copy (rma_ops.c rmw) */
    uint64_t rma_pattern;       /* PUTP/ACCP packets sent (rma_pat.c) */
    uint64_t rma_getw;          /* GETW packets sent (rma_getw.c) */
    uint64_t rma_getw_refused;  /* GETW answers whose put_fill the channel refused at the call (rma_getw.c) */
    uint64_t rma_getw_lost;     /* GETW chunk writes in flight (in the channel) when their origin died (rma_getw.c) */
    uint64_t rma_putw;          /* PUTW packets sent (rma_putw.c) */
    uint64_t rma_putw_lost;     /* PUTW reads in flight (draining) when their origin died (rma_putw.c) */
    uint64_t rma_putw_fetched;  /* PUTW whose get_drain the channel refused at the call: read whole, then scattered */
    uint64_t rma_putw_unready;  /* targets of a window whose PUTW read the channel could not serve: packets instead */
    uint64_t blocks;            /* waits that slept on a channel's primitive */
    double blocked_seconds;     /* time spent asleep in them */
};
extern struct rch_dev_stat_s rch_dev_stat;

/* Messages and bytes to and from the peers a channel serves (by its ops
 * name: "shm", "ofi", "verbs", "self"), summed over those peers. */
struct rch_dev_chan_stat {
    uint64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
    unsigned peers;
};
void rch_dev_stats_chan(const char *name, struct rch_dev_chan_stat *out);
/* Messages on the unexpected queue now. */
size_t rch_dev_stats_unexp_len(void);
/* The open channel instance of that name (NULL: not open), for the
 * channel's own statistics (net.h rch_net_stats). */
struct rch_rdma_chan *rch_dev_stats_chan_open(const char *name);

/*
 * The event of an unexpected message's arrival: called, when set, from the
 * progress engine right after the message was queued (never on the path of
 * an expected message). `src` and `tag` are the message's envelope in its
 * communicator (context id `ctx`), `peer` its sender's world rank.
 */
typedef void (*rch_dev_unexp_hook_fn)(int peer, int src, int tag, uint32_t ctx, uint64_t size);
extern rch_dev_unexp_hook_fn rch_dev_unexp_hook;

/* The event of a peer's failure: called, when set, once per failed peer,
 * after its requests have been completed with the error. */
typedef void (*rch_dev_fail_hook_fn)(int peer);
extern rch_dev_fail_hook_fn rch_dev_fail_hook;

#endif
