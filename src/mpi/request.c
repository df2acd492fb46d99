/*
 * MPI_Request handles and the completion calls: Wait, Test and their
 * all/any/some forms, Request_free, Request_get_status, Cancel,
 * Test_cancelled; generalized requests (Grequest_start, Grequest_complete).
 *
 * The table: entries live in chunks of CHUNK that never move, found by
 * index (the handle's low INDEX_BITS) in two loads; free entries form a LIFO
 * list so a request just freed is the next one handed out (warm in cache).
 * The handle's next GEN_BITS are the entry's generation, bumped at every
 * release: a stale copy of a freed handle names an entry that is free or
 * of another generation, and is refused with MPI_ERR_REQUEST (until the
 * entry has been reused 2^GEN_BITS - 1 times). Indices 0 and 1 are the
 * stateless constants RCH_MPI_REQ_DONE_SEND and RCH_MPI_REQ_DONE_NULL
 * (mpi_impl.h).
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"

#define CHUNK_SHIFT 10
#define CHUNK (1 << CHUNK_SHIFT)
#define INDEX_BITS 20                  /* a million requests at once */
#define GEN_BITS (26 - INDEX_BITS)
#define GEN_MAX ((1u << GEN_BITS) - 1)
#define MAX_CHUNKS ((1 << INDEX_BITS) / CHUNK)

static struct rch_mpi_req *chunks[MAX_CHUNKS];
static int nchunks;
static int free_head = -1;

static int grow(void)
{
    if (nchunks == MAX_CHUNKS)
        return -1;
    struct rch_mpi_req *c = calloc(CHUNK, sizeof(*c));
    if (!c)
        return -1;
    int base = nchunks * CHUNK;
    chunks[nchunks++] = c;
    /* Push in reverse so the lowest index comes out first; 0 and 1 are reserved. */
    for (int i = CHUNK - 1; i >= (base == 0 ? 2 : 0); i--) {
        c[i].gen = 1;
        c[i].next_free = free_head;
        free_head = base + i;
    }
    return 0;
}

MPI_Request rch_mpi_req_new(struct rch_dev_req *dreq, MPI_Comm comm)
{
    if (RCH_UNLIKELY(free_head < 0) && grow() != 0)
        return MPI_REQUEST_NULL;
    int i = free_head;
    struct rch_mpi_req *e = &chunks[i >> CHUNK_SHIFT][i & (CHUNK - 1)];
    free_head = e->next_free;
    e->dreq = dreq;
    e->comm = comm;
    e->in_use = 1;
    e->persist = NULL;
    e->pstate = RCH_MPI_PS_ACTIVE;
    e->sent_to = -1;
    e->buffered = 0;
    e->greq = NULL;
    return RCH_MPI_HDIRECT(RCH_MPI_OBJ_REQUEST, e->gen << INDEX_BITS | (unsigned)i);
}

MPI_Request rch_mpi_req_new_done(int pstate, int world, uint64_t seq, MPI_Comm comm)
{
    MPI_Request h = rch_mpi_req_new(NULL, comm);
    if (h != MPI_REQUEST_NULL) {
        struct rch_mpi_req *e = rch_mpi_req_get(h);
        e->pstate = pstate;
        e->sent_to = world;
        e->sent_seq = seq;
    }
    return h;
}

MPI_Request rch_mpi_req_new_send(struct rch_dev_req *dreq, int world, MPI_Comm comm)
{
    if (dreq)
        return rch_mpi_req_new(dreq, comm);
    return rch_mpi_req_new_done(RCH_MPI_PS_DONE_SEND, world, rch_dev_send_seq(world), comm);
}

MPI_Request rch_mpi_req_new_persistent(struct rch_mpi_persist *p, MPI_Comm comm)
{
    MPI_Request h = rch_mpi_req_new(NULL, comm);
    if (h != MPI_REQUEST_NULL) {
        struct rch_mpi_req *e = rch_mpi_req_get(h);
        e->persist = p;
        e->pstate = RCH_MPI_PS_INACTIVE;
    }
    return h;
}

