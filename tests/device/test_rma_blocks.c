/*
 * The target side of GETW and PUTW (src/device/rma_getw.c,
 * rch_dev_rma_blocks_*): the description of the blocks is checked against
 * the window before anything is touched (a block outside it, or blocks
 * whose bytes do not add up to the packet's, is refused with INVALID_ARG),
 * and the cursor scatters a PUTW's data arriving in chunks of any size
 * (ending inside blocks, inside a repetition) to exactly the map's bytes,
 * leaving every other byte of the window as it was; packing the same
 * blocks gives the data back.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "device/rma_impl.h"

enum { WIN = 1 << 16 };

static unsigned char mem[WIN];

static struct rch_dev_win win(void)
{
    struct rch_dev_win w;
    memset(&w, 0, sizeof(w));
    w.flavor = RCH_DEV_WIN_CREATE;
    w.base = mem;
    w.bytes = WIN;
    return w;
}

/* A PUTW's description: segments (vector of count blocks of blen at addr,
 * stride), `bytes` in elem. */
static size_t seg_desc(unsigned char *d, struct rch_rma_hdr *h, const struct rch_rma_seg *s, uint32_t n)
{
    memset(h, 0, sizeof(*h));
    h->rop = RCH_RMA_PUTW;
    struct rch_rma_vec v = { .nseg = n };
    memcpy(d, &v, sizeof(v));
    memcpy(d + sizeof(v), s, n * sizeof(*s));
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += (uint64_t)s[i].blen * s[i].count;
    h->elem = (uint32_t)total;
    return sizeof(v) + n * sizeof(*s);
}

static size_t pat_desc(unsigned char *d, struct rch_rma_hdr *h, const struct rch_rma_pblk *b, uint32_t nblk,
                       uint64_t reps, int64_t stride)
{
    memset(h, 0, sizeof(*h));
    h->rop = RCH_RMA_PUTW;
    h->flags = RCH_RMA_F_PAT;
    uint32_t period = 0;
    for (uint32_t k = 0; k < nblk; k++)
        period += b[k].blen;
    struct rch_rma_pat q = { .reps = reps, .stride = stride, .period = period, .nblk = nblk };
    memcpy(d, &q, sizeof(q));
    memcpy(d + sizeof(q), b, nblk * sizeof(*b));
    h->elem = (uint32_t)(reps * period);
    return sizeof(q) + nblk * sizeof(*b);
}

/* Scatter `n` bytes (data[i] = i * 7 + 1) in chunks of `chunk`, then check
 * the window against want (built by the caller from the map), and pack the
 * blocks back. */
static void scatter_check(const struct rch_rma_hdr *h, const unsigned char *d, size_t chunk,
                          const unsigned char *want)
{
    struct rch_dev_win w = win();
    memset(mem, 0xee, sizeof(mem));
    size_t n = h->elem;
    unsigned char *data = malloc(n), *back = malloc(n);
    cr_assert(data && back);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 7 + 1);
    struct rch_dev_rma_blocks *f = NULL;
    cr_assert_eq(rch_dev_rma_blocks_init(&f, h, &w, d), RDMACH_OK);
    for (size_t off = 0; off < n; off += chunk)
        rch_dev_rma_blocks_move(f, data + off, off, n - off < chunk ? n - off : chunk, 1);
    rch_dev_rma_blocks_free(f);
    for (size_t i = 0; i < WIN; i++)
        cr_assert_eq(mem[i], want[i], "chunks of %zu: window byte %zu is 0x%02x, want 0x%02x", chunk, i, mem[i],
                     want[i]);
    cr_assert_eq(rch_dev_rma_blocks_init(&f, h, &w, d), RDMACH_OK);
    rch_dev_rma_blocks_move(f, back, 0, n, 0);
    rch_dev_rma_blocks_free(f);
    cr_assert_eq(memcmp(back, data, n), 0, "packing the scattered blocks did not give the data back");
    free(data);
    free(back);
}

