/*
 * Matched probe: Mprobe, Improbe, Mrecv, Imrecv.
 *
 * A matched probe takes the message off the device's unexpected queue
 * (rch_dev_improbe), so no other receive or probe — in this thread or any
 * other — can match it; MPI_Mrecv/Imrecv then receive exactly that message
 * (rch_dev_imrecv: eager copy, SYNC acknowledgement or rendezvous, as an
 * ordinary receive that matched it). This is what makes probe-then-receive
 * safe under MPI_THREAD_MULTIPLE.
 *
 * MPI_Message handles: MPICH's message object kind is the request kind
 * (0xb: MPI_MESSAGE_NULL is 0x2c000000, MPI_MESSAGE_NO_PROC 0x6c000000).
 * A message is a direct handle 0xac000000 | MSG_BIT | index into this
 * file's table: MSG_BIT keeps it apart from every request handle (the
 * request table would need 32 M live entries to reach it), so a request
 * passed as a message, or the reverse, is reported as invalid. A handle
 * is valid from the probe until its Mrecv/Imrecv; slots are then reused.
 */
#include <stdlib.h>
#include "mpi/mpi_impl.h"

#define MSG_BIT (1u << 25)

struct msg_entry {
    struct rch_dev_msg *m;    /* NULL while the slot is free or only reserved */
    MPI_Comm comm;            /* whose error handler reports Mrecv's errors */
    int in_use;
    int next_free;
};

static struct msg_entry *table;
static int table_len, table_cap, free_head = -1;

/* A reserved slot (in_use, no message yet): reserved before the probe so a
 * message once taken always gets a handle. -1 if out of memory. */
static int slot_reserve(MPI_Comm comm)
{
    int i;
    if (free_head >= 0) {
        i = free_head;
        free_head = table[i].next_free;
    } else {
        if (table_len == table_cap) {
            int cap = table_cap ? 2 * table_cap : 64;
            if ((unsigned)cap >= MSG_BIT)
                return -1;
            struct msg_entry *t = realloc(table, (size_t)cap * sizeof(*t));
            if (!t)
                return -1;
            table = t;
            table_cap = cap;
        }
        i = table_len++;
    }
    table[i] = (struct msg_entry){ .m = NULL, .comm = comm, .in_use = 1, .next_free = -1 };
    return i;
}

static void slot_release(int i)
{
    table[i].in_use = 0;
    table[i].m = NULL;
    table[i].next_free = free_head;
    free_head = i;
}

static MPI_Message handle_of(int i)
{
    return RCH_MPI_HDIRECT(RCH_MPI_OBJ_REQUEST, MSG_BIT | (unsigned)i);
}

/* The slot of a live message handle, or -1. */
static int slot_of(MPI_Message h)
{
    if (((unsigned)h & 0xfc000000u) != 0xac000000u || !(RCH_MPI_HINDEX(h) & MSG_BIT))
        return -1;
    int i = (int)(RCH_MPI_HINDEX(h) & ~MSG_BIT);
    return i < table_len && table[i].in_use && table[i].m ? i : -1;
}

/* ---- probing ---- */

struct mprobe_arg {
    int source, tag;
    uint32_t ctx;
    struct rch_dev_msg *msg;
    int out_source, out_tag;
    size_t out_bytes;
    rdmach_status_t st;
};

static int mprobe_once(void *arg)
{
    struct mprobe_arg *a = arg;
    a->st = rch_dev_improbe(a->source, a->tag, a->ctx, &a->msg, &a->out_source, &a->out_tag, &a->out_bytes);
    return a->msg != NULL || a->st != RDMACH_OK;
}

/* The checks Mprobe and Improbe share. 1: MPI_PROC_NULL (done), 0: go on, else the error code... */
static int probe_args(const char *fn, int source, int tag, MPI_Comm comm, MPI_Message *message,
                      MPI_Status *status, struct rch_mpi_comm **c, int *err)
{
    *err = rch_mpi_check_peer(fn, comm, source, tag, 1, c);
    if (*err)
        return -1;
    if (!message) {
        *err = rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument message is NULL", fn);
        return -1;
    }
    if (!status) {
        *err = rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument status is NULL", fn);
        return -1;
    }
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        rch_mpi_status_proc_null(status);
        return 1;
    }
    return 0;
}

/* A probe that found a message: the handle and the status. */
static void probe_found(int slot, const struct mprobe_arg *a, MPI_Message *message, MPI_Status *status)
{
    table[slot].m = a->msg;
    *message = handle_of(slot);
    if (status != MPI_STATUS_IGNORE)
        rch_mpi_status_set(status, a->out_source, a->out_tag, a->out_bytes, 0);
}

