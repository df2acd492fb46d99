/*
 * The sock channel (rdma/sock): frames arrive whole, in order and intact
 * when the sender writes far more than the socket holds while the receiver
 * is not reading (send() then keeps what the socket did not take, and the
 * caller reuses its buffer at once, until the output is full and send()
 * answers AGAIN), and an end with BYE is no failure
 * while an end without it is. Two channel instances in one process, joined
 * by a socketpair with small buffers.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include "base/base.h"
#include "rdma/sock/sock.h"

#define NFRAMES 300

struct side {
    struct rch_rdma_chan *ch;
    int nrecv, bad, failed;
    size_t bytes;
};

static size_t frame_len(int k)
{
    return k % 3 == 0 ? RCH_SOCK_MAX_MSG : (size_t)(k * 997) % RCH_SOCK_MAX_MSG + 1;
}

static unsigned char pattern(int k, size_t i)
{
    return (unsigned char)(k * 31 + i * 7 + (i >> 8));
}

static void on_recv(void *ctx, int peer, const void *pkt, size_t len)
{
    struct side *s = ctx;
    const unsigned char *p = pkt;
    int k = s->nrecv++;
    if (peer != 0 || len != frame_len(k)) {
        s->bad++;
        return;
    }
    for (size_t i = 0; i < len; i++)
        if (p[i] != pattern(k, i)) {
            s->bad++;
            return;
        }
    s->bytes += len;
}

static void on_failed(void *ctx, int peer, rdmach_status_t st)
{
    ((struct side *)ctx)->failed++;
}

static void open_side(struct side *s, int fd)
{
    struct rch_rdma_open_args a = { .up = { .ctx = s, .recv = on_recv, .peer_failed = on_failed } };
    cr_assert_eq(rch_rdma_sock_ops.open(&a, &s->ch), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_rdma_sock_attach(s->ch, 0, fd), RDMACH_OK, "%s", rdmach_last_error());
}

static void pair(struct side *a, struct side *b)
{
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int small = 16384;   /* a few frames fill it */
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    memset(a, 0, sizeof(*a));
    memset(b, 0, sizeof(*b));
    open_side(a, sv[0]);
    open_side(b, sv[1]);
}

Test(sock_chan, frames_whole_in_order_when_the_socket_is_full)
{
    struct side a, b;
    pair(&a, &b);
    static unsigned char buf[RCH_SOCK_MAX_MSG];
    size_t total = 0;
    int again = 0;
    for (int k = 0; k < NFRAMES; k++) {
        size_t len = frame_len(k), cut = len / 3;
        for (size_t i = 0; i < len; i++)
            buf[i] = pattern(k, i);
        struct iovec iov[2] = { { buf, cut }, { buf + cut, len - cut } };
        rdmach_status_t st;
        /* AGAIN: the output is full; the receiver reads only then */
        while ((st = rch_rdma_sock_ops.send(a.ch, 0, iov, 2)) == RDMACH_AGAIN) {
            again++;
            rch_rdma_sock_ops.progress(b.ch, 64);
            rch_rdma_sock_ops.progress(a.ch, 64);
        }
        cr_assert_eq(st, RDMACH_OK, "frame %d: %s", k, rdmach_last_error());
        memset(buf, 0xee, len);   /* the caller's buffer is its own again */
        total += len;
    }
    cr_assert_gt(again, 0, "%zu bytes were taken without AGAIN: the output is not bounded", total);
    for (int pass = 0; b.nrecv < NFRAMES && pass < 10000000; pass++) {
        rch_rdma_sock_ops.progress(a.ch, 64);
        rch_rdma_sock_ops.progress(b.ch, 64);
    }
    cr_assert_eq(b.nrecv, NFRAMES, "received %d frames of %d", b.nrecv, NFRAMES);
    cr_assert_eq(b.bad, 0, "%d frames with a wrong length or content", b.bad);
    cr_assert_eq(b.bytes, total);
    cr_assert_eq(a.failed + b.failed, 0);
    rch_rdma_sock_ops.close(a.ch);
    rch_rdma_sock_ops.close(b.ch);
}

Test(sock_chan, bye_ends_quietly_a_bare_end_is_a_failure)
{
    struct side a, b;
    pair(&a, &b);
    rch_rdma_sock_detach(a.ch, 0);   /* BYE, then the end */
    for (int pass = 0; pass < 1000; pass++)
        rch_rdma_sock_ops.progress(b.ch, 64);
    cr_assert_eq(b.failed, 0, "an orderly end was taken for a failure");
    struct iovec iov = { "x", 1 };
    cr_assert_neq(rch_rdma_sock_ops.send(a.ch, 0, &iov, 1), RDMACH_OK, "a send to a detached peer");
    rch_rdma_sock_ops.close(a.ch);
    rch_rdma_sock_ops.close(b.ch);

    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    memset(&b, 0, sizeof(b));
    open_side(&b, sv[1]);
    close(sv[0]);   /* gone without a word */
    for (int pass = 0; pass < 1000 && !b.failed; pass++)
        rch_rdma_sock_ops.progress(b.ch, 64);
    cr_assert_eq(b.failed, 1, "a bare end was not reported");
    rch_rdma_sock_ops.close(b.ch);
}
