/* Log lines go to stderr in one write() each so lines of ranks do not interleave. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "base/log.h"

int rch_log_level = RCH_LOG_WARN;
static int rch_log_rank = -1;

static const char *const level_names[] = { "error", "warn", "info", "debug", "trace" };

void rch_log_set_rank(int rank)
{
    rch_log_rank = rank;
}

void rch_log_emit(int level, const char *subsys, const char *fmt, ...)
{
    char line[1024];
    int n;
    if (rch_log_rank >= 0)
        n = snprintf(line, sizeof(line), "rdmach[%d] %s: %s: ", rch_log_rank, subsys,
                     level_names[level < 0 ? 0 : level > RCH_LOG_TRACE ? RCH_LOG_TRACE : level]);
    else
        n = snprintf(line, sizeof(line), "rdmach[pid %d] %s: %s: ", (int)getpid(), subsys,
                     level_names[level < 0 ? 0 : level > RCH_LOG_TRACE ? RCH_LOG_TRACE : level]);
    va_list ap;
    va_start(ap, fmt);
    if (n < (int)sizeof(line))
        n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof(line) - 1)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}
