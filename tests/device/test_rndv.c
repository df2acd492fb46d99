/* Rendezvous over the mock channel, both directions, GET / PUT / DATA, with
 * put/get completing at once (OK) or later (INPROGRESS + rma_done), and
 * truncation. The test plays rank 1. */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include "base/tunables.h"
#include "dev_test.h"

#define BIG 10000   /* > the mock's 1024-byte max_msg: rendezvous */

static unsigned char src[BIG], dst[BIG];

static void fill(void)
{
    for (int i = 0; i < BIG; i++) {
        src[i] = (unsigned char)(i * 13 + 5);
        dst[i] = 0;
    }
}

static void teardown(void)
{
    dev_stop();
}

TestSuite(rndv_send, .fini = teardown);
TestSuite(rndv_recv, .fini = teardown);

static void start(int rma, int async, int mode)
{
    mock_job_up(2);
    mock_cfg.rma = rma;
    mock_cfg.rma_async = async;
    rch_tun.rndv_mode = mode;
    dev_start(mock_select);
    fill();
}

static struct rch_pkt_rndv_req pop_req(void)
{
    struct mock_pkt p;
    struct rch_pkt_base b;
    pop_valid(&p, &b);
    cr_assert_eq(b.op, RCH_PKT_RNDV_REQ, "expected RNDV_REQ, got %s", rch_pkt_op_name[b.op]);
    struct rch_pkt_rndv_req q;
    memcpy(&q, p.data, sizeof(q));
    return q;
}

static void progress_n(int n)
{
    for (int i = 0; i < n; i++)
        rch_dev_progress();
}

/* ---- the device sends ---- */

Test(rndv_send, get_mode_peer_reads_the_buffer_then_fin_completes)
{
    start(1, 0, RCH_RNDV_AUTO);
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_isend(src, BIG, 1, 0, 42, 9, RCH_DEV_SEND_STD, &r), RDMACH_OK);
    cr_assert_not_null(r);
    struct rch_pkt_rndv_req q = pop_req();
    cr_assert(q.b.flags & RCH_PKT_F_RKEY, "auto mode over an RMA channel must offer GET");
    cr_assert_eq(q.size, BIG);
    cr_assert_eq(q.tag, 42);
    cr_assert_eq(q.ctx, 9);
    cr_assert_eq(memcmp((void *)(uintptr_t)q.saddr, src, BIG), 0);
    progress_n(3);
    cr_assert_eq(r->done, 0, "rendezvous send completed before FIN");
    inject_fin(1, q.sreq, BIG, 0);
    rch_dev_wait(r);
    cr_assert_eq(r->err, RDMACH_OK);
    cr_assert_eq(r->bytes, BIG);
    rch_dev_req_free(r);
}

static void send_put(int async)
{
    start(1, async, RCH_RNDV_PUT);
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_isend(src, BIG, 1, 0, 1, 0, RCH_DEV_SEND_STD, &r), RDMACH_OK);
    struct rch_pkt_rndv_req q = pop_req();
    cr_assert_eq(q.b.flags & RCH_PKT_F_RKEY, 0, "PUT mode offers no GET");
    struct rch_pkt_rndv_rsp s;
    memset(&s, 0, sizeof(s));
    s.b = rch_pkt_base_make(RCH_PKT_RNDV_RSP, RCH_PKT_F_RKEY);
    s.sreq = q.sreq;
    s.rreq = 0x5151;
    s.rlen = BIG;
    s.raddr = (uint64_t)(uintptr_t)dst;
    s.rkey.len = 4;
    memcpy(s.rkey.bytes, "MOCK", 4);
    mock_inject(1, &s, sizeof(s));
    rch_dev_progress();
    if (async) {
        cr_assert_eq(r->done, 0, "PUT in progress: not complete yet");
        rch_dev_progress();
    }
    rch_dev_wait(r);
    cr_assert_eq(r->err, RDMACH_OK);
    cr_assert_eq(memcmp(dst, src, BIG), 0);
    struct mock_pkt p;
    struct rch_pkt_base b;
    pop_valid(&p, &b);
    cr_assert_eq(b.op, RCH_PKT_RNDV_FIN);
    struct rch_pkt_rndv_fin f;
    memcpy(&f, p.data, sizeof(f));
    cr_assert_eq(f.req, 0x5151);
    cr_assert_eq(f.bytes, BIG);
    cr_assert_eq(f.status, 0);
    rch_dev_req_free(r);
}

