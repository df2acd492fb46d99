/*
 * Info objects, MPI_INFO_ENV, communicator info, MPI_Alloc_mem/Free_mem and
 * the thread inquiries: values round-trip, replacing a key keeps its place,
 * Info_get truncates to valuelen, dup is deep, and every argument error gets
 * its class (MPI_ERRORS_RETURN).
 */
#include <stdint.h>
#include <unistd.h>
#include "mpi_test.h"

static void test_info(void)
{
    MPI_Info info, dup;
    int n, flag, len;
    char key[MPI_MAX_INFO_KEY], val[MPI_MAX_INFO_VAL];
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 0, "a new info has %d keys", n);
    MPI_OK(MPI_Info_set(info, "alpha", "1"));
    MPI_OK(MPI_Info_set(info, "beta", "two"));
    MPI_OK(MPI_Info_set(info, "gamma", "three"));
    MPI_OK(MPI_Info_set(info, "alpha", "uno"));          /* replaced in place */
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 3, "%d keys", n);
    static const char *const order[] = { "alpha", "beta", "gamma" };
    for (int i = 0; i < 3; i++) {
        MPI_OK(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, order[i]) == 0, "key %d is %s", i, key);
    }
    MPI_OK(MPI_Info_get(info, "alpha", MPI_MAX_INFO_VAL - 1, val, &flag));
    CHECK(flag && strcmp(val, "uno") == 0, "alpha = %s", val);
    MPI_OK(MPI_Info_get_valuelen(info, "gamma", &len, &flag));
    CHECK(flag && len == 5, "valuelen of gamma %d", len);
    memset(val, 'x', sizeof(val));
    MPI_OK(MPI_Info_get(info, "gamma", 3, val, &flag));
    CHECK(flag && strcmp(val, "thr") == 0, "truncated gamma = %s", val);
    MPI_OK(MPI_Info_get(info, "delta", MPI_MAX_INFO_VAL - 1, val, &flag));
    CHECK(!flag, "delta is found");
    MPI_OK(MPI_Info_get_valuelen(info, "delta", &len, &flag));
    CHECK(!flag, "delta has a length");

    MPI_OK(MPI_Info_dup(info, &dup));
    MPI_OK(MPI_Info_delete(info, "beta"));
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 2, "%d keys after delete", n);
    MPI_OK(MPI_Info_get_nthkey(info, 1, key));
    CHECK(strcmp(key, "gamma") == 0, "key 1 after delete is %s", key);
    MPI_OK(MPI_Info_get(dup, "beta", MPI_MAX_INFO_VAL - 1, val, &flag));
    CHECK(flag && strcmp(val, "two") == 0, "the dup lost beta");

    /* The longest key and value MPI allows. */
    char lkey[MPI_MAX_INFO_KEY], lval[MPI_MAX_INFO_VAL];
    memset(lkey, 'k', sizeof(lkey) - 1);
    lkey[sizeof(lkey) - 1] = '\0';
    memset(lval, 'v', sizeof(lval) - 1);
    lval[sizeof(lval) - 1] = '\0';
    MPI_OK(MPI_Info_set(info, lkey, lval));
    MPI_OK(MPI_Info_get(info, lkey, MPI_MAX_INFO_VAL - 1, val, &flag));
    CHECK(flag && strcmp(val, lval) == 0, "the longest value did not round-trip");

    /* Errors. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char longkey[MPI_MAX_INFO_KEY + 8];
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    CHECK(mt_class(MPI_Info_set(info, longkey, "v")) == MPI_ERR_INFO_KEY, "a key too long");
    CHECK(mt_class(MPI_Info_set(info, "", "v")) == MPI_ERR_INFO_KEY, "an empty key");
    CHECK(mt_class(MPI_Info_set(info, "k", "")) == MPI_ERR_INFO_VALUE, "an empty value");
    CHECK(mt_class(MPI_Info_delete(info, "nothere")) == MPI_ERR_INFO_NOKEY, "deleting a missing key");
    CHECK(mt_class(MPI_Info_get_nthkey(info, 3, key)) == MPI_ERR_ARG, "key 3 of 3");
    CHECK(mt_class(MPI_Info_get_nkeys(MPI_INFO_NULL, &n)) == MPI_ERR_INFO, "MPI_INFO_NULL");
    CHECK(mt_class(MPI_Info_set(MPI_INFO_ENV, "x", "y")) == MPI_ERR_INFO, "changing MPI_INFO_ENV");
    MPI_Info env = MPI_INFO_ENV;
    CHECK(mt_class(MPI_Info_free(&env)) == MPI_ERR_INFO, "freeing MPI_INFO_ENV");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "Info_free did not set MPI_INFO_NULL");
    MPI_OK(MPI_Info_free(&dup));

    /* MPI_INFO_ENV: maxprocs is the job size. */
    int size;
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL - 1, val, &flag));
    CHECK(flag && atoi(val) == size, "maxprocs = %s", flag ? val : "(absent)");

    /* Communicator info: hints are accepted; none is in use. */
    MPI_Comm c;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
    MPI_OK(MPI_Comm_set_info(c, info));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Comm_get_info(c, &info));
    MPI_OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == 0, "Comm_get_info reports %d hints in use", n);
    MPI_OK(MPI_Info_free(&info));
    int sum = 0;
    MPI_OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2, "sum over the dup %d", sum);
    MPI_OK(MPI_Comm_free(&c));
}

static void test_alloc_mem(void)
{
    long page = sysconf(_SC_PAGESIZE);
    static const MPI_Aint sizes[] = { 0, 1, 4095, 4096, 1 << 20 };
    void *p[5];
    for (int i = 0; i < 5; i++) {
        MPI_OK(MPI_Alloc_mem(sizes[i], MPI_INFO_NULL, &p[i]));
        CHECK(p[i] && (uintptr_t)p[i] % (uintptr_t)page == 0, "Alloc_mem(%ld) = %p is not page-aligned", (long)sizes[i],
              p[i]);
        memset(p[i], 0xab, (size_t)sizes[i]);
    }
    for (int i = 0; i < 5; i++)
        CHECK(sizes[i] == 0 || ((unsigned char *)p[i])[sizes[i] - 1] == 0xab, "region %d was overwritten", i);
    for (int i = 4; i >= 0; i--)
        MPI_OK(MPI_Free_mem(p[i]));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    void *m = malloc(64), *q;
    CHECK(mt_class(MPI_Free_mem(m)) == MPI_ERR_BASE, "freeing malloc'd memory");
    free(m);
    CHECK(mt_class(MPI_Alloc_mem(-1, MPI_INFO_NULL, &q)) == MPI_ERR_SIZE, "a negative size");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_threads(void)
{
    int level, main_flag;
    MPI_OK(MPI_Query_thread(&level));
    CHECK(level == MPI_THREAD_SERIALIZED, "Query_thread = %d after Init_thread(SERIALIZED)", level);
    MPI_OK(MPI_Is_thread_main(&main_flag));
    CHECK(main_flag, "the main thread is not main");
}

int main(int argc, char **argv)
{
    int provided;
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    CHECK(provided == MPI_THREAD_SERIALIZED, "provided %d", provided);
    test_info();
    test_alloc_mem();
    test_threads();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("test_mpi_info: OK\n");
    MPI_OK(MPI_Finalize());
    return 0;
}
