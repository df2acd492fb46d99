/*
 * Synchronisation calls: fence; lock/unlock, lock_all/unlock_all, flush*,
 * sync (passive target); post/start/complete/wait/test (general active
 * target). Each checks that it is called in the epoch it belongs to
 * (MPI_ERR_RMA_SYNC naming what is open and what is missing), then asks the
 * device (device/rma.h) to do the work.
 */
#include <stdlib.h>
#include "mpi/win_impl.h"

#define FENCE_ASSERTS (MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)
#define POST_ASSERTS  (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)

static const char *epoch_name(const struct rch_mpi_win *w)
{
    switch (w->access) {
    case RCH_WIN_ACC_FENCE:    return "a fence epoch";
    case RCH_WIN_ACC_LOCK:     return "a passive-target epoch (MPI_Win_lock)";
    case RCH_WIN_ACC_LOCK_ALL: return "a passive-target epoch (MPI_Win_lock_all)";
    case RCH_WIN_ACC_PSCW:     return "an access epoch (MPI_Win_start)";
    default:                   return "no epoch";
    }
}

int rch_mpi_win_check_access_slow(struct rch_mpi_win *w, const char *fn, int target)
{
    if (w->access == RCH_WIN_ACC_LOCK)
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: target rank %d is not locked (MPI_Win_lock it first)", fn,
                               target);
    if (w->access == RCH_WIN_ACC_PSCW)
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: target rank %d is not in the group of MPI_Win_start", fn,
                               target);
    return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC,
                           "%s: no access epoch is open on target rank %d (call MPI_Win_fence, MPI_Win_lock, "
                           "MPI_Win_lock_all or MPI_Win_start first)", fn, target);
}

int rch_mpi_win_check_passive(struct rch_mpi_win *w, const char *fn, int target)
{
    if (w->access == RCH_WIN_ACC_LOCK_ALL || (w->access == RCH_WIN_ACC_LOCK && w->ok[target]))
        return MPI_SUCCESS;
    return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC,
                           "%s: request-based operations need a passive-target epoch on target rank %d (the window "
                           "has %s)", fn, target, epoch_name(w));
}

/* May a new access epoch (lock, lock_all, start) open? A fence epoch in
 * which nothing was issued gives way to it. */
static int can_open(struct rch_mpi_win *w, const char *fn)
{
    if (w->access == RCH_WIN_ACC_NONE || (w->access == RCH_WIN_ACC_FENCE && w->fence_ops == 0)) {
        w->access = RCH_WIN_ACC_NONE;
        w->all_ok = 0;
        return MPI_SUCCESS;
    }
    return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: the window already has %s%s", fn, epoch_name(w),
                           w->access == RCH_WIN_ACC_FENCE ? " with operations in it (close it with a fence)" : "");
}

static int check_rank(struct rch_mpi_win *w, const char *fn, int rank)
{
    if (rank < 0 || rank >= w->size)
        return rch_mpi_win_err(w, MPI_ERR_RANK, "%s: invalid rank %d in argument rank (window of %d)", fn, rank,
                               w->size);
    return MPI_SUCCESS;
}

/* ---- fence ---- */

int PMPI_Win_fence(int assert, MPI_Win win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_fence";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (assert & ~FENCE_ASSERTS)
        return rch_mpi_win_err(w, MPI_ERR_ASSERT, "%s: invalid assert 0x%x (fence takes MPI_MODE_NOSTORE, NOPUT, "
                               "NOPRECEDE, NOSUCCEED)", fn, (unsigned)assert);
    if (w->access == RCH_WIN_ACC_LOCK || w->access == RCH_WIN_ACC_LOCK_ALL || w->access == RCH_WIN_ACC_PSCW)
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: the window has %s; close it before a fence", fn,
                               epoch_name(w));
    if (w->exposure)
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: the window has an exposure epoch (MPI_Win_post without "
                               "MPI_Win_wait)", fn);
    rdmach_status_t st = rch_dev_rma_flush(w->dw, -1, 0);
    /* Everyone's operations on my memory are complete once all are past this.
     * (The barrier itself, not MPI_Barrier: its errors are the fence's.) */
    rdmach_status_t bst = rch_coll_barrier(&w->c->coll);
    if (assert & MPI_MODE_NOSUCCEED) {
        w->access = RCH_WIN_ACC_NONE;
        w->all_ok = 0;
    } else {
        w->access = RCH_WIN_ACC_FENCE;
        w->all_ok = 1;
    }
    w->fence_ops = 0;
    if (st != RDMACH_OK)
        return rch_mpi_win_status(w, fn, st);
    if (bst != RDMACH_OK)
        return rch_mpi_win_err(w, rch_mpi_class_of(bst), "%s: %s", fn, rdmach_last_error());
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_fence = PMPI_Win_fence

