/*
 * The event engine of rdmach-sim (see sim.h).
 *
 * Model (LogGOPS, per channel: shm between ranks of a node, net between
 * nodes; a node's ranks share one NIC for net):
 *   eager send of s bytes (s <= S): the sender's CPU is busy o + s·O; the
 *     message leaves when the sending resource (the node's NIC for net, the
 *     rank itself for shm) is free, keeps it g + s·G, and arrives L + s·G
 *     later, no earlier than the receiving NIC's previous message + g (net);
 *     the send is complete when its CPU part is (onload NIC: when the data
 *     has left; its receiver's CPU moves the data in as it comes, or from
 *     when it is ready if it was busy then). The receiver's CPU spends orecv + s·O once the message has
 *     arrived and the receive is posted, and obusy more if the message got
 *     there first (its receiver was busy, or had not posted the receive).
 *     One that got there before its receive was posted was taken off the
 *     channel into the device's unexpected queue (src/device/recv.c): its
 *     receiver copies it twice (in, then out at the match: s·copy more than
 *     the expected path) and, above RCH_DEV_UNEXP_INLINE bytes, allocates and
 *     frees its buffer (`unexp`). One that crossed its receiver's own last
 *     send, to its sender, costs the receiver the channel's `duplex` entry
 *     for its size more (an exchange, duplex()).
 *   rendezvous (s > S): a request-to-send (0 bytes) as above; on match the
 *     receiver spends its receive overhead and asks for the data (L); an
 *     onload NIC needs the sender's CPU for o to serve it; the data then
 *     flows as an eager message's (shm on an oversubscribed host: the
 *     sender's copy into the pipeline, s·G on its core after a switch if
 *     it waited, shm_serve); the sender completes when it has left;
 *     the receiver spends rndv + s·O once it has arrived.
 *   compute: reductions cost gamma ns per byte; work ops their length;
 *     copies through the node segment beta ns per byte.
 *   the host's L3 (`l3`, sim_cache.c): a copy the engine books on a CPU (a
 *     shm eager message's at either end, the shm rendezvous's copy into the
 *     pipe buffers and out of them, a local copy) whose source or
 *     destination was last used more bytes of the host's buffers ago than
 *     the L3 holds pays, per byte of such a buffer, half the excess of
 *     copyws's rate beyond the L3 over its rate in it: one core's, or both
 *     cores' where another core (a rank, with a core each) of the host is
 *     in such a copy at its start.
 *   the node segment's synchronisation (SEGSYNC): a rank arrives after o
 *     (shm: storing its epoch), and every rank of the node goes on L (shm:
 *     the last arrival's line reaching the readers) after the last arrival.
 *   noise: CPU work (o, O, compute) is stretched by the detours that fall
 *     in it; detours while a rank waits cost nothing.
 *   oversubscription (a host of more ranks than its `cores`): a rank's CPU
 *     work runs on the core the library bound it to (round-robin by its
 *     index on the host), after the work booked there before (time slicing
 *     at the grain of the ops); a rank whose wait finds its request pending
 *     gives up a turn of `handoff` ns on its core (the progress engine's
 *     hand-off yield, and what the scheduler runs before the rank waited
 *     for), and going on after the wait costs it `switch` ns of its core
 *     first (`netswitch` when a network message woke it: it slept in
 *     poll()). A rank keeps its core until it waits (nothing preempts it
 *     at this grain): another rank of the core that is ready meanwhile
 *     queues for it and switches in when it is given up. The other ranks
 *     of the core that wait and yield (src/device/progress.c, wait_oversub)
 *     take turns of it first, one term by the job's channel: on one node
 *     (shm) only where more than two ranks share a core (two to a core a
 *     waiting rank spins on its partner's pending flag), a rank getting its
 *     core back finding half of them before it, a turn (`switch`) each;
 *     over the network (a job of more than one node: a waiting rank never
 *     spins, its partner is on another node) a rank's hand-off gives each
 *     other rank of the core that still waits a turn of `netturn` (its
 *     progress pass polls its sockets). A rank whose program ended
 *     waits in the next call: on one node of more than two ranks a core
 *     each later switch back on its
 *     core gives it a turn (segswitch) until it has had `endturns` (its
 *     yields before it sleeps). At the node segment's
 *     synchronisation a rank spins, keeping its core, while every rank
 *     still missing runs on another core; its waiters give no turns (they
 *     yield in the order they arrived, and the core comes back to each
 *     once its phase is complete), and getting the core back from it costs
 *     `segswitch` (by the ranks of the core; `switch` if not given) in
 *     place of `switch`. A waiting rank takes no core
 *     otherwise; an onload channel's data needs the cores of both sides
 *     (the sender's push, Gsend per byte; the receiver's copy, G per byte,
 *     even while it waits).
 *   turnorder cycle (one node of more than two ranks a core; cyc_turn
 *     below): in place of the queue, the hand-off, the switch back and the
 *     turns above, each core passes round its ranks in a fixed order, a
 *     turn of segswitch each, a rank with work running until its wait
 *     finds nothing; a poll that finds nothing while a core-mate has a
 *     message it has not polled yet costs the rank its next turn too.
 * A rank runs its ops in order until a WAIT whose request is not complete
 * (one event wakes it when it is) or an op that took CPU time (it goes on
 * at its new time, so that the NICs are used in the order of time). Events: a rank's run, a message's arrival,
 * the release of the hardware barrier or of a node segment's synchronisation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/tunables.h"
#include "device/dev_impl.h"
#include "rdma/shm/shm_proto.h"
#include "sim.h"

enum { EV_RUN, EV_ARRIVE, EV_HWREL, EV_SEGREL, EV_TURN };
#define NONE UINT32_MAX
#define PENDING (-1.0)

struct event {
    double t;
    uint32_t kind_rank;        /* kind << 28 | rank */
    uint32_t data;             /* EV_ARRIVE: message */
};

/* A message in flight or waiting unmatched, or a posted receive: one pool. */
struct ment {
    double time;               /* arrival, or the receive's posting */
    double sent;               /* a message: when its send was posted */
    uint64_t len;
    uint32_t next, src, dst, slot;   /* slot: the sender's (message) or the receiver's (receive) */
    uint32_t buf;              /* the sender's source, or the receive's destination (sim_prog.bufs) */
    uint8_t rts;
};

struct srank {
    double t;                  /* the rank's clock: its CPU is busy until then */
    uint32_t pc, iter;
    uint32_t wait_slot;        /* NONE: not waiting */
    uint32_t slot_base, next_slot, free_top;
    uint32_t posted, posted_tail, unexp, unexp_tail;
    uint8_t done, blocked;     /* blocked: it waited, and has given up its core */
    uint8_t wake_net;          /* what ended its wait was a network message */
    uint8_t wake_seg;          /* ... the release of its node segment's synchronisation */
    uint32_t core_next;        /* the next rank in its core's queue */
    uint32_t loop;             /* where its program starts again: after its MARK (0: none) */
    uint8_t seg_in;            /* it has arrived at its node segment's synchronisation */
    uint8_t spin;              /* it waits there spinning: it keeps its core */
    double mark;               /* when it passed its MARK */
    double end_turns;          /* ended: the turns it has had while it waits in the next call */
    uint32_t idle;             /* turnorder cycle: its empty turns in a row (it sleeps at the cap) */
    uint8_t pending;           /* ... a message came since its last poll (shm: its `pending` flag) */
    uint8_t nopoll;            /* ... its next turn only returns from a yield and yields again */
    uint32_t last_to;          /* its last send: to whom (NONE: none yet), and when it was posted */
    double last_sent;
};

#define BUCKET_NS 50.0
#define NB 65536

struct evvec {
    struct event *e;
    size_t n, cap;
};

struct sim {
    const struct sim_progs *t;
    const struct sim_layout *lay;
    const struct sim_params *p;
    const struct sim_noise *noise;
    int iters, nnodes;
    struct srank *r;
    double *slot_done;
    uint32_t *slot_free;
    double *nic_tx, *nic_rx, *shm_tx;
    struct evvec *ring, far, side, curv, tmp;
    uint64_t occ[NB / 64];     /* ring buckets that hold events: empty ones are skipped a word at a time */
    uint64_t cur;              /* the current bucket */
    size_t cur_pos, queued;
    struct ment *pool;
    uint32_t npool, poolcap, poolfree;
    uint64_t events;
    uint64_t handoffs, switches;       /* oversubscribed: sim_result */
    double turns;
    int hw_count;
    double hw_max;
    /* the host's L3 (p->l3 > 0; sim_cache.c), and per core (or per rank
     * with a core each) the end of its last copy beyond it */
    struct sim_cache *cache;
    struct sim_cache *l2;      /* per core (or rank with a core each): its L2 (p->l2 > 0), or NULL */
    double *miss_end;
    int host, cores;           /* ranks per host; cores of a host, 0: not oversubscribed */
    double *core_free;         /* [hosts][cores]: when each core is next free */
    /* [hosts][cores]: the rank running on the core (NONE: none) and the
     * ranks ready to run that wait for it, in the order they got ready */
    uint32_t *core_owner, *core_head, *core_tail;
    /* turnorder cycle (one node of more than two ranks a core): per core,
     * the index on the core of the rank whose turn it is, and whether the
     * cycle has stopped (every rank of the core asleep or gone) */
    int cyc;
    uint32_t *cyc_pos;
    uint8_t *cyc_stop;
    uint32_t *cyc_order, cyc_max;      /* [cores][cyc_max]: the core's ranks (index on the core) in cycle order */
    int *seg_count;            /* per node: ranks arrived at its segment's synchronisation (made at the first) */
    struct sim_segx *segx;     /* segment data other cores read (p->segx_*; sim_segx.c), or NULL */
    double *seg_max;
    int alloc_failed;
};

