/*
 * A job that checks the bootstrap from every rank: run it under rdmachrun or
 * mpiexec.mpich. Links only src/base and src/boot.
 *
 *   boot_job SIZE [MODE]
 *
 * SIZE is the number of ranks the launcher was asked for. Without MODE every
 * rank checks rank/size, the layout (one machine; RDMACH_VNODE_SIZE=k gives
 * nodes of k consecutive ranks), its binding (RDMACH_BIND=core: core
 * rank % cores), and the KVS (put, fence, get of every rank; the last put
 * wins; missing keys; invalid keys and values), then finalizes. Exit 0 and
 * one "ok" line per rank, or exit 1 with the reason.
 *
 * BOOT_JOB_PMI=pmi1|pmi2|pmix|singleton: the interface the bootstrap must
 * have chosen (rch_boot_pmi_name).
 *
 * Failure modes, for the launcher tests (R is a rank):
 *   kill=R         R raises SIGKILL after init; the others wait in a fence
 *   kill-noterm=R  the same, but the others ignore SIGTERM (needs SIGKILL)
 *   exit=R:C       R exits with code C after init; the others wait in a fence
 *   abort=R:C      R calls rch_boot_abort(C); the others wait in a fence
 *   nofinalize=R   R exits 0 without finalizing; the others finalize
 *                  (a warning, the job succeeds: as with Hydra)
 *   nofinalize-fence=R  R exits 0 without finalizing; the others wait in a
 *                  fence it can never join (the job fails, naming R)
 *   nofinalize-busy=R   R exits 0 without finalizing; the others keep running
 *                  (outside PMI) until the launcher ends them (it fails, naming R)
 *   leak-shm       every rank leaves /dev/shm/rdmach-<kvsname>-leak<rank>
 *                  behind (as a killed rank would) for rdmachrun to remove
 */
#include <hwloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "base/base.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "boot/topo.h"

static int failures;

static void fail(const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "boot_job: rank %d: FAIL: %s\n", rch_boot.rank, msg);
    failures++;
}

#define CHECK(cond, ...) do { if (!(cond)) fail(__VA_ARGS__); } while (0)

static double now_real(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec * 1e-6;
}

static void check_layout(int expect_size)
{
    struct rch_boot_info *b = &rch_boot;
    int k = rch_tun.vnode_size;
    CHECK(b->size == expect_size, "size %d, expected %d", b->size, expect_size);
    CHECK(b->rank >= 0 && b->rank < b->size, "rank %d out of 0..%d", b->rank, b->size - 1);
    CHECK(b->singleton == (expect_size == 1 && getenv("PMI_FD") == NULL && getenv("PMIX_NAMESPACE") == NULL),
          "singleton flag %d", b->singleton);
    /* every rank of these jobs runs on this machine */
    int node = k ? b->rank / k : 0;
    int nodes = k ? (b->size + k - 1) / k : 1;
    int first = k ? node * k : 0;
    int lsize = k ? (b->size - first < k ? b->size - first : k) : b->size;
    CHECK(b->num_nodes == nodes, "num_nodes %d, expected %d", b->num_nodes, nodes);
    CHECK(b->node == node, "node %d, expected %d", b->node, node);
    CHECK(b->local_rank == b->rank - first, "local_rank %d, expected %d", b->local_rank, b->rank - first);
    CHECK(b->local_size == lsize, "local_size %d, expected %d", b->local_size, lsize);
    for (int r = 0; r < b->size; r++)
        CHECK(b->node_of[r] == (k ? r / k : 0), "node_of[%d] = %d, expected %d", r, b->node_of[r], k ? r / k : 0);
    for (int i = 0; i < b->local_size && i < lsize; i++)
        CHECK(b->local_ranks[i] == first + i, "local_ranks[%d] = %d, expected %d", i, b->local_ranks[i], first + i);
    CHECK(b->kvsname[0] != '\0' && strspn(b->kvsname, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                      "0123456789_-") == strlen(b->kvsname),
          "kvsname '%s' is empty or has characters outside [A-Za-z0-9_-]", b->kvsname);
}

