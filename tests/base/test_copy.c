/* base/copy.c rch_base_copy2d: every block length and count against a byte
 * loop (rch_base_copy_cols too, across its spans), the gathers of every other 4- or 8-byte block (AVX2 shuffles where
 * the CPU has them) included, whose loads read the gaps: a source whose last
 * block ends at an unmapped page must not fault, and the destination's
 * bytes after the blocks must be left alone; and the scatters of every
 * other block (AVX-512 masked stores where the CPU has them), which must
 * leave the gaps unwritten and write nothing past the last block (an
 * unmapped page there). */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "base/base.h"
#include "base/tunables.h"

static void ref2d(unsigned char *d, ptrdiff_t ds, const unsigned char *s, ptrdiff_t ss, size_t n, size_t len)
{
    for (size_t k = 0; k < n; k++)
        for (size_t b = 0; b < len; b++)
            d[(ptrdiff_t)k * ds + (ptrdiff_t)b] = s[(ptrdiff_t)k * ss + (ptrdiff_t)b];
}

/* n blocks of len at stride ss out of a source whose span ends at a
 * PROT_NONE page, into dst (contiguous, len apart) and checked. */
static void gather_at_edge(size_t len, ptrdiff_t ss, size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (n - 1) * (size_t)ss + len, pages = (span + pg - 1) / pg;
    unsigned char *m = mmap(NULL, (pages + 1) * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(m != MAP_FAILED);
    cr_assert_eq(mprotect(m + pages * pg, pg, PROT_NONE), 0);
    unsigned char *src = m + pages * pg - span;
    for (size_t i = 0; i < span; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    size_t out = n * len + 16;
    unsigned char *got = malloc(out), *want = malloc(out);
    cr_assert(got && want);
    memset(got, 0xa5, out);
    memset(want, 0xa5, out);
    rch_base_copy2d(got, (ptrdiff_t)len, src, ss, n, len);
    ref2d(want, (ptrdiff_t)len, src, ss, n, len);
    cr_expect(memcmp(got, want, out) == 0, "len %zu stride %td n %zu: wrong bytes", len, ss, n);
    free(got);
    free(want);
    munmap(m, (pages + 1) * pg);
}

Test(copy2d, gathers_every_other_block_up_to_an_unmapped_page)
{
    static const size_t ns[] = { 1, 2, 7, 8, 9, 15, 16, 17, 18, 24, 25, 31, 33, 100, 1027, 65537 };
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        gather_at_edge(4, 8, ns[i]);
        gather_at_edge(8, 16, ns[i]);
    }
}

/* n blocks of len from a contiguous source ending at a PROT_NONE page into
 * every other block of a destination that also ends at one (right after
 * its last block); the gaps, set to a pattern, must keep it. */
static void scatter_at_edge(size_t len, size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t span = (2 * n - 1) * len, dpages = (span + pg - 1) / pg, sb = n * len, spages = (sb + pg - 1) / pg;
    unsigned char *dm = mmap(NULL, (dpages + 1) * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *sm = mmap(NULL, (spages + 1) * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert(dm != MAP_FAILED && sm != MAP_FAILED);
    cr_assert_eq(mprotect(dm + dpages * pg, pg, PROT_NONE), 0);
    cr_assert_eq(mprotect(sm + spages * pg, pg, PROT_NONE), 0);
    unsigned char *dst = dm + dpages * pg - span, *src = sm + spages * pg - sb;
    for (size_t i = 0; i < sb; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    for (size_t i = 0; i < span; i++)
        dst[i] = (unsigned char)(0xc3 ^ i);
    unsigned char *want = malloc(span);
    cr_assert(want);
    memcpy(want, dst, span);
    ref2d(want, (ptrdiff_t)(2 * len), src, (ptrdiff_t)len, n, len);
    rch_base_copy2d(dst, (ptrdiff_t)(2 * len), src, (ptrdiff_t)len, n, len);
    cr_expect(memcmp(dst, want, span) == 0, "len %zu n %zu: wrong bytes (blocks or gaps)", len, n);
    free(want);
    munmap(dm, (dpages + 1) * pg);
    munmap(sm, (spages + 1) * pg);
}

/* Both ways: RDMACH_DTYPE_SIMD on (AVX-512 where the CPU has it) and off. */
Test(copy2d, scatters_every_other_block_leaving_the_gaps)
{
    static const size_t ns[] = { 1, 2, 7, 8, 9, 15, 16, 17, 18, 24, 25, 31, 33, 100, 1027, 65537 };
    int keep = rch_tun.dtype_simd;
    for (int simd = 0; simd < 2; simd++) {
        rch_tun.dtype_simd = simd;
        for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
            scatter_at_edge(4, ns[i]);
            scatter_at_edge(8, ns[i]);
        }
    }
    rch_tun.dtype_simd = keep;
}

Test(copy2d, every_length_and_stride_against_a_byte_loop)
{
    static const size_t lens[] = { 1, 2, 3, 4, 8, 12, 16, 24, 32, 64, 100 };
    unsigned char src[4096], got[4096], want[4096];
    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = (unsigned char)(i * 13 + 1);
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
        for (size_t n = 0; n <= 20; n++) {
            size_t len = lens[l];
            ptrdiff_t strides[][2] = { { (ptrdiff_t)len, 2 * (ptrdiff_t)len }, { 2 * (ptrdiff_t)len, (ptrdiff_t)len },
                                       { (ptrdiff_t)len + 5, (ptrdiff_t)len + 3 } };
            for (int k = 0; k < 3; k++) {
                memset(got, 0, sizeof(got));
                memset(want, 0, sizeof(want));
                rch_base_copy2d(got, strides[k][0], src, strides[k][1], n, len);
                ref2d(want, strides[k][0], src, strides[k][1], n, len);
                cr_expect(memcmp(got, want, sizeof(got)) == 0, "len %zu n %zu strides %td %td", len, n,
                          strides[k][0], strides[k][1]);
            }
        }
}

/* Prefetching passes (rch_base_ahead): which passes prefetch, by the rules
 * base.h gives, and how far ahead. */
Test(copy2d, prefetches_only_passes_over_blocks_apart)
{
    size_t keep = rch_tun.dtype_prefetch, keep_from = rch_tun.dtype_prefetch_from;
    rch_tun.dtype_prefetch = 12288;
    rch_tun.dtype_prefetch_from = 1 << 20;
    cr_expect_eq(rch_base_ahead(512, 256, 16384), 24);       /* 12 KiB ahead, in blocks */
    cr_expect_eq(rch_base_ahead(-512, 256, 16384), 24);
    cr_expect_eq(rch_base_ahead(5000, 4, 16384), 3);         /* rounded up */
    cr_expect_eq(rch_base_ahead(512, 256, 1024), 1024);      /* spans 512 KiB: in cache */
    cr_expect_eq(rch_base_ahead(48, 4, 1 << 20), 1 << 20);   /* less than a line apart */
    cr_expect_eq(rch_base_ahead(256, 256, 1 << 20), 1 << 20); /* no gap: a stream */
    cr_expect_eq(rch_base_ahead(4096, 2048, 1 << 20), 1 << 20); /* blocks too long */
    cr_expect_eq(rch_base_ahead(1 << 20, 64, 8), 1);          /* a block ahead */
    rch_tun.dtype_prefetch_from = 0;
    cr_expect_eq(rch_base_ahead(1024, 64, 8), 8);             /* the distance is past the last block: none */
    cr_expect_eq(rch_base_ahead(1024, 64, 13), 12);
    rch_tun.dtype_prefetch = 0;
    cr_expect_eq(rch_base_ahead(512, 256, 16384), 16384);
    cr_expect_eq(rch_base_ahead_chunk(4), RCH_BASE_AHEAD_LINES);
    cr_expect_eq(rch_base_ahead_chunk(256), RCH_BASE_AHEAD_LINES / 4);
    cr_expect_eq(rch_base_ahead_chunk(RCH_BASE_AHEAD_LEN), 1);
    rch_tun.dtype_prefetch = keep;
    rch_tun.dtype_prefetch_from = keep_from;
}

/* The prefetching pass moves what the plain one does: blocks apart on
 * either side or both, strides negative too, counts around the distance
 * and the chunks, a gathered source that ends at an unmapped page (the
 * prefetches stay within the blocks); the gaps keep their bytes. */
Test(copy2d, prefetching_passes_against_a_byte_loop)
{
    size_t keep = rch_tun.dtype_prefetch, keep_from = rch_tun.dtype_prefetch_from;
    rch_tun.dtype_prefetch = 300;      /* a few blocks ahead */
    rch_tun.dtype_prefetch_from = 0;
    static const size_t lens[] = { 4, 8, 12, 60, 100, 256, 1024 };
    static const size_t ns[] = { 0, 1, 2, 3, 5, 16, 17, 33, 100 };
    enum { ROOM = 2 * 1100 * 100 + 4096 };
    unsigned char *src = malloc(ROOM), *got = malloc(ROOM), *want = malloc(ROOM);
    cr_assert(src && got && want);
    for (size_t i = 0; i < ROOM; i++)
        src[i] = (unsigned char)(i * 13 + 1);
    int ahead = 0;
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
        for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++) {
            size_t len = lens[l], n = ns[ni];
            ptrdiff_t apart = (ptrdiff_t)(len < 64 ? 64 + len : 2 * len + 4);
            ptrdiff_t strides[][2] = { { apart, (ptrdiff_t)len }, { (ptrdiff_t)len, apart }, { apart, apart + 8 },
                                       { -apart, (ptrdiff_t)len }, { (ptrdiff_t)len, -apart } };
            for (int k = 0; k < 5; k++) {
                ptrdiff_t ds = strides[k][0], ss = strides[k][1];
                size_t dfirst = ds < 0 && n ? (n - 1) * (size_t)-ds : 0, sfirst = ss < 0 && n ? (n - 1) * (size_t)-ss : 0;
                ahead += rch_base_ahead(ds, len, n) < n || rch_base_ahead(ss, len, n) < n;
                memset(got, 0, ROOM);
                memset(want, 0, ROOM);
                rch_base_copy2d(got + dfirst, ds, src + sfirst, ss, n, len);
                ref2d(want + dfirst, ds, src + sfirst, ss, n, len);
                cr_expect(memcmp(got, want, ROOM) == 0, "len %zu n %zu strides %td %td", len, n, ds, ss);
            }
        }
    cr_assert_geq(ahead, 100, "only %d passes prefetched", ahead);
    static const size_t edge[] = { 5, 16, 17, 100, 1027 };
    for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
        gather_at_edge(8, 72, edge[i]);
        gather_at_edge(256, 512, edge[i]);
    }
    free(src);
    free(got);
    free(want);
    rch_tun.dtype_prefetch = keep;
    rch_tun.dtype_prefetch_from = keep_from;
}

/* rch_base_copy_cols, both ways: repetitions of a few blocks at strides
 * below, at and above RCH_BASE_COLS_SPAN (one repetition a span), negative
 * too, with counts around a span's repetitions; against a byte loop, the
 * strided buffer's gaps left alone. The layouts: one with a 1-byte block
 * (by columns), and ones of whole 2-, 4- or 8-byte elements of at most 16
 * bytes a block (a repetition at a time, up to 16 elements: the indexed
 * ints of bench/rma_dtype, doubles, shorts, exactly 16 elements, blocks at
 * odd addresses; with AVX-512, in one or two 64-byte windows: doubles
 * over 80 bytes, blocks in descending order, 16 ints), and 17 elements
 * and a 20-byte block (by columns). */
struct layout {
    int nb;
    size_t len[8];
    ptrdiff_t off[8];
};
static const struct layout layouts[] = {
    { 5, { 4, 8, 12, 1, 16 }, { 0, 8, 24, 40, 44 } },
    { 6, { 4, 8, 12, 4, 8, 12 }, { 0, 8, 24, 40, 52, 64 } },
    { 3, { 8, 16, 8 }, { 0, 16, 48 } },
    { 3, { 2, 6, 4 }, { 0, 4, 16 } },
    { 4, { 16, 16, 16, 16 }, { 0, 20, 40, 60 } },
    { 3, { 4, 8, 12 }, { 1, 9, 27 } },
    { 5, { 16, 16, 16, 16, 4 }, { 0, 20, 40, 60, 80 } },
    { 2, { 20, 4 }, { 0, 24 } },
    { 3, { 8, 16, 8 }, { 0, 24, 72 } },
    { 3, { 4, 4, 8 }, { 40, 0, 16 } },
    { 6, { 12, 8, 12, 8, 12, 12 }, { 0, 16, 28, 40, 56, 72 } },
};

static void cols_case(const struct layout *l, ptrdiff_t stride, size_t reps, int to_packed)
{
    const size_t *len = l->len;
    int nb = l->nb;
    size_t period = 0, reach = 0;
    for (int k = 0; k < nb; k++) {
        period += len[k];
        reach = (size_t)l->off[k] + len[k] > reach ? (size_t)l->off[k] + len[k] : reach;
    }
    size_t span = (size_t)(stride < 0 ? -stride : stride) * (reps ? reps - 1 : 0) + reach;
    unsigned char *strided = malloc(span), *want = malloc(span), *packed = malloc(period * reps + 1),
                  *pwant = malloc(period * reps + 1);
    cr_assert(strided && want && packed && pwant);
    ptrdiff_t base = stride < 0 ? (ptrdiff_t)(span - reach) : 0;   /* repetition 0, the others below it */
    for (size_t i = 0; i < span; i++)
        strided[i] = want[i] = (unsigned char)(i * 11 + 7);
    for (size_t i = 0; i < period * reps + 1; i++)
        packed[i] = pwant[i] = (unsigned char)(i * 5 + 1);
    unsigned char *col[8];
    for (int k = 0; k < nb; k++)
        col[k] = strided + base + l->off[k];
    for (size_t r = 0; r < reps; r++) {
        size_t p = r * period;
        for (int k = 0; k < nb; p += len[k], k++) {
            unsigned char *u = want + base + (ptrdiff_t)r * stride + l->off[k];
            if (to_packed)
                memcpy(pwant + p, u, len[k]);
            else
                memcpy(u, pwant + p, len[k]);
        }
    }
    rch_base_copy_cols(packed, period, col, len, nb, stride, reps, to_packed);
    cr_expect(memcmp(strided, want, span) == 0,
              "layout %td, stride %td, %zu repetitions, to_packed %d: strided bytes wrong", l - layouts, stride,
              reps, to_packed);
    cr_expect(memcmp(packed, pwant, period * reps + 1) == 0,
              "layout %td, stride %td, %zu repetitions, to_packed %d: packed bytes wrong", l - layouts, stride, reps,
              to_packed);
    free(strided);
    free(want);
    free(packed);
    free(pwant);
}

Test(copy_cols, repetitions_across_spans_both_ways)
{
    static const ptrdiff_t strides[] = { 84, 96, -96, 1000, RCH_BASE_COLS_SPAN, RCH_BASE_COLS_SPAN + 4, -5000 };
    int keep = rch_tun.dtype_simd;
    size_t keep_from = rch_tun.dtype_prefetch_from;
    rch_tun.dtype_prefetch_from = 1 << 30;    /* AVX-512 repetitions: for passes within this span */
    for (int simd = 0; simd < 2; simd++) {
        rch_tun.dtype_simd = simd;
        for (size_t li = 0; li < sizeof(layouts) / sizeof(layouts[0]); li++)
            for (size_t s = 0; s < sizeof(strides) / sizeof(strides[0]); s++) {
                size_t per = (size_t)(RCH_BASE_COLS_SPAN / (strides[s] < 0 ? -strides[s] : strides[s]));
                size_t reps[] = { 0, 1, 2, per ? per - 1 : 1, per, per + 1, 2 * per + 3, 300 };
                for (size_t r = 0; r < sizeof(reps) / sizeof(reps[0]); r++)
                    for (int to_packed = 0; to_packed < 2; to_packed++)
                        cols_case(&layouts[li], strides[s], reps[r], to_packed);
            }
    }
    rch_tun.dtype_simd = keep;
    rch_tun.dtype_prefetch_from = keep_from;
}

/* rch_base_copy_lines: lengths around the 2 KiB pieces and at odd offsets,
 * every byte where it belongs and nothing written past the end. */
Test(copy_lines, lengths_around_the_pieces_at_odd_offsets)
{
    static const size_t lens[] = { 0, 1, 17, 2047, 2048, 2049, 4095, 4096, 4097, 6144, 8192 + 48, 16384 + 33 };
    size_t cap = 16384 + 33 + 64;
    unsigned char *src = malloc(cap), *got = malloc(cap);
    cr_assert(src && got);
    for (size_t i = 0; i < cap; i++)
        src[i] = (unsigned char)(i * 29 + 5);
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
        for (size_t so = 0; so < 3; so++)
            for (size_t dof = 0; dof < 3; dof++) {
                size_t len = lens[l], s_off = so * 7, d_off = dof * 13;
                memset(got, 0xa5, cap);
                rch_base_copy_lines(got + d_off, src + s_off, len);
                cr_expect(memcmp(got + d_off, src + s_off, len) == 0, "len %zu (offsets %zu, %zu): wrong bytes",
                          len, s_off, d_off);
                for (size_t i = 0; i < d_off; i++)
                    cr_expect_eq(got[i], 0xa5, "len %zu: byte %zu before the copy written", len, i);
                size_t past = d_off + len;
                while (past < cap && got[past] == 0xa5)
                    past++;
                cr_expect_eq(past, cap, "len %zu (offsets %zu, %zu): byte %zu after the copy written", len, s_off,
                             d_off, past);
            }
    free(src);
    free(got);
}

/* rch_base_claim_lines: a byte stored in every cache line the range touches,
 * at odd starts and lengths, and nothing outside the range written. */
Test(claim_lines, one_store_per_line_inside_the_range)
{
    static const size_t lens[] = { 0, 1, 63, 64, 65, 127, 128, 129, 4096, 65536 + 17 };
    size_t cap = 65536 + 4 * 64;                  /* a multiple of the alignment, as aligned_alloc wants */
    unsigned char *buf = aligned_alloc(64, cap);
    cr_assert(buf);
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++)
        for (size_t off = 0; off < 64 + 1; off += 13) {
            size_t len = lens[l];
            memset(buf, 0xa5, cap);
            rch_base_claim_lines(buf + off, len);
            for (size_t i = 0; i < cap; i++)
                if (i < off || i >= off + len)
                    cr_expect_eq(buf[i], 0xa5, "len %zu at %zu: byte %zu outside the range written", len, off, i);
            for (size_t line = off / 64 * 64; len > 0 && line < off + len; line += 64) {
                size_t lo = line > off ? line : off, hi = line + 64 < off + len ? line + 64 : off + len, i = lo;
                while (i < hi && buf[i] == 0xa5)
                    i++;
                cr_expect(i < hi, "len %zu at %zu: no store in the line at %zu", len, off, line);
            }
        }
    free(buf);
}
