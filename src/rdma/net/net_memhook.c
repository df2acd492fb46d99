/*
 * Hearing about memory that goes away, for the registration cache
 * (net_rcache.h): this file defines free, realloc, reallocarray, munmap,
 * mremap and madvise. Each tells the caches listening (one per open network
 * channel) which range is about to be released, then forwards to the next
 * definition of the function (the C library's, or another allocator's /
 * sanitizer's, found with dlsym(RTLD_NEXT)).
 *
 * Why interception: a registration pins physical pages (verbs) or at least
 * names a range (libfabric). glibc's free() of a large block unmaps it
 * (internally, not through munmap's symbol), and the next malloc may map new
 * pages at the same address: a cache keyed by address alone would then hand
 * out a registration of the old pages. Intercepting free() catches that,
 * and munmap()/mremap()/madvise() catch what programs and other libraries do
 * directly. libfabric's own memory monitor is internal to its providers
 * (not an API), and userfaultfd's unmap events block the unmapping thread
 * until they are read, which a single-threaded progress engine cannot do.
 *
 * Not caught: system calls made without these symbols (syscall(SYS_munmap),
 * glibc-internal unmapping not preceded by a free, brk() by hand). Documented
 * in docs/NETWORK.md; RDMACH_NET_REG_CACHE=off avoids the cache altogether.
 *
 * Cost when no network channel is open: one relaxed load and a predictable
 * branch per call. These are the only symbols of the library outside
 * rdmach_* / MPI_* that are exported, and they must be (interposition).
 *
 * Bootstrapping: the next definitions are resolved on first use. If free()
 * is called while dlsym itself runs (it may allocate), that one block is
 * leaked rather than handed to the wrong allocator.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "base/base.h"
#include "rdma/net/net_rcache.h"

#define RCH_EXPORT __attribute__((visibility("default")))
#define MAX_CACHES 8

static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rch_net_rcache *caches[MAX_CACHES];
static int ncaches;                     /* read without the lock as a filter */

static void (*next_free)(void *);
static void *(*next_realloc)(void *, size_t);
static void *(*next_reallocarray)(void *, size_t, size_t);
static int (*next_munmap)(void *, size_t);
static void *(*next_mremap)(void *, size_t, size_t, int, ...);
static int (*next_madvise)(void *, size_t, int);
static int resolving;                   /* dlsym is running (any thread) */

static void resolve(void)
{
    if (__atomic_exchange_n(&resolving, 1, __ATOMIC_ACQ_REL))
        return;
    void *f;
    if ((f = dlsym(RTLD_NEXT, "free")) != NULL)
        __atomic_store_n((void **)&next_free, f, __ATOMIC_RELEASE);
    if ((f = dlsym(RTLD_NEXT, "realloc")) != NULL)
        __atomic_store_n((void **)&next_realloc, f, __ATOMIC_RELEASE);
    if ((f = dlsym(RTLD_NEXT, "reallocarray")) != NULL)
        __atomic_store_n((void **)&next_reallocarray, f, __ATOMIC_RELEASE);
    if ((f = dlsym(RTLD_NEXT, "munmap")) != NULL)
        __atomic_store_n((void **)&next_munmap, f, __ATOMIC_RELEASE);
    if ((f = dlsym(RTLD_NEXT, "mremap")) != NULL)
        __atomic_store_n((void **)&next_mremap, f, __ATOMIC_RELEASE);
    if ((f = dlsym(RTLD_NEXT, "madvise")) != NULL)
        __atomic_store_n((void **)&next_madvise, f, __ATOMIC_RELEASE);
    __atomic_store_n(&resolving, 0, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void memhook_init(void)
{
    resolve();
}

static void released(const void *addr, size_t len)
{
    if (RCH_LIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) == 0) || addr == NULL || len == 0)
        return;
    pthread_mutex_lock(&hook_lock);
    for (int i = 0; i < ncaches; i++)
        rch_net_rcache_invalidate(caches[i], (uintptr_t)addr, len);
    pthread_mutex_unlock(&hook_lock);
}

