/*
 * Multi-process tests of the device over the real channels, run under
 * rdmachrun:  mp_dev <case> [args]
 *
 *   pairs [rounds]   every pair of ranks exchanges messages of pseudo-random
 *                    sizes (0 B .. 16 MiB) and tags both ways, all in flight
 *                    at once; every byte verified
 *   fanin [n]        rank 0 receives n messages from every other rank with
 *                    ANY_SOURCE; per-sender order must hold (non-overtaking)
 *   ring [hops]      an 8-byte token goes round the ring `hops` times in all;
 *                    rank 0 prints the time per hop
 *   sync             a synchronous send stays incomplete until the receiver
 *                    posts its receive, which it does only when told to
 *   pingpong [iters] [bytes]  ranks 0 and 1: one-way latency (a benchmark)
 *   flood [n]        rank 0 sends n small messages to rank 1 before rank 1
 *                    reads any (far more than its ring holds: the channel
 *                    pushes back, the device queues in order); then rank 1
 *                    receives them all and checks order and content
 *   unreachable      under RDMACH_VNODE_SIZE=1 every other rank is another
 *                    (pretend) node: sends fail with UNREACHABLE naming it
 *
 * Exit 0 on success; a failed check prints what and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rdmach.h"
#include "base/base.h"
#include "device/dev.h"

static int rank, size;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "mp_dev rank %d: check failed: %s: ", rank, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

static void ok(rdmach_status_t st, const char *what)
{
    CHECK(st == RDMACH_OK, "%s: %s: %s", what, rdmach_strerror(st), rdmach_last_error());
}

static void wait_ok(struct rch_dev_req *r, const char *what)
{
    if (r == NULL)
        return;
    ok(rch_dev_wait(r), what);
    CHECK(r->err == RDMACH_OK, "%s: request error %s: %s", what, rdmach_strerror(r->err), rdmach_last_error());
}

/* Everyone's barrier through the device: gather to 0, then release. */
static void barrier(void)
{
    char x = 0;
    struct rch_dev_req *r;
    const uint32_t ctx = 1000;
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            ok(rch_dev_irecv(&x, 1, RCH_DEV_ANY_SOURCE, 0, ctx, &r), "barrier irecv");
            wait_ok(r, "barrier in");
            rch_dev_req_free(r);
        }
        for (int i = 1; i < size; i++) {
            ok(rch_dev_isend(&x, 1, i, 0, 1, ctx, RCH_DEV_SEND_STD, &r), "barrier isend");
            wait_ok(r, "barrier out");
            rch_dev_req_free(r);
        }
    } else {
        ok(rch_dev_isend(&x, 1, 0, rank, 0, ctx, RCH_DEV_SEND_STD, &r), "barrier isend");
        wait_ok(r, "barrier up");
        rch_dev_req_free(r);
        ok(rch_dev_irecv(&x, 1, 0, 1, ctx, &r), "barrier irecv");
        wait_ok(r, "barrier down");
        rch_dev_req_free(r);
    }
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Size of message k from a to b: mostly small, some medium, a few huge. */
static size_t msg_size(int a, int b, int k)
{
    uint64_t h = mix((uint64_t)a << 40 | (uint64_t)b << 20 | (uint64_t)k);
    switch (h % 8) {
    case 0: return 0;
    case 1: case 2: return h >> 8 & 63;
    case 3: case 4: return h >> 8 & 4095;
    case 5: return h >> 8 & 65535;
    case 6: return h >> 8 & (1024 * 1024 - 1);
    default: return (h >> 8 & 3) == 0 ? 16u * 1024 * 1024 : (h >> 8) % (3 * 1024 * 1024);
    }
}

static unsigned char byte_of(int a, int b, int k, size_t i)
{
    return (unsigned char)(mix((uint64_t)a * 7919 + (uint64_t)b * 104729 + (uint64_t)k) + i * 131);
}

