/*
 * Alltoall, allgather(v), reduce_scatter and bcast within a node: the
 * faster of the node segment and messages, measured ("adaptive").
 *
 * Why: which of the two wins depends on what a cache line costs between
 * the node's cores, and that is not a property of the processor alone. On
 * one AMD EPYC (Zen 4, 2 vCPUs) a line moved between the cores in 28 ns at
 * some times and in 170 ns at others (where the hypervisor had put the
 * vCPUs); 8 ranks exchanging 64 KiB blocks took 123 us through the segment
 * and 205 us by messages in the first state, 587 and 261 in the second.
 * The segment copies every byte twice through lines the other cores last
 * touched; the messages' single copy (shm rendezvous, CMA) moves each once.
 *
 * How: per communicator and block-size class (the next power of two of the
 * block bytes), every rank times its calls, entry to exit:
 *   - the first 6 calls of a class go through the segment, the next 8 by
 *     messages. A call that follows one of the other way is not counted:
 *     it pays for the switch (set-up, first touch, caches holding the
 *     other way's buffers), and the figure of a way is the median of its
 *     latest 5 counted calls. The messages warm up over more calls (the
 *     pairs' shm rings are faulted in as messages first pass through
 *     them): 8 ranks of 64 KiB in the slow state above, 650 us per call
 *     alternating with the segment, 354 for the 10 calls after the first,
 *     296 after 5, 269 after 20. After the 2nd counted call by messages
 *     the ranks look once (an agreement, as below, that only may end the
 *     trial): if the messages are already a quarter slower than the
 *     segment, the segment is chosen there, so a program whose messages
 *     lose by far (8 ranks on 2 cores, a bcast of 64 KiB: 84 us against
 *     18) pays 3 slow calls for the lesson instead of 8. Then
 *   - the ranks agree: each writes its median time of each way in its
 *     header of the node segment, one synchronisation, each adds them up
 *     in rank order and takes the smaller sum (the way in use keeps the
 *     call unless the other is 2% faster), so every rank chooses the same;
 *   - the chosen way runs, one call in 16 timed; every `period` calls the
 *     other way runs 4 calls and the ranks agree again. The period
 *     doubles while the choice holds and starts over when it changes.
 * Every rank keeps the same counters (block sizes are the same on every
 * rank of a correct program), so every rank knows which calls are trials
 * and which agree without a message. The first call of a class goes
 * through the segment, whose first phase compares the block size of every
 * rank: a program whose ranks disagree gets an error there, as with shmseg.
 * The other way is what the tuning rows choose without shmseg and this one
 * (alltoall: linear for medium blocks; allgather: recursive doubling or the
 * ring; allgatherv: the ring; reduce_scatter: pairwise; bcast: the binomial
 * tree).
 *
 * Allgather and reduce_scatter of small vectors: on 2 ranks a core each the
 * two ways are within 0.1 us of each other, and which is ahead depends on the
 * size; on an oversubscribed node the segment (one hand-off per rank and
 * phase) beats the message rounds (each needs its partner on a core) 2-7
 * times: OSU on 8 ranks on 2 cores (AMD EPYC, Zen 5), allgather of 8 B
 * 5.1 us through the segment against 22 by recursive doubling,
 * reduce_scatter of 1 KiB 7.4 adaptive against 51 by pairwise. A class is
 * keyed by the call's message bytes as the tuning table sees them (alltoall
 * and allgather: the block; allgatherv: the mean block; reduce_scatter: the
 * whole vector; bcast: the buffer, whatever the root).
 *
 * Bcast from 16 KiB: the segment copies every byte twice (root in, every
 * other rank out), the tree's rendezvous once per edge (CMA). With a core
 * per rank the tree wins (AMD EPYC, Zen 4, 2 ranks: 64 KiB 3.3 us against
 * 8.3, 1 MiB 43 against 75-79); with 4 ranks a core the segment does (8
 * ranks, 1 MiB: 534 against 959-1198), and with 2 a core it changes with
 * the cost of a line between the cores (4 ranks, 1 MiB: 145 against 185 in
 * one run, 478 against 246 in the next).
 *
 * Restrictions: shmseg's (one node, a communicator with collective state).
 * Cost: shmseg's or the other's; a trial's slower calls (4 per period, the
 * period 128 to 2048 calls) and one synchronisation per agreement.
 */
