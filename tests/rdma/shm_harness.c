/* The multi-process harness of the shared-memory channel tests (shm_harness.h). */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "base/base.h"
#include "base/tunables.h"
#include "rdma/shm/shm.h"
#include "shm_harness.h"

#define ADDR_LEN 320

static char h_addrs[H_MAX_RANKS][ADDR_LEN];
static char h_kvs[96];

void h_pattern(unsigned char *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(p + i, &x, 8);
    }
    for (; i < n; i++)
        p[i] = (unsigned char)(x >> (8 * (i % 8))) ^ (unsigned char)i;
}

long h_check_pattern(const unsigned char *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (memcmp(p + i, &x, 8) != 0) {
            for (size_t k = 0; k < 8; k++)
                if (p[i + k] != ((unsigned char *)&x)[k])
                    return (long)(i + k);
        }
    }
    for (; i < n; i++)
        if (p[i] != ((unsigned char)(x >> (8 * (i % 8))) ^ (unsigned char)i))
            return (long)i;
    return -1;
}

/* ---- upcalls ---- */

static void up_recv(void *ctx, int peer, const void *pkt, size_t len)
{
    struct h_rank *h = ctx;
    if (h->on_recv)
        h->on_recv(h, peer, pkt, len);
    else
        fprintf(stderr, "rank %d: unexpected packet of %zu bytes from %d\n", h->rank, len, peer);
}

static void up_rma_done(void *ctx, void *op_ctx, rdmach_status_t st)
{
    struct h_rank *h = ctx;
    h->rma_done++;
    h->rma_last_ctx = op_ctx;
    if (st != RDMACH_OK && h->rma_status == RDMACH_OK)
        h->rma_status = st;
}

static void up_peer_failed(void *ctx, int peer, rdmach_status_t st)
{
    struct h_rank *h = ctx;
    h->failed_peer = peer;
    h->failed_status = st;
    h->nfailed++;
}

