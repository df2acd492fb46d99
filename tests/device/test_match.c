/* The matching engine alone (src/device/match.c): MPI's ordering rules,
 * wildcards, probe, cancel, and a randomized comparison with a naive model. */
#include <stdlib.h>
#include <criterion/criterion.h>
#include "device/dev.h"
#include "device/match.h"

#define ANY_SRC RCH_DEV_ANY_SOURCE
#define ANY_TAG RCH_DEV_ANY_TAG

static struct rch_match_posted P;
static struct rch_match_unexp U;

static void setup(void)
{
    rch_match_posted_init(&P);
    rch_match_unexp_init(&U);
}

TestSuite(match, .init = setup);

static void set(struct rch_match_entry *e, uint32_t ctx, int src, int tag)
{
    e->ctx = ctx;
    e->src = src;
    e->tag = tag;
}

Test(match, posted_receives_match_in_posting_order)
{
    struct rch_match_entry r[3];
    for (int i = 0; i < 3; i++) {
        set(&r[i], 0, 1, 7);
        rch_match_post(&P, &r[i]);
    }
    cr_assert_eq(rch_match_take_posted(&P, 0, 1, 7), &r[0]);
    cr_assert_eq(rch_match_take_posted(&P, 0, 1, 7), &r[1]);
    cr_assert_eq(rch_match_take_posted(&P, 0, 1, 7), &r[2]);
    cr_assert_null(rch_match_take_posted(&P, 0, 1, 7));
    cr_assert_eq(P.count, 0);
}

Test(match, earlier_any_source_receive_wins_over_later_specific)
{
    struct rch_match_entry wild, spec;
    set(&wild, 3, ANY_SRC, 5);
    set(&spec, 3, 2, 5);
    rch_match_post(&P, &wild);
    rch_match_post(&P, &spec);
    cr_assert_eq(rch_match_take_posted(&P, 3, 2, 5), &wild);
    cr_assert_eq(rch_match_take_posted(&P, 3, 2, 5), &spec);
}

Test(match, earlier_specific_receive_wins_over_later_any_source)
{
    struct rch_match_entry wild, spec;
    set(&spec, 3, 2, 5);
    set(&wild, 3, ANY_SRC, ANY_TAG);
    rch_match_post(&P, &spec);
    rch_match_post(&P, &wild);
    cr_assert_eq(rch_match_take_posted(&P, 3, 2, 5), &spec);
    cr_assert_eq(rch_match_take_posted(&P, 3, 9, 1), &wild);
}

Test(match, any_tag_matches_every_tag_but_only_its_source_and_context)
{
    struct rch_match_entry r;
    set(&r, 4, 1, ANY_TAG);
    rch_match_post(&P, &r);
    cr_assert_null(rch_match_take_posted(&P, 4, 2, 0));   /* other source */
    cr_assert_null(rch_match_take_posted(&P, 5, 1, 0));   /* other context */
    cr_assert_eq(rch_match_take_posted(&P, 4, 1, 123456), &r);
}

Test(match, specific_tag_does_not_match_another_tag)
{
    struct rch_match_entry r;
    set(&r, 0, 0, 1);
    rch_match_post(&P, &r);
    cr_assert_null(rch_match_take_posted(&P, 0, 0, 2));
    cr_assert_eq(rch_match_take_posted(&P, 0, 0, 1), &r);
}

Test(match, unexpected_messages_are_taken_in_arrival_order_per_source)
{
    struct rch_match_entry m[3];
    set(&m[0], 0, 1, 5);
    set(&m[1], 0, 1, 6);
    set(&m[2], 0, 1, 5);
    for (int i = 0; i < 3; i++)
        rch_match_add_unexp(&U, &m[i]);
    cr_assert_eq(rch_match_find_unexp(&U, 0, 1, 5, 1), &m[0]);
    cr_assert_eq(rch_match_find_unexp(&U, 0, 1, ANY_TAG, 1), &m[1]);
    cr_assert_eq(rch_match_find_unexp(&U, 0, ANY_SRC, ANY_TAG, 1), &m[2]);
    cr_assert_eq(U.count, 0);
}

