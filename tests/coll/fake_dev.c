/* The fake device of fake_dev.h. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "coll/coll.h"
#include "device/dev.h"
#include "fake_dev.h"

/* The device's MPI_THREAD_MULTIPLE flag (device/cs.h): never on here. */
int rch_dev_cs_on;

struct freq {
    struct rch_dev_req pub;    /* first: the device hands out &pub */
    int detached;              /* freed by the user before completion */
    /* posted receive */
    void *buf;
    size_t len;
    int src, tag;
    uint32_t ctx;
    struct freq *next;
};

struct fmsg {
    struct fmsg *next;
    uint32_t ctx;
    int src, tag;
    size_t len;
    void *data;                /* eager copy, or the sender's buffer (rendezvous) */
    struct freq *sender;       /* rendezvous: completes on match */
};

struct mailbox {
    struct fmsg *unexp_head, *unexp_tail;
    struct freq *posted_head, *posted_tail;
};

struct waiter {
    rch_dev_done_fn done;
    void *arg;
    int active;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct mailbox *boxes;
static struct waiter *waiters;
static int nranks, nlive, deadlock;
static size_t eager_max;
static __thread int me;

static int matches(uint32_t ctx, int src, int tag, uint32_t mctx, int msrc, int mtag)
{
    return ctx == mctx && (src == RCH_DEV_ANY_SOURCE || src == msrc) &&
           (tag == RCH_DEV_ANY_TAG || tag == mtag);
}

static void complete(struct freq *r)
{
    r->pub.done = 1;
    if (r->detached)
        free(r);
}

/* Deliver message data to a matched receive. */
static void deliver(struct freq *r, const void *data, size_t len, int src, int tag)
{
    size_t n = len < r->len ? len : r->len;
    if (n)
        memcpy(r->buf, data, n);
    r->pub.source = src;
    r->pub.tag = tag;
    r->pub.bytes = n;
    r->pub.msg_bytes = len;
    r->pub.err = len > r->len ? RDMACH_ERR_TRUNCATE : RDMACH_OK;
    complete(r);
}

static struct freq *new_req(int kind)
{
    struct freq *r = calloc(1, sizeof(*r));
    if (r)
        r->pub.kind = kind;
    return r;
}

rdmach_status_t rch_dev_isend(const void *buf, size_t len, int dest, int src, int tag, uint32_t ctx,
                              int mode, struct rch_dev_req **req)
{
    (void)mode;
    *req = NULL;
    if (dest < 0 || dest >= nranks)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "fake isend: no world rank %d", dest);
    pthread_mutex_lock(&lock);
    struct mailbox *mb = &boxes[dest];
    struct freq **pp = &mb->posted_head, *prev = NULL;
    for (; *pp; prev = *pp, pp = &(*pp)->next) {
        struct freq *r = *pp;
        if (matches(r->ctx, r->src, r->tag, ctx, src, tag)) {
            *pp = r->next;
            if (mb->posted_tail == r)
                mb->posted_tail = prev;
            deliver(r, buf, len, src, tag);
            pthread_cond_broadcast(&cond);
            pthread_mutex_unlock(&lock);
            return RDMACH_OK;
        }
    }
    struct fmsg *m = calloc(1, sizeof(*m));
    if (!m) {
        pthread_mutex_unlock(&lock);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "fake isend");
    }
    m->ctx = ctx;
    m->src = src;
    m->tag = tag;
    m->len = len;
    if (len <= eager_max) {
        m->data = malloc(len ? len : 1);
        if (len)
            memcpy(m->data, buf, len);
    } else {
        m->data = (void *)buf;
        m->sender = new_req(RCH_DEV_REQ_SEND);
        m->sender->pub.bytes = len;
        *req = &m->sender->pub;
    }
    if (mb->unexp_tail)
        mb->unexp_tail->next = m;
    else
        mb->unexp_head = m;
    mb->unexp_tail = m;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    return RDMACH_OK;
}

