/*
 * Environment, info, error handling and error codes by the letter of
 * MPI-3.1 (the version rdmach reports) chapters 8 and 9 and §12.4:
 *   - every predefined error class: MPI_Error_class maps it to itself,
 *     MPI_Error_string gives a non-empty text, the class is at most
 *     MPI_ERR_LASTCODE; an invalid code is MPI_ERR_ARG;
 *   - MPI_Add_error_class / code / string: new classes above the predefined
 *     ones, codes whose class is theirs, strings set and replaced (""
 *     before), the predefined codes refused a string; MPI_LASTUSEDCODE
 *     (MPI-4.1 §9.5: "the current maximum error class including the
 *     user-defined ones", never below MPI_ERR_LASTCODE) follows every new
 *     class and code; many classes and codes (more than the 7 class bits
 *     of an error code hold), each distinct and above MPI_ERR_LASTCODE,
 *     with their classes and strings, removed (MPI 4.1 §9.5) and added
 *     again round after round, MPI_LASTUSEDCODE back to what it was once
 *     they are gone;
 *   - error handlers on communicators and windows: create, set, get (the
 *     handler set, inherited by Comm_dup), free while in use (still called),
 *     call_errhandler (the user function sees the object and the code),
 *     a handler of the wrong kind refused;
 *   - info: MPI_INFO_ENV keys (command, argv, maxprocs, host, arch, wdir;
 *     no thread_level, which MPI gives the level asked for when the
 *     program was started, and rdmach's launchers ask for none) with their
 *     values; MPI_Info_create_env the same before MPI_Init, after it and
 *     after MPI_Finalize, and infos made before MPI_Init still read, copied
 *     and freed after MPI_Finalize (MPI 4.1 11.4.1 allows the info calls
 *     then); Info_get truncation at valuelen,
 *     Info_get_nthkey out of range, Info_delete of a missing key
 *     (MPI_ERR_INFO_NOKEY), calls on MPI_INFO_NULL (MPI_ERR_INFO or ARG);
 *   - Get_version, Get_library_version, Get_processor_name, Wtime/Wtick,
 *     MPI_WTIME_IS_GLOBAL, Initialized/Finalized, Query_thread,
 *     Is_thread_main, Alloc_mem/Free_mem (MPI_ERR_NO_MEM for an absurd
 *     size), Pcontrol, Aint_add/Aint_diff and Get_address;
 *   - process management's errors: Comm_get_parent is MPI_COMM_NULL, spawn
 *     of no executable MPI_ERR_SPAWN (errcodes too), ports and names their
 *     error classes, invalid roots MPI_ERR_ROOT first (tests/mpi/dyn.cmake
 *     has the rest).
 *
 * Mode "abort N": rank np-1 calls MPI_Abort(MPI_COMM_WORLD, N), the others
 * wait in a barrier; the launcher must exit with N (checked by ctest).
 */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
#include "mpi_test.h"

static int me, np, provided;
static char **g_argv;
static int g_argc;

static int seen_calls, seen_code;
static MPI_Comm seen_comm;
static MPI_Win seen_win;

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
    seen_calls++;
    seen_comm = *comm;
    seen_code = *code;
}

static void win_handler(MPI_Win *win, int *code, ...)
{
    seen_calls++;
    seen_win = *win;
    seen_code = *code;
}

