/*
 * native_putget: the native PUT/GET API (rdmach.h, src/device/native_rma.c)
 * in real jobs under rdmachrun, over whatever channel the layout selects
 * (shared memory on one node; RDMACH_VNODE_SIZE=1 RDMACH_NET=ofi: libfabric
 * tcp between every pair; verbs in the rdma guest).
 *
 *   native_putget check    every rank registers memory, exports its keys
 *                          through rdmach_kvs_put/fence/get, then:
 *     - put and get between every pair (and to itself) at 0, 1, 8, 4095,
 *       65537 B, 1 MiB and 16 MiB at misaligned local and remote offsets;
 *       the target checks the bytes put (and the guard bytes around them)
 *       and the origin the bytes got back, byte for byte;
 *     - 64 puts in flight to every peer, waited for in reverse order;
 *       64 gets in flight, completed by an rdmach_test polling loop;
 *     - the error cases, each with its exact status and a message naming
 *       the argument: not initialized, NULL op/key/laddr/done, rank out of
 *       range, a key with a wrong magic or version, a key of another rank,
 *       raddr/len outside the key, put to a key without remote write, get
 *       from one without remote read, an op still in flight (when the
 *       channel leaves one in flight: network), a never-started op,
 *       registration arguments, double deregistration, a released handle
 *       whose slot a new registration reuses, use after finalize.
 *   native_putget kill     2 ranks: rank 1's device runs in a child that is
 *                          killed (SIGKILL) while rank 0 streams 1 MiB puts
 *                          into it, 4 in flight: every put completes, the
 *                          ones after the death with a peer error whose
 *                          message names rank 1, within 10 s of the kill;
 *                          a later put completes with RDMACH_ERR_PEER_DEAD.
 *   native_putget bench [n] 2 ranks: rank 0 times n 8-byte puts and n 8-byte
 *                          gets (each started and waited for) into rank 1,
 *                          which only calls rdmach_progress (a passive
 *                          target); prints the mean and median latency.
 *
 * Exit 0 and "native_putget <mode>: rank R ok", or 1 with the failed check.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "rdmach.h"
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "device/dev.h"

static int me = -1, np;
static const char *mode = "check";
static unsigned long nchecks;

#define CHECK(cond, ...)                                                                              \
    do {                                                                                              \
        nchecks++;                                                                                    \
        if (!(cond)) {                                                                                \
            fprintf(stderr, "native_putget %s: rank %d: FAIL line %d: %s: ", mode, me, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                             \
            fprintf(stderr, " [last error: %s]\n", rdmach_last_error());                              \
            exit(1);                                                                                  \
        }                                                                                             \
    } while (0)

static void ok(rdmach_status_t st, const char *what)
{
    CHECK(st == RDMACH_OK, "%s: %s", what, rdmach_strerror(st));
}

/* A call must fail with exactly `want`, its message containing `word`. */
static void expect(rdmach_status_t st, rdmach_status_t want, const char *word, const char *what)
{
    CHECK(st == want, "%s: got %s (%d), expected %s (%d)", what, rdmach_strerror(st), st, rdmach_strerror(want),
          want);
    CHECK(strstr(rdmach_last_error(), word) != NULL, "%s: the message does not name '%s': %s", what, word,
          rdmach_last_error());
}

/* ---- keys through the KVS (hex: values are strings) ---- */

static void key_publish(const char *name, const rdmach_key_t *k)
{
    char hex[2 * RDMACH_KEY_SIZE + 1];
    for (int i = 0; i < RDMACH_KEY_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", k->bytes[i]);
    ok(rdmach_kvs_put(name, hex), "kvs_put of a key");
}

static void key_fetch(int rank, const char *name, rdmach_key_t *k)
{
    char hex[RDMACH_KVS_VAL_MAX];
    ok(rdmach_kvs_get(rank, name, hex, sizeof(hex)), "kvs_get of a key");
    CHECK(strlen(hex) == 2 * RDMACH_KEY_SIZE, "key %s of rank %d has %zu hex digits", name, rank, strlen(hex));
    for (int i = 0; i < RDMACH_KEY_SIZE; i++) {
        unsigned v;
        CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1, "key %s of rank %d: bad hex", name, rank);
        k->bytes[i] = (uint8_t)v;
    }
}

/* Each rank's region addresses, published next to the keys:
 * [r] read-write, [np + r] read-only, [2 np + r] write-only. */
static uint64_t *bases;

/* ---- patterns ---- */

static unsigned char pat(uint64_t seed, size_t i)
{
    uint64_t x = (seed + i) * 0x9e3779b97f4a7c15ull;
    return (unsigned char)(x >> 56 ^ x >> 29 ^ i);
}

