/*
 * src/base: what every layer uses — the status helpers, logging, tunables,
 * timers and a few compiler helpers. Depends on nothing else in rdmach.
 */
#ifndef RCH_BASE_H
#define RCH_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "rdmach.h"

#define RCH_LIKELY(x)   __builtin_expect(!!(x), 1)
#define RCH_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* One pause in a polling loop (spin-wait hint to the core). */
static inline void rch_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}
#define RCH_CACHELINE 64
#define RCH_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Record the detailed message of an error in this thread and return the
 * status, so a failing path reads `return rch_base_err(RDMACH_ERR_IO, "open %s: %s", p, strerror(errno));` */
rdmach_status_t rch_base_err(rdmach_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Convert errno to a status (ENOMEM -> NO_MEMORY, ...), with the message "what: strerror". */
rdmach_status_t rch_base_errno(int err, const char *what, ...) __attribute__((format(printf, 2, 3)));

/* Monotonic time. */
double   rch_base_wtime(void);        /* seconds */
uint64_t rch_base_now_ns(void);

/* Another process of this host (proc.c): 1 stopped (SIGSTOP; not a
 * debugger's stop), 0 running or unknown, -1 gone (or a zombie). */
int rch_base_proc_stopped(pid_t pid);
/* "A process failed" alerts (SIGUSR1 from the launcher, RDMACH_SIGUSR1):
 * install/uninstall the handler; the count of alerts so far (one load). */
void rch_base_alert_install(void);
void rch_base_alert_uninstall(void);
unsigned rch_base_alerts(void);

/* A whole-job abort (proc.c). This process's: rch_base_abort_announce(code)
 * runs the hook a channel set (shm: a word of its segment that peers read
 * when its process is gone) before the launcher hears the abort. Another
 * process's, learnt by a channel: rch_base_abort_seen(code); then
 * rch_base_abort_code(&code) is 1, and this process's own abort (which
 * most likely follows from it: that peer gone) ends it with that code
 * instead of a second abort racing the first one's to the launcher. */
void rch_base_abort_hook(void (*announce)(int code));
void rch_base_abort_announce(int code);
void rch_base_abort_seen(int code);
int rch_base_abort_code(int *code);

/* memcpy with non-temporal stores (copy.c): for large copies not read again soon. */
void rch_base_copy_nt(void *dst, const void *src, size_t len);
/* memcpy of non-overlapping buffers in pieces below glibc's rep movsb
 * threshold (copy.c): the shared-memory eager copies, where `rep movsb` is
 * slower than the vector loop. Up to one piece: memcpy itself. */
#define RCH_BASE_COPY_PIECE 2048u
void rch_base_copy_pieces(void *dst, const void *src, size_t len);
static inline void rch_base_copy_lines(void *dst, const void *src, size_t len)
{
    if (RCH_LIKELY(len <= RCH_BASE_COPY_PIECE))
        __builtin_memcpy(dst, src, len);
    else
        rch_base_copy_pieces(dst, src, len);
}
/* One store into every cache line of [p, p + len) (copy.c): a consumer of
 * shared memory that has read lines another core will write next takes them
 * exclusively, so that core's next stores miss (and its prefetchers fetch
 * them ahead) instead of each waiting on an upgrade from the shared state.
 * The bytes become undefined: only for lines whose contents are dead and
 * that nobody else writes until the caller says so. */
void rch_base_claim_lines(void *p, size_t len);
/* n blocks of len bytes from src, src + sstride, ... to dst, dst + dstride,
 * ... (copy.c): the datatype engine's inner loop. Source and destination
 * do not overlap. */
void rch_base_copy2d(void *dst, ptrdiff_t dstride, const void *src, ptrdiff_t sstride, size_t n, size_t len);
/* Prefetching for passes over blocks that lie apart (a strided datatype's
 * moves and combines): the hardware prefetcher follows a stream but does
 * not run ahead across the gaps, so each block's lines are asked for a few
 * KiB ahead (RDMACH_DTYPE_PREFETCH) when the pass spans more than stays in
 * cache (RDMACH_DTYPE_PREFETCH_FROM, the L2 size). rch_base_ahead: how
 * many blocks ahead to prefetch in a pass over n blocks of len bytes,
 * stride bytes apart, or n (never) when the blocks are not apart (no gap,
 * or less than a line from one block to the next), longer than
 * RCH_BASE_AHEAD_LEN bytes (a stream the hardware follows) or span too
 * little. The pass then goes a chunk of rch_base_ahead_chunk(len) blocks
 * (RCH_BASE_AHEAD_LINES lines) at a time, rch_base_prefetch_blocks asking
 * for blocks [from, to) (those below n) before the chunk's moves: the
 * moves' own loops stay as they are (copy.c). */
#define RCH_BASE_AHEAD_LEN 1024
#define RCH_BASE_AHEAD_LINES 16
size_t rch_base_ahead(ptrdiff_t stride, size_t len, size_t n);
size_t rch_base_ahead_chunk(size_t len);
void rch_base_prefetch_blocks(const void *p, ptrdiff_t stride, size_t from, size_t to, size_t n, size_t len,
                              int write);
/* Prefetch the lines of len bytes at p: for writing, or for reading. */
static inline __attribute__((always_inline)) void rch_base_prefetch_w(const void *p, size_t len)
{
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, e = (uintptr_t)p + len; a < e; a += 64)
        __builtin_prefetch((const void *)a, 1, 3);
}
static inline __attribute__((always_inline)) void rch_base_prefetch_r(const void *p, size_t len)
{
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, e = (uintptr_t)p + len; a < e; a += 64)
        __builtin_prefetch((const void *)a, 0, 3);
}
/* May a kernel that reads and writes blocks apart as typed elements
 * (rch_coll_op2d_fn) take n blocks of len bytes at b, b + bstride, ...
 * (written) with operands at a, a + astride, ...? The written blocks do not
 * overlap, and every address is aligned for an elem-byte element (to its
 * size; to 16 above 16 bytes; never for a size that is not a power of two). */