static void error_classes(void)
{
    static const int classes[] = {
        MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM, MPI_ERR_RANK,
        MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_TOPOLOGY, MPI_ERR_DIMS, MPI_ERR_ARG,
        MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN, MPI_ERR_IN_STATUS, MPI_ERR_PENDING,
        MPI_ERR_KEYVAL, MPI_ERR_NO_MEM, MPI_ERR_BASE, MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY,
        MPI_ERR_SPAWN, MPI_ERR_PORT, MPI_ERR_SERVICE, MPI_ERR_NAME, MPI_ERR_WIN, MPI_ERR_SIZE, MPI_ERR_DISP,
        MPI_ERR_INFO, MPI_ERR_LOCKTYPE, MPI_ERR_ASSERT, MPI_ERR_RMA_CONFLICT, MPI_ERR_RMA_SYNC, MPI_ERR_RMA_RANGE,
        MPI_ERR_RMA_ATTACH, MPI_ERR_RMA_SHARED, MPI_ERR_RMA_FLAVOR, MPI_ERR_FILE, MPI_ERR_NOT_SAME, MPI_ERR_AMODE,
        MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE_EXISTS,
        MPI_ERR_BAD_FILE, MPI_ERR_ACCESS, MPI_ERR_NO_SPACE, MPI_ERR_QUOTA, MPI_ERR_READ_ONLY, MPI_ERR_FILE_IN_USE,
        MPI_ERR_DUP_DATAREP, MPI_ERR_CONVERSION, MPI_ERR_IO, MPI_T_ERR_MEMORY, MPI_T_ERR_NOT_INITIALIZED,
        MPI_T_ERR_CANNOT_INIT, MPI_T_ERR_INVALID_INDEX, MPI_T_ERR_INVALID_ITEM, MPI_T_ERR_INVALID_HANDLE,
        MPI_T_ERR_OUT_OF_HANDLES, MPI_T_ERR_OUT_OF_SESSIONS, MPI_T_ERR_INVALID_SESSION,
        MPI_T_ERR_CVAR_SET_NOT_NOW, MPI_T_ERR_CVAR_SET_NEVER, MPI_T_ERR_PVAR_NO_STARTSTOP,
        MPI_T_ERR_PVAR_NO_WRITE, MPI_T_ERR_PVAR_NO_ATOMIC, MPI_T_ERR_INVALID_NAME, MPI_T_ERR_INVALID,
        MPI_ERR_LASTCODE,
    };
    int n = (int)(sizeof(classes) / sizeof(classes[0])) - 1, maxc = 0;
    char s[MPI_MAX_ERROR_STRING];
    for (int i = 0; i < n; i++) {
        int c = classes[i], cls = -1, len = -1;
        MPI_OK(MPI_Error_class(c, &cls));
        CHECK(cls == c, "MPI_Error_class(%d) = %d", c, cls);
        CHECK(c <= MPI_ERR_LASTCODE, "class %d above MPI_ERR_LASTCODE", c);
        MPI_OK(MPI_Error_string(c, s, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(s) == len, "MPI_Error_string(%d): length %d, "
              "\"%s\"", c, len, s);
        if (c > maxc)
            maxc = c;
    }
    int len, cls;
    CHECK(mt_class(MPI_Error_string(-5, s, &len)) == MPI_ERR_ARG, "Error_string(-5) accepted");
    CHECK(mt_class(MPI_Error_class(-1, &cls)) == MPI_ERR_ARG, "Error_class(-1) accepted");

    /* user classes, codes and strings */
    int *last, flag, c1, c2, code1, code2, code3;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= maxc, "MPI_LASTUSEDCODE %d below the last predefined class %d", flag ? *last : -1, maxc);
    CHECK(flag && *last >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d below MPI_ERR_LASTCODE", flag ? *last : -1);
    MPI_OK(MPI_Add_error_class(&c1));
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last == c1, "MPI_LASTUSEDCODE %d after Add_error_class gave %d (the maximum class)",
          flag ? *last : -1, c1);
    MPI_OK(MPI_Add_error_class(&c2));
    CHECK(c1 > maxc && c2 > maxc && c1 != c2, "Add_error_class gave %d and %d (predefined up to %d)", c1, c2, maxc);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last == (c1 > c2 ? c1 : c2) && *last >= MPI_ERR_LASTCODE,
          "MPI_LASTUSEDCODE %d after classes %d and %d (MPI_ERR_LASTCODE %d)", flag ? *last : -1, c1, c2,
          MPI_ERR_LASTCODE);
    MPI_OK(MPI_Add_error_code(c1, &code1));
    MPI_OK(MPI_Add_error_code(c1, &code2));
    MPI_OK(MPI_Add_error_code(MPI_ERR_OTHER, &code3));
    CHECK(code1 != code2 && code1 != c1 && code1 >= MPI_ERR_LASTCODE && code3 >= MPI_ERR_LASTCODE,
          "Add_error_code gave %d, %d, %d (at least MPI_ERR_LASTCODE)", code1, code2, code3);
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= code1 && *last >= code2 && *last >= code3 && *last >= c2,
          "MPI_LASTUSEDCODE %d below a code in use (%d, %d, %d)", flag ? *last : -1, code1, code2, code3);
    MPI_OK(MPI_Error_class(code1, &cls));
    CHECK(cls == c1, "the class of a user code is %d, expected %d", cls, c1);
    MPI_OK(MPI_Error_class(code3, &cls));
    CHECK(cls == MPI_ERR_OTHER, "a user code of MPI_ERR_OTHER has class %d", cls);
    MPI_OK(MPI_Error_class(c2, &cls));
    CHECK(cls == c2, "a user class is its own class: %d", cls);
    MPI_OK(MPI_Error_string(code1, s, &len));
    CHECK(len == 0 && s[0] == '\0', "a code without a string: \"%s\"", s);
    MPI_OK(MPI_Add_error_string(code1, "first text"));
    MPI_OK(MPI_Add_error_string(code1, "the user's own text"));
    MPI_OK(MPI_Add_error_string(c2, "class two"));
    MPI_OK(MPI_Error_string(code1, s, &len));
    CHECK(strcmp(s, "the user's own text") == 0 && len == (int)strlen(s), "user code string \"%s\"", s);
    MPI_OK(MPI_Error_string(c2, s, &len));
    CHECK(strcmp(s, "class two") == 0, "user class string \"%s\"", s);
    CHECK(mt_class(MPI_Add_error_string(MPI_ERR_OTHER, "no")) == MPI_ERR_ARG, "a predefined class took a string");
    CHECK(mt_class(MPI_Add_error_code(MPI_ERR_LASTCODE, &code3)) == MPI_ERR_ARG, "a code of a class that is none");
    char longs[MPI_MAX_ERROR_STRING + 10];
    memset(longs, 'x', sizeof(longs) - 1);
    longs[sizeof(longs) - 1] = '\0';
    CHECK(mt_class(MPI_Add_error_string(code2, longs)) == MPI_ERR_ARG, "a string longer than MPI_MAX_ERROR_STRING");

    /* a user code through an error handler */
    MPI_Errhandler eh;
    MPI_OK(MPI_Comm_create_errhandler(comm_handler, &eh));
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_set_errhandler(dup, eh));
    seen_calls = 0;
    MPI_OK(MPI_Comm_call_errhandler(dup, code2));
    CHECK(seen_calls == 1 && seen_code == code2 && seen_comm == dup, "Comm_call_errhandler: calls %d code %d",
          seen_calls, seen_code);
    MPI_OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free left the handle");
    MPI_OK(MPI_Comm_free(&dup));
}