static int probe_failed(const char *fn, MPI_Comm comm, int slot, rdmach_status_t st)
{
    slot_release(slot);
    return rch_mpi_dev_error(fn, comm, st);
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Mprobe";
    struct rch_mpi_comm *c;
    int err, r = probe_args(fn, source, tag, comm, message, status, &c, &err);
    if (r)
        return r > 0 ? MPI_SUCCESS : err;
    int slot = slot_reserve(comm);
    if (slot < 0)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a message handle", fn);
    struct mprobe_arg a = { .source = source, .tag = tag, .ctx = c->ctx };
    if (!mprobe_once(&a)) {
        rdmach_status_t st = rch_dev_wait_until(mprobe_once, &a);
        if (st != RDMACH_OK)
            return probe_failed(fn, comm, slot, st);
    }
    if (a.st != RDMACH_OK)
        return probe_failed(fn, comm, slot, a.st);
    probe_found(slot, &a, message, status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Mprobe = PMPI_Mprobe

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Improbe";
    struct rch_mpi_comm *c;
    if (!flag) {
        int err = rch_mpi_check_init(fn);
        return err ? err : rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument flag is NULL", fn);
    }
    int err, r = probe_args(fn, source, tag, comm, message, status, &c, &err);
    if (r < 0)
        return err;
    if (r > 0) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    int slot = slot_reserve(comm);
    if (slot < 0)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a message handle", fn);
    struct mprobe_arg a = { .source = source, .tag = tag, .ctx = c->ctx };
    mprobe_once(&a);
    if (a.st != RDMACH_OK)
        return probe_failed(fn, comm, slot, a.st);
    *flag = a.msg != NULL;
    if (!a.msg) {
        slot_release(slot);
        return MPI_SUCCESS;
    }
    probe_found(slot, &a, message, status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Improbe = PMPI_Improbe

/* ---- receiving ---- */

/* The checks Mrecv and Imrecv share: 1 for MPI_MESSAGE_NO_PROC (nothing to
 * receive), 0 with *slot and *t set, -1 with *err the reported error. */
static int mrecv_args(const char *fn, void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                      int *slot, const struct rch_mpi_type **t, int *err)
{
    if ((*err = rch_mpi_check_init(fn)))
        return -1;
    if (!message) {
        *err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument message is NULL", fn);
        return -1;
    }
    if (*message == MPI_MESSAGE_NO_PROC) {
        /* No message was matched (a probe with MPI_PROC_NULL): only the buffer arguments to check. */
        if (!(*t = rch_mpi_check_buf(MPI_COMM_NULL, fn, buf, count, datatype, err)))
            return -1;
        return 1;
    }
    if ((*slot = slot_of(*message)) < 0) {
        *err = *message == MPI_MESSAGE_NULL
                   ? rch_mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "%s: argument message is MPI_MESSAGE_NULL", fn)
                   : rch_mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST,
                                 "%s: invalid message 0x%x in argument message (not from MPI_Mprobe/MPI_Improbe, "
                                 "or already received)", fn, (unsigned)*message);
        return -1;
    }
    /* A bad buffer leaves the message matched and its handle valid. */
    MPI_Comm comm = table[*slot].comm;
    if (!(*t = rch_mpi_check_buf(comm, fn, buf, count, datatype, err)))
        return -1;
    return 0;
}

/* Starts receiving the message of slot: the device request, the slot freed
 * and *message set to MPI_MESSAGE_NULL. MPI error code (message untouched). */
static int mrecv_post(const char *fn, void *buf, int count, const struct rch_mpi_type *t, int slot,
                      MPI_Message *message, struct rch_dev_req **r)
{
    MPI_Comm comm = table[slot].comm;
    rdmach_status_t st = rch_mpi_post_recv_msg(buf, count, t, 0, 0, NULL, table[slot].m, r);
    if (st != RDMACH_OK)
        return rch_mpi_dev_error(fn, comm, st);
    slot_release(slot);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Mrecv";
    int slot = -1, err;
    const struct rch_mpi_type *t;
    int r = mrecv_args(fn, buf, count, datatype, message, &slot, &t, &err);
    if (r < 0)
        return err;
    if (r > 0) {
        *message = MPI_MESSAGE_NULL;
        rch_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    MPI_Comm comm = table[slot].comm;
    struct rch_dev_req *dreq;
    if ((err = mrecv_post(fn, buf, count, t, slot, message, &dreq)))
        return err;
    return rch_mpi_wait_report(fn, comm, dreq, status);
}
#pragma weak MPI_Mrecv = PMPI_Mrecv

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Imrecv";
    if (!request) {
        int err = rch_mpi_check_init(fn);
        return err ? err : rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument request is NULL", fn);
    }
    int slot = -1, err;
    const struct rch_mpi_type *t;
    int r = mrecv_args(fn, buf, count, datatype, message, &slot, &t, &err);
    if (r < 0)
        return err;
    if (r > 0) {
        *request = rch_mpi_req_new_done(RCH_MPI_PS_DONE_NULL, -1, 0, MPI_COMM_NULL);
        if (*request == MPI_REQUEST_NULL)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    MPI_Comm comm = table[slot].comm;
    /* The handle first: once the device has the message it cannot be given back. */
    MPI_Request h = rch_mpi_req_new(NULL, comm);
    if (h == MPI_REQUEST_NULL)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    struct rch_dev_req *dreq;
    if ((err = mrecv_post(fn, buf, count, t, slot, message, &dreq))) {
        MPI_Request tmp = h;
        PMPI_Request_free(&tmp);
        return err;
    }
    rch_mpi_req_get(h)->dreq = dreq;
    *request = h;
    return MPI_SUCCESS;
}
#pragma weak MPI_Imrecv = PMPI_Imrecv
