/* The device's counters for tools (src/device/stats.h) over its loopback
 * (a singleton sending to itself): messages and bytes per channel, the
 * unexpected queue's level and high-water mark with the arrival hook, a
 * rendezvous counted once under one protocol. */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "base/tunables.h"
#include "boot/boot.h"
#include "device/dev_impl.h"
#include "device/stats.h"
#include "self_init.h"

static void teardown(void)
{
    rch_dev_unexp_hook = NULL;
    self_fini();
}

TestSuite(stats, .init = self_init, .fini = teardown);

static int hook_calls, hook_tags[8];
static uint64_t hook_sizes[8];

static void on_unexp(int peer, int src, int tag, uint32_t ctx, uint64_t size)
{
    cr_assert_eq(peer, 0);
    cr_assert_eq(src, 0);
    cr_assert_eq(ctx, 9);
    if (hook_calls < 8) {
        hook_tags[hook_calls] = tag;
        hook_sizes[hook_calls] = size;
    }
    hook_calls++;
}

Test(stats, self_messages_bytes_and_unexpected_queue)
{
    enum { N = 5 };
    char buf[64] = { 0 };
    struct rch_dev_chan_stat c0, c1;
    rch_dev_stats_chan("self", &c0);
    cr_assert_eq(rch_dev_stats_unexp_len(), 0);
    rch_dev_unexp_hook = on_unexp;
    uint64_t bytes = 0;
    for (int k = 0; k < N; k++) {
        struct rch_dev_req *s = NULL;
        cr_assert_eq(rch_dev_isend(buf, (size_t)(k + 1) * 10, 0, 0, 100 + k, 9, RCH_DEV_SEND_STD, &s), RDMACH_OK);
        if (s) {
            cr_assert_eq(rch_dev_wait(s), RDMACH_OK);
            rch_dev_req_free(s);
        }
        bytes += (uint64_t)(k + 1) * 10;
    }
    rch_dev_stats_chan("self", &c1);
    cr_assert_eq(c1.msgs_sent - c0.msgs_sent, N);
    cr_assert_eq(c1.bytes_sent - c0.bytes_sent, bytes);
    cr_assert_eq(c1.msgs_recv - c0.msgs_recv, N, "every self message arrived at once");
    cr_assert_eq(c1.bytes_recv - c0.bytes_recv, bytes);
    cr_assert_eq(c1.peers, 1);
    cr_assert_eq(rch_dev_stats_unexp_len(), N);
    cr_assert_eq(rch_dev_stat.unexp_hwm, N);
    cr_assert_eq(rch_dev_stat.unexp_arrived, N);
    cr_assert_eq(hook_calls, N);
    for (int k = 0; k < N; k++) {
        cr_assert_eq(hook_tags[k], 100 + k);
        cr_assert_eq(hook_sizes[k], (uint64_t)(k + 1) * 10);
    }
    for (int k = N - 1; k >= 0; k--) {
        struct rch_dev_req *r;
        cr_assert_eq(rch_dev_irecv(buf, sizeof(buf), 0, 100 + k, 9, &r), RDMACH_OK);
        cr_assert_eq(rch_dev_wait(r), RDMACH_OK);
        rch_dev_req_free(r);
        cr_assert_eq(rch_dev_stats_unexp_len(), (size_t)k);
    }
    cr_assert_eq(rch_dev_stat.unexp_hwm, N, "the high-water mark stays");
    struct rch_dev_chan_stat none;
    rch_dev_stats_chan("shm", &none);
    cr_assert_eq(none.peers + none.msgs_sent, 0, "a singleton has no shm peer");
}

Test(stats, a_rendezvous_is_counted_once)
{
    size_t n = 1 << 20;
    char *out = calloc(1, n), *in = calloc(1, n);
    uint64_t before = rch_dev_stat.rndv_get + rch_dev_stat.rndv_put + rch_dev_stat.rndv_pipeline;
    struct rch_dev_req *s = NULL, *r;
    cr_assert_eq(rch_dev_irecv(in, n, 0, 1, 9, &r), RDMACH_OK);
    cr_assert_eq(rch_dev_isend(out, n, 0, 0, 1, 9, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_eq(rch_dev_wait(r), RDMACH_OK);
    if (s) {
        cr_assert_eq(rch_dev_wait(s), RDMACH_OK);
        rch_dev_req_free(s);
    }
    rch_dev_req_free(r);
    uint64_t after = rch_dev_stat.rndv_get + rch_dev_stat.rndv_put + rch_dev_stat.rndv_pipeline;
    cr_assert_eq(after - before, 1);
    free(out);
    free(in);
}