/* ---- the event queue ----
 * A calendar of buckets W ns wide: events of the next NB buckets are
 * appended to their bucket (no ordering work), later ones to a far list
 * that is spread into the ring every NB buckets. The current bucket is
 * sorted once (a stable radix sort on the time within the bucket, so events
 * at equal times run in the order they were made) and read in order; events
 * made for the current bucket itself go to a small heap beside it. Pushing
 * and popping thus touch memory in sequence, which is what lets a million
 * ranks run at several million events per second. */

static void vec_push(struct sim *s, struct evvec *v, struct event e)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 16;
        struct event *a = realloc(v->e, cap * sizeof(*a));
        if (!a) {
            s->alloc_failed = 1;
            return;
        }
        v->e = a;
        v->cap = cap;
    }
    v->e[v->n++] = e;
}

static void side_push(struct sim *s, struct event e)
{
    struct evvec *h = &s->side;
    vec_push(s, h, e);
    if (s->alloc_failed)
        return;
    size_t i = h->n - 1;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (h->e[up].t <= e.t)
            break;
        h->e[i] = h->e[up];
        i = up;
    }
    h->e[i] = e;
}

static struct event side_pop(struct sim *s)
{
    struct evvec *h = &s->side;
    struct event top = h->e[0], last = h->e[--h->n];
    size_t i = 0, n = h->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h->e[c + 1].t < h->e[c].t)
            c++;
        if (last.t <= h->e[c].t)
            break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (n)
        h->e[i] = last;
    return top;
}

static void ring_push(struct sim *s, uint64_t b, struct event e)
{
    size_t i = b % NB;
    vec_push(s, &s->ring[i], e);
    s->occ[i / 64] |= 1ULL << (i % 64);
}

/* The first occupied bucket in [from, end), end a multiple of NB and
 * from > end - NB (one stretch of the ring); end if none. */
static uint64_t next_occupied(const struct sim *s, uint64_t from, uint64_t end)
{
    while (from < end) {
        size_t i = from % NB;
        uint64_t w = s->occ[i / 64] >> (i % 64);
        if (w)
            return from + (uint64_t)__builtin_ctzll(w) < end ? from + (uint64_t)__builtin_ctzll(w) : end;
        from += 64 - i % 64;
    }
    return end;
}

static void push(struct sim *s, double t, int kind, uint32_t rank, uint32_t data)
{
    struct event e = { t, (uint32_t)kind << 28 | rank, data };
    uint64_t b = (uint64_t)(t / BUCKET_NS);
    s->queued++;
    if (b <= s->cur)
        side_push(s, e);
    else if (b < s->cur + NB)
        ring_push(s, b, e);
    else
        vec_push(s, &s->far, e);
}

/* Stable sort of the current bucket by time: insertion sort when small,
 * else an LSD radix sort on the time's position in the bucket. */
static void sort_bucket(struct sim *s, struct evvec *v)
{
    size_t n = v->n;
    if (n < 48) {
        for (size_t i = 1; i < n; i++) {
            struct event x = v->e[i];
            size_t j = i;
            while (j > 0 && v->e[j - 1].t > x.t) {
                v->e[j] = v->e[j - 1];
                j--;
            }
            v->e[j] = x;
        }
        return;
    }
    if (s->tmp.cap < n) {
        free(s->tmp.e);
        s->tmp.e = malloc(n * sizeof(struct event));
        s->tmp.cap = s->tmp.e ? n : 0;
        if (!s->tmp.e) {
            s->alloc_failed = 1;
            return;
        }
    }
    double base = (double)s->cur * BUCKET_NS, scale = 4294967295.0 / BUCKET_NS;
    /* 4 passes of 8 bits for a few thousand events, 2 of 16 for more: the
     * counters' cost stays below the events' (an even number of passes
     * leaves the result where it started) */
    int bits = n < 8192 ? 8 : 16;
    uint32_t radix = 1u << bits, mask = radix - 1;
    static uint32_t cnt[65536];
    struct event *from = v->e, *to = s->tmp.e;
    for (int sh = 0; sh < 32; sh += bits) {
        memset(cnt, 0, radix * sizeof(uint32_t));
        for (size_t i = 0; i < n; i++) {
            double x = (from[i].t - base) * scale;
            uint32_t k = x <= 0 ? 0 : x >= 4294967295.0 ? 4294967295u : (uint32_t)x;
            cnt[(k >> sh) & mask]++;
        }
        uint32_t sum = 0;
        for (uint32_t i = 0; i < radix; i++) {
            uint32_t c = cnt[i];
            cnt[i] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            double x = (from[i].t - base) * scale;
            uint32_t k = x <= 0 ? 0 : x >= 4294967295.0 ? 4294967295u : (uint32_t)x;
            to[cnt[(k >> sh) & mask]++] = from[i];
        }
        struct event *t = from;
        from = to;
        to = t;
    }
}

static size_t queue_bytes(const struct sim *s)
{
    size_t b = NB * sizeof(struct evvec) + (s->far.cap + s->side.cap + s->curv.cap + s->tmp.cap) * sizeof(struct event);
    for (size_t i = 0; s->ring && i < NB; i++)
        b += s->ring[i].cap * sizeof(struct event);
    return b;
}

static void free_queue(struct sim *s)
{
    for (size_t i = 0; s->ring && i < NB; i++)
        free(s->ring[i].e);
    free(s->ring);
    free(s->far.e);
    free(s->side.e);
    free(s->curv.e);
    free(s->tmp.e);
}

/* Move the far events that fall in the ring's next NB buckets into it. */
static void spread_far(struct sim *s)
{
    size_t keep = 0;
    for (size_t i = 0; i < s->far.n; i++) {
        struct event e = s->far.e[i];
        uint64_t b = (uint64_t)(e.t / BUCKET_NS);
        if (b < s->cur + NB)
            ring_push(s, b, e);
        else
            s->far.e[keep++] = e;
    }
    s->far.n = keep;
}

/* The next event; the queue must not be empty. */
static struct event pop(struct sim *s)
{
    for (;;) {
        int have_cur = s->cur_pos < s->curv.n, have_side = s->side.n > 0;
        if (have_cur || have_side) {
            s->queued--;
            if (have_cur && (!have_side || s->curv.e[s->cur_pos].t <= s->side.e[0].t))
                return s->curv.e[s->cur_pos++];
            return side_pop(s);
        }
        /* the next occupied bucket: swap its vector in as the current one */
        s->curv.n = s->cur_pos = 0;
        s->cur = next_occupied(s, s->cur + 1, (s->cur / NB + 1) * NB);
        if (s->cur % NB == 0) {
            if (s->queued == s->far.n && s->far.n) {   /* only far events: jump to the first */
                double tmin = s->far.e[0].t;
                for (size_t i = 1; i < s->far.n; i++)
                    if (s->far.e[i].t < tmin)
                        tmin = s->far.e[i].t;
                s->cur = (uint64_t)(tmin / BUCKET_NS) / NB * NB;
            }
            spread_far(s);
        }
        struct evvec *b = &s->ring[s->cur % NB];
        if (b->n == 0)
            continue;
        /* the spent vector goes back to the ring only if small (at most
         * 64 events: 64 MB over the whole ring): buckets that once held a
         * million events would otherwise keep that capacity for ever, and
         * sparse buckets (noise spreads the ranks out) would otherwise cost
         * an allocation each */
        size_t bi = s->cur % NB;
        s->occ[bi / 64] &= ~(1ULL << (bi % 64));
        struct evvec spent = s->curv;
        s->curv = *b;
        if (spent.cap <= 64) {
            spent.n = 0;
            *b = spent;
        } else {
            free(spent.e);
            *b = (struct evvec){ 0 };
        }
        sort_bucket(s, &s->curv);   /* an even number of passes: the result is back in curv */
    }
}

/* ---- pool of match entries ---- */

static uint32_t ment_new(struct sim *s)
{
    if (s->poolfree != NONE) {
        uint32_t i = s->poolfree;
        s->poolfree = s->pool[i].next;
        return i;
    }
    if (s->npool == s->poolcap) {
        uint32_t cap = s->poolcap ? s->poolcap * 2 : 4096;
        struct ment *p = realloc(s->pool, cap * sizeof(*p));
        if (!p) {
            s->alloc_failed = 1;
            return NONE;
        }
        s->pool = p;
        s->poolcap = cap;
    }
    return s->npool++;
}

