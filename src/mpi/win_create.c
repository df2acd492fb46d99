/*
 * Creating and freeing windows: MPI_Win_create, MPI_Win_allocate,
 * MPI_Win_allocate_shared, MPI_Win_create_dynamic, MPI_Win_free, and the
 * local calls on a window's memory: MPI_Win_shared_query, MPI_Win_attach,
 * MPI_Win_detach.
 *
 * Creation, as a straight line (every member; errors of any member make all
 * of them fail alike, on the communicator's error handler — MPI raises
 * creation errors there):
 *   1. local argument checks, agreed with the others (one allreduce), so a
 *      bad argument at one rank never leaves the others waiting;
 *   2. the private communicator (a duplicate: its context id names the window);
 *   3. Win_allocate(_shared): everyone's size (allgather);
 *   4. the device's steps (device/rma.h): create (the node segment), agree,
 *      map, agree, publish, exchange what everyone published (allgather,
 *      which carries each member's status), connect.
 * Win_allocate_shared needs every member on one node: on a communicator that
 * spans nodes (real or RDMACH_VNODE_SIZE's) it fails with MPI_ERR_RMA_SHARED
 * at every member, naming two ranks on different nodes.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/win_impl.h"

/* What each member contributes at step 4. */
struct published {
    int32_t status;
    int32_t pad;
    struct rch_dev_win_info info;
};

/* Every member's status: RDMACH_OK if all are OK, else the lowest status,
 * and *who the first rank that has it. */
static rdmach_status_t agree(MPI_Comm pcomm, rdmach_status_t st, int rank, int *who)
{
    int in[2] = { st, rank }, out[2] = { 0, 0 };
    int rc = PMPI_Allreduce(in, out, 1, MPI_2INT, MPI_MINLOC, pcomm);
    if (rc != MPI_SUCCESS)
        return rch_base_err(RDMACH_ERR_OTHER, "agreeing with the other members failed");
    *who = out[1];
    return (rdmach_status_t)out[0];
}

/* The error of a failed step, raised on the creator's communicator. */
static int fail(const char *fn, struct rch_mpi_comm *c, rdmach_status_t st, int who, int me)
{
    if (who == me)
        return rch_mpi_err(c->handle, rch_mpi_class_of(st), "%s: %s", fn, rdmach_last_error());
    return rch_mpi_err(c->handle, rch_mpi_class_of(st), "%s: failed at rank %d of the communicator (%s)", fn, who,
                       rdmach_strerror(st));
}

static int local_checks(const char *fn, struct rch_mpi_comm *c, int flavor, void *base, MPI_Aint size,
                        int disp_unit, MPI_Info info, void *baseptr, MPI_Win *win, int *cls)
{
    *cls = MPI_SUCCESS;
    if (!win) {
        *cls = MPI_ERR_ARG;
        return rch_mpi_err_code(MPI_ERR_ARG, "%s: argument win is NULL", fn);
    }
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC && size < 0) {
        *cls = MPI_ERR_SIZE;
        return rch_mpi_err_code(MPI_ERR_SIZE, "%s: negative size %ld in argument size", fn, (long)size);
    }
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC && disp_unit <= 0) {
        *cls = MPI_ERR_DISP;
        return rch_mpi_err_code(MPI_ERR_DISP, "%s: disp_unit %d must be positive", fn, disp_unit);
    }
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && base == NULL) {
        *cls = MPI_ERR_BASE;
        return rch_mpi_err_code(MPI_ERR_BASE, "%s: argument base is NULL with size %ld", fn, (long)size);
    }
    if ((flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) && !baseptr) {
        *cls = MPI_ERR_ARG;
        return rch_mpi_err_code(MPI_ERR_ARG, "%s: argument baseptr is NULL", fn);
    }
    if (info != MPI_INFO_NULL && !rch_mpi_info_get(info)) {
        *cls = MPI_ERR_INFO;
        return rch_mpi_err_code(MPI_ERR_INFO, "%s: invalid info 0x%x in argument info", fn, (unsigned)info);
    }
    if (flavor == MPI_WIN_FLAVOR_SHARED && c->coll.nnodes > 1) {
        int a = 0, b = -1;
        for (int r = 1; r < c->size && b < 0; r++)
            if (c->coll.node_of[r] != c->coll.node_of[0])
                b = r;
        *cls = MPI_ERR_RMA_SHARED;
        return rch_mpi_err_code(MPI_ERR_RMA_SHARED,
                                "%s: the communicator spans %d nodes (rank %d is on world node %d, rank %d on world "
                                "node %d): shared-memory windows need every member on one node", fn, c->coll.nnodes,
                                a, rch_boot.node_of[c->world_of[a]], b, b >= 0 ? rch_boot.node_of[c->world_of[b]] : -1);
    }
    if (flavor == MPI_WIN_FLAVOR_SHARED && c->size > 1 && !rch_dev_win_shm_allowed()) {
        *cls = MPI_ERR_RMA_SHARED;
        return rch_mpi_err_code(MPI_ERR_RMA_SHARED, "%s: shared memory is switched off (RDMACH_SHM=off)", fn);
    }
    return MPI_SUCCESS;
}

