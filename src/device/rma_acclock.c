/*
 * The accumulate lock's slow path (the fast one: rma_impl.h).
 *
 * The word names its holder (world rank + 1). Most holders apply one
 * operation to mapped memory and let go; but a node-local origin's
 * single-copy read-modify-write (rma_ops.c, rmw) holds the target's lock
 * across two process_vm_* calls, and may die in between. Nobody would ever
 * release the word: the target's next accumulate packet and every other
 * origin's read-modify-write would spin for ever. So a waiter asks, at most
 * every CHECK_S, whether the holder is dead — the device's word
 * (rch_dev.peers[].dead) first, else its channel's, asked now (peer_gone:
 * the shared-memory channel polls its pidfd, in the pid namespace through
 * which it watches its node's ranks). A waiter may be inside a packet
 * handler, where progress would not poll the channel again, hence the
 * direct question. A dead holder's lock is taken over with a warning (once
 * per process): the elements it was writing may be half updated (MPI: the
 * effect of a failed process's operation is undefined), later operations
 * work. The device hears of the death at its next progress call, which ends
 * the epochs that involve that rank with an error naming it.
 *
 * Limit: the word holds a world rank, so a window whose group spans several
 * launches (MPI_Comm_spawn, connect/accept) may name two processes alike;
 * the take-over then needs the named rank of this process's table dead.
 */
#include <sched.h>
#include "base/base.h"
#include "base/log.h"
#include "device/rma_impl.h"

#define SPINS   128
#define CHECK_S 0.005

static int took_over_warned;

/* Is the holder `world` known (or now found) dead? */
static int holder_dead(uint32_t world)
{
    if (world >= (uint32_t)rch_dev.size || (int)world == rch_dev.rank)
        return 0;
    const struct rch_dev_peer *p = &rch_dev.peers[world];
    if (p->dead)
        return 1;
    return p->ops && p->chan && p->ops->peer_gone && p->ops->peer_gone(p->chan, (int)world);
}

void rch_dev_rma_acc_contended(struct rch_dev_win_ctrl *c)
{
    const uint32_t me = (uint32_t)rch_dev.rank + 1;
    unsigned spins = 0;
    double next_check = 0;
    for (;;) {
        uint32_t h = atomic_load_explicit(&c->acc, memory_order_relaxed);
        if (h == 0) {
            if (atomic_compare_exchange_weak_explicit(&c->acc, &h, me, memory_order_acquire, memory_order_relaxed))
                return;
            continue;
        }
        if (++spins < SPINS) {
            rch_cpu_relax();
            continue;
        }
        /* MULTIPLE: the holder may be another thread of this process that
         * yielded the critical section inside its read-modify-write. */
        if (RCH_UNLIKELY(rch_dev_cs_on))
            rch_dev_cs_yield();
        sched_yield();
        double now = rch_base_wtime();
        if (now < next_check)
            continue;
        next_check = now + CHECK_S;
        if (!holder_dead(h - 1))
            continue;
        if (atomic_compare_exchange_strong_explicit(&c->acc, &h, me, memory_order_acquire, memory_order_relaxed)) {
            if (!took_over_warned) {
                took_over_warned = 1;
                RCH_WARN("dev", "one-sided: rank %u died holding an accumulate lock; taken over (the elements "
                         "its operation was writing may be half updated)", h - 1);
            }
            return;
        }
    }
}