static void ment_free(struct sim *s, uint32_t i)
{
    s->pool[i].next = s->poolfree;
    s->poolfree = i;
}

static void list_append(struct sim *s, uint32_t *head, uint32_t *tail, uint32_t i)
{
    s->pool[i].next = NONE;
    if (*head == NONE)
        *head = i;
    else
        s->pool[*tail].next = i;
    *tail = i;
}

/* Remove and return the first entry of the list whose peer (src field for
 * messages, which hold the sender; receives hold the source there too) is
 * `peer`, or NONE. */
static uint32_t list_take(struct sim *s, uint32_t *head, uint32_t *tail, uint32_t peer)
{
    uint32_t prev = NONE;
    for (uint32_t i = *head; i != NONE; prev = i, i = s->pool[i].next) {
        if (s->pool[i].src != peer)
            continue;
        if (prev == NONE)
            *head = s->pool[i].next;
        else
            s->pool[prev].next = s->pool[i].next;
        if (*tail == i)
            *tail = prev;
        return i;
    }
    return NONE;
}

/* ---- CPU time under noise ---- */

static double phase_of(const struct sim *s, uint32_t rank)
{
    if (s->noise->sync)
        return 0;
    uint64_t h = (uint64_t)(rank + 1) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    double span = s->noise->kind == 1 ? s->noise->period : s->noise->span;
    return (double)(h % 1000003) / 1000003.0 * span;
}

/* End of `work` ns of CPU started at t on rank, with the noise. */
static double cpu_noise(const struct sim *s, uint32_t rank, double t, double work)
{
    const struct sim_noise *n = s->noise;
    if (n->kind == 0 || (n->on && !n->on[rank]))
        return t + work;
    double ph = phase_of(s, rank), rem = work;
    if (n->kind == 1) {
        double per = n->period, d = n->duration;
        for (;;) {
            double k = floor((t - ph) / per), ds = ph + k * per;
            if (t < ds + d)                    /* inside a detour */
                t = ds + d;
            double next = ds + per;
            if (t + rem <= next)
                return t + rem;
            rem -= next - t;
            t = next + d;
        }
    }
    /* a trace, repeated every span, shifted by the rank's phase */
    for (;;) {
        double base = floor((t + ph) / n->span) * n->span, x = t + ph - base;
        size_t lo = 0, hi = n->tn;                  /* first detour ending after x */
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (n->tstart[m] + n->tlen[m] <= x) lo = m + 1; else hi = m;
        }
        if (lo == n->tn) {                          /* none left in this span */
            double to_end = n->span - x;
            if (rem <= to_end)
                return t + rem;
            rem -= to_end;
            t += to_end;
            continue;
        }
        if (x >= n->tstart[lo]) {                   /* inside it */
            t += n->tstart[lo] + n->tlen[lo] - x;
            continue;
        }
        double free_ns = n->tstart[lo] - x;
        if (rem <= free_ns)
            return t + rem;
        rem -= free_ns;
        t += free_ns + n->tlen[lo];
    }
}

/* End of `work` ns of CPU started at t on rank: on an oversubscribed host,
 * on the core the library bound it to (RDMACH_BIND core: the ranks of a
 * host round-robin by local index, pretend nodes included; src/boot/topo.c),
 * after the work booked there before. */
static double cpu(const struct sim *s, uint32_t rank, double t, double work)
{
    if (!s->cores || work <= 0)
        return cpu_noise(s, rank, t, work);
    uint32_t h = (uint32_t)s->host;
    double *cf = &s->core_free[(size_t)(rank / h) * (size_t)s->cores + (rank % h) % (uint32_t)s->cores];
    double end = cpu_noise(s, rank, t > *cf ? t : *cf, work);
    *cf = end;
    return end;
}

/* The core of rank (oversubscribed hosts only). */
static size_t core_of(const struct sim *s, uint32_t rank)
{
    uint32_t h = (uint32_t)s->host;
    return (size_t)(rank / h) * (size_t)s->cores + (rank % h) % (uint32_t)s->cores;
}

/* The ranks bound to rank's core (oversubscribed hosts only). */
static int core_ranks(const struct sim *s, uint32_t rank)
{
    uint32_t h = (uint32_t)s->host, c = (uint32_t)s->cores, first = rank / h * h;
    uint32_t end = first + h < (uint32_t)s->lay->nranks ? first + h : (uint32_t)s->lay->nranks;
    int n = 0;
    for (uint32_t q = first + (rank - first) % c; q < end; q += c)
        n++;
    return n;
}

/* A rank about to run on an oversubscribed host: 1 if it has its core; 0 if
 * another rank of the core runs (it has not waited since it got the core:
 * nothing preempts it at this grain), and the rank is queued for the core. */
static int core_take(struct sim *s, uint32_t rank)
{
    size_t ci = core_of(s, rank);
    uint32_t own = s->core_owner[ci];
    if (own == NONE || own == rank) {
        s->core_owner[ci] = rank;
        return 1;
    }
    s->r[rank].core_next = NONE;
    if (s->core_head[ci] == NONE)
        s->core_head[ci] = rank;
    else
        s->r[s->core_tail[ci]].core_next = rank;
    s->core_tail[ci] = rank;
    return 0;
}

/* The other ranks of rank's core that wait (blocked_only: only those that
 * have given their core up), not counting those at the node segment's
 * synchronisation: they yield in the order they arrived and the core comes
 * back to each only when its phase is complete (rdmach-sim-probe --segsync:
 * a core of n ranks switches n - 1 times a synchronisation, no more), so
 * they give no turns. */
static int core_waiting(const struct sim *s, uint32_t rank, int blocked_only)
{
    uint32_t h = (uint32_t)s->host, c = (uint32_t)s->cores, first = rank / h * h;
    uint32_t end = first + h < (uint32_t)s->lay->nranks ? first + h : (uint32_t)s->lay->nranks;
    int waiting = 0;
    for (uint32_t q = first + (rank - first) % c; q < end; q += c)
        waiting += q != rank && !s->r[q].done && s->r[q].wait_slot != NONE && !s->r[q].seg_in && (!blocked_only || s->r[q].blocked);
    return waiting;
}

/* The turns rank's core gives, before rank gets it back, to the other ranks
 * of the core that wait, on one node (shm; a job over the network has
 * net_turns instead: one term per turn). Where more than two ranks share a
 * core, a waiting rank yields (src/device/progress.c: no spin then): it
 * stays runnable, the scheduler passes the core round them all, and a rank
 * that becomes ready finds on average half of the waiting ones before it,
 * each turn a switch to a rank that polls once (memory) and yields again.
 * Two to a core, a waiting rank spins on a partner of the other core and
 * gives the core up as soon as its neighbour has work (the channel's
 * pending flag): no turns. */
static double core_turns(const struct sim *s, uint32_t rank)
{
    if (s->nnodes > 1 || s->host <= 2 * s->cores)
        return 0;
    return 0.5 * core_waiting(s, rank, 0) * s->p->sw;
}

/* The turns the ranks of rank's core whose programs ended give it as it
 * gets the core back (p->endturns): each is in the next call, yielding, and
 * takes one turn per hand-off of the core until it has had endturns and
 * sleeps (rdmach-sim-probe --waiters: on one core every yielding waiter
 * runs once between a ping-pong's hops, and none after its yields). */
static double end_turns(struct sim *s, uint32_t rank)
{
    if (s->p->endturns <= 0 || s->nnodes > 1 || s->host <= 2 * s->cores)
        return 0;
    uint32_t h = (uint32_t)s->host, c = (uint32_t)s->cores, first = rank / h * h;
    uint32_t end = first + h < (uint32_t)s->lay->nranks ? first + h : (uint32_t)s->lay->nranks;
    double turns = 0;
    for (uint32_t q = first + (rank - first) % c; q < end; q += c)
        if (q != rank && s->r[q].done && s->r[q].end_turns < s->p->endturns) {
            s->r[q].end_turns++;
            turns++;
        }
    return turns * sim_seg_switch(s->p, core_ranks(s, rank));
}

/* After rank's run: if it now waits, or has ended, its core goes to the
 * first rank queued for it, which spends a switch to get it. */
static void push(struct sim *s, double t, int kind, uint32_t rank, uint32_t data);
static void core_give_up(struct sim *s, uint32_t rank)
{
    struct srank *r = &s->r[rank];
    if ((!r->done && r->wait_slot == NONE) || r->spin)
        return;
    size_t ci = core_of(s, rank);
    uint32_t next = s->core_head[ci];
    s->core_owner[ci] = next;
    if (next == NONE)
        return;
    s->core_head[ci] = s->r[next].core_next;
    /* it was off its core: the switch (not at its start, which is how
     * the job began, not part of the collective) */
    if (s->r[next].pc || s->r[next].iter)
        s->r[next].blocked = 1;
    push(s, s->core_free[ci], EV_RUN, next, 0);
}

