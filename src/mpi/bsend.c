/*
 * Buffered sends: Buffer_attach(_c), Buffer_detach(_c), Bsend, Ibsend.
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
    struct bseg *next;          /* next segment by address */
    size_t total;               /* header + data, rounded */
    struct rch_dev_req *req;    /* the send's device request, when the buffer owns it */
    uint64_t id;                /* else its id: an MPI request owns it (Ibsend, Bsend_init) */
};
#define HDR ((sizeof(struct bseg) + 15) & ~(size_t)15)
_Static_assert(HDR + 15 <= MPI_BSEND_OVERHEAD, "Bsend overhead exceeds MPI_BSEND_OVERHEAD");

static char *bbuf;              /* the attached buffer, NULL if none */
static size_t bsize;
static struct bseg *segs;       /* in flight, by address */

static inline char *align16(char *p)
{
    return (char *)(((uintptr_t)p + 15) & ~(uintptr_t)15);
}

/* Is the send of a segment over (its space free again)? */
static int seg_done(const struct bseg *s)
{
    return s->req ? rch_mpi_dreq_done(s->req) : !rch_dev_req_id_busy(s->id);
}

/* Drops every segment whose send has completed. A failure of a send the
 * buffer owns is reported here; an MPI request reports its own. */
static void reclaim(void)
{
    struct bseg **pp = &segs;
    while (*pp) {
        struct bseg *s = *pp;
        if (seg_done(s)) {
            if (s->req && s->req->err != RDMACH_OK)
                rch_mpi_err(MPI_COMM_NULL, rch_mpi_class_of(s->req->err), "MPI_Bsend: a buffered send failed: %s",
                            rdmach_strerror(s->req->err));
            if (s->req)
                rch_dev_req_free(s->req);
            *pp = s->next;
        } else {
            pp = &s->next;
        }
    }
}

/* First gap of `need` bytes; the new segment linked in. NULL if none. */
static struct bseg *seg_alloc(size_t need)
{
    char *end = bbuf + bsize;
    char *pos = align16(bbuf);
    struct bseg **pp = &segs;
    for (;;) {
        char *limit = *pp ? (char *)*pp : end;
        if (pos <= limit && (size_t)(limit - pos) >= need) {
            struct bseg *s = (struct bseg *)pos;
            s->next = *pp;
            s->total = need;
            s->req = NULL;
            s->id = 0;
            *pp = s;
            return s;
        }
        if (!*pp)
            return NULL;
        pos = align16((char *)*pp + (*pp)->total);
        pp = &(*pp)->next;
    }
}

static void seg_unlink(struct bseg *s)
{
    struct bseg **pp = &segs;
    while (*pp != s)
        pp = &(*pp)->next;
    *pp = s->next;
}

/* The first segment's send has finished, or no segment is left. Looked up
 * afresh on every poll: at MPI_THREAD_MULTIPLE a thread that waits hands
 * the lock over, and another thread's reclaim may drop segments meanwhile. */
static int head_done(void *arg)
{
    (void)arg;
    return !segs || seg_done(segs);
}

void rch_mpi_bsend_flush(void)
{
    while (segs) {
        rch_dev_wait_until(head_done, NULL);
        reclaim();
    }
}

/* MPI_Buffer_attach(_c): the buffer's size is an MPI_Count in the _c form. */
static int attach(const char *fn, void *buffer, MPI_Count size)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (size < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: invalid size %lld", fn, (long long)size);
    if (!buffer && size > 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_BUFFER, "%s: argument buffer is NULL", fn);
    if (bbuf)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_BUFFER,
                           "%s: a buffer (%zu bytes) is already attached; detach it first", fn, bsize);
    bbuf = buffer ? buffer : (char *)&bbuf;   /* a zero-size attach is still an attach */
    bsize = (size_t)size;
    segs = NULL;
    return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    RCH_MPI_CS();
    return attach("MPI_Buffer_attach", buffer, size);
}
#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    RCH_MPI_CS();
    return attach("MPI_Buffer_attach_c", buffer, size);
}
#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c

/* MPI_Buffer_detach(_c); max: the largest size the caller's type holds (a
 * larger buffer stays attached: MPI_ERR_VALUE_TOO_LARGE, MPI-4.1's class for
 * an output an int cannot hold). */
static int detach(const char *fn, void *buffer_addr, MPI_Count *size, MPI_Count max)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!buffer_addr || !size)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn,
                           !buffer_addr ? "buffer_addr" : "size");
    if (!bbuf) {
        *(void **)buffer_addr = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    if ((MPI_Count)bsize > max)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_VALUE_TOO_LARGE,
                           "%s: the attached buffer's %zu bytes do not fit an int (MPI_Buffer_detach_c)", fn, bsize);
    rch_mpi_bsend_flush();       /* MPI: blocks until every buffered message has left */
    *(void **)buffer_addr = bbuf == (char *)&bbuf ? NULL : bbuf;
    *size = (MPI_Count)bsize;
    bbuf = NULL;
    bsize = 0;
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    RCH_MPI_CS();
    MPI_Count n = 0;
    int err = detach("MPI_Buffer_detach", buffer_addr, size ? &n : NULL, INT_MAX);
    if (!err)
        *size = (int)n;
    return err;
}
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    RCH_MPI_CS();
    return detach("MPI_Buffer_detach_c", buffer_addr, size, INT64_MAX);
}
#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c

int rch_mpi_bsend_start(const char *fn, const void *buf, int count, const struct rch_mpi_type *t, int dest,
                        int tag, struct rch_mpi_comm *c, struct rch_dev_req **owned)
{
    MPI_Comm comm = c->handle;
    if (!bbuf)
        return rch_mpi_err(comm, MPI_ERR_BUFFER, "%s: no buffer is attached (MPI_Buffer_attach)", fn);
    size_t bytes = (size_t)count * t->size;
    size_t need = HDR + ((bytes + 15) & ~(size_t)15);
    reclaim();
    struct bseg *s = seg_alloc(need);
    if (!s) {
        rch_dev_progress();
        reclaim();
        s = seg_alloc(need);
    }
    if (!s) {
        int n = 0;
        for (struct bseg *p = segs; p; p = p->next)
            n++;
        return rch_mpi_err(comm, MPI_ERR_BUFFER,
                           "%s: a message of %zu bytes does not fit in the attached buffer of %zu bytes (%d messages still in flight)",
                           fn, bytes, bsize, n);
    }
    char *data = (char *)s + HDR;
    if (t->contig)
        memcpy(data, (const char *)buf + t->true_lb, bytes);
    else
        rch_mpi_type_pack(buf, count, t, data);
    struct rch_dev_req *r;
    rdmach_status_t st = rch_dev_isend(data, bytes, c->world_of[dest], c->rank, tag, c->ctx, RCH_DEV_SEND_STD, &r);
    if (st != RDMACH_OK) {
        seg_unlink(s);
        return rch_mpi_dev_error(fn, comm, st);
    }
    if (owned)
        *owned = r;
    if (!r)
        seg_unlink(s);            /* sent at once: the space is free again */
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
    *world = dest == MPI_PROC_NULL ? -1 : c->world_of[dest];
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
