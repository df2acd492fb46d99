/*
 * The collectives' scratch buffers (src/coll/coll_scratch.c): a buffer of
 * 64 KiB or more, freed, is kept and serves the next request it fits (the
 * smallest that fits), up to RDMACH_COLL_SCRATCH_KEEP bytes (and 8
 * buffers); smaller ones and those beyond the limit go back to malloc. The data of
 * every buffer are 16-byte aligned and writable over their whole size.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include "base/tunables.h"
#include "coll/coll_impl.h"

static void fill(void *p, size_t n)
{
    cr_assert_eq((uintptr_t)p % 16, 0, "scratch %p is not 16-byte aligned", p);
    memset(p, 0xa5, n);
}

Test(coll_scratch, large_kept_and_reused_smallest_fit)
{
    rch_tun.coll_scratch_keep = 64u << 20;
    void *a = rch_coll_scratch(1u << 20), *b = rch_coll_scratch(256u << 10);
    fill(a, 1u << 20);
    fill(b, 256u << 10);
    rch_coll_scratch_free(a);
    rch_coll_scratch_free(b);
    void *c = rch_coll_scratch(200u << 10);      /* b is the smallest that fits */
    cr_assert_eq(c, b, "a 200 KiB request took %p, not the kept 256 KiB buffer %p", c, b);
    void *d = rch_coll_scratch(300u << 10);      /* only a fits */
    cr_assert_eq(d, a, "a 300 KiB request took %p, not the kept 1 MiB buffer %p", d, a);
    fill(d, 300u << 10);
    rch_coll_scratch_free(c);
    rch_coll_scratch_free(d);
    rch_coll_scratch_release_all();
}

Test(coll_scratch, limits)
{
    rch_tun.coll_scratch_keep = 1u << 20;
    void *a = rch_coll_scratch(768u << 10), *b = rch_coll_scratch(512u << 10);
    rch_coll_scratch_free(a);                    /* kept: 768 KiB of 1 MiB */
    rch_coll_scratch_free(b);                    /* would pass the limit: freed */
    void *c = rch_coll_scratch(100u << 10);
    cr_assert_eq(c, a, "the kept buffer %p was not reused (got %p)", a, c);
    void *d = rch_coll_scratch(100u << 10);      /* nothing kept now: a new one */
    fill(d, 100u << 10);
    rch_coll_scratch_free(c);
    rch_coll_scratch_free(d);
    rch_coll_scratch_release_all();
    rch_coll_scratch_free(NULL);
    void *s = rch_coll_scratch(100);             /* small: malloc's, never kept */
    fill(s, 100);
    rch_coll_scratch_free(s);
}
