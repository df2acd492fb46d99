/*
 * Copies the generic memcpy does not do well:
 *  - rch_base_copy_nt, with non-temporal (streaming) stores: for data the
 *    caller will not read again soon and that is larger than the caches, the
 *    stores go to memory in whole lines without first reading the
 *    destination lines in (no read-for-ownership) and without evicting what
 *    is cached. Used by the shared-memory pipeline's copy into a large
 *    receive buffer (RDMACH_SHM_NT_FROM). x86-64 has SSE2 everywhere;
 *    elsewhere memcpy.
 *  - rch_base_copy_lines (base.h), memcpy in pieces of at most 2 KiB: for
 *    the eager copies into and out of a shared-memory ring (up to 16 KiB).
 *    glibc's memcpy switches to `rep movsb` above ~2 KiB
 *    (x86_rep_movsb_threshold 0x840 = 2112 on the AMD EPYC, Zen 4, measured), which moves
 *    lines the other core owns or holds more slowly than its vector loop
 *    does; each piece below the threshold takes the vector loop (4 and 8
 *    KiB ping-pong 20-30% faster, streaming 1.5-2x: docs/PERFORMANCE.md).
 *  - rch_base_claim_lines, a store per line of a buffer just copied out of
 *    shared memory, before it is handed back to the producer: see below.
 *  - rch_base_copy2d, many small blocks at constant strides: the inner loop
 *    of the datatype engine (src/mpi/type_pack.c) and of the one-sided
 *    blocks a device moves itself (src/device/rma_vec.c, rma_getw.c); every
 *    other 4- or 8-byte block gathered by AVX2 shuffles, and scattered by
 *    AVX-512 masked stores, where the CPU has them; blocks that lie apart,
 *    over more than L2, prefetched a few KiB ahead (rch_base_ahead, base.h;
 *    docs/PERFORMANCE.md).
 *  - rch_base_copy_cols, the repetitions of a few blocks (an indexed
 *    pattern, a struct, a one-sided pattern packet): short blocks of whole
 *    elements a repetition at a time (copy_elems, below; by AVX-512 permutes
 *    and masked stores where the CPU has them, elems_simd); others a copy2d
 *    per block over a span of the strided buffer that stays in L1 between
 *    the blocks' passes. With 32 KiB spans (the size of L1d here), 1 M ints of
 *    bench/rma_dtype's indexed type (6 blocks of 4-12 bytes, 84 bytes a
 *    repetition) unpacked in 610-712 us, with 4-16 KiB in 290-305 (1 KiB:
 *    367, the calls begin to cost); AMD EPYC (Zen 4, family 25 model 17).
 */
#include <stdint.h>
#include <string.h>
#include "base/base.h"
#include "base/tunables.h"
#if defined(__x86_64__)
#include <immintrin.h>
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

void rch_base_copy_pieces(void *dst, const void *src, size_t len)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (len > RCH_BASE_COPY_PIECE) {
        memcpy(d, s, RCH_BASE_COPY_PIECE);
        d += RCH_BASE_COPY_PIECE;
        s += RCH_BASE_COPY_PIECE;
        len -= RCH_BASE_COPY_PIECE;
    }
    memcpy(d, s, len);
}

/* The two-copy pipeline (src/rdma/shm/shm_pipe.c) reuses a few chunk
 * buffers: the source writes a chunk, the sink copies it out, the source
 * writes the buffer again. Read by the sink, a line the source wrote stays in
 * both caches (owned / shared), and the source's next store to it is an
 * upgrade that waits for the sink's copy to be invalidated; such upgrades are
 * not prefetched, so the source's copy ran at 7-9 GB/s on the AMD EPYC Zen 4
 * (family 25) against 45-50 GB/s into private memory, in most runs (in some
 * the hardware migrated the lines itself and it ran at 20 GB/s). After one
 * store per line by the sink, the line is the sink's alone, the source's
 * stores miss, and its prefetchers fetch the lines ahead: 1 MiB through
 * 4 x 64 KiB buffers 115 -> 44 us (a two-process scratch program, both
 * states; docs/PERFORMANCE.md). */
