/*
 * Non-blocking and neighbourhood collectives (src/coll/nbc_*.c,
 * neighbor_*.c): what the MPI binding calls.
 *
 * Each call builds a schedule (nbc_sched.c) — rounds of sends, receives
 * and local reductions/copies — starts its first round and returns; the
 * device's progress engine advances it (a progress hook), and when its last
 * round is done the schedule completes `req`, a generalized request the
 * caller allocated with rch_dev_req_alloc(RCH_DEV_REQ_GREQ): req->err gets
 * the outcome (RDMACH_OK or the first error, with rdmach_last_error naming
 * the collective, the peer and the cause at that moment), req->on_complete
 * runs, then req->done is set. A call that returns an error has not started
 * anything and does not touch req.
 *
 * The view must carry a state (rch_coll_comm_init): its sequence number
 * gives every schedule tags of its own on the collective context, so any
 * number of non-blocking collectives may be outstanding on a communicator
 * together with blocking ones (MPI's rule that every rank starts the
 * communicator's collectives in the same order makes the numbers agree).
 *
 * Buffers and sizes as in coll.h (bytes, byte displacements,
 * RCH_COLL_IN_PLACE). Buffers must stay valid until req completes; the
 * count and displacement arrays, the op structure and the neighbour lists
 * are only read during the call.
 */
#ifndef RCH_COLL_NBC_H
#define RCH_COLL_NBC_H

#include <stddef.h>
#include "coll/coll.h"
#include "device/dev.h"

rdmach_status_t rch_coll_ibarrier(const struct rch_coll_comm *c, struct rch_dev_req *req);
rdmach_status_t rch_coll_ibcast(const struct rch_coll_comm *c, void *buf, size_t bytes, int root,
                                struct rch_dev_req *req);
rdmach_status_t rch_coll_ireduce(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                 size_t count, const struct rch_coll_op *op, int root,
                                 struct rch_dev_req *req);
rdmach_status_t rch_coll_iallreduce(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                    size_t count, const struct rch_coll_op *op,
                                    struct rch_dev_req *req);
/* counts[i] elements for rank i (reduce_scatter_block: all equal). */
rdmach_status_t rch_coll_ireduce_scatter(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                         const size_t *counts, const struct rch_coll_op *op,
                                         struct rch_dev_req *req);
rdmach_status_t rch_coll_iscan(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                               size_t count, const struct rch_coll_op *op, struct rch_dev_req *req);
rdmach_status_t rch_coll_iexscan(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                 size_t count, const struct rch_coll_op *op, struct rch_dev_req *req);
rdmach_status_t rch_coll_igather(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                 size_t bytes, int root, struct rch_dev_req *req);
rdmach_status_t rch_coll_igatherv(const struct rch_coll_comm *c, const void *sbuf, size_t sbytes,
                                  void *rbuf, const size_t *rcounts, const size_t *rdispls, int root,
                                  struct rch_dev_req *req);
rdmach_status_t rch_coll_iscatter(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                  size_t bytes, int root, struct rch_dev_req *req);
rdmach_status_t rch_coll_iscatterv(const struct rch_coll_comm *c, const void *sbuf,
                                   const size_t *scounts, const size_t *sdispls, void *rbuf,
                                   size_t rbytes, int root, struct rch_dev_req *req);
rdmach_status_t rch_coll_iallgather(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                    size_t bytes, struct rch_dev_req *req);
rdmach_status_t rch_coll_iallgatherv(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                     const size_t *rcounts, const size_t *rdispls,
                                     struct rch_dev_req *req);
rdmach_status_t rch_coll_ialltoall(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                   size_t bytes, struct rch_dev_req *req);
rdmach_status_t rch_coll_ialltoallv(const struct rch_coll_comm *c, const void *sbuf,
                                    const size_t *scounts, const size_t *sdispls, void *rbuf,
                                    const size_t *rcounts, const size_t *rdispls,
                                    struct rch_dev_req *req);

/*
 * Neighbourhood collectives. The neighbours of the calling rank as the MPI
 * topology lists them: `in` the ranks it receives from (block i of the
 * receive side comes from in[i]), `out` those it sends to (block j of the
 * send side goes to out[j]); RCH_DEV_PROC_NULL entries (off the edge of a
 * non-periodic Cartesian grid) send nothing and leave their block alone.
 * `cart` set: the lists are a Cartesian topology's (for each dimension d the
 * -1 then the +1 neighbour, in == out), and each message is tagged with the
 * block it fills at the receiver, so a periodic dimension of size 1 or 2
 * (both neighbours the same rank) still pairs block 2d with the -1
 * neighbour's block 2d+1. Otherwise several edges between two ranks pair in
 * the order they are listed.
 */
struct rch_coll_nbrs {
    int indegree, outdegree;
    const int *in, *out;
    int cart;
};
/* Every exchange: send block j (scounts[j] bytes at sdispls[j] of sbuf) to
 * out[j], receive block i (rcounts[i] at rdispls[i] of rbuf) from in[i].
 * Allgather(v) is the case of every sdispls[j] equal. Blocking when req is
 * NULL (runs the same schedule and waits for it). */
rdmach_status_t rch_coll_neighbor_alltoallv(const struct rch_coll_comm *c, const struct rch_coll_nbrs *n,
                                            const void *sbuf, const size_t *scounts,
                                            const size_t *sdispls, void *rbuf,
                                            const size_t *rcounts, const size_t *rdispls,
                                            struct rch_dev_req *req);

/*
 * Persistent collectives (MPI 4.0 MPI_<collective>_init): a schedule built
 * once and run again by every start. Between capture_begin and capture_end,
 * the next rch_coll_i* call above builds its schedule and hands it over
 * instead of starting it (its req is not touched); capture_end returns it
 * (NULL if the call failed before building one). The schedule keeps the tag
 * it got when it was built: every start of it on every rank is the same
 * collective, and the messages of consecutive starts between two ranks match
 * in order. rch_coll_persist_start runs it once more, completing req (a
 * GREQ) at its end as rch_coll_i* does; it must not be running. The buffers
 * given when it was built must stay valid until rch_coll_persist_free, which
 * may be called while it runs (it is freed when that run ends).
 */
struct rch_nbc_sched;
void rch_coll_persist_capture_begin(void);
struct rch_nbc_sched *rch_coll_persist_capture_end(void);
rdmach_status_t rch_coll_persist_start(struct rch_nbc_sched *s, struct rch_dev_req *req);
void rch_coll_persist_free(struct rch_nbc_sched *s);

/*
 * A persistent allreduce through the node segment (allreduce_shmseg_persist.c):
 * *out is NULL when it does not apply (more than one node, a failed segment,
 * more than RCH_NODESEG_INLINE bytes: use a captured schedule then); the same
 * answer on every rank when called at the same point of the communicator's
 * collective order. Ready says whether the segment is made (by the first
 * blocking shmseg collective): until then a start must run the captured
 * schedule instead; the same answer on every rank at the same start. Start
 * (only when ready) queues one run
 * that completes req (a GREQ) as a schedule does; it must not be running.
 * Free may come while it runs (it is freed at that run's end). Buffers as
 * for rch_coll_iallreduce, valid until free.
 */
struct rch_coll_pshm;
rdmach_status_t rch_coll_pshm_allreduce_init(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                             size_t count, const struct rch_coll_op *op,
                                             struct rch_coll_pshm **out);
int rch_coll_pshm_ready(const struct rch_coll_pshm *q);
rdmach_status_t rch_coll_pshm_start(struct rch_coll_pshm *q, struct rch_dev_req *req);
void rch_coll_pshm_free(struct rch_coll_pshm *q);

#endif
