/*
 * Partitioned communication (MPI 4.0): MPI_Psend_init, MPI_Precv_init,
 * MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived.
 *
 * One message per send partition, on a context of the communicator that
 * nothing else uses (ctx | RCH_MPI_CTX_PART; ctx ids are small):
 *
 *   init (in init order, as pt2pt matching):
 *     sender ──hello {channel, partitions, bytes}──► receiver
 *       (tag = the user's tag on ctx | PART: the k-th Psend_init from A to
 *       B with tag T pairs with the k-th Precv_init at B from A with tag T)
 *   every start:
 *     sender: MPI_Pready(i) sends partition i with tag  channel << 20 | i
 *             on (ctx + 1) | PART, straight from the user's buffer (packed
 *             first when the datatype is not contiguous);
 *     receiver: once the hello is in, one receive per SEND partition into
 *             its place (the sides may partition the same bytes differently).
 *
 * A receive partition has arrived when every send partition overlapping its
 * bytes has; a non-contiguous receive is unpacked partition by partition as
 * they arrive. The sender may send fewer bytes than the receive takes (as a
 * point-to-point message shorter than its receive buffer, MPI-4.1 3.2.4;
 * 4.2.3: "Matching follows the same MPI matching rules as for point-to-point
 * communication"): only the first bytes are written, the status counts what
 * was sent. More bytes than it takes: every send partition is still received
 * (truncated), so that the sender completes, and the receive fails with
 * MPI_ERR_TRUNCATE. The request's device request is a GREQ that a progress hook
 * completes when every partition is sent (sender: all marked ready and
 * their sends done) or received. `channel` is a per-process counter (11
 * bits), so a pair of processes may have 2047 partitioned channels live at
 * once; a message of cycle k + 1 cannot overtake cycle k's (same source, tag
 * and context match in order).
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/coll_bind.h"

#define RCH_MPI_CTX_PART  0x40000000u
#define PART_IDX_BITS     20
#define PART_MAX          ((1 << PART_IDX_BITS) - 1)
#define PART_CHAN_MAX     0x7ff
#define PART_HELLO_MAGIC  0x50415254u

struct hello {
    uint32_t magic;
    uint32_t chan;
    uint64_t partitions;
    uint64_t part_bytes;     /* packed bytes per send partition */
};

struct part {
    int is_send;
    struct rch_mpi_comm *c;
    MPI_Comm comm;
    int peer;                     /* comm rank; MPI_PROC_NULL: nothing moves */
    int tag;
    char *buf;                    /* the user's buffer */
    int partitions, count;        /* this side's partitioning: count elements each */
    struct rch_mpi_type *t;       /* retained */
    size_t pbytes;                /* packed bytes per partition of this side */
    char *tmp;                    /* packed copy (non-contiguous type), else NULL */
    char *data;                   /* where the bytes are: tmp or buf + true_lb */
    struct hello hi;              /* sender: sent at init; receiver: received */
    struct rch_dev_req *hello;    /* its request (NULL once finished) */
    int have_hello;
    int nsp;                      /* send partitions (receiver: from the hello) */
    struct rch_dev_req **req;     /* [nsp]: this cycle's messages */
    unsigned char *ready;         /* sender [partitions]: marked ready this cycle */
    unsigned char *got;           /* receiver [nsp]: arrived this cycle */
    unsigned char *unpacked;      /* receiver [partitions]: delivered to buf */
    int nready, ngot;
    int posted;                   /* receiver: this cycle's receives are posted */
    rdmach_status_t err;          /* this cycle's first error */
    rdmach_status_t setup_err;    /* receiver: the hello was wrong (every cycle fails) */
    rdmach_status_t trunc_err;    /* receiver: more is sent than it takes (every cycle fails, once
                                     every send partition has been received) */
    uint64_t sent;                /* receiver: the bytes the sender sends (from the hello) */
    struct rch_dev_req *greq;     /* the active cycle's request, NULL when inactive */
    int orphan;                   /* freed while active: the hook frees it */
    struct part *next;            /* on the active list */
};

static struct part *active;
static int hooked;
static uint32_t next_chan;

