/*
 * get/put of the shared-memory channel across processes: single copy
 * (process_vm_readv/writev) and the two-copy pipeline (RDMACH_CMA=off, or
 * single copy refused by the kernel), sizes 0 B .. 16 MiB, misaligned
 * buffers, data verified; concurrent transfers both ways through the same
 * pipes; registration checks on the owner's side.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "base/base.h"
#include "base/tunables.h"
#include "rdma/shm/shm.h"
#include "shm_harness.h"

enum { M_OFFER = 1, M_DONE, M_BYE };

struct msg {
    uint32_t type;
    uint32_t idx;
    uint64_t size;
    uint64_t addr;
    struct rch_rdma_rkey rkey;
};

struct inbox {
    volatile int have;
    struct msg m;
};

static void inbox_recv(struct h_rank *h, int peer, const void *pkt, size_t len)
{
    struct inbox *in = h->user;
    if (len == sizeof(struct msg) && !in->have) {
        memcpy(&in->m, pkt, sizeof(in->m));
        in->have = 1;
    } else {
        fprintf(stderr, "rank %d: unexpected packet (%zu bytes, inbox %s)\n", h->rank, len,
                in->have ? "full" : "empty");
    }
}

static int take(struct h_rank *h, struct inbox *in, uint32_t type, struct msg *out)
{
    if (h_progress_until(h, &in->have, 60) != 0)
        return -1;
    *out = in->m;
    in->have = 0;
    return out->type == type ? 0 : -1;
}

static const size_t sizes[] = {
    0, 1, 7, 63, 64, 65, 4095, 4096, 4097, 32767, 32768, 32769, 100000, 1 << 20, (1 << 20) + 3,
    (4 << 20) - 5, 16 << 20,
};

struct rma_opts {
    int expect_cma;     /* 1: single copy, 0: pipeline, -1: whatever was probed */
    int both_ways;      /* rank 1 also gets from rank 0 at the same time */
    int nonblocking;    /* several transfers in flight */
};

/* Wait for an op that returned st: OK is done, INPROGRESS needs rma_done. */
static int finish(struct h_rank *h, rdmach_status_t st, unsigned long *expected_done)
{
    if (st == RDMACH_INPROGRESS) {
        (*expected_done)++;
        if (h_wait_rma(h, *expected_done, 60) != 0)
            return -1;
        return h->rma_status == RDMACH_OK ? 0 : -1;
    }
    return st == RDMACH_OK ? 0 : -1;
}

/* Rank 1 offers a registered buffer per size; rank 0 gets it, checks it, puts
 * another pattern back; rank 1 checks that. Offsets make both sides misaligned. */
