/*
 * A small multi-process harness for the shared-memory channel, independent of
 * the launcher and of the PMI key-value store: the parent forks n ranks, each
 * opens the channel with a hand-made layout (one node, n local ranks), the
 * channel addresses travel through pipes to the parent and back, every rank
 * connects to every peer, and then the test body runs. The parent also serves
 * barriers and enforces a deadline (a hang is a failure, not a stuck CI).
 *
 * Bodies run in the children: they must not use cr_assert (Criterion's state
 * is in the parent); they return 0 or print why and return non-zero.
 */
#ifndef RCH_TESTS_SHM_HARNESS_H
#define RCH_TESTS_SHM_HARNESS_H

#include <stdio.h>
#include <sys/uio.h>
#include "rdma/channel.h"

#define H_MAX_RANKS 16

struct h_rank {
    int rank, size;
    struct rch_rdma_chan *ch;
    const struct rch_rdma_ops *ops;
    struct rch_boot_info boot;
    int node_of[H_MAX_RANKS];
    int local_ranks[H_MAX_RANKS];
    int peers[H_MAX_RANKS];
    int npeers;
    int to_parent, from_parent;     /* pipes */
    /* set by the body: */
    void (*on_recv)(struct h_rank *h, int peer, const void *pkt, size_t len);
    void *user;
    /* upcall records */
    unsigned long rma_done;
    rdmach_status_t rma_status;     /* first non-OK status seen, else OK */
    void *rma_last_ctx;
    int failed_peer, nfailed;
    rdmach_status_t failed_status;
};

struct h_opts {
    int n;                          /* ranks (<= H_MAX_RANKS) */
    int self_peer;                  /* include each rank in its own peer list (loopback) */
    int timeout_s;                  /* 0: 60 */
    int pin;                        /* pin rank r to CPU r % ncpus */
    int no_connect;                 /* the body connects itself (addresses in h_addr) */
    /* run in the child before the channel is opened (e.g. drop privileges) */
    int (*before_open)(int rank, void *arg);
};

typedef int (*h_body_fn)(struct h_rank *h, void *arg);

/* Run a job; 0 if every rank returned 0, else a message on stderr and -1.
 * `name` goes into the kvsname (segment names) and messages. */
int h_run(const char *name, const struct h_opts *o, h_body_fn body, void *arg);

/* Inside a body. */
int h_barrier(struct h_rank *h);
/* The peer's channel address as published (valid in the body). */
const char *h_addr(struct h_rank *h, int rank);
/* The kvsname of the running job (to look at /dev/shm). */
const char *h_kvsname(struct h_rank *h);
/* send with progress on AGAIN (bounded by the deadline); OK or the error. */
rdmach_status_t h_send(struct h_rank *h, int peer, const void *hdr, size_t hlen, const void *payload, size_t plen);
/* progress until *flag != 0 or `seconds` pass; 0 on success. */
int h_progress_until(struct h_rank *h, volatile int *flag, double seconds);
/* progress until rma_done reached `count`. */
int h_wait_rma(struct h_rank *h, unsigned long count, double seconds);
/* Block on the channel's wait primitive (arm, futex wait, disarm) at most
 * `seconds`; returns 1 if it slept and was woken or saw work, 0 on timeout. */
int h_block(struct h_rank *h, double seconds);

#define H_CHECK(cond, ...)                                                            \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", h->rank, __FILE__,  \
                    __LINE__, #cond);                                                 \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, " [%s]\n", rdmach_last_error());                           \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

void h_pattern(unsigned char *p, size_t n, uint64_t seed);
/* index of the first wrong byte, or -1 */
long h_check_pattern(const unsigned char *p, size_t n, uint64_t seed);

#endif
