/*
 * The accumulate lock's waiter (src/device/rma_acclock.c) over the mock
 * channel: a holder the device has not heard of as failed
 * (rch_dev.peers[].dead clear, no progress runs) is found dead only by the
 * channel's peer_gone, which the waiter asks again and again until it says
 * yes; then the lock is taken over. Without the question the waiter would
 * spin for ever (the harness's timeout).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include "device/rma_impl.h"
#include "dev_test.h"

static void teardown(void)
{
    dev_stop();
}

TestSuite(acclock, .fini = teardown);

Test(acclock, a_holder_only_the_channel_knows_dead_is_taken_over, .timeout = 30)
{
    cr_redirect_stderr();
    mock_job_up(3);
    dev_start(mock_select);
    struct rch_dev_win_ctrl c = { 0 };
    atomic_store(&c.acc, 1 + 1);   /* held by world rank 1 */
    mock_gone_after(1, 3);         /* alive at the first two questions */
    cr_assert_eq(rch_dev.peers[1].dead, 0);
    rch_dev_rma_acc_contended(&c);
    cr_assert_eq(atomic_load(&c.acc), (uint32_t)rch_dev.rank + 1, "the lock is %u",
                 (unsigned)atomic_load(&c.acc));
    cr_assert_eq(mock_gone_asked(1), 3, "asked %d times", mock_gone_asked(1));
    cr_assert_eq(mock_gone_asked(2), 0, "asked about a rank that holds nothing");
    cr_assert_eq(rch_dev.peers[1].dead, 0, "the device heard nothing: progress did not run");
}