/* ---- turnorder cycle ----
 * A scheduler trace of the library's loops on this machine (sched_switch,
 * `rdmach-sim turns`; docs/SCALE.md) shows the ranks of a core run in a
 * fixed cycle (98-100% of the turns go to the rank that yielded longest
 * ago), 99% of the turns ended by a sched_yield: a rank with work runs until its
 * wait finds nothing and yields, a waiting rank polls once and yields. So
 * the core passes round all its ranks, a turn of segswitch each for those
 * with nothing to do, and a rank whose message came meanwhile goes on only
 * at its next turn. A waiter leaves the cycle (sleeps) after endturns
 * empty turns in a row and comes back when its request completes. */

static uint32_t cyc_count(const struct sim *s, size_t ci)
{
    return (uint32_t)core_ranks(s, (uint32_t)(ci / (size_t)s->cores) * (uint32_t)s->host + (uint32_t)(ci % (size_t)s->cores));
}

static uint32_t cyc_rank(const struct sim *s, size_t ci, uint32_t k)
{
    k = s->cyc_order[ci * (size_t)s->cyc_max + k];
    return (uint32_t)(ci / (size_t)s->cores) * (uint32_t)s->host + (uint32_t)(ci % (size_t)s->cores) +
           k * (uint32_t)s->cores;
}

static double cyc_cap(const struct sim *s)
{
    return s->p->endturns > 0 ? s->p->endturns : 20;
}

/* Is rank ready to run at t (its wait's request complete by then)? */
static int cyc_ready(struct sim *s, uint32_t rank, double t)
{
    struct srank *r = &s->r[rank];
    if (r->done || r->wait_slot == NONE - 1)
        return 0;
    if (r->wait_slot == NONE)
        return 1;
    double d = s->slot_done[r->slot_base + r->wait_slot];
    if (d == PENDING || d > t)
        return 0;
    r->wait_slot = NONE;
    if (d > r->t)
        r->t = d;
    return 1;
}

/* Something rank waits for completes at t: a stopped cycle starts again. */
static void cyc_wake(struct sim *s, uint32_t rank, double t)
{
    size_t ci = core_of(s, rank);
    if (s->cyc_stop[ci]) {
        s->cyc_stop[ci] = 0;
        push(s, t, EV_TURN, (uint32_t)ci, 0);
    }
}

/* Rank polled and found nothing for it: if a rank of its core has a
 * message it has not polled yet (its `pending` flag), the shm channel's
 * pass yields the core to it (src/rdma/shm/shm_msg.c, mates_pending), and
 * the wait yields again when that yield returns, without polling: rank's
 * next turn is spent so. */
static void cyc_polled(struct sim *s, uint32_t rank)
{
    size_t ci = core_of(s, rank);
    uint32_t n = cyc_count(s, ci);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t q = cyc_rank(s, ci, k);
        if (q != rank && s->r[q].pending) {
            s->r[rank].nopoll = 1;
            return;
        }
    }
}

/* The core passes on to the next rank of its cycle at t. */
static void cyc_next(struct sim *s, size_t ci, double t)
{
    s->cyc_pos[ci] = (s->cyc_pos[ci] + 1) % cyc_count(s, ci);
    s->core_owner[ci] = NONE;
    push(s, t, EV_TURN, (uint32_t)ci, 0);
}

/* After a run of the rank that holds its core: its turn ends if it waits
 * (unless it spins at the node segment's synchronisation, keeping the
 * core) or its program ended; it goes on (an EV_RUN is queued) after an op
 * that took CPU time. */
static void cyc_after_run(struct sim *s, uint32_t rank)
{
    struct srank *r = &s->r[rank];
    if ((!r->done && r->wait_slot == NONE) || r->spin)
        return;
    size_t ci = core_of(s, rank);
    s->handoffs += !r->done;
    r->pending = 0;                            /* its wait's first pass lowers its flag, then looks at its mates' */
    cyc_polled(s, rank);
    cyc_next(s, ci, r->t > s->core_free[ci] ? r->t : s->core_free[ci]);
}

static void run_rank(struct sim *s, uint32_t rank);

/* Each core's cycle: the order the ranks of a core joined its run queue,
 * which the trace shows fixed within a run and different from run to run
 * (seed 0: by index on the core; else a permutation drawn from seed). */
static void cyc_orders(struct sim *s, uint64_t seed)
{
    size_t ncores = (size_t)((s->lay->nranks + s->host - 1) / s->host) * (size_t)s->cores;
    for (size_t ci = 0; ci < ncores; ci++) {
        uint32_t *o = &s->cyc_order[ci * s->cyc_max], n = cyc_count(s, ci);
        uint64_t x = seed * 0x9E3779B97F4A7C15ULL + ci + 1;
        for (uint32_t k = 0; k < n; k++)
            o[k] = k;
        for (uint32_t k = n; seed && k > 1; k--) {
            x ^= x >> 31;
            x *= 0xBF58476D1CE4E5B9ULL;
            x ^= x >> 29;
            uint32_t j = (uint32_t)(x % k), tmp = o[k - 1];
            o[k - 1] = o[j];
            o[j] = tmp;
        }
    }
}

/* A turn of core ci at t. */
static void cyc_turn(struct sim *s, size_t ci, double t)
{
    if (s->core_free[ci] > t) {                /* the core is busy (a rendezvous's copy booked on it) */
        push(s, s->core_free[ci], EV_TURN, (uint32_t)ci, 0);
        return;
    }
    uint32_t n = cyc_count(s, ci), rank = cyc_rank(s, ci, s->cyc_pos[ci]);
    struct srank *r = &s->r[rank];
    double T = sim_seg_switch(s->p, (int)n);
    if (r->nopoll) {
        r->nopoll = 0;
        s->turns++;
        s->core_free[ci] = t + T;
        cyc_next(s, ci, t + T);
        return;
    }
    r->pending = 0;
    if (cyc_ready(s, rank, t)) {
        r->idle = 0;
        r->blocked = 0;
        s->switches++;
        s->core_owner[ci] = rank;
        r->t = cpu(s, rank, r->t > t ? r->t : t, T);
        push(s, r->t, EV_RUN, rank, 0);        /* it runs once it has the core */
        return;
    }
    double cap = cyc_cap(s);
    if (r->done ? r->end_turns < cap : r->idle < cap) {    /* it polls and yields */
        if (r->done)
            r->end_turns++;
        else
            r->idle++;
        cyc_polled(s, rank);
        s->turns++;
        s->core_free[ci] = t + T;
        cyc_next(s, ci, t + T);
        return;
    }
    /* asleep or gone: the cycle goes on while a rank of the core is in it,
     * or from when the request a sleeper waits for completes */
    double wake = -1;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t qr = cyc_rank(s, ci, k);
        const struct srank *q = &s->r[qr];
        if (q->done ? q->end_turns < cap : (q->idle < cap || cyc_ready(s, qr, t))) {
            cyc_next(s, ci, t);
            return;
        }
        double d = !q->done && q->wait_slot < NONE - 1 ? s->slot_done[q->slot_base + q->wait_slot] : PENDING;
        if (d != PENDING && (wake < 0 || d < wake))
            wake = d;
    }
    if (wake >= 0)
        cyc_next(s, ci, wake);
    else
        s->cyc_stop[ci] = 1;
}

/* ---- requests ---- */

static uint32_t slot_alloc(struct sim *s, struct srank *r)
{
    uint32_t slot = r->free_top ? s->slot_free[r->slot_base + --r->free_top] : r->next_slot++;
    s->slot_done[r->slot_base + slot] = PENDING;
    return slot;
}

static void complete(struct sim *s, uint32_t rank, uint32_t slot, double t, int net)
{
    struct srank *r = &s->r[rank];
    s->slot_done[r->slot_base + slot] = t;
    if (s->cyc) {                      /* it sees it at its next turn */
        cyc_wake(s, rank, t);
        return;
    }
    if (r->wait_slot == slot) {
        r->wait_slot = NONE;
        r->wake_net = (uint8_t)net;
        push(s, t > r->t ? t : r->t, EV_RUN, rank, 0);
    }
}

static int node_of(const struct sim *s, uint32_t rank)
{
    return (int)(rank / (uint32_t)s->lay->ppn);
}

/* The data of a message leaves src at the earliest `ready`: returns the
 * arrival at dst, and the time it has left in *left. */
static double transfer(struct sim *s, uint32_t src, uint32_t dst, uint64_t len, double ready, double *left)
{
    int sn = node_of(s, src), dn = node_of(s, dst), net = sn != dn;
    const struct sim_loggops *c = &s->p->ch[net ? SIM_NET : SIM_SHM];
    double *tx = net ? &s->nic_tx[sn] : &s->shm_tx[src];
    double start = ready > *tx ? ready : *tx, bytes = (double)len;
    *tx = start + c->g + bytes * c->G;
    *left = start + bytes * c->G;
    double arrive = *left + c->L;
    if (net) {
        double rx = s->nic_rx[dn] + bytes * c->G;
        if (rx > arrive)
            arrive = rx;
        s->nic_rx[dn] = arrive + c->g;
    }
    return arrive;
}