void rch_net_memhook_add(struct rch_net_rcache *rc)
{
    if (next_free == NULL)
        resolve();
    pthread_mutex_lock(&hook_lock);
    if (ncaches < MAX_CACHES)
        caches[ncaches] = rc, __atomic_store_n(&ncaches, ncaches + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&hook_lock);
}

void rch_net_memhook_remove(struct rch_net_rcache *rc)
{
    pthread_mutex_lock(&hook_lock);
    for (int i = 0; i < ncaches; i++) {
        if (caches[i] == rc) {
            caches[i] = caches[ncaches - 1];
            __atomic_store_n(&ncaches, ncaches - 1, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&hook_lock);
}

RCH_EXPORT void free(void *p)
{
    if (p == NULL)
        return;
    if (RCH_UNLIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) != 0))
        released(p, malloc_usable_size(p));
    void (*f)(void *) = __atomic_load_n(&next_free, __ATOMIC_ACQUIRE);
    if (RCH_UNLIKELY(f == NULL)) {
        resolve();
        if ((f = __atomic_load_n(&next_free, __ATOMIC_ACQUIRE)) == NULL)
            return;   /* inside dlsym: leak this block rather than free it wrongly */
    }
    f(p);
}

RCH_EXPORT void *realloc(void *p, size_t n)
{
    if (p != NULL && RCH_UNLIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) != 0))
        released(p, malloc_usable_size(p));
    void *(*f)(void *, size_t) = __atomic_load_n(&next_realloc, __ATOMIC_ACQUIRE);
    if (RCH_UNLIKELY(f == NULL)) {
        resolve();
        if ((f = __atomic_load_n(&next_realloc, __ATOMIC_ACQUIRE)) == NULL) {
            /* inside dlsym: a fresh block, the old one leaked */
            void *q = malloc(n ? n : 1);
            if (q && p)
                memcpy(q, p, malloc_usable_size(p) < n ? malloc_usable_size(p) : n);
            return q;
        }
    }
    return f(p, n);
}

RCH_EXPORT void *reallocarray(void *p, size_t nmemb, size_t size)
{
    if (p != NULL && RCH_UNLIKELY(__atomic_load_n(&ncaches, __ATOMIC_RELAXED) != 0))
        released(p, malloc_usable_size(p));
    void *(*f)(void *, size_t, size_t) = __atomic_load_n(&next_reallocarray, __ATOMIC_ACQUIRE);
    if (RCH_UNLIKELY(f == NULL)) {
        resolve();
        f = __atomic_load_n(&next_reallocarray, __ATOMIC_ACQUIRE);
    }
    if (f)
        return f(p, nmemb, size);
    if (size && nmemb > SIZE_MAX / size)
        return NULL;
    return realloc(p, nmemb * size);
}

RCH_EXPORT int munmap(void *addr, size_t len)
{
    released(addr, len);
    int (*f)(void *, size_t) = __atomic_load_n(&next_munmap, __ATOMIC_ACQUIRE);
    if (RCH_UNLIKELY(f == NULL)) {
        resolve();
        f = __atomic_load_n(&next_munmap, __ATOMIC_ACQUIRE);
    }
    if (f)
        return f(addr, len);
    return (int)syscall(SYS_munmap, addr, len);
}

RCH_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
    }
    released(old, old_len);
    void *(*f)(void *, size_t, size_t, int, ...) = __atomic_load_n(&next_mremap, __ATOMIC_ACQUIRE);
    if (RCH_UNLIKELY(f == NULL)) {
        resolve();
        f = __atomic_load_n(&next_mremap, __ATOMIC_ACQUIRE);
    }
    if (f)
        return (flags & MREMAP_FIXED) ? f(old, old_len, new_len, flags, new_addr) : f(old, old_len, new_len, flags);
    return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
}

RCH_EXPORT int madvise(void *addr, size_t len, int advice)
{
    if (advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE)
        released(addr, len);
    int (*f)(void *, size_t, int) = __atomic_load_n(&next_madvise, __ATOMIC_ACQUIRE);
    if (RCH_UNLIKELY(f == NULL)) {
        resolve();
        f = __atomic_load_n(&next_madvise, __ATOMIC_ACQUIRE);
    }
    if (f)
        return f(addr, len, advice);
    return (int)syscall(SYS_madvise, addr, len, advice);
}