static int create(const char *fn, MPI_Comm comm, int flavor, void *base, MPI_Aint size, int disp_unit,
                  MPI_Info info, void *baseptr, MPI_Win *win)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad(fn, comm);
    if (c->is_inter)
        return rch_mpi_err(comm, MPI_ERR_COMM, "%s: windows need an intracommunicator", fn);

    /* 1. arguments, agreed */
    int cls;
    int code = local_checks(fn, c, flavor, base, size, disp_unit, info, baseptr, win, &cls);
    int worst[2] = { cls, c->rank }, got[2] = { 0, 0 };
    if (PMPI_Allreduce(worst, got, 1, MPI_2INT, MPI_MAXLOC, comm) != MPI_SUCCESS)
        return rch_mpi_err(comm, MPI_ERR_OTHER, "%s: agreeing on the arguments failed", fn);
    if (got[0] != MPI_SUCCESS) {
        if (code)
            return rch_mpi_err_raise(comm, code);
        return rch_mpi_err(comm, got[0], "%s: rank %d of the communicator gave an invalid argument", fn, got[1]);
    }

    /* 2. the private communicator */
    MPI_Comm pcomm = MPI_COMM_NULL;
    err = rch_mpi_comm_split_common(fn, c, 0, c->rank, &pcomm, 0);
    if (err)
        return err;
    struct rch_mpi_comm *pc = rch_mpi_comm_get(pcomm);
    pc->errhandler = MPI_ERRORS_RETURN;

    struct rch_mpi_win *w = NULL;
    struct rch_dev_win *dw = NULL;
    uint64_t *sizes = NULL;
    struct published *all = NULL;
    rdmach_status_t st = RDMACH_OK;
    int who = c->rank;
    rch_mpi_win_install_resolver();

    /* 3. sizes */
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) {
        uint64_t mine = (uint64_t)size;
        sizes = malloc(sizeof(uint64_t) * (size_t)c->size);
        if (!sizes)
            st = rch_base_err(RDMACH_ERR_NO_MEMORY, "out of memory for %d sizes", c->size);
        st = agree(pcomm, st, c->rank, &who);
        if (st == RDMACH_OK &&
            PMPI_Allgather(&mine, 8, MPI_BYTE, sizes, 8, MPI_BYTE, pcomm) != MPI_SUCCESS)
            st = rch_base_err(RDMACH_ERR_OTHER, "exchanging the window sizes failed");
        if (st != RDMACH_OK)
            goto out_fail;
    }

    /* 4. the device */
    struct rch_mpi_win_hints hints;
    rch_mpi_win_hints_init(&hints);
    rch_mpi_win_hints_apply(&hints, info, 1);
    struct rch_dev_win_args a = {
        .id = pc->ctx, .rank = pc->rank, .size = pc->size, .world_of = pc->world_of,
        .flavor = flavor, .disp_unit = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : disp_unit,
        .base = base, .bytes = flavor == MPI_WIN_FLAVOR_CREATE ? (size_t)size : 0, .sizes = sizes,
        .noncontig = flavor == MPI_WIN_FLAVOR_SHARED && hints.noncontig,
    };
    st = agree(pcomm, rch_dev_win_create(&a, &dw), c->rank, &who);
    if (st == RDMACH_OK)
        st = agree(pcomm, rch_dev_win_map(dw), c->rank, &who);
    if (st != RDMACH_OK)
        goto out_fail;
    all = malloc(sizeof(*all) * (size_t)c->size);
    struct published mine;
    memset(&mine, 0, sizeof(mine));
    mine.status = all ? rch_dev_win_publish(dw, &mine.info)
                      : rch_base_err(RDMACH_ERR_NO_MEMORY, "out of memory for %d members", c->size);
    if (!all) {
        st = agree(pcomm, mine.status, c->rank, &who);
        goto out_fail;
    }
    if (PMPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, pcomm) != MPI_SUCCESS) {
        st = rch_base_err(RDMACH_ERR_OTHER, "exchanging the window descriptions failed");
        who = c->rank;
        goto out_fail;
    }
    for (int r = 0; r < c->size; r++) {
        if (all[r].status != RDMACH_OK) {
            st = all[r].status;
            who = r;
            goto out_fail;
        }
    }
    struct rch_dev_win_info *infos = malloc(sizeof(*infos) * (size_t)c->size);
    if (!infos) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "out of memory for %d members", c->size);
        goto out_fail;           /* local failure after the exchange: the others' windows stay usable locally */
    }
    for (int r = 0; r < c->size; r++)
        infos[r] = all[r].info;
    st = rch_dev_win_connect(dw, infos);
    free(infos);
    if (st != RDMACH_OK)
        goto out_fail;

    w = rch_mpi_win_new();
    unsigned char *ok = calloc((size_t)c->size, 1);
    if (!w || !ok) {
        free(ok);
        if (w)
            rch_mpi_win_destroy(w);
        w = NULL;
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "out of memory for the window object");
        goto out_fail;
    }
    w->ok = ok;
    w->dw = dw;
    w->c = pc;
    w->rank = pc->rank;
    w->size = pc->size;
    w->flavor = flavor;
    w->hints = hints;
    w->disp_unit = a.disp_unit;
    w->base = flavor == MPI_WIN_FLAVOR_CREATE ? base : flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM : dw->base;
    w->size_attr = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED)
        *(void **)baseptr = dw->base;
    free(sizes);
    free(all);
    *win = w->handle;
    return MPI_SUCCESS;

