/* Segments under /dev/shm, their life cycle, and the wake-up primitives (see shm_seg.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/shm/shm_seg.h"

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

rdmach_status_t rch_shm_seg_name(char *out, size_t len, const char *kvsname, int rank)
{
    char kvs[RCH_SHM_NAME_MAX + 1];
    size_t i;
    if (!kvsname || !kvsname[0])
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm: empty kvsname for the segment name");
    for (i = 0; kvsname[i] && i < sizeof(kvs) - 1; i++) {
        char c = kvsname[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        kvs[i] = ok ? c : '_';
    }
    kvs[i] = '\0';
    int n = snprintf(out, len, "/rdmach-%s-%d", kvs, rank);
    if (n < 0 || (size_t)n >= len || n > RCH_SHM_NAME_MAX || kvsname[i])
        return rch_base_err(RDMACH_ERR_INVALID_ARG,
                            "shm: segment name for kvsname '%.40s...' and rank %d is too long", kvsname, rank);
    return RDMACH_OK;
}

static void fill_seg(struct rch_shm_seg *seg, void *base, size_t size, const char *name, int owner)
{
    seg->base = base;
    seg->size = size;
    seg->hdr = base;
    seg->wake = (struct rch_shm_wake *)((unsigned char *)base + RCH_SHM_SEG_WAKE_OFF);
    seg->owner = owner;
    snprintf(seg->name, sizeof(seg->name), "%s", name);
}

static rdmach_status_t exists_error(const char *name, const char *call)
{
    if (errno == EEXIST)
        return rch_base_err(RDMACH_ERR_BUSY,
                            "shm: segment /dev/shm%s already exists (left by a crashed job with the "
                            "same kvsname? remove it)", name);
    return rch_base_errno(errno, "shm: %s of /dev/shm%s", call, name);
}

/* A segment is made as an unnamed file in /dev/shm (O_TMPFILE) and given its
 * name only once complete: a rank killed at any point of rch_shm_seg_create
 * leaves either nothing or a file whose header names its owner, which
 * rch_shm_seg_sweep can judge. linkat through /proc/self/fd needs no
 * privilege (AT_EMPTY_PATH would) and fails with EEXIST like O_EXCL. */
static rdmach_status_t publish(int fd, const char *name)
{
    char from[64], to[sizeof("/dev/shm") + RCH_SHM_NAME_MAX];
    snprintf(from, sizeof(from), "/proc/self/fd/%d", fd);
    snprintf(to, sizeof(to), "/dev/shm%s", name);
    if (linkat(AT_FDCWD, from, AT_FDCWD, to, AT_SYMLINK_FOLLOW) != 0)
        return exists_error(name, "linkat");
    return RDMACH_OK;
}

static pthread_mutex_t *life(const struct rch_shm_seg *seg)
{
    _Static_assert(sizeof(pthread_mutex_t) <= RCH_SHM_RING_LINE, "the life lock fits its line");
    return (pthread_mutex_t *)(seg->base + rch_shm_life_off(seg->hdr->nslots));
}

/* Lock our segment's life line for as long as we own it (shm_proto.h). */
static rdmach_status_t life_begin(struct rch_shm_seg *seg)
{
    pthread_mutexattr_t a;
    int err = pthread_mutexattr_init(&a);
    if (!err && !(err = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED)) &&
        !(err = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST)) && !(err = pthread_mutex_init(life(seg), &a)))
        err = pthread_mutex_lock(life(seg));
    pthread_mutexattr_destroy(&a);
    return err ? rch_base_errno(err, "shm: the life lock of /dev/shm%s", seg->name) : RDMACH_OK;
}

int rch_shm_seg_owner_alive(const struct rch_shm_seg *seg)
{
    /* glibc's lock word: the owner's tid (in its pid namespace), with
     * FUTEX_OWNER_DIED set by the kernel when that thread ends */
    int w = __atomic_load_n(&life(seg)->__data.__lock, __ATOMIC_ACQUIRE);
    return w != 0 && !(w & FUTEX_OWNER_DIED);
}

