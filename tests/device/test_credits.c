/* Credit-based flow control (CRDT) and the per-peer send queue, over the mock
 * channel with caps.needs_credits; the test plays rank 1. */
#include <stdint.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include "base/tunables.h"
#include "dev_test.h"

#define NMSG 1000

static void teardown(void)
{
    dev_stop();
}

static void start_credits(int window)
{
    mock_job_up(2);
    mock_cfg.needs_credits = 1;
    rch_tun.eager_credits = window;
    dev_start(mock_select);
}

TestSuite(credits, .fini = teardown);
TestSuite(sendq, .fini = teardown);

/* Progress until n eager messages have left, message i with tag i and its
 * payload's first 4 bytes want[i]. */
static void drain_eager_u32(const uint32_t *want, int n)
{
    int got = 0;
    for (int iter = 0; iter < 1000 && got < n; iter++) {
        struct mock_pkt p;
        struct rch_pkt_base b;
        if (mock_out_count()) {
            pop_valid(&p, &b);
            struct rch_pkt_eager e;
            uint32_t v;
            memcpy(&e, p.data, sizeof(e));
            memcpy(&v, p.data + sizeof(e), sizeof(v));
            cr_assert_eq(e.tag, got);
            cr_assert_eq(v, want[got], "message %d carried %#x, not %#x", got, v, want[got]);
            got++;
        }
        rch_dev_progress();
    }
    cr_assert_eq(got, n);
}

Test(credits, fast_sender_never_has_more_than_the_window_in_flight)
{
    static uint64_t vals[NMSG];
    static struct rch_dev_req *reqs[NMSG];
    start_credits(4);
    for (int i = 0; i < NMSG; i++) {
        vals[i] = 0xC0DE0000u + (uint64_t)i;
        cr_assert_eq(rch_dev_isend(&vals[i], sizeof(vals[i]), 1, 0, i, 7, RCH_DEV_SEND_STD, &reqs[i]),
                     RDMACH_OK);
    }
    cr_assert_eq(mock_out_count(), 4, "with 4 credits exactly 4 packets leave at once, not %d",
                 mock_out_count());
    int got = 0, owe = 0;
    for (int iter = 0; got < NMSG && iter < 100000; iter++) {
        struct mock_pkt p;
        struct rch_pkt_base b;
        while (mock_out_count()) {
            pop_valid(&p, &b);
            cr_assert_eq(b.op, RCH_PKT_EAGER);
            struct rch_pkt_eager e;
            uint64_t v;
            memcpy(&e, p.data, sizeof(e));
            memcpy(&v, p.data + sizeof(e), sizeof(v));
            cr_assert_eq(e.tag, got, "message %d overtaken by tag %d", got, e.tag);
            cr_assert_eq(v, 0xC0DE0000u + (uint64_t)got);
            got++;
            if (++owe == 2) {     /* the peer returns credits as half its window is owed */
                inject_crdt(1, 2);
                owe = 0;
            }
        }
        rch_dev_progress();
    }
    cr_assert_eq(got, NMSG, "only %d of %d messages arrived", got, NMSG);
    cr_assert_leq(mock_max_inflight(1), 4, "%ld credited packets were in flight", mock_max_inflight(1));
    cr_assert_eq(mock_max_inflight(1), 4);
    for (int i = 0; i < NMSG; i++) {
        cr_assert(req_ok(reqs[i]), "send %d not complete", i);
        rch_dev_req_free(reqs[i]);
    }
}