static int body_rma(struct h_rank *h, void *arg)
{
    const struct rma_opts *ro = arg;
    struct inbox in = { 0 };
    h->user = &in;
    h->on_recv = inbox_recv;
    int other = 1 - h->rank;
    unsigned long ndone = 0;
    if (ro->expect_cma >= 0)
        H_CHECK(rch_shm_peer_cma(h->ch, other) == ro->expect_cma, "single copy to rank %d: expected %s", other,
                ro->expect_cma ? "on" : "off (pipeline)");
    for (uint32_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        size_t off = 1 + i % 7;
        unsigned char *mem = malloc(n + 16);
        unsigned char *buf = mem + off;
        struct msg m;
        if (h->rank == 1) {
            struct rch_rdma_mr *mr;
            memset(mem, 0xee, n + 16);
            h_pattern(buf, n, i);
            H_CHECK(h->ops->mem_reg(h->ch, buf, n, RCH_RDMA_ACCESS_REMOTE_READ | RCH_RDMA_ACCESS_REMOTE_WRITE, &mr)
                    == RDMACH_OK, "mem_reg");
            m = (struct msg){ .type = M_OFFER, .idx = i, .size = n, .addr = (uint64_t)(uintptr_t)buf };
            H_CHECK(h->ops->mem_rkey(h->ch, mr, &m.rkey) == RDMACH_OK, "rkey");
            H_CHECK(h_send(h, 0, &m, sizeof(m), NULL, 0) == RDMACH_OK, "offer");
            H_CHECK(take(h, &in, M_DONE, &m) == 0 && m.idx == i, "done %u", i);
            long bad = h_check_pattern(buf, n, i + 1000);
            H_CHECK(bad < 0, "put of %zu bytes: byte %ld wrong", n, bad);
            H_CHECK(mem[off - 1] == 0xee && mem[off + n] == 0xee, "put wrote outside the buffer");
            h->ops->mem_dereg(h->ch, mr);
        } else {
            memset(mem, 0xee, n + 16);
            H_CHECK(take(h, &in, M_OFFER, &m) == 0 && m.idx == i && m.size == n, "offer %u", i);
            rdmach_status_t st = h->ops->get(h->ch, 1, buf, NULL, n, &m.rkey, m.addr, (void *)(uintptr_t)(i + 1));
            if (n > 0 && ro->expect_cma == 1)
                H_CHECK(st == RDMACH_OK || (st == RDMACH_INPROGRESS && n >= rch_tun.shm_cma_split &&
                                            rch_tun.shm_cma_split > 0),
                        "single-copy get completes at once, unless shared with the peer (%d)", st);
            if (n > 0 && ro->expect_cma == 0)
                H_CHECK(st == RDMACH_INPROGRESS, "pipelined get completes later (%d)", st);
            H_CHECK(finish(h, st, &ndone) == 0, "get of %zu bytes: status %d / %d", n, st, h->rma_status);
            long bad = h_check_pattern(buf, n, i);
            H_CHECK(bad < 0, "get of %zu bytes (offset %zu): byte %ld wrong", n, off, bad);
            H_CHECK(mem[off - 1] == 0xee && mem[off + n] == 0xee, "get wrote outside the buffer");
            h_pattern(buf, n, i + 1000);
            st = h->ops->put(h->ch, 1, buf, NULL, n, &m.rkey, m.addr, (void *)(uintptr_t)(i + 1));
            H_CHECK(finish(h, st, &ndone) == 0, "put of %zu bytes: status %d / %d", n, st, h->rma_status);
            m = (struct msg){ .type = M_DONE, .idx = i };
            H_CHECK(h_send(h, 1, &m, sizeof(m), NULL, 0) == RDMACH_OK, "done");
        }
        free(mem);
    }
    return h_barrier(h);
}

Test(shm_rma, single_copy_get_and_put_from_0_bytes_to_16_MiB, .timeout = 120)
{
    setenv("RDMACH_CMA", "auto", 1);
    struct rma_opts ro = { .expect_cma = 1 };
    cr_assert_eq(h_run("cma", &(struct h_opts){ .n = 2 }, body_rma, &ro), 0);
}

Test(shm_rma, pipelined_get_and_put_from_0_bytes_to_16_MiB, .timeout = 120)
{
    setenv("RDMACH_CMA", "off", 1);
    struct rma_opts ro = { .expect_cma = 0 };
    cr_assert_eq(h_run("pipe", &(struct h_opts){ .n = 2 }, body_rma, &ro), 0);
}

Test(shm_rma, pipelined_with_the_smallest_chunk, .timeout = 120)
{
    setenv("RDMACH_CMA", "off", 1);
    setenv("RDMACH_SHM_PIPE_CHUNK", "4k", 1);
    struct rma_opts ro = { .expect_cma = 0 };
    cr_assert_eq(h_run("pipe4k", &(struct h_opts){ .n = 2 }, body_rma, &ro), 0);
}

/* ---- many transfers at once, both directions, gets and puts mixed ---- */

#define NCONC 12
#define CONC_SIZE (300 * 1000 + 17)

