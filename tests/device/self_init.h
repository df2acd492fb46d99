/* The fixture of the loopback tests: the real init path as a singleton
 * (rch_dev_init), so self-sends take the same matching and protocols as a peer's. */
#ifndef TEST_DEVICE_SELF_INIT_H
#define TEST_DEVICE_SELF_INIT_H

#include <stdlib.h>
#include <criterion/criterion.h>
#include "base/tunables.h"
#include "boot/boot.h"
#include "device/dev.h"

static inline void self_init(void)
{
    setenv("RDMACH_BIND", "none", 1);
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_boot_init(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_dev_init(), RDMACH_OK, "%s", rdmach_last_error());
}

static inline void self_fini(void)
{
    cr_assert_eq(rch_dev_finalize(), RDMACH_OK);
    rch_boot_finalize();
}

#endif