struct rch_mpi_req *rch_mpi_req_get(MPI_Request h)
{
    if (RCH_UNLIKELY(((unsigned)h & 0xfc000000u) != 0xac000000u))
        return NULL;
    unsigned i = RCH_MPI_HINDEX(h) & ((1u << INDEX_BITS) - 1);
    if (RCH_UNLIKELY((int)(i >> CHUNK_SHIFT) >= nchunks || i < 2))
        return NULL;
    struct rch_mpi_req *e = &chunks[i >> CHUNK_SHIFT][i & (CHUNK - 1)];
    return e->in_use && e->gen == RCH_MPI_HINDEX(h) >> INDEX_BITS ? e : NULL;
}

static void req_release(MPI_Request h, struct rch_mpi_req *e)
{
    if (e->persist) {
        if (e->persist->op == RCH_MPI_PERSIST_OBJ)
            e->persist->ops->release(e->persist->obj);
        else
            rch_mpi_type_release(e->persist->type);
        free(e->persist);
        e->persist = NULL;
    }
    e->in_use = 0;
    e->dreq = NULL;
    e->gen = e->gen % GEN_MAX + 1;
    e->next_free = free_head;
    free_head = (int)(RCH_MPI_HINDEX(h) & ((1u << INDEX_BITS) - 1));
}

void rch_mpi_req_finalize(void)
{
    for (int c = 0; c < nchunks; c++) {
        free(chunks[c]);
        chunks[c] = NULL;
    }
    nchunks = 0;
    free_head = -1;
}


void rch_mpi_dreq_fail(struct rch_dev_req *g, int code)
{
    g->err = RCH_MPI_ERR_CLASS(code) == MPI_ERR_NO_MEM ? RDMACH_ERR_NO_MEMORY : RDMACH_ERR_OTHER;
    g->user_word[0] = RCH_MPI_DREQ_MPI_CODE;
    g->user_word[1] = (uint64_t)(unsigned)code;
}

/* The error code of a send or a generalized request that failed. */
static int op_failed(const struct rch_dev_req *r, const char *fn)
{
    if (r->kind != RCH_DEV_REQ_GREQ)
        return rch_mpi_err_code(rch_mpi_class_of(r->err), "%s: send failed: %s (%s)", fn,
                                rdmach_strerror(r->err), rch_dev_req_why(r));
    if (r->user_word[0] == RCH_MPI_DREQ_MPI_CODE) {
        int was = (int)(unsigned)r->user_word[1];
        return rch_mpi_err_code(RCH_MPI_ERR_CLASS(was), "%s: %s", fn, rch_mpi_err_msg(was, fn));
    }
    return rch_mpi_err_code(rch_mpi_class_of(r->err), "%s: the operation failed: %s (%s)", fn,
                            rdmach_strerror(r->err), rch_dev_req_why(r));
}

/* The status and error code of a finished device request, without freeing it. */
static int req_status(struct rch_dev_req *r, MPI_Status *status, const char *fn)
{
    int code = MPI_SUCCESS;
    if (r->kind == RCH_DEV_REQ_RECV ||
        (r->kind == RCH_DEV_REQ_GREQ && r->user_word[0] == RCH_MPI_DREQ_RECV_STATUS)) {
        if (status != MPI_STATUS_IGNORE)
            rch_mpi_status_set(status, r->source, r->tag, r->bytes, r->cancelled);
        if (RCH_UNLIKELY(r->err != RDMACH_OK) && !(r->cancelled && r->err == RDMACH_ERR_CANCELED)) {
            if (r->err == RDMACH_ERR_TRUNCATE)
                code = rch_mpi_err_code(MPI_ERR_TRUNCATE,
                                        "%s: message of %zu bytes from rank %d with tag %d truncated to the %zu bytes of the receive buffer",
                                        fn, r->msg_bytes, r->source, r->tag, r->bytes);
            else
                code = rch_mpi_err_code(rch_mpi_class_of(r->err), "%s: receive failed: %s (%s)", fn,
                                        rdmach_strerror(r->err), rch_dev_req_why(r));
        }
    } else {
        if (status != MPI_STATUS_IGNORE) {
            status->count_lo = 0;
            status->count_hi_and_cancelled = r->cancelled ? 1 : 0;
        }
        if (RCH_UNLIKELY(r->err != RDMACH_OK) && !(r->cancelled && r->err == RDMACH_ERR_CANCELED))
            code = op_failed(r, fn);
    }
    return code;
}

