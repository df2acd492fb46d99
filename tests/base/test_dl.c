/* base/dl.c: the optional libraries opened on demand. A library that cannot
 * be opened is an error naming it and what needs it; a wrapper binds the
 * library's own function at the version asked (here libm's cbrt, which this
 * program's wrapper shadows everywhere else); a wrapper whose library cannot
 * be opened ends the process with the reason, having no error to return. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include "base/base.h"
#include "base/dl.h"

static struct rch_base_dl missing = { .soname = "librdmach-test-missing.so.7", .what = "the test's feature" };
static struct rch_base_dl libm_dl = { .soname = "libm.so.6", .what = "the test of the wrappers" };

RCH_DL_FN(libm_dl, "GLIBC_2.2.5", double, cbrt, (double x), (x))

int rch_test_dl_nowhere(int x);
RCH_DL_FN(missing, NULL, int, rch_test_dl_nowhere, (int x), (x))

Test(dl, missing_library_names_itself_and_its_user)
{
    cr_assert_eq(rch_base_dl_open(&missing), RDMACH_ERR_UNSUPPORTED);
    cr_assert_null(missing.handle);
    const char *msg = rdmach_last_error();
    cr_assert(strstr(msg, "librdmach-test-missing.so.7") != NULL, "message: %s", msg);
    cr_assert(strstr(msg, "the test's feature needs") != NULL, "message: %s", msg);
}

Test(dl, wrapper_calls_the_library_function)
{
    volatile double x = 27.0;
    cr_assert_null(libm_dl.handle);
    cr_assert_float_eq(cbrt(x), 3.0, 1e-12);   /* the wrapper opened libm and bound its cbrt */
    cr_assert_not_null(libm_dl.handle);
    cr_assert_eq(rch_base_dl_open(&libm_dl), RDMACH_OK);
    x = -8.0;
    cr_assert_float_eq(cbrt(x), -2.0, 1e-12);
}

Test(dl, wrapper_of_a_missing_library_aborts, .signal = SIGABRT)
{
    rch_test_dl_nowhere(1);
}
