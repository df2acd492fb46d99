/*
 * The small MPI-4.0/4.1 additions: Remove_error_class/code/string and the
 * order they must come in, Status_get/set_source/tag/error,
 * Info_get_string's length protocol, Info_create_env, Type_get_value_index,
 * Comm_idup_with_info and Comm_get_info on its result, Get_hw_resource_info.
 */
#include "mpi_test.h"

static void check_error_removal(void)
{
    int cls, code, rc, n;
    char s[MPI_MAX_ERROR_STRING];
    MPI_OK(MPI_Add_error_class(&cls));
    MPI_OK(MPI_Add_error_code(cls, &code));
    MPI_OK(MPI_Add_error_string(code, "my code"));
    MPI_OK(MPI_Add_error_string(cls, "my class"));
    /* MPI-4.1 9.5: the string before its code, the codes before their class. */
    rc = MPI_Remove_error_code(code);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "removing a code with a string: class %d", mt_class(rc));
    rc = MPI_Remove_error_class(cls);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "removing a class with a string and a code: class %d", mt_class(rc));
    MPI_OK(MPI_Remove_error_string(code));
    MPI_OK(MPI_Error_string(code, s, &n));
    CHECK(n == 0 && s[0] == '\0', "the removed string is still \"%s\"", s);
    rc = MPI_Remove_error_string(code);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "removing a string twice: class %d", mt_class(rc));
    rc = MPI_Remove_error_class(cls);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "removing a class with a string: class %d", mt_class(rc));
    MPI_OK(MPI_Remove_error_string(cls));
    rc = MPI_Remove_error_class(cls);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "removing a class that has a code: class %d", mt_class(rc));
    rc = MPI_Remove_error_class(code);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "Remove_error_class of a code: class %d", mt_class(rc));
    MPI_OK(MPI_Remove_error_code(code));
    rc = MPI_Error_string(code, s, &n);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "Error_string of a removed code: class %d", mt_class(rc));
    MPI_OK(MPI_Remove_error_class(cls));
    rc = MPI_Add_error_code(cls, &code);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "a code in a removed class: class %d", mt_class(rc));
    rc = MPI_Remove_error_class(MPI_ERR_ARG);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "removing a predefined class: class %d", mt_class(rc));
    rc = MPI_Remove_error_code(MPI_ERR_OTHER);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "removing a predefined code: class %d", mt_class(rc));
}

static void check_status(void)
{
    MPI_Status st;
    int v = 0, rc;
    MPI_OK(MPI_Status_set_source(&st, 3));
    MPI_OK(MPI_Status_set_tag(&st, 77));
    MPI_OK(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 77 && st.MPI_ERROR == MPI_ERR_TRUNCATE, "the setters wrote %d %d %d",
          st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    MPI_OK(MPI_Status_get_source(&st, &v));
    CHECK(v == 3, "source %d", v);
    MPI_OK(MPI_Status_get_tag(&st, &v));
    CHECK(v == 77, "tag %d", v);
    MPI_OK(MPI_Status_get_error(&st, &v));
    CHECK(v == MPI_ERR_TRUNCATE, "error %d", v);
    rc = MPI_Status_get_tag(MPI_STATUS_IGNORE, &v);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "MPI_STATUS_IGNORE: class %d", mt_class(rc));
    rc = MPI_Status_set_source(NULL, 1);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "NULL status: class %d", mt_class(rc));
}

