/*
 * physlimits: the physical limits of this machine that bound any MPI library
 * (not an MPI program; plain C and POSIX threads).
 *
 *  - memcpy bandwidth from main memory: 64 MiB buffers (far larger than the
 *    caches), best of several copies. A single-copy MPI transfer of a large
 *    message cannot beat this; a two-copy one pays it twice.
 *  - memcpy bandwidth with the buffers hot in cache at 1 MiB and 4 MiB, the
 *    sizes of the bandwidth targets (OSU-style benchmarks reuse one buffer).
 *  - one-way cache-line transfer time between two cores: two threads pinned
 *    to two cores ping-pong a counter on one cache line; one-way = round trip
 *    / 2. No shared-memory message can arrive faster than this.
 *
 *   core A: write 2i-1 --->  line  ---> core B sees 2i-1, writes 2i
 *   core A sees 2i     <---  line  <---
 *
 * GB = 10^9 bytes; bandwidth counts the bytes copied once (the memory traffic
 * of a copy is twice that: one read and one write).
 *
 * Output: "name value unit description" lines (read by bench/compare).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setaffinity_np, CPU_SET */
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CACHE_LINE 64

struct opts {
    long mem_bytes;     /* main-memory copy size */
    int copy_reps;      /* best of */
    int core_a, core_b;
    long pingpongs;     /* round trips per repetition: short, so that some */
    int pp_reps;        /* repetitions run unpreempted on a busy machine; best of */
};

/* The line the two threads share, alone on its cache line. */
static struct {
    _Alignas(CACHE_LINE) _Atomic uint64_t seq;
    char pad[CACHE_LINE - sizeof(uint64_t)];
} line;

struct pp_thread {
    int core;
    int is_a;
    const struct opts *o;
    double best_rt_ns;  /* thread A: best round trip */
    int err;            /* errno of pthread_setaffinity_np, 0 if pinned */
};

static volatile unsigned char sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *alloc_touched(long bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, (size_t)bytes) != 0)
        return NULL;
    memset(p, 1, (size_t)bytes);
    return p;
}

/*
 * Best bandwidth (GB/s) of memcpy of `bytes`, `copies_per_rep` copies timed
 * together, best of `reps`. Returns -1 if the buffers cannot be allocated.
 */
static double memcpy_gbs(long bytes, long copies_per_rep, int reps)
{
    char *src = alloc_touched(bytes), *dst = alloc_touched(bytes);
    double best = -1.0;
    if (src && dst) {
        memcpy(dst, src, (size_t)bytes);  /* warm: pages mapped, caches primed */
        for (int r = 0; r < reps; r++) {
            double t0 = now_s();
            for (long c = 0; c < copies_per_rep; c++) {
                src[c % bytes] = (char)c;     /* a store the copy must carry */
                memcpy(dst, src, (size_t)bytes);
                sink ^= (unsigned char)dst[(c * 4096) % bytes];
            }
            double t = now_s() - t0;
            double gbs = (double)bytes * (double)copies_per_rep / t / 1e9;
            if (gbs > best)
                best = gbs;
        }
    }
    free(src);
    free(dst);
    return best;
}

static void *pp_main(void *arg)
{
    struct pp_thread *th = arg;
    const struct opts *o = th->o;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(th->core, &set);
    th->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    /*
     * Even when pinning failed the partner must not spin forever: both
     * threads still run the same number of round trips; main reports the
     * error and discards the figure.
     */
    uint64_t seq = 0;
    th->best_rt_ns = -1.0;
    for (int r = 0; r < o->pp_reps; r++) {
        double t0 = th->is_a ? now_s() : 0.0;
        for (long i = 0; i < o->pingpongs; i++) {
            if (th->is_a) {
                atomic_store_explicit(&line.seq, seq + 1, memory_order_release);
                while (atomic_load_explicit(&line.seq, memory_order_acquire) != seq + 2)
                    ;
            } else {
                while (atomic_load_explicit(&line.seq, memory_order_acquire) != seq + 1)
                    ;
                atomic_store_explicit(&line.seq, seq + 2, memory_order_release);
            }
            seq += 2;
        }
        if (th->is_a) {
            double rt = (now_s() - t0) * 1e9 / (double)o->pingpongs;
            if (th->best_rt_ns < 0.0 || rt < th->best_rt_ns)
                th->best_rt_ns = rt;
        }
    }
    return NULL;
}

static int usage(const char *prog, const char *why)
{
    fprintf(stderr, "%s: %s\nusage: %s [--quick] [--mem-mib N] [--cores A,B]\n", prog, why, prog);
    return 2;
}

