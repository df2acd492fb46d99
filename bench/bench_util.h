/*
 * Shared helpers of the MPI benchmark programs (latency, bw, ring).
 *
 * The programs are plain MPI C: they must build unchanged with rdmach's mpicc,
 * mpicc.mpich and mpicc.openmpi, so this header uses nothing but MPI and libc.
 * They only use point-to-point calls (no MPI_Barrier, no reductions), so they
 * run on any library that has point-to-point, before collectives exist.
 *
 * Output convention (read by bench/compare, and by people):
 *   - every line that starts with '#' is a comment or a header;
 *   - every other line is "size value [more columns]", the key figure in the
 *     second column (latency in us, bandwidth in MB/s with MB = 10^6 bytes,
 *     as OSU prints it).
 *
 * Message sizes and iteration counts follow the OSU Micro-Benchmarks: sizes
 * 0, 1, 2, 4 ... 4 MiB; "small" messages (<= 8 KiB) get many iterations and
 * warm-up rounds, large ones fewer. --quick keeps 0 and the powers of 8 plus
 * 1 MiB and 4 MiB (so 8 B, 1 MiB and 4 MiB are always there) and a tenth of
 * the iterations.
 */
#ifndef RDMACH_BENCH_UTIL_H
#define RDMACH_BENCH_UTIL_H

/* posix_memalign under a strict -std=c11 (before any system header) */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200112L
#endif

#include <mpi.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_SIZE_DEFAULT   (4L << 20)   /* 4 MiB, as in the targets */
#define BENCH_LARGE_MESSAGE      8192L        /* OSU's LARGE_MESSAGE_SIZE */
#define BENCH_MAX_SIZES          64
#define BENCH_XSTR(x) #x
#define BENCH_STR(x) BENCH_XSTR(x)               /* a macro's value as a string literal */

/* Options common to the programs; a program reads only the ones it uses. */
struct bench_opts {
    int quick;          /* fewer sizes and iterations (CI smoke) */
    int validate;       /* check the received data of every size */
    long min_size;
    long max_size;
    long iters;         /* 0: scaled by size */
    long warmup;        /* -1: scaled by size */
    double seconds;     /* ring: time budget per size */
    long sizes[BENCH_MAX_SIZES]; /* explicit list (--sizes), n_sizes > 0 */
    int n_sizes;
};

/* Parse a size: a number with an optional K/M/G suffix (binary units). */
static inline int bench_parse_size(const char *s, long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || v < 0)
        return -1;
    long long mult = 1;
    if (*end == 'k' || *end == 'K') { mult = 1LL << 10; end++; }
    else if (*end == 'm' || *end == 'M') { mult = 1LL << 20; end++; }
    else if (*end == 'g' || *end == 'G') { mult = 1LL << 30; end++; }
    if (*end == 'i' || *end == 'I') end++;          /* accept KiB/MiB spelled out */
    if (*end == 'b' || *end == 'B') end++;
    if (*end != '\0' || v > LONG_MAX / mult)
        return -1;
    *out = (long)(v * mult);
    return 0;
}

