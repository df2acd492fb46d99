/*
 * The one-sided wire format (src/device/rma_proto.h): a receiver accepts a
 * well-formed RMA packet and rejects, with a reason, every malformed one —
 * through the device's own validator (rch_pkt_check) as a packet arrives.
 */
#include <criterion/criterion.h>
#include <string.h>
#include "device/pkt.h"
#include "device/rma_proto.h"

static size_t make(unsigned char *buf, unsigned rop, uint32_t len, uint32_t elem, uint64_t addr)
{
    struct rch_rma_hdr h;
    memset(&h, 0, sizeof(h));
    h.b = rch_pkt_base_make(RCH_PKT_RMA, 0);
    h.rop = (uint8_t)rop;
    h.win = 4;
    h.src = 1;
    h.len = len;
    h.elem = elem;
    h.addr = addr;
    memcpy(buf, &h, sizeof(h));
    memset(buf + sizeof(h), 0xab, len);
    return sizeof(h) + len;
}

static void expect_bad(const unsigned char *buf, size_t len, const char *word)
{
    struct rch_pkt_base b;
    const char *why = NULL;
    cr_assert_eq(rch_pkt_check(buf, len, &b, &why), RDMACH_ERR_PROTOCOL, "accepted a bad packet (%s)", word);
    cr_assert(why && strstr(why, word), "reason '%s' does not mention '%s'", why ? why : "(null)", word);
}

Test(rma_proto, well_formed_packets_pass)
{
    unsigned char buf[256];
    struct rch_pkt_base b;
    const char *why;
    size_t n = make(buf, RCH_RMA_PUT, 16, 0, 64);
    cr_assert_eq(rch_pkt_check(buf, n, &b, &why), RDMACH_OK, "%s", why);
    n = make(buf, RCH_RMA_ACC, 24, 8, 0);
    cr_assert_eq(rch_pkt_check(buf, n, &b, &why), RDMACH_OK, "%s", why);
    n = make(buf, RCH_RMA_CAS, 16, 8, 0);
    cr_assert_eq(rch_pkt_check(buf, n, &b, &why), RDMACH_OK, "%s", why);
    n = make(buf, RCH_RMA_GET, 0, 4096, 0);
    cr_assert_eq(rch_pkt_check(buf, n, &b, &why), RDMACH_OK, "%s", why);
    n = make(buf, RCH_RMA_LOCK, 0, 0, 0);
    cr_assert_eq(rch_pkt_check(buf, n, &b, &why), RDMACH_OK, "%s", why);
    cr_assert_eq(b.op, RCH_PKT_RMA);
}

Test(rma_proto, malformed_packets_are_rejected_with_a_reason)
{
    unsigned char buf[256];
    size_t n = make(buf, RCH_RMA_PUT, 16, 0, 0);
    expect_bad(buf, 20, "shorter");                              /* truncated header */
    expect_bad(buf, n - 1, "length");                            /* payload shorter than announced */
    n = make(buf, RCH_RMA_OP_MAX, 0, 0, 0);
    expect_bad(buf, n, "unknown operation");
    n = make(buf, RCH_RMA_NONE, 0, 0, 0);
    expect_bad(buf, n, "unknown operation");
    n = make(buf, RCH_RMA_ACC, 20, 8, 0);
    expect_bad(buf, n, "whole elements");                        /* 20 bytes of 8-byte elements */
    n = make(buf, RCH_RMA_ACC, 8, 0, 0);
    expect_bad(buf, n, "whole elements");                        /* element size 0 */
    n = make(buf, RCH_RMA_GACC, 64, 64, 0);
    expect_bad(buf, n, "whole elements");                        /* element larger than any type */
    n = make(buf, RCH_RMA_CAS, 8, 8, 0);
    expect_bad(buf, n, "compare");                               /* value without its compare */
    n = make(buf, RCH_RMA_GET, 8, 8, 0);
    expect_bad(buf, n, "GET");                                   /* a GET carries no data */
    n = make(buf, RCH_RMA_GET, 0, 16, UINT64_MAX - 4);
    expect_bad(buf, n, "wrap");
    n = make(buf, RCH_RMA_PUT, 16, 0, UINT64_MAX - 4);
    expect_bad(buf, n, "wraps");
    n = make(buf, RCH_RMA_UNLOCK, 4, 0, 0);
    expect_bad(buf, n, "control packet");
}

/* A V packet: nseg segments (addr, stride, blen, count) and their data. */
static size_t make_vec(unsigned char *buf, unsigned rop, uint32_t elem, const struct rch_rma_seg *segs, uint32_t nseg,
                       uint32_t data)
{
    struct rch_rma_vec v = { .nseg = nseg, .pad = 0 };
    size_t plen = sizeof(v) + nseg * sizeof(*segs) + data;
    size_t n = make(buf, rop, (uint32_t)plen, elem, segs[0].addr);
    memcpy(buf + sizeof(struct rch_rma_hdr), &v, sizeof(v));
    memcpy(buf + sizeof(struct rch_rma_hdr) + sizeof(v), segs, nseg * sizeof(*segs));
    return n;
}