Test(rndv_send, put_mode_completing_at_once)
{
    send_put(0);
}

Test(rndv_send, put_mode_completing_later_through_rma_done)
{
    send_put(1);
}

Test(rndv_send, without_rma_the_data_streams_in_chunks)
{
    start(0, 0, RCH_RNDV_AUTO);
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_isend(src, BIG, 1, 0, 3, 0, RCH_DEV_SEND_STD, &r), RDMACH_OK);
    struct rch_pkt_rndv_req q = pop_req();
    cr_assert_eq(q.b.flags & RCH_PKT_F_RKEY, 0);
    struct rch_pkt_rndv_rsp s;
    memset(&s, 0, sizeof(s));
    s.b = rch_pkt_base_make(RCH_PKT_RNDV_RSP, 0);
    s.sreq = q.sreq;
    s.rreq = 0x77;
    s.rlen = BIG - 100;   /* the receiver's buffer is shorter */
    mock_inject(1, &s, sizeof(s));
    size_t got = 0;
    int chunks = 0;
    for (int i = 0; i < 100 && !r->done; i++) {
        rch_dev_progress();
        struct mock_pkt p;
        struct rch_pkt_base b;
        while (mock_out_count()) {
            pop_valid(&p, &b);
            cr_assert_eq(b.op, RCH_PKT_RNDV_DATA);
            struct rch_pkt_rndv_data d;
            memcpy(&d, p.data, sizeof(d));
            cr_assert_eq(d.rreq, 0x77);
            cr_assert_eq(d.offset, got, "chunks out of order");
            memcpy(dst + d.offset, p.data + sizeof(d), d.len);
            got += d.len;
            chunks++;
        }
    }
    cr_assert(r->done);
    cr_assert_eq(r->err, RDMACH_OK);
    cr_assert_eq(got, BIG - 100);
    cr_assert_eq(r->bytes, BIG - 100);
    cr_assert_gt(chunks, 1);
    cr_assert_eq(memcmp(dst, src, BIG - 100), 0);
    rch_dev_req_free(r);
}

Test(rndv_send, a_synchronous_small_send_waits_for_its_ack)
{
    start(1, 0, RCH_RNDV_AUTO);
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_isend(src, 16, 1, 0, 5, 0, RCH_DEV_SEND_SYNC, &r), RDMACH_OK);
    cr_assert_not_null(r);
    struct mock_pkt p;
    struct rch_pkt_base b;
    pop_valid(&p, &b);
    cr_assert_eq(b.op, RCH_PKT_EAGER);
    cr_assert(b.flags & RCH_PKT_F_SYNC);
    struct rch_pkt_eager_sync e;
    memcpy(&e, p.data, sizeof(e));
    cr_assert_eq(memcmp(p.data + sizeof(e), src, 16), 0);
    progress_n(3);
    cr_assert_eq(r->done, 0, "synchronous send completed before the receiver matched");
    struct rch_pkt_sync_ack a = { .b = rch_pkt_base_make(RCH_PKT_SYNC_ACK, 0), .sreq = e.sreq };
    mock_inject(1, &a, sizeof(a));
    rch_dev_wait(r);
    cr_assert_eq(r->err, RDMACH_OK);
    rch_dev_req_free(r);
    /* the same ack again is stale: dropped, no crash */
    mock_inject(1, &a, sizeof(a));
    progress_n(2);
    cr_assert_eq(rch_dev.dropped, 1);
}

Test(rndv_send, a_peer_error_in_fin_fails_the_send)
{
    start(1, 0, RCH_RNDV_AUTO);
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_isend(src, BIG, 1, 0, 1, 0, RCH_DEV_SEND_STD, &r), RDMACH_OK);
    struct rch_pkt_rndv_req q = pop_req();
    inject_fin(1, q.sreq, 0, RDMACH_ERR_IO);
    rch_dev_wait(r);
    cr_assert_eq(r->err, RDMACH_ERR_IO);
    rch_dev_req_free(r);
}

