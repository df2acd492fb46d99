/*
 * Durations written by people ("1ms", "50us", "2.5s", "300ns"), as used by
 * RDMACH_NOISE and the tools' options. Kept apart from the tunables table
 * because they are parts of composite values, not whole rows.
 */
#ifndef RCH_BASE_DURATION_H
#define RCH_BASE_DURATION_H

#include <stdint.h>

/* Parse a non-negative decimal number followed by one of the units ns, us,
 * ms, s. Returns nanoseconds and sets *end past the unit, or -1 (and *end =
 * text) if there is no number, no unit or an unknown unit, or it overflows. */
int64_t rch_base_parse_ns(const char *text, const char **end);

#endif
