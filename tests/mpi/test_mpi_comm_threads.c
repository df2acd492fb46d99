/*
 * Communicators made by several threads of a process at once
 * (MPI_THREAD_MULTIPLE). MPI 4.1 7.4.2 lets each thread create communicators
 * from its own parent concurrently, and Comm_create_group calls on one parent
 * when their tags differ. Each new communicator must get a context of its
 * own on every member: if two threads' communicators shared one, their
 * collectives would take each other's messages.
 *
 *  1. Own parents: thread t makes communicators from its parent (a dup of
 *     world made beforehand) by Comm_dup, Comm_split and Comm_create, ITER
 *     times, and checks each with an Allreduce of values that name the
 *     thread: a sum made of another thread's contributions is wrong.
 *  2. One parent, tags: every thread calls Comm_create_group on
 *     MPI_COMM_WORLD at once with the tag t (MPI_TAG_UB for one of them)
 *     and world's group, and checks the result the same way.
 *  3. A lock around a dup of MPI_COMM_SELF: thread t takes a process-wide
 *     mutex, dups MPI_COMM_SELF, releases it, then dups its parent; thread
 *     t of rank t first sleeps, so on different ranks different threads
 *     reach the lock first. A dup of MPI_COMM_SELF must not wait for the
 *     other processes, or the job deadlocks (ctest's timeout).
 *  4. Groups among dups: thread t dups its parent, then its even ranks make
 *     a communicator of themselves by Comm_create_group while its odd ranks
 *     go on to a Comm_split of the parent, which waits for the even ranks'
 *     thread t; all the while the other threads dup their parents. The
 *     split holds the odd ranks' context mask; on the even ranks the group
 *     creation must get theirs before the dups that cannot finish (MPICH's
 *     idup_comm_gen hung so when a dup ranked before every group creation).
 *  5. A subset, then the whole: thread t of ranks 0 .. nranks / 2 makes a
 *     communicator of those ranks by Comm_create_group on MPI_COMM_WORLD
 *     with the tag t, then every rank's thread t one of world's group with
 *     the same tag (MPICH's comm_create_group_threads2), with random short
 *     sleeps between the calls. The last rank reaches the whole-group
 *     creation while the others' thread t is still in the subset's; a hold
 *     of its context mask there must not wait for them (src/mpi/ctxid.c,
 *     "Threads": when the first round held the whole mask this phase
 *     hung 3 runs in 3 at 4 ranks and 2 in 2 at 3).
 *  6. Intercommunicators among dups: the even threads make an
 *     intercommunicator of their parent's two halves (Intercomm_create),
 *     split it and merge it, while the odd threads dup their parents. Each
 *     intercommunicator's pair is agreed in the same rounds as the others'
 *     (a pair read from the free mask without holding it could be taken by
 *     another thread's dup meanwhile, and two communicators would share it).
 */
#include <pthread.h>
#include <time.h>
#include "mpi_test.h"

#define NTHREADS 4
#define ITER 40

static int nranks, tag_ub;
static MPI_Comm parent[NTHREADS];
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every member adds thread * 1000000 + its rank in c; the sum says whose. */
static void check_comm(MPI_Comm c, int t, const char *how, int i)
{
    int r, n;
    MPI_OK(MPI_Comm_rank(c, &r));
    MPI_OK(MPI_Comm_size(c, &n));
    long mine = (long)t * 1000000 + r, sum = -1, want = (long)t * 1000000 * n + (long)n * (n - 1) / 2;
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == want, "thread %d, %s %d: Allreduce gave %ld, expected %ld (another thread's context?)", t, how,
          i, sum, want);
}

static void own_parents(int t)
{
    MPI_Group g;
    MPI_OK(MPI_Comm_group(parent[t], &g));
    for (int i = 0; i < ITER; i++) {
        MPI_Comm c;
        MPI_OK(MPI_Comm_dup(parent[t], &c));
        check_comm(c, t, "Comm_dup", i);
        MPI_OK(MPI_Comm_free(&c));
        MPI_OK(MPI_Comm_split(parent[t], mt_rank % 2, -mt_rank, &c));
        check_comm(c, t, "Comm_split", i);
        MPI_OK(MPI_Comm_free(&c));
        MPI_OK(MPI_Comm_create(parent[t], g, &c));
        check_comm(c, t, "Comm_create", i);
        MPI_OK(MPI_Comm_free(&c));
    }
    MPI_OK(MPI_Group_free(&g));
}

static void one_parent_tags(int t)
{
    MPI_Group world;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int tag = t == NTHREADS - 1 ? tag_ub : t;
    for (int i = 0; i < ITER; i++) {
        MPI_Comm c;
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, world, tag, &c));
        check_comm(c, t, "Comm_create_group", i);
        MPI_OK(MPI_Comm_free(&c));
    }
    MPI_OK(MPI_Group_free(&world));
}

static void self_under_lock(int t)
{
    if (t == mt_rank % NTHREADS) {
        struct timespec ts = { 0, 200 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < 4; i++) {
        MPI_Comm self, c;
        pthread_mutex_lock(&self_lock);
        MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &self));
        pthread_mutex_unlock(&self_lock);
        check_comm(self, t, "Comm_dup(MPI_COMM_SELF)", i);
        MPI_OK(MPI_Comm_free(&self));
        MPI_OK(MPI_Comm_dup(parent[t], &c));
        check_comm(c, t, "Comm_dup after the lock", i);
        MPI_OK(MPI_Comm_free(&c));
    }
}