Test(credits, receiver_returns_credits_to_a_windowed_sender)
{
    static struct rch_dev_req *reqs[NMSG];
    static uint32_t bufs[NMSG];
    start_credits(4);
    /* Half the receives are posted before their messages, half after. */
    for (int i = 0; i < NMSG / 2; i++)
        cr_assert_eq(rch_dev_irecv(&bufs[i], sizeof(bufs[i]), 1, i, 3, &reqs[i]), RDMACH_OK);
    int peer_credits = 4, sent = 0;
    long crdt = 0;
    for (int iter = 0; sent < NMSG && iter < 100000; iter++) {
        while (peer_credits > 0 && sent < NMSG) {
            uint32_t v = 0xAB000000u + (uint32_t)sent;
            inject_eager(1, 3, 1, sent, &v, sizeof(v), 0, 0);
            peer_credits--;
            sent++;
        }
        rch_dev_progress();
        struct mock_pkt p;
        struct rch_pkt_base b;
        while (mock_out_count()) {
            pop_valid(&p, &b);
            cr_assert_eq(b.op, RCH_PKT_CRDT, "the device sent %s, expected CRDT", rch_pkt_op_name[b.op]);
            peer_credits += b.credits;
            crdt++;
        }
        cr_assert_leq(peer_credits, 4, "the device returned more credits than it was owed");
    }
    cr_assert_eq(sent, NMSG, "the sender stalled after %d messages: credits not returned", sent);
    cr_assert_geq(crdt, NMSG / 2 - 1, "expected a CRDT per half window, got %ld", crdt);
    rch_dev_progress();
    for (int i = NMSG / 2; i < NMSG; i++)
        cr_assert_eq(rch_dev_irecv(&bufs[i], sizeof(bufs[i]), 1, i, 3, &reqs[i]), RDMACH_OK);
    for (int i = 0; i < NMSG; i++) {
        cr_assert(reqs[i]->done && reqs[i]->err == RDMACH_OK, "receive %d: done %d err %d", i, reqs[i]->done,
                  reqs[i]->err);
        cr_assert_eq(bufs[i], 0xAB000000u + (uint32_t)i);
        cr_assert_eq(reqs[i]->bytes, 4);
        cr_assert_eq(reqs[i]->tag, i);
        rch_dev_req_free(reqs[i]);
    }
}

Test(credits, credits_ride_on_data_when_traffic_flows_both_ways)
{
    start_credits(4);
    for (int i = 0; i < 200; i++) {
        uint32_t out = (uint32_t)i, in = 0;
        struct rch_dev_req *s, *r;
        cr_assert_eq(rch_dev_irecv(&in, sizeof(in), 1, i, 0, &r), RDMACH_OK);
        cr_assert_eq(rch_dev_isend(&out, sizeof(out), 1, 0, i, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
        cr_assert_null(s, "eager send with credits must complete at once");
        struct mock_pkt p;
        struct rch_pkt_base b;
        pop_valid(&p, &b);
        cr_assert_eq(b.op, RCH_PKT_EAGER, "ping-pong must need no CRDT (got %s)", rch_pkt_op_name[b.op]);
        cr_assert_eq(b.credits, i == 0 ? 0 : 1, "round %d: the reply's credit must ride on the next send", i);
        cr_assert_eq(mock_out_count(), 0);
        uint32_t reply = (uint32_t)i * 3;
        inject_eager(1, 0, 1, i, &reply, sizeof(reply), 1, 0);   /* returns the credit of the ping */
        rch_dev_wait(r);
        cr_assert_eq(in, reply);
        rch_dev_req_free(r);
    }
    cr_assert_leq(mock_max_inflight(1), 1);
}

Test(credits, sync_rendezvous_and_control_packets_all_respect_the_window)
{
    static char big[5000];
    start_credits(2);
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (char)(i * 7);
    struct rch_dev_req *r[6];
    uint32_t v = 1;
    for (int i = 0; i < 4; i++)
        cr_assert_eq(rch_dev_isend(&v, sizeof(v), 1, 0, i, 0, RCH_DEV_SEND_STD, &r[i]), RDMACH_OK);
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 1, 0, 4, 0, RCH_DEV_SEND_SYNC, &r[4]), RDMACH_OK);
    cr_assert_eq(rch_dev_isend(big, sizeof(big), 1, 0, 5, 0, RCH_DEV_SEND_STD, &r[5]), RDMACH_OK);
    cr_assert_eq(mock_out_count(), 2);
    int next_tag = 0;
    for (int iter = 0; iter < 1000 && next_tag < 6; iter++) {
        struct mock_pkt p;
        struct rch_pkt_base b;
        while (mock_out_count()) {
            pop_valid(&p, &b);
            int credits_back = 1;
            if (b.op == RCH_PKT_EAGER) {
                struct rch_pkt_eager_sync e;
                memcpy(&e, p.data, b.flags & RCH_PKT_F_SYNC ? sizeof(e) : sizeof(e.e));
                cr_assert_eq(e.e.tag, next_tag++);
                if (b.flags & RCH_PKT_F_SYNC) {
                    struct rch_pkt_sync_ack a = { .b = rch_pkt_base_make(RCH_PKT_SYNC_ACK, 0), .sreq = e.sreq };
                    a.b.credits = 1;
                    mock_inject(1, &a, sizeof(a));
                    credits_back = 0;
                }
            } else {
                cr_assert_eq(b.op, RCH_PKT_RNDV_REQ);
                struct rch_pkt_rndv_req q;
                memcpy(&q, p.data, sizeof(q));
                cr_assert_eq(q.tag, next_tag++);
                cr_assert(b.flags & RCH_PKT_F_RKEY);
                cr_assert_eq(memcmp((void *)(uintptr_t)q.saddr, big, sizeof(big)), 0);
                inject_fin(1, q.sreq, q.size, 0);   /* as after the peer's GET */
            }
            if (credits_back)
                inject_crdt(1, 1);
        }
        rch_dev_progress();
    }
    cr_assert_eq(next_tag, 6);
    for (int i = 0; i < 6; i++) {
        cr_assert(req_ok(r[i]), "request %d: done %d err %d", i, r[i] ? r[i]->done : -1, r[i] ? r[i]->err : 0);
        rch_dev_req_free(r[i]);
    }
    cr_assert_leq(mock_max_inflight(1), 2);
}