/* ---- the device receives ---- */

static struct rch_pkt_rndv_fin pop_fin(void)
{
    struct mock_pkt p;
    struct rch_pkt_base b;
    pop_valid(&p, &b);
    cr_assert_eq(b.op, RCH_PKT_RNDV_FIN, "expected FIN, got %s", rch_pkt_op_name[b.op]);
    struct rch_pkt_rndv_fin f;
    memcpy(&f, p.data, sizeof(f));
    return f;
}

static void recv_get(int async, int posted_first)
{
    start(1, async, RCH_RNDV_AUTO);
    struct rch_dev_req *r = NULL;
    if (posted_first)
        cr_assert_eq(rch_dev_irecv(dst, BIG, 1, 8, 2, &r), RDMACH_OK);
    inject_rndv_req(1, 2, 1, 8, BIG, 0xABCD, src, 1);
    rch_dev_progress();
    if (!posted_first) {
        int found = 0, s = -1, t = -1;
        size_t bytes = 0;
        cr_assert_eq(rch_dev_iprobe(RCH_DEV_ANY_SOURCE, RCH_DEV_ANY_TAG, 2, &found, &s, &t, &bytes), RDMACH_OK);
        cr_assert(found);
        cr_assert_eq(s, 1);
        cr_assert_eq(t, 8);
        cr_assert_eq(bytes, BIG, "probe must report the full rendezvous size");
        cr_assert_eq(rch_dev_irecv(dst, BIG, 1, 8, 2, &r), RDMACH_OK);
    }
    if (async) {
        cr_assert_eq(r->done, 0);
        rch_dev_progress();
    }
    rch_dev_wait(r);
    cr_assert_eq(r->err, RDMACH_OK);
    cr_assert_eq(r->bytes, BIG);
    cr_assert_eq(r->msg_bytes, BIG);
    cr_assert_eq(r->source, 1);
    cr_assert_eq(r->tag, 8);
    cr_assert_eq(memcmp(dst, src, BIG), 0);
    struct rch_pkt_rndv_fin f = pop_fin();
    cr_assert_eq(f.req, 0xABCD);
    cr_assert_eq(f.bytes, BIG);
    rch_dev_req_free(r);
}

Test(rndv_recv, get_posted_first)
{
    recv_get(0, 1);
}
Test(rndv_recv, get_unexpected_first)
{
    recv_get(0, 0);
}
Test(rndv_recv, get_completing_later)
{
    recv_get(1, 1);
}

Test(rndv_recv, truncation_reads_only_what_fits_and_says_so)
{
    start(1, 0, RCH_RNDV_AUTO);
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_irecv(dst, 3000, 1, 8, 0, &r), RDMACH_OK);
    inject_rndv_req(1, 0, 1, 8, BIG, 0x1, src, 1);
    rch_dev_wait(r);
    cr_assert_eq(r->err, RDMACH_ERR_TRUNCATE);
    cr_assert_eq(r->bytes, 3000);
    cr_assert_eq(r->msg_bytes, BIG);
    cr_assert_eq(memcmp(dst, src, 3000), 0);
    cr_assert_eq(dst[3000], 0, "wrote past the receive buffer");
    struct rch_pkt_rndv_fin f = pop_fin();
    cr_assert_eq(f.bytes, 3000);
    rch_dev_req_free(r);
}

Test(rndv_recv, zero_byte_buffer_finishes_without_moving_data)
{
    start(1, 0, RCH_RNDV_AUTO);
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_irecv(NULL, 0, RCH_DEV_ANY_SOURCE, RCH_DEV_ANY_TAG, 0, &r), RDMACH_OK);
    inject_rndv_req(1, 0, 1, 8, BIG, 0x2, src, 1);
    rch_dev_wait(r);
    cr_assert_eq(r->err, RDMACH_ERR_TRUNCATE);
    cr_assert_eq(r->bytes, 0);
    cr_assert_eq(r->msg_bytes, BIG);
    cr_assert_eq(pop_fin().req, 0x2);
    rch_dev_req_free(r);
}

