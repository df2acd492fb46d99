/*
 * The MPI_T event peer_failed (src/mpi/mpit_event.c): rank 1 stops itself
 * (SIGSTOP) while rank 0 waits for a message from it; after
 * RDMACH_PEER_STOP_TIMEOUT (mpit.cmake) the device declares it failed, and
 * rank 0's callback, registered for MPI_T_CB_REQUIRE_MPI_RESTRICTED, sees
 * the event once with element peer = 1, before the receive returns
 * MPI_ERR_PROC_ABORTED. Rank 0 then ends rank 1 (SIGKILL) and reports on
 * stdout: the job itself fails (a rank was killed), so the test
 * (expect_fail.sh) judges that report.
 */
#include <signal.h>
#include <unistd.h>
#include "mpi_test.h"

static int calls, seen_peer = -1, recv_returned;

static void on_fail(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud)
{
    (void)reg, (void)safety, (void)ud;
    calls++;
    if (MPI_T_event_read(ev, 0, &seen_peer) != MPI_SUCCESS || recv_returned)
        seen_peer = -2;
}

int main(int argc, char **argv)
{
    int provided, ev = -1, size, buf = 0;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run on 2 ranks");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int pid = (int)getpid();
    MPI_OK(MPI_Bcast(&pid, 1, MPI_INT, 1, MPI_COMM_WORLD));
    MPI_T_event_registration reg = NULL;
    if (mt_rank == 0) {
        CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
        CHECK(MPI_T_event_get_index("peer_failed", &ev) == MPI_SUCCESS, "no event peer_failed");
        CHECK(MPI_T_event_handle_alloc(ev, NULL, MPI_INFO_NULL, &reg) == MPI_SUCCESS, "handle_alloc");
        CHECK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, NULL, on_fail) ==
                  MPI_SUCCESS, "register_callback");
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 1) {
        raise(SIGSTOP);   /* never continued: rank 0 kills it */
        for (;;)
            pause();
    }
    int rc = MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    recv_returned = 1;
    kill((pid_t)pid, SIGKILL);
    CHECK(mt_class(rc) == MPI_ERR_PROC_ABORTED, "the receive returned class %d", mt_class(rc));
    CHECK(calls == 1 && seen_peer == 1, "peer_failed: %d calls, peer %d", calls, seen_peer);
    CHECK(MPI_T_event_handle_free(reg, NULL, NULL) == MPI_SUCCESS, "handle_free");
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "MPI_T_finalize");
    printf("mpit_death: PASS: peer_failed seen once for rank 1, before the receive failed\n");
    fflush(stdout);
    _exit(0);
}
