/*
 * Buffered sends: Buffer_attach(_c), Buffer_detach(_c), Buffer_flush, Buffer_iflush,
 * Bsend, Ibsend, Comm_attach/detach_buffer, Comm_flush/iflush_buffer (a
 * session's buffer calls are in session.c, over the same pools).
 *
 * The attached buffer holds one segment per message still in flight: a
 * header (what the segment spans and its device request) followed by the
 * packed message, which the device sends from there. Segments are kept in
 * address order and a new one takes the first gap that fits (first fit);
 * a segment is reclaimed once its send has completed, so the space of an
 * eager message is free again as soon as Bsend returns.
 *
 *   [hdr|data....][hdr|data..]      gap      [hdr|data.......]      end
 *
 * Overhead per message: the header rounded up to 16 bytes plus up to 15
 * bytes of alignment, well under MPI_BSEND_OVERHEAD (96).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"

struct bseg {
    struct bseg *next;          /* next segment by address (any order in an automatic pool) */
    size_t total;               /* header + data, rounded */
    struct rch_dev_req *req;    /* the send's device request, when the buffer owns it */
    uint64_t id;                /* else its id: an MPI request owns it (Ibsend, Bsend_init) */
};
#define HDR ((sizeof(struct bseg) + 15) & ~(size_t)15)
_Static_assert(HDR + 15 <= MPI_BSEND_OVERHEAD, "Bsend overhead exceeds MPI_BSEND_OVERHEAD");

/* One attached buffer: the process's (MPI_Buffer_attach), a communicator's
 * or a session's (MPI-4.1 3.6.1). An automatic one (MPI_BUFFER_AUTOMATIC)
 * has no user memory: each segment is allocated for its message and freed
 * once sent. Every pool is on one list, so MPI_Finalize flushes them all. */
struct rch_mpi_bpool {
    char *buf;                  /* the user's buffer (automatic: NULL) */
    size_t size;
    int automatic;
    struct bseg *segs;          /* in flight, by address */
    struct rch_mpi_bpool *next, **prevp;   /* the list of pools */
};
static struct rch_mpi_bpool *process_pool;
static struct rch_mpi_bpool *pools;

static inline char *align16(char *p)
{
    return (char *)(((uintptr_t)p + 15) & ~(uintptr_t)15);
}

/* Is the send of a segment over (its space free again)? */
static int seg_done(const struct bseg *s)
{
    return s->req ? rch_mpi_dreq_done(s->req) : !rch_dev_req_id_busy(s->id);
}

static void seg_drop(struct rch_mpi_bpool *p, struct bseg **pp)
{
    struct bseg *s = *pp;
    *pp = s->next;
    if (p->automatic)
        free(s);
}

/* Drops every segment whose send has completed. A failure of a send the
 * buffer owns is reported here; an MPI request reports its own. */
static void reclaim(struct rch_mpi_bpool *p)
{
    struct bseg **pp = &p->segs;
    while (*pp) {
        struct bseg *s = *pp;
        if (seg_done(s)) {
            if (s->req && s->req->err != RDMACH_OK)
                rch_mpi_err(MPI_COMM_NULL, rch_mpi_class_of(s->req->err), "MPI_Bsend: a buffered send failed: %s",
                            rdmach_strerror(s->req->err));
            if (s->req)
                rch_dev_req_free(s->req);
            seg_drop(p, pp);
        } else {
            pp = &s->next;
        }
    }
}

static struct bseg *seg_link(struct bseg *s, struct bseg **pp, size_t need)
{
    s->next = *pp;
    s->total = need;
    s->req = NULL;
    s->id = 0;
    *pp = s;
    return s;
}

/* First gap of `need` bytes; the new segment linked in. NULL if none. */
static struct bseg *seg_alloc(struct rch_mpi_bpool *p, size_t need)
{
    if (p->automatic) {
        struct bseg *s = aligned_alloc(16, need);
        return s ? seg_link(s, &p->segs, need) : NULL;
    }
    char *end = p->buf + p->size;
    char *pos = align16(p->buf);
    struct bseg **pp = &p->segs;
    for (;;) {
        char *limit = *pp ? (char *)*pp : end;
        if (pos <= limit && (size_t)(limit - pos) >= need)
            return seg_link((struct bseg *)pos, pp, need);
        if (!*pp)
            return NULL;
        pos = align16((char *)*pp + (*pp)->total);
        pp = &(*pp)->next;
    }
}