/* ---- helpers used by bodies ---- */

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int read_line(int fd, char *buf, size_t len)
{
    size_t i = 0;
    while (i + 1 < len) {
        ssize_t n = read(fd, buf + i, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        if (buf[i] == '\n') {
            buf[i] = '\0';
            return 0;
        }
        i++;
    }
    return -1;
}

int h_barrier(struct h_rank *h)
{
    char c = 'B';
    if (write_all(h->to_parent, &c, 1) != 0)
        return -1;
    for (;;) {
        ssize_t n = read(h->from_parent, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        return n == 1 && c == 'G' ? 0 : -1;
    }
}

const char *h_addr(struct h_rank *h, int rank)
{
    return rank >= 0 && rank < h->size ? h_addrs[rank] : "";
}

const char *h_kvsname(struct h_rank *h)
{
    return h_kvs;
}

rdmach_status_t h_send(struct h_rank *h, int peer, const void *hdr, size_t hlen, const void *payload, size_t plen)
{
    struct iovec iov[2] = { { (void *)hdr, hlen }, { (void *)payload, plen } };
    double t0 = rch_base_wtime();
    for (unsigned i = 0;; i++) {
        rdmach_status_t st = h->ops->send(h->ch, peer, iov, plen ? 2 : 1);
        if (st != RDMACH_AGAIN)
            return st;
        if (h->ops->progress(h->ch, 64) == 0)
            sched_yield();
        if (i % 4096 == 4095 && rch_base_wtime() - t0 > 30)
            return rch_base_err(RDMACH_ERR_TIMEOUT, "h_send to %d: ring full for 30 s", peer);
    }
}

int h_progress_until(struct h_rank *h, volatile int *flag, double seconds)
{
    double t0 = rch_base_wtime();
    for (unsigned i = 0; !*flag; i++) {
        if (h->ops->progress(h->ch, 64) == 0)
            sched_yield();
        if (h->nfailed && flag != &h->nfailed)
            return -1;
        if (i % 1024 == 1023 && rch_base_wtime() - t0 > seconds)
            return -1;
    }
    return 0;
}

int h_wait_rma(struct h_rank *h, unsigned long count, double seconds)
{
    double t0 = rch_base_wtime();
    for (unsigned i = 0; h->rma_done < count; i++) {
        if (h->ops->progress(h->ch, 64) == 0)
            sched_yield();
        if (h->nfailed)
            return -1;
        if (i % 1024 == 1023 && rch_base_wtime() - t0 > seconds)
            return -1;
    }
    return 0;
}

int h_block(struct h_rank *h, double seconds)
{
    struct rch_rdma_wait w = { .fd = -1 };
    rdmach_status_t st = h->ops->wait_arm(h->ch, &w);
    if (st == RDMACH_AGAIN)
        return 1;
    if (st != RDMACH_OK || !w.futex)
        return -1;
    struct timespec ts = { .tv_sec = (time_t)seconds,
                           .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9) };
    long r = syscall(SYS_futex, w.futex, FUTEX_WAIT, w.futex_val, &ts, NULL, 0);
    int timed_out = r != 0 && errno == ETIMEDOUT;
    h->ops->wait_disarm(h->ch);
    return timed_out ? 0 : 1;
}

/* ---- the child ---- */

static int child_main(struct h_rank *h, const struct h_opts *o, h_body_fn body, void *arg)
{
    rdmach_status_t st;
    int n = o->n;
    if (o->pin) {
        cpu_set_t set;
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        CPU_ZERO(&set);
        CPU_SET(h->rank % (ncpu > 0 ? ncpu : 1), &set);
        sched_setaffinity(0, sizeof(set), &set);
    }
    st = rch_base_tun_load();
    H_CHECK(st == RDMACH_OK, "tunables");
    if (o->before_open)
        H_CHECK(o->before_open(h->rank, arg) == 0, "before_open");

    struct rch_boot_info *b = &h->boot;
    memset(b, 0, sizeof(*b));
    b->rank = h->rank;
    b->size = n;
    b->node = 0;
    b->num_nodes = 1;
    b->local_rank = h->rank;
    b->local_size = n;
    b->node_of = h->node_of;
    b->local_ranks = h->local_ranks;
    b->bound_core = -1;
    b->bound_numa = -1;
    snprintf(b->hostname, sizeof(b->hostname), "localhost");
    snprintf(b->kvsname, sizeof(b->kvsname), "%s", h_kvs);
    for (int i = 0; i < n; i++) {
        h->node_of[i] = 0;
        h->local_ranks[i] = i;
        if (i != h->rank || o->self_peer)
            h->peers[h->npeers++] = i;
    }
    struct rch_rdma_open_args args = {
        .boot = b,
        .peers = h->peers,
        .npeers = h->npeers,
        .up = { .ctx = h, .recv = up_recv, .rma_done = up_rma_done, .peer_failed = up_peer_failed },
    };
    h->ops = &rch_rdma_shm_ops;
    H_CHECK(h->ops->query() == RDMACH_OK, "query");
    H_CHECK(h->ops->open(&args, &h->ch) == RDMACH_OK, "open");

    char addr[ADDR_LEN];
    H_CHECK(rch_shm_publish_local(h->ch, addr, sizeof(addr) - 1) == RDMACH_OK, "publish");
    strcat(addr, "\n");
    H_CHECK(write_all(h->to_parent, addr, strlen(addr)) == 0, "address to parent");
    for (int i = 0; i < n; i++)
        H_CHECK(read_line(h->from_parent, h_addrs[i], ADDR_LEN) == 0, "address table");
    if (!o->no_connect) {
        for (int i = 0; i < h->npeers; i++)
            H_CHECK(rch_shm_connect_addr(h->ch, h->peers[i], h_addrs[h->peers[i]]) == RDMACH_OK,
                    "connect to %d", h->peers[i]);
        H_CHECK(h_barrier(h) == 0, "barrier after connect");
    }
    int rc = body(h, arg);
    h->ops->close(h->ch);
    return rc;
}

/* ---- the parent ---- */

static void kill_all(pid_t *pids, int n)
{
    for (int i = 0; i < n; i++)
        if (pids[i] > 0)
            kill(pids[i], SIGKILL);
}

int h_run(const char *name, const struct h_opts *o, h_body_fn body, void *arg)
{
    static int job_counter;
    int n = o->n, timeout = o->timeout_s ? o->timeout_s : 60;
    int up[H_MAX_RANKS][2], down[H_MAX_RANKS][2];
    pid_t pids[H_MAX_RANKS] = { 0 };
    if (n < 1 || n > H_MAX_RANKS)
        return -1;
    snprintf(h_kvs, sizeof(h_kvs), "t%s%dx%d", name, (int)getpid(), job_counter++);
    for (int i = 0; i < n; i++)
        if (pipe(up[i]) != 0 || pipe(down[i]) != 0)
            return -1;
    fflush(NULL);
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] < 0) {
            kill_all(pids, i);
            return -1;
        }
        if (pids[i] == 0) {
            for (int j = 0; j < n; j++) {
                if (j != i) {
                    close(up[j][0]);
                    close(up[j][1]);
                    close(down[j][0]);
                    close(down[j][1]);
                }
            }
            close(up[i][0]);
            close(down[i][1]);
            struct h_rank *h = calloc(1, sizeof(*h));
            h->rank = i;
            h->size = n;
            h->to_parent = up[i][1];
            h->from_parent = down[i][0];
            h->failed_peer = -1;
            int rc = child_main(h, o, body, arg);
            _exit(rc == 0 ? 0 : 1);
        }
    }
    for (int i = 0; i < n; i++) {
        close(up[i][1]);
        close(down[i][0]);
    }

    int ok = 1;
    double deadline = rch_base_wtime() + timeout;
    /* addresses: one line from each, then the table to each */
    char table[H_MAX_RANKS * ADDR_LEN] = "";
    for (int i = 0; i < n && ok; i++) {
        char line[ADDR_LEN];
        if (read_line(up[i][0], line, sizeof(line)) != 0) {
            fprintf(stderr, "%s: rank %d failed before publishing its address\n", name, i);
            ok = 0;
            break;
        }
        strcat(table, line);
        strcat(table, "\n");
    }
    for (int i = 0; i < n && ok; i++)
        write_all(down[i][1], table, strlen(table));

    /* barriers until every child has closed its pipe */
    int alive = n, waiting = 0;
    int open_fd[H_MAX_RANKS], at_barrier[H_MAX_RANKS] = { 0 };
    for (int i = 0; i < n; i++)
        open_fd[i] = 1;
    while (ok && alive > 0) {
        struct pollfd pf[H_MAX_RANKS];
        int map[H_MAX_RANKS], np = 0;
        for (int i = 0; i < n; i++)
            if (open_fd[i]) {
                pf[np].fd = up[i][0];
                pf[np].events = POLLIN;
                map[np++] = i;
            }
        int ms = (int)((deadline - rch_base_wtime()) * 1000);
        if (ms <= 0 || poll(pf, (nfds_t)np, ms) == 0) {
            fprintf(stderr, "%s: timed out after %d s (a lost wake-up or a deadlock?)\n", name, timeout);
            ok = 0;
            break;
        }
        for (int k = 0; k < np; k++) {
            if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int i = map[k];
            char c;
            ssize_t r = read(up[i][0], &c, 1);
            if (r == 1 && c == 'B' && !at_barrier[i]) {
                at_barrier[i] = 1;
                waiting++;
            } else if (r <= 0) {
                open_fd[i] = 0;
                alive--;
            }
        }
        if (waiting > 0 && waiting == alive && alive == n) {
            for (int i = 0; i < n; i++) {
                at_barrier[i] = 0;
                write_all(down[i][1], "G", 1);
            }
            waiting = 0;
        } else if (waiting > 0 && waiting == alive) {
            fprintf(stderr, "%s: ranks wait at a barrier that an exited rank will never reach\n", name);
            ok = 0;
        }
    }
    if (!ok)
        kill_all(pids, n);
    for (int i = 0; i < n; i++) {
        int status = 0;
        waitpid(pids[i], &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (WIFSIGNALED(status))
                fprintf(stderr, "%s: rank %d killed by signal %d\n", name, i, WTERMSIG(status));
            else
                fprintf(stderr, "%s: rank %d exited with %d\n", name, i, WEXITSTATUS(status));
            ok = 0;
        }
        close(up[i][0]);
        close(down[i][1]);
        /* what the launcher does after a crash: no segment may outlive the job */
        char seg[RCH_SHM_NAME_MAX + 1];
        if (rch_shm_seg_name(seg, sizeof(seg), h_kvs, i) == RDMACH_OK && shm_unlink(seg) == 0 && ok) {
            fprintf(stderr, "%s: segment /dev/shm%s outlived the job\n", name, seg);
            ok = 0;
        }
    }
    return ok ? 0 : -1;
}