int rch_mpi_req_finish_any(struct rch_dev_req *dreq, MPI_Status *status, const char *fn)
{
    int code = req_status(dreq, status, fn);
    rch_dev_req_free(dreq);
    return code;
}

/* ---- what a handle is ----
 * NULL: MPI_REQUEST_NULL or an inactive persistent request (both complete
 * at once with an empty status and stay as they are); CONST: one of the two
 * stateless constants; ACTIVE: an entry with an operation in flight or
 * finished; INVALID: anything else. */
enum kind { K_NULL, K_CONST, K_ACTIVE, K_INVALID };

static inline int is_const(MPI_Request h)
{
    return h == RCH_MPI_REQ_DONE_SEND || h == RCH_MPI_REQ_DONE_NULL;
}

static inline enum kind classify(MPI_Request h, struct rch_mpi_req **ep)
{
    struct rch_mpi_req *e = rch_mpi_req_get(h);
    *ep = e;
    if (RCH_LIKELY(e != NULL))
        return e->pstate == RCH_MPI_PS_INACTIVE ? K_NULL : K_ACTIVE;
    if (h == MPI_REQUEST_NULL)
        return K_NULL;
    return is_const(h) ? K_CONST : K_INVALID;
}

/* Is the operation of a CONST or ACTIVE handle finished? */
static inline int finished(enum kind k, const struct rch_mpi_req *e)
{
    if (k == K_CONST)
        return 1;
    if (k != K_ACTIVE)
        return 0;
    /* no device request: completed at its start */
    return e->dreq ? e->buffered || rch_mpi_dreq_done(e->dreq) : 1;
}

/* A buffered send whose message has not left yet: its device request
 * belongs to the attached buffer's accounting, not to this status. */
static inline int buffered_pending(const struct rch_mpi_req *e)
{
    return e->buffered && !rch_mpi_dreq_done(e->dreq);
}

/* A send that completed without a device request: nothing received, not cancelled. */
static void send_status(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) {
        status->count_lo = 0;
        status->count_hi_and_cancelled = 0;
    }
}

/* The status of a finished request that has no device request. */
static void done_status(MPI_Request h, const struct rch_mpi_req *e, MPI_Status *status)
{
    if (h == RCH_MPI_REQ_DONE_NULL || (e && e->pstate == RCH_MPI_PS_DONE_NULL))
        rch_mpi_status_proc_null(status);
    else
        send_status(status);
}

/* A generalized request's status from its query function (MPI's own
 * status when the caller ignores it: query_fn may not be given IGNORE). */
static int greq_query(struct rch_mpi_greq *g, MPI_Status *status)
{
    MPI_Status mine;
    rch_mpi_status_empty(status == MPI_STATUS_IGNORE ? &mine : status);
    return g->query(g->extra, status == MPI_STATUS_IGNORE ? &mine : status);
}

/* free_fn, then the callbacks go; returns free_fn's code. */
static int greq_free(struct rch_mpi_req *e)
{
    int code = e->greq->free_fn(e->greq->extra);
    free(e->greq);
    e->greq = NULL;
    return code;
}

/* Completes a finished CONST or ACTIVE request: status, and the handle is
 * freed (set to MPI_REQUEST_NULL) unless persistent (made inactive). Returns
 * the (unraised) error code; *comm the communicator whose handler reports it. */