/* An onload network channel's sender pushes a message's data with its CPU
 * (Gsend per byte, on its core, from when the data may leave: left - len·G)
 * while the channel carries it: on an oversubscribed host the data leaves,
 * and arrives, only once that work has had its core. Returns the new
 * arrival; *left moves with it. */
static double onload_push(struct sim *s, uint32_t src, uint64_t len, double arrive, double *left)
{
    const struct sim_loggops *c = &s->p->ch[SIM_NET];
    double work = (double)len * c->Gsend;
    if (!s->p->onload || work <= 0)
        return arrive;
    double end = cpu(s, src, *left - (double)len * c->G, work);
    if (end <= *left)
        return arrive;
    arrive += end - *left;
    *left = end;
    return arrive;
}

/* An onload network channel's receiver copies the data out of the socket
 * as it comes: a receiver that waits for it does so inside its wait, and on
 * an oversubscribed host that copy (len·G, ending at the arrival) must have
 * its core too. Returns when the receiver has the data. */
static double onload_pull_waiting(struct sim *s, uint32_t dst, double arrive, double xfer)
{
    if (!s->cores || xfer <= 0)
        return arrive;
    return cpu(s, dst, arrive - xfer, xfer);
}

static const struct sim_loggops *chan(const struct sim *s, uint32_t a, uint32_t b)
{
    return &s->p->ch[node_of(s, a) != node_of(s, b) ? SIM_NET : SIM_SHM];
}

/* The receiver's CPU for an eager message of len bytes that arrived before
 * its receive was posted, beyond the expected path's: the device's progress
 * copied it into an unexpected entry, and the receive copies it out (one copy
 * more, at the local copy's rate); above RCH_DEV_UNEXP_INLINE bytes that
 * entry's data was malloc'd on arrival and is freed at the match
 * (src/device/req.c rch_dev_unexp_alloc/release). */
static double unexp_extra(const struct sim_params *p, uint64_t len)
{
    return (double)len * p->beta + (len > RCH_DEV_UNEXP_INLINE ? p->unexp : 0);
}

/* The L3 (sim_cache.c). A unit is what copies in parallel: a core of an
 * oversubscribed host, else a rank. */
static size_t unit_of(const struct sim *s, uint32_t rank)
{
    return s->cores ? core_of(s, rank) : rank;
}

/* The bytes of buffer id (of rank, len bytes) beyond the L3 at this use: 0
 * where it is in it, where no cache is modelled or the op names no buffer.
 * A copy under 1/8192 of the L3 (4 KiB of 32 MiB) is left out of the
 * footprint: buffers are told apart
 * by address, so the blocks of one allocation a collective walks (Bruck's
 * rotations: thousands of addresses a rank at 512 ranks) would each count
 * as a line of their own, overstating the footprint and costing the
 * engine a lookup a copy (a 512-rank study 4 times slower). */
static double l3_miss(struct sim *s, uint32_t rank, uint32_t id, uint64_t len)
{
    if (!s->cache || !id || (double)len * 8192 < s->p->l3)
        return 0;
    return sim_cache_touch(s->cache, rank / (uint32_t)s->host, SIM_KEY_BUF(rank, id), len) ? 0 : (double)len;
}

/* The ns a local copy of len bytes from buffer src to dst costs beyond the
 * in-cache rate for those of its buffers beyond the core's L2 and in the
 * L3 (a buffer beyond the L3 is the L3's): half the excess of copyws's
 * rate beyond the L2 (l2_out) over the in-cache one per byte of each, as
 * the L3's term. The L2 is a core's: the ranks that take turns on it share
 * its stack (only the local copies' buffers are in it: the algorithms'
 * rotations, packs and own blocks). Same grain as the L3. */
static double l2_copy_ns(struct sim *s, uint32_t rank, uint32_t src, uint32_t dst, uint64_t len, double *miss3)
{
    uint32_t ids[2] = { src, dst };
    double rate = (s->p->l2_out - s->p->l3_in) / 2, ns = 0;
    *miss3 = 0;
    for (int i = 0; i < 2; i++) {
        int out = s->l2 && ids[i] && (double)len * 8192 >= s->p->l3 &&
                  !sim_cache_touch(s->l2, (uint32_t)unit_of(s, rank), SIM_KEY_BUF(rank, ids[i]), len);
        double m3 = l3_miss(s, rank, ids[i], len);
        *miss3 += m3;
        if (out && m3 == 0 && rate > 0)
            ns += (double)len * rate;
    }
    return ns;
}

/* The pipe buffers of the shm rendezvous src -> dst: RCH_SHM_PIPE_NBUF of
 * up to a chunk each, used in turn (src/rdma/shm/shm_pipe.c), a message of
 * len bytes in chunks of rch_shm_pipe_chunk_for. It takes the next ones:
 * the first's number (the pair's count). */
static uint64_t pipe_chunk(uint64_t len)
{
    uint64_t max = rch_tun.shm_pipe_chunk ? rch_tun.shm_pipe_chunk : 65536;   /* RDMACH_SHM_PIPE_CHUNK's default */
    return rch_shm_pipe_chunk_for(len, max);
}

static uint64_t l3_pipe_take(struct sim *s, uint32_t src, uint32_t dst, uint64_t len)
{
    if (!s->cache)
        return 0;
    uint64_t chunk = pipe_chunk(len);
    uint64_t n = (len + chunk - 1) / chunk, first = sim_cache_next(s->cache, SIM_KEY_CURSOR(src, dst));
    for (uint64_t i = 1; i < n; i++)
        sim_cache_next(s->cache, SIM_KEY_CURSOR(src, dst));
    return first;
}

/* The bytes beyond the L3 of the pipe buffers a copy of the message (its
 * first buffer's number `first`) uses: the sender's copy in, then the
 * receiver's copy out. */
static double l3_pipe(struct sim *s, uint32_t src, uint32_t dst, uint64_t len, uint64_t first)
{
    if (!s->cache)
        return 0;
    uint64_t chunk = pipe_chunk(len), n = (len + chunk - 1) / chunk, miss = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t b = i + 1 < n ? chunk : len - i * chunk;
        if (!sim_cache_touch(s->cache, src / (uint32_t)s->host, SIM_KEY_PIPE(src, dst, (first + i) % RCH_SHM_PIPE_NBUF), b))
            miss += b;
    }
    return (double)miss;
}

/* rank's CPU work from t, of which a copy with miss bytes of its buffers
 * beyond the L3: those at the rate of one core copying beyond it, or of
 * two where another unit of the host copies beyond it at t. */
static double copy_cpu(struct sim *s, uint32_t rank, double t, double work, double miss)
{
    if (miss <= 0)
        return cpu(s, rank, t, work);
    uint32_t h = (uint32_t)s->host, host = rank / h;
    size_t me = unit_of(s, rank), first = s->cores ? (size_t)host * (size_t)s->cores : (size_t)host * h;
    size_t end = s->cores ? first + (size_t)s->cores : first + h;
    int two = 0;
    if (end > (size_t)s->lay->nranks && !s->cores)
        end = (size_t)s->lay->nranks;
    for (size_t u = first; u < end && !two; u++)
        two = u != me && s->miss_end[u] > t;
    double done = cpu(s, rank, t, work + miss * sim_cache_rate(s->p, two));
    if (done > s->miss_end[me])
        s->miss_end[me] = done;
    return done;
}

/* The shared-memory rendezvous on an oversubscribed host. Its data moves
 * through the two-copy pipeline (src/rdma/shm/shm_pipe.c): the receiver's
 * get (GETREQ) waits in the sender's ring until the sender's progress
 * copies the data into the pipe buffers (src_step), and only then can the
 * receiver copy it out. With a core per rank that copy runs on the sender's
 * own core while it polls, the channel's g + s·G; where ranks share cores
 * it needs the sender's core: s·G there (the sender's copy rate, which the
 * stream measures), after a switch to get the core back if the sender was
 * waiting (its progress engine had yielded it, or slept). The data is at
 * the receiver L after the copy, and the sender's request completes then.
 * miss: the bytes of its buffers beyond the L3. Returns the arrival; *left
 * is when the copy is done. */
static double shm_serve(struct sim *s, uint32_t src, uint64_t len, double ask, double miss, double *left)
{
    const struct sim_loggops *c = &s->p->ch[SIM_SHM];
    const struct srank *rs = &s->r[src];
    int off_core = rs->done || (rs->wait_slot != NONE && !rs->spin);
    double end = copy_cpu(s, src, ask, (off_core ? s->p->sw : 0) + (double)len * c->G, miss);
    *left = end;
    return end + c->L;
}

/* The exchange's extra (sim_loggops.dx): m crossed its receiver's last send,
 * which went to m's sender, each posted before the other could have been
 * received (a one-way transfer, o + L + orecv, apart). A reply to the
 * receiver's message comes later than that; so does a message the receiver
 * found waiting long after its sender posted it. */
static double duplex(const struct sim *s, const struct ment *m, const struct sim_loggops *c)
{
    const struct srank *rd = &s->r[m->dst];
    if (c->ndx == 0 || rd->last_to != m->src)
        return 0;
    double apart = rd->last_sent > m->sent ? rd->last_sent - m->sent : m->sent - rd->last_sent;
    return apart < c->o + c->L + c->orecv ? sim_duplex_ns(c, (double)m->len) : 0;
}