static void part_free(struct part *q)
{
    for (int i = 0; q->req && i < q->nsp; i++)
        if (q->req[i]) {
            if (!q->is_send)
                rch_dev_cancel(q->req[i]);
            rch_dev_req_free(q->req[i]);
        }
    if (q->hello) {
        if (!q->is_send)
            rch_dev_cancel(q->hello);
        rch_dev_req_free(q->hello);
    }
    rch_mpi_type_release(q->t);
    free(q->req);
    free(q->ready);
    free(q->got);
    free(q->unpacked);
    free(q->tmp);
    free(q);
}

/* ---- receive side ---- */

/* The hello is in: check it against this side and size the arrays. */
static void take_hello(struct part *q)
{
    struct rch_dev_req *h = q->hello;
    q->hello = NULL;
    rdmach_status_t st = h->err;
    size_t got = h->bytes;
    rch_dev_req_free(h);
    q->have_hello = 1;
    uint64_t total = q->hi.partitions * q->hi.part_bytes, mine = (uint64_t)q->partitions * q->pbytes;
    if (st != RDMACH_OK || got != sizeof(q->hi) || q->hi.magic != PART_HELLO_MAGIC) {
        q->setup_err = st != RDMACH_OK ? st : rch_base_err(RDMACH_ERR_INVALID_ARG, "partitioned receive: "
                                                           "malformed set-up message from rank %d", q->peer);
        return;
    }
    if (total > mine)   /* reported at the end of each cycle, after every send partition came in */
        q->trunc_err = rch_base_err(RDMACH_ERR_TRUNCATE,
                              "partitioned receive: rank %d sends %llu bytes (%llu partitions), this receive "
                              "takes %llu (%d partitions)", q->peer, (unsigned long long)total,
                              (unsigned long long)q->hi.partitions, (unsigned long long)mine, q->partitions);
    q->sent = total;
    q->nsp = (int)q->hi.partitions;
    q->req = calloc((size_t)q->nsp, sizeof(*q->req));
    q->got = calloc((size_t)q->nsp, 1);
    if (!q->req || !q->got)
        q->setup_err = rch_base_err(RDMACH_ERR_NO_MEMORY, "partitioned receive: no memory for %d partitions",
                                    q->nsp);
}

static void post_recvs(struct part *q)
{
    uint32_t ctx = (q->c->ctx + 1) | RCH_MPI_CTX_PART;
    size_t sb = (size_t)q->hi.part_bytes;
    size_t mine = q->pbytes * (size_t)q->partitions;
    for (int i = 0; i < q->nsp && q->err == RDMACH_OK; i++) {
        int tag = (int)(q->hi.chan << PART_IDX_BITS | (uint32_t)i);
        /* what of send partition i fits in this receive (all of it unless the sender sends more) */
        size_t off = (size_t)i * sb, len = off >= mine ? 0 : mine - off < sb ? mine - off : sb;
        q->err = rch_dev_irecv(q->data + (off < mine ? off : 0), len, q->peer, tag, ctx, &q->req[i]);
    }
    q->posted = q->err == RDMACH_OK ? 1 : -1;   /* -1: not every receive is posted */
}

/* Send partitions [lo, hi] cover receive partition j. */
static void span(const struct part *q, int j, int *lo, int *hi)
{
    size_t sb = (size_t)q->hi.part_bytes, a = (size_t)j * q->pbytes, b = a + q->pbytes;
    *lo = sb ? (int)(a / sb) : 0;
    *hi = sb ? (int)((b + sb - 1) / sb) - 1 : -1;
    if (*hi > q->nsp - 1)   /* the sender sends less: past its end nothing comes */
        *hi = q->nsp - 1;
}

