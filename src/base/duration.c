/* Durations with units (see duration.h). */
#include <stdlib.h>
#include <string.h>
#include "base/duration.h"

int64_t rch_base_parse_ns(const char *text, const char **end)
{
    static const struct { const char *unit; double ns; } units[] = {
        { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
    };
    *end = text;
    if (*text < '0' || *text > '9')
        return -1;
    char *p;
    double v = strtod(text, &p);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t l = strlen(units[i].unit);
        if (strncmp(p, units[i].unit, l) != 0)
            continue;
        double ns = v * units[i].ns;
        if (!(ns >= 0 && ns < 9.2e18)) /* also rejects nan */
            return -1;
        *end = p + l;
        return (int64_t)(ns + 0.5);
    }
    return -1;
}
