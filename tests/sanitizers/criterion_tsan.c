/*
 * Linked into the Criterion unit tests of a ThreadSanitizer build only
 * (tests/CMakeLists.txt): lets Criterion start under TSan.
 *
 * Criterion's sandbox (BoxFort 0.1, Criterion 2.4) puts its "inheritable
 * arena" at a random fixed address: ARENA_BASE + (rand_r() & ARENA_MASK) *
 * ARENA_STEP, between 0x2000'0000'0000 and 0x7f00'0000'0000. Under TSan
 * nearly all of that range is TSan's (shadow, metadata, and holes it
 * reserves): each candidate's mincore probe finds a mapping, and after a
 * few tries Criterion aborts before any test ("Could not initialize
 * inheritable arena: Resource temporarily unavailable",
 * Snaipe/Criterion#274); a free hole there would be refused by TSan's mmap
 * (no application memory).
 *
 * This rand_r draws its candidates from the 16 GiB starting 64 GiB past
 * this executable instead: application memory under every x86-64 TSan
 * layout (a PIE's region), unmapped, and within Criterion's bounds; still
 * pseudo-random within that window. Other callers (a test's own rand_r)
 * get the C library's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* dladdr, RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#define ARENA_BASE ((uintptr_t)0x200000000000)   /* BoxFort's mmap_base, mmap_off, mmap_off_mask */
#define ARENA_STEP ((uintptr_t)1 << 24)
#define ARENA_MASK 0x3fffffu
#define BESIDE ((uintptr_t)1 << 36)
#define WINDOW 1024u                              /* candidates: 16 GiB */

/* default visibility: the build hides symbols, and Criterion must find this one */
__attribute__((visibility("default"))) int rand_r(unsigned *seed);

static int from_criterion(const void *caller)
{
    Dl_info di;
    return dladdr(caller, &di) != 0 && di.dli_fname != NULL && strstr(di.dli_fname, "libcriterion") != NULL;
}

int rand_r(unsigned *seed)
{
    static int (*real)(unsigned *);   /* atomic: tests call rand_r from several threads */
    int (*fn)(unsigned *) = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (!fn) {
        fn = (int (*)(unsigned *))dlsym(RTLD_NEXT, "rand_r");
        __atomic_store_n(&real, fn, __ATOMIC_RELEASE);
    }
    int r = fn(seed);
    if (!from_criterion(__builtin_return_address(0)))
        return r;
    unsigned jitter = (unsigned)r % WINDOW;
    uintptr_t target = ((uintptr_t)&rand_r & ~(BESIDE - 1)) + BESIDE;
    return (int)((((target - ARENA_BASE) / ARENA_STEP) + jitter) & ARENA_MASK);
}
