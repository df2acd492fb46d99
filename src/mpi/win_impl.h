/*
 * One-sided communication in the MPI layer (src/mpi/win_*.c): the window
 * object, its error reporting, and the epoch rules. The engine underneath is
 * the device's (device/rma.h), which moves contiguous bytes; this layer owns
 * datatypes, arguments and epochs.
 *
 *   win_obj.c     handles, error handlers, attributes, names, info, group
 *   win_create.c  Win_create/allocate/allocate_shared/create_dynamic,
 *                 shared_query, attach/detach, free
 *   win_sync.c    fence, lock/unlock(_all), flush*, sync, post/start/complete/wait/test
 *   win_ops.c     Put, Get, Accumulate, Get_accumulate, Fetch_and_op,
 *                 Compare_and_swap and the request-based forms
 *
 * Epochs (MPI-3.1 §11.5). `access` says which kind of access epoch is open;
 * an operation on target t is allowed when `all_ok` (fence epoch, lock_all)
 * or ok[t] (t locked, or in the start group), else MPI_ERR_RMA_SYNC names the
 * call, the target and what is missing. A fence opens a fence epoch that a
 * lock, lock_all or start may replace only if no operation was issued in it
 * (MPICH's rule: FENCE_ISSUED vs FENCE_GRANTED). The exposure epoch (post ..
 * wait) is tracked apart.
 *
 * The window's communicator is a private duplicate of the creator's (its
 * context id names the window on the wire and carries the window's
 * collectives), with MPI_ERRORS_RETURN: errors found through it are raised
 * on the window's own handler.
 */
#ifndef RCH_MPI_WIN_IMPL_H
#define RCH_MPI_WIN_IMPL_H

#include "device/rma.h"
#include "mpi/mpi_impl.h"

enum { RCH_WIN_ACC_NONE = 0, RCH_WIN_ACC_FENCE, RCH_WIN_ACC_LOCK, RCH_WIN_ACC_LOCK_ALL, RCH_WIN_ACC_PSCW };


/* The hints of MPI-4.0 §12.2.1 in effect (MPI_Win_get_info returns them):
 * the creation's info, updated by MPI_Win_set_info; a value the standard
 * does not define leaves the previous one. None changes what the engine
 * does (it keeps accumulates ordered and takes locks whatever they say),
 * but the user's assertions are what the window runs under. */
struct rch_mpi_win_hints {
    unsigned char no_locks, same_size, same_disp_unit, noncontig;
    unsigned char acc_ordering;      /* RCH_WIN_ORD_* bits; 0: "none" */
    unsigned char acc_ops_no_op;     /* same_op_no_op (1) or same_op (0) */
};
enum { RCH_WIN_ORD_RAR = 1, RCH_WIN_ORD_RAW = 2, RCH_WIN_ORD_WAR = 4, RCH_WIN_ORD_WAW = 8 };

struct rch_mpi_win {
    MPI_Win handle;
    struct rch_dev_win *dw;
    struct rch_mpi_comm *c;          /* the private communicator */
    int rank, size;
    /* the values MPI_Win_get_attr returns the addresses of */
    void *base;
    MPI_Aint size_attr;
    int disp_unit;
    int flavor;                      /* MPI_WIN_FLAVOR_* */
    int model;                       /* MPI_WIN_UNIFIED */
    MPI_Errhandler errhandler;
    struct rch_mpi_win_hints hints;
    char name[MPI_MAX_OBJECT_NAME];
    struct rch_mpi_attr *attrs;
    /* epochs */
    int access;                      /* RCH_WIN_ACC_* */
    int fence_ops;                   /* operations since the last fence */
    int all_ok;                      /* every target may be accessed */
    unsigned char *ok;               /* [size]: this target may be accessed */
    int nlocked;                     /* LOCK: targets locked */
    int *start_ranks, nstart;        /* PSCW access group, window ranks */
    int exposure;                    /* post issued, wait/test not yet done */
    int *post_ranks, npost;          /* PSCW exposure group */
};

/* ---- win_obj.c ---- */
/* The window of a handle, or NULL (MPI_WIN_NULL, freed, garbage, MPI not running). */
struct rch_mpi_win *rch_mpi_win_get(MPI_Win win);
/* Report an invalid window argument (on MPI_COMM_WORLD's handler). */
int rch_mpi_win_bad(const char *fn, MPI_Win win);
/* Raise an error on the window's handler: returns the code. */
int rch_mpi_win_err(struct rch_mpi_win *w, int errclass, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Raise an existing code (e.g. from the private communicator) on the window. */
int rch_mpi_win_raise(struct rch_mpi_win *w, int code);
/* A device status from a synchronisation or operation: MPI_SUCCESS or the
 * raised code (target-reported range errors are MPI_ERR_RMA_RANGE). */
int rch_mpi_win_status(struct rch_mpi_win *w, const char *fn, rdmach_status_t st);
/* A new window object with a handle (fields zeroed but the handle), or NULL. */
struct rch_mpi_win *rch_mpi_win_new(void);
/* Forget the handle and free the object (attributes deleted first). */
int rch_mpi_win_destroy(struct rch_mpi_win *w);
/* The defaults, then what info (may be MPI_INFO_NULL) sets; `creating`:
 * alloc_shared_noncontig too (it cannot change after creation). */
void rch_mpi_win_hints_init(struct rch_mpi_win_hints *h);
void rch_mpi_win_hints_apply(struct rch_mpi_win_hints *h, MPI_Info info, int creating);
/* Window ranks of a group's members: ranks[] (n = group size). MPI_ERR_GROUP
 * (raised, naming fn) if the group is invalid or has a non-member. */
int rch_mpi_win_group_ranks(struct rch_mpi_win *w, const char *fn, MPI_Group group, int **ranks, int *n);

/* ---- win_sync.c ---- */
/* Is an access epoch on target open? MPI_SUCCESS or MPI_ERR_RMA_SYNC raised. */
int rch_mpi_win_check_access_slow(struct rch_mpi_win *w, const char *fn, int target);
static inline int rch_mpi_win_check_access(struct rch_mpi_win *w, const char *fn, int target)
{
    if (RCH_LIKELY(w->all_ok || w->ok[target])) {
        w->fence_ops++;
        return MPI_SUCCESS;
    }
    return rch_mpi_win_check_access_slow(w, fn, target);
}
/* For request-based operations: a passive-target epoch on target? */
int rch_mpi_win_check_passive(struct rch_mpi_win *w, const char *fn, int target);

/* ---- win_ops.c ---- */
/* The target side's kernel lookup (device/rma.h), installed at window creation. */
void rch_mpi_win_install_resolver(void);

#endif
