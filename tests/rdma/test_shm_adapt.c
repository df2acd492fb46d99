/* The receiver's choice between the pipeline and single copy
 * (src/rdma/shm/shm_adapt.c), fed timings by hand. */
#include <criterion/criterion.h>
#include <string.h>
#include "rdma/shm/shm_adapt.h"

enum { P = RCH_SHM_WAY_PIPE, C = RCH_SHM_WAY_CMA };
#define KIB 1024u

/* one get of len that took `ns`, each after the last (no queueing) */
static void timed(struct rch_shm_adapt *a, size_t len, int way, uint64_t *t, uint64_t ns)
{
    rch_shm_adapt_sample(a, len, way, *t, *t + ns);
    *t += ns + 1000;
}

Test(shm_adapt, explores_both_ways_then_takes_the_faster)
{
    static struct rch_shm_adapt a;
    memset(&a, 0, sizeof(a));
    uint64_t t = 1000;
    /* 64 KiB: the pipeline first, then single copy, until 2 samples of each */
    const int first[] = { P, C, P, C };
    for (int i = 0; i < 4; i++) {
        int way = rch_shm_adapt_choose(&a, 64 * KIB);
        cr_assert_eq(way, first[i], "choice %d: way %d", i, way);
        timed(&a, 64 * KIB, way, &t, way == C ? 6000 : 9000);   /* single copy faster */
    }
    for (int i = 0; i < 10; i++)
        cr_assert_eq(rch_shm_adapt_choose(&a, 64 * KIB), C, "single copy is faster");
    /* another class is on its own: 1 MiB starts exploring again */
    cr_assert_eq(rch_shm_adapt_choose(&a, 1024 * KIB), P);
    /* 96 KiB is 64 KiB's class (log2), 128 KiB the next */
    cr_assert_eq(rch_shm_adapt_choose(&a, 96 * KIB), C);
    cr_assert_eq(rch_shm_adapt_choose(&a, 128 * KIB), P);
}

Test(shm_adapt, rechecks_the_other_way_once_in_64_and_follows_a_change)
{
    static struct rch_shm_adapt a;
    memset(&a, 0, sizeof(a));
    uint64_t t = 1000;
    size_t len = 256 * KIB;
    for (int i = 0; i < 4; i++) {
        int way = rch_shm_adapt_choose(&a, len);
        timed(&a, len, way, &t, way == P ? 20000 : 40000);      /* the pipeline faster */
    }
    int other = 0, pos = -1;
    for (int i = 1; i <= 64; i++) {
        int way = rch_shm_adapt_choose(&a, len);
        if (way == C) {
            other++;
            pos = i;
        }
    }
    cr_assert_eq(other, 1, "the slower way taken %d times in 64", other);
    cr_assert_eq(pos, 64, "on the 64th choice (%d)", pos);
    /* the machine changes: single copy now 10 us; each recheck's sample comes
     * in, and once it is the lower figure single copy is chosen */
    timed(&a, len, C, &t, 10000);
    cr_assert_eq(rch_shm_adapt_choose(&a, len), C);
    cr_assert_float_eq(rch_shm_adapt_figure(&a, len, C), 10000.0 / len, 1e-12);
    cr_assert_float_eq(rch_shm_adapt_figure(&a, len, P), 20000.0 / len, 1e-12);
}

Test(shm_adapt, a_way_keeps_the_lowest_of_its_last_4_samples)
{
    static struct rch_shm_adapt a;
    memset(&a, 0, sizeof(a));
    uint64_t t = 1000;
    size_t len = 64 * KIB;
    const uint64_t ns[] = { 5000, 9000, 8000, 7000, 6000 };   /* the 5000 leaves after 4 more */
    for (int i = 0; i < 5; i++) {
        timed(&a, len, P, &t, ns[i]);
        double want = (i < 4 ? 5000.0 : 6000.0) / len;
        cr_assert_float_eq(rch_shm_adapt_figure(&a, len, P), want, 1e-12, "after sample %d", i);
    }
}

Test(shm_adapt, a_queued_get_counts_from_the_previous_completion)
{
    static struct rch_shm_adapt a;
    memset(&a, 0, sizeof(a));
    size_t len = 64 * KIB;
    /* a window: three gets started at 0, done at 10, 20, 30 us: each served
     * in 10 us, not 10, 20, 30 */
    int dummy[3];
    for (int i = 0; i < 3; i++)
        rch_shm_adapt_start(&a, &dummy[i], len, P, 1000);
    cr_assert_eq(a.npend, 3);
    for (int i = 0; i < 3; i++)
        rch_shm_adapt_done(&a, &dummy[i], 1, 1000 + 10000 * (uint64_t)(i + 1));
    cr_assert_eq(a.npend, 0);
    cr_assert_float_eq(rch_shm_adapt_figure(&a, len, P), 10000.0 / len, 1e-12);
    cr_assert_eq(a.cls[1].way[P].nsamples, 3);
    /* a failed get and an unknown one give no sample */
    rch_shm_adapt_start(&a, &dummy[0], len, C, 50000);
    rch_shm_adapt_done(&a, &dummy[0], 0, 60000);
    rch_shm_adapt_done(&a, &dummy[1], 1, 70000);
    cr_assert_eq(a.cls[1].way[C].nsamples, 0);
    cr_assert_eq(a.npend, 0);
}

Test(shm_adapt, a_full_table_leaves_the_get_untimed)
{
    static struct rch_shm_adapt a;
    memset(&a, 0, sizeof(a));
    int ctx[RCH_SHM_ADAPT_PENDING + 1];
    for (int i = 0; i <= RCH_SHM_ADAPT_PENDING; i++)
        rch_shm_adapt_start(&a, &ctx[i], 64 * KIB, P, 1000);
    cr_assert_eq(a.npend, RCH_SHM_ADAPT_PENDING);
    rch_shm_adapt_done(&a, &ctx[RCH_SHM_ADAPT_PENDING], 1, 5000);   /* not in the table */
    cr_assert_eq(a.npend, RCH_SHM_ADAPT_PENDING);
    cr_assert_eq(a.cls[1].way[P].nsamples, 0);
}