void rch_base_claim_lines(void *p, size_t len)
{
    volatile unsigned char *b = p;
    if (len == 0)
        return;
    uintptr_t first = (uintptr_t)p & ~(uintptr_t)63;
    for (uintptr_t a = first; a < (uintptr_t)p + len; a += 64)
        b[a < (uintptr_t)p ? 0 : a - (uintptr_t)p] = 0;
}

/* n blocks of a constant len: unrolled 4 times, addresses stepped by
 * pointer. Always inlined, so each constant len below is a loop of plain
 * loads and stores; the loop with an index times the stride ran 1.5-3 times
 * slower for 4- to 16-byte blocks (AMD EPYC, Zen 5: two stores a cycle
 * instead of one). */
static inline __attribute__((always_inline)) void copy2d_len(unsigned char *dst, ptrdiff_t ds,
                                                             const unsigned char *src, ptrdiff_t ss, size_t n,
                                                             size_t len)
{
    size_t k = 0;
    for (; k + 4 <= n; k += 4, dst += 4 * ds, src += 4 * ss) {
        memcpy(dst, src, len);
        memcpy(dst + ds, src + ss, len);
        memcpy(dst + 2 * ds, src + 2 * ss, len);
        memcpy(dst + 3 * ds, src + 3 * ss, len);
    }
    for (; k < n; k++, dst += ds, src += ss)
        memcpy(dst, src, len);
}

#if defined(__x86_64__)
/* Every other 4- or 8-byte block gathered into a contiguous destination (a
 * vector of stride 2: the pack of a one-sided get, MPI_Pack): two 32-byte
 * loads, a shuffle and a 32-byte store for 8 blocks (4-byte) or 4 (8-byte)
 * instead of a load and a store per block; 4 MiB of 4-byte blocks 125-133
 * against 182-230 us (AMD EPYC, Zen 5). The loads read the gaps between the
 * blocks, never past the last block (the last iterations go by blocks).
 * Returns the blocks done. */
__attribute__((target("avx2"))) static size_t gather_half(unsigned char *d, const unsigned char *s, size_t n,
                                                           size_t len)
{
    size_t k = 0;
    if (len == 4) {
        for (; k + 8 < n; k += 8, d += 32, s += 64) {
            __m256 a = _mm256_loadu_ps((const float *)s), b = _mm256_loadu_ps((const float *)(s + 32));
            __m256i c = _mm256_castps_si256(_mm256_shuffle_ps(a, b, 0x88));   /* a0 a2 b0 b2 | a4 a6 b4 b6 */
            _mm256_storeu_si256((__m256i *)d, _mm256_permute4x64_epi64(c, 0xd8));
        }
    } else {
        for (; k + 4 < n; k += 4, d += 32, s += 64) {
            __m256i a = _mm256_loadu_si256((const __m256i *)s), b = _mm256_loadu_si256((const __m256i *)(s + 32));
            __m256i c = _mm256_unpacklo_epi64(a, b);                            /* a0 b0 | a2 b2 */
            _mm256_storeu_si256((__m256i *)d, _mm256_permute4x64_epi64(c, 0xd8));
        }
    }
    return k;
}

/* Every other 4- or 8-byte block scattered from a contiguous source (a
 * vector of stride 2: the unpack of a one-sided put, MPI_Unpack): a 32-byte
 * load, a permute and a 64-byte store masked to the blocks for 8 blocks
 * (4-byte) or 4 (8-byte) instead of a load and a store per block. The mask
 * leaves the gaps unwritten, as the block loop does: another origin may be
 * putting into them at the same time. 64 K 4-byte blocks in 3.3-3.9 against
 * 8.8 us for the scalar loop, 1 M in 95-98 against 144-154 (AMD EPYC,
 * Zen 5). The loads read only the source's blocks and the stores touch
 * bytes up to the last block's end. Returns the blocks done. */
__attribute__((target("avx512f"))) static size_t scatter_half(unsigned char *d, const unsigned char *s, size_t n,
                                                              size_t len)
{
    size_t k = 0;
    if (len == 4) {
        const __m512i at = _mm512_set_epi32(0, 7, 0, 6, 0, 5, 0, 4, 0, 3, 0, 2, 0, 1, 0, 0);
        for (; k + 8 <= n; k += 8, d += 64, s += 32) {
            __m512i v = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)s));
            _mm512_mask_storeu_epi32(d, 0x5555, _mm512_permutexvar_epi32(at, v));
        }
    } else {
        const __m512i at = _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0);
        for (; k + 4 <= n; k += 4, d += 64, s += 32) {
            __m512i v = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)s));
            _mm512_mask_storeu_epi64(d, 0x55, _mm512_permutexvar_epi64(at, v));
        }
    }
    return k;
}

