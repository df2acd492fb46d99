/* The mock channel (see mock_chan.h). */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "base/base.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "device/pkt.h"
#include "mock_chan.h"

struct mock_cfg mock_cfg;

struct rch_rdma_chan {
    struct rch_rdma_upcalls up;
    struct rch_rdma_caps caps;
    struct rch_rdma_mr mr;
};

static struct rch_rdma_chan the_chan;
static struct mock_pkt *outbox, *inbox;   /* rings of MOCK_QUEUE */
static int out_head, out_n, in_head, in_n;
static long sent_credited[MOCK_PEERS], returned[MOCK_PEERS], max_inflight[MOCK_PEERS], again_count;
static int fail_peer = -1;
static int gone_after[MOCK_PEERS], gone_asked[MOCK_PEERS];
static struct { void *op_ctx; int pending; } rma_q[64];
static int rma_n;

void mock_reset(void)
{
    if (!outbox)
        outbox = calloc(MOCK_QUEUE, sizeof(*outbox));
    if (!inbox)
        inbox = calloc(MOCK_QUEUE, sizeof(*inbox));
    cr_assert(outbox && inbox);
    out_head = out_n = in_head = in_n = 0;
    memset(sent_credited, 0, sizeof(sent_credited));
    memset(returned, 0, sizeof(returned));
    memset(max_inflight, 0, sizeof(max_inflight));
    again_count = 0;
    fail_peer = -1;
    memset(gone_after, 0, sizeof(gone_after));
    memset(gone_asked, 0, sizeof(gone_asked));
    rma_n = 0;
    mock_cfg = (struct mock_cfg){ .max_msg = 1024, .needs_credits = 0, .rma = 1, .rma_async = 0,
                                  .out_capacity = MOCK_QUEUE };
}

int mock_out_count(void) { return out_n; }

int mock_out_pop(struct mock_pkt *p)
{
    if (out_n == 0)
        return 0;
    *p = outbox[out_head];
    out_head = (out_head + 1) % MOCK_QUEUE;
    out_n--;
    return 1;
}

void mock_inject(int peer, const void *pkt, size_t len)
{
    cr_assert(in_n < MOCK_QUEUE && len <= MOCK_PKT_MAX);
    struct mock_pkt *p = &inbox[(in_head + in_n) % MOCK_QUEUE];
    p->peer = peer;
    p->len = len;
    memcpy(p->data, pkt, len);
    in_n++;
}

void mock_fail_peer(int peer) { fail_peer = peer; }
void mock_gone_after(int peer, int n) { gone_after[peer] = n; }
int mock_gone_asked(int peer) { return gone_asked[peer]; }

static int m_peer_gone(struct rch_rdma_chan *ch, int peer)
{
    if (peer < 0 || peer >= MOCK_PEERS)
        return 0;
    gone_asked[peer]++;
    return gone_after[peer] > 0 && gone_asked[peer] >= gone_after[peer];
}
long mock_sent_credited(int peer) { return sent_credited[peer]; }
long mock_returned(int peer) { return returned[peer]; }
long mock_max_inflight(int peer) { return max_inflight[peer]; }
long mock_again_count(void) { return again_count; }

static rdmach_status_t m_query(void) { return RDMACH_OK; }

static rdmach_status_t m_open(const struct rch_rdma_open_args *args, struct rch_rdma_chan **out)
{
    the_chan.up = args->up;
    the_chan.caps = (struct rch_rdma_caps){ .max_msg = mock_cfg.max_msg, .inline_size = 64, .in_order = 1,
                                            .rma = mock_cfg.rma, .needs_credits = mock_cfg.needs_credits };
    *out = &the_chan;
    return RDMACH_OK;
}

static void m_close(struct rch_rdma_chan *ch) {}
static rdmach_status_t m_publish(struct rch_rdma_chan *ch) { return RDMACH_OK; }
static rdmach_status_t m_connect(struct rch_rdma_chan *ch, int peer) { return RDMACH_OK; }

static rdmach_status_t m_mem_reg(struct rch_rdma_chan *ch, void *addr, size_t len, unsigned access,
                                 struct rch_rdma_mr **mr)
{
    struct rch_rdma_mr *m = malloc(sizeof(*m));
    cr_assert(m);
    *m = (struct rch_rdma_mr){ .addr = addr, .len = len, .access = access, .priv = NULL };
    *mr = m;
    return RDMACH_OK;
}

static void m_mem_dereg(struct rch_rdma_chan *ch, struct rch_rdma_mr *mr) { free(mr); }

static rdmach_status_t m_mem_rkey(struct rch_rdma_chan *ch, const struct rch_rdma_mr *mr,
                                  struct rch_rdma_rkey *rkey)
{
    rkey->len = 4;
    memcpy(rkey->bytes, "MOCK", 4);
    return RDMACH_OK;
}

static rdmach_status_t m_send(struct rch_rdma_chan *ch, int peer, const struct iovec *iov, int iovcnt)
{
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    cr_assert(len <= ch->caps.max_msg, "device sent %zu bytes > max_msg %zu", len, ch->caps.max_msg);
    if (out_n >= mock_cfg.out_capacity || out_n >= MOCK_QUEUE) {
        again_count++;
        return RDMACH_AGAIN;
    }
    struct mock_pkt *p = &outbox[(out_head + out_n) % MOCK_QUEUE];
    p->peer = peer;
    p->len = 0;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(p->data + p->len, iov[i].iov_base, iov[i].iov_len);
        p->len += iov[i].iov_len;
    }
    out_n++;
    struct rch_pkt_base b;
    memcpy(&b, p->data, sizeof(b));
    if (rch_pkt_credited(b.op)) {
        sent_credited[peer]++;
        long inflight = sent_credited[peer] - returned[peer];
        if (inflight > max_inflight[peer])
            max_inflight[peer] = inflight;
    }
    return RDMACH_OK;
}

