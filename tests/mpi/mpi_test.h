/*
 * Helpers of the MPI test programs: a failed check prints the rank, the
 * place and the reason, then ends the whole job with MPI_Abort, so the
 * launcher reports it and ctest fails.
 */
#ifndef RDMACH_TESTS_MPI_TEST_H
#define RDMACH_TESTS_MPI_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static int mt_rank = -1;

/* How a failed CHECK ends the job: MPI_Abort by default. A program run under
 * Hydra whose failure message must reach the test defines MT_FAIL as exit(1)
 * before including this file: an abort lets Hydra end the proxies at once,
 * often before they forward the message; after an exit that is rarer, but
 * Hydra can still lose a quickly failing rank's output (seen once in ~15
 * loaded runs of abi_missing_function_fails_at_start_hydra). */
#ifndef MT_FAIL
#define MT_FAIL() MPI_Abort(MPI_COMM_WORLD, 1)
#endif

/* The failure line is written whole (one write): stderr is unbuffered, and
 * the pieces of several ranks' lines would interleave under a launcher. */
#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            char mt_line[16384];                                                          \
            int mt_n = snprintf(mt_line, sizeof(mt_line), "[rank %d] %s:%d: check failed: %s: ", \
                                mt_rank, __FILE__, __LINE__, #cond);                      \
            if (mt_n > 0 && (size_t)mt_n < sizeof(mt_line))                               \
                snprintf(mt_line + mt_n, sizeof(mt_line) - (size_t)mt_n, __VA_ARGS__);    \
            fprintf(stderr, "%s\n", mt_line);                                             \
            fflush(stderr);                                                               \
            MT_FAIL();                                                                    \
        }                                                                                 \
    } while (0)

/* An MPI call that must succeed. */
#define MPI_OK(call)                                                                      \
    do {                                                                                  \
        int mt_rc = (call);                                                               \
        if (mt_rc != MPI_SUCCESS) {                                                       \
            char mt_s[MPI_MAX_ERROR_STRING];                                              \
            int mt_l = 0;                                                                 \
            MPI_Error_string(mt_rc, mt_s, &mt_l);                                         \
            CHECK(mt_rc == MPI_SUCCESS, "%s returned %d: %s", #call, mt_rc, mt_s);        \
        }                                                                                 \
    } while (0)

/* The prologue of most test programs: MPI_Init, this process's rank in
 * WORLD and its size, the rank CHECK names, and errors returned on WORLD
 * (the tests check the error classes themselves). */
static inline void mt_init(int *argc, char ***argv, int *rank, int *size)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    mt_rank = *rank;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

/* One MPI_T counter of this process (a pvar of class COUNTER, or of the
 * class given, by name): opened with MPI_T and a session of its own, read,
 * then closed. */
struct mt_counter {
    MPI_T_pvar_session ses;
    MPI_T_pvar_handle h;
};

static inline void mt_pvar_open(struct mt_counter *c, const char *name, int var_class)
{
    int provided, idx = -1, count = 0;
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_OK(MPI_T_pvar_session_create(&c->ses));
    MPI_OK(MPI_T_pvar_get_index(name, var_class, &idx));
    MPI_OK(MPI_T_pvar_handle_alloc(c->ses, idx, NULL, &c->h, &count));
}

static inline void mt_counter_open(struct mt_counter *c, const char *name)
{
    mt_pvar_open(c, name, MPI_T_PVAR_CLASS_COUNTER);
}

static inline unsigned long long mt_counter_read(struct mt_counter *c)
{
    unsigned long long v = 0;
    MPI_OK(MPI_T_pvar_read(c->ses, c->h, &v));
    return v;
}

static inline void mt_counter_close(struct mt_counter *c)
{
    MPI_OK(MPI_T_pvar_handle_free(c->ses, &c->h));
    MPI_OK(MPI_T_pvar_session_free(&c->ses));
    MPI_OK(MPI_T_finalize());
}

/* The value of an int control variable, e.g. "RDMACH_COLL_SEG_AFTER": what
 * the library uses, whether the environment set it or not. */
static inline int mt_cvar_int(const char *name)
{
    int provided, idx = -1, count = 0, v = -1;
    MPI_T_cvar_handle h;
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_OK(MPI_T_cvar_get_index(name, &idx));
    MPI_OK(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
    MPI_OK(MPI_T_cvar_read(h, &v));
    MPI_OK(MPI_T_cvar_handle_free(&h));
    MPI_OK(MPI_T_finalize());
    return v;
}

/* A file opened by every rank of WORLD for reading and writing, created if
 * need be and emptied: each test starts from no bytes. */
static inline void mt_open_empty(const char *path, MPI_File *fh)
{
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, fh));
    MPI_OK(MPI_File_set_size(*fh, 0));
}

static inline int mt_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

/* An error of class cls whose message names arg (an argument, an array entry). */
static inline void mt_expect_error(int rc, int cls, const char *arg, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK(mt_class(rc) == cls, "%s: error class %d, expected %d", what, mt_class(rc), cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, arg) != NULL, "%s: the error names %s: %s", what, arg, msg);
}

/* splitmix64: a small, seedable generator every rank can replay. */
static inline uint64_t mt_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An MPI_Type_indexed (committed by the caller) of n ints: block nb of
 * next(nb, seed, &gap) ints (the last cut at n), then gap ints skipped.
 * off[i]: the window int the map's int i lands on; *span: the ints it
 * reaches. */
static inline MPI_Datatype mt_indexed_map(long n, int (*next)(int nb, uint64_t *seed, int *gap), uint64_t seed,
                                          long *off, long *span)
{
    int *bl = malloc(sizeof(int) * (size_t)n), *dp = malloc(sizeof(int) * (size_t)n);
    CHECK(bl && dp, "no memory");
    long total = 0, pos = 0, k = 0;
    int nb = 0;
    for (; total < n; nb++) {
        int gap = 0;
        bl[nb] = next(nb, &seed, &gap);
        if (total + bl[nb] > n)
            bl[nb] = (int)(n - total);
        dp[nb] = (int)pos;
        for (int e = 0; e < bl[nb]; e++)
            off[k++] = pos + e;
        pos += bl[nb] + gap;
        total += bl[nb];
    }
    MPI_Datatype d;
    MPI_OK(MPI_Type_indexed(nb, bl, dp, MPI_INT, &d));
    *span = pos;
    free(bl);
    free(dp);
    return d;
}

/* Byte i of the message identified by `id`. */
static inline unsigned char mt_byte(uint64_t id, size_t i)
{
    return (unsigned char)((id * 131u) ^ (i * 7u) ^ (i >> 8) ^ (i >> 16));
}

static inline void mt_fill(unsigned char *p, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; i++)
        p[i] = mt_byte(id, i);
}

/* Index of the first wrong byte, or -1. */
static inline long mt_verify(const unsigned char *p, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != mt_byte(id, i))
            return (long)i;
    return -1;
}

/* Whether the n bytes at `at` are all 0 (a large result's untouched parts). */
static inline int mt_zero(const unsigned char *at, long long n)
{
    static const unsigned char none[1 << 16];
    for (long long k; n > 0; at += k, n -= k) {
        k = n < (long long)sizeof none ? n : (long long)sizeof none;
        if (memcmp(at, none, (size_t)k))
            return 0;
    }
    return 1;
}

#endif