static int complete(MPI_Request *h, enum kind k, struct rch_mpi_req *e, MPI_Status *status, const char *fn,
                    MPI_Comm *comm)
{
    int code = MPI_SUCCESS;
    if (k == K_CONST) {
        done_status(*h, NULL, status);
        *h = MPI_REQUEST_NULL;
        *comm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    *comm = e->comm;
    if (e->dreq && buffered_pending(e)) {
        rch_dev_req_free(e->dreq);   /* detached: it completes, the buffer's space with it */
        e->dreq = NULL;
        send_status(status);
    } else if (e->dreq) {
        code = rch_mpi_req_finish(e->dreq, status, fn);
        e->dreq = NULL;
    } else {
        done_status(*h, e, status);
    }
    if (e->greq) {
        int qc = greq_query(e->greq, status), fc = greq_free(e);
        if (code == MPI_SUCCESS)
            code = qc != MPI_SUCCESS ? qc : fc;
    }
    e->sent_to = -1;
    e->buffered = 0;
    if (e->persist) {
        e->pstate = RCH_MPI_PS_INACTIVE;
    } else {
        req_release(*h, e);
        *h = MPI_REQUEST_NULL;
    }
    return code;
}

static int bad_request(const char *fn, const char *arg, MPI_Request h)
{
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "%s: invalid request 0x%x in argument %s", fn,
                       (unsigned)h, arg);
}

static int wait_failed(const char *fn, MPI_Comm comm, rdmach_status_t st)
{
    return rch_mpi_err(comm, rch_mpi_class_of(st), "%s: progress failed: %s (%s)", fn, rdmach_strerror(st),
                       rdmach_last_error());
}

/* ---- single completion ---- */