static int body_concurrent(struct h_rank *h, void *arg)
{
    struct inbox in = { 0 };
    h->user = &in;
    h->on_recv = inbox_recv;
    int other = 1 - h->rank;
    /* my exposed region: NCONC slots read by the peer, NCONC slots it writes */
    size_t slot = CONC_SIZE + 64;
    unsigned char *expo = calloc(2 * NCONC, slot);
    unsigned char *mine = calloc(2 * NCONC, slot);
    for (int k = 0; k < NCONC; k++)
        h_pattern(expo + k * slot + 1, CONC_SIZE, (uint64_t)(100 * h->rank + k));
    struct rch_rdma_mr *mr;
    H_CHECK(h->ops->mem_reg(h->ch, expo, 2 * NCONC * slot,
                            RCH_RDMA_ACCESS_REMOTE_READ | RCH_RDMA_ACCESS_REMOTE_WRITE, &mr) == RDMACH_OK, "reg");
    struct msg m = { .type = M_OFFER, .addr = (uint64_t)(uintptr_t)expo };
    H_CHECK(h->ops->mem_rkey(h->ch, mr, &m.rkey) == RDMACH_OK, "rkey");
    H_CHECK(h_send(h, other, &m, sizeof(m), NULL, 0) == RDMACH_OK, "offer");
    struct msg peer;
    H_CHECK(take(h, &in, M_OFFER, &peer) == 0, "offer from peer");

    /* all at once: NCONC gets of the peer's slots, NCONC puts into its second half */
    unsigned long started = 0, immediate = 0;
    for (int k = 0; k < NCONC; k++) {
        unsigned char *dst = mine + k * slot + 3;
        rdmach_status_t st = h->ops->get(h->ch, other, dst, NULL, CONC_SIZE, &peer.rkey,
                                         peer.addr + (uint64_t)k * slot + 1, (void *)(uintptr_t)(k + 1));
        H_CHECK(st == RDMACH_OK || st == RDMACH_INPROGRESS, "get %d: %d", k, st);
        started += st == RDMACH_INPROGRESS;
        immediate += st == RDMACH_OK;
        unsigned char *src = mine + (NCONC + k) * slot + 5;
        h_pattern(src, CONC_SIZE, (uint64_t)(1000 + 100 * h->rank + k));
        st = h->ops->put(h->ch, other, src, NULL, CONC_SIZE, &peer.rkey,
                         peer.addr + (uint64_t)(NCONC + k) * slot + 7, (void *)(uintptr_t)(k + 100));
        H_CHECK(st == RDMACH_OK || st == RDMACH_INPROGRESS, "put %d: %d", k, st);
        started += st == RDMACH_INPROGRESS;
    }
    H_CHECK(h_wait_rma(h, started, 60) == 0, "%lu of %lu transfers completed", h->rma_done, started);
    H_CHECK(h->rma_status == RDMACH_OK, "status %d", h->rma_status);
    for (int k = 0; k < NCONC; k++) {
        long bad = h_check_pattern(mine + k * slot + 3, CONC_SIZE, (uint64_t)(100 * other + k));
        H_CHECK(bad < 0, "get %d: byte %ld", k, bad);
    }
    /* tell the peer our puts are complete, and wait for its puts */
    m = (struct msg){ .type = M_DONE };
    H_CHECK(h_send(h, other, &m, sizeof(m), NULL, 0) == RDMACH_OK, "done");
    H_CHECK(take(h, &in, M_DONE, &peer) == 0, "done from peer");
    for (int k = 0; k < NCONC; k++) {
        long bad = h_check_pattern(expo + (NCONC + k) * slot + 7, CONC_SIZE, (uint64_t)(1000 + 100 * other + k));
        H_CHECK(bad < 0, "put %d into me: byte %ld", k, bad);
    }
    H_CHECK(h_barrier(h) == 0, "barrier");
    h->ops->mem_dereg(h->ch, mr);
    free(expo);
    free(mine);
    return 0;
}

Test(shm_rma, pipelined_transfers_in_flight_both_ways, .timeout = 120)
{
    setenv("RDMACH_CMA", "off", 1);
    setenv("RDMACH_SHM_PIPE_CHUNK", "8k", 1);
    cr_assert_eq(h_run("conc", &(struct h_opts){ .n = 2 }, body_concurrent, NULL), 0);
}

Test(shm_rma, single_copy_transfers_in_flight_both_ways, .timeout = 120)
{
    setenv("RDMACH_CMA", "on", 1);
    cr_assert_eq(h_run("cconc", &(struct h_opts){ .n = 2 }, body_concurrent, NULL), 0);
}

/* ---- the owner checks its registrations (pipeline) ---- */