#include <stdlib.h>
#include "base/base.h"
#include "base/log.h"
#include "coll/coll_impl.h"
#include "coll/nodeseg.h"

#define CLASSES 48                 /* ceil(log2(block bytes)), 0 for 0 bytes */
#define KEEP 5                     /* recent samples of a way, per class */
#define FIRST_SEG 6                /* the first trial: calls through the segment, */
#define FIRST_MSG 8                /* then by messages (the first of each a warm-up) */
#define FIRST (FIRST_SEG + FIRST_MSG)
#define EARLY (FIRST_SEG + 3)      /* the first trial's early look, after 2 counted message calls, */
#define EARLY_SLOWER 4             /* ... ends it if the messages are 1/4 slower than the segment */
#define RUN 4                      /* calls of the other way in a later trial */
#define PERIOD0 128                /* calls from an agreement to the next trial, at first */
#define PERIOD_MAX 2048            /* ... and at most */
#define NONE 1000000000000ull      /* a way's figure with no sample (failed calls): 1000 s */
#define EVERY 16                   /* outside trials, one call in this many is timed */

enum { SEG, MSG };                 /* the ways: shmseg, the tuning rows' other choice */

struct way {
    uint64_t ns[KEEP];             /* a ring of the latest samples */
    uint32_t n;                    /* samples taken (the ring holds min(n, KEEP)) */
};

struct cls {
    uint64_t calls;                /* calls of this class so far */
    uint64_t trial_at;             /* call that starts the next trial (after the first) */
    uint64_t period;
    int settled;                   /* the first trial has been agreed */
    int choice;                    /* SEG or MSG, once settled */
    int last;                      /* the way of the class's latest call; -1 before the first */
    struct way way[2];
    size_t alt_n;                  /* the message bytes `alt` was chosen for, */
    int alt_comm;                  /* ... and the operation's commutativity (reduce_scatter's
                                    * pairwise takes commutative ones only) */
    const struct rch_coll_algo *alt;
};

/* The collectives that choose so, each with its segment algorithm. */
enum { A2A, AG, RS, BC, AGV, NCOLLS };
static const struct {
    enum rch_coll_id id;
    const struct rch_coll_algo *adapt, *seg;
} colls[NCOLLS] = {
    [A2A] = { RCH_COLL_ALLTOALL, &rch_coll_alltoall_adapt, &rch_coll_alltoall_shmseg },
    [AG] = { RCH_COLL_ALLGATHER, &rch_coll_allgather_adapt, &rch_coll_allgather_shmseg },
    [RS] = { RCH_COLL_REDUCE_SCATTER, &rch_coll_reduce_scatter_adapt, &rch_coll_reduce_scatter_shmseg },
    [BC] = { RCH_COLL_BCAST, &rch_coll_bcast_adapt, &rch_coll_bcast_shmseg },
    [AGV] = { RCH_COLL_ALLGATHERV, &rch_coll_allgatherv_adapt, &rch_coll_allgatherv_shmseg },
};

struct rch_coll_adapt {
    struct cls cls[NCOLLS][CLASSES];
};

uint64_t rch_coll_adapt_bias_ns[2];

void rch_coll_adapt_free(struct rch_coll_adapt *a)
{
    free(a);
}

static unsigned class_of(size_t n)
{
    if (n <= 1)
        return (unsigned)n;
    unsigned c = 65u - (unsigned)__builtin_clzll((unsigned long long)n - 1);   /* ceil(log2 n) + 1 */
    return c < CLASSES ? c : CLASSES - 1;
}

