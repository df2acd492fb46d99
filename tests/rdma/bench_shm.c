/*
 * bench_shm: channel-level figures of the shared-memory channel (not a test).
 *
 *   bench_shm [lat|bw|ring|all]
 *
 * lat   8 B ping-pong between 2 processes pinned to cores 0 and 1: one-way
 *       latency (round trip / 2) of a 24 B header + 8 B payload packet.
 * bw    get/put bandwidth at 1 MiB and 4 MiB, single copy (CMA) and the
 *       two-copy pipeline (RDMACH_CMA=off); memcpy bandwidth for reference.
 * ring  4 ranks on the 2 cores pass a token; waiting ranks poll, yield, then
 *       block on the channel futex (RDMACH_SPIN_COUNT / RDMACH_YIELD_COUNT).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/tunables.h"
#include "rdma/shm/shm.h"
#include "shm_harness.h"

struct flag_in {
    volatile int have;
    uint64_t v;
    unsigned char m[128];
};

static void flag_recv(struct h_rank *h, int peer, const void *pkt, size_t len)
{
    struct flag_in *f = h->user;
    if (len <= sizeof(f->m))
        memcpy(f->m, pkt, len);
    f->have = 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- latency ---- */

#define LAT_ITERS 20000
#define LAT_REPS 41

static int body_lat(struct h_rank *h, void *arg)
{
    struct flag_in f = { 0 };
    h->user = &f;
    h->on_recv = flag_recv;
    unsigned char hdr[24] = { 0 }, msg[8] = { 0 };
    struct iovec iov[2] = { { hdr, 24 }, { msg, 8 } };
    int other = 1 - h->rank;
    double res[LAT_REPS];
    for (int rep = -1; rep < LAT_REPS; rep++) {
        int iters = rep < 0 ? 10000 : LAT_ITERS;
        uint64_t t0 = rch_base_now_ns();
        for (int i = 0; i < iters; i++) {
            if (h->rank == 0) {
                while (h->ops->send(h->ch, other, iov, 2) != RDMACH_OK)
                    h->ops->progress(h->ch, 64);
                while (!f.have)
                    h->ops->progress(h->ch, 64);
                f.have = 0;
            } else {
                while (!f.have)
                    h->ops->progress(h->ch, 64);
                f.have = 0;
                while (h->ops->send(h->ch, other, iov, 2) != RDMACH_OK)
                    h->ops->progress(h->ch, 64);
            }
        }
        if (rep >= 0)
            res[rep] = (double)(rch_base_now_ns() - t0) / 1e3 / iters / 2;
    }
    if (h->rank == 0) {
        qsort(res, LAT_REPS, sizeof(double), cmp_double);
        printf("lat   8 B one-way (24 B header + 8 B): min %.3f us  median %.3f us  (%d x %d round trips)\n",
               res[0], res[LAT_REPS / 2], LAT_REPS, LAT_ITERS);
    }
    return 0;
}

/* ---- bandwidth ---- */

struct offer {
    uint64_t addr;
    struct rch_rdma_rkey rkey;
};

static const size_t bw_sizes[] = { 1 << 20, 4 << 20 };
#define BW_REPS 31

static int body_bw(struct h_rank *h, void *arg)
{
    const char *mode = arg;
    struct flag_in f = { 0 };
    h->user = &f;
    h->on_recv = flag_recv;
    for (size_t s = 0; s < sizeof(bw_sizes) / sizeof(bw_sizes[0]); s++) {
        size_t n = bw_sizes[s];
        unsigned char *buf = aligned_alloc(4096, n);
        memset(buf, h->rank + 1, n);
        if (h->rank == 1) {
            struct rch_rdma_mr *mr;
            struct offer o = { .addr = (uint64_t)(uintptr_t)buf };
            if (h->ops->mem_reg(h->ch, buf, n, RCH_RDMA_ACCESS_REMOTE_READ | RCH_RDMA_ACCESS_REMOTE_WRITE, &mr) != RDMACH_OK ||
                h->ops->mem_rkey(h->ch, mr, &o.rkey) != RDMACH_OK)
                return 1;
            if (h_send(h, 0, &o, sizeof(o), NULL, 0) != RDMACH_OK || h_progress_until(h, &f.have, 120) != 0)
                return 1;
            f.have = 0;
            h->ops->mem_dereg(h->ch, mr);
        } else {
            if (h_progress_until(h, &f.have, 60) != 0)
                return 1;
            f.have = 0;
            struct offer o;
            memcpy(&o, f.m, sizeof(o));
            for (int op = 0; op < 2; op++) {
                /* many short bursts: on a shared machine the best burst is the
                 * undisturbed figure, the median what a loaded machine gives */
                int iters = (int)((64u << 20) / n);       /* 64 MiB per burst */
                double all[BW_REPS];
                for (int rep = 0; rep < BW_REPS; rep++) {
                    uint64_t t0 = rch_base_now_ns();
                    unsigned long want = h->rma_done;
                    for (int i = 0; i < iters; i++) {
                        rdmach_status_t st = op == 0
                            ? h->ops->get(h->ch, 1, buf, NULL, n, &o.rkey, o.addr, NULL)
                            : h->ops->put(h->ch, 1, buf, NULL, n, &o.rkey, o.addr, NULL);
                        if (st == RDMACH_INPROGRESS) {
                            want++;
                            if (h_wait_rma(h, want, 60) != 0)
                                return 1;
                        } else if (st != RDMACH_OK) {
                            fprintf(stderr, "rma: %s\n", rdmach_last_error());
                            return 1;
                        }
                    }
                    all[rep] = (double)n * iters / (double)(rch_base_now_ns() - t0);
                }
                qsort(all, BW_REPS, sizeof(double), cmp_double);
                printf("bw    %-4s %s %4zu KiB: best %6.2f GB/s  median %6.2f GB/s  (%d bursts of %d)\n",
                       op == 0 ? "get" : "put", mode, n >> 10, all[BW_REPS - 1], all[BW_REPS / 2], BW_REPS, iters);
                fflush(stdout);
            }
            uint64_t bye = 1;
            if (h_send(h, 1, &bye, 8, NULL, 0) != RDMACH_OK)
                return 1;
        }
        free(buf);
    }
    return h_barrier(h);
}