static int case_pairs(int rounds)
{
    int n = size * rounds;   /* messages each rank sends and receives */
    struct rch_dev_req **rr = calloc((size_t)n, sizeof(*rr)), **sr = calloc((size_t)n, sizeof(*sr));
    unsigned char **rb = calloc((size_t)n, sizeof(*rb)), **sb = calloc((size_t)n, sizeof(*sb));
    CHECK(rr && sr && rb && sb, "no memory");
    size_t total = 0;
    for (int k = 0; k < rounds; k++) {
        for (int p = 0; p < size; p++) {
            int i = k * size + p;
            size_t in = msg_size(p, rank, k), out = msg_size(rank, p, k);
            rb[i] = malloc(in ? in : 1);
            sb[i] = malloc(out ? out : 1);
            CHECK(rb[i] && sb[i], "no memory for %zu/%zu bytes", in, out);
            for (size_t j = 0; j < out; j++)
                sb[i][j] = byte_of(rank, p, k, j);
            int tag = (int)(mix((uint64_t)k * 31 + (uint64_t)p) % 1000) * 64 + k % 64;
            int mytag = (int)(mix((uint64_t)k * 31 + (uint64_t)rank) % 1000) * 64 + k % 64;
            ok(rch_dev_irecv(rb[i], in, p, tag, 7, &rr[i]), "pairs irecv");
            int mode = k % 5 == 4 ? RCH_DEV_SEND_SYNC : RCH_DEV_SEND_STD;
            ok(rch_dev_isend(sb[i], out, p, rank, mytag, 7, mode, &sr[i]), "pairs isend");
            total += in;
        }
    }
    for (int i = 0; i < n; i++) {
        int k = i / size, p = i % size;
        size_t in = msg_size(p, rank, k);
        wait_ok(rr[i], "pairs receive");
        CHECK(rr[i]->bytes == in && rr[i]->msg_bytes == in, "from %d #%d: %zu bytes, expected %zu", p, k,
              rr[i]->bytes, in);
        CHECK(rr[i]->source == p, "source %d, expected %d", rr[i]->source, p);
        for (size_t j = 0; j < in; j++)
            CHECK(rb[i][j] == byte_of(p, rank, k, j), "from %d #%d (%zu bytes): byte %zu differs", p, k, in, j);
        rch_dev_req_free(rr[i]);
    }
    for (int i = 0; i < n; i++) {
        wait_ok(sr[i], "pairs send");
        rch_dev_req_free(sr[i]);
        free(rb[i]);
        free(sb[i]);
    }
    barrier();
    if (rank == 0)
        printf("mp_dev pairs: ok, %d ranks x %d rounds, %zu bytes received by rank 0\n", size, rounds, total);
    free(rr);
    free(sr);
    free(rb);
    free(sb);
    return 0;
}

static int case_fanin(int n)
{
    static unsigned char buf[200000];
    if (rank == 0) {
        int *next = calloc((size_t)size, sizeof(int));
        for (int i = 0; i < n * (size - 1); i++) {
            struct rch_dev_req *r;
            ok(rch_dev_irecv(buf, sizeof(buf), RCH_DEV_ANY_SOURCE, RCH_DEV_ANY_TAG, 3, &r), "fanin irecv");
            wait_ok(r, "fanin receive");
            int src = r->source;
            CHECK(src >= 1 && src < size, "source %d", src);
            CHECK(r->tag == next[src], "from %d: tag %d arrived before %d (overtaken)", src, r->tag, next[src]);
            size_t want = (size_t)(next[src] % 7 == 3 ? 150000 : next[src] % 50);
            CHECK(r->bytes == want, "from %d #%d: %zu bytes, expected %zu", src, r->tag, r->bytes, want);
            for (size_t j = 0; j < want; j++)
                CHECK(buf[j] == (unsigned char)(src + r->tag + j), "from %d #%d: byte %zu", src, r->tag, j);
            next[src]++;
            rch_dev_req_free(r);
        }
        printf("mp_dev fanin: ok, %d messages from each of %d senders in order\n", n, size - 1);
        free(next);
    } else {
        for (int k = 0; k < n; k++) {
            size_t len = (size_t)(k % 7 == 3 ? 150000 : k % 50);
            for (size_t j = 0; j < len; j++)
                buf[j] = (unsigned char)(rank + k + j);
            struct rch_dev_req *r;
            ok(rch_dev_isend(buf, len, 0, rank, k, 3, RCH_DEV_SEND_STD, &r), "fanin isend");
            wait_ok(r, "fanin send");   /* the buffer is reused */
            rch_dev_req_free(r);
        }
    }
    barrier();
    return 0;
}

static int case_ring(long hops)
{
    uint64_t token = 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long laps = hops / size > 0 ? hops / size : 1;
    barrier();
    double t0 = rch_base_wtime();
    for (long l = 0; l < laps; l++) {
        struct rch_dev_req *r, *s;
        if (rank == 0) {
            token = (uint64_t)l * (uint64_t)size;
            ok(rch_dev_isend(&token, 8, next, rank, 5, 9, RCH_DEV_SEND_STD, &s), "ring send");
            wait_ok(s, "ring send");
            rch_dev_req_free(s);
            ok(rch_dev_irecv(&token, 8, prev, 5, 9, &r), "ring recv");
            wait_ok(r, "ring recv");
            rch_dev_req_free(r);
            CHECK(token == (uint64_t)l * (uint64_t)size + (uint64_t)size - 1, "lap %ld: token %llu", l,
                  (unsigned long long)token);
        } else {
            ok(rch_dev_irecv(&token, 8, prev, 5, 9, &r), "ring recv");
            wait_ok(r, "ring recv");
            rch_dev_req_free(r);
            token++;
            ok(rch_dev_isend(&token, 8, next, rank, 5, 9, RCH_DEV_SEND_STD, &s), "ring send");
            wait_ok(s, "ring send");
            rch_dev_req_free(s);
        }
    }
    double dt = rch_base_wtime() - t0;
    barrier();
    if (rank == 0)
        printf("mp_dev ring: ok, %d ranks, %ld hops in %.3f s: %.2f us per hop\n", size, laps * size, dt,
               dt * 1e6 / (double)(laps * size));
    return 0;
}