static int have_avx2(void)
{
    static int known = -1;
    if (known < 0)
        known = __builtin_cpu_supports("avx2") ? 1 : 0;
    return known;
}

/* __builtin_cpu_supports also asks the OS (XCR0) whether it saves the
 * AVX-512 state. */
static int have_avx512(void)
{
    static int known = -1;
    if (known < 0)
        known = __builtin_cpu_supports("avx512f") ? 1 : 0;
    return known && rch_tun.dtype_simd;
}
#endif

static void copy2d_plain(unsigned char *d, ptrdiff_t dstride, const unsigned char *s, ptrdiff_t sstride, size_t n,
                         size_t len)
{
    switch (len) {
    case 1: copy2d_len(d, dstride, s, sstride, n, 1); break;
    case 2: copy2d_len(d, dstride, s, sstride, n, 2); break;
    case 4: copy2d_len(d, dstride, s, sstride, n, 4); break;
    case 8: copy2d_len(d, dstride, s, sstride, n, 8); break;
    case 12: copy2d_len(d, dstride, s, sstride, n, 12); break;
    case 16: copy2d_len(d, dstride, s, sstride, n, 16); break;
    case 24: copy2d_len(d, dstride, s, sstride, n, 24); break;
    case 32: copy2d_len(d, dstride, s, sstride, n, 32); break;
    case 64: copy2d_len(d, dstride, s, sstride, n, 64); break;
    default:
        for (size_t k = 0; k < n; k++, d += dstride, s += sstride)
            memmove(d, s, len);
        break;
    }
}

void rch_base_copy2d(void *dst, ptrdiff_t dstride, const void *src, ptrdiff_t sstride, size_t n, size_t len)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
#if defined(__x86_64__)
    if ((len == 4 || len == 8) && dstride == (ptrdiff_t)len && sstride == 2 * (ptrdiff_t)len && n > 16 &&
        have_avx2()) {
        size_t k = gather_half(d, s, n, len);
        d += k * len;
        s += k * 2 * len;
        n -= k;
    } else if ((len == 4 || len == 8) && sstride == (ptrdiff_t)len && dstride == 2 * (ptrdiff_t)len && n > 16 &&
               have_avx512()) {
        size_t k = scatter_half(d, s, n, len);
        d += k * 2 * len;
        s += k * len;
        n -= k;
    }
#endif
    size_t ad = rch_base_ahead(dstride, len, n), as = rch_base_ahead(sstride, len, n);
    if (ad == n && as == n) {
        copy2d_plain(d, dstride, s, sstride, n, len);
        return;
    }
    size_t ch = rch_base_ahead_chunk(len);
    for (size_t k = 0; k < n; k += ch) {
        size_t m = n - k < ch ? n - k : ch;
        rch_base_prefetch_blocks(d, dstride, k + ad, k + ad + m, n, len, 1);
        rch_base_prefetch_blocks(s, sstride, k + as, k + as + m, n, len, 0);
        copy2d_plain(d + (ptrdiff_t)k * dstride, dstride, s + (ptrdiff_t)k * sstride, sstride, m, len);
    }
}

size_t rch_base_ahead(ptrdiff_t stride, size_t len, size_t n)
{
    size_t span = (size_t)(stride < 0 ? -stride : stride);
    if (rch_tun.dtype_prefetch == 0 || span < 64 || span <= len || len > RCH_BASE_AHEAD_LEN ||
        n < rch_tun.dtype_prefetch_from / span)
        return n;
    size_t ahead = (rch_tun.dtype_prefetch + span - 1) / span;
    return ahead < n ? ahead : n;
}

size_t rch_base_ahead_chunk(size_t len)
{
    size_t lines = (len + 63) / 64;
    return lines >= RCH_BASE_AHEAD_LINES ? 1 : RCH_BASE_AHEAD_LINES / lines;
}

