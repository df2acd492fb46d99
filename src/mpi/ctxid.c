/*
 * Context ids and the small all-to-all exchange that communicator creation
 * needs (Comm_dup, Comm_split), independent of src/coll.
 *
 * A context id pair (ctx, ctx + 1) is free here if its bit is set in `freemask`.
 * Creating a communicator from a parent: every parent member contributes its
 * mask (and, for split, its color and key); the masks are ANDed and the table
 * of contributions gathered to parent rank 0 along a binomial tree, and sent
 * back down the same tree; each member then takes the lowest pair free
 * everywhere. Cost: 2 (p - 1) messages, 2 log2(p) message latencies, each
 * rank talking to at most log2(p) + 1 others.
 *
 *      r1 ──up──> r0 <──up── r2 <──up── r3      (down: the same edges back)
 *
 * The messages travel on the parent's collective context with tags no
 * collective algorithm uses, so they never match user or collective traffic.
 *
 * Threads (MPI_THREAD_MULTIPLE): two threads of a process creating
 * communicators at once, each from its own parent, would AND the same free
 * mask and could take the same pair (the exchange's waits let the other
 * thread run), so that one communicator's messages match another's. So one
 * agreement at a time offers a range of this process's mask: its thread
 * holds the range (rch_mpi_ctx_round_begin); a thread that finds it held
 * offers nothing there, its round agrees on nothing and it runs another.
 * Each contribution says whether its rank held what it offers
 * (RCH_MPI_CTX_HELD_BIT, in pair 0, which is world's and never free), and
 * only a round that every member held picks a pair.
 *
 * A holder waits for the other members' contributions, so a hold must never
 * wait for a member that has not reached this creation: there it may be in
 * another creation that needs the held range, and the job deadlocks (a
 * thread holding in a creation of the whole parent while the same thread
 * elsewhere is still in one of a subset, whose other thread waits for the
 * mask there: MPICH's comm_create_group_threads2, which MPICH itself does
 * not cover). Under MPI_THREAD_MULTIPLE a creation's first round therefore
 * holds only the eager range, pairs [0, EAGER_END), which no later round
 * waits for: a thread that finds it held offers nothing in its first round
 * and goes on. When a first round picks nothing, every member has reached
 * the creation and stays in its loop until a round picks, so the rounds
 * after it may wait for the main range, pairs [EAGER_END, LOCAL_FIRST)
 * (and the eager one too when it is free), by priority: when several
 * threads want it, the one with the lowest key (its parent's context id in
 * the high 32 bits, the same on every member; below it a
 * Comm_create_group's tag, all ones for every other creation: creations
 * rank by parent first, whatever their kind, as in MPICH) gets it next on
 * every rank, so rounds cannot fail for ever by each rank giving the range
 * to a different thread (MPICH's rule; without it, rounds among several
 * threads were seen to fail for ever). A program that creates few
 * communicators at a time agrees in one round, from the eager range; at
 * the other levels there is one thread in MPI at a time and the first round
 * offers every pair. RCH_MPI_CTX_FULL_BIT (pair 0 too) says every member
 * offered every pair it has free, so a round that finds none free says "no
 * context id" only then, the same at every member.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"

static struct rch_mpi_ctxmask freemask;

/* What a round holds (rch_mpi_ctx_round_begin's result). */
enum { HOLD_NONE = 0, HOLD_MAIN = 1, HOLD_LOCAL = 2, HOLD_EAGER = 4 };
static int held;                   /* HOLD_MAIN | HOLD_EAGER held by rounds of this process */
static uint64_t lowest_waiting = UINT64_MAX;   /* the lowest key refused the main range */

void rch_mpi_ctx_init(void)
{
    memset(&freemask, 0xff, sizeof(freemask));
    freemask.w[0] &= ~(uint64_t)3;     /* pair 0: world (ctx 0/1), pair 1: self (ctx 2/3) */
}

void rch_mpi_ctx_mine(struct rch_mpi_ctxmask *m)
{
    *m = freemask;
}

void rch_mpi_ctx_mine_holding(struct rch_mpi_ctxmask *m, uint32_t cand, int held)
{
    rch_mpi_ctx_mine(m);
    if (held)
        m->w[cand / 2 / 64] |= (uint64_t)1 << (cand / 2 % 64);
}

/* Pairs [LOCAL_FIRST, NB_FIRST) go to communicators of one member (a dup of
 * MPI_COMM_SELF, a split into singletons) first, without holding the mask:
 * such a creation exchanges nothing, and a thread that must wait for the mask
 * while another thread's agreement waits for other processes can deadlock
 * the job (a program creating MPI_COMM_SELF duplicates under its own lock
 * while other threads duplicate MPI_COMM_WORLD). Agreements among several
 * members never offer these pairs. */
#define LOCAL_FIRST (RCH_MPI_CTX_NB_FIRST - 128)
/* Pairs [0, EAGER_END): the eager range of a creation's first round ("Threads"). */
#define EAGER_END 256

