/*
 * shm_job: the shared-memory channel in a real job (run it under rdmachrun
 * or mpiexec.mpich). Links src/base, src/boot and src/rdma only.
 *
 *   shm_job [MSGS]
 *
 * Every rank opens the channel to the other ranks of its node, publishes
 * through the PMI KVS, fences, connects; then checks:
 *  - its segment's name is gone from /dev/shm once every local rank mapped it;
 *  - MSGS packets (default 500) of random sizes to every local peer arrive in
 *    order and intact;
 *  - a get of 1 MiB + 3 from the next local rank and a put into the previous
 *    one (single copy, or the pipeline with RDMACH_CMA=off), data verified.
 * Exit 0 and one "ok" line per rank, or exit 1 with the reason.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "base/base.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "rdma/shm/shm.h"

#define RMA_LEN ((1u << 20) + 3)

static const struct rch_rdma_ops *ops = &rch_rdma_shm_ops;
static struct rch_rdma_chan *ch;
static int failures;

#define FAIL(...)                                                                     \
    do {                                                                              \
        fprintf(stderr, "shm_job: rank %d: FAIL: ", rch_boot.rank);                   \
        fprintf(stderr, __VA_ARGS__);                                                 \
        fprintf(stderr, " [%s]\n", rdmach_last_error());                              \
        failures++;                                                                   \
    } while (0)

struct jpkt {
    uint32_t kind;                   /* 1 data, 2 done */
    int32_t src;
    uint64_t seq;
};

static uint64_t *next_seq;           /* [size] */
static int done_from, bad_pkts;
static unsigned long rma_done;
static rdmach_status_t rma_status = RDMACH_OK;
static int peer_failures;

static unsigned char pat(uint64_t seed, size_t i)
{
    return (unsigned char)(seed * 167 + i * 13 + (i >> 9));
}

static void on_recv(void *ctx, int peer, const void *pkt, size_t len)
{
    struct jpkt h;
    if (len < sizeof(h)) {
        bad_pkts++;
        return;
    }
    memcpy(&h, pkt, sizeof(h));
    if (h.kind == 2) {
        done_from++;
        return;
    }
    const unsigned char *p = (const unsigned char *)pkt + sizeof(h);
    size_t n = len - sizeof(h);
    int ok = h.kind == 1 && h.src == peer && h.seq == next_seq[peer];
    for (size_t i = 0; ok && i < n; i++)
        ok = p[i] == pat(h.seq * 31 + (uint64_t)peer, i);
    bad_pkts += !ok;
    next_seq[peer] = h.seq + 1;
}

static void on_rma_done(void *ctx, void *op, rdmach_status_t st)
{
    rma_done++;
    if (st != RDMACH_OK)
        rma_status = st;
}

static void on_peer_failed(void *ctx, int peer, rdmach_status_t st)
{
    peer_failures++;
}

static int send_retry(int peer, const void *a, size_t alen, const void *b, size_t blen)
{
    struct iovec iov[2] = { { (void *)a, alen }, { (void *)b, blen } };
    double t0 = rch_base_wtime();
    for (;;) {
        rdmach_status_t st = ops->send(ch, peer, iov, blen ? 2 : 1);
        if (st == RDMACH_OK)
            return 0;
        if (st != RDMACH_AGAIN || rch_base_wtime() - t0 > 30)
            return -1;
        if (ops->progress(ch, 64) == 0)
            sched_yield();
    }
}

static int progress_until(int (*cond)(void *), void *arg)
{
    double t0 = rch_base_wtime();
    while (!cond(arg)) {
        if (ops->progress(ch, 64) == 0)
            sched_yield();
        if (rch_base_wtime() - t0 > 30 || peer_failures)
            return -1;
    }
    return 0;
}

static int all_data_in(void *arg)
{
    const int *msgs = arg;
    for (int i = 0; i < rch_boot.local_size; i++) {
        int r = rch_boot.local_ranks[i];
        if (r != rch_boot.rank && next_seq[r] < (uint64_t)*msgs)
            return 0;
    }
    return 1;
}

static int rma_reached(void *arg)
{
    return rma_done >= *(unsigned long *)arg;
}

static int all_done(void *arg)
{
    return done_from >= rch_boot.local_size - 1;
}