rdmach_status_t rch_dev_irecv(void *buf, size_t len, int src, int tag, uint32_t ctx,
                              struct rch_dev_req **req)
{
    struct freq *r = new_req(RCH_DEV_REQ_RECV);
    if (!r)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "fake irecv");
    r->buf = buf;
    r->len = len;
    r->src = src;
    r->tag = tag;
    r->ctx = ctx;
    *req = &r->pub;
    pthread_mutex_lock(&lock);
    struct mailbox *mb = &boxes[me];
    struct fmsg **pp = &mb->unexp_head, *prev = NULL;
    for (; *pp; prev = *pp, pp = &(*pp)->next) {
        struct fmsg *m = *pp;
        if (matches(ctx, src, tag, m->ctx, m->src, m->tag)) {
            *pp = m->next;
            if (mb->unexp_tail == m)
                mb->unexp_tail = prev;
            deliver(r, m->data, m->len, m->src, m->tag);
            if (m->sender) {
                m->sender->pub.err = RDMACH_OK;
                complete(m->sender);
            } else {
                free(m->data);
            }
            free(m);
            pthread_cond_broadcast(&cond);
            pthread_mutex_unlock(&lock);
            return RDMACH_OK;
        }
    }
    if (mb->posted_tail)
        mb->posted_tail->next = r;
    else
        mb->posted_head = r;
    mb->posted_tail = r;
    pthread_mutex_unlock(&lock);
    return RDMACH_OK;
}

rdmach_status_t rch_dev_cancel(struct rch_dev_req *req)
{
    struct freq *t = (struct freq *)req;
    pthread_mutex_lock(&lock);
    struct mailbox *mb = &boxes[me];
    struct freq **pp = &mb->posted_head, *prev = NULL;
    for (; *pp; prev = *pp, pp = &(*pp)->next) {
        if (*pp == t) {
            *pp = t->next;
            if (mb->posted_tail == t)
                mb->posted_tail = prev;
            t->pub.cancelled = 1;
            t->pub.err = RDMACH_ERR_CANCELED;
            complete(t);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return RDMACH_OK;
}

void rch_dev_req_free(struct rch_dev_req *req)
{
    struct freq *r = (struct freq *)req;
    pthread_mutex_lock(&lock);
    if (r->pub.done)
        free(r);
    else
        r->detached = 1;
    pthread_mutex_unlock(&lock);
}

/* Generalized requests (the non-blocking collectives' schedules complete
 * one each): completed by their owner, waking any waiter. */
struct rch_dev_req *rch_dev_req_alloc(int kind)
{
    struct freq *r = new_req(kind);
    return r ? &r->pub : NULL;
}

void rch_dev_req_complete(struct rch_dev_req *req)
{
    struct freq *r = (struct freq *)req;
    pthread_mutex_lock(&lock);
    if (!r->pub.done) {
        if (r->pub.on_complete)
            r->pub.on_complete(&r->pub);
        complete(r);
        pthread_cond_broadcast(&cond);
    }
    pthread_mutex_unlock(&lock);
}

/* Progress hooks (the non-blocking collectives' engine registers one). The
 * fake's ranks are threads of one process and would share the engine's one
 * list of schedules, so schedules are tested with processes (tests/mpi);
 * here the hooks are kept and run by progress like the real device does. */
static struct { rch_dev_progress_fn fn; void *arg; } hooks[4];
static int nhooks;

rdmach_status_t rch_dev_progress_hook_add(rch_dev_progress_fn fn, void *arg)
{
    if (nhooks == 4)
        return rch_base_err(RDMACH_ERR_BUSY, "fake device: all progress hooks are taken");
    hooks[nhooks].fn = fn;
    hooks[nhooks].arg = arg;
    nhooks++;
    return RDMACH_OK;
}

void rch_dev_progress_hook_remove(rch_dev_progress_fn fn, void *arg)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i].fn == fn && hooks[i].arg == arg) {
            hooks[i] = hooks[--nhooks];
            return;
        }
}

unsigned rch_dev_progress(void)
{
    unsigned n = 0;
    for (int i = 0; i < nhooks; i++)
        n += hooks[i].fn(hooks[i].arg);
    return n;
}

/* No channel reaches another node here (the collectives then assume onload;
 * tests choose a profile with rch_coll_set_nic). */
int rch_dev_net_onload(void)
{
    return -1;
}

/* Under the lock: is any waiter able to go on? */
static int someone_can_proceed(void)
{
    for (int i = 0; i < nranks; i++)
        if (waiters[i].active && waiters[i].done(waiters[i].arg))
            return 1;
    return 0;
}

static int count_waiting(void)
{
    int n = 0;
    for (int i = 0; i < nranks; i++)
        n += waiters[i].active;
    return n;
}

