/*
 * Windows: the object, the table that finds one by id when a packet names
 * it, the node segment, registration and what each member publishes.
 *
 * The node segment (one per window and node, when the window has at least
 * two members on the node and shared memory is allowed, or always for
 * Win_allocate_shared): a /dev/shm file "/rdmach-<kvsname>-win<w>.<id>"
 * (w: world rank of the node's lowest member, who creates it; the launcher
 * removes rdmach-<kvsname>-* if the job dies before the name is unlinked,
 * which is as soon as every member has mapped it):
 *
 *   [ ctrl block of local member 0 | 1 | ... ]   RCH_DEV_WIN_CTRL_STRIDE each
 *   [ dynamic windows: table of attached regions of local member 0 | 1 | ... ]
 *   [ pad to a page ]
 *   [ memory of local member 0 ][ 1 ] ...         Win_allocate: page-aligned each;
 *                                                  Win_allocate_shared: contiguous
 *                                                  (MPI's default), or page-aligned
 *                                                  with alloc_shared_noncontig
 *
 * Every member computes the same layout from the sizes the caller gathered.
 * Ranks of other nodes never see the segment: they reach the memory through
 * the registration (rkey) or packets.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/rma_impl.h"

struct rch_dev_win_region {
    uint64_t base, len;
    struct rch_rdma_mr *mr;      /* registered with dyn_ops for node-local origins, or NULL */
};

/* ---- the id table ---- */

static struct rch_dev_win **table;
static uint32_t table_len;

struct rch_dev_win *rch_dev_rma_win_find(uint32_t id)
{
    return id < table_len ? table[id] : NULL;
}

static rdmach_status_t table_add(struct rch_dev_win *w)
{
    if (w->id >= table_len) {
        uint32_t n = table_len ? table_len : 64;
        while (n <= w->id)
            n *= 2;
        struct rch_dev_win **t = realloc(table, n * sizeof(*t));
        if (!t)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "window: no memory for the window table");
        memset(t + table_len, 0, (n - table_len) * sizeof(*t));
        table = t;
        table_len = n;
    }
    if (table[w->id])
        return rch_base_err(RDMACH_ERR_BUSY, "window: id %u is already used by a live window", w->id);
    table[w->id] = w;
    return RDMACH_OK;
}

static void table_del(struct rch_dev_win *w)
{
    if (w->id < table_len && table[w->id] == w)
        table[w->id] = NULL;
}

/* ---- helpers ---- */

static size_t page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? (size_t)ps : 4096;
}

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

int rch_dev_win_shm_allowed(void)
{
    return rch_tun.shm;
}

size_t rch_dev_rma_max_payload(const struct rch_dev_win *w, int target)
{
    const struct rch_dev_peer *p = &rch_dev.peers[w->t[target].world];
    if (p->dchan == NULL || p->dchan->caps == NULL || p->dchan->caps->max_msg <= sizeof(struct rch_rma_hdr))
        return 0;
    return p->dchan->caps->max_msg - sizeof(struct rch_rma_hdr);
}

/* Does region [b, b + l) hold all of [addr, addr + len)? */
static int holds(uint64_t b, uint64_t l, uint64_t addr, uint64_t len)
{
    return addr >= b && len <= l && addr - b <= l - len;
}

/* How many bytes from addr on region [b, b + l) holds (0: not addr). */
static uint64_t holds_from(uint64_t b, uint64_t l, uint64_t addr)
{
    return addr >= b && addr - b < l ? l - (addr - b) : 0;
}

/* Regions, as `at` gives entry i's [*b, *b + *l) of n: do some attached
 * back to back hold [addr, addr + len)? Regions do not overlap, so each is
 * used at most once: at most n steps (also in a table read while it
 * changes, which the caller then reads again). */
