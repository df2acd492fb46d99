/*
 * net_job: the network channel in real jobs, at the channel level (links
 * src/base, src/boot and src/rdma only). Run under rdmachrun:
 *
 *   net_job <mode> [args]
 *
 * Every rank opens the network channel the device would use (src/rdma/select.c:
 * RDMACH_NET=verbs|ofi, else verbs when an RDMA device is active, else
 * libfabric) to every other rank, publishes, fences, connects, then:
 *   cross [N]   every rank sends N packets of random sizes to every other
 *               rank at once (all connections made lazily and crosswise,
 *               half of them through reverse requests); order and bytes checked
 *   lazy        no connection exists before the first packet; afterwards
 *               exactly the ring neighbours are connected
 *   eager       (RDMACH_CONNECT=eager) every connection is made without a packet
 *   stranger    a process that is not in the job (forked by rank 1 after the
 *               fence, with its own instance of the job's provider, libfabric
 *               or verbs, and no key) connects to rank 0's published address
 *               four ways: a member's rank with a guessed key, private data
 *               that is not rdmach's, no private data, a rank that does not
 *               exist; over libfabric a raw TCP client also sends junk (RDMA
 *               CM has no such path); rank 0 refuses and logs each of the four,
 *               and the job goes on
 *   ring        ranks 0 and 1 (RDMACH_NET_SLOTS small): the ring wraps many
 *               times both ways; then rank 1 stops polling, rank 0 sends until
 *               AGAIN and stays starved; rank 1 drains and returns credits by
 *               explicit credit messages only
 *   rma         put/get of 0 B .. 64 MiB at misaligned addresses, data checked
 *   rcache      a buffer unmapped (munmap, then free) and mapped again at the
 *               same address is registered afresh, never served from the cache
 *   zc          (RDMACH_NET_ZCOPY=on) rank 0 sends rank 1 packets of every size
 *               class from caps.zc_min to max_msg with send_zc, from one
 *               registration, copied sends in between: order and bytes
 *               checked by rank 1; each send_zc reported done exactly once,
 *               OK, and only then is its buffer written again; bad arguments
 *               (payload outside the registration, below zc_min, above
 *               max_msg) refused with INVALID_ARG
 *   peerdeath   rank 1 leaves without closing; rank 0's pending get completes
 *               with an error and peer_failed names rank 1 within seconds
 *               (with RDMACH_NET_ZCOPY=on: and its send_zc packets in flight
 *               are each reported done once; `peerdeath N`: at least N of
 *               them with an error)
 *   dynstale    ranks 0 and 1 attach each other as a process of another job
 *               (rdma/net/net_dyn.h: number 2 on both sides, rank 0 the
 *               server), connect by a packet, detach, wait until number 2 is
 *               reusable and attach again (as the device's slot reuse does).
 *               Rank 1 then sends, from a provider instance of its own, the
 *               CONNECT its first attach would have sent (the key of rank 0's
 *               first record), as a late request of the number's previous
 *               process: rank 0 must refuse it, and the real connection
 *               must then carry a packet. Without a key per attach the late
 *               request was taken as the new process's connection
 *   trace       rank 0 (the server) sends first; rank 1 answers (checked from
 *               the RDMACH_LOG=debug trace by check_trace.sh)
 *   nooplost    trace, with rank 0's channel taking the client's first NOOP as
 *               not arrived (what Soft-iWARP does to a NOOP that lands while
 *               the server's QP takes over the socket): rank 1, with nothing
 *               to send, must repeat its NOOP (at least one repeat counted)
 *               for the connection to come up; without the repeat the
 *               server waits until its connect timeout and the job fails
 *   stalled [server]  (RDMACH_NET_HANDSHAKE_TIMEOUT_MS small) rank 1 starts
 *               its connection to rank 0 and then makes no progress for 2 s,
 *               so its request never leaves: rank 0's listener resets the
 *               silent connection (libfabric tcp); rank 1 must make it again
 *               (at least one retry counted) and its packet arrive; without
 *               the retry its connection fails. `server`: rank 0 does it with
 *               its reverse request, which must be sent again
 *   armwait [n] ranks 0 and 1, n rounds: rank 1 sends a packet, rank 0
 *               waits for it as the device's block phase does (wait_arm, then
 *               sleep on the fd) without polling in between, so the packet's
 *               bytes are in the socket when it arms; an arm that reports OK
 *               while a packet is already in the ring (the provider's arm
 *               moved it there: libfabric tcp's fi_trywait) would sleep
 *               through it, and fails the round; rank 0 answers each packet
 *   pingpong [n] [bytes]  ranks 0 and 1: one-way latency of a packet (a benchmark)
 *   bw [n] [bytes]        rank 0 puts `bytes` into rank 1, n times, 8 in flight:
 *                         bandwidth of RDMA writes (a benchmark)
 * Exit 0 and "net_job <mode>: rank R ok", or 1 with the reason.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "rdma/net/net.h"
#include "rdma/net/net_dyn.h"
#include "rdma/select.h"

#define DEADLINE 60.0

static const struct rch_rdma_ops *ops;
static struct rch_rdma_chan *ch;
static int me, np;
static const char *mode;
static int failures;
static unsigned expected_refused;     /* connection requests this rank must have refused */

#define FAIL(...)                                                                     \
    do {                                                                              \
        fprintf(stderr, "net_job %s: rank %d: FAIL: ", mode, me);                     \
        fprintf(stderr, __VA_ARGS__);                                                 \
        fprintf(stderr, " [%s]\n", rdmach_last_error());                              \
        failures++;                                                                   \
    } while (0)

enum { K_DATA = 1, K_DONE, K_RKEY, K_CHECK, K_REPLY, K_GO };

struct jmsg {
    uint32_t kind;
    int32_t src;
    uint64_t seq;
    uint64_t a, b;                   /* RKEY: addr, len; CHECK: offset, len; REPLY: ok */
    struct rch_rdma_rkey rkey;
};

/* ---- what arrives ---- */

static uint64_t *next_seq;           /* [np] DATA seq expected from each rank */
static int *done_from;               /* [np] */
static int bad;
static struct jmsg last_rkey[2], last_check, last_reply;
static int nrkey, ncheck, nreply, ngo;
static unsigned long rma_done;
static rdmach_status_t rma_status = RDMACH_OK;
static int failed_peer = -1, nfailed;
static double failed_at;

static unsigned char pat(uint64_t seed, size_t i)
{
    return (unsigned char)(seed * 131 + i * 13 + (i >> 8) + 7);
}

static void on_recv(void *ctx, int peer, const void *pkt, size_t len)
{
    struct jmsg m;
    if (len < sizeof(m)) {
        bad++;
        return;
    }
    memcpy(&m, pkt, sizeof(m));
    if (m.src != peer) {
        bad++;
        return;
    }
    switch (m.kind) {
    case K_DATA: {
        const unsigned char *p = (const unsigned char *)pkt + sizeof(m);
        size_t n = len - sizeof(m);
        int ok = m.seq == next_seq[peer] && n == m.a;
        for (size_t i = 0; ok && i < n; i++)
            ok = p[i] == pat(m.seq * 31 + (uint64_t)peer, i);
        if (!ok && bad < 5)
            fprintf(stderr, "net_job: rank %d: bad packet %llu (expected %llu) from %d, %zu bytes\n", me,
                    (unsigned long long)m.seq, (unsigned long long)next_seq[peer], peer, n);
        bad += !ok;
        next_seq[peer] = m.seq + 1;
        break;
    }
    case K_DONE:
        done_from[peer]++;
        break;
    case K_RKEY:
        last_rkey[nrkey % 2] = m;
        nrkey++;
        break;
    case K_CHECK:
        last_check = m;
        ncheck++;
        break;
    case K_REPLY:
        last_reply = m;
        nreply++;
        break;
    case K_GO:
        ngo++;
        break;
    default:
        bad++;
    }
}

static unsigned *zc_done;            /* zc, peerdeath: rma_done calls per send_zc (op_ctx = index + 1) */
static unsigned zc_n, zc_errors;

static void on_rma_done(void *ctx, void *op, rdmach_status_t st)
{
    if (zc_done && (uintptr_t)op >= 1 && (uintptr_t)op <= zc_n) {
        zc_done[(uintptr_t)op - 1]++;
        zc_errors += st != RDMACH_OK;
        return;
    }
    rma_done++;
    if (st != RDMACH_OK)
        rma_status = st;
}