Test(sendq, a_full_channel_queues_sends_in_order_and_nothing_is_lost)
{
    mock_job_up(2);
    mock_cfg.out_capacity = 3;   /* the "ring" holds 3 packets */
    dev_start(mock_select);
    static uint32_t vals[50];
    struct rch_dev_req *r[50];
    for (int i = 0; i < 50; i++) {
        vals[i] = (uint32_t)i * 11;
        cr_assert_eq(rch_dev_isend(&vals[i], sizeof(vals[i]), 1, 0, i, 0, RCH_DEV_SEND_STD, &r[i]), RDMACH_OK);
        if (i < 3)
            cr_assert_null(r[i]);
        else
            cr_assert_not_null(r[i], "send %d went out of turn", i);
    }
    drain_eager_u32(vals, 50);
    cr_assert_gt(mock_again_count(), 0);
    for (int i = 0; i < 50; i++) {
        cr_assert(req_ok(r[i]));
        rch_dev_req_free(r[i]);
    }
}

/* A small eager message that waits in the queue goes out as the call saw it
 * (the request holds a copy), one above RCH_PKT_CTL_MAX as its buffer holds
 * it when it leaves (MPI lets the library read the buffer until the request
 * completes). */
Test(sendq, a_queued_small_message_is_copied_at_the_call)
{
    mock_job_up(2);
    mock_cfg.out_capacity = 1;
    dev_start(mock_select);
    static uint32_t first, small, big[RCH_PKT_CTL_MAX / 4 + 1];
    struct rch_dev_req *r0, *r1, *r2;
    first = 7;
    small = 42;
    big[0] = 42;
    cr_assert_eq(rch_dev_isend(&first, sizeof(first), 1, 0, 0, 0, RCH_DEV_SEND_STD, &r0), RDMACH_OK);
    cr_assert_eq(rch_dev_isend(&small, sizeof(small), 1, 0, 1, 0, RCH_DEV_SEND_STD, &r1), RDMACH_OK);
    cr_assert_eq(rch_dev_isend(big, sizeof(big), 1, 0, 2, 0, RCH_DEV_SEND_STD, &r2), RDMACH_OK);
    cr_assert_not_null(r1, "the channel took a second packet");
    cr_assert_not_null(r2, "the channel took a third packet");
    small = 0xdead;
    big[0] = 0xbeef;
    static const uint32_t want[3] = { 7, 42, 0xbeef };
    drain_eager_u32(want, 3);
    cr_assert(req_ok(r1));
    cr_assert(req_ok(r2));
    if (r0)
        rch_dev_req_free(r0);
    rch_dev_req_free(r1);
    rch_dev_req_free(r2);
}