static void fill(unsigned char *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pat(seed, i);
}

static size_t first_diff(const unsigned char *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != pat(seed, i))
            return i;
    return n;
}

static uint64_t seed_of(int origin, int target, size_t size, int phase)
{
    return (uint64_t)origin * 1000003u + (uint64_t)target * 10007u + size * 31u + (uint64_t)phase * 7u + 1;
}

#define GUARD 0xee
#define MAXSZ ((size_t)16 << 20)
#define PAD 64
#define REGION (MAXSZ + 2 * PAD)
#define NFLIGHT 64
#define FLIGHT_SZ 4095

static void fence(void)
{
    ok(rdmach_kvs_fence(), "fence");
}

/*
 * The barrier between phases. Not the KVS fence: a rank blocked in it does
 * not progress the device, and over libfabric tcp a passive target's
 * progress is what places the bytes written into it (and answers them), so
 * an origin waiting for its put would wait for a rank waiting in the fence.
 * This one is a message from every rank to every other through the device
 * (internal API: the native API has no barrier), each rank progressing
 * until it has one from everybody. A message follows the origin's earlier
 * puts on the same connection, so once it has arrived they are in memory.
 */
static void barrier(void)
{
    static int epoch;
    const uint32_t ctx = 1000;
    char out = 0, *in = calloc((size_t)np, 1);
    struct rch_dev_req **rq = calloc((size_t)np * 2, sizeof(*rq));
    CHECK(in && rq, "no memory");
    epoch++;
    for (int r = 0; r < np; r++)
        if (r != me)
            ok(rch_dev_irecv(&in[r], 1, r, epoch, ctx, &rq[2 * r]), "barrier irecv");
    for (int r = 0; r < np; r++)
        if (r != me)
            ok(rch_dev_isend(&out, 1, r, me, epoch, ctx, RCH_DEV_SEND_STD, &rq[2 * r + 1]), "barrier isend");
    for (int i = 0; i < 2 * np; i++)
        if (rq[i]) {
            ok(rch_dev_wait(rq[i]), "barrier wait");
            CHECK(rq[i]->err == RDMACH_OK, "barrier message: %s", rdmach_strerror(rq[i]->err));
            rch_dev_req_free(rq[i]);
        }
    free(in);
    free(rq);
}

/* ---- errors that need no peer ---- */

static void errors_before_init(void)
{
    rdmach_op_t op;
    rdmach_key_t k;
    rdmach_mem_t m;
    char b[8] = { 0 };
    memset(&k, 0, sizeof(k));
    expect(rdmach_put(0, b, 8, &k, 0, &op), RDMACH_ERR_NOT_INITIALIZED, "not initialized", "put before init");
    expect(rdmach_get(0, b, 8, &k, 0, &op), RDMACH_ERR_NOT_INITIALIZED, "not initialized", "get before init");
    expect(rdmach_mem_reg(b, 8, RDMACH_MEM_REMOTE_READ, &m), RDMACH_ERR_NOT_INITIALIZED, "not initialized",
           "mem_reg before init");
    CHECK(rdmach_progress() == 0, "progress before init did something");
}

static void errors_registration(void)
{
    char b[64];
    rdmach_mem_t m;
    rdmach_key_t k;
    expect(rdmach_mem_reg(b, sizeof(b), RDMACH_MEM_REMOTE_READ, NULL), RDMACH_ERR_INVALID_ARG, "mem is NULL",
           "mem_reg NULL mem");
    expect(rdmach_mem_reg(NULL, 8, RDMACH_MEM_REMOTE_READ, &m), RDMACH_ERR_INVALID_ARG, "addr is NULL",
           "mem_reg NULL addr");
    expect(rdmach_mem_reg(b, sizeof(b), 0, &m), RDMACH_ERR_INVALID_ARG, "access", "mem_reg access 0");
    expect(rdmach_mem_reg(b, sizeof(b), 0x10, &m), RDMACH_ERR_INVALID_ARG, "access", "mem_reg access 0x10");
    expect(rdmach_mem_reg((void *)(uintptr_t)-16, 64, RDMACH_MEM_REMOTE_READ, &m), RDMACH_ERR_INVALID_ARG, "wraps",
           "mem_reg wrapping range");
    expect(rdmach_mem_dereg(NULL), RDMACH_ERR_INVALID_ARG, "mem is NULL", "dereg NULL");
    ok(rdmach_mem_reg(b, sizeof(b), RDMACH_MEM_REMOTE_READ, &m), "mem_reg small");
    expect(rdmach_mem_key(m, NULL), RDMACH_ERR_INVALID_ARG, "key is NULL", "mem_key NULL key");
    expect(rdmach_mem_key(NULL, &k), RDMACH_ERR_INVALID_ARG, "mem is NULL", "mem_key NULL mem");
    ok(rdmach_mem_dereg(m), "dereg small");
}