rdmach_status_t rch_shm_seg_create(struct rch_shm_seg *seg, const char *name,
                                   const struct rch_shm_geom *geom, int owner_rank,
                                   int maps_expected, uint32_t flags)
{
    rdmach_status_t st;
    uint64_t chunk = round_up(geom->pipe_chunk, RCH_SHM_CELL);
    uint64_t ring = round_up(rch_shm_ring_bytes(geom->ring_cells), RCH_SHM_PAGE);
    uint64_t stride = round_up(ring + RCH_SHM_PAGE + RCH_SHM_PIPE_NBUF * chunk, RCH_SHM_PAGE);
    uint64_t slot_off = round_up(rch_shm_life_off(geom->nslots) + RCH_SHM_RING_LINE, RCH_SHM_PAGE);
    uint64_t size = slot_off + (uint64_t)geom->nslots * stride;
    _Static_assert(sizeof(struct rch_shm_pipe_ctl) <= RCH_SHM_PAGE, "pipe control fits a page");

    if (geom->nslots == 0 || maps_expected < 1)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm: segment %s with %u slots, %d mappers",
                            name, geom->nslots, maps_expected);
    memset(seg, 0, sizeof(*seg));
    int linked = 0;
    int fd = open("/dev/shm", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        /* No O_TMPFILE here: the name exists from the start, and a kill
         * before the header below leaves a file the sweep cannot judge. */
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0)
            return exists_error(name, "shm_open(O_CREAT)");
        linked = 1;
    }
    if (fchmod(fd, 0600) != 0) {
        st = rch_base_errno(errno, "shm: fchmod(/dev/shm%s)", name);
        goto out_unlink;
    }
    /* Who owns the file, first: a job killed while this rank reserves the
     * pages below (tens of ms under load) leaves a file that
     * rch_shm_seg_sweep must still recognise. */
    struct rch_shm_seg_hdr early = { .version = RCH_SHM_SEG_VERSION, .owner_pid = (int32_t)getpid(),
                                     .owner_pidns = rch_shm_pid_namespace() };
    if (pwrite(fd, &early, sizeof(early), 0) != (ssize_t)sizeof(early)) {
        st = rch_base_errno(errno, "shm: writing the header of /dev/shm%s", name);
        goto out_unlink;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        st = rch_base_errno(errno, "shm: ftruncate(/dev/shm%s, %llu)", name, (unsigned long long)size);
        goto out_unlink;
    }
    /* Reserve the pages we touch whoever sends (the header, wake line and
     * doorbell), so a full /dev/shm is an error now and not a SIGBUS later.
     * A ring (and the page of its pipe control) is reserved by its sender
     * before its first record (rch_shm_seg_reserve_ring), pipe buffers by a
     * source that uses them (rch_shm_seg_reserve_pipe), and we touch a ring
     * only once its sender rang the doorbell: memory grows with the pairs
     * that talk, not with the square of the local ranks. */
    int err = posix_fallocate(fd, 0, (off_t)slot_off);
    if (err == ENOSPC) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "shm: /dev/shm is full: no room for the header and doorbell "
                          "of /dev/shm%s (%llu bytes)", name, (unsigned long long)slot_off);
        goto out_unlink;
    }
    if (err != 0) {
        st = rch_base_errno(err, "shm: reserving %llu bytes of /dev/shm%s", (unsigned long long)size, name);
        goto out_unlink;
    }
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        st = rch_base_errno(errno, "shm: mmap(/dev/shm%s, %llu)", name, (unsigned long long)size);
        goto out_unlink;
    }
    fill_seg(seg, base, size, name, 1);
    seg->fd = fd;
    struct rch_shm_seg_hdr *h = seg->hdr;
    h->version = RCH_SHM_SEG_VERSION;
    h->nslots = geom->nslots;
    h->owner_rank = owner_rank;
    h->owner_pid = (int32_t)getpid();
    h->owner_pidns = rch_shm_pid_namespace();
    h->wake_fd = -1;
    h->size = size;
    h->ring_cells = geom->ring_cells;
    h->slot_off = slot_off;
    h->slot_stride = stride;
    h->pipe_off = ring;
    h->pipe_chunk = chunk;
    h->pipe_nbuf = RCH_SHM_PIPE_NBUF;
    h->flags = flags;
    h->owner_addr = (uint64_t)(uintptr_t)base;
    h->maps_expected = maps_expected;
    atomic_store_explicit(&h->maps, 1, memory_order_relaxed);
    atomic_store_explicit(&h->unlinked, 0, memory_order_relaxed);
    st = life_begin(seg);
    if (st != RDMACH_OK) {
        munmap(base, size);
        memset(seg, 0, sizeof(*seg));
        goto out_unlink;
    }
    __atomic_store_n(&h->magic, RCH_SHM_SEG_MAGIC, __ATOMIC_RELEASE);
    if (!linked) {
        st = publish(fd, name);
        if (st != RDMACH_OK) {
            pthread_mutex_unlock(life(seg));
            munmap(base, size);
            memset(seg, 0, sizeof(*seg));
            close(fd);
            return st;
        }
    }
    RCH_DEBUG("shm", "created /dev/shm%s: %llu bytes, %u slots of %llu, ring %llu cells; %llu bytes reserved",
              name, (unsigned long long)size, geom->nslots, (unsigned long long)stride,
              (unsigned long long)geom->ring_cells, (unsigned long long)slot_off);
    if (maps_expected == 1)
        rch_shm_seg_unlink(seg);
    return RDMACH_OK;