static void check_info(int argc, char **argv)
{
    MPI_Info info;
    char v[16];
    int len, flag, rc;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "k", "0123456789"));
    len = 0;
    MPI_OK(MPI_Info_get_string(info, "k", &len, NULL, &flag));
    CHECK(flag && len == 11, "length query: flag %d len %d, expected 11", flag, len);
    len = 5;
    MPI_OK(MPI_Info_get_string(info, "k", &len, v, &flag));
    CHECK(flag && len == 11 && strcmp(v, "0123") == 0, "truncated: \"%s\" len %d", v, len);
    len = sizeof(v);
    MPI_OK(MPI_Info_get_string(info, "k", &len, v, &flag));
    CHECK(flag && len == 11 && strcmp(v, "0123456789") == 0, "whole: \"%s\" len %d", v, len);
    len = 7;
    MPI_OK(MPI_Info_get_string(info, "absent", &len, v, &flag));
    CHECK(!flag && len == 7, "absent key: flag %d len %d", flag, len);
    len = -1;
    rc = MPI_Info_get_string(info, "k", &len, v, &flag);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "negative buflen: class %d", mt_class(rc));
    rc = MPI_Info_get_string(MPI_INFO_NULL, "k", &len, v, &flag);
    CHECK(mt_class(rc) == MPI_ERR_INFO, "MPI_INFO_NULL: class %d", mt_class(rc));
    MPI_OK(MPI_Info_free(&info));

    char *args[] = { "/bin/prog", "a", "bc", NULL };
    char val[MPI_MAX_INFO_VAL];
    MPI_OK(MPI_Info_create_env(3, args, &info));
    MPI_OK(MPI_Info_get(info, "command", MPI_MAX_INFO_VAL - 1, val, &flag));
    CHECK(flag && strcmp(val, "/bin/prog") == 0, "create_env command \"%s\"", flag ? val : "");
    MPI_OK(MPI_Info_get(info, "argv", MPI_MAX_INFO_VAL - 1, val, &flag));
    CHECK(flag && strcmp(val, "a bc") == 0, "create_env argv \"%s\"", flag ? val : "");
    MPI_OK(MPI_Info_get(info, "maxprocs", MPI_MAX_INFO_VAL - 1, val, &flag));
    char env[MPI_MAX_INFO_VAL];
    int eflag;
    MPI_OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL - 1, env, &eflag));
    CHECK(flag && eflag && strcmp(val, env) == 0, "create_env maxprocs \"%s\", MPI_INFO_ENV \"%s\"", val, env);
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Info_create_env(0, NULL, &info));
    MPI_OK(MPI_Info_free(&info));
    rc = MPI_Info_create_env(-1, argv, &info);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "negative argc: class %d", mt_class(rc));
    (void)argc;
}

static void check_value_index(void)
{
    MPI_Datatype t;
    MPI_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
    CHECK(t == MPI_DOUBLE_INT, "(double, int) gave 0x%x", (unsigned)t);
    MPI_OK(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t));
    CHECK(t == MPI_2INT, "(int, int) gave 0x%x", (unsigned)t);
    MPI_OK(MPI_Type_get_value_index(MPI_REAL, MPI_REAL, &t));
    CHECK(t == MPI_2REAL, "(REAL, REAL) gave 0x%x", (unsigned)t);
    MPI_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_LONG, &t));
    CHECK(t == MPI_DATATYPE_NULL, "(double, long) has no pair type, gave 0x%x", (unsigned)t);
    int rc = MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL: class %d", mt_class(rc));
}

static void check_idup_with_info(int rank, int np)
{
    MPI_Info info, used;
    MPI_Comm c;
    MPI_Request r;
    int nkeys = -1, sum = 0;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MPI_OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &c, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == np * (np - 1) / 2, "allreduce on the duplicate: %d", sum);
    /* rdmach acts on no assertion: none is "in effect". */
    MPI_OK(MPI_Comm_get_info(c, &used));
    MPI_OK(MPI_Info_get_nkeys(used, &nkeys));
    CHECK(nkeys == 0, "Comm_get_info of the duplicate has %d keys, expected none", nkeys);
    MPI_OK(MPI_Info_free(&used));
    MPI_OK(MPI_Comm_free(&c));
    int rc = MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c, NULL);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "NULL request: class %d", mt_class(rc));
}

static void check_hw_info(int np)
{
    MPI_Info hw;
    char v[MPI_MAX_INFO_VAL];
    int flag = 0;
    MPI_OK(MPI_Get_hw_resource_info(&hw));
    MPI_OK(MPI_Info_get(hw, "mpi_shared_memory_size", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(flag && atoi(v) == np, "mpi_shared_memory_size \"%s\", expected %d (one machine)", flag ? v : "", np);
    MPI_OK(MPI_Info_free(&hw));
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    mt_rank = rank;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    check_error_removal();
    check_status();
    check_info(argc, argv);
    check_value_index();
    check_idup_with_info(rank, np);
    check_hw_info(np);
    MPI_OK(MPI_Finalize());
    /* No session was open: MPI_Finalize left the device idle, and a session
     * starts the library again (test_mpi_session_reinit uses it). */
    MPI_Session s;
    int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    if (rc != MPI_SUCCESS || MPI_Session_finalize(&s) != MPI_SUCCESS) {
        fprintf(stderr, "[rank %d] Session_init after MPI_Finalize gave class %d\n", rank, mt_class(rc));
        return 1;
    }
    if (rank == 0)
        printf("mpi4 misc np %d: error removal, status, info strings, value index, idup_with_info ok\n", np);
    return 0;
}
