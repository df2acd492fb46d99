/*
 * rdmach-noise's judgement of an injected train (tools/noise/noise_report.c,
 * noise_summarize_matching) among a loaded machine's own detours of about
 * the same length: 2000 detours of 50 us at the injector's instants (every
 * 1 ms on CLOCK_REALTIME, phase 0) and some 8000 of 35 us every 190 us at other
 * instants, as a busy neighbour's were in a failing run. Over all detours
 * of 25-75 us the median is the neighbour's 35 us (the run judged "NOT
 * FOUND"); at the injector's instants it is the train's 50 us, its period
 * 1 ms.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include "noise_report.h"

enum { TRAIN = 2000, MS = 1000000, LEN = 50000, FOREIGN_LEN = 35000 };

static struct noise_detour det[TRAIN * 8];

static int by_start(const void *a, const void *b)
{
    int64_t x = ((const struct noise_detour *)a)->start, y = ((const struct noise_detour *)b)->start;
    return (x > y) - (x < y);
}

static size_t fill(struct noise_run *r)
{
    size_t n = 0;
    int64_t real_t0 = 1700000000LL * 1000000000 + 123456;   /* the run's start on CLOCK_REALTIME */
    int64_t first = (real_t0 / MS + 1) * MS;                 /* the first instant after it */
    for (int64_t t = first - real_t0 + 800; t < (int64_t)TRAIN * MS && n < TRAIN * 6; t += 190000) {
        int64_t off = (real_t0 + t) % MS;
        if (off > 2 * LEN && off < MS - 2 * LEN)
            det[n++] = (struct noise_detour){ t, FOREIGN_LEN };
    }
    size_t foreign = n;
    for (int k = 0; k < TRAIN; k++)
        det[n++] = (struct noise_detour){ first + (int64_t)k * MS + 1500 - real_t0, LEN };   /* signal latency */
    cr_assert_gt(foreign, TRAIN * 2, "the neighbour's detours outnumber the train's (%zu)", foreign);
    /* in time order, as the finder records them */
    qsort(det, n, sizeof(*det), by_start);
    *r = (struct noise_run){ .span = (int64_t)TRAIN * MS + MS, .real_t0 = real_t0 };
    r->det.d = det;
    r->det.n = n;
    return n;
}

Test(noise_report, the_injected_train_is_judged_at_its_own_instants)
{
    struct noise_run r;
    struct noise_rank_sum s = { 0 };
    fill(&r);
    cr_assert_eq(noise_summarize_matching(&r, LEN, MS, 0, &s), 0);
    cr_assert_eq(s.match_n, TRAIN, "%.0f detours at the instants", s.match_n);
    cr_assert_eq(s.match_len_p50, LEN, "median %.0f ns", s.match_len_p50);
    cr_assert(fabs(1e9 / s.match_hz - MS) < MS / 100, "period %.0f ns", 1e9 / s.match_hz);
}

Test(noise_report, without_the_instants_a_busy_neighbour_hides_the_train)
{
    struct noise_run r;
    struct noise_rank_sum s = { 0 };
    size_t n = fill(&r);
    cr_assert_eq(noise_summarize_matching(&r, LEN, 0, 0, &s), 0);
    cr_assert_eq(s.match_n, n);
    cr_assert_eq(s.match_len_p50, FOREIGN_LEN, "median %.0f ns", s.match_len_p50);
}
