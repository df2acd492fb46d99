/* Helpers of the device tests: build the packets the pretend peer sends. */
#ifndef TEST_DEVICE_DEV_TEST_H
#define TEST_DEVICE_DEV_TEST_H

#include <string.h>
#include <criterion/criterion.h>
#include "device/dev_impl.h"
#include "device/pkt.h"
#include "mock_chan.h"

static inline void inject_eager(int peer, uint32_t ctx, int src, int tag, const void *data, uint32_t len,
                                uint16_t credits, uint64_t sync_sreq)
{
    unsigned char buf[MOCK_PKT_MAX];
    struct rch_pkt_eager_sync h;
    memset(&h, 0, sizeof(h));
    h.e.b = rch_pkt_base_make(RCH_PKT_EAGER, sync_sreq ? RCH_PKT_F_SYNC : 0);
    h.e.b.credits = credits;
    h.e.ctx = ctx;
    h.e.src = src;
    h.e.tag = tag;
    h.e.len = len;
    h.sreq = sync_sreq;
    size_t hl = sync_sreq ? sizeof(struct rch_pkt_eager_sync) : sizeof(struct rch_pkt_eager);
    cr_assert(hl + len <= sizeof(buf));
    memcpy(buf, &h, hl);
    if (len)
        memcpy(buf + hl, data, len);
    mock_inject(peer, buf, hl + len);
}

static inline void inject_crdt(int peer, uint16_t n)
{
    struct rch_pkt_base b = rch_pkt_base_make(RCH_PKT_CRDT, 0);
    b.credits = n;
    mock_inject(peer, &b, sizeof(b));
}

static inline void inject_fin(int peer, uint64_t req, uint64_t bytes, int32_t status)
{
    struct rch_pkt_rndv_fin f = { .b = rch_pkt_base_make(RCH_PKT_RNDV_FIN, 0), .req = req, .bytes = bytes,
                                  .status = status };
    mock_inject(peer, &f, sizeof(f));
}

static inline void inject_rndv_req(int peer, uint32_t ctx, int src, int tag, uint64_t size, uint64_t sreq,
                                   const void *saddr, int with_rkey)
{
    struct rch_pkt_rndv_req q;
    memset(&q, 0, sizeof(q));
    q.b = rch_pkt_base_make(RCH_PKT_RNDV_REQ, with_rkey ? RCH_PKT_F_RKEY : 0);
    q.ctx = ctx;
    q.src = src;
    q.tag = tag;
    q.size = size;
    q.sreq = sreq;
    if (with_rkey) {
        q.saddr = (uint64_t)(uintptr_t)saddr;
        q.rkey.len = 4;
        memcpy(q.rkey.bytes, "MOCK", 4);
    }
    mock_inject(peer, &q, sizeof(q));
}

/* Pop the next packet the device sent, validated; its base header in *b. */
static inline void pop_valid(struct mock_pkt *p, struct rch_pkt_base *b)
{
    const char *why;
    cr_assert(mock_out_pop(p), "the device sent nothing");
    cr_assert_eq(rch_pkt_check(p->data, p->len, b, &why), RDMACH_OK, "device sent a bad packet: %s", why);
}

static inline int req_ok(struct rch_dev_req *r)
{
    return r == NULL || (r->done && r->err == RDMACH_OK);
}

/* Start the device over the mock (after mock_job_up and any configuration). */
static inline void dev_start(rch_dev_select_fn sel)
{
    cr_assert_eq(rch_dev_init_with(sel), RDMACH_OK, "%s", rdmach_last_error());
}

static inline void dev_stop(void)
{
    struct mock_pkt p;
    mock_cfg.out_capacity = MOCK_QUEUE;
    while (mock_out_pop(&p))
        ;
    rch_dev_finalize();
    mock_job_down();
}

#endif