static inline int rch_base_blocks2d_ok(const void *a, ptrdiff_t astride, const void *b, ptrdiff_t bstride, size_t n,
                                       size_t len, size_t elem)
{
    size_t al = elem > 16 ? 16 : elem;
    if (al == 0 || (al & (al - 1)) != 0 || (n > 1 && (size_t)(bstride < 0 ? -bstride : bstride) < len))
        return 0;
    return (((uintptr_t)a | (uintptr_t)b | (uintptr_t)astride | (uintptr_t)bstride) & (al - 1)) == 0;
}
/* reps repetitions of nb blocks between a packed buffer (repetition i at
 * packed + i * period, its blocks one after the other) and a strided one
 * (block k of repetition i: len[k] bytes at col[k] + i * stride): blocks
 * of up to 16 bytes of whole elements a repetition at a time, others a
 * column (one block of every repetition) at a time over
 * RCH_BASE_COLS_SPAN bytes of the strided buffer (copy.c). to_packed:
 * gather, else scatter. */
#define RCH_BASE_COLS_SPAN 4096
/* The elements of es bytes of nb blocks (block k: len[k] bytes at col[k]),
 * block after block: their offsets from col[0] in off[] (room for
 * RCH_BASE_ELEMS_MAX), their number returned; 0 if a block is not whole
 * elements or is longer than maxlen bytes, or if there are fewer than 2 or
 * more than RCH_BASE_ELEMS_MAX (copy.c). Used by the repetition-at-a-time
 * moves and combines of a few short blocks. */
#define RCH_BASE_ELEMS_MAX 16
int rch_base_elems_of(unsigned char *const *col, const size_t *len, int nb, size_t es, size_t maxlen,
                      ptrdiff_t *off);
/* May a kernel that reads and writes typed elements take reps repetitions
 * of the ne elements at off[] from b (repetition r at b + r * bstride),
 * operands packed from a? Every address is aligned for es bytes (a power
 * of two), and no two written elements are the same (within a repetition,
 * or of two repetitions). */
int rch_base_elems_apart(const void *a, const void *b, ptrdiff_t bstride, size_t reps, const ptrdiff_t *off, int ne,
                         size_t es);
void rch_base_copy_cols(unsigned char *packed, size_t period, unsigned char *const *col, const size_t *len, int nb,
                        ptrdiff_t stride, size_t reps, int to_packed);

#endif