/* MPI_LASTUSEDCODE's value: "the current maximum error class including
 * the user-defined ones" (MPI 4.1 §9.5). */
static int lastusedcode(void)
{
    int *last, flag;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag, "MPI_LASTUSEDCODE not set");
    return *last;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Every value added: above MPI_ERR_LASTCODE, no two alike, the largest at
 * most MPI_LASTUSEDCODE. */
static void check_values(int *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), int_cmp);
    CHECK(v[0] > MPI_ERR_LASTCODE, "a user class or code %d is not above MPI_ERR_LASTCODE", v[0]);
    for (int i = 1; i < n; i++)
        CHECK(v[i] != v[i - 1], "two user classes or codes are both %d", v[i]);
    CHECK(lastusedcode() >= v[n - 1], "MPI_LASTUSEDCODE %d below the code %d in use", lastusedcode(), v[n - 1]);
}

/* Classes and codes by the hundred (MPI 4.1 §9.5 sets no limit; the
 * class bits of a code hold 127 classes, fewer than the program may add),
 * with strings, then removed, round after round. */
#define MANY_CLASSES 600
#define MANY_CODES 3          /* per class, and one more of a predefined class */
static void many_error_classes(void)
{
    static const int predefined[] = { MPI_ERR_ARG, MPI_ERR_OTHER, MPI_ERR_IO, MPI_ERR_KEYVAL };
    static int cls[MANY_CLASSES], code[MANY_CLASSES][MANY_CODES + 1], all[MANY_CLASSES * (MANY_CODES + 2)];
    char want[MPI_MAX_ERROR_STRING], s[MPI_MAX_ERROR_STRING];
    int before = lastusedcode(), len, got;
    for (int round = 0; round < 3; round++) {
        int n = 0;
        for (int i = 0; i < MANY_CLASSES; i++) {
            MPI_OK(MPI_Add_error_class(&cls[i]));
            all[n++] = cls[i];
            snprintf(want, sizeof(want), "class %d of round %d", i, round);
            MPI_OK(MPI_Add_error_string(cls[i], want));
            for (int j = 0; j <= MANY_CODES; j++) {
                int of = j < MANY_CODES ? cls[i] : predefined[i % 4];
                MPI_OK(MPI_Add_error_code(of, &code[i][j]));
                all[n++] = code[i][j];
                snprintf(want, sizeof(want), "code %d of class %d, round %d", j, i, round);
                MPI_OK(MPI_Add_error_string(code[i][j], want));
            }
        }
        for (int i = 0; i < MANY_CLASSES; i++) {
            MPI_OK(MPI_Error_class(cls[i], &got));
            CHECK(got == cls[i], "user class %d (number %d) has class %d", cls[i], i, got);
            MPI_OK(MPI_Error_string(cls[i], s, &len));
            snprintf(want, sizeof(want), "class %d of round %d", i, round);
            CHECK(strcmp(s, want) == 0 && len == (int)strlen(want), "class %d's string \"%s\"", i, s);
            for (int j = 0; j <= MANY_CODES; j++) {
                MPI_OK(MPI_Error_class(code[i][j], &got));
                CHECK(got == (j < MANY_CODES ? cls[i] : predefined[i % 4]), "code %d of class %d has class %d", j,
                      i, got);
                MPI_OK(MPI_Error_string(code[i][j], s, &len));
                snprintf(want, sizeof(want), "code %d of class %d, round %d", j, i, round);
                CHECK(strcmp(s, want) == 0, "code %d of class %d: string \"%s\"", j, i, s);
            }
        }
        check_values(all, n);
        /* strings, then codes, then classes: the order MPI_Remove_* requires */
        for (int i = MANY_CLASSES - 1; i >= 0; i--) {
            for (int j = 0; j <= MANY_CODES; j++) {
                MPI_OK(MPI_Remove_error_string(code[i][j]));
                MPI_OK(MPI_Remove_error_code(code[i][j]));
            }
            MPI_OK(MPI_Remove_error_string(cls[i]));
            MPI_OK(MPI_Remove_error_class(cls[i]));
        }
        CHECK(mt_class(MPI_Error_class(cls[0], &got)) == MPI_ERR_ARG, "a removed class is still valid");
        CHECK(mt_class(MPI_Error_string(code[1][0], s, &len)) == MPI_ERR_ARG, "a removed code is still valid");
        CHECK(lastusedcode() == before, "MPI_LASTUSEDCODE %d once the classes added were removed, %d before",
              lastusedcode(), before);
    }
}