static int body_unregistered(struct h_rank *h, void *arg)
{
    struct inbox in = { 0 };
    h->user = &in;
    h->on_recv = inbox_recv;
    static unsigned char area[65536];
    struct msg m;
    if (h->rank == 1) {
        struct rch_rdma_mr *mr;
        H_CHECK(h->ops->mem_reg(h->ch, area, sizeof(area), RCH_RDMA_ACCESS_REMOTE_READ, &mr) == RDMACH_OK, "reg");
        m = (struct msg){ .type = M_OFFER, .addr = (uint64_t)(uintptr_t)area };
        H_CHECK(h->ops->mem_rkey(h->ch, mr, &m.rkey) == RDMACH_OK, "rkey");
        h->ops->mem_dereg(h->ch, mr);     /* the key now names memory that is not registered */
        H_CHECK(h_send(h, 0, &m, sizeof(m), NULL, 0) == RDMACH_OK, "offer");
        H_CHECK(take(h, &in, M_DONE, &m) == 0, "done");
    } else {
        unsigned char dst[65536];
        H_CHECK(take(h, &in, M_OFFER, &m) == 0, "offer");
        rdmach_status_t st = h->ops->get(h->ch, 1, dst, NULL, sizeof(dst), &m.rkey, m.addr, (void *)7);
        H_CHECK(st == RDMACH_INPROGRESS, "pipelined get: %d", st);
        H_CHECK(h_wait_rma(h, 1, 30) == 0, "the refused get completes");
        H_CHECK(h->rma_status == RDMACH_ERR_INVALID_ARG && h->rma_last_ctx == (void *)7, "status %d",
                h->rma_status);
        m = (struct msg){ .type = M_DONE };
        H_CHECK(h_send(h, 1, &m, sizeof(m), NULL, 0) == RDMACH_OK, "done");
    }
    return h_barrier(h);
}

Test(shm_rma, pipelined_get_of_unregistered_memory_fails_cleanly, .timeout = 60)
{
    setenv("RDMACH_CMA", "off", 1);
    cr_assert_eq(h_run("unreg", &(struct h_opts){ .n = 2 }, body_unregistered, NULL), 0);
}

/* ---- single copy refused by the kernel ---- */

/* Both ranks become an unprivileged user (no CAP_SYS_PTRACE); rank 1 makes
 * itself non-dumpable, so rank 0 may not read it (EPERM) while rank 1 may
 * still read rank 0. */
static int drop_privileges(int rank, void *arg)
{
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
        return -1;
    /* changing uid resets "dumpable" to fs.suid_dumpable: set it explicitly */
    return prctl(PR_SET_DUMPABLE, rank == 1 ? 0 : 1) == 0 ? 0 : -1;
}

static int body_refused(struct h_rank *h, void *arg)
{
    H_CHECK(rch_shm_peer_cma(h->ch, 1 - h->rank) == (h->rank == 1), "rank %d: single copy to %d is %s",
            h->rank, 1 - h->rank, h->rank == 1 ? "allowed" : "refused");
    struct rma_opts ro = { .expect_cma = -1 };
    return body_rma(h, &ro);
}

Test(shm_rma, single_copy_refused_falls_back_to_the_pipeline, .timeout = 120)
{
    setenv("RDMACH_CMA", "auto", 1);
    struct h_opts o = { .n = 2, .before_open = drop_privileges };
    cr_assert_eq(h_run("refused", &o, body_refused, NULL), 0);
}

static int body_refused_on(struct h_rank *h, void *arg)
{
    /* connect ourselves: rank 0's connect to rank 1 must fail and say why */
    for (int r = 0; r < h->size; r++) {
        if (r == h->rank)
            continue;
        rdmach_status_t st = rch_shm_connect_addr(h->ch, r, h_addr(h, r));
        if (h->rank == 0) {
            H_CHECK(st == RDMACH_ERR_UNSUPPORTED, "connect with single copy refused: %d", st);
            H_CHECK(strstr(rdmach_last_error(), "RDMACH_CMA=on") &&
                    strstr(rdmach_last_error(), "Operation not permitted") &&
                    strstr(rdmach_last_error(), "rank 1"), "message: %s", rdmach_last_error());
        } else {
            H_CHECK(st == RDMACH_OK, "rank 1 may read rank 0");
        }
    }
    return h_barrier(h);
}

Test(shm_rma, single_copy_on_but_refused_is_an_error_naming_the_cause, .timeout = 60)
{
    setenv("RDMACH_CMA", "on", 1);
    struct h_opts o = { .n = 2, .before_open = drop_privileges, .no_connect = 1 };
    cr_assert_eq(h_run("refusedon", &o, body_refused_on, NULL), 0);
}

/* ---- a peer whose pid means nothing here ---- */