int main(int argc, char **argv)
{
    int msgs = argc > 1 ? atoi(argv[1]) : 500;
    rdmach_status_t st = rch_base_tun_load();
    if (st == RDMACH_OK)
        st = rch_boot_init();
    if (st != RDMACH_OK) {
        fprintf(stderr, "shm_job: start-up: %s\n", rdmach_last_error());
        return 1;
    }
    const struct rch_boot_info *b = &rch_boot;
    int me = b->rank, nlocal = b->local_size, li = b->local_rank;
    next_seq = calloc((size_t)b->size, sizeof(*next_seq));
    int *peers = malloc(sizeof(int) * (size_t)nlocal), npeers = 0;
    for (int i = 0; i < nlocal; i++)
        if (b->local_ranks[i] != me)
            peers[npeers++] = b->local_ranks[i];

    struct rch_rdma_open_args a = { .boot = b, .peers = peers, .npeers = npeers,
                                    .up = { .recv = on_recv, .rma_done = on_rma_done,
                                            .peer_failed = on_peer_failed } };
    if (ops->query() != RDMACH_OK || ops->open(&a, &ch) != RDMACH_OK || ops->publish(ch) != RDMACH_OK ||
        rch_boot_fence() != RDMACH_OK) {
        FAIL("open/publish/fence");
        return 1;
    }
    for (int i = 0; i < npeers; i++)
        if (ops->connect(ch, peers[i]) != RDMACH_OK)
            FAIL("connect to %d", peers[i]);
    if (rch_boot_fence() != RDMACH_OK)
        FAIL("fence after connect");

    /* every local rank mapped our segment: its name is gone */
    char name[RCH_SHM_NAME_MAX + 1], path[RCH_SHM_NAME_MAX + 16];
    struct stat sb;
    rch_shm_seg_name(name, sizeof(name), b->kvsname, me);
    snprintf(path, sizeof(path), "/dev/shm%s", name);
    if (stat(path, &sb) == 0)
        FAIL("%s still exists after every local rank mapped it", path);

    /* packets to every local peer, interleaved */
    size_t maxp = ops->caps(ch)->max_msg - sizeof(struct jpkt);
    unsigned char *buf = malloc(maxp);
    uint64_t x = 0x1234567u + (uint64_t)me;
    for (int s = 0; s < msgs; s++) {
        for (int k = 0; k < npeers; k++) {
            int peer = peers[(k + li) % npeers];
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            size_t n = (x & 7) == 0 ? (size_t)(x >> 8) % (maxp + 1) : (size_t)(x >> 8) % 200;
            for (size_t i = 0; i < n; i++)
                buf[i] = pat((uint64_t)s * 31 + (uint64_t)me, i);
            struct jpkt h = { .kind = 1, .src = me, .seq = (uint64_t)s };
            if (send_retry(peer, &h, sizeof(h), buf, n) != 0)
                FAIL("send %d to %d", s, peer);
        }
    }
    if (progress_until(all_data_in, &msgs) != 0 || bad_pkts)
        FAIL("packets: %d bad, or not all arrived", bad_pkts);

    /* RMA: expose [pattern me | zeros]; get from the next local rank, put into the previous */
    if (npeers > 0) {
        unsigned char *expo = calloc(2, RMA_LEN), *mine = malloc(RMA_LEN + 8);
        for (size_t i = 0; i < RMA_LEN; i++)
            expo[i] = pat((uint64_t)me + 7, i);
        struct rch_rdma_mr *mr;
        struct { uint64_t addr; struct rch_rdma_rkey rk; } key;
        char hex[2 * sizeof(key) + 1], kv[RDMACH_KVS_VAL_MAX];
        key.addr = (uint64_t)(uintptr_t)expo;
        if (ops->mem_reg(ch, expo, 2 * RMA_LEN, RCH_RDMA_ACCESS_REMOTE_READ | RCH_RDMA_ACCESS_REMOTE_WRITE, &mr) !=
                RDMACH_OK || ops->mem_rkey(ch, mr, &key.rk) != RDMACH_OK)
            FAIL("registration");
        rch_boot_hex_encode(&key, sizeof(key), hex);
        if (rch_boot_put("shmjob-rk", hex) != RDMACH_OK || rch_boot_fence() != RDMACH_OK)
            FAIL("key exchange");
        int next = b->local_ranks[(li + 1) % nlocal], prev = b->local_ranks[(li + nlocal - 1) % nlocal];
        unsigned long want = 0;
        if (rch_boot_get(next, "shmjob-rk", kv, sizeof(kv)) != RDMACH_OK ||
            rch_boot_hex_decode(kv, &key, sizeof(key)) != RDMACH_OK)
            FAIL("key of %d", next);
        st = ops->get(ch, next, mine + 5, NULL, RMA_LEN, &key.rk, key.addr, NULL);
        want += st == RDMACH_INPROGRESS;
        if (st != RDMACH_OK && st != RDMACH_INPROGRESS)
            FAIL("get from %d", next);
        if (progress_until(rma_reached, &want) != 0 || rma_status != RDMACH_OK)
            FAIL("get from %d did not complete", next);
        for (size_t i = 0; i < RMA_LEN; i++)
            if (mine[5 + i] != pat((uint64_t)next + 7, i)) {
                FAIL("get from %d: byte %zu wrong", next, i);
                break;
            }
        if (rch_boot_get(prev, "shmjob-rk", kv, sizeof(kv)) != RDMACH_OK ||
            rch_boot_hex_decode(kv, &key, sizeof(key)) != RDMACH_OK)
            FAIL("key of %d", prev);
        for (size_t i = 0; i < RMA_LEN; i++)
            mine[5 + i] = pat((uint64_t)me + 1000, i);
        st = ops->put(ch, prev, mine + 5, NULL, RMA_LEN, &key.rk, key.addr + RMA_LEN, NULL);
        want += st == RDMACH_INPROGRESS;
        if (st != RDMACH_OK && st != RDMACH_INPROGRESS)
            FAIL("put to %d", prev);
        if (progress_until(rma_reached, &want) != 0 || rma_status != RDMACH_OK)
            FAIL("put to %d did not complete", prev);
        /* tell everyone we are done with their memory; keep serving until all are */
        struct jpkt d = { .kind = 2, .src = me };
        for (int k = 0; k < npeers; k++)
            if (send_retry(peers[k], &d, sizeof(d), NULL, 0) != 0)
                FAIL("done to %d", peers[k]);
        if (progress_until(all_done, NULL) != 0)
            FAIL("done messages");
        for (size_t i = 0; i < RMA_LEN; i++)
            if (expo[RMA_LEN + i] != pat((uint64_t)next + 1000, i)) {
                FAIL("put from %d: byte %zu wrong", next, i);
                break;
            }
        ops->mem_dereg(ch, mr);
        free(expo);
        free(mine);
    }
    if (rch_boot_fence() != RDMACH_OK)
        FAIL("final fence");
    ops->close(ch);
    rch_boot_finalize();
    free(buf);
    free(peers);
    if (failures)
        return 1;
    printf("shm_job: rank %d of %d (local %d of %d, %s): ok\n", me, b->size, li, nlocal,
           rch_tun.cma == RCH_CMA_OFF ? "pipeline" : "single copy");
    return 0;
}