Test(rma_blocks, segments_scatter_to_the_map_only)
{
    struct rch_rma_seg s[2] = { { .addr = 8, .stride = 24, .blen = 12, .count = 1000 },
                                { .addr = 40000, .stride = -10, .blen = 3, .count = 700 } };   /* disjoint */
    unsigned char d[256], *want = malloc(WIN);
    struct rch_rma_hdr h;
    seg_desc(d, &h, s, 2);
    cr_assert(want);
    size_t chunks[] = { 1, 5, 12, 64, 4096, h.elem };
    for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
        memset(want, 0xee, WIN);
        size_t x = 0;
        for (uint32_t i = 0; i < 2; i++)
            for (uint32_t k = 0; k < s[i].count; k++)
                for (uint32_t b = 0; b < s[i].blen; b++, x++)
                    want[s[i].addr + (int64_t)k * s[i].stride + b] = (unsigned char)(x * 7 + 1);
        scatter_check(&h, d, chunks[c], want);
    }
    free(want);
}

Test(rma_blocks, a_pattern_scatters_to_the_map_only)
{
    struct rch_rma_pblk b[3] = { { .addr = 0, .blen = 4 }, { .addr = 12, .blen = 8 }, { .addr = 40, .blen = 1 } };
    unsigned char d[256], *want = malloc(WIN);
    struct rch_rma_hdr h;
    pat_desc(d, &h, b, 3, 1000, 48);
    cr_assert(want);
    size_t chunks[] = { 1, 7, 13, 4096, h.elem };
    for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
        memset(want, 0xee, WIN);
        size_t x = 0;
        for (uint64_t r = 0; r < 1000; r++)
            for (int k = 0; k < 3; k++)
                for (uint32_t i = 0; i < b[k].blen; i++, x++)
                    want[b[k].addr + r * 48 + i] = (unsigned char)(x * 7 + 1);
        scatter_check(&h, d, chunks[c], want);
    }
    free(want);
}

Test(rma_blocks, blocks_outside_the_window_are_refused)
{
    struct rch_dev_win w = win();
    struct rch_dev_rma_blocks *f = NULL;
    unsigned char d[256];
    struct rch_rma_hdr h;
    /* the last block ends one byte past the window */
    struct rch_rma_seg s[2] = { { .addr = 0, .stride = 8, .blen = 4, .count = 10 },
                                { .addr = WIN - 4 - 99 * 16 + 1, .stride = 16, .blen = 4, .count = 100 } };
    seg_desc(d, &h, s, 2);
    cr_assert_eq(rch_dev_rma_blocks_init(&f, &h, &w, d), RDMACH_ERR_INVALID_ARG);
    rch_dev_rma_blocks_free(f);
    s[1].addr -= 1;                        /* now the last block ends at the window's end */
    seg_desc(d, &h, s, 2);
    cr_assert_eq(rch_dev_rma_blocks_init(&f, &h, &w, d), RDMACH_OK);
    rch_dev_rma_blocks_free(f);
    /* a pattern whose last repetition is past the end */
    struct rch_rma_pblk b[2] = { { .addr = 0, .blen = 4 }, { .addr = 8, .blen = 4 } };
    pat_desc(d, &h, b, 2, WIN / 16 + 1, 16);
    cr_assert_eq(rch_dev_rma_blocks_init(&f, &h, &w, d), RDMACH_ERR_INVALID_ARG);
    rch_dev_rma_blocks_free(f);
    pat_desc(d, &h, b, 2, WIN / 16, 16);
    cr_assert_eq(rch_dev_rma_blocks_init(&f, &h, &w, d), RDMACH_OK);
    rch_dev_rma_blocks_free(f);
    /* bytes that do not add up to the packet's */
    seg_desc(d, &h, s, 2);
    h.elem += 1;
    cr_assert_eq(rch_dev_rma_blocks_init(&f, &h, &w, d), RDMACH_ERR_INVALID_ARG);
    rch_dev_rma_blocks_free(f);
}