static void errhandlers(void)
{
    MPI_Errhandler eh, got, weh;
    MPI_Comm a, b;
    MPI_OK(MPI_Comm_create_errhandler(comm_handler, &eh));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_get_errhandler(a, &got));
    CHECK(got == MPI_ERRORS_RETURN, "a dup of a comm with MPI_ERRORS_RETURN got another handler");
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_OK(MPI_Comm_set_errhandler(a, eh));
    MPI_OK(MPI_Comm_get_errhandler(a, &got));
    CHECK(got == eh, "Comm_get_errhandler is not the handler set");
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_OK(MPI_Errhandler_free(&eh));   /* still attached to a: stays alive */
    MPI_OK(MPI_Comm_dup(a, &b));        /* inherited */
    seen_calls = 0;
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, np + 5, 0, b);
    CHECK(seen_calls == 1 && seen_comm == b && mt_class(seen_code) == MPI_ERR_RANK && rc == seen_code,
          "an error on a dup of a comm with a freed user handler: calls %d class %d", seen_calls,
          mt_class(seen_code));
    MPI_OK(MPI_Comm_free(&b));
    MPI_OK(MPI_Comm_free(&a));

    /* windows */
    int *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_OK(MPI_Win_get_errhandler(win, &got));
    CHECK(got == MPI_ERRORS_ARE_FATAL, "a new window's handler is not MPI_ERRORS_ARE_FATAL");
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_OK(MPI_Win_create_errhandler(win_handler, &weh));
    MPI_OK(MPI_Win_set_errhandler(win, weh));
    MPI_OK(MPI_Win_get_errhandler(win, &got));
    CHECK(got == weh, "Win_get_errhandler is not the handler set");
    MPI_OK(MPI_Errhandler_free(&got));
    seen_calls = 0;
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_RMA_SYNC));
    CHECK(seen_calls == 1 && seen_win == win && seen_code == MPI_ERR_RMA_SYNC, "Win_call_errhandler: calls %d",
          seen_calls);
    seen_calls = 0;
    rc = MPI_Win_lock(99, 0, 0, win);
    CHECK(seen_calls == 1 && mt_class(seen_code) == MPI_ERR_LOCKTYPE && rc == seen_code,
          "Win_lock with a bad lock type: handler calls %d class %d", seen_calls, mt_class(seen_code));
    /* a handler of the other kind */
    MPI_OK(MPI_Comm_create_errhandler(comm_handler, &eh));
    rc = MPI_Win_set_errhandler(win, eh);
    CHECK(rc != MPI_SUCCESS, "Win_set_errhandler took a communicator's handler");
    rc = MPI_Comm_set_errhandler(MPI_COMM_SELF, weh);
    CHECK(rc != MPI_SUCCESS, "Comm_set_errhandler took a window's handler");
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Errhandler_free(&weh));
    MPI_OK(MPI_Win_free(&win));
    CHECK(mt_class(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL)) == MPI_ERR_ARG,
          "Comm_set_errhandler(MPI_ERRHANDLER_NULL) accepted");
}

