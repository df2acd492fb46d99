/*
 * Non-blocking accesses (MPI_File_i*, and the split collectives' _begin):
 * the call checks the arguments, packs the memory side, takes the position
 * (moving the individual or shared pointer, MPI-4.1 14.4.3) and returns; the
 * transfer is done by a progress hook of the device, a bounded slice per
 * pass (RCH_IO_NB_SLICE bytes), so it advances inside any MPI_Test/Wait or
 * blocking call of this rank and never at the call itself.
 *
 * A collective one (iread_all, iwrite_at_all, split collectives) goes
 * through collective buffering when the blocking call would
 * (rch_io_coll_applies): the same two-phase steps (io_coll.c), whose
 * collectives are non-blocking ones on the file's acomm, a step run by the
 * hook each time the previous step's collective completes. Otherwise, or
 * when the ranks' ranges turn out not to interleave, it moves its own
 * pieces as an independent access would; writes then lock each slice's
 * byte range, so that slices of several ranks whose pieces interleave never
 * overwrite each other's bytes through a sieving window. When its part is
 * done the ranks agree on the outcome with a non-blocking allreduce on
 * acomm, so an error on one rank fails the request on every rank and none
 * waits for a rank that failed.
 *
 * Collectives on acomm must start in the same order on every rank: the
 * collective accesses of a file take turns in posting order (MPI's order of
 * collectives on a file). The access whose turn it is (seq == nb_agreed)
 * runs its two-phase steps, if any, and passes the turn on when it starts
 * its agreement.
 *
 * The request is a generalized request: its query function reports the
 * bytes and the error code (raised once on the file's error handler); its
 * handle reports through a communicator whose handler returns, so the file's
 * handler, not a communicator's, decides.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "device/dev.h"
#include "io/io_impl.h"

/* Bytes one hook pass moves for one access: large enough that the system
 * calls dominate nothing, small enough that a pass stays short. */
#define RCH_IO_NB_SLICE ((MPI_Offset)4 << 20)
#define SLICE_PIECES 1024

enum { JOB_CB, JOB_IO, JOB_READY, JOB_AGREE, JOB_DONE };

struct job {
    struct job *next;
    struct ADIOI_FileD *f;
    struct rch_io_op op;
    struct rch_mpi_type *t;        /* retained: the user may free the datatype meanwhile */
    char *data;
    MPI_Offset pos, nbytes, done, got;
    struct rch_io_piece *p;        /* the pieces, and how far they are done */
    int n, pi;
    MPI_Offset pdone;
    int e;                         /* errno of this rank's part */
    int code;                      /* the outcome (an MPI error code) */
    int state;
    unsigned seq;                  /* collective: its place in the file's order */
    int mine[2], all[2];           /* the agreement: { class, rank } MAXLOC */
    MPI_Request areq, req;
    int raised;
    struct rch_io_cb *cb;          /* two-phase steps (JOB_CB), in the job's allocation */
};

static struct job *jobs, **jobs_tail = &jobs;
static int hooked;
static int posting;                /* job_post is preparing a job (its collectives run the hook) */
static MPI_Comm req_comm = MPI_COMM_NULL;   /* the requests' communicator: handler MPI_ERRORS_RETURN */

static void job_free(struct job *j)
{
    free(j->p);
    if (j->t)
        rch_mpi_type_release(j->t);
    free(j);
}

static int query_fn(void *extra, MPI_Status *status)
{
    struct job *j = extra;
    rch_mpi_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG,
                       j->code ? 0 : (size_t)rch_io_native_bytes(&j->op, j->t, j->got), 0);
    if (j->code && !j->raised) {
        j->raised = 1;
        /* the file's handler, while the file is open */
        MPI_File fh = j->f;
        if (rch_io_file_get(fh) == j->f)
            rch_io_raise(j->f, j->code);
    }
    return j->code;
}

static int free_fn(void *extra)
{
    job_free(extra);
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;   /* I/O is not cancelled (MPI-4.1 14.4.3 allows it) */
}

