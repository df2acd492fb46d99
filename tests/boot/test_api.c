/* The native API's layout queries and KVS (src/boot/api.c): errors before
 * init, answers for a singleton, errors again after finalize. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/tunables.h"
#include "boot/boot.h"

static void singleton_env(void)
{
    unsetenv("PMI_FD");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
    unsetenv("PMI_PORT");
    setenv("RDMACH_BIND", "none", 1);
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK);
}

Test(api, queries_before_init_say_not_initialized)
{
    char v[8];
    cr_assert_eq(rdmach_rank(), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert(strstr(rdmach_last_error(), "rdmach_rank: called before rdmach_init"), "%s", rdmach_last_error());
    cr_assert_eq(rdmach_size(), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert_eq(rdmach_node(), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert_eq(rdmach_node_of(0), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert_eq(rdmach_num_nodes(), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert_eq(rdmach_local_rank(), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert_eq(rdmach_local_size(), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert_eq(rdmach_bound_core(), -1);
    cr_assert_eq(rdmach_kvs_put("k", "v"), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert_eq(rdmach_kvs_get(0, "k", v, sizeof(v)), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert_eq(rdmach_kvs_fence(), RDMACH_ERR_NOT_INITIALIZED);
}

Test(api, singleton_is_rank_0_of_1_with_a_local_kvs)
{
    char v[16];
    singleton_env();
    cr_assert_eq(rch_boot_init(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rdmach_rank(), 0);
    cr_assert_eq(rdmach_size(), 1);
    cr_assert_eq(rdmach_node(), 0);
    cr_assert_eq(rdmach_num_nodes(), 1);
    cr_assert_eq(rdmach_node_of(0), 0);
    cr_assert_eq(rdmach_node_of(1), RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "rank 1 is not in 0..0"), "%s", rdmach_last_error());
    cr_assert_eq(rdmach_local_rank(), 0);
    cr_assert_eq(rdmach_local_size(), 1);
    cr_assert_eq(rdmach_bound_core(), -1); /* RDMACH_BIND=none */
    cr_assert(rch_boot.singleton);
    cr_assert(strncmp(rch_boot.kvsname, "single", 6) == 0, "%s", rch_boot.kvsname);

    cr_assert_eq(rdmach_kvs_get(0, "addr", v, sizeof(v)), RDMACH_ERR_NOT_FOUND);
    cr_assert_eq(rdmach_kvs_put("addr", "0a0b"), RDMACH_OK);
    cr_assert_eq(rdmach_kvs_put("addr", "0c0d"), RDMACH_OK);
    cr_assert_eq(rdmach_kvs_fence(), RDMACH_OK);
    cr_assert_eq(rdmach_kvs_get(0, "addr", v, sizeof(v)), RDMACH_OK);
    cr_assert_str_eq(v, "0c0d");
    cr_assert_eq(rdmach_kvs_get(1, "addr", v, sizeof(v)), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rdmach_kvs_put("bad key", "x"), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rdmach_kvs_put("k", NULL), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rdmach_kvs_get(0, NULL, v, sizeof(v)), RDMACH_ERR_INVALID_ARG);

    cr_assert_eq(rch_boot_finalize(), RDMACH_OK);
    cr_assert_eq(rdmach_rank(), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert_eq(rdmach_kvs_get(0, "addr", v, sizeof(v)), RDMACH_ERR_NOT_INITIALIZED);
    cr_assert_eq(rch_boot_finalize(), RDMACH_ERR_NOT_INITIALIZED);
}

Test(api, singleton_binds_to_core_0_by_default)
{
    singleton_env();
    setenv("RDMACH_BIND", "core", 1);
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK);
    cr_assert_eq(rch_boot_init(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rdmach_bound_core(), 0);
    cr_assert_eq(rch_boot_finalize(), RDMACH_OK);
}

Test(api, abort_before_init_exits_with_the_code, .exit_code = 9)
{
    rdmach_abort(9, "test abort");
}

Test(api, abort_of_a_singleton_exits_with_the_code, .exit_code = 5)
{
    singleton_env();
    cr_assert_eq(rch_boot_init(), RDMACH_OK);
    rdmach_abort(5, "test abort");
}
