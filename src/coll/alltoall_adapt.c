/*
 * Alltoall within a node, the faster of the node segment and messages,
 * measured ("adaptive").
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
 *     296 after 5, 269 after 20. Then
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
 * (linear for medium blocks).
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
    int choice;                    /* SEG or MSG, once the first trial has been agreed */
    int last;                      /* the way of the class's latest call; -1 before the first */
    struct way way[2];
    size_t alt_n;                  /* the block size `alt` was chosen for */
    const struct rch_coll_algo *alt;
};

struct rch_coll_a2a_adapt {
    struct cls cls[CLASSES];
};

uint64_t rch_coll_a2a_adapt_bias_ns[2];

void rch_coll_a2a_adapt_free(struct rch_coll_a2a_adapt *a)
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
    if (k->calls < FIRST)
        return k->calls < FIRST_SEG ? SEG : MSG;
    if (k->calls == FIRST || k->calls == k->trial_at + RUN) {
        *agree = 1;
        return k->choice;
    }
    if (k->calls >= k->trial_at && k->calls < k->trial_at + RUN)
        return !k->choice;
    return k->choice;
}

/* The agreement: one phase of the segment carries every rank's medians. */
static rdmach_status_t agree(struct rch_coll_nodeseg *s, struct cls *k, size_t n, int p)
{
    int b = rch_coll_nodeseg_parity(s);
    uint64_t mine[2] = { median(&k->way[SEG]), median(&k->way[MSG]) }, sum[2] = { 0, 0 };
    memcpy(rch_coll_nodeseg_hdr(s, b, s->me)->inl, mine, sizeof(mine));
    rdmach_status_t st = rch_coll_nodeseg_phase(s, RCH_COLL_ALLTOALL, RCH_NODESEG_ELEM_AGREE, n, 1,
                                                "alltoall");
    if (st != RDMACH_OK)
        return st;
    for (int r = 0; r < p; r++) {
        uint64_t f[2];
        memcpy(f, rch_coll_nodeseg_hdr(s, b, r)->inl, sizeof(f));
        sum[SEG] += f[SEG];
        sum[MSG] += f[MSG];
    }
    int first = k->calls == FIRST, was = first ? SEG : k->choice, other = !was;
    int now = sum[other] < sum[was] - sum[was] / 50 ? other : was;   /* 2% faster */
    if (first || now != k->choice) {
        k->period = PERIOD0;
        if (s->me == 0)
            RCH_DEBUG("coll", "alltoall of %zu-byte blocks on %d ranks: shmseg %.1f us, %s %.1f us "
                      "(mean of the ranks' medians): %s", n, p, (double)sum[SEG] / p / 1e3,
                      k->alt->name, (double)sum[MSG] / p / 1e3, now == SEG ? "shmseg" : k->alt->name);
    } else if (k->period < PERIOD_MAX) {
        k->period *= 2;
    }
    k->choice = now;
    k->trial_at = k->calls + 1 + k->period;
    k->way[!now].n = 0;            /* the next trial's samples alone judge it */
    return RDMACH_OK;
}

static rdmach_status_t alltoall_adapt(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    static const struct rch_coll_algo *const skip[] = { &rch_coll_alltoall_adapt,
                                                        &rch_coll_alltoall_shmseg, NULL };
    struct rch_coll_nodeseg *s;
    rdmach_status_t st = c->size == 1 ? RDMACH_OK : rch_coll_nodeseg_get(c, &s);
    if (st != RDMACH_OK)
        return st;
    if (c->size == 1 || (s && s->rec)) {     /* nothing to choose; the simulator records shmseg */
        rch_coll_note_ran(RCH_COLL_ALLTOALL, rch_coll_alltoall_shmseg.name);
        return rch_coll_alltoall_shmseg.run(c, a);
    }
    if (!s) {                                /* no segment (agreed): the messages */
        const struct rch_coll_algo *alt = rch_coll_select_besides(RCH_COLL_ALLTOALL, c, a, skip);
        rch_coll_note_ran(RCH_COLL_ALLTOALL, alt->name);
        return alt->run(c, a);
    }
    if (!s->a2a_adapt) {
        if (!(s->a2a_adapt = calloc(1, sizeof(*s->a2a_adapt))))
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "alltoall: no memory for the adaptive choice's state");
        for (int i = 0; i < CLASSES; i++)
            s->a2a_adapt->cls[i].last = -1;
    }
    struct cls *k = &s->a2a_adapt->cls[class_of(a->bytes)];
    if (!k->alt || k->alt_n != a->bytes) {
        k->alt = rch_coll_select_besides(RCH_COLL_ALLTOALL, c, a, skip);
        k->alt_n = a->bytes;
    }
    int agree_now, way = way_of(k, &agree_now);
    if (agree_now) {
        if ((st = agree(s, k, a->bytes, c->size)) != RDMACH_OK)
            return st;
        way = k->choice;
    }
    const struct rch_coll_algo *algo = way == SEG ? &rch_coll_alltoall_shmseg : k->alt;
    rch_coll_note_ran(RCH_COLL_ALLTOALL, algo->name);
    /* A call that follows one of the other way (or is the class's first)
     * pays for the switch: the caches hold the other way's buffers, and the
     * first calls set things up. It is not counted. Between trials one call
     * in EVERY is timed: two clock reads cost 60 ns, a 2-rank alltoall of
     * 8 bytes 150 (Zen 4), and the chosen way's figure needs only its
     * latest few calls. */
    int timed = way == k->last && (k->calls < FIRST || way != k->choice || k->calls % EVERY == 0);
    uint64_t t0 = timed ? rch_base_now_ns() : 0;
    st = algo->run(c, a);
    if (timed && st == RDMACH_OK)
        sample(&k->way[way], rch_base_now_ns() - t0 +
                             __atomic_load_n(&rch_coll_a2a_adapt_bias_ns[way], __ATOMIC_RELAXED));
    k->last = way;
    k->calls++;
    return st;
}

const struct rch_coll_algo rch_coll_alltoall_adapt = {
    .name = "adaptive",
    .applies = rch_coll_alltoall_shmseg_applies,
    .run = alltoall_adapt,
};
