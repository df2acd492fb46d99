/* rdmach-noise's analysis (see noise_stats.h). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "noise_stats.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The q-quantile by the nearest-rank rule on sorted v. */
static double quantile(const int64_t *v, size_t n, double q)
{
    size_t k = (size_t)ceil(q * (double)n);
    return (double)v[k ? k - 1 : 0];
}

void noise_dist_of(int64_t *v, size_t n, struct noise_dist *d)
{
    memset(d, 0, sizeof(*d));
    d->n = n;
    if (n == 0)
        return;
    qsort(v, n, sizeof(*v), cmp_i64);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i];
    d->min = (double)v[0];
    d->max = (double)v[n - 1];
    d->mean = sum / (double)n;
    d->p50 = quantile(v, n, 0.50);
    d->p90 = quantile(v, n, 0.90);
    d->p99 = quantile(v, n, 0.99);
}

void noise_finder_init(struct noise_finder *f, int64_t chunk, int64_t threshold, int64_t t0,
                       struct noise_detour *buf, size_t cap)
{
    *f = (struct noise_finder){ .chunk = chunk, .threshold = threshold, .t0 = t0, .prev = t0,
                                .d = buf, .cap = cap };
}

/* In-place iterative radix-2 FFT; n a power of two. */
static void fft(double complex *x, size_t n)
{
    for (size_t i = 1, j = 0; i < n; i++) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            double complex t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        double complex w = cexp(-2.0 * M_PI * I / (double)len);
        for (size_t i = 0; i < n; i += len) {
            double complex wk = 1;
            for (size_t k = 0; k < len / 2; k++) {
                double complex u = x[i + k], v = x[i + k + len / 2] * wk;
                x[i + k] = u + v;
                x[i + k + len / 2] = u - v;
                wk *= w;
            }
        }
    }
}

static double lobe(const double *p, size_t n, size_t k)
{
    return p[k] + (k > 0 ? p[k - 1] : 0) + (k + 1 < n ? p[k + 1] : 0);
}

int noise_spectrum_of(const struct noise_detour *d, size_t n, int64_t span, int64_t bin,
                      struct noise_spectrum *s)
{
    memset(s, 0, sizeof(*s));
    s->interval_mode_ns = noise_interval_mode(d, n);
    if (n < 2 || span <= 0 || bin <= 0)
        return 0;
    size_t nb = 2;
    while ((int64_t)nb * bin < span)
        nb <<= 1;
    double complex *x = calloc(nb, sizeof(*x));
    if (!x)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)(d[i].start / bin);
        if (k < nb)
            x[k] += (double)d[i].len;
    }
    fft(x, nb);
    s->nfreq = nb / 2;
    s->df = 1e9 / ((double)nb * (double)bin);
    s->power = malloc(s->nfreq * sizeof(double));
    if (!s->power) {
        free(x);
        s->nfreq = 0;
        return -1;
    }
    /* Frequencies below 2/span hold the train's average, not a period. */
    size_t kmin = (size_t)ceil(2e9 / (double)span / s->df), kmax = 0;
    double pmax = 0;
    for (size_t k = 0; k < s->nfreq; k++) {
        s->power[k] = creal(x[k]) * creal(x[k]) + cimag(x[k]) * cimag(x[k]);
        if (k >= kmin && k > 0 && s->power[k] > pmax) {
            pmax = s->power[k];
            kmax = k;
        }
    }
    free(x);
    if (pmax > 0)
        for (size_t k = 0; k < s->nfreq; k++)
            s->power[k] /= pmax;
    /* The fundamental: the lowest peak that holds at least half the power of
     * the strongest (a periodic train puts about equal power on all its
     * harmonics, and none below the fundamental). A peak between two
     * frequencies spreads over them, so a peak's power is that of its 3
     * nearest frequencies. */
    size_t best = kmax;
    double top = lobe(s->power, s->nfreq, kmax);
    for (size_t k = kmin > 0 ? kmin : 1; k + 1 < kmax; k++)
        if (s->power[k] >= s->power[k - 1] && s->power[k] >= s->power[k + 1] &&
            lobe(s->power, s->nfreq, k) >= 0.5 * top) {
            best = k;
            break;
        }
    s->dominant_hz = (double)best * s->df;
    return 0;
}

void noise_spectrum_free(struct noise_spectrum *s)
{
    free(s->power);
    s->power = NULL;
    s->nfreq = 0;
}

double noise_interval_mode(const struct noise_detour *d, size_t n)
{
    /* log-spaced bins of 2%, from 100 ns to ~1000 s */
    enum { NB = 1200 };
    static const double lo = 100, step = 1.02;
    unsigned *h;
    if (n < 2 || !(h = calloc(NB, sizeof(*h))))
        return 0;
    for (size_t i = 1; i < n; i++) {
        double gap = (double)(d[i].start - d[i - 1].start);
        if (gap < lo)
            continue;
        size_t b = (size_t)(log(gap / lo) / log(step));
        if (b < NB)
            h[b]++;
    }
    /* the mode of a 3-bin moving sum, so a peak split over two bins counts whole */
    size_t arg = 0;
    unsigned best = 0;
    for (size_t b = 1; b + 1 < NB; b++) {
        unsigned c = h[b - 1] + h[b] + h[b + 1];
        if (c > best) {
            best = c;
            arg = b;
        }
    }
    free(h);
    return best ? lo * pow(step, (double)arg + 0.5) : 0;
}