static void on_peer_failed(void *ctx, int peer, rdmach_status_t st)
{
    failed_peer = peer;
    nfailed++;
    failed_at = rch_base_wtime();
}

/* ---- helpers ---- */

static int progress_until(int (*cond)(void *), void *arg, double seconds)
{
    double t0 = rch_base_wtime();
    while (!cond(arg)) {
        if (ops->progress(ch, 64) == 0)
            sched_yield();
        if (rch_base_wtime() - t0 > seconds)
            return -1;
    }
    return 0;
}

/* {m, payload}, retried while AGAIN: by send(), or by send_zc() from the
 * registration zmr with op_ctx zctx when zmr is not NULL. */
static rdmach_status_t send_msg_via(int peer, const struct jmsg *m, const void *payload, size_t plen,
                                    struct rch_rdma_mr *zmr, void *zctx)
{
    struct iovec iov[2] = { { (void *)m, sizeof(*m) }, { (void *)payload, plen } };
    double t0 = rch_base_wtime();
    for (;;) {
        rdmach_status_t st = zmr ? ops->send_zc(ch, peer, m, sizeof(*m), payload, plen, zmr, zctx)
                                 : ops->send(ch, peer, iov, plen ? 2 : 1);
        if (st != RDMACH_AGAIN)
            return st;
        if (ops->progress(ch, 64) == 0)
            sched_yield();
        if (rch_base_wtime() - t0 > DEADLINE)
            return rch_base_err(RDMACH_ERR_TIMEOUT, "send to %d: no room for %.0f s", peer, DEADLINE);
    }
}

static rdmach_status_t send_msg(int peer, const struct jmsg *m, const void *payload, size_t plen)
{
    return send_msg_via(peer, m, payload, plen, NULL, NULL);
}

/* DATA packet `seq`: n pattern bytes written into buf, sent by send() (zmr
 * NULL) or by send_zc() from zmr, op_ctx zctx. */
static int send_data_via(int peer, uint64_t seq, size_t n, unsigned char *buf, struct rch_rdma_mr *zmr, void *zctx)
{
    struct jmsg m = { .kind = K_DATA, .src = me, .seq = seq, .a = n };
    for (size_t i = 0; i < n; i++)
        buf[i] = pat(seq * 31 + (uint64_t)me, i);
    rdmach_status_t st = send_msg_via(peer, &m, buf, n, zmr, zctx);
    if (st != RDMACH_OK) {
        FAIL("%s of packet %llu (%zu bytes) to %d: %s", zmr ? "send_zc" : "send", (unsigned long long)seq, n, peer,
             rdmach_strerror(st));
        return -1;
    }
    return 0;
}

static int send_data(int peer, uint64_t seq, size_t n, unsigned char *scratch)
{
    return send_data_via(peer, seq, n, scratch, NULL, NULL);
}

static int send_kind(int peer, uint32_t kind, uint64_t a, uint64_t b, const struct rch_rdma_rkey *rk)
{
    struct jmsg m = { .kind = kind, .src = me, .a = a, .b = b };
    if (rk)
        m.rkey = *rk;
    rdmach_status_t st = send_msg(peer, &m, NULL, 0);
    if (st != RDMACH_OK) {
        FAIL("send of a kind-%u message to %d: %s", kind, peer, rdmach_strerror(st));
        return -1;
    }
    return 0;
}

static size_t payload_max(void)
{
    return ops->caps(ch)->max_msg - sizeof(struct jmsg);
}

/* progress until *counter >= target, within DEADLINE and while no peer
 * failed. spin: a timed wait (the ping-pong) polls back to back and tests
 * the clock and the failures only every 1024 passes; else an empty pass
 * yields. */
static int wait_count_with(int *counter, int target, const char *what, int spin)
{
    double t0 = rch_base_wtime();
    for (unsigned pass = 0; *counter < target; pass++) {
        if (ops->progress(ch, 64) == 0 && !spin)
            sched_yield();
        if (spin && pass % 1024 != 1023)
            continue;
        if (rch_base_wtime() - t0 > DEADLINE) {
            FAIL("waiting for %s: %d of %d after %.0f s", what, *counter, target, DEADLINE);
            return -1;
        }
        if (nfailed && strcmp(mode, "peerdeath") != 0) {
            FAIL("waiting for %s: rank %d failed", what, failed_peer);
            return -1;
        }
    }
    return 0;
}

static int wait_count(int *counter, int target, const char *what)
{
    return wait_count_with(counter, target, what, 0);
}

static int wait_rma(unsigned long target)
{
    double t0 = rch_base_wtime();
    while (rma_done < target) {
        if (ops->progress(ch, 64) == 0)
            sched_yield();
        if (rch_base_wtime() - t0 > DEADLINE) {
            FAIL("waiting for %lu RMA completions (have %lu)", target, rma_done);
            return -1;
        }
    }
    return 0;
}

static int all_done_from_all(void *arg)
{
    for (int r = 0; r < np; r++)
        if (r != me && done_from[r] < 1)
            return 0;
    return 1;
}

static void fence(void)
{
    rdmach_status_t st = rch_boot_fence();
    if (st != RDMACH_OK)
        FAIL("fence: %s", rdmach_strerror(st));
}

/* ---- modes ---- */


static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* progress_until conditions: send_zc 0..*n-1 all reported done; send_zc *i reported done */
static int zc_all_done(void *n)
{
    for (unsigned i = 0; i < *(unsigned *)n; i++)
        if (zc_done[i] == 0)
            return 0;
    return 1;
}

static int zc_one_done(void *i)
{
    return zc_done[*(unsigned *)i] != 0;
}

static int mode_zc(void)
{
    const struct rch_rdma_caps *c = ops->caps(ch);
    size_t zmin = c->zc_min, pmax = payload_max();
    if (zmin == 0 || zmin > pmax) {
        FAIL("no send_zc on this channel (caps.zc_min %zu, payload max %zu): run with RDMACH_NET_ZCOPY=on", zmin,
             pmax);
        return -1;
    }
    if (me == 1) {
        if (wait_count(done_from, 1, "rank 0's DONE") != 0)   /* done_from[0]: the DONE of rank 0 */
            return -1;
        if (next_seq[0] != 3 * 40)
            FAIL("got %llu of %d packets from rank 0", (unsigned long long)next_seq[0], 3 * 40);
        return 0;
    }
    if (me != 0)
        return 0;
    enum { NBUF = 8, ROUNDS = 40 };
    size_t stride = (pmax + 4095) & ~(size_t)4095;
    unsigned char *area = malloc(stride * NBUF + 64), *small = malloc(256);
    struct rch_rdma_mr *mr = NULL;
    if (!area || !small || ops->mem_reg(ch, area, stride * NBUF, RCH_RDMA_ACCESS_LOCAL, &mr) != RDMACH_OK) {
        FAIL("no memory or no registration for the zc buffers");
        return -1;
    }
    zc_n = 2 * ROUNDS;
    zc_done = calloc(zc_n, sizeof(*zc_done));
    unsigned posted = 0;
    uint64_t seq = 0;
    for (int k = 0; k < ROUNDS; k++) {
        /* sizes: zc_min, payload max, and in between; buffer reused only once its send is done */
        size_t sizes[2] = { k % 3 == 0 ? zmin : k % 3 == 1 ? pmax : zmin + (size_t)(rnd() % (pmax - zmin + 1)),
                            zmin + (size_t)(rnd() % (pmax - zmin + 1)) };
        for (int j = 0; j < 2; j++) {
            unsigned idx = posted, b = idx % NBUF;
            if (idx >= NBUF) {   /* the send that used this buffer before must be done */
                unsigned prev = idx - NBUF;
                if (progress_until(zc_one_done, &prev, DEADLINE) != 0) {
                    FAIL("send_zc %u never reported done", prev);
                    return -1;
                }
            }
            unsigned char *buf = area + (size_t)b * stride + (size_t)(k % 5);   /* misaligned too */
            size_t n = sizes[j] - (size_t)(k % 5) > zmin ? sizes[j] - (size_t)(k % 5) : zmin;
            if (send_data_via(1, seq++, n, buf, mr, (void *)(uintptr_t)(idx + 1)) != 0)
                return -1;
            posted++;
        }
        if (send_data(1, seq++, (size_t)(rnd() % 200), small) != 0)   /* a copied one in between */
            return -1;
    }
    if (progress_until(zc_all_done, &posted, DEADLINE) != 0) {
        FAIL("not every one of %u send_zc was reported done", posted);
        return -1;
    }
    for (unsigned i = 0; i < posted; i++)
        if (zc_done[i] != 1)
            FAIL("send_zc %u reported done %u times", i, zc_done[i]);
    if (zc_errors)
        FAIL("%u send_zc completed with an error", zc_errors);
    /* refused: outside the registration, below zc_min, above max_msg (nothing is sent) */
    struct jmsg m = { .kind = K_DATA, .src = me };
    unsigned char outside[64];
    rdmach_status_t st1 = ops->send_zc(ch, 1, &m, sizeof(m), outside, zmin, mr, (void *)1);
    rdmach_status_t st2 = zmin > 1 ? ops->send_zc(ch, 1, &m, sizeof(m), area, zmin - 1, mr, (void *)1)
                                   : RDMACH_ERR_INVALID_ARG;
    rdmach_status_t st3 = ops->send_zc(ch, 1, &m, sizeof(m), area, pmax + 1, mr, (void *)1);
    if (st1 != RDMACH_ERR_INVALID_ARG || st2 != RDMACH_ERR_INVALID_ARG || st3 != RDMACH_ERR_INVALID_ARG)
        FAIL("bad send_zc calls gave %s, %s, %s (INVALID_ARG expected)", rdmach_strerror(st1),
             rdmach_strerror(st2), rdmach_strerror(st3));
    if (send_kind(1, K_DONE, 0, 0, NULL) != 0)
        return -1;
    ops->mem_dereg(ch, mr);
    free(area);
    free(small);
    return 0;
}

