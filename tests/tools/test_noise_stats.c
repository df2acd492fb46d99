/* rdmach-noise's analysis on synthetic input: the expected figures are
 * computed from how the input was made, not by the code under test. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include "base/duration.h"
#include "noise_stats.h"

Test(noise_stats, distribution_of_1_to_100)
{
    int64_t v[100];
    for (int i = 0; i < 100; i++)
        v[i] = 100 - i; /* reversed: the function sorts */
    struct noise_dist d;
    noise_dist_of(v, 100, &d);
    cr_expect_eq(d.n, 100);
    cr_expect_eq(d.min, 1);
    cr_expect_eq(d.max, 100);
    cr_expect_eq(d.p50, 50);
    cr_expect_eq(d.p90, 90);
    cr_expect_eq(d.p99, 99);
    cr_expect_float_eq(d.mean, 50.5, 1e-9);
}

/* A clock read every 1000 ns, with a 50 us detour every 1 ms (phase 0.3 ms),
 * for 2 s: 2000 detours of 50 us at 0.3 ms + k ms. */
Test(noise_stats, finder_sees_every_detour_with_its_start_and_length)
{
    static struct noise_detour buf[4096];
    struct noise_finder f;
    noise_finder_init(&f, 1000, 2000, 0, buf, 4096);
    int64_t t = 0, next = 300000;
    while (t < 2000000000) {
        t += 1000;
        if (t - 1000 >= next) { /* the detour falls in this chunk */
            t += 50000;
            next += 1000000;
        }
        noise_finder_tick(&f, t);
    }
    cr_assert_eq(f.n, 2000, "found %zu detours", f.n);
    cr_expect_eq(f.dropped, 0);
    cr_expect_eq(f.total, 2000LL * 50000);
    for (size_t i = 0; i < f.n; i++) {
        cr_expect_eq(buf[i].len, 50000);
        /* it starts after the first chunk that begins at or after its time */
        int64_t want = 300000 + (int64_t)i * 1000000;
        if (buf[i].start < want || buf[i].start > want + 2000) {
            cr_expect(0, "detour %zu at %lld, want %lld..+2000", i, (long long)buf[i].start, (long long)want);
            break;
        }
    }
}

Test(noise_stats, finder_counts_what_it_cannot_store)
{
    struct noise_detour buf[3];
    struct noise_finder f;
    noise_finder_init(&f, 100, 100, 0, buf, 3);
    for (int i = 1; i <= 10; i++)
        noise_finder_tick(&f, (int64_t)i * 1000);
    cr_expect_eq(f.n, 3);
    cr_expect_eq(f.dropped, 7);
    cr_expect_eq(f.total, 10 * 900);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* A periodic train (period p, 50 us) plus as many random 5 us detours. */
static size_t make_train(struct noise_detour *d, int64_t period, int64_t span)
{
    size_t n = 0;
    uint64_t seed = 42;
    for (int64_t t = 123456; t < span; t += period) {
        d[n++] = (struct noise_detour){ t, 50000 };
        d[n++] = (struct noise_detour){ t + (int64_t)(lcg(&seed) % (uint64_t)period), 5000 };
    }
    /* starts must be ascending */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && d[j - 1].start > d[j].start; j--) {
            struct noise_detour x = d[j];
            d[j] = d[j - 1];
            d[j - 1] = x;
        }
    return n;
}

static void expect_period(int64_t period)
{
    static struct noise_detour d[20000];
    int64_t span = 2000000000;
    size_t n = make_train(d, period, span);
    struct noise_spectrum s;
    cr_assert_eq(noise_spectrum_of(d, n, span, 10000, &s), 0);
    double got = 1e9 / s.dominant_hz;
    cr_expect(fabs(got / (double)period - 1) < 0.01, "period %lld ns: dominant %.0f ns", (long long)period, got);
    noise_spectrum_free(&s);
}

Test(noise_stats, spectrum_finds_a_1ms_train_among_random_detours) { expect_period(1000000); }
Test(noise_stats, spectrum_finds_the_fundamental_not_a_harmonic) { expect_period(3300000); }
Test(noise_stats, spectrum_finds_a_fast_train) { expect_period(250000); }

Test(noise_stats, interval_mode_of_a_clean_train)
{
    static struct noise_detour d[3000];
    for (int i = 0; i < 3000; i++)
        d[i] = (struct noise_detour){ (int64_t)i * 1000000 + (i % 7) * 1000, 50000 };
    double m = noise_interval_mode(d, 3000);
    cr_expect(fabs(m / 1e6 - 1) < 0.03, "interval mode %.0f ns", m);
}

Test(noise_stats, durations_with_units)
{
    const char *end;
    cr_expect_eq(rch_base_parse_ns("1ms", &end), 1000000);
    cr_expect_eq(*end, '\0');
    cr_expect_eq(rch_base_parse_ns("50us,x", &end), 50000);
    cr_expect_eq(*end, ',');
    cr_expect_eq(rch_base_parse_ns("2.5s", &end), 2500000000LL);
    cr_expect_eq(rch_base_parse_ns("300ns", &end), 300);
    cr_expect_eq(rch_base_parse_ns("10", &end), -1);
    cr_expect_eq(rch_base_parse_ns("1x", &end), -1);
    cr_expect_eq(rch_base_parse_ns("ms", &end), -1);
    cr_expect_eq(rch_base_parse_ns("-1ms", &end), -1);
}