static void keep_range(struct rch_mpi_ctxmask *m, unsigned from, unsigned to)
{
    for (unsigned pair = 0; pair < RCH_MPI_CTX_PAIRS; pair++)
        if (pair < from || pair >= to)
            m->w[pair / 64] &= ~((uint64_t)1 << (pair % 64));
}

/* Add this process's free pairs of [from, to) to the offer m. */
static void offer(struct rch_mpi_ctxmask *m, unsigned from, unsigned to)
{
    struct rch_mpi_ctxmask r = freemask;
    keep_range(&r, from, to);
    for (unsigned w = 0; w < RCH_ARRAY_SIZE(m->w); w++)
        m->w[w] |= r.w[w];
}

int rch_mpi_ctx_round_begin(uint64_t key, int members, int round, struct rch_mpi_ctxmask *m)
{
    memset(m, 0, sizeof(*m));
    if (members == 1) {
        offer(m, LOCAL_FIRST, RCH_MPI_CTX_NB_FIRST);
        if (rch_mpi_ctx_pick(m) != UINT32_MAX) {
            m->w[0] |= RCH_MPI_CTX_HELD_BIT;
            return HOLD_LOCAL;             /* a local round: nothing held */
        }
    }
    if (round == 0 && rch_mpi_thread_level == MPI_THREAD_MULTIPLE) {
        if (held & HOLD_EAGER)
            return HOLD_NONE;
        held |= HOLD_EAGER;
        offer(m, 0, EAGER_END);
        m->w[0] |= RCH_MPI_CTX_HELD_BIT;
        return HOLD_EAGER;
    }
    if (!(held & HOLD_MAIN) && key <= lowest_waiting) {
        int hold = HOLD_MAIN;
        offer(m, EAGER_END, LOCAL_FIRST);
        if (!(held & HOLD_EAGER)) {
            hold |= HOLD_EAGER;
            offer(m, 0, EAGER_END);
            m->w[0] |= RCH_MPI_CTX_FULL_BIT;
        }
        held |= hold;
        m->w[0] |= RCH_MPI_CTX_HELD_BIT;
        return hold;
    }
    if (key < lowest_waiting)
        lowest_waiting = key;
    return HOLD_NONE;
}

uint32_t rch_mpi_ctx_round_end(int holder, uint64_t key, struct rch_mpi_ctxmask *m, int exchanged)
{
    int all_held = (m->w[0] & RCH_MPI_CTX_HELD_BIT) != 0;
    int all_full = (m->w[0] & RCH_MPI_CTX_FULL_BIT) != 0;
    m->w[0] &= ~(RCH_MPI_CTX_HELD_BIT | RCH_MPI_CTX_FULL_BIT);
    held &= ~(holder & (HOLD_MAIN | HOLD_EAGER));
    if (!exchanged || ((holder & HOLD_MAIN) && all_held)) {
        if (key == lowest_waiting)
            lowest_waiting = UINT64_MAX;      /* served, or gone: the next may have it */
    }
    if (!exchanged)
        return UINT32_MAX;
    if (!holder || !all_held)
        return RCH_MPI_CTX_AGAIN;
    uint32_t ctx = rch_mpi_ctx_pick(m);
    if (ctx != UINT32_MAX)
        rch_mpi_ctx_take(ctx);
    else if (!all_full && holder != HOLD_LOCAL)
        return RCH_MPI_CTX_AGAIN;          /* free pairs may be where some member offered none */
    return ctx;
}

uint32_t rch_mpi_ctx_pick(const struct rch_mpi_ctxmask *m)
{
    for (unsigned i = 0; i < RCH_MPI_CTX_NB_FIRST / 64; i++)
        if (m->w[i])
            return 2u * (i * 64u + (unsigned)__builtin_ctzll(m->w[i]));
    return UINT32_MAX;
}

uint32_t rch_mpi_ctx_pick_nb(const struct rch_mpi_ctxmask *m, unsigned start)
{
    unsigned n = RCH_MPI_CTX_PAIRS - RCH_MPI_CTX_NB_FIRST;
    for (unsigned k = 0; k < n; k++) {
        unsigned pair = RCH_MPI_CTX_NB_FIRST + (start + k) % n;
        if (m->w[pair / 64] & ((uint64_t)1 << (pair % 64)))
            return 2u * pair;
    }
    return UINT32_MAX;
}

int rch_mpi_ctx_try_take(uint32_t ctx)
{
    uint32_t pair = ctx / 2;
    if (!(freemask.w[pair / 64] & ((uint64_t)1 << (pair % 64))))
        return 0;
    rch_mpi_ctx_take(ctx);
    return 1;
}

void rch_mpi_ctx_take(uint32_t ctx)
{
    uint32_t pair = ctx / 2;
    freemask.w[pair / 64] &= ~((uint64_t)1 << (pair % 64));
}

void rch_mpi_ctx_release(uint32_t ctx)
{
    uint32_t pair = ctx / 2;
    if (pair >= 2 && pair < RCH_MPI_CTX_PAIRS)
        freemask.w[pair / 64] |= (uint64_t)1 << (pair % 64);
}