/* Arguments of put/get/test/wait; keys: rw, w-only, r-only of every rank. */
static void errors_ops(rdmach_key_t *krw, rdmach_key_t *kw, rdmach_key_t *kr, unsigned char *lbuf)
{
    int t = (me + 1) % np;               /* another rank when np > 1 */
    uint64_t b = bases[t];
    rdmach_op_t op;
    int done;
    expect(rdmach_put(t, lbuf, 8, &krw[t], b, NULL), RDMACH_ERR_INVALID_ARG, "op is NULL", "put NULL op");
    expect(rdmach_get(t, lbuf, 8, &krw[t], b, NULL), RDMACH_ERR_INVALID_ARG, "op is NULL", "get NULL op");
    expect(rdmach_put(t, lbuf, 8, NULL, b, &op), RDMACH_ERR_INVALID_ARG, "key is NULL", "put NULL key");
    expect(rdmach_get(t, NULL, 8, &krw[t], b, &op), RDMACH_ERR_INVALID_ARG, "laddr is NULL", "get NULL laddr");
    expect(rdmach_put(-1, lbuf, 8, &krw[t], b, &op), RDMACH_ERR_INVALID_ARG, "rank -1", "put rank -1");
    expect(rdmach_get(np, lbuf, 8, &krw[t], b, &op), RDMACH_ERR_INVALID_ARG, "is not in [0,", "get rank np");
    rdmach_key_t bad = krw[t];
    bad.bytes[0] ^= 0x5a;
    expect(rdmach_put(t, lbuf, 8, &bad, b, &op), RDMACH_ERR_INVALID_ARG, "magic", "put bad magic");
    bad = krw[t];
    bad.bytes[4] = 99;                   /* the version (little-endian u16 at 4) */
    expect(rdmach_get(t, lbuf, 8, &bad, b, &op), RDMACH_ERR_INVALID_ARG, "version 99", "get bad version");
    if (np > 1) {
        int other = (t + 1) % np;        /* a rank the key does not belong to */
        expect(rdmach_put(other, lbuf, 8, &krw[t], b, &op), RDMACH_ERR_INVALID_ARG, "belongs to rank",
               "put with another rank's key");
    }
    expect(rdmach_put(t, lbuf, 8, &krw[t], b - 1, &op), RDMACH_ERR_INVALID_ARG, "outside", "put below the range");
    expect(rdmach_get(t, lbuf, 8, &krw[t], b + REGION - 7, &op), RDMACH_ERR_INVALID_ARG, "outside",
           "get past the end");
    expect(rdmach_get(t, lbuf, 1, &krw[t], b + REGION, &op), RDMACH_ERR_INVALID_ARG, "outside",
           "1 byte at the end");
    expect(rdmach_put(t, lbuf, (size_t)-1, &krw[t], b, &op), RDMACH_ERR_INVALID_ARG, "", "put of SIZE_MAX");
    expect(rdmach_put(t, lbuf, 8, &kr[t], bases[np + t], &op), RDMACH_ERR_INVALID_ARG, "remote write",
           "put to a read-only key");
    expect(rdmach_get(t, lbuf, 8, &kw[t], bases[2 * np + t], &op), RDMACH_ERR_INVALID_ARG, "remote read",
           "get from a write-only key");
    /* exactly the edges are fine: 0 bytes at the end, the last byte */
    ok(rdmach_get(t, lbuf, 0, &krw[t], b + REGION, &op), "0 bytes at the end");
    ok(rdmach_wait(&op), "wait 0 bytes");
    /* test/wait arguments */
    rdmach_op_t fresh;
    memset(&fresh, 0, sizeof(fresh));
    expect(rdmach_test(NULL, &done), RDMACH_ERR_INVALID_ARG, "op is NULL", "test NULL op");
    expect(rdmach_test(&op, NULL), RDMACH_ERR_INVALID_ARG, "done is NULL", "test NULL done");
    expect(rdmach_wait(NULL), RDMACH_ERR_INVALID_ARG, "op is NULL", "wait NULL op");
    expect(rdmach_wait(&fresh), RDMACH_ERR_INVALID_ARG, "never started", "wait never-started op");
    expect(rdmach_test(&fresh, &done), RDMACH_ERR_INVALID_ARG, "never started", "test never-started op");
    /* an op in flight cannot be reused; a finished one can */
    if (np > 1) {
        ok(rdmach_put(t, lbuf, 1 << 20, &krw[t], b + PAD, &op), "put 1 MiB");
        ok(rdmach_test(&op, &done), "test");
        if (!done) {
            expect(rdmach_put(t, lbuf, 8, &krw[t], b, &op), RDMACH_ERR_BUSY, "still in flight", "reuse in flight");
            printf("native_putget: rank %d: reuse of an op in flight refused (BUSY)\n", me);
        } else {
            printf("native_putget: rank %d: the channel completed the put at once (BUSY case not reachable)\n", me);
        }
        ok(rdmach_wait(&op), "wait 1 MiB put");
        ok(rdmach_get(t, lbuf, 8, &krw[t], b, &op), "reuse after done");
        ok(rdmach_wait(&op), "wait reuse");
        ok(rdmach_wait(&op), "wait again is idempotent");
    }
}