static void groups_among_dups(int t)
{
    MPI_Group g, even;
    int ranges[1][3] = { { 0, nranks - 1, 2 } };
    MPI_OK(MPI_Comm_group(parent[t], &g));
    MPI_OK(MPI_Group_range_incl(g, 1, ranges, &even));
    for (int i = 0; i < ITER / 4; i++) {
        MPI_Comm c;
        MPI_OK(MPI_Comm_dup(parent[t], &c));
        check_comm(c, t, "Comm_dup", i);
        MPI_OK(MPI_Comm_free(&c));
        if (mt_rank % 2 == 0) {
            MPI_OK(MPI_Comm_create_group(parent[t], even, 0, &c));
            check_comm(c, t, "Comm_create_group of the even ranks", i);
            MPI_OK(MPI_Comm_free(&c));
        }
        MPI_OK(MPI_Comm_split(parent[t], mt_rank % 2, mt_rank, &c));
        check_comm(c, t, "Comm_split after the group", i);
        MPI_OK(MPI_Comm_free(&c));
    }
    MPI_OK(MPI_Group_free(&even));
    MPI_OK(MPI_Group_free(&g));
}

static void subset_then_whole(int t)
{
    MPI_Group world, sub;
    int ranges[1][3] = { { 0, nranks / 2, 1 } };
    unsigned seed = (unsigned)(mt_rank * NTHREADS + t);
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_OK(MPI_Group_range_incl(world, 1, ranges, &sub));
    for (int i = 0; i < ITER; i++) {
        MPI_Comm c;
        struct timespec ts = { 0, (long)(rand_r(&seed) % 200) * 1000 };
        nanosleep(&ts, NULL);
        if (mt_rank <= nranks / 2) {
            MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, sub, t, &c));
            check_comm(c, t, "Comm_create_group of the subset", i);
            MPI_OK(MPI_Comm_free(&c));
        }
        ts.tv_nsec = (long)(rand_r(&seed) % 200) * 1000;
        nanosleep(&ts, NULL);
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, world, t, &c));
        check_comm(c, t, "Comm_create_group of the whole after the subset", i);
        MPI_OK(MPI_Comm_free(&c));
    }
    MPI_OK(MPI_Group_free(&sub));
    MPI_OK(MPI_Group_free(&world));
}

/* Every member of both groups adds thread * 1000000 + its rank; an
 * Allreduce on an intercommunicator gives the remote group's sum. */
static void check_inter(MPI_Comm c, int t, const char *how, int i)
{
    int rn;
    MPI_OK(MPI_Comm_remote_size(c, &rn));
    long mine = (long)t * 1000000 + mt_rank, sum = -1, want = 0;
    for (int r = 0; r < nranks; r++)
        if ((r < nranks / 2) != (mt_rank < nranks / 2))
            want += (long)t * 1000000 + r;
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == want, "thread %d, %s %d: Allreduce over %d remote ranks gave %ld, expected %ld (another thread's "
          "context?)", t, how, i, rn, sum, want);
}

static void inter_among_dups(int t)
{
    for (int i = 0; i < ITER / 2; i++) {
        MPI_Comm c, local, inter, merged, split;
        if (t % 2 || nranks < 2) {
            MPI_OK(MPI_Comm_dup(parent[t], &c));
            check_comm(c, t, "Comm_dup among intercommunicators", i);
            MPI_OK(MPI_Comm_free(&c));
            continue;
        }
        int low = mt_rank < nranks / 2;
        MPI_OK(MPI_Comm_split(parent[t], low, mt_rank, &local));
        MPI_OK(MPI_Intercomm_create(local, 0, parent[t], low ? nranks / 2 : 0, t, &inter));
        check_inter(inter, t, "Intercomm_create", i);
        MPI_OK(MPI_Comm_split(inter, 0, mt_rank, &split));
        check_inter(split, t, "Comm_split of an intercommunicator", i);
        MPI_OK(MPI_Intercomm_merge(inter, !low, &merged));
        check_comm(merged, t, "Intercomm_merge", i);
        MPI_OK(MPI_Comm_free(&merged));
        MPI_OK(MPI_Comm_free(&split));
        MPI_OK(MPI_Comm_free(&inter));
        MPI_OK(MPI_Comm_free(&local));
    }
}

static int phase;

static void *worker(void *p)
{
    int t = (int)(intptr_t)p;
    if (phase == 1)
        own_parents(t);
    else if (phase == 2)
        one_parent_tags(t);
    else if (phase == 3)
        self_under_lock(t);
    else if (phase == 4)
        groups_among_dups(t);
    else if (phase == 5)
        subset_then_whole(t);
    else
        inter_among_dups(t);
    return NULL;
}

static void run_phase(int ph, const char *name)
{
    pthread_t th[NTHREADS];
    double t0 = MPI_Wtime();
    phase = ph;
    for (int t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("phase %d (%s): passed in %.2f s\n", ph, name, MPI_Wtime() - t0);
}

int main(int argc, char **argv)
{
    int provided = -1, flag = 0;
    void *ub;
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag, "no MPI_TAG_UB");
    tag_ub = *(int *)ub;
    for (int t = 0; t < NTHREADS; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent[t]));
    run_phase(1, "Comm_dup, Comm_split, Comm_create from each thread's own parent");
    run_phase(2, "Comm_create_group on one parent, a tag per thread");
    run_phase(3, "a dup of MPI_COMM_SELF under a lock");
    run_phase(4, "Comm_create_group of the even ranks among dups and splits");
    run_phase(5, "Comm_create_group of a subset, then of the whole, a tag per thread");
    run_phase(6, "Intercomm_create, split and merge among dups");
    for (int t = 0; t < NTHREADS; t++)
        MPI_OK(MPI_Comm_free(&parent[t]));
    if (mt_rank == 0)
        printf("test_mpi_comm_threads: %d ranks x %d threads: all checks passed\n", nranks, NTHREADS);
    MPI_OK(MPI_Finalize());
    return 0;
}