void rch_base_prefetch_blocks(const void *p, ptrdiff_t stride, size_t from, size_t to, size_t n, size_t len,
                              int write)
{
    if (from >= n)
        return;
    const unsigned char *b = (const unsigned char *)p + (ptrdiff_t)from * stride;
    for (size_t j = from; j < to && j < n; j++, b += stride) {
        if (write)
            rch_base_prefetch_w(b, len);
        else
            rch_base_prefetch_r(b, len);
    }
}

/* reps repetitions of NE elements of ES bytes, at off[k] from user in a
 * repetition and one after the other in packed: the element count a
 * constant, so the loop over them is unrolled into NE moves whose offsets
 * stay in registers. */
static inline __attribute__((always_inline)) void elems_len(unsigned char *packed, unsigned char *user,
                                                            ptrdiff_t stride, size_t reps, const ptrdiff_t *off,
                                                            int ne, size_t es, int to_packed)
{
    ptrdiff_t o[RCH_BASE_ELEMS_MAX];    /* registers: the moves may alias off[], not this copy */
#pragma GCC unroll 16
    for (int k = 0; k < ne; k++)
        o[k] = off[k];
    for (size_t r = 0; r < reps; r++, packed += (size_t)ne * es, user += stride) {
#pragma GCC unroll 16
        for (int k = 0; k < ne; k++) {
            if (to_packed)
                memcpy(packed + (size_t)k * es, user + o[k], es);
            else
                memcpy(user + o[k], packed + (size_t)k * es, es);
        }
    }
}

#define ELEMS_CASE(n)                                                                                  \
    case n:                                                                                            \
        if (es == 2)                                                                                   \
            to_packed ? elems_len(packed, user, stride, reps, off, n, 2, 1)                           \
                      : elems_len(packed, user, stride, reps, off, n, 2, 0);                          \
        else if (es == 4)                                                                              \
            to_packed ? elems_len(packed, user, stride, reps, off, n, 4, 1)                           \
                      : elems_len(packed, user, stride, reps, off, n, 4, 0);                          \
        else                                                                                           \
            to_packed ? elems_len(packed, user, stride, reps, off, n, 8, 1)                           \
                      : elems_len(packed, user, stride, reps, off, n, 8, 0);                          \
        break;

#if defined(__x86_64__)
/* reps repetitions of the ne elements (es = 4 or 8 bytes) at off[] from
 * user + lo, whose span is at most W 64-byte windows (W = 1, 2), by
 * AVX-512 (elems_simd): scatter, a masked load of the repetition's packed
 * elements, then for each window a permute that puts them in their lanes
 * and a store masked to those lanes (the gaps between the elements are not
 * written: another origin may be putting into them); gather, a masked load
 * per window and one permute of the two into packed order. Masks and
 * permutes are the same for every repetition and stay in registers. */
#define ELEMS_SIMD(W, ES, EPI, MASK)                                                                         \
    static inline __attribute__((always_inline, target("avx512f"))) void elems_simd_##ES##_##W(              \
        unsigned char *packed, unsigned char *user, ptrdiff_t stride, size_t reps, size_t pbytes,          \
        const void *at0, const void *at1, const void *g, MASK m0, MASK m1, MASK c, int to_packed)         \
    {                                                                                                        \
        const __m512i a0 = _mm512_loadu_si512(at0), a1 = _mm512_loadu_si512(at1), gi = _mm512_loadu_si512(g); \
        if (to_packed) {                                                                                     \
            for (size_t r = 0; r < reps; r++, packed += pbytes, user += stride) {                            \
                __m512i x = _mm512_maskz_loadu_##EPI(m0, user);                                              \
                __m512i y = W == 2 ? _mm512_maskz_loadu_##EPI(m1, user + 64) : _mm512_setzero_si512();       \
                _mm512_mask_storeu_##EPI(packed, c, _mm512_permutex2var_##EPI(x, gi, y));                    \
            }                                                                                                \
        } else {                                                                                             \
            for (size_t r = 0; r < reps; r++, packed += pbytes, user += stride) {                            \
                __m512i v = _mm512_maskz_loadu_##EPI(c, packed);                                             \
                _mm512_mask_storeu_##EPI(user, m0, _mm512_permutexvar_##EPI(a0, v));                         \
                if (W == 2)                                                                                  \
                    _mm512_mask_storeu_##EPI(user + 64, m1, _mm512_permutexvar_##EPI(a1, v));                \
            }                                                                                                \
        }                                                                                                    \
    }