/* ---- data ---- */

static void pairs(rdmach_key_t *krw, unsigned char *region, unsigned char *src, unsigned char *dst)
{
    static const size_t sizes[] = { 0, 1, 8, 4095, 65537, (size_t)1 << 20, MAXSZ };
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t s = sizes[si];
        double t0 = rch_base_wtime();
        for (int d = 0; d < np; d++) {
            int t = (me + d) % np, o = (me - d + np) % np;   /* I write t; o writes me */
            /* misaligned; o uses the same remote offset for me in this round */
            size_t loff = 1 + (size_t)(d * 3 + si) % 13, roff = 3 + (size_t)(d * 5 + si) % 29, my_roff = roff;
            memset(region, GUARD, my_roff + s + 1);
            barrier();
            /* put */
            uint64_t seed = seed_of(me, t, s, 1);
            fill(src + loff, s, seed);
            rdmach_op_t op;
            ok(rdmach_put(t, src + loff, s, &krw[t], bases[t] + roff, &op), "put");
            rdmach_status_t st = rdmach_wait(&op);
            CHECK(st == RDMACH_OK, "put of %zu B to rank %d: %s", s, t, rdmach_strerror(st));
            barrier();
            /* the target checks what arrived, and that nothing else moved */
            uint64_t oseed = seed_of(o, me, s, 1);
            size_t at = first_diff(region + my_roff, s, oseed);
            CHECK(at == s, "put of %zu B from rank %d: byte %zu is 0x%02x, expected 0x%02x", s, o, at,
                  region[my_roff + at], pat(oseed, at));
            CHECK(region[my_roff - 1] == GUARD && region[my_roff + s] == GUARD,
                  "put of %zu B from rank %d wrote outside [%zu, +%zu)", s, o, my_roff, s);
            /* get it back to a misaligned place, guard around it */
            size_t goff = 5 + (size_t)(d + si) % 11;
            dst[goff - 1] = GUARD;
            dst[goff + s] = GUARD;
            ok(rdmach_get(t, dst + goff, s, &krw[t], bases[t] + roff, &op), "get");
            st = rdmach_wait(&op);
            CHECK(st == RDMACH_OK, "get of %zu B from rank %d: %s", s, t, rdmach_strerror(st));
            at = first_diff(dst + goff, s, seed);
            CHECK(at == s, "get of %zu B from rank %d: byte %zu is 0x%02x, expected 0x%02x", s, t, at,
                  dst[goff + at], pat(seed, at));
            CHECK(dst[goff - 1] == GUARD && dst[goff + s] == GUARD, "get of %zu B wrote outside its buffer", s);
            barrier();
        }
        if (me == 0)
            printf("native_putget: size %zu: put+get with all %d ranks checked (%.3f s)\n", s, np,
                   rch_base_wtime() - t0);
    }
}

/* 64 puts in flight to every peer, waited in reverse order; then 64 gets
 * in flight per peer, completed by a test loop. Slots: origin o writes
 * [o * NFLIGHT * 4096 + i * 4096 + 1, +FLIGHT_SZ) of each target. */
