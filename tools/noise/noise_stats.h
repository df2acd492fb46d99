/*
 * rdmach-noise's analysis, free of MPI and of the clock so that tests can feed
 * it synthetic input: order statistics of quantum times, detours found in a
 * stream of clock readings, and the frequency content of a detour train.
 *
 * All times are nanoseconds (int64_t for instants and lengths, double for
 * derived figures).
 */
#ifndef NOISE_STATS_H
#define NOISE_STATS_H

#include <stddef.h>
#include <stdint.h>

struct noise_detour {
    int64_t start;    /* since the start of the measurement */
    int64_t len;
};

/* Order statistics of n samples (sorted in place). */
struct noise_dist {
    size_t n;
    double min, p50, mean, p90, p99, max;
};
void noise_dist_of(int64_t *v, size_t n, struct noise_dist *d);

/* Detour finder: feed it consecutive clock readings taken between chunks of
 * work whose noise-free period is `chunk`; a gap longer than chunk +
 * threshold is a detour of gap - chunk, starting `chunk` after the previous
 * reading. Detours past `cap` are counted, not stored. */
struct noise_finder {
    int64_t chunk, threshold, t0, prev;
    struct noise_detour *d;
    size_t n, cap, dropped;
    int64_t total;     /* sum of detour lengths, stored or not */
};
void noise_finder_init(struct noise_finder *f, int64_t chunk, int64_t threshold, int64_t t0,
                       struct noise_detour *buf, size_t cap);
static inline void noise_finder_tick(struct noise_finder *f, int64_t now)
{
    int64_t gap = now - f->prev;
    if (gap > f->chunk + f->threshold) {
        int64_t len = gap - f->chunk;
        f->total += len;
        if (f->n < f->cap)
            f->d[f->n++] = (struct noise_detour){ f->prev + f->chunk - f->t0, len };
        else
            f->dropped++;
    }
    f->prev = now;
}

/* The detour train's periodicity. The periodogram is |sum_j len_j e^(-2 pi i f t_j)|^2
 * of the detours binned at `bin` ns over `span` ns (a radix-2 FFT of the
 * binned train); the dominant frequency is the lowest peak above 2/span that
 * holds at least half the power of the strongest (a periodic train puts about
 * equal power on every harmonic). The interval mode is
 * the most common gap between consecutive detour starts, in bins of 2% of its
 * value (a histogram on a log scale). */
struct noise_spectrum {
    size_t nfreq;      /* frequencies k / (nbins * bin), k = 0 .. nfreq-1 */
    double df;         /* Hz between them */
    double *power;     /* normalised: the strongest non-zero frequency is 1 */
    double dominant_hz;
    double interval_mode_ns;
};
/* Returns 0, or -1 if memory ran out (spectrum left empty). */
int noise_spectrum_of(const struct noise_detour *d, size_t n, int64_t span, int64_t bin,
                      struct noise_spectrum *s);
void noise_spectrum_free(struct noise_spectrum *s);
double noise_interval_mode(const struct noise_detour *d, size_t n);

#endif
