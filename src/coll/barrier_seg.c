/*
 * What the shared-memory barrier backends (shm, hier, hwsim) have in common:
 * the node view of a communicator, a segment shared by the ranks of one
 * node, and the waiting policy.
 *
 * Segment life cycle (per communicator and node, made at the first barrier):
 *
 *   leader (local 0)                         other ranks of the node
 *   shm_open(O_CREAT|O_EXCL), ftruncate,
 *   posix_fallocate, mmap
 *   ── {status, name} ──────────────────────► shm_open, mmap
 *   ◄─────────────────────────── {status} ──
 *   shm_unlink (whatever the answers)
 *
 * The name "/rdmach-<kvsname>-b<ctx>-<leader>-<n>" carries the job's id, so
 * rdmachrun can remove what a killed job leaves in /dev/shm; unlinking once
 * every rank has mapped it means a normal run leaves nothing there even if a
 * rank dies later. posix_fallocate makes a full /dev/shm an error now and
 * not a SIGBUS at the first barrier.
 *
 * Waiting: poll (rch_cpu_relax) up to `spin` times (RDMACH_SPIN_COUNT),
 * progressing the device every `progress_every` polls; then wait through the
 * device (rch_dev_wait_until_with) with the flag as its done-function: it
 * progresses every channel, sched_yields up to `yield` times
 * (RDMACH_BARRIER_YIELD, fewer than the device's RDMACH_YIELD_COUNT: every
 * rank of a barrier waits at once, and on a busy machine a yield can hand the
 * core to another job for a whole time slice, while a woken sleeper gets it
 * back at once), then sleeps on the channels' wait primitives. So a rank
 * waiting in a barrier serves whatever needs its progress — one-sided
 * operations it executes as a target, rendezvous and credits of other
 * nodes — and wakes for it at once, not at the next timeout.
 * The rank that sets a flag wakes the ranks waiting for it through the
 * device (rch_dev_wake: the shared-memory channel's futex, bumped only if the
 * rank sleeps: no system call otherwise); the device tests the flag once more
 * after arming its channels, so a wake-up cannot be lost. On an
 * oversubscribed node (more ranks than cores) the polling phase is
 * RDMACH_SPIN_COUNT_OVERSUB (0 by default): a rank that polls there only
 * keeps the rank it waits for off the core.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "coll/barrier.h"
#include "device/cs.h"
#include "device/dev.h"

#define SHORT_SLEEP_MS 1      /* longest device sleep when a rank of the node cannot wake us */

/* ---- the node view ---- */

/* Node index of comm rank r: pretend nodes of RDMACH_COLL_VNODE_SIZE world
 * ranks, or the view's layout (one node if it has none). Raw, not dense. */
static int raw_node(const struct rch_coll_comm *c, int r)
{
    int k = rch_tun.coll_vnode_size;
    if (k > 0)
        return c->world_of[r] / k;
    if (c->nnodes > 0 && c->node_of)
        return c->node_of[r];
    return 0;
}

void rch_coll_bar_shape(const struct rch_coll_comm *c, int *nnodes, int *max_ppn)
{
    struct rch_coll_bar_nodes n;
    if (rch_coll_bar_nodes_init(&n, c) != RDMACH_OK) {
        *nnodes = c->nnodes > 0 ? c->nnodes : 1;
        *max_ppn = c->nnodes > 0 ? c->max_ppn : c->size;
        return;
    }
    *nnodes = n.nnodes;
    *max_ppn = n.max_ppn;
    rch_coll_bar_nodes_free(&n);
}

