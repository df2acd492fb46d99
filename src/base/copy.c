/*
 * Copies with non-temporal (streaming) stores: for data the caller will not
 * read again soon and that is larger than the caches, the stores go to
 * memory in whole lines without first reading the destination lines in
 * (no read-for-ownership) and without evicting what is cached. Used by the
 * shared-memory pipeline's copy into a large receive buffer
 * (RDMACH_SHM_NT_FROM). x86-64 has SSE2 everywhere; elsewhere memcpy.
 */
#include <stdint.h>
#include <string.h>
#include "base/base.h"
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

void rch_base_copy_nt(void *dst, const void *src, size_t len)
{
#if defined(__x86_64__)
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;     /* to a 16-byte aligned destination */
    if (len < 256 || head > len) {
        memcpy(dst, src, len);
        return;
    }
    memcpy(d, s, head);
    d += head;
    s += head;
    len -= head;
    size_t n = len & ~(size_t)63;
    for (size_t i = 0; i < n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
        _mm_stream_si128((__m128i *)(d + i), a);
        _mm_stream_si128((__m128i *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(d + i + 48), e);
    }
    /* streaming stores are weakly ordered: fence them before anything that
     * says the data is there */
    _mm_sfence();
    memcpy(d + n, s + n, len - n);
#else
    memcpy(dst, src, len);
#endif
}
