/* RDMACH_NOISE's parser (src/device/noise.c): accepted forms, the rank list,
 * and errors that name the variable and what is wrong. */
#include <criterion/criterion.h>
#include <string.h>
#include "device/noise.h"

static struct rch_dev_noise_cfg parse_ok(const char *text, int rank, int size)
{
    struct rch_dev_noise_cfg c;
    rdmach_status_t st = rch_dev_noise_parse(text, rank, size, &c);
    cr_assert_eq(st, RDMACH_OK, "'%s': %s", text, rdmach_last_error());
    return c;
}

static void parse_bad(const char *text, int size, const char *why)
{
    struct rch_dev_noise_cfg c;
    cr_assert_eq(rch_dev_noise_parse(text, 0, size, &c), RDMACH_ERR_CONFIG, "'%s' accepted", text);
    const char *msg = rdmach_last_error();
    cr_expect(strstr(msg, "RDMACH_NOISE: '") != NULL, "message '%s' does not name the variable", msg);
    cr_expect(strstr(msg, why) != NULL, "message '%s' does not say '%s'", msg, why);
}

Test(noise_inject, period_and_duration_default_to_sync_on_every_rank)
{
    struct rch_dev_noise_cfg c = parse_ok("1ms,50us", 3, 4);
    cr_expect_eq(c.period, 1000000);
    cr_expect_eq(c.duration, 50000);
    cr_expect_eq(c.sync, 1);
    cr_expect_eq(c.on_me, 1);
}

Test(noise_inject, unsync_and_a_rank_list)
{
    struct rch_dev_noise_cfg c = parse_ok("10ms,200us,unsync,0-3,8", 8, 16);
    cr_expect_eq(c.period, 10000000);
    cr_expect_eq(c.duration, 200000);
    cr_expect_eq(c.sync, 0);
    cr_expect_eq(c.on_me, 1);
    cr_expect_str_eq(c.ranks, "0-3,8");
    for (int r = 0; r < 16; r++)
        cr_expect_eq(parse_ok("10ms,200us,unsync,0-3,8", r, 16).on_me, r <= 3 || r == 8, "rank %d", r);
    cr_expect_eq(parse_ok("1ms,1us,5", 4, 6).on_me, 0);
    cr_expect_eq(parse_ok("1ms,1us,sync,all", 4, 6).on_me, 1);
}

Test(noise_inject, bad_values_say_what_is_wrong)
{
    parse_bad("", 4, "the period must be a duration");
    parse_bad("1ms", 4, "a duration must follow the period");
    parse_bad("1000,50", 4, "the period must be a duration with a unit");
    parse_bad("1ms,50", 4, "the duration must be a duration with a unit");
    parse_bad("5us,1us", 4, "at least 10us");
    parse_bad("1ms,1ms", 4, "below the period");
    parse_bad("1ms,0us", 4, "above 0");
    parse_bad("1ms,50us,often", 4, "sync, unsync or a list of ranks");
    parse_bad("1ms,50us,sync,4", 4, "below the job's size");
    parse_bad("1ms,50us,3-1", 4, "a list like 0-3,7");
    parse_bad("1ms,50us,1;2", 4, "a list like 0-3,7");
}
