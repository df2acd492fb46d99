/*
 * MPI_T from several threads (MPI 4.1 15.3.2: MPI_T_init_thread's thread
 * levels are the tool interface's own, and it may be initialized before
 * MPI_Init): MPI_T_init_thread(MPI_THREAD_MULTIPLE) before MPI_Init gives
 * MPI_THREAD_MULTIPLE, and 4 threads then enumerate the control variables
 * and read them at once, each finding the same names as the main thread
 * found alone; then MPI_Init, the same under MPI, and the last
 * MPI_T_finalize.
 */
#include <pthread.h>
#include "mpi_test.h"

#define NTHREADS 4
#define ROUNDS 20

static int ncvars;
static char (*names)[256];
static int mismatches[NTHREADS];

static void *reader(void *p)
{
    int t = (int)(intptr_t)p;
    for (int r = 0; r < ROUNDS; r++) {
        int n = -1;
        if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS || n != ncvars) {
            mismatches[t]++;
            continue;
        }
        for (int i = 0; i < n; i++) {
            char name[256], desc[1024];
            int nlen = sizeof(name), dlen = sizeof(desc), verb, bind, scope;
            MPI_Datatype dt;
            MPI_T_enum en;
            if (MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope) != MPI_SUCCESS ||
                strcmp(name, names[i]) != 0)
                mismatches[t]++;
        }
    }
    return NULL;
}

static void all_threads(const char *when)
{
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, reader, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK(mismatches[t] == 0, "%s: thread %d saw %d wrong answers", when, t, mismatches[t]);
    }
}

int main(int argc, char **argv)
{
    int provided = -1;
    CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread failed");
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_T_init_thread(MPI_THREAD_MULTIPLE) before MPI_Init provided %d",
          provided);
    CHECK(MPI_T_cvar_get_num(&ncvars) == MPI_SUCCESS && ncvars > 0, "no control variables");
    names = calloc((size_t)ncvars, sizeof(*names));
    CHECK(names, "no memory");
    for (int i = 0; i < ncvars; i++) {
        int nlen = sizeof(names[i]), dlen = 0, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK(MPI_T_cvar_get_info(i, names[i], &nlen, &verb, &dt, &en, NULL, &dlen, &bind, &scope) == MPI_SUCCESS,
              "cvar %d: get_info failed", i);
    }
    all_threads("before MPI_Init");
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    all_threads("after MPI_Init");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Finalize());
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "MPI_T_finalize failed");
    free(names);
    if (mt_rank == 0)
        printf("mpit threads: %d cvars read by %d threads: ok\n", ncvars, NTHREADS);
    return 0;
}
