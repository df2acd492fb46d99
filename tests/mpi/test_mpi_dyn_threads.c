/*
 * Dynamic processes from several threads of a process at once (MPI-4.1
 * 11.8 and 11.6: MPI_Comm_spawn, MPI_Comm_accept, MPI_Comm_connect are
 * collective over their `comm` only, so at MPI_THREAD_MULTIPLE threads that
 * each pass a communicator of their own may call them concurrently, and
 * each call returns its own intercommunicator, a communication context of
 * its own: MPI-4.1 6.1.2, "messages sent in one context cannot be received
 * in another"). By mode (argv[1]), NT = 4 threads per rank, each with a
 * duplicate of its own made before the threads start:
 *
 *   spawn [R]    R rounds (default 10); in each, thread t of every rank
 *                spawns over its duplicate of MPI_COMM_WORLD, root t % np,
 *                1 + t % 2 copies of this program ("child <id> <np>"), all
 *                threads at once. id names the round and thread.
 *   connect [R]  R rounds (default 6); in each, threads 0 and 1 of rank r
 *                open a port, send its name to rank (r + 1) % np over
 *                MPI_COMM_WORLD (tag of the thread) and accept on it over
 *                their duplicate of MPI_COMM_SELF, while threads 2 and 3 of
 *                rank r receive the name of rank (r - 1) % np's threads 0
 *                and 1 and connect to it, all threads at once. At one rank
 *                the threads of one process accept and connect to each
 *                other: the groups of an intercommunicator must be
 *                disjoint (MPI-4.1 7.6), so both calls must fail (rdmach
 *                says so: it cannot give one process the same context for
 *                two communicators), not hang.
 *
 * Context isolation, in both modes: every member of each intercommunicator
 * sends every remote member one message carrying the id of the operation
 * that made it, and receives as many with MPI_ANY_SOURCE and MPI_ANY_TAG;
 * every message received must carry that intercommunicator's id (another
 * thread's intercommunicator sharing its context would hand over a message
 * of another id), and then each side disconnects.
 */
#include <pthread.h>
#include <unistd.h>
#include "mpi_test.h"

#define NT 4
#define TAG_PORT 100

static int rank, np;
static const char *self_path;
static MPI_Comm tcomm[NT];     /* thread t's communicator */
static int round_no;

/* Send the id to every remote member, then receive one message from each
 * with wildcards: each must carry the id. */
static void isolation_check(MPI_Comm ic, int id, const char *who)
{
    int rsize;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)rsize);
    int *outv = malloc(sizeof(int) * (size_t)rsize);
    CHECK(reqs && outv, "out of memory");
    for (int r = 0; r < rsize; r++) {
        outv[r] = id;
        MPI_OK(MPI_Isend(&outv[r], 1, MPI_INT, r, r, ic, &reqs[r]));
    }
    for (int r = 0; r < rsize; r++) {
        int v = -1;
        MPI_Status s;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &s));
        CHECK(v == id, "%s: a message of operation %d arrived on the intercommunicator of operation %d (from "
              "remote rank %d)", who, v, id, s.MPI_SOURCE);
    }
    MPI_OK(MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE));
    free(outv);
    free(reqs);
}

/* ---- spawn ---- */

static void *spawner(void *arg)
{
    int t = (int)(intptr_t)arg, n = 1 + t % 2, id = round_no * NT + t, codes[2] = { -1, -1 }, lsize, rsize;
    char ids[16], nps[16];
    snprintf(ids, sizeof(ids), "%d", id);
    snprintf(nps, sizeof(nps), "%d", np);
    char *args[] = { "child", ids, nps, NULL };
    MPI_Comm ic;
    MPI_OK(MPI_Comm_spawn(self_path, args, n, MPI_INFO_NULL, t % np, tcomm[t], &ic, codes));
    MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    for (int i = 0; i < n; i++)
        CHECK(codes[i] == MPI_SUCCESS, "thread %d: errcode %d is %d", t, i, codes[i]);
    MPI_OK(MPI_Comm_size(ic, &lsize));
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    CHECK(lsize == np && rsize == n, "thread %d: sizes %d and %d, expected %d and %d", t, lsize, rsize, np, n);
    isolation_check(ic, id, "parent");
    MPI_OK(MPI_Comm_disconnect(&ic));
    return NULL;
}

static void child(int id, int nparents)
{
    MPI_Comm parent;
    int rsize;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    MPI_OK(MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_remote_size(parent, &rsize));
    CHECK(rsize == nparents, "the parent group has %d members, expected %d", rsize, nparents);
    isolation_check(parent, id, "child");
    MPI_OK(MPI_Comm_disconnect(&parent));
}

/* ---- connect ---- */

static void *connector(void *arg)
{
    int t = (int)(intptr_t)arg, acceptor = t < NT / 2;
    int pair = acceptor ? t : t - NT / 2;     /* the acceptor thread of this pair */
    int arank = acceptor ? rank : (rank - 1 + np) % np;
    int id = round_no * np * NT + arank * NT + pair;
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm ic = MPI_COMM_NULL;
    int rc;
    if (acceptor) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        MPI_OK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, (rank + 1) % np, TAG_PORT + pair, MPI_COMM_WORLD));
        rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, tcomm[t], &ic);
        MPI_OK(MPI_Close_port(port));
    } else {
        MPI_OK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, arank, TAG_PORT + pair, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, tcomm[t], &ic);
    }
    if (np == 1) {   /* one process in both groups: an error at both, not a hang */
        CHECK(rc != MPI_SUCCESS && ic == MPI_COMM_NULL, "thread %d: a process connected to itself", t);
        return NULL;
    }
    MPI_OK(rc);
    MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    int rsize;
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    CHECK(rsize == 1, "thread %d: remote size %d", t, rsize);
    isolation_check(ic, id, acceptor ? "acceptor" : "connector");
    MPI_OK(MPI_Comm_disconnect(&ic));
    return NULL;
}

static void run_rounds(MPI_Comm base, int rounds, void *(*fn)(void *))
{
    for (int t = 0; t < NT; t++) {
        MPI_OK(MPI_Comm_dup(base, &tcomm[t]));
        MPI_OK(MPI_Comm_set_errhandler(tcomm[t], MPI_ERRORS_RETURN));
    }
    for (round_no = 0; round_no < rounds; round_no++) {
        pthread_t th[NT];
        for (int t = 0; t < NT; t++)
            CHECK(pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t) == 0, "pthread_create");
        for (int t = 0; t < NT; t++)
            pthread_join(th[t], NULL);
    }
    for (int t = 0; t < NT; t++)
        MPI_OK(MPI_Comm_free(&tcomm[t]));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = rank;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    self_path = argv[0];
    const char *mode = argc > 1 ? argv[1] : "spawn";
    int rounds = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(mode, "child") == 0 && argc > 3) {
        child(atoi(argv[2]), atoi(argv[3]));
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "spawn") == 0)
        run_rounds(MPI_COMM_WORLD, rounds > 0 ? rounds : 10, spawner);
    else if (strcmp(mode, "connect") == 0)
        run_rounds(MPI_COMM_SELF, rounds > 0 ? rounds : 6, connector);
    else
        CHECK(0, "unknown mode %s", mode);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    if (rank == 0)
        printf("dyn threads %s: ok\n", mode);
    return 0;
}
