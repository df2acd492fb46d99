/*
 * MPI-4.1's MPI_Request_get_status_any/_all/_some (3.7.5): they report
 * completion as MPI_Testany/Testall/Testsome do but leave the requests as
 * they are (a later MPI_Waitall completes them and gives the same statuses),
 * and with no active request (null, inactive persistent) give flag 1 and
 * MPI_UNDEFINED. Ranks pair up (even receives, odd sends; an unpaired last
 * rank sends to itself); the sender sends each message only after the
 * receiver said it has checked the state before it ("go" messages), so no
 * check depends on timing. Then the argument errors.
 */
#include "mpi_test.h"

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(mt_class(rc) == cls, "%s: error class %d, expected %d", what, mt_class(rc), cls);
}

static void send_go(int to, int tag)
{
    MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, to, 100 + tag, MPI_COMM_WORLD));
}

static void sender(int to, int tag)
{
    int v = 1000 * tag;
    MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, to, 100 + tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Send(&v, 1, MPI_INT, to, tag, MPI_COMM_WORLD));
}

static void receiver(int from, int self)
{
    int v[2] = { -1, -1 }, idx = -5, flag = -5, out = -5, ind[2] = { -5, -5 };
    MPI_Request r[2];
    MPI_Status st[2], s1;
    MPI_OK(MPI_Irecv(&v[0], 1, MPI_INT, from, 1, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Irecv(&v[1], 1, MPI_INT, from, 2, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Request_get_status_any(2, r, &idx, &flag, &s1));
    CHECK(flag == 0 && idx == MPI_UNDEFINED, "any before a send: flag %d index %d", flag, idx);
    MPI_OK(MPI_Request_get_status_all(2, r, &flag, st));
    CHECK(flag == 0, "all before a send: flag %d", flag);
    MPI_OK(MPI_Request_get_status_some(2, r, &out, ind, st));
    CHECK(out == 0, "some before a send: outcount %d", out);
    send_go(from, 1);
    if (self)
        sender(from, 1);
    do
        MPI_OK(MPI_Request_get_status_any(2, r, &idx, &flag, &s1));
    while (!flag);
    CHECK(idx == 0 && s1.MPI_TAG == 1 && s1.MPI_SOURCE == from && v[0] == 1000, "any: index %d tag %d source %d",
          idx, s1.MPI_TAG, s1.MPI_SOURCE);
    CHECK(r[0] != MPI_REQUEST_NULL, "get_status_any freed the request");
    MPI_OK(MPI_Request_get_status_some(2, r, &out, ind, st));
    CHECK(out == 1 && ind[0] == 0 && st[0].MPI_TAG == 1, "some after one send: outcount %d index %d", out, ind[0]);
    MPI_OK(MPI_Request_get_status_all(2, r, &flag, st));
    CHECK(flag == 0, "all after one send: flag %d", flag);
    send_go(from, 2);
    if (self)
        sender(from, 2);
    do
        MPI_OK(MPI_Request_get_status_all(2, r, &flag, st));
    while (!flag);
    CHECK(st[0].MPI_TAG == 1 && st[1].MPI_TAG == 2 && v[1] == 2000, "all: tags %d %d", st[0].MPI_TAG,
          st[1].MPI_TAG);
    MPI_OK(MPI_Request_get_status_some(2, r, &out, ind, MPI_STATUSES_IGNORE));
    CHECK(out == 2 && ind[0] == 0 && ind[1] == 1, "some after both: outcount %d", out);
    MPI_OK(MPI_Waitall(2, r, st));   /* still there to complete */
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL && st[1].MPI_TAG == 2 && st[1].MPI_SOURCE == from,
          "waitall after get_status_all: tag %d", st[1].MPI_TAG);
}

static void no_active(void)
{
    int x = 0, idx = -5, flag = -5, out = -5, ind[2];
    MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Status st[2];
    MPI_OK(MPI_Recv_init(&x, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &r[1]));   /* inactive */
    MPI_OK(MPI_Request_get_status_any(2, r, &idx, &flag, &st[0]));
    CHECK(flag == 1 && idx == MPI_UNDEFINED, "any of none active: flag %d index %d", flag, idx);
    MPI_OK(MPI_Request_get_status_some(2, r, &out, ind, st));
    CHECK(out == MPI_UNDEFINED, "some of none active: outcount %d", out);
    st[1].MPI_TAG = 77;
    MPI_OK(MPI_Request_get_status_all(2, r, &flag, st));
    CHECK(flag == 1 && st[1].MPI_TAG == MPI_ANY_TAG && st[1].MPI_SOURCE == MPI_ANY_SOURCE,
          "all of none active: flag %d, an empty status has tag %d", flag, st[1].MPI_TAG);
    MPI_OK(MPI_Request_get_status_any(0, NULL, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1 && idx == MPI_UNDEFINED, "any of none: flag %d index %d", flag, idx);
    expect_class(MPI_Request_get_status_any(-1, r, &idx, &flag, st), MPI_ERR_COUNT, "any count -1");
    expect_class(MPI_Request_get_status_all(2, r, NULL, st), MPI_ERR_ARG, "all flag NULL");
    expect_class(MPI_Request_get_status_some(2, NULL, &out, ind, st), MPI_ERR_ARG, "some requests NULL");
    MPI_Request bad[1] = { (MPI_Request)0x7f00abcd };
    expect_class(MPI_Request_get_status_any(1, bad, &idx, &flag, st), MPI_ERR_REQUEST, "any of an invalid handle");
    MPI_OK(MPI_Request_free(&r[1]));
}

int main(int argc, char **argv)
{
    int me, p;
    mt_init(&argc, &argv, &me, &p);
    if (me % 2 == 0 && me + 1 < p) {
        receiver(me + 1, 0);
    } else if (me % 2 == 1) {
        sender(me - 1, 1);
        sender(me - 1, 2);
    } else {
        receiver(me, 1);
    }
    no_active();
    MPI_Finalize();
    if (me == 0)
        printf("request_status41: %d ranks ok\n", p);
    return 0;
}
