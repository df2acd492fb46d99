/*
 * The algorithms' local copies: an alltoall's own block, bruck's rotations,
 * allreduce's copy of the send buffer into the receive buffer, a
 * schedule's copy step. src/coll makes them with memcpy and memmove, which
 * the recording device does not see; rdmach-sim is linked with
 * --wrap=memcpy --wrap=memmove (tools/CMakeLists.txt), so that while a
 * rank's algorithm runs for the recording (sim_copy_watch), each copy the
 * library's code makes also becomes CPU work of `copy` ns per byte in the
 * rank's program (SIM_COMPUTE 2, as the node segment's copies), where the
 * algorithm makes it, with its source and destination (the buffers the
 * host's cache holds or not: sim_cache.c). The copy itself still happens: the algorithms go on
 * with the data they expect.
 */
#include <string.h>
#include "sim.h"

void *__real_memcpy(void *dst, const void *src, size_t n);
void *__real_memmove(void *dst, const void *src, size_t n);
void *__wrap_memcpy(void *dst, const void *src, size_t n);
void *__wrap_memmove(void *dst, const void *src, size_t n);

static int watching;

void sim_copy_watch(int on)
{
    watching = on;
}

static void seen(void *dst, const void *src, size_t n)
{
    if (watching && n) {
        watching = 0;          /* recording the op may copy (its array grows) */
        sim_rec_op_bufs(SIM_COMPUTE, 2, n, src, dst);
        watching = 1;
    }
}

void *__wrap_memcpy(void *dst, const void *src, size_t n)
{
    seen(dst, src, n);
    return __real_memcpy(dst, src, n);
}

void *__wrap_memmove(void *dst, const void *src, size_t n)
{
    seen(dst, src, n);
    return __real_memmove(dst, src, n);
}