rdmach_status_t rch_dev_wait_until(rch_dev_done_fn done, void *arg)
{
    rdmach_status_t st = RDMACH_OK;
    pthread_mutex_lock(&lock);
    waiters[me] = (struct waiter){ done, arg, 1 };
    while (!done(arg)) {
        if (!deadlock && count_waiting() == nlive && !someone_can_proceed()) {
            deadlock = 1;
            pthread_cond_broadcast(&cond);
        }
        if (deadlock) {
            st = rch_base_err(RDMACH_ERR_OTHER, "fake device: deadlock, all %d ranks wait", nlive);
            break;
        }
        pthread_cond_wait(&cond, &lock);
    }
    waiters[me].active = 0;
    pthread_mutex_unlock(&lock);
    return st;
}

/* The policy is the real device's business; here every wait sleeps on the
 * condition variable. */
rdmach_status_t rch_dev_wait_until_with(rch_dev_done_fn done, void *arg, const struct rch_dev_wait_policy *pol)
{
    (void)pol;
    return rch_dev_wait_until(done, arg);
}

/* A waiter's done-function may read memory another thread changed: wake
 * them all to look again (the lock orders the change before their test). */
void rch_dev_wake(int rank)
{
    (void)rank;
    pthread_mutex_lock(&lock);
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

int rch_dev_can_wake(int rank)
{
    return rank >= 0 && rank < nranks;
}

/* No rank of the fake device fails. */
unsigned rch_dev_failures(void)
{
    return 0;
}

int rch_dev_peer_is_dead(int world)
{
    (void)world;
    return 0;
}

static int req_done(void *arg)
{
    return ((struct rch_dev_req *)arg)->done;
}

rdmach_status_t rch_dev_wait(struct rch_dev_req *req)
{
    return rch_dev_wait_until(req_done, req);
}

/* ---- the harness ---- */

struct thr {
    int rank;
    void (*fn)(int, void *);
    void *arg;
};

static void *thread_main(void *p)
{
    struct thr *t = p;
    me = t->rank;
    t->fn(t->rank, t->arg);
    pthread_mutex_lock(&lock);
    nlive--;
    pthread_cond_broadcast(&cond);   /* the others may now all be waiting */
    pthread_mutex_unlock(&lock);
    return NULL;
}

static int leftovers;

int fake_dev_run(int n, size_t eager, void (*fn)(int, void *), void *arg)
{
    pthread_t *tid = calloc((size_t)n, sizeof(*tid));
    struct thr *t = calloc((size_t)n, sizeof(*t));
    boxes = calloc((size_t)n, sizeof(*boxes));
    waiters = calloc((size_t)n, sizeof(*waiters));
    if (!tid || !t || !boxes || !waiters)
        abort();
    nranks = nlive = n;
    deadlock = 0;
    eager_max = eager;
    /* as MPI_Init does, once, before any collective: the pretend ranks share
     * this process's configuration (rch_coll_init writes it); a test of a bad
     * setting hears of it again from its collectives */
    (void)rch_coll_init();
    for (int i = 0; i < n; i++) {
        t[i] = (struct thr){ i, fn, arg };
        if (pthread_create(&tid[i], NULL, thread_main, &t[i]) != 0)
            abort();
    }
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);

    leftovers = 0;
    for (int i = 0; i < n; i++) {
        for (struct fmsg *m = boxes[i].unexp_head, *nx; m; m = nx) {
            nx = m->next;
            if (!m->sender)
                free(m->data);
            free(m);
            leftovers++;
        }
        for (struct freq *r = boxes[i].posted_head, *nx; r; r = nx) {
            nx = r->next;
            leftovers++;
        }
    }
    free(boxes);
    free(waiters);
    free(t);
    free(tid);
    boxes = NULL;
    waiters = NULL;
    return deadlock ? -1 : 0;
}

int fake_dev_leftovers(void)
{
    return leftovers;
}

void fake_affine_op(const void *in, void *inout, size_t n, void *arg)
{
    const uint32_t *x = in;
    uint32_t *y = inout;
    (void)arg;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = x[2 * i] * y[2 * i];
        uint32_t b = y[2 * i] * x[2 * i + 1] + y[2 * i + 1];
        y[2 * i] = a;
        y[2 * i + 1] = b;
    }
}
