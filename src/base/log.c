/* Log lines go to stderr in one write() each so lines of ranks do not interleave. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "base/log.h"

int rch_log_level = RCH_LOG_WARN;
double rch_log_interval = 10.0;
static int rch_log_rank = -1;

static const char *const level_names[] = { "error", "warn", "info", "debug", "trace" };

void rch_log_set_rank(int rank)
{
    rch_log_rank = rank;
}

__attribute__((format(printf, 4, 0)))
static void emit_v(int level, const char *subsys, const char *suffix, const char *fmt, va_list ap)
{
    char line[1024];
    int n;
    if (rch_log_rank >= 0)
        n = snprintf(line, sizeof(line), "rdmach[%d] %s: %s: ", rch_log_rank, subsys,
                     level_names[level < 0 ? 0 : level > RCH_LOG_TRACE ? RCH_LOG_TRACE : level]);
    else
        n = snprintf(line, sizeof(line), "rdmach[pid %d] %s: %s: ", (int)getpid(), subsys,
                     level_names[level < 0 ? 0 : level > RCH_LOG_TRACE ? RCH_LOG_TRACE : level]);
    if (n < (int)sizeof(line))
        n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    if (suffix && n < (int)sizeof(line))
        n += snprintf(line + n, sizeof(line) - (size_t)n, "%s", suffix);
    if (n >= (int)sizeof(line) - 1)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}

void rch_log_emit(int level, const char *subsys, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit_v(level, subsys, NULL, fmt, ap);
    va_end(ap);
}

void rch_log_limited(struct rch_log_limit *l, int level, const char *subsys, const char *fmt, ...)
{
    if (level > rch_log_level)
        return;
    double now = rch_base_wtime();
    if (now < l->next) {
        l->held++;
        return;
    }
    char more[96] = "";
    if (l->held)
        snprintf(more, sizeof(more), " (and %llu more of these in the last %.0f s)", (unsigned long long)l->held,
                 now - l->last_line);
    va_list ap;
    va_start(ap, fmt);
    emit_v(level, subsys, more, fmt, ap);
    va_end(ap);
    if (l->held == 0 || l->interval <= 0)
        l->interval = rch_log_interval;
    else if (l->interval < rch_log_interval * RCH_LOG_LIMIT_BACKOFF)
        l->interval *= 2;
    l->held = 0;
    l->last_line = now;
    l->next = now + l->interval;
}

void rch_log_limit_flush(struct rch_log_limit *l, int level, const char *subsys, const char *what)
{
    if (l->held == 0 || level > rch_log_level)
        return;
    rch_log_emit(level, subsys, "%s: %llu more in the last %.0f s", what, (unsigned long long)l->held,
                 rch_base_wtime() - l->last_line);
    l->held = 0;
}