static int case_sync(void)
{
    CHECK(size >= 2, "needs 2 ranks");
    uint32_t v = 0x5eed, go = 1;
    struct rch_dev_req *s, *r;
    if (rank == 0) {
        ok(rch_dev_isend(&v, sizeof(v), 1, 0, 1, 2, RCH_DEV_SEND_SYNC, &s), "sync isend");
        CHECK(s != NULL, "a synchronous send cannot complete before the receive is posted");
        for (int i = 0; i < 20000; i++)
            rch_dev_progress();
        CHECK(!s->done, "synchronous send completed before the receiver posted its receive");
        ok(rch_dev_isend(&go, sizeof(go), 1, 0, 2, 2, RCH_DEV_SEND_STD, &r), "go");
        wait_ok(r, "go");
        rch_dev_req_free(r);
        wait_ok(s, "sync send");
        rch_dev_req_free(s);
        printf("mp_dev sync: ok\n");
    } else if (rank == 1) {
        uint32_t in = 0, g = 0;
        ok(rch_dev_irecv(&g, sizeof(g), 0, 2, 2, &r), "go irecv");
        wait_ok(r, "go");
        rch_dev_req_free(r);
        ok(rch_dev_irecv(&in, sizeof(in), 0, 1, 2, &r), "sync irecv");
        wait_ok(r, "sync receive");
        CHECK(in == v, "got %x", in);
        rch_dev_req_free(r);
    }
    barrier();
    return 0;
}

static int case_pingpong(int iters, size_t bytes)
{
    CHECK(size >= 2, "needs 2 ranks");
    unsigned char *buf = calloc(1, bytes ? bytes : 1);
    struct rch_dev_req *r, *s;
    double t0 = 0;
    barrier();
    for (int i = -iters / 10; i < iters; i++) {   /* the first tenth warms up */
        if (i == 0)
            t0 = rch_base_wtime();
        if (rank == 0) {
            ok(rch_dev_isend(buf, bytes, 1, 0, 1, 4, RCH_DEV_SEND_STD, &s), "ping");
            wait_ok(s, "ping");
            rch_dev_req_free(s);
            ok(rch_dev_irecv(buf, bytes, 1, 1, 4, &r), "pong");
            wait_ok(r, "pong");
            rch_dev_req_free(r);
        } else if (rank == 1) {
            ok(rch_dev_irecv(buf, bytes, 0, 1, 4, &r), "ping");
            wait_ok(r, "ping");
            rch_dev_req_free(r);
            ok(rch_dev_isend(buf, bytes, 0, 1, 1, 4, RCH_DEV_SEND_STD, &s), "pong");
            wait_ok(s, "pong");
            rch_dev_req_free(s);
        }
    }
    double dt = rch_base_wtime() - t0;
    if (rank == 0)
        printf("mp_dev pingpong: %zu bytes, %d round trips: %.3f us one-way\n", bytes, iters,
               dt * 1e6 / (2.0 * iters));
    barrier();
    free(buf);
    return 0;
}

