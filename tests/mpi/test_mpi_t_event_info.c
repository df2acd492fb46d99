/*
 * The MPI_T event calls no other test made (issue 24's audit):
 * MPI_T_event_copy inside a callback (the instance's buffer, laid out by
 * MPI_T_event_get_info's displacements, holds what MPI_T_event_read gives
 * element by element), MPI_T_event_handle_set_info/get_info and
 * MPI_T_event_callback_set_info/get_info (the library uses no hints: the
 * info returned has no key, MPI-4.1 15.3.8), MPI_T_event_set_dropped_handler,
 * and each on a freed registration (MPI_T_ERR_INVALID_HANDLE). Two ranks:
 * rank 0 sends rank 1 one message it has not posted a receive for.
 */
#include "mpi_test.h"

#define T_OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)
#define T_ERR(call, e) CHECK((call) == (e), "%s: expected %s", #call, #e)

static int nel = 8, copies, mismatches;
static MPI_Datatype types[8];
static MPI_Aint displs[8];

static void on_event(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud)
{
    (void)reg, (void)safety, (void)ud;
    unsigned char whole[256];
    if (MPI_T_event_copy(ev, whole) != MPI_SUCCESS) {
        mismatches++;
        return;
    }
    copies++;
    for (int k = 0; k < nel; k++) {
        MPI_Count c = 0;
        int i = 0;
        int count = types[k] == MPI_COUNT;
        if (MPI_T_event_read(ev, k, count ? (void *)&c : (void *)&i) != MPI_SUCCESS ||
            memcmp(whole + displs[k], count ? (void *)&c : (void *)&i, count ? sizeof(c) : sizeof(i)) != 0)
            mismatches++;
    }
}

static void on_dropped(MPI_Count count, MPI_T_event_registration reg, int source_index, MPI_T_cb_safety safety,
                       void *ud)
{
    (void)count, (void)reg, (void)source_index, (void)safety, (void)ud;
}

static void no_keys(MPI_Info info, const char *what)
{
    int n = -1;
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 0, "%s: %d keys, expected none (no hints are used)", what, n);
    MPI_OK(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    int me, p, provided, ev = -1;
    mt_init(&argc, &argv, &me, &p);
    CHECK(p == 2, "two ranks");
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    T_OK(MPI_T_event_get_index("unexpected_message", &ev));
    T_OK(MPI_T_event_get_info(ev, NULL, NULL, NULL, types, displs, &nel, NULL, NULL, NULL, NULL, NULL));
    CHECK(nel > 0 && nel <= 8, "%d elements", nel);
    MPI_Info hint, used;
    MPI_OK(MPI_Info_create(&hint));
    MPI_OK(MPI_Info_set(hint, "some_hint", "1"));
    if (me == 1) {
        MPI_T_event_registration reg;
        T_OK(MPI_T_event_handle_alloc(ev, NULL, MPI_INFO_NULL, &reg));
        T_OK(MPI_T_event_handle_set_info(reg, hint));
        T_OK(MPI_T_event_handle_get_info(reg, &used));
        no_keys(used, "MPI_T_event_handle_get_info");
        T_OK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, NULL, on_event));
        T_OK(MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, hint));
        T_OK(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, &used));
        no_keys(used, "MPI_T_event_callback_get_info");
        T_ERR(MPI_T_event_callback_get_info(reg, (MPI_T_cb_safety)99, &used), MPI_T_ERR_INVALID);
        T_ERR(MPI_T_event_handle_get_info(reg, NULL), MPI_T_ERR_INVALID);
        T_OK(MPI_T_event_set_dropped_handler(reg, on_dropped));
        /* tag 2 arrives before tag 3 (one pair's order), while only tag 3
         * has a receive posted: it is unexpected */
        MPI_Request r;
        MPI_OK(MPI_Irecv(NULL, 0, MPI_INT, 0, 3, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Send(NULL, 0, MPI_INT, 0, 1, MPI_COMM_WORLD));   /* rank 0 may send now */
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        int x = 0;
        MPI_OK(MPI_Recv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(x == 42 && copies == 1 && mismatches == 0, "value %d, %d copies, %d mismatches", x, copies, mismatches);
        T_OK(MPI_T_event_handle_free(reg, NULL, NULL));
        T_ERR(MPI_T_event_handle_set_info(reg, hint), MPI_T_ERR_INVALID_HANDLE);
        T_ERR(MPI_T_event_handle_get_info(reg, &used), MPI_T_ERR_INVALID_HANDLE);
        T_ERR(MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_NONE, hint), MPI_T_ERR_INVALID_HANDLE);
        T_ERR(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_NONE, &used), MPI_T_ERR_INVALID_HANDLE);
        T_ERR(MPI_T_event_set_dropped_handler(reg, on_dropped), MPI_T_ERR_INVALID_HANDLE);
    } else {
        int x = 42;
        MPI_OK(MPI_Recv(NULL, 0, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(NULL, 0, MPI_INT, 1, 3, MPI_COMM_WORLD));
    }
    T_ERR(MPI_T_event_copy(NULL, &ev), MPI_T_ERR_INVALID_HANDLE);   /* outside a callback */
    MPI_OK(MPI_Info_free(&hint));
    T_OK(MPI_T_finalize());
    MPI_Finalize();
    if (me == 0)
        printf("t_event_info: ok\n");
    return 0;
}
