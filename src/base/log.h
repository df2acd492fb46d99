/*
 * Logging. Level from RDMACH_LOG=error|warn|info|debug (default warn).
 * Every line names the rank (or pid before the rank is known) and the
 * subsystem:  "rdmach[3] shm: warn: ring full, peer 5".
 * The level test is inline, so a disabled debug line costs one load and branch.
 */
#ifndef RCH_BASE_LOG_H
#define RCH_BASE_LOG_H

#include "base/base.h"

enum rch_log_level { RCH_LOG_ERROR = 0, RCH_LOG_WARN, RCH_LOG_INFO, RCH_LOG_DEBUG, RCH_LOG_TRACE };

extern int rch_log_level;     /* set from the tunables at init */
extern double rch_log_interval; /* seconds between lines of one limiter (RDMACH_LOG_INTERVAL) */

void rch_log_set_rank(int rank);
void rch_log_emit(int level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define RCH_LOG(lvl, subsys, ...) \
    do { if (RCH_UNLIKELY((lvl) <= rch_log_level)) rch_log_emit((lvl), (subsys), __VA_ARGS__); } while (0)
#define RCH_ERROR(subsys, ...) RCH_LOG(RCH_LOG_ERROR, subsys, __VA_ARGS__)
#define RCH_WARN(subsys, ...)  RCH_LOG(RCH_LOG_WARN, subsys, __VA_ARGS__)
#define RCH_INFO(subsys, ...)  RCH_LOG(RCH_LOG_INFO, subsys, __VA_ARGS__)
#define RCH_DEBUG(subsys, ...) RCH_LOG(RCH_LOG_DEBUG, subsys, __VA_ARGS__)

/*
 * A message that outsiders can repeat without bound (a refused connection
 * request, a silent connection closed): one line at most per interval per
 * limiter. The occurrences in between are counted, and the next line says
 * how many it stands for
 *   "rdmach[0] net: warn: refused ...: wrong key (and 2291 more of these in the last 10 s)";
 * rch_log_limit_flush reports a count still held (at close). The interval
 * is rch_log_interval, doubled after each line that stood for held
 * occurrences (up to RCH_LOG_LIMIT_BACKOFF times it), and back to
 * rch_log_interval after a line that stood for none: an attack that lasts
 * an hour writes a few dozen lines, not one every 10 s. One limiter per
 * kind of message, owned by the object that emits it and used under its
 * owner's serialisation (zero-initialised: the first occurrence is printed).
 */
#define RCH_LOG_LIMIT_BACKOFF 32
struct rch_log_limit {
    double next;                 /* no line before this time */
    double last_line;            /* when the last line was printed */
    double interval;             /* the current interval (0: rch_log_interval) */
    uint64_t held;               /* occurrences since then, not printed */
};

void rch_log_limited(struct rch_log_limit *l, int level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* If occurrences are held: one line "<what>: <n> more in the last <t> s". */
void rch_log_limit_flush(struct rch_log_limit *l, int level, const char *subsys, const char *what);

#endif