static int recv_part_arrived(struct part *q, int j)
{
    if (q->unpacked[j])
        return 1;
    int lo, hi;
    span(q, j, &lo, &hi);
    for (int i = lo; i <= hi; i++)
        if (!q->got[i])
            return 0;
    /* the bytes of receive partition j that were sent: all, none, or the end of a shorter message */
    size_t a = (size_t)j * q->pbytes, n = 0;
    if (q->sent > a)
        n = q->sent - a < q->pbytes ? (size_t)(q->sent - a) : q->pbytes;
    if (q->tmp && n == q->pbytes)
        rch_mpi_unpack_n(q->tmp + a, q->buf + (MPI_Aint)j * q->count * q->t->extent, (size_t)q->count, q->t);
    else if (q->tmp && n > 0)
        rch_mpi_type_unpack(q->tmp + a, n, q->buf + (MPI_Aint)j * q->count * q->t->extent, q->count, q->t);
    q->unpacked[j] = 1;
    return 1;
}

/* Note finished receives; returns how many. */
static unsigned reap(struct part *q)
{
    unsigned n = 0;
    for (int i = 0; i < q->nsp; i++) {
        struct rch_dev_req *r = q->req[i];
        if (!r || !rch_mpi_dreq_done(r))
            continue;
        if (r->err != RDMACH_OK && q->err == RDMACH_OK)
            q->err = r->err;
        rch_dev_req_free(r);
        q->req[i] = NULL;
        if (q->is_send) {
            continue;
        }
        q->got[i] = 1;
        q->ngot++;
        n++;
    }
    return n;
}

/* Advance q; 1 when its cycle is over. */
static int advance(struct part *q)
{
    if (q->is_send) {
        reap(q);
        if (q->err != RDMACH_OK)
            return 1;
        for (int i = 0; i < q->nsp; i++)
            if (q->req[i])
                return 0;
        return q->nready == q->partitions;
    }
    if (!q->have_hello && q->hello && rch_mpi_dreq_done(q->hello))
        take_hello(q);
    if (q->setup_err != RDMACH_OK && q->err == RDMACH_OK)
        q->err = q->setup_err;
    /* an error with this cycle's receives posted waits for them below: ending the cycle would leave
     * a matched one writing into the user's buffer after MPI_Wait returned */
    if (q->err != RDMACH_OK && !q->posted)
        return 1;
    if (!q->have_hello)
        return 0;
    if (!q->posted)
        post_recvs(q);
    reap(q);
    if (q->posted < 0)   /* a receive could not be posted: fail now (cycle_end cancels the others) */
        return 1;
    /* after an error too, wait for every send partition: the sender completes only once they are
     * received (a rendezvous message waits for its receive) */
    if (q->ngot < q->nsp)
        return 0;
    if (q->err == RDMACH_OK && q->trunc_err != RDMACH_OK)
        q->err = q->trunc_err;
    if (q->err != RDMACH_OK)
        return 1;
    for (int j = 0; j < q->partitions; j++)
        recv_part_arrived(q, j);
    return 1;
}

/* A receive's status: a partitioned receive completes through MPI_Wait,
 * MPI_Test and the rest (MPI-4.1 §4.2.2), whose status of a receive carries
 * its source, tag and count (§3.2.5): the sender, the tag, and the whole
 * buffer (every partition) or, from a shorter message, what was sent. From MPI_PROC_NULL: the empty status (source
 * MPI_PROC_NULL, tag MPI_ANY_TAG, count 0, §3.11). The completion calls
 * read it off the GREQ as they do MPI_Isendrecv's. */
static void recv_outcome(const struct part *q, struct rch_dev_req *g)
{
    int null = q->peer == MPI_PROC_NULL;
    size_t mine = q->pbytes * (size_t)q->partitions;
    uint64_t sent = q->have_hello ? q->hi.partitions * q->hi.part_bytes : mine;
    g->user_word[0] = RCH_MPI_DREQ_RECV_STATUS;
    g->source = null ? MPI_PROC_NULL : q->peer;
    g->tag = null ? MPI_ANY_TAG : q->tag;
    g->bytes = null ? 0 : sent < mine ? (size_t)sent : mine;
    g->msg_bytes = null ? 0 : (size_t)sent;
    g->cancelled = 0;
}