/* A message (entry m, arrived) meets its receive (rslot posted at `posted`
 * into buffer rbuf; unexp: the message was queued as unexpected, the
 * receive came later). */
static void match(struct sim *s, const struct ment *m, uint32_t rslot, uint32_t rbuf, double posted, int unexp)
{
    struct srank *rd = &s->r[m->dst];
    const struct sim_loggops *c = chan(s, m->src, m->dst);
    int net = node_of(s, m->src) != node_of(s, m->dst);
    double t = posted > rd->t ? posted : rd->t;
    /* the message got there before its receiver was ready for it (at the
     * same instant too: with L 0 the data is in the socket while the
     * receiver's own send is still returning) */
    double recv_o = c->orecv + (t >= m->time ? c->obusy : 0) + duplex(s, m, c);
    /* an onload channel's receiver moves the data with its CPU as it comes
     * (tcp: the kernel's copy out of the socket): a waiting one while it
     * arrives, a busy one only from when it is ready, s·G after that */
    double xfer = s->p->onload && net && !m->rts ? (double)m->len * c->G : 0;
    if (xfer > 0 && t > m->time - xfer)
        t = cpu(s, m->dst, t, xfer);
    else if (xfer > 0)
        t = onload_pull_waiting(s, m->dst, m->time, xfer);
    t = t > m->time ? t : m->time;
    if (!m->rts) {
        double extra = unexp ? unexp_extra(s->p, m->len) : 0;
        double miss = net ? 0 : l3_miss(s, m->dst, rbuf, m->len);
        rd->t = copy_cpu(s, m->dst, t, recv_o + (double)m->len * c->O + extra, miss);
        complete(s, m->dst, rslot, rd->t, net);
        return;
    }
    /* rendezvous: the receiver asks for the data */
    rd->t = cpu(s, m->dst, t, recv_o);
    double ask = rd->t + c->L, left;
    if (s->p->onload && net) {
        struct srank *rs = &s->r[m->src];
        double st = ask > rs->t ? ask : rs->t;
        rs->t = cpu(s, m->src, st, c->o);
        ask = rs->t;
    }
    double arrive, smiss = 0, rmiss = 0;
    if (!net && s->cache) {
        /* the sender copies its buffer into the pipe buffers, the receiver
         * those into its own */
        uint64_t first = l3_pipe_take(s, m->src, m->dst, m->len);
        smiss = l3_miss(s, m->src, m->buf, m->len) + l3_pipe(s, m->src, m->dst, m->len, first);
        rmiss = l3_pipe(s, m->src, m->dst, m->len, first) + l3_miss(s, m->dst, rbuf, m->len);
        if (!s->cores)    /* the copy on the sender's own core, while it polls: the data leaves later */
            ask = copy_cpu(s, m->src, ask, 0, smiss);
    }
    if (!net && s->cores)
        arrive = shm_serve(s, m->src, m->len, ask, smiss, &left);
    else
        arrive = transfer(s, m->src, m->dst, m->len, ask, &left);
    if (net)
        arrive = onload_push(s, m->src, m->len, arrive, &left);
    if (s->p->onload && net && s->r[m->src].t < left)
        s->r[m->src].t = left;
    complete(s, m->src, m->slot, left, net);
    double rt = arrive > rd->t ? arrive : rd->t;
    rd->t = copy_cpu(s, m->dst, rt, c->rndv + (double)m->len * c->O, rmiss);
    complete(s, m->dst, rslot, rd->t, net);
}

/* ns per byte an eager send's record costs its sender beyond O for lines
 * of the shm ring the core's caches no longer hold: on an oversubscribed
 * host, where the ranks that take turns on a core evict each other's
 * lines while a ring's lap (SHM_RING_BUDGET / ranks, up to 1 MiB: some 50
 * blocks of the validation's 20 calls of 1 KiB) comes round (ringcold);
 * with a core per rank, where a pair's 1 MiB lap and the rest of the
 * rank's lines outgrow the core's L2 (ringcold1: the stream's minimum,
 * which O has, is of blocks whose lines were still held). */
static double ring_cold(const struct sim *s, int net)
{
    return net ? 0 : s->cores ? s->p->ringcold : s->p->ringcold1;
}

static void do_isend(struct sim *s, uint32_t rank, uint32_t dst, uint64_t len, uint32_t buf)
{
    struct srank *r = &s->r[rank];
    const struct sim_loggops *c = chan(s, rank, dst);
    int net = node_of(s, rank) != node_of(s, dst), rts = (double)len > c->S;
    uint32_t slot = slot_alloc(s, r), mi = ment_new(s);
    if (mi == NONE)
        return;
    double left, posted = r->t;
    r->last_to = dst;
    r->last_sent = posted;
    /* an eager message's copy into the ring reads the sender's buffer */
    double miss = net || rts ? 0 : l3_miss(s, rank, buf, len);
    r->t = copy_cpu(s, rank, r->t, c->o + (rts ? 0 : (double)len * (c->O + ring_cold(s, net))), miss);
    double arrive = transfer(s, rank, dst, rts ? 0 : len, r->t, &left);
    if (net && !rts)
        arrive = onload_push(s, rank, len, arrive, &left);
    if (!rts) {
        if (s->p->onload && net && left > r->t)
            r->t = left;
        s->slot_done[r->slot_base + slot] = r->t;
    }
    s->pool[mi] = (struct ment){ arrive, posted, len, NONE, rank, dst, slot, buf, (uint8_t)rts };
    push(s, arrive, EV_ARRIVE, dst, mi);
}

static void do_irecv(struct sim *s, uint32_t rank, uint32_t src, uint64_t len, uint32_t buf)
{
    struct srank *r = &s->r[rank];
    uint32_t slot = slot_alloc(s, r);
    uint32_t mi = list_take(s, &r->unexp, &r->unexp_tail, src);
    if (mi != NONE) {
        struct ment m = s->pool[mi];
        ment_free(s, mi);
        match(s, &m, slot, buf, r->t, 1);
        return;
    }
    mi = ment_new(s);
    if (mi == NONE)
        return;
    s->pool[mi] = (struct ment){ r->t, r->t, len, NONE, src, rank, slot, buf, 0 };
    list_append(s, &r->posted, &r->posted_tail, mi);
}

static void on_arrive(struct sim *s, uint32_t mi)
{
    struct ment m = s->pool[mi];
    struct srank *r = &s->r[m.dst];
    r->pending = 1;
    uint32_t ri = list_take(s, &r->posted, &r->posted_tail, m.src);
    if (ri == NONE) {
        list_append(s, &r->unexp, &r->unexp_tail, mi);
        return;
    }
    uint32_t rslot = s->pool[ri].slot, rbuf = s->pool[ri].buf;
    double posted = s->pool[ri].time;
    ment_free(s, ri);
    ment_free(s, mi);
    match(s, &m, rslot, rbuf, posted, 0);
}

/* On an oversubscribed host, a rank waiting at the node segment's
 * synchronisation spins, keeping its core, while every rank still missing
 * runs on another core (src/coll/barrier_seg.c, rch_coll_bar_wait_all: its
 * polling there can only find them sooner); it yields as soon as one of
 * them shares its core (they need it to arrive). The node's ranks are
 * [first, end). */
static int seg_spins(const struct sim *s, uint32_t rank, int first, int end)
{
    size_t mine = core_of(s, rank);
    for (int q = first; q < end; q++)
        if ((uint32_t)q != rank && !s->r[q].seg_in && core_of(s, (uint32_t)q) == mine)
            return 0;
    return 1;
}

/* Rank arrives at its node's segment synchronisation; the last arrival
 * schedules the node's release. */
static void seg_arrive(struct sim *s, uint32_t rank)
{
    int node = node_of(s, rank), ppn = s->lay->ppn, n = s->lay->nranks;
    int members = n - node * ppn < ppn ? n - node * ppn : ppn;
    if (!s->seg_count) {
        s->seg_count = calloc((size_t)s->nnodes, sizeof(int));
        s->seg_max = calloc((size_t)s->nnodes, sizeof(double));
        if (!s->seg_count || !s->seg_max) {
            s->alloc_failed = 1;
            return;
        }
    }
    struct srank *r = &s->r[rank];
    double arrive = cpu(s, rank, r->t, s->p->ch[SIM_SHM].o);
    if (arrive > s->seg_max[node])
        s->seg_max[node] = arrive;
    r->wait_slot = NONE - 1;                   /* waiting for the release */
    r->blocked = 1;
    r->seg_in = 1;
    if (s->cores && seg_spins(s, rank, node * ppn, node * ppn + members)) {
        r->blocked = 0;
        r->spin = 1;
    }
    if (++s->seg_count[node] == members) {
        /* the last to arrive finds every flag set: it never waited, and
         * keeps its core */
        r->blocked = arrive < s->seg_max[node];
        r->spin = 1;
        push(s, s->seg_max[node] + s->p->ch[SIM_SHM].L, EV_SEGREL, (uint32_t)node, 0);
        s->seg_count[node] = 0;
        s->seg_max[node] = 0;
    }
}

