/*
 * verbs_kill: a peer killed with SIGKILL in the middle of transfers, at the
 * channel level (links src/base, src/boot and src/rdma). Two ranks under
 * rdmachrun, each on its own (virtual) node:
 *
 *   rank 0                               rank 1 = parent P + victim V (child)
 *   open, publish, fence  <-----------   V: open, publish, fence, register a
 *                                           64 MiB sink, send its key
 *   puts of 1 MiB (4 in flight) into     V: counts the packets that follow
 *   V's sink, a packet after each;          each put; after 3, tells P
 *   ...                                  P: kill -9 V, notes the time
 *   sees the failure: pending puts       P: puts the time in the KVS
 *   complete with errors, peer_failed(1)
 *   fence, reads the kill time  <------>  P: fence
 *
 * Rank 1's channel lives in the victim, a child that rank 1 forks after the
 * bootstrap: the launcher ends the whole job when a rank dies by a signal,
 * so the rank itself (the parent) stays alive and the victim dies. The
 * victim uses the rank's PMI connection until it is killed; the parent uses
 * it only after that. Checks on rank 0:
 *   - the failure is seen after the kill, and within 10 s of it;
 *   - peer_failed names rank 1, exactly once;
 *   - every put posted before the failure completes, with an error once
 *     the failure is known (none is left hanging);
 *   - a send to rank 1 afterwards fails with RDMACH_ERR_PEER_DEAD and a
 *     message naming rank 1.
 * Exit 0 and "verbs_kill: rank R ok", or 1 with the reason.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "rdma/channel.h"

#define SINK ((size_t)64 << 20)
#define CHUNK ((size_t)1 << 20)
#define INFLIGHT 4
#define DEADLINE 60.0
#define DETECT_MAX 10.0
#define KEY_KILLED "verbs-kill-at"

enum { K_RKEY = 1, K_DATA };

struct kmsg {
    uint32_t kind;
    uint32_t seq;
    uint64_t addr;
    struct rch_rdma_rkey rkey;
};

static const struct rch_rdma_ops *ops = &rch_rdma_verbs_ops;
static struct rch_rdma_chan *ch;
static int me;
static int failures;

#define FAIL(...)                                                                     \
    do {                                                                              \
        fprintf(stderr, "verbs_kill: rank %d: FAIL: ", me);                           \
        fprintf(stderr, __VA_ARGS__);                                                 \
        fprintf(stderr, " [%s]\n", rdmach_last_error());                              \
        failures++;                                                                   \
    } while (0)

static int nrkey, ndata;
static struct kmsg rkey_msg;
static unsigned puts_done, puts_failed;
static int nfailed = 0, failed_peer = -1;
static rdmach_status_t failed_status;
static double failed_at;
static char failed_msg[256];

static void on_recv(void *ctx, int peer, const void *pkt, size_t len)
{
    struct kmsg m;
    if (len < sizeof(m))
        return;
    memcpy(&m, pkt, sizeof(m));
    if (m.kind == K_RKEY) {
        rkey_msg = m;
        nrkey++;
    } else if (m.kind == K_DATA) {
        ndata++;
    }
}

static void on_rma_done(void *ctx, void *op, rdmach_status_t st)
{
    puts_done++;
    puts_failed += st != RDMACH_OK;
}

static void on_peer_failed(void *ctx, int peer, rdmach_status_t st)
{
    if (nfailed++ == 0) {
        failed_at = rch_base_wtime();
        snprintf(failed_msg, sizeof(failed_msg), "%s", rdmach_last_error());
    }
    failed_peer = peer;
    failed_status = st;
}

static void poll_once(void)
{
    if (ops->progress(ch, 64) == 0)
        sched_yield();
}

static rdmach_status_t send_msg(int peer, const struct kmsg *m)
{
    struct iovec iov = { (void *)m, sizeof(*m) };
    double t0 = rch_base_wtime();
    for (;;) {
        rdmach_status_t st = ops->send(ch, peer, &iov, 1);
        if (st != RDMACH_AGAIN)
            return st;
        poll_once();
        if (rch_base_wtime() - t0 > DEADLINE)
            return rch_base_err(RDMACH_ERR_TIMEOUT, "send to rank %d: no room for %.0f s", peer, DEADLINE);
    }
}

static rdmach_status_t open_channel(void)
{
    static const int peer0[] = { 0 }, peer1[] = { 1 };
    struct rch_rdma_open_args args = {
        .boot = &rch_boot, .peers = me == 0 ? peer1 : peer0, .npeers = 1,
        .up = { .ctx = NULL, .recv = on_recv, .rma_done = on_rma_done, .peer_failed = on_peer_failed },
    };
    rdmach_status_t st;
    if ((st = ops->query()) != RDMACH_OK || (st = ops->open(&args, &ch)) != RDMACH_OK ||
        (st = ops->publish(ch)) != RDMACH_OK || (st = rch_boot_fence()) != RDMACH_OK)
        return st;
    st = ops->connect(ch, 1 - me);
    return st == RDMACH_INPROGRESS ? RDMACH_OK : st;
}

/* ---- rank 1: the victim (a child) and its parent ---- */