static int spans(void (*at)(const void *set, uint32_t i, uint64_t *b, uint64_t *l), const void *set, uint32_t n,
                 uint64_t addr, uint64_t len)
{
    for (uint32_t step = 0; step < n && len > 0; step++) {
        uint64_t got = 0, b, l;
        for (uint32_t i = 0; i < n && got == 0; i++) {
            at(set, i, &b, &l);
            got = holds_from(b, l, addr);
        }
        if (got == 0)
            return 0;
        if (got >= len)
            return 1;
        addr += got;
        len -= got;
    }
    return 0;
}

static void region_at(const void *set, uint32_t i, uint64_t *b, uint64_t *l)
{
    const struct rch_dev_win_region *r = &((const struct rch_dev_win *)set)->regions[i];
    *b = r->base;
    *l = r->len;
}

/*
 * Is every byte of [addr, addr + len) in an attached region? Usually one
 * region holds all of it; else regions attached back to back may (MPI asks
 * only that each byte accessed be attached, and MPICH's test suite spans
 * them).
 */
int rch_dev_win_region_ok(const struct rch_dev_win *w, uint64_t addr, uint64_t len)
{
    for (int i = 0; i < w->nregions; i++)
        if (holds(w->regions[i].base, w->regions[i].len, addr, len))
            return 1;
    return spans(region_at, w, (uint32_t)w->nregions, addr, len);
}

void *rch_dev_rma_local_addr(struct rch_dev_win *w, uint64_t addr, uint64_t len)
{
    if (w->flavor == RCH_DEV_WIN_DYNAMIC)
        return rch_dev_win_region_ok(w, addr, len) ? (void *)(uintptr_t)addr : NULL;
    if (addr > w->bytes || len > w->bytes - addr)
        return NULL;
    return (char *)w->base + addr;
}

/* ---- creation ---- */

/* Does this window get a node segment? */
static int wants_segment(const struct rch_dev_win *w)
{
    if (w->nlocal < 2)
        return 0;
    if (w->flavor == RCH_DEV_WIN_SHARED)
        return 1;
    return rch_tun.shm && rch_tun.rma_path == RCH_RMA_PATH_AUTO;
}

/* The layout of the segment: seg_off[] and seg_len. */
static size_t dyn_base(const struct rch_dev_win *w)
{
    return (size_t)w->nlocal * RCH_DEV_WIN_CTRL_STRIDE;
}

static rdmach_status_t layout(struct rch_dev_win *w, const struct rch_dev_win_args *a)
{
    size_t ps = page_size();
    size_t off = dyn_base(w);
    if (w->flavor == RCH_DEV_WIN_DYNAMIC)
        off += (size_t)w->nlocal * sizeof(struct rch_dev_win_dyntab);
    off = round_up(off, ps);
    int has_mem = w->flavor == RCH_DEV_WIN_ALLOCATE || w->flavor == RCH_DEV_WIN_SHARED;
    int contig = w->flavor == RCH_DEV_WIN_SHARED && !a->noncontig;
    for (int i = 0; i < w->nlocal; i++) {
        uint64_t sz = has_mem ? a->sizes[w->local[i]] : 0;
        if (!contig)
            off = round_up(off, ps);
        w->seg_off[i] = off;
        if (sz > SIZE_MAX - off - ps)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "window: the node's window memory (%llu bytes for rank %d) "
                                "does not fit the address space", (unsigned long long)sz, w->local[i]);
        off += (size_t)sz;
    }
    w->seg_len = round_up(off ? off : ps, ps);
    return RDMACH_OK;
}

static rdmach_status_t seg_name(struct rch_dev_win *w)
{
    int leader_world = w->world_of[w->local[0]];
    int n = snprintf(w->seg_name, sizeof(w->seg_name), "/rdmach-%s-win%d.%u", rch_boot.kvsname, leader_world, w->id);
    if (n < 0 || (size_t)n >= sizeof(w->seg_name) || n > 250)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "window: the segment name for job '%s' is too long",
                            rch_boot.kvsname);
    return RDMACH_OK;
}

