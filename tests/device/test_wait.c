/* The device's waits and their done-functions (dev.h rch_dev_wait_until):
 * a wait ends where done(arg) first holds and never asks it again, since a
 * done-function may take what it found (MPI_Mprobe's takes the message off
 * the unexpected queue). Spin and yield phases at 0, so every empty pass
 * reaches the blocking phase, which tests done before and after arming the
 * channels: done first holding at any of its calls is covered by letting
 * it hold from its k-th call on, for every k up to a few rounds of the loop.
 * On the real init path as a singleton (the loopback). */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "self_init.h"

static void phases_init(void)
{
    setenv("RDMACH_SPIN_COUNT", "0", 1);
    setenv("RDMACH_YIELD_COUNT", "0", 1);
    setenv("RDMACH_SPIN_COUNT_OVERSUB", "0", 1);
    setenv("RDMACH_YIELD_COUNT_OVERSUB", "0", 1);
    self_init();
}

TestSuite(wait, .init = phases_init, .fini = self_fini);

#define KMAX 16   /* a few passes of the wait loop, each with its blocking phase's tests */

struct counted {
    int holds_from;   /* done holds from this call on */
    int calls;
    int calls_after;  /* calls once it had held: must stay 0 */
};

static int counted_done(void *arg)
{
    struct counted *c = arg;
    if (c->calls >= c->holds_from)
        c->calls_after++;
    return ++c->calls >= c->holds_from;
}

static const struct rch_dev_wait_policy no_spin = { .spin = 0, .yield = 0, .block_ms = 1 };

Test(wait, done_is_not_asked_again_once_it_held)
{
    for (int k = 1; k <= KMAX; k++) {
        struct counted c = { .holds_from = k };
        cr_assert_eq(rch_dev_wait_until(counted_done, &c), RDMACH_OK);
        cr_assert_eq(c.calls_after, 0, "done held at call %d and was called %d more times (wait_until)", k,
                     c.calls_after);
        cr_assert_eq(c.calls, k);
        c = (struct counted){ .holds_from = k };
        cr_assert_eq(rch_dev_wait_until_with(counted_done, &c, &no_spin), RDMACH_OK);
        cr_assert_eq(c.calls_after, 0, "done held at call %d and was called %d more times (wait_until_with)",
                     k, c.calls_after);
        cr_assert_eq(c.calls, k);
    }
}

/* The matched probe's wait: a progress hook sends FIRST to self on pass
 * `at`, SECOND a pass later; the wait's done-function takes what it finds
 * (rch_dev_improbe) as MPI_Mprobe's does. The message it ends with is
 * FIRST, and SECOND is still queued: a second test of done after it held
 * would have taken SECOND (or nothing, then waited for SECOND) and lost
 * FIRST. */
#define CTX 9
#define TAG 4
enum { FIRST = 101, SECOND = 202 };

struct sender {
    int at, passes;
    int v[2];
};

static unsigned send_hook(void *arg)
{
    struct sender *s = arg;
    int i = s->passes++ - s->at;
    if (i != 0 && i != 1)
        return 0;
    struct rch_dev_req *r = NULL;
    cr_assert_eq(rch_dev_isend(&s->v[i], sizeof(int), 0, 0, TAG, CTX, RCH_DEV_SEND_STD, &r), RDMACH_OK);
    cr_assert_null(r, "a small send to self completes at once");
    return 1;
}

struct probe {
    struct rch_dev_msg *msg;
    int src, tag;
    size_t bytes;
};

static int probe_done(void *arg)
{
    struct probe *p = arg;
    cr_assert_eq(rch_dev_improbe(RCH_DEV_ANY_SOURCE, TAG, CTX, &p->msg, &p->src, &p->tag, &p->bytes),
                 RDMACH_OK);
    return p->msg != NULL;
}

static int receive(struct rch_dev_msg *m)
{
    int v = -1;
    struct rch_dev_req *r = NULL;
    cr_assert_eq(rch_dev_imrecv(&v, sizeof(v), m, &r), RDMACH_OK);
    cr_assert_eq(rch_dev_wait(r), RDMACH_OK);
    cr_assert_eq(r->err, RDMACH_OK);
    cr_assert_eq(r->bytes, sizeof(v));
    rch_dev_req_free(r);
    return v;
}

Test(wait, a_matched_probe_keeps_the_message_it_found)
{
    for (int at = 0; at <= KMAX; at++) {
        struct sender s = { .at = at, .v = { FIRST, SECOND } };
        struct probe p = { 0 };
        cr_assert_eq(rch_dev_progress_hook_add(send_hook, &s), RDMACH_OK);
        rdmach_status_t st = rch_dev_wait_until_with(probe_done, &p, &no_spin);
        while (s.passes <= s.at + 1)
            rch_dev_progress();       /* SECOND, if the wait ended before it left */
        rch_dev_progress_hook_remove(send_hook, &s);
        cr_assert_eq(st, RDMACH_OK);
        cr_assert_not_null(p.msg);
        cr_assert(p.src == 0 && p.tag == TAG && p.bytes == sizeof(int));
        int got = receive(p.msg);
        cr_assert_eq(got, FIRST, "hook sending at pass %d: the wait ended with %d, not the first message %d",
                     at, got, FIRST);
        struct probe q = { 0 };
        cr_assert(probe_done(&q), "hook sending at pass %d: the second message is not queued", at);
        cr_assert_eq(receive(q.msg), SECOND);
        cr_assert_not(probe_done(&q), "hook sending at pass %d: a message left over", at);
    }
}
