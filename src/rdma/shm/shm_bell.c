/*
 * The doorbell (shm_proto.h): which rings of our segment have a sender, so
 * progress polls k rings for the k local ranks that send to us rather than
 * one per local rank, and never touches (so never allocates) the ring of a
 * rank that does not.
 *
 * Ordering, so no record is ever missed: a sender rings (bit, then count
 * with release) in activate(), before the state that lets it write a
 * record. Progress compares the count (one load) on every pass that finds
 * nothing and after every record it hands up from the fast path (so a
 * stream from one sender does not starve a new one), and progress_full at
 * its start; a changed count is read again with acquire before the bits. A
 * pass that misses a new count misses only records that a later pass finds
 * with it. A sleeper compares the count after its store->load barrier
 * (wait_arm), as it reads the rings: the sender's notify after its first
 * record either finds it asleep, or the sleeper sees the count, rung before
 * that record.
 */
#include <stdlib.h>
#include "base/base.h"
#include "base/log.h"
#include "rdma/shm/shm.h"

rdmach_status_t rch_shm_bell_open(struct rch_rdma_chan *ch)
{
    ch->bell = rch_shm_seg_bell(&ch->seg);
    ch->bell_count = 0;
    ch->bell_words = (uint32_t)rch_shm_bell_words(ch->nslots);
    ch->bell_seen = calloc(ch->bell_words, sizeof(*ch->bell_seen));
    ch->slot_peer = malloc(sizeof(*ch->slot_peer) * ch->nslots);
    ch->active = malloc(sizeof(*ch->active) * (ch->npeers > 0 ? (size_t)ch->npeers : 1));
    if (!ch->bell_seen || !ch->slot_peer || !ch->active)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm: doorbell of %u local ranks", ch->nslots);
    for (uint32_t s = 0; s < ch->nslots; s++)
        ch->slot_peer[s] = -1;
    for (int i = 0; i < ch->npeers; i++)
        ch->slot_peer[ch->peers[i].slot] = i;
    ch->nactive = 0;
    return RDMACH_OK;
}

void rch_shm_bell_close(struct rch_rdma_chan *ch)
{
    free(ch->bell_seen);
    free(ch->slot_peer);
    free(ch->active);
}

/* Bits only accumulate in bell_seen: each slot joins `active` at most once
 * (at most npeers entries), whatever a faulty peer writes into the words. */
__attribute__((noinline)) void rch_shm_bell_take(struct rch_rdma_chan *ch)
{
    ch->bell_count = atomic_load_explicit(&ch->bell->count, memory_order_acquire);
    for (uint32_t w = 0; w < ch->bell_words; w++) {
        uint64_t fresh = atomic_load_explicit(&ch->bell->bits[w], memory_order_relaxed) & ~ch->bell_seen[w];
        ch->bell_seen[w] |= fresh;
        while (fresh) {
            uint32_t slot = w * 64 + (uint32_t)__builtin_ctzll(fresh);
            fresh &= fresh - 1;
            int32_t i = slot < ch->nslots ? ch->slot_peer[slot] : -1;
            if (i < 0) {
                RCH_WARN("shm", "local rank %u rang our doorbell but is not a peer of this channel: ignored", slot);
                continue;
            }
            ch->active[ch->nactive++] = &ch->peers[i];
            RCH_DEBUG("shm", "rank %d rang our doorbell: %u rings polled", ch->peers[i].rank, ch->nactive);
        }
    }
}