static rdmach_status_t seg_create(struct rch_dev_win *w)
{
    int fd = shm_open(w->seg_name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 && errno == EEXIST) {
        /* A window of a crashed earlier use of this id: ours now. */
        shm_unlink(w->seg_name);
        fd = shm_open(w->seg_name, O_CREAT | O_EXCL | O_RDWR, 0600);
    }
    if (fd < 0)
        return rch_base_errno(errno, "window: creating the node segment %s", w->seg_name);
    w->seg_owner = 1;
    int err = 0;
    if (ftruncate(fd, (off_t)w->seg_len) != 0)
        err = errno;
    else
        err = posix_fallocate(fd, 0, (off_t)w->seg_len);   /* a full /dev/shm is an error now, not a SIGBUS later */
    if (err) {
        close(fd);
        shm_unlink(w->seg_name);
        w->seg_unlinked = 1;
        return rch_base_errno(err, "window: sizing the node segment %s to %zu bytes (is /dev/shm full?)",
                              w->seg_name, w->seg_len);
    }
    void *p = mmap(NULL, w->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    err = errno;
    close(fd);
    if (p == MAP_FAILED) {
        shm_unlink(w->seg_name);
        w->seg_unlinked = 1;
        return rch_base_errno(err, "window: mapping the node segment %s (%zu bytes)", w->seg_name, w->seg_len);
    }
    w->seg = p;
    return RDMACH_OK;
}

static rdmach_status_t seg_open(struct rch_dev_win *w)
{
    int fd = shm_open(w->seg_name, O_RDWR, 0600);
    if (fd < 0)
        return rch_base_errno(errno, "window: opening the node segment %s", w->seg_name);
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (size_t)sb.st_size != w->seg_len) {
        close(fd);
        return rch_base_err(RDMACH_ERR_PROTOCOL, "window: the node segment %s has %lld bytes, %zu expected",
                            w->seg_name, (long long)sb.st_size, w->seg_len);
    }
    void *p = mmap(NULL, w->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    close(fd);
    if (p == MAP_FAILED)
        return rch_base_errno(err, "window: mapping the node segment %s (%zu bytes)", w->seg_name, w->seg_len);
    w->seg = p;
    return RDMACH_OK;
}

static int local_index(const struct rch_dev_win *w, int rank)
{
    for (int i = 0; i < w->nlocal; i++)
        if (w->local[i] == rank)
            return i;
    return -1;
}

rdmach_status_t rch_dev_win_create(const struct rch_dev_win_args *a, struct rch_dev_win **out)
{
    *out = NULL;
    if (!rch_dev.initialized)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "window: the device is not initialized");
    if (a->size < 1 || a->rank < 0 || a->rank >= a->size || !a->world_of)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "window: rank %d of %d", a->rank, a->size);
    if ((a->flavor == RCH_DEV_WIN_ALLOCATE || a->flavor == RCH_DEV_WIN_SHARED) && !a->sizes)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "window: no sizes for an allocated window");
    struct rch_dev_win *w = calloc(1, sizeof(*w));
    if (!w)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "window: no memory");
    w->id = a->id;
    w->rank = a->rank;
    w->size = a->size;
    w->flavor = a->flavor;
    w->disp_unit = a->disp_unit;
    w->err_target = -1;
    w->world_of = malloc(sizeof(int) * (size_t)a->size);
    w->t = calloc((size_t)a->size, sizeof(*w->t));
    w->local = malloc(sizeof(int) * (size_t)a->size);
    w->seg_off = calloc((size_t)a->size, sizeof(uint64_t));
    if (!w->world_of || !w->t || !w->local || !w->seg_off) {
        rch_dev_win_free(w);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "window: no memory for %d members", a->size);
    }
    memcpy(w->world_of, a->world_of, sizeof(int) * (size_t)a->size);
    for (int r = 0; r < a->size; r++) {
        int wr = a->world_of[r];
        if (wr < 0 || wr >= rch_dev.size) {
            rch_dev_win_free(w);
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "window: member %d is world rank %d (of %d)", r, wr,
                                rch_dev.size);
        }
        w->t[r].world = wr;
        w->t[r].path = RCH_DEV_WIN_AM;
        if (rch_boot.node_of[wr] == rch_boot.node)
            w->local[w->nlocal++] = r;
    }
    w->my_ctrl = &w->own_ctrl;

    rdmach_status_t st = RDMACH_OK;
    if (wants_segment(w)) {
        if (w->flavor == RCH_DEV_WIN_ALLOCATE || w->flavor == RCH_DEV_WIN_SHARED)
            w->bytes = (size_t)a->sizes[a->rank];
        else if (w->flavor == RCH_DEV_WIN_CREATE) {
            w->base = a->base;
            w->bytes = a->bytes;
        }
        st = layout(w, a);
        if (st == RDMACH_OK)
            st = seg_name(w);
        if (st == RDMACH_OK && w->local[0] == w->rank)
            st = seg_create(w);
    } else if (w->flavor == RCH_DEV_WIN_ALLOCATE || w->flavor == RCH_DEV_WIN_SHARED) {
        size_t n = (size_t)a->sizes[a->rank];
        if (n && posix_memalign(&w->own_mem, page_size(), n) != 0)
            st = rch_base_err(RDMACH_ERR_NO_MEMORY, "window: cannot allocate %zu bytes of window memory", n);
        w->base = w->own_mem;
        w->bytes = n;
    } else if (w->flavor == RCH_DEV_WIN_CREATE) {
        w->base = a->base;
        w->bytes = a->bytes;
    }
    if (st == RDMACH_OK)
        st = table_add(w);
    if (st != RDMACH_OK) {
        rch_dev_win_free(w);
        return st;
    }
    *out = w;
    return RDMACH_OK;
}