static int mode_cross(int n)
{
    size_t pmax = payload_max();
    unsigned char *scratch = malloc(pmax + 1);
    uint64_t *seq = calloc((size_t)np, sizeof(*seq));
    rng_state ^= (uint64_t)me * 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < n; k++) {
        for (int d = 1; d < np; d++) {
            int peer = (me + d) % np;
            size_t len = (k % 10 == 9) ? pmax : (size_t)(rnd() % (k % 3 == 0 ? pmax + 1 : 200));
            if (send_data(peer, seq[peer]++, len, scratch) != 0)
                return -1;
        }
    }
    for (int r = 0; r < np; r++)
        if (r != me && send_kind(r, K_DONE, 0, 0, NULL) != 0)
            return -1;
    if (progress_until(all_done_from_all, NULL, DEADLINE) != 0)
        FAIL("not every rank's DONE arrived");
    for (int r = 0; r < np; r++)
        if (r != me && next_seq[r] != (uint64_t)n)
            FAIL("got %llu of %d packets from rank %d", (unsigned long long)next_seq[r], n, r);
    struct rch_net_stats st;
    rch_net_stats(ch, &st);
    if (st.ready != (unsigned)(np - 1))
        FAIL("%u connections ready, expected %d", st.ready, np - 1);
    if (st.refused != expected_refused)
        FAIL("%u connection requests refused, expected %u (a double connect?)", st.refused, expected_refused);
    free(scratch);
    free(seq);
    return 0;
}

static int mode_lazy(void)
{
    for (int r = 0; r < np; r++)
        if (r != me && rch_net_conn_state(ch, r) != RCH_NET_C_IDLE)
            FAIL("rank %d's connection is %s before any packet (lazy)", r,
                 rch_net_state_name[rch_net_conn_state(ch, r)]);
    /* idle progress makes no connection either */
    for (int i = 0; i < 2000; i++)
        ops->progress(ch, 64);
    fence();
    int next = (me + 1) % np, prev = (me + np - 1) % np;
    unsigned char b[64];
    if (send_data(next, 0, 64, b) != 0)
        return -1;
    double t0 = rch_base_wtime();
    while (next_seq[prev] < 1) {
        if (ops->progress(ch, 64) == 0)
            sched_yield();
        if (rch_base_wtime() - t0 > DEADLINE) {
            FAIL("no packet from rank %d", prev);
            return -1;
        }
    }
    /* keep answering connection requests until every rank is through */
    if (send_kind(prev, K_DONE, 0, 0, NULL) != 0)
        return -1;
    if (wait_count(&done_from[next], 1, "the DONE of the next rank") != 0)
        return -1;
    fence();
    for (int r = 0; r < np; r++) {
        if (r == me)
            continue;
        int want = (r == next || r == prev) ? RCH_NET_C_READY : RCH_NET_C_IDLE;
        int s = rch_net_conn_state(ch, r);
        if (s != want)
            FAIL("rank %d's connection is %s, expected %s", r, rch_net_state_name[s], rch_net_state_name[want]);
    }
    return 0;
}

static int all_ready(void *arg)
{
    for (int r = 0; r < np; r++)
        if (r != me && rch_net_conn_state(ch, r) != RCH_NET_C_READY)
            return 0;
    return 1;
}

static int mode_eager(void)
{
    if (rch_tun.connect != RCH_CONNECT_EAGER) {
        FAIL("run with RDMACH_CONNECT=eager");
        return -1;
    }
    if (progress_until(all_ready, NULL, DEADLINE) != 0) {
        FAIL("not every connection became ready without packets");
        return -1;
    }
    /* nobody has sent yet: every rank checks before the fence, sends after it */
    struct rch_net_stats st;
    rch_net_stats(ch, &st);
    if (st.sent != 0 || st.received != 0)
        FAIL("packets moved before any send (%llu sent, %llu received)", (unsigned long long)st.sent,
             (unsigned long long)st.received);
    fence();
    return mode_cross(3);
}

/* The stranger: a process outside the job, with its own instance of the
 * provider the job's channel uses (ch->pops). Returns the number of attempts
 * that were NOT refused. */
#define STRANGER_ATTEMPTS 4
static int stranger(const uint8_t *addr, size_t addrlen)
{
    rch_log_set_rank(-1);
    const struct rch_net_prov_ops *P = ch->pops;
    struct rch_net_prov *p = NULL;
    if (P->open(&p) != RDMACH_OK) {
        fprintf(stderr, "stranger: cannot open the %s provider: %s\n", P->name, rdmach_last_error());
        return 99;
    }
    static const char *const what[STRANGER_ATTEMPTS] = {
        "a member's rank with a guessed key", "private data that is not rdmach's", "no private data",
        "a rank that does not exist",
    };
    int not_refused = 0;
    for (int attempt = 0; attempt < STRANGER_ATTEMPTS; attempt++) {
        struct rch_net_cm_priv priv;
        memset(&priv, 0, sizeof(priv));
        uint8_t junk[40];
        const void *data = &priv;
        size_t dlen = sizeof(priv);
        priv.magic = RCH_NET_MAGIC;
        priv.version = RCH_NET_VERSION;
        priv.kind = RCH_NET_CM_CONNECT;
        priv.size = (uint32_t)np;
        priv.slot_size = rch_net_slot_size(P->caps(p), rch_net_zcopy_on(P->caps(p), P->caps(p)->in_order
                                                                                    ? RCH_NET_NOTIFY_POLL
                                                                                    : RCH_NET_NOTIFY_SEND));
        priv.nslots = (uint16_t)rch_tun.net_slots;
        priv.ring_addr = 4096;
        if (attempt == 0) {              /* a member's rank, a guessed key */
            priv.rank = 1;
            priv.key = 0x1234567890abcdefull;
        } else if (attempt == 1) {       /* not rdmach at all */
            memset(junk, 0xa5, sizeof(junk));
            data = junk;
            dlen = sizeof(junk);
        } else if (attempt == 2) {       /* nothing at all (a valid pointer, 0 bytes) */
            data = junk;
            dlen = 0;
        } else {                         /* a rank that does not exist */
            priv.rank = np + 5;
            priv.key = 42;
        }
        struct rch_net_ep *ep = NULL;
        int ctx = attempt;
        if (P->ep_open(p, addr, addrlen, &ctx, &ep) != RDMACH_OK || P->connect(p, ep, data, dlen) != RDMACH_OK) {
            fprintf(stderr, "stranger: %s: attempt %d (%s) could not start: %s\n", P->name, attempt, what[attempt],
                    rdmach_last_error());
            not_refused++;
            if (ep)
                P->ep_close(p, ep);
            continue;
        }
        int outcome = 0;
        double t0 = rch_base_wtime();
        while (!outcome && rch_base_wtime() - t0 < 30) {
            struct rch_net_cm_event ev;
            struct rch_net_cqe c[4];
            P->poll_cq(p, c, 4);
            if (P->poll_cm(p, &ev, 1) == 1 && ev.conn_ctx == &ctx)
                outcome = ev.type;
        }
        P->ep_close(p, ep);
        if (outcome != RCH_NET_EV_REJECTED) {
            fprintf(stderr, "stranger: %s: attempt %d (%s) was not refused (event %d)\n", P->name, attempt,
                    what[attempt], outcome);
            not_refused++;
        } else {
            fprintf(stderr, "stranger: %s: attempt %d (%s) was refused\n", P->name, attempt, what[attempt]);
        }
    }
    P->close(p);
    /* libfabric's tcp provider listens on a plain TCP socket: a raw client
     * sending junk to it (the verbs listener is an RDMA CM id: no such path) */
    if (strcmp(P->name, "ofi") == 0 && addrlen >= sizeof(struct sockaddr_in) &&
        ((const struct sockaddr *)addr)->sa_family == AF_INET) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        if (s >= 0 && connect(s, (const struct sockaddr *)addr, sizeof(struct sockaddr_in)) == 0) {
            char junk[256];
            memset(junk, 0x5a, sizeof(junk));
            ssize_t w = write(s, junk, sizeof(junk));
            (void)w;
        }
        if (s >= 0)
            close(s);
    }
    return not_refused;
}