static void seg_unlink(struct rch_mpi_bpool *p, struct bseg *s)
{
    struct bseg **pp = &p->segs;
    while (*pp != s)
        pp = &(*pp)->next;
    seg_drop(p, pp);
}

/* The first segment's send has finished, or no segment is left. Looked up
 * afresh on every poll: at MPI_THREAD_MULTIPLE a thread that waits hands
 * the lock over, and another thread's reclaim may drop segments meanwhile. */
static int head_done(void *arg)
{
    struct rch_mpi_bpool *p = arg;
    return !p->segs || seg_done(p->segs);
}

static void pool_flush(struct rch_mpi_bpool *p)
{
    while (p->segs) {
        rch_dev_wait_until(head_done, p);
        reclaim(p);
    }
}

void rch_mpi_bsend_flush(void)
{
    for (struct rch_mpi_bpool *p = pools; p; p = p->next)
        pool_flush(p);
}

int rch_mpi_bpool_flush(struct rch_mpi_bpool *p)
{
    if (p)
        pool_flush(p);
    return MPI_SUCCESS;
}

int rch_mpi_bpool_attach(const char *fn, MPI_Comm comm, struct rch_mpi_bpool **slot, void *buffer, MPI_Count size)
{
    int automatic = buffer == MPI_BUFFER_AUTOMATIC;
    if (!automatic && size < 0)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: invalid size %lld in argument size", fn, (long long)size);
    if (!automatic && !buffer && size > 0)
        return rch_mpi_err(comm, MPI_ERR_BUFFER, "%s: argument buffer is NULL", fn);
    if (*slot)
        return rch_mpi_err(comm, MPI_ERR_BUFFER, "%s: a buffer (%s) is already attached; detach it first", fn,
                           (*slot)->automatic ? "MPI_BUFFER_AUTOMATIC" : "user memory");
    struct rch_mpi_bpool *p = calloc(1, sizeof(*p));
    if (!p)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    p->automatic = automatic;
    p->buf = automatic ? NULL : buffer ? buffer : (char *)p;   /* a zero-size attach is still an attach */
    p->size = automatic ? 0 : (size_t)size;
    p->next = pools;
    p->prevp = &pools;
    if (pools)
        pools->prevp = &p->next;
    pools = p;
    *slot = p;
    return MPI_SUCCESS;
}

/* MPI: blocks until every message buffered in it has left. max: the largest
 * size the caller's type holds (a larger buffer stays attached:
 * MPI_ERR_VALUE_TOO_LARGE, MPI-4.1's class for an output an int cannot hold). */
int rch_mpi_bpool_detach_c(const char *fn, MPI_Comm comm, struct rch_mpi_bpool **slot, void *buffer_addr,
                           MPI_Count *size, MPI_Count max)
{
    if (!buffer_addr || !size)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !buffer_addr ? "buffer_addr" : "size");
    struct rch_mpi_bpool *p = *slot;
    if (!p) {
        *(void **)buffer_addr = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    if ((MPI_Count)p->size > max)
        return rch_mpi_err(comm, MPI_ERR_VALUE_TOO_LARGE, "%s: the attached buffer has %zu bytes, more than "
                           "argument size can hold (use %s_c); it stays attached", fn, p->size, fn);
    pool_flush(p);
    *(void **)buffer_addr = p->automatic ? MPI_BUFFER_AUTOMATIC : p->buf == (char *)p ? NULL : p->buf;
    *size = (MPI_Count)p->size;
    rch_mpi_bpool_drop(slot);
    return MPI_SUCCESS;
}

int rch_mpi_bpool_detach(const char *fn, MPI_Comm comm, struct rch_mpi_bpool **slot, void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int err = rch_mpi_bpool_detach_c(fn, comm, slot, buffer_addr, size ? &n : NULL, INT_MAX);
    if (!err)
        *size = (int)n;
    return err;
}