out_unlink:
    if (linked)
        shm_unlink(name);
    close(fd);
    return st;
}

static rdmach_status_t check_header(const struct rch_shm_seg *seg, int rank, pid_t pid)
{
    const struct rch_shm_seg_hdr *h = seg->hdr;
    const char *bad = NULL;
    if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != RCH_SHM_SEG_MAGIC)
        bad = "bad magic";
    else if (h->version != RCH_SHM_SEG_VERSION)
        bad = "unknown version";
    else if (h->owner_rank != rank || (pid > 0 && h->owner_pid != pid))
        bad = "owner is another rank or process";
    else if (h->size != seg->size)
        bad = "size differs from the file";
    else if (h->ring_cells < RCH_SHM_RING_MIN_CELLS || (h->ring_cells & (h->ring_cells - 1)))
        bad = "ring size";
    else if (h->pipe_nbuf != RCH_SHM_PIPE_NBUF || h->pipe_chunk == 0 || h->pipe_chunk % RCH_SHM_CELL ||
             h->pipe_chunk > UINT32_MAX)
        bad = "pipe geometry";
    else if (h->slot_off < rch_shm_life_off(h->nslots) + RCH_SHM_RING_LINE || h->slot_off % RCH_SHM_PAGE ||
             h->slot_stride % RCH_SHM_PAGE || h->nslots == 0 ||
             h->pipe_off < rch_shm_ring_bytes(h->ring_cells) ||
             h->pipe_off + RCH_SHM_PAGE + (uint64_t)RCH_SHM_PIPE_NBUF * h->pipe_chunk > h->slot_stride ||
             h->slot_off + (uint64_t)h->nslots * h->slot_stride > h->size)
        bad = "slot geometry";
    if (bad)
        return rch_base_err(RDMACH_ERR_PROTOCOL, "shm: segment /dev/shm%s of rank %d is invalid: %s",
                            seg->name, rank, bad);
    return RDMACH_OK;
}

rdmach_status_t rch_shm_seg_attach(struct rch_shm_seg *seg, const char *name, int rank, pid_t pid)
{
    rdmach_status_t st;
    struct stat sb;
    memset(seg, 0, sizeof(*seg));
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        if (errno == ENOENT)
            return rch_base_err(RDMACH_ERR_CONN_REFUSED,
                                "shm: segment /dev/shm%s of rank %d does not exist (rank %d gone, or "
                                "every expected rank mapped it already)", name, rank, rank);
        return rch_base_errno(errno, "shm: shm_open(%s) of rank %d", name, rank);
    }
    if (fstat(fd, &sb) != 0) {
        st = rch_base_errno(errno, "shm: fstat(/dev/shm%s)", name);
        goto out_close;
    }
    if ((size_t)sb.st_size < RCH_SHM_PAGE + RCH_SHM_RING_LINE) {
        st = rch_base_err(RDMACH_ERR_PROTOCOL, "shm: segment /dev/shm%s of rank %d is too small (%lld bytes)",
                          name, rank, (long long)sb.st_size);
        goto out_close;
    }
    void *base = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        st = rch_base_errno(errno, "shm: mmap(/dev/shm%s)", name);
        goto out_close;
    }
    fill_seg(seg, base, (size_t)sb.st_size, name, 0);
    seg->fd = fd;
    st = check_header(seg, rank, pid);
    if (st != RDMACH_OK)
        goto out_unmap;
    int maps = atomic_fetch_add_explicit(&seg->hdr->maps, 1, memory_order_acq_rel) + 1;
    if (maps >= seg->hdr->maps_expected)
        rch_shm_seg_unlink(seg);
    return RDMACH_OK;

