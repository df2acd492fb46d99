/*
 * A threshold from measured scores (rdmach-tune --p2p). Requiring a variant
 * to win at every larger size lets one tie at the largest size (64 MiB, where
 * every variant runs at main memory's speed) veto a variant that is twice as
 * fast everywhere below it; so the threshold is the one that loses least
 * over all measured sizes, each size's loss its time over its best variant's.
 */
#include "tune_pick.h"

int rch_tune_pick_from(const double *score, int n, int nvar, int v, const int *others, int nothers)
{
    int best_t = n;
    double best_cost = 0;
    for (int t = n; t >= 0; t--) {   /* from never down: a tie keeps the larger threshold */
        double cost = 0;
        for (int i = 0; i < n; i++) {
            const double *s = score + (long)i * nvar;
            double lo = s[v], other = -1;
            for (int k = 0; k < nothers; k++) {
                double x = s[others[k]];
                lo = x < lo ? x : lo;
                other = other < 0 || x < other ? x : other;
            }
            double mine = i >= t ? s[v] : other;
            cost += lo > 0 ? mine / lo : 1.0;
        }
        if (t == n || cost < best_cost * (1 - 1e-9)) {
            best_cost = cost;
            best_t = t;
        }
    }
    return best_t;
}