/* MPI_Wait on a checked request, its errors naming fn. */
static inline __attribute__((always_inline)) int wait_one(const char *fn, MPI_Request *request, MPI_Status *status)
{
    struct rch_mpi_req *e;
    enum kind k = classify(*request, &e);
    if (RCH_UNLIKELY(k == K_NULL)) {
        rch_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (RCH_UNLIKELY(k == K_INVALID))
        return bad_request(fn, "request", *request);
    if (!finished(k, e)) {
        rdmach_status_t st = rch_dev_wait(e->dreq);
        if (RCH_UNLIKELY(st != RDMACH_OK))
            return wait_failed(fn, e->comm, st);
    }
    MPI_Comm comm;
    int code = complete(request, k, e, status, fn, &comm);
    return RCH_LIKELY(code == MPI_SUCCESS) ? MPI_SUCCESS : rch_mpi_err_raise(comm, code);
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    RCH_MPI_CS();
    if (RCH_UNLIKELY(!rch_mpi_running()))
        return rch_mpi_check_init("MPI_Wait");
    if (RCH_UNLIKELY(!request))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Wait: argument request is NULL");
    return wait_one("MPI_Wait", request, status);
}
#pragma weak MPI_Wait = PMPI_Wait

int rch_mpi_wait_as(const char *fn, MPI_Request *request)
{
    return wait_one(fn, request, MPI_STATUS_IGNORE);
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    RCH_MPI_CS();
    if (RCH_UNLIKELY(!rch_mpi_running()))
        return rch_mpi_check_init("MPI_Test");
    if (RCH_UNLIKELY(!request || !flag))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Test: argument %s is NULL", !request ? "request" : "flag");
    struct rch_mpi_req *e;
    enum kind k = classify(*request, &e);
    if (RCH_UNLIKELY(k == K_NULL)) {
        *flag = 1;
        rch_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (RCH_UNLIKELY(k == K_INVALID))
        return bad_request("MPI_Test", "request", *request);
    if (!finished(k, e)) {
        rch_dev_progress();
        if (!finished(k, e)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    MPI_Comm comm;
    int code = complete(request, k, e, status, "MPI_Test", &comm);
    return code == MPI_SUCCESS ? MPI_SUCCESS : rch_mpi_err_raise(comm, code);
}
#pragma weak MPI_Test = PMPI_Test

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Request_get_status");
    if (err)
        return err;
    if (!flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Request_get_status: argument flag is NULL");
    struct rch_mpi_req *e;
    enum kind k = classify(request, &e);
    if (k == K_INVALID)
        return bad_request("MPI_Request_get_status", "request", request);
    if (k == K_NULL) {
        *flag = 1;
        rch_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!finished(k, e))
        rch_dev_progress();
    *flag = finished(k, e);
    if (!*flag)
        return MPI_SUCCESS;
    /* The request stays as it is; its error is reported again by its Wait/Test. */
    if (k == K_CONST || !e->dreq || buffered_pending(e)) {
        done_status(request, e, status);
        return MPI_SUCCESS;
    }
    int code = e->greq ? greq_query(e->greq, status) : req_status(e->dreq, status, "MPI_Request_get_status");
    return code == MPI_SUCCESS ? MPI_SUCCESS : rch_mpi_err_raise(e->comm, code);
}
#pragma weak MPI_Request_get_status = PMPI_Request_get_status

/* ---- multiple completion ----
 * Every handle is checked before anything completes, so an invalid one
 * leaves the array untouched. */

static int null_arg(const char *fn, const char *name)
{
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn, name);
}

/* The array and the single output out1 (never NULL); an array of length 0
 * may be NULL. */
static int check_array(const char *fn, int count, MPI_Request reqs[], const void *out1, const char *out1_name)
{
    if (count < 0)   /* the _some calls, whose output is outcount, call their count incount */
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COUNT, "%s: invalid count %d in argument %s", fn, count,
                           strcmp(out1_name, "outcount") ? "count" : "incount");
    if (count > 0 && !reqs)
        return null_arg(fn, "array_of_requests");
    if (!out1)
        return null_arg(fn, out1_name);
    for (int i = 0; i < count; i++) {
        struct rch_mpi_req *e;
        if (classify(reqs[i], &e) == K_INVALID)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "%s: invalid request 0x%x in array_of_requests[%d]",
                               fn, (unsigned)reqs[i], i);
    }
    return MPI_SUCCESS;
}

static inline MPI_Status *status_at(MPI_Status *statuses, int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* Is request h finished (null and inactive ones are not)? */
static inline int ready(MPI_Request h)
{
    struct rch_mpi_req *e;
    enum kind k = classify(h, &e);
    return finished(k, e);
}

/* Multiple completion: statuses[n] is for a request that completed with
 * code. Once one has failed (the call returns MPI_ERR_IN_STATUS) every
 * status of the call carries its MPI_ERROR; before that none is written. */
static void note_code(MPI_Status *statuses, int n, int code, int *nerr)
{
    if (statuses == MPI_STATUSES_IGNORE) {
        *nerr += code != MPI_SUCCESS;
        return;
    }
    if (code != MPI_SUCCESS && (*nerr)++ == 0)
        for (int j = 0; j < n; j++)
            statuses[j].MPI_ERROR = MPI_SUCCESS;
    if (*nerr > 0)
        statuses[n].MPI_ERROR = code;
}

static int finish_at(MPI_Request *reqs, int i, MPI_Status *st, const char *fn, MPI_Comm *comm)
{
    struct rch_mpi_req *e;
    enum kind k = classify(reqs[i], &e);
    return complete(&reqs[i], k, e, st, fn, comm);
}

/* Completes every request of the array, null ones with an empty status;
 * with `wait` it waits for each in turn, else all are finished already.
 * MPI_ERR_IN_STATUS if any failed (its status says how). */
static int complete_all(const char *fn, int count, MPI_Request reqs[], MPI_Status *statuses, int wait)
{
    int nerr = 0;
    MPI_Comm err_comm = MPI_COMM_NULL;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = status_at(statuses, i);
        struct rch_mpi_req *e;
        enum kind k = classify(reqs[i], &e);
        if (k == K_NULL) {
            rch_mpi_status_empty(st);
            note_code(statuses, i, MPI_SUCCESS, &nerr);
            continue;
        }
        if (wait && !finished(k, e)) {
            rdmach_status_t s = rch_dev_wait(e->dreq);
            if (s != RDMACH_OK)
                return wait_failed(fn, e->comm, s);
        }
        MPI_Comm comm;
        int code = complete(&reqs[i], k, e, st, fn, &comm);
        if (code != MPI_SUCCESS && nerr == 0)
            err_comm = comm;
        note_code(statuses, i, code, &nerr);
    }
    return nerr == 0 ? MPI_SUCCESS : rch_mpi_err_raise(err_comm, MPI_ERR_IN_STATUS);
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Waitall");
    if (err)
        return err;
    err = check_array("MPI_Waitall", count, array_of_requests, &count, "count");
    if (err)
        return err;
    if (count > 0 && !array_of_statuses)
        return null_arg("MPI_Waitall", "array_of_statuses");
    return complete_all("MPI_Waitall", count, array_of_requests, array_of_statuses, 1);
}
#pragma weak MPI_Waitall = PMPI_Waitall

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status *array_of_statuses)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Testall");
    if (err)
        return err;
    err = check_array("MPI_Testall", count, array_of_requests, flag, "flag");
    if (err)
        return err;
    if (count > 0 && !array_of_statuses)
        return null_arg("MPI_Testall", "array_of_statuses");
    int all = 1;
    for (int pass = 0; pass < 2; pass++) {
        all = 1;
        for (int i = 0; i < count && all; i++) {
            struct rch_mpi_req *e;
            enum kind k = classify(array_of_requests[i], &e);
            if (k != K_NULL && !finished(k, e))
                all = 0;
        }
        if (all || pass == 1)
            break;
        rch_dev_progress();
    }
    *flag = all;
    if (!all)
        return MPI_SUCCESS;
    return complete_all("MPI_Testall", count, array_of_requests, array_of_statuses, 0);
}
#pragma weak MPI_Testall = PMPI_Testall