ELEMS_SIMD(1, 4, epi32, __mmask16)
ELEMS_SIMD(2, 4, epi32, __mmask16)
ELEMS_SIMD(1, 8, epi64, __mmask8)
ELEMS_SIMD(2, 8, epi64, __mmask8)

/* The lanes of the elements: 0 if they do not fit (more than a zmm of
 * packed elements, a span over 128 bytes, offsets not whole elements from
 * the lowest, two elements at the same place); else the moves are done.
 * Used for passes that span no more than L2 (RDMACH_DTYPE_PREFETCH_FROM,
 * set from its size at start-up): bench/rma_dtype's indexed ints (6 blocks
 * of 1-3 ints, 84 bytes a repetition), 2 ranks each moving into the
 * other's window, 64 K ints put in 5.2 against 10.6 us and got in 5.6
 * against 9.8 (medians of 4), but 1 M ints (7 MiB spanned) put in 165-235
 * against 177-196 us and got in 175-212 against 172-186, although a
 * single rank's MPI_Unpack of them took 112-192 against 174-185 (AMD EPYC,
 * Zen 5). */
__attribute__((target("avx512f"))) static int elems_simd(unsigned char *packed, unsigned char *user,
                                                         ptrdiff_t stride, size_t reps, const ptrdiff_t *off,
                                                         int ne, size_t es, int to_packed)
{
    int lanes = (int)(64 / es);
    if ((es != 4 && es != 8) || ne > lanes)
        return 0;
    ptrdiff_t lo = off[0];
    for (int k = 1; k < ne; k++)
        lo = off[k] < lo ? off[k] : lo;
    int64_t at[2][16] = { { 0 } }, g[16] = { 0 };
    unsigned m[2] = { 0, 0 };
    for (int k = 0; k < ne; k++) {
        ptrdiff_t d = off[k] - lo;
        if (d % (ptrdiff_t)es != 0 || d / (ptrdiff_t)es >= 2 * lanes)
            return 0;
        int e = (int)(d / (ptrdiff_t)es), w = e / lanes, l = e % lanes;
        if (m[w] & (1u << l))
            return 0;
        m[w] |= 1u << l;
        at[w][l] = k;
        g[k] = e;
    }
    int32_t at32[2][16], g32[16];
    for (int i = 0; i < 16; i++) {
        at32[0][i] = (int32_t)at[0][i];
        at32[1][i] = (int32_t)at[1][i];
        g32[i] = (int32_t)g[i];
    }
    unsigned char *u = user + lo;
    size_t pb = (size_t)ne * es;
    unsigned c = (1u << ne) - 1;
    if (es == 4 && m[1] == 0)
        elems_simd_4_1(packed, u, stride, reps, pb, at32[0], at32[1], g32, (__mmask16)m[0], 0, (__mmask16)c, to_packed);
    else if (es == 4)
        elems_simd_4_2(packed, u, stride, reps, pb, at32[0], at32[1], g32, (__mmask16)m[0], (__mmask16)m[1],
                       (__mmask16)c, to_packed);
    else if (m[1] == 0)
        elems_simd_8_1(packed, u, stride, reps, pb, at[0], at[1], g, (__mmask8)m[0], 0, (__mmask8)c, to_packed);
    else
        elems_simd_8_2(packed, u, stride, reps, pb, at[0], at[1], g, (__mmask8)m[0], (__mmask8)m[1], (__mmask8)c,
                       to_packed);
    return 1;
}
#endif

/* The repetitions of short blocks (none over 16 bytes, all whole 2-, 4- or
 * 8-byte elements, at most RCH_BASE_ELEMS_MAX elements a repetition), a
 * repetition at a time by elems_len: one pass over the strided buffer where
 * the columns made one per block, with the element moves unrolled. 4 MiB
 * (a scratch program against the columns, both ways; AMD EPYC, Zen 5):
 * bench/rma_dtype's indexed ints (6 blocks of 4-12 bytes) 251 -> 185 us,
 * 4 scattered doubles 287 -> 164, 8 ints every other 395 -> 181, 3 ints
 * 221 -> 175, 3 x 16 bytes 168 -> 121, shorts 466 -> 352; at 256 KiB
 * (L2) 0.5-1.0 of the columns' time, never more. A loop written for the
 * layout, compiled -O3, still merges neighbouring elements (the indexed
 * ints in 112 us). 0 if the blocks are not such. */