static void victim(int tell_fd)
{
    if (open_channel() != RDMACH_OK) {
        fprintf(stderr, "verbs_kill: victim: channel start-up: %s\n", rdmach_last_error());
        _exit(2);
    }
    unsigned char *sink = malloc(SINK);
    struct rch_rdma_mr *mr;
    struct kmsg m = { .kind = K_RKEY };
    if (sink == NULL || ops->mem_reg(ch, sink, SINK, RCH_RDMA_ACCESS_LOCAL | RCH_RDMA_ACCESS_REMOTE_WRITE, &mr) !=
                            RDMACH_OK ||
        ops->mem_rkey(ch, mr, &m.rkey) != RDMACH_OK) {
        fprintf(stderr, "verbs_kill: victim: registration: %s\n", rdmach_last_error());
        _exit(2);
    }
    m.addr = (uint64_t)(uintptr_t)sink;
    if (send_msg(0, &m) != RDMACH_OK) {
        fprintf(stderr, "verbs_kill: victim: sending the key: %s\n", rdmach_last_error());
        _exit(2);
    }
    int told = 0;
    double t0 = rch_base_wtime();
    while (rch_base_wtime() - t0 < DEADLINE) {   /* killed long before this */
        poll_once();
        if (!told && ndata >= 3) {
            char c = 'k';
            told = write(tell_fd, &c, 1) == 1;
            fprintf(stderr, "verbs_kill: victim: %d packets and their puts arrived; transfers under way\n", ndata);
        }
    }
    fprintf(stderr, "verbs_kill: victim: not killed within %.0f s\n", DEADLINE);
    _exit(3);
}

static int rank1(void)
{
    int fds[2];
    if (pipe(fds) != 0) {
        FAIL("pipe: %s", strerror(errno));
        return 1;
    }
    pid_t v = fork();
    if (v < 0) {
        FAIL("fork: %s", strerror(errno));
        return 1;
    }
    if (v == 0) {
        close(fds[0]);
        victim(fds[1]);
    }
    close(fds[1]);
    struct pollfd pf = { .fd = fds[0], .events = POLLIN };
    char c;
    int ready = poll(&pf, 1, (int)(DEADLINE * 1000)) == 1 && read(fds[0], &c, 1) == 1;
    if (kill(v, SIGKILL) != 0)
        FAIL("kill: %s", strerror(errno));
    double t_kill = rch_base_wtime();
    int status = 0;
    waitpid(v, &status, 0);
    if (!ready)
        FAIL("the victim never reported transfers under way (status %#x)", status);
    else if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
        FAIL("the victim ended otherwise than by SIGKILL (status %#x)", status);
    else
        fprintf(stderr, "verbs_kill: rank 1's channel process killed with SIGKILL mid-transfer\n");
    char val[64];
    snprintf(val, sizeof(val), "%.6f", ready ? t_kill : -1.0);
    if (rch_boot_put(KEY_KILLED, val) != RDMACH_OK || rch_boot_fence() != RDMACH_OK)
        FAIL("kvs: %s", rdmach_last_error());
    return failures ? 1 : 0;
}

/* ---- rank 0: the survivor ---- */