static int mode_stranger(void)
{
    pid_t child = -1;
    if (me == 1) {
        struct rch_net_conn c0;
        memset(&c0, 0, sizeof(c0));
        c0.rank = 0;
        if (rch_net_peer_record(ch, &c0) != RDMACH_OK) {
            FAIL("rank 0's record");
            return -1;
        }
        child = fork();
        if (child == 0)
            _exit(stranger(c0.rec.addr, c0.rec.addrlen));
    }
    if (me == 0) {
        double t0 = rch_base_wtime();
        struct rch_net_stats st;
        do {
            if (ops->progress(ch, 64) == 0)
                sched_yield();
            rch_net_stats(ch, &st);
        } while (st.refused < STRANGER_ATTEMPTS && rch_base_wtime() - t0 < DEADLINE);
        expected_refused = STRANGER_ATTEMPTS;
        if (st.refused < STRANGER_ATTEMPTS)
            FAIL("only %u of %d stranger requests were refused", st.refused, STRANGER_ATTEMPTS);
        else
            fprintf(stderr, "net_job stranger: rank 0 (%s channel) refused %u connection requests\n", ops->name,
                    st.refused);
    }
    /* the job goes on: everybody talks to everybody */
    int rc = mode_cross(20);
    if (me == 1) {
        int status = 0;
        if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            FAIL("the stranger saw %d attempts not refused (status %#x)", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                 status);
    }
    return rc;
}

static int mode_ring(void)
{
    if (np < 2)
        return 0;
    if (me > 1) {
        fence();
        fence();
        fence();
        return 0;
    }
    int other = 1 - me;
    uint32_t nslots = (uint32_t)rch_tun.net_slots;
    size_t pmax = payload_max();
    unsigned char *scratch = malloc(pmax + 1);
    uint64_t seq = 0;
    /* 1. the ring wraps 50 times, both ways at once, all sizes up to a full slot */
    int w = (int)nslots * 50;
    for (int k = 0; k < w; k++) {
        size_t len = k % 7 == 0 ? pmax : (size_t)(k * 37) % (pmax + 1);
        if (send_data(other, seq++, len, scratch) != 0)
            return -1;
    }
    double t0 = rch_base_wtime();
    while (next_seq[other] < (uint64_t)w && rch_base_wtime() - t0 < DEADLINE)
        if (ops->progress(ch, 64) == 0)
            sched_yield();
    if (next_seq[other] != (uint64_t)w)
        FAIL("wrap: %llu of %d packets", (unsigned long long)next_seq[other], w);
    fence();
    /* 2. starvation: rank 1 does not poll (it waits in the fence), so at most
     * one ring of packets can be accepted, however long rank 0 tries (late
     * credit returns from phase 1 may still arrive meanwhile) */
    if (me == 0) {
        int k = 0;
        rdmach_status_t st = RDMACH_OK;
        for (int i = 0; i < 5000; i++) {
            struct jmsg m = { .kind = K_DATA, .src = me, .seq = seq, .a = 8 };
            for (size_t b = 0; b < 8; b++)
                scratch[b] = pat(seq * 31 + (uint64_t)me, b);
            struct iovec iov[2] = { { &m, sizeof(m) }, { scratch, 8 } };
            st = ops->send(ch, other, iov, 2);
            if (st == RDMACH_OK) {
                seq++;
                if (++k > (int)nslots) {
                    FAIL("%d packets accepted with a %u-slot ring and a receiver that does not poll", k, nslots);
                    return -1;
                }
            } else if (st == RDMACH_AGAIN) {
                ops->progress(ch, 64);
            } else {
                FAIL("starvation send: %s", rdmach_strerror(st));
                return -1;
            }
        }
        if (st != RDMACH_AGAIN || k < 1)
            FAIL("not starved (last send: %s, %d packets accepted)", rdmach_strerror(st), k);
        fprintf(stderr, "net_job ring: rank 0 starved after %d packets (%u slots)\n", k, nslots);
    }
    fence();
    /* 3. rank 1 drains; credits can only come back as explicit credit messages */
    if (me == 0) {
        int more = (int)nslots * 20;
        for (int k = 0; k < more; k++)
            if (send_data(other, seq++, 8, scratch) != 0)
                return -1;
        if (send_kind(other, K_DONE, seq, 0, NULL) != 0)
            return -1;
        if (wait_count(&done_from[other], 1, "rank 1's DONE") != 0)
            return -1;
    } else {
        if (wait_count(&done_from[other], 1, "rank 0's DONE") != 0)
            return -1;
        struct rch_net_stats st;
        rch_net_stats(ch, &st);
        if (st.crdt_sent == 0)
            FAIL("credits came back without a single explicit credit message");
        else
            fprintf(stderr, "net_job ring: rank 1 sent %llu explicit credit messages\n",
                    (unsigned long long)st.crdt_sent);
        if (send_kind(other, K_DONE, 0, 0, NULL) != 0)
            return -1;
    }
    fence();
    free(scratch);
    return 0;
}

/* ---- RMA ---- */

#define RMA_MAX ((size_t)64 << 20)