static int body_other_namespace(struct h_rank *h, void *arg)
{
    for (int r = 0; r < h->size; r++) {
        if (r == h->rank)
            continue;
        char addr[400];
        snprintf(addr, sizeof(addr), "%s", h_addr(h, r));
        if (h->rank == 0) {
            /* rank 1's address as seen from another pid namespace */
            char *last = strrchr(addr, ',');
            H_CHECK(last != NULL, "address %s", addr);
            strcpy(last + 1, "4026531999");
        }
        H_CHECK(rch_shm_connect_addr(h->ch, r, addr) == RDMACH_OK, "connect %d", r);
    }
    H_CHECK(h_barrier(h) == 0, "barrier");
    H_CHECK(rch_shm_peer_cma(h->ch, 1 - h->rank) == (h->rank == 1), "single copy only where the pid is usable");
    struct rma_opts ro = { .expect_cma = -1 };
    return body_rma(h, &ro);
}

Test(shm_rma, a_peer_in_another_pid_namespace_uses_the_pipeline, .timeout = 120)
{
    setenv("RDMACH_CMA", "auto", 1);
    struct h_opts o = { .n = 2, .no_connect = 1 };
    cr_assert_eq(h_run("pidns", &o, body_other_namespace, NULL), 0);
}

/* ---- a large single copy is shared with the peer ---- */

static int body_shared_copy(struct h_rank *h, void *arg)
{
    struct inbox in = { 0 };
    h->user = &in;
    h->on_recv = inbox_recv;
    const size_t n = 16u << 20;
    unsigned char *buf = malloc(n + 8);
    struct msg m;
    if (h->rank == 1) {
        struct rch_rdma_mr *mr;
        h_pattern(buf + 1, n, 42);
        H_CHECK(h->ops->mem_reg(h->ch, buf + 1, n, RCH_RDMA_ACCESS_REMOTE_READ | RCH_RDMA_ACCESS_REMOTE_WRITE, &mr)
                == RDMACH_OK, "reg");
        m = (struct msg){ .type = M_OFFER, .addr = (uint64_t)(uintptr_t)(buf + 1), .size = n };
        H_CHECK(h->ops->mem_rkey(h->ch, mr, &m.rkey) == RDMACH_OK, "rkey");
        H_CHECK(h_send(h, 0, &m, sizeof(m), NULL, 0) == RDMACH_OK, "offer");
        /* serve (and help) until rank 0 is done; report how much we helped */
        H_CHECK(take(h, &in, M_DONE, &m) == 0, "done");
        const struct rch_shm_stats *s = rch_shm_get_stats(h->ch);
        m = (struct msg){ .type = M_BYE, .size = s->coop_chunks_helped };
        H_CHECK(h_send(h, 0, &m, sizeof(m), NULL, 0) == RDMACH_OK, "bye");
        h->ops->mem_dereg(h->ch, mr);
    } else {
        H_CHECK(take(h, &in, M_OFFER, &m) == 0, "offer");
        unsigned long ndone = 0;
        /* rank 1 spins in progress: it takes chunks in (nearly) every transfer;
         * repeat so that a descheduled helper cannot fail the test */
        for (int attempt = 0; attempt < 20; attempt++) {
            memset(buf, 0, n + 8);
            rdmach_status_t st = h->ops->get(h->ch, 1, buf + 3, NULL, n, &m.rkey, m.addr, (void *)1);
            H_CHECK(finish(h, st, &ndone) == 0, "get: %d", st);
            long bad = h_check_pattern(buf + 3, n, 42);
            H_CHECK(bad < 0, "attempt %d: byte %ld wrong", attempt, bad);
            H_CHECK(buf[2] == 0 && buf[n + 3] == 0, "wrote outside");
        }
        const struct rch_shm_stats *s = rch_shm_get_stats(h->ch);
        H_CHECK(s->coop_started == 20, "every 16 MiB get was shared (%lu)", s->coop_started);
        m = (struct msg){ .type = M_DONE };
        H_CHECK(h_send(h, 1, &m, sizeof(m), NULL, 0) == RDMACH_OK, "done");
        H_CHECK(take(h, &in, M_BYE, &m) == 0, "bye");
        H_CHECK(m.size > 0, "rank 1 never took a chunk of 20 shared copies");
        fprintf(stderr, "shared single copy: the peer copied %llu of %d chunks\n", (unsigned long long)m.size,
                20 * 64);
    }
    free(buf);
    return h_barrier(h);
}