static void in_flight(rdmach_key_t *krw, unsigned char *region, unsigned char *src, unsigned char *dst)
{
    size_t nops = (size_t)NFLIGHT * (size_t)np;
    rdmach_op_t *ops = calloc(nops, sizeof(*ops));
    CHECK(ops != NULL, "no memory");
    memset(region, 0, (size_t)np * NFLIGHT * 4096 + 4096);
    barrier();
    for (int t = 0; t < np; t++)
        for (int i = 0; i < NFLIGHT; i++) {
            unsigned char *s = src + ((size_t)t * NFLIGHT + i) * 4096 + 2;
            fill(s, FLIGHT_SZ, seed_of(me, t, (size_t)i, 2));
            uint64_t ra = bases[t] + ((size_t)me * NFLIGHT + i) * 4096 + 1;
            ok(rdmach_put(t, s, FLIGHT_SZ, &krw[t], ra, &ops[(size_t)t * NFLIGHT + i]), "put in flight");
        }
    for (size_t k = nops; k-- > 0;)
        CHECK(rdmach_wait(&ops[k]) == RDMACH_OK, "put %zu of %zu in flight failed", k, nops);
    barrier();
    for (int o = 0; o < np; o++)
        for (int i = 0; i < NFLIGHT; i++) {
            const unsigned char *p = region + ((size_t)o * NFLIGHT + i) * 4096 + 1;
            size_t at = first_diff(p, FLIGHT_SZ, seed_of(o, me, (size_t)i, 2));
            CHECK(at == FLIGHT_SZ, "in-flight put %d from rank %d: byte %zu differs", i, o, at);
            CHECK(p[-1] == 0 && p[FLIGHT_SZ] == 0, "in-flight put %d from rank %d spilled", i, o);
        }
    /* gets: read back what I put, all at once; a test loop completes them */
    memset(dst, 0, nops * 4096 + 4096);
    for (int t = 0; t < np; t++)
        for (int i = 0; i < NFLIGHT; i++) {
            uint64_t ra = bases[t] + ((size_t)me * NFLIGHT + i) * 4096 + 1;
            ok(rdmach_get(t, dst + ((size_t)t * NFLIGHT + i) * 4096 + 3, FLIGHT_SZ, &krw[t], ra,
                          &ops[(size_t)t * NFLIGHT + i]), "get in flight");
        }
    size_t left = nops;
    unsigned long polls = 0;
    char *seen = calloc(nops, 1);
    CHECK(seen != NULL, "no memory");
    double t0 = rch_base_wtime();
    while (left > 0) {
        for (size_t k = 0; k < nops; k++) {
            if (seen[k])
                continue;
            int done = 0;
            rdmach_status_t st = rdmach_test(&ops[k], &done);
            CHECK(st == RDMACH_OK, "test of get %zu: %s", k, rdmach_strerror(st));
            if (done) {
                seen[k] = 1;
                left--;
            }
        }
        polls++;
        CHECK(rch_base_wtime() - t0 < 60, "%zu of %zu gets still in flight after 60 s of polling", left, nops);
    }
    for (int t = 0; t < np; t++)
        for (int i = 0; i < NFLIGHT; i++) {
            const unsigned char *p = dst + ((size_t)t * NFLIGHT + i) * 4096 + 3;
            size_t at = first_diff(p, FLIGHT_SZ, seed_of(me, t, (size_t)i, 2));
            CHECK(at == FLIGHT_SZ, "in-flight get %d from rank %d: byte %zu differs", i, t, at);
            CHECK(p[-1] == 0 && p[FLIGHT_SZ] == 0, "in-flight get %d from rank %d spilled", i, t);
        }
    if (me == 0)
        printf("native_putget: %zu puts in flight (waited in reverse order) and %zu gets completed by %lu test "
               "passes checked\n", nops, nops, polls);
    free(seen);
    free(ops);
    barrier();
}