static uint64_t median(const struct way *w)
{
    uint64_t v[KEEP];
    unsigned n = w->n < KEEP ? w->n : KEEP;
    for (unsigned i = 0; i < n; i++) {
        unsigned j = i;
        for (; j > 0 && v[j - 1] > w->ns[i]; j--)
            v[j] = v[j - 1];
        v[j] = w->ns[i];
    }
    return n ? v[(n - 1) / 2] : NONE;
}

static void sample(struct way *w, uint64_t ns)
{
    w->ns[w->n % KEEP] = ns;
    w->n++;
}

/* Which way this call of class k takes, before the agreement (if any). */
static int way_of(const struct cls *k, int *agree)
{
    *agree = 0;
    if (!k->settled) {
        *agree = k->calls == EARLY || k->calls == FIRST;
        return k->calls < FIRST_SEG ? SEG : k->calls < FIRST ? MSG : SEG;
    }
    if (k->calls == k->trial_at + RUN) {
        *agree = 1;
        return k->choice;
    }
    if (k->calls >= k->trial_at && k->calls < k->trial_at + RUN)
        return !k->choice;
    return k->choice;
}

/* The agreement: one phase of the segment carries every rank's medians. */
static rdmach_status_t agree(struct rch_coll_nodeseg *s, enum rch_coll_id id, struct cls *k, size_t n, int p)
{
    const char *name = rch_coll_name(id);
    int b = rch_coll_nodeseg_parity(s);
    uint64_t mine[2] = { median(&k->way[SEG]), median(&k->way[MSG]) }, sum[2] = { 0, 0 };
    memcpy(rch_coll_nodeseg_hdr(s, b, s->me)->inl, mine, sizeof(mine));
    rdmach_status_t st = rch_coll_nodeseg_phase(s, id, RCH_NODESEG_ELEM_AGREE, n, 1, name);
    if (st != RDMACH_OK)
        return st;
    for (int r = 0; r < p; r++) {
        uint64_t f[2];
        memcpy(f, rch_coll_nodeseg_hdr(s, b, r)->inl, sizeof(f));
        sum[SEG] += f[SEG];
        sum[MSG] += f[MSG];
    }
    int first = !k->settled, was = first ? SEG : k->choice, other = !was;
    int now = sum[other] < sum[was] - sum[was] / 50 ? other : was;   /* 2% faster */
    if (first && k->calls == EARLY && sum[MSG] <= sum[SEG] + sum[SEG] / EARLY_SLOWER)
        return RDMACH_OK;          /* not clearly slower: the first trial goes on */
    if (first || now != k->choice) {
        k->period = PERIOD0;
        if (s->me == 0)
            RCH_DEBUG("coll", "%s of %zu bytes on %d ranks: shmseg %.1f us, %s %.1f us "
                      "(mean of the ranks' medians): %s", name, n, p, (double)sum[SEG] / p / 1e3,
                      k->alt->name, (double)sum[MSG] / p / 1e3, now == SEG ? "shmseg" : k->alt->name);
    } else if (k->period < PERIOD_MAX) {
        k->period *= 2;
    }
    k->choice = now;
    k->settled = 1;
    k->trial_at = k->calls + 1 + k->period;
    k->way[!now].n = 0;            /* the next trial's samples alone judge it */
    return RDMACH_OK;
}