void rch_mpi_bpool_drop(struct rch_mpi_bpool **slot)
{
    struct rch_mpi_bpool *p = *slot;
    if (!p)
        return;
    pool_flush(p);
    *p->prevp = p->next;
    if (p->next)
        p->next->prevp = p->prevp;
    free(p);
    *slot = NULL;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Buffer_attach");
    return err ? err : rch_mpi_bpool_attach("MPI_Buffer_attach", MPI_COMM_NULL, &process_pool, buffer, size);
}
#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Buffer_detach");
    return err ? err : rch_mpi_bpool_detach("MPI_Buffer_detach", MPI_COMM_NULL, &process_pool, buffer_addr, size);
}
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Buffer_attach_c");
    return err ? err : rch_mpi_bpool_attach("MPI_Buffer_attach_c", MPI_COMM_NULL, &process_pool, buffer, size);
}
#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Buffer_detach_c");
    return err ? err : rch_mpi_bpool_detach_c("MPI_Buffer_detach_c", MPI_COMM_NULL, &process_pool, buffer_addr,
                                              size, INT64_MAX);
}
#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c

int PMPI_Buffer_flush(void)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Buffer_flush");
    return err ? err : rch_mpi_bpool_flush(process_pool);
}
#pragma weak MPI_Buffer_flush = PMPI_Buffer_flush

int rch_mpi_bpool_iflush(const char *fn, MPI_Comm comm, struct rch_mpi_bpool *p, MPI_Request *request)
{
    if (!request)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument request is NULL", fn);
    rch_mpi_bpool_flush(p);
    *request = RCH_MPI_REQ_DONE_NULL;
    return MPI_SUCCESS;
}

int PMPI_Buffer_iflush(MPI_Request *request)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Buffer_iflush");
    return err ? err : rch_mpi_bpool_iflush("MPI_Buffer_iflush", MPI_COMM_NULL, process_pool, request);
}
#pragma weak MPI_Buffer_iflush = PMPI_Buffer_iflush

/* MPI-4.1 3.6.1: a communicator's buffer, else its session's, else the process's. */
static struct rch_mpi_bpool *pool_of(const struct rch_mpi_comm *c)
{
    if (c->bpool)
        return c->bpool;
    struct rch_mpi_bpool *p = rch_mpi_session_bpool(c->session);
    return p ? p : process_pool;
}

int rch_mpi_bsend_start(const char *fn, const void *buf, int count, const struct rch_mpi_type *t, int dest,
                        int tag, struct rch_mpi_comm *c, struct rch_dev_req **owned)
{
    MPI_Comm comm = c->handle;
    struct rch_mpi_bpool *pool = pool_of(c);
    if (!pool)
        return rch_mpi_err(comm, MPI_ERR_BUFFER, "%s: no buffer is attached (MPI_Buffer_attach)", fn);
    size_t bytes = (size_t)count * t->size;
    size_t need = HDR + ((bytes + 15) & ~(size_t)15);
    reclaim(pool);
    struct bseg *s = seg_alloc(pool, need);
    if (!s && !pool->automatic) {
        rch_dev_progress();
        reclaim(pool);
        s = seg_alloc(pool, need);
    }
    if (!s && pool->automatic)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory for a message of %zu bytes (MPI_BUFFER_AUTOMATIC)",
                           fn, bytes);
    if (!s) {
        int n = 0;
        for (struct bseg *p = pool->segs; p; p = p->next)
            n++;
        return rch_mpi_err(comm, MPI_ERR_BUFFER,
                           "%s: a message of %zu bytes does not fit in the attached buffer of %zu bytes (%d messages still in flight)",
                           fn, bytes, pool->size, n);
    }
    char *data = (char *)s + HDR;
    if (bytes == 0)
        ;                                 /* buf may be NULL (count 0) */
    else if (t->contig)
        memcpy(data, (const char *)buf + t->true_lb, bytes);
    else
        rch_mpi_type_pack(buf, count, t, data);
    struct rch_dev_req *r;
    rdmach_status_t st = rch_dev_isend(data, bytes, c->peer_world_of[dest], c->rank, tag, c->ctx, RCH_DEV_SEND_STD, &r);
    if (st != RDMACH_OK) {
        seg_unlink(pool, s);
        return rch_mpi_dev_error(fn, comm, st);
    }
    if (owned)
        *owned = r;
    if (!r)
        seg_unlink(pool, s);      /* sent at once: the space is free again */
    else if (owned)
        s->id = rch_dev_req_id(r);
    else
        s->req = r;
    return MPI_SUCCESS;
}

