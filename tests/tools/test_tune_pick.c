/* rdmach-tune --p2p's threshold (tools/tune_pick.c), on scores whose answers
 * are worked out by hand. Variants: 0 pipeline, 1 single copy. */
#include <stdio.h>
#include "tune_pick.h"

static int fails;

static void check(const char *what, const double *score, int n, int want)
{
    const int others[] = { 0 };
    int got = rch_tune_pick_from(score, n, 2, 1, others, 1);
    if (got != want) {
        printf("FAIL %s: threshold index %d, want %d\n", what, got, want);
        fails++;
    }
}

int main(void)
{
    /* This machine's figures (us, 64K..64M): single copy wins by 1.4-2.4x up to
     * 16M and ties at 64M (8136 against 8000). From index 0 the losses add up
     * to 5 x 1 + 8136/8000 = 6.017; never: 9.5/6.8 + 28.4/11.6 + 104.4/52 +
     * 474.1/210.9 + 1944.4/1685.1 + 1 = 10.25. So 0, where "wins at every
     * larger size" gave never. */
    const double zen4[] = { 9.5, 6.8, 28.4, 11.6, 104.4, 52.0, 474.1, 210.9, 1944.4, 1685.1, 8000, 8136 };
    check("tie at the largest size", zen4, 6, 0);
    /* the pipeline wins everywhere: never (n) */
    const double pipe[] = { 1, 2, 1, 2, 1, 2 };
    check("pipeline everywhere", pipe, 3, 3);
    /* single copy wins at the two largest only (best per size 1, 1, 2, 2): from
     * index 2 the losses are 1 + 1 + 1 + 1 = 4, from 3 4.5, from 1 or never 5,
     * from 0 6 */
    const double top[] = { 1, 2, 1, 2, 3, 2, 3, 2 };
    check("the two largest", top, 4, 2);
    /* equal everywhere: a tie keeps the larger threshold, never */
    const double same[] = { 1, 1, 1, 1 };
    check("ties", same, 2, 2);
    /* no sizes */
    check("none", same, 0, 0);
    printf("tune_pick: %s\n", fails ? "failed" : "ok");
    return fails != 0;
}