rdmach_status_t rch_coll_bar_nodes_init(struct rch_coll_bar_nodes *n, const struct rch_coll_comm *c)
{
    int p = c->size, mine = raw_node(c, c->rank);
    memset(n, 0, sizeof(*n));
    /* raw node ids -> dense indices in order of each node's lowest rank */
    int *raw = malloc(2 * (size_t)p * sizeof(int));
    n->local_ranks = malloc((size_t)p * sizeof(int));
    n->leaders = malloc((size_t)p * sizeof(int));
    if (!raw || !n->local_ranks || !n->leaders) {
        free(raw);
        rch_coll_bar_nodes_free(n);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier: no memory for the node view of %d ranks", p);
    }
    int *cnt = raw + p;
    for (int r = 0; r < p; r++) {
        int id = raw_node(c, r), d = 0;
        while (d < n->nnodes && raw[d] != id)
            d++;
        if (d == n->nnodes) {
            raw[n->nnodes] = id;
            cnt[n->nnodes] = 0;
            n->leaders[n->nnodes++] = r;
        }
        if (++cnt[d] > n->max_ppn)
            n->max_ppn = cnt[d];
        if (id == mine) {
            n->node = d;
            if (r == c->rank)
                n->local = n->nlocal;
            n->local_ranks[n->nlocal++] = r;
        }
    }
    free(raw);
    return RDMACH_OK;
}

void rch_coll_bar_nodes_free(struct rch_coll_bar_nodes *n)
{
    free(n->local_ranks);
    free(n->leaders);
    n->local_ranks = n->leaders = NULL;
}

/* ---- the segment ---- */

#define SEG_NAME_MAX 200

/* The leader's message to the other ranks of its node. */
struct seg_offer {
    int32_t status;            /* RDMACH_OK: map `name`; else the leader failed */
    uint32_t size;
    char name[SEG_NAME_MAX];
};

static void seg_name(char *out, size_t len, const struct rch_coll_comm *c)
{
    static unsigned serial;    /* atomic: segments this process has created (threads may create at once) */
    char kvs[128];
    size_t i = 0;
    const char *k = rch_boot_is_up() ? rch_boot.kvsname : "";
    for (; k[i] && i < sizeof(kvs) - 1; i++)
        kvs[i] = (k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
                 (k[i] >= '0' && k[i] <= '9') || k[i] == '_' || k[i] == '-' ? k[i] : '_';
    kvs[i] = '\0';
    if (!kvs[0])
        snprintf(kvs, sizeof(kvs), "pid%ld", (long)getpid());
    snprintf(out, len, "/rdmach-%s-b%u-%d-%u", kvs, (unsigned)c->ctx, c->world_of[c->rank],
             __atomic_fetch_add(&serial, 1u, __ATOMIC_RELAXED));
}

static rdmach_status_t seg_create(struct rch_coll_bar_seg *s, const char *name, size_t size,
                                  const char *what)
{
    rdmach_status_t st;
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return rch_base_errno(errno, "barrier %s: shm_open(%s, O_CREAT)", what, name);
    if (ftruncate(fd, (off_t)size) != 0) {
        st = rch_base_errno(errno, "barrier %s: ftruncate(/dev/shm%s, %zu)", what, name, size);
        goto out_unlink;
    }
    int err = posix_fallocate(fd, 0, (off_t)size);
    if (err != 0) {
        st = rch_base_errno(err, "barrier %s: reserving %zu bytes of /dev/shm%s", what, size, name);
        goto out_unlink;
    }
    s->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (s->base == MAP_FAILED) {
        s->base = NULL;
        st = rch_base_errno(errno, "barrier %s: mmap(/dev/shm%s, %zu)", what, name, size);
        goto out_unlink;
    }
    s->size = size;
    close(fd);
    return RDMACH_OK;

out_unlink:
    shm_unlink(name);
    close(fd);
    return st;
}

static rdmach_status_t seg_map(struct rch_coll_bar_seg *s, const char *name, size_t size,
                               const char *what)
{
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return rch_base_errno(errno, "barrier %s: shm_open(%s) made by the node's leader", what, name);
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (size_t)sb.st_size != size) {
        close(fd);
        return rch_base_err(RDMACH_ERR_PROTOCOL, "barrier %s: /dev/shm%s is %lld bytes, expected %zu",
                            what, name, (long long)sb.st_size, size);
    }
    s->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (s->base == MAP_FAILED) {
        s->base = NULL;
        return rch_base_errno(errno, "barrier %s: mmap(/dev/shm%s, %zu)", what, name, size);
    }
    s->size = size;
    return RDMACH_OK;
}