Test(match, any_source_receive_takes_the_earliest_arrival_of_any_sender)
{
    struct rch_match_entry a, b, c;
    set(&a, 0, 7, 1);
    set(&b, 0, 2, 1);
    set(&c, 0, 2, 9);
    rch_match_add_unexp(&U, &a);
    rch_match_add_unexp(&U, &b);
    rch_match_add_unexp(&U, &c);
    cr_assert_eq(rch_match_find_unexp(&U, 0, ANY_SRC, 9, 1), &c);
    cr_assert_eq(rch_match_find_unexp(&U, 0, ANY_SRC, 1, 1), &a);
    cr_assert_eq(rch_match_find_unexp(&U, 0, ANY_SRC, ANY_TAG, 1), &b);
}

Test(match, probe_finds_without_removing)
{
    struct rch_match_entry m;
    set(&m, 1, 0, 3);
    rch_match_add_unexp(&U, &m);
    cr_assert_eq(rch_match_find_unexp(&U, 1, 0, 3, 0), &m);
    cr_assert_eq(rch_match_find_unexp(&U, 1, ANY_SRC, ANY_TAG, 0), &m);
    cr_assert_eq(U.count, 1);
    cr_assert_null(rch_match_find_unexp(&U, 0, 0, 3, 0), "other context must not match");
    cr_assert_eq(rch_match_find_unexp(&U, 1, 0, 3, 1), &m);
    cr_assert_null(rch_match_find_unexp(&U, 1, 0, 3, 0));
}

Test(match, unpost_removes_a_receive_once)
{
    struct rch_match_entry a, b;
    set(&a, 0, ANY_SRC, 1);
    set(&b, 0, 3, 1);
    rch_match_post(&P, &a);
    rch_match_post(&P, &b);
    cr_assert_eq(rch_match_unpost(&P, &a), 1);
    cr_assert_eq(rch_match_unpost(&P, &a), 0);
    cr_assert_eq(P.nwild, 0);
    cr_assert_eq(rch_match_take_posted(&P, 0, 3, 1), &b);
    cr_assert_eq(P.count, 0);
}

Test(match, the_single_receive_shortcut_stays_correct)
{
    struct rch_match_entry a, b, w;
    set(&a, 0, 1, 1);
    set(&b, 0, 2, 1);
    set(&w, 0, ANY_SRC, 1);
    rch_match_post(&P, &a);
    cr_assert_eq(P.only, &a);
    cr_assert_null(rch_match_take_posted(&P, 0, 2, 1), "the only receive is for source 1");
    rch_match_post(&P, &b);
    cr_assert_null(P.only);
    cr_assert_eq(rch_match_take_posted(&P, 0, 1, 1), &a);   /* one left, unknown which */
    cr_assert_null(P.only);
    cr_assert_eq(rch_match_take_posted(&P, 0, 2, 1), &b);
    rch_match_post(&P, &w);
    cr_assert_eq(P.only, &w);
    cr_assert_eq(rch_match_take_posted(&P, 0, 7, 1), &w, "the only receive is a wildcard");
    rch_match_post(&P, &a);
    cr_assert_eq(rch_match_unpost(&P, &a), 1);
    cr_assert_null(rch_match_take_posted(&P, 0, 1, 1), "a cancelled receive must not match");
}

static void unpost_all(struct rch_match_entry *x, void *arg)
{
    rch_match_unpost(&P, x);
}

Test(match, foreach_may_remove_the_entry_it_visits)
{
    struct rch_match_entry e[10];
    for (int i = 0; i < 10; i++) {
        set(&e[i], 0, i % 2 ? ANY_SRC : i, 0);
        rch_match_post(&P, &e[i]);
    }
    rch_match_posted_foreach(&P, unpost_all, NULL);
    cr_assert_eq(P.count, 0);
    cr_assert_eq(P.nwild, 0);
}