rdmach_status_t rch_dev_win_map(struct rch_dev_win *w)
{
    if (w->seg_name[0] == '\0')
        return RDMACH_OK;          /* no segment */
    if (w->seg == NULL) {
        rdmach_status_t st = seg_open(w);
        if (st != RDMACH_OK)
            return st;
    }
    int me = local_index(w, w->rank);
    w->my_ctrl = (struct rch_dev_win_ctrl *)(w->seg + (size_t)me * RCH_DEV_WIN_CTRL_STRIDE);
    if (w->flavor == RCH_DEV_WIN_DYNAMIC)
        w->my_dyn = (struct rch_dev_win_dyntab *)(w->seg + dyn_base(w) + (size_t)me * sizeof(*w->my_dyn));
    if (w->flavor == RCH_DEV_WIN_ALLOCATE || w->flavor == RCH_DEV_WIN_SHARED) {
        w->base = w->seg + w->seg_off[me];
    }
    return RDMACH_OK;
}

static void seg_unlink(struct rch_dev_win *w)
{
    if (w->seg_owner && !w->seg_unlinked && w->seg_name[0]) {
        shm_unlink(w->seg_name);
        w->seg_unlinked = 1;
    }
}

/* Register my memory with every channel that may reach it by RDMA. */
static rdmach_status_t register_memory(struct rch_dev_win *w)
{
    if (w->flavor == RCH_DEV_WIN_DYNAMIC || w->bytes == 0 || rch_tun.rma_path == RCH_RMA_PATH_AM)
        return RDMACH_OK;
    for (int i = 0; i < rch_dev.nchans && w->nregs < (int)RCH_ARRAY_SIZE(w->regs); i++) {
        struct rch_dev_chan *dc = &rch_dev.chans[i];
        if (!dc->caps || !dc->caps->rma)
            continue;
        struct rch_rdma_mr *mr = NULL;
        rdmach_status_t st = dc->ops->mem_reg(dc->chan, w->base, w->bytes,
                                              RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_READ |
                                                  RCH_RDMA_ACCESS_REMOTE_WRITE, &mr);
        if (st != RDMACH_OK)
            return rch_base_err(st, "window: registering %zu bytes of window memory with the %s channel: %s",
                                w->bytes, dc->ops->name, rdmach_last_error());
        w->regs[w->nregs].ops = dc->ops;
        w->regs[w->nregs].chan = dc->chan;
        w->regs[w->nregs].mr = mr;
        w->nregs++;
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dev_win_publish(struct rch_dev_win *w, struct rch_dev_win_info *info)
{
    seg_unlink(w);
    memset(info, 0, sizeof(*info));
    rdmach_status_t st = register_memory(w);
    if (st != RDMACH_OK)
        return st;
    info->base = (uint64_t)(uintptr_t)w->base;
    info->size = w->bytes;
    info->disp_unit = (uint32_t)w->disp_unit;
    info->node = (uint32_t)rch_boot.node;
    int me = local_index(w, w->rank);
    if (w->seg && (w->flavor == RCH_DEV_WIN_ALLOCATE || w->flavor == RCH_DEV_WIN_SHARED)) {
        info->flags |= RCH_DEV_WIN_F_MAPPED;
        info->seg_off = w->seg_off[me];
    }
    for (int i = 0; i < w->nregs; i++) {
        struct rch_rdma_rkey k;
        st = w->regs[i].ops->mem_rkey(w->regs[i].chan, w->regs[i].mr, &k);
        if (st != RDMACH_OK)
            return rch_base_err(st, "window: the %s channel gave no key for the window memory: %s",
                                w->regs[i].ops->name, rdmach_last_error());
        struct rch_dev_win_key *dk = &info->keys[info->nkeys++];
        snprintf(dk->chan, sizeof(dk->chan), "%s", w->regs[i].ops->name);
        dk->len = k.len;
        memcpy(dk->bytes, k.bytes, sizeof(dk->bytes));
    }
    return RDMACH_OK;
}

rdmach_status_t rch_dev_win_connect(struct rch_dev_win *w, const struct rch_dev_win_info *all)
{
    int auto_path = rch_tun.rma_path == RCH_RMA_PATH_AUTO;
    for (int r = 0; r < w->size; r++) {
        struct rch_dev_win_target *t = &w->t[r];
        const struct rch_dev_win_info *in = &all[r];
        t->base = in->base;
        t->size = in->size;
        t->disp_unit = in->disp_unit;
        t->path = RCH_DEV_WIN_AM;
        t->ctrl = NULL;
        if (r == w->rank) {
            t->path = RCH_DEV_WIN_DIRECT;
            t->mapped = w->flavor == RCH_DEV_WIN_DYNAMIC ? 0 : (uintptr_t)w->base;
            t->ctrl = w->my_ctrl;
            continue;
        }
        int li = w->seg ? local_index(w, r) : -1;
        if (li >= 0 && in->node != (uint32_t)rch_boot.node)
            return rch_base_err(RDMACH_ERR_PROTOCOL, "window: rank %d says it is on node %u, the layout says %d", r,
                                in->node, rch_boot.node);
        const struct rch_dev_peer *p = &rch_dev.peers[t->world];
        if (li >= 0 && auto_path) {
            t->ctrl = (struct rch_dev_win_ctrl *)(w->seg + (size_t)li * RCH_DEV_WIN_CTRL_STRIDE);
            if (in->flags & RCH_DEV_WIN_F_MAPPED) {
                t->path = RCH_DEV_WIN_DIRECT;
                t->mapped = (uintptr_t)(w->seg + w->seg_off[li]);
                continue;
            }
            if (w->flavor == RCH_DEV_WIN_DYNAMIC && p->rma && !p->dead) {
                /* attached memory through the table, single copy: passive */
                t->dyn = (struct rch_dev_win_dyntab *)(w->seg + dyn_base(w) + (size_t)li * sizeof(*t->dyn));
                t->path = RCH_DEV_WIN_RDMA;
                if (!w->dyn_ops) {
                    w->dyn_ops = p->ops;
                    w->dyn_chan = p->chan;
                }
                continue;
            }
        }
        if (w->flavor == RCH_DEV_WIN_DYNAMIC || rch_tun.rma_path == RCH_RMA_PATH_AM || !p->rma || p->dead)
            continue;
        for (uint32_t k = 0; k < in->nkeys && k < RCH_DEV_WIN_KEYS; k++) {
            if (strncmp(in->keys[k].chan, p->ops->name, sizeof(in->keys[k].chan)) == 0 &&
                in->keys[k].len <= RCH_RDMA_RKEY_MAX) {
                t->rkey.len = in->keys[k].len;
                memcpy(t->rkey.bytes, in->keys[k].bytes, sizeof(t->rkey.bytes));
                t->has_rkey = 1;
                t->path = RCH_DEV_WIN_RDMA;
                break;
            }
        }
    }
    int npath[4] = { 0, 0, 0, 0 };
    w->npackets = 0;
    for (int r = 0; r < w->size; r++) {
        npath[w->t[r].path & 3]++;
        /* the rules above are symmetric: whom I reach by packets reaches me so */
        w->npackets += r != w->rank && (!w->t[r].ctrl || w->t[r].path == RCH_DEV_WIN_AM);
    }
    RCH_DEBUG("rma", "window %u: %d members, %d on this node%s; targets by load/store %d, RDMA %d, packets %d", w->id,
              w->size, w->nlocal, w->seg ? " (node segment)" : "", npath[RCH_DEV_WIN_DIRECT], npath[RCH_DEV_WIN_RDMA],
              npath[RCH_DEV_WIN_AM]);
    return RDMACH_OK;
}

void rch_dev_win_free(struct rch_dev_win *w)
{
    if (!w)
        return;
    table_del(w);
    for (int i = 0; i < w->nregs; i++)
        w->regs[i].ops->mem_dereg(w->regs[i].chan, w->regs[i].mr);
    w->nregs = 0;
    seg_unlink(w);
    if (w->seg)
        munmap(w->seg, w->seg_len);
    rch_dev_rma_lockq_free(w);
    for (int i = 0; i < w->nregions; i++)
        if (w->regions[i].mr && w->dyn_ops)
            w->dyn_ops->mem_dereg(w->dyn_chan, w->regions[i].mr);
    free(w->own_mem);
    free(w->regions);
    free(w->world_of);
    free(w->t);
    free(w->local);
    free(w->seg_off);
    free(w);
}

void *rch_dev_win_shared_ptr(const struct rch_dev_win *w, int rank)
{
    if (rank == w->rank)
        return w->base;
    if (!w->seg || (w->flavor != RCH_DEV_WIN_ALLOCATE && w->flavor != RCH_DEV_WIN_SHARED))
        return NULL;
    int li = local_index(w, rank);
    return li < 0 ? NULL : w->seg + w->seg_off[li];
}

/* ---- dynamic windows ---- */

/* Rewrite my table in the node segment from w->regions (sequence lock). */
static void dyn_publish(struct rch_dev_win *w)
{
    struct rch_dev_win_dyntab *tab = w->my_dyn;
    if (!tab)
        return;
    uint32_t s = atomic_load_explicit(&tab->seq, memory_order_relaxed);
    atomic_store_explicit(&tab->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    int n = 0, over = 0;
    for (int i = 0; i < w->nregions; i++) {
        const struct rch_dev_win_region *r = &w->regions[i];
        if (!r->mr)
            continue;            /* empty region: nothing to reach */
        struct rch_rdma_rkey k;
        if (n == RCH_DEV_WIN_DYN_MAX || w->dyn_ops->mem_rkey(w->dyn_chan, r->mr, &k) != RDMACH_OK) {
            over = 1;
            break;
        }
        struct rch_dev_win_dynent *e = &tab->e[n++];
        e->base = r->base;
        e->len = r->len;
        e->keylen = k.len;
        memcpy(e->key, k.bytes, sizeof(e->key));
    }
    tab->n = (uint32_t)n;
    tab->overflow = (uint32_t)over;
    atomic_store_explicit(&tab->seq, s + 2, memory_order_release);
}

static void dynent_at(const void *set, uint32_t i, uint64_t *b, uint64_t *l)
{
    const struct rch_dev_win_dynent *e = &((const struct rch_dev_win_dyntab *)set)->e[i];
    *b = e->base;
    *l = e->len;
}

int rch_dev_rma_dyn_lookup(struct rch_dev_win_dyntab *tab, uint64_t addr, uint64_t len, struct rch_rdma_rkey *key)
{
    for (;;) {
        uint32_t s1 = atomic_load_explicit(&tab->seq, memory_order_acquire);
        if (s1 & 1) {
            rch_cpu_relax();
            continue;
        }
        int found = tab->overflow ? -1 : 0;
        uint32_t n = tab->n < RCH_DEV_WIN_DYN_MAX ? tab->n : RCH_DEV_WIN_DYN_MAX;
        for (uint32_t i = 0; i < n && found == 0; i++) {
            const struct rch_dev_win_dynent *e = &tab->e[i];
            if (holds(e->base, e->len, addr, len) && e->keylen <= RCH_RDMA_RKEY_MAX) {
                key->len = e->keylen;
                memcpy(key->bytes, e->key, sizeof(key->bytes));
                found = 1;
            }
        }
        /* regions back to back: each has its own key, so packets, and the
         * target checks them against its own list (rch_dev_win_region_ok) */
        if (found == 0 && spans(dynent_at, tab, n, addr, len))
            found = -1;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&tab->seq, memory_order_relaxed) == s1)
            return found;
    }
}

rdmach_status_t rch_dev_win_attach(struct rch_dev_win *w, void *base, size_t len)
{
    uint64_t b = (uint64_t)(uintptr_t)base;
    if (b + len < b)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "attach: [%p, +%zu) wraps around the address space", base, len);
    for (int i = 0; i < w->nregions; i++) {
        const struct rch_dev_win_region *r = &w->regions[i];
        if (b < r->base + r->len && r->base < b + len)
            return rch_base_err(RDMACH_ERR_INVALID_ARG,
                                "attach: [%p, +%zu) overlaps the attached region [0x%llx, +%llu)", base, len,
                                (unsigned long long)r->base, (unsigned long long)r->len);
    }
    if (w->nregions == w->cap_regions) {
        int n = w->cap_regions ? 2 * w->cap_regions : 8;
        struct rch_dev_win_region *p = realloc(w->regions, (size_t)n * sizeof(*p));
        if (!p)
            return rch_base_err(RDMACH_ERR_NO_MEMORY, "attach: no memory");
        w->regions = p;
        w->cap_regions = n;
    }
    struct rch_dev_win_region *r = &w->regions[w->nregions];
    *r = (struct rch_dev_win_region){ .base = b, .len = len, .mr = NULL };
    if (w->my_dyn && w->dyn_ops && len > 0) {
        rdmach_status_t st = w->dyn_ops->mem_reg(w->dyn_chan, base, len, RCH_RDMA_ACCESS_LOCAL |
                                                 RCH_RDMA_ACCESS_REMOTE_READ | RCH_RDMA_ACCESS_REMOTE_WRITE, &r->mr);
        if (st != RDMACH_OK)
            return rch_base_err(st, "attach: registering %zu bytes with the %s channel: %s", len, w->dyn_ops->name,
                                rdmach_last_error());
    }
    w->nregions++;
    dyn_publish(w);
    return RDMACH_OK;
}

rdmach_status_t rch_dev_win_detach(struct rch_dev_win *w, const void *base)
{
    uint64_t b = (uint64_t)(uintptr_t)base;
    for (int i = 0; i < w->nregions; i++) {
        if (w->regions[i].base == b) {
            if (w->regions[i].mr)
                w->dyn_ops->mem_dereg(w->dyn_chan, w->regions[i].mr);
            w->regions[i] = w->regions[--w->nregions];
            dyn_publish(w);
            return RDMACH_OK;
        }
    }
    return rch_base_err(RDMACH_ERR_NOT_FOUND, "detach: %p is not the base of a region attached to this window",
                        base);
}
