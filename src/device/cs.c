/*
 * The global critical section (cs.h): a test-and-set lock whose waiters spin
 * briefly and then sched_yield, never sleeping in the kernel, plus the
 * holder's identity and nesting depth.
 *
 * Why not a pthread mutex: its waiters sleep on a futex, and waking one
 * across cores costs 75-105 us on the reference VM (progress.c); the lock
 * changes hands every few polls when several threads wait for messages, so
 * a hand-off must be a context switch at most. The cost is that a thread
 * waiting for the lock keeps its core busy (yielding it to anything
 * runnable), the same policy as the MULTIPLE waits themselves.
 *
 * Invariants: `owner` is the holder's thread id while `locked` is 1 and 0
 * otherwise; only the holder writes `owner` and `depth`. A thread that reads
 * its own id in `owner` holds the lock (only it can have written its id, and
 * it clears it before releasing). `waiting` counts threads in lock_slow, so
 * rch_dev_cs_yield is a load when no thread waits.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "base/base.h"
#include "device/cs.h"

#define SPIN_BEFORE_YIELD 128    /* pauses a waiter spins before it starts yielding its core */
#define HANDOFF_SPIN 64          /* pauses a yielding holder gives a spinning waiter to take the lock */

int rch_dev_cs_on;

static struct {
    _Alignas(64) atomic_int locked;
    atomic_int waiting;
    _Alignas(64) atomic_ulong owner;
    int depth;
} cs;


static inline int try_lock(void)
{
    return !atomic_load_explicit(&cs.locked, memory_order_relaxed) &&
           !atomic_exchange_explicit(&cs.locked, 1, memory_order_acquire);
}

static __attribute__((noinline)) void lock_slow(void)
{
    atomic_fetch_add_explicit(&cs.waiting, 1, memory_order_relaxed);
    unsigned spins = 0;
    while (!try_lock()) {
        if (spins < SPIN_BEFORE_YIELD) {
            spins++;
            rch_cpu_relax();
        } else {
            sched_yield();
        }
    }
    atomic_fetch_sub_explicit(&cs.waiting, 1, memory_order_relaxed);
}

static inline void lock(unsigned long self, int depth)
{
    if (RCH_UNLIKELY(!try_lock()))
        lock_slow();
    atomic_store_explicit(&cs.owner, self, memory_order_relaxed);
    cs.depth = depth;
}

static inline void unlock(void)
{
    atomic_store_explicit(&cs.owner, 0, memory_order_relaxed);
    atomic_store_explicit(&cs.locked, 0, memory_order_release);
}

static inline unsigned long self_id(void)
{
    return (unsigned long)pthread_self();
}

void rch_dev_cs_enable(void)
{
    rch_dev_cs_on = 1;
}

void rch_dev_cs_disable(void)
{
    rch_dev_cs_on = 0;
}

void rch_dev_cs_enter(void)
{
    unsigned long self = self_id();
    if (atomic_load_explicit(&cs.owner, memory_order_relaxed) == self) {
        cs.depth++;
        return;
    }
    lock(self, 1);
}

void rch_dev_cs_exit(void)
{
    if (--cs.depth == 0)
        unlock();
}

void rch_dev_cs_yield(void)
{
    if (atomic_load_explicit(&cs.waiting, memory_order_relaxed) == 0)
        return;
    unsigned long self = self_id();
    if (atomic_load_explicit(&cs.owner, memory_order_relaxed) != self)
        return;
    int depth = cs.depth;
    unlock();
    /* A waiter spinning on another core takes the lock within a few pauses;
     * one that is yielding (or shares our core) needs the core. */
    for (int i = 0; i < HANDOFF_SPIN && !atomic_load_explicit(&cs.locked, memory_order_relaxed); i++)
        rch_cpu_relax();
    if (!atomic_load_explicit(&cs.locked, memory_order_relaxed))
        sched_yield();
    lock(self, depth);
}