static inline int bench_parse_long(const char *s, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

/* Which options a program takes (bench_parse's `accepts`). */
enum {
    BENCH_OPT_RANGE    = 1 << 0,  /* --min-size, --max-size */
    BENCH_OPT_ITERS    = 1 << 1,  /* --iters */
    BENCH_OPT_TIME     = 1 << 2,  /* --time */
    BENCH_OPT_VALIDATE = 1 << 3,  /* --validate */
    /* --quick, --sizes, --warmup and --help: every program */
};

/*
 * Parse argv; `accepts` says which of the optional options this program
 * takes (an option it does not take is an error, not silently ignored).
 * On a bad argument, rank 0 prints why and the usage, and the function
 * returns -1: the caller finalizes MPI and exits with status 2 (every rank
 * parses the same argv, so every rank agrees without messages). Returns 1
 * after --help, 0 otherwise.
 */
static inline int bench_parse(int argc, char **argv, int rank, const char *usage,
                              unsigned accepts, struct bench_opts *o)
{
    static const struct { const char *name; unsigned need; int takes_value; } known[] = {
        { "--quick", 0, 0 },    { "-q", 0, 0 },         { "--help", 0, 0 },
        { "-h", 0, 0 },         { "--sizes", 0, 1 },    { "--warmup", 0, 1 },
        { "--validate", BENCH_OPT_VALIDATE, 0 },        { "-c", BENCH_OPT_VALIDATE, 0 },
        { "--min-size", BENCH_OPT_RANGE, 1 },           { "--max-size", BENCH_OPT_RANGE, 1 },
        { "--iters", BENCH_OPT_ITERS, 1 },              { "--time", BENCH_OPT_TIME, 1 },
    };
    memset(o, 0, sizeof(*o));
    o->min_size = 0;
    o->max_size = BENCH_MAX_SIZE_DEFAULT;
    o->warmup = -1;
    o->seconds = 0.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int k = -1;
        for (int j = 0; j < (int)(sizeof(known) / sizeof(known[0])); j++)
            if (!strcmp(a, known[j].name))
                k = j;
        if (k < 0 || (known[k].need & ~accepts) != 0) {
            if (rank == 0)
                fprintf(stderr, "%s: %s argument '%s'\nusage: %s %s\n", argv[0],
                        k < 0 ? "unknown" : "this program does not take the", a, argv[0],
                        usage);
            return -1;
        }
        const char *val = NULL;
        if (known[k].takes_value) {
            if (i + 1 >= argc) {
                if (rank == 0)
                    fprintf(stderr, "%s: '%s' needs a value\nusage: %s %s\n", argv[0], a,
                            argv[0], usage);
                return -1;
            }
            val = argv[++i];
        }
        int bad = 0;
        if (!strcmp(a, "--quick") || !strcmp(a, "-q")) {
            o->quick = 1;
        } else if (!strcmp(a, "--validate") || !strcmp(a, "-c")) {
            o->validate = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (rank == 0)
                printf("usage: %s %s\n", argv[0], usage);
            return 1;
        } else if (!strcmp(a, "--min-size")) {
            bad = bench_parse_size(val, &o->min_size);
        } else if (!strcmp(a, "--max-size")) {
            bad = bench_parse_size(val, &o->max_size);
        } else if (!strcmp(a, "--iters")) {
            bad = bench_parse_long(val, &o->iters) || o->iters <= 0;
        } else if (!strcmp(a, "--warmup")) {
            bad = bench_parse_long(val, &o->warmup) || o->warmup < 0;
        } else if (!strcmp(a, "--time")) {
            char *end = NULL;
            o->seconds = strtod(val, &end);
            bad = end == val || *end != '\0' || !(o->seconds > 0.0 && o->seconds <= 3600.0);
        } else { /* --sizes */
            char tmp[1024];
            bad = strlen(val) >= sizeof(tmp);
            snprintf(tmp, sizeof(tmp), "%s", val);
            o->n_sizes = 0;
            for (char *tok = strtok(tmp, ","); tok && !bad; tok = strtok(NULL, ",")) {
                if (o->n_sizes == BENCH_MAX_SIZES)
                    bad = 1;
                else
                    bad = bench_parse_size(tok, &o->sizes[o->n_sizes++]);
            }
            bad = bad || o->n_sizes == 0;
        }
        if (bad) {
            if (rank == 0)
                fprintf(stderr, "%s: bad value '%s' for '%s'\nusage: %s %s\n",
                        argv[0], val, a, argv[0], usage);
            return -1;
        }
    }
    if (o->min_size > o->max_size) {
        if (rank == 0)
            fprintf(stderr, "%s: --min-size %ld is larger than --max-size %ld\n",
                    argv[0], o->min_size, o->max_size);
        return -1;
    }
    if (o->max_size > (1L << 30)) {
        if (rank == 0)
            fprintf(stderr, "%s: --max-size %ld is above the 1 GiB limit of these programs\n",
                    argv[0], o->max_size);
        return -1;
    }
    for (int i = 0; i < o->n_sizes; i++) {
        if (o->sizes[i] > (1L << 30)) {
            if (rank == 0)
                fprintf(stderr, "%s: size %ld in --sizes is above the 1 GiB limit\n",
                        argv[0], o->sizes[i]);
            return -1;
        }
    }
    return 0;
}

/*
 * The list of sizes to run: 0 and the powers of two from min_size to max_size
 * (OSU's list); with --quick only 0, the powers of 8 (1, 8, 64 ... 2 MiB),
 * 1 MiB and 4 MiB; an explicit --sizes list wins. Returns the count.
 */
static inline int bench_sizes(const struct bench_opts *o, long *sizes)
{
    int n = 0;
    if (o->n_sizes > 0) {
        memcpy(sizes, o->sizes, (size_t)o->n_sizes * sizeof(long));
        return o->n_sizes;
    }
    if (o->min_size == 0)
        sizes[n++] = 0;
    for (long s = 1; s <= o->max_size && n < BENCH_MAX_SIZES; s *= 2) {
        if (s < o->min_size)
            continue;
        if (o->quick) {
            /* powers of 8 (1, 8, 64, ... 256 KiB), plus 1 MiB and 4 MiB */
            int log2 = 0;
            for (long t = s; t > 1; t >>= 1)
                log2++;
            if (log2 % 3 != 0 && s != (1L << 20) && s != (4L << 20))
                continue;
        }
        sizes[n++] = s;
    }
    return n;
}

/* OSU's iteration scaling: many for small messages, fewer for large ones. */
static inline long bench_iters(const struct bench_opts *o, long size, long small, long large)
{
    long n = o->iters > 0 ? o->iters : (size <= BENCH_LARGE_MESSAGE ? small : large);
    if (o->quick && o->iters <= 0)
        n = n / 10 > 0 ? n / 10 : 1;
    return n;
}

