/* rdmach-tune's choice of a threshold from measured scores (tune_pick.c). */
#ifndef RCH_TOOLS_TUNE_PICK_H
#define RCH_TOOLS_TUNE_PICK_H

/* score[i * nvar + k]: the time of variant k at the i-th measured size (sizes
 * ascending, lower is better). Returns the size index t from which variant v
 * should be used (the others below it, each size by the best of `others`),
 * the t whose times, each relative to that size's best variant, add up to
 * the least; n (never) when no t does better than never. */
int rch_tune_pick_from(const double *score, int n, int nvar, int v, const int *others, int nothers);

#endif