Test(shm_rma, a_large_single_copy_is_shared_with_the_peer, .timeout = 120)
{
    setenv("RDMACH_CMA", "on", 1);
    cr_assert_eq(h_run("coop", &(struct h_opts){ .n = 2 }, body_shared_copy, NULL), 0);
}

static int body_not_shared(struct h_rank *h, void *arg)
{
    struct rma_opts ro = { .expect_cma = 1 };
    int rc = body_rma(h, &ro);
    H_CHECK(rch_shm_get_stats(h->ch)->coop_started == 0, "RDMACH_SHM_CMA_SPLIT=0 never shares");
    return rc;
}

Test(shm_rma, single_copy_is_not_shared_with_split_0, .timeout = 120)
{
    setenv("RDMACH_CMA", "on", 1);
    setenv("RDMACH_SHM_CMA_SPLIT", "0", 1);
    cr_assert_eq(h_run("nocoop", &(struct h_opts){ .n = 2 }, body_not_shared, NULL), 0);
}

/* ---- pipelined gets with stealing (RDMACH_SHM_GET, the rendezvous path) ----
 *
 * A get with a local registration is pipelined: the owner copies chunks in
 * from the front while it progresses, the getter takes the rest from the back
 * with single copy once the owner has served nothing for a while. Every chunk
 * is copied exactly once: the owner's pipe chunks plus the getter's stolen
 * chunks make the whole transfer, whatever the owner did. */

enum steal_mode { OWNER_SERVES, OWNER_IDLE, OWNER_STOPS, OWNER_SERVES_SMALL, OWNER_IDLE_SMALL };

static int body_pipe_get(struct h_rank *h, void *arg)
{
    const enum steal_mode mode = *(const enum steal_mode *)arg;
    struct inbox in = { 0 };
    h->user = &in;
    h->on_recv = inbox_recv;
    const int small = mode == OWNER_SERVES_SMALL || mode == OWNER_IDLE_SMALL;
    /* a partial last chunk; small: 64 KiB + 5 bytes in chunks of a quarter
     * of it in whole pages (20 KiB), not one pipe buffer's 64 KiB and 5 bytes */
    const size_t n = (small ? 64u << 10 : mode == OWNER_STOPS ? 32u << 20 : 8u << 20) + 5;
    const size_t nchunks = small ? 4 : (n + rch_tun.shm_pipe_chunk - 1) / rch_tun.shm_pipe_chunk;
    unsigned char *mem = malloc(n + 8);
    struct msg m;
    if (h->rank == 1) {
        struct rch_rdma_mr *mr;
        h_pattern(mem + 1, n, 77);
        H_CHECK(h->ops->mem_reg(h->ch, mem + 1, n, RCH_RDMA_ACCESS_REMOTE_READ, &mr) == RDMACH_OK, "reg");
        m = (struct msg){ .type = M_OFFER, .addr = (uint64_t)(uintptr_t)(mem + 1), .size = n };
        H_CHECK(h->ops->mem_rkey(h->ch, mr, &m.rkey) == RDMACH_OK, "rkey");
        H_CHECK(h_send(h, 0, &m, sizeof(m), NULL, 0) == RDMACH_OK, "offer");
        const struct rch_shm_stats *s = rch_shm_get_stats(h->ch);
        if (mode == OWNER_SERVES || mode == OWNER_SERVES_SMALL) {
            H_CHECK(take(h, &in, M_DONE, &m) == 0, "done");            /* progressing all along */
        } else if (mode == OWNER_STOPS) {
            /* serve a few chunks (or none, if rank 0 is faster), then stop progressing */
            double t0 = rch_base_wtime();
            while (s->pipe_chunks < 3 && !in.have && rch_base_wtime() - t0 < 30)
                h->ops->progress(h->ch, 64);
        }
        H_CHECK(h_barrier(h) == 0, "barrier");                          /* no progress in here */
        /* the stale request (if not yet seen) finds every chunk taken */
        unsigned long served = s->pipe_chunks;
        for (int k = 0; k < 1000; k++)
            h->ops->progress(h->ch, 64);
        H_CHECK(s->pipe_chunks == served, "served %lu chunks after the get had finished (before: %lu)",
                s->pipe_chunks, served);
        if (mode == OWNER_IDLE || mode == OWNER_IDLE_SMALL)
            H_CHECK(served == 0, "an owner that never progressed served %lu chunks", served);
        m = (struct msg){ .type = M_BYE, .size = served };
        H_CHECK(h_send(h, 0, &m, sizeof(m), NULL, 0) == RDMACH_OK, "bye");
        h->ops->mem_dereg(h->ch, mr);
    } else {
        struct rch_rdma_mr *lmr;
        H_CHECK(take(h, &in, M_OFFER, &m) == 0, "offer");
        memset(mem, 0, n + 8);
        H_CHECK(h->ops->mem_reg(h->ch, mem + 3, n, RCH_RDMA_ACCESS_LOCAL, &lmr) == RDMACH_OK, "local reg");
        unsigned long ndone = 0;
        rdmach_status_t st = h->ops->get(h->ch, 1, mem + 3, lmr, n, &m.rkey, m.addr, (void *)9);
        H_CHECK(st == RDMACH_INPROGRESS, "a pipelined get completes later (%d)", st);
        H_CHECK(finish(h, st, &ndone) == 0, "get: %d / %d", st, h->rma_status);
        H_CHECK(h->rma_last_ctx == (void *)9, "rma_done names the get");
        long bad = h_check_pattern(mem + 3, n, 77);
        H_CHECK(bad < 0, "byte %ld wrong", bad);
        H_CHECK(mem[2] == 0 && mem[n + 3] == 0, "wrote outside the buffer");
        m = (struct msg){ .type = M_DONE };
        if (mode != OWNER_IDLE && mode != OWNER_IDLE_SMALL)
            H_CHECK(h_send(h, 1, &m, sizeof(m), NULL, 0) == RDMACH_OK, "done");
        H_CHECK(h_barrier(h) == 0, "barrier");
        H_CHECK(take(h, &in, M_BYE, &m) == 0, "bye");
        unsigned long stolen = rch_shm_get_stats(h->ch)->pipe_stolen;
        H_CHECK(m.size + stolen == nchunks, "the owner served %llu and we stole %lu chunks of %zu",
                (unsigned long long)m.size, stolen, nchunks);
        if (mode == OWNER_IDLE || mode == OWNER_IDLE_SMALL)
            H_CHECK(stolen == nchunks, "all chunks stolen from an owner that never progressed");
        fprintf(stderr, "pipelined get of %zu bytes, owner %s: %llu chunks through the pipe, %lu stolen\n", n,
                mode == OWNER_SERVES || mode == OWNER_SERVES_SMALL ? "serving"
                : mode == OWNER_IDLE || mode == OWNER_IDLE_SMALL   ? "idle"
                                                                   : "stopping",
                (unsigned long long)m.size, stolen);
        h->ops->mem_dereg(h->ch, lmr);
    }
    free(mem);
    return h_barrier(h);
}

