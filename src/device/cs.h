/*
 * The global critical section: what MPI_THREAD_MULTIPLE rests on (cs.c).
 *
 * One lock around the whole library, as MPICH's "global" critical section:
 * every MPI entry point holds it (src/mpi: RCH_MPI_CS() at the top of each),
 * so the device, the collectives and every table of the MPI layer keep
 * their single-threaded code. It is off unless MPI_Init_thread provided
 * MPI_THREAD_MULTIPLE: then an entry point costs one load of rch_dev_cs_on
 * and a branch that is never taken.
 *
 * The lock is recursive for its holder (an MPI function that calls another,
 * a user callback — reduction op, error handler, attribute copy/delete,
 * generalized-request query — that calls MPI): the holder's thread and a
 * depth live in the lock, so no thread-local storage is needed.
 *
 * Waiting: a thread that waits for a message holds the lock only while it
 * polls. The device's wait loops (progress.c) and rch_dev_progress call
 * rch_dev_cs_yield between polls; if another thread wants the lock it is
 * released, the core offered (sched_yield) and the lock taken again, so the
 * thread that can make the progress (send to self, complete a generalized
 * request, post the receive a peer waits for) gets in. At MULTIPLE waits
 * never sleep in the kernel (no futex or fd wait on the channels): a
 * sleeper holding the lock would stop every thread, and one sleeping without
 * it could sleep through an arrival another thread's poll consumed. Waits
 * spin and sched_yield instead; threads waiting for the lock do the same
 * (they never sleep in the kernel either), so a hand-off costs a context
 * switch at most.
 *
 * Rules for code under the lock: rch_dev_cs_yield may be called only where
 * the caller's own state is consistent (between polls): everything a thread
 * reached before a yield may have changed after it.
 */
#ifndef RCH_DEVICE_CS_H
#define RCH_DEVICE_CS_H

/* Non-zero while the critical section is in force (MPI_THREAD_MULTIPLE).
 * Written only by MPI_Init_thread (before other threads may call in) and by
 * MPI_Finalize (after they must have stopped calling). */
extern int rch_dev_cs_on;

void rch_dev_cs_enable(void);
void rch_dev_cs_disable(void);
/* Take / release (recursive for the holder). */
void rch_dev_cs_enter(void);
void rch_dev_cs_exit(void);
/* Let a thread that waits for the lock have it, then take it back; nothing
 * when no thread waits, or when the caller does not hold it. */
void rch_dev_cs_yield(void);

#endif
