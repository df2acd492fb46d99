/*
 * verbs_reg_limit: registering more memory than the memlock limit allows
 * fails with RDMACH_ERR_REG_LIMIT and a message that names `ulimit -l` and
 * the size asked for; the channel stays usable.
 *
 * A singleton (no launcher) opening the verbs channel with no peers. The
 * limit only binds a process without CAP_IPC_LOCK, so the test runs it as
 *   setpriv --bounding-set -ipc_lock bash -c 'ulimit -l 1024; exec verbs_reg_limit'
 * (CMakeLists.txt) and checks that it really lacks the capability and has a
 * small limit: otherwise it fails, since the case would not be tested.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "rdma/channel.h"

#define SMALL ((size_t)64 << 10)
#define BIG ((size_t)64 << 20)
#define CAP_IPC_LOCK_BIT 14

static int failures;

#define FAIL(...)                                                                     \
    do {                                                                              \
        fprintf(stderr, "verbs_reg_limit: FAIL: ");                                   \
        fprintf(stderr, __VA_ARGS__);                                                 \
        fprintf(stderr, "\n");                                                        \
        failures++;                                                                   \
    } while (0)

static void on_recv(void *ctx, int peer, const void *pkt, size_t len)
{
}

static void on_rma_done(void *ctx, void *op, rdmach_status_t st)
{
}

static void on_peer_failed(void *ctx, int peer, rdmach_status_t st)
{
}

/* Is CAP_IPC_LOCK in this process's effective set? (-1: unknown) */
static int has_ipc_lock(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int r = -1;
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "CapEff:", 7) == 0)
            r = (int)((strtoull(line + 7, NULL, 16) >> CAP_IPC_LOCK_BIT) & 1);
    if (f)
        fclose(f);
    return r;
}

int main(void)
{
    rdmach_status_t st = rch_base_tun_load();
    if (st == RDMACH_OK)
        st = rch_boot_init();
    if (st != RDMACH_OK) {
        fprintf(stderr, "verbs_reg_limit: start-up: %s\n", rdmach_last_error());
        return 1;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= BIG / 2) {
        FAIL("the memlock limit is not small (run under 'ulimit -l 1024')");
        return 1;
    }
    if (has_ipc_lock() != 0) {
        FAIL("CAP_IPC_LOCK is effective (or unknown): no limit would apply (run under setpriv --bounding-set "
             "-ipc_lock)");
        return 1;
    }
    const struct rch_rdma_ops *ops = &rch_rdma_verbs_ops;
    struct rch_rdma_chan *ch;
    struct rch_rdma_open_args args = {
        .boot = &rch_boot, .peers = NULL, .npeers = 0,
        .up = { .ctx = NULL, .recv = on_recv, .rma_done = on_rma_done, .peer_failed = on_peer_failed },
    };
    if ((st = ops->query()) != RDMACH_OK || (st = ops->open(&args, &ch)) != RDMACH_OK) {
        FAIL("opening the verbs channel: %s", rdmach_last_error());
        return 1;
    }
    unsigned char *small = malloc(SMALL), *big = malloc(BIG);
    struct rch_rdma_mr *mr_small = NULL, *mr_big = NULL;
    memset(small, 1, SMALL);
    memset(big, 2, BIG);
    if ((st = ops->mem_reg(ch, small, SMALL, RCH_RDMA_ACCESS_LOCAL, &mr_small)) != RDMACH_OK)
        FAIL("registering %zu bytes under a %llu KiB limit: %s: %s", SMALL, (unsigned long long)rl.rlim_cur / 1024,
             rdmach_strerror(st), rdmach_last_error());
    st = ops->mem_reg(ch, big, BIG, RCH_RDMA_ACCESS_LOCAL, &mr_big);
    char msg[512];
    snprintf(msg, sizeof(msg), "%s", rdmach_last_error());
    /* the size named is the one registered: the buffer's pages, at least what was asked */
    const char *reg = strstr(msg, "registering ");
    unsigned long long named = 0;
    if (reg == NULL || sscanf(reg, "registering %llu bytes", &named) != 1)
        named = 0;
    if (st == RDMACH_OK)
        FAIL("registering %zu bytes under a %llu KiB limit succeeded", BIG, (unsigned long long)rl.rlim_cur / 1024);
    else if (st != RDMACH_ERR_REG_LIMIT)
        FAIL("registering %zu bytes: %s, expected RDMACH_ERR_REG_LIMIT (%s)", BIG, rdmach_strerror(st), msg);
    else if (strstr(msg, "ulimit -l") == NULL || named < BIG || named > BIG + 8192)
        FAIL("the error does not name 'ulimit -l' and the size (%zu bytes, page-rounded): %s", BIG, msg);
    else
        fprintf(stderr, "verbs_reg_limit: as expected: %s\n", msg);
    if (mr_big)
        ops->mem_dereg(ch, mr_big);
    /* the channel goes on: the small registration again */
    if (mr_small)
        ops->mem_dereg(ch, mr_small);
    if ((st = ops->mem_reg(ch, small, SMALL, RCH_RDMA_ACCESS_LOCAL, &mr_small)) != RDMACH_OK)
        FAIL("registering %zu bytes after the failure: %s", SMALL, rdmach_last_error());
    else
        ops->mem_dereg(ch, mr_small);
    ops->close(ch);
    rch_boot_finalize();
    free(small);
    free(big);
    if (failures)
        return 1;
    printf("verbs_reg_limit: ok\n");
    return 0;
}