static int copy_elems(unsigned char *packed, unsigned char *const *col, const size_t *len, int nb, ptrdiff_t stride,
                      size_t reps, int to_packed)
{
    size_t all = 0;
    for (int k = 0; k < nb; k++)
        all |= len[k];
    size_t es = (all & 7) == 0 ? 8 : (all & 3) == 0 ? 4 : (all & 1) == 0 ? 2 : 0;
    ptrdiff_t off[RCH_BASE_ELEMS_MAX];
    int ne = es ? rch_base_elems_of(col, len, nb, es, 16, off) : 0;
    if (nb < 2 || ne == 0)
        return 0;
    unsigned char *user = col[0];
#if defined(__x86_64__)
    size_t span = (size_t)(stride < 0 ? -stride : stride) * reps;
    if (reps >= 4 && span <= rch_tun.dtype_prefetch_from && have_avx512() &&
        elems_simd(packed, user, stride, reps, off, ne, es, to_packed))
        return 1;
#endif
    switch (ne) {
    ELEMS_CASE(2) ELEMS_CASE(3) ELEMS_CASE(4) ELEMS_CASE(5) ELEMS_CASE(6) ELEMS_CASE(7) ELEMS_CASE(8)
    ELEMS_CASE(9) ELEMS_CASE(10) ELEMS_CASE(11) ELEMS_CASE(12) ELEMS_CASE(13) ELEMS_CASE(14) ELEMS_CASE(15)
    ELEMS_CASE(16)
    }
    return 1;
}

int rch_base_elems_of(unsigned char *const *col, const size_t *len, int nb, size_t es, size_t maxlen,
                      ptrdiff_t *off)
{
    int ne = 0;
    for (int k = 0; k < nb; k++) {
        if (len[k] % es || len[k] > maxlen)
            return 0;
        for (size_t b = 0; b < len[k]; b += es) {
            if (ne == RCH_BASE_ELEMS_MAX)
                return 0;
            off[ne++] = (ptrdiff_t)((uintptr_t)col[k] - (uintptr_t)col[0]) + (ptrdiff_t)b;
        }
    }
    return ne < 2 ? 0 : ne;
}

int rch_base_elems_apart(const void *a, const void *b, ptrdiff_t bstride, size_t reps, const ptrdiff_t *off, int ne,
                         size_t es)
{
    if (es == 0 || (es & (es - 1)))
        return 0;
    uintptr_t bits = (uintptr_t)a | (uintptr_t)b | (uintptr_t)bstride;
    ptrdiff_t lo = PTRDIFF_MAX, hi = PTRDIFF_MIN;
    for (int k = 0; k < ne; k++) {
        for (int j = 0; j < k; j++)
            if (off[j] == off[k])
                return 0;
        bits |= (uintptr_t)off[k];
        lo = off[k] < lo ? off[k] : lo;
        hi = off[k] > hi ? off[k] : hi;
    }
    size_t span = (size_t)(bstride < 0 ? -bstride : bstride);
    return (bits & (es - 1)) == 0 && (reps < 2 || (size_t)(hi - lo) + es <= span);
}

void rch_base_copy_cols(unsigned char *packed, size_t period, unsigned char *const *col, const size_t *len, int nb,
                        ptrdiff_t stride, size_t reps, int to_packed)
{
    if (copy_elems(packed, col, len, nb, stride, reps, to_packed))
        return;
    size_t span = (size_t)(stride < 0 ? -stride : stride);
    size_t chunk = span == 0 ? reps : span < RCH_BASE_COLS_SPAN ? RCH_BASE_COLS_SPAN / span : 1;
    for (size_t i = 0; i < reps; i += chunk) {
        size_t n = reps - i < chunk ? reps - i : chunk;
        unsigned char *p = packed + i * period;
        for (int k = 0; k < nb; p += len[k], k++) {
            unsigned char *c = (unsigned char *)((uintptr_t)col[k] + (uintptr_t)((ptrdiff_t)i * stride));
            if (to_packed)
                rch_base_copy2d(p, (ptrdiff_t)period, c, stride, n, len[k]);
            else
                rch_base_copy2d(c, stride, p, (ptrdiff_t)period, n, len[k]);
        }
    }
}