/* One slice of j's pieces: at most RCH_IO_NB_SLICE bytes. */
static void io_slice(struct job *j)
{
    struct ADIOI_FileD *f = j->f;
    int w = j->op.is_write;
    if (f->atomic) {
        /* atomic mode: the whole access under one lock, in one go */
        j->e = rch_io_indep(f, w, j->pos, j->data, j->nbytes, &j->got);
        j->pi = j->n;
        return;
    }
    struct rch_io_piece b[SLICE_PIECES];
    int nb = 0;
    MPI_Offset bytes = 0, lo = 0, hi = 0;
    while (nb < SLICE_PIECES && j->pi < j->n && bytes < RCH_IO_NB_SLICE) {
        struct rch_io_piece q = { j->p[j->pi].off + j->pdone, j->p[j->pi].len - j->pdone };
        if (q.len > RCH_IO_NB_SLICE - bytes) {
            q.len = RCH_IO_NB_SLICE - bytes;
            j->pdone += q.len;
        } else {
            j->pi++;
            j->pdone = 0;
        }
        if (!nb || q.off < lo)
            lo = q.off;
        if (!nb || q.off + q.len > hi)
            hi = q.off + q.len;
        b[nb++] = q;
        bytes += q.len;
    }
    int lock = w && j->op.collective;
    MPI_Offset got = 0;
    if (lock)
        j->e = rch_io_lock(f->fd, F_WRLCK, lo, hi - lo);
    if (!j->e)
        j->e = rch_io_access(f, w, b, nb, j->data + j->done, !lock, &got);
    if (lock)
        rch_io_lock(f->fd, F_UNLCK, lo, hi - lo);
    j->done += bytes;
    j->got += w ? bytes : got;
    if (!w && got < bytes)
        j->pi = j->n;   /* the end of the file: nothing after it */
    if (j->e)
        j->pi = j->n;
}

/* This rank's part is done: the read's data to the user, the local code. */
static void local_done(struct job *j)
{
    struct ADIOI_FileD *f = j->f;
    if (j->data) {
        int ue = rch_io_unpack_out(f, &j->op, j->t, j->data, j->nbytes, j->got);
        j->e = j->e ? j->e : ue;
        j->data = NULL;
    }
    if (j->e && !j->code)
        j->code = rch_io_errno_code(j->op.fn, f, j->e);
    j->state = j->op.collective ? JOB_READY : JOB_DONE;
}

static int agree_start(struct job *j)
{
    struct ADIOI_FileD *f = j->f;
    j->mine[0] = j->code ? RCH_MPI_ERR_CLASS(j->code) : 0;
    j->mine[1] = j->code ? f->rank : -1;
    if (PMPI_Iallreduce(j->mine, j->all, 1, MPI_2INT, MPI_MAXLOC, f->acomm, &j->areq) != MPI_SUCCESS) {
        j->code = j->code ? j->code
                          : rch_mpi_err_code(MPI_ERR_INTERN, "%s: file '%s': agreement on the outcome failed",
                                             j->op.fn, f->name);
        j->areq = MPI_REQUEST_NULL;
        return 0;
    }
    return 1;
}

int rch_io_req_done(MPI_Request req)
{
    struct rch_mpi_req *e = rch_mpi_req_get(req);
    return !(e && e->dreq && !rch_mpi_dreq_done(e->dreq));
}

/* The two-phase steps are done: the outcome, or (no interleaving) the
 * independent path's slices. */
static void cb_done(struct job *j)
{
    MPI_Offset got;
    int indep;
    int e = rch_io_cb_result(j->cb, &got, &indep);
    j->e = j->e ? j->e : e;
    if (indep && !j->e) {
        if (rch_io_view_pieces(j->f, j->pos, j->nbytes, &j->p, &j->n) != MPI_SUCCESS)
            j->e = ENOMEM;
        else {
            j->state = JOB_IO;
            return;
        }
    }
    j->got = got;
    j->pi = j->n;
    local_done(j);
}

static int agree_done(struct job *j)
{
    if (!rch_io_req_done(j->areq))
        return 0;
    PMPI_Request_free(&j->areq);
    if (j->all[0] != 0 && !j->code)
        j->code = rch_mpi_err_code(j->all[0], "%s: file '%s': the operation failed on rank %d (error class %d)",
                                   j->op.fn, j->f->name, j->all[1], j->all[0]);
    return 1;
}