static rdmach_status_t adapt(unsigned ci, const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    enum rch_coll_id id = colls[ci].id;
    const struct rch_coll_algo *seg = colls[ci].seg;
    const struct rch_coll_algo *const skip[] = { colls[ci].adapt, seg, NULL };
    struct rch_coll_nodeseg *s;
    rdmach_status_t st = c->size == 1 ? RDMACH_OK : rch_coll_nodeseg_get(c, &s);
    if (st != RDMACH_OK)
        return st;
    if (c->size == 1 || (s && s->rec)) {     /* nothing to choose; the simulator records shmseg */
        rch_coll_note_ran(id, seg->name);
        return seg->run(c, a);
    }
    if (!s) {                                /* no segment (agreed): the messages */
        const struct rch_coll_algo *alt = rch_coll_select_besides(id, c, a, skip);
        rch_coll_note_ran(id, alt->name);
        return alt->run(c, a);
    }
    if (!s->adapt) {
        if (!(s->adapt = calloc(1, sizeof(*s->adapt))))
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "%s: no memory for the adaptive choice's state",
                                rch_coll_name(id));
        for (unsigned q = 0; q < NCOLLS; q++)
            for (int i = 0; i < CLASSES; i++)
                s->adapt->cls[q][i].last = -1;
    }
    size_t n = rch_coll_msg_bytes(id, c, a);
    int comm = a->op ? a->op->commutative : 1;
    struct cls *k = &s->adapt->cls[ci][class_of(n)];
    if (!k->alt || k->alt_n != n || k->alt_comm != comm) {
        k->alt = rch_coll_select_besides(id, c, a, skip);
        k->alt_n = n;
        k->alt_comm = comm;
    }
    int agree_now, way = way_of(k, &agree_now);
    if (agree_now) {
        if ((st = agree(s, id, k, n, c->size)) != RDMACH_OK)
            return st;
        if (k->settled)
            way = k->choice;
    }
    const struct rch_coll_algo *algo = way == SEG ? seg : k->alt;
    rch_coll_note_ran(id, algo->name);
    /* A call that follows one of the other way (or is the class's first)
     * pays for the switch: the caches hold the other way's buffers, and the
     * first calls set things up. It is not counted. Between trials one call
     * in EVERY is timed: two clock reads cost 60 ns, a 2-rank alltoall of
     * 8 bytes 150 (Zen 4), and the chosen way's figure needs only its
     * latest few calls. */
    int timed = way == k->last && (!k->settled || way != k->choice || k->calls % EVERY == 0);
    uint64_t t0 = timed ? rch_base_now_ns() : 0;
    st = algo->run(c, a);
    if (timed && st == RDMACH_OK)
        sample(&k->way[way], rch_base_now_ns() - t0 +
                             __atomic_load_n(&rch_coll_adapt_bias_ns[way], __ATOMIC_RELAXED));
    k->last = way;
    k->calls++;
    return st;
}

static rdmach_status_t alltoall_adapt(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return adapt(A2A, c, a);
}

static rdmach_status_t allgather_adapt(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return adapt(AG, c, a);
}

static rdmach_status_t reduce_scatter_adapt(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return adapt(RS, c, a);
}

static rdmach_status_t bcast_adapt(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return adapt(BC, c, a);
}

static rdmach_status_t allgatherv_adapt(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return adapt(AGV, c, a);
}

static int reduce_scatter_adapt_applies(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return rch_coll_reduce_scatter_shmseg.applies(c, a);
}

const struct rch_coll_algo rch_coll_alltoall_adapt = {
    .name = "adaptive",
    .applies = rch_coll_shmseg_applies,
    .run = alltoall_adapt,
    .nodeseg = 1,
};

const struct rch_coll_algo rch_coll_allgather_adapt = {
    .name = "adaptive",
    .applies = rch_coll_shmseg_applies,
    .run = allgather_adapt,
    .nodeseg = 1,
};

const struct rch_coll_algo rch_coll_reduce_scatter_adapt = {
    .name = "adaptive",
    .applies = reduce_scatter_adapt_applies,
    .run = reduce_scatter_adapt,
    .nodeseg = 1,
};

const struct rch_coll_algo rch_coll_bcast_adapt = {
    .name = "adaptive",
    .applies = rch_coll_shmseg_applies,
    .run = bcast_adapt,
    .nodeseg = 1,
};

const struct rch_coll_algo rch_coll_allgatherv_adapt = {
    .name = "adaptive",
    .applies = rch_coll_shmseg_applies,
    .run = allgatherv_adapt,
    .nodeseg = 1,
};