static MPI_Info env_before_init, held;   /* made before MPI_Init, freed after MPI_Finalize */

/* a and b hold the same keys, in the same order, with the same values. */
static void same_info(MPI_Info a, MPI_Info b, const char *what)
{
    int na, nb;
    MPI_OK(MPI_Info_get_nkeys(a, &na));
    MPI_OK(MPI_Info_get_nkeys(b, &nb));
    CHECK(na == nb, "%s: %d and %d keys", what, na, nb);
    for (int i = 0; i < na && i < nb; i++) {
        char ka[MPI_MAX_INFO_KEY], kb[MPI_MAX_INFO_KEY], va[MPI_MAX_INFO_VAL], vb[MPI_MAX_INFO_VAL];
        int la = sizeof(va), lb = sizeof(vb), fa, fb;
        MPI_OK(MPI_Info_get_nthkey(a, i, ka));
        MPI_OK(MPI_Info_get_nthkey(b, i, kb));
        CHECK(strcmp(ka, kb) == 0, "%s: key %d is %s and %s", what, i, ka, kb);
        MPI_OK(MPI_Info_get_string(a, ka, &la, va, &fa));
        MPI_OK(MPI_Info_get_string(b, kb, &lb, vb, &fb));
        CHECK(fa && fb && strcmp(va, vb) == 0, "%s: %s is \"%s\" and \"%s\"", what, ka, va, vb);
    }
}

/* Before MPI_Init (MPI 4.1 11.4.1): infos to compare and free later. */
static void info_before_init(void)
{
    MPI_OK(MPI_Info_create_env(0, NULL, &env_before_init));
    int n;
    MPI_OK(MPI_Info_get_nkeys(env_before_init, &n));
    CHECK(n >= 4, "Info_create_env before MPI_Init: %d keys", n);
    MPI_OK(MPI_Info_create(&held));
    MPI_OK(MPI_Info_set(held, "made", "before MPI_Init"));
}

/* After MPI_Finalize: the same environment, and the infos still held work. */
static void info_after_finalize(void)
{
    MPI_Info env, copy;
    MPI_OK(MPI_Info_create_env(0, NULL, &env));
    same_info(env, env_before_init, "Info_create_env after MPI_Finalize and before MPI_Init");
    MPI_OK(MPI_Info_free(&env));
    char v[MPI_MAX_INFO_VAL];
    int flag, len = sizeof(v);
    MPI_OK(MPI_Info_get_string(held, "made", &len, v, &flag));
    CHECK(flag && strcmp(v, "before MPI_Init") == 0, "an info made before MPI_Init, after MPI_Finalize: %s",
          flag ? v : "(none)");
    MPI_OK(MPI_Info_dup(held, &copy));
    MPI_OK(MPI_Info_set(copy, "made", "after MPI_Finalize"));
    MPI_OK(MPI_Info_delete(copy, "made"));
    MPI_OK(MPI_Info_free(&copy));
    MPI_OK(MPI_Info_free(&held));
    MPI_OK(MPI_Info_free(&env_before_init));
    CHECK(held == MPI_INFO_NULL && env_before_init == MPI_INFO_NULL, "Info_free after MPI_Finalize left the handle");
}