/* ns per byte of a read of node segment data rank w wrote (COMPUTE kind
 * SIM_SEG_READ + 2w, + 1 for a reduction): what crosses cores (w runs on
 * another core than the reader: on a host of `cores`, the library's
 * round-robin binding; else every rank has its own) costs the shm single
 * copy's G + O where that is more than an in-cache copy, as a copy out does,
 * and a reduction of such bytes that excess over the in-cache read on top
 * of gamma; bytes from the reader's own core are in its cache. The node
 * segment is one node: its ranks are the world's. */
static int seg_other_core(const struct sim *s, uint32_t rank, uint32_t w)
{
    return s->core_free ? core_of(s, w) != core_of(s, rank) : w != rank;
}

static double seg_read_ns(const struct sim *s, uint32_t rank, uint32_t a, double cross)
{
    const struct sim_params *p = s->p;
    uint32_t w = (a - SIM_SEG_READ) / 2;
    int reduce = (a - SIM_SEG_READ) & 1;
    int other = seg_other_core(s, rank, w);
    double extra = other && cross > p->beta ? cross - p->beta : 0;
    return (reduce ? p->gamma : p->beta) + extra;
}

/* ns per byte of a COMPUTE op of kind a (0, 2, 3, SIM_SEG_READ...; sim.h). A copy out of the
 * node segment moves what other cores wrote: it costs what a single copy
 * of another process's data does, the shm rendezvous slope G + O, where
 * that is more than an in-cache copy (beta). */
static double compute_ns(const struct sim *s, uint32_t rank, uint32_t a)
{
    const struct sim_params *p = s->p;
    if (a == 0)
        return p->gamma;
    double cross = p->ch[SIM_SHM].G + p->ch[SIM_SHM].O;
    if (a >= SIM_SEG_DEP)                  /* a deposit: a copy into the segment */
        return p->beta;
    if (a >= SIM_SEG_READ)
        return seg_read_ns(s, rank, a, cross);
    return a == 3 && cross > p->beta ? cross : p->beta;
}

/* The turns a rank's hand-off gives, over the network channel (a job of
 * more than one node; on one node core_turns), to the other ranks of its
 * core that still wait (not those whose wait is over, which have work):
 * each runs a progress pass that polls its sockets (netturn, the switch to
 * it included) before the core comes round to a rank that has work. Its
 * partner is on another node, so a waiting rank never spins there
 * (partner_elsewhere): turns from two ranks per core on. */
static double net_turns(const struct sim *s, uint32_t rank)
{
    if (s->p->netturn <= 0 || s->nnodes < 2)
        return 0;
    return s->p->netturn * core_waiting(s, rank, 1);
}

/* Run rank's ops from its pc until it must wait or its program ends. */
static void run_rank(struct sim *s, uint32_t rank)
{
    struct srank *r = &s->r[rank];
    struct sim_prog p;
    enum sim_form f;
    sim_progs_get(s->t, (int)rank, &p, &f);
    int n = s->lay->nranks;
    double now = r->t;
    for (;;) {
        /* An op that took CPU time ends this run: the rank goes on at its
         * new time, in order with everybody else's events, so that what it
         * does next on a shared resource (its node's NIC) is not booked
         * ahead of others' earlier use of it. */
        if (r->t > now) {
            push(s, r->t, EV_RUN, rank, 0);
            return;
        }
        if (r->pc == p.nops) {
            /* an empty loop body (a 0-byte Bruck alltoall sends nothing)
             * leaves nothing for the other iterations to do */
            if (++r->iter >= (uint32_t)s->iters || r->loop == p.nops) {
                r->done = 1;
                return;
            }
            r->pc = r->loop;
        }
        uint32_t bufs = p.bufs ? p.bufs[r->pc] : 0;
        sim_op op = p.ops[r->pc++];
        uint32_t a = SIM_OP_ARG(op);
        uint64_t b = SIM_OP_BYTES(op);
        switch (SIM_OP_KIND(op)) {
        case SIM_ISEND:
            do_isend(s, rank, (uint32_t)sim_peer(f, a, (int)rank, n), b, bufs & 0xffff);
            break;
        case SIM_IRECV:
            do_irecv(s, rank, (uint32_t)sim_peer(f, a, (int)rank, n), b, bufs & 0xffff);
            break;
        case SIM_WAIT: {
            double d = s->slot_done[r->slot_base + a];
            if (d == PENDING) {
                r->wait_slot = a;
                r->blocked = 1;
                s->handoffs += s->cores && !s->cyc;    /* cycle: counted as its turn ends (cyc_after_run) */
                if (s->cores && !s->cyc)       /* its turn on the core goes to another rank */
                    r->t = cpu(s, rank, r->t, s->p->handoff + net_turns(s, rank));
                return;
            }
            if (d > r->t)
                r->t = d;
            break;
        }
        case SIM_FREE:
            s->slot_free[r->slot_base + r->free_top++] = a;
            break;
        case SIM_COMPUTE: {
            /* a local copy reads its source and writes its destination */
            double miss = 0, l2x = a == 2 ? l2_copy_ns(s, rank, bufs & 0xffff, bufs >> 16, b, &miss) : 0;
            int w = sim_segx_writer(a);
            double segx = s->segx && w >= 0 ? sim_segx_ns(s->segx, s->p, rank, a, b, seg_other_core(s, rank, (uint32_t)w)) : 0;
            r->t = copy_cpu(s, rank, r->t, a == 1 ? (double)b : (double)b * compute_ns(s, rank, a) + segx + l2x, miss);
            break;
        }
        case SIM_HWBAR: {
            double arrive = cpu(s, rank, r->t, s->p->hw_ow);
            if (arrive > s->hw_max)
                s->hw_max = arrive;
            r->wait_slot = NONE - 1;           /* waiting for the release */
            r->blocked = 1;
            if (++s->hw_count == n) {
                double lg = n > 1 ? log2((double)n) : 0;
                push(s, s->hw_max + s->p->hw_op + s->p->hw_oplg * lg, EV_HWREL, 0, 0);
                s->hw_count = 0;
                s->hw_max = 0;
            }
            return;
        }
        case SIM_SEGSYNC:
            if (s->segx)
                sim_segx_sync(s->segx, rank);
            seg_arrive(s, rank);
            return;
        case SIM_MARK:
            r->loop = r->pc;
            r->mark = r->t;
            break;
        }
    }
}

