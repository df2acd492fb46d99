/*
 * A short scheduler slice while other processes compete for the node's cores.
 *
 * A rank that shares its core with a CPU-bound process (another job, a
 * daemon, a build: the OS noise of docs/SCALE.md) waits for its messages
 * behind that process's slices. A yielding rank gets the core back when
 * the other's slice ends, a sleeping one when it is woken and the running
 * process's slice allows, and every hop of a message pays it: 4 ranks
 * passing a token round a ring on 2 cores beside 2 CPU-bound loops took
 * 405-450 us a hop (Open MPI 928, MPICH 3144), and a ScaLAPACK tester of
 * one-element broadcasts (xcevc, 0.45 s alone) did not finish in 90 s
 * (Open MPI: 99.6 s). Linux 6.12 and later (EEVDF) let a task ask for a
 * shorter slice (sched_setattr's sched_runtime for SCHED_OTHER, at least
 * 100 us): a yield then postpones its deadline by that much only, and a
 * woken task with a shorter slice preempts the running one (PREEMPT_SHORT).
 * With RDMACH_WAKE_SLICE_US (100) the ring took 42-48 us a hop and xcevc
 * 15.4-16.1 s. (Loops of another session cost the ring little: autogroup
 * shares the cores between sessions first, as CPU cgroups do between jobs;
 * these figures are for loops of the job's own session or cgroup, as tests
 * that one ctest runs side by side.)
 *
 * Not always: among the job's own ranks (4 on 2 cores, NAS CG) a short
 * slice cost CG 5-7%, every rank preempting the one that computes beside
 * it as soon as its message comes. So it is asked for only while others
 * compete: after a yield that kept the rank off its core longer than
 * RDMACH_YIELD_LONG_US (500 us), the rank reads the kernel's count of
 * runnable tasks (/proc/loadavg, at most every 10 ms); more than the job's
 * ranks on the host means work that is not the job's, and the rank takes
 * the short slice for HOLD seconds from then; each wait that ends after
 * that gives the thread its own slice back (rch_dev_slice_end).
 *
 * sched_getattr reports a SCHED_OTHER thread's slice (the default, 1.4 ms
 * here, or one of its own) from 6.12 on, 0 before: with 0, or a slice
 * already no longer than ours, or after any failure (seccomp, a policy
 * other than SCHED_OTHER), nothing is changed again. The first change is
 * checked by reading the slice back.
 *
 * The slice is a thread's: the thread that took it gives it back (at the end
 * of one of its waits, or at MPI_Finalize's close of the device); a wait of
 * another thread (MPI_THREAD_SERIALIZED) leaves it alone.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/dev_impl.h"

#define CHECK_EVERY 0.010   /* seconds between two reads of the runnable count */
#define HOLD 0.200          /* seconds the short slice stays after others were seen */

struct slice_attr {   /* struct sched_attr (linux/sched/types.h), first fields */
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
};

enum { SLICE_UNKNOWN, SLICE_ON, SLICE_OFF };
static int state = SLICE_UNKNOWN;
static struct slice_attr mine;     /* the thread's attributes (its slice in sched_runtime) */
static double checked, until;      /* last read of the runnable count; the short slice's end */
static int loadavg = -1;
static pthread_t owner;            /* the thread that has the short slice */
int rch_dev_slice_now;             /* the short slice is in effect */

static int get_attr(struct slice_attr *a)
{
    memset(a, 0, sizeof(*a));
    return (int)syscall(SYS_sched_getattr, 0, a, (unsigned)sizeof(*a), 0);
}

/* The thread's slice to ns, its other attributes as they are now (its nice
 * value may have changed since the first look); of the flags only
 * reset-on-fork is kept: the others need fields this struct does not have. */
static int set_runtime(uint64_t ns)
{
    struct slice_attr a;
    if (get_attr(&a) != 0)
        return -1;
    a.size = sizeof(a);
    a.sched_flags &= 0x01;   /* SCHED_FLAG_RESET_ON_FORK */
    a.sched_runtime = ns;
    return (int)syscall(SYS_sched_setattr, 0, &a, 0);
}

/* Runnable tasks on the host now (/proc/loadavg's "R/T"), -1 if unknown. */
static int runnable(void)
{
    if (loadavg < 0 && (loadavg = open("/proc/loadavg", O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    char b[128];
    ssize_t n = pread(loadavg, b, sizeof(b) - 1, 0);
    if (n <= 0)
        return -1;
    b[n] = '\0';
    char *p = b;
    for (int f = 0; f < 3 && p; f++)      /* past the three averages */
        if ((p = strchr(p, ' ')) != NULL)
            p++;
    if (p == NULL)
        return -1;
    char *end;
    long r = strtol(p, &end, 10);
    return end != p && *end == '/' && r >= 0 && r < 1 << 20 ? (int)r : -1;
}

static void go_short(uint64_t ns)
{
    if (state == SLICE_UNKNOWN) {
        state = SLICE_OFF;
        if (get_attr(&mine) != 0 || mine.sched_policy != SCHED_OTHER || mine.sched_runtime <= ns)
            return;
        struct slice_attr back;
        if (set_runtime(ns) != 0 || get_attr(&back) != 0 || back.sched_runtime != ns) {
            set_runtime(mine.sched_runtime);
            RCH_DEBUG("dev", "wake slice: the kernel keeps no slice for SCHED_OTHER; waits keep the default");
            return;
        }
        state = SLICE_ON;
        rch_dev_slice_now = 1;
        owner = pthread_self();
        return;
    }
    if (set_runtime(ns) != 0) {
        state = SLICE_OFF;
    } else {
        rch_dev_slice_now = 1;
        owner = pthread_self();
    }
}

void rch_dev_slice_long_yield(void)
{
    uint64_t ns = (uint64_t)rch_tun.wake_slice_us * 1000u;
    if (state == SLICE_OFF || ns == 0)
        return;
    double now = rch_base_wtime();
    if (now - checked < CHECK_EVERY)
        return;
    checked = now;
    int r = runnable();
    if (r < 0 || r <= rch_dev.host_ranks)
        return;
    until = now + HOLD;
    if (!rch_dev_slice_now)
        go_short(ns);
}

static void give_back(void)
{
    rch_dev_slice_now = 0;
    if (state == SLICE_ON && set_runtime(mine.sched_runtime) != 0)
        state = SLICE_OFF;
}

void rch_dev_slice_expire(void)
{
    if (rch_base_wtime() >= until && pthread_equal(owner, pthread_self()))
        give_back();
}

void rch_dev_slice_fini(void)
{
    if (rch_dev_slice_now && pthread_equal(owner, pthread_self()))
        give_back();
    if (loadavg >= 0)
        close(loadavg);
    loadavg = -1;
    until = checked = 0;
}