static int mode_rma(void)
{
    if (me > 1) {
        fence();
        return 0;
    }
    int other = 1 - me;
    size_t cap = RMA_MAX + 64;
    unsigned char *src = malloc(cap), *sink = malloc(cap);
    if (!src || !sink) {
        FAIL("no memory");
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        src[i] = pat((uint64_t)me + 1000, i);
    memset(sink, 0, cap);
    struct rch_rdma_mr *src_mr, *sink_mr;
    struct rch_rdma_rkey src_rk, sink_rk;
    if (ops->mem_reg(ch, src, cap, RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_READ, &src_mr) != RDMACH_OK ||
        ops->mem_reg(ch, sink, cap, RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_WRITE, &sink_mr) != RDMACH_OK ||
        ops->mem_rkey(ch, src_mr, &src_rk) != RDMACH_OK || ops->mem_rkey(ch, sink_mr, &sink_rk) != RDMACH_OK) {
        FAIL("registration");
        return -1;
    }
    if (me == 1) {
        /* the target: expose src and sink, check what rank 0 puts */
        if (send_kind(other, K_RKEY, (uint64_t)(uintptr_t)src, cap, &src_rk) != 0 ||
            send_kind(other, K_RKEY, (uint64_t)(uintptr_t)sink, cap, &sink_rk) != 0)
            return -1;
        for (;;) {
            int want = ncheck + 1;
            if (wait_count(&ncheck, want, "a CHECK") != 0)
                return -1;
            if (last_check.a == UINT64_MAX)
                break;
            size_t off = (size_t)last_check.a, len = (size_t)last_check.b;
            int ok = 1;
            for (size_t i = 0; i < len && ok; i++)
                ok = sink[off + i] == pat(last_check.seq, i);
            if (send_kind(other, K_REPLY, ok, 0, NULL) != 0)
                return -1;
        }
    } else {
        if (wait_count(&nrkey, 2, "rank 1's keys") != 0)
            return -1;
        uint64_t rsrc = last_rkey[0].a, rsink = last_rkey[1].a;
        static const size_t sizes[] = { 0, 1, 8, 4095, 4097, 65539, (size_t)1 << 20, ((size_t)4 << 20) + 7,
                                        ((size_t)16 << 20) + 5, RMA_MAX };
        static const size_t offs[] = { 0, 1, 3 };
        unsigned long expect = 0;
        int checks = 0;
        for (size_t si = 0; si < RCH_ARRAY_SIZE(sizes); si++) {
            for (size_t oi = 0; oi < RCH_ARRAY_SIZE(offs); oi++) {
                size_t len = sizes[si], loff = offs[oi], roff = offs[(oi + 1) % 3];
                if (len == RMA_MAX && oi > 0)
                    continue;
                /* get: rank 1's src + roff into our sink + loff (our registration, or none) */
                memset(sink + loff, 0, len + 1);
                struct rch_rdma_mr *lmr = (si + oi) % 2 ? sink_mr : NULL;
                rdmach_status_t st = ops->get(ch, other, sink + loff, lmr, len, &last_rkey[0].rkey, rsrc + roff,
                                              &expect);
                if (st == RDMACH_INPROGRESS)
                    expect++;
                else if (st != RDMACH_OK) {
                    FAIL("get of %zu bytes: %s", len, rdmach_strerror(st));
                    return -1;
                }
                if (wait_rma(expect) != 0)
                    return -1;
                if (rma_status != RDMACH_OK) {
                    FAIL("get of %zu bytes completed with %s", len, rdmach_strerror(rma_status));
                    return -1;
                }
                for (size_t i = 0; i < len; i++)
                    if (sink[loff + i] != pat((uint64_t)other + 1000, roff + i)) {
                        FAIL("get of %zu bytes (offsets %zu/%zu): byte %zu wrong", len, loff, roff, i);
                        return -1;
                    }
                if (sink[loff + len] != 0)
                    FAIL("get of %zu bytes wrote past the end", len);
                /* put: a fresh pattern from our src + loff to rank 1's sink + roff */
                uint64_t seed = 5000 + si * 10 + oi;
                for (size_t i = 0; i < len; i++)
                    src[loff + i] = pat(seed, i);
                lmr = (si + oi) % 2 ? NULL : src_mr;
                st = ops->put(ch, other, src + loff, lmr, len, &last_rkey[1].rkey, rsink + roff, &expect);
                if (st == RDMACH_INPROGRESS)
                    expect++;
                else if (st != RDMACH_OK) {
                    FAIL("put of %zu bytes: %s", len, rdmach_strerror(st));
                    return -1;
                }
                if (wait_rma(expect) != 0)
                    return -1;
                if (rma_status != RDMACH_OK) {
                    FAIL("put of %zu bytes completed with %s", len, rdmach_strerror(rma_status));
                    return -1;
                }
                struct jmsg m = { .kind = K_CHECK, .src = me, .seq = seed, .a = roff, .b = len };
                if (send_msg(other, &m, NULL, 0) != RDMACH_OK) {
                    FAIL("CHECK");
                    return -1;
                }
                checks++;
                if (wait_count(&nreply, checks, "a REPLY") != 0)
                    return -1;
                if (last_reply.a != 1)
                    FAIL("put of %zu bytes (offsets %zu/%zu): rank 1 found wrong bytes", len, loff, roff);
            }
        }
        struct jmsg m = { .kind = K_CHECK, .src = me, .a = UINT64_MAX };
        send_msg(other, &m, NULL, 0);
        fprintf(stderr, "net_job rma: %d put/get pairs checked, 0 B to %zu MiB\n", checks, RMA_MAX >> 20);
    }
    /* keep serving until both are done */
    if (send_kind(other, K_DONE, 0, 0, NULL) != 0 || wait_count(&done_from[other], 1, "DONE") != 0)
        return -1;
    ops->mem_dereg(ch, src_mr);
    ops->mem_dereg(ch, sink_mr);
    fence();
    free(src);
    free(sink);
    return 0;
}

/* ---- registration cache ---- */

#define RC_LEN ((size_t)4 << 20)

/* Rank 0 exposes buf with `seed`; rank 1 gets it and checks. */
static int rc_round(unsigned char *buf, uint64_t seed, int *round)
{
    for (size_t i = 0; i < RC_LEN; i++)
        buf[i] = pat(seed, i);
    struct rch_rdma_mr *mr;
    struct rch_rdma_rkey rk;
    if (ops->mem_reg(ch, buf, RC_LEN, RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_READ, &mr) != RDMACH_OK ||
        ops->mem_rkey(ch, mr, &rk) != RDMACH_OK) {
        FAIL("registration");
        return -1;
    }
    struct jmsg m = { .kind = K_RKEY, .src = me, .seq = seed, .a = (uint64_t)(uintptr_t)buf, .b = RC_LEN, .rkey = rk };
    if (send_msg(1, &m, NULL, 0) != RDMACH_OK)
        return -1;
    (*round)++;
    if (wait_count(&nreply, *round, "rank 1's check") != 0)
        return -1;
    if (last_reply.a != 1)
        FAIL("round %d: rank 1 read stale bytes through the registration", *round);
    ops->mem_dereg(ch, mr);
    return 0;
}

static int mode_rcache(void)
{
    if (me > 1) {
        fence();
        return 0;
    }
    if (me == 1) {
        unsigned char *dst = malloc(RC_LEN);
        struct rch_rdma_mr *mr;
        if (ops->mem_reg(ch, dst, RC_LEN, RCH_RDMA_ACCESS_LOCAL, &mr) != RDMACH_OK) {
            FAIL("registration");
            return -1;
        }
        unsigned long expect = 0;
        for (int round = 1;; round++) {
            if (wait_count(&nrkey, round, "a key") != 0)
                return -1;
            struct jmsg k = last_rkey[(round - 1) % 2];
            if (k.b == 0)
                break;
            memset(dst, 0, RC_LEN);
            rdmach_status_t st = ops->get(ch, 0, dst, mr, RC_LEN, &k.rkey, k.a, NULL);
            if (st == RDMACH_INPROGRESS && wait_rma(++expect) != 0)
                return -1;
            int ok = st == RDMACH_INPROGRESS && rma_status == RDMACH_OK;
            for (size_t i = 0; i < RC_LEN && ok; i++)
                ok = dst[i] == pat(k.seq, i);
            if (send_kind(0, K_REPLY, ok, 0, NULL) != 0)
                return -1;
        }
        ops->mem_dereg(ch, mr);
        free(dst);
        fence();
        return 0;
    }
    struct rch_net_stats s0, s1;
    int round = 0;
    /* 1. mmap, register, use; munmap; mmap again at the same address */
    unsigned char *a = mmap(NULL, RC_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED) {
        FAIL("mmap");
        return -1;
    }
    if (rc_round(a, 1, &round) != 0)
        return -1;
    if (rc_round(a, 2, &round) != 0)   /* same buffer again: served by the cache */
        return -1;
    rch_net_stats(ch, &s0);
    if (s0.rcache.hits < 1)
        FAIL("the same buffer registered twice was not a cache hit (hits %llu)", (unsigned long long)s0.rcache.hits);
    munmap(a, RC_LEN);
    unsigned char *b = mmap(a, RC_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (b != a) {
        FAIL("could not map again at %p", (void *)a);
        return -1;
    }
    if (rc_round(b, 3, &round) != 0)
        return -1;
    rch_net_stats(ch, &s1);
    if (s1.rcache.invalidations <= s0.rcache.invalidations)
        FAIL("munmap did not invalidate the cached registration");
    if (s1.rcache.hits != s0.rcache.hits)
        FAIL("a buffer mapped again at the same address was served a stale cached registration");
    munmap(b, RC_LEN);
    /* 2. malloc / free / malloc: glibc unmaps a large block on free */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    unsigned char *c = malloc(RC_LEN);
    if (rc_round(c, 4, &round) != 0)
        return -1;
    rch_net_stats(ch, &s0);
    uintptr_t c_addr = (uintptr_t)c;
    free(c);
    unsigned char *d = malloc(RC_LEN);
    fprintf(stderr, "net_job rcache: malloc gave %#lx, then %p after free (%s address)\n", (unsigned long)c_addr,
            (void *)d, c_addr == (uintptr_t)d ? "same" : "another");
    if (rc_round(d, 5, &round) != 0)
        return -1;
    rch_net_stats(ch, &s1);
    if (s1.rcache.invalidations <= s0.rcache.invalidations)
        FAIL("free did not invalidate the cached registration");
    if (s1.rcache.hits != s0.rcache.hits)
        FAIL("a reallocated buffer was served a stale cached registration");
    free(d);
    fprintf(stderr, "net_job rcache: hits %llu, misses %llu, invalidations %llu\n",
            (unsigned long long)s1.rcache.hits, (unsigned long long)s1.rcache.misses,
            (unsigned long long)s1.rcache.invalidations);
    struct jmsg end = { .kind = K_RKEY, .src = me, .b = 0 };
    send_msg(1, &end, NULL, 0);
    fence();
    return 0;
}

/* ---- a peer that leaves ---- */

static int mode_peerdeath(unsigned min_zc_errors)
{
    if (np != 2) {
        FAIL("run with 2 ranks");
        return -1;
    }
    unsigned char *buf = malloc(RMA_MAX);
    memset(buf, 1, RMA_MAX);
    struct rch_rdma_mr *mr;
    struct rch_rdma_rkey rk;
    if (ops->mem_reg(ch, buf, RMA_MAX, RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_READ, &mr) != RDMACH_OK ||
        ops->mem_rkey(ch, mr, &rk) != RDMACH_OK) {
        FAIL("registration");
        return -1;
    }
    if (me == 1) {
        if (send_kind(0, K_RKEY, (uint64_t)(uintptr_t)buf, RMA_MAX, &rk) != 0)
            return -1;
        if (wait_count(&ngo, 1, "GO") != 0)
            return -1;
        fence();   /* rank 0 has posted its get; we never serve it */
        rch_boot_finalize();
        fprintf(stderr, "net_job peerdeath: rank 1 leaves without closing its channel\n");
        _exit(0);
    }
    if (wait_count(&nrkey, 1, "rank 1's key") != 0)
        return -1;
    if (send_kind(1, K_GO, 0, 0, NULL) != 0)
        return -1;
    rdmach_status_t st = ops->get(ch, 1, buf, mr, RMA_MAX, &last_rkey[0].rkey, last_rkey[0].a, NULL);
    if (st != RDMACH_INPROGRESS) {
        FAIL("get: %s", rdmach_strerror(st));
        return -1;
    }
    /* With RDMACH_NET_ZCOPY=on: send_zc packets to rank 1 until its ring is
     * full (it polls no more); each must be reported done exactly once,
     * whether it got out before rank 1 left (OK) or not (an error), and a
     * send_zc after the failure is refused. (Over libfabric tcp with the
     * default 64 KiB + 64 slots the socket buffers take them all before rank 1
     * leaves: they complete OK. With 1 MiB slots, 32 MiB are in flight and
     * most are still queued when rank 1 leaves: `peerdeath N` then requires
     * at least N of them to be reported with an error: the error path,
     * rch_net_zc_fail_conn at the connection's failure and the flushed
     * completions after it, each of which must not report a send twice.) */
    size_t zmin = ops->caps(ch)->zc_min;
    unsigned zposted = 0;
    struct jmsg zm = { .kind = K_DATA, .src = me };
    if (zmin) {
        zc_n = 64;
        zc_done = calloc(zc_n, sizeof(*zc_done));
        size_t zlen = payload_max();   /* the largest: the more bytes in flight, the more fail */
        while (zposted < zc_n && (size_t)(zposted + 1) * zlen <= RMA_MAX) {
            zm.seq = zposted;
            st = ops->send_zc(ch, 1, &zm, sizeof(zm), buf + (size_t)zposted * zlen, zlen, mr,
                              (void *)(uintptr_t)(zposted + 1));
            if (st == RDMACH_AGAIN)
                break;
            if (st != RDMACH_OK) {
                FAIL("send_zc %u before rank 1 left: %s", zposted, rdmach_strerror(st));
                break;
            }
            zposted++;
        }
        if (zposted == 0)
            FAIL("no send_zc could be posted to rank 1");
    }
    fence();
    double t0 = rch_base_wtime();
    while ((rma_done < 1 || nfailed < 1) && rch_base_wtime() - t0 < 20)
        if (ops->progress(ch, 64) == 0)
            sched_yield();
    if (rma_done < 1)
        FAIL("the pending get never completed after rank 1 left");
    else if (rma_status == RDMACH_OK)
        FAIL("the pending get completed successfully from a rank that never served it");
    if (nfailed != 1 || failed_peer != 1)
        FAIL("peer_failed: %d calls, rank %d", nfailed, failed_peer);
    else
        fprintf(stderr, "net_job peerdeath: rank 1's failure seen %.2f s after it left; get: %s\n",
                failed_at - t0, rdmach_strerror(rma_status));
    if (failed_at - t0 > 10)
        FAIL("the failure took %.1f s to notice", failed_at - t0);
    if (zmin && progress_until(zc_all_done, &zposted, 20) != 0)
        FAIL("not every one of %u send_zc in flight was reported done after rank 1 left", zposted);
    else if (zmin) {
        for (unsigned i = 0; i < zposted; i++)
            if (zc_done[i] != 1)
                FAIL("send_zc %u reported done %u times", i, zc_done[i]);
        for (int i = 0; i < 1000; i++)   /* late flushed completions must not report again */
            ops->progress(ch, 64);
        for (unsigned i = 0; i < zposted; i++)
            if (zc_done[i] != 1)
                FAIL("send_zc %u reported done %u times after more progress", i, zc_done[i]);
        fprintf(stderr, "net_job peerdeath: %u send_zc in flight, each reported once (%u with an error)\n",
                zposted, zc_errors);
        if (zc_errors < min_zc_errors)
            FAIL("%u send_zc reported with an error, fewer than the %u required", zc_errors, min_zc_errors);
        st = ops->send_zc(ch, 1, &zm, sizeof(zm), buf, zmin, mr, (void *)1);
        if (st != RDMACH_ERR_PEER_DEAD)
            FAIL("a send_zc to the dead rank returned %s", rdmach_strerror(st));
    }
    struct jmsg m = { .kind = K_DATA, .src = me };
    struct iovec iov = { &m, sizeof(m) };
    st = ops->send(ch, 1, &iov, 1);
    if (st != RDMACH_ERR_PEER_DEAD)
        FAIL("a send to the dead rank returned %s", rdmach_strerror(st));
    else if (strstr(rdmach_last_error(), "rank 1") == NULL)
        FAIL("the error does not name rank 1: %s", rdmach_last_error());
    ops->mem_dereg(ch, mr);
    free(buf);
    return 0;
}

/* dynstale: this rank's dyn record into the KVS under `key`, the other's out. */
static int swap_records(const char *key, struct rch_net_kvs_rec *mine, struct rch_net_kvs_rec *theirs)
{
    char hex[2 * sizeof(*mine) + 8];
    if (rch_net_dyn_record(ch, mine, sizeof(*mine)) != RDMACH_OK) {
        FAIL("dyn record");
        return -1;
    }
    rch_boot_hex_encode(mine, sizeof(*mine), hex);
    if (rch_boot_put(key, hex) != RDMACH_OK || rch_boot_fence() != RDMACH_OK ||
        rch_boot_get(1 - me, key, hex, sizeof(hex)) != RDMACH_OK ||
        rch_boot_hex_decode(hex, theirs, sizeof(*theirs)) != RDMACH_OK) {
        FAIL("swapping dyn records under %s", key);
        return -1;
    }
    return 0;
}

static int dyn_attach(int w, const struct rch_net_kvs_rec *theirs)
{
    if (rch_net_dyn_attach(ch, w, theirs, sizeof(*theirs), w, me == 0) != RDMACH_OK) {
        FAIL("dyn attach of %d", w);
        return -1;
    }
    return 0;
}

/* Rank 1 sends packet K_GO to dyn peer w (src: its number there), rank 0
 * waits for it. */
static int dyn_packet(int w, int *count)
{
    if (me == 1) {
        struct jmsg m = { .kind = K_GO, .src = w };
        if (send_msg(w, &m, NULL, 0) != RDMACH_OK) {
            FAIL("send to dyn peer %d", w);
            return -1;
        }
        return 0;
    }
    return wait_count(count, *count + 1, "the dyn peer's packet");
}

static int reusable(void *arg)
{
    return rch_net_dyn_reusable(ch, *(int *)arg);
}

/* The CONNECT the first attach's connection sent: number w, the old key. */
static int late_connect(int w, const struct rch_net_kvs_rec *server, uint64_t old_key)
{
    const struct rch_net_prov_ops *P = ch->pops;
    struct rch_net_prov *p = NULL;
    if (P->open(&p) != RDMACH_OK) {
        FAIL("a provider instance of its own");
        return -1;
    }
    struct rch_net_cm_priv priv;
    memset(&priv, 0, sizeof(priv));
    priv.magic = RCH_NET_MAGIC;
    priv.version = RCH_NET_VERSION;
    priv.kind = RCH_NET_CM_CONNECT;
    priv.rank = w;
    priv.size = (uint32_t)np;
    priv.key = old_key;
    priv.slot_size = ch->slot_size;
    priv.nslots = (uint16_t)ch->nslots;
    priv.notify = (uint8_t)ch->notify;
    priv.ring_addr = 4096;
    struct rch_net_ep *ep = NULL;
    int ctx = 0, outcome = 0;
    if (P->ep_open(p, server->addr, server->addrlen, &ctx, &ep) != RDMACH_OK ||
        P->connect(p, ep, &priv, sizeof(priv)) != RDMACH_OK) {
        FAIL("the late request could not start");
    } else {
        double t0 = rch_base_wtime();
        while (!outcome && rch_base_wtime() - t0 < DEADLINE) {
            struct rch_net_cm_event ev;
            struct rch_net_cqe c[4];
            P->poll_cq(p, c, 4);
            if (P->poll_cm(p, &ev, 1) == 1 && ev.conn_ctx == &ctx)
                outcome = ev.type;
        }
        if (outcome != RCH_NET_EV_REJECTED)
            FAIL("the late request of number %d's previous process was not refused (event %d)", w, outcome);
    }
    if (ep)
        P->ep_close(p, ep);
    P->close(p);
    return outcome == RCH_NET_EV_REJECTED ? 0 : -1;
}

static int mode_dynstale(void)
{
    if (np != 2) {
        FAIL("run on 2 ranks");
        return -1;
    }
    int w = np;   /* the first number after the job's ranks, on both sides */
    struct rch_net_kvs_rec mine1, theirs1, mine2, theirs2;
    if (swap_records("dynstale1", &mine1, &theirs1) || dyn_attach(w, &theirs1) || dyn_packet(w, &ngo))
        return -1;
    fence();   /* the packet is in: both detach */
    double t0 = rch_base_wtime();
    rdmach_status_t st;
    while ((st = rch_net_dyn_detach(ch, w, 0)) == RDMACH_AGAIN && rch_base_wtime() - t0 < DEADLINE)
        ops->progress(ch, 64);
    if (st != RDMACH_OK || progress_until(reusable, &w, DEADLINE) != 0) {
        FAIL("detach of %d, or never reusable", w);
        return -1;
    }
    if (swap_records("dynstale2", &mine2, &theirs2) || dyn_attach(w, &theirs2))
        return -1;
    fence();   /* rank 0 serves number w again, with the key of its second record */
    /* rank 0 serves the late request while it waits for the packet that
     * rank 1 sends once it has its answer */
    if (me == 1)
        late_connect(w, &theirs2, theirs1.secret);
    if (dyn_packet(w, &ngo))
        return -1;
    fence();
    t0 = rch_base_wtime();
    while ((st = rch_net_dyn_detach(ch, w, 0)) == RDMACH_AGAIN && rch_base_wtime() - t0 < DEADLINE)
        ops->progress(ch, 64);
    if (me == 0)
        fprintf(stderr, "net_job dynstale: rank 0 (%s channel) refused the late request of number %d's previous "
                "process; the new one's packet arrived\n", ops->name, w);
    return failures ? -1 : 0;
}

static int mode_trace(void)
{
    unsigned char b[32];
    if (me == 0) {
        if (send_data(1, 0, 32, b) != 0 || wait_count(&done_from[1], 1, "rank 1's answer") != 0)
            return -1;
    } else if (me == 1) {
        double t0 = rch_base_wtime();
        while (next_seq[0] < 1 && nfailed == 0 && rch_base_wtime() - t0 < DEADLINE)
            if (ops->progress(ch, 64) == 0)
                sched_yield();
        if (next_seq[0] < 1 || send_kind(0, K_DONE, 0, 0, NULL) != 0) {
            FAIL("no packet from rank 0");
            return -1;
        }
    }
    fence();
    return 0;
}

static int mode_nooplost(void)
{
    if (mode_trace() != 0)
        return -1;
    struct rch_net_stats st;
    rch_net_stats(ch, &st);
    if (me == 0 && ch->test_lose_noops != 0)
        FAIL("the server saw no NOOP to lose (%d left)", ch->test_lose_noops);
    if (me == 1 && st.noop_repeats < 1)
        FAIL("the client's NOOP was lost, yet it never sent it again");
    if (me == 1)
        printf("net_job nooplost: rank 1 sent its NOOP again %u time(s)\n", st.noop_repeats);
    return 0;
}

/* The rank `who` (1: the client, 0: the server) starts the pair's
 * connection (the client a CONNECT, the server a REVERSE request) and then
 * makes no progress for 2 s, so its request never leaves; the other rank's
 * listener resets it, and the staller must ask again. */
static int mode_stalled(int who)
{
    unsigned char b[32];
    int other = 1 - who;
    if (me == who) {
        struct jmsg m = { .kind = K_GO, .src = me };
        struct iovec iov = { &m, sizeof(m) };
        rdmach_status_t st = ops->send(ch, other, &iov, 1);   /* starts the connection: AGAIN, nothing sent */
        if (st != RDMACH_AGAIN)
            FAIL("the first send to rank %d gave %s, not AGAIN (connection under way)", other, rdmach_strerror(st));
        double until = rch_base_wtime() + 2.0;   /* the stall under test: no progress at all */
        while (rch_base_wtime() < until)
            rch_cpu_relax();
        if (send_data(other, 0, 32, b) != 0)
            return -1;
        struct rch_net_stats ns;
        rch_net_stats(ch, &ns);
        if (who == 1 && ns.connect_retries < 1)
            FAIL("the connection came up without being made again: the listener did not reset it");
        printf("net_job stalled: rank %d (the %s) made its request again; connections made again: %u\n", me,
               who ? "client" : "server", ns.connect_retries);
    } else if (me == other) {
        double t0 = rch_base_wtime();
        while (next_seq[who] < 1 && nfailed == 0 && rch_base_wtime() - t0 < DEADLINE)
            if (ops->progress(ch, 64) == 0)
                sched_yield();
        if (next_seq[who] < 1)
            FAIL("no packet from rank %d after its stall", who);
    }
    fence();
    return 0;
}

/* Rank 0's side of one armwait round: arm, and sleep on the fd until the
 * packet's bytes are in the socket, without progress; then arm again. An
 * arm that answers OK must leave nothing in the ring (it would be slept
 * through); AGAIN sends us to progress, which takes the packet. */
static int armwait_round(int round)
{
    struct rch_net_conn *c = &ch->conns[1];
    double t0 = rch_base_wtime();
    while (next_seq[1] <= (uint64_t)round) {
        if (rch_base_wtime() - t0 > DEADLINE) {
            FAIL("round %d: no packet from rank 1 after %.0f s", round, DEADLINE);
            return -1;
        }
        if (c->state != RCH_NET_C_READY) {       /* the connection is still being made */
            if (ops->progress(ch, 64) == 0)
                sched_yield();
            continue;
        }
        struct rch_rdma_wait w = { .fd = -1, .futex = NULL, .futex_val = 0 };
        rdmach_status_t st = ops->wait_arm(ch, &w);
        if (st == RDMACH_AGAIN) {
            ops->progress(ch, 64);
            continue;
        }
        if (st != RDMACH_OK || w.fd < 0) {
            FAIL("round %d: wait_arm: %s", round, rdmach_strerror(st));
            return -1;
        }
        if (rch_net_ring_rx_arrived(&c->rx)) {
            /* counted, and the round goes on (rank 1 waits for the answer) */
            if (failures < 3)
                FAIL("round %d: the channel armed its wait with a packet already in the ring (nothing will "
                     "wake the sleeper)", round);
            else
                failures++;
            ops->wait_disarm(ch);
            ops->progress(ch, 64);
            continue;
        }
        struct pollfd pfd = { .fd = w.fd, .events = POLLIN };
        poll(&pfd, 1, 1000);
        ops->wait_disarm(ch);
    }
    return send_kind(1, K_DONE, (uint64_t)round, 0, NULL);
}

static int mode_armwait(int n)
{
    unsigned char b[32];
    for (int k = 0; k < n; k++) {
        if (me == 0 && armwait_round(k) != 0)
            return -1;
        if (me == 1 && (send_data(0, (uint64_t)k, sizeof(b), b) != 0 ||
                        wait_count(&done_from[0], k + 1, "rank 0's answer") != 0))
            return -1;
    }
    if (me == 0)
        printf("net_job armwait: %d packets, each armed for without polling: %d slept through\n", n, failures);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int mode_pingpong(int n, size_t bytes)
{
    if (me > 1 || n < 1)
        return 0;
    int other = 1 - me;
    unsigned char *buf = calloc(1, bytes + 1);
    double *rtt = calloc((size_t)n, sizeof(double));
    if (!buf || !rtt) {
        FAIL("cannot allocate %zu + %zu bytes", bytes + 1, (size_t)n * sizeof(double));
        free(buf);
        free(rtt);
        return -1;
    }
    struct jmsg m = { .kind = K_GO, .src = me };
    double t0 = 0;
    for (int i = -100; i < n; i++) {
        double ti = rch_base_wtime();
        if (i == 0)
            t0 = ti;
        if (me == 0) {
            rdmach_status_t st = send_msg(other, &m, buf, bytes);
            if (st != RDMACH_OK) {
                FAIL("ping-pong send %d to %d: %s", i, other, rdmach_strerror(st));
                break;
            }
            if (wait_count_with(&ngo, ngo + 1, "the ping-pong's reply", 1) != 0)
                break;
            if (i >= 0)
                rtt[i] = rch_base_wtime() - ti;
        } else {
            if (wait_count_with(&ngo, ngo + 1, "the ping-pong's message", 1) != 0)
                break;
            rdmach_status_t st = send_msg(other, &m, buf, bytes);
            if (st != RDMACH_OK) {
                FAIL("ping-pong send %d to %d: %s", i, other, rdmach_strerror(st));
                break;
            }
        }
    }
    double t = rch_base_wtime() - t0;
    if (failures == 0 && me == 0) {
        qsort(rtt, (size_t)n, sizeof(double), cmp_double);
        printf("net_job pingpong: %zu bytes (+%zu header), %d round trips: %.2f us one-way (median %.2f)\n", bytes,
               sizeof(m), n, t / n / 2 * 1e6, rtt[n / 2] / 2 * 1e6);
    }
    free(rtt);
    free(buf);
    return failures ? -1 : 0;
}

static int mode_bw(int n, size_t bytes)
{
    if (me > 1)
        return 0;
    unsigned char *buf = malloc(bytes);
    memset(buf, 3, bytes);
    struct rch_rdma_mr *mr;
    struct rch_rdma_rkey rk;
    if (ops->mem_reg(ch, buf, bytes, RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_WRITE, &mr) != RDMACH_OK ||
        ops->mem_rkey(ch, mr, &rk) != RDMACH_OK) {
        FAIL("registration");
        return -1;
    }
    if (me == 1) {
        if (send_kind(0, K_RKEY, (uint64_t)(uintptr_t)buf, bytes, &rk) != 0)
            return -1;
        wait_count(&done_from[0], 1, "rank 0's DONE");
    } else {
        if (wait_count(&nrkey, 1, "the key") != 0)
            return -1;
        unsigned long posted = 0;
        double t0 = 0;
        for (int i = -10; i < n; i++) {
            if (i == 0) {
                wait_rma(posted);
                t0 = rch_base_wtime();
            }
            while (posted - rma_done >= 8)
                ops->progress(ch, 64);
            rdmach_status_t st = ops->put(ch, 1, buf, mr, bytes, &last_rkey[0].rkey, last_rkey[0].a, NULL);
            if (st != RDMACH_INPROGRESS) {
                FAIL("put: %s", rdmach_strerror(st));
                return -1;
            }
            posted++;
        }
        wait_rma(posted);
        double t = rch_base_wtime() - t0;
        printf("net_job bw: %d puts of %zu bytes: %.1f MB/s\n", n, bytes, (double)n * (double)bytes / t / 1e6);
        send_kind(1, K_DONE, 0, 0, NULL);
    }
    ops->mem_dereg(ch, mr);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    mode = argc > 1 ? argv[1] : "cross";
    rdmach_status_t st = rch_base_tun_load();
    if (st == RDMACH_OK)
        st = rch_boot_init();
    if (st != RDMACH_OK) {
        fprintf(stderr, "net_job: start-up: %s\n", rdmach_last_error());
        return 1;
    }
    me = rch_boot.rank;
    np = rch_boot.size;
    rch_log_set_rank(me);
    const char *why = NULL;
    ops = rch_rdma_select_net(&why);   /* the device's own choice (src/rdma/select.c) */
    if (ops == NULL) {
        fprintf(stderr, "net_job: rank %d: no network channel: %s\n", me, why);
        return 1;
    }
    if (me == 0)
        fprintf(stderr, "net_job %s: network channel %s: %s\n", mode, ops->name, why);
    next_seq = calloc((size_t)np, sizeof(*next_seq));
    done_from = calloc((size_t)np, sizeof(*done_from));
    int *peers = malloc(sizeof(int) * (size_t)np);
    int npeers = 0;
    for (int r = 0; r < np; r++)
        if (r != me)
            peers[npeers++] = r;
    struct rch_rdma_open_args args = {
        .boot = &rch_boot, .peers = peers, .npeers = npeers,
        .up = { .ctx = NULL, .recv = on_recv, .rma_done = on_rma_done, .peer_failed = on_peer_failed },
    };
    if ((st = ops->query()) != RDMACH_OK || (st = ops->open(&args, &ch)) != RDMACH_OK ||
        (st = ops->publish(ch)) != RDMACH_OK || (st = rch_boot_fence()) != RDMACH_OK) {
        fprintf(stderr, "net_job: rank %d: channel start-up: %s\n", me, rdmach_last_error());
        return 1;
    }
    for (int i = 0; i < npeers; i++) {
        st = ops->connect(ch, peers[i]);
        if (st != RDMACH_OK && st != RDMACH_INPROGRESS) {
            fprintf(stderr, "net_job: rank %d: connect %d: %s\n", me, peers[i], rdmach_last_error());
            return 1;
        }
    }
    if (!strcmp(mode, "nooplost") && me == 0)
        ch->test_lose_noops = 1;
    int rc;
    if (!strcmp(mode, "cross"))
        rc = mode_cross(argc > 2 ? atoi(argv[2]) : 200);
    else if (!strcmp(mode, "lazy"))
        rc = mode_lazy();
    else if (!strcmp(mode, "eager"))
        rc = mode_eager();
    else if (!strcmp(mode, "stranger"))
        rc = mode_stranger();
    else if (!strcmp(mode, "ring"))
        rc = mode_ring();
    else if (!strcmp(mode, "rma"))
        rc = mode_rma();
    else if (!strcmp(mode, "rcache"))
        rc = mode_rcache();
    else if (!strcmp(mode, "peerdeath"))
        rc = mode_peerdeath(argc > 2 ? (unsigned)atoi(argv[2]) : 0);
    else if (!strcmp(mode, "zc"))
        rc = mode_zc();
    else if (!strcmp(mode, "dynstale"))
        rc = mode_dynstale();
    else if (!strcmp(mode, "trace"))
        rc = mode_trace();
    else if (!strcmp(mode, "nooplost"))
        rc = mode_nooplost();
    else if (!strcmp(mode, "stalled"))
        rc = mode_stalled(argc > 2 && !strcmp(argv[2], "server") ? 0 : 1);
    else if (!strcmp(mode, "armwait"))
        rc = mode_armwait(argc > 2 ? atoi(argv[2]) : 200);
    else if (!strcmp(mode, "pingpong"))
        rc = mode_pingpong(argc > 2 ? atoi(argv[2]) : 10000, argc > 3 ? (size_t)atol(argv[3]) : 8);
    else if (!strcmp(mode, "bw"))
        rc = mode_bw(argc > 2 ? atoi(argv[2]) : 200, argc > 3 ? (size_t)atol(argv[3]) : ((size_t)1 << 20));
    else {
        fprintf(stderr, "net_job: unknown mode '%s'\n", mode);
        return 2;
    }
    if (bad)
        FAIL("%d bad packets", bad);
    if (nfailed && strcmp(mode, "peerdeath") != 0)
        FAIL("rank %d reported failed", failed_peer);
    /* everyone is through before anyone closes (a close is a BYE, not a failure) */
    if (strcmp(mode, "peerdeath") != 0)
        fence();
    ops->close(ch);
    rch_boot_finalize();
    if (rc != 0 || failures) {
        fprintf(stderr, "net_job %s: rank %d: FAILED\n", mode, me);
        return 1;
    }
    printf("net_job %s: rank %d ok\n", mode, me);
    free(peers);
    return 0;
}
