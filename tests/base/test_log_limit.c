/* The rate-limited log line (base/log.h, rch_log_limited): one line per
 * interval whatever the number of occurrences, the next line counting
 * those held back, the interval doubling while they go on and back to its
 * start after a quiet one, the flush reporting a count still held, nothing
 * below the log level. stderr goes to a temporary file that is read back. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"

static FILE *out;
static int saved_stderr = -1;

static void capture(void)
{
    out = tmpfile();
    cr_assert_not_null(out);
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    dup2(fileno(out), STDERR_FILENO);
}

/* Everything logged since capture(), as one string (static buffer). */
static const char *captured(void)
{
    static char text[16384];
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    rewind(out);
    size_t n = fread(text, 1, sizeof(text) - 1, out);
    text[n] = '\0';
    fclose(out);
    return text;
}

static int lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Spin on the clock (no sleep) until `s` seconds have passed. */
static void let_pass(double s)
{
    double until = rch_base_wtime() + s;
    while (rch_base_wtime() < until)
        ;
}

Test(log_limit, one_line_per_interval_then_the_count)
{
    rch_log_level = RCH_LOG_WARN;
    rch_log_interval = 0.2;
    struct rch_log_limit l = { 0 };
    capture();
    for (int i = 0; i < 5000; i++)
        rch_log_limited(&l, RCH_LOG_WARN, "net", "refused %d", i);
    let_pass(0.25);
    rch_log_limited(&l, RCH_LOG_WARN, "net", "refused %d", 5000);
    const char *t = captured();
    cr_assert_eq(lines(t), 2, "5001 occurrences in two intervals gave:\n%s", t);
    cr_assert(strstr(t, "net: warn: refused 0\n") != NULL, "the first occurrence is printed:\n%s", t);
    cr_assert(strstr(t, "net: warn: refused 5000 (and 4999 more of these in the last 0 s)\n") != NULL,
              "the next line counts the 4999 held back:\n%s", t);
}

/* Occurrences without pause for 1 s, the interval starting at 0.05 s: lines
 * at 0, 0.05, 0.15, 0.35 and 0.75 s (20 without the doubling); then a quiet
 * interval, and the interval is back at 0.05 s. */
Test(log_limit, the_interval_doubles_while_it_goes_on)
{
    rch_log_level = RCH_LOG_WARN;
    rch_log_interval = 0.05;
    struct rch_log_limit l = { 0 };
    capture();
    double until = rch_base_wtime() + 1.0;
    long n = 0;
    while (rch_base_wtime() < until)
        rch_log_limited(&l, RCH_LOG_WARN, "net", "refused %ld", n++);
    const char *t = captured();
    cr_assert(lines(t) >= 3 && lines(t) <= 6, "%ld occurrences in 1 s gave %d lines:\n%s", n, lines(t), t);
    cr_assert_gt(l.interval, 0.3, "the interval is %.2f s after 1 s of occurrences", l.interval);
    let_pass(l.next - rch_base_wtime() + 0.01);
    capture();
    rch_log_limited(&l, RCH_LOG_WARN, "net", "refused again");   /* stands for the held ones */
    let_pass(l.interval + 0.01);
    rch_log_limited(&l, RCH_LOG_WARN, "net", "refused after a quiet interval");
    t = captured();
    cr_assert_eq(lines(t), 2, "got:\n%s", t);
    cr_assert(strstr(t, "refused after a quiet interval\n") != NULL, "no count on the quiet line:\n%s", t);
    cr_assert_float_eq(l.interval, 0.05, 1e-9, "the interval after a quiet one is %.3f s", l.interval);
}

Test(log_limit, flush_reports_what_is_held)
{
    rch_log_level = RCH_LOG_WARN;
    rch_log_interval = 60;
    struct rch_log_limit l = { 0 };
    capture();
    for (int i = 0; i < 3; i++)
        rch_log_limited(&l, RCH_LOG_WARN, "net", "reset %d", i);
    rch_log_limit_flush(&l, RCH_LOG_WARN, "net", "connections reset");
    rch_log_limit_flush(&l, RCH_LOG_WARN, "net", "connections reset");   /* nothing held any more */
    const char *t = captured();
    cr_assert_eq(lines(t), 2, "got:\n%s", t);
    cr_assert(strstr(t, "net: warn: connections reset: 2 more in the last 0 s\n") != NULL, "got:\n%s", t);
}

Test(log_limit, nothing_below_the_level)
{
    rch_log_level = RCH_LOG_ERROR;
    rch_log_interval = 60;
    struct rch_log_limit l = { 0 };
    capture();
    for (int i = 0; i < 10; i++)
        rch_log_limited(&l, RCH_LOG_WARN, "net", "refused %d", i);
    rch_log_limit_flush(&l, RCH_LOG_WARN, "net", "refused");
    const char *t = captured();
    cr_assert_eq(lines(t), 0, "got:\n%s", t);
}
