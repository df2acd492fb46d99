/* Peer failure and unreachable peers, over the mock channel. */
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include "base/tunables.h"
#include "dev_test.h"

static void teardown(void)
{
    dev_stop();
}

TestSuite(fail, .fini = teardown);

Test(fail, everything_waiting_on_a_dead_peer_completes_with_peer_dead)
{
    static unsigned char big[5000];
    cr_redirect_stderr();
    mock_job_up(3);
    dev_start(mock_select);
    int world_of[3] = { 0, 1, 2 };
    cr_assert_eq(rch_dev_ctx_map(4, 3, world_of), RDMACH_OK);
    uint32_t v = 1, in[6];
    struct rch_dev_req *sync, *rndv, *queued, *any, *from1, *from2, *unmapped;
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 1, 0, 1, 4, RCH_DEV_SEND_SYNC, &sync), RDMACH_OK);
    cr_assert_eq(rch_dev_isend(big, sizeof(big), 1, 0, 2, 4, RCH_DEV_SEND_STD, &rndv), RDMACH_OK);
    mock_cfg.out_capacity = mock_out_count();   /* the channel is now full: the next send queues */
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 1, 0, 3, 4, RCH_DEV_SEND_STD, &queued), RDMACH_OK);
    cr_assert_not_null(queued);
    cr_assert_eq(rch_dev_irecv(&in[0], 4, RCH_DEV_ANY_SOURCE, 5, 4, &any), RDMACH_OK);
    cr_assert_eq(rch_dev_irecv(&in[1], 4, 1, 5, 4, &from1), RDMACH_OK);
    cr_assert_eq(rch_dev_irecv(&in[2], 4, 2, 5, 4, &from2), RDMACH_OK);
    cr_assert_eq(rch_dev_irecv(&in[3], 4, 1, 5, 99, &unmapped), RDMACH_OK);
    cr_assert_eq(rch_dev_failed_peer(), -1);

    mock_fail_peer(1);
    rch_dev_progress();

    cr_assert_eq(rch_dev_failed_peer(), 1);
    struct rch_dev_req *dead[] = { sync, rndv, queued, any, from1 };
    for (size_t i = 0; i < sizeof(dead) / sizeof(dead[0]); i++) {
        cr_assert(dead[i]->done, "request %zu still pending after its peer died", i);
        cr_assert_eq(dead[i]->err, RDMACH_ERR_PEER_DEAD, "request %zu: %d", i, dead[i]->err);
    }
    /* A channel's later error (its flush of the dead peer's other operations)
     * replaces the thread's last error; each request keeps naming the rank. */
    rch_base_err(RDMACH_ERR_IO, "an operation flushed as its connection was shut down");
    for (size_t i = 0; i < sizeof(dead) / sizeof(dead[0]); i++)
        cr_assert(strstr(rch_dev_req_why(dead[i]), "rank 1 has failed") != NULL, "request %zu: %s", i,
                  rch_dev_req_why(dead[i]));
    cr_assert_eq(from2->done, 0, "a receive from a live rank must stay posted");
    cr_assert_eq(unmapped->done, 0, "without a context map the source's world rank is unknown");

    /* Later operations with the dead rank fail at once. */
    struct rch_dev_req *s2, *r2;
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 1, 0, 1, 4, RCH_DEV_SEND_STD, &s2), RDMACH_OK);
    cr_assert(s2 && s2->done);
    cr_assert_eq(s2->err, RDMACH_ERR_PEER_DEAD);
    cr_assert(strstr(rdmach_last_error(), "rank 1") != NULL, "%s", rdmach_last_error());
    cr_assert_eq(rch_dev_irecv(&in[4], 4, 1, 0, 4, &r2), RDMACH_OK);
    cr_assert(r2->done);
    cr_assert_eq(r2->err, RDMACH_ERR_PEER_DEAD);
    rch_base_err(RDMACH_ERR_IO, "a later error");   /* a receive refused at the call keeps naming it too */
    cr_assert(strstr(rch_dev_req_why(r2), "rank 1 has failed") != NULL, "%s", rch_dev_req_why(r2));

    /* The live peer still works. */
    uint32_t w = 0xFEED;
    inject_eager(2, 4, 2, 5, &w, sizeof(w), 0, 0);
    rch_dev_wait(from2);
    cr_assert_eq(from2->err, RDMACH_OK);
    cr_assert_eq(in[2], 0xFEED);

    struct rch_dev_req *all[] = { sync, rndv, queued, any, from1, from2, unmapped, s2, r2 };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        rch_dev_req_free(all[i]);
    rch_dev_ctx_unmap(4);
}

Test(fail, a_rank_no_channel_reaches_is_unreachable_by_name)
{
    mock_job_up(4);
    dev_start(mock_select_even);
    uint32_t v = 3;
    struct rch_dev_req *s;
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 3, 0, 0, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_not_null(s);
    cr_assert(s->done);
    cr_assert_eq(s->err, RDMACH_ERR_UNREACHABLE);
    cr_assert(strstr(rdmach_last_error(), "rank 3") != NULL, "%s", rdmach_last_error());
    rch_dev_req_free(s);
    cr_assert_eq(rch_dev_isend(NULL, 0, 1, 0, 0, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert(s && s->done && s->err == RDMACH_ERR_UNREACHABLE);
    rch_dev_req_free(s);
    static char big[100000];
    cr_assert_eq(rch_dev_isend(big, sizeof(big), 1, 0, 0, 0, RCH_DEV_SEND_SYNC, &s), RDMACH_OK);
    cr_assert(s && s->done && s->err == RDMACH_ERR_UNREACHABLE);
    rch_dev_req_free(s);
    /* an even rank works */
    cr_assert_eq(rch_dev_isend(&v, sizeof(v), 2, 0, 0, 0, RCH_DEV_SEND_STD, &s), RDMACH_OK);
    cr_assert_null(s);
    cr_assert_eq(mock_out_count(), 1);
}
