/* The wire format's validation: rch_pkt_check alone, then malformed and
 * nonsensical packets thrown at a running device (dropped, reported with the
 * peer's rank, never a crash, and the next good packet still works). */
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include "base/log.h"
#include "dev_test.h"

static rdmach_status_t check(const void *pkt, size_t len, const char **why)
{
    struct rch_pkt_base b;
    return rch_pkt_check(pkt, len, &b, why);
}

static struct rch_pkt_eager good_eager(uint32_t len)
{
    struct rch_pkt_eager e;
    memset(&e, 0, sizeof(e));
    e.b = rch_pkt_base_make(RCH_PKT_EAGER, 0);
    e.len = len;
    return e;
}

Test(pkt_check, accepts_every_well_formed_opcode)
{
    const char *why;
    unsigned char buf[256];
    struct rch_pkt_eager e = good_eager(8);
    memcpy(buf, &e, sizeof(e));
    cr_assert_eq(check(buf, sizeof(e) + 8, &why), RDMACH_OK, "%s", why);
    struct rch_pkt_eager_sync es;
    memset(&es, 0, sizeof(es));
    es.e = good_eager(0);
    es.e.b.flags = RCH_PKT_F_SYNC;
    cr_assert_eq(check(&es, sizeof(es), &why), RDMACH_OK, "%s", why);
    struct rch_pkt_rndv_req q;
    memset(&q, 0, sizeof(q));
    q.b = rch_pkt_base_make(RCH_PKT_RNDV_REQ, RCH_PKT_F_RKEY);
    q.rkey.len = RCH_RDMA_RKEY_MAX;
    cr_assert_eq(check(&q, sizeof(q), &why), RDMACH_OK, "%s", why);
    struct rch_pkt_rndv_rsp s;
    memset(&s, 0, sizeof(s));
    s.b = rch_pkt_base_make(RCH_PKT_RNDV_RSP, 0);
    cr_assert_eq(check(&s, sizeof(s), &why), RDMACH_OK, "%s", why);
    struct rch_pkt_rndv_data d;
    memset(&d, 0, sizeof(d));
    d.b = rch_pkt_base_make(RCH_PKT_RNDV_DATA, 0);
    d.len = 16;
    memcpy(buf, &d, sizeof(d));
    cr_assert_eq(check(buf, sizeof(d) + 16, &why), RDMACH_OK, "%s", why);
    struct rch_pkt_rndv_fin f;
    memset(&f, 0, sizeof(f));
    f.b = rch_pkt_base_make(RCH_PKT_RNDV_FIN, 0);
    cr_assert_eq(check(&f, sizeof(f), &why), RDMACH_OK, "%s", why);
    struct rch_pkt_sync_ack a = { .b = rch_pkt_base_make(RCH_PKT_SYNC_ACK, 0), .sreq = 1 };
    cr_assert_eq(check(&a, sizeof(a), &why), RDMACH_OK, "%s", why);
    struct rch_pkt_base c = rch_pkt_base_make(RCH_PKT_CRDT, 0), n = rch_pkt_base_make(RCH_PKT_NOOP, 0);
    cr_assert_eq(check(&c, sizeof(c), &why), RDMACH_OK, "%s", why);
    cr_assert_eq(check(&n, sizeof(n), &why), RDMACH_OK, "%s", why);
}

Test(pkt_check, rejects_short_packets_and_null)
{
    const char *why;
    struct rch_pkt_eager e = good_eager(0);
    cr_assert_eq(check(NULL, 0, &why), RDMACH_ERR_PROTOCOL);
    cr_assert_eq(check(&e, 7, &why), RDMACH_ERR_PROTOCOL);
    cr_assert_eq(check(&e, sizeof(e) - 1, &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "shorter") != NULL, "why: %s", why);
}

Test(pkt_check, rejects_a_wrong_version)
{
    const char *why;
    struct rch_pkt_eager e = good_eager(0);
    e.b.ver = RCH_PKT_VERSION + 1;
    cr_assert_eq(check(&e, sizeof(e), &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "version") != NULL, "why: %s", why);
}

Test(pkt_check, rejects_unknown_opcodes)
{
    const char *why;
    struct rch_pkt_base b = rch_pkt_base_make(RCH_PKT_OP_MAX, 0);
    cr_assert_eq(check(&b, sizeof(b), &why), RDMACH_ERR_PROTOCOL);
    b.op = 255;
    cr_assert_eq(check(&b, sizeof(b), &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "opcode") != NULL, "why: %s", why);
}