static int rank0(void)
{
    if (open_channel() != RDMACH_OK) {
        FAIL("channel start-up");
        return 1;
    }
    double t0 = rch_base_wtime();
    while (nrkey < 1 && rch_base_wtime() - t0 < DEADLINE)
        poll_once();
    if (nrkey < 1) {
        FAIL("no key from rank 1");
        return 1;
    }
    unsigned char *src = malloc(CHUNK);
    memset(src, 0x6b, CHUNK);
    struct rch_rdma_mr *mr;
    if (ops->mem_reg(ch, src, CHUNK, RCH_RDMA_ACCESS_LOCAL, &mr) != RDMACH_OK) {
        FAIL("registration");
        return 1;
    }
    unsigned posted = 0, posted_before_failure = 0;
    uint32_t seq = 0, sent_data = 0;
    /* stream until the failure is seen */
    while (nfailed == 0 && rch_base_wtime() - t0 < DEADLINE) {
        if (posted - puts_done < INFLIGHT) {
            uint64_t off = (uint64_t)(posted % (SINK / CHUNK)) * CHUNK;
            rdmach_status_t st = ops->put(ch, 1, src, mr, CHUNK, &rkey_msg.rkey, rkey_msg.addr + off, NULL);
            if (st == RDMACH_INPROGRESS)
                posted++;
            else if (st == RDMACH_OK)
                posted++, puts_done++;
            else if (st != RDMACH_AGAIN)
                break;   /* the failure was already noticed inside put(): seen below */
        }
        if (sent_data < puts_done) {
            struct kmsg m = { .kind = K_DATA, .seq = seq++ };
            struct iovec iov = { &m, sizeof(m) };
            rdmach_status_t st = ops->send(ch, 1, &iov, 1);
            if (st == RDMACH_OK)
                sent_data++;
        }
        poll_once();
    }
    posted_before_failure = posted;
    double t_seen = rch_base_wtime();
    /* every put posted completes */
    while (puts_done < posted && rch_base_wtime() - t_seen < DETECT_MAX)
        poll_once();
    for (int i = 0; i < 1000; i++)   /* a second peer_failed would come from here */
        ops->progress(ch, 64);
    fprintf(stderr, "verbs_kill: rank 0: %u puts posted, %u completed (%u with an error), %u packets sent; "
            "failure: %s\n", posted_before_failure, puts_done, puts_failed, sent_data,
            nfailed ? failed_msg : "none");
    if (nfailed != 1 || failed_peer != 1)
        FAIL("peer_failed was called %d times (last for rank %d), expected once for rank 1", nfailed, failed_peer);
    else if (strstr(failed_msg, "rank 1") == NULL)
        FAIL("the failure does not name rank 1: %s", failed_msg);
    if (failed_status >= 0 && nfailed)
        FAIL("peer_failed with status %d, not an error", failed_status);
    if (puts_done != posted)
        FAIL("%u of %u puts never completed after the failure", posted - puts_done, posted);
    if (nfailed && puts_failed == 0)
        FAIL("no put completed with an error, though transfers were under way when rank 1 died");
    struct kmsg m = { .kind = K_DATA };
    struct iovec iov = { &m, sizeof(m) };
    rdmach_status_t st = ops->send(ch, 1, &iov, 1);
    if (st != RDMACH_ERR_PEER_DEAD)
        FAIL("a send to the dead rank returned %s", rdmach_strerror(st));
    else if (strstr(rdmach_last_error(), "rank 1") == NULL)
        FAIL("the send's error does not name rank 1: %s", rdmach_last_error());
    /* when was it killed? */
    char val[64];
    if (rch_boot_fence() != RDMACH_OK || rch_boot_get(1, KEY_KILLED, val, sizeof(val)) != RDMACH_OK) {
        FAIL("kvs");
        return 1;
    }
    double t_kill = atof(val);
    if (t_kill < 0)
        FAIL("rank 1 could not kill its channel process");
    else if (nfailed) {
        double dt = failed_at - t_kill;
        fprintf(stderr, "verbs_kill: rank 0 saw rank 1's death %.3f s after the kill\n", dt);
        if (dt < 0)
            FAIL("the connection failed %.3f s BEFORE rank 1 was killed", -dt);
        if (dt > DETECT_MAX)
            FAIL("the failure took %.1f s to notice (at most %.0f s)", dt, DETECT_MAX);
    }
    ops->mem_dereg(ch, mr);
    ops->close(ch);
    free(src);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    rdmach_status_t st = rch_base_tun_load();
    if (st == RDMACH_OK)
        st = rch_boot_init();
    if (st != RDMACH_OK) {
        fprintf(stderr, "verbs_kill: start-up: %s\n", rdmach_last_error());
        return 1;
    }
    me = rch_boot.rank;
    rch_log_set_rank(me);
    if (rch_boot.size != 2 || rch_boot.node_of[0] == rch_boot.node_of[1]) {
        fprintf(stderr, "verbs_kill: run 2 ranks on 2 nodes (RDMACH_VNODE_SIZE=1)\n");
        return 1;
    }
    int rc = me == 0 ? rank0() : rank1();
    rch_boot_finalize();
    if (rc == 0)
        printf("verbs_kill: rank %d ok\n", me);
    else
        fprintf(stderr, "verbs_kill: rank %d: FAILED\n", me);
    return rc;
}
