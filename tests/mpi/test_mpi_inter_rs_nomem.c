/*
 * A chained intercommunicator reduce_scatter (src/mpi/intercoll_big.c)
 * whose chunks cannot be built: the request must fail with the class of
 * what failed (MPI_ERR_NO_MEM), a message saying that building the chunks
 * failed, and the communicator's error handler called once, by the call
 * that completes the request (MPI-4.1 9.3), not also by the progress that
 * built the chunks. Before, the failure became MPI_ERR_INTERN ("MPI_Wait:
 * send failed") and the handler ran twice.
 *
 * RDMACH_INTER_RS_CHUNK=1 chains the vector one element per chunk, and the
 * chunks are built (after the groups agreed on the cut) in memory this
 * test caps with RLIMIT_AS: N chunks of a few hundred bytes each do not
 * fit the headroom, so the out-of-memory is the real one. Both groups hit
 * it, so neither waits for the other's chunks.
 */
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "mpi_test.h"

#define N (4 << 20)                      /* ints in the vector: one chunk each */
#define HEADROOM (128ull << 20)          /* address space left for the chunks */

static int calls, last_code;

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    calls++;
    last_code = *code;
}

static unsigned long long vm_bytes(void)
{
    unsigned long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f && fscanf(f, "%llu", &pages) == 1, "read /proc/self/statm");
    fclose(f);
    return pages * (unsigned long long)sysconf(_SC_PAGESIZE);
}

/* One failing call: err is what it returned; its message must hold
 * `names` (the call that reported it, then the one that failed) and, for
 * a blocking call, not MPI_Wait, which the user did not call. */
static void expect_nomem(const char *what, const char *names, int blocking, int err)
{
    char msg[MPI_MAX_ERROR_STRING];
    int cls, len;
    MPI_Error_class(err, &cls);
    MPI_Error_string(err, msg, &len);
    printf("rank %d: %s: class %d: %s\n", mt_rank, what, cls, msg);
    CHECK(cls == MPI_ERR_NO_MEM, "%s: error class %d, expected MPI_ERR_NO_MEM (%d): %s", what, cls,
          MPI_ERR_NO_MEM, msg);
    CHECK(strstr(msg, "building the") && strstr(msg, "chunks"), "%s: the message names the chunks: %s", what, msg);
    CHECK(strstr(msg, names) && !(blocking && strstr(msg, "MPI_Wait")), "%s: the message names \"%s\"%s: %s", what,
          names, blocking ? " and not MPI_Wait" : "", msg);
    CHECK(calls == 1 && last_code == err, "%s: the error handler ran %d times (expected once, on the completion)",
          what, calls);
}

int main(int argc, char **argv)
{
    int me, p;
    mt_init(&argc, &argv, &me, &p);
    CHECK(p == 2, "2 ranks");
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me, 0, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, !me, 3, &ic));
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_create_errhandler(handler, &eh));
    MPI_OK(MPI_Comm_set_errhandler(ic, eh));
    int *sb = calloc(N, sizeof(int)), *rb = calloc(N, sizeof(int));
    CHECK(sb && rb, "buffers");
    int counts[1] = { N };

    struct rlimit old, cap;
    CHECK(getrlimit(RLIMIT_AS, &old) == 0, "getrlimit");
    cap = old;
    cap.rlim_cur = vm_bytes() + HEADROOM;
    CHECK(setrlimit(RLIMIT_AS, &cap) == 0, "setrlimit");

    MPI_Request req;
    MPI_OK(MPI_Ireduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, ic, &req));
    expect_nomem("MPI_Ireduce_scatter + MPI_Wait", "MPI_Wait: MPI_Ireduce_scatter: building", 0,
                 MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "the failed request is freed");
    calls = 0;
    expect_nomem("MPI_Reduce_scatter", ": MPI_Reduce_scatter: building", 1,
                 MPI_Reduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, ic));

    CHECK(setrlimit(RLIMIT_AS, &old) == 0, "setrlimit back");
    /* the intercommunicator still works after the failures */
    int one = me + 1, got = 0, c1[1] = { 1 };
    MPI_OK(MPI_Reduce_scatter(&one, &got, c1, MPI_INT, MPI_SUM, ic));
    CHECK(got == 2 - me, "reduce_scatter after the failures: %d, expected %d", got, 2 - me);
    free(sb);
    free(rb);
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    if (me == 0)
        printf("chained reduce_scatter out of memory: MPI_ERR_NO_MEM, handler once, ok\n");
    MPI_Finalize();
    return 0;
}