static rdmach_status_t seg_leader(struct rch_coll_bar_seg *s, const struct rch_coll_comm *c,
                                  const struct rch_coll_bar_nodes *n, size_t size, const char *what)
{
    struct seg_offer offer;
    memset(&offer, 0, sizeof(offer));
    seg_name(offer.name, sizeof(offer.name), c);
    offer.size = (uint32_t)size;
    rdmach_status_t mine = seg_create(s, offer.name, size, what);
    char why[256] = "";
    if (mine != RDMACH_OK) {
        snprintf(why, sizeof(why), "%s", rdmach_last_error());
        offer.status = mine;
        offer.name[0] = '\0';
    }
    rdmach_status_t st = RDMACH_OK;
    for (int i = 1; i < n->nlocal && st == RDMACH_OK; i++)
        st = rch_coll_send(c, &offer, sizeof(offer), n->local_ranks[i], RCH_COLL_TAG_BARRIER_SETUP);
    /* Every answer is awaited before unlinking, whatever it says (after a
     * failed offer nobody maps anything and nobody answers). */
    rdmach_status_t worst = RDMACH_OK;
    for (int i = 1; i < n->nlocal && st == RDMACH_OK && mine == RDMACH_OK; i++) {
        int32_t answer;
        st = rch_coll_recv(c, &answer, sizeof(answer), n->local_ranks[i], RCH_COLL_TAG_BARRIER_SETUP);
        if (st == RDMACH_OK && answer != RDMACH_OK && worst == RDMACH_OK) {
            worst = answer;
            snprintf(why, sizeof(why), "rank %d could not map the segment /dev/shm%s: %s",
                     n->local_ranks[i], offer.name, rdmach_strerror((rdmach_status_t)answer));
        }
    }
    if (mine == RDMACH_OK)
        shm_unlink(offer.name);
    if (st == RDMACH_OK)
        st = mine != RDMACH_OK ? mine : worst;
    if (st != RDMACH_OK) {
        rch_coll_bar_seg_release(s);
        if (why[0])
            return rch_base_err(st, "%s", why);
    }
    return st;
}

static rdmach_status_t seg_member(struct rch_coll_bar_seg *s, const struct rch_coll_comm *c,
                                  const struct rch_coll_bar_nodes *n, size_t size, const char *what)
{
    struct seg_offer offer;
    int leader = n->local_ranks[0];
    rdmach_status_t st = rch_coll_recv(c, &offer, sizeof(offer), leader, RCH_COLL_TAG_BARRIER_SETUP);
    if (st != RDMACH_OK)
        return st;
    if (offer.status != RDMACH_OK)
        return rch_base_err((rdmach_status_t)offer.status,
                            "barrier %s: the node's leader (rank %d) could not create the segment: %s",
                            what, leader, rdmach_strerror((rdmach_status_t)offer.status));
    /* validated before use: a name of ours, terminated, of the size we expect */
    int32_t answer;
    if (memchr(offer.name, '\0', sizeof(offer.name)) == NULL ||
        strncmp(offer.name, "/rdmach-", 8) != 0 || offer.size != size) {
        st = rch_base_err(RDMACH_ERR_PROTOCOL, "barrier %s: malformed segment offer from rank %d",
                          what, leader);
    } else {
        st = seg_map(s, offer.name, size, what);
    }
    answer = st;
    char why[256];
    snprintf(why, sizeof(why), "%s", rdmach_last_error());
    rdmach_status_t sst = rch_coll_send(c, &answer, sizeof(answer), leader, RCH_COLL_TAG_BARRIER_SETUP);
    if (st != RDMACH_OK) {
        rch_coll_bar_seg_release(s);
        return rch_base_err(st, "%s", why);
    }
    if (sst != RDMACH_OK)
        rch_coll_bar_seg_release(s);
    return sst;
}