struct any_arg {
    int count;
    MPI_Request *reqs;
};

static int any_ready(void *arg)
{
    struct any_arg *a = arg;
    for (int i = 0; i < a->count; i++)
        if (ready(a->reqs[i]))
            return 1;
    return 0;
}

static int active_count(int count, const MPI_Request reqs[])
{
    int n = 0;
    for (int i = 0; i < count; i++) {
        struct rch_mpi_req *e;
        n += classify(reqs[i], &e) != K_NULL;
    }
    return n;
}

/* Completes the first finished request into (index, status). */
static int take_first(const char *fn, int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    for (int i = 0; i < count; i++) {
        if (!ready(reqs[i]))
            continue;
        MPI_Comm comm;
        int code = finish_at(reqs, i, status, fn, &comm);
        *index = i;
        return code == MPI_SUCCESS ? MPI_SUCCESS : rch_mpi_err_raise(comm, code);
    }
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_INTERN, "%s: no finished request after waiting", fn);
}

/* If no request of a is finished: wait for one (wait), or make progress
 * once. Returns the error of a failed wait. */
static int await_any(const char *fn, struct any_arg *a, int wait)
{
    if (any_ready(a))
        return MPI_SUCCESS;
    if (!wait) {
        rch_dev_progress();
        return MPI_SUCCESS;
    }
    rdmach_status_t s = rch_dev_wait_until(any_ready, a);
    return s == RDMACH_OK ? MPI_SUCCESS : wait_failed(fn, MPI_COMM_NULL, s);
}

