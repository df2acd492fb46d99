/*
 * How a rendezvous get moves within a node, chosen at run time by the
 * receiver from its own timings (shm_adapt.c): the two-copy pipeline
 * (shm_pipe.c) or single copy (shm_coop.c, process_vm_readv). Which is
 * faster depends on the processor, not the library: the pipeline was 2-5
 * times faster on one AMD EPYC (Zen 5), single copy 2 times faster on
 * another (Zen 4; docs/PERFORMANCE.md, "Large messages on a second
 * processor"). So, per size class (the log2 of the length, from 32 KiB),
 * each way is timed on its first gets, the faster one is used, and the
 * other is timed again once every RCH_SHM_ADAPT_RECHECK gets of the class,
 * so a machine that changes (the VM's states, load) is followed.
 *
 * A sample is a get's service time per byte: from its start or the end of
 * the timed get before it, whichever is later (so gets queued behind others
 * in a window count their own time only), to its completion. A way's figure
 * is the lowest of its last RCH_SHM_ADAPT_KEEP samples (noise only slows).
 */
#ifndef RCH_SHM_ADAPT_H
#define RCH_SHM_ADAPT_H

#include <stddef.h>
#include <stdint.h>

enum { RCH_SHM_WAY_PIPE, RCH_SHM_WAY_CMA, RCH_SHM_NWAYS };

#define RCH_SHM_ADAPT_MIN_LOG 15    /* size classes from 32 KiB */
#define RCH_SHM_ADAPT_CLASSES 16    /* 32 KiB .. 1 GiB and above */
#define RCH_SHM_ADAPT_KEEP 4        /* samples kept per way and class */
#define RCH_SHM_ADAPT_FIRST 2       /* samples of each way before choosing */
#define RCH_SHM_ADAPT_RECHECK 64    /* one get in this many of a class takes the other way */
#define RCH_SHM_ADAPT_PENDING 16    /* timed gets in flight */

struct rch_shm_adapt_way {
    double ns_per_byte[RCH_SHM_ADAPT_KEEP];   /* a ring of the last samples */
    unsigned nsamples;
};

struct rch_shm_adapt_class {
    struct rch_shm_adapt_way way[RCH_SHM_NWAYS];
    unsigned choices;                         /* after the first samples */
};

struct rch_shm_adapt_pending {
    void *op_ctx;                             /* NULL: free */
    uint64_t t0;
    size_t len;
    int way;
};

struct rch_shm_adapt {
    struct rch_shm_adapt_class cls[RCH_SHM_ADAPT_CLASSES];
    struct rch_shm_adapt_pending pend[RCH_SHM_ADAPT_PENDING];
    unsigned npend;
    uint64_t last_done;                       /* ns: the last timed get's completion */
};

/* The way for a get of len bytes (len >= 32 KiB). */
int rch_shm_adapt_choose(struct rch_shm_adapt *a, size_t len);
/* A get of len bytes that took `way` from t0 to t1 (ns). */
void rch_shm_adapt_sample(struct rch_shm_adapt *a, size_t len, int way, uint64_t t0, uint64_t t1);
/* A get that completes later (through rch_shm_adapt_done with op_ctx);
 * with the table full it is not timed. */
void rch_shm_adapt_start(struct rch_shm_adapt *a, void *op_ctx, size_t len, int way, uint64_t t0);
/* op_ctx completed at `now`: its sample if it was timed and ok. */
void rch_shm_adapt_done(struct rch_shm_adapt *a, void *op_ctx, int ok, uint64_t now);
/* The way's current figure for the class of len (ns per byte; 0: none yet). */
double rch_shm_adapt_figure(const struct rch_shm_adapt *a, size_t len, int way);
uint64_t rch_shm_adapt_now(void);

#endif