static void info(void)
{
    char v[MPI_MAX_INFO_VAL], k[MPI_MAX_INFO_KEY];
    int flag, len, n;
    /* MPI_INFO_ENV */
    MPI_OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(flag && atoi(v) == np, "MPI_INFO_ENV maxprocs: %s", flag ? v : "(none)");
    /* thread_level is the level asked for at the program's start (a
     * launcher's option), not what MPI_Init_thread provided: none here */
    MPI_OK(MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(!flag, "MPI_INFO_ENV thread_level %s, though the launcher asked for no level", v);
    MPI_OK(MPI_Info_get(MPI_INFO_ENV, "arch", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(!flag || v[0], "MPI_INFO_ENV arch is empty");
    /* Info_create_env with no arguments: MPI_INFO_ENV's keys, in its order,
     * with its values, and what it gave before MPI_Init */
    MPI_Info now;
    MPI_OK(MPI_Info_create_env(0, NULL, &now));
    same_info(now, MPI_INFO_ENV, "Info_create_env after MPI_Init and MPI_INFO_ENV");
    same_info(now, env_before_init, "Info_create_env after and before MPI_Init");
    MPI_OK(MPI_Info_free(&now));
    MPI_OK(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(flag && strcmp(v, g_argv[0]) == 0, "MPI_INFO_ENV command: %s, argv[0] %s", flag ? v : "(none)",
          g_argv[0]);
    MPI_OK(MPI_Info_get(MPI_INFO_ENV, "argv", MPI_MAX_INFO_VAL - 1, v, &flag));
    char want[MPI_MAX_INFO_VAL] = "";
    for (int i = 1; i < g_argc; i++)
        snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", i > 1 ? " " : "", g_argv[i]);
    CHECK((g_argc == 1 && !flag) || (flag && strcmp(v, want) == 0), "MPI_INFO_ENV argv: %s, expected %s",
          flag ? v : "(none)", want);
    MPI_OK(MPI_Info_get(MPI_INFO_ENV, "wdir", MPI_MAX_INFO_VAL - 1, v, &flag));
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof(cwd)) && flag && strcmp(v, cwd) == 0, "MPI_INFO_ENV wdir: %s", flag ? v : "(none)");
    MPI_OK(MPI_Info_get(MPI_INFO_ENV, "host", MPI_MAX_INFO_VAL - 1, v, &flag));
    CHECK(flag && v[0], "MPI_INFO_ENV host missing");
    MPI_Info env;
    MPI_OK(MPI_Info_dup(MPI_INFO_ENV, &env));
    MPI_OK(MPI_Info_get_nkeys(env, &n));
    CHECK(n >= 5, "a dup of MPI_INFO_ENV has %d keys", n);
    /* truncation at valuelen: the first valuelen characters, flag true */
    MPI_OK(MPI_Info_set(env, "long", "abcdefgh"));
    memset(v, 'Z', 16);
    MPI_OK(MPI_Info_get(env, "long", 3, v, &flag));
    CHECK(flag && strcmp(v, "abc") == 0, "Info_get with valuelen 3: \"%s\"", v);
    MPI_OK(MPI_Info_get_valuelen(env, "long", &len, &flag));
    CHECK(flag && len == 8, "Info_get_valuelen %d", len);
    MPI_OK(MPI_Info_get_valuelen(env, "nope", &len, &flag));
    CHECK(!flag, "Info_get_valuelen of a missing key: flag set");
    MPI_OK(MPI_Info_get_nkeys(env, &n));
    CHECK(mt_class(MPI_Info_get_nthkey(env, n, k)) == MPI_ERR_ARG, "Info_get_nthkey(n = nkeys) accepted");
    CHECK(mt_class(MPI_Info_get_nthkey(env, -1, k)) == MPI_ERR_ARG, "Info_get_nthkey(-1) accepted");
    MPI_OK(MPI_Info_get_nthkey(env, n - 1, k));
    CHECK(strcmp(k, "long") == 0, "the last key is %s, the one added last expected", k);
    CHECK(mt_class(MPI_Info_delete(env, "nope")) == MPI_ERR_INFO_NOKEY, "Info_delete of a missing key");
    MPI_OK(MPI_Info_delete(env, "long"));
    CHECK(mt_class(MPI_Info_delete(env, "long")) == MPI_ERR_INFO_NOKEY, "Info_delete twice");
    char lval[MPI_MAX_INFO_VAL + 8];
    memset(lval, 'v', sizeof(lval) - 1);
    lval[sizeof(lval) - 1] = '\0';
    CHECK(mt_class(MPI_Info_set(env, "k", lval)) == MPI_ERR_INFO_VALUE, "a value longer than MPI_MAX_INFO_VAL");
    MPI_OK(MPI_Info_free(&env));
    CHECK(env == MPI_INFO_NULL, "Info_free left the handle");
    int c = mt_class(MPI_Info_get_nkeys(MPI_INFO_NULL, &n));
    CHECK(c == MPI_ERR_INFO || c == MPI_ERR_ARG, "Info_get_nkeys(MPI_INFO_NULL): class %d", c);
    c = mt_class(MPI_Info_set(MPI_INFO_ENV, "x", "y"));
    CHECK(c != MPI_SUCCESS, "MPI_INFO_ENV was changed");
}

static void *thread_main_probe(void *arg)
{
    int *flag = arg;
    MPI_Is_thread_main(flag);
    return NULL;
}

static void environment(void)
{
    int v, sv, len, flag;
    MPI_OK(MPI_Get_version(&v, &sv));
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "Get_version %d.%d, mpi.h %d.%d", v, sv, MPI_VERSION,
          MPI_SUBVERSION);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_OK(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && (int)strlen(lib) == len, "Get_library_version %d", len);
    char name[MPI_MAX_PROCESSOR_NAME], host[256];
    MPI_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len, "Get_processor_name %d", len);
    gethostname(host, sizeof(host));
    /* the host's name (pretend nodes, RDMACH_VNODE_SIZE, add "-vnode<n>") */
    CHECK(strncmp(name, host, strlen(host)) == 0, "processor name %s, host %s", name, host);
    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    CHECK(tick > 0 && tick <= 1e-3, "MPI_Wtick %g", tick);
    double t1 = MPI_Wtime();
    CHECK(t1 >= t0, "MPI_Wtime went back");
    int *glob;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &glob, &flag));
    CHECK(flag && (*glob == 0 || *glob == 1), "MPI_WTIME_IS_GLOBAL");
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag, "Initialized false");
    MPI_OK(MPI_Finalized(&flag));
    CHECK(!flag, "Finalized true before MPI_Finalize");
    int q;
    MPI_OK(MPI_Query_thread(&q));
    CHECK(q == provided, "Query_thread %d, Init_thread provided %d", q, provided);
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK(flag, "Is_thread_main false on the main thread");
    if (provided >= MPI_THREAD_SERIALIZED) {
        pthread_t th;
        flag = -1;
        pthread_create(&th, NULL, thread_main_probe, &flag);
        pthread_join(th, NULL);
        CHECK(flag == 0, "Is_thread_main on another thread: %d", flag);
    }
    /* Alloc_mem / Free_mem */
    void *p = NULL;
    MPI_OK(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &p));
    memset(p, 1, 1 << 20);
    MPI_OK(MPI_Free_mem(p));
    int rc = MPI_Alloc_mem((MPI_Aint)(((uint64_t)1 << 62) - 1), MPI_INFO_NULL, &p);
    CHECK(mt_class(rc) == MPI_ERR_NO_MEM, "Alloc_mem of 2^62 bytes: class %d", mt_class(rc));
    rc = MPI_Alloc_mem(-1, MPI_INFO_NULL, &p);
    CHECK(rc != MPI_SUCCESS, "Alloc_mem(-1) succeeded");
    MPI_OK(MPI_Alloc_mem(0, MPI_INFO_NULL, &p));
    MPI_OK(MPI_Free_mem(p));
    /* Pcontrol: any level, no effect */
    for (int l = -1; l <= 3; l++)
        MPI_OK(MPI_Pcontrol(l));
    /* addresses */
    int arr[10];
    MPI_Aint a0, a7, d;
    MPI_OK(MPI_Get_address(&arr[0], &a0));
    MPI_OK(MPI_Get_address(&arr[7], &a7));
    CHECK(a7 - a0 == 7 * (MPI_Aint)sizeof(int), "Get_address difference %ld", (long)(a7 - a0));
    d = MPI_Aint_diff(a7, a0);
    CHECK(d == 7 * (MPI_Aint)sizeof(int), "Aint_diff %ld", (long)d);
    CHECK(MPI_Aint_add(a0, d) == a7, "Aint_add(a0, diff) is not a7");
    CHECK(MPI_Aint_add(MPI_Aint_add(a7, -3), 3) == a7, "Aint_add of a negative displacement");
    MPI_Aint ab;
    MPI_OK(MPI_Get_address(MPI_BOTTOM, &ab));
    CHECK(ab == 0, "Get_address(MPI_BOTTOM) = %ld", (long)ab);
}

