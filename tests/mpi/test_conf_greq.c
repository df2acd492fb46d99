/*
 * Generalized requests (MPI-4.0 §13.2): MPI_Grequest_start and
 * MPI_Grequest_complete with every completion call.
 *   - not complete before MPI_Grequest_complete (Test, Request_get_status);
 *   - the completing call takes the status from query_fn (source, tag,
 *     elements, cancelled) even with MPI_STATUS_IGNORE, then calls free_fn,
 *     each once; Request_get_status calls query_fn and keeps the request;
 *   - MPI_Request_free before completion: free_fn only at
 *     MPI_Grequest_complete, query_fn never;
 *   - MPI_Cancel calls cancel_fn with complete = 0, then 1;
 *   - Waitall over generalized and ordinary requests; query_fn's error code
 *     is the completion's; MPI_ERR_REQUEST for a second complete or a
 *     request that is not generalized;
 *   - with MPI_THREAD_MULTIPLE, a thread completes the request while the
 *     main thread waits in MPI_Wait.
 */
#include <pthread.h>
#include "mpi_test.h"

struct state {
    int queries, frees, cancels, last_complete, fail_with;
    char log[16];
};

static void note(struct state *s, char c)
{
    size_t n = strlen(s->log);
    if (n + 1 < sizeof(s->log))
        s->log[n] = c, s->log[n + 1] = '\0';
}

static int query(void *extra, MPI_Status *st)
{
    struct state *s = extra;
    s->queries++;
    note(s, 'q');
    CHECK(st != MPI_STATUS_IGNORE && st != NULL, "query_fn got no status");
    st->MPI_SOURCE = 3;
    st->MPI_TAG = 9;
    st->MPI_ERROR = MPI_SUCCESS;
    MPI_Status_set_elements(st, MPI_INT, 4);
    MPI_Status_set_cancelled(st, 0);
    return s->fail_with;
}

static int release(void *extra)
{
    struct state *s = extra;
    s->frees++;
    note(s, 'f');
    return MPI_SUCCESS;
}

static int cancel(void *extra, int complete)
{
    struct state *s = extra;
    s->cancels++;
    s->last_complete = complete;
    return MPI_SUCCESS;
}

static void *completer(void *arg)
{
    MPI_Grequest_complete(*(MPI_Request *)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request r, r2;
    MPI_Status st;
    int flag, n;

    /* the whole life, Wait with a status */
    struct state a = { 0 };
    MPI_OK(MPI_Grequest_start(query, release, cancel, &a, &r));
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(!flag && a.queries == 0, "a generalized request completed before MPI_Grequest_complete");
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(!flag, "Request_get_status: complete before MPI_Grequest_complete");
    MPI_OK(MPI_Cancel(&r));
    CHECK(a.cancels == 1 && a.last_complete == 0, "cancel_fn: calls %d complete %d", a.cancels, a.last_complete);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Cancel(&r));
    CHECK(a.cancels == 2 && a.last_complete == 1, "cancel_fn after complete: complete %d", a.last_complete);
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(flag && a.queries == 1 && a.frees == 0 && r != MPI_REQUEST_NULL, "Request_get_status of a complete "
          "generalized request: flag %d queries %d frees %d", flag, a.queries, a.frees);
    memset(&st, 0, sizeof(st));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == 3 && st.MPI_TAG == 9 && n == 4,
          "Wait: the status is not query_fn's (source %d tag %d count %d)", st.MPI_SOURCE, st.MPI_TAG, n);
    CHECK(a.queries == 2 && a.frees == 1 && strcmp(a.log, "qqf") == 0, "query/free order %s", a.log);

    /* MPI_STATUS_IGNORE: query_fn still called, with a status of MPI's */
    struct state b = { 0 };
    MPI_OK(MPI_Grequest_start(query, release, cancel, &b, &r));
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && r == MPI_REQUEST_NULL && strcmp(b.log, "qf") == 0, "Test with MPI_STATUS_IGNORE: %s", b.log);

    /* freed before completion */
    struct state c = { 0 };
    MPI_OK(MPI_Grequest_start(query, release, cancel, &c, &r));
    MPI_Request keep = r;
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL && c.frees == 0, "Request_free before completion called free_fn");
    MPI_OK(MPI_Grequest_complete(keep));
    CHECK(c.frees == 1 && c.queries == 0, "after complete of a freed request: frees %d queries %d", c.frees,
          c.queries);

    /* Waitall with an ordinary request; query_fn's error */
    struct state d = { 0 };
    d.fail_with = MPI_ERR_OTHER;
    int x = 5, y = 0;
    MPI_Request rs[2];
    MPI_Status sts[2];
    MPI_OK(MPI_Grequest_start(query, release, cancel, &d, &rs[0]));
    MPI_OK(MPI_Irecv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_SELF, &rs[1]));
    MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_SELF));
    MPI_OK(MPI_Grequest_complete(rs[0]));
    int rc = MPI_Waitall(2, rs, sts);
    CHECK(mt_class(rc) == MPI_ERR_IN_STATUS && mt_class(sts[0].MPI_ERROR) == MPI_ERR_OTHER &&
          sts[1].MPI_ERROR == MPI_SUCCESS && y == 5 && d.frees == 1,
          "Waitall: class %d, statuses %d %d", mt_class(rc), mt_class(sts[0].MPI_ERROR), sts[1].MPI_ERROR);

    /* errors */
    struct state e = { 0 };
    MPI_OK(MPI_Grequest_start(query, release, cancel, &e, &r));
    MPI_OK(MPI_Grequest_complete(r));
    CHECK(mt_class(MPI_Grequest_complete(r)) == MPI_ERR_REQUEST, "a second Grequest_complete accepted");
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Irecv(&y, 1, MPI_INT, 0, 2, MPI_COMM_SELF, &r2));
    CHECK(mt_class(MPI_Grequest_complete(r2)) == MPI_ERR_REQUEST, "Grequest_complete of a receive accepted");
    MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 2, MPI_COMM_SELF));
    MPI_OK(MPI_Wait(&r2, MPI_STATUS_IGNORE));
    CHECK(mt_class(MPI_Grequest_start(NULL, release, cancel, &e, &r)) == MPI_ERR_ARG, "a NULL query_fn accepted");

    /* another thread completes it while this one waits */
    if (provided == MPI_THREAD_MULTIPLE) {
        struct state f = { 0 };
        MPI_OK(MPI_Grequest_start(query, release, cancel, &f, &r));
        MPI_Request copy = r;
        pthread_t th;
        pthread_create(&th, NULL, completer, &copy);
        MPI_OK(MPI_Wait(&r, &st));
        pthread_join(th, NULL);
        CHECK(f.queries == 1 && f.frees == 1 && st.MPI_TAG == 9, "completed by a thread: %s", f.log);
    }
    MPI_Finalize();
    if (mt_rank == 0)
        printf("conf_greq: generalized requests: ok (thread level %d)\n", provided);
    return 0;
}
