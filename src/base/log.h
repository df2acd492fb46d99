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

void rch_log_set_rank(int rank);
void rch_log_emit(int level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define RCH_LOG(lvl, subsys, ...) \
    do { if (RCH_UNLIKELY((lvl) <= rch_log_level)) rch_log_emit((lvl), (subsys), __VA_ARGS__); } while (0)
#define RCH_ERROR(subsys, ...) RCH_LOG(RCH_LOG_ERROR, subsys, __VA_ARGS__)
#define RCH_WARN(subsys, ...)  RCH_LOG(RCH_LOG_WARN, subsys, __VA_ARGS__)
#define RCH_INFO(subsys, ...)  RCH_LOG(RCH_LOG_INFO, subsys, __VA_ARGS__)
#define RCH_DEBUG(subsys, ...) RCH_LOG(RCH_LOG_DEBUG, subsys, __VA_ARGS__)

#endif