rdmach_status_t rch_coll_bar_seg_setup(struct rch_coll_bar_seg *s, const struct rch_coll_comm *c,
                                       const struct rch_coll_bar_nodes *n, size_t size,
                                       const char *what)
{
    s->base = NULL;
    s->size = 0;
    if (size > UINT32_MAX)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "barrier %s: segment of %zu bytes", what, size);
    if (n->nlocal == 1) {   /* nobody to share with: private memory will do */
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return rch_base_errno(errno, "barrier %s: mmap of %zu bytes", what, size);
        s->base = p;
        s->size = size;
        return RDMACH_OK;
    }
    return n->local == 0 ? seg_leader(s, c, n, size, what) : seg_member(s, c, n, size, what);
}

void rch_coll_bar_seg_release(struct rch_coll_bar_seg *s)
{
    if (s->base)
        munmap(s->base, s->size);
    s->base = NULL;
    s->size = 0;
}

/* ---- waiting ---- */


int rch_coll_bar_oversubscribed(void)
{
    static int cached = -1;   /* atomic: the same answer in every thread */
    int over = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (over < 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int local = rch_boot_is_up() ? rch_boot.local_size : 1;
        over = local > (cores > 0 ? cores : 1);
        __atomic_store_n(&cached, over, __ATOMIC_RELAXED);
    }
    return over;
}

void rch_coll_bar_waiter_init(struct rch_coll_bar_waiter *w)
{
    int over = rch_coll_bar_oversubscribed();
    memset(w, 0, sizeof(*w));
    w->spin = over ? rch_tun.spin_count_oversub : rch_tun.spin_count;
    w->yield = rch_tun.barrier_yield;
    w->progress_every = 64;
    w->block_ms = 0;
    w->remote_spin = over ? rch_tun.barrier_remote_spin : 0;
    w->core1 = rch_boot_is_up() && rch_boot.bound_core >= 0 ? rch_boot.bound_core + 1 : 0;
}

rdmach_status_t rch_coll_bar_waiter_init_node(struct rch_coll_bar_waiter *w, const struct rch_coll_comm *c,
                                              const struct rch_coll_bar_nodes *n)
{
    rch_coll_bar_waiter_init(w);
    w->world = malloc((size_t)n->nlocal * sizeof(int));
    if (!w->world)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier: no memory for the %d ranks of the node", n->nlocal);
    w->nlocal = n->nlocal;
    w->local = n->local;
    int all_wake = 1;
    for (int i = 0; i < n->nlocal; i++) {
        w->world[i] = c->world_of[n->local_ranks[i]];
        if (i != n->local && !rch_dev_can_wake(w->world[i]))
            all_wake = 0;
    }
    /* A rank of the node whose stores cannot end our device sleep (its
     * channel to us has no peer wake-up, e.g. RDMACH_SHM=off): sleep briefly. */
    w->block_ms = all_wake ? 0 : SHORT_SLEEP_MS;
    return RDMACH_OK;
}

void rch_coll_bar_waiter_free(struct rch_coll_bar_waiter *w)
{
    free(w->world);
    w->world = NULL;
    w->nlocal = 0;
}

void rch_coll_bar_wake_local(const struct rch_coll_bar_waiter *w, int local)
{
    if (local >= 0 && local < w->nlocal && local != w->local)
        rch_dev_wake(w->world[local]);
}

void rch_coll_bar_wake_node(const struct rch_coll_bar_waiter *w)
{
    for (int i = 0; i < w->nlocal; i++)
        if (i != w->local)
            rch_dev_wake(w->world[i]);
}

