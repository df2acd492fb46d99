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
                H_CHECK(st == RDMACH_OK, "single-copy get completes at once (%d)", st);
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