out_unmap:
    munmap(base, (size_t)sb.st_size);
    seg->base = NULL;
out_close:
    close(fd);
    seg->fd = -1;
    return st;
}

void rch_shm_seg_unlink(struct rch_shm_seg *seg)
{
    if (!seg->hdr)
        return;
    if (atomic_exchange_explicit(&seg->hdr->unlinked, 1, memory_order_acq_rel) == 0) {
        if (shm_unlink(seg->name) != 0 && errno != ENOENT)
            RCH_WARN("shm", "shm_unlink(/dev/shm%s): %s", seg->name, strerror(errno));
        else
            RCH_DEBUG("shm", "removed /dev/shm%s", seg->name);
    }
}

static rdmach_status_t reserve(const struct rch_shm_seg *seg, off_t off, unsigned long long len, const char *what)
{
    int err = posix_fallocate(seg->fd, off, (off_t)len);
    if (err == ENOSPC)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm: /dev/shm is full: no room for the %llu bytes of %s in "
                            "/dev/shm%s", len, what, seg->name);
    if (err != 0)
        return rch_base_errno(err, "shm: reserving %llu bytes of %s in /dev/shm%s", len, what, seg->name);
    return RDMACH_OK;
}

rdmach_status_t rch_shm_seg_reserve_ring(struct rch_shm_seg *seg, uint32_t slot)
{
    const struct rch_shm_seg_hdr *h = seg->hdr;
    return reserve(seg, (off_t)(h->slot_off + (uint64_t)slot * h->slot_stride), h->pipe_off + RCH_SHM_PAGE,
                   "a ring");
}

rdmach_status_t rch_shm_seg_reserve_pipe(struct rch_shm_seg *seg, uint32_t slot)
{
    const struct rch_shm_seg_hdr *h = seg->hdr;
    off_t off = (off_t)(h->slot_off + (uint64_t)slot * h->slot_stride + h->pipe_off + RCH_SHM_PAGE);
    if (rch_tun.shm_pipe_full)   /* what posix_fallocate's ENOSPC gives, below */
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "shm: /dev/shm is full (RDMACH_SHM_PIPE_FULL): no room for "
                            "the pipe buffers in /dev/shm%s", seg->name);
    return reserve(seg, off, RCH_SHM_PIPE_NBUF * h->pipe_chunk, "pipe buffers");
}

/* Looked up once: a process never changes its own pid namespace (setns
 * and unshare change its children's), and a forked child shares it. A path
 * lookup through /proc per mapped peer was ~7% of a 256-rank start-up. */
unsigned long long rch_shm_pid_namespace(void)
{
    static unsigned long long ns;   /* 0: not looked up, or unknown */
    unsigned long long v = __atomic_load_n(&ns, __ATOMIC_RELAXED);
    if (v == 0) {
        struct stat sb;
        v = stat("/proc/self/ns/pid", &sb) == 0 ? (unsigned long long)sb.st_ino : 0;
        __atomic_store_n(&ns, v, __ATOMIC_RELAXED);
    }
    return v;
}

/* Is process pid gone, or about to be: no such process, a zombie, or a
 * SIGKILL pending (a killed job's ranks may take a while to exit)? */
static int owner_gone(pid_t pid)
{
    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    char path[64], line[128];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int gone = 0;
    while (!gone && fgets(line, sizeof(line), f)) {
        unsigned long long mask;
        char state;
        if (sscanf(line, "State: %c", &state) == 1)
            gone = state == 'Z' || state == 'X';
        else if (sscanf(line, "ShdPnd: %llx", &mask) == 1 || sscanf(line, "SigPnd: %llx", &mask) == 1)
            gone = (mask >> (SIGKILL - 1)) & 1;
    }
    fclose(f);
    return gone;
}