static inline long bench_warmup(const struct bench_opts *o, long size, long small, long large)
{
    long n = o->warmup >= 0 ? o->warmup : (size <= BENCH_LARGE_MESSAGE ? small : large);
    if (o->quick && o->warmup < 0)
        n = n / 10 > 0 ? n / 10 : 1;
    return n;
}

/* Page-aligned, touched buffer (so page faults are not timed). NULL on failure. */
static inline char *bench_alloc(long size)
{
    void *p = NULL;
    size_t n = size > 0 ? (size_t)size : 1;
    if (posix_memalign(&p, 4096, n) != 0)
        return NULL;
    memset(p, 0, n);
    return p;
}

/* A pattern that depends on the position, the size and the sender. */
static inline void bench_fill(char *buf, long size, int seed)
{
    for (long i = 0; i < size; i++)
        buf[i] = (char)((i * 7 + size + seed * 131) & 0xff);
}

/* Returns the first bad offset, or -1 when the buffer holds the pattern. */
static inline long bench_check(const char *buf, long size, int seed)
{
    for (long i = 0; i < size; i++)
        if (buf[i] != (char)((i * 7 + size + seed * 131) & 0xff))
            return i;
    return -1;
}

/* First line of MPI_Get_library_version, for the header. */
static inline void bench_library(char *out, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    v[0] = '\0';
    MPI_Get_library_version(v, &n);
    v[sizeof(v) - 1] = '\0';
    char *nl = strchr(v, '\n');
    if (nl)
        *nl = '\0';
    snprintf(out, len, "%s", v);
}

/* The CPU model from /proc/cpuinfo with its family and model numbers
 * ("AMD EPYC (family 25, model 17)"; "unknown" if none), for the header of a
 * benchmark whose figures are compared across runs: processors sold under
 * one name (as a hypervisor shows them) differ in what decides the figures. */
static inline void bench_cpu_model(char *out, size_t len)
{
    char name[160] = "unknown", family[16] = "", model[16] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof(line), f)) {
        char *v = strchr(line, ':');
        if (line[0] == '\n')
            break;                       /* the first processor's block is enough */
        if (!v)
            continue;
        v += v[1] == ' ' ? 2 : 1;
        v[strcspn(v, "\n")] = '\0';
        if (strncmp(line, "model name", 10) == 0)
            snprintf(name, sizeof(name), "%s", v);
        else if (strncmp(line, "cpu family", 10) == 0)
            snprintf(family, sizeof(family), "%s", v);
        else if (strncmp(line, "model\t", 6) == 0 || strncmp(line, "model :", 7) == 0)
            snprintf(model, sizeof(model), "%s", v);
    }
    if (f)
        fclose(f);
    if (family[0])
        snprintf(out, len, "%s (family %s, model %s)", name, family, model[0] ? model : "?");
    else
        snprintf(out, len, "%s", name);
}

/* The "# library: ..." and "# cpu: ..." header lines every benchmark prints
 * before its figures (rank 0). */
static inline void bench_print_library_cpu(const char *lib)
{
    char cpu[224];
    bench_cpu_model(cpu, sizeof(cpu));
    printf("# library: %s\n# cpu: %s\n", lib, cpu);
}

/* The start of a two-rank point-to-point benchmark (bw, latency): MPI_Init,
 * the options, exactly 2 ranks, the size list (*n sizes) and a send and a
 * receive buffer of the largest size, then on rank 0 the header lines
 * ("# <title>", "# library: ...", "# cpu: ...", "# Size <column>"). Returns the rank, or
 * -1 with *exit_code set (MPI finalized: help, bad options, not 2 ranks). */
static inline int bench_pair_start(int *argc, char ***argv, const char *name, const char *usage, unsigned flags,
                                   const char *title, const char *column, struct bench_opts *o, long *sizes,
                                   int *n, char **sbuf, char **rbuf, int *exit_code)
{
    int rank, nranks;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int rc = bench_parse(*argc, *argv, rank, usage, flags, o);
    if (rc == 0 && nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "%s: needs exactly 2 ranks, got %d\n", name, nranks);
        rc = -1;
    }
    if (rc != 0) {
        MPI_Finalize();
        *exit_code = rc < 0 ? 2 : 0;
        return -1;
    }
    *n = bench_sizes(o, sizes);
    long max = 0;
    for (int i = 0; i < *n; i++)
        max = sizes[i] > max ? sizes[i] : max;
    *sbuf = bench_alloc(max);
    *rbuf = bench_alloc(max);
    if (!*sbuf || !*rbuf) {
        fprintf(stderr, "%s: rank %d cannot allocate 2 x %ld bytes\n", name, rank, max);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        char lib[256];
        bench_library(lib, sizeof(lib));
        printf("# %s\n", title);
        bench_print_library_cpu(lib);
        printf("# %-10s%18s\n", "Size", column);
        fflush(stdout);
    }
    return rank;
}

#endif /* RDMACH_BENCH_UTIL_H */