enum wait_mode { WAIT_EQ, WAIT_NE, WAIT_GE };

/* Has *word (read as v) reached what the caller waits for? GE compares as
 * serial numbers, so an epoch counter may wrap. */
static inline int ready(enum wait_mode m, uint32_t v, uint32_t ref)
{
    switch (m) {
    case WAIT_EQ: return v == ref;
    case WAIT_NE: return v != ref;
    default:      return (int32_t)(v - ref) >= 0;
    }
}

/* ---- a rank of the node fails while we wait for its store ----
 * Its flag never changes: the device's wait ends when the device has heard
 * of a new failure (one load per pass) and the failed rank is of our node;
 * the caller then returns PEER_DEAD naming it. */

struct failure_watch {
    const struct rch_coll_bar_waiter *w;
    unsigned failures;               /* rch_dev_failures() when the wait began */
};

/* The world rank of a failed rank of the node, or -1. */
static int node_failed(const struct rch_coll_bar_waiter *w)
{
    for (int i = 0; i < w->nlocal; i++)
        if (i != w->local && rch_dev_peer_is_dead(w->world[i]))
            return w->world[i];
    return -1;
}

static int watch_fired(const struct failure_watch *f)
{
    return rch_dev_failures() != f->failures && node_failed(f->w) >= 0;
}

/* After a wait that ended without its condition: the failure that ended it. */
static rdmach_status_t failed_wait(const struct rch_coll_bar_waiter *w)
{
    return rch_base_err(RDMACH_ERR_PEER_DEAD, "barrier: rank %d of this node has failed", node_failed(w));
}

struct wait_cond {
    const uint32_t *word;
    uint32_t ref;
    enum wait_mode mode;
    struct failure_watch fail;
};

static int cond_ready(const struct wait_cond *c)
{
    return ready(c->mode, __atomic_load_n(c->word, __ATOMIC_ACQUIRE), c->ref);
}

/* The device's done-function: also tested after its channels are armed. */
static int cond_met(void *arg)
{
    const struct wait_cond *c = arg;
    return cond_ready(c) || watch_fired(&c->fail);
}

/* Wait until ready(mode, *word, ref): poll here (the fast path: a load and a
 * pause, the device every progress_every polls), then the device's wait with
 * our yields and no spin of its own. */
static rdmach_status_t wait_loop(const struct rch_coll_bar_waiter *w, const uint32_t *word, uint32_t ref,
                                 enum wait_mode mode)
{
    uint32_t v = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    for (int i = 0; !ready(mode, v, ref) && i < w->spin; i++) {
        rch_cpu_relax();
        if ((i + 1) % w->progress_every == 0)
            rch_dev_progress();
        v = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    }
    if (ready(mode, v, ref))
        return RDMACH_OK;
    struct wait_cond c = { .word = word, .ref = ref, .mode = mode, .fail = { w, rch_dev_failures() } };
    const struct rch_dev_wait_policy pol = { .spin = 0, .yield = w->yield, .block_ms = w->block_ms };
    rdmach_status_t st = rch_dev_wait_until_with(cond_met, &c, &pol);
    return st == RDMACH_OK && !cond_ready(&c) ? failed_wait(w) : st;
}

rdmach_status_t rch_coll_bar_wait_change(const struct rch_coll_bar_waiter *w, const uint32_t *word,
                                         uint32_t old)
{
    return wait_loop(w, word, old, WAIT_NE);
}

rdmach_status_t rch_coll_bar_wait_value(const struct rch_coll_bar_waiter *w, const uint32_t *word,
                                        uint32_t want)
{
    return wait_loop(w, word, want, WAIT_EQ);
}

rdmach_status_t rch_coll_bar_wait_epoch(const struct rch_coll_bar_waiter *w, const uint32_t *word,
                                        uint32_t epoch)
{
    return wait_loop(w, word, epoch, WAIT_GE);
}

/* ---- all-arrive waits (barrier.h) ---- */