Test(pkt_check, rejects_inconsistent_lengths)
{
    const char *why;
    unsigned char buf[256] = { 0 };
    struct rch_pkt_eager e = good_eager(100);       /* says 100, carries 8 */
    memcpy(buf, &e, sizeof(e));
    cr_assert_eq(check(buf, sizeof(e) + 8, &why), RDMACH_ERR_PROTOCOL);
    e = good_eager(0);
    e.b.flags = RCH_PKT_F_SYNC;                       /* sync flag without the sync header */
    cr_assert_eq(check(&e, sizeof(e), &why), RDMACH_ERR_PROTOCOL);
    e = good_eager(0);
    e.src = -5;
    cr_assert_eq(check(&e, sizeof(e), &why), RDMACH_ERR_PROTOCOL);
    struct rch_pkt_rndv_req q;
    memset(&q, 0, sizeof(q));
    q.b = rch_pkt_base_make(RCH_PKT_RNDV_REQ, RCH_PKT_F_RKEY);
    q.rkey.len = RCH_RDMA_RKEY_MAX + 1;
    cr_assert_eq(check(&q, sizeof(q), &why), RDMACH_ERR_PROTOCOL);
    q.rkey.len = 0;
    cr_assert_eq(check(&q, sizeof(q) - 4, &why), RDMACH_ERR_PROTOCOL);
    struct rch_pkt_rndv_data d;
    memset(&d, 0, sizeof(d));
    d.b = rch_pkt_base_make(RCH_PKT_RNDV_DATA, 0);
    d.len = 4;
    d.offset = UINT64_MAX - 1;
    memcpy(buf, &d, sizeof(d));
    cr_assert_eq(check(buf, sizeof(d) + 4, &why), RDMACH_ERR_PROTOCOL);
    struct rch_pkt_base c = rch_pkt_base_make(RCH_PKT_CRDT, 0);
    memcpy(buf, &c, sizeof(c));
    cr_assert_eq(check(buf, sizeof(c) + 1, &why), RDMACH_ERR_PROTOCOL);
}

/* ---- through the device ---- */

static void teardown(void)
{
    dev_stop();
}

TestSuite(pkt_drop, .fini = teardown);

Test(pkt_drop, malformed_and_nonsense_packets_are_dropped_and_reported_with_the_rank)
{
    cr_redirect_stderr();
    mock_job_up(2);
    dev_start(mock_select);
    unsigned char buf[128] = { 0 };
    struct rch_pkt_eager e = good_eager(0);
    int n = 0;

    e.b.ver = 9;                                              /* bad version */
    mock_inject(1, &e, sizeof(e)), n++;
    e = good_eager(0);
    e.b.op = 200;                                             /* bad opcode */
    mock_inject(1, &e, sizeof(e)), n++;
    mock_inject(1, buf, 3), n++;                              /* too short */
    e = good_eager(64);                                       /* length mismatch */
    memcpy(buf, &e, sizeof(e));
    mock_inject(1, buf, sizeof(e) + 8), n++;
    struct rch_pkt_sync_ack a = { .b = rch_pkt_base_make(RCH_PKT_SYNC_ACK, 0), .sreq = 0x12345678ull };
    mock_inject(1, &a, sizeof(a)), n++;                       /* ack for no request */
    inject_fin(1, 0xdeadbeefcafeull, 10, 0), n++;             /* FIN for no request */
    struct rch_pkt_rndv_data d;
    memset(&d, 0, sizeof(d));
    d.b = rch_pkt_base_make(RCH_PKT_RNDV_DATA, 0);
    d.rreq = 1ull << 32;                                      /* index 0, generation 1: not a receive */
    mock_inject(1, &d, sizeof(d)), n++;
    struct rch_pkt_rndv_rsp s;
    memset(&s, 0, sizeof(s));
    s.b = rch_pkt_base_make(RCH_PKT_RNDV_RSP, 0);
    s.sreq = 77;
    mock_inject(1, &s, sizeof(s)), n++;                       /* RSP for no send */
    e = good_eager(0);
    mock_inject(5, &e, sizeof(e)), n++;                       /* a rank outside the job */
    mock_inject(0, &e, sizeof(e)), n++;                       /* self, on a channel that does not serve it */

    for (int i = 0; i < 10; i++)
        rch_dev_progress();
    cr_assert_eq(rch_dev.dropped, (uint64_t)n, "dropped %llu of %d bad packets",
                 (unsigned long long)rch_dev.dropped, n);

    /* The device still works: a good message is received. */
    uint32_t v = 0x600d, in = 0;
    struct rch_dev_req *r;
    cr_assert_eq(rch_dev_irecv(&in, sizeof(in), 1, 4, 0, &r), RDMACH_OK);
    inject_eager(1, 0, 1, 4, &v, sizeof(v), 0, 0);
    rch_dev_wait(r);
    cr_assert_eq(r->err, RDMACH_OK);
    cr_assert_eq(in, v);
    rch_dev_req_free(r);
    cr_assert_eq(rch_dev.dropped, (uint64_t)n);

    fflush(stderr);
    FILE *f = cr_get_redirected_stderr();
    char text[8192];
    size_t got = fread(text, 1, sizeof(text) - 1, f);
    text[got] = 0;
    cr_assert(strstr(text, "from rank 1") != NULL, "warnings must name the peer:\n%s", text);
    cr_assert(strstr(text, "unknown wire version") != NULL, "%s", text);
    cr_assert(strstr(text, "from rank 5") != NULL, "%s", text);
}

Test(pkt_drop, a_flood_of_bad_packets_is_reported_a_bounded_number_of_times)
{
    cr_redirect_stderr();
    mock_job_up(2);
    dev_start(mock_select);
    struct rch_pkt_base b = rch_pkt_base_make(RCH_PKT_OP_MAX, 0);
    for (int i = 0; i < 500; i++)
        mock_inject(1, &b, sizeof(b));
    for (int i = 0; i < 20; i++)
        rch_dev_progress();
    cr_assert_eq(rch_dev.dropped, 500);
    fflush(stderr);
    FILE *f = cr_get_redirected_stderr();
    int lines = 0, c;
    while ((c = fgetc(f)) != EOF)
        lines += c == '\n';
    cr_assert_leq(lines, 12, "%d warning lines for one misbehaving peer", lines);
    cr_assert_geq(lines, 1);
}