static int run_check(void)
{
    errors_before_init();
    ok(rdmach_init(NULL, NULL), "init");
    me = rdmach_rank();
    np = rdmach_size();
    errors_registration();
    /* main region (rw), a read-only and a write-only one */
    unsigned char *region = malloc(REGION), *ronly = malloc(4096), *wonly = malloc(4096);
    unsigned char *src = malloc(MAXSZ + 4096 * (size_t)NFLIGHT * 8), *dst = malloc(MAXSZ + 4096 * (size_t)NFLIGHT * 8);
    CHECK(region && ronly && wonly && src && dst, "no memory");
    rdmach_mem_t mrw, mr, mw;
    ok(rdmach_mem_reg(region, REGION, RDMACH_MEM_REMOTE_READ | RDMACH_MEM_REMOTE_WRITE, &mrw), "reg rw");
    ok(rdmach_mem_reg(ronly, 4096, RDMACH_MEM_REMOTE_READ, &mr), "reg r");
    ok(rdmach_mem_reg(wonly, 4096, RDMACH_MEM_REMOTE_WRITE, &mw), "reg w");
    rdmach_key_t k;
    ok(rdmach_mem_key(mrw, &k), "key rw");
    key_publish("npg-rw", &k);
    ok(rdmach_mem_key(mr, &k), "key r");
    key_publish("npg-r", &k);
    ok(rdmach_mem_key(mw, &k), "key w");
    key_publish("npg-w", &k);
    char addr[64];
    snprintf(addr, sizeof(addr), "%llx,%llx,%llx", (unsigned long long)(uintptr_t)region,
             (unsigned long long)(uintptr_t)ronly, (unsigned long long)(uintptr_t)wonly);
    ok(rdmach_kvs_put("npg-addr", addr), "kvs_put addr");
    fence();
    rdmach_key_t *krw = calloc((size_t)np, sizeof(*krw)), *kr = calloc((size_t)np, sizeof(*kr)),
                 *kw = calloc((size_t)np, sizeof(*kw));
    bases = calloc((size_t)np * 3, sizeof(*bases));
    CHECK(krw && kr && kw && bases, "no memory");
    for (int r = 0; r < np; r++) {
        key_fetch(r, "npg-rw", &krw[r]);
        key_fetch(r, "npg-r", &kr[r]);
        key_fetch(r, "npg-w", &kw[r]);
        ok(rdmach_kvs_get(r, "npg-addr", addr, sizeof(addr)), "kvs_get addr");
        unsigned long long a, b, c;
        CHECK(sscanf(addr, "%llx,%llx,%llx", &a, &b, &c) == 3, "addr of rank %d: %s", r, addr);
        bases[r] = a;
        bases[np + r] = b;
        bases[2 * np + r] = c;
    }
    errors_ops(krw, kw, kr, src);
    barrier();
    pairs(krw, region, src, dst);
    in_flight(krw, region, src, dst);

    ok(rdmach_mem_dereg(mw), "dereg w");
    expect(rdmach_mem_dereg(mw), RDMACH_ERR_INVALID_ARG, "not a live registration", "dereg twice");
    /* a stale handle whose slot (and, with malloc, address) a new
     * registration took over must not release the new one */
    rdmach_mem_t again;
    ok(rdmach_mem_reg(wonly, 4096, RDMACH_MEM_REMOTE_WRITE, &again), "reg w again");
    expect(rdmach_mem_dereg(mw), RDMACH_ERR_INVALID_ARG, "not a live registration", "dereg a reused handle");
    expect(rdmach_mem_key(mw, &k), RDMACH_ERR_INVALID_ARG, "not a live registration", "key of a released handle");
    ok(rdmach_mem_key(again, &k), "key of the new registration");
    ok(rdmach_mem_dereg(again), "dereg w again");
    ok(rdmach_mem_dereg(mr), "dereg r");
    barrier();                          /* nobody touches region any more */
    ok(rdmach_mem_dereg(mrw), "dereg rw");
    ok(rdmach_finalize(), "finalize");
    rdmach_op_t op;
    expect(rdmach_put(0, src, 8, &krw[0], bases[0], &op), RDMACH_ERR_NOT_INITIALIZED, "not initialized",
           "put after finalize");
    free(krw), free(kr), free(kw), free(bases);
    free(region), free(ronly), free(wonly), free(src), free(dst);
    return 0;
}

/* ---- kill ---- */

#define SINK ((size_t)64 << 20)
#define CHUNK ((size_t)1 << 20)
#define INFLIGHT 4
#define DEADLINE 60.0
#define DETECT_MAX 10.0

static int peer_class(rdmach_status_t st)
{
    return st <= RDMACH_ERR_PEER_DEAD && st > RDMACH_ERR_TRUNCATE;
}

static void victim(int tell_fd)
{
    if (rch_dev_init() != RDMACH_OK) {
        fprintf(stderr, "native_putget kill: victim: device start-up: %s\n", rdmach_last_error());
        _exit(2);
    }
    unsigned char *sink = calloc(1, SINK);
    rdmach_mem_t m;
    rdmach_key_t k;
    if (!sink || rdmach_mem_reg(sink, SINK, RDMACH_MEM_REMOTE_WRITE, &m) != RDMACH_OK ||
        rdmach_mem_key(m, &k) != RDMACH_OK) {
        fprintf(stderr, "native_putget kill: victim: registration: %s\n", rdmach_last_error());
        _exit(2);
    }
    key_publish("npg-sink", &k);
    if (rdmach_kvs_fence() != RDMACH_OK)
        _exit(2);
    int told = 0;
    double t0 = rch_base_wtime();
    while (rch_base_wtime() - t0 < DEADLINE) {   /* killed long before this */
        rdmach_progress();
        if (!told) {
            int landed = 0;
            for (size_t i = 0; i < SINK / CHUNK; i++)
                landed += sink[i * CHUNK] != 0 && sink[i * CHUNK + CHUNK - 1] != 0;
            if (landed >= 3) {
                char c = 'k';
                told = write(tell_fd, &c, 1) == 1;
                fprintf(stderr, "native_putget kill: victim: %d puts landed; transfers under way\n", landed);
            }
        }
    }
    fprintf(stderr, "native_putget kill: victim: not killed within %.0f s\n", DEADLINE);
    _exit(3);
}