out_fail:
    free(sizes);
    free(all);
    rch_dev_win_free(dw);
    err = fail(fn, c, st, who, c->rank);
    PMPI_Comm_free(&pcomm);
    return err;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    RCH_MPI_CS();
    return create("MPI_Win_create", comm, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, NULL, win);
}
#pragma weak MPI_Win_create = PMPI_Win_create

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    RCH_MPI_CS();
    return create("MPI_Win_allocate", comm, MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, baseptr, win);
}
#pragma weak MPI_Win_allocate = PMPI_Win_allocate

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                             MPI_Win *win)
{
    RCH_MPI_CS();
    return create("MPI_Win_allocate_shared", comm, MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, baseptr,
                  win);
}
#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    RCH_MPI_CS();
    return create("MPI_Win_create_dynamic", comm, MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, NULL, win);
}
#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic

int PMPI_Win_free(MPI_Win *win)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_free";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!win)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument win is NULL", fn);
    struct rch_mpi_win *w = rch_mpi_win_get(*win);
    if (!w)
        return rch_mpi_win_bad(fn, *win);
    if (w->access == RCH_WIN_ACC_LOCK || w->access == RCH_WIN_ACC_LOCK_ALL || w->access == RCH_WIN_ACC_PSCW ||
        w->exposure)
        return rch_mpi_win_err(w, MPI_ERR_RMA_SYNC, "%s: the window still has an open %s epoch", fn,
                               w->exposure ? "exposure (MPI_Win_post without MPI_Win_wait)"
                               : w->access == RCH_WIN_ACC_PSCW ? "access (MPI_Win_start without MPI_Win_complete)"
                               : "passive-target (a lock still held)");
    /* Operations of a last fence epoch complete; then nobody touches any
     * member's memory once everyone is past the barrier. */
    rdmach_status_t st = rch_dev_rma_flush(w->dw, -1, 0);
    MPI_Comm pcomm = w->c->handle;
    rdmach_status_t bst = rch_coll_barrier(&w->c->coll);   /* its errors are MPI_Win_free's */
    rch_dev_win_free(w->dw);
    w->dw = NULL;
    int arc = rch_mpi_win_destroy(w);
    PMPI_Comm_free(&pcomm);
    *win = MPI_WIN_NULL;
    if (st != RDMACH_OK)
        return rch_mpi_err(MPI_COMM_NULL, st == RDMACH_ERR_INVALID_ARG ? MPI_ERR_RMA_RANGE : rch_mpi_class_of(st),
                           "%s: %s", fn, rdmach_last_error());
    if (bst != RDMACH_OK)
        return rch_mpi_err(MPI_COMM_NULL, rch_mpi_class_of(bst), "%s: %s", fn, rdmach_last_error());
    if (arc != MPI_SUCCESS)
        return rch_mpi_err_raise(MPI_COMM_NULL, arc);     /* the delete callback's code (MPI) */
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_free = PMPI_Win_free

