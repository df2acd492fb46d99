/*
 * The native API's layout queries, abort and key-value store: thin checks
 * over rch_boot. (rdmach_init/finalize/initialized live in src/device/native.c,
 * which starts every layer.) Queries made before init return
 * RDMACH_ERR_NOT_INITIALIZED (a negative number, never a valid rank or
 * count) and leave the reason in rdmach_last_error().
 */
#include <stdio.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "boot/boot.h"

static int not_up(const char *fn)
{
    return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "%s: called before rdmach_init", fn);
}

RDMACH_API int rdmach_rank(void)
{
    return rch_boot_is_up() ? rch_boot.rank : not_up("rdmach_rank");
}

RDMACH_API int rdmach_size(void)
{
    return rch_boot_is_up() ? rch_boot.size : not_up("rdmach_size");
}

RDMACH_API int rdmach_node(void)
{
    return rch_boot_is_up() ? rch_boot.node : not_up("rdmach_node");
}

RDMACH_API int rdmach_node_of(int rank)
{
    if (!rch_boot_is_up())
        return not_up("rdmach_node_of");
    if (rank < 0 || rank >= rch_boot.size)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_node_of: rank %d is not in 0..%d",
                            rank, rch_boot.size - 1);
    return rch_boot.node_of[rank];
}

RDMACH_API int rdmach_num_nodes(void)
{
    return rch_boot_is_up() ? rch_boot.num_nodes : not_up("rdmach_num_nodes");
}

RDMACH_API int rdmach_local_rank(void)
{
    return rch_boot_is_up() ? rch_boot.local_rank : not_up("rdmach_local_rank");
}

RDMACH_API int rdmach_local_size(void)
{
    return rch_boot_is_up() ? rch_boot.local_size : not_up("rdmach_local_size");
}

/* -1 (not bound) is a valid answer here, so before init it is -1 as well,
 * with the reason recorded. */
RDMACH_API int rdmach_bound_core(void)
{
    if (!rch_boot_is_up()) {
        not_up("rdmach_bound_core");
        return -1;
    }
    return rch_boot.bound_core;
}

RDMACH_API void rdmach_abort(int code, const char *msg)
{
    rch_boot_abort(code, msg);
}

RDMACH_API rdmach_status_t rdmach_kvs_put(const char *key, const char *value)
{
    return rch_boot_put(key, value);
}

RDMACH_API rdmach_status_t rdmach_kvs_get(int rank, const char *key, char *value, size_t len)
{
    return rch_boot_get(rank, key, value, len);
}

RDMACH_API rdmach_status_t rdmach_kvs_fence(void)
{
    return rch_boot_fence();
}