Test(shm_rma, a_pipelined_get_is_served_by_an_owner_that_progresses, .timeout = 120)
{
    setenv("RDMACH_CMA", "auto", 1);
    enum steal_mode mode = OWNER_SERVES;
    cr_assert_eq(h_run("pipeget", &(struct h_opts){ .n = 2 }, body_pipe_get, &mode), 0);
}

/* Both ends cut a get of one pipe buffer's size the same way: the owner's
 * chunks and the getter's stolen ones add up to 4. */
Test(shm_rma, a_pipelined_get_of_64k_goes_in_4_chunks_served_or_stolen, .timeout = 120)
{
    setenv("RDMACH_CMA", "auto", 1);
    enum steal_mode mode = OWNER_SERVES_SMALL;
    cr_assert_eq(h_run("pipeget4", &(struct h_opts){ .n = 2 }, body_pipe_get, &mode), 0);
    mode = OWNER_IDLE_SMALL;
    cr_assert_eq(h_run("stealall4", &(struct h_opts){ .n = 2 }, body_pipe_get, &mode), 0);
}

Test(shm_rma, a_pipelined_get_completes_alone_when_the_owner_never_progresses, .timeout = 120)
{
    setenv("RDMACH_CMA", "auto", 1);
    enum steal_mode mode = OWNER_IDLE;
    cr_assert_eq(h_run("stealall", &(struct h_opts){ .n = 2 }, body_pipe_get, &mode), 0);
}

Test(shm_rma, a_pipelined_get_is_finished_by_stealing_when_the_owner_stops, .timeout = 120)
{
    setenv("RDMACH_CMA", "auto", 1);
    enum steal_mode mode = OWNER_STOPS;
    cr_assert_eq(h_run("stealrest", &(struct h_opts){ .n = 2 }, body_pipe_get, &mode), 0);
}

