/*
 * Cancel of sends over the mock channel: the test plays the receiver (and,
 * in the receiver's tests, the sender) of the CANCEL_REQ / CANCEL_RSP
 * exchange (pkt.h).
 */
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include "dev_test.h"

static void teardown(void)
{
    dev_stop();
}

TestSuite(cancel, .fini = teardown);

static void inject_cancel_rsp(int peer, uint64_t sreq, uint64_t seq, uint32_t cancelled)
{
    struct rch_pkt_cancel_rsp c = { .b = rch_pkt_base_make(RCH_PKT_CANCEL_RSP, 0), .sreq = sreq, .seq = seq,
                                    .cancelled = cancelled };
    mock_inject(peer, &c, sizeof(c));
}

static void inject_cancel_req(int peer, uint64_t sreq, uint64_t seq)
{
    struct rch_pkt_cancel_req c = { .b = rch_pkt_base_make(RCH_PKT_CANCEL_REQ, 0), .sreq = sreq, .seq = seq };
    mock_inject(peer, &c, sizeof(c));
}

/* Pop packets until the next one of opcode op (others are skipped). */
static void pop_op(struct mock_pkt *p, unsigned op)
{
    struct rch_pkt_base b;
    do
        pop_valid(p, &b);
    while (b.op != op);
}

static void up(void)
{
    mock_job_up(2);
    dev_start(mock_select);
}