/* The end of a cycle: complete its request. */
static void cycle_end(struct part *q)
{
    struct rch_dev_req *g = q->greq;
    q->greq = NULL;
    if (q->err != RDMACH_OK)
        for (int i = 0; i < q->nsp; i++)
            if (q->req[i]) {
                rch_dev_cancel(q->req[i]);
                rch_dev_req_free(q->req[i]);
                q->req[i] = NULL;
            }
    if (g) {
        if (!q->is_send)
            recv_outcome(q, g);
        g->err = q->err;
        rch_dev_req_complete(g);
    }
    if (q->orphan)
        part_free(q);
}

static unsigned hook(void *arg)
{
    (void)arg;
    unsigned n = 0;
    for (struct part **pp = &active; *pp;) {
        struct part *q = *pp;
        if (!advance(q)) {
            pp = &q->next;
            continue;
        }
        *pp = q->next;
        cycle_end(q);
        n++;
    }
    if (!active && hooked) {
        rch_dev_progress_hook_remove(hook, NULL);
        hooked = 0;
    }
    return n;
}

/* ---- the persistent request ---- */

static int part_start(const char *fn, void *obj, MPI_Request h, struct rch_mpi_req *e)
{
    struct part *q = obj;
    struct rch_dev_req *g = rch_dev_req_alloc(RCH_DEV_REQ_GREQ);
    rdmach_status_t st = g ? RDMACH_OK : RDMACH_ERR_NO_MEMORY;
    if (g && !hooked && q->peer != MPI_PROC_NULL) {
        st = rch_dev_progress_hook_add(hook, NULL);
        hooked = st == RDMACH_OK;
    }
    if (st != RDMACH_OK) {
        rch_dev_req_free(g);
        return rch_mpi_err(e->comm, st == RDMACH_ERR_NO_MEMORY ? MPI_ERR_NO_MEM : MPI_ERR_INTERN,
                           "%s: cannot start the partitioned request 0x%x: %s", fn, (unsigned)h,
                           rdmach_strerror(st));
    }
    q->err = RDMACH_OK;
    q->nready = q->ngot = 0;
    q->posted = 0;
    if (q->ready)
        memset(q->ready, 0, (size_t)q->partitions);
    if (q->got)
        memset(q->got, 0, (size_t)q->nsp);
    memset(q->unpacked, 0, (size_t)q->partitions);
    q->greq = g;
    e->dreq = g;
    e->pstate = RCH_MPI_PS_ACTIVE;
    if (q->peer == MPI_PROC_NULL) {   /* nothing to move: done at once */
        q->greq = NULL;
        memset(q->unpacked, 1, (size_t)q->partitions);
        if (!q->is_send)
            recv_outcome(q, g);
        rch_dev_req_complete(g);
        return MPI_SUCCESS;
    }
    q->next = active;
    active = q;
    return MPI_SUCCESS;
}

static void part_release(void *obj)
{
    struct part *q = obj;
    if (q->greq) {
        q->orphan = 1;   /* the cycle goes on; cycle_end frees it */
        return;
    }
    part_free(q);
}

static const struct rch_mpi_persist_ops part_ops = {
    .name = "partitioned",
    .start = part_start,
    .release = part_release,
};

static int nomem(const char *fn, MPI_Comm comm, struct part *q)
{
    part_free(q);
    return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
}