/* ---- passive target ---- */

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_lock";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return rch_mpi_win_err(w, MPI_ERR_LOCKTYPE, "%s: invalid lock_type %d (MPI_LOCK_EXCLUSIVE or "
                               "MPI_LOCK_SHARED)", fn, lock_type);
    if (assert & ~MPI_MODE_NOCHECK)
        return rch_mpi_win_err(w, MPI_ERR_ASSERT, "%s: invalid assert 0x%x (lock takes MPI_MODE_NOCHECK)", fn,
                               (unsigned)assert);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int err = check_rank(w, fn, rank);
    if (err)
        return err;
    if (w->access == RCH_WIN_ACC_LOCK) {
        if (w->ok[rank])
            return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: target rank %d is already locked by this rank", fn, rank);
    } else if ((err = can_open(w, fn))) {
        return err;
    }
    if (!(assert & MPI_MODE_NOCHECK)) {
        rdmach_status_t st = rch_dev_rma_lock(w->dw, rank, lock_type == MPI_LOCK_EXCLUSIVE);
        if (st != RDMACH_OK)
            return rch_mpi_win_status(w, fn, st);
    }
    w->access = RCH_WIN_ACC_LOCK;
    w->ok[rank] = 1;
    w->nlocked++;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_lock = PMPI_Win_lock

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_unlock";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int err = check_rank(w, fn, rank);
    if (err)
        return err;
    if (w->access != RCH_WIN_ACC_LOCK || !w->ok[rank])
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: target rank %d is not locked (the window has %s)", fn, rank,
                               epoch_name(w));
    rdmach_status_t st = rch_dev_rma_unlock(w->dw, rank);
    w->ok[rank] = 0;
    if (--w->nlocked == 0)
        w->access = RCH_WIN_ACC_NONE;
    return rch_mpi_win_status(w, fn, st);
}
#pragma weak MPI_Win_unlock = PMPI_Win_unlock

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_lock_all";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (assert & ~MPI_MODE_NOCHECK)
        return rch_mpi_win_err(w, MPI_ERR_ASSERT, "%s: invalid assert 0x%x (lock_all takes MPI_MODE_NOCHECK)", fn,
                               (unsigned)assert);
    int err = can_open(w, fn);
    if (err)
        return err;
    if (!(assert & MPI_MODE_NOCHECK)) {
        rdmach_status_t st = rch_dev_rma_lock_all(w->dw);
        if (st != RDMACH_OK)
            return rch_mpi_win_status(w, fn, st);
    }
    w->access = RCH_WIN_ACC_LOCK_ALL;
    w->all_ok = 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all

int PMPI_Win_unlock_all(MPI_Win win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_unlock_all";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (w->access != RCH_WIN_ACC_LOCK_ALL)
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: no MPI_Win_lock_all epoch is open (the window has %s)", fn,
                               epoch_name(w));
    /* Locks not taken (MPI_MODE_NOCHECK) are not released: the device knows. */
    rdmach_status_t st = rch_dev_rma_unlock_all(w->dw);
    w->access = RCH_WIN_ACC_NONE;
    w->all_ok = 0;
    return rch_mpi_win_status(w, fn, st);
}
#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all

static int flush_common(const char *fn, MPI_Win win, int all, int rank, int local)
{
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (!all) {
        if (rank == MPI_PROC_NULL)
            return MPI_SUCCESS;
        int err = check_rank(w, fn, rank);
        if (err)
            return err;
        if (!(w->access == RCH_WIN_ACC_LOCK_ALL || (w->access == RCH_WIN_ACC_LOCK && w->ok[rank])))
            return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: no passive-target epoch is open on rank %d (the window "
                                   "has %s)", fn, rank, epoch_name(w));
    } else if (w->access != RCH_WIN_ACC_LOCK_ALL && w->access != RCH_WIN_ACC_LOCK) {
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: no passive-target epoch is open (the window has %s)", fn,
                               epoch_name(w));
    }
    return rch_mpi_win_status(w, fn, rch_dev_rma_flush(w->dw, all ? -1 : rank, local));
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    RCH_MPI_CS();
    return flush_common("MPI_Win_flush", win, 0, rank, 0);
}
#pragma weak MPI_Win_flush = PMPI_Win_flush

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    RCH_MPI_CS();
    return flush_common("MPI_Win_flush_local", win, 0, rank, 1);
}
#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local

int PMPI_Win_flush_all(MPI_Win win)
{
    RCH_MPI_CS();
    return flush_common("MPI_Win_flush_all", win, 1, 0, 0);
}
#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all

