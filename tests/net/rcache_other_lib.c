/*
 * A shared library of its own for test_net_rcache: its calls to free and
 * munmap go through its own relocations, which the memory monitor must
 * rewrite too (the program's are not enough: providers and user libraries
 * release memory as well).
 */
#include <stdlib.h>
#include <sys/mman.h>

__attribute__((visibility("default"))) void rcache_other_lib_free(void *p)
{
    free(p);
}

__attribute__((visibility("default"))) int rcache_other_lib_munmap(void *p, size_t len)
{
    return munmap(p, len);
}