Test(rma_proto, vector_packets_add_up)
{
    unsigned char buf[512];
    struct rch_pkt_base b;
    const char *why;
    struct rch_rma_seg s[2] = { { .addr = 64, .stride = 8, .blen = 4, .count = 10 },
                                { .addr = 0, .stride = 0, .blen = 8, .count = 1 } };
    size_t n = make_vec(buf, RCH_RMA_PUTV, 0, s, 2, 48);
    cr_assert_eq(rch_pkt_check(buf, n, &b, &why), RDMACH_OK, "%s", why);
    n = make_vec(buf, RCH_RMA_ACCV, 4, s, 2, 48);
    cr_assert_eq(rch_pkt_check(buf, n, &b, &why), RDMACH_OK, "%s", why);
    n = make_vec(buf, RCH_RMA_GETV, 48, s, 2, 0);
    cr_assert_eq(rch_pkt_check(buf, n, &b, &why), RDMACH_OK, "%s", why);
    s[0].addr = 72;
    s[0].stride = -8;            /* descending blocks: 72, 64, ..., 0 */
    n = make_vec(buf, RCH_RMA_PUTV, 0, s, 2, 48);
    cr_assert_eq(rch_pkt_check(buf, n, &b, &why), RDMACH_OK, "%s", why);
}

Test(rma_proto, malformed_vector_packets_are_rejected)
{
    unsigned char buf[512];
    struct rch_rma_seg s[2] = { { .addr = 64, .stride = 8, .blen = 4, .count = 10 },
                                { .addr = 0, .stride = 0, .blen = 8, .count = 1 } };
    expect_bad(buf, make_vec(buf, RCH_RMA_PUTV, 0, s, 2, 47), "add up");          /* a byte short */
    expect_bad(buf, make_vec(buf, RCH_RMA_GETV, 40, s, 2, 0), "add up");          /* wants less */
    expect_bad(buf, make_vec(buf, RCH_RMA_ACCV, 8, s, 2, 48), "partial elements"); /* 4-byte blocks of 8-byte elements */
    expect_bad(buf, make_vec(buf, RCH_RMA_ACCV, 0, s, 2, 48), "element size");
    size_t n = make_vec(buf, RCH_RMA_PUTV, 0, s, 2, 48);
    struct rch_rma_vec v = { .nseg = 1000, .pad = 0 };
    memcpy(buf + sizeof(struct rch_rma_hdr), &v, sizeof(v));
    expect_bad(buf, n, "do not fit");
    s[0].stride = -16;           /* 64 - 9 * 16 < 0 */
    expect_bad(buf, make_vec(buf, RCH_RMA_PUTV, 0, s, 2, 48), "wraps");
    s[0].stride = 8;
    s[0].count = 0;
    expect_bad(buf, make_vec(buf, RCH_RMA_PUTV, 0, s, 2, 8), "empty block");
}

/* PUTW (as GETW): the where, then segments whose bytes are `elem`; no data. */
static size_t make_putw(unsigned char *buf, uint32_t elem, size_t extra)
{
    struct rch_rma_where wh = { .raddr = 4096, .keylen = 4 };
    struct rch_rma_vec v = { .nseg = 1 };
    struct rch_rma_seg s = { .addr = 0, .stride = 8, .blen = 4, .count = 16 };
    size_t plen = sizeof(wh) + sizeof(v) + sizeof(s) + extra;
    size_t n = make(buf, RCH_RMA_PUTW, (uint32_t)plen, elem, 0);
    unsigned char *p = buf + sizeof(struct rch_rma_hdr);
    memcpy(p, &wh, sizeof(wh));
    memcpy(p + sizeof(wh), &v, sizeof(v));
    memcpy(p + sizeof(wh) + sizeof(v), &s, sizeof(s));
    return n;
}

Test(rma_proto, putw_packets_are_checked_as_getw)
{
    unsigned char buf[256];
    struct rch_pkt_base b;
    const char *why;
    size_t n = make_putw(buf, 64, 0);
    cr_assert_eq(rch_pkt_check(buf, n, &b, &why), RDMACH_OK, "%s", why);
    n = make_putw(buf, 64, 8);
    expect_bad(buf, n, "after its segments");                    /* data after the description */
    n = make_putw(buf, 60, 0);
    expect_bad(buf, n, "add up");                                /* blocks that are not the bytes */
    n = make(buf, RCH_RMA_PUTW, 8, 64, 0);
    expect_bad(buf, n, "origin buffer");                         /* no where */
}