Test(cancel, an_eager_send_done_at_once_is_withdrawn_by_its_number)
{
    up();
    uint32_t v = 7;
    struct rch_dev_req *s;
    cr_assert_eq(rch_dev_isend(&v, 4, 1, 0, 3, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_null(s, "a small standard send completes without a request");
    cr_assert_eq(rch_dev_isend(&v, 4, 1, 0, 4, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    uint64_t seq = rch_dev_send_seq(1);
    cr_assert_eq(seq, 2, "the second message to rank 1 is number 2");
    struct rch_dev_req *c;
    cr_assert_eq(rch_dev_cancel_sent(1, seq, &c), RDMACH_OK);
    cr_assert_eq(c->done, 0, "not done before the receiver answers");
    struct mock_pkt p;
    pop_op(&p, RCH_PKT_CANCEL_REQ);
    struct rch_pkt_cancel_req q;
    memcpy(&q, p.data, sizeof(q));
    cr_assert_eq(q.seq, 2);
    inject_cancel_rsp(1, q.sreq, q.seq, 1);
    rch_dev_progress();
    cr_assert(c->done);
    cr_assert_eq(c->cancelled, 1);
    cr_assert_eq(c->err, RDMACH_ERR_CANCELED);
    rch_dev_req_free(c);
    /* A number that was never sent is refused. */
    cr_assert_eq(rch_dev_cancel_sent(1, 3, &c), RDMACH_ERR_INVALID_ARG);
}

Test(cancel, a_sync_send_the_receiver_matched_completes_normally)
{
    up();
    uint32_t v = 7;
    struct rch_dev_req *s;
    cr_assert_eq(rch_dev_isend(&v, 4, 1, 0, 3, 0, RCH_DEV_SEND_SYNC, &s), RDMACH_OK);
    struct mock_pkt p;
    pop_op(&p, RCH_PKT_EAGER);
    uint64_t sreq;
    memcpy(&sreq, p.data + offsetof(struct rch_pkt_eager_sync, sreq), sizeof(sreq));
    cr_assert_eq(rch_dev_cancel(s), RDMACH_OK);
    pop_op(&p, RCH_PKT_CANCEL_REQ);
    struct rch_pkt_cancel_req q;
    memcpy(&q, p.data, sizeof(q));
    /* The receiver matched before it saw the CANCEL_REQ: SYNC_ACK, then "no". */
    struct rch_pkt_sync_ack a = { .b = rch_pkt_base_make(RCH_PKT_SYNC_ACK, 0), .sreq = sreq };
    mock_inject(1, &a, sizeof(a));
    rch_dev_progress();
    cr_assert_eq(s->done, 0, "completed before the answer to its cancel");
    inject_cancel_rsp(1, q.sreq, q.seq, 0);
    rch_dev_progress();
    cr_assert(s->done);
    cr_assert_eq(s->cancelled, 0);
    cr_assert_eq(s->err, RDMACH_OK);
    rch_dev_req_free(s);
}

Test(cancel, a_rendezvous_send_withdrawn_completes_cancelled)
{
    static unsigned char big[5000];
    up();
    struct rch_dev_req *s;
    cr_assert_eq(rch_dev_isend(big, sizeof(big), 1, 0, 3, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_not_null(s);
    struct mock_pkt p;
    pop_op(&p, RCH_PKT_RNDV_REQ);
    cr_assert_eq(rch_dev_cancel(s), RDMACH_OK);
    pop_op(&p, RCH_PKT_CANCEL_REQ);
    struct rch_pkt_cancel_req q;
    memcpy(&q, p.data, sizeof(q));
    cr_assert_eq(q.seq, 1);
    inject_cancel_rsp(1, q.sreq, q.seq, 1);
    rch_dev_progress();
    cr_assert(s->done && s->cancelled && s->err == RDMACH_ERR_CANCELED);
    rch_dev_req_free(s);
}

Test(cancel, a_queued_send_is_cancelled_locally_and_never_sent)
{
    up();
    uint32_t v = 7;
    mock_cfg.out_capacity = mock_out_count();   /* the channel is full: the send queues */
    struct rch_dev_req *s;
    cr_assert_eq(rch_dev_isend(&v, 4, 1, 0, 3, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_not_null(s);
    cr_assert_eq(rch_dev_cancel(s), RDMACH_OK);
    cr_assert(s->done && s->cancelled);
    mock_cfg.out_capacity = MOCK_QUEUE;
    rch_dev_progress();
    cr_assert_eq(mock_out_count(), 0, "a cancelled queued send left");
    cr_assert_eq(rch_dev_send_seq(1), 0, "nothing was numbered");
    rch_dev_req_free(s);
}

Test(cancel, the_peer_failing_while_the_answer_is_outstanding_completes_with_peer_dead)
{
    cr_redirect_stderr();
    up();
    uint32_t v = 7;
    struct rch_dev_req *s, *c;
    cr_assert_eq(rch_dev_isend(&v, 4, 1, 0, 3, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_eq(rch_dev_cancel_sent(1, rch_dev_send_seq(1), &c), RDMACH_OK);
    cr_assert_eq(c->done, 0);
    mock_fail_peer(1);
    rch_dev_progress();
    cr_assert(c->done);
    cr_assert_eq(c->err, RDMACH_ERR_PEER_DEAD);
    cr_assert_eq(c->cancelled, 0);
    rch_dev_req_free(c);
}

Test(cancel, the_receiver_drops_an_unexpected_message_and_answers_yes)
{
    up();
    uint32_t a = 1, b = 2, in = 0;
    inject_eager(1, 0, 1, 5, &a, 4, 0, 0);   /* message 1 */
    inject_eager(1, 0, 1, 5, &b, 4, 0, 0);   /* message 2 */
    rch_dev_progress();
    inject_cancel_req(1, 0xabc, 1);
    rch_dev_progress();
    struct mock_pkt p;
    pop_op(&p, RCH_PKT_CANCEL_RSP);
    struct rch_pkt_cancel_rsp r;
    memcpy(&r, p.data, sizeof(r));
    cr_assert_eq(r.sreq, 0xabc);
    cr_assert_eq(r.seq, 1);
    cr_assert_eq(r.cancelled, 1);
    /* Message 1 is gone: the receive gets message 2. */
    struct rch_dev_req *rr;
    cr_assert_eq(rch_dev_irecv(&in, 4, 1, 5, 0, &rr), RDMACH_OK);
    cr_assert(rr->done);
    cr_assert_eq(in, 2, "a withdrawn message was delivered");
    rch_dev_req_free(rr);
    /* Message 2 has matched: a cancel of it is refused. */
    inject_cancel_req(1, 0xabd, 2);
    rch_dev_progress();
    pop_op(&p, RCH_PKT_CANCEL_RSP);
    memcpy(&r, p.data, sizeof(r));
    cr_assert_eq(r.seq, 2);
    cr_assert_eq(r.cancelled, 0);
}

Test(cancel, bad_cancel_packets_are_dropped)
{
    cr_redirect_stderr();
    up();
    struct rch_pkt_base b;
    const char *why;
    struct rch_pkt_cancel_req q = { .b = rch_pkt_base_make(RCH_PKT_CANCEL_REQ, 0), .sreq = 1, .seq = 0 };
    cr_assert_eq(rch_pkt_check(&q, sizeof(q), &b, &why), RDMACH_ERR_PROTOCOL);
    struct rch_pkt_cancel_rsp r = { .b = rch_pkt_base_make(RCH_PKT_CANCEL_RSP, 0), .sreq = 1, .seq = 1,
                                    .cancelled = 2 };
    cr_assert_eq(rch_pkt_check(&r, sizeof(r), &b, &why), RDMACH_ERR_PROTOCOL);
    cr_assert_eq(rch_pkt_check(&r, sizeof(r) - 4, &b, &why), RDMACH_ERR_PROTOCOL);
    /* Valid packets that name nothing: counted as dropped, no answer. */
    uint64_t before = rch_dev.dropped;
    inject_cancel_rsp(1, 12345, 1, 1);          /* no cancel waiting */
    inject_cancel_req(1, 1, 9);                 /* a message that has not arrived */
    rch_dev_progress();
    cr_assert_eq(rch_dev.dropped, before + 2);
    cr_assert_eq(mock_out_count(), 0);
}