/* ---- rendezvous gets by timing (shm_adapt.h) ----
 * Rank 1 offers 1 MiB + 5 bytes and progresses (serving the pipeline) until
 * rank 0 is done; rank 0 gets it 8 times with a local registration (the
 * device's rendezvous) and checks every byte. By default the first four
 * alternate pipeline, single copy, pipeline, single copy and the rest take
 * the faster: both ways used, 8 in all. With RDMACH_SHM_CMA_FROM given
 * (arg 1) no get is timed. */
static int body_adapt_get(struct h_rank *h, void *arg)
{
    const int given = *(const int *)arg;
    struct inbox in = { 0 };
    h->user = &in;
    h->on_recv = inbox_recv;
    const size_t n = (1u << 20) + 5;
    unsigned char *mem = malloc(n + 8);
    struct msg m;
    if (h->rank == 1) {
        struct rch_rdma_mr *mr;
        h_pattern(mem + 1, n, 51);
        H_CHECK(h->ops->mem_reg(h->ch, mem + 1, n, RCH_RDMA_ACCESS_REMOTE_READ, &mr) == RDMACH_OK, "reg");
        m = (struct msg){ .type = M_OFFER, .addr = (uint64_t)(uintptr_t)(mem + 1), .size = n };
        H_CHECK(h->ops->mem_rkey(h->ch, mr, &m.rkey) == RDMACH_OK, "rkey");
        H_CHECK(h_send(h, 0, &m, sizeof(m), NULL, 0) == RDMACH_OK, "offer");
        H_CHECK(take(h, &in, M_DONE, &m) == 0, "done");
        h->ops->mem_dereg(h->ch, mr);
    } else {
        H_CHECK(take(h, &in, M_OFFER, &m) == 0, "offer");
        struct rch_rdma_mr *lmr;
        H_CHECK(h->ops->mem_reg(h->ch, mem + 3, n, RCH_RDMA_ACCESS_LOCAL, &lmr) == RDMACH_OK, "local reg");
        unsigned long ndone = 0;
        for (int i = 0; i < 8; i++) {
            memset(mem, 0, n + 8);
            rdmach_status_t st = h->ops->get(h->ch, 1, mem + 3, lmr, n, &m.rkey, m.addr, (void *)7);
            H_CHECK(finish(h, st, &ndone) == 0, "get %d: %d", i, st);
            long bad = h_check_pattern(mem + 3, n, 51);
            H_CHECK(bad < 0, "get %d: byte %ld wrong", i, bad);
            H_CHECK(mem[2] == 0 && mem[n + 3] == 0, "get %d wrote outside", i);
        }
        const struct rch_shm_stats *s = rch_shm_get_stats(h->ch);
        unsigned long pipe = s->adapt_gets[RCH_SHM_WAY_PIPE], cma = s->adapt_gets[RCH_SHM_WAY_CMA];
        if (given)
            H_CHECK(pipe == 0 && cma == 0, "SHM_CMA_FROM given, yet %lu + %lu gets timed", pipe, cma);
        else
            H_CHECK(pipe >= 2 && cma >= 2 && pipe + cma == 8, "ways: pipeline %lu, single copy %lu", pipe, cma);
        h->ops->mem_dereg(h->ch, lmr);
        m = (struct msg){ .type = M_DONE };
        H_CHECK(h_send(h, 1, &m, sizeof(m), NULL, 0) == RDMACH_OK, "done");
    }
    free(mem);
    return h_barrier(h);
}

Test(shm_rma, rendezvous_gets_take_both_ways_then_the_faster, .timeout = 120)
{
    setenv("RDMACH_CMA", "auto", 1);
    int given = 0;
    cr_assert_eq(h_run("adapt", &(struct h_opts){ .n = 2 }, body_adapt_get, &given), 0);
}

Test(shm_rma, a_given_cma_threshold_fixes_the_way, .timeout = 120)
{
    setenv("RDMACH_CMA", "auto", 1);
    setenv("RDMACH_SHM_CMA_FROM", "2m", 1);
    int given = 1;
    cr_assert_eq(h_run("adaptoff", &(struct h_opts){ .n = 2 }, body_adapt_get, &given), 0);
}