static rdmach_status_t rma(void *dst, const void *src, size_t len, void *op_ctx)
{
    memcpy(dst, src, len);
    if (!mock_cfg.rma_async)
        return RDMACH_OK;
    cr_assert(rma_n < 64);
    rma_q[rma_n].op_ctx = op_ctx;
    rma_q[rma_n++].pending = 1;
    return RDMACH_INPROGRESS;
}

static rdmach_status_t m_put(struct rch_rdma_chan *ch, int peer, const void *laddr, struct rch_rdma_mr *lmr,
                             size_t len, const struct rch_rdma_rkey *rkey, uint64_t raddr, void *op_ctx)
{
    cr_assert(rkey->len == 4 && memcmp(rkey->bytes, "MOCK", 4) == 0, "put with a foreign rkey");
    cr_assert(lmr != NULL && (char *)laddr >= (char *)lmr->addr);
    return rma((void *)(uintptr_t)raddr, laddr, len, op_ctx);
}

static rdmach_status_t m_get(struct rch_rdma_chan *ch, int peer, void *laddr, struct rch_rdma_mr *lmr,
                             size_t len, const struct rch_rdma_rkey *rkey, uint64_t raddr, void *op_ctx)
{
    cr_assert(rkey->len == 4 && memcmp(rkey->bytes, "MOCK", 4) == 0, "get with a foreign rkey");
    cr_assert(lmr != NULL && lmr->len >= len);
    return rma(laddr, (const void *)(uintptr_t)raddr, len, op_ctx);
}

static unsigned m_progress(struct rch_rdma_chan *ch, unsigned max)
{
    unsigned n = 0;
    if (fail_peer >= 0) {
        int p = fail_peer;
        fail_peer = -1;
        ch->up.peer_failed(ch->up.ctx, p, RDMACH_ERR_PEER_DEAD);
        n++;
    }
    while (rma_n > 0 && n < max) {
        void *op = rma_q[0].op_ctx;
        memmove(&rma_q[0], &rma_q[1], (size_t)(rma_n - 1) * sizeof(rma_q[0]));
        rma_n--;
        ch->up.rma_done(ch->up.ctx, op, RDMACH_OK);
        n++;
    }
    while (in_n > 0 && n < max) {
        struct mock_pkt *p = &inbox[in_head];
        in_head = (in_head + 1) % MOCK_QUEUE;
        in_n--;
        if (p->len >= sizeof(struct rch_pkt_base) && p->peer >= 0 && p->peer < MOCK_PEERS) {
            struct rch_pkt_base b;
            memcpy(&b, p->data, sizeof(b));
            returned[p->peer] += b.credits;
        }
        ch->up.recv(ch->up.ctx, p->peer, p->data, p->len);
        n++;
    }
    return n;
}

static rdmach_status_t m_wait_arm(struct rch_rdma_chan *ch, struct rch_rdma_wait *w)
{
    return (in_n || rma_n || fail_peer >= 0) ? RDMACH_AGAIN : RDMACH_ERR_UNSUPPORTED;
}

static void m_wait_disarm(struct rch_rdma_chan *ch) {}
static const struct rch_rdma_caps *m_caps(const struct rch_rdma_chan *ch) { return &ch->caps; }

const struct rch_rdma_ops mock_ops = {
    .name = "mock", .query = m_query, .open = m_open, .close = m_close, .publish = m_publish,
    .connect = m_connect, .mem_reg = m_mem_reg, .mem_dereg = m_mem_dereg, .mem_rkey = m_mem_rkey,
    .send = m_send, .put = m_put, .get = m_get, .progress = m_progress, .wait_arm = m_wait_arm,
    .wait_disarm = m_wait_disarm, .caps = m_caps, .wake = rch_rdma_no_wake,
    .recv_peek = rch_rdma_no_recv_peek, .recv_done = rch_rdma_no_recv_done, .peer_gone = m_peer_gone,
};

const struct rch_rdma_ops *mock_select(const struct rch_boot_info *boot, int peer)
{
    return &mock_ops;
}

const struct rch_rdma_ops *mock_select_even(const struct rch_boot_info *boot, int peer)
{
    return peer % 2 == 0 ? &mock_ops : NULL;
}

/* ---- a pretend job ---- */

static struct rch_boot_info saved;
static int *fake_node_of, *fake_local;

void mock_job_up(int size)
{
    setenv("RDMACH_BIND", "none", 1);
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_boot_init(), RDMACH_OK, "%s", rdmach_last_error());
    saved = rch_boot;
    fake_node_of = calloc((size_t)size, sizeof(int));
    fake_local = calloc((size_t)size, sizeof(int));
    for (int i = 0; i < size; i++)
        fake_local[i] = i;
    rch_boot.size = size;
    rch_boot.node_of = fake_node_of;
    rch_boot.local_ranks = fake_local;
    rch_boot.local_size = size;
    mock_reset();
}

void mock_job_down(void)
{
    rch_boot = saved;
    free(fake_node_of);
    free(fake_local);
    rch_boot_finalize();
}