/* owned as for rch_mpi_bsend_start; *world the destination's world rank
 * (-1: MPI_PROC_NULL, nothing sent). */
static int bsend(const char *fn, const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, struct rch_dev_req **owned, int *world)
{
    struct rch_mpi_comm *c;
    int err = rch_mpi_check_peer(fn, comm, dest, tag, 0, &c);
    if (err)
        return err;
    const struct rch_mpi_type *t = rch_mpi_check_buf(comm, fn, buf, count, datatype, &err);
    if (!t)
        return err;
    *world = dest == MPI_PROC_NULL ? -1 : c->peer_world_of[dest];
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    return rch_mpi_bsend_start(fn, buf, count, t, dest, tag, c, owned);
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    RCH_MPI_CS();
    int world;
    return bsend("MPI_Bsend", buf, count, datatype, dest, tag, comm, NULL, &world);
}
#pragma weak MPI_Bsend = PMPI_Bsend

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    RCH_MPI_CS();
    if (!request) {
        int err = rch_mpi_check_init("MPI_Ibsend");
        return err ? err : rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Ibsend: argument request is NULL");
    }
    struct rch_dev_req *r = NULL;
    int world;
    int err = bsend("MPI_Ibsend", buf, count, datatype, dest, tag, comm, &r, &world);
    if (err)
        return err;
    /* The message is in the attached buffer: the request is complete. It
     * keeps the send's device request (or its message's number) so that
     * MPI_Cancel reaches it; the buffer's space is held until that send is
     * over. */
    MPI_Request h = world < 0 ? rch_mpi_req_new_done(RCH_MPI_PS_DONE_SEND, -1, 0, comm)
                              : rch_mpi_req_new_send(r, world, comm);
    if (h == MPI_REQUEST_NULL) {
        if (r)
            rch_dev_req_free(r);
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Ibsend: out of memory for a request");
    }
    rch_mpi_req_get(h)->buffered = r != NULL;
    *request = h;
    return MPI_SUCCESS;
}
#pragma weak MPI_Ibsend = PMPI_Ibsend

/* ---- a communicator's buffer (MPI-4.1 3.6.1) ---- */

static struct rch_mpi_comm *buffer_comm(const char *fn, MPI_Comm comm, int *err)
{
    *err = rch_mpi_check_init(fn);
    return *err ? NULL : rch_mpi_comm_arg(fn, comm, err);
}

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_comm *c = buffer_comm("MPI_Comm_attach_buffer", comm, &err);
    return c ? rch_mpi_bpool_attach("MPI_Comm_attach_buffer", comm, &c->bpool, buffer, size) : err;
}
#pragma weak MPI_Comm_attach_buffer = PMPI_Comm_attach_buffer

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_comm *c = buffer_comm("MPI_Comm_detach_buffer", comm, &err);
    return c ? rch_mpi_bpool_detach("MPI_Comm_detach_buffer", comm, &c->bpool, buffer_addr, size) : err;
}
#pragma weak MPI_Comm_detach_buffer = PMPI_Comm_detach_buffer

int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_comm *c = buffer_comm("MPI_Comm_attach_buffer_c", comm, &err);
    return c ? rch_mpi_bpool_attach("MPI_Comm_attach_buffer_c", comm, &c->bpool, buffer, size) : err;
}
#pragma weak MPI_Comm_attach_buffer_c = PMPI_Comm_attach_buffer_c

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_comm *c = buffer_comm("MPI_Comm_detach_buffer_c", comm, &err);
    return c ? rch_mpi_bpool_detach_c("MPI_Comm_detach_buffer_c", comm, &c->bpool, buffer_addr, size, INT64_MAX)
             : err;
}
#pragma weak MPI_Comm_detach_buffer_c = PMPI_Comm_detach_buffer_c

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_comm *c = buffer_comm("MPI_Comm_flush_buffer", comm, &err);
    return c ? rch_mpi_bpool_flush(c->bpool) : err;
}
#pragma weak MPI_Comm_flush_buffer = PMPI_Comm_flush_buffer

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_comm *c = buffer_comm("MPI_Comm_iflush_buffer", comm, &err);
    return c ? rch_mpi_bpool_iflush("MPI_Comm_iflush_buffer", comm, c->bpool, request) : err;
}
#pragma weak MPI_Comm_iflush_buffer = PMPI_Comm_iflush_buffer
