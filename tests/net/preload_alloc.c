/*
 * An LD_PRELOADed allocator, as jemalloc or tcmalloc would be: it defines
 * free, realloc and munmap, so every object of the process binds to these
 * definitions and none reaches the C library's (nor any other library's)
 * through the symbol. They only forward to glibc. net_rcache_preloaded_allocator
 * runs net_job's rcache mode under it: the registration cache must still
 * hear of every release, through the relocations the memory monitor
 * rewrites, whose hooks then call these definitions. (A shared library that
 * defined free/munmap itself would be bypassed: the preloaded definitions
 * come first in the lookup order. net_job links rdmach statically, ahead of
 * any preload, so this test checks the monitor, not that old failure.)
 */
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

void __libc_free(void *p);
void *__libc_realloc(void *p, size_t n);

EXPORT void free(void *p)
{
    __libc_free(p);
}

EXPORT void *realloc(void *p, size_t n)
{
    return __libc_realloc(p, n);
}

EXPORT int munmap(void *addr, size_t len)
{
    return (int)syscall(SYS_munmap, addr, len);
}
