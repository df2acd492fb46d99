/*
 * The registration cache's memory monitor (net_rcache.h): hearing about
 * memory that goes away, without the library defining — and so exporting —
 * free, munmap or any other function of the C library.
 *
 * Why a monitor: a registration pins physical pages (verbs) or at least
 * names a range (libfabric). glibc's free() of a large block unmaps it
 * (inside libc, not through munmap's symbol), and the next malloc may map
 * new pages at the same address: a cache keyed by address alone would then
 * hand out a registration of the old pages.
 *
 * How (RDMACH_NET_MEM_MONITOR, the one tunables table):
 *   reloc  the calls every loaded object makes to free, realloc,
 *          reallocarray, munmap, mremap, madvise, brk, sbrk and shmdt are
 *          redirected to hooks here by rewriting the objects' relocations
 *          (net_reloc.c). Each hook tells the listening caches (one per
 *          open network channel) which range is about to be released, then
 *          calls the definition the process binds to — the C library's, or
 *          a sanitizer's or preloaded allocator's. Installed when the first
 *          cache starts listening (after the providers are loaded), again
 *          for objects loaded since at every further channel open, and
 *          taken out when the last cache stops.
 *   off    no monitor: the registration cache is not used (every transfer
 *          registers and deregisters), as with RDMACH_NET_REG_CACHE=off.
 *   auto   reloc where the build supports it (ELF64 x86_64, aarch64), else off.
 * userfaultfd (unmap/remap/remove events) was not chosen: unprivileged use
 * is off by default since Linux 5.11 (vm.unprivileged_userfaultfd=0,
 * /dev/userfaultfd root's), and its events stop the unmapping thread until
 * a monitor thread reads them.
 *
 * Not caught: objects loaded after the last channel open, the C library's
 * calls to itself (net_reloc.c: why), and unmapping that reaches the kernel
 * without a hooked call (syscall(SYS_munmap)). docs/NETWORK.md.
 *
 * Cost when no cache listens: one relaxed load and a branch per call.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/net/net_rcache.h"
#include "rdma/net/net_reloc.h"

#define MAX_CACHES 8

/* hook_lock guards `caches`; the hooks take it (any thread, inside free).
 * patch_lock serializes installing and removing the hooks, which must not
 * run under hook_lock (a free inside them would wait for itself). */
static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rch_net_rcache *caches[MAX_CACHES];
static int ncaches;                     /* read without the lock as a filter */
static int nlisteners;                  /* under patch_lock: caches added and not removed */

static void (*next_free)(void *);
static void *(*next_realloc)(void *, size_t);
static void *(*next_reallocarray)(void *, size_t, size_t);
static int (*next_munmap)(void *, size_t);
static void *(*next_mremap)(void *, size_t, size_t, int, ...);
static int (*next_madvise)(void *, size_t, int);
static int (*next_brk)(void *);
static void *(*next_sbrk)(intptr_t);
static int (*next_shmdt)(const void *);

static void released(const void *addr, size_t len)
{
    if (RCH_LIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) == 0) || addr == NULL || len == 0)
        return;
    pthread_mutex_lock(&hook_lock);
    for (int i = 0; i < ncaches; i++)
        rch_net_rcache_invalidate(caches[i], (uintptr_t)addr, len);
    pthread_mutex_unlock(&hook_lock);
}

static void hook_free(void *p)
{
    if (p != NULL && RCH_UNLIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) != 0))
        released(p, malloc_usable_size(p));
    next_free(p);
}

static void *hook_realloc(void *p, size_t n)
{
    if (p != NULL && RCH_UNLIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) != 0))
        released(p, malloc_usable_size(p));
    return next_realloc(p, n);
}

static void *hook_reallocarray(void *p, size_t nmemb, size_t size)
{
    if (p != NULL && RCH_UNLIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) != 0))
        released(p, malloc_usable_size(p));
    return next_reallocarray(p, nmemb, size);
}

static int hook_munmap(void *addr, size_t len)
{
    released(addr, len);
    return next_munmap(addr, len);
}

static void *hook_mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
    }
    released(old, old_len);
    return (flags & MREMAP_FIXED) ? next_mremap(old, old_len, new_len, flags, new_addr)
                                  : next_mremap(old, old_len, new_len, flags);
}

static int hook_madvise(void *addr, size_t len, int advice)
{
    if (advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE)
        released(addr, len);
    return next_madvise(addr, len, advice);
}

static int hook_brk(void *addr)
{
    if (RCH_UNLIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) != 0)) {
        char *cur = next_sbrk(0);
        if ((char *)addr < cur)
            released(addr, (size_t)(cur - (char *)addr));
    }
    return next_brk(addr);
}

static void *hook_sbrk(intptr_t inc)
{
    if (inc < 0 && RCH_UNLIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) != 0)) {
        char *cur = next_sbrk(0);
        released(cur + inc, (size_t)-inc);
    }
    return next_sbrk(inc);
}