int PMPI_Win_flush_local_all(MPI_Win win)
{
    RCH_MPI_CS();
    return flush_common("MPI_Win_flush_local_all", win, 1, 0, 1);
}
#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all

int PMPI_Win_sync(MPI_Win win)
{
    RCH_MPI_CS();
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad("MPI_Win_sync", win);
    /* The unified model: public and private copies are one memory; order it. */
    rch_dev_rma_sync(w->dw);
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_sync = PMPI_Win_sync

/* ---- post / start / complete / wait ---- */

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_post";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (assert & ~POST_ASSERTS)
        return rch_mpi_win_err(w, MPI_ERR_ASSERT, "%s: invalid assert 0x%x (post takes MPI_MODE_NOCHECK, NOSTORE, "
                               "NOPUT)", fn, (unsigned)assert);
    if (w->exposure)
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: an exposure epoch is already open (MPI_Win_wait it first)",
                               fn);
    int *ranks, n;
    int err = rch_mpi_win_group_ranks(w, fn, group, &ranks, &n);
    if (err)
        return err;
    if (!(assert & MPI_MODE_NOCHECK)) {
        rdmach_status_t st = rch_dev_rma_post(w->dw, ranks, n);
        if (st != RDMACH_OK) {
            free(ranks);
            return rch_mpi_win_status(w, fn, st);
        }
    }
    free(w->post_ranks);
    w->post_ranks = ranks;
    w->npost = n;
    w->exposure = 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_post = PMPI_Win_post

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_start";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (assert & ~MPI_MODE_NOCHECK)
        return rch_mpi_win_err(w, MPI_ERR_ASSERT, "%s: invalid assert 0x%x (start takes MPI_MODE_NOCHECK)", fn,
                               (unsigned)assert);
    int err = can_open(w, fn);
    if (err)
        return err;
    int *ranks, n;
    err = rch_mpi_win_group_ranks(w, fn, group, &ranks, &n);
    if (err)
        return err;
    if (!(assert & MPI_MODE_NOCHECK)) {
        rdmach_status_t st = rch_dev_rma_start(w->dw, ranks, n);
        if (st != RDMACH_OK) {
            free(ranks);
            return rch_mpi_win_status(w, fn, st);
        }
    }
    for (int i = 0; i < n; i++)
        w->ok[ranks[i]] = 1;
    free(w->start_ranks);
    w->start_ranks = ranks;
    w->nstart = n;
    w->access = RCH_WIN_ACC_PSCW;
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_start = PMPI_Win_start

int PMPI_Win_complete(MPI_Win win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_complete";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (w->access != RCH_WIN_ACC_PSCW)
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: no MPI_Win_start epoch is open (the window has %s)", fn,
                               epoch_name(w));
    rdmach_status_t st = rch_dev_rma_complete(w->dw, w->start_ranks, w->nstart);
    for (int i = 0; i < w->nstart; i++)
        w->ok[w->start_ranks[i]] = 0;
    free(w->start_ranks);
    w->start_ranks = NULL;
    w->nstart = 0;
    w->access = RCH_WIN_ACC_NONE;
    return rch_mpi_win_status(w, fn, st);
}
#pragma weak MPI_Win_complete = PMPI_Win_complete

static int wait_common(const char *fn, MPI_Win win, int block, int *flag)
{
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (RCH_UNLIKELY(!w))
        return rch_mpi_win_bad(fn, win);
    if (!w->exposure)
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: no exposure epoch is open (MPI_Win_post first)", fn);
    int done = 0;
    rdmach_status_t st = rch_dev_rma_wait(w->dw, w->post_ranks, w->npost, block, &done);
    if (done || st != RDMACH_OK) {
        w->exposure = 0;
        free(w->post_ranks);
        w->post_ranks = NULL;
        w->npost = 0;
    }
    if (flag)
        *flag = done;
    return rch_mpi_win_status(w, fn, st);
}

int PMPI_Win_wait(MPI_Win win)
{
    RCH_MPI_CS();
    return wait_common("MPI_Win_wait", win, 1, NULL);
}
#pragma weak MPI_Win_wait = PMPI_Win_wait

int PMPI_Win_test(MPI_Win win, int *flag)
{
    RCH_MPI_CS();
    if (!flag) {
        struct rch_mpi_win *w = rch_mpi_win_get(win);
        if (!w)
            return rch_mpi_win_bad("MPI_Win_test", win);
        return rch_mpi_win_err(w, MPI_ERR_ARG, "MPI_Win_test: argument flag is NULL");
    }
    return wait_common("MPI_Win_test", win, 0, flag);
}
#pragma weak MPI_Win_test = PMPI_Win_test
