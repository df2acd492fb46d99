/*
 * The native API's start-up: the one place that brings the layers up in
 * order (tunables, bootstrap, device with its channels) and down in reverse.
 * It lives in the device layer because it is the highest layer it starts.
 */
#include <stdio.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "device/dev.h"
#include "device/noise.h"

static int rch_native_state; /* 0: never, 1: initialized, 2: finalized */

RDMACH_API rdmach_status_t rdmach_init(int *argc, char ***argv)
{
    rdmach_status_t st;
    if (rch_native_state == 1)
        return RDMACH_OK;
    if (rch_native_state == 2)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "rdmach_init: called after rdmach_finalize");
    st = rch_base_tun_load();
    if (st != RDMACH_OK)
        goto out_report;
    st = rch_boot_init();
    if (st != RDMACH_OK)
        goto out_report;
    rch_log_set_rank(rch_boot.rank);
    st = rch_dev_noise_start(rch_boot.rank, rch_boot.size);
    if (st != RDMACH_OK)
        goto out_boot_finalize;
    st = rch_dev_init();
    if (st != RDMACH_OK)
        goto out_boot_finalize;
    rch_native_state = 1;
    return RDMACH_OK;

out_boot_finalize:
    RCH_ERROR("init", "%s: %s", rdmach_strerror(st), rdmach_last_error());
    rch_boot_abort(1, "device initialization failed");
out_report:
    RCH_ERROR("init", "%s: %s", rdmach_strerror(st), rdmach_last_error());
    return st;
}

RDMACH_API rdmach_status_t rdmach_finalize(void)
{
    if (rch_native_state != 1)
        return rch_base_err(RDMACH_ERR_NOT_INITIALIZED, "rdmach_finalize: rdmach is not initialized");
    rch_dev_noise_stop();
    rdmach_status_t st = rch_dev_finalize();
    rdmach_status_t st2 = rch_boot_finalize();
    rch_native_state = 2;
    return st != RDMACH_OK ? st : st2;
}

RDMACH_API int rdmach_initialized(void)
{
    return rch_native_state == 1;
}