static int run_once(const struct sim_progs *t, const struct sim_layout *lay, const struct sim_params *p,
                    const struct sim_noise *noise, int iters, uint64_t seed, struct sim_result *res, char *err, size_t len)
{
    struct sim s = { .t = t, .lay = lay, .p = p, .noise = noise, .iters = iters, .poolfree = NONE };
    int n = lay->nranks;
    struct timespec w0, w1;
    int rc = -1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &w0);
    s.nnodes = (n + lay->ppn - 1) / lay->ppn;
    s.host = lay->host > 0 ? lay->host : lay->ppn;
    s.cores = p->cores >= 1 && s.host > (int)p->cores ? (int)p->cores : 0;
    if (s.cores) {
        size_t ncores = (size_t)((n + s.host - 1) / s.host) * (size_t)s.cores;
        s.core_free = calloc(ncores, sizeof(double));
        s.core_owner = malloc(ncores * sizeof(uint32_t));
        s.core_head = malloc(ncores * sizeof(uint32_t));
        s.core_tail = malloc(ncores * sizeof(uint32_t));
        for (size_t i = 0; s.core_owner && s.core_head && i < ncores; i++)
            s.core_owner[i] = s.core_head[i] = NONE;
        s.cyc = p->cycle && s.nnodes == 1 && s.host > 2 * s.cores;
        if (s.cyc) {
            s.cyc_pos = calloc(ncores, sizeof(uint32_t));
            s.cyc_stop = calloc(ncores, 1);
            s.cyc_max = (uint32_t)((s.host + s.cores - 1) / s.cores);
            s.cyc_order = malloc(ncores * s.cyc_max * sizeof(uint32_t));
            if (s.cyc_order)
                cyc_orders(&s, seed);
            if (!s.cyc_pos || !s.cyc_stop || !s.cyc_order) {
                snprintf(err, len, "no memory for the turns of %zu cores", ncores);
                goto out_free;
            }
        }
    }
    if (p->l3 > 0) {
        size_t units = s.cores ? (size_t)((n + s.host - 1) / s.host) * (size_t)s.cores : (size_t)n;
        s.cache = sim_cache_new(p->l3, (n + s.host - 1) / s.host);
        s.miss_end = calloc(units, sizeof(double));
        if (p->l2 > 0)
            s.l2 = sim_cache_new(p->l2, (int)units);
        if (!s.cache || !s.miss_end || (p->l2 > 0 && !s.l2)) {
            snprintf(err, len, "no memory for the L3 of %d ranks", n);
            goto out_free;
        }
    }
    if (sim_segx_on(p) && !(s.segx = sim_segx_new(n))) {
        snprintf(err, len, "no memory for the node segment's readers of %d ranks", n);
        goto out_free;
    }
    s.r = calloc((size_t)n, sizeof(*s.r));
    s.nic_tx = calloc((size_t)s.nnodes, sizeof(double));
    s.nic_rx = calloc((size_t)s.nnodes, sizeof(double));
    s.shm_tx = calloc((size_t)n, sizeof(double));
    size_t nslots = 0;
    for (int i = 0; s.r && i < n; i++) {
        struct sim_prog pr;
        enum sim_form f;
        sim_progs_get(t, i, &pr, &f);
        s.r[i] = (struct srank){ .wait_slot = NONE, .slot_base = (uint32_t)nslots, .posted = NONE,
                                 .posted_tail = NONE, .unexp = NONE, .unexp_tail = NONE, .last_to = NONE };
        nslots += pr.slots;
        if (nslots >= UINT32_MAX) {
            snprintf(err, len, "too many request slots (%zu): the algorithm keeps too many requests at this size", nslots);
            goto out_free;
        }
    }
    s.ring = calloc(NB, sizeof(*s.ring));
    s.slot_done = malloc((nslots ? nslots : 1) * sizeof(double));
    s.slot_free = malloc((nslots ? nslots : 1) * sizeof(uint32_t));
    if (!s.r || !s.nic_tx || !s.nic_rx || !s.shm_tx || !s.ring || !s.slot_done || !s.slot_free ||
        (s.cores && (!s.core_free || !s.core_owner || !s.core_head || !s.core_tail))) {
        snprintf(err, len, "no memory for %d ranks (%zu request slots)", n, nslots);
        goto out_free;
    }
    if (s.cyc)
        for (int c = 0; c < s.cores; c++)
            push(&s, 0, EV_TURN, (uint32_t)c, 0);
    else
        for (int i = 0; i < n; i++)
            push(&s, 0, EV_RUN, (uint32_t)i, 0);
    size_t peak_heap = 0, peak_pool = 0;
    while (s.queued && !s.alloc_failed) {
        if (s.queued > peak_heap)
            peak_heap = s.queued;
        struct event e = pop(&s);
        uint32_t rank = e.kind_rank & 0x0fffffff;
        s.events++;
        switch (e.kind_rank >> 28) {
        case EV_TURN:       /* rank: the core */
            cyc_turn(&s, rank, e.t);
            break;
        case EV_RUN:
            if (s.cyc) {        /* the rank holds its core (its run went on after CPU work) */
                if (s.core_owner[core_of(&s, rank)] != rank)
                    break;
                if (e.t > s.r[rank].t)
                    s.r[rank].t = e.t;
                run_rank(&s, rank);
                cyc_after_run(&s, rank);
                break;
            }
            if (s.cores && !core_take(&s, rank))
                break;
            if (e.t > s.r[rank].t)
                s.r[rank].t = e.t;
            if (s.r[rank].blocked) {           /* back from a wait: get a core again */
                s.r[rank].blocked = 0;
                if (s.cores) {
                    s.switches++;
                    double sw = s.r[rank].wake_net ? p->sw_net
                              : s.r[rank].wake_seg ? sim_seg_switch(p, core_ranks(&s, rank)) : p->sw;
                    double turns = core_turns(&s, rank), ended = end_turns(&s, rank);
                    s.turns += (p->sw > 0 ? turns / p->sw : 0) +
                               (ended > 0 ? ended / sim_seg_switch(p, core_ranks(&s, rank)) : 0);
                    turns += ended;
                    s.r[rank].t = cpu(&s, rank, s.r[rank].t, sw + turns);
                }
                s.r[rank].wake_net = s.r[rank].wake_seg = 0;
            }
            run_rank(&s, rank);
            if (s.cores)
                core_give_up(&s, rank);
            break;
        case EV_ARRIVE:
            on_arrive(&s, e.data);
            break;
        case EV_HWREL:
            for (int i = 0; i < n; i++) {
                s.r[i].wait_slot = NONE;
                s.r[i].t = cpu(&s, (uint32_t)i, e.t, p->hw_or);
                if (s.cyc)
                    cyc_wake(&s, (uint32_t)i, s.r[i].t);
                else
                    push(&s, s.r[i].t, EV_RUN, (uint32_t)i, 0);
            }
            break;
        case EV_SEGREL:     /* rank: the node */
            for (int i = (int)rank * lay->ppn; i < n && i < ((int)rank + 1) * lay->ppn; i++) {
                s.r[i].wait_slot = NONE;
                s.r[i].seg_in = s.r[i].spin = 0;
                s.r[i].wake_seg = s.r[i].blocked;   /* a spinning rank kept its core */
                s.r[i].t = e.t;
                if (!s.cyc)
                    push(&s, e.t, EV_RUN, (uint32_t)i, 0);
                else if (s.core_owner[core_of(&s, (uint32_t)i)] == (uint32_t)i)
                    push(&s, e.t, EV_RUN, (uint32_t)i, 0);   /* it spun, holding its core */
                else
                    cyc_wake(&s, (uint32_t)i, e.t);
            }
            break;
        }
    }
    peak_pool = s.poolcap;
    if (s.alloc_failed) {
        snprintf(err, len, "no memory for the events (%zu queued)", s.queued);
        goto out_free;
    }
    double last = 0, sum = 0, span = 0;
    for (int i = 0; i < n; i++) {
        if (!s.r[i].done) {
            snprintf(err, len, "deadlock: rank %d waits forever (op %u of its program, iteration %u)", i,
                     s.r[i].pc, s.r[i].iter);
            goto out_free;
        }
        if (s.r[i].t > last)
            last = s.r[i].t;
        if (s.r[i].t - s.r[i].mark > span)
            span = s.r[i].t - s.r[i].mark;
        sum += s.r[i].t;
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &w1);
    res->time = last;
    res->mean_end = sum / n;
    res->span = span;
    res->handoffs = s.handoffs;
    res->switches = s.switches;
    res->turns = s.turns;
    res->events = s.events;
    res->seconds = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) * 1e-9;
    res->engine_bytes = (size_t)n * (sizeof(struct srank) + sizeof(double)) + (size_t)s.nnodes * 2 * sizeof(double) +
                        nslots * (sizeof(double) + sizeof(uint32_t)) + queue_bytes(&s) +
                        peak_pool * sizeof(struct ment) + (s.seg_count ? (size_t)s.nnodes * (sizeof(int) + sizeof(double)) : 0);
    (void)peak_heap;
    rc = 0;

out_free:
    sim_cache_free(s.cache);
    sim_cache_free(s.l2);
    sim_segx_free(s.segx);
    free(s.miss_end);
    free(s.r);
    free(s.nic_tx);
    free(s.nic_rx);
    free(s.shm_tx);
    free(s.core_free);
    free(s.core_owner);
    free(s.core_head);
    free(s.core_tail);
    free(s.cyc_pos);
    free(s.cyc_order);
    free(s.cyc_stop);
    free(s.seg_count);
    free(s.seg_max);
    free(s.slot_done);
    free(s.slot_free);
    free_queue(&s);
    free(s.pool);
    return rc;
}

/* turnorder cycle: the cycle's order is the kernel's, fixed within a run
 * and different from run to run, and it changes the time (an 8-rank
 * dissemination barrier on 2 cores: 15.7 to 23.6 us a call by order), so
 * a prediction is the mean over p->cycle_orders orders drawn (seeds 1, 2,
 * ...; 0: the one order by index on the core). Counts are the mean too;
 * events and CPU time the sum. */
int sim_run(const struct sim_progs *t, const struct sim_layout *lay, const struct sim_params *p,
            const struct sim_noise *noise, int iters, struct sim_result *res, char *err, size_t len)
{
    int n = lay->nranks, host = lay->host > 0 ? lay->host : lay->ppn;
    int cyc = p->cycle && (n + lay->ppn - 1) / lay->ppn == 1 && p->cores >= 1 && host > 2 * (int)p->cores;
    int k = cyc && p->cycle_orders > 0 ? (int)p->cycle_orders : 1;
    struct sim_result sum = { 0 };
    double handoffs = 0, switches = 0;
    for (int i = 0; i < k; i++) {
        if (run_once(t, lay, p, noise, iters, cyc && p->cycle_orders > 0 ? (uint64_t)i + 1 : 0, res, err, len) != 0)
            return -1;
        sum.time += res->time;
        sum.mean_end += res->mean_end;
        sum.span += res->span;
        handoffs += (double)res->handoffs;
        switches += (double)res->switches;
        sum.turns += res->turns;
        sum.events += res->events;
        sum.seconds += res->seconds;
        sum.engine_bytes = res->engine_bytes;
    }
    if (k > 1) {
        sum.handoffs = (uint64_t)(handoffs / k + 0.5);
        sum.switches = (uint64_t)(switches / k + 0.5);
        sum.time /= k;
        sum.mean_end /= k;
        sum.span /= k;
        sum.turns /= k;
        *res = sum;
    }
    return 0;
}
