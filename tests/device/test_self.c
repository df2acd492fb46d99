/* Sends to self through the device's loopback, on the real init path
 * (rch_dev_init as a singleton): the same matching and protocols as a peer. */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "base/tunables.h"
#include "boot/boot.h"
#include "device/dev_impl.h"
#include "self_init.h"

TestSuite(self, .init = self_init, .fini = self_fini);

#define BIG (256 * 1024)

static unsigned char *pattern(size_t n, int seed)
{
    unsigned char *p = malloc(n);
    cr_assert_not_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31 + (size_t)seed);
    return p;
}

static void roundtrip(size_t n, int recv_first, int mode)
{
    unsigned char *out = pattern(n, (int)n), *in = calloc(1, n + 1);
    struct rch_dev_req *s = NULL, *r = NULL;
    if (recv_first)
        cr_assert_eq(rch_dev_irecv(in, n, 0, 77, 5, &r), RDMACH_OK);
    cr_assert_eq(rch_dev_isend(out, n, 0, 0, 77, 5, mode, &s), RDMACH_OK);
    if (!recv_first)
        cr_assert_eq(rch_dev_irecv(in, n, 0, 77, 5, &r), RDMACH_OK);
    cr_assert_eq(rch_dev_wait(r), RDMACH_OK);
    cr_assert_eq(rch_dev_wait(s), RDMACH_OK);
    cr_assert_eq(r->err, RDMACH_OK, "%zu bytes: %s", n, rdmach_strerror(r->err));
    cr_assert_eq(r->bytes, n);
    cr_assert_eq(r->msg_bytes, n);
    cr_assert_eq(r->source, 0);
    cr_assert_eq(r->tag, 77);
    cr_assert(n == 0 || memcmp(in, out, n) == 0, "%zu bytes: data differ", n);
    if (s) {
        cr_assert_eq(s->err, RDMACH_OK);
        rch_dev_req_free(s);
    }
    rch_dev_req_free(r);
    free(out);
    free(in);
}

Test(self, eager_and_rendezvous_sizes_in_both_orders)
{
    size_t sizes[] = { 0, 1, 8, 100, 4000, 4096, 5000, 65536, BIG };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        roundtrip(sizes[i], 1, RCH_DEV_SEND_STD);
        roundtrip(sizes[i], 0, RCH_DEV_SEND_STD);
    }
}

Test(self, small_send_with_the_receive_posted_completes_at_once)
{
    uint64_t v = 42, in = 0;
    struct rch_dev_req *r, *s;
    cr_assert_eq(rch_dev_irecv(&in, sizeof(in), RCH_DEV_ANY_SOURCE, RCH_DEV_ANY_TAG, 0, &r), RDMACH_OK);
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 0, 0, 3, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_null(s);
    cr_assert(r->done);
    cr_assert_eq(in, 42);
    cr_assert_eq(r->tag, 3);
    rch_dev_req_free(r);
}

Test(self, synchronous_send_completes_only_when_matched)
{
    uint32_t v = 7, in = 0;
    struct rch_dev_req *s, *r;
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 0, 0, 1, 0, RCH_DEV_SEND_SYNC, &s), RDMACH_OK);
    cr_assert_not_null(s);
    rch_dev_progress();
    cr_assert_eq(s->done, 0, "a synchronous send must wait for the receive");
    cr_assert_eq(rch_dev_irecv(&in, sizeof(in), 0, 1, 0, &r), RDMACH_OK);
    cr_assert(r->done);
    cr_assert(s->done, "matching must complete the synchronous send");
    cr_assert_eq(in, 7);
    rch_dev_req_free(s);
    rch_dev_req_free(r);
    roundtrip(BIG, 0, RCH_DEV_SEND_SYNC);
    roundtrip(16, 1, RCH_DEV_SEND_SYNC);
}