static void memcpy_bw(void)
{
    for (size_t s = 0; s < sizeof(bw_sizes) / sizeof(bw_sizes[0]); s++) {
        size_t n = bw_sizes[s];
        unsigned char *a = aligned_alloc(4096, n), *b = aligned_alloc(4096, n);
        memset(a, 1, n);
        memset(b, 2, n);
        int iters = (int)((64u << 20) / n);
        double all[BW_REPS];
        for (int rep = 0; rep < BW_REPS; rep++) {
            uint64_t t0 = rch_base_now_ns();
            for (int i = 0; i < iters; i++) {
                memcpy(i & 1 ? a : b, i & 1 ? b : a, n);
                __asm__ volatile("" ::: "memory");
            }
            all[rep] = (double)n * iters / (double)(rch_base_now_ns() - t0);
        }
        qsort(all, BW_REPS, sizeof(double), cmp_double);
        printf("bw    memcpy (one process)  %4zu KiB: best %6.2f GB/s  median %6.2f GB/s\n", n >> 10,
               all[BW_REPS - 1], all[BW_REPS / 2]);
        free(a);
        free(b);
    }
}

/* ---- ring of 4 ranks on 2 cores ---- */

#define RING_HOPS 20000

static int wait_flag(struct h_rank *h, struct flag_in *f)
{
    int spins = rch_tun.spin_count, yields = rch_tun.yield_count;
    for (int i = 0; !f->have; i++) {
        if (h->ops->progress(h->ch, 16) > 0) {
            i = 0;
            continue;
        }
        if (i < spins)
            continue;
        if (i < spins + yields) {
            sched_yield();
            continue;
        }
        if (h_block(h, 10.0) == 0)
            return -1;
    }
    return 0;
}

static int body_ring(struct h_rank *h, void *arg)
{
    struct flag_in f = { 0 };
    h->user = &f;
    h->on_recv = flag_recv;
    int next = (h->rank + 1) % h->size;
    uint64_t t0 = rch_base_now_ns();
    if (h->rank == 0) {
        uint64_t v = 0;
        if (h_send(h, next, &v, 8, NULL, 0) != RDMACH_OK)
            return 1;
    }
    for (;;) {
        if (wait_flag(h, &f) != 0)
            return 1;
        f.have = 0;
        uint64_t v;
        memcpy(&v, f.m, 8);
        v++;
        if (v > RING_HOPS) {
            if (v - RING_HOPS < (uint64_t)h->size && h_send(h, next, &v, 8, NULL, 0) != RDMACH_OK)
                return 1;
            break;
        }
        if (h_send(h, next, &v, 8, NULL, 0) != RDMACH_OK)
            return 1;
    }
    if (h->rank == 0)
        printf("ring  %d ranks on 2 cores, 8 B token: %.2f us per hop (%d hops; spin %d, yield %d, then futex)\n",
               h->size, (double)(rch_base_now_ns() - t0) / 1e3 / RING_HOPS, RING_HOPS, rch_tun.spin_count,
               rch_tun.yield_count);
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    int all = !strcmp(what, "all"), rc = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (all || !strcmp(what, "lat"))
        rc |= h_run("blat", &(struct h_opts){ .n = 2, .pin = 1, .timeout_s = 300 }, body_lat, NULL);
    if (all || !strcmp(what, "bw")) {
        memcpy_bw();
        setenv("RDMACH_CMA", "on", 1);
        rc |= h_run("bbw", &(struct h_opts){ .n = 2, .pin = 1, .timeout_s = 300 }, body_bw, "cma ");
        setenv("RDMACH_CMA", "off", 1);
        rc |= h_run("bbwp", &(struct h_opts){ .n = 2, .pin = 1, .timeout_s = 300 }, body_bw, "pipe");
        unsetenv("RDMACH_CMA");
    }
    if (all || !strcmp(what, "ring")) {
        rch_base_tun_load();
        rc |= h_run("bring", &(struct h_opts){ .n = 4, .pin = 1, .timeout_s = 300 }, body_ring, NULL);
    }
    return rc ? 1 : 0;
}
