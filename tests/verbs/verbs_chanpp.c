/*
 * verbs_chanpp: ping-pong at the channel level (the network channel alone,
 * no device or MPI above it), to tell the channel's and provider's share of
 * the MPI latency from the layers above (tests/verbs/measure-rdmach prints
 * it next to verbs_perf's). 2 ranks on 2 (pretend) nodes under rdmachrun;
 * rank 0 sends a packet of BYTES, rank 1 returns it; both poll progress in a
 * tight loop. Each round trip is timed; one-way = round trip / 2.
 *
 * Usage: verbs_chanpp <transport> [bytes iters]
 * Prints "MEASURE <transport> rdmach_chan_lat <bytes> lat_min|lat_typical|lat_avg <us> us".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "rdma/channel.h"

#define WARMUP 200
#define DEADLINE 60.0

static const struct rch_rdma_ops *ops = &rch_rdma_verbs_ops;
static struct rch_rdma_chan *ch;
static int me;
static volatile unsigned long arrived;
static unsigned char payload[4096];
static int failed;

static void on_recv(void *ctx, int peer, const void *pkt, size_t len)
{
    if (len > sizeof(payload) || (len && ((const unsigned char *)pkt)[0] != (unsigned char)(arrived + 1)))
        failed = 1;
    arrived++;
}

static void on_rma_done(void *ctx, void *op, rdmach_status_t st)
{
}

static void on_peer_failed(void *ctx, int peer, rdmach_status_t st)
{
    failed = 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int send_one(int peer, size_t bytes, unsigned long seq)
{
    payload[0] = (unsigned char)seq;
    struct iovec iov = { payload, bytes };
    double t0 = rch_base_wtime();
    for (;;) {
        rdmach_status_t st = ops->send(ch, peer, &iov, 1);
        if (st == RDMACH_OK)
            return 0;
        if (st != RDMACH_AGAIN || rch_base_wtime() - t0 > DEADLINE) {
            fprintf(stderr, "verbs_chanpp: rank %d: send: %s\n", me, rdmach_last_error());
            return -1;
        }
        ops->progress(ch, 64);
    }
}

static int wait_for(unsigned long n)
{
    double t0 = rch_base_wtime();
    while (arrived < n) {
        ops->progress(ch, 64);
        if (failed || rch_base_wtime() - t0 > DEADLINE) {
            fprintf(stderr, "verbs_chanpp: rank %d: %s waiting for packet %lu\n", me,
                    failed ? "failure" : "timeout", n);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *t = argc > 1 ? argv[1] : "?";
    size_t bytes = argc > 3 ? (size_t)atol(argv[2]) : 8;
    long iters = argc > 3 ? atol(argv[3]) : 5000;
    if (bytes < 1 || bytes > sizeof(payload) || iters < 1) {
        fprintf(stderr, "usage: verbs_chanpp <transport> [bytes 1..%zu iters]\n", sizeof(payload));
        return 2;
    }
    rdmach_status_t st = rch_base_tun_load();
    if (st == RDMACH_OK)
        st = rch_boot_init();
    if (st != RDMACH_OK || rch_boot.size != 2) {
        fprintf(stderr, "verbs_chanpp: start-up (2 ranks): %s\n", rdmach_last_error());
        return 1;
    }
    me = rch_boot.rank;
    rch_log_set_rank(me);
    int peer = 1 - me;
    struct rch_rdma_open_args args = {
        .boot = &rch_boot, .peers = &peer, .npeers = 1,
        .up = { .ctx = NULL, .recv = on_recv, .rma_done = on_rma_done, .peer_failed = on_peer_failed },
    };
    if ((st = ops->query()) != RDMACH_OK || (st = ops->open(&args, &ch)) != RDMACH_OK ||
        (st = ops->publish(ch)) != RDMACH_OK || (st = rch_boot_fence()) != RDMACH_OK) {
        fprintf(stderr, "verbs_chanpp: rank %d: channel start-up: %s\n", me, rdmach_last_error());
        return 1;
    }
    double *rtt = malloc(sizeof(double) * (size_t)iters);
    unsigned long seq = 0;
    int rc = 0;
    for (long i = -WARMUP; i < iters && rc == 0; i++) {
        double t0 = rch_base_wtime();
        if (me == 0) {
            rc = send_one(peer, bytes, ++seq);
            if (rc == 0)
                rc = wait_for(seq);
        } else {
            rc = wait_for(++seq);
            if (rc == 0)
                rc = send_one(peer, bytes, seq);
        }
        if (i >= 0)
            rtt[i] = rch_base_wtime() - t0;
    }
    if (rc == 0 && failed)
        rc = -1;
    if (rc == 0 && me == 0) {
        qsort(rtt, (size_t)iters, sizeof(double), cmp_double);
        double sum = 0;
        for (long i = 0; i < iters; i++)
            sum += rtt[i];
        printf("MEASURE %s rdmach_chan_lat %zu lat_min %.2f us\n", t, bytes, rtt[0] / 2 * 1e6);
        printf("MEASURE %s rdmach_chan_lat %zu lat_typical %.2f us\n", t, bytes, rtt[iters / 2] / 2 * 1e6);
        printf("MEASURE %s rdmach_chan_lat %zu lat_avg %.2f us\n", t, bytes, sum / (double)iters / 2 * 1e6);
    }
    rch_boot_fence();
    ops->close(ch);
    rch_boot_finalize();
    free(rtt);
    return rc == 0 ? 0 : 1;
}