Test(self, large_unexpected_send_waits_without_a_copy)
{
    unsigned char *out = pattern(BIG, 1), *in = calloc(1, BIG);
    struct rch_dev_req *s, *r;
    cr_assert_eq(rch_dev_isend(out, BIG, 0, 0, 1, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_not_null(s);
    cr_assert_eq(s->done, 0, "a rendezvous send completes when the receiver takes the data");
    cr_assert_eq(rch_dev_irecv(in, BIG, 0, 1, 0, &r), RDMACH_OK);
    cr_assert(r->done && s->done);
    cr_assert_eq(memcmp(in, out, BIG), 0);
    rch_dev_req_free(s);
    rch_dev_req_free(r);
    free(out);
    free(in);
}

Test(self, truncation_delivers_the_part_that_fits)
{
    unsigned char out[300], in[301];
    for (int i = 0; i < 300; i++)
        out[i] = (unsigned char)i;
    memset(in, 0xEE, sizeof(in));
    struct rch_dev_req *s, *r;
    cr_assert_eq(rch_dev_isend(out, 300, 0, 0, 1, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_eq(rch_dev_irecv(in, 100, 0, 1, 0, &r), RDMACH_OK);
    cr_assert(r->done);
    cr_assert_eq(r->err, RDMACH_ERR_TRUNCATE);
    cr_assert_eq(r->bytes, 100);
    cr_assert_eq(r->msg_bytes, 300);
    cr_assert_eq(memcmp(in, out, 100), 0);
    cr_assert_eq(in[100], 0xEE);
    rch_dev_req_free(r);

    unsigned char *big = pattern(BIG, 2), *half = calloc(1, BIG / 2 + 1);
    cr_assert_eq(rch_dev_irecv(half, BIG / 2, 0, 2, 0, &r), RDMACH_OK);
    cr_assert_eq(rch_dev_isend(big, BIG, 0, 0, 2, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    rch_dev_wait(r);
    rch_dev_wait(s);
    cr_assert_eq(r->err, RDMACH_ERR_TRUNCATE);
    cr_assert_eq(r->bytes, BIG / 2);
    cr_assert_eq(r->msg_bytes, BIG);
    cr_assert_eq(memcmp(half, big, BIG / 2), 0);
    cr_assert_eq(half[BIG / 2], 0);
    cr_assert_eq(s->err, RDMACH_OK);
    rch_dev_req_free(r);
    rch_dev_req_free(s);
    free(big);
    free(half);
}

Test(self, order_is_kept_per_tag_and_wildcards_take_the_earliest)
{
    int vals[6] = { 10, 11, 12, 13, 14, 15 };
    int tags[6] = { 1, 2, 1, 2, 1, 3 };
    struct rch_dev_req *s;
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(rch_dev_isend(&vals[i], sizeof(int), 0, 0, tags[i], 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
        cr_assert_null(s);
    }
    int want[6][2] = { { 2, 11 }, { 1, 10 }, { RCH_DEV_ANY_TAG, 12 }, { 2, 13 }, { 3, 15 }, { RCH_DEV_ANY_TAG, 14 } };
    for (int i = 0; i < 6; i++) {
        int in = -1;
        struct rch_dev_req *r;
        cr_assert_eq(rch_dev_irecv(&in, sizeof(in), i % 2 ? RCH_DEV_ANY_SOURCE : 0, want[i][0], 0, &r), RDMACH_OK);
        cr_assert(r->done);
        cr_assert_eq(in, want[i][1], "receive %d got %d", i, in);
        rch_dev_req_free(r);
    }
    int found = 1;
    cr_assert_eq(rch_dev_iprobe(RCH_DEV_ANY_SOURCE, RCH_DEV_ANY_TAG, 0, &found, NULL, NULL, NULL), RDMACH_OK);
    cr_assert_eq(found, 0);
}

Test(self, contexts_do_not_match_each_other)
{
    int a = 1, b = 2, in = 0;
    struct rch_dev_req *s, *r;
    cr_assert_eq(rch_dev_isend(&a, sizeof(a), 0, 0, 0, 10, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_eq(rch_dev_irecv(&in, sizeof(in), RCH_DEV_ANY_SOURCE, RCH_DEV_ANY_TAG, 11, &r), RDMACH_OK);
    cr_assert_eq(r->done, 0);
    cr_assert_eq(rch_dev_isend(&b, sizeof(b), 0, 0, 0, 11, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert(r->done);
    cr_assert_eq(in, 2);
    rch_dev_req_free(r);
    cr_assert_eq(rch_dev_irecv(&in, sizeof(in), 0, 0, 10, &r), RDMACH_OK);
    cr_assert_eq(in, 1);
    rch_dev_req_free(r);
}

Test(self, probe_then_receive)
{
    char msg[] = "hello";
    struct rch_dev_req *s, *r;
    int found = 0, src = -1, tag = -1;
    size_t bytes = 0;
    cr_assert_eq(rch_dev_iprobe(0, 9, 0, &found, &src, &tag, &bytes), RDMACH_OK);
    cr_assert_eq(found, 0);
    cr_assert_eq(rch_dev_isend(msg, sizeof(msg), 0, 0, 9, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_eq(rch_dev_iprobe(0, RCH_DEV_ANY_TAG, 0, &found, &src, &tag, &bytes), RDMACH_OK);
    cr_assert_eq(found, 1);
    cr_assert_eq(src, 0);
    cr_assert_eq(tag, 9);
    cr_assert_eq(bytes, sizeof(msg));
    cr_assert_eq(rch_dev_iprobe(0, RCH_DEV_ANY_TAG, 0, &found, &src, &tag, &bytes), RDMACH_OK);
    cr_assert_eq(found, 1, "probe must not consume the message");
    char in[16];
    cr_assert_eq(rch_dev_irecv(in, sizeof(in), 0, 9, 0, &r), RDMACH_OK);
    cr_assert(r->done);
    cr_assert_str_eq(in, "hello");
    rch_dev_req_free(r);
}

Test(self, cancel_a_posted_receive)
{
    int in = 0, v = 5;
    struct rch_dev_req *r, *r2, *s;
    cr_assert_eq(rch_dev_irecv(&in, sizeof(in), 0, 4, 0, &r), RDMACH_OK);
    cr_assert_eq(rch_dev_cancel(r), RDMACH_OK);
    cr_assert(r->done);
    cr_assert_eq(r->cancelled, 1);
    cr_assert_eq(r->err, RDMACH_ERR_CANCELED);
    /* A message sent afterwards is not swallowed by the cancelled receive. */
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 0, 0, 4, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_eq(in, 0);
    cr_assert_eq(rch_dev_irecv(&in, sizeof(in), 0, 4, 0, &r2), RDMACH_OK);
    cr_assert(r2->done);
    cr_assert_eq(in, 5);
    /* Cancelling a matched receive changes nothing. */
    cr_assert_eq(rch_dev_cancel(r2), RDMACH_OK);
    cr_assert_eq(r2->cancelled, 0);
    cr_assert_eq(r2->err, RDMACH_OK);
    rch_dev_req_free(r);
    rch_dev_req_free(r2);
}

static int completions;
static void on_done(struct rch_dev_req *req)
{
    cr_assert_eq(req->done, 0, "on_complete runs before done is set");
    completions++;
}

Test(self, freed_requests_complete_and_are_reclaimed)
{
    int in = 0, v = 1;
    struct rch_dev_req *r, *s;
    completions = 0;
    cr_assert_eq(rch_dev_irecv(&in, sizeof(in), 0, 4, 0, &r), RDMACH_OK);
    r->on_complete = on_done;
    rch_dev_req_free(r);    /* detached */
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 0, 0, 4, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_eq(in, 1);
    cr_assert_eq(completions, 1);
    /* Many cycles must reuse the pool, not grow it. */
    uint32_t slabs = rch_dev.nslabs;
    for (int i = 0; i < 10000; i++) {
        cr_assert_eq(rch_dev_irecv(&in, sizeof(in), 0, 4, 0, &r), RDMACH_OK);
        rch_dev_req_free(r);
        cr_assert_eq(rch_dev_isend(&v, sizeof(v), 0, 0, 4, 0, RCH_DEV_SEND_SYNC, &s), RDMACH_OK);
        rch_dev_req_free(s);
    }
    cr_assert_eq(rch_dev.nslabs, slabs, "requests leak: %u slabs now", rch_dev.nslabs);
}

Test(self, generalized_requests)
{
    struct rch_dev_req *g = rch_dev_req_alloc(RCH_DEV_REQ_GREQ);
    cr_assert_not_null(g);
    cr_assert_eq(g->done, 0);
    g->err = RDMACH_ERR_OTHER;
    rch_dev_req_complete(g);
    cr_assert(g->done);
    cr_assert_eq(g->err, RDMACH_ERR_OTHER);
    cr_assert_eq(rch_dev_wait(g), RDMACH_OK);
    rch_dev_req_free(g);
}

Test(self, bad_arguments_are_errors_that_name_the_argument)
{
    struct rch_dev_req *r;
    int v = 0;
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 1, 0, 0, 0, 0, &r), RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "dest 1") != NULL, "%s", rdmach_last_error());
    cr_assert_eq(rch_dev_isend(NULL, 4, 0, 0, 0, 0, 0, &r), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_dev_isend(&v, 4, 0, 0, 0, 0, 0, NULL), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_dev_irecv(&v, 4, -7, 0, 0, &r), RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "src -7") != NULL, "%s", rdmach_last_error());
    cr_assert_eq(rch_dev_irecv(NULL, 4, 0, 0, 0, &r), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_dev_cancel(NULL), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_dev_iprobe(0, 0, 0, NULL, NULL, NULL, NULL), RDMACH_ERR_INVALID_ARG);
}