static inline const uint32_t *rec_u32(const uint32_t *base, size_t stride, int i)
{
    return (const uint32_t *)(const void *)((const char *)base + (size_t)i * stride);
}

static inline const int32_t *rec_i32(const int32_t *base, size_t stride, int i)
{
    return (const int32_t *)(const void *)((const char *)base + (size_t)i * stride);
}

/* Has every epoch reached `epoch`? */
static int all_arrived(const uint32_t *epoch0, size_t stride, int n, uint32_t epoch)
{
    for (int i = 0; i < n; i++)
        if (!ready(WAIT_GE, __atomic_load_n(rec_u32(epoch0, stride, i), __ATOMIC_ACQUIRE), epoch))
            return 0;
    return 1;
}

void rch_coll_bar_arrive_all(const struct rch_coll_bar_waiter *w, uint32_t *mine, const uint32_t *epoch0,
                             size_t stride, int n, uint32_t epoch)
{
    __atomic_store_n(mine, epoch, __ATOMIC_SEQ_CST);
    /* Seq_cst stores and loads: of the ranks arriving at once, the last
     * store's owner sees every arrival, so some arrival always wakes. */
    if (all_arrived(epoch0, stride, n, epoch))
        rch_coll_bar_wake_node(w);
}

/* Who is missing: 0 nobody, 1 only ranks bound to other cores, 2 a rank
 * that may need my core (bound to it, or either core unknown). */
static int missing(const struct rch_coll_bar_waiter *w, const uint32_t *epoch0, const int32_t *core0,
                   size_t stride, int n, uint32_t epoch)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (ready(WAIT_GE, __atomic_load_n(rec_u32(epoch0, stride, i), __ATOMIC_ACQUIRE), epoch))
            continue;
        int32_t c = __atomic_load_n(rec_i32(core0, stride, i), __ATOMIC_RELAXED);
        if (c == 0 || w->core1 == 0 || c == w->core1)
            return 2;
        m = 1;
    }
    return m;
}

struct all_cond {
    const uint32_t *epoch0;
    size_t stride;
    int n;
    uint32_t epoch;
    struct failure_watch fail;
};

static int all_met(void *arg)
{
    const struct all_cond *c = arg;
    return all_arrived(c->epoch0, c->stride, c->n, c->epoch) || watch_fired(&c->fail);
}

rdmach_status_t rch_coll_bar_wait_all(const struct rch_coll_bar_waiter *w, const uint32_t *epoch0,
                                      const int32_t *core0, size_t stride, int n, uint32_t epoch)
{
    struct all_cond c = { .epoch0 = epoch0, .stride = stride, .n = n, .epoch = epoch,
                          .fail = { w, rch_dev_failures() } };
    /* at MPI_THREAD_MULTIPLE the device's wait hands the critical section
     * to the rank's other threads between polls; this loop would not */
    if (!rch_dev_cs_on) {
        int spins = 0, yields = 0;
        for (;;) {
            int m = missing(w, epoch0, core0, stride, n, epoch);
            if (m == 0)
                return RDMACH_OK;
            if (m == 1 && spins < w->remote_spin) {
                rch_cpu_relax();
                if (++spins % w->progress_every == 0)
                    rch_dev_progress();
                continue;
            }
            if (yields >= w->yield)
                break;
            yields++;
            spins = 0;
            rch_dev_progress();
            if (all_arrived(epoch0, stride, n, epoch))
                return RDMACH_OK;
            if (watch_fired(&c.fail))
                return failed_wait(w);
            sched_yield();
        }
    }
    const struct rch_dev_wait_policy pol = { .spin = 0, .yield = 0, .block_ms = w->block_ms };
    rdmach_status_t st = rch_dev_wait_until_with(all_met, &c, &pol);
    return st == RDMACH_OK && !all_arrived(epoch0, stride, n, epoch) ? failed_wait(w) : st;
}