/* Waitany (wait; flag NULL) and Testany. */
static int any(const char *fn, int count, MPI_Request reqs[], int *index, int *flag,
               MPI_Status *status, int wait)
{
    int err = rch_mpi_check_init(fn);
    if (err || (err = check_array(fn, count, reqs, index, "index")))
        return err;
    if (!wait && !flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument flag is NULL", fn);
    if (active_count(count, reqs) == 0) {
        if (flag)
            *flag = 1;
        *index = MPI_UNDEFINED;
        rch_mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    struct any_arg a = { count, reqs };
    if ((err = await_any(fn, &a, wait)))
        return err;
    if (!wait && !any_ready(&a)) {
        *flag = 0;
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    if (flag)
        *flag = 1;
    return take_first(fn, count, reqs, index, status);
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    RCH_MPI_CS();
    return any("MPI_Waitany", count, array_of_requests, index, NULL, status, 1);
}
#pragma weak MPI_Waitany = PMPI_Waitany

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    RCH_MPI_CS();
    return any("MPI_Testany", count, array_of_requests, index, flag, status, 0);
}
#pragma weak MPI_Testany = PMPI_Testany

/* Completes every ready request into indices/statuses; *outcount their number. */
static int take_all_ready(const char *fn, int count, MPI_Request reqs[], int *outcount, int indices[],
                          MPI_Status statuses[])
{
    int n = 0, nerr = 0;
    MPI_Comm err_comm = MPI_COMM_NULL;
    for (int i = 0; i < count; i++) {
        if (!ready(reqs[i]))
            continue;
        MPI_Status *st = status_at(statuses, n);
        MPI_Comm comm;
        int code = finish_at(reqs, i, st, fn, &comm);
        if (code != MPI_SUCCESS && nerr == 0)
            err_comm = comm;
        note_code(statuses, n, code, &nerr);
        indices[n++] = i;
    }
    *outcount = n;
    return nerr == 0 ? MPI_SUCCESS : rch_mpi_err_raise(err_comm, MPI_ERR_IN_STATUS);
}

/* Waitsome (wait) and Testsome. */
static int some(const char *fn, int incount, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[], int wait)
{
    int err = rch_mpi_check_init(fn);
    if (err || (err = check_array(fn, incount, reqs, outcount, "outcount")))
        return err;
    if (incount > 0 && !indices)
        return null_arg(fn, "array_of_indices");
    if (incount > 0 && !statuses)
        return null_arg(fn, "array_of_statuses");
    if (active_count(incount, reqs) == 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    struct any_arg a = { incount, reqs };
    if ((err = await_any(fn, &a, wait)))
        return err;
    return take_all_ready(fn, incount, reqs, outcount, indices, statuses);
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                  MPI_Status *array_of_statuses)
{
    RCH_MPI_CS();
    return some("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices,
                array_of_statuses, 1);
}
#pragma weak MPI_Waitsome = PMPI_Waitsome

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                  MPI_Status *array_of_statuses)
{
    RCH_MPI_CS();
    return some("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices,
                array_of_statuses, 0);
}
#pragma weak MPI_Testsome = PMPI_Testsome

/* ---- free, cancel ---- */

/* The entry of a handle argument that must name a request object. */
static int entry_arg(const char *fn, MPI_Request h, struct rch_mpi_req **ep)
{
    if ((*ep = rch_mpi_req_get(h)))
        return MPI_SUCCESS;
    if (h == MPI_REQUEST_NULL)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "%s: argument request is MPI_REQUEST_NULL", fn);
    return bad_request(fn, "request", h);
}

int PMPI_Request_free(MPI_Request *request)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Request_free");
    if (err)
        return err;
    if (!request)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Request_free: argument request is NULL");
    MPI_Request h = *request;
    if (is_const(h)) {
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    struct rch_mpi_req *e;
    if ((err = entry_arg("MPI_Request_free", h, &e)))
        return err;
    if (e->greq && e->greq->user_freed)
        return bad_request("MPI_Request_free", "request", h);
    if (e->greq && !rch_mpi_dreq_done(e->dreq)) {
        e->greq->user_freed = 1;   /* MPI_Grequest_complete calls free_fn and frees it */
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    int code = e->greq ? greq_free(e) : MPI_SUCCESS;
    /* An unfinished device request is detached: it completes (and runs its
     * on_complete, e.g. the unpack of a non-contiguous receive) and the
     * device reclaims it. A persistent request may be freed active too. */
    if (e->dreq)
        rch_dev_req_free(e->dreq);
    req_release(h, e);
    *request = MPI_REQUEST_NULL;
    return code == MPI_SUCCESS ? MPI_SUCCESS : rch_mpi_err_raise(e->comm, code);
}
#pragma weak MPI_Request_free = PMPI_Request_free

int PMPI_Cancel(MPI_Request *request)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Cancel");
    if (err)
        return err;
    if (!request)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Cancel: argument request is NULL");
    MPI_Request h = *request;
    if (is_const(h))
        return MPI_SUCCESS;        /* already complete: cancelling has no effect */
    struct rch_mpi_req *e;
    if ((err = entry_arg("MPI_Cancel", h, &e)))
        return err;
    if (e->pstate == RCH_MPI_PS_INACTIVE)
        return rch_mpi_err(e->comm, MPI_ERR_REQUEST, "MPI_Cancel: the persistent request 0x%x is not active (MPI_Start it first)",
                           (unsigned)h);
    if (e->greq) {   /* the user's cancel_fn, told whether the request is complete */
        int code = e->greq->cancel(e->greq->extra, rch_mpi_dreq_done(e->dreq));
        return code == MPI_SUCCESS ? MPI_SUCCESS : rch_mpi_err_raise(e->comm, code);
    }
    /* A receive that has not matched is cancelled, a send the receiver has
     * not matched is withdrawn (the device asks it); otherwise the
     * operation completes normally and MPI_Test_cancelled says false. A
     * send that completed at its start is withdrawn by its message's
     * number, through a device request made for it. */
    rdmach_status_t st = RDMACH_OK;
    if (!e->dreq) {
        if (e->pstate == RCH_MPI_PS_DONE_SEND && e->sent_to >= 0)
            st = rch_dev_cancel_sent(e->sent_to, e->sent_seq, &e->dreq);
        e->sent_to = -1;
    } else {
        e->buffered = 0;   /* complete once the device knows the outcome */
        st = rch_dev_cancel(e->dreq);
    }
    if (st != RDMACH_OK)
        return rch_mpi_err(e->comm, rch_mpi_class_of(st), "MPI_Cancel: %s (%s)", rdmach_strerror(st),
                           rdmach_last_error());
    return MPI_SUCCESS;
}
#pragma weak MPI_Cancel = PMPI_Cancel

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Test_cancelled");
    if (err)
        return err;
    if (!status || status == MPI_STATUS_IGNORE || !flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Test_cancelled: argument %s is %s",
                           !flag ? "flag" : "status", !flag || !status ? "NULL" : "MPI_STATUS_IGNORE");
    *flag = status->count_hi_and_cancelled & 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled

/* ---- generalized requests ---- */

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Grequest_start";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!query_fn || !free_fn || !cancel_fn || !request)
        return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_ARG, "%s: argument %s is NULL", fn,
                           !query_fn ? "query_fn" : !free_fn ? "free_fn" : !cancel_fn ? "cancel_fn" : "request");
    struct rch_mpi_greq *g = malloc(sizeof(*g));
    struct rch_dev_req *d = g ? rch_dev_req_alloc(RCH_DEV_REQ_GREQ) : NULL;
    MPI_Request h = d ? rch_mpi_req_new(d, MPI_COMM_SELF) : MPI_REQUEST_NULL;
    if (h == MPI_REQUEST_NULL) {
        if (d)
            rch_dev_req_free(d);
        free(g);
        return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    *g = (struct rch_mpi_greq){ .query = query_fn, .free_fn = free_fn, .cancel = cancel_fn, .extra = extra_state };
    rch_mpi_req_get(h)->greq = g;
    *request = h;
    return MPI_SUCCESS;
}
#pragma weak MPI_Grequest_start = PMPI_Grequest_start

int PMPI_Grequest_complete(MPI_Request request)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Grequest_complete";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_req *e;
    if ((err = entry_arg(fn, request, &e)))
        return err;
    if (!e->greq || !e->dreq || rch_mpi_dreq_done(e->dreq))
        return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_REQUEST, "%s: request 0x%x is not a generalized request waiting "
                           "for completion", fn, (unsigned)request);
    rch_dev_req_complete(e->dreq);
    if (!e->greq->user_freed)
        return MPI_SUCCESS;
    int code = greq_free(e);   /* freed by MPI_Request_free already: nobody waits for it */
    rch_dev_req_free(e->dreq);
    req_release(request, e);
    return code == MPI_SUCCESS ? MPI_SUCCESS : rch_mpi_err_raise(MPI_COMM_SELF, code);
}
#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