static void dynamic(void)
{
    MPI_Comm parent = MPI_COMM_WORLD, ic = MPI_COMM_WORLD;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "Comm_get_parent of a launched process is not MPI_COMM_NULL");
    int codes[3] = { 0, 0, 0 };
    char *args[] = { "x", NULL };
    /* a command that is no executable: an error at every rank, not a hang */
    int rc = MPI_Comm_spawn("/nonexistent/rdmach-no-such-program", args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                            codes);
    CHECK(mt_class(rc) == MPI_ERR_SPAWN && ic == MPI_COMM_NULL && mt_class(codes[2]) == MPI_ERR_SPAWN,
          "Comm_spawn: class %d", mt_class(rc));
    rc = MPI_Comm_spawn("/bin/true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, np, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE);
    CHECK(mt_class(rc) == MPI_ERR_ROOT, "Comm_spawn with root np: class %d", mt_class(rc));
    char port[MPI_MAX_PORT_NAME];
    MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK(strncmp(port, "rdmach-port:", 12) == 0, "Open_port gave '%s'", port);
    MPI_OK(MPI_Close_port(port));
    CHECK(mt_class(MPI_Close_port(port)) == MPI_ERR_PORT, "Close_port of a port closed already");
    CHECK(mt_class(MPI_Close_port("tcp://nowhere")) == MPI_ERR_PORT, "Close_port of a port never opened");
    rc = MPI_Comm_accept("p", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic);
    CHECK(mt_class(rc) == MPI_ERR_PORT && ic == MPI_COMM_NULL, "Comm_accept on no port: class %d", mt_class(rc));
    rc = MPI_Comm_connect("p", MPI_INFO_NULL, -1, MPI_COMM_WORLD, &ic);
    CHECK(mt_class(rc) == MPI_ERR_ROOT, "Comm_connect with root -1: class %d", mt_class(rc));
    rc = MPI_Comm_connect("p", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic);
    CHECK(mt_class(rc) == MPI_ERR_PORT && ic == MPI_COMM_NULL, "Comm_connect to port 'p': class %d", mt_class(rc));
    char svc[64];
    snprintf(svc, sizeof(svc), "rdmach-test-none-%d", (int)getpid());
    CHECK(mt_class(MPI_Lookup_name(svc, MPI_INFO_NULL, port)) == MPI_ERR_NAME, "Lookup_name of nothing published");
    CHECK(mt_class(MPI_Unpublish_name(svc, MPI_INFO_NULL, "p")) == MPI_ERR_SERVICE, "Unpublish_name of nothing");
}

int main(int argc, char **argv)
{
    g_argc = argc;
    g_argv = argv;
    int flag;
    MPI_Initialized(&flag);
    CHECK(!flag, "Initialized true before MPI_Init");
    info_before_init();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = me;
    if (argc > 2 && strcmp(argv[1], "abort") == 0) {
        if (me == np - 1)
            MPI_Abort(MPI_COMM_WORLD, atoi(argv[2]));
        MPI_Barrier(MPI_COMM_WORLD);
        fprintf(stderr, "conf_misc: the barrier returned after MPI_Abort\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    error_classes();
    many_error_classes();
    errhandlers();
    info();
    environment();
    dynamic();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK(flag, "Finalized false after MPI_Finalize");
    MPI_Initialized(&flag);
    CHECK(flag, "Initialized false after MPI_Finalize");
    info_after_finalize();
    if (me == 0)
        printf("conf_misc: %d ranks: error classes and codes, errhandlers, info, environment, process management: ok\n", np);
    return 0;
}