/* RDMACH_BIND=core: bound to core (rank % cores), and the OS agrees. */
static void check_binding(int cores_before)
{
    if (rch_tun.bind == RCH_BIND_NONE) {
        CHECK(rch_boot.bound_core == -1, "RDMACH_BIND=none but bound_core %d", rch_boot.bound_core);
        return;
    }
    if (rch_tun.bind != RCH_BIND_CORE)
        return;
    int expect = rch_boot.rank % cores_before; /* one machine: the local rank on it is the rank */
    CHECK(rch_boot.bound_core == expect, "bound_core %d, expected %d of %d cores", rch_boot.bound_core, expect,
          cores_before);
    hwloc_topology_t t;
    hwloc_topology_init(&t);
    hwloc_topology_load(t);
    hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    hwloc_obj_t core = hwloc_get_obj_by_type(t, type, (unsigned)rch_boot.bound_core);
    hwloc_bitmap_t cur = hwloc_bitmap_alloc();
    hwloc_get_cpubind(t, cur, HWLOC_CPUBIND_PROCESS);
    CHECK(core && hwloc_bitmap_isincluded(cur, core->cpuset),
          "the OS binding is not inside core L#%d", rch_boot.bound_core);
    hwloc_bitmap_free(cur);
    hwloc_topology_destroy(t);
}