static int case_flood(int n)
{
    CHECK(size >= 2, "needs 2 ranks");
    uint32_t *vals = malloc(sizeof(uint32_t) * (size_t)n);
    struct rch_dev_req **reqs = calloc((size_t)n, sizeof(*reqs));
    CHECK(vals && reqs, "no memory");
    uint32_t go = 1;
    struct rch_dev_req *r;
    if (rank == 0) {
        int queued = 0;
        for (int i = 0; i < n; i++) {
            vals[i] = 0xF100D000u + (uint32_t)i;
            ok(rch_dev_isend(&vals[i], sizeof(uint32_t), 1, 0, i % 3, 6, RCH_DEV_SEND_STD, &reqs[i]), "flood isend");
            queued += reqs[i] != NULL;
        }
        CHECK(queued > 0, "%d messages all fit the ring: the test does not exercise back-pressure", n);
        ok(rch_dev_isend(&go, sizeof(go), 1, 0, 99, 6, RCH_DEV_SEND_STD, &r), "go");
        wait_ok(r, "go");
        rch_dev_req_free(r);
        for (int i = 0; i < n; i++) {
            wait_ok(reqs[i], "flood send");
            rch_dev_req_free(reqs[i]);
        }
        printf("mp_dev flood: ok, %d messages, %d of them queued behind a full ring\n", n, queued);
    } else if (rank == 1) {
        uint32_t g = 0;
        ok(rch_dev_irecv(&g, sizeof(g), 0, 99, 6, &r), "go irecv");
        wait_ok(r, "go");
        rch_dev_req_free(r);
        int next[3] = { 0, 1, 2 };
        for (int i = 0; i < n; i++) {
            uint32_t v = 0;
            int t = i % 5 == 0 ? RCH_DEV_ANY_TAG : (i % 3);
            ok(rch_dev_irecv(&v, sizeof(v), 0, t, 6, &r), "flood irecv");
            wait_ok(r, "flood receive");
            int tag = r->tag;
            CHECK(tag >= 0 && tag < 3, "tag %d", tag);
            if (t == RCH_DEV_ANY_TAG) {
                /* the earliest message left, whatever its tag */
                int lo = next[0] < next[1] ? (next[0] < next[2] ? 0 : 2) : (next[1] < next[2] ? 1 : 2);
                CHECK(tag == lo, "ANY_TAG took tag %d (#%d) before tag %d (#%d)", tag, next[tag], lo, next[lo]);
            }
            CHECK(v == 0xF100D000u + (uint32_t)next[tag], "tag %d: got #%u, expected #%d", tag,
                  v - 0xF100D000u, next[tag]);
            next[tag] += 3;
            rch_dev_req_free(r);
        }
    }
    barrier();
    free(vals);
    free(reqs);
    return 0;
}

static int case_unreachable(void)
{
    int other = (rank + 1) % size;
    CHECK(size >= 2, "needs 2 ranks");
    uint32_t v = 1;
    struct rch_dev_req *s;
    ok(rch_dev_isend(&v, sizeof(v), other, rank, 0, 0, RCH_DEV_SEND_STD, &s), "isend");
    CHECK(s != NULL && s->done, "a send to another node must complete at once");
    CHECK(s->err == RDMACH_ERR_UNREACHABLE, "err %s", rdmach_strerror(s->err));
    char want[32];
    snprintf(want, sizeof(want), "rank %d", other);
    CHECK(strstr(rdmach_last_error(), want) != NULL, "message does not name %s: %s", want, rdmach_last_error());
    if (rank == 0)
        printf("mp_dev unreachable: ok: %s\n", rdmach_last_error());
    rch_dev_req_free(s);
    /* Self still works. */
    uint32_t in = 0;
    struct rch_dev_req *r;
    ok(rch_dev_isend(&v, sizeof(v), rank, rank, 1, 0, RCH_DEV_SEND_STD, &s), "self isend");
    ok(rch_dev_irecv(&in, sizeof(in), rank, 1, 0, &r), "self irecv");
    wait_ok(r, "self");
    CHECK(in == 1, "self message");
    rch_dev_req_free(r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mp_dev pairs|fanin|ring|sync|pingpong|flood|unreachable [args]\n");
        return 2;
    }
    rdmach_status_t st = rdmach_init(&argc, &argv);
    if (st != RDMACH_OK) {
        fprintf(stderr, "mp_dev: rdmach_init: %s: %s\n", rdmach_strerror(st), rdmach_last_error());
        return 1;
    }
    rank = rdmach_rank();
    size = rdmach_size();
    const char *c = argv[1];
    long a = argc > 2 ? atol(argv[2]) : 0;
    int rc;
    if (strcmp(c, "pairs") == 0)
        rc = case_pairs(a > 0 ? (int)a : 6);
    else if (strcmp(c, "fanin") == 0)
        rc = case_fanin(a > 0 ? (int)a : 200);
    else if (strcmp(c, "ring") == 0)
        rc = case_ring(a > 0 ? a : 10000);
    else if (strcmp(c, "sync") == 0)
        rc = case_sync();
    else if (strcmp(c, "pingpong") == 0)
        rc = case_pingpong(a > 0 ? (int)a : 100000, argc > 3 ? (size_t)atol(argv[3]) : 8);
    else if (strcmp(c, "flood") == 0)
        rc = case_flood(a > 0 ? (int)a : 200000);
    else if (strcmp(c, "unreachable") == 0)
        rc = case_unreachable();
    else {
        fprintf(stderr, "mp_dev: unknown case '%s'\n", c);
        rc = 2;
    }
    rdmach_finalize();
    return rc;
}