/* Length of the mapping that starts at addr (/proc/self/maps; read with
 * system calls into the stack: no allocation inside a hook), 0 if none. */
static size_t mapping_len(const void *addr)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096];
    size_t have = 0, len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
        if (n <= 0)
            break;
        have += (size_t)n;
        buf[have] = '\0';
        char *line = buf, *nl;
        while ((nl = strchr(line, '\n')) != NULL) {
            unsigned long s, e;
            char *end;
            s = strtoul(line, &end, 16);
            if (*end == '-' && s == (uintptr_t)addr) {
                e = strtoul(end + 1, NULL, 16);
                len = e - s;
                goto out;
            }
            line = nl + 1;
        }
        have = strlen(line);
        memmove(buf, line, have);
    }
out:
    close(fd);
    return len;
}

static int hook_shmdt(const void *addr)
{
    if (RCH_UNLIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) != 0))
        released(addr, mapping_len(addr));
    return next_shmdt(addr);
}

static struct rch_net_reloc_hook hooks[] = {
    { "free", (void *)hook_free, NULL },
    { "realloc", (void *)hook_realloc, NULL },
    { "reallocarray", (void *)hook_reallocarray, NULL },
    { "munmap", (void *)hook_munmap, NULL },
    { "mremap", (void *)hook_mremap, NULL },
    { "madvise", (void *)hook_madvise, NULL },
    { "brk", (void *)hook_brk, NULL },
    { "sbrk", (void *)hook_sbrk, NULL },
    { "shmdt", (void *)hook_shmdt, NULL },
};
#define NHOOKS ((int)(sizeof(hooks) / sizeof(hooks[0])))

static int resolved;                    /* every `next` found */

/* dlsym may allocate and free: called before any slot points at a hook and
 * outside both locks. */
static void resolve(void)
{
    void **next[NHOOKS] = { (void **)&next_free, (void **)&next_realloc, (void **)&next_reallocarray,
                            (void **)&next_munmap, (void **)&next_mremap, (void **)&next_madvise,
                            (void **)&next_brk, (void **)&next_sbrk, (void **)&next_shmdt };
    int ok = 1;
    for (int i = 0; i < NHOOKS; i++) {
        void *f = dlsym(RTLD_DEFAULT, hooks[i].name);
        ok &= f != NULL;
        *next[i] = f;
        hooks[i].next = f;
    }
    resolved = ok;
}

int rch_net_memhook_mode(void)
{
    if (rch_tun.net_mem_monitor == RCH_MEM_MONITOR_OFF)
        return RCH_MEM_MONITOR_OFF;
    return rch_net_reloc_supported() ? RCH_MEM_MONITOR_RELOC : RCH_MEM_MONITOR_OFF;
}

const char *rch_net_memhook_describe(void)
{
    if (rch_net_memhook_mode() == RCH_MEM_MONITOR_RELOC)
        return "reloc (free, realloc, reallocarray, munmap, mremap, madvise, brk, sbrk, shmdt: relocations "
               "of loaded objects rewritten at channel open; no allocator symbol exported)";
    if (rch_tun.net_mem_monitor == RCH_MEM_MONITOR_OFF)
        return "off (RDMACH_NET_MEM_MONITOR=off: the registration cache is not used)";
    return "off (relocations cannot be rewritten on this platform: the registration cache is not used)";
}

rdmach_status_t rch_net_memhook_add(struct rch_net_rcache *rc)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (rch_net_memhook_mode() != RCH_MEM_MONITOR_RELOC)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "registration cache: %s", rch_net_memhook_describe());
    pthread_once(&once, resolve);
    if (!resolved)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "registration cache: the C library lacks one of the "
                            "functions the memory monitor hooks");
    pthread_mutex_lock(&patch_lock);
    pthread_mutex_lock(&hook_lock);
    int full = ncaches == MAX_CACHES;
    if (!full)
        caches[ncaches] = rc, __atomic_store_n(&ncaches, ncaches + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&hook_lock);
    if (!full) {
        nlisteners++;
        int n = rch_net_reloc_patch(hooks, NHOOKS);
        RCH_DEBUG("net", "memory monitor: %d relocation(s) rewritten", n);
    }
    pthread_mutex_unlock(&patch_lock);
    if (full)
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "registration cache: more than %d network channels "
                            "open at once", MAX_CACHES);
    return RDMACH_OK;
}

void rch_net_memhook_remove(struct rch_net_rcache *rc)
{
    pthread_mutex_lock(&patch_lock);
    pthread_mutex_lock(&hook_lock);
    int found = 0;
    for (int i = 0; i < ncaches; i++) {
        if (caches[i] == rc) {
            caches[i] = caches[ncaches - 1];
            __atomic_store_n(&ncaches, ncaches - 1, __ATOMIC_RELEASE);
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&hook_lock);
    if (found && --nlisteners == 0)
        rch_net_reloc_restore();
    pthread_mutex_unlock(&patch_lock);
}