static int kill_rank1(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    pid_t v = fork();
    CHECK(v >= 0, "fork");
    if (v == 0) {
        close(fds[0]);
        victim(fds[1]);
    }
    close(fds[1]);
    struct pollfd pf = { .fd = fds[0], .events = POLLIN };
    char c;
    int ready = poll(&pf, 1, (int)(DEADLINE * 1000)) == 1 && read(fds[0], &c, 1) == 1;
    /* the time just before kill(): the victim may die, and rank 0 notice,
     * before kill() returns here (monotonic clock, one machine) */
    double t_kill = rch_base_wtime();
    CHECK(kill(v, SIGKILL) == 0, "kill");
    int status = 0;
    waitpid(v, &status, 0);
    CHECK(ready, "the victim never reported puts landing (status %#x)", status);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the victim ended otherwise (status %#x)", status);
    fprintf(stderr, "native_putget kill: rank 1's device process killed with SIGKILL mid-transfer\n");
    char val[64];
    snprintf(val, sizeof(val), "%.6f", t_kill);
    ok(rch_boot_put("npg-killed", val), "kvs put");
    ok(rch_boot_fence(), "fence");
    return 0;
}

static int kill_rank0(void)
{
    ok(rch_dev_init(), "device init");
    rdmach_key_t k;
    ok(rdmach_kvs_fence(), "fence");
    key_fetch(1, "npg-sink", &k);
    uint64_t base;
    memcpy(&base, k.bytes + 16, sizeof(base));   /* key v1: base at byte 16 (native_rma.h) */
    unsigned char *src = malloc(CHUNK);
    CHECK(src != NULL, "no memory");
    memset(src, 0x6b, CHUNK);
    rdmach_op_t ops[INFLIGHT];
    int busy[INFLIGHT] = { 0 };
    unsigned long posted = 0, completed = 0, failed = 0;
    rdmach_status_t first_err = RDMACH_OK;
    char first_msg[256] = "";
    double t0 = rch_base_wtime(), t_fail = 0;
    while (failed == 0 && rch_base_wtime() - t0 < DEADLINE) {
        for (int i = 0; i < INFLIGHT; i++) {
            if (busy[i]) {
                int done = 0;
                rdmach_status_t st = rdmach_test(&ops[i], &done);
                if (!done)
                    continue;
                busy[i] = 0;
                completed++;
                if (st != RDMACH_OK && failed++ == 0) {
                    t_fail = rch_base_wtime();
                    first_err = st;
                    snprintf(first_msg, sizeof(first_msg), "%s", rdmach_last_error());
                }
            }
            if (failed == 0) {
                uint64_t off = (posted % (SINK / CHUNK)) * CHUNK;
                ok(rdmach_put(1, src, CHUNK, &k, base + off, &ops[i]), "put");
                busy[i] = 1;
                posted++;
            }
        }
    }
    CHECK(failed > 0, "no put failed within %.0f s (%lu posted)", DEADLINE, posted);
    /* every put still in flight completes */
    for (int i = 0; i < INFLIGHT; i++)
        if (busy[i]) {
            rdmach_status_t st = rdmach_wait(&ops[i]);
            completed++;
            if (st != RDMACH_OK) {
                failed++;
                CHECK(peer_class(st), "a put in flight ended with %s", rdmach_strerror(st));
                CHECK(strstr(rdmach_last_error(), "rank 1") != NULL, "message does not name rank 1: %s",
                      rdmach_last_error());
            }
        }
    fprintf(stderr, "native_putget kill: rank 0: %lu puts posted, %lu completed, %lu with an error; first: %s\n",
            posted, completed, failed, first_msg);
    CHECK(completed == posted, "%lu puts never completed", posted - completed);
    CHECK(peer_class(first_err), "the first failure is %s, not a peer error", rdmach_strerror(first_err));
    CHECK(strstr(first_msg, "rank 1") != NULL, "the failure does not name rank 1: %s", first_msg);
    /* a put now: the op completes with PEER_DEAD naming rank 1 (once the device knows) */
    rdmach_status_t st;
    double t1 = rch_base_wtime();
    do {
        rdmach_op_t op;
        ok(rdmach_put(1, src, 8, &k, base, &op), "put after the failure");
        st = rdmach_wait(&op);
    } while (st != RDMACH_ERR_PEER_DEAD && peer_class(st) && rch_base_wtime() - t1 < DETECT_MAX);
    CHECK(st == RDMACH_ERR_PEER_DEAD, "a put to the dead rank ended with %s", rdmach_strerror(st));
    CHECK(strstr(rdmach_last_error(), "rank 1") != NULL, "message does not name rank 1: %s", rdmach_last_error());
    fprintf(stderr, "native_putget kill: rank 0: later put: %s\n", rdmach_last_error());
    char val[64];
    ok(rch_boot_fence(), "fence");
    ok(rch_boot_get(1, "npg-killed", val, sizeof(val)), "kvs get");
    double dt = t_fail - atof(val);
    fprintf(stderr, "native_putget kill: rank 0 saw rank 1's death %.3f s after the kill\n", dt);
    CHECK(dt >= 0, "a put failed %.3f s BEFORE the kill", -dt);
    CHECK(dt <= DETECT_MAX, "the failure took %.1f s to notice", dt);
    ok(rch_dev_finalize(), "device finalize");
    free(src);
    return 0;
}

static int run_kill(void)
{
    ok(rch_base_tun_load(), "tunables");
    ok(rch_boot_init(), "bootstrap");
    me = rch_boot.rank;
    np = rch_boot.size;
    rch_log_set_rank(me);
    CHECK(np == 2, "run with 2 ranks");
    int rc = me == 0 ? kill_rank0() : kill_rank1();
    rch_boot_finalize();
    return rc;
}

/* ---- bench ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int run_bench(int n)
{
    ok(rdmach_init(NULL, NULL), "init");
    me = rdmach_rank();
    np = rdmach_size();
    CHECK(np >= 2, "run with 2 ranks");
    static volatile uint64_t target[64];
    rdmach_mem_t m;
    rdmach_key_t k;
    ok(rdmach_mem_reg((void *)target, sizeof(target), RDMACH_MEM_REMOTE_READ | RDMACH_MEM_REMOTE_WRITE, &m), "reg");
    ok(rdmach_mem_key(m, &k), "key");
    key_publish("npg-bench", &k);
    fence();
    if (me == 0) {
        key_fetch(1, "npg-bench", &k);
        uint64_t base;
        memcpy(&base, k.bytes + 16, sizeof(base));
        double *t = malloc(sizeof(double) * (size_t)n);
        CHECK(t != NULL, "no memory");
        uint64_t v = 0;
        rdmach_op_t op;
        for (int kind = 0; kind < 2; kind++) {
            for (int i = -n / 10; i < n; i++) {
                v++;
                double a = rch_base_wtime();
                if (kind == 0)
                    ok(rdmach_put(1, &v, 8, &k, base + 8, &op), "put");
                else
                    ok(rdmach_get(1, &v, 8, &k, base + 8, &op), "get");
                ok(rdmach_wait(&op), "wait");
                if (i >= 0)
                    t[i] = rch_base_wtime() - a;
            }
            double sum = 0;
            for (int i = 0; i < n; i++)
                sum += t[i];
            qsort(t, (size_t)n, sizeof(double), cmp_double);
            printf("native_putget bench: %s 8 B (start + wait): mean %.2f us, median %.2f us, min %.2f us "
                   "(%d ops)\n", kind == 0 ? "put" : "get", sum / n * 1e6, t[n / 2] * 1e6, t[0] * 1e6, n);
        }
        uint64_t stop = 1;
        ok(rdmach_put(1, &stop, 8, &k, base, &op), "put stop");
        ok(rdmach_wait(&op), "wait stop");
        free(t);
    } else if (me == 1) {
        double t0 = rch_base_wtime();
        unsigned long polls = 0;
        while (target[0] == 0) {      /* passive: only progress */
            rdmach_progress();
            if (++polls % 4096 == 0)
                CHECK(rch_base_wtime() - t0 < 120, "no stop from rank 0");
        }
    }
    barrier();
    ok(rdmach_mem_dereg(m), "dereg");
    ok(rdmach_finalize(), "finalize");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        mode = argv[1];
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc;
    if (strcmp(mode, "check") == 0)
        rc = run_check();
    else if (strcmp(mode, "kill") == 0)
        rc = run_kill();
    else if (strcmp(mode, "bench") == 0)
        rc = run_bench(argc > 2 ? atoi(argv[2]) : 10000);
    else {
        fprintf(stderr, "usage: native_putget check|kill|bench [n]\n");
        return 2;
    }
    if (rc == 0)
        printf("native_putget %s: rank %d ok (%lu checks)\n", mode, me, nchecks);
    return rc;
}