static int make(const char *fn, int is_send, void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                int peer, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct rch_mpi_comm *c;
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    /* a partitioned receive names its sender and tag (MPI-4.0 4.2.2) */
    if (!is_send && peer == MPI_ANY_SOURCE)
        return rch_mpi_err(comm, MPI_ERR_RANK, "%s: MPI_ANY_SOURCE is not allowed in argument source", fn);
    if (!is_send && tag == MPI_ANY_TAG)
        return rch_mpi_err(comm, MPI_ERR_TAG, "%s: MPI_ANY_TAG is not allowed in argument tag", fn);
    if ((err = rch_mpi_check_peer(fn, comm, peer, tag, !is_send, &c)))
        return err;
    if (partitions < 1 || partitions > PART_MAX)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: invalid number of partitions %d in argument partitions "
                           "(1 .. %d)", fn, partitions, PART_MAX);
    if (count < 0 || count > 0x7fffffff)
        return rch_mpi_err(comm, MPI_ERR_COUNT, "%s: invalid count %lld in argument count", fn, (long long)count);
    const struct rch_mpi_type *t = rch_mpi_check_buf(comm, fn, buf, (int)count, datatype, &err);
    if (!t)
        return err;
    if ((err = rch_mpi_info_check(comm, fn, info)))
        return err;
    if (!request)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument request is NULL", fn);
    struct part *q = calloc(1, sizeof(*q));
    if (!q)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *q = (struct part){ .is_send = is_send, .c = c, .comm = comm, .peer = peer, .tag = tag, .buf = buf,
                        .partitions = partitions, .count = (int)count, .t = (struct rch_mpi_type *)t,
                        .pbytes = (size_t)count * t->size };
    rch_mpi_type_retain(q->t);
    size_t total = q->pbytes * (size_t)partitions;
    q->unpacked = calloc((size_t)partitions, 1);
    if (!q->unpacked)
        return nomem(fn, comm, q);
    if (!t->contig && total > 0) {
        if (!(q->tmp = malloc(total)))
            return nomem(fn, comm, q);
        q->data = q->tmp;
    } else {
        q->data = q->buf + (total ? t->true_lb : 0);
    }
    rdmach_status_t st = RDMACH_OK;
    uint32_t hctx = c->ctx | RCH_MPI_CTX_PART;
    if (is_send) {
        q->nsp = partitions;
        q->req = calloc((size_t)partitions, sizeof(*q->req));
        q->ready = calloc((size_t)partitions, 1);
        if (!q->req || !q->ready)
            return nomem(fn, comm, q);
        next_chan = next_chan % PART_CHAN_MAX + 1;
        q->hi = (struct hello){ PART_HELLO_MAGIC, next_chan, (uint64_t)partitions, q->pbytes };
        if (peer != MPI_PROC_NULL)
            st = rch_dev_isend(&q->hi, sizeof(q->hi), c->world_of[peer], c->rank, tag, hctx, RCH_DEV_SEND_STD,
                               &q->hello);
    } else if (peer != MPI_PROC_NULL) {
        st = rch_dev_irecv(&q->hi, sizeof(q->hi), peer, tag, hctx, &q->hello);
    }
    if (st != RDMACH_OK) {
        part_free(q);
        return rch_mpi_dev_error(fn, comm, st);
    }
    struct rch_mpi_persist *p = malloc(sizeof(*p));
    MPI_Request h = p ? rch_mpi_req_new_persistent(p, comm) : MPI_REQUEST_NULL;
    if (h == MPI_REQUEST_NULL) {
        free(p);
        return nomem(fn, comm, q);
    }
    *p = (struct rch_mpi_persist){ .op = RCH_MPI_PERSIST_OBJ, .ops = &part_ops, .obj = q };
    *request = h;
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    return make("MPI_Psend_init", 1, (void *)buf, partitions, count, datatype, dest, tag, comm, info, request);
}
#pragma weak MPI_Psend_init = PMPI_Psend_init

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RCH_MPI_CS();
    return make("MPI_Precv_init", 0, buf, partitions, count, datatype, source, tag, comm, info, request);
}
#pragma weak MPI_Precv_init = PMPI_Precv_init

/* The partitioned request behind a handle: MPI_ERR_REQUEST unless it is one
 * of the right side (and active, when `active`). */
static int get(const char *fn, MPI_Request h, int is_send, int need_active, struct part **qp)
{
    *qp = NULL;   /* (gcc -Wmaybe-uninitialized cannot see that an error return is never 0) */
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_req *e = rch_mpi_req_get(h);
    if (!e || !e->persist || e->persist->ops != &part_ops || ((struct part *)e->persist->obj)->is_send != is_send)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_REQUEST, "%s: request 0x%x in argument request is not a "
                           "partitioned %s request", fn, (unsigned)h, is_send ? "send" : "receive");
    *qp = e->persist->obj;
    if (need_active && e->pstate == RCH_MPI_PS_INACTIVE)
        return rch_mpi_err(e->comm, MPI_ERR_REQUEST, "%s: the partitioned request 0x%x is not active "
                           "(MPI_Start it first)", fn, (unsigned)h);
    return MPI_SUCCESS;
}