static void check_kvs(void)
{
    int me = rch_boot.rank, n = rch_boot.size;
    char key[RDMACH_KVS_KEY_MAX + 8], val[RDMACH_KVS_VAL_MAX], got[RDMACH_KVS_VAL_MAX], big[RDMACH_KVS_VAL_MAX];
    rdmach_status_t st;

    /* round 1: a short value and one of the maximum length */
    snprintf(val, sizeof(val), "v%d-of-%d", me, n);
    CHECK((st = rch_boot_put("a", val)) == RDMACH_OK, "put a: %s", rdmach_last_error());
    memset(big, 'A' + me % 26, sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    CHECK((st = rch_boot_put("long.key-name_1:x", big)) == RDMACH_OK, "put long: %s", rdmach_last_error());
    CHECK(rch_boot_fence() == RDMACH_OK, "fence 1: %s", rdmach_last_error());
    for (int r = 0; r < n; r++) {
        snprintf(val, sizeof(val), "v%d-of-%d", r, n);
        st = rch_boot_get(r, "a", got, sizeof(got));
        CHECK(st == RDMACH_OK && strcmp(got, val) == 0, "get(%d, a) = %d '%s', expected '%s' (%s)", r, st,
              st == RDMACH_OK ? got : "", val, rdmach_last_error());
        st = rch_boot_get(r, "long.key-name_1:x", got, sizeof(got));
        CHECK(st == RDMACH_OK && strlen(got) == sizeof(big) - 1 && got[0] == 'A' + r % 26 &&
                  got[sizeof(big) - 2] == 'A' + r % 26,
              "get(%d, long) = %d, %zu bytes (%s)", r, st, st == RDMACH_OK ? strlen(got) : 0, rdmach_last_error());
    }
    CHECK(rch_boot_get(0, "a", got, 3) == RDMACH_ERR_TRUNCATE, "a short buffer must be RDMACH_ERR_TRUNCATE");
    CHECK(rch_boot_get(n - 1, "never-put", got, sizeof(got)) == RDMACH_ERR_NOT_FOUND,
          "missing key must be RDMACH_ERR_NOT_FOUND");

    /* round 2: the last put of a key wins (under PMI-2 the server decides:
     * Hydra keeps the first). Every rank has read round 1 first: under PMIx
     * a put is visible from the putter's next fence on, before the reader's. */
    CHECK(rch_boot_fence() == RDMACH_OK, "fence 1b: %s", rdmach_last_error());
    snprintf(val, sizeof(val), "second-%d", me);
    CHECK(rch_boot_put("a", "overwritten") == RDMACH_OK, "put a again: %s", rdmach_last_error());
    CHECK(rch_boot_put("a", val) == RDMACH_OK, "put a again: %s", rdmach_last_error());
    CHECK(rch_boot_fence() == RDMACH_OK, "fence 2: %s", rdmach_last_error());
    int peer = (me + 1) % n;
    snprintf(val, sizeof(val), "second-%d", peer);
    st = rch_boot_get(peer, "a", got, sizeof(got));
    char first[64];
    snprintf(first, sizeof(first), "v%d-of-%d", peer, n);
    int pmi2 = strcmp(rch_boot_pmi_name(), "pmi2") == 0;
    CHECK(st == RDMACH_OK && (strcmp(got, val) == 0 || (pmi2 && strcmp(got, first) == 0)),
          "get(%d, a) after overwrite = '%s', expected '%s'", peer, st == RDMACH_OK ? got : "", val);

    /* what the KVS refuses, with a message naming the problem */
    CHECK(rch_boot_put("has space", "x") == RDMACH_ERR_INVALID_ARG, "key with a space accepted");
    CHECK(rch_boot_put("", "x") == RDMACH_ERR_INVALID_ARG, "empty key accepted");
    memset(key, 'k', RDMACH_KVS_KEY_MAX);
    key[RDMACH_KVS_KEY_MAX] = '\0';
    CHECK(rch_boot_put(key, "x") == RDMACH_ERR_INVALID_ARG, "48-character key accepted");
    key[RDMACH_KVS_KEY_MAX - 1] = '\0';
    CHECK(rch_boot_put(key, "x") == RDMACH_OK, "47-character key refused: %s", rdmach_last_error());
    CHECK(rch_boot_put("k", "a b") == RDMACH_ERR_INVALID_ARG, "value with a space accepted");
    CHECK(strstr(rdmach_last_error(), "space") != NULL, "message does not name the space: %s", rdmach_last_error());
    CHECK(rch_boot_get(n, "a", got, sizeof(got)) == RDMACH_ERR_INVALID_ARG, "rank %d accepted", n);
    CHECK(rch_boot_get(-1, "a", got, sizeof(got)) == RDMACH_ERR_INVALID_ARG, "rank -1 accepted");
    CHECK(rch_boot_fence() == RDMACH_OK, "fence 3: %s", rdmach_last_error());
}

static void check_hex(void)
{
    unsigned char bin[7] = { 0, 1, 0x7f, 0x80, 0xab, 0xff, 0x10 }, back[7];
    char text[15];
    rch_boot_hex_encode(bin, sizeof(bin), text);
    CHECK(strcmp(text, "00017f80abff10") == 0, "hex encode gave %s", text);
    CHECK(rch_boot_hex_decode(text, back, sizeof(back)) == RDMACH_OK && memcmp(bin, back, 7) == 0, "hex decode");
    CHECK(rch_boot_hex_decode("0g", back, 1) == RDMACH_ERR_PROTOCOL, "bad hex digit accepted");
    CHECK(rch_boot_hex_decode("001", back, 1) == RDMACH_ERR_PROTOCOL, "odd length accepted");
}

/* Wait in a fence that cannot complete: the launcher ends this, by killing
 * the rank or by failing the fence (Open MPI's PMIx server, tearing the job
 * down, may answer before its signal arrives). A fence that succeeds is the
 * error. */
static void wait_forever(void)
{
    int rc = rch_boot_fence();
    if (rc != RDMACH_OK) {
        fprintf(stderr, "boot_job: rank %d: the fence failed as the job ended: %s\n", rch_boot.rank, rdmach_last_error());
        exit(4);
    }
    fprintf(stderr, "boot_job: rank %d: a fence completed although a rank failed\n", rch_boot.rank);
    exit(3);
}

static int target(const char *mode, const char *prefix, int *rank, int *code)
{
    size_t l = strlen(prefix);
    if (strncmp(mode, prefix, l) != 0)
        return 0;
    *code = 0;
    if (sscanf(mode + l, "%d:%d", rank, code) < 1) {
        fprintf(stderr, "boot_job: bad mode '%s'\n", mode);
        exit(2);
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: boot_job SIZE [MODE]\n");
        return 2;
    }
    int expect_size = atoi(argv[1]);
    const char *mode = argc > 2 ? argv[2] : "";
    struct rch_topo_summary topo;
    rdmach_status_t st;

    if ((st = rch_base_tun_load()) != RDMACH_OK) {
        fprintf(stderr, "boot_job: %s: %s\n", rdmach_strerror(st), rdmach_last_error());
        return 1;
    }
    if ((st = rch_boot_topo_summary(&topo)) != RDMACH_OK) {
        fprintf(stderr, "boot_job: topology: %s\n", rdmach_last_error());
        return 1;
    }
    if ((st = rch_boot_init()) != RDMACH_OK) {
        fprintf(stderr, "boot_job: rch_boot_init: %s: %s\n", rdmach_strerror(st), rdmach_last_error());
        return 1;
    }

    /* BOOT_JOB_PMI=<name>: the interface the bootstrap must have chosen */
    const char *want = getenv("BOOT_JOB_PMI");
    CHECK(want == NULL || strcmp(want, rch_boot_pmi_name()) == 0, "process manager interface %s, expected %s",
          rch_boot_pmi_name(), want ? want : "");

    int r, code;
    if (target(mode, "kill=", &r, &code) || target(mode, "kill-noterm=", &r, &code)) {
        if (rch_boot.rank == r) {
            fprintf(stderr, "boot_job: rank %d (pid %d) raises SIGKILL at %.3f\n", r, (int)getpid(), now_real());
            raise(SIGKILL);
        }
        if (strncmp(mode, "kill-noterm=", 12) == 0)
            signal(SIGTERM, SIG_IGN);
        wait_forever();
    }
    if (target(mode, "exit=", &r, &code)) {
        if (rch_boot.rank == r) {
            fprintf(stderr, "boot_job: rank %d (pid %d) exits with code %d\n", r, (int)getpid(), code);
            exit(code);
        }
        wait_forever();
    }
    if (target(mode, "abort=", &r, &code)) {
        if (rch_boot.rank == r)
            rch_boot_abort(code, "boot_job was asked to abort");
        wait_forever();
    }
    if (target(mode, "nofinalize=", &r, &code)) {
        if (rch_boot.rank == r)
            exit(0);
        return rch_boot_finalize() == RDMACH_OK ? 0 : 1;
    }
    if (target(mode, "nofinalize-fence=", &r, &code)) {
        if (rch_boot.rank == r)
            exit(0);
        wait_forever();
    }
    if (target(mode, "nofinalize-busy=", &r, &code)) {
        if (rch_boot.rank == r)
            exit(0);
        for (;;)
            pause();   /* ended by the launcher's SIGTERM */
    }
    if (strcmp(mode, "leak-shm") == 0) {
        char path[512];
        snprintf(path, sizeof(path), "/dev/shm/rdmach-%s-leak%d", rch_boot.kvsname, rch_boot.rank);
        FILE *f = fopen(path, "w");
        if (f == NULL) {
            perror(path);
            return 1;
        }
        fclose(f);
        printf("boot_job: rank %d left %s\n", rch_boot.rank, path);
        return rch_boot_fence() == RDMACH_OK && rch_boot_finalize() == RDMACH_OK ? 0 : 1;
    }
    if (*mode) {
        fprintf(stderr, "boot_job: unknown mode '%s'\n", mode);
        return 2;
    }

    check_layout(expect_size);
    check_binding(topo.cores_avail);
    check_hex();
    if (failures == 0)
        check_kvs();
    int rank = rch_boot.rank, size = rch_boot.size, node = rch_boot.node, nodes = rch_boot.num_nodes;
    int lrank = rch_boot.local_rank, lsize = rch_boot.local_size, core = rch_boot.bound_core;
    if ((st = rch_boot_finalize()) != RDMACH_OK)
        fail("finalize: %s", rdmach_last_error());
    if (failures) {
        fprintf(stderr, "boot_job: rank %d: %d check(s) failed\n", rank, failures);
        return 1;
    }
    printf("boot_job: rank %d of %d ok: node %d of %d, local rank %d of %d, core %d, job %s\n", rank, size,
           node, nodes, lrank, lsize, core, rch_boot.kvsname);
    return 0;
}