rdmach_status_t rch_mpi_wait_free(struct rch_dev_req *r)
{
    if (!r)
        return RDMACH_OK;
    rdmach_status_t st = rch_dev_wait(r);
    if (st == RDMACH_OK)
        st = r->err;
    rch_dev_req_free(r);
    return st;
}

static void mask_and(struct rch_mpi_ctxmask *acc, const char *p)
{
    struct rch_mpi_ctxmask o;
    memcpy(&o, p, sizeof(o));
    for (unsigned w = 0; w < RCH_ARRAY_SIZE(acc->w); w++)
        acc->w[w] &= o.w[w];
}

static rdmach_status_t exch_send(struct rch_mpi_comm *c, const void *buf, size_t len, int to, int tag, uint32_t ctx)
{
    struct rch_dev_req *r = NULL;
    rdmach_status_t st = rch_dev_isend(buf, len, c->world_of[to], c->rank, tag, ctx, RCH_DEV_SEND_STD, &r);
    return st == RDMACH_OK ? rch_mpi_wait_free(r) : st;
}

static rdmach_status_t exch_recv(void *buf, size_t len, int from, int tag, uint32_t ctx)
{
    struct rch_dev_req *r = NULL;
    rdmach_status_t st = rch_dev_irecv(buf, len, from, tag, ctx, &r);
    return st == RDMACH_OK ? rch_mpi_wait_free(r) : st;
}

/*
 * Gather every rank's `bytes` (and AND the masks) to rank 0, then broadcast
 * the lot, along a binomial tree: rank r gathers the block of ranks
 * [r, r + lowbit(r)) from its children r + 1, r + 2, r + 4, ... and sends it
 * to r - lowbit(r); the result comes back down the same edges. Each rank
 * talks to O(log size) others (a flat gather had rank 0 exchange with every
 * rank, in series: 255 rings and messages at 256 ranks, at MPI_Finalize).
 */
rdmach_status_t rch_mpi_exchange(struct rch_mpi_comm *c, const void *mine, size_t bytes, void *all,
                                 struct rch_mpi_ctxmask *m)
{
    size_t mbytes = m ? sizeof(*m) : 0;
    int size = c->size, rank = c->rank;
    size_t down = (size_t)size * bytes + mbytes;
    uint32_t ctx = c->ctx + 1;
    rdmach_status_t st = RDMACH_OK;

    if (size == 1) {
        if (bytes)
            memcpy(all, mine, bytes);
        return RDMACH_OK;
    }
    /* out: every rank's block at its place, then the mask; in: a child's part */
    char *out = malloc(2 * down);
    if (!out)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "communicator creation: out of memory");
    char *in = out + down;
    struct rch_mpi_ctxmask acc;
    if (m)
        acc = *m;
    if (bytes)
        memcpy(out + (size_t)rank * bytes, mine, bytes);

    int bit = 1;
    for (; bit < size && st == RDMACH_OK && !(rank & bit); bit <<= 1) {
        if (rank + bit >= size)
            continue;
        int hi = rank + 2 * bit < size ? rank + 2 * bit : size;   /* the child's block: [rank + bit, hi) */
        size_t blk = (size_t)(hi - rank - bit) * bytes;
        st = exch_recv(in, blk + mbytes, rank + bit, RCH_MPI_TAG_EXCH_UP, ctx);
        if (st == RDMACH_OK) {
            memcpy(out + (size_t)(rank + bit) * bytes, in, blk);
            if (m)
                mask_and(&acc, in + blk);
        }
    }
    if (st == RDMACH_OK && rank != 0) {
        /* our block [rank, rank + bit) and the mask, to the parent; then the whole */
        int hi = rank + bit < size ? rank + bit : size;
        size_t blk = (size_t)(hi - rank) * bytes;
        memcpy(in, out + (size_t)rank * bytes, blk);
        if (m)
            memcpy(in + blk, &acc, mbytes);
        st = exch_send(c, in, blk + mbytes, rank - bit, RCH_MPI_TAG_EXCH_UP, ctx);
        if (st == RDMACH_OK)
            st = exch_recv(out, down, rank - bit, RCH_MPI_TAG_EXCH_DOWN, ctx);
        if (st == RDMACH_OK && m)
            memcpy(&acc, out + (size_t)size * bytes, mbytes);
    } else if (st == RDMACH_OK && m) {
        memcpy(out + (size_t)size * bytes, &acc, mbytes);
    }
    /* down to our children, farthest first (they have the largest subtrees) */
    for (bit >>= 1; bit >= 1 && st == RDMACH_OK; bit >>= 1)
        if (rank + bit < size)
            st = exch_send(c, out, down, rank + bit, RCH_MPI_TAG_EXCH_DOWN, ctx);
    if (st == RDMACH_OK) {
        if (bytes)
            memcpy(all, out, (size_t)size * bytes);
        if (m)
            *m = acc;
    }
    free(out);
    return st;
}