Test(rndv_recv, put_mode_sends_its_buffer_and_completes_on_fin)
{
    start(1, 0, RCH_RNDV_PUT);
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_irecv(dst, BIG, 1, 8, 0, &r), RDMACH_OK);
    inject_rndv_req(1, 0, 1, 8, BIG, 0x99, src, 1);
    rch_dev_progress();
    struct mock_pkt p;
    struct rch_pkt_base b;
    pop_valid(&p, &b);
    cr_assert_eq(b.op, RCH_PKT_RNDV_RSP);
    cr_assert(b.flags & RCH_PKT_F_RKEY);
    struct rch_pkt_rndv_rsp s;
    memcpy(&s, p.data, sizeof(s));
    cr_assert_eq(s.sreq, 0x99);
    cr_assert_eq(s.rlen, BIG);
    memcpy((void *)(uintptr_t)s.raddr, src, BIG);   /* the peer's PUT */
    cr_assert_eq(r->done, 0);
    inject_fin(1, s.rreq, BIG, 0);
    rch_dev_wait(r);
    cr_assert_eq(r->err, RDMACH_OK);
    cr_assert_eq(r->bytes, BIG);
    cr_assert_eq(memcmp(dst, src, BIG), 0);
    rch_dev_req_free(r);
}

Test(rndv_recv, data_chunks_without_rma)
{
    start(0, 0, RCH_RNDV_AUTO);
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_irecv(dst, BIG, 1, 8, 0, &r), RDMACH_OK);
    inject_rndv_req(1, 0, 1, 8, BIG, 0x42, NULL, 0);
    rch_dev_progress();
    struct mock_pkt p;
    struct rch_pkt_base b;
    pop_valid(&p, &b);
    cr_assert_eq(b.op, RCH_PKT_RNDV_RSP);
    cr_assert_eq(b.flags & RCH_PKT_F_RKEY, 0);
    struct rch_pkt_rndv_rsp s;
    memcpy(&s, p.data, sizeof(s));
    unsigned char buf[1024];
    for (size_t off = 0; off < BIG; off += 900) {
        size_t n = BIG - off < 900 ? BIG - off : 900;
        struct rch_pkt_rndv_data d = { .b = rch_pkt_base_make(RCH_PKT_RNDV_DATA, 0), .rreq = s.rreq,
                                       .offset = off, .len = (uint32_t)n };
        memcpy(buf, &d, sizeof(d));
        memcpy(buf + sizeof(d), src + off, n);
        mock_inject(1, buf, sizeof(d) + n);
    }
    rch_dev_wait(r);
    cr_assert_eq(r->err, RDMACH_OK);
    cr_assert_eq(r->bytes, BIG);
    cr_assert_eq(memcmp(dst, src, BIG), 0);
    rch_dev_req_free(r);
}

Test(rndv_recv, data_beyond_the_buffer_is_dropped)
{
    start(0, 0, RCH_RNDV_AUTO);
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_irecv(dst, 100, 1, 8, 0, &r), RDMACH_OK);
    inject_rndv_req(1, 0, 1, 8, BIG, 0x42, NULL, 0);
    rch_dev_progress();
    struct mock_pkt p;
    struct rch_pkt_base b;
    pop_valid(&p, &b);
    struct rch_pkt_rndv_rsp s;
    memcpy(&s, p.data, sizeof(s));
    cr_assert_eq(s.rlen, 100);
    unsigned char buf[256] = { 0 };
    struct rch_pkt_rndv_data d = { .b = rch_pkt_base_make(RCH_PKT_RNDV_DATA, 0), .rreq = s.rreq, .offset = 50,
                                   .len = 100 };
    memcpy(buf, &d, sizeof(d));
    mock_inject(1, buf, sizeof(d) + 100);
    rch_dev_progress();
    cr_assert_eq(rch_dev.dropped, 1);
    cr_assert_eq(r->done, 0);
    rch_dev_req_free(r);   /* detached: reclaimed when it completes (never, here) */
}