static unsigned hook(void *arg)
{
    (void)arg;
    unsigned n = 0;
    struct job **link = &jobs;
    while (*link) {
        struct job *j = *link;
        struct ADIOI_FileD *f = j->f;
        if (j->state == JOB_CB && j->seq == f->nb_agreed) {
            n += rch_io_cb_advance(j->cb);
            if (rch_io_cb_done(j->cb))
                cb_done(j);
        }
        if (j->state == JOB_IO) {
            if (j->pi < j->n)
                io_slice(j);
            if (j->pi >= j->n)
                local_done(j);
            n++;
        }
        if (j->state == JOB_READY && j->seq == f->nb_agreed) {
            f->nb_agreed++;
            j->state = agree_start(j) ? JOB_AGREE : JOB_DONE;
            n++;
        }
        if (j->state == JOB_AGREE && agree_done(j)) {
            j->state = JOB_DONE;
            n++;
        }
        if (j->state != JOB_DONE) {
            link = &j->next;
            continue;
        }
        *link = j->next;
        if (jobs_tail == &j->next)
            jobs_tail = link;
        f->nb_pending--;
        PMPI_Grequest_complete(j->req);   /* frees j if the user freed the request */
        n++;
    }
    if (!jobs && !posting && hooked) {
        rch_dev_progress_hook_remove(hook, NULL);
        hooked = 0;
    }
    return n;
}

/* A new job for the checked (err 0) or failed op, queued; its request in *request. */
static int job_post(struct rch_io_op *op, int err, MPI_Request *request)
{
    struct ADIOI_FileD *f = op->f;
    const char *fn = op->fn;
    if (req_comm == MPI_COMM_NULL) {
        if (PMPI_Comm_dup(MPI_COMM_SELF, &req_comm) != MPI_SUCCESS)
            return rch_io_err(f, MPI_ERR_NO_MEM, "%s: out of memory for the request", fn);
        PMPI_Comm_set_errhandler(req_comm, MPI_ERRORS_RETURN);
    }
    if (!hooked) {
        if (rch_dev_progress_hook_add(hook, NULL) != RDMACH_OK)
            return rch_io_err(f, MPI_ERR_INTERN, "%s: no progress hook free for non-blocking I/O", fn);
        hooked = 1;
    }
    int cb = op->collective && rch_io_coll_applies(f, op->is_write);
    struct job *j = calloc(1, sizeof(*j) + (cb ? rch_io_cb_size() : 0));
    if (!j || PMPI_Grequest_start(query_fn, free_fn, cancel_fn, j, &j->req) != MPI_SUCCESS) {
        free(j);
        return rch_io_err(f, MPI_ERR_NO_MEM, "%s: out of memory for the request", fn);
    }
    rch_mpi_req_get(j->req)->comm = req_comm;
    j->f = f;
    j->op = *op;
    j->areq = MPI_REQUEST_NULL;
    j->state = cb ? JOB_CB : JOB_IO;
    if (err) {
        j->code = err;
        j->raised = 1;
        j->state = cb ? JOB_CB : op->collective ? JOB_READY : JOB_DONE;
    } else {
        j->t = rch_mpi_type_get(op->dt);
        rch_mpi_type_retain(j->t);
        j->nbytes = op->xsize * op->count;
        posting++;
        j->e = rch_io_prepare(op, j->t, &j->data, &j->pos);
        posting--;
        if (!j->e && !cb && rch_io_view_pieces(f, j->pos, j->nbytes, &j->p, &j->n) != MPI_SUCCESS)
            j->e = ENOMEM;
        if (j->e)
            j->pi = j->n;   /* nothing to move: the failure is reported at completion */
        if (op->where == RCH_IO_INDIV)
            f->fp += j->nbytes / (MPI_Offset)f->et->size;
    }
    if (cb) {
        /* a rank that could not pack joins with nothing to move */
        j->cb = (struct rch_io_cb *)(j + 1);
        rch_io_cb_init(j->cb, f, 1, err != 0, op->is_write, j->pos, j->e ? NULL : j->data, j->nbytes);
    }
    if (op->collective)
        j->seq = f->nb_posted++;
    f->nb_pending++;
    *jobs_tail = j;
    jobs_tail = &j->next;
    *request = j->req;
    return MPI_SUCCESS;
}

int rch_io_nb_start(struct rch_io_op *op, MPI_Request *request)
{
    if (!request)
        return rch_io_err(op->f, MPI_ERR_REQUEST, "%s: argument request is NULL", op->fn);
    int err = rch_io_check(op);
    if (!err)
        return job_post(op, 0, request);
    /* a collective op that cannot run still takes its part in the
     * agreement (a request nobody waits for), so no other rank waits */
    MPI_Request r;
    if (op->collective && job_post(op, err, &r) == MPI_SUCCESS)
        PMPI_Request_free(&r);
    return err;
}

static int drained(void *arg)
{
    return ((struct ADIOI_FileD *)arg)->nb_pending == 0;
}

void rch_io_nb_drain(struct ADIOI_FileD *f)
{
    if (f->nb_pending)
        rch_dev_wait_until(drained, f);
}