int main(int argc, char **argv)
{
    struct opts o = { .mem_bytes = 64L << 20, .copy_reps = 5, .core_a = 0, .core_b = 1,
                      .pingpongs = 2000, .pp_reps = 201 };
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--mem-mib") && i + 1 < argc) {
            long v = strtol(argv[++i], &end, 10);
            if (*end != '\0' || v < 1 || v > 4096)
                return usage(argv[0], "--mem-mib needs a number of MiB between 1 and 4096");
            o.mem_bytes = v << 20;
        } else if (!strcmp(argv[i], "--cores") && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d", &o.core_a, &o.core_b) != 2 || o.core_a < 0 ||
                o.core_b < 0 || o.core_a == o.core_b || o.core_a >= CPU_SETSIZE ||
                o.core_b >= CPU_SETSIZE)
                return usage(argv[0], "--cores needs two different core numbers, e.g. 0,1");
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: %s [--quick] [--mem-mib N] [--cores A,B]\n", argv[0]);
            return 0;
        } else {
            char why[256];
            snprintf(why, sizeof(why), "unknown or incomplete argument '%s'", argv[i]);
            return usage(argv[0], why);
        }
    }
    if (quick) {
        o.copy_reps = 3;
        o.pp_reps = 51;
    }
    int status = 0;

    printf("# rdmach physlimits: physical limits of this machine (not MPI); GB = 10^9 bytes\n");
    printf("# %-22s%12s  %-6s %s\n", "Limit", "Value", "Unit", "How");

    long mib = o.mem_bytes >> 20;
    double gbs = memcpy_gbs(o.mem_bytes, 1, o.copy_reps);
    if (gbs < 0.0) {
        fprintf(stderr, "physlimits: cannot allocate 2 x %ld MiB for the memcpy test\n", mib);
        status = 1;
    } else {
        printf("%-24s%12.2f  %-6s memcpy of %ld MiB buffers (main memory), best of %d\n",
               "memcpy_main_memory", gbs, "GB/s", mib, o.copy_reps);
    }
    static const long hot_sizes[] = { 1L << 20, 4L << 20 };
    for (size_t i = 0; i < sizeof(hot_sizes) / sizeof(hot_sizes[0]); i++) {
        long bytes = hot_sizes[i];
        long copies = (quick ? 64L << 20 : 256L << 20) / bytes;
        gbs = memcpy_gbs(bytes, copies, o.copy_reps);
        char name[32];
        snprintf(name, sizeof(name), "memcpy_hot_%ldMiB", bytes >> 20);
        if (gbs < 0.0) {
            fprintf(stderr, "physlimits: cannot allocate 2 x %ld MiB for the memcpy test\n",
                    bytes >> 20);
            status = 1;
        } else {
            printf("%-24s%12.2f  %-6s memcpy of %ld MiB buffers hot in cache, %ld copies, best "
                   "of %d\n", name, gbs, "GB/s", bytes >> 20, copies, o.copy_reps);
        }
    }
    fflush(stdout);

    struct pp_thread a = { .core = o.core_a, .is_a = 1, .o = &o };
    struct pp_thread b = { .core = o.core_b, .is_a = 0, .o = &o };
    pthread_t ta, tb;
    atomic_store(&line.seq, 0);
    int e1 = pthread_create(&tb, NULL, pp_main, &b);
    int e2 = e1 ? e1 : pthread_create(&ta, NULL, pp_main, &a);
    if (e1 || e2) {
        fprintf(stderr, "physlimits: cannot create the ping-pong threads: %s\n",
                strerror(e1 ? e1 : e2));
        if (!e1 && e2) {
            /* b waits for a's first store forever: let it finish by playing a's part. */
            a.core = o.core_a;
            pp_main(&a);
            pthread_join(tb, NULL);
        }
        return 1;
    }
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    if (a.err || b.err) {
        fprintf(stderr, "physlimits: cannot pin a thread to core %d: %s (cores allowed to this "
                "process: see taskset -p $$; choose two with --cores A,B)\n",
                a.err ? o.core_a : o.core_b, strerror(a.err ? a.err : b.err));
        status = 1;
    } else {
        printf("%-24s%12.1f  %-6s cores %d and %d, round trip / 2, best of %d x %ld round trips\n",
               "cacheline_one_way", a.best_rt_ns / 2.0, "ns", o.core_a, o.core_b, o.pp_reps,
               o.pingpongs);
    }
    (void)sink;
    return status;
}