/* Mark send partition i ready: pack it if needed and send it. */
static int ready_one(const char *fn, struct part *q, int i, const char *arg, int idx)
{
    if (i < 0 || i >= q->partitions)
        return rch_mpi_err(q->comm, MPI_ERR_ARG, "%s: invalid partition %d in argument %s%s (0 .. %d)", fn, i,
                           arg, idx >= 0 ? "[]" : "", q->partitions - 1);
    if (q->ready[i])
        return rch_mpi_err(q->comm, MPI_ERR_ARG, "%s: partition %d is already marked ready in this cycle", fn, i);
    q->ready[i] = 1;
    q->nready++;
    if (q->peer == MPI_PROC_NULL || !q->greq)
        return MPI_SUCCESS;
    if (q->tmp)
        rch_mpi_pack_n(q->buf + (MPI_Aint)i * q->count * q->t->extent, (size_t)q->count, q->t,
                       q->tmp + (size_t)i * q->pbytes);
    int tag = (int)(q->hi.chan << PART_IDX_BITS | (uint32_t)i);
    rdmach_status_t st = rch_dev_isend(q->data + (size_t)i * q->pbytes, q->pbytes, q->c->world_of[q->peer],
                                       q->c->rank, tag, (q->c->ctx + 1) | RCH_MPI_CTX_PART, RCH_DEV_SEND_STD,
                                       &q->req[i]);
    if (st != RDMACH_OK) {
        if (q->err == RDMACH_OK)
            q->err = st;
        return rch_mpi_dev_error(fn, q->comm, st);
    }
    return MPI_SUCCESS;
}

int PMPI_Pready(int partition, MPI_Request request)
{
    RCH_MPI_CS();
    struct part *q;
    int err = get("MPI_Pready", request, 1, 1, &q);
    return err ? err : ready_one("MPI_Pready", q, partition, "partition", -1);
}
#pragma weak MPI_Pready = PMPI_Pready

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Pready_range";
    struct part *q;
    int err = get(fn, request, 1, 1, &q);
    if (err)
        return err;
    if (partition_low < 0 || partition_high >= q->partitions || partition_low > partition_high)
        return rch_mpi_err(q->comm, MPI_ERR_ARG, "%s: invalid range %d .. %d in arguments partition_low, "
                           "partition_high (0 .. %d)", fn, partition_low, partition_high, q->partitions - 1);
    for (int i = partition_low; i <= partition_high && !err; i++)
        err = ready_one(fn, q, i, "partition_low", -1);
    return err;
}
#pragma weak MPI_Pready_range = PMPI_Pready_range

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Pready_list";
    struct part *q;
    int err = get(fn, request, 1, 1, &q);
    if (err)
        return err;
    if (length < 0)
        return rch_mpi_err(q->comm, MPI_ERR_ARG, "%s: invalid length %d in argument length", fn, length);
    if (length > 0 && !array_of_partitions)
        return rch_mpi_err(q->comm, MPI_ERR_ARG, "%s: argument array_of_partitions is NULL", fn);
    for (int k = 0; k < length && !err; k++)
        err = ready_one(fn, q, array_of_partitions[k], "array_of_partitions", k);
    return err;
}
#pragma weak MPI_Pready_list = PMPI_Pready_list

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Parrived";
    struct part *q;
    int err = get(fn, request, 0, 0, &q);
    if (err)
        return err;
    if (!flag)
        return rch_mpi_err(q->comm, MPI_ERR_ARG, "%s: argument flag is NULL", fn);
    if (partition < 0 || partition >= q->partitions)
        return rch_mpi_err(q->comm, MPI_ERR_ARG, "%s: invalid partition %d in argument partition (0 .. %d)", fn,
                           partition, q->partitions - 1);
    /* inactive (never started, or its cycle completed): every partition is there */
    if (!q->greq) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    rch_dev_progress();
    *flag = q->greq == NULL || (q->have_hello && q->err == RDMACH_OK && q->setup_err == RDMACH_OK && q->got &&
                                recv_part_arrived(q, partition));
    return MPI_SUCCESS;
}
#pragma weak MPI_Parrived = PMPI_Parrived
