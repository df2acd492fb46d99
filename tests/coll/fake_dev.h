/*
 * A device for testing src/coll without processes: every rank is a thread
 * of one process, the device API of src/device/dev.h is implemented over
 * per-rank queues under one lock, with MPI's matching rules (posted and
 * unexpected queues, wildcards, non-overtaking, truncation).
 *
 * Messages up to `eager_max` bytes complete at the sender at once (eager);
 * larger ones only when the receiver matches them (rendezvous), so an
 * algorithm that relies on buffering deadlocks here as it would on the real
 * device. A deadlock is detected, not waited out: when every live rank is
 * waiting and no wait can be satisfied, all waits fail with
 * RDMACH_ERR_OTHER and fake_dev_run reports it.
 */
#ifndef TESTS_COLL_FAKE_DEV_H
#define TESTS_COLL_FAKE_DEV_H

#include <stddef.h>

/* Run fn(world_rank, arg) on `nranks` threads over a fresh fake device.
 * Returns 0, or -1 if a deadlock was detected. */
int fake_dev_run(int nranks, size_t eager_max, void (*fn)(int world_rank, void *arg), void *arg);

/* Messages still queued (unexpected, or posted receives) after the last
 * run: a correct collective leaves none. */
int fake_dev_leftovers(void);

/* A reduction for the tests: affine maps x -> a·x + b (mod 2^32), element
 * pairs (a, b) of uint32_t, under composition — associative and not
 * commutative, so any reordering of ranks changes the result.
 * in op inout = "apply in, then inout" = (a_in·a_io, a_io·b_in + b_io). */
void fake_affine_op(const void *in, void *inout, size_t n, void *arg);

#endif