/* A departed owner's segment that some expected peer has not mapped yet: a
 * rank may finish and leave (a session ended, no collective exit) while a
 * peer still starts its channel. Its name stays for that peer, whose
 * attach removes it (the last expected mapper does, rch_shm_seg_attach),
 * and no sweep takes it meanwhile (stale_segment); if that peer never
 * comes, the job's clean-up does (rdmachrun, the reaper, reaper.c). */
static int awaited(const struct rch_shm_seg_hdr *h)
{
    return atomic_load_explicit(&h->departed, memory_order_acquire) &&
           atomic_load_explicit(&h->maps, memory_order_acquire) < h->maps_expected;
}

/* Is the file (open as fd) a channel segment of ours whose owner is gone?
 * The creator writes version, owner pid and pid namespace before anything
 * else (rch_shm_seg_create). Only an owner in our pid namespace can be
 * judged: the same /dev/shm may serve containers with pid namespaces of
 * their own. A recycled pid counts as alive: nothing live is ever removed,
 * at worst a stale file stays until the pid is free. */
static int stale_segment(int fd, uid_t me, unsigned long long ns)
{
    struct stat sb;
    struct rch_shm_seg_hdr h;
    if (ns == 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_uid != me ||
        (size_t)sb.st_size < sizeof(h) || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
        return 0;
    /* every version so far puts owner_pid and owner_pidns at the same place */
    if (h.version - 1u >= RCH_SHM_SEG_VERSION || h.owner_pidns != ns || h.owner_pid <= 0)
        return 0;
    if (h.version == RCH_SHM_SEG_VERSION && awaited(&h))
        return 0;
    return owner_gone((pid_t)h.owner_pid);
}

unsigned rch_shm_seg_sweep(void)
{
    unsigned removed = 0;
    unsigned long long ns = rch_shm_pid_namespace();
    DIR *d = opendir("/dev/shm");
    if (d == NULL)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "rdmach-", 7) != 0)
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (stale_segment(fd, geteuid(), ns) && unlinkat(dirfd(d), e->d_name, 0) == 0) {
            removed++;
            RCH_DEBUG("shm", "removed /dev/shm/%s: its owner is gone", e->d_name);
        }
        close(fd);
    }
    closedir(d);
    if (removed)
        RCH_INFO("shm", "removed %u segment(s) of dead jobs from /dev/shm", removed);
    return removed;
}

void rch_shm_seg_detach(struct rch_shm_seg *seg)
{
    if (!seg->base)
        return;
    if (seg->owner && !awaited(seg->hdr))
        rch_shm_seg_unlink(seg);
    /* A robust lock still held stays on its thread's robust list, which the
     * kernel and glibc walk: its memory must stay mapped. A close from
     * another thread than the open (MPI forbids it) keeps the mapping. */
    if (seg->owner && pthread_mutex_unlock(life(seg)) != 0) {
        RCH_DEBUG("shm", "/dev/shm%s: closed by another thread than its creator: its life line stays mapped",
                  seg->name);
        seg->base = NULL;
    }
    if (seg->base)
        munmap(seg->base, seg->size);
    if (seg->fd >= 0)
        close(seg->fd);
    memset(seg, 0, sizeof(*seg));
    seg->fd = -1;
}

/* ---- blocking ---- */

static int membarrier_ok = -1;

int rch_shm_barrier_init(void)
{
    if (membarrier_ok >= 0)
        return !membarrier_ok;
    long q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    membarrier_ok = q >= 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
                    (q & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) &&
                    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
    if (!membarrier_ok)
        RCH_INFO("shm", "membarrier(GLOBAL_EXPEDITED) unavailable: senders use a full fence");
    return !membarrier_ok;
}

void rch_shm_heavy_barrier(int use_membarrier)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (use_membarrier && membarrier_ok == 1 &&
        syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) != 0) {
        /* Cannot happen after a successful registration; be loud, peers may now
         * miss a wake-up until their next message. */
        RCH_WARN("shm", "membarrier(GLOBAL_EXPEDITED): %s", strerror(errno));
    }
}

void rch_shm_wake(struct rch_shm_wake *w)
{
    atomic_fetch_add_explicit(&w->futex, 1, memory_order_seq_cst);
    /* a shared futex (no FUTEX_PRIVATE_FLAG): the waiter is another process */
    syscall(SYS_futex, &w->futex, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}