/* ---- randomized comparison with a naive model (one list each, linear scans) ---- */

#define N 3000
struct model_e {
    struct rch_match_entry e;
    int live;      /* 1 posted / 2 unexpected */
    long order;    /* posting or arrival order */
};

static int tag_ok(int want, int have)
{
    return want == ANY_TAG || want == have;
}

static struct model_e *naive_posted(struct model_e *m, int n, uint32_t ctx, int src, int tag)
{
    struct model_e *best = NULL;
    for (int i = 0; i < n; i++)
        if (m[i].live == 1 && m[i].e.ctx == ctx && (m[i].e.src == ANY_SRC || m[i].e.src == src) &&
            tag_ok(m[i].e.tag, tag) && (!best || m[i].order < best->order))
            best = &m[i];
    return best;
}

static struct model_e *naive_unexp(struct model_e *m, int n, uint32_t ctx, int src, int tag)
{
    struct model_e *best = NULL;
    for (int i = 0; i < n; i++)
        if (m[i].live == 2 && m[i].e.ctx == ctx && (src == ANY_SRC || m[i].e.src == src) &&
            tag_ok(tag, m[i].e.tag) && (!best || m[i].order < best->order))
            best = &m[i];
    return best;
}

Test(match, random_operations_agree_with_a_naive_model)
{
    static struct model_e post[N], unex[N];
    int np = 0, nu = 0;
    long order = 0;
    srand(12345);
    for (int step = 0; step < 40000; step++) {
        int op = rand() % 4;
        uint32_t ctx = (uint32_t)(rand() % 3);
        int src = rand() % 6, tag = rand() % 4;
        if (op == 0 && np < N) {            /* post a receive, wildcards sometimes */
            struct model_e *m = &post[np++];
            set(&m->e, ctx, rand() % 5 == 0 ? ANY_SRC : src, rand() % 4 == 0 ? ANY_TAG : tag);
            m->live = 1;
            m->order = order++;
            rch_match_post(&P, &m->e);
        } else if (op == 1) {               /* a message arrives */
            struct model_e *want = naive_posted(post, np, ctx, src, tag);
            struct rch_match_entry *got = rch_match_take_posted(&P, ctx, src, tag);
            cr_assert_eq(got, want ? &want->e : NULL, "step %d: arrival (%u,%d,%d) matched the wrong receive",
                         step, ctx, src, tag);
            if (want) {
                want->live = 0;
            } else if (nu < N) {
                struct model_e *m = &unex[nu++];
                set(&m->e, ctx, src, tag);
                m->live = 2;
                m->order = order++;
                rch_match_add_unexp(&U, &m->e);
            }
        } else if (op == 2) {               /* a receive looks at the unexpected queue */
            int s = rand() % 4 == 0 ? ANY_SRC : src, t = rand() % 4 == 0 ? ANY_TAG : tag;
            int take = rand() % 2;
            struct model_e *want = naive_unexp(unex, nu, ctx, s, t);
            struct rch_match_entry *got = rch_match_find_unexp(&U, ctx, s, t, take);
            cr_assert_eq(got, want ? &want->e : NULL, "step %d: receive (%u,%d,%d) found the wrong message",
                         step, ctx, s, t);
            if (want && take)
                want->live = 0;
        } else if (np > 0) {                /* cancel a random posted receive */
            struct model_e *m = &post[rand() % np];
            cr_assert_eq(rch_match_unpost(&P, &m->e), m->live == 1);
            m->live = 0;
        }
    }
    size_t lp = 0, lu = 0;
    for (int i = 0; i < np; i++)
        lp += post[i].live == 1;
    for (int i = 0; i < nu; i++)
        lu += unex[i].live == 2;
    cr_assert_eq(P.count, lp);
    cr_assert_eq(U.count, lu);
}