/* One rank's memory as MPI_Win_shared_query reports it. MPI-4.1 §12.2.3
 * lets the call ask about windows of MPI_Win_create and MPI_Win_allocate as
 * well as MPI_Win_allocate_shared, and only MPI_Win_allocate_shared promises
 * shared memory: where the rank's memory cannot be accessed by load/store
 * from this process the answer is size 0 and a base the caller cannot use.
 * What this process can load and store:
 *   - its own memory (every flavor);
 *   - the memory of ranks of its node that lives in the window's node
 *     segment (Win_allocate_shared; Win_allocate when the node has two or
 *     more of the window's members, RDMACH_SHM is on and RDMACH_RMA_PATH
 *     auto: rma_win.c, wants_segment);
 * never another process's MPI_Win_create memory (its private heap) nor a
 * rank of another node (real or RDMACH_VNODE_SIZE's).
 * The base is NULL wherever there is nothing to load or store (not mapped
 * here, or size 0), except that a size-0 rank of a contiguous
 * MPI_Win_allocate_shared window keeps its place in the contiguous layout
 * (its predecessors' end: the standard's address arithmetic holds across
 * it). MPICH answers NULL the same way, and programs written for it test
 * for NULL (rma/win_shared_noncontig_put). disp_unit is the rank's own in
 * every case: the standard calls it a positive integer, and this process
 * knows it from the window's creation. */
static int query_rank(struct rch_mpi_win *w, int rank, MPI_Aint *size, int *disp_unit, void **base)
{
    const struct rch_dev_win_target *t = &w->dw->t[rank];
    void *p = rch_dev_win_shared_ptr(w->dw, rank);
    if (!p && w->flavor == MPI_WIN_FLAVOR_SHARED && t->size > 0)
        return rch_mpi_win_err(w, MPI_ERR_RMA_SHARED, "MPI_Win_shared_query: rank %d's memory is not mapped here "
                               "(argument rank)", rank);
    int contig_slot = w->flavor == MPI_WIN_FLAVOR_SHARED && !w->hints.noncontig;
    *size = p ? (MPI_Aint)t->size : 0;
    *disp_unit = (int)t->disp_unit;
    *base = p && (t->size > 0 || contig_slot) ? p : NULL;
    return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_shared_query";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (!size || !disp_unit || !baseptr)
        return rch_mpi_win_err(w, MPI_ERR_ARG, "%s: argument %s is NULL", fn,
                               !size ? "size" : !disp_unit ? "disp_unit" : "baseptr");
    /* MPI-4.1 §12.2.3 names the three flavors with memory at creation; a
     * dynamic window has none (its regions come and go with Win_attach). */
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return rch_mpi_win_err(w, MPI_ERR_RMA_FLAVOR, "%s: argument win was made by MPI_Win_create_dynamic, which "
                               "has no window memory to query", fn);
    if (rank == MPI_PROC_NULL) {
        /* The lowest rank that specified a size above 0 (§12.2.3), whether
         * or not its memory is accessible here; nobody: size 0, NULL. */
        for (int r = 0; r < w->size; r++)
            if (w->dw->t[r].size > 0)
                return query_rank(w, r, size, disp_unit, (void **)baseptr);
        *size = 0;
        *disp_unit = w->disp_unit;
        *(void **)baseptr = NULL;
        return MPI_SUCCESS;
    }
    if (rank < 0 || rank >= w->size)
        return rch_mpi_win_err(w, MPI_ERR_RANK, "%s: invalid rank %d in argument rank (window of %d)", fn, rank,
                               w->size);
    return query_rank(w, rank, size, disp_unit, (void **)baseptr);
}
#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_attach";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return rch_mpi_win_err(w, MPI_ERR_RMA_FLAVOR, "%s: only windows from MPI_Win_create_dynamic take attached "
                               "memory", fn);
    if (size < 0)
        return rch_mpi_win_err(w, MPI_ERR_SIZE, "%s: negative size %ld in argument size", fn, (long)size);
    if (!base && size > 0)
        return rch_mpi_win_err(w, MPI_ERR_BASE, "%s: argument base is NULL with size %ld", fn, (long)size);
    rdmach_status_t st = rch_dev_win_attach(w->dw, base, (size_t)size);
    if (st != RDMACH_OK)
        return rch_mpi_win_err(w, st == RDMACH_ERR_INVALID_ARG ? MPI_ERR_RMA_ATTACH : rch_mpi_class_of(st), "%s: %s",
                               fn, rdmach_last_error());
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_attach = PMPI_Win_attach

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Win_detach";
    struct rch_mpi_win *w = rch_mpi_win_get(win);
    if (!w)
        return rch_mpi_win_bad(fn, win);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return rch_mpi_win_err(w, MPI_ERR_RMA_FLAVOR, "%s: only windows from MPI_Win_create_dynamic have attached "
                               "memory", fn);
    rdmach_status_t st = rch_dev_win_detach(w->dw, base);
    if (st != RDMACH_OK)
        return rch_mpi_win_err(w, MPI_ERR_RMA_ATTACH, "%s: %s", fn, rdmach_last_error());
    return MPI_SUCCESS;
}
#pragma weak MPI_Win_detach = PMPI_Win_detach
